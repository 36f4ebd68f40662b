#ifndef PROV_TEXT_INTERNAL_H
#define PROV_TEXT_INTERNAL_H

/*
 * Private to the text reader (src/text/). Layers, each calling only the ones
 * below it:
 *
 *   driver.c      lines, prefixes, the format table, which thread crashed
 *   formats.c     tp_formats[]: one entry per format family
 *   native.c sanitizer.c python.c selfprinted.c valgrind.c cudasan.c kernel.c
 *                 the families: read a line, build frames
 *   state.c lines.c prefix.c
 *                 threads/frames/modules being built, string helpers, prefixes
 *
 * A family that recognises a line consumes it and returns 1. Frames go
 * through tp_frame_new(), which decides when a new thread starts; per-thread
 * bookkeeping the model has no field for lives in struct tp_tinfo, parallel
 * to crash->threads. A new format is a new file, one tp_formats[] entry and
 * its fixtures (fixtures/text/<format>/).
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "model.h"

enum tp_fmt {
	TP_NONE,
	TP_GDB,
	TP_EUSTACK,
	TP_COREDUMPCTL,
	TP_ASAN,
	TP_UBSAN,
	TP_TSAN,
	TP_MSAN,
	TP_LSAN,
	TP_LIBFUZZER,
	TP_FAULTHANDLER,
	TP_PYTB,
	TP_PYSTACK,
	TP_C10,
	TP_BTSYM,
	TP_SIGHANDLER,
	TP_VALGRIND,
	TP_CUDASAN,
	TP_KERNEL,
	TP_PYBT,	/* gdb's py-bt / py-bt-full: merged into a native thread */
	TP_NFMT
};

#define TP_MAX_LINE ((size_t)64 << 10)
#define TP_MAX_INPUT ((size_t)64 << 20)
#define TP_MAX_TOTAL_FRAMES ((size_t)1 << 20)	/* read; a report keeps PROV_MAX_TOTAL_FRAMES */
#define TP_MAX_FRAME_BYTES ((size_t)32 << 20)	/* names a report keeps (JSON escapes: 6x at most) */
#define TP_MAX_PENDING_LINES 32

struct tp_tinfo {
	int fmt;
	int gdbnum;	/* gdb's thread number, 0 when not printed */
	int bare;	/* a gdb `bt` with no thread header */
	int reverse;	/* frames were printed most recent call last */
	int last_index;	/* last printed index, -1 before the first frame */
	int is_explicit;	/* opened by a header line */
	int after_term;	/* the frame gdb printed after "Program terminated" */
};

struct tp_modhash {
	size_t *slots;	/* module index + 1, 0 = empty */
	size_t nslots;
};

struct tp_state {
	struct prov_crash *c;
	const char *name;
	int fmt;	/* format of the open block, TP_NONE outside one */
	int open;	/* a thread is open: c->threads[c->nthreads - 1] */
	struct tp_tinfo *ti;
	size_t ti_alloc;
	size_t total_frames;
	int warned_frames, warned_threads, warned_modules;
	size_t threads_ignored;	/* past PROV_MAX_THREADS */
	long counts[TP_NFMT];
	int first_fmt[TP_NFMT];	/* order of first appearance, for ties */
	int nseen;
	size_t lineno;	/* of the line being read, from 1 */

	/* gdb */
	int gdb_crashed_num;	/* from "received signal" / "[Current thread is" */
	int has_crashed_lwp;
	int gdb_after_term;	/* "Program terminated/received signal" just read */
	int64_t crashed_lwp;
	int crashed_lwp_current;	/* crashed_lwp came from "[Current thread is" */
	char *crashed_thread_id;	/* its "Thread 0x7f…" */
	struct prov_buf pending;	/* a frame whose argument list runs on */
	int pending_lines;
	int pending_wrap;	/* pending may only go on with an indented line */

	/* sanitizers: between a report header and its SUMMARY */
	int san;	/* TP_ASAN ... or TP_NONE */
	int san_crash_next;	/* the next stack is the crashing one */
	char *san_next_name;
	int san_seen_crash;
	/* UBSan "runtime error" without a stack (yet) */
	int ub_pending;
	int ub_wait;	/* lines read since the runtime error */
	char *ub_file;
	int ub_line, ub_col;

	/* Python */
	int py_crash_next;
	int coredump_seen;

	int c10_seen;	/* the first c10 block was read */
	int py_headline;	/* crash.headline is a Python exception line (the last wins) */
	char *c10_what;	/* "what():  MSG" of a c10::Error, for its headline */

	/* valgrind and compute-sanitizer */
	int vg_seen;	/* an error's "at" stack has started */
	int cs_err;	/* inside a compute-sanitizer error */
	int cs_seen;	/* its first error's host frames were read */
	int cs_errors;	/* errors read so far */
	int cs_crash_set;	/* the first error's crashing thread is chosen */
	char cs_kind[32];	/* the first error's address is "out of bounds", "misaligned", ... */

	struct tp_modhash mods;	/* module path -> index */

	/* set by the driver: runs before a thread closes */
	void (*before_close)(struct tp_state *st);

	/* log prefix learned for the open block ("web-1  | ") */
	char *learned;
	size_t learned_len;
};

/* Threads, frames and modules being built (state.c). */
struct prov_thread *tp_cur(struct tp_state *st);
struct tp_tinfo *tp_cur_info(struct tp_state *st);
void tp_close(struct tp_state *st);	/* close the open thread */
void tp_end_block(struct tp_state *st);	/* close thread and block */
/* Open a thread for `fmt` (closing any open one). NULL past the cap. */
struct prov_thread *tp_open(struct tp_state *st, int fmt, int is_explicit);
/*
 * A new frame of `fmt` with printed index `index` (-1: none printed, the
 * position is used). Opens a thread when none is open, the open one is of
 * another format, or the index does not grow (gdb: a new "#0"). NULL when a
 * cap is hit (the line still counts as consumed).
 */
struct prov_frame *tp_frame_new(struct tp_state *st, int fmt, int index);
struct prov_frame *tp_last_frame(struct tp_state *st);
void tp_module_note(struct tp_state *st, const char *path, size_t len,
		    const char *build_id, size_t bid_len);
void tp_set_signal(struct tp_state *st, int signo);
void tp_set_addr(struct tp_state *st, uint64_t addr);
void tp_set_pid(struct tp_state *st, int64_t pid);

/* Small string helpers (lines.c). */
char *tp_strndup(const char *s, size_t n);	/* trims surrounding blanks */
void tp_set(char **dst, const char *s, size_t n);	/* replace, trimmed */
const char *tp_ws(const char *s);
int tp_isdigit(int ch);
int tp_isxdigit(int ch);
/* "0x1f" at s: value and end; 0 on success. */
int tp_hex(uint64_t *out, const char *s, const char **end);
/* decimal digits at s (at most 9): value and end; 0 on success. */
int tp_dec(int *out, const char *s, const char **end);
/* Split "path:line[:col]" (the whole of [s, s+n)); 0 when it has a line. */
int tp_file_line(const char *s, size_t n, size_t *path_len, int *line, int *col);
/* Drop a trailing C++ argument list: "ns::f(int) const" -> "ns::f". */
void tp_strip_args(char *fn);
/* 1 when [s, s+n) can be a function name as debuggers print it. */
int tp_plausible_function(const char *s, size_t n);
/* Index of the '(' matching the ')' at s[close], or -1. */
long tp_match_open(const char *s, size_t close);

/* state.c: drop thread k (and its tinfo); string equality allowing NULLs */
void tp_drop_thread(struct tp_state *st, size_t k);
/* drop every thread i with drop[i] != 0, in one pass */
void tp_drop_threads(struct tp_state *st, const unsigned char *drop);
/*
 * Keep what a report can hold, as cores do: the crashed thread's frames,
 * then the others' in order up to PROV_MAX_TOTAL_FRAMES frames and
 * TP_MAX_FRAME_BYTES bytes of names; the threads cut short (or left with
 * none) are marked truncated and c->threads_note says why.
 */
void tp_cap_frames(struct tp_state *st);
int tp_str_eq(const char *a, const char *b);

/* prefix.c: cut the log prefixes off the line (in place); the new start */
char *tp_strip_prefix(struct tp_state *st, char *line);

/*
 * A format family. `line` is required, the hooks optional:
 *   pending       a line that may continue the last one (before prefixes
 *                 and indentation are judged): 1 consumed
 *   line          `s` has no leading blank, `indent` blanks were skipped
 *   idle          a blank line (blank = 1) or a line nobody read: 1 keeps
 *                 the family's block open, 2 even its open thread
 *   before_close  finish what belongs to the open thread
 *   end           end of input
 *   settle        after end: drop copies, return the thread the family
 *                 says crashed, (size_t)-1 for none
 */
struct tp_format {
	const char *name;
	int (*pending)(struct tp_state *st, char *s);
	int (*line)(struct tp_state *st, char *s, size_t indent);
	int (*idle)(struct tp_state *st, int blank);
	void (*before_close)(struct tp_state *st);
	void (*end)(struct tp_state *st);
	size_t (*settle)(struct tp_state *st);
};

/* formats.c: in the order lines are offered; ends with a NULL name */
extern const struct tp_format tp_formats[];

/* native.c: gdb, eu-stack, coredumpctl */
int tp_native_line(struct tp_state *st, char *s, size_t indent);
int tp_gdb_pending(struct tp_state *st, char *s);
int tp_gdb_idle(struct tp_state *st, int blank);
void tp_gdb_before_close(struct tp_state *st);
size_t tp_gdb_settle(struct tp_state *st);
/* sanitizer.c: ASan, LSan, MSan, TSan, UBSan, libFuzzer */
int tp_san_line(struct tp_state *st, char *s, size_t indent);
int tp_san_idle(struct tp_state *st, int blank);
void tp_san_end(struct tp_state *st);
int tp_san_frame_ok(const char *s);
/* 1 when s is a frame only a sanitizer prints ("(module+0xOFF)", "#0 0x") */
int tp_san_frame_own(const char *s);
/* python.c: faulthandler, tracebacks, pystack */
int tp_python_line(struct tp_state *st, char *s, size_t indent);
/* gdb's py-bt / py-bt-full lines, before the native reader sees "#N Frame" */
int tp_pybt_line(struct tp_state *st, char *s, size_t indent);
/*
 * After the crashed thread is chosen: the py-bt threads' Python frames go
 * into the native gdb thread they belong to (the crashed one, else the gdb
 * thread printed before them), above the eval frame that ran them.
 */
void tp_pybt_merge(struct tp_state *st);
/* state.c: crash.headline, when none is set (replace: a Python exception's may be replaced) */
void tp_set_headline(struct tp_state *st, const char *text, size_t n, const char *error,
		     size_t error_len, int replace);
/* selfprinted.c: c10, backtrace_symbols, signal handlers, glog, LLVM */
int tp_misc_line(struct tp_state *st, char *s, size_t indent);
/* valgrind.c: memcheck */
int tp_valgrind_line(struct tp_state *st, char *s, size_t indent);
/* cudasan.c: NVIDIA compute-sanitizer */
int tp_cudasan_line(struct tp_state *st, char *s, size_t indent);
/* kernel.c: the kernel's segfault / trap lines (dmesg, journal) */
int tp_kernel_line(struct tp_state *st, char *s, size_t indent);

const char *tp_fmt_name(int fmt);

#endif
