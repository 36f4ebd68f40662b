#ifndef PROV_JSONREAD_H
#define PROV_JSONREAD_H

#include <stddef.h>

/*
 * A small JSON reader for the JSON that installed systems carry
 * (.note.package, direct_url.json, conda-meta files). The input is
 * untrusted: depth, node count and string length are capped, strings must
 * be valid UTF-8 (escapes included), and numbers are kept as their text
 * (never converted, so huge numbers cannot overflow anything).
 */
enum prov_jv_type {
	PROV_JV_NULL,
	PROV_JV_BOOL,
	PROV_JV_NUMBER,
	PROV_JV_STRING,
	PROV_JV_ARRAY,
	PROV_JV_OBJECT,
};

struct prov_jv {
	enum prov_jv_type type;
	int boolean;	/* PROV_JV_BOOL */
	char *str;	/* PROV_JV_STRING (decoded) and PROV_JV_NUMBER (as written) */
	size_t len;	/* bytes in str (a string may hold \u0000) */
	struct prov_jv *items;	/* ARRAY elements, OBJECT values */
	char **keys;	/* OBJECT keys (decoded), parallel to items */
	size_t n;
};

#define PROV_JV_MAX_DEPTH 64
#define PROV_JV_MAX_NODES 4000000
#define PROV_JV_MAX_INPUT ((size_t)256 << 20)

/*
 * Parse one JSON value filling the whole of [text, text+len) (whitespace
 * around it allowed). 0 and *out set (free with prov_jv_free); PROV_EINPUT
 * for malformed JSON or bad UTF-8 (message names the byte offset);
 * PROV_ELIMIT when a cap is hit. Nothing is written to *out on failure.
 */
int prov_jv_parse(struct prov_jv **out, const char *text, size_t len);
void prov_jv_free(struct prov_jv *v);	/* NULL-safe */

/* The value of `key` in an object (the last one if repeated), or NULL. */
const struct prov_jv *prov_jv_get(const struct prov_jv *obj, const char *key);
/* The string of v when it is a string without NUL bytes, else NULL. */
const char *prov_jv_str(const struct prov_jv *v);
/* prov_jv_str(prov_jv_get(obj, key)). */
const char *prov_jv_get_str(const struct prov_jv *obj, const char *key);

#endif
