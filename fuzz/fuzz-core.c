/*
 * libFuzzer target: the core analyzer. An input starting with "\177ELF" is
 * the whole core file; anything else is the contents of the PT_NOTE segment
 * of an ELF64 x86-64 ET_CORE built around it (one PT_NOTE, one small
 * PT_LOAD at 0x400000), so that the fuzzer works on notes (NT_PRSTATUS,
 * NT_PRPSINFO, NT_SIGINFO, NT_FILE, NT_AUXV) rather than on ELF headers.
 * Module paths are looked up under an empty sysroot: no host file is read.
 */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "error.h"
#include "model.h"
#include "common.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define LOAD_SIZE 256

static char *core_root, *core_file;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (core_root)
		return 0;	/* once per process */
	core_root = prov_xasprintf("%s/core-root", fuzz_tmpdir());
	mkdir(core_root, 0700);
	core_file = prov_xasprintf("%s/core", fuzz_tmpdir());
	return 0;
}

static void core_write(const uint8_t *notes, size_t len)
{
	struct prov_buf b = PROV_BUF_INIT;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2];
	unsigned char load[LOAD_SIZE];
	size_t off = sizeof(eh) + sizeof(ph);

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_CORE;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph[0]);
	eh.e_phnum = 2;
	memset(ph, 0, sizeof(ph));
	ph[0].p_type = PT_NOTE;
	ph[0].p_offset = off;
	ph[0].p_filesz = len;
	ph[0].p_align = 4;
	ph[1].p_type = PT_LOAD;
	ph[1].p_flags = PF_R | PF_X;
	ph[1].p_offset = (off + len + 4095) & ~(size_t)4095;
	ph[1].p_vaddr = 0x400000;
	ph[1].p_filesz = LOAD_SIZE;
	ph[1].p_memsz = 4096;
	ph[1].p_align = 4096;
	memset(load, 0xcc, sizeof(load));	/* int3: something to disassemble */
	prov_buf_add(&b, &eh, sizeof(eh));
	prov_buf_add(&b, ph, sizeof(ph));
	prov_buf_add(&b, notes, len);
	while (b.len < ph[1].p_offset)
		prov_buf_putc(&b, 0);
	prov_buf_add(&b, load, sizeof(load));
	fuzz_write(core_file, b.buf, b.len);
	prov_buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_crash *c = NULL;
	struct prov_core_opts opts;

	if (size >= 4 && !memcmp(data, ELFMAG, SELFMAG))
		fuzz_write(core_file, data, size);
	else
		core_write(data, size);
	memset(&opts, 0, sizeof(opts));
	opts.sysroot = core_root;
	opts.max_frames = 64;
	if (prov_core_analyze(&c, core_file, &opts) == 0)
		prov_crash_free(c);
	prov_error_clear();
	return 0;
}
