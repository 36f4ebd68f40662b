/* The resolver chain: the resolvers in priority order, each asked in turn for a module or for the inventory. */
#include <stdlib.h>
#include <string.h>

#include "resolver.h"
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
	&prov_resolver_go_buildinfo,
	&prov_resolver_cargo_auditable,
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

/* The peers' package_of: the first package database of the chain that claims view->path. */
static int package_of(struct prov_origin *pkg, const struct prov_resolve_peers *peers,
		      const struct prov_module *view)
{
	const struct chain *ch = peers->chain;
	size_t k;

	for (k = 0; k < ch->n; k++) {
		const struct prov_resolver_ops *ops = ch->r[k]->ops;

		if (!(ops->flags & PROV_RESOLVER_PACKAGE_DB))
			continue;
		if (ops->resolve(pkg, ch->r[k], view) == 0 && pkg->version)
			return 1;
		prov_origin_release(pkg);
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

int prov_resolve_modules_chain(struct prov_crash *c, const struct prov_resolve_ctx *ctx,
			       const struct prov_resolver_ops *const *ops)
{
	struct chain ch = { NULL, 0 };
	struct prov_resolve_peers peers = { package_of, &ch };
	struct prov_origin tmp, note;
	size_t m, i;
	int err, bare;

	memset(&tmp, 0, sizeof(tmp));
	memset(&note, 0, sizeof(note));
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
			if (note.kind && !(r->ops->flags & PROV_RESOLVER_PACKAGE_DB))
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
			if (!note.kind && (r->ops->flags & PROV_RESOLVER_NOTE)) {
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
			if (r->ops->annotate)
				r->ops->annotate(r, mod->origin, &view, &peers);
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

int prov_inventory_chain(struct prov_origin ***out, size_t *nout,
			 const struct prov_resolve_ctx *ctx,
			 const struct prov_resolver_ops *const *ops)
{
	struct chain ch = { NULL, 0 };
	struct prov_resolve_peers peers = { package_of, &ch };
	struct prov_origin_list l = { NULL, 0, 0 };
	size_t *from = NULL;	/* l.v[from[i] .. from[i + 1]) came from resolver i */
	size_t i, n0;
	int err;

	if ((err = chain_init(&ch, ctx, ops)) < 0)
		goto cleanup;
	from = prov_xcalloc(ch.n + 1, sizeof(*from));
	for (i = 0; i < ch.n; i++) {
		struct prov_resolver *r = ch.r[i];
		size_t k;

		from[i] = l.n;
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
	from[ch.n] = l.n;
	for (i = 0; i < ch.n; i++) {
		struct prov_resolver *r = ch.r[i];
		size_t k;

		for (k = from[i]; r->ops->annotate && k < from[i + 1]; k++)
			r->ops->annotate(r, l.v[k], NULL, &peers);
	}
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
	free(from);
	return err;
}

int prov_inventory(struct prov_origin ***out, size_t *nout, const struct prov_resolve_ctx *ctx)
{
	return prov_inventory_chain(out, nout, ctx, prov_resolvers);
}
