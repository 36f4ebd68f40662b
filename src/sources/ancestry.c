/* Revisions, branches and tags: resolving them, ancestry, the first tag, merge bases. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sources.h"
#include "sources-git.h"
#include "sources-int.h"
#include "util.h"
#include "banned.h"

static int peel_to_commit(git_oid *out, git_object *obj)
{
	git_object *c = NULL;

	if (git_object_peel(&c, obj, GIT_OBJECT_COMMIT) < 0)
		return -1;
	git_oid_cpy(out, git_object_id(c));
	git_object_free(c);
	return 0;
}

static int resolve_oid(git_oid *out, struct prov_repo *r, const char *rev)
{
	static const char *const prefixes[] = { "refs/tags/", "refs/heads/", NULL };
	git_object *obj = NULL;
	size_t i;
	int error = PROV_ENOTFOUND;

	if (!rev || !*rev || strlen(rev) > 1024)
		goto done;
	for (i = 0; prefixes[i]; i++) {
		char *full = prov_xasprintf("%s%s", prefixes[i], rev);
		int ok = git_revparse_single(&obj, r->repo, full) == 0;

		free(full);
		if (ok)
			break;
		obj = NULL;
	}
	if (!obj && git_revparse_single(&obj, r->repo, rev) < 0)
		obj = NULL;
	if (obj && peel_to_commit(out, obj) == 0)
		error = 0;
done:
	git_object_free(obj);
	if (error)
		prov_error_set(PROV_ENOTFOUND, "unknown revision '%s' in '%s'%s%s%s", rev ? rev : "",
			       r->url, r->fetch_error ? " (the mirror could not be refreshed: " : "",
			       r->fetch_error ? r->fetch_error : "", r->fetch_error ? ")" : "");
	return error;
}

int prov_repo_resolve(char **out, struct prov_repo *r, const char *rev)
{
	git_oid oid;
	char hex[GIT_OID_HEXSZ + 1];
	int error;

	if ((error = resolve_oid(&oid, r, rev)) < 0)
		return error;
	git_oid_tostr(hex, sizeof(hex), &oid);
	*out = prov_xstrdup(hex);
	return 0;
}

int prov_repo_is_branch(struct prov_repo *r, const char *ref)
{
	git_reference *ref_obj = NULL;
	char *full = prov_xasprintf("refs/heads/%s", ref);
	int ok = git_reference_lookup(&ref_obj, r->repo, full) == 0;

	git_reference_free(ref_obj);
	free(full);
	return ok;
}

int prov_repo_is_tag(struct prov_repo *r, const char *ref)
{
	git_reference *ref_obj = NULL;
	char *full = prov_xasprintf("refs/tags/%s", ref);
	int ok = git_reference_lookup(&ref_obj, r->repo, full) == 0;

	git_reference_free(ref_obj);
	free(full);
	return ok;
}

static int descends(int *out, git_repository *repo, const git_oid *desc, const git_oid *anc)
{
	int r;

	if (git_oid_equal(desc, anc)) {
		*out = 1;
		return 0;
	}
	r = git_graph_descendant_of(repo, desc, anc);
	if (r < 0)
		return prov_error_from_git(PROV_ERROR, "cannot compute ancestry");
	*out = r;
	return 0;
}

int prov_repo_is_ancestor(int *out, struct prov_repo *r, const char *ancestor_hex,
			  const char *descendant_hex)
{
	git_oid a, d;
	int error;

	if ((error = parse_oid(&a, ancestor_hex)) < 0 ||
	    (error = parse_oid(&d, descendant_hex)) < 0)
		return error;
	return descends(out, r->repo, &d, &a);
}

struct tag_list {
	struct prov_repo *r;
	size_t alloc;
};

static int tag_cb(const char *name, git_oid *oid, void *payload)
{
	struct tag_list *tl = payload;
	struct prov_repo *r = tl->r;
	git_object *obj = NULL;
	git_commit *commit = NULL;
	git_oid c;

	if (r->ntags >= 1000000)
		return 1;
	if (git_object_lookup(&obj, r->repo, oid, GIT_OBJECT_ANY) < 0 ||
	    peel_to_commit(&c, obj) < 0 || git_commit_lookup(&commit, r->repo, &c) < 0)
		goto done;	/* tags of trees or blobs contain no commit */
	PROV_ALLOC_GROW(r->tags, r->ntags + 1, tl->alloc);
	r->tags[r->ntags].name = prov_xstrdup(prov_skip_prefix(name, "refs/tags/") ?
					       prov_skip_prefix(name, "refs/tags/") : name);
	git_oid_cpy(&r->tags[r->ntags].commit, &c);
	r->tags[r->ntags].time = (int64_t)git_commit_time(commit);
	r->ntags++;
done:
	git_commit_free(commit);
	git_object_free(obj);
	return 0;
}

static int tag_cmp(const void *a, const void *b)
{
	const struct tag_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return strcmp(x->name, y->name);
}

#define CLOCK_SKEW (24 * 3600)

/* An open-addressing set of object ids (the first bytes of a SHA-1 are a good hash). */
struct oidset {
	git_oid *slots;
	unsigned char *used;
	size_t n, cap;
};

static size_t oid_hash(const git_oid *o)
{
	size_t h;

	memcpy(&h, o->id, sizeof(h));
	return h;
}

static int oidset_has(const struct oidset *s, const git_oid *o)
{
	size_t i;

	if (!s->cap)
		return 0;
	for (i = oid_hash(o) & (s->cap - 1); s->used[i]; i = (i + 1) & (s->cap - 1))
		if (git_oid_equal(&s->slots[i], o))
			return 1;
	return 0;
}

static void oidset_add(struct oidset *s, const git_oid *o)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		struct oidset bigger = { 0 };
		size_t k;

		bigger.cap = s->cap ? s->cap * 2 : 1024;
		bigger.slots = prov_xcalloc(bigger.cap, sizeof(*bigger.slots));
		bigger.used = prov_xcalloc(bigger.cap, 1);
		for (k = 0; k < s->cap; k++)
			if (s->used[k])
				oidset_add(&bigger, &s->slots[k]);
		free(s->slots);
		free(s->used);
		*s = bigger;
	}
	for (i = oid_hash(o) & (s->cap - 1); s->used[i]; i = (i + 1) & (s->cap - 1))
		if (git_oid_equal(&s->slots[i], o))
			return;
	s->used[i] = 1;
	git_oid_cpy(&s->slots[i], o);
	s->n++;
}

static void oidset_release(struct oidset *s)
{
	free(s->slots);
	free(s->used);
	memset(s, 0, sizeof(*s));
}

/*
 * Does `from` reach `target`? Walk parents, skipping commits older than
 * `floor` (they cannot descend from the target unless clocks were off by
 * more than CLOCK_SKEW) and commits already known not to reach it. When the
 * answer is no, every commit visited joins `no`: its whole ancestry above
 * the floor was explored. Over all tags each commit is walked at most once.
 */
static int reaches(int *out, git_repository *repo, const git_oid *from, const git_oid *target,
		   int64_t floor, struct oidset *no)
{
	git_oid *stack = NULL, *seen_list = NULL;
	size_t nstack = 0, stack_alloc = 0, nseen = 0, seen_alloc = 0, i;
	struct oidset seen = { 0 };
	int error = 0;

	*out = 0;
	PROV_ALLOC_GROW(stack, 1, stack_alloc);
	git_oid_cpy(&stack[nstack++], from);
	oidset_add(&seen, from);
	while (nstack) {
		git_oid cur = stack[--nstack];
		git_commit *c = NULL;
		unsigned int np, k;

		if (git_oid_equal(&cur, target)) {
			*out = 1;
			goto cleanup;
		}
		if (oidset_has(no, &cur))
			continue;
		if (git_commit_lookup(&c, repo, &cur) < 0) {
			error = prov_error_from_git(PROV_ERROR, "cannot read commit");
			goto cleanup;
		}
		PROV_ALLOC_GROW(seen_list, nseen + 1, seen_alloc);
		git_oid_cpy(&seen_list[nseen++], &cur);
		np = git_commit_parentcount(c);
		for (k = 0; k < np; k++) {
			const git_oid *p = git_commit_parent_id(c, k);

			if (oidset_has(&seen, p))
				continue;
			oidset_add(&seen, p);
			if (!git_oid_equal(p, target)) {
				git_commit *pc = NULL;
				int old = 0;

				/* prune by time before pushing: cheap, the object is cached */
				if (git_commit_lookup(&pc, repo, p) == 0)
					old = (int64_t)git_commit_time(pc) < floor;
				git_commit_free(pc);
				if (old)
					continue;
			}
			PROV_ALLOC_GROW(stack, nstack + 1, stack_alloc);
			git_oid_cpy(&stack[nstack++], p);
		}
		git_commit_free(c);
	}
	for (i = 0; i < nseen; i++)
		oidset_add(no, &seen_list[i]);
cleanup:
	free(stack);
	free(seen_list);
	oidset_release(&seen);
	return error;
}

void prov_repo_include_prereleases(struct prov_repo *r, int yes)
{
	r->include_prereleases = yes;
}

int prov_repo_first_tag(char **out, struct prov_repo *r, const char *commit_hex)
{
	git_commit *commit = NULL;
	struct oidset no = { 0 };
	git_oid target;
	int64_t t;
	size_t i;
	int error = 0;

	if ((error = parse_oid(&target, commit_hex)) < 0)
		return error;
	if (!r->tags_loaded) {
		struct tag_list tl = { r, 0 };

		if (git_tag_foreach(r->repo, tag_cb, &tl) < 0 && r->ntags < 1000000)
			return prov_error_from_git(PROV_ERROR, "cannot list tags");
		if (r->ntags)
			qsort(r->tags, r->ntags, sizeof(*r->tags), tag_cmp);
		r->tags_loaded = 1;
	}
	if (git_commit_lookup(&commit, r->repo, &target) < 0)
		return prov_error_set(PROV_ENOTFOUND, "unknown commit '%s' in '%s'", commit_hex, r->url);
	t = (int64_t)git_commit_time(commit);
	git_commit_free(commit);
	*out = NULL;
	for (i = 0; i < r->ntags; i++) {
		int yes = 0;

		if (r->tags[i].time < t - CLOCK_SKEW)
			continue;
		if (!r->include_prereleases && prov_tag_is_prerelease(r->tags[i].name))
			continue;
		if ((error = reaches(&yes, r->repo, &r->tags[i].commit, &target, t - CLOCK_SKEW,
				     &no)) < 0)
			break;
		if (yes) {
			*out = prov_xstrdup(r->tags[i].name);
			break;
		}
	}
	oidset_release(&no);
	return error;
}

int prov_repo_merge_base(char **out, struct prov_repo *r, const char *a_hex, const char *b_hex)
{
	git_oid a, b, base;
	char hex[GIT_OID_HEXSZ + 1];
	int error, rc;

	*out = NULL;
	if ((error = parse_oid(&a, a_hex)) < 0 || (error = parse_oid(&b, b_hex)) < 0)
		return error;
	rc = git_merge_base(&base, r->repo, &a, &b);
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return prov_error_from_git(PROV_ERROR, "cannot compute a merge base");
	git_oid_tostr(hex, sizeof(hex), &base);
	*out = prov_xstrdup(hex);
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int prov_repo_branch_tips(char ***names, char ***tips, size_t *nout, struct prov_repo *r)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	char **v = NULL, **t = NULL, **pairs = NULL;
	size_t n = 0, alloc = 0, i;

	*names = *tips = NULL;
	*nout = 0;
	if (git_reference_iterator_glob_new(&it, r->repo, "refs/heads/*") < 0)
		return prov_error_from_git(PROV_ERROR, "cannot list branches");
	while (git_reference_next(&ref, it) == 0) {
		git_object *obj = NULL;
		char hex[GIT_OID_HEXSZ + 1];

		if (n < 10000 && git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) == 0) {
			git_oid_tostr(hex, sizeof(hex), git_object_id(obj));
			PROV_ALLOC_GROW(pairs, n + 1, alloc);
			/* "name\0hex": sorted by name */
			{
				size_t nl = strlen(git_reference_shorthand(ref));

				pairs[n] = prov_xmalloc(nl + 1 + sizeof(hex));
				memcpy(pairs[n], git_reference_shorthand(ref), nl + 1);
				memcpy(pairs[n] + nl + 1, hex, sizeof(hex));
			}
			n++;
		}
		git_object_free(obj);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	if (n)
		qsort(pairs, n, sizeof(*pairs), str_cmp);
	v = prov_xcalloc(n + 1, sizeof(*v));
	t = prov_xcalloc(n + 1, sizeof(*t));
	for (i = 0; i < n; i++) {
		v[i] = prov_xstrdup(pairs[i]);
		t[i] = prov_xstrdup(pairs[i] + strlen(pairs[i]) + 1);
		free(pairs[i]);
	}
	free(pairs);
	*names = v;
	*tips = t;
	*nout = n;
	return 0;
}
