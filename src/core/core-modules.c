/*
 * Modules: ELF images read from the core's memory (build ID, package note),
 * reported to libdwfl within a budget, then read back into the model.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "core-int.h"
#include "error.h"
#include "util.h"
#include "banned.h"

#define NT_FDO_PACKAGING_METADATA 0xcafe1a7e
#define MAX_PACKAGE_NOTE 65536

#define ALIGN4(n) (((n) + 3) & ~(uint64_t)3)

/* ---- an ELF image in the core's memory, or in its file ---- */

/*
 * The notes of one note segment image: the GNU build ID and systemd's
 * package note (what systemd-coredump reads from a core too).
 */
static void scan_image_notes(const struct core_ctx *x, const unsigned char *d, size_t n,
			     uint64_t vaddr, struct image_info *out)
{
	uint64_t off = 0;

	while (off + 12 <= n) {
		uint32_t namesz = core_rd32(x, d + off), descsz = core_rd32(x, d + off + 4);
		uint32_t type = core_rd32(x, d + off + 8);
		uint64_t name = off + 12, desc = name + ALIGN4(namesz);

		if (desc > n || descsz > n - desc)
			return;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(d + name, "GNU", 4) == 0 &&
		    descsz > 0 && descsz <= sizeof(out->id) && !out->idlen) {
			memcpy(out->id, d + desc, descsz);
			out->idlen = descsz;
			out->id_vaddr = vaddr + desc;
		} else if (type == NT_FDO_PACKAGING_METADATA && namesz == 4 &&
			   memcmp(d + name, "FDO", 4) == 0 && descsz > 1 &&
			   descsz <= MAX_PACKAGE_NOTE && !out->package_note) {
			out->package_note = prov_xstrndup((const char *)d + desc, descsz);
		}
		off = desc + ALIGN4(descsz);
	}
}

/*
 * What the core holds of the ELF image whose headers are at `hdr`, loaded
 * at `lo` (its first mapping; the two differ when only a data segment that
 * maps file offset 0 was dumped): 0 when it is an ELF image of the core's
 * class, else -1.
 */
static int read_image_at(const struct core_ctx *x, uint64_t hdr, uint64_t lo,
			 struct image_info *out)
{
	unsigned char eh[64], *ph = NULL, *note = NULL;
	size_t entsize = x->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr), i;
	uint64_t phoff, shoff, bias = 0, vaddr0 = 0;
	unsigned int phnum, shnum, shentsize, type;
	int have_load = 0, error = -1;

	free(out->package_note);
	memset(out, 0, sizeof(*out));
	if (core_read(x, hdr, eh, x->is64 ? 64 : 52) < 0 || memcmp(eh, ELFMAG, SELFMAG) != 0 ||
	    eh[EI_CLASS] != (x->is64 ? ELFCLASS64 : ELFCLASS32))
		return -1;
	type = core_rd16(x, eh + 16);
#define HALF(off) ((unsigned int)core_rd16(x, eh + (off)))
	if (x->is64) {
		phoff = core_rd64(x, eh + 32);
		shoff = core_rd64(x, eh + 40);
		phnum = HALF(56);
		shentsize = HALF(58);
		shnum = HALF(60);
		if (HALF(54) != entsize)
			return -1;
	} else {
		phoff = core_rd32(x, eh + 28);
		shoff = core_rd32(x, eh + 32);
		phnum = HALF(44);
		shentsize = HALF(46);
		shnum = HALF(48);
		if (HALF(42) != entsize)
			return -1;
	}
#undef HALF
	if (phnum == 0 || phnum > 512 || phoff > ((uint64_t)1 << 32) || hdr + phoff < hdr)
		return -1;
	out->file_size = shoff + (uint64_t)shnum * shentsize;
	ph = prov_xmalloc(phnum * entsize);
	if (core_read(x, hdr + phoff, ph, phnum * entsize) < 0)
		goto cleanup;
	for (i = 0; i < phnum; i++) {
		const unsigned char *p = ph + i * entsize;
		uint32_t ptype = core_rd32(x, p);
		uint64_t pvaddr = x->is64 ? core_rd64(x, p + 16) : core_rd32(x, p + 8);
		uint64_t memsz = x->is64 ? core_rd64(x, p + 40) : core_rd32(x, p + 20);
		uint64_t align = x->is64 ? core_rd64(x, p + 48) : core_rd32(x, p + 28);

		if (ptype != PT_LOAD)
			continue;
		if (!have_load) {
			have_load = 1;
			vaddr0 = align > 1 && (align & (align - 1)) == 0 ? pvaddr & ~(align - 1) : pvaddr;
			bias = type == ET_EXEC ? 0 : lo - vaddr0;
		} else if ((x->is64 ? core_rd64(x, p + 8) : core_rd32(x, p + 4)) < 4096 && !out->data0 &&
			   (pvaddr & ~(uint64_t)4095) > vaddr0) {
			out->data0 = (pvaddr & ~(uint64_t)4095) - vaddr0;
		}
		if ((x->is64 ? core_rd64(x, p + 8) : core_rd32(x, p + 4)) >= 4096)
			out->later_loads = 1;
		if (pvaddr + memsz >= pvaddr && bias + pvaddr + memsz > out->end)
			out->end = bias + pvaddr + memsz;
	}
	if (!have_load)
		goto cleanup;
	out->vaddr0 = vaddr0;
	for (i = 0; i < phnum; i++) {
		const unsigned char *p = ph + i * entsize;
		uint64_t pvaddr = x->is64 ? core_rd64(x, p + 16) : core_rd32(x, p + 8);
		uint64_t filesz = x->is64 ? core_rd64(x, p + 32) : core_rd32(x, p + 16);

		if (core_rd32(x, p) != PT_NOTE || filesz == 0 || filesz > 65536)
			continue;
		note = prov_xmalloc(filesz);
		if (core_read(x, bias + pvaddr, note, filesz) == 0)
			scan_image_notes(x, note, filesz, bias + pvaddr, out);
		free(note);
		note = NULL;
	}
	error = 0;
cleanup:
	free(ph);
	return error;
}

int core_read_image(const struct core_ctx *x, uint64_t lo, struct image_info *out)
{
	return read_image_at(x, lo, lo, out);
}

/*
 * The same facts from the file itself (under the sysroot), for a core that
 * lost the image's first page (truncated inside its memory segments): 0, or
 * -1 when the file is not there or not an ELF image of the core's class.
 */
int core_read_image_file(const struct core_ctx *x, const char *path, uint64_t lo,
		    struct image_info *out)
{
	int fd, error = -1, have_load = 0;
	Elf *elf = NULL;
	GElf_Ehdr eh;
	size_t phnum, i;
	uint64_t bias = 0;
	const void *bits = NULL;
	ssize_t len;
	struct stat st;

	free(out->package_note);
	memset(out, 0, sizeof(*out));
	if (!path)
		return -1;
	if (x->opts && x->opts->exe && strcmp(path, x->opts->exe) == 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);	/* --exe: as given */
	} else if (path[0] == '/') {
		fd = prov_root_open(x->sysroot, path, O_RDONLY | O_NONBLOCK);
	} else {
		char *p = x->sysroot ? core_sysroot_relative(path) : NULL;

		fd = p ? prov_root_open(x->sysroot, p, O_RDONLY | O_NONBLOCK) : -1;
		free(p);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto cleanup;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != (x->is64 ? ELFCLASS64 : ELFCLASS32) ||
	    (x->machine && eh.e_machine != x->machine) ||	/* the host's x86-64 libc for an aarch64 core */
	    (eh.e_type != ET_DYN && eh.e_type != ET_EXEC) || elf_getphdrnum(elf, &phnum) < 0 ||
	    phnum > 512)
		goto cleanup;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!have_load) {
			uint64_t v0 = ph.p_align > 1 && (ph.p_align & (ph.p_align - 1)) == 0
				? ph.p_vaddr & ~(ph.p_align - 1) : ph.p_vaddr;

			have_load = 1;
			bias = eh.e_type == ET_EXEC ? 0 : lo - v0;
		}
		if (ph.p_offset >= 4096)
			out->later_loads = 1;
		if (ph.p_vaddr + ph.p_memsz >= ph.p_vaddr && bias + ph.p_vaddr + ph.p_memsz > out->end)
			out->end = bias + ph.p_vaddr + ph.p_memsz;
	}
	if (!have_load)
		goto cleanup;
	out->file_size = (uint64_t)st.st_size;
	len = dwelf_elf_gnu_build_id(elf, &bits);
	if (len > 0 && (size_t)len <= sizeof(out->id)) {
		memcpy(out->id, bits, (size_t)len);
		out->idlen = (size_t)len;
	}
	error = 0;
cleanup:
	elf_end(elf);
	close(fd);
	return error;
}

/* ---- which images go in: loaded ones, and past the budget the kept ones ---- */

/* NT_FILE entries by start address: image_was_loaded looks at a range, not all */
static const struct nt_file_entry *sort_files;

static int by_start(const void *a, const void *b)
{
	uint64_t x = sort_files[*(const size_t *)a].start, y = sort_files[*(const size_t *)b].start;

	return x < y ? -1 : x > y;
}

size_t *core_files_by_start(const struct core_ctx *x)
{
	size_t *idx = prov_xmalloc((x->map.nfiles ? x->map.nfiles : 1) * sizeof(*idx)), i;

	for (i = 0; i < x->map.nfiles; i++)
		idx[i] = i;
	sort_files = x->map.files;
	qsort(idx, x->map.nfiles, sizeof(*idx), by_start);
	sort_files = NULL;
	return idx;
}

/*
 * Did the dynamic loader map this image (what eu-unstrip reports), or did
 * the process merely mmap the file (gdb does this)? A loaded image's later
 * segments are mappings of the same file at a page offset within its range;
 * a plain mmap is one mapping of the whole file, and its range computed
 * from the program headers overlaps other mappings.
 *
 * The entries starting in [e->start, hi), through the sorted index: was
 * a scan of every entry for every image (64,000 modules took 31.6 s).
 */
static int image_was_loaded(const struct core_ctx *x, const size_t *idx, size_t i, uint64_t hi,
			    const struct image_info *img)
{
	const struct nt_file_entry *e = &x->map.files[i];
	size_t lo = 0, top = x->map.nfiles, k;
	int later = 0;

	while (lo < top) {	/* the first entry with start >= e->start */
		size_t mid = lo + (top - lo) / 2;

		if (x->map.files[idx[mid]].start < e->start)
			lo = mid + 1;
		else
			top = mid;
	}
	for (k = lo; k < x->map.nfiles && x->map.files[idx[k]].start < hi; k++) {
		size_t j = idx[k];
		const struct nt_file_entry *o = &x->map.files[j];

		if (j == i || !o->name || o->linkmap || o->start < e->start || o->start >= hi)
			continue;
		if (strcmp(o->name, e->name) != 0)
			return 0;	/* another file inside its range */
		if (o->pgoff != 0)
			later = 1;
	}
	return later || !img->later_loads;
}

/*
 * The image holding addr: the files[] entry whose mapping covers it, then
 * back over that file's later mappings (sorted index, same name) to its
 * mapping of file offset 0. (size_t)-1: none.
 */
static size_t image_at(const struct core_ctx *x, const size_t *idx, uint64_t addr)
{
	size_t lo = 0, top = x->map.nfiles, k, steps;
	const struct nt_file_entry *e;

	while (lo < top) {	/* the first entry with start > addr */
		size_t mid = lo + (top - lo) / 2;

		if (x->map.files[idx[mid]].start <= addr)
			lo = mid + 1;
		else
			top = mid;
	}
	if (lo == 0)
		return (size_t)-1;
	k = lo - 1;
	e = &x->map.files[idx[k]];
	if (!e->name || addr >= e->end)
		return (size_t)-1;
	for (steps = 0; e->pgoff != 0 && k > 0 && steps < 64; steps++) {
		const struct nt_file_entry *p = &x->map.files[idx[k - 1]];

		if (!p->name || strcmp(p->name, e->name) != 0)
			return (size_t)-1;
		k--;
		e = p;
	}
	return e->pgoff == 0 ? idx[k] : (size_t)-1;
}

static void keep_image(struct core_ctx *x, const size_t *idx, uint64_t addr)
{
	size_t i;

	if (x->mods.nkeep >= KEEP_MAX || (i = image_at(x, idx, addr)) == (size_t)-1 || x->mods.keep[i])
		return;
	x->mods.keep[i] = 1;
	x->mods.nkeep++;
}

/* A thread's register by its name on this machine (pc: 0, sp: 1, aarch64's lr: 2), or -1. */
static int thread_reg(const struct prov_thread *t, int which, uint64_t *out)
{
	static const char *const names[3][3] = { { "rip", "eip", "pc" }, { "rsp", "esp", "sp" },
						 { "x30", "x30", "x30" } };
	size_t k, n;

	for (k = 0; k < t->nregs; k++)
		for (n = 0; n < 3; n++)
			if (strcmp(t->regs[k].name, names[which][n]) == 0) {
				*out = t->regs[k].value;
				return 0;
			}
	return -1;
}

/* The images the words of t's stack point into, from sp up; *budget: bytes left. */
static void keep_stack_images(struct core_ctx *x, const size_t *idx,
			      const struct prov_thread *t, size_t *budget)
{
	unsigned char page[4096];
	size_t w = x->is64 ? 8 : 4, done = 0, k;
	uint64_t sp;

	if (thread_reg(t, 1, &sp) < 0)
		return;
	sp &= ~(uint64_t)(w - 1);
	while (done < KEEP_STACK && *budget >= sizeof(page) && x->mods.nkeep < KEEP_MAX) {
		/* up to the end of sp's page first, then whole pages */
		size_t len = sizeof(page) - (size_t)((sp + done) & (sizeof(page) - 1));

		if (sp + done < sp || core_read(x, sp + done, page, len) < 0)
			break;
		for (k = 0; k + w <= len; k += w)
			keep_image(x, idx, core_rdword(x, page + k));
		done += len;
		*budget -= len;
	}
}

/*
 * More images than the budget: mark those that hold what the report is
 * about, so that they go in ahead of the rest (which go in address order):
 * every thread's pc (the crashing thread's first) and aarch64 link register,
 * the executable (AT_ENTRY), then the images the words of each thread's
 * stack point into (the crashing thread's first): the return addresses of
 * its frames are among them.
 */
static void mark_kept_images(struct core_ctx *x, const size_t *idx)
{
	const struct prov_crash *c = x->c;
	size_t i, images = 0, budget = KEEP_STACK_TOTAL;
	uint64_t pc;

	x->mods.keep_done = 1;
	for (i = 0; i < x->map.nfiles; i++)
		if (x->map.files[i].name && x->map.files[i].pgoff == 0)
			images++;
	if (images <= MAX_DWFL_MODULES)
		return;
	x->mods.keep = prov_xcalloc(x->map.nfiles, 1);
	if (c->has_crashed_thread && thread_reg(&c->threads[c->crashed_thread], 0, &pc) == 0)
		keep_image(x, idx, pc);
	for (i = 0; i < c->nthreads; i++) {
		if (thread_reg(&c->threads[i], 0, &pc) == 0)
			keep_image(x, idx, pc);
		if (thread_reg(&c->threads[i], 2, &pc) == 0)	/* a leaf's return address */
			keep_image(x, idx, pc);
	}
	if (x->notes.has_entry)
		keep_image(x, idx, x->notes.entry);
	if (c->has_crashed_thread)
		keep_stack_images(x, idx, &c->threads[c->crashed_thread], &budget);
	for (i = 0; i < c->nthreads; i++)
		if (!c->has_crashed_thread || i != c->crashed_thread)
			keep_stack_images(x, idx, &c->threads[i], &budget);
}

/* ---- reporting the images to libdwfl ---- */

/*
 * core_read_image memoized by address: 65,000 NT_FILE entries naming one image
 * (with 511 PT_NOTEs of 64 KiB) re-read it for each entry, past 120 s.
 */
struct image_memo {
	uint64_t *lo;	/* open addressing on lo; used[i] says the slot holds one */
	unsigned char *used;
	int *rc;
	struct image_info *img;
	size_t nslots, n;
};

static int read_image_memo(const struct core_ctx *x, struct image_memo *m, uint64_t lo,
			   struct image_info *out)
{
	size_t s, i;
	int rc;

	if ((m->n + 1) * 2 > m->nslots) {
		struct image_memo old = *m;
		size_t n = m->nslots ? m->nslots * 2 : 64;

		m->lo = prov_xcalloc(n, sizeof(*m->lo));
		m->used = prov_xcalloc(n, 1);
		m->rc = prov_xcalloc(n, sizeof(*m->rc));
		m->img = prov_xcalloc(n, sizeof(*m->img));
		m->nslots = n;
		for (i = 0; i < old.nslots; i++) {
			if (!old.used[i])
				continue;
			for (s = (size_t)(old.lo[i] * 0x9e3779b97f4a7c15ULL >> 20) & (n - 1); m->used[s];
			     s = (s + 1) & (n - 1))
				;
			m->used[s] = 1;
			m->lo[s] = old.lo[i];
			m->rc[s] = old.rc[i];
			m->img[s] = old.img[i];
		}
		free(old.lo);
		free(old.used);
		free(old.rc);
		free(old.img);
	}
	for (s = (size_t)(lo * 0x9e3779b97f4a7c15ULL >> 20) & (m->nslots - 1); m->used[s];
	     s = (s + 1) & (m->nslots - 1))
		if (m->lo[s] == lo)
			break;
	if (!m->used[s]) {
		m->used[s] = 1;
		m->lo[s] = lo;
		m->rc[s] = core_read_image(x, lo, &m->img[s]);
		m->n++;
	}
	rc = m->rc[s];
	free(out->package_note);
	*out = m->img[s];
	out->package_note = m->img[s].package_note ? prov_xstrdup(m->img[s].package_note) : NULL;
	return rc;
}

static void image_memo_release(struct image_memo *m)
{
	size_t i;

	for (i = 0; i < m->nslots; i++)
		if (m->used[i])
			free(m->img[i].package_note);
	free(m->lo);
	free(m->used);
	free(m->rc);
	free(m->img);
	memset(m, 0, sizeof(*m));
}

static int report_one(struct core_ctx *x, const char *name, uint64_t lo, uint64_t hi,
		      const struct image_info *img, Dwfl_Module **out)
{
	Dwfl_Module *mod;

	if (hi <= lo)
		return 0;
	if (x->mods.nreported >= PROV_MAX_MODULES)
		return prov_error_set(PROV_ELIMIT, "'%s' has more than %d modules",
				      x->path, PROV_MAX_MODULES);
	mod = dwfl_report_module(x->dwfl, name, lo, hi);
	if (!mod)
		return 0;	/* overlaps another: keep the first */
	x->mods.nreported++;
	if (img->idlen)
		dwfl_module_report_build_id(mod, img->id, img->idlen, img->id_vaddr);
	if (img->package_note) {
		void **userdata = NULL;

		dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		if (userdata)
			core_mod_extra(x, userdata)->package_note = prov_xstrdup(img->package_note);
	}
	if (out)
		*out = mod;
	return 0;
}

/*
 * The image of a file whose first mapping (offset 0, at e->start) the core
 * did not dump, from a later mapping of the same file at offset 0 that it
 * did: old linkers' data segments share the first page of the file. The
 * distance between the two must be the image's own (data0). 0, or -1.
 */
static int image_from_data_mapping(const struct core_ctx *x, size_t i, struct image_info *img)
{
	const struct nt_file_entry *e = &x->map.files[i];
	size_t j;

	for (j = i + 1; j < x->map.nfiles && j < i + 64; j++) {
		const struct nt_file_entry *d = &x->map.files[j];

		if (!d->name || strcmp(d->name, e->name) != 0 || d->start <= e->start)
			break;
		if (d->pgoff != 0)
			continue;
		if (read_image_at(x, d->start, d->start, img) < 0 || !img->data0 ||
		    d->start - e->start != img->data0)
			return -1;
		return read_image_at(x, d->start, e->start, img);
	}
	return -1;
}

/*
 * When the core lacks an image's headers (a truncated core, modules from
 * the link map, a coredump_filter without ELF headers): the --exe file for
 * the main executable, else the file at its recorded path (under the
 * sysroot). In a whole core only a file the loader mapped (a later mapping
 * of it at a nonzero offset follows) is opened: the kernel leaves out the
 * first page of every mapped data file too. 0 (id_from_file says the build
 * ID is the file's), or -1.
 */
static int image_from_file(struct core_ctx *x, size_t i, struct image_info *img)
{
	const struct nt_file_entry *e = &x->map.files[i];
	size_t j;
	int segments = x->c->partial || x->map.from_link_map || e->linkmap;

	if (x->opts && x->opts->exe && x->notes.has_entry && x->notes.entry >= e->start && x->notes.entry < e->end &&
	    core_read_image_file(x, x->opts->exe, e->start, img) == 0)
		return 0;
	for (j = i + 1; !segments && j < x->map.nfiles && j < i + 64; j++) {
		if (!x->map.files[j].name || strcmp(x->map.files[j].name, e->name) != 0)
			break;
		segments = x->map.files[j].pgoff != 0;
	}
	return segments ? core_read_image_file(x, e->name, e->start, img) : -1;
}

/*
 * Report modules ourselves rather than with dwfl_core_file_report: libdwfl
 * 0.188 opens the paths a core names on the host (no sysroot hook), which
 * must not happen with --sysroot. A module is an ELF image at a file
 * mapping of offset 0 (NT_FILE), plus the vdso (AT_SYSINFO_EHDR); files are
 * found later by core_find_elf_cb, under the sysroot. Each image is placed at
 * its first mapping and listed once: a later mapping of the same file at
 * offset 0 inside its range (a data segment sharing the file's first page)
 * is not another module.
 */
int core_report_modules(struct core_ctx *x)
{
	struct image_info img = { 0 };
	struct image_memo memo = { 0 };
	size_t i, j, skipped = 0, *idx = core_files_by_start(x);
	int error = 0;
	const char *last = NULL;	/* the last module reported from files[], and its range */
	uint64_t last_lo = 0, last_hi = 0;
	int last_linkmap = 0;	/* placed by the dynamic linker's list */
	size_t kept_left;	/* images marked to go in, not reached yet */

	if (!x->mods.keep_done)
		mark_kept_images(x, idx);
	kept_left = x->mods.nkeep;
	for (i = 0; i < x->map.nfiles; i++) {
		const struct nt_file_entry *e = &x->map.files[i];
		uint64_t hi;
		int kept = x->mods.keep && x->mods.keep[i];
		int from_file = 0;
		Dwfl_Module *mod = NULL;

		if (kept)
			kept_left--;
		if (!e->name || e->pgoff != 0)
			continue;
		if (last && e->start >= last_lo && e->start < last_hi &&
		    (last_linkmap || strcmp(last, e->name) == 0))
			continue;	/* its data segment, at file offset 0 */
		if (read_image_memo(x, &memo, e->start, &img) < 0 &&
		    image_from_data_mapping(x, i, &img) < 0) {
			/* the core lost the image: the file says what it was */
			if (image_from_file(x, i, &img) < 0)
				continue;
			from_file = 1;
		}
		hi = e->end;
		/* its other mappings follow it (NT_FILE is in address order) */
		for (j = i + 1; j < x->map.nfiles; j++) {
			if (!x->map.files[j].name || strcmp(x->map.files[j].name, e->name) != 0)
				break;
			if (x->map.files[j].pgoff == 0)
				break;	/* another mapping of the same file */
			if (x->map.files[j].end > hi && x->map.files[j].start >= e->start)
				hi = x->map.files[j].end;
		}
		if (img.end > hi && img.end - e->start < ((uint64_t)1 << 32))
			hi = img.end;
		if (!x->map.from_link_map && !e->linkmap && !image_was_loaded(x, idx, i, hi, &img))
			continue;
		/* past the budget (less the places kept for the marked images
		 * further on) only those and the executable (it holds AT_ENTRY) go in */
		if (!kept && x->mods.nreported + kept_left >= MAX_DWFL_MODULES && hi > e->start &&
		    !(x->notes.has_entry && x->notes.entry >= e->start && x->notes.entry < hi)) {
			skipped++;
			continue;
		}
		if ((error = report_one(x, e->name, e->start, hi, &img, &mod)) < 0)
			goto cleanup;
		if (mod) {
			void **userdata = NULL;

			last = e->name;
			last_lo = e->start;
			last_hi = hi;
			last_linkmap = e->linkmap;
			dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
			if (userdata && e->note && !core_mod_extra(x, userdata)->origin)
				core_mod_extra(x, userdata)->origin = prov_xstrdup(e->note);
		}
		if (mod && from_file) {
			void **userdata = NULL;

			dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
			if (userdata)
				core_mod_extra(x, userdata)->id_from_file = 1;
		}
	}
	if (skipped && !x->mods.over_budget) {
		x->c->modules_incomplete = 1;
		if (x->mods.nkeep)
			prov_warn("'%s' maps more than %d ELF images: %zu of them are left out of the "
				  "module list (kept first: the %zu holding the threads' pcs or words "
				  "of their stacks)", x->path, MAX_DWFL_MODULES, skipped, x->mods.nkeep);
		else
			prov_warn("'%s' maps more than %d ELF images: %zu of them are left out of the "
				  "module list", x->path, MAX_DWFL_MODULES, skipped);
	}
	x->mods.over_budget = skipped;
	if (x->notes.has_vdso && core_read_image(x, x->notes.vdso, &img) == 0) {
		size_t len = img.file_size > img.end - x->notes.vdso ? img.file_size : img.end - x->notes.vdso;

		if (len > 0 && len <= ((size_t)1 << 20)) {
			x->mods.vdso_image = prov_xmalloc(len);
			if (core_read(x, x->notes.vdso, x->mods.vdso_image, len) < 0 &&
			    (len = img.end - x->notes.vdso) > 0)
				core_read(x, x->notes.vdso, x->mods.vdso_image, len);
			x->mods.vdso_len = len;
			/* its range is its PT_LOADs' (as eu-unstrip's), the image may
			 * run on with section headers */
			uint64_t span = img.end - x->notes.vdso;

			if (span == 0 || span > len)
				span = len;
			if ((error = report_one(x, "[vdso]", x->notes.vdso, x->notes.vdso + ((span + 4095) & ~(uint64_t)4095),
						&img, &x->mods.vdso_mod)) < 0)
				goto cleanup;
		}
	}
	error = 0;
cleanup:
	free(img.package_note);
	image_memo_release(&memo);
	free(idx);
	return error;
}

/* ---- libdwfl's modules into the model ---- */

int core_module_cb(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
	      void *arg)
{
	struct core_ctx *x = arg;
	struct prov_module *m;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr, bias;
	Dwarf_Addr lo = 0, hi = 0;
	const char *mainfile = NULL, *debugfile = NULL;
	char *core_id = NULL;
	struct mod_extra *ex;
	int len;

	if (x->c->nmodules >= PROV_MAX_MODULES) {
		x->error = prov_error_set(PROV_ELIMIT, "'%s' has more than %d modules",
					  x->path, PROV_MAX_MODULES);
		return DWARF_CB_ABORT;
	}
	/* What the core says, before a file replaces it. */
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len > 0)
		core_id = prov_hex(bits, (size_t)len);
	dwfl_module_getelf(mod, &bias);
	if (!core_id) {
		len = dwfl_module_build_id(mod, &bits, &vaddr);
		if (len > 0)
			core_id = prov_hex(bits, (size_t)len);
	}
	/*
	 * No dwfl_module_getdwarf here: dwarf_begin_elf inflates every
	 * compressed debug section; only modules with frames pay for it and
	 * their debug file is filled in after unwinding (fill_debug_files).
	 */
	dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, &mainfile, &debugfile);

	ex = *userdata;
	if (!mainfile && ex)
		mainfile = ex->file;
	m = prov_crash_add_module(x->c);
	m->path = prov_xstrdup(name ? name : "?");
	m->has_range = 1;
	m->start = lo;
	m->end = hi;
	m->build_id = core_id;
	m->file = prov_xstrdup_or_null(mainfile);
	m->debug_file = prov_xstrdup_or_null(debugfile);
	if (ex && ex->note && ex->origin)
		m->note = prov_xasprintf("%s; %s", ex->origin, ex->note);
	else
		m->note = ex ? prov_xstrdup_or_null(ex->note ? ex->note : ex->origin) : NULL;
	m->package_note = ex ? prov_xstrdup_or_null(ex->package_note) : NULL;
	/* a file was found by path but is another build: say so, do not use it */
	m->build_id_mismatch = ex && ex->path_mismatch && !mainfile;
	m->build_id_from_file = ex && ex->id_from_file;
	return DWARF_CB_OK;
}

/* The debug files libdwfl found while symbolising frames. */
int core_debug_file_cb(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
		  void *arg)
{
	struct core_ctx *x = arg;
	const char *debugfile = NULL;
	Dwarf_Addr lo = 0;
	size_t i;

	dwfl_module_info(mod, NULL, &lo, NULL, NULL, NULL, NULL, &debugfile);
	if (!debugfile)
		return DWARF_CB_OK;
	for (i = 0; i < x->c->nmodules; i++) {
		struct prov_module *m = &x->c->modules[i];

		if (m->start == lo && !m->debug_file) {
			m->debug_file = prov_xstrdup(debugfile);
			break;
		}
	}
	return DWARF_CB_OK;
}

int core_module_cmp(const void *a, const void *b)
{
	const struct prov_module *ma = a, *mb = b;

	if (ma->start != mb->start)
		return ma->start < mb->start ? -1 : 1;
	return 0;
}
