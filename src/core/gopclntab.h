#ifndef PROV_GOPCLNTAB_H
#define PROV_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

/*
 * Go's pc -> function, file and line table (.gopclntab), which the Go
 * runtime keeps even in a stripped binary (-ldflags=-s -w) for its own
 * tracebacks. Layouts of Go 1.16/1.17 (magic 0xfffffffa), 1.18/1.19
 * (0xfffffff0) and 1.20+ (0xfffffff1), little-endian, pointer size 4 or 8.
 * Every offset is checked against the table's size; a hostile table gives
 * PROV_EINPUT or no answer, never a read outside it. Inlined calls
 * (FUNCDATA_InlTree, whose offsets point outside the table) are not
 * expanded: a pc is named by its outermost function, and a pc inside an
 * inlined body gets no file and line (the table's would be the callee's).
 */
struct prov_gopcln;

/*
 * Parse the table at data[0, size) (not copied: it must outlive *out).
 * text_start: the binary's .text address, used by 1.18+ tables (0: the
 * table's own field). 0, PROV_ENOTFOUND (not a pclntab this reader knows),
 * PROV_EINPUT (malformed).
 */
int prov_gopcln_open(struct prov_gopcln **out, const unsigned char *data, size_t size,
		     uint64_t text_start);

/*
 * The function holding pc (a link-time address): 0 with *func (the table's
 * name, e.g. "main.crashHere", valid while the table is), *entry, *file
 * (the table's, or NULL) and *line (0 when unknown), *inlined 1 when pc is
 * in a body inlined into *func (then no file and line); PROV_ENOTFOUND when
 * no function holds it.
 */
int prov_gopcln_lookup(const struct prov_gopcln *t, uint64_t pc, const char **func,
		       uint64_t *entry, const char **file, int *line, int *inlined);

/*
 * Go's pcsp at pc (a link-time address): how many bytes the function
 * holding pc has pushed below its caller's stack pointer (its frame, not
 * counting the return address on amd64), the table the Go runtime unwinds
 * by. 0 and *delta, or PROV_ENOTFOUND (no function, no or a malformed
 * table, a negative value).
 */
int prov_gopcln_spdelta(const struct prov_gopcln *t, uint64_t pc, int32_t *delta);

void prov_gopcln_free(struct prov_gopcln *t);

#endif
