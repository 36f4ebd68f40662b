/* Allocation that aborts with a message on failure (git's xmalloc): alloc.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "banned.h"

static void die_oom(size_t n)
{
	fprintf(stderr, "provenance: out of memory allocating %zu bytes\n", n);
	abort();
}

void *prov_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die_oom(n);
	return p;
}

void *prov_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die_oom(nmemb * size);
	return p;
}

void *prov_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die_oom(n);
	return q;
}

char *prov_xstrdup(const char *s)
{
	return prov_xstrndup(s, strlen(s));
}

char *prov_xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = prov_xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *prov_xstrdup_or_null(const char *s)
{
	return s ? prov_xstrdup(s) : NULL;
}

char *prov_xasprintf(const char *fmt, ...)
{
	va_list ap, cp;
	int n;
	char *p;

	va_start(ap, fmt);
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		n = 0;
	p = prov_xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
