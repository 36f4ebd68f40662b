/* Suspects: upstream commits after the deployed one that changed a crash line (suspects.h). */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "sources-git.h"
#include "suspects.h"
#include "util.h"
#include "banned.h"

/*
 * `git log -L` walks from a head backwards and maps the range at the head
 * to each parent. We know the lines at the deployed commit instead, so we
 * walk the other way: commits not reachable from the deployed one, parents
 * before children (topological, reversed), each commit's ranges mapped from
 * its parent's through the diff of the file. Only commits that change the
 * file's blob are diffed; the rest copy their parent's state.
 */

struct range {
	int s, e;	/* 0-based, [s, e); s < 0: gone (the lines were deleted) */
};

/* One followed file at one commit. */
struct fstate {
	git_oid blob;	/* the file's blob there */
	git_oid top;	/* the tree entry of the path's first component */
	unsigned int path;	/* index into walk.paths */
	unsigned char has_blob;	/* 0: the file is gone (its ranges are gone) */
	unsigned char has_top;
};

struct state {
	git_oid id;	/* the commit */
};

struct hunk {
	int os, oc, ns, nc;	/* 0-based old start / count, new start / count */
};

struct walk {
	git_repository *repo;
	size_t nr;	/* ranges per state */
	size_t nf;	/* files per state */
	const size_t *rfile;	/* the file of each range */
	struct state *st;
	struct fstate *fs;	/* nf per state */
	struct range *rg;	/* nr per state */
	size_t nst, alloc;
	size_t *slots;	/* open addressing: index + 1, 0 = empty */
	size_t nslots;
	char *paths[PROV_SUSPECTS_MAX_RENAMES + PROV_SUSPECTS_MAX_FRAMES + 1];
	char *firsts[PROV_SUSPECTS_MAX_RENAMES + PROV_SUSPECTS_MAX_FRAMES + 1];	/* first components */
	size_t npaths, nrenames;
	struct hunk *hunks;
	size_t nhunks, hunks_alloc;
	size_t deployed;	/* index of the deployed commit's state */
};

static size_t oid_slot(const struct walk *w, const git_oid *id)
{
	size_t h;

	memcpy(&h, id->id, sizeof(h));
	return h & (w->nslots - 1);
}

/* The index of id's state, or (size_t)-1. */
static size_t lookup(struct walk *w, const git_oid *id)
{
	size_t i = oid_slot(w, id);

	while (w->slots[i]) {
		size_t k = w->slots[i] - 1;

		if (git_oid_equal(&w->st[k].id, id))
			return k;
		i = (i + 1) & (w->nslots - 1);
	}
	return (size_t)-1;
}

static void rehash(struct walk *w, size_t nslots)
{
	size_t i;

	free(w->slots);
	w->nslots = nslots;
	w->slots = prov_xcalloc(nslots, sizeof(*w->slots));
	for (i = 0; i < w->nst; i++) {
		size_t k = oid_slot(w, &w->st[i].id);

		while (w->slots[k])
			k = (k + 1) & (nslots - 1);
		w->slots[k] = i + 1;
	}
}

/* A new state for `id` (not yet present), zeroed; its index. */
static size_t add_state(struct walk *w, const git_oid *id)
{
	size_t old = w->alloc, k, idx;

	if ((w->nst + 1) * 2 > w->nslots)
		rehash(w, w->nslots ? w->nslots * 2 : 1024);
	PROV_ALLOC_GROW(w->st, w->nst + 1, w->alloc);
	if (w->alloc != old) {
		w->rg = prov_xrealloc(w->rg, w->alloc * w->nr * sizeof(*w->rg));
		w->fs = prov_xrealloc(w->fs, w->alloc * w->nf * sizeof(*w->fs));
	}
	idx = w->nst;
	memset(&w->st[idx], 0, sizeof(w->st[idx]));
	memset(&w->fs[idx * w->nf], 0, w->nf * sizeof(*w->fs));
	git_oid_cpy(&w->st[idx].id, id);
	k = oid_slot(w, id);
	while (w->slots[k])
		k = (k + 1) & (w->nslots - 1);
	w->slots[k] = ++w->nst;
	return idx;
}

static struct fstate *fs_of(struct walk *w, size_t s, size_t f)
{
	return &w->fs[s * w->nf + f];
}

static struct range *rg_of(struct walk *w, size_t s, size_t r)
{
	return &w->rg[s * w->nr + r];
}

static int hunk_cb(const git_diff_delta *d, const git_diff_hunk *h, void *payload)
{
	struct walk *w = payload;
	struct hunk *x;

	(void)d;
	PROV_ALLOC_GROW(w->hunks, w->nhunks + 1, w->hunks_alloc);
	x = &w->hunks[w->nhunks++];
	x->oc = h->old_lines;
	x->nc = h->new_lines;
	/* "-5,0" means after old line 5: insertion before 0-based index 5 */
	x->os = h->old_lines ? h->old_start - 1 : h->old_start;
	x->ns = h->new_lines ? h->new_start - 1 : h->new_start;
	return 0;
}

/* The hunks of old -> new (no context) in w->hunks. */
static int diff_blobs(struct walk *w, const git_oid *old, const git_oid *new)
{
	git_blob *a = NULL, *b = NULL;
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	int error;

	w->nhunks = 0;
	opts.context_lines = 0;
	opts.interhunk_lines = 0;
	opts.flags |= GIT_DIFF_FORCE_TEXT;
	if (git_blob_lookup(&a, w->repo, old) < 0 || git_blob_lookup(&b, w->repo, new) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read a blob");
		goto cleanup;
	}
	if (git_diff_blobs(a, NULL, b, NULL, &opts, NULL, NULL, hunk_cb, NULL, w) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot diff");
		goto cleanup;
	}
	error = 0;
cleanup:
	git_blob_free(a);
	git_blob_free(b);
	return error;
}


/*
 * Map one range across w->hunks; 1 when a hunk touches it (changes or
 * deletes lines inside it, or inserts lines between two of its lines).
 */
static int map_range(struct range *out, const struct walk *w, struct range r)
{
	int touched = 0, ds = 0, de = 0, ns = -1, ne = -1, last;
	size_t i;

	if (r.s < 0) {
		*out = r;
		return 0;
	}
	last = r.e - 1;
	for (i = 0; i < w->nhunks; i++) {
		const struct hunk *h = &w->hunks[i];
		int oend = h->os + h->oc;

		if (h->oc ? (h->os < r.e && oend > r.s) : (h->os > r.s && h->os < r.e))
			touched = 1;
		if (ns < 0) {
			if (h->oc && h->os <= r.s && oend > r.s)
				ns = h->ns;
			else if (h->oc ? oend <= r.s : h->os <= r.s)
				ds += h->nc - h->oc;
		}
		if (ne < 0) {
			if (h->oc && h->os <= last && oend > last)
				ne = h->ns + h->nc;
			else if (h->oc ? oend <= last : h->os <= last)
				de += h->nc - h->oc;
		}
	}
	if (ns < 0)
		ns = r.s + ds;
	if (ne < 0)
		ne = r.e + de;
	if (ne <= ns)
		out->s = out->e = -1;
	else {
		out->s = ns;
		out->e = ne;
	}
	return touched;
}

static int blob_at(git_oid *out, git_commit *commit, const char *path)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	int found = 0;

	if (git_commit_tree(&tree, commit) < 0)
		return prov_error_from_git(PROV_ERROR, "cannot read a tree");
	if (git_tree_entry_bypath(&e, tree, path) == 0 && git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
		git_oid_cpy(out, git_tree_entry_id(e));
		found = 1;
	}
	git_tree_entry_free(e);
	git_tree_free(tree);
	return found;
}

/*
 * The id of the entry named `first` (a path's first component) in the
 * commit's root tree: 1 and *out, 0 when absent, or an error. When it equals
 * the parent's, nothing under it changed: no deeper tree is read.
 */
static int top_at(git_oid *out, git_commit *commit, const char *first)
{
	git_tree *tree = NULL;
	const git_tree_entry *e;
	int found = 0;

	if (git_commit_tree(&tree, commit) < 0)
		return prov_error_from_git(PROV_ERROR, "cannot read a tree");
	if ((e = git_tree_entry_byname(tree, first))) {
		git_oid_cpy(out, git_tree_entry_id(e));
		found = 1;
	}
	git_tree_free(tree);
	return found;
}

static char *first_component(const char *path)
{
	const char *slash = strchr(path, '/');

	return slash ? prov_xstrndup(path, (size_t)(slash - path)) : prov_xstrdup(path);
}

/* The path `path` was renamed to in parent -> commit, or NULL. */
static char *renamed_to(struct walk *w, git_commit *parent, git_commit *commit, const char *path)
{
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	git_diff_find_options fo = GIT_DIFF_FIND_OPTIONS_INIT;
	char *out = NULL;
	size_t i, n;

	fo.flags = GIT_DIFF_FIND_RENAMES;
	if (git_commit_tree(&a, parent) < 0 || git_commit_tree(&b, commit) < 0 ||
	    git_diff_tree_to_tree(&diff, w->repo, a, b, NULL) < 0 ||
	    git_diff_find_similar(diff, &fo) < 0)
		goto cleanup;
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status == GIT_DELTA_RENAMED && d->old_file.path && d->new_file.path &&
		    !strcmp(d->old_file.path, path)) {
			out = prov_xstrdup(d->new_file.path);
			break;
		}
	}
cleanup:
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	return out;
}

static unsigned int intern_path(struct walk *w, char *path)
{
	size_t i;

	for (i = 0; i < w->npaths; i++)
		if (!strcmp(w->paths[i], path)) {
			free(path);
			return (unsigned int)i;
		}
	if (w->nrenames >= PROV_SUSPECTS_MAX_RENAMES) {
		free(path);
		return (unsigned int)-1;
	}
	w->nrenames++;
	w->firsts[w->npaths] = first_component(path);
	w->paths[w->npaths] = path;
	return (unsigned int)w->npaths++;
}

/* Map file f's ranges of state `from` into state `to` across w->hunks; the touched ones' bits. */
static uint64_t map_file(struct walk *w, size_t from, size_t to, size_t f)
{
	uint64_t touched = 0;
	size_t k;

	for (k = 0; k < w->nr; k++)
		if (w->rfile[k] == f && map_range(rg_of(w, to, k), w, *rg_of(w, from, k)))
			touched |= (uint64_t)1 << k;
	return touched;
}

static void copy_file(struct walk *w, size_t from, size_t to, size_t f)
{
	size_t k;

	*fs_of(w, to, f) = *fs_of(w, from, f);
	for (k = 0; k < w->nr; k++)
		if (w->rfile[k] == f)
			*rg_of(w, to, k) = *rg_of(w, from, k);
}

static void gone_file(struct walk *w, size_t s, size_t f)
{
	size_t k;

	fs_of(w, s, f)->has_blob = 0;
	for (k = 0; k < w->nr; k++)
		if (w->rfile[k] == f)
			rg_of(w, s, k)->s = rg_of(w, s, k)->e = -1;
}

/*
 * The state of a parent outside the walk (an ancestor of the deployed
 * commit, or a commit of a side branch forked before it): each file at its
 * deployed path, its ranges mapped straight from the deployed blob.
 */
static int base_state(size_t *out, struct walk *w, const git_oid *id)
{
	git_commit *commit = NULL;
	size_t s, f;
	int error;

	if (git_commit_lookup(&commit, w->repo, id) < 0)
		return prov_error_from_git(PROV_ERROR, "cannot read a commit");
	s = add_state(w, id);
	for (f = 0; f < w->nf; f++) {
		const struct fstate *dep = fs_of(w, w->deployed, f);
		struct fstate cur;
		int found = 0, has_top = 0;

		if (!dep->has_blob) {
			gone_file(w, s, f);
			continue;
		}
		memset(&cur, 0, sizeof(cur));
		if ((found = blob_at(&cur.blob, commit, w->paths[f])) < 0 ||
		    (has_top = top_at(&cur.top, commit, w->firsts[f])) < 0) {
			error = found < 0 ? found : has_top;
			goto cleanup;
		}
		cur.path = (unsigned int)f;
		cur.has_top = (unsigned char)has_top;
		cur.has_blob = (unsigned char)found;
		if (!found) {
			gone_file(w, s, f);
		} else if (git_oid_equal(&cur.blob, &dep->blob)) {
			copy_file(w, w->deployed, s, f);
			*fs_of(w, s, f) = cur;
		} else {
			*fs_of(w, s, f) = cur;
			if ((error = diff_blobs(w, &dep->blob, &cur.blob)) < 0)
				goto cleanup;
			map_file(w, w->deployed, s, f);
		}
	}
	*out = s;
	error = 0;
cleanup:
	git_commit_free(commit);
	return error;
}

/* File f at commit (state s, parents ps): its blob, ranges and the ranges it touched. */
static int process_file(uint64_t *touched, struct walk *w, git_commit *commit, git_commit **pcommit,
			size_t s, const size_t *ps, size_t nps, size_t f)
{
	size_t i, bi = (size_t)-1, si = (size_t)-1;
	struct fstate cur;
	int found = 0, has_top = 0, error;

	memset(&cur, 0, sizeof(cur));
	for (i = 0; i < nps && bi == (size_t)-1; i++)
		if (fs_of(w, ps[i], f)->has_blob)
			bi = ps[i];
	if (bi == (size_t)-1) {
		gone_file(w, s, f);
		return 0;
	}
	cur.path = fs_of(w, bi, f)->path;
	if ((has_top = top_at(&cur.top, commit, w->firsts[cur.path])) < 0)
		return has_top;
	if (has_top && fs_of(w, bi, f)->has_top && git_oid_equal(&cur.top, &fs_of(w, bi, f)->top)) {
		/* nothing under the path's first directory changed */
		copy_file(w, bi, s, f);
		return 0;
	}
	if (has_top && (found = blob_at(&cur.blob, commit, w->paths[cur.path])) < 0)
		return found;
	if (!found) {
		/* the file left this path: renamed, or deleted */
		char *to = NULL;

		if (!*pcommit && git_commit_parent(pcommit, commit, 0) < 0)
			*pcommit = NULL;
		if (*pcommit)
			to = renamed_to(w, *pcommit, commit, w->paths[cur.path]);
		if (to) {
			unsigned int p2 = intern_path(w, to);

			if (p2 != (unsigned int)-1 && (found = blob_at(&cur.blob, commit, w->paths[p2])) < 0)
				return found;
			if (found) {
				cur.path = p2;
				if ((has_top = top_at(&cur.top, commit, w->firsts[p2])) < 0)
					return has_top;
			}
		}
	}
	if (!found) {
		/* the file was deleted: so were the lines */
		size_t k;

		for (k = 0; k < w->nr; k++)
			if (w->rfile[k] == f && rg_of(w, bi, k)->s >= 0)
				*touched |= (uint64_t)1 << k;
		gone_file(w, s, f);
		return 0;
	}
	cur.has_blob = 1;
	cur.has_top = (unsigned char)has_top;
	for (i = 0; i < nps && si == (size_t)-1; i++)
		if (fs_of(w, ps[i], f)->has_blob && git_oid_equal(&fs_of(w, ps[i], f)->blob, &cur.blob))
			si = ps[i];
	if (si != (size_t)-1) {
		/* the same blob as a parent's (a merge, a pure rename): its ranges */
		copy_file(w, si, s, f);
		*fs_of(w, s, f) = cur;
		return 0;
	}
	if ((error = diff_blobs(w, &fs_of(w, bi, f)->blob, &cur.blob)) < 0)
		return error;
	*fs_of(w, s, f) = cur;
	*touched |= map_file(w, bi, s, f);
	return 0;
}

static int process(uint64_t *touched, struct walk *w, const git_oid *id)
{
	git_commit *commit = NULL, *pcommit = NULL;
	size_t ps[8];	/* indexes: add_state moves the states */
	size_t np, i, nps = 0, s, f;
	int error = 0;

	*touched = 0;
	if (git_commit_lookup(&commit, w->repo, id) < 0)
		return prov_error_from_git(PROV_ERROR, "cannot read a commit");
	np = git_commit_parentcount(commit);
	for (i = 0; i < np && nps < 8; i++) {
		const git_oid *pid = git_commit_parent_id(commit, (unsigned int)i);
		size_t p = lookup(w, pid);

		if (p != (size_t)-1)
			ps[nps++] = p;
		else if ((error = base_state(&ps[nps++], w, pid)) < 0)
			goto cleanup;
	}
	s = add_state(w, id);
	for (f = 0; f < w->nf && !error; f++)
		error = process_file(touched, w, commit, &pcommit, s, ps, nps, f);
cleanup:
	git_commit_free(pcommit);
	git_commit_free(commit);
	return error;
}

static void walk_release(struct walk *w)
{
	size_t i;

	for (i = 0; i < w->npaths; i++) {
		free(w->paths[i]);
		free(w->firsts[i]);
	}
	free(w->st);
	free(w->fs);
	free(w->rg);
	free(w->slots);
	free(w->hunks);
}

int prov_suspects_follow(struct prov_touch **out, size_t *nout, struct prov_repo *r,
			 const char *deployed_hex, char *const *heads, size_t nheads,
			 const char *const *paths, size_t npaths,
			 const struct prov_line_range *ranges, const size_t *range_file, size_t nranges)
{
	struct walk w;
	git_revwalk *rw = NULL;
	git_commit *dc = NULL;
	git_oid dep, oid;
	struct prov_touch *list = NULL;
	size_t n = 0, alloc = 0, i, walked = 0, ds, nfound = 0;
	int error, found;

	memset(&w, 0, sizeof(w));
	if (nranges == 0 || nranges > PROV_SUSPECTS_MAX_RANGES || npaths == 0 ||
	    npaths > PROV_SUSPECTS_MAX_FRAMES)
		return prov_error_set(PROV_ELIMIT, "%zu line ranges in %zu files to follow (at most %d in %d)",
				      nranges, npaths, PROV_SUSPECTS_MAX_RANGES, PROV_SUSPECTS_MAX_FRAMES);
	for (i = 0; i < nranges; i++)
		if (range_file[i] >= npaths)
			return prov_error_set(PROV_ERROR, "range %zu names no file", i);
	w.repo = prov_repo_git(r);
	w.nr = nranges;
	w.nf = npaths;
	w.rfile = range_file;
	for (i = 0; i < npaths; i++) {
		w.firsts[w.npaths] = first_component(paths[i]);
		w.paths[w.npaths++] = prov_xstrdup(paths[i]);
	}
	if (git_oid_fromstr(&dep, deployed_hex) < 0 || git_commit_lookup(&dc, w.repo, &dep) < 0) {
		error = prov_error_set(PROV_ENOTFOUND, "commit '%s' is not in the repository", deployed_hex);
		goto cleanup;
	}
	ds = add_state(&w, &dep);
	w.deployed = ds;
	for (i = 0; i < npaths; i++) {
		struct fstate *x = fs_of(&w, ds, i);
		int has_top;

		if ((found = blob_at(&x->blob, dc, paths[i])) < 0 ||
		    (has_top = top_at(&x->top, dc, w.firsts[i])) < 0) {
			error = found < 0 ? found : has_top;
			goto cleanup;
		}
		x->path = (unsigned int)i;
		x->has_blob = (unsigned char)found;
		x->has_top = (unsigned char)has_top;
		nfound += found > 0;
	}
	if (!nfound) {
		error = prov_error_set(PROV_ENOTFOUND, "'%s' is not a file at %.12s", paths[0], deployed_hex);
		goto cleanup;
	}
	for (i = 0; i < nranges; i++) {
		struct range *rg = rg_of(&w, ds, i);

		rg->s = ranges[i].start - 1;
		rg->e = ranges[i].end;
		if (rg->s < 0 || rg->e <= rg->s || !fs_of(&w, ds, range_file[i])->has_blob)
			rg->s = rg->e = -1;
	}
	if (git_revwalk_new(&rw, w.repo) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot walk history");
		goto cleanup;
	}
	git_revwalk_sorting(rw, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	for (i = 0; i < nheads; i++) {
		git_oid h;

		if (git_oid_fromstr(&h, heads[i]) < 0 || git_revwalk_push(rw, &h) < 0) {
			error = prov_error_from_git(PROV_ERROR, "cannot walk history");
			goto cleanup;
		}
	}
	if (git_revwalk_hide(rw, &dep) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot walk history");
		goto cleanup;
	}
	while ((error = git_revwalk_next(&oid, rw)) == 0) {
		uint64_t touched;

		if (++walked > PROV_SUSPECTS_MAX_COMMITS) {
			error = prov_error_set(PROV_ELIMIT, "more than %d commits after %.12s",
					       PROV_SUSPECTS_MAX_COMMITS, deployed_hex);
			goto cleanup;
		}
		if (lookup(&w, &oid) != (size_t)-1)
			continue;	/* already made as a side branch's base */
		if ((error = process(&touched, &w, &oid)) < 0)
			goto cleanup;
		if (touched) {
			PROV_ALLOC_GROW(list, n + 1, alloc);
			git_oid_tostr(list[n].commit, sizeof(list[n].commit), &oid);
			list[n].ranges = touched;
			n++;
		}
	}
	if (error != GIT_ITEROVER) {
		error = prov_error_from_git(PROV_ERROR, "cannot walk history");
		goto cleanup;
	}
	*out = list;
	*nout = n;
	list = NULL;
	error = 0;
cleanup:
	free(list);
	git_revwalk_free(rw);
	git_commit_free(dc);
	walk_release(&w);
	return error;
}

static int hex_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_head(char ***list, size_t *n, size_t *alloc, const git_oid *id)
{
	char hex[GIT_OID_HEXSZ + 1];
	size_t i;

	git_oid_tostr(hex, sizeof(hex), id);
	for (i = 0; i < *n; i++)
		if (!strcmp((*list)[i], hex))
			return;
	PROV_ALLOC_GROW(*list, *n + 1, *alloc);
	(*list)[(*n)++] = prov_xstrdup(hex);
}

int prov_suspects_heads(char ***out, size_t *nout, struct prov_repo *r, const char *deployed_hex)
{
	git_repository *repo = prov_repo_git(r);
	git_branch_iterator *it = NULL;
	git_reference *ref = NULL;
	git_branch_t type;
	git_oid dep, id;
	char **list = NULL;
	size_t n = 0, alloc = 0, tested = 0;

	if (git_oid_fromstr(&dep, deployed_hex) < 0)
		return prov_error_set(PROV_EINPUT, "'%s' is not a full commit id", deployed_hex);
	if (git_reference_name_to_id(&id, repo, "refs/remotes/origin/HEAD") == 0 ||
	    git_reference_name_to_id(&id, repo, "HEAD") == 0)
		add_head(&list, &n, &alloc, &id);
	if (git_branch_iterator_new(&it, repo, GIT_BRANCH_LOCAL) == 0) {
		while (git_branch_next(&ref, &type, it) == 0) {
			git_reference *res = NULL;

			if (git_reference_resolve(&res, ref) == 0 && git_reference_target(res)) {
				const git_oid *t = git_reference_target(res);

				size_t i;
				int known = git_oid_equal(t, &dep);

				for (i = 0; i < n && !known; i++) {
					git_oid h;

					known = git_oid_fromstr(&h, list[i]) == 0 && git_oid_equal(&h, t);
				}
				/* a head already listed needs no ancestry walk */
				if (!known && tested++ < PROV_SUSPECTS_MAX_BRANCHES &&
				    git_graph_descendant_of(repo, t, &dep) == 1)
					add_head(&list, &n, &alloc, t);
			}
			git_reference_free(res);
			git_reference_free(ref);
			ref = NULL;
		}
		git_branch_iterator_free(it);
	}
	if (n > 1)
		qsort(list, n, sizeof(*list), hex_cmp);
	*out = list;
	*nout = n;
	return 0;
}

/* Case-insensitive: does `word` start a word of `msg`? */
static int says(const char *msg, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = msg; *p; p++)
		if ((p == msg || !isalnum((unsigned char)p[-1])) && !strncasecmp(p, word, n))
			return 1;
	return 0;
}

static int fix_words(const char *msg)
{
	static const char *const words[] = {
		"fix", "crash", "race", "null", "nullptr", "overflow", "underflow", "leak", "uaf",
		"use-after-free", "use after free", "segfault", "double free", "deref", NULL
	};
	size_t i;

	for (i = 0; words[i]; i++)
		if (says(msg, words[i]))
			return 1;
	return 0;
}

/* The last component of a function name: "ns::cls::f(int)" -> "f". */
static char *bare_name(const char *function)
{
	const char *end, *start, *p;
	int depth = 0;

	if (!function)
		return NULL;
	end = strchr(function, '(');
	if (!end)
		end = function + strlen(function);
	/* drop template arguments at the end: f<int> -> f */
	while (end > function && end[-1] == '>') {
		for (p = end - 1; p > function; p--) {
			if (*p == '>')
				depth++;
			else if (*p == '<' && --depth == 0)
				break;
		}
		if (p <= function)
			break;
		end = p;
	}
	start = end;
	while (start > function && (isalnum((unsigned char)start[-1]) || start[-1] == '_' ||
				    start[-1] == '~'))
		start--;
	if (start == end)
		return NULL;
	return prov_xstrndup(start, (size_t)(end - start));
}

int prov_suspects_function_range(struct prov_line_range *out, const char *text, size_t len,
				 const char *function, int line)
{
	char *name = bare_name(function);
	size_t nlines = 0, i, nl = strlen(name ? name : "");
	size_t *starts = NULL, alloc = 0;
	int error = PROV_ENOTFOUND, cand;

	if (!name || line < 1)
		goto cleanup;
	PROV_ALLOC_GROW(starts, 1, alloc);
	starts[nlines++] = 0;
	for (i = 0; i < len; i++)
		if (text[i] == '\n' && i + 1 < len) {
			PROV_ALLOC_GROW(starts, nlines + 1, alloc);
			starts[nlines++] = i + 1;
		}
	if ((size_t)line > nlines)
		goto cleanup;
	for (cand = line; cand >= 1 && line - cand < 5000; cand--) {
		size_t ls = starts[cand - 1], le = (size_t)cand < nlines ? starts[cand] : len;
		const char *hit = NULL, *p;
		size_t pos;
		int depth = 0, in_str = 0, opened = 0, cur = cand;

		for (p = text + ls; p + nl <= text + le; p++) {
			const char *q = p + nl;

			if (memcmp(p, name, nl) ||
			    (p > text + ls && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
				continue;
			/* a definition: only a return type and qualifiers before the
			 * name (not "if (f(x)) {" or "x = f(y);") */
			if (strspn(text + ls, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_ \t*&:<>,~") <
			    (size_t)(p - (text + ls)))
				continue;
			while (q < text + le && (*q == ' ' || *q == '\t'))
				q++;
			if (q < text + le && *q == '(') {
				hit = p;
				break;
			}
		}
		if (!hit)
			continue;
		/* from the name: the first '{' before any ';' opens the body
		 * (at most 4 MiB on: a body longer than that is not a function) */
		for (pos = (size_t)(hit - text); pos < len && pos - (size_t)(hit - text) < ((size_t)4 << 20); pos++) {
			char ch = text[pos];

			if (ch == '\n') {
				cur++;
				continue;
			}
			if (in_str) {
				if (ch == '\\')
					pos++;
				else if (ch == in_str)
					in_str = 0;
				continue;
			}
			if (ch == '/' && pos + 1 < len && text[pos + 1] == '/') {
				while (pos + 1 < len && text[pos + 1] != '\n')
					pos++;
				continue;
			}
			if (ch == '/' && pos + 1 < len && text[pos + 1] == '*') {
				for (pos += 2; pos + 1 < len && !(text[pos] == '*' && text[pos + 1] == '/'); pos++)
					if (text[pos] == '\n')
						cur++;
				pos++;
				continue;
			}
			if (ch == '"' || ch == '\'') {
				in_str = ch;
				continue;
			}
			if (ch == ';' && !opened)
				break;
			if (ch == '{') {
				opened = 1;
				depth++;
			} else if (ch == '}' && opened && --depth == 0) {
				break;
			}
		}
		if (opened && depth != 0)
			break;	/* a body that never closes: no earlier line can hold one either */
		if (!opened || pos >= len)
			continue;
		if (cur >= line) {
			out->start = cand;
			out->end = cur;
			error = 0;
		}
		break;
	}
cleanup:
	free(starts);
	free(name);
	return error;
}

/* ---------------------------------------------------------------- the stage */

struct fr {
	size_t frame;	/* index into the thread's frames */
	int line;
	struct prov_line_range func;	/* start 0: unknown */
};

struct group {
	const struct prov_component *comp;
	const char *path;
	struct fr frs[PROV_SUSPECTS_MAX_FRAMES];
	size_t nfrs;
	/* the ranges followed: each frame's line, then its function when found */
	struct prov_line_range rg[2 * PROV_SUSPECTS_MAX_FRAMES];
	int rframe[2 * PROV_SUSPECTS_MAX_FRAMES];	/* index into frs */
	int rline[2 * PROV_SUSPECTS_MAX_FRAMES];	/* 1: a crash line; 0: a function */
	size_t nr;
	char *key;	/* in the cache */
	struct prov_touch *touches;	/* bits: rg */
	size_t nt;
	int have;	/* touches are known (cached or followed) */
};

static int read_blob(struct prov_buf *out, struct prov_repo *r, const char *commit_hex,
		     const char *path)
{
	git_repository *repo = prov_repo_git(r);
	git_oid id, bid;
	git_commit *c = NULL;
	git_blob *b = NULL;
	int found, error;

	if (git_oid_fromstr(&id, commit_hex) < 0 || git_commit_lookup(&c, repo, &id) < 0)
		return prov_error_set(PROV_ENOTFOUND, "commit '%s' is not in the repository", commit_hex);
	if ((found = blob_at(&bid, c, path)) <= 0) {
		error = found < 0 ? found : PROV_ENOTFOUND;
		goto cleanup;
	}
	if (git_blob_lookup(&b, repo, &bid) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read a blob");
		goto cleanup;
	}
	if ((size_t)git_blob_rawsize(b) > PROV_SOURCES_MAX_BLOB) {
		error = PROV_ELIMIT;
		goto cleanup;
	}
	error = prov_buf_add(out, git_blob_rawcontent(b), (size_t)git_blob_rawsize(b));
cleanup:
	git_blob_free(b);
	git_commit_free(c);
	return error;
}

/* Subject, whole message and committer time of a commit. */
static int commit_info(char **subject, int *fixy, int64_t *time, struct prov_repo *r,
		       const char *hex)
{
	git_oid id;
	git_commit *c = NULL;
	const char *s, *msg;

	if (git_oid_fromstr(&id, hex) < 0 || git_commit_lookup(&c, prov_repo_git(r), &id) < 0)
		return prov_error_from_git(PROV_ERROR, "cannot read a commit");
	s = git_commit_summary(c);
	msg = git_commit_message(c);
	*subject = prov_xstrdup(s ? s : "");
	*fixy = fix_words(msg ? msg : "");
	*time = (int64_t)git_commit_time(c);
	git_commit_free(c);
	return 0;
}

static int suspect_cmp(const void *a, const void *b)
{
	const struct prov_suspect *x = a, *y = b;

	if (x->crash_line != y->crash_line)
		return y->crash_line - x->crash_line;
	if (x->fix_words != y->fix_words)
		return y->fix_words - x->fix_words;
	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	return strcmp(x->commit, y->commit);
}

static struct prov_suspect *suspect_for(struct prov_crash *c, const char *hex, size_t first)
{
	size_t i;

	for (i = first; i < c->nsuspects; i++)
		if (!strcmp(c->suspects[i].commit, hex))
			return &c->suspects[i];
	return NULL;
}

static void add_frame(struct prov_suspect *s, int index)
{
	size_t i;

	for (i = 0; i < s->nframes; i++)
		if (s->frames[i] == index)
			return;
	s->frames = prov_xrealloc(s->frames, (s->nframes + 1) * sizeof(*s->frames));
	s->frames[s->nframes++] = index;
}

/* The cache key: repository, deployed commit, heads, path, ranges. */
static char *cache_key(const struct group *g, char *const *heads, size_t nheads,
		       const struct prov_line_range *rg, size_t nr)
{
	struct prov_buf b = PROV_BUF_INIT;
	size_t i;

	prov_buf_printf(&b, "suspects/1|%s|%s|", g->comp->repo, g->comp->commit);
	for (i = 0; i < nheads; i++)
		prov_buf_printf(&b, "%s%s", i ? "," : "", heads[i]);
	prov_buf_printf(&b, "|%s|", g->path);
	for (i = 0; i < nr; i++)
		prov_buf_printf(&b, "%s%d-%d", i ? "," : "", rg[i].start, rg[i].end);
	return prov_buf_detach(&b);
}

static char *touches_format(const struct prov_touch *t, size_t n)
{
	struct prov_buf b = PROV_BUF_INIT;
	size_t i;

	prov_buf_puts(&b, "");
	for (i = 0; i < n; i++)
		prov_buf_printf(&b, "%s %" PRIx64 "\n", t[i].commit, t[i].ranges);
	return prov_buf_detach(&b);
}

/* 0 and the list, or PROV_EINPUT when the cached text is not ours. */
static int touches_parse(struct prov_touch **out, size_t *nout, const char *text)
{
	struct prov_touch *list = NULL;
	size_t n = 0, alloc = 0;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		uint64_t v;

		if (!nl || nl - p < 42 || p[40] != ' ' ||
		    prov_parse_u64(&v, p + 41, (size_t)(nl - p - 41), 16) < 0) {
			free(list);
			return PROV_EINPUT;
		}
		PROV_ALLOC_GROW(list, n + 1, alloc);
		memcpy(list[n].commit, p, 40);
		list[n].commit[40] = '\0';
		list[n].ranges = v;
		n++;
		p = nl + 1;
	}
	*out = list;
	*nout = n;
	return 0;
}

/* Prepare group g: its ranges, its cache key, and its touches when cached. */
static int group_prepare(struct prov_crash *c, const struct prov_thread *t, struct group *g,
			 struct prov_repo *repo, char *const *heads, size_t nheads,
			 const struct prov_suspects_opts *opts)
{
	struct prov_buf text = PROV_BUF_INIT;
	size_t i, nlines = 0;
	char *cached = NULL;
	int error;

	if ((error = read_blob(&text, repo, g->comp->commit, g->path)) < 0) {
		if (error == PROV_ENOTFOUND || error == PROV_ELIMIT)
			error = 0;
		goto cleanup;
	}
	for (i = 0; i < text.len; i++)
		nlines += text.buf[i] == '\n';
	if (text.len && text.buf[text.len - 1] != '\n')
		nlines++;
	for (i = 0; i < g->nfrs; i++) {
		const struct prov_frame *f = &t->frames[g->frs[i].frame];

		/* a line past the end of the file (a stale or hostile line table) is not followed */
		if ((size_t)g->frs[i].line > nlines)
			continue;
		c->suspects_frames++;
		g->rg[g->nr].start = g->rg[g->nr].end = g->frs[i].line;
		g->rframe[g->nr] = (int)i;
		g->rline[g->nr++] = 1;
		if (prov_suspects_function_range(&g->frs[i].func, text.buf, text.len, f->function,
						 g->frs[i].line) == 0) {
			g->rg[g->nr] = g->frs[i].func;
			g->rframe[g->nr] = (int)i;
			g->rline[g->nr++] = 0;
		}
	}
	if (!g->nr)
		goto cleanup;
	g->key = cache_key(g, heads, nheads, g->rg, g->nr);
	if (opts->cache && prov_cache_suspects_get(&cached, opts->cache, g->key) == 0 &&
	    touches_parse(&g->touches, &g->nt, cached) == 0)
		g->have = 1;
	error = 0;
cleanup:
	free(cached);
	prov_buf_release(&text);
	return error;
}

/*
 * Follow the uncached groups of one component in as few walks as the caps
 * allow (one walk reads each commit once for all their files), then give
 * each group its touches and cache them.
 */
static int follow_groups(struct group *groups, size_t ng, const struct prov_component *comp,
			 struct prov_repo *repo, char *const *heads, size_t nheads,
			 const struct prov_suspects_opts *opts)
{
	struct prov_line_range rg[PROV_SUSPECTS_MAX_RANGES];
	size_t rfile[PROV_SUSPECTS_MAX_RANGES], gi[PROV_SUSPECTS_MAX_FRAMES];
	size_t off[PROV_SUSPECTS_MAX_FRAMES];
	const char *paths[PROV_SUSPECTS_MAX_FRAMES];
	size_t i = 0, k, j, t;
	int error = 0;

	while (i < ng) {
		struct prov_touch *touches = NULL;
		size_t nt = 0, nf = 0, nr = 0;

		/* a batch: uncached groups of this component, within the caps */
		for (; i < ng && nf < PROV_SUSPECTS_MAX_FRAMES; i++) {
			struct group *g = &groups[i];

			if (g->comp != comp || g->have || !g->nr)
				continue;
			if (nr + g->nr > PROV_SUSPECTS_MAX_RANGES)
				break;
			gi[nf] = i;
			off[nf] = nr;
			paths[nf] = g->path;
			for (k = 0; k < g->nr; k++) {
				rg[nr] = g->rg[k];
				rfile[nr++] = nf;
			}
			nf++;
		}
		if (!nf)
			break;
		error = prov_suspects_follow(&touches, &nt, repo, comp->commit, heads, nheads, paths,
					     nf, rg, rfile, nr);
		if (error < 0)
			return error;
		for (j = 0; j < nf; j++) {
			struct group *g = &groups[gi[j]];
			uint64_t mask = g->nr >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << g->nr) - 1);
			size_t alloc = 0;

			for (t = 0; t < nt; t++) {
				uint64_t bits = (touches[t].ranges >> off[j]) & mask;

				if (!bits)
					continue;
				PROV_ALLOC_GROW(g->touches, g->nt + 1, alloc);
				g->touches[g->nt] = touches[t];
				g->touches[g->nt].ranges = bits;
				g->nt++;
			}
			g->have = 1;
			if (opts->cache) {
				char *v = touches_format(g->touches, g->nt);

				if (prov_cache_suspects_put(opts->cache, g->key, v) < 0)
					prov_warn("%s", prov_error_last());
				free(v);
			}
		}
		free(touches);
	}
	return error;
}

/* Group g's touches as suspects of the crash. */
static void group_merge(struct prov_crash *c, const struct prov_thread *t, struct group *g,
			size_t first)
{
	size_t i, k;

	for (k = 0; k < g->nt; k++) {
		struct prov_suspect *s = suspect_for(c, g->touches[k].commit, first);
		int line_hit = 0;
		const struct prov_frame *f0 = NULL;

		for (i = 0; i < g->nr; i++) {
			const struct prov_frame *f;

			if (!(g->touches[k].ranges & ((uint64_t)1 << i)))
				continue;
			f = &t->frames[g->frs[g->rframe[i]].frame];
			if (!s) {
				s = prov_crash_add_suspect(c);
				s->commit = prov_xstrdup(g->touches[k].commit);
				s->component = prov_xstrdup(g->comp->name);
			}
			add_frame(s, f->index);
			if (g->rline[i] && !line_hit) {
				line_hit = 1;
				f0 = f;
			} else if (!f0) {
				f0 = f;
			}
		}
		if (!s || !f0)
			continue;
		if (line_hit && !s->crash_line) {
			/* the frame whose line it changes names it */
			s->crash_line = 1;
			free(s->path);
			free(s->function);
			s->path = NULL;
			s->function = NULL;
		}
		if (!s->path) {
			s->path = prov_xstrdup(g->path);
			s->function = prov_xstrdup_or_null(f0->function);
		}
	}
}

static char *iso_date(int64_t t)
{
	struct tm tm;
	time_t tt = (time_t)t;
	char buf[32];

	if (!gmtime_r(&tt, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d", &tm))
		return NULL;
	return prov_xstrdup(buf);
}

/* A word for a shell command line: as it is when safe, else single-quoted. */
static char *shell_quote(const char *s)
{
	static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-";
	struct prov_buf b = PROV_BUF_INIT;
	const char *p;

	if (*s && strspn(s, safe) == strlen(s))
		return prov_xstrdup(s);
	prov_buf_putc(&b, '\'');
	for (p = s; *p; p++) {
		if (*p == '\'')
			prov_buf_puts(&b, "'\\''");
		else
			prov_buf_putc(&b, *p);
	}
	prov_buf_putc(&b, '\'');
	return prov_buf_detach(&b);
}

int prov_suspects_find(struct prov_crash *c, const struct prov_suspects_opts *opts)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	struct group *groups = NULL;
	size_t ng = 0, galloc = 0, nseen = 0, i, k, first = c->nsuspects;
	struct prov_sources_opts so = { 0 };
	struct prov_ctx local;
	const struct prov_component *top = NULL;
	int error = 0;

	if (!t && c->nthreads == 1)
		t = &c->threads[0];
	for (i = 0; t && i < t->nframes && nseen < PROV_SUSPECTS_MAX_FRAMES; i++) {
		const struct prov_frame *f = &t->frames[i];
		const struct prov_component *p;
		struct group *g = NULL;

		if (!f->component || !f->repo_path || f->line < 1)
			continue;
		p = prov_crash_component(c, f->component);
		/* an imported source (Debian source package, release archive) has no upstream history */
		if (!p || !p->commit || !p->repo || (p->ref && prov_starts_with(p->ref, "refs/imports/")))
			continue;
		nseen++;
		for (k = 0; k < ng && !g; k++)
			if (groups[k].comp == p && !strcmp(groups[k].path, f->repo_path))
				g = &groups[k];
		if (!g) {
			PROV_ALLOC_GROW(groups, ng + 1, galloc);
			g = &groups[ng++];
			memset(g, 0, sizeof(*g));
			g->comp = p;
			g->path = f->repo_path;
		}
		g->frs[g->nfrs].frame = i;
		g->frs[g->nfrs].line = f->line;
		g->nfrs++;
	}
	so.ctx = opts->ctx;
	if (opts->no_clone) {
		/* the cache's mirrors only (file:// and local paths read as ever) */
		local = *opts->ctx;
		local.offline = 1;
		so.ctx = &local;
	}
	for (i = 0; i < ng; i++) {
		struct prov_repo *repo = NULL;
		char **heads = NULL;
		size_t nheads = 0, h, j;
		size_t before = c->nsuspects;

		/* one repository per component: do its groups together */
		if (i && groups[i - 1].comp == groups[i].comp)
			continue;
		for (j = 0; j < i; j++)
			if (groups[j].comp == groups[i].comp)
				break;
		if (j < i)
			continue;
		/* a branch tip or a guessed tag is not the deployed build: what
		 * changed between the two is not seen from here (issue 22) */
		if (groups[i].comp->commit_is && !strcmp(groups[i].comp->commit_is, "approximate")) {
			free(c->suspects_note);
			c->suspects_note = prov_xasprintf("%s: its commit is approximate (%s): the commits "
							  "are counted from %.12s, not from the deployed build; "
							  "changes between the two are not listed",
							  groups[i].comp->name,
							  groups[i].comp->found_by ? groups[i].comp->found_by : "not exact",
							  groups[i].comp->commit);
		}
		if (prov_sources_open(&repo, groups[i].comp->repo, NULL, 0, 0, &so) < 0 ||
		    prov_suspects_heads(&heads, &nheads, repo, groups[i].comp->commit) < 0) {
			free(c->suspects_note);
			c->suspects_note = !repo && opts->no_clone && !opts->ctx->offline ?
				prov_xasprintf("%s: not looked for: no mirror of '%s' in the cache yet, and "
					       "resolve clones none for suspects (fixcheck, --fix or "
					       "-c suspects.clone=true makes one)", groups[i].comp->name,
					       groups[i].comp->repo) :
				prov_xasprintf("%s: %s", groups[i].comp->name, prov_error_last());
			prov_repo_free(repo);
			continue;
		}
		for (j = i; j < ng && nheads; j++) {
			if (groups[j].comp != groups[i].comp)
				continue;
			if (group_prepare(c, t, &groups[j], repo, heads, nheads, opts) < 0) {
				free(c->suspects_note);
				c->suspects_note = prov_xasprintf("%s: %s: %s", groups[j].comp->name,
								  groups[j].path, prov_error_last());
			}
		}
		if (nheads && (error = follow_groups(groups, ng, groups[i].comp, repo, heads, nheads,
						     opts)) < 0) {
			free(c->suspects_note);
			c->suspects_note = prov_xasprintf("%s: %s", groups[i].comp->name, prov_error_last());
		}
		error = 0;
		for (j = i; j < ng; j++)
			if (groups[j].comp == groups[i].comp && groups[j].have)
				group_merge(c, t, &groups[j], first);
		for (k = before; k < c->nsuspects; k++) {
			struct prov_suspect *s = &c->suspects[k];

			if (commit_info(&s->subject, &s->fix_words, &s->time, repo, s->commit) == 0)
				s->date = iso_date(s->time);
			if (prov_repo_first_tag(&s->first_tag, repo, s->commit) < 0)
				s->first_tag = NULL;
		}
		for (h = 0; h < nheads; h++)
			free(heads[h]);
		free(heads);
		prov_repo_free(repo);
	}
	if (c->nsuspects > first)
		qsort(&c->suspects[first], c->nsuspects - first, sizeof(*c->suspects), suspect_cmp);
	if (c->nsuspects > first && (top = prov_crash_component(c, c->suspects[first].component)) &&
	    top->repo && top->commit) {
		char *repo = shell_quote(top->repo);

		free(c->suspects_fixcheck);
		c->suspects_fixcheck = prov_xasprintf("provenance fixcheck %.12s --repo %s --at %.12s%s",
						      c->suspects[first].commit, repo,
						      top->commit, opts->ctx->offline ? " --offline" : "");
		free(repo);
	}
	for (i = 0; i < ng; i++) {
		free(groups[i].key);
		free(groups[i].touches);
	}
	free(groups);
	return error;
}
