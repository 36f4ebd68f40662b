/* provenance collect at crash time: spool the core, read /proc/PID, analyze offline, store or queue. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"
#include "error.h"
#include "json.h"
#include "pipeline.h"
#include "report.h"
#include "signature.h"
#include "store.h"
#include "util.h"
#include "banned.h"

/* A small non-negative integer from text; -1 when it is not one. */
static int prov_atoi(const char *s)
{
	int64_t v;

	while (*s == ' ')
		s++;
	if (prov_parse_i64(&v, s, strcspn(s, "\n")) < 0 || v < 0 || v > 1000000000)
		return -1;
	return (int)v;
}

#define MAX_PROC_FILE ((size_t)1 << 20)
#define MAX_QUEUE 10000	/* queued reports kept at most */

/* The only environment variables read from the crashed process (docs/collect.md). */
static const char *const job_vars[] = {
	"SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_PROCID", "SLURM_LOCALID",
	"RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", NULL,
};
enum { V_JOB, V_STEP, V_PROCID, V_LOCALID, V_RANK, V_LOCAL_RANK, V_WORLD, V_MASTER, NVARS };
_Static_assert(NVARS == PROV_COLLECT_NVARS, "the job variables");

int prov_collect_job_var(const char *name, size_t len)
{
	for (int i = 0; i < NVARS; i++)
		if (strlen(job_vars[i]) == len && !memcmp(name, job_vars[i], len))
			return i;
	return -1;
}

void prov_collect_facts_release(struct prov_collect_facts *f)
{
	free(f->exe);
	free(f->cmdline);
	free(f->cgroup);
	for (int i = 0; i < NVARS; i++)
		free(f->var[i]);
	memset(f, 0, sizeof(*f));
}

static void read_facts(struct prov_collect_facts *f, int pid)
{
	struct prov_buf b = PROV_BUF_INIT;
	char path[64], link[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if ((n = readlink(path, link, sizeof(link) - 1)) > 0) {
		link[n] = 0;
		f->exe = prov_xstrdup(link);
	}
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	{
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0 && prov_read_fd(&b, fd, path, MAX_PROC_FILE) == 0 && b.len) {
			for (size_t i = 0; i + 1 < b.len; i++)
				if (!b.buf[i])
					b.buf[i] = ' ';
			f->cmdline = prov_xstrndup(b.buf, strnlen(b.buf, b.len));
		}
		if (fd >= 0)
			close(fd);
	}
	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	prov_buf_reset(&b);
	{
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0 && prov_read_fd(&b, fd, path, MAX_PROC_FILE) == 0) {
			size_t pos = 0;

			while (pos < b.len) {
				const char *s = b.buf + pos;
				size_t len = strnlen(s, b.len - pos);

				const char *eq = memchr(s, '=', len);
				int i = eq ? prov_collect_job_var(s, (size_t)(eq - s)) : -1;

				if (i >= 0 && !f->var[i])
					f->var[i] = prov_xstrndup(eq + 1, len - (size_t)(eq - s) - 1);
				pos += len + 1;
			}
		}
		if (fd >= 0)
			close(fd);
	}
	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	prov_buf_reset(&b);
	{
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0 && prov_read_fd(&b, fd, path, MAX_PROC_FILE) == 0 && b.len) {
			while (b.len && b.buf[b.len - 1] == '\n')
				b.len--;
			f->cgroup = prov_xstrndup(b.buf, b.len);
		}
		if (fd >= 0)
			close(fd);
	}
	prov_buf_release(&b);
}

/* A job fact as a JSON value: an integer when it is one, else a string, null when unknown. */
static void json_fact(struct prov_json *j, const char *v)
{
	int64_t n;

	if (!v)
		prov_json_null(j);
	else if (*v && prov_parse_i64(&n, v, strlen(v)) == 0)
		prov_json_int(j, n);
	else
		prov_json_string(j, v);
}

/* What the handler decided: the kept core, why not, the budget that was hit. */
struct outcome {
	const char *root, *note, *core, *core_note, *hit;
	const char *origin;	/* "kernel" or the given crash's (import --journal) */
	const struct prov_collect_given *given;	/* NULL at crash time */
};

static void json_budget(struct prov_json *j, const struct prov_collect_limits *l, const char *hit)
{
	prov_json_key(j, "budget");
	prov_json_begin_object(j);
	prov_json_kv_int(j, "maxCoreSize", (int64_t)l->max_core_size.value);
	prov_json_key(j, "cpuBudget");
	prov_json_fixed(j, l->cpu_s, 3);
	prov_json_key(j, "wallBudget");
	prov_json_fixed(j, l->wall_s, 3);
	prov_json_kv_int(j, "maxMemory", (int64_t)l->max_memory.value);
	prov_json_kv_int(j, "rateLimit", l->rate_limit);
	prov_json_kv_int(j, "keepCores", l->keep_cores);
	prov_json_key(j, "hit");
	json_fact(j, hit);
	prov_json_end_object(j);
}

/* The given crash's own facts as collect.DETAIL_NAME: {key: value, ...}. */
static void json_detail(struct prov_json *j, const struct prov_collect_given *g)
{
	if (!g || !g->detail_name)
		return;
	prov_json_key(j, g->detail_name);
	prov_json_begin_object(j);
	for (size_t i = 0; g->detail && g->detail[i]; i += 2) {
		prov_json_key(j, g->detail[i]);
		json_fact(j, g->detail[i + 1]);
	}
	prov_json_end_object(j);
}

static void json_job(struct prov_json *j, const struct prov_collect_facts *f, const struct prov_collect_opts *o,
		     const struct outcome *out)
{
	const char *rank = f->var[V_PROCID] ? f->var[V_PROCID] : f->var[V_RANK];
	const char *local = f->var[V_LOCALID] ? f->var[V_LOCALID] : f->var[V_LOCAL_RANK];

	prov_json_key(j, "job");
	prov_json_begin_object(j);
	prov_json_key(j, "id");
	json_fact(j, f->var[V_JOB]);
	prov_json_key(j, "step");
	json_fact(j, f->var[V_STEP]);
	prov_json_key(j, "rank");
	json_fact(j, rank);
	prov_json_key(j, "local_rank");
	json_fact(j, local);
	prov_json_key(j, "world_size");
	json_fact(j, f->var[V_WORLD]);
	prov_json_key(j, "master_addr");
	json_fact(j, f->var[V_MASTER]);
	prov_json_end_object(j);
	prov_json_key(j, "collect");
	prov_json_begin_object(j);
	prov_json_kv_string(j, "origin", out->origin ? out->origin : "kernel");
	prov_json_key(j, "host");
	json_fact(j, o->host);
	prov_json_key(j, "pid");
	prov_json_int(j, o->pid);
	prov_json_key(j, "signal");
	prov_json_int(j, o->signal);
	prov_json_key(j, "uid");
	json_fact(j, o->uid);
	prov_json_key(j, "exe");
	json_fact(j, f->exe);
	prov_json_key(j, "cmdline");
	json_fact(j, f->cmdline);
	prov_json_key(j, "root");
	json_fact(j, out->root);
	prov_json_key(j, "cgroup");
	json_fact(j, f->cgroup);
	prov_json_key(j, "note");
	json_fact(j, out->note);
	prov_json_key(j, "core");
	json_fact(j, out->core);
	prov_json_key(j, "core_note");
	json_fact(j, out->core_note);
	json_budget(j, &o->limits, out->hit);
	json_detail(j, out->given);
	prov_json_end_object(j);
}

/* Copy fd 0 into a new file `path` (0600); PROV_ELIMIT past `max` bytes (0: no limit). */
static int spool_core(const char *path, uint64_t max, uint64_t *size)
{
	char buf[1 << 16];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), err = 0;
	ssize_t n;

	*size = 0;
	if (fd < 0)
		return prov_error_set(PROV_ERROR, "cannot create '%s': %s", path, strerror(errno));
	while ((n = read(0, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0 && max && *size + (uint64_t)n > max) {
			err = prov_error_set(PROV_ELIMIT, "the core is over collect.maxCoreSize "
					     "(%llu bytes)", (unsigned long long)max);
			break;
		}
		if (n < 0 || write(fd, buf, (size_t)n) != n) {
			err = prov_error_set(PROV_ERROR, "cannot spool the core: %s", strerror(errno));
			break;
		}
		*size += (uint64_t)n;
	}
	if (close(fd) < 0 && !err)
		err = prov_error_set(PROV_ERROR, "cannot spool the core: %s", strerror(errno));
	return err;
}

/* The analysis, in a child: the signature line, then the report's JSON object. */
static void analyze_child(int out, const struct prov_collect_opts *o, const char *core,
			  const char *root, const char *when)
{
	struct prov_pipeline_opts po = { 0 };
	struct prov_pipeline_result res = { 0 };
	struct prov_ctx offline = *o->ctx;
	struct prov_buf json = PROV_BUF_INIT;
	const struct prov_collect_limits *l = &o->limits;
	struct prov_json j;
	const char *inputs[1] = { core };
	char *sig;

	setpgid(0, 0);
#ifndef __SANITIZE_ADDRESS__
	/* (an AddressSanitizer build maps terabytes for its shadow and allocator:
	 * a data limit would stop it from allocating at all, so there is none) */
	if (l->max_memory.value) {
		struct rlimit r = { l->max_memory.value, l->max_memory.value };

		setrlimit(RLIMIT_DATA, &r);
	}
#endif
	if (l->cpu_s > 0) {
		/* ITIMER_PROF: the fraction of a second; RLIMIT_CPU backs it for programs run */
		struct itimerval t = { { 0, 0 }, { (time_t)l->cpu_s,
			(suseconds_t)((l->cpu_s - (double)(time_t)l->cpu_s) * 1e6) } };
		struct rlimit r = { (rlim_t)l->cpu_s + 1, (rlim_t)l->cpu_s + 2 };

		setrlimit(RLIMIT_CPU, &r);
		setitimer(ITIMER_PROF, &t, NULL);
	}
	if (getenv("PROVENANCE_TEST_COLLECT_SPIN"))
		for (volatile unsigned long i = 0;; i++)
			;	/* test hook: an analysis that never ends */
	offline.offline = 1;	/* never the network at crash time */
	po.ctx = &offline;
	po.sysroot = root;
	po.no_sources = 1;
	po.host = o->host;
	po.time = when;
	prov_pipeline_run_all(&res, inputs, 1, &po);
	if (!res.crashes || !res.crashes[0]) {
		dprintf(out, "!%s\n", prov_error_last());
		_exit(1);
	}
	sig = prov_crash_signature(res.crashes[0]);
	prov_json_init(&j, &json);
	prov_json_begin_object(&j);
	prov_report_json_body(&j, res.crashes[0]);
	prov_json_end_object(&j);
	if (prov_json_finish(&j) < 0)
		_exit(1);
	dprintf(out, "%s\n", sig ? sig : "");
	if (write(out, json.buf, json.len) != (ssize_t)json.len)
		_exit(1);
	_exit(0);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Run the analysis in a child under collect.cpuBudget, wallBudget and
 * maxMemory. 0 with *sig and *body, or 1 with *note saying why not and
 * *hit naming the budget (NULL when none was hit).
 */
static int analyze(char **sig, struct prov_buf *body, char **note, const char **hit,
		   const struct prov_collect_opts *o, const char *core, const char *root,
		   const char *when)
{
	const struct prov_collect_limits *l = &o->limits;
	int fds[2], status = 0, killed = 0, reaped = 0;
	double deadline = now_s() + l->wall_s;
	char *nl;
	pid_t pid;

	*sig = *note = NULL;
	*hit = NULL;
	if (pipe2(fds, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		*note = prov_xasprintf("core not analyzed: cannot start the analysis: %s",
				       strerror(errno));
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		analyze_child(fds[1], o, core, root, when);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd p = { fds[0], POLLIN, 0 };
		double left = deadline - now_s();
		char buf[1 << 16];
		ssize_t n;

		if (l->wall_s > 0 && left <= 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		int ready = poll(&p, 1, left > 0.2 || l->wall_s <= 0 ? 200 : (int)(left * 1000) + 1);

		if (ready <= 0) {
			/* the child is gone but something it started holds the pipe */
			if (waitpid(pid, &status, WNOHANG) == pid) {
				reaped = 1;
				break;
			}
			continue;
		}
		n = read(fds[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (body->len + (size_t)n > ((size_t)64 << 20)) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			break;
		}
		prov_buf_add(body, buf, (size_t)n);
	}
	close(fds[0]);
	kill(-pid, SIGKILL);	/* nothing of the analysis outlives it */
	while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (killed) {
		*hit = "wallBudget";
		*note = prov_xasprintf("core not analyzed: the analysis ran past collect.wallBudget "
				       "(%.3g s)", l->wall_s);
	} else if (WIFSIGNALED(status) &&
		   (WTERMSIG(status) == SIGPROF || WTERMSIG(status) == SIGXCPU)) {
		*hit = "cpuBudget";
		*note = prov_xasprintf("core not analyzed: the analysis used up collect.cpuBudget "
				       "(%.3g s of CPU)", l->cpu_s);
	} else if (WIFSIGNALED(status)) {
		*note = prov_xasprintf("core not analyzed: the analysis died of signal %d "
				       "(collect.maxMemory is %llu bytes)", WTERMSIG(status),
				       (unsigned long long)l->max_memory.value);
	} else if (WEXITSTATUS(status) != 0 || !body->len || !(nl = memchr(body->buf, '\n', body->len))) {
		size_t len = body->len && body->buf[0] == '!' ? strcspn(body->buf + 1, "\n") : 0;

		*note = len ? prov_xasprintf("core not analyzed: %.*s", (int)len, body->buf + 1) :
			      prov_xstrdup("core not analyzed: the analysis failed");
	} else {
		size_t skip = (size_t)(nl - body->buf) + 1;

		*sig = prov_xstrndup(body->buf, skip - 1);
		memmove(body->buf, body->buf + skip, body->len - skip);
		body->len -= skip;
		body->buf[body->len] = 0;
		return 0;
	}
	prov_buf_reset(body);
	return 1;
}

/* Write `json` into dir/queue as one file, atomically (tmp + rename). */
static int queue_report(const char *dir, const char *json, size_t len, const char *name)
{
	char *q = prov_xasprintf("%s/queue", dir), *tmp = NULL, *dst = NULL;
	int fd = -1, err = 0;
	size_t count = 0;
	DIR *d;

	if ((err = prov_mkdir_p(q, 0700, 0)) < 0)
		goto cleanup;
	if ((d = opendir(q))) {
		struct dirent *e;

		while ((e = readdir(d)))
			count += e->d_name[0] != '.';
		closedir(d);
	}
	if (count >= MAX_QUEUE) {
		err = prov_error_set(PROV_ELIMIT, "the queue '%s' is full (%d reports)", q, MAX_QUEUE);
		goto cleanup;
	}
	tmp = prov_xasprintf("%s/.%s.tmp", q, name);
	dst = prov_xasprintf("%s/%s.json", q, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, json, len) != (ssize_t)len || fsync(fd) < 0) {
		err = prov_error_set(PROV_ERROR, "cannot queue the report in '%s': %s", q,
				     strerror(errno));
		goto cleanup;
	}
	close(fd);
	fd = -1;
	if (rename(tmp, dst) < 0)
		err = prov_error_set(PROV_ERROR, "cannot queue the report: %s", strerror(errno));
cleanup:
	if (fd >= 0)
		close(fd);
	if (err && tmp)
		unlink(tmp);
	free(q);
	free(tmp);
	free(dst);
	return err;
}

static int store_one(const char *store_path, const struct prov_ctx *ctx, const char *json,
		     size_t len, const char *host)
{
	struct prov_store *s = NULL;
	struct prov_store_meta meta = { 0 };
	char *path = store_path && *store_path ? prov_xstrdup(store_path) :
		     prov_store_default_path(ctx->cache_dir);
	int64_t id;
	int err;

	meta.host = host;
	if ((err = prov_store_open(&s, path, 0)) == 0)
		err = prov_store_add(&id, s, json, len, &meta);
	prov_store_free(s);
	free(path);
	return err;
}

/* The report: the analysis's JSON object (or the minimal record) with "job" and "collect". */
static int compose(struct prov_buf *json, const struct prov_buf *body,
		   const struct prov_collect_facts *f,
		   const struct prov_collect_opts *o, const struct outcome *out, const char *when)
{
	struct prov_buf extra = PROV_BUF_INIT;
	struct prov_json j;
	size_t end = body->len;
	int err;

	prov_json_init(&j, &extra);
	prov_json_begin_object(&j);
	if (!body->len) {
		/* the minimal record: what the kernel and /proc said (a report the store takes) */
		prov_json_kv_string(&j, "schema", "provenance/1");
		prov_json_key(&j, "signal");
		prov_json_begin_object(&j);
		prov_json_kv_int(&j, "number", o->signal);
		prov_json_end_object(&j);
		prov_json_key(&j, "crash");
		prov_json_begin_object(&j);
		prov_json_key(&j, "host");
		json_fact(&j, o->host);
		prov_json_key(&j, "time");
		json_fact(&j, when[0] ? when : NULL);
		prov_json_end_object(&j);
		prov_json_key(&j, "threads");
		prov_json_begin_array(&j);
		prov_json_end_array(&j);
	}
	json_job(&j, f, o, out);
	prov_json_end_object(&j);
	if ((err = prov_json_finish(&j)) < 0)
		goto cleanup;
	prov_buf_rtrim(&extra);
	if (!body->len) {
		prov_buf_add(json, extra.buf, extra.len);
		goto cleanup;
	}
	/* splice: the body's object without its '}', then extra's members */
	while (end && body->buf[end - 1] != '}')
		end--;
	if (end < 2 || body->buf[0] != '{' || extra.len < 2) {
		err = prov_error_set(PROV_ERROR, "the analysis printed no JSON object");
		goto cleanup;
	}
	prov_buf_add(json, body->buf, end - 1);
	{
		size_t k = end - 1;

		while (k > 1 && (body->buf[k - 1] == ' ' || body->buf[k - 1] == '\n'))
			k--;
		if (k > 1)
			prov_buf_add(json, ",", 1);
	}
	prov_buf_add(json, extra.buf + 1, extra.len - 1);
cleanup:
	prov_buf_release(&extra);
	return err;
}

int prov_collect_crash(const struct prov_collect_opts *o, struct prov_buf *msg)
{
	struct prov_collect_facts f = { 0 };
	struct outcome out = { 0 };
	struct prov_buf json = PROV_BUF_INIT, body = PROV_BUF_INIT;
	char root[64], *core = NULL, *name = NULL, *note = NULL, *sig = NULL, *kept = NULL,
	     *why = NULL, *key = NULL, when[21] = "";
	uint64_t size = 0;
	int err, have_root, over;

	read_facts(&f, o->pid);
	snprintf(root, sizeof(root), "/proc/%d/root", o->pid);
	have_root = access(root, X_OK) == 0;
	out.root = have_root ? root : NULL;
	if (o->time) {
		char *t = prov_xasprintf("@%s", o->time);

		if (prov_store_parse_time(when, t) < 0)
			when[0] = 0;
		free(t);
	}
	name = prov_xasprintf("%s-%d-%s", o->time ? o->time : "0", o->pid,
			      o->host ? o->host : "unknown");
	for (char *p = name; *p; p++)
		if (*p == '/' || (unsigned char)*p < 0x20)
			*p = '_';
	if ((err = prov_mkdir_p(o->spool_dir, 0700, 0)) < 0)
		goto cleanup;
	/* the rate limit is per executable and signal: known before the analysis it saves */
	key = prov_xasprintf("%s\n%d", f.exe ? f.exe : "", o->signal);
	over = prov_collect_rate_over(o->spool_dir, key, o->limits.rate_limit,
				      o->time ? (time_t)atoll(o->time) : time(NULL));
	if (over) {
		out.hit = "rateLimit";
		note = prov_xasprintf("core not analyzed: crash %d of this executable and signal "
				      "this minute, past collect.rateLimit (%d): counted only",
				      over, o->limits.rate_limit);
		goto compose;
	}
	core = prov_xasprintf("%s/core.%s", o->spool_dir, name);
	unlink(core);
	if ((err = spool_core(core, o->limits.max_core_size.value, &size)) < 0) {
		if (err == PROV_ELIMIT)
			out.hit = "maxCoreSize";
		note = prov_xasprintf("core not analyzed: %s", prov_error_last());
		goto compose;
	}
	analyze(&sig, &body, &note, &out.hit, o, core, out.root, when[0] ? when : NULL);
	if (prov_collect_keep_core(&kept, &why, o->spool_dir, core, name, sig, &o->limits) < 0 &&
	    !why)
		why = prov_xstrdup(prov_error_last());
	out.core = kept;
	out.core_note = why;
compose:
	out.note = note;
	if ((err = compose(&json, &body, &f, o, &out, when)) < 0)
		goto cleanup;
	if (store_one(o->store, o->ctx, json.buf, json.len, o->host) >= 0) {
		prov_buf_printf(msg, "pid %d: stored%s%s\n", o->pid, note ? "; " : "",
				note ? note : "");
	} else {
		char *e = prov_xstrdup(prov_error_last());

		err = queue_report(o->spool_dir, json.buf, json.len, name);
		if (err == 0) {
			prov_buf_printf(msg, "pid %d: the store failed (%s): queued\n", o->pid, e);
			err = 1;
		}
		free(e);
	}
cleanup:
	if (core)
		unlink(core);	/* the spooled core; a kept one is the .zst under cores/ */
	prov_buf_release(&json);
	prov_buf_release(&body);
	prov_collect_facts_release(&f);
	free(core);
	free(name);
	free(note);
	free(sig);
	free(kept);
	free(why);
	free(key);
	return err;
}

int prov_collect_import(const struct prov_collect_opts *o, const struct prov_collect_facts *f,
			const struct prov_collect_given *g, struct prov_buf *msg)
{
	struct outcome out = { 0 };
	struct prov_buf json = PROV_BUF_INIT, body = PROV_BUF_INIT;
	char *note = NULL, *sig = NULL, when[21] = "";
	int err;

	out.origin = g->origin;
	out.given = g;
	out.core = g->kept;
	if (o->time) {
		char *t = prov_xasprintf("@%s", o->time);

		if (prov_store_parse_time(when, t) < 0)
			when[0] = 0;
		free(t);
	}
	if (g->core)	/* this host's root: the crashed one is not there any more */
		analyze(&sig, &body, &note, &out.hit, o, g->core, NULL, when[0] ? when : NULL);
	else
		note = prov_xasprintf("core not analyzed: %s", g->core_note ? g->core_note :
				      "no core");
	out.note = note;
	if ((err = compose(&json, &body, f, o, &out, when)) < 0)
		goto cleanup;
	err = store_one(o->store, o->ctx, json.buf, json.len, o->host);
	if (err >= 0)
		prov_buf_printf(msg, "pid %d: %s%s%s\n", o->pid, err == 1 ? "in the store already" :
				"stored", note ? "; " : "", note ? note : "");
cleanup:
	prov_buf_release(&json);
	prov_buf_release(&body);
	free(note);
	free(sig);
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int prov_collect_flush(const char *spool_dir, const char *store, const struct prov_ctx *ctx,
		       size_t *sent, size_t *dups)
{
	char *q = prov_xasprintf("%s/queue", spool_dir), **names = NULL;
	struct prov_buf b = PROV_BUF_INIT;
	size_t n = 0, cap = 0, i;
	const char *slow = getenv("PROVENANCE_TEST_FLUSH_SLEEP");
	struct dirent *e;
	int err = 0;
	DIR *d;

	*sent = *dups = 0;
	if (!(d = opendir(q)))
		goto cleanup;	/* nothing queued */
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.' || l < 6 || strcmp(e->d_name + l - 5, ".json"))
			continue;
		if (n == cap)
			names = prov_xrealloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*names));
		names[n++] = prov_xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n && !err; i++) {
		char *path = prov_xasprintf("%s/%s", q, names[i]);

		err = prov_read_file(&b, path, (size_t)64 << 20);
		if (!err)
			err = store_one(store, ctx, b.buf, b.len, NULL);
		if (err >= 0) {
			/* the add committed (or was stored before): only now is the file gone */
			*sent += err == 0;
			*dups += err == 1;
			err = 0;
			unlink(path);
			if (slow && *slow)
				sleep((unsigned int)prov_atoi(slow));	/* test hook: kill -9 halfway */
		}
		free(path);
	}
cleanup:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	prov_buf_release(&b);
	free(q);
	return err;
}
