#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "store.h"
#include "error.h"
#include "util.h"
#include "banned.h"

static void test_parse_time(void **state)
{
	char out[21];

	(void)state;
	assert_int_equal(prov_store_parse_time(out, "2026-10-02"), 0);
	assert_string_equal(out, "2026-10-02T00:00:00Z");
	assert_int_equal(prov_store_parse_time(out, "2026-10-02T09:14"), 0);
	assert_string_equal(out, "2026-10-02T09:14:00Z");
	assert_int_equal(prov_store_parse_time(out, "2026-10-02 09:14:59Z"), 0);
	assert_string_equal(out, "2026-10-02T09:14:59Z");
	/* python3: datetime.fromtimestamp(1790000000, timezone.utc) */
	assert_int_equal(prov_store_parse_time(out, "@1790000000"), 0);
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
	assert_int_equal(prov_store_open(&s, path, 0), 0);
	assert_int_equal(prov_store_add(&id1, s, report_a, strlen(report_a), &meta), 0);
	assert_int_equal(prov_store_add(&id2, s, report_a, strlen(report_a), &meta), 1);
	assert_true(id1 == id2);
	assert_int_equal(prov_store_add(&id3, s, "{\"schema\":1}", 12, NULL), PROV_EINPUT);
	assert_int_equal(prov_store_history(&hist, s, id1), 0);
	assert_null(hist);	/* nothing else has that signature */
	prov_store_free(s);

	assert_int_equal(prov_store_open(&s, path, 1), 0);
	assert_int_equal(prov_store_query(s, "SELECT * FROM frames WHERE crashed", &qo, count_rows, &rows), 0);
	assert_int_equal(rows, 7);
	assert_int_equal(prov_store_query(s, "DELETE FROM frames", &qo, count_rows, &rows), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "read-only"));
	assert_int_equal(prov_store_query(s, "SELECT 1; SELECT 2", &qo, count_rows, &rows), PROV_EINPUT);
	assert_int_equal(prov_store_query(s, "SELECT 1; -- a comment", &qo, count_rows, &rows), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_signature),
		cmocka_unit_test(test_add_and_query),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
