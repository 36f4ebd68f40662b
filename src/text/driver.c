/*
 * Text backtraces: the driver. Splits the input into lines (capped), strips
 * log prefixes, hands each line to the formats of tp_formats[] (formats.c)
 * in turn, and settles which thread crashed at the end. The formats build
 * threads through state.c and never call back into the driver.
 */
#include <stdlib.h>
#include <string.h>

#include "buildpath.h"
#include "error.h"
#include "internal.h"
#include "labels.h"
#include "textparse.h"
#include "util.h"
#include "banned.h"

static int is_blank(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

/* st->before_close: what every format must finish before a thread closes */
static void before_close(struct tp_state *st)
{
	const struct tp_format *f;

	for (f = tp_formats; f->name; f++)
		if (f->before_close)
			f->before_close(st);
}

/*
 * Does an unread line look like a frame? Such lines are counted and the
 * first few named in the report, so that no frame is dropped silently.
 */
static int looks_like_frame(const char *s)
{
	const char *p;
	int n;

	if (s[0] == '#' && tp_dec(&n, s + 1, &p) == 0 && (*p == ' ' || *p == '\t')) {
		/* libFuzzer's "#2<TAB>INITED cov: ..." status lines are no frames */
		if (*p == '\t' && p[1] >= 'A' && p[1] <= 'Z')
			return 0;
		p = tp_ws(p);
		if (p[0] == '0' && p[1] == 'x')
			return 1;
		/* "#3  name (args)": one word, then its argument list */
		while (*p && *p != ' ' && *p != '(')
			p++;
		return p[0] == ' ' && p[1] == '(';
	}
	if (prov_starts_with(s, "frame #") && strstr(s, "0x"))
		return 1;
	if ((prov_starts_with(s, "at 0x") || prov_starts_with(s, "by 0x")) && strchr(s, ':'))
		return 1;
	/* a SyntaxError names its place without ", in": no frame */
	if (prov_starts_with(s, "File \"") && strstr(s, "\", line ") && strstr(s, " in "))
		return 1;
	return 0;
}

static void note_unparsed(struct tp_state *st, const char *s)
{
	struct prov_crash *c = st->c;
	char *q;

	c->unparsed_lines++;
	if (c->nunparsed >= PROV_MAX_UNPARSED)
		return;
	if (!c->nunparsed)
		c->unparsed = prov_xcalloc(PROV_MAX_UNPARSED, sizeof(*c->unparsed));
	c->unparsed[c->nunparsed] = prov_xasprintf("%zu: %.200s", st->lineno, s);
	/* the report prints it: no control characters */
	for (q = c->unparsed[c->nunparsed++]; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
}

/*
 * A blank line (blank = 1) or one no format read: the most any format keeps
 * (0 nothing, 1 its block, 2 even the open thread).
 */
static int idle(struct tp_state *st, int blank)
{
	const struct tp_format *f;
	int keep = 0, k;

	for (f = tp_formats; f->name; f++)
		if (f->idle && (k = f->idle(st, blank)) > keep)
			keep = k;
	return keep;
}

/* ---- the line loop ---- */

/*
 * Terminal colours (sanitizers colour their reports on a tty): drop
 * "ESC [ ... letter" everywhere, and the "[1m[31m" left at the start of a
 * line when a paste lost the ESC. In place; the new length.
 */
static size_t strip_colours(char *line, size_t n)
{
	size_t i = 0, o = 0, k;

	for (;;) {
		/* "[0m", "[1;31m" without ESC, at the start only */
		if (i == 0 || o == 0) {
			k = i;
			if (line[k] == '[') {
				k++;
				while (tp_isdigit((unsigned char)line[k]) || line[k] == ';')
					k++;
				if (line[k] == 'm' && k > i + 1) {
					i = k + 1;
					continue;
				}
			}
		}
		break;
	}
	while (i < n) {
		if (line[i] == '\033' && line[i + 1] == '[') {
			k = i + 2;
			while (k < n && (tp_isdigit((unsigned char)line[k]) || line[k] == ';' || line[k] == '?'))
				k++;
			if (k < n && ((line[k] >= 'A' && line[k] <= 'Z') || (line[k] >= 'a' && line[k] <= 'z'))) {
				i = k + 1;
				continue;
			}
		}
		line[o++] = line[i++];
	}
	line[o] = '\0';
	return o;
}

static int handle_line(struct tp_state *st, char *line)
{
	const struct tp_format *f;
	char *s;
	size_t n, indent;

	n = strlen(line);
	if (memchr(line, '\033', n) || line[0] == '[')
		n = strip_colours(line, n);
	while (n && (line[n - 1] == '\r' || is_blank((unsigned char)line[n - 1])))
		n--;
	line[n] = '\0';
	s = tp_strip_prefix(st, line);
	for (f = tp_formats; f->name; f++)
		if (f->pending && f->pending(st, s))
			return 0;
	indent = (size_t)(tp_ws(s) - s);
	s += indent;
	if (!*s) {
		if (idle(st, 1) < 2 && tp_cur(st) && tp_cur(st)->nframes)
			tp_close(st);
		return 0;
	}
	for (f = tp_formats; f->name; f++)
		if (f->line(st, s, indent))
			return 0;
	/* a frame we cannot read is named in the report; it does not split
	 * the stack around it */
	if (looks_like_frame(s)) {
		note_unparsed(st, s);
		return 0;
	}
	/* prose ends the block, unless a format keeps it (a sanitizer report
	 * runs on to its SUMMARY) */
	switch (idle(st, 0)) {
	case 2:
		break;
	case 1:
		tp_close(st);
		break;
	default:
		tp_end_block(st);
	}
	return 0;
}

/*
 * gdb's "<signal handler called>" on the crashed thread: the frame below it
 * is the crash site, as a core's signal frame makes it (threads[].crash_frame;
 * the signature and the patterns start there). The frames above run in the
 * handler.
 */
static void mark_signal_frame(struct prov_crash *c)
{
	struct prov_thread *t = prov_crash_crashed_thread(c);
	size_t i, k;

	if (!t || t->has_crash_frame)
		return;
	for (k = 0; k + 1 < t->nframes; k++)
		if (t->frames[k].function && !strcmp(t->frames[k].function, "<signal handler called>"))
			break;
	if (k + 1 >= t->nframes)
		return;
	t->frames[k].signal_frame = 1;
	for (i = 0; i < k; i++)
		t->frames[i].in_handler = 1;
	t->has_crash_frame = 1;
	t->crash_frame = k + 1;
}

/*
 * A frame with no module whose source path says what installed or built it
 * names that file as a module (one per package root), so that the resolvers
 * find its package: the dpkg/rpm owner, the pip distribution, else a guess
 * from the path. Each such module says so in its note.
 */
static void infer_modules(struct tp_state *st)
{
	struct prov_crash *c = st->c;
	char *roots[64];
	size_t nroots = 0, i, j, k, before = c->nmodules;

	for (i = 0; i < c->nthreads && nroots < 64; i++)
		for (j = 0; j < c->threads[i].nframes && nroots < 64; j++) {
			const struct prov_frame *f = &c->threads[i].frames[j];
			size_t n;

			if (f->module || !f->file || (n = prov_buildpath_root_len(f->file)) == 0)
				continue;
			for (k = 0; k < nroots; k++)
				if (strlen(roots[k]) == n && memcmp(roots[k], f->file, n) == 0)
					break;
			if (k < nroots)
				continue;
			roots[nroots++] = prov_xstrndup(f->file, n);
			tp_module_note(st, f->file, strlen(f->file), NULL, 0);
		}
	for (k = 0; k < nroots; k++)
		free(roots[k]);
	for (i = before; i < c->nmodules; i++) {
		c->modules[i].inferred = 1;
		if (!c->modules[i].note)
			c->modules[i].note = prov_xstrdup("inferred from a source path in the backtrace");
	}
}

static void finish(struct tp_state *st)
{
	const struct tp_format *f;
	struct prov_crash *c = st->c;
	size_t i, pick = (size_t)-1, named = (size_t)-1;
	int best = TP_NONE;

	for (f = tp_formats; f->name; f++)
		if (f->end)
			f->end(st);
	tp_end_block(st);
	/* threads that never got a frame say nothing */
	if (c->nthreads) {
		unsigned char *drop = prov_xcalloc(c->nthreads, 1);

		for (i = 0; i < c->nthreads; i++)
			drop[i] = !c->threads[i].nframes;
		tp_drop_threads(st, drop);
		free(drop);
	}
	/* a format may drop copies; the one it names crashed, unless a thread
	 * already says so (a sanitizer's first stack, coredumpctl's first) */
	for (f = tp_formats; f->name; f++)
		if (f->settle) {
			size_t k = f->settle(st);

			if (k != (size_t)-1 && named == (size_t)-1)
				named = k;
		}
	for (i = 0; i < c->nthreads && pick == (size_t)-1; i++)
		if (c->threads[i].crashed)
			pick = i;
	if (pick == (size_t)-1)
		pick = named;
	if (pick == (size_t)-1 && c->nthreads)
		pick = 0;
	for (i = 0; i < c->nthreads; i++)
		c->threads[i].crashed = i == pick;
	if (pick != (size_t)-1) {
		c->has_crashed_thread = 1;
		c->crashed_thread = pick;
	}
	tp_pybt_merge(st);
	for (i = 1; i < TP_NFMT; i++)
		if (st->counts[i] > (best ? st->counts[best] : 0) ||
		    (best && st->counts[i] == st->counts[best] && st->counts[i] &&
		     st->first_fmt[i] < st->first_fmt[best]))
			best = (int)i;
	c->format = prov_xstrdup_or_null(tp_fmt_name(best));
	mark_signal_frame(c);
	tp_cap_frames(st);
	/* frames name their modules; later stages resolve them */
	for (i = 0; i < c->nthreads; i++) {
		size_t k;

		for (k = 0; k < c->threads[i].nframes; k++) {
			const char *m = c->threads[i].frames[k].module;

			if (m)
				tp_module_note(st, m, strlen(m), NULL, 0);
		}
	}
	infer_modules(st);
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
	st.before_close = before_close;
	prov_buf_init(&st.pending, TP_MAX_LINE * 2);
	prov_buf_init(&line, TP_MAX_LINE + 1);

	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - data) : len;
		size_t n = end - pos;

		st.lineno++;
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
	free(st.crashed_thread_id);
	free(st.ub_file);
	free(st.learned);
	free(st.c10_what);
	free(st.mods.slots);
	return error;
}

/* The launcher's word on a group, onto its crash; a signal only when the text gave none. */
static void take_launch(struct prov_crash *c, const struct tp_group *g)
{
	struct prov_launch *l;

	c->label = prov_xstrdup_or_null(g->label);
	if (!g->has_launch && !g->task)
		return;
	l = c->launch = prov_xcalloc(1, sizeof(*l));
	l->launcher = prov_xstrdup_or_null(g->launch.launcher);
	l->host = prov_xstrdup_or_null(g->launch.host);
	l->task = prov_xstrdup_or_null(g->task);
	l->has_exit_code = g->launch.has_exit_code;
	l->exit_code = g->launch.exit_code;
	l->signo = g->launch.signo;
	l->error_file = prov_xstrdup_or_null(g->launch.error_file);
	if (l->signo > 0 && !c->has_signal) {
		c->has_signal = 1;
		c->signal.number = l->signo;
		c->signal.name = prov_xstrdup_or_null(prov_signal_name(l->signo));
	}
}

int prov_text_parse_all(struct prov_crash ***out, size_t *nout, const char *name,
			const char *data, size_t len)
{
	struct tp_groups gs;
	struct prov_crash **cs = NULL, *c;
	size_t i, n = 0;
	int error = 0;

	if (!name)
		name = "-";
	if (len > TP_MAX_INPUT)
		return prov_text_parse(&c, name, data, len);	/* its message */
	if (!data || !len)
		return prov_error_set(PROV_EINPUT, "'%s' holds no backtrace that provenance can read", name);
	if ((error = tp_groups_split(&gs, data, len, TP_MAX_LINE)) < 0)
		goto cleanup;
	cs = prov_xcalloc(gs.n ? gs.n : 1, sizeof(*cs));
	for (i = 0; i < gs.n; i++) {
		error = prov_text_parse(&c, name, gs.g[i].text.buf, gs.g[i].text.len);
		if (error == PROV_EINPUT)
			continue;	/* a rank that printed no backtrace */
		if (error < 0)
			goto cleanup;
		/* the launcher's own "ChildFailedError" traceback: its table annotates the ranks */
		if (gs.labelled && !gs.g[i].label && c->headline && c->headline->error &&
		    prov_ends_with(c->headline->error, "ChildFailedError")) {
			prov_crash_free(c);
			continue;
		}
		take_launch(c, &gs.g[i]);
		cs[n++] = c;
	}
	if (!n) {
		error = prov_error_set(PROV_EINPUT, "'%s' holds no backtrace that provenance can read",
				       name);
		goto cleanup;
	}
	*out = cs;
	*nout = n;
	cs = NULL;
	n = 0;
	error = 0;
cleanup:
	for (i = 0; i < n; i++)
		prov_crash_free(cs[i]);
	free(cs);
	tp_groups_release(&gs);
	return error;
}
