#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolver.h"
#include "kit-python.h"
#include "kit-text.h"
#include "kit-upstream.h"
#include "cache.h"
#include "error.h"
#include "util.h"
#include "banned.h"

const struct prov_resolver_ops *const prov_resolvers[] = {
	&prov_resolver_elf_note,
	&prov_resolver_dpkg,
	&prov_resolver_rpm,
	&prov_resolver_pip,
	&prov_resolver_conda,
	&prov_resolver_rocm,
	&prov_resolver_python,
	&prov_resolver_git,
	&prov_resolver_path,
	NULL
};

const struct prov_resolver_ops *const prov_resolvers_path_only[] = { &prov_resolver_path, NULL };

/* Instances of a chain, set up once per call; resolvers that decline the root are left out. */
struct chain {
	struct prov_resolver **r;
	size_t n;
};

static int chain_init(struct chain *ch, const struct prov_resolve_ctx *ctx,
		      const struct prov_resolver_ops *const *ops)
{
	size_t n = 0, i;
	int err;

	while (ops[n])
		n++;
	ch->r = prov_xcalloc(n + 1, sizeof(*ch->r));
	ch->n = 0;
	for (i = 0; i < n; i++) {
		struct prov_resolver *r = NULL;

		if (ops[i]->version != PROV_RESOLVER_VERSION)
			return prov_error_set(PROV_ERROR, "resolver '%s' has interface version %u, expected %u",
					      ops[i]->name, ops[i]->version, PROV_RESOLVER_VERSION);
		err = ops[i]->init ? ops[i]->init(&r, ctx) : PROV_EPASSTHROUGH;
		if (err == PROV_EPASSTHROUGH || err == PROV_ENOTFOUND)
			continue;
		if (err < 0)
			return err;
		r->ops = ops[i];
		r->ctx = ctx;
		ch->r[ch->n++] = r;
	}
	return 0;
}

static void chain_release(struct chain *ch)
{
	size_t i;

	for (i = 0; i < ch->n; i++)
		ch->r[i]->ops->free(ch->r[i]);
	free(ch->r);
	ch->r = NULL;
	ch->n = 0;
}

/*
 * A module inside a Python package (<site>/<top>/...) whatever installed it
 * (python3-numpy from dpkg, a conda package): the commit the package embeds
 * in its version file, as the pip resolver reads it.
 */
static void python_commit(struct prov_origin *o, const char *root, const char *path)
{
	const char *rel = NULL, *slash;
	char *norm, *site, *top;

	if (o->commit || o->guess)
		return;
	norm = prov_path_normalize(path);
	site = prov_py_site_of(norm, &rel);
	if (site && (slash = strchr(rel, '/'))) {
		top = prov_xstrndup(rel, (size_t)(slash - rel));
		prov_py_add_commit(o, root, site, top);
		free(top);
	}
	free(site);
	free(norm);
}

/*
 * What prov_upstream_derive found for the dpkg packages of this call: a
 * package's copyright file is read once, not once per library of it (libc6:
 * libc, libm, ld-linux...). Bounded; further packages are derived each time.
 */
#define DERIVE_MEMO_MAX 64

struct derive_memo {
	struct {
		char *name, *url, *by, *evidence;
	} v[DERIVE_MEMO_MAX];
	size_t n;
};

static void derive_upstream(struct derive_memo *dm, struct prov_origin *o, const char *root)
{
	size_t i;

	if (!o->kind || strcmp(o->kind, "dpkg") || !o->name || o->upstream_url) {
		prov_upstream_derive(o, root);
		return;
	}
	for (i = 0; i < dm->n; i++)
		if (!strcmp(dm->v[i].name, o->name)) {
			o->upstream_url = prov_xstrdup_or_null(dm->v[i].url);
			o->upstream_by = prov_xstrdup_or_null(dm->v[i].by);
			o->upstream_evidence = prov_xstrdup_or_null(dm->v[i].evidence);
			return;
		}
	prov_upstream_derive(o, root);
	if (dm->n < DERIVE_MEMO_MAX) {
		dm->v[dm->n].name = prov_xstrdup(o->name);
		dm->v[dm->n].url = prov_xstrdup_or_null(o->upstream_url);
		dm->v[dm->n].by = prov_xstrdup_or_null(o->upstream_by);
		dm->v[dm->n].evidence = prov_xstrdup_or_null(o->upstream_evidence);
		dm->n++;
	}
}

static void derive_memo_release(struct derive_memo *dm)
{
	size_t i;

	for (i = 0; i < dm->n; i++) {
		free(dm->v[i].name);
		free(dm->v[i].url);
		free(dm->v[i].by);
		free(dm->v[i].evidence);
	}
	dm->n = 0;
}

int prov_resolve_modules_chain(struct prov_crash *c, const struct prov_resolve_ctx *ctx,
			       const struct prov_resolver_ops *const *ops)
{
	struct derive_memo dm;
	struct chain ch = { NULL, 0 };
	struct prov_origin tmp, note;
	size_t m, i;
	int err, bare;

	memset(&tmp, 0, sizeof(tmp));
	memset(&note, 0, sizeof(note));
	dm.n = 0;
	if ((err = chain_init(&ch, ctx, ops)) < 0)
		goto cleanup;
	for (m = 0; m < c->nmodules; m++) {
		struct prov_module *mod = &c->modules[m];
		struct prov_module view;
		char *stripped = NULL;

		if (mod->origin || !mod->path || !*mod->path || mod->path[0] == '[')
			continue;	/* [vdso], [heap]: no file */
		if (ctx->want && !ctx->want(mod, ctx->want_data))
			continue;
		view = *mod;
		bare = 0;
		if (prov_ends_with(mod->path, " (deleted)")) {
			/* the kernel's mark for a file replaced since it was mapped */
			stripped = prov_xstrndup(mod->path, strlen(mod->path) - strlen(" (deleted)"));
			view.path = stripped;
		} else if (!strchr(mod->path, '/')) {
			/* a bare name ("libc.so.6", as some backtraces print): the
			 * first library directory of the root holding that file */
			char *found = prov_root_find_lib(ctx->sysroot, mod->path);

			if (found) {
				stripped = found;
				view.path = stripped;
				bare = 1;
			}
		}
		for (i = 0; i < ch.n; i++) {
			struct prov_resolver *r = ch.r[i];

			/* after a package note, only the package databases may claim it */
			if (note.kind && strcmp(r->ops->name, "dpkg") && strcmp(r->ops->name, "rpm"))
				continue;
			err = r->ops->resolve(&tmp, r, &view);
			if (err == PROV_EPASSTHROUGH || err == PROV_ENOTFOUND) {
				prov_origin_release(&tmp);
				continue;
			}
			if (err < 0) {
				free(stripped);
				goto cleanup;
			}
			if (!tmp.found_by)
				tmp.found_by = prov_xstrdup(r->ops->name);
			if (!note.kind && !strcmp(r->ops->name, "elf-note")) {
				/* the note names the source project ("systemd"); the binary
				 * package that installed the file (dpkg/rpm) owns the module */
				note = tmp;
				memset(&tmp, 0, sizeof(tmp));
				continue;
			}
			if (note.kind && note.name) {
				/* the note stays as evidence: the source, and in evidence */
				char *ev = prov_xasprintf("%s%s(package note: %s %s)",
							  tmp.evidence ? tmp.evidence : "",
							  tmp.evidence ? " " : "", note.name,
							  note.version ? note.version : "");

				if (!tmp.source)
					tmp.source = prov_xstrdup(note.name);
				free(tmp.evidence);
				tmp.evidence = ev;
			}
			if (bare)
				tmp.guess = 1;	/* the directory was our guess */
			/* the package installed a file, not the build that crashed */
			tmp.build_id_mismatch = mod->build_id_mismatch;
			mod->origin = prov_xcalloc(1, sizeof(*mod->origin));
			*mod->origin = tmp;
			memset(&tmp, 0, sizeof(tmp));
			python_commit(mod->origin, ctx->sysroot, view.path);
			derive_upstream(&dm, mod->origin, ctx->sysroot);
			break;
		}
		if (note.kind && !mod->origin) {
			/* no package database owns it: the note is all there is */
			if (bare)
				note.guess = 1;
			note.build_id_mismatch = mod->build_id_mismatch;
			mod->origin = prov_xcalloc(1, sizeof(*mod->origin));
			*mod->origin = note;
			memset(&note, 0, sizeof(note));
		}
		prov_origin_release(&note);
		free(stripped);
	}
	err = 0;
cleanup:
	prov_origin_release(&tmp);
	prov_origin_release(&note);
	chain_release(&ch);
	derive_memo_release(&dm);
	return err;
}

int prov_resolve_modules(struct prov_crash *c, const struct prov_resolve_ctx *ctx)
{
	return prov_resolve_modules_chain(c, ctx, prov_resolvers);
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_origin(const void *pa, const void *pb)
{
	const struct prov_origin *a = *(struct prov_origin *const *)pa;
	const struct prov_origin *b = *(struct prov_origin *const *)pb;
	int d;

	if ((d = cmp_str(a->name, b->name)))
		return d;
	if ((d = cmp_str(a->kind, b->kind)))
		return d;
	if ((d = cmp_str(a->version, b->version)))
		return d;
	return cmp_str(a->evidence, b->evidence);
}

/* The version's upstream part as prov_debver_split gives it, else the version. */
static char *upstream_of(const char *version)
{
	struct prov_debver dv;
	char *up = NULL;

	if (!version)
		return NULL;
	if (prov_debver_split(&dv, version) == 0) {
		up = prov_xstrdup_or_null(dv.upstream);
		prov_debver_release(&dv);
	}
	return up ? up : prov_xstrdup(version);
}

/* Drop a Debian repack suffix (+dfsg, +ds, ~dfsg, .dfsg) from an upstream version. */
static void drop_repack(char *up)
{
	static const char *const marks[] = { "+dfsg", "~dfsg", ".dfsg", "+ds", "~ds", NULL };
	size_t i;

	for (i = 0; marks[i]; i++) {
		char *p = strstr(up, marks[i]);

		if (p)
			*p = 0;
	}
}

/* Whether the dpkg or rpm resolver of the chain claims the file view->path: 1 and *pkg. */
static int system_package_of(struct prov_origin *pkg, const struct chain *ch, const struct prov_module *view)
{
	size_t k;

	for (k = 0; k < ch->n; k++) {
		const struct prov_resolver_ops *ops = ch->r[k]->ops;

		if (ops != &prov_resolver_dpkg && ops != &prov_resolver_rpm)
			continue;
		if (ops->resolve(pkg, ch->r[k], view) == 0 && pkg->version)
			return 1;
		prov_origin_release(pkg);
	}
	return 0;
}

/*
 * A pip distribution that a dpkg or rpm package installed (Debian's
 * python3-torch ships torch-1.13.0a0+gitunknown.egg-info while the package
 * is 1.13.1+dfsg-4): the distribution's package version wins over the
 * embedded one when their upstream parts differ. The package is looked up by
 * the metadata file, as a module would be.
 */
static void distribution_versions(struct prov_origin_list *l, const struct chain *ch)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct prov_origin *o = l->v[i];
		struct prov_module view;
		struct prov_origin pkg;
		char *meta, *up_pip, *up_pkg;
		int claimed = 0;

		if (!o->kind || strcmp(o->kind, "pip") != 0 || !o->evidence)
			continue;
		meta = prov_ends_with(o->evidence, ".egg-info") ?
			prov_xasprintf("%s/PKG-INFO", o->evidence) :
			prov_xasprintf("%s/METADATA", o->evidence);
		memset(&view, 0, sizeof(view));
		memset(&pkg, 0, sizeof(pkg));
		view.path = meta;
		claimed = system_package_of(&pkg, ch, &view);
		if (!claimed && prov_ends_with(o->evidence, ".egg-info")) {
			/* a flat egg-info file is the metadata itself */
			view.path = o->evidence;
			claimed = system_package_of(&pkg, ch, &view);
		}
		free(meta);
		prov_error_clear();
		if (!claimed)
			continue;
		up_pip = o->version ? prov_xstrdup(o->version) : NULL;
		up_pkg = upstream_of(pkg.version);
		drop_repack(up_pkg);
		if (!up_pip || strcmp(up_pip, up_pkg) != 0) {
			char *fb = prov_xasprintf("pip; version from %s %s (the distribution says %s)",
						  pkg.kind ? pkg.kind : "package", pkg.name ? pkg.name : "?",
						  o->version ? o->version : "nothing");

			free(o->version);
			o->version = prov_xstrdup(pkg.version);
			free(o->found_by);
			o->found_by = fb;
			if (!o->source) {
				o->source = prov_xstrdup_or_null(pkg.source ? pkg.source : pkg.name);
				o->source_version = prov_xstrdup_or_null(pkg.source_version ? pkg.source_version
										   : pkg.version);
			}
		}
		free(up_pip);
		free(up_pkg);
		prov_origin_release(&pkg);
	}
}

int prov_inventory_chain(struct prov_origin ***out, size_t *nout,
			 const struct prov_resolve_ctx *ctx,
			 const struct prov_resolver_ops *const *ops)
{
	struct chain ch = { NULL, 0 };
	struct prov_origin_list l = { NULL, 0, 0 };
	size_t i, n0;
	int err;

	if ((err = chain_init(&ch, ctx, ops)) < 0)
		goto cleanup;
	for (i = 0; i < ch.n; i++) {
		struct prov_resolver *r = ch.r[i];
		size_t k;

		if (!r->ops->inventory)
			continue;
		n0 = l.n;
		err = r->ops->inventory(r, &l);
		if (err == PROV_EPASSTHROUGH || err == PROV_ENOTFOUND)
			continue;
		if (err < 0)
			goto cleanup;
		for (k = n0; k < l.n; k++)
			if (!l.v[k]->found_by)
				l.v[k]->found_by = prov_xstrdup(r->ops->name);
	}
	distribution_versions(&l, &ch);
	for (i = 0; i < l.n; i++)
		prov_upstream_derive(l.v[i], ctx->sysroot);
	if (l.n) {
		size_t w = 0;

		qsort(l.v, l.n, sizeof(*l.v), cmp_origin);
		/* the same component seen twice (two prefixes, a symlinked tree) is listed once */
		for (i = 0; i < l.n; i++) {
			struct prov_origin *o = l.v[i];

			if (w && !cmp_str(o->name, l.v[w - 1]->name) &&
			    !cmp_str(o->kind, l.v[w - 1]->kind) &&
			    !cmp_str(o->version, l.v[w - 1]->version) &&
			    !cmp_str(o->commit, l.v[w - 1]->commit)) {
				prov_origin_free(o);
				continue;
			}
			l.v[w++] = o;
		}
		l.n = w;
	}
	*out = l.v;
	*nout = l.n;
	memset(&l, 0, sizeof(l));
	err = 0;
cleanup:
	prov_origin_list_release(&l);
	chain_release(&ch);
	return err;
}

int prov_inventory(struct prov_origin ***out, size_t *nout, const struct prov_resolve_ctx *ctx)
{
	return prov_inventory_chain(out, nout, ctx, prov_resolvers);
}
