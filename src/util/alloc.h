#ifndef PROV_ALLOC_H
#define PROV_ALLOC_H

#include <stddef.h>

/* Allocation that aborts with a message on failure (git's xmalloc). */
void *prov_xmalloc(size_t n);
void *prov_xcalloc(size_t nmemb, size_t size);
void *prov_xrealloc(void *p, size_t n);
char *prov_xstrdup(const char *s);
char *prov_xstrndup(const char *s, size_t n);
/* NULL stays NULL. */
char *prov_xstrdup_or_null(const char *s);
char *prov_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow an array of `nmemb` elements of `size` to hold at least `want`. */
#define PROV_ALLOC_GROW(arr, want, alloc)                                     \
	do {                                                                  \
		if ((size_t)(want) > (alloc)) {                               \
			size_t prov__n = (alloc) ? (alloc) * 2 : 8;           \
			if (prov__n < (size_t)(want))                          \
				prov__n = (size_t)(want);                      \
			(arr) = prov_xrealloc((arr), prov__n * sizeof(*(arr))); \
			(alloc) = prov__n;                                     \
		}                                                             \
	} while (0)

#endif
