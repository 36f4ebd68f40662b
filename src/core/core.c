/*
 * The core analyzer: notes parsed by hand from PT_NOTE, modules, threads and
 * frames from libdwfl. The only code that uses libdwfl (see core.h).
 *
 * Everything in a core is untrusted: every size and offset is checked
 * against the file and the note it sits in, every count is capped, the
 * unwinder is capped and guarded against loops.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <unistd.h>

#include "core.h"
#include "corevars.h"
#include "core-python.h"
#include "hang.h"
#include "ptrace-stop.h"
#include "dbgbudget.h"
#include "plaindebug.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/* C++ demangling from libstdc++, as eu-stack does. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif
#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif
#ifndef NT_ARM_PAC_MASK
#define NT_ARM_PAC_MASK 0x406
#endif
/* resumed unwindings (a call to nowhere, PAC-signed return addresses) */
#define MAX_RESUMES_PER_THREAD 64
#define MAX_RESUMES 2048

#define MAX_NOTES ((size_t)PROV_MAX_THREADS * 64)
#define MAX_FILE_ENTRIES ((size_t)1 << 20)
#define MAX_PHDRS ((size_t)1 << 20)
#define MAX_NAME 4096
/*
 * ELF images reported to libdwfl: libdw 0.188's dwfl_report_module walks
 * its whole module list on every call (quadratic: 24,000 images 2.3 s of
 * CPU, 64,000 37 s). Past this many (16,384: about 1 s) the images are
 * left out of the module list, which is then marked incomplete (report_modules).
 */
#define MAX_DWFL_MODULES 16384
/*
 * Past that budget these images go in first, whatever their address: those
 * holding a thread's pc or a word of its stack (a candidate return address),
 * at most KEEP_MAX of them, found in at most KEEP_STACK bytes of each
 * thread's stack and KEEP_STACK_TOTAL of all (mark_kept_images).
 */
#define KEEP_MAX (MAX_DWFL_MODULES / 2)
#define KEEP_STACK ((size_t)64 << 10)
#define KEEP_STACK_TOTAL ((size_t)8 << 20)

/* x86-64 user_regs_struct order, as pr_reg holds them. */
static const char *const x86_64_regs[] = {
	"r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
	"rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags",
	"rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs",
};
/* i386 user_regs_struct order. */
static const char *const i386_regs[] = {
	"ebx", "ecx", "edx", "esi", "edi", "ebp", "eax", "ds", "es", "fs",
	"gs", "orig_eax", "eip", "cs", "eflags", "esp", "ss",
};
/* aarch64 user_pt_regs order (struct user_pt_regs in asm/ptrace.h). */
static const char *const aarch64_regs[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
	"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
	"x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30",
	"sp", "pc", "pstate",
};

struct nt_file_entry {
	uint64_t start, end, pgoff;
	char *name;
	char *note;	/* a disagreement with the link map, for the module's note */
	int linkmap;	/* added from the dynamic linker's list: it was loaded */
};

struct core_seg {
	uint64_t vaddr, filesz, offset;
};

/* Per-module data, in the module's libdwfl userdata slot. */
struct mod_extra {
	char *file;	/* what find_elf opened for it */
	char *note;	/* why a candidate file was refused */
	char *package_note;	/* .note.package JSON read from the core's memory */
	int id_from_file;	/* the core lost the image: its build ID came from the file */
	char *origin;	/* where the module came from, when the notes disagree */
	int path_mismatch;	/* the file at the recorded path is another build */
};

struct pc_memo {
	int used;
	uint64_t pc, adj;
	struct prov_frame *frames;	/* templates: strings owned here */
	size_t n;
};

#define PC_MEMO_CAP 8192	/* a power of two */

/* is_sigtramp's answer for one (pc, isact): state 0 empty, 1 no, 2 yes */
struct tramp_memo {
	uint64_t key;
	int state;
};

#define TRAMP_MEMO_CAP 4096	/* a power of two */

/*
 * Where a frame's chain was unwound already: threads whose (pc, sp, frame
 * pointer) meet one unwound before have the same callers from there on (a
 * crafted core can point 1,000 threads at one 4,096-frame chain), so those
 * are copied, not unwound again.
 */
struct chain_memo {
	uint64_t pc, sp, fp;
	uint32_t thread, frame;	/* index into c->threads, first frame of that pc */
	int used;
};

/*
 * The core's blocks read last, for the unwinder's and the Python reader's
 * many small reads (a word of the stack each: libdwfl's own core reader
 * keeps every word it read in a list it searches linearly, quadratic on a
 * deep stack). Direct-mapped by file offset.
 */
#define RC_BLOCK 4096
#define RC_NBLOCKS 64

struct read_cache {
	uint64_t tag[RC_NBLOCKS];	/* file offset of the block + 1; 0: empty */
	size_t valid[RC_NBLOCKS];	/* bytes of the block in the file */
	unsigned char data[RC_NBLOCKS][RC_BLOCK];
};

struct core_ctx;

/* dwfl_attach_state's argument for one of the core's threads */
struct attach_thread {
	struct core_ctx *x;
	size_t index;	/* into c->threads */
};

struct core_ctx {
	const char *path;
	const struct prov_core_opts *opts;
	const char *sysroot;	/* NULL: the host */
	struct prov_crash *c;
	int fd;
	uint64_t size;
	Elf *elf;
	Dwfl *dwfl;
	int is64, swap, machine;
	unsigned int max_frames;

	int seen_siginfo, seen_prpsinfo;
	int first_cursig;	/* the first thread's pr_cursig: 0 in gcore's snapshots */
	int has_entry;
	uint64_t entry;
	int has_phdr;
	uint64_t phdr, phnum;	/* AT_PHDR, AT_PHNUM: the executable's program headers */
	uint64_t interp_base;	/* AT_BASE: the dynamic linker's load address; 0: none */
	int has_vdso;
	uint64_t vdso;	/* AT_SYSINFO_EHDR */
	Dwfl_Module *vdso_mod;
	unsigned char *vdso_image;
	size_t vdso_len;
	struct core_seg *segs;	/* PT_LOADs with bytes in the file */
	size_t nsegs, segs_alloc;
	size_t nreported;
	size_t over_budget;	/* images past MAX_DWFL_MODULES, left out */
	unsigned char *keep;	/* per files[] entry: an image that goes in first */
	size_t nkeep;	/* entries marked in keep */
	int keep_done;	/* keep was computed (once: resume_unwind reports again) */
	struct nt_file_entry *files;
	size_t nfiles;
	uint64_t file_page;	/* NT_FILE's page size: its offsets count pages */
	int files_from_link_map;	/* no NT_FILE: files[] is the dynamic linker's list */
	struct core_seg *noexec;	/* PT_LOADs not executable: vaddr, filesz = memsz */
	size_t nnoexec, noexec_alloc;

	struct mod_extra **extras;
	size_t nextras, extras_alloc;

	/* the thread being unwound */
	size_t cur;
	int have_last;
	uint64_t last_pc, last_sp;
	uint64_t synth_pc;	/* a caller frame made from [sp] after a jump to nowhere */
	uint64_t wild_ret, wild_sp;	/* a call to nowhere: its return address and sp */
	int resume_first;	/* the next frame is a caller's (a return address) */
	/* aarch64: a return address signed by pointer authentication (PAC),
	 * which libdwfl 0.188 does not strip: unwinding resumes from that
	 * frame's registers (x0-x30, sp) with the stripped pc (wild_ret) */
	int pac_resume;
	Dwarf_Word pac_regs[32];
	size_t nresumes;	/* resumed unwindings in the whole core (capped) */
	int has_pac_mask;
	uint64_t pac_insn_mask;	/* NT_ARM_PAC_MASK's insn_mask */

	/* Frames made for a pc, reused: threads parked in the same few places
	 * (a pool of workers in futex_wait) would look the same symbols and
	 * lines up again and again. */
	struct pc_memo *memo;
	size_t memo_cap, memo_used;
	struct tramp_memo *tramp;	/* open addressing, TRAMP_MEMO_CAP slots */
	size_t tramp_used;
	struct chain_memo *chain;	/* open addressing, power-of-two size */
	size_t chain_cap, chain_used;
	int chain_hit;	/* frame_cb copied the rest of the thread's chain */
	size_t total_frames;	/* frames in every thread so far */
	int total_cut;	/* PROV_MAX_TOTAL_FRAMES was reached */
	unsigned char fpregs[512];	/* x86-64 user_fpregs_struct of the crashing thread */
	int has_fpregs;
	struct prov_vars_pending *vars_pending;	/* entry values waiting for the caller */
	/* the crashing thread's first signal frame: what the kernel saved in it */
	int sig_seen;	/* a signal frame was met in the thread being unwound */
	int sig_next;	/* the next frame is the interrupted one */
	int sig_valid;	/* sig_regs and the siginfo below were read */
	int sig_derived;	/* sig_info came from the sigcontext's trap number */
	struct prov_reg sig_regs[32];
	size_t nsig_regs;
	uint64_t sig_rip;
	struct prov_signal sig_info;	/* name/code_name unset */
	unsigned char sig_fpregs[512];	/* the interrupted context's FXSAVE area */
	int sig_has_fpregs;
	int ok;	/* 0 once an error was stored by a callback */
	int error;
	int live;	/* a stopped live process: fd is its /proc/PID/mem */
	struct read_cache *rcache;	/* the core's blocks read last (NULL: pread each time) */
	struct attach_thread *attach;	/* dwfl_attach_state's per-thread arguments */
};

/* Callbacks get no user pointer for the whole Dwfl: one analysis at a time per thread. */
static __thread struct core_ctx *current;

/* ---- small helpers ---- */

static uint16_t rd16(const struct core_ctx *x, const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return x->swap ? __builtin_bswap16(v) : v;
}

static uint32_t rd32(const struct core_ctx *x, const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return x->swap ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const struct core_ctx *x, const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return x->swap ? __builtin_bswap64(v) : v;
}

static uint64_t rdword(const struct core_ctx *x, const unsigned char *p)
{
	return x->is64 ? rd64(x, p) : rd32(x, p);
}

static int host_is_le(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 1;
}

/* A string from a fixed-size field that may lack its NUL. */
static char *field_str(const unsigned char *p, size_t max)
{
	size_t n = strnlen((const char *)p, max);

	while (n > 0 && p[n - 1] == ' ')
		n--;
	return prov_xstrndup((const char *)p, n);
}

static char *demangle(const char *name)
{
	char *d;
	int status = -1;

	if (!name)
		return NULL;
	if (name[0] == '_' && name[1] == 'Z') {
		d = __cxa_demangle(name, NULL, NULL, &status);
		if (d && status == 0)
			return d;
		free(d);
	}
	return prov_xstrdup(name);
}

/* An ELF symbol without its version ("__libc_start_main@@GLIBC_2.34"), demangled. */
static char *symbol_name(const char *sym)
{
	const char *at = sym ? strchr(sym, '@') : NULL;
	char *plain, *d;

	if (!at || at == sym)
		return demangle(sym);
	plain = prov_xstrndup(sym, (size_t)(at - sym));
	d = demangle(plain);
	free(plain);
	return d;
}

/*
 * A line-table name joined with the CU's comp_dir when relative. libdw has
 * already prefixed names whose directory entry is the comp_dir (DWARF 5,
 * relative comp_dirs such as Debian's "./nptl"): do not prefix twice.
 */
static char *path_join(const char *dir, const char *name)
{
	size_t n;

	if (!name)
		return NULL;
	if (name[0] == '/' || !dir || !*dir)
		return prov_xstrdup(name);
	n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(name, dir, n) == 0 && name[n] == '/')
		return prov_xstrdup(name);
	return prov_xasprintf("%.*s/%s", (int)n, dir, name);
}

static struct mod_extra *mod_extra(struct core_ctx *x, void **userdata)
{
	if (!*userdata) {
		struct mod_extra *e = prov_xcalloc(1, sizeof(*e));

		PROV_ALLOC_GROW(x->extras, x->nextras + 1, x->extras_alloc);
		x->extras[x->nextras++] = e;
		*userdata = e;
	}
	return *userdata;
}

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

/* ---- notes ---- */

static int note_prstatus(struct core_ctx *x, const unsigned char *d, size_t n)
{
	struct prov_crash *c = x->c;
	struct prov_thread *t;
	size_t off_cursig = 12, off_pid = x->is64 ? 32 : 24;
	size_t off_regs = x->is64 ? 112 : 72, i, nregs = 0, wsz = x->is64 ? 8 : 4;
	const char *const *names = NULL;

	if (n < off_pid + 4)
		return 0;	/* too short to say anything: skip it */
	if (c->nthreads >= PROV_MAX_THREADS)
		return prov_error_set(PROV_ELIMIT, "'%s' has more than %d threads",
				      x->path, PROV_MAX_THREADS);
	t = prov_crash_add_thread(c);
	t->has_tid = 1;
	t->tid = (int32_t)rd32(x, d + off_pid);
	if (c->nthreads == 1) {
		uint16_t cursig;

		memcpy(&cursig, d + off_cursig, 2);
		if (x->swap)
			cursig = __builtin_bswap16(cursig);
		t->crashed = 1;
		c->has_crashed_thread = 1;
		c->crashed_thread = 0;
		x->first_cursig = cursig;
		if (!c->has_signal && cursig) {
			c->has_signal = 1;
			c->signal.number = cursig;
		}
	}
	if (x->machine == EM_X86_64 && x->is64) {
		names = x86_64_regs;
		nregs = sizeof(x86_64_regs) / sizeof(x86_64_regs[0]);
	} else if (x->machine == EM_386 && !x->is64) {
		names = i386_regs;
		nregs = sizeof(i386_regs) / sizeof(i386_regs[0]);
	} else if (x->machine == EM_AARCH64 && x->is64) {
		/* elf_prstatus has the same LP64 layout: pr_reg at 112 */
		names = aarch64_regs;
		nregs = sizeof(aarch64_regs) / sizeof(aarch64_regs[0]);
	}
	if (names && n >= off_regs + nregs * wsz) {
		t->regs = prov_xcalloc(nregs, sizeof(*t->regs));
		t->nregs = nregs;
		for (i = 0; i < nregs; i++) {
			memcpy(t->regs[i].name, names[i], strlen(names[i]) + 1);
			t->regs[i].value = rdword(x, d + off_regs + i * wsz);
		}
	}
	return 0;
}

static void note_prpsinfo(struct core_ctx *x, const unsigned char *d, size_t n)
{
	struct prov_crash *c = x->c;
	size_t off_pid = x->is64 ? 24 : 12, off_fname = x->is64 ? 40 : 28;
	size_t off_args = x->is64 ? 56 : 44;

	if (x->seen_prpsinfo || n < off_args + 80)
		return;
	x->seen_prpsinfo = 1;
	c->has_process = 1;
	c->process.has_pid = 1;
	c->process.pid = (int32_t)rd32(x, d + off_pid);
	free(c->process.executable);
	c->process.executable = field_str(d + off_fname, 16);
	free(c->process.cmdline);
	c->process.cmdline = field_str(d + off_args, 80);
}

static void note_siginfo(struct core_ctx *x, const unsigned char *d, size_t n)
{
	struct prov_signal *s = &x->c->signal;
	size_t off_union = x->is64 ? 16 : 12;
	int signo, code;

	if (x->seen_siginfo || n < off_union + (x->is64 ? 8 : 4))
		return;
	x->seen_siginfo = 1;
	signo = (int32_t)rd32(x, d);
	code = (int32_t)rd32(x, d + 8);
	if (signo <= 0 || signo > 128)
		return;
	x->c->has_signal = 1;
	s->number = signo;
	s->has_code = 1;
	s->code = code;
	s->has_addr = 0;
	s->has_sender = 0;
	if (prov_signal_has_fault_addr(signo, code)) {
		s->has_addr = 1;
		s->addr = rdword(x, d + off_union);
	} else if (code == SI_USER || code == SI_TKILL || code == SI_QUEUE) {
		s->has_sender = 1;
		s->sender_pid = (int32_t)rd32(x, d + off_union);
	}
}

static int note_file(struct core_ctx *x, const unsigned char *d, size_t n)
{
	size_t w = x->is64 ? 8 : 4, i;
	uint64_t count;
	const unsigned char *names, *end = d + n;

	if (x->files || n < 2 * w)
		return 0;
	count = rdword(x, d);
	if (count > (n - 2 * w) / (3 * w))
		return prov_error_set(PROV_EINPUT, "'%s' has a damaged file note (NT_FILE)",
				      x->path);
	if (count > MAX_FILE_ENTRIES)
		return prov_error_set(PROV_ELIMIT, "'%s' maps more than %zu files",
				      x->path, MAX_FILE_ENTRIES);
	x->files = prov_xcalloc(count ? count : 1, sizeof(*x->files));
	x->nfiles = count;
	x->file_page = rdword(x, d + w);
	names = d + 2 * w + count * 3 * w;
	for (i = 0; i < count; i++) {
		const unsigned char *e = d + 2 * w + i * 3 * w;
		size_t len;

		x->files[i].start = rdword(x, e);
		x->files[i].end = rdword(x, e + w);
		x->files[i].pgoff = rdword(x, e + 2 * w);
		if (names >= end)
			continue;
		len = strnlen((const char *)names, (size_t)(end - names));
		if (names + len >= end)
			break;	/* unterminated: the note was cut */
		x->files[i].name = prov_xstrndup((const char *)names, len < MAX_NAME ? len : MAX_NAME);
		names += len + 1;
	}
	{
		size_t named = 0;

		for (i = 0; i < count; i++)
			named += x->files[i].name != NULL;
		if (named < count) {
			/* damaged names: the modules they were are missing, and so
			 * is anything drawn from the module list being whole */
			x->c->modules_incomplete = 1;
			prov_warn("'%s': the file note (NT_FILE) names %zu of its %llu mappings (damaged); "
				  "the modules of the others are missing", x->path, named,
				  (unsigned long long)count);
		}
	}
	return 0;
}

static void note_auxv(struct core_ctx *x, const unsigned char *d, size_t n)
{
	size_t w = x->is64 ? 8 : 4, i;

	for (i = 0; i + 2 * w <= n; i += 2 * w) {
		uint64_t type = rdword(x, d + i);

		if (type == AT_NULL)
			break;
		if (type == AT_ENTRY) {
			x->has_entry = 1;
			x->entry = rdword(x, d + i + w);
		} else if (type == AT_PHDR) {
			x->has_phdr = 1;
			x->phdr = rdword(x, d + i + w);
		} else if (type == AT_PHNUM) {
			x->phnum = rdword(x, d + i + w);
		} else if (type == AT_BASE) {
			x->interp_base = rdword(x, d + i + w);
		} else if (type == AT_SYSINFO_EHDR) {
			x->has_vdso = 1;
			x->vdso = rdword(x, d + i + w);
		}
	}
}

static int parse_notes(struct core_ctx *x, const GElf_Phdr *ph, size_t *nnotes)
{
	Elf_Data *data;
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;
	int error;

	if (!ph->p_filesz)
		return 0;
	data = elf_getdata_rawchunk(x->elf, (int64_t)ph->p_offset, ph->p_filesz,
				    ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
	if (!data)
		return prov_error_set(PROV_EINPUT, "cannot read the notes of '%s': %s",
				      x->path, elf_errmsg(-1));
	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const unsigned char *buf = data->d_buf;
		const unsigned char *desc;
		int core_owner;

		if (++*nnotes > MAX_NOTES)
			return prov_error_set(PROV_ELIMIT, "'%s' has more than %zu notes",
					      x->path, MAX_NOTES);
		if (next <= off || desc_off > data->d_size ||
		    nh.n_descsz > data->d_size - desc_off || name_off > data->d_size ||
		    nh.n_namesz > data->d_size - name_off)
			break;
		desc = buf + desc_off;
		core_owner = nh.n_namesz == 5 && memcmp(buf + name_off, "CORE", 5) == 0;
		if (core_owner) {
			switch (nh.n_type) {
			case NT_PRSTATUS:
				if ((error = note_prstatus(x, desc, nh.n_descsz)) < 0)
					return error;
				break;
			case NT_PRPSINFO:
				note_prpsinfo(x, desc, nh.n_descsz);
				break;
			case NT_ARM_PAC_MASK:	/* { data_mask, insn_mask } */
				if (x->machine == EM_AARCH64 && !x->has_pac_mask && nh.n_descsz >= 16) {
					x->pac_insn_mask = rd64(x, desc + 8);
					x->has_pac_mask = 1;
				}
				break;
			case NT_SIGINFO:
				note_siginfo(x, desc, nh.n_descsz);
				break;
			case NT_FILE:
				if ((error = note_file(x, desc, nh.n_descsz)) < 0)
					return error;
				break;
			case NT_AUXV:
				note_auxv(x, desc, nh.n_descsz);
				break;
			case NT_FPREGSET:	/* the crashing thread's (the first) SSE registers */
				if (x->machine == EM_X86_64 && x->c->nthreads == 1 && !x->has_fpregs &&
				    nh.n_descsz >= sizeof(x->fpregs)) {
					memcpy(x->fpregs, desc, sizeof(x->fpregs));
					x->has_fpregs = 1;
				}
				break;
			}
		}
		off = next;
	}
	return 0;
}

/* ---- finding files (custom callbacks for --sysroot and --exe) ---- */

static const struct nt_file_entry *file_at(const struct core_ctx *x, uint64_t addr)
{
	size_t i;

	for (i = 0; i < x->nfiles; i++)
		if (x->files[i].name && addr >= x->files[i].start && addr < x->files[i].end)
			return &x->files[i];
	return NULL;
}

/* Modules are reported under the path the core recorded (NT_FILE). */
static const char *module_recorded_path(Dwfl_Module *mod)
{
	return dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
}

/*
 * Open `path` under `root` (NULL: the host) and check its build ID against
 * the core's. 1: accepted (fd, elf, name out); 0: not there or not ELF;
 * -1: a different build (a note is recorded for `modname`).
 */
static int try_candidate(struct core_ctx *x, void **userdata, const char *root,
			 const char *path, const unsigned char *want, int wantlen,
			 int *fd_out, Elf **elf_out, char **name_out)
{
	int fd;
	Elf *elf;
	const void *bits = NULL;
	ssize_t len;
	char *shown;

	struct stat st;

	/* O_NONBLOCK: a path from a core may name a FIFO; only regular files are read */
	fd = prov_root_open(root, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return 0;
	}
	shown = root ? prov_root_join(root, path) : prov_xstrdup(path);
	if (wantlen > 0) {
		len = dwelf_elf_gnu_build_id(elf, &bits);
		if (len != wantlen || memcmp(bits, want, (size_t)wantlen) != 0) {
			char *have = len > 0 ? prov_hex(bits, (size_t)len) : prov_xstrdup("none");
			char *core = prov_hex(want, (size_t)wantlen);

			struct mod_extra *ex = mod_extra(x, userdata);

			free(ex->note);
			ex->note = prov_xasprintf("build-id mismatch: %s has %s, core has %s",
						  shown, have, core);
			free(have);
			free(core);
			free(shown);
			elf_end(elf);
			close(fd);
			return -1;
		}
	}
	*fd_out = fd;
	*elf_out = elf;
	*name_out = shown;
	return 1;
}

/*
 * A relative path from the core's notes ("./lib.so": relative to the
 * process's directory, unknown here) as a path under the sysroot, never
 * the current directory: "/lib.so". NULL when nothing is left.
 */
static char *sysroot_relative(const char *path)
{
	for (;;) {
		if (path[0] == '.' && path[1] == '/')
			path += 2;
		else if (path[0] == '/')
			path++;
		else
			break;
	}
	return *path ? prov_xasprintf("/%s", path) : NULL;
}

static char *build_id_path(const char *dir, const unsigned char *bits, int len, const char *suffix)
{
	char *hex, *p;

	if (len < 2)
		return NULL;
	hex = prov_hex(bits, (size_t)len);
	p = prov_xasprintf("%s/.build-id/%.2s/%s%s", dir, hex, hex + 2, suffix);
	free(hex);
	return p;
}

static int module_is_main(const struct core_ctx *x, Dwfl_Module *mod)
{
	Dwarf_Addr lo = 0, hi = 0;

	if (!x->has_entry)
		return 0;
	dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	return x->entry >= lo && x->entry < hi;
}

/*
 * Under a sysroot libdwfl's own search (which asks debuginfod) is not used:
 * ask debuginfod here, by build ID, when DEBUGINFOD_URLS is set. The file
 * lands in debuginfod's cache (the command layer points it into ours).
 */
static int debuginfod_fd(const unsigned char *bits, int len, int executable, char **path)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	debuginfod_client *client;
	int fd;

	*path = NULL;
	if (!urls || !*urls || len <= 0)
		return -1;
	if (!(client = debuginfod_begin()))
		return -1;
	prov_dbgbudget_attach(client);	/* one time budget for the whole run */
	fd = executable ? debuginfod_find_executable(client, bits, len, path)
			: debuginfod_find_debuginfo(client, bits, len, path);
	debuginfod_end(client);
	if (fd < 0) {
		free(*path);
		*path = NULL;
		return -1;
	}
	/* a fresh download leaves the offset at the end */
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static int find_elf_cb(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct core_ctx *x = current;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len, fd = -1, r;
	Elf *elf = NULL;
	char *name = NULL;

	*elfp = NULL;
	if (!x)
		return -1;
	if (mod == x->vdso_mod && x->vdso_image) {
		*elfp = elf_memory((char *)x->vdso_image, x->vdso_len);
		*file_name = NULL;
		return -1;
	}
	/* libdwfl's name may be a soname; look files up by the path the core recorded */
	modname = module_recorded_path(mod);
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len < 0)
		len = 0;

	if (x->opts && x->opts->exe && module_is_main(x, mod)) {
		/* The user named it: the one file allowed outside the sysroot. */
		r = try_candidate(x, userdata, NULL, x->opts->exe, bits, len, &fd, &elf, &name);
		if (r != 0)
			goto done;
	}
	if (modname && modname[0] == '/') {
		r = try_candidate(x, userdata, x->sysroot, modname, bits, len, &fd, &elf, &name);
		if (r > 0)
			goto done;
		if (r < 0)
			mod_extra(x, userdata)->path_mismatch = 1;
		if (prov_ends_with(modname, " (deleted)")) {
			/* the file was replaced after it was mapped: the build ID decides */
			char *p = prov_xstrndup(modname, strlen(modname) - strlen(" (deleted)"));

			r = try_candidate(x, userdata, x->sysroot, p, bits, len, &fd, &elf, &name);
			free(p);
			if (r > 0)
				goto done;
			if (r < 0)
				mod_extra(x, userdata)->path_mismatch = 1;
		}
	} else if (modname && x->sysroot) {
		char *p = sysroot_relative(modname);

		r = p ? try_candidate(x, userdata, x->sysroot, p, bits, len, &fd, &elf, &name) : 0;
		free(p);
		if (r > 0)
			goto done;
		if (r < 0)
			mod_extra(x, userdata)->path_mismatch = 1;
	}
	if (len > 0) {
		static const char *const dirs[] = { "/usr/lib/debug", "/usr/lib", NULL };
		size_t i;

		for (i = 0; dirs[i]; i++) {
			char *p = build_id_path(dirs[i], bits, len, "");

			r = p ? try_candidate(x, userdata, x->sysroot, p, bits, len, &fd, &elf, &name) : 0;
			free(p);
			if (r > 0)
				goto done;
		}
	}
	if (!x->sysroot) {
		/* The host: libdwfl's own search (and debuginfod when configured). */
		return dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
	}
	if (len > 0 && (fd = debuginfod_fd(bits, len, 1, &name)) >= 0) {
		if (!(elf = elf_begin(fd, ELF_C_READ, NULL))) {
			close(fd);
			free(name);
			errno = 0;
			return -1;
		}
		goto done;
	}
	errno = 0;
	return -1;
done:
	if (fd < 0)
		return -1;
	free(mod_extra(x, userdata)->file);
	mod_extra(x, userdata)->file = prov_xstrdup(name);
	*file_name = name;
	*elfp = elf;
	return fd;
}

/* An ELF file whose build ID is `want` (any file when wantlen is 0): fd, or -1. */
static int open_debug_candidate(const char *root, const char *path,
				const unsigned char *want, int wantlen, char **name_out)
{
	int fd, ok = 0;
	Elf *elf;
	const void *bits;
	ssize_t len;

	struct stat st;

	fd = prov_root_open(root, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		if (wantlen <= 0)
			ok = 1;
		else {
			len = dwelf_elf_gnu_build_id(elf, &bits);
			ok = len == wantlen && memcmp(bits, want, (size_t)wantlen) == 0;
		}
	}
	elf_end(elf);
	if (!ok) {
		close(fd);
		return -1;
	}
	*name_out = prov_root_join(root, path);
	return fd;
}

static int find_debuginfo_any(Dwfl_Module *mod, void **userdata, const char *modname,
			      GElf_Addr base, const char *file_name, const char *debuglink_file,
			      GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct core_ctx *x = current;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len, fd = -1;
	char *p, *dir = NULL;
	size_t i;
	static const char *const bdirs[] = { "/usr/lib/debug", "", NULL };

	if (!x || !x->sysroot)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	modname = module_recorded_path(mod);
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len < 0)
		len = 0;
	for (i = 0; len > 0 && bdirs[i] && fd < 0; i++) {
		p = build_id_path(bdirs[i], bits, len, ".debug");
		if (p)
			fd = open_debug_candidate(x->sysroot, p, bits, len, debuginfo_file_name);
		free(p);
	}
	if (fd < 0 && debuglink_file && *debuglink_file && !strchr(debuglink_file, '/') &&
	    modname && modname[0] == '/') {
		const char *slash = strrchr(modname, '/');

		char *cand[3];

		dir = prov_xstrndup(modname, (size_t)(slash - modname));

		cand[0] = prov_xasprintf("/usr/lib/debug%s/%s", dir, debuglink_file);
		cand[1] = prov_xasprintf("%s/.debug/%s", dir, debuglink_file);
		cand[2] = prov_xasprintf("%s/%s", dir, debuglink_file);
		for (i = 0; i < 3; i++) {
			if (fd < 0 && strcmp(cand[i], modname) != 0)
				fd = open_debug_candidate(x->sysroot, cand[i], bits, len,
							  debuginfo_file_name);
			free(cand[i]);
		}
	}
	free(dir);
	if (fd < 0 && len > 0)
		fd = debuginfod_fd(bits, len, 0, debuginfo_file_name);
	if (fd < 0)
		errno = ENOENT;
	return fd;
}

/*
 * The debug file, or its uncompressed copy in the cache (plaindebug.h) when
 * the one libdwfl would find by build ID has compressed sections: opened
 * here, as libdwfl keeps the ELF of a file it found itself, and named as
 * libdwfl names it (the real path of /usr/lib/debug/.build-id/xx/y.debug).
 */
static int find_debuginfo_cb(Dwfl_Module *mod, void **userdata, const char *modname,
			     GElf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct core_ctx *x = current;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len, fd = -1;

	if (x && !x->sysroot && x->opts->plain_debug_dir &&
	    (len = dwfl_module_build_id(mod, &bits, &vaddr)) > 0) {
		char *p = build_id_path("/usr/lib/debug", bits, len, ".debug");
		char *real = p ? realpath(p, NULL) : NULL;

		if (real && (fd = prov_plain_debug_open(x->opts->plain_debug_dir, bits, len,
							real)) >= 0) {
			free(*debuginfo_file_name);
			*debuginfo_file_name = real;
			real = NULL;
		}
		free(real);
		free(p);
		if (fd >= 0)
			return fd;
	}
	return find_debuginfo_any(mod, userdata, modname, base, file_name, debuglink_file,
				  debuglink_crc, debuginfo_file_name);
}

/* ---- modules from the core's memory ---- */

static int core_read(const struct core_ctx *x, uint64_t addr, void *buf, size_t len);

/* The Python reader's view of the core's memory. */
static int core_mem_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	return core_read(arg, addr, buf, len);
}

/* len bytes of the core at off through the block cache: 0, or -1 when not all there */
static int cached_pread(const struct core_ctx *x, void *buf, size_t len, uint64_t off)
{
	struct read_cache *rc = x->rcache;
	uint64_t block = off & ~(uint64_t)(RC_BLOCK - 1);
	size_t slot = (size_t)(block / RC_BLOCK) % RC_NBLOCKS, at = (size_t)(off - block);
	ssize_t got;

	if (at + len > RC_BLOCK)
		return pread(x->fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
	if (rc->tag[slot] != block + 1) {
		got = pread(x->fd, rc->data[slot], RC_BLOCK, (off_t)block);
		if (got < 0) {
			rc->tag[slot] = 0;
			return -1;
		}
		rc->tag[slot] = block + 1;
		rc->valid[slot] = (size_t)got;
	}
	if (at + len > rc->valid[slot])
		return -1;
	memcpy(buf, rc->data[slot] + at, len);
	return 0;
}

/* Read [addr, addr+len) of the crashed process from the core: 0, or -1 when not all there. */
static int core_read(const struct core_ctx *x, uint64_t addr, void *buf, size_t len)
{
	size_t lo = 0, hi = x->nsegs;
	const struct core_seg *sg;
	uint64_t rel;

	if (x->live)
		return addr <= INT64_MAX && pread(x->fd, buf, len, (off_t)addr) == (ssize_t)len ?
			0 : -1;
	/* segs are sorted by vaddr: the last one starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->segs[mid].vaddr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	sg = &x->segs[lo - 1];
	rel = addr - sg->vaddr;
	if (rel >= sg->filesz || len > sg->filesz - rel || sg->offset + rel < sg->offset ||
	    sg->offset + rel > INT64_MAX)
		return -1;
	if (x->rcache && len <= RC_BLOCK)
		return cached_pread(x, buf, len, sg->offset + rel);
	return pread(x->fd, buf, len, (off_t)(sg->offset + rel)) == (ssize_t)len ? 0 : -1;
}

struct image_info {
	uint64_t end;	/* highest address of its PT_LOADs */
	uint64_t file_size;	/* up to the end of its section headers */
	unsigned char id[64];
	size_t idlen;
	uint64_t id_vaddr;
	char *package_note;	/* systemd's package note (FDO, 0xcafe1a7e): its JSON */
	int later_loads;	/* a PT_LOAD maps the file at a nonzero page offset */
	uint64_t data0;	/* a later PT_LOAD mapping file offset 0 (old linkers' data
			 * segment): its page's distance from the first's, or 0 */
};

#define NT_FDO_PACKAGING_METADATA 0xcafe1a7e
#define MAX_PACKAGE_NOTE 65536

#define ALIGN4(n) (((n) + 3) & ~(uint64_t)3)

/*
 * The notes of one note segment image: the GNU build ID and systemd's
 * package note (what systemd-coredump reads from a core too).
 */
static void scan_image_notes(const struct core_ctx *x, const unsigned char *d, size_t n,
			     uint64_t vaddr, struct image_info *out)
{
	uint64_t off = 0;

	while (off + 12 <= n) {
		uint32_t namesz = rd32(x, d + off), descsz = rd32(x, d + off + 4);
		uint32_t type = rd32(x, d + off + 8);
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
	type = rd16(x, eh + 16);
#define HALF(off) ((unsigned int)rd16(x, eh + (off)))
	if (x->is64) {
		phoff = rd64(x, eh + 32);
		shoff = rd64(x, eh + 40);
		phnum = HALF(56);
		shentsize = HALF(58);
		shnum = HALF(60);
		if (HALF(54) != entsize)
			return -1;
	} else {
		phoff = rd32(x, eh + 28);
		shoff = rd32(x, eh + 32);
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
		uint32_t ptype = rd32(x, p);
		uint64_t pvaddr = x->is64 ? rd64(x, p + 16) : rd32(x, p + 8);
		uint64_t memsz = x->is64 ? rd64(x, p + 40) : rd32(x, p + 20);
		uint64_t align = x->is64 ? rd64(x, p + 48) : rd32(x, p + 28);

		if (ptype != PT_LOAD)
			continue;
		if (!have_load) {
			have_load = 1;
			vaddr0 = align > 1 && (align & (align - 1)) == 0 ? pvaddr & ~(align - 1) : pvaddr;
			bias = type == ET_EXEC ? 0 : lo - vaddr0;
		} else if ((x->is64 ? rd64(x, p + 8) : rd32(x, p + 4)) < 4096 && !out->data0 &&
			   (pvaddr & ~(uint64_t)4095) > vaddr0) {
			out->data0 = (pvaddr & ~(uint64_t)4095) - vaddr0;
		}
		if ((x->is64 ? rd64(x, p + 8) : rd32(x, p + 4)) >= 4096)
			out->later_loads = 1;
		if (pvaddr + memsz >= pvaddr && bias + pvaddr + memsz > out->end)
			out->end = bias + pvaddr + memsz;
	}
	if (!have_load)
		goto cleanup;
	for (i = 0; i < phnum; i++) {
		const unsigned char *p = ph + i * entsize;
		uint64_t pvaddr = x->is64 ? rd64(x, p + 16) : rd32(x, p + 8);
		uint64_t filesz = x->is64 ? rd64(x, p + 32) : rd32(x, p + 16);

		if (rd32(x, p) != PT_NOTE || filesz == 0 || filesz > 65536)
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

static int read_image(const struct core_ctx *x, uint64_t lo, struct image_info *out)
{
	return read_image_at(x, lo, lo, out);
}

/*
 * The same facts from the file itself (under the sysroot), for a core that
 * lost the image's first page (truncated inside its memory segments): 0, or
 * -1 when the file is not there or not an ELF image of the core's class.
 */
static int read_image_file(const struct core_ctx *x, const char *path, uint64_t lo,
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
		char *p = x->sysroot ? sysroot_relative(path) : NULL;

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

/*
 * Did the dynamic loader map this image (what eu-unstrip reports), or did
 * the process merely mmap the file (gdb does this)? A loaded image's later
 * segments are mappings of the same file at a page offset within its range;
 * a plain mmap is one mapping of the whole file, and its range computed
 * from the program headers overlaps other mappings.
 */
/* NT_FILE entries by start address: image_was_loaded looks at a range, not all */
static const struct nt_file_entry *sort_files;

static int by_start(const void *a, const void *b)
{
	uint64_t x = sort_files[*(const size_t *)a].start, y = sort_files[*(const size_t *)b].start;

	return x < y ? -1 : x > y;
}

static size_t *files_by_start(const struct core_ctx *x)
{
	size_t *idx = prov_xmalloc((x->nfiles ? x->nfiles : 1) * sizeof(*idx)), i;

	for (i = 0; i < x->nfiles; i++)
		idx[i] = i;
	sort_files = x->files;
	qsort(idx, x->nfiles, sizeof(*idx), by_start);
	sort_files = NULL;
	return idx;
}

/*
 * The entries starting in [e->start, hi), through the sorted index: was
 * a scan of every entry for every image (64,000 modules took 31.6 s).
 */
static int image_was_loaded(const struct core_ctx *x, const size_t *idx, size_t i, uint64_t hi,
			    const struct image_info *img)
{
	const struct nt_file_entry *e = &x->files[i];
	size_t lo = 0, top = x->nfiles, k;
	int later = 0;

	while (lo < top) {	/* the first entry with start >= e->start */
		size_t mid = lo + (top - lo) / 2;

		if (x->files[idx[mid]].start < e->start)
			lo = mid + 1;
		else
			top = mid;
	}
	for (k = lo; k < x->nfiles && x->files[idx[k]].start < hi; k++) {
		size_t j = idx[k];
		const struct nt_file_entry *o = &x->files[j];

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
	size_t lo = 0, top = x->nfiles, k, steps;
	const struct nt_file_entry *e;

	while (lo < top) {	/* the first entry with start > addr */
		size_t mid = lo + (top - lo) / 2;

		if (x->files[idx[mid]].start <= addr)
			lo = mid + 1;
		else
			top = mid;
	}
	if (lo == 0)
		return (size_t)-1;
	k = lo - 1;
	e = &x->files[idx[k]];
	if (!e->name || addr >= e->end)
		return (size_t)-1;
	for (steps = 0; e->pgoff != 0 && k > 0 && steps < 64; steps++) {
		const struct nt_file_entry *p = &x->files[idx[k - 1]];

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

	if (x->nkeep >= KEEP_MAX || (i = image_at(x, idx, addr)) == (size_t)-1 || x->keep[i])
		return;
	x->keep[i] = 1;
	x->nkeep++;
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
	while (done < KEEP_STACK && *budget >= sizeof(page) && x->nkeep < KEEP_MAX) {
		/* up to the end of sp's page first, then whole pages */
		size_t len = sizeof(page) - (size_t)((sp + done) & (sizeof(page) - 1));

		if (sp + done < sp || core_read(x, sp + done, page, len) < 0)
			break;
		for (k = 0; k + w <= len; k += w)
			keep_image(x, idx, rdword(x, page + k));
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

	x->keep_done = 1;
	for (i = 0; i < x->nfiles; i++)
		if (x->files[i].name && x->files[i].pgoff == 0)
			images++;
	if (images <= MAX_DWFL_MODULES)
		return;
	x->keep = prov_xcalloc(x->nfiles, 1);
	if (c->has_crashed_thread && thread_reg(&c->threads[c->crashed_thread], 0, &pc) == 0)
		keep_image(x, idx, pc);
	for (i = 0; i < c->nthreads; i++) {
		if (thread_reg(&c->threads[i], 0, &pc) == 0)
			keep_image(x, idx, pc);
		if (thread_reg(&c->threads[i], 2, &pc) == 0)	/* a leaf's return address */
			keep_image(x, idx, pc);
	}
	if (x->has_entry)
		keep_image(x, idx, x->entry);
	if (c->has_crashed_thread)
		keep_stack_images(x, idx, &c->threads[c->crashed_thread], &budget);
	for (i = 0; i < c->nthreads; i++)
		if (!c->has_crashed_thread || i != c->crashed_thread)
			keep_stack_images(x, idx, &c->threads[i], &budget);
}

/*
 * read_image memoized by address: 65,000 NT_FILE entries naming one image
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
		m->rc[s] = read_image(x, lo, &m->img[s]);
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
	if (x->nreported >= PROV_MAX_MODULES)
		return prov_error_set(PROV_ELIMIT, "'%s' has more than %d modules",
				      x->path, PROV_MAX_MODULES);
	mod = dwfl_report_module(x->dwfl, name, lo, hi);
	if (!mod)
		return 0;	/* overlaps another: keep the first */
	x->nreported++;
	if (img->idlen)
		dwfl_module_report_build_id(mod, img->id, img->idlen, img->id_vaddr);
	if (img->package_note) {
		void **userdata = NULL;

		dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		if (userdata)
			mod_extra(x, userdata)->package_note = prov_xstrdup(img->package_note);
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
	const struct nt_file_entry *e = &x->files[i];
	size_t j;

	for (j = i + 1; j < x->nfiles && j < i + 64; j++) {
		const struct nt_file_entry *d = &x->files[j];

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
	const struct nt_file_entry *e = &x->files[i];
	size_t j;
	int segments = x->c->partial || x->files_from_link_map || e->linkmap;

	if (x->opts && x->opts->exe && x->has_entry && x->entry >= e->start && x->entry < e->end &&
	    read_image_file(x, x->opts->exe, e->start, img) == 0)
		return 0;
	for (j = i + 1; !segments && j < x->nfiles && j < i + 64; j++) {
		if (!x->files[j].name || strcmp(x->files[j].name, e->name) != 0)
			break;
		segments = x->files[j].pgoff != 0;
	}
	return segments ? read_image_file(x, e->name, e->start, img) : -1;
}

/*
 * Report modules ourselves rather than with dwfl_core_file_report: libdwfl
 * 0.188 opens the paths a core names on the host (no sysroot hook), which
 * must not happen with --sysroot. A module is an ELF image at a file
 * mapping of offset 0 (NT_FILE), plus the vdso (AT_SYSINFO_EHDR); files are
 * found later by find_elf_cb, under the sysroot. Each image is placed at
 * its first mapping and listed once: a later mapping of the same file at
 * offset 0 inside its range (a data segment sharing the file's first page)
 * is not another module.
 */
static int report_modules(struct core_ctx *x)
{
	struct image_info img = { 0 };
	struct image_memo memo = { 0 };
	size_t i, j, skipped = 0, *idx = files_by_start(x);
	int error = 0;
	const char *last = NULL;	/* the last module reported from files[], and its range */
	uint64_t last_lo = 0, last_hi = 0;
	int last_linkmap = 0;	/* placed by the dynamic linker's list */
	size_t kept_left;	/* images marked to go in, not reached yet */

	if (!x->keep_done)
		mark_kept_images(x, idx);
	kept_left = x->nkeep;
	for (i = 0; i < x->nfiles; i++) {
		const struct nt_file_entry *e = &x->files[i];
		uint64_t hi;
		int kept = x->keep && x->keep[i];
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
		for (j = i + 1; j < x->nfiles; j++) {
			if (!x->files[j].name || strcmp(x->files[j].name, e->name) != 0)
				break;
			if (x->files[j].pgoff == 0)
				break;	/* another mapping of the same file */
			if (x->files[j].end > hi && x->files[j].start >= e->start)
				hi = x->files[j].end;
		}
		if (img.end > hi && img.end - e->start < ((uint64_t)1 << 32))
			hi = img.end;
		if (!x->files_from_link_map && !e->linkmap && !image_was_loaded(x, idx, i, hi, &img))
			continue;
		/* past the budget (less the places kept for the marked images
		 * further on) only those and the executable (it holds AT_ENTRY) go in */
		if (!kept && x->nreported + kept_left >= MAX_DWFL_MODULES && hi > e->start &&
		    !(x->has_entry && x->entry >= e->start && x->entry < hi)) {
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
			if (userdata && e->note && !mod_extra(x, userdata)->origin)
				mod_extra(x, userdata)->origin = prov_xstrdup(e->note);
		}
		if (mod && from_file) {
			void **userdata = NULL;

			dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
			if (userdata)
				mod_extra(x, userdata)->id_from_file = 1;
		}
	}
	if (skipped && !x->over_budget) {
		x->c->modules_incomplete = 1;
		if (x->nkeep)
			prov_warn("'%s' maps more than %d ELF images: %zu of them are left out of the "
				  "module list (kept first: the %zu holding the threads' pcs or words "
				  "of their stacks)", x->path, MAX_DWFL_MODULES, skipped, x->nkeep);
		else
			prov_warn("'%s' maps more than %d ELF images: %zu of them are left out of the "
				  "module list", x->path, MAX_DWFL_MODULES, skipped);
	}
	x->over_budget = skipped;
	if (x->has_vdso && read_image(x, x->vdso, &img) == 0) {
		size_t len = img.file_size > img.end - x->vdso ? img.file_size : img.end - x->vdso;

		if (len > 0 && len <= ((size_t)1 << 20)) {
			x->vdso_image = prov_xmalloc(len);
			if (core_read(x, x->vdso, x->vdso_image, len) < 0 &&
			    (len = img.end - x->vdso) > 0)
				core_read(x, x->vdso, x->vdso_image, len);
			x->vdso_len = len;
			/* its range is its PT_LOADs' (as eu-unstrip's), the image may
			 * run on with section headers */
			uint64_t span = img.end - x->vdso;

			if (span == 0 || span > len)
				span = len;
			if ((error = report_one(x, "[vdso]", x->vdso, x->vdso + ((span + 4095) & ~(uint64_t)4095),
						&img, &x->vdso_mod)) < 0)
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

/* ---- frames ---- */

static char *die_function_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		s = dwarf_formstring(&attr);
	if (s)
		return demangle(s);
	s = dwarf_diename(die);
	return s ? prov_xstrdup(s) : NULL;
}

static const char *cu_comp_dir(Dwarf_Die *cudie)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr(cudie, DW_AT_comp_dir, &attr))
		return NULL;
	return dwarf_formstring(&attr);
}

/* The call site of an inlined subroutine: file (new string) and line. */
static void call_site(Dwarf_Die *cudie, Dwarf_Die *inl, char **file, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word fileidx = 0, lineno = 0;
	Dwarf_Files *files;
	size_t nfiles;
	const char *name = NULL;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(inl, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &lineno) == 0 &&
	    lineno <= INT32_MAX)
		*line = (int)lineno;
	if (dwarf_attr(inl, DW_AT_call_file, &attr) && dwarf_formudata(&attr, &fileidx) == 0 &&
	    dwarf_getsrcfiles(cudie, &files, &nfiles) == 0 && fileidx < nfiles)
		name = dwarf_filesrc(files, fileidx, NULL, NULL);
	if (name)
		*file = path_join(cu_comp_dir(cudie), name);
}

#define MAX_SCOPE_DEPTH 128

/* Does the DIE say where its code is (low_pc/high_pc, ranges, entry_pc)? */
static int die_has_code_attrs(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/*
 * The scopes holding addr below `parent`, appended outermost first: the
 * subprogram, then lexical blocks and inlined subroutines down to the
 * innermost. Walks the DIE tree itself: libdw's dwarf_getscopes misses the
 * inline chains of GCC's LTO units (abstract origins in other units).
 */
static void walk_scopes(Dwarf_Die *parent, Dwarf_Addr addr, Dwarf_Die **v, size_t *n,
			size_t *alloc, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_SCOPE_DEPTH || dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (!die_has_code_attrs(&child)) {
				/* a block without ranges of its own: what it holds may have some */
				if (tag == DW_TAG_lexical_block) {
					size_t before = *n;

					walk_scopes(&child, addr, v, n, alloc, depth + 1);
					if (*n > before)
						return;
				}
				break;
			}
			if (dwarf_haspc(&child, addr) != 1)
				break;
			PROV_ALLOC_GROW(*v, *n + 1, *alloc);
			(*v)[(*n)++] = child;
			walk_scopes(&child, addr, v, n, alloc, depth + 1);
			return;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type: {
			/* C++ member functions and namespaced code */
			size_t before = *n;

			if (depth > 8)
				break;
			walk_scopes(&child, addr, v, n, alloc, depth + 1);
			if (*n > before)
				return;
			break;
		}
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* dwarf_getscopes' shape (innermost first, up to the subprogram): count, or 0 when none. */
static int die_scopes(Dwarf_Die *cudie, Dwarf_Addr addr, Dwarf_Die **out)
{
	Dwarf_Die *v = NULL, *r;
	size_t n = 0, alloc = 0, i;

	*out = NULL;
	walk_scopes(cudie, addr, &v, &n, &alloc, 0);
	if (!n || dwarf_tag(&v[0]) != DW_TAG_subprogram) {
		free(v);
		return 0;
	}
	r = prov_xcalloc(n, sizeof(*r));
	for (i = 0; i < n; i++)
		r[i] = v[n - 1 - i];
	free(v);
	*out = r;
	return (int)n;
}

static struct prov_frame *new_frame(struct core_ctx *x, struct prov_thread *t)
{
	struct prov_frame *f;

	if (t->nframes >= x->max_frames) {
		t->truncated = 1;
		return NULL;
	}
	if (x->total_frames >= PROV_MAX_TOTAL_FRAMES) {
		t->truncated = 1;
		x->total_cut = 1;
		return NULL;
	}
	f = prov_thread_add_frame(t);
	if (f)
		x->total_frames++;
	return f;
}

static void frame_copy(struct prov_frame *dst, const struct prov_frame *src)
{
	int index = dst->index;

	*dst = *src;
	dst->index = index;
	dst->function = prov_xstrdup_or_null(src->function);
	dst->module = prov_xstrdup_or_null(src->module);
	dst->file = prov_xstrdup_or_null(src->file);
	dst->repo_path = NULL;
	dst->path_rule = NULL;
	dst->component = NULL;
	dst->has_vars = 0;
	dst->args = dst->locals = NULL;
	dst->nargs = dst->nlocals = 0;
	dst->located_by = NULL;
}

static struct pc_memo *memo_slot(struct core_ctx *x, uint64_t pc, uint64_t adj)
{
	size_t i, mask;

	if (!x->memo) {
		x->memo = prov_xcalloc(PC_MEMO_CAP, sizeof(*x->memo));
		x->memo_cap = PC_MEMO_CAP;
	}
	mask = x->memo_cap - 1;
	for (i = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 40) & mask;; i = (i + 1) & mask) {
		struct pc_memo *e = &x->memo[i];

		if (!e->used || (e->pc == pc && e->adj == adj))
			return e;
	}
}

/* After unwinding: the note of the total frames cap, chain memo freed. */
static void chain_finish(struct core_ctx *x)
{
	free(x->chain);
	x->chain = NULL;
	x->chain_cap = x->chain_used = 0;
	if (x->total_cut && x->c && !x->c->threads_note) {
		x->c->threads_note = prov_xasprintf("more than %d frames in all threads: the "
						    "threads marked truncated were cut short or "
						    "not unwound", PROV_MAX_TOTAL_FRAMES);
		prov_warn("'%s': %s", x->path, x->c->threads_note);
	}
}

static void memo_free(struct core_ctx *x)
{
	size_t i, k;

	for (i = 0; x->memo && i < x->memo_cap; i++) {
		for (k = 0; k < x->memo[i].n; k++) {
			free(x->memo[i].frames[k].function);
			free(x->memo[i].frames[k].module);
			free(x->memo[i].frames[k].file);
		}
		free(x->memo[i].frames);
	}
	free(x->memo);
	x->memo = NULL;
}

static int add_pc_frames_uncached(struct core_ctx *x, struct prov_thread *t, Dwarf_Addr pc,
				  Dwarf_Addr adj);

static size_t chain_hash(uint64_t pc, uint64_t sp, uint64_t fp)
{
	uint64_t h = (pc * 0x9e3779b97f4a7c15ull) ^ (sp * 0xc2b2ae3d27d4eb4full) ^
		     (fp * 0x165667b19e3779f9ull);

	return (size_t)(h ^ (h >> 29));
}

/* The entry of (pc, sp, fp), or the free slot where it would go. */
static struct chain_memo *chain_slot(struct core_ctx *x, uint64_t pc, uint64_t sp, uint64_t fp)
{
	size_t i, mask = x->chain_cap - 1;

	for (i = chain_hash(pc, sp, fp) & mask;; i = (i + 1) & mask) {
		struct chain_memo *e = &x->chain[i];

		if (!e->used || (e->pc == pc && e->sp == sp && e->fp == fp))
			return e;
	}
}

/* Remember that the frames of (pc, sp, fp) start at frame `frame` of the current thread. */
static void chain_remember(struct core_ctx *x, uint64_t pc, uint64_t sp, uint64_t fp, size_t frame)
{
	struct chain_memo *e;

	if (x->chain_used + 1 >= x->chain_cap / 2) {
		struct chain_memo *old = x->chain;
		size_t i, n = x->chain_cap;

		x->chain_cap = n ? 2 * n : 1024;
		x->chain = prov_xcalloc(x->chain_cap, sizeof(*x->chain));
		for (i = 0; i < n; i++)
			if (old[i].used)
				*chain_slot(x, old[i].pc, old[i].sp, old[i].fp) = old[i];
		free(old);
	}
	e = chain_slot(x, pc, sp, fp);
	if (e->used)
		return;
	e->used = 1;
	e->pc = pc;
	e->sp = sp;
	e->fp = fp;
	e->thread = (uint32_t)x->cur;
	e->frame = (uint32_t)frame;
	x->chain_used++;
}

/*
 * The current thread met a frame another thread has: copy that thread's
 * frames from there to its end, with the way its chain ended (truncated,
 * or why it stopped). 0, or -1 at a cap.
 */
static int chain_copy(struct core_ctx *x, struct prov_thread *t, const struct chain_memo *e)
{
	size_t k;

	for (k = e->frame; k < x->c->threads[e->thread].nframes; k++) {
		struct prov_frame *f = new_frame(x, t);
		const struct prov_thread *src;

		if (!f)
			return -1;
		src = &x->c->threads[e->thread];	/* new_frame may not move threads, but be plain */
		frame_copy(f, &src->frames[k]);
	}
	if (x->c->threads[e->thread].truncated)
		t->truncated = 1;
	if (x->c->threads[e->thread].unwind_error && !t->unwind_error)
		t->unwind_error = prov_xstrdup(x->c->threads[e->thread].unwind_error);
	return 0;
}

/* Emit the frames of one pc: inlined ones first (innermost first), then the real one. 0 or -1 at the cap. */
static int add_pc_frames(struct core_ctx *x, struct prov_thread *t, Dwarf_Addr pc, Dwarf_Addr adj)
{
	struct pc_memo *e = memo_slot(x, pc, adj);
	size_t first = t->nframes, k;

	if (e->used) {
		for (k = 0; k < e->n; k++) {
			struct prov_frame *f = new_frame(x, t);

			if (!f)
				return -1;
			frame_copy(f, &e->frames[k]);
		}
		return 0;
	}
	if (add_pc_frames_uncached(x, t, pc, adj) < 0)
		return -1;
	/* keep a free slot or two so that lookups always end */
	if (x->memo_used + 1 < x->memo_cap - x->memo_cap / 4) {
		e->used = 1;
		e->pc = pc;
		e->adj = adj;
		e->n = t->nframes - first;
		e->frames = prov_xcalloc(e->n ? e->n : 1, sizeof(*e->frames));
		for (k = 0; k < e->n; k++)
			frame_copy(&e->frames[k], &t->frames[first + k]);
		x->memo_used++;
	}
	return 0;
}

/*
 * dwfl_addrmodule, but only a module whose range holds addr: libdwfl 0.188
 * builds its address table from the modules alone (we report no segments)
 * and gives the highest module for every address above it (a pc in the
 * vsyscall page was "[vdso]", a jump past the last library was in it).
 */
static Dwfl_Module *addrmodule(Dwfl *dwfl, Dwarf_Addr addr)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr lo = 0, hi = 0;

	if (m && dwfl_module_info(m, NULL, &lo, &hi, NULL, NULL, NULL, NULL) &&
	    (addr < lo || addr >= hi))
		return NULL;
	return m;
}

static int add_pc_frames_uncached(struct core_ctx *x, struct prov_thread *t, Dwarf_Addr pc,
				  Dwarf_Addr adj)
{
	Dwfl_Module *m = addrmodule(x->dwfl, adj);
	const char *modname = NULL, *sname = NULL;
	GElf_Off off = 0;
	GElf_Sym sym;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cudie = NULL, *scopes = NULL;
	int nscopes = 0, i, line = 0, col = 0, error = 0;
	char *file = NULL, *subprogram = NULL;
	struct prov_frame *f;

	if (m) {
		Dwfl_Line *ln;

		modname = module_recorded_path(m);
		sname = dwfl_module_addrinfo(m, adj, &off, &sym, NULL, NULL, NULL);
		cudie = dwfl_module_addrdie(m, adj, &bias);
		if (cudie)
			nscopes = die_scopes(cudie, adj - bias, &scopes);
		if (nscopes <= 0 && cudie) {
			free(scopes);
			scopes = NULL;
			nscopes = dwarf_getscopes(cudie, adj - bias, &scopes);
		}
		if (nscopes < 0)
			nscopes = 0;
		ln = dwfl_module_getsrc(m, adj);
		if (ln) {
			const char *src = dwfl_lineinfo(ln, NULL, &line, &col, NULL, NULL);

			if (src)
				file = path_join(dwfl_line_comp_dir(ln), src);
		}
	}
	for (i = 0; i < nscopes; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine) {
			char *cfile;
			int cline;

			f = new_frame(x, t);
			if (!f) {
				error = -1;
				goto cleanup;
			}
			f->has_pc = 1;
			f->pc = pc;
			f->function = die_function_name(&scopes[i]);
			f->module = prov_xstrdup_or_null(modname);
			f->file = file;
			f->line = line;
			f->column = col;
			f->inlined = 1;
			file = NULL;
			call_site(cudie, &scopes[i], &cfile, &cline);
			file = cfile;
			line = cline;
			col = 0;
		} else if (tag == DW_TAG_subprogram) {
			subprogram = die_function_name(&scopes[i]);
			break;
		}
	}
	f = new_frame(x, t);
	if (!f) {
		error = -1;
		goto cleanup;
	}
	f->has_pc = 1;
	f->pc = pc;
	/* DWARF names what gdb names (__libc_start_main_impl); else the symbol */
	if (subprogram) {
		f->function = subprogram;
		subprogram = NULL;
	} else if (sname) {
		f->function = symbol_name(sname);
	}
	if (sname) {
		f->has_offset = 1;
		f->offset = off + (pc - adj);
	}
	f->module = prov_xstrdup_or_null(modname);
	f->file = file;
	file = NULL;
	f->line = line;
	f->column = col;
cleanup:
	free(file);
	free(subprogram);
	free(scopes);
	return error;
}

static int core_read_cb(void *arg, uint64_t addr, void *buf, size_t len)
{
	return core_read(arg, addr, buf, len);
}

#define VARS_FRAMES 32	/* frames of the crashing thread whose variables are read */

/* 1 when addr lies in a segment the core says is not executable (a stack, data). */
static int addr_not_code(const struct core_ctx *x, uint64_t addr)
{
	size_t i;

	for (i = 0; i < x->nnoexec; i++)
		if (addr >= x->noexec[i].vaddr && addr - x->noexec[i].vaddr < x->noexec[i].filesz)
			return 1;
	return 0;
}

/* ---- signal frames ---- */

/* Code bytes at addr from the module's ELF file (a core holds no text pages). 0 or -1. */
static int module_code(Dwfl_Module *m, Dwarf_Addr addr, unsigned char *buf, size_t len)
{
	Dwarf_Addr bias = 0;
	Elf *elf = m ? dwfl_module_getelf(m, &bias) : NULL;
	size_t i, nph;

	if (!elf || elf_getphdrnum(elf, &nph) != 0 || addr < bias)
		return -1;
	addr -= bias;
	for (i = 0; i < nph && i < MAX_PHDRS; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    addr < ph.p_vaddr || addr - ph.p_vaddr >= ph.p_filesz ||
		    len > ph.p_filesz - (addr - ph.p_vaddr))
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset + (addr - ph.p_vaddr)), len,
					 ELF_T_BYTE);
		if (!d || !d->d_buf || d->d_size != len)
			return -1;
		memcpy(buf, d->d_buf, len);
		return 0;
	}
	return -1;
}

/*
 * 1 when pc is the kernel's signal return trampoline, the return address
 * of every signal handler: glibc's and musl's __restore_rt, the vDSO's
 * __kernel_rt_sigreturn / __vdso_rt_sigreturn, or, without a symbol (a
 * stripped libc has it only in .symtab), its x86-64 code (mov $15, %rax;
 * syscall: rt_sigreturn) in the module's file or the core, looked at when
 * libdwfl marked the frame an activation (the trampoline's CFI says it is a
 * signal frame) or it has no symbol.
 */
static int is_sigtramp(const struct core_ctx *x, Dwarf_Addr pc, bool isact)
{
	static const unsigned char rt_x86_64[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };
	Dwfl_Module *m = addrmodule(x->dwfl, pc);
	const char *name = m ? dwfl_module_addrname(m, pc) : NULL;
	unsigned char code[sizeof(rt_x86_64)];

	if (name && (strcmp(name, "__restore_rt") == 0 ||
		     strcmp(name, "__kernel_rt_sigreturn") == 0 ||
		     strcmp(name, "__vdso_rt_sigreturn") == 0))
		return 1;
	if (x->machine != EM_X86_64 || (name && !isact))
		return 0;
	return (module_code(m, pc, code, sizeof(code)) == 0 ||
		core_read(x, pc, code, sizeof(code)) == 0) &&
	       memcmp(code, rt_x86_64, sizeof(code)) == 0;
}

/*
 * is_sigtramp, remembered per (pc, isact): its symbol look-up is a linear
 * search of the module's symbol table (libdwfl's addrsym), 63% of a
 * 61-thread Python core whose threads are parked at the same few pcs.
 */
static int is_sigtramp_memo(struct core_ctx *x, Dwarf_Addr pc, bool isact)
{
	uint64_t key = ((uint64_t)pc << 1) | (isact ? 1 : 0);
	size_t i, mask = TRAMP_MEMO_CAP - 1;
	int r;

	if (!x->tramp)
		x->tramp = prov_xcalloc(TRAMP_MEMO_CAP, sizeof(*x->tramp));
	for (i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & mask;; i = (i + 1) & mask) {
		struct tramp_memo *e = &x->tramp[i];

		if (!e->state)
			break;
		if (e->key == key)
			return e->state == 2;
	}
	r = is_sigtramp(x, pc, isact);
	/* keep free slots so that lookups always end */
	if (x->tramp_used + 1 < TRAMP_MEMO_CAP - TRAMP_MEMO_CAP / 4) {
		x->tramp[i].key = key;
		x->tramp[i].state = r ? 2 : 1;
		x->tramp_used++;
	}
	return r;
}

/* x86-64: where the kernel's struct rt_sigframe keeps things, from the
 * trampoline frame's sp (the handler returned: sp is &frame->uc). */
#define UC_MCONTEXT 40	/* struct ucontext: uc_flags, uc_link, uc_stack */
#define UC_SIGINFO 304	/* struct siginfo after the kernel's struct ucontext */
#define SC_SIZE 256	/* struct sigcontext */

/* Offsets of the general registers in the x86-64 struct sigcontext. */
static int sigcontext_offset(const char *name)
{
	static const struct {
		const char *name;
		int off;
	} sc[] = {
		{ "r8", 0 }, { "r9", 8 }, { "r10", 16 }, { "r11", 24 }, { "r12", 32 },
		{ "r13", 40 }, { "r14", 48 }, { "r15", 56 }, { "rdi", 64 }, { "rsi", 72 },
		{ "rbp", 80 }, { "rbx", 88 }, { "rdx", 96 }, { "rax", 104 }, { "rcx", 112 },
		{ "rsp", 120 }, { "rip", 128 }, { "eflags", 136 },
		/* 16-bit selectors */
		{ "cs", 144 }, { "gs", 146 }, { "fs", 148 }, { "ss", 150 },
	};
	size_t i;

	for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++)
		if (strcmp(sc[i].name, name) == 0)
			return sc[i].off;
	return -1;
}

/*
 * The signal of an interrupted context. The kernel writes the siginfo into
 * the frame only for an SA_SIGINFO handler (LLVM's, faulthandler's and
 * glog's are not): without one, the sigcontext's trap number, error code
 * and cr2 (what the kernel kept of the last fault it signalled) say it:
 * page fault -> SIGSEGV at cr2 (SEGV_ACCERR when the page was present),
 * general protection -> SIGSEGV SI_KERNEL, alignment check -> SIGBUS
 * BUS_ADRALN, divide error -> SIGFPE, invalid opcode -> SIGILL. 1 when
 * known; sig_derived says it came from the trap number.
 */
static int read_siginfo(struct core_ctx *x, const unsigned char *info, uint64_t trapno,
			uint64_t err, uint64_t cr2)
{
	struct prov_signal *s = &x->sig_info;
	int signo = (int)rd32(x, info), code = (int)rd32(x, info + 8);
	int fault = signo == SIGSEGV || signo == SIGBUS;

	memset(s, 0, sizeof(*s));
	x->sig_derived = 0;
	if (signo > 0 && signo < 65 && code >= -7 && code <= 0x80 &&
	    (!fault || trapno != 14 || code <= 0 || rd64(x, info + 16) == cr2)) {
		s->number = signo;
		s->has_code = 1;
		s->code = code;
		if (code <= 0) {
			s->has_sender = 1;
			s->sender_pid = (int32_t)rd32(x, info + 16);
		} else if (prov_signal_has_fault_addr(signo, code)) {
			s->has_addr = 1;
			s->addr = rd64(x, info + 16);
		}
		return 1;
	}
	x->sig_derived = 1;
	s->has_code = 1;
	switch (trapno) {
	case 14:	/* #PF */
		s->number = SIGSEGV;
		s->code = (err & 1) ? 2 : 1;	/* SEGV_ACCERR : SEGV_MAPERR */
		s->has_addr = 1;
		s->addr = cr2;
		return 1;
	case 13:	/* #GP */
		s->number = SIGSEGV;
		s->code = 0x80;	/* SI_KERNEL */
		return 1;
	case 17:	/* #AC */
		s->number = SIGBUS;
		s->code = 1;	/* BUS_ADRALN */
		return 1;
	case 0:	/* #DE */
		s->number = SIGFPE;
		s->code = 1;	/* FPE_INTDIV */
		return 1;
	case 6:	/* #UD */
		s->number = SIGILL;
		s->code = 2;	/* ILL_ILLOPN */
		return 1;
	default:
		return 0;
	}
}

/*
 * The interrupted context of the crashing thread's first signal frame: the
 * registers in the sigcontext (the thread's own for what the kernel does not
 * save there: fs_base, gs_base, ds, es; no orig_rax), its FXSAVE area, and
 * the siginfo the kernel delivered. Read from the core (untrusted): used
 * only when the next frame's pc is the saved rip.
 */
static void read_sigframe(struct core_ctx *x, const struct prov_thread *t, uint64_t sp)
{
	unsigned char sc[SC_SIZE], info[128];
	uint64_t fpstate;
	size_t i, k;

	x->sig_valid = 0;
	x->nsig_regs = 0;
	x->sig_has_fpregs = 0;
	if (x->machine != EM_X86_64 || !x->is64 || sp > UINT64_MAX - UC_SIGINFO - sizeof(info) ||
	    core_read(x, sp + UC_MCONTEXT, sc, sizeof(sc)) < 0 ||
	    core_read(x, sp + UC_SIGINFO, info, sizeof(info)) < 0)
		return;
	for (i = 0; i < sizeof(x86_64_regs) / sizeof(x86_64_regs[0]); i++) {
		const char *name = x86_64_regs[i];
		int off = sigcontext_offset(name);
		struct prov_reg *r = &x->sig_regs[x->nsig_regs];

		if (strcmp(name, "orig_rax") == 0)
			continue;
		memcpy(r->name, name, strlen(name) + 1);
		if (off >= 144) {
			r->value = rd16(x, sc + off);
		} else if (off >= 0) {
			r->value = rd64(x, sc + off);
		} else {
			for (k = 0; k < t->nregs && strcmp(t->regs[k].name, name) != 0; k++)
				;
			if (k == t->nregs)
				continue;
			r->value = t->regs[k].value;
		}
		if (strcmp(name, "rip") == 0)
			x->sig_rip = r->value;
		x->nsig_regs++;
	}
	fpstate = rd64(x, sc + 184);
	if (fpstate && core_read(x, fpstate, x->sig_fpregs, sizeof(x->sig_fpregs)) == 0)
		x->sig_has_fpregs = 1;
	x->sig_valid = read_siginfo(x, info, rd64(x, sc + 160), rd64(x, sc + 152), rd64(x, sc + 176));
}

/*
 * Whether the crash is the interrupted context rather than the handler: the
 * signal saved in the frame is a fault the kernel raised at an instruction
 * (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS with si_code > 0) or an
 * abort, and the signal the process died of was sent by the handler
 * (raise, tgkill, abort: si_code <= 0). A handler that faults itself (the
 * kernel's si_code) is the crash: frame #0 stays the crash site.
 */
static int sigframe_is_crash(const struct core_ctx *x)
{
	const struct prov_signal *d = &x->c->signal;
	int s = x->sig_info.number;
	int fault = (s == SIGSEGV || s == SIGBUS || s == SIGILL || s == SIGFPE || s == SIGTRAP ||
		     s == SIGSYS) && x->sig_info.code > 0;

	if (!x->sig_valid || !(fault || s == SIGABRT))
		return 0;
	/* a signal read from the trap number is the one re-raised, or abort's */
	if (x->sig_derived && x->c->has_signal && d->number != s && d->number != SIGABRT)
		return 0;
	return !x->c->has_signal || !d->has_code || d->code <= 0;
}

/* The crash site is the interrupted frame: its registers and signal become the crash's. */
static void take_sigframe(struct core_ctx *x, struct prov_thread *t, size_t first)
{
	struct prov_crash *c = x->c;
	struct prov_signal *s = &c->signal;
	const char *name;

	t->has_crash_frame = 1;
	t->crash_frame = first;
	if (!t->handler_regs) {
		t->handler_regs = t->regs;
		t->nhandler_regs = t->nregs;
		t->regs = prov_xcalloc(x->nsig_regs, sizeof(*t->regs));
		memcpy(t->regs, x->sig_regs, x->nsig_regs * sizeof(*t->regs));
		t->nregs = x->nsig_regs;
	}
	if (c->has_signal && !c->has_delivered) {
		c->has_delivered = 1;
		c->delivered = *s;
	}
	*s = x->sig_info;
	c->has_signal = 1;
	name = prov_signal_name(s->number);
	s->name = name ? prov_xstrdup(name) : prov_xasprintf("SIG%d", s->number);
	s->code_name = prov_xstrdup_or_null(prov_signal_code_name(s->number, s->code));
}

/* The trampoline's frame: "<signal handler called>". 0, or -1 at a cap. */
static int add_signal_frame(struct core_ctx *x, struct prov_thread *t, Dwarf_Addr pc, uint64_t sp)
{
	Dwfl_Module *m = addrmodule(x->dwfl, pc);
	struct prov_frame *f = new_frame(x, t);

	if (!f)
		return -1;
	f->has_pc = 1;
	f->pc = pc;
	f->function = prov_xstrdup("<signal handler called>");
	f->signal_frame = 1;
	f->module = m ? prov_xstrdup_or_null(module_recorded_path(m)) : NULL;
	if (t->crashed)	/* the interrupted frame is not the handler's caller */
		prov_core_frame_vars(t, t->nframes - 1, 0, &x->vars_pending, NULL, NULL, pc, pc,
				     NULL, core_read_cb, x);
	if (t->crashed && !x->sig_seen && sp) {
		read_sigframe(x, t, sp);
		x->sig_next = 1;
	}
	x->sig_seen = 1;
	return 0;
}

/* Every frame above a thread's last signal frame runs in a signal handler. */
static void mark_handler_frames(struct prov_thread *t)
{
	size_t i, last = 0;

	for (i = 0; i < t->nframes; i++)
		if (t->frames[i].signal_frame)
			last = i;
	for (i = 0; i < last; i++)
		if (!t->frames[i].signal_frame)
			t->frames[i].in_handler = 1;
}

/*
 * aarch64: a caller's pc with pointer-authentication bits (above the 48-bit
 * user address space, or NT_ARM_PAC_MASK's insn_mask) whose stripped value
 * is in a module: keep this frame's registers and the stripped pc for
 * thread_cb to resume from (libdwfl 0.188 would go on from the signed
 * value: wrong frames). 1 when so.
 */
static int pac_signed(struct core_ctx *x, Dwfl_Frame *state, Dwarf_Addr pc, Dwarf_Word sp)
{
	uint64_t stripped = x->has_pac_mask ? pc & ~x->pac_insn_mask : pc & 0xffffffffffffULL;
	unsigned int i;

	if (stripped == pc || !sp || !addrmodule(x->dwfl, stripped))
		return 0;
	for (i = 0; i < 32; i++)
		if (dwfl_frame_reg(state, i, &x->pac_regs[i]) != 0)
			x->pac_regs[i] = 0;	/* not known here: CFI restores what callers need */
	x->pac_regs[31] = sp;
	x->pac_resume = 1;
	x->wild_ret = stripped;
	x->wild_sp = sp;
	return 1;
}

/*
 * The stack pointer's DWARF register number (0: not known here). With the
 * sp, the same pc twice is a loop only when the sp is the same too: libdwfl's
 * frame-pointer unwinding of aarch64 and ppc64 gives the leaf's caller twice.
 */
static unsigned int dwarf_sp_reg(int machine)
{
	switch (machine) {
	case EM_X86_64: return 7;
	case EM_386: return 4;
	case EM_AARCH64: return 31;
	case EM_PPC: case EM_PPC64: return 1;
	case EM_S390: return 15;
	case EM_SPARC: case EM_SPARCV9: return 14;
	default: return 0;
	}
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct core_ctx *x = arg;
	struct prov_thread *t = &x->c->threads[x->cur];
	Dwarf_Addr pc, adj;
	bool isact;
	Dwarf_Word sp = 0;
	unsigned int spreg = dwarf_sp_reg(x->machine);
	size_t first;

	if (!dwfl_frame_pc(state, &pc, &isact)) {
		free(t->unwind_error);
		t->unwind_error = prov_xasprintf("cannot get the pc of frame %zu: %s",
						 t->nframes, dwfl_errmsg(-1));
		return DWARF_CB_ABORT;
	}
	if (x->resume_first) {
		isact = false;	/* a return address: look its call up, not the next insn */
		x->resume_first = 0;
	}
	if (spreg && dwfl_frame_reg(state, spreg, &sp) != 0)
		sp = 0;
	if (t->nframes && x->machine == EM_AARCH64 && pac_signed(x, state, pc, sp))
		return DWARF_CB_ABORT;	/* thread_cb resumes from the stripped pc */
	if (x->have_last && pc == x->last_pc && sp == x->last_sp) {
		free(t->unwind_error);
		t->unwind_error = prov_xasprintf("unwinder loop: frame at pc 0x%" PRIx64
						 " repeats", (uint64_t)pc);
		return DWARF_CB_ABORT;
	}
	/* a caller's pc in a stack or data segment is the unwinder's guess, not a frame */
	if (t->nframes && !isact && addr_not_code(x, pc)) {
		free(t->unwind_error);
		t->unwind_error = prov_xasprintf("frame %zu: pc 0x%" PRIx64 " is in non-executable "
						 "memory (not a return address)", t->nframes,
						 (uint64_t)pc);
		return DWARF_CB_ABORT;
	}
	x->have_last = 1;
	x->last_pc = pc;
	x->last_sp = sp;
	if (x->synth_pc && pc == x->synth_pc)
		return DWARF_CB_OK;	/* libdwfl found the caller we made up: once is enough */
	if (sp) {
		unsigned int fpreg = x->machine == EM_X86_64 ? 6 : x->machine == EM_386 ? 5 :
				     x->machine == EM_AARCH64 ? 29 : 0;
		Dwarf_Word fp = 0;
		struct chain_memo *e;

		if (fpreg && dwfl_frame_reg(state, fpreg, &fp) != 0)
			fp = 0;
		e = x->chain_cap ? chain_slot(x, pc, sp, fp) : NULL;
		if (e && e->used && e->thread == x->cur) {
			free(t->unwind_error);
			t->unwind_error = prov_xasprintf("unwinder loop: frame at pc 0x%" PRIx64
							 " repeats", (uint64_t)pc);
			return DWARF_CB_ABORT;
		}
		/*
		 * The crashing thread's own frames carry its variables: unwind
		 * it all. A chain cut by its thread's cap is used only when it
		 * reaches this thread's cap too.
		 */
		if (e && e->used && !t->crashed &&
		    (!x->c->threads[e->thread].truncated ||
		     t->nframes + (x->c->threads[e->thread].nframes - e->frame) >= x->max_frames)) {
			x->chain_hit = 1;
			chain_copy(x, t, e);
			return DWARF_CB_ABORT;
		}
		if (!e || !e->used)
			chain_remember(x, pc, sp, fp, t->nframes);
	}
	if (t->nframes && is_sigtramp_memo(x, pc, isact))
		return add_signal_frame(x, t, pc, sp) < 0 ? DWARF_CB_ABORT : DWARF_CB_OK;
	adj = (isact || pc == 0) ? pc : pc - 1;
	first = t->nframes;
	if (add_pc_frames(x, t, pc, adj) < 0)
		return DWARF_CB_ABORT;
	if (x->sig_next) {
		x->sig_next = 0;
		if (x->sig_valid && pc == x->sig_rip && sigframe_is_crash(x))
			take_sigframe(x, t, first);
	}
	if (t->crashed && first <= VARS_FRAMES) {
		const unsigned char *fp = NULL;

		if (t->has_crash_frame && first == t->crash_frame)
			fp = x->sig_has_fpregs ? x->sig_fpregs : NULL;
		else if (first == 0 && x->has_fpregs)
			fp = x->fpregs;
		prov_core_frame_vars(t, first, first < VARS_FRAMES, &x->vars_pending, state,
				     addrmodule(x->dwfl, adj), pc, adj, fp, core_read_cb, x);
	}
	/*
	 * A call through a NULL or wild pointer leaves pc outside every module,
	 * with no CFI to unwind by; libdwfl then falls back to the frame
	 * pointer and skips the caller. The call just pushed the return
	 * address, so [sp] names the caller (what gdb does too): stop here and
	 * unwind again from the caller (resume_unwind).
	 */
	if (t->nframes && !t->frames[0].inlined && t->nframes == 1 && x->machine == EM_X86_64 &&
	    sp && !addrmodule(x->dwfl, pc)) {
		unsigned char raw[8];
		uint64_t ret;

		if (core_read(x, sp, raw, 8) == 0 && (ret = rd64(x, raw)) &&
		    addrmodule(x->dwfl, ret)) {
			x->wild_ret = ret;
			x->wild_sp = sp;
			return DWARF_CB_ABORT;
		}
	}
	/*
	 * aarch64: blr keeps the return address in x30 (lr), not on the stack;
	 * libdwfl's fallback there takes the frame record at x29 as the
	 * nowhere function's own and so skips the caller's caller.
	 */
	if (t->nframes == 1 && !t->frames[0].inlined && x->machine == EM_AARCH64 &&
	    sp && !addrmodule(x->dwfl, pc)) {
		Dwarf_Word lr;

		if (dwfl_frame_reg(state, 30, &lr) == 0 && lr && addrmodule(x->dwfl, lr)) {
			x->wild_ret = lr;
			x->wild_sp = sp;
			return DWARF_CB_ABORT;
		}
	}
	return DWARF_CB_OK;
}

/* ---- unwinding again from the caller of a call to nowhere ---- */

struct resume_arg {
	struct core_ctx *x;
	pid_t tid;
	/* x86-64 DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip;
	 * aarch64: x0-x30 sp, and pc apart */
	Dwarf_Word regs[32];
	unsigned int nregs;
	int has_pc;
	Dwarf_Word pc;
};

static pid_t resume_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct resume_arg *a = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = a;
	return a->tid;
}

static bool resume_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct resume_arg *a = arg;
	unsigned char raw[8];

	(void)dwfl;
	if (core_read(a->x, addr, raw, 8) < 0)
		return false;
	*result = rd64(a->x, raw);
	return true;
}

static bool resume_set_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct resume_arg *a = thread_arg;

	if (!dwfl_thread_state_registers(thread, 0, a->nregs, a->regs))
		return false;
	if (a->has_pc)
		dwfl_thread_state_register_pc(thread, a->pc);
	return true;
}

static const Dwfl_Thread_Callbacks resume_callbacks = {
	.next_thread = resume_next_thread,
	.memory_read = resume_memory_read,
	.set_initial_registers = resume_set_registers,
};

/* A thread's x86-64 registers in DWARF numbering (rax..r15, rip): 0, or -1 if one is missing. */
static int x86_64_dwarf_regs(const struct prov_thread *t, Dwarf_Word regs[17])
{
	static const char *const dw[17] = { "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp",
		"rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip" };
	size_t i, k;

	for (i = 0; i < 17; i++) {
		for (k = 0; k < t->nregs; k++)
			if (strcmp(t->regs[k].name, dw[i]) == 0)
				break;
		if (k == t->nregs)
			return -1;
		regs[i] = t->regs[k].value;
	}
	return 0;
}

/*
 * The core's threads for libdwfl, from the NT_PRSTATUS notes already read,
 * in the same order as dwfl_core_file_attach gives them; the stack is read
 * through core_read's block cache rather than libdwfl's core reader, which
 * looks every word up again among all the words read before.
 */
static pid_t core_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct core_ctx *x = arg;
	const struct attach_thread *prev = *thread_argp;
	size_t i = prev ? prev->index + 1 : 0;

	(void)dwfl;
	if (i >= x->c->nthreads)
		return 0;
	*thread_argp = &x->attach[i];
	return (pid_t)x->c->threads[i].tid;
}

static bool core_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct core_ctx *x = arg;
	unsigned char raw[8];

	(void)dwfl;
	if (core_read(x, addr, raw, 8) < 0)
		return false;
	*result = rd64(x, raw);
	return true;
}

static bool core_set_registers(Dwfl_Thread *thread, void *thread_arg)
{
	const struct attach_thread *a = thread_arg;
	Dwarf_Word regs[17];

	if (x86_64_dwarf_regs(&a->x->c->threads[a->index], regs) < 0)
		return false;
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks core_thread_callbacks = {
	.next_thread = core_next_thread,
	.memory_read = core_memory_read,
	.set_initial_registers = core_set_registers,
};

/*
 * Give libdwfl the core's threads: our own callbacks for x86-64 cores whose
 * threads all have their registers, libdwfl's core reader otherwise.
 * 0, or -1 with libdwfl's error.
 */
static int attach_threads(struct core_ctx *x)
{
	struct prov_crash *c = x->c;
	Dwarf_Word regs[17];
	size_t i;

	if (x->machine != EM_X86_64 || !x->is64 || x->swap || !c->nthreads)
		return dwfl_core_file_attach(x->dwfl, x->elf) < 0 ? -1 : 0;
	for (i = 0; i < c->nthreads; i++)
		if (x86_64_dwarf_regs(&c->threads[i], regs) < 0)
			return dwfl_core_file_attach(x->dwfl, x->elf) < 0 ? -1 : 0;
	x->attach = prov_xcalloc(c->nthreads, sizeof(*x->attach));
	for (i = 0; i < c->nthreads; i++) {
		x->attach[i].x = x;
		x->attach[i].index = i;
	}
	if (!dwfl_attach_state(x->dwfl, x->elf,
			       (pid_t)(c->process.has_pid ? c->process.pid : c->threads[0].tid),
			       &core_thread_callbacks, x))
		return -1;
	return 0;
}

static const Dwfl_Callbacks core_callbacks;


/* A Dwfl with our callbacks; libdwfl's own debuginfod queries share the run's time budget. */
static Dwfl *core_dwfl_begin(void)
{
	Dwfl *dwfl = dwfl_begin(&core_callbacks);
	const char *urls = getenv("DEBUGINFOD_URLS");

	if (dwfl && urls && *urls)
		prov_dbgbudget_attach(dwfl_get_debuginfod_client(dwfl));
	return dwfl;
}
/*
 * The thread's registers at the call to nowhere, as if it had returned at
 * once (pc = the return address, sp past it; nothing else ran), unwound by
 * a second Dwfl over the same modules: the whole caller chain, as gdb shows.
 * 0, or -1 when that could not be set up (the caller keeps [sp] alone).
 */
static int resume_unwind(struct core_ctx *x, struct prov_thread *t, pid_t tid)
{
	struct resume_arg a;
	Dwfl *saved = x->dwfl;
	Dwfl_Module *saved_vdso = x->vdso_mod;
	unsigned char *saved_image = x->vdso_image;
	size_t saved_len = x->vdso_len, saved_reported = x->nreported, i, k;
	int ok = -1;

	memset(&a, 0, sizeof(a));
	a.x = x;
	a.tid = tid;
	if (x->machine == EM_AARCH64 && x->pac_resume) {
		/* the signed frame's own registers, its pc stripped */
		a.nregs = 32;
		memcpy(a.regs, x->pac_regs, sizeof(a.regs));
		a.has_pc = 1;
		a.pc = x->wild_ret;
	} else if (x->machine == EM_AARCH64) {
		/* blr pushed nothing: the caller resumes at lr with the same sp */
		a.nregs = 32;
		for (i = 0; i < 32; i++) {
			const char *name = aarch64_regs[i];

			for (k = 0; k < t->nregs && strcmp(t->regs[k].name, name) != 0; k++)
				;
			if (k == t->nregs)
				return -1;
			a.regs[i] = t->regs[k].value;
		}
		a.regs[31] = x->wild_sp;
		a.has_pc = 1;
		a.pc = x->wild_ret;
	} else {
		a.nregs = 17;
		if (x86_64_dwarf_regs(t, a.regs) < 0)
			return -1;
		a.regs[7] = x->wild_sp + 8;
		a.regs[16] = x->wild_ret;
	}
	/* taken: the unwinding below may ask for another resume */
	x->wild_ret = 0;
	x->pac_resume = 0;
	x->nresumes++;

	x->vdso_image = NULL;
	x->vdso_mod = NULL;
	x->vdso_len = 0;
	x->nreported = 0;
	x->dwfl = core_dwfl_begin();
	if (!x->dwfl)
		goto cleanup;
	dwfl_report_begin(x->dwfl);
	if (report_modules(x) < 0 || dwfl_report_end(x->dwfl, NULL, NULL) != 0)
		goto cleanup;
	if (!dwfl_attach_state(x->dwfl, x->elf, tid, &resume_callbacks, &a))
		goto cleanup;
	x->have_last = 0;
	x->resume_first = 1;
	if (dwfl_getthread_frames(x->dwfl, tid, frame_cb, x) < 0 && !t->unwind_error &&
	    dwfl_errno() != 0)
		t->unwind_error = prov_xstrdup(dwfl_errmsg(-1));
	ok = 0;
cleanup:
	x->resume_first = 0;
	if (x->dwfl)
		dwfl_end(x->dwfl);
	free(x->vdso_image);
	x->dwfl = saved;
	x->vdso_mod = saved_vdso;
	x->vdso_image = saved_image;
	x->vdso_len = saved_len;
	x->nreported = saved_reported;
	return ok;
}

static int thread_cb(Dwfl_Thread *thread, void *arg)
{
	struct core_ctx *x = arg;
	struct prov_crash *c = x->c;
	pid_t tid = dwfl_thread_tid(thread);
	struct prov_thread *t;
	size_t i, n;
	int rc;

	for (i = 0; i < c->nthreads; i++)
		if (c->threads[i].has_tid && c->threads[i].tid == tid)
			break;
	if (i == c->nthreads) {
		if (c->nthreads >= PROV_MAX_THREADS)
			return DWARF_CB_ABORT;
		t = prov_crash_add_thread(c);
		t->has_tid = 1;
		t->tid = tid;
	}
	if (c->threads[i].nframes)
		return DWARF_CB_OK;	/* the same tid twice: keep the first */
	if (x->total_frames >= PROV_MAX_TOTAL_FRAMES) {
		c->threads[i].truncated = 1;	/* not unwound: the report has its frames */
		x->total_cut = 1;
		return DWARF_CB_OK;
	}
	x->cur = i;
	x->have_last = 0;
	x->synth_pc = 0;
	x->wild_ret = 0;
	x->pac_resume = 0;
	x->chain_hit = 0;
	x->sig_seen = x->sig_next = x->sig_valid = 0;
	rc = dwfl_thread_getframes(thread, frame_cb, x);
	t = &c->threads[i];
	x->sig_next = 0;
	if (x->chain_hit)
		return DWARF_CB_OK;
	for (n = 0; x->wild_ret; n++) {
		uint64_t ret = x->wild_ret;

		if (n >= MAX_RESUMES_PER_THREAD || x->nresumes >= MAX_RESUMES) {
			free(t->unwind_error);
			t->unwind_error = prov_xasprintf("stopped at 0x%" PRIx64 ": too many "
							 "pointer-authenticated or wild return "
							 "addresses to unwind from", ret);
			x->wild_ret = 0;
			x->pac_resume = 0;
			break;
		}
		if (resume_unwind(x, t, tid) < 0) {
			if (add_pc_frames(x, t, ret, ret - 1) == 0)
				x->synth_pc = ret;
			x->wild_ret = 0;
			x->pac_resume = 0;
		}
		t = &c->threads[i];
	}
	if (n)
		return DWARF_CB_OK;
	if (rc < 0 && !t->unwind_error)
		t->unwind_error = prov_xstrdup(dwfl_errmsg(-1));
	return DWARF_CB_OK;
}

/* A truncated core: say which threads lost their stack (why their unwinding stopped). */
static void note_missing_stacks(struct core_ctx *x)
{
	size_t i, k;

	for (i = 0; i < x->c->nthreads; i++) {
		struct prov_thread *t = &x->c->threads[i];
		unsigned char raw[8];
		char *msg;

		for (k = 0; k < t->nregs; k++)
			if (!strcmp(t->regs[k].name, "rsp") || !strcmp(t->regs[k].name, "esp") ||
			    !strcmp(t->regs[k].name, "sp"))	/* aarch64 */
				break;
		if (k == t->nregs || core_read(x, t->regs[k].value, raw, x->is64 ? 8 : 4) == 0)
			continue;
		msg = prov_xasprintf("its stack memory (sp 0x%" PRIx64 ") is missing from the "
				     "truncated core%s%s", t->regs[k].value,
				     t->unwind_error ? ": " : "",
				     t->unwind_error ? t->unwind_error : "");
		free(t->unwind_error);
		t->unwind_error = msg;
	}
}

/* ---- modules ---- */

static int module_cb(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
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
static int debug_file_cb(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
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

static int module_cmp(const void *a, const void *b)
{
	const struct prov_module *ma = a, *mb = b;

	if (ma->start != mb->start)
		return ma->start < mb->start ? -1 : 1;
	return 0;
}

/* ---- the analysis ---- */

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
	x->swap = (head[EI_DATA] == ELFDATA2LSB) != host_is_le();
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
			PROV_ALLOC_GROW(x->noexec, x->nnoexec + 1, x->noexec_alloc);
			x->noexec[x->nnoexec].vaddr = ph.p_vaddr;
			x->noexec[x->nnoexec].filesz = ph.p_memsz;
			x->nnoexec++;
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
					PROV_ALLOC_GROW(x->segs, x->nsegs + 1, x->segs_alloc);
					x->segs[x->nsegs].vaddr = ph.p_vaddr;
					x->segs[x->nsegs].filesz = x->size - ph.p_offset;
					x->segs[x->nsegs].offset = ph.p_offset;
					x->nsegs++;
				}
			}
			continue;
		}
		if (ph.p_type == PT_NOTE && (error = parse_notes(x, &ph, &nnotes)) < 0)
			return error;
		if (ph.p_type == PT_LOAD && ph.p_filesz) {
			PROV_ALLOC_GROW(x->segs, x->nsegs + 1, x->segs_alloc);
			x->segs[x->nsegs].vaddr = ph.p_vaddr;
			x->segs[x->nsegs].filesz = ph.p_filesz;
			x->segs[x->nsegs].offset = ph.p_offset;
			x->nsegs++;
		}
	}
	if (x->nsegs > 1)
		qsort(x->segs, x->nsegs, sizeof(*x->segs), seg_cmp);
	if (!x->c->nthreads)
		return prov_error_set(PROV_EINPUT, "'%s' has no thread status notes (NT_PRSTATUS): "
				      "damaged or truncated", x->path);
	x->c->partial = truncated_mem;
	/*
	 * The kernel dumps a core for a fatal signal and records it as every
	 * thread's pr_cursig; gcore takes a snapshot of a live process and
	 * records none (its NT_SIGINFO only says the process was stopped).
	 */
	if (!x->first_cursig) {
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

/* ---- modules from the dynamic linker's list (cores without NT_FILE) ---- */

#define MAX_LINK_MAP 1024	/* entries of r_map walked: a damaged list may loop */

static void add_file(struct core_ctx *x, size_t *alloc, uint64_t start, char *name)
{
	size_t i;

	for (i = 0; i < x->nfiles; i++)
		if (x->files[i].start == start) {	/* each module once */
			free(name);
			return;
		}
	PROV_ALLOC_GROW(x->files, x->nfiles + 1, *alloc);
	/* end: report_modules takes the image's */
	x->files[x->nfiles] = (struct nt_file_entry){ .start = start, .end = start + 1, .name = name };
	x->nfiles++;
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
		phoff = x->is64 ? rd64(x, eh + 32) : rd32(x, eh + 28);
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

		if (x->files[idx[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	e = &x->files[idx[lo - 1]];
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

	if ((e && e->start == start && e->pgoff == 0) || (x->has_vdso && start == x->vdso) ||
	    read_image(x, start, &img) < 0) {
		free(img.package_note);
		free(name);
		return;
	}
	free(img.package_note);
	if (e) {
		note = prov_xasprintf("the dynamic linker's list places it at 0x%" PRIx64 ", where "
				      "the file note (NT_FILE) maps '%s' at offset 0x%" PRIx64,
				      start, e->name, e->pgoff * x->file_page);
		prov_warn("'%s': the dynamic linker's list places '%s' at 0x%" PRIx64 ", where the "
			  "file note (NT_FILE) maps '%s' at offset 0x%" PRIx64 "; listed as the "
			  "dynamic linker has it", x->path, name, start, e->name,
			  e->pgoff * x->file_page);
	} else {
		note = prov_xstrdup("from the dynamic linker's list: the file note (NT_FILE) lacks it");
		prov_warn("'%s': the file note (NT_FILE) lacks '%s' (0x%" PRIx64 "), which the "
			  "dynamic linker's list names; added", x->path, name, start);
	}
	/* e points into files[]: not used past here */
	PROV_ALLOC_GROW(x->files, x->nfiles + 1, *alloc);
	x->files[x->nfiles] = (struct nt_file_entry){ .start = start, .end = start + 1,
		.name = name, .note = note, .linkmap = 1 };
	x->nfiles++;
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

	if (!x->has_phdr || !x->phnum || x->phnum > 512)
		return 0;
	exe = exe_name(x);
	tab = prov_xmalloc(x->phnum * esz);
	if (core_read(x, x->phdr, tab, x->phnum * esz) < 0) {
		/* not dumped (QEMU writes no read-only text): the file's */
		if (exe_phdrs_from_file(x, exe, tab, x->phnum * esz) < 0) {
			free(tab);
			free(exe);
			return 0;
		}
		from_file = 1;
	}
	for (i = 0; i < x->phnum; i++) {
		const unsigned char *ph = tab + i * esz;
		uint64_t vaddr = x->is64 ? rd64(x, ph + 16) : rd32(x, ph + 8);
		uint64_t memsz = x->is64 ? rd64(x, ph + 40) : rd32(x, ph + 20);

		if (rd32(x, ph) == PT_PHDR) {	/* the bias */
			bias = x->phdr - vaddr;
			have_phdr = 1;
		}
		if (rd32(x, ph) == PT_LOAD && vaddr < lo)
			lo = vaddr;
		if (rd32(x, ph) == PT_DYNAMIC) {
			dyn = vaddr;
			dynsz = memsz;
		}
	}
	free(tab);
	if (!have_phdr && lo != UINT64_MAX && x->phdr >= lo + ehsz) {
		/* no PT_PHDR (static executables): the program headers follow
		 * the ELF header of the first PT_LOAD; check that header when
		 * the core has it */
		unsigned char eh[64];
		uint64_t at = x->phdr - ehsz;

		if (from_file || (core_read(x, at, eh, ehsz) == 0 && memcmp(eh, ELFMAG, SELFMAG) == 0 &&
				  (x->is64 ? rd64(x, eh + 32) : rd32(x, eh + 28)) == ehsz)) {
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
		alloc = x->nfiles;
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
		tag = rdword(x, d);
		if (tag == DT_NULL)
			break;
		if (tag == DT_DEBUG)
			rdebug = rdword(x, d + w);
	}
	/* struct r_debug { int r_version; struct link_map *r_map; ... } */
	if (!rdebug || core_read(x, rdebug + w, d, w) < 0)
		return !dyn;	/* static: the executable is all there is */
	lm = rdword(x, d);
	for (n = 0; lm && n < MAX_LINK_MAP; n++) {
		uint64_t l_addr, l_name;
		char *name;
		struct image_info img = { 0 };

		if (core_read(x, lm, e, 4 * w) < 0)
			return 0;
		l_addr = rdword(x, e);
		l_name = rdword(x, e + w);
		lm = rdword(x, e + 3 * w);
		name = l_name ? core_string(x, l_name, MAX_NAME + 1) : NULL;
		if (!name && l_name && x->interp_base && l_addr == x->interp_base)
			name = exe_interp_from_file(x, exe);	/* PT_INTERP's string, not dumped */
		if (!name)
			continue;	/* the executable (empty name) */
		if (idx) {
			cross_check_object(x, &alloc, idx, nidx, l_addr, name);
			continue;
		}
		/* the first mapping: the image's lowest PT_LOAD, page-aligned */
		if (read_image(x, l_addr, &img) == 0 || read_image(x, l_addr & ~(uint64_t)4095, &img) == 0 ||
		    /* QEMU dumps no read-only text: the file under the sysroot */
		    read_image_file(x, name, l_addr & ~(uint64_t)4095, &img) == 0)
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
static void no_file_note(struct core_ctx *x)
{
	int exe_unknown = 0, walked;

	if (x->live)
		return;
	walked = link_map_files(x, &exe_unknown, NULL, 0);
	x->files_from_link_map = x->files != NULL;
	if (walked && !exe_unknown) {
		prov_warn("'%s' has no file note (NT_FILE): %zu modules found from the dynamic "
			  "linker's list", x->path, x->nfiles);
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

static void cross_check_link_map(struct core_ctx *x)
{
	int exe_unknown = 0;
	size_t n = x->nfiles, *idx;

	if (x->live || !x->nfiles)
		return;
	idx = files_by_start(x);
	link_map_files(x, &exe_unknown, idx, n);
	free(idx);
	/* report_modules walks them in address order */
	if (x->nfiles > n)
		qsort(x->files, x->nfiles, sizeof(*x->files), entry_cmp);
}

static void fill_process(struct core_ctx *x)
{
	struct prov_crash *c = x->c;
	const struct nt_file_entry *e = x->has_entry ? file_at(x, x->entry) : NULL;
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

/* After unwinding, for a core and a live process alike: shared chains, Python
 * frames, what a truncated core lost, debug files, modules in address order. */
static void finish_analysis(struct core_ctx *x)
{
	size_t i;

	chain_finish(x);
	for (i = 0; i < x->c->nthreads; i++)
		mark_handler_frames(&x->c->threads[i]);
	if (!x->opts->no_python)
		prov_core_python_frames(x->c, x->dwfl, core_mem_read, x);
	if (x->c->partial)
		note_missing_stacks(x);
	dwfl_getmodules(x->dwfl, debug_file_cb, x, 0);
	if (x->c->nmodules > 1)
		qsort(x->c->modules, x->c->nmodules, sizeof(*x->c->modules), module_cmp);
	/* a snapshot is a hang until shown otherwise: who waits for whom */
	if (x->c->snapshot)
		prov_hang_analyze(x->c, core_mem_read, x);
}

static char *core_debuginfo_path;	/* NULL: libdwfl's default */
static const Dwfl_Callbacks core_callbacks = {
	.find_elf = find_elf_cb,
	.find_debuginfo = find_debuginfo_cb,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &core_debuginfo_path,
};

int prov_core_analyze(struct prov_crash **out, const char *path,
		      const struct prov_core_opts *opts)
{
	static const struct prov_core_opts no_opts;
	struct core_ctx x;
	struct core_ctx *saved = current;
	int error;
	size_t i;

	memset(&x, 0, sizeof(x));
	x.fd = -1;
	x.ok = 1;
	x.opts = opts ? opts : &no_opts;
	x.path = path;
	x.max_frames = x.opts->max_frames && x.opts->max_frames < PROV_MAX_FRAMES ?
		x.opts->max_frames : PROV_MAX_FRAMES;
	if (x.opts->sysroot && *x.opts->sysroot && strcmp(x.opts->sysroot, "/") != 0)
		x.sysroot = x.opts->sysroot;
	if (!path || !*path)
		return prov_error_set(PROV_EINPUT, "no core file given");
	if (x.sysroot) {
		struct stat st;

		if (stat(x.sysroot, &st) < 0 || !S_ISDIR(st.st_mode))
			return prov_error_set(PROV_EINPUT, "sysroot '%s' is not a directory",
					      x.sysroot);
	}

	x.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (x.fd < 0) {
		error = prov_error_set(PROV_EINPUT, "cannot open '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	if ((error = check_header(&x, path)) < 0)
		goto cleanup;
	elf_version(EV_CURRENT);
	/* ELF_C_READ, not MMAP: lazy preads, measured faster on cold multi-GiB cores. */
	x.elf = elf_begin(x.fd, ELF_C_READ, NULL);
	if (!x.elf) {
		error = prov_error_set(PROV_EINPUT, "cannot read '%s': %s", path, elf_errmsg(-1));
		goto cleanup;
	}
	x.c = prov_crash_new(PROV_INPUT_CORE, path);
	x.c->format = prov_xstrdup("core");
	if ((error = read_program_headers(&x)) < 0)
		goto cleanup;
	x.rcache = prov_xcalloc(1, sizeof(*x.rcache));
	if (!x.files)
		no_file_note(&x);
	else
		cross_check_link_map(&x);
	x.c->machine = x.machine;
	x.c->machine_is64 = x.is64;
	if (!(prov_machine_reads(x.machine, x.is64) & PROV_MACHINE_REGISTERS))
		x.c->registers_note = prov_xasprintf("registers of %s cores are not read yet",
						     prov_machine_name(x.machine, x.is64));
	fill_process(&x);

	current = &x;
	x.dwfl = core_dwfl_begin();
	if (!x.dwfl) {
		error = prov_error_set(PROV_ERROR, "dwfl_begin: %s", dwfl_errmsg(-1));
		goto cleanup;
	}
	dwfl_report_begin(x.dwfl);
	if ((error = report_modules(&x)) < 0)
		goto cleanup;
	if (dwfl_report_end(x.dwfl, NULL, NULL) != 0) {
		error = prov_error_set(PROV_EINPUT, "cannot read the modules of '%s': %s",
				       path, dwfl_errmsg(-1));
		goto cleanup;
	}
	dwfl_getmodules(x.dwfl, module_cb, &x, 0);
	if (x.error < 0) {
		error = x.error;
		goto cleanup;
	}
	if (attach_threads(&x) < 0) {
		const char *msg = dwfl_errmsg(-1);

		for (i = 0; i < x.c->nthreads; i++)
			x.c->threads[i].unwind_error =
				prov_xasprintf("cannot attach to the core's threads: %s", msg);
	} else if (dwfl_getthreads(x.dwfl, thread_cb, &x) < 0) {
		const char *msg = dwfl_errmsg(-1);

		for (i = 0; i < x.c->nthreads; i++)
			if (!x.c->threads[i].nframes && !x.c->threads[i].unwind_error)
				x.c->threads[i].unwind_error = prov_xstrdup(msg);
	}
	finish_analysis(&x);

	*out = x.c;
	x.c = NULL;
	error = 0;
cleanup:
	current = saved;
	if (x.dwfl)
		dwfl_end(x.dwfl);
	if (x.elf)
		elf_end(x.elf);
	if (x.fd >= 0)
		close(x.fd);
	prov_crash_free(x.c);
	for (i = 0; i < x.nfiles; i++) {
		free(x.files[i].name);
		free(x.files[i].note);
	}
	free(x.files);
	free(x.keep);
	for (i = 0; i < x.nextras; i++) {
		free(x.extras[i]->file);
		free(x.extras[i]->note);
		free(x.extras[i]->package_note);
		free(x.extras[i]->origin);
		free(x.extras[i]);
	}
	free(x.extras);
	free(x.segs);
	free(x.noexec);
	free(x.vdso_image);
	free(x.rcache);
	free(x.attach);
	free(x.tramp);
	memo_free(&x);
	free(x.chain);
	prov_vars_pending_free(x.vars_pending);
	return error;
}

/* ---- a live process ---- */

static char *proc_text(pid_t pid, const char *what, int nul_to_space)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *path = prov_xasprintf("/proc/%d/%s", (int)pid, what);
	size_t i;

	if (prov_read_file(&b, path, 1 << 16) < 0 || !b.len) {
		free(path);
		prov_buf_release(&b);
		return NULL;
	}
	free(path);
	for (i = 0; nul_to_space && i < b.len; i++)
		if (!b.buf[i])
			b.buf[i] = ' ';
	prov_buf_rtrim(&b);
	return prov_buf_detach(&b);
}

/* A stopped thread's registers (user_regs_struct, as NT_PRSTATUS holds
 * them) and its name (comm). */
static void live_thread_facts(struct prov_thread *t, pid_t pid)
{
#if defined(__x86_64__)
	struct user_regs_struct regs;
	const unsigned long long *w = (const unsigned long long *)&regs;
	size_t i, n = sizeof(x86_64_regs) / sizeof(x86_64_regs[0]);

	if (!t->regs && sizeof(regs) >= n * 8 &&
	    ptrace(PTRACE_GETREGS, (pid_t)t->tid, NULL, &regs) == 0) {
		t->regs = prov_xcalloc(n, sizeof(*t->regs));
		t->nregs = n;
		for (i = 0; i < n; i++) {
			memcpy(t->regs[i].name, x86_64_regs[i], strlen(x86_64_regs[i]) + 1);
			t->regs[i].value = w[i];
		}
	}
#endif
	if (!t->name) {
		char *what = prov_xasprintf("task/%" PRId64 "/comm", t->tid);

		t->name = proc_text(pid, what, 0);
		free(what);
	}
}

int prov_core_analyze_pid(struct prov_crash **out, pid_t pid, const struct prov_core_opts *opts)
{
	static const struct prov_core_opts no_opts;
	static char *debuginfo_path;
	static const Dwfl_Callbacks callbacks = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &debuginfo_path,
	};
	struct core_ctx x;
	struct core_ctx *saved = current;
	struct prov_stopped stopped;
	char *name, *exe, path[64];
	int error, rc;
	ssize_t n;
	size_t i;

	memset(&x, 0, sizeof(x));
	memset(&stopped, 0, sizeof(stopped));
	x.fd = -1;
	x.ok = 1;
	x.live = 1;
	x.opts = opts ? opts : &no_opts;
	x.max_frames = x.opts->max_frames && x.opts->max_frames < PROV_MAX_FRAMES ?
		x.opts->max_frames : PROV_MAX_FRAMES;
	name = prov_xasprintf("pid %d", (int)pid);
	x.path = name;
	x.is64 = sizeof(void *) == 8;
#if defined(__x86_64__)
	x.machine = EM_X86_64;
#elif defined(__i386__)
	x.machine = EM_386;
#endif
	/* every thread stopped first: one consistent snapshot, as a core is */
	if ((error = prov_ptrace_stop(&stopped, pid)) < 0)
		goto cleanup;
	n = snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	x.fd = n > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (x.fd < 0) {
		error = prov_error_set(PROV_EINPUT, "cannot read the memory of process %d: %s",
				       (int)pid, strerror(errno));
		goto cleanup;
	}
	x.c = prov_crash_new(PROV_INPUT_CORE, name);
	x.c->format = prov_xstrdup("process");
	x.c->snapshot = 1;	/* a live process: nothing crashed */
	x.c->has_process = 1;
	x.c->process.has_pid = 1;
	x.c->process.pid = pid;
	exe = prov_xasprintf("/proc/%d/exe", (int)pid);
	{
		char buf[4096];
		ssize_t len = readlink(exe, buf, sizeof(buf) - 1);

		if (len > 0) {
			buf[len] = 0;
			x.c->process.executable = prov_xstrdup(buf);
		}
	}
	free(exe);
	x.c->process.cmdline = proc_text(pid, "cmdline", 1);

	current = &x;
	x.dwfl = dwfl_begin(&callbacks);
	if (!x.dwfl) {
		error = prov_error_set(PROV_ERROR, "dwfl_begin: %s", dwfl_errmsg(-1));
		goto cleanup;
	}
	dwfl_report_begin(x.dwfl);
	rc = dwfl_linux_proc_report(x.dwfl, pid);
	if (dwfl_report_end(x.dwfl, NULL, NULL) != 0 || rc != 0) {
		error = prov_error_set(PROV_EINPUT, "cannot read the modules of process %d: %s",
				       (int)pid, rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
		goto cleanup;
	}
	dwfl_getmodules(x.dwfl, module_cb, &x, 0);
	if (x.error < 0) {
		error = x.error;
		goto cleanup;
	}
	/* true: the threads are already stopped, libdwfl neither attaches nor detaches */
	rc = dwfl_linux_proc_attach(x.dwfl, pid, true);
	if (rc != 0) {
		error = prov_error_set(PROV_EINPUT, "cannot read the threads of process %d: %s",
				       (int)pid, rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
		goto cleanup;
	}
	if (dwfl_getthreads(x.dwfl, thread_cb, &x) < 0 && !x.c->nthreads) {
		error = prov_error_set(PROV_EINPUT, "cannot unwind the threads of process %d: %s",
				       (int)pid, dwfl_errmsg(-1));
		goto cleanup;
	}
	for (i = 0; i < x.c->nthreads; i++)
		if (x.c->threads[i].has_tid)
			live_thread_facts(&x.c->threads[i], pid);
	finish_analysis(&x);
	*out = x.c;
	x.c = NULL;
	error = 0;
cleanup:
	current = saved;
	if (x.dwfl)
		dwfl_end(x.dwfl);
	prov_ptrace_resume(&stopped);
	if (x.fd >= 0)
		close(x.fd);
	prov_crash_free(x.c);
	for (i = 0; i < x.nextras; i++) {
		free(x.extras[i]->file);
		free(x.extras[i]->note);
		free(x.extras[i]->package_note);
		free(x.extras[i]->origin);
		free(x.extras[i]);
	}
	free(x.extras);
	memo_free(&x);
	free(x.chain);
	free(x.tramp);
	free(name);
	return error;
}
