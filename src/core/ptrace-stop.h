#ifndef PROV_PTRACE_STOP_H
#define PROV_PTRACE_STOP_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Stop every thread of a running process with ptrace (PTRACE_SEIZE +
 * PTRACE_INTERRUPT: no signal is sent to it) for a consistent snapshot, and
 * let them all go again. The process keeps running afterwards, unchanged.
 */
struct prov_stopped {
	pid_t pid;
	pid_t *tids;	/* the threads attached (stopped, or in stuck) */
	size_t n, alloc;
	/* attached threads that did not stop within their wait: in the kernel
	 * (uninterruptible sleep, a vfork parent, a hung NFS or driver wait) */
	pid_t *stuck;
	size_t nstuck, stuck_alloc;
};

/* How long one thread may take to stop, and all threads together (ms). */
#define PROV_PTRACE_STOP_WAIT_MS 2000
#define PROV_PTRACE_STOP_BUDGET_MS 10000

/*
 * Stop all of pid's threads (threads started meanwhile too). Every wait is
 * bounded: a thread that has not stopped after PROV_PTRACE_STOP_WAIT_MS
 * (once PROV_PTRACE_STOP_BUDGET_MS is spent on such threads: at once) is
 * left running, listed in *out's stuck, and the others are still stopped.
 * On success *out holds them (release with prov_ptrace_resume). Errors:
 * PROV_EINPUT with one message when the process is missing or cannot be
 * attached (permissions, kernel.yama.ptrace_scope, already traced);
 * nothing stays stopped on failure.
 */
int prov_ptrace_stop(struct prov_stopped *out, pid_t pid);

/* Detach from every stopped thread and free the list. NULL-safe, idempotent. */
void prov_ptrace_resume(struct prov_stopped *s);

/* 1 when tid is one of s's threads that did not stop. */
int prov_ptrace_is_stuck(const struct prov_stopped *s, pid_t tid);

#endif
