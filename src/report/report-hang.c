/*
 * A snapshot's hang analysis (src/model/hang.c) in the three report forms:
 * groups of threads with identical stacks, what each blocked thread waits on
 * and who holds it, and the deadlock cycles of the wait-for graph.
 */
#include <inttypes.h>
#include <string.h>

#include "report.h"
#include "json.h"
#include "util.h"
#include "banned.h"

#define GROUP_FRAMES_SHOWN 8	/* text/Markdown: a group's innermost frames */

static void thread_label(struct prov_buf *b, const struct prov_crash *c, size_t i)
{
	const struct prov_thread *t = &c->threads[i];

	if (t->has_tid)
		prov_buf_printf(b, "%" PRId64, t->tid);
	else if (t->thread_id)
		prov_buf_puts(b, t->thread_id);
	else
		prov_buf_printf(b, "#%zu", i + 1);
}

static const char *frame_name(const struct prov_frame *f)
{
	return f->function ? f->function : "??";
}

static void group_stack(struct prov_buf *b, const struct prov_thread *t)
{
	size_t k;

	for (k = 0; k < t->nframes && k < GROUP_FRAMES_SHOWN; k++)
		prov_buf_printf(b, "%s%s", k ? " <- " : "", frame_name(&t->frames[k]));
	if (t->nframes > GROUP_FRAMES_SHOWN)
		prov_buf_printf(b, " <- ... (%zu frames)", t->nframes);
	if (!t->nframes)
		prov_buf_puts(b, "(no frames)");
}

static void group_threads(struct prov_buf *b, const struct prov_crash *c,
			  const struct prov_hang_group *g)
{
	size_t k;

	for (k = 0; k < g->nthreads; k++) {
		prov_buf_puts(b, k ? ", " : "");
		thread_label(b, c, g->threads[k]);
	}
}

static void wait_line(struct prov_buf *b, const struct prov_crash *c, const struct prov_hang_wait *w,
		      const char *code)
{
	prov_buf_puts(b, "thread ");
	thread_label(b, c, w->thread);
	prov_buf_printf(b, " waits on %s%s%s", code, w->on, code);
	if (w->has_owner)
		prov_buf_printf(b, ", held by thread %" PRId64, w->owner);
	else if (strncmp(w->on, "mutex", 5) == 0 || strncmp(w->on, "python-lock", 11) == 0)
		prov_buf_puts(b, ", owner unknown");
}

static void cycle_line(struct prov_buf *b, const struct prov_hang *h, size_t i)
{
	size_t k;

	prov_buf_puts(b, "deadlock: thread");
	for (k = 0; k < h->cycle_len[i]; k++)
		prov_buf_printf(b, " %" PRId64 " ->", h->cycles[i][k]);
	prov_buf_printf(b, " %" PRId64, h->cycles[i][0]);
}

void prov_report_hang_text(struct prov_buf *b, const struct prov_crash *c)
{
	const struct prov_hang *h = c->hang;
	size_t i;

	if (!h)
		return;
	prov_buf_printf(b, "Hang analysis: %zu thread(s) in %zu group(s) of identical stacks, "
			"%zu waiting, %zu deadlock(s)\n", c->nthreads, h->ngroups, h->nwaits,
			h->ncycles);
	for (i = 0; i < h->ncycles; i++) {
		prov_buf_puts(b, "  ");
		cycle_line(b, h, i);
		prov_buf_putc(b, '\n');
	}
	for (i = 0; i < h->ngroups; i++) {
		prov_buf_printf(b, "  group %zu: %zu thread(s): ", i + 1, h->groups[i].nthreads);
		group_threads(b, c, &h->groups[i]);
		prov_buf_puts(b, "\n    ");
		group_stack(b, &c->threads[h->groups[i].threads[0]]);
		prov_buf_putc(b, '\n');
	}
	for (i = 0; i < h->nwaits; i++) {
		prov_buf_puts(b, "  ");
		wait_line(b, c, &h->waits[i], "");
		prov_buf_putc(b, '\n');
	}
	prov_buf_putc(b, '\n');
}

void prov_report_hang_markdown(struct prov_buf *b, const struct prov_crash *c)
{
	const struct prov_hang *h = c->hang;
	size_t i;

	if (!h)
		return;
	prov_buf_puts(b, "### Hang analysis\n\n");
	if (h->ncycles) {
		for (i = 0; i < h->ncycles; i++) {
			prov_buf_puts(b, "- **");
			cycle_line(b, h, i);
			prov_buf_puts(b, "**\n");
		}
		prov_buf_putc(b, '\n');
	} else {
		prov_buf_puts(b, "No deadlock found among the owners that could be read.\n\n");
	}
	prov_buf_puts(b, "**Threads by identical stacks:**\n\n");
	for (i = 0; i < h->ngroups; i++) {
		prov_buf_printf(b, "- %zu thread(s): ", h->groups[i].nthreads);
		group_threads(b, c, &h->groups[i]);
		prov_buf_puts(b, "  \n  `");
		group_stack(b, &c->threads[h->groups[i].threads[0]]);
		prov_buf_puts(b, "`\n");
	}
	prov_buf_putc(b, '\n');
	if (h->nwaits) {
		prov_buf_puts(b, "**Waits:**\n\n");
		for (i = 0; i < h->nwaits; i++) {
			prov_buf_puts(b, "- ");
			wait_line(b, c, &h->waits[i], "`");
			prov_buf_putc(b, '\n');
		}
		prov_buf_putc(b, '\n');
	}
}

static void json_tid(struct prov_json *j, const struct prov_crash *c, size_t i)
{
	if (c->threads[i].has_tid)
		prov_json_int(j, c->threads[i].tid);
	else
		prov_json_null(j);
}

void prov_report_hang_json(struct prov_json *j, const struct prov_crash *c)
{
	const struct prov_hang *h = c->hang;
	const struct prov_thread *t;
	size_t i, k;

	prov_json_key(j, "hang");
	if (!h) {
		prov_json_null(j);
		return;
	}
	prov_json_begin_object(j);
	prov_json_key(j, "groups");
	prov_json_begin_array(j);
	for (i = 0; i < h->ngroups; i++) {
		prov_json_begin_object(j);
		prov_json_key(j, "threads");
		prov_json_begin_array(j);
		for (k = 0; k < h->groups[i].nthreads; k++)
			json_tid(j, c, h->groups[i].threads[k]);
		prov_json_end_array(j);
		prov_json_key(j, "frames");
		prov_json_begin_array(j);
		t = &c->threads[h->groups[i].threads[0]];
		for (k = 0; k < t->nframes; k++)
			prov_json_string(j, frame_name(&t->frames[k]));
		prov_json_end_array(j);
		prov_json_end_object(j);
	}
	prov_json_end_array(j);
	prov_json_key(j, "waits");
	prov_json_begin_array(j);
	for (i = 0; i < h->nwaits; i++) {
		prov_json_begin_object(j);
		prov_json_key(j, "thread");
		json_tid(j, c, h->waits[i].thread);
		prov_json_kv_string(j, "on", h->waits[i].on);
		if (h->waits[i].has_owner)
			prov_json_kv_int(j, "owner", h->waits[i].owner);
		else
			prov_json_kv_null(j, "owner");
		prov_json_end_object(j);
	}
	prov_json_end_array(j);
	prov_json_key(j, "deadlocks");
	prov_json_begin_array(j);
	for (i = 0; i < h->ncycles; i++) {
		prov_json_begin_array(j);
		for (k = 0; k < h->cycle_len[i]; k++)
			prov_json_int(j, h->cycles[i][k]);
		prov_json_end_array(j);
	}
	prov_json_end_array(j);
	prov_json_end_object(j);
}
