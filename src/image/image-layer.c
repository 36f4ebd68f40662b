/* Applies an image layer (a tar) onto a root, confined, with OCI whiteouts and a budget. */
#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "alloc.h"
#include "buf.h"
#include "error.h"
#include "sha256.h"
#include "util.h"
#include "image.h"
#include "banned.h"

#define MAX_DEPTH 128
#define MAX_NAME 4096

static unsigned long long env_cap(const char *name, unsigned long long dflt)
{
	const char *s = getenv(name);
	uint64_t v;

	if (s && *s && prov_parse_u64(&v, s, strlen(s), 10) == 0)
		return v;
	return dflt;
}

void prov_image_budget_init(struct prov_image_budget *b)
{
	b->entries_left = env_cap("PROVENANCE_IMAGE_MAX_ENTRIES", PROV_IMAGE_MAX_ENTRIES);
	b->bytes_left = env_cap("PROVENANCE_IMAGE_MAX_BYTES", PROV_IMAGE_MAX_BYTES);
	b->skipped = 0;
	b->lazy = NULL;
}

/* A name of the layer split into components: no "", no ".", and a ".."
 * refuses the entry. The components point into *store (caller frees). */
static int split_name(const char *name, const char *what, char **store, char **comp, size_t *n)
{
	char *s, *p, *save = NULL;

	*n = 0;
	if (strlen(name) > MAX_NAME)
		return prov_error_set(PROV_EINPUT, "%s: an entry's name is over %d bytes", what, MAX_NAME);
	*store = s = prov_xstrdup(name);
	for (p = strtok_r(s, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (!strcmp(p, "."))
			continue;
		if (!strcmp(p, ".."))
			return prov_error_set(PROV_EINPUT, "%s: entry '%s' climbs out of the root with '..'",
					      what, name);
		if (*n == MAX_DEPTH)
			return prov_error_set(PROV_EINPUT, "%s: entry '%s' is over %d folders deep",
					      what, name, MAX_DEPTH);
		comp[(*n)++] = p;
	}
	return 0;
}

static int open_in_root(int rootfd, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
}

/* The folder holding comp[n-1], resolved inside the root (symlinks stay in
 * it), made when missing if `create`. An fd, or -1 with the message set. */
static int open_parent(int rootfd, char **comp, size_t n, int create, const char *what,
		       const char *name)
{
	struct prov_buf prefix = PROV_BUF_INIT;
	int cur = open_in_root(rootfd, "."), fd = -1;
	size_t i;

	for (i = 0; cur >= 0 && i + 1 < n; i++) {
		if (i)
			prov_buf_putc(&prefix, '/');
		prov_buf_puts(&prefix, comp[i]);
		fd = open_in_root(rootfd, prefix.buf);
		if (fd < 0 && create && (errno == ENOENT || errno == ENOTDIR)) {
			if (errno == ENOTDIR)
				unlinkat(cur, comp[i], 0);
			if (mkdirat(cur, comp[i], 0755) == 0 || errno == EEXIST)
				fd = open_in_root(rootfd, prefix.buf);
		}
		close(cur);
		cur = fd;
	}
	if (cur < 0)
		prov_error_set(PROV_EINPUT, "%s: entry '%s': its folder '%s' cannot be %s: %s", what,
			       name, prefix.buf ? prefix.buf : ".", create ? "made" : "opened",
			       prov_strerror(errno));
	prov_buf_release(&prefix);
	return cur;
}

/* Remove every entry of the folder dfd (an opaque whiteout). */
static int empty_dir(int dfd, const char *what)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	int err = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return prov_error_set(PROV_ERROR, "%s: cannot read a folder: %s", what, prov_strerror(errno));
	}
	while (err == 0 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		err = prov_remove_tree_at(dfd, e->d_name);
	}
	closedir(d);
	return err;
}

static int copy_data(struct archive *a, int fd, const char *what, const char *name,
		     struct prov_image_budget *b)
{
	char buf[65536];
	la_ssize_t got;

	while ((got = archive_read_data(a, buf, sizeof(buf))) > 0) {
		if ((unsigned long long)got > b->bytes_left)
			return prov_error_set(PROV_EINPUT, "%s: the image holds more file data than the "
					      "limit (PROVENANCE_IMAGE_MAX_BYTES) at '%s'", what, name);
		b->bytes_left -= (unsigned long long)got;
		for (char *p = buf; got > 0;) {
			ssize_t w = write(fd, p, (size_t)got);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return prov_error_set(PROV_ERROR, "%s: cannot write '%s': %s", what, name,
						      prov_strerror(errno));
			p += w;
			got -= w;
		}
	}
	if (got < 0)
		return prov_error_set(PROV_EINPUT, "%s: '%s' cannot be read: %s", what, name,
				      archive_error_string(a));
	return 0;
}

/* What a pass over a layer does: its whiteouts first (a whiteout removes
 * what the layers below had, wherever it lies in the tar), then its files;
 * an archive's own files (regular files and folders only, no whiteouts). */
enum pass { PASS_WHITEOUTS, PASS_FILES, PASS_OUTER };

/* One entry of a layer onto the root, in pass `pass`. */
/* A hard link to a placeholder is a placeholder of the same file. 1 when
 * it made one, 0 when the target is not a placeholder, or an error. */
static int link_placeholder(int tfd, const char *tbase, int dfd, const char *base,
			    struct prov_image_lazy *lz)
{
	struct prov_buf trel = PROV_BUF_INIT, rel = PROV_BUF_INIT;
	uint64_t ord, size;
	unsigned layer, mode;
	struct stat st;
	int err = 0;

	if (!lz || fstatat(tfd, tbase, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size != 0 || (st.st_mode & 07777) != 0)
		return 0;
	fflush(lz->index);
	if ((err = prov_image_lazy_rel(&trel, tfd, tbase, lz->rootpath)) < 0 ||
	    (err = prov_image_lazy_rel(&rel, dfd, base, lz->rootpath)) < 0)
		goto cleanup;
	if (!prov_image_lazy_find(lz->index_path, trel.buf, &layer, &ord, &size, &mode))
		goto cleanup;	/* a genuinely empty file: linked as it is */
	if ((err = prov_image_lazy_placeholder(dfd, base)) == 0 &&
	    (err = prov_image_lazy_record(lz, layer, rel.buf, ord, size, mode)) == 0)
		err = 1;
cleanup:
	prov_buf_release(&trel);
	prov_buf_release(&rel);
	return err;
}

/* A regular file of `size` bytes left out of the tree (a placeholder and a
 * record): 1, or 0 when it is written up front, or an error. */
static int leave_out(int dfd, const char *base, struct archive_entry *e, uint64_t ordinal,
		     struct prov_image_budget *b)
{
	struct prov_buf rel = PROV_BUF_INIT;
	unsigned long long size = archive_entry_size_is_set(e) ? (unsigned long long)archive_entry_size(e) : 0;
	int err;

	if (!b->lazy || !archive_entry_size_is_set(e))
		return 0;
	if ((err = prov_image_lazy_rel(&rel, dfd, base, b->lazy->rootpath)) < 0)
		goto cleanup;
	if (prov_image_lazy_eager(rel.buf, size) || prov_image_lazy_wanted(b->lazy, rel.buf))
		goto cleanup;
	b->bytes_left -= size;
	if ((err = prov_image_lazy_placeholder(dfd, base)) == 0 &&
	    (err = prov_image_lazy_record(b->lazy, b->lazy->layer, rel.buf, ordinal, size,
					  archive_entry_perm(e))) == 0)
		err = 1;
cleanup:
	prov_buf_release(&rel);
	return err;
}

/* A link made in folder dfd: where it leads is written up front when env
 * opens it (prov_image_lazy_link; a folder that cannot be named: not, and
 * the file is filled in when opened). Always 0. */
static int note_link(int dfd, const char *target, struct prov_image_budget *b)
{
	struct prov_buf dir = PROV_BUF_INIT;

	if (!b->lazy)
		return 0;
	if (prov_image_lazy_rel(&dir, dfd, NULL, b->lazy->rootpath) == 0)
		prov_image_lazy_link(b->lazy, dir.buf, target);
	else
		prov_error_clear();
	prov_buf_release(&dir);
	return 0;
}

static int apply_entry(int rootfd, struct archive *a, struct archive_entry *e, const char *what,
		       struct prov_image_budget *b, enum pass pass, uint64_t ordinal)
{
	int outer = pass == PASS_OUTER;
	const char *name = archive_entry_pathname(e);
	mode_t type = archive_entry_filetype(e), perm = archive_entry_perm(e);
	char *comp[MAX_DEPTH], *store = NULL, *tstore = NULL, *tcomp[MAX_DEPTH];
	const char *base;
	size_t n = 0, tn = 0;
	int dfd = -1, tfd = -1, fd = -1, err = 0;
	struct stat st;

	if (!name)
		return prov_error_set(PROV_EINPUT, "%s: an entry has no name", what);
	if ((err = split_name(name, what, &store, comp, &n)) < 0 || n == 0)
		goto cleanup;
	base = comp[n - 1];
	if (!outer && (pass == PASS_WHITEOUTS) != !strncmp(base, ".wh.", 4))
		goto cleanup;
	if (outer && type != AE_IFREG && type != AE_IFDIR)
		goto cleanup;
	if (type == AE_IFCHR || type == AE_IFBLK || type == AE_IFIFO || type == AE_IFSOCK) {
		b->skipped++;
		goto cleanup;
	}
	if ((dfd = open_parent(rootfd, comp, n, 1, what, name)) < 0) {
		err = PROV_EINPUT;
		goto cleanup;
	}
	if (!outer && !strncmp(base, ".wh.", 4)) {
		if (!strcmp(base, ".wh..wh..opq"))
			err = empty_dir(dfd, what);
		else if (!base[4] || !strcmp(base + 4, ".") || !strcmp(base + 4, ".."))
			err = prov_error_set(PROV_EINPUT, "%s: whiteout '%s' names no file", what, name);
		else
			err = prov_remove_tree_at(dfd, base + 4);
		goto cleanup;
	}
	if (type == AE_IFDIR) {
		if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
			goto cleanup;
		prov_remove_tree_at(dfd, base);
		if (mkdirat(dfd, base, (perm | 0700) & 0755) < 0)
			err = prov_error_set(PROV_ERROR, "%s: cannot make folder '%s': %s", what, name,
					     prov_strerror(errno));
		goto cleanup;
	}
	if ((err = prov_remove_tree_at(dfd, base)) < 0)
		goto cleanup;
	if (archive_entry_hardlink(e)) {
		const char *target = archive_entry_hardlink(e);

		if ((err = split_name(target, what, &tstore, tcomp, &tn)) < 0)
			goto cleanup;
		if (tn > 0 && (tfd = open_parent(rootfd, tcomp, tn, 0, what, target)) >= 0 &&
		    (err = link_placeholder(tfd, tcomp[tn - 1], dfd, base, b->lazy)) != 0) {
			if (err > 0)
				err = 0;
			goto cleanup;
		}
		if (tn == 0 || tfd < 0 || linkat(tfd, tcomp[tn - 1], dfd, base, 0) < 0)
			err = prov_error_set(PROV_EINPUT, "%s: hard link '%s' names '%s', which is not "
					     "a file of the image", what, name, target);
		goto cleanup;
	}
	if (type == AE_IFLNK) {
		const char *target = archive_entry_symlink(e);

		if (!target || strlen(target) > MAX_NAME || symlinkat(target, dfd, base) < 0)
			err = prov_error_set(PROV_EINPUT, "%s: symbolic link '%s' cannot be made", what, name);
		else
			err = note_link(dfd, target, b);
		goto cleanup;
	}
	if (type != AE_IFREG) {
		b->skipped++;
		goto cleanup;
	}
	if (archive_entry_size_is_set(e) && (unsigned long long)archive_entry_size(e) > b->bytes_left) {
		err = prov_error_set(PROV_EINPUT, "%s: the image holds more file data than the limit "
				     "(PROVENANCE_IMAGE_MAX_BYTES) at '%s'", what, name);
		goto cleanup;
	}
	if (pass == PASS_FILES && (err = leave_out(dfd, base, e, ordinal, b)) != 0) {
		if (err > 0)
			err = 0;
		goto cleanup;
	}
	fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (perm & 0755) | 0600);
	if (fd < 0) {
		err = prov_error_set(PROV_ERROR, "%s: cannot write '%s': %s", what, name, prov_strerror(errno));
		goto cleanup;
	}
	err = copy_data(a, fd, what, name, b);
cleanup:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (tfd >= 0)
		close(tfd);
	free(store);
	free(tstore);
	return err;
}

static int apply(int rootfd, const char *path, const char *what, struct prov_image_budget *b, enum pass pass)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	uint64_t ordinal = 0;
	int r, err = 0;

	if (!a)
		return prov_error_set(PROV_ERROR, "%s: libarchive is not available", what);
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
		err = prov_error_set(PROV_EINPUT, "%s: %s", what, archive_error_string(a));
		goto cleanup;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
		if (pass != PASS_FILES && b->entries_left == 0) {
			err = prov_error_set(PROV_EINPUT, "%s: the image has more entries than the limit "
					     "(PROVENANCE_IMAGE_MAX_ENTRIES)", what);
			goto cleanup;
		}
		if (pass != PASS_FILES)
			b->entries_left--;
		if ((err = apply_entry(rootfd, a, e, what, b, pass, ordinal++)) < 0)
			goto cleanup;
	}
	if (r != ARCHIVE_EOF)
		err = prov_error_set(PROV_EINPUT, "%s: not a readable tar: %s", what, archive_error_string(a));
cleanup:
	archive_read_free(a);
	return err;
}

int prov_image_apply_layer(int rootfd, const char *layer, const char *what, struct prov_image_budget *b)
{
	int err = apply(rootfd, layer, what, b, PASS_WHITEOUTS);

	return err < 0 ? err : apply(rootfd, layer, what, b, PASS_FILES);
}

int prov_image_unpack_outer(int dirfd, const char *archive, struct prov_image_budget *b)
{
	return apply(dirfd, archive, archive, b, PASS_OUTER);
}

/* How much of a layer's uncompressed stream prov_image_layer_diff_id reads:
 * the budget's file bytes plus room for a tar header per entry. */
static unsigned long long stream_cap(const struct prov_image_budget *b)
{
	unsigned long long hdr = b->entries_left > (~0ULL >> 11) ? ~0ULL : b->entries_left << 10;

	return b->bytes_left > ~0ULL - hdr ? ~0ULL : b->bytes_left + hdr;
}

int prov_image_layer_diff_id(char out[2 * PROV_SHA256_LEN + 1], const char *layer, const char *what,
			     const struct prov_image_budget *b)
{
	static const char hexd[] = "0123456789abcdef";
	unsigned char buf[65536], md[PROV_SHA256_LEN];
	unsigned long long left = stream_cap(b);
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	struct prov_sha256 s;
	la_ssize_t got = 0;
	int err = 0;
	size_t i;

	if (!a)
		return prov_error_set(PROV_ERROR, "%s: libarchive is not available", what);
	prov_sha256_init(&s);
	archive_read_support_filter_all(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_filename(a, layer, 65536) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		err = prov_error_set(PROV_EINPUT, "%s: cannot be read: %s", what, archive_error_string(a));
		goto cleanup;
	}
	while ((got = archive_read_data(a, buf, sizeof(buf))) > 0) {
		if ((unsigned long long)got > left) {
			err = prov_error_set(PROV_EINPUT, "%s: the layer is larger than the limit "
					     "(PROVENANCE_IMAGE_MAX_BYTES)", what);
			goto cleanup;
		}
		left -= (unsigned long long)got;
		prov_sha256_update(&s, buf, (size_t)got);
	}
	if (got < 0) {
		err = prov_error_set(PROV_EINPUT, "%s: cannot be read: %s", what, archive_error_string(a));
		goto cleanup;
	}
	prov_sha256_final(md, &s);
	for (i = 0; i < PROV_SHA256_LEN; i++) {
		out[2 * i] = hexd[md[i] >> 4];
		out[2 * i + 1] = hexd[md[i] & 15];
	}
	out[2 * PROV_SHA256_LEN] = 0;
cleanup:
	archive_read_free(a);
	return err;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Hash the entries of the folder dfd, sorted by name, and of its folders
 * below; `left` counts the entries still allowed. */
static int stamp_dir(int dfd, struct prov_sha256 *s, int depth, unsigned long long *left)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char **names = NULL, line[160];
	size_t n = 0, cap = 0, i;
	struct dirent *e;
	struct stat st;
	int err = 0, sub;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return PROV_ERROR;
	}
	if (depth > MAX_DEPTH) {
		err = PROV_ERROR;
		goto cleanup;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (*left == 0) {
			err = PROV_ERROR;
			goto cleanup;
		}
		(*left)--;
		PROV_ALLOC_GROW(names, n + 1, cap);
		names[n++] = prov_xstrdup(e->d_name);
	}
	if (n > 1)	/* an empty folder: names is NULL, which qsort must not get */
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n && err == 0; i++) {
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			err = PROV_ERROR;
			break;
		}
		snprintf(line, sizeof(line), "%o %llu %llu %llu %lld.%ld %lld.%ld", (unsigned)st.st_mode,
			 (unsigned long long)st.st_size, (unsigned long long)st.st_ino,
			 (unsigned long long)st.st_nlink, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
		prov_sha256_update(s, names[i], strlen(names[i]) + 1);
		prov_sha256_update(s, line, strlen(line) + 1);
		if (!S_ISDIR(st.st_mode))
			continue;
		if ((sub = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			err = PROV_ERROR;
			break;
		}
		err = stamp_dir(sub, s, depth + 1, left);
		close(sub);
		prov_sha256_update(s, "/..", 4);
	}
cleanup:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return err;
}

int prov_image_tree_stamp(char out[65], const char *root)
{
	static const char hexd[] = "0123456789abcdef";
	unsigned long long left = env_cap("PROVENANCE_IMAGE_MAX_ENTRIES", PROV_IMAGE_MAX_ENTRIES);
	unsigned char md[PROV_SHA256_LEN];
	struct prov_sha256 s;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), err;
	size_t i;

	if (fd < 0)
		return PROV_ERROR;
	prov_sha256_init(&s);
	prov_sha256_update(&s, "prov-image-tree 1", 18);
	err = stamp_dir(fd, &s, 0, &left);
	close(fd);
	if (err < 0)
		return err;
	prov_sha256_final(md, &s);
	for (i = 0; i < PROV_SHA256_LEN; i++) {
		out[2 * i] = hexd[md[i] >> 4];
		out[2 * i + 1] = hexd[md[i] & 15];
	}
	out[2 * PROV_SHA256_LEN] = 0;
	return 0;
}
