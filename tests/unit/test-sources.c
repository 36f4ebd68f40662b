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

#include "components.h"
#include "error.h"
#include "model.h"
#include "sources.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

/*
 * A repository built with the git CLI: expected answers come from git
 * itself (rev-parse, merge-base --is-ancestor), never from provenance.
 */
static char tmpdir[] = "/tmp/prov-test-sources.XXXXXX";
static int have_git;

static char *git_out(const char *args)
{
	return unit_first_line("git -C '%s/up' %s", tmpdir, args);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	have_git = unit_sh("command -v git >/dev/null") == 0;
	if (!have_git)
		return 0;
	return unit_sh("set -e; cd '%s'; git init -q up; cd up; "
		  "git config user.email t@example.invalid; git config user.name t; "
		  "for i in 1 2 3 4 5 6; do printf 'line1\\nline2 %%s\\nline3\\nline4\\nline5\\n' $i > a.c; "
		  "export GIT_COMMITTER_DATE=\"$((1700000000 + i * 1000)) +0000\" GIT_AUTHOR_DATE=\"$((1700000000 + i * 1000)) +0000\"; "
		  "git add a.c; git commit -qm c$i; "
		  "[ $i = 2 ] && git tag v1; [ $i = 4 ] && git tag -a v2 -m v2; done; "
		  "git checkout -q -b side HEAD~3; echo s > s.c; git add s.c; "
		  "GIT_COMMITTER_DATE='1700009000 +0000' git commit -qm side; git checkout -q -",
		  tmpdir) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return unit_sh("rm -rf '%s'", tmpdir) == 0 ? 0 : -1;
}

static struct prov_repo *open_up(void)
{
	struct prov_repo *r = NULL;
	char *path = prov_xasprintf("%s/up", tmpdir);

	assert_ok(prov_sources_open(&r, path, NULL, 0, 0, NULL));
	free(path);
	return r;
}

static void test_resolve(void **state)
{
	struct prov_repo *r;
	char *hex = NULL, *want;

	(void)state;
	if (!have_git)
		skip();
	r = open_up();
	want = git_out("rev-parse v2^{commit}");
	assert_ok(prov_repo_resolve(&hex, r, "v2"));	/* annotated: peeled */
	assert_string_equal(hex, want);
	free(hex);
	free(want);
	want = git_out("rev-parse side");
	assert_ok(prov_repo_resolve(&hex, r, "side"));
	assert_string_equal(hex, want);
	free(hex);
	want[8] = '\0';	/* abbreviated */
	assert_ok(prov_repo_resolve(&hex, r, want));
	assert_true(prov_starts_with(hex, want));
	free(hex);
	free(want);
	assert_int_equal(prov_repo_resolve(&hex, r, "nope"), PROV_ENOTFOUND);
	assert_non_null(strstr(prov_error_last(), "nope"));
	assert_int_equal(prov_repo_is_branch(r, "side"), 1);
	assert_int_equal(prov_repo_is_branch(r, "v1"), 0);
	prov_repo_free(r);
}

static void test_ancestry_and_tags(void **state)
{
	struct prov_repo *r;
	char *v1, *v2, *side, *head, *tag = NULL;
	int yes = -1;

	(void)state;
	if (!have_git)
		skip();
	r = open_up();
	v1 = git_out("rev-parse v1^{commit}");
	v2 = git_out("rev-parse v2^{commit}");
	side = git_out("rev-parse side");
	head = git_out("rev-parse HEAD");
	assert_ok(prov_repo_is_ancestor(&yes, r, v1, v2));
	assert_int_equal(yes, unit_sh("git -C '%s/up' merge-base --is-ancestor v1 v2", tmpdir) == 0);
	assert_ok(prov_repo_is_ancestor(&yes, r, v2, v1));
	assert_int_equal(yes, 0);
	assert_ok(prov_repo_is_ancestor(&yes, r, v1, v1));	/* equal counts */
	assert_int_equal(yes, 1);
	assert_ok(prov_repo_is_ancestor(&yes, r, side, head));
	assert_int_equal(yes, 0);
	assert_int_equal(prov_repo_is_ancestor(&yes, r, "zz", head), PROV_EINPUT);

	assert_ok(prov_repo_first_tag(&tag, r, v1));
	assert_string_equal(tag, "v1");
	free(tag);
	assert_ok(prov_repo_first_tag(&tag, r, head));
	assert_null(tag);	/* after the last tag */
	assert_ok(prov_repo_first_tag(&tag, r, side));
	assert_null(tag);	/* on a side branch */
	free(v1);
	free(v2);
	free(side);
	free(head);
	prov_repo_free(r);
}

static void test_read_lines(void **state)
{
	struct prov_repo *r;
	struct prov_source_line *lines = NULL;
	size_t n = 0;
	char *v2;

	(void)state;
	if (!have_git)
		skip();
	r = open_up();
	v2 = git_out("rev-parse v2^{commit}");
	assert_ok(prov_repo_read_lines(&lines, &n, r, v2, "a.c", 2, 1));
	assert_int_equal(n, 3);
	assert_int_equal(lines[0].number, 1);
	assert_string_equal(lines[1].text, "line2 4");
	assert_int_equal(lines[2].number, 3);
	prov_source_lines_free(lines, n);
	assert_ok(prov_repo_read_lines(&lines, &n, r, v2, "a.c", 5, 3));
	assert_int_equal(n, 4);	/* clamped at the end */
	assert_int_equal(lines[3].number, 5);
	prov_source_lines_free(lines, n);
	assert_int_equal(prov_repo_read_lines(&lines, &n, r, v2, "a.c", 6, 0), PROV_ENOTFOUND);
	assert_int_equal(prov_repo_read_lines(&lines, &n, r, v2, "s.c", 1, 0), PROV_ENOTFOUND);
	assert_int_equal(prov_repo_read_lines(&lines, &n, r, v2, "../a.c", 1, 0), PROV_ENOTFOUND);
	free(v2);
	prov_repo_free(r);
}

static void test_mirror_path(void **state)
{
	char *a = prov_sources_mirror_path("/c", "https://github.com/ROCm/rocm-systems.git");
	char *b = prov_sources_mirror_path("/c", "https://github.com/ROCm/rocm-systems");
	char *c = prov_sources_mirror_path("/c", "file:///../../etc/x");
	char *d = prov_sources_mirror_path("/c", "https://user:s3cret@github.com/a/b.git");

	(void)state;
	assert_true(prov_starts_with(a, "/c/mirrors/github.com-ROCm-rocm-systems-"));
	assert_true(prov_ends_with(a, ".git"));
	assert_string_not_equal(a, b);	/* one mirror per URL */
	assert_null(strstr(c + 3, "/.."));
	assert_int_equal(strchr(c + strlen("/c/mirrors/"), '/') == NULL, 1);
	free(a);
	free(b);
	assert_null(strstr(d, "s3cret"));
	assert_true(prov_starts_with(d, "/c/mirrors/github.com-a-b-"));
	free(c);
	free(d);
}

static void test_open_rejects(void **state)
{
	struct prov_repo *r = NULL;
	struct prov_ctx ctx = { .cache_dir = tmpdir, .offline = 1 };
	struct prov_sources_opts o = { &ctx };

	(void)state;
	assert_int_equal(prov_sources_open(&r, "/etc", NULL, 0, 0, &o), PROV_EINPUT);
	assert_int_equal(prov_sources_open(&r, "file:///etc", NULL, 0, 0, &o), PROV_EINPUT);
	assert_int_equal(prov_sources_open(&r, "ext::sh -c id", NULL, 0, 0, &o), PROV_EINPUT);
	assert_int_equal(prov_sources_open(&r, "https://example.invalid/x.git", NULL, 0, 0, &o),
			 PROV_ENOTFOUND);	/* offline, no mirror */
	assert_null(r);
}

static struct prov_crash *crash_with_frame(void)
{
	struct prov_crash *c = prov_crash_new(PROV_INPUT_TEXT, "bt.txt");
	struct prov_module *m = prov_crash_add_module(c);
	struct prov_thread *t = prov_crash_add_thread(c);
	struct prov_frame *f;

	m->path = prov_xstrdup("/usr/lib/libproj.so.1");
	t->crashed = 1;
	c->has_crashed_thread = 1;
	c->crashed_thread = 0;
	f = prov_thread_add_frame(t);
	f->index = 0;
	f->module = prov_xstrdup("/usr/lib/libproj.so.1");
	f->file = prov_xstrdup("/build/proj-AbC123/proj-1.0/a.c");
	f->line = 2;
	f = prov_thread_add_frame(t);
	f->index = 1;
	f->module = prov_xstrdup("/usr/bin/app");
	f->file = prov_xstrdup("/src/app/main.c");
	f->line = 9;
	return c;
}

static void test_components(void **state)
{
	struct prov_components_ctx ctx = { 0 };
	struct prov_ctx run = { 0 };
	struct prov_crash *c;
	const char *files[2] = { NULL, NULL };
	char *map, *want;
	int partial = 0;

	(void)state;
	if (!have_git)
		skip();
	setenv("XDG_CONFIG_HOME", tmpdir, 1);	/* no user mappings */
	map = prov_xasprintf("%s/proj.map", tmpdir);
	assert_int_equal(unit_sh("printf '[component \"proj\"]\\n\\tlibrary = libproj.so*\\n"
			    "\\trepo = %s/up\\n\\tref = v9\\n\\tref = v2\\n' > '%s'", tmpdir, map), 0);
	files[0] = map;
	ctx.mapping_files = files;
	run.cache_dir = tmpdir;
	ctx.ctx = &run;
	ctx.context = 1;
	c = crash_with_frame();
	assert_ok(prov_components_resolve(c, &partial, &ctx));
	assert_int_equal(c->ncomponents, 1);
	want = git_out("rev-parse v2^{commit}");
	assert_string_equal(c->components[0].commit, want);
	assert_string_equal(c->components[0].ref, "v2");	/* the first ref that exists */
	/* a tag the mapping names outright */
	assert_string_equal(c->components[0].found_by, "mapping:tag");
	assert_string_equal(c->components[0].commit_is, "exact");
	assert_string_equal(c->sources[0].commit_is, "exact");
	assert_string_equal(c->modules[0].component, "proj");
	assert_string_equal(c->threads[0].frames[0].component, "proj");
	assert_string_equal(c->threads[0].frames[0].repo_path, "a.c");
	assert_string_equal(c->threads[0].frames[0].path_rule, "debian-build");
	assert_null(c->threads[0].frames[1].component);
	assert_int_equal(c->nsources, 1);
	assert_int_equal(c->sources[0].nlines, 3);
	assert_string_equal(c->sources[0].lines[1].text, "line2 4");	/* a.c at v2 */
	assert_int_equal(partial, 0);
	free(want);
	prov_crash_free(c);

	/* a hostile mapping is an error, not a note */
	assert_int_equal(unit_sh("printf '[component \"proj\"]\\n\\tsubdir = ../..\\n' > '%s'", map), 0);
	c = crash_with_frame();
	assert_int_equal(prov_components_resolve(c, &partial, &ctx), PROV_EINPUT);
	prov_crash_free(c);

	/* a missing ref is a note and makes the result partial */
	assert_int_equal(unit_sh("printf '[component \"proj\"]\\n\\tlibrary = libproj.so*\\n"
			    "\\trepo = %s/up\\n\\tref = nope-{version}\\n' > '%s'", tmpdir, map), 0);
	c = crash_with_frame();
	partial = 0;
	assert_ok(prov_components_resolve(c, &partial, &ctx));
	assert_int_equal(partial, 1);
	assert_null(c->components[0].commit);
	assert_non_null(c->components[0].note);
	assert_int_equal(c->nsources, 0);
	prov_crash_free(c);
	free(map);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_ancestry_and_tags),
		cmocka_unit_test(test_read_lines),
		cmocka_unit_test(test_mirror_path),
		cmocka_unit_test(test_open_rejects),
		cmocka_unit_test(test_components),
	};
	int r;

	git_libgit2_init();
	r = cmocka_run_group_tests(tests, setup, teardown);
	git_libgit2_shutdown();
	return r;
}
