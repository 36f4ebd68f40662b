#ifndef PROV_FIXEFFECT_INT_H
#define PROV_FIXEFFECT_INT_H

#include <stddef.h>

#include "fixeffect.h"
#include "hunks.h"
#include "renames.h"

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
};

/* fixlocate.c */
int fix_side(struct prov_hunk_file *f, const struct prov_effect_tree *t, const char *commit,
		    const char *path);
int function_in(const struct prov_hunk *h, const struct located *loc);
enum prov_hunk_state in_function_only(const struct prov_hunk *h, const struct located *loc,
					     const char *parent, const char *fix_hex,
					     const struct prov_effect_tree *t, unsigned *how);
enum prov_hunk_state renamed_or_in_function(const struct prov_hunk *h, const struct located *loc,
						   const char *parent, const char *fix_hex,
						   const struct prov_effect_tree *t, unsigned *how, int *renamed);
int locate(struct located *loc, const struct prov_hunk *h, const char *fix_parent,
		  const struct prov_effect_tree *t);
int in_own_function(const struct prov_hunk *h, const struct located *loc);
int read_tree_file(struct prov_buf *b, const struct prov_effect_tree *t, const char *path);

/* distpatches.c */
const char *carried_by(const struct prov_dist_patches *dp, const struct prov_hunk *h,
			      const char *fix_hex, const char *deployed_path);
const char *carried_by_naming(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				     const char *fix_hex);
const char *names_by_naming(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				   const char *fix_hex, const struct prov_hunk_file *pre, const char *deployed_path);
int naming_patch_changes(const struct prov_dist_patches *dp, const char *fix_hex, const struct prov_hunk *h,
				const char *deployed_path);
int own_mechanism_left_out(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				  const char *fix_hex, const struct located *loc);
int touched_by(const struct prov_dist_patches *dp, const struct prov_hunk *h);
const char *undone_by_later(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				   const char *fix_hex, const char *deployed_path, const char **carrier, int *revert);

/* fixevidence.c */
int removes_used_function(const struct prov_hunk *h, const struct located *loc,
				 const struct prov_dist_patches *dp);
int adds_only(const struct prov_hunk *h);
int adds_absent_headers_only(const struct prov_hunk *h, const struct prov_effect_tree *t);
int add_evidence(struct prov_effect *out, const char *fix_hex, const struct prov_hunk *h,
			const struct located *loc, enum prov_hunk_state st, const char *via);
void shipped_new_tests(struct prov_effect *out, const struct prov_hunks *hs, const struct located *locs,
			      size_t nlocs);
void new_files_apart(struct prov_effect *out, const struct prov_hunks *hs);

#endif
