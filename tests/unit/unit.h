#ifndef PROV_UNIT_H
#define PROV_UNIT_H

/*
 * Shared by the cmocka unit tests (tests/unit/test-*.c). Include it after
 * <cmocka.h> and before "banned.h".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "util.h"

static inline const char *unit_code_name(long long code)
{
	switch (code) {
	case PROV_ERROR: return "PROV_ERROR";
	case PROV_EINPUT: return "PROV_EINPUT";
	case PROV_ENOTFOUND: return "PROV_ENOTFOUND";
	case PROV_EUSAGE: return "PROV_EUSAGE";
	case PROV_EUNKNOWN: return "PROV_EUNKNOWN";
	case PROV_EPASSTHROUGH: return "PROV_EPASSTHROUGH";
	case PROV_ELIMIT: return "PROV_ELIMIT";
	default: return code > 0 ? "not an error code" : "unnamed code";
	}
}

/*
 * assert_ok(expr): expr, a call that returns 0 or a negative code with its
 * message stored (src/util/error.h), or a variable that holds such a result,
 * must be 0. When it is not, the test fails with the expression, the code
 * and the stored message, not only "0xffffffffffffffff != 0":
 *   ERROR: prov_cache_open(&c, dir) = -1 (PROV_ERROR): cannot create directory '...': Permission denied
 * Use it wherever a test checks that such a call succeeded; keep
 * assert_int_equal for an expected failure (PROV_EINPUT) and for values.
 */
#define assert_ok(expr) do { \
	long long assert_ok__rc = (long long)(expr); \
	if (assert_ok__rc != 0) \
		fail_msg("%s = %lld (%s): %s", #expr, assert_ok__rc, \
			 unit_code_name(assert_ok__rc), \
			 *prov_error_last() ? prov_error_last() : "(no error message stored)"); \
} while (0)

/* unit_sh(fmt, ...): system() of the formatted command line; its status. */
static inline int unit_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int unit_sh(const char *fmt, ...)
{
	struct prov_buf b = PROV_BUF_INIT;
	va_list ap;
	int r;

	va_start(ap, fmt);
	prov_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	r = system(b.buf);
	prov_buf_release(&b);
	return r;
}

/*
 * unit_first_line(fmt, ...): the first line the formatted command prints
 * (without its newline; "" when none), e.g. git rev-parse's answer, the
 * truth a test compares with. The caller frees it.
 */
static inline char *unit_first_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *unit_first_line(const char *fmt, ...)
{
	struct prov_buf b = PROV_BUF_INIT;
	char line[512] = "";
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	prov_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	p = popen(b.buf, "r");
	assert_non_null(p);
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	pclose(p);
	prov_buf_release(&b);
	line[strcspn(line, "\n")] = '\0';
	return prov_xstrdup(line);
}

#endif
