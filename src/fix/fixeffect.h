#ifndef PROV_FIXEFFECT_H
#define PROV_FIXEFFECT_H

#include <stddef.h>

#include "cache.h"
#include "dep3.h"
#include "hunks.h"
#include "model.h"
#include "sources.h"

/*
 * Is the *effect* of a fix commit in the deployed source tree (the upstream
 * tag plus the distribution's patches, or any deployed commit)? Each hunk
 * of the fix is looked for in the deployed file (prov_hunk_match), the file
 * found through renames (libgit2 between the fix's parent and the deployed
 * upstream commit) or, when gone, by its base name (the one holding the
 * hunk's function when several do), else by the one file that defines the
 * function the hunk's header names (src/util/srcdefs.h, the definitions of
 * the deployed tree indexed once in the cache), else, when nothing else decides,
 * by the hunk's own lines in the one file of its extension that has them; an
 * undecided hunk is judged again with the identifiers the release spells
 * another way renamed (src/fix/renames.h); a present hunk is credited to the
 * distribution patch that carries its changed lines (a patch naming the fix
 * in its DEP-3 header or trailers first), else to the deployed commit.
 * docs/fixcheck.md has the verdicts built from these states.
 */
struct prov_dist_patch {
	char *name;	/* "debian/patches/x.patch", or an RPM spec's patch file name */
	struct prov_hunks hunks;
	struct prov_dep3 dep3;
};

struct prov_dist_patches {
	struct prov_dist_patch *v;
	size_t n;
	int applied;	/* 1: the patches are applied in the deployed tree (a Debian import) */
};

/*
 * The quilt series of a Debian import at commit (debian/patches/series):
 * each patch's hunks and DEP-3 header. A missing series is no patch.
 */
int prov_dist_patches_debian(struct prov_dist_patches *out, struct prov_repo *pr, const char *commit);
/*
 * fn for each patch of debian/patches/series at commit (its path, the
 * series' -p level, its text), in order, within the import's bounds; a
 * patch that cannot be read is passed over. 0, or <0 when the series
 * could not be read (none: 0, nothing called).
 */
int prov_debian_patches_each(struct prov_repo *pr, const char *commit,
			     void (*fn)(const char *path, int strip, const struct prov_buf *patch, void *arg),
			     void *arg);
/* Patches given as texts (an RPM spec's); notes[i] (may be NULL) is read for commit ids too. */
void prov_dist_patches_add(struct prov_dist_patches *dp, const char *name, const char *text, size_t len,
			   const char *notes);
void prov_dist_patches_release(struct prov_dist_patches *dp);

struct prov_effect_tree {
	struct prov_repo *r;	/* the upstream repository */
	const char *deployed_hex;	/* the deployed upstream commit */
	struct prov_repo *tree_repo;	/* the deployed tree: the import (NULL: r) */
	const char *tree_commit;	/* its commit (NULL: deployed_hex) */
	struct prov_cache *cache;	/* definitions index for the function search; may be NULL */
};

struct prov_effect {
	struct prov_fix_evidence *ev;	/* per hunk, in diff order */
	size_t n;
	size_t nexact, nchanged, nabsent, ntest, nunknown;
	size_t nna;	/* unknown ones whose code is not in the deployed file at all (note set) */
	char *named_by;	/* patches naming the fix, space-separated, or NULL */
};

/* The note of a hunk that changes comments only (decided apart, like a test file's). */
#define PROV_EFFECT_NOTE_COMMENTS "it changes comments only"
#define PROV_EFFECT_NOTE_RENAMED "judged with the identifiers the deployed file spells another way renamed (an API renamed since)"
/* The note of a hunk whose code is not in the deployed file at all (not applicable there). */
#define PROV_EFFECT_NOTE_NOT_HERE "the code it changes is not in the deployed file"
#define PROV_EFFECT_NOTE_NO_FILE "the file is not in the deployed tree"
/* The note of a hunk that removes a function the deployed tree still calls (a backport keeps it). */
#define PROV_EFFECT_NOTE_STILL_USED "it removes a function the deployed tree still calls"
/* The note of a hunk present only with its lines re-wrapped (the same C tokens, other line breaks). */
#define PROV_EFFECT_NOTE_REWRAPPED "matched after re-wrapping"
/* The note of a hunk that changes blanks only (decided apart, like a comment's). */
#define PROV_EFFECT_NOTE_BLANKS "it changes blanks only"
/* The notes of a hunk a patch of the series carries and a later one changes again (present, via the
 * carrying patch), or reverts (unknown, via the reverting patch: decided apart). */
#define PROV_EFFECT_NOTE_CHANGED_LATER "a later patch of the series changes its lines again"
#define PROV_EFFECT_NOTE_REVERTED "a patch carries it and a later patch of the series (via) reverts it"
#define PROV_EFFECT_NOTE_MOVED "not at the fix's place: a patch naming the fix (via) adds its lines at another place"
#define PROV_EFFECT_NOTE_ABSENT_COMMIT "the lines it changes came with a commit (via) the deployed tree does not have"

/* The hunks of fix_hex in the deployed tree. */
int prov_effect_check(struct prov_effect *out, const char *fix_hex, const struct prov_dist_patches *dp,
		      const struct prov_effect_tree *t);
void prov_effect_release(struct prov_effect *e);

#endif
