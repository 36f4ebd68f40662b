/* Where a fix's file and function are in the deployed tree, and what a hunk is there. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "defs.h"
#include "error.h"
#include "fixeffect.h"
#include "fixeffect-int.h"
#include "renames.h"
#include "srcdefs.h"
#include "srclocate.h"
#include "util.h"
#include "banned.h"

#define MAX_BASENAME_CANDIDATES 16
#define MAX_DIR_CANDIDATES 500
#define REWRAP_MAX_REGION ((size_t)256 << 10)	/* bytes of code searched for a re-wrapped hunk */	/* files of a directory read for a function line */

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

/* The fix's own version of h's file at `commit` (before: the old path) into *f; 1 when read. */
int effect_fix_side(struct prov_hunk_file *f, const struct prov_effect_tree *t, const char *commit,
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
int effect_function_in(const struct prov_hunk *h, const struct located *loc)
{
	char *word = function_word(h->function);
	int in = word && loc->text && memmem(loc->text, loc->len, word, strlen(word)) != NULL;

	free(word);
	return in;
}

int effect_read_tree_file(struct prov_buf *b, const struct prov_effect_tree *t, const char *path)
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
		if (!*z || *z != s[i])
			return 0;	/* longer than z, or not z (a NUL in s is not z's end) */
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

/* FNV-1a of s[0..n) with every blank left out: equal for lines that same_unblanked calls equal. */
static uint64_t unblanked_hash(const char *s, size_t n)
{
	uint64_t x = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			x = (x ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return x;
}

/*
 * One text's lines as function_slice asks about them, found by binary
 * search instead of a walk over the text per hunk (that walk, once per
 * undecided hunk, made fixcheck quadratic in hunks x file size): the lines
 * with 8 letters or digits or more (a shorter one is never a function line
 * that unblanked_function gives), by the hash of their unblanked bytes, and
 * where each line that starts with a letter, '_' or '$' starts.
 */
struct ix_key {
	uint64_t hash;
	uint32_t off;
};

struct effect_text_index {
	const char *text;
	size_t len;
	struct ix_key *keys;	/* sorted by hash, then offset */
	size_t nkeys;
	uint32_t *heads;	/* ascending */
	size_t nheads;
	int usable;	/* 0: too large to index (offsets are 32 bits): walk the text */
};

static int cmp_key(const void *a, const void *b)
{
	const struct ix_key *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static struct effect_text_index *text_index(const char *text, size_t len)
{
	struct effect_text_index *ix = prov_xcalloc(1, sizeof(*ix));
	const char *p = text, *end = text + len;
	size_t akeys = 0, aheads = 0;

	ix->text = text;
	ix->len = len;
	if (!text || len > UINT32_MAX)
		return ix;
	ix->usable = 1;
	while (p && p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t n = e ? (size_t)(e - p) : (size_t)(end - p), i, alnum = 0;

		if (isalpha((unsigned char)*p) || *p == '_' || *p == '$') {
			if (ix->nheads == aheads) {
				aheads = aheads ? 2 * aheads : 64;
				ix->heads = prov_xrealloc(ix->heads, aheads * sizeof(*ix->heads));
			}
			ix->heads[ix->nheads++] = (uint32_t)(p - text);
		}
		for (i = 0; i < n && alnum < 8; i++)
			alnum += isalnum((unsigned char)p[i]) != 0;
		if (alnum >= 8) {
			if (ix->nkeys == akeys) {
				akeys = akeys ? 2 * akeys : 64;
				ix->keys = prov_xrealloc(ix->keys, akeys * sizeof(*ix->keys));
			}
			ix->keys[ix->nkeys].hash = unblanked_hash(p, n);
			ix->keys[ix->nkeys++].off = (uint32_t)(p - text);
		}
		p = e ? e + 1 : NULL;
	}
	if (ix->nkeys)
		qsort(ix->keys, ix->nkeys, sizeof(*ix->keys), cmp_key);
	return ix;
}

static void text_index_free(struct effect_text_index *ix)
{
	if (!ix)
		return;
	free(ix->keys);
	free(ix->heads);
	free(ix);
}

/* *slot indexing text, made on the first call. */
static struct effect_text_index *indexed(struct effect_text_index **slot, const char *text, size_t len)
{
	if (!*slot)
		*slot = text_index(text, len);
	return *slot;
}

/* The length of the line at p, up to its newline or the end. */
static size_t line_len(const char *p, const char *end)
{
	const char *e = memchr(p, '\n', (size_t)(end - p));

	return e ? (size_t)(e - p) : (size_t)(end - p);
}

/* function_slice by walking the text: for a text too large to index. */
static int function_slice_walk(const char *text, size_t len, const char *z, size_t *off, size_t *n)
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
 * The lines of the function whose line (blanks removed) is z, once in the
 * indexed text: from that line to the next line git's default function-line
 * rule would take (one that starts with a letter, '_' or '$'), or the end.
 * 1 and [*off, *off + *n) when z is there exactly once.
 */
static int function_slice(const struct effect_text_index *ix, const char *z, size_t *off, size_t *n)
{
	const char *end = ix->text + ix->len;
	uint64_t hz = unblanked_hash(z, strlen(z));
	size_t lo = 0, hi = ix->nkeys, i, at = 0, stop = ix->len;
	int found = 0;

	if (!ix->usable)
		return ix->text ? function_slice_walk(ix->text, ix->len, z, off, n) : 0;
	while (lo < hi) {	/* the first key of hash hz */
		size_t mid = lo + (hi - lo) / 2;

		if (ix->keys[mid].hash < hz)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < ix->nkeys && ix->keys[i].hash == hz; i++) {
		const char *p = ix->text + ix->keys[i].off;

		if (!same_unblanked(p, line_len(p, end), z))
			continue;	/* another line of the same hash */
		if (found)
			return 0;	/* twice: which one? */
		found = 1;
		at = ix->keys[i].off;
	}
	if (!found)
		return 0;
	lo = 0;
	hi = ix->nheads;
	while (lo < hi) {	/* the first head after the line */
		size_t mid = lo + (hi - lo) / 2;

		if (ix->heads[mid] <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->nheads)
		stop = ix->heads[lo];
	*off = at;
	*n = stop - at;
	return 1;
}

/*
 * A hunk neither present nor absent in its whole file, judged again in the
 * function its header names alone: that function of the deployed file, of
 * the fix's file before and after it (a line found elsewhere in the file,
 * in another function, is no evidence either way). UNKNOWN when a file
 * does not have that function line exactly once.
 */
/*
 * The fix's file before and after it as text, read once per file (each
 * undecided hunk re-read both: quadratic in hunks x file size). 0 when both
 * were read.
 */
static int fix_texts(struct located *loc, const struct prov_hunk *h, const char *parent, const char *fix_hex,
		     const struct prov_effect_tree *t)
{
	if (!loc->texts_read) {
		struct prov_buf empty = PROV_BUF_INIT;	/* loc is calloc'd: a zero prov_buf has cap 0 */

		loc->pre_text = empty;
		loc->post_text = empty;
		loc->texts_read = -1;
		if (parent &&
		    prov_repo_read_blob(&loc->pre_text, t->r, parent, h->old_path ? h->old_path : h->path,
					PROV_SOURCES_MAX_BLOB) == 0 &&
		    prov_repo_read_blob(&loc->post_text, t->r, fix_hex, h->path, PROV_SOURCES_MAX_BLOB) == 0)
			loc->texts_read = 1;
		prov_error_clear();
	}
	return loc->texts_read > 0 ? 0 : -1;
}

void effect_located_release(struct located *loc)
{
	size_t i;

	for (i = 0; i < sizeof(loc->ix) / sizeof(loc->ix[0]); i++)
		text_index_free(loc->ix[i]);
	if (loc->texts_filed) {
		prov_hunk_file_release(&loc->pre_f);
		prov_hunk_file_release(&loc->post_f);
	}
	if (loc->renamed_done) {
		prov_hunk_file_release(&loc->rpre_f);
		prov_hunk_file_release(&loc->rpost_f);
	}
	free(loc->rpre);
	free(loc->rpost);
	if (loc->defs) {
		prov_defs_release(loc->defs);
		free(loc->defs);
	}
	prov_buf_release(&loc->pre_text);
	prov_buf_release(&loc->post_text);
	if (loc->ren) {
		prov_renames_release(loc->ren);
		free(loc->ren);
	}
}

enum prov_hunk_state effect_in_function_only(const struct prov_hunk *h, struct located *loc,
					     const char *parent, const char *fix_hex,
					     const struct prov_effect_tree *t, unsigned *how)
{
	const struct prov_buf *pre = &loc->pre_text, *post = &loc->post_text;
	struct prov_hunk_file fd, fpre, fpost;
	enum prov_hunk_state st = PROV_HUNK_UNKNOWN;
	size_t o[3], n[3];
	char *z = unblanked_function(h);

	*how = 0;
	if (!z || !loc->found || !loc->text || h->new_file || h->deleted_file || !parent ||
	    fix_texts(loc, h, parent, fix_hex, t) < 0 || !pre->buf || !post->buf ||
	    !function_slice(indexed(&loc->ix[0], loc->text, loc->len), z, &o[0], &n[0]) ||
	    !function_slice(indexed(&loc->ix[1], pre->buf, pre->len), z, &o[1], &n[1]) ||
	    !function_slice(indexed(&loc->ix[2], post->buf, post->len), z, &o[2], &n[2]))
		goto cleanup;
	prov_hunk_file_init(&fd, loc->text + o[0], n[0]);
	prov_hunk_file_init(&fpre, pre->buf + o[1], n[1]);
	prov_hunk_file_init(&fpost, post->buf + o[2], n[2]);
	st = prov_hunk_match_fix_ex(h, &fd, &fpre, &fpost, how);
	prov_hunk_file_release(&fd);
	prov_hunk_file_release(&fpre);
	prov_hunk_file_release(&fpost);
cleanup:
	prov_error_clear();
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
 * Addition h (its file's texts: the deployed one, indexed in dix; the fix's
 * before it, indexed in pix and as lines in pre; after it, as lines in post)
 * not made in the function its header names, by the code around it there
 * (prov_hunk_addition_absent_in): that function of the deployed file and of
 * the fix's file before it, each having its line once.
 */
static int addition_absent_in_function(const struct prov_hunk *h, const struct effect_text_index *dix,
				       const struct effect_text_index *pix, const struct prov_hunk_file *pre,
				       const struct prov_hunk_file *post)
{
	char *z = unblanked_function(h);
	size_t o[2], n[2];
	struct prov_hunk_file fd, fp;
	int ok = 0;

	if (!z || !function_slice(dix, z, &o[0], &n[0]) || !function_slice(pix, z, &o[1], &n[1])) {
		free(z);
		return 0;
	}
	prov_hunk_file_init(&fd, dix->text + o[0], n[0]);
	prov_hunk_file_init(&fp, pix->text + o[1], n[1]);
	ok = prov_hunk_addition_absent_in(h, &fd, &fp, pre, post);
	prov_hunk_file_release(&fd);
	prov_hunk_file_release(&fp);
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
enum prov_hunk_state effect_renamed_or_in_function(const struct prov_hunk *h, struct located *loc,
						   const char *parent, const char *fix_hex,
						   const struct prov_effect_tree *t, unsigned *how, int *renamed)
{
	const struct prov_buf *pre = &loc->pre_text, *post = &loc->post_text;
	const struct prov_renames *rp;
	struct prov_hunk hr;
	enum prov_hunk_state st = PROV_HUNK_UNKNOWN;
	int use = 0;

	*how = 0;
	*renamed = 0;
	if (!loc->found || !loc->text || h->new_file || h->deleted_file || !parent || h->n > PROV_HUNK_FUZZY_MAX ||
	    fix_texts(loc, h, parent, fix_hex, t) < 0)
		goto cleanup;
	if (!loc->ren) {	/* learned once per file */
		loc->ren = prov_xcalloc(1, sizeof(*loc->ren));
		prov_renames_learn(loc->ren, pre->buf, pre->len, loc->text, loc->len);
	}
	rp = loc->ren;
	if (rp->n && hunk_touched(h, rp)) {
		use = 1;
		if (!loc->renamed_done) {	/* the renamed texts, once per file */
			loc->rpre = prov_renames_apply(rp, pre->buf, pre->len, &loc->lrpre);
			loc->rpost = prov_renames_apply(rp, post->buf, post->len, &loc->lrpost);
			prov_hunk_file_init(&loc->rpre_f, loc->rpre, loc->lrpre);
			prov_hunk_file_init(&loc->rpost_f, loc->rpost, loc->lrpost);
			loc->renamed_done = 1;
		}
		renamed_hunk(&hr, h, rp);
		st = prov_hunk_match_fix_ex(&hr, &loc->f, &loc->rpre_f, &loc->rpost_f, how);
		if (st == PROV_HUNK_PRESENT_CHANGED && *how == PROV_HUNK_BY_TOKENS)
			st = PROV_HUNK_UNKNOWN;
		else if (st == PROV_HUNK_PRESENT_EXACT)
			st = PROV_HUNK_PRESENT_CHANGED;	/* not byte-identical: other names */
		*renamed = st != PROV_HUNK_UNKNOWN;
	} else if (!loc->texts_filed) {	/* the fix's texts as lines, once per file */
		prov_hunk_file_init(&loc->pre_f, pre->buf, pre->len);
		prov_hunk_file_init(&loc->post_f, post->buf, post->len);
		loc->texts_filed = 1;
	}
	if (st == PROV_HUNK_UNKNOWN &&
	    addition_absent_in_function(use ? &hr : h, indexed(&loc->ix[0], loc->text, loc->len),
					use ? indexed(&loc->ix[3], loc->rpre, loc->lrpre)
					    : indexed(&loc->ix[1], pre->buf, pre->len),
					use ? &loc->rpre_f : &loc->pre_f, use ? &loc->rpost_f : &loc->post_f)) {
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
			if (effect_read_tree_file(&b, t, files[i]) < 0 || !b.buf || !has_line(b.buf, b.len, z))
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
int effect_locate(struct located *loc, const struct prov_hunk *h, const char *fix_parent,
		  const struct prov_effect_tree *t)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *other = NULL, *word = NULL;
	char **cand = NULL;
	size_t ncand = 0, i;
	int error;

	loc->path = prov_xstrdup(h->path);
	error = effect_read_tree_file(&b, t, h->path);
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
	    strcmp(other, h->path) && effect_read_tree_file(&b, t, other) == 0) {
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
		if (effect_read_tree_file(&b, t, cand[i]) < 0)
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
	if (loc->deployed && effect_read_tree_file(&b, t, loc->deployed) == 0)
		goto found;
	free(loc->deployed);
	loc->deployed = NULL;
	/* no such file: the one file that defines the hunk's function */
	if (!ncand && word && (loc->deployed = defining_file(t, word)) && effect_read_tree_file(&b, t, loc->deployed) == 0)
		goto found;
	free(loc->deployed);
	loc->deployed = NULL;
	/* nor that: the one file of its directory with the line the header names */
	if (!ncand && (loc->deployed = file_with_function_line(t, h)) && effect_read_tree_file(&b, t, loc->deployed) == 0)
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
 * The lines of the function hunk h's header names in the located file, from
 * the line 3 before its definition to the line before the next definition
 * (srcdefs): [*from, *to). 0 when the file does not define it exactly once
 * (or is no source file the scanner reads).
 */
static int own_function_span(const struct prov_hunk *h, struct located *loc, const char **from, const char **to)
{
	const struct prov_defs *d;
	char *word = function_word(h->function);
	int start = 0, end = 0, line = 1, n = 0, ok = 0;
	const char *p;
	size_t i;

	*from = *to = NULL;
	if (!word || !loc->text || !prov_defs_wants_path(loc->deployed ? loc->deployed : loc->path))
		goto cleanup;
	if (!loc->defs) {	/* scanned once per file, not per hunk */
		loc->defs = prov_xcalloc(1, sizeof(*loc->defs));
		prov_defs_scan_text(loc->defs, loc->deployed ? loc->deployed : loc->path, loc->text, loc->len);
	}
	d = loc->defs;
	for (i = 0; i < d->n; i++)
		if (!strcmp(d->items[i].name, word)) {
			start = d->items[i].line;
			n++;
		}
	if (n != 1)
		goto cleanup;
	for (i = 0; i < d->n; i++)
		if (d->items[i].line > start && (!end || d->items[i].line < end))
			end = d->items[i].line;
	start = start > 3 ? start - 3 : 1;	/* a return type on the lines before the name */
	for (p = loc->text; p < loc->text + loc->len; line++) {
		const char *nl = memchr(p, '\n', (size_t)(loc->text + loc->len - p));

		if (line == start)
			*from = p;
		if (end && line == end - 1) {
			*to = p;	/* up to the line before the next definition's name */
			break;
		}
		p = nl ? nl + 1 : loc->text + loc->len;
	}
	if (!*from)
		goto cleanup;
	if (!*to || *to < *from)
		*to = loc->text + loc->len;
	ok = 1;
cleanup:
	free(word);
	return ok;
}

/*
 * Hunk h (present by token changes somewhere in the located file) is present
 * by them in the lines of the function its header names, from the line
 * before its definition to the next definition (srcdefs), when the file
 * defines that function once; 1 too when it does not (renamed: no check).
 */
int effect_in_own_function(const struct prov_hunk *h, struct located *loc)
{
	struct prov_hunk_file rf;
	const char *from, *to;
	enum prov_hunk_state st;

	if (!own_function_span(h, loc, &from, &to))
		return 1;
	prov_hunk_file_init(&rf, from, (size_t)(to - from));
	st = prov_hunk_match_fix(h, &rf, loc->have_pre ? &loc->pre : NULL, loc->have_post ? &loc->post : NULL);
	prov_hunk_file_release(&rf);
	return st == PROV_HUNK_PRESENT_EXACT || st == PROV_HUNK_PRESENT_CHANGED;
}

int effect_rewrapped(const struct prov_hunk *h, struct located *loc, const char *parent, const char *fix_hex,
		     const struct prov_effect_tree *t)
{
	const char *from = NULL, *to = NULL;

	if (!loc->found || !loc->text || h->new_file || h->deleted_file || !parent ||
	    fix_texts(loc, h, parent, fix_hex, t) < 0 || !loc->pre_text.buf)
		return 0;
	if (!own_function_span(h, loc, &from, &to)) {
		from = loc->text;	/* no function to say where: the whole file */
		to = loc->text + loc->len;
	}
	if ((size_t)(to - from) > REWRAP_MAX_REGION || loc->pre_text.len > 4 * REWRAP_MAX_REGION)
		return 0;	/* tokenised per hunk: bounded */
	return prov_hunk_rewrapped(h, from, (size_t)(to - from), loc->pre_text.buf, loc->pre_text.len);
}
