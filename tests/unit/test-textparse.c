/*
 * Text backtrace parsers: every fixtures/text/<format>/<name>.txt against its
 * hand-written <name>.expect, tricky lines one by one, and robustness (random
 * bytes, every truncation of some samples, long lines).
 *
 * .expect lines (tab-separated fields, "key=value"; keys not given are not
 * checked):
 *   format<TAB>gdb
 *   signal<TAB>SIGSEGV<TAB>11          or  signal<TAB>-
 *   addr<TAB>0x0
 *   pid<TAB>1234
 *   threads<TAB>2
 *   thread<TAB>0<TAB>tid=5226<TAB>name=crash<TAB>crashed=1<TAB>frames=2
 *   frame<TAB>0<TAB>0<TAB>pc=0x...<TAB>fn=work<TAB>module=-<TAB>file=crash.c<TAB>line=5
 *         (thread position, frame position, then fields: index pc fn offset
 *          module file line col inlined python; "-" means unknown)
 *   module<TAB>/lib/x.so<TAB>build_id=abc
 *   modules<TAB>3
 *   headline<TAB>error=Invalid __global__ write<TAB>size=4<TAB>addr=0x…<TAB>thread=(1,0,0)<TAB>block=(0,0,0)
 *         (or headline<TAB>-: none; thread fields also take id=0x7f… for the
 *          printed thread id)
 *   kernel<TAB>kind=segfault<TAB>module=libc.so.6<TAB>ip=0x…<TAB>sp=0x…<TAB>addr=0x…
 *         <TAB>error=0x6<TAB>base=0x…<TAB>size=0x…<TAB>file_offset=0x…<TAB>cpu=3
 *
 * Run with TEXTPARSE_DUMP=FILE to print what the parser made of FILE in this
 * format (for debugging; expectations are written by reading the sample).
 */
#include <dirent.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "error.h"
#include "model.h"
#include "textparse.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

#define FIXTURES "fixtures/text"

static char *xfmt_u64(uint64_t v)
{
	return prov_xasprintf("0x%" PRIx64, v);
}

/* The value of `key` for frame f, as the .expect spells it. Caller frees. */
static char *frame_field(const struct prov_frame *f, const char *key)
{
	if (!strcmp(key, "index"))
		return prov_xasprintf("%d", f->index);
	if (!strcmp(key, "pc"))
		return f->has_pc ? xfmt_u64(f->pc) : prov_xstrdup("-");
	if (!strcmp(key, "fn"))
		return prov_xstrdup(f->function ? f->function : "-");
	if (!strcmp(key, "offset"))
		return f->has_offset ? xfmt_u64(f->offset) : prov_xstrdup("-");
	if (!strcmp(key, "module"))
		return prov_xstrdup(f->module ? f->module : "-");
	if (!strcmp(key, "file"))
		return prov_xstrdup(f->file ? f->file : "-");
	if (!strcmp(key, "line"))
		return prov_xasprintf("%d", f->line);
	if (!strcmp(key, "col"))
		return prov_xasprintf("%d", f->column);
	if (!strcmp(key, "inlined"))
		return prov_xasprintf("%d", f->inlined);
	if (!strcmp(key, "python"))
		return prov_xasprintf("%d", f->python);
	return NULL;
}

static char *thread_field(const struct prov_thread *t, const char *key)
{
	if (!strcmp(key, "tid"))
		return t->has_tid ? prov_xasprintf("%" PRId64, t->tid) : prov_xstrdup("-");
	if (!strcmp(key, "name"))
		return prov_xstrdup(t->name ? t->name : "-");
	if (!strcmp(key, "id"))
		return prov_xstrdup(t->thread_id ? t->thread_id : "-");
	if (!strcmp(key, "crashed"))
		return prov_xasprintf("%d", t->crashed);
	if (!strcmp(key, "frames"))
		return prov_xasprintf("%zu", t->nframes);
	return NULL;
}

static char *opt_u64(int has, uint64_t v)
{
	return has ? xfmt_u64(v) : prov_xstrdup("-");
}

static char *headline_field(const struct prov_headline *h, const char *key)
{
	if (!strcmp(key, "error"))
		return prov_xstrdup(h->error ? h->error : "-");
	if (!strcmp(key, "size"))
		return h->has_size ? prov_xasprintf("%" PRIu64, h->size) : prov_xstrdup("-");
	if (!strcmp(key, "addr"))
		return opt_u64(h->has_addr, h->addr);
	if (!strcmp(key, "thread"))
		return prov_xstrdup(h->device_thread ? h->device_thread : "-");
	if (!strcmp(key, "block"))
		return prov_xstrdup(h->device_block ? h->device_block : "-");
	if (!strcmp(key, "text"))
		return prov_xstrdup(h->text ? h->text : "-");
	return NULL;
}

static char *kernel_field(const struct prov_kernel_line *k, const char *key)
{
	if (!strcmp(key, "kind"))
		return prov_xstrdup(k->kind ? k->kind : "-");
	if (!strcmp(key, "module"))
		return prov_xstrdup(k->module ? k->module : "-");
	if (!strcmp(key, "ip"))
		return opt_u64(k->has_ip, k->ip);
	if (!strcmp(key, "sp"))
		return opt_u64(k->has_sp, k->sp);
	if (!strcmp(key, "addr"))
		return opt_u64(k->has_addr, k->addr);
	if (!strcmp(key, "error"))
		return opt_u64(k->has_error, k->error);
	if (!strcmp(key, "base"))
		return opt_u64(k->has_base, k->base);
	if (!strcmp(key, "size"))
		return opt_u64(k->has_base, k->size);
	if (!strcmp(key, "file_offset"))
		return opt_u64(k->has_file_offset, k->file_offset);
	if (!strcmp(key, "cpu"))
		return k->has_cpu ? prov_xasprintf("%d", k->cpu) : prov_xstrdup("-");
	return NULL;
}

static void dump(const struct prov_crash *c)
{
	static const char *const keys[] = { "index", "pc", "fn", "offset", "module", "file",
					    "line", "col", "inlined", "python", NULL };
	size_t i, k;

	printf("format\t%s\n", c->format ? c->format : "-");
	if (c->has_signal)
		printf("signal\t%s\t%d\n", c->signal.name ? c->signal.name : "-", c->signal.number);
	else
		printf("signal\t-\n");
	if (c->signal.has_addr)
		printf("addr\t0x%" PRIx64 "\n", c->signal.addr);
	if (c->has_process && c->process.has_pid)
		printf("pid\t%" PRId64 "\n", c->process.pid);
	printf("threads\t%zu\n", c->nthreads);
	for (i = 0; i < c->nthreads; i++) {
		const struct prov_thread *t = &c->threads[i];
		char *tid = thread_field(t, "tid");

		printf("thread\t%zu\ttid=%s\tid=%s\tname=%s\tcrashed=%d\tframes=%zu\n", i, tid,
		       t->thread_id ? t->thread_id : "-", t->name ? t->name : "-", t->crashed, t->nframes);
		free(tid);
		for (k = 0; k < t->nframes; k++) {
			const char *const *key;

			printf("frame\t%zu\t%zu", i, k);
			for (key = keys; *key; key++) {
				char *v = frame_field(&t->frames[k], *key);

				printf("\t%s=%s", *key, v);
				free(v);
			}
			printf("\n");
		}
	}
	if (c->headline) {
		static const char *const hk[] = { "error", "size", "addr", "thread", "block", NULL };

		printf("headline");
		for (k = 0; hk[k]; k++) {
			char *v = headline_field(c->headline, hk[k]);

			printf("\t%s=%s", hk[k], v);
			free(v);
		}
		printf("\n");
	}
	if (c->kernel_line) {
		static const char *const kk[] = { "kind", "module", "ip", "sp", "addr", "error",
						  "base", "size", "file_offset", "cpu", NULL };

		printf("kernel");
		for (k = 0; kk[k]; k++) {
			char *v = kernel_field(c->kernel_line, kk[k]);

			printf("\t%s=%s", kk[k], v);
			free(v);
		}
		printf("\n");
	}
	printf("modules\t%zu\n", c->nmodules);
	for (i = 0; i < c->nmodules; i++)
		printf("module\t%s\tbuild_id=%s\n", c->modules[i].path,
		       c->modules[i].build_id ? c->modules[i].build_id : "-");
}

/*
 * As resolve reads a file: log prefixes learnt over the whole input
 * (prov_text_parse_all). A fixture is one crash; more is an error here.
 */
static int parse_buf(struct prov_crash **out, const char *name, const char *s, size_t n)
{
	struct prov_crash **cs = NULL;
	size_t k, ncs = 0;
	int rc = prov_text_parse_all(&cs, &ncs, name, s, n);

	*out = NULL;
	if (rc < 0)
		return rc;
	if (ncs == 1) {
		*out = cs[0];
		free(cs);
		return 0;
	}
	for (k = 0; k < ncs; k++)
		prov_crash_free(cs[k]);
	free(cs);
	return prov_error_set(PROV_EINPUT, "'%s' gave %zu crashes, not one", name, ncs);
}

/* tricky lines, one input: the reader itself (no split by rank label) */
static int parse_str(struct prov_crash **out, const char *s)
{
	return prov_text_parse(out, "test", s, strlen(s));
}

/* Split a line on tabs (in place); returns the field count. */
static size_t split_tabs(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (n < max) {
		char *tab = strchr(p, '\t');

		fields[n++] = p;
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	return n;
}

static int check_expect(const struct prov_crash *c, const char *expect_path)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *line, *save, *fields[32];
	int failures = 0, lineno = 0;

	assert_ok(prov_read_file(&b, expect_path, 1 << 20));
	for (line = b.buf; line && *line; line = save) {
		size_t n, i;

		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		lineno++;
		if (!*line || line[0] == '#')
			continue;
		n = split_tabs(line, fields, 32);
#define BAD(...)                                                                 \
	do {                                                                     \
		fprintf(stderr, "%s:%d: ", expect_path, lineno);                 \
		fprintf(stderr, __VA_ARGS__);                                    \
		fprintf(stderr, "\n");                                           \
		failures++;                                                      \
	} while (0)
		if (!strcmp(fields[0], "format")) {
			if (!c->format || strcmp(c->format, fields[1]))
				BAD("format: expected %s, got %s", fields[1], c->format ? c->format : "-");
		} else if (!strcmp(fields[0], "signal")) {
			if (!strcmp(fields[1], "-")) {
				if (c->has_signal)
					BAD("signal: expected none, got %d", c->signal.number);
			} else if (!c->has_signal || !c->signal.name || strcmp(c->signal.name, fields[1]) ||
				   n < 3 || c->signal.number != (int)strtol(fields[2], NULL, 10)) {
				BAD("signal: expected %s, got %s", fields[1],
				    c->has_signal && c->signal.name ? c->signal.name : "-");
			}
		} else if (!strcmp(fields[0], "addr")) {
			uint64_t want = strtoull(fields[1], NULL, 16);

			if (!c->signal.has_addr || c->signal.addr != want)
				BAD("addr: expected %s", fields[1]);
		} else if (!strcmp(fields[0], "pid")) {
			if (!c->has_process || c->process.pid != strtoll(fields[1], NULL, 10))
				BAD("pid: expected %s", fields[1]);
		} else if (!strcmp(fields[0], "threads")) {
			if (c->nthreads != strtoul(fields[1], NULL, 10))
				BAD("threads: expected %s, got %zu", fields[1], c->nthreads);
		} else if (!strcmp(fields[0], "modules")) {
			if (c->nmodules != strtoul(fields[1], NULL, 10))
				BAD("modules: expected %s, got %zu", fields[1], c->nmodules);
		} else if (!strcmp(fields[0], "module")) {
			const struct prov_module *m = prov_crash_module_by_path(c, fields[1]);

			if (!m) {
				BAD("module %s: missing", fields[1]);
				continue;
			}
			for (i = 2; i < n; i++) {
				const char *want = strchr(fields[i], '=');

				if (want && !strncmp(fields[i], "build_id=", 9) &&
				    strcmp(want + 1, m->build_id ? m->build_id : "-"))
					BAD("module %s build_id: expected %s, got %s", fields[1], want + 1,
					    m->build_id ? m->build_id : "-");
			}
		} else if (!strcmp(fields[0], "headline") || !strcmp(fields[0], "kernel")) {
			int is_h = fields[0][0] == 'h';

			if (n == 2 && !strcmp(fields[1], "-")) {
				if (is_h ? c->headline != NULL : c->kernel_line != NULL)
					BAD("%s: expected none", fields[0]);
				continue;
			}
			if (is_h ? !c->headline : !c->kernel_line) {
				BAD("%s: missing", fields[0]);
				continue;
			}
			for (i = 1; i < n; i++) {
				char *eq = strchr(fields[i], '='), *got;

				if (!eq) {
					BAD("bad field '%s'", fields[i]);
					continue;
				}
				*eq = '\0';
				got = is_h ? headline_field(c->headline, fields[i])
					   : kernel_field(c->kernel_line, fields[i]);
				if (!got)
					BAD("unknown key '%s'", fields[i]);
				else if (strcmp(got, eq + 1))
					BAD("%s %s: expected '%s', got '%s'", fields[0], fields[i], eq + 1, got);
				free(got);
			}
		} else if (!strcmp(fields[0], "thread") || !strcmp(fields[0], "frame")) {
			int is_frame = fields[0][0] == 'f';
			size_t ti = strtoul(fields[1], NULL, 10), fi = 0, first = 2;
			const struct prov_thread *t;

			if (ti >= c->nthreads) {
				BAD("thread %zu: missing (%zu threads)", ti, c->nthreads);
				continue;
			}
			t = &c->threads[ti];
			if (is_frame) {
				fi = strtoul(fields[2], NULL, 10);
				first = 3;
				if (fi >= t->nframes) {
					BAD("frame %zu/%zu: missing (%zu frames)", ti, fi, t->nframes);
					continue;
				}
			}
			for (i = first; i < n; i++) {
				char *eq = strchr(fields[i], '='), *got;

				if (!eq) {
					BAD("bad field '%s'", fields[i]);
					continue;
				}
				*eq = '\0';
				got = is_frame ? frame_field(&t->frames[fi], fields[i])
					       : thread_field(t, fields[i]);
				if (!got)
					BAD("unknown key '%s'", fields[i]);
				else if (strcmp(got, eq + 1))
					BAD("%s %zu/%zu %s: expected '%s', got '%s'", fields[0], ti, fi,
					    fields[i], eq + 1, got);
				free(got);
			}
		} else {
			BAD("unknown line kind '%s'", fields[0]);
		}
#undef BAD
	}
	prov_buf_release(&b);
	return failures;
}

static int sample_count;

static void test_fixtures(void **state)
{
	DIR *top = opendir(FIXTURES), *sub;
	struct dirent *d, *e;
	int failures = 0;

	(void)state;
	assert_non_null(top);
	while ((d = readdir(top)) != NULL) {
		char *dir;

		if (d->d_name[0] == '.')
			continue;
		dir = prov_xasprintf("%s/%s", FIXTURES, d->d_name);
		sub = opendir(dir);
		if (!sub) {
			free(dir);
			continue;
		}
		while ((e = readdir(sub)) != NULL) {
			struct prov_buf b = PROV_BUF_INIT;
			struct prov_crash *c = NULL;
			char *txt, *exp;
			size_t n = strlen(e->d_name);
			int rc, f;

			if (n < 5 || strcmp(e->d_name + n - 4, ".txt"))
				continue;
			txt = prov_xasprintf("%s/%s", dir, e->d_name);
			exp = prov_xasprintf("%s/%.*s.expect", dir, (int)(n - 4), e->d_name);
			assert_ok(prov_read_file(&b, txt, 64 << 20));
			rc = parse_buf(&c, txt, b.buf, b.len);
			if (!strcmp(d->d_name, "regress") || !strcmp(d->d_name, "none")) {
				/* only: never crash; "none" must hold no backtrace */
				if (!strcmp(d->d_name, "none") && rc != PROV_EINPUT) {
					fprintf(stderr, "%s: expected no backtrace, got %d\n", txt, rc);
					failures++;
				}
			} else if (rc != 0) {
				fprintf(stderr, "%s: parse failed: %s\n", txt, prov_error_last());
				failures++;
			} else {
				f = check_expect(c, exp);
				if (f) {
					fprintf(stderr, "%s: %d mismatch(es); the parser made:\n", txt, f);
					dump(c);
				}
				failures += f;
			}
			sample_count++;
			prov_crash_free(c);
			prov_buf_release(&b);
			free(txt);
			free(exp);
		}
		closedir(sub);
		free(dir);
	}
	closedir(top);
	fprintf(stderr, "checked %d samples\n", sample_count);
	assert_true(sample_count >= 10);
	assert_int_equal(failures, 0);
}

static const struct prov_frame *frame_at(const struct prov_crash *c, size_t t, size_t f)
{
	assert_true(t < c->nthreads);
	assert_true(f < c->threads[t].nframes);
	return &c->threads[t].frames[f];
}

static void test_gdb_multiline_args(void **state)
{
	struct prov_crash *c = NULL;
	const struct prov_frame *f;

	(void)state;
	assert_ok(parse_str(&c,
		"#0  frame_to_pyobject (\n"
		"    frame=frame@entry=0x555555e78eac)\n"
		"    at Python/tracemalloc.c:994\n"
		"#1  0x000055555591edbd in traceback_to_pyobject (traceback=0x555555e78ea0, \n"
		"    intern_table=intern_table@entry=0x7ffff00019c0 \"(x\") at Python/tracemalloc.c:1024\n"
		"#2  0x00007ffff7df34b2 in abort ()\n"
		"   from /lib/x86_64-linux-gnu/libc.so.6\n"));
	assert_int_equal(c->nthreads, 1);
	assert_int_equal(c->threads[0].nframes, 3);
	f = frame_at(c, 0, 0);
	assert_string_equal(f->function, "frame_to_pyobject");
	assert_string_equal(f->file, "Python/tracemalloc.c");
	assert_int_equal(f->line, 994);
	assert_false(f->has_pc);
	f = frame_at(c, 0, 1);
	assert_true(f->has_pc);
	assert_int_equal(f->pc, 0x000055555591edbdULL);
	assert_string_equal(f->function, "traceback_to_pyobject");
	assert_int_equal(f->line, 1024);
	f = frame_at(c, 0, 2);
	assert_string_equal(f->function, "abort");
	assert_string_equal(f->module, "/lib/x86_64-linux-gnu/libc.so.6");
	assert_string_equal(c->format, "gdb");
	prov_crash_free(c);
}

static void test_gdb_cxx_and_unknown(void **state)
{
	struct prov_crash *c = NULL;

	(void)state;
	assert_ok(parse_str(&c,
		"#0  0x0000000000401136 in std::function<void (int)>::operator()(int) const (this=0x7ffe, __args#0=3) at /usr/include/c++/12/bits/std_function.h:591\n"
		"#1  0x0000000000401200 in (anonymous namespace)::Runner::run<int> (this=0x1) at run.cc:12\n"
		"#2  0x0000000000401300 in ?? ()\n"
		"#3  0x0000000000401400 in operator new (sz=8) from /lib/libstdc++.so.6\n"
		"#4  <signal handler called>\n"
		"#5  0x0000000000401500 in main () at main.cc:3\n"));
	assert_int_equal(c->threads[0].nframes, 6);
	assert_string_equal(frame_at(c, 0, 0)->function, "std::function<void (int)>::operator()(int) const");
	assert_string_equal(frame_at(c, 0, 0)->file, "/usr/include/c++/12/bits/std_function.h");
	assert_string_equal(frame_at(c, 0, 1)->function, "(anonymous namespace)::Runner::run<int>");
	assert_null(frame_at(c, 0, 2)->function);
	assert_true(frame_at(c, 0, 2)->has_pc);
	assert_string_equal(frame_at(c, 0, 3)->function, "operator new");
	assert_string_equal(frame_at(c, 0, 3)->module, "/lib/libstdc++.so.6");
	assert_int_equal(frame_at(c, 0, 5)->index, 5);
	prov_crash_free(c);
}

static void test_strip_args(void **state)
{
	struct prov_crash *c = NULL;

	(void)state;
	assert_ok(parse_str(&c,
		"==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000010 (pc 0x1 bp 0x2 sp 0x3 T0)\n"
		"    #0 0x4005d1 in Foo::operator()(int) const /src/a.cc:4:7\n"
		"    #1 0x4005e1 in Foo::operator() /src/a.cc:9\n"
		"    #2 0x4005f1 in bar(std::vector<int, std::allocator<int> > const&) /src/a.cc:12:3\n"
		"    #3 0x7f00 in operator new(unsigned long) (/lib/libasan.so.8+0xdb6a8)\n"
		"SUMMARY: AddressSanitizer: SEGV /src/a.cc:4:7 in Foo::operator()(int) const\n"));
	assert_string_equal(frame_at(c, 0, 0)->function, "Foo::operator()");
	assert_int_equal(frame_at(c, 0, 0)->column, 7);
	assert_string_equal(frame_at(c, 0, 1)->function, "Foo::operator()");
	assert_string_equal(frame_at(c, 0, 2)->function, "bar");
	assert_string_equal(frame_at(c, 0, 3)->function, "operator new");
	assert_string_equal(frame_at(c, 0, 3)->module, "/lib/libasan.so.8");
	assert_true(c->signal.has_addr);
	assert_int_equal(c->signal.addr, 0x10);
	assert_string_equal(c->signal.name, "SIGSEGV");
	assert_string_equal(c->threads[0].name, "T0");
	prov_crash_free(c);
}

static void test_log_prefixes(void **state)
{
	struct prov_crash *c = NULL;

	(void)state;
	assert_ok(parse_str(&c,
		"2024-05-01T12:00:00.123Z Program terminated with signal SIGABRT, Aborted.\n"
		"2024-05-01T12:00:00.124Z #0  0x00007f0000000001 in raise () from /lib/libc.so.6\n"
		"2024-05-01T12:00:00.125Z #1  0x00007f0000000002 in abort () from /lib/libc.so.6\n"
		"[rank3]: #2  0x0000000000400003 in main () at m.c:7\n"
		"##[error]#3  0x0000000000400004 in _start ()\n"
		"| #4  0x0000000000400005 in extra ()\n"
		"web-1  | #5  0x0000000000400006 in more ()\n"
		"web-1  | #6  0x0000000000400007 in last ()\n"));
	assert_int_equal(c->nthreads, 1);
	assert_int_equal(c->threads[0].nframes, 7);
	assert_string_equal(c->signal.name, "SIGABRT");
	assert_string_equal(frame_at(c, 0, 2)->file, "m.c");
	assert_string_equal(frame_at(c, 0, 6)->function, "last");
	prov_crash_free(c);
}

static void test_prose_is_not_frames(void **state)
{
	struct prov_crash *c = NULL;

	(void)state;
	assert_int_equal(parse_str(&c,
		"Hi team, we hit this twice today.\n"
		"#1 priority is fixing this (see the ticket) before Friday\n"
		"1  thing to note: it happens 0x10 times\n"
		"[2] See also the other report\n"
		"@ here is a note\n"
		"Thread 3 is the one that matters\n"
		"frame #2: is where it goes wrong\n"
		"#3 0x12 is not interesting\n"), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "holds no backtrace"));
	assert_null(c);
	assert_int_equal(parse_str(&c, ""), PROV_EINPUT);
	assert_int_equal(parse_buf(&c, "x", NULL, 0), PROV_EINPUT);
}

static void test_numbers_in_prose_end_block(void **state)
{
	struct prov_crash *c = NULL;

	(void)state;
	assert_ok(parse_str(&c,
		"#0  0x0000000000400001 in f () at a.c:1\n"
		"#1  0x0000000000400002 in main () at a.c:2\n"
		"The crash then repeats 3 times (see below).\n"
		"#4 things we tried: restarting\n"));
	assert_int_equal(c->nthreads, 1);
	assert_int_equal(c->threads[0].nframes, 2);
	prov_crash_free(c);
}

static void test_bt_full_locals(void **state)
{
	struct prov_crash *c = NULL;

	(void)state;
	assert_ok(parse_str(&c,
		"#0  0x0000000000400001 in f (p=0x0) at a.c:1\n"
		"        x = 3\n"
		"        at = 5\n"
		"        s = {a = 1,\n"
		"  b = 2}\n"
		"No locals.\n"
		"#1  0x0000000000400002 in main () at a.c:2\n"
		"No symbol table info available.\n"));
	assert_int_equal(c->nthreads, 1);
	assert_int_equal(c->threads[0].nframes, 2);
	assert_int_equal(frame_at(c, 0, 0)->line, 1);
	prov_crash_free(c);
}

static void test_gdb_inlined(void **state)
{
	struct prov_crash *c = NULL;

	(void)state;
	assert_ok(parse_str(&c,
		"#0  0x000055555555513d in bar (p=0x0) at t.c:3\n"
		"#1  foo (p=0x0) at t.c:8\n"
		"#2  main () at t.c:13\n"));
	assert_int_equal(frame_at(c, 0, 0)->inlined, 1);
	assert_int_equal(frame_at(c, 0, 1)->inlined, 1);
	assert_int_equal(frame_at(c, 0, 2)->inlined, 0);
	assert_false(frame_at(c, 0, 2)->has_pc);
	prov_crash_free(c);
}

/* Lines that look like frames but no format reads are counted and named. */
static void test_unparsed_lines(void **state)
{
	struct prov_crash *c = NULL;

	(void)state;
	assert_ok(parse_str(&c,
			    "#0  0x0000000000401136 in f () at a.c:1\n"
			    "#1  0x0000000000401150 in g () at a.c:2 and then some\n"
			    "#2  0x0000000000401170 in main () at a.c:9\n"
			    "#3\tINITED cov: 2 ft: 2\n"
			    "frame #7: ??? 0x12 garbage\n"));
	assert_int_equal(c->nthreads, 1);
	assert_int_equal(c->threads[0].nframes, 2);
	/* #1 and "frame #7:"; libFuzzer's status line is no frame */
	assert_int_equal(c->unparsed_lines, 2);
	assert_int_equal(c->nunparsed, 2);
	assert_string_equal(c->unparsed[0], "2: #1  0x0000000000401150 in g () at a.c:2 and then some");
	assert_string_equal(c->unparsed[1], "5: frame #7: ??? 0x12 garbage");
	prov_crash_free(c);
}

static void test_random_bytes(void **state)
{
	unsigned int seed = 12345;
	size_t round, i;

	(void)state;
	for (round = 0; round < 300; round++) {
		char buf[4096];
		size_t n = (size_t)(rand_r(&seed) % sizeof(buf));
		struct prov_crash *c = NULL;
		static const char *const alphabet[] = { "#", "0x7f", " in ", " at ", "(", ")", "\n",
			" ", "File \"", "\", line ", "frame #", ":", "+0x", "[", "]", "Thread ", "\"",
			"==1==ERROR: AddressSanitizer: ", "Traceback (most recent call last):\n" };

		for (i = 0; i < n;) {
			if (round % 2) {
				buf[i++] = (char)(rand_r(&seed) & 0xff);
			} else {
				const char *w = alphabet[rand_r(&seed) % (sizeof(alphabet) / sizeof(*alphabet))];
				size_t k = strlen(w);

				if (i + k > n)
					break;
				memcpy(buf + i, w, k);
				i += k;
			}
		}
		if (parse_buf(&c, "random", buf, i) == 0)
			prov_crash_free(c);
	}
}

static void test_truncations(void **state)
{
	static const char *const samples[] = {
		FIXTURES "/gdb/thread-apply-all.txt",
		FIXTURES "/asan/heap-use-after-free.txt",
		FIXTURES "/python-traceback/json-error.txt",
		FIXTURES "/coredumpctl/info.txt",
	};
	size_t s, len;

	(void)state;
	for (s = 0; s < sizeof(samples) / sizeof(samples[0]); s++) {
		struct prov_buf b = PROV_BUF_INIT;

		if (prov_read_file(&b, samples[s], 1 << 20) < 0) {
			fprintf(stderr, "missing %s\n", samples[s]);
			fail();
		}
		for (len = 0; len <= b.len; len++) {
			/* an exact-size heap copy so ASan sees any over-read */
			char *copy = prov_xmalloc(len ? len : 1);
			struct prov_crash *c = NULL;

			memcpy(copy, b.buf, len);
			if (parse_buf(&c, samples[s], copy, len) == 0)
				prov_crash_free(c);
			free(copy);
		}
		prov_buf_release(&b);
	}
}

static void test_long_lines(void **state)
{
	size_t n = (size_t)200 << 10, i;
	char *buf = prov_xmalloc(n + 200);
	struct prov_crash *c = NULL;
	const char *tail = "\n#0  0x0000000000400001 in f () at a.c:1\n";

	(void)state;
	for (i = 0; i < n; i++)
		buf[i] = i % 7 ? '(' : 'a';
	memcpy(buf + n, tail, strlen(tail));
	assert_ok(parse_buf(&c, "long", buf, n + strlen(tail)));
	assert_int_equal(c->threads[0].nframes, 1);
	prov_crash_free(c);
	/* one long gdb frame whose argument list never closes */
	memcpy(buf, "#0  0x1 in f (", 14);
	for (i = 14; i < 60000; i++)
		buf[i] = i % 80 == 0 ? '\n' : 'x';
	assert_ok(parse_buf(&c, "long", buf, 60000));
	assert_string_equal(frame_at(c, 0, 0)->function, "f");
	prov_crash_free(c);
	free(buf);
}

static void test_many_threads(void **state)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_crash *c = NULL;
	size_t i;

	(void)state;
	/* 20000 one-frame threads: capped at PROV_MAX_THREADS, quickly */
	for (i = 0; i < 20000; i++)
		prov_buf_printf(&b, "Thread %zu (LWP %zu):\n#0  0x1 in f () at a.c:1\n\n", i + 1, i + 1);
	assert_ok(parse_buf(&c, "many", b.buf, b.len));
	assert_int_equal(c->nthreads, PROV_MAX_THREADS);
	prov_crash_free(c);
	prov_buf_release(&b);
}

static void test_too_large(void **state)
{
	struct prov_crash *c = NULL;

	(void)state;
	/* the size check comes before any read, so a fake length is safe */
	assert_int_equal(parse_buf(&c, "huge", "x", (size_t)65 << 20), PROV_ELIMIT);
	assert_null(c);
}

int main(void)
{
	const char *dump_path = getenv("TEXTPARSE_DUMP");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_gdb_multiline_args),
		cmocka_unit_test(test_gdb_cxx_and_unknown),
		cmocka_unit_test(test_strip_args),
		cmocka_unit_test(test_log_prefixes),
		cmocka_unit_test(test_prose_is_not_frames),
		cmocka_unit_test(test_numbers_in_prose_end_block),
		cmocka_unit_test(test_bt_full_locals),
		cmocka_unit_test(test_gdb_inlined),
		cmocka_unit_test(test_unparsed_lines),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_many_threads),
		cmocka_unit_test(test_too_large),
	};

	if (dump_path) {
		struct prov_buf b = PROV_BUF_INIT;
		struct prov_crash *c = NULL;

		if (prov_read_file(&b, dump_path, 64 << 20) < 0 ||
		    parse_buf(&c, dump_path, b.buf, b.len) < 0) {
			fprintf(stderr, "%s\n", prov_error_last());
			return 2;
		}
		dump(c);
		prov_crash_free(c);
		prov_buf_release(&b);
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
