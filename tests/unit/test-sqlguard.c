#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "sqlite-guard.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

/*
 * cache/sqlite-guard.c against SQLite's own functions (the expected values
 * come from SQLite, a second connection without the replacements): random
 * patterns and strings over an alphabet of the characters that mean
 * something to LIKE/GLOB, ASCII case pairs, multi-byte and broken UTF-8.
 */

static const char *const alphabet[] = {
	"a", "A", "b", "B", "%", "_", "*", "?", "[", "]", "^", "-", "\\", "x",
	"\xc3\xa9", "\xc3\x89", "\x80", "\xff", "\xe2\x82\xac", "\xc3", " ",
};

static unsigned rnd_state = 12345;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

static void rnd_text(char *out, size_t cap, unsigned maxlen)
{
	unsigned n = rnd(maxlen + 1), i;
	size_t len = 0;

	out[0] = 0;
	for (i = 0; i < n; i++) {
		const char *c = alphabet[rnd(sizeof(alphabet) / sizeof(alphabet[0]))];

		if (len + strlen(c) + 1 >= cap)
			break;
		memcpy(out + len, c, strlen(c) + 1);
		len += strlen(c);
	}
}

/* The value of `sql` with the texts bound, as "type:bytes" (malloc'd). */
static char *eval(sqlite3 *db, const char *sql, const char *const *args, int nargs, int blobs)
{
	sqlite3_stmt *st = NULL;
	char *out;
	int i, rc;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	for (i = 0; i < nargs; i++) {
		if (blobs & (1 << i))
			sqlite3_bind_blob(st, i + 1, args[i], (int)strlen(args[i]), SQLITE_STATIC);
		else
			sqlite3_bind_text(st, i + 1, args[i], -1, SQLITE_STATIC);
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		out = prov_xasprintf("error:%s", sqlite3_errmsg(db));
	} else {
		int t = sqlite3_column_type(st, 0);
		const unsigned char *v = sqlite3_column_text(st, 0);
		char *hex = prov_hex(v ? v : (const unsigned char *)"", (size_t)sqlite3_column_bytes(st, 0));

		out = prov_xasprintf("%d:%s", t, t == SQLITE_NULL ? "" : hex);
		free(hex);
	}
	sqlite3_finalize(st);
	return out;
}

static void test_same_results(void **state)
{
	static const struct {
		const char *sql;
		int nargs, blobs;
	} cases[] = {
		{ "SELECT ?2 LIKE ?1", 2, 0 },
		{ "SELECT like(?1, ?2, ?3)", 3, 0 },
		{ "SELECT ?2 GLOB ?1", 2, 0 },
		{ "SELECT instr(?2, ?1)", 2, 0 },
		{ "SELECT instr(?2, ?1)", 2, 3 },
		{ "SELECT instr(?2, ?1)", 2, 1 },
		{ "SELECT replace(?2, ?1, ?3)", 3, 0 },
		{ "SELECT trim(?2, ?1)", 2, 0 },
		{ "SELECT ltrim(?2, ?1)", 2, 0 },
		{ "SELECT rtrim(?2, ?1)", 2, 0 },
	};
	struct prov_sql_guard g = { .start_ms = prov_now_ms(), .timeout_ms = 3600000 };
	sqlite3 *ref = NULL, *db = NULL;
	char a[3][64];
	const char *args[3] = { a[0], a[1], a[2] };
	unsigned round, c, mismatches = 0;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &ref), SQLITE_OK);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_ok(prov_sql_guard_install(db, &g));
	for (round = 0; round < 40000; round++) {
		rnd_text(a[0], sizeof(a[0]), 6);
		rnd_text(a[1], sizeof(a[1]), 10);
		rnd_text(a[2], sizeof(a[2]), round % 7 ? 1 : 3);
		if (round % 5 == 0 && a[0][0]) {
			/* the pattern's text in the string, so that matches happen */
			size_t n = strlen(a[1]);

			if (n + strlen(a[0]) < sizeof(a[1]))
				memcpy(a[1] + n, a[0], strlen(a[0]) + 1);
		}
		for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			char *want = eval(ref, cases[c].sql, args, cases[c].nargs, cases[c].blobs);
			char *got = eval(db, cases[c].sql, args, cases[c].nargs, cases[c].blobs);

			if (strcmp(want, got) && mismatches++ < 10)
				print_error("%s with '%s' '%s' '%s': SQLite %s, guard %s\n", cases[c].sql,
					    a[0], a[1], a[2], want, got);
			free(want);
			free(got);
		}
	}
	assert_int_equal(mismatches, 0);
	assert_int_equal(g.timed_out, 0);
	prov_sql_guard_remove(db);
	sqlite3_close(ref);
	sqlite3_close(db);
}

/*
 * One LIKE of 'a' x 10M against '%' 'a' x 20000 'b' is one VM step of
 * about 2e11 character compares in SQLite's own like() (minutes); with a
 * 200 ms deadline it must fail within seconds. The bound (60 s) is far from
 * both.
 */
static void test_deadline_inside_one_step(void **state)
{
	static const char *const sql[] = {
		"SELECT printf('%.*c', 10000000, 'a') LIKE '%' || printf('%.*c', 20000, 'a') || 'b'",
		"SELECT printf('%.*c', 10000000, 'a') GLOB '*' || printf('%.*c', 20000, 'a') || 'b'",
		"SELECT length(trim(printf('%.*c', 10000000, 'a'), printf('%.*c', 20000, 'b') || 'a'))",
	};
	sqlite3 *db = NULL;
	size_t i;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	for (i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		struct prov_sql_guard g = { .start_ms = prov_now_ms(), .timeout_ms = 200 };
		char *got;

		assert_ok(prov_sql_guard_install(db, &g));
		got = eval(db, sql[i], NULL, 0, 0);
		assert_string_equal(got, "error:query ran past its time limit");
		assert_int_equal(g.timed_out, 1);
		assert_true(prov_now_ms() - g.start_ms < 60000);
		free(got);
	}
	prov_sql_guard_remove(db);
	sqlite3_close(db);
}

/* instr and replace are linear: 'a' x 20M against 'a' x 100000 'b' (SQLite's: O(n*m), minutes). */
static void test_linear_search(void **state)
{
	struct prov_sql_guard g = { .start_ms = prov_now_ms(), .timeout_ms = 60000 };
	sqlite3 *db = NULL;
	char *got;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_ok(prov_sql_guard_install(db, &g));
	got = eval(db, "SELECT instr(printf('%.*c', 20000000, 'a'), printf('%.*c', 100000, 'a') || 'b')",
		   NULL, 0, 0);
	assert_string_equal(got, "1:30");	/* integer 0 */
	free(got);
	got = eval(db, "SELECT length(replace(printf('%.*c', 20000000, 'a'), printf('%.*c', 100000, 'a') || 'b', 'x'))",
		   NULL, 0, 0);
	assert_string_equal(got, "1:3230303030303030");	/* integer 20000000 */
	free(got);
	assert_int_equal(g.timed_out, 0);
	prov_sql_guard_remove(db);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_results),
		cmocka_unit_test(test_deadline_inside_one_step),
		cmocka_unit_test(test_linear_search),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
