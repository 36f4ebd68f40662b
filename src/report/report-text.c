/* The text report of a crash, and the pieces of it the other formats share. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"
#include "banned.h"

/* Plain text, readable at a glance: summary, crashing thread first. */

/* Lines that did not come from a repository say where they came from. */
static void fetched_label(struct prov_buf *b, const struct prov_source *s)
{
	if (s->fetched_by && !strncmp(s->fetched_by, "single-file:", 12))
		prov_buf_printf(b, " (the file from %s, no mirror)", s->fetched_by + 12);
	else if (s->fetched_by && !strcmp(s->fetched_by, "debuginfod"))
		prov_buf_puts(b, " (the file from debuginfod, no mirror)");
}

/* Source lines from a commit that is only near the deployed build say so. */
static const char *approx_label(const struct prov_source *s)
{
	return s->commit_is && !strcmp(s->commit_is, "approximate") ?
	       " (approximate commit: near the deployed build, not it)" : "";
}

static void frame_vars(struct prov_buf *b, const char *kind, const struct prov_var *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		prov_buf_printf(b, "         %s %s = ", kind, v[i].name ? v[i].name : "?");
		if (v[i].value)
			prov_buf_puts(b, v[i].value);
		else
			prov_buf_printf(b, "<%s>", v[i].note ? v[i].note : "unknown");
		prov_buf_printf(b, "  (%s)\n", v[i].type ? v[i].type : "?");
	}
}

/* frame_line: this frame is the crash site below a signal handler */
#define FRAME_CRASH_SITE 0x40000000u

static void frame_line(struct prov_buf *b, const struct prov_frame *f, unsigned int flags)
{
	prov_buf_printf(b, "  #%-3d ", f->index);
	if (f->has_pc)
		prov_buf_printf(b, "0x%016" PRIx64 " ", f->pc);
	else if (f->inlined)
		prov_buf_puts(b, "[inlined]          ");
	else if (f->python)
		prov_buf_puts(b, "[python]           ");
	else
		prov_buf_puts(b, "                   ");
	prov_buf_puts(b, f->function ? f->function : "??");
	if (f->has_offset && !f->inlined)
		prov_buf_printf(b, "+0x%" PRIx64, f->offset);
	if (f->inlined)
		prov_buf_puts(b, " (inlined)");
	if (f->file) {
		prov_buf_printf(b, " at %s", f->file);
		if (f->line > 0)
			prov_buf_printf(b, ":%d", f->line);
	}
	if (f->module)
		prov_buf_printf(b, " [%s]", prov_basename(f->module));
	if (f->located_by)
		prov_buf_puts(b, " (no line info; source located by name, a guess)");
	if (f->location_guess)
		prov_buf_puts(b, " (looked up in a file whose build ID could not be checked: a guess)");
	if (f->in_handler)
		prov_buf_puts(b, " (in a signal handler)");
	if (f->unwind_derived)
		prov_buf_puts(b, " (unwound by the return address at the callee's sp: no CFI there)");
	if (flags & FRAME_CRASH_SITE)
		prov_buf_puts(b, "  <- crash site");
	if ((flags & PROV_REPORT_RESOLVE) && f->repo_path) {
		prov_buf_printf(b, "\n         -> %s%s%s", f->component ? f->component : "",
				f->component ? ":" : "", f->repo_path);
		if (f->line > 0)
			prov_buf_printf(b, ":%d", f->line);
		if (f->path_rule)
			prov_buf_printf(b, " (%s)", f->path_rule);
	}
	prov_buf_putc(b, '\n');
	if ((flags & PROV_REPORT_LOCALS) && f->has_vars) {
		frame_vars(b, "arg", f->args, f->nargs);
		frame_vars(b, "local", f->locals, f->nlocals);
	}
}

static void thread_block(struct prov_buf *b, const struct prov_thread *t, unsigned int flags)
{
	size_t i;

	prov_buf_puts(b, "Thread");
	if (t->has_tid)
		prov_buf_printf(b, " %" PRId64, t->tid);
	if (t->thread_id)
		prov_buf_printf(b, " %s%s%s", t->has_tid ? "(" : "", t->thread_id, t->has_tid ? ")" : "");
	if (t->name)
		prov_buf_printf(b, " \"%s\"", t->name);
	if (t->crashed)
		prov_buf_puts(b, " (crashed)");
	if (t->holds_gil)
		prov_buf_puts(b, " (holds the GIL)");
	prov_buf_puts(b, ":\n");
	for (i = 0; i < t->nframes; i++)
		frame_line(b, &t->frames[i], flags | (t->crashed && t->has_crash_frame &&
						      i == t->crash_frame ? FRAME_CRASH_SITE : 0));
	if (!t->nframes)
		prov_buf_puts(b, "  (no frames)\n");
	if (t->truncated)
		prov_buf_printf(b, "  ... stopped after %zu frames\n", t->nframes);
	if (t->unwind_error)
		prov_buf_printf(b, "  (unwinding stopped: %s)\n", t->unwind_error);
	if (t->python_note)
		prov_buf_printf(b, "  (Python frames: %s)\n", t->python_note);
}

static void registers_block(struct prov_buf *b, const struct prov_thread *t)
{
	size_t i;

	if (!t->regs || !t->nregs)
		return;
	if (t->has_crash_frame)
		prov_buf_printf(b, "Registers (frame #%d, as the kernel saved them for the signal handler):\n",
				t->frames[prov_thread_crash_frame(t)].index);
	else
		prov_buf_puts(b, "Registers:\n");
	for (i = 0; i < t->nregs; i++) {
		prov_buf_printf(b, "  %-8s 0x%016" PRIx64, t->regs[i].name, t->regs[i].value);
		prov_buf_puts(b, (i % 3 == 2 || i + 1 == t->nregs) ? "\n" : "");
	}
}

void prov_report_kernel_line(struct prov_buf *b, const struct prov_crash *c, const char *indent)
{
	const struct prov_kernel_line *k = c->kernel_line;

	if (!k)
		return;
	prov_buf_printf(b, "%s%s", indent, k->kind ? k->kind : "fault");
	if (k->module)
		prov_buf_printf(b, " in %s", k->module);
	if (k->has_ip)
		prov_buf_printf(b, " at ip 0x%" PRIx64, k->ip);
	if (k->has_base)
		prov_buf_printf(b, ", mapping 0x%" PRIx64 "+0x%" PRIx64, k->base, k->size);
	if (k->has_file_offset)
		prov_buf_printf(b, ", file offset 0x%" PRIx64, k->file_offset);
	if (k->has_sp)
		prov_buf_printf(b, ", sp 0x%" PRIx64, k->sp);
	if (k->has_cpu)
		prov_buf_printf(b, ", CPU %d", k->cpu);
	prov_buf_putc(b, '\n');
	if (k->has_error) {
		prov_buf_printf(b, "%serror %" PRIu64, indent, k->error);
		if (k->kind && strcmp(k->kind, "segfault") == 0) {
			char *t = prov_kernel_error_text(k->error);

			prov_buf_printf(b, ": %s", t);
			free(t);
		}
		prov_buf_putc(b, '\n');
	}
	if (k->note)
		prov_buf_printf(b, "%s%s\n", indent, k->note);
}

static void signal_text(struct prov_buf *b, const struct prov_signal *s)
{
	const char *name = s->name ? s->name : prov_signal_name(s->number);

	prov_buf_printf(b, "%s (%d)", name ? name : "signal", s->number);
	if (s->has_code)
		prov_buf_printf(b, ", %s", s->code_name ? s->code_name : "code");
	if (s->has_code && !s->code_name)
		prov_buf_printf(b, " %d", s->code);
	if (s->has_addr)
		prov_buf_printf(b, ", fault address 0x%" PRIx64, s->addr);
	if (s->has_sender)
		prov_buf_printf(b, ", sent by pid %" PRId64, s->sender_pid);
}

void prov_report_signal_summary(struct prov_buf *b, const struct prov_crash *c)
{
	signal_text(b, &c->signal);
}

void prov_report_reraised_summary(struct prov_buf *b, const struct prov_crash *c)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);

	if (!c->has_delivered)
		return;
	prov_buf_puts(b, "a signal handler caught it and re-raised it as ");
	signal_text(b, &c->delivered);
	if (t && t->has_crash_frame)
		prov_buf_printf(b, "; the crash site is frame #%d, below <signal handler called>",
				t->frames[prov_thread_crash_frame(t)].index);
}

/* Possible upstream fixes (src/sources/suspects.h), best first, at most 10. */
static void suspects_block(struct prov_buf *b, const struct prov_crash *c)
{
	size_t i, k, shown = c->nsuspects < 10 ? c->nsuspects : 10;

	if (!c->nsuspects && !c->suspects_note && !c->suspects_frames)
		return;
	prov_buf_puts(b, "Possible upstream fixes (commits after the deployed one that changed the crash lines or their functions):\n");
	if (!c->nsuspects && c->suspects_frames)
		prov_buf_printf(b, "  none found (%zu frame%s looked at)\n", c->suspects_frames,
				c->suspects_frames == 1 ? "" : "s");
	for (i = 0; i < shown; i++) {
		const struct prov_suspect *x = &c->suspects[i];

		prov_buf_printf(b, "  %.12s %s %s: %s\n      %s of frame", x->commit,
				x->date ? x->date : "?", x->component ? x->component : "?",
				x->subject ? x->subject : "", x->crash_line ? "changes the crash line" :
				"changes the function");
		for (k = 0; k < x->nframes; k++)
			prov_buf_printf(b, "%s #%d", k ? "," : "", x->frames[k]);
		prov_buf_printf(b, " (%s%s%s); %s%s\n", x->path ? x->path : "?",
				x->function ? ", " : "", x->function ? x->function : "",
				x->first_tag ? "first in " : "in no release yet",
				x->first_tag ? x->first_tag : "");
	}
	if (c->nsuspects > shown)
		prov_buf_printf(b, "  (%zu more not shown; see --format json)\n", c->nsuspects - shown);
	if (c->suspects_note)
		prov_buf_printf(b, "  note: %s\n", c->suspects_note);
	if (c->suspects_fixcheck)
		prov_buf_printf(b, "  check the top one: %s\n", c->suspects_fixcheck);
	prov_buf_putc(b, '\n');
}

void prov_report_caveats(struct prov_buf *b, const struct prov_crash *c, const char *prefix)
{
	size_t i, j;

	if (c->partial)
		prov_buf_printf(b, "%sPARTIAL: the core is truncated inside its memory segments; "
				"threads whose stack is missing could not be unwound, and no crash "
				"pattern is derived from what is missing\n", prefix);
	if (c->snapshot)
		prov_buf_printf(b, "%sSNAPSHOT: %s; no thread crashed\n", prefix,
				c->format && strcmp(c->format, "process") == 0 ?
				"a live process, read through ptrace" :
				"the core was taken from a live process (gcore)");
	for (i = 0; i < c->nmodules; i++) {
		const struct prov_module *m = &c->modules[i];
		int dup = 0;

		if (!m->build_id_mismatch || !m->origin)
			continue;
		for (j = 0; j < i && !dup; j++)
			dup = c->modules[j].build_id_mismatch && c->modules[j].origin &&
			      m->path && c->modules[j].path && !strcmp(m->path, c->modules[j].path);
		if (dup)
			continue;
		prov_buf_printf(b, "%sinstalled %s %s (%s) does not match the crash: the core's "
				"build ID differs; give --sysroot with the crashed system's root or "
				"install the matching package\n", prefix,
				m->origin->name ? m->origin->name : "?",
				m->origin->version ? m->origin->version : "?", m->path);
	}
}

/* Full ids shortened to 12 hex; patch names as they are. */
static void short_ids(struct prov_buf *b, const char *list)
{
	const char *p = list;

	while (p && *p) {
		size_t l = strcspn(p, " ");

		if (p != list)
			prov_buf_putc(b, ' ');
		prov_buf_add(b, p, l == 40 ? 12 : l);
		p += l;
		p += strspn(p, " ");
	}
}

char *prov_report_fix_how(const struct prov_fix_status *x)
{
	struct prov_buf b = PROV_BUF_INIT;

	if (!x->known) {
		prov_buf_printf(&b, "could not be determined: %s", x->note ? x->note : "unknown");
	} else if (x->how && !strcmp(x->how, "ancestor")) {
		prov_buf_puts(&b, "by ancestry");
	} else if (x->how && !strcmp(x->how, "cherry-pick")) {
		prov_buf_puts(&b, "as cherry-pick ");
		short_ids(&b, x->via);
	} else if (x->how && !strcmp(x->how, "distribution-patch")) {
		prov_buf_puts(&b, "as distribution patch ");
		short_ids(&b, x->via);
	} else if (x->how && !strcmp(x->how, "adapted")) {
		prov_buf_puts(&b, "adapted (");
		short_ids(&b, x->via);
		prov_buf_putc(&b, ')');
	} else {
		if (x->how && !strcmp(x->how, "partial")) {
			prov_buf_puts(&b, "partly (");
			short_ids(&b, x->via);
			if (x->commits_missing) {
				prov_buf_puts(&b, "; missing commits ");
				short_ids(&b, x->commits_missing);
				prov_buf_puts(&b, "); ");
			} else {
				prov_buf_printf(&b, "; missing %s); ", x->files_missing ? x->files_missing : "?");
			}
		}
		if (x->branch_tag)
			prov_buf_printf(&b, "upgrade to %s, same branch %s", x->branch_tag,
					x->branch ? x->branch : "?");
		else if (x->first_tag)
			prov_buf_printf(&b, "upgrade to %s or backport it", x->first_tag);
		else
			prov_buf_puts(&b, "in no release yet: backport it");
	}
	prov_report_fix_evidence(&b, x->evidence, x->nevidence, x->how);
	return prov_buf_detach(&b);
}

void prov_report_fix_evidence(struct prov_buf *b, const struct prov_fix_evidence *ev, size_t n,
			      const char *how)
{
	static const char *const states[] = { "present-exact", "present-changed-lines", "test-only", "absent",
					      "unknown", NULL };
	static const char *const words[] = { "exact", "by changed lines", "test-only (not shipped)", "absent",
					     "neither present nor absent", NULL };
	size_t k, s, cnt;
	const char *sep = "";

	if (!n || (how && (!strcmp(how, "ancestor") || !strcmp(how, "cherry-pick"))))
		return;
	prov_buf_puts(b, "; hunks:");
	for (s = 0; states[s]; s++) {
		for (cnt = 0, k = 0; k < n; k++)
			cnt += !strcmp(ev[k].state, states[s]);
		if (cnt) {
			prov_buf_printf(b, "%s %zu %s", sep, cnt, words[s]);
			sep = ",";
		}
	}
	for (k = 0; k < n; k++) {
		const struct prov_fix_evidence *e = &ev[k];

		if (strcmp(e->state, "absent") && strcmp(e->state, "unknown") &&
		    strcmp(e->state, "present-changed-lines"))
			continue;
		prov_buf_printf(b, " [%s %s %s", e->file, e->hunk, e->state);
		if (e->via) {
			prov_buf_puts(b, " via ");
			short_ids(b, e->via);
		}
		prov_buf_putc(b, ']');
	}
}

/* What crashed: the signal, the tool's headline, a kernel line, a handler, the crashing thread. */
static void crash_lines(struct prov_buf *b, const struct prov_crash *c,
			const struct prov_thread *crashed)
{
	if (c->has_signal) {
		prov_buf_puts(b, "signal: ");
		prov_report_signal_summary(b, c);
		prov_buf_putc(b, '\n');
	}
	if (c->headline && c->headline->text)
		prov_buf_printf(b, "%s: %s\n", c->has_signal ? "headline" : "crash", c->headline->text);
	if (c->kernel_line) {
		prov_buf_puts(b, "kernel line:\n");
		prov_report_kernel_line(b, c, "  ");
	}
	if (c->has_delivered) {
		prov_buf_puts(b, "handler: ");
		prov_report_reraised_summary(b, c);
		prov_buf_putc(b, '\n');
	}
	if (c->snapshot)
		prov_buf_puts(b, "snapshot: no thread crashed\n");
	if (crashed) {
		prov_buf_puts(b, "crashing thread:");
		if (crashed->has_tid)
			prov_buf_printf(b, " %" PRId64, crashed->tid);
		else if (crashed->thread_id)
			prov_buf_printf(b, " %s", crashed->thread_id);
		if (crashed->name)
			prov_buf_printf(b, " \"%s\"", crashed->name);
		prov_buf_putc(b, '\n');
	}
}


/*
 * What the core analyzer could not read of the crashing thread. A core of a
 * machine whose registers and code are not read at all (s390, ppc, sparc...)
 * says so in one line; the JSON keeps both notes.
 */
static void unread_lines(struct prov_buf *b, const struct prov_crash *c)
{
	int insns_note = !c->ninsns && c->insns_note;

	if (c->registers_note && insns_note && c->machine &&
	    !prov_machine_reads(c->machine, c->machine_is64)) {
		prov_buf_printf(b, "no registers or disassembly: not supported for %s cores, "
				"nor the crash patterns that read operands\n",
				prov_machine_name(c->machine, c->machine_is64));
		return;
	}
	if (c->registers_note)
		prov_buf_printf(b, "no registers: %s\n", c->registers_note);
	if (insns_note)
		prov_buf_printf(b, "no disassembly: %s\n", c->insns_note);
}

/* Everything up to the module table: what is known without the network. */
static int report_text_head(struct prov_buf *b, const struct prov_crash *c, unsigned int flags)
{
	const struct prov_thread *crashed = prov_crash_crashed_thread(c);
	size_t i;

	prov_buf_printf(b, "%s: %s", c->kind != PROV_INPUT_CORE ? "backtrace" :
			c->format && strcmp(c->format, "process") == 0 ? "live process" : "core",
			c->input_path ? c->input_path : "-");
	if (c->kind == PROV_INPUT_TEXT && c->format)
		prov_buf_printf(b, " (%s)", c->format);
	prov_buf_putc(b, '\n');
	prov_report_caveats(b, c, "warning: ");
	if (c->unparsed_lines) {
		prov_buf_printf(b, "not read: %zu line(s) that look like frames%s\n", c->unparsed_lines,
				c->unparsed_lines > c->nunparsed ? "; the first:" : ":");
		for (i = 0; i < c->nunparsed; i++)
			prov_buf_printf(b, "  line %s\n", c->unparsed[i]);
	}
	if (c->has_process) {
		prov_buf_puts(b, "process:");
		if (c->process.has_pid)
			prov_buf_printf(b, " pid %" PRId64, c->process.pid);
		if (c->process.executable)
			prov_buf_printf(b, " %s", c->process.executable);
		prov_buf_putc(b, '\n');
		if (c->process.cmdline)
			prov_buf_printf(b, "command: %s\n", c->process.cmdline);
	}
	crash_lines(b, c, crashed);
	prov_buf_printf(b, "context: %s\n", prov_context_name(c->context));
	if (c->python_version)
		prov_buf_printf(b, "python: %s%s\n", c->python_version,
				c->python_finalizing ? " (finalizing: an exit-time crash)" : "");
	if (c->python_note)
		prov_buf_printf(b, "python: %s\n", c->python_note);
	if (c->determinism)
		prov_buf_printf(b, "determinism: %s\n", c->determinism);
	for (i = 0; i < c->npatterns; i++)
		prov_buf_printf(b, "pattern: %s (%s)\n", c->patterns[i].id,
				c->patterns[i].evidence);
	prov_buf_printf(b, "threads: %zu, modules: %zu\n\n", c->nthreads, c->nmodules);
	if (c->threads_note)
		prov_buf_printf(b, "note: %s\n\n", c->threads_note);
	prov_report_hang_text(b, c);

	if (crashed) {
		thread_block(b, crashed, flags);
		if (flags & PROV_REPORT_REGISTERS) {
			registers_block(b, crashed);
			if (c->ninsns) {
				prov_buf_puts(b, "Code:\n");
				for (i = 0; i < c->ninsns; i++)
					prov_buf_printf(b, "  %s 0x%016" PRIx64 ":  %s\n",
							c->insns[i].current ? "=>" : "  ",
							c->insns[i].addr, c->insns[i].text);
			}
			if (c->fault_operand)
				prov_buf_printf(b, "  (%s)\n", c->fault_operand);
		}
		unread_lines(b, c);
		prov_buf_putc(b, '\n');
	}
	for (i = 0; i < c->nthreads; i++) {
		if (&c->threads[i] == crashed)
			continue;
		if (!(flags & PROV_REPORT_ALL_THREADS) && crashed)
			continue;
		thread_block(b, &c->threads[i], flags);
		prov_buf_putc(b, '\n');
	}
	if (!(flags & PROV_REPORT_ALL_THREADS) && crashed && c->nthreads > 1)
		prov_buf_printf(b, "(%zu other threads not shown)\n\n", c->nthreads - 1);

	if ((flags & PROV_REPORT_MODULES) && c->nmodules) {
		prov_buf_puts(b, "Modules:\n");
		for (i = 0; i < c->nmodules; i++) {
			const struct prov_module *m = &c->modules[i];

			if (m->has_range)
				prov_buf_printf(b, "  0x%012" PRIx64 "-0x%012" PRIx64 " ", m->start, m->end);
			else
				prov_buf_puts(b, "  ");
			prov_buf_puts(b, m->path ? m->path : "?");
			if (m->build_id)
				prov_buf_printf(b, "  build-id %s", m->build_id);
			if (m->origin)
				prov_buf_printf(b, "  [%s %s %s%s]", m->origin->kind,
						m->origin->name ? m->origin->name : "?",
						m->origin->version ? m->origin->version : "?",
						m->origin->guess ? ", guessed from the path" :
						m->origin->build_id_mismatch ? ", installed, not the crashed build" : "");
			if (!m->file && c->kind == PROV_INPUT_CORE)
				prov_buf_puts(b, "  (file not found)");
			if (m->note)
				prov_buf_printf(b, "\n      note: %s", m->note);
			prov_buf_putc(b, '\n');
		}
		prov_buf_putc(b, '\n');
	}

	return 0;
}

/* Components, sources, suspects, fix status: what the network may bring. */
static int report_text_tail(struct prov_buf *b, const struct prov_crash *c, unsigned int flags)
{
	size_t i, others = 0;

	if (flags & PROV_REPORT_RESOLVE) {
		if (c->ncomponents) {
			prov_buf_puts(b, "Components:\n");
			for (i = 0; i < c->ncomponents; i++) {
				const struct prov_component *p = &c->components[i];

				/* the crash chain's; the others are counted */
				if (!(flags & PROV_REPORT_ALL_COMPONENTS) && !p->in_crash_chain) {
					others++;
					continue;
				}
				prov_buf_printf(b, "  %-24s %-20s %s", p->name ? p->name : "?",
						p->version ? p->version : "-",
						p->commit ? p->commit : "-");
				if (p->repo)
					prov_buf_printf(b, "  %s", p->repo);
				if (p->ref)
					prov_buf_printf(b, " @ %s", p->ref);
				if (p->found_by)
					prov_buf_printf(b, "  (%s%s%s)", p->found_by,
							p->commit && p->commit_is ? ", " : "",
							p->commit && p->commit_is ? p->commit_is : "");
				if (p->note)
					prov_buf_printf(b, "\n      note: %s", p->note);
				prov_buf_putc(b, '\n');
			}
			if (others)
				prov_buf_printf(b, "  and %zu other component%s loaded; --all-components lists them\n",
						others, others == 1 ? "" : "s");
			prov_buf_putc(b, '\n');
		}
		for (i = 0; i < c->nsources; i++) {
			const struct prov_source *s = &c->sources[i];
			size_t k;

			if (s->fetched_by && !strcmp(s->fetched_by, "local-file"))
				prov_buf_printf(b, "Source of frame #%d: %s:%d (the file at its DWARF "
						"path on this host, no package or commit known)\n",
						s->frame_index, s->path, s->line);
			else if (s->build_id)
				prov_buf_printf(b, "Source of frame #%d from debuginfod (build ID %s): %s:%d\n",
						s->frame_index, s->build_id, s->path, s->line);
			else if (s->located_by)
				prov_buf_printf(b, "Source of frame #%d, located by name (a guess%s): %s "
						"defined at %s:%s:%d at %.12s%s\n", s->frame_index,
						s->candidates > 1 ? ", one of several candidates" : "",
						s->function ? s->function : "?",
						s->component ? s->component : "?", s->path, s->line,
						s->commit ? s->commit : "?", approx_label(s));
			else {
				prov_buf_printf(b, "Source of frame #%d: %s:%s:%d at %.12s%s",
						s->frame_index, s->component ? s->component : "?",
						s->path, s->line, s->commit ? s->commit : "?", approx_label(s));
				fetched_label(b, s);
				prov_buf_putc(b, '\n');
			}
			for (k = 0; k < s->nlines; k++)
				prov_buf_printf(b, "%s %5d  %s\n",
						s->lines[k].number == s->line ? ">" : " ",
						s->lines[k].number, s->lines[k].text);
			prov_buf_putc(b, '\n');
		}
		suspects_block(b, c);
	}
	if (c->nfixes) {
		prov_buf_puts(b, "Fix status:\n");
		for (i = 0; i < c->nfixes; i++) {
			const struct prov_fix_status *x = &c->fixes[i];
			char *how = prov_report_fix_how(x);

			if (!x->known)
				prov_buf_printf(b, "  ?   %s: %s\n", x->fix, how);
			else
				prov_buf_printf(b, "  %-3s %.*s %s the deployed %s (%.12s)%s%s: %s\n",
						x->included ? "YES" : "NO",
						strstr(x->fix, "..") ? (int)strlen(x->fix) : 12,
						x->fix_commit && !strstr(x->fix, "..") ? x->fix_commit : x->fix,
						x->included ? "is in" : "is not in",
						x->component ? x->component : "build",
						x->deployed ? x->deployed : "?",
						x->first_tag ? ", first in tag " : "",
						x->first_tag ? x->first_tag : "", how);
			free(how);
		}
		prov_buf_putc(b, '\n');
	}
	return 0;
}

int prov_report_text(struct prov_buf *b, const struct prov_crash *c, unsigned int flags)
{
	size_t start = b->len;
	int err = 0;

	if (!(flags & PROV_REPORT_TAIL))
		report_text_head(b, c, flags);
	if (!(flags & PROV_REPORT_HEAD)) {
		size_t mark = b->len, tail;

		/* a tail printed alone starts with the blank line the head ended with */
		if (flags & PROV_REPORT_TAIL)
			prov_buf_putc(b, '\n');
		tail = b->len;
		report_text_tail(b, c, flags);
		if (b->len == tail && b->buf) {
			b->len = mark;
			b->buf[mark] = '\0';
		}
	}
	prov_buf_rtrim(b);
	if (b->len > start)
		err = prov_buf_putc(b, '\n');

	/* every string from input (function names, paths, notes): no raw control characters */
	prov_escape_controls(b, start, 1);
	return err;
}
