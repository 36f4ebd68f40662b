/* A hunk's change found with its lines re-wrapped: C token streams compared, blanks and line breaks ignored. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "hunks.h"
#include "hunks-int.h"
#include "banned.h"

#define REWRAP_MAX_BLOCKS 16	/* change blocks per hunk compared this way */
#define REWRAP_MIN_TOKENS 5	/* a + block with fewer says little */

struct toks {
	uint64_t *v;
	size_t n, alloc;
};

static void toks_push(struct toks *t, uint64_t x)
{
	PROV_ALLOC_GROW(t->v, t->n + 1, t->alloc);
	t->v[t->n++] = x;
}

/*
 * The C tokens of s[0..len) appended to t, hashed: identifiers and numbers,
 * string and character literals whole (their blanks kept), the operators of
 * two or three characters, other punctuation one by one; blanks, line breaks
 * and comments left out. *words (may be NULL) counts identifiers, numbers and
 * literals of 4 bytes or more.
 */
static void c_tokens(struct toks *t, const char *s, size_t len, size_t *words)
{
	static const char *const ops3[] = { "<<=", ">>=", "...", "->*", NULL };
	static const char *const ops2[] = { ">=", "<=", "==", "!=", "&&", "||", "->", "<<", ">>", "++", "--", "+=",
					    "-=", "*=", "/=", "%=", "|=", "&=", "^=", "::", "##", NULL };
	size_t i = 0, k, j;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		uint64_t h = 1469598103934665603ULL;

		if (isspace(c)) {
			i++;
			continue;
		}
		if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			const char *e = NULL;

			if (i + 2 < len)
				e = memmem(s + i + 2, len - i - 2, "*/", 2);
			i = e ? (size_t)(e - s) + 2 : len;
			continue;
		}
		if (c == '/' && i + 1 < len && s[i + 1] == '/') {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		k = 1;
		if (isalnum(c) || c == '_') {
			while (i + k < len && (isalnum((unsigned char)s[i + k]) || s[i + k] == '_'))
				k++;
		} else if (c == '"' || c == '\'') {
			while (i + k < len && s[i + k] != c && s[i + k] != '\n')
				k += s[i + k] == '\\' && i + k + 1 < len ? 2 : 1;
			if (i + k < len && s[i + k] == c)
				k++;
		} else {
			for (j = 0; ops3[j] && k == 1; j++)
				if (i + 2 < len && !memcmp(s + i, ops3[j], 3))
					k = 3;
			for (j = 0; ops2[j] && k == 1; j++)
				if (i + 1 < len && !memcmp(s + i, ops2[j], 2))
					k = 2;
		}
		if (k > len - i)
			k = len - i;
		if (words && k >= 4 && (isalnum(c) || c == '_' || c == '"' || c == '\''))
			(*words)++;
		for (j = 0; j < k; j++)
			h = (h ^ (unsigned char)s[i + j]) * 1099511628211ULL;
		toks_push(t, h);
		i += k;
	}
}

/* KMP failure table of p[0..m). */
static void kmp_table(size_t *fail, const uint64_t *p, size_t m)
{
	size_t i, k = 0;

	fail[0] = 0;
	for (i = 1; i < m; i++) {
		while (k && p[i] != p[k])
			k = fail[k - 1];
		if (p[i] == p[k])
			k++;
		fail[i] = k;
	}
}

/*
 * Occurrences of p[0..m) in x[from..n) (counting stops at 2); *first: where
 * the first one starts. Linear in n - from + m.
 */
static int kmp_find(const uint64_t *x, size_t n, size_t from, const uint64_t *p, size_t m, size_t *first)
{
	size_t *fail, i, k = 0;
	int count = 0;

	if (!m || m > n)
		return 0;
	fail = prov_xcalloc(m, sizeof(*fail));
	kmp_table(fail, p, m);
	for (i = from; i < n && count < 2; i++) {
		while (k && x[i] != p[k])
			k = fail[k - 1];
		if (x[i] == p[k])
			k++;
		if (k == m) {
			if (!count++)
				*first = i + 1 - m;
			k = fail[k - 1];
		}
	}
	free(fail);
	return count;
}

struct block {
	struct toks plus, minus;
	size_t words;
};

/* The hunk's change blocks (a run of - lines then + lines), each side as one token stream. */
static size_t hunk_blocks(struct block *b, const struct prov_hunk *h)
{
	size_t i = 0, n = 0;

	while (i < h->n && n <= REWRAP_MAX_BLOCKS) {
		if (h->origin[i] == ' ') {
			i++;
			continue;
		}
		if (n == REWRAP_MAX_BLOCKS)
			return REWRAP_MAX_BLOCKS + 1;
		memset(&b[n], 0, sizeof(b[n]));
		for (; i < h->n && h->origin[i] == '-'; i++) {
			c_tokens(&b[n].minus, h->lines[i], strlen(h->lines[i]), NULL);
		}
		for (; i < h->n && h->origin[i] == '+'; i++)
			c_tokens(&b[n].plus, h->lines[i], strlen(h->lines[i]), &b[n].words);
		n++;
	}
	return n;
}

int prov_hunk_rewrapped(const struct prov_hunk *h, const char *text, size_t len, const char *pre, size_t pre_len)
{
	struct block b[REWRAP_MAX_BLOCKS];
	struct toks x = { 0 }, p = { 0 };
	size_t nb, k, pos = 0, at = 0, distinct = 0;
	size_t *span_lo, *span_hi;
	int ok = 0;

	if (!h->n || h->n > PROV_HUNK_FUZZY_MAX || h->new_file || h->deleted_file || !text)
		return 0;
	memset(b, 0, sizeof(b));
	nb = hunk_blocks(b, h);
	if (!nb || nb > REWRAP_MAX_BLOCKS) {
		nb = nb > REWRAP_MAX_BLOCKS ? REWRAP_MAX_BLOCKS : nb;
		goto cleanup;
	}
	c_tokens(&x, text, len, NULL);
	if (pre)
		c_tokens(&p, pre, pre_len, NULL);
	span_lo = prov_xcalloc(nb, sizeof(*span_lo));
	span_hi = prov_xcalloc(nb, sizeof(*span_hi));
	ok = 1;
	/* every + block, in order, each after the last; one that says something
	 * is there once, and not already in the fix's file before it */
	for (k = 0; k < nb && ok; k++) {
		int says = b[k].plus.n >= REWRAP_MIN_TOKENS && b[k].words;

		if (!b[k].plus.n) {
			span_lo[k] = span_hi[k] = pos;
			continue;
		}
		if (says && kmp_find(p.v, p.n, 0, b[k].plus.v, b[k].plus.n, &at) > 0)
			says = 0;	/* there with or without the fix: no evidence */
		if (says && kmp_find(x.v, x.n, 0, b[k].plus.v, b[k].plus.n, &at) != 1) {
			ok = 0;
			break;
		}
		if (kmp_find(x.v, x.n, pos, b[k].plus.v, b[k].plus.n, &at) < 1) {
			ok = 0;
			break;
		}
		distinct += says;
		span_lo[k] = at;
		pos = span_hi[k] = at + b[k].plus.n;
	}
	/* no - block still there as a stream, outside the + blocks found */
	for (k = 0; k < nb && ok; k++) {
		size_t from = 0, q, tries = 0;

		if (!b[k].minus.n)
			continue;
		while (ok && kmp_find(x.v, x.n, from, b[k].minus.v, b[k].minus.n, &at) > 0) {
			int inside = 0;

			if (++tries > REWRAP_MAX_BLOCKS) {
				ok = 0;	/* found that often: which one is it? */
				break;
			}

			for (q = 0; q < nb && !inside; q++)
				inside = at >= span_lo[q] && at + b[k].minus.n <= span_hi[q];
			ok = inside;
			from = at + 1;
		}
	}
	ok = ok && distinct > 0;
	free(span_lo);
	free(span_hi);
cleanup:
	for (k = 0; k < nb; k++) {
		free(b[k].plus.v);
		free(b[k].minus.v);
	}
	free(x.v);
	free(p.v);
	return ok;
}
