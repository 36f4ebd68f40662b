#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "hunks.h"
#include "util.h"
#include "banned.h"

/* ---- parsing ---- */

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

static const char *next_line(const char *e, const char *end)
{
	return e < end ? e + 1 : end;
}

/* "+++ b/dir/file\t2020-..." with `strip` components dropped; NULL for /dev/null or a bad name. */
static char *diff_path(const char *p, const char *e, int strip)
{
	const char *q;
	int i;

	p += 4;
	for (q = p; q < e && *q != '\t' && *q != '\r'; q++)
		;
	while (q > p && q[-1] == ' ')
		q--;
	if ((size_t)(q - p) == 9 && !strncmp(p, "/dev/null", 9))
		return NULL;
	if (q == p || *p == '"')
		return NULL;
	for (i = 0; i < strip; i++) {
		const char *slash = memchr(p, '/', (size_t)(q - p));

		if (!slash || slash + 1 >= q)
			return NULL;
		p = slash + 1;
	}
	return prov_xstrndup(p, (size_t)(q - p));
}

static int parse_range(const char **pp, const char *e, long *start, long *count)
{
	const char *p = *pp;
	long v = 0;
	int digits = 0;

	while (p < e && isdigit((unsigned char)*p) && digits < 10) {
		v = v * 10 + (*p++ - '0');
		digits++;
	}
	if (!digits)
		return -1;
	*start = v;
	*count = 1;
	if (p < e && *p == ',') {
		p++;
		v = 0;
		digits = 0;
		while (p < e && isdigit((unsigned char)*p) && digits < 10) {
			v = v * 10 + (*p++ - '0');
			digits++;
		}
		if (!digits)
			return -1;
		*count = v;
	}
	*pp = p;
	return 0;
}

void prov_hunks_release(struct prov_hunks *h)
{
	size_t i, k;

	for (i = 0; i < h->n; i++) {
		struct prov_hunk *x = &h->v[i];

		for (k = 0; k < x->n; k++)
			free(x->lines[k]);
		free(x->lines);
		free(x->origin);
		free(x->path);
		free(x->old_path);
		free(x->header);
		free(x->function);
	}
	free(h->v);
	memset(h, 0, sizeof(*h));
}

/* One hunk from its "@@" line at *pp; 0 with *pp past it, -1 when the header is not one. */
static int parse_hunk(struct prov_hunk *x, const char **pp, const char *end)
{
	const char *p = *pp, *e = line_end(p, end), *q = p + 4, *close;
	long before, after;
	size_t alloc = 0;

	if (parse_range(&q, e, &x->old_start, &before) < 0 || q + 2 > e || strncmp(q, " +", 2))
		return -1;
	q += 2;
	if (parse_range(&q, e, &x->new_start, &after) < 0)
		return -1;
	close = q;
	while (close < e && *close == ' ')
		close++;
	if ((size_t)(e - close) < 2 || strncmp(close, "@@", 2))
		return -1;
	x->header = prov_xstrndup(p, (size_t)(close + 2 - p));
	q = close + 2;
	while (q < e && isspace((unsigned char)*q))
		q++;
	{
		const char *fe = e;

		while (fe > q && isspace((unsigned char)fe[-1]))
			fe--;
		if (fe > q)
			x->function = prov_xstrndup(q, (size_t)(fe - q) > 200 ? 200 : (size_t)(fe - q));
	}
	p = next_line(e, end);
	while (p < end && (before > 0 || after > 0) && x->n < PROV_HUNK_MAX_LINES) {
		const char *le = line_end(p, end);
		char origin = p < le ? *p : ' ';
		size_t l;

		if (origin == '\\') {
			p = next_line(le, end);
			continue;
		}
		if (origin == ' ' || p == le) {
			before--;
			after--;
		} else if (origin == '-') {
			before--;
		} else if (origin == '+') {
			after--;
		} else {
			break;	/* the hunk was cut */
		}
		l = p < le ? (size_t)(le - p - 1) : 0;
		PROV_ALLOC_GROW(x->lines, x->n + 1, alloc);
		x->origin = prov_xrealloc(x->origin, alloc);
		x->origin[x->n] = origin;
		x->lines[x->n] = prov_xstrndup(p < le ? p + 1 : p, l);
		x->n++;
		p = next_line(le, end);
	}
	if (p < end && *p == '\\')
		p = next_line(line_end(p, end), end);
	*pp = p;
	return 0;
}

void prov_hunks_parse(struct prov_hunks *out, const char *text, size_t len, int strip)
{
	const char *p = text, *end, *nul;
	char *path = NULL, *old_path = NULL;
	int have_files = 0, new_file = 0, deleted = 0;
	size_t alloc = 0;

	memset(out, 0, sizeof(*out));
	if (len > PROV_HUNKS_MAX_TEXT)
		len = PROV_HUNKS_MAX_TEXT;
	end = text + len;
	if ((nul = memchr(text, '\0', len)))
		end = nul;
	while (p < end) {
		const char *e = line_end(p, end);

		if ((size_t)(e - p) >= 4 && !strncmp(p, "--- ", 4)) {
			const char *n2 = next_line(e, end), *e2 = line_end(n2, end);

			if ((size_t)(e2 - n2) >= 4 && !strncmp(n2, "+++ ", 4)) {
				free(path);
				free(old_path);
				old_path = diff_path(p, e, strip);
				path = diff_path(n2, e2, strip);
				new_file = !old_path && (size_t)(e - p) >= 13 && !strncmp(p + 4, "/dev/null", 9);
				deleted = !path && (size_t)(e2 - n2) >= 13 && !strncmp(n2 + 4, "/dev/null", 9);
				have_files = (path || old_path) && (path || deleted) && (old_path || new_file);
				p = next_line(e2, end);
				continue;
			}
		}
		if (have_files && (size_t)(e - p) >= 4 && !strncmp(p, "@@ -", 4) && out->n < PROV_HUNKS_MAX) {
			struct prov_hunk x = { 0 };
			const char *q = p;

			if (parse_hunk(&x, &q, end) == 0) {
				x.path = prov_xstrdup(path ? path : old_path);
				x.old_path = old_path ? prov_xstrdup(old_path) : NULL;
				x.new_file = new_file;
				x.deleted_file = deleted;
				PROV_ALLOC_GROW(out->v, out->n + 1, alloc);
				out->v[out->n++] = x;
				p = q;
				continue;
			}
			free(x.header);
			free(x.function);
		}
		p = next_line(e, end);
	}
	free(path);
	free(old_path);
}

/* ---- normalised lines ---- */

/* FNV-1a over the non-blank bytes; 0 for a line that is blank only. */
static uint64_t norm_hash(const char *s, size_t len, int *alnum)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;
	int any = 0, an = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (isspace(c))
			continue;
		any = 1;
		an += isalnum(c) != 0;
		h ^= c;
		h *= 1099511628211ULL;
	}
	if (alnum)
		*alnum = an;
	if (!any)
		return 0;
	return h ? h : 1;
}

/* ---- tokens ---- */

#define MAX_TOKENS 64

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Identifiers and numbers, two-character operators, other punctuation: hashed, sorted. */
static size_t tokenize(uint32_t *out, const char *s, size_t len)
{
	static const char *const ops[] = { ">=", "<=", "==", "!=", "&&", "||", "->", "<<", ">>", "++", "--",
					   "+=", "-=", "*=", "/=", "|=", "&=", "::", NULL };
	size_t i = 0, n = 0;

	while (i < len && n < MAX_TOKENS) {
		unsigned char c = (unsigned char)s[i];
		uint32_t h = 2166136261u;
		size_t k = 1, j;

		if (isspace(c)) {
			i++;
			continue;
		}
		if (isalnum(c) || c == '_') {
			while (i + k < len && (isalnum((unsigned char)s[i + k]) || s[i + k] == '_'))
				k++;
		} else {
			for (j = 0; ops[j]; j++)
				if (i + 1 < len && s[i] == ops[j][0] && s[i + 1] == ops[j][1])
					k = 2;
		}
		for (j = 0; j < k; j++) {
			h ^= (unsigned char)s[i + j];
			h *= 16777619u;
		}
		out[n++] = h;
		i += k;
	}
	qsort(out, n, sizeof(*out), cmp_u32);
	return n;
}

/* Size of the multiset intersection of two sorted token lists. */
static size_t common(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	size_t i = 0, j = 0, c = 0;

	while (i < na && j < nb) {
		if (a[i] == b[j])
			c++, i++, j++;
		else if (a[i] < b[j])
			i++;
		else
			j++;
	}
	return c;
}

static double sim(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	return na + nb ? 2.0 * (double)common(a, na, b, nb) / (double)(na + nb) : 0.0;
}

static size_t count_of(const uint32_t *a, size_t na, uint32_t t)
{
	size_t i, c = 0;

	for (i = 0; i < na; i++)
		c += a[i] == t;
	return c;
}

static void build_vocab(struct prov_hunk_file *f)
{
	size_t i, k, n = 0, total = 0;

	for (i = 0; i < f->n; i++)
		total += f->ntok[i];
	f->vocab = prov_xmalloc((total ? total : 1) * sizeof(*f->vocab));
	for (i = 0; i < f->n; i++)
		for (k = 0; k < f->ntok[i]; k++)
			f->vocab[n++] = f->tok[i][k];
	qsort(f->vocab, n, sizeof(*f->vocab), cmp_u32);
	for (i = 0, k = 0; i < n; i++)
		if (!k || f->vocab[k - 1] != f->vocab[i])
			f->vocab[k++] = f->vocab[i];
	f->nvocab = k;
}

static int in_vocab(const struct prov_hunk_file *f, uint32_t t)
{
	return f->nvocab && bsearch(&t, f->vocab, f->nvocab, sizeof(t), cmp_u32) != NULL;
}

void prov_hunk_file_init(struct prov_hunk_file *f, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t alloc = 0, talloc = 0;
	uint32_t tmp[MAX_TOKENS];

	memset(f, 0, sizeof(*f));
	while (p < end) {
		const char *e = line_end(p, end);
		uint64_t h = norm_hash(p, (size_t)(e - p), NULL);

		if (h) {
			size_t nt = tokenize(tmp, p, (size_t)(e - p));

			PROV_ALLOC_GROW(f->hash, f->n + 1, alloc);
			if (f->n + 1 > talloc) {
				talloc = alloc;
				f->tok = prov_xrealloc(f->tok, talloc * sizeof(*f->tok));
				f->ntok = prov_xrealloc(f->ntok, talloc);
			}
			f->tok[f->n] = prov_xmalloc((nt ? nt : 1) * sizeof(**f->tok));
			memcpy(f->tok[f->n], tmp, nt * sizeof(*tmp));
			f->ntok[f->n] = (unsigned char)nt;
			f->hash[f->n++] = h;
		}
		p = next_line(e, end);
	}
	build_vocab(f);
}

void prov_hunk_file_release(struct prov_hunk_file *f)
{
	size_t i;

	free(f->vocab);
	for (i = 0; f->tok && i < f->n; i++)
		free(f->tok[i]);
	free(f->tok);
	free(f->ntok);
	free(f->hash);
	memset(f, 0, sizeof(*f));
}

const char *prov_hunk_state_name(enum prov_hunk_state s)
{
	switch (s) {
	case PROV_HUNK_PRESENT_EXACT:
		return "present-exact";
	case PROV_HUNK_PRESENT_CHANGED:
		return "present-changed-lines";
	case PROV_HUNK_ABSENT:
		return "absent";
	case PROV_HUNK_TEST_ONLY:
		return "test-only";
	default:
		return "unknown";
	}
}

/* ---- matching ---- */

#define DISTINCT_ALNUM 4	/* a line with fewer letters and digits ("}", "break;") says little */

/* The normalised sides of a hunk. */
struct sides {
	uint64_t *pre, *post, *minus, *plus;
	char *pre_ctx, *post_ctx;	/* 1: that pre/post line is context */
	unsigned char *pre_an;	/* 1: that pre line has enough letters and digits to say where */
	unsigned char *minus_d, *plus_d;	/* 1: distinctive (and not on the other side) */
	size_t npre, npost, nminus, nplus, ndminus, ndplus;
	size_t minus_first;	/* index in pre of the first - line */
	size_t plus_first;	/* index in post of the first + line */
	size_t ins_at;	/* pre lines before the first + line */
	size_t nplus_blocks;	/* runs of + lines (blank lines do not end one) */
	unsigned char *plus_an;	/* 1: that + line has enough letters and digits */
};

static int in_list(const uint64_t *v, size_t n, uint64_t h)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == h)
			return 1;
	return 0;
}

static int in_file(const struct prov_hunk_file *f, uint64_t h)
{
	return f && in_list(f->hash, f->n, h);
}

/*
 * pre, post: the fix's own file before and after it (NULL: not known): a +
 * line the file had before, or a - line it keeps after, is not distinctive.
 */
static void sides_init(struct sides *s, const struct prov_hunk *h, const struct prov_hunk_file *pre,
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
		uint64_t x = norm_hash(h->lines[i], strlen(h->lines[i]), &an);
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
		if (alnum[i] >= DISTINCT_ALNUM && !in_list(s->post, s->npost, s->minus[i]) &&
		    !in_file(post, s->minus[i]))
			s->minus_d[i] = 1, s->ndminus++;
	for (i = 0; i < s->nplus; i++)
		if (pa[i] >= DISTINCT_ALNUM && !in_list(s->pre, s->npre, s->plus[i]) && !in_file(pre, s->plus[i]))
			s->plus_d[i] = 1, s->ndplus++;
	free(alnum);
	free(pa);
}

static void sides_release(struct sides *s)
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
#define FIND_BUDGET ((size_t)50 * 1000 * 1000)
#define MAX_ANCHORS 256	/* places one hunk is tried at, per way of matching */

/* The first index >= from where seq[0..m) is in f, else SIZE_MAX. */
static size_t find_seq(const struct prov_hunk_file *f, const uint64_t *seq, size_t m, size_t from)
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

static int find_in(const struct prov_hunk_file *f, uint64_t h, size_t lo, size_t hi)
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
		if (flag[i] && find_in(f, v[i], lo, hi))
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
	for (at = find_seq(f, s->pre + lo, hi - lo, 0), k = 0; at != SIZE_MAX && k < MAX_ANCHORS;
	     at = find_seq(f, s->pre + lo, hi - lo, at + 1), k++)
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
	for (at = find_seq(f, s->minus, s->nminus, 0); at != SIZE_MAX && tries < MAX_ANCHORS;
	     at = find_seq(f, s->minus, s->nminus, at + 1), tries++)
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
		if (count_of(l, nl, r->nt[k]) < 1)
			return 0;	/* a token new to the file is not there */
	if (r->kind == 1)
		return sim(l, nl, r->pt, r->np) >= 0.75;
	if (r->kind == 2)
		return sim(l, nl, r->mt, r->nm) >= 0.9;
	sp = sim(l, nl, r->pt, r->np);
	sm = sim(l, nl, r->mt, r->nm);
	if (sp < 0.7 || sp <= sm)
		return 0;
	if (5 * common(l, nl, r->pt, r->np) < 4 * r->np)
		return 0;	/* most of the + line's tokens are there, not a few of them on a short line */
	for (k = 0; k < r->np; k++) {
		size_t cp = count_of(r->pt, r->np, r->pt[k]), cm = count_of(r->mt, r->nm, r->pt[k]);

		if (cp > cm && count_of(l, nl, r->pt[k]) < 1)
			return 0;	/* a token the fix adds is not there */
	}
	for (k = 0; k < r->nm; k++) {
		size_t cp = count_of(r->pt, r->np, r->mt[k]), cm = count_of(r->mt, r->nm, r->mt[k]);

		if (cm > cp && count_of(l, nl, r->mt[k]) > cp)
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
				r->nm = tokenize(r->mt, h->lines[m0 + j], strlen(h->lines[m0 + j]));
			if (j < b) {
				r->np = tokenize(r->pt, h->lines[p0 + j], strlen(h->lines[p0 + j]));
				norm_hash(h->lines[p0 + j], strlen(h->lines[p0 + j]), &an);
			} else {
				norm_hash(h->lines[m0 + j], strlen(h->lines[m0 + j]), &an);
			}
			r->kind = j < a && j < b ? 0 : j < b ? 1 : 2;
			if (an < DISTINCT_ALNUM || (!r->nm && !r->np))
				continue;	/* says little */
			if (pre && j < b) {
				size_t t;

				for (t = 0; t < r->np; t++)
					if (!in_vocab(pre, r->pt[t]) && (!t || r->pt[t] != r->pt[t - 1]))
						r->nt[r->nnew++] = r->pt[t];
				/* a line the file had before the fix, or one made of its
				 * tokens only, is there with or without the fix */
				if (in_file(pre, norm_hash(h->lines[p0 + j], strlen(h->lines[p0 + j]), NULL)) ||
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

	for (at = find_seq(f, s->pre, s->npre, 0), k = 0; at != SIZE_MAX && k < MAX_ANCHORS;
	     at = find_seq(f, s->pre, s->npre, at + 1), k++)
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

	if (post && find_seq(post, s->pre, s->npre, 0) != SIZE_MAX)
		return 0;
	return !pre || (at = find_seq(pre, s->pre, s->npre, 0)) == SIZE_MAX ||
	       find_seq(pre, s->pre, s->npre, at + 1) == SIZE_MAX;
}

/* 1 when the pre-image is somewhere in f not inside an occurrence of the post-image. */
static int pre_outside_post(const struct prov_hunk_file *f, const struct sides *s)
{
	size_t at, q, k, j;

	for (at = find_seq(f, s->pre, s->npre, 0), k = 0; at != SIZE_MAX && k < MAX_ANCHORS;
	     at = find_seq(f, s->pre, s->npre, at + 1), k++) {
		int inside = 0;

		for (q = find_seq(f, s->post, s->npost, 0), j = 0; q != SIZE_MAX && j < MAX_ANCHORS && !inside;
		     q = find_seq(f, s->post, s->npost, q + 1), j++)
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
		if (h->origin[i] != '+' && norm_hash(h->lines[i], strlen(h->lines[i]), NULL) && !k--)
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
	na = tokenize(ta, la, strlen(la));
	nb = tokenize(tb, lb, strlen(lb));
	for (i = 0; i + 1 < f->n; i++) {
		int a = f->hash[i] == s->pre[s->ins_at - 1], b = f->hash[i + 1] == s->pre[s->ins_at];

		if (a == b)
			continue;	/* both exact: unique_pair's; neither: not here */
		if (a ? !(sim(f->tok[i + 1], f->ntok[i + 1], tb, nb) >= 0.8 &&
			  common(f->tok[i + 1], f->ntok[i + 1], tb, nb) + 1 >= nb)
		      : !(sim(f->tok[i], f->ntok[i], ta, na) >= 0.8 && common(f->tok[i], f->ntok[i], ta, na) + 1 >= na))
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

	if (!f->tok || (sm = sim(f->tok[j], f->ntok[j], tok, n)) < 0.8)
		return 0;
	for (k = 0; k < nplus; k++)
		if (sim(f->tok[j], f->ntok[j], ptok[k], np[k]) >= sm)
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

		if (!norm_hash(h->lines[i], len, NULL))
			continue;
		if (h->origin[i] == '-')
			c.nm[m] = tokenize(c.mtok[m], h->lines[i], len), m++;
		else if (h->origin[i] == '+')
			c.np[p] = tokenize(c.ptok[p], h->lines[i], len), p++;
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
		x = norm_hash(h->lines[i], strlen(h->lines[i]), &an);
		if (!x || an < DISTINCT_ALNUM)
			continue;
		for (j = 0; j < f->n; j++)
			if (f->hash[j] == x)
				return 0;
		if (h->origin[i] != '-')
			continue;
		nt = tokenize(t, h->lines[i], strlen(h->lines[i]));
		for (j = 0; f->tok && j < f->n; j++)
			if (sim(f->tok[j], f->ntok[j], t, nt) >= 0.8)
				return 0;
	}
	return 1;
}

static int same_seq(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
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
	sides_init(&s, h, pre, post);
	if (h->deleted_file) {
		/* the whole file removed: still there is absent */
		st = find_seq(f, s.pre, s.npre, 0) != SIZE_MAX ? PROV_HUNK_ABSENT : PROV_HUNK_UNKNOWN;
		goto done;
	}
	if (h->new_file && !s.npost) {
		st = PROV_HUNK_PRESENT_EXACT;
		goto done;
	}
	post_at = find_seq(f, s.post, s.npost, 0) != SIZE_MAX;
	pre_at = s.npre && find_seq(f, s.pre, s.npre, 0) != SIZE_MAX;
	if (same_seq(s.pre, s.npre, s.post, s.npost)) {
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
	sides_release(&s);
	return st;
}

#define LIKE_PLUS 0.7	/* token similarity of a line like a + line */

/* Lines of f like line tok[0..n) (token similarity LIKE_PLUS). */
static size_t like_count(const struct prov_hunk_file *f, const uint32_t *tok, size_t n)
{
	size_t j, c = 0;

	for (j = 0; f->tok && j < f->n; j++)
		c += sim(f->tok[j], f->ntok[j], tok, n) >= LIKE_PLUS;
	return c;
}

/* Places in f where line pre[l1] is followed by pre[l2], with only lines of pre(l1, l2) (none saying where) between, at most gap + 2 of them. */
static size_t anchor_places(const struct prov_hunk_file *f, const struct sides *s, size_t l1, size_t l2)
{
	size_t i, j, c = 0, gap = l2 - l1 - 1;

	for (i = 0; i < f->n && c < 2; i++) {
		if (f->hash[i] != s->pre[l1])
			continue;
		for (j = i + 1; j < f->n && j - i - 1 <= gap + 2; j++) {
			if (f->hash[j] == s->pre[l2]) {
				c++;
				break;
			}
			if (!in_list(s->pre + l1 + 1, gap, f->hash[j]))
				break;
		}
	}
	return c;
}

int prov_hunk_addition_absent_in(const struct prov_hunk *h, const struct prov_hunk_file *fd,
				 const struct prov_hunk_file *fpre, const struct prov_hunk_file *pre,
				 const struct prov_hunk_file *post)
{
	struct sides s;
	size_t l1 = SIZE_MAX, l2 = SIZE_MAX, k, i, p;
	int ok = 0;

	sides_init(&s, h, pre, post);
	if (s.nminus || !s.nplus || s.nplus_blocks != 1 || !s.ndplus || s.ins_at == SIZE_MAX || !s.ins_at ||
	    s.ins_at >= s.npre || h->n > PROV_HUNK_FUZZY_MAX)
		goto done;
	for (k = s.ins_at; k-- > 0 && l1 == SIZE_MAX;)
		if (s.pre_an[k])
			l1 = k;
	for (k = s.ins_at; k < s.npre && l2 == SIZE_MAX; k++)
		if (s.pre_an[k])
			l2 = k;
	if (l1 == SIZE_MAX || l2 == SIZE_MAX || anchor_places(fd, &s, l1, l2) != 1 ||
	    anchor_places(fpre, &s, l1, l2) != 1)
		goto done;
	ok = 1;
	for (i = 0, p = 0; ok && i < h->n; i++) {
		uint32_t t[MAX_TOKENS];
		size_t nt;

		if (h->origin[i] != '+' || !norm_hash(h->lines[i], strlen(h->lines[i]), NULL))
			continue;
		if (s.plus_d[p]) {
			nt = tokenize(t, h->lines[i], strlen(h->lines[i]));
			ok = !find_in(fd, s.plus[p], 0, fd->n) && like_count(fd, t, nt) <= like_count(fpre, t, nt);
		}
		p++;
	}
done:
	sides_release(&s);
	return ok;
}

#define IMAGE_MIN_LINES 3	/* lines that say where an image of a hunk looked for in any file must have */

int prov_hunk_image_count(const struct prov_hunk *h, const struct prov_hunk_file *f, int post)
{
	struct sides s;
	const uint64_t *img;
	size_t n, i, an = 0, at, count = 0;

	sides_init(&s, h, NULL, NULL);
	img = post ? s.post : s.pre;
	n = post ? s.npost : s.npre;
	for (i = 0; i < h->n; i++) {
		int a = 0;

		if (h->origin[i] != (post ? '-' : '+') && norm_hash(h->lines[i], strlen(h->lines[i]), &a) &&
		    a >= DISTINCT_ALNUM)
			an++;
	}
	if (an < IMAGE_MIN_LINES || same_seq(s.pre, s.npre, s.post, s.npost)) {
		sides_release(&s);
		return -1;
	}
	for (at = find_seq(f, img, n, 0); at != SIZE_MAX && count < 2; at = find_seq(f, img, n, at + 1))
		count++;
	sides_release(&s);
	return (int)count;
}

size_t prov_hunk_image_key(const struct prov_hunk *h, int post, const char **key)
{
	size_t i, best = 0;

	*key = NULL;
	for (i = 0; i < h->n; i++) {
		const char *p = h->lines[i];

		if (h->origin[i] == (post ? '-' : '+'))
			continue;
		while (*p) {
			size_t k = 0;

			while (*p && isspace((unsigned char)*p))
				p++;
			while (p[k] && !isspace((unsigned char)p[k]))
				k++;
			if (k > best) {
				best = k;
				*key = p;
			}
			p += k;
		}
	}
	return best;
}

int prov_hunk_carries(const struct prov_hunk *patch, const struct prov_hunk *fix)
{
	struct sides p, x;
	size_t i, checked = 0;
	int ok = 1, strict;

	sides_init(&p, patch, NULL, NULL);
	sides_init(&x, fix, NULL, NULL);
	strict = !x.ndplus && !x.ndminus;
	for (i = 0; ok && i < x.nplus; i++)
		if (strict || x.plus_d[i]) {
			checked++;
			ok = in_list(p.plus, p.nplus, x.plus[i]);
		}
	for (i = 0; ok && i < x.nminus; i++)
		if (strict || x.minus_d[i]) {
			checked++;
			ok = in_list(p.minus, p.nminus, x.minus[i]);
		}
	sides_release(&p);
	sides_release(&x);
	if (ok && checked)
		return 1;
	/* changed a little: the fix's effect on the patch's post-image */
	{
		struct prov_buf post = PROV_BUF_INIT;
		struct prov_hunk_file f;
		enum prov_hunk_state st;
		int adds = 0;

		for (i = 0; i < patch->n; i++)
			if (patch->origin[i] != '-') {
				adds |= patch->origin[i] == '+';
				prov_buf_puts(&post, patch->lines[i]);
				prov_buf_putc(&post, '\n');
			}
		prov_hunk_file_init(&f, post.buf ? post.buf : "", post.len);
		st = adds ? prov_hunk_match(fix, &f) : PROV_HUNK_UNKNOWN;
		prov_hunk_file_release(&f);
		prov_buf_release(&post);
		return st == PROV_HUNK_PRESENT_EXACT || st == PROV_HUNK_PRESENT_CHANGED;
	}
}

/* The normalised hashes of the non-blank lines with origin o of hunks v[0..n) (or w[0..n)), sorted; *out_n. */
static uint64_t *origin_hashes(const struct prov_hunk *const *v, const struct prov_hunk *w, size_t n, char o,
			       size_t *out_n)
{
	size_t k, i, m = 0, cap = 0;
	uint64_t *h = NULL;

	for (k = 0; k < n; k++) {
		const struct prov_hunk *x = v ? v[k] : &w[k];

		for (i = 0; i < x->n; i++) {
			uint64_t y;

			if (x->origin[i] != o || !(y = norm_hash(x->lines[i], strlen(x->lines[i]), NULL)))
				continue;
			PROV_ALLOC_GROW(h, m + 1, cap);
			h[m++] = y;
		}
	}
	if (m)
		qsort(h, m, sizeof(*h), cmp_u64);
	*out_n = m;
	return h;
}

static int in_sorted(const uint64_t *v, size_t n, uint64_t x)
{
	return n && bsearch(&x, v, n, sizeof(x), cmp_u64) != NULL;
}

int prov_hunk_removes_added(const struct prov_hunk *const *later, size_t n, const struct prov_hunk *fix)
{
	struct sides x;
	size_t i, found = 0, missed = 0, nm;
	uint64_t *minus = origin_hashes(later, NULL, n, '-', &nm);
	int strict;

	sides_init(&x, fix, NULL, NULL);
	strict = !x.ndplus;	/* no distinctive + line: every one that says something */
	for (i = 0; missed < 2 && i < x.nplus; i++)
		if (strict ? x.plus_an[i] : x.plus_d[i]) {
			if (in_sorted(minus, nm, x.plus[i]))
				found++;
			else
				missed++;
		}
	sides_release(&x);
	free(minus);
	/* one may have been changed in between by another patch, when three others are removed;
	 * a lone common line ("free(cp);") is removed in many places */
	return found && (!strict || found >= 2) && (!missed || (missed == 1 && found >= 3));
}

/* A line that is a comment only: a "//" line, a C comment with nothing after its end, or a block comment's "* ..." line. */
static int comment_line(const char *l)
{
	const char *e;

	l += strspn(l, " \t");
	if (!strncmp(l, "//", 2))
		return 1;
	if (!strncmp(l, "/*", 2)) {
		if (!(e = strstr(l + 2, "*/")))
			return 1;
		e += 2;
		return e[strspn(e, " \t\r")] == '\0';
	}
	return l[0] == '*' && (l[1] == '\0' || l[1] == ' ' || l[1] == '\t' || l[1] == '/' || l[1] == '*' || l[1] == '\r');
}

int prov_hunk_restores_removed(const struct prov_hunk *later, size_t n, const struct prov_hunk *fix)
{
	size_t i, want = 0, found = 0, np;
	uint64_t *plus = origin_hashes(NULL, later, n, '+', &np);

	for (i = 0; i < fix->n; i++) {
		int an = 0;
		uint64_t x;

		if (fix->origin[i] != '-' || !(x = norm_hash(fix->lines[i], strlen(fix->lines[i]), &an)) ||
		    an < DISTINCT_ALNUM)
			continue;
		want++;
		found += in_sorted(plus, np, x);
	}
	free(plus);
	return want ? found == want : !np;
}

#define MAX_NEW_NAMES 32
#define NEW_NAME_MIN 4	/* shorter names ("len", "i") are everywhere */

/* The names (identifiers of NEW_NAME_MIN bytes or more, hashed like tokenize) of line l not in pre's vocabulary. */
static size_t new_names(uint32_t *out, size_t n, size_t max, const char *l, const struct prov_hunk_file *pre)
{
	const char *p = l;

	while (*p && n < max) {
		const char *q = p;
		uint32_t h = 2166136261u;
		size_t k;

		if (!(isalpha((unsigned char)*p) || *p == '_')) {
			p++;
			continue;
		}
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		for (k = 0; p + k < q; k++) {
			h ^= (unsigned char)p[k];
			h *= 16777619u;
		}
		if ((size_t)(q - p) >= NEW_NAME_MIN && !in_vocab(pre, h)) {
			for (k = 0; k < n && out[k] != h; k++)
				;
			if (k == n)
				out[n++] = h;
		}
		p = q;
	}
	return n;
}

int prov_hunk_names_added_by(const struct prov_hunk *fix, const struct prov_hunk_file *pre,
			     const struct prov_hunk *const *by, size_t nby)
{
	uint32_t want[MAX_NEW_NAMES], have[MAX_NEW_NAMES];
	size_t nw = 0, i, k, j;
	int all;

	if (!pre || !pre->nvocab)
		return 0;
	for (i = 0; i < fix->n; i++)
		if (fix->origin[i] == '+')
			nw = new_names(want, nw, MAX_NEW_NAMES, fix->lines[i], pre);
	if (nw < 2)
		return 0;	/* one new name says little */
	memset(have, 0, sizeof(have));
	for (k = 0; k < nby; k++)
		for (j = 0; j < by[k]->n; j++) {
			uint32_t t[MAX_TOKENS];
			size_t nt, a, b;

			if (by[k]->origin[j] != '+')
				continue;
			nt = tokenize(t, by[k]->lines[j], strlen(by[k]->lines[j]));
			for (a = 0; a < nw; a++)
				for (b = 0; b < nt && !have[a]; b++)
					have[a] = t[b] == want[a];
		}
	for (i = 0, all = 1; i < nw && all; i++)
		all = have[i] != 0;
	return all;
}

#define OWN_NAME_MIN 8	/* a name long enough to be the fix's own mechanism ("user_was_default") */

int prov_hunk_names_nowhere(const struct prov_hunk *fix, const struct prov_hunk_file *pre,
			    const struct prov_hunk_file *f, const struct prov_hunk *const *by, size_t nby)
{
	uint32_t want[MAX_NEW_NAMES];
	size_t nw = 0, i, k, j, a, nlong = 0;

	if (!pre || !pre->nvocab || !f)
		return 0;
	for (i = 0; i < fix->n; i++)
		if (fix->origin[i] == '+') {
			const char *p = fix->lines[i];

			nw = new_names(want, nw, MAX_NEW_NAMES, p, pre);
			while (*p) {	/* is one of them long? */
				size_t len = 0;

				while (isalnum((unsigned char)p[len]) || p[len] == '_')
					len++;
				nlong += len >= OWN_NAME_MIN;
				p += len ? len : 1;
			}
		}
	if (!nw || !nlong)
		return 0;
	for (a = 0; a < nw; a++) {
		if (in_vocab(f, want[a]))
			return 0;	/* the deployed file has it */
		for (k = 0; k < nby; k++)
			for (j = 0; j < by[k]->n; j++) {
				uint32_t t[MAX_TOKENS];
				size_t nt, b;

				if (by[k]->origin[j] != '+')
					continue;
				nt = tokenize(t, by[k]->lines[j], strlen(by[k]->lines[j]));
				for (b = 0; b < nt; b++)
					if (t[b] == want[a])
						return 0;
			}
	}
	return 1;
}

int prov_hunk_blanks_only(const struct prov_hunk *h)
{
	struct sides s;
	size_t i;
	int changed = 0, same;

	for (i = 0; i < h->n && !changed; i++)
		changed = h->origin[i] != ' ';
	sides_init(&s, h, NULL, NULL);
	same = same_seq(s.pre, s.npre, s.post, s.npost);
	sides_release(&s);
	return changed && same;
}

int prov_hunk_comments_only(const struct prov_hunk *h)
{
	size_t i, changed = 0;

	for (i = 0; i < h->n; i++) {
		if (h->origin[i] == ' ' || !norm_hash(h->lines[i], strlen(h->lines[i]), NULL))
			continue;
		if (!comment_line(h->lines[i]))
			return 0;
		changed++;
	}
	return changed > 0;
}

int prov_hunk_is_doc_path(const char *path)
{
	static const char *const names[] = { "NEWS", "ChangeLog", "CHANGES", "CHANGELOG", "RELEASE-NOTES",
					     "RELEASE_NOTES", "README", "THANKS", "AUTHORS", "TODO", NULL };
	static const char *const dirs[] = { "doc", "docs", "man", NULL };
	static const char *const exts[] = { ".md", ".rst", ".adoc", ".html", ".1", ".3", ".5", ".8", NULL };
	const char *p = path, *base = prov_basename(path);
	size_t i, bl = strlen(base);

	for (i = 0; names[i]; i++)
		if (!strncmp(base, names[i], strlen(names[i])) &&
		    (!base[strlen(names[i])] || base[strlen(names[i])] == '.'))
			return 1;
	for (i = 0; exts[i]; i++)
		if (bl > strlen(exts[i]) && !strcasecmp(base + bl - strlen(exts[i]), exts[i]))
			return 1;
	while (p < base) {
		size_t l = strcspn(p, "/");

		for (i = 0; dirs[i]; i++)
			if (l == strlen(dirs[i]) && !strncmp(p, dirs[i], l))
				return 1;
		p += l;
		p += strspn(p, "/");
	}
	return 0;
}

int prov_hunk_is_test_path(const char *path)
{
	static const char *const dirs[] = { "test", "tests", "testsuite", "testing", "unittests", "unittest", NULL };
	const char *p = path, *base = prov_basename(path);
	size_t i;

	while (p < base) {
		size_t l = strcspn(p, "/");

		for (i = 0; dirs[i]; i++)
			if (l == strlen(dirs[i]) && !strncasecmp(p, dirs[i], l))
				return 1;
		p += l;
		p += strspn(p, "/");
	}
	if (!strncasecmp(base, "test_", 5) || !strncasecmp(base, "test-", 5) || strstr(base, "_test.") ||
	    strstr(base, "_tests.") || strstr(base, "-test.") ||
	    (strlen(base) > 5 && !strcmp(base + strlen(base) - 5, ".test")))
		return 1;
	return 0;
}
