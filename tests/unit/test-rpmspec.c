#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <stdio.h>
#include <unistd.h>

#include "buf.h"
#include "dep3.h"
#include "error.h"
#include "rpmspec.h"
#include "unit.h"
#include "banned.h"

static void names_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Patch names as rpmspec -P would expand them (checked against rpmspec -P of rpm 4.18 with dist undefined). */
static void test_macros(void **state)
{
	static const char spec[] =
		"# Patch9: a comment\n"
		"%global base  fix\n"
		"%define fixname %{base}-2\n"
		"Name:    libfoo\n"
		"Version: 1.0\n"
		"Release: 3%{?dist}\n"
		"Source0: %{name}-%{version}.tar.gz\n"
		"Patch:   %{name}-%{version}-build.patch\n"
		"Patch1:  https://example.org/p/%fixname.patch\n"
		"patch2 : %{name}-%{release}-100%%.patch\r\n"
		"PatchX: not-a-tag.patch\n"
		"%changelog\n"
		"Patch3: after-changelog.patch\n";
	char **v = NULL;
	size_t n = 0;

	(void)state;
	assert_ok(prov_rpmspec_patch_names(&v, &n, spec, strlen(spec), "t.spec"));
	assert_int_equal(n, 3);
	assert_string_equal(v[0], "libfoo-1.0-build.patch");
	assert_string_equal(v[1], "fix-2.patch");
	assert_string_equal(v[2], "libfoo-3-100%.patch");
	names_free(v, n);
}

static void test_hostile(void **state)
{
	static const char unexpanded[] = "Patch0: %{nosuch}.patch\n";
	static const char dotdot[] = "Patch0: https://x/..\n";
	static const char loop[] = "%global a %{b}\n%global b %{a}\nPatch0: %{a}.patch\n";
	static const char unterminated[] = "Patch0: %{name\n";
	char **v = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(prov_rpmspec_patch_names(&v, &n, unexpanded, strlen(unexpanded), "t"), PROV_EINPUT);
	assert_null(v);
	assert_int_equal(prov_rpmspec_patch_names(&v, &n, dotdot, strlen(dotdot), "t"), PROV_EINPUT);
	assert_int_equal(prov_rpmspec_patch_names(&v, &n, loop, strlen(loop), "t"), PROV_EINPUT);
	assert_int_equal(prov_rpmspec_patch_names(&v, &n, unterminated, strlen(unterminated), "t"), PROV_EINPUT);
	/* no newline at the end, NUL-free but cut */
	assert_ok(prov_rpmspec_patch_names(&v, &n, "Patch0: a.patch", 15, "t"));
	assert_int_equal(n, 1);
	assert_string_equal(v[0], "a.patch");
	names_free(v, n);
}

/*
 * %defines that nest literal references (%% keeps them for later) to macros
 * that expand to nothing: 50 references at each of 8 levels is 50^8 steps
 * without a work budget (issue 27); with it, PROV_ELIMIT at once.
 */
static void test_nested_literal_refs(void **state)
{
	struct prov_buf spec = PROV_BUF_INIT;
	char **v = NULL;
	size_t n = 0;
	int lvl, k;

	(void)state;
	prov_buf_puts(&spec, "%define a0 %{?undefined}\n");
	for (lvl = 1; lvl < 8; lvl++) {
		prov_buf_printf(&spec, "%%define a%d ", lvl);
		for (k = 0; k < 50; k++)
			prov_buf_printf(&spec, "%%%%{a%d}", lvl - 1);
		prov_buf_putc(&spec, '\n');
	}
	prov_buf_puts(&spec, "Patch0: %{a7}fix.patch\n");
	assert_int_equal(prov_rpmspec_patch_names(&v, &n, spec.buf, spec.len, "t"), PROV_ELIMIT);
	assert_null(v);
	prov_buf_release(&spec);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The comment lines above a Patch line are kept with it (the commit they name is evidence). */
static void test_notes(void **state)
{
	char dir[] = "/tmp/prov-rpmspec-XXXXXX", path[256];
	struct prov_rpm_patches p;
	struct prov_dep3 d;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.spec", dir);
	write_file(path, "Name: x\nVersion: 1\n# upstream commit 0a1b2c3d4e5f6789\n# CVE-2024-0001\nPatch0: fix.patch\n"
			 "Patch1: other.patch\n");
	snprintf(path, sizeof(path), "%s/fix.patch", dir);
	write_file(path, "--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n");
	snprintf(path, sizeof(path), "%s/other.patch", dir);
	write_file(path, "--- a/g.c\n+++ b/g.c\n@@ -1 +1 @@\n-a\n+b\n");
	snprintf(path, sizeof(path), "%s/x.spec", dir);
	assert_int_equal(prov_rpm_patches_read(&p, path), 0);
	assert_int_equal(p.n, 2);
	assert_non_null(strstr(p.notes[0], "0a1b2c3d4e5f6789"));
	assert_string_equal(p.notes[1], "");
	assert_non_null(strstr(p.texts[0], "+b"));
	prov_dep3_parse(&d, p.notes[0], strlen(p.notes[0]));
	assert_true(prov_dep3_names(&d, "0a1b2c3d4e5f6789000000000000000000000000"));
	prov_dep3_release(&d);
	prov_rpm_patches_release(&p);
	snprintf(path, sizeof(path), "%s/x.spec", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/fix.patch", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/other.patch", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_macros),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_nested_literal_refs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
