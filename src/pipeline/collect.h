#ifndef PROV_COLLECT_H
#define PROV_COLLECT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "buf.h"
#include "context.h"

struct prov_config;

/* A size setting: bytes, or a percentage of the spool's file system. */
struct prov_collect_size {
	uint64_t value;	/* bytes, or the percentage when pct */
	int pct;
};

/* The collect.* settings (docs/collect.md, "Budgets"); 0 means no limit. */
struct prov_collect_limits {
	int keep_cores;	/* collect.keepCores: cores kept per signature (default 1) */
	struct prov_collect_size max_use;	/* collect.maxUse: all kept cores (10%) */
	struct prov_collect_size keep_free;	/* collect.keepFree: left free (15%) */
	struct prov_collect_size max_core_size;	/* collect.maxCoreSize: not analyzed past it (2G) */
	struct prov_collect_size max_memory;	/* collect.maxMemory: the analysis's data (1G) */
	double cpu_s;	/* collect.cpuBudget: the analysis's CPU seconds (60) */
	double wall_s;	/* collect.wallBudget: the analysis's wall seconds (120) */
	int rate_limit;	/* collect.rateLimit: analyses per executable+signal a minute (10) */
	int nice;	/* collect.nice: the handler's niceness, 0 to 19 (19) */
	int io_class;	/* collect.ioClass: PROV_COLLECT_IO_* (idle) */
};

/* collect.ioClass: the handler's I/O scheduling class (ioprio_set), as ionice(1) names them. */
enum { PROV_COLLECT_IO_NONE, PROV_COLLECT_IO_BEST_EFFORT, PROV_COLLECT_IO_IDLE };

/* The defaults overridden by cfg's collect.* keys; PROV_EUSAGE for a bad value. */
int prov_collect_limits_read(struct prov_collect_limits *l, const struct prov_config *cfg);

/*
 * Keep `core` zstd-compressed as spool_dir/cores/HASH-NAME.zst (HASH: the
 * signature's) unless keepCores of that signature are kept already; the
 * oldest kept cores are removed until it fits collect.maxUse and
 * collect.keepFree stays free. *kept_path: the file, or NULL with *why
 * saying why it was not kept. Caller frees both. 0, or an error (*why set).
 */
int prov_collect_keep_core(char **kept_path, char **why, const char *spool_dir, const char *core,
			   const char *name, const char *signature,
			   const struct prov_collect_limits *l);

/*
 * Count one crash of `key` in the current minute (spool_dir/rate); the
 * count when it is past `limit`, else 0.
 */
int prov_collect_rate_over(const char *spool_dir, const char *key, int limit, time_t now);

/* The environment variables read and stored, and only those (docs/collect.md, "Privacy"). */
#define PROV_COLLECT_NVARS 8
/* The index of the job variable NAME (len bytes) among them, or -1. */
int prov_collect_job_var(const char *name, size_t len);

/* What is known of a crash besides its core: from /proc/PID at crash time, or a journal entry. */
struct prov_collect_facts {
	char *exe, *cmdline, *cgroup;	/* NULL: unknown */
	char *var[PROV_COLLECT_NVARS];	/* the job variables, by prov_collect_job_var's index */
};
void prov_collect_facts_release(struct prov_collect_facts *f);

/*
 * `provenance collect` at crash time (docs/collect.md): the kernel starts
 * it from core_pattern with the core on standard input.
 */
struct prov_collect_opts {
	int pid;	/* %P: the pid in the initial namespace (/proc/PID) */
	int signal;	/* %s */
	const char *time;	/* %t: seconds since the epoch, or NULL */
	const char *host;	/* %h, or NULL */
	const char *uid;	/* %u, or NULL */
	const char *store;	/* the store (path or PostgreSQL URL); NULL: the default */
	const char *spool_dir;	/* collect.spoolDir: the spooled core and the queue */
	struct prov_collect_limits limits;
	const struct prov_ctx *ctx;
};

/*
 * Spool the core from fd 0 into spool_dir, read /proc/PID (exe, cmdline,
 * the job variables of docs/collect.md only, cgroup), analyze the core
 * offline with /proc/PID/root as sysroot, add "job" and "collect" to the
 * JSON report and store it; when the store fails the report goes into
 * spool_dir/queue (tmp + rename). `msg` gets one line saying what was done.
 * 0 stored, 1 queued, or an error (nothing could be kept).
 */
int prov_collect_crash(const struct prov_collect_opts *o, struct prov_buf *msg);

/* A crash some other handler took (import --journal: systemd-coredump's). */
struct prov_collect_given {
	const char *core;	/* the core (plain, zstd, xz, lz4), or NULL */
	const char *core_note;	/* why there is none */
	const char *kept;	/* where that handler keeps it: collect.core */
	const char *origin;	/* collect.origin, e.g. "journal" */
	const char *detail_name;	/* a collect.NAME object of its own facts, or NULL */
	const char *const *detail;	/* key, value (NULL: null), ..., NULL */
};

/*
 * Analyze a crash another handler took, as at crash time (the budgets of
 * o->limits; offline; this host's root as sysroot, the crashed root being
 * gone) and store it once (no queue: the caller keeps its place and tries
 * again). o->time, host, pid, signal, uid come from that handler. `msg`
 * gets one line. 0 stored, 1 in the store already, or the store's error.
 */
int prov_collect_import(const struct prov_collect_opts *o, const struct prov_collect_facts *f,
			const struct prov_collect_given *g, struct prov_buf *msg);

/*
 * Send each queued report of spool_dir/queue to `store`, deleting a file
 * only after its add committed (an already-stored report counts as sent).
 * *sent and *dups count them. 0 or the first store error.
 */
int prov_collect_flush(const char *spool_dir, const char *store, const struct prov_ctx *ctx,
		       size_t *sent, size_t *dups);

#endif
