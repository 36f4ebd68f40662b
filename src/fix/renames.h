#ifndef PROV_RENAMES_H
#define PROV_RENAMES_H

#include <stddef.h>

/*
 * Identifiers that a release spells another way than the fix's own file
 * (an API renamed between them: Curl_dyn_add in 7.88.1, curlx_dyn_add
 * later), learnt from the two texts of that file: a line of the fix's file
 * before the fix and a line of the deployed file that are the same, blanks
 * aside, but for identifiers each file lacks (one of its own in its place),
 * pair those identifiers. A pair is kept only when every such line pairs
 * them the same way (one from, one to) and the line says enough besides
 * (4 letters or digits outside them). docs/fixcheck.md.
 */
struct prov_renames {
	char **from, **to;
	size_t n;
};

#define PROV_RENAMES_MAX 64	/* pairs kept; more: none (not one API renamed) */

/* Learn the pairs from the fix's file before it (a) to the deployed file (b). */
void prov_renames_learn(struct prov_renames *out, const char *a, size_t alen, const char *b, size_t blen);
/* text with every whole identifier from[i] written to[i]; a new NUL-terminated string (*outlen its length). */
char *prov_renames_apply(const struct prov_renames *r, const char *text, size_t len, size_t *outlen);
/* 1 when text has a whole identifier that r renames. */
int prov_renames_touch(const struct prov_renames *r, const char *text);
void prov_renames_release(struct prov_renames *r);

#endif
