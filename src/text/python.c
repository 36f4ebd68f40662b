/*
 * Python: faulthandler dumps (most recent call first), tracebacks and pystack
 * (most recent call last: reversed when the thread closes, so that index 0
 * is always the most recent call).
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "util.h"
#include "banned.h"

static const struct {
	const char *text;
	const char *signal;
} fatal_msgs[] = {
	{ "Segmentation fault", "SIGSEGV" },
	{ "Aborted", "SIGABRT" },
	{ "Bus error", "SIGBUS" },
	{ "Floating point exception", "SIGFPE" },
	{ "Illegal instruction", "SIGILL" },
};

/* `File "PATH", line N[,] in FUNC[ (inlined)][ (MODULE)]` at s. */
static int python_frame(struct tp_state *st, int fmt, const char *s, int python)
{
	struct prov_frame *f;
	struct prov_thread *t;
	const char *path, *q, *e, *fn;
	size_t fn_len;
	int line, comma = 0, inlined = 0;
	const char *mod = NULL;
	size_t mod_len = 0;

	if (strncmp(s, "File \"", 6) != 0)
		return 0;
	path = s + 6;
	q = strstr(path, "\", line ");
	if (!q || tp_dec(&line, q + 8, &e) < 0)
		return 0;
	if (*e == ',') {
		comma = 1;
		e++;
	}
	if (strncmp(e, " in ", 4) != 0)
		return 0;
	fn = e + 4;
	fn_len = strlen(fn);
	if (fmt == TP_NONE)
		fmt = comma ? TP_PYTB : TP_FAULTHANDLER;
	if (fmt == TP_PYSTACK) {
		/* "in f (inlined) (libpython3.11.so)" */
		for (;;) {
			long open;

			while (fn_len && fn[fn_len - 1] == ' ')
				fn_len--;
			if (!fn_len || fn[fn_len - 1] != ')')
				break;
			open = tp_match_open(fn, fn_len - 1);
			if (open <= 0 || fn[open - 1] != ' ')
				break;
			if (fn_len - (size_t)open == 9 && memcmp(fn + open, "(inlined)", 9) == 0)
				inlined = 1;
			else if (!mod && !python) {
				mod = fn + open + 1;
				mod_len = fn_len - (size_t)open - 2;
			} else {
				break;
			}
			fn_len = (size_t)open;
		}
	}
	if (!fn_len)
		return 0;
	f = tp_frame_new(st, fmt, -1);
	if (!f)
		return 1;
	t = tp_cur(st);
	if (t->nframes == 1 && (fmt == TP_PYTB || fmt == TP_PYSTACK))
		tp_cur_info(st)->reverse = 1;
	f->python = python;
	f->inlined = inlined;
	tp_set(&f->function, fn, fn_len);
	if (!(q - path == 3 && memcmp(path, "???", 3) == 0))
		tp_set(&f->file, path, (size_t)(q - path));
	f->line = line;
	if (mod)
		tp_set(&f->module, mod, mod_len);
	return 1;
}

/*
 * A traceback's last line: "ValueError: bad batch size 0", "KeyboardInterrupt",
 * "torch.distributed.DistBackendError: ...". The length of the exception's
 * name, 0 when s is no such line.
 */
static size_t exception_len(const char *s)
{
	static const char *const ends[] = { "Error", "Exception", "Exit", "Interrupt", "Warning",
					    "Iteration", "Failure", NULL };
	const char *p = s;
	size_t i, n;
	int dot = 0;

	if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_'))
		return 0;
	for (; (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || tp_isdigit((unsigned char)*p) ||
	       *p == '_' || *p == '.'; p++)
		dot |= *p == '.';
	if (*p && !(p[0] == ':' && (p[1] == ' ' || !p[1])))
		return 0;
	n = (size_t)(p - s);
	for (i = 0; ends[i]; i++)
		if (n >= strlen(ends[i]) && !memcmp(p - strlen(ends[i]), ends[i], strlen(ends[i])))
			return n;
	return dot && *p == ':' ? n : 0;
}

int tp_python_line(struct tp_state *st, char *s, size_t indent)
{
	struct prov_thread *t;
	const char *p;
	size_t i, n;

	if ((p = prov_skip_prefix(s, "Fatal Python error: ")) != NULL) {
		tp_end_block(st);
		for (i = 0; i < sizeof(fatal_msgs) / sizeof(fatal_msgs[0]); i++)
			if (prov_starts_with(p, fatal_msgs[i].text))
				tp_set_signal(st, prov_signal_number(fatal_msgs[i].signal));
		st->fmt = TP_FAULTHANDLER;
		return 1;
	}
	/* pystack: "The process died due receiving signal SIGSEGV" */
	if ((p = strstr(s, " receiving signal SIG")) != NULL && prov_starts_with(s, "The process died")) {
		char *name = prov_xstrdup(p + 18);
		int signo;

		name[strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")] = '\0';
		signo = prov_signal_number(name);
		free(name);
		if (signo > 0)
			tp_set_signal(st, signo);
		return 1;
	}
	n = strlen(s);
	if (prov_ends_with(s, "(most recent call first):")) {
		int current = prov_starts_with(s, "Current thread ");

		if (current || prov_starts_with(s, "Thread 0x") || strcmp(s, "Stack (most recent call first):") == 0) {
			const char *id = strstr(s, "hread 0x");
			uint64_t v;

			t = tp_open(st, TP_FAULTHANDLER, 1);
			if (t && (current || s[0] == 'S'))
				t->crashed = 1;
			/* the thread's identifier (threading.get_ident(), a
			 * pthread_t): no tid, kept as printed */
			if (t && id && tp_hex(&v, id + 6, &p) == 0)
				tp_set(&t->thread_id, id + 6, (size_t)(p - (id + 6)));
			return 1;
		}
	}
	if (strcmp(s, "Traceback (most recent call last):") == 0) {
		if (tp_open(st, TP_PYTB, 1))
			tp_cur_info(st)->reverse = 1;
		return 1;
	}
	if ((p = prov_skip_prefix(s, "Traceback for thread ")) != NULL &&
	    prov_ends_with(s, "(most recent call last):")) {
		int64_t tid;
		const char *e = p;

		while (tp_isdigit((unsigned char)*e))
			e++;
		t = tp_open(st, TP_PYSTACK, 1);
		if (!t)
			return 1;
		tp_cur_info(st)->reverse = 1;
		if (e > p && prov_parse_i64(&tid, p, (size_t)(e - p)) == 0) {
			t->has_tid = 1;
			t->tid = tid;
		}
		/* "(name)" before the "[...]" flags */
		if (e[0] == ' ' && e[1] == '(') {
			const char *c = strchr(e + 2, ')');

			if (c && c[1] == ' ' && strncmp(e + 2, "most recent", 11) != 0)
				tp_set(&t->name, e + 2, (size_t)(c - e - 2));
		}
		return 1;
	}
	if ((p = prov_skip_prefix(s, "(Python) ")) != NULL)
		return python_frame(st, TP_PYSTACK, p, 1);
	if ((p = prov_skip_prefix(s, "(C) ")) != NULL)
		return python_frame(st, TP_PYSTACK, p, 0);
	if (prov_starts_with(s, "File \"")) {
		int fmt = st->fmt;

		if (fmt != TP_FAULTHANDLER && fmt != TP_PYTB && fmt != TP_PYSTACK && fmt != TP_PYBT)
			fmt = TP_NONE;
		return python_frame(st, fmt, s, 1);
	}
	/* the exception that ended a traceback is the crash's headline (the last one wins) */
	if (st->fmt == TP_PYTB && !indent && tp_cur(st) && tp_cur(st)->nframes &&
	    (n = exception_len(s)) > 0) {
		tp_set_headline(st, s, strlen(s), s, n, st->py_headline || !st->c->headline);
		st->py_headline = 1;
		tp_end_block(st);
		return 1;
	}
	/* inside a Python block: source lines, carets, notes */
	if (st->fmt == TP_FAULTHANDLER || st->fmt == TP_PYTB || st->fmt == TP_PYSTACK || st->fmt == TP_PYBT) {
		if (strcmp(s, "<no Python frame>") == 0 || (indent > 0 && tp_cur(st)) ||
		    (s[0] == '[' && strstr(s, "repeated")) || prov_starts_with(s, "..."))
			return 1;
	}
	(void)n;
	return 0;
}

/* ---- gdb's py-bt and py-bt-full ---- */

/*
 * py-bt: "Traceback (most recent call first):" then `File "F", line N, in
 * FUNC` (most recent first: never reversed). py-bt-full: "#N Frame 0x…, for
 * file F, line L, in FUNC (ARGS)", N being the gdb frame that evaluates it;
 * such a frame's index is kept as -(N + 1) until tp_pybt_merge places it.
 */
/*
 * A py-bt block right after gdb's "Thread N (...)" header (`thread apply all
 * py-bt`) is that thread's: the empty header thread becomes the block, its
 * gdb number, tid and name kept for tp_pybt_merge to match.
 */
static void pybt_open(struct tp_state *st)
{
	struct prov_thread *t = tp_cur(st);
	struct tp_tinfo *ti = tp_cur_info(st);

	if (t && ti->fmt == TP_GDB && ti->is_explicit && ti->gdbnum > 0 && !t->nframes) {
		ti->fmt = TP_PYBT;
		st->fmt = TP_PYBT;
		return;
	}
	tp_open(st, TP_PYBT, 1);
}

int tp_pybt_line(struct tp_state *st, char *s, size_t indent)
{
	struct prov_frame *f;
	const char *p, *file, *q, *fn, *e;
	int gdbnum, line;

	if (strcmp(s, "Traceback (most recent call first):") == 0) {
		pybt_open(st);
		return 1;
	}
	if (strcmp(s, "Unable to locate python frame") == 0)
		return 1;
	if (indent || s[0] != '#' || tp_dec(&gdbnum, s + 1, &p) < 0 || *p != ' ')
		return 0;
	p++;
	if (st->fmt == TP_PYBT && (p[0] == '<' || prov_starts_with(p, "(unable to read python frame") ||
				   prov_starts_with(p, "Waiting for the GIL") ||
				   prov_starts_with(p, "Garbage-collecting")))
		return 1;	/* a C function or the interpreter busy: no Python frame */
	if (!prov_starts_with(p, "Frame 0x") || (file = strstr(p, ", for file ")) == NULL)
		return 0;
	file += 11;
	if ((q = strstr(file, ", line ")) == NULL || tp_dec(&line, q + 7, &e) < 0 ||
	    !prov_starts_with(e, ", in "))
		return 0;
	fn = e + 5;
	for (e = fn; *e && *e != ' ' && *e != '('; e++)
		;
	if (e == fn)
		return 0;
	if (st->fmt != TP_PYBT || !tp_cur(st) || tp_cur_info(st)->fmt != TP_PYBT ||
	    (tp_cur(st)->nframes && tp_cur(st)->frames[0].index >= 0))
		pybt_open(st);	/* py-bt-full after py-bt is a stack of its own */
	f = tp_frame_new(st, TP_PYBT, -1);
	if (!f)
		return 1;
	f->python = 1;
	tp_set(&f->function, fn, (size_t)(e - fn));
	tp_set(&f->file, file, (size_t)(q - file));
	f->line = line;
	f->index = -(gdbnum + 1);
	return 1;
}

static int pybt_same(const struct prov_thread *a, const struct prov_thread *b)
{
	size_t i;

	if (a->nframes != b->nframes)
		return 0;
	for (i = 0; i < a->nframes; i++)
		if (!tp_str_eq(a->frames[i].function, b->frames[i].function) ||
		    !tp_str_eq(a->frames[i].file, b->frames[i].file) || a->frames[i].line != b->frames[i].line)
			return 0;
	return 1;
}

static int is_eval(const struct prov_frame *f)
{
	return !f->python && f->function &&
	       (!strcmp(f->function, "_PyEval_EvalFrameDefault") || !strcmp(f->function, "PyEval_EvalFrameEx"));
}

/*
 * Python frames P (most recent first) into native thread t, as a core's are
 * merged: each right above the eval frame that ran it. py-bt-full says
 * which (its "#N"); py-bt does not, so its frames are placed only when that
 * is certain (one eval frame, or as many eval frames as Python frames, one
 * each) and otherwise follow the native frames, with a note saying why.
 */
static void pybt_into(struct prov_thread *t, struct prov_thread *py)
{
	size_t n = t->nframes + py->nframes, i, k = 0, m = 0, neval = 0;
	struct prov_frame *out = prov_xcalloc(n ? n : 1, sizeof(*out));
	int full = py->nframes && py->frames[0].index < 0, each;

	for (i = 0; i < t->nframes; i++)
		neval += is_eval(&t->frames[i]);
	each = !full && neval > 1 && neval == py->nframes;
	for (i = 0; i < t->nframes; i++) {
		const struct prov_frame *nf = &t->frames[i];

		if (full) {
			while (k < py->nframes && py->frames[k].index == -(nf->index + 1))
				out[m++] = py->frames[k++];
		} else if (is_eval(nf) && k < py->nframes) {
			if (each)
				out[m++] = py->frames[k++];
			else if (neval == 1)
				while (k < py->nframes)
					out[m++] = py->frames[k++];
		}
		if (t->has_crash_frame && i == t->crash_frame)
			t->crash_frame = m;
		out[m++] = *nf;
	}
	if (k < py->nframes && !t->python_note)
		t->python_note = full ? prov_xasprintf("%zu Python frames from gdb's py-bt-full name no frame of "
						       "this backtrace", py->nframes - k)
				      : prov_xasprintf("%zu Python frames from gdb's py-bt follow the native "
						       "frames: which of the %zu eval frames ran each could not be "
						       "determined (py-bt-full says)", py->nframes - k, neval);
	while (k < py->nframes)
		out[m++] = py->frames[k++];
	free(t->frames);
	t->frames = out;
	t->nframes = m;
	t->frames_alloc = n ? n : 1;
	for (i = 0; i < m; i++)
		t->frames[i].index = (int)i;
	t->python = 1;
	free(py->frames);
	py->frames = NULL;
	py->nframes = py->frames_alloc = 0;
}

/*
 * The py-bt block to merge among those aimed at gdb thread number num (0:
 * those with no thread header): the last py-bt-full, else the last py-bt.
 */
static size_t pybt_pick(struct tp_state *st, const unsigned char *done, int num)
{
	struct prov_crash *c = st->c;
	size_t i, src = (size_t)-1;

	for (i = 0; i < c->nthreads; i++)
		if (!done[i] && st->ti[i].fmt == TP_PYBT && st->ti[i].gdbnum == num &&
		    c->threads[i].nframes &&
		    (src == (size_t)-1 || c->threads[i].frames[0].index < 0 ||
		     c->threads[src].frames[0].index >= 0))
			src = i;
	return src;
}

/* The native thread gdb printed as number num (or with src's tid), or -1. */
static size_t pybt_target(struct tp_state *st, size_t src, int num)
{
	struct prov_crash *c = st->c;
	const struct prov_thread *py = &c->threads[src];
	size_t i;

	for (i = 0; i < c->nthreads; i++)
		if (st->ti[i].fmt == TP_GDB && st->ti[i].gdbnum == num && c->threads[i].nframes)
			return i;
	for (i = 0; py->has_tid && i < c->nthreads; i++)
		if (st->ti[i].fmt == TP_GDB && c->threads[i].has_tid && c->threads[i].tid == py->tid &&
		    c->threads[i].nframes)
			return i;
	return (size_t)-1;
}

/* Merge the chosen block of those aimed at num; mark it and its copies done (dropped). */
static void pybt_merge_one(struct tp_state *st, unsigned char *done, unsigned char *drop,
			   unsigned char *merged, int num)
{
	struct prov_crash *c = st->c;
	size_t i, src = pybt_pick(st, done, num), dst = (size_t)-1;

	if (src == (size_t)-1)
		return;
	if (num > 0) {
		dst = pybt_target(st, src, num);
	} else {
		if (c->has_crashed_thread && st->ti[c->crashed_thread].fmt == TP_GDB)
			dst = c->crashed_thread;
		for (i = src; dst == (size_t)-1 && i-- > 0;)
			if (st->ti[i].fmt == TP_GDB)
				dst = i;
		if (dst != (size_t)-1 && merged[dst])
			dst = (size_t)-1;	/* its own block (thread apply all py-bt) came first */
	}
	/* the same frames printed twice (py-bt, then py-bt-full) are one stack */
	for (i = 0; i < c->nthreads; i++)
		if (st->ti[i].fmt == TP_PYBT && st->ti[i].gdbnum == num) {
			done[i] = 1;
			if (i != src && pybt_same(&c->threads[i], &c->threads[src]))
				drop[i] = 1;
		}
	if (dst == (size_t)-1)
		return;
	if (c->threads[src].crashed)
		c->threads[dst].crashed = 1;
	pybt_into(&c->threads[dst], &c->threads[src]);
	drop[src] = 1;
	merged[dst] = 1;
	st->counts[TP_PYBT] = 0;	/* the paste is gdb's, Python frames and all */
}

void tp_pybt_merge(struct tp_state *st)
{
	struct prov_crash *c = st->c;
	size_t i, j;
	unsigned char *drop, *done, *merged;

	for (i = 0; i < c->nthreads && st->ti[i].fmt != TP_PYBT; i++)
		;
	if (i == c->nthreads)
		return;
	drop = prov_xcalloc(c->nthreads, 1);
	done = prov_xcalloc(c->nthreads, 1);
	merged = prov_xcalloc(c->nthreads, 1);
	/* blocks after a "Thread N (...)" header go to thread N; the others, last */
	for (i = 0; i < c->nthreads; i++)
		if (!done[i] && st->ti[i].fmt == TP_PYBT && st->ti[i].gdbnum > 0)
			pybt_merge_one(st, done, drop, merged, st->ti[i].gdbnum);
	pybt_merge_one(st, done, drop, merged, 0);
	for (i = 0; i < c->nthreads; i++)	/* any still standing: index from 0 */
		if (!drop[i] && st->ti[i].fmt == TP_PYBT)
			for (j = 0; j < c->threads[i].nframes; j++)
				c->threads[i].frames[j].index = (int)j;
	tp_drop_threads(st, drop);
	free(drop);
	free(done);
	free(merged);
	c->has_crashed_thread = 0;
	for (i = 0; i < c->nthreads; i++)
		if (c->threads[i].crashed) {
			c->has_crashed_thread = 1;
			c->crashed_thread = i;
			break;
		}
}
