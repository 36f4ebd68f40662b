#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backport.h"
#include "banned.h"

/* The same change as git prints it and as a quilt patch (other prefixes,
 * timestamps, a DEP-3 header, an Index: line) must get the same per-file id. */
static const char git_diff[] =
	"diff --git a/src/a.c b/src/a.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/src/a.c\n"
	"+++ b/src/a.c\n"
	"@@ -1,3 +1,3 @@\n"
	" int a(void)\n"
	"-{ return 1; }\n"
	"+{ return 2; }\n"
	" int b;\n"
	"diff --git a/src/b.c b/src/b.c\n"
	"--- a/src/b.c\n"
	"+++ b/src/b.c\n"
	"@@ -10,2 +10,2 @@ int f(void)\n"
	"-x = 1;\n"
	"+x = 2;\n"
	" y;\n";

static const char quilt[] =
	"Description: backport of the fix\n"
	"Origin: upstream\n"
	"Index: libfoo-1.0/src/a.c\n"
	"===================================================================\n"
	"--- libfoo-1.0.orig/src/a.c\t2024-01-01 10:00:00.000000000 +0000\n"
	"+++ libfoo-1.0/src/a.c\t2024-01-01 10:00:00.000000000 +0000\n"
	"@@ -41,3 +41,3 @@\n"
	" int  a(void)\n"
	"-{ return 1;  }\n"
	"+{ return 2; }\n"
	" int b;\n";

static char *id_of(const char *ids, const char *path)
{
	const char *p = strstr(ids, path);

	if (!p || p[strlen(path)] != '\t')
		return NULL;
	return strndup(p + strlen(path) + 1, 64);
}

static void same_change_same_id(void **state)
{
	char *g = prov_backport_file_ids(git_diff, strlen(git_diff));
	char *q = prov_backport_file_ids(quilt, strlen(quilt));
	char *ga = id_of(g, "src/a.c"), *qa = id_of(q, "src/a.c"), *gb = id_of(g, "src/b.c");

	(void)state;
	assert_non_null(ga);
	assert_non_null(qa);
	assert_non_null(gb);
	assert_string_equal(ga, qa);	/* whitespace and line numbers ignored */
	assert_string_not_equal(ga, gb);
	assert_null(id_of(q, "src/b.c"));
	free(ga);
	free(qa);
	free(gb);
	free(g);
	free(q);
}

static void other_change_other_id(void **state)
{
	static const char other[] =
		"--- a/src/a.c\n+++ b/src/a.c\n@@ -1,3 +1,3 @@\n int a(void)\n-{ return 1; }\n+{ return 3; }\n int b;\n";
	char *g = prov_backport_file_ids(git_diff, strlen(git_diff));
	char *o = prov_backport_file_ids(other, strlen(other));
	char *ga = id_of(g, "src/a.c"), *oa = id_of(o, "src/a.c");

	(void)state;
	assert_non_null(oa);
	assert_string_not_equal(ga, oa);
	free(ga);
	free(oa);
	free(g);
	free(o);
}

static void hostile_input(void **state)
{
	/* cut hunks, huge counts, no newline at the end: no crash, no id for nothing */
	static const char *const bad[] = {
		"--- a/x\n+++ b/x\n@@ -1,99999 +1,99999 @@\n-a",
		"--- a/x\n+++ b/x\n@@ -\n",
		"--- \n+++ \n@@ -1 +1 @@\n-a\n+b\n",
		"--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n\\ No newline at end of file\n",
		"",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *ids = prov_backport_file_ids(bad[i], strlen(bad[i]));

		assert_non_null(ids);
		free(ids);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_change_same_id),
		cmocka_unit_test(other_change_other_id),
		cmocka_unit_test(hostile_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
