/*
 * libFuzzer target: the CPython interpreter-state reader (src/core/python.c) on a
 * made-up process memory. Input: one byte, the minor version the reader is
 * told (0: unknown), one byte of flags (unused), then an image mapped at
 * 0x100000 that starts with _PyRuntime; every other address is unmapped.
 * The model has one thread (tid 1000) with native eval frames for the Python
 * frames to go to. Seeds: fuzz/make-python-seeds.py.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model.h"
#include "python.h"
#include "util.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_PY_BASE 0x100000u

struct fuzz_py_mem {
	const uint8_t *p;
	size_t n;
};

static int fuzz_py_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct fuzz_py_mem *m = arg;

	if (addr < FUZZ_PY_BASE || addr - FUZZ_PY_BASE > m->n || len > m->n - (addr - FUZZ_PY_BASE))
		return -1;
	memcpy(buf, m->p + (addr - FUZZ_PY_BASE), len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const native[] = {
		"leaf", "_PyEval_EvalFrameDefault", "call", "_PyEval_EvalFrameDefault", "main",
	};
	struct fuzz_py_mem mem;
	struct prov_py_target t;
	struct prov_crash *c;
	struct prov_thread *th;
	size_t i, nnative = 0, npy = 0;

	if (size < 2 || size > (1u << 20))
		return 0;
	mem.p = data + 2;
	mem.n = size - 2;
	c = prov_crash_new(PROV_INPUT_CORE, "fuzz");
	th = prov_crash_add_thread(c);
	th->has_tid = 1;
	th->tid = 1000;
	th->crashed = data[1] & 1;	/* its Python frames' variables are read */
	th->regs = prov_xcalloc(1, sizeof(*th->regs));
	th->nregs = 1;
	memcpy(th->regs[0].name, "fs_base", 8);
	th->regs[0].value = 0x7f0000001000;
	for (i = 0; i < sizeof(native) / sizeof(native[0]); i++) {
		struct prov_frame *f = prov_thread_add_frame(th);

		f->index = (int)i;
		f->has_pc = 1;
		f->pc = 0x1000 + i;
		f->function = prov_xstrdup(native[i]);
	}
	memset(&t, 0, sizeof(t));
	t.read = fuzz_py_read;
	t.arg = &mem;
	t.runtime = FUZZ_PY_BASE;
	t.major = data[0] ? 3 : 0;
	t.minor = data[0];
	t.module = "libpython-fuzz.so";
	(void)prov_python_annotate(c, &t);
	/* the contract: native frames all kept, in order; indices renumbered */
	th = &c->threads[0];
	for (i = 0; i < th->nframes; i++) {
		if (th->frames[i].index != (int)i)
			__builtin_trap();
		if (th->frames[i].python) {
			npy++;
		} else if (nnative >= sizeof(native) / sizeof(native[0]) ||
			   strcmp(th->frames[i].function, native[nnative++]) != 0) {
			__builtin_trap();
		}
	}
	if (nnative != sizeof(native) / sizeof(native[0]) || npy > 4096)
		__builtin_trap();
	prov_crash_free(c);
	return 0;
}
