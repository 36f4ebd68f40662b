/*
 * Frames printed by programs about themselves: PyTorch/c10 ("frame #N:"),
 * glibc backtrace_symbols, and signal handlers (numbered "[N]" lines, glog's
 * "@ 0xADDR func", LLVM's "N  module 0xADDR func + off").
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "util.h"
#include "banned.h"

struct loose {
	int has_pc;
	uint64_t pc;
	const char *fn, *mod, *file;
	size_t fn_len, mod_len, file_len;
	int has_off;
	uint64_t off;
	int line, col;
};

static int blank(int ch)
{
	return ch == ' ' || ch == '\t';
}

static int has_blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (blank(s[i]))
			return 1;
	return 0;
}

/*
 * "prog" in "prog[0x40a072]": backtrace_symbols names the program as it
 * was started (argv[0]), with no path when it ran from $PATH. A word of
 * the characters file names of programs use.
 */
static int bare_program(const char *s, size_t n)
{
	size_t i;

	if (!n || n > 255 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
			       tp_isdigit((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      tp_isdigit((unsigned char)s[i]) || strchr("_.+-", s[i])))
			return 0;
	return 1;
}

/* "MODULE(FUNC+0xOFF) [0xADDR]", "MODULE(+0xOFF)[0xADDR]", "MODULE() [0xADDR]" */
static int btsym_parse(const char *s, struct loose *o)
{
	const char *open, *close, *q, *plus;
	size_t n = strlen(s);

	memset(o, 0, sizeof(*o));
	if (n < 6 || s[n - 1] != ']')
		return 0;
	open = strchr(s, '(');
	if (!open) {
		/* "./prog[0x40f19a]": no symbol, no parentheses */
		q = strchr(s, '[');
		if (!q || q == s || has_blank(s, (size_t)(q - s)) || tp_hex(&o->pc, q + 1, &plus) < 0 ||
		    plus != s + n - 1 || !(memchr(s, '/', (size_t)(q - s)) || memchr(s, '.', (size_t)(q - s)) ||
					   bare_program(s, (size_t)(q - s))))
			return 0;
		o->has_pc = 1;
		o->mod = s;
		o->mod_len = (size_t)(q - s);
		return 1;
	}
	if (open == s)
		return 0;
	close = strchr(open, ')');
	if (!close)
		return 0;
	q = tp_ws(close + 1);
	if (*q != '[' || tp_hex(&o->pc, q + 1, &q) < 0 || *q != ']' || q != s + n - 1)
		return 0;
	o->has_pc = 1;
	o->mod = s;
	o->mod_len = (size_t)(open - s);
	/* "3  ./prog(main+0x1d)[0x…]", "Backtrace: ./prog(…)[0x…]": the path is
	 * the last word before the parenthesis, and it looks like one */
	if (has_blank(o->mod, o->mod_len)) {
		const char *w = open;

		while (w > s && !blank(w[-1]))
			w--;
		if (w == open || !(memchr(w, '/', (size_t)(open - w)) || memchr(w, '.', (size_t)(open - w))))
			return 0;
		o->mod = w;
		o->mod_len = (size_t)(open - w);
	}
	plus = NULL;
	for (q = open + 1; q < close; q++)
		if (*q == '+')
			plus = q;
	if (plus) {
		uint64_t off;

		if (tp_hex(&off, plus + 1, &q) < 0 || q != close)
			return 0;
		if (plus > open + 1) {
			o->has_off = 1;
			o->off = off;
		}
	}
	o->fn = open + 1;
	o->fn_len = (size_t)((plus ? plus : close) - o->fn);
	if (o->fn_len && !tp_plausible_function(o->fn, o->fn_len))
		return 0;
	return 1;
}

/* "FUNC+0xOFF (0xADDR) [in MODULE]" / "FUNC+0xOFF(0xADDR) in MODULE" / "0xADDR in FUNC" ... */
static int loose_parse(const char *s, struct loose *o)
{
	const char *p = s, *q, *e;
	uint64_t v;

	if (btsym_parse(s, o))
		return 1;
	memset(o, 0, sizeof(*o));
	if (tp_hex(&o->pc, p, &q) == 0 && (blank(*q) || !*q)) {
		o->has_pc = 1;
		p = tp_ws(q);
		if (strncmp(p, "in ", 3) == 0)
			p = tp_ws(p + 3);
	}
	/* function: up to "+0x", " (0x", "(0x", " [0x", " in ", " at ", end */
	for (e = p; *e; e++) {
		if ((e[0] == '+' && e[1] == '0' && e[2] == 'x') || (e[0] == '(' && e[1] == '0' && e[2] == 'x') ||
		    (e[0] == ' ' && (e[1] == '(' || e[1] == '[') && e[2] == '0' && e[3] == 'x') ||
		    strncmp(e, " in ", 4) == 0 || strncmp(e, " at ", 4) == 0 || strncmp(e, " from ", 6) == 0)
			break;
	}
	if (e > p) {
		if (!tp_plausible_function(p, (size_t)(e - p)))
			return 0;
		o->fn = p;
		o->fn_len = (size_t)(e - p);
	}
	p = e;
	if (p[0] == '+' && tp_hex(&v, p + 1, &q) == 0) {
		o->has_off = 1;
		o->off = v;
		p = q;
	}
	p = tp_ws(p);
	if ((*p == '(' || *p == '[') && tp_hex(&v, p + 1, &q) == 0 && (*q == ')' || *q == ']')) {
		if (o->has_pc && o->pc != v)
			return 0;
		o->has_pc = 1;
		o->pc = v;
		p = tp_ws(q + 1);
	}
	if (strncmp(p, "in ", 3) == 0 || strncmp(p, "from ", 5) == 0) {
		p = tp_ws(p + (*p == 'i' ? 3 : 5));
		if (!*p || has_blank(p, strlen(p)))
			return 0;
		o->mod = p;
		o->mod_len = strlen(p);
		p += o->mod_len;
	} else if (strncmp(p, "at ", 3) == 0) {
		size_t path_len;

		p = tp_ws(p + 3);
		if (tp_file_line(p, strlen(p), &path_len, &o->line, &o->col) < 0)
			return 0;
		o->file = p;
		o->file_len = path_len;
		p += strlen(p);
	}
	if (*p)
		return 0;
	if (!o->has_pc || (!o->fn && !o->mod))
		return 0;
	return 1;
}

static int emit(struct tp_state *st, int fmt, int index, const struct loose *o)
{
	struct prov_thread *before = tp_cur(st);
	size_t nbefore = st->c->nthreads;
	struct prov_frame *f = tp_frame_new(st, fmt, index);

	if (!f)
		return 1;
	/* c10's "Exception raised from ... (most recent call first):" block is
	 * where it failed, under the Python traceback that called it */
	if (fmt == TP_C10 && (st->c->nthreads != nbefore || tp_cur(st) != before) && !st->c10_seen) {
		tp_cur(st)->crashed = 1;
		st->c10_seen = 1;
	}
	f->has_pc = o->has_pc;
	f->pc = o->pc;
	if (o->fn && o->fn_len) {
		tp_set(&f->function, o->fn, o->fn_len);
		if (f->function && (strcmp(f->function, "<unknown function>") == 0 ||
				    strcmp(f->function, "(unknown)") == 0 || strcmp(f->function, "??") == 0)) {
			free(f->function);
			f->function = NULL;
		}
		if (f->function)
			tp_strip_args(f->function);
	}
	/* an offset from the module, not from a symbol, is no symbol offset */
	if (f->function && o->has_off) {
		f->has_offset = 1;
		f->offset = o->off;
	}
	if (o->mod && o->mod_len)
		tp_set(&f->module, o->mod, o->mod_len);
	if (o->file) {
		tp_set(&f->file, o->file, o->file_len);
		f->line = o->line;
		f->column = o->col;
	}
	return 1;
}

/* "frame #3: FUNC + 0xOFF (0xADDR in MODULE)" */
static int c10_line(struct tp_state *st, const char *s)
{
	struct loose o;
	const char *p, *q, *in;
	size_t n;
	long open;
	int index;

	if (strncmp(s, "frame #", 7) != 0 || tp_dec(&index, s + 7, &p) < 0 || *p != ':')
		return 0;
	p = tp_ws(p + 1);
	n = strlen(p);
	memset(&o, 0, sizeof(o));
	if (n > 4 && p[n - 1] == ')' && (open = tp_match_open(p, n - 1)) > 0 &&
	    tp_hex(&o.pc, p + open + 1, &q) == 0 && strncmp(q, " in ", 4) == 0) {
		const char *plus = NULL, *x;

		o.has_pc = 1;
		in = q + 4;
		o.mod = in;
		o.mod_len = (size_t)(p + n - 1 - in);
		for (x = p; x + 4 < p + open; x++)
			if (memcmp(x, " + 0x", 5) == 0)
				plus = x;
		o.fn = p;
		o.fn_len = (size_t)open;
		if (plus && tp_hex(&o.off, plus + 3, &q) == 0) {
			o.has_off = 1;
			o.fn_len = (size_t)(plus - p);
		}
		while (o.fn_len && blank(p[o.fn_len - 1]))
			o.fn_len--;
		return emit(st, TP_C10, index, &o);
	}
	if (btsym_parse(p, &o))
		return emit(st, TP_C10, index, &o);
	/* "F from FILE:LINE" and "F (0xADDR) at FILE:LINE" (symbolized by c10) */
	{
		const char *loc = NULL, *x;
		size_t path_len;

		for (x = p; *x; x++)
			if (strncmp(x, " from ", 6) == 0 || strncmp(x, " at ", 4) == 0)
				loc = x;
		if (!loc)
			return 0;
		o.fn = p;
		o.fn_len = (size_t)(loc - p);
		q = tp_ws(loc + (loc[1] == 'f' ? 6 : 4));
		if (tp_file_line(q, strlen(q), &path_len, &o.line, &o.col) < 0)
			return 0;
		o.file = q;
		o.file_len = path_len;
		/* " (0xADDR)" after the name */
		if (o.fn_len > 4 && p[o.fn_len - 1] == ')' &&
		    (open = tp_match_open(p, o.fn_len - 1)) > 0 && tp_hex(&o.pc, p + open + 1, &x) == 0 &&
		    x == p + o.fn_len - 1) {
			o.has_pc = 1;
			o.fn_len = (size_t)open;
		}
		while (o.fn_len && blank(p[o.fn_len - 1]))
			o.fn_len--;
		if (!o.fn_len || !tp_plausible_function(p, o.fn_len))
			return 0;
		return emit(st, TP_C10, index, &o);
	}
}

#define WATCHDOG "watchdog thread terminated with exception: "

/* "*** SIGSEGV (@0x0) received by PID 1234 (TID 0x7f..) from PID 0; stack trace: ***" */
static int glog_header(struct tp_state *st, const char *s)
{
	const char *p = prov_skip_prefix(s, "*** "), *q, *e;
	char *name;
	int signo;
	uint64_t addr;

	if (!p || !strstr(p, " received by PID "))
		return 0;
	for (e = p; *e >= 'A' && *e <= 'Z'; e++)
		;
	name = prov_xstrndup(p, (size_t)(e - p));
	signo = prov_signal_number(name);
	free(name);
	if (signo > 0)
		tp_set_signal(st, signo);
	if ((q = strstr(p, "(@")) != NULL && tp_hex(&addr, q + 2, &e) == 0 && *e == ')')
		tp_set_addr(st, addr);
	if ((q = strstr(p, " received by PID ")) != NULL) {
		int64_t pid;

		q += 17;
		for (e = q; tp_isdigit((unsigned char)*e); e++)
			;
		if (e > q && prov_parse_i64(&pid, q, (size_t)(e - q)) == 0)
			tp_set_pid(st, pid);
	}
	tp_end_block(st);
	st->fmt = TP_SIGHANDLER;
	return 1;
}

/* "12  libLLVM.so.14  0x00007f5f8c3c1f7a llvm::sys::Foo() + 42" */
static int llvm_line(struct tp_state *st, const char *s)
{
	struct loose o;
	const char *p, *m, *me, *q;
	size_t n;
	int index, dec;

	if (tp_dec(&index, s, &p) < 0 || !blank(*p))
		return 0;
	m = tp_ws(p);
	for (me = m; *me && !blank(*me); me++)
		;
	if (me == m || !*me)
		return 0;
	p = tp_ws(me);
	memset(&o, 0, sizeof(o));
	if (tp_hex(&o.pc, p, &q) < 0 || !blank(*q))
		return 0;
	o.has_pc = 1;
	o.mod = m;
	o.mod_len = (size_t)(me - m);
	p = tp_ws(q);
	n = strlen(p);
	o.fn = p;
	o.fn_len = n;
	/* " + 42": a decimal offset */
	q = p + n;
	while (q > p && tp_isdigit((unsigned char)q[-1]))
		q--;
	if (q > p + 3 && q < p + n && memcmp(q - 3, " + ", 3) == 0 && tp_dec(&dec, q, &me) == 0) {
		o.has_off = 1;
		o.off = (uint64_t)dec;
		o.fn_len = (size_t)(q - 3 - p);
	}
	if (!o.fn_len || !tp_plausible_function(o.fn, o.fn_len))
		return 0;
	return emit(st, TP_SIGHANDLER, index, &o);
}

int tp_misc_line(struct tp_state *st, char *s, size_t indent)
{
	struct loose o;
	const char *p, *q;
	int index;

	if (c10_line(st, s) || glog_header(st, s))
		return 1;
	/* c10::Error's message ("what():") and where it was raised: the headline
	 * unless a Python exception line said it */
	if ((p = prov_skip_prefix(s, "what():")) != NULL) {
		p = tp_ws(p);
		tp_set(&st->c10_what, p, strlen(p));
		return 1;
	}
	if (prov_starts_with(s, "Exception raised from ")) {
		q = strstr(s, " (most recent call first)");
		if (st->c10_what)
			tp_set_headline(st, st->c10_what, strlen(st->c10_what), "c10::Error", 10, 0);
		else
			tp_set_headline(st, s, q ? (size_t)(q - s) : strlen(s), "c10::Error", 10, 0);
		return 0;	/* c10_line opens its block at the first frame */
	}
	/* NCCL / RCCL: "... Process group watchdog thread terminated with exception: MSG" */
	if ((p = strstr(s, WATCHDOG)) != NULL) {
		p += strlen(WATCHDOG);
		tp_set_headline(st, p, strlen(p), "watchdog", 8, st->py_headline);
		return 1;
	}
	/* LLVM: "Stack dump:", then numbered notes and " #N 0x… f (lib+0x…)" */
	if (strcmp(s, "Stack dump:") == 0) {
		tp_end_block(st);
		st->fmt = TP_SIGHANDLER;
		return 1;
	}
	if (st->fmt == TP_SIGHANDLER && tp_dec(&index, s, &p) == 0 && p[0] == '.' &&
	    (p[1] == '\t' || p[1] == ' '))
		return 1;	/* "0.\tProgram arguments: ..." */
	/* Chromium: "Received signal 11 SEGV_MAPERR 000000000000" */
	if ((p = prov_skip_prefix(s, "Received signal ")) != NULL && tp_dec(&index, p, &q) == 0 &&
	    (*q == ' ' || *q == '\0')) {
		tp_set_signal(st, index);
		tp_end_block(st);
		st->fmt = TP_SIGHANDLER;
		return 1;
	}
	/* OpenMPI: "Signal: Segmentation fault (11)" */
	if ((p = prov_skip_prefix(s, "Signal: ")) != NULL) {
		size_t n = strlen(p);

		q = p + n;
		if (n > 3 && q[-1] == ')') {
			const char *d = q - 1;

			while (d > p && tp_isdigit((unsigned char)d[-1]))
				d--;
			if (d > p + 1 && d[-1] == '(' && tp_dec(&index, d, &q) == 0 && *q == ')') {
				tp_set_signal(st, index);
				return 1;
			}
		}
	}
	/* "[N] ..." and "[bt] #N ..." */
	if (s[0] == '[' && tp_dec(&index, tp_ws(s + 1), &p) == 0 && p[0] == ']' && blank(p[1])) {
		if (loose_parse(tp_ws(p + 1), &o))
			return emit(st, TP_SIGHANDLER, index, &o);
		return 0;
	}
	if ((p = prov_skip_prefix(s, "[bt] ")) != NULL) {
		p = tp_ws(p);
		if (*p == '#' && tp_dec(&index, p + 1, &q) == 0 && blank(*q) && loose_parse(tp_ws(q), &o))
			return emit(st, TP_SIGHANDLER, index, &o);
		if (loose_parse(p, &o))
			return emit(st, TP_SIGHANDLER, -1, &o);
		return 0;
	}
	/* glog: "@     0x7f3b8c1b8980 foo()"; "PC: @ 0x..." is the fault pc, no frame */
	if (prov_starts_with(s, "PC: @ ") && st->fmt == TP_SIGHANDLER)
		return 1;
	/* glog kept in comments or quotes: "# @ 0x...", "> @ 0x..." */
	if ((s[0] == '#' || s[0] == '>' || s[0] == '|') && blank(s[1]) && tp_ws(s + 1)[0] == '@')
		s = (char *)tp_ws(s + 1);
	if (s[0] == '@' && blank(s[1])) {
		p = tp_ws(s + 1);
		memset(&o, 0, sizeof(o));
		if (tp_hex(&o.pc, p, &q) == 0 && (blank(*q) || !*q)) {
			size_t n;
			long open;
			int size;

			o.has_pc = 1;
			p = tp_ws(q);
			/* "@ 0x7f.. 128 foo()": a frame size column before the name */
			if (tp_dec(&size, p, &q) == 0 && blank(*q))
				p = tp_ws(q);
			n = strlen(p);
			/* "foo() (libfoo.so+0x1c)" */
			if (n > 4 && p[n - 1] == ')' && (open = tp_match_open(p, n - 1)) >= 0) {
				const char *plus = strstr(p + open, "+0x");

				if (plus && plus > p + open + 1 && tp_hex(&o.off, plus + 1, &q) == 0 &&
				    q == p + n - 1 && (open == 0 || blank(p[open - 1]))) {
					o.mod = p + open + 1;
					o.mod_len = (size_t)(plus - o.mod);
					n = (size_t)open;
					while (n && blank(p[n - 1]))
						n--;
				}
			}
			o.fn = p;
			o.fn_len = n;
			if (o.fn_len && !tp_plausible_function(p, o.fn_len))
				return 0;
			return emit(st, TP_SIGHANDLER, -1, &o);
		}
		return 0;
	}
	if (btsym_parse(s, &o))
		return emit(st, TP_BTSYM, -1, &o);
	if (tp_isdigit((unsigned char)s[0]) && llvm_line(st, s))
		return 1;
	(void)indent;
	return 0;
}
