#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "util.h"
#include "cache.h"
#include "unit.h"
#include "banned.h"

static char tmpdir[] = "/tmp/prov-test-cache.XXXXXX";
static int nwarn;
static char lastwarn[512];

static void sink(const char *msg, void *data)
{
	nwarn++;
	snprintf(lastwarn, sizeof(lastwarn), "%s", msg);
}

static int setup(void **state)
{
	assert_non_null(mkdtemp(tmpdir));
	prov_warn_set_sink(sink, NULL);
	return 0;
}

static int teardown(void **state)
{
	char *cmd = prov_xasprintf("rm -rf '%s'", tmpdir);

	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	free(cmd);
	return 0;
}

static int count_pkg(const struct prov_origin *o, int shlib, void *data)
{
	(*(int *)data)++;
	return 0;
}

static void test_index_roundtrip(void **state)
{
	struct prov_cache *c = NULL;
	struct prov_cache_pkg pkgs[2];
	char *files[3] = { (char *)"/usr/lib/libfoo.so.1", (char *)"/usr/bin/foo", (char *)"/usr/lib/libfoo.so.1" };
	size_t owner[3] = { 0, 1, 1 }, got[4], n;
	struct prov_origin *o = NULL;
	struct prov_cache_stats st;
	int64_t id = 0, id2 = 0;
	int cnt = 0;
	char *dir = prov_xasprintf("%s/a/b", tmpdir);
	struct stat sb;

	assert_ok(prov_cache_open(&c, dir));
	assert_int_equal(stat(dir, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);
	memset(pkgs, 0, sizeof(pkgs));
	pkgs[0].name = "libfoo1";
	pkgs[0].version = "1:2.0-3";
	pkgs[0].source = "foo";
	pkgs[0].shlib = 1;
	pkgs[1].name = "foo-bin";
	pkgs[1].version = "1:2.0-3";
	assert_int_equal(prov_cache_index_find(&id, c, "dpkg", "/r", "/var/lib/dpkg/status", "1:2:3"), PROV_ENOTFOUND);
	assert_ok(prov_cache_index_write(&id, c, "dpkg", "/r", "/var/lib/dpkg/status", "1:2:3",
					 pkgs, 2, files, owner, 3));
	assert_ok(prov_cache_index_find(&id2, c, "dpkg", "/r", "/var/lib/dpkg/status", "1:2:3"));
	assert_int_equal(id, id2);
	/* another identity (the database changed), another root: not found */
	assert_int_equal(prov_cache_index_find(&id2, c, "dpkg", "/r", "/var/lib/dpkg/status", "1:2:4"), PROV_ENOTFOUND);
	assert_int_equal(prov_cache_index_find(&id2, c, "dpkg", "/other", "/var/lib/dpkg/status", "1:2:3"), PROV_ENOTFOUND);

	assert_ok(prov_cache_index_lookup(got, &n, 4, c, id, "/usr/lib/libfoo.so.1"));
	assert_int_equal(n, 2);
	assert_int_equal(got[0], 0);	/* insertion order */
	assert_int_equal(got[1], 1);
	assert_ok(prov_cache_index_lookup(got, &n, 4, c, id, "/nope"));
	assert_int_equal(n, 0);
	assert_ok(prov_cache_index_pkg(&o, c, id, 0));
	assert_string_equal(o->kind, "dpkg");
	assert_string_equal(o->name, "libfoo1");
	assert_string_equal(o->source, "foo");
	assert_null(o->arch);
	prov_origin_free(o);
	assert_int_equal(prov_cache_index_pkg(&o, c, id, 7), PROV_ENOTFOUND);
	assert_ok(prov_cache_index_foreach_pkg(c, id, 1, count_pkg, &cnt));
	assert_int_equal(cnt, 1);

	/* rewriting replaces, never duplicates */
	assert_ok(prov_cache_index_write(&id2, c, "dpkg", "/r", "/var/lib/dpkg/status", "9:9:9",
					 pkgs, 1, files, owner, 1));
	assert_ok(prov_cache_stats(&st, c));
	assert_int_equal(st.nindexes, 1);
	assert_int_equal(st.npackages, 1);
	assert_int_equal(st.nfiles, 1);

	/* resolutions by build ID */
	o = prov_xcalloc(1, sizeof(*o));
	o->kind = prov_xstrdup("rpm");
	o->name = prov_xstrdup("qux");
	o->found_by = prov_xstrdup("rpm");
	o->guess = 1;
	assert_ok(prov_cache_resolution_put(c, "/", "abcd", o));
	prov_origin_free(o);
	o = NULL;
	assert_ok(prov_cache_resolution_get(&o, c, "/", "abcd"));
	assert_string_equal(o->name, "qux");
	assert_string_equal(o->found_by, "rpm");
	assert_int_equal(o->guess, 1);
	prov_origin_free(o);
	assert_int_equal(prov_cache_resolution_get(&o, c, "/x", "abcd"), PROV_ENOTFOUND);
	prov_cache_free(c);

	/* reopen: the data is still there */
	assert_ok(prov_cache_open(&c, dir));
	assert_ok(prov_cache_index_find(&id, c, "dpkg", "/r", "/var/lib/dpkg/status", "9:9:9"));
	prov_cache_free(c);
	prov_cache_free(NULL);
	free(dir);
}

static void test_garbage_set_aside(void **state)
{
	struct prov_cache *c = NULL;
	char *dir = prov_xasprintf("%s/garbage", tmpdir);
	char *path = prov_xasprintf("%s/cache.sqlite", dir);
	char *cmd = prov_xasprintf("ls '%s' | grep -c 'cache.sqlite.corrupt-'", dir);
	FILE *f;
	int64_t id;
	int i;

	assert_int_equal(mkdir(dir, 0700), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	for (i = 0; i < 3000; i++)
		fputc((i * 7919) & 0xff, f);
	fclose(f);
	nwarn = 0;
	assert_ok(prov_cache_open(&c, dir));
	assert_int_equal(nwarn, 1);
	assert_non_null(strstr(lastwarn, "corrupt"));
	assert_int_equal(prov_cache_index_find(&id, c, "dpkg", "/", "/s", "x"), PROV_ENOTFOUND);
	prov_cache_free(c);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fgetc(f), '1');
	pclose(f);
	free(cmd);
	free(path);
	free(dir);
}

static int bad_blob_count;

static int count_blob(const unsigned char *b, size_t n, void *data)
{
	bad_blob_count++;
	return 0;
}

static void test_sqlite_blobs_not_db(void **state)
{
	char *path = prov_xasprintf("%s/not-a-db", tmpdir);
	FILE *f = fopen(path, "w");
	int fd;

	assert_non_null(f);
	fputs("this is not an SQLite database, not even close, but long enough to look at", f);
	fclose(f);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(prov_cache_sqlite_blobs(fd, path, "Packages", "blob", count_blob, NULL), PROV_EINPUT);
	assert_int_equal(bad_blob_count, 0);
	close(fd);
	free(path);
}

static void test_clear_refuses(void **state)
{
	char *dir = prov_xasprintf("%s/clear", tmpdir);
	char *keep = prov_xasprintf("%s/keep", dir);
	char *home = getenv("HOME") ? prov_xstrdup(getenv("HOME")) : NULL;
	struct prov_cache *c = NULL;

	assert_int_equal(prov_cache_clear_dir("/"), PROV_EINPUT);
	assert_int_equal(prov_cache_clear_dir("//"), PROV_EINPUT);
	setenv("HOME", dir, 1);
	assert_int_equal(prov_cache_clear_dir(dir), PROV_EINPUT);
	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	assert_ok(prov_cache_open(&c, dir));
	prov_cache_free(c);
	assert_int_equal(mkdir(keep, 0700), 0);
	assert_ok(prov_cache_clear_dir(dir));
	assert_int_equal(access(keep, F_OK), 0);
	{
		char *db = prov_xasprintf("%s/cache.sqlite", dir);

		assert_int_not_equal(access(db, F_OK), 0);
		free(db);
	}
	free(home);
	free(keep);
	free(dir);
}

static char *memo_text(const char *dir)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *path = prov_xasprintf("%s/cache.memo", dir);

	if (prov_read_file(&b, path, 1 << 20) < 0) {
		free(path);
		prov_buf_release(&b);
		return NULL;
	}
	free(path);
	return prov_buf_detach(&b);
}

/*
 * The memo: answers put in one run are there in the next (written when the
 * cache closes, beside the database), a lazily opened cache answers them
 * without opening SQLite (no -wal appears), keys with a tab or values with a
 * newline are refused, and a database changed since drops every answer.
 */
static void test_memo(void **state)
{
	struct prov_cache *c = NULL;
	char *dir = prov_xasprintf("%s/memo", tmpdir);
	char *db = prov_xasprintf("%s/cache.sqlite", dir), *wal = prov_xasprintf("%s-wal", db);
	char *v = NULL, *text;
	struct stat st;
	int64_t id = 0;

	/* a first run makes the database (a new cache is opened at once) */
	assert_ok(prov_cache_open_lazy(&c, dir));
	assert_int_equal(prov_cache_index_find(&id, c, "dpkg", "/", "/s", "x"), PROV_ENOTFOUND);
	assert_int_equal(prov_cache_memo_get(&v, c, "k1"), PROV_ENOTFOUND);
	prov_cache_memo_put(c, "k1", "v\tone");
	prov_cache_memo_put(c, "k1", "ignored: the first answer stands");
	prov_cache_memo_put(c, "bad\tkey", "x");
	prov_cache_memo_put(c, "k2", "bad\nvalue");
	assert_ok(prov_cache_memo_get(&v, c, "k1"));
	assert_string_equal(v, "v\tone");
	free(v);
	v = NULL;
	prov_cache_free(c);
	c = NULL;
	text = memo_text(dir);
	assert_non_null(text);
	assert_true(!strncmp(text, "provenance-memo 1 ", 18));
	assert_non_null(strstr(text, "\nk1\tv\tone\n"));
	assert_null(strstr(text, "bad"));
	assert_null(strstr(text, "ignored"));
	free(text);

	/* the next run: answered without SQLite */
	assert_ok(prov_cache_open_lazy(&c, dir));
	assert_ok(prov_cache_memo_get(&v, c, "k1"));
	assert_string_equal(v, "v\tone");
	free(v);
	v = NULL;
	assert_int_equal(stat(wal, &st), -1);
	prov_cache_free(c);
	c = NULL;

	/* the database changed since: the memo is not trusted */
	assert_int_equal(truncate(db, 0), 0);
	assert_ok(prov_cache_open_lazy(&c, dir));
	assert_int_equal(prov_cache_memo_get(&v, c, "k1"), PROV_ENOTFOUND);
	prov_cache_free(c);
	free(db);
	free(wal);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_roundtrip),
		cmocka_unit_test(test_garbage_set_aside),
		cmocka_unit_test(test_sqlite_blobs_not_db),
		cmocka_unit_test(test_clear_refuses),
		cmocka_unit_test(test_memo),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
