#ifndef PROV_IMAGE_H
#define PROV_IMAGE_H

/*
 * A container image as --sysroot (docs/containers.md): an OCI image layout
 * ("oci:DIR[:TAG]"), a tar of one ("oci-archive:FILE"), what docker/podman
 * save write ("docker-archive:FILE[:TAG]"), a squashfs file ("squashfs:FILE",
 * enroot's .sqsh), an Apptainer SIF ("sif:FILE": its squashfs root
 * partition), or a plain directory. Without a prefix a directory is a
 * directory and a file is told by its content.
 *
 * The image's layers are applied in order, with OCI whiteouts, into
 * <cache>/images/<digest>/rootfs, once: every later run with the same image
 * reads that tree. Only what a run needs is extracted: large files no
 * resolver reads by name are placeholders, filled in from their layer when
 * first opened through prov_root_open (image-lazy.c, below). Entries are confined to the root: one with "..", a hard
 * link that climbs out, is refused (PROV_EINPUT); symlinks are written as
 * they are and read through prov_root_open, which resolves them inside the
 * root; device nodes, FIFOs and sockets are skipped. Work is bounded: at
 * most PROV_IMAGE_MAX_ENTRIES entries and PROV_IMAGE_MAX_BYTES bytes of file
 * data in all (the environment variables PROVENANCE_IMAGE_MAX_ENTRIES and
 * PROVENANCE_IMAGE_MAX_BYTES lower or raise them); past either, PROV_EINPUT.
 */

#include <stdint.h>
#include <stdio.h>

struct prov_buf;

#define PROV_IMAGE_MAX_ENTRIES 2000000
#define PROV_IMAGE_MAX_BYTES ((unsigned long long)16 << 30)

struct prov_image {
	const char *kind;	/* "oci", "oci-archive", "docker-archive", "squashfs", "sif", "dir" */
	char *digest;	/* "sha256:<hex>": the manifest's (docker: the config's; squashfs,
			 * sif: the file's); NULL for "dir" */
	char *ref;	/* the tag named after the path, else NULL */
	char *root;	/* the directory to read as the root */
	int lock_fds[2];	/* shared locks on its folders in the cache (image-cache.c), nlocks of them */
	int nlocks;
	int fresh;	/* 1 when this run unpacked something into the cache */
	struct prov_image_source *src;	/* where the tree's placeholders come from (image-lazy.c) */
	char *done;	/* the tree's "complete" record, written again when files were filled in */
};

/*
 * Open `spec` (--sysroot's value) as a root. cache_dir is where images are
 * unpacked (NULL: only a directory is accepted). The image's folders in the
 * cache are held with a shared lock until prov_image_release, so that no
 * eviction removes them while in use. max_cache (cache.maxSize; 0: none):
 * after this run unpacked something, the least recently used images are
 * evicted until the whole cache is within it (prov_image_cache_prune), with
 * one warning when it cannot be. 0 and *img filled (free with
 * prov_image_release); PROV_EINPUT with one line naming what is wrong.
 */
int prov_image_open(struct prov_image *img, const char *spec, const char *cache_dir, uint64_t max_cache);
void prov_image_release(struct prov_image *img);

/* ---- image-layer.c ---- */

struct prov_image_lazy;

struct prov_image_budget {
	unsigned long long entries_left, bytes_left;
	unsigned long skipped;	/* device nodes, FIFOs, sockets */
	struct prov_image_lazy *lazy;	/* NULL: every file is written (image-lazy.c) */
};

/* The budget from the defaults and the environment. */
void prov_image_budget_init(struct prov_image_budget *b);

/*
 * Apply the tar `layer` (any compression libarchive reads) onto the
 * directory rootfd: whiteouts remove what they name, other entries are
 * written, confined to rootfd. `what` names the layer in messages.
 * 0, or PROV_EINPUT / PROV_ERROR with the message set.
 */
int prov_image_apply_layer(int rootfd, const char *layer, const char *what,
			   struct prov_image_budget *b);

/*
 * Unpack the outer tar of an archive image (regular files and directories
 * only) into the directory dirfd. 0, or PROV_EINPUT with the message set.
 */
int prov_image_unpack_outer(int dirfd, const char *archive, struct prov_image_budget *b);

/*
 * The sha256 (lower-case hex) of the layer file's uncompressed stream (any
 * compression libarchive reads; a plain tar is hashed as it is): what an
 * image config's rootfs.diff_ids name. At most the budget's file bytes plus
 * 1 KiB per entry left are read, else PROV_EINPUT. `what` names the layer
 * in messages. 0, or PROV_EINPUT / PROV_ERROR with the message set.
 */
int prov_image_layer_diff_id(char out[65], const char *layer, const char *what,
			     const struct prov_image_budget *b);

/*
 * A digest of the unpacked tree at `root` as it lies on disk: for every
 * entry below it, sorted by name, its name, mode, size, inode, link count,
 * mtime and ctime (to the nanosecond). Written when the tree is made and
 * compared before the tree is reused: a file of it written, replaced,
 * added, removed or chmod-ed changes its ctime or the listing, so the
 * digest. The contents are not read again (that would cost as much as
 * unpacking). 0, or PROV_ERROR (no message) when the tree cannot be walked
 * or is over the entry budget or 128 folders deep.
 */
int prov_image_tree_stamp(char out[65], const char *root);

/* ---- image-cache.c ---- */

/* cache.maxSize's value: N bytes, or N with K, M, G or T (powers of 1024). 0, or PROV_EUSAGE. */
int prov_image_parse_size(uint64_t *out, const char *v);

/*
 * Take a shared lock on the image folder `dir` (made first when `make`) and
 * mark it used now (its mtime: eviction goes least recently used first).
 * A folder evicted while we waited for the lock is made again (`make`) or
 * reported absent. 0 and *fd the lock (close it to release), 1 when absent
 * (!make), PROV_ERROR with the message set.
 */
int prov_image_lock_dir(int *fd, const char *dir, int make);

struct prov_image_prune {
	uint64_t total;	/* the cache's bytes after pruning (apparent sizes, as du -sb) */
	uint64_t freed;	/* bytes of the evicted images */
	unsigned evicted, busy;	/* images removed; images over the budget kept as in use */
};

/*
 * Bring the cache directory within max_bytes by evicting whole images from
 * <cache>/images (unpacked roots and archives' files), least recently used
 * first; one held by a running provenance (a shared lock: the exclusive
 * non-blocking lock fails) is skipped. An evicted image's "complete" record
 * is removed first, then its folder is renamed away and removed, so no run
 * ever takes a half-removed tree for whole. Nothing else in the cache is
 * evicted. 0 and *out filled, or PROV_ERROR.
 */
int prov_image_cache_prune(struct prov_image_prune *out, const char *cache_dir, uint64_t max_bytes);

/* The unpacked images in <cache>/images: how many, and their apparent bytes. */
void prov_image_cache_size(uint64_t *bytes, unsigned *count, const char *cache_dir);

/* ---- image-squashfs.c ---- */

/*
 * Write the squashfs filesystem that lies at [offset, offset + size) of
 * `file` (a whole .sqsh file, or a SIF's partition) onto the empty
 * directory rootfd, through libsquashfs. Every name is checked (no '/',
 * no "." or "..", no NUL); nothing is followed while writing (O_NOFOLLOW,
 * a fresh tree), symlinks are written as they are; a directory that
 * contains itself, a duplicate name, more than 128 folders deep: refused;
 * device nodes, FIFOs and sockets skipped. The budget counts entries and
 * file bytes (declared size first, then bytes read). `what` names the
 * image in messages. 0, or PROV_EINPUT / PROV_ERROR with the message set.
 */
int prov_image_apply_squashfs(int rootfd, const char *file, uint64_t offset, uint64_t size,
			      const char *what, struct prov_image_budget *b);

/*
 * The regular file at `path` (relative to the squashfs root, no symlink
 * followed) of the squashfs at [offset, offset + size) of `file` into fd:
 * it must be `want` bytes long. 0, or PROV_ERROR with the message set.
 */
int prov_image_squashfs_cat(int fd, const char *file, uint64_t offset, uint64_t size, const char *path,
			    uint64_t want);

/* ---- image-lazy.c ---- */

/*
 * An image's tree is read lazily. While a tree is made, a regular file is
 * written up front when it is at most PROV_IMAGE_LAZY_MIN bytes or its path
 * is one that resolvers read by name or libraries open by path (package
 * databases, os-release and /etc, .dist-info, conda-meta, ROCm's .info,
 * .git, copyright files, the program folders env scans for Go binaries:
 * prov_image_lazy_eager). Every other regular file is a placeholder (an
 * empty file with mode 0000) with a record in <images>/<key>/lazy: its
 * layer, its entry's number in that layer's tar stream, its size and mode,
 * its path in the tree as it lies on disk. Directories and symlinks are
 * all written. When a placeholder is opened through prov_root_open (every
 * module, debug file and resolver read goes through it), the hook set by
 * prov_image_lazy_attach extracts the file from its layer (tar: read on
 * forward from the entry the run read last, from the layer's start only
 * when the entry lies behind; squashfs: by its path) into the tree, once,
 * through a temporary file renamed over the placeholder. The files that
 * env's program folders lead to are filled in when the tree is made, one
 * pass over each layer (prov_image_lazy_prefetch). A file that
 * cannot be extracted fails the open with a warning; it never reads empty.
 */
#define PROV_IMAGE_LAZY_MIN 65536

struct prov_image_lazy {
	FILE *index;	/* the records being written */
	const char *index_path;	/* its file */
	const char *rootpath;	/* the tree's folder as /proc names it (realpath) */
	unsigned layer;	/* the layer being applied */
	unsigned long count;	/* placeholders written */
	char **wanted;	/* sorted: where the program folders' links lead (written up front) */
	size_t nwanted, wanted_cap;
};

/* Where an opened tree's placeholders come from (the hook's argument). */
struct prov_image_source {
	char *root;	/* the tree, realpath */
	char *index;	/* <images>/<key>/lazy */
	char **layers;	/* tar layers in order (not owned), or NULL for a squashfs: */
	size_t n;
	const char *file;	/* the squashfs file and its window */
	uint64_t off, size;
	unsigned long filled;	/* placeholders filled in by this run */
	int touched;	/* a fill wrote in the tree (even one that failed: a folder's times changed) */
	void *reader;	/* the tar layer being read forward (image-lazy.c), or NULL */
};

/* The folders env scans for binaries that carry their inventory (resolvers/kit-root.c, prov_root_each_program), relative to the root, NULL-ended. */
extern const char *const prov_image_lazy_program_dirs[];

/* 1 when the file at `rel` (relative to the root) of `size` bytes is written up front. */
int prov_image_lazy_eager(const char *rel, unsigned long long size);

/* out = the path relative to rootpath of the entry `base` (NULL: the folder itself) in folder dfd. */
int prov_image_lazy_rel(struct prov_buf *out, int dfd, const char *base, const char *rootpath);

/* A symbolic link in the folder `dirrel` (relative to the root) to
 * `target` was made: when the folder is one of those env scans for
 * programs, where it leads (lexically) is written up front. */
void prov_image_lazy_link(struct prov_image_lazy *lz, const char *dirrel, const char *target);

/* 1 when `rel` is where such a link leads. */
int prov_image_lazy_wanted(const struct prov_image_lazy *lz, const char *rel);

/* Free what prov_image_lazy_link kept. */
void prov_image_lazy_free(struct prov_image_lazy *lz);

/* Record a placeholder at `rel`: in layer `layer`, entry `ordinal`. 0 or PROV_ERROR. */
int prov_image_lazy_record(struct prov_image_lazy *lz, unsigned layer, const char *rel, uint64_t ordinal,
			   uint64_t size, unsigned mode);

/* The last record of `rel` in the index file: 1 and the fields, 0 when none. */
int prov_image_lazy_find(const char *index_path, const char *rel, unsigned *layer, uint64_t *ordinal,
			 uint64_t *size, unsigned *mode);

/* Write the placeholder `base` in folder dfd. 0 or PROV_ERROR. */
int prov_image_lazy_placeholder(int dfd, const char *base);

/*
 * Fill in, in one forward pass over each tar layer, the placeholders that
 * the names in the program folders env scans lead to (go-buildinfo opens
 * each of them): called once, when the tree is made. A file that cannot be
 * filled stays a placeholder (its open says why).
 */
void prov_image_lazy_prefetch(struct prov_image_source *src);

/* Close the layer src reads forward (no-op when none). */
void prov_image_lazy_close(struct prov_image_source *src);

/* Set (src) or clear (NULL) prov_root_open's hook that fills placeholders in. */
void prov_image_lazy_attach(struct prov_image_source *src);

/* ---- image-sif.c ---- */

#define PROV_SIF_MAX_DESCRIPTORS 4096
/* How much of a SIF file's head prov_sif_find_rootfs needs at most. */
#define PROV_SIF_HEAD_MAX ((size_t)4 << 20)

struct prov_sif_part {
	uint64_t offset, size;	/* of the squashfs partition, in the file */
};

/* 1 when buf (the file's first len bytes) starts like a SIF image. */
int prov_sif_is(const unsigned char *buf, size_t len);

/*
 * The root filesystem of a SIF image (Apptainer, sylabs/sif format
 * version "01"): the used partition descriptor with fstype squashfs and
 * parttype primary system (else the only system one). buf is the file's
 * first len bytes (the header and the whole descriptor table must be in
 * it), file_size the file's size; every field is checked against both.
 * 0 and *out filled, or PROV_EINPUT saying what is wrong (an encrypted
 * root, no partition, a table or partition out of bounds).
 */
int prov_sif_find_rootfs(const unsigned char *buf, size_t len, uint64_t file_size,
			 struct prov_sif_part *out);

#endif
