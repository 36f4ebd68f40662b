#ifndef PROV_FIXSTATUS_H
#define PROV_FIXSTATUS_H

#include <stddef.h>

#include "config.h"
#include "context.h"
#include "model.h"

/*
 * `--fix COMMIT`: for each candidate fix, is it an ancestor of (or equal
 * to) the commit the crash's component was built from, and which release
 * first contains it. Adds one c->fixes[] entry per fix; a fix that cannot be
 * checked (no component with a known commit, the commit unknown in the
 * repository, offline without a mirror) gets known = 0 and a note.
 *
 * `component` names the component (NULL: the component of the innermost
 * frame of the crashing thread that has one with a commit, else the only
 * component with a commit). Returns 0; errors only for real failures.
 */
int prov_fix_status_check(struct prov_crash *c, const char *const *fixes, size_t nfixes,
			  const char *component, const struct prov_ctx *g);

/* The component chosen as above, or NULL. */
const struct prov_component *prov_fix_status_component(const struct prov_crash *c,
						       const char *component);

/*
 * Where the fixes of component p are looked up: the repository (URL or
 * path), the deployed revision in it and, for an imported source
 * (debian-source, archive), the import repository whose commit carries the
 * distribution's patches. A git component: its repo and commit. An import
 * with `repo` and `ref` beside it in the mapping: that upstream repository
 * at that ref, the import as patches. PROV_EUNKNOWN (message set) when the
 * deployed commit or, for an import, the upstream repository is not known.
 */
struct prov_fix_target {
	const char *url;
	const char *at;
	const char *patches_path;	/* NULL: none */
	const char *patches_commit;
};

int prov_fix_target(struct prov_fix_target *out, const struct prov_component *p);

/*
 * The verdict on a component whose commit is approximate (commit_is, a
 * branch tip or a guessed tag): what is known, never "included". Caller frees.
 */
char *prov_fix_approximate_note(const struct prov_component *p, int included);

#endif
