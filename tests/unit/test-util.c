/* src/util: prov_mkdir_p (util.h) and the cache layout (cachedir.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cachedir.h"
#include "error.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

static char tmpdir[] = "/tmp/prov-test-util.XXXXXX";

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int setup(void **state)
{
	(void)state;
	umask(022);
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	return st.st_mode & 07777;
}

static void test_parse_size(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(prov_parse_size(&v, "0", (size_t)-1), 0);
	assert_int_equal(v, 0);
	assert_int_equal(prov_parse_size(&v, "512", (size_t)-1), 0);
	assert_int_equal(v, 512);
	assert_int_equal(prov_parse_size(&v, "3k", (size_t)-1), 0);
	assert_int_equal(v, 3072);
	assert_int_equal(prov_parse_size(&v, "2M", (size_t)-1), 0);
	assert_int_equal(v, (uint64_t)2 << 20);
	assert_int_equal(prov_parse_size(&v, "1024T", (size_t)-1), 0);	/* 2^50: the most */
	assert_int_equal(v, (uint64_t)1 << 50);
	assert_int_equal(prov_parse_size(&v, "12Mx", 3), 0);	/* len bounds it */
	assert_int_equal(v, (uint64_t)12 << 20);
	v = 7;
	assert_int_equal(prov_parse_size(&v, "1025T", (size_t)-1), PROV_ERROR);
	assert_int_equal(prov_parse_size(&v, "18446744073709551615G", (size_t)-1), PROV_ERROR);
	assert_int_equal(prov_parse_size(&v, "", (size_t)-1), PROV_ERROR);
	assert_int_equal(prov_parse_size(&v, "K", (size_t)-1), PROV_ERROR);
	assert_int_equal(prov_parse_size(&v, "-1", (size_t)-1), PROV_ERROR);
	assert_int_equal(prov_parse_size(&v, "1.5G", (size_t)-1), PROV_ERROR);
	assert_int_equal(prov_parse_size(&v, "10KB", (size_t)-1), PROV_ERROR);
	assert_int_equal(v, 7);	/* untouched on failure */
}

static void test_mkdir_p(void **state)
{
	char *deep = prov_xasprintf("%s/a/b/c", tmpdir);
	char *mid = prov_xasprintf("%s/a/b", tmpdir);
	char *file = prov_xasprintf("%s/f/g/store.sqlite", tmpdir);
	char *parent = prov_xasprintf("%s/f/g", tmpdir);
	struct stat st;

	(void)state;
	assert_ok(prov_mkdir_p(deep, 0700, 0));
	assert_int_equal(mode_of(deep), 0700);
	assert_int_equal(mode_of(mid), 0700);
	/* an existing directory is fine, and its mode is left alone */
	assert_ok(prov_mkdir_p(deep, 0755, 0));
	assert_int_equal(mode_of(deep), 0700);
	/* a trailing slash and doubled slashes */
	free(deep);
	deep = prov_xasprintf("%s/x//y/", tmpdir);
	assert_ok(prov_mkdir_p(deep, 0755, 0));
	assert_int_equal(mode_of(deep), 0755);
	/* parents only: the file to come is not made */
	assert_ok(prov_mkdir_p(file, 0700, PROV_MKDIR_PARENTS));
	assert_int_equal(mode_of(parent), 0700);
	assert_int_equal(stat(file, &st), -1);
	free(deep);
	free(mid);
	free(file);
	free(parent);
}

static void test_mkdir_p_fails(void **state)
{
	char *plain = prov_xasprintf("%s/plain", tmpdir);
	char *under = prov_xasprintf("%s/plain/sub/dir", tmpdir);
	char *want = prov_xasprintf("cannot create directory '%s/plain/sub': Not a directory", tmpdir);
	int fd;

	(void)state;
	fd = open(plain, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(prov_mkdir_p(under, 0700, 0), PROV_ERROR);
	assert_string_equal(prov_error_last(), want);
	/* a path the user gave (--store) is bad input */
	assert_int_equal(prov_mkdir_p(under, 0700, PROV_MKDIR_PARENTS | PROV_MKDIR_INPUT),
			 PROV_EINPUT);
	assert_string_equal(prov_error_last(), want);
	free(plain);
	free(under);
	free(want);
}

static void test_cachedir(void **state)
{
	static const struct {
		enum prov_cachedir_part part;
		const char *name;
	} parts[] = {
		{ PROV_CACHEDIR_DB, "cache.sqlite" },
		{ PROV_CACHEDIR_STORE, "store.sqlite" },
		{ PROV_CACHEDIR_MIRRORS, "mirrors" },
		{ PROV_CACHEDIR_IMPORTS, "imports" },
		{ PROV_CACHEDIR_DOWNLOADS, "downloads" },
		{ PROV_CACHEDIR_DEBUGINFOD, "debuginfod" },
		{ PROV_CACHEDIR_TMP, "tmp" },
		{ PROV_CACHEDIR_HOSTS, "hosts-down" },
		{ PROV_CACHEDIR_DEBUG_PLAIN, "debug-plain" },
	};
	size_t i;
	char *p;

	(void)state;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		char *want = prov_xasprintf("/c/%s", parts[i].name);

		assert_string_equal(prov_cachedir_name(parts[i].part), parts[i].name);
		p = prov_cachedir_path("/c", parts[i].part);
		assert_string_equal(p, want);
		free(p);
		free(want);
	}
	p = prov_cachedir_pathf("/c", PROV_CACHEDIR_MIRRORS, "%s-%.4s.git", "host-proj", "abcdef");
	assert_string_equal(p, "/c/mirrors/host-proj-abcd.git");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_mkdir_p),
		cmocka_unit_test(test_mkdir_p_fails),
		cmocka_unit_test(test_cachedir),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
