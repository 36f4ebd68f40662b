/* Unit tests of cargo-auditable's .dep-v0 reader (resolvers/kit-cargo.c): the format, and every cap and check on hostile input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "error.h"
#include "util.h"
#include "kit-cargo.h"
#include "unit.h"
#include "banned.h"

/* zlib(text[0..len)) into a new buffer */
static unsigned char *deflated(size_t *zlen, const char *text, size_t len)
{
	uLongf n = compressBound((uLong)len);
	unsigned char *z = prov_xcalloc(1, n);

	assert_int_equal(compress2(z, &n, (const Bytef *)text, (uLong)len, 9), Z_OK);
	*zlen = n;
	return z;
}

/* Parse the JSON text as a section: the code, *a filled on success. */
static int parse_json(struct prov_cargo_audit *a, const char *json)
{
	size_t zlen;
	unsigned char *z = deflated(&zlen, json, strlen(json));
	int err = prov_cargo_audit_parse(a, z, zlen);

	free(z);
	return err;
}

static void test_good(void **state)
{
	struct prov_cargo_audit a;

	(void)state;
	assert_int_equal(parse_json(&a, "{\"format\":1,\"packages\":["
				    "{\"name\":\"app\",\"version\":\"0.3.1\",\"source\":\"local\","
				    "\"dependencies\":[1,2],\"root\":true},"
				    "{\"name\":\"serde\",\"version\":\"1.0.188\",\"source\":\"crates.io\"},"
				    "{\"name\":\"cc\",\"version\":\"1.0.83-rc.1+x\",\"source\":\"git\","
				    "\"kind\":\"build\",\"root\":false,\"dependencies\":[]}]}"), 0);
	assert_int_equal(a.n, 3);
	assert_int_equal(a.root, 0);
	assert_int_equal(a.format, 1);
	assert_string_equal(a.pkgs[0].name, "app");
	assert_string_equal(a.pkgs[0].version, "0.3.1");
	assert_string_equal(a.pkgs[0].source, "local");
	assert_int_equal(a.pkgs[0].ndeps, 2);
	assert_int_equal(a.pkgs[0].deps[0], 1);
	assert_int_equal(a.pkgs[0].deps[1], 2);
	assert_false(a.pkgs[0].build);
	assert_string_equal(a.pkgs[2].version, "1.0.83-rc.1+x");
	assert_true(a.pkgs[2].build);
	assert_int_equal(a.pkgs[2].ndeps, 0);
	prov_cargo_audit_release(&a);
	/* the root need not come first; format absent is 0 */
	assert_int_equal(parse_json(&a, "{\"packages\":[{\"name\":\"d\",\"version\":\"1.0.0\",\"source\":\"registry\"},"
				    "{\"name\":\"r\",\"version\":\"2.0.0\",\"source\":\"local\",\"root\":true,"
				    "\"dependencies\":[0]}]}"), 0);
	assert_int_equal(a.root, 1);
	assert_int_equal(a.format, 0);
	prov_cargo_audit_release(&a);
}

static void expect_fail(const char *json, int code, const char *msg)
{
	struct prov_cargo_audit a;

	memset(&a, 0x5a, sizeof(a));
	assert_int_equal(parse_json(&a, json), code);
	assert_non_null(strstr(prov_error_last(), msg));
	assert_null(a.pkgs);
	assert_int_equal(a.n, 0);
	prov_error_clear();
}

#define ROOT(extra) "{\"packages\":[{\"name\":\"r\",\"version\":\"1.0.0\",\"source\":\"local\",\"root\":true" extra "}]}"

static void test_hostile_json(void **state)
{
	(void)state;
	expect_fail("[1,2]", PROV_EINPUT, "no packages array");
	expect_fail("{\"packages\":{}}", PROV_EINPUT, "no packages array");
	expect_fail("{\"packages\":[]}", PROV_EINPUT, "0 root packages");
	expect_fail("{\"packages\":[{\"name\":\"a\",\"version\":\"1.0.0\",\"source\":\"local\"}]}",
		    PROV_EINPUT, "0 root packages");
	expect_fail("{\"packages\":[{\"name\":\"a\",\"version\":\"1.0.0\",\"source\":\"local\",\"root\":true},"
		    "{\"name\":\"b\",\"version\":\"1.0.0\",\"source\":\"local\",\"root\":true}]}",
		    PROV_EINPUT, "2 root packages");
	expect_fail(ROOT(",\"dependencies\":[1]"), PROV_EINPUT, "dependency 0 is not an index below 1");
	expect_fail(ROOT(",\"dependencies\":[-1]"), PROV_EINPUT, "not an index");
	expect_fail(ROOT(",\"dependencies\":[0.0]"), PROV_EINPUT, "not an index");
	expect_fail(ROOT(",\"dependencies\":[1e0]"), PROV_EINPUT, "not an index");
	expect_fail(ROOT(",\"dependencies\":[99999999999999999999]"), PROV_EINPUT, "not an index");
	expect_fail(ROOT(",\"dependencies\":[\"0\"]"), PROV_EINPUT, "not an index");
	expect_fail(ROOT(",\"dependencies\":3"), PROV_EINPUT, "not an array");
	expect_fail(ROOT(",\"kind\":\"dev\""), PROV_EINPUT, "neither build nor runtime");
	expect_fail(ROOT(",\"root\":1"), PROV_EINPUT, "root is not a boolean");
	expect_fail("{\"packages\":[{\"name\":\"a\\u001b[31m\",\"version\":\"1.0.0\",\"source\":\"local\",\"root\":true}]}",
		    PROV_EINPUT, "not a crate name");
	expect_fail("{\"packages\":[{\"name\":\"<b>\",\"version\":\"1.0.0\",\"source\":\"local\",\"root\":true}]}",
		    PROV_EINPUT, "not a crate name");
	expect_fail("{\"packages\":[{\"name\":\"a\\u0000b\",\"version\":\"1.0.0\",\"source\":\"local\",\"root\":true}]}",
		    PROV_EINPUT, "not a crate name");
	expect_fail("{\"packages\":[{\"version\":\"1.0.0\",\"source\":\"local\",\"root\":true}]}",
		    PROV_EINPUT, "not a crate name");
	expect_fail("{\"packages\":[{\"name\":\"a\",\"version\":\"v1\",\"source\":\"local\",\"root\":true}]}",
		    PROV_EINPUT, "not a semver");
	expect_fail("{\"packages\":[{\"name\":\"a\",\"version\":\"1.0 \",\"source\":\"local\",\"root\":true}]}",
		    PROV_EINPUT, "not a semver");
	expect_fail("{\"packages\":[{\"name\":\"a\",\"version\":\"1.0.0\",\"source\":\"lo\\ncal\",\"root\":true}]}",
		    PROV_EINPUT, "source is not a printable word");
	expect_fail("{\"packages\":[{\"name\":\"a\",\"version\":\"1.0.0\",\"root\":true}]}",
		    PROV_EINPUT, "source is not a printable word");
	expect_fail("{\"packages\":[1]}", PROV_EINPUT, "not an object");
	expect_fail("{\"format\":-1,\"packages\":[]}", PROV_EINPUT, "format");
	expect_fail("{\"packages\":[[[[[]]]]]}", PROV_ELIMIT, "nested deeper than 4");
	expect_fail("{\"packages\":[{\"name\":\"a\"", PROV_EINPUT, "");
}

static void test_hostile_zlib(void **state)
{
	struct prov_cargo_audit a;
	const char *json = ROOT("");
	size_t zlen, n;
	unsigned char *z = deflated(&zlen, json, strlen(json));
	char *big;

	(void)state;
	/* every truncation of a good stream: refused, never read past the end */
	for (n = 0; n < zlen; n++) {
		unsigned char *cut = prov_xcalloc(1, n ? n : 1);

		memcpy(cut, z, n);
		assert_int_equal(prov_cargo_audit_parse(&a, cut, n), PROV_EINPUT);
		free(cut);
	}
	assert_int_equal(prov_cargo_audit_parse(&a, z, zlen), 0);
	prov_cargo_audit_release(&a);
	free(z);
	assert_int_equal(prov_cargo_audit_parse(&a, "not zlib at all", 15), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "not a zlib stream"));
	/* a bomb: 9 MiB of whitespace, over the 8 MiB cap */
	n = (size_t)9 << 20;
	big = prov_xcalloc(1, n);
	memset(big, ' ', n);
	memcpy(big, "{\"packages\":[", 13);
	z = deflated(&zlen, big, n);
	assert_true(zlen < 65536);
	assert_int_equal(prov_cargo_audit_parse(&a, z, zlen), PROV_ELIMIT);
	assert_non_null(strstr(prov_error_last(), "decompresses to more than"));
	free(z);
	/* over a million values within the size cap */
	for (n = 0; n + 2 < ((size_t)3 << 20); n += 2)
		memcpy(big + n, "0,", 2);
	big[0] = '[';
	z = deflated(&zlen, big, (size_t)3 << 20);
	assert_int_equal(prov_cargo_audit_parse(&a, z, zlen), PROV_ELIMIT);
	assert_non_null(strstr(prov_error_last(), "JSON values"));
	free(z);
	free(big);
	/* a section over the compressed cap is not inflated */
	assert_int_equal(prov_cargo_audit_parse(&a, "x", PROV_CARGO_MAX_SECTION + 1), PROV_ELIMIT);
	prov_error_clear();
}

static void test_too_many_packages(void **state)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_cargo_audit a;
	size_t i;

	(void)state;
	prov_buf_puts(&b, "{\"packages\":[{\"name\":\"r\",\"version\":\"1.0.0\",\"source\":\"local\",\"root\":true}");
	for (i = 0; i < PROV_CARGO_MAX_PACKAGES; i++)
		prov_buf_puts(&b, ",{\"name\":\"d\",\"version\":\"1.0.0\",\"source\":\"crates.io\"}");
	prov_buf_puts(&b, "]}");
	assert_int_equal(parse_json(&a, b.buf), PROV_ELIMIT);
	assert_non_null(strstr(prov_error_last(), "more than 20000 packages"));
	prov_buf_release(&b);
	prov_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_hostile_json),
		cmocka_unit_test(test_hostile_zlib),
		cmocka_unit_test(test_too_many_packages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
