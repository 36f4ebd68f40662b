#ifndef PROV_COLLECT_H
#define PROV_COLLECT_H

#include <stddef.h>

#include "buf.h"
#include "context.h"

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

/*
 * Send each queued report of spool_dir/queue to `store`, deleting a file
 * only after its add committed (an already-stored report counts as sent).
 * *sent and *dups count them. 0 or the first store error.
 */
int prov_collect_flush(const char *spool_dir, const char *store, const struct prov_ctx *ctx,
		       size_t *sent, size_t *dups);

#endif
