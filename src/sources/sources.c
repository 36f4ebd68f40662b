/* Mirrors: one bare git mirror per upstream URL in the cache, fetched into and opened. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "cachedir.h"
#include "error.h"
#include "gitstream.h"
#include "sources.h"
#include "sources-git.h"
#include "sources-int.h"
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
	char *shown = prov_url_display(display_url);
	struct fetch_job f = { repo_path, fetch_url, shown, wants, nwants, all_heads };
	struct prov_bounded_job job = { 0 };
	char *banner = prov_xasprintf("fetching %s (mirror)", shown);
	int error;

	job.verb = "fetch";
	job.banner = banner;
	job.fetch_url = fetch_url;
	job.display_url = shown;
	job.repo_path = repo_path;
	job.work = fetch_work;
	job.arg = &f;
	error = prov_bounded_run(&job, ctx);
	free(banner);
	free(shown);
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
		char *a = prov_url_display(fetch_url), *b = prov_url_display(url);

		error = prov_error_set(PROV_EINPUT, "'%s' (from '%s' by url.insteadOf) is not an https, http, ssh, git or file URL or a local path",
				       a, b);
		free(a);
		free(b);
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
		char *a = prov_url_display(fetch_url);

		error = prov_error_set(PROV_EINPUT, "'%s' is not a git repository", a);
		free(a);
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
	if ((error = prov_remove_tree_at(AT_FDCWD, tmp)) < 0)
		goto cleanup;
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
		prov_remove_tree_at(AT_FDCWD, tmp);
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
