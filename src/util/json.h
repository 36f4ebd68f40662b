#ifndef PROV_JSON_H
#define PROV_JSON_H

#include <stdint.h>

#include "buf.h"

/*
 * A streaming JSON writer into a prov_buf, two-space indented. Strings are
 * escaped (control characters as \u00XX; invalid UTF-8 bytes replaced by
 * U+FFFD so the output always parses). A NULL string is written as null.
 * Errors (the buffer's cap) are sticky: check prov_json_finish().
 */
struct prov_json {
	struct prov_buf *out;
	int depth;
	int need_comma[64];
	int after_key;
	int error;
};

void prov_json_init(struct prov_json *j, struct prov_buf *out);
/* 0, or the first error (PROV_ELIMIT); adds the final newline. */
int prov_json_finish(struct prov_json *j);

void prov_json_begin_object(struct prov_json *j);
void prov_json_end_object(struct prov_json *j);
void prov_json_begin_array(struct prov_json *j);
void prov_json_end_array(struct prov_json *j);
void prov_json_key(struct prov_json *j, const char *key);

void prov_json_string(struct prov_json *j, const char *s);
void prov_json_int(struct prov_json *j, int64_t v);
/* A number with a fixed count of decimals (NaN and infinities as 0). */
void prov_json_fixed(struct prov_json *j, double v, int decimals);
/* A real that reads back to the same double (shortest of %.15g..%.17g);
 * JSON has no Inf/NaN, so a non-finite value is written as null. */
void prov_json_real(struct prov_json *j, double v);
/* The shortest of %.15g..%.17g that reads back to v (size >= 32). */
void prov_real_format(char *buf, size_t size, double v);
void prov_json_bool(struct prov_json *j, int v);
void prov_json_null(struct prov_json *j);
void prov_json_hex(struct prov_json *j, uint64_t v);	/* "0x1234" */

/* key + value shorthands */
void prov_json_kv_string(struct prov_json *j, const char *key, const char *s);
void prov_json_kv_int(struct prov_json *j, const char *key, int64_t v);
void prov_json_kv_bool(struct prov_json *j, const char *key, int v);
void prov_json_kv_null(struct prov_json *j, const char *key);
void prov_json_kv_hex(struct prov_json *j, const char *key, uint64_t v);

/* Append `s` escaped as a JSON string literal (with quotes) to a buffer. */
int prov_json_quote(struct prov_buf *out, const char *s);

#endif
