/* The Markdown report of a crash, read from the model only. */
#include <elf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"
#include "report.h"
#include "util.h"
#include "banned.h"

/*
 * The crash report in the structure of a coredump-analysis runbook
 * (docs/report.md): signal, crashing thread, context, determinism, call
 * chain, crashing instruction, container environment, source, fix status,
 * next steps. GitHub-flavoured Markdown: table cells escape '|' and never
 * hold a newline.
 */

static void cell(struct prov_buf *b, const char *s)
{
	if (!s || !*s) {
		prov_buf_puts(b, "—");
		return;
	}
	for (; *s; s++) {
		if (*s == '|')
			prov_buf_puts(b, "\\|");
		else if (*s == '\n' || *s == '\r')
			prov_buf_putc(b, ' ');
		else if (*s == '`')
			prov_buf_putc(b, '\'');
		else
			prov_buf_putc(b, *s);
	}
}

static void code_cell(struct prov_buf *b, const char *s)
{
	if (!s || !*s) {
		prov_buf_puts(b, "—");
		return;
	}
	prov_buf_putc(b, '`');
	cell(b, s);
	prov_buf_putc(b, '`');
}

static const char *thread_role(const struct prov_crash *c, const struct prov_thread *t)
{
	if (c->context == PROV_CONTEXT_EXIT)
		return "exit handler";
	if (c->context == PROV_CONTEXT_MODULE_LOAD)
		return "module load";
	if (c->has_process && c->process.has_pid && t->has_tid && t->tid == c->process.pid)
		return "main thread";
	if (t->nframes) {
		const char *last = t->frames[t->nframes - 1].function;

		if (last && (strstr(last, "clone") || strstr(last, "start_thread")))
			return "worker thread";
		if (last && (strcmp(last, "_start") == 0 || strstr(last, "__libc_start_main")))
			return "main thread";
	}
	return NULL;
}

static const char *context_text(enum prov_context ctx)
{
	switch (ctx) {
	case PROV_CONTEXT_RUNTIME:
		return "runtime";
	case PROV_CONTEXT_EXIT:
		return "exit-time cleanup";
	case PROV_CONTEXT_MODULE_LOAD:
		return "module load";
	default:
		return "unknown";
	}
}

static void frames_table(struct prov_buf *b, const struct prov_crash *c, const struct prov_thread *t);

static void call_chain(struct prov_buf *b, const struct prov_crash *c, const struct prov_thread *t)
{
	prov_buf_puts(b, "### Crash call chain\n\n");
	frames_table(b, c, t);
}

/* "Thread 4242 (0x7f…) \"name\"" */
static void thread_title(struct prov_buf *b, const struct prov_thread *t)
{
	prov_buf_puts(b, "Thread");
	if (t->has_tid)
		prov_buf_printf(b, " %" PRId64, t->tid);
	if (t->thread_id)
		prov_buf_printf(b, t->has_tid ? " (`%s`)" : " `%s`", t->thread_id);
	if (t->name) {
		prov_buf_puts(b, " ");
		code_cell(b, t->name);
	}
}

/* --all-threads: every other thread's frames, in the order of the input */
static void other_threads(struct prov_buf *b, const struct prov_crash *c, const struct prov_thread *crashed,
			  unsigned int flags)
{
	size_t i, others = 0;

	for (i = 0; i < c->nthreads; i++)
		others += &c->threads[i] != crashed;
	if (!others)
		return;
	if (!(flags & PROV_REPORT_ALL_THREADS)) {
		prov_buf_printf(b, "*(%zu other thread%s not shown; `--all-threads` shows them)*\n\n", others,
				others == 1 ? "" : "s");
		return;
	}
	prov_buf_puts(b, crashed || !c->snapshot ? "### Other threads\n\n" : "### Threads\n\n");
	for (i = 0; i < c->nthreads; i++) {
		const struct prov_thread *t = &c->threads[i];

		if (t == crashed)
			continue;
		prov_buf_puts(b, "#### ");
		thread_title(b, t);
		if (t->holds_gil)
			prov_buf_puts(b, " (holds the GIL)");
		prov_buf_puts(b, "\n\n");
		frames_table(b, c, t);
	}
}

static void frames_table(struct prov_buf *b, const struct prov_crash *c, const struct prov_thread *t)
{
	size_t i;

	if (!t || !t->nframes) {
		prov_buf_puts(b, "No frames.\n\n");
		return;
	}
	prov_buf_puts(b, "| Frame | Function | Library / Source | Component |\n"
			 "|-------|----------|------------------|-----------|\n");
	for (i = 0; i < t->nframes; i++) {
		const struct prov_frame *f = &t->frames[i];
		struct prov_buf where = PROV_BUF_INIT;
		const struct prov_module *m = f->module ? prov_crash_module_by_path(c, f->module) : NULL;

		prov_buf_printf(b, "| #%d%s%s | ", f->index,
				f->inlined ? " (inlined)" : f->python ? " (Python)" : "",
				t->has_crash_frame && i == t->crash_frame ? " **crash site**" :
				f->in_handler ? " (signal handler)" : "");
		code_cell(b, f->function ? f->function : "??");
		prov_buf_puts(b, " | ");
		if (f->module)
			prov_buf_puts(&where, prov_basename(f->module));
		if (f->repo_path || f->file) {
			if (where.len)
				prov_buf_puts(&where, " — ");
			prov_buf_puts(&where, f->repo_path ? f->repo_path : f->file);
			if (f->line > 0)
				prov_buf_printf(&where, ":%d", f->line);
		}
		if (f->located_by)
			prov_buf_puts(&where, " — no line info; source located by name (a guess)");
		if (f->location_guess)
			prov_buf_puts(&where, " — looked up in a file whose build ID could not be checked (a guess)");
		cell(b, where.buf);
		prov_buf_puts(b, " | ");
		if (f->component)
			cell(b, f->component);
		else if (m && m->origin)
			prov_buf_printf(b, "%s (%s)", m->origin->name ? m->origin->name : "?",
					m->origin->kind);
		else
			prov_buf_puts(b, "—");
		prov_buf_puts(b, " |\n");
		prov_buf_release(&where);
	}
	if (t->truncated)
		prov_buf_printf(b, "\n*(stopped after %zu frames)*\n", t->nframes);
	prov_buf_putc(b, '\n');
}

static void crashing_instruction(struct prov_buf *b, const struct prov_crash *c,
				 const struct prov_thread *t)
{
	static const char *const x86_64_regs[] = { "rip", "rsp", "rbp", "rax", "rbx", "rcx",
		"rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", NULL };
	static const char *const i386_regs[] = { "eip", "esp", "ebp", "eax", "ebx", "ecx",
		"edx", "esi", "edi", NULL };
	/* aarch64: pc, sp, the frame and link registers, then x0... */
	static const char *const aarch64_regs[] = { "pc", "sp", "x29", "x30", "x0", "x1", "x2",
		"x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15",
		"x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27",
		"x28", "pstate", NULL };
	const char *const *key_regs = c->machine == EM_AARCH64 ? aarch64_regs
				      : c->machine == EM_386 ? i386_regs : x86_64_regs;
	size_t i, k;

	prov_buf_puts(b, "### Crashing instruction\n\n");
	if (c->registers_note)
		prov_buf_printf(b, "No registers: %s.\n\n", c->registers_note);
	if (c->registers_note && !c->ninsns && c->insns_note) {
		prov_buf_printf(b, "No disassembly: %s.\n\n", c->insns_note);
		return;
	}
	if ((!t || !t->regs) && !c->ninsns) {
		prov_buf_puts(b, c->kind == PROV_INPUT_TEXT
			      ? "Not available from a text backtrace (registers and code bytes need a core).\n\n"
			      : "No registers were recorded for the crashing thread.\n\n");
		return;
	}
	if (c->ninsns) {
		prov_buf_puts(b, "```\n");
		for (i = 0; i < c->ninsns; i++)
			prov_buf_printf(b, "%s 0x%016" PRIx64 ":  %s\n",
					c->insns[i].current ? "=>" : "  ", c->insns[i].addr,
					c->insns[i].text);
		prov_buf_puts(b, "```\n\n");
	} else if (c->insns_note) {
		prov_buf_printf(b, "No disassembly: %s.\n\n", c->insns_note);
	}
	if (t && t->regs) {
		int col = 0;

		prov_buf_puts(b, "```\n");
		for (k = 0; key_regs[k]; k++)
			for (i = 0; i < t->nregs; i++)
				if (strcmp(t->regs[i].name, key_regs[k]) == 0) {
					prov_buf_printf(b, "%-*s 0x%016" PRIx64 "%s",
							c->machine == EM_AARCH64 ? 6 : 4, t->regs[i].name,
							t->regs[i].value, ++col % 3 ? "   " : "\n");
					break;
				}
		if (col % 3)
			prov_buf_putc(b, '\n');
		prov_buf_puts(b, "```\n\n");
		if (c->fault_operand)
			prov_buf_printf(b, "- %s\n", c->fault_operand);
		if (c->has_signal && c->signal.has_addr) {
			prov_buf_printf(b, "- fault address `0x%" PRIx64 "`", c->signal.addr);
			if (c->signal.addr % 8)
				prov_buf_puts(b, " is not 8-byte aligned");
			prov_buf_putc(b, '\n');
		}
		prov_buf_putc(b, '\n');
	}
}

/* A module whose package gets a row: in the crash chain, or, with
 * --all-components, in any frame. */
static int module_in_frames(const struct prov_crash *c, const struct prov_module *m, int all)
{
	size_t t, f;

	if (!all)
		return m->in_crash_chain;
	for (t = 0; t < c->nthreads; t++)
		for (f = 0; f < c->threads[t].nframes; f++)
			if (c->threads[t].frames[f].module && m->path &&
			    strcmp(c->threads[t].frames[f].module, m->path) == 0)
				return 1;
	return 0;
}

/* Components of the crash chain (all of them with --all-components), plus
 * packages of the chain's modules without one; then how many were left out. */
static void environment(struct prov_buf *b, const struct prov_crash *c, unsigned int flags)
{
	size_t i, j, rows = 0, others = 0;
	int all = !!(flags & PROV_REPORT_ALL_COMPONENTS);

	prov_buf_puts(b, "### Container environment\n\n"
			 "| Component | Version | Git Hash |\n"
			 "|-----------|---------|----------|\n");
	for (i = 0; i < c->ncomponents; i++) {
		const struct prov_component *p = &c->components[i];

		if (!all && !p->in_crash_chain) {
			others++;
			continue;
		}
		prov_buf_puts(b, "| ");
		cell(b, p->name);
		prov_buf_puts(b, " | ");
		cell(b, p->version);
		prov_buf_puts(b, " | ");
		code_cell(b, p->commit);
		if (p->commit && p->commit_is && !strcmp(p->commit_is, "approximate"))
			prov_buf_puts(b, " (approximate)");
		prov_buf_puts(b, " |\n");
		rows++;
	}
	for (i = 0; i < c->nmodules; i++) {
		const struct prov_module *m = &c->modules[i];
		int dup = 0;

		if (!m->origin || m->component)
			continue;
		/* only packages whose modules appear in some frame (of the chain) */
		if (!module_in_frames(c, m, all))
			continue;
		/* once per package: a row an earlier module of it printed (one
		 * that was not printed, being in no frame, does not count) */
		for (j = 0; j < i && !dup; j++)
			dup = c->modules[j].origin && !c->modules[j].component &&
			      c->modules[j].origin->name && m->origin->name &&
			      strcmp(c->modules[j].origin->name, m->origin->name) == 0 &&
			      module_in_frames(c, &c->modules[j], all);
		if (dup)
			continue;
		prov_buf_puts(b, "| ");
		cell(b, m->origin->name);
		prov_buf_printf(b, " (%s) | ", m->origin->kind);
		cell(b, m->origin->version);
		if (m->origin->build_id_mismatch)
			prov_buf_puts(b, " (installed; not the crashed build)");
		prov_buf_puts(b, " | ");
		code_cell(b, m->origin->commit);
		prov_buf_puts(b, " |\n");
		rows++;
	}
	if (!rows)
		prov_buf_puts(b, "| — | — | — |\n");
	prov_buf_putc(b, '\n');
	if (others)
		prov_buf_printf(b, "and %zu other component%s loaded; --all-components lists them\n\n",
				others, others == 1 ? "" : "s");
	for (i = 0; i < c->ncomponents; i++) {
		const struct prov_component *p = &c->components[i];

		if (!all && !p->in_crash_chain)
			continue;

		if (p->repo || p->note) {
			prov_buf_printf(b, "- **%s**: ", p->name ? p->name : "?");
			if (p->repo)
				prov_buf_printf(b, "`%s`", p->repo);
			if (p->ref)
				prov_buf_printf(b, " at `%s`", p->ref);
			if (p->found_by && p->commit)
				prov_buf_printf(b, prov_starts_with(p->found_by, "Debian source") ||
						   prov_starts_with(p->found_by, "release archive")
						   ? " (source: %s)" : " (commit found by %s)", p->found_by);
			if (p->commit && p->commit_is)
				prov_buf_printf(b, !strcmp(p->commit_is, "approximate") ?
						" — commit **approximate**" : " — commit %s", p->commit_is);
			if (p->note)
				prov_buf_printf(b, "%s%s", p->repo ? "; " : "", p->note);
			prov_buf_putc(b, '\n');
		}
	}
	if (c->ncomponents)
		prov_buf_putc(b, '\n');
}

#define EVIDENCE_FRAMES 5	/* frames of the crashing thread whose variables are shown */

/* The pointer a variable holds: its value starts with 0x and its type is a pointer. */
static int var_pointer(const struct prov_var *v, uint64_t *out)
{
	char *end;

	if (!v->value || !v->type || !strchr(v->type, '*') || strncmp(v->value, "0x", 2) != 0)
		return 0;
	*out = strtoull(v->value + 2, &end, 16);
	return end != v->value + 2;
}

/* 1 when the variable holds the pointer the fault went through: the faulting
 * operand's base register, or a pointer up to 4 KiB below the fault address. */
static int var_in_fault(const struct prov_crash *c, const struct prov_var *v)
{
	uint64_t p;

	if (!var_pointer(v, &p))
		return 0;
	if (c->has_fault_base && p == c->fault_base)
		return 1;
	return c->has_signal && c->signal.has_addr && p <= c->signal.addr &&
	       c->signal.addr - p < 4096;
}

static void var_line(struct prov_buf *b, const char *kind, const struct prov_var *v,
		     const struct prov_crash *c, int faulting)
{
	prov_buf_printf(b, "- %s ", kind);
	code_cell(b, v->name);
	prov_buf_puts(b, " (");
	code_cell(b, v->type);
	prov_buf_puts(b, ")");
	if (v->value) {
		prov_buf_puts(b, " = ");
		code_cell(b, v->value);
	} else {
		prov_buf_puts(b, ": *");
		cell(b, v->note ? v->note : "unknown");
		prov_buf_puts(b, "*");
	}
	if (faulting && c->has_fault_base && c->fault_base_reg[0]) {
		uint64_t p = 0;

		var_pointer(v, &p);
		prov_buf_printf(b, " — **the faulting pointer**%s%s%s", p == c->fault_base ? " (`" : "",
				p == c->fault_base ? c->fault_base_reg : "",
				p == c->fault_base ? "` in the faulting instruction)" : "");
	} else if (faulting) {
		prov_buf_puts(b, " — **the faulting pointer** (the fault address is in its first 4 KiB)");
	}
	prov_buf_putc(b, '\n');
}

/* Arguments then locals; those holding the faulting pointer first (faulting = 1),
 * then the rest (faulting = 0). */
static void vars_list(struct prov_buf *b, const struct prov_crash *c, const struct prov_frame *f,
		      int faulting)
{
	size_t i;

	for (i = 0; i < f->nargs; i++)
		if (var_in_fault(c, &f->args[i]) == faulting)
			var_line(b, "arg", &f->args[i], c, faulting);
	for (i = 0; i < f->nlocals; i++)
		if (var_in_fault(c, &f->locals[i]) == faulting)
			var_line(b, "local", &f->locals[i], c, faulting);
}

/* A standard-library helper (std::, __gnu_cxx::) whose `this` is not known:
 * its variables say nothing the caller's do not. */
static int std_helper_blind(const struct prov_frame *f)
{
	size_t i;

	if (!f->function || !(prov_starts_with(f->function, "std::") ||
			      prov_starts_with(f->function, "__gnu_cxx::") ||
			      prov_starts_with(f->function, "__cxxabiv1::")))
		return 0;
	for (i = 0; i < f->nargs; i++)
		if (f->args[i].name && strcmp(f->args[i].name, "this") == 0)
			return !f->args[i].value;
	return 0;
}

/* What a frame belongs to: its component, else its module. */
static const char *frame_owner(const struct prov_frame *f)
{
	return f->component ? f->component : f->module;
}

static void frame_evidence(struct prov_buf *b, const struct prov_crash *c,
			   const struct prov_frame *f, int first)
{
	if (first)
		prov_buf_puts(b, "### Evidence: arguments and locals\n\n");
	prov_buf_printf(b, "Frame #%d ", f->index);
	code_cell(b, f->function ? f->function : "??");
	prov_buf_printf(b, "%s:\n\n", f->inlined ? " (inlined)" : f->python ? " (Python)" : "");
	if (!f->nargs && !f->nlocals)
		prov_buf_puts(b, "- no arguments or locals\n");
	vars_list(b, c, f, 1);
	vars_list(b, c, f, 0);
	prov_buf_putc(b, '\n');
}

/*
 * gdb's `info args` / `info locals` for the frames of the crash chain that
 * have DWARF, and pystack's --locals for the top Python frames (counted
 * apart): from the crash site down (a signal handler's frames above it are
 * not the crash), the frames of the crash site's component or module first,
 * then the others; std:: helpers whose `this` is optimized out are skipped;
 * in each frame the variables holding the faulting pointer come first.
 */
static void frame_variables(struct prov_buf *b, const struct prov_crash *c,
			    const struct prov_thread *t)
{
	size_t i, cf = prov_thread_crash_frame(t), shown = 0, shown_py = 0;
	const char *owner = NULL;
	int pass;

	if (!t)
		return;
	for (i = cf; i < t->nframes && !owner; i++)
		if (!t->frames[i].python && !std_helper_blind(&t->frames[i]))
			owner = frame_owner(&t->frames[i]);
	for (pass = 0; pass < 2; pass++)
		for (i = cf; i < t->nframes; i++) {
			const struct prov_frame *f = &t->frames[i];
			const char *o = frame_owner(f);
			int mine = !f->python && owner && o && strcmp(o, owner) == 0;

			if (!f->has_vars || std_helper_blind(f) || f->in_handler)
				continue;
			if (mine != (pass == 0))
				continue;
			if ((f->python ? shown_py : shown - shown_py) >= EVIDENCE_FRAMES)
				continue;
			frame_evidence(b, c, f, !shown++);
			shown_py += f->python != 0;
		}
}

#define APPROX_MD " (**approximate** commit: near the deployed build, not it)"

static void sources(struct prov_buf *b, const struct prov_crash *c)
{
	size_t i, k;
	int any_approx = 0;

	if (!c->nsources)
		return;
	for (i = 0; i < c->nsources && !any_approx; i++)
		any_approx = c->sources[i].commit_is && !strcmp(c->sources[i].commit_is, "approximate");
	prov_buf_puts(b, any_approx ? "### Source at the crash (approximate: from a commit near the "
				      "deployed build, not it)\n\n" : "### Source at the crash\n\n");
	for (i = 0; i < c->nsources; i++) {
		const struct prov_source *s = &c->sources[i];
		int approx = s->commit_is && !strcmp(s->commit_is, "approximate");

		if (s->fetched_by && !strcmp(s->fetched_by, "local-file"))
			prov_buf_printf(b, "Frame #%d — `%s:%d`, the file at its DWARF path on this host "
					"(no package or commit known):\n\n```\n", s->frame_index, s->path,
					s->line);
		else if (s->build_id)
			prov_buf_printf(b, "Frame #%d — `%s:%d` from debuginfod (build ID `%s`; no "
					"repository commit known):\n\n```\n", s->frame_index, s->path,
					s->line, s->build_id);
		else if (s->located_by)
			prov_buf_printf(b, "Frame #%d — no line information: `%s` located by name "
					"(a guess%s) at `%s:%d` in %s at `%.12s`%s:\n\n```\n",
					s->frame_index, s->function ? s->function : "?",
					s->candidates > 1 ? ", one of several candidates" : "",
					s->path, s->line, s->component ? s->component : "?",
					s->commit ? s->commit : "?", approx ? APPROX_MD : "");
		else
			prov_buf_printf(b, "Frame #%d — `%s:%d` in %s at `%.12s`%s%s%s%s:\n\n```\n",
					s->frame_index, s->path, s->line,
					s->component ? s->component : "?", s->commit ? s->commit : "?",
					approx ? APPROX_MD : "",
					s->fetched_by && !strncmp(s->fetched_by, "single-file:", 12) ?
					" (the file from " : s->fetched_by && !strcmp(s->fetched_by, "debuginfod") ?
					" (the file from debuginfod" : "",
					s->fetched_by && !strncmp(s->fetched_by, "single-file:", 12) ?
					s->fetched_by + 12 : "",
					s->fetched_by && (!strncmp(s->fetched_by, "single-file:", 12) ||
							  !strcmp(s->fetched_by, "debuginfod")) ? ", no mirror)" : "");
		for (k = 0; k < s->nlines; k++)
			prov_buf_printf(b, "%s%5d  %s\n", s->lines[k].number == s->line ? ">" : " ",
					s->lines[k].number, s->lines[k].text);
		prov_buf_puts(b, "```\n\n");
	}
}

static void fix_status(struct prov_buf *b, const struct prov_crash *c)
{
	size_t i;

	prov_buf_puts(b, "### Upstream fix status\n\n");
	if (!c->nfixes) {
		prov_buf_puts(b, "Not checked (give `--fix COMMIT`, or run `provenance fixcheck`).\n\n");
		return;
	}
	for (i = 0; i < c->nfixes; i++) {
		const struct prov_fix_status *x = &c->fixes[i];

		if (!x->known)
			prov_buf_printf(b, "- `%s`: could not be determined: %s\n", x->fix,
					x->note ? x->note : "unknown");
		else {
			char *how = prov_report_fix_how(x);

			prov_buf_printf(b, "- `%.*s` %s in the deployed %s (`%.12s`)%s%s%s: %s\n",
					strstr(x->fix, "..") ? (int)strlen(x->fix) : 12,
						x->fix_commit && !strstr(x->fix, "..") ? x->fix_commit : x->fix,
					x->included ? "**is included**" : "is **NOT included**",
					x->component ? x->component : "build",
					x->deployed ? x->deployed : "?", x->first_tag ? "; first released in `" : "",
					x->first_tag ? x->first_tag : "", x->first_tag ? "`" : "", how);
			free(how);
		}
	}
	prov_buf_putc(b, '\n');
}

/* Possible upstream fixes (src/sources/suspects.h): ranked, at most 10, the rest counted. */
static void possible_fixes(struct prov_buf *b, const struct prov_crash *c)
{
	size_t i, k, shown = c->nsuspects < 10 ? c->nsuspects : 10;

	if (!c->nsuspects && !c->suspects_note && !c->suspects_frames)
		return;
	prov_buf_puts(b, "### Possible upstream fixes\n\n");
	if (!c->nsuspects && c->suspects_frames)
		prov_buf_printf(b, "No upstream commit after the deployed one changed the crash line%s of the %zu frame%s looked at, or the function%s around %s.\n",
				c->suspects_frames == 1 ? "" : "s", c->suspects_frames,
				c->suspects_frames == 1 ? "" : "s", c->suspects_frames == 1 ? "" : "s",
				c->suspects_frames == 1 ? "it" : "them");
	else
		prov_buf_puts(b, "Upstream commits after the deployed one that changed the crash lines (first) or the functions around them:\n\n");
	for (i = 0; i < shown; i++) {
		const struct prov_suspect *x = &c->suspects[i];

		prov_buf_printf(b, "- `%.12s` %s — ", x->commit, x->date ? x->date : "");
		prov_buf_puts(b, "**");
		cell(b, x->subject);
		prov_buf_printf(b, "**: %s of frame", x->crash_line ? "changes the crash line" :
				"changes the function");
		for (k = 0; k < x->nframes; k++)
			prov_buf_printf(b, "%s #%d", k ? "," : "", x->frames[k]);
		prov_buf_printf(b, " (`%s`", x->path ? x->path : "?");
		if (x->function)
			prov_buf_printf(b, ", `%s`", x->function);
		prov_buf_printf(b, ") in %s; ", x->component ? x->component : "?");
		if (x->first_tag)
			prov_buf_printf(b, "first released in `%s`\n", x->first_tag);
		else
			prov_buf_puts(b, "in no release yet\n");
	}
	if (c->nsuspects > shown)
		prov_buf_printf(b, "- … and %zu more (`--format json` lists them all)\n", c->nsuspects - shown);
	if (c->suspects_note)
		prov_buf_printf(b, "\nNot every frame could be looked at: %s\n", c->suspects_note);
	if (c->suspects_fixcheck)
		prov_buf_printf(b, "\nCheck the top one against the deployed build: `%s`\n", c->suspects_fixcheck);
	prov_buf_putc(b, '\n');
}

static int has_pattern(const struct prov_crash *c, const char *id)
{
	size_t i;

	for (i = 0; i < c->npatterns; i++)
		if (strcmp(c->patterns[i].id, id) == 0)
			return 1;
	return 0;
}

static void next_steps(struct prov_buf *b, const struct prov_crash *c, const struct prov_thread *t)
{
	int n = 0;
	size_t i;

	prov_buf_puts(b, "### Recommended next steps\n\n");
	for (i = 0; i < c->nfixes; i++)
		if (c->fixes[i].known && !c->fixes[i].included)
			prov_buf_printf(b, "%d. The candidate fix `%.12s` is not in the deployed build: %s.\n", ++n,
					c->fixes[i].fix_commit ? c->fixes[i].fix_commit : c->fixes[i].fix,
					c->fixes[i].first_tag ? "upgrade to a release that contains it" :
					"cherry-pick it (no release contains it yet)");
	for (i = 0; i < c->nfixes; i++)
		if (c->fixes[i].known && c->fixes[i].included)
			prov_buf_printf(b, "%d. The candidate fix `%.12s` is already deployed and the crash still happened: it does not fix this crash.\n",
					++n, c->fixes[i].fix_commit ? c->fixes[i].fix_commit : c->fixes[i].fix);
	if (c->suspects_fixcheck)
		prov_buf_printf(b, "%d. Upstream changed the crash code after the deployed build: read `%.12s` (%s) and check it with `%s`.\n",
				++n, c->suspects[0].commit, c->suspects[0].first_tag ? c->suspects[0].first_tag : "no release yet",
				c->suspects_fixcheck);
	if (has_pattern(c, "null-deref"))
		prov_buf_printf(b, "%d. Find where the NULL pointer came from: check the callers in the call chain for an unchecked return or an uninitialised member.\n", ++n);
	if (has_pattern(c, "bad-call"))
		prov_buf_printf(b, "%d. A function pointer or vtable was NULL or corrupted: look at the caller (frame #1) and the object it called through.\n", ++n);
	if (has_pattern(c, "exit-time"))
		prov_buf_printf(b, "%d. The crash is in exit-time cleanup: check destruction order of globals and whether other threads still run at exit; build with ThreadSanitizer to look for the earlier race.\n", ++n);
	if (has_pattern(c, "heap-corruption"))
		prov_buf_printf(b, "%d. Heap corruption is detected later than it happens: rebuild with AddressSanitizer (`-fsanitize=address`) to catch the first bad write or free.\n", ++n);
	if (has_pattern(c, "stack-overflow"))
		prov_buf_printf(b, "%d. Stack overflow: look for unbounded recursion in the repeated frames, or raise the thread's stack size if the depth is legitimate.\n", ++n);
	if (has_pattern(c, "abort"))
		prov_buf_printf(b, "%d. The program aborted itself: read the assertion or error message printed just before the abort (stderr, journal).\n", ++n);
	if (has_pattern(c, "data-race"))
		prov_buf_printf(b, "%d. Data race suspected: rebuild with ThreadSanitizer (`-fsanitize=thread`) and run the workload to find the other side of the race; check that code holding a shared (read) lock does not write (e.g. `unordered_map::operator[]` inserts).\n", ++n);
	if (c->hang && c->hang->ncycles)
		prov_buf_printf(b, "%d. The threads wait on each other in a cycle (deadlock): make every thread take these locks in one order, or use `std::scoped_lock`/a try-lock with back-off; `helgrind` or ThreadSanitizer's lock-order checks find other such pairs.\n", ++n);
	else if (c->snapshot)
		prov_buf_printf(b, "%d. No lock cycle was found: take a second snapshot a little later and compare the stacks, to tell a hang from slow progress.\n", ++n);
	if (has_pattern(c, "non-canonical") || has_pattern(c, "misaligned"))
		prov_buf_printf(b, "%d. A corrupted pointer was dereferenced: this is often a use after free or a data race; rebuild with AddressSanitizer or ThreadSanitizer.\n", ++n);
	for (i = 0; i < c->ncomponents; i++)	/* the crash chain's: the others were not looked up */
		if (!c->components[i].commit && c->components[i].in_crash_chain) {
			prov_buf_printf(b, "%d. The commit of %s is unknown%s%s: add a mapping (`--mapping FILE`) or check the repository and ref.\n",
					++n, c->components[i].name ? c->components[i].name : "a component",
					c->components[i].note ? " — " : "",
					c->components[i].note ? c->components[i].note : "");
			break;
		}
	if (t && !c->nsources && c->ncomponents)
		prov_buf_printf(b, "%d. No source lines were shown: check that the component's debug info is available (debuginfod, -dbg packages) and its mapping's path rules.\n", ++n);
	if (!c->determinism && !c->snapshot)
		prov_buf_printf(b, "%d. Reproduce to learn whether the crash is deterministic; give several cores together (`provenance resolve core.1 core.2 …`) to compare them.\n", ++n);
	if (!n)
		prov_buf_puts(b, "Nothing specific was found to recommend.\n");
	prov_buf_putc(b, '\n');
}

static int report_markdown_body(struct prov_buf *b, const struct prov_crash *c, unsigned int flags)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	const char *role;
	size_t i;

	if (!t && c->nthreads)
		t = &c->threads[0];
	if (c->snapshot)
		t = NULL;	/* nothing crashed: no crashing thread, no crash site */
	prov_buf_printf(b, "## %s: `%s`\n\n", c->snapshot ? "Snapshot Analysis" :
			c->kind == PROV_INPUT_CORE ? "Coredump Analysis" : "Crash Analysis",
			c->input_path ? c->input_path : "-");
	{
		struct prov_buf cav = PROV_BUF_INIT;

		prov_report_caveats(&cav, c, "> **Warning:** ");
		if (cav.len)
			prov_buf_printf(b, "%s\n", cav.buf);
		prov_buf_release(&cav);
	}
	if (c->has_process && (c->process.executable || c->process.cmdline)) {
		prov_buf_puts(b, "**Process:** ");
		if (c->process.has_pid)
			prov_buf_printf(b, "pid %" PRId64 ", ", c->process.pid);
		code_cell(b, c->process.cmdline ? c->process.cmdline : c->process.executable);
		prov_buf_puts(b, "  \n");
	}
	if (c->unparsed_lines) {
		prov_buf_printf(b, "**Not read:** %zu line(s) that look like frames%s  \n", c->unparsed_lines,
				c->unparsed_lines > c->nunparsed ? "; the first:" : ":");
		for (i = 0; i < c->nunparsed; i++) {
			prov_buf_puts(b, "- line ");
			code_cell(b, c->unparsed[i]);
			prov_buf_puts(b, "\n");
		}
		prov_buf_puts(b, "\n");
	}
	if (c->snapshot) {
		prov_buf_printf(b, "**Snapshot:** %s; no thread crashed\n\n",
				c->format && strcmp(c->format, "process") == 0 ? "a live process, read through ptrace"
				: "a core taken from a live process (gcore)");
		prov_report_hang_markdown(b, c);
		other_threads(b, c, NULL, flags | PROV_REPORT_ALL_THREADS);	/* a hang needs every stack */
		environment(b, c, flags);
		sources(b, c);
		fix_status(b, c);
		possible_fixes(b, c);
		next_steps(b, c, NULL);
		prov_buf_rtrim(b);
		return prov_buf_putc(b, '\n');
	}
	if (!c->has_signal && c->headline && c->headline->text) {
		/* no signal: the tool's own words are the crash (compute-sanitizer) */
		prov_buf_puts(b, "**Crash:** ");
		code_cell(b, c->headline->text);
	} else {
		prov_buf_puts(b, "**Crash signal:** ");
		if (c->has_signal)
			prov_report_signal_summary(b, c);
		else
			prov_buf_puts(b, "unknown");
		if (c->headline && c->headline->text) {
			prov_buf_puts(b, "  \n**Headline:** ");
			code_cell(b, c->headline->text);
		}
	}
	if (c->has_delivered) {
		prov_buf_puts(b, "  \n**Signal handler:** ");
		prov_report_reraised_summary(b, c);
	}
	if (c->kernel_line) {
		struct prov_buf k = PROV_BUF_INIT;

		prov_report_kernel_line(&k, c, "");
		prov_buf_rtrim(&k);
		prov_buf_puts(b, "  \n**Kernel line:** ");
		for (i = 0; i < k.len; i++)
			if (k.buf[i] == '\n')
				prov_buf_puts(b, "; ");
			else
				prov_buf_putc(b, k.buf[i]);
		prov_buf_release(&k);
	}
	prov_buf_puts(b, "  \n**Crashing thread:** ");
	if (t) {
		prov_buf_puts(b, "Thread");
		if (t->has_tid)
			prov_buf_printf(b, " %" PRId64, t->tid);
		else if (t->thread_id)
			prov_buf_printf(b, " %s", t->thread_id);
		if (t->name)
			prov_buf_printf(b, " \"%s\"", t->name);
		role = thread_role(c, t);
		if (role)
			prov_buf_printf(b, " (%s)", role);
	} else {
		prov_buf_puts(b, "unknown");
	}
	prov_buf_printf(b, "  \n**Crash context:** %s  \n", context_text(c->context));
	prov_buf_printf(b, "**Determinism:** %s\n\n",
			c->determinism ? c->determinism : "unknown (single occurrence)");

	if (c->npatterns) {
		prov_buf_puts(b, "### Crash pattern\n\n");
		for (i = 0; i < c->npatterns; i++)
			prov_buf_printf(b, "- **%s**: %s\n", prov_pattern_title(c->patterns[i].id),
					c->patterns[i].evidence);
		prov_buf_putc(b, '\n');
	}
	prov_report_hang_markdown(b, c);	/* a sent signal that ended a lock cycle */
	call_chain(b, c, t);
	other_threads(b, c, t, flags);
	crashing_instruction(b, c, t);
	frame_variables(b, c, t);
	environment(b, c, flags);
	sources(b, c);
	fix_status(b, c);
	possible_fixes(b, c);
	next_steps(b, c, t);
	prov_buf_rtrim(b);
	return prov_buf_putc(b, '\n');
}

int prov_report_markdown(struct prov_buf *b, const struct prov_crash *c, unsigned int flags)
{
	size_t start = b->len;
	int err = report_markdown_body(b, c, flags);

	/* every string from input (function names, paths, notes): no raw control characters */
	prov_escape_controls(b, start, 1);
	return err;
}
