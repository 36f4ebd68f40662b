#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "defs.h"
#include "error.h"
#include "fixeffect.h"
#include "renames.h"
#include "srcdefs.h"
#include "srcimport.h"
#include "srclocate.h"
#include "util.h"
#include "banned.h"

#define MAX_SERIES ((size_t)1 << 20)
#define MAX_BASENAME_CANDIDATES 16
#define MAX_DIR_CANDIDATES 500	/* files of a directory read for a function line */

void prov_dist_patches_add(struct prov_dist_patches *dp, const char *name, const char *text, size_t len,
			   const char *notes)
{
	struct prov_dist_patch *p;

	dp->v = prov_xrealloc(dp->v, (dp->n + 1) * sizeof(*dp->v));
	p = &dp->v[dp->n++];
	memset(p, 0, sizeof(*p));
	p->name = prov_xstrdup(name);
	prov_hunks_parse(&p->hunks, text, len, 1);
	prov_dep3_parse(&p->dep3, text, len);
	if (notes && *notes) {
		struct prov_dep3 extra;
		size_t i;

		prov_dep3_parse(&extra, notes, strlen(notes));
		for (i = 0; i < extra.ncommits && p->dep3.ncommits < PROV_DEP3_MAX_COMMITS; i++) {
			p->dep3.commits[p->dep3.ncommits++] = extra.commits[i];
			extra.commits[i] = NULL;
		}
		prov_dep3_release(&extra);
	}
}

void prov_dist_patches_release(struct prov_dist_patches *dp)
{
	size_t i;

	for (i = 0; i < dp->n; i++) {
		free(dp->v[i].name);
		prov_hunks_release(&dp->v[i].hunks);
		prov_dep3_release(&dp->v[i].dep3);
	}
	free(dp->v);
	memset(dp, 0, sizeof(*dp));
}

int prov_debian_patches_each(struct prov_repo *pr, const char *commit,
			     void (*fn)(const char *path, int strip, const struct prov_buf *patch, void *arg),
			     void *arg)
{
	struct prov_buf series = PROV_BUF_INIT;
	const char *p, *end;
	char *name = NULL;
	size_t npatches = 0;
	int error, strip;

	error = prov_repo_read_blob(&series, pr, commit, "debian/patches/series", MAX_SERIES);
	if (error == PROV_ENOTFOUND) {
		prov_error_clear();
		error = 0;
		goto cleanup;
	}
	if (error < 0)
		goto cleanup;
	p = series.buf;
	end = series.buf + series.len;
	/* the series as the import read it (srcimport.c); a bad one was refused there */
	while (npatches < PROV_SRCIMPORT_MAX_PATCHES && prov_quilt_series_next(&name, &strip, &p, end) > 0) {
		struct prov_buf patch = PROV_BUF_INIT;
		char *path = prov_xasprintf("debian/patches/%s", name);

		npatches++;
		if (!strstr(name, "..") &&
		    prov_repo_read_blob(&patch, pr, commit, path, PROV_SRCIMPORT_MAX_PATCH) == 0)
			fn(path, strip, &patch, arg);
		prov_error_clear();
		prov_buf_release(&patch);
		free(name);
		free(path);
	}
	error = 0;
cleanup:
	prov_buf_release(&series);
	return error;
}

static void add_debian_patch(const char *path, int strip, const struct prov_buf *patch, void *arg)
{
	struct prov_dist_patches *out = arg;
	size_t before = out->n;

	prov_dist_patches_add(out, path, patch->buf ? patch->buf : "", patch->len, NULL);
	if (strip != 1 && out->n > before) {
		/* the hunks again with the series' -p level */
		prov_hunks_release(&out->v[before].hunks);
		prov_hunks_parse(&out->v[before].hunks, patch->buf ? patch->buf : "", patch->len, strip);
	}
}

int prov_dist_patches_debian(struct prov_dist_patches *out, struct prov_repo *pr, const char *commit)
{
	memset(out, 0, sizeof(*out));
	out->applied = 1;
	return prov_debian_patches_each(pr, commit, add_debian_patch, out);
}

void prov_effect_release(struct prov_effect *e)
{
	prov_fix_evidence_release(e->ev, e->n);
	free(e->named_by);
	memset(e, 0, sizeof(*e));
}

/* The function's identifier in a hunk header's function text: the word before the first '('. */
static char *function_word(const char *fn)
{
	const char *paren = fn ? strchr(fn, '(') : NULL, *s;

	if (!paren)
		return NULL;
	while (paren > fn && paren[-1] == ' ')
		paren--;
	for (s = paren; s > fn && (isalnum((unsigned char)s[-1]) || s[-1] == '_'); s--)
		;
	return paren - s >= 3 ? prov_xstrndup(s, (size_t)(paren - s)) : NULL;
}

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

/* The fix's own version of h's file at `commit` (before: the old path) into *f; 1 when read. */
static int fix_side(struct prov_hunk_file *f, const struct prov_effect_tree *t, const char *commit,
		    const char *path)
{
	struct prov_buf b = PROV_BUF_INIT;
	int ok = commit && path && prov_repo_read_blob(&b, t->r, commit, path, PROV_SOURCES_MAX_BLOB) == 0;

	prov_error_clear();
	if (ok)
		prov_hunk_file_init(f, b.buf ? b.buf : "", b.len);
	prov_buf_release(&b);
	return ok;
}

/* 1 when the function named in the hunk's header is in the located file. */
static int function_in(const struct prov_hunk *h, const struct located *loc)
{
	char *word = function_word(h->function);
	int in = word && loc->text && memmem(loc->text, loc->len, word, strlen(word)) != NULL;

	free(word);
	return in;
}

static int read_tree_file(struct prov_buf *b, const struct prov_effect_tree *t, const char *path)
{
	prov_buf_reset(b);
	return prov_repo_read_blob(b, t->tree_repo ? t->tree_repo : t->r,
				   t->tree_commit ? t->tree_commit : t->deployed_hex, path, PROV_SOURCES_MAX_BLOB);
}

/*
 * The one file of the deployed tree that defines function `word` (NULL when
 * none or several do): the tree's definitions indexed once in the cache.
 */
static char *defining_file(const struct prov_effect_tree *t, const char *word)
{
	struct prov_repo *r = t->tree_repo ? t->tree_repo : t->r;
	const char *commit = t->tree_commit ? t->tree_commit : t->deployed_hex;
	struct prov_defs all = { 0 };
	char *path = NULL;
	size_t i;
	int indexed = t->cache ? prov_cache_defs_indexed(t->cache, commit, "") : 0, many = 0;

	if (indexed > 0) {
		if (prov_cache_defs_find(&all, t->cache, commit, "", word) < 0)
			goto cleanup;
	} else {
		if (prov_repo_scan_defs(&all, r, commit, "") < 0)
			goto cleanup;
		if (t->cache && prov_cache_defs_put(t->cache, commit, "", &all) < 0)
			prov_warn("%s", prov_error_last());
	}
	for (i = 0; i < all.n && !many; i++) {
		if (strcmp(all.items[i].name, word))
			continue;
		if (path && strcmp(path, all.items[i].path))
			many = 1;
		else if (!path)
			path = prov_xstrdup(all.items[i].path);
	}
	if (many) {
		free(path);
		path = NULL;
	}
cleanup:
	prov_error_clear();
	for (i = 0; i < all.n; i++) {
		free(all.items[i].qname);
		free(all.items[i].name);
		free(all.items[i].path);
	}
	free(all.items);
	return path;
}

/* s[0..n) with every blank removed equals z (blanks removed already). */
static int same_unblanked(const char *s, size_t n, const char *z)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (isspace((unsigned char)s[i]))
			continue;
		if (*z != s[i])
			return 0;
		z++;
	}
	return *z == '\0';
}

/* 1 when text has a line that, blanks removed, is z. */
static int has_line(const char *text, size_t len, const char *z)
{
	const char *p = text, *end = text + len;

	while (p && p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));

		if (same_unblanked(p, e ? (size_t)(e - p) : (size_t)(end - p), z))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/* The hunk header's function line with its blanks removed; NULL when none or too short to say (under 8 letters and digits). */
static char *unblanked_function(const struct prov_hunk *h)
{
	const char *q;
	char *z;
	size_t k = 0, alnum = 0;

	if (!h->function)
		return NULL;
	z = prov_xmalloc(strlen(h->function) + 1);
	for (q = h->function; *q; q++)
		if (!isspace((unsigned char)*q)) {
			z[k++] = *q;
			alnum += isalnum((unsigned char)*q) != 0;
		}
	z[k] = '\0';
	if (alnum < 8) {
		free(z);
		return NULL;
	}
	return z;
}

/*
 * The lines of the function whose line (blanks removed) is z, once in text:
 * from that line to the next line git's default function-line rule would
 * take (one that starts with a letter, '_' or '$'), or the end. 1 and
 * [*off, *off + *n) when z is there exactly once.
 */
static int function_slice(const char *text, size_t len, const char *z, size_t *off, size_t *n)
{
	const char *p = text, *end = text + len, *at = NULL, *stop = end;

	while (p && p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));

		if (same_unblanked(p, e ? (size_t)(e - p) : (size_t)(end - p), z)) {
			if (at)
				return 0;	/* twice: which one? */
			at = p;
			stop = end;
		} else if (at && stop == end && (isalpha((unsigned char)*p) || *p == '_' || *p == '$')) {
			stop = p;
		}
		p = e ? e + 1 : NULL;
	}
	if (!at)
		return 0;
	*off = (size_t)(at - text);
	*n = (size_t)(stop - at);
	return 1;
}

/*
 * A hunk neither present nor absent in its whole file, judged again in the
 * function its header names alone: that function of the deployed file, of
 * the fix's file before and after it (a line found elsewhere in the file,
 * in another function, is no evidence either way). UNKNOWN when a file
 * does not have that function line exactly once.
 */
static enum prov_hunk_state in_function_only(const struct prov_hunk *h, const struct located *loc,
					     const char *parent, const char *fix_hex,
					     const struct prov_effect_tree *t, unsigned *how)
{
	struct prov_buf pre = PROV_BUF_INIT, post = PROV_BUF_INIT;
	struct prov_hunk_file fd, fpre, fpost;
	enum prov_hunk_state st = PROV_HUNK_UNKNOWN;
	size_t o[3], n[3];
	char *z = unblanked_function(h);

	*how = 0;
	if (!z || !loc->found || !loc->text || h->new_file || h->deleted_file || !parent ||
	    prov_repo_read_blob(&pre, t->r, parent, h->old_path ? h->old_path : h->path, PROV_SOURCES_MAX_BLOB) < 0 ||
	    prov_repo_read_blob(&post, t->r, fix_hex, h->path, PROV_SOURCES_MAX_BLOB) < 0 || !pre.buf || !post.buf ||
	    !function_slice(loc->text, loc->len, z, &o[0], &n[0]) || !function_slice(pre.buf, pre.len, z, &o[1], &n[1]) ||
	    !function_slice(post.buf, post.len, z, &o[2], &n[2]))
		goto cleanup;
	prov_hunk_file_init(&fd, loc->text + o[0], n[0]);
	prov_hunk_file_init(&fpre, pre.buf + o[1], n[1]);
	prov_hunk_file_init(&fpost, post.buf + o[2], n[2]);
	st = prov_hunk_match_fix_ex(h, &fd, &fpre, &fpost, how);
	prov_hunk_file_release(&fd);
	prov_hunk_file_release(&fpre);
	prov_hunk_file_release(&fpost);
cleanup:
	prov_error_clear();
	prov_buf_release(&pre);
	prov_buf_release(&post);
	free(z);
	return st;
}

/* h with every identifier r renames written the deployed file's way (lines and function; release with renamed_release). */
static void renamed_hunk(struct prov_hunk *out, const struct prov_hunk *h, const struct prov_renames *r)
{
	size_t i;

	*out = *h;
	out->lines = prov_xcalloc(h->n + 1, sizeof(*out->lines));
	for (i = 0; i < h->n; i++)
		out->lines[i] = prov_renames_apply(r, h->lines[i], strlen(h->lines[i]), NULL);
	out->function = h->function ? prov_renames_apply(r, h->function, strlen(h->function), NULL) : NULL;
}

static void renamed_release(struct prov_hunk *x)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		free(x->lines[i]);
	free(x->lines);
	free(x->function);
}

static int hunk_touched(const struct prov_hunk *h, const struct prov_renames *r)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (prov_renames_touch(r, h->lines[i]))
			return 1;
	return 0;
}

/*
 * Addition h (its file's texts: the deployed one, the fix's before and
 * after it) not made in the function its header names, by the code around
 * it there (prov_hunk_addition_absent_in): that function of the deployed
 * file and of the fix's file before it, each having its line once.
 */
static int addition_absent_in_function(const struct prov_hunk *h, const char *dt, size_t dlen, const char *pt,
				       size_t plen, const char *qt, size_t qlen)
{
	char *z = unblanked_function(h);
	size_t o[2], n[2];
	struct prov_hunk_file fd, fp, pre, post;
	int ok = 0;

	if (!z || !function_slice(dt, dlen, z, &o[0], &n[0]) || !function_slice(pt, plen, z, &o[1], &n[1])) {
		free(z);
		return 0;
	}
	prov_hunk_file_init(&fd, dt + o[0], n[0]);
	prov_hunk_file_init(&fp, pt + o[1], n[1]);
	prov_hunk_file_init(&pre, pt, plen);
	prov_hunk_file_init(&post, qt, qlen);
	ok = prov_hunk_addition_absent_in(h, &fd, &fp, &pre, &post);
	prov_hunk_file_release(&fd);
	prov_hunk_file_release(&fp);
	prov_hunk_file_release(&pre);
	prov_hunk_file_release(&post);
	free(z);
	return ok;
}

/*
 * A hunk neither present nor absent in its file, judged again with the
 * identifiers the release spells another way (an API renamed since:
 * prov_renames_learn between the fix's file before it and the deployed
 * file) written its way in the hunk and in the fix's own file; then, as an
 * addition, in the function its header names (addition_absent_in_function).
 * *renamed 1 when the verdict rests on renamed identifiers. A presence by
 * token changes alone is not taken here (no function check on renamed
 * lines).
 */
static enum prov_hunk_state renamed_or_in_function(const struct prov_hunk *h, const struct located *loc,
						   const char *parent, const char *fix_hex,
						   const struct prov_effect_tree *t, unsigned *how, int *renamed)
{
	struct prov_buf pre = PROV_BUF_INIT, post = PROV_BUF_INIT;
	struct prov_renames r = { 0 };
	struct prov_hunk hr;
	enum prov_hunk_state st = PROV_HUNK_UNKNOWN;
	char *rpre = NULL, *rpost = NULL;
	size_t lpre = 0, lpost = 0;
	int use = 0;

	*how = 0;
	*renamed = 0;
	if (!loc->found || !loc->text || h->new_file || h->deleted_file || !parent || h->n > PROV_HUNK_FUZZY_MAX ||
	    prov_repo_read_blob(&pre, t->r, parent, h->old_path ? h->old_path : h->path, PROV_SOURCES_MAX_BLOB) < 0 ||
	    prov_repo_read_blob(&post, t->r, fix_hex, h->path, PROV_SOURCES_MAX_BLOB) < 0)
		goto cleanup;
	prov_renames_learn(&r, pre.buf, pre.len, loc->text, loc->len);
	if (r.n && hunk_touched(h, &r)) {
		struct prov_hunk_file fpre, fpost;

		use = 1;
		renamed_hunk(&hr, h, &r);
		rpre = prov_renames_apply(&r, pre.buf, pre.len, &lpre);
		rpost = prov_renames_apply(&r, post.buf, post.len, &lpost);
		prov_hunk_file_init(&fpre, rpre, lpre);
		prov_hunk_file_init(&fpost, rpost, lpost);
		st = prov_hunk_match_fix_ex(&hr, &loc->f, &fpre, &fpost, how);
		prov_hunk_file_release(&fpre);
		prov_hunk_file_release(&fpost);
		if (st == PROV_HUNK_PRESENT_CHANGED && *how == PROV_HUNK_BY_TOKENS)
			st = PROV_HUNK_UNKNOWN;
		else if (st == PROV_HUNK_PRESENT_EXACT)
			st = PROV_HUNK_PRESENT_CHANGED;	/* not byte-identical: other names */
		*renamed = st != PROV_HUNK_UNKNOWN;
	}
	if (st == PROV_HUNK_UNKNOWN &&
	    addition_absent_in_function(use ? &hr : h, loc->text, loc->len, use ? rpre : pre.buf, use ? lpre : pre.len,
					use ? rpost : post.buf, use ? lpost : post.len)) {
		st = PROV_HUNK_ABSENT;
		*how = PROV_HUNK_BY_CODE_AROUND;
		*renamed = use;
	}
	if (st == PROV_HUNK_UNKNOWN)
		*how = 0;
	if (use)
		renamed_release(&hr);
cleanup:
	prov_error_clear();
	free(rpre);
	free(rpost);
	prov_renames_release(&r);
	prov_buf_release(&pre);
	prov_buf_release(&post);
	return st;
}

/*
 * The one file in the directory of the hunk's (gone) file that has the line
 * the hunk's header names (git's function line: "sub name {", "def name(",
 * any language the C definition scanner does not read), blanks ignored;
 * NULL when none or several have it, or the line is too short to say.
 */
static char *file_with_function_line(const struct prov_effect_tree *t, const struct prov_hunk *h)
{
	const char *path = h->old_path ? h->old_path : h->path, *base = prov_basename(path);
	char *dir = prov_xstrndup(path, (size_t)(base - path) ? (size_t)(base - path) - 1 : 0), *z, *found = NULL;
	char **files = NULL;
	size_t nfiles = 0, i;
	struct prov_buf b = PROV_BUF_INIT;

	if (!(z = unblanked_function(h)))
		goto cleanup;
	if (prov_repo_list_dir(&files, &nfiles, t->tree_repo ? t->tree_repo : t->r,
					     t->tree_commit ? t->tree_commit : t->deployed_hex, dir,
					     MAX_DIR_CANDIDATES) == 0) {
		for (i = 0; i < nfiles; i++) {
			if (read_tree_file(&b, t, files[i]) < 0 || !b.buf || !has_line(b.buf, b.len, z))
				continue;
			if (found) {	/* two have it: no guess */
				free(found);
				found = NULL;
				break;
			}
			found = prov_xstrdup(files[i]);
		}
	}
	prov_error_clear();
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	free(z);
cleanup:
	prov_buf_release(&b);
	free(dir);
	return found;
}

/* Where the hunk's file is in the deployed tree; loc->found 0 when nowhere (or too large). */
static int locate(struct located *loc, const struct prov_hunk *h, const char *fix_parent,
		  const struct prov_effect_tree *t)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *other = NULL, *word = NULL;
	char **cand = NULL;
	size_t ncand = 0, i;
	int error;

	loc->path = prov_xstrdup(h->path);
	error = read_tree_file(&b, t, h->path);
	if (error == 0) {
		loc->deployed = prov_xstrdup(h->path);
		goto found;
	}
	if (error != PROV_ENOTFOUND || h->new_file)
		goto none;
	prov_error_clear();
	/* renamed between the fix's parent and the deployed upstream commit */
	if (fix_parent && prov_repo_renamed_path(&other, t->r, fix_parent, t->deployed_hex,
						 h->old_path ? h->old_path : h->path) == 0 && other &&
	    strcmp(other, h->path) && read_tree_file(&b, t, other) == 0) {
		loc->deployed = other;
		other = NULL;
		goto found;
	}
	prov_error_clear();
	/* gone: a file of the same name, the one holding the hunk's function when several */
	if (prov_repo_find_basename(&cand, &ncand, t->tree_repo ? t->tree_repo : t->r,
				    t->tree_commit ? t->tree_commit : t->deployed_hex, prov_basename(h->path),
				    MAX_BASENAME_CANDIDATES) < 0)
		goto none;
	word = function_word(h->function);
	for (i = 0; i < ncand; i++) {
		if (read_tree_file(&b, t, cand[i]) < 0)
			continue;
		if (ncand > 1 && (!word || !b.buf || !memmem(b.buf, b.len, word, strlen(word))))
			continue;
		if (loc->deployed) {	/* two hold it: no guess */
			free(loc->deployed);
			loc->deployed = NULL;
			break;
		}
		loc->deployed = prov_xstrdup(cand[i]);
	}
	if (loc->deployed && read_tree_file(&b, t, loc->deployed) == 0)
		goto found;
	free(loc->deployed);
	loc->deployed = NULL;
	/* no such file: the one file that defines the hunk's function */
	if (!ncand && word && (loc->deployed = defining_file(t, word)) && read_tree_file(&b, t, loc->deployed) == 0)
		goto found;
	free(loc->deployed);
	loc->deployed = NULL;
	/* nor that: the one file of its directory with the line the header names */
	if (!ncand && (loc->deployed = file_with_function_line(t, h)) && read_tree_file(&b, t, loc->deployed) == 0)
		goto found;
	free(loc->deployed);
	loc->deployed = NULL;
none:
	prov_error_clear();
	if (error < 0 && error != PROV_ENOTFOUND && error != PROV_ELIMIT) {
		prov_buf_release(&b);
		return error;
	}
	error = 0;
	goto cleanup;
found:
	prov_hunk_file_init(&loc->f, b.buf ? b.buf : "", b.len);
	loc->len = b.len;
	loc->text = b.len ? prov_buf_detach(&b) : NULL;
	loc->found = 1;
	error = 0;
cleanup:
	for (i = 0; i < ncand; i++)
		free(cand[i]);
	free(cand);
	free(other);
	free(word);
	prov_buf_release(&b);
	return error;
}

/*
 * Hunk h (present by token changes somewhere in the located file) is present
 * by them in the lines of the function its header names, from the line
 * before its definition to the next definition (srcdefs), when the file
 * defines that function once; 1 too when it does not (renamed: no check).
 */
static int in_own_function(const struct prov_hunk *h, const struct located *loc)
{
	struct prov_defs d = { 0 };
	struct prov_hunk_file rf;
	char *word = function_word(h->function);
	int start = 0, end = 0, line = 1, ok = 1, n = 0;
	const char *p, *from = NULL, *to = NULL;
	size_t i;

	if (!word || !loc->text || !prov_defs_wants_path(loc->deployed ? loc->deployed : loc->path))
		goto cleanup;
	prov_defs_scan_text(&d, loc->deployed ? loc->deployed : loc->path, loc->text, loc->len);
	for (i = 0; i < d.n; i++)
		if (!strcmp(d.items[i].name, word)) {
			start = d.items[i].line;
			n++;
		}
	if (n != 1)
		goto cleanup;
	for (i = 0; i < d.n; i++)
		if (d.items[i].line > start && (!end || d.items[i].line < end))
			end = d.items[i].line;
	start = start > 3 ? start - 3 : 1;	/* a return type on the lines before the name */
	for (p = loc->text; p < loc->text + loc->len; line++) {
		const char *nl = memchr(p, '\n', (size_t)(loc->text + loc->len - p));

		if (line == start)
			from = p;
		if (end && line == end - 1) {
			to = p;	/* up to the line before the next definition's name */
			break;
		}
		p = nl ? nl + 1 : loc->text + loc->len;
	}
	if (!from)
		goto cleanup;
	if (!to || to < from)
		to = loc->text + loc->len;
	prov_hunk_file_init(&rf, from, (size_t)(to - from));
	{
		enum prov_hunk_state st = prov_hunk_match_fix(h, &rf, loc->have_pre ? &loc->pre : NULL,
							      loc->have_post ? &loc->post : NULL);

		ok = st == PROV_HUNK_PRESENT_EXACT || st == PROV_HUNK_PRESENT_CHANGED;
	}
	prov_hunk_file_release(&rf);
cleanup:
	prov_defs_release(&d);
	free(word);
	return ok;
}

/* 1 when patch path a is, by base name, the fix's file b or the deployed one (may be NULL). */
static int same_base(const char *a, const char *b, const char *deployed_path)
{
	return !strcmp(prov_basename(a), prov_basename(b)) ||
	       (deployed_path && !strcmp(prov_basename(a), prov_basename(deployed_path)));
}

/* The patch carrying hunk h (named ones first), or NULL. */
static const char *carried_by(const struct prov_dist_patches *dp, const struct prov_hunk *h,
			      const char *fix_hex, const char *deployed_path)
{
	int pass;
	size_t i, k;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < dp->n; i++) {
			const struct prov_dist_patch *p = &dp->v[i];

			if (prov_dep3_names(&p->dep3, fix_hex) != (pass == 0))
				continue;
			for (k = 0; k < p->hunks.n; k++)
				if ((!strcmp(prov_basename(p->hunks.v[k].path), prov_basename(h->path)) ||
				     (deployed_path &&
				      !strcmp(prov_basename(p->hunks.v[k].path), prov_basename(deployed_path)))) &&
				    prov_hunk_carries(&p->hunks.v[k], h))
					return p->name;
		}
	return NULL;
}

/*
 * A patch that names the fix (DEP-3, trailers) and carries hunk h's changed
 * lines in any of its hunks, whatever the file (the code lived elsewhere in
 * the release, a test file under another name), or NULL.
 */
static const char *carried_by_naming(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				     const char *fix_hex)
{
	size_t i, k;

	for (i = 0; i < dp->n; i++) {
		const struct prov_dist_patch *p = &dp->v[i];

		if (!prov_dep3_names(&p->dep3, fix_hex))
			continue;
		for (k = 0; k < p->hunks.n; k++)
			if (prov_hunk_carries(&p->hunks.v[k], h))
				return p->name;
	}
	return NULL;
}

/*
 * A patch naming the fix whose hunks in h's file (by base name) add every
 * name h brings into the file (prov_hunk_names_added_by), or NULL.
 */
static const char *names_by_naming(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				   const char *fix_hex, const struct prov_hunk_file *pre, const char *deployed_path)
{
	const struct prov_hunk **v = NULL;
	const char *found = NULL;
	size_t i, k, n;

	for (i = 0; i < dp->n && !found; i++) {
		const struct prov_hunks *hs = &dp->v[i].hunks;

		if (!prov_dep3_names(&dp->v[i].dep3, fix_hex))
			continue;
		v = prov_xrealloc(v, (hs->n + 1) * sizeof(*v));
		for (k = 0, n = 0; k < hs->n; k++)
			if (same_base(hs->v[k].path, h->path, deployed_path))
				v[n++] = &hs->v[k];
		if (n && prov_hunk_names_added_by(h, pre, v, n))
			found = dp->v[i].name;
	}
	free(v);
	return found;
}

/* 1 when a patch naming the fix changes the hunk's file (by base name, the fix's or the deployed one). */
static int naming_patch_changes(const struct prov_dist_patches *dp, const char *fix_hex, const struct prov_hunk *h,
				const char *deployed_path)
{
	size_t i, k;

	for (i = 0; dp && i < dp->n; i++) {
		const struct prov_dist_patch *p = &dp->v[i];

		if (!prov_dep3_names(&p->dep3, fix_hex))
			continue;
		for (k = 0; k < p->hunks.n; k++)
			if (!strcmp(prov_basename(p->hunks.v[k].path), prov_basename(h->path)) ||
			    (deployed_path && !strcmp(prov_basename(p->hunks.v[k].path), prov_basename(deployed_path))))
				return 1;
	}
	return 0;
}

/*
 * Absent hunk h in a file a patch naming the fix changes: none of the names
 * h brings is in the deployed file or in a line such a patch adds
 * (prov_hunk_names_nowhere): the backport did that part its own way.
 */
static int own_mechanism_left_out(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				  const char *fix_hex, const struct located *loc)
{
	const struct prov_hunk **v = NULL;
	size_t i, k, n = 0;
	int r;

	if (!loc->have_pre || !naming_patch_changes(dp, fix_hex, h, loc->deployed))
		return 0;
	for (i = 0; i < dp->n; i++) {
		if (!prov_dep3_names(&dp->v[i].dep3, fix_hex))
			continue;
		v = prov_xrealloc(v, (n + dp->v[i].hunks.n + 1) * sizeof(*v));
		for (k = 0; k < dp->v[i].hunks.n; k++)
			v[n++] = &dp->v[i].hunks.v[k];
	}
	r = prov_hunk_names_nowhere(h, &loc->pre, &loc->f, v, n);
	free(v);
	return r;
}

/*
 * Patches not applied to the tree (RPM): does one change the lines this hunk
 * changes (one of its - lines is a - line of the hunk), differently? Then
 * "absent" in the upstream tree proves nothing.
 */
static int touched_by(const struct prov_dist_patches *dp, const struct prov_hunk *h)
{
	size_t i, k, a, b;

	for (i = 0; i < dp->n; i++)
		for (k = 0; k < dp->v[i].hunks.n; k++) {
			const struct prov_hunk *ph = &dp->v[i].hunks.v[k];

			if (strcmp(prov_basename(ph->path), prov_basename(h->path)))
				continue;
			for (a = 0; a < ph->n; a++)
				for (b = 0; ph->origin[a] == '-' && b < h->n; b++)
					if (h->origin[b] == '-' && ph->lines[a][0] && !strcmp(ph->lines[a], h->lines[b]))
						return 1;
		}
	return 0;
}

/*
 * A patch of the series carries hunk h and a later patch removes its +
 * lines again (its code moved or reworded by a later fix, or the fix
 * reverted in part by a regression fix): that later patch (name), or NULL;
 * *carrier: the patch carrying h; *revert: 1 when the later patch puts
 * back what h removed (prov_hunk_restores_removed). Only the first patch
 * carrying h (one naming the fix first) is followed.
 */
static const char *undone_by_later(const struct prov_dist_patches *dp, const struct prov_hunk *h,
				   const char *fix_hex, const char *deployed_path, const char **carrier, int *revert)
{
	const struct prov_hunk **v = NULL;
	const char *found = NULL;
	size_t i = dp->n, j, k, n;
	int pass;

	for (pass = 0; pass < 2 && i == dp->n; pass++)	/* patches naming the fix first */
		for (i = 0; i < dp->n; i++) {
			const struct prov_dist_patch *p = &dp->v[i];

			if (prov_dep3_names(&p->dep3, fix_hex) != (pass == 0))
				continue;
			for (k = 0; k < p->hunks.n; k++)
				if (same_base(p->hunks.v[k].path, h->path, deployed_path) &&
				    prov_hunk_carries(&p->hunks.v[k], h))
					break;
			if (k < p->hunks.n)
				break;
		}
	for (j = i + 1; j < dp->n && !found; j++) {
		const struct prov_hunks *hs = &dp->v[j].hunks;

		v = prov_xrealloc(v, (hs->n + 1) * sizeof(*v));
		for (k = 0, n = 0; k < hs->n; k++)
			if (same_base(hs->v[k].path, h->path, deployed_path))
				v[n++] = &hs->v[k];
		if (n && prov_hunk_removes_added(v, n, h)) {
			found = dp->v[j].name;
			*carrier = dp->v[i].name;
			*revert = prov_hunk_restores_removed(hs->v, hs->n, h);
		}
	}
	free(v);
	return found;
}

#define MAX_REMOVED_NAMES 8

/* The function a line at the margin defines or declares ("int f(void);", "f(int a)"): its name, or NULL. */
static char *margin_function(const char *l)
{
	const char *p = l, *start = NULL;

	if (!*l || isspace((unsigned char)*l) || !(isalpha((unsigned char)*l) || *l == '_'))
		return NULL;
	while (*p) {
		if (isalnum((unsigned char)*p) || *p == '_') {
			if (!start)
				start = p;
			p++;
			continue;
		}
		if (start) {
			const char *q = p;

			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '(')
				return prov_xstrndup(start, (size_t)(p - start));
			start = NULL;
		}
		if (*p == '=' || *p == ';' || *p == '(')
			return NULL;	/* a variable, a statement, a cast */
		p++;
	}
	return NULL;
}

/* 1 when line l is indented and calls `name` (the name, blanks, "("). */
static int calls(const char *l, size_t n, const char *name)
{
	size_t k = strlen(name);
	const char *p = l, *end = l + n;

	if (!n || !isspace((unsigned char)*l))
		return 0;
	while ((p = memmem(p, (size_t)(end - p), name, k))) {
		const char *q = p + k;

		if ((p == l || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
			while (q < end && (*q == ' ' || *q == '\t'))
				q++;
			if (q < end && *q == '(')
				return 1;
		}
		p++;
	}
	return 0;
}

/*
 * Hunk h only removes lines, among them a function's definition or
 * declaration, and the deployed tree still calls that function: in the
 * deployed file (a line that is not one of h's), or in a line a
 * distribution patch adds (its own code using it). A backport keeps code
 * the release still uses: that hunk is not the fix's effect there.
 */
static int removes_used_function(const struct prov_hunk *h, const struct located *loc,
				 const struct prov_dist_patches *dp)
{
	char *names[MAX_REMOVED_NAMES];
	size_t nn = 0, i, k, j;
	int used = 0;

	for (i = 0; i < h->n; i++)
		if (h->origin[i] == '+' && h->lines[i][strspn(h->lines[i], " \t")])
			return 0;
	for (i = 0; i < h->n && nn < MAX_REMOVED_NAMES; i++)
		if (h->origin[i] == '-' && (names[nn] = margin_function(h->lines[i])))
			nn++;
	for (k = 0; k < nn && !used; k++) {
		const char *p = loc->text, *end = loc->text ? loc->text + loc->len : NULL;

		while (p && p < end && !used) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);

			if (calls(p, ll, names[k])) {
				used = 1;
				for (i = 0; i < h->n && used; i++)
					if (h->origin[i] == '-' && strlen(h->lines[i]) == ll && !memcmp(h->lines[i], p, ll))
						used = 0;	/* the hunk's own line */
			}
			p = nl ? nl + 1 : end;
		}
		for (i = 0; dp && i < dp->n && !used; i++)
			for (j = 0; j < dp->v[i].hunks.n && !used; j++) {
				const struct prov_hunk *ph = &dp->v[i].hunks.v[j];
				size_t q;

				for (q = 0; q < ph->n && !used; q++)
					used = ph->origin[q] == '+' && calls(ph->lines[q], strlen(ph->lines[q]), names[k]);
			}
	}
	for (k = 0; k < nn; k++)
		free(names[k]);
	return used;
}

/*
 * 1 when hunk h removes no line (blank ones aside) and adds one with four
 * letters or digits: an addition that says something (not a lone "}").
 */
static int adds_only(const struct prov_hunk *h)
{
	size_t i, k, said = 0;

	for (i = 0; i < h->n; i++) {
		const char *l = h->lines[i];

		if (h->origin[i] == '-' && l[strspn(l, " \t\r")])
			return 0;
		if (h->origin[i] == '+' && !said) {
			for (k = 0; *l && k < 4; l++)
				k += isalnum((unsigned char)*l) != 0;
			said = k >= 4;
		}
	}
	return (int)said;
}

/*
 * 1 when hunk h only adds #include lines of headers the deployed tree has
 * under no name (a helper the release does not have: a backport does the
 * work inline and cannot include it).
 */
static int adds_absent_headers_only(const struct prov_hunk *h, const struct prov_effect_tree *t)
{
	size_t i, k, nadd = 0;

	for (i = 0; i < h->n; i++) {
		const char *l = h->lines[i], *q, *e;
		char *name, **cand = NULL;
		size_t ncand = 0;
		int error;

		if (h->origin[i] == '-')
			return 0;
		if (h->origin[i] != '+')
			continue;
		l += strspn(l, " \t");
		if (!*l)
			continue;
		if (strncmp(l, "#include", 8) || !(q = strpbrk(l + 8, "\"<")) ||
		    !(e = strchr(q + 1, *q == '<' ? '>' : '"')) || e == q + 1)
			return 0;
		name = prov_xstrndup(q + 1, (size_t)(e - q - 1));
		error = prov_repo_find_basename(&cand, &ncand, t->tree_repo ? t->tree_repo : t->r,
						t->tree_commit ? t->tree_commit : t->deployed_hex,
						prov_basename(name), 1);
		prov_error_clear();
		for (k = 0; k < ncand; k++)
			free(cand[k]);
		free(cand);
		free(name);
		if (error < 0 || ncand)
			return 0;
		nadd++;
	}
	return nadd > 0;
}

static int add_evidence(struct prov_effect *out, const char *fix_hex, const struct prov_hunk *h,
			const struct located *loc, enum prov_hunk_state st, const char *via)
{
	struct prov_fix_evidence *e;

	out->ev = prov_xrealloc(out->ev, (out->n + 1) * sizeof(*out->ev));
	e = &out->ev[out->n++];
	memset(e, 0, sizeof(*e));
	e->commit = prov_xstrdup(fix_hex);
	e->file = prov_xstrdup(h->path);
	if (loc && loc->deployed && strcmp(loc->deployed, h->path))
		e->deployed_file = prov_xstrdup(loc->deployed);
	e->hunk = prov_xstrdup(h->header);
	e->function = prov_xstrdup_or_null(h->function);
	e->state = prov_hunk_state_name(st);
	e->via = prov_xstrdup_or_null(via);
	switch (st) {
	case PROV_HUNK_PRESENT_EXACT:
		out->nexact++;
		break;
	case PROV_HUNK_PRESENT_CHANGED:
		out->nchanged++;
		break;
	case PROV_HUNK_ABSENT:
		out->nabsent++;
		break;
	case PROV_HUNK_TEST_ONLY:
		out->ntest++;
		break;
	default:
		out->nunknown++;
	}
	return 0;
}

static int same_dir(const char *a, const char *b)
{
	size_t la = (size_t)(prov_basename(a) - a), lb = (size_t)(prov_basename(b) - b);

	return la == lb && !strncmp(a, b, la);
}

/*
 * A new test file the deployed tree lacks is not "not shipped" when the
 * tree has another file of the fix in that same directory (the tests there
 * are shipped): it is absent, like `patch --dry-run` says. Not when a
 * patch names the fix (a backport may leave a test out, or rename it).
 */
static void shipped_new_tests(struct prov_effect *out, const struct prov_hunks *hs, const struct located *locs,
			      size_t nlocs)
{
	size_t i, k;

	if (out->named_by)
		return;	/* a patch naming the fix may leave a test out: not proof */
	for (i = 0; i < hs->n && i < out->n; i++) {
		struct prov_fix_evidence *e = &out->ev[i];

		if (!hs->v[i].new_file || strcmp(e->state, prov_hunk_state_name(PROV_HUNK_TEST_ONLY)))
			continue;
		for (k = 0; k < nlocs; k++)
			if (locs[k].found && locs[k].deployed && !strcmp(locs[k].deployed, locs[k].path) &&
			    same_dir(locs[k].path, hs->v[i].path)) {
				e->state = prov_hunk_state_name(PROV_HUNK_ABSENT);
				out->ntest--;
				out->nabsent++;
				break;
			}
	}
}

/*
 * A new file of the fix that the deployed tree lacks is evidence of absence
 * only when none of the fix's other hunks is present: with them present, the
 * backport did the work elsewhere (a helper inlined), not applicable.
 */
static void new_files_apart(struct prov_effect *out, const struct prov_hunks *hs)
{
	size_t i, present = 0;

	for (i = 0; i < hs->n && i < out->n; i++)
		if (!hs->v[i].new_file && (!strcmp(out->ev[i].state, prov_hunk_state_name(PROV_HUNK_PRESENT_EXACT)) ||
					   !strcmp(out->ev[i].state, prov_hunk_state_name(PROV_HUNK_PRESENT_CHANGED))))
			present++;
	for (i = 0; present && i < hs->n && i < out->n; i++) {
		struct prov_fix_evidence *e = &out->ev[i];

		if (!hs->v[i].new_file || strcmp(e->state, prov_hunk_state_name(PROV_HUNK_ABSENT)) ||
		    prov_hunk_is_test_path(e->file))
			continue;
		e->state = prov_hunk_state_name(PROV_HUNK_UNKNOWN);
		e->note = "a new file of the fix; the deployed tree has the fix's other changes without it";
		out->nabsent--;
		out->nunknown++;
		out->nna++;
	}
}

static int effect_check(struct prov_effect *out, const char *fix_hex, const struct prov_dist_patches *dp,
			const struct prov_effect_tree *t, int depth, const char *only_path);

#define MAX_BLAME_LINES 200
#define MAX_HISTORY_DEPTH 3	/* commits followed back from the fix, hunk by hunk */

static char *lines_from_absent_commit(const struct prov_hunk *h, const char *parent, const char *fix_hex,
				      const struct prov_dist_patches *dp, const struct prov_effect_tree *t,
				      int depth);

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
			if ((y = lines_from_absent_commit(&xs->v[i], xparent, x, dp, t, depth + 1))) {
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
 * NULL.
 */
static char *lines_from_absent_commit(const struct prov_hunk *h, const char *parent, const char *fix_hex,
				      const struct prov_dist_patches *dp, const struct prov_effect_tree *t,
				      int depth)
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
	if (prov_repo_merge_base(&mb, t->r, parent, t->deployed_hex) < 0)
		goto cleanup;
	who = prov_xcalloc(nold, sizeof(*who));
	if (prov_repo_blame_lines(who, t->r, parent, h->old_path ? h->old_path : h->path, (size_t)h->old_start, nold,
				  mb) < 0)
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

/*
 * When no hunk is shown present or absent (the answer would be exit 3), the
 * unknown hunks (not test files, not "not applicable") whose - lines came
 * with commits demonstrably not in the deployed tree are absent, via the
 * first such commit. Not when a patch names the fix. Run only then: the
 * blame walks the history from the fix back to the deployed commit.
 */
static void absent_by_history(struct prov_effect *out, const struct prov_hunks *hs, const char *parent,
			      const char *fix_hex, const struct prov_dist_patches *dp,
			      const struct prov_effect_tree *t)
{
	size_t i;

	if (out->named_by || decided(out))
		return;
	for (i = 0; i < hs->n && i < out->n; i++) {
		struct prov_fix_evidence *e = &out->ev[i];
		char *x;

		if (strcmp(e->state, prov_hunk_state_name(PROV_HUNK_UNKNOWN)) ||
		    (e->note && strcmp(e->note, PROV_EFFECT_NOTE_NOT_HERE)) ||
		    prov_hunk_is_test_path(hs->v[i].path) || prov_hunk_is_doc_path(hs->v[i].path) ||
		    hs->v[i].new_file || !(x = lines_from_absent_commit(&hs->v[i], parent, fix_hex, dp, t, 0)))
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

		if (read_tree_file(&b, t, files[i]) < 0 || !b.buf)
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
		int renamed = 0, revert = 0, moved = 0;

		for (k = 0; k < nlocs && !loc; k++)
			if (!strcmp(locs[k].path, h->path))
				loc = &locs[k];
		if (!loc) {
			loc = &locs[nlocs++];
			if ((error = locate(loc, h, parent, t)) < 0)
				goto cleanup;
			loc->have_pre = !h->new_file &&
					fix_side(&loc->pre, t, parent, h->old_path ? h->old_path : h->path);
			loc->have_post = !h->deleted_file && fix_side(&loc->post, t, fix_hex, h->path);
		}
		st = prov_hunk_match_fix_ex(h, loc->found ? &loc->f : NULL, loc->have_pre ? &loc->pre : NULL,
					    loc->have_post ? &loc->post : NULL, &how);
		if (st == PROV_HUNK_UNKNOWN && loc->found)
			st = in_function_only(h, loc, parent, fix_hex, t, &how);
		if (st == PROV_HUNK_UNKNOWN && loc->found)
			st = renamed_or_in_function(h, loc, parent, fix_hex, t, &how, &renamed);
		/* absent only by the code around it, in a file a patch naming
		 * the fix changes: that patch's lines decide (below), not this */
		if (how == PROV_HUNK_BY_CODE_AROUND && st == PROV_HUNK_ABSENT &&
		    naming_patch_changes(dp, fix_hex, h, loc->deployed))
			st = PROV_HUNK_UNKNOWN;
		/* present by token changes: in the function the hunk's header
		 * names, when the deployed file defines it (not a look-alike
		 * line of another function) */
		if (how == PROV_HUNK_BY_TOKENS && st == PROV_HUNK_PRESENT_CHANGED && !in_own_function(h, loc))
			st = PROV_HUNK_UNKNOWN;
		if (dp && (st == PROV_HUNK_PRESENT_EXACT || st == PROV_HUNK_PRESENT_CHANGED || !dp->applied))
			via = carried_by(dp, h, fix_hex, loc->deployed);
		if (via && !dp->applied && st != PROV_HUNK_PRESENT_EXACT)
			st = PROV_HUNK_PRESENT_CHANGED;	/* a patch that rpmbuild applies */
		else if (!via && dp && !dp->applied && st == PROV_HUNK_ABSENT && touched_by(dp, h))
			st = PROV_HUNK_UNKNOWN;	/* a patch changes those lines some other way */
		if (dp && dp->applied && (st == PROV_HUNK_UNKNOWN || st == PROV_HUNK_ABSENT) &&
		    (undone = undone_by_later(dp, h, fix_hex, loc->deployed, &via, &revert))) {
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
		    (st == PROV_HUNK_UNKNOWN || (st == PROV_HUNK_ABSENT && (!loc->found || adds_only(h)))) &&
		    (via = carried_by_naming(dp, h, fix_hex))) {
			moved = st == PROV_HUNK_ABSENT && loc->found;
			st = PROV_HUNK_PRESENT_CHANGED;
		}
		if (dp && dp->applied && !via && !undone && st == PROV_HUNK_UNKNOWN && loc->have_pre &&
		    (via = names_by_naming(dp, h, fix_hex, &loc->pre, loc->deployed)))
			st = PROV_HUNK_PRESENT_CHANGED;	/* its new names added by the patch naming the fix */
		if ((st == PROV_HUNK_PRESENT_EXACT || st == PROV_HUNK_PRESENT_CHANGED) && !via)
			via = t->deployed_hex;	/* already in the upstream code deployed */
		/* test-only: a test file the deployed tree does not have (not
		 * shipped); one it has is judged like any other */
		if ((st == PROV_HUNK_ABSENT || st == PROV_HUNK_UNKNOWN) && !loc->found &&
		    prov_hunk_is_test_path(h->path))
			st = PROV_HUNK_TEST_ONLY;
		add_evidence(out, fix_hex, h, loc, st, st == PROV_HUNK_PRESENT_EXACT || st == PROV_HUNK_PRESENT_CHANGED ? via : NULL);
		if (renamed && (st == PROV_HUNK_PRESENT_EXACT || st == PROV_HUNK_PRESENT_CHANGED || st == PROV_HUNK_ABSENT))
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_RENAMED;
		if (moved)
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_MOVED;
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
		    !function_in(h, loc)) {
			/* the release does not have the code this hunk changes: a backport drops it */
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_NOT_HERE;
			out->nna++;
		} else if (st == PROV_HUNK_ABSENT && loc->found && dp && dp->applied &&
			   own_mechanism_left_out(dp, h, fix_hex, loc)) {
			/* its new names nowhere: the patch naming the fix did it another way */
			out->ev[out->n - 1].state = prov_hunk_state_name(PROV_HUNK_UNKNOWN);
			out->ev[out->n - 1].note = "a patch naming the fix changes this file another way";
			out->nabsent--;
			out->nunknown++;
			out->nna++;
		} else if (st == PROV_HUNK_ABSENT && loc->found && removes_used_function(h, loc, dp)) {
			/* the release (or a distribution patch) still calls what it removes */
			out->ev[out->n - 1].state = prov_hunk_state_name(PROV_HUNK_UNKNOWN);
			out->ev[out->n - 1].note = PROV_EFFECT_NOTE_STILL_USED;
			out->nabsent--;
			out->nunknown++;
			out->nna++;
		} else if (st == PROV_HUNK_ABSENT && !h->new_file && adds_absent_headers_only(h, t)) {
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
			   naming_patch_changes(dp, fix_hex, h, loc->deployed)) {
			/* the patch naming the fix changes this file, its way: adapted
			 * beyond what the lines tell; it decides nothing alone */
			out->ev[out->n - 1].note = "a patch naming the fix changes this file another way";
			out->nna++;
		}
	}
	shipped_new_tests(out, &hs, locs, nlocs);
	new_files_apart(out, &hs);
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
