/*
 * Sanitizer reports: ASan, LSan, MSan, TSan, UBSan, libFuzzer. The first stack after a
 * report header is the crashing thread; "freed by", "previously allocated
 * by", TSan's "Previous write" stacks become threads of their own.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "util.h"
#include "banned.h"

struct san_fr {
	int index;
	int has_pc;
	uint64_t pc;
	const char *fn, *file, *mod, *bid;
	size_t fn_len, file_len, mod_len, bid_len;
	int line, col;
	int in;	/* "0xPC in ..." */
};

static int blank(int ch)
{
	return ch == ' ' || ch == '\t';
}

/* "libfoo.so.1", "/usr/lib/libfoo.so", "Foo.dylib" */
static int looks_like_library(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (blank(s[i]) || s[i] == '(' || s[i] == '<')
			return 0;
	for (i = 0; i + 3 <= n; i++)
		if (memcmp(s + i, ".so", 3) == 0 && (i + 3 == n || s[i + 3] == '.'))
			return 1;
	return n > 6 && memcmp(s + n - 6, ".dylib", 6) == 0;
}

/* "#N [0xADDR [in]] [FUNC] [FILE:LINE[:COL]] [(MODULE+0xOFF)] [(BuildId: HEX)]" */
static int san_parse(const char *s, struct san_fr *o)
{
	const char *p, *q;
	size_t n, i;
	long open;
	uint64_t off;
	int in = 0;

	memset(o, 0, sizeof(*o));
	if (s[0] != '#' || tp_dec(&o->index, s + 1, &p) < 0 || !blank(*p))
		return 0;
	p = tp_ws(p);
	n = strlen(p);
	if (n > 10 && p[n - 1] == ')') {
		open = tp_match_open(p, n - 1);
		if (open >= 0 && strncmp(p + open, "(BuildId: ", 10) == 0) {
			o->bid = p + open + 10;
			o->bid_len = n - 1 - (size_t)open - 10;
			n = (size_t)open;
			while (n && blank(p[n - 1]))
				n--;
		}
	}
	if (n > 4 && p[n - 1] == ')') {
		open = tp_match_open(p, n - 1);
		if (open >= 0) {
			const char *plus = NULL;

			for (q = p + open; q < p + n - 1; q++)
				if (q[0] == '+' && q[1] == '0' && q[2] == 'x')
					plus = q;
			if (plus && tp_hex(&off, plus + 1, &q) == 0 && q == p + n - 1 &&
			    plus > p + open + 1) {
				o->mod = p + open + 1;
				o->mod_len = (size_t)(plus - o->mod);
				n = (size_t)open;
				while (n && blank(p[n - 1]))
					n--;
			}
		}
	}
	if (tp_hex(&o->pc, p, &q) == 0 && (blank(*q) || q == p + n || *q == '\0')) {
		o->has_pc = 1;
		if (q > p + n)
			return 0;
		n -= (size_t)(q - p);
		p = q;
		while (n && blank(*p)) {
			p++;
			n--;
		}
		if (n >= 3 && strncmp(p, "in ", 3) == 0) {
			p += 3;
			n -= 3;
			in = 1;
			o->in = 1;
		}
	}
	while (n && blank(*p)) {
		p++;
		n--;
	}
	if (n) {
		/* the last blank-separated word may be the location */
		long angle = 0, paren = 0;
		size_t sp = (size_t)-1;

		for (i = 0; i < n; i++) {
			if (p[i] == '<')
				angle++;
			else if (p[i] == '>' && angle)
				angle--;
			else if (p[i] == '(')
				paren++;
			else if (p[i] == ')' && paren)
				paren--;
			else if (blank(p[i]) && !angle && !paren)
				sp = i;
		}
		if (sp != (size_t)-1) {
			size_t path_len;
			const char *w = p + sp + 1;
			size_t wn = n - sp - 1;

			if (tp_file_line(w, wn, &path_len, &o->line, &o->col) == 0) {
				o->file = w;
				o->file_len = path_len;
				n = sp;
			} else if ((wn == 6 && memcmp(w, "<null>", 6) == 0) ||
				   (wn >= 2 && memcmp(w, "??", 2) == 0) ||
				   (wn == 10 && memcmp(w, "_asan_rtl_", 10) == 0) ||
				   (wn >= 2 && w[wn - 1] == '?' && w[wn - 2] == ':')) {
				/* a location the symbolizer did not know */
				n = sp;
			} else if (memchr(w, '/', wn) && w[wn - 1] != ')') {
				/* a file without a line */
				o->file = w;
				o->file_len = wn;
				n = sp;
			}
		} else if (!o->has_pc && !o->mod) {
			return 0;
		}
		while (n && blank(p[n - 1]))
			n--;
		/* gdb's "f () from LIB" / "f () at FILE" is no sanitizer frame */
		if ((n >= 5 && memcmp(p + n - 5, " from", 5) == 0) ||
		    (n >= 3 && memcmp(p + n - 3, " at", 3) == 0))
			return 0;
		if (!(n == 6 && memcmp(p, "<null>", 6) == 0) && n) {
			/* "#N 0xPC in TEXT" is a frame whatever TEXT is ("in Content
			 * Shell Framework:x86_64" on macOS) */
			if (!tp_plausible_function(p, n) &&
			    !(o->has_pc && in && !memchr(p, '(', n) && !memchr(p, ')', n)))
				return 0;
			o->fn = p;
			o->fn_len = n;
			/* "in libpthread.so.0": a library where the symbol would be */
			if (!o->file && !o->mod && looks_like_library(p, n)) {
				o->mod = p;
				o->mod_len = n;
				o->fn = NULL;
				o->fn_len = 0;
			}
		}
	}
	if (!o->has_pc && !o->mod && !o->file)
		return 0;
	if (!o->has_pc && !o->fn)
		return 0;
	return 1;
}

int tp_san_frame_ok(const char *s)
{
	struct san_fr fr;

	return san_parse(s, &fr);
}

int tp_san_frame_own(const char *s)
{
	struct san_fr fr;

	if (!san_parse(s, &fr))
		return 0;
	/* gdb pads "#N" to three columns: "#0  0x..." */
	return fr.mod || (fr.has_pc && fr.in && fr.index < 10 && s[2] == ' ' && s[3] == '0');
}

static int san_kind(const char *p, const char **rest)
{
	static const struct {
		const char *name;
		int fmt;
	} kinds[] = {
		{ "AddressSanitizer: ", TP_ASAN },
		{ "LeakSanitizer: ", TP_LSAN },
		{ "MemorySanitizer: ", TP_MSAN },
		{ "ThreadSanitizer: ", TP_TSAN },
		{ "UndefinedBehaviorSanitizer: ", TP_UBSAN },
		{ "HWAddressSanitizer: ", TP_ASAN },
		{ "libFuzzer: ", TP_LIBFUZZER },
	};
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((*rest = prov_skip_prefix(p, kinds[i].name)) != NULL)
			return kinds[i].fmt;
	return TP_NONE;
}

/* "freed by thread T0 here:" -> "freed by T0" */
static char *clean_name(const char *s, size_t n)
{
	struct prov_buf b = PROV_BUF_INIT;
	const char *p, *e = s + n;

	while (n && (s[n - 1] == ':' || blank(s[n - 1])))
		n--;
	if (n >= 5 && memcmp(s + n - 5, " here", 5) == 0)
		n -= 5;
	else if (n >= 3 && memcmp(s + n - 3, " at", 3) == 0)
		n -= 3;
	e = s + n;
	for (p = s; p < e;) {
		if (e - p >= 9 && memcmp(p, " of size ", 9) == 0) {
			const char *by = p;

			while (by < e && !(e - by >= 4 && memcmp(by, " by ", 4) == 0))
				by++;
			p = by;
			continue;
		}
		if (e - p >= 11 && memcmp(p, " by thread ", 11) == 0) {
			prov_buf_puts(&b, " by ");
			p += 11;
			continue;
		}
		prov_buf_putc(&b, *p++);
	}
	return prov_buf_detach(&b);
}

static void tp_san_flush(struct tp_state *st)
{
	struct prov_thread *t;
	struct prov_frame *f;

	if (!st->ub_pending)
		return;
	st->ub_pending = 0;
	/* no stack and no location: nothing to show */
	if (!st->ub_file)
		return;
	t = tp_open(st, TP_UBSAN, 1);
	if (t) {
		t->crashed = st->san_crash_next;
		st->san_crash_next = 0;
		f = tp_frame_new(st, TP_UBSAN, 0);
		if (f) {
			f->file = st->ub_file;
			st->ub_file = NULL;
			f->line = st->ub_line;
			f->column = st->ub_col;
		}
	}
	free(st->ub_file);
	st->ub_file = NULL;
	tp_close(st);
}

/* A line that is no frame: a pending runtime error waits a few lines for
 * its stack (notes, a memory dump) before it becomes a thread of its own. */
static void san_wait(struct tp_state *st)
{
	if (st->ub_pending && ++st->ub_wait <= 8)
		return;
	tp_san_flush(st);
}

int tp_san_idle(struct tp_state *st, int blank)
{
	san_wait(st);
	if (blank)
		return 0;
	/* prose inside a report: the report runs on to its SUMMARY */
	if (st->san && (st->san != TP_UBSAN || st->ub_pending))
		return 1;
	st->san = TP_NONE;
	return 0;
}

void tp_san_end(struct tp_state *st)
{
	tp_san_flush(st);
}

static void san_header(struct tp_state *st, int kind, const char *rest)
{
	const char *p, *e;
	uint64_t addr;
	size_t n;

	tp_san_flush(st);
	tp_end_block(st);
	st->san = kind;
	if (!st->san_seen_crash)
		st->san_crash_next = 1;
	free(st->san_next_name);
	st->san_next_name = NULL;
	if (prov_starts_with(rest, "SEGV ") || prov_starts_with(rest, "stack-overflow "))
		tp_set_signal(st, prov_signal_number("SIGSEGV"));
	else if (prov_starts_with(rest, "BUS "))
		tp_set_signal(st, prov_signal_number("SIGBUS"));
	else if (prov_starts_with(rest, "FPE "))
		tp_set_signal(st, prov_signal_number("SIGFPE"));
	else if (prov_starts_with(rest, "ILL "))
		tp_set_signal(st, prov_signal_number("SIGILL"));
	else if (prov_starts_with(rest, "ABRT "))
		tp_set_signal(st, prov_signal_number("SIGABRT"));
	else if (prov_starts_with(rest, "TRAP "))
		tp_set_signal(st, prov_signal_number("SIGTRAP"));
	if (((p = strstr(rest, " address ")) != NULL && tp_hex(&addr, p + 9, &e) == 0) ||
	    ((p = strstr(rest, " on 0x")) != NULL && tp_hex(&addr, p + 4, &e) == 0))
		tp_set_addr(st, addr);
	/* "(pc 0x.. bp 0x.. sp 0x.. T0)" */
	n = strlen(rest);
	if (n > 3 && rest[n - 1] == ')') {
		p = rest + n - 2;
		while (p > rest && tp_isdigit((unsigned char)*p))
			p--;
		if (*p == 'T' && p[-1] == ' ' && p < rest + n - 2)
			st->san_next_name = prov_xstrndup(p, (size_t)(rest + n - 1 - p));
	}
	if ((p = strstr(rest, "(pid=")) != NULL) {
		int64_t pid;

		for (e = p + 5; tp_isdigit((unsigned char)*e); e++)
			;
		if (*e == ')' && prov_parse_i64(&pid, p + 5, (size_t)(e - p - 5)) == 0)
			tp_set_pid(st, pid);
	}
}

static int san_frame(struct tp_state *st, const struct san_fr *o)
{
	int fmt = st->san ? st->san : TP_ASAN;
	struct prov_thread *t = tp_cur(st);
	struct tp_tinfo *ti = tp_cur_info(st);
	struct prov_frame *f;

	/* "#3 0x… (libc.so.6+0x4251f)" in the middle of a signal handler's
	 * "#N 0xADDR FUNC" list goes on with it */
	if (!st->san && t && o->index == ti->last_index + 1 &&
	    (ti->fmt == TP_SIGHANDLER || ti->fmt == TP_EUSTACK))
		fmt = ti->fmt;
	/* LLVM's "Stack dump:" prints frames in the sanitizers' shape */
	else if (!st->san && st->fmt == TP_SIGHANDLER)
		fmt = TP_SIGHANDLER;

	if (!t || ti->fmt != fmt || o->index <= ti->last_index) {
		st->ub_pending = 0;
		free(st->ub_file);
		st->ub_file = NULL;
		t = tp_open(st, fmt, 0);
		if (!t)
			return 1;
		if (st->san) {
			t->crashed = st->san_crash_next;
			if (st->san_crash_next)
				st->san_seen_crash = 1;
			st->san_crash_next = 0;
			t->name = st->san_next_name;
			st->san_next_name = NULL;
		}
	}
	f = tp_frame_new(st, fmt, o->index);
	if (!f)
		return 1;
	f->has_pc = o->has_pc;
	f->pc = o->pc;
	if (o->fn) {
		tp_set(&f->function, o->fn, o->fn_len);
		if (f->function)
			tp_strip_args(f->function);
	}
	if (o->file) {
		tp_set(&f->file, o->file, o->file_len);
		f->line = o->line;
		f->column = o->col;
	}
	if (o->mod) {
		tp_set(&f->module, o->mod, o->mod_len);
		if (f->module && o->bid)
			tp_module_note(st, f->module, strlen(f->module), o->bid, o->bid_len);
	}
	return 1;
}

int tp_san_line(struct tp_state *st, char *s, size_t indent)
{
	struct san_fr fr;
	const char *p, *rest;
	int kind;

	if (s[0] == '#' && tp_isdigit((unsigned char)s[1]) && san_parse(s, &fr))
		return san_frame(st, &fr);
	p = s;
	if (p[0] == '=' && p[1] == '=') {
		const char *e = p + 2;
		int64_t pid;

		while (tp_isdigit((unsigned char)*e))
			e++;
		if (e > p + 2 && e[0] == '=' && e[1] == '=') {
			const char *w = e[2] == ' ' ? e + 3 : e + 2;

			if (prov_parse_i64(&pid, p + 2, (size_t)(e - p - 2)) == 0 &&
			    (prov_starts_with(w, "ERROR: ") || prov_starts_with(w, "WARNING: ")))
				tp_set_pid(st, pid);
			p = w;
			if (!prov_starts_with(p, "ERROR: ") && !prov_starts_with(p, "WARNING: ")) {
				if (prov_starts_with(p, "ABORTING")) {
					tp_san_flush(st);
					tp_end_block(st);
					st->san = TP_NONE;
				}
				return 1;
			}
		}
	}
	if ((rest = prov_skip_prefix(p, "ERROR: ")) != NULL ||
	    (rest = prov_skip_prefix(p, "WARNING: ")) != NULL) {
		kind = san_kind(rest, &rest);
		if (kind != TP_NONE) {
			san_header(st, kind, rest);
			return 1;
		}
	}
	if (prov_starts_with(p, "SUMMARY: ") && strstr(p, "Sanitizer")) {
		tp_san_flush(st);
		tp_end_block(st);
		st->san = TP_NONE;
		return 1;
	}
	if (strstr(s, "Sanitizer:DEADLYSIGNAL"))
		return 1;
	/* UBSan: "file.c:2:60: runtime error: ..." */
	if ((p = strstr(s, ": runtime error: ")) != NULL) {
		size_t path_len = 0;
		int line = 0, col = 0;
		/* "<unknown>: runtime error: ..." when UBSan had no location */
		int unknown = p - s == 9 && memcmp(s, "<unknown>", 9) == 0;

		if (unknown || tp_file_line(s, (size_t)(p - s), &path_len, &line, &col) == 0) {
			tp_san_flush(st);
			tp_end_block(st);
			st->san = TP_UBSAN;
			if (!st->san_seen_crash) {
				st->san_crash_next = 1;
				st->san_seen_crash = 1;
			}
			free(st->san_next_name);
			st->san_next_name = NULL;
			st->ub_pending = 1;
			st->ub_wait = 0;
			free(st->ub_file);
			st->ub_file = unknown ? NULL : tp_strndup(s, path_len);
			st->ub_line = line;
			st->ub_col = col;
			return 1;
		}
	}
	if (!st->san)
		return 0;
	san_wait(st);
	/* "READ of size 8 at 0x... thread T0" names the crashing stack */
	if ((prov_starts_with(s, "READ of size ") || prov_starts_with(s, "WRITE of size ")) &&
	    (p = strstr(s, " thread ")) != NULL) {
		free(st->san_next_name);
		st->san_next_name = tp_strndup(p + 8, strlen(p + 8));
		return 1;
	}
	{
		size_t n = strlen(s);

		if (n > 1 && n < 256 && s[n - 1] == ':') {
			tp_close(st);
			free(st->san_next_name);
			st->san_next_name = clean_name(s, n);
			return 1;
		}
	}
	(void)indent;
	return 0;
}
