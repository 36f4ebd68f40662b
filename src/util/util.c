/* Strings, strict number parsing, sysroot-safe file access, prov_mkdir_p: small helpers. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "util.h"
#include "banned.h"

int prov_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int prov_ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

const char *prov_skip_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

int prov_digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

int prov_parse_u64(uint64_t *out, const char *s, size_t len, int base)
{
	uint64_t v = 0;
	size_t i = 0;

	if (len == (size_t)-1)
		len = strlen(s);
	if (base == 16 && len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	if (i >= len)
		return PROV_ERROR;
	for (; i < len; i++) {
		int d = prov_digit_value(s[i]);

		if (d >= base)
			return PROV_ERROR;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return PROV_ERROR;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

int prov_parse_size(uint64_t *out, const char *s, size_t len)
{
	uint64_t n, mul = 1;

	if (len == (size_t)-1)
		len = strlen(s);
	if (len) {
		switch (s[len - 1]) {
		case 'k': case 'K': mul = (uint64_t)1 << 10; len--; break;
		case 'm': case 'M': mul = (uint64_t)1 << 20; len--; break;
		case 'g': case 'G': mul = (uint64_t)1 << 30; len--; break;
		case 't': case 'T': mul = (uint64_t)1 << 40; len--; break;
		default: break;
		}
	}
	if (!len || prov_parse_u64(&n, s, len, 10) < 0 || n > ((uint64_t)1 << 50) / mul)
		return PROV_ERROR;
	*out = n * mul;
	return 0;
}

int prov_parse_i64(int64_t *out, const char *s, size_t len)
{
	uint64_t v;
	int neg = 0;

	if (len == (size_t)-1)
		len = strlen(s);
	if (len && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		s++;
		len--;
	}
	if (prov_parse_u64(&v, s, len, 10) < 0)
		return PROV_ERROR;
	if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
		return PROV_ERROR;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int prov_parse_int(int *out, const char *s, size_t len)
{
	int64_t v;

	if (prov_parse_i64(&v, s, len) < 0 || v < INT_MIN || v > INT_MAX)
		return PROV_ERROR;
	*out = (int)v;
	return 0;
}

char *prov_hex(const unsigned char *bytes, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char *s = prov_xmalloc(len * 2 + 1);
	size_t i;

	for (i = 0; i < len; i++) {
		s[2 * i] = digits[bytes[i] >> 4];
		s[2 * i + 1] = digits[bytes[i] & 15];
	}
	s[2 * len] = '\0';
	return s;
}

int prov_read_fd(struct prov_buf *out, int fd, const char *name, size_t cap)
{
	char chunk[65536];
	ssize_t n;

	prov_buf_reset(out);
	/* the caller's cap is the limit, not the buffer's default (256 MiB) */
	if (out->cap < cap)
		out->cap = cap;
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return prov_error_set(PROV_EINPUT, "cannot read '%s': %s",
					      name, strerror(errno));
		}
		if (n == 0)
			break;
		if (out->len + (size_t)n > cap)
			return prov_error_set(PROV_ELIMIT,
					      "'%s' is larger than the limit of %zu bytes",
					      name, cap);
		if (prov_buf_add(out, chunk, (size_t)n) < 0)
			return prov_error_set(PROV_ELIMIT,
					      "'%s' is larger than the limit of %zu bytes",
					      name, out->cap);
	}
	return 0;
}

int prov_read_file(struct prov_buf *out, const char *path, size_t cap)
{
	/* a regular file only: a FIFO or a device is refused, never opened */
	int fd = prov_root_open(NULL, path, O_RDONLY);
	int error;

	if (fd < 0)
		return prov_error_set(PROV_EINPUT, "cannot open '%s': %s", path,
				      prov_strerror(errno));
	error = prov_read_fd(out, fd, path, cap);
	close(fd);
	return error;
}

/* openat2 RESOLVE_IN_ROOT under root, or a plain open on the host */
static int root_open_raw(const char *root, const char *path, int flags)
{
	struct open_how how;
	int dirfd, fd, saved;
	const char *rel = path;

	if (!root || !*root || strcmp(root, "/") == 0)
		return open(path, flags | O_CLOEXEC);

	dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -1;
	while (*rel == '/')
		rel++;
	if (!*rel)
		rel = ".";
	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	saved = errno;
	close(dirfd);
	errno = saved;
	return fd;
}

int prov_open_regular_at(int pathfd, int flags)
{
	struct stat st;
	char proc[64];
	int fd;

	if (fstat(pathfd, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode)) {
		errno = PROV_ENOTREG;
		return -1;
	}
	/* the inode already checked, reopened for reading: nothing else is opened */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pathfd);
	fd = open(proc, (flags & ~(O_CREAT | O_TRUNC | O_PATH)) | O_CLOEXEC | O_NOCTTY);
	return fd;
}

static prov_root_fill_fn root_fill;
static void *root_fill_arg;

void prov_root_set_fill(prov_root_fill_fn fn, void *arg)
{
	root_fill = fn;
	root_fill_arg = arg;
}

/* A placeholder at pfd filled in by the hook: pfd reopened on the real file.
 * 0, or -1 with errno set (pfd closed). */
static int root_fill_in(int *pfd, const char *root, const char *path, int flags)
{
	struct stat st;
	int r;

	if (!root_fill || fstat(*pfd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size != 0 ||
	    (st.st_mode & 07777) != 0)
		return 0;
	if ((r = root_fill(*pfd, root_fill_arg)) == 0)
		return 0;
	close(*pfd);
	if (r < 0) {
		*pfd = -1;
		errno = EIO;
		return -1;
	}
	*pfd = root_open_raw(root, path, O_PATH | (flags & O_NOFOLLOW));
	return *pfd < 0 ? -1 : 0;
}

int prov_root_open(const char *root, const char *path, int flags)
{
	int pfd, fd, saved;
	struct stat st;

	/* O_PATH: a name looked at (realpath, identity), not read: a placeholder stays one */
	if (flags & (O_DIRECTORY | O_PATH))
		return root_open_raw(root, path, flags);
	/* O_PATH first: a FIFO or a device is looked at, never opened */
	pfd = root_open_raw(root, path, O_PATH | (flags & O_NOFOLLOW));
	if (pfd < 0 || root_fill_in(&pfd, root, path, flags) < 0)
		return -1;
	fd = prov_open_regular_at(pfd, flags);
	saved = errno;
	if (fd < 0 && saved != PROV_ENOTREG && access("/proc/self/fd", X_OK) != 0) {
		/* no /proc: open without blocking and check what was opened */
		fd = root_open_raw(root, path, flags | O_NONBLOCK | O_NOCTTY);
		saved = errno;
		if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
			close(fd);
			fd = -1;
			saved = PROV_ENOTREG;
		} else if (fd >= 0) {
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		}
	}
	close(pfd);
	errno = saved;
	return fd;
}

const char *prov_strerror(int err)
{
	if (err == PROV_ENOTREG)
		return "not a regular file";
	return strerror(err);
}

char *prov_root_join(const char *root, const char *path)
{
	struct prov_buf b = PROV_BUF_INIT;
	const char *p;
	char prev = 0;

	if (root && *root && strcmp(root, "/") != 0) {
		prov_buf_puts(&b, root);
		prov_buf_putc(&b, '/');
	}
	prov_buf_puts(&b, path);
	/* squeeze duplicate slashes in place */
	{
		char *w = b.buf;
		for (p = b.buf; *p; p++) {
			if (*p == '/' && prev == '/')
				continue;
			prev = *p;
			*w++ = *p;
		}
		*w = '\0';
		b.len = (size_t)(w - b.buf);
	}
	return prov_buf_detach(&b);
}

char *prov_path_normalize(const char *path)
{
	size_t n = strlen(path), ncomp = 0, i;
	const char **comp = prov_xcalloc(n / 2 + 2, sizeof(*comp));
	size_t *clen = prov_xcalloc(n / 2 + 2, sizeof(*clen));
	int absolute = path[0] == '/';
	const char *p = path;
	struct prov_buf b = PROV_BUF_INIT;

	while (*p) {
		const char *s;
		size_t l;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		s = p;
		while (*p && *p != '/')
			p++;
		l = (size_t)(p - s);
		if (l == 1 && s[0] == '.')
			continue;
		if (l == 2 && s[0] == '.' && s[1] == '.') {
			if (ncomp && !(clen[ncomp - 1] == 2 &&
				       comp[ncomp - 1][0] == '.' &&
				       comp[ncomp - 1][1] == '.')) {
				ncomp--;
				continue;
			}
			if (absolute)
				continue;
		}
		comp[ncomp] = s;
		clen[ncomp] = l;
		ncomp++;
	}
	if (absolute)
		prov_buf_putc(&b, '/');
	for (i = 0; i < ncomp; i++) {
		if (i)
			prov_buf_putc(&b, '/');
		prov_buf_add(&b, comp[i], clen[i]);
	}
	if (!b.len)
		prov_buf_putc(&b, '.');
	free(comp);
	free(clen);
	return prov_buf_detach(&b);
}

const char *prov_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int prov_mkdir_p(const char *path, mode_t mode, unsigned int flags)
{
	char *dir = prov_xstrdup(path), *p;
	int error = 0;

	/* from the second byte: "/" itself is never made */
	for (p = *dir ? dir + 1 : dir; ; p++) {
		char c = *p;

		if (c != '/' && c)
			continue;
		if (!c && (flags & PROV_MKDIR_PARENTS))
			break;
		*p = '\0';
		if (mkdir(dir, mode) < 0 && errno != EEXIST) {
			error = prov_error_set(flags & PROV_MKDIR_INPUT ? PROV_EINPUT : PROV_ERROR,
					       "cannot create directory '%s': %s", dir, strerror(errno));
			break;
		}
		*p = c;
		if (!c)
			break;
	}
	free(dir);
	return error;
}

int prov_isatty(int fd)
{
	return isatty(fd);
}

uint64_t prov_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* C0 controls but \n and \t, DEL; with c1, also U+0080..U+009F (UTF-8 C2 80..C2 9F) */
/* Length of the valid UTF-8 sequence at p (shortest form, no surrogates), 0 if none. */
static size_t utf8_len(const unsigned char *p, size_t left)
{
	size_t n, k;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	if (left < n)
		return 0;
	for (k = 1; k < n; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
		return 0;
	return n;
}

/*
 * How many bytes at p to escape (0: none). *keep is how many to copy as they
 * are when none: a whole valid UTF-8 sequence is copied at once so that its
 * continuation bytes are not taken for stray C1 bytes. With c1, a byte
 * 0x80..0x9F outside a valid sequence (a raw 8-bit CSI 0x9B, which a
 * terminal in a C locale obeys) is escaped, as is U+0080..U+009F.
 */
static size_t control_len(const unsigned char *p, size_t left, int c1, size_t *keep)
{
	size_t u;

	*keep = 1;
	if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
		return 1;
	if (!c1 || *p < 0x80)
		return 0;
	if ((u = utf8_len(p, left)) != 0) {
		if (u == 2 && p[0] == 0xc2 && p[1] <= 0x9f)
			return 2;
		*keep = u;
		return 0;
	}
	return *p <= 0x9f ? 1 : 0;
}

size_t prov_escape_controls(struct prov_buf *b, size_t from, int c1)
{
	static const char hex[] = "0123456789abcdef";
	struct prov_buf out = PROV_BUF_INIT;
	const unsigned char *p = (const unsigned char *)b->buf;
	size_t i, n = 0, keep;

	for (i = from; i < b->len; i += keep)
		if (control_len(p + i, b->len - i, c1, &keep))
			break;
	if (i >= b->len)
		return 0;
	out.cap = b->cap > SIZE_MAX / 4 ? SIZE_MAX : b->cap * 4;
	prov_buf_add(&out, b->buf, i);
	while (i < b->len) {
		size_t l = control_len(p + i, b->len - i, c1, &keep), k;

		if (!l) {
			prov_buf_add(&out, b->buf + i, keep);
			i += keep;
			continue;
		}
		for (k = 0; k < l; k++) {
			char e[4] = { '\\', 'x', hex[p[i + k] >> 4], hex[p[i + k] & 15] };

			prov_buf_add(&out, e, 4);
		}
		i += l;
		n++;
	}
	prov_buf_release(b);
	*b = out;
	return n;
}

int prov_tag_is_prerelease(const char *tag)
{
	static const char *const words[] = { "rc", "alpha", "beta", "pre", "dev", "preview", NULL };
	const char *p = tag;

	while (*p && !(*p >= '0' && *p <= '9'))
		p++;
	while (*p) {
		const char *w = p;
		size_t n = 0, k;

		while ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')
			p++, n++;
		if (!n) {
			p++;
			continue;
		}
		for (k = 0; words[k]; k++)
			if (strlen(words[k]) == n && !strncasecmp(w, words[k], n))
				return 1;
		if (n == 1 && ((*w | 0x20) == 'a' || (*w | 0x20) == 'b') && w[-1] >= '0' && w[-1] <= '9' &&
		    *p >= '0' && *p <= '9')
			return 1;
	}
	return 0;
}

static int remove_tree(int dfd, const char *name, int depth)
{
	int fd, err = 0;
	DIR *d;
	struct dirent *e;

	if (depth > 64)
		return prov_error_set(PROV_ELIMIT, "tree deeper than 64 levels at '%s'", name);
	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return prov_error_set(PROV_ERROR, "cannot remove '%s': %s", name, strerror(errno));
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return prov_error_set(PROV_ERROR, "cannot open '%s': %s", name, strerror(errno));
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return prov_error_set(PROV_ERROR, "cannot list '%s': %s", name, strerror(errno));
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if ((err = remove_tree(dirfd(d), e->d_name, depth + 1)) < 0)
			break;
	}
	closedir(d);
	if (!err && unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		err = prov_error_set(PROV_ERROR, "cannot remove '%s': %s", name, strerror(errno));
	return err;
}

int prov_remove_tree_at(int dfd, const char *name)
{
	return remove_tree(dfd, name, 0);
}

char *prov_url_strip_userinfo(char *url)
{
	char *host, *at, *p;

	if (!url || !(host = strstr(url, "://")))
		return url;
	host += 3;
	at = NULL;
	for (p = host; *p && *p != '/' && *p != '?' && *p != '#'; p++)
		if (*p == '@')
			at = p;
	if (at)
		memmove(host, at + 1, strlen(at + 1) + 1);
	return url;
}

char *prov_url_display(const char *url)
{
	struct prov_buf b = PROV_BUF_INIT;

	if (!url)
		return NULL;
	prov_buf_puts(&b, url);
	prov_url_strip_userinfo(b.buf);
	prov_buf_setlen(&b, strlen(b.buf));
	prov_escape_controls(&b, 0, 1);
	return prov_buf_detach(&b);
}

uint64_t prov_hash_more(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

uint64_t prov_hash_bytes(const void *p, size_t n)
{
	return prov_hash_more(PROV_HASH_INIT, p, n);
}

uint64_t prov_hash_str(const char *s)
{
	return prov_hash_bytes(s, strlen(s));
}

/* dpkg's character order: '~' first, then the end, letters, everything else */
static int ver_order(int c)
{
	if (c >= '0' && c <= '9')
		return 0;
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return c;
	if (c == '~')
		return -1;
	return c ? c + 256 : 0;
}

static int is_dig(const char *p, const char *end)
{
	return p < end && *p >= '0' && *p <= '9';
}

/* dpkg's verrevcmp on [a, ae) and [b, be) */
static int ver_part_cmp(const char *a, const char *ae, const char *b, const char *be)
{
	while (a < ae || b < be) {
		int first_diff = 0;

		while ((a < ae && !is_dig(a, ae)) || (b < be && !is_dig(b, be))) {
			int ac = ver_order(a < ae ? (unsigned char)*a : 0);
			int bc = ver_order(b < be ? (unsigned char)*b : 0);

			if (ac != bc)
				return ac - bc;
			a++;
			b++;
		}
		while (a < ae && *a == '0')
			a++;
		while (b < be && *b == '0')
			b++;
		while (is_dig(a, ae) && is_dig(b, be)) {
			if (!first_diff)
				first_diff = *a - *b;
			a++;
			b++;
		}
		if (is_dig(a, ae))
			return 1;
		if (is_dig(b, be))
			return -1;
		if (first_diff)
			return first_diff;
	}
	return 0;
}

struct ver_parts {
	unsigned long long epoch;
	const char *up, *up_end, *rev, *rev_end;
};

static void ver_split(struct ver_parts *v, const char *s)
{
	const char *colon = strchr(s, ':'), *dash;

	v->epoch = 0;
	if (colon) {
		const char *p;

		for (p = s; p < colon && *p >= '0' && *p <= '9'; p++)
			v->epoch = v->epoch * 10 + (unsigned long long)(*p - '0');
		if (p != colon || colon == s)	/* not a number: the colon is part of the version */
			colon = NULL, v->epoch = 0;
	}
	v->up = colon ? colon + 1 : s;
	dash = strrchr(v->up, '-');
	v->up_end = dash ? dash : v->up + strlen(v->up);
	v->rev = dash ? dash + 1 : v->up_end;
	v->rev_end = v->rev + strlen(v->rev);
}

int prov_version_cmp(const char *a, const char *b)
{
	struct ver_parts x, y;
	int c;

	ver_split(&x, a ? a : "");
	ver_split(&y, b ? b : "");
	if (x.epoch != y.epoch)
		return x.epoch < y.epoch ? -1 : 1;
	if ((c = ver_part_cmp(x.up, x.up_end, y.up, y.up_end)))
		return c;
	return ver_part_cmp(x.rev, x.rev_end, y.rev, y.rev_end);
}
