/* --sysroot as an image: OCI layouts and archives, docker-archive, unpacked once into the cache. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "alloc.h"
#include "buf.h"
#include "cachedir.h"
#include "error.h"
#include "jsonread.h"
#include "sha256.h"
#include "util.h"
#include "image.h"
#include "banned.h"

#define MAX_JSON ((size_t)4 << 20)
/* The "complete" record of an unpacked tree: this, its stamp in hex, "\n". */
#define TREE_RECORD "prov-image-tree 1 sha256:"

static int write_record(const char *done, const char *root);

void prov_image_release(struct prov_image *img)
{
	int i;

	if (img->src) {
		prov_image_lazy_attach(NULL);
		prov_image_lazy_close(img->src);
		/* fills (even failed ones: a folder's times) changed the tree: its record follows */
		if (img->src->touched && img->done && write_record(img->done, img->root) < 0)
			prov_warn("%s", prov_error_last());
		for (i = 0; i < (int)img->src->n; i++)
			free(img->src->layers[i]);
		free(img->src->layers);
		free(img->src->root);
		free(img->src->index);
		free((char *)img->src->file);
		free(img->src);
	}
	free(img->done);
	for (i = 0; i < img->nlocks && i < 2; i++)
		close(img->lock_fds[i]);
	free(img->digest);
	free(img->ref);
	free(img->root);
	memset(img, 0, sizeof(*img));
}

static int read_json(struct prov_jv **out, const char *path, const char *what)
{
	struct prov_buf b = PROV_BUF_INIT;
	int err;

	*out = NULL;
	if ((err = prov_read_file(&b, path, MAX_JSON)) < 0 || (err = prov_jv_parse(out, b.buf ? b.buf : "", b.len)) < 0)
		err = prov_error_set(PROV_EINPUT, "%s: %s", what, prov_error_last());
	prov_buf_release(&b);
	return err;
}

/* "sha256:<64 hex>" -> the hex, else NULL */
static const char *digest_hex(const char *d)
{
	const char *h = d ? prov_skip_prefix(d, "sha256:") : NULL;

	if (!h || strlen(h) != 64 || strspn(h, "0123456789abcdef") != 64)
		return NULL;
	return h;
}

/* The folder of the image's unpacked root in the cache, and whether it is
 * complete and as it was made: its "complete" record holds the tree's stamp
 * (prov_image_tree_stamp) from when it was unpacked. A tree whose stamp
 * differs, or with no record, is not trusted: 0, and it is made again. */
static int cached_root(struct prov_image *img, const char *cache_dir, const char *key)
{
	struct prov_buf rec = PROV_BUF_INIT;
	char *done, hex[65];
	struct stat st;
	int ok = 0;

	img->root = prov_cachedir_pathf(cache_dir, PROV_CACHEDIR_IMAGES, "%s/rootfs", key);
	done = prov_cachedir_pathf(cache_dir, PROV_CACHEDIR_IMAGES, "%s/complete", key);
	if (stat(img->root, &st) < 0 && stat(done, &st) < 0)
		goto cleanup;	/* never unpacked: nothing to say */
	if (prov_read_file(&rec, done, 256) == 0 && rec.len == sizeof(TREE_RECORD) - 1 + 65 &&
	    prov_image_tree_stamp(hex, img->root) == 0 && !memcmp(rec.buf, TREE_RECORD, sizeof(TREE_RECORD) - 1) &&
	    !memcmp(rec.buf + sizeof(TREE_RECORD) - 1, hex, 64))
		ok = 1;
	else
		prov_warn("the image's unpacked copy in the cache (%s) is not as it was made (changed, "
			  "incomplete or without its record): unpacking the image again", img->root);
cleanup:
	prov_buf_release(&rec);
	free(done);
	return ok;
}

/* Hold the folder <images>/<name> (made first when `make`) with a shared
 * lock while this run uses it: 0, 1 when absent (!make), PROV_ERROR. */
static int hold(struct prov_image *img, const char *cache_dir, const char *name, int make)
{
	char *dir = prov_cachedir_pathf(cache_dir, PROV_CACHEDIR_IMAGES, "%s", name);
	int fd, r;

	if (img->nlocks >= 2) {
		free(dir);
		return prov_error_set(PROV_ERROR, "an image holds more than two folders of the cache");
	}
	if ((r = prov_image_lock_dir(&fd, dir, make)) == 0)
		img->lock_fds[img->nlocks++] = fd;
	free(dir);
	return r;
}

/* What fills a fresh tree: tar layers in order, or one squashfs. */
struct fill {
	char **layers;	/* files, applied in order; NULL for a squashfs */
	size_t n;
	const char *file;	/* squashfs: the file, and its window in it */
	uint64_t off, size;
};

static int fill_tree(int rootfd, const struct fill *f, struct prov_image_budget *b)
{
	int err = 0;
	size_t i;

	if (!f->layers)
		return prov_image_apply_squashfs(rootfd, f->file, f->off, f->size, f->file, b);
	for (i = 0; i < f->n && err == 0; i++) {
		char *what = prov_xasprintf("layer %zu of %zu", i + 1, f->n);

		if (b->lazy)	/* the records say which layer holds each file */
			b->lazy->layer = (unsigned)i;
		err = prov_image_apply_layer(rootfd, f->layers[i], what, b);
		free(what);
	}
	return err;
}

/* Write the "complete" record of the tree at root: its stamp, through a
 * temporary file renamed over `done`. */
static int write_record(const char *done, const char *root)
{
	char hex[65], *tmp = prov_xasprintf("%s.tmp-%ld", done, (long)getpid()), *line = NULL;
	int fd = -1, err = 0;
	size_t len;

	if (prov_image_tree_stamp(hex, root) < 0) {
		err = prov_error_set(PROV_ERROR, "cannot read back the unpacked image at '%s'", root);
		goto cleanup;
	}
	line = prov_xasprintf("%s%s\n", TREE_RECORD, hex);
	len = strlen(line);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0 ||
	    write(fd, line, len) != (ssize_t)len) {
		err = prov_error_set(PROV_ERROR, "cannot write '%s': %s", tmp, prov_strerror(errno));
		goto cleanup;
	}
	if (close(fd) < 0 || rename(tmp, done) < 0)
		err = prov_error_set(PROV_ERROR, "cannot write '%s': %s", done, prov_strerror(errno));
	fd = -1;
cleanup:
	if (fd >= 0)
		close(fd);
	if (err < 0)
		unlink(tmp);
	free(tmp);
	free(line);
	return err;
}

/* Fill a fresh tree (`f`), then move it to <images>/<key>/rootfs and mark
 * it complete. */
static int unpack_tree(const char *cache_dir, const char *key, const struct fill *f, const char *root)
{
	struct prov_image_budget b;
	char *dir = prov_cachedir_pathf(cache_dir, PROV_CACHEDIR_IMAGES, "%s", key);
	char *tmp = prov_xasprintf("%s/rootfs.tmp-%ld", dir, (long)getpid());
	char *done = prov_xasprintf("%s/complete", dir);
	int rootfd = -1, err = 0;

	char *index = prov_xasprintf("%s/lazy", dir), *itmp = prov_xasprintf("%s.tmp-%ld", index, (long)getpid());
	struct prov_image_lazy lz = { .index_path = itmp };
	char *real = NULL;

	prov_image_budget_init(&b);
	unlink(done);
	if ((err = prov_mkdir_p(tmp, 0755, 0)) < 0)
		goto cleanup;
	if ((rootfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || !(real = realpath(tmp, NULL)) ||
	    !(lz.index = fopen(itmp, "we"))) {
		err = prov_error_set(PROV_ERROR, "cannot open '%s': %s", tmp, prov_strerror(errno));
		goto cleanup;
	}
	lz.rootpath = real;
	b.lazy = &lz;
	if ((err = fill_tree(rootfd, f, &b)) < 0)
		goto cleanup;
	if (fclose(lz.index) != 0 || rename(itmp, index) < 0) {
		lz.index = NULL;
		err = prov_error_set(PROV_ERROR, "cannot write '%s': %s", index, prov_strerror(errno));
		goto cleanup;
	}
	lz.index = NULL;
	if (f->layers && lz.count > 0) {	/* what env opens first: one pass over each layer */
		struct prov_image_source src = { .root = real, .index = index, .layers = f->layers, .n = f->n };

		prov_image_lazy_prefetch(&src);
	}
	prov_remove_tree_at(AT_FDCWD, root);
	if (rename(tmp, root) < 0) {
		err = prov_error_set(PROV_ERROR, "cannot rename '%s': %s", tmp, prov_strerror(errno));
		goto cleanup;
	}
	if ((err = write_record(done, root)) < 0)
		goto cleanup;
	if (b.skipped)
		prov_warn("the image's %lu device nodes, FIFOs and sockets were skipped", b.skipped);
cleanup:
	if (lz.index)
		fclose(lz.index);
	prov_image_lazy_free(&lz);
	if (rootfd >= 0)
		close(rootfd);
	if (err < 0) {
		prov_remove_tree_at(AT_FDCWD, tmp);
		unlink(itmp);
	}
	free(real);
	free(index);
	free(itmp);
	free(dir);
	free(tmp);
	free(done);
	return err;
}

/* Read the tree lazily from now on: placeholders are filled in from these
 * layers (or this squashfs) when opened through prov_root_open. */
static void attach_source(struct prov_image *img, const char *cache_dir, const char *key, char **layers,
			  size_t n, const struct fill *sq)
{
	struct prov_image_source *src = prov_xcalloc(1, sizeof(*src));
	size_t i;

	src->root = realpath(img->root, NULL);
	src->index = prov_cachedir_pathf(cache_dir, PROV_CACHEDIR_IMAGES, "%s/lazy", key);
	img->done = prov_cachedir_pathf(cache_dir, PROV_CACHEDIR_IMAGES, "%s/complete", key);
	if (layers) {
		src->layers = prov_xcalloc(n + 1, sizeof(*src->layers));
		for (i = 0; i < n; i++)
			src->layers[i] = prov_xstrdup(layers[i]);
		src->n = n;
	} else {
		src->file = prov_xstrdup(sq->file);
		src->off = sq->off;
		src->size = sq->size;
	}
	img->src = src;
	if (!src->root) {
		prov_warn("the image's tree '%s' cannot be named: its files left out cannot be read", img->root);
		src->root = prov_xstrdup(img->root);
	}
	prov_image_lazy_attach(src);
}

static int unpack_layers(const char *cache_dir, const char *key, char **layers, size_t n, const char *root)
{
	struct fill f = { .layers = layers, .n = n };

	return unpack_tree(cache_dir, key, &f, root);
}

static const char *host_arch(void)
{
	struct utsname u;
	static char arch[65];

	if (uname(&u) < 0)
		return "";
	if (!strcmp(u.machine, "x86_64"))
		return "amd64";
	if (!strcmp(u.machine, "aarch64"))
		return "arm64";
	snprintf(arch, sizeof(arch), "%s", u.machine);
	return arch;
}

/* The manifest of an OCI layout: by its ref.name when a tag is named, the
 * only one otherwise; an index inside is followed to this host's platform. */
static const struct prov_jv *pick_manifest(const struct prov_jv *index, const char *tag, const char *dir)
{
	const struct prov_jv *ms = prov_jv_get(index, "manifests"), *hit = NULL;
	size_t i, n = ms && ms->type == PROV_JV_ARRAY ? ms->n : 0;

	for (i = 0; i < n; i++) {
		const struct prov_jv *m = &ms->items[i];
		const char *name = prov_jv_get_str(prov_jv_get(m, "annotations"), "org.opencontainers.image.ref.name");
		const char *arch = prov_jv_get_str(prov_jv_get(m, "platform"), "architecture");

		if (tag ? (name && !strcmp(name, tag)) : (n == 1 || (arch && !strcmp(arch, host_arch())))) {
			hit = m;
			break;
		}
	}
	if (!hit) {
		if (tag)
			prov_error_set(PROV_EINPUT, "oci:%s has no image tagged '%s'", dir, tag);
		else
			prov_error_set(PROV_EINPUT, "oci:%s holds %zu images: name one with oci:%s:TAG", dir, n, dir);
	}
	return hit;
}

/* Each blob is what its name says: the manifest (hex, at mpath) and the
 * layers (their file names are their digests), before any is trusted. */
static int verify_blobs(const char *mhex, const char *mpath, char **layers, size_t n)
{
	uint64_t size;
	char hex[65];
	size_t i;

	if (prov_sha256_file(hex, &size, mpath) < 0 || strcmp(hex, mhex))
		return prov_error_set(PROV_EINPUT, "the image manifest does not match its digest sha256:%.12s...: "
				      "the image was changed or damaged", mhex);
	for (i = 0; i < n; i++) {
		const char *want = strrchr(layers[i], '/') + 1;

		if (prov_sha256_file(hex, &size, layers[i]) < 0)
			return prov_error_set(PROV_EINPUT, "layer %zu of %zu (sha256:%.12s...) cannot be read: %s",
					      i + 1, n, want, prov_error_last());
		if (strcmp(hex, want))
			return prov_error_set(PROV_EINPUT, "layer %zu of %zu does not match its digest "
					      "sha256:%.12s... (its content is sha256:%.12s...): the image was "
					      "changed or damaged", i + 1, n, want, hex);
	}
	return 0;
}

static int open_oci(struct prov_image *img, const char *dir, const char *tag, const char *cache_dir, const char *kind)
{
	struct prov_jv *index = NULL, *man = NULL, *sub = NULL;
	const struct prov_jv *m, *layers;
	char *path = NULL, **files = NULL, key[80];
	const char *hex, *media;
	size_t i, n = 0;
	int err = 0, depth;

	path = prov_xasprintf("%s/index.json", dir);
	if ((err = read_json(&index, path, "the OCI layout's index.json")) < 0)
		goto cleanup;
	m = pick_manifest(index, tag, dir);
	for (depth = 0; m; depth++) {
		if (!(hex = digest_hex(prov_jv_get_str(m, "digest")))) {
			err = prov_error_set(PROV_EINPUT, "the OCI layout %s names a digest that is not sha256:<hex>", dir);
			goto cleanup;
		}
		free(path);
		path = prov_xasprintf("%s/blobs/sha256/%s", dir, hex);
		prov_jv_free(man);
		man = NULL;
		if ((err = read_json(&man, path, "the image manifest")) < 0)
			goto cleanup;
		free(img->digest);
		img->digest = prov_xasprintf("sha256:%s", hex);
		media = prov_jv_get_str(man, "mediaType");
		if (!prov_jv_get(man, "manifests") || depth > 2)
			break;
		(void)media;
		prov_jv_free(sub);
		sub = man;
		man = NULL;
		m = pick_manifest(sub, NULL, dir);
	}
	if (!m || !man) {
		err = PROV_EINPUT;
		goto cleanup;
	}
	layers = prov_jv_get(man, "layers");
	if (!layers || layers->type != PROV_JV_ARRAY) {
		err = prov_error_set(PROV_EINPUT, "the image manifest %s has no layers", img->digest);
		goto cleanup;
	}
	files = prov_xcalloc(layers->n + 1, sizeof(*files));
	for (i = 0; i < layers->n; i++) {
		if (!(hex = digest_hex(prov_jv_get_str(&layers->items[i], "digest")))) {
			err = prov_error_set(PROV_EINPUT, "layer %zu's digest is not sha256:<hex>", i + 1);
			goto cleanup;
		}
		files[n++] = prov_xasprintf("%s/blobs/sha256/%s", dir, hex);
	}
	img->kind = kind;
	img->ref = prov_xstrdup_or_null(tag);
	snprintf(key, sizeof(key), "%s", img->digest + 7);
	if ((err = hold(img, cache_dir, key, 1)) < 0)
		goto cleanup;
	if (!cached_root(img, cache_dir, key) && (err = verify_blobs(img->digest + 7, path, files, n)) == 0) {
		img->fresh = 1;
		err = unpack_layers(cache_dir, key, files, n, img->root);
	}
	if (err == 0)
		attach_source(img, cache_dir, key, files, n, NULL);
cleanup:
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	free(path);
	prov_jv_free(index);
	prov_jv_free(man);
	prov_jv_free(sub);
	return err;
}

/* A docker archive's layers are what its config says: each layer file's
 * uncompressed stream has the sha256 its rootfs.diff_ids names, in order,
 * before any is trusted. */
static int verify_diff_ids(const char *cfg_path, char **layers, size_t n)
{
	struct prov_image_budget b;
	struct prov_jv *cfg = NULL;
	const struct prov_jv *ids;
	char hex[65], *what = NULL;
	const char *want;
	size_t i;
	int err;

	if ((err = read_json(&cfg, cfg_path, "the docker archive's config")) < 0)
		return err;
	ids = prov_jv_get(prov_jv_get(cfg, "rootfs"), "diff_ids");
	if (!ids || ids->type != PROV_JV_ARRAY || ids->n != n) {
		err = prov_error_set(PROV_EINPUT, "the docker archive's config lists %zu layer digests "
				     "(rootfs.diff_ids) for its %zu layers", ids && ids->type == PROV_JV_ARRAY ? ids->n : 0, n);
		goto cleanup;
	}
	prov_image_budget_init(&b);
	for (i = 0; i < n; i++) {
		if (!(want = digest_hex(prov_jv_str(&ids->items[i])))) {
			err = prov_error_set(PROV_EINPUT, "the docker archive's config: layer %zu's diff_id is "
					     "not sha256:<hex>", i + 1);
			goto cleanup;
		}
		free(what);
		what = prov_xasprintf("layer %zu of %zu", i + 1, n);
		if ((err = prov_image_layer_diff_id(hex, layers[i], what, &b)) < 0)
			goto cleanup;
		if (strcmp(hex, want)) {
			err = prov_error_set(PROV_EINPUT, "layer %zu of %zu does not match the config's diff_id "
					     "sha256:%.12s... (its content is sha256:%.12s...): the image was changed "
					     "or damaged", i + 1, n, want, hex);
			goto cleanup;
		}
	}
cleanup:
	free(what);
	prov_jv_free(cfg);
	return err;
}

/* docker save / podman save: manifest.json names the config and the layer files. */
static int open_docker(struct prov_image *img, const char *dir, const char *tag, const char *cache_dir)
{
	struct prov_jv *mf = NULL;
	uint64_t fsize;
	const struct prov_jv *hit = NULL, *layers;
	char *path = prov_xasprintf("%s/manifest.json", dir), **files = NULL, hex[65];
	const char *cfg;
	size_t i, j, n = 0;
	int err;

	if ((err = read_json(&mf, path, "the docker archive's manifest.json")) < 0)
		goto cleanup;
	for (i = 0; mf->type == PROV_JV_ARRAY && i < mf->n && !hit; i++) {
		const struct prov_jv *tags = prov_jv_get(&mf->items[i], "RepoTags");
		if (!tag)
			hit = mf->n == 1 ? &mf->items[i] : NULL;
		for (j = 0; tag && tags && tags->type == PROV_JV_ARRAY && j < tags->n; j++)
			if (prov_jv_str(&tags->items[j]) && !strcmp(prov_jv_str(&tags->items[j]), tag))
				hit = &mf->items[i];
	}
	if (!hit) {
		err = prov_error_set(PROV_EINPUT, tag ? "the docker archive has no image tagged '%s'"
					     : "the docker archive does not hold exactly one image%s: name one with :TAG",
				     tag ? tag : "");
		goto cleanup;
	}
	cfg = prov_jv_get_str(hit, "Config");
	layers = prov_jv_get(hit, "Layers");
	if (!cfg || strstr(cfg, "..") || *cfg == '/' || !layers || layers->type != PROV_JV_ARRAY) {
		err = prov_error_set(PROV_EINPUT, "the docker archive's manifest.json names no config or layers");
		goto cleanup;
	}
	free(path);
	path = prov_xasprintf("%s/%s", dir, cfg);
	if (prov_sha256_file(hex, &fsize, path) < 0) {
		err = prov_error_set(PROV_EINPUT, "the docker archive's config '%s' cannot be read", cfg);
		goto cleanup;
	}
	files = prov_xcalloc(layers->n + 1, sizeof(*files));
	for (i = 0; i < layers->n; i++) {
		const char *l = prov_jv_str(&layers->items[i]);
		if (!l || strstr(l, "..") || *l == '/') {
			err = prov_error_set(PROV_EINPUT, "the docker archive names a layer outside itself");
			goto cleanup;
		}
		files[n++] = prov_xasprintf("%s/%s", dir, l);
	}
	img->kind = "docker-archive";
	img->digest = prov_xasprintf("sha256:%s", hex);
	img->ref = prov_xstrdup_or_null(tag);
	if ((err = hold(img, cache_dir, hex, 1)) < 0)
		goto cleanup;
	if (!cached_root(img, cache_dir, hex) && (err = verify_diff_ids(path, files, n)) == 0) {
		img->fresh = 1;
		err = unpack_layers(cache_dir, hex, files, n, img->root);
	}
	if (err == 0)
		attach_source(img, cache_dir, hex, files, n, NULL);
cleanup:
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	free(path);
	prov_jv_free(mf);
	return err;
}

/* An archive (oci-archive, docker-archive): its own files unpacked once
 * into <images>/archive-<sha256 of the file>/, then read as a layout. */
static int open_archive(struct prov_image *img, const char *file, const char *tag, const char *cache_dir,
			const char *want)
{
	struct prov_image_budget b;
	uint64_t fsize;
	char hex[65], *dir = NULL, *tmp = NULL, *probe = NULL;
	struct stat st;
	int err = 0, fd = -1, tries;

	if (prov_sha256_file(hex, &fsize, file) < 0)
		return prov_error_set(PROV_EINPUT, "image '%s' cannot be read: %s", file, prov_error_last());
	dir = prov_cachedir_pathf(cache_dir, PROV_CACHEDIR_IMAGES, "archive-%s", hex);
	probe = prov_xasprintf("archive-%s", hex);
	tmp = prov_xasprintf("%s.tmp-%ld", dir, (long)getpid());
	/* the folder appears whole (a rename); it is held, then, against eviction */
	for (tries = 0; (err = stat(dir, &st) < 0 ? 1 : hold(img, cache_dir, probe, 0)) != 0; tries++) {
		if (err < 0 || tries > 3) {
			if (err > 0)
				err = prov_error_set(PROV_ERROR, "the archive's folder '%s' in the cache was removed "
						     "while being opened", dir);
			goto cleanup;
		}
		if (stat(dir, &st) == 0)
			continue;
		img->fresh = 1;
		err = 0;
		prov_image_budget_init(&b);
		if ((err = prov_mkdir_p(tmp, 0755, 0)) < 0)
			goto cleanup;
		if ((fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
		    (err = prov_image_unpack_outer(fd, file, &b)) < 0 || rename(tmp, dir) < 0) {
			if (err == 0)
				err = prov_error_set(PROV_ERROR, "cannot unpack '%s': %s", file, prov_strerror(errno));
			prov_remove_tree_at(AT_FDCWD, tmp);
			goto cleanup;
		}
		close(fd);
		fd = -1;
	}
	free(probe);
	probe = prov_xasprintf("%s/index.json", dir);
	if (stat(probe, &st) == 0 && (!want || !strcmp(want, "oci-archive"))) {
		err = open_oci(img, dir, tag, cache_dir, "oci-archive");
		goto cleanup;
	}
	free(probe);
	probe = prov_xasprintf("%s/manifest.json", dir);
	if (stat(probe, &st) == 0 && (!want || !strcmp(want, "docker-archive"))) {
		err = open_docker(img, dir, tag, cache_dir);
		goto cleanup;
	}
	err = prov_error_set(PROV_EINPUT, "'%s' is %s", file, want ? (strcmp(want, "oci-archive") ?
			     "not a docker archive (no manifest.json)" : "not an OCI archive (no index.json)")
			     : "not an image this version reads (a tar without index.json or manifest.json)");
cleanup:
	if (fd >= 0)
		close(fd);
	free(dir);
	free(tmp);
	free(probe);
	return err;
}

/* Up to `want` bytes from the start of `file`; how many, or -1 (errno set). */
static ssize_t read_head(const char *file, unsigned char *buf, size_t want)
{
	size_t have = 0;
	ssize_t got;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (have < want && ((got = read(fd, buf + have, want - have)) > 0 || (got < 0 && errno == EINTR)))
		if (got > 0)
			have += (size_t)got;
	close(fd);
	return (ssize_t)have;
}

/* A squashfs file (enroot .sqsh), or a SIF image's root partition:
 * unpacked once into <images>/<sha256 of the file>/rootfs. */
static int open_squashfs(struct prov_image *img, const char *file, const char *cache_dir, const char *kind)
{
	struct fill f = { .file = file };
	struct prov_sif_part part;
	unsigned char *head = NULL;
	uint64_t fsize;
	char hex[65];
	ssize_t got;
	int err = 0;

	if (prov_sha256_file(hex, &fsize, file) < 0)
		return prov_error_set(PROV_EINPUT, "image '%s' cannot be read: %s", file, prov_error_last());
	f.size = fsize;
	if (!strcmp(kind, "sif")) {
		size_t want = fsize < PROV_SIF_HEAD_MAX ? (size_t)fsize : PROV_SIF_HEAD_MAX;

		head = prov_xmalloc(want ? want : 1);
		if ((got = read_head(file, head, want)) < 0)
			err = prov_error_set(PROV_EINPUT, "image '%s' cannot be read: %s", file,
					     prov_strerror(errno));
		else if ((err = prov_sif_find_rootfs(head, (size_t)got, fsize, &part)) < 0)
			err = prov_error_set(PROV_EINPUT, "'%s': %s", file, prov_error_last());
		free(head);
		if (err < 0)
			return err;
		f.off = part.offset;
		f.size = part.size;
	}
	img->kind = kind;
	img->digest = prov_xasprintf("sha256:%s", hex);
	if ((err = hold(img, cache_dir, hex, 1)) < 0)
		return err;
	if (!cached_root(img, cache_dir, hex)) {
		img->fresh = 1;
		err = unpack_tree(cache_dir, hex, &f, img->root);
	}
	if (err == 0)
		attach_source(img, cache_dir, hex, NULL, 0, &f);
	return err;
}

/* "PATH:TAG" -> PATH and TAG when what follows the last ':' has no '/'. */
static char *split_tag(const char *s, char **tag)
{
	const char *c = strrchr(s, ':');

	*tag = NULL;
	if (!c || strchr(c, '/') || !c[1])
		return prov_xstrdup(s);
	*tag = prov_xstrdup(c + 1);
	return prov_xstrndup(s, (size_t)(c - s));
}

/* "squashfs" or "sif" when the file's first bytes say so, else NULL. */
static const char *sniff(const char *file)
{
	unsigned char head[64];
	ssize_t got = read_head(file, head, sizeof(head));

	if (got >= 4 && !memcmp(head, "hsqs", 4))
		return "squashfs";
	if (got > 0 && prov_sif_is(head, (size_t)got))
		return "sif";
	return NULL;
}

static int is_prefixed(const char *spec)
{
	static const char *const prefixes[] = { "oci:", "oci-archive:", "docker-archive:", "squashfs:", "sif:" };
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (prov_starts_with(spec, prefixes[i]))
			return 1;
	return 0;
}

/* After a run unpacked something: the cache back within cache.maxSize, or one warning. */
static void keep_budget(const char *cache_dir, uint64_t max_cache)
{
	struct prov_image_prune p;

	if (prov_image_cache_prune(&p, cache_dir, max_cache) < 0)
		prov_warn("%s", prov_error_last());
	else if (p.total > max_cache)
		prov_warn("the cache (%llu bytes) is over cache.maxSize (%llu bytes) after evicting %u unpacked "
			  "images: %u others are in use, and only images are evicted", (unsigned long long)p.total,
			  (unsigned long long)max_cache, p.evicted, p.busy);
}

int prov_image_open(struct prov_image *img, const char *spec, const char *cache_dir, uint64_t max_cache)
{
	const char *rest, *kind;
	char *path = NULL, *tag = NULL;
	struct stat st;
	int err = 0;

	memset(img, 0, sizeof(*img));
	if (!is_prefixed(spec) && stat(spec, &st) == 0 && S_ISDIR(st.st_mode)) {
		img->kind = "dir";
		img->root = prov_xstrdup(spec);
		return 0;
	}
	if (!cache_dir)
		return prov_error_set(PROV_EINPUT, "sysroot '%s' is not a directory (an image needs the cache "
				      "directory, to unpack it in)", spec);
	if ((rest = prov_skip_prefix(spec, "oci:"))) {
		path = split_tag(rest, &tag);
		if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
			err = prov_error_set(PROV_EINPUT, "oci:%s: not a directory", path);
		else
			err = open_oci(img, path, tag, cache_dir, "oci");
	} else if ((rest = prov_skip_prefix(spec, "oci-archive:")) || (rest = prov_skip_prefix(spec, "docker-archive:"))) {
		const char *want = prov_starts_with(spec, "oci-archive:") ? "oci-archive" : "docker-archive";
		path = stat(rest, &st) == 0 ? prov_xstrdup(rest) : split_tag(rest, &tag);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			err = prov_error_set(PROV_EINPUT, "%s:%s: not a file", want, path);
		else
			err = open_archive(img, path, tag, cache_dir, want);
	} else if ((rest = prov_skip_prefix(spec, "squashfs:")) || (rest = prov_skip_prefix(spec, "sif:"))) {
		const char *want = prov_starts_with(spec, "sif:") ? "sif" : "squashfs";
		if (stat(rest, &st) < 0 || !S_ISREG(st.st_mode))
			err = prov_error_set(PROV_EINPUT, "%s:%s: not a file", want, rest);
		else if (!(kind = sniff(rest)) || strcmp(kind, want))
			err = prov_error_set(PROV_EINPUT, "%s:%s: not a %s image (%s)", want, rest,
					     want, !strcmp(want, "sif") ? "no SIF_MAGIC" : "no hsqs magic");
		else
			err = open_squashfs(img, rest, cache_dir, want);
	} else if (stat(spec, &st) < 0 || !S_ISREG(st.st_mode)) {
		err = prov_error_set(PROV_EINPUT, "sysroot '%s' is not a directory nor an image file", spec);
	} else if ((kind = sniff(spec))) {
		err = open_squashfs(img, spec, cache_dir, kind);
	} else {
		err = open_archive(img, spec, NULL, cache_dir, NULL);
	}
	free(path);
	free(tag);
	if (err < 0)
		prov_image_release(img);
	else if (img->fresh && max_cache)
		keep_budget(cache_dir, max_cache);
	return err;
}
