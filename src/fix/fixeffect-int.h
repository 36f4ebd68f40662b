#ifndef PROV_FIXEFFECT_INT_H
#define PROV_FIXEFFECT_INT_H

#include <stddef.h>

#include "hunks.h"

/* from fixeffect.h and buf.h, which the files including this header include first */
struct prov_buf;
struct prov_dist_patches;
struct prov_effect;
struct prov_effect_tree;
struct prov_defs;
struct effect_text_index;

/*
 * Private to the fix-effect files (libdwfl's libdwflP.h): fixeffect.c walks
 * a fix's hunks and calls fixlocate.c (where the hunk's file and function
 * are), fixevidence.c (what the hunk's own lines tell) and distpatches.c
 * (the distribution's patches); none of those three calls back.
 */

/* A file of the fix as found in the deployed tree. */
struct located {
	char *path;	/* the fix's path */
	char *deployed;	/* the deployed tree's path, NULL when not found */
	struct prov_hunk_file f;
	char *text;	/* the file's bytes */
	size_t len;
	int found;
	/* the fix's own file before and after it (for what is no evidence) */
	struct prov_hunk_file pre, post;
	int have_pre, have_post;
	/* read and learned once per file, not per hunk (fixlocate.c) */
	struct prov_buf pre_text, post_text;
	int texts_read;	/* 0: not yet, 1: both read, -1: not readable */
	struct prov_renames *ren;	/* NULL until learned */
	/* indexed once per file and text, not per hunk (fixlocate.c) */
	struct effect_text_index *ix[4];	/* deployed, pre, post, renamed pre */
	struct prov_hunk_file pre_f, post_f;	/* pre_text, post_text as lines */
	int texts_filed;
	char *rpre, *rpost;	/* pre_text, post_text with ren applied */
	size_t lrpre, lrpost;
	struct prov_hunk_file rpre_f, rpost_f;
	int renamed_done;
	struct prov_defs *defs;	/* the deployed file's definitions; NULL until scanned */
};

/* fixlocate.c: the deployed file of a hunk, and the hunk judged in it */
/* What effect_in_function_only and effect_renamed_or_in_function keep in loc. */
void effect_located_release(struct located *loc);
int effect_fix_side(struct prov_hunk_file *f, const struct prov_effect_tree *t, const char *commit,
		    const char *path);
int effect_function_in(const struct prov_hunk *h, const struct located *loc);
enum prov_hunk_state effect_in_function_only(const struct prov_hunk *h, struct located *loc,
					     const char *parent, const char *fix_hex,
					     const struct prov_effect_tree *t, unsigned *how);
enum prov_hunk_state effect_renamed_or_in_function(const struct prov_hunk *h, struct located *loc,
						   const char *parent, const char *fix_hex,
						   const struct prov_effect_tree *t, unsigned *how, int *renamed);
int effect_locate(struct located *loc, const struct prov_hunk *h, const char *fix_parent,
		  const struct prov_effect_tree *t);
int effect_in_own_function(const struct prov_hunk *h, struct located *loc);
/*
 * 1 when h's change is in the deployed file with its lines re-wrapped
 * (prov_hunk_rewrapped), in the function its header names when the file
 * defines it once, else in the whole file; the fix's file before it read
 * (0 when it cannot be).
 */
int effect_rewrapped(const struct prov_hunk *h, struct located *loc, const char *parent, const char *fix_hex,
		     const struct prov_effect_tree *t);
int effect_read_tree_file(struct prov_buf *b, const struct prov_effect_tree *t, const char *path);

/* distpatches.c: the distribution patches that carry, name, touch or undo a hunk */
const char *effect_carried_by(const struct prov_dist_patches *dp, const struct prov_hunk *h,
			      const char *fix_hex, const char *deployed_path);
const char *effect_rewrapped_carried_by(const struct prov_dist_patches *dp, const struct prov_hunk *h,
					const char *fix_hex, const struct located *loc);
const char *effect_carried_by_naming(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				     const char *fix_hex);
const char *effect_names_by_naming(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				   const char *fix_hex, const struct prov_hunk_file *pre, const char *deployed_path);
int effect_naming_patch_changes(const struct prov_dist_patches *dp, const char *fix_hex, const struct prov_hunk *h,
				const char *deployed_path);
int effect_own_mechanism_left_out(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				  const char *fix_hex, const struct located *loc);
int effect_touched_by(const struct prov_dist_patches *dp, const struct prov_hunk *h);
const char *effect_undone_by_later(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				   const char *fix_hex, const char *deployed_path, const char **carrier, int *revert);

/* fixevidence.c: what a hunk's lines tell; evidence records */
int effect_removes_used_function(const struct prov_hunk *h, const struct located *loc,
				 const struct prov_dist_patches *dp);
int effect_adds_only(const struct prov_hunk *h);
int effect_adds_absent_headers_only(const struct prov_hunk *h, const struct prov_effect_tree *t);
int effect_add_evidence(struct prov_effect *out, const char *fix_hex, const struct prov_hunk *h,
			const struct located *loc, enum prov_hunk_state st, const char *via);
void effect_shipped_new_tests(struct prov_effect *out, const struct prov_hunks *hs, const struct located *locs,
			      size_t nlocs);
void effect_new_files_apart(struct prov_effect *out, const struct prov_hunks *hs);

#endif
