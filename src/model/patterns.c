#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"
#include "util.h"
#include "banned.h"

#define NULL_PAGE_LIMIT 0x10000u
#define STACK_GUARD_WINDOW 0x10000u
#define RECURSION_THRESHOLD 200

static const struct {
	const char *id;
	const char *title;
} titles[] = {
	{ "null-deref", "NULL dereference" },
	{ "bad-call", "call through a NULL or wild function pointer" },
	{ "non-canonical", "non-canonical pointer" },
	{ "misaligned", "misaligned access" },
	{ "stack-overflow", "stack overflow" },
	{ "abort", "abort / assertion failure" },
	{ "exit-time", "crash during exit-time cleanup" },
	{ "heap-corruption", "double free / heap corruption" },
};

const char *prov_pattern_title(const char *id)
{
	size_t i;

	for (i = 0; i < sizeof(titles) / sizeof(titles[0]); i++)
		if (strcmp(titles[i].id, id) == 0)
			return titles[i].title;
	return id;
}

static int reg(const struct prov_thread *t, const char *name, uint64_t *out)
{
	size_t i;

	if (!t)
		return 0;
	for (i = 0; i < t->nregs; i++)
		if (strcmp(t->regs[i].name, name) == 0) {
			*out = t->regs[i].value;
			return 1;
		}
	return 0;
}

/* base name of a function without "@GLIBC…" or "(args)" */
static int fn_is(const char *fn, const char *name)
{
	size_t n = strlen(name);

	return fn && strncmp(fn, name, n) == 0 &&
	       (fn[n] == '\0' || fn[n] == '@' || fn[n] == '(' || fn[n] == ' ');
}

static const struct prov_frame *find_fn(const struct prov_thread *t,
					const char *const *names)
{
	size_t i;
	const char *const *n;

	/* from the crash site down: a handler's own abort is not the crash's */
	for (i = prov_thread_crash_frame(t); t && i < t->nframes; i++)
		for (n = names; *n; n++)
			if (fn_is(t->frames[i].function, *n))
				return &t->frames[i];
	return NULL;
}

static void add(struct prov_crash *c, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add(struct prov_crash *c, const char *id, const char *fmt, ...)
{
	struct prov_buf b = PROV_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	prov_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	prov_crash_add_pattern(c, id, b.buf);
	prov_buf_release(&b);
}

static int is_canonical(uint64_t a)
{
	uint64_t top = a >> 47;

	return top == 0 || top == 0x1ffff;
}

static void detect_recursion(struct prov_crash *c, const struct prov_thread *t)
{
	size_t i, j, best = 0;
	const char *best_fn = NULL;

	if (!t || t->nframes < RECURSION_THRESHOLD)
		return;
	/* frames are capped: count the names of the innermost 64 frames (a
	 * recursion reaches frame 0) over the whole stack */
	for (i = 0; i < t->nframes && i < 64; i++) {
		const char *fn = t->frames[i].function;
		size_t n = 0;

		if (!fn)
			continue;
		for (j = 0; j < t->nframes; j++)
			if (t->frames[j].function && strcmp(t->frames[j].function, fn) == 0)
				n++;
		if (n > best) {
			best = n;
			best_fn = fn;
		}
	}
	if (best >= RECURSION_THRESHOLD)
		add(c, "stack-overflow", "%s appears in %zu of the crashing thread's %zu%s frames (deep recursion)",
		    best_fn, best, t->nframes, t->truncated ? "+ (truncated)" : "");
}

void prov_patterns_detect(struct prov_crash *c)
{
	static const char *const abort_fns[] = { "abort", "__assert_fail",
		"__assert_fail_base", "std::terminate", "__gnu_cxx::__verbose_terminate_handler",
		"__cxa_throw", "raise", "__pthread_kill_implementation", "pthread_kill", NULL };
	static const char *const assert_fns[] = { "__assert_fail", "__assert_fail_base",
		"std::terminate", "__gnu_cxx::__verbose_terminate_handler", NULL };
	static const char *const heap_fns[] = { "malloc_printerr", "_int_free",
		"__libc_free", "free", "_int_malloc", "__libc_malloc", "malloc_consolidate",
		"__malloc_assert", "_int_realloc", "unlink_chunk", NULL };
	static const char *const heap_strong[] = { "malloc_printerr", "__malloc_assert",
		"unlink_chunk", NULL };
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	const struct prov_signal *s = &c->signal;
	const struct prov_frame *f, *f0;
	int signo = c->has_signal ? s->number : 0;
	uint64_t sp;

	if (c->snapshot)
		return;	/* a live process's snapshot: nothing crashed */
	if (!t && c->nthreads)
		t = &c->threads[0];
	/* the crash site: frame #0, or the frame a signal handler interrupted */
	f0 = t && t->nframes ? &t->frames[prov_thread_crash_frame(t)] : NULL;

	if (c->kind == PROV_INPUT_CORE && f0 && f0->has_pc &&
	    (signo == SIGSEGV || signo == SIGILL || signo == SIGBUS)) {
		uint64_t pc = f0->pc;

		if (pc < NULL_PAGE_LIMIT)
			add(c, "bad-call", "frame #%d pc is 0x%" PRIx64 ": the program jumped to (nearly) address 0",
			    f0->index, pc);
		else if (c->nmodules && !c->partial && !prov_crash_module_at(c, pc) &&
			 !f0->function)
			add(c, "bad-call", "frame #%d pc 0x%" PRIx64 " is outside every mapped module",
			    f0->index, pc);
	}

	/* a call through NULL faults on the instruction fetch: pc == address */
	/* x86 reports alignment-check faults (BUS_ADRALN) with address 0 */
	if ((signo == SIGSEGV || (signo == SIGBUS && !(s->has_code && s->code == 1))) &&
	    s->has_addr && s->addr < NULL_PAGE_LIMIT &&
	    !(f0 && f0->has_pc && f0->pc == s->addr))
		add(c, "null-deref", "%s at fault address 0x%" PRIx64
		    " (within the first 64 KiB: a NULL pointer plus an offset)",
		    prov_signal_name(signo), s->addr);

	if (signo == SIGSEGV && s->has_code && s->code == 0x80)
		add(c, "non-canonical", "SIGSEGV with si_code SI_KERNEL: a general protection fault, "
		    "typically a non-canonical address (the kernel reports no address)");
	else if ((signo == SIGSEGV || signo == SIGBUS) && s->has_addr && !is_canonical(s->addr))
		add(c, "non-canonical", "fault address 0x%" PRIx64 " is not a canonical x86-64 address", s->addr);

	if (signo == SIGBUS && s->has_code && s->code == 1)
		add(c, "misaligned", "SIGBUS with BUS_ADRALN (misaligned address)");

	if (signo == SIGSEGV && s->has_addr && reg(t, "rsp", &sp) &&
	    s->addr + STACK_GUARD_WINDOW >= sp && s->addr <= sp + 4096)
		add(c, "stack-overflow", "fault address 0x%" PRIx64 " is %" PRIu64
		    " bytes from the stack pointer 0x%" PRIx64 " (the stack's guard page)",
		    s->addr, sp > s->addr ? sp - s->addr : s->addr - sp, sp);
	else
		detect_recursion(c, t);

	if (c->context == PROV_CONTEXT_EXIT) {
		static const char *const exit_fns[] = { "__run_exit_handlers", "__cxa_finalize",
			"_dl_fini", "exit", "__call_tls_dtors", NULL };

		f = find_fn(t, exit_fns);
		add(c, "exit-time", "the crashing thread is in %s (frame #%d): exit-time cleanup; "
		    "the cause may be earlier (a data race or destruction order)",
		    f ? f->function : "exit handlers", f ? f->index : 0);
	}

	/* glibc's allocator aborts when it detects corruption: the abort is
	 * the symptom, heap corruption the finding */
	if ((f = find_fn(t, heap_strong)) ||
	    (signo == SIGABRT && (f = find_fn(t, heap_fns))))
		add(c, "heap-corruption", "%s in frame #%d: glibc's allocator detected corruption "
		    "(double free, overflow or use after free)", f->function, f->index);
	else if (signo == SIGABRT || (!signo && find_fn(t, assert_fns))) {
		static const char *const abort_only[] = { "abort", NULL };

		f = find_fn(t, assert_fns);
		if (!f)
			f = find_fn(t, abort_only);
		if (!f)
			f = find_fn(t, abort_fns);
		if (f)
			add(c, "abort", "%s%s in frame #%d (%s)", signo == SIGABRT ? "SIGABRT, " : "",
			    f->function, f->index, f->file ? f->file : "no source");
		else if (signo == SIGABRT)
			add(c, "abort", "SIGABRT (no abort or assertion frame in the crashing thread)");
	}
}
