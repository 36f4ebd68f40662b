#ifndef PROV_REPORT_H
#define PROV_REPORT_H

#include "buf.h"
#include "model.h"

/*
 * Report writers: read the crash model, write into a buffer. They never
 * print; the command layer writes the buffer to stdout.
 */
enum prov_report_flags {
	PROV_REPORT_ALL_THREADS = 1 << 0,	/* text/markdown: every thread, not only the crashing one */
	PROV_REPORT_REGISTERS = 1 << 1,	/* text: registers of the crashing thread */
	PROV_REPORT_MODULES = 1 << 2,	/* text: the module table */
	PROV_REPORT_RESOLVE = 1 << 3,	/* packages, components, sources sections */
	PROV_REPORT_LOCALS = 1 << 4,	/* text: arguments and locals under each frame that has them */
};

/* The design's JSON report ("schema": "provenance/1"); keys always present. */
int prov_report_json(struct prov_buf *out, const struct prov_crash *c);
struct prov_json;
/* Pieces for other JSON documents (env, fixcheck): one component object; the
 * crash report's keys without the enclosing braces. */
void prov_report_json_component(struct prov_json *j, const struct prov_component *p);
/* {"fix", "deployed", "included", "first_tag", "component", "note"} (fixcheck's contract) */
void prov_report_json_fix(struct prov_json *j, const struct prov_fix_status *x);
/* "evidence": [{commit, file, deployed_file, hunk, function, state, via}...] of a fix */
void prov_report_json_fix_evidence(struct prov_json *j, const struct prov_fix_status *x);
void prov_report_json_body(struct prov_json *j, const struct prov_crash *c);

/* "SIGSEGV (11), SEGV_MAPERR, fault address 0x0" */
void prov_report_signal_summary(struct prov_buf *b, const struct prov_crash *c);

/*
 * What the reader must know before trusting the rest, one line each after
 * `prefix`: a truncated core, a snapshot (no crash), installed files that
 * are not the build that crashed.
 */
void prov_report_caveats(struct prov_buf *b, const struct prov_crash *c, const char *prefix);
/* How a --fix is in (or what to do): "as cherry-pick 1234abcd5678", ... Caller frees. */
char *prov_report_fix_how(const struct prov_fix_status *x);
/* "; hunks: 1 exact, 1 by changed lines [a.c @@ -1 +1 @@ present-changed-lines via P]" (text and Markdown) */
void prov_report_fix_evidence(struct prov_buf *b, const struct prov_fix_status *x);

int prov_report_text(struct prov_buf *out, const struct prov_crash *c, unsigned int flags);
int prov_report_markdown(struct prov_buf *out, const struct prov_crash *c, unsigned int flags);

#endif
