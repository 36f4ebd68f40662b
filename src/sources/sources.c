#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <git2.h>

#include "cachedir.h"
#include "error.h"
#include "fetch.h"
#include "gitstream.h"
#include "hostdown.h"
#include "sources.h"
#include "sources-git.h"
#include "util.h"
#include "banned.h"

#ifdef __SANITIZE_ADDRESS__
/*
 * libgit2 1.5.1 leaks pcre2 match data on every fetch (inside
 * git_remote_fetch, not in our calls); tell LeakSanitizer so that sanitizer
 * builds report only our own leaks.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpcre2-8.so\n";
}
#endif

struct tag_entry {
	char *name;
	git_oid commit;
	int64_t time;
};

struct prov_repo {
	git_repository *repo;
	char *path;
	char *url;
	struct tag_entry *tags;
	size_t ntags;
	int tags_loaded;
	int include_prereleases;	/* first tag: pre-release tags count too */
	int stale;	/* a refresh was needed but the fetch failed */
	char *fetch_error;	/* why */
};

static int git_ready;

void prov_git_init_once(void)
{
	if (git_ready)
		return;
	git_libgit2_init();
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	git_ready = 1;
}

void prov_git_shutdown(void)
{
	if (!git_ready)
		return;
	git_ready = 0;
	git_libgit2_shutdown();
}

int prov_repo_stale(const struct prov_repo *r)
{
	return r && r->stale;
}

void prov_repo_free(struct prov_repo *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->ntags; i++)
		free(r->tags[i].name);
	free(r->tags);
	git_repository_free(r->repo);
	free(r->path);
	free(r->url);
	free(r->fetch_error);
	free(r);
}

git_repository *prov_repo_git(struct prov_repo *r)
{
	return r->repo;
}

int prov_error_from_git(int code, const char *fmt, ...)
{
	const git_error *ge = git_error_last();
	struct prov_buf msg = PROV_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	prov_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	prov_error_set(code, "%s: %s", msg.buf,
		       ge && ge->message ? ge->message : "unknown libgit2 error");
	prov_buf_release(&msg);
	return code;
}

static int is_hex(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 4 || n > 40)
		return 0;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

char *prov_sources_mirror_path(const char *cache_dir, const char *url)
{
	struct prov_buf name = PROV_BUF_INIT;
	const char *p = strstr(url, "://");
	git_oid oid;
	char hex[GIT_OID_HEXSZ + 1];
	char *out;

	p = p ? p + 3 : url;
	{
		/* never put credentials (user:token@) in a directory name */
		const char *slash = strchr(p, '/'), *at = strchr(p, '@');

		if (at && (!slash || at < slash))
			p = at + 1;
	}
	for (; *p && name.len < 80; p++) {
		char c = *p;

		if (!isalnum((unsigned char)c) && c != '.' && c != '_' && c != '-')
			c = '-';
		if (c == '-' && name.len && name.buf[name.len - 1] == '-')
			continue;
		prov_buf_putc(&name, c);
	}
	if (prov_ends_with(name.buf, ".git"))
		prov_buf_setlen(&name, name.len - 4);
	while (name.len && (name.buf[name.len - 1] == '-' || name.buf[name.len - 1] == '.'))
		prov_buf_setlen(&name, name.len - 1);
	while (name.len && (name.buf[0] == '.' || name.buf[0] == '-'))
		memmove(name.buf, name.buf + 1, name.len--);
	git_odb_hash(&oid, url, strlen(url), GIT_OBJECT_BLOB);
	git_oid_tostr(hex, sizeof(hex), &oid);
	out = prov_cachedir_pathf(cache_dir, PROV_CACHEDIR_MIRRORS, "%s%s%.12s.git", name.buf,
				  name.len ? "-" : "", hex);
	prov_buf_release(&name);
	return out;
}

static int rm_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

static int remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	return nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

struct progress {
	const char *url;
	int shown;
	uint64_t last_ms;
	int tty;
	int fd;	/* the parent's watch pipe (bounded_fetch), or -1 */
	uint64_t last_bytes;
	uint64_t last_ping_ms;
	uint64_t max_bytes;	/* fetch.maxPackSize: the transfer is aborted past it */
	int over;
};

/* Tell the parent that something arrived (at most every 50 ms). */
static void ping(struct progress *p)
{
	uint64_t now;

	if (p->fd < 0)
		return;
	now = prov_now_ms();
	if (now - p->last_ping_ms < 50)
		return;
	p->last_ping_ms = now;
	if (write(p->fd, "P", 1) < 0) {
		/* the parent is gone or not listening: nothing to do */
	}
}

static int sideband_cb(const char *str, int len, void *payload)
{
	(void)str;
	(void)len;
	prov_gitstream_pack_started();
	ping(payload);
	return 0;
}

static int tips_cb(const char *refname, const git_oid *a, const git_oid *b, void *payload)
{
	(void)refname;
	(void)a;
	(void)b;
	ping(payload);
	return 0;
}

static int progress_cb(const git_indexer_progress *s, void *payload)
{
	struct progress *p = payload;
	uint64_t now = prov_now_ms();

	prov_gitstream_pack_started();
	if (s->received_bytes != p->last_bytes || s->indexed_deltas) {
		p->last_bytes = s->received_bytes;
		ping(p);
	}
	if (p->max_bytes && s->received_bytes > p->max_bytes) {
		p->over = 1;	/* an endless pack: abort the transfer (libgit2 returns GIT_EUSER) */
		return -1;
	}
	if (!p->tty)
		return 0;
	if (now - p->last_ms < 100 && s->received_objects != s->total_objects)
		return 0;
	p->last_ms = now;
	p->shown = 1;
	fprintf(stderr, "\rfetching %s: %u/%u objects, %u/%u deltas, %zu KiB   ",
		p->url, s->received_objects, s->total_objects, s->indexed_deltas,
		s->total_deltas, s->received_bytes >> 10);
	return 0;
}

static int add_spec(char ***specs, size_t *n, char *spec)
{
	*specs = prov_xrealloc(*specs, (*n + 1) * sizeof(**specs));
	(*specs)[(*n)++] = spec;
	return 0;
}

/* Is the ref name safe to put in a refspec? */
static int ref_name_ok(const char *w)
{
	int valid = 0;
	char *full = prov_xasprintf("refs/heads/%s", w);

	if (git_reference_name_is_valid(&valid, full) < 0)
		valid = 0;
	free(full);
	return valid && !strchr(w, '*') && !strchr(w, ':');
}

static int do_fetch(git_repository *repo, const char *fetch_url, const char *display_url,
		    const char *const *wants, size_t nwants, int all_heads, int watch_fd,
		    uint64_t max_pack)
{
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	git_remote *remote = NULL;
	git_strarray arr = { NULL, 0 };
	char **specs = NULL;
	size_t n = 0, i;
	struct progress prog = { display_url, 0, 0, 0, -1, 0, 0, max_pack, 0 };
	int error;

	for (i = 0; i < nwants; i++)
		if (is_hex(wants[i]))
			all_heads = 1;
	add_spec(&specs, &n, prov_xstrdup("+refs/tags/*:refs/tags/*"));
	/* the remote's HEAD, so that HEAD, HEAD~3 mean what they mean upstream */
	add_spec(&specs, &n, prov_xstrdup("+HEAD:refs/remotes/origin/HEAD"));
	if (all_heads)
		add_spec(&specs, &n, prov_xstrdup("+refs/heads/*:refs/heads/*"));
	else
		for (i = 0; i < nwants; i++)
			if (!is_hex(wants[i]) && ref_name_ok(wants[i]))
				add_spec(&specs, &n, prov_xasprintf("+refs/heads/%s:refs/heads/%s",
								   wants[i], wants[i]));
	arr.strings = specs;
	arr.count = n;
	prog.tty = prov_isatty(2);
	prog.fd = watch_fd;
	fo.callbacks.transfer_progress = progress_cb;
	fo.callbacks.sideband_progress = sideband_cb;
	fo.callbacks.update_tips = tips_cb;
	fo.callbacks.payload = &prog;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (git_remote_create_anonymous(&remote, repo, fetch_url) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot set up a fetch");
		goto cleanup;
	}
	if ((error = git_remote_fetch(remote, &arr, &fo, NULL)) < 0) {
		if (error == GIT_ECERTIFICATE)
			error = prov_error_set(PROV_ERROR, "cannot fetch '%s': the server's certificate is "
					       "not trusted (%s); fetch.sslCAInfo names a CA file to trust",
					       display_url, git_error_last() && git_error_last()->message ?
					       git_error_last()->message : "no detail");
		else if (!prog.over && prov_gitstream_why())
			error = prov_error_set(PROV_ELIMIT, "fetch of %s: %s", display_url, prov_gitstream_why());
		else if (prog.over)
			error = prov_error_set(PROV_ELIMIT, "fetch of %s sent more than %llu bytes "
					       "(fetch.maxPackSize); abandoned", display_url,
					       (unsigned long long)max_pack);
		else
			error = prov_error_from_git(PROV_ERROR, "cannot fetch '%s'", display_url);
		goto cleanup;
	}
	{
		git_reference *head = NULL;

		if (git_reference_lookup(&head, repo, "refs/remotes/origin/HEAD") == 0 &&
		    git_reference_target(head))
			git_repository_set_head_detached(repo, git_reference_target(head));
		git_reference_free(head);
	}
	error = 0;
cleanup:
	if (prog.shown)
		fputc('\n', stderr);
	for (i = 0; i < n; i++)
		free(specs[i]);
	free(specs);
	git_remote_free(remote);
	return error;
}

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

/* ---- a mirror fetch as a bounded job ---- */

struct fetch_job {
	const char *repo_path, *fetch_url, *display_url;
	const char *const *wants;
	size_t nwants;
	int all_heads;
};

static int fetch_work(int fd, uint64_t max_pack, void *arg)
{
	const struct fetch_job *f = arg;
	git_repository *repo = NULL;
	int error;

	if (git_repository_open_bare(&repo, f->repo_path) < 0)
		return prov_error_from_git(PROV_ERROR, "cannot open mirror");
	error = do_fetch(repo, f->fetch_url, f->display_url, f->wants, f->nwants, f->all_heads, fd,
			 max_pack);
	git_repository_free(repo);
	return error;
}

static int bounded_fetch(const char *repo_path, const char *fetch_url, const char *display_url,
			 const char *const *wants, size_t nwants, int all_heads,
			 const struct prov_ctx *ctx)
{
	struct fetch_job f = { repo_path, fetch_url, display_url, wants, nwants, all_heads };
	struct prov_bounded_job job = { 0 };
	char *banner = prov_xasprintf("fetching %s (mirror)", display_url);
	int error;

	job.verb = "fetch";
	job.banner = banner;
	job.fetch_url = fetch_url;
	job.display_url = display_url;
	job.repo_path = repo_path;
	job.work = fetch_work;
	job.arg = &f;
	error = prov_bounded_run(&job, ctx);
	free(banner);
	return error;
}

/* Does every want resolve in the repo as a tag or a commit by hex? */
static int wants_satisfied(git_repository *repo, const char *const *wants, size_t nwants)
{
	size_t i;

	for (i = 0; i < nwants; i++) {
		git_object *obj = NULL;
		git_reference *ref = NULL;
		char *full = prov_xasprintf("refs/tags/%s", wants[i]);
		int ok = 0;

		if (git_reference_lookup(&ref, repo, full) == 0)
			ok = 1;
		else if (is_hex(wants[i]) && git_revparse_single(&obj, repo, wants[i]) == 0)
			ok = 1;
		git_reference_free(ref);
		git_object_free(obj);
		free(full);
		if (!ok)
			return 0;
	}
	return 1;
}

static const char *local_path(const char *url)
{
	if (!strncasecmp(url, "file://", 7))
		return url + 7;
	if (strstr(url, "://"))
		return NULL;
	return url;
}

static int open_repo_at(git_repository **out, const char *path, const char *what)
{
	if (git_repository_open_ext(out, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return prov_error_set(PROV_EINPUT, "'%s' is not a git repository", what);
	return 0;
}

int prov_sources_open(struct prov_repo **out, const char *url, const char *const *wants,
		      size_t nwants, int all_heads, const struct prov_sources_opts *opts)
{
	struct prov_repo *r = NULL;
	git_repository *repo = NULL;
	char *fetch_url = NULL, *mirror = NULL, *tmp = NULL, *lockpath = NULL, *dir = NULL;
	const char *lp;
	struct stat st;
	int lockfd = -1, error;

	if (!url || !*url || !prov_url_scheme_ok(url)) {
		error = prov_error_set(PROV_EINPUT, "'%s' is not an https, http, ssh, git or file URL or a local path",
				       url ? url : "");
		goto cleanup;
	}
	fetch_url = opts && opts->ctx && opts->ctx->config ? prov_config_rewrite_url(opts->ctx->config, url) : prov_xstrdup(url);
	if (!prov_url_scheme_ok(fetch_url)) {
		error = prov_error_set(PROV_EINPUT, "'%s' (from '%s' by url.insteadOf) is not an https, http, ssh, git or file URL or a local path",
				       fetch_url, url);
		goto cleanup;
	}
	r = prov_xcalloc(1, sizeof(*r));
	r->url = prov_xstrdup(url);
	lp = local_path(fetch_url);
	if (lp)
		prov_git_init_once();
	if (lp && !strstr(fetch_url, "://")) {
		/* a local repository: use it in place */
		if ((error = open_repo_at(&repo, lp, lp)) < 0)
			goto cleanup;
		r->repo = repo;
		repo = NULL;
		r->path = prov_xstrdup(git_repository_path(r->repo));
		goto done;
	}
	if (lp && (!*lp || git_repository_open_ext(&repo, lp, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)) {
		error = prov_error_set(PROV_EINPUT, "'%s' is not a git repository", fetch_url);
		goto cleanup;
	}
	git_repository_free(repo);
	repo = NULL;

	if (!opts || !opts->ctx || !opts->ctx->cache_dir) {
		error = prov_error_set(PROV_ERROR, "no cache directory for a mirror of '%s'", url);
		goto cleanup;
	}
	mirror = prov_sources_mirror_path(opts->ctx->cache_dir, url);
	r->path = prov_xstrdup(mirror);
	/* --offline forbids the network, not the disk: a file:// upstream
	 * (air-gapped mirrors, tests) is still fetched */
	if (opts->ctx->offline && !lp) {
		/* no mirror, no libgit2: its start (the CA bundle) is most of an offline resolve's extra cost */
		if (stat(mirror, &st) < 0 || (prov_git_init_once(), git_repository_open_bare(&repo, mirror)) < 0) {
			error = prov_error_set(PROV_ENOTFOUND, "no mirror of '%s' in the cache (offline)", url);
			goto cleanup;
		}
		r->repo = repo;
		repo = NULL;
		goto done;
	}
	prov_git_init_once();
	dir = prov_cachedir_path(opts->ctx->cache_dir, PROV_CACHEDIR_MIRRORS);
	if ((error = prov_mkdir_p(dir, 0755, 0)) < 0)
		goto cleanup;
	lockpath = prov_xasprintf("%s.lock", mirror);
	if ((lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		error = prov_error_set(PROV_ERROR, "cannot create lock '%s': %s", lockpath, strerror(errno));
		goto cleanup;
	}
	{
		/* another run is fetching this mirror: wait for it, but not forever */
		uint64_t start = prov_now_ms();

		while (flock(lockfd, LOCK_EX | LOCK_NB) < 0) {
			if (errno != EWOULDBLOCK && errno != EINTR) {
				error = prov_error_set(PROV_ERROR, "cannot lock '%s': %s", lockpath,
						       strerror(errno));
				goto cleanup;
			}
			if (prov_now_ms() - start > PROV_SOURCES_LOCK_WAIT_MS) {
				error = prov_error_set(PROV_ERROR, "mirror '%s' is still locked by another run after %d s",
						       mirror, PROV_SOURCES_LOCK_WAIT_MS / 1000);
				goto cleanup;
			}
			usleep(50 * 1000);
		}
	}
	if (stat(mirror, &st) == 0) {
		if (git_repository_open_bare(&repo, mirror) < 0) {
			error = prov_error_from_git(PROV_ERROR, "cannot open mirror");
			goto cleanup;
		}
		if (!all_heads && wants_satisfied(repo, wants, nwants))
			goto have;
		/* a mirror that cannot be refreshed (network down) is still usable as it is */
		if (bounded_fetch(mirror, fetch_url, url, wants, nwants, all_heads,
				  opts->ctx) < 0) {
			prov_warn("%s; using the mirror as it is", prov_error_last());
			r->stale = 1;
			r->fetch_error = prov_xstrdup(prov_error_last());
		}
		/* see what the fetch (in another process) wrote */
		git_repository_free(repo);
		repo = NULL;
		if (git_repository_open_bare(&repo, mirror) < 0) {
			error = prov_error_from_git(PROV_ERROR, "cannot open mirror");
			goto cleanup;
		}
		goto have;
	}
	/* a new mirror: build it aside, rename it into place when complete */
	tmp = prov_xasprintf("%s.tmp", mirror);
	if (remove_tree(tmp) < 0) {
		error = prov_error_set(PROV_ERROR, "cannot remove '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	if (git_repository_init(&repo, tmp, 1) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot create a mirror");
		goto cleanup;
	}
	git_repository_free(repo);
	repo = NULL;
	if ((error = bounded_fetch(tmp, fetch_url, url, wants, nwants, all_heads, opts->ctx)) < 0)
		goto cleanup;
	if (rename(tmp, mirror) < 0) {
		error = prov_error_set(PROV_ERROR, "cannot rename '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	if (git_repository_open_bare(&repo, mirror) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot open mirror");
		goto cleanup;
	}
have:
	r->repo = repo;
	repo = NULL;
done:
	*out = r;
	r = NULL;
	error = 0;
cleanup:
	if (error < 0 && tmp)
		remove_tree(tmp);
	if (lockfd >= 0)
		close(lockfd);	/* releases the flock */
	git_repository_free(repo);
	prov_repo_free(r);
	free(fetch_url);
	free(mirror);
	free(tmp);
	free(lockpath);
	free(dir);
	return error;
}

static int peel_to_commit(git_oid *out, git_object *obj)
{
	git_object *c = NULL;

	if (git_object_peel(&c, obj, GIT_OBJECT_COMMIT) < 0)
		return -1;
	git_oid_cpy(out, git_object_id(c));
	git_object_free(c);
	return 0;
}

static int resolve_oid(git_oid *out, struct prov_repo *r, const char *rev)
{
	static const char *const prefixes[] = { "refs/tags/", "refs/heads/", NULL };
	git_object *obj = NULL;
	size_t i;
	int error = PROV_ENOTFOUND;

	if (!rev || !*rev || strlen(rev) > 1024)
		goto done;
	for (i = 0; prefixes[i]; i++) {
		char *full = prov_xasprintf("%s%s", prefixes[i], rev);
		int ok = git_revparse_single(&obj, r->repo, full) == 0;

		free(full);
		if (ok)
			break;
		obj = NULL;
	}
	if (!obj && git_revparse_single(&obj, r->repo, rev) < 0)
		obj = NULL;
	if (obj && peel_to_commit(out, obj) == 0)
		error = 0;
done:
	git_object_free(obj);
	if (error)
		prov_error_set(PROV_ENOTFOUND, "unknown revision '%s' in '%s'%s%s%s", rev ? rev : "",
			       r->url, r->fetch_error ? " (the mirror could not be refreshed: " : "",
			       r->fetch_error ? r->fetch_error : "", r->fetch_error ? ")" : "");
	return error;
}

int prov_repo_resolve(char **out, struct prov_repo *r, const char *rev)
{
	git_oid oid;
	char hex[GIT_OID_HEXSZ + 1];
	int error;

	if ((error = resolve_oid(&oid, r, rev)) < 0)
		return error;
	git_oid_tostr(hex, sizeof(hex), &oid);
	*out = prov_xstrdup(hex);
	return 0;
}

int prov_repo_is_branch(struct prov_repo *r, const char *ref)
{
	git_reference *ref_obj = NULL;
	char *full = prov_xasprintf("refs/heads/%s", ref);
	int ok = git_reference_lookup(&ref_obj, r->repo, full) == 0;

	git_reference_free(ref_obj);
	free(full);
	return ok;
}

int prov_repo_is_tag(struct prov_repo *r, const char *ref)
{
	git_reference *ref_obj = NULL;
	char *full = prov_xasprintf("refs/tags/%s", ref);
	int ok = git_reference_lookup(&ref_obj, r->repo, full) == 0;

	git_reference_free(ref_obj);
	free(full);
	return ok;
}

static int parse_oid(git_oid *out, const char *hex)
{
	if (!hex || strlen(hex) != GIT_OID_HEXSZ || git_oid_fromstr(out, hex) < 0)
		return prov_error_set(PROV_EINPUT, "'%s' is not a full commit id", hex ? hex : "");
	return 0;
}

static int descends(int *out, git_repository *repo, const git_oid *desc, const git_oid *anc)
{
	int r;

	if (git_oid_equal(desc, anc)) {
		*out = 1;
		return 0;
	}
	r = git_graph_descendant_of(repo, desc, anc);
	if (r < 0)
		return prov_error_from_git(PROV_ERROR, "cannot compute ancestry");
	*out = r;
	return 0;
}

int prov_repo_is_ancestor(int *out, struct prov_repo *r, const char *ancestor_hex,
			  const char *descendant_hex)
{
	git_oid a, d;
	int error;

	if ((error = parse_oid(&a, ancestor_hex)) < 0 ||
	    (error = parse_oid(&d, descendant_hex)) < 0)
		return error;
	return descends(out, r->repo, &d, &a);
}

struct tag_list {
	struct prov_repo *r;
	size_t alloc;
};

static int tag_cb(const char *name, git_oid *oid, void *payload)
{
	struct tag_list *tl = payload;
	struct prov_repo *r = tl->r;
	git_object *obj = NULL;
	git_commit *commit = NULL;
	git_oid c;

	if (r->ntags >= 1000000)
		return 1;
	if (git_object_lookup(&obj, r->repo, oid, GIT_OBJECT_ANY) < 0 ||
	    peel_to_commit(&c, obj) < 0 || git_commit_lookup(&commit, r->repo, &c) < 0)
		goto done;	/* tags of trees or blobs contain no commit */
	PROV_ALLOC_GROW(r->tags, r->ntags + 1, tl->alloc);
	r->tags[r->ntags].name = prov_xstrdup(prov_skip_prefix(name, "refs/tags/") ?
					       prov_skip_prefix(name, "refs/tags/") : name);
	git_oid_cpy(&r->tags[r->ntags].commit, &c);
	r->tags[r->ntags].time = (int64_t)git_commit_time(commit);
	r->ntags++;
done:
	git_commit_free(commit);
	git_object_free(obj);
	return 0;
}

static int tag_cmp(const void *a, const void *b)
{
	const struct tag_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return strcmp(x->name, y->name);
}

#define CLOCK_SKEW (24 * 3600)

/* An open-addressing set of object ids (the first bytes of a SHA-1 are a good hash). */
struct oidset {
	git_oid *slots;
	unsigned char *used;
	size_t n, cap;
};

static size_t oid_hash(const git_oid *o)
{
	size_t h;

	memcpy(&h, o->id, sizeof(h));
	return h;
}

static int oidset_has(const struct oidset *s, const git_oid *o)
{
	size_t i;

	if (!s->cap)
		return 0;
	for (i = oid_hash(o) & (s->cap - 1); s->used[i]; i = (i + 1) & (s->cap - 1))
		if (git_oid_equal(&s->slots[i], o))
			return 1;
	return 0;
}

static void oidset_add(struct oidset *s, const git_oid *o)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		struct oidset bigger = { 0 };
		size_t k;

		bigger.cap = s->cap ? s->cap * 2 : 1024;
		bigger.slots = prov_xcalloc(bigger.cap, sizeof(*bigger.slots));
		bigger.used = prov_xcalloc(bigger.cap, 1);
		for (k = 0; k < s->cap; k++)
			if (s->used[k])
				oidset_add(&bigger, &s->slots[k]);
		free(s->slots);
		free(s->used);
		*s = bigger;
	}
	for (i = oid_hash(o) & (s->cap - 1); s->used[i]; i = (i + 1) & (s->cap - 1))
		if (git_oid_equal(&s->slots[i], o))
			return;
	s->used[i] = 1;
	git_oid_cpy(&s->slots[i], o);
	s->n++;
}

static void oidset_release(struct oidset *s)
{
	free(s->slots);
	free(s->used);
	memset(s, 0, sizeof(*s));
}

/*
 * Does `from` reach `target`? Walk parents, skipping commits older than
 * `floor` (they cannot descend from the target unless clocks were off by
 * more than CLOCK_SKEW) and commits already known not to reach it. When the
 * answer is no, every commit visited joins `no`: its whole ancestry above
 * the floor was explored. Over all tags each commit is walked at most once.
 */
static int reaches(int *out, git_repository *repo, const git_oid *from, const git_oid *target,
		   int64_t floor, struct oidset *no)
{
	git_oid *stack = NULL, *seen_list = NULL;
	size_t nstack = 0, stack_alloc = 0, nseen = 0, seen_alloc = 0, i;
	struct oidset seen = { 0 };
	int error = 0;

	*out = 0;
	PROV_ALLOC_GROW(stack, 1, stack_alloc);
	git_oid_cpy(&stack[nstack++], from);
	oidset_add(&seen, from);
	while (nstack) {
		git_oid cur = stack[--nstack];
		git_commit *c = NULL;
		unsigned int np, k;

		if (git_oid_equal(&cur, target)) {
			*out = 1;
			goto cleanup;
		}
		if (oidset_has(no, &cur))
			continue;
		if (git_commit_lookup(&c, repo, &cur) < 0) {
			error = prov_error_from_git(PROV_ERROR, "cannot read commit");
			goto cleanup;
		}
		PROV_ALLOC_GROW(seen_list, nseen + 1, seen_alloc);
		git_oid_cpy(&seen_list[nseen++], &cur);
		np = git_commit_parentcount(c);
		for (k = 0; k < np; k++) {
			const git_oid *p = git_commit_parent_id(c, k);

			if (oidset_has(&seen, p))
				continue;
			oidset_add(&seen, p);
			if (!git_oid_equal(p, target)) {
				git_commit *pc = NULL;
				int old = 0;

				/* prune by time before pushing: cheap, the object is cached */
				if (git_commit_lookup(&pc, repo, p) == 0)
					old = (int64_t)git_commit_time(pc) < floor;
				git_commit_free(pc);
				if (old)
					continue;
			}
			PROV_ALLOC_GROW(stack, nstack + 1, stack_alloc);
			git_oid_cpy(&stack[nstack++], p);
		}
		git_commit_free(c);
	}
	for (i = 0; i < nseen; i++)
		oidset_add(no, &seen_list[i]);
cleanup:
	free(stack);
	free(seen_list);
	oidset_release(&seen);
	return error;
}

void prov_repo_include_prereleases(struct prov_repo *r, int yes)
{
	r->include_prereleases = yes;
}

int prov_repo_first_tag(char **out, struct prov_repo *r, const char *commit_hex)
{
	git_commit *commit = NULL;
	struct oidset no = { 0 };
	git_oid target;
	int64_t t;
	size_t i;
	int error = 0;

	if ((error = parse_oid(&target, commit_hex)) < 0)
		return error;
	if (!r->tags_loaded) {
		struct tag_list tl = { r, 0 };

		if (git_tag_foreach(r->repo, tag_cb, &tl) < 0 && r->ntags < 1000000)
			return prov_error_from_git(PROV_ERROR, "cannot list tags");
		if (r->ntags)
			qsort(r->tags, r->ntags, sizeof(*r->tags), tag_cmp);
		r->tags_loaded = 1;
	}
	if (git_commit_lookup(&commit, r->repo, &target) < 0)
		return prov_error_set(PROV_ENOTFOUND, "unknown commit '%s' in '%s'", commit_hex, r->url);
	t = (int64_t)git_commit_time(commit);
	git_commit_free(commit);
	*out = NULL;
	for (i = 0; i < r->ntags; i++) {
		int yes = 0;

		if (r->tags[i].time < t - CLOCK_SKEW)
			continue;
		if (!r->include_prereleases && prov_tag_is_prerelease(r->tags[i].name))
			continue;
		if ((error = reaches(&yes, r->repo, &r->tags[i].commit, &target, t - CLOCK_SKEW,
				     &no)) < 0)
			break;
		if (yes) {
			*out = prov_xstrdup(r->tags[i].name);
			break;
		}
	}
	oidset_release(&no);
	return error;
}

void prov_source_lines_free(struct prov_source_line *lines, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
}

int prov_source_cut_lines(struct prov_source_line **out, size_t *nout, const char *data,
			  size_t size, const char *path, const char *commit_hex, int line, int context)
{
	struct prov_source_line *lines = NULL;
	size_t n = 0, alloc = 0;
	const char *p, *end;
	int64_t from, to, no = 1;

	if (line < 1)
		return prov_error_set(PROV_ENOTFOUND, "no line number for '%s'", path);
	if (context < 0)
		context = 0;
	if (context > PROV_SOURCES_MAX_CONTEXT)
		context = PROV_SOURCES_MAX_CONTEXT;
	if (size > PROV_SOURCES_MAX_BLOB)
		return prov_error_set(PROV_ELIMIT, "'%s' at %.12s is larger than %zu bytes", path,
				      commit_hex, PROV_SOURCES_MAX_BLOB);
	if (memchr(data, '\0', size))
		return prov_error_set(PROV_ELIMIT, "'%s' at %.12s is a binary file", path, commit_hex);
	from = (int64_t)line - context;
	to = (int64_t)line + context;
	if (from < 1)
		from = 1;
	p = data;
	end = data + size;
	while (p < end && no <= to) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (no >= from) {
			size_t keep = l;

			if (keep && p[keep - 1] == '\r')
				keep--;
			if (keep > PROV_SOURCES_MAX_LINE)
				keep = PROV_SOURCES_MAX_LINE;
			PROV_ALLOC_GROW(lines, n + 1, alloc);
			lines[n].number = (int)no;
			lines[n].text = prov_xstrndup(p, keep);
			n++;
		}
		no++;
		p = nl ? nl + 1 : end;
	}
	if (no <= line) {
		prov_source_lines_free(lines, n);
		return prov_error_set(PROV_ENOTFOUND, "'%s' at %.12s has no line %d", path,
				      commit_hex, line);
	}
	*out = lines;
	*nout = n;
	return 0;
}

int prov_repo_read_lines(struct prov_source_line **out, size_t *nout, struct prov_repo *r,
			 const char *commit_hex, const char *path, int line, int context)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	size_t size;
	git_oid oid;
	int error;

	if ((error = parse_oid(&oid, commit_hex)) < 0)
		return error;
	if (line < 1)
		return prov_error_set(PROV_ENOTFOUND, "no line number for '%s'", path);
	if (git_commit_lookup(&commit, r->repo, &oid) < 0) {
		error = prov_error_set(PROV_ENOTFOUND, "unknown commit '%s' in '%s'", commit_hex, r->url);
		goto cleanup;
	}
	if (git_commit_tree(&tree, commit) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read tree");
		goto cleanup;
	}
	if (git_tree_entry_bypath(&entry, tree, path) < 0 ||
	    git_tree_entry_type(entry) != GIT_OBJECT_BLOB) {
		error = prov_error_set(PROV_ENOTFOUND, "no file '%s' at commit %.12s of '%s'", path,
				       commit_hex, r->url);
		goto cleanup;
	}
	if (git_blob_lookup(&blob, r->repo, git_tree_entry_id(entry)) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read blob");
		goto cleanup;
	}
	size = (size_t)git_blob_rawsize(blob);
	error = prov_source_cut_lines(out, nout, git_blob_rawcontent(blob), size, path, commit_hex,
				      line, context);
cleanup:
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(commit);
	return error;
}

/* ---- backports: diffs, patch-ids, ranges ---- */

struct diff_text {
	struct prov_buf *out;
	int over;
};

static int diff_line_cb(const git_diff_delta *delta, const git_diff_hunk *hunk,
			const git_diff_line *line, void *payload)
{
	struct diff_text *dt = payload;

	(void)delta;
	(void)hunk;
	if (dt->out->len + line->content_len + 2 > PROV_SOURCES_MAX_DIFF) {
		dt->over = 1;
		return -1;
	}
	if (line->origin == GIT_DIFF_LINE_CONTEXT || line->origin == GIT_DIFF_LINE_ADDITION ||
	    line->origin == GIT_DIFF_LINE_DELETION)
		prov_buf_putc(dt->out, line->origin);
	prov_buf_add(dt->out, line->content, line->content_len);
	return 0;
}

int prov_repo_commit_diff(struct prov_buf *text, char patchid[41], struct prov_repo *r,
			  const char *commit_hex)
{
	git_commit *commit = NULL, *parent = NULL;
	git_tree *tree = NULL, *ptree = NULL;
	git_diff *diff = NULL;
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	git_oid oid, pid;
	struct diff_text dt = { text, 0 };
	int error;

	memset(patchid, '0', 40);
	patchid[40] = '\0';
	if ((error = parse_oid(&oid, commit_hex)) < 0)
		return error;
	if (git_commit_lookup(&commit, r->repo, &oid) < 0) {
		error = prov_error_set(PROV_ENOTFOUND, "unknown commit '%s' in '%s'", commit_hex, r->url);
		goto cleanup;
	}
	if (git_commit_parentcount(commit) > 1) {
		error = 0;
		goto cleanup;
	}
	if ((git_commit_parentcount(commit) == 1 &&
	     (git_commit_parent(&parent, commit, 0) < 0 || git_commit_tree(&ptree, parent) < 0)) ||
	    git_commit_tree(&tree, commit) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot read a commit's tree");
		goto cleanup;
	}
	dopts.context_lines = 3;
	if (git_diff_tree_to_tree(&diff, r->repo, ptree, tree, &dopts) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot diff a commit");
		goto cleanup;
	}
	if (git_diff_patchid(&pid, diff, NULL) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot compute a patch-id");
		goto cleanup;
	}
	git_oid_tostr(patchid, 41, &pid);
	if (git_diff_print(diff, GIT_DIFF_FORMAT_PATCH, diff_line_cb, &dt) < 0) {
		error = dt.over ? prov_error_set(PROV_ELIMIT, "the diff of %.12s is larger than %zu bytes",
						 commit_hex, PROV_SOURCES_MAX_DIFF)
				: prov_error_from_git(PROV_ERROR, "cannot print a diff");
		goto cleanup;
	}
	error = 0;
cleanup:
	git_diff_free(diff);
	git_tree_free(tree);
	git_tree_free(ptree);
	git_commit_free(parent);
	git_commit_free(commit);
	return error;
}

void prov_range_free(struct prov_range_commit *c, size_t n)
{
	size_t i;

	for (i = 0; c && i < n; i++)
		free(c[i].picked_from);
	free(c);
}

/* The ids named by "(cherry picked from commit X)" lines of a message. */
static char *picked_from(const char *msg)
{
	static const char key[] = "(cherry picked from commit ";
	struct prov_buf b = PROV_BUF_INIT;
	const char *p = msg;

	while (p && (p = strstr(p, key))) {
		const char *h = p + sizeof(key) - 1;
		size_t n = 0;

		while (n < 40 && isxdigit((unsigned char)h[n]))
			n++;
		if (n >= 4 && (h[n] == ')' || n == 40)) {
			if (b.len)
				prov_buf_putc(&b, ' ');
			prov_buf_add(&b, h, n);
		}
		p = h;
	}
	if (!b.len) {
		prov_buf_release(&b);
		return NULL;
	}
	return prov_buf_detach(&b);
}

int prov_repo_range(struct prov_range_commit **out, size_t *nout, struct prov_repo *r,
		    const char *tip_hex, const char *hide_hex, size_t max)
{
	git_revwalk *walk = NULL;
	struct prov_range_commit *list = NULL;
	size_t n = 0, alloc = 0;
	git_oid tip, hide, oid;
	int error;

	if ((error = parse_oid(&tip, tip_hex)) < 0 ||
	    (hide_hex && (error = parse_oid(&hide, hide_hex)) < 0))
		return error;
	if (git_revwalk_new(&walk, r->repo) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot walk history");
		goto cleanup;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL);
	if (git_revwalk_push(walk, &tip) < 0 || (hide_hex && git_revwalk_hide(walk, &hide) < 0)) {
		error = prov_error_from_git(PROV_ERROR, "cannot walk history");
		goto cleanup;
	}
	while (git_revwalk_next(&oid, walk) == 0) {
		git_commit *c = NULL;

		if (n >= max) {
			error = prov_error_set(PROV_ELIMIT, "more than %zu commits between %.12s and %.12s",
					       max, hide_hex ? hide_hex : "the root", tip_hex);
			goto cleanup;
		}
		if (git_commit_lookup(&c, r->repo, &oid) < 0) {
			error = prov_error_from_git(PROV_ERROR, "cannot read commit");
			goto cleanup;
		}
		PROV_ALLOC_GROW(list, n + 1, alloc);
		memset(&list[n], 0, sizeof(list[n]));
		git_oid_tostr(list[n].hex, sizeof(list[n].hex), &oid);
		list[n].picked_from = picked_from(git_commit_message(c));
		list[n].merge = git_commit_parentcount(c) > 1;
		n++;
		git_commit_free(c);
	}
	*out = list;
	*nout = n;
	list = NULL;
	n = 0;
	error = 0;
cleanup:
	prov_range_free(list, n);
	git_revwalk_free(walk);
	return error;
}

int prov_repo_merge_base(char **out, struct prov_repo *r, const char *a_hex, const char *b_hex)
{
	git_oid a, b, base;
	char hex[GIT_OID_HEXSZ + 1];
	int error, rc;

	*out = NULL;
	if ((error = parse_oid(&a, a_hex)) < 0 || (error = parse_oid(&b, b_hex)) < 0)
		return error;
	rc = git_merge_base(&base, r->repo, &a, &b);
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return prov_error_from_git(PROV_ERROR, "cannot compute a merge base");
	git_oid_tostr(hex, sizeof(hex), &base);
	*out = prov_xstrdup(hex);
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int prov_repo_read_blob(struct prov_buf *out, struct prov_repo *r, const char *commit_hex,
			const char *path, size_t max)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	git_oid oid;
	int error;

	if ((error = parse_oid(&oid, commit_hex)) < 0)
		return error;
	if (git_commit_lookup(&commit, r->repo, &oid) < 0 || git_commit_tree(&tree, commit) < 0) {
		error = prov_error_set(PROV_ENOTFOUND, "unknown commit '%s' in '%s'", commit_hex, r->url);
		goto cleanup;
	}
	if (git_tree_entry_bypath(&entry, tree, path) < 0 ||
	    git_tree_entry_type(entry) != GIT_OBJECT_BLOB ||
	    git_blob_lookup(&blob, r->repo, git_tree_entry_id(entry)) < 0) {
		error = prov_error_set(PROV_ENOTFOUND, "no file '%s' at commit %.12s", path, commit_hex);
		goto cleanup;
	}
	if ((size_t)git_blob_rawsize(blob) > max) {
		error = prov_error_set(PROV_ELIMIT, "'%s' at %.12s is larger than %zu bytes", path,
				       commit_hex, max);
		goto cleanup;
	}
	prov_buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	error = 0;
cleanup:
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(commit);
	return error;
}

int prov_url_scheme_ok(const char *url)
{
	static const char *const schemes[] = {
		"https://", "http://", "ssh://", "git://", "file://", NULL
	};
	const char *colon;
	size_t i;

	if (!url || !*url)
		return 0;
	for (i = 0; schemes[i]; i++)
		if (!strncasecmp(url, schemes[i], strlen(schemes[i])))
			return url[strlen(schemes[i])] != '\0';
	/* any other "scheme://" (ext::, fd::, ftp://) is refused */
	if (strstr(url, "://") || strstr(url, "::"))
		return 0;
	/* scp-like "host:path" is not one of the accepted forms */
	colon = strchr(url, ':');
	if (colon && !memchr(url, '/', (size_t)(colon - url)))
		return 0;
	return 1;	/* a local path */
}

/* ---- finding a file again (src/fix/: a fix's file in the deployed tree) ---- */

static int commit_tree_of(git_tree **tree, struct prov_repo *r, const char *commit_hex)
{
	git_commit *commit = NULL;
	git_oid oid;
	int error;

	*tree = NULL;
	if ((error = parse_oid(&oid, commit_hex)) < 0)
		return error;
	if (git_commit_lookup(&commit, r->repo, &oid) < 0 || git_commit_tree(tree, commit) < 0)
		error = prov_error_set(PROV_ENOTFOUND, "unknown commit '%s' in '%s'", commit_hex, r->url);
	git_commit_free(commit);
	return error;
}

int prov_repo_renamed_path(char **out, struct prov_repo *r, const char *from_hex, const char *to_hex,
			   const char *path)
{
	git_tree *from = NULL, *to = NULL;
	git_tree_entry *entry = NULL;
	git_diff *diff = NULL;
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options fopts = GIT_DIFF_FIND_OPTIONS_INIT;
	size_t i, n;
	int error;

	*out = NULL;
	if ((error = commit_tree_of(&from, r, from_hex)) < 0 || (error = commit_tree_of(&to, r, to_hex)) < 0)
		goto cleanup;
	if (git_tree_entry_bypath(&entry, to, path) == 0) {
		*out = prov_xstrdup(path);
		error = 0;
		goto cleanup;
	}
	dopts.context_lines = 0;
	if (git_diff_tree_to_tree(&diff, r->repo, from, to, &dopts) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot diff two trees");
		goto cleanup;
	}
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	fopts.rename_limit = PROV_SOURCES_RENAME_LIMIT;
	if (git_diff_find_similar(diff, &fopts) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot find renames");
		goto cleanup;
	}
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status == GIT_DELTA_RENAMED && d->old_file.path && d->new_file.path &&
		    !strcmp(d->old_file.path, path)) {
			*out = prov_xstrdup(d->new_file.path);
			break;
		}
	}
	error = 0;
cleanup:
	git_diff_free(diff);
	git_tree_entry_free(entry);
	git_tree_free(from);
	git_tree_free(to);
	return error;
}

struct base_walk {
	const char *base;
	char **v;
	size_t n, alloc, max;
	int suffix;	/* 1: names that end with base */
};

static int name_matches(const struct base_walk *w, const char *name)
{
	size_t n = strlen(name), b = strlen(w->base);

	return w->suffix ? n > b && !strcmp(name + n - b, w->base) : !strcmp(name, w->base);
}

static int base_walk_cb(const char *root, const git_tree_entry *entry, void *payload)
{
	struct base_walk *w = payload;

	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB || !name_matches(w, git_tree_entry_name(entry)))
		return 0;
	if (w->n >= w->max)
		return 1;	/* enough */
	PROV_ALLOC_GROW(w->v, w->n + 1, w->alloc);
	w->v[w->n++] = prov_xasprintf("%s%s", root, git_tree_entry_name(entry));
	return 0;
}

static int find_names(char ***out, size_t *nout, struct prov_repo *r, const char *commit_hex, const char *base,
		      size_t max, int suffix)
{
	git_tree *tree = NULL;
	struct base_walk w = { base, NULL, 0, 0, max, suffix };
	int error;

	*out = NULL;
	*nout = 0;
	if ((error = commit_tree_of(&tree, r, commit_hex)) < 0)
		return error;
	git_tree_walk(tree, GIT_TREEWALK_PRE, base_walk_cb, &w);
	git_tree_free(tree);
	*out = w.v;
	*nout = w.n;
	return 0;
}

int prov_repo_find_basename(char ***out, size_t *nout, struct prov_repo *r, const char *commit_hex,
			    const char *base, size_t max)
{
	return find_names(out, nout, r, commit_hex, base, max, 0);
}

int prov_repo_find_suffix(char ***out, size_t *nout, struct prov_repo *r, const char *commit_hex,
			  const char *suffix, size_t max)
{
	return find_names(out, nout, r, commit_hex, suffix, max, 1);
}

int prov_repo_list_dir(char ***out, size_t *nout, struct prov_repo *r, const char *commit_hex, const char *dir,
		      size_t max)
{
	git_tree *tree = NULL, *sub = NULL;
	git_tree_entry *te = NULL;
	char **v = NULL;
	size_t n = 0, alloc = 0, i, count;
	int error;

	*out = NULL;
	*nout = 0;
	if ((error = commit_tree_of(&tree, r, commit_hex)) < 0)
		return error;
	if (dir && *dir) {
		if (git_tree_entry_bypath(&te, tree, dir) < 0 || git_tree_entry_type(te) != GIT_OBJECT_TREE ||
		    git_tree_lookup(&sub, r->repo, git_tree_entry_id(te)) < 0) {
			git_error_clear();
			goto cleanup;	/* no such directory: no files */
		}
	}
	count = git_tree_entrycount(sub ? sub : tree);
	for (i = 0; i < count && n < max; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(sub ? sub : tree, i);

		if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
			continue;
		PROV_ALLOC_GROW(v, n + 1, alloc);
		v[n++] = dir && *dir ? prov_xasprintf("%s/%s", dir, git_tree_entry_name(e))
				     : prov_xstrdup(git_tree_entry_name(e));
	}
	*out = v;
	*nout = n;
cleanup:
	git_tree_entry_free(te);
	git_tree_free(sub);
	git_tree_free(tree);
	return 0;
}

int prov_repo_blame_lines(char (*out)[41], struct prov_repo *r, const char *commit_hex, const char *path,
			  size_t start, size_t n, const char *oldest_hex)
{
	git_blame_options o = GIT_BLAME_OPTIONS_INIT;
	git_blame *blame = NULL;
	size_t i;
	int error;

	for (i = 0; i < n; i++)
		out[i][0] = '\0';
	if (!n || !start)
		return 0;
	if ((error = parse_oid(&o.newest_commit, commit_hex)) < 0 ||
	    (oldest_hex && (error = parse_oid(&o.oldest_commit, oldest_hex)) < 0))
		return error;
	o.min_line = start;
	o.max_line = start + n - 1;
	if (git_blame_file(&blame, r->repo, path, &o) < 0)
		return prov_error_from_git(PROV_ENOTFOUND, "cannot blame '%s' at '%s'", path, commit_hex);
	for (i = 0; i < n; i++) {
		const git_blame_hunk *h = git_blame_get_hunk_byline(blame, start + i);

		if (h && !h->boundary)
			git_oid_tostr(out[i], 41, &h->final_commit_id);
	}
	git_blame_free(blame);
	return 0;
}

int prov_repo_branch_tips(char ***names, char ***tips, size_t *nout, struct prov_repo *r)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	char **v = NULL, **t = NULL, **pairs = NULL;
	size_t n = 0, alloc = 0, i;

	*names = *tips = NULL;
	*nout = 0;
	if (git_reference_iterator_glob_new(&it, r->repo, "refs/heads/*") < 0)
		return prov_error_from_git(PROV_ERROR, "cannot list branches");
	while (git_reference_next(&ref, it) == 0) {
		git_object *obj = NULL;
		char hex[GIT_OID_HEXSZ + 1];

		if (n < 10000 && git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) == 0) {
			git_oid_tostr(hex, sizeof(hex), git_object_id(obj));
			PROV_ALLOC_GROW(pairs, n + 1, alloc);
			/* "name\0hex": sorted by name */
			{
				size_t nl = strlen(git_reference_shorthand(ref));

				pairs[n] = prov_xmalloc(nl + 1 + sizeof(hex));
				memcpy(pairs[n], git_reference_shorthand(ref), nl + 1);
				memcpy(pairs[n] + nl + 1, hex, sizeof(hex));
			}
			n++;
		}
		git_object_free(obj);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	if (n)
		qsort(pairs, n, sizeof(*pairs), str_cmp);
	v = prov_xcalloc(n + 1, sizeof(*v));
	t = prov_xcalloc(n + 1, sizeof(*t));
	for (i = 0; i < n; i++) {
		v[i] = prov_xstrdup(pairs[i]);
		t[i] = prov_xstrdup(pairs[i] + strlen(pairs[i]) + 1);
		free(pairs[i]);
	}
	free(pairs);
	*names = v;
	*tips = t;
	*nout = n;
	return 0;
}
