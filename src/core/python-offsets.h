#ifndef PROV_PYTHON_OFFSETS_H
#define PROV_PYTHON_OFFSETS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Where the interpreter-state reader finds things, per CPython version
 * (x86-64 / LP64 release builds). -1: the version has no such field.
 * 3.8-3.12 come from tables written from CPython's headers
 * (python-offsets.c); 3.13+ from the interpreter's own _Py_DebugOffsets.
 */
enum py_frame_model {
	PY_FRAME_OBJECT,	/* 3.8-3.10: PyFrameObject chain through f_back */
	PY_FRAME_INTERP,	/* 3.11+: _PyInterpreterFrame chain through previous */
};

enum py_line_model {
	PY_LINE_LNOTAB,	/* 3.8, 3.9: co_lnotab, f_lasti in bytes */
	PY_LINE_LINETABLE,	/* 3.10: co_linetable, f_lasti in code units */
	PY_LINE_LOCATIONS,	/* 3.11+: the location table, instruction pointer */
};

struct py_offsets {
	unsigned int minor;
	enum py_frame_model frames;
	enum py_line_model lines;
	/* _PyRuntimeState */
	int32_t rt_finalizing;	/* pointer: the finalizing thread state */
	int32_t rt_interp_head;
	int32_t rt_tstate_current;	/* the GIL holder (3.8-3.11) */
	/* PyInterpreterState */
	int32_t is_next;
	int32_t is_threads_head;
	int32_t is_gil;	/* 3.12: pointer to struct _gil_runtime_state */
	int32_t is_gil_inline;	/* 3.13+: the gil state inside the interpreter */
	int32_t gil_locked;	/* in struct _gil_runtime_state */
	int32_t gil_holder;
	/* PyThreadState */
	int32_t ts_next;
	int32_t ts_cframe;	/* 3.11, 3.12: _PyCFrame *cframe */
	int32_t cf_current_frame;	/* in _PyCFrame */
	int32_t ts_frame;	/* 3.8-3.10 frame, 3.13+ current_frame */
	int32_t ts_thread_id;	/* pthread_t */
	int32_t ts_native_thread_id;	/* the kernel's tid */
	/* the frame (PyFrameObject or _PyInterpreterFrame) */
	int32_t fr_previous;
	int32_t fr_code;
	int32_t fr_instr;	/* 3.11+: prev_instr / instr_ptr */
	int32_t fr_lasti;	/* 3.8-3.10: int f_lasti */
	int32_t fr_is_entry;	/* 3.11: bool is_entry */
	int32_t fr_owner;	/* 3.11+: char owner */
	int code_tagged;	/* 3.14+: f_executable is a tagged _PyStackRef */
	int32_t fr_localsplus;	/* 3.11+: the arguments, locals, cells, then the stack */
	/* PyCodeObject */
	int32_t co_filename;
	int32_t co_name;
	int32_t co_qualname;
	int32_t co_linetable;	/* or co_lnotab */
	int32_t co_firstlineno;
	int32_t co_code_adaptive;	/* 3.11+: the bytecode inside the object */
	int32_t co_firsttraceable;	/* 3.11, 3.12 */
	int32_t co_flags;	/* int: CO_VARARGS 0x4, CO_VARKEYWORDS 0x8 */
	int32_t co_argcount;	/* int; co_kwonlyargcount is the int 8 bytes on */
	int32_t co_localsplusnames;	/* tuple of str */
	int32_t co_localspluskinds;	/* bytes: CO_FAST_LOCAL/CELL/FREE per name */
	int32_t co_varnames;	/* 3.8-3.10: tuples of names; f_localsplus holds */
	int32_t co_cellvars;	/* the locals, then the cells, then the free */
	int32_t co_freevars;	/* variables (cell objects both) */
	int long_tagged;	/* 3.12+: PyLongObject's lv_tag replaces ob_size */
	int32_t tuple_items;	/* PyTupleObject.ob_item: 24; 3.14 adds ob_hash before it */
	/* PyUnicodeObject */
	int32_t ascii_size;	/* sizeof(PyASCIIObject) */
	int32_t compact_size;	/* sizeof(PyCompactUnicodeObject) */
};

/* The table for 3.minor (8 <= minor <= 12), or NULL. */
const struct py_offsets *py_offsets_for(unsigned int minor);

#define PY_DEBUG_COOKIE "xdebugpy"

/*
 * Fill *out from a 3.13+ _Py_DebugOffsets image (the first bytes of
 * _PyRuntime, n of them): 0, or -1 when the cookie, version or an offset
 * makes no sense or the version's layout is unknown (3.13 and 3.14 are
 * known). *hexversion gets its version field whenever the cookie matched.
 */
int py_offsets_from_debug(struct py_offsets *out, uint64_t *hexversion,
			  const unsigned char *d, size_t n);

#endif
