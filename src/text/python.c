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

		if (fmt != TP_FAULTHANDLER && fmt != TP_PYTB && fmt != TP_PYSTACK)
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
	if (st->fmt == TP_FAULTHANDLER || st->fmt == TP_PYTB || st->fmt == TP_PYSTACK) {
		if (strcmp(s, "<no Python frame>") == 0 || (indent > 0 && tp_cur(st)) ||
		    (s[0] == '[' && strstr(s, "repeated")) || prov_starts_with(s, "..."))
			return 1;
	}
	(void)n;
	return 0;
}
