#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <capstone.h>

#include "disasm.h"
#include "util.h"
#include "banned.h"

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
cleanup:
	if (count)
		cs_free(insn, count);
	cs_close(&handle);
}
