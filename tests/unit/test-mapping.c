#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <git2.h>

#include "error.h"
#include "mapping.h"
#include "sources.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

static char tmpdir[] = "/tmp/prov-test-mapping.XXXXXX";

static char *write_file(const char *name, const char *text)
{
	char *path = prov_xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void check_split(const char *v, const char *up, const char *maj, const char *min,
			const char *pat)
{
	struct prov_version_parts p;

	prov_version_split(&p, v);
	assert_string_equal(p.upstream, up);
	assert_string_equal(p.major, maj);
	assert_string_equal(p.minor, min);
	assert_string_equal(p.patch, pat);
	prov_version_parts_release(&p);
}

static void test_version_split(void **state)
{
	(void)state;
	check_split("1:2.0.0-43~24.04", "2.0.0", "2", "0", "0");
	check_split("2.36-9+deb12u4", "2.36", "2", "36", "");
	/* a ROCm package version: its last part 60200 is the release 6.2.0 */
	check_split("6.2.41133.60200-66~22.04", "6.2.0", "6", "2", "0");
	check_split("6.1.0.60100-82~22.04", "6.1.0", "6", "1", "0");
	check_split("5.2.3.50203-109", "5.2.3", "5", "2", "3");
	/* not ROCm's form: XXYYZZ disagrees with the first parts */
	check_split("6.2.41133.50200-1", "6.2.41133.50200", "6", "2", "41133");
	check_split("2.3.0+cu121", "2.3.0+cu121", "2", "3", "0");
	check_split("1:1.2.13.dfsg-1", "1.2.13", "1", "2", "13");
	check_split("2.34-100.el9_4.2", "2.34", "2", "34", "");
	check_split("3.0.15-1~deb12u1", "3.0.15", "3", "0", "15");
	check_split("2.21.5-1+cuda12.4", "2.21.5", "2", "21", "5");
	check_split("", "", "", "", "");
	check_split(NULL, "", "", "", "");
	check_split("abc", "abc", "", "", "");
	check_split("7:", "", "", "", "");
}

static void expand_ok(const char *tmpl, const char *version, const char *want)
{
	struct prov_buf b = PROV_BUF_INIT;

	assert_ok(prov_mapping_expand_ref(&b, tmpl, version));
	assert_string_equal(b.buf, want);
	prov_buf_release(&b);
}

static void expand_bad(const char *tmpl, const char *version)
{
	struct prov_buf b = PROV_BUF_INIT;

	assert_int_equal(prov_mapping_expand_ref(&b, tmpl, version), PROV_EINPUT);
	prov_buf_release(&b);
}

static void test_expand_ref(void **state)
{
	(void)state;
	expand_ok("release/rocm-rel-{major}.{minor}", "6.2.41133.60200-66~22.04",
		  "release/rocm-rel-6.2");
	expand_ok("glibc-{upstream_version}", "2.36-9+deb12u4", "glibc-2.36");
	expand_ok("v{version}", "2.3.0", "v2.3.0");
	expand_ok("v{major}.{minor}.{patch}", "2.3.0+cu121", "v2.3.0");
	expand_ok("v{major}.{minor}.{patch}-1", "2.21.5-1+cuda12.4", "v2.21.5-1");
	expand_ok("openssl-{upstream_version}", "3.0.15-1~deb12u1", "openssl-3.0.15");
	expand_ok("main", NULL, "main");
	expand_ok("", "1.0", "");
	expand_bad("v{patch}", "2.36-9");	/* no patch part */
	expand_bad("v{nope}", "1.0");
	expand_bad("v{version", "1.0");
	expand_bad("v{version}", NULL);
}

static void test_url_scheme(void **state)
{
	(void)state;
	assert_true(prov_url_scheme_ok("https://github.com/ROCm/rocm-systems.git"));
	assert_true(prov_url_scheme_ok("http://x/y"));
	assert_true(prov_url_scheme_ok("ssh://git@x/y"));
	assert_true(prov_url_scheme_ok("git://x/y"));
	assert_true(prov_url_scheme_ok("file:///srv/git/x.git"));
	assert_true(prov_url_scheme_ok("/srv/git/x.git"));
	assert_true(prov_url_scheme_ok("./x"));
	assert_false(prov_url_scheme_ok("ext::sh -c touch% /tmp/x"));
	assert_false(prov_url_scheme_ok("fd::3"));
	assert_false(prov_url_scheme_ok("ftp://x/y"));
	assert_false(prov_url_scheme_ok("git@github.com:a/b.git"));
	assert_false(prov_url_scheme_ok("https://"));
	assert_false(prov_url_scheme_ok(""));
	assert_false(prov_url_scheme_ok(NULL));
}

static void test_load_good(void **state)
{
	struct prov_mappings m;
	const struct prov_mapping *p;
	struct prov_origin o = { 0 };
	char *a, *b;

	(void)state;
	a = write_file("a.map",
		       "# comment\n"
		       "[component \"clr\"]\n"
		       "\tlibrary = libamdhip64.so*\n"
		       "\tlibrary = libhiprtc.so*\n"
		       "\tpackage = hip-runtime-amd\n"
		       "\trepo = https://github.com/ROCm/rocm-systems.git\n"
		       "\tsubdir = projects//clr/\n"
		       "\tsubdir-paths = true\n"
		       "\tref = release/rocm-rel-{major}.{minor}\n"
		       "\tpath-prefix = */rocm-systems/\n"
		       "[component \"My.Dotted\"]\n"
		       "\tpackage = dotted\n"
		       "\trepo = https://example.invalid/d.git\n");
	b = write_file("b.map",
		       "[component \"clr\"]\n"
		       "\tlibrary = libother.so\n"
		       "\trepo = https://example.invalid/other.git\n"
		       "[component \"zlib\"]\n"
		       "\tlibrary = libz.so*\n"
		       "\tsource-only = 1\n");
	prov_mappings_init(&m);
	assert_ok(prov_mappings_load_file(&m, a));
	assert_ok(prov_mappings_load_file(&m, b));
	assert_int_equal(m.n, 3);
	p = prov_mappings_find(&m, "clr");
	assert_non_null(p);
	assert_int_equal(p->nlibraries, 2);
	assert_string_equal(p->subdir, "projects/clr");
	assert_int_equal(p->subdir_paths, 1);
	assert_string_equal(p->repo, "https://github.com/ROCm/rocm-systems.git");
	assert_int_equal(p->nrefs, 1);
	assert_int_equal(p->npath_prefixes, 1);
	assert_non_null(prov_mappings_find(&m, "My.Dotted"));

	/* the earlier file wins for clr: libother.so is not clr */
	assert_null(prov_mappings_match(&m, "/usr/lib/libother.so", NULL));
	p = prov_mappings_match(&m, "/opt/rocm-6.2.0/lib/libamdhip64.so.6.2.60200", NULL);
	assert_non_null(p);
	assert_string_equal(p->name, "clr");
	p = prov_mappings_match(&m, "/lib/x86_64-linux-gnu/libz.so.1", NULL);
	assert_non_null(p);
	assert_string_equal(p->name, "zlib");
	o.name = (char *)"hip-runtime-amd";
	p = prov_mappings_match(&m, "/opt/x/libunrelated.so", &o);
	assert_non_null(p);
	assert_string_equal(p->name, "clr");
	/* a library glob beats a package name */
	p = prov_mappings_match(&m, "/usr/lib/libz.so.1", &o);
	assert_non_null(p);
	assert_string_equal(p->name, "zlib");
	o.name = (char *)"python3-dotted";
	o.source = (char *)"dotted";
	p = prov_mappings_match(&m, NULL, &o);
	assert_non_null(p);
	assert_string_equal(p->name, "My.Dotted");
	o.source = NULL;
	assert_null(prov_mappings_match(&m, NULL, &o));
	prov_mappings_release(&m);
	free(a);
	free(b);
}

static void load_bad(const char *name, const char *text, int code, const char *msg_part)
{
	struct prov_mappings m;
	char *path = write_file(name, text);

	prov_mappings_init(&m);
	assert_int_equal(prov_mappings_load_file(&m, path), code);
	assert_int_equal(m.n, 0);
	if (msg_part && !strstr(prov_error_last(), msg_part)) {
		fprintf(stderr, "message '%s' lacks '%s'\n", prov_error_last(), msg_part);
		fail();
	}
	/* every message names the file */
	assert_non_null(strstr(prov_error_last(), name));
	prov_mappings_release(&m);
	free(path);
}

/* libgit2 followed [include] in all these spellings; our parser refuses each */
static void test_include_variants(void **state)
{
	static const char *const evil[] = {
		"\xef\xbb\xbf[include]\n\tpath = SECRET\n",
		"[component \"x\"][include]\n\tpath = SECRET\n",
		"[component \"x\"]\n\tlibrary = a\n\f[include]\n\tpath = SECRET\n",
		"[component \"x\"]\n\tlibrary = a\n\v[include]\n\tpath = SECRET\n",
		"[component \"x\"]\n\tlibrary = a\n\r[include]\n\tpath = SECRET\n",
		"[component \"x\"]\r\tlibrary = a\r[include]\r\tpath = SECRET\r",
		"[component \"x\"] library = a\r[ INCLUDE ] path = SECRET\n",
		"[component \"x\"]\n[includeIf \"gitdir:/\"]\n\tpath = SECRET\n",
		"[component \"x\"]\n[include \"x\"]\n\tpath = SECRET\n",
	};
	char *secret = write_file("secret.map", "[component \"leak\"]\n\tlibrary = leaked\n");
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(evil) / sizeof(evil[0]); i++) {
		struct prov_buf text = PROV_BUF_INIT;
		struct prov_mappings m;
		char *name = prov_xasprintf("evil%zu.map", i), *path;
		const char *s;

		for (s = evil[i]; *s; s++) {
			if (!strncmp(s, "SECRET", 6)) {
				prov_buf_puts(&text, secret);
				s += 5;
			} else {
				prov_buf_putc(&text, *s);
			}
		}
		path = write_file(name, text.buf);
		prov_mappings_init(&m);
		assert_int_equal(prov_mappings_load_file(&m, path), PROV_EINPUT);
		assert_non_null(strstr(prov_error_last(), "include"));
		assert_null(prov_mappings_find(&m, "leak"));
		prov_mappings_release(&m);
		prov_buf_release(&text);
		free(name);
		free(path);
	}
	free(secret);
}

/* the same bytes that carried includes parse when they hold only components */
static void test_parse_odd_bytes(void **state)
{
	static const char *const ok[] = {
		"\xef\xbb\xbf[component \"x\"]\n\tlibrary = liba.so*\n",
		"[component \"x\"]\r\n\tlibrary = liba.so*\r\n",
		"[component \"x\"]\r\tlibrary = liba.so*\r",
		"\f[component \"x\"]\v\n\tlibrary = \"liba.so*\" ; comment\n",
		"[component \"x\"] library = liba.so*\n",
		"[COMPONENT \"x\"]\n\tLibrary = li\\\nba.so*\n",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct prov_mappings m;
		char *name = prov_xasprintf("odd%zu.map", i), *path = write_file(name, ok[i]);
		const struct prov_mapping *x;

		prov_mappings_init(&m);
		assert_ok(prov_mappings_load_file(&m, path));
		assert_non_null(x = prov_mappings_find(&m, "x"));
		assert_int_equal(x->nlibraries, 1);
		assert_string_equal(x->libraries[0], "liba.so*");
		prov_mappings_release(&m);
		free(name);
		free(path);
	}
}

static void test_load_hostile(void **state)
{
	struct prov_buf big = PROV_BUF_INIT;
	int i;

	(void)state;
	load_bad("up.map", "[component \"x\"]\n\tsubdir = ../../..\n", PROV_EINPUT, "..");
	load_bad("up2.map", "[component \"x\"]\n\tsubdir = a/../../b\n", PROV_EINPUT, "..");
	load_bad("abs.map", "[component \"x\"]\n\tsubdir = /etc\n", PROV_EINPUT, "relative");
	load_bad("etc.map", "[component \"x\"]\n\trepo = file:///etc\n", PROV_EINPUT,
		 "not a git repository");
	load_bad("etc2.map", "[component \"x\"]\n\trepo = /etc\n", PROV_EINPUT,
		 "not a git repository");
	load_bad("ext.map", "[component \"x\"]\n\trepo = ext::sh -c id\n", PROV_EINPUT, "URL");
	load_bad("syntax.map", "[component \"x\"\n\trepo = https://a/b\n", PROV_EINPUT, NULL);
	load_bad("syntax2.map", "[component \"x\"]\n\t= value\n", PROV_EINPUT, NULL);
	load_bad("inc.map", "[include]\n\tpath = /etc/passwd\n", PROV_EINPUT, "include");
	load_bad("inc2.map", "[component \"x\"]\n\tlibrary = a\n  [ includeIf \"gitdir:/\"]\n\tpath = /etc/shadow\n",
		 PROV_EINPUT, "include");
	load_bad("stars.map", "[component \"x\"]\n\tlibrary = *a*a*a*a*a*a*a*a*a*b\n", PROV_EINPUT, "glob");
	load_bad("bool.map", "[component \"x\"]\n\tsubdir-paths = maybe\n", PROV_EINPUT, "boolean");
	load_bad("arch.map", "[component \"x\"]\n\tarchive = ftp://a/x.tar.gz\n", PROV_EINPUT, "archive");
	load_bad("arch2.map", "[component \"x\"]\n\tarchive = /etc/passwd\n", PROV_EINPUT, "archive");
	load_bad("deb.map", "[component \"x\"]\n\tdebian-source = ../../etc\n", PROV_EINPUT, "debian-source");
	{
		static const char nul[] = "[component \"x\"]\n\tlibrary = a\0b\n";
		struct prov_mappings m;
		char *path = prov_xasprintf("%s/nul.map", tmpdir);
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		assert_int_equal(fwrite(nul, 1, sizeof(nul) - 1, f), sizeof(nul) - 1);
		fclose(f);
		prov_mappings_init(&m);
		assert_int_equal(prov_mappings_load_file(&m, path), PROV_EINPUT);
		assert_non_null(strstr(prov_error_last(), "nul.map"));
		prov_mappings_release(&m);
		free(path);
	}

	prov_buf_puts(&big, "[component \"x\"]\n\tlibrary = ");
	for (i = 0; i < 5000; i++)
		prov_buf_putc(&big, 'a');
	prov_buf_puts(&big, "\n");
	load_bad("long.map", big.buf, PROV_ELIMIT, "longer");
	prov_buf_reset(&big);
	for (i = 0; i < 300; i++)
		prov_buf_puts(&big, "[component \"x\"]\n\tlibrary = a\n");
	load_bad("many.map", big.buf, PROV_ELIMIT, "too many");
	prov_buf_reset(&big);
	while (big.len <= PROV_MAPPING_MAX_FILE)
		prov_buf_puts(&big, "# padding padding padding padding padding padding\n");
	load_bad("huge.map", big.buf, PROV_ELIMIT, "larger");
	prov_buf_release(&big);
}

static void test_load_sources_beyond_git(void **state)
{
	struct prov_mappings m;
	char *path = write_file("srcpkg.map",
				"[component \"zlib\"]\n\tpackage = zlib1g\n\tdebian-source = {source}\n"
				"\tarchive = https://zlib.net/zlib-{upstream_version}.tar.xz\n");

	(void)state;
	prov_mappings_init(&m);
	assert_ok(prov_mappings_load_file(&m, path));
	assert_int_equal(m.n, 1);
	assert_string_equal(m.items[0].debian_source, "{source}");
	assert_string_equal(m.items[0].archive, "https://zlib.net/zlib-{upstream_version}.tar.xz");
	assert_null(m.items[0].repo);
	prov_mappings_release(&m);
	free(path);
}

static void test_unknown_keys_warn(void **state)
{
	struct prov_mappings m;
	char *path = write_file("warn.map", "[other]\n\tkey = 1\n[component \"y\"]\n\tcolour = blue\n\tlibrary = liby.so\n");

	(void)state;
	prov_mappings_init(&m);
	assert_ok(prov_mappings_load_file(&m, path));
	assert_int_equal(m.n, 1);
	assert_string_equal(m.items[0].name, "y");
	prov_mappings_release(&m);
	free(path);
}

static void test_shipped_mappings_parse(void **state)
{
	struct prov_mappings m;
	const char *top = getenv("TOP");
	char *dir = prov_xasprintf("%s/mappings", top ? top : ".");
	const struct prov_mapping *p;
	struct prov_origin o = { 0 };
	struct prov_buf b = PROV_BUF_INIT;
	size_t i, j;

	(void)state;
	prov_mappings_init(&m);
	assert_ok(prov_mappings_load_dir(&m, dir));
	assert_true(m.n >= 15);
	/* every shipped template expands for a typical version */
	for (i = 0; i < m.n; i++)
		for (j = 0; j < m.items[i].nrefs; j++)
			assert_ok(prov_mapping_expand_ref(&b, m.items[i].refs[j], "1:6.2.3-4"));
	p = prov_mappings_match(&m, "/opt/rocm/lib/libamdhip64.so.6", NULL);
	assert_non_null(p);
	assert_string_equal(p->name, "clr");
	assert_string_equal(p->subdir, "projects/clr");
	{
		struct prov_mapping v;

		/* where HIP's runtime lived: hipamd (Debian 12's 5.2.3), clr (5.6-6.x), the monorepo (7) */
		prov_mapping_select(&v, p, "5.2.3-3");
		assert_non_null(strstr(v.repo, "/hipamd"));
		prov_mapping_select(&v, p, "6.1.40091.60100-82~22.04");
		assert_non_null(strstr(v.repo, "ROCm/clr"));
		prov_mapping_select(&v, p, "7.0.0-1");
		assert_non_null(strstr(v.repo, "rocm-systems"));
		assert_string_equal(v.subdir, "projects/clr");
		/* rocBLAS 4.1.0.60100 is ROCm 6.1.0: its own repository, not the monorepo */
		p = prov_mappings_match(&m, "/opt/rocm-6.1.0/lib/librocblas.so.4", NULL);
		assert_non_null(p);
		{
			char *mv = prov_mapping_version(p, "4.1.0.60100-82~22.04");

			assert_string_equal(mv, "6.1.0");
			prov_mapping_select(&v, p, mv);
			assert_non_null(strstr(v.repo, "ROCm/rocBLAS"));
			free(mv);
			mv = prov_mapping_version(p, "5.0.0.70000-1");
			prov_mapping_select(&v, p, mv);
			assert_non_null(strstr(v.repo, "rocm-libraries"));
			free(mv);
		}
	}
	p = prov_mappings_match(&m, "/usr/lib/python3/site-packages/torch/lib/libtorch_cuda.so", NULL);
	assert_non_null(p);
	assert_string_equal(p->name, "pytorch");
	o.name = (char *)"jaxlib";
	p = prov_mappings_match(&m, "/site-packages/jaxlib/xla_extension.so", &o);
	assert_non_null(p);
	assert_string_equal(p->name, "xla");
	p = prov_mappings_match(&m, "/site-packages/jaxlib/cuda/_solver.so", &o);
	assert_non_null(p);
	assert_string_equal(p->name, "jaxlib");
	p = prov_mappings_match(&m, "/usr/lib/x86_64-linux-gnu/libc.so.6", NULL);
	assert_non_null(p);
	assert_string_equal(p->name, "glibc");
	prov_buf_release(&b);
	prov_mappings_release(&m);
	free(dir);
}

static void test_rocm_decode(void **state)
{
	char *v = NULL;

	(void)state;
	assert_int_equal(prov_rocm_version_decode(&v, "6.1.40091.60100-82~22.04"), 0);
	assert_string_equal(v, "6.1.0");
	free(v);
	assert_int_equal(prov_rocm_version_decode(&v, "6.4.43483.60403"), 0);
	assert_string_equal(v, "6.4.3");
	free(v);
	assert_int_equal(prov_rocm_version_decode(&v, "5.2.3-3"), PROV_ENOTFOUND);
	assert_int_equal(prov_rocm_version_decode(&v, "1.2.3.4"), PROV_ENOTFOUND);
	assert_int_equal(prov_rocm_version_decode(&v, "6.1.40091.70100"), PROV_ENOTFOUND);
	assert_int_equal(prov_rocm_version_decode(&v, NULL), PROV_ENOTFOUND);
	assert_int_equal(prov_rocm_version_decode(&v, "6.1.x.60100"), PROV_ENOTFOUND);
}

static void check_mver(const struct prov_mapping *m, const char *v, const char *want)
{
	char *got = prov_mapping_version(m, v);

	assert_string_equal(got, want);
	free(got);
}

static void test_mapping_version(void **state)
{
	struct prov_mapping m;

	(void)state;
	memset(&m, 0, sizeof(m));
	check_mver(&m, "4.1.0.60100-82~22.04", "4.1.0.60100-82~22.04");	/* plain */
	assert_null(prov_mapping_version(&m, NULL));
	m.version_rocm = 1;
	check_mver(&m, "4.1.0.60100-82~22.04", "6.1.0");	/* rocblas in ROCm 6.1.0 */
	check_mver(&m, "2.18.3.60100", "6.1.0");	/* rccl */
	check_mver(&m, "6.1.40091.60100-82~22.04", "6.1.0");
	check_mver(&m, "6.1.0.60102-1", "6.1.2");
	check_mver(&m, "5.2.3-8", "5.2.3-8");	/* Debian numbers as the release: left as is */
	check_mver(&m, "6.1.0-82", "6.1.0-82");	/* .info/version */
	check_mver(&m, "5.3.3+dfsg-2", "5.3.3+dfsg-2");
	check_mver(&m, "1.2.00099", "1.2.00099");	/* major 0 */
}

static void test_ref_names_version(void **state)
{
	(void)state;
	assert_true(prov_ref_names_version("rocm-6.1.0", "6.1.40091.60100-82~22.04"));
	assert_true(prov_ref_names_version("rocm-6.1.0", "6.1.0-82"));
	assert_true(prov_ref_names_version("v2.3.0", "2.3.0+cu121"));
	assert_true(prov_ref_names_version("glibc-2.36", "2.36-9+deb12u4"));
	assert_true(prov_ref_names_version("rocm-5.2.3", "5.2.3-3"));
	assert_false(prov_ref_names_version("v1.13.0", "1.13.0a0+gitunknown"));
	assert_false(prov_ref_names_version("v1.13.0", "1.13"));
	assert_false(prov_ref_names_version("release/rocm-rel-6.1", "6.1.40091.60100-82"));
	assert_false(prov_ref_names_version("v1.5", "1.5.0"));
	assert_false(prov_ref_names_version("v12.3", "2.3"));
	assert_false(prov_ref_names_version("main", NULL));
}

static void test_version_ranges(void **state)
{
	struct prov_mappings m;
	struct prov_mapping v;
	char *path;

	(void)state;
	assert_int_equal(prov_version_in_range(">=5.6,<7", "6.1.0-82"), 1);
	assert_int_equal(prov_version_in_range(">=5.6,<7", "6.1.40091.60100-82~22.04"), 1);
	assert_int_equal(prov_version_in_range(">=5.6,<7", "7.0.1"), 0);
	assert_int_equal(prov_version_in_range("<5.6", "5.2.3-3"), 1);
	assert_int_equal(prov_version_in_range("<5.6", "5.6"), 0);
	assert_int_equal(prov_version_in_range("=5.2", "5.2.0"), 1);
	assert_int_equal(prov_version_in_range(">5.2", "5.2.1"), 1);
	assert_int_equal(prov_version_in_range("<=5.2", "5.2.1"), 0);
	assert_int_equal(prov_version_in_range("<5.6", NULL), 0);
	assert_int_equal(prov_version_in_range("<5.6", "abc"), 0);
	assert_int_equal(prov_version_in_range("5.6", "5.6"), PROV_EINPUT);

	path = write_file("ranges.map",
			  "[component \"clr\"]\n\tlibrary = libamdhip64.so*\n"
			  "\trepo = https://example.invalid/monorepo.git\n\tsubdir = projects/clr\n"
			  "\tsubdir-paths = true\n\tref = rocm-{upstream_version}\n"
			  "[component \"clr@<5.6\"]\n\trepo = https://example.invalid/hipamd.git\n"
			  "\tsubdir-paths = false\n\tref = rocm-{major}.{minor}.x\n"
			  "[component \"clr@>=5.6,<7\"]\n\trepo = https://example.invalid/clr.git\n"
			  "\tpath-prefix = */clr/\n");
	prov_mappings_init(&m);
	assert_int_equal(prov_mappings_load_file(&m, path), 0);
	assert_int_equal(m.n, 1);
	assert_int_equal(m.items[0].nvariants, 2);
	prov_mapping_select(&v, &m.items[0], "5.2.3-3");
	assert_string_equal(v.repo, "https://example.invalid/hipamd.git");
	assert_string_equal(v.variant, "<5.6");
	assert_int_equal(v.subdir_paths, 0);
	assert_int_equal(v.nrefs, 1);
	assert_string_equal(v.refs[0], "rocm-{major}.{minor}.x");
	prov_mapping_select(&v, &m.items[0], "6.1.40091.60100-82~22.04");
	assert_string_equal(v.repo, "https://example.invalid/clr.git");
	assert_string_equal(v.refs[0], "rocm-{upstream_version}");	/* the base's */
	assert_string_equal(v.path_prefixes[0], "*/clr/");
	prov_mapping_select(&v, &m.items[0], "7.0.1");
	assert_null(v.variant);
	assert_string_equal(v.repo, "https://example.invalid/monorepo.git");
	prov_mapping_select(&v, &m.items[0], NULL);
	assert_null(v.variant);
	prov_mappings_release(&m);
	free(path);

	load_bad("range-syntax.map", "[component \"a\"]\n\tlibrary = x\n[component \"a@5.0-5.5\"]\n\trepo = https://x/y\n",
		 PROV_EINPUT, "version range '5.0-5.5'");
	load_bad("range-empty.map", "[component \"a\"]\n\tlibrary = x\n[component \"a@\"]\n\trepo = https://x/y\n",
		 PROV_EINPUT, "version range");
	load_bad("range-key.map", "[component \"a\"]\n\tlibrary = x\n[component \"a@<2\"]\n\tlibrary = y\n",
		 PROV_EINPUT, "cannot depend on the version");
	load_bad("range-nobase.map", "[component \"a@<2\"]\n\trepo = https://x/y\n",
		 PROV_EINPUT, "no [component \"a\"] section");
	load_bad("range-subdir.map", "[component \"a\"]\n\tlibrary = x\n[component \"a@<2\"]\n\tsubdir = ../x\n",
		 PROV_EINPUT, "must not contain '..'");
	load_bad("range-scheme.map", "[component \"a\"]\n\tlibrary = x\n[component \"a@<2\"]\n\trepo = ext::sh\n",
		 PROV_EINPUT, "is not an https");
	load_bad("range-bool.map", "[component \"a\"]\n\tlibrary = x\n[component \"a@<2\"]\n\tsubdir-paths = maybe\n",
		 PROV_EINPUT, "not a boolean");
	load_bad("range-long.map", "[component \"a\"]\n\tlibrary = x\n[component \"a@<1.2.3.4.5\"]\n\trepo = https://x/y\n",
		 PROV_EINPUT, "version range");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_split),
		cmocka_unit_test(test_rocm_decode),
		cmocka_unit_test(test_ref_names_version),
		cmocka_unit_test(test_mapping_version),
		cmocka_unit_test(test_version_ranges),
		cmocka_unit_test(test_expand_ref),
		cmocka_unit_test(test_url_scheme),
		cmocka_unit_test(test_load_good),
		cmocka_unit_test(test_load_hostile),
		cmocka_unit_test(test_load_sources_beyond_git),
		cmocka_unit_test(test_unknown_keys_warn),
		cmocka_unit_test(test_shipped_mappings_parse),
		cmocka_unit_test(test_include_variants),
		cmocka_unit_test(test_parse_odd_bytes),
	};
	int r;

	git_libgit2_init();
	if (!mkdtemp(tmpdir))
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	{
		char *cmd = prov_xasprintf("rm -rf '%s'", tmpdir);

		if (system(cmd) != 0)
			r = 1;
		free(cmd);
	}
	git_libgit2_shutdown();
	return r;
}
