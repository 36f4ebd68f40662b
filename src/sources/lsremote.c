/*
 * A remote's tags and branches without a mirror (sources.h:
 * prov_sources_ls_remote): one bounded ref advertisement, no pack, and the
 * answers kept beside the mirror's place in the cache (<mirror>.refs).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "buf.h"
#include "cachedir.h"
#include "error.h"
#include "gitstream.h"
#include "sources.h"
#include "sources-git.h"
#include "util.h"
#include "banned.h"

#define REFS_MAX_FILE (256 * 1024)	/* <mirror>.refs is read at most this far */
#define REFS_MAX_LINES 256	/* answers kept per repository */
#define REFS_MAX_ANSWER (64 * 1024)	/* the child's answer: one short line per want */
#define REFS_MAX_WANT 1024

static const char *const kind_names[] = {
	[PROV_REF_UNASKED] = "unasked",
	[PROV_REF_UNKNOWN] = "unknown",
	[PROV_REF_NONE] = "none",
	[PROV_REF_TAG] = "tag",
	[PROV_REF_BRANCH] = "branch",
	[PROV_REF_HEAD] = "head",
};

static int kind_from_name(const char *s, size_t n)
{
	size_t k;

	for (k = PROV_REF_NONE; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
		if (strlen(kind_names[k]) == n && !strncmp(kind_names[k], s, n))
			return (int)k;
	return -1;
}

static int full_hex(const char *s, size_t n)
{
	size_t i;

	if (n != 40)
		return 0;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/*
 * A want that names a ref the advertisement lists (a tag, a branch, HEAD):
 * a valid ref name by git check-ref-format's rules, not an expression
 * (v1~2, HEAD^, @{u}), which only the mirror's revparse knows. Without
 * libgit2: a run that finds its answers in the cache does not start it.
 */
static int ref_like(const char *w)
{
	size_t n = strlen(w), i;
	const char *c;

	if (!n || n > REFS_MAX_WANT || !strcmp(w, "@") || w[0] == '/' || w[n - 1] == '/' ||
	    w[n - 1] == '.' || strstr(w, "..") || strstr(w, "@{") || strstr(w, "//"))
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)w[i] <= ' ' || w[i] == 0x7f || strchr("~^:?*[\\", w[i]))
			return 0;
	/* no component that starts with '.' or ends with ".lock" */
	for (c = w; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL) {
		size_t len = strcspn(c, "/");

		if (c[0] == '.' || (len >= 5 && !strncmp(c + len - 5, ".lock", 5)))
			return 0;
	}
	return 1;
}

/* A want the advertisement answers "none" when it lacks it: not one that could be a commit id. */
static int plain_name(const char *w)
{
	size_t i, n = strlen(w);

	if (!ref_like(w))
		return 0;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)w[i]))
			return 1;
	return n < 4;
}

/* ---- the child: connect, list, answer one line per want ---- */

struct ls_job {
	const char *fetch_url, *display_url;
	const char *const *wants;
	size_t nwants;
};

/* "KIND HEX\n" (or "KIND -\n") for one want, in prov_repo_resolve's order: tag, branch, HEAD. */
static void answer_one(struct prov_buf *out, const git_remote_head **heads, size_t n, const char *w)
{
	const git_remote_head *tag = NULL, *peeled = NULL, *branch = NULL, *head = NULL, *h;
	size_t wl = strlen(w), i;
	char hex[GIT_OID_HEXSZ + 1];
	int kind;

	for (i = 0; i < n; i++) {
		const char *name = heads[i]->name;

		if (!name)
			continue;
		if (!strncmp(name, "refs/tags/", 10) && !strncmp(name + 10, w, wl)) {
			if (!name[10 + wl])
				tag = heads[i];
			else if (!strcmp(name + 10 + wl, "^{}"))
				peeled = heads[i];	/* an annotated tag: what it tags */
		} else if (!strncmp(name, "refs/heads/", 11) && !strcmp(name + 11, w)) {
			branch = heads[i];
		} else if (!strcmp(name, "HEAD")) {
			head = heads[i];
		}
	}
	if (tag) {
		kind = PROV_REF_TAG;
		h = peeled ? peeled : tag;
	} else if (branch) {
		kind = PROV_REF_BRANCH;
		h = branch;
	} else if (head && !strcmp(w, "HEAD")) {
		kind = PROV_REF_HEAD;
		h = head;
	} else {
		prov_buf_printf(out, "%s -\n", kind_names[plain_name(w) ? PROV_REF_NONE : PROV_REF_UNKNOWN]);
		return;
	}
	git_oid_tostr(hex, sizeof(hex), &h->oid);
	prov_buf_printf(out, "%s %s\n", kind_names[kind], hex);
}

static int ls_work(int fd, uint64_t max_pack, void *arg)
{
	const struct ls_job *j = arg;
	git_remote_callbacks cb = GIT_REMOTE_CALLBACKS_INIT;
	git_remote *remote = NULL;
	const git_remote_head **heads = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	size_t n = 0, i;
	int error;

	(void)max_pack;
	if (git_remote_create_detached(&remote, j->fetch_url) < 0) {
		error = prov_error_from_git(PROV_ERROR, "cannot list the refs of '%s'", j->display_url);
		goto cleanup;
	}
	/* the advertisement only: the connection reads through the bounded
	 * stream, so fetch.maxRefsSize and fetch.timeout hold */
	if ((error = git_remote_connect(remote, GIT_DIRECTION_FETCH, &cb, NULL, NULL)) < 0 ||
	    (error = git_remote_ls(&heads, &n, remote)) < 0) {
		if (error == GIT_ECERTIFICATE)
			error = prov_error_set(PROV_ERROR, "cannot list the refs of '%s': the server's "
					       "certificate is not trusted (%s); fetch.sslCAInfo names a CA "
					       "file to trust", j->display_url,
					       git_error_last() && git_error_last()->message ?
					       git_error_last()->message : "no detail");
		else if (prov_gitstream_why())
			error = prov_error_set(PROV_ELIMIT, "ls-remote of %s: %s", j->display_url,
					       prov_gitstream_why());
		else
			error = prov_error_from_git(PROV_ERROR, "cannot list the refs of '%s'",
						    j->display_url);
		goto cleanup;
	}
	for (i = 0; i < j->nwants; i++)
		answer_one(&out, heads, n, j->wants[i]);
	/* done with the remote before answering: the answer is the last thing sent */
	git_remote_disconnect(remote);
	prov_bounded_answer(fd, out.buf, out.len);
	error = 0;
cleanup:
	git_remote_free(remote);
	prov_buf_release(&out);
	return error;
}

/* ---- the cache: <mirror>.refs, "WANT<TAB>KIND<TAB>HEX|-<TAB>EPOCH" per line ---- */

struct cached {
	const char *want;	/* into the file's text */
	size_t wlen;
	int kind;
	char commit[41];
	time_t t;
};

/* The well-formed lines of the file (damaged ones are skipped). */
static size_t cache_parse(struct cached *out, size_t max, const struct prov_buf *b)
{
	const char *p = b->buf, *end = b->buf + b->len;
	size_t n = 0;

	while (p < end && n < max) {
		const char *le = memchr(p, '\n', (size_t)(end - p)), *f[4];
		struct cached c = { 0 };
		size_t k;
		char num[24], *e;
		long long t;

		if (!le)
			break;	/* a cut last line */
		f[0] = p;
		for (k = 1; k < 4; k++) {
			f[k] = memchr(f[k - 1], '\t', (size_t)(le - f[k - 1]));
			if (!f[k])
				break;
			f[k]++;
		}
		if (k == 4 && f[1] - f[0] > 1 && le - f[3] > 0 && (size_t)(le - f[3]) < sizeof(num)) {
			c.want = f[0];
			c.wlen = (size_t)(f[1] - f[0] - 1);
			c.kind = kind_from_name(f[1], (size_t)(f[2] - f[1] - 1));
			memcpy(num, f[3], (size_t)(le - f[3]));
			num[le - f[3]] = '\0';
			t = strtoll(num, &e, 10);
			c.t = (time_t)t;
			if (c.kind == PROV_REF_NONE && f[3] - f[2] == 2 && f[2][0] == '-')
				c.commit[0] = '\0';
			else if (c.kind > PROV_REF_NONE && full_hex(f[2], (size_t)(f[3] - f[2] - 1)))
				memcpy(c.commit, f[2], 40);
			else
				c.kind = -1;
			if (c.kind >= 0 && !*e && t > 0)
				out[n++] = c;
		}
		p = le + 1;
	}
	return n;
}

static const struct cached *cache_find(const struct cached *c, size_t n, const char *want)
{
	size_t wl = strlen(want), i;

	for (i = n; i-- > 0;)
		if (c[i].wlen == wl && !memcmp(c[i].want, want, wl))
			return &c[i];
	return NULL;
}

static uint64_t ttl(int kind)
{
	return kind == PROV_REF_TAG ? PROV_SOURCES_REFS_TAG_TTL : PROV_SOURCES_REFS_MOVING_TTL;
}

/* Fresh enough: within its kind's time to live (offline: any age, as a mirror is used as it is). */
static int cache_fresh(const struct cached *c, time_t now, int offline)
{
	return c->t <= now && (offline || (uint64_t)(now - c->t) < ttl(c->kind));
}

/* The answers just got first, then the older ones still worth keeping; written aside, renamed over. */
static void cache_write(const char *path, const struct cached *old, size_t nold,
			const struct prov_remote_ref *refs, const char *const *wants, size_t nwants)
{
	struct prov_buf b = PROV_BUF_INIT;
	time_t now = time(NULL);
	char *tmp;
	size_t i, lines = 0;
	int fd, ok;

	for (i = 0; i < nwants && lines < REFS_MAX_LINES; i++) {
		if (refs[i].kind < PROV_REF_NONE || !ref_like(wants[i]))
			continue;
		prov_buf_printf(&b, "%s\t%s\t%s\t%lld\n", wants[i], kind_names[refs[i].kind],
				refs[i].kind == PROV_REF_NONE ? "-" : refs[i].commit, (long long)now);
		lines++;
	}
	for (i = 0; i < nold && lines < REFS_MAX_LINES; i++) {
		size_t k;
		int asked = 0;

		for (k = 0; k < nwants; k++)
			if (strlen(wants[k]) == old[i].wlen && !memcmp(wants[k], old[i].want, old[i].wlen))
				asked = 1;
		if (asked || old[i].t > now || (uint64_t)(now - old[i].t) >= PROV_SOURCES_REFS_TAG_TTL)
			continue;
		prov_buf_printf(&b, "%.*s\t%s\t%s\t%lld\n", (int)old[i].wlen, old[i].want,
				kind_names[old[i].kind], old[i].kind == PROV_REF_NONE ? "-" : old[i].commit,
				(long long)old[i].t);
		lines++;
	}
	tmp = prov_xasprintf("%s.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	ok = fd >= 0 && !b.over;
	if (ok && b.len && write(fd, b.buf, b.len) != (ssize_t)b.len)
		ok = 0;
	if (fd >= 0 && close(fd) < 0)
		ok = 0;
	if (!ok || rename(tmp, path) < 0)
		unlink(tmp);	/* best effort: no cache is the same as an empty one */
	free(tmp);
	prov_buf_release(&b);
}

/* The child's lines into refs[]: PROV_ERROR when they are not one well-formed line per want. */
static int parse_answer(struct prov_remote_ref *refs, const struct prov_buf *a, size_t nwants,
			const char *url)
{
	const char *p = a->buf, *end = a->buf + a->len;
	size_t i;

	for (i = 0; i < nwants; i++) {
		const char *le = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
		const char *sp = le ? memchr(p, ' ', (size_t)(le - p)) : NULL;
		int kind = sp ? kind_from_name(p, (size_t)(sp - p)) : -1;

		if (kind < 0 && sp && (size_t)(sp - p) == strlen("unknown") && !strncmp(p, "unknown", 7))
			kind = PROV_REF_UNKNOWN;
		if (kind < 0)
			return prov_error_set(PROV_ERROR, "ls-remote of %s: an unreadable answer", url);
		memset(&refs[i], 0, sizeof(refs[i]));
		refs[i].kind = kind;
		if (kind > PROV_REF_NONE) {
			if (!full_hex(sp + 1, (size_t)(le - sp - 1)))
				return prov_error_set(PROV_ERROR, "ls-remote of %s: an unreadable answer", url);
			memcpy(refs[i].commit, sp + 1, 40);
		}
		p = le + 1;
	}
	return 0;
}

/* From the cache, in order, until a want is found: 1 when that settles it (nothing to ask). */
static int from_cache(struct prov_remote_ref *refs, const struct cached *c, size_t nc,
		      const char *const *wants, size_t nwants, int offline)
{
	time_t now = time(NULL);
	size_t i;

	for (i = 0; i < nwants; i++) {
		const struct cached *e = ref_like(wants[i]) ? cache_find(c, nc, wants[i]) : NULL;

		if (!ref_like(wants[i])) {
			refs[i].kind = PROV_REF_UNKNOWN;	/* the mirror's to answer */
			return 1;
		}
		if (!e || !cache_fresh(e, now, offline))
			return 0;
		refs[i].kind = e->kind;
		refs[i].cached = 1;
		memcpy(refs[i].commit, e->commit, sizeof(refs[i].commit));
		if (e->kind != PROV_REF_NONE)
			return 1;
	}
	return 1;
}

int prov_sources_have_mirror(const char *url, const struct prov_sources_opts *opts)
{
	struct stat st;
	char *mirror;
	int have;

	if (!url || !opts || !opts->ctx || !opts->ctx->cache_dir || !strstr(url, "://"))
		return 0;
	mirror = prov_sources_mirror_path(opts->ctx->cache_dir, url);
	have = stat(mirror, &st) == 0;
	free(mirror);
	return have;
}

int prov_sources_ls_remote(struct prov_remote_ref *refs, const char *url, const char *const *wants,
			   size_t nwants, const struct prov_sources_opts *opts)
{
	const struct prov_ctx *ctx = opts ? opts->ctx : NULL;
	struct prov_buf file = PROV_BUF_INIT, answer = PROV_BUF_INIT;
	struct prov_bounded_job job = { 0 };
	struct cached *old = NULL;
	struct ls_job lj = { NULL, url, wants, nwants };
	char *fetch_url = NULL, *path = NULL, *dir = NULL, *mirror, *banner = NULL, *shown = NULL;
	size_t nold = 0;
	int error;

	memset(refs, 0, nwants * sizeof(*refs));
	if (!url || !strstr(url, "://") || !prov_url_scheme_ok(url) || !ctx || !ctx->cache_dir)
		return prov_error_set(PROV_EINPUT, "'%s' has no ref advertisement to ask", url ? url : "");
	fetch_url = ctx->config ? prov_config_rewrite_url(ctx->config, url) : prov_xstrdup(url);
	if (!strstr(fetch_url, "://") || !prov_url_scheme_ok(fetch_url)) {
		char *a = prov_url_display(fetch_url), *b = prov_url_display(url);

		error = prov_error_set(PROV_EINPUT, "'%s' (from '%s' by url.insteadOf) has no ref advertisement to ask",
				       a, b);
		free(a);
		free(b);
		goto cleanup;
	}
	mirror = prov_sources_mirror_path(ctx->cache_dir, url);
	path = prov_xasprintf("%s.refs", mirror);
	free(mirror);
	if (access(path, F_OK) == 0 && prov_read_file(&file, path, REFS_MAX_FILE) < 0) {
		prov_error_clear();
		prov_buf_reset(&file);
	}
	old = prov_xcalloc(REFS_MAX_LINES * 2, sizeof(*old));
	nold = cache_parse(old, REFS_MAX_LINES * 2, &file);
	if (from_cache(refs, old, nold, wants, nwants, ctx->offline)) {
		error = 0;
		goto cleanup;
	}
	memset(refs, 0, nwants * sizeof(*refs));
	/* --offline forbids the network, not the disk (a file:// upstream) */
	if (ctx->offline && strncasecmp(fetch_url, "file://", 7)) {
		error = prov_error_set(PROV_ENOTFOUND, "no mirror of '%s' in the cache (offline)", url);
		goto cleanup;
	}
	prov_git_init_once();
	dir = prov_cachedir_path(ctx->cache_dir, PROV_CACHEDIR_MIRRORS);
	if ((error = prov_mkdir_p(dir, 0755, 0)) < 0)
		goto cleanup;
	lj.fetch_url = fetch_url;
	prov_buf_init(&answer, REFS_MAX_ANSWER);
	shown = prov_url_display(url);
	banner = prov_xasprintf("listing the refs of %s (ls-remote, no mirror)", shown);
	job.verb = "ls-remote";
	job.banner = banner;
	job.fetch_url = fetch_url;
	job.display_url = shown;
	job.work = ls_work;
	job.arg = &lj;
	job.answer = &answer;
	if ((error = prov_bounded_run(&job, ctx)) < 0 ||
	    (error = parse_answer(refs, &answer, nwants, url)) < 0)
		goto cleanup;
	cache_write(path, old, nold, refs, wants, nwants);
	error = 0;
cleanup:
	free(old);
	free(fetch_url);
	free(path);
	free(dir);
	free(banner);
	free(shown);
	prov_buf_release(&file);
	prov_buf_release(&answer);
	return error;
}
