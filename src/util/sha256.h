#ifndef PROV_SHA256_H
#define PROV_SHA256_H

#include <stddef.h>
#include <stdint.h>

/*
 * SHA-256 (FIPS 180-4), small and self-contained: libgit2 1.5 exposes no
 * SHA-256 and libcurl none at all. Used to verify the Checksums-Sha256 of
 * Debian source packages and to name downloads in the cache.
 */
struct prov_sha256 {
	uint32_t h[8];
	uint64_t len;	/* bytes hashed so far */
	unsigned char block[64];
	size_t used;	/* bytes in block */
};

#define PROV_SHA256_LEN 32

void prov_sha256_init(struct prov_sha256 *s);
void prov_sha256_update(struct prov_sha256 *s, const void *data, size_t len);
/* Write the 32-byte digest to out; s must be initialised again before reuse. */
void prov_sha256_final(unsigned char out[PROV_SHA256_LEN], struct prov_sha256 *s);

/* Lower-case hex digest (64 characters + NUL) of a buffer. */
void prov_sha256_hex(char out[2 * PROV_SHA256_LEN + 1], const void *data, size_t len);

/*
 * Lower-case hex digest of a file's contents and its size. PROV_EINPUT
 * (message names the path) when it cannot be read.
 */
int prov_sha256_file(char out[2 * PROV_SHA256_LEN + 1], uint64_t *out_size, const char *path);

#endif
