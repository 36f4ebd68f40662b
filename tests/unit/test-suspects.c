#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "suspects.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

/* The function around a line: the expected ranges are counted by hand below. */
static const char c_src[] =
	"#include <stdio.h>\n"				/* 1 */
	"\n"						/* 2 */
	"static int helper(int x);\n"			/* 3: a declaration, not the body */
	"\n"						/* 4 */
	"int\n"						/* 5 */
	"compute(int a,\n"				/* 6 */
	"\tint b)\n"					/* 7 */
	"{\n"						/* 8 */
	"\tconst char *s = \"}{\";\t/* } */\n"		/* 9: braces in a string and a comment */
	"\tif (a) {\n"					/* 10 */
	"\t\treturn helper(b);\t// }\n"			/* 11 */
	"\t}\n"						/* 12 */
	"\treturn a + b + (int)s[0] + '}';\n"		/* 13 */
	"}\n"						/* 14 */
	"\n"						/* 15 */
	"static int helper(int x)\n"			/* 16 */
	"{\n"						/* 17 */
	"\tif (helper(x - 1)) {\n"			/* 18: a call, not the definition */
	"\t\tx++;\n"					/* 19 */
	"\t}\n"					/* 20 */
	"\treturn x * 2;\n"				/* 21 */
	"}\n";						/* 22 */

static const char cxx_src[] =
	"namespace ns {\n"				/* 1 */
	"class A {\n"					/* 2 */
	"public:\n"					/* 3 */
	"\tint run(int n) {\n"				/* 4 */
	"\t\treturn n + 1;\n"				/* 5 */
	"\t}\n"						/* 6 */
	"};\n"						/* 7 */
	"template <typename T> T twice(T v)\n"		/* 8 */
	"{\n"						/* 9 */
	"\treturn v * 2;\n"				/* 10 */
	"}\n"						/* 11 */
	"}\n";						/* 12 */

static void range(const char *src, const char *fn, int line, int want_start, int want_end)
{
	struct prov_line_range r = { 0, 0 };
	int err = prov_suspects_function_range(&r, src, strlen(src), fn, line);

	if (want_start == 0) {
		assert_int_equal(err, PROV_ENOTFOUND);
		return;
	}
	if (err || r.start != want_start || r.end != want_end)
		fprintf(stderr, "%s at %d: expected %d-%d, got %d (%d-%d)\n", fn, line, want_start,
			want_end, err, r.start, r.end);
	assert_ok(err);
	assert_int_equal(r.start, want_start);
	assert_int_equal(r.end, want_end);
}

static void test_c(void **state)
{
	(void)state;
	range(c_src, "compute", 11, 6, 14);
	range(c_src, "compute", 13, 6, 14);
	range(c_src, "compute(int, int)", 9, 6, 14);
	range(c_src, "helper", 19, 16, 22);
	range(c_src, "helper", 21, 16, 22);
	/* a line outside the named function: no range */
	range(c_src, "helper", 13, 0, 0);
	range(c_src, "compute", 19, 0, 0);
	range(c_src, "nosuch", 11, 0, 0);
	range(c_src, NULL, 11, 0, 0);
	range(c_src, "compute", 0, 0, 0);
	range(c_src, "compute", 500, 0, 0);
}

static void test_cxx(void **state)
{
	(void)state;
	range(cxx_src, "ns::A::run(int)", 5, 4, 6);
	range(cxx_src, "int ns::twice<int>(int)", 10, 8, 11);
	range(cxx_src, "ns::twice<int>", 10, 8, 11);
}

static void test_hostile(void **state)
{
	/* unbalanced braces, a name at the very end, NUL-free garbage: no crash, no range */
	static const char bad1[] = "int f(void)\n{\n\treturn 1;\n";
	static const char bad2[] = "f(";
	static const char bad3[] = "int f(void) { /* never closed\n";

	(void)state;
	range(bad1, "f", 3, 0, 0);
	range(bad2, "f", 1, 0, 0);
	range(bad3, "f", 1, 0, 0);
	range("", "f", 1, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c),
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
