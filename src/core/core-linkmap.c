/*
 * Modules from the dynamic linker's list (r_debug, link_map), for cores
 * without NT_FILE, and its cross-check against NT_FILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "core-int.h"
#include "error.h"
#include "util.h"
#include "banned.h"

#define MAX_LINK_MAP 1024	/* entries of r_map walked: a damaged list may loop */

static void add_file(struct core_ctx *x, size_t *alloc, uint64_t start, char *name)
{
	size_t i;

	for (i = 0; i < x->map.nfiles; i++)
		if (x->map.files[i].start == start) {	/* each module once */
			free(name);
			return;
		}
	PROV_ALLOC_GROW(x->map.files, x->map.nfiles + 1, *alloc);
	/* end: core_report_modules takes the image's */
	x->map.files[x->map.nfiles] = (struct nt_file_entry){ .start = start, .end = start + 1, .name = name };
	x->map.nfiles++;
}

/* A NUL-terminated string of the process, at most cap - 1 bytes: new string or NULL. */
static char *core_string(const struct core_ctx *x, uint64_t addr, size_t cap)
{
	char buf[MAX_NAME + 1];
	size_t n = 0;

	if (cap > sizeof(buf))
		cap = sizeof(buf);
	while (n + 1 < cap) {
		size_t k = cap - 1 - n < 64 ? cap - 1 - n : 64, m;

		/* 64 bytes at a time; byte by byte where a segment ends */
		if (core_read(x, addr + n, buf + n, k) < 0) {
			k = 1;
			if (core_read(x, addr + n, buf + n, 1) < 0)
				return NULL;
		}
		m = strnlen(buf + n, k);
		n += m;
		if (m < k)
			break;
	}
	buf[n] = 0;
	return n ? prov_xstrdup(buf) : NULL;
}

/* The executable's path when the core has no NT_FILE: --exe, or an absolute argv[0]. */
static char *exe_name(const struct core_ctx *x)
{
	const char *args = x->c->process.cmdline;
	size_t len;

	if (x->opts && x->opts->exe)
		return prov_xstrdup(x->opts->exe);
	if (args && args[0] == '/') {
		len = strcspn(args, " ");
		return prov_xstrndup(args, len);
	}
	return NULL;
}

/*
 * The executable's program headers from its file, for a core that lacks
 * them (QEMU dumps no read-only text): --exe as given, or an absolute
 * argv[0] under the sysroot. 0, or -1.
 */
static int exe_phdrs_from_file(const struct core_ctx *x, const char *path, unsigned char *buf,
			       size_t len)
{
	unsigned char eh[64];
	size_t ehsz = x->is64 ? 64 : 52;
	uint64_t phoff;
	int fd, ok = -1;

	if (!path || path[0] != '/')
		return -1;
	fd = x->opts && x->opts->exe && strcmp(path, x->opts->exe) == 0
		? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
		: prov_root_open(x->sysroot, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (pread(fd, eh, ehsz, 0) == (ssize_t)ehsz && memcmp(eh, ELFMAG, SELFMAG) == 0 &&
	    eh[EI_CLASS] == (x->is64 ? ELFCLASS64 : ELFCLASS32)) {
		phoff = x->is64 ? core_rd64(x, eh + 32) : core_rd32(x, eh + 28);
		if (phoff <= INT64_MAX - len && pread(fd, buf, len, (off_t)phoff) == (ssize_t)len)
			ok = 0;
	}
	close(fd);
	return ok;
}

/* The NT_FILE entry mapping addr (entries do not overlap), through idx sorted by start. */
static const struct nt_file_entry *file_at_sorted(const struct core_ctx *x, const size_t *idx,
						  size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	const struct nt_file_entry *e;

	while (lo < hi) {	/* the first entry starting above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (x->map.files[idx[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	e = &x->map.files[idx[lo - 1]];
	return e->name && addr < e->end ? e : NULL;
}

/*
 * One object of the link map against the file note: agreeing (the note
 * maps a file at offset 0 at its first page) it adds nothing; an ELF image
 * the note lacks, or maps otherwise, is added as the dynamic linker names
 * it, with a warning and a note on the module. Takes name.
 */
static void cross_check_object(struct core_ctx *x, size_t *alloc, const size_t *idx, size_t n,
			       uint64_t l_addr, char *name)
{
	uint64_t start = l_addr & ~(uint64_t)4095;
	const struct nt_file_entry *e = file_at_sorted(x, idx, n, start);
	struct image_info img = { 0 };
	char *note;

	if ((e && e->start == start && e->pgoff == 0) || (x->notes.has_vdso && start == x->notes.vdso) ||
	    core_read_image(x, start, &img) < 0) {
		free(img.package_note);
		free(name);
		return;
	}
	free(img.package_note);
	if (e) {
		note = prov_xasprintf("the dynamic linker's list places it at 0x%" PRIx64 ", where "
				      "the file note (NT_FILE) maps '%s' at offset 0x%" PRIx64,
				      start, e->name, e->pgoff * x->map.file_page);
		prov_warn("'%s': the dynamic linker's list places '%s' at 0x%" PRIx64 ", where the "
			  "file note (NT_FILE) maps '%s' at offset 0x%" PRIx64 "; listed as the "
			  "dynamic linker has it", x->path, name, start, e->name,
			  e->pgoff * x->map.file_page);
	} else {
		note = prov_xstrdup("from the dynamic linker's list: the file note (NT_FILE) lacks it");
		prov_warn("'%s': the file note (NT_FILE) lacks '%s' (0x%" PRIx64 "), which the "
			  "dynamic linker's list names; added", x->path, name, start);
	}
	/* e points into files[]: not used past here */
	PROV_ALLOC_GROW(x->map.files, x->map.nfiles + 1, *alloc);
	x->map.files[x->map.nfiles] = (struct nt_file_entry){ .start = start, .end = start + 1,
		.name = name, .note = note, .linkmap = 1 };
	x->map.nfiles++;
}

/*
 * The executable file's PT_INTERP (the dynamic linker's path), for a core
 * that lacks the executable's read-only pages (QEMU's), where the link
 * map's l_name of the dynamic linker points: new string or NULL.
 */
static char *exe_interp_from_file(const struct core_ctx *x, const char *path)
{
	int fd;
	Elf *elf = NULL;
	size_t phnum, i;
	char *name = NULL;

	if (!path || path[0] != '/')
		return NULL;
	fd = x->opts && x->opts->exe && strcmp(path, x->opts->exe) == 0
		? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
		: prov_root_open(x->sysroot, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	for (i = 0; elf && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &phnum) == 0 &&
		    i < phnum && i < 512; i++) {
		GElf_Phdr ph;
		char buf[MAX_NAME + 1];
		ssize_t got;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz < 2 || ph.p_filesz > MAX_NAME || ph.p_offset > INT64_MAX)
			break;
		got = pread(fd, buf, ph.p_filesz, (off_t)ph.p_offset);
		if (got == (ssize_t)ph.p_filesz && buf[0] == '/' && memchr(buf, 0, ph.p_filesz))
			name = prov_xstrdup(buf);
		break;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return name;
}

/*
 * Where an object of the link map begins when l_addr does not say: a
 * prelinked library (ppc32's, old distributions') has l_addr 0, its
 * addresses being its own. Like libdwfl, from its dynamic section (l_ld):
 * the nearest ELF image at or below it, among the core's segments, linked
 * at the address it is at and whose loads reach past it. 0 and *lo, or -1.
 */
#define MAX_LD_PROBES 64	/* segments looked at below l_ld */
static int image_below_dynamic(const struct core_ctx *x, uint64_t l_ld, uint64_t *lo)
{
	size_t a = 0, b = x->map.nsegs, tries;
	int found = -1;

	while (a < b) {	/* the first segment starting above l_ld */
		size_t mid = a + (b - a) / 2;

		if (x->map.segs[mid].vaddr <= l_ld)
			a = mid + 1;
		else
			b = mid;
	}
	for (tries = 0; a > 0 && tries < MAX_LD_PROBES && found < 0; tries++, a--) {
		uint64_t s = x->map.segs[a - 1].vaddr & ~(uint64_t)4095;
		struct image_info img = { 0 };

		/* linked where it is (l_addr 0): a data segment that maps the
		 * file's first page again is not its start */
		if (core_read_image(x, s, &img) == 0 && img.vaddr0 == s && img.end > l_ld) {
			*lo = s;
			found = 0;
		}
		free(img.package_note);
	}
	return found;
}

/*
 * Like libdwfl's dwfl_link_map_report: the executable's program headers
 * (AT_PHDR) give its load bias and PT_DYNAMIC; DT_DEBUG points at the
 * dynamic linker's struct r_debug, whose r_map is the link_map chain
 * (l_addr, l_name, l_ld, l_next). Each object becomes a file entry at its
 * first mapping. With a file note (idx: its entries sorted by start, n of
 * them), each object is checked against it instead (cross_check_object).
 * 1 when the list was walked, 0 when not.
 */
static int link_map_files(struct core_ctx *x, int *exe_unknown, const size_t *idx, size_t nidx)
{
	size_t w = x->is64 ? 8 : 4, esz = x->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	size_t alloc = 0, i, n;
	uint64_t bias = 0, dyn = 0, dynsz = 0, lo = UINT64_MAX, rdebug = 0, lm;
	uint64_t ehsz = x->is64 ? 64 : 52;
	int have_phdr = 0, from_file = 0;
	unsigned char *tab, d[16], e[40];
	char *exe;

	if (!x->notes.has_phdr || !x->notes.phnum || x->notes.phnum > 512)
		return 0;
	exe = exe_name(x);
	tab = prov_xmalloc(x->notes.phnum * esz);
	if (core_read(x, x->notes.phdr, tab, x->notes.phnum * esz) < 0) {
		/* not dumped (QEMU writes no read-only text): the file's */
		if (exe_phdrs_from_file(x, exe, tab, x->notes.phnum * esz) < 0) {
			free(tab);
			free(exe);
			return 0;
		}
		from_file = 1;
	}
	for (i = 0; i < x->notes.phnum; i++) {
		const unsigned char *ph = tab + i * esz;
		uint64_t vaddr = x->is64 ? core_rd64(x, ph + 16) : core_rd32(x, ph + 8);
		uint64_t memsz = x->is64 ? core_rd64(x, ph + 40) : core_rd32(x, ph + 20);

		if (core_rd32(x, ph) == PT_PHDR) {	/* the bias */
			bias = x->notes.phdr - vaddr;
			have_phdr = 1;
		}
		if (core_rd32(x, ph) == PT_LOAD && vaddr < lo)
			lo = vaddr;
		if (core_rd32(x, ph) == PT_DYNAMIC) {
			dyn = vaddr;
			dynsz = memsz;
		}
	}
	free(tab);
	if (!have_phdr && lo != UINT64_MAX && x->notes.phdr >= lo + ehsz) {
		/* no PT_PHDR (static executables): the program headers follow
		 * the ELF header of the first PT_LOAD; check that header when
		 * the core has it */
		unsigned char eh[64];
		uint64_t at = x->notes.phdr - ehsz;

		if (from_file || (core_read(x, at, eh, ehsz) == 0 && memcmp(eh, ELFMAG, SELFMAG) == 0 &&
				  (x->is64 ? core_rd64(x, eh + 32) : core_rd32(x, eh + 28)) == ehsz)) {
			bias = at - lo;
			have_phdr = 1;
		}
	}
	if (!have_phdr || lo == UINT64_MAX) {
		free(exe);
		return 0;
	}
	if (idx) {
		free(exe);	/* the file note has the executable */
		exe = NULL;	/* and the loader's name is in memory: nothing read from files */
		alloc = x->map.nfiles;
	} else {
		if (!exe) {
			*exe_unknown = 1;
			exe = prov_xstrdup(x->c->process.executable ? x->c->process.executable :
					   "[executable]");
		}
		add_file(x, &alloc, (bias + lo) & ~(uint64_t)4095, exe);
	}
	for (n = 0; dyn && n < dynsz / (2 * w) && n < 4096; n++) {
		uint64_t tag;

		if (core_read(x, bias + dyn + n * 2 * w, d, 2 * w) < 0)
			break;
		tag = core_rdword(x, d);
		if (tag == DT_NULL)
			break;
		if (tag == DT_DEBUG)
			rdebug = core_rdword(x, d + w);
	}
	/* struct r_debug { int r_version; struct link_map *r_map; ... } */
	if (!rdebug || core_read(x, rdebug + w, d, w) < 0)
		return !dyn;	/* static: the executable is all there is */
	lm = core_rdword(x, d);
	for (n = 0; lm && n < MAX_LINK_MAP; n++) {
		uint64_t l_addr, l_name, l_ld, at;
		char *name;
		struct image_info img = { 0 };

		if (core_read(x, lm, e, 4 * w) < 0)
			return 0;
		l_addr = core_rdword(x, e);
		l_name = core_rdword(x, e + w);
		l_ld = core_rdword(x, e + 2 * w);
		lm = core_rdword(x, e + 3 * w);
		name = l_name ? core_string(x, l_name, MAX_NAME + 1) : NULL;
		if (!name && l_name && x->notes.interp_base && l_addr == x->notes.interp_base)
			name = exe_interp_from_file(x, exe);	/* PT_INTERP's string, not dumped */
		if (!name)
			continue;	/* the executable (empty name) */
		if (!l_addr && l_ld && core_read_image(x, 0, &img) < 0 &&
		    image_below_dynamic(x, l_ld, &at) == 0)
			l_addr = at;	/* prelinked: the image holding its l_ld */
		if (idx) {
			cross_check_object(x, &alloc, idx, nidx, l_addr, name);
			continue;
		}
		/* the first mapping: the image's lowest PT_LOAD, page-aligned */
		if (core_read_image(x, l_addr, &img) == 0 ||
		    core_read_image(x, l_addr & ~(uint64_t)4095, &img) == 0 ||
		    /* QEMU dumps no read-only text: the file under the sysroot */
		    core_read_image_file(x, name, l_addr & ~(uint64_t)4095, &img) == 0)
			add_file(x, &alloc, l_addr & ~(uint64_t)4095, name);
		else
			free(name);	/* the vdso, or headers not in the core */
		free(img.package_note);
	}
	return n < MAX_LINK_MAP;
}

/*
 * A core without NT_FILE (kernels before 3.7, QEMU's user mode, converters):
 * modules from the link map; the list is marked incomplete when it could
 * not be walked or the executable's file is unknown (no --exe, no absolute
 * argv[0]), so nothing is drawn from a pc being outside every module.
 */
void core_no_file_note(struct core_ctx *x)
{
	int exe_unknown = 0, walked;

	if (x->live)
		return;
	walked = link_map_files(x, &exe_unknown, NULL, 0);
	x->map.from_link_map = x->map.files != NULL;
	if (walked && !exe_unknown) {
		prov_warn("'%s' has no file note (NT_FILE): %zu modules found from the dynamic "
			  "linker's list", x->path, x->map.nfiles);
		return;
	}
	x->c->modules_incomplete = 1;
	prov_warn("'%s' has no file note (NT_FILE): the module list is incomplete (%s)%s",
		  x->path,
		  walked ? "the executable's file is unknown" :
		  "the dynamic linker's list could not be read",
		  x->opts && x->opts->exe ? "" : "; name the executable with --exe");
}

/*
 * A core with a file note: the dynamic linker's list adds what the note
 * lacks and says where the two disagree.
 */
static int entry_cmp(const void *a, const void *b)
{
	const struct nt_file_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return y->linkmap - x->linkmap;	/* the link map's first */
}

void core_cross_check_link_map(struct core_ctx *x)
{
	int exe_unknown = 0;
	size_t n = x->map.nfiles, *idx;

	if (x->live || !x->map.nfiles)
		return;
	idx = core_files_by_start(x);
	link_map_files(x, &exe_unknown, idx, n);
	free(idx);
	/* core_report_modules walks them in address order */
	if (x->map.nfiles > n)
		qsort(x->map.files, x->map.nfiles, sizeof(*x->map.files), entry_cmp);
}
