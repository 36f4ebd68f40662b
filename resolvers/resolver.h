#ifndef PROV_RESOLVER_H
#define PROV_RESOLVER_H

#include "resolve.h"
#include "kit-origin.h"

/*
 * Writing a resolver: one small interface (libgit2's odb backends are the
 * model). The pipeline's side is resolve.h; the helpers a resolver may use
 * are the kit headers (kit-root.h files under the root, kit-index.h file ->
 * package indexes, kit-text.h, kit-python.h, kit-upstream.h,
 * kit-rpm-header.h, kit-origin.h). A new resolver is one file here and one
 * entry in the chain of registry.c.
 */

/* The base of every resolver instance (put it first in the private struct). */
struct prov_resolver {
	const struct prov_resolver_ops *ops;
	const struct prov_resolve_ctx *ctx;
};

#define PROV_RESOLVER_VERSION 1

/* What the chain needs to know of a resolver (ops->flags). */
enum prov_resolver_flags {
	/*
	 * A package database (dpkg, rpm): it owns the files it installed.
	 * After a package note claimed a module, only these may claim it.
	 */
	PROV_RESOLVER_PACKAGE_DB = 1 << 0,
	/*
	 * A package note (elf-note): its claim names the source project; it is
	 * held while the package databases are asked, and kept as evidence
	 * (origin->source) of the one that claims the file, or alone when none does.
	 */
	PROV_RESOLVER_NOTE = 1 << 1,
};

/* What the chain lends a resolver's annotate op: its other resolvers. */
struct prov_resolve_peers {
	/*
	 * The package databases of the chain (PROV_RESOLVER_PACKAGE_DB), in
	 * order: 1 and *pkg (zeroed by the caller; with a version) for the first
	 * that claims view->path, else 0 and *pkg left empty.
	 */
	int (*package_of)(struct prov_origin *pkg, const struct prov_resolve_peers *peers,
			  const struct prov_module *view);
	const void *chain;	/* the chain's own */
};

struct prov_resolver_ops {
	unsigned int version;	/* PROV_RESOLVER_VERSION */
	const char *name;	/* "dpkg": also origin->found_by */
	/* Set up; may decline the whole root with PROV_EPASSTHROUGH (no database). */
	int (*init)(struct prov_resolver **out, const struct prov_resolve_ctx *ctx);
	/*
	 * Fill *out (zeroed by the caller; the chain sets found_by when unset)
	 * for mod: 0 claimed, PROV_EPASSTHROUGH / PROV_ENOTFOUND declined,
	 * anything else stops the chain. On decline *out must be left empty.
	 */
	int (*resolve)(struct prov_origin *out, struct prov_resolver *r,
		       const struct prov_module *mod);
	/* Optional: add what this resolver sees to l (env). */
	int (*inventory)(struct prov_resolver *r, struct prov_origin_list *l);
	void (*free)(struct prov_resolver *r);
	/*
	 * Optional: complete an origin this resolver gave once the chain chose
	 * it: for the module mod (as the chain saw it: " (deleted)" dropped, a
	 * bare name found), or for the inventory (mod NULL). Here a resolver
	 * derives the upstream repository (kit-upstream.h) and reads the commit
	 * a Python package embeds (kit-python.h). Cannot fail.
	 */
	void (*annotate)(struct prov_resolver *r, struct prov_origin *o, const struct prov_module *mod,
			 const struct prov_resolve_peers *peers);
	unsigned int flags;	/* enum prov_resolver_flags */
};

extern const struct prov_resolver_ops prov_resolver_elf_note, prov_resolver_dpkg,
	prov_resolver_rpm, prov_resolver_pip, prov_resolver_conda, prov_resolver_rocm,
	prov_resolver_git, prov_resolver_path, prov_resolver_go_buildinfo,
	prov_resolver_python, prov_resolver_cargo_auditable;

#endif
