/* Identifiers a release spells another way than the fix's own file, learnt from the two texts. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "renames.h"
#include "util.h"
#include "banned.h"

#define IDS_PER_LINE 4	/* identifiers one file lacks, per line paired */
#define MAX_TEXT_LINES 200000

static int id_start(int c)
{
	return isalpha(c) || c == '_';
}

static int id_char(int c)
{
	return isalnum(c) || c == '_';
}

/* The next identifier at or after *p (numbers skipped whole); 0 at the end. */
static size_t next_id(const char **p, const char *end, const char **id)
{
	const char *s = *p;

	while (s < end) {
		unsigned char c = (unsigned char)*s;

		if (id_start(c)) {
			const char *e = s;

			while (e < end && id_char((unsigned char)*e))
				e++;
			*id = s;
			*p = e;
			return (size_t)(e - s);
		}
		if (isdigit(c)) {
			while (s < end && (id_char((unsigned char)*s) || *s == '.'))
				s++;
			continue;
		}
		s++;
	}
	*p = end;
	return 0;
}

static uint64_t id_hash(const char *s, size_t n)
{
	uint64_t h = prov_hash_bytes(s, n);

	return h ? h : 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every identifier of a text, hashed, sorted, once each. */
static uint64_t *vocab(const char *t, size_t len, size_t *n)
{
	const char *p = t, *end = t + len, *id;
	uint64_t *v = NULL;
	size_t k, alloc = 0, m = 0, i;

	while ((k = next_id(&p, end, &id))) {
		PROV_ALLOC_GROW(v, m + 1, alloc);
		v[m++] = id_hash(id, k);
	}
	if (!v)
		v = prov_xmalloc(sizeof(*v));
	qsort(v, m, sizeof(*v), cmp_u64);
	for (i = 0, k = 0; i < m; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	*n = k;
	return v;
}

static int in_vocab(const uint64_t *v, size_t n, uint64_t h)
{
	return n && bsearch(&h, v, n, sizeof(h), cmp_u64) != NULL;
}

/* A line with identifiers its file's counterpart lacks: its skeleton (those in order as placeholders). */
struct skel {
	uint64_t hash;
	const char *id[IDS_PER_LINE];
	size_t idlen[IDS_PER_LINE], nid;
};

/*
 * The lines of t with 1 to IDS_PER_LINE identifiers that `other` lacks
 * and 4 letters or digits besides, as skeletons: blanks removed, each of
 * those identifiers one placeholder.
 */
static struct skel *skeletons(const char *t, size_t len, const uint64_t *other, size_t nother, size_t *n)
{
	const char *p = t, *end = t + len;
	struct skel *v = NULL;
	size_t m = 0, alloc = 0, lines = 0;

	while (p < end && lines++ < MAX_TEXT_LINES) {
		const char *e = memchr(p, '\n', (size_t)(end - p)), *q;
		struct skel s;
		uint64_t h = 1469598103934665603ULL;
		size_t alnum = 0, nall = 0;

		if (!e)
			e = end;
		memset(&s, 0, sizeof(s));
		for (q = p; q < e;) {
			unsigned char c = (unsigned char)*q;
			size_t k = 1;
			int placeholder = 0;

			if (isspace(c)) {
				q++;
				continue;
			}
			if (id_start(c) && (q == p || !id_char((unsigned char)q[-1]))) {
				while (q + k < e && id_char((unsigned char)q[k]))
					k++;
				if (!in_vocab(other, nother, id_hash(q, k))) {
					placeholder = 1;
					if (s.nid < IDS_PER_LINE) {
						s.id[s.nid] = q;
						s.idlen[s.nid] = k;
					}
					nall++;
					s.nid++;
				}
			} else if (id_char(c)) {
				while (q + k < e && id_char((unsigned char)q[k]))
					k++;
			}
			if (placeholder) {
				h ^= 1;
				h *= 1099511628211ULL;
			} else {
				size_t j;

				for (j = 0; j < k; j++) {
					h ^= (unsigned char)q[j];
					h *= 1099511628211ULL;
					alnum += isalnum((unsigned char)q[j]) != 0;
				}
			}
			q += k;
		}
		if (nall && nall <= IDS_PER_LINE && alnum >= 4) {
			s.hash = h ? h : 1;
			PROV_ALLOC_GROW(v, m + 1, alloc);
			v[m++] = s;
		}
		p = e + 1;
	}
	*n = m;
	return v;
}

static int cmp_skel(const void *a, const void *b)
{
	const struct skel *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

struct pair {
	const char *a, *b;
	size_t alen, blen;
	int bad;
};

static int same_id(const char *x, size_t xl, const char *y, size_t yl)
{
	return xl == yl && !memcmp(x, y, xl);
}

/* Add pair a->b; a pair that contradicts another (a to two names, two names to b) marks both bad. */
static void add_pair(struct pair **v, size_t *n, size_t *alloc, const char *a, size_t al, const char *b, size_t bl)
{
	size_t i;
	int known = 0;

	for (i = 0; i < *n; i++) {
		struct pair *p = &(*v)[i];
		int sa = same_id(p->a, p->alen, a, al), sb = same_id(p->b, p->blen, b, bl);

		if (sa && sb)
			known = 1;
		else if (sa || sb)
			p->bad = known = 2;
	}
	if (known == 1)
		return;
	PROV_ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[*n].a = a;
	(*v)[*n].alen = al;
	(*v)[*n].b = b;
	(*v)[*n].blen = bl;
	(*v)[*n].bad = known == 2;
	(*n)++;
}

void prov_renames_learn(struct prov_renames *out, const char *a, size_t alen, const char *b, size_t blen)
{
	uint64_t *va, *vb;
	size_t nva, nvb, nsa, nsb, i, k, np = 0, palloc = 0, good = 0;
	struct skel *sa, *sb;
	struct pair *pairs = NULL;

	memset(out, 0, sizeof(*out));
	va = vocab(a, alen, &nva);
	vb = vocab(b, blen, &nvb);
	sa = skeletons(a, alen, vb, nvb, &nsa);
	sb = skeletons(b, blen, va, nva, &nsb);
	if (sb)
		qsort(sb, nsb, sizeof(*sb), cmp_skel);
	for (i = 0; i < nsa && np <= 4 * PROV_RENAMES_MAX; i++) {
		struct skel key = sa[i], *hit;
		size_t lo;

		hit = nsb ? bsearch(&key, sb, nsb, sizeof(*sb), cmp_skel) : NULL;
		if (!hit)
			continue;
		for (lo = (size_t)(hit - sb); lo > 0 && sb[lo - 1].hash == key.hash; lo--)
			;
		for (; lo < nsb && sb[lo].hash == key.hash && np <= 4 * PROV_RENAMES_MAX; lo++) {
			if (sb[lo].nid != key.nid)
				continue;
			for (k = 0; k < key.nid; k++)
				add_pair(&pairs, &np, &palloc, key.id[k], key.idlen[k], sb[lo].id[k], sb[lo].idlen[k]);
		}
	}
	for (i = 0; i < np; i++)
		good += !pairs[i].bad;
	if (good && good <= PROV_RENAMES_MAX && np <= 4 * PROV_RENAMES_MAX) {
		out->from = prov_xcalloc(good, sizeof(*out->from));
		out->to = prov_xcalloc(good, sizeof(*out->to));
		for (i = 0; i < np; i++)
			if (!pairs[i].bad) {
				out->from[out->n] = prov_xstrndup(pairs[i].a, pairs[i].alen);
				out->to[out->n++] = prov_xstrndup(pairs[i].b, pairs[i].blen);
			}
	}
	free(pairs);
	free(sa);
	free(sb);
	free(va);
	free(vb);
}

static const char *renamed(const struct prov_renames *r, const char *id, size_t n)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strlen(r->from[i]) == n && !memcmp(r->from[i], id, n))
			return r->to[i];
	return NULL;
}

char *prov_renames_apply(const struct prov_renames *r, const char *text, size_t len, size_t *outlen)
{
	struct prov_buf b = PROV_BUF_INIT;
	const char *p = text, *end = text + len, *id, *from = text;
	size_t k;
	char *s;

	while ((k = next_id(&p, end, &id))) {
		const char *to = renamed(r, id, k);

		if (!to)
			continue;
		prov_buf_add(&b, from, (size_t)(id - from));
		prov_buf_puts(&b, to);
		from = id + k;
	}
	prov_buf_add(&b, from, (size_t)(end - from));
	if (outlen)
		*outlen = b.len;
	s = b.len ? prov_buf_detach(&b) : prov_xstrdup("");
	prov_buf_release(&b);
	return s;
}

int prov_renames_touch(const struct prov_renames *r, const char *text)
{
	const char *p = text, *end = text + strlen(text), *id;
	size_t k;

	while ((k = next_id(&p, end, &id)))
		if (renamed(r, id, k))
			return 1;
	return 0;
}

void prov_renames_release(struct prov_renames *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->from[i]);
		free(r->to[i]);
	}
	free(r->from);
	free(r->to);
	memset(r, 0, sizeof(*r));
}
