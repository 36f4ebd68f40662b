/* test: slow (run-tests.sh starts it among the first) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "config.h"
#include "error.h"
#include "srcimport.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

/*
 * Archive and Debian imports from file:// URLs. Expected trees come from
 * git itself (git write-tree of the same files) and patched sources from
 * GNU patch -pN, never from provenance.
 */
static char tmpdir[] = "/tmp/prov-test-srcimport.XXXXXX";

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	return unit_sh("git --version >/dev/null 2>&1 && tar --version >/dev/null 2>&1") ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	unit_sh("rm -rf '%s'", tmpdir);
	return 0;
}

static void test_pool_dir(void **state)
{
	char *p = NULL;

	(void)state;
	assert_ok(prov_srcimport_pool_dir(&p, "libfoo", "main"));
	assert_string_equal(p, "pool/main/libf/libfoo");
	free(p);
	assert_ok(prov_srcimport_pool_dir(&p, "glibc", "main"));
	assert_string_equal(p, "pool/main/g/glibc");
	free(p);
	assert_ok(prov_srcimport_pool_dir(&p, "lib", "contrib"));
	assert_string_equal(p, "pool/contrib/l/lib");
	free(p);
	assert_ok(prov_srcimport_pool_dir(&p, "libstdc++-12", "main"));
	assert_string_equal(p, "pool/main/libs/libstdc++-12");
	free(p);
	p = NULL;
	assert_int_equal(prov_srcimport_pool_dir(&p, "../x", "main"), PROV_EINPUT);
	assert_int_equal(prov_srcimport_pool_dir(&p, "Foo", "main"), PROV_EINPUT);
	assert_int_equal(prov_srcimport_pool_dir(&p, "a/b", "main"), PROV_EINPUT);
	assert_int_equal(prov_srcimport_pool_dir(&p, "x", "main"), PROV_EINPUT);
	assert_null(p);
}

static void test_quilt_to_git(void **state)
{
	struct prov_buf out = PROV_BUF_INIT;
	const char *p0 =
		"Description: a DEP-3 header\n"
		"Index: src/a.c\n"
		"===================================================================\n"
		"--- src/a.c.orig\t2024-01-01 10:00:00.000000000 +0000\n"
		"+++ src/a.c\t2024-01-01 10:00:01.000000000 +0000\n"
		"@@ -1,2 +1,3 @@\n"
		" one\n"
		"+one and a half\n"
		"\n"	/* a context line whose blank was trimmed */
		"--- /dev/null\n"
		"+++ new.txt\n"
		"@@ -0,0 +1 @@\n"
		"+new\n"
		"\\ No newline at end of file\n";
	const char *p1_delete =
		"--- a/old.txt\n"
		"+++ b/old.txt\n"
		"@@ -1 +0,0 @@\n"
		"-gone\n";
	const char *git_diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";

	(void)state;
	assert_ok(prov_srcimport_quilt_to_git(&out, p0, strlen(p0), 0, "p0.patch"));
	assert_string_equal(out.buf,
			    "diff --git a/src/a.c b/src/a.c\n--- a/src/a.c\n+++ b/src/a.c\n"
			    "@@ -1,2 +1,3 @@\n one\n+one and a half\n \n"
			    "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n"
			    "@@ -0,0 +1 @@\n+new\n\\ No newline at end of file\n");
	assert_ok(prov_srcimport_quilt_to_git(&out, p1_delete, strlen(p1_delete), 1, "d.patch"));
	assert_non_null(strstr(out.buf, "deleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n"));
	/* git diffs pass through with -p1, are refused with another -p */
	assert_ok(prov_srcimport_quilt_to_git(&out, git_diff, strlen(git_diff), 1, "g.patch"));
	assert_string_equal(out.buf, git_diff);
	assert_int_equal(prov_srcimport_quilt_to_git(&out, git_diff, strlen(git_diff), 2, "g.patch"), PROV_EINPUT);
	/* a hand-edited git patch: its first file has ---/+++ only (Debian shadow's
	 * 502_debian_useradd_defaults); libgit2 refuses that part as is */
	{
		const char *mixed = "Description: keep the defaults\n\n--- a/src/u.c\n+++ b/src/u.c\n@@ -1,2 +1,2 @@\n"
				    " one\n-two\n+2\ndiff --git a/m.xml b/m.xml\nindex af02a23f..c7f95b47 100644\n"
				    "--- a/m.xml\n+++ b/m.xml\n@@ -1 +1 @@\n-a\n+b\n";

		assert_ok(prov_srcimport_quilt_to_git(&out, mixed, strlen(mixed), 1, "m.patch"));
		assert_string_equal(out.buf, "diff --git a/src/u.c b/src/u.c\n--- a/src/u.c\n+++ b/src/u.c\n"
					     "@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
					     "diff --git a/m.xml b/m.xml\nindex af02a23f..c7f95b47 100644\n"
					     "--- a/m.xml\n+++ b/m.xml\n@@ -1 +1 @@\n-a\n+b\n");
		assert_int_equal(prov_srcimport_quilt_to_git(&out, mixed, strlen(mixed), 0, "m.patch"), PROV_EINPUT);
	}
	/* paths that cannot be used */
	assert_int_equal(prov_srcimport_quilt_to_git(&out, p1_delete, strlen(p1_delete), 3, "d.patch"), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "d.patch"));
	{
		const char *up = "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n";
		const char *abs = "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n";
		const char *shorthunk = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+b\n";
		const char *badhunk = "--- a/x\n+++ b/x\n@@ -1,x +1 @@\n-a\n+b\n";
		assert_int_equal(prov_srcimport_quilt_to_git(&out, up, strlen(up), 1, "u"), PROV_EINPUT);
		assert_int_equal(prov_srcimport_quilt_to_git(&out, abs, strlen(abs), 0, "a"), PROV_EINPUT);
		assert_int_equal(prov_srcimport_quilt_to_git(&out, shorthunk, strlen(shorthunk), 1, "s"), PROV_EINPUT);
		assert_int_equal(prov_srcimport_quilt_to_git(&out, badhunk, strlen(badhunk), 1, "b"), PROV_EINPUT);
	}
	prov_buf_release(&out);
}

/* Import a tar of n entries in one directory (names of 200 bytes); the
 * child names the tree builder compared (a work count, not a time). */
static uint64_t import_flat(size_t n, const struct prov_srcimport_opts *o)
{
	char *repo = NULL, *commit = NULL, *url, *got;

	assert_int_equal(unit_sh("python3 -c 'import tarfile,io,sys\n"
			    "t = tarfile.open(sys.argv[1], \"w\")\n"
			    "for i in range(int(sys.argv[2])):\n"
			    "    ti = tarfile.TarInfo(\"flat/\" + \"f\" * 190 + \"%%09d\" %% i); ti.size = 2\n"
			    "    t.addfile(ti, io.BytesIO(b\"x\\n\"))\n"
			    "t.close()' '%s/flat%zu.tar' %zu", tmpdir, n, n), 0);
	url = prov_xasprintf("file://%s/flat%zu.tar", tmpdir, n);
	assert_ok(prov_srcimport_archive(&repo, &commit, url, o));
	assert_int_equal(o->stats->cached, 0);
	assert_int_equal(o->stats->entries, n);
	/* ground truth: git itself counts the entries of the imported tree */
	got = unit_first_line("git --git-dir='%s' ls-tree '%s' | wc -l", repo, commit);
	assert_int_equal(strtoul(got, NULL, 10), n);
	free(got);
	free(repo);
	free(commit);
	free(url);
	return o->stats->name_compares;
}

/* A tar of many entries in one directory: linear, not quadratic (issue 17 item 9). */
static void test_archive_flat_scaling(void **state)
{
	struct prov_config *cfg = prov_config_new();
	struct prov_srcimport_stats stats;
	struct prov_ctx ctx = { .config = cfg };
	struct prov_srcimport_opts o = { &ctx, &stats };
	char *cache = prov_xasprintf("%s/cache-flat", tmpdir);
	uint64_t c1, c2;

	(void)state;
	prov_config_set(cfg, "sources.localDirs", tmpdir);
	ctx.cache_dir = cache;
	c1 = import_flat(1200, &o);
	c2 = import_flat(12000, &o);
	print_message("flat tar import: names compared: 1200 entries %llu, 12000 %llu\n",
		      (unsigned long long)c1, (unsigned long long)c2);
	/*
	 * A few compares an entry, whatever the directory's size: ten times
	 * the entries, about ten times the compares (a linear search per
	 * entry, as before the index, was 600 an entry at 1200, 6000 at 12000).
	 */
	assert_true(c1 >= 1200);	/* counted: each entry looks up its directory */
	assert_true(c1 <= 4 * 1200);
	assert_true(c2 <= 4 * 12000);
	assert_true(c2 <= 15 * c1);
	free(cache);
	prov_config_free(cfg);
}

static void test_archive_vs_git(void **state)
{
	struct prov_config *cfg = prov_config_new();
	struct prov_srcimport_stats stats;
	struct prov_ctx ctx = { .config = cfg };
	struct prov_srcimport_opts o = { &ctx, &stats };

	prov_config_set(cfg, "sources.localDirs", tmpdir);	/* file:// only below it */
	char *cache = prov_xasprintf("%s/cache", tmpdir), *url, *want, *got;
	char *repo = NULL, *commit = NULL, *repo2 = NULL, *commit2 = NULL;
	static const char *const kinds[] = { "tar.gz", "tar.xz", "zip", NULL };
	int i;

	(void)state;
	ctx.cache_dir = cache;
	assert_int_equal(unit_sh("set -e; d='%s/src/proj-2.1'; mkdir -p \"$d/lib/deep/er\" \"$d/empty\";"
			    "printf 'int main(void)\\n{\\n\\treturn 0;\\n}\\n' > \"$d/main.c\";"
			    "printf '#!/bin/sh\\necho hi\\n' > \"$d/run.sh\"; chmod +x \"$d/run.sh\";"
			    "printf 'x' > \"$d/lib/deep/er/f.h\"; ln -s ../main.c \"$d/lib/link.c\";"
			    "cd '%s/src' && tar czf ../proj.tar.gz proj-2.1 && tar cJf ../proj.tar.xz proj-2.1;"
			    "zip -qry ../proj.zip proj-2.1 2>/dev/null || true;"
			    "cd proj-2.1 && git init -q && git add -A && git write-tree > ../../want-tree",
			    tmpdir, tmpdir), 0);
	want = unit_first_line("cat '%s/want-tree'", tmpdir);
	for (i = 0; kinds[i]; i++) {
		char *file = prov_xasprintf("%s/proj.%s", tmpdir, kinds[i]);
		if (access(file, F_OK) != 0) {	/* no zip(1) here */
			free(file);
			continue;
		}
		url = prov_xasprintf("file://%s", file);
		assert_ok(prov_srcimport_archive(&repo, &commit, url, &o));
		assert_int_equal(stats.cached, 0);
		got = unit_first_line("git --git-dir='%s' rev-parse '%s^{tree}'", repo, commit);
		assert_string_equal(got, want);	/* top directory stripped, modes, symlink */
		free(got);
		got = unit_first_line("git --git-dir='%s' rev-parse refs/imports/archive", repo);
		assert_string_equal(got, commit);
		free(got);
		/* again: reused from the cache, even with the file gone */
		unlink(file);
		assert_ok(prov_srcimport_archive(&repo2, &commit2, url, &o));
		assert_int_equal(stats.cached, 1);
		assert_string_equal(repo, repo2);
		assert_string_equal(commit, commit2);
		free(repo);
		free(commit);
		free(repo2);
		free(commit2);
		repo = commit = repo2 = commit2 = NULL;
		free(url);
		free(file);
	}
	/* missing file, not an archive */
	url = prov_xasprintf("file://%s/none.tar.gz", tmpdir);
	assert_int_equal(prov_srcimport_archive(&repo, &commit, url, &o), PROV_ENOTFOUND);
	free(url);
	assert_int_equal(unit_sh("echo 'just text' > '%s/text.tar.gz'", tmpdir), 0);
	url = prov_xasprintf("file://%s/text.tar.gz", tmpdir);
	assert_int_equal(prov_srcimport_archive(&repo, &commit, url, &o), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), url));
	free(url);
	assert_int_equal(prov_srcimport_archive(&repo, &commit, "gopher://x/y.tar.gz", &o), PROV_EINPUT);
	assert_null(repo);
	assert_null(commit);
	free(want);
	free(cache);
	prov_config_free(cfg);
}

/* A 3.0 (quilt) package written by hand: -p0 and -p2 patches, comments in the series. */
static void test_debian_pN_vs_gnu_patch(void **state)
{
	struct prov_config *cfg = prov_config_new();
	struct prov_srcimport_stats stats;
	struct prov_ctx ctx = { .config = cfg };
	struct prov_srcimport_opts o = { &ctx, &stats };

	prov_config_set(cfg, "sources.localDirs", tmpdir);	/* file:// only below it */
	char *cache = prov_xasprintf("%s/cache-deb", tmpdir), *base, *want, *got;
	char *repo = NULL, *commit = NULL;
	int n = -1;

	(void)state;
	ctx.cache_dir = cache;
	assert_int_equal(unit_sh("set -e; cd '%s'; mkdir -p deb/bar-3.2/src deb/d/debian/patches deb/d/debian/source;"
			    "cd deb; printf 'a\\nb\\nc\\nd\\n' > bar-3.2/src/x.c; printf 'keep\\n' > bar-3.2/README;"
			    "tar czf bar_3.2.orig.tar.gz bar-3.2;"
			    "printf '3.0 (quilt)\\n' > d/debian/source/format;"
			    "printf -- '--- src/x.c\\n+++ src/x.c\\n@@ -1,2 +1,3 @@\\n a\\n+a2\\n b\\n' > d/debian/patches/zero.patch;"
			    "printf 'Subject: two\\n\\n--- w/q/src/x.c\\n+++ w/q/src/x.c\\n@@ -3,2 +3,3 @@\\n c\\n d\\n+e\\n' > d/debian/patches/two.patch;"
			    "printf '# p0 first\\nzero.patch -p0\\n\\n  two.patch   -p2 # trailing comment\\n' > d/debian/patches/series;"
			    "tar -C d -cJf bar_3.2-1.debian.tar.xz debian;"
			    "{ printf 'Format: 3.0 (quilt)\\nSource: bar\\nBinary: bar\\nVersion: 1:3.2-1\\nChecksums-Sha256:\\n';"
			    "  for f in bar_3.2.orig.tar.gz bar_3.2-1.debian.tar.xz; do"
			    "    printf ' %%s %%s %%s\\n' $(sha256sum $f | cut -d' ' -f1) $(stat -c %%s $f) $f; done; } > bar_3.2-1.dsc;"
			    /* ground truth: GNU patch on a copy with debian/ */
			    "cp -r bar-3.2 gt; cp -r d/debian gt/; cd gt; patch -s --no-backup-if-mismatch -p0 < debian/patches/zero.patch;"
			    "patch -s --no-backup-if-mismatch -p2 < debian/patches/two.patch; git init -q; git add -A; git write-tree > ../want-tree",
			    tmpdir), 0);
	want = unit_first_line("cat '%s/deb/want-tree'", tmpdir);
	base = prov_xasprintf("file://%s/deb", tmpdir);
	/* the .dsc is flat (no pool/): found after the pool paths miss; the epoch is not in the name */
	if (prov_srcimport_debian(&repo, &commit, &n, base, "bar", "1:3.2-1", &o) != 0)
		fail_msg("import failed: %s", prov_error_last());
	assert_int_equal(n, 2);
	got = unit_first_line("git --git-dir='%s' rev-parse '%s^{tree}'", repo, commit);
	assert_string_equal(got, want);
	free(got);
	got = unit_first_line("git --git-dir='%s' rev-parse 'refs/imports/bar/1%%3A3.2-1'", repo);
	assert_string_equal(got, commit);
	free(got);
	free(repo);
	free(commit);
	repo = commit = NULL;

	/* the same again: cached, patch count kept */
	n = -1;
	assert_ok(prov_srcimport_debian(&repo, &commit, &n, base, "bar", "1:3.2-1", &o));
	assert_int_equal(stats.cached, 1);
	assert_int_equal(n, 2);
	free(repo);
	free(commit);
	repo = commit = NULL;

	/* the .dsc names another version */
	assert_int_equal(unit_sh("cd '%s/deb' && sed 's/^Version: .*/Version: 9.9-1/' bar_3.2-1.dsc > bar_3.3-1.dsc", tmpdir), 0);
	assert_int_equal(prov_srcimport_debian(&repo, &commit, &n, base, "bar", "3.3-1", &o), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "not bar 3.3-1"));
	/* a patch that does not apply */
	assert_int_equal(unit_sh("set -e; cd '%s/deb'; printf -- '--- a/src/x.c\\n+++ b/src/x.c\\n@@ -1 +1 @@\\n-zzz\\n+y\\n' > d/debian/patches/bad.patch;"
			    "printf 'bad.patch\\n' > d/debian/patches/series; tar -C d -cJf bar_3.4-1.debian.tar.xz debian;"
			    "{ printf 'Format: 3.0 (quilt)\\nSource: bar\\nVersion: 3.4-1\\nChecksums-Sha256:\\n';"
			    "  for f in bar_3.2.orig.tar.gz bar_3.4-1.debian.tar.xz; do"
			    "    printf ' %%s %%s %%s\\n' $(sha256sum $f | cut -d' ' -f1) $(stat -c %%s $f) $f; done; } > bar_3.4-1.dsc",
			    tmpdir), 0);
	assert_int_equal(prov_srcimport_debian(&repo, &commit, &n, base, "bar", "3.4-1", &o), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "patch 'debian/patches/bad.patch' does not apply"));
	got = unit_first_line("git --git-dir='%s/imports/debian-bar.git' for-each-ref refs/imports/bar/3.4-1 | wc -l", cache);
	assert_string_equal(got, "0");	/* nothing recorded */
	free(got);
	/* a series naming one patch twice (quilt applies a patch once; issue 17 item 8) */
	assert_int_equal(unit_sh("set -e; cd '%s/deb';"
			    "printf 'zero.patch -p0\nzero.patch -p0\n' > d/debian/patches/series; tar -C d -cJf bar_3.5-1.debian.tar.xz debian;"
			    "{ printf 'Format: 3.0 (quilt)\nSource: bar\nVersion: 3.5-1\nChecksums-Sha256:\n';"
			    "  for f in bar_3.2.orig.tar.gz bar_3.5-1.debian.tar.xz; do"
			    "    printf ' %%s %%s %%s\n' $(sha256sum $f | cut -d' ' -f1) $(stat -c %%s $f) $f; done; } > bar_3.5-1.dsc",
			    tmpdir), 0);
	assert_int_equal(prov_srcimport_debian(&repo, &commit, &n, base, "bar", "3.5-1", &o), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "lists 'zero.patch' twice"));
	/* bad names and versions */
	assert_int_equal(prov_srcimport_debian(&repo, &commit, &n, base, "bar/../x", "1", &o), PROV_EINPUT);
	assert_int_equal(prov_srcimport_debian(&repo, &commit, &n, base, "bar", "1 2", &o), PROV_EINPUT);
	assert_null(repo);
	free(want);
	free(base);
	free(cache);
	prov_config_free(cfg);
}

/*
 * Import a package whose series makes `npatches` distinct patches to one
 * file of `nlines` lines (tests/unit/mkseries.py), each hunk `off` lines
 * from where it claims to be. *rc = the import's result; the work counts
 * are in o->stats.
 */
static void import_series(int *rc, int nlines, int npatches, int off,
			  const struct prov_srcimport_opts *o)
{
	const char *top = getenv("TOP");
	char *repo = NULL, *commit = NULL, *base, *ver, *debver;
	int n = -1;

	ver = prov_xasprintf("%d.%d.%d", nlines, npatches, off);
	assert_int_equal(unit_sh("python3 '%s/tests/unit/mkseries.py' '%s/ser' big '%s' %d %d %d",
			    top ? top : ".", tmpdir, ver, nlines, npatches, off), 0);
	base = prov_xasprintf("file://%s/ser", tmpdir);
	debver = prov_xasprintf("%s-1", ver);
	*rc = prov_srcimport_debian(&repo, &commit, &n, base, "big", debver, o);
	assert_int_equal(o->stats->cached, 0);
	if (*rc < 0)
		print_message("%d patches: %s\n", npatches, prov_error_last());
	if (*rc == 0) {
		char *got;

		/* ground truth: git shows every patched line in the imported tree */
		assert_int_equal(n, npatches);
		got = unit_first_line("git --git-dir='%s' show '%s:big.c' | grep -c '^LINE '", repo, commit);
		assert_int_equal(strtoul(got, NULL, 10), (unsigned long)npatches);
		free(got);
	}
	free(repo);
	free(commit);
	free(base);
	free(ver);
	free(debver);
}

/*
 * Many distinct patches on one big file (issue 17 item 8): relocating hunks
 * far from where they claim to be, and applying each patch to the whole
 * file, are bounded for the whole series; the work does not grow with the
 * number of patches past the bound.
 */
static void test_debian_series_scaling(void **state)
{
	struct prov_config *cfg = prov_config_new();
	struct prov_srcimport_stats stats;
	struct prov_ctx ctx = { .config = cfg };
	struct prov_srcimport_opts o = { &ctx, &stats };
	char *cache = prov_xasprintf("%s/cache-series", tmpdir);
	uint64_t far100, far300;
	int rc;

	(void)state;
	prov_config_set(cfg, "sources.localDirs", tmpdir);
	ctx.cache_dir = cache;
	/* within the bounds: every patch applied (checked with git) */
	import_series(&rc, 300000, 10, 0, &o);
	assert_ok(rc);
	assert_int_equal(stats.patches_applied, 10);
	/* 1000 one-line patches in place to a 300k-line (600 KB) file: libgit2
	 * would rewrite 600 MB; refused before any is applied */
	import_series(&rc, 300000, 1000, 0, &o);
	assert_int_equal(rc, PROV_ELIMIT);
	assert_non_null(strstr(prov_error_last(), "the patches rewrite more than 268435456 bytes"));
	assert_int_equal(stats.patches_applied, 0);
	/* far off: each hunk claims line 1, its line is near the end; 100 vs 300
	 * patches: one budget of line compares for the whole series, spent by both */
	import_series(&rc, 300000, 100, 299000, &o);
	assert_int_equal(rc, PROV_ELIMIT);
	assert_non_null(strstr(prov_error_last(), "took more than 50000000 line compares"));
	far100 = stats.line_compares;
	assert_true(stats.patches_applied < 100);
	import_series(&rc, 300000, 300, 299000, &o);
	assert_int_equal(rc, PROV_ELIMIT);
	assert_non_null(strstr(prov_error_last(), "took more than 50000000 line compares"));
	far300 = stats.line_compares;
	assert_true(stats.patches_applied < 300);
	print_message("series: line compares before refusing: 100 far-off patches %llu, 300 %llu\n",
		      (unsigned long long)far100, (unsigned long long)far300);
	assert_true(far100 <= 50000001);
	assert_true(far300 <= 50000001);
	free(cache);
	prov_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_dir),
		cmocka_unit_test(test_quilt_to_git),
		cmocka_unit_test(test_archive_vs_git),
		cmocka_unit_test(test_archive_flat_scaling),
		cmocka_unit_test(test_debian_pN_vs_gnu_patch),
		cmocka_unit_test(test_debian_series_scaling),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
