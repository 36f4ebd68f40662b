/*
 * Text backtraces: the driver. Splits the input into lines (capped), strips
 * log prefixes, hands each line to the format families (parse-*.c), keeps the
 * threads and modules, and settles which thread crashed at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "parse-internal.h"
#include "textparse.h"
#include "util.h"
#include "banned.h"

static const char *const fmt_names[TP_NFMT] = {
	[TP_NONE] = NULL,
	[TP_GDB] = "gdb",
	[TP_EUSTACK] = "eu-stack",
	[TP_COREDUMPCTL] = "coredumpctl",
	[TP_ASAN] = "asan",
	[TP_UBSAN] = "ubsan",
	[TP_TSAN] = "tsan",
	[TP_MSAN] = "msan",
	[TP_LSAN] = "lsan",
	[TP_LIBFUZZER] = "libfuzzer",
	[TP_FAULTHANDLER] = "faulthandler",
	[TP_PYTB] = "python-traceback",
	[TP_PYSTACK] = "pystack",
	[TP_C10] = "c10",
	[TP_BTSYM] = "backtrace_symbols",
	[TP_SIGHANDLER] = "signal-handler",
};

const char *tp_fmt_name(int fmt)
{
	if (fmt <= TP_NONE || fmt >= TP_NFMT)
		return NULL;
	return fmt_names[fmt];
}

/* ---- string helpers ---- */

int tp_isdigit(int ch)
{
	return ch >= '0' && ch <= '9';
}

int tp_isxdigit(int ch)
{
	return tp_isdigit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

static int is_blank(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

const char *tp_ws(const char *s)
{
	while (is_blank((unsigned char)*s))
		s++;
	return s;
}

char *tp_strndup(const char *s, size_t n)
{
	while (n && is_blank((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && is_blank((unsigned char)s[n - 1]))
		n--;
	return prov_xstrndup(s, n);
}

void tp_set(char **dst, const char *s, size_t n)
{
	free(*dst);
	*dst = tp_strndup(s, n);
	if (!**dst) {
		free(*dst);
		*dst = NULL;
	}
}

int tp_hex(uint64_t *out, const char *s, const char **end)
{
	const char *p = s;

	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return -1;
	p += 2;
	while (tp_isxdigit((unsigned char)*p))
		p++;
	if (p == s + 2 || p - s > 18)
		return -1;
	if (prov_parse_u64(out, s, (size_t)(p - s), 16) < 0)
		return -1;
	*end = p;
	return 0;
}

int tp_dec(int *out, const char *s, const char **end)
{
	const char *p = s;

	while (tp_isdigit((unsigned char)*p))
		p++;
	if (p == s || p - s > 9)
		return -1;
	if (prov_parse_int(out, s, (size_t)(p - s)) < 0)
		return -1;
	*end = p;
	return 0;
}

static int all_digits(const char *s, size_t n)
{
	size_t i;

	if (!n || n > 9)
		return 0;
	for (i = 0; i < n; i++)
		if (!tp_isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

int tp_file_line(const char *s, size_t n, size_t *path_len, int *line, int *col)
{
	size_t i, c1 = 0, c2 = 0;
	int have1 = 0, have2 = 0;

	/* the last one or two ":digits" groups */
	for (i = n; i > 0; i--) {
		if (s[i - 1] == ':') {
			if (!have1) {
				c1 = i - 1;
				have1 = 1;
			} else {
				c2 = i - 1;
				have2 = 1;
				break;
			}
		} else if (!tp_isdigit((unsigned char)s[i - 1])) {
			break;
		}
	}
	if (!have1 || !all_digits(s + c1 + 1, n - c1 - 1))
		return -1;
	if (have2 && all_digits(s + c2 + 1, c1 - c2 - 1) && c2 > 0) {
		if (prov_parse_int(line, s + c2 + 1, c1 - c2 - 1) < 0 ||
		    prov_parse_int(col, s + c1 + 1, n - c1 - 1) < 0)
			return -1;
		*path_len = c2;
		return 0;
	}
	if (c1 == 0)
		return -1;
	if (prov_parse_int(line, s + c1 + 1, n - c1 - 1) < 0)
		return -1;
	*col = 0;
	*path_len = c1;
	return 0;
}

long tp_match_open(const char *s, size_t close)
{
	long depth = 0;
	size_t i = close + 1;

	while (i > 0) {
		i--;
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return (long)i;
	}
	return -1;
}

void tp_strip_args(char *fn)
{
	size_t n = strlen(fn);
	long open;

	for (;;) {
		while (n && is_blank((unsigned char)fn[n - 1]))
			n--;
		if (n >= 6 && memcmp(fn + n - 6, " const", 6) == 0)
			n -= 6;
		else if (n >= 9 && memcmp(fn + n - 9, " volatile", 9) == 0)
			n -= 9;
		else if (n >= 2 && (memcmp(fn + n - 2, " &", 2) == 0))
			n -= 2;
		else if (n >= 3 && (memcmp(fn + n - 3, " &&", 3) == 0))
			n -= 3;
		else
			break;
	}
	fn[n] = '\0';
	if (!n || fn[n - 1] != ')')
		return;
	open = tp_match_open(fn, n - 1);
	if (open <= 0)
		return;
	/* "operator()" itself is a name, not an argument list */
	if ((size_t)open + 2 == n && open >= 8 && memcmp(fn + open - 8, "operator", 8) == 0)
		return;
	while (open > 0 && is_blank((unsigned char)fn[open - 1]))
		open--;
	if (open > 0)
		fn[open] = '\0';
}

int tp_plausible_function(const char *s, size_t n)
{
	size_t i;
	int angle = 0, paren = 0, space = 0, op = 0, scoped = 0;

	if (!n || n > 8192)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch == 0x7f)
			return 0;
		if (ch == '<')
			angle++;
		else if (ch == '>' && angle)
			angle--;
		else if (ch == '(')
			paren++;
		else if (ch == ')' && paren)
			paren--;
		else if (ch == ' ' && !angle && !paren)
			space = 1;
		if (ch == 'o' && n - i >= 8 && memcmp(s + i, "operator", 8) == 0)
			op = 1;
		if ((ch == ':' && i + 1 < n && s[i + 1] == ':') || ch == '(' || ch == '<')
			scoped = 1;
	}
	/*
	 * spaces outside templates and argument lists: "operator new", a C++
	 * name with its return type, qualifiers or a thunk ("void ns::f<int>()",
	 * "Foo::bar() const", "non-virtual thunk to X::y()"); prose has none of
	 * "::", "(" or "<"
	 */
	if (space && !op && !scoped)
		return 0;
	if (space && !op) {
		/* "(LWP 12) f (a=1) at x.c:3" is a whole line, not a name */
		if (s[0] == '(' && !(n >= 21 && memcmp(s, "(anonymous namespace)", 21) == 0))
			return 0;
		for (i = 0; i + 4 <= n; i++)
			if (memcmp(s + i, " at ", 4) == 0 || (i + 6 <= n && memcmp(s + i, " from ", 6) == 0))
				return 0;
	}
	return 1;
}

/* ---- threads, frames, modules ---- */

struct prov_thread *tp_cur(struct tp_state *st)
{
	if (!st->open || !st->c->nthreads)
		return NULL;
	return &st->c->threads[st->c->nthreads - 1];
}

struct tp_tinfo *tp_cur_info(struct tp_state *st)
{
	if (!st->open || !st->c->nthreads)
		return NULL;
	return &st->ti[st->c->nthreads - 1];
}

void tp_close(struct tp_state *st)
{
	struct prov_thread *t;
	struct tp_tinfo *ti;
	size_t i;

	/* a frame still waiting for its argument list belongs to this thread */
	tp_gdb_pending_feed(st, NULL, 1);
	t = tp_cur(st);
	ti = tp_cur_info(st);
	if (!t) {
		st->open = 0;
		return;
	}
	st->open = 0;
	if (ti->reverse && t->nframes > 1) {
		for (i = 0; i < t->nframes / 2; i++) {
			struct prov_frame tmp = t->frames[i];

			t->frames[i] = t->frames[t->nframes - 1 - i];
			t->frames[t->nframes - 1 - i] = tmp;
		}
	}
	if (ti->reverse)
		for (i = 0; i < t->nframes; i++)
			t->frames[i].index = (int)i;
	/* eu-stack -i prints an inlined frame with its caller's pc */
	if (ti->fmt == TP_EUSTACK)
		for (i = 0; i + 1 < t->nframes; i++)
			if (t->frames[i].has_pc && t->frames[i + 1].has_pc &&
			    t->frames[i].pc == t->frames[i + 1].pc)
				t->frames[i].inlined = 1;
	/* gdb prints no address for a frame whose callee was inlined into it */
	if (ti->fmt == TP_GDB)
		for (i = 1; i < t->nframes; i++)
			if (!t->frames[i].has_pc && t->frames[i].index > 0 &&
			    !(t->frames[i].function &&
			      strcmp(t->frames[i].function, "<signal handler called>") == 0))
				t->frames[i - 1].inlined = 1;
}

void tp_end_block(struct tp_state *st)
{
	tp_close(st);
	st->fmt = TP_NONE;
	free(st->learned);
	st->learned = NULL;
	st->learned_len = 0;
}

struct prov_thread *tp_open(struct tp_state *st, int fmt, int is_explicit)
{
	struct prov_thread *t;
	struct tp_tinfo *ti;

	tp_close(st);
	if (st->c->nthreads >= PROV_MAX_THREADS) {
		if (!st->warned_threads)
			prov_warn("'%s': more than %d threads, the rest are ignored",
				  st->name, PROV_MAX_THREADS);
		st->warned_threads = 1;
		return NULL;
	}
	t = prov_crash_add_thread(st->c);
	PROV_ALLOC_GROW(st->ti, st->c->nthreads, st->ti_alloc);
	ti = &st->ti[st->c->nthreads - 1];
	memset(ti, 0, sizeof(*ti));
	ti->fmt = fmt;
	ti->last_index = -1;
	ti->is_explicit = is_explicit;
	st->open = 1;
	st->fmt = fmt;
	return t;
}

struct prov_frame *tp_frame_new(struct tp_state *st, int fmt, int index)
{
	struct prov_thread *t = tp_cur(st);
	struct tp_tinfo *ti = tp_cur_info(st);
	struct prov_frame *f;

	/* gdb repeats an index now and then ("#6 0x0 in ?? ()" then "#6 f (...)") */
	if (t && (ti->fmt != fmt ||
		  (index >= 0 && (index < ti->last_index ||
				  (index == ti->last_index && (fmt != TP_GDB || index == 0))))))
		t = NULL;
	if (!t) {
		t = tp_open(st, fmt, 0);
		if (!t)
			return NULL;
		ti = tp_cur_info(st);
		if (fmt == TP_GDB)
			ti->bare = 1;
	}
	st->fmt = fmt;
	if (st->total_frames >= TP_MAX_TOTAL_FRAMES) {
		if (!st->warned_frames)
			prov_warn("'%s': more than %zu frames, the rest are ignored",
				  st->name, TP_MAX_TOTAL_FRAMES);
		st->warned_frames = 1;
		return NULL;
	}
	f = prov_thread_add_frame(t);
	if (!f)
		return NULL;
	st->total_frames++;
	f->index = index >= 0 ? index : (int)(t->nframes - 1);
	if (index >= 0)
		ti->last_index = index;
	if (!st->counts[fmt])
		st->first_fmt[fmt] = ++st->nseen;
	st->counts[fmt]++;
	return f;
}

struct prov_frame *tp_last_frame(struct tp_state *st)
{
	struct prov_thread *t = tp_cur(st);

	if (!t || !t->nframes)
		return NULL;
	return &t->frames[t->nframes - 1];
}

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

void tp_module_note(struct tp_state *st, const char *path, size_t len,
		    const char *build_id, size_t bid_len)
{
	struct tp_modhash *mh = &st->mods;
	struct prov_module *m = NULL;
	size_t i, slot;
	uint64_t h;

	while (len && is_blank((unsigned char)*path)) {
		path++;
		len--;
	}
	while (len && is_blank((unsigned char)path[len - 1]))
		len--;
	if (!len || len > 4096)
		return;
	h = hash_bytes(path, len);
	slot = (size_t)(h & (mh->nslots - 1));
	for (;;) {
		size_t k = mh->slots[slot];

		if (!k)
			break;
		m = &st->c->modules[k - 1];
		if (strlen(m->path) == len && memcmp(m->path, path, len) == 0)
			break;
		m = NULL;
		slot = (slot + 1) & (mh->nslots - 1);
	}
	if (!m) {
		if (st->c->nmodules >= PROV_MAX_MODULES) {
			if (!st->warned_modules)
				prov_warn("'%s': more than %d modules, the rest are ignored",
					  st->name, PROV_MAX_MODULES);
			st->warned_modules = 1;
			return;
		}
		m = prov_crash_add_module(st->c);
		m->path = prov_xstrndup(path, len);
		mh->slots[slot] = st->c->nmodules;
		/* keep the table at most half full */
		if (st->c->nmodules * 2 >= mh->nslots) {
			size_t n = mh->nslots * 2;

			free(mh->slots);
			mh->slots = prov_xcalloc(n, sizeof(*mh->slots));
			mh->nslots = n;
			for (i = 0; i < st->c->nmodules; i++) {
				const char *p = st->c->modules[i].path;

				slot = (size_t)(hash_bytes(p, strlen(p)) & (n - 1));
				while (mh->slots[slot])
					slot = (slot + 1) & (n - 1);
				mh->slots[slot] = i + 1;
			}
		}
	}
	if (build_id && bid_len && !m->build_id && bid_len <= 128) {
		char *b = prov_xstrndup(build_id, bid_len);

		for (i = 0; i < bid_len; i++) {
			if (!tp_isxdigit((unsigned char)b[i])) {
				free(b);
				return;
			}
			if (b[i] >= 'A' && b[i] <= 'F')
				b[i] = (char)(b[i] - 'A' + 'a');
		}
		m->build_id = b;
	}
}

void tp_set_signal(struct tp_state *st, int signo)
{
	const char *n = prov_signal_name(signo);

	if (signo <= 0 || st->c->has_signal)
		return;
	st->c->has_signal = 1;
	st->c->signal.number = signo;
	st->c->signal.name = prov_xstrdup_or_null(n);
}

void tp_set_addr(struct tp_state *st, uint64_t addr)
{
	if (st->c->signal.has_addr)
		return;
	st->c->signal.has_addr = 1;
	st->c->signal.addr = addr;
}

void tp_set_pid(struct tp_state *st, int64_t pid)
{
	if (st->c->has_process || pid <= 0)
		return;
	st->c->has_process = 1;
	st->c->process.has_pid = 1;
	st->c->process.pid = pid;
}

/* ---- log prefixes ---- */

/* "2024-05-01T12:00:00.123Z", "2024-05-01 12:00:00,123", "12:00:00.5" */
static size_t timestamp_len(const char *s)
{
	const char *p = s;

	if (tp_isdigit((unsigned char)p[0]) && tp_isdigit((unsigned char)p[1]) &&
	    tp_isdigit((unsigned char)p[2]) && tp_isdigit((unsigned char)p[3]) && p[4] == '-' &&
	    tp_isdigit((unsigned char)p[5]) && tp_isdigit((unsigned char)p[6]) && p[7] == '-' &&
	    tp_isdigit((unsigned char)p[8]) && tp_isdigit((unsigned char)p[9])) {
		p += 10;
		if (*p != 'T' && *p != ' ')
			return 0;
		p++;
	}
	if (!(tp_isdigit((unsigned char)p[0]) && tp_isdigit((unsigned char)p[1]) && p[2] == ':' &&
	      tp_isdigit((unsigned char)p[3]) && tp_isdigit((unsigned char)p[4]) && p[5] == ':' &&
	      tp_isdigit((unsigned char)p[6]) && tp_isdigit((unsigned char)p[7])))
		return 0;
	p += 8;
	if (*p == '.' || *p == ',') {
		p++;
		while (tp_isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'Z') {
		p++;
	} else if ((*p == '+' || *p == '-') && tp_isdigit((unsigned char)p[1]) &&
		   tp_isdigit((unsigned char)p[2])) {
		p += 3;
		if (*p == ':')
			p++;
		while (tp_isdigit((unsigned char)*p))
			p++;
	}
	return (size_t)(p - s);
}

static int is_alpha(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* syslog: "Apr 14 21:02:39 " then "[18] ", "host prog[12]: " or "host prog: " */
static size_t syslog_len(const char *s)
{
	const char *p = s, *q;
	size_t n;

	if (!(is_alpha(p[0]) && is_alpha(p[1]) && is_alpha(p[2]) && p[3] == ' ' &&
	      (p[4] == ' ' || tp_isdigit((unsigned char)p[4])) && tp_isdigit((unsigned char)p[5]) &&
	      p[6] == ' '))
		return 0;
	n = timestamp_len(p + 7);
	if (!n || p[7 + n] != ' ')
		return 0;
	p += 7 + n + 1;
	if (*p == '[') {
		for (q = p + 1; tp_isdigit((unsigned char)*q); q++)
			;
		if (q > p + 1 && q[0] == ']' && q[1] == ' ')
			return (size_t)(q + 2 - s);
		return (size_t)(p - s);
	}
	/* "host prog[pid]: " */
	for (q = p; *q && *q != ' ' && q - p < 64; q++)
		;
	if (*q == ' ' && q > p) {
		const char *r = q + 1, *e;

		for (e = r; *e && *e != ' ' && *e != ':' && e - r < 64; e++)
			;
		if (e[0] == ':' && e[1] == ' ' && e > r && (e[-1] == ']' || is_alpha(e[-1])))
			return (size_t)(e + 2 - s);
	}
	return (size_t)(p - s);
}

/* "[stderr] ", "[node07:31337] " (OpenMPI): a word, or host:pid, in brackets */
static size_t tag_len(const char *s)
{
	const char *q = s + 1, *colon = NULL;
	int alpha = 0;

	if (s[0] != '[')
		return 0;
	for (; *q && *q != ']' && q - s < 64; q++) {
		if (*q == ':' && !colon)
			colon = q;
		else if (is_alpha(*q))
			alpha = 1;
		else if (!tp_isdigit((unsigned char)*q) && *q != '-' && *q != '_' && *q != '.')
			return 0;
	}
	if (*q != ']' || q[1] != ' ' || !alpha)
		return 0;
	if (colon) {
		const char *d;

		for (d = colon + 1; d < q; d++)
			if (!tp_isdigit((unsigned char)*d))
				return 0;
		if (d == colon + 1)
			return 0;
	} else if (q - s == 3 && s[1] == 'b' && s[2] == 't') {
		return 0;	/* "[bt] #3 ...": read as a frame list */
	}
	return (size_t)(q + 2 - s);
}

/* Length of one known log prefix at s, 0 when none. */
static size_t known_prefix(const char *s)
{
	size_t n;
	const char *p;

	if ((n = syslog_len(s)) > 0 || (n = tag_len(s)) > 0)
		return n;
	/* glog dumps kept in comments */
	if (s[0] == ';' && (s[1] == ' ' || s[1] == '\0'))
		return s[1] ? 2 : 1;

	if ((n = timestamp_len(s)) > 0) {
		p = s + n;
		if (*p == ':' && p[1] == ' ')
			p++;
		if (*p != ' ' && *p != '\t' && *p != '|')
			return *p == '\0' ? n : 0;
		if (*p == '|')
			p++;
		/* one separator only: the indentation after it is the line's own */
		if (*p == ' ' || *p == '\t')
			p++;
		/* CRI log lines: "<ts> stderr F <msg>" */
		if ((strncmp(p, "stdout ", 7) == 0 || strncmp(p, "stderr ", 7) == 0) &&
		    (p[7] == 'F' || p[7] == 'P') && p[8] == ' ')
			p += 9;
		return (size_t)(p - s);
	}
	if (s[0] == '#' && s[1] == '#' && s[2] == '[') {
		p = strchr(s + 3, ']');
		if (p && p - s < 32)
			return (size_t)(p + 1 - s);
	}
	if (s[0] == '[') {
		/* "[rank3]: ", "[1,0]<stderr>: ", "[12:00:01.5] ", "[2024-05-01 12:00:00] " */
		const char *q = s + 1;
		int colon = 0, ok = 1;

		while (*q && *q != ']' && q - s < 48) {
			if (*q == ' ' && !tp_isdigit((unsigned char)q[1]))
				ok = 0;
			if (*q == ':')
				colon = 1;
			q++;
		}
		if (*q == ']' && ok && q > s + 1) {
			p = q + 1;
			if (*p == '<') {
				const char *r = strchr(p, '>');

				if (r && r - p < 16)
					p = r + 1;
			}
			if (*p == ':' && p[1] == ' ')
				return (size_t)(tp_ws(p + 1) - s);
			if (colon && tp_isdigit((unsigned char)s[1]) && timestamp_len(s + 1) > 0 &&
			    *p == ' ')
				return (size_t)(tp_ws(p) - s);
		}
	}
	if ((s[0] == '|' || s[0] == '>') && (s[1] == ' ' || s[1] == '\0' || s[1] == '\t'))
		return s[1] ? 2 : 1;
	return 0;
}

/* Does the text look like the start of something a family reads? */
static int looks_like_trace(const char *s)
{
	s = tp_ws(s);
	return (s[0] == '#' && tp_isdigit((unsigned char)s[1])) ||
	       prov_starts_with(s, "Thread ") || prov_starts_with(s, "Traceback ") ||
	       prov_starts_with(s, "Stack trace of thread") || prov_starts_with(s, "frame #") ||
	       prov_starts_with(s, "File \"") || prov_starts_with(s, "TID ") ||
	       prov_starts_with(s, "Fatal Python error") || prov_starts_with(s, "Program ") ||
	       (s[0] == '=' && s[1] == '=');
}

/* Strip prefixes from the line in place; returns the new start. */
static char *strip_prefix(struct tp_state *st, char *line)
{
	char *s = line;
	int rounds;
	size_t n;

	if (st->learned && strncmp(s, st->learned, st->learned_len) == 0)
		s += st->learned_len;
	for (rounds = 0; rounds < 4; rounds++) {
		n = known_prefix(s);
		if (!n)
			break;
		s += n;
	}
	if (!looks_like_trace(s)) {
		/* "web-1  | #0 ...": learn the literal prefix for the block */
		char *bar = strstr(s, "| ");

		if (bar && bar - s < 64 && bar > s && looks_like_trace(bar + 2)) {
			free(st->learned);
			st->learned_len = (size_t)(bar + 2 - s);
			st->learned = prov_xstrndup(s, st->learned_len);
			s = bar + 2;
		}
	}
	return s;
}

/* ---- the line loop ---- */

static int handle_line(struct tp_state *st, char *line)
{
	char *s;
	size_t n, indent;

	n = strlen(line);
	while (n && (line[n - 1] == '\r' || is_blank((unsigned char)line[n - 1])))
		n--;
	line[n] = '\0';
	s = strip_prefix(st, line);
	if (st->pending.len && tp_gdb_pending_feed(st, s, 0))
		return 0;
	indent = (size_t)(tp_ws(s) - s);
	s += indent;
	if (!*s) {
		tp_san_idle(st);
		if (tp_cur(st) && tp_cur(st)->nframes)
			tp_close(st);
		return 0;
	}
	if (tp_native_line(st, s, indent) || tp_san_line(st, s, indent) ||
	    tp_python_line(st, s, indent) || tp_misc_line(st, s, indent))
		return 0;
	/* prose ends the block; a sanitizer report runs on to its SUMMARY */
	tp_san_idle(st);
	if (st->san && (st->san != TP_UBSAN || st->ub_pending)) {
		tp_close(st);
		return 0;
	}
	st->san = TP_NONE;
	tp_end_block(st);
	return 0;
}

static void drop_thread(struct tp_state *st, size_t k)
{
	struct prov_crash *c = st->c;
	struct prov_thread *t = &c->threads[k];
	size_t i;

	for (i = 0; i < t->nframes; i++) {
		struct prov_frame *f = &t->frames[i];

		free(f->function);
		free(f->module);
		free(f->file);
		free(f->repo_path);
		free(f->path_rule);
		free(f->component);
	}
	free(t->frames);
	free(t->name);
	free(t->regs);
	free(t->unwind_error);
	memmove(&c->threads[k], &c->threads[k + 1], (c->nthreads - k - 1) * sizeof(*c->threads));
	memmove(&st->ti[k], &st->ti[k + 1], (c->nthreads - k - 1) * sizeof(*st->ti));
	c->nthreads--;
}

static int str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

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
		    x->line != y->line || !str_eq(x->function, y->function) ||
		    !str_eq(x->file, y->file))
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

	for (i = 0; i < c->nthreads;) {
		int dropped = 0, r;

		if (st->ti[i].fmt != TP_GDB || !st->ti[i].bare || c->threads[i].has_tid) {
			i++;
			continue;
		}
		for (j = 0; j < c->nthreads && budget; j++, budget--) {
			if (j == i || st->ti[j].fmt != TP_GDB)
				continue;
			/* gdb prints the current frame alone when it loads a core */
			r = same_frames(&c->threads[i], &c->threads[j]);
			if (!r || (r == 2 && !c->threads[j].has_tid && j > i))
				continue;
			st->ti[j].bare = 1;
			drop_thread(st, i);
			dropped = 1;
			break;
		}
		if (!dropped)
			i++;
	}
}

static int same_frame0(const struct prov_frame *a, const struct prov_frame *b, int by_pc)
{
	if (by_pc)
		return a->has_pc && b->has_pc && a->pc == b->pc;
	return a->function && str_eq(a->function, b->function) && str_eq(a->file, b->file) &&
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
				drop_thread(st, i);
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

static void finish(struct tp_state *st)
{
	struct prov_crash *c = st->c;
	size_t i, pick = (size_t)-1;
	int best = TP_NONE;

	tp_san_flush(st);
	tp_end_block(st);
	/* threads that never got a frame say nothing */
	for (i = 0; i < c->nthreads;) {
		if (!c->threads[i].nframes)
			drop_thread(st, i);
		else
			i++;
	}
	dedupe_gdb(st);
	for (i = 0; i < c->nthreads && pick == (size_t)-1; i++)
		if (c->threads[i].crashed)
			pick = i;
	if (pick == (size_t)-1 && st->gdb_crashed_num > 0)
		for (i = 0; i < c->nthreads && pick == (size_t)-1; i++)
			if (st->ti[i].fmt == TP_GDB && st->ti[i].gdbnum == st->gdb_crashed_num)
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
	if (pick == (size_t)-1 && c->nthreads)
		pick = 0;
	for (i = 0; i < c->nthreads; i++)
		c->threads[i].crashed = i == pick;
	if (pick != (size_t)-1) {
		c->has_crashed_thread = 1;
		c->crashed_thread = pick;
	}
	for (i = 1; i < TP_NFMT; i++)
		if (st->counts[i] > (best ? st->counts[best] : 0) ||
		    (best && st->counts[i] == st->counts[best] && st->counts[i] &&
		     st->first_fmt[i] < st->first_fmt[best]))
			best = (int)i;
	c->format = prov_xstrdup_or_null(tp_fmt_name(best));
	/* frames name their modules; later stages resolve them */
	for (i = 0; i < c->nthreads; i++) {
		size_t k;

		for (k = 0; k < c->threads[i].nframes; k++) {
			const char *m = c->threads[i].frames[k].module;

			if (m)
				tp_module_note(st, m, strlen(m), NULL, 0);
		}
	}
	prov_crash_classify_context(c);
}

int prov_text_parse(struct prov_crash **out, const char *name,
		    const char *data, size_t len)
{
	struct tp_state st;
	struct prov_buf line = PROV_BUF_INIT;
	size_t pos = 0, skipped = 0;
	int error;

	memset(&st, 0, sizeof(st));
	if (!name)
		name = "-";
	if (len > TP_MAX_INPUT)
		return prov_error_set(PROV_ELIMIT, "'%s' is larger than %zu MiB; not a backtrace to read",
				      name, TP_MAX_INPUT >> 20);
	if (!data && len)
		return prov_error_set(PROV_EINPUT, "'%s' holds no backtrace that provenance can read", name);
	st.mods.nslots = 64;
	st.mods.slots = prov_xcalloc(st.mods.nslots, sizeof(*st.mods.slots));
	st.c = prov_crash_new(PROV_INPUT_TEXT, name);
	st.name = name;
	prov_buf_init(&st.pending, TP_MAX_LINE * 2);
	prov_buf_init(&line, TP_MAX_LINE + 1);

	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - data) : len;
		size_t n = end - pos;

		if (n > TP_MAX_LINE) {
			skipped++;
		} else {
			prov_buf_reset(&line);
			if (prov_buf_add(&line, data + pos, n) < 0) {
				error = PROV_ELIMIT;
				goto cleanup;
			}
			/* a NUL byte would end the C string early: make it a blank */
			if (memchr(line.buf, '\0', line.len)) {
				size_t i;

				for (i = 0; i < line.len; i++)
					if (!line.buf[i])
						line.buf[i] = ' ';
			}
			handle_line(&st, line.buf);
		}
		pos = nl ? end + 1 : len;
	}
	if (skipped)
		prov_warn("'%s': skipped %zu line(s) longer than %zu KiB", name, skipped,
			  TP_MAX_LINE >> 10);
	finish(&st);
	if (!st.c->nthreads) {
		error = prov_error_set(PROV_EINPUT, "'%s' holds no backtrace that provenance can read",
				       name);
		goto cleanup;
	}
	*out = st.c;
	st.c = NULL;
	error = 0;
cleanup:
	prov_buf_release(&line);
	prov_buf_release(&st.pending);
	prov_crash_free(st.c);
	free(st.ti);
	free(st.san_next_name);
	free(st.ub_file);
	free(st.learned);
	free(st.mods.slots);
	return error;
}
