/*
 * The web view's escaping and request parsing (src/report/web-escape.c):
 * every value a report carries shown as text in HTML, attributes and SVG,
 * URL components, and what a request's path and query string decode to,
 * hostile input first; and the dates the charts count days with.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "web.h"
#include "error.h"
#include "banned.h"

static void assert_html(const char *in, const char *want)
{
	struct prov_buf b = PROV_BUF_INIT;

	prov_web_html(&b, in);
	assert_string_equal(b.buf, want);
	prov_buf_release(&b);
}

static void assert_url(const char *in, const char *want)
{
	struct prov_buf b = PROV_BUF_INIT;

	prov_web_url(&b, in);
	assert_string_equal(b.buf, want);
	prov_buf_release(&b);
}

static void assert_decode(const char *in, int plus, const char *want)
{
	char *s = strdup(in);
	size_t n = prov_web_url_decode(s, plus);

	assert_int_equal(n, strlen(want));
	assert_memory_equal(s, want, n + 1);
	free(s);
}

static void test_html(void **state)
{
	(void)state;
	assert_html("main", "main");
	assert_html("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;");
	assert_html("</svg><script>", "&lt;/svg&gt;&lt;script&gt;");
	assert_html("node\"7' a=b", "node&quot;7&#39; a=b");
	assert_html("a&amp;b", "a&amp;amp;b");
	assert_html("std::vector<int>::at", "std::vector&lt;int&gt;::at");
	/* terminal and HTML controls become U+FFFD; tab and newline stay */
	assert_html("a\x1b[31mb", "a\xef\xbf\xbd[31mb");
	assert_html("a\tb\nc\x7f", "a\tb\nc\xef\xbf\xbd");
	/* UTF-8 kept; C1 controls, overlong forms, surrogates and stray bytes replaced */
	assert_html("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xa5", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xa5");
	assert_html("\xc2\x9b", "\xef\xbf\xbd\xef\xbf\xbd");
	assert_html("\xc0\xbc", "\xef\xbf\xbd\xef\xbf\xbd");
	assert_html("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	assert_html("\xff<", "\xef\xbf\xbd&lt;");
	assert_html("\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd");
	assert_html("", "");
	assert_html(NULL, "");
}

static void test_url(void **state)
{
	(void)state;
	assert_url("11|lib_read_value|lib_entry", "11%7Clib_read_value%7Clib_entry");
	assert_url("a b/c?d#e&f=\"<>'", "a%20b%2Fc%3Fd%23e%26f%3D%22%3C%3E%27");
	assert_url("A-z.0_~", "A-z.0_~");
	assert_url("\xc3\xa9\n", "%C3%A9%0A");
	assert_url(NULL, "");
}

static void test_decode(void **state)
{
	(void)state;
	assert_decode("11%7Cmain%7cf", 0, "11|main|f");
	assert_decode("a+b%20c", 1, "a b c");
	assert_decode("a+b", 0, "a+b");
	/* a bad escape stays as written; %00 never cuts the string */
	assert_decode("100%", 1, "100%");
	assert_decode("%zz%4", 1, "%zz%4");
	assert_decode("a%00b", 1, "a%00b");
	assert_decode("%3Cimg%3E", 1, "<img>");
	assert_decode("", 1, "");
	/* decoded once: %2541 is "%41", not "A" */
	assert_decode("%2541", 1, "%41");
}

static void test_query(void **state)
{
	struct prov_web_query q = { 0 };
	char name[16];
	int i;

	(void)state;
	assert_int_equal(prov_web_query_add(&q, "since", "7d"), 0);
	assert_int_equal(prov_web_query_add(&q, "x", NULL), 0);
	assert_string_equal(prov_web_query_get(&q, "since"), "7d");
	assert_string_equal(prov_web_query_get(&q, "x"), "");
	assert_null(prov_web_query_get(&q, "until"));
	/* at most PROV_WEB_MAX_PARAMS: the next is refused, the others kept */
	for (i = 2; i < PROV_WEB_MAX_PARAMS; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		assert_int_equal(prov_web_query_add(&q, name, "1"), 0);
	}
	assert_int_equal(prov_web_query_add(&q, "one-more", "1"), PROV_EINPUT);
	assert_int_equal(q.n, PROV_WEB_MAX_PARAMS);
	prov_web_query_release(&q);
	assert_int_equal(q.n, 0);
}

static void test_day(void **state)
{
	(void)state;
	assert_int_equal(prov_web_day("1970-01-01"), 0);
	assert_int_equal(prov_web_day("2026-11-28T15:00:00Z"), 20785);
	assert_int_equal(prov_web_day("2024-03-01") - prov_web_day("2024-02-28"), 2);	/* leap year */
	assert_int_equal(prov_web_day("2026-13-01"), -1);
	assert_int_equal(prov_web_day("2026-1-01"), -1);
	assert_int_equal(prov_web_day("26-11-28"), -1);
	assert_int_equal(prov_web_day(""), -1);
	assert_int_equal(prov_web_day(NULL), -1);
}

/* by: triage --by's five kinds (static strings), "" no buckets, anything else refused */
static void test_route_by(void **state)
{
	static const char *const kinds[] = { "day", "week", "version", "host", "image" };
	struct prov_web_query q = { 0 };
	struct prov_web_request r;
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		assert_int_equal(prov_web_query_add(&q, "by", kinds[i]), 0);
		assert_int_equal(prov_web_route(&r, "/api/triage.json", &q), 0);
		assert_int_equal(r.page, PROV_WEB_TRIAGE_JSON);
		assert_string_equal(r.by, kinds[i]);
		assert_true(r.by != q.values[0]);	/* static: outlives the query */
		prov_web_request_release(&r);
		prov_web_query_release(&q);
	}
	assert_int_equal(prov_web_query_add(&q, "by", ""), 0);	/* the form's "(none)" */
	assert_int_equal(prov_web_route(&r, "/", &q), 0);
	assert_null(r.by);
	assert_string_equal(r.canon.buf, "");
	prov_web_request_release(&r);
	prov_web_query_release(&q);
	assert_int_equal(prov_web_query_add(&q, "by", "day"), 0);
	assert_int_equal(prov_web_query_add(&q, "since", "7d"), 0);
	assert_int_equal(prov_web_route(&r, "/signature/x", &q), 0);
	assert_string_equal(r.canon.buf, "?by=day&since=7d");	/* carried to the links */
	prov_web_request_release(&r);
	prov_web_query_release(&q);
	/* image=: taken as given (the store resolves a digest's start), carried URL-encoded */
	assert_int_equal(prov_web_query_add(&q, "image", "sha256:0123456789ab"), 0);
	assert_int_equal(prov_web_route(&r, "/", &q), 0);
	assert_string_equal(r.image, "sha256:0123456789ab");
	assert_string_equal(r.canon.buf, "?image=sha256%3A0123456789ab");
	prov_web_request_release(&r);
	prov_web_query_release(&q);
	for (i = 0; i < 3; i++) {
		static const char *const bad[] = { "month", "DAY", "day<script>" };

		assert_int_equal(prov_web_query_add(&q, "by", bad[i]), 0);
		assert_int_equal(prov_web_route(&r, "/", &q), PROV_EINPUT);
		assert_null(strchr(prov_error_last(), '<'));	/* the value is not echoed */
		prov_web_request_release(&r);
		prov_web_query_release(&q);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_day),
		cmocka_unit_test(test_route_by),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
