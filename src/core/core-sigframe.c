/*
 * Signal frames: the kernel's sigreturn trampoline, and the registers and
 * siginfo it saved for the interrupted code (x86-64).
 */
#include <signal.h>
#include <string.h>

#include "core-int.h"
#include "corevars.h"
#include "util.h"
#include "banned.h"

/* Code bytes at addr from the module's ELF file (a core holds no text pages). 0 or -1. */
static int module_code(Dwfl_Module *m, Dwarf_Addr addr, unsigned char *buf, size_t len)
{
	Dwarf_Addr bias = 0;
	Elf *elf = m ? dwfl_module_getelf(m, &bias) : NULL;
	size_t i, nph;

	if (!elf || elf_getphdrnum(elf, &nph) != 0 || addr < bias)
		return -1;
	addr -= bias;
	for (i = 0; i < nph && i < MAX_PHDRS; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    addr < ph.p_vaddr || addr - ph.p_vaddr >= ph.p_filesz ||
		    len > ph.p_filesz - (addr - ph.p_vaddr))
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset + (addr - ph.p_vaddr)), len,
					 ELF_T_BYTE);
		if (!d || !d->d_buf || d->d_size != len)
			return -1;
		memcpy(buf, d->d_buf, len);
		return 0;
	}
	return -1;
}

/*
 * 1 when pc is the kernel's signal return trampoline, the return address
 * of every signal handler: glibc's and musl's __restore_rt, the vDSO's
 * __kernel_rt_sigreturn / __vdso_rt_sigreturn, or, without a symbol (a
 * stripped libc has it only in .symtab), its x86-64 code (mov $15, %rax;
 * syscall: rt_sigreturn) in the module's file or the core, looked at when
 * libdwfl marked the frame an activation (the trampoline's CFI says it is a
 * signal frame) or it has no symbol.
 */
static int is_sigtramp(const struct core_ctx *x, Dwarf_Addr pc, bool isact)
{
	static const unsigned char rt_x86_64[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };
	Dwfl_Module *m = core_addrmodule(x->dwfl, pc);
	const char *name = m ? dwfl_module_addrname(m, pc) : NULL;
	unsigned char code[sizeof(rt_x86_64)];

	if (name && (strcmp(name, "__restore_rt") == 0 ||
		     strcmp(name, "__kernel_rt_sigreturn") == 0 ||
		     strcmp(name, "__vdso_rt_sigreturn") == 0))
		return 1;
	if (x->machine != EM_X86_64 || (name && !isact))
		return 0;
	return (module_code(m, pc, code, sizeof(code)) == 0 ||
		core_read(x, pc, code, sizeof(code)) == 0) &&
	       memcmp(code, rt_x86_64, sizeof(code)) == 0;
}

/*
 * is_sigtramp, remembered per (pc, isact): its symbol look-up is a linear
 * search of the module's symbol table (libdwfl's addrsym), 63% of a
 * 61-thread Python core whose threads are parked at the same few pcs.
 */
int core_is_sigtramp_memo(struct core_ctx *x, Dwarf_Addr pc, bool isact)
{
	uint64_t key = ((uint64_t)pc << 1) | (isact ? 1 : 0);
	size_t i, mask = TRAMP_MEMO_CAP - 1;
	int r;

	if (!x->memo.tramp)
		x->memo.tramp = prov_xcalloc(TRAMP_MEMO_CAP, sizeof(*x->memo.tramp));
	for (i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & mask;; i = (i + 1) & mask) {
		struct tramp_memo *e = &x->memo.tramp[i];

		if (!e->state)
			break;
		if (e->key == key)
			return e->state == 2;
	}
	r = is_sigtramp(x, pc, isact);
	/* keep free slots so that lookups always end */
	if (x->memo.tramp_used + 1 < TRAMP_MEMO_CAP - TRAMP_MEMO_CAP / 4) {
		x->memo.tramp[i].key = key;
		x->memo.tramp[i].state = r ? 2 : 1;
		x->memo.tramp_used++;
	}
	return r;
}

/* x86-64: where the kernel's struct rt_sigframe keeps things, from the
 * trampoline frame's sp (the handler returned: sp is &frame->uc). */
#define UC_MCONTEXT 40	/* struct ucontext: uc_flags, uc_link, uc_stack */
#define UC_SIGINFO 304	/* struct siginfo after the kernel's struct ucontext */
#define SC_SIZE 256	/* struct sigcontext */

/* Offsets of the general registers in the x86-64 struct sigcontext. */
static int sigcontext_offset(const char *name)
{
	static const struct {
		const char *name;
		int off;
	} sc[] = {
		{ "r8", 0 }, { "r9", 8 }, { "r10", 16 }, { "r11", 24 }, { "r12", 32 },
		{ "r13", 40 }, { "r14", 48 }, { "r15", 56 }, { "rdi", 64 }, { "rsi", 72 },
		{ "rbp", 80 }, { "rbx", 88 }, { "rdx", 96 }, { "rax", 104 }, { "rcx", 112 },
		{ "rsp", 120 }, { "rip", 128 }, { "eflags", 136 },
		/* 16-bit selectors */
		{ "cs", 144 }, { "gs", 146 }, { "fs", 148 }, { "ss", 150 },
	};
	size_t i;

	for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++)
		if (strcmp(sc[i].name, name) == 0)
			return sc[i].off;
	return -1;
}

/*
 * The signal of an interrupted context. The kernel writes the siginfo into
 * the frame only for an SA_SIGINFO handler (LLVM's, faulthandler's and
 * glog's are not): without one, the sigcontext's trap number, error code
 * and cr2 (what the kernel kept of the last fault it signalled) say it:
 * page fault -> SIGSEGV at cr2 (SEGV_ACCERR when the page was present),
 * general protection -> SIGSEGV SI_KERNEL, alignment check -> SIGBUS
 * BUS_ADRALN, divide error -> SIGFPE, invalid opcode -> SIGILL. 1 when
 * known; sig.derived says it came from the trap number.
 */
static int read_siginfo(struct core_ctx *x, const unsigned char *info, uint64_t trapno,
			uint64_t err, uint64_t cr2)
{
	struct prov_signal *s = &x->sig.info;
	int signo = (int)core_rd32(x, info), code = (int)core_rd32(x, info + 8);
	int fault = signo == SIGSEGV || signo == SIGBUS;

	memset(s, 0, sizeof(*s));
	x->sig.derived = 0;
	if (signo > 0 && signo < 65 && code >= -7 && code <= 0x80 &&
	    (!fault || trapno != 14 || code <= 0 || core_rd64(x, info + 16) == cr2)) {
		s->number = signo;
		s->has_code = 1;
		s->code = code;
		if (code <= 0) {
			s->has_sender = 1;
			s->sender_pid = (int32_t)core_rd32(x, info + 16);
		} else if (prov_signal_has_fault_addr(signo, code)) {
			s->has_addr = 1;
			s->addr = core_rd64(x, info + 16);
		}
		return 1;
	}
	x->sig.derived = 1;
	s->has_code = 1;
	switch (trapno) {
	case 14:	/* #PF */
		s->number = SIGSEGV;
		s->code = (err & 1) ? 2 : 1;	/* SEGV_ACCERR : SEGV_MAPERR */
		s->has_addr = 1;
		s->addr = cr2;
		return 1;
	case 13:	/* #GP */
		s->number = SIGSEGV;
		s->code = 0x80;	/* SI_KERNEL */
		return 1;
	case 17:	/* #AC */
		s->number = SIGBUS;
		s->code = 1;	/* BUS_ADRALN */
		return 1;
	case 0:	/* #DE */
		s->number = SIGFPE;
		s->code = 1;	/* FPE_INTDIV */
		return 1;
	case 6:	/* #UD */
		s->number = SIGILL;
		s->code = 2;	/* ILL_ILLOPN */
		return 1;
	default:
		return 0;
	}
}

/*
 * The interrupted context of the crashing thread's first signal frame: the
 * registers in the sigcontext (the thread's own for what the kernel does not
 * save there: fs_base, gs_base, ds, es; no orig_rax), its FXSAVE area, and
 * the siginfo the kernel delivered. Read from the core (untrusted): used
 * only when the next frame's pc is the saved rip.
 */
static void read_sigframe(struct core_ctx *x, const struct prov_thread *t, uint64_t sp)
{
	unsigned char sc[SC_SIZE], info[128];
	uint64_t fpstate;
	size_t i, k;

	x->sig.valid = 0;
	x->sig.nregs = 0;
	x->sig.has_fpregs = 0;
	if (x->machine != EM_X86_64 || !x->is64 || sp > UINT64_MAX - UC_SIGINFO - sizeof(info) ||
	    core_read(x, sp + UC_MCONTEXT, sc, sizeof(sc)) < 0 ||
	    core_read(x, sp + UC_SIGINFO, info, sizeof(info)) < 0)
		return;
	for (i = 0; i < sizeof(core_x86_64_regs) / sizeof(core_x86_64_regs[0]); i++) {
		const char *name = core_x86_64_regs[i];
		int off = sigcontext_offset(name);
		struct prov_reg *r = &x->sig.regs[x->sig.nregs];

		if (strcmp(name, "orig_rax") == 0)
			continue;
		memcpy(r->name, name, strlen(name) + 1);
		if (off >= 144) {
			r->value = core_rd16(x, sc + off);
		} else if (off >= 0) {
			r->value = core_rd64(x, sc + off);
		} else {
			for (k = 0; k < t->nregs && strcmp(t->regs[k].name, name) != 0; k++)
				;
			if (k == t->nregs)
				continue;
			r->value = t->regs[k].value;
		}
		if (strcmp(name, "rip") == 0)
			x->sig.rip = r->value;
		x->sig.nregs++;
	}
	fpstate = core_rd64(x, sc + 184);
	if (fpstate && core_read(x, fpstate, x->sig.fpregs, sizeof(x->sig.fpregs)) == 0)
		x->sig.has_fpregs = 1;
	x->sig.valid = read_siginfo(x, info, core_rd64(x, sc + 160), core_rd64(x, sc + 152),
				     core_rd64(x, sc + 176));
}

/*
 * Whether the crash is the interrupted context rather than the handler: the
 * signal saved in the frame is a fault the kernel raised at an instruction
 * (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS with si_code > 0) or an
 * abort, and the signal the process died of was sent by the handler
 * (raise, tgkill, abort: si_code <= 0). A handler that faults itself (the
 * kernel's si_code) is the crash: frame #0 stays the crash site.
 */
int core_sigframe_is_crash(const struct core_ctx *x)
{
	const struct prov_signal *d = &x->c->signal;
	int s = x->sig.info.number;
	int fault = (s == SIGSEGV || s == SIGBUS || s == SIGILL || s == SIGFPE || s == SIGTRAP ||
		     s == SIGSYS) && x->sig.info.code > 0;

	if (!x->sig.valid || !(fault || s == SIGABRT))
		return 0;
	/* a signal read from the trap number is the one re-raised, or abort's */
	if (x->sig.derived && x->c->has_signal && d->number != s && d->number != SIGABRT)
		return 0;
	return !x->c->has_signal || !d->has_code || d->code <= 0;
}

/* The crash site is the interrupted frame: its registers and signal become the crash's. */
void core_take_sigframe(struct core_ctx *x, struct prov_thread *t, size_t first)
{
	struct prov_crash *c = x->c;
	struct prov_signal *s = &c->signal;
	const char *name;

	t->has_crash_frame = 1;
	t->crash_frame = first;
	if (!t->handler_regs) {
		t->handler_regs = t->regs;
		t->nhandler_regs = t->nregs;
		t->regs = prov_xcalloc(x->sig.nregs, sizeof(*t->regs));
		memcpy(t->regs, x->sig.regs, x->sig.nregs * sizeof(*t->regs));
		t->nregs = x->sig.nregs;
	}
	if (c->has_signal && !c->has_delivered) {
		c->has_delivered = 1;
		c->delivered = *s;
	}
	*s = x->sig.info;
	c->has_signal = 1;
	name = prov_signal_name(s->number);
	s->name = name ? prov_xstrdup(name) : prov_xasprintf("SIG%d", s->number);
	s->code_name = prov_xstrdup_or_null(prov_signal_code_name(s->number, s->code));
}

/* The trampoline's frame: "<signal handler called>". 0, or -1 at a cap. */
int core_add_signal_frame(struct core_ctx *x, struct prov_thread *t, Dwarf_Addr pc, uint64_t sp)
{
	Dwfl_Module *m = core_addrmodule(x->dwfl, pc);
	struct prov_frame *f = core_new_frame(x, t);

	if (!f)
		return -1;
	f->has_pc = 1;
	f->pc = pc;
	f->function = prov_xstrdup("<signal handler called>");
	f->signal_frame = 1;
	f->module = m ? prov_xstrdup_or_null(core_module_recorded_path(m)) : NULL;
	if (t->crashed)	/* the interrupted frame is not the handler's caller */
		prov_core_frame_vars(t, t->nframes - 1, 0, &x->unwind.vars_pending, NULL, NULL, pc, pc,
				     NULL, core_read_cb, x);
	if (t->crashed && !x->sig.seen && sp) {
		read_sigframe(x, t, sp);
		x->sig.next = 1;
	}
	x->sig.seen = 1;
	return 0;
}

/* Every frame above a thread's last signal frame runs in a signal handler. */
void core_mark_handler_frames(struct prov_thread *t)
{
	size_t i, last = 0;

	for (i = 0; i < t->nframes; i++)
		if (t->frames[i].signal_frame)
			last = i;
	for (i = 0; i < last; i++)
		if (!t->frames[i].signal_frame)
			t->frames[i].in_handler = 1;
}
