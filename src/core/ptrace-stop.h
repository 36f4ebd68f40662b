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
	pid_t *tids;	/* the threads stopped */
	size_t n, alloc;
};

/*
 * Stop all of pid's threads (threads started meanwhile too). On success
 * *out holds them (release with prov_ptrace_resume). Errors: PROV_EINPUT
 * with one message when the process is missing or cannot be attached
 * (permissions, kernel.yama.ptrace_scope, already traced); nothing stays
 * stopped on failure.
 */
int prov_ptrace_stop(struct prov_stopped *out, pid_t pid);

/* Detach from every stopped thread and free the list. NULL-safe, idempotent. */
void prov_ptrace_resume(struct prov_stopped *s);

#endif
