/*
 * The CPython interpreter-state reader on made-up process images
 * (fixtures/fuzz-seeds/fuzz-python/, written by fuzz/make-python-seeds.py
 * with the layouts of src/core/python-offsets.c): the frames and lines each
 * version's image holds, the order they take among the native frames, and
 * what hostile images (cycles, unmapped pointers, huge counts, garbage
 * code objects, damaged debug offsets) leave: a note, never a crash or a
 * loop. Every seed also goes through the fuzz target's entry point.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "model.h"
#include "pathrw.h"
#include "python.h"
#include "util.h"
#include "unit.h"

#define LLVMFuzzerTestOneInput fuzz_python_one
#include "../../fuzz/fuzz-python.c"
#undef LLVMFuzzerTestOneInput

#ifndef SEEDS
#define SEEDS "fixtures/fuzz-seeds/fuzz-python"
#endif

struct img {
	struct prov_buf b;
	struct fuzz_py_mem mem;
};

static struct prov_crash *run(const char *seed, struct img *im)
{
	static const char *const native[] = {
		"leaf", "_PyEval_EvalFrameDefault", "call", "_PyEval_EvalFrameDefault", "main",
	};
	char *path = prov_xasprintf("%s/%s", SEEDS, seed);
	struct prov_py_target t;
	struct prov_crash *c;
	struct prov_thread *th;
	size_t i;

	prov_buf_init(&im->b, 1 << 20);
	assert_ok(prov_read_file(&im->b, path, 1 << 20));
	free(path);
	im->mem.p = (const uint8_t *)im->b.buf + 2;
	im->mem.n = im->b.len - 2;
	c = prov_crash_new(PROV_INPUT_CORE, seed);
	th = prov_crash_add_thread(c);
	th->has_tid = 1;
	th->tid = 1000;
	th->crashed = im->b.buf[1] & 1;	/* flags bit 0: read the variables */
	/* 3.8-3.10 name threads by pthread_self() only: the thread pointer */
	th->regs = prov_xcalloc(1, sizeof(*th->regs));
	th->nregs = 1;
	memcpy(th->regs[0].name, "fs_base", 8);
	th->regs[0].value = 0x7f0000001000;
	for (i = 0; i < 5; i++) {
		struct prov_frame *f = prov_thread_add_frame(th);

		f->has_pc = 1;
		f->pc = 0x1000 + i;
		f->function = prov_xstrdup(native[i]);
	}
	memset(&t, 0, sizeof(t));
	t.read = fuzz_py_read;
	t.arg = &im->mem;
	t.runtime = FUZZ_PY_BASE;
	t.major = im->b.buf[0] ? 3 : 0;
	t.minor = (unsigned char)im->b.buf[0];
	t.module = "libpython-test.so";
	prov_python_annotate(c, &t);
	return c;
}

/* "leaf,inner@12,outer@15,_PyEval_EvalFrameDefault,..." for comparisons */
static char *shape(const struct prov_thread *t)
{
	struct prov_buf b = PROV_BUF_INIT;
	size_t i;

	for (i = 0; i < t->nframes; i++) {
		const struct prov_frame *f = &t->frames[i];

		assert_int_equal(f->index, (int)i);
		if (i)
			prov_buf_putc(&b, ',');
		if (f->python)
			prov_buf_printf(&b, "%s@%d:%s", f->function ? f->function : "?", f->line,
					f->file ? prov_basename(f->file) : "?");
		else
			prov_buf_puts(&b, f->function);
	}
	return prov_buf_detach(&b);
}

static void check(const char *seed, const char *version, const char *want, const char *note)
{
	struct img im;
	struct prov_crash *c = run(seed, &im);
	char *got = shape(&c->threads[0]);

	if (version)
		assert_string_equal(c->python_version, version);
	if (want)
		assert_string_equal(got, want);
	if (note) {
		const char *n = c->threads[0].python_note ? c->threads[0].python_note : c->python_note;

		assert_non_null(n);
		if (!strstr(n, note))
			fail_msg("note '%s' does not say '%s'", n, note);
	}
	free(got);
	prov_crash_free(c);
	prov_buf_release(&im.b);
}

#define ONE_CALL "leaf,inner@12:job.py,Outer.outer@15:job.py,_PyEval_EvalFrameDefault," \
	"call,_PyEval_EvalFrameDefault,main"

static void test_versions(void **state)
{
	(void)state;
	/* 3.8-3.10: one eval call per frame object */
	check("py38-ok", "3.8", "leaf,inner@12:job.py,_PyEval_EvalFrameDefault,call,"
	      "outer@15:job.py,_PyEval_EvalFrameDefault,main", NULL);
	check("py39-ok", "3.9", "leaf,inner@12:job.py,_PyEval_EvalFrameDefault,call,"
	      "outer@15:job.py,_PyEval_EvalFrameDefault,main", NULL);
	check("py310-ok", "3.10", "leaf,inner@12:job.py,_PyEval_EvalFrameDefault,call,"
	      "outer@15:job.py,_PyEval_EvalFrameDefault,main", NULL);
	/* 3.11+: Python-to-Python calls stay in one eval call (is_entry, shim frames) */
	check("py311-ok", "3.11", ONE_CALL, NULL);
	check("py312-ok", "3.12", ONE_CALL, NULL);
	check("py313-ok", "3.13.0", ONE_CALL, NULL);
}

static void test_gil(void **state)
{
	struct img im;
	struct prov_crash *c = run("py311-ok", &im);

	(void)state;
	assert_true(c->threads[0].python);
	assert_true(c->threads[0].holds_gil);
	assert_false(c->python_finalizing);
	prov_crash_free(c);
	prov_buf_release(&im.b);
}

static void test_hostile(void **state)
{
	(void)state;
	/* F2 -> F1 -> F2 ...: the loop is seen, the frames read so far kept */
	check("py311-frame-cycle", "3.11", NULL, "loops");
	check("py310-frame-cycle", "3.10", NULL, "loops");
	check("py311-frame-unmapped", "3.11", NULL, "cannot read the Python frame");
	check("py311-thread-cycle", "3.11", ONE_CALL, "thread state list loops");
	check("py311-unmapped-interp", "3.11", "leaf,_PyEval_EvalFrameDefault,call,"
	      "_PyEval_EvalFrameDefault,main", "cannot read the thread states");
	check("py311-code-garbage", "3.11", NULL, "no code object");
	check("py313-debug-bad", NULL, "leaf,_PyEval_EvalFrameDefault,call,"
	      "_PyEval_EvalFrameDefault,main", "debug offsets");
}

/* check() with want NULL: compare only the note; shape() still checks indices */
static void test_huge(void **state)
{
	struct img im;
	struct prov_crash *c = run("py311-huge-counts", &im);
	const struct prov_thread *t = &c->threads[0];
	size_t i, npy = 0;

	(void)state;
	/* names 2^40 characters long and a 2^40-byte line table: refused, the
	 * file still named, no line */
	for (i = 0; i < t->nframes; i++)
		if (t->frames[i].python) {
			npy++;
			assert_null(t->frames[i].function);
			assert_string_equal(prov_basename(t->frames[i].file), "job.py");
			assert_int_equal(t->frames[i].line, 0);
		}
	assert_int_equal(npy, 2);
	prov_crash_free(c);
	prov_buf_release(&im.b);
}

/* The first Python frame named fn in thread 0, and a variable of it */
static const struct prov_frame *py_frame(const struct prov_crash *c, const char *fn)
{
	size_t i;

	for (i = 0; i < c->threads[0].nframes; i++) {
		const struct prov_frame *f = &c->threads[0].frames[i];

		if (f->python && f->function && strcmp(f->function, fn) == 0)
			return f;
	}
	fail_msg("no Python frame %s", fn);
	return NULL;
}

static const struct prov_var *var(const struct prov_frame *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->nargs; i++)
		if (strcmp(f->args[i].name, name) == 0)
			return &f->args[i];
	for (i = 0; i < f->nlocals; i++)
		if (strcmp(f->locals[i].name, name) == 0)
			return &f->locals[i];
	fail_msg("no variable %s", name);
	return NULL;
}

static void want_var(const struct prov_frame *f, const char *name, const char *type,
		     const char *value, const char *note)
{
	const struct prov_var *v = var(f, name);

	if (type)
		assert_string_equal(v->type, type);
	else
		assert_null(v->type);
	if (value) {
		assert_non_null(v->value);
		if (strcmp(v->value, value) != 0 &&
		    !(value[0] == '~' && strncmp(v->value, value + 1, strlen(value + 1)) == 0))
			fail_msg("%s = %s, want %s", name, v->value, value);
	} else if (v->value) {
		fail_msg("%s = %s, want no value", name, v->value);
	}
	if (note) {
		assert_non_null(v->note);
		if (!strstr(v->note, note))
			fail_msg("%s: note '%s' does not say '%s'", name, v->note, note);
	}
}

/* the seeds' inner(a, b) with locals s f n t lst obj cellv unb
 * (fuzz/make-python-seeds.py build_locals) */
static void test_locals(void **state)
{
	static const char *const seeds[] = { "py311-locals", "py312-locals", "py313-locals" };
	size_t k;

	(void)state;
	for (k = 0; k < 3; k++) {
		struct img im;
		struct prov_crash *c = run(seeds[k], &im);
		const struct prov_frame *f = py_frame(c, "inner");

		assert_true(f->has_vars);
		assert_int_equal(f->nargs, 2);
		assert_int_equal(f->nlocals, 8);
		assert_string_equal(f->args[0].name, "a");
		want_var(f, "a", "int", "42", NULL);
		want_var(f, "b", "int", "-1099511627781", NULL);
		want_var(f, "s", "str", "\"hi 'x'\"", NULL);
		want_var(f, "f", "float", "2.5", NULL);
		want_var(f, "n", "NoneType", "None", NULL);
		want_var(f, "t", "bool", "True", NULL);
		want_var(f, "lst", "list", "~<list object at 0x", NULL);
		assert_non_null(strstr(var(f, "lst")->value, ", len 3>"));
		want_var(f, "obj", "Thing", "~<Thing object at 0x", NULL);
		want_var(f, "cellv", "int", "7", NULL);
		want_var(f, "unb", NULL, NULL, "unbound");
		/* outer has none; the frames of threads that did not crash are not read */
		f = py_frame(c, "Outer.outer");
		assert_true(f->has_vars);
		assert_int_equal(f->nargs + f->nlocals, 0);
		prov_crash_free(c);
		prov_buf_release(&im.b);
	}
	/* the same image, the thread not the crashing one: no variables */
	check("py311-ok", "3.11", ONE_CALL, NULL);
	/* 3.8-3.10 (co_varnames/co_cellvars/co_freevars): code objects without
	 * them leave the frames as they were, with a note */
	check("py310-vars-unset", "3.10", "leaf,inner@12:job.py,_PyEval_EvalFrameDefault,call,"
	      "outer@15:job.py,_PyEval_EvalFrameDefault,main", "cannot read the variable names");
}

static void test_locals_hostile(void **state)
{
	struct img im;
	struct prov_crash *c = run("py311-locals-hostile", &im);
	const struct prov_frame *f = py_frame(c, "inner");

	(void)state;
	assert_true(f->has_vars);
	want_var(f, "a", NULL, NULL, "cannot read memory at 0xdead0000");
	want_var(f, "b", "int", NULL, "1099511627776 30-bit digits");
	want_var(f, "s", "str", NULL, "cannot read the str");
	want_var(f, "f", NULL, NULL, "cannot read the type");
	want_var(f, "n", "int", NULL, "cannot read the int");
	want_var(f, "t", "bytes", NULL, "cannot read the bytes");
	want_var(f, "lst", NULL, NULL, "cannot read the type");
	want_var(f, "obj", "list", "~<list object at 0x", NULL);
	assert_null(strstr(var(f, "obj")->value, "len"));
	want_var(f, "cellv", "cell", "~<cell object at 0x", NULL);
	want_var(f, "unb", NULL, NULL, "unbound");
	/* a names tuple of 2^40 items: no variables, a note on the thread */
	f = py_frame(c, "Outer.outer");
	assert_false(f->has_vars);
	assert_non_null(c->threads[0].python_note);
	assert_non_null(strstr(c->threads[0].python_note, "claims more than 512 variables"));
	prov_crash_free(c);
	prov_buf_release(&im.b);
}

static void test_loctable(void **state)
{
	/* 3.11 location table: a no-column entry (code 13) of 1 unit, delta 0;
	 * a one-line entry (code 11: +1) of 2 units with two column bytes; a
	 * no-location entry (15) of 1 unit; a long entry (14) of 3 units: line
	 * -2 (svarint 5), end line 0, columns 1 and 2; a short entry (code 0)
	 * of 1 unit with one column byte */
	static const unsigned char t[] = {
		0x80 | (13 << 3) | 0, 0x00,
		0x80 | (11 << 3) | 1, 0x01, 0x02,
		0x80 | (15 << 3) | 0,
		0x80 | (14 << 3) | 2, 0x05, 0x00, 0x02, 0x03,
		0x80 | (0 << 3) | 0, 0x07,
	};

	(void)state;
	assert_int_equal(prov_python_loctable_line(t, sizeof(t), 20, -1), 20);
	assert_int_equal(prov_python_loctable_line(t, sizeof(t), 20, 0), 20);
	assert_int_equal(prov_python_loctable_line(t, sizeof(t), 20, 1), 21);
	assert_int_equal(prov_python_loctable_line(t, sizeof(t), 20, 2), 21);
	assert_int_equal(prov_python_loctable_line(t, sizeof(t), 20, 3), -1);
	assert_int_equal(prov_python_loctable_line(t, sizeof(t), 20, 4), 19);
	assert_int_equal(prov_python_loctable_line(t, sizeof(t), 20, 6), 19);
	assert_int_equal(prov_python_loctable_line(t, sizeof(t), 20, 7), 19);
	assert_int_equal(prov_python_loctable_line(t, sizeof(t), 20, 8), -1);
	/* cut short, or not an entry start */
	assert_int_equal(prov_python_loctable_line(t, 4, 20, 2), -1);
	assert_int_equal(prov_python_loctable_line((const unsigned char *)"\x01", 1, 20, 0), -1);
}

static void test_names(void **state)
{
	unsigned int ma = 0, mi = 0;

	(void)state;
	assert_ok(prov_python_version_from_name(&ma, &mi, "/usr/lib/libpython3.12.so.1.0"));
	assert_int_equal(ma * 100 + mi, 312);
	assert_ok(prov_python_version_from_name(&ma, &mi, "/usr/bin/python3.8"));
	assert_int_equal(mi, 8);
	assert_ok(prov_python_version_from_name(&ma, &mi, "/opt/bin/python3.13t"));
	assert_int_equal(mi, 13);
	assert_int_equal(prov_python_version_from_name(&ma, &mi, "/usr/bin/python3"), -1);
	assert_int_equal(prov_python_version_from_name(&ma, &mi, "/usr/bin/python3.1x"), -1);
	assert_true(prov_python_is_interpreter("/usr/bin/python3.11"));
	assert_true(prov_python_is_interpreter("/x/libpython3.11.so.1.0"));
	assert_false(prov_python_is_interpreter("/usr/lib/libc.so.6"));
}

static void rewrite(const char *file, const char *want, const char *rule)
{
	char *rp = NULL, *r = NULL;

	if (!want) {
		assert_int_not_equal(prov_pathrw_rewrite(&rp, &r, file, NULL, NULL), 0);
		return;
	}
	assert_ok(prov_pathrw_rewrite(&rp, &r, file, NULL, NULL));
	assert_string_equal(rp, want);
	assert_string_equal(r, rule);
	free(rp);
	free(r);
}

/* Installed Python files to repository paths */
static void test_python_paths(void **state)
{
	(void)state;
	rewrite("/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py",
		"torch/nn/modules/module.py", "site-packages");
	rewrite("/usr/lib/python3/dist-packages/apt/package.py", "apt/package.py", "site-packages");
	rewrite("/usr/lib/python3.11/threading.py", "Lib/threading.py", "python-stdlib");
	rewrite("/root/.pyenv/versions/3.11.7/lib/python3.11/concurrent/futures/thread.py",
		"Lib/concurrent/futures/thread.py", "python-stdlib");
	/* not .py: the build paths of native code keep their rules */
	rewrite("/usr/lib/python3.11/lib-dynload/x.so", NULL, NULL);
	rewrite("/usr/lib/python3.x/threading.py", NULL, NULL);
}

static void test_seeds_through_fuzz_target(void **state)
{
	static const char *const seeds[] = {
		"py38-ok", "py39-ok", "py310-ok", "py311-ok", "py312-ok", "py313-ok",
		"py311-frame-cycle", "py310-frame-cycle", "py311-frame-unmapped",
		"py311-thread-cycle", "py311-interp-cycle", "py311-unmapped-interp",
		"py311-huge-counts", "py311-code-garbage", "py313-debug-bad",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct prov_buf b;
		char *path = prov_xasprintf("%s/%s", SEEDS, seeds[i]);

		prov_buf_init(&b, 1 << 20);
		assert_ok(prov_read_file(&b, path, 1 << 20));
		fuzz_python_one((const uint8_t *)b.buf, b.len);
		/* and every prefix cut at a page: truncated images */
		fuzz_python_one((const uint8_t *)b.buf, b.len / 2);
		fuzz_python_one((const uint8_t *)b.buf, 3);
		prov_buf_release(&b);
		free(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_gil),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_huge),
		cmocka_unit_test(test_locals),
		cmocka_unit_test(test_locals_hostile),
		cmocka_unit_test(test_loctable),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_python_paths),
		cmocka_unit_test(test_seeds_through_fuzz_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
