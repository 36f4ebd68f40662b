/* Backports, the git side: a commit's diff and patch-id, the commits of a range. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sources.h"
#include "sources-git.h"
#include "sources-int.h"
#include "util.h"
#include "banned.h"

/* ---- backports: diffs, patch-ids, ranges ---- */

struct diff_text {
	struct prov_buf *out;
	int over;
};

static int diff_line_cb(const git_diff_delta *delta, const git_diff_hunk *hunk,
			const git_diff_line *line, void *payload)
{
	struct diff_text *dt = payload;

	(void)delta;
	(void)hunk;
	if (dt->out->len + line->content_len + 2 > PROV_SOURCES_MAX_DIFF) {
		dt->over = 1;
		return -1;
	}
	if (line->origin == GIT_DIFF_LINE_CONTEXT || line->origin == GIT_DIFF_LINE_ADDITION ||
	    line->origin == GIT_DIFF_LINE_DELETION)
		prov_buf_putc(dt->out, line->origin);
	prov_buf_add(dt->out, line->content, line->content_len);
	return 0;
}

int prov_repo_commit_diff(struct prov_buf *text, char patchid[41], struct prov_repo *r,
			  const char *commit_hex)
{
	git_commit *commit = NULL, *parent = NULL;
	git_tree *tree = NULL, *ptree = NULL;
	git_diff *diff = NULL;
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	git_oid oid, pid;
	struct diff_text dt = { text, 0 };
	int error;

	memset(patchid, '0', 40);
	patchid[40] = '\0';
	if ((error = parse_oid(&oid, commit_hex)) < 0)
		return error;
	if (git_commit_lookup(&commit, r->repo, &oid) < 0) {
		error = prov_error_set(PROV_ENOTFOUND, "unknown commit '%s' in '%s'", commit_hex, r->url);
		goto cleanup;
	}
	if (git_commit_parentcount(commit) > 1) {
		error = 0;
		goto cleanup;
	}
	if ((git_commit_parentcount(commit) == 1 &&
	     (git_commit_parent(&parent, commit, 0) < 0 || git_commit_tree(&ptree, parent) < 0)) ||
	    git_commit_tree(&tree, commit) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read a commit's tree");
		goto cleanup;
	}
	dopts.context_lines = 3;
	if (git_diff_tree_to_tree(&diff, r->repo, ptree, tree, &dopts) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot diff a commit");
		goto cleanup;
	}
	if (git_diff_patchid(&pid, diff, NULL) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot compute a patch-id");
		goto cleanup;
	}
	git_oid_tostr(patchid, 41, &pid);
	if (git_diff_print(diff, GIT_DIFF_FORMAT_PATCH, diff_line_cb, &dt) < 0) {
		error = dt.over ? prov_error_set(PROV_ELIMIT, "the diff of %.12s is larger than %zu bytes",
						 commit_hex, PROV_SOURCES_MAX_DIFF)
				: prov_error_from_git(PROV_ERROR, "cannot print a diff");
		goto cleanup;
	}
	error = 0;
cleanup:
	git_diff_free(diff);
	git_tree_free(tree);
	git_tree_free(ptree);
	git_commit_free(parent);
	git_commit_free(commit);
	return error;
}

void prov_range_free(struct prov_range_commit *c, size_t n)
{
	size_t i;

	for (i = 0; c && i < n; i++)
		free(c[i].picked_from);
	free(c);
}

/* The ids named by "(cherry picked from commit X)" lines of a message. */
static char *picked_from(const char *msg)
{
	static const char key[] = "(cherry picked from commit ";
	struct prov_buf b = PROV_BUF_INIT;
	const char *p = msg;

	while (p && (p = strstr(p, key))) {
		const char *h = p + sizeof(key) - 1;
		size_t n = 0;

		while (n < 40 && isxdigit((unsigned char)h[n]))
			n++;
		if (n >= 4 && (h[n] == ')' || n == 40)) {
			if (b.len)
				prov_buf_putc(&b, ' ');
			prov_buf_add(&b, h, n);
		}
		p = h;
	}
	if (!b.len) {
		prov_buf_release(&b);
		return NULL;
	}
	return prov_buf_detach(&b);
}

int prov_repo_range(struct prov_range_commit **out, size_t *nout, struct prov_repo *r,
		    const char *tip_hex, const char *hide_hex, size_t max)
{
	git_revwalk *walk = NULL;
	struct prov_range_commit *list = NULL;
	size_t n = 0, alloc = 0;
	git_oid tip, hide, oid;
	int error;

	if ((error = parse_oid(&tip, tip_hex)) < 0 ||
	    (hide_hex && (error = parse_oid(&hide, hide_hex)) < 0))
		return error;
	if (git_revwalk_new(&walk, r->repo) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot walk history");
		goto cleanup;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL);
	if (git_revwalk_push(walk, &tip) < 0 || (hide_hex && git_revwalk_hide(walk, &hide) < 0)) {
		error = prov_error_from_git(PROV_ERROR, "cannot walk history");
		goto cleanup;
	}
	while (git_revwalk_next(&oid, walk) == 0) {
		git_commit *c = NULL;

		if (n >= max) {
			error = prov_error_set(PROV_ELIMIT, "more than %zu commits between %.12s and %.12s",
					       max, hide_hex ? hide_hex : "the root", tip_hex);
			goto cleanup;
		}
		if (git_commit_lookup(&c, r->repo, &oid) < 0) {
			error = prov_error_from_git(PROV_ERROR, "cannot read commit");
			goto cleanup;
		}
		PROV_ALLOC_GROW(list, n + 1, alloc);
		memset(&list[n], 0, sizeof(list[n]));
		git_oid_tostr(list[n].hex, sizeof(list[n].hex), &oid);
		list[n].picked_from = picked_from(git_commit_message(c));
		list[n].merge = git_commit_parentcount(c) > 1;
		n++;
		git_commit_free(c);
	}
	*out = list;
	*nout = n;
	list = NULL;
	n = 0;
	error = 0;
cleanup:
	prov_range_free(list, n);
	git_revwalk_free(walk);
	return error;
}
