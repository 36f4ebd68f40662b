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
 * Real tag spellings (curl, CPython, OpenSSL, expat, git, libtiff, Django
 * style): each one's kind as the project's own release notes call it.
 */
static void test_prerelease_tags(void **state)
{
	static const char *const pre[] = {
		"v1.4.0-rc1", "2.0.0rc2", "v3.12.0a7", "v3.12.0b1", "OpenSSL_1_1_1-pre9",
		"openssl-3.0.0-alpha17", "openssl-3.0.0-beta2", "v2.39.0-rc0", "1.2.3.dev1",
		"v4.5.0rc1", "v3.0.0-RC1", "v1.0.0-pre.1", "v2.0.0-preview.3", "1.0-beta",
		"v6.0.0-alpha", "glib-2.79.0-rc",
	};
	static const char *const final[] = {
		"R_2_5_0", "curl-7_88_1", "v2.9.14", "v3.6.2", "2.74.7", "OpenSSL_1_1_1w",
		"openssl-3.0.13", "v3.12.0", "v1.4.0", "1.0b", "release-1.2.3", "debian/2.1-1",
		"v252.39", "beta", "rc-tools", "v1.2.3-1", "",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!prov_tag_is_prerelease(pre[i]))
			fail_msg("'%s' is a pre-release", pre[i]);
	for (i = 0; i < sizeof(final) / sizeof(final[0]); i++)
		if (prov_tag_is_prerelease(final[i]))
			fail_msg("'%s' is a final release", final[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prerelease_tags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
