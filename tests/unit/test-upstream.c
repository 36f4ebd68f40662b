#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "derive.h"
#include "error.h"
#include "kit-upstream.h"
#include "sources.h"
#include "util.h"
#include "banned.h"

/*
 * Upstreams derived from a package's own metadata: the URL filter, the
 * DEP-5 / METADATA / about.json readers (real files' shapes and hostile
 * ones), the tag spellings, and the tag matcher against a repository the
 * git CLI builds with real projects' tag names.
 */

static void url_is(const char *in, const char *want)
{
	char *got = prov_repo_url_from(in, strlen(in));

	if (!want) {
		if (got)
			fail_msg("'%s' gave '%s', expected nothing", in, got);
		return;
	}
	if (!got)
		fail_msg("'%s' gave nothing, expected '%s'", in, want);
	assert_string_equal(got, want);
	free(got);
}

static void test_repo_url(void **state)
{
	(void)state;
	url_is("https://github.com/numpy/numpy", "https://github.com/numpy/numpy.git");
	url_is("http://github.com/libffi/libffi/", "https://github.com/libffi/libffi.git");
	url_is("https://GitHub.com/curl/curl.git", "https://github.com/curl/curl.git");
	url_is("https://github.com/pytorch/pytorch/tree/v2.3.0", "https://github.com/pytorch/pytorch.git");
	url_is("https://github.com/scipy/scipy/issues", "https://github.com/scipy/scipy.git");
	url_is("git+https://github.com/jax-ml/jax@main", NULL);	/* '@' in the path */
	url_is("git+https://github.com/jax-ml/jax", "https://github.com/jax-ml/jax.git");
	url_is("https://gitlab.gnome.org/GNOME/libxml2/-/tags", "https://gitlab.gnome.org/GNOME/libxml2.git");
	url_is("https://gitlab.com/libtiff/libtiff", "https://gitlab.com/libtiff/libtiff.git");
	url_is("https://salsa.debian.org/debian/pkg/group/sub/x", "https://salsa.debian.org/debian/pkg/group/sub/x.git");
	url_is("https://sourceware.org/git/glibc.git", "https://sourceware.org/git/glibc.git");
	url_is("https://git.savannah.gnu.org/git/bash.git", "https://git.savannah.gnu.org/git/bash.git");
	url_is("https://git.kernel.org/pub/scm/utils/util-linux/util-linux",
	       "https://git.kernel.org/pub/scm/utils/util-linux/util-linux");
	/* homepages, non-repositories, and hostile spellings */
	url_is("https://www.sqlite.org/", NULL);
	url_is("http://xmlsoft.org", NULL);
	url_is("https://github.com/", NULL);
	url_is("https://github.com/numpy", NULL);
	url_is("https://github.com/sponsors/", NULL);
	url_is("file:///etc/shadow.git", NULL);
	url_is("/srv/git/x.git", NULL);
	url_is("ext::sh -c touch% /tmp/pwned", NULL);
	url_is("ssh://git@github.com/a/b.git", NULL);
	url_is("git@github.com:a/b.git", NULL);
	url_is("https://user:pass@github.com/a/b", NULL);
	url_is("https://github.com:443/a/b", NULL);
	url_is("https://github.com/a/../../b", NULL);
	url_is("https://github.com/a/%2e%2e/b", NULL);
	url_is("https://example.org/a b.git", NULL);
	url_is("https://example.org/a\nb.git", NULL);
	url_is("mailto:someone@example.org", NULL);
	url_is("https://", NULL);
	url_is("", NULL);
	{
		char *longurl = prov_xcalloc(1, 700);

		memcpy(longurl, "https://github.com/a/", 21);
		memset(longurl + 21, 'b', 600);
		url_is(longurl, NULL);
		free(longurl);
	}
}

static void dep5_is(const char *text, const char *want)
{
	char *got = prov_dep5_upstream(text, strlen(text));

	if (!want) {
		if (got)
			fail_msg("gave '%s', expected nothing", got);
		return;
	}
	if (!got)
		fail_msg("gave nothing, expected '%s'", want);
	assert_string_equal(got, want);
	free(got);
}

static void test_dep5(void **state)
{
	(void)state;
	/* Debian 12's libffi8 copyright header */
	dep5_is("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
		"Upstream-Name: libffi\n"
		"Source: https://github.com/libffi/libffi\n\n"
		"Files: *\nCopyright: 1996-2022 Anthony Green\n", "https://github.com/libffi/libffi.git");
	/* a homepage first, the repository on a continuation line */
	dep5_is("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\r\n"
		"Source: https://curl.se/download/\r\n"
		" https://github.com/curl/curl/releases.\r\n\r\n", "https://github.com/curl/curl.git");
	/* only a contact names it */
	dep5_is("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
		"Upstream-Contact: Jane <jane@example.org>, https://gitlab.com/libtiff/libtiff\n"
		"Source: http://www.simplesystems.org/libtiff/\n",
		"https://gitlab.com/libtiff/libtiff.git");
	/* a Source in the files paragraphs is not the header's */
	dep5_is("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
		"Upstream-Name: x\n\nFiles: *\nSource: https://github.com/a/b\n", NULL);
	/* not DEP-5 */
	dep5_is("This package was debianized by someone.\nSource: https://github.com/a/b\n", NULL);
	dep5_is("", NULL);
	dep5_is("Format: x\nSource: file:///etc/passwd https://github.com/..%2f/x\n", NULL);
	{
		/* a huge continuation stays bounded; a NUL line is skipped */
		struct prov_buf b = PROV_BUF_INIT;
		char *got;
		int i;

		prov_buf_puts(&b, "Format: x\nSource: ");
		for (i = 0; i < 20000; i++)
			prov_buf_puts(&b, " x\n");
		prov_buf_add(&b, "Upstream-Contact: \0 https://github.com/n/ul\n", 44);
		got = prov_dep5_upstream(b.buf, b.len);
		assert_null(got);
		prov_buf_release(&b);
	}
}

static void test_pip_and_conda(void **state)
{
	const char *numpy = "Metadata-Version: 2.1\nName: numpy\nVersion: 1.26.4\n"
			    "Home-page: https://numpy.org\n"
			    "Project-URL: Homepage, https://numpy.org\n"
			    "Project-URL: Documentation, https://numpy.org/doc/\n"
			    "Project-URL: Source, https://github.com/numpy/numpy\n"
			    "Project-URL: Tracker, https://github.com/numpy/numpy/issues\n\n"
			    "Project-URL: Source, https://github.com/body/not-header\n";
	const char *home = "Name: x\r\nHome-page: https://github.com/pallets/flask/\r\n"
			   "Project-URL: Donate, https://github.com/sponsors/pallets\r\n";
	const char *none = "Name: x\nHome-page: https://example.org\nProject-URL: Code\n";
	const char *about = "{\"channels\": [\"conda-forge\"], \"home\": \"https://www.openblas.net\","
			    " \"dev_url\": \"https://github.com/OpenMathLib/OpenBLAS\", \"license\": \"BSD\"}";
	char *u;

	(void)state;
	u = prov_pip_upstream(numpy, strlen(numpy));
	assert_string_equal(u, "https://github.com/numpy/numpy.git");
	free(u);
	u = prov_pip_upstream(home, strlen(home));
	assert_string_equal(u, "https://github.com/pallets/flask.git");
	free(u);
	assert_null(prov_pip_upstream(none, strlen(none)));
	assert_null(prov_pip_upstream("", 0));
	u = prov_conda_upstream(about, strlen(about));
	assert_string_equal(u, "https://github.com/OpenMathLib/OpenBLAS.git");
	free(u);
	assert_null(prov_conda_upstream("{\"home\": 3, \"dev_url\": [\"https://github.com/a/b\"]}", 50));
	assert_null(prov_conda_upstream("{\"dev_url\": \"https://github.com/a/b\"", 35));
	assert_null(prov_conda_upstream("[[[[[[[[", 8));
	prov_error_clear();
}

static int has(char **v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

static void test_tag_candidates(void **state)
{
	/* real projects' release tags for the versions their distributions ship */
	static const struct {
		const char *name, *url, *version, *tag;
	} cases[] = {
		{ "libffi", "https://github.com/libffi/libffi.git", "3.4.4-1", "v3.4.4" },
		{ "libjpeg-turbo", "https://github.com/libjpeg-turbo/libjpeg-turbo.git", "1:2.1.5-2", "2.1.5" },
		{ "bzip2", "https://gitlab.com/bzip2/bzip2.git", "1.0.8-5", "bzip2-1.0.8" },
		{ "expat", "https://github.com/libexpat/libexpat.git", "2.5.0-1", "R_2_5_0" },
		{ "curl", "https://github.com/curl/curl.git", "7.88.1-10+deb12u5", "curl-7_88_1" },
		{ "pcre2", "https://github.com/PCRE2Project/pcre2.git", "10.42-1", "pcre2-10.42" },
		{ "openssl", "https://github.com/openssl/openssl.git", "3.0.11-1~deb12u2", "openssl-3.0.11" },
		{ "openblas", "https://github.com/OpenMathLib/OpenBLAS.git", "0.3.21+ds-4", "OpenBLAS-0.3.21" },
		{ "freetype", "https://gitlab.freedesktop.org/freetype/freetype.git", "2.13.0+dfsg-1", "VER-2-13-0" },
		{ "sqlite3", "https://github.com/sqlite/sqlite.git", "3.40.1-2", "version-3.40.1" },
		{ "libxml2", "https://gitlab.gnome.org/GNOME/libxml2.git", "2.9.14+dfsg-1.3", "v2.9.14" },
		{ "icu", "https://github.com/unicode-org/icu.git", "72.1-3", "release-72-1" },
		{ "boost", "https://github.com/boostorg/boost.git", "1.74.0-18", "boost-1.74.0" },
		{ "torch", "https://github.com/pytorch/pytorch.git", "2.3.0+cu121", "v2.3.0" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char **v = NULL;
		size_t n = 0;

		assert_int_equal(prov_tag_candidates(&v, &n, cases[i].name, cases[i].url, cases[i].version), 0);
		if (!has(v, n, cases[i].tag))
			fail_msg("%s %s: no candidate '%s'", cases[i].name, cases[i].version, cases[i].tag);
		prov_tag_candidates_free(v, n);
	}
	{
		char **v = NULL;
		size_t n = 0;

		/* no release version: nothing to look up */
		assert_int_equal(prov_tag_candidates(&v, &n, "x", NULL, "git20230101"), PROV_ENOTFOUND);
		assert_int_equal(prov_tag_candidates(&v, &n, "x", NULL, NULL), PROV_ENOTFOUND);
		/* a hostile name or URL does not reach a tag name */
		assert_int_equal(prov_tag_candidates(&v, &n, "../../x", "https://h/a b/..git", "1.0"), 0);
		for (i = 0; i < n; i++)
			assert_null(strstr(v[i], ".."));
		prov_tag_candidates_free(v, n);
		prov_error_clear();
	}
}

static char tmpdir[] = "/tmp/prov-test-upstream.XXXXXX";

static void test_tag_match(void **state)
{
	struct prov_ctx ctx = { .offline = 1 };
	struct prov_sources_opts so = { &ctx };
	struct prov_repo *repo = NULL;
	char **v = NULL, *tag = NULL, *commit = NULL, *cmd, *want;
	size_t n = 0;
	FILE *p;
	char line[128] = "";

	(void)state;
	if (system("git --version >/dev/null 2>&1") != 0)
		skip();
	assert_non_null(mkdtemp(tmpdir));
	/* a branch named like a candidate must not count; the tag must */
	cmd = prov_xasprintf("cd '%s' && git init -q r && cd r && git config user.email t@t && "
			     "git config user.name t && git commit -q --allow-empty -m one && "
			     "git branch v2.5.0 && git commit -q --allow-empty -m two && "
			     "git tag R_2_5_0 && git commit -q --allow-empty -m three", tmpdir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	cmd = prov_xasprintf("git -C '%s/r' rev-parse 'R_2_5_0^{commit}'", tmpdir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	pclose(p);
	free(cmd);
	line[strcspn(line, "\n")] = 0;
	want = prov_xasprintf("%s/r", tmpdir);
	assert_int_equal(prov_sources_open(&repo, want, NULL, 0, 0, &so), 0);
	assert_int_equal(prov_tag_candidates(&v, &n, "expat", "https://github.com/libexpat/libexpat",
					     "2.5.0-1"), 0);
	assert_int_equal(prov_tag_match(&tag, &commit, repo, v, n), 0);
	assert_string_equal(tag, "R_2_5_0");
	assert_string_equal(commit, line);
	free(tag);
	free(commit);
	prov_tag_candidates_free(v, n);
	/* no tag for another version */
	assert_int_equal(prov_tag_candidates(&v, &n, "expat", NULL, "2.6.0-1"), 0);
	assert_int_equal(prov_tag_match(&tag, &commit, repo, v, n), PROV_ENOTFOUND);
	assert_null(tag);
	assert_null(commit);
	prov_tag_candidates_free(v, n);
	prov_repo_free(repo);
	cmd = prov_xasprintf("rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(want);
	prov_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repo_url),
		cmocka_unit_test(test_dep5),
		cmocka_unit_test(test_pip_and_conda),
		cmocka_unit_test(test_tag_candidates),
		cmocka_unit_test(test_tag_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
