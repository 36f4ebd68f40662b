/*
 * A live process analyzed as a core (--pid): threads stopped with ptrace,
 * memory from /proc/PID/mem, let go afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>

#include "core.h"
#include "core-int.h"
#include "ptrace-stop.h"
#include "error.h"
#include "util.h"
#include "banned.h"

static char *proc_text(pid_t pid, const char *what, int nul_to_space)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *path = prov_xasprintf("/proc/%d/%s", (int)pid, what);
	size_t i;

	if (prov_read_file(&b, path, 1 << 16) < 0 || !b.len) {
		free(path);
		prov_buf_release(&b);
		return NULL;
	}
	free(path);
	for (i = 0; nul_to_space && i < b.len; i++)
		if (!b.buf[i])
			b.buf[i] = ' ';
	prov_buf_rtrim(&b);
	return prov_buf_detach(&b);
}

/* A stopped thread's registers (user_regs_struct, as NT_PRSTATUS holds
 * them) and its name (comm). */
static void live_thread_facts(struct prov_thread *t, pid_t pid)
{
#if defined(__x86_64__)
	struct user_regs_struct regs;
	const unsigned long long *w = (const unsigned long long *)&regs;
	size_t i, n = sizeof(core_x86_64_regs) / sizeof(core_x86_64_regs[0]);

	if (!t->regs && sizeof(regs) >= n * 8 &&
	    ptrace(PTRACE_GETREGS, (pid_t)t->tid, NULL, &regs) == 0) {
		t->regs = prov_xcalloc(n, sizeof(*t->regs));
		t->nregs = n;
		for (i = 0; i < n; i++) {
			memcpy(t->regs[i].name, core_x86_64_regs[i], strlen(core_x86_64_regs[i]) + 1);
			t->regs[i].value = w[i];
		}
	}
#endif
	if (!t->name) {
		char *what = prov_xasprintf("task/%" PRId64 "/comm", t->tid);

		t->name = proc_text(pid, what, 0);
		free(what);
	}
}

/*
 * Where a thread that did not stop waits in the kernel: its kernel stack
 * (/proc/PID/task/TID/stack, root only) as "fn <- caller <- ...", else its
 * wchan, else NULL.
 */
static char *kernel_wait(pid_t pid, int64_t tid)
{
	char *what = prov_xasprintf("task/%" PRId64 "/stack", tid), *text = proc_text(pid, what, 0);
	struct prov_buf b = PROV_BUF_INIT;
	const char *p = text;
	int n = 0;

	free(what);
	while (p && *p && n < 8) {
		const char *e = strchr(p, '\n'), *name = strstr(p, "] "), *end;

		if (!e)
			e = p + strlen(p);
		if (name && name < e) {
			name += 2;
			for (end = name; end < e && *end != '+' && *end != ' '; end++)
				;
			if (end > name) {
				if (n++)
					prov_buf_puts(&b, " <- ");
				prov_buf_add(&b, name, (size_t)(end - name));
			}
		}
		p = *e ? e + 1 : e;
	}
	free(text);
	if (b.len)
		return prov_buf_detach(&b);
	prov_buf_release(&b);
	what = prov_xasprintf("task/%" PRId64 "/wchan", tid);
	text = proc_text(pid, what, 0);
	free(what);
	if (text && (!*text || !strcmp(text, "0"))) {
		free(text);
		text = NULL;
	}
	return text;
}

/* Threads that did not stop: said so, with where they wait in the kernel (no frames: no registers). */
static void mark_stuck(struct prov_crash *c, const struct prov_stopped *st, pid_t pid)
{
	size_t i, j;

	for (i = 0; i < st->nstuck; i++) {
		struct prov_thread *t = NULL;
		char *where;

		for (j = 0; j < c->nthreads && !t; j++)
			if (c->threads[j].has_tid && c->threads[j].tid == st->stuck[i])
				t = &c->threads[j];
		if (!t) {
			t = prov_crash_add_thread(c);
			t->has_tid = 1;
			t->tid = st->stuck[i];
		}
		where = kernel_wait(pid, t->tid);
		free(t->unwind_error);
		t->unwind_error = prov_xasprintf("not stopped: the thread did not stop within %d ms "
						 "(uninterruptible in the kernel%s%s)", PROV_PTRACE_STOP_WAIT_MS,
						 where ? ": " : "", where ? where : "");
		free(where);
	}
}

int prov_core_analyze_pid(struct prov_crash **out, pid_t pid, const struct prov_core_opts *opts)
{
	static const struct prov_core_opts no_opts;
	static char *debuginfo_path;
	static const Dwfl_Callbacks callbacks = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &debuginfo_path,
	};
	struct core_ctx x;
	struct core_ctx *saved = core_current;
	struct prov_stopped stopped;
	char *name, *exe, path[64];
	int error, rc;
	ssize_t n;
	size_t i;

	memset(&x, 0, sizeof(x));
	memset(&stopped, 0, sizeof(stopped));
	x.fd = -1;
	x.ok = 1;
	x.live = 1;
	x.opts = opts ? opts : &no_opts;
	x.max_frames = x.opts->max_frames && x.opts->max_frames < PROV_MAX_FRAMES ?
		x.opts->max_frames : PROV_MAX_FRAMES;
	name = prov_xasprintf("pid %d", (int)pid);
	x.path = name;
	x.is64 = sizeof(void *) == 8;
#if defined(__x86_64__)
	x.machine = EM_X86_64;
#elif defined(__i386__)
	x.machine = EM_386;
#endif
	/* every thread stopped first: one consistent snapshot, as a core is */
	if ((error = prov_ptrace_stop(&stopped, pid)) < 0)
		goto cleanup;
	n = snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	x.fd = n > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (x.fd < 0) {
		error = prov_error_set(PROV_EINPUT, "cannot read the memory of process %d: %s",
				       (int)pid, strerror(errno));
		goto cleanup;
	}
	x.c = prov_crash_new(PROV_INPUT_CORE, name);
	x.c->format = prov_xstrdup("process");
	x.c->snapshot = 1;	/* a live process: nothing crashed */
	x.c->has_process = 1;
	x.c->process.has_pid = 1;
	x.c->process.pid = pid;
	exe = prov_xasprintf("/proc/%d/exe", (int)pid);
	{
		char buf[4096];
		ssize_t len = readlink(exe, buf, sizeof(buf) - 1);

		if (len > 0) {
			buf[len] = 0;
			x.c->process.executable = prov_xstrdup(buf);
		}
	}
	free(exe);
	x.c->process.cmdline = proc_text(pid, "cmdline", 1);

	core_current = &x;
	x.dwfl = dwfl_begin(&callbacks);
	if (!x.dwfl) {
		error = prov_error_set(PROV_ERROR, "dwfl_begin: %s", dwfl_errmsg(-1));
		goto cleanup;
	}
	dwfl_report_begin(x.dwfl);
	rc = dwfl_linux_proc_report(x.dwfl, pid);
	if (dwfl_report_end(x.dwfl, NULL, NULL) != 0 || rc != 0) {
		error = prov_error_set(PROV_EINPUT, "cannot read the modules of process %d: %s",
				       (int)pid, rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
		goto cleanup;
	}
	dwfl_getmodules(x.dwfl, core_module_cb, &x, 0);
	if (x.error < 0) {
		error = x.error;
		goto cleanup;
	}
	/* true: the threads are already stopped, libdwfl neither attaches nor detaches */
	x.live_stuck = stopped.stuck;
	x.live_nstuck = stopped.nstuck;
	rc = dwfl_linux_proc_attach(x.dwfl, pid, true);
	if (rc != 0) {
		error = prov_error_set(PROV_EINPUT, "cannot read the threads of process %d: %s",
				       (int)pid, rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
		goto cleanup;
	}
	if (dwfl_getthreads(x.dwfl, core_thread_cb, &x) < 0 && !x.c->nthreads) {
		error = prov_error_set(PROV_EINPUT, "cannot unwind the threads of process %d: %s",
				       (int)pid, dwfl_errmsg(-1));
		goto cleanup;
	}
	for (i = 0; i < x.c->nthreads; i++)
		if (x.c->threads[i].has_tid)	/* a thread that did not stop: its name; no registers */
			live_thread_facts(&x.c->threads[i], pid);
	mark_stuck(x.c, &stopped, pid);
	core_finish_analysis(&x);
	*out = x.c;
	x.c = NULL;
	error = 0;
cleanup:
	core_current = saved;
	if (x.dwfl)
		dwfl_end(x.dwfl);
	x.dwfl = NULL;
	prov_ptrace_resume(&stopped);
	core_ctx_release(&x);
	free(name);
	return error;
}
