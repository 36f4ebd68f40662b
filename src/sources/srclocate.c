/* Source for frames without line information, by the function's name. */
#include <stdlib.h>
#include <string.h>

#include "defs.h"
#include "error.h"
#include "sources.h"
#include "sources-git.h"
#include "srcdefs.h"
#include "srclocate.h"
#include "util.h"
#include "banned.h"

/* the limits of one scan of a tree */
#define MAX_FILE ((size_t)4 << 20)
#define MAX_FILES 100000
#define MAX_BYTES ((size_t)1 << 30)

struct walk {
	git_repository *repo;
	struct prov_defs *d;
	const char *base;	/* subdir prefix of paths, "" or "dir/" */
	int error;
};

static int walk_cb(const char *root, const git_tree_entry *entry, void *arg)
{
	struct walk *w = arg;
	const char *name = git_tree_entry_name(entry);
	git_blob *blob = NULL;
	char *path;
	size_t size;

	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB || !prov_defs_wants_path(name))
		return 0;
	if (w->d->files >= MAX_FILES || w->d->bytes >= MAX_BYTES) {
		w->d->truncated = 1;
		return -1;
	}
	if (git_blob_lookup(&blob, w->repo, git_tree_entry_id(entry)) < 0)
		return 0;
	size = (size_t)git_blob_rawsize(blob);
	if (size <= MAX_FILE && !git_blob_is_binary(blob)) {
		path = prov_xasprintf("%s%s%s", w->base, root, name);
		prov_defs_scan_text(w->d, path, git_blob_rawcontent(blob), size);
		free(path);
	}
	git_blob_free(blob);
	return 0;
}

/* srclocate.h */
int prov_repo_scan_defs(struct prov_defs *d, struct prov_repo *r, const char *commit_hex,
			const char *subdir)
{
	git_repository *repo = prov_repo_git(r);
	git_oid oid;
	git_commit *commit = NULL;
	git_tree *tree = NULL, *sub = NULL;
	git_tree_entry *entry = NULL;
	struct walk w = { 0 };
	char *base = NULL;
	int error;

	if (git_oid_fromstr(&oid, commit_hex) < 0 || git_commit_lookup(&commit, repo, &oid) < 0 ||
	    git_commit_tree(&tree, commit) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read the tree of %.12s", commit_hex);
		goto cleanup;
	}
	if (subdir && *subdir) {
		if (git_tree_entry_bypath(&entry, tree, subdir) < 0 ||
		    git_tree_entry_type(entry) != GIT_OBJECT_TREE ||
		    git_tree_lookup(&sub, repo, git_tree_entry_id(entry)) < 0) {
			error = prov_error_set(PROV_ENOTFOUND, "no directory '%s' at %.12s", subdir,
					       commit_hex);
			goto cleanup;
		}
		base = prov_xasprintf("%s%s", subdir, prov_ends_with(subdir, "/") ? "" : "/");
	}
	w.repo = repo;
	w.d = d;
	w.base = base ? base : "";
	git_tree_walk(sub ? sub : tree, GIT_TREEWALK_PRE, walk_cb, &w);
	error = 0;
cleanup:
	free(base);
	git_tree_entry_free(entry);
	git_tree_free(sub);
	git_tree_free(tree);
	git_commit_free(commit);
	return error;
}


/* The definitions named `name` in (commit, subdir): from the cache, indexing the tree once. */
static int lookup(struct prov_defs *out, struct prov_repo *r, const char *commit,
		  const char *subdir, const char *name, const char *cache_dir)
{
	struct prov_cache *cache = NULL;
	struct prov_defs all = { 0 };
	int error, indexed;
	size_t i;

	if (cache_dir && prov_cache_open(&cache, cache_dir) < 0) {
		prov_warn("%s (definitions are not kept)", prov_error_last());
		cache = NULL;
	}
	indexed = cache ? prov_cache_defs_indexed(cache, commit, subdir) : 0;
	if (indexed > 0) {
		error = prov_cache_defs_find(out, cache, commit, subdir, name);
		goto cleanup;
	}
	if ((error = prov_repo_scan_defs(&all, r, commit, subdir)) < 0)
		goto cleanup;
	if (all.truncated)
		prov_warn("definitions of %.12s: the tree is larger than the scan's limits; the index is partial",
			  commit);
	if (cache && prov_cache_defs_put(cache, commit, subdir, &all) < 0)
		prov_warn("%s", prov_error_last());
	for (i = 0; i < all.n; i++) {
		struct prov_def *e;

		if (strcmp(all.items[i].name, name))
			continue;
		PROV_ALLOC_GROW(out->items, out->n + 1, out->alloc);
		e = &out->items[out->n++];
		*e = all.items[i];
		memset(&all.items[i], 0, sizeof(all.items[i]));
	}
	error = 0;
cleanup:
	for (i = 0; i < all.n; i++) {
		free(all.items[i].qname);
		free(all.items[i].name);
		free(all.items[i].path);
	}
	free(all.items);
	prov_cache_free(cache);
	return error;
}

int prov_srclocate_frame(struct prov_crash *c, struct prov_frame *f, struct prov_repo *r,
			 const struct prov_component *comp, const char *cache_dir, int context)
{
	struct prov_defs found = { 0 };
	char *want = prov_defs_normalize_name(f->function);
	const char *name;
	size_t i, n = 0;
	int best = 0, error = 0, half = context > 0 ? context : 3;

	if (!want || !comp->commit)
		goto cleanup;
	name = strrchr(want, ':');
	name = name ? name + 1 : want;
	if ((error = lookup(&found, r, comp->commit, comp->subdir, name, cache_dir)) < 0)
		goto cleanup;
	/* the same qualified name beats a suffix match (a definition written
	 * inside `namespace ns {` as Klass::method) */
	for (i = 0; i < found.n; i++) {
		int m = prov_defs_match(found.items[i].qname, want);

		if (m > best)
			best = m;
	}
	for (i = 0; i < found.n && best; i++)
		if (prov_defs_match(found.items[i].qname, want) == best)
			n++;
	for (i = 0; i < found.n && best; i++) {
		const struct prov_def *d = &found.items[i];
		struct prov_source_line *lines = NULL;
		struct prov_source *s;
		size_t nl = 0, shown = 0, k;

		if (prov_defs_match(d->qname, want) != best)
			continue;
		for (k = 0; k < c->nsources; k++)
			if (c->sources[k].frame_index == f->index && c->sources[k].located_by)
				shown++;
		if (shown >= PROV_SRCLOCATE_MAX)
			break;
		if (prov_repo_read_lines(&lines, &nl, r, comp->commit, d->path, d->line + half,
					 half) < 0) {
			prov_warn("frame #%d: %s", f->index, prov_error_last());
			continue;
		}
		s = prov_crash_add_source(c);
		s->component = prov_xstrdup(comp->name);
		s->commit = prov_xstrdup(comp->commit);
		s->path = prov_xstrdup(d->path);
		s->line = d->line;
		s->frame_index = f->index;
		s->lines = lines;
		s->nlines = nl;
		s->located_by = prov_xstrdup("name");
		s->function = prov_xstrdup(d->qname);
		s->candidates = (int)n;
	}
	if (n) {
		free(f->located_by);
		f->located_by = prov_xstrdup("name");
	}
	error = (int)n;
cleanup:
	prov_defs_release(&found);
	free(want);
	return error;
}
