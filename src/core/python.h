#ifndef PROV_PYTHON_H
#define PROV_PYTHON_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/*
 * The CPython interpreter-state reader: given a way to read the crashed (or
 * snapshotted) process's memory and where `_PyRuntime` is, it walks the
 * interpreters, their thread states and each thread's frame chain, and
 * inserts the Python frames into the model's threads, each at the native
 * `_PyEval_EvalFrameDefault` frame that evaluated it (as `pystack --native`
 * orders them). It knows nothing of ELF or libdwfl: the analyzer that has
 * the process image provides the memory reader.
 *
 * Everything read is untrusted: every pointer goes through the reader (which
 * says when the bytes are not there), chains and counts are capped, and a
 * state that makes no sense becomes a note on the thread (or the crash),
 * never an error.
 */

/* Read len bytes at addr: 0, or -1 when not all of them are available. */
typedef int (*prov_py_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

struct prov_py_target {
	prov_py_read_fn read;
	void *arg;
	uint64_t runtime;	/* the address of _PyRuntime */
	/* The interpreter's version when the module says (Py_Version, the
	 * file name): 0 when unknown. 3.13+ carry it in their debug offsets. */
	unsigned int major, minor;
	const char *module;	/* the module that defines _PyRuntime, for notes */
};

/*
 * Read the interpreter state and add the Python frames to c's threads
 * (frames with python = 1, index renumbered), each thread's holds_gil and
 * python fields, and c->python_version / python_finalizing. Damage is
 * recorded in c->python_note or the thread's python_note. Returns the
 * number of Python frames added (0 when none could be read).
 */
size_t prov_python_annotate(struct prov_crash *c, const struct prov_py_target *t);

/*
 * Give each Python frame's source file a module of its own (path = the .py
 * file, no address range), and the frame's module that path, so that the
 * resolvers (pip RECORD, dpkg .list, conda), the mappings and the source
 * excerpts treat Python frames as they treat native ones. Only absolute
 * paths ("<frozen ...>" and "<string>" name no file); at most
 * PROV_PYTHON_MAX_FILES files. Returns the number of modules added.
 */
#define PROV_PYTHON_MAX_FILES 4096
size_t prov_python_file_modules(struct prov_crash *c);

/* "3.11" from a file name such as "libpython3.11.so.1.0" or "python3.11d";
 * 0 and *major, *minor set, or -1. */
int prov_python_version_from_name(unsigned int *major, unsigned int *minor, const char *path);

/* 1 when the module path looks like a CPython interpreter or libpython. */
int prov_python_is_interpreter(const char *path);

/* Line of a code-unit offset in a 3.11+ location table (co_linetable):
 * the line, or -1 when the table has none for it. Exposed for unit tests. */
int prov_python_loctable_line(const unsigned char *p, size_t n, int firstlineno, int64_t unit);

#endif
