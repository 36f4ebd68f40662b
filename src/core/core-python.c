/*
 * Python frames for the core analyzer: the libdwfl half (symbols, sections,
 * module files); the interpreter state itself is python.c's.
 */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "core-python.h"
#include "util.h"

#include "banned.h"

struct py_mem {
	Dwfl *dwfl;
	prov_py_read_fn mem;
	void *mem_arg;
};

/* Bytes a core leaves out (read-only data of a mapped file) from the module's file. */
static int module_file_read(Dwfl *dwfl, uint64_t addr, void *buf, size_t len)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr a = addr, bias;
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;

	if (!m)
		return -1;
	scn = dwfl_module_address_section(m, &a, &bias);
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
		return -1;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || a > d->d_size || len > d->d_size - a)
		return -1;
	memcpy(buf, (const char *)d->d_buf + a, len);
	return 0;
}

static int py_mem_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct py_mem *pm = arg;

	if (pm->mem(pm->mem_arg, addr, buf, len) == 0)
		return 0;
	return module_file_read(pm->dwfl, addr, buf, len);
}

struct found {
	Dwfl_Module *mod;
	uint64_t runtime;
	uint64_t version_addr;
};

static void find_in_module(struct found *f, Dwfl_Module *m)
{
	int i, n = dwfl_module_getsymtab(m);
	GElf_Sym sym;
	GElf_Addr addr;
	Dwarf_Addr bias;
	Elf *elf;
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	f->runtime = f->version_addr = 0;
	for (i = 0; i < n && (!f->runtime || !f->version_addr); i++) {
		const char *name = dwfl_module_getsym_info(m, i, &sym, &addr, NULL, NULL, NULL);

		if (!name || sym.st_shndx == SHN_UNDEF)
			continue;
		if (!f->runtime && strcmp(name, "_PyRuntime") == 0)
			f->runtime = addr;
		else if (!f->version_addr && strcmp(name, "Py_Version") == 0)
			f->version_addr = addr;
	}
	if (f->runtime)
		return;
	/* 3.13+ also put _PyRuntime in a section of its own */
	elf = dwfl_module_getelf(m, &bias);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, ".PyRuntime") == 0 && sh.sh_addr) {
			f->runtime = sh.sh_addr + bias;
			return;
		}
	}
}

struct scan {
	struct found *f;
	int by_name;
};

static int module_cb(Dwfl_Module *m, void **userdata, const char *name, Dwarf_Addr start,
		     void *arg)
{
	struct scan *s = arg;

	(void)userdata;
	(void)start;
	if (!prov_python_is_interpreter(name))
		return DWARF_CB_OK;
	find_in_module(s->f, m);
	if (s->f->runtime) {
		s->f->mod = m;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

void prov_core_python_frames(struct prov_crash *c, Dwfl *dwfl, prov_py_read_fn mem,
			     void *mem_arg)
{
	struct py_mem pm = { dwfl, mem, mem_arg };
	struct prov_py_target t;
	struct found f;
	struct scan s = { &f, 0 };
	const char *modname = NULL;
	size_t i, j;
	uint32_t hex;

	memset(&f, 0, sizeof(f));
	/* the module whose code evaluated Python frames */
	for (i = 0; i < c->nthreads && !f.mod; i++)
		for (j = 0; j < c->threads[i].nframes; j++) {
			const struct prov_frame *fr = &c->threads[i].frames[j];
			Dwfl_Module *m;

			if (!fr->has_pc || !fr->function ||
			    (strcmp(fr->function, "_PyEval_EvalFrameDefault") != 0 &&
			     strcmp(fr->function, "PyEval_EvalFrameEx") != 0))
				continue;
			m = dwfl_addrmodule(dwfl, fr->pc);
			if (m) {
				find_in_module(&f, m);
				if (f.runtime)
					f.mod = m;
			}
			break;
		}
	if (!f.mod)
		dwfl_getmodules(dwfl, module_cb, &s, 0);
	if (!f.mod)
		return;
	memset(&t, 0, sizeof(t));
	t.read = py_mem_read;
	t.arg = &pm;
	t.runtime = f.runtime;
	modname = dwfl_module_info(f.mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	t.module = modname;
	/* Py_Version (3.11+) is PY_VERSION_HEX in read-only data */
	if (f.version_addr && py_mem_read(&pm, f.version_addr, &hex, 4) == 0 &&
	    (hex >> 24) == 3) {
		t.major = 3;
		t.minor = (hex >> 16) & 0xff;
	} else if (prov_python_version_from_name(&t.major, &t.minor, modname) < 0 &&
		   c->process.executable) {
		(void)prov_python_version_from_name(&t.major, &t.minor, c->process.executable);
	}
	prov_python_annotate(c, &t);
}
