/*
 * Offsets into CPython's interpreter state, per version, for x86-64 (LP64)
 * release builds (no Py_DEBUG, no Py_TRACE_REFS, GIL build).
 *
 * 3.8-3.12 have no self-description: each table below was written from that
 * version's headers, the struct named beside each field:
 *   Include/internal/pycore_runtime.h   struct pyruntimestate (_PyRuntimeState)
 *   Include/internal/pycore_interp.h    struct _is (PyInterpreterState)
 *   Include/cpython/pystate.h           struct _ts (PyThreadState), _PyCFrame
 *   Include/internal/pycore_frame.h     struct _PyInterpreterFrame (3.11+)
 *   Include/cpython/frameobject.h       struct _frame (PyFrameObject, 3.8-3.10)
 *   Include/cpython/code.h              struct PyCodeObject
 *   Include/cpython/unicodeobject.h     PyASCIIObject, PyCompactUnicodeObject
 * and checked, where an interpreter with DWARF was at hand, with gdb's
 * `ptype /o` on it (3.11.7).
 * 3.13+ publish the offsets themselves: _PyRuntime starts with a
 * _Py_DebugOffsets (Include/internal/pycore_runtime.h in 3.13,
 * pycore_debug_offsets.h in 3.14), read by py_offsets_from_debug().
 */
#include <string.h>

#include "python-offsets.h"

#include "banned.h"

#define NO (-1)

static const struct py_offsets tables[] = {
	{
		/* 3.11 */
		.minor = 11,
		.frames = PY_FRAME_INTERP,
		.lines = PY_LINE_LOCATIONS,
		/* _PyRuntimeState: _finalizing (after five ints), interpreters
		 * {mutex, head}, gilstate.tstate_current */
		.rt_finalizing = 24,
		.rt_interp_head = 40,
		.rt_tstate_current = 576,
		/* struct _is: next, threads {next_unique_id, head} */
		.is_next = 0,
		.is_threads_head = 16,
		.is_gil = NO,
		.is_gil_inline = NO,
		.gil_locked = NO,
		.gil_holder = NO,
		/* struct _ts: prev, next, interp, ... cframe, ... thread_id,
		 * native_thread_id */
		.ts_next = 8,
		.ts_cframe = 56,
		.cf_current_frame = 8,	/* _PyCFrame: use_tracing, current_frame */
		.ts_frame = NO,
		.ts_thread_id = 152,
		.ts_native_thread_id = 160,
		/* _PyInterpreterFrame: f_func, f_globals, f_builtins, f_locals,
		 * f_code, frame_obj, previous, prev_instr, stacktop, is_entry,
		 * owner, localsplus */
		.fr_previous = 48,
		.fr_code = 32,
		.fr_instr = 56,
		.fr_lasti = NO,
		.fr_is_entry = 68,
		.fr_owner = 69,
		/* PyCodeObject: co_firstlineno, co_filename, co_name,
		 * co_qualname, co_linetable, _co_firsttraceable,
		 * co_code_adaptive */
		.co_filename = 112,
		.co_name = 120,
		.co_qualname = 128,
		.co_linetable = 136,
		.co_firstlineno = 72,
		.co_code_adaptive = 184,
		.co_firsttraceable = 168,
		/* PyASCIIObject still has wstr (removed in 3.12) */
		.ascii_size = 48,
		.compact_size = 72,
	},
};

const struct py_offsets *py_offsets_for(unsigned int minor)
{
	size_t i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (tables[i].minor == minor)
			return &tables[i];
	return NULL;
}

/*
 * The _Py_DebugOffsets layout: all uint64_t, each group starting with the
 * struct's size. 3.14 added fields inside groups (threads_main,
 * code_object_generation, tlbc_generation, stackpointer, tlbc_index,
 * co_tlbc, a set_object group), so the word positions depend on the version.
 */
enum {
	W_COOKIE, W_VERSION, W_FREE_THREADED,
	W_RT_SIZE, W_RT_FINALIZING, W_RT_INTERP_HEAD,
	W_IS_SIZE,	/* then id, next, threads_head, [threads_main], gc, ... */
};

static int valid_off(uint64_t off, uint64_t size)
{
	return size > 0 && size < (1u << 24) && off < size;
}

int py_offsets_from_debug(struct py_offsets *out, uint64_t *hexversion,
			  const unsigned char *d, size_t n)
{
	uint64_t w[128];
	size_t nw = n / 8 < 128 ? n / 8 : 128, i, is, ts, fr, co, po, ty, uo;
	struct py_offsets o;
	int v314;

	if (n < 8 || memcmp(d, PY_DEBUG_COOKIE, 8) != 0)
		return -1;
	memcpy(w, d, nw * 8);
	if (nw < 64)
		return -1;
	if ((w[W_VERSION] >> 24) != 3 || ((w[W_VERSION] >> 16) & 0xff) < 13)
		return -1;
	v314 = ((w[W_VERSION] >> 16) & 0xff) >= 14;
	memset(&o, 0, sizeof(o));
	o.minor = (unsigned int)((w[W_VERSION] >> 16) & 0xff);
	o.frames = PY_FRAME_INTERP;
	o.lines = PY_LINE_LOCATIONS;
	if (!valid_off(w[W_RT_FINALIZING], w[W_RT_SIZE]) ||
	    !valid_off(w[W_RT_INTERP_HEAD], w[W_RT_SIZE]))
		return -1;
	o.rt_finalizing = (int32_t)w[W_RT_FINALIZING];
	o.rt_interp_head = (int32_t)w[W_RT_INTERP_HEAD];
	o.rt_tstate_current = NO;

	is = W_IS_SIZE;	/* size id next threads_head [threads_main] gc imports sysdict
			 * builtins ceval_gil gil_runtime_state enabled locked holder
			 * [code_object_generation tlbc_generation] */
	{
		size_t k = is + 4 + (v314 ? 1 : 0);	/* gc */

		if (!valid_off(w[is + 2], w[is]) || !valid_off(w[is + 3], w[is]))
			return -1;
		o.is_next = (int32_t)w[is + 2];
		o.is_threads_head = (int32_t)w[is + 3];
		o.is_gil = NO;
		o.is_gil_inline = 1;
		/* gc imports sysdict builtins ceval_gil gil_runtime_state enabled */
		k += 7;
		o.gil_locked = valid_off(w[k], w[is]) ? (int32_t)w[k] : NO;
		o.gil_holder = valid_off(w[k + 1], w[is]) ? (int32_t)w[k + 1] : NO;
		ts = k + 2 + (v314 ? 2 : 0);
	}
	/* thread_state: size prev next interp current_frame thread_id
	 * native_thread_id datastack_chunk status */
	for (i = 1; i <= 6; i++)
		if (!valid_off(w[ts + i], w[ts]))
			return -1;
	o.ts_next = (int32_t)w[ts + 2];
	o.ts_cframe = NO;
	o.cf_current_frame = NO;
	o.ts_frame = (int32_t)w[ts + 4];
	o.ts_thread_id = (int32_t)w[ts + 5];
	o.ts_native_thread_id = (int32_t)w[ts + 6];
	/* interpreter_frame: size previous executable instr_ptr localsplus
	 * owner [stackpointer tlbc_index] */
	fr = ts + 9;
	for (i = 1; i <= 5; i++)
		if (!valid_off(w[fr + i], w[fr]))
			return -1;
	o.fr_previous = (int32_t)w[fr + 1];
	o.fr_code = (int32_t)w[fr + 2];
	o.fr_instr = (int32_t)w[fr + 3];
	o.fr_lasti = NO;
	o.fr_is_entry = NO;
	o.fr_owner = (int32_t)w[fr + 5];
	o.code_tagged = v314;
	/* code_object: size filename name qualname linetable firstlineno
	 * argcount localsplusnames localspluskinds co_code_adaptive [co_tlbc] */
	co = fr + 6 + (v314 ? 2 : 0);
	for (i = 1; i <= 9; i++)
		if (!valid_off(w[co + i], w[co]))
			return -1;
	o.co_filename = (int32_t)w[co + 1];
	o.co_name = (int32_t)w[co + 2];
	o.co_qualname = (int32_t)w[co + 3];
	o.co_linetable = (int32_t)w[co + 4];
	o.co_firstlineno = (int32_t)w[co + 5];
	o.co_code_adaptive = (int32_t)w[co + 9];
	o.co_firsttraceable = NO;
	/* pyobject(2) type_object(4) tuple(3) list(3) [set(4)] dict(3)
	 * float(2) long(3) bytes(3) unicode: size state length asciiobject_size */
	po = co + 10 + (v314 ? 1 : 0);
	ty = po + 2;
	uo = ty + 4 + 3 + 3 + (v314 ? 4 : 0) + 3 + 2 + 3 + 3;
	if (uo + 3 >= nw || w[uo + 3] < 24 || w[uo + 3] > 256)
		return -1;
	o.ascii_size = (int32_t)w[uo + 3];
	/* PyCompactUnicodeObject adds utf8_length and utf8 */
	o.compact_size = o.ascii_size + 16;
	*out = o;
	*hexversion = w[W_VERSION];
	return 0;
}
