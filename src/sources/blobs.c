/* Files at a commit: their lines and bytes, paths by name, renames, directory lists, blame. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sources.h"
#include "sources-git.h"
#include "sources-int.h"
#include "util.h"
#include "banned.h"

void prov_source_lines_free(struct prov_source_line *lines, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
}

int prov_source_cut_lines(struct prov_source_line **out, size_t *nout, const char *data,
			  size_t size, const char *path, const char *commit_hex, int line, int context)
{
	struct prov_source_line *lines = NULL;
	size_t n = 0, alloc = 0;
	const char *p, *end;
	int64_t from, to, no = 1;

	if (line < 1)
		return prov_error_set(PROV_ENOTFOUND, "no line number for '%s'", path);
	if (context < 0)
		context = 0;
	if (context > PROV_SOURCES_MAX_CONTEXT)
		context = PROV_SOURCES_MAX_CONTEXT;
	if (size > PROV_SOURCES_MAX_BLOB)
		return prov_error_set(PROV_ELIMIT, "'%s' at %.12s is larger than %zu bytes", path,
				      commit_hex, PROV_SOURCES_MAX_BLOB);
	if (memchr(data, '\0', size))
		return prov_error_set(PROV_ELIMIT, "'%s' at %.12s is a binary file", path, commit_hex);
	from = (int64_t)line - context;
	to = (int64_t)line + context;
	if (from < 1)
		from = 1;
	p = data;
	end = data + size;
	while (p < end && no <= to) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (no >= from) {
			size_t keep = l;

			if (keep && p[keep - 1] == '\r')
				keep--;
			if (keep > PROV_SOURCES_MAX_LINE)
				keep = PROV_SOURCES_MAX_LINE;
			PROV_ALLOC_GROW(lines, n + 1, alloc);
			lines[n].number = (int)no;
			lines[n].text = prov_xstrndup(p, keep);
			n++;
		}
		no++;
		p = nl ? nl + 1 : end;
	}
	if (no <= line) {
		prov_source_lines_free(lines, n);
		return prov_error_set(PROV_ENOTFOUND, "'%s' at %.12s has no line %d", path,
				      commit_hex, line);
	}
	*out = lines;
	*nout = n;
	return 0;
}

int prov_repo_read_lines(struct prov_source_line **out, size_t *nout, struct prov_repo *r,
			 const char *commit_hex, const char *path, int line, int context)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	size_t size;
	git_oid oid;
	int error;

	if ((error = parse_oid(&oid, commit_hex)) < 0)
		return error;
	if (line < 1)
		return prov_error_set(PROV_ENOTFOUND, "no line number for '%s'", path);
	if (git_commit_lookup(&commit, r->repo, &oid) < 0) {
		error = prov_error_set(PROV_ENOTFOUND, "unknown commit '%s' in '%s'", commit_hex, r->url);
		goto cleanup;
	}
	if (git_commit_tree(&tree, commit) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read tree");
		goto cleanup;
	}
	if (git_tree_entry_bypath(&entry, tree, path) < 0 ||
	    git_tree_entry_type(entry) != GIT_OBJECT_BLOB) {
		error = prov_error_set(PROV_ENOTFOUND, "no file '%s' at commit %.12s of '%s'", path,
				       commit_hex, r->url);
		goto cleanup;
	}
	if (git_blob_lookup(&blob, r->repo, git_tree_entry_id(entry)) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read blob");
		goto cleanup;
	}
	size = (size_t)git_blob_rawsize(blob);
	error = prov_source_cut_lines(out, nout, git_blob_rawcontent(blob), size, path, commit_hex,
				      line, context);
cleanup:
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(commit);
	return error;
}

int prov_repo_read_blob(struct prov_buf *out, struct prov_repo *r, const char *commit_hex,
			const char *path, size_t max)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	git_oid oid;
	int error;

	if ((error = parse_oid(&oid, commit_hex)) < 0)
		return error;
	if (git_commit_lookup(&commit, r->repo, &oid) < 0 || git_commit_tree(&tree, commit) < 0) {
		error = prov_error_set(PROV_ENOTFOUND, "unknown commit '%s' in '%s'", commit_hex, r->url);
		goto cleanup;
	}
	if (git_tree_entry_bypath(&entry, tree, path) < 0 ||
	    git_tree_entry_type(entry) != GIT_OBJECT_BLOB ||
	    git_blob_lookup(&blob, r->repo, git_tree_entry_id(entry)) < 0) {
		error = prov_error_set(PROV_ENOTFOUND, "no file '%s' at commit %.12s", path, commit_hex);
		goto cleanup;
	}
	if ((size_t)git_blob_rawsize(blob) > max) {
		error = prov_error_set(PROV_ELIMIT, "'%s' at %.12s is larger than %zu bytes", path,
				       commit_hex, max);
		goto cleanup;
	}
	prov_buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	error = 0;
cleanup:
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(commit);
	return error;
}

/* ---- finding a file again (src/fix/: a fix's file in the deployed tree) ---- */

static int commit_tree_of(git_tree **tree, struct prov_repo *r, const char *commit_hex)
{
	git_commit *commit = NULL;
	git_oid oid;
	int error;

	*tree = NULL;
	if ((error = parse_oid(&oid, commit_hex)) < 0)
		return error;
	if (git_commit_lookup(&commit, r->repo, &oid) < 0 || git_commit_tree(tree, commit) < 0)
		error = prov_error_set(PROV_ENOTFOUND, "unknown commit '%s' in '%s'", commit_hex, r->url);
	git_commit_free(commit);
	return error;
}

int prov_repo_renamed_path(char **out, struct prov_repo *r, const char *from_hex, const char *to_hex,
			   const char *path)
{
	git_tree *from = NULL, *to = NULL;
	git_tree_entry *entry = NULL;
	git_diff *diff = NULL;
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options fopts = GIT_DIFF_FIND_OPTIONS_INIT;
	size_t i, n;
	int error;

	*out = NULL;
	if ((error = commit_tree_of(&from, r, from_hex)) < 0 || (error = commit_tree_of(&to, r, to_hex)) < 0)
		goto cleanup;
	if (git_tree_entry_bypath(&entry, to, path) == 0) {
		*out = prov_xstrdup(path);
		error = 0;
		goto cleanup;
	}
	dopts.context_lines = 0;
	if (git_diff_tree_to_tree(&diff, r->repo, from, to, &dopts) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot diff two trees");
		goto cleanup;
	}
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	fopts.rename_limit = PROV_SOURCES_RENAME_LIMIT;
	if (git_diff_find_similar(diff, &fopts) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot find renames");
		goto cleanup;
	}
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status == GIT_DELTA_RENAMED && d->old_file.path && d->new_file.path &&
		    !strcmp(d->old_file.path, path)) {
			*out = prov_xstrdup(d->new_file.path);
			break;
		}
	}
	error = 0;
cleanup:
	git_diff_free(diff);
	git_tree_entry_free(entry);
	git_tree_free(from);
	git_tree_free(to);
	return error;
}

struct base_walk {
	const char *base;
	char **v;
	size_t n, alloc, max;
	int suffix;	/* 1: names that end with base */
};

static int name_matches(const struct base_walk *w, const char *name)
{
	size_t n = strlen(name), b = strlen(w->base);

	return w->suffix ? n > b && !strcmp(name + n - b, w->base) : !strcmp(name, w->base);
}

static int base_walk_cb(const char *root, const git_tree_entry *entry, void *payload)
{
	struct base_walk *w = payload;

	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB || !name_matches(w, git_tree_entry_name(entry)))
		return 0;
	if (w->n >= w->max)
		return 1;	/* enough */
	PROV_ALLOC_GROW(w->v, w->n + 1, w->alloc);
	w->v[w->n++] = prov_xasprintf("%s%s", root, git_tree_entry_name(entry));
	return 0;
}

static int find_names(char ***out, size_t *nout, struct prov_repo *r, const char *commit_hex, const char *base,
		      size_t max, int suffix)
{
	git_tree *tree = NULL;
	struct base_walk w = { base, NULL, 0, 0, max, suffix };
	int error;

	*out = NULL;
	*nout = 0;
	if ((error = commit_tree_of(&tree, r, commit_hex)) < 0)
		return error;
	git_tree_walk(tree, GIT_TREEWALK_PRE, base_walk_cb, &w);
	git_tree_free(tree);
	*out = w.v;
	*nout = w.n;
	return 0;
}

int prov_repo_find_basename(char ***out, size_t *nout, struct prov_repo *r, const char *commit_hex,
			    const char *base, size_t max)
{
	return find_names(out, nout, r, commit_hex, base, max, 0);
}

int prov_repo_find_suffix(char ***out, size_t *nout, struct prov_repo *r, const char *commit_hex,
			  const char *suffix, size_t max)
{
	return find_names(out, nout, r, commit_hex, suffix, max, 1);
}

int prov_repo_list_dir(char ***out, size_t *nout, struct prov_repo *r, const char *commit_hex, const char *dir,
		      size_t max)
{
	git_tree *tree = NULL, *sub = NULL;
	git_tree_entry *te = NULL;
	char **v = NULL;
	size_t n = 0, alloc = 0, i, count;
	int error;

	*out = NULL;
	*nout = 0;
	if ((error = commit_tree_of(&tree, r, commit_hex)) < 0)
		return error;
	if (dir && *dir) {
		if (git_tree_entry_bypath(&te, tree, dir) < 0 || git_tree_entry_type(te) != GIT_OBJECT_TREE ||
		    git_tree_lookup(&sub, r->repo, git_tree_entry_id(te)) < 0) {
			git_error_clear();
			goto cleanup;	/* no such directory: no files */
		}
	}
	count = git_tree_entrycount(sub ? sub : tree);
	for (i = 0; i < count && n < max; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(sub ? sub : tree, i);

		if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
			continue;
		PROV_ALLOC_GROW(v, n + 1, alloc);
		v[n++] = dir && *dir ? prov_xasprintf("%s/%s", dir, git_tree_entry_name(e))
				     : prov_xstrdup(git_tree_entry_name(e));
	}
	*out = v;
	*nout = n;
cleanup:
	git_tree_entry_free(te);
	git_tree_free(sub);
	git_tree_free(tree);
	return 0;
}

struct prov_blame {
	git_blame *blame;
	size_t start, n;
};

int prov_repo_blame_open(struct prov_blame **out, struct prov_repo *r, const char *commit_hex, const char *path,
			 size_t start, size_t n, const char *oldest_hex)
{
	git_blame_options o = GIT_BLAME_OPTIONS_INIT;
	git_blame *blame = NULL;
	int error;

	*out = NULL;
	if ((error = parse_oid(&o.newest_commit, commit_hex)) < 0 ||
	    (oldest_hex && (error = parse_oid(&o.oldest_commit, oldest_hex)) < 0))
		return error;
	o.min_line = start;
	o.max_line = start + n - 1;
	if (git_blame_file(&blame, r->repo, path, &o) < 0)
		return prov_error_from_git(PROV_ENOTFOUND, "cannot blame '%s' at '%s'", path, commit_hex);
	*out = prov_xcalloc(1, sizeof(**out));
	(*out)->blame = blame;
	(*out)->start = start;
	(*out)->n = n;
	return 0;
}

int prov_blame_get(const struct prov_blame *b, char (*out)[41], size_t start, size_t n)
{
	size_t i;

	if (!b || start < b->start || n > b->n || start - b->start > b->n - n)
		return -1;
	for (i = 0; i < n; i++) {
		const git_blame_hunk *h = git_blame_get_hunk_byline(b->blame, start + i);

		out[i][0] = '\0';
		if (h && !h->boundary)
			git_oid_tostr(out[i], 41, &h->final_commit_id);
	}
	return 0;
}

void prov_blame_free(struct prov_blame *b)
{
	if (!b)
		return;
	git_blame_free(b->blame);
	free(b);
}

int prov_repo_blame_lines(char (*out)[41], struct prov_repo *r, const char *commit_hex, const char *path,
			  size_t start, size_t n, const char *oldest_hex)
{
	struct prov_blame *b = NULL;
	size_t i;
	int error;

	for (i = 0; i < n; i++)
		out[i][0] = '\0';
	if (!n || !start)
		return 0;
	if ((error = prov_repo_blame_open(&b, r, commit_hex, path, start, n, oldest_hex)) < 0)
		return error;
	prov_blame_get(b, out, start, n);
	prov_blame_free(b);
	return 0;
}
