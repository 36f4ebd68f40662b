#ifndef PROV_SRCLOCATE_H
#define PROV_SRCLOCATE_H

#include "model.h"

struct prov_repo;

/*
 * A frame with a function name but no line (a stripped library): find the
 * function's definition by name in the component's tree at its commit
 * (restricted to the component's subdir; definitions indexed once per
 * commit in the cache) and add a c->sources[] entry per candidate (at most
 * PROV_SRCLOCATE_MAX), each marked located_by "name" with its first lines
 * (2 * context + 1 of them from the definition's line). Sets
 * f->located_by = "name" when something was found. A guess: the report
 * says so. Returns the number of candidates (0: none), or an error for a
 * repository that cannot be read.
 */
#define PROV_SRCLOCATE_MAX 5

int prov_srclocate_frame(struct prov_crash *c, struct prov_frame *f, struct prov_repo *r,
			 const struct prov_component *comp, const char *cache_dir, int context);

struct prov_defs;
/*
 * Scan every source file of `commit_hex` under `subdir` (NULL or "": the
 * whole tree) in the repository. Bounded: files over 4 MiB are skipped,
 * at most 100,000 files and 1 GiB of source (d->truncated set).
 * 0, or an error stored.
 */
int prov_repo_scan_defs(struct prov_defs *d, struct prov_repo *r, const char *commit_hex,
			const char *subdir);

#endif
