/* Hunks compared with hunks (carried, reverted, names added) and hunks of blanks, comments, docs, tests. */
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

#define LIKE_PLUS 0.7	/* token similarity of a line like a + line */

/* Lines of f like line tok[0..n) (token similarity LIKE_PLUS). */
static size_t like_count(const struct prov_hunk_file *f, const uint32_t *tok, size_t n)
{
	size_t j, c = 0;

	for (j = 0; f->tok && j < f->n; j++)
		c += hk_sim(f->tok[j], f->ntok[j], tok, n) >= LIKE_PLUS;
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
			if (!hk_in_list(s->pre + l1 + 1, gap, f->hash[j]))
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

	hk_sides_init(&s, h, pre, post);
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

		if (h->origin[i] != '+' || !hk_norm_hash(h->lines[i], strlen(h->lines[i]), NULL))
			continue;
		if (s.plus_d[p]) {
			nt = hk_tokenize(t, h->lines[i], strlen(h->lines[i]));
			ok = !hk_find_in(fd, s.plus[p], 0, fd->n) && like_count(fd, t, nt) <= like_count(fpre, t, nt);
		}
		p++;
	}
done:
	hk_sides_release(&s);
	return ok;
}

#define IMAGE_MIN_LINES 3	/* lines that say where an image of a hunk looked for in any file must have */

int prov_hunk_image_count(const struct prov_hunk *h, const struct prov_hunk_file *f, int post)
{
	struct sides s;
	const uint64_t *img;
	size_t n, i, an = 0, at, count = 0;

	hk_sides_init(&s, h, NULL, NULL);
	img = post ? s.post : s.pre;
	n = post ? s.npost : s.npre;
	for (i = 0; i < h->n; i++) {
		int a = 0;

		if (h->origin[i] != (post ? '-' : '+') && hk_norm_hash(h->lines[i], strlen(h->lines[i]), &a) &&
		    a >= DISTINCT_ALNUM)
			an++;
	}
	if (an < IMAGE_MIN_LINES || hk_same_seq(s.pre, s.npre, s.post, s.npost)) {
		hk_sides_release(&s);
		return -1;
	}
	for (at = hk_find_seq(f, img, n, 0); at != SIZE_MAX && count < 2; at = hk_find_seq(f, img, n, at + 1))
		count++;
	hk_sides_release(&s);
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

	hk_sides_init(&p, patch, NULL, NULL);
	hk_sides_init(&x, fix, NULL, NULL);
	strict = !x.ndplus && !x.ndminus;
	for (i = 0; ok && i < x.nplus; i++)
		if (strict || x.plus_d[i]) {
			checked++;
			ok = hk_in_list(p.plus, p.nplus, x.plus[i]);
		}
	for (i = 0; ok && i < x.nminus; i++)
		if (strict || x.minus_d[i]) {
			checked++;
			ok = hk_in_list(p.minus, p.nminus, x.minus[i]);
		}
	hk_sides_release(&p);
	hk_sides_release(&x);
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

			if (x->origin[i] != o || !(y = hk_norm_hash(x->lines[i], strlen(x->lines[i]), NULL)))
				continue;
			PROV_ALLOC_GROW(h, m + 1, cap);
			h[m++] = y;
		}
	}
	if (m)
		qsort(h, m, sizeof(*h), hk_cmp_u64);
	*out_n = m;
	return h;
}

static int in_sorted(const uint64_t *v, size_t n, uint64_t x)
{
	return n && bsearch(&x, v, n, sizeof(x), hk_cmp_u64) != NULL;
}

int prov_hunk_removes_added(const struct prov_hunk *const *later, size_t n, const struct prov_hunk *fix)
{
	struct sides x;
	size_t i, found = 0, missed = 0, nm;
	uint64_t *minus = origin_hashes(later, NULL, n, '-', &nm);
	int strict;

	hk_sides_init(&x, fix, NULL, NULL);
	strict = !x.ndplus;	/* no distinctive + line: every one that says something */
	for (i = 0; missed < 2 && i < x.nplus; i++)
		if (strict ? x.plus_an[i] : x.plus_d[i]) {
			if (in_sorted(minus, nm, x.plus[i]))
				found++;
			else
				missed++;
		}
	hk_sides_release(&x);
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

		if (fix->origin[i] != '-' || !(x = hk_norm_hash(fix->lines[i], strlen(fix->lines[i]), &an)) ||
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

/* The names (identifiers of NEW_NAME_MIN bytes or more, hashed like hk_tokenize) of line l not in pre's vocabulary. */
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
		if ((size_t)(q - p) >= NEW_NAME_MIN && !hk_in_vocab(pre, h)) {
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
			nt = hk_tokenize(t, by[k]->lines[j], strlen(by[k]->lines[j]));
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
		if (hk_in_vocab(f, want[a]))
			return 0;	/* the deployed file has it */
		for (k = 0; k < nby; k++)
			for (j = 0; j < by[k]->n; j++) {
				uint32_t t[MAX_TOKENS];
				size_t nt, b;

				if (by[k]->origin[j] != '+')
					continue;
				nt = hk_tokenize(t, by[k]->lines[j], strlen(by[k]->lines[j]));
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
	hk_sides_init(&s, h, NULL, NULL);
	same = hk_same_seq(s.pre, s.npre, s.post, s.npost);
	hk_sides_release(&s);
	return changed && same;
}

int prov_hunk_comments_only(const struct prov_hunk *h)
{
	size_t i, changed = 0;

	for (i = 0; i < h->n; i++) {
		if (h->origin[i] == ' ' || !hk_norm_hash(h->lines[i], strlen(h->lines[i]), NULL))
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
