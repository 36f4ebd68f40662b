#ifndef PROV_COMPONENTS_H
#define PROV_COMPONENTS_H

#include "config.h"
#include "context.h"
#include "model.h"

/*
 * The pipeline stage after the resolvers: origins -> components (mappings),
 * frame paths -> repository paths, mirrors -> commits -> source lines.
 */
struct prov_components_ctx {
	const struct prov_ctx *ctx;	/* config, cache_dir, offline */
	const char *const *mapping_files;	/* --mapping, NULL-terminated or NULL */
	int context;	/* lines of context around each frame's line; 0 = only the line */
	int max_source_frames;	/* excerpts for at most this many top frames of the
				 * crashing thread that have source; 0 = 5 */
};

/*
 * For a crash whose modules have origins (resolvers ran): load the mappings
 * (--mapping files, user dir, shipped), match each module (library glob on
 * its file name, or package = origin name/source), create c->components
 * (name, version, commit, repo, ref, subdir, found_by, note), set
 * module->component and frame->component, rewrite each frame's file into
 * frame->repo_path / frame->path_rule, fetch mirrors (unless offline),
 * resolve the commit (a commit the system recorded wins over the ref
 * templates, which are tried in order) and add c->sources[] excerpts for
 * the top frames of the crashing thread whose source was found.
 *
 * Sets *partial (may be NULL) to 1 when something could not be found.
 * Errors: PROV_EINPUT/PROV_ELIMIT for bad mapping files; a missing repo,
 * ref, mirror (offline) or file is a component->note, not an error.
 */
int prov_components_resolve(struct prov_crash *c, int *partial,
			    const struct prov_components_ctx *ctx);

#endif
