#ifndef PROV_MODSYM_H
#define PROV_MODSYM_H

#include <stdint.h>

/*
 * An address in a module file on disk, looked up offline (libdwfl, the
 * file's own symbols and line table or its separate debug file): for a
 * fault that only names the module and where in it the faulting
 * instruction was (a kernel segfault line, src/text/kernel.c).
 */
struct prov_modsym {
	uint64_t vaddr;	/* the instruction as an address of the ELF file (p_vaddr space) */
	uint64_t file_offset;	/* its file offset */
	char *function;	/* demangled, NULL when no symbol covers it */
	int has_offset;
	uint64_t offset;	/* vaddr - symbol start */
	char *file;	/* source file and line, NULL / 0 when no line table */
	int line;
	int column;
	char *build_id;	/* lower-case hex, NULL when the file has none */
	int size_matches;	/* 1: an executable segment has the mapping's size (page-rounded);
			 * 0: none has; -1: not checked (no size given) */
};

/*
 * Look up the instruction in `path`. `have_file_offset`: `off` is its file
 * offset (newer kernels print it); otherwise `off` is ip minus the start of
 * the mapping that holds it, and the mapping is taken to be the file's
 * executable segment (the one whose page-rounded size is `map_size`, else
 * the first). Separate debug files are looked for beside the file, in
 * .debug/ and under `root`/usr/lib/debug (`root` NULL or "/": the host's).
 * 0 on success (out filled, caller releases it); PROV_EINPUT when the file
 * is no ELF or the offset lies in none of its segments.
 */
int prov_modsym_lookup(struct prov_modsym *out, const char *path, const char *root,
		       int have_file_offset, uint64_t off, uint64_t map_size);
void prov_modsym_release(struct prov_modsym *m);

#endif
