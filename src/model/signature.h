#ifndef PROV_SIGNATURE_H
#define PROV_SIGNATURE_H

#include <stddef.h>

#include "model.h"

/*
 * The crash signature (docs/signature.md): what groups the same crash in the
 * store, triage and resolve's determinism line. "SIGNO|f1|f2|f3": the
 * crash's signal number (0 when unknown) and the first PROV_SIGNATURE_FRAMES
 * function names of the crashing thread from the crash site down, skipping
 * what is not the crash (like ClusterFuzz's crash state): signal handling
 * (the handler's frames above the crash site, the signal frame), abort /
 * raise / assert machinery, std:: and C++ runtime internals, allocator and
 * sanitizer runtimes, the interpreter's eval loop between Python frames,
 * process and thread start-up, unnamed frames. When the rules leave no
 * frame, the first named frames from the crash site are used.
 */
#define PROV_SIGNATURE_FRAMES 3

/* One frame as the rules see it (a model frame, or one of a JSON report). */
struct prov_sig_frame {
	const char *function;	/* NULL or "??": unnamed */
	const char *module;	/* path or NULL */
	int python;	/* a Python-level frame */
	int signal_frame;	/* "<signal handler called>" */
	int in_handler;	/* above a signal frame (the analyzer marked it) */
	int inlined;	/* an inlined call (only DWARF shows it) */
	int separate_debug;	/* the module's debug info came from a separate file */
};

/*
 * The rule's version (docs/signature.md, "Names"): a store records the rule
 * its signatures were computed with and recomputes them from the stored
 * reports when it is older (cache/, on a writer's open).
 */
#define PROV_SIGNATURE_RULE 2

/*
 * A frame's name as the signature spells it, the same whatever debug info the
 * analysing host had (docs/signature.md, "Names"): no return type, argument
 * list, cv-qualifier or symbol version; glibc's internal aliases
 * (__GI___clock_nanosleep, __libc_malloc, __libc_start_main_impl) as the
 * exported name (clock_nanosleep, malloc, libc_start_main) in a glibc
 * module. Python names are kept. NULL when the frame is unnamed; else
 * malloc'd.
 */
char *prov_signature_name(const char *function, const char *module, int python);

/*
 * The signature of a crashing thread's frames, innermost first.
 * crash_frame: the position of the crash site (the frame a handler
 * interrupted), or (size_t)-1 when the input does not say: then a signal
 * frame whose frames above are handlers or machinery starts the crash site
 * after it. Caller frees.
 */
char *prov_signature_frames(int signo, const struct prov_sig_frame *frames, size_t n,
			    size_t crash_frame);

/* The signature of a crash model. Caller frees. */
char *prov_crash_signature(const struct prov_crash *c);

/* 1 when the rules skip this frame (exposed for tests and docs). */
int prov_signature_skips(const struct prov_sig_frame *f);

#endif
