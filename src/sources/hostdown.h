#ifndef PROV_HOSTDOWN_H
#define PROV_HOSTDOWN_H

#include <stdint.h>
#include <time.h>
#include "context.h"

/*
 * Hosts that did not answer, remembered across runs in
 * <cache_dir>/hosts-down (one line per host: "HOST<TAB>EPOCH<TAB>REASON"),
 * so that a machine with no route out pays the connect bound once per
 * fetch.hostDownFor (default 600 s; 0 remembers nothing), not once per run.
 * Best effort: a file that cannot be read or written is the same as none.
 */
#define PROV_HOSTDOWN_DEFAULT_S 600

/* 1 (and *since, when the host was noted) when `host` was noted as down
 * less than down_for_s seconds ago; 0 otherwise. */
int prov_hostdown_check(const char *cache_dir, const char *host, uint64_t down_for_s,
			time_t *since);

/* Note `host` as down now, for `reason` (one line, made printable). */
void prov_hostdown_note(const char *cache_dir, const char *host, const char *reason);

/* Forget `host` (it answered). No write when it was not noted. */
void prov_hostdown_clear(const char *cache_dir, const char *host);

/*
 * `host` answered, but under fetch.minRate for fetch.stallTimeout (a trickle
 * holds each download for the whole fetch.timeout otherwise): remembered as
 * a down host is, with one line on stderr. The stored error is kept.
 */
void prov_hostdown_slow(const struct prov_ctx *ctx, const char *host);

/* "scheme://[user@]host[:port]/..." -> "host[:port]" (caller frees), or NULL. */
char *prov_hostdown_host(const char *url);

/* fetch.hostDownFor of the run's config (default PROV_HOSTDOWN_DEFAULT_S). */
uint64_t prov_hostdown_for(const struct prov_ctx *ctx);

/*
 * For a fetch or download of `display_url` from `host`: 1 when the host is
 * remembered as down, with one line on stderr per host and run (`skipping
 * HOST: it did not answer at TIME`) and the error set (`VERB of URL
 * skipped: HOST did not answer at TIME (fetch.hostDownFor)`); 0 otherwise.
 */
int prov_hostdown_skip(const struct prov_ctx *ctx, const char *host, const char *verb,
		       const char *display_url);

/*
 * `host` got no answer within connect_s: one line on stderr and, unless
 * fetch.hostDownFor is 0, a note in the cache. The stored error is kept.
 */
void prov_hostdown_failed(const struct prov_ctx *ctx, const char *host, uint64_t connect_s);

/* "YYYY-MM-DD HH:MM:SS UTC" of t into buf (at least 32 bytes). */
void prov_hostdown_time(char *buf, size_t len, time_t t);

#endif
