/* Path rewriting: a source path as the build recorded it, relative to its repository. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "pathrw.h"
#include "util.h"
#include "banned.h"

#define RPM_LONG_PREFIX \
	"/longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_profiles/src/"

char *prov_pathrw_repo_name(const char *url)
{
	const char *end, *start;

	if (!url || !*url)
		return NULL;
	end = url + strlen(url);
	while (end > url && end[-1] == '/')
		end--;
	if (end - url >= 4 && !strncmp(end - 4, ".git", 4))
		end -= 4;
	start = end;
	while (start > url && start[-1] != '/' && start[-1] != ':')
		start--;
	if (start == end)
		return NULL;
	return prov_xstrndup(start, (size_t)(end - start));
}

/* Skip one path component and its slash; NULL when there is no slash after it. */
static const char *skip_component(const char *p)
{
	const char *s = strchr(p, '/');

	if (!s || s == p)
		return NULL;
	return s + 1;
}

struct subst {
	const char *path;
	char *result;
};

static int subst_cb(const char *key, const char *value, void *data)
{
	struct subst *s = data;
	const char *from = key + strlen("substitute-path.");
	size_t fl = strlen(from);
	const char *rest;

	if (!fl || strncasecmp(s->path, from, fl) != 0)
		return 0;
	rest = s->path + fl;
	if (from[fl - 1] != '/' && *rest != '/' && *rest != '\0')
		return 0;	/* only at a component boundary */
	while (*rest == '/')
		rest++;
	while (*value == '/')
		value++;	/* results are repository-relative */
	s->result = prov_xasprintf("%s%s%s", value, (*value && *rest && !prov_ends_with(value, "/")) ? "/" : "", rest);
	return 1;
}

int prov_pathrw_glob_ok(const char *glob)
{
	size_t stars = 0;
	const char *p;

	if (!glob || strlen(glob) > PROV_PATHRW_MAX_GLOB)
		return 0;
	for (p = glob; *p; p++)
		stars += *p == '*';
	return stars <= PROV_PATHRW_MAX_STARS;
}

#define glob_ok prov_pathrw_glob_ok

/*
 * An installed Python file: what follows the last site-packages/ or
 * dist-packages/ is its path in the distribution's source tree
 * (…/site-packages/torch/nn/modules/module.py -> torch/nn/modules/module.py).
 */
static const char *rule_site_packages(const char *path)
{
	const char *p = path, *best = NULL;

	if (!prov_ends_with(path, ".py"))
		return NULL;
	while ((p = strstr(p, "-packages/"))) {
		if (p - path >= 5 && (strncmp(p - 5, "/site", 5) == 0 || strncmp(p - 5, "/dist", 5) == 0))
			best = p + strlen("-packages/");
		p++;
	}
	return best;
}

/* CPython's standard library, installed as <prefix>/lib/python3.N/x.py,
 * is Lib/x.py in its repository: the caller prefixes "Lib/". */
static const char *rule_python_stdlib(const char *path)
{
	const char *p = path, *rest;

	if (!prov_ends_with(path, ".py"))
		return NULL;
	while ((p = strstr(p, "/lib/python3."))) {
		rest = p + strlen("/lib/python3.");
		while (*rest >= '0' && *rest <= '9')
			rest++;
		if (rest > p + strlen("/lib/python3.") && *rest == '/')
			return rest + 1;
		p++;
	}
	return NULL;
}

/* The rest of `path` after the shortest prefix (ending at a '/') matching glob. */
static const char *strip_glob(const char *path, const char *glob)
{
	struct prov_buf pre = PROV_BUF_INIT;
	const char *p, *found = NULL;

	const char *lit = glob + strlen(glob);
	size_t ll;

	/* the literal tail after the last special character must end the prefix: skips most fnmatch calls */
	while (lit > glob && !strchr("*?[]\\", lit[-1]))
		lit--;
	ll = strlen(lit);
	for (p = path; *p; p++) {
		if (*p != '/')
			continue;
		if ((size_t)(p + 1 - path) < ll || memcmp(p + 1 - ll, lit, ll) != 0)
			continue;
		prov_buf_reset(&pre);
		if (prov_buf_add(&pre, path, (size_t)(p - path) + 1) < 0)
			break;
		if (fnmatch(glob, pre.buf, 0) == 0) {
			found = p + 1;
			break;
		}
	}
	prov_buf_release(&pre);
	return found;
}

static int looks_like_versioned_dir(const char *p)
{
	const char *slash = strchr(p, '/'), *d;

	if (!slash)
		return 0;
	for (d = p; d + 1 < slash; d++)
		if (*d == '-' && d[1] >= '0' && d[1] <= '9')
			return 1;
	return 0;
}

static const char *rule_rpm_long(const char *p)
{
	const char *r = prov_skip_prefix(p, RPM_LONG_PREFIX);

	return r ? skip_component(r) : NULL;
}

static const char *rule_rpm_usr_src_debug(const char *p)
{
	const char *r = prov_skip_prefix(p, "/usr/src/debug/");

	return r ? skip_component(r) : NULL;
}

static const char *rule_debian_build(const char *p)
{
	const char *r = prov_skip_prefix(p, "/build/");

	if (!r || !(r = skip_component(r)))
		return NULL;
	/* /build/glibc-SzIz7B/glibc-2.31/malloc/malloc.c: the unpacked source dir */
	if (looks_like_versioned_dir(r))
		r = skip_component(r);
	return r;
}

static const char *rule_bazel_external(const char *p)
{
	const char *r = prov_skip_prefix(p, "external/");

	return r ? skip_component(r) : NULL;
}

static const char *rule_conda(const char *p)
{
	const char *r = strstr(p, "/conda-bld/");

	if (!r)
		r = strstr(p, "/build_artifacts/");
	if (!r || !(r = strstr(r, "/work/")))
		return NULL;
	return r + strlen("/work/");
}

static const char *rule_pip(const char *p)
{
	const char *r = strstr(p, "/pip-req-build-");

	if (r)
		return skip_component(r + 1);
	if ((r = strstr(p, "/pip-install-")) && (r = skip_component(r + 1)))
		return skip_component(r);
	return NULL;
}

static const char *rule_repo_name(const char *p, const char *name)
{
	size_t nl = name ? strlen(name) : 0;
	const char *r = p;

	if (!nl)
		return NULL;
	while ((r = strstr(r, name))) {
		if (r > p && r[-1] == '/' && r[nl] == '/')
			return r + nl + 1;
		r++;
	}
	return NULL;
}

static const char *rule_tmp(const char *p)
{
	const char *r = prov_skip_prefix(p, "/tmp/");

	return r ? skip_component(r) : NULL;
}

int prov_pathrw_rewrite(char **out, char **out_rule, const char *file,
			const char *comp_dir, const struct prov_pathrw_ctx *ctx)
{
	char *joined = NULL, *path = NULL, *owned = NULL, *result = NULL;
	const char *rest = NULL, *rule = NULL;
	int error = PROV_ENOTFOUND, add_subdir = 0;
	size_t i;

	if (!file || !*file)
		return PROV_ENOTFOUND;
	if (file[0] != '/' && comp_dir && *comp_dir)
		joined = prov_xasprintf("%s/%s", comp_dir, file);
	path = prov_path_normalize(joined ? joined : file);

	if (ctx && ctx->config) {
		struct subst s = { path, NULL };

		if (prov_config_foreach(ctx->config, "substitute-path.", subst_cb, &s) > 0) {
			owned = s.result;
			rest = owned;
			rule = "substitute-path";
		}
	}
	for (i = 0; !rule && ctx && i < ctx->npath_prefixes; i++)
		if (glob_ok(ctx->path_prefixes[i]) && strlen(path) <= PROV_PATHRW_MAX_GLOB_PATH &&
		    (rest = strip_glob(path, ctx->path_prefixes[i])))
			rule = "path-prefix";
	if (!rule && (rest = rule_site_packages(path)))
		rule = "site-packages";
	if (!rule && (rest = rule_python_stdlib(path))) {
		owned = prov_xasprintf("Lib/%s", rest);
		rest = owned;
		rule = "python-stdlib";
	}
	if (!rule && (rest = rule_rpm_long(path)))
		rule = "rpm-longer-pathname";
	if (!rule && (rest = rule_rpm_usr_src_debug(path)))
		rule = "rpm-usr-src-debug";
	if (!rule && (rest = rule_debian_build(path)))
		rule = "debian-build";
	if (!rule && (rest = prov_skip_prefix(path, "/proc/self/cwd/"))) {
		const char *ext = rule_bazel_external(rest);

		rule = ext ? "bazel-external" : "bazel-proc-self-cwd";
		if (ext)
			rest = ext;
	}
	if (!rule && (rest = rule_bazel_external(path)))
		rule = "bazel-external";
	if (!rule && (rest = rule_conda(path)))
		rule = "conda-build";
	if (!rule && (rest = rule_pip(path)))
		rule = "pip-build";
	if (!rule && (rest = rule_repo_name(path, ctx ? ctx->repo_name : NULL)))
		rule = "repo-name";
	if (!rule && (rest = rule_tmp(path)))
		rule = "tmp-build-dir";
	if (!rule && path[0] != '/') {
		rest = path;
		rule = "relative";
	}
	if (!rule)
		goto cleanup;

	result = prov_path_normalize(rest);
	if (!*result || !strcmp(result, "..") || prov_starts_with(result, "../") ||
	    result[0] == '/' || !strcmp(result, "."))
		goto cleanup;
	if (ctx && ctx->subdir_paths && ctx->subdir && *ctx->subdir) {
		size_t sl = strlen(ctx->subdir);

		if (!(strncmp(result, ctx->subdir, sl) == 0 && result[sl] == '/'))
			add_subdir = 1;
	}
	if (add_subdir) {
		char *joined_sub = prov_xasprintf("%s/%s", ctx->subdir, result);

		free(result);
		result = prov_path_normalize(joined_sub);
		free(joined_sub);
		/* mapping files never give such a subdir; stay safe when a caller does */
		if (result[0] == '/' || !strcmp(result, "..") || prov_starts_with(result, "../"))
			goto cleanup;
		*out_rule = prov_xasprintf("%s+subdir", rule);
	} else {
		*out_rule = prov_xstrdup(rule);
	}
	*out = result;
	result = NULL;
	error = 0;
cleanup:
	free(result);
	free(owned);
	free(path);
	free(joined);
	return error;
}
