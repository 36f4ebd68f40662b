/* SQLite functions whose one VM step still keeps the query's deadline (sqlite-guard.h). */
#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

#include "sqlite-guard.h"
#include "util.h"
#include "banned.h"

/*
 * Replacements for SQLite's like(), glob(), instr(), replace() and
 * trim/ltrim/rtrim(X,Y) that keep SQLite 3.40's results (func.c:
 * likeFunc/patternCompare, instrFunc, replaceFunc, trimFunc) and hold a
 * deadline inside one call. See sqlite-guard.h.
 */

/* How many inner steps between two looks at the clock. */
#define GUARD_EVERY 4096u

static const char timeout_msg[] = "query ran past its time limit";

int prov_sql_guard_expired(struct prov_sql_guard *g)
{
	if (!g || !g->timeout_ms)
		return 0;
	if (g->timed_out || prov_now_ms() - g->start_ms > g->timeout_ms) {
		g->timed_out = 1;
		return 1;
	}
	return 0;
}

/* One character as sqlite3Utf8Read() reads it; *pz must not be at the NUL. */
static uint32_t u8read(const unsigned char **pz)
{
	const unsigned char *z = *pz;
	uint32_t c = *z++;

	if (c >= 0xc0) {
		if (c >= 0xfe)
			c = 0;
		else if (c >= 0xfc)
			c &= 0x01;
		else if (c >= 0xf8)
			c &= 0x03;
		else if (c >= 0xf0)
			c &= 0x07;
		else if (c >= 0xe0)
			c &= 0x0f;
		else
			c &= 0x1f;
		while ((*z & 0xc0) == 0x80)
			c = (c << 6) + (0x3fu & *z++);
		if (c < 0x80 || (c & 0xFFFFF800u) == 0xD800 || (c & 0xFFFFFFFEu) == 0xFFFE)
			c = 0xFFFD;
	}
	*pz = z;
	return c;
}

/* SQLITE_SKIP_UTF8 */
static const unsigned char *u8skip(const unsigned char *z)
{
	if (*z++ >= 0xc0)
		while ((*z & 0xc0) == 0x80)
			z++;
	return z;
}

struct matcher {
	int glob;		/* '*', '?', '[...]', case-sensitive */
	int has_all, has_one, has_esc;
	uint32_t esc;		/* LIKE's ESCAPE character */
};

static uint32_t lower_ascii(uint32_t c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* GLOB's [...] at *pp (after the '['), against the character at *ps. */
static int match_set(const unsigned char **pp, const unsigned char **ps)
{
	const unsigned char *p = *pp;
	uint32_t c = u8read(ps), c2, prior = 0;
	int seen = 0, invert = 0;

	c2 = *p ? u8read(&p) : 0;
	if (c2 == '^') {
		invert = 1;
		c2 = *p ? u8read(&p) : 0;
	}
	if (c2 == ']') {
		if (c == ']')
			seen = 1;
		c2 = *p ? u8read(&p) : 0;
	}
	while (c2 && c2 != ']') {
		if (c2 == '-' && p[0] != ']' && p[0] && prior > 0) {
			c2 = u8read(&p);
			if (c >= prior && c <= c2)
				seen = 1;
			prior = 0;
		} else {
			if (c == c2)
				seen = 1;
			prior = c2;
		}
		c2 = *p ? u8read(&p) : 0;
	}
	*pp = p;
	return c2 && (seen ^ invert);
}

/* Whether the pattern token at p matches any run of characters. */
static int is_all(const struct matcher *m, const unsigned char *p)
{
	if (m->glob)
		return *p == '*';
	return m->has_all && *p == '%';
}

/* One token of the pattern (not a '%' / '*') against one character; both advance. */
static int match_one(const struct matcher *m, const unsigned char **pp, const unsigned char **ps)
{
	uint32_t c = u8read(pp), sc;

	if (m->glob) {
		if (c == '?') {
			u8read(ps);
			return 1;
		}
		if (c == '[')
			return match_set(pp, ps);
		return c == u8read(ps);
	}
	if (m->has_one && c == '_') {
		u8read(ps);
		return 1;
	}
	if (m->has_esc && c == m->esc) {
		if (!**pp)
			return 0;	/* an escape at the end matches nothing */
		c = u8read(pp);
	}
	sc = u8read(ps);
	if (c == sc)
		return 1;
	return c < 0x80 && sc < 0x80 && lower_ascii(c) == lower_ascii(sc);
}

/*
 * 1: `s` matches the pattern `p`, 0: it does not, -1: the deadline passed.
 * One backtrack point, the last '%' / '*': the text between two stars
 * matches a fixed number of characters, so retrying the last star one
 * character later is all an earlier star could add. O(|p| * |s|).
 */
static int pattern_match(const struct matcher *m, const unsigned char *p, const unsigned char *s,
			 struct prov_sql_guard *g)
{
	const unsigned char *bp = NULL, *bs = NULL, *np, *ns;
	unsigned n = 0;

	for (;;) {
		if (++n % GUARD_EVERY == 0 && prov_sql_guard_expired(g))
			return -1;
		if (is_all(m, p)) {
			while (is_all(m, p))
				p++;
			if (!*p)
				return 1;
			bp = p;
			bs = s;
			continue;
		}
		if (!*p) {
			if (!*s)
				return 1;
		} else {
			if (!*s)
				return 0;
			np = p;
			ns = s;
			if (match_one(m, &np, &ns)) {
				p = np;
				s = ns;
				continue;
			}
		}
		if (!bp || !*bs)
			return 0;
		u8read(&bs);
		p = bp;
		s = bs;
	}
}

static void match_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv, int glob)
{
	struct prov_sql_guard *g = sqlite3_user_data(ctx);
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	const unsigned char *pat = sqlite3_value_text(argv[0]);
	const unsigned char *str = sqlite3_value_text(argv[1]);
	struct matcher m = { .glob = glob, .has_all = 1, .has_one = 1 };
	int npat = sqlite3_value_bytes(argv[0]), rc;

	if (npat > sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, -1)) {
		sqlite3_result_error(ctx, "LIKE or GLOB pattern too complex", -1);
		return;
	}
	if (argc == 3) {
		const unsigned char *e = sqlite3_value_text(argv[2]);

		if (!e)
			return;
		if (!*e || *u8skip(e)) {
			sqlite3_result_error(ctx, "ESCAPE expression must be a single character", -1);
			return;
		}
		m.esc = u8read(&e);
		m.has_esc = 1;
		if (m.esc == '%')
			m.has_all = 0;
		if (m.esc == '_')
			m.has_one = 0;
	}
	if (!pat || !str)
		return;
	rc = pattern_match(&m, pat, str, g);
	if (rc < 0)
		sqlite3_result_error(ctx, timeout_msg, -1);
	else
		sqlite3_result_int(ctx, rc);
}

static void like_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	match_fn(ctx, argc, argv, 0);
}

static void glob_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	match_fn(ctx, argc, argv, 1);
}

/* instr(X,Y): 1-based position in characters (bytes for two blobs), 0 if absent. */
static void instr_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct prov_sql_guard *g = sqlite3_user_data(ctx);
	sqlite3_value *c1 = NULL, *c2 = NULL;
	const unsigned char *h, *nd, *hit, *from;
	int th = sqlite3_value_type(argv[0]), tn = sqlite3_value_type(argv[1]);
	int nh, nn, text = 1;
	int64_t pos = 1, i;
	unsigned n = 0;

	(void)argc;
	if (th == SQLITE_NULL || tn == SQLITE_NULL)
		return;
	if (th == SQLITE_BLOB && tn == SQLITE_BLOB) {
		h = sqlite3_value_blob(argv[0]);
		nh = sqlite3_value_bytes(argv[0]);
		nd = sqlite3_value_blob(argv[1]);
		nn = sqlite3_value_bytes(argv[1]);
		text = 0;
	} else if (th != SQLITE_BLOB && tn != SQLITE_BLOB) {
		h = sqlite3_value_text(argv[0]);
		nh = sqlite3_value_bytes(argv[0]);
		nd = sqlite3_value_text(argv[1]);
		nn = sqlite3_value_bytes(argv[1]);
	} else {
		c1 = sqlite3_value_dup(argv[0]);
		c2 = sqlite3_value_dup(argv[1]);
		h = c1 ? sqlite3_value_text(c1) : NULL;
		nh = h ? sqlite3_value_bytes(c1) : 0;
		nd = c2 ? sqlite3_value_text(c2) : NULL;
		nn = nd ? sqlite3_value_bytes(c2) : 0;
		if (!h || !nd) {
			sqlite3_result_error_nomem(ctx);
			goto cleanup;
		}
	}
	if (nn <= 0) {
		sqlite3_result_int(ctx, 1);
		goto cleanup;
	}
	if ((nh && !h) || !nd) {
		sqlite3_result_error_nomem(ctx);
		goto cleanup;
	}
	/* SQLite looks only at character starts: a hit inside a character is skipped */
	for (from = h;;) {
		hit = nn <= nh - (from - h) ? memmem(from, (size_t)(nh - (from - h)), nd, (size_t)nn) : NULL;
		if (!hit) {
			pos = 0;
			break;
		}
		if (!text || hit == h || (*hit & 0xc0) != 0x80)
			break;
		from = hit + 1;
		if (++n % GUARD_EVERY == 0 && prov_sql_guard_expired(g)) {
			sqlite3_result_error(ctx, timeout_msg, -1);
			goto cleanup;
		}
	}
	if (hit) {
		if (!text)
			pos = 1 + (hit - h);
		else
			for (i = 1; i < hit - h; i++)
				pos += (h[i] & 0xc0) != 0x80;
		if (text && hit > h)
			pos++;
	}
	sqlite3_result_int64(ctx, pos);
cleanup:
	sqlite3_value_free(c1);
	sqlite3_value_free(c2);
}

/* replace(X,Y,Z): every Y in X (bytes, left to right, not overlapping) by Z. */
static void replace_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	const unsigned char *str, *pat, *rep, *at, *hit;
	unsigned char *out = NULL, *grown;
	int64_t nstr, npat, nrep, cap, len = 0, limit;

	(void)argc;
	if (!(str = sqlite3_value_text(argv[0])))
		return;
	nstr = sqlite3_value_bytes(argv[0]);
	if (!(pat = sqlite3_value_text(argv[1])))
		return;
	if (!pat[0]) {
		sqlite3_result_value(ctx, argv[0]);
		return;
	}
	npat = sqlite3_value_bytes(argv[1]);
	if (!(rep = sqlite3_value_text(argv[2])))
		return;
	nrep = sqlite3_value_bytes(argv[2]);
	limit = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1);
	cap = nstr + 1;
	if (!(out = sqlite3_malloc64((sqlite3_uint64)cap))) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	for (at = str; (hit = npat <= nstr - (at - str) ?
			      memmem(at, (size_t)(nstr - (at - str)), pat, (size_t)npat) : NULL);) {
		memcpy(out + len, at, (size_t)(hit - at));
		len += hit - at;
		if (len + nrep + (nstr - (hit + npat - str)) + 1 > cap) {
			cap = len + nrep + (nstr - (hit + npat - str)) + 1;
			if (cap - 1 > limit) {
				sqlite3_free(out);
				sqlite3_result_error_toobig(ctx);
				return;
			}
			cap += cap / 2 < limit ? cap / 2 : 0;
			if (!(grown = sqlite3_realloc64(out, (sqlite3_uint64)cap))) {
				sqlite3_free(out);
				sqlite3_result_error_nomem(ctx);
				return;
			}
			out = grown;
		}
		memcpy(out + len, rep, (size_t)nrep);
		len += nrep;
		at = hit + npat;
	}
	memcpy(out + len, at, (size_t)(nstr - (at - str)));
	len += nstr - (at - str);
	out[len] = 0;
	sqlite3_result_text64(ctx, (const char *)out, (sqlite3_uint64)len, sqlite3_free, SQLITE_UTF8);
}

/* trim(X,Y), ltrim, rtrim: SQLite's loop (every character of Y tried at each end), with the clock. */
static void trim_common(sqlite3_context *ctx, sqlite3_value **argv, int flags)
{
	struct prov_sql_guard *g = sqlite3_user_data(ctx);
	const unsigned char *in, *set, *z, **chars = NULL;
	int64_t nin, nchar = 0, i, *lens = NULL, len = 0;
	unsigned n = 0;

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (!(in = sqlite3_value_text(argv[0])))
		return;
	nin = sqlite3_value_bytes(argv[0]);
	if (!(set = sqlite3_value_text(argv[1])))
		return;
	for (z = set; *z; nchar++)
		z = u8skip(z);
	if (nchar > 0) {
		chars = sqlite3_malloc64((sqlite3_uint64)nchar * (sizeof(*chars) + sizeof(*lens)));
		if (!chars) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		lens = (int64_t *)(void *)(chars + nchar);
		for (z = set, i = 0; *z; i++) {
			chars[i] = z;
			z = u8skip(z);
			lens[i] = z - chars[i];
		}
	}
	for (int side = 1; side <= 2; side <<= 1) {
		if (!(flags & side))
			continue;
		while (nin > 0) {
			for (i = 0; i < nchar; i++) {
				if (++n % GUARD_EVERY == 0 && prov_sql_guard_expired(g)) {
					sqlite3_free(chars);
					sqlite3_result_error(ctx, timeout_msg, -1);
					return;
				}
				len = lens[i];
				if (len <= nin && !memcmp(side == 1 ? in : in + nin - len, chars[i], (size_t)len))
					break;
			}
			if (i >= nchar)
				break;
			if (side == 1)
				in += len;
			nin -= len;
		}
	}
	sqlite3_free(chars);
	sqlite3_result_text64(ctx, (const char *)in, (sqlite3_uint64)nin, SQLITE_TRANSIENT, SQLITE_UTF8);
}

static void trim_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	trim_common(ctx, argv, 3);
}

static void ltrim_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	trim_common(ctx, argv, 1);
}

static void rtrim_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	trim_common(ctx, argv, 2);
}

static const struct {
	const char *name;
	int nargs;
	void (*fn)(sqlite3_context *, int, sqlite3_value **);
} guard_fns[] = {
	{ "like", 2, like_fn },
	{ "like", 3, like_fn },
	{ "glob", 2, glob_fn },
	{ "instr", 2, instr_fn },
	{ "replace", 3, replace_fn },
	{ "trim", 2, trim_fn },
	{ "ltrim", 2, ltrim_fn },
	{ "rtrim", 2, rtrim_fn },
};

static int register_fns(sqlite3 *db, struct prov_sql_guard *g)
{
	size_t i;

	for (i = 0; i < sizeof(guard_fns) / sizeof(guard_fns[0]); i++)
		if (sqlite3_create_function_v2(db, guard_fns[i].name, guard_fns[i].nargs,
					       SQLITE_UTF8 | SQLITE_DETERMINISTIC, g, guard_fns[i].fn,
					       NULL, NULL, NULL) != SQLITE_OK)
			return -1;
	return 0;
}

int prov_sql_guard_install(sqlite3 *db, struct prov_sql_guard *g)
{
	return register_fns(db, g);
}

void prov_sql_guard_remove(sqlite3 *db)
{
	(void)register_fns(db, NULL);
}
