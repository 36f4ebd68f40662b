/* A small capped reader for untrusted JSON (.note.package, direct_url.json, conda-meta). */
#include <stdlib.h>
#include <string.h>

#include "jsonread.h"
#include "buf.h"
#include "error.h"
#include "util.h"
#include "banned.h"

struct parser {
	const unsigned char *p, *end, *start;
	size_t nodes;
};

static int perr(struct parser *ps, const char *what)
{
	return prov_error_set(PROV_EINPUT, "bad JSON at byte %zu: %s",
			      (size_t)(ps->p - ps->start), what);
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int put_utf8(struct prov_buf *b, unsigned long cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return prov_buf_add(b, u, n);
}

/* Length of a valid UTF-8 sequence at p (no overlongs, no surrogates), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	size_t n, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if ((size_t)(end - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static int hex4(unsigned long *out, const unsigned char *p, const unsigned char *end)
{
	uint64_t v;

	if (end - p < 4 || prov_parse_u64(&v, (const char *)p, 4, 16) < 0)
		return -1;
	*out = (unsigned long)v;
	return 0;
}

static int parse_string(char **out, size_t *outlen, struct parser *ps)
{
	struct prov_buf b;
	int err;

	prov_buf_init(&b, 64 << 20);
	ps->p++;	/* opening quote */
	for (;;) {
		const unsigned char *run = ps->p;
		size_t n;

		while (ps->p < ps->end && *ps->p != '"' && *ps->p != '\\' && *ps->p >= 0x20) {
			if (*ps->p < 0x80) {
				ps->p++;
				continue;
			}
			n = utf8_len(ps->p, ps->end);
			if (!n) {
				err = perr(ps, "invalid UTF-8 in string");
				goto cleanup;
			}
			ps->p += n;
		}
		if ((err = prov_buf_add(&b, run, (size_t)(ps->p - run))) < 0)
			goto cleanup;
		if (ps->p >= ps->end) {
			err = perr(ps, "unterminated string");
			goto cleanup;
		}
		if (*ps->p == '"') {
			ps->p++;
			break;
		}
		if (*ps->p < 0x20) {
			err = perr(ps, "control character in string");
			goto cleanup;
		}
		/* backslash */
		ps->p++;
		if (ps->p >= ps->end) {
			err = perr(ps, "unterminated escape");
			goto cleanup;
		}
		switch (*ps->p) {
		case '"': err = prov_buf_putc(&b, '"'); break;
		case '\\': err = prov_buf_putc(&b, '\\'); break;
		case '/': err = prov_buf_putc(&b, '/'); break;
		case 'b': err = prov_buf_putc(&b, '\b'); break;
		case 'f': err = prov_buf_putc(&b, '\f'); break;
		case 'n': err = prov_buf_putc(&b, '\n'); break;
		case 'r': err = prov_buf_putc(&b, '\r'); break;
		case 't': err = prov_buf_putc(&b, '\t'); break;
		case 'u': {
			unsigned long cp, lo;

			if (hex4(&cp, ps->p + 1, ps->end) < 0) {
				err = perr(ps, "bad \\u escape");
				goto cleanup;
			}
			ps->p += 4;
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				err = perr(ps, "lone low surrogate");
				goto cleanup;
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (ps->end - ps->p < 7 || ps->p[1] != '\\' || ps->p[2] != 'u' ||
				    hex4(&lo, ps->p + 3, ps->end) < 0 || lo < 0xdc00 || lo > 0xdfff) {
					err = perr(ps, "lone high surrogate");
					goto cleanup;
				}
				ps->p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			err = put_utf8(&b, cp);
			break;
		}
		default:
			err = perr(ps, "unknown escape");
			goto cleanup;
		}
		if (err < 0)
			goto cleanup;
		ps->p++;
	}
	*outlen = b.len;
	*out = prov_buf_detach(&b);
	err = 0;
cleanup:
	prov_buf_release(&b);
	return err;
}

static int parse_number(struct prov_jv *v, struct parser *ps)
{
	const unsigned char *s = ps->p;

	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
		return perr(ps, "bad number");
	if (*ps->p == '0')
		ps->p++;
	else
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			return perr(ps, "bad fraction");
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			return perr(ps, "bad exponent");
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if (ps->p - s > 4096)
		return prov_error_set(PROV_ELIMIT, "JSON number longer than 4096 digits");
	v->type = PROV_JV_NUMBER;
	v->len = (size_t)(ps->p - s);
	v->str = prov_xstrndup((const char *)s, v->len);
	return 0;
}

static int lit(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return perr(ps, "unexpected character");
	ps->p += n;
	return 0;
}

static void jv_release(struct prov_jv *v);

static int parse_value(struct prov_jv *v, struct parser *ps, int depth)
{
	size_t alloc = 0;
	int err;

	memset(v, 0, sizeof(*v));
	if (++ps->nodes > PROV_JV_MAX_NODES)
		return prov_error_set(PROV_ELIMIT, "JSON has more than %d values", PROV_JV_MAX_NODES);
	if (depth > PROV_JV_MAX_DEPTH)
		return prov_error_set(PROV_ELIMIT, "JSON nested deeper than %d", PROV_JV_MAX_DEPTH);
	skip_ws(ps);
	if (ps->p >= ps->end)
		return perr(ps, "unexpected end");
	switch (*ps->p) {
	case '"':
		v->type = PROV_JV_STRING;
		return parse_string(&v->str, &v->len, ps);
	case 't':
		v->type = PROV_JV_BOOL;
		v->boolean = 1;
		return lit(ps, "true");
	case 'f':
		v->type = PROV_JV_BOOL;
		return lit(ps, "false");
	case 'n':
		v->type = PROV_JV_NULL;
		return lit(ps, "null");
	case '[':
	case '{': {
		int obj = *ps->p == '{';
		char close = obj ? '}' : ']';

		v->type = obj ? PROV_JV_OBJECT : PROV_JV_ARRAY;
		ps->p++;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return 0;
		}
		for (;;) {
			char *key = NULL;
			size_t klen;

			skip_ws(ps);
			if (obj) {
				if (ps->p >= ps->end || *ps->p != '"')
					return perr(ps, "expected a key");
				if ((err = parse_string(&key, &klen, ps)) < 0)
					return err;
				skip_ws(ps);
				if (ps->p >= ps->end || *ps->p != ':') {
					free(key);
					return perr(ps, "expected ':'");
				}
				ps->p++;
			}
			PROV_ALLOC_GROW(v->items, v->n + 1, alloc);
			if (obj) {
				v->keys = prov_xrealloc(v->keys, alloc * sizeof(*v->keys));
				v->keys[v->n] = key;
			}
			err = parse_value(&v->items[v->n], ps, depth + 1);
			v->n++;
			if (err < 0)
				return err;
			skip_ws(ps);
			if (ps->p >= ps->end)
				return perr(ps, "unexpected end");
			if (*ps->p == ',') {
				ps->p++;
				continue;
			}
			if (*ps->p == close) {
				ps->p++;
				return 0;
			}
			return perr(ps, "expected ',' or a closing bracket");
		}
	}
	default:
		return parse_number(v, ps);
	}
}

static void jv_release(struct prov_jv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		jv_release(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

int prov_jv_parse(struct prov_jv **out, const char *text, size_t len)
{
	struct parser ps;
	struct prov_jv *v;
	int err;

	if (len > PROV_JV_MAX_INPUT)
		return prov_error_set(PROV_ELIMIT, "JSON larger than %zu bytes", PROV_JV_MAX_INPUT);
	ps.start = ps.p = (const unsigned char *)text;
	ps.end = ps.p + len;
	ps.nodes = 0;
	v = prov_xcalloc(1, sizeof(*v));
	err = parse_value(v, &ps, 0);
	if (!err) {
		skip_ws(&ps);
		if (ps.p != ps.end)
			err = perr(&ps, "trailing data");
	}
	if (err < 0) {
		prov_jv_free(v);
		return err;
	}
	*out = v;
	return 0;
}

void prov_jv_free(struct prov_jv *v)
{
	if (!v)
		return;
	jv_release(v);
	free(v);
}

const struct prov_jv *prov_jv_get(const struct prov_jv *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != PROV_JV_OBJECT)
		return NULL;
	for (i = obj->n; i > 0; i--)
		if (obj->keys[i - 1] && strcmp(obj->keys[i - 1], key) == 0)
			return &obj->items[i - 1];
	return NULL;
}

const char *prov_jv_str(const struct prov_jv *v)
{
	if (!v || v->type != PROV_JV_STRING || strlen(v->str) != v->len)
		return NULL;
	return v->str;
}

const char *prov_jv_get_str(const struct prov_jv *obj, const char *key)
{
	return prov_jv_str(prov_jv_get(obj, key));
}
