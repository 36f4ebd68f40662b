#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "forge.h"
#include "unit.h"
#include "banned.h"

/*
 * The single-file URL table (src/sources/forge.c): the forms as the forges
 * document them (GitHub raw, GitLab /-/raw/, cgit /plain/?id=, Gitea
 * /raw/commit/), hosts from the built-in list and from the configuration,
 * and URLs no form applies to. The downloads themselves are covered by
 * tests/e2e/t-network-first-answer.sh with a local forge.
 */
#define SHA "0123456789abcdef0123456789abcdef01234567"

static void expect(const struct prov_config *cfg, const char *repo, const char *path,
		   const char *want_url, const char *want_kind)
{
	const char *kind = NULL;
	char *url = prov_forge_file_url(&kind, cfg, repo, SHA, path);

	if (!want_url) {
		assert_null(url);
		return;
	}
	assert_non_null(url);
	assert_string_equal(url, want_url);
	assert_string_equal(kind, want_kind);
	free(url);
}

static void test_builtin_hosts(void **state)
{
	(void)state;
	expect(NULL, "https://github.com/python/cpython.git", "Objects/obj.c",
	       "https://raw.githubusercontent.com/python/cpython/" SHA "/Objects/obj.c", "github");
	expect(NULL, "https://github.com/python/cpython/", "a b/c#d.c",
	       "https://raw.githubusercontent.com/python/cpython/" SHA "/a%20b/c%23d.c", "github");
	expect(NULL, "git@github.com:python/cpython.git", "x.c",
	       "https://raw.githubusercontent.com/python/cpython/" SHA "/x.c", "github");
	expect(NULL, "ssh://git@github.com:22/python/cpython.git", "x.c",
	       "https://raw.githubusercontent.com/python/cpython/" SHA "/x.c", "github");
	expect(NULL, "https://gitlab.com/group/sub/proj.git", "src/x.c",
	       "https://gitlab.com/group/sub/proj/-/raw/" SHA "/src/x.c", "gitlab");
	expect(NULL, "https://salsa.debian.org/debian/zlib", "inflate.c",
	       "https://salsa.debian.org/debian/zlib/-/raw/" SHA "/inflate.c", "gitlab");
	expect(NULL, "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git", "mm/slub.c",
	       "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/plain/mm/slub.c?id=" SHA,
	       "cgit");
	expect(NULL, "https://codeberg.org/o/r.git", "x.c",
	       "https://codeberg.org/o/r/raw/commit/" SHA "/x.c", "gitea");
}

static void test_no_form(void **state)
{
	(void)state;
	/* unknown host, other schemes, paths that are not repository-relative */
	expect(NULL, "https://sourceware.org/git/glibc.git", "malloc/malloc.c", NULL, NULL);
	expect(NULL, "file:///srv/git/proj.git", "x.c", NULL, NULL);
	expect(NULL, "git://github.com/o/r.git", "x.c", NULL, NULL);
	expect(NULL, "/srv/git/proj.git", "x.c", NULL, NULL);
	expect(NULL, "https://github.com/o/r.git", "/abs/x.c", NULL, NULL);
	expect(NULL, "https://github.com/o/r.git", "../x.c", NULL, NULL);
	expect(NULL, "https://github.com/o/r.git", "", NULL, NULL);
	/* GitHub's raw host serves owner/repo only */
	expect(NULL, "https://github.com/o/r/extra.git", "x.c", NULL, NULL);
	expect(NULL, "https://github.com/o r/x.git", "x.c", NULL, NULL);
	expect(NULL, "https://github.com", "x.c", NULL, NULL);
}

static void test_configured(void **state)
{
	struct prov_config *cfg = prov_config_new();

	(void)state;
	assert_int_equal(prov_config_add_arg(cfg, "forge.git.example.org:8443.type=gitea"), 0);
	assert_int_equal(prov_config_add_arg(cfg, "forge.cgit.example.org.type=cgit"), 0);
	assert_int_equal(prov_config_add_arg(cfg, "forge.github.com.type=none"), 0);
	assert_int_equal(prov_config_add_arg(cfg, "forge.own.example.org.url={host}/{owner}/{repo}@{commit}:{path}"), 0);
	expect(cfg, "https://git.example.org:8443/o/r.git", "x.c",
	       "https://git.example.org:8443/o/r/raw/commit/" SHA "/x.c", "gitea");
	expect(cfg, "http://cgit.example.org/r.git", "d/x.c",
	       "http://cgit.example.org/r.git/plain/d/x.c?id=" SHA, "cgit");
	expect(cfg, "https://github.com/o/r.git", "x.c", NULL, NULL);
	/* a template that does not make an http(s) URL is refused */
	expect(cfg, "https://own.example.org/o/r.git", "x.c", NULL, NULL);
	prov_config_free(cfg);
	cfg = prov_config_new();
	assert_int_equal(prov_config_add_arg(cfg, "forge.own.example.org.url=https://{host}/{owner}/{repo}/+/{commit}/{path}"), 0);
	expect(cfg, "https://own.example.org/o/r.git", "x.c",
	       "https://own.example.org/o/r/+/" SHA "/x.c", "custom");
	prov_config_free(cfg);
}

static void test_redirected(void **state)
{
	struct prov_config *cfg = prov_config_new();

	(void)state;
	/* an air-gapped mirror of github.com: the user said where the repository is */
	assert_int_equal(prov_config_add_arg(cfg, "url.file:///srv/mirrors/.insteadOf=https://github.com/"), 0);
	expect(cfg, "https://github.com/o/r.git", "x.c", NULL, NULL);
	/* other hosts are not affected */
	expect(cfg, "https://gitlab.com/o/r.git", "x.c", "https://gitlab.com/o/r/-/raw/" SHA "/x.c", "gitlab");
	/* a forge named for the host still applies */
	assert_int_equal(prov_config_add_arg(cfg, "forge.github.com.type=github"), 0);
	expect(cfg, "https://github.com/o/r.git", "x.c",
	       "https://raw.githubusercontent.com/o/r/" SHA "/x.c", "github");
	prov_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_hosts),
		cmocka_unit_test(test_no_form),
		cmocka_unit_test(test_configured),
		cmocka_unit_test(test_redirected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
