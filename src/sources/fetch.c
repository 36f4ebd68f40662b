/* Downloads with libcurl into <cache>/downloads/: resumed, retried, capped (fetch.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "cachedir.h"
#include "error.h"
#include "fetch.h"
#include "hostdown.h"
#include "sha256.h"
#include "util.h"
#include "banned.h"

#define MAX_RETRIES 10
#define MAX_DELAY_MS 60000

struct xfer {
	int fd;
	uint64_t offset;	/* bytes in the .part file */
	uint64_t max;
	int over_limit;
	int write_error;
	int progress;	/* stderr is a terminal */
	uint64_t last_ms;
	const char *name;
	uint64_t stall_s;	/* fetch.stallTimeout */
	uint64_t answer_s;	/* fetch.connectTimeout: no byte of an answer within it */
	uint64_t start_ms;	/* of this attempt */
	int got_any;	/* a header or body byte arrived in this attempt */
	int no_answer;	/* the attempt ended without any answer */
	uint64_t min_rate;	/* fetch.minRate: bytes/s below which (for stall_s) it is too slow */
	int too_slow;	/* the attempt ended below min_rate */
	const char *ca_file;	/* fetch.sslCAInfo, or NULL: the system's CA store */
};

int prov_fetch_url_ok(const char *url)
{
	return url && (!strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8) ||
			!strncasecmp(url, "file://", 7));
}

char *prov_fetch_cache_path(const char *cache_dir, const char *url)
{
	char hex[2 * PROV_SHA256_LEN + 1];

	prov_sha256_hex(hex, url, strlen(url));
	return prov_cachedir_pathf(cache_dir, PROV_CACHEDIR_DOWNLOADS, "%s", hex);
}

void prov_fetch_forget(const char *cache_dir, const char *url)
{
	char *path = prov_fetch_cache_path(cache_dir, url);
	char *part = prov_xasprintf("%s.part", path);

	unlink(path);
	unlink(part);
	free(path);
	free(part);
}

int prov_fetch_config_size(uint64_t *out, const struct prov_config *cfg, const char *key,
			   uint64_t def)
{
	const char *v = cfg ? prov_config_get(cfg, key) : NULL;
	size_t len;
	unsigned shift = 0;
	uint64_t n;

	if (!v) {
		*out = def;
		return 0;
	}
	len = strlen(v);
	if (len > 0) {
		switch (v[len - 1]) {
		case 'k': case 'K': shift = 10; len--; break;
		case 'm': case 'M': shift = 20; len--; break;
		case 'g': case 'G': shift = 30; len--; break;
		}
	}
	if (prov_parse_u64(&n, v, len, 10) < 0 || (shift && n > (UINT64_MAX >> shift)))
		return prov_error_set(PROV_EINPUT, "bad size '%s' for '%s'", v, key);
	*out = n << shift;
	return 0;
}

int prov_fetch_ca_file(const char **out, const struct prov_config *cfg)
{
	const char *key = "fetch.sslCAInfo", *v = cfg ? prov_config_get(cfg, "fetch.sslcainfo") : NULL;
	struct stat st;
	int fd;

	*out = NULL;
	if (!v && cfg) {
		key = "http.sslCAInfo";
		v = prov_config_get(cfg, "http.sslcainfo");
	}
	if (!v || !*v)
		return 0;
	/* opened as the fetch will open it: a FIFO or a directory is refused here */
	fd = open(v, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return prov_error_set(PROV_EINPUT, "cannot read the CA file '%s' (%s): %s", v, key,
				      strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return prov_error_set(PROV_EINPUT, "the CA file '%s' (%s) is not a regular file", v, key);
	}
	close(fd);
	*out = v;
	return 0;
}

static int config_uint(uint64_t *out, const struct prov_config *cfg, const char *key,
		       uint64_t def, uint64_t max)
{
	const char *v = cfg ? prov_config_get(cfg, key) : NULL;
	uint64_t n;

	if (!v) {
		*out = def;
		return 0;
	}
	if (prov_parse_u64(&n, v, (size_t)-1, 10) < 0 || n > max)
		return prov_error_set(PROV_EINPUT, "bad value '%s' for '%s' (0 to %llu)", v, key,
				      (unsigned long long)max);
	*out = n;
	return 0;
}

static size_t write_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t len = size * nmemb, done = 0;

	if (x->offset + len > x->max) {
		x->over_limit = 1;
		return 0;
	}
	while (done < len) {
		ssize_t n = write(x->fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			x->write_error = errno ? errno : EIO;
			return 0;
		}
		done += (size_t)n;
	}
	x->offset += len;
	x->got_any = 1;
	return len;
}

static size_t header_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;

	(void)data;
	x->got_any = 1;
	return size * nmemb;
}

static int progress_cb(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	struct xfer *x = arg;
	uint64_t now;

	(void)ultotal;
	(void)ulnow;
	now = prov_now_ms();
	/* connected (a silent server accepts) but not one byte of an answer */
	if (!x->got_any && x->answer_s && now - x->start_ms > x->answer_s * 1000) {
		x->no_answer = 1;
		return 1;
	}
	if (!x->progress)
		return 0;
	if (now - x->last_ms < 200)
		return 0;
	x->last_ms = now;
	if (dltotal > 0)
		fprintf(stderr, "\rdownloading %s: %lld/%lld KiB   ", x->name,
			(long long)(dlnow / 1024), (long long)(dltotal / 1024));
	else
		fprintf(stderr, "\rdownloading %s: %lld KiB   ", x->name, (long long)(dlnow / 1024));
	return 0;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

enum attempt_result { ATTEMPT_OK, ATTEMPT_RETRY, ATTEMPT_FAIL };

/* One transfer appending to x->fd from x->offset. Sets the error on failure. */
static enum attempt_result attempt(int *error, struct xfer *x, const char *real_url,
				   const char *url, uint64_t timeout, uint64_t connect_timeout)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	CURL *h = curl_easy_init();
	CURLcode rc;
	long code = 0;
	enum attempt_result res = ATTEMPT_FAIL;

	if (!h) {
		*error = prov_error_set(PROV_ERROR, "cannot download '%s': curl_easy_init failed", url);
		return ATTEMPT_FAIL;
	}
	x->over_limit = 0;
	x->write_error = 0;
	x->got_any = 0;
	x->no_answer = 0;
	x->too_slow = 0;
	x->answer_s = connect_timeout;
	x->start_ms = prov_now_ms();
	curl_easy_setopt(h, CURLOPT_URL, real_url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https,file");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
	curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "provenance/" PROV_VERSION);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, (long)connect_timeout);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, (long)timeout);
	/* A stalled or trickling server is an error, not a hang. */
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, x->min_rate ? (long)x->min_rate : 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, x->stall_s ? (long)x->stall_s : 60L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, progress_cb);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	if (x->ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, x->ca_file);
	curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)(x->max - x->offset));
	if (x->offset)
		curl_easy_setopt(h, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)x->offset);

	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	/* no answer at all: not retried (the host is remembered as down) */
	if (!x->got_any && (x->no_answer || rc == CURLE_OPERATION_TIMEDOUT)) {
		x->no_answer = 1;
		*error = prov_error_set(PROV_ERROR, "download of %s got no answer within %llu s (fetch.connectTimeout)",
					url, (unsigned long long)connect_timeout);
		goto cleanup;
	}
	if (x->progress)
		fprintf(stderr, "\n");
	/* answering, but under fetch.minRate for fetch.stallTimeout (not fetch.timeout):
	 * not retried, and the host is remembered as a down one is */
	if (rc == CURLE_OPERATION_TIMEDOUT && x->min_rate &&
	    (!timeout || prov_now_ms() - x->start_ms < timeout * 1000)) {
		x->too_slow = 1;
		*error = prov_error_set(PROV_ERROR, "download of %s sent less than %llu bytes/s for %llu s (fetch.minRate, fetch.stallTimeout)",
					url, (unsigned long long)x->min_rate,
					(unsigned long long)(x->stall_s ? x->stall_s : 60));
		goto cleanup;
	}

	if (rc == CURLE_OK) {
		res = ATTEMPT_OK;
		goto cleanup;
	}
	if (x->over_limit || rc == CURLE_FILESIZE_EXCEEDED) {
		*error = prov_error_set(PROV_ELIMIT, "download of '%s' is larger than fetch.maxSize (%llu bytes)",
					url, (unsigned long long)x->max);
		goto cleanup;
	}
	if (x->write_error) {
		*error = prov_error_set(PROV_ERROR, "cannot write the download of '%s': %s", url,
					strerror(x->write_error));
		goto cleanup;
	}
	switch (rc) {
	case CURLE_RANGE_ERROR:
	case CURLE_BAD_DOWNLOAD_RESUME:
		/* The server ignores ranges: start again from the beginning. */
		if (ftruncate(x->fd, 0) < 0 || lseek(x->fd, 0, SEEK_SET) < 0) {
			*error = prov_error_set(PROV_ERROR, "cannot truncate the download of '%s': %s",
						url, strerror(errno));
			goto cleanup;
		}
		x->offset = 0;
		*error = prov_error_set(PROV_ERROR, "cannot resume '%s': %s", url, errbuf);
		res = ATTEMPT_RETRY;
		goto cleanup;
	case CURLE_HTTP_RETURNED_ERROR:
		if (code == 404 || code == 410) {
			*error = prov_error_set(PROV_ENOTFOUND, "'%s' not found (HTTP %ld)", url, code);
			goto cleanup;
		}
		if (code == 416 && x->offset) {
			/* Asked past the end: the partial file is not a prefix we can trust. */
			if (ftruncate(x->fd, 0) < 0 || lseek(x->fd, 0, SEEK_SET) < 0) {
				*error = prov_error_set(PROV_ERROR, "cannot truncate the download of '%s': %s",
							url, strerror(errno));
				goto cleanup;
			}
			x->offset = 0;
			*error = prov_error_set(PROV_ERROR, "cannot resume '%s' (HTTP 416)", url);
			res = ATTEMPT_RETRY;
			goto cleanup;
		}
		*error = prov_error_set(PROV_ERROR, "cannot download '%s': HTTP %ld", url, code);
		if (code == 408 || code == 429 || code >= 500)
			res = ATTEMPT_RETRY;
		goto cleanup;
	case CURLE_PEER_FAILED_VERIFICATION:
		*error = prov_error_set(PROV_ERROR, "cannot download '%s': the server's certificate is "
					"not trusted (%s); fetch.sslCAInfo names a CA file to trust", url,
					errbuf[0] ? errbuf : curl_easy_strerror(rc));
		goto cleanup;
	case CURLE_FILE_COULDNT_READ_FILE:
		*error = prov_error_set(PROV_ENOTFOUND, "'%s' not found: %s", url, errbuf);
		goto cleanup;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		*error = prov_error_set(PROV_ERROR, "cannot download '%s': %s", url,
					errbuf[0] ? errbuf : curl_easy_strerror(rc));
		res = ATTEMPT_RETRY;
		goto cleanup;
	default:
		*error = prov_error_set(PROV_ERROR, "cannot download '%s': %s", url,
					errbuf[0] ? errbuf : curl_easy_strerror(rc));
		goto cleanup;
	}
cleanup:
	curl_easy_cleanup(h);
	return res;
}

/* a directory the user named: sources.localDirs (':'-separated) or a url.file://DIR.insteadOf target */
struct local_dirs {
	const char *real;	/* the file, resolved */
	int allowed;
};

static void allow_if_under(struct local_dirs *ld, const char *dir, size_t len)
{
	char *d = prov_xstrndup(dir, len), *rd;
	size_t n;

	rd = *d ? realpath(d, NULL) : NULL;
	free(d);
	if (!rd)
		return;
	n = strlen(rd);
	while (n > 1 && rd[n - 1] == '/')
		n--;
	if (!strncmp(ld->real, rd, n) && (n == 1 || ld->real[n] == '/'))
		ld->allowed = 1;
	free(rd);
}

static int local_dir_cb(const char *key, const char *value, void *data)
{
	struct local_dirs *ld = data;

	if (!strcmp(key, "sources.localdirs")) {
		const char *p = value;

		while (*p) {
			size_t l = strcspn(p, ":");

			allow_if_under(ld, p, l);
			p += l;
			if (*p)
				p++;
		}
	} else if (prov_ends_with(key, ".insteadof") &&
		   !strncasecmp(key + strlen("url."), "file://", 7)) {
		const char *dir = key + strlen("url.file://");

		allow_if_under(ld, dir, strlen(dir) - strlen(".insteadof"));
	}
	return 0;
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* %XX decoded path of a file:// URL (a host part is refused), or NULL */
static char *file_url_path(const char *url)
{
	const char *p = url + 7;
	struct prov_buf b = PROV_BUF_INIT;

	if (*p != '/')
		return NULL;
	for (; *p; p++) {
		unsigned v;

		if (*p == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
			v = (unsigned)(hexval(p[1]) << 4 | hexval(p[2]));
			if (!v) {
				prov_buf_release(&b);
				return NULL;
			}
			prov_buf_putc(&b, (char)v);
			p += 2;
		} else {
			prov_buf_putc(&b, *p);
		}
	}
	return prov_buf_detach(&b);
}

/*
 * file://: read here, never by libcurl, and only a regular file below a
 * directory the user named (-c sources.localDirs=DIR, or the DIR of a
 * url.file://DIR.insteadOf rule): a mapping cannot make us read
 * /etc/shadow, a FIFO or a device.
 */
static int copy_local(struct xfer *x, const char *real_url, const char *url,
		      const struct prov_config *cfg)
{
	struct local_dirs ld = { NULL, 0 };
	char *path = file_url_path(real_url), *real = NULL;
	char *chunk = NULL;
	int fd = -1, error = 0;

	if (!path) {
		error = prov_error_set(PROV_EINPUT, "cannot download '%s': a file URL must be file:///PATH",
				       url);
		goto cleanup;
	}
	if (!(real = realpath(path, NULL))) {
		error = errno == ENOENT || errno == ENOTDIR
			? prov_error_set(PROV_ENOTFOUND, "cannot download '%s': '%s' does not exist", url, path)
			: prov_error_set(PROV_EINPUT, "cannot download '%s': %s", url, strerror(errno));
		goto cleanup;
	}
	ld.real = real;
	if (cfg)
		prov_config_foreach(cfg, "", local_dir_cb, &ld);
	if (!ld.allowed) {
		error = prov_error_set(PROV_EINPUT, "cannot download '%s': '%s' is not under a directory named with -c sources.localDirs=DIR",
				       url, path);
		goto cleanup;
	}
	if ((fd = prov_root_open(NULL, real, O_RDONLY)) < 0) {
		error = prov_error_set(PROV_EINPUT, "cannot download '%s': cannot open '%s': %s", url,
				       path, prov_strerror(errno));
		goto cleanup;
	}
	if (x->offset && lseek(fd, (off_t)x->offset, SEEK_SET) < 0) {
		error = prov_error_set(PROV_ERROR, "cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	chunk = prov_xmalloc(1 << 16);
	for (;;) {
		ssize_t n = read(fd, chunk, 1 << 16);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error = prov_error_set(PROV_ERROR, "cannot read '%s': %s", path, strerror(errno));
			goto cleanup;
		}
		if (n == 0)
			break;
		if (x->offset + (uint64_t)n > x->max) {
			error = prov_error_set(PROV_ELIMIT, "download of '%s' is larger than fetch.maxSize (%llu bytes)",
					       url, (unsigned long long)x->max);
			goto cleanup;
		}
		if (write(x->fd, chunk, (size_t)n) != n) {
			error = prov_error_set(PROV_ERROR, "cannot write the download of '%s': %s", url,
					       strerror(errno));
			goto cleanup;
		}
		x->offset += (uint64_t)n;
	}
cleanup:
	if (fd >= 0)
		close(fd);
	free(chunk);
	free(real);
	free(path);
	return error;
}

int prov_fetch_file(char **out, const char *url, const struct prov_fetch_opts *o)
{
	static int curl_ready;
	char *path = NULL, *part = NULL, *dir = NULL, *real_url = NULL, *host = NULL, *shown = NULL;
	uint64_t max, timeout, connect_timeout, retries, delay, stall, start;
	struct xfer x = { -1, 0, 0, 0, 0, 0, 0, NULL };
	struct stat st;
	unsigned i;
	int error = 0;

	if ((error = prov_fetch_config_size(&max, o->ctx->config, "fetch.maxsize", PROV_FETCH_DEFAULT_MAX_SIZE)) < 0 ||
	    (error = config_uint(&timeout, o->ctx->config, "fetch.timeout", 600, 86400 * 7)) < 0 ||
	    (error = config_uint(&connect_timeout, o->ctx->config, "fetch.connecttimeout", PROV_FETCH_DEFAULT_CONNECT_S, 3600)) < 0 ||
	    (error = config_uint(&retries, o->ctx->config, "fetch.retries", 3, MAX_RETRIES)) < 0 ||
	    (error = config_uint(&delay, o->ctx->config, "fetch.retrydelayms", 1000, MAX_DELAY_MS)) < 0 ||
	    (error = config_uint(&stall, o->ctx->config, "fetch.stalltimeout", 60, 86400)) < 0 ||
	    (error = config_uint(&x.min_rate, o->ctx->config, "fetch.minrate", PROV_FETCH_DEFAULT_MIN_RATE,
				 (uint64_t)1 << 30)) < 0 ||
	    (error = prov_fetch_ca_file(&x.ca_file, o->ctx->config)) < 0)
		return error;
	if (o->max_size && o->max_size < max)
		max = o->max_size;

	real_url = o->ctx->config ? prov_config_rewrite_url(o->ctx->config, url) : prov_xstrdup(url);
	if (!prov_fetch_url_ok(real_url)) {
		shown = prov_url_display(real_url);
		error = prov_error_set(PROV_EINPUT, "cannot download '%s': only http, https and file URLs are supported",
				       shown);
		goto cleanup;
	}
	path = prov_fetch_cache_path(o->ctx->cache_dir, url);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		goto done;
	/* --offline forbids the network, not the disk: file:// is still read. */
	if (o->ctx->offline && strncasecmp(real_url, "file://", 7)) {
		error = prov_error_set(PROV_ENOTFOUND, "'%s' is not in the cache and downloads are off (--offline)",
				       url);
		goto cleanup;
	}
	dir = prov_cachedir_path(o->ctx->cache_dir, PROV_CACHEDIR_DOWNLOADS);
	if ((error = prov_mkdir_p(dir, 0755, 0)) < 0)
		goto cleanup;
	part = prov_xasprintf("%s.part", path);
	x.fd = open(part, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (x.fd < 0) {
		error = prov_error_set(PROV_ERROR, "cannot create '%s': %s", part, strerror(errno));
		goto cleanup;
	}
	if (flock(x.fd, LOCK_EX) < 0) {
		error = prov_error_set(PROV_ERROR, "cannot lock '%s': %s", part, strerror(errno));
		goto cleanup;
	}
	/* Another run may have finished it while we waited for the lock. */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		goto done;
	if (fstat(x.fd, &st) < 0 || lseek(x.fd, 0, SEEK_END) < 0) {
		error = prov_error_set(PROV_ERROR, "cannot read '%s': %s", part, strerror(errno));
		goto cleanup;
	}
	x.offset = (uint64_t)st.st_size;
	x.max = max;
	x.progress = prov_isatty(2);
	shown = prov_url_display(url);
	x.name = prov_basename(shown);
	if (x.offset > max) {
		error = prov_error_set(PROV_ELIMIT, "download of '%s' is larger than fetch.maxSize (%llu bytes)",
				       url, (unsigned long long)max);
		unlink(part);
		goto cleanup;
	}
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			error = prov_error_set(PROV_ERROR, "cannot initialise libcurl");
			goto cleanup;
		}
		curl_ready = 1;
	}
	x.stall_s = stall;
	if (strncasecmp(real_url, "file://", 7)) {
		host = prov_hostdown_host(real_url);
		if (prov_hostdown_skip(o->ctx, host, "download", url)) {
			error = PROV_ERROR;
			goto cleanup;
		}
	}
	fprintf(stderr, "downloading %s\n", shown);
	start = prov_now_ms();
	for (i = 0; ; i++) {
		enum attempt_result r;

		if (!strncasecmp(real_url, "file://", 7)) {
			if ((error = copy_local(&x, real_url, url, o->ctx->config)) < 0) {
				unlink(part);
				goto cleanup;
			}
			break;
		}
		r = attempt(&error, &x, real_url, url, timeout, connect_timeout);
		if (r == ATTEMPT_OK) {
			prov_hostdown_clear(o->ctx->cache_dir, host);
			break;
		}
		if (x.no_answer)
			prov_hostdown_failed(o->ctx, host, connect_timeout);
		else if (x.too_slow)
			prov_hostdown_slow(o->ctx, host);
		/* fetch.timeout bounds the retries too */
		if (r == ATTEMPT_FAIL || i >= retries ||
		    (timeout && prov_now_ms() - start > timeout * 1000)) {
			if (error == PROV_ELIMIT || error == PROV_ENOTFOUND)
				unlink(part);
			goto cleanup;
		}
		sleep_ms(delay << (i < 6 ? i : 6) > MAX_DELAY_MS ? MAX_DELAY_MS : delay << (i < 6 ? i : 6));
	}
	error = 0;
	prov_error_clear();
	if (fsync(x.fd) < 0 || rename(part, path) < 0) {
		error = prov_error_set(PROV_ERROR, "cannot store the download of '%s' in '%s': %s", url,
				       path, strerror(errno));
		goto cleanup;
	}
done:
	*out = path;
	path = NULL;
	error = 0;
cleanup:
	if (x.fd >= 0)
		close(x.fd);
	free(path);
	free(part);
	free(dir);
	free(real_url);
	free(host);
	free(shown);
	return error;
}
