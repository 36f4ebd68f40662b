#ifndef PROV_COREVARS_H
#define PROV_COREVARS_H

#include <elfutils/libdwfl.h>

#include "model.h"

/*
 * Arguments and locals of the crashing thread's frames (part of the core
 * analyzer: libdw only here and in core.c). For the frames that one pc made
 * (inlined ones innermost first, then the real one), read each
 * DW_TAG_formal_parameter and DW_TAG_variable in scope through its DWARF
 * location expression, with the registers libdwfl unwound for `state` and
 * the crashed process's memory (`read`: the core first, then the modules'
 * files for what the core did not dump). Sets has_vars/args/locals on the
 * frames; a value that cannot be known is NULL with a note ("optimized out",
 * "cannot read memory at 0x…"). `fpregs`: for the innermost frame on x86-64,
 * the thread's NT_FPREGSET (512 bytes: xmm0-15 hold floating-point
 * arguments), else NULL. Never fails: frames without DWARF stay as
 * they are.
 */
typedef int (*prov_mem_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

/*
 * Call for every frame libdwfl unwinds of the thread, in order (innermost
 * first): `first` is the index of the first frame made for this pc in
 * t->frames, `read_vars` whether to read its variables (0 past the frames
 * wanted: the frame still resolves the entry values of the one before it,
 * its callee, from its call sites). `pending` carries those between calls
 * (start with NULL; free with prov_vars_pending_free). state or mod NULL:
 * a frame without DWARF (drops what was pending).
 */
struct prov_vars_pending;

void prov_core_frame_vars(struct prov_thread *t, size_t first, int read_vars,
			  struct prov_vars_pending **pending, Dwfl_Frame *state, Dwfl_Module *mod,
			  Dwarf_Addr pc, Dwarf_Addr adj, const unsigned char *fpregs,
			  prov_mem_read_fn read, void *arg);
void prov_vars_pending_free(struct prov_vars_pending *p);	/* NULL-safe */
/* Forget the entry values a frame left for its caller (a frame read without
 * its callee's variables read first); NULL-safe. */
void prov_vars_pending_reset(struct prov_vars_pending *p);

#endif
