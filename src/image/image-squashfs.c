/* Writes a squashfs filesystem (enroot .sqsh, a SIF's partition) onto a root through libsquashfs, confined and budgeted. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqfs/compressor.h>
#include <sqfs/data_reader.h>
#include <sqfs/dir.h>
#include <sqfs/dir_reader.h>
#include <sqfs/error.h>
#include <sqfs/inode.h>
#include <sqfs/io.h>
#include <sqfs/super.h>

#include "alloc.h"
#include "buf.h"
#include "error.h"
#include "util.h"
#include "image.h"
#include "banned.h"

/* fragment blocks of one image at most (16 M: 256 MiB of fragment table) */
#define MAX_FRAGMENTS ((uint32_t)1 << 24)
#define MAX_DEPTH 128
#define MAX_NAME 4096
#define CHUNK 65536

/* A window [off, off + size) of a file, read-only, as libsquashfs's file. */
struct slice_file {
	sqfs_file_t base;
	int fd;
	uint64_t off, size;
};

static void slice_destroy(sqfs_object_t *o)
{
	struct slice_file *f = (struct slice_file *)o;

	close(f->fd);
	free(f);
}

static int slice_read_at(sqfs_file_t *file, sqfs_u64 offset, void *buffer, size_t size)
{
	struct slice_file *f = (struct slice_file *)file;
	char *p = buffer;

	if (offset > f->size || size > f->size - offset)
		return SQFS_ERROR_OUT_OF_BOUNDS;
	while (size > 0) {
		ssize_t got = pread(f->fd, p, size, (off_t)(f->off + offset));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return SQFS_ERROR_IO;
		p += got;
		offset += (uint64_t)got;
		size -= (size_t)got;
	}
	return 0;
}

static int slice_write_at(sqfs_file_t *file, sqfs_u64 offset, const void *buffer, size_t size)
{
	return SQFS_ERROR_UNSUPPORTED;
}

static sqfs_u64 slice_get_size(const sqfs_file_t *file)
{
	return ((const struct slice_file *)file)->size;
}

static int slice_truncate(sqfs_file_t *file, sqfs_u64 size)
{
	return SQFS_ERROR_UNSUPPORTED;
}

struct sq {
	sqfs_dir_reader_t *dr;
	sqfs_data_reader_t *data;
	struct prov_image_budget *b;
	const char *what;
	sqfs_u32 stack[MAX_DEPTH + 1];	/* the inode numbers of the folders being walked */
	struct prov_buf path;	/* the folder being walked, for messages */
};

struct sq_ent {
	char *name;
	sqfs_inode_generic_t *inode;
};

static int sq_fail(struct sq *s, int sqerr, const char *doing)
{
	return prov_error_set(PROV_EINPUT, "%s: a damaged squashfs image (%s in '/%s': error %d)",
			      s->what, doing, s->path.buf ? s->path.buf : "", sqerr);
}

/* The entries of the folder `dir`, each name checked; *n of them in *out. */
static int read_dir(struct sq *s, const sqfs_inode_generic_t *dir, struct sq_ent **out, size_t *n)
{
	size_t cap = 0;
	sqfs_dir_entry_t *ent = NULL;
	int r, err = 0;

	*out = NULL;
	*n = 0;
	if ((r = sqfs_dir_reader_open_dir(s->dr, dir, 0)) < 0)
		return sq_fail(s, r, "opening a folder");
	while ((r = sqfs_dir_reader_read(s->dr, &ent)) == 0) {
		size_t len = (size_t)ent->size + 1;
		sqfs_inode_generic_t *inode = NULL;
		char *name = prov_xstrndup((const char *)ent->name, len);

		sqfs_free(ent);
		if (s->b->entries_left == 0) {
			free(name);
			return prov_error_set(PROV_EINPUT, "%s: the image has more entries than the limit "
					      "(PROVENANCE_IMAGE_MAX_ENTRIES)", s->what);
		}
		s->b->entries_left--;
		if (strlen(name) != len || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
			err = prov_error_set(PROV_EINPUT, "%s: entry '%s' in '/%s' is not a plain name (a '/', "
					     "'.' or '..'): it would climb out of its folder", s->what, name,
					     s->path.buf ? s->path.buf : "");
			free(name);
			return err;
		}
		if ((r = sqfs_dir_reader_get_inode(s->dr, &inode)) < 0) {
			free(name);
			return sq_fail(s, r, "reading an inode");
		}
		PROV_ALLOC_GROW(*out, *n + 1, cap);
		(*out)[*n].name = name;
		(*out)[(*n)++].inode = inode;
	}
	return r < 0 ? sq_fail(s, r, "reading a folder") : 0;
}

static int write_file(struct sq *s, int dfd, const char *name, const sqfs_inode_generic_t *inode)
{
	char *buf = NULL;
	sqfs_u64 size = 0, off;
	int fd, err = 0;

	if (sqfs_inode_get_file_size(inode, &size) < 0 || size > s->b->bytes_left)
		return prov_error_set(PROV_EINPUT, "%s: the image holds more file data than the limit "
				      "(PROVENANCE_IMAGE_MAX_BYTES) at '/%s%s%s'", s->what,
				      s->path.buf ? s->path.buf : "", s->path.len ? "/" : "", name);
	if (s->b->lazy) {
		struct prov_buf rel = PROV_BUF_INIT;

		if (s->path.len)
			prov_buf_printf(&rel, "%s/", s->path.buf);
		prov_buf_puts(&rel, name);
		if (!prov_image_lazy_eager(rel.buf, size)) {
			s->b->bytes_left -= size;
			if ((err = prov_image_lazy_placeholder(dfd, name)) == 0)
				err = prov_image_lazy_record(s->b->lazy, 0, rel.buf, 0, size, inode->base.mode);
			prov_buf_release(&rel);
			return err;
		}
		prov_buf_release(&rel);
	}
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    (inode->base.mode & 0755) | 0600);
	if (fd < 0)
		return prov_error_set(PROV_EINPUT, "%s: '/%s%s%s' cannot be written (a duplicate name?): %s",
				      s->what, s->path.buf ? s->path.buf : "", s->path.len ? "/" : "", name,
				      prov_strerror(errno));
	buf = prov_xmalloc(CHUNK);
	for (off = 0; off < size && err == 0;) {
		sqfs_u32 want = size - off > CHUNK ? CHUNK : (sqfs_u32)(size - off);
		sqfs_s32 got = sqfs_data_reader_read(s->data, inode, off, buf, want);

		if (got <= 0) {
			err = sq_fail(s, got, "reading a file's data");
			break;
		}
		s->b->bytes_left -= (unsigned long long)got;
		off += (sqfs_u64)got;
		for (char *p = buf; got > 0;) {
			ssize_t w = write(fd, p, (size_t)got);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				err = prov_error_set(PROV_ERROR, "%s: cannot write '%s': %s", s->what, name,
						     prov_strerror(errno));
				break;
			}
			p += w;
			got -= (sqfs_s32)w;
		}
	}
	free(buf);
	close(fd);
	return err;
}

static int write_symlink(struct sq *s, int dfd, const char *name, const sqfs_inode_generic_t *inode)
{
	sqfs_u32 tlen = inode->base.type == SQFS_INODE_SLINK ? inode->data.slink.target_size
		: inode->data.slink_ext.target_size;
	char *target;
	int err = 0;

	if (tlen == 0 || tlen > MAX_NAME || tlen > inode->payload_bytes_used)
		return prov_error_set(PROV_EINPUT, "%s: symbolic link '%s' has a bad target length", s->what,
				      name);
	target = prov_xstrndup((const char *)inode->extra, tlen);
	if (strlen(target) != tlen || symlinkat(target, dfd, name) < 0)
		err = prov_error_set(PROV_EINPUT, "%s: symbolic link '%s' cannot be made", s->what, name);
	free(target);
	return err;
}

static int walk(struct sq *s, const sqfs_inode_generic_t *dir, int dfd, int depth);

static int write_entry(struct sq *s, int dfd, const struct sq_ent *e, int depth)
{
	const sqfs_inode_generic_t *inode = e->inode;
	size_t plen = s->path.len;
	int fd, err;

	switch (inode->base.type) {
	case SQFS_INODE_DIR:
	case SQFS_INODE_EXT_DIR:
		if (mkdirat(dfd, e->name, ((inode->base.mode & 0755) | 0700)) < 0 ||
		    (fd = openat(dfd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			return prov_error_set(PROV_EINPUT, "%s: folder '%s' in '/%s' cannot be made (a "
					      "duplicate name?): %s", s->what, e->name,
					      s->path.buf ? s->path.buf : "", prov_strerror(errno));
		if (plen)
			prov_buf_putc(&s->path, '/');
		prov_buf_puts(&s->path, e->name);
		err = walk(s, inode, fd, depth + 1);
		prov_buf_setlen(&s->path, plen);
		close(fd);
		return err;
	case SQFS_INODE_FILE:
	case SQFS_INODE_EXT_FILE:
		return write_file(s, dfd, e->name, inode);
	case SQFS_INODE_SLINK:
	case SQFS_INODE_EXT_SLINK:
		return write_symlink(s, dfd, e->name, inode);
	default:	/* device nodes, FIFOs, sockets */
		s->b->skipped++;
		return 0;
	}
}

/* Write the folder `dir`'s entries into dfd, its subfolders in turn. */
static int walk(struct sq *s, const sqfs_inode_generic_t *dir, int dfd, int depth)
{
	struct sq_ent *ents = NULL;
	size_t n = 0, i;
	int err = 0, k;

	if (depth > MAX_DEPTH)
		return prov_error_set(PROV_EINPUT, "%s: '/%s' is over %d folders deep", s->what,
				      s->path.buf ? s->path.buf : "", MAX_DEPTH);
	for (k = 0; k < depth; k++)
		if (s->stack[k] == dir->base.inode_number)
			return prov_error_set(PROV_EINPUT, "%s: folder '/%s' contains itself (a loop)",
					      s->what, s->path.buf ? s->path.buf : "");
	s->stack[depth] = dir->base.inode_number;
	err = read_dir(s, dir, &ents, &n);
	for (i = 0; i < n && err == 0; i++)
		err = write_entry(s, dfd, &ents[i], depth);
	for (i = 0; i < n; i++) {
		free(ents[i].name);
		sqfs_free(ents[i].inode);
	}
	free(ents);
	return err;
}

static sqfs_file_t *open_slice(const char *file, uint64_t offset, uint64_t size)
{
	struct slice_file *f;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	f = prov_xcalloc(1, sizeof(*f));
	f->base.base.destroy = slice_destroy;
	f->base.read_at = slice_read_at;
	f->base.write_at = slice_write_at;
	f->base.get_size = slice_get_size;
	f->base.truncate = slice_truncate;
	f->fd = fd;
	f->off = offset;
	f->size = size;
	return &f->base;
}

/* An open squashfs: its file, compressor, readers and root folder. */
struct sq_open {
	sqfs_file_t *sf;
	sqfs_compressor_t *cmp;
	sqfs_inode_generic_t *root;
	sqfs_super_t super;	/* the readers keep a pointer to it */
};

static void sq_close(struct sq *s, struct sq_open *o)
{
	sqfs_free(o->root);
	sqfs_destroy(s->data);
	sqfs_destroy(s->dr);
	sqfs_destroy(o->cmp);
	if (o->sf)
		sqfs_destroy(o->sf);
	prov_buf_release(&s->path);
}

/* Open the squashfs at [offset, offset + size) of `file` into s and o. */
static int sq_setup(struct sq *s, struct sq_open *o, const char *file, uint64_t offset, uint64_t size)
{
	const char *what = s->what;
	sqfs_compressor_config_t cfg;
	sqfs_super_t *sup = &o->super;
	int r;

	if (!(o->sf = open_slice(file, offset, size)))
		return prov_error_set(PROV_EINPUT, "%s: cannot open: %s", what, prov_strerror(errno));
	if ((r = sqfs_super_read(sup, o->sf)) < 0)
		return prov_error_set(PROV_EINPUT, "%s: not a squashfs 4.0 image this version reads "
				      "(super block: error %d)", what, r);
	/* libsquashfs allocates the fragment table whole, from this count, before
	 * reading it: a fragment entry names a fragment block of the image, so
	 * there are at most as many as the image has bytes (fuzz-image: a flipped
	 * bit asked for 64 GiB) */
	if (sup->fragment_entry_count > size || sup->fragment_entry_count > MAX_FRAGMENTS)
		return prov_error_set(PROV_EINPUT, "%s: the super block claims %u fragment blocks, more than "
				      "the image can hold", what, sup->fragment_entry_count);
	if ((r = sqfs_compressor_config_init(&cfg, (SQFS_COMPRESSOR)sup->compression_id, sup->block_size,
					     SQFS_COMP_FLAG_UNCOMPRESS)) < 0 ||
	    (r = sqfs_compressor_create(&cfg, &o->cmp)) < 0)
		return prov_error_set(PROV_EINPUT, "%s: a squashfs image compressed with a method this "
				      "libsquashfs does not read (id %u)", what, sup->compression_id);
	if ((sup->flags & SQFS_FLAG_COMPRESSOR_OPTIONS) && (r = o->cmp->read_options(o->cmp, o->sf)) < 0)
		return sq_fail(s, r, "reading the compressor's options");
	s->dr = sqfs_dir_reader_create(sup, o->cmp, o->sf, 0);
	s->data = sqfs_data_reader_create(o->sf, sup->block_size, o->cmp, 0);
	if (!s->dr || !s->data)
		return prov_error_set(PROV_ERROR, "%s: out of memory", what);
	if ((r = sqfs_data_reader_load_fragment_table(s->data, sup)) < 0)
		return sq_fail(s, r, "reading the fragment table");
	if ((r = sqfs_dir_reader_get_root_inode(s->dr, &o->root)) < 0 ||
	    (o->root->base.type != SQFS_INODE_DIR && o->root->base.type != SQFS_INODE_EXT_DIR))
		return sq_fail(s, r, "reading the root folder");
	return 0;
}

int prov_image_apply_squashfs(int rootfd, const char *file, uint64_t offset, uint64_t size,
			      const char *what, struct prov_image_budget *b)
{
	struct sq s = { .b = b, .what = what, .path = PROV_BUF_INIT };
	struct sq_open o = { 0 };
	int err = sq_setup(&s, &o, file, offset, size);

	if (err == 0)
		err = walk(&s, o.root, rootfd, 0);
	sq_close(&s, &o);
	return err;
}

int prov_image_squashfs_cat(int fd, const char *file, uint64_t offset, uint64_t size, const char *path,
			    uint64_t want)
{
	struct prov_image_budget b = { 0 };
	struct sq s = { .b = &b, .what = file, .path = PROV_BUF_INIT };
	struct sq_open o = { 0 };
	sqfs_inode_generic_t *inode = NULL;
	sqfs_u64 fsize = 0, off;
	char *buf = NULL;
	int err = sq_setup(&s, &o, file, offset, size);

	if (err < 0)
		goto cleanup;
	if (sqfs_dir_reader_find_by_path(s.dr, o.root, path, &inode) < 0 || !inode ||
	    (inode->base.type != SQFS_INODE_FILE && inode->base.type != SQFS_INODE_EXT_FILE) ||
	    sqfs_inode_get_file_size(inode, &fsize) < 0 || fsize != want) {
		err = prov_error_set(PROV_ERROR, "%s: the image no longer holds '/%s' as the index says",
				     file, path);
		goto cleanup;
	}
	buf = prov_xmalloc(CHUNK);
	for (off = 0; off < fsize;) {
		sqfs_u32 n = fsize - off > CHUNK ? CHUNK : (sqfs_u32)(fsize - off);
		sqfs_s32 got = sqfs_data_reader_read(s.data, inode, off, buf, n);

		if (got <= 0) {
			err = sq_fail(&s, got, "reading a file's data");
			goto cleanup;
		}
		off += (sqfs_u64)got;
		for (char *p = buf; got > 0;) {
			ssize_t w = write(fd, p, (size_t)got);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				err = prov_error_set(PROV_ERROR, "%s: cannot write '/%s': %s", file, path,
						     prov_strerror(errno));
				goto cleanup;
			}
			p += w;
			got -= (sqfs_s32)w;
		}
	}
cleanup:
	free(buf);
	sqfs_free(inode);
	sq_close(&s, &o);
	return err;
}
