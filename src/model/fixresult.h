#ifndef PROV_FIXRESULT_H
#define PROV_FIXRESULT_H

#include <stddef.h>

#include "model.h"

/*
 * What fixcheck finds, as data: how one fix is in the deployed build
 * (src/fix/backport.h computes it) and fixcheck's answer for each fix
 * (src/pipeline/fixcheck.c computes it, src/report/report-fixcheck.c
 * renders it).
 */
struct prov_backport {
	int included;	/* ancestor, cherry-pick or distribution-patch */
	/* "ancestor", "cherry-pick", "distribution-patch", "adapted", "partial",
	 * "missing", or NULL (not included; or undetermined, see below) */
	const char *how;
	char *via;	/* commit id(s), space-separated, or patch file name(s) */
	char *files_present;	/* partial: the fix's files found, comma-separated */
	char *files_missing;	/* partial: the others */
	char *first_tag;	/* first tag containing the fix by ancestry */
	char *branch;	/* not included: a branch with the deployed commit that got it later */
	char *branch_tag;	/* the first tag containing that cherry-pick */
	char *branch_via;	/* the cherry-pick on that branch */
	char *patchid;	/* the fix's patch-id */
	char *commits_missing;	/* a fix of several commits: those not included, space-separated */
	/* the hunks of the fix in the deployed tree (src/fix/fixeffect.h), when compared */
	struct prov_fix_evidence *evidence;
	size_t nevidence;
	char *named_by;	/* distribution patches that name the fix (DEP-3, trailers), space-separated */
	int undetermined;	/* neither shown present nor absent: exit 3, reason says why */
	char *reason;
};

void prov_backport_release(struct prov_backport *b);

/* One fix of fixcheck: a COMMIT, an A..B range, or every argument with --one-fix. */
struct prov_fixcheck_item {
	char *arg;	/* as given (the --one-fix arguments space-separated) */
	char *fix;	/* the newest commit of the fix, full hex */
	char **commits;	/* every commit of the fix, oldest first */
	size_t ncommits;
	struct prov_backport bp;
	char *note;	/* the deployed commit is approximate: what is known, or NULL */
};

struct prov_fixcheck {
	char *deployed;	/* the deployed commit, full hex */
	char *at_label;	/* how the text names it: --at, the short commit, or "REF + import" */
	const char *component;	/* INPUT --component NAME, or NULL */
	const char *debsrc;	/* --debian-source SOURCE=VERSION, or NULL */
	const char *rpmspec;	/* --rpm-spec SPEC, or NULL */
	struct prov_fixcheck_item *items;
	size_t n;
	int any_missing;	/* some fix is not (fully) included */
	int any_unknown;	/* some fix is neither shown present nor absent (undetermined) */
	int approximate;	/* INPUT --component whose commit is approximate (a branch
				 * tip, a tag the version does not name): no verdict, exit 3 */
};

void prov_fixcheck_release(struct prov_fixcheck *r);

#endif
