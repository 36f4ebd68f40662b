#ifndef PROV_FETCH_H
#define PROV_FETCH_H

#include <stdint.h>

#include "config.h"
#include "context.h"

/*
 * Downloads with libcurl into the cache: <cache_dir>/downloads/<64 hex of
 * the SHA-256 of the URL as named, before url.<base>.insteadOf>, written as
 * <...>.part (resumed with a Range request after an interruption) and
 * renamed into place when complete, so a name without ".part" is always a
 * whole download.
 *
 * Settings read from config (git-config keys, all optional):
 *   fetch.timeout         total seconds per attempt (default 600; 0 = none)
 *   fetch.connectTimeout  seconds to connect (default 5)
 *   fetch.retries         extra attempts after a transient error (default 3, max 10)
 *   fetch.retryDelayMs    first back-off delay, doubled each time (default 1000, max 60000)
 *   fetch.maxSize         largest download in bytes; k/m/g suffixes (default 2g)
 *   fetch.sslCAInfo       a PEM file of the CAs that verify https servers, instead
 *                         of the system's bundle (else git's http.sslCAInfo)
 *   url.<base>.insteadOf  applied to the URL before downloading
 */
struct prov_fetch_opts {
	/* config (may be NULL), cache_dir, offline (no network: a cached
	 * complete file, a file:// URL, or PROV_ENOTFOUND) */
	const struct prov_ctx *ctx;
	uint64_t max_size;	/* when not 0 and below fetch.maxSize: the cap for this download */
};

/* seconds to wait for a first answer: a host that answers at all does so
 * well within it; a machine with no route out pays it once per host */
#define PROV_FETCH_DEFAULT_CONNECT_S 5
#define PROV_FETCH_DEFAULT_MAX_SIZE ((uint64_t)2 << 30)
/* bytes/s: a download slower than this for fetch.stallTimeout is abandoned
 * and its host remembered as down (a trickle would otherwise hold every
 * frame's download for the whole fetch.timeout) */
#define PROV_FETCH_DEFAULT_MIN_RATE 1024

/*
 * Download `url` (http, https or file, after insteadOf) unless a complete
 * copy is cached, and set *out to the cached file's path (caller frees).
 * Redirects are followed (at most 10, to http/https only). Transient errors
 * (connection refused or reset, timeouts, a cut transfer, HTTP 408, 429 and
 * 5xx) are retried with back-off, resuming the partial file.
 * Errors (message names the URL):
 *   PROV_EINPUT     a URL of another scheme, or a malformed setting
 *   PROV_ENOTFOUND  HTTP 404/410 or a missing file:// path; offline and not cached
 *   PROV_ELIMIT     larger than fetch.maxSize
 *   PROV_ERROR      any other failure (retries exhausted, disk errors)
 * With offline set, http(s) URLs are never fetched; file:// URLs are read
 * (--offline forbids the network, not the disk).
 * An flock(2) on the .part file serialises two runs fetching one URL.
 */
int prov_fetch_file(char **out, const char *url, const struct prov_fetch_opts *o);

/*
 * The CA file that verifies https servers, for curl's downloads and
 * libgit2's fetches: fetch.sslCAInfo, else http.sslCAInfo (git's key);
 * *out NULL when neither is set (the system's CA bundle). PROV_EINPUT,
 * naming the key, when it is not a readable regular file.
 */
int prov_fetch_ca_file(const char **out, const struct prov_config *cfg);

/* The cached path for url (complete or not), without touching disk. Caller frees. */
char *prov_fetch_cache_path(const char *cache_dir, const char *url);

/* Forget a cached download (after a failed checksum or a broken archive). */
void prov_fetch_forget(const char *cache_dir, const char *url);

/* 1 when url is http://, https:// or file:// (case-insensitive scheme). */
int prov_fetch_url_ok(const char *url);

/*
 * A size setting: digits with an optional k, m or g suffix (powers of
 * 1024). PROV_EINPUT naming the key when malformed; *out = def when unset.
 */
int prov_fetch_config_size(uint64_t *out, const struct prov_config *cfg, const char *key,
			   uint64_t def);

#endif
