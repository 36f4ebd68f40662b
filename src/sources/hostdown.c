/* Hosts remembered as down across runs (hostdown.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "buf.h"
#include "cachedir.h"
#include "config.h"
#include "error.h"
#include "hostdown.h"
#include "util.h"
#include "banned.h"

#define HOSTDOWN_MAX_FILE (64 * 1024)
#define HOSTDOWN_MAX_REASON 200
#define HOSTDOWN_KEEP_S (7 * 86400)

/* a host name fit for the file: printable, no blanks, not empty */
static int host_ok(const char *host)
{
	const char *p;

	if (!host || !*host || strlen(host) > 255)
		return 0;
	for (p = host; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return 0;
	return 1;
}

static void read_all(struct prov_buf *b, const char *cache_dir)
{
	char *path = prov_cachedir_path(cache_dir, PROV_CACHEDIR_HOSTS);

	/* no file is the common case: not an error to store */
	if (access(path, F_OK) != 0 || prov_read_file(b, path, HOSTDOWN_MAX_FILE) < 0)
		prov_buf_reset(b);
	free(path);
}

/*
 * Walk the lines of the file: for each well-formed one, call fn with the
 * host, its time and the whole line. Stops when fn returns nonzero.
 */
static int each_line(const struct prov_buf *b,
		     int (*fn)(const char *host, size_t hlen, time_t t, const char *line, size_t len, void *d),
		     void *d)
{
	const char *p = b->buf, *end = b->buf ? b->buf + b->len : NULL;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *tab, *tab2;
		const char *le = nl ? nl : end;
		char num[24];
		size_t nlen;

		tab = memchr(p, '\t', (size_t)(le - p));
		tab2 = tab ? memchr(tab + 1, '\t', (size_t)(le - tab - 1)) : NULL;
		if (!tab2)
			tab2 = le;
		nlen = tab ? (size_t)(tab2 - tab - 1) : 0;
		if (tab && tab > p && nlen > 0 && nlen < sizeof(num)) {
			char *e;
			long long t;

			memcpy(num, tab + 1, nlen);
			num[nlen] = '\0';
			t = strtoll(num, &e, 10);
			if (!*e && t > 0 && fn(p, (size_t)(tab - p), (time_t)t, p, (size_t)(le - p), d))
				return 1;
		}
		p = le + 1;
	}
	return 0;
}

struct find { const char *host; time_t t; };

static int find_cb(const char *host, size_t hlen, time_t t, const char *line, size_t len, void *d)
{
	struct find *f = d;

	(void)line;
	(void)len;
	if (hlen == strlen(f->host) && !memcmp(host, f->host, hlen)) {
		f->t = t;
		return 1;
	}
	return 0;
}

int prov_hostdown_check(const char *cache_dir, const char *host, uint64_t down_for_s,
			time_t *since)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct find f = { host, 0 };
	time_t now = time(NULL);
	int down = 0;

	if (!cache_dir || !down_for_s || !host_ok(host))
		return 0;
	read_all(&b, cache_dir);
	if (each_line(&b, find_cb, &f) && f.t <= now && (uint64_t)(now - f.t) < down_for_s) {
		down = 1;
		if (since)
			*since = f.t;
	}
	prov_buf_release(&b);
	return down;
}

struct keep { const char *host; time_t now; struct prov_buf *out; int dropped; };

/* keep the other hosts' lines that are not too old */
static int keep_cb(const char *host, size_t hlen, time_t t, const char *line, size_t len, void *d)
{
	struct keep *k = d;

	if ((hlen == strlen(k->host) && !memcmp(host, k->host, hlen)) ||
	    t > k->now || k->now - t > HOSTDOWN_KEEP_S) {
		k->dropped = 1;
		return 0;
	}
	prov_buf_add(k->out, line, len);
	prov_buf_putc(k->out, '\n');
	return 0;
}

/* Replace the file with `content` (write a temporary, rename over). */
static void write_all(const char *cache_dir, const struct prov_buf *content)
{
	char *path = prov_cachedir_path(cache_dir, PROV_CACHEDIR_HOSTS);
	char *tmp = prov_xasprintf("%s.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	int ok = fd >= 0;

	if (ok && content->len && write(fd, content->buf, content->len) != (ssize_t)content->len)
		ok = 0;
	if (fd >= 0 && close(fd) < 0)
		ok = 0;
	if (!ok || rename(tmp, path) < 0)
		unlink(tmp);
	free(tmp);
	free(path);
}

void prov_hostdown_note(const char *cache_dir, const char *host, const char *reason)
{
	struct prov_buf old = PROV_BUF_INIT, out = PROV_BUF_INIT;
	struct keep k = { host, time(NULL), &out, 0 };
	size_t i, start;

	if (!cache_dir || !host_ok(host))
		return;
	read_all(&old, cache_dir);
	each_line(&old, keep_cb, &k);
	prov_buf_printf(&out, "%s\t%lld\t", host, (long long)k.now);
	start = out.len;
	for (i = 0; reason && reason[i] && i < HOSTDOWN_MAX_REASON; i++) {
		unsigned char c = (unsigned char)reason[i];

		prov_buf_putc(&out, c < ' ' || c == 0x7f ? ' ' : (char)c);
	}
	if (out.len == start)
		prov_buf_puts(&out, "no answer");
	prov_buf_putc(&out, '\n');
	write_all(cache_dir, &out);
	prov_buf_release(&old);
	prov_buf_release(&out);
}

void prov_hostdown_clear(const char *cache_dir, const char *host)
{
	struct prov_buf old = PROV_BUF_INIT, out = PROV_BUF_INIT;
	struct keep k = { host, time(NULL), &out, 0 };

	if (!cache_dir || !host_ok(host))
		return;
	read_all(&old, cache_dir);
	each_line(&old, keep_cb, &k);
	if (k.dropped)
		write_all(cache_dir, &out);
	prov_buf_release(&old);
	prov_buf_release(&out);
}

void prov_hostdown_time(char *buf, size_t len, time_t t)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

uint64_t prov_hostdown_for(const struct prov_ctx *ctx)
{
	const char *v = ctx && ctx->config ? prov_config_get(ctx->config, "fetch.hostdownfor") : NULL;
	unsigned long long n;
	char *end;

	if (!v || !*v)
		return PROV_HOSTDOWN_DEFAULT_S;
	n = strtoull(v, &end, 10);
	if (*end || n > 7ULL * 86400) {
		prov_warn("ignoring fetch.hostdownfor = '%s': not a number of seconds (0 to 604800)", v);
		return PROV_HOSTDOWN_DEFAULT_S;
	}
	return n;
}

/* hosts this run already said it skipped: one line each */
#define MAX_NOTED_HOSTS 64
static char *noted_hosts[MAX_NOTED_HOSTS];
static size_t nnoted_hosts;

int prov_hostdown_skip(const struct prov_ctx *ctx, const char *host, const char *verb,
		       const char *display_url)
{
	uint64_t down_for;
	time_t since = 0;
	char when[40];
	size_t i;
	int noted = 0;

	if (!ctx || !host)
		return 0;
	down_for = prov_hostdown_for(ctx);
	if (!prov_hostdown_check(ctx->cache_dir, host, down_for, &since))
		return 0;
	prov_hostdown_time(when, sizeof(when), since);
	for (i = 0; i < nnoted_hosts; i++)
		if (!strcmp(noted_hosts[i], host))
			noted = 1;
	if (!noted) {
		prov_warn("skipping %s: it did not answer, or answered too slowly, at %s (remembered for %llu s, fetch.hostDownFor)",
			  host, when, (unsigned long long)down_for);
		if (nnoted_hosts < MAX_NOTED_HOSTS)
			noted_hosts[nnoted_hosts++] = prov_xstrdup(host);
	}
	prov_error_set(PROV_ERROR, "%s of %s skipped: %s did not answer, or answered too slowly, at %s (fetch.hostDownFor)",
		       verb, display_url, host, when);
	return 1;
}

void prov_hostdown_failed(const struct prov_ctx *ctx, const char *host, uint64_t connect_s)
{
	uint64_t down_for = prov_hostdown_for(ctx);
	char *why;

	if (!ctx || !host)
		return;
	prov_warn("%s did not answer within %llu s (fetch.connectTimeout): taken as down for %llu s (fetch.hostDownFor)",
		  host, (unsigned long long)connect_s, (unsigned long long)down_for);
	if (!down_for)
		return;
	/* the note reads and writes files: keep the fetch's error */
	why = prov_xstrdup(prov_error_last());
	prov_hostdown_note(ctx->cache_dir, host, why);
	prov_error_set(PROV_ERROR, "%s", why);
	free(why);
}

void prov_hostdown_slow(const struct prov_ctx *ctx, const char *host)
{
	uint64_t down_for = prov_hostdown_for(ctx);
	char *why;

	if (!ctx || !host)
		return;
	prov_warn("%s answered too slowly (fetch.minRate): taken as down for %llu s (fetch.hostDownFor)",
		  host, (unsigned long long)down_for);
	if (!down_for)
		return;
	why = prov_xstrdup(prov_error_last());
	prov_hostdown_note(ctx->cache_dir, host, why);
	prov_error_set(PROV_ERROR, "%s", why);
	free(why);
}

char *prov_hostdown_host(const char *url)
{
	const char *p = url ? strstr(url, "://") : NULL, *end, *at;

	if (!p)
		return NULL;
	p += 3;
	end = p + strcspn(p, "/?#");
	at = memchr(p, '@', (size_t)(end - p));
	if (at)
		p = at + 1;
	return end > p ? prov_xstrndup(p, (size_t)(end - p)) : NULL;
}
