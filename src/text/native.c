/*
 * Native debugger output: gdb (bt, thread apply all bt, bt full), eu-stack
 * (-s -i -m -b or plain) and systemd-coredump / coredumpctl info.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "util.h"
#include "banned.h"

static int blank(int ch)
{
	return ch == ' ' || ch == '\t';
}

/* "#12" followed by a blank: index and the text after the blanks. */
static int frame_index(int *out, const char *s, const char **rest)
{
	const char *p;

	if (s[0] != '#' || tp_dec(out, s + 1, &p) < 0 || !blank(*p))
		return -1;
	*rest = tp_ws(p);
	return 0;
}

/* ---- gdb ---- */

/*
 * Where gdb's argument list starts: the first " (" outside templates and
 * parentheses of the name itself ("(anonymous namespace)::f", "operator()").
 */
static long gdb_args_open(const char *p)
{
	long angle = 0, paren = 0;
	size_t i;

	for (i = 0; p[i]; i++) {
		char ch = p[i];

		if (strncmp(p + i, "operator", 8) == 0) {
			i += 8;
			/* the operator's own symbols: <<, (), [], -> ... */
			while (p[i] && strchr("<>=!+-*/%^&|~[](),", p[i]) && !(p[i] == '(' && i > 0 &&
										p[i - 1] == ' '))
				i++;
			if (!p[i])
				return -1;
			ch = p[i];
		}
		if (ch == '<')
			angle++;
		else if (ch == '>' && angle)
			angle--;
		else if (ch == '(' && i > 0 && p[i - 1] == ' ' && !angle && !paren)
			return (long)i;
		else if (ch == '(')
			paren++;
		else if (ch == ')' && paren)
			paren--;
	}
	return -1;
}

/*
 * "Model::ToGpu() at model.cpp:344", "f(int) from lib.so", "g()": a frame
 * printed with no blank before its argument list (seed 000's form, as
 * some tools and hand edits print it). The '(' of the list ending before
 * " at ", " from " or the end; -1 if none.
 */
static long tight_args_open(const char *p)
{
	const char *at = strstr(p, ") at "), *from = strstr(p, ") from ");
	size_t n = strlen(p), close;
	long open;

	if (at && (!from || at < from))
		close = (size_t)(at - p);
	else if (from)
		close = (size_t)(from - p);
	else if (n > 2 && p[n - 1] == ')')
		close = n - 1;
	else
		return -1;
	open = tp_match_open(p, close);
	/* a name before it, and no blank in that name */
	if (open <= 0 || memchr(p, ' ', (size_t)open))
		return -1;
	return open;
}

/* The ')' closing the '(' at p[0], minding quoted strings; -1 if none. */
static long gdb_args_close(const char *p)
{
	long depth = 0;
	size_t i;

	for (i = 0; p[i]; i++) {
		char ch = p[i];

		if (ch == '"' || ch == '\'') {
			i++;
			while (p[i] && p[i] != ch) {
				if (p[i] == '\\' && p[i + 1])
					i++;
				i++;
			}
			if (!p[i])
				return -1;
			continue;
		}
		if (ch == '(')
			depth++;
		else if (ch == ')' && --depth == 0)
			return (long)i;
	}
	return -1;
}

/*
 * 1 parsed, 0 not a gdb frame, 2 the argument list runs on (needs more), 3
 * the name or location may be wrapped to the next (indented) line.
 */
static int gdb_frame(struct tp_state *st, const char *s, int force)
{
	struct prov_frame *f;
	const char *p, *q, *fn, *rest = NULL;
	size_t fn_len, path_len = 0;
	uint64_t pc = 0;
	int index, has_pc = 0, line = 0, col = 0;
	long open, close, tight;

	if (frame_index(&index, s, &p) < 0)
		return 0;
	if (tp_hex(&pc, p, &q) == 0) {
		if (!blank(*q))
			return 0;
		q = tp_ws(q);
		if (strcmp(q, "in") == 0 && !force)
			return 3;	/* "#27 0x… in" and the name on the next line */
		if (strncmp(q, "in ", 3) != 0 && strcmp(q, "in") != 0)
			return 0;
		has_pc = 1;
		p = tp_ws(q + 2);
	}
	if (strcmp(p, "<signal handler called>") == 0) {
		f = tp_frame_new(st, TP_GDB, index);
		if (f)
			f->function = prov_xstrdup(p);
		return 1;
	}
	open = gdb_args_open(p);
	tight = open < 0 ? tight_args_open(p) : -1;
	if (tight > 0) {
		/* the name is all of "Model::ToGpu()", as gdb's own "Model::ToGpu() ()" */
		close = gdb_args_close(p + tight);
		if (close < 0)
			return 0;
		open = tight + close + 1;
	}
	if (open < 0) {
		/* "#0  func" with its argument list (and location) wrapped to
		 * the next, indented lines: gdb without an address */
		if (!has_pc && !force && *p && !strchr(p, ' ') && tp_plausible_function(p, strlen(p)) &&
		    strcmp(p, "??") != 0)
			return 3;
		/* "#27 0x… in" with the name (and its "()") on the next line */
		if (!has_pc)
			return 0;
		if (!force)
			return 3;
		f = tp_frame_new(st, TP_GDB, index);
		if (!f)
			return 1;
		f->has_pc = 1;
		f->pc = pc;
		fn_len = strlen(p);
		if (fn_len && tp_plausible_function(p, fn_len) && strcmp(p, "??") != 0)
			tp_set(&f->function, p, fn_len);
		return 1;
	}
	fn = p;
	fn_len = (size_t)open;
	while (fn_len && blank(fn[fn_len - 1]))
		fn_len--;
	if (!tp_plausible_function(fn, fn_len))
		return 0;
	/* the tight form's name ended where its (empty) list would start */
	close = tight > 0 ? -1 : gdb_args_close(p + open);
	if (close < 0 && tight <= 0) {
		if (!force)
			return 2;
	} else {
		rest = tp_ws(tight > 0 ? p + open : p + open + close + 1);
		if ((strcmp(rest, "at") == 0 || strcmp(rest, "from") == 0) && !force)
			return 3;	/* the location is on the next line */
		if (strncmp(rest, "at ", 3) == 0) {
			rest = tp_ws(rest + 3);
			/* "in syscall () at /lib64/libc.so.6": a library after "at" */
			if (tp_file_line(rest, strlen(rest), &path_len, &line, &col) < 0 &&
			    (!*rest || strchr(rest, ' ')))
				return 0;
		} else if (strncmp(rest, "from ", 5) == 0) {
			rest = tp_ws(rest + 5);
			if (!*rest)
				return 0;
		} else if (strcmp(rest, "at") == 0 || strcmp(rest, "from") == 0) {
			rest = NULL;
		} else if (*rest) {
			return 0;
		}
	}
	f = tp_frame_new(st, TP_GDB, index);
	if (!f)
		return 1;
	if (st->gdb_after_term && index == 0 && tp_cur(st)->nframes == 1)
		tp_cur_info(st)->after_term = 1;
	st->gdb_after_term = 0;
	f->has_pc = has_pc;
	f->pc = pc;
	if (!(fn_len == 2 && memcmp(fn, "??", 2) == 0))
		tp_set(&f->function, fn, fn_len);
	if (rest && line) {
		tp_set(&f->file, rest, path_len);
		f->line = line;
		f->column = col;
	} else if (rest && *rest) {
		tp_set(&f->module, rest, strlen(rest));
	}
	return 1;
}

/* "... at" / "... from" and then a path alone at column 0 */
static int wrapped_location(const struct prov_buf *b, const char *t)
{
	if (!((b->len >= 3 && memcmp(b->buf + b->len - 3, " at", 3) == 0) ||
	      (b->len >= 5 && memcmp(b->buf + b->len - 5, " from", 5) == 0)))
		return 0;
	return (*t == '/' || *t == '.') && !strchr(t, ' ');
}

static int gdb_pending_feed(struct tp_state *st, char *s, int flush)
{
	const char *t;
	char *text;
	size_t before;
	int r;

	if (!st->pending.len)
		return 0;
	t = s ? tp_ws(s) : "";
	/* a name or location wrapped to the next line is indented */
	if (flush || !*t || *t == '#' || st->pending_lines >= TP_MAX_PENDING_LINES ||
	    (st->pending_wrap && t == s && !wrapped_location(&st->pending, t))) {
		/* the list never closed: keep what the first line said */
		text = prov_buf_detach(&st->pending);
		st->pending_lines = 0;
		gdb_frame(st, text, 1);
		free(text);
		return 0;
	}
	before = st->pending.len;
	if (prov_buf_putc(&st->pending, ' ') < 0 || prov_buf_puts(&st->pending, t) < 0) {
		text = prov_buf_detach(&st->pending);
		st->pending_lines = 0;
		gdb_frame(st, text, 1);
		free(text);
		return 1;
	}
	st->pending_lines++;
	/* detach first: opening a thread for the frame flushes what is pending */
	text = prov_buf_detach(&st->pending);
	r = gdb_frame(st, text, 0);
	if (r == 2 || r == 3) {
		prov_buf_puts(&st->pending, text);
		st->pending_wrap = r == 3;
	} else if (r == 0) {
		/* what was joined is no frame: keep the lines before it */
		st->pending_lines = 0;
		text[before] = '\0';
		gdb_frame(st, text, 1);
		free(text);
		return 0;
	} else {
		st->pending_lines = 0;
	}
	free(text);
	return 1;
}

int tp_gdb_pending(struct tp_state *st, char *s)
{
	return st->pending.len && gdb_pending_feed(st, s, 0);
}

/*
 * A gdb stack goes on over a blank line or text between its frames (the
 * source line gdb prints, a prompt, a remark): only a thread header or a
 * new "#0" starts another.
 */
int tp_gdb_idle(struct tp_state *st, int blank)
{
	struct tp_tinfo *ti = tp_cur_info(st);

	(void)blank;
	return ti && ti->fmt == TP_GDB && st->fmt == TP_GDB ? 2 : 0;
}

void tp_gdb_before_close(struct tp_state *st)
{
	/* a frame still waiting for its argument list belongs to this thread */
	gdb_pending_feed(st, NULL, 1);
}

/* "SIGSEGV, Segmentation fault." */
static void gdb_signal_name(struct tp_state *st, const char *p)
{
	const char *e = p;
	char *name;
	int signo;

	/* "Program terminated with signal 11, Segmentation fault." */
	if (tp_dec(&signo, p, &e) == 0) {
		if (*e == ',' || *e == '\0')
			tp_set_signal(st, signo);
		return;
	}
	while ((*e >= 'A' && *e <= 'Z') || tp_isdigit((unsigned char)*e))
		e++;
	if (e == p || e - p > 16)
		return;
	name = prov_xstrndup(p, (size_t)(e - p));
	signo = prov_signal_number(name);
	free(name);
	if (signo > 0)
		tp_set_signal(st, signo);
}

/* "Thread 2 (Thread 0x7f.. (LWP 5229) "name"):", "Thread 3 (LWP 12):" */
static int gdb_thread_header(struct tp_state *st, const char *s)
{
	struct prov_thread *t;
	const char *p, *lwp;
	size_t n = strlen(s);
	int num;

	if (strncmp(s, "Thread ", 7) != 0 || tp_dec(&num, s + 7, &p) < 0 || strncmp(p, " (", 2) != 0)
		return 0;
	/* "...):" and, as some pastes have it, "...)" */
	if (n >= 3 && s[n - 1] == ':')
		n--;
	if (n < 2 || s[n - 1] != ')')
		return 0;
	t = tp_open(st, TP_GDB, 1);
	if (!t)
		return 1;
	tp_cur_info(st)->gdbnum = num;
	if (prov_starts_with(p, " (Thread 0x")) {
		const char *e;
		uint64_t v;

		if (tp_hex(&v, p + 9, &e) == 0)
			tp_set(&t->thread_id, p + 9, (size_t)(e - (p + 9)));
	}
	lwp = strstr(p, "(LWP ");
	if (lwp)
		lwp += 5;
	else if ((lwp = strstr(p, "(process ")) != NULL)
		lwp += 9;
	if (lwp) {
		int64_t tid;
		const char *e = lwp;

		while (tp_isdigit((unsigned char)*e))
			e++;
		if (e > lwp && prov_parse_i64(&tid, lwp, (size_t)(e - lwp)) == 0) {
			t->has_tid = 1;
			t->tid = tid;
		}
	}
	/* n ends at the ')': "... "name")" */
	if (n >= 3 && s[n - 2] == '"') {
		long i = (long)n - 3;

		while (i > 0 && s[i] != '"')
			i--;
		if (i > 0 && s[i] == '"' && s[i - 1] == ' ')
			tp_set(&t->name, s + i + 1, (size_t)(n - 3 - (size_t)i));
	}
	return 1;
}

static int gdb_line(struct tp_state *st, const char *s, size_t indent)
{
	const char *p;
	int num;

	if ((p = prov_skip_prefix(s, "Program terminated with signal ")) ||
	    (p = prov_skip_prefix(s, "Program received signal "))) {
		gdb_signal_name(st, p);
		tp_end_block(st);
		/* gdb prints the crashing frame next */
		st->gdb_after_term = 1;
		return 1;
	}
	if (strncmp(s, "Thread ", 7) == 0 && tp_dec(&num, s + 7, &p) == 0 &&
	    (p = strstr(p, " received signal ")) != NULL) {
		gdb_signal_name(st, p + 17);
		st->gdb_crashed_num = num;
		tp_end_block(st);
		return 1;
	}
	if ((p = prov_skip_prefix(s, "[Current thread is ")) && tp_dec(&num, p, &p) == 0) {
		const char *lwp = strstr(p, "(LWP ");
		int64_t tid;
		const char *e;

		st->gdb_crashed_num = num;
		if (!lwp && (lwp = strstr(p, "(process ")) != NULL)
			lwp += 4;
		if (lwp) {
			lwp += 5;
			for (e = lwp; tp_isdigit((unsigned char)*e); e++)
				;
			if (prov_parse_i64(&tid, lwp, (size_t)(e - lwp)) == 0) {
				st->has_crashed_lwp = 1;
				st->crashed_lwp_current = 1;
				st->crashed_lwp = tid;
			}
		}
		if (prov_starts_with(p, " (Thread 0x")) {
			uint64_t v;

			if (tp_hex(&v, p + 9, &e) == 0)
				tp_set(&st->crashed_thread_id, p + 9, (size_t)(e - (p + 9)));
		}
		return 1;
	}
	if ((p = prov_skip_prefix(s, "[Switching to Thread ")) != NULL) {
		const char *lwp = strstr(p, "(LWP ");
		int64_t tid;
		const char *e;

		if (lwp && !st->has_crashed_lwp) {
			lwp += 5;
			for (e = lwp; tp_isdigit((unsigned char)*e); e++)
				;
			if (prov_parse_i64(&tid, lwp, (size_t)(e - lwp)) == 0) {
				st->has_crashed_lwp = 1;
				st->crashed_lwp = tid;
			}
		}
		return 1;
	}
	if (gdb_thread_header(st, s))
		return 1;
	if (st->fmt != TP_GDB)
		return 0;
	/* inside a gdb block */
	if ((p = prov_skip_prefix(s, "at ")) != NULL) {
		struct prov_frame *f = tp_last_frame(st);
		size_t path_len;
		int line, col;

		p = tp_ws(p);
		if (f && !f->file && !strchr(p, '=') &&
		    tp_file_line(p, strlen(p), &path_len, &line, &col) == 0) {
			tp_set(&f->file, p, path_len);
			f->line = line;
			f->column = col;
			return 1;
		}
	}
	if ((p = prov_skip_prefix(s, "from ")) != NULL) {
		struct prov_frame *f = tp_last_frame(st);

		p = tp_ws(p);
		if (f && !f->module && !f->file && *p && !strchr(p, '=') && !strchr(p, ' ')) {
			tp_set(&f->module, p, strlen(p));
			return 1;
		}
	}
	if ((p = prov_skip_prefix(s, "Backtrace stopped: ")) != NULL) {
		struct prov_thread *t = tp_cur(st);

		if (t && !t->unwind_error)
			tp_set(&t->unwind_error, p, strlen(p));
		return 1;
	}
	/*
	 * bt full: locals are indented, but a long value wraps to column 0
	 * ("{x = 0, y = 0}", "<repeats 3 times>}"); gdb's warnings come
	 * between a thread header and its frames
	 */
	if (indent == 0 && (strchr("{}<\"'", s[0]) || strstr(s, " = ") ||
			    prov_starts_with(s, "warning: ") || prov_starts_with(s, "BFD: ")))
		return 1;
	if (indent > 0 || strcmp(s, "No locals.") == 0 ||
	    strcmp(s, "No symbol table info available.") == 0 ||
	    strcmp(s, "(More stack frames follow...)") == 0)
		return 1;
	return 0;
}

/* ---- eu-stack ---- */

/* "#N  0xADDR [FUNC] [- MODULE]"; 0 when the line is not this shape. */
static int eustack_frame(struct tp_state *st, const char *s)
{
	struct prov_frame *f;
	const char *p, *q, *dash;
	uint64_t pc;
	size_t n;
	int index;

	if (frame_index(&index, s, &p) < 0 || tp_hex(&pc, p, &q) < 0)
		return 0;
	if (*q && !blank(*q))
		return 0;
	p = tp_ws(q);
	n = strlen(p);
	/* sanitizer and coredumpctl shapes end in "(module+0xoff)" */
	if (strncmp(p, "in ", 3) == 0 || *p == '(' || (n && p[n - 1] == ')' && strstr(p, "+0x")))
		return 0;
	dash = NULL;
	if (strncmp(p, "- ", 2) == 0)
		dash = p;
	else
		for (q = p; (q = strstr(q, " - ")) != NULL; q++)
			dash = q;
	if (!dash && !tp_plausible_function(p, n) && n)
		return 0;
	/*
	 * eu-stack prints "PID"/"TID" headers and "- MODULE"; without either,
	 * "#N 0xADDR FUNC" is a program's own signal handler (Chromium's
	 * base::debug::StackTrace)
	 */
	f = tp_frame_new(st, st->fmt == TP_EUSTACK || dash ? TP_EUSTACK : TP_SIGHANDLER, index);
	if (!f)
		return 1;
	f->has_pc = 1;
	f->pc = pc;
	if (dash) {
		const char *m = dash + (*dash == '-' ? 2 : 3);

		tp_set(&f->function, p, (size_t)(dash - p));
		tp_set(&f->module, m, strlen(m));
	} else {
		tp_set(&f->function, p, n);
	}
	if (f->function && strcmp(f->function, "??") == 0) {
		free(f->function);
		f->function = NULL;
	}
	/* a handler prints the name with its parameter types */
	if (f->function && tp_cur_info(st)->fmt == TP_SIGHANDLER)
		tp_strip_args(f->function);
	return 1;
}

static int eustack_line(struct tp_state *st, const char *s, size_t indent)
{
	const char *p;
	int64_t id;

	if ((p = prov_skip_prefix(s, "PID ")) != NULL) {
		const char *e = p;

		while (tp_isdigit((unsigned char)*e))
			e++;
		if (e > p && strncmp(e, " - ", 3) == 0 &&
		    prov_parse_i64(&id, p, (size_t)(e - p)) == 0) {
			tp_end_block(st);
			tp_set_pid(st, id);
			st->fmt = TP_EUSTACK;
			return 1;
		}
	}
	if ((p = prov_skip_prefix(s, "TID ")) != NULL) {
		size_t n = strlen(p);
		struct prov_thread *t;

		if (n >= 2 && p[n - 1] == ':' && prov_parse_i64(&id, p, n - 1) == 0) {
			t = tp_open(st, TP_EUSTACK, 1);
			if (t) {
				t->has_tid = 1;
				t->tid = id;
			}
			return 1;
		}
	}
	if (indent == 0)
		return 0;
	/* eu-stack pasted without its PID/TID lines reads as a handler's "#N
	 * 0xADDR FUNC" list: its indented source and build-id lines still go
	 * with the frame above */
	if (st->fmt == TP_SIGHANDLER && tp_last_frame(st) &&
	    (*s == '[' || strchr(s, ':')) && !strchr(s, ' ')) {
		size_t path_len;
		int line, col;

		if (*s != '[' && tp_file_line(s, strlen(s), &path_len, &line, &col) < 0)
			return 0;
	} else if (st->fmt != TP_EUSTACK) {
		return 0;
	}
	/* -b: "[buildid]@0xbase+0xoff"; -s: "/src/file.c:42:7" */
	if (*s == '[') {
		struct prov_frame *f = tp_last_frame(st);
		const char *e = strchr(s, ']');

		if (f && f->module && e && e > s + 1)
			tp_module_note(st, f->module, strlen(f->module), s + 1,
				       (size_t)(e - s - 1));
		return 1;
	} else {
		struct prov_frame *f = tp_last_frame(st);
		size_t path_len;
		int line, col;

		if (f && !f->file && tp_file_line(s, strlen(s), &path_len, &line, &col) == 0) {
			tp_set(&f->file, s, path_len);
			f->line = line;
			f->column = col;
		}
	}
	return 1;
}

/* ---- systemd-coredump / coredumpctl info ---- */

/* "#N  0xADDR FUNC (MODULE + 0xOFF)" */
static int coredump_frame(struct tp_state *st, const char *s)
{
	struct prov_frame *f;
	const char *p, *q, *plus;
	uint64_t pc, off;
	size_t n;
	long open;
	int index;

	if (frame_index(&index, s, &p) < 0 || tp_hex(&pc, p, &q) < 0 || !blank(*q))
		return 0;
	p = tp_ws(q);
	n = strlen(p);
	if (n < 8 || p[n - 1] != ')')
		return 0;
	open = tp_match_open(p, n - 1);
	if (open < 0)
		return 0;
	plus = strstr(p + open, " + 0x");
	if (!plus) {
		/* old systemd: "n/a (/tmp/a.out)" without an offset */
		const char *m = p + open + 1;

		if (!st->coredump_seen || (*m != '/' && !strstr(m, ".so")) ||
		    memchr(m, ' ', (size_t)(p + n - 1 - m)))
			return 0;
		plus = p + n - 1;
	} else if (tp_hex(&off, plus + 3, &q) < 0 || q != p + n - 1) {
		return 0;
	}
	f = tp_frame_new(st, TP_COREDUMPCTL, index);
	if (!f)
		return 1;
	f->has_pc = 1;
	f->pc = pc;
	tp_set(&f->function, p, (size_t)open);
	if (f->function && strcmp(f->function, "n/a") == 0) {
		free(f->function);
		f->function = NULL;
	}
	if (f->function)
		tp_strip_args(f->function);
	tp_set(&f->module, p + open + 1, (size_t)(plus - p - open - 1));
	if (f->module && strcmp(f->module, "n/a") == 0) {
		free(f->module);
		f->module = NULL;
	}
	return 1;
}

static int coredump_line(struct tp_state *st, const char *s)
{
	const char *p, *e;
	int64_t id;
	int num;

	if ((p = prov_skip_prefix(s, "Stack trace of thread ")) != NULL) {
		size_t n = strlen(p);
		struct prov_thread *t;

		if (n < 2 || p[n - 1] != ':' || prov_parse_i64(&id, p, n - 1) < 0)
			return 0;
		t = tp_open(st, TP_COREDUMPCTL, 1);
		if (t) {
			t->has_tid = 1;
			t->tid = id;
			if (!st->coredump_seen)
				t->crashed = 1;
		}
		st->coredump_seen = 1;
		return 1;
	}
	if ((p = prov_skip_prefix(s, "Signal: ")) != NULL && tp_dec(&num, p, &e) == 0 &&
	    (*e == '\0' || *e == ' ')) {
		tp_set_signal(st, num);
		st->coredump_seen = 1;
		tp_end_block(st);
		return 1;
	}
	if ((p = prov_skip_prefix(s, "PID: ")) != NULL) {
		for (e = p; tp_isdigit((unsigned char)*e); e++)
			;
		if (e > p && (*e == '\0' || *e == ' ') && prov_parse_i64(&id, p, (size_t)(e - p)) == 0) {
			tp_set_pid(st, id);
			st->coredump_seen = 1;
			tp_end_block(st);
			return 1;
		}
	}
	if ((p = prov_skip_prefix(s, "Message: ")) != NULL)
		s = p;
	if ((p = prov_skip_prefix(s, "Process ")) != NULL && strstr(p, " dumped core")) {
		for (e = p; tp_isdigit((unsigned char)*e); e++)
			;
		if (e > p && prov_parse_i64(&id, p, (size_t)(e - p)) == 0)
			tp_set_pid(st, id);
		st->coredump_seen = 1;
		tp_end_block(st);
		return 1;
	}
	if (!st->coredump_seen)
		return 0;
	if ((p = prov_skip_prefix(s, "Executable: ")) != NULL && st->c->has_process) {
		if (!st->c->process.executable)
			tp_set(&st->c->process.executable, p, strlen(p));
		tp_end_block(st);
		return 1;
	}
	if ((p = prov_skip_prefix(s, "Command Line: ")) != NULL && st->c->has_process) {
		if (!st->c->process.cmdline)
			tp_set(&st->c->process.cmdline, p, strlen(p));
		tp_end_block(st);
		return 1;
	}
	if ((p = prov_skip_prefix(s, "Module ")) != NULL) {
		const char *bid = NULL, *b;
		size_t bid_len = 0;

		for (e = p; *e && *e != ' ' && *e != ','; e++)
			;
		if (e == p)
			return 0;
		if ((b = strstr(e, "build-id ")) != NULL)
			bid = b + 9;
		else if ((b = strstr(e, "build-id=")) != NULL)
			bid = b + 9;
		if (bid)
			while (tp_isxdigit((unsigned char)bid[bid_len]))
				bid_len++;
		tp_close(st);
		tp_module_note(st, p, (size_t)(e - p), bid, bid_len);
		return 1;
	}
	return 0;
}

int tp_native_line(struct tp_state *st, char *s, size_t indent)
{
	int r;

	if (s[0] == '#' && tp_isdigit((unsigned char)s[1])) {
		if ((st->san && tp_san_frame_ok(s)) || tp_san_frame_own(s))
			return 0;
		if (st->fmt == TP_EUSTACK && eustack_frame(st, s))
			return 1;
		if (st->fmt == TP_COREDUMPCTL && coredump_frame(st, s))
			return 1;
		r = gdb_frame(st, s, 0);
		if (r == 2 || r == 3) {
			prov_buf_reset(&st->pending);
			if (prov_buf_puts(&st->pending, s) == 0)
				st->pending_lines = 1;
			st->pending_wrap = r == 3;
			return 1;
		}
		if (r)
			return 1;
		if (coredump_frame(st, s) || eustack_frame(st, s))
			return 1;
		return 0;
	}
	if (eustack_line(st, s, indent) || coredump_line(st, s))
		return 1;
	return gdb_line(st, s, indent);
}

/* ---- which gdb thread crashed ---- */

/* 1: a's frames are b's first frames (2: all of them) */
static int same_frames(const struct prov_thread *a, const struct prov_thread *b)
{
	size_t i;

	if (a->nframes > b->nframes)
		return 0;
	for (i = 0; i < a->nframes; i++) {
		const struct prov_frame *x = &a->frames[i], *y = &b->frames[i];

		/* gdb's "#0 0x… in ?? ()" before it loaded the libraries: the
		 * same pc, no symbol yet */
		if (a->nframes == 1 && !x->function && !x->file && x->has_pc && y->has_pc &&
		    x->pc == y->pc && x->index == y->index)
			continue;
		if (x->index != y->index || x->has_pc != y->has_pc || x->pc != y->pc ||
		    x->line != y->line || !tp_str_eq(x->function, y->function) ||
		    !tp_str_eq(x->file, y->file))
			return 0;
	}
	return a->nframes == b->nframes ? 2 : 1;
}

/*
 * `bt` followed by `thread apply all bt` (or `bt full`) prints the current
 * thread twice: keep the copy with a thread header, remember it was `bt`'s.
 * A copy that is only the first frames (gdb's "#0 ..." line when it loads a
 * core) goes too.
 */
static void dedupe_gdb(struct tp_state *st)
{
	struct prov_crash *c = st->c;
	size_t i, j, budget = 20000000;
	unsigned char *drop;
	int any = 0, r;

	if (!c->nthreads)
		return;
	drop = prov_xcalloc(c->nthreads, 1);
	for (i = 0; i < c->nthreads; i++) {
		if (st->ti[i].fmt != TP_GDB || !st->ti[i].bare || c->threads[i].has_tid)
			continue;
		for (j = 0; j < c->nthreads && budget; j++, budget--) {
			if (j == i || drop[j] || st->ti[j].fmt != TP_GDB)
				continue;
			/* gdb prints the current frame alone when it loads a core */
			r = same_frames(&c->threads[i], &c->threads[j]);
			if (!r || (r == 2 && !c->threads[j].has_tid && j > i))
				continue;
			st->ti[j].bare = 1;
			drop[i] = 1;
			any = 1;
			break;
		}
	}
	if (any)
		tp_drop_threads(st, drop);
	free(drop);
}

static int same_frame0(const struct prov_frame *a, const struct prov_frame *b, int by_pc)
{
	if (by_pc)
		return a->has_pc && b->has_pc && a->pc == b->pc;
	return a->function && tp_str_eq(a->function, b->function) && tp_str_eq(a->file, b->file) &&
	       a->line == b->line;
}

/*
 * The frame gdb printed after "Program terminated with signal" is the
 * crashing thread's #0: the thread whose #0 has its pc (else its function,
 * file and line). The one-frame copy goes. (size_t)-1 when none matches.
 */
static size_t gdb_term_thread(struct tp_state *st)
{
	struct prov_crash *c = st->c;
	size_t i, j, k;
	int by_pc;

	for (i = 0; i < c->nthreads; i++) {
		if (!st->ti[i].after_term || c->threads[i].nframes != 1)
			continue;
		for (by_pc = 1; by_pc >= 0; by_pc--)
			for (j = 0; j < c->nthreads; j++) {
				if (j == i || st->ti[j].fmt != TP_GDB || !c->threads[j].nframes ||
				    !same_frame0(&c->threads[i].frames[0], &c->threads[j].frames[0], by_pc))
					continue;
				k = j > i ? j - 1 : j;
				tp_drop_thread(st, i);
				return k;
			}
	}
	return (size_t)-1;
}

/* The only gdb thread holding "<signal handler called>". */
static size_t gdb_handler_thread(struct tp_state *st)
{
	struct prov_crash *c = st->c;
	size_t i, k, pick = (size_t)-1;

	for (i = 0; i < c->nthreads; i++) {
		if (st->ti[i].fmt != TP_GDB)
			continue;
		for (k = 0; k < c->threads[i].nframes; k++) {
			const char *fn = c->threads[i].frames[k].function;

			if (fn && strcmp(fn, "<signal handler called>") == 0)
				break;
		}
		if (k == c->threads[i].nframes)
			continue;
		if (pick != (size_t)-1)
			return (size_t)-1;
		pick = i;
	}
	return pick;
}

size_t tp_gdb_settle(struct tp_state *st)
{
	struct prov_crash *c = st->c;
	size_t i, pick = (size_t)-1;

	dedupe_gdb(st);
	if (st->gdb_crashed_num > 0)
		for (i = 0; i < c->nthreads && pick == (size_t)-1; i++)
			if ((st->ti[i].fmt == TP_GDB || st->ti[i].fmt == TP_PYBT) &&
			    st->ti[i].gdbnum == st->gdb_crashed_num)
				pick = i;
	if (pick == (size_t)-1 && st->has_crashed_lwp)
		for (i = 0; i < c->nthreads && pick == (size_t)-1; i++)
			if (c->threads[i].has_tid && c->threads[i].tid == st->crashed_lwp)
				pick = i;
	if (pick == (size_t)-1)
		pick = gdb_term_thread(st);
	if (pick == (size_t)-1)
		pick = gdb_handler_thread(st);
	if (pick == (size_t)-1)
		for (i = 0; i < c->nthreads && pick == (size_t)-1; i++)
			if (st->ti[i].fmt == TP_GDB && st->ti[i].bare)
				pick = i;
	/* a bare `bt` after "[Current thread is N (Thread 0x… (LWP X))]" is
	 * that thread's: it takes the tid and id gdb named */
	if (pick != (size_t)-1 && st->ti[pick].fmt == TP_GDB && st->ti[pick].bare &&
	    !st->ti[pick].gdbnum && !c->threads[pick].has_tid && !c->threads[pick].thread_id &&
	    st->gdb_crashed_num > 0) {
		if (st->has_crashed_lwp && st->crashed_lwp_current) {
			c->threads[pick].has_tid = 1;
			c->threads[pick].tid = st->crashed_lwp;
		}
		if (st->crashed_thread_id)
			c->threads[pick].thread_id = prov_xstrdup(st->crashed_thread_id);
	}
	return pick;
}
