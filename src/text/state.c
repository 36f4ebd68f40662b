/*
 * Text backtraces: the threads, frames and modules being built, shared by
 * the driver and the formats. Nothing here calls a format: the driver
 * passes what must run before a thread closes as st->before_close.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "internal.h"
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
	[TP_VALGRIND] = "valgrind",
	[TP_CUDASAN] = "compute-sanitizer",
	[TP_KERNEL] = "kernel",
	[TP_PYBT] = "gdb-py-bt",
};

const char *tp_fmt_name(int fmt)
{
	if (fmt <= TP_NONE || fmt >= TP_NFMT)
		return NULL;
	return fmt_names[fmt];
}

static int is_blank(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
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

	if (st->before_close)
		st->before_close(st);
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
		st->threads_ignored++;
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

	/*
	 * A new stack starts at a lower index; gdb's starts at #0 only: it
	 * repeats an index now and then ("#6 0x0 in ?? ()" then "#6 f (...)")
	 * and pastes lose frames in the middle
	 */
	if (t && (ti->fmt != fmt ||
		  (fmt == TP_GDB && index == 0 && t->nframes) ||
		  (fmt != TP_GDB && index >= 0 && index <= ti->last_index)))
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
	h = prov_hash_bytes(path, len);
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

				slot = (size_t)(prov_hash_bytes(p, strlen(p)) & (n - 1));
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

void tp_set_headline(struct tp_state *st, const char *text, size_t n, const char *error,
		     size_t error_len, int replace)
{
	struct prov_headline *h = st->c->headline;

	if (h && !replace)
		return;
	if (!h)
		h = st->c->headline = prov_xcalloc(1, sizeof(*h));
	tp_set(&h->text, text, n);
	tp_set(&h->error, error, error_len);
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

void tp_drop_thread(struct tp_state *st, size_t k)
{
	struct prov_crash *c = st->c;

	prov_thread_release(&c->threads[k]);
	memmove(&c->threads[k], &c->threads[k + 1], (c->nthreads - k - 1) * sizeof(*c->threads));
	memmove(&st->ti[k], &st->ti[k + 1], (c->nthreads - k - 1) * sizeof(*st->ti));
	c->nthreads--;
}

void tp_drop_threads(struct tp_state *st, const unsigned char *drop)
{
	struct prov_crash *c = st->c;
	size_t i, n = 0;

	for (i = 0; i < c->nthreads; i++) {
		if (drop[i]) {
			prov_thread_release(&c->threads[i]);
			continue;
		}
		if (n != i) {
			c->threads[n] = c->threads[i];
			st->ti[n] = st->ti[i];
		}
		n++;
	}
	c->nthreads = n;
}

static size_t frame_bytes(const struct prov_frame *f)
{
	size_t n = 0, i;

	n += f->function ? strlen(f->function) : 0;
	n += f->module ? strlen(f->module) : 0;
	n += f->file ? strlen(f->file) : 0;
	for (i = 0; i < f->nargs; i++)
		n += (f->args[i].name ? strlen(f->args[i].name) : 0) +
		     (f->args[i].value ? strlen(f->args[i].value) : 0);
	return n;
}

/* How many of t's frames fit in what is left; takes them from *frames and *bytes. */
static size_t frames_fit(const struct prov_thread *t, size_t *frames, size_t *bytes)
{
	size_t k, b;

	for (k = 0; k < t->nframes && *frames; k++) {
		b = frame_bytes(&t->frames[k]);
		if (b > *bytes)
			break;
		*bytes -= b;
		(*frames)--;
	}
	return k;
}

void tp_cap_frames(struct tp_state *st)
{
	struct prov_crash *c = st->c;
	size_t frames = PROV_MAX_TOTAL_FRAMES, bytes = TP_MAX_FRAME_BYTES;
	size_t i, k, cut = 0, empty = 0;

	if (c->has_crashed_thread && c->crashed_thread < c->nthreads) {
		struct prov_thread *t = &c->threads[c->crashed_thread];

		/* the crash site is kept whatever the budget says */
		k = frames_fit(t, &frames, &bytes);
		if (!k && t->nframes) {
			k = 1;
			bytes = 0;
		}
		prov_thread_cut(t, k);
		if (k < t->nframes)
			cut++;
	}
	for (i = 0; i < c->nthreads; i++) {
		struct prov_thread *t = &c->threads[i];
		size_t had = t->nframes;

		if (c->has_crashed_thread && i == c->crashed_thread)
			continue;
		k = frames_fit(t, &frames, &bytes);
		if (k == had)
			continue;
		prov_thread_cut(t, k);
		cut++;
		empty += !k;
	}
	if (!cut && !st->threads_ignored)
		return;
	free(c->threads_note);
	if (st->threads_ignored)
		c->threads_note = prov_xasprintf("more than %d threads: the rest were ignored%s",
						 PROV_MAX_THREADS, cut ? "; " : "");
	else
		c->threads_note = prov_xstrdup("");
	if (cut) {
		char *s = c->threads_note;

		c->threads_note = prov_xasprintf("%smore than %d frames or %zu MiB of names in "
						 "all threads: %zu thread(s) marked truncated were "
						 "cut short, %zu of them to no frames", s,
						 PROV_MAX_TOTAL_FRAMES, TP_MAX_FRAME_BYTES >> 20,
						 cut, empty);
		free(s);
		prov_warn("'%s': %s", st->name, c->threads_note);
	}
}

int tp_str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

