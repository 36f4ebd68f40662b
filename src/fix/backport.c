/* How a fix is in the deployed build: ancestry, cherry-picks, patch ids, distribution patches. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "backport.h"
#include "error.h"
#include "sha256.h"
#include "srcimport.h"
#include "udiff.h"
#include "util.h"
#include "banned.h"

/* ---- per-file ids of a unified diff (src/util/udiff.c reads it) ---- */

/* "path\tid\n" of one file, when it has a name and hunk lines. */
static void put_file_id(struct prov_buf *out, const char *path, struct prov_sha256 *s, size_t nlines)
{
	unsigned char digest[PROV_SHA256_LEN];
	size_t i;

	prov_sha256_final(digest, s);
	if (!path || !nlines || strchr(path, '\t') || strchr(path, '\n'))
		return;
	prov_buf_printf(out, "%s\t", path);
	for (i = 0; i < PROV_SHA256_LEN; i++)
		prov_buf_printf(out, "%02x", digest[i]);
	prov_buf_putc(out, '\n');
}

/* One hunk line: its origin and its bytes but blanks, then a newline. */
static void hash_line(struct prov_sha256 *s, const struct prov_udiff *d)
{
	size_t i;

	prov_sha256_update(s, &d->origin, 1);
	for (i = 0; i < d->text_len; i++)
		if (!isspace((unsigned char)d->text[i]))
			prov_sha256_update(s, &d->text[i], 1);
	prov_sha256_update(s, "\n", 1);
}

/*
 * A file counts when its first hunk comes right after its "+++" line, and
 * it ends at the first line after a hunk that is not another hunk (the
 * comparison has always been over a file's contiguous hunks).
 */
char *prov_backport_file_ids(const char *text, size_t len)
{
	struct prov_buf out = PROV_BUF_INIT;
	struct prov_udiff d;
	struct prov_sha256 s;
	char *path = NULL;
	size_t nlines = 0;
	int ev, state = 0;	/* 0: outside a file, 1: right after its "+++", 2: in its hunks */

	prov_udiff_init(&d, text, len, 1, PROV_UDIFF_STRIP_AT_MOST);
	do {
		ev = prov_udiff_next(&d);
		if (ev == PROV_UDIFF_HUNK && state) {
			state = 2;
			continue;
		}
		if (state == 2 && (ev == PROV_UDIFF_LINE || ev == PROV_UDIFF_NOEOL || ev == PROV_UDIFF_CUT)) {
			if (ev == PROV_UDIFF_LINE) {
				hash_line(&s, &d);
				nlines++;
			}
			continue;
		}
		if (state == 2)
			put_file_id(&out, path, &s, nlines);
		state = 0;
		if (ev == PROV_UDIFF_FILE && d.file_ok) {
			free(path);
			path = prov_xstrdup(d.new_path ? d.new_path : d.old_path);
			prov_sha256_init(&s);
			nlines = 0;
			state = 1;
		}
	} while (ev != PROV_UDIFF_END);
	free(path);
	prov_udiff_release(&d);
	return prov_buf_detach(&out);
}

/* The id of `path` in a "path\tid\n" list, copied into id (65 bytes); 0 when absent. */
static int file_id(char id[65], const char *files, const char *path)
{
	size_t pl = strlen(path);
	const char *p = files;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);

		if (l == pl + 1 + 64 && !strncmp(p, path, pl) && p[pl] == '\t') {
			memcpy(id, p + pl + 1, 64);
			id[64] = '\0';
			return 1;
		}
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* The commit kept for `path` in a "path\tcommit\n" list (40 hex); 0 when absent. */
static int file_id_any(char id[65], const char *list, const char *path)
{
	size_t pl = strlen(path);
	const char *p = list;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);

		if (l > pl + 1 && l - pl - 1 <= 64 && !strncmp(p, path, pl) && p[pl] == '\t') {
			memcpy(id, p + pl + 1, l - pl - 1);
			id[l - pl - 1] = '\0';
			return 1;
		}
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* ---- patch ids of commits, through the cache ---- */

struct ids {
	char **patchid;
	char **files;
	size_t n;
};

static void ids_release(struct ids *x)
{
	size_t i;

	for (i = 0; i < x->n; i++) {
		free(x->patchid[i]);
		free(x->files[i]);
	}
	free(x->patchid);
	free(x->files);
	memset(x, 0, sizeof(*x));
}

static int compute_ids(struct ids *x, struct prov_repo *r, const char *const *commits, size_t n,
		       struct prov_cache *cache)
{
	const char **new_c = NULL, **new_i = NULL, **new_f = NULL;
	size_t i, nnew = 0;
	int error = 0;

	x->n = n;
	x->patchid = prov_xcalloc(n + 1, sizeof(*x->patchid));
	x->files = prov_xcalloc(n + 1, sizeof(*x->files));
	if (cache && prov_cache_patchid_get_many(x->patchid, x->files, cache, commits, n) < 0)
		prov_warn("%s", prov_error_last());
	new_c = prov_xcalloc(n + 1, sizeof(*new_c));
	new_i = prov_xcalloc(n + 1, sizeof(*new_i));
	new_f = prov_xcalloc(n + 1, sizeof(*new_f));
	for (i = 0; i < n; i++) {
		struct prov_buf text = PROV_BUF_INIT;
		char pid[41];

		if (x->patchid[i] && x->files[i])
			continue;
		free(x->patchid[i]);
		free(x->files[i]);
		x->patchid[i] = x->files[i] = NULL;
		error = prov_repo_commit_diff(&text, pid, r, commits[i]);
		if (error == PROV_ELIMIT) {
			/* too large to compare: no ids, never matches */
			memset(pid, '0', 40);
			pid[40] = '\0';
			prov_buf_reset(&text);
			error = 0;
		}
		if (error < 0) {
			prov_buf_release(&text);
			goto cleanup;
		}
		x->patchid[i] = prov_xstrdup(pid);
		x->files[i] = prov_backport_file_ids(text.buf, text.len);
		prov_buf_release(&text);
		new_c[nnew] = commits[i];
		new_i[nnew] = x->patchid[i];
		new_f[nnew] = x->files[i];
		nnew++;
	}
	if (cache && nnew && prov_cache_patchid_put_many(cache, new_c, new_i, new_f, nnew) < 0)
		prov_warn("%s", prov_error_last());
cleanup:
	free(new_c);
	free(new_i);
	free(new_f);
	return error;
}

static int is_zero_id(const char *id)
{
	return !id || strspn(id, "0") == strlen(id);
}

/* Does a "picked from" list name the fix (full or abbreviated, >= 7 hex)? */
static int names_fix(const char *list, const char *fix_hex)
{
	const char *p = list;

	while (p && *p) {
		size_t l = strcspn(p, " ");

		if (l >= 7 && l <= 40 && !strncasecmp(p, fix_hex, l))
			return 1;
		p += l;
		while (*p == ' ')
			p++;
	}
	return 0;
}

/* The fix's files as an array of paths (from its "path\tid\n" list). */
static size_t split_files(char ***out, const char *files)
{
	char **v = NULL;
	size_t n = 0, alloc = 0;
	const char *p = files;

	while (p && *p) {
		const char *tab = strchr(p, '\t'), *nl = strchr(p, '\n');

		if (!tab || (nl && nl < tab))
			break;
		PROV_ALLOC_GROW(v, n + 1, alloc);
		v[n++] = prov_xstrndup(p, (size_t)(tab - p));
		p = nl ? nl + 1 : NULL;
	}
	*out = v;
	return n;
}

static void strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void add_word(struct prov_buf *b, const char *sep, const char *w)
{
	size_t wl = strlen(w);
	const char *p = b->buf;

	/* no duplicates */
	while ((p = strstr(p, w))) {
		if ((p == b->buf || !strncmp(p - strlen(sep), sep, strlen(sep))) &&
		    (p[wl] == '\0' || !strncmp(p + wl, sep, strlen(sep))))
			return;
		p += wl;
	}
	if (b->len)
		prov_buf_puts(b, sep);
	prov_buf_puts(b, w);
}

/*
 * Look for the fix in the commits of a range: 1 and *via when found whole
 * (trailer, patch-id, or every file), 0 otherwise; present[k] is set to the
 * commit that changes fix file k as the fix does.
 */
static int search_range(char **via, char **present, struct prov_repo *r,
			const struct prov_range_commit *rc, size_t nrc, const char *fix_hex,
			const char *fix_pid, char *const *fix_files, const char *const *fix_ids,
			size_t nfiles, struct prov_cache *cache)
{
	const char **hexes = prov_xcalloc(nrc + 1, sizeof(*hexes));
	struct ids x = { 0 };
	size_t i, k, nhex = 0, npresent = 0;
	int error, found = 0;

	*via = NULL;
	for (i = 0; i < nrc; i++) {
		if (rc[i].picked_from && names_fix(rc[i].picked_from, fix_hex)) {
			*via = prov_xstrdup(rc[i].hex);
			found = 1;
			goto cleanup;
		}
		if (!rc[i].merge)
			hexes[nhex++] = rc[i].hex;
	}
	if ((error = compute_ids(&x, r, hexes, nhex, cache)) < 0) {
		found = error;
		goto cleanup;
	}
	for (i = 0; i < nhex; i++) {
		if (!is_zero_id(fix_pid) && !strcmp(x.patchid[i], fix_pid)) {
			*via = prov_xstrdup(hexes[i]);
			found = 1;
			goto cleanup;
		}
		for (k = 0; k < nfiles; k++) {
			char id[65];

			if (!present[k] && file_id(id, x.files[i], fix_files[k]) &&
			    !strcmp(id, fix_ids[k])) {
				present[k] = prov_xstrdup(hexes[i]);
				npresent++;
			}
		}
	}
	if (nfiles && npresent == nfiles) {
		struct prov_buf b = PROV_BUF_INIT;

		for (k = 0; k < nfiles; k++)
			add_word(&b, " ", present[k]);
		*via = prov_buf_detach(&b);
		found = 1;
	}
cleanup:
	ids_release(&x);
	free(hexes);
	return found;
}

struct search_arg {
	char **present;
	char *const *fix_files;
	const char *const *fix_ids;
	size_t nfiles;
};

static void search_one(const char *path, int strip, const struct prov_buf *patch, void *arg)
{
	struct search_arg *a = arg;
	char *ids = prov_backport_file_ids(patch->buf, patch->len);
	size_t k;

	for (k = 0; k < a->nfiles; k++) {
		char id[65];

		if (!a->present[k] && file_id(id, ids, a->fix_files[k]) && !strcmp(id, a->fix_ids[k]))
			a->present[k] = prov_xstrdup(path);
	}
	free(ids);
}

/* The Debian patches of the import: present[k] = patch name for each fix file changed the same way. */
static int search_patches(struct prov_repo *pr, const char *commit, char **present,
			  char *const *fix_files, const char *const *fix_ids, size_t nfiles)
{
	struct search_arg a = { present, fix_files, fix_ids, nfiles };

	return prov_debian_patches_each(pr, commit, search_one, &a);
}

/* The distribution patches of the options (the import's series, the RPM patches). */
/* 1 when an extra patch before i is the same file (a spec may name one on
 * several Patch lines): its hunks are parsed and held once. */
static int named_before(const struct prov_backport_opts *o, size_t i)
{
	size_t j;

	for (j = 0; o->extra_patch_names && j < i; j++)
		if (!strcmp(o->extra_patch_names[j], o->extra_patch_names[i]))
			return 1;
	return 0;
}

static int load_dist(struct prov_dist_patches *dp, const struct prov_backport_opts *o)
{
	size_t i;
	int error;

	memset(dp, 0, sizeof(*dp));
	if (o->patches_repo && o->patches_commit &&
	    (error = prov_dist_patches_debian(dp, o->patches_repo, o->patches_commit)) < 0)
		return error;
	for (i = 0; o->extra_patch_texts && i < o->nextra_patches; i++)
		if (!named_before(o, i))
			prov_dist_patches_add(dp, o->extra_patch_names[i],
					      o->extra_patch_texts[i] ? o->extra_patch_texts[i] : "",
					      o->extra_patch_texts[i] ? strlen(o->extra_patch_texts[i]) : 0,
					      o->extra_patch_notes ? o->extra_patch_notes[i] : NULL);
	return 0;
}

/* A hunk decided on apart: a test or documentation file's, or one that changes comments or blanks only. */
static int aside(const struct prov_fix_evidence *e)
{
	return prov_hunk_is_test_path(e->file) || prov_hunk_is_doc_path(e->file) ||
	       (e->note && (!strcmp(e->note, PROV_EFFECT_NOTE_COMMENTS) || !strcmp(e->note, PROV_EFFECT_NOTE_BLANKS)));
}

static int is_present_state(const char *st)
{
	return !strcmp(st, "present-exact") || !strcmp(st, "present-changed-lines");
}

/* How many hunks of each kind, test and documentation files apart (the verdict is the others' when there are any). */
struct hunk_counts {
	size_t present, absent, unknown, na;	/* na: unknown, its code not in the release */
};

static void count_hunks(struct hunk_counts *c, const struct prov_effect *eff, int test)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < eff->n; i++) {
		const struct prov_fix_evidence *e = &eff->ev[i];

		if (!strcmp(e->state, "test-only") || aside(e) != test)
			continue;
		if (is_present_state(e->state))
			c->present++;
		else if (!strcmp(e->state, "absent"))
			c->absent++;
		else if (e->note)
			c->na++;
		else
			c->unknown++;
	}
}

/* The reason of an undetermined verdict: the first unknown hunk (of the kind decided on). */
static char *undetermined_reason(const struct prov_effect *eff, const struct hunk_counts *c, int test)
{
	size_t i;

	for (i = 0; c->unknown && i < eff->n; i++) {
		const struct prov_fix_evidence *e = &eff->ev[i];

		if (!strcmp(e->state, "unknown") && !e->note && aside(e) == test)
			return prov_xasprintf("hunk %s of %s%s%s%s is neither shown present nor shown absent in the deployed tree (the code around it was rewritten, or the file is gone)",
					      e->hunk, e->file, e->function ? " (" : "", e->function ? e->function : "",
					      e->function ? ")" : "");
	}
	if (c->na)
		return prov_xstrdup("no hunk of the fix is shown present or absent in the deployed tree (the code it changes is not there, or only a patch naming the fix changes it, another way)");
	return prov_xstrdup("the fix changes test or documentation files only, and the deployed tree does not have them");
}

/*
 * The verdict from the hunks (fixeffect.h), decided on the hunks outside
 * test and documentation files when there are any (an absent test hunk of an otherwise
 * carried fix is named, never makes it missing): some absent and none
 * present: missing; absent and present: partial; none absent, one unknown
 * (or none present): undetermined; else included. by_file[k]: the commit
 * or patch the id search found changing fix file k the same way (kept as
 * the via of its present hunks).
 */
static void effect_verdict(struct prov_backport *out, struct prov_effect *eff, const char *deployed_hex,
			   char *const *fix_files, char *const *by_file, size_t nfiles)
{
	struct prov_buf via = PROV_BUF_INIT, yes = PROV_BUF_INIT, no = PROV_BUF_INIT;
	struct hunk_counts c, t;
	size_t i, k;
	int all_patches = 1, test;

	count_hunks(&c, eff, 0);
	count_hunks(&t, eff, 1);
	test = !(c.present + c.absent + c.unknown + c.na);
	if (test)
		c = t;
	for (i = 0; i < eff->n; i++) {
		struct prov_fix_evidence *e = &eff->ev[i];

		for (k = 0; k < nfiles; k++)
			if (by_file[k] && e->via && !strcmp(fix_files[k], e->file) && is_present_state(e->state)) {
				free(e->via);
				e->via = prov_xstrdup(by_file[k]);
			}
		if (e->via && is_present_state(e->state)) {	/* a present hunk's carrier */
			add_word(&via, " ", e->via);
			if (!strcmp(e->via, deployed_hex) || strlen(e->via) == 40)
				all_patches = 0;
		}
	}
	if (c.absent) {
		for (i = 0; i < eff->n; i++) {
			const struct prov_fix_evidence *e = &eff->ev[i];

			if (!strcmp(e->state, "absent") && aside(e) == test)
				add_word(&no, ", ", e->file);
		}
		for (i = 0; i < eff->n; i++) {
			const struct prov_fix_evidence *e = &eff->ev[i];

			if (is_present_state(e->state) && aside(e) == test &&
			    !strstr(no.buf ? no.buf : "", e->file))
				add_word(&yes, ", ", e->file);
		}
		out->how = c.present ? "partial" : "missing";
		if (c.present) {
			out->files_present = yes.len ? prov_buf_detach(&yes) : NULL;
			out->files_missing = prov_buf_detach(&no);
			out->via = via.len ? prov_buf_detach(&via) : NULL;
		}
	} else if (c.unknown || !c.present) {
		out->undetermined = 1;
		out->reason = undetermined_reason(eff, &c, test);
	} else {
		out->included = 1;
		out->how = !eff->nchanged && !eff->ntest && !eff->nna && !eff->nabsent && !eff->nunknown &&
				   all_patches && via.len ? "distribution-patch" : "adapted";
		out->via = via.len ? prov_buf_detach(&via) : NULL;
	}
	out->evidence = eff->ev;
	out->nevidence = eff->n;
	out->named_by = eff->named_by;
	eff->ev = NULL;
	eff->n = 0;
	eff->named_by = NULL;
	prov_buf_release(&via);
	prov_buf_release(&yes);
	prov_buf_release(&no);
}

/* The hunks of the fix in the deployed tree; *have 0 when there are none or the diff is too large. */
static int run_effect(struct prov_effect *eff, int *have, struct prov_repo *r, const char *fix_hex,
		      const char *deployed_hex, const struct prov_backport_opts *o)
{
	struct prov_dist_patches own = { 0 };
	const struct prov_dist_patches *dp = o->dist;
	struct prov_effect_tree t = { r, deployed_hex, o->patches_repo, o->patches_repo ? o->patches_commit : NULL,
				      o->cache };
	int error;

	*have = 0;
	if (!dp && (error = load_dist(&own, o)) < 0)
		return error;
	error = prov_effect_check(eff, fix_hex, dp ? dp : &own, &t);
	prov_dist_patches_release(&own);
	if (error == PROV_ELIMIT) {
		prov_error_clear();	/* too large to compare: the ids decide */
		return 0;
	}
	if (error < 0)
		return error;
	*have = eff->n > 0;
	return 0;
}

/*
 * Is fix an ancestor of deployed? Two commit ids answer it for ever: kept in
 * the cache (the walk of a deep history is most of a warm fixcheck).
 */
static int cached_is_ancestor(int *anc, struct prov_repo *r, const char *fix_hex, const char *deployed_hex,
			      struct prov_cache *cache)
{
	char *key = prov_xasprintf("ancestor-of:%s", deployed_hex), *v = NULL, *unused = NULL;
	int error;

	if (cache && prov_cache_backport_get(&v, &unused, cache, fix_hex, key) == 0 && v &&
	    (!strcmp(v, "1") || !strcmp(v, "0"))) {
		*anc = v[0] == '1';
		error = 0;
		goto cleanup;
	}
	prov_error_clear();
	if ((error = prov_repo_is_ancestor(anc, r, fix_hex, deployed_hex)) < 0)
		goto cleanup;
	if (cache && prov_cache_backport_put(cache, fix_hex, key, *anc ? "1" : "0", "") < 0) {
		prov_warn("%s", prov_error_last());
		prov_error_clear();
	}
cleanup:
	free(key);
	free(v);
	free(unused);
	return error;
}

/* A later cherry-pick on a branch that contains the deployed commit. */
static int search_branches(struct prov_backport *out, struct prov_repo *r, const char *fix_hex,
			   const char *deployed_hex, const char *fix_pid, char *const *fix_files,
			   const char *const *fix_ids, size_t nfiles, const struct prov_backport_opts *o,
			   size_t max)
{
	char **branches = NULL, **tips = NULL;
	size_t nb = 0, nt = 0, i, k;
	int error;

	/* the branches whose tip contains the deployed commit (each answer kept in the cache) */
	if ((error = prov_repo_branch_tips(&branches, &tips, &nt, r)) < 0)
		return error;
	for (i = 0; i < nt; i++) {
		int yes = 0;

		if (cached_is_ancestor(&yes, r, deployed_hex, tips[i], o->cache) == 0 && yes) {
			branches[nb++] = branches[i];
			branches[i] = i >= nb ? NULL : branches[i];
		} else {
			free(branches[i]);
			branches[i] = NULL;
		}
		prov_error_clear();
	}
	strv_free(tips, nt);
	for (i = 0; i < nb && !out->branch; i++) {
		struct prov_range_commit *rc = NULL;
		size_t nrc = 0;
		char *tip = NULL, *via = NULL;
		char **present = prov_xcalloc(nfiles + 1, sizeof(*present));
		int anc = 0, found;

		if (prov_repo_resolve(&tip, r, branches[i]) < 0 ||
		    cached_is_ancestor(&anc, r, fix_hex, tip, o->cache) < 0 || anc ||
		    prov_repo_range(&rc, &nrc, r, tip, deployed_hex, max) < 0)
			goto next;
		found = search_range(&via, present, r, rc, nrc, fix_hex, fix_pid, fix_files,
				     fix_ids, nfiles, o->cache);
		if (found > 0) {
			char *first = strchr(via, ' ') ? prov_xstrndup(via, strcspn(via, " ")) : prov_xstrdup(via);

			if (prov_repo_first_tag(&out->branch_tag, r, first) == 0 && out->branch_tag) {
				out->branch = prov_xstrdup(branches[i]);
				out->branch_via = via;
				via = NULL;
			}
			free(first);
		}
next:
		for (k = 0; k < nfiles; k++)
			free(present[k]);
		free(present);
		free(via);
		free(tip);
		prov_range_free(rc, nrc);
	}
	strv_free(branches, nb);
	prov_error_clear();
	return 0;
}

int prov_backport_check(struct prov_backport *out, struct prov_repo *r, const char *fix_hex,
			const char *deployed_hex, const struct prov_backport_opts *o)
{
	static const struct prov_backport_opts none = { 0 };
	struct prov_range_commit *rc = NULL;
	struct ids fx = { 0 };
	char **fix_files = NULL, **present = NULL;
	const char **fix_ids = NULL;
	size_t nrc = 0, nfiles = 0, k, npresent = 0, nbefore = 0, max, i;
	struct prov_effect eff = { 0 };
	int anc = 0, error, found, have_effect = 0;

	memset(out, 0, sizeof(*out));
	if (!o)
		o = &none;
	max = o->max_commits ? o->max_commits : 1000000;
	if ((error = cached_is_ancestor(&anc, r, fix_hex, deployed_hex, o->cache)) < 0)
		goto cleanup;
	if ((error = prov_repo_first_tag(&out->first_tag, r, fix_hex)) < 0)
		goto cleanup;
	if (anc) {
		out->included = 1;
		out->how = "ancestor";
		out->via = prov_xstrdup(fix_hex);
		goto done;
	}
	if ((error = compute_ids(&fx, r, &fix_hex, 1, o->cache)) < 0)
		goto cleanup;
	out->patchid = prov_xstrdup(fx.patchid[0]);
	nfiles = split_files(&fix_files, fx.files[0]);
	fix_ids = prov_xcalloc(nfiles + 1, sizeof(*fix_ids));
	for (k = 0; k < nfiles; k++) {
		char id[65];

		file_id(id, fx.files[0], fix_files[k]);
		fix_ids[k] = prov_xstrdup(id);
	}
	present = prov_xcalloc(nfiles + 1, sizeof(*present));
	{
		/* the range search's result depends on the two commit ids only: kept */
		char *mvia = NULL, *mpresent = NULL;

		if (o->cache && prov_cache_backport_get(&mvia, &mpresent, o->cache, fix_hex,
							deployed_hex) == 0) {
			found = *mvia != '\0';
			if (found)
				out->via = prov_xstrdup(mvia);
			for (k = 0; !found && k < nfiles; k++) {
				char id[65];

				/* the same "path\tvalue\n" layout as the id lists */
				if (file_id_any(id, mpresent, fix_files[k]))
					present[k] = prov_xstrdup(id);
			}
			free(mvia);
			free(mpresent);
		} else {
			struct prov_buf pb = PROV_BUF_INIT;

			prov_error_clear();
			if ((error = prov_repo_range(&rc, &nrc, r, deployed_hex, fix_hex, max)) < 0)
				goto cleanup;
			found = search_range(&out->via, present, r, rc, nrc, fix_hex, out->patchid,
					     fix_files, fix_ids, nfiles, o->cache);
			if (found < 0) {
				error = found;
				goto cleanup;
			}
			for (k = 0; k < nfiles; k++)
				if (present[k])
					prov_buf_printf(&pb, "%s\t%s\n", fix_files[k], present[k]);
			if (o->cache && prov_cache_backport_put(o->cache, fix_hex, deployed_hex,
								found ? out->via : "", pb.buf) < 0)
				prov_warn("%s", prov_error_last());
			prov_buf_release(&pb);
		}
	}
	if (found) {
		out->included = 1;
		out->how = "cherry-pick";
		goto done;
	}
	for (k = 0; k < nfiles; k++)
		if (present[k])
			nbefore++;
	if (o->patches_repo && o->patches_commit &&
	    (error = search_patches(o->patches_repo, o->patches_commit, present, fix_files,
				    fix_ids, nfiles)) < 0)
		goto cleanup;
	for (i = 0; i < o->nextra_patches; i++)
		for (k = 0; k < nfiles; k++) {
			char id[65];

			if (!present[k] && file_id(id, o->extra_patch_ids[i], fix_files[k]) &&
			    !strcmp(id, fix_ids[k]))
				present[k] = prov_xstrdup(o->extra_patch_names[i]);
		}
	for (k = 0; k < nfiles; k++)
		if (present[k])
			npresent++;
	/* the effect of the fix on the deployed tree, hunk by hunk */
	if ((error = run_effect(&eff, &have_effect, r, fix_hex, deployed_hex, o)) < 0)
		goto cleanup;
	if (nfiles && npresent == nfiles) {
		struct prov_buf b = PROV_BUF_INIT;
		/* a file found only in a distribution patch */
		int patches = npresent > nbefore;

		for (k = 0; k < nfiles; k++)
			add_word(&b, " ", present[k]);
		out->via = prov_buf_detach(&b);
		out->included = 1;
		out->how = patches ? "distribution-patch" : "cherry-pick";
		out->evidence = eff.ev;
		out->nevidence = eff.n;
		out->named_by = eff.named_by;
		eff.ev = NULL;
		eff.n = 0;
		eff.named_by = NULL;
		goto done;
	}
	if (have_effect) {
		effect_verdict(out, &eff, deployed_hex, fix_files, present, nfiles);
		if (out->undetermined && !o->patches_repo && !o->nextra_patches) {
			/*
			 * The deployed tree is an upstream commit: the fix is not in
			 * its history and no commit of it carries the fix: not
			 * included, whatever the hunks (kept as evidence).
			 */
			out->undetermined = 0;
			free(out->reason);
			out->reason = NULL;
		}
		if (out->how && !strcmp(out->how, "missing") && !o->no_branches &&
		    (error = search_branches(out, r, fix_hex, deployed_hex, out->patchid, fix_files,
					     fix_ids, nfiles, o, max)) < 0)
			goto cleanup;
		goto done;
	}
	if (npresent) {
		struct prov_buf yes = PROV_BUF_INIT, no = PROV_BUF_INIT, via = PROV_BUF_INIT;

		for (k = 0; k < nfiles; k++) {
			add_word(present[k] ? &yes : &no, ", ", fix_files[k]);
			if (present[k])
				add_word(&via, " ", present[k]);
		}
		out->how = "partial";
		out->files_present = prov_buf_detach(&yes);
		out->files_missing = prov_buf_detach(&no);
		out->via = prov_buf_detach(&via);
		goto done;
	}
	if (!o->no_branches &&
	    (error = search_branches(out, r, fix_hex, deployed_hex, out->patchid, fix_files,
				     fix_ids, nfiles, o, max)) < 0)
		goto cleanup;
done:
	error = 0;
cleanup:
	if (error < 0)
		prov_backport_release(out);
	for (k = 0; present && k < nfiles; k++)
		free(present[k]);
	free(present);
	for (k = 0; fix_ids && k < nfiles; k++)
		free((char *)fix_ids[k]);
	free(fix_ids);
	strv_free(fix_files, nfiles);
	ids_release(&fx);
	prov_range_free(rc, nrc);
	prov_effect_release(&eff);
	return error;
}

int prov_backport_expand(char ***out, size_t *n, struct prov_repo *r, const char *spec, size_t max)
{
	const char *dots = strstr(spec, "..");
	struct prov_range_commit *rc = NULL;
	char *a = NULL, *b = NULL, *ahex = NULL, *bhex = NULL, **v = NULL;
	size_t nrc = 0, i, k = 0;
	int error;

	*out = NULL;
	*n = 0;
	if (!dots) {
		if ((error = prov_repo_resolve(&ahex, r, spec)) < 0)
			return error;
		v = prov_xcalloc(2, sizeof(*v));
		v[0] = ahex;
		*out = v;
		*n = 1;
		return 0;
	}
	if (dots[2] == '.' || dots == spec || !dots[2])
		return prov_error_set(PROV_EINPUT, "'%s' is not a range A..B of commits", spec);
	a = prov_xstrndup(spec, (size_t)(dots - spec));
	b = prov_xstrdup(dots + 2);
	if ((error = prov_repo_resolve(&ahex, r, a)) < 0 || (error = prov_repo_resolve(&bhex, r, b)) < 0)
		goto cleanup;
	if ((error = prov_repo_range(&rc, &nrc, r, bhex, ahex, max)) < 0) {
		if (error == PROV_ELIMIT)
			error = prov_error_set(PROV_EINPUT, "range '%s' has more than %zu commits", spec, max);
		goto cleanup;
	}
	v = prov_xcalloc(nrc + 1, sizeof(*v));
	for (i = nrc; i-- > 0;)	/* newest first -> oldest first */
		if (!rc[i].merge)
			v[k++] = prov_xstrdup(rc[i].hex);
	if (!k) {
		free(v);
		v = NULL;
		error = prov_error_set(PROV_EINPUT, "range '%s' has no commits (every commit of %s is in %s)",
				       spec, b, a);
		goto cleanup;
	}
	*out = v;
	*n = k;
	error = 0;
cleanup:
	prov_range_free(rc, nrc);
	free(a);
	free(b);
	free(ahex);
	free(bhex);
	return error;
}

/* Append b's evidence to out's. */
static void take_evidence(struct prov_backport *out, struct prov_backport *b)
{
	size_t i;

	if (!b->nevidence)
		return;
	out->evidence = prov_xrealloc(out->evidence, (out->nevidence + b->nevidence) * sizeof(*out->evidence));
	for (i = 0; i < b->nevidence; i++)
		out->evidence[out->nevidence++] = b->evidence[i];
	free(b->evidence);
	b->evidence = NULL;
	b->nevidence = 0;
}

int prov_backport_check_all(struct prov_backport *out, struct prov_repo *r,
			    const char *const *fix_hexes, size_t n, const char *deployed_hex,
			    const struct prov_backport_opts *o)
{
	struct prov_backport *each;
	struct prov_buf via = PROV_BUF_INIT, missing = PROV_BUF_INIT, fp = PROV_BUF_INIT,
			fm = PROV_BUF_INIT, named = PROV_BUF_INIT;
	struct prov_backport_opts so = { 0 };
	struct prov_dist_patches dist = { 0 };
	size_t i, k, nin = 0, nanc = 0, npartial = 0, nmissing = 0, nundet = 0;
	int error = 0, patch = 0, adapted = 0;
	char *reason = NULL;

	if (o)
		so = *o;
	if (!so.dist) {	/* the distribution's patches read once for every commit */
		if ((error = load_dist(&dist, &so)) < 0)
			return error;
		so.dist = &dist;
	}
	if (n == 1) {
		error = prov_backport_check(out, r, fix_hexes[0], deployed_hex, &so);
		prov_dist_patches_release(&dist);
		return error;
	}
	memset(out, 0, sizeof(*out));
	/* the "upgrade to TAG, same branch" advice is for one commit only: not searched */
	so.no_branches = 1;
	each = prov_xcalloc(n + 1, sizeof(*each));
	for (i = 0; i < n; i++) {
		if ((error = prov_backport_check(&each[i], r, fix_hexes[i], deployed_hex, &so)) < 0)
			goto cleanup;
		if (each[i].named_by)
			add_word(&named, " ", each[i].named_by);
		if (each[i].included) {
			nin++;
			nanc += !strcmp(each[i].how, "ancestor");
			patch |= !strcmp(each[i].how, "distribution-patch");
			adapted |= !strcmp(each[i].how, "adapted");
			if (each[i].via)
				add_word(&via, " ", each[i].via);
		} else if (each[i].undetermined) {
			nundet++;
			if (!reason)
				reason = prov_xasprintf("commit %.12s: %s", fix_hexes[i], each[i].reason);
		} else {
			add_word(&missing, " ", fix_hexes[i]);
			if (each[i].how && !strcmp(each[i].how, "partial")) {
				npartial++;
				if (each[i].via)
					add_word(&via, " ", each[i].via);
				if (each[i].files_present)
					add_word(&fp, ", ", each[i].files_present);
				if (each[i].files_missing)
					add_word(&fm, ", ", each[i].files_missing);
			} else {
				nmissing++;
			}
		}
		take_evidence(out, &each[i]);
	}
	/* the first tag containing them all, among their own first tags */
	for (i = 0; i < n; i++) {
		char *tag_hex = NULL;
		int all = 1, anc;

		if (!each[i].first_tag || prov_repo_resolve(&tag_hex, r, each[i].first_tag) < 0)
			continue;
		for (k = 0; k < n && all; k++)
			if (prov_repo_is_ancestor(&anc, r, fix_hexes[k], tag_hex) < 0 || !anc)
				all = 0;
		free(tag_hex);
		if (all) {
			out->first_tag = prov_xstrdup(each[i].first_tag);
			break;
		}
	}
	prov_error_clear();
	if (named.len)
		out->named_by = prov_buf_detach(&named);
	if (nin == n) {
		out->included = 1;
		out->how = nanc == n ? "ancestor" : adapted ? "adapted" : patch ? "distribution-patch" : "cherry-pick";
		out->via = prov_buf_detach(&via);
	} else if (nmissing + npartial == 0) {
		/* the rest in, some undetermined: so is the whole */
		out->undetermined = 1;
		out->reason = reason;
		reason = NULL;
	} else if (nmissing == n) {
		out->how = "missing";
		out->commits_missing = prov_buf_detach(&missing);
	} else {
		out->how = "partial";
		out->via = via.len ? prov_buf_detach(&via) : NULL;
		out->commits_missing = prov_buf_detach(&missing);
		if (fp.len)
			out->files_present = prov_buf_detach(&fp);
		if (fm.len)
			out->files_missing = prov_buf_detach(&fm);
	}
cleanup:
	for (i = 0; i < n; i++)
		prov_backport_release(&each[i]);
	free(each);
	free(reason);
	prov_dist_patches_release(&dist);
	prov_buf_release(&via);
	prov_buf_release(&missing);
	prov_buf_release(&fp);
	prov_buf_release(&fm);
	prov_buf_release(&named);
	if (error < 0)
		prov_backport_release(out);
	return error;
}
