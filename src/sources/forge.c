/* One file of one commit from a forge's single-file endpoint (forge.h). */
#include <ctype.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "fetch.h"
#include "forge.h"
#include "sources.h"
#include "util.h"
#include "banned.h"

#define FORGE_MAX_URL 8192

/* The URL forms (docs/sources.md lists them). */
static const struct {
	const char *kind;
	const char *tmpl;
} forms[] = {
	{ "github", "https://raw.githubusercontent.com/{owner}/{repo}/{commit}/{path}" },
	{ "gitlab", "{base}/-/raw/{commit}/{path}" },
	{ "cgit", "{url}/plain/{path}?id={commit}" },
	{ "gitea", "{base}/raw/commit/{commit}/{path}" },
};

/* Hosts whose forge is known without configuration. */
static const struct {
	const char *host;
	const char *kind;
} hosts[] = {
	{ "github.com", "github" },
	{ "gitlab.com", "gitlab" },
	{ "gitlab.gnome.org", "gitlab" },
	{ "gitlab.freedesktop.org", "gitlab" },
	{ "salsa.debian.org", "gitlab" },
	{ "codeberg.org", "gitea" },
	{ "gitea.com", "gitea" },
	{ "git.kernel.org", "cgit" },
};

struct repo_parts {
	char *host;	/* host[:port], lower-case */
	char *url;	/* https URL without a trailing '/' */
	char *path;	/* path without leading '/' or trailing ".git" */
};

static void parts_release(struct repo_parts *p)
{
	free(p->host);
	free(p->url);
	free(p->path);
}

static int safe_text(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f || strchr("\"<>\\^`{|}?#", s[i]))
			return 0;
	return 1;
}

/* https://host/path, http://..., ssh://[user@]host/path, user@host:path. 0 or -1. */
static int split_repo(struct repo_parts *p, const char *u)
{
	const char *host, *rest, *slash;
	const char *scheme = "https";
	size_t hl, pl, i;

	memset(p, 0, sizeof(*p));
	if (!strncasecmp(u, "https://", 8)) {
		host = u + 8;
	} else if (!strncasecmp(u, "http://", 7)) {
		host = u + 7;
		scheme = "http";
	} else if (!strncasecmp(u, "ssh://", 6)) {
		host = u + 6;
	} else if (!strstr(u, "://") && strchr(u, '@') && strchr(u, ':') &&
		   strchr(u, '@') < strchr(u, ':')) {
		host = strchr(u, '@') + 1;
		slash = strchr(host, ':');
		hl = (size_t)(slash - host);
		rest = slash + 1;
		goto have_host;
	} else {
		return -1;
	}
	slash = strchr(host, '/');
	if (!slash)
		return -1;
	{
		const char *at = memchr(host, '@', (size_t)(slash - host));

		if (at)
			host = at + 1;
	}
	hl = (size_t)(slash - host);
	rest = slash + 1;
	/* ssh's port is not the web's */
	if (!strncasecmp(u, "ssh://", 6) && memchr(host, ':', hl))
		hl = (size_t)((const char *)memchr(host, ':', hl) - host);
have_host:
	while (*rest == '/')
		rest++;
	pl = strlen(rest);
	while (pl && rest[pl - 1] == '/')
		pl--;
	if (pl >= 4 && !strncmp(rest + pl - 4, ".git", 4))
		pl -= 4;
	if (!hl || !pl || !safe_text(host, hl) || !safe_text(rest, pl) || strstr(rest, ".."))
		return -1;
	p->host = prov_xstrndup(host, hl);
	for (i = 0; p->host[i]; i++)
		p->host[i] = (char)tolower((unsigned char)p->host[i]);
	p->path = prov_xstrndup(rest, pl);
	if (!strncasecmp(u, "http", 4)) {
		size_t ul = strlen(u);

		while (ul && u[ul - 1] == '/')
			ul--;
		p->url = prov_xstrndup(u, ul);
	} else {
		p->url = prov_xasprintf("%s://%s/%s.git", scheme, p->host, p->path);
	}
	return 0;
}

/* '/' kept, unreserved kept, the rest %XX. */
static void put_escaped(struct prov_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (isalnum(ch) || strchr("-._~/+", ch))
			prov_buf_putc(b, (char)ch);
		else
			prov_buf_printf(b, "%%%02X", ch);
	}
}

/*
 * The host's kind: forge.<host>.type, else the built-in list, but not when
 * url.<base>.insteadOf sends the repository elsewhere (an air-gapped or
 * local mirror: the user said where the repository is; only a forge named
 * for the host in the configuration still applies then).
 */
static const char *host_kind(int *configured, const struct prov_config *cfg, const char *host,
			     const char *repo_url)
{
	char *key = prov_xasprintf("forge.%s.type", host);
	const char *v = cfg ? prov_config_get(cfg, key) : NULL;
	char *rewritten;
	size_t i;
	int moved;

	free(key);
	*configured = v != NULL;
	if (!v) {
		key = prov_xasprintf("forge.%s.url", host);
		*configured = cfg && prov_config_get(cfg, key) != NULL;
		free(key);
	}
	if (v)
		return v;
	rewritten = cfg ? prov_config_rewrite_url(cfg, repo_url) : NULL;
	moved = rewritten && strcmp(rewritten, repo_url) != 0;
	free(rewritten);
	if (moved)
		return NULL;
	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
		if (!strcmp(hosts[i].host, host))
			return hosts[i].kind;
	return NULL;
}

static void expand(struct prov_buf *b, const char *tmpl, const struct repo_parts *p,
		   const char *commit_hex, const char *path)
{
	const char *s = tmpl, *slash = strchr(p->path, '/');
	size_t ul = strlen(p->url);

	while (*s) {
		if (!strncmp(s, "{url}", 5)) {
			prov_buf_puts(b, p->url);
			s += 5;
		} else if (!strncmp(s, "{base}", 6)) {
			prov_buf_printf(b, "%.*s", (int)(ul >= 4 && !strcmp(p->url + ul - 4, ".git") ?
							 ul - 4 : ul), p->url);
			s += 6;
		} else if (!strncmp(s, "{host}", 6)) {
			prov_buf_puts(b, p->host);
			s += 6;
		} else if (!strncmp(s, "{owner}", 7)) {
			prov_buf_printf(b, "%.*s", (int)(slash ? (size_t)(slash - p->path) :
							 strlen(p->path)), p->path);
			s += 7;
		} else if (!strncmp(s, "{repo}", 6)) {
			prov_buf_puts(b, slash ? slash + 1 : p->path);
			s += 6;
		} else if (!strncmp(s, "{commit}", 8)) {
			prov_buf_puts(b, commit_hex);
			s += 8;
		} else if (!strncmp(s, "{path}", 6)) {
			put_escaped(b, path);
			s += 6;
		} else {
			prov_buf_putc(b, *s++);
		}
	}
}

char *prov_forge_file_url(const char **kind, const struct prov_config *cfg, const char *repo_url,
			  const char *commit_hex, const char *path)
{
	struct repo_parts p;
	struct prov_buf b = PROV_BUF_INIT;
	const char *k, *tmpl = NULL;
	char *key, *out = NULL;
	size_t i;
	int configured = 0;

	*kind = NULL;
	if (!repo_url || !path || !*path || path[0] == '/' || strstr(path, "..") ||
	    split_repo(&p, repo_url) < 0)
		return NULL;
	k = host_kind(&configured, cfg, p.host, repo_url);
	key = prov_xasprintf("forge.%s.url", p.host);
	if (cfg)
		tmpl = prov_config_get(cfg, key);
	free(key);
	for (i = 0; !tmpl && k && i < sizeof(forms) / sizeof(forms[0]); i++)
		if (!strcmp(forms[i].kind, k))
			tmpl = forms[i].tmpl;
	/* GitHub's raw host serves owner/repo only */
	if (tmpl && k && !strcmp(k, "github") && strchr(p.path, '/') != strrchr(p.path, '/'))
		tmpl = NULL;
	if (tmpl && (!k || strcmp(k, "none")) && (k || configured)) {
		expand(&b, tmpl, &p, commit_hex, path);
		if (b.len < FORGE_MAX_URL && prov_fetch_url_ok(b.buf)) {
			out = prov_buf_detach(&b);
			*kind = k ? k : "custom";
		}
	}
	prov_buf_release(&b);
	parts_release(&p);
	return out;
}

/* An HTML document where a source file (not itself HTML) was asked for. */
static int looks_like_web_page(const struct prov_buf *text, const char *path)
{
	const char *p = text->buf, *end = text->buf + text->len;
	size_t pl = strlen(path);

	if (!p || (pl >= 5 && (!strcasecmp(path + pl - 5, ".html") || !strcasecmp(path + pl - 4, ".htm"))))
		return 0;
	while (p < end && isspace((unsigned char)*p))
		p++;
	return (end - p >= 9 && !strncasecmp(p, "<!doctype", 9)) ||
	       (end - p >= 5 && !strncasecmp(p, "<html", 5));
}

int prov_forge_read_lines(struct prov_source_line **out, size_t *nout, const char **kind,
			  const char *repo_url, const char *commit_hex, const char *path, int line,
			  int context, const struct prov_ctx *ctx)
{
	struct prov_fetch_opts fo = { ctx, PROV_SOURCES_MAX_BLOB };
	struct prov_buf text = PROV_BUF_INIT;
	char *url, *file = NULL;
	int error;

	url = prov_forge_file_url(kind, ctx ? ctx->config : NULL, repo_url, commit_hex, path);
	if (!url)
		return prov_error_set(PROV_ENOTFOUND, "no single-file form known for '%s'", repo_url);
	if ((error = prov_fetch_file(&file, url, &fo)) < 0)
		goto cleanup;
	if ((error = prov_read_file(&text, file, PROV_SOURCES_MAX_BLOB)) < 0)
		goto cleanup;
	if (looks_like_web_page(&text, path)) {
		/* a private repository's raw URL answers with the sign-in page */
		if (ctx && ctx->cache_dir)
			prov_fetch_forget(ctx->cache_dir, url);
		error = prov_error_set(PROV_ENOTFOUND, "'%s' answered with a web page, not the file "
				       "(a private repository?)", url);
		goto cleanup;
	}
	error = prov_source_cut_lines(out, nout, text.buf ? text.buf : "", text.len, path,
				      commit_hex, line, context);
cleanup:
	free(url);
	free(file);
	prov_buf_release(&text);
	return error;
}
