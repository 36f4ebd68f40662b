/* The source importer's private parts, shared by srcimport.c, srcimport-quilt.c and srcimport-deb.c. */
#ifndef PROV_SRCIMPORT_INT_H
#define PROV_SRCIMPORT_INT_H

#include <stdint.h>

#include <git2.h>

/* srcimport.h comes first in each includer (its stats struct is used here by value); not included
 * here, as a .c and its .h are one node of the include graph (t-layers) */

/* A directory tree being built in memory; files point at blobs already written. */
struct tnode {
	char *name;
	unsigned mode;	/* GIT_FILEMODE_* */
	git_oid oid;	/* blobs */
	struct tnode **kids;	/* trees */
	size_t n, alloc;
	size_t *hslots;	/* name hash -> kid index + 1 (big directories), or NULL */
	size_t nhslots;
};

struct import_state {
	git_repository *repo;
	uint64_t max_bytes, max_entries;
	uint64_t bytes, entries;
	uint64_t skipped;
	uint64_t line_compares, patches_applied;	/* work counts of a series */
};

/* child names compared by tnode_slot on this thread: a work count for the stats */
extern __thread uint64_t tnode_compares;

/* An open, locked repository for an import. */
struct import_repo {
	git_repository *repo;
	char *path;
	int lock_fd;
};

/* One import into a repository of the cache: what the archive and Debian imports share. */
struct import_run {
	struct import_repo ir;
	struct import_state st;
	struct prov_srcimport_stats stats;
	char *hex;	/* the imported commit */
	uint64_t t0;	/* when the import (after the download) began */
	uint64_t compares0;	/* tnode_compares when the run began */
};

#define IMPORT_RUN_INIT { .ir = { NULL, NULL, -1 }, .compares0 = tnode_compares }

void tnode_free(struct tnode *t);
struct tnode *tnode_new(const char *name, size_t len, unsigned mode);
void tnode_add(struct tnode *dir, struct tnode *kid);
struct tnode *tnode_take(struct tnode *dir, const char *name);
int tnode_write(git_oid *out, int *out_empty, git_repository *repo, const struct tnode *t);
struct tnode *tnode_strip_top(struct tnode *root);
int si_commit_tree(git_oid *out, git_repository *repo, const git_oid *tree_oid,
		       const git_oid *parent_oid, const char *msg);
int si_fetch(char **out, const char *url, const struct prov_srcimport_opts *o, uint64_t *ms);
int import_download(struct tnode *root, struct import_state *st, const char *file, const char *url,
			   const struct prov_srcimport_opts *o);
int import_begin(struct import_run *r, const struct prov_srcimport_opts *o, const char *name,
			const char *refname, int *out_npatches);
int import_record(struct import_run *r, const char *refname, const git_oid *commit,
			 const char *why);
void import_hand_out(struct import_run *r, char **out_repo, char **out_commit);
void import_run_release(struct import_run *r, const struct prov_srcimport_opts *o);
int si_apply_series(int *out, git_oid *tree_oid, struct import_state *st);

#endif
