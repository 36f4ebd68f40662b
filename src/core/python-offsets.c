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

/* PyFrameObject (3.8-3.10) starts with PyObject_VAR_HEAD (24 bytes): f_back,
 * f_code, f_builtins, f_globals, f_locals, f_valuestack, then 3.8/3.9:
 * f_stacktop, f_trace, f_trace_lines, f_trace_opcodes, f_gen, f_lasti;
 * 3.10: f_trace, f_stackdepth, f_trace_lines, f_trace_opcodes, f_gen,
 * f_lasti. PyCodeObject (3.8-3.10, Include/code.h, Include/cpython/code.h):
 * PyObject_HEAD, seven ints (co_argcount .. co_firstlineno), co_code,
 * co_consts, co_names, co_varnames, co_freevars, co_cellvars, co_cell2arg,
 * co_filename, co_name, co_lnotab (3.10: co_linetable). f_localsplus
 * follows f_blockstack[CO_MAXBLOCKS] (20 PyTryBlocks of three ints): 360 on
 * 3.8/3.9 (after f_iblock, f_executing), 352 on 3.10 (after f_iblock,
 * f_state). */
#define CODE_38_310 \
	.tuple_items = 24, \
	.co_filename = 104, .co_name = 112, .co_qualname = NO, .co_linetable = 120, \
	.co_firstlineno = 40, .co_code_adaptive = NO, .co_firsttraceable = NO, \
	.co_flags = 36, .co_argcount = 16, .co_varnames = 72, .co_freevars = 80, \
	.co_cellvars = 88, .co_localsplusnames = NO, .co_localspluskinds = NO, \
	.ascii_size = 48, .compact_size = 72
/* PyThreadState 3.8-3.10 (Include/cpython/pystate.h): prev, next, interp,
 * frame, four ints (3.8/3.9: recursion_depth, overflowed/recursion_critical,
 * stackcheck_counter, tracing, use_tracing; 3.10: recursion_depth,
 * recursion_headroom, stackcheck_counter, tracing, then CFrame *cframe),
 * the profile/trace hooks, curexc_*, exc_state (_PyErr_StackItem: 4
 * pointers), exc_info, dict, gilstate_counter, async_exc, thread_id. No
 * native_thread_id before 3.11. PyInterpreterState 3.8-3.10
 * (Include/internal/pycore_interp.h, 3.8: Include/cpython/pystate.h): next,
 * tstate_head. */
#define THREADS_38_310 \
	.is_next = 0, .is_threads_head = 8, .is_gil = NO, .is_gil_inline = NO, \
	.gil_locked = NO, .gil_holder = NO, \
	.ts_next = 8, .ts_cframe = NO, .cf_current_frame = NO, .ts_frame = 24, \
	.ts_thread_id = 176, .ts_native_thread_id = NO, \
	.fr_previous = 24, .fr_code = 32, .fr_instr = NO, .fr_is_entry = NO, .fr_owner = NO

static const struct py_offsets tables[] = {
	{
		/* 3.8: _PyRuntimeState (Include/internal/pycore_pystate.h):
		 * four ints, PyThreadState *finalizing, interpreters {mutex,
		 * head}. The GIL state sits behind the gc state: not read. */
		.minor = 8,
		.frames = PY_FRAME_OBJECT,
		.lines = PY_LINE_LNOTAB,
		.rt_finalizing = 16,
		.rt_interp_head = 32,
		.rt_tstate_current = NO,
		THREADS_38_310,
		.fr_lasti = 104,
		.fr_localsplus = 360,
		CODE_38_310,
	},
	{
		/* 3.9: _PyRuntimeState (Include/internal/pycore_runtime.h):
		 * four ints, _finalizing, interpreters {mutex, head, main,
		 * next_id}, xidregistry {mutex, head}, main_thread,
		 * exitfuncs[32], nexitfuncs, ceval {signals_pending, gil
		 * (struct _gil_runtime_state, 208 bytes)}, gilstate
		 * {check_enabled, tstate_current} */
		.minor = 9,
		.frames = PY_FRAME_OBJECT,
		.lines = PY_LINE_LNOTAB,
		.rt_finalizing = 16,
		.rt_interp_head = 32,
		.rt_tstate_current = 568,
		THREADS_38_310,
		.fr_lasti = 104,
		.fr_localsplus = 360,
		CODE_38_310,
	},
	{
		/* 3.10: _PyRuntimeState as 3.9; PyFrameObject lost f_stacktop */
		.minor = 10,
		.frames = PY_FRAME_OBJECT,
		.lines = PY_LINE_LINETABLE,
		.rt_finalizing = 16,
		.rt_interp_head = 32,
		.rt_tstate_current = 568,
		THREADS_38_310,
		.fr_lasti = 96,
		.fr_localsplus = 352,
		CODE_38_310,
	},
	{
		/* 3.11 */
		.minor = 11,
		.frames = PY_FRAME_INTERP,
		.lines = PY_LINE_LOCATIONS,
		/* _PyRuntimeState: _initialized and four more ints, _finalizing,
		 * interpreters {mutex, head}, ... gilstate.tstate_current as
		 * 3.9 plus 8 */
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
		/* struct _ts: prev, next, interp, seven ints, cframe, ...
		 * thread_id, native_thread_id */
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
		/* PyCodeObject: PyObject_VAR_HEAD, co_consts, co_names,
		 * co_exceptiontable, co_flags, two shorts, co_argcount ..
		 * co_firstlineno (72) .. co_nfreevars, co_localsplusnames,
		 * co_localspluskinds, co_filename, co_name, co_qualname,
		 * co_linetable, co_weakreflist, _co_code, _co_linearray,
		 * _co_firsttraceable, co_extra, co_code_adaptive */
		.co_filename = 112,
		.co_name = 120,
		.co_qualname = 128,
		.co_linetable = 136,
		.co_firstlineno = 72,
		.co_code_adaptive = 184,
		.co_firsttraceable = 168,
		/* locals: _PyInterpreterFrame.localsplus; co_flags, (two
		 * shorts), co_argcount, co_posonlyargcount, co_kwonlyargcount
		 * .. co_localsplusnames (96), co_localspluskinds (checked with
		 * gdb `ptype /o` on 3.11.7); PyLongObject keeps ob_size */
		.fr_localsplus = 72,
		.co_flags = 48,
		.co_argcount = 56,
		.co_localsplusnames = 96,
		.co_localspluskinds = 104,
		.long_tagged = 0,
		.tuple_items = 24,
		/* PyASCIIObject still has wstr (removed in 3.12) */
		.ascii_size = 48,
		.compact_size = 72,
	},
	{
		/* 3.12 */
		.minor = 12,
		.frames = PY_FRAME_INTERP,
		.lines = PY_LINE_LOCATIONS,
		/* _PyRuntimeState starts as 3.11's; the GIL moved into the
		 * interpreter (ceval.gil) behind its gc state: not read */
		.rt_finalizing = 24,
		.rt_interp_head = 40,
		.rt_tstate_current = NO,
		/* struct _is: next, id, id_refcount, requires_idref, id_mutex,
		 * _initialized, finalizing, monitoring_version,
		 * last_restart_version, threads {next_unique_id, head} */
		.is_next = 0,
		.is_threads_head = 72,
		.is_gil = NO,
		.is_gil_inline = NO,
		.gil_locked = NO,
		.gil_holder = NO,
		/* struct _ts: prev, next, interp, _status, six ints, cframe,
		 * four hooks, current_exception, exc_info, dict,
		 * gilstate_counter, async_exc, thread_id, native_thread_id;
		 * _PyCFrame: current_frame, previous */
		.ts_next = 8,
		.ts_cframe = 56,
		.cf_current_frame = 0,
		.ts_frame = NO,
		.ts_thread_id = 136,
		.ts_native_thread_id = 144,
		/* _PyInterpreterFrame: f_code, previous, f_funcobj, f_globals,
		 * f_builtins, f_locals, frame_obj, prev_instr, stacktop,
		 * return_offset, owner, localsplus */
		.fr_previous = 8,
		.fr_code = 0,
		.fr_instr = 56,
		.fr_lasti = NO,
		.fr_is_entry = NO,
		.fr_owner = 70,
		/* PyCodeObject: PyObject_VAR_HEAD, co_consts, co_names,
		 * co_exceptiontable, eleven ints and co_version, ...,
		 * co_filename (112), co_name, co_qualname, co_linetable,
		 * co_weakreflist, _co_cached, _co_instrumentation_version,
		 * _co_monitoring, _co_firsttraceable (176), co_extra,
		 * co_code_adaptive (192) */
		.co_filename = 112,
		.co_name = 120,
		.co_qualname = 128,
		.co_linetable = 136,
		.co_firstlineno = 68,
		.co_code_adaptive = 192,
		.co_firsttraceable = 176,
		/* locals: localsplus after owner; co_flags, co_argcount,
		 * co_posonlyargcount, co_kwonlyargcount ..; PyLongObject's
		 * _PyLongValue lv_tag (Include/cpython/longintrepr.h) */
		.fr_localsplus = 72,
		.co_flags = 48,
		.co_argcount = 52,
		.co_localsplusnames = 96,
		.co_localspluskinds = 104,
		.long_tagged = 1,
		.tuple_items = 24,
		/* PyASCIIObject without wstr */
		.ascii_size = 40,
		.compact_size = 56,
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
	*hexversion = w[W_VERSION];
	/* 3.15 grew thread_state again: only the layouts known are read */
	if ((w[W_VERSION] >> 24) != 3 || ((w[W_VERSION] >> 16) & 0xff) < 13 ||
	    ((w[W_VERSION] >> 16) & 0xff) > 14)
		return -1;
	v314 = ((w[W_VERSION] >> 16) & 0xff) == 14;
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
	/* locals: the frame's localsplus, the code's argcount and names; co_flags
	 * precedes co_argcount (3.12-3.14 PyCodeObject), co_kwonlyargcount is
	 * two ints after it */
	o.fr_localsplus = (int32_t)w[fr + 4];
	o.co_argcount = (int32_t)w[co + 6];
	o.co_flags = o.co_argcount >= 4 ? o.co_argcount - 4 : NO;
	o.co_localsplusnames = (int32_t)w[co + 7];
	o.co_localspluskinds = (int32_t)w[co + 8];
	o.long_tagged = 1;
	/* pyobject(2) type_object(4) tuple(3) list(3) [set(4)] dict(3)
	 * float(2) long(3) bytes(3) unicode: size state length asciiobject_size */
	po = co + 10 + (v314 ? 1 : 0);
	ty = po + 2;
	/* tuple_object: size ob_item ob_size (3.14's tuples cache their hash
	 * before ob_item) */
	if (ty + 6 >= nw || !valid_off(w[ty + 5], 1u << 16) || w[ty + 5] < 24)
		return -1;
	o.tuple_items = (int32_t)w[ty + 5];
	uo = ty + 4 + 3 + 3 + (v314 ? 4 : 0) + 3 + 2 + 3 + 3;
	if (uo + 3 >= nw || w[uo + 3] < 24 || w[uo + 3] > 256)
		return -1;
	o.ascii_size = (int32_t)w[uo + 3];
	/* PyCompactUnicodeObject adds utf8_length and utf8 */
	o.compact_size = o.ascii_size + 16;
	*out = o;
	return 0;
}
