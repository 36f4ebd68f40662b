#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "jsonread.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

static int parse(struct prov_jv **out, const char *s)
{
	return prov_jv_parse(out, s, strlen(s));
}

static void test_object(void **state)
{
	struct prov_jv *v = NULL;
	const char *doc = "{\"type\":\"deb\",\"name\":\"systemd\",\"version\":\"252.38-1~deb12u1\","
			  "\"n\": -12.5e+3, \"ok\": true, \"no\": false, \"nil\": null,"
			  "\"list\": [1, \"two\", {\"three\": 3}], \"name\": \"last\"}";

	assert_ok(parse(&v, doc));
	assert_int_equal(v->type, PROV_JV_OBJECT);
	assert_string_equal(prov_jv_get_str(v, "type"), "deb");
	assert_string_equal(prov_jv_get_str(v, "name"), "last");	/* repeated key: last wins */
	assert_string_equal(prov_jv_get(v, "n")->str, "-12.5e+3");
	assert_int_equal(prov_jv_get(v, "ok")->boolean, 1);
	assert_int_equal(prov_jv_get(v, "no")->type, PROV_JV_BOOL);
	assert_int_equal(prov_jv_get(v, "nil")->type, PROV_JV_NULL);
	assert_int_equal(prov_jv_get(v, "list")->n, 3);
	assert_string_equal(prov_jv_get_str(&prov_jv_get(v, "list")->items[2], "three") ?
			    "x" : "no-string", "no-string");
	assert_null(prov_jv_get(v, "missing"));
	assert_null(prov_jv_get_str(v, "n"));	/* not a string */
	prov_jv_free(v);
}

static void test_escapes(void **state)
{
	struct prov_jv *v = NULL;

	assert_ok(parse(&v, "\"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\/ \\n\""));
	assert_string_equal(v->str, "caf\xc3\xa9 \xf0\x9f\x98\x80 \"q\" / \n");
	prov_jv_free(v);
	/* an embedded NUL is kept in str but refused by prov_jv_str */
	assert_ok(parse(&v, "\"a\\u0000b\""));
	assert_int_equal(v->len, 3);
	assert_null(prov_jv_str(v));
	prov_jv_free(v);
	assert_int_equal(parse(&v, "\"\\ud83d\""), PROV_EINPUT);	/* lone high surrogate */
	assert_int_equal(parse(&v, "\"\\ude00\""), PROV_EINPUT);	/* lone low surrogate */
	assert_int_equal(parse(&v, "\"\\x41\""), PROV_EINPUT);
	assert_int_equal(parse(&v, "\"\\u12\""), PROV_EINPUT);
	assert_int_equal(parse(&v, "\"tab\there\""), PROV_EINPUT);	/* raw control character */
}

static void test_bad_utf8(void **state)
{
	static const char *const bad[] = {
		"\"\xff\"",	/* never valid */
		"\"\xc0\x80\"",	/* overlong NUL */
		"\"\xe0\x80\xaf\"",	/* overlong */
		"\"\xed\xa0\x80\"",	/* encoded surrogate */
		"\"\xf4\x90\x80\x80\"",	/* past U+10FFFF */
		"\"\xe2\x82\"",	/* truncated sequence */
		NULL
	};
	struct prov_jv *v = NULL;
	size_t i;

	for (i = 0; bad[i]; i++) {
		assert_int_equal(parse(&v, bad[i]), PROV_EINPUT);
		assert_non_null(strstr(prov_error_last(), "UTF-8"));
	}
	assert_ok(parse(&v, "\"\xe2\x82\xac \xf0\x9f\x98\x80\""));
	prov_jv_free(v);
}

static void test_depth(void **state)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_jv *v = NULL;
	int i;

	for (i = 0; i < PROV_JV_MAX_DEPTH; i++)
		prov_buf_putc(&b, '[');
	for (i = 0; i < PROV_JV_MAX_DEPTH; i++)
		prov_buf_putc(&b, ']');
	assert_ok(prov_jv_parse(&v, b.buf, b.len));
	prov_jv_free(v);
	prov_buf_reset(&b);
	/* a million brackets must fail quickly on the cap, not blow the stack */
	for (i = 0; i < 1000000; i++)
		prov_buf_putc(&b, i % 2 ? '[' : '{');
	v = NULL;
	assert_int_equal(prov_jv_parse(&v, b.buf, b.len), PROV_EINPUT);
	prov_buf_reset(&b);
	for (i = 0; i < 1000000; i++)
		prov_buf_putc(&b, '[');
	assert_int_equal(prov_jv_parse(&v, b.buf, b.len), PROV_ELIMIT);
	assert_null(v);
	prov_buf_release(&b);
}

static void test_numbers(void **state)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_jv *v = NULL;
	int i;

	/* huge numbers stay text: nothing overflows */
	prov_buf_puts(&b, "[123456789012345678901234567890123456789012345678901234567890, 1e999999999, -0.0]");
	assert_ok(prov_jv_parse(&v, b.buf, b.len));
	assert_string_equal(v->items[0].str, "123456789012345678901234567890123456789012345678901234567890");
	assert_string_equal(v->items[1].str, "1e999999999");
	prov_jv_free(v);
	prov_buf_reset(&b);
	for (i = 0; i < 5000; i++)
		prov_buf_putc(&b, '9');
	assert_int_equal(prov_jv_parse(&v, b.buf, b.len), PROV_ELIMIT);
	prov_buf_release(&b);
	assert_int_equal(parse(&v, "01"), PROV_EINPUT);
	assert_int_equal(parse(&v, "1."), PROV_EINPUT);
	assert_int_equal(parse(&v, "-"), PROV_EINPUT);
	assert_int_equal(parse(&v, "1e"), PROV_EINPUT);
	assert_int_equal(parse(&v, "+1"), PROV_EINPUT);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"", " ", "{", "[1,]", "{\"a\"}", "{\"a\":}", "{a:1}", "[1 2]", "tru", "nul",
		"{\"a\":1,}", "\"unterminated", "[] []", "{\"a\":1}x", NULL
	};
	const char *good = "{\"files\": [\"lib/libz.so.1\", \"lib/libz.so.1.2.13\"], \"depends\": []}";
	struct prov_jv *v = NULL;
	size_t i, n;

	for (i = 0; bad[i]; i++) {
		v = NULL;
		assert_int_equal(parse(&v, bad[i]), PROV_EINPUT);
		assert_null(v);
	}
	/* every strict prefix of a document fails cleanly */
	n = strlen(good);
	for (i = 0; i < n; i++) {
		v = NULL;
		assert_true(prov_jv_parse(&v, good, i) < 0);
		assert_null(v);
	}
	assert_ok(prov_jv_parse(&v, good, n));
	prov_jv_free(v);
	prov_jv_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_object),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_bad_utf8),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
