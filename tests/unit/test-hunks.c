/* test: slow (run-tests.sh starts it among the first) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dep3.h"
#include "hunks.h"
#include "renames.h"
#include "banned.h"

/* One hunk of `diff` against `file`: its state. */
static enum prov_hunk_state state_of(const char *diff, const char *file, size_t k)
{
	struct prov_hunks h;
	struct prov_hunk_file f;
	enum prov_hunk_state st;

	prov_hunks_parse(&h, diff, strlen(diff), 1);
	assert_true(k < h.n);
	prov_hunk_file_init(&f, file, strlen(file));
	st = prov_hunk_match(&h.v[k], &f);
	prov_hunk_file_release(&f);
	prov_hunks_release(&h);
	return st;
}

static const char fix[] =
	"diff --git a/src/a.c b/src/a.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/src/a.c\n"
	"+++ b/src/a.c\n"
	"@@ -3,7 +3,7 @@ int net_read(int fd, char *buf, int len)\n"
	" \tint r;\n"
	" \n"
	" \t/* read once */\n"
	"-\tr = do_read(fd, buf, len); if (r < 0) return r;\n"
	"+\tr = do_read(fd, buf, len); if (r <= 0) return -1;\n"
	" \tbuf[r] = 0;\n"
	" \treturn r;\n"
	" }\n";

static void test_parse(void **state)
{
	struct prov_hunks h;

	(void)state;
	prov_hunks_parse(&h, fix, strlen(fix), 1);
	assert_int_equal(h.n, 1);
	assert_string_equal(h.v[0].path, "src/a.c");
	assert_string_equal(h.v[0].header, "@@ -3,7 +3,7 @@");
	assert_string_equal(h.v[0].function, "int net_read(int fd, char *buf, int len)");
	assert_int_equal(h.v[0].n, 8);
	assert_int_equal(h.v[0].old_start, 3);
	prov_hunks_release(&h);
	/* a cut hunk, a header with no numbers, binary, nothing */
	prov_hunks_parse(&h, "--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n-a\n", 33, 1);
	assert_int_equal(h.n, 1);
	assert_int_equal(h.v[0].n, 1);
	prov_hunks_release(&h);
	prov_hunks_parse(&h, "--- a/x\n+++ b/x\n@@ -a +b @@\n-a\n", 30, 1);
	assert_int_equal(h.n, 0);
	prov_hunks_release(&h);
	prov_hunks_parse(&h, "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-\0a\n+b\n", 31, 1);
	assert_int_equal(h.n, 1);
	prov_hunks_release(&h);
	prov_hunks_parse(&h, "", 0, 1);
	assert_int_equal(h.n, 0);
	prov_hunks_release(&h);
}

static void test_states(void **state)
{
	(void)state;
	/* exact: the post-image is there (other whitespace) */
	assert_int_equal(state_of(fix, "int net_read(int fd, char *buf, int len)\n{\n  int r;\n\n  /* read once */\n"
				       "  r = do_read(fd, buf, len); if (r <= 0) return -1;\n  buf[r] = 0;\n  return r;\n}\n", 0),
			 PROV_HUNK_PRESENT_EXACT);
	/* drifted context, same changed lines: present by changed lines */
	assert_int_equal(state_of(fix, "int net_read(int fd, char *buf, int len)\n{\n\tint r = 0;\n\n\t/* once, no retry */\n"
				       "\tr = do_read(fd, buf, len); if (r <= 0) return -1;\n\tbuf[r] = '\\0';\n\treturn r;\n}\n", 0),
			 PROV_HUNK_PRESENT_CHANGED);
	/* the pre-image: absent; the same with drifted context (changed lines still there): absent */
	assert_int_equal(state_of(fix, "\tint r;\n\n\t/* read once */\n\tr = do_read(fd, buf, len); if (r < 0) return r;\n"
				       "\tbuf[r] = 0;\n\treturn r;\n}\n", 0),
			 PROV_HUNK_ABSENT);
	assert_int_equal(state_of(fix, "\tint r = 0;\n\n\t/* other */\n\tr = do_read(fd, buf, len); if (r < 0) return r;\n"
				       "\tbuf[r] = '\\0';\n\treturn r;\n}\n", 0),
			 PROV_HUNK_ABSENT);
	/* another variable name on the changed line: present by changed lines */
	assert_int_equal(state_of(fix, "\tint n;\n\n\t/* read */\n\tn = do_read(fd, buf, len); if (n <= 0) return -1;\n"
				       "\tbuf[n] = 0;\n\treturn n;\n}\n", 0),
			 PROV_HUNK_PRESENT_CHANGED);
	/* rewritten: neither */
	assert_int_equal(state_of(fix, "ssize_t got = recv(fd, buf, len, 0);\nif (got == -1) goto fail;\n", 0),
			 PROV_HUNK_UNKNOWN);
	/* no file: a new file's hunk is absent, another unknown */
	{
		struct prov_hunks h;

		prov_hunks_parse(&h, "--- /dev/null\n+++ b/n.c\n@@ -0,0 +1,2 @@\n+int newfunc(void);\n+int other(void);\n",
				 73, 1);
		assert_int_equal(h.n, 1);
		assert_true(h.v[0].new_file);
		assert_int_equal(prov_hunk_match(&h.v[0], NULL), PROV_HUNK_ABSENT);
		prov_hunks_release(&h);
	}
	{
		struct prov_hunks h;

		prov_hunks_parse(&h, fix, strlen(fix), 1);
		assert_int_equal(prov_hunk_match(&h.v[0], NULL), PROV_HUNK_UNKNOWN);
		prov_hunks_release(&h);
	}
}

static void test_test_paths(void **state)
{
	(void)state;
	assert_true(prov_hunk_is_test_path("tests/test_net.c"));
	assert_true(prov_hunk_is_test_path("lib/test/x.c"));
	assert_true(prov_hunk_is_test_path("src/net_test.go"));
	assert_true(prov_hunk_is_test_path("test_parse.py"));
	assert_true(prov_hunk_is_test_path("testsuite/a.exp"));
	assert_false(prov_hunk_is_test_path("src/net.c"));
	assert_false(prov_hunk_is_test_path("src/attest.c"));
	assert_false(prov_hunk_is_test_path("contest/a.c"));
}

static void test_doc_and_comments(void **state)
{
	static const char comments[] =
		"--- a/x.c\n+++ b/x.c\n@@ -1,6 +1,2 @@ f\n int a;\n-/* TODO: this\n- * and that\n- */\n-// more\n int b;\n";
	static const char code[] =
		"--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@ f\n int a;\n-*p = 0; /* reset */\n+*p = 1;\n int b;\n";
	struct prov_hunks h;

	(void)state;
	prov_hunks_parse(&h, comments, strlen(comments), 1);
	assert_int_equal(h.n, 1);
	assert_int_equal(prov_hunk_comments_only(&h.v[0]), 1);
	prov_hunks_release(&h);
	prov_hunks_parse(&h, code, strlen(code), 1);
	assert_int_equal(h.n, 1);
	assert_int_equal(prov_hunk_comments_only(&h.v[0]), 0);	/* "*p = 0;" is code */
	prov_hunks_release(&h);
	assert_true(prov_hunk_is_doc_path("NEWS"));
	assert_true(prov_hunk_is_doc_path("ChangeLog"));
	assert_true(prov_hunk_is_doc_path("docs/cmdline-opts/x.d"));
	assert_true(prov_hunk_is_doc_path("README.md"));
	assert_true(prov_hunk_is_doc_path("doc/libfoo.3"));
	assert_false(prov_hunk_is_doc_path("CMakeLists.txt"));
	assert_false(prov_hunk_is_doc_path("src/news.c"));
	assert_false(prov_hunk_is_doc_path("lib/NEWSFEED.c"));
}

/* Absent by the code around it: an addition whose + lines the pre-image already has, its context drifted. */
static void test_absent_by_context(void **state)
{
	static const char diff[] =
		"--- a/b.c\n+++ b/b.c\n@@ -5,6 +5,9 @@ void reset(struct b *b)\n"
		" \tfree(b->data);\n \tfree(b->spare);\n \n+\tb->data = NULL;\n+\tb->spare = NULL;\n+\n"
		" \tif (b->size > 0) {\n \t\tb->data = calloc(1, b->size);\n \t\tif (b->data == NULL)\n";
	static const char release[] =
		"void reset(struct b *b)\n{\n\tfree(b->data);\n\tfree(b->spare);\n\n\tif (b->size > 0) {\n"
		"\t\tb->data = calloc(1, b->size);\n\t} else {\n\t\tb->data = NULL;\n\t\tb->spare = NULL;\n\t}\n}\n";
	static const char fixed[] =
		"void reset(struct b *b)\n{\n\tfree(b->data);\n\tfree(b->spare);\n\n\tb->data = NULL;\n\tb->spare = NULL;\n\n"
		"\tif (b->size > 0) {\n\t\tb->data = calloc(1, b->size);\n\t}\n}\n";
	static const char pre[] =
		"void reset(struct b *b)\n{\n\tfree(b->data);\n\tfree(b->spare);\n\n\tif (b->size > 0) {\n"
		"\t\tb->data = calloc(1, b->size);\n\t\tif (b->data == NULL)\n\t\t\treturn;\n\t} else {\n"
		"\t\tb->data = NULL;\n\t\tb->spare = NULL;\n\t}\n}\n";
	struct prov_hunks h;
	struct prov_hunk_file f, p;
	unsigned how = 0;

	(void)state;
	prov_hunks_parse(&h, diff, strlen(diff), 1);
	assert_int_equal(h.n, 1);
	prov_hunk_file_init(&p, pre, strlen(pre));
	prov_hunk_file_init(&f, release, strlen(release));
	assert_int_equal(prov_hunk_match_fix_ex(&h.v[0], &f, &p, NULL, &how), PROV_HUNK_ABSENT);
	assert_int_equal(how, PROV_HUNK_BY_CODE_AROUND);
	prov_hunk_file_release(&f);
	/* the fix made: not absent */
	prov_hunk_file_init(&f, fixed, strlen(fixed));
	assert_int_not_equal(prov_hunk_match_fix_ex(&h.v[0], &f, &p, NULL, &how), PROV_HUNK_ABSENT);
	prov_hunk_file_release(&f);
	prov_hunk_file_release(&p);
	prov_hunks_release(&h);
}

static void test_carries(void **state)
{
	static const char patch[] =
		"Description: backport\n"
		"--- a/src/a.c\n+++ b/src/a.c\n"
		"@@ -10,7 +10,7 @@\n"
		" \tint r = 0;\n \n \t/* older */\n"
		"-\tr = do_read(fd, buf, len); if (r < 0) return r;\n"
		"+\tr = do_read(fd, buf, len); if (r <= 0) return -1;\n"
		" \tbuf[r] = '\\0';\n \treturn r;\n }\n";
	struct prov_hunks p, f;

	(void)state;
	prov_hunks_parse(&p, patch, strlen(patch), 1);
	prov_hunks_parse(&f, fix, strlen(fix), 1);
	assert_int_equal(p.n, 1);
	assert_true(prov_hunk_carries(&p.v[0], &f.v[0]));
	prov_hunks_release(&p);
	prov_hunks_release(&f);
}

static void test_dep3(void **state)
{
	static const char hdr[] =
		"From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
		"Description: fix the thing\r\n"
		"Origin: upstream, https://github.com/x/y/commit/a1b2c3d4e5f6\r\n"
		"Bug: https://bugs.example/1234567\n"
		"Applied-Upstream: 2.1, commit:fedcba987654\n"
		"Last-Update: 2023-01-01\n"
		"\n"
		"(cherry picked from commit 1111111aaaaaaa)\n"
		"---\n"
		"commit 2222222bbbbbbb in the diff is not read\n"
		"--- a/x\n+++ b/x\n";
	struct prov_dep3 d;

	(void)state;
	prov_dep3_parse(&d, hdr, strlen(hdr));
	assert_string_equal(d.origin_kind, "upstream");
	assert_string_equal(d.origin, "https://github.com/x/y/commit/a1b2c3d4e5f6");
	assert_string_equal(d.bug, "https://bugs.example/1234567");
	assert_non_null(d.applied_upstream);
	assert_true(prov_dep3_names(&d, "a1b2c3d4e5f6000000000000000000000000000f"));
	assert_true(prov_dep3_names(&d, "0123456789abcdef0123456789abcdef01234567"));
	assert_true(prov_dep3_names(&d, "fedcba9876540000000000000000000000000000"));
	assert_true(prov_dep3_names(&d, "1111111aaaaaaa00000000000000000000000000"));
	assert_false(prov_dep3_names(&d, "2222222bbbbbbb00000000000000000000000000"));
	/* a bug number is no commit id (no letter) */
	assert_false(prov_dep3_names(&d, "1234567000000000000000000000000000000000"));
	prov_dep3_release(&d);
}

static void test_dep3_hostile(void **state)
{
	size_t big = (size_t)8 << 20, i;
	char *s = malloc(big + 1);
	struct prov_dep3 d;

	(void)state;
	assert_non_null(s);
	/* a huge header of commit lines: bounded (64 KiB read, 64 ids kept) */
	for (i = 0; i < big; i++)
		s[i] = "commit abcdef1234567 \n"[i % 22];
	s[big] = '\0';
	prov_dep3_parse(&d, s, big);
	assert_true(d.ncommits <= PROV_DEP3_MAX_COMMITS);
	prov_dep3_release(&d);
	/* one endless line, binary, NUL */
	memset(s, 'a', big);
	prov_dep3_parse(&d, s, big);
	assert_int_equal(d.ncommits, 0);
	prov_dep3_release(&d);
	for (i = 0; i < 4096; i++)
		s[i] = (char)(i * 7);
	prov_dep3_parse(&d, s, 4096);
	prov_dep3_release(&d);
	prov_dep3_parse(&d, "Origin: upstream,\0 commit 1234567abc\n", 38);
	assert_int_equal(d.ncommits, 0);
	assert_string_equal(d.origin_kind, "upstream");
	prov_dep3_release(&d);
	prov_dep3_parse(&d, "Origin:", 7);
	prov_dep3_release(&d);
	/* a huge hunk against a huge file: bounded work */
	{
		struct prov_buf_like {
			char *p;
			size_t n;
		} diff = { malloc(big), 0 };
		struct prov_hunks h;
		struct prov_hunk_file f;
		const char *head = "--- a/x\n+++ b/x\n@@ -1,100000 +1,100000 @@\n";

		assert_non_null(diff.p);
		memcpy(diff.p, head, strlen(head));
		diff.n = strlen(head);
		while (diff.n + 8 < big / 2)
			memcpy(diff.p + diff.n, "-line\n+lin\n", 11), diff.n += 11;
		prov_hunks_parse(&h, diff.p, diff.n, 1);
		assert_int_equal(h.n, 1);
		for (i = 0; i < 200000; i++)
			s[i] = i % 2 ? '\n' : 'x';
		prov_hunk_file_init(&f, s, 200000);
		(void)prov_hunk_match(&h.v[0], &f);
		prov_hunk_file_release(&f);
		/* the same lines on both sides: the comparisons are capped */
		for (i = 0; i + 5 < 400000; i += 5)
			memcpy(s + i, "line\n", 5);
		prov_hunk_file_init(&f, s, i);
		(void)prov_hunk_match(&h.v[0], &f);
		prov_hunk_file_release(&f);
		prov_hunks_release(&h);
		free(diff.p);
	}
	free(s);
}

/* hunk k of diff in file, knowing the fix's own file before it (pre) */
static enum prov_hunk_state state_fix(const char *diff, const char *file, const char *pre, size_t k)
{
	struct prov_hunks h;
	struct prov_hunk_file f, p;
	enum prov_hunk_state st;

	prov_hunks_parse(&h, diff, strlen(diff), 1);
	assert_true(k < h.n);
	prov_hunk_file_init(&f, file, strlen(file));
	prov_hunk_file_init(&p, pre, strlen(pre));
	st = prov_hunk_match_fix(&h.v[k], &f, &p, NULL);
	prov_hunk_file_release(&f);
	prov_hunk_file_release(&p);
	prov_hunks_release(&h);
	return st;
}

static int is_present(enum prov_hunk_state st)
{
	return st == PROV_HUNK_PRESENT_EXACT || st == PROV_HUNK_PRESENT_CHANGED;
}

/*
 * Lines the fix's own file had before it are no evidence: each deployed file
 * below is the fix's pre-image with its context drifted (a comment added),
 * the fix NOT applied, by construction. (Without the pre-image, the first
 * two were called present.)
 */
/* p21h: rules found on a third set of real packages */
static void test_series_rules(void **state)
{
	/* a deletion between a brace and a comment opening (adjacent in many
	 * places): the function it deletes is still in the file: not present */
	static const char del[] =
		"--- a/ssh.c\n+++ b/ssh.c\n@@ -1,12 +1,6 @@ f(void)\n"
		" \tfree(c);\n }\n \n-static int\n-valid_host(const char *s)\n-{\n-\treturn s[0] != '-';\n-}\n-\n"
		" /*\n  * Main program.\n  */\n";
	static const char del_file[] =
		"void g(void)\n{\n\tfree(d);\n}\n\n/*\n * g\n */\n"
		"void f(void)\n{\n\tfree(c);\n}\n\nstatic int\nvalid_host(const char *s)\n{\n\treturn s[0] != '-';\n}\n\n"
		"/*\n * Main program.\n */\n";
	/* a line whose change only drops tokens: a shorter line holding a few
	 * of the kept ones is not it */
	static const char drop[] =
		"--- a/t.sh\n+++ b/t.sh\n@@ -1,3 +1,3 @@\n for i in a b \\\n"
		"-    user user-l user-at setenv knownhosts; do\n+    user setenv knownhosts; do\n \tverbose $i\n";
	static const char drop_file[] = "for i in a b \\\n    remote knownhosts; do\n\tverbose $i\ndone\n"
					"for j in c \\\n    knownhosts; do\n\ttrial $j\ndone\n";
	static const char blanks[] = "--- a/w.c\n+++ b/w.c\n@@ -1,3 +1,4 @@\n int x;\n \tw->open = 1;\n+  \n }\n";
	/* a fix's hunk, a later patch moving its lines, one reverting it */
	static const char fx[] = "--- a/a.c\n+++ b/a.c\n@@ -1,4 +1,4 @@\n int mode(struct req *q)\n {\n"
				 "-\tq->retries = 4;\n+\tq->retries = 1;\n \treturn q->retries;\n";
	static const char moved[] = "--- a/a.c\n+++ b/a.c\n@@ -1,4 +1,4 @@\n int mode(struct req *q)\n {\n"
				    "-\tq->retries = 1;\n+\tset_retries(q, 1);\n \treturn q->retries;\n";
	static const char revert[] = "--- a/a.c\n+++ b/a.c\n@@ -1,4 +1,4 @@\n int mode(struct req *q)\n {\n"
				     "-\tq->retries = 1;\n+\tq->retries = 4;\n \treturn q->retries;\n";
	struct prov_hunks f, m, r, b;
	const struct prov_hunk *v[1];

	(void)state;
	assert_int_not_equal(state_of(del, del_file, 0), PROV_HUNK_PRESENT_CHANGED);
	assert_int_not_equal(state_of(drop, drop_file, 0), PROV_HUNK_PRESENT_CHANGED);
	prov_hunks_parse(&b, blanks, strlen(blanks), 1);
	assert_true(prov_hunk_blanks_only(&b.v[0]));
	prov_hunks_release(&b);
	prov_hunks_parse(&b, fix, strlen(fix), 1);
	assert_false(prov_hunk_blanks_only(&b.v[0]));
	prov_hunks_release(&b);
	prov_hunks_parse(&f, fx, strlen(fx), 1);
	prov_hunks_parse(&m, moved, strlen(moved), 1);
	prov_hunks_parse(&r, revert, strlen(revert), 1);
	v[0] = &m.v[0];
	assert_true(prov_hunk_removes_added(v, 1, &f.v[0]));
	assert_false(prov_hunk_restores_removed(m.v, m.n, &f.v[0]));
	v[0] = &r.v[0];
	assert_true(prov_hunk_removes_added(v, 1, &f.v[0]));
	assert_true(prov_hunk_restores_removed(r.v, r.n, &f.v[0]));
	v[0] = &f.v[0];	/* the fix's own hunk removes what it adds? no */
	assert_false(prov_hunk_removes_added(v, 1, &f.v[0]));
	prov_hunks_release(&f);
	prov_hunks_release(&m);
	prov_hunks_release(&r);
	/* an addition whose context line was renamed since (a macro): absent, not when its line is there */
	{
		static const char add[] = "--- a/s.c\n+++ b/s.c\n@@ -1,4 +1,5 @@\n \tif (rc == FX_OK) {\n"
					  " \t\tSSH2_FREE(session, data);\n+\t\tdata = NULL;\n \t\t/* check for a HANDLE */\n"
					  " \t\trc = require(sftp);\n";
		static const char old_rel[] = "int f(void)\n{\n\tif (rc == FX_OK) {\n\t\tLIBSSH2_FREE(session, data);\n"
					      "\t\t/* check for a HANDLE */\n\t\trc = require(sftp, 10);\n\t}\n}\n";
		static const char fixed_rel[] = "int f(void)\n{\n\tif (rc == FX_OK) {\n\t\tLIBSSH2_FREE(session, data);\n"
						"\t\tdata = NULL;\n\t\t/* check for a HANDLE */\n\t\trc = require(sftp, 10);\n\t}\n}\n";

		assert_int_equal(state_of(add, old_rel, 0), PROV_HUNK_ABSENT);
		assert_int_not_equal(state_of(add, fixed_rel, 0), PROV_HUNK_ABSENT);
	}
	/* a test converted to another framework: the names it brings are there */
	{
		static const char tf[] = "--- a/t.c\n+++ b/t.c\n@@ -1,2 +1,5 @@\n int x;\n+static int term_cb(void)\n"
					 "+{\n+\tassert_int(0, ==, term_now());\n+}\n int y;\n";
		static const char cu[] = "--- a/t.c\n+++ b/t.c\n@@ -1,2 +1,5 @@\n int x;\n+static int term_cb(void)\n"
					 "+{\n+\tCU_ASSERT(0 == term_now());\n+}\n int y;\n";
		static const char other[] = "--- a/t.c\n+++ b/t.c\n@@ -1,2 +1,3 @@\n int x;\n+static int term_cb(void);\n int y;\n";
		static const char pre_text[] = "int x;\nint y;\nint assert_int(int a, int b);\n";
		struct prov_hunk_file pre;

		prov_hunk_file_init(&pre, pre_text, strlen(pre_text));
		prov_hunks_parse(&f, tf, strlen(tf), 1);
		prov_hunks_parse(&m, cu, strlen(cu), 1);
		prov_hunks_parse(&r, other, strlen(other), 1);
		v[0] = &m.v[0];
		assert_true(prov_hunk_names_added_by(&f.v[0], &pre, v, 1));
		v[0] = &r.v[0];	/* term_now is not there */
		assert_false(prov_hunk_names_added_by(&f.v[0], &pre, v, 1));
		assert_false(prov_hunk_names_added_by(&f.v[0], NULL, v, 1));
		prov_hunks_release(&f);
		prov_hunks_release(&m);
		prov_hunks_release(&r);
		prov_hunk_file_release(&pre);
	}
}

static void test_no_evidence_from_pre_image(void **state)
{
	/* + lines that sat in the else branch the fix removes (libarchive f774f03b40cb's shape) */
	static const char pre1[] =
		"static int init_unpack(struct rar5* rar) {\n"
		"\tfree(rar->cstate.window_buf);\n"
		"\tfree(rar->cstate.filtered_buf);\n"
		"\n"
		"\tif(rar->cstate.window_size > 0) {\n"
		"\t\trar->cstate.window_buf = calloc(1, rar->cstate.window_size);\n"
		"\t} else {\n"
		"\t\trar->cstate.window_buf = NULL;\n"
		"\t\trar->cstate.filtered_buf = NULL;\n"
		"\t}\n"
		"\treturn ARCHIVE_OK;\n"
		"}\n";
	static const char diff1[] =
		"--- a/r.c\n+++ b/r.c\n"
		"@@ -1,5 +1,8 @@\n"
		" static int init_unpack(struct rar5* rar) {\n"
		" \tfree(rar->cstate.window_buf);\n"
		" \tfree(rar->cstate.filtered_buf);\n"
		"+\trar->cstate.window_buf = NULL;\n"
		"+\trar->cstate.filtered_buf = NULL;\n"
		"+\n"
		" \n"
		" \tif(rar->cstate.window_size > 0) {\n";
	static const char dep1[] =
		"static int init_unpack(struct rar5* rar) {\n"
		"\t/* the buffers of the last entry */\n"
		"\tfree(rar->cstate.window_buf);\n"
		"\tfree(rar->cstate.filtered_buf);\n"
		"\n"
		"\tif(rar->cstate.window_size > 0) {\n"
		"\t\trar->cstate.window_buf = calloc(1, rar->cstate.window_size);\n"
		"\t} else {\n"
		"\t\trar->cstate.window_buf = NULL;\n"
		"\t\trar->cstate.filtered_buf = NULL;\n"
		"\t}\n"
		"\treturn ARCHIVE_OK;\n"
		"}\n";
	/* a line like others of the file, with a token it never had (curl 1c3fcbdaa99a's shape) */
	static const char pre2[] =
		"sub features {\n"
		"    $feature{\"alpha-mode\"} = 1;\n"
		"    $feature{\"beta-mode\"} = 1;\n"
		"    $feature{\"gamma-mode\"} = 1;\n"
		"    return 1;\n"
		"}\n";
	static const char diff2[] =
		"--- a/t.pl\n+++ b/t.pl\n"
		"@@ -2,4 +2,5 @@ sub features {\n"
		"     $feature{\"alpha-mode\"} = 1;\n"
		"     $feature{\"beta-mode\"} = 1;\n"
		"+    $feature{\"large-time\"} = 1;\n"
		"     $feature{\"gamma-mode\"} = 1;\n"
		"     return 1;\n";
	static const char dep2[] =
		"sub features {\n"
		"    # on every platform\n"
		"    $feature{\"alpha-mode\"} = 1;\n"
		"    $feature{\"beta-mode\"} = 2;\n"
		"    $feature{\"gamma-mode\"} = 1;\n"
		"    $feature{\"delta-mode\"} = 1;\n"
		"    return 1;\n"
		"}\n";
	/* the same with the fix's line there: still present */
	static const char dep3[] =
		"sub features {\n"
		"    # on every platform\n"
		"    $feature{\"alpha-mode\"} = 1;\n"
		"    $feature{\"beta-mode\"} = 2;\n"
		"    $feature{\"large-time\"} = 1;\n"
		"    $feature{\"gamma-mode\"} = 1;\n"
		"    return 1;\n"
		"}\n";

	(void)state;
	assert_false(is_present(state_fix(diff1, dep1, pre1, 0)));
	assert_false(is_present(state_fix(diff2, dep2, pre2, 0)));
	assert_true(is_present(state_fix(diff2, dep3, pre2, 0)));
}

/* Identifiers a release spells another way: learnt from lines that differ by them only. */
static void test_renames(void **state)
{
	static const char fixfile[] =
		"\tnew_init(&np, 1024);\n"
		"\tif (new_add(&np, home)) {\n"
		"\t\treturn -1;\n"
		"\tif (new_len(&np) > limit_of(r))\n"
		"\tx = y;\n"
		"\tonly_here(wp);\n";
	static const char deployed[] =
		"\told_init(&np, 1024);\n"
		"\tif (old_add(&np,  home)) {\n"
		"\t\treturn -1;\n"
		"\tif (old_len(&np) > limit_of(r))\n"
		"\tu = v;\n";
	/* one name paired with two: no pair from it */
	static const char deployed2[] =
		"\told_init(&np, 1024);\n"
		"\tother_init(&np, 1024);\n"
		"\tif (old_add(&np, home)) {\n";
	struct prov_renames r;
	char *out;
	size_t n, i;
	int init = 0, add = 0;

	(void)state;
	prov_renames_learn(&r, fixfile, strlen(fixfile), deployed, strlen(deployed));
	/* x = y / u = v say too little (no 4 letters besides); only_here has no counterpart */
	assert_int_equal(r.n, 3);
	for (i = 0; i < r.n; i++) {
		assert_true(strncmp(r.from[i], "new_", 4) == 0 && strncmp(r.to[i], "old_", 4) == 0);
		assert_string_equal(r.from[i] + 4, r.to[i] + 4);
	}
	{
		static const char in[] = "if (new_add(&np, \"/\") || renew_add(x)) new_len";

		out = prov_renames_apply(&r, in, strlen(in), &n);
	}
	assert_string_equal(out, "if (old_add(&np, \"/\") || renew_add(x)) old_len");
	assert_int_equal(n, strlen(out));
	assert_true(prov_renames_touch(&r, "z = new_len(&np);"));
	assert_false(prov_renames_touch(&r, "z = new_length(&np);"));
	free(out);
	prov_renames_release(&r);
	prov_renames_learn(&r, fixfile, strlen(fixfile), deployed2, strlen(deployed2));
	for (i = 0; i < r.n; i++) {
		init |= !strcmp(r.from[i], "new_init");
		add |= !strcmp(r.from[i], "new_add") && !strcmp(r.to[i], "old_add");
	}
	assert_false(init);
	assert_true(add);
	prov_renames_release(&r);
	prov_renames_learn(&r, fixfile, strlen(fixfile), fixfile, strlen(fixfile));
	assert_int_equal(r.n, 0);
	prov_renames_release(&r);
	/* every identifier renamed (not one API): too many pairs, none kept; bounded work */
	{
		size_t cap = 20000 * 32, la = 0, lb = 0, k;
		char *ta = malloc(cap), *tb = malloc(cap);

		assert_non_null(ta);
		assert_non_null(tb);
		for (k = 0; k < 20000; k++) {
			la += (size_t)snprintf(ta + la, cap - la, "xa_%zu(&np, 1024);\n", k);
			lb += (size_t)snprintf(tb + lb, cap - lb, "yb_%zu(&np, 1024);\n", k % 3);
		}
		prov_renames_learn(&r, ta, la, tb, lb);
		assert_int_equal(r.n, 0);
		prov_renames_release(&r);
		free(ta);
		free(tb);
	}
}

/* An addition whose nearest context lines that say where are apart by braces only. */
static void test_addition_absent_in(void **state)
{
	static const char diff[] =
		"--- a/p.c\n+++ b/p.c\n"
		"@@ -10,6 +10,12 @@ int path_work(struct req *r)\n"
		"             return -1;\n"
		"         }\n"
		"     }\n"
		"+    else {\n"
		"+        if (dyn_add(&np, \"/\")) {\n"
		"+            return -1;\n"
		"+        }\n"
		"+    }\n"
		"   }\n"
		" \n"
		"   if (dyn_len(&np)) {\n";
	static const char pre[] =
		"int path_work(struct req *r)\n"
		"{\n"
		"  if (r->sftp) {\n"
		"    if (dyn_add(&np, home)) {\n"
		"      return -1;\n"
		"    }\n"
		"    if (wlen > 2) {\n"
		"        if (dyn_addn(&np, wp, wlen)) {\n"
		"             return -1;\n"
		"         }\n"
		"     }\n"
		"  }\n"
		"\n"
		"  if (dyn_len(&np)) {\n"
		"    return 1;\n"
		"  }\n"
		"}\n";
	/* the release: no wlen > 2 block (one brace fewer), the addition not made */
	static const char dep[] =
		"int path_work(struct req *r)\n"
		"{\n"
		"  if (r->sftp) {\n"
		"    if (dyn_add(&np, home)) {\n"
		"      return -1;\n"
		"    }\n"
		"    if (dyn_addn(&np, wp, wlen)) {\n"
		"      return -1;\n"
		"    }\n"
		"  }\n"
		"\n"
		"  if (dyn_len(&np)) {\n"
		"    return 1;\n"
		"  }\n"
		"}\n";
	/* the same with the addition made another way near there: no proof */
	static const char dep2[] =
		"int path_work(struct req *r)\n"
		"{\n"
		"  if (r->sftp) {\n"
		"    if (dyn_add(&np, home)) {\n"
		"      return -1;\n"
		"    }\n"
		"    if (dyn_addn(&np, wp, wlen)) {\n"
		"      return -1;\n"
		"    }\n"
		"    else if (dyn_add(&np, \"/\"))\n"
		"      return -1;\n"
		"  }\n"
		"\n"
		"  if (dyn_len(&np)) {\n"
		"    return 1;\n"
		"  }\n"
		"}\n";
	struct prov_hunks h;
	struct prov_hunk_file fd, fp;

	(void)state;
	prov_hunks_parse(&h, diff, strlen(diff), 1);
	assert_int_equal(h.n, 1);
	prov_hunk_file_init(&fp, pre, strlen(pre));
	prov_hunk_file_init(&fd, dep, strlen(dep));
	assert_true(prov_hunk_addition_absent_in(&h.v[0], &fd, &fp, &fp, NULL));
	/* where patch's exact pre-image search and fuzz say nothing */
	assert_int_equal(prov_hunk_match_fix(&h.v[0], &fd, &fp, NULL), PROV_HUNK_UNKNOWN);
	prov_hunk_file_release(&fd);
	prov_hunk_file_init(&fd, dep2, strlen(dep2));
	assert_false(prov_hunk_addition_absent_in(&h.v[0], &fd, &fp, &fp, NULL));
	prov_hunk_file_release(&fd);
	prov_hunk_file_release(&fp);
	prov_hunks_release(&h);
}

/* A hunk's whole pre- or post-image looked for in any file. */
static void test_image_count(void **state)
{
	static const char diff[] =
		"--- a/shell.c\n+++ b/shell.c\n"
		"@@ -5,5 +5,8 @@ app_shell(void)\n"
		"             command[i++] = *cur++;\n"
		"         }\n"
		"         command[i] = 0;\n"
		"-        if (i == 0)\n"
		"+        if (i == 0) {\n"
		"+            free(cmdline);\n"
		"             continue;\n"
		"+        }\n";
	static const char file[] =
		"\t\tcommand[i++] = *cur++;\n\t}\n\tcommand[i] = 0;\n\tif (i == 0)\n\t\tcontinue;\n";
	static const char twice[] =
		"\t\tcommand[i++] = *cur++;\n\t}\n\tcommand[i] = 0;\n\tif (i == 0)\n\t\tcontinue;\n"
		"\t\tcommand[i++] = *cur++;\n\t}\n\tcommand[i] = 0;\n\tif (i == 0)\n\t\tcontinue;\n";
	static const char small[] = "--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@\n }\n-a = 1;\n+a = 2;\n }\n";
	struct prov_hunks h;
	struct prov_hunk_file f;
	const char *key;
	size_t n;

	(void)state;
	prov_hunks_parse(&h, diff, strlen(diff), 1);
	prov_hunk_file_init(&f, file, strlen(file));
	assert_int_equal(prov_hunk_image_count(&h.v[0], &f, 0), 1);
	assert_int_equal(prov_hunk_image_count(&h.v[0], &f, 1), 0);
	prov_hunk_file_release(&f);
	prov_hunk_file_init(&f, twice, strlen(twice));
	assert_int_equal(prov_hunk_image_count(&h.v[0], &f, 0), 2);
	n = prov_hunk_image_key(&h.v[0], 0, &key);
	assert_int_equal(n, 12);	/* the longest run of non-blanks of the pre-image */
	assert_memory_equal(key, "command[i++]", 12);
	prov_hunk_file_release(&f);
	prov_hunks_release(&h);
	prov_hunks_parse(&h, small, strlen(small), 1);
	prov_hunk_file_init(&f, "}\na = 1;\n}\n", 11);
	assert_int_equal(prov_hunk_image_count(&h.v[0], &f, 0), -1);	/* says too little */
	prov_hunk_file_release(&f);
	prov_hunks_release(&h);
}

/* prov_hunk_rewrapped: the same C tokens over other lines; a token changed, a - block left, or a + block the file had: no */
static void test_rewrapped(void **state)
{
	static const char diff[] =
		"--- a/jp2.c\n+++ b/jp2.c\n@@ -10,6 +10,9 @@ static Image *Read(void)\n"
		" \tw = get_w(p);\n"
		" \th = get_h(p);\n"
		"+\tif ((w > MAX_SIZE) ||\n"
		"+\t    (h > MAX_SIZE))\n"
		"+\t  Throw(CorruptImage, \"Improper header\"); /* too large */\n"
		" \tdepth = get_d(p);\n"
		"-\tst = SetExtent(img, w, h);\n"
		"+\tst = SetExtent(img, w, h) && Reset(img);\n"
		" \treturn st;\n";
	static const char pre[] = "int x;\nstatic Image *Read(void)\n{\n\tw = get_w(p);\n\th = get_h(p);\n"
				  "\tdepth = get_d(p);\n\tst = SetExtent(img, w, h);\n\treturn st;\n}\n";
	static const char rewrapped[] =
		"\tw = get_w(p);\n\th = get_h(p);\n"
		"\tif ((w > MAX_SIZE) || (h > MAX_SIZE))\n\t\tThrow(CorruptImage,\n\t\t\t\"Improper header\");\n"
		"\tdepth = get_d(p);\n\tst = SetExtent(img, w,\n\t\th) &&\n\t    Reset(img);\n\treturn st;\n";
	static const char changed[] =	/* >= for > */
		"\tif ((w >= MAX_SIZE) || (h > MAX_SIZE))\n\t\tThrow(CorruptImage,\n\t\t\t\"Improper header\");\n"
		"\tst = SetExtent(img, w,\n\t\th) &&\n\t    Reset(img);\n";
	static const char blanks_in_string[] =	/* a literal's blanks are its own */
		"\tif ((w > MAX_SIZE) || (h > MAX_SIZE))\n\t\tThrow(CorruptImage, \"Improper  header\");\n"
		"\tst = SetExtent(img, w, h) && Reset(img);\n";
	static const char minus_left[] =	/* the old call still there */
		"\tif ((w > MAX_SIZE) || (h > MAX_SIZE)) Throw(CorruptImage, \"Improper header\");\n"
		"\tst = SetExtent(img, w, h) && Reset(img);\n\tst = SetExtent(img, w, h);\n";
	static const char twice[] =	/* the check twice: which one? */
		"\tif ((w > MAX_SIZE) || (h > MAX_SIZE)) Throw(CorruptImage, \"Improper header\");\n"
		"\tif ((w > MAX_SIZE) || (h > MAX_SIZE)) Throw(CorruptImage, \"Improper header\");\n"
		"\tst = SetExtent(img, w, h) && Reset(img);\n";
	static const char out_of_order[] =
		"\tst = SetExtent(img, w, h) && Reset(img);\n"
		"\tif ((w > MAX_SIZE) || (h > MAX_SIZE)) Throw(CorruptImage, \"Improper header\");\n";
	struct prov_hunks h;

	(void)state;
	prov_hunks_parse(&h, diff, strlen(diff), 1);
	assert_int_equal(h.n, 1);
	assert_int_equal(prov_hunk_rewrapped(&h.v[0], rewrapped, strlen(rewrapped), pre, strlen(pre)), 1);
	assert_int_equal(prov_hunk_rewrapped(&h.v[0], rewrapped, strlen(rewrapped), NULL, 0), 1);
	assert_int_equal(prov_hunk_rewrapped(&h.v[0], changed, strlen(changed), pre, strlen(pre)), 0);
	assert_int_equal(prov_hunk_rewrapped(&h.v[0], blanks_in_string, strlen(blanks_in_string), pre, strlen(pre)), 0);
	assert_int_equal(prov_hunk_rewrapped(&h.v[0], minus_left, strlen(minus_left), pre, strlen(pre)), 0);
	assert_int_equal(prov_hunk_rewrapped(&h.v[0], twice, strlen(twice), pre, strlen(pre)), 0);
	assert_int_equal(prov_hunk_rewrapped(&h.v[0], out_of_order, strlen(out_of_order), pre, strlen(pre)), 0);
	/* the + lines already in the fix's file before it: no evidence */
	assert_int_equal(prov_hunk_rewrapped(&h.v[0], rewrapped, strlen(rewrapped), rewrapped, strlen(rewrapped)), 0);
	assert_int_equal(prov_hunk_rewrapped(&h.v[0], "", 0, pre, strlen(pre)), 0);
	prov_hunks_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_test_paths),
		cmocka_unit_test(test_carries),
		cmocka_unit_test(test_doc_and_comments),
		cmocka_unit_test(test_absent_by_context),
		cmocka_unit_test(test_no_evidence_from_pre_image),
		cmocka_unit_test(test_series_rules),
		cmocka_unit_test(test_dep3),
		cmocka_unit_test(test_dep3_hostile),
		cmocka_unit_test(test_renames),
		cmocka_unit_test(test_addition_absent_in),
		cmocka_unit_test(test_image_count),
		cmocka_unit_test(test_rewrapped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
