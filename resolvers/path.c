/* The path resolver: what a module's path alone says (a guess), last in the chain. */
#include <stdlib.h>
#include <string.h>

#include "resolver.h"
#include "kit-python.h"
#include "kit-upstream.h"
#include "buildpath.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * path: the last resort, what the path alone says (guess = 1):
 *   .../site-packages/<top>/...   -> pip distribution "<top>"
 *   /opt/<name>-<version>/...     -> "<name>", "<version>"
 *   /opt/<name>/...               -> "<name>"
 *   build-system source paths     -> see buildpath.h
 *     (/usr/src/debug/rocclr-5.5.1-8.fc39.x86_64/... -> rocclr 5.5.1-8.fc39)
 * Nothing is read from disk.
 */

static int path_init(struct prov_resolver **out, const struct prov_resolve_ctx *ctx)
{
	*out = prov_xcalloc(1, sizeof(struct prov_resolver));
	return 0;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int path_resolve(struct prov_origin *out, struct prov_resolver *r,
			const struct prov_module *mod)
{
	char *norm = prov_path_normalize(mod->path);
	const char *p, *rest, *slash;
	int err = PROV_EPASSTHROUGH;

	if (prov_buildpath_split(&out->name, &out->version, NULL, norm)) {
		out->kind = prov_xstrdup("path");
		out->evidence = prov_xstrdup(mod->path);
		out->guess = 1;
		err = 0;
		goto cleanup;
	}
	for (p = norm; (p = strstr(p, "-packages/")); p++) {
		const char *start = p;

		while (start > norm && start[-1] != '/')
			start--;
		if ((size_t)(p - start) == 4 && (strncmp(start, "site", 4) == 0 || strncmp(start, "dist", 4) == 0)) {
			rest = p + strlen("-packages/");
			slash = strchr(rest, '/');
			if (slash && slash > rest && rest[0] != '.') {
				out->kind = prov_xstrdup("path");
				out->name = prov_xstrndup(rest, (size_t)(slash - rest));
				out->evidence = prov_xstrdup(mod->path);
				out->guess = 1;
				err = 0;
				goto cleanup;
			}
		}
	}
	if ((rest = prov_skip_prefix(norm, "/opt/")) && (slash = strchr(rest, '/')) && slash > rest &&
	    rest[0] != '.') {
		const char *dash = NULL, *q;

		/* the last "-<digit>" splits name and version */
		for (q = rest; q < slash; q++)
			if (*q == '-' && q + 1 < slash && is_digit(q[1]))
				dash = q;
		out->kind = prov_xstrdup("path");
		if (dash && dash > rest) {
			out->name = prov_xstrndup(rest, (size_t)(dash - rest));
			out->version = prov_xstrndup(dash + 1, (size_t)(slash - dash - 1));
		} else {
			out->name = prov_xstrndup(rest, (size_t)(slash - rest));
		}
		out->evidence = prov_xstrdup(mod->path);
		out->guess = 1;
		err = 0;
	}
cleanup:
	free(norm);
	return err;
}

static void path_free(struct prov_resolver *r)
{
	free(r);
}

/* The commit a Python package embeds; a repository URL the origin carries. */
static void path_annotate(struct prov_resolver *r, struct prov_origin *o, const struct prov_module *mod,
			   const struct prov_resolve_peers *peers)
{
	(void)peers;
	if (mod)
		prov_py_commit_of(o, r->ctx->sysroot, mod->path);
	prov_upstream_from_vcs(o, "derived:direct-url");
}

const struct prov_resolver_ops prov_resolver_path = {
	.version = PROV_RESOLVER_VERSION,
	.name = "path",
	.init = path_init,
	.resolve = path_resolve,
	.free = path_free,
	.annotate = path_annotate,
};
