/*
 * Text backtraces: a cluster job's log cut into one text per rank, its
 * launcher and logger prefixes cut off (labels.h says which).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "internal.h"
#include "labels.h"
#include "model.h"
#include "util.h"
#include "banned.h"

#define MAX_ROUNDS 6
#define MAX_LABEL 64

/* What one line's prefixes said. */
struct peeled {
	size_t len;	/* bytes of prefix */
	const char *label, *task;	/* inside the line; not NUL-terminated */
	size_t label_len, task_len;
	int label_rank;	/* the label came from a rank prefix (torchrun, OpenMPI) */
	int srun;	/* an "N: " was taken */
	int sys_bracket;	/* a syslog time was followed by "[N] " */
	long sys_value;	/* that N */
};

/* What the first pass learnt of the whole text. */
struct learnt {
	int srun;	/* "N: " is srun's label */
	int sys_pid;	/* "[N] " after a syslog time is the same on every line: a pid */
};

/* One launcher line or torchrun table entry, applied after grouping. */
struct note {
	char *task;	/* srun task list ("3", "0-3", "0,2") or NULL */
	long rank;	/* torchrun's rank, -1 */
	struct tp_launch l;
};

/* The first pass's counts: is "N: " srun's, is "[N] " after a syslog time a pid? */
struct counts {
	size_t lines, srun, brackets;
	long first_bracket;
	int brackets_differ;
};

struct splitter {
	struct tp_groups *gs;
	struct learnt learn;
	size_t *slots, nslots;	/* label -> group index + 1 */
	struct note *notes;
	size_t nnotes, notes_alloc;
	/* torchrun's ChildFailedError table */
	int in_table;
	struct note cur;
	int cur_open;
	struct counts *k;	/* the first pass's */
};

static int is_digit(int ch)
{
	return ch >= '0' && ch <= '9';
}

static int is_alpha(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static size_t digits(const char *s)
{
	size_t n = 0;

	while (is_digit((unsigned char)s[n]))
		n++;
	return n;
}

/* "HH:MM:SS[.frac]" at s: its length, 0 if none */
static size_t clock_len(const char *s)
{
	size_t n;

	if (!(digits(s) == 2 && s[2] == ':' && digits(s + 3) == 2 && s[5] == ':' &&
	      digits(s + 6) == 2))
		return 0;
	n = 8;
	if ((s[n] == '.' || s[n] == ',') && digits(s + n + 1))
		n += 1 + digits(s + n + 1);
	return n;
}

/* RFC 3339 / ISO 8601 with a date: "2024-05-01T12:00:00.123456789Z", "2024-05-01 12:00:00,123" */
static size_t iso_len(const char *s)
{
	size_t n, c;

	if (!(digits(s) == 4 && s[4] == '-' && digits(s + 5) == 2 && s[7] == '-' &&
	      digits(s + 8) == 2 && (s[10] == 'T' || s[10] == ' ')))
		return 0;
	if ((c = clock_len(s + 11)) == 0)
		return 0;
	n = 11 + c;
	if (s[n] == 'Z') {
		n++;
	} else if ((s[n] == '+' || s[n] == '-') && digits(s + n + 1) >= 2) {
		n += 3;
		if (s[n] == ':')
			n++;
		n += digits(s + n);
	}
	return n;
}

/* syslog / journald short and short-precise: "Apr 14 21:02:39[.123456]" */
static size_t syslog_time_len(const char *s)
{
	size_t c;

	if (!(is_alpha(s[0]) && is_alpha(s[1]) && is_alpha(s[2]) && s[3] == ' ' &&
	      (s[4] == ' ' || is_digit((unsigned char)s[4])) && is_digit((unsigned char)s[5]) &&
	      s[6] == ' '))
		return 0;
	c = clock_len(s + 7);
	return c ? 7 + c : 0;
}

/* journald / syslog after the time: "host ident[pid]: " or "host ident: " */
static size_t journal_source_len(const char *s)
{
	const char *h = s, *i, *e;

	/* a host name: "==123==" and "; " are the text's own */
	while ((is_alpha((unsigned char)*h) || is_digit((unsigned char)*h) || *h == '-' ||
		*h == '.' || *h == '_') && h - s < 64)
		h++;
	if (*h != ' ' || h == s)
		return 0;
	/* the ident starts with a letter: "TID 5218:" is eu-stack's, no source */
	i = h + 1;
	if (!is_alpha((unsigned char)*i) && *i != '_')
		return 0;
	for (e = i; *e && *e != ' ' && *e != ':' && *e != '[' && e - i < 64; e++)
		;
	if (*e == '[') {
		size_t d = digits(e + 1);

		if (!d || e[1 + d] != ']')
			return 0;
		e += d + 2;
	}
	/* "Stack dump:" alone at the end of a line is the text's own */
	return e[0] == ':' && e[1] == ' ' ? (size_t)(e - s) + 2 : 0;
}

/* glog / c10 logging: "[E1128 10:00:00.123456 1234 file.cpp:12] " (the pid optional) */
static size_t glog_len(const char *s)
{
	const char *p = s + 1, *end;
	size_t c;

	if (s[0] != '[' || !strchr("IWEF", s[1]) || digits(s + 2) != 4 || s[6] != ' ')
		return 0;
	p = s + 7;
	if ((c = clock_len(p)) == 0)
		return 0;
	end = strchr(p + c, ']');
	if (!end || end - s > 200 || !memchr(p + c, ':', (size_t)(end - p - c)))
		return 0;
	return (size_t)(end + 1 - s) + (end[1] == ' ');
}

/* "[rank3]:", "[default3]:": the label is what is in the brackets */
static size_t rank_len(const char *s, struct peeled *o)
{
	size_t w = prov_starts_with(s, "[rank") ? 5 : prov_starts_with(s, "[default") ? 8 : 0;
	size_t d;

	if (!w || (d = digits(s + w)) == 0 || s[w + d] != ']' || s[w + d + 1] != ':')
		return 0;
	o->label = s + 1;
	o->label_len = w - 1 + d;
	o->label_rank = 1;
	return w + d + 2 + (s[w + d + 2] == ' ');
}

/* OpenMPI --tag-output: "[1,3]<stderr>:" (job, rank) */
static size_t mpitag_len(const char *s, struct peeled *o)
{
	size_t a, b, n;
	const char *gt;

	if (s[0] != '[')
		return 0;	/* first: s may be the empty end of the line */
	a = digits(s + 1);
	if (!a || s[1 + a] != ',' || (b = digits(s + 2 + a)) == 0 ||
	    s[2 + a + b] != ']' || s[3 + a + b] != '<')
		return 0;
	gt = strchr(s + 4 + a + b, '>');
	if (!gt || gt - s > 32 || gt[1] != ':')
		return 0;
	o->label = s + 1;
	o->label_len = a + 1 + b;
	o->label_rank = 1;
	n = (size_t)(gt + 2 - s);
	return n + (s[n] == ' ');
}

/* OpenMPI's "[node07:31337] ": a host with a letter, a pid */
static size_t hostpid_len(const char *s, struct peeled *o)
{
	const char *q = s + 1, *colon = NULL;
	int alpha = 0;

	if (s[0] != '[')
		return 0;
	for (; *q && *q != ']' && q - s < 64; q++) {
		if (*q == ':' && !colon)
			colon = q;
		else if (is_alpha((unsigned char)*q))
			alpha = 1;
		else if (!is_digit((unsigned char)*q) && *q != '-' && *q != '_' && *q != '.')
			return 0;
	}
	if (*q != ']' || q[1] != ' ' || !alpha || !colon || !digits(colon + 1) ||
	    colon + 1 + digits(colon + 1) != q)
		return 0;
	if (!o->label) {
		o->label = s + 1;
		o->label_len = (size_t)(q - s - 1);
	}
	return (size_t)(q + 2 - s);
}

/* srun --label: "3: ", "0-3: " (the task is the label unless a rank follows) */
static size_t srun_len(const char *s, struct peeled *o)
{
	size_t a = digits(s), b = 0;

	if (!a || a > 6)
		return 0;
	if (s[a] == '-' && (b = digits(s + a + 1)) > 0)
		b++;
	if (s[a + b] != ':' || s[a + b + 1] != ' ')
		return 0;
	o->task = s;
	o->task_len = a + b;
	o->srun = 1;
	return a + b + 2;
}

/* After a syslog time: "[18] " (a pid when the same on every line) */
static size_t sys_bracket_len(const char *s, struct peeled *o, const struct learnt *l)
{
	size_t d = s[0] == '[' ? digits(s + 1) : 0;

	if (!d || d > 9 || s[1 + d] != ']' || s[2 + d] != ' ')
		return 0;
	o->sys_bracket = 1;
	o->sys_value = strtol(s + 1, NULL, 10);
	return l && l->sys_pid ? d + 3 : 0;
}

/* One round: the length of the prefix at s, 0 when none. */
static size_t peel_one(const char *s, struct peeled *o, const struct learnt *l)
{
	size_t n;

	if ((n = iso_len(s)) > 0 || (n = syslog_time_len(s)) > 0) {
		int sys = !is_digit((unsigned char)s[0]);

		if (s[n] != ' ' && s[n] != '\t')
			return s[n] ? 0 : n;
		n++;
		/* CRI: "<time> stderr F " */
		if ((prov_starts_with(s + n, "stdout ") || prov_starts_with(s + n, "stderr ")) &&
		    (s[n + 7] == 'F' || s[n + 7] == 'P') && s[n + 8] == ' ')
			return n + 9;
		if (sys && s[n] == '[')
			return n + sys_bracket_len(s + n, o, l);
		return n + journal_source_len(s + n);
	}
	if ((n = rank_len(s, o)) > 0 || (n = mpitag_len(s, o)) > 0)
		return n;
	if (o->label_rank && (n = glog_len(s)) > 0)
		return n;
	if ((!l || l->srun) && !o->srun && !o->label && (n = srun_len(s, o)) > 0)
		return n;
	return hostpid_len(s, o);
}

static void peel(const char *s, struct peeled *o, const struct learnt *l)
{
	int r;
	size_t n;

	memset(o, 0, sizeof(*o));
	o->sys_value = -1;
	for (r = 0; r < MAX_ROUNDS && (n = peel_one(s + o->len, o, l)) > 0; r++)
		o->len += n;
	/* srun alone: the task is the label */
	if (o->srun && !o->label) {
		o->label = o->task;
		o->label_len = o->task_len;
		o->task = NULL;
		o->task_len = 0;
	}
}

size_t tp_label_prefix(const char *s, char **label, char **task)
{
	struct learnt l = { 1, 0 };
	struct peeled o;

	peel(s, &o, &l);
	*label = o.label ? prov_xstrndup(o.label, o.label_len) : NULL;
	*task = o.task ? prov_xstrndup(o.task, o.task_len) : NULL;
	return o.len;
}

/* ---- lines ---- */

/* Each line of the input (NUL-free, without its '\n' and '\r') to `fn`. */
static void each_line(struct splitter *sp, struct prov_buf *tmp, const char *data, size_t len,
		      size_t max_line, void (*fn)(struct splitter *, const char *, size_t))
{
	size_t pos = 0, i;

	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - data) : len, n = end - pos;

		if (n <= max_line) {
			prov_buf_reset(tmp);
			if (prov_buf_add(tmp, data + pos, n) == 0) {
				for (i = 0; i < tmp->len; i++)
					if (!tmp->buf[i])
						tmp->buf[i] = ' ';
				while (tmp->len && tmp->buf[tmp->len - 1] == '\r')
					tmp->buf[--tmp->len] = '\0';
				fn(sp, tmp->buf, tmp->len);
			}
		}
		pos = nl ? end + 1 : len;
	}
}

static void learn_line(struct splitter *sp, const char *s, size_t n)
{
	struct counts *k = sp->k;
	struct peeled o;

	if (!n)
		return;
	peel(s, &o, NULL);
	k->lines++;
	k->srun += o.srun;
	if (o.sys_bracket) {
		if (!k->brackets++)
			k->first_bracket = o.sys_value;
		else if (o.sys_value != k->first_bracket)
			k->brackets_differ = 1;
	}
}

/* ---- groups ---- */


static long label_number(const char *s, size_t n)
{
	const char *comma = memchr(s, ',', n);
	size_t i = comma ? (size_t)(comma - s) + 1 : 0;

	while (i < n && !is_digit((unsigned char)s[i]))
		i++;
	if (i == n || s[i] == ':' || memchr(s, ':', n))
		return -1;
	return strtol(s + i, NULL, 10);
}

static void rehash(struct splitter *sp)
{
	size_t n = sp->nslots ? sp->nslots * 2 : 64, i, slot;

	free(sp->slots);
	sp->slots = prov_xcalloc(n, sizeof(*sp->slots));
	sp->nslots = n;
	for (i = 0; i < sp->gs->n; i++) {
		const char *l = sp->gs->g[i].label ? sp->gs->g[i].label : "";

		slot = (size_t)(prov_hash_bytes(l, strlen(l)) & (n - 1));
		while (sp->slots[slot])
			slot = (slot + 1) & (n - 1);
		sp->slots[slot] = i + 1;
	}
}

/* The group of a label (NULL, 0: the unlabelled one), made on first use. */
static struct tp_group *group_of(struct splitter *sp, const char *label, size_t n)
{
	struct tp_groups *gs = sp->gs;
	struct tp_group *g;
	size_t slot;

	if (n > MAX_LABEL)
		n = MAX_LABEL;
	if ((gs->n + 1) * 2 >= sp->nslots)
		rehash(sp);
	slot = (size_t)(prov_hash_bytes(label ? label : "", n) & (sp->nslots - 1));
	for (; sp->slots[slot]; slot = (slot + 1) & (sp->nslots - 1)) {
		g = &gs->g[sp->slots[slot] - 1];
		if (!label ? !g->label : g->label && strlen(g->label) == n && !memcmp(g->label, label, n))
			return g;
	}
	PROV_ALLOC_GROW(gs->g, gs->n + 1, gs->alloc);
	g = &gs->g[gs->n++];
	memset(g, 0, sizeof(*g));
	g->label = label ? prov_xstrndup(label, n) : NULL;
	g->number = label ? label_number(label, n) : -1;
	prov_buf_init(&g->text, (size_t)64 << 20);
	sp->slots[slot] = gs->n;
	return g;
}

/* ---- launcher lines ---- */

static const struct {
	const char *text;
	int signo;
} srun_msgs[] = {
	{ "Segmentation fault", 11 },
	{ "Aborted", 6 },
	{ "Bus error", 7 },
	{ "Floating point exception", 8 },
	{ "Illegal instruction", 4 },
	{ "Killed", 9 },
	{ "Terminated", 15 },
};

static struct note *note_add(struct splitter *sp)
{
	struct note *n;

	PROV_ALLOC_GROW(sp->notes, sp->nnotes + 1, sp->notes_alloc);
	n = &sp->notes[sp->nnotes++];
	memset(n, 0, sizeof(*n));
	n->rank = -1;
	return n;
}

/* "srun: error: node17: task 3: Segmentation fault (core dumped)", "tasks 0-3: Exited with exit code 1" */
static int srun_line(struct splitter *sp, const char *s)
{
	const char *p = prov_skip_prefix(s, "srun: error: "), *h, *t, *m;
	struct note *n;
	size_t i;

	if (!p || !(h = strstr(p, ": task")))
		return 0;
	t = h + 6 + (h[6] == 's');
	if (*t != ' ' || !(m = strstr(t, ": ")))
		return 0;
	n = note_add(sp);
	n->l.launcher = prov_xstrdup("srun");
	n->l.host = prov_xstrndup(p, (size_t)(h - p));
	n->task = prov_xstrndup(t + 1, (size_t)(m - t - 1));
	m += 2;
	if ((p = prov_skip_prefix(m, "Exited with exit code ")) != NULL) {
		n->l.has_exit_code = 1;
		n->l.exit_code = (int)strtol(p, NULL, 10);
	}
	for (i = 0; i < sizeof(srun_msgs) / sizeof(srun_msgs[0]); i++)
		if (prov_starts_with(m, srun_msgs[i].text))
			n->l.signo = srun_msgs[i].signo;
	return 1;
}

static void table_flush(struct splitter *sp)
{
	if (sp->cur_open && sp->cur.rank >= 0)
		*note_add(sp) = sp->cur;
	else if (sp->cur_open) {
		free(sp->cur.l.host);
		free(sp->cur.l.error_file);
		free(sp->cur.l.launcher);
	}
	memset(&sp->cur, 0, sizeof(sp->cur));
	sp->cur.rank = -1;
	sp->cur_open = 0;
}

/* "  host      : node17": the value after "KEY<blanks>: ", NULL when s is not that key */
static const char *table_value(const char *s, const char *key)
{
	const char *p;

	s = tp_ws(s);
	if (!(p = prov_skip_prefix(s, key)))
		return NULL;
	p = tp_ws(p);
	return p[0] == ':' ? tp_ws(p + 1) : NULL;
}

/* torchrun's ChildFailedError summary: one entry per "[k]:" under "Failures:" / "Root Cause" */
static int table_line(struct splitter *sp, const char *s)
{
	const char *v, *t = tp_ws(s);

	if (strstr(s, "ChildFailedError")) {
		table_flush(sp);
		sp->in_table = 1;
		return 0;
	}
	if (!sp->in_table)
		return 0;
	if (t[0] == '[' && digits(t + 1) && t[1 + digits(t + 1)] == ']') {
		table_flush(sp);
		sp->cur_open = 1;
		sp->cur.l.launcher = prov_xstrdup("torchrun");
		return 1;
	}
	if (t[0] == '=' && sp->cur_open && sp->cur.rank >= 0 && !strchr(t, ' ')) {
		table_flush(sp);
		return 1;
	}
	if (!sp->cur_open)
		return 0;
	if ((v = table_value(s, "host")) != NULL) {
		free(sp->cur.l.host);
		sp->cur.l.host = prov_xstrndup(v, strcspn(v, " "));
	} else if ((v = table_value(s, "rank")) != NULL && digits(v)) {
		sp->cur.rank = strtol(v, NULL, 10);
	} else if ((v = table_value(s, "exitcode")) != NULL && (digits(v) || v[0] == '-')) {
		sp->cur.l.has_exit_code = 1;
		sp->cur.l.exit_code = (int)strtol(v, NULL, 10);
		if (sp->cur.l.exit_code < 0)
			sp->cur.l.signo = -sp->cur.l.exit_code;
	} else if ((v = table_value(s, "error_file")) != NULL && v[0] != '<') {
		free(sp->cur.l.error_file);
		sp->cur.l.error_file = prov_xstrdup(v);
	} else {
		return 0;
	}
	return 1;
}

static void split_line(struct splitter *sp, const char *s, size_t n)
{
	struct peeled o;
	struct tp_group *g;
	const char *rest;

	peel(s, &o, &sp->learn);
	rest = s + o.len;
	if (!o.label)
		(void)(srun_line(sp, rest) || table_line(sp, rest));
	g = group_of(sp, o.label, o.label_len);
	if (o.label)
		sp->gs->labelled = 1;
	if (o.task && !g->task)
		g->task = prov_xstrndup(o.task, o.task_len);
	prov_buf_add(&g->text, rest, n - o.len);
	prov_buf_putc(&g->text, '\n');
	g->nlines++;
}

/* ---- annotations ---- */

/* Is task `t` in srun's list "0-3,7"? */
static int task_in(const char *list, const char *t)
{
	long want, a, b;
	const char *p = list;
	char *e;

	if (!t || !digits(t))
		return 0;
	want = strtol(t, NULL, 10);
	while (*p) {
		a = strtol(p, &e, 10);
		if (e == p)
			return 0;
		b = a;
		if (*e == '-')
			b = strtol(e + 1, &e, 10);
		if (want >= a && want <= b)
			return 1;
		if (*e != ',')
			return 0;
		p = e + 1;
	}
	return 0;
}

static void launch_copy(struct tp_group *g, const struct tp_launch *l)
{
	if (g->has_launch)
		return;	/* the first word on a rank wins */
	g->has_launch = 1;
	g->launch.launcher = prov_xstrdup_or_null(l->launcher);
	g->launch.host = prov_xstrdup_or_null(l->host);
	g->launch.has_exit_code = l->has_exit_code;
	g->launch.exit_code = l->exit_code;
	g->launch.signo = l->signo;
	g->launch.error_file = prov_xstrdup_or_null(l->error_file);
}

/* One launcher note onto the groups of the rank or tasks it names. */
static void annotate_one(struct splitter *sp, const struct note *n)
{
	size_t k;

	for (k = 0; k < sp->gs->n; k++) {
		struct tp_group *g = &sp->gs->g[k];
		const char *task = g->task ? g->task : g->label;

		if (!g->label)
			continue;
		if (n->task ? task_in(n->task, task) : n->rank == g->number &&
		    (prov_starts_with(g->label, "rank") || !g->task))
			launch_copy(g, &n->l);
	}
}

/* torchrun's table names the rank itself: it goes first; srun's task lines fill in the rest */
static void annotate(struct splitter *sp)
{
	size_t i;

	for (i = 0; i < sp->nnotes; i++)
		if (!sp->notes[i].task)
			annotate_one(sp, &sp->notes[i]);
	for (i = 0; i < sp->nnotes; i++)
		if (sp->notes[i].task)
			annotate_one(sp, &sp->notes[i]);
}

static int group_cmp(const void *a, const void *b)
{
	const struct tp_group *x = a, *y = b;

	if (!x->label || !y->label)
		return !y->label - !x->label;
	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return strcmp(x->label, y->label);
}

static void launch_release(struct tp_launch *l)
{
	free(l->launcher);
	free(l->host);
	free(l->error_file);
}

int tp_groups_split(struct tp_groups *out, const char *data, size_t len, size_t max_line)
{
	struct splitter sp;
	struct counts k = { 0 };
	struct prov_buf tmp = PROV_BUF_INIT;
	size_t i;

	memset(out, 0, sizeof(*out));
	memset(&sp, 0, sizeof(sp));
	sp.gs = out;
	sp.cur.rank = -1;
	prov_buf_init(&tmp, max_line + 1);
	sp.k = &k;
	each_line(&sp, &tmp, data, len, max_line, learn_line);
	/* "N: " on most lines is srun's; on a few it is the text's own */
	sp.learn.srun = k.lines && k.srun * 2 >= k.lines;
	sp.learn.sys_pid = k.brackets && !k.brackets_differ;
	each_line(&sp, &tmp, data, len, max_line, split_line);
	table_flush(&sp);
	annotate(&sp);
	if (out->n > 1)
		qsort(out->g, out->n, sizeof(*out->g), group_cmp);
	for (i = 0; i < sp.nnotes; i++) {
		free(sp.notes[i].task);
		launch_release(&sp.notes[i].l);
	}
	free(sp.notes);
	free(sp.slots);
	prov_buf_release(&tmp);
	return 0;
}

void tp_groups_release(struct tp_groups *gs)
{
	size_t i;

	for (i = 0; i < gs->n; i++) {
		free(gs->g[i].label);
		free(gs->g[i].task);
		prov_buf_release(&gs->g[i].text);
		launch_release(&gs->g[i].launch);
	}
	free(gs->g);
	memset(gs, 0, sizeof(*gs));
}
