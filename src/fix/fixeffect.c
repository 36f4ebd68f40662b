/* Is a fix's effect in the deployed tree: the walk over its hunks and the history behind them. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixeffect.h"
#include "fixeffect-int.h"
#include "util.h"
#include "banned.h"

void prov_effect_release(struct prov_effect *e)
{
	prov_fix_evidence_release(e->ev, e->n);
	free(e->named_by);
	memset(e, 0, sizeof(*e));
}

static int effect_check(struct prov_effect *out, const char *fix_hex, const struct prov_dist_patches *dp,
			const struct prov_effect_tree *t, int depth, const char *only_path);

#define MAX_BLAME_LINES 200
#define MAX_HISTORY_DEPTH 3	/* commits followed back from the fix, hunk by hunk */

struct blame_memo;
static char *lines_from_absent_commit(const struct prov_hunk *h, const char *parent, const char *fix_hex,
				      const struct prov_dist_patches *dp, const struct prov_effect_tree *t,
				      int depth, const struct blame_memo *memo);

/* 1 when a and b are the same line, blanks aside. */
static int same_text(const char *a, const char *b)
{
	for (;;) {
		while (*a && isspace((unsigned char)*a))
			a++;
		while (*b && isspace((unsigned char)*b))
			b++;
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		a++, b++;
	}
}

/* 1 when hunk h has line l (blanks aside) among its lines of origin o. */
static int hunk_has(const struct prov_hunk *h, char o, const char *l)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (h->origin[i] == o && same_text(h->lines[i], l))
			return 1;
	return 0;
}

/*
 * The hunks of commit x (evidence sub, hunks xs) in file path that add the
 * lines v[0..n) are gone from the deployed tree: each line is added by
 * such a hunk, each such hunk is absent, or (depth permitting) unknown with
 * lines that came in turn from hunks gone (lines_from_absent_commit); and
 * no hunk of x in that file is present (x not backported there, in part).
 */
static int hunks_gone(const struct prov_effect *sub, const struct prov_hunks *xs, const char *x, const char *path,
		      const char *const *v, size_t n, const struct prov_dist_patches *dp,
		      const struct prov_effect_tree *t, int depth)
{
	char *xparent = NULL, *rev = NULL, *y, *used;
	size_t i, k;
	int ok = 1;

	for (i = 0; i < xs->n && i < sub->n; i++) {
		const struct prov_fix_evidence *e = &sub->ev[i];

		if (strcmp(xs->v[i].path, path))
			continue;
		if ((!strcmp(e->state, prov_hunk_state_name(PROV_HUNK_PRESENT_EXACT)) ||
		     !strcmp(e->state, prov_hunk_state_name(PROV_HUNK_PRESENT_CHANGED))) &&
		    !(e->note && (!strcmp(e->note, PROV_EFFECT_NOTE_BLANKS) || !strcmp(e->note, PROV_EFFECT_NOTE_COMMENTS))))
			return 0;	/* x is in that file, in part */
	}
	used = prov_xcalloc(xs->n + 1, 1);
	for (k = 0; ok && k < n; k++) {
		int found = 0;

		for (i = 0; ok && i < xs->n && i < sub->n; i++) {
			const struct prov_fix_evidence *e = &sub->ev[i];

			if (strcmp(xs->v[i].path, path) || !hunk_has(&xs->v[i], '+', v[k]))
				continue;
			found = 1;
			if (used[i])
				continue;	/* judged already (for another line) */
			used[i] = 1;
			if (!strcmp(e->state, prov_hunk_state_name(PROV_HUNK_ABSENT)))
				continue;
			ok = 0;
			if (strcmp(e->state, prov_hunk_state_name(PROV_HUNK_UNKNOWN)) || e->note ||
			    depth >= MAX_HISTORY_DEPTH || prov_hunk_is_test_path(path))
				break;
			if (!xparent) {
				rev = prov_xasprintf("%s^", x);
				if (prov_repo_resolve(&xparent, t->r, rev) < 0) {
					prov_error_clear();
					break;
				}
			}
			if ((y = lines_from_absent_commit(&xs->v[i], xparent, x, dp, t, depth + 1, NULL))) {
				free(y);
				ok = 1;
			}
		}
		ok = ok && found;
	}
	free(used);
	free(xparent);
	free(rev);
	return ok;
}

/* Keep the hunks of file path only (the others freed). */
static void keep_path(struct prov_hunks *hs, const char *path)
{
	struct prov_hunks drop = { 0 };
	size_t i, n = 0;

	drop.v = prov_xcalloc(hs->n + 1, sizeof(*drop.v));
	for (i = 0; i < hs->n; i++) {
		if (!strcmp(hs->v[i].path, path))
			hs->v[n++] = hs->v[i];
		else
			drop.v[drop.n++] = hs->v[i];
	}
	hs->n = n;
	prov_hunks_release(&drop);
}

/* The hunks of commit x say missing: some absent, none present, none unknown, no patch names x. */
static int whole_commit_absent(const struct prov_effect *sub)
{
	size_t i, present = 0, absent = 0, unknown = 0;

	for (i = 0; i < sub->n; i++) {
		if (!strcmp(sub->ev[i].state, prov_hunk_state_name(PROV_HUNK_PRESENT_EXACT)) ||
		    !strcmp(sub->ev[i].state, prov_hunk_state_name(PROV_HUNK_PRESENT_CHANGED)))
			present++;
		else if (!strcmp(sub->ev[i].state, prov_hunk_state_name(PROV_HUNK_ABSENT)))
			absent++;
		else if (!strcmp(sub->ev[i].state, prov_hunk_state_name(PROV_HUNK_UNKNOWN)))
			unknown++;
	}
	return !sub->named_by && !present && !unknown && absent;
}

/*
 * Commit x (not the fix) is demonstrably not in the deployed tree, as far
 * as the lines v[0..n) of file path go: not an ancestor of the deployed
 * commit, no patch names it, and, hunk by hunk, the hunks that added those
 * lines are gone (hunks_gone: only x's hunks of that file compared); or,
 * for a commit the fix's own lines came with (depth 0), its own hunks say
 * missing: some absent, none present, none unknown (a hunk the tree
 * changed another way could be a backport's).
 */
static int commit_absent(const char *x, const char *path, const char *const *v, size_t n,
			 const struct prov_dist_patches *dp, const struct prov_effect_tree *t, int depth)
{
	struct prov_effect sub;
	struct prov_buf text = PROV_BUF_INIT;
	struct prov_hunks xs = { 0 };
	char pid[41];
	int anc = 1, r = 0;

	if (prov_repo_is_ancestor(&anc, t->r, x, t->deployed_hex) < 0 || anc) {
		prov_error_clear();
		return 0;
	}
	if (n && effect_check(&sub, x, dp, t, depth + 1, path) >= 0) {
		if (!sub.named_by && prov_repo_commit_diff(&text, pid, t->r, x) >= 0) {
			prov_hunks_parse(&xs, text.buf ? text.buf : "", text.len, 1);
			keep_path(&xs, path);
			r = hunks_gone(&sub, &xs, x, path, v, n, dp, t, depth);
		}
		prov_effect_release(&sub);
	}
	if (!r && !depth && effect_check(&sub, x, dp, t, depth + 1, NULL) >= 0) {
		r = whole_commit_absent(&sub);
		prov_effect_release(&sub);
	}
	prov_error_clear();
	prov_hunks_release(&xs);
	prov_buf_release(&text);
	return r;
}

/*
 * 1 when a hunk is shown present, or one outside test and documentation
 * files (and comment-only hunks, decided apart like them) is shown absent:
 * the verdict is decided without the last-resort searches below (an absent
 * test hunk of a shipped test file decides nothing about the code; a
 * present one says the fix was taken, so no proof of absence is sought).
 */
static int decided(const struct prov_effect *out)
{
	size_t i;

	for (i = 0; i < out->n; i++) {
		const struct prov_fix_evidence *e = &out->ev[i];

		if (!strcmp(e->state, prov_hunk_state_name(PROV_HUNK_PRESENT_EXACT)) ||
		    !strcmp(e->state, prov_hunk_state_name(PROV_HUNK_PRESENT_CHANGED)))
			return 1;
		if (!strcmp(e->state, prov_hunk_state_name(PROV_HUNK_ABSENT)) && !prov_hunk_is_test_path(e->file) &&
		    !prov_hunk_is_doc_path(e->file) && !(e->note && !strcmp(e->note, PROV_EFFECT_NOTE_COMMENTS)))
			return 1;
	}
	return 0;
}

/*
 * The commit whose lines a hunk changes, when every - line of it came (git
 * blame on the fix's parent, back to where it meets the deployed commit)
 * with commits that are demonstrably not in the deployed tree
 * (commit_absent): the fix changes code the release never had, so its
 * effect is absent too. Followed back from the fix (depth > 0), an
 * addition's context lines stand for its - lines: the place it adds at
 * came with such commits. The first such commit (hex, caller frees), or
 * NULL. memo, when not NULL, is the blame of h's file at parent back to
 * the merge base, made once for all of its hunks (absent_by_history).
 */
struct blame_memo {
	const char *path;	/* the fix's parent's path (a hunk's old path) */
	char *mb;	/* the merge base of the parent and the deployed commit */
	struct prov_blame *b;	/* NULL: blame each hunk by itself */
};

static char *lines_from_absent_commit(const struct prov_hunk *h, const char *parent, const char *fix_hex,
				      const struct prov_dist_patches *dp, const struct prov_effect_tree *t,
				      int depth, const struct blame_memo *memo)
{
	char (*who)[41] = NULL, *mb = NULL, *found = NULL;
	char seen[3][41];
	const char **v = NULL;
	size_t nold = 0, nminus = 0, nseen = 0, i, j, k, m, nv;
	char o;

	for (i = 0; i < h->n; i++) {
		nold += h->origin[i] != '+';
		nminus += h->origin[i] == '-' && h->lines[i][strspn(h->lines[i], " \t\r")];
	}
	o = nminus ? '-' : ' ';
	if (!parent || !nold || nold > MAX_BLAME_LINES || h->old_start <= 0 || (!nminus && !depth))
		return NULL;
	who = prov_xcalloc(nold, sizeof(*who));
	if (memo && memo->b && !strcmp(memo->path, h->old_path ? h->old_path : h->path) &&
	    prov_blame_get(memo->b, who, (size_t)h->old_start, nold) == 0)
		;	/* answered from the file's one blame */
	else if (prov_repo_merge_base(&mb, t->r, parent, t->deployed_hex) < 0 ||
		 prov_repo_blame_lines(who, t->r, parent, h->old_path ? h->old_path : h->path, (size_t)h->old_start,
				       nold, mb) < 0)
		goto cleanup;
	v = prov_xcalloc(nold, sizeof(*v));
	for (i = 0, j = 0; i < h->n; i++) {
		const char *l = h->lines[i];

		if (h->origin[i] == '+')
			continue;
		k = j++;
		if (h->origin[i] != o || !l[strspn(l, " \t\r")])
			continue;	/* a blank line says nothing */
		if (!who[k][0] || !strcmp(who[k], fix_hex))
			goto cleanup;	/* from the deployed history (or unknown) */
		for (m = 0; m < nseen && strcmp(seen[m], who[k]); m++)
			;
		if (m == nseen) {
			if (nseen == 3)
				goto cleanup;
			memcpy(seen[nseen++], who[k], 41);
		}
	}
	for (m = 0; m < nseen; m++) {
		/* the lines that came with seen[m] */
		for (i = 0, j = 0, nv = 0; i < h->n; i++) {
			if (h->origin[i] == '+')
				continue;
			k = j++;
			if (h->origin[i] == o && h->lines[i][strspn(h->lines[i], " \t\r")] && !strcmp(who[k], seen[m]))
				v[nv++] = h->lines[i];
		}
		if (!commit_absent(seen[m], h->old_path ? h->old_path : h->path, v, nv, dp, t, depth))
			goto cleanup;
	}
	if (nseen)
		found = prov_xstrdup(seen[0]);
cleanup:
	prov_error_clear();
	free(v);
	free(who);
	free(mb);
	return found;
}

/* Hunk i is one absent_by_history asks lines_from_absent_commit about. */
static int history_candidate(const struct prov_effect *out, const struct prov_hunks *hs, size_t i)
{
	const struct prov_fix_evidence *e = &out->ev[i];

	return !strcmp(e->state, prov_hunk_state_name(PROV_HUNK_UNKNOWN)) &&
	       !(e->note && strcmp(e->note, PROV_EFFECT_NOTE_NOT_HERE)) && !prov_hunk_is_test_path(hs->v[i].path) &&
	       !prov_hunk_is_doc_path(hs->v[i].path) && !hs->v[i].new_file;
}

/*
 * The blame of the old file of hunk i at parent (back to m->mb), over the
 * lines of every candidate hunk of that file from i on, into m: one blame
 * per file, not per hunk. m->b stays NULL when it cannot be made (each
 * hunk is then blamed by itself, as before).
 */
static void blame_file_once(struct blame_memo *m, const struct prov_effect *out, const struct prov_hunks *hs,
			    size_t i, const char *parent, const struct prov_effect_tree *t)
{
	const char *path = hs->v[i].old_path ? hs->v[i].old_path : hs->v[i].path;
	size_t lo = 0, hi = 0, k, j;

	prov_blame_free(m->b);
	m->b = NULL;
	m->path = path;
	for (k = i; k < hs->n && k < out->n; k++) {
		const struct prov_hunk *h = &hs->v[k];
		size_t nold = 0;

		if (strcmp(h->old_path ? h->old_path : h->path, path) || !history_candidate(out, hs, k) ||
		    h->old_start <= 0)
			continue;
		for (j = 0; j < h->n; j++)
			nold += h->origin[j] != '+';
		if (!nold || nold > MAX_BLAME_LINES)
			continue;
		if (!lo || (size_t)h->old_start < lo)
			lo = (size_t)h->old_start;
		if ((size_t)h->old_start + nold - 1 > hi)
			hi = (size_t)h->old_start + nold - 1;
	}
	if (lo && m->mb && prov_repo_blame_open(&m->b, t->r, parent, path, lo, hi - lo + 1, m->mb) < 0)
		m->b = NULL;
	prov_error_clear();
}

/*
 * When no hunk is shown present or absent (the answer would be exit 3), the
 * unknown hunks (not test files, not "not applicable") whose - lines came
 * with commits demonstrably not in the deployed tree are absent, via the
 * first such commit. Not when a patch names the fix. Run only then: the
 * blame walks the history from the fix back to the deployed commit, once
 * per file (blame_file_once).
 */
static void absent_by_history(struct prov_effect *out, const struct prov_hunks *hs, const char *parent,
			      const char *fix_hex, const struct prov_dist_patches *dp,
			      const struct prov_effect_tree *t)
{
	struct blame_memo m = { NULL, NULL, NULL };
	size_t i;

	if (out->named_by || decided(out))
		return;
	if (parent && prov_repo_merge_base(&m.mb, t->r, parent, t->deployed_hex) < 0)
		m.mb = NULL;
	prov_error_clear();
	for (i = 0; i < hs->n && i < out->n; i++) {
		struct prov_fix_evidence *e = &out->ev[i];
		char *x;

		if (!history_candidate(out, hs, i))
			continue;
		if (parent && (!m.path || strcmp(m.path, hs->v[i].old_path ? hs->v[i].old_path : hs->v[i].path)))
			blame_file_once(&m, out, hs, i, parent, t);
		if (!(x = lines_from_absent_commit(&hs->v[i], parent, fix_hex, dp, t, 0, &m)))
			continue;
		if (e->note)
			out->nna--;	/* not there because it came with a commit the tree lacks */
		e->state = prov_hunk_state_name(PROV_HUNK_ABSENT);
		free(e->via);
		e->via = x;
		e->note = PROV_EFFECT_NOTE_ABSENT_COMMIT;
		out->nunknown--;
		out->nabsent++;
	}
	prov_blame_free(m.b);
	free(m.mb);
}

#define MAX_SUFFIX_FILES 5000	/* files of the same extension searched for a gone file's hunk */
#define MAX_SUFFIX_BYTES ((size_t)256 << 20)

/*
 * The one file of the deployed tree, of the same extension as the hunk's,
 * whose text has the hunk's whole pre-image or post-image (blanks aside,
 * each saying where: 3 lines of 4 letters or digits), at one place: the
 * code of a file the release has under no name (moved, with its function
 * renamed, into another file). *f is that file's lines. NULL when none,
 * several, or too much to read.
 */
static char *file_with_hunk_lines(struct prov_hunk_file *f, const struct prov_hunk *h,
				  const struct prov_effect_tree *t)
{
	const char *base = prov_basename(h->path), *ext = strrchr(base, '.'), *kpre, *kpost;
	size_t lpre = prov_hunk_image_key(h, 0, &kpre), lpost = prov_hunk_image_key(h, 1, &kpost), nfiles = 0, i;
	size_t bytes = 0;
	char **files = NULL, *found = NULL;
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_hunk_file empty;
	int says, have = 0;

	prov_hunk_file_init(&empty, "", 0);
	says = prov_hunk_image_count(h, &empty, 0) >= 0 || prov_hunk_image_count(h, &empty, 1) >= 0;
	prov_hunk_file_release(&empty);
	if (!says || !ext || ext == base || !ext[1] || (!lpre && !lpost) ||
	    prov_repo_find_suffix(&files, &nfiles, t->tree_repo ? t->tree_repo : t->r,
				  t->tree_commit ? t->tree_commit : t->deployed_hex, ext, MAX_SUFFIX_FILES) < 0)
		goto cleanup;
	if (nfiles >= MAX_SUFFIX_FILES)
		goto cleanup;	/* too many to say "the one file" */
	for (i = 0; i < nfiles; i++) {
		struct prov_hunk_file g;
		int cpre, cpost;

		if (effect_read_tree_file(&b, t, files[i]) < 0 || !b.buf)
			continue;
		if ((bytes += b.len) > MAX_SUFFIX_BYTES) {
			free(found);
			found = NULL;
			break;
		}
		if (!(lpre && memmem(b.buf, b.len, kpre, lpre)) && !(lpost && memmem(b.buf, b.len, kpost, lpost)))
			continue;
		prov_hunk_file_init(&g, b.buf, b.len);
		cpre = prov_hunk_image_count(h, &g, 0);
		cpost = prov_hunk_image_count(h, &g, 1);
		if (cpre <= 0 && cpost <= 0) {
			prov_hunk_file_release(&g);
			continue;
		}
		if (found || cpre > 1 || cpost > 1) {	/* in two files, or twice: no guess */
			prov_hunk_file_release(&g);
			free(found);
			found = NULL;
			break;
		}
		found = prov_xstrdup(files[i]);
		*f = g;
		have = 1;
	}
	if (!found && have)
		prov_hunk_file_release(f);
cleanup:
	prov_error_clear();
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	prov_buf_release(&b);
	return found;
}

/*
 * When no hunk outside test and documentation files (and comment-only ones)
 * is shown present or absent (the answer would be exit 3), a
 * hunk whose file the deployed tree has under no name is judged in the one
 * file of its extension that has its whole pre- or post-image
 * (file_with_hunk_lines): present-exact or absent there as patch would say,
 * deployed_file that file. Not for test, documentation or new files.
 */
static void relocate_gone_hunks(struct prov_effect *out, const struct prov_hunks *hs, const struct located *locs,
				size_t nlocs, const struct prov_effect_tree *t)
{
	size_t i, k;

	if (decided(out))
		return;
	for (i = 0; i < hs->n && i < out->n; i++) {
		const struct prov_hunk *h = &hs->v[i];
		struct prov_fix_evidence *e = &out->ev[i];
		const struct located *loc = NULL;
		struct prov_hunk_file f;
		enum prov_hunk_state st;
		unsigned how = 0;
		char *path;

		if (strcmp(e->state, prov_hunk_state_name(PROV_HUNK_UNKNOWN)) || !e->note ||
		    strcmp(e->note, PROV_EFFECT_NOTE_NO_FILE) || h->new_file || h->deleted_file ||
		    prov_hunk_is_test_path(h->path) || prov_hunk_is_doc_path(h->path))
			continue;
		for (k = 0; k < nlocs && !loc; k++)
			if (!strcmp(locs[k].path, h->path))
				loc = &locs[k];
		memset(&f, 0, sizeof(f));
		if (!loc || !(path = file_with_hunk_lines(&f, h, t)))
			continue;
		st = prov_hunk_match_fix_ex(h, &f, loc->have_pre ? &loc->pre : NULL, loc->have_post ? &loc->post : NULL,
					    &how);
		prov_hunk_file_release(&f);
		if ((st != PROV_HUNK_PRESENT_EXACT && st != PROV_HUNK_ABSENT) || how) {
			free(path);
			continue;
		}
		e->state = prov_hunk_state_name(st);
		e->note = NULL;
		free(e->deployed_file);
		e->deployed_file = path;
		if (st == PROV_HUNK_PRESENT_EXACT) {
			free(e->via);
			e->via = prov_xstrdup(t->deployed_hex);
			out->nexact++;
		} else {
			out->nabsent++;
		}
		out->nunknown--;
		out->nna--;
	}
}

int prov_effect_check(struct prov_effect *out, const char *fix_hex, const struct prov_dist_patches *dp,
		      const struct prov_effect_tree *t)
{
	return effect_check(out, fix_hex, dp, t, 0, NULL);
}

/* only_path: the hunks of that file alone (the others not compared), or NULL. */
static int effect_check(struct prov_effect *out, const char *fix_hex, const struct prov_dist_patches *dp,
			const struct prov_effect_tree *t, int depth, const char *only_path)
{
	struct prov_buf text = PROV_BUF_INIT, named = PROV_BUF_INIT;
	struct prov_hunks hs = { 0 };
	struct located *locs = NULL;
	char pid[41], *parent = NULL, *rev = NULL;
	size_t nlocs = 0, i, k;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = prov_repo_commit_diff(&text, pid, t->r, fix_hex)) < 0)
		goto cleanup;
	prov_hunks_parse(&hs, text.buf ? text.buf : "", text.len, 1);
	if (only_path)
		keep_path(&hs, only_path);
	rev = prov_xasprintf("%s^", fix_hex);
	if (prov_repo_resolve(&parent, t->r, rev) < 0)
		prov_error_clear();	/* a root commit: no renames to follow */
	for (i = 0; dp && i < dp->n; i++)
		if (prov_dep3_names(&dp->v[i].dep3, fix_hex)) {
			if (named.len)
				prov_buf_putc(&named, ' ');
			prov_buf_puts(&named, dp->v[i].name);
		}
	if (named.len)
		out->named_by = prov_buf_detach(&named);
	locs = prov_xcalloc(hs.n + 1, sizeof(*locs));
	for (i = 0; i < hs.n; i++) {
		const struct prov_hunk *h = &hs.v[i];
		struct located *loc = NULL;
		enum prov_hunk_state st;
		const char *via = NULL, *undone = NULL;
		unsigned how = 0;
		int renamed = 0, revert = 0, moved = 0, rewrapped = 0;

		for (k = 0; k < nlocs && !loc; k++)
			if (!strcmp(locs[k].path, h->path))
				loc = &locs[k];
		if (!loc) {
			loc = &locs[nlocs++];
			if ((error = effect_locate(loc, h, parent, t)) < 0)
				goto cleanup;
			loc->have_pre = !h->new_file &&
					effect_fix_side(&loc->pre, t, parent, h->old_path ? h->old_path : h->path);
			loc->have_post = !h->deleted_file && effect_fix_side(&loc->post, t, fix_hex, h->path);
		}
		st = prov_hunk_match_fix_ex(h, loc->found ? &loc->f : NULL, loc->have_pre ? &loc->pre : NULL,
					    loc->have_post ? &loc->post : NULL, &how);
		if (st == PROV_HUNK_UNKNOWN && loc->found)
			st = effect_in_function_only(h, loc, parent, fix_hex, t, &how);
		if (st == PROV_HUNK_UNKNOWN && loc->found)
			st = effect_renamed_or_in_function(h, loc, parent, fix_hex, t, &how, &renamed);
		/* not found line by line, or absent only by the code around it:
		 * its lines re-wrapped (joined, split, re-indented), same tokens */
		if ((st == PROV_HUNK_UNKNOWN || (st == PROV_HUNK_ABSENT && how == PROV_HUNK_BY_CODE_AROUND)) &&
		    loc->found && !prov_hunk_blanks_only(h) && effect_rewrapped(h, loc, parent, fix_hex, t)) {
			st = PROV_HUNK_PRESENT_CHANGED;
			how = 0;
			renamed = 0;
			rewrapped = 1;
		}
		/* absent only by the code around it, in a file a patch naming
		 * the fix changes: that patch's lines decide (below), not this */
		if (how == PROV_HUNK_BY_CODE_AROUND && st == PROV_HUNK_ABSENT &&
		    effect_naming_patch_changes(dp, fix_hex, h, loc->deployed))
			st = PROV_HUNK_UNKNOWN;
		/* present by token changes: in the function the hunk's header
		 * names, when the deployed file defines it (not a look-alike
		 * line of another function) */
		if (how == PROV_HUNK_BY_TOKENS && st == PROV_HUNK_PRESENT_CHANGED && !effect_in_own_function(h, loc))
			st = PROV_HUNK_UNKNOWN;
		if (dp && (st == PROV_HUNK_PRESENT_EXACT || st == PROV_HUNK_PRESENT_CHANGED || !dp->applied))
			via = effect_carried_by(dp, h, fix_hex, loc->deployed);
		if (via && !dp->applied && st != PROV_HUNK_PRESENT_EXACT)
			st = PROV_HUNK_PRESENT_CHANGED;	/* a patch that rpmbuild applies */
		else if (!via && dp && !dp->applied && st == PROV_HUNK_ABSENT && effect_touched_by(dp, h))
			st = PROV_HUNK_UNKNOWN;	/* a patch changes those lines some other way */
		if (dp && dp->applied && (st == PROV_HUNK_UNKNOWN || st == PROV_HUNK_ABSENT) &&
		    (undone = effect_undone_by_later(dp, h, fix_hex, loc->deployed, &via, &revert))) {
			/* carried, then changed again by a later patch: the fix was
			 * applied (present, by the carrying patch), unless the later
			 * patch reverts it (decided apart) */
			st = revert ? PROV_HUNK_UNKNOWN : PROV_HUNK_PRESENT_CHANGED;
			if (revert)
				via = NULL;
		}
		/* the patch naming the fix has its lines, elsewhere: the code
		 * lived in another file; or, for an addition absent at the
		 * fix's place, the patch adds it at another place (moved) */
		if (dp && dp->applied && !via && !undone &&
		    (st == PROV_HUNK_UNKNOWN || (st == PROV_HUNK_ABSENT && (!loc->found || effect_adds_only(h)))) &&
		    (via = effect_carried_by_naming(dp, h, fix_hex))) {
			moved = st == PROV_HUNK_ABSENT && loc->found;
			st = PROV_HUNK_PRESENT_CHANGED;
		}
		if (dp && dp->applied && !via && !undone && st == PROV_HUNK_UNKNOWN && loc->have_pre &&
		    (via = effect_names_by_naming(dp, h, fix_hex, &loc->pre, loc->deployed)))
			st = PROV_HUNK_PRESENT_CHANGED;	/* its new names added by the patch naming the fix */
		if (rewrapped && dp && !via)	/* the patch that re-wrapped it */
			via = effect_rewrapped_carried_by(dp, h, fix_hex, loc);
		if ((st == PROV_HUNK_PRESENT_EXACT || st == PROV_HUNK_PRESENT_CHANGED) && !via)
			via = t->deployed_hex;	/* already in the upstream code deployed */
		/* test-only: a test file the deployed tree does not have (not
		 * shipped); one it has is judged like any other */
		if ((st == PROV_HUNK_ABSENT || st == PROV_HUNK_UNKNOWN) && !loc->found &&
		    prov_hunk_is_test_path(h->path))
			st = PROV_HUNK_TEST_ONLY;
		effect_add_evidence(out, fix_hex, h, loc, st, st == PROV_HUNK_PRESENT_EXACT || st == PROV_HUNK_PRESENT_CHANGED ? via : NULL);
		if (renamed && (st == PROV_HUNK_PRESENT_EXACT || st == PROV_HUNK_PRESENT_CHANGED || st == PROV_HUNK_ABSENT))
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_RENAMED;
		if (moved)
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_MOVED;
		if (rewrapped && st == PROV_HUNK_PRESENT_CHANGED && !undone)
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_REWRAPPED;
		if (prov_hunk_blanks_only(h)) {
			/* whitespace: nothing to tell present from absent; decided apart */
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_BLANKS;
		} else if (undone && revert) {
			/* decided apart: the later patch's revert, not the fix's absence */
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_REVERTED;
			out->ev[out->n - 1].via = prov_xstrdup(undone);
			out->nna++;
		} else if (undone) {
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_CHANGED_LATER;
		} else if ((st == PROV_HUNK_ABSENT || st == PROV_HUNK_UNKNOWN) && prov_hunk_comments_only(h)) {
			/* a comment changed or dropped: no effect on the code, a
			 * backport may leave it; decided apart, like a test file's */
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_COMMENTS;
		} else if (st == PROV_HUNK_UNKNOWN && loc->found && prov_hunk_not_applicable(h, &loc->f) &&
		    !effect_function_in(h, loc)) {
			/* the release does not have the code this hunk changes: a backport drops it */
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_NOT_HERE;
			out->nna++;
		} else if (st == PROV_HUNK_ABSENT && loc->found && dp && dp->applied &&
			   effect_own_mechanism_left_out(dp, h, fix_hex, loc)) {
			/* its new names nowhere: the patch naming the fix did it another way */
			out->ev[out->n - 1].state = prov_hunk_state_name(PROV_HUNK_UNKNOWN);
			out->ev[out->n - 1].note = "a patch naming the fix changes this file another way";
			out->nabsent--;
			out->nunknown++;
			out->nna++;
		} else if (st == PROV_HUNK_ABSENT && loc->found && effect_removes_used_function(h, loc, dp)) {
			/* the release (or a distribution patch) still calls what it removes */
			out->ev[out->n - 1].state = prov_hunk_state_name(PROV_HUNK_UNKNOWN);
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_STILL_USED;
			out->nabsent--;
			out->nunknown++;
			out->nna++;
		} else if (st == PROV_HUNK_ABSENT && !h->new_file && effect_adds_absent_headers_only(h, t)) {
			/* the include of a helper the release does not have: not applicable there */
			out->ev[out->n - 1].state = prov_hunk_state_name(PROV_HUNK_UNKNOWN);
			out->ev[out->n - 1].note = "it includes a header the deployed tree does not have";
			out->nabsent--;
			out->nunknown++;
			out->nna++;
		} else if (st == PROV_HUNK_UNKNOWN && !loc->found && !h->new_file) {
			/* no such file in the release, under any name (another build
			 * system's file, code that came later): not applicable there */
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_NO_FILE;
			out->nna++;
		} else if (st == PROV_HUNK_UNKNOWN && dp && dp->applied && loc->found &&
			   effect_naming_patch_changes(dp, fix_hex, h, loc->deployed)) {
			/* the patch naming the fix changes this file, its way: adapted
			 * beyond what the lines tell; it decides nothing alone */
			out->ev[out->n - 1].note = "a patch naming the fix changes this file another way";
			out->nna++;
		}
	}
	effect_shipped_new_tests(out, &hs, locs, nlocs);
	effect_new_files_apart(out, &hs);
	if (!depth) {
		relocate_gone_hunks(out, &hs, locs, nlocs, t);
		absent_by_history(out, &hs, parent, fix_hex, dp, t);
	}
	error = 0;
cleanup:
	for (i = 0; i < nlocs; i++) {
		free(locs[i].path);
		free(locs[i].deployed);
		free(locs[i].text);
		prov_hunk_file_release(&locs[i].f);
		prov_hunk_file_release(&locs[i].pre);
		prov_hunk_file_release(&locs[i].post);
		effect_located_release(&locs[i]);
	}
	free(locs);
	prov_hunks_release(&hs);
	prov_buf_release(&text);
	prov_buf_release(&named);
	free(parent);
	free(rev);
	if (error < 0)
		prov_effect_release(out);
	return error;
}
