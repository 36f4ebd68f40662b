/* A streaming JSON writer into a prov_buf, with its own string escaping (json.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include "error.h"
#include "json.h"
#include "banned.h"

void prov_json_init(struct prov_json *j, struct prov_buf *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

static void put(struct prov_json *j, const char *s, size_t n)
{
	if (!j->error && prov_buf_add(j->out, s, n) < 0)
		j->error = PROV_ELIMIT;
}

static void puts_(struct prov_json *j, const char *s)
{
	put(j, s, strlen(s));
}

static void newline_indent(struct prov_json *j)
{
	int i;

	put(j, "\n", 1);
	for (i = 0; i < j->depth; i++)
		put(j, "  ", 2);
}

/* separator and indentation before a value or a key */
static void before_item(struct prov_json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth > 0) {
		if (j->need_comma[j->depth])
			put(j, ",", 1);
		newline_indent(j);
	}
	if (j->depth < 64)
		j->need_comma[j->depth] = 1;
}

static void open_(struct prov_json *j, const char *c)
{
	before_item(j);
	puts_(j, c);
	if (j->depth < 63)
		j->depth++;
	j->need_comma[j->depth] = 0;
}

static void close_(struct prov_json *j, const char *c)
{
	int had = j->need_comma[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had)
		newline_indent(j);
	puts_(j, c);
}

void prov_json_begin_object(struct prov_json *j)
{
	open_(j, "{");
}

void prov_json_end_object(struct prov_json *j)
{
	close_(j, "}");
}

void prov_json_begin_array(struct prov_json *j)
{
	open_(j, "[");
}

void prov_json_end_array(struct prov_json *j)
{
	close_(j, "]");
}

int prov_json_quote(struct prov_buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int error = prov_buf_putc(out, '"');

	while (!error && *p) {
		unsigned char c = *p;
		size_t n = 0, k;

		if (c == '"' || c == '\\') {
			error = prov_buf_putc(out, '\\');
			if (!error)
				error = prov_buf_putc(out, (char)c);
			p++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n':
				error = prov_buf_puts(out, "\\n");
				break;
			case '\t':
				error = prov_buf_puts(out, "\\t");
				break;
			case '\r':
				error = prov_buf_puts(out, "\\r");
				break;
			default:
				error = prov_buf_printf(out, "\\u%04x", c);
			}
			p++;
			continue;
		}
		if (c < 0x80) {
			error = prov_buf_putc(out, (char)c);
			p++;
			continue;
		}
		/* validate one UTF-8 sequence; replace bad bytes with U+FFFD */
		if (c >= 0xc2 && c <= 0xdf)
			n = 1;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3;
		for (k = 1; n && k <= n; k++)
			if ((p[k] & 0xc0) != 0x80)
				n = 0;
		if (n == 2 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f)))
			n = 0;
		if (n == 3 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f)))
			n = 0;
		if (!n) {
			error = prov_buf_puts(out, "\xef\xbf\xbd");
			p++;
			continue;
		}
		if (c == 0xc2 && p[1] <= 0x9f) {
			/* C1 controls (U+0080..U+009F): escaped like C0, never raw to a terminal */
			error = prov_buf_printf(out, "\\u%04x", p[1]);
			p += 2;
			continue;
		}
		error = prov_buf_add(out, p, n + 1);
		p += n + 1;
	}
	if (!error)
		error = prov_buf_putc(out, '"');
	return error;
}

void prov_json_key(struct prov_json *j, const char *key)
{
	before_item(j);
	if (!j->error && prov_json_quote(j->out, key) < 0)
		j->error = PROV_ELIMIT;
	put(j, ": ", 2);
	j->after_key = 1;
}

void prov_json_string(struct prov_json *j, const char *s)
{
	before_item(j);
	if (!s)
		puts_(j, "null");
	else if (!j->error && prov_json_quote(j->out, s) < 0)
		j->error = PROV_ELIMIT;
}

void prov_json_int(struct prov_json *j, int64_t v)
{
	before_item(j);
	if (!j->error && prov_buf_printf(j->out, "%" PRId64, v) < 0)
		j->error = PROV_ELIMIT;
}

void prov_json_fixed(struct prov_json *j, double v, int decimals)
{
	before_item(j);
	if (v != v || v > 1e300 || v < -1e300)
		v = 0;
	if (!j->error && prov_buf_printf(j->out, "%.*f", decimals, v) < 0)
		j->error = PROV_ELIMIT;
}

void prov_real_format(char *buf, size_t size, double v)
{
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
}

void prov_json_real(struct prov_json *j, double v)
{
	char tmp[40];

	before_item(j);
	if (!isfinite(v)) {
		puts_(j, "null");
		return;
	}
	prov_real_format(tmp, sizeof(tmp), v);
	if (!j->error && prov_buf_printf(j->out, "%s", tmp) < 0)
		j->error = PROV_ELIMIT;
}

void prov_json_bool(struct prov_json *j, int v)
{
	before_item(j);
	puts_(j, v ? "true" : "false");
}

void prov_json_null(struct prov_json *j)
{
	before_item(j);
	puts_(j, "null");
}

void prov_json_hex(struct prov_json *j, uint64_t v)
{
	before_item(j);
	if (!j->error && prov_buf_printf(j->out, "\"0x%" PRIx64 "\"", v) < 0)
		j->error = PROV_ELIMIT;
}

void prov_json_kv_string(struct prov_json *j, const char *key, const char *s)
{
	prov_json_key(j, key);
	prov_json_string(j, s);
}

void prov_json_kv_int(struct prov_json *j, const char *key, int64_t v)
{
	prov_json_key(j, key);
	prov_json_int(j, v);
}

void prov_json_kv_bool(struct prov_json *j, const char *key, int v)
{
	prov_json_key(j, key);
	prov_json_bool(j, v);
}

void prov_json_kv_null(struct prov_json *j, const char *key)
{
	prov_json_key(j, key);
	prov_json_null(j);
}

void prov_json_kv_hex(struct prov_json *j, const char *key, uint64_t v)
{
	prov_json_key(j, key);
	prov_json_hex(j, v);
}

int prov_json_finish(struct prov_json *j)
{
	put(j, "\n", 1);
	return j->error ? prov_error_set(PROV_ELIMIT, "report larger than the output limit") : 0;
}
