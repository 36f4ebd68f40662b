/*
 * Package name, version and repository path from build-system source paths
 * (src/model/buildpath.c). Expected values are read off the paths by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "buildpath.h"
#include "util.h"
#include "banned.h"

static void split(const char *path, const char *want_name, const char *want_version,
		  const char *want_rest)
{
	char *name = NULL, *version = NULL, *rest = NULL;
	int r = prov_buildpath_split(&name, &version, &rest, path);

	if (!want_name) {
		if (r)
			fprintf(stderr, "'%s': expected no match, got %s %s\n", path, name, version);
		assert_int_equal(r, 0);
		assert_null(name);
		return;
	}
	if (!r || strcmp(name, want_name) || (want_version && strcmp(version, want_version)) ||
	    (want_rest && (!rest || strcmp(rest, want_rest))))
		fprintf(stderr, "'%s': expected %s %s %s, got %d %s %s %s\n", path, want_name,
			want_version, want_rest, r, name, version, rest);
	assert_int_equal(r, 1);
	assert_string_equal(name, want_name);
	if (want_version)
		assert_string_equal(version, want_version);
	else
		assert_null(version);
	if (want_rest)
		assert_string_equal(rest, want_rest);
	else
		assert_null(rest);
	free(name);
	free(version);
	free(rest);
}

static void test_fedora(void **state)
{
	(void)state;
	split("/usr/src/debug/rocclr-5.5.1-8.fc39.x86_64/rocclr/cmake/../device/x.hpp", "rocclr",
	      "5.5.1-8.fc39", "rocclr/device/x.hpp");
	split("/usr/src/debug/python3-requests-2.28.1-1.fc37.noarch/src/requests/api.py",
	      "python3-requests", "2.28.1-1.fc37", "src/requests/api.py");
	/* older Fedora: NAME-VERSION only */
	split("/usr/src/debug/thunderbird-3.1.1/comm-1.9.2/mozilla/view/src/nsView.cpp", "thunderbird",
	      "3.1.1", "comm-1.9.2/mozilla/view/src/nsView.cpp");
	split("/builddir/build/BUILD/glibc-2.28/malloc/malloc.c", "glibc", "2.28", "malloc/malloc.c");
}

static void test_debian(void **state)
{
	(void)state;
	split("/build/glibc-LcI20x/glibc-2.31/signal/../sysdeps/unix/sysv/linux/raise.c", "glibc", "2.31",
	      "sysdeps/unix/sysv/linux/raise.c");
	split("/build/buildd/eglibc-2.19/csu/libc-start.c", "eglibc", "2.19", "csu/libc-start.c");
}

static void test_no_match(void **state)
{
	(void)state;
	split("/usr/src/debug/", NULL, NULL, NULL);
	split("/usr/src/debug/noversion/x.c", NULL, NULL, NULL);
	split("/home/me/src/foo-1.2/x.c", NULL, NULL, NULL);
	/* /build/A-xxx/B-1.0: the two directories must name the same source */
	split("/build/foo-abc123/bar-1.0/x.c", NULL, NULL, NULL);
	split("src/x.c", NULL, NULL, NULL);
	/* ".." climbing out of the tree: a package, no repository path */
	split("/usr/src/debug/foo-1.0/../../etc/passwd", "foo", "1.0", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fedora),
		cmocka_unit_test(test_debian),
		cmocka_unit_test(test_no_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
