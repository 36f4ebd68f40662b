#ifndef PROV_GITSTREAM_H
#define PROV_GITSTREAM_H

#include <stdint.h>

/*
 * The socket under every libgit2 connection of a mirror fetch (sources
 * layer only): registered as libgit2's GIT_STREAM_STANDARD stream in the
 * fetch child, so that git://, http:// and the TLS of https:// (libgit2's
 * TLS stream opens its socket through the same registry) all read through
 * it. It counts the bytes read: before the pack starts (the ref
 * advertisement and negotiation, which libgit2 holds in memory) against
 * max_advert, in all against max_bytes, and waits for data at most until
 * the deadline. Past a bound the read fails, libgit2 gives up and
 * prov_gitstream_why() says what happened. One fetch per process.
 */
struct prov_gitstream_bounds {
	uint64_t max_advert;	/* bytes before the pack; 0: no bound */
	uint64_t max_bytes;	/* bytes in all; 0: no bound */
	uint64_t deadline_ms;	/* prov_now_ms() time; 0: none */
	uint64_t timeout_s;	/* fetch.timeout, for the message */
	int ping_fd;	/* told 'P' (at most every 50 ms) when bytes arrive, or -1 */
	const char *ca_file;	/* the CAs that verify https servers (fetch.sslCAInfo); NULL: the system's */
};

/*
 * Install for this process (the fetch child), with ca_file (when set) as
 * libgit2's CA store in place of the system's. 0, or -1 with libgit2's error set.
 */
int prov_gitstream_install(const struct prov_gitstream_bounds *b);
/* The pack has started: max_advert no longer applies. */
void prov_gitstream_pack_started(void);
/* Why a read failed on a bound ("the ref advertisement was over 64 MiB ..."), or NULL. */
const char *prov_gitstream_why(void);

#define PROV_SOURCES_DEFAULT_MAX_ADVERT ((uint64_t)64 << 20)

#endif
