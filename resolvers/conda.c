/* The conda resolver: a module listed in a conda-meta record of the nearest conda prefix. */
#include <stdlib.h>
#include <string.h>

#include "resolver.h"
#include "kit-python.h"
#include "kit-upstream.h"
#include "kit-index.h"
#include "kit-root.h"
#include "jsonread.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * conda: <prefix>/conda-meta/ <name>-<version>-<build>.json (name, version,
 * build, channel, files[] relative to the prefix) in the conda prefix that is
 * an ancestor of the module (opt/conda, opt/conda/envs/<env>, ...).
 */

#define META_CAP (64 << 20)
#define MAX_PREFIXES 64

struct prefix {
	char *dir;
	struct prov_pkgindex *ix;
};

struct conda {
	struct prov_resolver base;
	struct prefix p[MAX_PREFIXES];
	size_t n;
	struct prov_dirmemo *memo;	/* directory -> nearest ancestor holding conda-meta/ */
};

static void add_meta(struct prov_pkgindex *ix, const char *root, const char *prefix,
		     const char *file)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_jv *v = NULL;
	const struct prov_jv *files;
	struct prov_origin o;
	char *path = prov_xasprintf("%s/conda-meta/%s", prefix, file);
	size_t pkg, i;
	int err;

	if ((err = prov_root_read(&b, root, path, META_CAP)) < 0) {
		/* ENOTFOUND sets no message: a dangling link, or one out of the root */
		if (err == PROV_ENOTFOUND)
			prov_warn("conda: cannot read '%s': no such file in the root", path);
		else
			prov_warn("conda: %s", prov_error_last());
		goto cleanup;
	}
	if (prov_jv_parse(&v, b.buf, b.len) < 0 || v->type != PROV_JV_OBJECT) {
		prov_warn("conda: '%s': %s", path, v ? "not an object" : prov_error_last());
		goto cleanup;
	}
	memset(&o, 0, sizeof(o));
	o.kind = (char *)"conda";
	o.name = (char *)prov_jv_get_str(v, "name");
	o.version = (char *)prov_jv_get_str(v, "version");
	o.arch = (char *)prov_jv_get_str(v, "subdir");
	o.evidence = path;
	if (!o.name || !*o.name) {
		prov_warn("conda: '%s': no package name", path);
		goto cleanup;
	}
	pkg = prov_pkgindex_add_pkg(ix, &o, 0);
	files = prov_jv_get(v, "files");
	if (files && files->type == PROV_JV_ARRAY) {
		for (i = 0; i < files->n; i++) {
			const char *f = prov_jv_str(&files->items[i]);
			char *full, *norm;

			if (!f || !*f || f[0] == '/')
				continue;
			full = prov_xasprintf("%s/%s", prefix, f);
			norm = prov_path_normalize(full);
			if (prov_starts_with(norm, prefix)) {
				prov_pkgindex_add_file(ix, pkg, norm);
				if (prov_is_shlib_path(norm))
					prov_pkgindex_set_shlib(ix, pkg);
			}
			free(norm);
			free(full);
		}
	}
cleanup:
	prov_jv_free(v);
	prov_buf_release(&b);
	free(path);
}

static int build(struct prov_pkgindex *ix, void *data)
{
	const char **args = data;
	char *meta = prov_xasprintf("%s/conda-meta", args[1]);
	char **names = NULL;
	size_t n = 0, i;

	if (prov_root_listdir(&names, &n, args[0], meta) < 0) {
		free(meta);
		return PROV_EPASSTHROUGH;
	}
	for (i = 0; i < n; i++)
		if (prov_ends_with(names[i], ".json"))
			add_meta(ix, args[0], args[1], names[i]);
	prov_strv_free(names, n);
	free(meta);
	return 0;
}

static struct prefix *open_prefix(struct conda *c, const char *dir)
{
	const char *args[2];
	struct prefix *p;
	char *meta, *id, *identity;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->p[i].dir, dir) == 0)
			return c->p[i].ix ? &c->p[i] : NULL;
	if (c->n >= MAX_PREFIXES)
		return NULL;
	p = &c->p[c->n++];
	p->dir = prov_xstrdup(dir);
	p->ix = NULL;
	meta = prov_xasprintf("%s/conda-meta", dir);
	id = prov_root_identity(c->base.ctx->sysroot, meta);
	free(meta);
	if (!id)
		return NULL;
	identity = prov_xasprintf("%s;1", id);
	args[0] = c->base.ctx->sysroot;
	args[1] = dir;
	if (prov_pkgindex_open(&p->ix, c->base.ctx, "conda", dir, identity, build, args) < 0)
		p->ix = NULL;
	free(id);
	free(identity);
	return p->ix ? p : NULL;
}

static int conda_init(struct prov_resolver **out, const struct prov_resolve_ctx *ctx)
{
	struct conda *c = prov_xcalloc(1, sizeof(*c));

	c->base.ctx = ctx;
	*out = &c->base;
	return 0;
}

static int has_conda_meta(const char *root, const char *dir, void *data)
{
	char *meta = prov_xasprintf("%s/conda-meta", dir);
	int is = prov_root_isdir(root, meta);

	free(meta);
	return is;
}

static int conda_resolve(struct prov_origin *out, struct prov_resolver *r,
			 const struct prov_module *mod)
{
	struct conda *c = (struct conda *)r;
	char *norm = prov_path_normalize(mod->path);
	char *anc;
	struct prov_origin *o = NULL;
	int err = PROV_EPASSTHROUGH;

	/* nearest ancestor holding conda-meta/, memoized per directory */
	anc = prov_nearest_ancestor(&c->memo, r->ctx->sysroot, norm, has_conda_meta, NULL);
	if (anc) {
		struct prefix *p = open_prefix(c, anc);

		if (p && (err = prov_pkgindex_lookup(&o, p->ix, norm, NULL)) == 0) {
			*out = *o;
			free(o);
		}
	}
	free(anc);
	free(norm);
	return err;
}

static int conda_inventory(struct prov_resolver *r, struct prov_origin_list *l)
{
	struct conda *c = (struct conda *)r;
	const char *root = r->ctx->sysroot;
	static const char *const parents[] = { "/opt", "/opt/conda/envs", "/", NULL };
	size_t i, j;
	int err = 0;

	for (i = 0; parents[i] && !err; i++) {
		char **names = NULL;
		size_t n = 0;

		if (prov_root_listdir(&names, &n, root, parents[i]) < 0)
			continue;
		for (j = 0; j < n && j < 1000 && !err; j++) {
			char *dir = strcmp(parents[i], "/") == 0 ? prov_xasprintf("/%s", names[j]) :
				    prov_xasprintf("%s/%s", parents[i], names[j]);
			char *meta = prov_xasprintf("%s/conda-meta", dir);

			if (prov_root_isdir(root, meta)) {
				struct prefix *p = open_prefix(c, dir);

				if (p)
					err = prov_pkgindex_packages(p->ix, 0, l);
			}
			free(meta);
			free(dir);
		}
		prov_strv_free(names, n);
	}
	return err;
}

static void conda_free(struct prov_resolver *r)
{
	struct conda *c = (struct conda *)r;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->p[i].dir);
		prov_pkgindex_free(c->p[i].ix);
	}
	prov_dirmemo_free(c->memo);
	free(c);
}

/* The commit a Python package embeds; the repository the package's about.json names. */
static void conda_annotate(struct prov_resolver *r, struct prov_origin *o, const struct prov_module *mod,
			    const struct prov_resolve_peers *peers)
{
	(void)peers;
	if (mod)
		prov_py_commit_of(o, r->ctx->sysroot, mod->path);
	if (!prov_upstream_from_conda_about(o, r->ctx->sysroot))
		prov_upstream_from_vcs(o, "derived:direct-url");
}

const struct prov_resolver_ops prov_resolver_conda = {
	.version = PROV_RESOLVER_VERSION,
	.name = "conda",
	.init = conda_init,
	.resolve = conda_resolve,
	.inventory = conda_inventory,
	.free = conda_free,
	.annotate = conda_annotate,
};
