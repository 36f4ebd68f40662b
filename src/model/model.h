#ifndef PROV_MODEL_H
#define PROV_MODEL_H

#include <stddef.h>
#include <stdint.h>

/*
 * The one crash model. Analyzers (core, text) fill it, resolvers annotate its
 * modules, mappings and sources add components and source excerpts, report
 * writers read it. All strings are owned by the model (heap, NUL-terminated)
 * and NULL means "unknown". Numbers that may be unknown carry a has_* flag.
 */

/* Where a module's file came from: the package that installed it. */
struct prov_origin {
	char *kind;	/* "dpkg" "rpm" "pip" "conda" "rocm" "elf-note" "git" "path" */
	char *name;	/* package / distribution name */
	char *version;	/* as installed (epoch and revision included) */
	char *source;	/* source package, when the database says */
	char *source_version;
	char *arch;
	char *vcs_url;	/* upstream URL the system itself recorded, if any */
	char *commit;	/* full hex commit the system recorded, if any */
	char *branch;
	char *found_by;	/* resolver name */
	char *evidence;	/* the file that said so, relative to the sysroot */
	char *upstream_url;	/* a repository derived from the package's own metadata
				 * (untrusted: shown, fetched only when allowed) */
	char *upstream_by;	/* how: "derived:dep5-source", "derived:pip-project-url" ... */
	char *upstream_evidence;	/* the file it was read from */
	int guess;	/* 1: inferred from the path only, unverified */
	int build_id_mismatch;	/* the installed file is another build than the crash's */
	int commit_approximate;	/* commit is near the build, not it (Go vcs.modified=true or unsaid) */
};

/* A parameter or local variable of a frame, read through DWARF (core input). */
struct prov_var {
	char *name;
	char *type;	/* as C/C++ spells it: "const struct greeter *" */
	char *value;	/* gdb-like rendering; NULL when unknown (see note) */
	char *note;	/* "optimized out", "cannot read memory at 0x10" ..., or NULL */
};

struct prov_frame {
	int index;	/* as printed (text) or position (core) */
	int has_pc;
	uint64_t pc;
	char *function;	/* demangled */
	int has_offset;
	uint64_t offset;	/* pc - symbol start */
	char *module;	/* module path as the crash recorded it */
	char *file;	/* source path as recorded (comp_dir joined) */
	int line;	/* 0: unknown */
	int column;	/* 0: unknown */
	int inlined;
	int python;	/* a Python-level frame (faulthandler, pystack) */
	char *repo_path;	/* file rewritten relative to the component's repo */
	char *path_rule;	/* the rewriting rule that produced repo_path */
	char *component;
	int has_vars;	/* args/locals were read (a crashing-thread frame with DWARF, or Python) */
	struct prov_var *args, *locals;
	size_t nargs, nlocals;
	char *located_by;	/* "name": source found by the function's name (a guess) */
	int location_guess;	/* function/file/line looked up in a module file whose
				 * build ID could not be checked (a kernel line): a guess */
	int signal_frame;	/* the kernel's signal trampoline: "<signal handler called>" */
	int in_handler;	/* runs in a signal handler: above a signal frame */
	int unwind_derived;	/* found from the return address at the callee's sp, the callee
				 * having no CFI and pushing nothing (checked: a call precedes it) */
};

struct prov_reg {
	char name[16];	/* "rip", "r15", "fs_base", "orig_rax" ... (NUL-terminated) */
	uint64_t value;
};

struct prov_thread {
	int has_tid;
	int64_t tid;
	char *thread_id;	/* the id the text printed when it is no tid: faulthandler's
				 * "0x00007f48719066c0", gdb's "Thread 0x7f..." (pthread_t) */
	char *name;
	int crashed;
	struct prov_reg *regs;	/* NULL: unknown */
	size_t nregs;
	struct prov_frame *frames;
	size_t nframes, frames_alloc;
	int truncated;	/* the frame cap was hit */
	char *unwind_error;	/* why unwinding stopped early, if it did */
	int python;	/* a CPython thread state runs on this thread */
	int holds_gil;	/* its thread state held the GIL */
	char *python_note;	/* why its Python frames are missing or cut short */
	/*
	 * The crash site when it is not frame #0: a handler caught the fault
	 * and re-raised it (or aborted); crash_frame is the first frame of the
	 * interrupted context, below the signal frame, and regs are the
	 * registers the kernel saved there (the sigcontext). handler_regs
	 * keeps what the core recorded for the thread (inside the handler).
	 */
	int has_crash_frame;
	size_t crash_frame;
	struct prov_reg *handler_regs;
	size_t nhandler_regs;
};

struct prov_module {
	char *path;	/* as the core recorded it (NT_FILE) or the text wrote it */
	int has_range;
	uint64_t start, end;
	char *build_id;	/* lower-case hex */
	char *file;	/* the file actually used (host path), or NULL */
	char *debug_file;	/* where debug info came from, or NULL */
	char *note;	/* e.g. "build-id mismatch: /x has …" */
	char *package_note;	/* .note.package JSON from the core's memory, or NULL */
	int build_id_mismatch;	/* the file on disk has another build ID than the core's */
	int build_id_from_file;	/* the core lost the build ID: it was read from the file */
	int inferred;	/* text: added from a frame's source path, not named by the crash */
	int in_crash_chain;	/* a frame of the crash chain is in it (prov_crash_mark_chain) */
	struct prov_origin *origin;	/* package, NULL when unresolved */
	char *component;
};

struct prov_signal {
	int number;
	char *name;	/* "SIGSEGV" */
	int has_code;
	int code;
	char *code_name;	/* "SEGV_MAPERR" */
	int has_addr;
	uint64_t addr;
	int has_sender;	/* for SI_USER / SI_TKILL: the sending pid */
	int64_t sender_pid;
};

/*
 * What the tool that caught the crash said it was, in its own words, when
 * that is no signal: compute-sanitizer's "Invalid __global__ write of size 4
 * bytes" with the address and the device thread and block; a kernel line's
 * "segfault at 0 ... error 6".
 */
struct prov_headline {
	char *text;	/* the whole headline as one line */
	char *error;	/* "Invalid __global__ write", "segfault" */
	int has_size;
	uint64_t size;	/* bytes accessed */
	int has_addr;
	uint64_t addr;	/* the address accessed */
	char *device_thread;	/* "(255,0,0)" */
	char *device_block;	/* "(3,0,0)" */
};

/*
 * A kernel log line about a user-space fault (dmesg, journal): "prog[1234]:
 * segfault at 0 ip 00007f… sp 00007ff… error 6 in libfoo.so.1[7f…+2a3000]"
 * (src/text/kernel.c, docs/text-formats.md).
 */
struct prov_kernel_line {
	char *kind;	/* "segfault", "trap: divide error", "general protection fault" */
	int has_addr, has_ip, has_sp, has_error;
	uint64_t addr, ip, sp, error;
	char *module;	/* the file name the kernel printed (a basename) */
	int has_base;
	uint64_t base, size;	/* the mapping holding ip: [base, base + size) */
	int has_file_offset;	/* newer kernels print the file offset of ip */
	uint64_t file_offset;
	int has_cpu;
	int cpu;
	char *file;	/* the module file found on this host / in --sysroot */
	int has_vaddr;
	uint64_t vaddr;	/* ip as an address in that file (its ELF p_vaddr space) */
	char *note;	/* how (or why not) the function and line were found */
};

/*
 * What a launcher said of the rank or task a text crash came from (text
 * input of a cluster job, src/text/labels.h): srun's "task 3: Segmentation
 * fault", torchrun's ChildFailedError table.
 */
struct prov_launch {
	char *launcher;	/* "srun", "torchrun" */
	char *host;
	char *task;	/* srun's task when the label is a rank, else NULL */
	int has_exit_code;
	int exit_code;	/* as printed: torchrun prints -signal */
	int signo;	/* the signal the launcher says it died of, 0 when not said */
	char *error_file;	/* torchrun's error_file, NULL when "<N/A>" */
};

struct prov_process {
	int has_pid;
	int64_t pid;
	char *executable;
	char *cmdline;
};

enum prov_input_kind {
	PROV_INPUT_CORE,
	PROV_INPUT_TEXT,
};

enum prov_context {
	PROV_CONTEXT_UNKNOWN,
	PROV_CONTEXT_RUNTIME,
	PROV_CONTEXT_EXIT,
	PROV_CONTEXT_MODULE_LOAD,
};

struct prov_pattern {
	char *id;	/* "null-deref", "abort", ... */
	char *evidence;
};

/* An upstream component: what a mapping made of one or more origins. */
struct prov_component {
	char *name;
	char *version;
	char *commit;	/* full hex, resolved */
	char *repo;	/* URL */
	char *ref;	/* ref asked for (tag, branch) */
	char *subdir;
	char *found_by;	/* how the commit was found: "mapping:tag", "pip:direct_url.json" ... */
	/* "exact" (build ID, .git HEAD, a version file, a tag the version
	 * names, the distribution's source of that version) or "approximate"
	 * (a branch tip, a tag the version does not name, derived metadata);
	 * NULL when there is no commit */
	char *commit_is;
	char *note;	/* why something is missing, for the report */
	/* an imported source (debian-source, archive): the local import
	 * repository, and the upstream repository and ref its mapping names
	 * beside it (NULL when none) — where fixcheck looks fixes up */
	char *import_path;
	char *upstream_repo;
	char *upstream_ref;
	int in_crash_chain;	/* one of its modules is in the crash chain */
};

struct prov_source_line {
	int number;
	char *text;
};

struct prov_source {
	char *component;
	char *commit;
	char *path;	/* repository-relative */
	int line;	/* the frame's line */
	int frame_index;
	struct prov_source_line *lines;
	size_t nlines;
	char *located_by;	/* NULL: the frame's own file:line; "name": its function's
				 * definition found by name (a guess; line = the definition) */
	char *function;	/* located_by "name": the definition's qualified name */
	int candidates;	/* located_by "name": how many definitions matched */
	char *build_id;	/* located_by "debuginfod": the module's build ID (no component,
			 * no commit: the file debuginfod serves for that build) */
	char *commit_is;	/* the component's commit_is: "approximate" lines are
				 * from a commit near the deployed build, not it */
	char *fetched_by;	/* how the file was obtained: "mirror", "repository" (a local
				 * one), "source-import", "debuginfod", "single-file:<forge kind>" */
};

/* `--fix COMMIT`: is it in what was deployed? (same facts as fixcheck) */
/*
 * One hunk of a fix and its state in the deployed tree (src/fix/hunks.h):
 * state "present-exact" | "present-changed-lines" | "absent" | "test-only"
 * | "unknown"; via: the distribution patch or commit that carries it.
 */
struct prov_fix_evidence {
	char *commit;	/* the fix commit the hunk belongs to (full hex) */
	char *file;	/* the fix's path */
	char *deployed_file;	/* where it was looked for, when not `file` (a rename), or NULL */
	char *hunk;	/* its header, "@@ -10,7 +10,8 @@" */
	char *function;	/* the function named in the header, or NULL */
	const char *state;	/* static string */
	char *via;	/* patch path or commit, or NULL */
	const char *note;	/* static: why an unknown hunk does not count, or NULL */
};

void prov_fix_evidence_release(struct prov_fix_evidence *e, size_t n);	/* frees e too */

struct prov_fix_status {
	char *fix;	/* as given */
	char *fix_commit;	/* full hex, or NULL when unknown */
	char *component;
	char *deployed;	/* full hex */
	int known;	/* 0: could not be checked (see note) */
	int included;
	char *first_tag;
	char *note;
	/* how it is in (src/fix/backport.h): "ancestor", "cherry-pick",
	 * "distribution-patch", "adapted", "partial", "missing" or NULL
	 * (undetermined: known, reason set); via: commit(s) or patch */
	const char *how;
	char *via;
	char *files_missing;	/* partial: the fix's files not found */
	char *commits_missing;	/* a fix of several commits (A..B): those not in, space-separated */
	char *branch_tag;	/* not included: first tag of the deployed branch with a cherry-pick */
	char *branch;
	struct prov_fix_evidence *evidence;	/* per hunk, when the hunks were compared */
	size_t nevidence;
	char *reason;	/* known but undetermined (exit 3): why, else NULL */
};

/*
 * A possible upstream fix (issue 15, docs/suspects.md): a commit after the
 * deployed one, on the branches the mirror has, that changed a crash line of
 * the crashing thread or the function around it.
 */
struct prov_suspect {
	char *commit;	/* full hex */
	char *subject;
	int64_t time;	/* committer time, seconds since the epoch */
	char *date;	/* "YYYY-MM-DD" (UTC) */
	char *component;
	char *path;	/* repository path at the deployed commit */
	char *function;	/* of the first frame it touches, NULL when unknown */
	int *frames;	/* indexes of the frames it touches */
	size_t nframes;
	char *first_tag;	/* first tag containing it, NULL when none */
	int crash_line;	/* 1: changes a crash line itself; 0: the function around it */
	int fix_words;	/* the message says fix, crash, race, null, overflow, leak, UAF */
};

/* One disassembled instruction around the crashing pc. */
struct prov_insn {
	uint64_t addr;
	char *text;
	int current;	/* the faulting instruction */
};

/*
 * Hang analysis of a snapshot (gcore core, --pid; src/model/hang.c): threads
 * grouped by identical stacks, what each blocked thread waits on, the owner
 * when it can be read (a mutex's __owner, the GIL holder, a joined thread),
 * and the cycles of the wait-for graph (deadlocks).
 */
struct prov_hang_group {
	size_t *threads;	/* indexes into crash->threads, in thread order */
	size_t nthreads;
};

struct prov_hang_wait {
	size_t thread;	/* index into crash->threads */
	char *on;	/* "mutex 0x55…", "condvar", "join", "gil", "python-lock" ... */
	int has_owner;
	int64_t owner;	/* tid */
};

struct prov_hang {
	struct prov_hang_group *groups;	/* largest first */
	size_t ngroups;
	struct prov_hang_wait *waits;
	size_t nwaits;
	int64_t **cycles;	/* each a list of tids, the lowest first */
	size_t *cycle_len, ncycles;
};

void prov_hang_free(struct prov_hang *h);	/* NULL-safe */

struct prov_crash {
	char *input_path;
	/* --sysroot: "dir", "oci", "oci-archive", "docker-archive" (NULL: none
	 * given), the image's digest and the tag it was named by (or NULL) */
	char *sysroot_kind, *sysroot_digest, *sysroot_ref;
	enum prov_input_kind kind;
	char *format;	/* text input: "gdb", "eu-stack", ...; core: "core" */
	int partial;	/* a core cut inside its memory segments */
	int modules_incomplete;	/* core: its file note (NT_FILE) lost names: modules are missing */
	int snapshot;	/* a core of a live process (gcore): no crash */
	/* a live process in a chroot or container: its root as this host
	 * reaches it ("/proc/PID/root"), where its packages are read; else NULL */
	char *proc_root;

	int has_process;
	struct prov_process process;
	int has_signal;
	struct prov_signal signal;
	struct prov_headline *headline;	/* NULL: the tool said nothing more than the signal */
	struct prov_kernel_line *kernel_line;	/* input was a kernel fault line, else NULL */
	/* A signal handler re-raised the fault (or aborted): signal is the
	 * fault the kernel delivered at the crash site (its siginfo, saved in
	 * the signal frame), delivered the signal the process died of. */
	int has_delivered;
	struct prov_signal delivered;

	struct prov_thread *threads;
	size_t nthreads, threads_alloc;
	int has_crashed_thread;
	size_t crashed_thread;	/* index into threads */

	struct prov_module *modules;
	size_t nmodules, modules_alloc;

	enum prov_context context;
	struct prov_pattern *patterns;
	size_t npatterns, patterns_alloc;

	struct prov_component *components;
	size_t ncomponents, components_alloc;

	struct prov_source *sources;
	size_t nsources, sources_alloc;

	/* Code bytes around the crashing pc, captured by the core analyzer
	 * (from the module's file or the core's memory): [code_addr,
	 * code_addr + code_len), with code_pc the faulting instruction. */
	unsigned char *code;
	size_t code_len;
	uint64_t code_addr, code_pc;

	struct prov_insn *insns;	/* disassembly around the crashing pc */
	size_t ninsns, insns_alloc;
	char *insns_note;	/* why there is none */
	int machine;	/* a core's e_machine (EM_X86_64...); 0: not from a core */
	int machine_is64;	/* the core is ELFCLASS64 (s390x, not s390; x86-64, not x32) */
	char *registers_note;	/* a core whose registers are not read: why */
	char *fault_operand;	/* "memory operand [rax + 8]: rax = 0x0" */
	/* the faulting instruction's memory operand: its base (and index) register and value */
	int has_fault_base, has_fault_index;
	char fault_base_reg[16], fault_index_reg[16];
	uint64_t fault_base, fault_index;
	int has_fault_ea;	/* the operand's address, computed from those registers */
	uint64_t fault_ea;
	unsigned int fault_size;	/* bytes the operand reads or writes, 0: unknown */

	char *determinism;	/* set when several inputs were compared */
	char *label;	/* text: the rank or task label its lines carried ("rank3", "3"), or NULL */
	struct prov_launch *launch;	/* text: what the launcher said of that rank, or NULL */
	char *host;	/* where it crashed (resolve --host), or NULL */
	char *time;	/* when, ISO 8601 UTC (--time, else the input's mtime), or NULL */

	/* The CPython interpreter state, when the process ran one (python.c). */
	char *python_version;	/* "3.11", NULL: no interpreter state read */
	int python_finalizing;	/* the runtime was finalizing (an exit-time crash) */
	char *python_note;	/* why the interpreter state could not be read */
	struct prov_fix_status *fixes;
	size_t nfixes, fixes_alloc;

	struct prov_suspect *suspects;	/* ranked, best first */
	size_t nsuspects, suspects_alloc;
	char *suspects_note;	/* why none could be looked for, or NULL */
	size_t suspects_frames;	/* frames whose lines were followed (0: not looked) */
	char *suspects_fixcheck;	/* a fixcheck command line for the top suspect */
	/* text input: lines that looked like frames but were not read, and
	 * the first PROV_MAX_UNPARSED of them as "LINE: text" */
	size_t unparsed_lines;
	char **unparsed;
	size_t nunparsed;
	char *threads_note;	/* why some threads' frames were cut short (the total caps), or NULL */
	struct prov_hang *hang;	/* snapshots only (hang.h), else NULL */
	/* red flags in the fields of a libstdc++ container the crashing thread
	 * was in, read from the core's memory (stlrace.h), or NULL */
	char *stl_fields;
};

#define PROV_MAX_UNPARSED 10

/* Hard caps on what untrusted input may make the model hold. */
#define PROV_MAX_FRAMES 4096	/* per thread */
#define PROV_MAX_THREADS 16384
#define PROV_MAX_TOTAL_FRAMES 131072	/* all threads of one core together */
#define PROV_MAX_MODULES 65536

/* Record which root --sysroot named (the report's input.sysroot). */
void prov_crash_set_sysroot(struct prov_crash *c, const char *kind, const char *digest,
			    const char *ref);

struct prov_crash *prov_crash_new(enum prov_input_kind kind, const char *input_path);
void prov_crash_free(struct prov_crash *c);	/* NULL-safe */
/* Free a thread's contents (frames, registers, names); the struct stays. */
void prov_thread_release(struct prov_thread *t);
/* Free a thread's frames from n on and mark it truncated (nothing when it has n or fewer). */
void prov_thread_cut(struct prov_thread *t, size_t n);

/* Append zeroed elements; the returned pointer is valid until the next add. */
struct prov_thread *prov_crash_add_thread(struct prov_crash *c);
struct prov_module *prov_crash_add_module(struct prov_crash *c);
struct prov_frame *prov_thread_add_frame(struct prov_thread *t);	/* NULL past PROV_MAX_FRAMES (sets truncated) */
void prov_crash_add_pattern(struct prov_crash *c, const char *id, const char *evidence);
struct prov_component *prov_crash_add_component(struct prov_crash *c);
struct prov_source *prov_crash_add_source(struct prov_crash *c);

struct prov_insn *prov_crash_add_insn(struct prov_crash *c);
struct prov_fix_status *prov_crash_add_fix(struct prov_crash *c);
struct prov_suspect *prov_crash_add_suspect(struct prov_crash *c);

/* The crashing thread, or NULL. */
struct prov_thread *prov_crash_crashed_thread(const struct prov_crash *c);
/* Index of the crash site's first frame in t (0 unless a handler ran on top of it). */
size_t prov_thread_crash_frame(const struct prov_thread *t);
/* 1 for a signal frame: the analyzer's, or a text "<signal handler called>". */
int prov_frame_is_signal(const struct prov_frame *f);

/*
 * The crash chain: the threads whose frames say what crashed. The crashing
 * thread; for a snapshot (no crash), the threads the hang analysis found
 * blocked; when neither is known, every thread (nothing is left out on a
 * guess). 1 when thread index t is one of them.
 */
int prov_crash_thread_in_chain(const struct prov_crash *c, size_t t);
/* Set modules[].in_crash_chain: a frame of a chain thread names the module
 * (by its recorded path, else by the address). */
void prov_crash_mark_chain(struct prov_crash *c);

/* The module whose [start, end) holds addr, or NULL. */
struct prov_module *prov_crash_module_at(const struct prov_crash *c, uint64_t addr);
/* The module whose recorded path equals `path`, or NULL. */
struct prov_module *prov_crash_module_by_path(const struct prov_crash *c, const char *path);
/* The component named `name`, or NULL. */
struct prov_component *prov_crash_component(const struct prov_crash *c, const char *name);

void prov_vars_free(struct prov_var *v, size_t n);	/* the array and its strings; NULL-safe */
void prov_origin_free(struct prov_origin *o);	/* NULL-safe */
void prov_origin_release(struct prov_origin *o);	/* frees the strings, zeroes *o */
struct prov_origin *prov_origin_dup(const struct prov_origin *o);
void prov_component_release(struct prov_component *c);

/*
 * Classify crash.context from the crashing thread's function names:
 * exit handlers / static destructors -> EXIT, dynamic loader / dlopen ->
 * MODULE_LOAD, any frame -> RUNTIME, no frame -> UNKNOWN.
 */
void prov_crash_classify_context(struct prov_crash *c);

/*
 * The x86 page-fault error code a kernel segfault line prints, in words
 * (6: "user-mode write, page not present"); the caller frees.
 */
char *prov_kernel_error_text(uint64_t error);

/* Names: "SIGSEGV" for 11 (NULL when unknown); "SEGV_MAPERR" for (11, 1). */
const char *prov_signal_name(int signo);
/*
 * An ELF e_machine and class (is64: ELFCLASS64) as a name ("x86-64", "x32",
 * "s390", "s390x"; "EM_N" when unknown).
 */
const char *prov_machine_name(int machine, int is64);

/* What the core analyzer reads of a machine's cores (prov_machine_reads). */
#define PROV_MACHINE_REGISTERS 1u	/* the registers of each thread */
#define PROV_MACHINE_DISASM 2u	/* disassembly, and the patterns that read operands */
unsigned int prov_machine_reads(int machine, int is64);
int prov_signal_number(const char *name);	/* -1 when unknown; accepts "SEGV" too */
const char *prov_signal_code_name(int signo, int code);
/* 1 when the signal carries a fault address in si_addr. */
int prov_signal_has_fault_addr(int signo, int code);

const char *prov_context_name(enum prov_context ctx);

#endif
