#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <capstone.h>

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
		if (op->mem.disp)
			prov_buf_printf(&b, " %c 0x%" PRIx64, op->mem.disp < 0 ? '-' : '+',
					op->mem.disp < 0 ? (uint64_t)-op->mem.disp : (uint64_t)op->mem.disp);
		prov_buf_puts(&b, "]`");
		if (base && strcmp(base, "rip") != 0 && reg_value(&v, t, base)) {
			prov_buf_printf(&b, "; `%s` = 0x%" PRIx64, base, v);
			if (v == 0)
				prov_buf_puts(&b, " (NULL base register)");
		}
		if (index && reg_value(&v, t, index))
			prov_buf_printf(&b, "; `%s` = 0x%" PRIx64, index, v);
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
