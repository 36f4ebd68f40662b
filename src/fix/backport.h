#ifndef PROV_BACKPORT_H
#define PROV_BACKPORT_H

#include <stddef.h>

#include "cache.h"
#include "fixeffect.h"
#include "fixresult.h"
#include "model.h"
#include "sources.h"

/*
 * How a fix is in what was deployed (fixcheck, resolve --fix): by ancestry,
 * as a cherry-pick on the deployed commit's history, as a distribution's
 * patch (a Debian source package's quilt series), partly, or not at all.
 *
 * - ancestor: the fix is the deployed commit or one of its ancestors.
 * - cherry-pick: a commit reachable from the deployed one but not from the
 *   fix carries "(cherry picked from commit <fix>)", or has the fix's
 *   patch-id (git patch-id --stable: whitespace and line numbers ignored),
 *   or every file the fix changes was changed the same way by commits of
 *   that range (a backport in several commits; `via` lists them).
 * - distribution-patch: a patch of debian/patches/series in the deployed
 *   source package changes every file of the fix as the fix does (per-file
 *   ids: the hunks' lines with whitespace removed, paths with their first
 *   component stripped).
 * - adapted: neither of the above, but every hunk's effect is in the
 *   deployed tree (the patched tree of a Debian import, or the deployed
 *   commit): present-exact or present-changed-lines, test hunks aside
 *   (fixeffect.h; evidence[] says which hunk is how and via what).
 *   "distribution-patch" too when every hunk is there exactly, carried by
 *   the distribution's patches.
 * - partial: some of the fix's files are changed the same way (files_present
 *   names them, files_missing the others), or some hunks are shown absent.
 * - missing: every hunk outside test files shown absent (not included).
 * - undetermined (how NULL, undetermined 1, reason): some hunk is neither
 *   shown present nor absent (the code was rewritten) and none absent:
 *   never "not included" without proof.
 * - none (how NULL): first_tag is the first tag containing the fix by
 *   ancestry; when a branch that contains the deployed commit later got
 *   the fix by cherry-pick, branch/branch_tag/branch_via say where.
 *
 * Patch ids are computed once per commit and kept in the cache.
 */
struct prov_backport_opts {
	struct prov_cache *cache;	/* may be NULL: nothing kept */
	struct prov_repo *patches_repo;	/* a debian-source import, or NULL */
	const char *patches_commit;	/* its commit (the patched tree) */
	/* other distribution patches (an RPM spec's Patch: files): names and
	 * their per-file ids (prov_backport_file_ids) */
	char *const *extra_patch_names;
	char *const *extra_patch_ids;
	size_t nextra_patches;
	/* their texts and the spec comments above their Patch lines (for the
	 * hunk comparison and the commit ids they name); may be NULL */
	char *const *extra_patch_texts;
	char *const *extra_patch_notes;
	/* the distribution patches already read (NULL: read here from patches_repo and extra_*) */
	const struct prov_dist_patches *dist;
	size_t max_commits;	/* range walk cap (0: 1000000) */
	int no_branches;	/* skip the search for a later cherry-pick on the deployed branches */
};

/* struct prov_backport (the answer) is in fixresult.h (model layer). */

int prov_backport_check(struct prov_backport *out, struct prov_repo *r, const char *fix_hex,
			const char *deployed_hex, const struct prov_backport_opts *o);

/*
 * A fix made of several commits (fix_hexes, oldest first): each is checked
 * as above; the fix is included when every commit is (how: "ancestor" when
 * all are ancestors, else "distribution-patch" when a patch carries one,
 * else "cherry-pick"; via lists each commit's via), "partial" with
 * commits_missing naming the others when some are in (or partly in), not
 * included (how NULL, commits_missing all) otherwise. first_tag: the first
 * of the commits' first tags that contains every commit. n == 1 is
 * prov_backport_check.
 */
int prov_backport_check_all(struct prov_backport *out, struct prov_repo *r,
			    const char *const *fix_hexes, size_t n, const char *deployed_hex,
			    const struct prov_backport_opts *o);

/*
 * The commits of a fix given as REV (one commit) or A..B (the commits
 * reachable from B and not from A, merges left out, oldest first, at most
 * `max`): *out (full hex, caller frees each and the array), *n. PROV_EINPUT
 * for an empty range, A...B or a missing side; prov_repo_resolve's error
 * for an unknown revision.
 */
int prov_backport_expand(char ***out, size_t *n, struct prov_repo *r, const char *spec, size_t max);

/*
 * Per-file ids of a unified diff (git's or a quilt patch): "path\tid\n"
 * lines (path without its first component; id = 64 hex of SHA-256 over
 * the hunks' lines without whitespace). Exposed for the unit test.
 */
char *prov_backport_file_ids(const char *text, size_t len);

#endif
