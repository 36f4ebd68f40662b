#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "signature.h"
#include "store.h"
#include "error.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

static void test_parse_time(void **state)
{
	char out[21];

	(void)state;
	assert_ok(prov_store_parse_time(out, "2026-10-02"));
	assert_string_equal(out, "2026-10-02T00:00:00Z");
	assert_ok(prov_store_parse_time(out, "2026-10-02T09:14"));
	assert_string_equal(out, "2026-10-02T09:14:00Z");
	assert_ok(prov_store_parse_time(out, "2026-10-02 09:14:59Z"));
	assert_string_equal(out, "2026-10-02T09:14:59Z");
	/* python3: datetime.fromtimestamp(1790000000, timezone.utc) */
	assert_ok(prov_store_parse_time(out, "@1790000000"));
	assert_string_equal(out, "2026-09-21T14:13:20Z");
	assert_int_equal(prov_store_parse_time(out, "2026-02-30"), PROV_EINPUT);
	assert_int_equal(prov_store_parse_time(out, "2026-13-01"), PROV_EINPUT);
	assert_int_equal(prov_store_parse_time(out, "2026-10-02T09:14+02:00"), PROV_EINPUT);
	assert_int_equal(prov_store_parse_time(out, "yesterday"), PROV_EINPUT);
	assert_int_equal(prov_store_parse_time(out, "@-5"), PROV_EINPUT);
	assert_int_equal(prov_store_parse_time(out, ""), PROV_EINPUT);
}

static const char report_a[] =
	"{\"schema\":\"provenance/1\",\"input\":{\"path\":\"core.1\",\"kind\":\"core\"},"
	"\"signal\":{\"number\":11,\"name\":\"SIGSEGV\"},"
	"\"crash\":{\"context\":\"runtime\",\"patterns\":[{\"id\":\"null-deref\"}],\"host\":\"n1\","
	"\"time\":\"2026-10-02T09:00:00Z\"},"
	"\"threads\":[{\"tid\":2,\"crashed\":false,\"frames\":[{\"function\":\"idle\"}]},"
	"{\"tid\":1,\"crashed\":true,\"frames\":[{\"function\":\"f0\",\"line\":3},{\"function\":null},"
	"{\"function\":\"f1\"},{\"function\":\"f2\"},{\"function\":\"f3\"},{\"function\":\"f4\"},"
	"{\"function\":\"f5\"}]}],"
	"\"modules\":[],\"components\":[{\"name\":\"rccl\",\"version\":\"2.20.1\"}]}";

static void test_signature(void **state)
{
	char *sig;

	(void)state;
	/* the crashing thread, names only, three of them (docs/signature.md) */
	sig = prov_store_signature_of(report_a, strlen(report_a));
	assert_non_null(sig);
	assert_string_equal(sig, "11|f0|f1|f2");
	free(sig);
	assert_null(prov_store_signature_of("{\"schema\":\"other\"}", 19));
	assert_null(prov_store_signature_of("[1,", 3));
}

/* The same crash as report_a as a model: resolve's signature is the store's. */
static void test_signature_model(void **state)
{
	static const char *const names[] = { "f0", NULL, "f1", "f2", "f3", "f4", "f5" };
	struct prov_crash *c = prov_crash_new(PROV_INPUT_CORE, "core.1");
	struct prov_thread *t;
	char *sig;
	size_t i;

	(void)state;
	t = prov_crash_add_thread(c);
	prov_thread_add_frame(t)->function = prov_xstrdup("idle");
	t = prov_crash_add_thread(c);
	t->crashed = 1;
	c->has_crashed_thread = 1;
	c->crashed_thread = 1;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		prov_thread_add_frame(t)->function = prov_xstrdup_or_null(names[i]);
	c->has_signal = 1;
	c->signal.number = 11;
	sig = prov_crash_signature(c);
	/* docs/signature.md: the signal and three named frames from the crash site */
	assert_string_equal(sig, "11|f0|f1|f2");
	{
		char *stored = prov_store_signature_of(report_a, strlen(report_a));

		assert_non_null(stored);
		assert_string_equal(sig, stored);
		free(stored);
	}
	free(sig);
	/* no signal, no crashing thread: "0" and nothing else */
	c->has_signal = 0;
	c->has_crashed_thread = 0;
	c->threads[1].crashed = 0;
	sig = prov_crash_signature(c);
	assert_string_equal(sig, "0");
	free(sig);
	prov_crash_free(c);
}

static int count_rows(size_t ncols, const char *const *names, const char *const *values,
		      const char *types, void *data)
{
	(void)ncols;
	(void)names;
	(void)types;
	if (values)
		(*(int *)data)++;
	return 0;
}

static void test_add_and_query(void **state)
{
	char dir[] = "/tmp/test-store.XXXXXX", *path, *hist = NULL;
	struct prov_store *s = NULL;
	struct prov_query_opts qo = { 100, 2000 };
	struct prov_store_meta meta = { "fallback-host", NULL, NULL };
	int64_t id1 = 0, id2 = 0, id3 = 0;
	int rows = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = prov_xasprintf("%s/sub/store.sqlite", dir);
	assert_int_equal(prov_store_open(&s, path, 1), PROV_ENOTFOUND);	/* read-only: never creates */
	assert_ok(prov_store_open(&s, path, 0));
	assert_ok(prov_store_add(&id1, s, report_a, strlen(report_a), &meta));
	assert_int_equal(prov_store_add(&id2, s, report_a, strlen(report_a), &meta), 1);
	assert_true(id1 == id2);
	assert_int_equal(prov_store_add(&id3, s, "{\"schema\":1}", 12, NULL), PROV_EINPUT);
	assert_ok(prov_store_history(&hist, s, id1));
	assert_null(hist);	/* nothing else has that signature */
	prov_store_free(s);

	assert_ok(prov_store_open(&s, path, 1));
	assert_ok(prov_store_query(s, "SELECT * FROM frames WHERE crashed", &qo, count_rows, &rows));
	assert_int_equal(rows, 7);
	assert_int_equal(prov_store_query(s, "DELETE FROM frames", &qo, count_rows, &rows), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "read-only"));
	assert_int_equal(prov_store_query(s, "SELECT 1; SELECT 2", &qo, count_rows, &rows), PROV_EINPUT);
	assert_ok(prov_store_query(s, "SELECT 1; -- a comment", &qo, count_rows, &rows));
	qo.max_rows = 3;
	assert_int_equal(prov_store_query(s, "SELECT * FROM frames", &qo, count_rows, &rows), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "more than 3 rows"));
	prov_store_free(s);

	/* a file that is not a store is refused, whichever way it is opened */
	assert_int_equal(prov_store_open(&s, "/etc/hostname", 1), PROV_EINPUT);
	free(path);
	path = prov_xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
	free(path);
}

static void test_pg_names(void **state)
{
	char *n;

	(void)state;
	assert_true(prov_store_is_pg("postgresql://db/crashes"));
	assert_true(prov_store_is_pg("postgres://u@db:5433/crashes?sslmode=require"));
	assert_true(prov_store_is_pg("host=db dbname=crashes"));
	assert_true(prov_store_is_pg("dbname = crashes"));
	assert_false(prov_store_is_pg("store.sqlite"));
	assert_false(prov_store_is_pg("/var/lib/x=y/store.sqlite"));
	assert_false(prov_store_is_pg("postgresql:/store.sqlite"));
	assert_false(prov_store_is_pg("mode=x"));
	/* the password never survives into a name for messages */
	n = prov_store_safe_name("postgresql://ingest:s3cret@db.example:5433/crashes?sslmode=require");
	assert_null(strstr(n, "s3cret"));
	assert_non_null(strstr(n, "host=db.example"));
	assert_non_null(strstr(n, "port=5433"));
	assert_non_null(strstr(n, "dbname=crashes"));
	assert_non_null(strstr(n, "user=ingest"));
	free(n);
	n = prov_store_safe_name("host=db password='s3 cret' dbname=c");
	assert_null(strstr(n, "s3"));
	assert_non_null(strstr(n, "dbname=c"));
	free(n);
	n = prov_store_safe_name("host=db password='unterminated");
	assert_null(strstr(n, "unterminated"));
	free(n);
	{
		char uri[] = "postgresql://ingest:s3cret@db/crashes?sslmode=require&password=two";
		char kw[] = "host=db password='a b' dbname=c password = plain user=u";
		char path[] = "/tmp/password=x.sqlite";

		prov_store_hide_password(uri);
		assert_string_equal(uri, "postgresql://ingest:xxxxxx@db/crashes?sslmode=require&password=xxx");
		prov_store_hide_password(kw);
		assert_string_equal(kw, "host=db password='xxx' dbname=c password = xxxxx user=u");
		prov_store_hide_password(path);
		assert_string_equal(path, "/tmp/password=x.sqlite");
	}
	n = prov_store_safe_name("/tmp/store.sqlite");
	assert_string_equal(n, "/tmp/store.sqlite");
	free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_signature),
		cmocka_unit_test(test_signature_model),
		cmocka_unit_test(test_add_and_query),
		cmocka_unit_test(test_pg_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
