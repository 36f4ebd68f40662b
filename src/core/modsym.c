/*
 * An instruction in a module file, looked up offline (modsym.h). The file's
 * program headers turn a file offset into an address of the file; libdwfl
 * reports the file alone (dwfl_report_offline) and gives the symbol and the
 * line, reading the separate debug file the standard way (.gnu_debuglink,
 * /usr/lib/debug/.build-id) when the file has no line table.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core-int.h"
#include "error.h"
#include "modsym.h"
#include "util.h"
#include "banned.h"

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* The symbol without its version ("memcpy@@GLIBC_2.14"), demangled. */
static char *symbol_name(const char *name)
{
	const char *at = strchr(name, '@');
	char *plain = at ? prov_xstrndup(name, (size_t)(at - name)) : prov_xstrdup(name);
	char *d = core_demangle(plain);

	free(plain);
	return d;
}

/*
 * The file offset of the instruction and its address in the file, from
 * the program headers. 0 on success.
 */
static int place(struct prov_modsym *out, Elf *elf, int have_file_offset, uint64_t off,
		 uint64_t map_size)
{
	size_t n, i;
	GElf_Phdr ph, exec = { 0 };
	int have_exec = 0, exact = 0;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pg = page > 0 ? (uint64_t)page : 4096;

	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	out->size_matches = map_size ? 0 : -1;
	for (i = 0; i < n; i++) {
		uint64_t start, end;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		/* the mapping runs from the page holding the segment's start to
		 * the page end past its last byte */
		start = ph.p_vaddr & ~(pg - 1);
		end = (ph.p_vaddr + ph.p_memsz + pg - 1) & ~(pg - 1);
		if (map_size && end - start == map_size) {
			out->size_matches = 1;
			if (!exact) {
				exec = ph;
				have_exec = exact = 1;
			}
		} else if (!have_exec) {
			exec = ph;
			have_exec = 1;
		}
	}
	if (!have_file_offset) {
		if (!have_exec)
			return -1;
		off += exec.p_offset & ~(pg - 1);
	}
	out->file_offset = off;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			out->vaddr = ph.p_vaddr + (off - ph.p_offset);
			return 0;
		}
	}
	return -1;
}

static void symbolize(struct prov_modsym *out, const char *path, const char *root)
{
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwfl_Line *line;
	GElf_Addr bias = 0, addr, symoff = 0;
	GElf_Sym sym;
	const unsigned char *bid;
	GElf_Addr bid_addr;
	const char *name, *src;
	int n, lineno = 0, col = 0;

	/* libdwfl's default path, the debug directory moved under the root */
	free(debuginfo_path);
	debuginfo_path = root && *root && strcmp(root, "/") != 0
		? prov_xasprintf(":.debug:%s/usr/lib/debug", root) : NULL;
	dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl)
		return;
	dwfl_report_begin(dwfl);
	mod = dwfl_report_offline(dwfl, "module", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod || !dwfl_module_getelf(mod, &bias))
		goto cleanup;
	addr = out->vaddr + bias;
	n = dwfl_module_build_id(mod, &bid, &bid_addr);
	if (n > 0)
		out->build_id = prov_hex(bid, (size_t)n);
	name = dwfl_module_addrinfo(mod, addr, &symoff, &sym, NULL, NULL, NULL);
	if (name) {
		out->function = symbol_name(name);
		out->has_offset = 1;
		out->offset = symoff;
	}
	line = dwfl_module_getsrc(mod, addr);
	if (line && (src = dwfl_lineinfo(line, NULL, &lineno, &col, NULL, NULL)) != NULL && lineno > 0) {
		out->file = prov_xstrdup(src);
		out->line = lineno;
		out->column = col;
	}
cleanup:
	dwfl_end(dwfl);
}

int prov_modsym_lookup(struct prov_modsym *out, const char *path, const char *root,
		       int have_file_offset, uint64_t off, uint64_t map_size)
{
	Elf *elf = NULL;
	int fd, error;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return prov_error_set(PROV_EINPUT, "cannot open '%s'", path);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		error = prov_error_set(PROV_EINPUT, "'%s' is no ELF file", path);
		goto cleanup;
	}
	if (place(out, elf, have_file_offset, off, map_size) < 0) {
		error = prov_error_set(PROV_EINPUT, "offset 0x%" PRIx64 " is in no segment of '%s'", off, path);
		goto cleanup;
	}
	symbolize(out, path, root);
	error = 0;
cleanup:
	if (elf)
		elf_end(elf);
	close(fd);
	return error;
}

void prov_modsym_release(struct prov_modsym *m)
{
	free(m->function);
	free(m->file);
	free(m->build_id);
	memset(m, 0, sizeof(*m));
}
