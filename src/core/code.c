/* The code bytes around the crashing pc, read from the module file the analyzer used. */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "code.h"
#include "util.h"
#include "banned.h"

#define MAX_BACK 4096
#define AFTER 48

static void note(struct prov_crash *c, const char *msg)
{
	if (!c->insns_note)
		c->insns_note = prov_xstrdup(msg);
}

void prov_code_capture(struct prov_crash *c)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	const struct prov_frame *f = NULL;
	const struct prov_module *m;
	Elf *elf = NULL;
	GElf_Ehdr ehdr;
	size_t i, nph;
	uint64_t pc, start, bias = 0, vaddr, first_load = UINT64_MAX;
	int fd = -1;

	if (c->kind != PROV_INPUT_CORE || !t || !t->nframes)
		return;
	/* the real (not inlined) frame of the crash site (#0, or the frame a
	 * signal handler interrupted) carries the symbol offset */
	for (i = prov_thread_crash_frame(t); i < t->nframes; i++) {
		if (!t->frames[i].has_pc)
			continue;
		if (!f)
			f = &t->frames[i];
		if (!t->frames[i].inlined) {
			if (t->frames[i].pc == f->pc)
				f = &t->frames[i];
			break;
		}
	}
	if (!f) {
		note(c, "the crashing thread has no pc");
		return;
	}
	pc = f->pc;
	start = f->has_offset && f->offset <= MAX_BACK && f->offset <= pc ? pc - f->offset : pc;
	if (!(m = prov_crash_module_at(c, pc)) || !m->file) {
		note(c, m ? "the file of the module holding the pc was not found"
			  : "the pc is outside every mapped module");
		return;
	}
	elf_version(EV_CURRENT);
	if ((fd = open(m->file, O_RDONLY | O_CLOEXEC)) < 0 ||
	    !(elf = elf_begin(fd, ELF_C_READ, NULL)) || !gelf_getehdr(elf, &ehdr) ||
	    elf_getphdrnum(elf, &nph) != 0) {
		note(c, "the module's file could not be read as ELF");
		goto cleanup;
	}
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < first_load)
			first_load = ph.p_vaddr & ~(uint64_t)0xfff;
	}
	if (ehdr.e_type == ET_DYN && first_load != UINT64_MAX)
		bias = m->start - first_load;
	vaddr = pc - bias;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		uint64_t from, to, len;
		ssize_t got;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		from = start - bias;
		if (from < ph.p_vaddr)
			from = ph.p_vaddr;
		to = vaddr + AFTER;
		if (to > ph.p_vaddr + ph.p_filesz)
			to = ph.p_vaddr + ph.p_filesz;
		len = to - from;
		c->code = prov_xmalloc(len);
		got = pread(fd, c->code, len, (off_t)(ph.p_offset + (from - ph.p_vaddr)));
		if (got <= 0) {
			free(c->code);
			c->code = NULL;
			note(c, "the code bytes could not be read from the module's file");
			goto cleanup;
		}
		c->code_len = (size_t)got;
		c->code_addr = from + bias;
		c->code_pc = pc;
		goto cleanup;
	}
	note(c, "the pc is not inside a loaded segment of the module's file");
cleanup:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}
