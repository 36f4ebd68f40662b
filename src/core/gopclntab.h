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
 * PROV_EINPUT or no answer, never a read outside it. Inlined calls are
 * expanded by prov_gopcln_frames from the inline tree (FUNCDATA_InlTree),
 * which lies outside the table, in go.func.* (found through the module's
 * runtime.moduledata: prov_gopcln_gofunc); layouts of Go 1.18/1.19 and of
 * 1.20+ (checked against 1.21-1.23's runtime source and binaries; 1.20 has
 * the same magic and structures but was not at hand to test). 1.16/1.17
 * keep absolute funcdata pointers: "not expanded".
 */
struct prov_gopcln;

/*
 * Parse the table at data[0, size) (not copied: it must outlive *out).
 * text_start: the binary's .text address, for 1.18+ tables whose own
 * field (runtime.text, the base of their entry offsets) is 0 (a PIE fills
 * it at load time) or below it. An externally linked binary (cgo) has C
 * code before runtime.text: there the table's field is right, .text not. 0, PROV_ENOTFOUND (not a pclntab this reader knows),
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

/*
 * Go 1.18+: find runtime.moduledata in sec[0, size) (a data section,
 * e.g. .noptrdata) by its pcHeader (pclntab_addr: the table's link-time
 * address), funcnametab and text fields, and give its gofunc field (the
 * link-time address of go.func.*, which holds the inline trees; its word
 * 38, or 40 in 1.20+, after covctrs/ecovctrs). 0, or PROV_ENOTFOUND
 * (1.16/1.17: a message saying "not expanded").
 */
int prov_gopcln_gofunc(const struct prov_gopcln *t, const unsigned char *sec, size_t size,
		       uint64_t pclntab_addr, uint64_t *gofunc);

struct prov_gopcln_frame {
	const char *func;	/* the table's, valid while it is */
	const char *file;	/* or NULL */
	int line;	/* 0 when unknown */
};

/*
 * The frames at pc (a link-time address) as Go's own traceback prints them:
 * the inlined calls innermost first, each with the file:line at the pc,
 * then the function holding pc at the call site of its outermost inlined
 * call. gofunc: the bytes from go.func.* to the end of its section (NULL
 * when not found). Returns the count (1: not in an inlined body), or
 * PROV_ENOTFOUND: no function holds pc, or pc is in an inlined body whose
 * tree cannot be read (another layout, offsets outside go.func, deeper than
 * 64 or than max - 1: a message saying "inlined calls not expanded").
 */
int prov_gopcln_frames(const struct prov_gopcln *t, uint64_t pc, const unsigned char *gofunc,
		       size_t gofunc_size, struct prov_gopcln_frame *out, size_t max);

void prov_gopcln_free(struct prov_gopcln *t);

#endif
