/* The captured code bytes disassembled: capstone, libopcodes where capstone stops (EVEX). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <capstone.h>
#include <elf.h>
#include <dis-asm.h>

#include "disasm.h"
#include "util.h"
#include "banned.h"

static int reg_value(uint64_t *out, const struct prov_thread *t, const char *name)
{
	size_t i;

	for (i = 0; t && i < t->nregs; i++)
		if (strcmp(t->regs[i].name, name) == 0) {
			*out = t->regs[i].value;
			return 1;
		}
	return 0;
}

/* The faulting operand's base register and its value: said in b, kept in c. */
static void note_base(struct prov_crash *c, struct prov_buf *b, const char *base, uint64_t v)
{
	prov_buf_printf(b, "; `%s` = 0x%" PRIx64, base, v);
	if (v == 0)
		prov_buf_puts(b, " (NULL base register)");
	c->has_fault_base = strlen(base) < sizeof(c->fault_base_reg);
	if (c->has_fault_base) {
		memcpy(c->fault_base_reg, base, strlen(base) + 1);
		c->fault_base = v;
	}
}

/* The index register: its value v said, and what it adds to the address (scaled) kept. */
static void note_index(struct prov_crash *c, struct prov_buf *b, const char *index, uint64_t v,
		       uint64_t adds)
{
	prov_buf_printf(b, "; `%s` = 0x%" PRIx64, index, v);
	c->has_fault_index = strlen(index) < sizeof(c->fault_index_reg);
	if (c->has_fault_index) {
		memcpy(c->fault_index_reg, index, strlen(index) + 1);
		c->fault_index = adds;
	}
}

/*
 * The faulting instruction's memory operand and the values of its base and
 * index registers (full-width names only: the core records full registers;
 * x86-64's rax..., i386's eax...).
 */
static void describe_operand(struct prov_crash *c, csh handle, const cs_insn *in)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	const cs_x86 *x86;
	struct prov_buf b = PROV_BUF_INIT;
	uint8_t k;

	if (!in->detail)
		return;
	x86 = &in->detail->x86;
	for (k = 0; k < x86->op_count; k++) {
		const cs_x86_op *op = &x86->operands[k];
		const char *base, *index;
		uint64_t v;

		if (op->type != X86_OP_MEM)
			continue;
		base = op->mem.base != X86_REG_INVALID ? cs_reg_name(handle, op->mem.base) : NULL;
		index = op->mem.index != X86_REG_INVALID ? cs_reg_name(handle, op->mem.index) : NULL;
		prov_buf_printf(&b, "the faulting instruction reads or writes memory at `[");
		if (base)
			prov_buf_puts(&b, base);
		if (index)
			prov_buf_printf(&b, "%s%s*%d", base ? " + " : "", index, op->mem.scale);
		if (op->mem.disp && !base && !index)
			prov_buf_printf(&b, "0x%" PRIx64, (uint64_t)op->mem.disp);
		else if (op->mem.disp)
			prov_buf_printf(&b, " %c 0x%" PRIx64, op->mem.disp < 0 ? '-' : '+',
					op->mem.disp < 0 ? (uint64_t)-op->mem.disp : (uint64_t)op->mem.disp);
		prov_buf_puts(&b, "]`");
		if (base && strcmp(base, "rip") != 0 && reg_value(&v, t, base))
			note_base(c, &b, base, v);
		if (index && reg_value(&v, t, index))
			note_index(c, &b, index, v, v);
		/* the address itself, when every register in it is known */
		if ((!base || (strcmp(base, "rip") != 0 && c->has_fault_base)) &&
		    (!index || c->has_fault_index) && op->mem.segment == X86_REG_INVALID) {
			c->has_fault_ea = 1;
			c->fault_ea = (base ? c->fault_base : 0) +
				      (index ? c->fault_index * (uint64_t)op->mem.scale : 0) +
				      (uint64_t)op->mem.disp;
		}
		c->fault_size = op->size;
		free(c->fault_operand);
		c->fault_operand = prov_buf_detach(&b);
		break;
	}
	prov_buf_release(&b);
}

/*
 * capstone 4 (Debian 12) stops at EVEX (AVX-512) instructions, which glibc's
 * string functions use (__strlen_evex). binutils' libopcodes, which gdb
 * uses, decodes them: the fallback when capstone cannot reach the pc.
 * Intel syntax, as capstone prints.
 */
struct opc_stream {
	struct prov_buf text;
};

static int opc_printf(void *stream, const char *fmt, ...)
{
	struct opc_stream *s = stream;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = prov_buf_vprintf(&s->text, fmt, ap);
	va_end(ap);
	return n;
}

static int opc_printf_styled(void *stream, enum disassembler_style style, const char *fmt, ...)
{
	struct opc_stream *s = stream;
	va_list ap;
	int n;

	(void)style;
	va_start(ap, fmt);
	n = prov_buf_vprintf(&s->text, fmt, ap);
	va_end(ap);
	return n;
}

static void opc_print_address(bfd_vma addr, struct disassemble_info *info)
{
	opc_printf(info->stream, "0x%" PRIx64, (uint64_t)addr);
}

/* 0 when the pc was reached and the listing filled; -1 otherwise. */
static int disasm_opcodes(struct prov_crash *c, int before, int after, int i386)
{
	struct disassemble_info info;
	struct opc_stream s = { PROV_BUF_INIT };
	unsigned long mach = i386 ? bfd_mach_i386_i386 : bfd_mach_x86_64;
	disassembler_ftype dis = disassembler(bfd_arch_i386, 0, mach, NULL);
	uint64_t *addrs = NULL;
	char **texts = NULL;
	size_t n = 0, alloc = 0, talloc = 0, i, at = (size_t)-1, from, to;
	uint64_t pc = c->code_addr;
	int ret = -1;

	if (!dis)
		return -1;
	init_disassemble_info(&info, &s, opc_printf, opc_printf_styled);
	info.arch = bfd_arch_i386;
	info.mach = mach;
	info.buffer = c->code;
	info.buffer_length = c->code_len;
	info.buffer_vma = c->code_addr;
	info.read_memory_func = buffer_read_memory;
	info.print_address_func = opc_print_address;
	info.disassembler_options = "intel";
	disassemble_init_for_target(&info);
	while (pc < c->code_addr + c->code_len && n < 100000) {
		int len;

		prov_buf_reset(&s.text);
		len = dis((bfd_vma)pc, &info);
		if (len <= 0)
			break;
		PROV_ALLOC_GROW(addrs, n + 1, alloc);
		PROV_ALLOC_GROW(texts, n + 1, talloc);
		addrs[n] = pc;
		texts[n] = prov_xstrdup(s.text.buf);
		if (pc == c->code_pc)
			at = n;
		n++;
		pc += (uint64_t)len;
	}
	if (at != (size_t)-1 && !strstr(texts[at], "(bad)")) {
		from = at > (size_t)before ? at - (size_t)before : 0;
		to = at + (size_t)after + 1 < n ? at + (size_t)after + 1 : n;
		for (i = from; i < to; i++) {
			struct prov_insn *x = prov_crash_add_insn(c);
			char *sp = texts[i] + strcspn(texts[i], " ");

			x->addr = addrs[i];
			x->current = i == at;
			/* "mnemonic operands" in capstone's column layout */
			x->text = prov_xasprintf("%-7.*s %s", (int)(sp - texts[i]), texts[i],
						 sp + strspn(sp, " "));
		}
		ret = 0;
	}
	for (i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(addrs);
	prov_buf_release(&s.text);
	return ret;
}

/* The access size of an arm64 load or store: its mnemonic's, else its first register's. */
static unsigned int arm64_access_size(const cs_insn *in, csh handle)
{
	const cs_arm64 *a = &in->detail->arm64;
	const char *m = in->mnemonic, *r;
	size_t n = strlen(m);

	if (n && (m[n - 1] == 'b'))
		return 1;
	if (n && (m[n - 1] == 'h'))
		return 2;
	if (strcmp(m, "ldrsw") == 0 || strcmp(m, "ldpsw") == 0)
		return 4;
	if (!a->op_count || a->operands[0].type != ARM64_OP_REG)
		return 0;
	r = cs_reg_name(handle, a->operands[0].reg);
	switch (r ? r[0] : 0) {
	case 'w': case 's': return 4;
	case 'x': case 'd': return 8;
	case 'q': return 16;
	case 'h': return 2;
	case 'b': return 1;
	default: return 0;
	}
}

/* An arm64 register's value: wN is xN's low half, wzr/xzr are 0. */
static int arm64_reg_value(uint64_t *out, const struct prov_thread *t, const char *name)
{
	char x[8];

	if (strcmp(name, "xzr") == 0 || strcmp(name, "wzr") == 0) {
		*out = 0;
		return 1;
	}
	if (name[0] == 'w' && strlen(name) < sizeof(x)) {
		memcpy(x, name, strlen(name) + 1);
		x[0] = 'x';
		if (!reg_value(out, t, strcmp(name, "wsp") == 0 ? "sp" : x))
			return 0;
		*out &= 0xffffffffu;
		return 1;
	}
	return reg_value(out, t, name);
}

/* The index register's contribution: extended (uxtw, sxtw...), then shifted. */
static uint64_t arm64_index(uint64_t v, const cs_arm64_op *op)
{
	switch (op->ext) {
	case ARM64_EXT_UXTB: v &= 0xff; break;
	case ARM64_EXT_UXTH: v &= 0xffff; break;
	case ARM64_EXT_UXTW: v &= 0xffffffffu; break;
	case ARM64_EXT_SXTB: v = (uint64_t)(int64_t)(int8_t)v; break;
	case ARM64_EXT_SXTH: v = (uint64_t)(int64_t)(int16_t)v; break;
	case ARM64_EXT_SXTW: v = (uint64_t)(int64_t)(int32_t)v; break;
	default: break;
	}
	if (op->shift.type == ARM64_SFT_LSL && op->shift.value < 64)
		v <<= op->shift.value;
	return v;
}

/*
 * arm64: the load or store's memory operand ([base, index, #disp]; a
 * post-indexed access reads at the base, capstone puts its increment in a
 * separate operand) and the values of its registers.
 */
static void describe_operand_arm64(struct prov_crash *c, csh handle, const cs_insn *in)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	const cs_arm64 *a;
	struct prov_buf b = PROV_BUF_INIT;
	uint8_t k;

	if (!in->detail)
		return;
	a = &in->detail->arm64;
	for (k = 0; k < a->op_count; k++) {
		const cs_arm64_op *op = &a->operands[k];
		const char *base, *index;
		uint64_t v;

		if (op->type != ARM64_OP_MEM)
			continue;
		base = op->mem.base != ARM64_REG_INVALID ? cs_reg_name(handle, op->mem.base) : NULL;
		index = op->mem.index != ARM64_REG_INVALID ? cs_reg_name(handle, op->mem.index) : NULL;
		prov_buf_printf(&b, "the faulting instruction reads or writes memory at `[");
		if (base)
			prov_buf_puts(&b, base);
		if (index)
			prov_buf_printf(&b, "%s%s", base ? ", " : "", index);
		if (op->mem.disp)
			prov_buf_printf(&b, ", #%s0x%" PRIx64, op->mem.disp < 0 ? "-" : "",
					op->mem.disp < 0 ? (uint64_t)-(int64_t)op->mem.disp
							 : (uint64_t)op->mem.disp);
		prov_buf_puts(&b, "]`");
		if (base && arm64_reg_value(&v, t, base))
			note_base(c, &b, base, v);
		if (index && arm64_reg_value(&v, t, index))
			note_index(c, &b, index, v, arm64_index(v, op));
		if ((!base || c->has_fault_base) && (!index || c->has_fault_index)) {
			c->has_fault_ea = 1;
			c->fault_ea = (base ? c->fault_base : 0) + (index ? c->fault_index : 0) +
				      (uint64_t)(int64_t)op->mem.disp;
		}
		c->fault_size = arm64_access_size(in, handle);
		free(c->fault_operand);
		c->fault_operand = prov_buf_detach(&b);
		break;
	}
	prov_buf_release(&b);
}

void prov_disasm_crash(struct prov_crash *c, int before, int after)
{
	csh handle;
	cs_insn *insn = NULL;
	size_t count, i, at = (size_t)-1, from, to;
	cs_arch arch = CS_ARCH_X86;
	cs_mode mode = CS_MODE_64;

	if (c->machine == EM_AARCH64) {
		arch = CS_ARCH_ARM64;
		mode = CS_MODE_ARM;
	} else if (c->machine == EM_386) {
		mode = CS_MODE_32;
	} else if (c->machine && !(prov_machine_reads(c->machine, c->machine_is64) &
				   PROV_MACHINE_DISASM)) {
		/* capstone is opened for x86 and arm64 only: say so, never decode foreign code */
		free(c->insns_note);
		c->insns_note = prov_xasprintf("disassembly (and the crash patterns that read "
					       "operands) of %s cores is not supported",
					       prov_machine_name(c->machine, c->machine_is64));
		return;
	}
	if (!c->code || !c->code_len) {
		if (!c->insns_note && c->kind == PROV_INPUT_CORE)
			c->insns_note = prov_xstrdup("the code bytes at the crashing pc are not available");
		return;
	}
	if (cs_open(arch, mode, &handle) != CS_ERR_OK) {
		c->insns_note = prov_xstrdup("the disassembler could not be started");
		return;
	}
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	count = cs_disasm(handle, c->code, c->code_len, c->code_addr, 0, &insn);
	for (i = 0; i < count; i++)
		if (insn[i].address == c->code_pc) {
			at = i;
			break;
		}
	if (at == (size_t)-1 && arch == CS_ARCH_X86 &&
	    disasm_opcodes(c, before, after, mode == CS_MODE_32) == 0) {
		free(c->insns_note);
		c->insns_note = NULL;
		goto cleanup;
	}
	if (at == (size_t)-1) {
		free(c->insns_note);
		if (arch == CS_ARCH_ARM64)
			c->insns_note = prov_xasprintf("the instruction at pc 0x%" PRIx64 " could not be "
						       "decoded as arm64", c->code_pc);
		else
			c->insns_note = prov_xasprintf("pc 0x%" PRIx64 " is not on an instruction boundary "
						       "when decoding from 0x%" PRIx64, c->code_pc,
						       c->code_addr);
		goto cleanup;
	}
	from = at > (size_t)before ? at - (size_t)before : 0;
	to = at + (size_t)after + 1 < count ? at + (size_t)after + 1 : count;
	for (i = from; i < to; i++) {
		struct prov_insn *x = prov_crash_add_insn(c);

		x->addr = insn[i].address;
		x->current = i == at;
		x->text = prov_xasprintf("%-7s %s", insn[i].mnemonic, insn[i].op_str);
	}
	if (arch == CS_ARCH_ARM64)
		describe_operand_arm64(c, handle, &insn[at]);
	else
		describe_operand(c, handle, &insn[at]);
cleanup:
	if (count)
		cs_free(insn, count);
	cs_close(&handle);
}
