/*
 * The core analyzer's note parsing on synthetic cores written byte by byte:
 * the expected values are the bytes the test wrote. Real cores are covered
 * by tests/e2e/t-analyze-*.sh.
 */
#include <elf.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core.h"
#include "disasm.h"
#include "patterns.h"
#include "error.h"
#include "report.h"
#include "util.h"
#include "unit.h"
#include "banned.h"

static char tmpdir[] = "/tmp/prov-test-core.XXXXXX";
static uint16_t core_machine = EM_X86_64;	/* e_machine of the next write_core */

struct note {
	uint32_t type;
	const void *desc;
	size_t len;
	const char *owner;
};

/* An ELF64 x86-64 core with one PT_NOTE holding `notes`; returns its path (static). */
static const char *write_core(const char *name, uint16_t type, const struct note *notes,
			      size_t n, long cut)
{
	static char path[512];
	struct prov_buf nb = PROV_BUF_INIT, file = PROV_BUF_INIT;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	size_t i;
	FILE *f;

	for (i = 0; i < n; i++) {
		const char *owner = notes[i].owner ? notes[i].owner : "CORE";
		Elf64_Nhdr nh = { (Elf64_Word)strlen(owner) + 1, (Elf64_Word)notes[i].len, notes[i].type };
		static const char zero[8];

		prov_buf_add(&nb, &nh, sizeof(nh));
		prov_buf_add(&nb, owner, nh.n_namesz);
		prov_buf_add(&nb, zero, (4 - nh.n_namesz % 4) % 4);
		prov_buf_add(&nb, notes[i].desc, notes[i].len);
		prov_buf_add(&nb, zero, (4 - notes[i].len % 4) % 4);
	}
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = type;
	eh.e_machine = core_machine;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_NOTE;
	ph.p_offset = sizeof(eh) + sizeof(ph);
	ph.p_filesz = nb.len;
	ph.p_align = 4;
	prov_buf_add(&file, &eh, sizeof(eh));
	prov_buf_add(&file, &ph, sizeof(ph));
	prov_buf_add(&file, nb.buf, nb.len);
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(file.buf, 1, cut >= 0 ? (size_t)cut : file.len, f),
			 cut >= 0 ? (size_t)cut : file.len);
	fclose(f);
	prov_buf_release(&nb);
	prov_buf_release(&file);
	return path;
}

/* x86-64 elf_prstatus: cursig at 12, pid at 32, 27 registers at 112; 336 bytes. */
static void prstatus(unsigned char *d, int32_t tid, uint16_t cursig, uint64_t rip)
{
	uint64_t regs[27];
	size_t i;

	memset(d, 0, 336);
	memcpy(d + 12, &cursig, 2);
	memcpy(d + 32, &tid, 4);
	for (i = 0; i < 27; i++)
		regs[i] = 0x1000 + i;
	regs[16] = rip;
	memcpy(d + 112, regs, sizeof(regs));
}

/* x86-64 elf_prpsinfo: pid at 24, fname[16] at 40, psargs[80] at 56; 136 bytes. */
static void prpsinfo(unsigned char *d, int32_t pid, const char *fname, const char *args)
{
	memset(d, 0, 136);
	memcpy(d + 24, &pid, 4);
	memcpy(d + 40, fname, strnlen(fname, 16));
	memcpy(d + 56, args, strnlen(args, 80));
}

/* siginfo: signo 0, code 8, si_addr / si_pid at 16; 128 bytes. */
static void siginfo(unsigned char *d, int32_t signo, int32_t code, uint64_t addr_or_pid)
{
	memset(d, 0, 128);
	memcpy(d, &signo, 4);
	memcpy(d + 8, &code, 4);
	memcpy(d + 16, &addr_or_pid, 8);
}

static void test_is_core(void **state)
{
	unsigned char h[64];

	memset(h, 0, sizeof(h));
	memcpy(h, ELFMAG, SELFMAG);
	h[EI_CLASS] = ELFCLASS64;
	h[EI_DATA] = ELFDATA2LSB;
	h[16] = ET_CORE;
	assert_int_equal(prov_core_is_core(h, sizeof(h)), 1);
	assert_int_equal(prov_core_is_core(h, 17), 0);
	h[16] = ET_EXEC;
	assert_int_equal(prov_core_is_core(h, sizeof(h)), 0);
	h[EI_DATA] = ELFDATA2MSB;
	h[16] = 0;
	h[17] = ET_CORE;
	assert_int_equal(prov_core_is_core(h, sizeof(h)), 1);
	h[0] = 'X';
	assert_int_equal(prov_core_is_core(h, sizeof(h)), 0);
	assert_int_equal(prov_core_is_core(NULL, 0), 0);
}

/*
 * An aarch64 core (e_machine EM_AARCH64; elf_prstatus has the same pid,
 * cursig and pr_reg offsets on every 64-bit Linux): pr_reg is
 * user_pt_regs (x0..x30, sp, pc, pstate), read under those names; its code
 * is decoded as arm64 and the load's base register is the faulting pointer.
 */
static void test_aarch64_core(void **state)
{
	unsigned char st[392], ps[136], si[128];
	uint64_t regs[34];
	struct note notes[3];
	struct prov_crash *c = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	const char *path;
	size_t i;

	(void)state;
	memset(st, 0, sizeof(st));
	prstatus(st, 77, 11, 0);
	for (i = 0; i < 34; i++)
		regs[i] = 0x2000 + i;
	regs[0] = 0;		/* x0: the NULL pointer */
	regs[1] = 0x1000;	/* x1: an index */
	regs[31] = 0x7ff000;	/* sp */
	regs[32] = 0x400124;	/* pc */
	regs[33] = 0x60000000;	/* pstate */
	memcpy(st + 112, regs, sizeof(regs));
	prpsinfo(ps, 77, "armprog", "./armprog");
	notes[0] = (struct note){ NT_PRSTATUS, st, sizeof(st), NULL };
	notes[1] = (struct note){ NT_PRPSINFO, ps, sizeof(ps), NULL };
	siginfo(si, 11, 1, 0x8000);	/* SIGSEGV, SEGV_MAPERR: the kernel's siginfo */
	notes[2] = (struct note){ NT_SIGINFO, si, sizeof(si), NULL };
	core_machine = EM_AARCH64;
	path = write_core("aarch64.core", ET_CORE, notes, 3, -1);
	core_machine = EM_X86_64;
	assert_ok(prov_core_analyze(&c, path, NULL));
	assert_non_null(c);
	assert_int_equal(c->machine, EM_AARCH64);
	assert_int_equal(c->nthreads, 1);
	assert_int_equal(c->threads[0].tid, 77);
	assert_null(c->registers_note);
	assert_true(c->signal.has_addr);	/* the fault address: siginfo's si_addr */
	assert_int_equal(c->signal.addr, 0x8000);
	assert_int_equal(c->threads[0].nregs, 34);
	assert_string_equal(c->threads[0].regs[0].name, "x0");
	assert_string_equal(c->threads[0].regs[30].name, "x30");
	assert_int_equal(c->threads[0].regs[30].value, 0x2000 + 30);
	assert_string_equal(c->threads[0].regs[31].name, "sp");
	assert_int_equal(c->threads[0].regs[31].value, 0x7ff000);
	assert_string_equal(c->threads[0].regs[32].name, "pc");
	assert_int_equal(c->threads[0].regs[32].value, 0x400124);
	assert_string_equal(c->threads[0].regs[33].name, "pstate");
	c->code = prov_xmalloc(8);
	/* stp x29, x30, [sp, #-0x10]!; ldr x0, [x0, x1, lsl #3] */
	memcpy(c->code, "\xfd\x7b\xbf\xa9\x00\x78\x61\xf8", 8);
	c->code_len = 8;
	c->code_addr = 0x400120;
	c->code_pc = 0x400124;
	prov_disasm_crash(c, 3, 3);
	assert_int_equal(c->ninsns, 2);
	assert_false(c->insns[0].current);
	assert_true(c->insns[1].current);
	assert_int_equal(c->insns[1].addr, 0x400124);
	assert_string_equal(c->insns[1].text, "ldr     x0, [x0, x1, lsl #3]");
	assert_null(c->insns_note);
	assert_non_null(c->fault_operand);
	assert_non_null(strstr(c->fault_operand, "`x0` = 0x0 (NULL base register)"));
	assert_true(c->has_fault_base);
	assert_string_equal(c->fault_base_reg, "x0");
	assert_true(c->has_fault_ea);
	assert_int_equal(c->fault_ea, 0x8000);	/* 0 + 0x1000 << 3 */
	assert_int_equal(c->fault_size, 8);
	assert_ok(prov_report_json(&out, c));
	assert_non_null(strstr(out.buf, "\"x30\": \"0x201e\""));
	assert_non_null(strstr(out.buf, "\"pstate\": \"0x60000000\""));
	assert_null(strstr(out.buf, "instruction boundary"));
	prov_buf_release(&out);
	prov_crash_free(c);
}

/*
 * i386 code is decoded as 32-bit x86 (capstone's CS_MODE_32) and its load's
 * base register read from the core's i386 registers.
 */
static void test_i386_disasm(void **state)
{
	struct prov_crash *c = prov_crash_new(PROV_INPUT_CORE, "i386.core");
	struct prov_thread *t = prov_crash_add_thread(c);

	(void)state;
	c->machine = EM_386;
	t->crashed = 1;
	c->has_crashed_thread = 1;
	c->crashed_thread = 0;
	t->regs = prov_xcalloc(2, sizeof(*t->regs));
	t->nregs = 2;
	memcpy(t->regs[0].name, "eax", 4);
	t->regs[0].value = 0;
	memcpy(t->regs[1].name, "eip", 4);
	t->regs[1].value = 0x8049003;
	c->code = prov_xmalloc(6);
	/* push ebp; mov ebp, esp; mov eax, dword ptr [eax + 0xc] */
	memcpy(c->code, "\x55\x89\xe5\x8b\x40\x0c", 6);
	c->code_len = 6;
	c->code_addr = 0x8049000;
	c->code_pc = 0x8049003;
	prov_disasm_crash(c, 3, 3);
	assert_int_equal(c->ninsns, 3);
	assert_true(c->insns[2].current);
	assert_string_equal(c->insns[2].text, "mov     eax, dword ptr [eax + 0xc]");
	assert_true(c->has_fault_base);
	assert_string_equal(c->fault_base_reg, "eax");
	assert_true(c->has_fault_ea);
	assert_int_equal(c->fault_ea, 0xc);
	assert_int_equal(c->fault_size, 4);
	prov_crash_free(c);
}

/* A crash with one crashed thread whose only register is `sp` (or `rsp`). */
static struct prov_crash *pattern_crash(int machine, const char *spname, uint64_t sp, uint64_t addr)
{
	struct prov_crash *c = prov_crash_new(PROV_INPUT_CORE, "p.core");
	struct prov_thread *t = prov_crash_add_thread(c);
	struct prov_frame *f = prov_thread_add_frame(t);

	c->machine = machine;
	t->crashed = 1;
	c->has_crashed_thread = 1;
	c->crashed_thread = 0;
	f->has_pc = 1;
	f->pc = 0x400100;
	t->regs = prov_xcalloc(1, sizeof(*t->regs));
	t->nregs = 1;
	memcpy(t->regs[0].name, spname, strlen(spname) + 1);
	t->regs[0].value = sp;
	c->has_signal = 1;
	c->signal.number = SIGSEGV;
	c->signal.has_code = 1;
	c->signal.code = 1;
	c->signal.has_addr = 1;
	c->signal.addr = addr;
	return c;
}

static const char *pattern_ids(struct prov_crash *c, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < c->npatterns && n + strlen(c->patterns[i].id) + 2 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", c->patterns[i].id);
	return buf;
}

/*
 * Patterns on aarch64: the stack pointer is `sp` (a fault just below it is
 * a stack overflow), and x86-64's canonical-address rule does not apply
 * (a fault address with high bits set is no "non-canonical" there).
 */
static void test_aarch64_patterns(void **state)
{
	struct prov_crash *c;
	char ids[128];

	(void)state;
	c = pattern_crash(EM_AARCH64, "sp", 0x7ffff0001000, 0x7ffff0000ff0);
	prov_patterns_detect(c);
	assert_string_equal(pattern_ids(c, ids, sizeof(ids)), "stack-overflow");
	prov_crash_free(c);
	c = pattern_crash(EM_AARCH64, "sp", 0x7ffff0001000, 0xdead000000000000);
	prov_patterns_detect(c);
	assert_string_equal(pattern_ids(c, ids, sizeof(ids)), "");
	prov_crash_free(c);
	c = pattern_crash(EM_X86_64, "rsp", 0x7ffff0001000, 0xdead000000000000);
	prov_patterns_detect(c);
	assert_string_equal(pattern_ids(c, ids, sizeof(ids)), "non-canonical");
	prov_crash_free(c);
}

/*
 * A ppc64 core: its registers are not read and its code is not
 * disassembled; the JSON notes each, the text report says it in one line,
 * never a misleading "not on an instruction boundary".
 */
static void test_foreign_machine(void **state)
{
	unsigned char st[504], ps[136];
	struct note notes[2];
	struct prov_crash *c = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	const char *path;

	(void)state;
	memset(st, 0, sizeof(st));
	prstatus(st, 77, 11, 0x400123);
	prpsinfo(ps, 77, "ppcprog", "./ppcprog");
	notes[0] = (struct note){ NT_PRSTATUS, st, sizeof(st), NULL };
	notes[1] = (struct note){ NT_PRPSINFO, ps, sizeof(ps), NULL };
	core_machine = EM_PPC64;
	path = write_core("ppc64.core", ET_CORE, notes, 2, -1);
	core_machine = EM_X86_64;
	assert_ok(prov_core_analyze(&c, path, NULL));
	assert_non_null(c);
	assert_int_equal(c->machine, EM_PPC64);
	assert_int_equal(c->nthreads, 1);
	assert_int_equal(c->threads[0].tid, 77);
	assert_null(c->threads[0].regs);
	assert_non_null(c->registers_note);
	assert_string_equal(c->registers_note, "registers of ppc64 cores are not read yet");
	c->code = prov_xmalloc(4);	/* bytes there: still not decoded as x86 */
	memcpy(c->code, "\x00\x00\x63\xe8", 4);	/* ld r3, 0(r3) */
	c->code_len = 4;
	c->code_addr = c->code_pc = 0x400123;
	prov_disasm_crash(c, 3, 3);
	assert_int_equal(c->ninsns, 0);
	assert_non_null(c->insns_note);
	assert_string_equal(c->insns_note, "disassembly (and the crash patterns that read operands) "
			    "of ppc64 cores is not supported");
	assert_ok(prov_report_json(&out, c));
	assert_non_null(strstr(out.buf, "\"registers_note\": \"registers of ppc64 cores are not read yet\""));
	assert_non_null(strstr(out.buf, "\"instructions_note\": \"disassembly"));
	assert_null(strstr(out.buf, "instruction boundary"));
	prov_buf_release(&out);
	assert_ok(prov_report_text(&out, c, PROV_REPORT_REGISTERS));
	/* one line says both: the machine's registers and code are not read */
	assert_non_null(strstr(out.buf, "no registers or disassembly: not supported for ppc64 "
			       "cores, nor the crash patterns that read operands\n"));
	assert_null(strstr(out.buf, "no registers:"));
	assert_null(strstr(out.buf, "no disassembly:"));
	prov_buf_release(&out);
	prov_crash_free(c);
}

/*
 * One e_machine, two machines: EM_S390 is s390 (ESA/390) in an ELFCLASS32
 * core and s390x (z/Architecture) in an ELFCLASS64 one, as `file` and
 * elfutils' backtrace.s390.core / backtrace.s390x.core name them; EM_X86_64
 * in an ELFCLASS32 core is x32.
 */
static void test_machine_names(void **state)
{
	(void)state;
	assert_string_equal(prov_machine_name(EM_S390, 0), "s390");
	assert_string_equal(prov_machine_name(EM_S390, 1), "s390x");
	assert_string_equal(prov_machine_name(EM_X86_64, 1), "x86-64");
	assert_string_equal(prov_machine_name(EM_X86_64, 0), "x32");
	assert_string_equal(prov_machine_name(EM_386, 0), "i386");
	assert_string_equal(prov_machine_name(4242, 1), "EM_4242");
	assert_int_equal(prov_machine_reads(EM_S390, 0), 0);
	assert_int_equal(prov_machine_reads(EM_X86_64, 0), PROV_MACHINE_DISASM);
}

static void test_notes(void **state)
{
	unsigned char st1[336], st2[336], ps[136], si[128];
	struct note notes[4];
	struct prov_crash *c = NULL;
	const char *path;
	int error;

	prstatus(st1, 4242, 11, 0x401234);
	prstatus(st2, 4243, 0, 0x405678);
	prpsinfo(ps, 4242, "prog", "prog --flag value");
	siginfo(si, 11, 2, 0xdeadbeef);
	notes[0] = (struct note){ NT_PRSTATUS, st1, sizeof(st1), NULL };
	notes[1] = (struct note){ NT_PRPSINFO, ps, sizeof(ps), NULL };
	notes[2] = (struct note){ 0x53494749, si, sizeof(si), NULL };
	notes[3] = (struct note){ NT_PRSTATUS, st2, sizeof(st2), NULL };
	path = write_core("notes.core", ET_CORE, notes, 4, -1);
	error = prov_core_analyze(&c, path, NULL);
	assert_ok(error);
	assert_non_null(c);
	assert_int_equal(c->nthreads, 2);
	assert_int_equal(c->threads[0].tid, 4242);
	assert_int_equal(c->threads[0].crashed, 1);
	assert_int_equal(c->threads[1].tid, 4243);
	assert_int_equal(c->threads[1].crashed, 0);
	assert_int_equal(c->has_crashed_thread, 1);
	assert_int_equal(c->crashed_thread, 0);
	assert_int_equal(c->threads[0].nregs, 27);
	assert_string_equal(c->threads[0].regs[16].name, "rip");
	assert_int_equal(c->threads[0].regs[16].value, 0x401234);
	assert_string_equal(c->threads[0].regs[15].name, "orig_rax");
	assert_int_equal(c->threads[1].regs[16].value, 0x405678);
	assert_int_equal(c->process.pid, 4242);
	assert_string_equal(c->process.executable, "prog");
	assert_string_equal(c->process.cmdline, "prog --flag value");
	assert_int_equal(c->signal.number, 11);
	assert_string_equal(c->signal.name, "SIGSEGV");
	assert_int_equal(c->signal.code, 2);
	assert_string_equal(c->signal.code_name, "SEGV_ACCERR");
	assert_int_equal(c->signal.has_addr, 1);
	assert_int_equal(c->signal.addr, 0xdeadbeef);
	assert_int_equal(c->signal.has_sender, 0);
	prov_crash_free(c);
}

static void test_tkill_and_cursig(void **state)
{
	unsigned char st[336], si[128];
	struct note notes[2];
	struct prov_crash *c = NULL;

	/* abort(): SI_TKILL carries the sender's pid, not an address */
	prstatus(st, 77, 6, 0x1000);
	siginfo(si, 6, -6, 77);
	notes[0] = (struct note){ NT_PRSTATUS, st, sizeof(st), NULL };
	notes[1] = (struct note){ 0x53494749, si, sizeof(si), NULL };
	assert_ok(prov_core_analyze(&c, write_core("tkill.core", ET_CORE, notes, 2, -1), NULL));
	assert_int_equal(c->signal.has_addr, 0);
	assert_int_equal(c->signal.has_sender, 1);
	assert_int_equal(c->signal.sender_pid, 77);
	assert_string_equal(c->signal.code_name, "SI_TKILL");
	prov_crash_free(c);

	/* no NT_SIGINFO: pr_cursig of the first thread, no code */
	c = NULL;
	assert_ok(prov_core_analyze(&c, write_core("cursig.core", ET_CORE, notes, 1, -1), NULL));
	assert_int_equal(c->signal.number, 6);
	assert_string_equal(c->signal.name, "SIGABRT");
	assert_int_equal(c->signal.has_code, 0);
	assert_null(c->signal.code_name);
	prov_crash_free(c);
}

static void test_damaged(void **state)
{
	unsigned char st[336], file[64], ps[136];
	uint64_t w[2];
	struct note notes[3];
	struct prov_crash *c = NULL;
	const char *path;

	prstatus(st, 5, 11, 0x1000);
	/* NT_FILE claiming 2^40 entries in 64 bytes */
	memset(file, 0, sizeof(file));
	w[0] = (uint64_t)1 << 40;
	w[1] = 4096;
	memcpy(file, w, sizeof(w));
	notes[0] = (struct note){ NT_PRSTATUS, st, sizeof(st), NULL };
	notes[1] = (struct note){ 0x46494c45, file, sizeof(file), NULL };
	path = write_core("file.core", ET_CORE, notes, 2, -1);
	assert_int_equal(prov_core_analyze(&c, path, NULL), PROV_EINPUT);
	assert_null(c);
	assert_non_null(strstr(prov_error_last(), path));

	/* no thread notes at all */
	prpsinfo(ps, 5, "x", "x");
	notes[0] = (struct note){ NT_PRPSINFO, ps, sizeof(ps), NULL };
	path = write_core("nothreads.core", ET_CORE, notes, 1, -1);
	assert_int_equal(prov_core_analyze(&c, path, NULL), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "NT_PRSTATUS"));

	/* notes of another owner are not thread notes */
	notes[0] = (struct note){ NT_PRSTATUS, st, sizeof(st), "LINUX" };
	path = write_core("owner.core", ET_CORE, notes, 1, -1);
	assert_int_equal(prov_core_analyze(&c, path, NULL), PROV_EINPUT);

	/* a short NT_PRSTATUS is skipped, not read past its end */
	notes[0] = (struct note){ NT_PRSTATUS, st, 20, NULL };
	path = write_core("short.core", ET_CORE, notes, 1, -1);
	assert_int_equal(prov_core_analyze(&c, path, NULL), PROV_EINPUT);

	/* cut inside the notes */
	notes[0] = (struct note){ NT_PRSTATUS, st, sizeof(st), NULL };
	path = write_core("cut.core", ET_CORE, notes, 1, 64 + 56 + 100);
	assert_int_equal(prov_core_analyze(&c, path, NULL), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "truncated"));

	/* an executable is not a core */
	path = write_core("exec.core", ET_EXEC, notes, 1, -1);
	assert_int_equal(prov_core_analyze(&c, path, NULL), PROV_EINPUT);
	assert_non_null(strstr(prov_error_last(), "not a core"));

	assert_int_equal(prov_core_analyze(&c, "/nonexistent/core", NULL), PROV_EINPUT);
	assert_null(c);
}

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = prov_xasprintf("rm -rf '%s'", tmpdir);
	int rc = system(cmd);

	free(cmd);
	return rc == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_core),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_tkill_and_cursig),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_aarch64_core),
		cmocka_unit_test(test_i386_disasm),
		cmocka_unit_test(test_aarch64_patterns),
		cmocka_unit_test(test_foreign_machine),
		cmocka_unit_test(test_machine_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
