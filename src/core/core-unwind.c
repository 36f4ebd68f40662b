/*
 * Unwinding the threads with libdwfl: each frame, and unwinding again from
 * the caller after a call to nowhere or a PAC-signed return address.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core-int.h"
#include "corevars.h"
#include "stlrace.h"
#include "util.h"
#include "banned.h"

#define VARS_FRAMES 32	/* frames of the crashing thread whose variables are read */

/* ---- a thread's frames, one dwfl_thread_getframes callback each ---- */

/* 1 when addr lies in a segment the core says is not executable (a stack, data). */
static int addr_not_code(const struct core_ctx *x, uint64_t addr)
{
	size_t i;

	for (i = 0; i < x->map.nnoexec; i++)
		if (addr >= x->map.noexec[i].vaddr && addr - x->map.noexec[i].vaddr < x->map.noexec[i].filesz)
			return 1;
	return 0;
}

/*
 * aarch64: a caller's pc with pointer-authentication bits (above the 48-bit
 * user address space, or NT_ARM_PAC_MASK's insn_mask) whose stripped value
 * is in a module: keep this frame's registers and the stripped pc for
 * core_thread_cb to resume from (libdwfl 0.188 would go on from the signed
 * value: wrong frames). 1 when so.
 */
static int pac_signed(struct core_ctx *x, Dwfl_Frame *state, Dwarf_Addr pc, Dwarf_Word sp)
{
	uint64_t stripped = x->notes.has_pac_mask ? pc & ~x->notes.pac_insn_mask : pc & 0xffffffffffffULL;
	unsigned int i;

	if (stripped == pc || !sp || !core_addrmodule(x->dwfl, stripped))
		return 0;
	for (i = 0; i < 32; i++)
		if (dwfl_frame_reg(state, i, &x->unwind.pac_regs[i]) != 0)
			x->unwind.pac_regs[i] = 0;	/* not known here: CFI restores what callers need */
	x->unwind.pac_regs[31] = sp;
	x->unwind.pac_resume = 1;
	x->unwind.wild_ret = stripped;
	x->unwind.wild_sp = sp;
	return 1;
}

/*
 * The stack pointer's DWARF register number (0: not known here). With the
 * sp, the same pc twice is a loop only when the sp is the same too: libdwfl's
 * frame-pointer unwinding of aarch64 and ppc64 gives the leaf's caller twice.
 */
static unsigned int dwarf_sp_reg(int machine)
{
	switch (machine) {
	case EM_X86_64: return 7;
	case EM_386: return 4;
	case EM_AARCH64: return 31;
	case EM_PPC: case EM_PPC64: return 1;
	case EM_S390: return 15;
	case EM_SPARC: case EM_SPARCV9: return 14;
	default: return 0;
	}
}

/* Unwind again from the Go caller frame_cb found (core_go_caller). */
static void go_resume(struct core_ctx *x)
{
	x->unwind.wild_ret = x->unwind.go_next.ret;
	x->unwind.wild_sp = x->unwind.go_next.ret_at;
	x->unwind.wild_bp = x->unwind.go_next.bp;
	x->unwind.wild_fault = x->unwind.go_next.fault;
	x->unwind.go_have = 0;
}

/*
 * Another thread's frames (from `first`) in a standard container's code:
 * their variables are read too, for the data-race pattern's `this`
 * comparison (src/model/stlrace.c).
 */
static int core_in_container(const struct prov_thread *t, size_t first)
{
	size_t k;

	for (k = first; k < t->nframes; k++)
		if (prov_stl_family(t->frames[k].function, NULL) >= 0)
			return 1;
	return 0;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct core_ctx *x = arg;
	struct prov_thread *t = &x->c->threads[x->unwind.cur];
	Dwarf_Addr pc, adj;
	bool isact;
	Dwarf_Word sp = 0;
	unsigned int spreg = dwarf_sp_reg(x->machine);
	size_t first;

	if (!dwfl_frame_pc(state, &pc, &isact)) {
		free(t->unwind_error);
		t->unwind_error = prov_xasprintf("cannot get the pc of frame %zu: %s",
						 t->nframes, dwfl_errmsg(-1));
		return DWARF_CB_ABORT;
	}
	if (x->unwind.resume_first) {
		isact = false;	/* a return address: look its call up, not the next insn */
		x->unwind.resume_first = 0;
	}
	if (spreg && dwfl_frame_reg(state, spreg, &sp) != 0)
		sp = 0;
	if (t->nframes && x->machine == EM_AARCH64 && pac_signed(x, state, pc, sp))
		return DWARF_CB_ABORT;	/* core_thread_cb resumes from the stripped pc */
	/*
	 * The frame before was a Go function, whose caller Go's pcsp table
	 * names (core_go_caller). libdwfl unwinds Go code without CFI by the
	 * frame pointer, which a frameless Go function did not set: it skips
	 * that function's caller. Another pc than Go's: unwind again from Go's.
	 */
	if (x->unwind.go_have) {
		x->unwind.go_have = 0;
		if (pc != x->unwind.go_next.ret) {
			go_resume(x);
			return DWARF_CB_ABORT;
		}
	}
	if (x->unwind.have_last && pc == x->unwind.last_pc && sp == x->unwind.last_sp) {
		free(t->unwind_error);
		t->unwind_error = prov_xasprintf("unwinder loop: frame at pc 0x%" PRIx64
						 " repeats", (uint64_t)pc);
		return DWARF_CB_ABORT;
	}
	/* a caller's pc in a stack or data segment is the unwinder's guess, not a frame */
	if (t->nframes && !isact && addr_not_code(x, pc)) {
		free(t->unwind_error);
		t->unwind_error = prov_xasprintf("frame %zu: pc 0x%" PRIx64 " is in non-executable "
						 "memory (not a return address)", t->nframes,
						 (uint64_t)pc);
		return DWARF_CB_ABORT;
	}
	x->unwind.have_last = 1;
	x->unwind.last_pc = pc;
	x->unwind.last_sp = sp;
	if (x->unwind.synth_pc && pc == x->unwind.synth_pc)
		return DWARF_CB_OK;	/* libdwfl found the caller we made up: once is enough */
	if (sp) {
		unsigned int fpreg = x->machine == EM_X86_64 ? 6 : x->machine == EM_386 ? 5 :
				     x->machine == EM_AARCH64 ? 29 : 0;
		Dwarf_Word fp = 0;
		struct chain_memo *e;

		if (fpreg && dwfl_frame_reg(state, fpreg, &fp) != 0)
			fp = 0;
		e = x->memo.chain_cap ? core_chain_slot(x, pc, sp, fp) : NULL;
		if (e && e->used && e->thread == x->unwind.cur) {
			free(t->unwind_error);
			t->unwind_error = prov_xasprintf("unwinder loop: frame at pc 0x%" PRIx64
							 " repeats", (uint64_t)pc);
			return DWARF_CB_ABORT;
		}
		/*
		 * The crashing thread's own frames carry its variables: unwind
		 * it all. A chain cut by its thread's cap is used only when it
		 * reaches this thread's cap too.
		 */
		if (e && e->used && !t->crashed &&
		    (!x->c->threads[e->thread].truncated ||
		     t->nframes + (x->c->threads[e->thread].nframes - e->frame) >= x->max_frames)) {
			x->unwind.chain_hit = 1;
			core_chain_copy(x, t, e);
			return DWARF_CB_ABORT;
		}
		if (!e || !e->used)
			core_chain_remember(x, pc, sp, fp, t->nframes);
	}
	if (t->nframes && core_is_sigtramp_memo(x, pc, isact))
		return core_add_signal_frame(x, t, pc, sp) < 0 ? DWARF_CB_ABORT : DWARF_CB_OK;
	adj = (isact || pc == 0) ? pc : pc - 1;
	first = t->nframes;
	if (core_add_pc_frames(x, t, pc, adj) < 0)
		return DWARF_CB_ABORT;
	if (x->sig.next) {
		x->sig.next = 0;
		if (x->sig.valid && pc == x->sig.rip && core_sigframe_is_crash(x))
			core_take_sigframe(x, t, first);
	}
	if ((t->crashed || (first < VARS_FRAMES && core_in_container(t, first))) &&
	    first <= VARS_FRAMES) {
		const unsigned char *fp = NULL;

		if (t->has_crash_frame && first == t->crash_frame)
			fp = x->sig.has_fpregs ? x->sig.fpregs : NULL;
		else if (first == 0 && x->notes.has_fpregs)
			fp = x->notes.fpregs;
		prov_core_frame_vars(t, first, first < VARS_FRAMES, &x->unwind.vars_pending, state,
				     core_addrmodule(x->dwfl, adj), pc, adj, fp, core_read_cb, x);
	} else {
		prov_vars_pending_reset(x->unwind.vars_pending);
	}
	if (x->machine == EM_X86_64 && sp) {
		Dwarf_Word bp;

		if (dwfl_frame_reg(state, 6, &bp) != 0)
			bp = 0;
		x->unwind.go_have = core_go_caller(x, pc, adj, sp, bp, &x->unwind.go_next);
	}
	/*
	 * The innermost frame in code without CFI (glibc's clone3 ends its CFI
	 * before the syscall, where a posix_spawn parent waits): libdwfl's
	 * frame-pointer fallback skips the caller. A function that pushed
	 * nothing has its return address at sp; core_leaf_return checks it.
	 */
	if (first == 0 && isact && x->machine == EM_X86_64) {
		uint64_t ret;

		if (core_leaf_return(x, pc, sp, &ret)) {
			x->unwind.wild_ret = ret;
			x->unwind.wild_sp = sp;
			x->unwind.leaf_derived = 1;
			return DWARF_CB_ABORT;
		}
	}
	/*
	 * A call through a NULL or wild pointer leaves pc outside every module,
	 * with no CFI to unwind by; libdwfl then falls back to the frame
	 * pointer and skips the caller. The call just pushed the return
	 * address, so [sp] names the caller (what gdb does too): stop here and
	 * unwind again from the caller (resume_unwind).
	 */
	if (t->nframes && !t->frames[0].inlined && t->nframes == 1 && x->machine == EM_X86_64 &&
	    sp && !core_addrmodule(x->dwfl, pc)) {
		unsigned char raw[8];
		uint64_t ret;

		if (core_read(x, sp, raw, 8) == 0 && (ret = core_rd64(x, raw)) &&
		    core_addrmodule(x->dwfl, ret)) {
			x->unwind.wild_ret = ret;
			x->unwind.wild_sp = sp;
			return DWARF_CB_ABORT;
		}
	}
	/*
	 * aarch64: blr keeps the return address in x30 (lr), not on the stack;
	 * libdwfl's fallback there takes the frame record at x29 as the
	 * nowhere function's own and so skips the caller's caller.
	 */
	if (t->nframes == 1 && !t->frames[0].inlined && x->machine == EM_AARCH64 &&
	    sp && !core_addrmodule(x->dwfl, pc)) {
		Dwarf_Word lr;

		if (dwfl_frame_reg(state, 30, &lr) == 0 && lr && core_addrmodule(x->dwfl, lr)) {
			x->unwind.wild_ret = lr;
			x->unwind.wild_sp = sp;
			return DWARF_CB_ABORT;
		}
	}
	return DWARF_CB_OK;
}

/* ---- resuming after a call to nowhere or a PAC-signed return: libdwfl's callbacks ---- */

struct resume_arg {
	struct core_ctx *x;
	pid_t tid;
	/* x86-64 DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip;
	 * aarch64: x0-x30 sp, and pc apart */
	Dwarf_Word regs[32];
	unsigned int nregs;
	int has_pc;
	Dwarf_Word pc;
};

static pid_t resume_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct resume_arg *a = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = a;
	return a->tid;
}

static bool resume_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct resume_arg *a = arg;
	unsigned char raw[8];

	(void)dwfl;
	if (core_read(a->x, addr, raw, 8) < 0)
		return false;
	*result = core_rd64(a->x, raw);
	return true;
}

static bool resume_set_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct resume_arg *a = thread_arg;

	if (!dwfl_thread_state_registers(thread, 0, a->nregs, a->regs))
		return false;
	if (a->has_pc)
		dwfl_thread_state_register_pc(thread, a->pc);
	return true;
}

static const Dwfl_Thread_Callbacks resume_callbacks = {
	.next_thread = resume_next_thread,
	.memory_read = resume_memory_read,
	.set_initial_registers = resume_set_registers,
};

/* ---- the core's threads, given to libdwfl (dwfl_attach_state) ---- */

/* A thread's x86-64 registers in DWARF numbering (rax..r15, rip): 0, or -1 if one is missing. */
static int x86_64_dwarf_regs(const struct prov_thread *t, Dwarf_Word regs[17])
{
	static const char *const dw[17] = { "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp",
		"rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip" };
	size_t i, k;

	for (i = 0; i < 17; i++) {
		for (k = 0; k < t->nregs; k++)
			if (strcmp(t->regs[k].name, dw[i]) == 0)
				break;
		if (k == t->nregs)
			return -1;
		regs[i] = t->regs[k].value;
	}
	return 0;
}

/*
 * The core's threads for libdwfl, from the NT_PRSTATUS notes already read,
 * in the same order as dwfl_core_file_attach gives them; the stack is read
 * through core_read's block cache rather than libdwfl's core reader, which
 * looks every word up again among all the words read before.
 */
static pid_t core_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct core_ctx *x = arg;
	const struct attach_thread *prev = *thread_argp;
	size_t i = prev ? prev->index + 1 : 0;

	(void)dwfl;
	if (i >= x->c->nthreads)
		return 0;
	*thread_argp = &x->unwind.attach[i];
	return (pid_t)x->c->threads[i].tid;
}

static bool core_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct core_ctx *x = arg;
	unsigned char raw[8];

	(void)dwfl;
	if (core_read(x, addr, raw, 8) < 0)
		return false;
	*result = core_rd64(x, raw);
	return true;
}

static bool core_set_registers(Dwfl_Thread *thread, void *thread_arg)
{
	const struct attach_thread *a = thread_arg;
	Dwarf_Word regs[17];

	if (x86_64_dwarf_regs(&a->x->c->threads[a->index], regs) < 0)
		return false;
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks core_thread_callbacks = {
	.next_thread = core_next_thread,
	.memory_read = core_memory_read,
	.set_initial_registers = core_set_registers,
};

/*
 * Give libdwfl the core's threads: our own callbacks for x86-64 cores whose
 * threads all have their registers, libdwfl's core reader otherwise.
 * 0, or -1 with libdwfl's error.
 */
int core_attach_threads(struct core_ctx *x)
{
	struct prov_crash *c = x->c;
	Dwarf_Word regs[17];
	size_t i;

	if (x->machine != EM_X86_64 || !x->is64 || x->swap || !c->nthreads)
		return dwfl_core_file_attach(x->dwfl, x->elf) < 0 ? -1 : 0;
	for (i = 0; i < c->nthreads; i++)
		if (x86_64_dwarf_regs(&c->threads[i], regs) < 0)
			return dwfl_core_file_attach(x->dwfl, x->elf) < 0 ? -1 : 0;
	x->unwind.attach = prov_xcalloc(c->nthreads, sizeof(*x->unwind.attach));
	for (i = 0; i < c->nthreads; i++) {
		x->unwind.attach[i].x = x;
		x->unwind.attach[i].index = i;
	}
	if (!dwfl_attach_state(x->dwfl, x->elf,
			       (pid_t)(c->process.has_pid ? c->process.pid : c->threads[0].tid),
			       &core_thread_callbacks, x))
		return -1;
	return 0;
}


/* ---- unwinding again from a caller ---- */

/*
 * The thread's registers at the call to nowhere, as if it had returned at
 * once (pc = the return address, sp past it; nothing else ran), unwound by
 * a second Dwfl over the same modules: the whole caller chain, as gdb shows.
 * 0, or -1 when that could not be set up (the caller keeps [sp] alone).
 */
static int resume_unwind(struct core_ctx *x, struct prov_thread *t, pid_t tid)
{
	struct resume_arg a;
	Dwfl *saved = x->dwfl;
	Dwfl_Module *saved_vdso = x->mods.vdso_mod;
	unsigned char *saved_image = x->mods.vdso_image;
	size_t saved_len = x->mods.vdso_len, saved_reported = x->mods.nreported, i, k;
	int ok = -1, fault;

	memset(&a, 0, sizeof(a));
	a.x = x;
	a.tid = tid;
	if (x->machine == EM_AARCH64 && x->unwind.pac_resume) {
		/* the signed frame's own registers, its pc stripped */
		a.nregs = 32;
		memcpy(a.regs, x->unwind.pac_regs, sizeof(a.regs));
		a.has_pc = 1;
		a.pc = x->unwind.wild_ret;
	} else if (x->machine == EM_AARCH64) {
		/* blr pushed nothing: the caller resumes at lr with the same sp */
		a.nregs = 32;
		for (i = 0; i < 32; i++) {
			const char *name = core_aarch64_regs[i];

			for (k = 0; k < t->nregs && strcmp(t->regs[k].name, name) != 0; k++)
				;
			if (k == t->nregs)
				return -1;
			a.regs[i] = t->regs[k].value;
		}
		a.regs[31] = x->unwind.wild_sp;
		a.has_pc = 1;
		a.pc = x->unwind.wild_ret;
	} else {
		a.nregs = 17;
		if (x86_64_dwarf_regs(t, a.regs) < 0)
			return -1;
		a.regs[7] = x->unwind.wild_sp + 8;
		a.regs[16] = x->unwind.wild_ret;
		if (x->unwind.wild_bp)
			a.regs[6] = x->unwind.wild_bp;
	}
	/* taken: the unwinding below may ask for another resume */
	x->unwind.wild_ret = 0;
	x->unwind.wild_bp = 0;
	x->unwind.pac_resume = 0;
	x->unwind.go_have = 0;
	fault = x->unwind.wild_fault;
	x->unwind.wild_fault = 0;
	x->unwind.nresumes++;

	x->mods.vdso_image = NULL;
	x->mods.vdso_mod = NULL;
	x->mods.vdso_len = 0;
	x->mods.nreported = 0;
	x->dwfl = core_dwfl_begin();
	if (!x->dwfl)
		goto cleanup;
	dwfl_report_begin(x->dwfl);
	if (core_report_modules(x) < 0 || dwfl_report_end(x->dwfl, NULL, NULL) != 0)
		goto cleanup;
	if (!dwfl_attach_state(x->dwfl, x->elf, tid, &resume_callbacks, &a))
		goto cleanup;
	x->unwind.have_last = 0;
	x->unwind.resume_first = !fault;	/* after runtime.sigpanic: the faulting insn itself */
	if (dwfl_getthread_frames(x->dwfl, tid, frame_cb, x) < 0 && !t->unwind_error &&
	    dwfl_errno() != 0)
		t->unwind_error = prov_xstrdup(dwfl_errmsg(-1));
	ok = 0;
cleanup:
	x->unwind.resume_first = 0;
	if (x->dwfl)
		dwfl_end(x->dwfl);
	free(x->mods.vdso_image);
	x->dwfl = saved;
	x->mods.vdso_mod = saved_vdso;
	x->mods.vdso_image = saved_image;
	x->mods.vdso_len = saved_len;
	x->mods.nreported = saved_reported;
	return ok;
}

/* ---- threads ---- */

int core_thread_cb(Dwfl_Thread *thread, void *arg)
{
	struct core_ctx *x = arg;
	struct prov_crash *c = x->c;
	pid_t tid = dwfl_thread_tid(thread);
	struct prov_thread *t;
	size_t i, n;
	int rc;

	for (i = 0; i < c->nthreads; i++)
		if (c->threads[i].has_tid && c->threads[i].tid == tid)
			break;
	if (i == c->nthreads) {
		if (c->nthreads >= PROV_MAX_THREADS)
			return DWARF_CB_ABORT;
		t = prov_crash_add_thread(c);
		t->has_tid = 1;
		t->tid = tid;
	}
	if (c->threads[i].nframes)
		return DWARF_CB_OK;	/* the same tid twice: keep the first */
	/* a live thread that did not stop: no registers (libdwfl would not
	 * release it after the failed read); core-pid.c says why */
	for (n = 0; n < x->live_nstuck; n++)
		if (x->live_stuck[n] == tid)
			return DWARF_CB_OK;
	if (x->unwind.total_frames >= PROV_MAX_TOTAL_FRAMES) {
		c->threads[i].truncated = 1;	/* not unwound: the report has its frames */
		x->unwind.total_cut = 1;
		return DWARF_CB_OK;
	}
	x->unwind.cur = i;
	x->unwind.have_last = 0;
	x->unwind.synth_pc = 0;
	x->unwind.wild_ret = 0;
	x->unwind.pac_resume = 0;
	x->unwind.chain_hit = 0;
	x->unwind.leaf_derived = 0;
	x->unwind.wild_bp = 0;
	x->unwind.wild_fault = 0;
	x->unwind.go_have = 0;
	x->sig.seen = x->sig.next = x->sig.valid = 0;
	rc = dwfl_thread_getframes(thread, frame_cb, x);
	t = &c->threads[i];
	x->sig.next = 0;
	if (x->unwind.chain_hit)
		return DWARF_CB_OK;
	if (x->unwind.go_have && !x->unwind.wild_ret)
		go_resume(x);	/* libdwfl stopped after a Go frame whose caller Go's table names */
	for (n = 0; x->unwind.wild_ret; n++) {
		uint64_t ret = x->unwind.wild_ret;
		size_t mark = t->nframes, k;
		int derived = x->unwind.leaf_derived;

		if (n >= MAX_RESUMES_PER_THREAD || x->unwind.nresumes >= MAX_RESUMES) {
			free(t->unwind_error);
			t->unwind_error = prov_xasprintf("stopped at 0x%" PRIx64 ": too many "
							 "pointer-authenticated or wild return "
							 "addresses to unwind from", ret);
			x->unwind.wild_ret = 0;
			x->unwind.pac_resume = 0;
			break;
		}
		if (resume_unwind(x, t, tid) < 0) {
			if (core_add_pc_frames(x, t, ret, ret - 1) == 0)
				x->unwind.synth_pc = ret;
			x->unwind.wild_ret = 0;
			x->unwind.pac_resume = 0;
		}
		t = &c->threads[i];
		x->unwind.leaf_derived = 0;
		if (x->unwind.go_have && !x->unwind.wild_ret && !x->unwind.chain_hit)
			go_resume(x);
		/* the caller and its inlined frames: found by [sp], not by CFI */
		for (k = mark; derived && k < t->nframes && t->frames[k].pc == ret; k++)
			t->frames[k].unwind_derived = 1;
	}
	if (n)
		return DWARF_CB_OK;
	if (rc < 0 && !t->unwind_error)
		t->unwind_error = prov_xstrdup(dwfl_errmsg(-1));
	return DWARF_CB_OK;
}

/* A truncated core: say which threads lost their stack (why their unwinding stopped). */
void core_note_missing_stacks(struct core_ctx *x)
{
	size_t i, k;

	for (i = 0; i < x->c->nthreads; i++) {
		struct prov_thread *t = &x->c->threads[i];
		unsigned char raw[8];
		char *msg;

		for (k = 0; k < t->nregs; k++)
			if (!strcmp(t->regs[k].name, "rsp") || !strcmp(t->regs[k].name, "esp") ||
			    !strcmp(t->regs[k].name, "sp"))	/* aarch64 */
				break;
		if (k == t->nregs || core_read(x, t->regs[k].value, raw, x->is64 ? 8 : 4) == 0)
			continue;
		msg = prov_xasprintf("its stack memory (sp 0x%" PRIx64 ") is missing from the "
				     "truncated core%s%s", t->regs[k].value,
				     t->unwind_error ? ": " : "",
				     t->unwind_error ? t->unwind_error : "");
		free(t->unwind_error);
		t->unwind_error = msg;
	}
}
