#ifndef PROV_REPORT_H
#define PROV_REPORT_H

#include "buf.h"
#include "fixresult.h"
#include "model.h"
#include "triage.h"

/*
 * Report writers: read the crash model, write into a buffer. They never
 * print; the command layer writes the buffer to stdout.
 */
/* Output formats (--format); each command accepts some of them. */
enum prov_format {
	PROV_FORMAT_TEXT,
	PROV_FORMAT_MARKDOWN,
	PROV_FORMAT_JSON,
	PROV_FORMAT_TABLE,	/* query: aligned columns */
	PROV_FORMAT_CSV,	/* query */
};

enum prov_report_flags {
	PROV_REPORT_ALL_THREADS = 1 << 0,	/* text/markdown: every thread, not only the crashing one */
	PROV_REPORT_REGISTERS = 1 << 1,	/* text: registers of the crashing thread */
	PROV_REPORT_MODULES = 1 << 2,	/* text: the module table */
	PROV_REPORT_RESOLVE = 1 << 3,	/* packages, components, sources sections */
	PROV_REPORT_LOCALS = 1 << 4,	/* text: arguments and locals under each frame that has them */
	/* text, for a report printed in two parts (resolve prints what it knows
	 * without the network first): HEAD is everything up to the module table,
	 * TAIL the rest (components, sources, suspects, fix status); HEAD then
	 * TAIL is the whole report */
	PROV_REPORT_HEAD = 1 << 5,
	PROV_REPORT_TAIL = 1 << 6,
	/* text/markdown: every component in the environment table, not only the
	 * crash chain's (components[].in_crash_chain) and a count of the others */
	PROV_REPORT_ALL_COMPONENTS = 1 << 7,
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
void prov_report_json_fix_evidence(struct prov_json *j, const struct prov_fix_evidence *ev, size_t n);
void prov_report_json_body(struct prov_json *j, const struct prov_crash *c);
/*
 * A stored JSON report (root, as prov_jv_parse read it) back into the crash
 * model, for the text and Markdown writers (show, the web view). The model is
 * checked by writing its JSON again: when that differs from root in content
 * (a key this version does not know, a hang analysis), PROV_EUNKNOWN and no
 * model; PROV_EINPUT for no provenance/1 report. Some static strings of the
 * model (fix evidence notes) point into root: free the crash first.
 */
struct prov_jv;
int prov_report_load(struct prov_crash **out, const struct prov_jv *root);

/* "SIGSEGV (11), SEGV_MAPERR, fault address 0x0" */
void prov_report_signal_summary(struct prov_buf *b, const struct prov_crash *c);
/* A kernel fault line, decoded, one fact a line, each line starting with `indent`. */
void prov_report_kernel_line(struct prov_buf *b, const struct prov_crash *c, const char *indent);
/* When a handler re-raised the fault (c->has_delivered): "a signal handler caught
 * it and re-raised it as SIGSEGV (11), SI_TKILL, ...; the crash site is frame #3 ..." */
void prov_report_reraised_summary(struct prov_buf *b, const struct prov_crash *c);

/*
 * What the reader must know before trusting the rest, one line each after
 * `prefix`: a truncated core, a snapshot (no crash), installed files that
 * are not the build that crashed.
 */
void prov_report_caveats(struct prov_buf *b, const struct prov_crash *c, const char *prefix);
/* How a --fix is in (or what to do): "as cherry-pick 1234abcd5678", ... Caller frees. */
char *prov_report_fix_how(const struct prov_fix_status *x);
/* "; hunks: 1 exact, 1 by changed lines [a.c @@ -1 +1 @@ present-changed-lines via P]" (text and Markdown) */
/* (resolve --fix and fixcheck alike); nothing for an ancestor or cherry-pick */
void prov_report_fix_evidence(struct prov_buf *b, const struct prov_fix_evidence *ev, size_t n,
			      const char *how);

/*
 * A snapshot's hang analysis (report-hang.c): thread groups, waits, deadlocks.
 * Text: plain lines; Markdown: a "### Hang analysis" section; JSON: the
 * top-level "hang" key (null when the input is no snapshot).
 */
void prov_report_hang_text(struct prov_buf *b, const struct prov_crash *c);
void prov_report_hang_markdown(struct prov_buf *b, const struct prov_crash *c);
void prov_report_hang_json(struct prov_json *j, const struct prov_crash *c);

int prov_report_text(struct prov_buf *out, const struct prov_crash *c, unsigned int flags);
int prov_report_markdown(struct prov_buf *out, const struct prov_crash *c, unsigned int flags);

/*
 * resolve's output for its n inputs (crashes[i] NULL where an input
 * failed). JSON: one report object, or an array of them with several
 * inputs (nothing at all for one input that failed). Text and Markdown: a
 * report per input, or with `same_crash` one line naming the inputs and
 * the report of the first; then the crash store's notes ("INPUT: what the
 * store knew" lines; JSON leaves them to the caller, for stderr).
 */
int prov_report_resolve(struct prov_buf *out, struct prov_crash *const *crashes, size_t n,
			int same_crash, const struct prov_buf *store_notes,
			enum prov_format format, unsigned int flags);

/*
 * fixcheck's answer (fixresult.h): JSON, an array of one object per fix
 * (fixcheck's contract); text, one line per fix: "YES <fix> is in <rev>
 * (first in tag T): <how>", "PARTIAL ..." or "NO ...; upgrade to ...".
 */
int prov_report_fixcheck(struct prov_buf *out, const struct prov_fixcheck *r,
			 enum prov_format format);

/* env: what the mappings say of an installed package (origin). */
struct prov_env_map {
	const char *component;	/* its upstream component, or NULL */
	const char *repo;	/* the component's repository, or NULL */
	char *ref;	/* the mapping's ref for its version, or NULL */
	int derived;	/* repo from the package's metadata (origin->upstream_url) */
	const char *commit_is;	/* "exact" / "approximate" when a commit is shown */
	const char *found_by;	/* how a commit from the mapping was found */
	int literal;	/* ref came from a template without placeholders */
	int names;	/* ref names the version (prov_ref_names_version) */
};

/* The root env read (--sysroot): "dir", "oci", ... with the image's digest and tag. */
struct prov_env_root {
	const char *kind, *digest, *ref;
};

/*
 * env's list of installed packages v[0..n) (map[i] for v[i]): text, a
 * table (COMPONENT, VERSION, GIT HASH, FOUND BY); Markdown, a table;
 * JSON, {"schema", "sysroot", "components": [...]} where "sysroot" is
 * root as an object, null when root is NULL (no --sysroot).
 */
int prov_report_env(struct prov_buf *out, const struct prov_origin *const *v,
		    const struct prov_env_map *map, size_t n, enum prov_format format,
		    const struct prov_env_root *root);

/*
 * triage's groups (triage.h): text or Markdown (largest group first: count,
 * hosts, first and last seen, top frames, component versions, share; with
 * runs > 0 the repro rate), or JSON. Stored reports come from other
 * machines: for text and Markdown the strings of `t` are made safe in place
 * first (control characters, and '`' '|' in Markdown, become '?').
 * With t->by, each group's buckets: a table (JSON: "buckets"), and in text
 * a sparkline over the groups' common axis (days and weeks without gaps),
 * of Unicode blocks when utf8, else ASCII. A marked group's fix and status.
 */
int prov_report_triage(struct prov_buf *out, struct prov_triage *t, int64_t runs,
		       enum prov_format format, int utf8);

#endif
