#ifndef PROV_SIGNATURE_H
#define PROV_SIGNATURE_H

#include <stddef.h>

#include "buf.h"
#include "model.h"

/*
 * The crash signature: the signal number, then the first
 * PROV_SIGNATURE_FUNCTIONS function names of the crashing thread (frames
 * without a name skipped), joined by '|', e.g. "11|crash|main". resolve
 * compares inputs by it (determinism) and the crash store groups by it
 * (cache/store.c computes it again for imported reports). The one place
 * the rule is written.
 */
#define PROV_SIGNATURE_FUNCTIONS 5

/* Build a signature frame by frame (for a model or a stored JSON report). */
struct prov_signature {
	struct prov_buf b;
	size_t n;	/* function names added */
};

void prov_signature_begin(struct prov_signature *s, int signo);
/* Add one frame's function (NULL: a frame without a name, skipped). 0 when full. */
int prov_signature_add(struct prov_signature *s, const char *function);
/* The signature (caller frees); `s` is released. */
char *prov_signature_finish(struct prov_signature *s);

/* The signature of a crash model (caller frees). */
char *prov_crash_signature(const struct prov_crash *c);

#endif
