/* Unpacked images in the cache: a shared lock and a last-use time while in use, least-recently-used eviction within cache.maxSize. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "cachedir.h"
#include "error.h"
#include "util.h"
#include "image.h"
#include "banned.h"

/* how deep the size walk goes: an unpacked tree is at most 128 folders deep, under <images>/<key>/rootfs */
#define MAX_DEPTH 160
/* how many times a folder removed under us (evicted) is made again before giving up */
#define LOCK_TRIES 8
#define EVICT_PREFIX ".evict-"

int prov_image_parse_size(uint64_t *out, const char *v)
{
	uint64_t n;

	if (prov_parse_size(&n, v, (size_t)-1) < 0 || !n)
		return prov_error_set(PROV_EUSAGE, "cache.maxSize: '%s' is not a size (N bytes, NK, NM, NG or NT)", v);
	*out = n;
	return 0;
}

int prov_image_lock_dir(int *out, const char *dir, int make)
{
	struct stat a, b;
	int fd = -1, tries, r;

	*out = -1;
	for (tries = 0; tries < LOCK_TRIES; tries++) {
		if (make && prov_mkdir_p(dir, 0755, 0) < 0)
			return PROV_ERROR;
		if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			if (errno == ENOENT && !make)
				return 1;
			return prov_error_set(PROV_ERROR, "cannot open '%s': %s", dir, prov_strerror(errno));
		}
		while ((r = flock(fd, LOCK_SH)) < 0 && errno == EINTR)
			;
		if (r < 0) {
			r = errno;
			close(fd);
			return prov_error_set(PROV_ERROR, "cannot lock '%s': %s", dir, prov_strerror(r));
		}
		/* evicted while we waited: the path is gone or is another folder now */
		if (fstat(fd, &a) == 0 && stat(dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			futimens(fd, NULL);	/* the last use, which eviction orders by */
			*out = fd;
			return 0;
		}
		close(fd);
		if (!make)
			return 1;
	}
	return prov_error_set(PROV_ERROR, "the image's folder '%s' in the cache was removed %d times while "
			      "being opened", dir, LOCK_TRIES);
}

/* Apparent bytes (st_size, as du -sb counts them) of name under dfd and all below it, not following symlinks. */
static uint64_t tree_bytes(int dfd, const char *name, int depth)
{
	struct dirent *e;
	struct stat st;
	uint64_t n;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	n = (uint64_t)st.st_size;
	if (!S_ISDIR(st.st_mode) || depth > MAX_DEPTH)
		return n;
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return n;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return n;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n += tree_bytes(dirfd(d), e->d_name, depth + 1);
	closedir(d);
	return n;
}

static int is_hex64(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

/* An evictable entry of <images>: "<64 hex>" (an unpacked root) or "archive-<64 hex>" (an archive's files). */
static int is_image_name(const char *n)
{
	const char *a = prov_skip_prefix(n, "archive-");

	return is_hex64(a ? a : n);
}

struct entry {
	char *name;
	struct timespec used;
	uint64_t bytes;
};

static int by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The images of <images> (open as ifd), with their last use and size. */
static size_t list_images(struct entry **out, int ifd)
{
	struct entry *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	struct stat st;
	int fd = dup(ifd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	*out = NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);	/* a dup shares the offset of an earlier walk */
	while ((e = readdir(d))) {
		if (!is_image_name(e->d_name) || fstatat(ifd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			v = prov_xrealloc(v, cap * sizeof(*v));
		}
		v[n].name = prov_xstrdup(e->d_name);
		v[n].used = st.st_mtim;
		v[n].bytes = tree_bytes(ifd, e->d_name, 0);
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), by_use);
	*out = v;
	return n;
}

/* Remove what an eviction killed half-way left: folders already renamed away, never in use. */
static void remove_leftovers(int ifd)
{
	struct dirent *e;
	int fd = dup(ifd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(d);
	while ((e = readdir(d)))
		if (prov_starts_with(e->d_name, EVICT_PREFIX))
			prov_remove_tree_at(ifd, e->d_name);
	closedir(d);
}

/* Evict one image if no run holds it: 1 evicted, 0 in use (skipped), PROV_ERROR. */
static int evict(int ifd, const char *name)
{
	char *gone = NULL;
	struct stat a, b;
	int fd, err = 0;

	if ((fd = openat(ifd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &a) < 0 || fstatat(ifd, name, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		goto cleanup;	/* in use by a running provenance, or already gone */
	/* never a half-removed tree that still says it is whole: the record goes first,
	 * then the folder leaves its name in one rename, then it is removed */
	if (unlinkat(fd, "complete", 0) < 0 && errno != ENOENT) {
		err = prov_error_set(PROV_ERROR, "cannot remove the image '%s' from the cache: %s", name,
				     prov_strerror(errno));
		goto cleanup;
	}
	gone = prov_xasprintf(EVICT_PREFIX "%ld-%s", (long)getpid(), name);
	if (renameat(ifd, name, ifd, gone) < 0) {
		err = prov_error_set(PROV_ERROR, "cannot remove the image '%s' from the cache: %s", name,
				     prov_strerror(errno));
		goto cleanup;
	}
	prov_remove_tree_at(ifd, gone);
	err = 1;
cleanup:
	close(fd);
	free(gone);
	return err;
}

int prov_image_cache_prune(struct prov_image_prune *out, const char *cache_dir, uint64_t max_bytes)
{
	struct entry *v = NULL;
	char *images = prov_cachedir_path(cache_dir, PROV_CACHEDIR_IMAGES);
	size_t i, n = 0;
	int ifd, err = 0, r;

	memset(out, 0, sizeof(*out));
	if ((ifd = open(images, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
		remove_leftovers(ifd);
	out->total = tree_bytes(AT_FDCWD, cache_dir, 0);
	if (ifd < 0 || out->total <= max_bytes)
		goto cleanup;
	n = list_images(&v, ifd);
	for (i = 0; i < n && out->total > max_bytes; i++) {
		if ((r = evict(ifd, v[i].name)) < 0) {
			err = r;
			break;
		}
		if (r == 0) {
			out->busy++;
			continue;
		}
		out->evicted++;
		out->freed += v[i].bytes;
		out->total = out->total > v[i].bytes ? out->total - v[i].bytes : 0;
	}
	if (out->evicted)	/* the true figure, not the estimate */
		out->total = tree_bytes(AT_FDCWD, cache_dir, 0);
cleanup:
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	if (ifd >= 0)
		close(ifd);
	free(images);
	return err;
}

void prov_image_cache_size(uint64_t *bytes, unsigned *count, const char *cache_dir)
{
	struct entry *v = NULL;
	char *images = prov_cachedir_path(cache_dir, PROV_CACHEDIR_IMAGES);
	size_t i, n;
	int ifd = open(images, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	*bytes = 0;
	*count = 0;
	free(images);
	if (ifd < 0)
		return;
	n = list_images(&v, ifd);
	for (i = 0; i < n; i++) {
		*bytes += v[i].bytes;
		free(v[i].name);
	}
	*count = (unsigned)n;
	free(v);
	close(ifd);
}
