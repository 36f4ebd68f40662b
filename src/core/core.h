#ifndef PROV_CORE_H
#define PROV_CORE_H

#include <sys/types.h>

#include "model.h"

/*
 * The core analyzer: reads an ELF core (ET_CORE) with elfutils' libdwfl and
 * fills a crash model: process (NT_PRPSINFO), signal (NT_SIGINFO, else the
 * first NT_PRSTATUS's pr_cursig), every thread (crashing thread first, with
 * its general registers), every frame (pc, demangled function, offset,
 * module, file:line, inlined frames), every module (NT_FILE path, range,
 * build ID, file and debug file used). The only code that uses libdwfl.
 */
struct prov_core_opts {
	const char *exe;	/* --exe: the executable, when not where the core says */
	const char *sysroot;	/* --sysroot: look files up under this root first; NULL = "/" */
	unsigned int max_frames;	/* per thread; 0 = PROV_MAX_FRAMES */
	int no_python;	/* 1: no Python frames from the interpreter state */
	const char *plain_debug_dir;	/* uncompressed copies of debug files (plaindebug.h); NULL: none */
};

/*
 * Analyze `path`. On success *out is a new model (caller frees). Errors:
 * PROV_EINPUT when the file is missing, unreadable, not ELF, not a core or
 * truncated beyond use (message names the file and what is wrong);
 * PROV_ELIMIT when a count or size from the core exceeds a hard cap.
 * Damage that leaves the rest usable (a thread that cannot be unwound, a
 * module without a file) is recorded in the model, not an error.
 */
int prov_core_analyze(struct prov_crash **out, const char *path,
		      const struct prov_core_opts *opts);

/*
 * Analyze a running process as a core: every thread is stopped with ptrace
 * (PTRACE_SEIZE, no signal), unwound by libdwfl, its memory read through
 * /proc/PID/mem (Python frames too), then let go: the process keeps running.
 * input_path is "pid PID", format "process"; no thread is the crashed one.
 * Errors: PROV_EINPUT with one message when the process is missing or
 * cannot be attached (permissions, ptrace_scope).
 */
int prov_core_analyze_pid(struct prov_crash **out, pid_t pid, const struct prov_core_opts *opts);

/* 1 when the first bytes are an ELF header of type ET_CORE, else 0. */
int prov_core_is_core(const unsigned char *head, size_t len);

#endif
