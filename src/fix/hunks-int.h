/* The hunk matcher's private parts, shared by hunks.c, hunks-match.c and hunks-compare.c. */
#ifndef PROV_HUNKS_INT_H
#define PROV_HUNKS_INT_H

#include <stddef.h>
#include <stdint.h>

/* not hunks.h: a .c and its .h are one node of the include graph (t-layers) */
struct prov_hunk;
struct prov_hunk_file;

#define MAX_TOKENS 64

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

#define FIND_BUDGET ((size_t)50 * 1000 * 1000)
#define MAX_ANCHORS 256	/* places one hunk is tried at, per way of matching */

uint64_t hk_norm_hash(const char *s, size_t len, int *alnum);
int hk_cmp_u64(const void *a, const void *b);
size_t hk_tokenize(uint32_t *out, const char *s, size_t len);
size_t hk_common(const uint32_t *a, size_t na, const uint32_t *b, size_t nb);
double hk_sim(const uint32_t *a, size_t na, const uint32_t *b, size_t nb);
size_t hk_count_of(const uint32_t *a, size_t na, uint32_t t);
int hk_in_vocab(const struct prov_hunk_file *f, uint32_t t);
int hk_in_list(const uint64_t *v, size_t n, uint64_t h);
void hk_sides_init(struct sides *s, const struct prov_hunk *h, const struct prov_hunk_file *pre,
		       const struct prov_hunk_file *post);
void hk_sides_release(struct sides *s);
size_t hk_find_seq(const struct prov_hunk_file *f, const uint64_t *seq, size_t m, size_t from);
int hk_find_in(const struct prov_hunk_file *f, uint64_t h, size_t lo, size_t hi);
int hk_same_seq(const uint64_t *a, size_t na, const uint64_t *b, size_t nb);

#endif
