/*
 * The CPython interpreter-state reader (see python.h): from _PyRuntime to
 * the interpreters, their thread states and each thread's frames, through a
 * memory reader only. Every number and pointer read is untrusted.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "python-offsets.h"
#include "python.h"
#include "util.h"

#include "banned.h"

#define MAX_INTERPS 64
#define MAX_PY_THREADS 4096
#define MAX_PY_FRAMES 1024	/* per thread */
#define MAX_STR 1024	/* characters of a name or a file */
#define MAX_TABLE (1u << 18)	/* bytes of a line table (with the code cache: 64 MiB at most) */
#define MAX_READS (1u << 20)	/* reads per annotation: a bound on the work */
#define CODE_CACHE 256	/* a power of two */
#define MAX_TOTAL_FRAMES (1u << 17)	/* Python frames of all threads */
#define MAX_TOTAL_BYTES ((size_t)64 << 20)	/* their names and files */
#define MAX_VAR_FRAMES 32	/* Python frames of the crashing thread whose variables are read */
#define MAX_VARS 512	/* names of a code object (co_localsplusnames) */
#define MAX_REPR 64	/* characters of a str or bytes value shown */
#define MAX_TYPENAME 64	/* bytes of a type's tp_name */
#define TYPE_CACHE 16

/* co_flags and co_localspluskinds (Include/cpython/code.h,
 * Include/internal/pycore_code.h) */
#define CO_VARARGS 0x4
#define CO_VARKEYWORDS 0x8
#define CO_FAST_CELL 0x40
#define CO_FAST_FREE 0x80

/* _PyInterpreterFrame.owner (Include/internal/pycore_frame.h) */
#define OWNED_BY_GENERATOR 1
#define OWNED_BY_CSTACK 3	/* 3.12+: the shim frame an eval call starts with */

struct py_code {
	uint64_t addr;
	char *name, *file;
	int firstlineno;
	int firsttraceable;
	unsigned char *table;
	size_t ntable;
	int ok;
	/* variables, read on first use (crashing thread only) */
	int vars_read;	/* 0 not yet, 1 read, -1 damaged (vars_note) */
	char **vnames;
	unsigned char *vkinds;	/* NULL: unknown kinds */
	size_t nv, nargs;
	char *vars_note;
};

struct py_frame {
	char *name, *file;	/* owned */
	int line;
	int entry;	/* the last frame its eval call evaluated */
	int has_vars;
	struct prov_var *args, *locals;	/* owned */
	size_t nargs, nlocals;
};

struct py_thread {
	uint64_t addr, thread_id, native_id;
	int holds_gil;
	int want_vars;	/* the crashing thread: read its frames' variables */
	char *vars_note;	/* why some frame's variables are missing */
	struct py_frame *frames;
	size_t n;
	char *note;
};

struct py_reader {
	const struct prov_py_target *t;
	struct py_offsets o;
	unsigned long reads;
	int exhausted;
	size_t frames, bytes;	/* what all threads' frames hold so far */
	uint64_t code_types[4];	/* addresses of type objects named "code" */
	struct {
		uint64_t addr;
		char *name;
	} types[TYPE_CACHE];	/* tp_name of type objects seen in variables */
	struct py_code cache[CODE_CACHE];
};

static int rd(struct py_reader *r, uint64_t addr, void *buf, size_t len)
{
	if (r->reads >= MAX_READS) {
		r->exhausted = 1;
		return -1;
	}
	r->reads++;
	if (!addr || addr + len < addr)
		return -1;
	return r->t->read(r->t->arg, addr, buf, len);
}

static int rd_u64(struct py_reader *r, uint64_t addr, uint64_t *out)
{
	uint64_t v;

	if (rd(r, addr, &v, 8) < 0)
		return -1;
	*out = v;
	return 0;
}

static int rd_i32(struct py_reader *r, uint64_t addr, int32_t *out)
{
	int32_t v;

	if (rd(r, addr, &v, 4) < 0)
		return -1;
	*out = v;
	return 0;
}

static int rd_u8(struct py_reader *r, uint64_t addr, unsigned char *out)
{
	return rd(r, addr, out, 1);
}

static uint64_t at(uint64_t base, int32_t off)
{
	return base + (uint64_t)(uint32_t)off;
}

/* ---- strings ---- */

static void put_utf8(struct prov_buf *b, uint32_t c)
{
	char s[4];

	if (c < 0x20 || c == 0x7f) {
		prov_buf_putc(b, '?');
	} else if (c < 0x80) {
		prov_buf_putc(b, (char)c);
	} else if (c < 0x800) {
		s[0] = (char)(0xc0 | (c >> 6));
		s[1] = (char)(0x80 | (c & 0x3f));
		prov_buf_add(b, s, 2);
	} else if (c < 0x10000) {
		if (c >= 0xd800 && c < 0xe000) {
			prov_buf_putc(b, '?');
			return;
		}
		s[0] = (char)(0xe0 | (c >> 12));
		s[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		s[2] = (char)(0x80 | (c & 0x3f));
		prov_buf_add(b, s, 3);
	} else if (c < 0x110000) {
		s[0] = (char)(0xf0 | (c >> 18));
		s[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		s[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		s[3] = (char)(0x80 | (c & 0x3f));
		prov_buf_add(b, s, 4);
	} else {
		prov_buf_putc(b, '?');
	}
}

/*
 * The first code points (at most max) of a str object (PyUnicodeObject,
 * compact form: the only form code objects' names and files take) into
 * out; *len gets its length. state bits (cpython/unicodeobject.h):
 * interned:2, kind:3, compact:1, ascii:1. 0, or -1 when not a readable
 * compact str.
 */
static int str_units(struct py_reader *r, uint64_t obj, uint32_t *out, size_t max, size_t *n,
		     uint64_t *len)
{
	uint32_t state;
	unsigned int kind, compact, ascii;
	uint64_t data;
	unsigned char raw[MAX_STR * 4];
	size_t i;

	if (max > MAX_STR)
		max = MAX_STR;
	if (!obj || rd_u64(r, obj + 16, len) < 0 || rd(r, obj + 32, &state, 4) < 0)
		return -1;
	kind = (state >> 2) & 7;
	compact = (state >> 5) & 1;
	ascii = (state >> 6) & 1;
	if (!compact || (kind != 1 && kind != 2 && kind != 4) || (ascii && kind != 1) ||
	    *len > (uint64_t)1 << 30)
		return -1;
	*n = *len > max ? max : (size_t)*len;
	data = obj + (uint64_t)(ascii ? r->o.ascii_size : r->o.compact_size);
	if (*n && rd(r, data, raw, *n * kind) < 0)
		return -1;
	for (i = 0; i < *n; i++) {
		if (kind == 1) {
			out[i] = raw[i];
		} else if (kind == 2) {
			uint16_t v;

			memcpy(&v, raw + 2 * i, 2);
			out[i] = v;
		} else {
			memcpy(&out[i], raw + 4 * i, 4);
		}
	}
	return 0;
}

/* A str object as UTF-8 (controls as '?'), or NULL. */
static char *read_str(struct py_reader *r, uint64_t obj)
{
	uint32_t u[MAX_STR];
	uint64_t len;
	struct prov_buf b;
	size_t i, n;

	if (str_units(r, obj, u, MAX_STR, &n, &len) < 0)
		return NULL;
	prov_buf_init(&b, MAX_STR * 4 + 8);
	for (i = 0; i < n; i++)
		put_utf8(&b, u[i]);
	if (n < len)
		prov_buf_puts(&b, "...");
	return prov_buf_detach(&b);
}

/* A bytes object's contents (PyBytesObject: ob_size at 16, ob_sval at 32). */
static unsigned char *read_bytes(struct py_reader *r, uint64_t obj, size_t *n)
{
	uint64_t len;
	unsigned char *p;

	if (!obj || rd_u64(r, obj + 16, &len) < 0 || len > MAX_TABLE)
		return NULL;
	p = prov_xmalloc(len ? (size_t)len : 1);
	if (len && rd(r, obj + 32, p, (size_t)len) < 0) {
		free(p);
		return NULL;
	}
	*n = (size_t)len;
	return p;
}

/* ---- line tables ---- */

static uint64_t varint(const unsigned char *p, size_t n, size_t *i)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	unsigned char c;

	do {
		if (*i >= n || shift > 56) {
			*i = n + 1;	/* cut short: the caller sees i > n */
			return 0;
		}
		c = p[(*i)++];
		v |= (uint64_t)(c & 63) << shift;
		shift += 6;
	} while (c & 64);
	return v;
}

static int64_t svarint(const unsigned char *p, size_t n, size_t *i)
{
	uint64_t v = varint(p, n, i);

	return (v & 1) ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
}

/*
 * The 3.11+ location table (Objects/locations.md, Objects/codeobject.c):
 * entries of a first byte 1CCCCLLL (code, length - 1 in code units) and
 * code-dependent data: 15 no location, 14 long form (line delta, end line,
 * columns as varints), 13 line delta only, 10-12 a line delta of code - 10
 * and two column bytes, 0-9 the same line and one column byte.
 */
int prov_python_loctable_line(const unsigned char *p, size_t n, int firstlineno, int64_t unit)
{
	size_t i = 0;
	int64_t line = firstlineno, start = 0;

	if (unit < 0)
		return firstlineno;
	while (i < n) {
		unsigned char b = p[i++];
		int code = (b >> 3) & 15, len = (b & 7) + 1, has = 1;

		if (!(b & 0x80))
			return -1;
		switch (code) {
		case 15:
			has = 0;
			break;
		case 14:
			line += svarint(p, n, &i);
			(void)varint(p, n, &i);
			(void)varint(p, n, &i);
			(void)varint(p, n, &i);
			break;
		case 13:
			line += svarint(p, n, &i);
			break;
		case 10:
		case 11:
		case 12:
			line += code - 10;
			i += 2;
			break;
		default:
			i += 1;
			break;
		}
		if (i > n || line < 0 || line > INT32_MAX)
			return -1;
		if (unit < start + len)
			return has ? (int)line : -1;
		start += len;
	}
	return -1;
}

/* 3.10's co_linetable (Objects/lnotab_notes.txt): (byte delta, signed line
 * delta) pairs, -128 meaning no line; addr in bytes. */
static int linetable310_line(const unsigned char *p, size_t n, int firstlineno, int64_t addr)
{
	int64_t start = 0, end = 0, line = firstlineno;
	size_t i;

	if (addr < 0)
		return firstlineno;
	for (i = 0; i + 1 < n; i += 2) {
		signed char ld = (signed char)p[i + 1];
		int has = ld != -128;

		start = end;
		end += p[i];
		if (has)
			line += ld;
		if (addr >= start && addr < end)
			return has ? (int)line : -1;
	}
	return -1;
}

/* 3.8/3.9's co_lnotab: (byte increment, signed line increment) pairs. */
static int lnotab_line(const unsigned char *p, size_t n, int firstlineno, int64_t addr)
{
	int64_t a = 0, line = firstlineno;
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		a += p[i];
		if (a > addr)
			break;
		line += (signed char)p[i + 1];
	}
	return line > 0 && line <= INT32_MAX ? (int)line : -1;
}

/* ---- code objects ---- */

static int is_code_object(struct py_reader *r, uint64_t code)
{
	uint64_t type, name;
	char s[8];
	size_t i;

	if (rd_u64(r, code + 8, &type) < 0 || !type)
		return 0;
	for (i = 0; i < 4; i++)
		if (r->code_types[i] == type)
			return 1;
	/* PyTypeObject.tp_name follows PyVarObject's head (24 bytes) */
	if (rd_u64(r, type + 24, &name) < 0 || rd(r, name, s, 5) < 0 || memcmp(s, "code", 5) != 0)
		return 0;
	for (i = 0; i < 4; i++)
		if (!r->code_types[i]) {
			r->code_types[i] = type;
			break;
		}
	return 1;
}

static void code_release(struct py_code *c)
{
	size_t i;

	for (i = 0; i < c->nv; i++)
		free(c->vnames[i]);
	free(c->vnames);
	free(c->vkinds);
	free(c->vars_note);
	free(c->name);
	free(c->file);
	free(c->table);
	memset(c, 0, sizeof(*c));
}

static struct py_code *code_get(struct py_reader *r, uint64_t addr)
{
	struct py_code *c = &r->cache[(addr >> 4) & (CODE_CACHE - 1)];
	const struct py_offsets *o = &r->o;
	uint64_t p;
	int32_t v;

	if (c->addr == addr && addr)
		return c->ok ? c : NULL;
	code_release(c);
	c->addr = addr;
	if (!is_code_object(r, addr))
		return NULL;
	if (rd_u64(r, at(addr, o->co_qualname >= 0 ? o->co_qualname : o->co_name), &p) == 0)
		c->name = read_str(r, p);
	if (rd_u64(r, at(addr, o->co_filename), &p) == 0)
		c->file = read_str(r, p);
	if (rd_i32(r, at(addr, o->co_firstlineno), &v) == 0)
		c->firstlineno = v;
	if (o->co_firsttraceable >= 0 && rd_i32(r, at(addr, o->co_firsttraceable), &v) == 0)
		c->firsttraceable = v;
	if (rd_u64(r, at(addr, o->co_linetable), &p) == 0)
		c->table = read_bytes(r, p, &c->ntable);
	if (!c->name && !c->file)
		return NULL;
	c->ok = 1;
	return c;
}

static struct prov_thread *native_thread(struct prov_crash *c, const struct py_thread *pt);

/* ---- arguments and locals (the crashing thread's frames, 3.11+) ---- */

/* A tuple's item pointers (PyTupleObject: ob_size at 16, ob_item at 24, 32
 * on 3.14), at most max - *n of them appended to items. */
static int tuple_items(struct py_reader *r, uint64_t tuple, uint64_t *items, size_t max,
		       size_t *n)
{
	uint64_t len;

	if (rd_u64(r, tuple + 16, &len) < 0)
		return -1;
	if (len > max - *n)
		return -2;
	if (len && rd(r, at(tuple, r->o.tuple_items), items + *n, (size_t)len * 8) < 0)
		return -1;
	*n += (size_t)len;
	return 0;
}

/*
 * The code object's variable names (co_localsplusnames, a tuple of str),
 * their kinds (co_localspluskinds, bytes; 3.8-3.10: co_varnames, co_cellvars
 * and co_freevars, in the order of f_localsplus) and how many of them are
 * arguments (co_argcount + co_kwonlyargcount, one more each for *args and
 * **kwargs), read once per code object.
 */
static int code_vars(struct py_reader *r, struct py_code *c)
{
	const struct py_offsets *o = &r->o;
	uint64_t *items = NULL, p;
	int32_t argc, kwonly, flags = 0;
	size_t i, nk = 0, n = 0, nargs, marks[3] = { 0, 0, 0 };
	int rc = 0;

	if (c->vars_read)
		return c->vars_read;
	c->vars_read = -1;
	items = prov_xcalloc(MAX_VARS, 8);
	if (rd_i32(r, at(c->addr, o->co_argcount), &argc) < 0 ||
	    rd_i32(r, at(c->addr, o->co_argcount) + 8, &kwonly) < 0 ||
	    (o->co_flags >= 0 && rd_i32(r, at(c->addr, o->co_flags), &flags) < 0)) {
		rc = -1;
	} else if (o->frames == PY_FRAME_OBJECT) {
		/* 3.8-3.10: co_varnames (the locals), co_cellvars, co_freevars */
		const int32_t offs[3] = { o->co_varnames, o->co_cellvars, o->co_freevars };

		for (i = 0; i < 3 && !rc; i++) {
			rc = rd_u64(r, at(c->addr, offs[i]), &p) < 0 ? -1 :
			     tuple_items(r, p, items, MAX_VARS, &n);
			marks[i] = n;
		}
	} else if (rd_u64(r, at(c->addr, o->co_localsplusnames), &p) < 0) {
		rc = -1;
	} else {
		rc = tuple_items(r, p, items, MAX_VARS, &n);
	}
	nargs = (size_t)(uint32_t)argc + (size_t)(uint32_t)kwonly + !!(flags & CO_VARARGS) +
		!!(flags & CO_VARKEYWORDS);
	if (rc == -1) {
		c->vars_note = prov_xasprintf("cannot read the variable names of the code object "
					      "at 0x%" PRIx64, c->addr);
		goto fail;
	}
	if (rc == -2 || argc < 0 || kwonly < 0 || nargs > n) {
		c->vars_note = prov_xasprintf("the code object at 0x%" PRIx64 " claims %s%zu "
					      "variables and %zu arguments", c->addr,
					      rc == -2 ? "more than " : "", rc == -2 ? MAX_VARS : n,
					      nargs);
		goto fail;
	}
	c->vnames = prov_xcalloc(n ? n : 1, sizeof(*c->vnames));
	c->nv = n;
	for (i = 0; i < n; i++) {
		c->vnames[i] = read_str(r, items[i]);
		if (!c->vnames[i])
			c->vnames[i] = prov_xasprintf("?%zu", i);
	}
	if (o->frames == PY_FRAME_OBJECT) {
		c->vkinds = prov_xcalloc(n ? n : 1, 1);
		for (i = 0; i < n; i++)
			c->vkinds[i] = i < marks[0] ? 0x20 : i < marks[1] ? CO_FAST_CELL :
				       CO_FAST_FREE;
	} else if (o->co_localspluskinds >= 0 &&
		   rd_u64(r, at(c->addr, o->co_localspluskinds), &p) == 0) {
		c->vkinds = read_bytes(r, p, &nk);
		if (c->vkinds && nk != c->nv) {
			free(c->vkinds);
			c->vkinds = NULL;
		}
	}
	free(items);
	c->nargs = nargs;
	c->vars_read = 1;
	return 1;
fail:
	free(items);
	return -1;
}

/* A type object's tp_name (NUL-terminated, at most MAX_TYPENAME bytes), cached. */
static const char *type_name(struct py_reader *r, uint64_t type)
{
	unsigned int slot = (unsigned int)((type >> 4) & (TYPE_CACHE - 1));
	char s[MAX_TYPENAME + 1];
	uint64_t name;
	size_t i, k;

	if (r->types[slot].addr == type && r->types[slot].name)
		return r->types[slot].name;
	if (rd_u64(r, type + 24, &name) < 0 || !name)
		return NULL;
	/* 8 bytes at a time: the name may end near the end of a mapping */
	for (i = 0; i < MAX_TYPENAME; i += 8) {
		if (rd(r, name + i, s + i, 8) < 0)
			return NULL;
		for (k = i; k < i + 8; k++)
			if (!s[k])
				goto done;
	}
	return NULL;	/* longer than any type name we show */
done:
	for (i = 0; s[i]; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return NULL;
	free(r->types[slot].name);
	r->types[slot].addr = type;
	r->types[slot].name = prov_xstrdup(s);
	return r->types[slot].name;
}

/* An int (PyLongObject: 30-bit digits at 24; 3.11 ob_size at 16 signed,
 * 3.12+ lv_tag = ndigits << 3 | sign, 0 +, 1 zero, 2 -): up to four digits. */
static int long_repr(struct py_reader *r, uint64_t obj, struct prov_var *v, int as_bool)
{
	uint64_t tag, nd;
	uint32_t d[4];
	unsigned __int128 x = 0;
	int neg;
	char tmp[48];
	size_t i, k = sizeof(tmp);

	if (rd_u64(r, obj + 16, &tag) < 0)
		return -1;
	if (r->o.long_tagged) {
		if ((tag & 3) == 3)
			return -1;
		neg = (tag & 3) == 2;
		nd = tag >> 3;
		if ((tag & 3) == 1)
			nd = 0;
	} else {
		int64_t size = (int64_t)tag;

		neg = size < 0;
		nd = size < 0 ? (uint64_t)0 - (uint64_t)size : (uint64_t)size;
	}
	if (nd > 4) {
		v->note = prov_xasprintf("an int of %" PRIu64 " 30-bit digits (not shown)", nd);
		return 0;
	}
	if (nd && rd(r, obj + 24, d, (size_t)nd * 4) < 0)
		return -1;
	for (i = nd; i-- > 0;) {
		if (d[i] >> 30)
			return -1;
		x = (x << 30) | d[i];
	}
	if (as_bool) {
		v->value = prov_xstrdup(x ? "True" : "False");
		return 0;
	}
	tmp[--k] = 0;
	do {
		tmp[--k] = (char)('0' + (int)(x % 10));
		x /= 10;
	} while (x);
	if (neg)
		tmp[--k] = '-';
	v->value = prov_xstrdup(tmp + k);
	return 0;
}

/* A float as Python's repr spells it: the shortest digits that read back,
 * positional for exponents -4..15, else scientific. */
static void float_repr(struct prov_buf *b, double x)
{
	char s[64];
	int p, e;

	if (isnan(x)) {
		prov_buf_puts(b, "nan");
		return;
	}
	if (isinf(x)) {
		prov_buf_puts(b, x < 0 ? "-inf" : "inf");
		return;
	}
	for (p = 1; p < 17; p++) {
		(void)snprintf(s, sizeof(s), "%.*e", p - 1, x);
		if (strtod(s, NULL) == x)
			break;
	}
	(void)snprintf(s, sizeof(s), "%.*e", p - 1, x);
	e = (int)strtol(strchr(s, 'e') + 1, NULL, 10);
	if (e >= -4 && e < 16) {
		int decimals = p - 1 - e;

		(void)snprintf(s, sizeof(s), "%.*f", decimals > 0 ? decimals : 0, x);
		prov_buf_puts(b, s);
		if (decimals <= 0)
			prov_buf_puts(b, ".0");
		return;
	}
	prov_buf_puts(b, s);
}

/* Python's repr of a str or bytes: quotes, escapes, at most MAX_REPR characters. */
static void quoted_repr(struct prov_buf *b, const uint32_t *u, size_t n, int bytes)
{
	int sq = 0, dq = 0;
	char quote;
	size_t i;

	for (i = 0; i < n; i++) {
		sq |= u[i] == '\'';
		dq |= u[i] == '"';
	}
	quote = sq && !dq ? '"' : '\'';
	if (bytes)
		prov_buf_putc(b, 'b');
	prov_buf_putc(b, quote);
	for (i = 0; i < n; i++) {
		uint32_t c = u[i];

		if (c == (uint32_t)quote || c == '\\') {
			prov_buf_putc(b, '\\');
			prov_buf_putc(b, (char)c);
		} else if (c == '\n') {
			prov_buf_puts(b, "\\n");
		} else if (c == '\r') {
			prov_buf_puts(b, "\\r");
		} else if (c == '\t') {
			prov_buf_puts(b, "\\t");
		} else if (c < 0x20 || c == 0x7f || (c >= 0x80 && (bytes || c < 0xa0))) {
			prov_buf_printf(b, "\\x%02x", (unsigned int)c);
		} else if (c >= 0xd800 && c < 0xe000) {
			prov_buf_printf(b, "\\u%04x", (unsigned int)c);
		} else {
			put_utf8(b, c);
		}
	}
	prov_buf_putc(b, quote);
}

/* Fill v's type and value (or note) from the object at obj. */
static void object_repr(struct py_reader *r, uint64_t obj, int cell, struct prov_var *v)
{
	uint64_t type, len;
	const char *tn;
	struct prov_buf b;
	int bad = 0;

	if (rd_u64(r, obj + 8, &type) < 0) {
		v->note = prov_xasprintf("cannot read memory at 0x%" PRIx64, obj);
		return;
	}
	tn = type_name(r, type);
	if (!tn) {
		v->note = prov_xasprintf("cannot read the type of the object at 0x%" PRIx64, obj);
		return;
	}
	if (cell && strcmp(tn, "cell") == 0) {
		/* a cell or free variable: PyCellObject.ob_ref */
		uint64_t ref;

		if (rd_u64(r, obj + 16, &ref) < 0) {
			v->note = prov_xasprintf("cannot read the cell at 0x%" PRIx64, obj);
			return;
		}
		if (!ref) {
			v->note = prov_xstrdup("empty cell (not assigned yet)");
			return;
		}
		object_repr(r, ref, 0, v);
		return;
	}
	v->type = prov_xstrdup(tn);
	prov_buf_init(&b, MAX_REPR * 16 + 64);
	if (strcmp(tn, "NoneType") == 0) {
		prov_buf_puts(&b, "None");
	} else if (strcmp(tn, "int") == 0 || strcmp(tn, "bool") == 0) {
		if (long_repr(r, obj, v, tn[0] == 'b') < 0)
			bad = 1;
	} else if (strcmp(tn, "float") == 0) {
		double x;

		if (rd(r, obj + 16, &x, 8) < 0)
			bad = 1;
		else
			float_repr(&b, x);
	} else if (strcmp(tn, "str") == 0 || strcmp(tn, "bytes") == 0) {
		uint32_t u[MAX_REPR];
		size_t n = 0, i;

		if (tn[0] == 's') {
			if (str_units(r, obj, u, MAX_REPR, &n, &len) < 0)
				bad = 1;
		} else {
			unsigned char raw[MAX_REPR];

			/* PyBytesObject: ob_size at 16, ob_sval at 32 */
			if (rd_u64(r, obj + 16, &len) < 0 || len > (uint64_t)1 << 36) {
				bad = 1;
			} else {
				n = len > MAX_REPR ? MAX_REPR : (size_t)len;
				if (n && rd(r, obj + 32, raw, n) < 0)
					bad = 1;
				for (i = 0; i < n; i++)
					u[i] = raw[i];
			}
		}
		if (!bad) {
			quoted_repr(&b, u, n, tn[0] == 'b');
			if (n < len) {
				prov_buf_puts(&b, "...");
				v->note = prov_xasprintf("first %zu of %" PRIu64 " characters", n,
							 len);
			}
		}
	} else if (strcmp(tn, "list") == 0 || strcmp(tn, "tuple") == 0 ||
		   strcmp(tn, "dict") == 0 || strcmp(tn, "set") == 0) {
		/* ob_size (list, tuple), ma_used (dict), fill (set) at 16 */
		if (rd_u64(r, obj + 16, &len) < 0 || len > (uint64_t)1 << 48)
			prov_buf_printf(&b, "<%s object at 0x%" PRIx64 ">", tn, obj);
		else
			prov_buf_printf(&b, "<%s object at 0x%" PRIx64 ", len %" PRIu64 ">", tn,
					obj, len);
	} else {
		prov_buf_printf(&b, "<%s object at 0x%" PRIx64 ">", tn, obj);
	}
	if (bad && !v->note)
		v->note = prov_xasprintf("cannot read the %s at 0x%" PRIx64, tn, obj);
	if (!bad && !v->value && b.len)
		v->value = prov_buf_detach(&b);
	prov_buf_release(&b);
}

/* The frame's arguments and locals into f; a note on pt when unreadable. */
static void frame_vars(struct py_reader *r, struct py_thread *pt, struct py_code *c,
		       uint64_t frame, struct py_frame *f)
{
	uint64_t *slots;
	size_t i;

	if (r->o.fr_localsplus <= 0 || r->o.co_argcount <= 0)
		return;
	if (code_vars(r, c) < 0) {
		if (!pt->vars_note && c->vars_note)
			pt->vars_note = prov_xstrdup(c->vars_note);
		return;
	}
	slots = prov_xcalloc(c->nv ? c->nv : 1, 8);
	if (c->nv && rd(r, at(frame, r->o.fr_localsplus), slots, c->nv * 8) < 0) {
		if (!pt->vars_note)
			pt->vars_note = prov_xasprintf("cannot read the variables of the Python "
						       "frame at 0x%" PRIx64, frame);
		free(slots);
		return;
	}
	f->has_vars = 1;
	if (c->nargs)
		f->args = prov_xcalloc(c->nargs, sizeof(*f->args));
	if (c->nv > c->nargs)
		f->locals = prov_xcalloc(c->nv - c->nargs, sizeof(*f->locals));
	for (i = 0; i < c->nv; i++) {
		struct prov_var *v = i < c->nargs ? &f->args[f->nargs++] : &f->locals[f->nlocals++];
		uint64_t obj = slots[i];
		int cell = c->vkinds && (c->vkinds[i] & (CO_FAST_CELL | CO_FAST_FREE));

		v->name = prov_xstrdup(c->vnames[i]);
		if (r->o.code_tagged) {
			/* 3.14: _PyStackRef, tag bits low */
			if ((obj & 3) == 3) {
				v->note = prov_xstrdup("a tagged value (not shown)");
				continue;
			}
			obj &= ~(uint64_t)3;
		}
		if (!obj) {
			v->note = prov_xstrdup("unbound (not assigned yet)");
			continue;
		}
		object_repr(r, obj, cell, v);
		r->bytes += strlen(v->name) + (v->value ? strlen(v->value) : 0) + 64;
	}
	free(slots);
}

/* ---- frames ---- */

static void frames_free(struct py_frame *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].file);
		prov_vars_free(f[i].args, f[i].nargs);
		prov_vars_free(f[i].locals, f[i].nlocals);
	}
	free(f);
}

/* The thread state's innermost frame pointer. */
static int first_frame(struct py_reader *r, uint64_t ts, uint64_t *out)
{
	uint64_t cf;

	if (r->o.ts_cframe >= 0) {
		if (rd_u64(r, at(ts, r->o.ts_cframe), &cf) < 0)
			return -1;
		if (!cf) {
			*out = 0;
			return 0;
		}
		return rd_u64(r, at(cf, r->o.cf_current_frame), out);
	}
	return rd_u64(r, at(ts, r->o.ts_frame), out);
}

static int frame_line(struct py_reader *r, const struct py_code *c, uint64_t frame, int *incomplete)
{
	const struct py_offsets *o = &r->o;

	*incomplete = 0;
	if (o->frames == PY_FRAME_OBJECT) {
		int32_t lasti;

		if (rd_i32(r, at(frame, o->fr_lasti), &lasti) < 0)
			return -1;
		if (o->lines == PY_LINE_LNOTAB)
			return lnotab_line(c->table, c->ntable, c->firstlineno, lasti);
		return linetable310_line(c->table, c->ntable, c->firstlineno,
					 lasti < 0 ? lasti : (int64_t)lasti * 2);
	} else {
		uint64_t ip, base = at(c->addr, o->co_code_adaptive);
		int64_t unit;

		if (rd_u64(r, at(frame, o->fr_instr), &ip) < 0)
			return -1;
		unit = ((int64_t)(ip - base)) / 2;
		/* 3.11/3.12: a frame whose RESUME has not run yet is incomplete
		 * (_PyFrame_IsIncomplete in pycore_frame.h) */
		if (o->co_firsttraceable >= 0 && unit < c->firsttraceable)
			*incomplete = 1;
		if (unit > (int64_t)1 << 30)
			return -1;
		return prov_python_loctable_line(c->table, c->ntable, c->firstlineno, unit);
	}
}

/*
 * One thread state's frames, innermost first, each marked entry when it is
 * the outermost frame of its eval call.
 */
static void read_frames(struct py_reader *r, struct py_thread *pt)
{
	const struct py_offsets *o = &r->o;
	uint64_t frame, mark = 0;
	size_t steps = 0, power = 1, alloc = 0, nvars = 0;

	if (first_frame(r, pt->addr, &frame) < 0) {
		pt->note = prov_xstrdup("cannot read the thread state's current frame");
		return;
	}
	while (frame) {
		uint64_t code, next;
		unsigned char owner = 0, entry = 0;
		struct py_code *c;
		struct py_frame *f;
		int line, incomplete;

		/* Brent's cycle check: a frame seen again is a loop */
		if (frame == mark) {
			pt->note = prov_xasprintf("frame chain loops at 0x%" PRIx64, frame);
			break;
		}
		if (++steps == power) {
			mark = frame;
			power *= 2;
		}
		if (pt->n >= MAX_PY_FRAMES) {
			pt->note = prov_xasprintf("stopped after %d Python frames", MAX_PY_FRAMES);
			break;
		}
		if (r->frames >= MAX_TOTAL_FRAMES || r->bytes >= MAX_TOTAL_BYTES) {
			pt->note = prov_xstrdup("stopped: the Python frames of all threads exceed "
						"the limit");
			break;
		}
		if (rd_u64(r, at(frame, o->fr_previous), &next) < 0 ||
		    rd_u64(r, at(frame, o->fr_code), &code) < 0 ||
		    (o->fr_owner >= 0 && rd_u8(r, at(frame, o->fr_owner), &owner) < 0) ||
		    (o->fr_is_entry >= 0 && rd_u8(r, at(frame, o->fr_is_entry), &entry) < 0)) {
			pt->note = prov_xasprintf("cannot read the Python frame at 0x%" PRIx64,
						  frame);
			break;
		}
		if (o->code_tagged)
			code &= ~(uint64_t)3;
		if (o->frames == PY_FRAME_OBJECT)
			entry = 1;	/* one eval call per frame object */
		if (o->fr_owner >= 0 && owner >= OWNED_BY_CSTACK) {
			/* the shim frame below an eval call's first frame */
			if (pt->n)
				pt->frames[pt->n - 1].entry = 1;
			frame = next;
			continue;
		}
		c = code_get(r, code);
		if (!c) {
			pt->note = prov_xasprintf("no code object in the Python frame at 0x%" PRIx64,
						  frame);
			break;
		}
		line = frame_line(r, c, frame, &incomplete);
		if (incomplete && owner != OWNED_BY_GENERATOR) {
			if (entry && pt->n)
				pt->frames[pt->n - 1].entry = 1;
			frame = next;
			continue;
		}
		if (pt->n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			pt->frames = prov_xrealloc(pt->frames, alloc * sizeof(*pt->frames));
		}
		f = &pt->frames[pt->n++];
		memset(f, 0, sizeof(*f));
		if (pt->want_vars && nvars < MAX_VAR_FRAMES) {
			nvars++;
			frame_vars(r, pt, c, frame, f);
		}
		f->name = prov_xstrdup_or_null(c->name);
		f->file = prov_xstrdup_or_null(c->file);
		f->line = line > 0 ? line : 0;
		f->entry = entry != 0;
		r->frames++;
		r->bytes += (f->name ? strlen(f->name) : 0) + (f->file ? strlen(f->file) : 0) + 64;
		frame = next;
	}
	if (r->exhausted && !pt->note)
		pt->note = prov_xstrdup("gave up: too many reads of the interpreter state");
	/* the frames' own trouble first, then what kept variables out */
	if (!pt->note)
		pt->note = pt->vars_note;
	else
		free(pt->vars_note);
	pt->vars_note = NULL;
}

/* ---- matching Python threads to native ones ---- */

static struct prov_thread *native_thread(struct prov_crash *c, const struct py_thread *pt)
{
	size_t i, j;

	if (pt->native_id)
		for (i = 0; i < c->nthreads; i++)
			if (c->threads[i].has_tid && (uint64_t)c->threads[i].tid == pt->native_id)
				return &c->threads[i];
	/* 3.8-3.10 know only pthread_self(): on x86-64 glibc, the thread
	 * pointer, which the core keeps as fs_base */
	if (pt->thread_id)
		for (i = 0; i < c->nthreads; i++)
			for (j = 0; j < c->threads[i].nregs; j++)
				if (strcmp(c->threads[i].regs[j].name, "fs_base") == 0 &&
				    c->threads[i].regs[j].value == pt->thread_id)
					return &c->threads[i];
	return NULL;
}

static void take_frame(struct prov_frame *d, struct py_frame *f)
{
	d->python = 1;
	d->function = f->name;
	d->file = f->file;
	d->line = f->line;
	f->name = f->file = NULL;
	d->has_vars = f->has_vars;
	d->args = f->args;
	d->nargs = f->nargs;
	d->locals = f->locals;
	d->nlocals = f->nlocals;
	f->args = f->locals = NULL;
	f->nargs = f->nlocals = 0;
}

static int is_eval_frame(const struct prov_frame *f, const char *name)
{
	return !f->python && f->function && strcmp(f->function, name) == 0;
}

/*
 * Put pt's frames into t: each eval call's group of Python frames (ending
 * at an entry frame) right above (innermost of) the native frame that ran
 * it, as pystack --native orders them; what is left over goes last.
 */
static size_t interleave(struct prov_thread *t, struct py_thread *pt)
{
	const char *eval = "_PyEval_EvalFrameDefault";
	struct prov_frame *out;
	size_t i, k, n = 0, p = 0, room, cap, added = 0, groups = 0, neval = 0;
	size_t crash_frame = t->crash_frame;

	for (i = 0; i < t->nframes; i++)
		neval += is_eval_frame(&t->frames[i], eval);
	if (!neval)
		eval = "PyEval_EvalFrameEx";
	/* native frames all stay; Python frames fill what the model cap leaves */
	room = t->nframes < PROV_MAX_FRAMES ? PROV_MAX_FRAMES - t->nframes : 0;
	if (room > pt->n)
		room = pt->n;
	cap = t->nframes + room;
	out = prov_xcalloc(cap ? cap : 1, sizeof(*out));
	for (i = 0; i < t->nframes; i++) {
		/* the first frame of i's pc group: inlined frames come first */
		int starts_eval = 0;

		for (k = i; k < t->nframes; k++) {
			if (is_eval_frame(&t->frames[k], eval)) {
				starts_eval = 1;
				break;
			}
			if (!t->frames[k].inlined || !t->frames[k].has_pc ||
			    t->frames[k].pc != t->frames[i].pc)
				break;
		}
		if (starts_eval && (i == 0 || !t->frames[i - 1].inlined ||
				    t->frames[i - 1].pc != t->frames[i].pc)) {
			groups++;
			while (p < pt->n && added < room) {
				struct py_frame *f = &pt->frames[p++];

				take_frame(&out[n++], f);
				added++;
				if (f->entry)
					break;
			}
		}
		if (t->has_crash_frame && i == t->crash_frame)
			crash_frame = n;	/* the crash site moves with the frames above it */
		out[n++] = t->frames[i];
	}
	if (p < pt->n && !pt->note)
		pt->note = prov_xasprintf("%zu Python frames without their native eval frame "
					  "(%zu found)", pt->n - p, groups);
	while (p < pt->n && added < room) {
		take_frame(&out[n++], &pt->frames[p++]);
		added++;
	}
	if (p < pt->n)
		t->truncated = 1;
	free(t->frames);
	t->frames = out;
	t->nframes = n;
	t->frames_alloc = cap ? cap : 1;
	t->crash_frame = crash_frame;
	for (i = 0; i < n; i++)
		t->frames[i].index = (int)i;
	return added;
}

/* ---- the runtime ---- */

/* The first note on the interpreter state is kept: later ones follow from it. */
static void crash_note(struct prov_crash *c, char *msg)
{
	if (c->python_note)
		free(msg);
	else
		c->python_note = msg;
}

static int setup_offsets(struct py_reader *r, struct prov_crash *c)
{
	const struct prov_py_target *t = r->t;
	unsigned char head[1024];
	uint64_t hex = 0;

	/* 3.13+: _PyRuntime begins with _Py_DebugOffsets */
	if (rd(r, t->runtime, head, sizeof(head)) == 0 && memcmp(head, PY_DEBUG_COOKIE, 8) == 0) {
		if (py_offsets_from_debug(&r->o, &hex, head, sizeof(head)) < 0) {
			crash_note(c, prov_xasprintf("_PyRuntime's debug offsets in '%s' (version "
							"0x%" PRIx64 ") are damaged or of an unknown "
							"layout", t->module ? t->module : "?", hex));
			return -1;
		}
		c->python_version = prov_xasprintf("%u.%u.%u", (unsigned int)(hex >> 24) & 0xff,
						   (unsigned int)(hex >> 16) & 0xff,
						   (unsigned int)(hex >> 8) & 0xff);
		return 0;
	}
	if (t->major == 3) {
		const struct py_offsets *o = py_offsets_for(t->minor);

		if (o) {
			r->o = *o;
			c->python_version = prov_xasprintf("%u.%u", t->major, t->minor);
			return 0;
		}
		crash_note(c, prov_xasprintf("Python %u.%u: no interpreter-state layout "
						"known for this version", t->major, t->minor));
		return -1;
	}
	crash_note(c, prov_xasprintf("the Python version of '%s' is unknown",
					t->module ? t->module : "?"));
	return -1;
}

size_t prov_python_annotate(struct prov_crash *c, const struct prov_py_target *t)
{
	struct py_reader *r;
	struct py_thread *pts = NULL;
	size_t npts = 0, alloc = 0, i, added = 0, ninterp = 0;
	uint64_t interp, fin = 0, gil_ts = 0;

	if (!c || !t || !t->read || !t->runtime)
		return 0;
	r = prov_xcalloc(1, sizeof(*r));
	r->t = t;
	if (setup_offsets(r, c) < 0)
		goto cleanup;
	if (rd_u64(r, at(t->runtime, r->o.rt_finalizing), &fin) == 0 && fin)
		c->python_finalizing = 1;
	if (r->o.rt_tstate_current >= 0)
		(void)rd_u64(r, at(t->runtime, r->o.rt_tstate_current), &gil_ts);
	if (rd_u64(r, at(t->runtime, r->o.rt_interp_head), &interp) < 0) {
		crash_note(c, prov_xstrdup("cannot read _PyRuntime's interpreter list"));
		goto cleanup;
	}
	while (interp && ninterp < MAX_INTERPS) {
		uint64_t ts, next_interp, holder = 0, mark = 0;
		size_t steps = 0, power = 1;

		ninterp++;
		if (r->o.is_gil_inline >= 0 && r->o.gil_locked >= 0 && r->o.gil_holder >= 0) {
			int32_t locked = 0;

			if (rd_i32(r, at(interp, r->o.gil_locked), &locked) == 0 && locked)
				(void)rd_u64(r, at(interp, r->o.gil_holder), &holder);
		} else if (r->o.is_gil >= 0) {
			uint64_t gil;
			int32_t locked = 0;

			if (rd_u64(r, at(interp, r->o.is_gil), &gil) == 0 && gil &&
			    rd_i32(r, at(gil, r->o.gil_locked), &locked) == 0 && locked)
				(void)rd_u64(r, at(gil, r->o.gil_holder), &holder);
		}
		if (rd_u64(r, at(interp, r->o.is_threads_head), &ts) < 0) {
			crash_note(c, prov_xasprintf("cannot read the thread states of the "
							"interpreter at 0x%" PRIx64, interp));
			break;
		}
		while (ts) {
			struct py_thread *pt;

			if (ts == mark) {
				crash_note(c, prov_xasprintf("thread state list loops at 0x%"
								PRIx64, ts));
				break;
			}
			if (++steps == power) {
				mark = ts;
				power *= 2;
			}
			if (npts >= MAX_PY_THREADS) {
				crash_note(c, prov_xasprintf("stopped after %d Python threads",
								MAX_PY_THREADS));
				break;
			}
			if (npts == alloc) {
				alloc = alloc ? 2 * alloc : 16;
				pts = prov_xrealloc(pts, alloc * sizeof(*pts));
			}
			pt = &pts[npts++];
			memset(pt, 0, sizeof(*pt));
			pt->addr = ts;
			(void)rd_u64(r, at(ts, r->o.ts_thread_id), &pt->thread_id);
			if (r->o.ts_native_thread_id >= 0)
				(void)rd_u64(r, at(ts, r->o.ts_native_thread_id), &pt->native_id);
			pt->holds_gil = ts == gil_ts || ts == holder;
			{
				const struct prov_thread *nt = native_thread(c, pt);

				pt->want_vars = nt && nt->crashed;
			}
			read_frames(r, pt);
			if (rd_u64(r, at(ts, r->o.ts_next), &ts) < 0) {
				crash_note(c, prov_xstrdup("cannot read the next thread state"));
				break;
			}
		}
		if (rd_u64(r, at(interp, r->o.is_next), &next_interp) < 0)
			break;
		interp = next_interp;
	}
	for (i = 0; i < npts; i++) {
		struct prov_thread *nt = native_thread(c, &pts[i]);

		if (!nt)
			continue;	/* a thread state whose thread is gone or not in the core */
		if (nt->python)
			continue;	/* two thread states claim one thread: keep the first */
		nt->python = 1;
		nt->holds_gil = pts[i].holds_gil;
		added += interleave(nt, &pts[i]);
		if (pts[i].note && !nt->python_note) {
			nt->python_note = pts[i].note;
			pts[i].note = NULL;
		}
	}
cleanup:
	for (i = 0; i < npts; i++) {
		frames_free(pts[i].frames, pts[i].n);
		free(pts[i].note);
	}
	free(pts);
	for (i = 0; i < CODE_CACHE; i++)
		code_release(&r->cache[i]);
	for (i = 0; i < TYPE_CACHE; i++)
		free(r->types[i].name);
	free(r);
	return added;
}

/* ---- Python files as modules ---- */

size_t prov_python_file_modules(struct prov_crash *c)
{
	size_t i, j, added = 0;

	for (i = 0; i < c->nthreads; i++)
		for (j = 0; j < c->threads[i].nframes; j++) {
			struct prov_frame *f = &c->threads[i].frames[j];
			struct prov_module *m;

			if (!f->python || f->module || !f->file || f->file[0] != '/')
				continue;
			m = prov_crash_module_by_path(c, f->file);
			if (!m) {
				if (added >= PROV_PYTHON_MAX_FILES || c->nmodules >= PROV_MAX_MODULES)
					continue;
				m = prov_crash_add_module(c);
				m->path = prov_xstrdup(f->file);
				added++;
			}
			f->module = prov_xstrdup(m->path);
		}
	return added;
}

/* ---- names ---- */

int prov_python_is_interpreter(const char *path)
{
	const char *b = path ? prov_basename(path) : NULL;

	return b && (prov_starts_with(b, "libpython3") || prov_starts_with(b, "python3"));
}

int prov_python_version_from_name(unsigned int *major, unsigned int *minor, const char *path)
{
	const char *b = path ? prov_basename(path) : NULL, *p;
	unsigned int mi = 0;
	int digits = 0;

	if (!b)
		return -1;
	p = prov_skip_prefix(b, "libpython3.");
	if (!p)
		p = prov_skip_prefix(b, "python3.");
	if (!p)
		return -1;
	while (*p >= '0' && *p <= '9' && digits < 3) {
		mi = mi * 10 + (unsigned int)(*p++ - '0');
		digits++;
	}
	if (!digits || (*p && *p != '.' && *p != 'd' && *p != 't' && *p != 'm'))
		return -1;
	*major = 3;
	*minor = mi;
	return 0;
}
