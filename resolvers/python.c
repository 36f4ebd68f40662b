/* The python-prefix resolver: CPython prefixes outside any package manager (pyenv, uv, venvs, source builds). */
#include <stdlib.h>
#include <string.h>

#include "resolver.h"
#include "kit-python.h"
#include "kit-upstream.h"
#include "kit-root.h"
#include "kit-text.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * python-prefix: a CPython installed outside any package manager (pyenv's
 * ~/.pyenv/versions/3.11.7, uv's ~/.local/share/uv/python/cpython-3.11.7-…,
 * a venv made with --copies, a source build in /usr/local or /opt). Its
 * interpreter, libpython and lib-dynload extension modules are CPython's;
 * the version comes from the prefix's own files:
 *   include/python3.X/patchlevel.h   #define PY_VERSION "3.11.7"
 *   pyvenv.cfg                       version = 3.11.7 (version_info in uv's)
 * and only when neither is there, from the prefix's directory name
 * (".../versions/3.11.7", "cpython-3.11.7-…"), marked as a guess.
 */

#define CFG_CAP (64 << 10)
#define PATCHLEVEL_CAP (256 << 10)

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "3.11" from "python3.11…" at p (after "python"), "3" from a bare "python3"; NULL when not a version. */
static char *minor_version(const char *p)
{
	const char *q = p;

	if (*q != '3')
		return NULL;
	q++;
	if (!*q)
		return prov_xstrdup("3");
	if (*q != '.' || !is_digit(q[1]))
		return NULL;
	q++;
	while (is_digit(*q))
		q++;
	return prov_xstrndup(p, (size_t)(q - p));
}

/*
 * The prefix and "3.X" of a CPython module path: <P>/bin/python3.X,
 * <P>/lib/libpython3.X…so…, <P>/lib/python3.X/lib-dynload/<name>.so.
 */
static int python_prefix(const char *path, char **prefix, char **minor)
{
	const char *base = prov_basename(path), *p;
	size_t dirlen = (size_t)(base - path);

	*prefix = *minor = NULL;
	if (dirlen < 2)
		return -1;
	if ((p = prov_skip_prefix(base, "python")) && (*minor = minor_version(p)) &&
	    dirlen >= 5 && memcmp(path + dirlen - 5, "/bin/", 5) == 0) {
		*prefix = prov_xstrndup(path, dirlen - 5);
		return 0;
	}
	free(*minor);
	*minor = NULL;
	if ((p = prov_skip_prefix(base, "libpython")) && strstr(p, ".so") &&
	    (*minor = minor_version(p)) && dirlen >= 5 && memcmp(path + dirlen - 5, "/lib/", 5) == 0) {
		*prefix = prov_xstrndup(path, dirlen - 5);
		return 0;
	}
	free(*minor);
	*minor = NULL;
	if (prov_ends_with(path, ".so") && (p = strstr(path, "/lib/python3.")) &&
	    (*minor = minor_version(p + strlen("/lib/python"))) &&
	    prov_starts_with(p + strlen("/lib/python") + strlen(*minor), "/lib-dynload/") &&
	    !strchr(p + strlen("/lib/python") + strlen(*minor) + strlen("/lib-dynload/"), '/')) {
		*prefix = prov_xstrndup(path, (size_t)(p - path));
		return 0;
	}
	free(*minor);
	*minor = NULL;
	return -1;
}

/* A version "3.X.Y…" that starts with minor ("3.X") and holds only version characters. */
static int version_ok(const char *v, size_t n, const char *minor)
{
	size_t i, ml = strlen(minor);

	if (n <= ml || n > 32 || memcmp(v, minor, ml) != 0 || v[ml] != '.')
		return 0;
	for (i = 0; i < n; i++)
		if (!is_digit(v[i]) && v[i] != '.' && v[i] != '+' && !(v[i] >= 'a' && v[i] <= 'z'))
			return 0;
	return 1;
}

/* PY_VERSION from patchlevel.h; caller frees. */
static char *patchlevel_version(const char *root, const char *prefix, const char *minor, char **evidence)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *path = prov_xasprintf("%s/include/python%s/patchlevel.h", prefix, minor), *v = NULL;
	const char *pos, *end, *line, *q, *e;
	size_t n;

	if (prov_root_read(&b, root, path, PATCHLEVEL_CAP) < 0)
		goto cleanup;
	pos = b.buf;
	end = b.buf + b.len;
	while (prov_next_line(&line, &n, &pos, end)) {
		if (n < 20 || memcmp(line, "#define PY_VERSION", 18) != 0 || (line[18] != ' ' && line[18] != '\t'))
			continue;
		q = memchr(line, '"', n);
		e = q ? memchr(q + 1, '"', (size_t)(line + n - q - 1)) : NULL;
		if (e && version_ok(q + 1, (size_t)(e - q - 1), minor)) {
			v = prov_xstrndup(q + 1, (size_t)(e - q - 1));
			*evidence = path;
			path = NULL;
		}
		break;
	}
cleanup:
	free(path);
	prov_buf_release(&b);
	return v;
}

/* "version = 3.11.7" (venv) or "version_info = 3.11.7…" (uv) from pyvenv.cfg; caller frees. */
static char *pyvenv_version(const char *root, const char *prefix, const char *minor, char **evidence)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *path = prov_xasprintf("%s/pyvenv.cfg", prefix), *v = NULL;
	const char *pos, *end, *line;
	size_t n;

	if (prov_root_read(&b, root, path, CFG_CAP) < 0)
		goto cleanup;
	pos = b.buf;
	end = b.buf + b.len;
	while (!v && prov_next_line(&line, &n, &pos, end)) {
		size_t k = 0, s;

		while (k < n && line[k] != '=' && line[k] != ' ' && line[k] != '\t')
			k++;
		if (!((k == 7 && memcmp(line, "version", 7) == 0) ||
		      (k == 12 && memcmp(line, "version_info", 12) == 0)))
			continue;
		while (k < n && (line[k] == ' ' || line[k] == '\t' || line[k] == '='))
			k++;
		s = k;
		while (k < n && line[k] != ' ' && line[k] != '\t' && line[k] != '\r')
			k++;
		if (version_ok(line + s, k - s, minor)) {
			v = prov_xstrndup(line + s, k - s);
			*evidence = path;
			path = NULL;
		}
	}
cleanup:
	free(path);
	prov_buf_release(&b);
	return v;
}

/* The version in the prefix's own name: ".../3.11.7", ".../cpython-3.11.7-linux-…". */
static char *dirname_version(const char *prefix, const char *minor)
{
	const char *base = prov_basename(prefix), *p = base, *e;

	if (prov_starts_with(p, "cpython-"))
		p += strlen("cpython-");
	for (e = p; is_digit(*e) || *e == '.'; e++)
		;
	if (*e && *e != '-')
		return NULL;
	return version_ok(p, (size_t)(e - p), minor) ? prov_xstrndup(p, (size_t)(e - p)) : NULL;
}

static int python_init(struct prov_resolver **out, const struct prov_resolve_ctx *ctx)
{
	*out = prov_xcalloc(1, sizeof(struct prov_resolver));
	(void)ctx;
	return 0;
}

static int python_resolve(struct prov_origin *out, struct prov_resolver *r,
			  const struct prov_module *mod)
{
	char *norm = prov_path_normalize(mod->path), *prefix = NULL, *minor = NULL;
	char *version = NULL, *evidence = NULL;
	int err = PROV_EPASSTHROUGH, guess = 0;

	if (norm[0] != '/' || python_prefix(norm, &prefix, &minor) < 0)
		goto cleanup;
	version = patchlevel_version(r->ctx->sysroot, prefix, minor, &evidence);
	if (!version)
		version = pyvenv_version(r->ctx->sysroot, prefix, minor, &evidence);
	if (!version && (version = dirname_version(prefix, minor))) {
		guess = 1;
		evidence = prov_xstrdup(prefix);
	}
	if (!version)
		goto cleanup;
	out->kind = prov_xstrdup("path");
	out->name = prov_xstrdup("cpython");
	out->version = version;
	out->evidence = evidence;
	out->guess = guess;
	version = evidence = NULL;
	err = 0;
cleanup:
	free(norm);
	free(prefix);
	free(minor);
	free(version);
	free(evidence);
	return err;
}

static void python_free(struct prov_resolver *r)
{
	free(r);
}

/* The commit a Python package embeds; a repository URL the origin carries. */
static void python_annotate(struct prov_resolver *r, struct prov_origin *o, const struct prov_module *mod,
			     const struct prov_resolve_peers *peers)
{
	(void)peers;
	if (mod)
		prov_py_commit_of(o, r->ctx->sysroot, mod->path);
	prov_upstream_from_vcs(o, "derived:direct-url");
}

const struct prov_resolver_ops prov_resolver_python = {
	.version = PROV_RESOLVER_VERSION,
	.name = "python-prefix",
	.init = python_init,
	.resolve = python_resolve,
	.free = python_free,
	.annotate = python_annotate,
};
