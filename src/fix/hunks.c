/* A diff's hunks, and files and lines normalised and tokenised for matching them. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "hunks.h"
#include "hunks-int.h"
#include "udiff.h"
#include "util.h"
#include "banned.h"

/* ---- parsing (src/util/udiff.c reads the diff) ---- */

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

static const char *next_line(const char *e, const char *end)
{
	return e < end ? e + 1 : end;
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

/* The lines of the hunk the reader is at, into x; the reader is left past them. */
static void read_hunk(struct prov_hunk *x, struct prov_udiff *d)
{
	size_t alloc = 0;
	int ev;

	x->header = prov_xstrndup(d->line, d->header_len);
	if (d->function)
		x->function = prov_xstrndup(d->function, d->function_len > 200 ? 200 : d->function_len);
	x->old_start = d->old_start;
	x->new_start = d->new_start;
	while (d->in_hunk) {
		if (x->n >= PROV_HUNK_MAX_LINES) {
			prov_udiff_end_hunk(d);	/* the rest is read as if outside the hunk */
			break;
		}
		ev = prov_udiff_next(d);
		if (ev == PROV_UDIFF_LINE) {
			PROV_ALLOC_GROW(x->lines, x->n + 1, alloc);
			x->origin = prov_xrealloc(x->origin, alloc);
			x->origin[x->n] = d->origin;
			x->lines[x->n] = prov_xstrndup(d->text, d->text_len);
			x->n++;
		} else if (ev != PROV_UDIFF_NOEOL) {
			break;	/* the hunk was cut: that line is read again */
		}
	}
}

void prov_hunks_parse(struct prov_hunks *out, const char *text, size_t len, int strip)
{
	struct prov_udiff d;
	size_t alloc = 0;
	int ev;

	memset(out, 0, sizeof(*out));
	if (len > PROV_HUNKS_MAX_TEXT)
		len = PROV_HUNKS_MAX_TEXT;
	prov_udiff_init(&d, text, len, strip, 0);
	while ((ev = prov_udiff_next(&d)) != PROV_UDIFF_END) {
		struct prov_hunk x = { 0 };

		if (ev != PROV_UDIFF_HUNK)
			continue;
		if (out->n >= PROV_HUNKS_MAX) {
			prov_udiff_end_hunk(&d);
			continue;
		}
		read_hunk(&x, &d);
		x.path = prov_xstrdup(d.new_path ? d.new_path : d.old_path);
		x.old_path = d.old_path ? prov_xstrdup(d.old_path) : NULL;
		x.new_file = d.new_file;
		x.deleted_file = d.deleted_file;
		PROV_ALLOC_GROW(out->v, out->n + 1, alloc);
		out->v[out->n++] = x;
	}
	prov_udiff_release(&d);
}

/* ---- normalised lines ---- */

/* FNV-1a over the non-blank bytes; 0 for a line that is blank only. */
uint64_t hk_norm_hash(const char *s, size_t len, int *alnum)
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


static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int hk_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Identifiers and numbers, two-character operators, other punctuation: hashed, sorted. */
size_t hk_tokenize(uint32_t *out, const char *s, size_t len)
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
size_t hk_common(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
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

double hk_sim(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	return na + nb ? 2.0 * (double)hk_common(a, na, b, nb) / (double)(na + nb) : 0.0;
}

size_t hk_count_of(const uint32_t *a, size_t na, uint32_t t)
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

int hk_in_vocab(const struct prov_hunk_file *f, uint32_t t)
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
		uint64_t h = hk_norm_hash(p, (size_t)(e - p), NULL);

		if (h) {
			size_t nt = hk_tokenize(tmp, p, (size_t)(e - p));

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
