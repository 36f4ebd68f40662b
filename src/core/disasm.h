#ifndef PROV_DISASM_H
#define PROV_DISASM_H

#include "model.h"

/*
 * Disassemble the code bytes the core analyzer captured around the crashing
 * pc (c->code) into c->insns: up to `before` instructions before the
 * faulting one, the faulting one (current = 1) and up to `after` after it.
 * Decoding starts at c->code_addr, which the analyzer puts on an
 * instruction boundary (the function's start when it is near), so the
 * instructions before pc are real ones. Without bytes, or when pc is not on
 * an instruction boundary from there, c->insns_note says why. capstone's
 * x86-64, i386 (c->machine EM_X86_64, EM_386, or 0: not from a core) and
 * arm64 (EM_AARCH64); other machines get a note and nothing is decoded.
 * The faulting load or store's memory operand (c->fault_operand,
 * fault_base/index/ea/size) is read for all three.
 */
void prov_disasm_crash(struct prov_crash *c, int before, int after);

#endif
