/* provenance collect's limits: the collect.* settings, kept zstd cores within maxUse/keepFree, the rate limit. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "collect.h"
#include "config.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/* "N", "NK", "NM", "NG", "NT" (powers of 1024) or "N%" (*pct = 1). */
static int parse_size(struct prov_collect_size *out, const char *key, const char *v)
{
	size_t len = strlen(v);

	memset(out, 0, sizeof(*out));
	if (len && v[len - 1] == '%') {
		out->pct = 1;
		if (prov_parse_u64(&out->value, v, len - 1, 10) < 0 || out->value > 100)
			goto bad;
	} else if (prov_parse_size(&out->value, v, len) < 0) {
		goto bad;
	}
	return 0;
bad:
	return prov_error_set(PROV_EUSAGE, "%s: '%s' is not a size (N, NK, NM, NG or N%%)", key, v);
}

/* Seconds as "N" or "N.D…" (milliseconds kept). */
static int parse_seconds(double *out, const char *key, const char *v)
{
	uint64_t whole = 0, frac = 0, scale = 1;
	const char *dot = strchr(v, '.');
	size_t wl = dot ? (size_t)(dot - v) : strlen(v);

	if ((wl && prov_parse_u64(&whole, v, wl, 10) < 0) || (!wl && !dot) || whole > 1000000)
		goto bad;
	if (dot) {
		size_t fl = strlen(dot + 1);

		if (!fl || fl > 3 || prov_parse_u64(&frac, dot + 1, fl, 10) < 0)
			goto bad;
		while (fl--)
			scale *= 10;
	}
	*out = (double)whole + (double)frac / (double)scale;
	return 0;
bad:
	return prov_error_set(PROV_EUSAGE, "%s: '%s' is not a number of seconds (e.g. 30 or 0.1)",
			      key, v);
}

static int parse_count(int *out, const char *key, const char *v)
{
	uint64_t n;

	if (prov_parse_u64(&n, v, strlen(v), 10) < 0 || n > 1000000)
		return prov_error_set(PROV_EUSAGE, "%s: '%s' is not a count", key, v);
	*out = (int)n;
	return 0;
}

int prov_collect_limits_read(struct prov_collect_limits *l, const struct prov_config *cfg)
{
	const char *v;
	int err = 0;

	memset(l, 0, sizeof(*l));
	l->keep_cores = 1;
	l->max_use.value = 10;	/* coredump.conf's defaults: MaxUse=10%, KeepFree=15% */
	l->max_use.pct = 1;
	l->keep_free.value = 15;
	l->keep_free.pct = 1;
	l->max_core_size.value = (uint64_t)2 << 30;	/* coredump.conf's ProcessSizeMax=2G */
	l->max_memory.value = (uint64_t)1 << 30;
	l->cpu_s = 60;
	l->wall_s = 120;
	l->rate_limit = 10;
	l->nice = 19;
	l->io_class = PROV_COLLECT_IO_IDLE;
	if ((v = prov_config_get(cfg, "collect.keepCores")) && (err = parse_count(&l->keep_cores, "collect.keepCores", v)) < 0)
		return err;
	if ((v = prov_config_get(cfg, "collect.maxUse")) && (err = parse_size(&l->max_use, "collect.maxUse", v)) < 0)
		return err;
	if ((v = prov_config_get(cfg, "collect.keepFree")) && (err = parse_size(&l->keep_free, "collect.keepFree", v)) < 0)
		return err;
	if ((v = prov_config_get(cfg, "collect.maxCoreSize")) &&
	    (err = parse_size(&l->max_core_size, "collect.maxCoreSize", v)) < 0)
		return err;
	if ((v = prov_config_get(cfg, "collect.maxMemory")) &&
	    (err = parse_size(&l->max_memory, "collect.maxMemory", v)) < 0)
		return err;
	if (l->max_core_size.pct || l->max_memory.pct)
		return prov_error_set(PROV_EUSAGE, "collect.maxCoreSize and collect.maxMemory take "
				      "bytes, not a percentage");
	if ((v = prov_config_get(cfg, "collect.cpuBudget")) && (err = parse_seconds(&l->cpu_s, "collect.cpuBudget", v)) < 0)
		return err;
	if ((v = prov_config_get(cfg, "collect.wallBudget")) && (err = parse_seconds(&l->wall_s, "collect.wallBudget", v)) < 0)
		return err;
	if ((v = prov_config_get(cfg, "collect.rateLimit")) && (err = parse_count(&l->rate_limit, "collect.rateLimit", v)) < 0)
		return err;
	if ((v = prov_config_get(cfg, "collect.nice")) && ((err = parse_count(&l->nice, "collect.nice", v)) < 0 ||
							  l->nice > 19))
		return err < 0 ? err : prov_error_set(PROV_EUSAGE, "collect.nice: '%s' is not 0 to 19", v);
	if ((v = prov_config_get(cfg, "collect.ioClass"))) {
		if (!strcmp(v, "idle"))
			l->io_class = PROV_COLLECT_IO_IDLE;
		else if (!strcmp(v, "best-effort"))
			l->io_class = PROV_COLLECT_IO_BEST_EFFORT;
		else if (!strcmp(v, "none"))
			l->io_class = PROV_COLLECT_IO_NONE;
		else
			return prov_error_set(PROV_EUSAGE, "collect.ioClass: '%s' is not idle, "
					      "best-effort or none", v);
	}
	return 0;
}

/* A size setting in bytes for the file system of `dir`; 0 means no limit. */
static uint64_t size_bytes(const struct prov_collect_size *s, const struct statvfs *fs)
{
	if (!s->pct)
		return s->value;
	return (uint64_t)fs->f_blocks * fs->f_frsize / 100 * s->value;
}

/* Compress `src` into `dst` (0600) with zstd level 1; *out_size the compressed bytes. */
static int compress_file(const char *src, const char *dst, uint64_t *out_size)
{
	size_t in_cap = ZSTD_CStreamInSize(), out_cap = ZSTD_CStreamOutSize();
	char *in = prov_xmalloc(in_cap), *outb = prov_xmalloc(out_cap);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	int ifd = open(src, O_RDONLY | O_CLOEXEC), ofd = -1, err = 0;
	ssize_t n;

	*out_size = 0;
	if (!cc || ifd < 0 ||
	    (ofd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		err = prov_error_set(PROV_ERROR, "cannot compress the core into '%s': %s", dst,
				     strerror(errno));
		goto cleanup;
	}
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	for (;;) {
		ZSTD_EndDirective mode;
		ZSTD_inBuffer ib;
		size_t left;

		n = read(ifd, in, in_cap);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = prov_error_set(PROV_ERROR, "cannot read the spooled core: %s",
					     strerror(errno));
			goto cleanup;
		}
		mode = n == 0 ? ZSTD_e_end : ZSTD_e_continue;
		ib = (ZSTD_inBuffer){ in, (size_t)n, 0 };
		do {
			ZSTD_outBuffer ob = { outb, out_cap, 0 };

			left = ZSTD_compressStream2(cc, &ob, &ib, mode);
			if (ZSTD_isError(left)) {
				err = prov_error_set(PROV_ERROR, "zstd: %s", ZSTD_getErrorName(left));
				goto cleanup;
			}
			if (ob.pos && write(ofd, outb, ob.pos) != (ssize_t)ob.pos) {
				err = prov_error_set(PROV_ERROR, "cannot write '%s': %s", dst,
						     strerror(errno));
				goto cleanup;
			}
			*out_size += ob.pos;
		} while (mode == ZSTD_e_end ? left != 0 : ib.pos < ib.size);
		if (n == 0)
			break;
	}
	if (close(ofd) < 0)
		err = prov_error_set(PROV_ERROR, "cannot write '%s': %s", dst, strerror(errno));
	ofd = -1;
cleanup:
	if (ofd >= 0)
		close(ofd);
	if (ifd >= 0)
		close(ifd);
	if (err)
		unlink(dst);
	ZSTD_freeCCtx(cc);
	free(in);
	free(outb);
	return err;
}

struct kept {
	char *name;
	uint64_t size;
	time_t mtime;
};

static int kept_cmp(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The kept cores of dir (*.zst), oldest first; *same counts those whose name starts with prefix. */
static size_t list_kept(struct kept **out, const char *dir, const char *prefix, int *same)
{
	struct kept *k = NULL;
	size_t n = 0, cap = 0, pl = strlen(prefix);
	struct dirent *e;
	DIR *d = opendir(dir);

	*same = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		struct stat st;
		char *p;

		if (e->d_name[0] == '.' || l < 5 || strcmp(e->d_name + l - 4, ".zst"))
			continue;
		p = prov_xasprintf("%s/%s", dir, e->d_name);
		if (stat(p, &st) == 0) {
			if (n == cap)
				k = prov_xrealloc(k, (cap = cap ? cap * 2 : 16) * sizeof(*k));
			k[n].name = prov_xstrdup(e->d_name);
			k[n].size = (uint64_t)st.st_size;
			k[n].mtime = st.st_mtime;
			n++;
			*same += !strncmp(e->d_name, prefix, pl);
		}
		free(p);
	}
	closedir(d);
	if (n)
		qsort(k, n, sizeof(*k), kept_cmp);
	*out = k;
	return n;
}

int prov_collect_keep_core(char **kept_path, char **why, const char *spool_dir, const char *core,
			   const char *name, const char *signature,
			   const struct prov_collect_limits *l)
{
	char *dir = prov_xasprintf("%s/cores", spool_dir), *prefix = NULL, *tmp = NULL, *dst = NULL;
	struct kept *k = NULL;
	struct statvfs fs;
	uint64_t size = 0, total = 0, max_use, keep_free;
	size_t n = 0, i, oldest = 0;
	int same = 0, err = 0, lock = -1;

	*kept_path = *why = NULL;
	if (l->keep_cores == 0) {
		*why = prov_xstrdup("collect.keepCores is 0");
		goto cleanup;
	}
	if ((err = prov_mkdir_p(dir, 0700, 0)) < 0)
		goto cleanup;
	/* one handler at a time decides (crashes of a job arrive together) */
	tmp = prov_xasprintf("%s/.lock", dir);
	if ((lock = open(tmp, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) >= 0)
		flock(lock, LOCK_EX);
	free(tmp);
	tmp = NULL;
	prefix = prov_xasprintf("%016llx-", (unsigned long long)prov_hash_str(signature ? signature : ""));
	n = list_kept(&k, dir, prefix, &same);
	if (same >= l->keep_cores) {
		*why = prov_xasprintf("%d core%s of this signature kept already (collect.keepCores)",
				      same, same == 1 ? " is" : "s are");
		goto cleanup;
	}
	tmp = prov_xasprintf("%s/.%s%s.tmp", dir, prefix, name);
	dst = prov_xasprintf("%s/%s%s.zst", dir, prefix, name);
	unlink(tmp);
	if ((err = compress_file(core, tmp, &size)) < 0)
		goto cleanup;
	if (statvfs(dir, &fs) < 0) {
		err = prov_error_set(PROV_ERROR, "statvfs '%s': %s", dir, strerror(errno));
		goto cleanup;
	}
	max_use = size_bytes(&l->max_use, &fs);
	keep_free = size_bytes(&l->keep_free, &fs);
	for (i = 0; i < n; i++)
		total += k[i].size;
	if (max_use && size > max_use) {
		*why = prov_xasprintf("the compressed core (%llu bytes) is over collect.maxUse "
				      "(%llu bytes)", (unsigned long long)size,
				      (unsigned long long)max_use);
		goto cleanup;
	}
	/* oldest first, until the new core fits in maxUse and keepFree is left */
	while (oldest < n) {
		int over_use = max_use && total + size > max_use;
		int short_free = keep_free && statvfs(dir, &fs) == 0 &&
				 (uint64_t)fs.f_bavail * fs.f_frsize < keep_free;
		char *p;

		if (!over_use && !short_free)
			break;
		p = prov_xasprintf("%s/%s", dir, k[oldest].name);
		if (unlink(p) == 0)
			total -= k[oldest].size;
		free(p);
		oldest++;
	}
	if (keep_free && statvfs(dir, &fs) == 0 && (uint64_t)fs.f_bavail * fs.f_frsize < keep_free) {
		*why = prov_xasprintf("less than collect.keepFree (%llu bytes) would be left free",
				      (unsigned long long)keep_free);
		goto cleanup;
	}
	if (rename(tmp, dst) < 0) {
		err = prov_error_set(PROV_ERROR, "cannot keep the core: %s", strerror(errno));
		goto cleanup;
	}
	*kept_path = dst;
	dst = NULL;
cleanup:
	if (tmp)
		unlink(tmp);
	if (err && !*why)
		*why = prov_xstrdup(prov_error_last());
	if (lock >= 0)
		close(lock);
	for (i = 0; i < n; i++)
		free(k[i].name);
	free(k);
	free(dir);
	free(prefix);
	free(tmp);
	free(dst);
	return err < 0 ? err : 0;
}

int prov_collect_rate_over(const char *spool_dir, const char *key, int limit, time_t now)
{
	char *dir = prov_xasprintf("%s/rate", spool_dir), *path = NULL, text[64] = "";
	long long minute = 0, count = 0, this_minute = (long long)now / 60;
	int fd = -1, over = 0;
	ssize_t n;

	if (limit <= 0 || prov_mkdir_p(dir, 0700, 0) < 0)
		goto cleanup;
	path = prov_xasprintf("%s/%016llx", dir, (unsigned long long)prov_hash_str(key));
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0 || flock(fd, LOCK_EX) < 0)
		goto cleanup;
	if ((n = read(fd, text, sizeof(text) - 1)) > 0) {
		int64_t a, b;
		const char *sp;

		text[n] = 0;
		sp = strchr(text, ' ');
		if (sp && prov_parse_i64(&a, text, (size_t)(sp - text)) == 0 &&
		    prov_parse_i64(&b, sp + 1, strcspn(sp + 1, "\n")) == 0) {
			minute = a;
			count = b;
		}
	}
	if (minute != this_minute) {
		minute = this_minute;
		count = 0;
	}
	count++;
	over = count > limit;
	n = snprintf(text, sizeof(text), "%lld %lld\n", minute, count);
	if (lseek(fd, 0, SEEK_SET) == 0 && ftruncate(fd, 0) == 0 && write(fd, text, (size_t)n) != n)
		errno = 0;
cleanup:
	if (fd >= 0)
		close(fd);
	free(dir);
	free(path);
	return over ? (int)count : 0;
}
