/* Tags for a version in a repository that no mapping describes (a derived upstream). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "derive.h"
#include "error.h"
#include "mapping.h"
#include "util.h"
#include "banned.h"

#define MAX_CANDIDATES 64

struct cands {
	char **v;
	size_t n;
};

static void add(struct cands *c, char *s)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i], s)) {
			free(s);
			return;
		}
	if (c->n >= MAX_CANDIDATES || !*s) {
		free(s);
		return;
	}
	c->v[c->n++] = s;
}

static char *replace_dots(const char *v, char with)
{
	char *s = prov_xstrdup(v), *p;

	for (p = s; *p; p++)
		if (*p == '.')
			*p = with;
	return s;
}

static char *upper(const char *v)
{
	char *s = prov_xstrdup(v), *p;

	for (p = s; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return s;
}

/* A name usable inside a tag: letters, digits, '.', '_', '+', '-' only. */
static char *tag_name(const char *s, size_t n)
{
	size_t i;

	if (!n || n > 100 || s[0] == '.' || s[0] == '-')
		return NULL;
	for (i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || strchr("._+-", s[i])))
			return NULL;
	return prov_xstrndup(s, n);
}

/* The repository's name: the last path component of url without ".git". */
static char *repo_name(const char *url)
{
	const char *end, *slash;

	if (!url)
		return NULL;
	end = url + strlen(url);
	while (end > url && end[-1] == '/')
		end--;
	if (end - url > 4 && !strncmp(end - 4, ".git", 4))
		end -= 4;
	for (slash = end; slash > url && slash[-1] != '/'; slash--)
		;
	return tag_name(slash, (size_t)(end - slash));
}

static void add_for_name(struct cands *c, const char *name, const char *v, const char *u,
			 const char *d)
{
	char *U = upper(name);

	add(c, prov_xasprintf("%s-%s", name, v));
	add(c, prov_xasprintf("%s_%s", name, v));
	add(c, prov_xasprintf("%s-v%s", name, v));
	add(c, prov_xasprintf("%s-%s", name, u));
	add(c, prov_xasprintf("%s_%s", name, u));
	add(c, prov_xasprintf("%s_%s", U, u));
	add(c, prov_xasprintf("%s-%s", U, u));
	add(c, prov_xasprintf("%s-%s", name, d));
	add(c, prov_xasprintf("releases/%s-%s", name, v));
	add(c, prov_xasprintf("%s/%s", name, v));
	free(U);
}

int prov_tag_candidates(char ***out, size_t *nout, const char *name, const char *url,
			const char *version)
{
	struct prov_version_parts vp;
	struct cands c = { NULL, 0 };
	char *v = NULL, *u = NULL, *d = NULL, *n1 = NULL, *n2 = NULL, *p;
	int err = 0;

	*out = NULL;
	*nout = 0;
	prov_version_split(&vp, version);
	/* a local or prerelease part (1.13.0a0+git..., 2.3.0+cu121) is not in tags */
	v = tag_name(vp.upstream, strcspn(vp.upstream, "+~"));
	if (!v || !isdigit((unsigned char)v[0])) {
		err = prov_error_set(PROV_ENOTFOUND, "no release version in '%s'", version ? version : "");
		goto cleanup;
	}
	c.v = prov_xcalloc(MAX_CANDIDATES, sizeof(*c.v));
	u = replace_dots(v, '_');
	d = replace_dots(v, '-');
	add(&c, prov_xasprintf("v%s", v));
	add(&c, prov_xstrdup(v));
	if (name)
		n1 = tag_name(name, strlen(name));
	n2 = repo_name(url);
	for (p = n1; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (n1)
		add_for_name(&c, n1, v, u, d);
	if (n2 && (!n1 || strcmp(n1, n2)))
		add_for_name(&c, n2, v, u, d);
	add(&c, prov_xasprintf("release-%s", v));
	add(&c, prov_xasprintf("release-%s", d));
	add(&c, prov_xasprintf("rel-%s", v));
	add(&c, prov_xasprintf("R_%s", u));
	add(&c, prov_xasprintf("v%s", u));
	add(&c, prov_xasprintf("VER-%s", d));
	add(&c, prov_xasprintf("version-%s", v));
	add(&c, prov_xasprintf("release/%s", v));
	*out = c.v;
	*nout = c.n;
	c.v = NULL;
cleanup:
	prov_tag_candidates_free(c.v, c.n);
	prov_version_parts_release(&vp);
	free(v);
	free(u);
	free(d);
	free(n1);
	free(n2);
	return err;
}

void prov_tag_candidates_free(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int prov_tag_match(char **tag, char **commit, struct prov_repo *repo, char *const *cands,
		   size_t ncands)
{
	size_t i;

	*tag = NULL;
	*commit = NULL;
	for (i = 0; i < ncands; i++) {
		char *ref = prov_xasprintf("refs/tags/%s", cands[i]);
		char *hex = NULL;
		int rc = prov_repo_resolve(&hex, repo, ref);

		free(ref);
		if (rc == 0) {
			*tag = prov_xstrdup(cands[i]);
			*commit = hex;
			prov_error_clear();
			return 0;
		}
		free(hex);
	}
	return prov_error_set(PROV_ENOTFOUND, "no tag among %zu spellings of the version", ncands);
}

int prov_system_url_is_local(const char *url)
{
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/');

	if (!strncasecmp(url, "file:", 5) || *url == '/' || *url == '.' || *url == '~')
		return 1;
	/* a bare path: no scheme and no scp-like "host:path" before the first slash */
	return !colon || (slash && slash < colon);
}

int prov_derive_open(struct prov_repo **out, const char *url, char *const *cands, size_t ncands,
		     const struct prov_ctx *ctx)
{
	const struct prov_config *config = ctx ? ctx->config : NULL;
	const char *cache_dir = ctx ? ctx->cache_dir : NULL;
	int trust = config && prov_config_get_bool(config, "fetch.trustsystemurls", 0) == 1;
	/* untrusted: the sources layer sees an offline run (only a mirror in the cache) */
	struct prov_ctx view = { 0 };
	struct prov_sources_opts so = { &view };
	struct stat st;

	if (ctx)
		view = *ctx;
	view.offline = view.offline || !trust;
	*out = NULL;
	if (prov_system_url_is_local(url))
		return prov_error_set(PROV_EINPUT, "'%s' names a local repository; one named by the "
				      "crashed system's files is never opened (it would be this host's)", url);
	if (view.offline) {
		/* not even a file:// URL from the crashed system's files is fetched */
		char *mirror = cache_dir ? prov_sources_mirror_path(cache_dir, url) : NULL;
		int have = mirror && stat(mirror, &st) == 0;

		free(mirror);
		if (!have)
			return prov_error_set(PROV_ENOTFOUND, "no mirror of '%s' in the cache%s", url,
					      trust ? " (offline)" : "; a derived upstream is fetched only "
					      "with fetch.trustSystemUrls = true");
	}
	return prov_sources_open(out, url, (const char *const *)cands, ncands, 0, &so);
}
