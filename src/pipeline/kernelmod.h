#ifndef PROV_KERNELMOD_H
#define PROV_KERNELMOD_H

#include "model.h"

/*
 * A kernel fault line's module (crash.kernel_line): find the file by its
 * name on this host or under `sysroot` (NULL = "/"), and give the crashing
 * frame the function and line at the faulting instruction, marked a guess
 * (no build ID to check). Says what it did in kernel_line->note.
 */
void prov_kernel_module_lookup(struct prov_crash *c, const char *sysroot);

#endif
