#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <git2.h>

#include "config.h"
#include "context.h"
#include "error.h"
#include "sources.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

/*
 * A remote's refs without a mirror (prov_sources_ls_remote): a repository
 * the git CLI builds, asked over file:// (the same bounded child as over
 * the network, without one), and the answers kept in <mirror>.refs,
 * damaged and stale ones included. Expected commits come from git
 * rev-parse, never from provenance.
 */
static char tmpdir[] = "/tmp/prov-test-lsremote.XXXXXX";
static int have_git;

static char *rev_parse(const char *rev)
{
	return unit_first_line("git -C '%s/up' rev-parse '%s'", tmpdir, rev);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	have_git = unit_sh("command -v git >/dev/null") == 0;
	if (!have_git)
		return 0;
	return unit_sh("set -e; cd '%s'; git init -q -b main up; cd up; "
		  "git config user.email t@example.invalid; git config user.name t; "
		  "for i in 1 2 3 4; do echo $i > a.c; git add a.c; git commit -qm c$i; "
		  "[ $i = 1 ] && git tag light-1; [ $i = 2 ] && git tag -a v1.0 -m v1.0; "
		  "[ $i = 3 ] && git tag -a v1.1 -m v1.1 && git tag -a v1.1-again -m again v1.1; done; "
		  "git branch release/1.x HEAD~2",
		  tmpdir) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return unit_sh("rm -rf '%s'", tmpdir) == 0 ? 0 : -1;
}

static void expect(const struct prov_remote_ref *r, enum prov_ref_kind kind, const char *rev, int cached)
{
	char *want = rev ? rev_parse(rev) : NULL;

	assert_int_equal(r->kind, kind);
	if (want)
		assert_string_equal(r->commit, want);
	assert_int_equal(r->cached, cached);
	free(want);
}

static void test_file_remote(void **state)
{
	const char *wants[] = { "v1.0", "v1.1-again", "light-1", "release/1.x", "main", "HEAD", "nope",
				"v1.0~1", "abcdef12" };
	const size_t n = sizeof(wants) / sizeof(wants[0]);
	struct prov_remote_ref refs[9];
	struct prov_ctx ctx = { 0 };
	struct prov_sources_opts so = { &ctx };
	char *url, *cache, *mirror, *refsfile;

	(void)state;
	if (!have_git)
		skip();
	url = prov_xasprintf("file://%s/up", tmpdir);
	cache = prov_xasprintf("%s/c1", tmpdir);
	ctx.cache_dir = cache;
	assert_ok(prov_sources_ls_remote(refs, url, wants, n, &so));
	expect(&refs[0], PROV_REF_TAG, "v1.0^{commit}", 0);	/* annotated: peeled */
	expect(&refs[1], PROV_REF_TAG, "v1.1-again^{commit}", 0);	/* a tag of a tag: peeled through both */
	expect(&refs[2], PROV_REF_TAG, "light-1", 0);
	expect(&refs[3], PROV_REF_BRANCH, "refs/heads/release/1.x", 0);
	expect(&refs[4], PROV_REF_BRANCH, "refs/heads/main", 0);
	expect(&refs[5], PROV_REF_HEAD, "HEAD", 0);
	expect(&refs[6], PROV_REF_NONE, NULL, 0);
	expect(&refs[7], PROV_REF_UNKNOWN, NULL, 0);	/* an expression: the mirror's */
	expect(&refs[8], PROV_REF_UNKNOWN, NULL, 0);	/* could be a commit id */
	assert_false(prov_sources_have_mirror(url, &so));

	/* kept: the repository gone, the same answers from the cache */
	mirror = prov_sources_mirror_path(cache, url);
	refsfile = prov_xasprintf("%s.refs", mirror);
	assert_int_equal(access(refsfile, R_OK), 0);
	assert_int_equal(unit_sh("mv '%s/up' '%s/up.away'", tmpdir, tmpdir), 0);
	assert_ok(prov_sources_ls_remote(refs, url, wants, 1, &so));
	assert_int_equal(refs[0].kind, PROV_REF_TAG);
	assert_int_equal(refs[0].cached, 1);
	/* a missing ref, then a branch: both answered there (within 5 minutes) */
	{
		const char *w2[] = { "nope", "release/1.x", "never-asked" };

		assert_ok(prov_sources_ls_remote(refs, url, w2, 3, &so));
		assert_int_equal(refs[0].kind, PROV_REF_NONE);
		assert_int_equal(refs[0].cached, 1);
		assert_int_equal(refs[1].kind, PROV_REF_BRANCH);
		assert_int_equal(refs[2].kind, PROV_REF_UNASKED);
	}
	/* a ref never asked: the remote is asked, and it is gone */
	{
		const char *w3[] = { "v9" };

		assert_true(prov_sources_ls_remote(refs, url, w3, 1, &so) < 0);
	}
	assert_int_equal(unit_sh("mv '%s/up.away' '%s/up'", tmpdir, tmpdir), 0);
	free(mirror);
	free(refsfile);
	free(url);
	free(cache);
}

/* A kept file with damaged and stale lines; offline takes any age, online only fresh ones. */
static void test_kept_file(void **state)
{
	const char *url = "https://example.invalid/proj.git";
	const char *hex = "0123456789abcdef0123456789abcdef01234567";
	struct prov_remote_ref refs[3];
	struct prov_ctx ctx = { 0 };
	struct prov_sources_opts so = { &ctx };
	struct prov_config *cfg = prov_config_new();
	char *cache = prov_xasprintf("%s/c2", tmpdir), *mirror, *arg;
	long long now = (long long)time(NULL);
	FILE *f;

	(void)state;
	ctx.cache_dir = cache;
	ctx.config = cfg;
	/* the network is a file:// path that does not exist: asking it fails */
	arg = prov_xasprintf("url.file://%s/none/.insteadOf=https://example.invalid/", tmpdir);
	assert_ok(prov_config_add_arg(cfg, arg));
	free(arg);
	assert_int_equal(unit_sh("mkdir -p '%s/mirrors'", cache), 0);
	mirror = prov_sources_mirror_path(cache, url);
	arg = prov_xasprintf("%s.refs", mirror);
	f = fopen(arg, "w");
	assert_non_null(f);
	fprintf(f, "v1\ttag\tnot-hex\t%lld\n", now);	/* damaged: skipped */
	fprintf(f, "garbage line\n");
	fprintf(f, "v2\ttag\t%s\t%lld\n", hex, now - 86400);	/* a day old tag: fresh */
	fprintf(f, "dev\tbranch\t%s\t1\n", hex);	/* a branch from 1970: stale */
	fprintf(f, "v3\ttag\t%s\t%lld\n", hex, now + 86400);	/* from the future: stale */
	fprintf(f, "v4\tweird\t%s\t%lld", hex, now);	/* no newline: cut */
	fclose(f);

	{
		const char *w[] = { "v2" };

		assert_ok(prov_sources_ls_remote(refs, url, w, 1, &so));
		assert_int_equal(refs[0].kind, PROV_REF_TAG);
		assert_string_equal(refs[0].commit, hex);
		assert_int_equal(refs[0].cached, 1);
	}
	{
		const char *w[] = { "v1" };	/* its line is damaged: asked, and the remote fails */

		assert_true(prov_sources_ls_remote(refs, url, w, 1, &so) < 0);
	}
	{
		const char *w[] = { "dev" };	/* stale online: asked */

		assert_true(prov_sources_ls_remote(refs, url, w, 1, &so) < 0);
		ctx.offline = 1;	/* offline: any age, as a mirror is used as it is */
		assert_ok(prov_sources_ls_remote(refs, url, w, 1, &so));
		assert_int_equal(refs[0].kind, PROV_REF_BRANCH);
		assert_int_equal(refs[0].cached, 1);
	}
	{
		const char *w[] = { "v4" };

		/* offline, nothing kept, the URL on the disk after insteadOf: asked (the disk is not the network) */
		assert_true(prov_sources_ls_remote(refs, url, w, 1, &so) < 0);
		assert_int_not_equal(prov_sources_ls_remote(refs, url, w, 1, &so), PROV_ENOTFOUND);
		/* offline, nothing kept, a network URL: not found, nothing asked */
		ctx.config = NULL;
		assert_int_equal(prov_sources_ls_remote(refs, url, w, 1, &so), PROV_ENOTFOUND);
	}
	{
		const char *w[] = { "v1~1" };	/* an expression: the mirror's to answer, nothing asked */

		assert_ok(prov_sources_ls_remote(refs, url, w, 1, &so));
		assert_int_equal(refs[0].kind, PROV_REF_UNKNOWN);
	}
	assert_int_equal(prov_sources_ls_remote(refs, "/srv/git/proj", NULL, 0, &so), PROV_EINPUT);
	prov_config_free(cfg);
	free(arg);
	free(mirror);
	free(cache);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_remote),
		cmocka_unit_test(test_kept_file),
	};
	int r;

	git_libgit2_init();
	r = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return r;
}
