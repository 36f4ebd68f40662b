/* An image's tree read lazily: filling a placeholder in from its layer when it is opened (image-lazy-index.c makes them). */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "alloc.h"
#include "buf.h"
#include "error.h"
#include "util.h"
#include "image.h"
#include "banned.h"
struct lazy_hit {
	unsigned layer, mode;
	unsigned long long ordinal, size;
};

static int index_find(struct lazy_hit *hit, const char *index, const char *rel);

int prov_image_lazy_find(const char *index_path, const char *rel, unsigned *layer, uint64_t *ordinal,
			 uint64_t *size, unsigned *mode)
{
	struct lazy_hit h;

	if (!index_find(&h, index_path, rel))
		return 0;
	*layer = h.layer;
	*ordinal = h.ordinal;
	*size = h.size;
	*mode = h.mode;
	return 1;
}

/* "LAYER ORDINAL SIZE MODE(octal) PATH": the path, or NULL when malformed. */
static const char *parse_record(struct lazy_hit *h, const char *rec)
{
	static const int bases[4] = { 10, 10, 10, 8 };
	uint64_t v[4];
	const char *p = rec, *sp;
	int i;

	for (i = 0; i < 4; i++) {
		if (!(sp = strchr(p, ' ')) || prov_parse_u64(&v[i], p, (size_t)(sp - p), bases[i]) < 0)
			return NULL;
		p = sp + 1;
	}
	if (v[0] > 0xffffffffu || v[3] > 07777)
		return NULL;
	h->layer = (unsigned)v[0];
	h->ordinal = v[1];
	h->size = v[2];
	h->mode = (unsigned)v[3];
	return p;
}

/* The last record of `rel` in the index file: 1 and *hit, 0 when none. */
static int index_find(struct lazy_hit *hit, const char *index, const char *rel)
{
	struct prov_buf b = PROV_BUF_INIT;
	size_t at = 0;
	int found = 0;

	if (prov_read_file(&b, index, (size_t)1 << 30) < 0) {
		prov_error_clear();
		return 0;
	}
	while (at < b.len) {
		char *rec = b.buf + at;
		const char *path;
		size_t len = strnlen(rec, b.len - at);
		struct lazy_hit h;

		at += len + 1;
		path = parse_record(&h, rec);
		if (path && !strcmp(path, rel)) {
			*hit = h;
			found = 1;
		}
	}
	prov_buf_release(&b);
	return found;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A tar layer read forward across fills: entries are numbered as
 * prov_image_apply_layer numbers them (every header libarchive returns). */
struct lazy_reader {
	struct archive *a;
	unsigned layer;
	uint64_t next;	/* the ordinal of the next header */
};

static void reader_close(struct lazy_reader *rd)
{
	if (rd->a)
		archive_read_free(rd->a);
	rd->a = NULL;
}

/* Position rd on entry h->ordinal of layer h->layer (*e: its header); the
 * layer is read again from its start only when the entry lies behind. */
static int reader_seek(struct lazy_reader *rd, char **layers, const struct lazy_hit *h, const char *rel,
		       struct archive_entry **e)
{
	int r;

	if (rd->a && (rd->layer != h->layer || rd->next > h->ordinal))
		reader_close(rd);
	if (!rd->a) {
		rd->a = archive_read_new();
		archive_read_support_filter_all(rd->a);
		archive_read_support_format_tar(rd->a);
		rd->layer = h->layer;
		rd->next = 0;
		if (archive_read_open_filename(rd->a, layers[h->layer], 65536) != ARCHIVE_OK) {
			int err = prov_error_set(PROV_ERROR, "%s", archive_error_string(rd->a));

			reader_close(rd);
			return err;
		}
	}
	while ((r = archive_read_next_header(rd->a, e)) == ARCHIVE_OK || r == ARCHIVE_WARN)
		if (rd->next++ == h->ordinal)
			return 0;
	reader_close(rd);
	return prov_error_set(PROV_ERROR, "the layer no longer holds '%s' where the index says", rel);
}

/* Entry h->ordinal of its tar layer into fd: it must be a regular file of
 * h->size bytes (what the index said when the tree was made). */
static int tar_cat(int fd, struct lazy_reader *rd, char **layers, const struct lazy_hit *h, const char *rel)
{
	struct archive_entry *e;
	unsigned long long total = 0;
	char buf[65536];
	la_ssize_t got;
	int err;

	if ((err = reader_seek(rd, layers, h, rel, &e)) < 0)
		return err;
	if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e) ||
	    (unsigned long long)archive_entry_size(e) != h->size)
		return prov_error_set(PROV_ERROR, "the layer no longer holds '%s' where the index says", rel);
	while ((got = archive_read_data(rd->a, buf, sizeof(buf))) > 0) {
		total += (unsigned long long)got;
		if (total > h->size || write_all(fd, buf, (size_t)got) < 0) {
			err = prov_error_set(PROV_ERROR, "cannot copy '%s': %s", rel, total > h->size ?
					     "longer than its header says" : prov_strerror(errno));
			break;
		}
	}
	if (err == 0 && (got < 0 || total != h->size))
		err = prov_error_set(PROV_ERROR, "cannot read '%s' from its layer: %s", rel,
				     got < 0 ? archive_error_string(rd->a) : "short");
	if (err < 0)
		reader_close(rd);
	return err;
}

/* Fill the placeholder at `rel` (relative to src->root, no symlink in its
 * folders) with the file `h` names, through a temporary file renamed over
 * it: 1, 0 when it is no placeholder (any more), or an error (*from_layer:
 * 1 when reading the layer failed). */
static int fill_at(struct prov_image_source *src, const struct lazy_hit *h, const char *rel, int *from_layer)
{
	struct prov_buf dir = PROV_BUF_INIT, tmp = PROV_BUF_INIT;
	const char *slash = strrchr(rel, '/'), *base = slash ? slash + 1 : rel;
	struct stat st;
	int fd = -1, dfd = -1, err = 0;

	prov_buf_puts(&dir, src->root);
	if (slash)
		prov_buf_printf(&dir, "/%.*s", (int)(slash - rel), rel);
	if ((dfd = open(dir.buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		err = prov_error_set(PROV_ERROR, "%s", prov_strerror(errno));
		goto cleanup;
	}
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) || st.st_size != 0 ||
	    (st.st_mode & 07777) != 0)
		goto cleanup;	/* filled in already (another run, a hard link) */
	prov_buf_printf(&tmp, ".prov-fill-%ld-%s", (long)getpid(), base);
	if (tmp.len > 255)
		prov_buf_setlen(&tmp, 255);
	unlinkat(dfd, tmp.buf, 0);
	if ((fd = openat(dfd, tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			 (h->mode & 0755) | 0600)) < 0) {
		err = prov_error_set(PROV_ERROR, "%s", prov_strerror(errno));
		goto cleanup;
	}
	src->touched = 1;
	err = src->layers ? tar_cat(fd, (struct lazy_reader *)src->reader, src->layers, h, rel)
		: prov_image_squashfs_cat(fd, src->file, src->off, src->size, rel, h->size);
	*from_layer = err < 0;	/* the layer's fault, not the tree's */
	if (err == 0 && (fchmod(fd, (h->mode & 0755) | 0600) < 0 || close(fd) < 0 ||
			 renameat(dfd, tmp.buf, dfd, base) < 0))
		err = prov_error_set(PROV_ERROR, "%s", prov_strerror(errno));
	else if (err < 0)
		close(fd);
	fd = -1;
	if (err < 0)
		unlinkat(dfd, tmp.buf, 0);
	else
		err = 1;
cleanup:
	if (dfd >= 0)
		close(dfd);
	prov_buf_release(&dir);
	prov_buf_release(&tmp);
	return err;
}

/*
 * A file that could not be filled in from its layer is remembered in
 * <index>.failed ("LAYER ID\0PATH\0MESSAGE\0", ID: the layer file's size
 * and mtime, or "none"): a later run says so again without reading the
 * layer, until the layer file changes (or comes back).
 */
static void layer_id(char out[96], const struct prov_image_source *src, unsigned layer)
{
	const char *f = src->layers ? src->layers[layer] : src->file;
	struct stat st;

	if (stat(f, &st) < 0)
		snprintf(out, 96, "%u none", layer);
	else
		snprintf(out, 96, "%u %llu.%lld.%ld", layer, (unsigned long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

/* 1 and *msg when `rel` failed before from the same layer file. */
static int failed_before(struct prov_buf *msg, const struct prov_image_source *src, unsigned layer,
			 const char *rel)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *path = prov_xasprintf("%s.failed", src->index), id[96];
	size_t at = 0;
	int found = 0;

	layer_id(id, src, layer);
	if (prov_read_file(&b, path, (size_t)16 << 20) < 0)
		prov_error_clear();
	while (!found && at < b.len) {
		const char *f[3];
		int i;

		for (i = 0; i < 3; i++) {
			f[i] = at < b.len ? b.buf + at : "";
			at += strnlen(b.buf + at, b.len - at) + 1;
		}
		if (!strcmp(f[0], id) && !strcmp(f[1], rel)) {
			prov_buf_setlen(msg, 0);
			prov_buf_puts(msg, f[2]);
			found = 1;
		}
	}
	prov_buf_release(&b);
	free(path);
	return found;
}

static void remember_failure(const struct prov_image_source *src, unsigned layer, const char *rel,
			     const char *msg)
{
	char *path = prov_xasprintf("%s.failed", src->index), id[96];
	struct prov_buf rec = PROV_BUF_INIT;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);

	layer_id(id, src, layer);
	prov_buf_add(&rec, id, strlen(id) + 1);
	prov_buf_add(&rec, rel, strlen(rel) + 1);
	prov_buf_add(&rec, msg, strlen(msg) + 1);
	if (fd >= 0) {
		if (write_all(fd, rec.buf, rec.len) < 0)
			prov_warn("cannot write '%s': %s", path, prov_strerror(errno));
		close(fd);
	}
	prov_buf_release(&rec);
	free(path);
}

static void source_reader(struct prov_image_source *src)
{
	if (src->layers && !src->reader)
		src->reader = prov_xcalloc(1, sizeof(struct lazy_reader));
}

static int lazy_fill(int pathfd, void *arg)
{
	struct prov_image_source *src = arg;
	struct lazy_hit h;
	char proc[64], host[PATH_MAX + 1];
	const char *rel;
	size_t rl = strlen(src->root);
	struct prov_buf msg = PROV_BUF_INIT;
	ssize_t n;
	int err, from_layer = 0;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pathfd);
	if ((n = readlink(proc, host, sizeof(host) - 1)) < 0)
		return 0;
	host[n] = 0;
	if (strncmp(host, src->root, rl) || host[rl] != '/')
		return 0;	/* not in the image's tree */
	rel = host + rl + 1;
	if (!index_find(&h, src->index, rel) || (src->layers && h.layer >= src->n))
		return 0;	/* a genuinely empty file */
	if (failed_before(&msg, src, h.layer, rel)) {
		prov_warn("the image's file '/%s' could not be extracted from the image: %s (as on an "
			  "earlier run; its layer is unchanged)", rel, msg.buf);
		prov_buf_release(&msg);
		return -1;
	}
	source_reader(src);
	err = fill_at(src, &h, rel, &from_layer);
	if (err < 0) {
		prov_warn("the image's file '/%s' could not be extracted from the image: %s", rel,
			  prov_error_last());
		if (from_layer)
			remember_failure(src, h.layer, rel, prov_error_last());
		return -1;
	}
	if (err > 0)
		src->filled++;
	return 1;
}

/* ---- filling in up front what env reads: the program folders' files ---- */

#define PREFETCH_MAX 8192

struct want {
	char *rel;
	struct lazy_hit h;
	int found;
};

static int cmp_want_rel(const void *a, const void *b)
{
	return strcmp(((const struct want *)a)->rel, ((const struct want *)b)->rel);
}

static int cmp_want_at(const void *pa, const void *pb)
{
	const struct want *a = pa, *b = pb;

	if (a->found != b->found)
		return b->found - a->found;
	if (a->h.layer != b->h.layer)
		return a->h.layer < b->h.layer ? -1 : 1;
	return a->h.ordinal < b->h.ordinal ? -1 : a->h.ordinal > b->h.ordinal;
}

/* The placeholders the program folders' names lead to (symbolic links
 * followed inside the root), relative to the root, into *w. */
static void collect_wanted(struct want **w, size_t *n, size_t *cap, const char *root)
{
	size_t rl = strlen(root), d;

	for (d = 0; prov_image_lazy_program_dirs[d]; d++) {
		char *abs = prov_xasprintf("/%s", prov_image_lazy_program_dirs[d]);
		int dfd = prov_root_open(root, abs, O_RDONLY | O_DIRECTORY);
		DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
		struct dirent *de;

		free(abs);

		if (!dir) {
			if (dfd >= 0)
				close(dfd);
			continue;
		}
		while ((de = readdir(dir)) && *n < PREFETCH_MAX) {
			char *path, proc[64], host[PATH_MAX + 1];
			struct stat st;
			ssize_t len;
			int pfd;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			path = prov_xasprintf("/%s/%s", prov_image_lazy_program_dirs[d], de->d_name);
			pfd = prov_root_open(root, path, O_PATH);
			free(path);
			if (pfd < 0)
				continue;
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
			if (fstat(pfd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0 &&
			    (st.st_mode & 07777) == 0 && (len = readlink(proc, host, sizeof(host) - 1)) > 0) {
				host[len] = 0;
				if (!strncmp(host, root, rl) && host[rl] == '/') {
					PROV_ALLOC_GROW(*w, *n + 1, *cap);
					memset(&(*w)[*n], 0, sizeof(**w));
					(*w)[(*n)++].rel = prov_xstrdup(host + rl + 1);
				}
			}
			close(pfd);
		}
		closedir(dir);
	}
}

/* Each wanted path's last record in the index file. */
static void find_records(struct want *w, size_t n, const char *index)
{
	struct prov_buf b = PROV_BUF_INIT;
	size_t at = 0;

	if (n == 0)
		return;	/* nothing wanted (and w may be NULL: bsearch must not see it) */
	if (prov_read_file(&b, index, (size_t)1 << 30) < 0) {
		prov_error_clear();
		return;
	}
	while (at < b.len) {
		char *rec = b.buf + at;
		size_t len = strnlen(rec, b.len - at);
		struct want key, *hit;
		struct lazy_hit h;

		at += len + 1;
		if (!(key.rel = (char *)parse_record(&h, rec)) ||
		    !(hit = bsearch(&key, w, n, sizeof(*w), cmp_want_rel)))
			continue;
		hit->h = h;
		hit->found = 1;
	}
	prov_buf_release(&b);
}

void prov_image_lazy_prefetch(struct prov_image_source *src)
{
	struct want *w = NULL;
	size_t n = 0, cap = 0, i, k;
	int from_layer;

	if (!src->layers)
		return;	/* a squashfs reads each file where it lies: nothing to batch */
	collect_wanted(&w, &n, &cap, src->root);
	if (n > 1)
		qsort(w, n, sizeof(*w), cmp_want_rel);
	for (i = k = 0; i < n; i++) {	/* one of each (two names of one program) */
		if (k > 0 && !strcmp(w[k - 1].rel, w[i].rel)) {
			free(w[i].rel);
			continue;
		}
		w[k++] = w[i];
	}
	n = k;
	find_records(w, n, src->index);
	if (n > 1)	/* by layer and entry: one forward pass over each layer */
		qsort(w, n, sizeof(*w), cmp_want_at);
	source_reader(src);
	for (i = 0; i < n && w[i].found; i++) {
		if (w[i].h.layer >= src->n)
			continue;
		if (fill_at(src, &w[i].h, w[i].rel, &from_layer) < 0)
			prov_error_clear();	/* left a placeholder: its open will say why */
		else
			src->filled++;
	}
	for (i = 0; i < n; i++)
		free(w[i].rel);
	free(w);
	prov_image_lazy_close(src);
}

void prov_image_lazy_close(struct prov_image_source *src)
{
	if (src && src->reader) {
		reader_close((struct lazy_reader *)src->reader);
		free(src->reader);
		src->reader = NULL;
	}
}

void prov_image_lazy_attach(struct prov_image_source *src)
{
	prov_root_set_fill(src ? lazy_fill : NULL, src);
}
