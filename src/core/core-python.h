#ifndef PROV_CORE_PYTHON_H
#define PROV_CORE_PYTHON_H

#include <elfutils/libdwfl.h>

#include "model.h"
#include "python.h"

/*
 * The core analyzer's side of the Python reader (python.c): finds the
 * module that defines _PyRuntime among dwfl's modules (the one whose code
 * ran _PyEval_EvalFrameDefault, else one named python3.X / libpython3.X),
 * its address (dynamic or full symbol table, else the .PyRuntime section)
 * and version (Py_Version, else the file name), and gives the reader the
 * process's memory: `mem` (the core's segments or a live process) first,
 * then the module files for read-only data a core leaves out.
 * Adds nothing when the process ran no CPython. Part of the core analyzer:
 * the only other file that uses libdwfl.
 */
void prov_core_python_frames(struct prov_crash *c, Dwfl *dwfl, prov_py_read_fn mem,
			     void *mem_arg);

#endif
