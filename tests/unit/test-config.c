/* Configuration: -c arguments, git-config files, insteadOf rewriting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "error.h"
#include "unit.h"

static void test_add_arg(void **state)
{
	struct prov_config *cfg = prov_config_new();

	(void)state;
	assert_ok(prov_config_add_arg(cfg, "Fetch.TrustSystemUrls=yes"));
	assert_string_equal(prov_config_get(cfg, "fetch.trustsystemurls"), "yes");
	assert_int_equal(prov_config_get_bool(cfg, "fetch.trustSystemUrls", 0), 1);
	assert_ok(prov_config_add_arg(cfg, "core.flag"));	/* bare key: true */
	assert_int_equal(prov_config_get_bool(cfg, "core.flag", 0), 1);
	assert_int_equal(prov_config_add_arg(cfg, "nodot=1"), PROV_EUSAGE);
	assert_int_equal(prov_config_add_arg(cfg, ".x=1"), PROV_EUSAGE);
	assert_int_equal(prov_config_add_arg(cfg, "x.=1"), PROV_EUSAGE);
	assert_ok(prov_config_add_arg(cfg, "a.b=maybe"));
	assert_int_equal(prov_config_get_bool(cfg, "a.b", 0), -1);
	assert_int_equal(prov_config_get_bool(cfg, "a.missing", 7), 7);
	/* later wins */
	assert_ok(prov_config_add_arg(cfg, "fetch.trustSystemUrls=false"));
	assert_int_equal(prov_config_get_bool(cfg, "fetch.trustSystemUrls", 1), 0);
	prov_config_free(cfg);
}

static void test_insteadof(void **state)
{
	struct prov_config *cfg = prov_config_new();
	char *u;

	(void)state;
	/* the subsection (the base URL) keeps its case */
	prov_config_add_arg(cfg, "url.file:///srv/Mirrors/.insteadOf=https://github.com/");
	prov_config_add_arg(cfg, "url.file:///srv/rocm/.insteadOf=https://github.com/ROCm/");
	u = prov_config_rewrite_url(cfg, "https://github.com/ROCm/clr.git");
	assert_string_equal(u, "file:///srv/rocm/clr.git");	/* longest prefix wins */
	free(u);
	u = prov_config_rewrite_url(cfg, "https://github.com/pytorch/pytorch");
	assert_string_equal(u, "file:///srv/Mirrors/pytorch/pytorch");
	free(u);
	u = prov_config_rewrite_url(cfg, "https://gitlab.com/x/y.git");
	assert_string_equal(u, "https://gitlab.com/x/y.git");
	free(u);
	prov_config_free(cfg);
}

static void test_file(void **state)
{
	char path[] = "/tmp/prov-config-XXXXXX";
	int fd = mkstemp(path);
	const char text[] =
		"[fetch]\n\ttrustSystemUrls = true\n"
		"[substitute-path \"/home/Builder/src\"]\n\tto = .\n"
		"[url \"file:///m/\"]\n\tinsteadOf = https://example.invalid/\n";
	struct prov_config *cfg = prov_config_new();
	char *u;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (int)(sizeof(text) - 1));
	close(fd);
	assert_ok(prov_config_read_file(cfg, path));
	assert_int_equal(prov_config_get_bool(cfg, "fetch.trustSystemUrls", 0), 1);
	/* the file spelling becomes the -c spelling */
	assert_string_equal(prov_config_get(cfg, "substitute-path./home/Builder/src"), ".");
	u = prov_config_rewrite_url(cfg, "https://example.invalid/a.git");
	assert_string_equal(u, "file:///m/a.git");
	free(u);
	prov_config_free(cfg);

	/* broken syntax names the file */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "[broken\n", 8), 8);
	close(fd);
	cfg = prov_config_new();
	assert_int_equal(prov_config_read_file(cfg, path), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), path));
	prov_config_free(cfg);
	unlink(path);

	/* a missing file is no error */
	cfg = prov_config_new();
	assert_ok(prov_config_read_file(cfg, "/nonexistent/provenance/config"));
	prov_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_arg),
		cmocka_unit_test(test_insteadof),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
