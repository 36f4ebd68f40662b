#ifndef PROV_UNIT_H
#define PROV_UNIT_H

/*
 * Shared by the cmocka unit tests (tests/unit/test-*.c). Include it after
 * <cmocka.h> and before "banned.h".
 */
#include "error.h"

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

#endif
