#ifndef PROV_KIT_INDEX_H
#define PROV_KIT_INDEX_H

#include <stddef.h>

#include "resolve.h"
#include "kit-origin.h"

/* The resolvers' kit: file -> package indexes, cached in cache/ when a cache is given (kit-index.c). */

struct prov_pkgindex;

/*
 * Builder: add packages and files with prov_pkgindex_add_*; 0 or an error.
 */
typedef int (*prov_pkgindex_build_fn)(struct prov_pkgindex *ix, void *data);

/*
 * Open the index of one package database: from the cache when it holds one
 * with the same identity, else built by `build` (and stored in the cache).
 * kind is the origin kind; db the database's path under the root.
 */
int prov_pkgindex_open(struct prov_pkgindex **out, const struct prov_resolve_ctx *ctx,
		       const char *kind, const char *db, const char *identity,
		       prov_pkgindex_build_fn build, void *data);
void prov_pkgindex_free(struct prov_pkgindex *ix);	/* NULL-safe */

/* Add a package (strings copied); *out its number. */
size_t prov_pkgindex_add_pkg(struct prov_pkgindex *ix, const struct prov_origin *o, int shlib);
/* Mark package `pkg` as shipping a shared library. */
void prov_pkgindex_set_shlib(struct prov_pkgindex *ix, size_t pkg);
/* Add a file (path copied as given: canonicalise first). */
void prov_pkgindex_add_file(struct prov_pkgindex *ix, size_t pkg, const char *path);

/*
 * The package owning `path` (exact key), skipping packages named
 * `exclude` (NULL: none). 0 and a new origin, PROV_ENOTFOUND, or an error.
 */
int prov_pkgindex_lookup(struct prov_origin **out, struct prov_pkgindex *ix,
			 const char *path, const char *exclude);
/* Add a copy of every package (shlib_only: those with a shared library) to l. */
int prov_pkgindex_packages(struct prov_pkgindex *ix, int shlib_only, struct prov_origin_list *l);

/* 1 when a path names a shared library ("*.so" or "*.so.*"). */
int prov_is_shlib_path(const char *path);

#endif
