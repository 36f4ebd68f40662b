#ifndef PROV_RESOLVE_H
#define PROV_RESOLVE_H

#include <stddef.h>

#include "model.h"

struct prov_cache;
struct prov_resolver_ops;

/*
 * Resolvers, as the pipeline sees them: module -> the package that
 * installed it. One chain of resolvers in priority order (resolver.h
 * describes a resolver for those who write one); the first resolver that
 * claims a module wins.
 *
 * Everything a resolver reads is looked up under ctx->sysroot through
 * prov_root_open(): "..", absolute symlinks and magic links inside the root
 * cannot lead outside it. Module paths are taken as the crash recorded them
 * (text backtraces give paths only: no ranges, no build IDs).
 */
struct prov_resolve_ctx {
	const char *sysroot;	/* NULL or "/" = host */
	struct prov_cache *cache;	/* may be NULL: no cache */
	/* NULL: every module; else only modules for which it returns 1 */
	int (*want)(const struct prov_module *m, void *data);
	void *want_data;
};

/*
 * For every module of c without an origin: run the chain; set module->origin
 * (kind, name, version, source, source_version, arch, vcs_url, commit,
 * branch, found_by, evidence, guess). Unclaimed modules stay NULL (best
 * effort). Returns 0, or a real error (not PASSTHROUGH/NOTFOUND).
 */
int prov_resolve_modules(struct prov_crash *c, const struct prov_resolve_ctx *ctx);

/*
 * The inventory for `env`: every component the resolvers can see (pip
 * distributions, dpkg/rpm packages shipping shared libraries, conda
 * packages, ROCm/CUDA trees, git working trees under /opt, /workspace, /src),
 * sorted by name (then kind, version). *out is an array of *nout owned
 * origins (free each with prov_origin_free, then the array). 0 or an error;
 * nothing is written to *out on failure.
 */
int prov_inventory(struct prov_origin ***out, size_t *nout, const struct prov_resolve_ctx *ctx);

/* The chains (NULL-terminated, in priority order): every resolver; the path resolver alone. */
extern const struct prov_resolver_ops *const prov_resolvers[];
extern const struct prov_resolver_ops *const prov_resolvers_path_only[];

/* prov_resolve_modules / prov_inventory with another chain (a text backtrace's, tests). */
int prov_resolve_modules_chain(struct prov_crash *c, const struct prov_resolve_ctx *ctx,
			       const struct prov_resolver_ops *const *chain);
int prov_inventory_chain(struct prov_origin ***out, size_t *nout,
			 const struct prov_resolve_ctx *ctx,
			 const struct prov_resolver_ops *const *chain);

/*
 * The GNU build ID (lower-case hex) of the ELF file `path` under root:
 * 0 and *out (caller frees), PROV_ENOTFOUND when the file is missing, not
 * ELF, or has none. (kit-elf.c)
 */
int prov_root_build_id(char **out, const char *root, const char *path);

/*
 * A bare library name ("libc.so.6", as eu-stack and some backtraces print
 * it): the path of the first regular file of that name in the root's
 * library directories, or NULL. Caller frees. (kit-root.c)
 */
char *prov_root_find_lib(const char *root, const char *name);

#endif
