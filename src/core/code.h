#ifndef PROV_CODE_H
#define PROV_CODE_H

#include "model.h"

/*
 * Capture the code bytes around the crashing pc (the crash site's: frame #0,
 * or the frame a signal handler interrupted) into c->code: from the
 * function's start (when frame #0's offset says it is within 4 KiB) or the
 * pc itself, to 48 bytes past the pc. The bytes come from the module file
 * the analyzer used (module->file, already checked against the core's build
 * ID), located through its PT_LOAD segments and the module's load address.
 * When that is not possible c->insns_note says why. Core input only.
 */
void prov_code_capture(struct prov_crash *c);

#endif
