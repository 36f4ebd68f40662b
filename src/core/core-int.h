/*
 * The core analyzer's private header (as libdwfl's libdwflP.h), for
 * src/core/core*.c alone (and modsym.c, for core_demangle): the analysis
 * context, its limits, and the functions one file calls in another.
 *
 * Everything in a core is untrusted: every size and offset is checked
 * against the file and the note it sits in, every count is capped, the
 * unwinder is capped and guarded against loops.
 */
#ifndef PROV_CORE_INT_H
#define PROV_CORE_INT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "gopclntab.h"

struct prov_core_opts;

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
 * left out of the module list, which is then marked incomplete (core_report_modules).
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
	unsigned char *image;	/* no file found: the module rebuilt from the core's memory */
	size_t image_len;
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

/* What the notes say beyond threads and files (core-notes.c). */
struct core_notes {
	int seen_siginfo, seen_prpsinfo;
	int first_cursig;	/* the first thread's pr_cursig: 0 in gcore's snapshots */
	int has_entry;
	uint64_t entry;
	int has_phdr;
	uint64_t phdr, phnum;	/* AT_PHDR, AT_PHNUM: the executable's program headers */
	uint64_t interp_base;	/* AT_BASE: the dynamic linker's load address; 0: none */
	int has_vdso;
	uint64_t vdso;	/* AT_SYSINFO_EHDR */
	int has_pac_mask;
	uint64_t pac_insn_mask;	/* NT_ARM_PAC_MASK's insn_mask */
	unsigned char fpregs[512];	/* x86-64 user_fpregs_struct of the crashing thread */
	int has_fpregs;
};

/* The core's memory and the files mapped in it (program headers, NT_FILE, link map). */
struct core_map {
	struct core_seg *segs;	/* PT_LOADs with bytes in the file */
	size_t nsegs, segs_alloc;
	struct nt_file_entry *files;
	size_t nfiles;
	uint64_t file_page;	/* NT_FILE's page size: its offsets count pages */
	int from_link_map;	/* no NT_FILE: files[] is the dynamic linker's list */
	struct core_seg *noexec;	/* PT_LOADs not executable: vaddr, filesz = memsz */
	size_t nnoexec, noexec_alloc;
};

/* The modules reported to libdwfl (core-modules.c, core-find.c). */
struct core_mods {
	Dwfl_Module *vdso_mod;
	unsigned char *vdso_image;
	size_t vdso_len;
	size_t nreported;
	size_t over_budget;	/* images past MAX_DWFL_MODULES, left out */
	unsigned char *keep;	/* per files[] entry: an image that goes in first */
	size_t nkeep;	/* entries marked in keep */
	int keep_done;	/* keep was computed (once: resume_unwind reports again) */
	struct mod_extra **extras;
	size_t nextras, extras_alloc;
};

/* Where Go's own traceback finds a Go frame's caller (core_go_caller). */
struct core_go_caller {
	uint64_t ret;	/* the return address */
	uint64_t ret_at;	/* where it lies: the caller's sp is ret_at + 8 */
	uint64_t bp;	/* the caller's rbp, 0 when not known */
	int fault;	/* the frame is runtime.sigpanic: ret is the faulting pc */
};

/* The thread being unwound, and the whole core's unwinding caps (core-unwind.c). */
struct core_unwind {
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
	int chain_hit;	/* frame_cb copied the rest of the thread's chain */
	int leaf_derived;	/* wild_ret came from a leaf without CFI (core-leaf.c) */
	uint64_t wild_bp;	/* the caller's rbp for resume_unwind; 0: the thread's */
	int wild_fault;	/* wild_ret is a faulting pc (after runtime.sigpanic), not a return */
	/* a Go frame's caller by its pcsp (core_go_caller), checked at the next frame */
	int go_have;
	struct core_go_caller go_next;
	size_t total_frames;	/* frames in every thread so far */
	int total_cut;	/* PROV_MAX_TOTAL_FRAMES was reached */
	struct prov_vars_pending *vars_pending;	/* entry values waiting for the caller */
	struct attach_thread *attach;	/* dwfl_attach_state's per-thread arguments */
};

/*
 * Frames made for a pc, reused: threads parked in the same few places (a
 * pool of workers in futex_wait) would look the same symbols and lines up
 * again and again (core-frames.c, core-sigframe.c).
 */
struct core_memo {
	struct pc_memo *pcs;
	size_t pcs_cap, pcs_used;
	struct tramp_memo *tramp;	/* open addressing, TRAMP_MEMO_CAP slots */
	size_t tramp_used;
	struct chain_memo *chain;	/* open addressing, power-of-two size */
	size_t chain_cap, chain_used;
};

/* Go pclntabs read so far, per module (core-frames.c); tab NULL: the module has none. */
#define CORE_GO_MAX 64
#define CORE_GO_INLINE_MAX 65	/* a pc's inlined calls (64 deep) and its function */
struct core_go {
	Dwfl_Module *mod[CORE_GO_MAX];
	struct prov_gopcln *tab[CORE_GO_MAX];
	const unsigned char *gofunc[CORE_GO_MAX];	/* go.func.* (inline trees), or NULL */
	size_t gofunc_size[CORE_GO_MAX];
	size_t n;
	int inl_warned;	/* "inlined calls not expanded" said once */
};

/* The crashing thread's first signal frame: what the kernel saved in it (core-sigframe.c). */
struct core_sig {
	int seen;	/* a signal frame was met in the thread being unwound */
	int next;	/* the next frame is the interrupted one */
	int valid;	/* regs and the siginfo below were read */
	int derived;	/* info came from the sigcontext's trap number */
	struct prov_reg regs[32];
	size_t nregs;
	uint64_t rip;
	struct prov_signal info;	/* name/code_name unset */
	unsigned char fpregs[512];	/* the interrupted context's FXSAVE area */
	int has_fpregs;
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
	int ok;	/* 0 once an error was stored by a callback */
	int error;
	int live;	/* a stopped live process: fd is its /proc/PID/mem */
	/* live: threads that did not stop (never unwound: libdwfl cannot read their registers) */
	const pid_t *live_stuck;
	size_t live_nstuck;
	struct read_cache *rcache;	/* the core's blocks read last (NULL: pread each time) */

	struct core_notes notes;
	struct core_map map;
	struct core_mods mods;
	struct core_unwind unwind;
	struct core_memo memo;
	struct core_sig sig;
	struct core_go go;
};

struct image_info {
	uint64_t end;	/* highest address of its PT_LOADs */
	uint64_t vaddr0;	/* its first PT_LOAD's address, as linked (page-aligned) */
	uint64_t file_size;	/* up to the end of its section headers */
	unsigned char id[64];
	size_t idlen;
	uint64_t id_vaddr;
	char *package_note;	/* systemd's package note (FDO, 0xcafe1a7e): its JSON */
	int later_loads;	/* a PT_LOAD maps the file at a nonzero page offset */
	uint64_t data0;	/* a later PT_LOAD mapping file offset 0 (old linkers' data
			 * segment): its page's distance from the first's, or 0 */
};

/* register names in pr_reg's order: x86-64, i386, aarch64 (core-notes.c) */
extern const char *const core_x86_64_regs[27];
extern const char *const core_i386_regs[17];
extern const char *const core_aarch64_regs[34];

/*
 * Who calls whom: only downward. core.c (a core) and core-pid.c (a live
 * process) on top; core-finish.c, what both do after unwinding; then the
 * steps, each calling only those listed after it: core-linkmap,
 * core-unwind, core-leaf, core-sigframe, core-frames, core-modules, core-notes,
 * core-find; at the bottom core-ctx.c (which calls corevars.c) and
 * core-read.c, which call no core-*.c file.
 */

/* core-ctx.c: the context being analyzed, releasing it */
/* Callbacks get no user pointer for the whole Dwfl: one analysis at a time per thread. */
extern __thread struct core_ctx *core_current;
void core_memo_free(struct core_ctx *x);
void core_ctx_release(struct core_ctx *x);

/* core-read.c: byte order, fields, memory */
uint16_t core_rd16(const struct core_ctx *x, const unsigned char *p);
uint32_t core_rd32(const struct core_ctx *x, const unsigned char *p);
uint64_t core_rd64(const struct core_ctx *x, const unsigned char *p);
uint64_t core_rdword(const struct core_ctx *x, const unsigned char *p);
int core_host_is_le(void);
char *core_field_str(const unsigned char *p, size_t max);
int core_mem_read(void *arg, uint64_t addr, void *buf, size_t len);
int core_read(const struct core_ctx *x, uint64_t addr, void *buf, size_t len);
int core_read_cb(void *arg, uint64_t addr, void *buf, size_t len);

/* core-notes.c */
int core_parse_notes(struct core_ctx *x, const GElf_Phdr *ph, size_t *nnotes);

/* core-find.c: libdwfl's callbacks */
struct mod_extra *core_mod_extra(struct core_ctx *x, void **userdata);
const struct nt_file_entry *core_file_at(const struct core_ctx *x, uint64_t addr);
const char *core_module_recorded_path(Dwfl_Module *mod);
char *core_sysroot_relative(const char *path);
int core_find_elf_cb(Dwfl_Module *mod, void **userdata, const char *modname,
		Dwarf_Addr base, char **file_name, Elf **elfp);
Dwfl *core_dwfl_begin(void);

/* core-modules.c */
int core_read_image(const struct core_ctx *x, uint64_t lo, struct image_info *out);
int core_read_image_file(const struct core_ctx *x, const char *path, uint64_t lo,
		    struct image_info *out);
size_t *core_files_by_start(const struct core_ctx *x);
int core_report_modules(struct core_ctx *x);
int core_module_cb(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
	      void *arg);
int core_debug_file_cb(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
		  void *arg);
int core_module_cmp(const void *a, const void *b);

/* core-frames.c */
/* A C++ symbol ("_Z...") demangled by libstdc++ as eu-stack does, else a
 * copy; NULL for NULL. The caller frees. modsym.c uses it too. */
char *core_demangle(const char *name);
struct prov_frame *core_new_frame(struct core_ctx *x, struct prov_thread *t);
void core_chain_finish(struct core_ctx *x);
struct chain_memo *core_chain_slot(struct core_ctx *x, uint64_t pc, uint64_t sp, uint64_t fp);
void core_chain_remember(struct core_ctx *x, uint64_t pc, uint64_t sp, uint64_t fp, size_t frame);
int core_chain_copy(struct core_ctx *x, struct prov_thread *t, const struct chain_memo *e);
int core_add_pc_frames(struct core_ctx *x, struct prov_thread *t, Dwarf_Addr pc, Dwarf_Addr adj);
Dwfl_Module *core_addrmodule(Dwfl *dwfl, Dwarf_Addr addr);
/*
 * x86-64: the frame at pc (adj: pc, or pc - 1 for a return address) with
 * stack pointer sp and rbp bp (0: not known) is in a Go function of a
 * module with a .gopclntab: its caller as Go's traceback finds it, by the
 * function's pcsp (the return address at sp + delta; a function with a
 * frame saved the caller's rbp just below it). 1 with *out when the return
 * address lies in a Go function of the same module; 0 when not a Go frame,
 * or one Go's traceback stops at or switches stacks in (runtime.goexit,
 * mstart, systemstack, mcall, morestack, asmcgocall, cgocallback, rt0_go).
 */
int core_go_caller(struct core_ctx *x, Dwarf_Addr pc, Dwarf_Addr adj, uint64_t sp, uint64_t bp,
		   struct core_go_caller *out);

/* core-sigframe.c */
int core_is_sigtramp_memo(struct core_ctx *x, Dwarf_Addr pc, bool isact);
int core_sigframe_is_crash(const struct core_ctx *x);
void core_take_sigframe(struct core_ctx *x, struct prov_thread *t, size_t first);
int core_add_signal_frame(struct core_ctx *x, struct prov_thread *t, Dwarf_Addr pc, uint64_t sp);
void core_mark_handler_frames(struct prov_thread *t);

/* core-leaf.c */
/*
 * x86-64: the innermost frame at pc has no CFI, its function pushed nothing
 * from its start to pc, and [sp] is a return address right after a call
 * instruction in a module: 1 with *ret, else 0 (nothing is trusted).
 */
int core_leaf_return(struct core_ctx *x, uint64_t pc, uint64_t sp, uint64_t *ret);

/* core-unwind.c */
int core_attach_threads(struct core_ctx *x);
int core_thread_cb(Dwfl_Thread *thread, void *arg);
void core_note_missing_stacks(struct core_ctx *x);

/* core-linkmap.c */
void core_no_file_note(struct core_ctx *x);
void core_cross_check_link_map(struct core_ctx *x);

/* core-finish.c: after unwinding, for a core and a live process alike */
void core_finish_analysis(struct core_ctx *x);
#endif
