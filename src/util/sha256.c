/* SHA-256 (FIPS 180-4), self-contained, to verify downloads against their checksums. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "sha256.h"
#include "banned.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void compress(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; hh = h[7];
	for (i = 0; i < 64; i++) {
		t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		hh = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

void prov_sha256_init(struct prov_sha256 *s)
{
	static const uint32_t init[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memcpy(s->h, init, sizeof(init));
	s->len = 0;
	s->used = 0;
}

void prov_sha256_update(struct prov_sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->len += len;
	if (s->used) {
		size_t n = 64 - s->used;
		if (n > len)
			n = len;
		memcpy(s->block + s->used, p, n);
		s->used += n;
		p += n;
		len -= n;
		if (s->used < 64)
			return;
		compress(s->h, s->block);
		s->used = 0;
	}
	while (len >= 64) {
		compress(s->h, p);
		p += 64;
		len -= 64;
	}
	if (len) {
		memcpy(s->block, p, len);
		s->used = len;
	}
}

void prov_sha256_final(unsigned char out[PROV_SHA256_LEN], struct prov_sha256 *s)
{
	uint64_t bits = s->len * 8;
	int i;

	s->block[s->used++] = 0x80;
	if (s->used > 56) {
		memset(s->block + s->used, 0, 64 - s->used);
		compress(s->h, s->block);
		s->used = 0;
	}
	memset(s->block + s->used, 0, 56 - s->used);
	for (i = 0; i < 8; i++)
		s->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	compress(s->h, s->block);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}

static void to_hex(char out[2 * PROV_SHA256_LEN + 1], const unsigned char *d)
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < PROV_SHA256_LEN; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * PROV_SHA256_LEN] = '\0';
}

void prov_sha256_hex(char out[2 * PROV_SHA256_LEN + 1], const void *data, size_t len)
{
	struct prov_sha256 s;
	unsigned char d[PROV_SHA256_LEN];

	prov_sha256_init(&s);
	prov_sha256_update(&s, data, len);
	prov_sha256_final(d, &s);
	to_hex(out, d);
}

int prov_sha256_file(char out[2 * PROV_SHA256_LEN + 1], uint64_t *out_size, const char *path)
{
	struct prov_sha256 s;
	unsigned char d[PROV_SHA256_LEN];
	unsigned char buf[65536];
	int fd, error = 0;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return prov_error_set(PROV_EINPUT, "cannot open '%s': %s", path, strerror(errno));
	prov_sha256_init(&s);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error = prov_error_set(PROV_EINPUT, "cannot read '%s': %s", path, strerror(errno));
			goto cleanup;
		}
		if (n == 0)
			break;
		prov_sha256_update(&s, buf, (size_t)n);
	}
	prov_sha256_final(d, &s);
	to_hex(out, d);
	*out_size = s.len;
cleanup:
	close(fd);
	return error;
}
