/*
 * Stopping a live process for a snapshot. PTRACE_SEIZE instead of
 * PTRACE_ATTACH: no SIGSTOP is queued, so nothing of the stop is left
 * behind in the process after the detach.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "error.h"
#include "ptrace-stop.h"
#include "util.h"

#include "banned.h"

#define MAX_TIDS 65536
#define MAX_ROUNDS 16

static int has_tid(const struct prov_stopped *s, pid_t tid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->tids[i] == tid)
			return 1;
	return 0;
}

/* Wait until tid is in its interrupt stop, at most wait_ms; a signal that
 * arrives first is passed on (the thread continues with it) and the
 * interrupt repeated. 0: stopped; 1: the thread is gone; 2: it did not stop
 * in time (never a wait without a bound); -1: error. */
static int wait_stop(pid_t tid, uint64_t wait_ms)
{
	uint64_t end = prov_now_ms() + wait_ms;
	long nap_us = 100;
	int status, i;

	for (i = 0; i < 64;) {
		pid_t r = waitpid(tid, &status, __WALL | WNOHANG);

		if (r == 0) {
			struct timespec ts;

			if (prov_now_ms() >= end)
				return 2;
			ts.tv_sec = 0;
			ts.tv_nsec = nap_us * 1000;
			nanosleep(&ts, NULL);
			if (nap_us < 20000)
				nap_us *= 2;
			continue;
		}
		i++;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno == ECHILD ? 1 : -1;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return 1;
		if (!WIFSTOPPED(status))
			continue;
		if ((status >> 16) == PTRACE_EVENT_STOP)
			return 0;
		/* a signal-delivery stop: deliver it, then stop again */
		if (ptrace(PTRACE_CONT, tid, NULL, (void *)(long)WSTOPSIG(status)) < 0 ||
		    ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0)
			return errno == ESRCH ? 1 : -1;
	}
	return -1;
}

int prov_ptrace_stop(struct prov_stopped *out, pid_t pid)
{
	struct prov_stopped s;
	char *dir = NULL;
	struct stat st;
	uint64_t stuck_ms = 0;
	int round, error = 0;

	memset(&s, 0, sizeof(s));
	s.pid = pid;
	dir = prov_xasprintf("/proc/%d/task", (int)pid);
	if (pid <= 0 || stat(dir, &st) < 0) {
		error = prov_error_set(PROV_EINPUT, "no process %d", (int)pid);
		goto cleanup;
	}
	/* until a pass over /proc/PID/task finds no thread not yet stopped */
	for (round = 0; round < MAX_ROUNDS; round++) {
		DIR *d = opendir(dir);
		struct dirent *e;
		int added = 0;

		if (!d) {
			error = prov_error_set(PROV_EINPUT, "cannot list the threads of process %d: %s",
					       (int)pid, strerror(errno));
			goto cleanup;
		}
		while ((e = readdir(d))) {
			int tid, rc;

			if (prov_parse_int(&tid, e->d_name, strlen(e->d_name)) < 0 || tid <= 0 ||
			    has_tid(&s, tid))
				continue;
			if (s.n >= MAX_TIDS) {
				closedir(d);
				error = prov_error_set(PROV_ELIMIT, "process %d has more than %d threads",
						       (int)pid, MAX_TIDS);
				goto cleanup;
			}
			if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
				if (errno == ESRCH)
					continue;	/* it just exited */
				error = prov_error_set(PROV_EINPUT, "cannot attach to process %d "
						       "(thread %d): %s%s", (int)pid, tid,
						       strerror(errno), errno == EPERM ?
						       " (permissions or kernel.yama.ptrace_scope)" : "");
				closedir(d);
				goto cleanup;
			}
			PROV_ALLOC_GROW(s.tids, s.n + 1, s.alloc);
			s.tids[s.n++] = tid;
			added = 1;
			{
				uint64_t t0 = prov_now_ms(), wait_ms = 0;

				if (stuck_ms < PROV_PTRACE_STOP_BUDGET_MS)
					wait_ms = PROV_PTRACE_STOP_BUDGET_MS - stuck_ms < PROV_PTRACE_STOP_WAIT_MS ?
						  PROV_PTRACE_STOP_BUDGET_MS - stuck_ms : PROV_PTRACE_STOP_WAIT_MS;
				if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0 ||
				    (rc = wait_stop(tid, wait_ms)) < 0) {
					if (errno == ESRCH)
						continue;
					error = prov_error_set(PROV_EINPUT, "cannot stop thread %d of process "
							       "%d: %s", tid, (int)pid, strerror(errno));
					closedir(d);
					goto cleanup;
				}
				if (rc == 2) {
					/* in the kernel and not coming out: reported, not waited for */
					stuck_ms += prov_now_ms() - t0;
					PROV_ALLOC_GROW(s.stuck, s.nstuck + 1, s.stuck_alloc);
					s.stuck[s.nstuck++] = tid;
				}
			}
		}
		closedir(d);
		if (!added)
			break;
	}
	*out = s;
	memset(&s, 0, sizeof(s));
cleanup:
	prov_ptrace_resume(&s);
	free(dir);
	return error;
}

void prov_ptrace_resume(struct prov_stopped *s)
{
	size_t i;

	if (!s)
		return;
	/* a thread that did not stop may have stopped since: collect its stop first */
	for (i = 0; i < s->nstuck; i++) {
		int status;

		(void)waitpid(s->stuck[i], &status, __WALL | WNOHANG);
	}
	for (i = 0; i < s->n; i++)
		(void)ptrace(PTRACE_DETACH, s->tids[i], NULL, NULL);
	/*
	 * A thread still not stopped cannot be detached (PTRACE_DETACH wants a
	 * stopped tracee): the kernel lets it go when this process exits, and
	 * its pending interrupt stop, if it comes before, lasts until then.
	 */
	free(s->tids);
	free(s->stuck);
	s->tids = NULL;
	s->stuck = NULL;
	s->n = s->alloc = 0;
	s->nstuck = s->stuck_alloc = 0;
}

int prov_ptrace_is_stuck(const struct prov_stopped *s, pid_t tid)
{
	size_t i;

	for (i = 0; s && i < s->nstuck; i++)
		if (s->stuck[i] == tid)
			return 1;
	return 0;
}
