/* The rpm resolver: a module listed by an installed rpm package (rpmdb.sqlite). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resolver.h"
#include "kit-python.h"
#include "kit-index.h"
#include "kit-root.h"
#include "kit-rpm-header.h"
#include "kit-upstream.h"
#include "cache.h"
#include "error.h"
#include "util.h"
#include "banned.h"

static const char *const dbpaths[] = {
	"/var/lib/rpm/rpmdb.sqlite",
	"/usr/lib/sysimage/rpm/rpmdb.sqlite",
	NULL
};

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
	/* VCS (rpm >= 4.14), else URL, when it names a repository: rpm_annotate
	 * derives the component's repository from it (derived:rpm-url) */
	o.vcs_url = h.vcs ? prov_url_strip_userinfo(prov_repo_url_from(h.vcs, strlen(h.vcs))) : NULL;
	if (!o.vcs_url && h.url)
		o.vcs_url = prov_url_strip_userinfo(prov_repo_url_from(h.url, strlen(h.url)));
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

/* The commit a Python package embeds; the repository the header's VCS / URL tag names. */
static void rpm_annotate(struct prov_resolver *res, struct prov_origin *o, const struct prov_module *mod,
			  const struct prov_resolve_peers *peers)
{
	(void)peers;
	if (mod)
		prov_py_commit_of(o, res->ctx->sysroot, mod->path);
	prov_upstream_from_vcs(o, "derived:rpm-url");
}

const struct prov_resolver_ops prov_resolver_rpm = {
	.version = PROV_RESOLVER_VERSION,
	.name = "rpm",
	.init = rpm_init,
	.resolve = rpm_resolve,
	.inventory = rpm_inventory,
	.free = rpm_free,
	.annotate = rpm_annotate,
	.flags = PROV_RESOLVER_PACKAGE_DB,
};
