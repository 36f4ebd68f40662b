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

/*
 * The faulting instruction's memory operand and the values of its base and
 * index registers (64-bit names only: the core records full registers).
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
		if (base && strcmp(base, "rip") != 0 && reg_value(&v, t, base)) {
			prov_buf_printf(&b, "; `%s` = 0x%" PRIx64, base, v);
			if (v == 0)
				prov_buf_puts(&b, " (NULL base register)");
			c->has_fault_base = strlen(base) < sizeof(c->fault_base_reg);
			if (c->has_fault_base) {
				memcpy(c->fault_base_reg, base, strlen(base) + 1);
				c->fault_base = v;
			}
		}
		if (index && reg_value(&v, t, index)) {
			prov_buf_printf(&b, "; `%s` = 0x%" PRIx64, index, v);
			c->has_fault_index = strlen(index) < sizeof(c->fault_index_reg);
			if (c->has_fault_index) {
				memcpy(c->fault_index_reg, index, strlen(index) + 1);
				c->fault_index = v;
			}
		}
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
static int disasm_opcodes(struct prov_crash *c, int before, int after)
{
	struct disassemble_info info;
	struct opc_stream s = { PROV_BUF_INIT };
	disassembler_ftype dis = disassembler(bfd_arch_i386, 0, bfd_mach_x86_64, NULL);
	uint64_t *addrs = NULL;
	char **texts = NULL;
	size_t n = 0, alloc = 0, talloc = 0, i, at = (size_t)-1, from, to;
	uint64_t pc = c->code_addr;
	int ret = -1;

	if (!dis)
		return -1;
	init_disassemble_info(&info, &s, opc_printf, opc_printf_styled);
	info.arch = bfd_arch_i386;
	info.mach = bfd_mach_x86_64;
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

void prov_disasm_crash(struct prov_crash *c, int before, int after)
{
	csh handle;
	cs_insn *insn = NULL;
	size_t count, i, at = (size_t)-1, from, to;

	if (c->machine && c->machine != EM_X86_64) {
		/* capstone is opened for x86-64 only: say so, never decode foreign code */
		free(c->insns_note);
		c->insns_note = prov_xasprintf("disassembly (and the crash patterns that read "
					       "operands) of %s cores is not supported",
					       prov_machine_name(c->machine));
		return;
	}
	if (!c->code || !c->code_len) {
		if (!c->insns_note && c->kind == PROV_INPUT_CORE)
			c->insns_note = prov_xstrdup("the code bytes at the crashing pc are not available");
		return;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) {
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
	if (at == (size_t)-1 && disasm_opcodes(c, before, after) == 0) {
		free(c->insns_note);
		c->insns_note = NULL;
		goto cleanup;
	}
	if (at == (size_t)-1) {
		free(c->insns_note);
		c->insns_note = prov_xasprintf("pc 0x%" PRIx64 " is not on an instruction boundary "
					       "when decoding from 0x%" PRIx64, c->code_pc, c->code_addr);
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
	describe_operand(c, handle, &insn[at]);
cleanup:
	if (count)
		cs_free(insn, count);
	cs_close(&handle);
}
