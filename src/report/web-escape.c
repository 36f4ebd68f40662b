/* The web view's one escaping module: HTML/SVG text and attributes, URL components, query strings. */
#include <stdlib.h>
#include <string.h>

#include "web.h"
#include "alloc.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/* The length of the UTF-8 sequence at p (at most `left` bytes), 0 when it is not one. */
static size_t utf8_len(const unsigned char *p, size_t left)
{
	unsigned c = p[0], cp;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;	/* overlong, out of range, surrogate, C1 control */
	return n;
}

void prov_web_html(struct prov_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left, n;

	if (!s)
		return;
	left = strlen(s);
	while (left) {
		switch (*p) {
		case '&': prov_buf_puts(b, "&amp;"); n = 1; break;
		case '<': prov_buf_puts(b, "&lt;"); n = 1; break;
		case '>': prov_buf_puts(b, "&gt;"); n = 1; break;
		case '"': prov_buf_puts(b, "&quot;"); n = 1; break;
		case '\'': prov_buf_puts(b, "&#39;"); n = 1; break;
		default:
			n = utf8_len(p, left);
			if (n == 1 && (*p < 0x20 || *p == 0x7f) && *p != '\n' && *p != '\t')
				n = 0;
			if (!n) {
				prov_buf_puts(b, "\xef\xbf\xbd");
				n = 1;
			} else {
				prov_buf_add(b, p, n);
			}
		}
		p += n;
		left -= n;
	}
}

void prov_web_url(struct prov_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	for (p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '-' || *p == '.' || *p == '_' || *p == '~') {
			prov_buf_putc(b, (char)*p);
		} else {
			prov_buf_putc(b, '%');
			prov_buf_putc(b, hex[*p >> 4]);
			prov_buf_putc(b, hex[*p & 15]);
		}
	}
}

size_t prov_web_url_decode(char *s, int plus)
{
	char *in = s, *out = s;

	while (*in) {
		int hi, lo;

		if (*in == '%' && (hi = prov_digit_value(in[1])) < 16 && (lo = prov_digit_value(in[2])) < 16 && (hi || lo)) {
			*out++ = (char)(hi * 16 + lo);
			in += 3;
		} else if (*in == '+' && plus) {
			*out++ = ' ';
			in++;
		} else {
			*out++ = *in++;
		}
	}
	*out = '\0';
	return (size_t)(out - s);
}

int prov_web_query_add(struct prov_web_query *q, const char *name, const char *value)
{
	if (q->n >= PROV_WEB_MAX_PARAMS)
		return prov_error_set(PROV_EINPUT, "more than %d query parameters", PROV_WEB_MAX_PARAMS);
	q->names[q->n] = prov_xstrdup(name);
	q->values[q->n] = prov_xstrdup(value ? value : "");
	q->n++;
	return 0;
}

const char *prov_web_query_get(const struct prov_web_query *q, const char *name)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		if (!strcmp(q->names[i], name))
			return q->values[i];
	return NULL;
}

void prov_web_query_release(struct prov_web_query *q)
{
	size_t i;

	for (i = 0; i < q->n; i++) {
		free(q->names[i]);
		free(q->values[i]);
	}
	memset(q, 0, sizeof(*q));
}
