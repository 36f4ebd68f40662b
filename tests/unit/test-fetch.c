#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "error.h"
#include "fetch.h"
#include "sha256.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

/*
 * SHA-256 against the FIPS 180-4 examples (and sha256sum), downloads of
 * file:// URLs into a temporary cache (http is covered end to end by
 * tests/e2e/t-srcpkg-*.sh with a local server).
 */
static char tmpdir[] = "/tmp/prov-test-fetch.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = prov_xasprintf("rm -rf '%s'", tmpdir);

	(void)state;
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	free(cmd);
	return 0;
}

static void test_sha256_fips(void **state)
{
	char hex[65];
	struct prov_sha256 s;
	unsigned char d[32], chunk[1000];
	char *h;
	int i;

	(void)state;
	prov_sha256_hex(hex, "abc", 3);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	prov_sha256_hex(hex, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	prov_sha256_hex(hex, "", 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	/* one million 'a', fed in uneven pieces */
	memset(chunk, 'a', sizeof(chunk));
	prov_sha256_init(&s);
	for (i = 0; i < 1000; i++) {
		prov_sha256_update(&s, chunk, 1 + (i % 7));
		prov_sha256_update(&s, chunk, 1000 - 1 - (i % 7));
	}
	prov_sha256_final(d, &s);
	h = prov_hex(d, 32);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(h);
}

static void test_sha256_file_vs_sha256sum(void **state)
{
	char *path = prov_xasprintf("%s/data", tmpdir), *cmd;
	char hex[65], want[65] = "";
	uint64_t size = 0;
	FILE *p;
	int i;

	(void)state;
	p = fopen(path, "w");
	assert_non_null(p);
	for (i = 0; i < 100000; i++)
		fputc((i * 7919) & 0xff, p);
	fclose(p);
	assert_ok(prov_sha256_file(hex, &size, path));
	assert_int_equal(size, 100000);
	cmd = prov_xasprintf("sha256sum '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(want, sizeof(want), p));
	pclose(p);
	assert_string_equal(hex, want);
	free(cmd);
	free(path);
	assert_int_equal(prov_sha256_file(hex, &size, "/nonexistent/x"), PROV_EINPUT);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_fetch_file_url(void **state)
{
	struct prov_config *cfg = prov_config_new();
	char *cache = prov_xasprintf("%s/cache", tmpdir);
	char *src = prov_xasprintf("%s/release.tar.gz", tmpdir);
	char *url = prov_xasprintf("file://%s", src);
	struct prov_ctx ctx = { .config = cfg, .cache_dir = cache };
	struct prov_fetch_opts o = { &ctx };
	struct prov_buf b = PROV_BUF_INIT;
	char *out = NULL, *out2 = NULL, *part;

	(void)state;
	write_file(src, "release contents\n");
	/* file:// only below a directory the user named */
	assert_int_equal(prov_fetch_file(&out, url, &o), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "sources.localDirs"));
	assert_int_equal(prov_fetch_file(&out, "file:///etc/passwd", &o), PROV_EINPUT);
	prov_config_set(cfg, "sources.localDirs", "/nonexistent:/usr/share/doc");
	assert_int_equal(prov_fetch_file(&out, url, &o), PROV_EINPUT);
	prov_config_add_arg(cfg, "sources.localDirs=/nonexistent2");	/* every value counts */
	{
		char *dirs = prov_xasprintf("sources.localDirs=/nonexistent:%s", tmpdir);

		assert_ok(prov_config_add_arg(cfg, dirs));
		free(dirs);
	}
	/* still not: ".." out of it, a symlink out of it, a FIFO or a device in it */
	{
		char *up = prov_xasprintf("file://%s/../../etc/passwd", tmpdir);
		char *link = prov_xasprintf("%s/passwd-link", tmpdir), *lurl;
		char *fifo = prov_xasprintf("%s/fifo", tmpdir), *furl;

		assert_int_equal(prov_fetch_file(&out, up, &o), PROV_EINPUT);
		assert_int_equal(symlink("/etc/passwd", link), 0);
		lurl = prov_xasprintf("file://%s", link);
		assert_int_equal(prov_fetch_file(&out, lurl, &o), PROV_EINPUT);
		assert_int_equal(mkfifo(fifo, 0600), 0);
		furl = prov_xasprintf("file://%s", fifo);
		assert_int_equal(prov_fetch_file(&out, furl, &o), PROV_EINPUT);
		assert_non_null(strstr(prov_error_last(), "not a regular file"));
		assert_null(out);
		free(up);
		free(link);
		free(lurl);
		free(fifo);
		free(furl);
	}
	assert_ok(prov_fetch_file(&out, url, &o));
	assert_non_null(strstr(out, "/downloads/"));
	assert_ok(prov_read_file(&b, out, 1024));
	assert_string_equal(b.buf, "release contents\n");
	part = prov_xasprintf("%s.part", out);
	assert_int_equal(access(part, F_OK), -1);	/* renamed into place */
	free(part);

	/* cached: the source may go away, offline too */
	unlink(src);
	ctx.offline = 1;
	assert_ok(prov_fetch_file(&out2, url, &o));
	assert_string_equal(out, out2);
	free(out2);
	out2 = NULL;

	/* forgotten: the file is gone (file:// is read even offline: it is not the network) */
	prov_fetch_forget(cache, url);
	assert_int_equal(prov_fetch_file(&out2, url, &o), PROV_ENOTFOUND);
	ctx.offline = 0;
	assert_int_equal(prov_fetch_file(&out2, url, &o), PROV_ENOTFOUND);
	assert_null(out2);

	free(out);
	free(url);
	free(src);
	free(cache);
	prov_buf_release(&b);
	prov_config_free(cfg);
}

static void test_fetch_rules(void **state)
{
	struct prov_config *cfg = prov_config_new();
	char *cache = prov_xasprintf("%s/cache2", tmpdir);
	char *src = prov_xasprintf("%s/big", tmpdir);
	char *rule, *out = NULL;
	struct prov_ctx ctx = { .config = cfg, .cache_dir = cache };
	struct prov_fetch_opts o = { &ctx };
	uint64_t n;

	(void)state;
	write_file(src, "0123456789abcdef0123456789abcdef\n");
	/* insteadOf: a https URL served from the local file */
	rule = prov_xasprintf("url.file://%s/.insteadOf=https://releases.example.invalid/", tmpdir);
	assert_ok(prov_config_add_arg(cfg, rule));
	assert_ok(prov_fetch_file(&out, "https://releases.example.invalid/big", &o));
	free(out);
	out = NULL;

	/* size cap */
	prov_config_set(cfg, "fetch.maxSize", "10");
	prov_fetch_forget(cache, "https://releases.example.invalid/big");
	assert_int_equal(prov_fetch_file(&out, "https://releases.example.invalid/big", &o), PROV_ELIMIT);
	assert_non_null(strstr(prov_error_last(), "fetch.maxSize"));
	prov_config_set(cfg, "fetch.maxSize", "ten");
	assert_int_equal(prov_fetch_file(&out, "https://releases.example.invalid/big", &o), PROV_EINPUT);
	prov_config_set(cfg, "fetch.maxSize", "2g");

	/* schemes */
	assert_int_equal(prov_fetch_file(&out, "ftp://example.invalid/x", &o), PROV_EINPUT);
	assert_int_equal(prov_fetch_file(&out, "/etc/passwd", &o), PROV_EINPUT);
	assert_int_equal(prov_fetch_file(&out, "scp://h/x", &o), PROV_EINPUT);
	assert_null(out);
	assert_true(prov_fetch_url_ok("HTTPS://x/y"));
	assert_false(prov_fetch_url_ok("gopher://x"));

	/* offline: no network, but file:// is read */
	ctx.offline = 1;
	assert_int_equal(prov_fetch_file(&out, "http://127.0.0.1:9/x.tar.gz", &o), PROV_ENOTFOUND);
	assert_non_null(strstr(prov_error_last(), "--offline"));
	prov_fetch_forget(cache, "https://releases.example.invalid/big");
	assert_ok(prov_fetch_file(&out, "https://releases.example.invalid/big", &o));
	free(out);
	out = NULL;
	ctx.offline = 0;

	/* sizes */
	prov_config_set(cfg, "a.b", "64k");
	assert_ok(prov_fetch_config_size(&n, cfg, "a.b", 1));
	assert_int_equal(n, 65536);
	prov_config_set(cfg, "a.b", "3G");
	assert_ok(prov_fetch_config_size(&n, cfg, "a.b", 1));
	assert_true(n == ((uint64_t)3 << 30));
	assert_ok(prov_fetch_config_size(&n, cfg, "a.c", 7));
	assert_int_equal(n, 7);
	prov_config_set(cfg, "a.b", "99999999999999999999g");
	assert_int_equal(prov_fetch_config_size(&n, cfg, "a.b", 1), PROV_EINPUT);

	free(rule);
	free(src);
	free(cache);
	prov_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_fips),
		cmocka_unit_test(test_sha256_file_vs_sha256sum),
		cmocka_unit_test(test_fetch_file_url),
		cmocka_unit_test(test_fetch_rules),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
