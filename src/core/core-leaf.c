/* A leaf without CFI that pushed nothing (glibc's clone3 at its syscall): its caller from [sp], checked. */
#include <capstone.h>
#include <gelf.h>
#include <inttypes.h>
#include <string.h>

#include "core-int.h"
#include "util.h"
#include "banned.h"

#define LEAF_MAX_BYTES 4096	/* a function start further back than this is not trusted */

/* 1 when a CFI table of mod covers pc (eh_frame or debug_frame). */
static int has_cfi(Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	Dwarf_Frame *frame;

	if ((cfi = dwfl_module_eh_cfi(mod, &bias)) && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0) {
		free(frame);
		return 1;
	}
	if ((cfi = dwfl_module_dwarf_cfi(mod, &bias)) && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0) {
		free(frame);
		return 1;
	}
	return 0;
}

/*
 * len bytes of code at addr from mod's file (the core does not hold file-
 * backed text by default): 0, or -1 when they are not in a loaded segment.
 */
static int module_code(Dwfl_Module *mod, uint64_t addr, unsigned char *buf, size_t len)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t i, nph;
	uint64_t vaddr = addr - bias;

	if (!elf || elf_getphdrnum(elf, &nph) != 0)
		return -1;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    vaddr < ph.p_vaddr || vaddr - ph.p_vaddr > ph.p_filesz ||
		    ph.p_filesz - (vaddr - ph.p_vaddr) < len)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset + (vaddr - ph.p_vaddr)), len, ELF_T_BYTE);
		if (!d || !d->d_buf || d->d_size != len)
			return -1;
		memcpy(buf, d->d_buf, len);
		return 0;
	}
	return -1;
}

/*
 * 1 when no instruction in [start, pc) writes rsp (no push, pop, call, sub,
 * leave ...): the return address the call pushed is still at sp. Decoded
 * straight through, so a push on any path in between refuses.
 */
static int pushed_nothing(Dwfl_Module *mod, uint64_t start, uint64_t pc)
{
	unsigned char code[LEAF_MAX_BYTES];
	size_t len = (size_t)(pc - start), size = len;
	csh h;
	cs_insn *insn = NULL;
	size_t n = 0, i;
	uint64_t end = start;
	int ok = 0;

	if (!len || len > sizeof(code) || module_code(mod, start, code, len) < 0)
		return 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return 0;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	n = cs_disasm(h, code, size, start, 0, &insn);
	for (i = 0; i < n; i++) {
		cs_regs rd, wr;
		uint8_t nrd = 0, nwr = 0, k;

		if (cs_regs_access(h, &insn[i], rd, &nrd, wr, &nwr) != CS_ERR_OK)
			goto cleanup;
		for (k = 0; k < nwr; k++)
			if (wr[k] == X86_REG_RSP || wr[k] == X86_REG_ESP || wr[k] == X86_REG_SP)
				goto cleanup;
		end = insn[i].address + insn[i].size;
	}
	ok = n && end == pc;	/* pc on an instruction boundary, all decoded */
cleanup:
	if (insn)
		cs_free(insn, n);
	cs_close(&h);
	return ok;
}

/* 1 when the bytes before ret are a call instruction (direct e8, or ff /2) that ends at ret. */
static int after_call(Dwfl_Module *mod, uint64_t ret)
{
	unsigned char b[7];
	int n;

	if (ret < 7 || module_code(mod, ret - 7, b, 7) < 0)
		return 0;
	if (b[2] == 0xe8)
		return 1;	/* call rel32 */
	/* call r/m64: ff with reg field 2, each length that ends at ret */
	for (n = 2; n <= 7; n++) {
		unsigned char op = b[7 - n], modrm = b[7 - n + 1];
		int mod_ = modrm >> 6, rm = modrm & 7, want = 2;

		if (op != 0xff || ((modrm >> 3) & 7) != 2)
			continue;
		if (mod_ == 1)
			want += 1;
		else if (mod_ == 2)
			want += 4;
		else if (mod_ == 0 && rm == 5)
			want += 4;	/* rip-relative */
		if (mod_ != 3 && rm == 4)
			want += 1;	/* SIB */
		if (mod_ == 0 && rm == 4 && n >= 3 && (b[7 - n + 2] & 7) == 5)
			want += 4;	/* SIB with no base: disp32 */
		if (want == n)
			return 1;
	}
	return 0;
}

int core_leaf_return(struct core_ctx *x, uint64_t pc, uint64_t sp, uint64_t *ret)
{
	Dwfl_Module *mod = core_addrmodule(x->dwfl, pc), *rmod;
	GElf_Off off = 0;
	GElf_Sym sym;
	unsigned char raw[8];
	uint64_t r;

	if (x->machine != EM_X86_64 || !mod || !sp || has_cfi(mod, pc))
		return 0;
	if (!dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL) || !off ||
	    off > LEAF_MAX_BYTES || !pushed_nothing(mod, pc - off, pc))
		return 0;
	if (core_read(x, sp, raw, 8) < 0)
		return 0;
	r = core_rd64(x, raw);
	if (!(rmod = core_addrmodule(x->dwfl, r)) || !after_call(rmod, r))
		return 0;
	*ret = r;
	return 1;
}
