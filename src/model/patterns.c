/* Crash patterns (null-deref, bad-call, stack-overflow, ...), each claimed with its evidence. */
#include <elf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"
#include "stlrace.h"
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
	{ "data-race", "data-race red flags (misaligned, freed or corrupted values)" },
	{ "deadlock", "deadlock (threads wait on each other's locks)" },
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

/* the stack pointer's name in a core's registers */
static const char *stack_reg(int machine)
{
	return machine == EM_AARCH64 ? "sp" : machine == EM_386 ? "esp" : "rsp";
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

/* ---- data-race red flags ---- */

#define RACE_FRAMES 5	/* frames with variables looked at, from the crash site */
#define RACE_FINDINGS 6

/* Fill patterns allocators and debug runtimes write into memory that is not
 * (or no longer) an object: a pointer made of them came from such memory. */
static const struct {
	uint32_t word;
	const char *what;
} fills[] = {
	{ 0xdeadbeefu, "0xdeadbeef debug fill" },
	{ 0xbebebebeu, "0xbe bytes: ASan's fill of new heap memory" },
	{ 0xa5a5a5a5u, "0xa5 bytes: jemalloc's junk fill" },
	{ 0x5a5a5a5au, "0x5a bytes: jemalloc's fill of freed memory" },
	{ 0x6b6b6b6bu, "0x6b bytes: the slab poison of freed objects" },
	{ 0xddddddddu, "0xdd bytes: MSVC's fill of freed heap memory" },
	{ 0xfeeefeeeu, "0xfeeefeee: HeapFree's fill of freed memory" },
	{ 0xcdcdcdcdu, "0xcd bytes: MSVC's fill of uninitialized heap memory" },
	{ 0xccccccccu, "0xcc bytes: a fill of uninitialized stack memory" },
	{ 0xababababu, "0xab bytes: a heap guard fill" },
	{ 0xbaadf00du, "0xbaadf00d: a fill of uninitialized heap memory" },
};

/* The fill a pointer value is made of (its upper half, or, below 4 GiB, its
 * bits above an offset byte), or NULL. */
static const char *fill_of(uint64_t v)
{
	uint32_t hi = (uint32_t)(v >> 32), lo = (uint32_t)v;
	size_t i;

	for (i = 0; i < sizeof(fills) / sizeof(fills[0]); i++)
		if (hi == fills[i].word || (hi == 0 && (lo >> 8) == (fills[i].word >> 8)))
			return fills[i].what;
	return NULL;
}

/* The alignment a pointer's target needs, from its C type ("long int *"), or
 * 0 when unknown or 1 (char, void, aggregates). */
static unsigned int pointee_align(const char *type)
{
	static const struct {
		const char *word;
		unsigned int align;
	} scalars[] = {
		{ "char", 1 }, { "void", 1 }, { "bool", 1 }, { "int8_t", 1 }, { "uint8_t", 1 },
		{ "short", 2 }, { "int16_t", 2 }, { "uint16_t", 2 },
		{ "long", 8 }, { "double", 8 }, { "int64_t", 8 }, { "uint64_t", 8 },
		{ "size_t", 8 }, { "intptr_t", 8 }, { "uintptr_t", 8 }, { "ptrdiff_t", 8 },
		{ "int32_t", 4 }, { "uint32_t", 4 }, { "float", 4 }, { "int", 4 }, { "unsigned", 4 },
	};
	size_t len, i;
	const char *p;

	if (!type || (len = strlen(type)) < 2 || type[len - 1] != '*')
		return 0;
	for (p = type + len - 2; p > type && *p == ' '; p--)
		;
	if (*p == '*')
		return 8;	/* a pointer to a pointer */
	if (strstr(type, "struct ") || strstr(type, "union ") || strstr(type, "class ") ||
	    strchr(type, '<') || strchr(type, ':'))
		return 0;
	for (i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
		if (strstr(type, scalars[i].word))
			return scalars[i].align;
	return 0;
}

/* "NAME = NUMBER" in a rendered aggregate: the number, or -1 when absent. */
static int64_t field_number(const char *value, const char *name)
{
	size_t n = strlen(name);
	const char *p = value;

	while ((p = strstr(p, name)) != NULL) {
		int starts = p == value || p[-1] == '{' || p[-1] == ' ';

		p += n;
		if (starts && strncmp(p, " = ", 3) == 0 && p[3] >= '0' && p[3] <= '9')
			return (int64_t)strtoull(p + 3, NULL, 10);
	}
	return -1;
}

/* A container's length past its capacity, in a struct value: "size 1000 > capacity 8". */
static int container_broken(const char *value, struct prov_buf *why)
{
	static const char *const sizes[] = { "size", "size_", "len", "length", "count",
		"_M_string_length", NULL };
	static const char *const caps[] = { "capacity", "capacity_", "cap", "alloc",
		"_M_allocated_capacity", NULL };
	size_t i, k;

	for (i = 0; sizes[i]; i++) {
		int64_t n = field_number(value, sizes[i]);

		if (n < 0)
			continue;
		for (k = 0; caps[k]; k++) {
			int64_t cap = field_number(value, caps[k]);

			/* a short std::string is in its local buffer: no capacity field */
			if (cap < 0 || n <= cap || (i == 5 && n <= 15))
				continue;
			prov_buf_printf(why, "%s %" PRId64 " > %s %" PRId64, sizes[i], n, caps[k], cap);
			return 1;
		}
	}
	return 0;
}

/* Fill patterns among the pointers ("= 0x…") of a struct value: the first one. */
static const char *fields_fill(const char *value, uint64_t *out)
{
	const char *p = value, *what;

	while ((p = strstr(p, "= 0x")) != NULL) {
		p += 4;
		*out = strtoull(p, NULL, 16);
		if ((what = fill_of(*out)) != NULL)
			return what;
	}
	return NULL;
}

static void race_var(struct prov_buf *b, size_t *n, const struct prov_frame *f, const char *kind,
		     const struct prov_var *v, int adraln)
{
	uint64_t p;
	unsigned int align;
	const char *what;
	struct prov_buf why = PROV_BUF_INIT;

	if (!v->value || *n >= RACE_FINDINGS)
		return;
	if (strncmp(v->value, "0x", 2) == 0 && v->type && strchr(v->type, '*')) {
		p = strtoull(v->value + 2, NULL, 16);
		align = adraln ? 0 : pointee_align(v->type);
		what = fill_of(p);
		if ((align > 1 && p % align) || what) {
			prov_buf_printf(b, "%s%s `%s` (`%s`) = 0x%" PRIx64 " in frame #%d %s",
					(*n)++ ? "; " : "", kind, v->name ? v->name : "?", v->type, p,
					f->index, f->function ? f->function : "??");
			if (align > 1 && p % align)
				prov_buf_printf(b, " is not %u-byte aligned", align);
			if (what)
				prov_buf_printf(b, "%s holds %s", align > 1 && p % align ? " and" : "", what);
		}
	} else if (v->value[0] == '{') {
		if (container_broken(v->value, &why)) {
			prov_buf_printf(b, "%s%s `%s` in frame #%d %s: %s (a container changed under it)",
					(*n)++ ? "; " : "", kind, v->name ? v->name : "?", f->index,
					f->function ? f->function : "??", why.buf);
		}
		if (*n < RACE_FINDINGS && (what = fields_fill(v->value, &p)) != NULL)
			prov_buf_printf(b, "%s%s `%s` in frame #%d %s has a field 0x%" PRIx64 ": %s",
					(*n)++ ? "; " : "", kind, v->name ? v->name : "?", f->index,
					f->function ? f->function : "??", p, what);
	}
	prov_buf_release(&why);
}

/*
 * Values a data race (or a use after free) leaves: the faulting operand's
 * address misaligned for its access or made of fill bytes, and in the crash
 * chain's arguments and locals pointers misaligned for their type or made
 * of fill bytes, containers whose length is past their capacity.
 * adraln: a SIGBUS BUS_ADRALN, which the misaligned pattern covers: no
 * misalignment findings.
 */
static void detect_race_flags(struct prov_crash *c, const struct prov_thread *t, int adraln, int sent)
{
	struct prov_buf b = PROV_BUF_INIT;
	size_t i, k, n = 0, frames = 0;
	const char *what;

	/* a signal sent with kill faulted on nothing: no faulting operand */
	if (!sent && c->has_fault_ea && (c->fault_size > 1 || fill_of(c->fault_ea))) {
		int mis = !adraln && c->fault_size > 1 && c->fault_size <= 8 &&
			  c->fault_ea % c->fault_size;

		what = fill_of(c->fault_ea);
		if (mis || what) {
			prov_buf_printf(&b, "the faulting instruction's address 0x%" PRIx64, c->fault_ea);
			if (mis)
				prov_buf_printf(&b, " is not %u-byte aligned for its %u-byte access",
						c->fault_size, c->fault_size);
			if (what)
				prov_buf_printf(&b, "%s holds %s", mis ? " and" : "", what);
			n++;
		}
	}
	for (i = t ? prov_thread_crash_frame(t) : 0; t && i < t->nframes && frames < RACE_FRAMES; i++) {
		const struct prov_frame *f = &t->frames[i];

		if (!f->has_vars || f->python || f->in_handler)
			continue;
		frames++;
		for (k = 0; k < f->nargs; k++)
			race_var(&b, &n, f, "arg", &f->args[k], adraln);
		for (k = 0; k < f->nlocals; k++)
			race_var(&b, &n, f, "local", &f->locals[k], adraln);
	}
	/* another thread inside the same standard container, one of them writing */
	if (n < RACE_FINDINGS)
		prov_stl_race(c, t, &b, &n);
	if (n < RACE_FINDINGS && c->stl_fields)
		prov_buf_printf(&b, "%s%s", n++ ? "; " : "", c->stl_fields);
	if (n)
		add(c, "data-race", "%s", b.buf);
	prov_buf_release(&b);
}

/* An abort (glibc's allocator finding its heap corrupted, an assertion):
 * only the container evidence, no faulting operand. */
static void detect_container_race(struct prov_crash *c, const struct prov_thread *t)
{
	struct prov_buf b = PROV_BUF_INIT;
	size_t n = 0;

	prov_stl_race(c, t, &b, &n);
	if (c->stl_fields)
		prov_buf_printf(&b, "%s%s", n++ ? "; " : "", c->stl_fields);
	if (n)
		add(c, "data-race", "%s", b.buf);
	prov_buf_release(&b);
}

/* A sent signal (a watchdog's SIGABRT, a user's SIGQUIT) ended a process whose
 * threads wait on each other in a cycle (src/core/core-finish.c kept the hang
 * analysis only then): the cycle is the cause, the signal its end. 1: said. */
static int deadlock(struct prov_crash *c, const struct prov_thread *t)
{
	struct prov_buf b = PROV_BUF_INIT;
	const struct prov_hang *h = c->hang;
	size_t i, k;

	if (!h || !h->ncycles)
		return 0;
	for (i = 0; i < h->ncycles; i++) {
		prov_buf_printf(&b, "%sthreads", i ? "; " : "");
		for (k = 0; k < h->cycle_len[i]; k++)
			prov_buf_printf(&b, " %" PRId64 " ->", h->cycles[i][k]);
		prov_buf_printf(&b, " %" PRId64 " wait on each other's locks", h->cycles[i][0]);
	}
	prov_buf_printf(&b, "; %s (%s", c->signal.name ? c->signal.name : "the signal",
			c->signal.code_name ? c->signal.code_name : "sent");
	if (c->signal.has_sender)
		prov_buf_printf(&b, " by pid %" PRId64, c->signal.sender_pid);
	if (t && t->has_tid)
		prov_buf_printf(&b, ", in thread %" PRId64, t->tid);
	prov_buf_puts(&b, ") ended the hang: a watchdog's or a user's kill, not its cause");
	add(c, "deadlock", "%s", b.buf);
	prov_buf_release(&b);
	return 1;
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
	int signo = c->has_signal ? s->number : 0, x86_64 = 1, hang;
	uint64_t sp, fa;

	if (c->snapshot)
		return;	/* a live process's snapshot: nothing crashed */
	if (!t && c->nthreads)
		t = &c->threads[0];
	/* the crash site: frame #0, or the frame a signal handler interrupted */
	f0 = t && t->nframes ? &t->frames[prov_thread_crash_frame(t)] : NULL;
	hang = deadlock(c, t);

	if (c->kind == PROV_INPUT_CORE && f0 && f0->has_pc &&
	    (signo == SIGSEGV || signo == SIGILL || signo == SIGBUS)) {
		uint64_t pc = f0->pc;

		if (pc < NULL_PAGE_LIMIT)
			add(c, "bad-call", "frame #%d pc is 0x%" PRIx64 ": the program jumped to (nearly) address 0",
			    f0->index, pc);
		else if (c->nmodules && !c->partial && !c->modules_incomplete && !prov_crash_module_at(c, pc) &&
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

	/* no siginfo (QEMU's cores): the address the faulting load or store
	 * computed from its registers */
	else if (signo == SIGSEGV && !s->has_code && c->has_fault_ea &&
		 c->fault_ea < NULL_PAGE_LIMIT && c->has_fault_base)
		add(c, "null-deref", "SIGSEGV: the faulting instruction's address is 0x%" PRIx64
		    " (`%s` = 0x%" PRIx64 "; within the first 64 KiB: a NULL pointer plus an offset; "
		    "the core has no siginfo)", c->fault_ea, c->fault_base_reg, c->fault_base);

	/* general protection faults and canonical addresses are x86-64's */
	if (c->machine && c->machine != EM_X86_64)
		x86_64 = 0;
	if (x86_64 && signo == SIGSEGV && s->has_code && s->code == 0x80)
		add(c, "non-canonical", "SIGSEGV with si_code SI_KERNEL: a general protection fault, "
		    "typically a non-canonical address (the kernel reports no address)");
	else if (x86_64 && (signo == SIGSEGV || signo == SIGBUS) && s->has_addr && !is_canonical(s->addr))
		add(c, "non-canonical", "fault address 0x%" PRIx64 " is not a canonical x86-64 address", s->addr);

	if (signo == SIGBUS && s->has_code && s->code == 1)
		add(c, "misaligned", "SIGBUS with BUS_ADRALN (misaligned address)");

	/* without siginfo (QEMU's cores) the faulting instruction's address;
	 * a signal with siginfo but no address (sent with kill) has none */
	fa = s->has_addr ? s->addr : c->fault_ea;
	if (signo == SIGSEGV && (s->has_addr || (!s->has_code && c->has_fault_ea)) &&
	    reg(t, stack_reg(c->machine), &sp) &&
	    fa + STACK_GUARD_WINDOW >= sp && fa <= sp + 4096)
		add(c, "stack-overflow", "fault address 0x%" PRIx64 " is %" PRIu64
		    " bytes from the stack pointer 0x%" PRIx64 " (the stack's guard page)",
		    fa, sp > fa ? sp - fa : fa - sp, sp);
	else
		detect_recursion(c, t);

	if (signo == SIGSEGV || signo == SIGBUS || signo == SIGILL || signo == SIGFPE ||
	    (!signo && c->kind == PROV_INPUT_CORE))
		detect_race_flags(c, t, signo == SIGBUS && s->has_code && s->code == 1,
				  s->has_code && s->code <= 0);
	else if (signo == SIGABRT)
		detect_container_race(c, t);

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
	else if ((signo == SIGABRT && (!hang || find_fn(t, assert_fns))) ||
		 (!signo && find_fn(t, assert_fns))) {
		/* a lock cycle's kill is no abort of the program's own, unless it asserted */
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
