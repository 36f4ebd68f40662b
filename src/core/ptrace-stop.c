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

/* Wait until tid is in its interrupt stop; a signal that arrives first is
 * passed on (the thread continues with it) and the interrupt repeated.
 * 0: stopped; 1: the thread is gone; -1: error. */
static int wait_stop(pid_t tid)
{
	int status, i;

	for (i = 0; i < 64; i++) {
		pid_t r = waitpid(tid, &status, __WALL);

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
			if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0 ||
			    (rc = wait_stop(tid)) < 0) {
				if (errno == ESRCH)
					continue;
				error = prov_error_set(PROV_EINPUT, "cannot stop thread %d of process "
						       "%d: %s", tid, (int)pid, strerror(errno));
				closedir(d);
				goto cleanup;
			}
			(void)rc;
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
	for (i = 0; i < s->n; i++)
		(void)ptrace(PTRACE_DETACH, s->tids[i], NULL, NULL);
	free(s->tids);
	s->tids = NULL;
	s->n = s->alloc = 0;
}
