/* The growable string buffer with a hard cap, struct prov_buf (buf.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "alloc.h"
#include "banned.h"

char prov_buf__empty[1];

void prov_buf_init(struct prov_buf *b, size_t cap)
{
	b->buf = prov_buf__empty;
	b->len = 0;
	b->alloc = 0;
	b->cap = cap ? cap : PROV_BUF_DEFAULT_CAP;
	b->over = 0;
}

void prov_buf_release(struct prov_buf *b)
{
	size_t cap = b->cap;

	if (b->alloc)
		free(b->buf);
	prov_buf_init(b, cap);
}

void prov_buf_reset(struct prov_buf *b)
{
	b->len = 0;
	b->buf[0] = '\0';
	b->over = 0;
}

char *prov_buf_detach(struct prov_buf *b)
{
	char *s = b->alloc ? b->buf : prov_xstrdup("");

	prov_buf_init(b, b->cap);
	return s;
}

static int grow(struct prov_buf *b, size_t extra)
{
	size_t want;

	if (extra > b->cap || b->len > b->cap - extra) {
		b->over = 1;
		return prov_error_set(PROV_ELIMIT,
				      "string longer than the limit of %zu bytes",
				      b->cap);
	}
	want = b->len + extra + 1;
	if (want <= b->alloc)
		return 0;
	if (want < 64)
		want = 64;
	if (want < b->alloc + b->alloc / 2)
		want = b->alloc + b->alloc / 2;
	if (b->alloc) {
		b->buf = prov_xrealloc(b->buf, want);
	} else {
		b->buf = prov_xmalloc(want);
		b->buf[0] = '\0';
	}
	b->alloc = want;
	return 0;
}

int prov_buf_add(struct prov_buf *b, const void *data, size_t len)
{
	int error;

	if (!len)
		return 0;
	if ((error = grow(b, len)) < 0)
		return error;
	memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
	return 0;
}

int prov_buf_puts(struct prov_buf *b, const char *s)
{
	return prov_buf_add(b, s, strlen(s));
}

int prov_buf_putc(struct prov_buf *b, char c)
{
	return prov_buf_add(b, &c, 1);
}

int prov_buf_vprintf(struct prov_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n, error;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return prov_error_set(PROV_ERROR, "bad format string");
	if ((error = grow(b, (size_t)n)) < 0)
		return error;
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int prov_buf_printf(struct prov_buf *b, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = prov_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return error;
}

void prov_buf_rtrim(struct prov_buf *b)
{
	while (b->len && (b->buf[b->len - 1] == ' ' || b->buf[b->len - 1] == '\t' ||
			  b->buf[b->len - 1] == '\n' || b->buf[b->len - 1] == '\r'))
		b->len--;
	if (b->alloc)
		b->buf[b->len] = '\0';
}

void prov_buf_setlen(struct prov_buf *b, size_t len)
{
	if (len >= b->len)
		return;
	b->len = len;
	b->buf[len] = '\0';
}
