#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util.h"
#include "banned.h"

/*
 * prov_version_cmp against dpkg: every expectation below is what
 * `dpkg --compare-versions A lt|eq B` says (Debian 12's dpkg), for the
 * cases triage's lifecycle meets: revisions, '~' pre-releases, epochs,
 * binNMUs, security updates, backports, digit runs as numbers.
 */
static void test_vercmp_dpkg(void **state)
{
	static const struct { const char *a, *b; int want; } cases[] = {
		{ "1.2-1", "1.3-1", -1 },
		{ "1.10-1", "1.9-1", 1 },
		{ "1.2~rc1-1", "1.2-1", -1 },
		{ "1:0.9", "2.0", 1 },
		{ "1.2-1", "1.2-1", 0 },
		{ "1.2-1", "1.2-1+b1", -1 },
		{ "1.2a", "1.2", 1 },
		{ "1.2", "1.2.0", -1 },
		{ "2.36-9+deb12u4", "2.36-9+deb12u10", -1 },
		{ "0001", "1", 0 },
		{ "1.0-1~bpo12+1", "1.0-1", -1 },
		{ "1.2+dfsg-1", "1.2-1", 1 },
		{ "7.88.1-10+deb12u5", "7.88.1-10", 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = prov_version_cmp(cases[i].a, cases[i].b);
		int back = prov_version_cmp(cases[i].b, cases[i].a);

		got = got < 0 ? -1 : got > 0;
		back = back < 0 ? -1 : back > 0;
		if (got != cases[i].want || back != -cases[i].want)
			fail_msg("'%s' vs '%s': %d (back %d), dpkg says %d", cases[i].a, cases[i].b, got, back,
				 cases[i].want);
	}
	assert_int_equal(prov_version_cmp(NULL, ""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vercmp_dpkg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
