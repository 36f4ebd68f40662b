/*
 * The core analyzer: a core's header, program headers and notes, then its
 * modules, threads and frames (prov_core_analyze, core.h; core-int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "core-int.h"
#include "corevars.h"
#include "core-python.h"
#include "hang.h"
#include "error.h"
#include "util.h"
#include "banned.h"

int prov_core_is_core(const unsigned char *head, size_t len)
{
	uint16_t type;

	if (!head || len < 18 || memcmp(head, ELFMAG, SELFMAG) != 0)
		return 0;
	if (head[EI_DATA] == ELFDATA2LSB)
		type = (uint16_t)(head[16] | (head[17] << 8));
	else if (head[EI_DATA] == ELFDATA2MSB)
		type = (uint16_t)((head[16] << 8) | head[17]);
	else
		return 0;
	return type == ET_CORE;
}

static int check_header(struct core_ctx *x, const char *path)
{
	unsigned char head[64];
	ssize_t n;
	size_t need;
	struct stat st;

	if (fstat(x->fd, &st) < 0)
		return prov_error_set(PROV_EINPUT, "cannot read '%s': %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return prov_error_set(PROV_EINPUT, "'%s' is a directory, not a core", path);
	if (!S_ISREG(st.st_mode))
		return prov_error_set(PROV_EINPUT, "'%s' is not a regular file", path);
	x->size = (uint64_t)st.st_size;
	if (x->size == 0)
		return prov_error_set(PROV_EINPUT, "'%s' is empty", path);
	n = pread(x->fd, head, sizeof(head), 0);
	if (n < 0)
		return prov_error_set(PROV_EINPUT, "cannot read '%s': %s", path, strerror(errno));
	if ((size_t)n < SELFMAG || memcmp(head, ELFMAG, SELFMAG) != 0)
		return prov_error_set(PROV_EINPUT, "'%s' is not an ELF file", path);
	if ((size_t)n <= EI_DATA || (head[EI_CLASS] != ELFCLASS32 && head[EI_CLASS] != ELFCLASS64) ||
	    (head[EI_DATA] != ELFDATA2LSB && head[EI_DATA] != ELFDATA2MSB))
		return prov_error_set(PROV_EINPUT, "'%s' is truncated inside the ELF header or "
				      "has an unknown ELF class", path);
	need = head[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if ((size_t)n < need)
		return prov_error_set(PROV_EINPUT, "'%s' is truncated inside the ELF header "
				      "(%zd of %zu bytes)", path, n, need);
	if (!prov_core_is_core(head, (size_t)n))
		return prov_error_set(PROV_EINPUT, "'%s' is an ELF file but not a core "
				      "(not ET_CORE)", path);
	x->is64 = head[EI_CLASS] == ELFCLASS64;
	x->swap = (head[EI_DATA] == ELFDATA2LSB) != core_host_is_le();
	return 0;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct core_seg *sa = a, *sb = b;

	return sa->vaddr < sb->vaddr ? -1 : sa->vaddr > sb->vaddr;
}

static int read_program_headers(struct core_ctx *x)
{
	GElf_Ehdr ehdr;
	size_t phnum, i, nnotes = 0, entsize;
	int error, truncated_mem = 0;
	uint64_t mem_end = 0;

	if (!gelf_getehdr(x->elf, &ehdr))
		return prov_error_set(PROV_EINPUT, "cannot read the ELF header of '%s': %s",
				      x->path, elf_errmsg(-1));
	x->machine = ehdr.e_machine;
	entsize = x->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	if (ehdr.e_phnum == 0)
		return prov_error_set(PROV_EINPUT, "'%s' has no program headers", x->path);
	if (ehdr.e_phentsize != entsize)
		return prov_error_set(PROV_EINPUT, "'%s' has a damaged ELF header "
				      "(program header size %u)", x->path, ehdr.e_phentsize);
	if (ehdr.e_phoff >= x->size)
		return prov_error_set(PROV_EINPUT, "'%s' is truncated before its program headers "
				      "(at %" PRIu64 ", file has %" PRIu64 " bytes)",
				      x->path, (uint64_t)ehdr.e_phoff, x->size);
	/* elf_getphdrnum clamps the count to what fits in the file: use the header's */
	phnum = ehdr.e_phnum;
	if (phnum == PN_XNUM && elf_getphdrnum(x->elf, &phnum) < 0)
		return prov_error_set(PROV_EINPUT, "cannot read the program headers of '%s': %s",
				      x->path, elf_errmsg(-1));
	if (phnum > MAX_PHDRS)
		return prov_error_set(PROV_ELIMIT, "'%s' has more than %zu program headers",
				      x->path, MAX_PHDRS);
	if (phnum > (x->size - ehdr.e_phoff) / entsize)
		return prov_error_set(PROV_EINPUT, "'%s' is truncated inside its program headers "
				      "(%zu headers at %" PRIu64 ", file has %" PRIu64 " bytes)",
				      x->path, phnum, (uint64_t)ehdr.e_phoff, x->size);
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(x->elf, (int)i, &ph))
			return prov_error_set(PROV_EINPUT, "cannot read program header %zu of '%s': %s",
					      i, x->path, elf_errmsg(-1));
		if (ph.p_type == PT_LOAD && !(ph.p_flags & PF_X) && ph.p_memsz) {
			PROV_ALLOC_GROW(x->map.noexec, x->map.nnoexec + 1, x->map.noexec_alloc);
			x->map.noexec[x->map.nnoexec].vaddr = ph.p_vaddr;
			x->map.noexec[x->map.nnoexec].filesz = ph.p_memsz;
			x->map.nnoexec++;
		}
		if (ph.p_offset > x->size || ph.p_filesz > x->size - ph.p_offset) {
			if (ph.p_type == PT_NOTE)
				return prov_error_set(PROV_EINPUT, "'%s' is truncated inside its notes "
						      "(notes end at %" PRIu64 ", file has %" PRIu64
						      " bytes)", x->path,
						      ph.p_offset + ph.p_filesz, x->size);
			if (ph.p_type == PT_LOAD) {
				truncated_mem = 1;
				if (ph.p_offset + ph.p_filesz > mem_end && ph.p_offset + ph.p_filesz > ph.p_offset)
					mem_end = ph.p_offset + ph.p_filesz;
				if (ph.p_offset < x->size) {
					PROV_ALLOC_GROW(x->map.segs, x->map.nsegs + 1, x->map.segs_alloc);
					x->map.segs[x->map.nsegs].vaddr = ph.p_vaddr;
					x->map.segs[x->map.nsegs].filesz = x->size - ph.p_offset;
					x->map.segs[x->map.nsegs].offset = ph.p_offset;
					x->map.nsegs++;
				}
			}
			continue;
		}
		if (ph.p_type == PT_NOTE && (error = core_parse_notes(x, &ph, &nnotes)) < 0)
			return error;
		if (ph.p_type == PT_LOAD && ph.p_filesz) {
			PROV_ALLOC_GROW(x->map.segs, x->map.nsegs + 1, x->map.segs_alloc);
			x->map.segs[x->map.nsegs].vaddr = ph.p_vaddr;
			x->map.segs[x->map.nsegs].filesz = ph.p_filesz;
			x->map.segs[x->map.nsegs].offset = ph.p_offset;
			x->map.nsegs++;
		}
	}
	if (x->map.nsegs > 1)
		qsort(x->map.segs, x->map.nsegs, sizeof(*x->map.segs), seg_cmp);
	if (!x->c->nthreads)
		return prov_error_set(PROV_EINPUT, "'%s' has no thread status notes (NT_PRSTATUS): "
				      "damaged or truncated", x->path);
	x->c->partial = truncated_mem;
	/*
	 * The kernel dumps a core for a fatal signal and records it as every
	 * thread's pr_cursig; gcore takes a snapshot of a live process and
	 * records none (its NT_SIGINFO only says the process was stopped).
	 */
	if (!x->notes.first_cursig) {
		x->c->snapshot = 1;
		x->c->has_crashed_thread = 0;
		x->c->threads[0].crashed = 0;
	}
	if (truncated_mem)
		prov_warn("'%s' is truncated inside its memory segments (file has %" PRIu64
			  " bytes, segments need %" PRIu64 "): results may be partial",
			  x->path, x->size, mem_end);
	return 0;
}

static void fill_process(struct core_ctx *x)
{
	struct prov_crash *c = x->c;
	const struct nt_file_entry *e = x->notes.has_entry ? core_file_at(x, x->notes.entry) : NULL;
	const char *name;

	if (e) {
		c->has_process = 1;
		free(c->process.executable);
		c->process.executable = prov_xstrdup(e->name);
	}
	if (c->has_signal) {
		name = prov_signal_name(c->signal.number);
		c->signal.name = name ? prov_xstrdup(name) : prov_xasprintf("SIG%d", c->signal.number);
		if (c->signal.has_code) {
			name = prov_signal_code_name(c->signal.number, c->signal.code);
			c->signal.code_name = prov_xstrdup_or_null(name);
		}
	}
}

/* The context before anything is read: options, limits, --sysroot checked. */
static int ctx_init(struct core_ctx *x, const char *path, const struct prov_core_opts *opts)
{
	static const struct prov_core_opts no_opts;

	memset(x, 0, sizeof(*x));
	x->fd = -1;
	x->ok = 1;
	x->opts = opts ? opts : &no_opts;
	x->path = path;
	x->max_frames = x->opts->max_frames && x->opts->max_frames < PROV_MAX_FRAMES ?
		x->opts->max_frames : PROV_MAX_FRAMES;
	if (x->opts->sysroot && *x->opts->sysroot && strcmp(x->opts->sysroot, "/") != 0)
		x->sysroot = x->opts->sysroot;
	if (!path || !*path)
		return prov_error_set(PROV_EINPUT, "no core file given");
	if (x->sysroot) {
		struct stat st;

		if (stat(x->sysroot, &st) < 0 || !S_ISDIR(st.st_mode))
			return prov_error_set(PROV_EINPUT, "sysroot '%s' is not a directory",
					      x->sysroot);
	}
	return 0;
}

/* The file opened, its ELF header checked, libelf on it, an empty model. */
static int open_core(struct core_ctx *x)
{
	int error;

	x->fd = open(x->path, O_RDONLY | O_CLOEXEC);
	if (x->fd < 0)
		return prov_error_set(PROV_EINPUT, "cannot open '%s': %s", x->path, strerror(errno));
	if ((error = check_header(x, x->path)) < 0)
		return error;
	elf_version(EV_CURRENT);
	/* ELF_C_READ, not MMAP: lazy preads, measured faster on cold multi-GiB cores. */
	x->elf = elf_begin(x->fd, ELF_C_READ, NULL);
	if (!x->elf)
		return prov_error_set(PROV_EINPUT, "cannot read '%s': %s", x->path, elf_errmsg(-1));
	x->c = prov_crash_new(PROV_INPUT_CORE, x->path);
	x->c->format = prov_xstrdup("core");
	return 0;
}

/* Program headers and notes: threads, signal, mapped files, the process. */
static int read_headers(struct core_ctx *x)
{
	int error;

	if ((error = read_program_headers(x)) < 0)
		return error;
	x->rcache = prov_xcalloc(1, sizeof(*x->rcache));
	if (!x->map.files)
		core_no_file_note(x);
	else
		core_cross_check_link_map(x);
	x->c->machine = x->machine;
	x->c->machine_is64 = x->is64;
	if (!(prov_machine_reads(x->machine, x->is64) & PROV_MACHINE_REGISTERS))
		x->c->registers_note = prov_xasprintf("registers of %s cores are not read yet",
						      prov_machine_name(x->machine, x->is64));
	fill_process(x);
	return 0;
}

/* The core's images reported to a new Dwfl, then read back as the model's modules. */
static int report_core_modules(struct core_ctx *x)
{
	int error;

	x->dwfl = core_dwfl_begin();
	if (!x->dwfl)
		return prov_error_set(PROV_ERROR, "dwfl_begin: %s", dwfl_errmsg(-1));
	dwfl_report_begin(x->dwfl);
	if ((error = core_report_modules(x)) < 0)
		return error;
	if (dwfl_report_end(x->dwfl, NULL, NULL) != 0)
		return prov_error_set(PROV_EINPUT, "cannot read the modules of '%s': %s",
				      x->path, dwfl_errmsg(-1));
	dwfl_getmodules(x->dwfl, core_module_cb, x, 0);
	return x->error < 0 ? x->error : 0;
}

/* Every thread unwound; a thread that cannot be says why, in the model. */
static void unwind_threads(struct core_ctx *x)
{
	size_t i;

	if (core_attach_threads(x) < 0) {
		const char *msg = dwfl_errmsg(-1);

		for (i = 0; i < x->c->nthreads; i++)
			x->c->threads[i].unwind_error =
				prov_xasprintf("cannot attach to the core's threads: %s", msg);
	} else if (dwfl_getthreads(x->dwfl, core_thread_cb, x) < 0) {
		const char *msg = dwfl_errmsg(-1);

		for (i = 0; i < x->c->nthreads; i++)
			if (!x->c->threads[i].nframes && !x->c->threads[i].unwind_error)
				x->c->threads[i].unwind_error = prov_xstrdup(msg);
	}
}

int prov_core_analyze(struct prov_crash **out, const char *path,
		      const struct prov_core_opts *opts)
{
	struct core_ctx x;
	struct core_ctx *saved = core_current;
	int error;

	if ((error = ctx_init(&x, path, opts)) < 0)
		return error;
	if ((error = open_core(&x)) < 0 || (error = read_headers(&x)) < 0)
		goto cleanup;
	core_current = &x;
	if ((error = report_core_modules(&x)) < 0)
		goto cleanup;
	unwind_threads(&x);
	core_finish_analysis(&x);

	*out = x.c;
	x.c = NULL;
	error = 0;
cleanup:
	core_current = saved;
	core_ctx_release(&x);
	return error;
}
