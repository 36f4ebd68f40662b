#ifndef PROV_COMPONENTS_H
#define PROV_COMPONENTS_H

#include "buf.h"
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
	/*
	 * debuginfod's /buildid/ID/source/PATH (the pipeline sets
	 * prov_debuginfod_source_text when not offline); NULL: not asked.
	 * The whole file into out; 0 or an error code.
	 */
	int (*debuginfod_text)(struct prov_buf *out, const char *build_id, const char *path,
			       void *arg);
	void *debuginfod_arg;
	/*
	 * Called once, before anything that may use the network (mirrors,
	 * downloads): components are named, frames carry their component and
	 * repository path; commits and source lines are not known yet.
	 */
	void (*on_known)(struct prov_crash *c, void *arg);
	void *on_known_arg;
	/*
	 * 0: only the components of the crash chain (modules[].in_crash_chain,
	 * set by prov_crash_mark_chain, which this runs) are looked up (mirrors, ls-remote, downloads)
	 * and only theirs make the run partial; the others are named, with a
	 * note. 1 (--all-components): every component, as the env command does.
	 */
	int all_components;
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
 * The crash lines of a commit the system recorded (exact) come the
 * cheapest way there is, before any mirror is cloned: a mirror already in
 * the cache that holds the commit, else, when the repository's host has a
 * single-file form (src/sources/forge.h), debuginfod's source for the
 * module's build ID and then the forge's file at the commit, per file
 * (sources[].fetched_by says which); for a host without a single-file
 * form the mirror comes last, fetched only for a file debuginfod did not
 * have. A commit that a mapping's tag or branch names comes, when the cache
 * has no mirror and the lines can come file by file, from the remote's ref
 * advertisement (prov_sources_ls_remote: one request, no pack, cached), and
 * its lines the same way. No mirror is cloned for them otherwise:
 * fixcheck, suspects and --fix fetch one when they need it. libgit2 1.5
 * has no shallow fetch, so there is no one-commit fetch step.
 *
 * Sets *partial (may be NULL) to 1 when something could not be found.
 * Errors: PROV_EINPUT/PROV_ELIMIT for bad mapping files; a missing repo,
 * ref, mirror (offline) or file is a component->note, not an error.
 */
int prov_components_resolve(struct prov_crash *c, int *partial,
			    const struct prov_components_ctx *ctx);

#endif
