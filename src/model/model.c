/* The one crash model, struct prov_crash: building it up and freeing everything it owns. */
#include <elf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util.h"
#include "banned.h"

struct prov_crash *prov_crash_new(enum prov_input_kind kind, const char *input_path)
{
	struct prov_crash *c = prov_xcalloc(1, sizeof(*c));

	c->kind = kind;
	c->input_path = prov_xstrdup_or_null(input_path);
	c->context = PROV_CONTEXT_UNKNOWN;
	return c;
}

void prov_origin_free(struct prov_origin *o)
{
	if (!o)
		return;
	prov_origin_release(o);
	free(o);
}

void prov_origin_release(struct prov_origin *o)
{
	free(o->kind);
	free(o->name);
	free(o->version);
	free(o->source);
	free(o->source_version);
	free(o->arch);
	free(o->vcs_url);
	free(o->commit);
	free(o->branch);
	free(o->found_by);
	free(o->evidence);
	free(o->upstream_url);
	free(o->upstream_by);
	free(o->upstream_evidence);
	memset(o, 0, sizeof(*o));
}

struct prov_origin *prov_origin_dup(const struct prov_origin *o)
{
	struct prov_origin *d;

	if (!o)
		return NULL;
	d = prov_xcalloc(1, sizeof(*d));
	d->kind = prov_xstrdup_or_null(o->kind);
	d->name = prov_xstrdup_or_null(o->name);
	d->version = prov_xstrdup_or_null(o->version);
	d->source = prov_xstrdup_or_null(o->source);
	d->source_version = prov_xstrdup_or_null(o->source_version);
	d->arch = prov_xstrdup_or_null(o->arch);
	d->vcs_url = prov_url_strip_userinfo(prov_xstrdup_or_null(o->vcs_url));
	d->commit = prov_xstrdup_or_null(o->commit);
	d->branch = prov_xstrdup_or_null(o->branch);
	d->found_by = prov_xstrdup_or_null(o->found_by);
	d->evidence = prov_xstrdup_or_null(o->evidence);
	d->upstream_url = prov_xstrdup_or_null(o->upstream_url);
	d->upstream_by = prov_xstrdup_or_null(o->upstream_by);
	d->upstream_evidence = prov_xstrdup_or_null(o->upstream_evidence);
	d->guess = o->guess;
	d->build_id_mismatch = o->build_id_mismatch;
	d->commit_approximate = o->commit_approximate;
	return d;
}

void prov_component_release(struct prov_component *c)
{
	free(c->name);
	free(c->version);
	free(c->commit);
	free(c->repo);
	free(c->ref);
	free(c->subdir);
	free(c->found_by);
	free(c->commit_is);
	free(c->note);
	free(c->import_path);
	free(c->upstream_repo);
	free(c->upstream_ref);
	memset(c, 0, sizeof(*c));
}

void prov_vars_free(struct prov_var *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].type);
		free(v[i].value);
		free(v[i].note);
	}
	free(v);
}

static void frame_release(struct prov_frame *f)
{
	free(f->function);
	free(f->module);
	free(f->file);
	free(f->repo_path);
	free(f->path_rule);
	free(f->component);
	prov_vars_free(f->args, f->nargs);
	prov_vars_free(f->locals, f->nlocals);
	free(f->located_by);
}

void prov_thread_release(struct prov_thread *t)
{
	size_t j;

	for (j = 0; j < t->nframes; j++)
		frame_release(&t->frames[j]);
	free(t->frames);
	free(t->regs);
	free(t->handler_regs);
	free(t->name);
	free(t->thread_id);
	free(t->unwind_error);
	free(t->python_note);
}

void prov_thread_cut(struct prov_thread *t, size_t n)
{
	size_t j;

	if (t->nframes <= n)
		return;
	for (j = n; j < t->nframes; j++)
		frame_release(&t->frames[j]);
	t->nframes = n;
	t->truncated = 1;
	if (t->has_crash_frame && t->crash_frame >= n)
		t->has_crash_frame = 0;
}

void prov_hang_free(struct prov_hang *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->ngroups; i++)
		free(h->groups[i].threads);
	free(h->groups);
	for (i = 0; i < h->nwaits; i++)
		free(h->waits[i].on);
	free(h->waits);
	for (i = 0; i < h->ncycles; i++)
		free(h->cycles[i]);
	free(h->cycles);
	free(h->cycle_len);
	free(h);
}

void prov_crash_free(struct prov_crash *c)
{
	size_t i, j;

	if (!c)
		return;
	free(c->input_path);
	free(c->sysroot_kind);
	free(c->sysroot_digest);
	free(c->sysroot_ref);
	free(c->proc_root);
	free(c->format);
	free(c->label);
	if (c->launch) {
		free(c->launch->launcher);
		free(c->launch->host);
		free(c->launch->task);
		free(c->launch->error_file);
		free(c->launch);
	}
	for (i = 0; i < c->nunparsed; i++)
		free(c->unparsed[i]);
	free(c->unparsed);
	free(c->process.executable);
	free(c->process.cmdline);
	free(c->signal.name);
	free(c->signal.code_name);
	if (c->headline) {
		free(c->headline->text);
		free(c->headline->error);
		free(c->headline->device_thread);
		free(c->headline->device_block);
		free(c->headline);
	}
	if (c->kernel_line) {
		free(c->kernel_line->kind);
		free(c->kernel_line->module);
		free(c->kernel_line->file);
		free(c->kernel_line->note);
		free(c->kernel_line);
	}
	free(c->delivered.name);
	free(c->delivered.code_name);
	for (i = 0; i < c->nthreads; i++)
		prov_thread_release(&c->threads[i]);
	free(c->threads);
	for (i = 0; i < c->nmodules; i++) {
		struct prov_module *m = &c->modules[i];

		free(m->path);
		free(m->build_id);
		free(m->file);
		free(m->debug_file);
		free(m->note);
		free(m->package_note);
		free(m->component);
		prov_origin_free(m->origin);
	}
	free(c->modules);
	for (i = 0; i < c->npatterns; i++) {
		free(c->patterns[i].id);
		free(c->patterns[i].evidence);
	}
	free(c->patterns);
	for (i = 0; i < c->ncomponents; i++)
		prov_component_release(&c->components[i]);
	free(c->components);
	for (i = 0; i < c->nsources; i++) {
		struct prov_source *s = &c->sources[i];

		for (j = 0; j < s->nlines; j++)
			free(s->lines[j].text);
		free(s->lines);
		free(s->component);
		free(s->commit);
		free(s->path);
		free(s->located_by);
		free(s->fetched_by);
		free(s->function);
		free(s->build_id);
		free(s->commit_is);
	}
	free(c->sources);
	free(c->code);
	for (i = 0; i < c->ninsns; i++)
		free(c->insns[i].text);
	free(c->insns);
	free(c->insns_note);
	free(c->registers_note);
	free(c->fault_operand);
	free(c->determinism);
	free(c->host);
	free(c->time);
	free(c->python_version);
	free(c->python_note);
	for (i = 0; i < c->nfixes; i++) {
		struct prov_fix_status *x = &c->fixes[i];

		free(x->fix);
		free(x->fix_commit);
		free(x->component);
		free(x->deployed);
		free(x->first_tag);
		free(x->via);
		free(x->files_missing);
		free(x->commits_missing);
		free(x->branch_tag);
		free(x->branch);
		free(x->note);
		free(x->reason);
		prov_fix_evidence_release(x->evidence, x->nevidence);
	}
	free(c->fixes);
	for (i = 0; i < c->nsuspects; i++) {
		struct prov_suspect *x = &c->suspects[i];

		free(x->commit);
		free(x->subject);
		free(x->date);
		free(x->component);
		free(x->path);
		free(x->function);
		free(x->frames);
		free(x->first_tag);
	}
	free(c->suspects);
	free(c->suspects_note);
	free(c->suspects_fixcheck);
	free(c->threads_note);
	prov_hang_free(c->hang);
	free(c->stl_fields);
	free(c);
}

struct prov_thread *prov_crash_add_thread(struct prov_crash *c)
{
	struct prov_thread *t;

	PROV_ALLOC_GROW(c->threads, c->nthreads + 1, c->threads_alloc);
	t = &c->threads[c->nthreads++];
	memset(t, 0, sizeof(*t));
	return t;
}

struct prov_module *prov_crash_add_module(struct prov_crash *c)
{
	struct prov_module *m;

	PROV_ALLOC_GROW(c->modules, c->nmodules + 1, c->modules_alloc);
	m = &c->modules[c->nmodules++];
	memset(m, 0, sizeof(*m));
	return m;
}

struct prov_frame *prov_thread_add_frame(struct prov_thread *t)
{
	struct prov_frame *f;

	if (t->nframes >= PROV_MAX_FRAMES) {
		t->truncated = 1;
		return NULL;
	}
	PROV_ALLOC_GROW(t->frames, t->nframes + 1, t->frames_alloc);
	f = &t->frames[t->nframes];
	memset(f, 0, sizeof(*f));
	f->index = (int)t->nframes;
	t->nframes++;
	return f;
}

void prov_crash_add_pattern(struct prov_crash *c, const char *id, const char *evidence)
{
	struct prov_pattern *p;

	PROV_ALLOC_GROW(c->patterns, c->npatterns + 1, c->patterns_alloc);
	p = &c->patterns[c->npatterns++];
	p->id = prov_xstrdup(id);
	p->evidence = prov_xstrdup(evidence ? evidence : "");
}

struct prov_component *prov_crash_add_component(struct prov_crash *c)
{
	struct prov_component *p;

	PROV_ALLOC_GROW(c->components, c->ncomponents + 1, c->components_alloc);
	p = &c->components[c->ncomponents++];
	memset(p, 0, sizeof(*p));
	return p;
}

struct prov_source *prov_crash_add_source(struct prov_crash *c)
{
	struct prov_source *s;

	PROV_ALLOC_GROW(c->sources, c->nsources + 1, c->sources_alloc);
	s = &c->sources[c->nsources++];
	memset(s, 0, sizeof(*s));
	return s;
}

struct prov_insn *prov_crash_add_insn(struct prov_crash *c)
{
	struct prov_insn *x;

	PROV_ALLOC_GROW(c->insns, c->ninsns + 1, c->insns_alloc);
	x = &c->insns[c->ninsns++];
	memset(x, 0, sizeof(*x));
	return x;
}

void prov_fix_evidence_release(struct prov_fix_evidence *e, size_t n)
{
	size_t i;

	for (i = 0; e && i < n; i++) {
		free(e[i].commit);
		free(e[i].file);
		free(e[i].deployed_file);
		free(e[i].hunk);
		free(e[i].function);
		free(e[i].via);
	}
	free(e);
}

struct prov_fix_status *prov_crash_add_fix(struct prov_crash *c)
{
	struct prov_fix_status *x;

	PROV_ALLOC_GROW(c->fixes, c->nfixes + 1, c->fixes_alloc);
	x = &c->fixes[c->nfixes++];
	memset(x, 0, sizeof(*x));
	return x;
}

struct prov_suspect *prov_crash_add_suspect(struct prov_crash *c)
{
	struct prov_suspect *x;

	PROV_ALLOC_GROW(c->suspects, c->nsuspects + 1, c->suspects_alloc);
	x = &c->suspects[c->nsuspects++];
	memset(x, 0, sizeof(*x));
	return x;
}

struct prov_thread *prov_crash_crashed_thread(const struct prov_crash *c)
{
	if (!c->has_crashed_thread || c->crashed_thread >= c->nthreads)
		return NULL;
	return &c->threads[c->crashed_thread];
}

size_t prov_thread_crash_frame(const struct prov_thread *t)
{
	return t && t->has_crash_frame && t->crash_frame < t->nframes ? t->crash_frame : 0;
}

int prov_frame_is_signal(const struct prov_frame *f)
{
	return f->signal_frame ||
	       (f->function && strcmp(f->function, "<signal handler called>") == 0);
}

int prov_crash_thread_in_chain(const struct prov_crash *c, size_t t)
{
	size_t i;

	if (t >= c->nthreads)
		return 0;
	if (c->snapshot && c->hang && c->hang->nwaits) {
		for (i = 0; i < c->hang->nwaits; i++)
			if (c->hang->waits[i].thread == t)
				return 1;
		return 0;
	}
	if (!c->snapshot && prov_crash_crashed_thread(c))
		return c->crashed_thread == t;
	return 1;
}

void prov_crash_mark_chain(struct prov_crash *c)
{
	size_t t, i;

	for (t = 0; t < c->nthreads; t++) {
		if (!prov_crash_thread_in_chain(c, t))
			continue;
		for (i = 0; i < c->threads[t].nframes; i++) {
			const struct prov_frame *f = &c->threads[t].frames[i];
			struct prov_module *m = f->module ? prov_crash_module_by_path(c, f->module) : NULL;

			if (!m && f->has_pc)
				m = prov_crash_module_at(c, f->pc);
			if (m)
				m->in_crash_chain = 1;
		}
	}
}

struct prov_module *prov_crash_module_at(const struct prov_crash *c, uint64_t addr)
{
	size_t i;

	for (i = 0; i < c->nmodules; i++) {
		struct prov_module *m = &c->modules[i];

		if (m->has_range && addr >= m->start && addr < m->end)
			return m;
	}
	return NULL;
}

struct prov_module *prov_crash_module_by_path(const struct prov_crash *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->nmodules; i++)
		if (c->modules[i].path && strcmp(c->modules[i].path, path) == 0)
			return &c->modules[i];
	return NULL;
}

struct prov_component *prov_crash_component(const struct prov_crash *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ncomponents; i++)
		if (c->components[i].name && strcmp(c->components[i].name, name) == 0)
			return &c->components[i];
	return NULL;
}

static int name_is(const char *fn, const char *const *names)
{
	size_t n;

	for (; *names; names++) {
		n = strlen(*names);
		/* "exit" matches "exit" and "exit@GLIBC_2.2.5", not "exit_group_x" */
		if (strncmp(fn, *names, n) == 0 && (fn[n] == '\0' || fn[n] == '@' || fn[n] == '('))
			return 1;
	}
	return 0;
}

void prov_crash_classify_context(struct prov_crash *c)
{
	static const char *const exit_fns[] = {
		"__run_exit_handlers", "__cxa_finalize", "_dl_fini", "exit",
		"__libc_csu_fini", "_fini", "__do_global_dtors_aux",
		"__call_tls_dtors", "Py_FinalizeEx", "_Py_Finalize", NULL
	};
	static const char *const load_fns[] = {
		"_dl_start", "_dl_start_user", "_dl_init", "_dl_open", "dl_open_worker",
		"dl_open_worker_begin", "_dl_map_object", "_dl_relocate_object",
		"_dl_catch_exception", "dlopen", "__dlopen", "dlopen_doit",
		"_dl_catch_error", "dlmopen", "_dl_runtime_resolve",
		"_dl_runtime_resolve_xsave", "_dl_runtime_resolve_xsavec",
		"_dl_fixup", NULL
	};
	struct prov_thread *t = prov_crash_crashed_thread(c);
	size_t i;

	if (!t && c->nthreads == 1)
		t = &c->threads[0];
	if (!t || !t->nframes) {
		c->context = PROV_CONTEXT_UNKNOWN;
		return;
	}
	/* the innermost of an exit handler or a loader frame says which */
	for (i = 0; i < t->nframes; i++) {
		const char *fn = t->frames[i].function;

		if (fn && name_is(fn, exit_fns)) {
			c->context = PROV_CONTEXT_EXIT;
			return;
		}
		if (fn && name_is(fn, load_fns)) {
			c->context = PROV_CONTEXT_MODULE_LOAD;
			return;
		}
	}
	c->context = PROV_CONTEXT_RUNTIME;
}

static const struct {
	int number;
	const char *name;
} signals[] = {
	{ SIGHUP, "SIGHUP" },	{ SIGINT, "SIGINT" },	{ SIGQUIT, "SIGQUIT" },
	{ SIGILL, "SIGILL" },	{ SIGTRAP, "SIGTRAP" },	{ SIGABRT, "SIGABRT" },
	{ SIGBUS, "SIGBUS" },	{ SIGFPE, "SIGFPE" },	{ SIGKILL, "SIGKILL" },
	{ SIGUSR1, "SIGUSR1" },	{ SIGSEGV, "SIGSEGV" },	{ SIGUSR2, "SIGUSR2" },
	{ SIGPIPE, "SIGPIPE" },	{ SIGALRM, "SIGALRM" },	{ SIGTERM, "SIGTERM" },
	{ SIGSTKFLT, "SIGSTKFLT" }, { SIGCHLD, "SIGCHLD" }, { SIGCONT, "SIGCONT" },
	{ SIGSTOP, "SIGSTOP" },	{ SIGTSTP, "SIGTSTP" },	{ SIGTTIN, "SIGTTIN" },
	{ SIGTTOU, "SIGTTOU" },	{ SIGURG, "SIGURG" },	{ SIGXCPU, "SIGXCPU" },
	{ SIGXFSZ, "SIGXFSZ" },	{ SIGVTALRM, "SIGVTALRM" }, { SIGPROF, "SIGPROF" },
	{ SIGWINCH, "SIGWINCH" }, { SIGIO, "SIGIO" },	{ SIGPWR, "SIGPWR" },
	{ SIGSYS, "SIGSYS" },
};

const char *prov_signal_name(int signo)
{
	size_t i;

	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (signals[i].number == signo)
			return signals[i].name;
	return NULL;
}

int prov_signal_number(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (strcmp(signals[i].name, name) == 0 ||
		    strcmp(signals[i].name + 3, name) == 0)
			return signals[i].number;
	if (strcmp(name, "SIGIOT") == 0)
		return SIGABRT;
	return -1;
}

const char *prov_signal_code_name(int signo, int code)
{
	static const char *const segv[] = { NULL, "SEGV_MAPERR", "SEGV_ACCERR",
		"SEGV_BNDERR", "SEGV_PKUERR", "SEGV_ACCADI", "SEGV_ADIDERR",
		"SEGV_ADIPERR", "SEGV_MTEAERR", "SEGV_MTESERR" };
	static const char *const bus[] = { NULL, "BUS_ADRALN", "BUS_ADRERR",
		"BUS_OBJERR", "BUS_MCEERR_AR", "BUS_MCEERR_AO" };
	static const char *const ill[] = { NULL, "ILL_ILLOPC", "ILL_ILLOPN",
		"ILL_ILLADR", "ILL_ILLTRP", "ILL_PRVOPC", "ILL_PRVREG",
		"ILL_COPROC", "ILL_BADSTK" };
	static const char *const fpe[] = { NULL, "FPE_INTDIV", "FPE_INTOVF",
		"FPE_FLTDIV", "FPE_FLTOVF", "FPE_FLTUND", "FPE_FLTRES",
		"FPE_FLTINV", "FPE_FLTSUB" };
	static const char *const trap[] = { NULL, "TRAP_BRKPT", "TRAP_TRACE",
		"TRAP_BRANCH", "TRAP_HWBKPT" };

	/* codes <= 0 are the same for every signal */
	switch (code) {
	case 0x80:
		return "SI_KERNEL";
	case 0:
		return "SI_USER";
	case -1:
		return "SI_QUEUE";
	case -2:
		return "SI_TIMER";
	case -3:
		return "SI_MESGQ";
	case -4:
		return "SI_ASYNCIO";
	case -5:
		return "SI_SIGIO";
	case -6:
		return "SI_TKILL";
	}
	if (code < 0)
		return NULL;
#define PICK(tab) ((size_t)code < sizeof(tab) / sizeof(tab[0]) ? tab[code] : NULL)
	switch (signo) {
	case SIGSEGV:
		return PICK(segv);
	case SIGBUS:
		return PICK(bus);
	case SIGILL:
		return PICK(ill);
	case SIGFPE:
		return PICK(fpe);
	case SIGTRAP:
		return PICK(trap);
	}
#undef PICK
	return NULL;
}

int prov_signal_has_fault_addr(int signo, int code)
{
	if (code <= 0 || code == 0x80)
		return 0;
	return signo == SIGSEGV || signo == SIGBUS || signo == SIGILL ||
	       signo == SIGFPE || signo == SIGTRAP;
}

const char *prov_context_name(enum prov_context ctx)
{
	switch (ctx) {
	case PROV_CONTEXT_RUNTIME:
		return "runtime";
	case PROV_CONTEXT_EXIT:
		return "exit";
	case PROV_CONTEXT_MODULE_LOAD:
		return "module-load";
	default:
		return "unknown";
	}
}

/*
 * The bits of arch/x86/include/asm/trap_pf.h (enum x86_pf_error_code):
 * PROT 1, WRITE 2, USER 4, RSVD 8, INSTR 16, PK 32, SGX 1 << 15.
 */
char *prov_kernel_error_text(uint64_t error)
{
	const char *mode = error & 4 ? "user-mode" : "kernel-mode";
	const char *access = error & 16 ? "instruction fetch" : error & 2 ? "write" : "read";
	const char *why = error & 1 ? "protection violation (the page is mapped)" : "page not present";

	return prov_xasprintf("%s %s, %s%s%s%s", mode, access, why,
			      error & 8 ? ", reserved bit set in a page table" : "",
			      error & 32 ? ", protection-key violation" : "",
			      error & (1u << 15) ? ", SGX access" : "");
}

const char *prov_machine_name(int machine, int is64)
{
	static __thread char buf[32];

	switch (machine) {
	case EM_X86_64: return is64 ? "x86-64" : "x32";
	case EM_386: return "i386";
	case EM_AARCH64: return is64 ? "aarch64" : "aarch64 (ILP32)";
	case EM_ARM: return "arm";
	case EM_PPC: return "ppc";
	case EM_PPC64: return "ppc64";
	/* one e_machine for both: ELFCLASS32 is ESA/390, ELFCLASS64 z/Architecture */
	case EM_S390: return is64 ? "s390x" : "s390";
	case EM_SPARC: return "sparc";
	case EM_SPARC32PLUS: return "sparc32plus";
	case EM_SPARCV9: return "sparc64";
	case EM_RISCV: return is64 ? "riscv64" : "riscv32";
	case EM_MIPS: return is64 ? "mips64" : "mips";
	default:
		snprintf(buf, sizeof(buf), "EM_%d", machine);
		return buf;
	}
}

/*
 * Registers are read from x86-64, i386 and aarch64 (LP64) cores' notes;
 * capstone is opened for x86 (x32 code is 64-bit mode) and arm64 only.
 */
unsigned int prov_machine_reads(int machine, int is64)
{
	switch (machine) {
	case EM_X86_64:
		return is64 ? PROV_MACHINE_REGISTERS | PROV_MACHINE_DISASM : PROV_MACHINE_DISASM;
	case EM_386:
		return PROV_MACHINE_REGISTERS | PROV_MACHINE_DISASM;
	case EM_AARCH64:
		return is64 ? PROV_MACHINE_REGISTERS | PROV_MACHINE_DISASM : PROV_MACHINE_DISASM;
	default:
		return 0;
	}
}

void prov_crash_set_sysroot(struct prov_crash *c, const char *kind, const char *digest,
			    const char *ref)
{
	free(c->sysroot_kind);
	free(c->sysroot_digest);
	free(c->sysroot_ref);
	c->sysroot_kind = prov_xstrdup_or_null(kind);
	c->sysroot_digest = prov_xstrdup_or_null(digest);
	c->sysroot_ref = prov_xstrdup_or_null(ref);
}
