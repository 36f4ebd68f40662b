#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resolver.h"
#include "cache.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * rpm 4.16+: rpmdb.sqlite, table Packages(hnum, blob). The blobs are parsed
 * here (rpm's format.md): be32 entry count, be32 data length, 16-byte
 * big-endian entries {tag, type, offset, count}, then the data store.
 */

enum {
	TAG_NAME = 1000, TAG_VERSION = 1001, TAG_RELEASE = 1002, TAG_EPOCH = 1003,
	TAG_URL = 1020, TAG_ARCH = 1022, TAG_SOURCERPM = 1044, TAG_VCS = 5034, TAG_DIRINDEXES = 1116,
	TAG_BASENAMES = 1117, TAG_DIRNAMES = 1118,
};
enum { T_INT32 = 4, T_STRING = 6, T_STRING_ARRAY = 8, T_I18NSTRING = 9 };

static const char *const dbpaths[] = {
	"/var/lib/rpm/rpmdb.sqlite",
	"/usr/lib/sysimage/rpm/rpmdb.sqlite",
	NULL
};

static uint32_t be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

struct hdr {
	const unsigned char *ents, *data;
	uint32_t il, dl;
};

static const unsigned char *find_entry(const struct hdr *h, uint32_t tag)
{
	uint32_t i;

	for (i = 0; i < h->il; i++)
		if (be32(h->ents + (size_t)i * 16) == tag)
			return h->ents + (size_t)i * 16;
	return NULL;
}

/* Up to `want` NUL-terminated strings starting at the entry's offset; each checked. */
static int get_strings(char ***out, uint32_t *nout, const struct hdr *h, uint32_t tag, uint32_t max)
{
	const unsigned char *e = find_entry(h, tag);
	uint32_t type, off, count, i;
	size_t pos;
	char **v;

	*out = NULL;
	*nout = 0;
	if (!e)
		return PROV_ENOTFOUND;
	type = be32(e + 4);
	off = be32(e + 8);
	count = be32(e + 12);
	if (type != T_STRING && type != T_STRING_ARRAY && type != T_I18NSTRING)
		return prov_error_set(PROV_EINPUT, "rpm header: tag %u has type %u, expected a string", tag, type);
	if (type == T_STRING)
		count = 1;
	if (count > max)
		return prov_error_set(PROV_ELIMIT, "rpm header: tag %u has %u strings", tag, count);
	if (off >= h->dl)
		return prov_error_set(PROV_EINPUT, "rpm header: tag %u offset %u past the data (%u bytes)",
				      tag, off, h->dl);
	if (type == T_I18NSTRING)
		count = count ? 1 : 0;
	v = prov_xcalloc((size_t)count + 1, sizeof(*v));
	pos = off;
	for (i = 0; i < count; i++) {
		const unsigned char *nul;

		if (pos >= h->dl) {
			goto bad;
		}
		nul = memchr(h->data + pos, 0, h->dl - pos);
		if (!nul)
			goto bad;
		v[i] = prov_xstrndup((const char *)h->data + pos, (size_t)(nul - (h->data + pos)));
		pos = (size_t)(nul - h->data) + 1;
	}
	*out = v;
	*nout = count;
	return 0;
bad:
	for (i = 0; i < count; i++)
		free(v[i]);
	free(v);
	return prov_error_set(PROV_EINPUT, "rpm header: tag %u runs past the data", tag);
}

static char *get_string(const struct hdr *h, uint32_t tag)
{
	char **v = NULL;
	uint32_t n = 0;
	char *s;

	if (get_strings(&v, &n, h, tag, 1) < 0)
		return NULL;
	if (n < 1) {
		free(v);
		return NULL;
	}
	s = v[0];
	free(v);
	return s;
}

static int get_int32s(uint32_t **out, uint32_t *nout, const struct hdr *h, uint32_t tag, uint32_t max)
{
	const unsigned char *e = find_entry(h, tag);
	uint32_t type, off, count, i;
	uint32_t *v;

	*out = NULL;
	*nout = 0;
	if (!e)
		return PROV_ENOTFOUND;
	type = be32(e + 4);
	off = be32(e + 8);
	count = be32(e + 12);
	if (type != T_INT32)
		return prov_error_set(PROV_EINPUT, "rpm header: tag %u has type %u, expected int32", tag, type);
	if (count > max)
		return prov_error_set(PROV_ELIMIT, "rpm header: tag %u has %u values", tag, count);
	if ((uint64_t)off + (uint64_t)count * 4 > h->dl)
		return prov_error_set(PROV_EINPUT, "rpm header: tag %u runs past the data", tag);
	v = prov_xcalloc((size_t)count + 1, sizeof(*v));
	for (i = 0; i < count; i++)
		v[i] = be32(h->data + off + (size_t)i * 4);
	*out = v;
	*nout = count;
	return 0;
}

static void free_strv(char **v, uint32_t n)
{
	uint32_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void prov_rpm_header_release(struct prov_rpm_header *h)
{
	size_t i;

	if (!h)
		return;
	free(h->name);
	free(h->version);
	free(h->release);
	free(h->arch);
	free(h->sourcerpm);
	free(h->url);
	free(h->vcs);
	for (i = 0; i < h->nfiles; i++)
		free(h->files[i]);
	free(h->files);
	memset(h, 0, sizeof(*h));
}

int prov_rpm_header_parse(struct prov_rpm_header *out, const unsigned char *blob, size_t len)
{
	struct prov_rpm_header r;
	struct hdr h;
	char **base = NULL, **dirs = NULL;
	uint32_t *idx = NULL, nbase = 0, ndirs = 0, nidx = 0, *ep = NULL, nep = 0, i;
	int err;

	memset(&r, 0, sizeof(r));
	if (len < 8)
		return prov_error_set(PROV_EINPUT, "rpm header: %zu bytes, too short", len);
	h.il = be32(blob);
	h.dl = be32(blob + 4);
	if (h.il == 0 || h.il > PROV_RPM_MAX_ENTRIES)
		return prov_error_set(h.il ? PROV_ELIMIT : PROV_EINPUT, "rpm header: %u entries", h.il);
	if (8 + (uint64_t)h.il * 16 + (uint64_t)h.dl > len)
		return prov_error_set(PROV_EINPUT, "rpm header: %u entries and %u data bytes do not fit in %zu bytes",
				      h.il, h.dl, len);
	h.ents = blob + 8;
	h.data = blob + 8 + (size_t)h.il * 16;

	r.name = get_string(&h, TAG_NAME);
	if (!r.name) {
		err = prov_error_set(PROV_EINPUT, "rpm header: no readable name");
		goto cleanup;
	}
	r.version = get_string(&h, TAG_VERSION);
	r.release = get_string(&h, TAG_RELEASE);
	r.arch = get_string(&h, TAG_ARCH);
	r.sourcerpm = get_string(&h, TAG_SOURCERPM);
	r.url = get_string(&h, TAG_URL);
	r.vcs = get_string(&h, TAG_VCS);
	if (get_int32s(&ep, &nep, &h, TAG_EPOCH, 1) == 0 && nep == 1) {
		r.has_epoch = 1;
		r.epoch = ep[0];
	}
	err = get_strings(&base, &nbase, &h, TAG_BASENAMES, PROV_RPM_MAX_FILES);
	if (err == PROV_ENOTFOUND) {
		err = 0;
		goto done;
	}
	if (err < 0)
		goto cleanup;
	if ((err = get_strings(&dirs, &ndirs, &h, TAG_DIRNAMES, PROV_RPM_MAX_FILES)) < 0 ||
	    (err = get_int32s(&idx, &nidx, &h, TAG_DIRINDEXES, PROV_RPM_MAX_FILES)) < 0) {
		if (err == PROV_ENOTFOUND)
			err = prov_error_set(PROV_EINPUT, "rpm header: basenames without dirnames");
		goto cleanup;
	}
	if (nidx != nbase) {
		err = prov_error_set(PROV_EINPUT, "rpm header: %u basenames but %u dirindexes", nbase, nidx);
		goto cleanup;
	}
	r.files = prov_xcalloc((size_t)nbase + 1, sizeof(*r.files));
	for (i = 0; i < nbase; i++) {
		if (idx[i] >= ndirs) {
			err = prov_error_set(PROV_EINPUT, "rpm header: dirindex %u past %u dirnames", idx[i], ndirs);
			goto cleanup;
		}
		r.files[r.nfiles++] = prov_xasprintf("%s%s", dirs[idx[i]], base[i]);
	}
done:
	*out = r;
	memset(&r, 0, sizeof(r));
	err = 0;
cleanup:
	prov_rpm_header_release(&r);
	free_strv(base, nbase);
	free_strv(dirs, ndirs);
	free(idx);
	free(ep);
	return err;
}

struct rpm {
	struct prov_resolver base;
	const char *db;
	int merged;
	int opened;
	struct prov_pkgindex *ix;
};

struct build_state {
	struct prov_pkgindex *ix;
	struct rpm *r;
	size_t nbad;
};

static int add_blob(const unsigned char *blob, size_t len, void *data)
{
	struct build_state *bs = data;
	struct prov_rpm_header h;
	struct prov_origin o;
	char *vr = NULL, *ver = NULL, *src = NULL;
	size_t pkg, i;

	if (prov_rpm_header_parse(&h, blob, len) < 0) {
		if (bs->nbad++ < 5)
			prov_warn("rpm: '%s': bad package header skipped: %s", bs->r->db, prov_error_last());
		return 0;
	}
	if (strcmp(h.name, "gpg-pubkey") == 0)
		goto cleanup;
	vr = prov_xasprintf("%s-%s", h.version ? h.version : "", h.release ? h.release : "");
	ver = h.has_epoch ? prov_xasprintf("%u:%s", h.epoch, vr) : prov_xstrdup(vr);
	if (h.sourcerpm) {
		/* name-version-release.src.rpm: drop the last two '-' parts */
		char *d1 = strrchr(h.sourcerpm, '-'), *d2;

		if (d1) {
			*d1 = 0;
			d2 = strrchr(h.sourcerpm, '-');
			if (d2)
				*d2 = 0;
			src = prov_xstrdup(h.sourcerpm);
		}
	}
	memset(&o, 0, sizeof(o));
	o.kind = (char *)"rpm";
	o.name = h.name;
	o.version = ver;
	o.arch = h.arch;
	o.source = src;
	o.source_version = src ? vr : NULL;
	o.evidence = (char *)bs->r->db;
	/* VCS (rpm >= 4.14), else URL, when it names a repository: upstream.c
	 * derives the component's repository from it (derived:rpm-url) */
	o.vcs_url = h.vcs ? prov_repo_url_from(h.vcs, strlen(h.vcs)) : NULL;
	if (!o.vcs_url && h.url)
		o.vcs_url = prov_repo_url_from(h.url, strlen(h.url));
	pkg = prov_pkgindex_add_pkg(bs->ix, &o, 0);
	free(o.vcs_url);
	for (i = 0; i < h.nfiles; i++) {
		char *key = prov_pkgpath_canon(h.files[i], bs->r->merged);

		prov_pkgindex_add_file(bs->ix, pkg, key);
		if (prov_is_shlib_path(key))
			prov_pkgindex_set_shlib(bs->ix, pkg);
		free(key);
	}
cleanup:
	free(vr);
	free(ver);
	free(src);
	prov_rpm_header_release(&h);
	return 0;
}

static int build(struct prov_pkgindex *ix, void *data)
{
	struct rpm *r = data;
	struct build_state bs = { ix, r, 0 };
	int fd, err;

	fd = prov_root_open(r->base.ctx->sysroot, r->db, O_RDONLY);
	if (fd < 0)
		return prov_error_set(PROV_EINPUT, "cannot open '%s': %s", r->db, prov_strerror(errno));
	err = prov_cache_sqlite_blobs(fd, r->db, "Packages", "blob", add_blob, &bs);
	close(fd);
	if (bs.nbad > 5)
		prov_warn("rpm: '%s': %zu bad package headers skipped", r->db, bs.nbad);
	return err;
}

static int rpm_init(struct prov_resolver **out, const struct prov_resolve_ctx *ctx)
{
	struct rpm *r;
	size_t i;

	for (i = 0; dbpaths[i]; i++) {
		int fd = prov_root_open(ctx->sysroot, dbpaths[i], O_RDONLY);

		if (fd >= 0) {
			close(fd);
			break;
		}
	}
	if (!dbpaths[i])
		return PROV_EPASSTHROUGH;
	r = prov_xcalloc(1, sizeof(*r));
	r->base.ctx = ctx;
	r->db = dbpaths[i];
	r->merged = prov_root_merged_usr(ctx->sysroot);
	*out = &r->base;
	return 0;
}

static int rpm_open(struct rpm *r)
{
	char *id;
	int err;

	if (r->opened)
		return r->ix ? 0 : PROV_EPASSTHROUGH;
	r->opened = 1;
	id = prov_root_identity(r->base.ctx->sysroot, r->db);
	{
		/* ";u": the index carries the URL/VCS tags (older caches do not) */
		char *identity = id ? prov_xasprintf("%s;%d;u", id, r->merged) : NULL;

		err = prov_pkgindex_open(&r->ix, r->base.ctx, "rpm", r->db, identity, build, r);
		free(identity);
	}
	free(id);
	if (err < 0) {
		prov_warn("rpm: %s", prov_error_last());
		return PROV_EPASSTHROUGH;
	}
	return 0;
}

static int rpm_resolve(struct prov_origin *out, struct prov_resolver *res,
		       const struct prov_module *mod)
{
	struct rpm *r = (struct rpm *)res;
	struct prov_origin *o = NULL;
	char *key, *real, *rkey;
	int err;

	if ((err = rpm_open(r)) < 0)
		return err;
	key = prov_pkgpath_canon(mod->path, r->merged);
	err = prov_pkgindex_lookup(&o, r->ix, key, NULL);
	if (err == PROV_ENOTFOUND) {
		real = prov_root_realpath(res->ctx->sysroot, mod->path);
		rkey = prov_pkgpath_canon(real, r->merged);
		if (strcmp(rkey, key) != 0)
			err = prov_pkgindex_lookup(&o, r->ix, rkey, NULL);
		free(real);
		free(rkey);
	}
	free(key);
	if (err < 0)
		return err;
	*out = *o;
	free(o);
	return 0;
}

static int rpm_inventory(struct prov_resolver *res, struct prov_origin_list *l)
{
	struct rpm *r = (struct rpm *)res;
	int err;

	if ((err = rpm_open(r)) < 0)
		return err;
	return prov_pkgindex_packages(r->ix, 1, l);
}

static void rpm_free(struct prov_resolver *res)
{
	struct rpm *r = (struct rpm *)res;

	if (!r)
		return;
	prov_pkgindex_free(r->ix);
	free(r);
}

const struct prov_resolver_ops prov_resolver_rpm = {
	.version = PROV_RESOLVER_VERSION,
	.name = "rpm",
	.init = rpm_init,
	.resolve = rpm_resolve,
	.inventory = rpm_inventory,
	.free = rpm_free,
};
