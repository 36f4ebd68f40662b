/* The resolvers' kit: cargo-auditable's .dep-v0 section (zlib-compressed JSON) read within caps. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kit-cargo.h"
#include "jsonread.h"
#include "error.h"
#include "util.h"
#include "banned.h"

void prov_cargo_audit_release(struct prov_cargo_audit *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++) {
		free(a->pkgs[i].name);
		free(a->pkgs[i].version);
		free(a->pkgs[i].source);
		free(a->pkgs[i].deps);
	}
	free(a->pkgs);
	memset(a, 0, sizeof(*a));
}

/* Inflate a zlib stream into a new buffer of at most PROV_CARGO_MAX_JSON bytes. */
static int inflate_capped(char **out, size_t *outlen, const void *data, size_t len)
{
	z_stream zs;
	char *buf = NULL;
	size_t alloc = 0, have = 0;
	int zr, err = 0;

	memset(&zs, 0, sizeof(zs));
	if (len > PROV_CARGO_MAX_SECTION)
		return prov_error_set(PROV_ELIMIT, "section of %zu bytes (at most %zu read)", len,
				      PROV_CARGO_MAX_SECTION);
	if (inflateInit(&zs) != Z_OK)
		return prov_error_set(PROV_ERROR, "zlib: cannot start inflating");
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)len;
	do {
		if (have == alloc) {
			if (alloc > PROV_CARGO_MAX_JSON) {
				err = prov_error_set(PROV_ELIMIT, "decompresses to more than %zu bytes",
						     PROV_CARGO_MAX_JSON);
				goto cleanup;
			}
			alloc = alloc ? alloc * 2 : 65536;
			if (alloc > PROV_CARGO_MAX_JSON + 1)
				alloc = PROV_CARGO_MAX_JSON + 1;
			buf = prov_xrealloc(buf, alloc + 1);
		}
		zs.next_out = (Bytef *)buf + have;
		zs.avail_out = (uInt)(alloc - have);
		zr = inflate(&zs, Z_NO_FLUSH);
		have = alloc - zs.avail_out;
		if (have > PROV_CARGO_MAX_JSON) {
			err = prov_error_set(PROV_ELIMIT, "decompresses to more than %zu bytes",
					     PROV_CARGO_MAX_JSON);
			goto cleanup;
		}
		if (zr == Z_BUF_ERROR && (zs.avail_in == 0 || zs.avail_out)) {
			err = prov_error_set(PROV_EINPUT, "truncated zlib stream");
			goto cleanup;
		}
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			err = prov_error_set(PROV_EINPUT, "not a zlib stream (%s)",
					     zr == Z_DATA_ERROR ? "data error" : "zlib error");
			goto cleanup;
		}
	} while (zr != Z_STREAM_END);
	buf[have] = '\0';
	*out = buf;
	*outlen = have;
	buf = NULL;
cleanup:
	inflateEnd(&zs);
	free(buf);
	return err;
}

/* Before parsing: nesting depth and the count of values, so that a hostile text costs little. */
static int prescan(const char *s, size_t n)
{
	size_t i, values = 0;
	int depth = 0, in_str = 0;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"') {
			in_str = 1;
		} else if (c == '[' || c == '{') {
			if (++depth > PROV_CARGO_MAX_DEPTH)
				return prov_error_set(PROV_ELIMIT, "JSON nested deeper than %d",
						      PROV_CARGO_MAX_DEPTH);
			values++;
		} else if (c == ']' || c == '}') {
			depth--;
		} else if (c == ',') {
			values++;
		}
		if (values > PROV_CARGO_MAX_VALUES)
			return prov_error_set(PROV_ELIMIT, "more than %d JSON values",
					      PROV_CARGO_MAX_VALUES);
	}
	return 0;
}

static int is_crate_name(const char *s)
{
	size_t i;

	if (!s || !s[0])
		return 0;
	for (i = 0; s[i]; i++)
		if (i >= 64 || !((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
				 (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

/* semver's characters: digits first, then [0-9A-Za-z.+-], at most 128 bytes */
static int is_semver(const char *s)
{
	size_t i;

	if (!s || !(s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; s[i]; i++)
		if (i >= 128 || !((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
				  (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '+' ||
				  s[i] == '-'))
			return 0;
	return 1;
}

static int is_source_word(const char *s)
{
	size_t i;

	if (!s || !s[0])
		return 0;
	for (i = 0; s[i]; i++)
		if (i >= 256 || (unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

/* A JSON number that is a plain non-negative integer below n: 1 and *v. */
static int index_below(size_t *v, const struct prov_jv *j, size_t n)
{
	size_t i, x = 0;

	if (!j || j->type != PROV_JV_NUMBER || !j->str || !j->str[0] || j->len > 9)
		return 0;
	for (i = 0; i < j->len; i++) {
		if (j->str[i] < '0' || j->str[i] > '9')
			return 0;
		x = x * 10 + (size_t)(j->str[i] - '0');
	}
	if (x >= n)
		return 0;
	*v = x;
	return 1;
}

/* One package object (index i of n) into *p. */
static int read_package(struct prov_cargo_pkg *p, const struct prov_jv *o, size_t i, size_t n,
			int *is_root)
{
	const struct prov_jv *deps = prov_jv_get(o, "dependencies"), *kind = prov_jv_get(o, "kind"),
		*root = prov_jv_get(o, "root");
	const char *name = prov_jv_get_str(o, "name"), *version = prov_jv_get_str(o, "version"),
		*source = prov_jv_get_str(o, "source");
	size_t k;

	if (o->type != PROV_JV_OBJECT)
		return prov_error_set(PROV_EINPUT, "package %zu is not an object", i);
	if (!is_crate_name(name))
		return prov_error_set(PROV_EINPUT, "package %zu: the name is not a crate name", i);
	if (!is_semver(version))
		return prov_error_set(PROV_EINPUT, "package %zu: the version is not a semver", i);
	if (!is_source_word(source))
		return prov_error_set(PROV_EINPUT, "package %zu: the source is not a printable word", i);
	if (kind && !(prov_jv_str(kind) && (!strcmp(kind->str, "build") || !strcmp(kind->str, "runtime"))))
		return prov_error_set(PROV_EINPUT, "package %zu: kind is neither build nor runtime", i);
	if (root && root->type != PROV_JV_BOOL)
		return prov_error_set(PROV_EINPUT, "package %zu: root is not a boolean", i);
	if (deps && deps->type != PROV_JV_ARRAY)
		return prov_error_set(PROV_EINPUT, "package %zu: dependencies is not an array", i);
	p->name = prov_xstrdup(name);
	p->version = prov_xstrdup(version);
	p->source = prov_xstrdup(source);
	p->build = kind && !strcmp(kind->str, "build");
	*is_root = root && root->boolean;
	if (!deps || !deps->n)
		return 0;
	p->deps = prov_xcalloc(deps->n, sizeof(*p->deps));
	for (k = 0; k < deps->n; k++) {
		if (!index_below(&p->deps[k], &deps->items[k], n))
			return prov_error_set(PROV_EINPUT, "package %zu: dependency %zu is not an index "
					      "below %zu", i, k, n);
		p->ndeps++;
	}
	return 0;
}

int prov_cargo_audit_parse(struct prov_cargo_audit *out, const void *data, size_t len)
{
	struct prov_cargo_audit a;
	struct prov_jv *v = NULL;
	const struct prov_jv *pk, *fmt;
	char *text = NULL;
	size_t tlen = 0, i, nroots = 0;
	int err;

	memset(&a, 0, sizeof(a));
	memset(out, 0, sizeof(*out));
	if ((err = inflate_capped(&text, &tlen, data, len)) < 0 || (err = prescan(text, tlen)) < 0)
		goto cleanup;
	if ((err = prov_jv_parse(&v, text, tlen)) < 0)
		goto cleanup;
	pk = prov_jv_get(v, "packages");
	if (v->type != PROV_JV_OBJECT || !pk || pk->type != PROV_JV_ARRAY) {
		err = prov_error_set(PROV_EINPUT, "not cargo-auditable's format (no packages array)");
		goto cleanup;
	}
	if (pk->n > PROV_CARGO_MAX_PACKAGES) {
		err = prov_error_set(PROV_ELIMIT, "more than %d packages", PROV_CARGO_MAX_PACKAGES);
		goto cleanup;
	}
	fmt = prov_jv_get(v, "format");
	if (fmt) {
		size_t f;

		if (!index_below(&f, fmt, 1000000000)) {
			err = prov_error_set(PROV_EINPUT, "format is not a small integer");
			goto cleanup;
		}
		a.format = f;
	}
	a.pkgs = prov_xcalloc(pk->n ? pk->n : 1, sizeof(*a.pkgs));
	for (i = 0; i < pk->n; i++) {
		int is_root = 0;

		err = read_package(&a.pkgs[i], &pk->items[i], i, pk->n, &is_root);
		a.n = i + 1;	/* released whole on failure */
		if (err < 0)
			goto cleanup;
		if (is_root) {
			a.root = i;
			nroots++;
		}
	}
	if (nroots != 1) {
		err = prov_error_set(PROV_EINPUT, "%zu root packages (the format has one)", nroots);
		goto cleanup;
	}
	*out = a;
	memset(&a, 0, sizeof(a));
cleanup:
	prov_cargo_audit_release(&a);
	prov_jv_free(v);
	free(text);
	return err;
}
