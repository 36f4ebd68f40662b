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
 * an instruction boundary from there, c->insns_note says why. x86-64 only
 * (capstone); other machines get a note.
 */
void prov_disasm_crash(struct prov_crash *c, int before, int after);

#endif
