/*
 * Text backtraces: the format families, in the order a line is offered to
 * them. A new format is a new file in src/text/, one entry here and its
 * fixtures in fixtures/text/<format>/.
 */
#include <stddef.h>

#include "internal.h"
#include "banned.h"

const struct tp_format tp_formats[] = {
	/* "==PID==    at 0x…" before the sanitizers' "==PID==" lines */
	{ .name = "valgrind", .line = tp_valgrind_line },
	{ .name = "compute-sanitizer", .line = tp_cudasan_line },
	/* "prog[1234]: segfault at …" before a prefix-stripped line reads as prose */
	{ .name = "kernel", .line = tp_kernel_line },
	/* "#9 Frame 0x…, for file …" (py-bt-full) is no native gdb frame */
	{ .name = "py-bt", .line = tp_pybt_line },
	{ .name = "native", .pending = tp_gdb_pending, .line = tp_native_line, .idle = tp_gdb_idle,
	  .before_close = tp_gdb_before_close, .settle = tp_gdb_settle },
	{ .name = "sanitizer", .line = tp_san_line, .idle = tp_san_idle, .end = tp_san_end },
	{ .name = "python", .line = tp_python_line },
	{ .name = "self-printed", .line = tp_misc_line },
	{ .name = NULL },
};
