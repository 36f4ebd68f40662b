/* Network jobs that cannot hang: a child process, watched and killed past the fetch.* bounds. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "fetch.h"
#include "gitstream.h"
#include "hostdown.h"
#include "sources.h"
#include "sources-git.h"
#include "util.h"
#include "banned.h"

/* ---- fetches that cannot hang: a child process, watched and killed ---- */

struct fetch_bounds {
	uint64_t connect_s, stall_s, total_s;	/* 0: no bound */
};

static uint64_t bound(const struct prov_config *cfg, const char *key, uint64_t def)
{
	const char *v = cfg ? prov_config_get(cfg, key) : NULL;
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return def;
	n = strtoull(v, &end, 10);
	if (*end || n > 7ULL * 86400) {
		prov_warn("ignoring %s = '%s': not a number of seconds", key, v);
		return def;
	}
	return n;
}

static void fetch_bounds_read(struct fetch_bounds *b, const struct prov_config *cfg)
{
	b->connect_s = bound(cfg, "fetch.connecttimeout", PROV_FETCH_DEFAULT_CONNECT_S);
	b->stall_s = bound(cfg, "fetch.stalltimeout", 60);
	b->total_s = bound(cfg, "fetch.timeout", 600);
}

/* What a killed fetch may leave: ref locks and libgit2's pack temporaries. */
static int litter_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;

	(void)sb;
	if (type == FTW_F && (prov_ends_with(base, ".lock") || prov_starts_with(base, "pack_git2_")))
		unlink(path);
	return 0;
}

static void remove_litter(const char *repo_path)
{
	if (repo_path)
		nftw(repo_path, litter_cb, 16, FTW_PHYS);
}

/*
 * Hosts that did not answer within fetch.connectTimeout in this run: the
 * next fetch from one fails at once, so that a machine without network
 * pays the connect bound once per host, not once per repository; after
 * DEAD_NETWORK hosts, the network is taken as down for the rest of the run.
 */
#define DEAD_NETWORK 2
#define MAX_DEAD_HOSTS 64
static char *dead_hosts[MAX_DEAD_HOSTS];
static size_t ndead_hosts;

static int host_is_dead(const char *host)
{
	size_t i;

	for (i = 0; host && i < ndead_hosts; i++)
		if (!strcmp(dead_hosts[i], host))
			return 1;
	return 0;
}

static int bounded_once(const struct prov_bounded_job *job, const struct prov_config *cfg);

int prov_bounded_run(const struct prov_bounded_job *job, const struct prov_ctx *ctx)
{
	const struct prov_config *cfg = ctx->config;
	char *host = prov_hostdown_host(job->fetch_url);
	int error;

	if (host_is_dead(host)) {
		error = prov_error_set(PROV_ERROR, "%s of %s skipped: %s did not answer earlier in this run",
				       job->verb, job->display_url, host);
		free(host);
		return error;
	}
	if (ndead_hosts >= DEAD_NETWORK) {
		error = prov_error_set(PROV_ERROR, "%s of %s skipped: %zu hosts did not answer earlier in this run (no network?)",
				       job->verb, job->display_url, ndead_hosts);
		free(host);
		return error;
	}
	if (prov_hostdown_skip(ctx, host, job->verb, job->display_url)) {
		free(host);
		return PROV_ERROR;
	}
	error = bounded_once(job, cfg);
	if (error < 0 && strstr(prov_error_last(), "got no answer within") && host) {
		struct fetch_bounds b;

		fetch_bounds_read(&b, cfg);
		prov_hostdown_failed(ctx, host, b.connect_s);
		if (ndead_hosts < MAX_DEAD_HOSTS) {
			dead_hosts[ndead_hosts++] = host;
			host = NULL;
		}
	} else if (error == 0 && host) {
		prov_hostdown_clear(ctx->cache_dir, host);
	}
	free(host);
	return error;
}

void prov_bounded_answer(int fd, const char *data, size_t len)
{
	size_t off = 0;

	if (write(fd, "R", 1) != 1)
		return;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		off += (size_t)n;
	}
}

/* The child: bounded streams, the job's work, its error down the pipe. Never returns. */
static void bounded_child(const struct prov_bounded_job *job, int fd, pid_t parent,
			  const struct fetch_bounds *b, uint64_t max_pack, uint64_t max_advert,
			  const char *ca_file)
{
	struct prov_gitstream_bounds bounds = { 0 };
	int rc = 1;

	/* a killed run must not leave its fetch running */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	signal(SIGPIPE, SIG_IGN);
	bounds.max_advert = max_advert;
	bounds.max_bytes = max_pack ? max_pack + max_advert + ((uint64_t)1 << 20) : 0;
	bounds.deadline_ms = b->total_s ? prov_now_ms() + b->total_s * 1000 : 0;
	bounds.timeout_s = b->total_s;
	bounds.ping_fd = fd;
	bounds.ca_file = ca_file;
	if (prov_gitstream_install(&bounds) < 0)
		prov_error_from_git(PROV_ERROR, "cannot set up a %s of %s", job->verb, job->display_url);
	else if (job->work(fd, max_pack, job->arg) == 0)
		rc = 0;
	if (rc) {
		const char *m = prov_error_last();

		if (write(fd, "E", 1) == 1 && write(fd, m, strlen(m)) < 0)
			rc = 1;
	}
	_exit(rc);
}

/* The parent: wait for the child, kill it past a bound; why it was killed, or NULL. */
static const char *bounded_watch(const struct prov_bounded_job *job, int fd, pid_t pid,
				 const struct fetch_bounds *b, struct prov_buf *msg, int *status)
{
	uint64_t start, last, now;
	int got_any = 0, mode = 0;	/* mode: 'E' (the error) or 'R' (the answer) follows */
	const char *why = NULL;

	start = last = prov_now_ms();
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		char buf[512];
		int pr = poll(&pfd, 1, 100);

		now = prov_now_ms();
		if (pr > 0) {
			ssize_t n = read(fd, buf, sizeof(buf));

			if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
				break;
			for (ssize_t i = 0; i < n; i++) {
				if (mode == 'E')
					prov_buf_putc(msg, buf[i]);
				else if (mode == 'R')
					prov_buf_putc(job->answer, buf[i]);
				else if ((buf[i] == 'E' || (buf[i] == 'R' && job->answer)))
					mode = buf[i];
				got_any = 1;
				last = now;
			}
		}
		if (b->total_s && now - start > b->total_s * 1000)
			why = "took longer than";
		else if (!got_any && b->connect_s && now - start > b->connect_s * 1000)
			why = "got no answer within";
		else if (got_any && b->stall_s && now - last > b->stall_s * 1000)
			why = "stalled for";
		if (why) {
			kill(pid, SIGKILL);
			break;
		}
	}
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return why;
}

/*
 * Run the job in a child process, killed when nothing arrived within
 * fetch.connectTimeout, when nothing more arrived for fetch.stallTimeout,
 * or after fetch.timeout in all. A killed fetch leaves at most unreferenced
 * objects (its lock files are removed); the caller trusts a new mirror only
 * after a successful fetch.
 */
static int bounded_once(const struct prov_bounded_job *job, const struct prov_config *cfg)
{
	struct fetch_bounds b;
	struct prov_buf msg = PROV_BUF_INIT;
	uint64_t max_pack = 0, max_advert = 0;
	int fds[2], status = 0;
	const char *why, *ca_file = NULL;
	pid_t pid, parent;

	fetch_bounds_read(&b, cfg);
	if (prov_fetch_config_size(&max_pack, cfg, "fetch.maxpacksize", PROV_SOURCES_DEFAULT_MAX_PACK) < 0 ||
	    prov_fetch_config_size(&max_advert, cfg, "fetch.maxrefssize", PROV_SOURCES_DEFAULT_MAX_ADVERT) < 0 ||
	    prov_fetch_ca_file(&ca_file, cfg) < 0)
		return PROV_EINPUT;
	/* a run killed (SIGKILL, a CI runner's SIGTERM) while fetching left its
	 * partial pack: removed here, under the mirror's lock, before a new one */
	remove_litter(job->repo_path);
	fprintf(stderr, "%s\n", job->banner);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return prov_error_set(PROV_ERROR, "cannot %s '%s': pipe: %s", job->verb, job->display_url,
				      strerror(errno));
	fflush(stdout);
	fflush(stderr);
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return prov_error_set(PROV_ERROR, "cannot %s '%s': fork: %s", job->verb, job->display_url,
				      strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		bounded_child(job, fds[1], parent, &b, max_pack, max_advert, ca_file);
	}
	close(fds[1]);
	why = bounded_watch(job, fds[0], pid, &b, &msg, &status);
	close(fds[0]);
	if (why) {
		remove_litter(job->repo_path);
		prov_buf_release(&msg);
		if (!strcmp(why, "took longer than"))
			return prov_error_set(PROV_ERROR, "%s of %s took longer than %llu s (fetch.timeout)",
					      job->verb, job->display_url, (unsigned long long)b.total_s);
		if (!strcmp(why, "stalled for"))
			return prov_error_set(PROV_ERROR, "%s of %s stalled for %llu s (fetch.stallTimeout)",
					      job->verb, job->display_url, (unsigned long long)b.stall_s);
		return prov_error_set(PROV_ERROR, "%s of %s got no answer within %llu s (fetch.connectTimeout)",
				      job->verb, job->display_url, (unsigned long long)b.connect_s);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		prov_buf_release(&msg);
		return 0;
	}
	remove_litter(job->repo_path);
	if (msg.len)
		prov_error_set(PROV_ERROR, "%s", msg.buf);
	else if (WIFSIGNALED(status))
		prov_error_set(PROV_ERROR, "cannot %s '%s': the %s process died of signal %d",
			       job->verb, job->display_url, job->verb, WTERMSIG(status));
	else
		prov_error_set(PROV_ERROR, "cannot %s '%s'", job->verb, job->display_url);
	prov_buf_release(&msg);
	return PROV_ERROR;
}
