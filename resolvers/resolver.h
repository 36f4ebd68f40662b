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
};

extern const struct prov_resolver_ops prov_resolver_elf_note, prov_resolver_dpkg,
	prov_resolver_rpm, prov_resolver_pip, prov_resolver_conda, prov_resolver_rocm,
	prov_resolver_git, prov_resolver_path,
	prov_resolver_python;

#endif
