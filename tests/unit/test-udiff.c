/*
 * The one unified-diff reader (src/util/udiff.c), above all where the four
 * readers it replaced disagreed: hunks.c (fixcheck's hunks), backport.c
 * (per-file patch ids), srcimport.c (quilt patches into git diffs) and
 * dep3.c (where a patch's header ends). Each case says what each old reader
 * did and what the one reader does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "udiff.h"
#include "banned.h"

/* The name one side of a "+++ " line gets with -p`strip`, or NULL when refused ("/dev/null" for it). */
static char *name_of(const char *line, int strip, unsigned flags)
{
	char *out = NULL;
	int dev_null = 0;

	if (prov_udiff_path(&out, &dev_null, line, strlen(line), strip, flags) < 0)
		return NULL;
	return dev_null ? strdup("/dev/null") : out;
}

static void assert_name(const char *line, int strip, unsigned flags, const char *want)
{
	char *got = name_of(line, strip, flags);

	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
	free(got);
}

/* The events of a whole text as letters: F file, H hunk, B bad hunk, L line, N no-eol, C cut, G git, O other. */
static void events(char *out, size_t cap, const char *text, int strip)
{
	static const char letters[] = "EFHBLNCGO";
	struct prov_udiff d;
	size_t n = 0;
	int ev;

	prov_udiff_init(&d, text, strlen(text), strip, 0);
	while ((ev = prov_udiff_next(&d)) != PROV_UDIFF_END && n + 1 < cap)
		out[n++] = letters[ev];
	out[n] = '\0';
	prov_udiff_release(&d);
}

static void test_names(void **state)
{
	(void)state;
	/* the plain cases every reader agreed on */
	assert_name("+++ b/src/x.c\t2024-01-01 10:00:00", 1, 0, "src/x.c");
	assert_name("+++ /dev/null", 1, 0, "/dev/null");
	assert_name("+++ src/x.c  ", 0, 0, "src/x.c");
	/*
	 * ".." in a name. hunks.c and backport.c kept "../../etc/passwd";
	 * srcimport refused it. One rule: refused.
	 */
	assert_name("+++ b/../../etc/passwd", 1, 0, NULL);
	assert_name("+++ b/src/../x.c", 1, 0, "x.c");
	/*
	 * An absolute name with -p0. hunks.c kept "/etc/passwd"; backport.c
	 * stripped its empty first component ("etc/passwd"); srcimport refused
	 * it. One rule: refused.
	 */
	assert_name("+++ /etc/passwd", 0, 0, NULL);
	/*
	 * Repeated slashes after a stripped component. hunks.c kept "/x.c"
	 * (absolute); srcimport squeezed them as patch(1) does ("x.c"). One
	 * rule: squeezed, then normalised.
	 */
	assert_name("+++ b//x.c", 1, 0, "x.c");
	assert_name("+++ b/./src//x.c", 1, 0, "src/x.c");
	/*
	 * Fewer components than -p. hunks.c and srcimport refused the name;
	 * backport.c kept a name with no slash whole. One rule: refused, unless
	 * the caller asks for PROV_UDIFF_STRIP_AT_MOST (backport's ids do).
	 */
	assert_name("+++ x.c", 1, 0, NULL);
	assert_name("+++ x.c", 1, PROV_UDIFF_STRIP_AT_MOST, "x.c");
	assert_name("+++ b/", 1, 0, NULL);
	/*
	 * A C-quoted git name. hunks.c and backport.c refused it; srcimport
	 * kept the quote characters in the name. One rule: refused.
	 */
	assert_name("+++ \"b/sp ace.c\"", 1, 0, NULL);
	/*
	 * A CR before the end (a CRLF patch). hunks.c cut the name at the CR;
	 * srcimport dropped a trailing CR. One rule: cut at the CR.
	 */
	assert_name("+++ b/x.c\r", 1, 0, "x.c");
	assert_name("", 0, 0, NULL);
}

static void test_hunk_headers(void **state)
{
	struct prov_udiff d;
	const char *t = "--- a/x\n+++ b/x\n@@ -3 +4,2 @@ int f(void)  \n-a\n+b\n+c\n";
	char ev[64];

	(void)state;
	/* an omitted count is 1 (every reader agreed) */
	prov_udiff_init(&d, t, strlen(t), 1, 0);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_FILE);
	assert_string_equal(d.old_path, "x");
	assert_string_equal(d.new_path, "x");
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_HUNK);
	assert_int_equal(d.old_start, 3);
	assert_int_equal(d.old_count, 1);
	assert_int_equal(d.new_start, 4);
	assert_int_equal(d.new_count, 2);
	assert_int_equal(d.header_len, strlen("@@ -3 +4,2 @@"));
	assert_int_equal(d.function_len, strlen("int f(void)"));
	assert_memory_equal(d.function, "int f(void)", d.function_len);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_LINE);
	assert_int_equal(d.origin, '-');
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_LINE);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_LINE);
	assert_int_equal(d.in_hunk, 0);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_END);
	prov_udiff_release(&d);
	/*
	 * No blank before the closing "@@". hunks.c accepted it; srcimport
	 * refused it as malformed; backport.c did not look for the "@@". One
	 * rule: accepted.
	 */
	events(ev, sizeof(ev), "--- a/x\n+++ b/x\n@@ -1 +1@@\n-a\n+b\n", 1);
	assert_string_equal(ev, "FHLL");
	/*
	 * A header that is not one. hunks.c skipped the line; backport.c read
	 * a hunk of no lines; srcimport failed. One rule: PROV_UDIFF_BAD_HUNK,
	 * its lines then read as other lines (each caller decides).
	 */
	events(ev, sizeof(ev), "--- a/x\n+++ b/x\n@@ -1,x +1 @@\n-a\n+b\n", 1);
	assert_string_equal(ev, "FBOO");
	/*
	 * Numbers past 100,000,000. hunks.c read up to 10 digits; srcimport
	 * refused counts over 100,000,000, backport.c took any strtol value.
	 * One rule: at most 9 digits and 100,000,000.
	 */
	events(ev, sizeof(ev), "--- a/x\n+++ b/x\n@@ -1,100000001 +1 @@\n-a\n", 1);
	assert_string_equal(ev, "FBO");
	/* a hunk header before any file is an other line (all agreed) */
	events(ev, sizeof(ev), "@@ -1 +1 @@\n-a\n", 1);
	assert_string_equal(ev, "OO");
}

static void test_bodies(void **state)
{
	char ev[64];

	(void)state;
	/*
	 * An empty line inside a hunk: a context line whose blank was trimmed
	 * (every reader agreed; srcimport writes it back as " ").
	 */
	events(ev, sizeof(ev), "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n\n", 1);
	assert_string_equal(ev, "FHLLL");
	/*
	 * "\ No newline at end of file" inside and after a hunk: hunks.c and
	 * backport.c skipped one after the hunk, srcimport copied every one.
	 * One rule: each is PROV_UDIFF_NOEOL, never counted.
	 */
	events(ev, sizeof(ev), "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"
			       "\\ No newline at end of file\n", 1);
	assert_string_equal(ev, "FHLNLN");
	/*
	 * A hunk shorter than its header. hunks.c and backport.c ended it at
	 * the first other line; srcimport failed. One rule: PROV_UDIFF_CUT,
	 * then that line is read again (here a next file).
	 */
	events(ev, sizeof(ev), "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+b\n--- a/y\n+++ b/y\n", 1);
	assert_string_equal(ev, "FHLLLLC");	/* "--- a/y" is a - line of the hunk; "+++ b/y" a + line */
	events(ev, sizeof(ev), "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+b\ndiff --git a/y b/y\n", 1);
	assert_string_equal(ev, "FHLLCG");
	events(ev, sizeof(ev), "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n", 1);
	assert_string_equal(ev, "FHLC");
	/*
	 * A "--- "/"+++ " pair inside a hunk's counted lines is two hunk lines
	 * (hunks.c, backport.c and srcimport agreed; relocate_hunks in
	 * srcimport reset its file on any "--- " line).
	 */
	events(ev, sizeof(ev), "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n--- a/y\n+++ b/y\n", 1);
	assert_string_equal(ev, "FHLLC");
	/* a NUL byte ends the text (hunks.c and dep3.c; srcimport read on) */
	{
		struct prov_udiff d;
		const char t[] = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\0\n+b\n";

		prov_udiff_init(&d, t, sizeof(t) - 1, 1, 0);
		assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_FILE);
		assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_HUNK);
		assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_LINE);
		assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_CUT);
		assert_null(d.line);
		assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_END);
		prov_udiff_release(&d);
	}
}

static void test_files(void **state)
{
	struct prov_udiff d;
	const char *t = "diff --git a/n.c b/n.c\nnew file mode 100644\n--- /dev/null\n+++ b/n.c\n@@ -0,0 +1 @@\n+x\n"
			"diff --git a/g.c b/g.c\ndeleted file mode 100644\n--- a/g.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n"
			"--- /dev/null\n+++ /dev/null\n@@ -1 +1 @@\n-z\n";
	char ev[64];

	(void)state;
	prov_udiff_init(&d, t, strlen(t), 1, 0);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_GIT);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_OTHER);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_FILE);
	assert_true(d.new_file && !d.deleted_file && d.file_ok);
	assert_null(d.old_path);
	assert_string_equal(d.new_path, "n.c");
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_HUNK);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_LINE);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_GIT);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_OTHER);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_FILE);
	assert_true(!d.new_file && d.deleted_file && d.file_ok);
	assert_string_equal(d.old_path, "g.c");
	assert_null(d.new_path);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_HUNK);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_LINE);
	/* both sides /dev/null: no file (hunks.c skipped it, srcimport failed) */
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_FILE);
	assert_false(d.file_ok);
	assert_int_equal(prov_udiff_next(&d), PROV_UDIFF_OTHER);
	prov_udiff_release(&d);
	/* a pure rename has no ---/+++: its git lines are other lines */
	events(ev, sizeof(ev), "diff --git a/o.c b/r.c\nsimilarity index 100%\nrename from o.c\nrename to r.c\n", 1);
	assert_string_equal(ev, "GOOO");
	/* a refused name: the file's hunks are not read */
	events(ev, sizeof(ev), "--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n", 1);
	assert_string_equal(ev, "FOOO");
}

static void test_diff_start(void **state)
{
	(void)state;
	/* dep3.c's rule, kept: where a distribution patch's header ends */
	assert_true(prov_udiff_is_diff_start("---", 3));
	assert_true(prov_udiff_is_diff_start("--- a/x", 7));
	assert_true(prov_udiff_is_diff_start("+++ b/x", 7));
	assert_true(prov_udiff_is_diff_start("diff --git a/x b/x", 18));
	assert_true(prov_udiff_is_diff_start("Index: x", 8));
	assert_true(prov_udiff_is_diff_start("@@ -1 +1 @@", 11));
	assert_false(prov_udiff_is_diff_start("----", 4));
	assert_false(prov_udiff_is_diff_start("Description: x", 14));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_hunk_headers),
		cmocka_unit_test(test_bodies),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_diff_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
