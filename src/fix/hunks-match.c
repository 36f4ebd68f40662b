/* Whether one hunk's effect is in a file: present, absent or unknown, and on what evidence. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "hunks.h"
#include "hunks-int.h"
#include "util.h"
#include "banned.h"

/* ---- matching ---- */


int hk_in_list(const uint64_t *v, size_t n, uint64_t h)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == h)
			return 1;
	return 0;
}

static int in_file(const struct prov_hunk_file *f, uint64_t h)
{
	return f && hk_in_list(f->hash, f->n, h);
}

/*
 * pre, post: the fix's own file before and after it (NULL: not known): a +
 * line the file had before, or a - line it keeps after, is not distinctive.
 */
void hk_sides_init(struct sides *s, const struct prov_hunk *h, const struct prov_hunk_file *pre,
		       const struct prov_hunk_file *post)
{
	size_t i, n = h->n + 1;
	int *alnum = prov_xcalloc(n, sizeof(*alnum));
	int *pa = prov_xcalloc(n, sizeof(*pa));
	char last_o = ' ';

	memset(s, 0, sizeof(*s));
	s->pre = prov_xcalloc(n, sizeof(*s->pre));
	s->post = prov_xcalloc(n, sizeof(*s->post));
	s->minus = prov_xcalloc(n, sizeof(*s->minus));
	s->plus = prov_xcalloc(n, sizeof(*s->plus));
	s->pre_ctx = prov_xcalloc(n, 1);
	s->pre_an = prov_xcalloc(n, 1);
	s->post_ctx = prov_xcalloc(n, 1);
	s->minus_d = prov_xcalloc(n, 1);
	s->plus_d = prov_xcalloc(n, 1);
	s->plus_an = prov_xcalloc(n, 1);
	s->minus_first = s->plus_first = s->ins_at = SIZE_MAX;
	for (i = 0; i < h->n; i++) {
		int an = 0;
		uint64_t x = hk_norm_hash(h->lines[i], strlen(h->lines[i]), &an);
		char o = h->origin[i];

		if (!x)
			continue;
		if (o == '+' && (!s->nplus || last_o != '+'))
			s->nplus_blocks++;
		last_o = o;
		if (o == '+' && s->ins_at == SIZE_MAX)
			s->ins_at = s->npre;
		if (o != '+') {
			if (o == '-' && s->minus_first == SIZE_MAX)
				s->minus_first = s->npre;
			s->pre_ctx[s->npre] = o == ' ';
			s->pre_an[s->npre] = an >= DISTINCT_ALNUM;
			s->pre[s->npre++] = x;
		}
		if (o != '-') {
			if (o == '+' && s->plus_first == SIZE_MAX)
				s->plus_first = s->npost;
			s->post_ctx[s->npost] = o == ' ';
			s->post[s->npost++] = x;
		}
		if (o == '-') {
			alnum[s->nminus] = an;
			s->minus[s->nminus++] = x;
		}
		if (o == '+') {
			pa[s->nplus] = an;
			s->plus_an[s->nplus] = an >= DISTINCT_ALNUM;
			s->plus[s->nplus++] = x;
		}
	}
	/* distinctive: enough letters, and not a line the other side has too */
	for (i = 0; i < s->nminus; i++)
		if (alnum[i] >= DISTINCT_ALNUM && !hk_in_list(s->post, s->npost, s->minus[i]) &&
		    !in_file(post, s->minus[i]))
			s->minus_d[i] = 1, s->ndminus++;
	for (i = 0; i < s->nplus; i++)
		if (pa[i] >= DISTINCT_ALNUM && !hk_in_list(s->pre, s->npre, s->plus[i]) && !in_file(pre, s->plus[i]))
			s->plus_d[i] = 1, s->ndplus++;
	free(alnum);
	free(pa);
}

void hk_sides_release(struct sides *s)
{
	free(s->pre);
	free(s->post);
	free(s->minus);
	free(s->plus);
	free(s->pre_ctx);
	free(s->pre_an);
	free(s->post_ctx);
	free(s->minus_d);
	free(s->plus_d);
	free(s->plus_an);
}

/* Line comparisons one search may make: past it, not found (bounded work on hostile input). */

/* The first index >= from where seq[0..m) is in f, else SIZE_MAX. */
size_t hk_find_seq(const struct prov_hunk_file *f, const uint64_t *seq, size_t m, size_t from)
{
	size_t i, k, work = 0;

	if (!m || m > f->n)
		return SIZE_MAX;
	for (i = from; i + m <= f->n; i++) {
		for (k = 0; k < m && f->hash[i + k] == seq[k]; k++)
			;
		if (k == m)
			return i;
		if ((work += k + 1) > FIND_BUDGET)
			break;
	}
	return SIZE_MAX;
}

int hk_find_in(const struct prov_hunk_file *f, uint64_t h, size_t lo, size_t hi)
{
	size_t i;

	if (hi > f->n)
		hi = f->n;
	for (i = lo; i < hi; i++)
		if (f->hash[i] == h)
			return 1;
	return 0;
}

static size_t sub_sat(size_t a, size_t b)
{
	return a > b ? a - b : 0;
}

/* Is one of the flagged lines of v in f[lo, hi)? */
static int any_flagged_in(const struct prov_hunk_file *f, const uint64_t *v, const unsigned char *flag,
			  size_t n, size_t lo, size_t hi)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (flag[i] && hk_find_in(f, v[i], lo, hi))
			return 1;
	return 0;
}

/*
 * The + lines in order within a short span around an occurrence of a
 * distinctive one, and the distinctive - lines not near them.
 */
static int plus_present(const struct prov_hunk_file *f, const struct sides *s, size_t span)
{
	size_t k, i, anchor = SIZE_MAX;

	for (k = 0; k < s->nplus && anchor == SIZE_MAX; k++)
		if (s->plus_d[k])
			anchor = k;
	if (anchor == SIZE_MAX)
		return 0;
	for (i = 0, k = 0; i < f->n && k < MAX_ANCHORS; i++) {
		size_t lo = i, hi = i, pos, j;
		int ok = 1;

		if (f->hash[i] != s->plus[anchor])
			continue;
		k++;
		/* before the anchor, backwards */
		pos = i;
		for (j = anchor; ok && j-- > 0;) {
			size_t q = pos;

			ok = 0;
			while (q > 0 && pos - q < span) {
				q--;
				if (f->hash[q] == s->plus[j]) {
					ok = 1;
					pos = lo = q;
					break;
				}
			}
		}
		pos = i;
		for (j = anchor + 1; ok && j < s->nplus; j++) {
			size_t q = pos + 1;

			ok = 0;
			for (; q < f->n && q - pos <= span; q++)
				if (f->hash[q] == s->plus[j]) {
					ok = 1;
					pos = hi = q;
					break;
				}
		}
		if (!ok || hi - lo > span + s->nplus)
			continue;
		if (!any_flagged_in(f, s->minus, s->minus_d, s->nminus, sub_sat(lo, s->nminus + 3),
				    hi + s->nminus + 4))
			return 1;
	}
	return 0;
}

/* A deletion: the context lines around the - lines adjacent, the distinctive - lines not near. */
static int deletion_present(const struct prov_hunk_file *f, const struct sides *s)
{
	size_t k, before = SIZE_MAX, after = SIZE_MAX, i;

	if (s->minus_first == SIZE_MAX)
		return 0;
	for (k = s->minus_first; k-- > 0;)
		if (s->pre_ctx[k]) {
			before = k;
			break;
		}
	for (k = s->minus_first; k < s->npre; k++)
		if (s->pre_ctx[k]) {
			after = k;
			break;
		}
	if (before == SIZE_MAX || after == SIZE_MAX)
		return 0;
	/* - lines too common to say anything (found elsewhere, kept by the
	 * fix elsewhere): the hunk's own window, its context closed up, says it */
	if (!s->ndminus && !(s->pre_an[before] && s->pre_an[after]))
		return 0;
	/* context lines that say little (a brace, a comment opening) are adjacent in many
	 * places: then the distinctive - lines must be gone from the file */
	if (!(s->pre_an[before] && s->pre_an[after]) &&
	    any_flagged_in(f, s->minus, s->minus_d, s->nminus, 0, f->n))
		return 0;
	for (i = 0, k = 0; i + 1 < f->n && k < MAX_ANCHORS; i++)
		if (f->hash[i] == s->pre[before] && f->hash[i + 1] == s->pre[after]) {
			if (!any_flagged_in(f, s->minus, s->minus_d, s->nminus, sub_sat(i, s->nminus + 3),
					    i + s->nminus + 4))
				return 1;
			k++;
		}
	return 0;
}

/* The pre-image without up to 2 context lines at each end (patch's fuzz 2) in f, and no distinctive + line near. */
static int fuzzy_absent(const struct prov_hunk_file *f, const struct sides *s)
{
	size_t lo = 0, hi = s->npre, at, k;
	int distinct = 0;

	while (lo < 2 && lo < hi && s->pre_ctx[lo])
		lo++;
	while (s->npre - hi < 2 && hi > lo && s->pre_ctx[hi - 1])
		hi--;
	if (hi <= lo)
		return 0;
	for (k = 0; k < s->nminus; k++)
		distinct |= s->minus_d[k];
	if (!distinct && !s->ndplus)
		return 0;
	if (!distinct && hi - lo < 2)
		return 0;	/* an addition: the remaining context must say where */
	for (at = hk_find_seq(f, s->pre + lo, hi - lo, 0), k = 0; at != SIZE_MAX && k < MAX_ANCHORS;
	     at = hk_find_seq(f, s->pre + lo, hi - lo, at + 1), k++)
		if (!any_flagged_in(f, s->plus, s->plus_d, s->nplus, sub_sat(at, s->nplus + 3),
				    at + (hi - lo) + s->nplus + 3))
			return 1;
	return 0;
}

/* The - lines as a block, distinctive, with no distinctive + line near. */
static int minus_absent(const struct prov_hunk_file *f, const struct sides *s)
{
	size_t at, tries = 0;

	if (!s->nminus || !s->ndminus)
		return 0;
	for (at = hk_find_seq(f, s->minus, s->nminus, 0); at != SIZE_MAX && tries < MAX_ANCHORS;
	     at = hk_find_seq(f, s->minus, s->nminus, at + 1), tries++)
		if (!any_flagged_in(f, s->plus, s->plus_d, s->nplus, sub_sat(at, s->nplus + 3),
				    at + s->nminus + s->nplus + 3))
			return 1;
	return 0;
}


/* ---- lines changed a little: the token change of each changed line ---- */

struct req {
	int kind;	/* 0: - line replaced by a + line; 1: + line added; 2: - line deleted */
	uint32_t mt[MAX_TOKENS], pt[MAX_TOKENS];
	size_t nm, np;
	uint32_t nt[MAX_TOKENS];	/* tokens of the + line the fix's file did not have before it */
	size_t nnew;
};

static int req_match(const struct req *r, const struct prov_hunk_file *f, size_t i)
{
	const uint32_t *l = f->tok[i];
	size_t nl = f->ntok[i], k;
	double sp, sm;

	for (k = 0; k < r->nnew; k++)
		if (hk_count_of(l, nl, r->nt[k]) < 1)
			return 0;	/* a token new to the file is not there */
	if (r->kind == 1)
		return hk_sim(l, nl, r->pt, r->np) >= 0.75;
	if (r->kind == 2)
		return hk_sim(l, nl, r->mt, r->nm) >= 0.9;
	sp = hk_sim(l, nl, r->pt, r->np);
	sm = hk_sim(l, nl, r->mt, r->nm);
	if (sp < 0.7 || sp <= sm)
		return 0;
	if (5 * hk_common(l, nl, r->pt, r->np) < 4 * r->np)
		return 0;	/* most of the + line's tokens are there, not a few of them on a short line */
	for (k = 0; k < r->np; k++) {
		size_t cp = hk_count_of(r->pt, r->np, r->pt[k]), cm = hk_count_of(r->mt, r->nm, r->pt[k]);

		if (cp > cm && hk_count_of(l, nl, r->pt[k]) < 1)
			return 0;	/* a token the fix adds is not there */
	}
	for (k = 0; k < r->nm; k++) {
		size_t cp = hk_count_of(r->pt, r->np, r->mt[k]), cm = hk_count_of(r->mt, r->nm, r->mt[k]);

		if (cm > cp && hk_count_of(l, nl, r->mt[k]) > cp)
			return 0;	/* a token the fix removes is still there */
	}
	return 1;
}

static int req_near(const struct req *r, const struct prov_hunk_file *f, size_t lo, size_t hi)
{
	size_t j;

	for (j = lo; j < hi && j < f->n; j++)
		if (req_match(r, f, j))
			return 1;
	return 0;
}

/* The requirements of a hunk's change blocks; the number of positive ones in *npos. */
static size_t build_reqs(struct req *rq, const struct prov_hunk *h, size_t *npos, const struct prov_hunk_file *pre)
{
	size_t i = 0, n = 0;

	*npos = 0;
	while (i < h->n) {
		size_t m0, a, p0, b, j;

		if (h->origin[i] == ' ') {
			i++;
			continue;
		}
		for (m0 = i; i < h->n && h->origin[i] == '-'; i++)
			;
		a = i - m0;
		for (p0 = i; i < h->n && h->origin[i] == '+'; i++)
			;
		b = i - p0;
		for (j = 0; j < a || j < b; j++) {
			struct req *r = &rq[n];
			int an = 0;

			memset(r, 0, sizeof(*r));
			if (j < a)
				r->nm = hk_tokenize(r->mt, h->lines[m0 + j], strlen(h->lines[m0 + j]));
			if (j < b) {
				r->np = hk_tokenize(r->pt, h->lines[p0 + j], strlen(h->lines[p0 + j]));
				hk_norm_hash(h->lines[p0 + j], strlen(h->lines[p0 + j]), &an);
			} else {
				hk_norm_hash(h->lines[m0 + j], strlen(h->lines[m0 + j]), &an);
			}
			r->kind = j < a && j < b ? 0 : j < b ? 1 : 2;
			if (an < DISTINCT_ALNUM || (!r->nm && !r->np))
				continue;	/* says little */
			if (pre && j < b) {
				size_t t;

				for (t = 0; t < r->np; t++)
					if (!hk_in_vocab(pre, r->pt[t]) && (!t || r->pt[t] != r->pt[t - 1]))
						r->nt[r->nnew++] = r->pt[t];
				/* a line the file had before the fix, or one made of its
				 * tokens only, is there with or without the fix */
				if (in_file(pre, hk_norm_hash(h->lines[p0 + j], strlen(h->lines[p0 + j]), NULL)) ||
				    (r->kind == 1 && !r->nnew))
					continue;
			}
			if (r->kind == 0 && r->nm == r->np && !memcmp(r->mt, r->pt, r->nm * sizeof(*r->mt)))
				continue;	/* the same tokens */
			*npos += r->kind != 2;
			n++;
		}
	}
	return n;
}

static int adapted_present(const struct prov_hunk *h, const struct prov_hunk_file *f,
			   const struct prov_hunk_file *pre)
{
	struct req *rq;
	size_t nr, npos, first = SIZE_MAX, i, k, span = h->n + 10, tries;
	int found = 0;

	if (!f->tok || !h->n || h->n > 2000)
		return 0;
	rq = prov_xcalloc(h->n, sizeof(*rq));
	nr = build_reqs(rq, h, &npos, pre);
	for (k = 0; k < nr && first == SIZE_MAX; k++)
		if (rq[k].kind != 2)
			first = k;
	for (i = 0, tries = 0; first != SIZE_MAX && i < f->n && !found && tries < MAX_ANCHORS; i++) {
		size_t lo = sub_sat(i, span), hi = i + span + 1;
		int ok = 1;

		if (!req_match(&rq[first], f, i))
			continue;
		tries++;
		for (k = 0; k < nr && ok; k++)
			if (k != first)
				ok = rq[k].kind == 2 ? !req_near(&rq[k], f, lo, hi) : req_near(&rq[k], f, lo, hi);
		found = ok;
	}
	free(rq);
	return found;
}

/* ---- the fix's code still as it was, where patch's exact pre-image search fails ---- */

/* The whole pre-image at a place with no distinctive + line near (an addition's lines may sit next to its context). */
static int pre_absent(const struct prov_hunk_file *f, const struct sides *s)
{
	size_t at, k;

	for (at = hk_find_seq(f, s->pre, s->npre, 0), k = 0; at != SIZE_MAX && k < MAX_ANCHORS;
	     at = hk_find_seq(f, s->pre, s->npre, at + 1), k++)
		if (!any_flagged_in(f, s->plus, s->plus_d, s->nplus, sub_sat(at, s->nplus + 3),
				    at + s->npre + s->nplus + 3))
			return 1;
	return 0;
}

/*
 * The whole pre-image says where the hunk goes only when the fix's own file
 * has it once before the fix and not after it (pre, post: NULL when not
 * known). Lines common enough to repeat ("return rv; } }") found in the
 * deployed file may be another place, one the fix leaves as it is.
 */
static int pre_says_where(const struct sides *s, const struct prov_hunk_file *pre, const struct prov_hunk_file *post)
{
	size_t at;

	if (post && hk_find_seq(post, s->pre, s->npre, 0) != SIZE_MAX)
		return 0;
	return !pre || (at = hk_find_seq(pre, s->pre, s->npre, 0)) == SIZE_MAX ||
	       hk_find_seq(pre, s->pre, s->npre, at + 1) == SIZE_MAX;
}

/* 1 when the pre-image is somewhere in f not inside an occurrence of the post-image. */
static int pre_outside_post(const struct prov_hunk_file *f, const struct sides *s)
{
	size_t at, q, k, j;

	for (at = hk_find_seq(f, s->pre, s->npre, 0), k = 0; at != SIZE_MAX && k < MAX_ANCHORS;
	     at = hk_find_seq(f, s->pre, s->npre, at + 1), k++) {
		int inside = 0;

		for (q = hk_find_seq(f, s->post, s->npost, 0), j = 0; q != SIZE_MAX && j < MAX_ANCHORS && !inside;
		     q = hk_find_seq(f, s->post, s->npost, q + 1), j++)
			inside = at >= q && at + s->npre <= q + s->npost;
		if (!inside)
			return 1;
	}
	return k >= MAX_ANCHORS;
}

static size_t count_near(const struct prov_hunk_file *f, uint64_t x, size_t at, size_t w)
{
	size_t j, c = 0;

	for (j = sub_sat(at, w); j < at + w && j < f->n; j++)
		c += f->hash[j] == x;
	return c;
}

/* The one place where line x is followed by line y in f; SIZE_MAX when none or several. */
static size_t unique_pair(const struct prov_hunk_file *f, uint64_t x, uint64_t y)
{
	size_t i, at = SIZE_MAX;

	for (i = 0; i + 1 < f->n; i++)
		if (f->hash[i] == x && f->hash[i + 1] == y) {
			if (at != SIZE_MAX)
				return SIZE_MAX;
			at = i;
		}
	return at;
}

/* The text of the k-th non-blank line of the hunk's pre-image (context and - lines), or NULL. */
static const char *pre_line(const struct prov_hunk *h, size_t k)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (h->origin[i] != '+' && hk_norm_hash(h->lines[i], strlen(h->lines[i]), NULL) && !k--)
			return h->lines[i];
	return NULL;
}

/*
 * Where the two context lines around an addition are adjacent in f, one
 * exactly and the other changed a little (a macro renamed since: token
 * similarity at least 0.8, one token apart at most), at one place only;
 * SIZE_MAX when none or several.
 */
static size_t renamed_pair(const struct prov_hunk *h, const struct prov_hunk_file *f, const struct sides *s)
{
	const char *la = pre_line(h, s->ins_at - 1), *lb = pre_line(h, s->ins_at);
	uint32_t ta[MAX_TOKENS], tb[MAX_TOKENS];
	size_t na, nb, i, at = SIZE_MAX;

	if (!la || !lb || !f->tok)
		return SIZE_MAX;
	na = hk_tokenize(ta, la, strlen(la));
	nb = hk_tokenize(tb, lb, strlen(lb));
	for (i = 0; i + 1 < f->n; i++) {
		int a = f->hash[i] == s->pre[s->ins_at - 1], b = f->hash[i + 1] == s->pre[s->ins_at];

		if (a == b)
			continue;	/* both exact: unique_pair's; neither: not here */
		if (a ? !(hk_sim(f->tok[i + 1], f->ntok[i + 1], tb, nb) >= 0.8 &&
			  hk_common(f->tok[i + 1], f->ntok[i + 1], tb, nb) + 1 >= nb)
		      : !(hk_sim(f->tok[i], f->ntok[i], ta, na) >= 0.8 && hk_common(f->tok[i], f->ntok[i], ta, na) + 1 >= na))
			continue;
		if (at != SIZE_MAX)
			return SIZE_MAX;
		at = i;
	}
	return at;
}

/*
 * An addition not made: the hunk only adds one block of lines, the two
 * context lines around that block (each saying where) are adjacent in f at
 * one place only (one of them may be changed a little: renamed_pair), and
 * none of the + lines is near it more often than near the same place in
 * the fix's own file before it (pre; NULL: not at all).
 */
static int addition_absent(const struct prov_hunk *h, const struct prov_hunk_file *f, const struct sides *s,
			   const struct prov_hunk_file *pre)
{
	size_t at, pat = SIZE_MAX, k, w = s->nplus + 30;

	if (s->nminus || !s->nplus || s->nplus_blocks != 1 || s->ins_at == SIZE_MAX || !s->ins_at ||
	    s->ins_at >= s->npre || !s->pre_an[s->ins_at - 1] || !s->pre_an[s->ins_at])
		return 0;
	at = unique_pair(f, s->pre[s->ins_at - 1], s->pre[s->ins_at]);
	if (at == SIZE_MAX)
		at = renamed_pair(h, f, s);
	if (at == SIZE_MAX)
		return 0;
	if (pre)
		pat = unique_pair(pre, s->pre[s->ins_at - 1], s->pre[s->ins_at]);
	for (k = 0; k < s->nplus; k++) {
		size_t had;

		if (!s->plus_an[k])
			continue;
		had = pat == SIZE_MAX ? 0 : count_near(pre, s->plus[k], pat, w);
		if (count_near(f, s->plus[k], at, w) > had)
			return 0;
	}
	return 1;
}

#define LINES_GAP 8	/* lines the deployed code may have between two of the hunk's */

/* Line j of f is like - line tok[0..n) and less like every + line of the hunk. */
static int like_minus(const struct prov_hunk_file *f, size_t j, const uint32_t *tok, size_t n,
		      uint32_t (*ptok)[MAX_TOKENS], const size_t *np, size_t nplus)
{
	double sm;
	size_t k;

	if (!f->tok || (sm = hk_sim(f->tok[j], f->ntok[j], tok, n)) < 0.8)
		return 0;
	for (k = 0; k < nplus; k++)
		if (hk_sim(f->tok[j], f->ntok[j], ptok[k], np[k]) >= sm)
			return 0;
	return 1;
}

struct lines_ctx {
	const struct prov_hunk_file *f;
	const struct sides *s;
	uint32_t (*mtok)[MAX_TOKENS], (*ptok)[MAX_TOKENS];	/* per - line, per + line */
	size_t *nm, *np;
	size_t *minus_of;	/* pre index -> - index, SIZE_MAX for context */
};

/*
 * From pre line k0 at f[i]: the pre lines after it in order, each within
 * LINES_GAP of the last one found; a distinctive - line must be found
 * (exactly, or a line more like it than like any + line), all but one of
 * them when at least two others are. 1 when it holds and at least two
 * lines that say where were found exactly; *hi: the last.
 */
static int lines_from(const struct lines_ctx *c, size_t k0, size_t i, size_t *hi)
{
	const struct sides *s = c->s;
	size_t pos = i, k, exact = 1, q, need_n = 0, missed = 0;

	for (k = k0 + 1; k < s->npre; k++) {
		size_t m = c->minus_of[k];
		int need = m != SIZE_MAX && s->minus_d[m], found = 0;

		for (q = pos + 1; q < c->f->n && q - pos <= LINES_GAP && !found; q++)
			if (c->f->hash[q] == s->pre[k]) {
				found = 1;
				exact += s->pre_an[k];
				pos = q;
			}
		for (q = pos + 1; !found && need && q < c->f->n && q - pos <= LINES_GAP; q++)
			if (like_minus(c->f, q, c->mtok[m], c->nm[m], c->ptok, c->np, s->nplus)) {
				found = 1;
				pos = q;
			}
		need_n += need;
		if (need && !found && ++missed > 1)
			return 0;
	}
	*hi = pos;
	/* one distinctive - line may be gone (another commit changed it) when two others are there */
	return exact >= 2 && (!missed || need_n - missed >= 2);
}

/*
 * The code the hunk changes still as it was around its distinctive -
 * lines, where the exact pre-image is not there (the code around drifted,
 * a - line changed a little by another commit): see lines_from; and no
 * distinctive + line near. Not for additions (addition_absent).
 */
static int lines_absent(const struct prov_hunk *h, const struct prov_hunk_file *f, const struct sides *s)
{
	struct lines_ctx c;
	size_t i, k, m = 0, p = 0, k0, tries = 0, hi;
	int ok = 0;

	if (!s->ndminus)
		return 0;
	memset(&c, 0, sizeof(c));
	c.f = f;
	c.s = s;
	c.mtok = prov_xcalloc(s->nminus + 1, sizeof(*c.mtok));
	c.ptok = prov_xcalloc(s->nplus + 1, sizeof(*c.ptok));
	c.nm = prov_xcalloc(s->nminus + 1, sizeof(*c.nm));
	c.np = prov_xcalloc(s->nplus + 1, sizeof(*c.np));
	c.minus_of = prov_xcalloc(s->npre + 1, sizeof(*c.minus_of));
	for (i = 0, k = 0; i < h->n; i++) {
		size_t len = strlen(h->lines[i]);

		if (!hk_norm_hash(h->lines[i], len, NULL))
			continue;
		if (h->origin[i] == '-')
			c.nm[m] = hk_tokenize(c.mtok[m], h->lines[i], len), m++;
		else if (h->origin[i] == '+')
			c.np[p] = hk_tokenize(c.ptok[p], h->lines[i], len), p++;
		if (h->origin[i] != '+')
			c.minus_of[k++] = h->origin[i] == '-' ? m - 1 : SIZE_MAX;
	}
	/* the anchor: a line that says where, before every distinctive - line */
	for (k0 = 0; k0 < s->npre && !ok; k0++) {
		size_t mk = c.minus_of[k0];

		if (!s->pre_an[k0] || (mk != SIZE_MAX && !s->minus_d[mk]))
			continue;
		for (i = 0; i < f->n && !ok && tries < MAX_ANCHORS; i++) {
			if (f->hash[i] != s->pre[k0])
				continue;
			tries++;
			ok = lines_from(&c, k0, i, &hi) &&
			     !any_flagged_in(f, s->plus, s->plus_d, s->nplus, sub_sat(i, s->nplus + 3),
					     hi + s->nplus + 4);
		}
		if (mk != SIZE_MAX)
			break;	/* a distinctive - line: later anchors would skip it */
	}
	free(c.mtok);
	free(c.ptok);
	free(c.nm);
	free(c.np);
	free(c.minus_of);
	return ok;
}

int prov_hunk_not_applicable(const struct prov_hunk *h, const struct prov_hunk_file *f)
{
	size_t i, j;
	uint32_t t[MAX_TOKENS];

	if (!f)
		return 0;
	for (i = 0; i < h->n; i++) {
		int an = 0;
		uint64_t x;
		size_t nt;

		/* the function's own lines: - lines; context too when the header names no function */
		if (h->origin[i] == '+' || (h->origin[i] == ' ' && h->function))
			continue;
		x = hk_norm_hash(h->lines[i], strlen(h->lines[i]), &an);
		if (!x || an < DISTINCT_ALNUM)
			continue;
		for (j = 0; j < f->n; j++)
			if (f->hash[j] == x)
				return 0;
		if (h->origin[i] != '-')
			continue;
		nt = hk_tokenize(t, h->lines[i], strlen(h->lines[i]));
		for (j = 0; f->tok && j < f->n; j++)
			if (hk_sim(f->tok[j], f->ntok[j], t, nt) >= 0.8)
				return 0;
	}
	return 1;
}

int hk_same_seq(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	return na == nb && (!na || !memcmp(a, b, na * sizeof(*a)));
}

enum prov_hunk_state prov_hunk_match(const struct prov_hunk *h, const struct prov_hunk_file *f)
{
	return prov_hunk_match_fix(h, f, NULL, NULL);
}

enum prov_hunk_state prov_hunk_match_fix(const struct prov_hunk *h, const struct prov_hunk_file *f,
					 const struct prov_hunk_file *pre, const struct prov_hunk_file *post)
{
	return prov_hunk_match_fix_ex(h, f, pre, post, NULL);
}

enum prov_hunk_state prov_hunk_match_fix_ex(const struct prov_hunk *h, const struct prov_hunk_file *f,
					    const struct prov_hunk_file *pre, const struct prov_hunk_file *post,
					    unsigned *how)
{
	struct sides s;
	enum prov_hunk_state st = PROV_HUNK_UNKNOWN;
	int post_at, pre_at;

	if (how)
		*how = 0;

	if (!f)
		return h->new_file ? PROV_HUNK_ABSENT : h->deleted_file ? PROV_HUNK_PRESENT_EXACT : PROV_HUNK_UNKNOWN;
	hk_sides_init(&s, h, pre, post);
	if (h->deleted_file) {
		/* the whole file removed: still there is absent */
		st = hk_find_seq(f, s.pre, s.npre, 0) != SIZE_MAX ? PROV_HUNK_ABSENT : PROV_HUNK_UNKNOWN;
		goto done;
	}
	if (h->new_file && !s.npost) {
		st = PROV_HUNK_PRESENT_EXACT;
		goto done;
	}
	post_at = hk_find_seq(f, s.post, s.npost, 0) != SIZE_MAX;
	pre_at = s.npre && hk_find_seq(f, s.pre, s.npre, 0) != SIZE_MAX;
	if (hk_same_seq(s.pre, s.npre, s.post, s.npost)) {
		/* whitespace only: nothing to tell apart */
		st = post_at ? PROV_HUNK_PRESENT_EXACT : PROV_HUNK_UNKNOWN;
		goto done;
	}
	if (post_at && (!pre_at || !pre_outside_post(f, &s))) {
		/* (an addition at a file's end: its context is inside its post-image) */
		st = PROV_HUNK_PRESENT_EXACT;
		goto done;
	}
	if (pre_at && !post_at && pre_absent(f, &s)) {
		st = PROV_HUNK_ABSENT;
		if (how && !pre_says_where(&s, pre, post))
			*how = PROV_HUNK_BY_CODE_AROUND;	/* found, but maybe not where the fix goes */
		goto done;
	}
	if (post_at)
		goto done;	/* with the pre-image too: the surrounding code repeats */
	if (h->n > PROV_HUNK_FUZZY_MAX)
		goto done;	/* too large to compare line by line near-by */
	if ((s.nplus && plus_present(f, &s, h->n + 8)) || (!s.nplus && deletion_present(f, &s))) {
		st = PROV_HUNK_PRESENT_CHANGED;
		goto done;
	}
	if (fuzzy_absent(f, &s) || minus_absent(f, &s))
		st = PROV_HUNK_ABSENT;
	else if (adapted_present(h, f, pre)) {
		st = PROV_HUNK_PRESENT_CHANGED;
		if (how)
			*how = PROV_HUNK_BY_TOKENS;
	} else if (addition_absent(h, f, &s, pre) || lines_absent(h, f, &s)) {
		st = PROV_HUNK_ABSENT;
		if (how)
			*how = PROV_HUNK_BY_CODE_AROUND;
	}
done:
	hk_sides_release(&s);
	return st;
}
