/*
 * valgrind memcheck: "==PID== Invalid read of size 8", then one stack per
 * error ("at 0x…: f (file.c:12)", "by 0x…: g (in /lib/libc.so.6)"), and
 * stacks for "Address … free'd" / "Block was alloc'd at". The first error's
 * stack crashed; frames are numbered from 0 as printed (no index).
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
#include "util.h"
#include "banned.h"

/* "==1234==" at s: the text after it, NULL when s does not start so */
static const char *pid_prefix(const char *s)
{
	const char *p;

	if (s[0] != '=' || s[1] != '=')
		return NULL;
	for (p = s + 2; tp_isdigit((unsigned char)*p); p++)
		;
	if (p == s + 2 || p[0] != '=' || p[1] != '=')
		return NULL;
	return p + 2;
}

/* "at 0xADDR: REST" / "by 0xADDR: REST": 1 = at, 2 = by, 0 = neither */
static int frame_kind(const char *s, uint64_t *pc, const char **rest)
{
	const char *q;
	int kind;

	if (strncmp(s, "at 0x", 5) == 0)
		kind = 1;
	else if (strncmp(s, "by 0x", 5) == 0)
		kind = 2;
	else
		return 0;
	if (tp_hex(pc, s + 3, &q) < 0 || q[0] != ':' || (q[1] != ' ' && q[1] != '\0'))
		return 0;
	*rest = tp_ws(q + 1);
	return kind;
}

static void add_frame(struct tp_state *st, uint64_t pc, const char *rest)
{
	struct prov_frame *f = tp_frame_new(st, TP_VALGRIND, -1);
	size_t n = strlen(rest), fn_len = n;
	long open;

	if (!f)
		return;
	f->has_pc = 1;
	f->pc = pc;
	/* the location is the last parenthesised group: "(file.c:12)", "(in LIB)" */
	if (n > 2 && rest[n - 1] == ')' && (open = tp_match_open(rest, n - 1)) >= 0 &&
	    (open == 0 || rest[open - 1] == ' ')) {
		const char *in = rest + open + 1;
		size_t in_len = n - 2 - (size_t)open, path_len;
		int line, col;

		if (in_len > 3 && strncmp(in, "in ", 3) == 0) {
			tp_set(&f->module, in + 3, in_len - 3);
			fn_len = (size_t)open;
		} else if (tp_file_line(in, in_len, &path_len, &line, &col) == 0) {
			tp_set(&f->file, in, path_len);
			f->line = line;
			f->column = col;
			fn_len = (size_t)open;
		}
	}
	while (fn_len && (rest[fn_len - 1] == ' ' || rest[fn_len - 1] == '\t'))
		fn_len--;
	if (fn_len && !(fn_len == 3 && memcmp(rest, "???", 3) == 0)) {
		tp_set(&f->function, rest, fn_len);
		if (f->function)
			tp_strip_args(f->function);
	}
}

/* "Process terminating with default action of signal 11 (SIGSEGV)" */
static void terminating(struct tp_state *st, const char *s)
{
	const char *p = strstr(s, " of signal "), *e;
	int signo;

	if (p && tp_dec(&signo, p + 11, &e) == 0)
		tp_set_signal(st, signo);
}

int tp_valgrind_line(struct tp_state *st, char *s, size_t indent)
{
	const char *p = pid_prefix(s), *rest;
	struct prov_thread *t;
	uint64_t pc;
	int kind;

	(void)indent;
	if (p) {
		int64_t pid;
		const char *e = s + 2;

		p = tp_ws(p);
		if (prov_starts_with(p, "Memcheck, a memory error detector")) {
			tp_end_block(st);
			st->fmt = TP_VALGRIND;
			while (tp_isdigit((unsigned char)*e))
				e++;
			if (prov_parse_i64(&pid, s + 2, (size_t)(e - s - 2)) == 0)
				tp_set_pid(st, pid);
			return 1;
		}
		/* the sanitizers' "==PID==ERROR:" lines are theirs */
		if (st->fmt != TP_VALGRIND && !frame_kind(p, &pc, &rest))
			return 0;
	} else {
		/* pasted without the "==PID==": the frame shape alone */
		p = s;
		if (!frame_kind(p, &pc, &rest))
			return 0;
	}
	kind = frame_kind(p, &pc, &rest);
	if (kind) {
		t = tp_cur(st);
		if (kind == 1 || !t || tp_cur_info(st)->fmt != TP_VALGRIND) {
			t = tp_open(st, TP_VALGRIND, 1);
			if (!t)
				return 1;
			if (!st->vg_seen)
				t->crashed = 1;
			st->vg_seen = 1;
			t->name = st->san_next_name;
			st->san_next_name = NULL;
		}
		add_frame(st, pc, rest);
		return 1;
	}
	/* any other "==PID==" line ends the stack; it may name the next one */
	tp_close(st);
	st->fmt = TP_VALGRIND;
	if (prov_starts_with(p, "Process terminating with default action of signal "))
		terminating(st, p);
	if (*p && strlen(p) < 200 && !strstr(p, "ERROR SUMMARY") && !strstr(p, "HEAP SUMMARY")) {
		free(st->san_next_name);
		st->san_next_name = tp_strndup(p, strlen(p));
	}
	return 1;
}
