/* An image's tree read lazily: which files are written up front, the index of the others, and filling one in when it is opened. */
#include <errno.h>
#include <fcntl.h>
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

/* Paths (relative to the root, as they lie on disk) whose files are always
 * written up front: what resolvers read by name and libraries open by path
 * (package databases, version files, .git metadata, programs env scans). */
static const char *const eager_globs[] = {
	"var/lib/dpkg/*", "var/lib/rpm/*", "usr/lib/sysimage/rpm/*", "*.dist-info/*", "*.egg-info/*",
	"*conda-meta/*", "opt/rocm*/.info/*", "*/.git/*", ".git/*", "usr/share/doc/*/copyright",
	"etc/*", "usr/lib/os-release", "usr/bin/*", "usr/sbin/*", "bin/*", "sbin/*", "usr/local/bin/*",
	"usr/local/sbin/*", "opt/bin/*", "app/*", "*/version.txt", "*/version", "*/.version", NULL,
};

int prov_image_lazy_eager(const char *rel, unsigned long long size)
{
	size_t i;

	if (size <= PROV_IMAGE_LAZY_MIN)
		return 1;
	for (i = 0; eager_globs[i]; i++)
		if (fnmatch(eager_globs[i], rel, 0) == 0)
			return 1;
	return 0;
}

int prov_image_lazy_rel(struct prov_buf *out, int dfd, const char *base, const char *rootpath)
{
	char proc[64], host[PATH_MAX + 1];
	size_t rl = strlen(rootpath);
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dfd);
	if ((n = readlink(proc, host, sizeof(host) - 1)) < 0)
		return prov_error_set(PROV_ERROR, "cannot name a folder of the image: %s", prov_strerror(errno));
	host[n] = 0;
	if (strncmp(host, rootpath, rl) || (host[rl] && host[rl] != '/'))
		return prov_error_set(PROV_ERROR, "a folder of the image lies outside its root");
	prov_buf_setlen(out, 0);
	if (host[rl] && host[rl + 1])
		prov_buf_printf(out, "%s/", host + rl + 1);
	if (base)
		prov_buf_puts(out, base);
	return 0;
}

int prov_image_lazy_record(struct prov_image_lazy *lz, unsigned layer, const char *rel, uint64_t ordinal,
			   uint64_t size, unsigned mode)
{
	char *line = prov_xasprintf("%u %llu %llu %o %s", layer, (unsigned long long)ordinal,
				    (unsigned long long)size, mode & 07777, rel);
	size_t len = strlen(line) + 1;
	int err = 0;

	if (fwrite(line, 1, len, lz->index) != len)
		err = prov_error_set(PROV_ERROR, "cannot write the image's index: %s", prov_strerror(errno));
	free(line);
	lz->count++;
	return err;
}

/* The placeholder: an empty file with mode 0000 (prov_root_set_fill). */
int prov_image_lazy_placeholder(int dfd, const char *base)
{
	int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0);

	if (fd < 0)
		return prov_error_set(PROV_ERROR, "cannot write '%s': %s", base, prov_strerror(errno));
	fchmod(fd, 0);
	close(fd);
	return 0;
}

/* ---- filling a placeholder in ---- */

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

/* Entry number `ordinal` of the tar `layer` into fd: it must be a regular
 * file of `size` bytes (what the index said when the tree was made). */
static int tar_cat(int fd, const char *layer, const struct lazy_hit *h, const char *rel)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	unsigned long long n = 0, total = 0;
	char buf[65536];
	la_ssize_t got;
	int r, err = 0;

	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, layer, 65536) != ARCHIVE_OK) {
		err = prov_error_set(PROV_ERROR, "%s", archive_error_string(a));
		goto cleanup;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
		if (n++ == h->ordinal)
			break;
	}
	if ((r != ARCHIVE_OK && r != ARCHIVE_WARN) || archive_entry_filetype(e) != AE_IFREG ||
	    archive_entry_hardlink(e) || (unsigned long long)archive_entry_size(e) != h->size) {
		err = prov_error_set(PROV_ERROR, "the layer no longer holds '%s' where the index says", rel);
		goto cleanup;
	}
	while ((got = archive_read_data(a, buf, sizeof(buf))) > 0) {
		total += (unsigned long long)got;
		if (total > h->size || write_all(fd, buf, (size_t)got) < 0) {
			err = prov_error_set(PROV_ERROR, "cannot copy '%s': %s", rel, total > h->size ?
					     "longer than its header says" : prov_strerror(errno));
			goto cleanup;
		}
	}
	if (got < 0 || total != h->size)
		err = prov_error_set(PROV_ERROR, "cannot read '%s' from its layer: %s", rel,
				     got < 0 ? archive_error_string(a) : "short");
cleanup:
	archive_read_free(a);
	return err;
}

static int lazy_fill(int pathfd, void *arg)
{
	struct prov_image_source *src = arg;
	struct prov_buf rel = PROV_BUF_INIT, tmp = PROV_BUF_INIT;
	struct lazy_hit h;
	char proc[64], host[PATH_MAX + 1], *slash;
	ssize_t n;
	int fd = -1, dfd = -1, r = 0, err = 0;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pathfd);
	if ((n = readlink(proc, host, sizeof(host) - 1)) < 0)
		return 0;
	host[n] = 0;
	n = (ssize_t)strlen(src->root);
	if (strncmp(host, src->root, (size_t)n) || host[n] != '/')
		return 0;	/* not in the image's tree */
	prov_buf_puts(&rel, host + n + 1);
	if (!index_find(&h, src->index, rel.buf) || (src->layers && h.layer >= src->n))
		goto cleanup;	/* a genuinely empty file */
	slash = strrchr(host, '/');
	*slash = 0;
	if ((dfd = open(host, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		err = prov_error_set(PROV_ERROR, "%s", prov_strerror(errno));
		goto cleanup;
	}
	prov_buf_printf(&tmp, ".prov-fill-%ld-%s", (long)getpid(), slash + 1);
	if (tmp.len > 255)
		prov_buf_setlen(&tmp, 255);
	unlinkat(dfd, tmp.buf, 0);
	if ((fd = openat(dfd, tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			 (h.mode & 0755) | 0600)) < 0) {
		err = prov_error_set(PROV_ERROR, "%s", prov_strerror(errno));
		goto cleanup;
	}
	err = src->layers ? tar_cat(fd, src->layers[h.layer], &h, rel.buf)
		: prov_image_squashfs_cat(fd, src->file, src->off, src->size, rel.buf, h.size);
	if (err == 0 && (fchmod(fd, (h.mode & 0755) | 0600) < 0 || close(fd) < 0 ||
			 renameat(dfd, tmp.buf, dfd, slash + 1) < 0))
		err = prov_error_set(PROV_ERROR, "%s", prov_strerror(errno));
	else if (err < 0)
		close(fd);
	fd = -1;
	if (err < 0)
		unlinkat(dfd, tmp.buf, 0);
	else
		src->filled++;
	r = err < 0 ? -1 : 1;
cleanup:
	if (err < 0)
		prov_warn("the image's file '/%s' could not be extracted from the image: %s", rel.buf,
			  prov_error_last());
	if (dfd >= 0)
		close(dfd);
	prov_buf_release(&rel);
	prov_buf_release(&tmp);
	return err < 0 ? -1 : r;
}

void prov_image_lazy_attach(struct prov_image_source *src)
{
	prov_root_set_fill(src ? lazy_fill : NULL, src);
}
