#ifndef PROV_SRCDEFS_H
#define PROV_SRCDEFS_H

#include <stddef.h>

/*
 * Function definitions in a source tree, found by name (for frames that have
 * a function name but no line: stripped libraries). A light C/C++/CUDA/HIP
 * scanner, not a compiler: comments, strings and preprocessor lines are
 * skipped, `namespace` / `class` / `struct` scopes are followed, and a
 * definition is `NAME ( ... ) ... {` at namespace or class level. Macros
 * that expand to definitions are not seen; a macro call followed by a block
 * may be taken for one. Results are guesses, reported as such.
 */
struct prov_def {
	char *qname;	/* "ns::Klass::method", "main" (template arguments dropped) */
	char *name;	/* the last component: "method" */
	char *path;	/* repository-relative */
	int line;	/* of the name */
};

struct prov_defs {
	struct prov_def *items;
	size_t n, alloc;
	size_t bytes;	/* source bytes scanned */
	size_t files;
	int truncated;	/* a cap was hit: the index is partial */
};

void prov_defs_release(struct prov_defs *d);

/* Scan one file's text; definitions are appended. */
void prov_defs_scan_text(struct prov_defs *d, const char *path, const char *text, size_t len);

/* 1 when the path's extension is one the scanner reads (.c .cc .cpp .cxx .h .hpp .cu .cuh .hip ...). */
int prov_defs_wants_path(const char *path);

/*
 * "ns::Klass::method" from a demangled frame name ("ns::Klass::method(int)
 * const", "void ns::f<int>(int)", "(anonymous namespace)::g()",
 * "name@GLIBC_2.2.5", "name.cold"): return type, parameters, template
 * arguments, anonymous namespaces, symbol versions and compiler suffixes
 * dropped. NULL when nothing like a name remains. Caller frees.
 */
char *prov_defs_normalize_name(const char *function);

/*
 * Does definition `qname` match frame name `want` (both normalized)? 2: the
 * same qualified name; 1: one is a component-wise suffix of the other (a
 * definition written inside `namespace ns {` as `Klass::method`, or a C
 * function); 0: no.
 */
int prov_defs_match(const char *qname, const char *want);

#endif
