#ifndef PROV_CACHE_DEFS_H
#define PROV_CACHE_DEFS_H

#include "cache.h"
#include "srcdefs.h"

/*
 * Function definitions per (commit, subdir), indexed once (tables srcdefs_sets
 * and srcdefs in cache.sqlite, made on first use): the second crash in the
 * same build finds them without reading the tree again.
 */

/* 1: (commit, subdir) is indexed; 0: not yet; negative: error (message set). */
int prov_cache_defs_indexed(struct prov_cache *c, const char *commit, const char *subdir);

/* Store the definitions of (commit, subdir) in one transaction. 0 or an error. */
int prov_cache_defs_put(struct prov_cache *c, const char *commit, const char *subdir,
			const struct prov_defs *d);

/* Append the definitions of (commit, subdir) whose last name component is
 * `name` to *out (at most 1000). 0 or an error. */
int prov_cache_defs_find(struct prov_defs *out, struct prov_cache *c, const char *commit,
			 const char *subdir, const char *name);

#endif
