/* The rocm resolver: a module under a ROCm or CUDA tree, versioned by the tree. */
#include <stdlib.h>
#include <string.h>

#include "resolver.h"
#include "kit-python.h"
#include "kit-upstream.h"
#include "kit-root.h"
#include "kit-text.h"
#include "jsonread.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * ROCm and CUDA trees: a library under /opt/rocm-* belongs to the ROCm
 * release named by /opt/rocm-X.Y.Z/.info/version (kind "rocm", name "rocm");
 * one under /usr/local/cuda-* to the CUDA toolkit of version.json. The
 * design's kinds have no "cuda": CUDA trees are kind "path", name "cuda".
 */

struct rocm {
	struct prov_resolver base;
};

/* The tree (e.g. "/opt/rocm-6.2.0") a normalised path lies in, or NULL. */
static char *tree_of(const char *path, const char *parent, const char *prefix)
{
	const char *rest = prov_skip_prefix(path, parent), *slash;

	if (!rest || !prov_starts_with(rest, prefix))
		return NULL;
	slash = strchr(rest, '/');
	if (!slash)
		return NULL;
	return prov_xstrndup(path, (size_t)(slash - path));
}

static struct prov_origin *rocm_origin(const char *root, const char *tree)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_origin *o = NULL;
	char *p = prov_xasprintf("%s/.info/version", tree);
	const char *line, *pos;
	size_t n;

	if (prov_root_read(&b, root, p, 4096) < 0)
		goto cleanup;
	pos = b.buf;
	if (!prov_next_line(&line, &n, &pos, b.buf + b.len))
		goto cleanup;
	while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
		n--;
	if (!n || memchr(line, 0, n))
		goto cleanup;
	o = prov_origin_new("rocm");
	o->name = prov_xstrdup("rocm");
	o->version = prov_xstrndup(line, n);
	o->evidence = p;
	p = NULL;
cleanup:
	free(p);
	prov_buf_release(&b);
	return o;
}

static struct prov_origin *cuda_origin(const char *root, const char *tree)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_jv *v = NULL;
	struct prov_origin *o = NULL;
	char *p = prov_xasprintf("%s/version.json", tree);
	const char *ver;

	if (prov_root_read(&b, root, p, 1 << 20) < 0 || prov_jv_parse(&v, b.buf, b.len) < 0)
		goto cleanup;
	ver = prov_jv_get_str(prov_jv_get(v, "cuda"), "version");
	if (!ver || !*ver)
		goto cleanup;
	o = prov_origin_new("path");
	o->name = prov_xstrdup("cuda");
	o->version = prov_xstrdup(ver);
	o->evidence = p;
	p = NULL;
cleanup:
	prov_jv_free(v);
	free(p);
	prov_buf_release(&b);
	return o;
}

static int rocm_init(struct prov_resolver **out, const struct prov_resolve_ctx *ctx)
{
	struct rocm *r = prov_xcalloc(1, sizeof(*r));

	*out = &r->base;
	return 0;
}

static struct prov_origin *origin_for(const char *root, const char *path)
{
	struct prov_origin *o = NULL;
	char *tree;

	if ((tree = tree_of(path, "/opt/", "rocm"))) {
		o = rocm_origin(root, tree);
		free(tree);
	} else if ((tree = tree_of(path, "/usr/local/", "cuda"))) {
		o = cuda_origin(root, tree);
		free(tree);
	}
	return o;
}

static int rocm_resolve(struct prov_origin *out, struct prov_resolver *r,
			const struct prov_module *mod)
{
	char *norm = prov_path_normalize(mod->path);
	struct prov_origin *o = origin_for(r->ctx->sysroot, norm);

	if (!o) {
		/* /opt/rocm is often a symlink to /opt/rocm-X.Y.Z, and the reverse */
		char *real = prov_root_realpath(r->ctx->sysroot, norm);

		o = origin_for(r->ctx->sysroot, real);
		free(real);
	}
	free(norm);
	if (!o)
		return PROV_EPASSTHROUGH;
	*out = *o;
	free(o);
	return 0;
}

static void scan(struct prov_origin_list *l, const char *root, const char *parent,
		 const char *prefix, int cuda)
{
	char **names = NULL, **seen = NULL;
	size_t n = 0, nseen = 0, i, k;

	if (prov_root_listdir(&names, &n, root, parent) < 0)
		return;
	seen = prov_xcalloc(n + 1, sizeof(*seen));
	for (i = 0; i < n; i++) {
		char *tree, *real;
		struct prov_origin *o;
		int dup = 0;

		if (!prov_starts_with(names[i], prefix))
			continue;
		tree = prov_xasprintf("%s/%s", parent, names[i]);
		real = prov_root_realpath(root, tree);
		for (k = 0; k < nseen; k++)
			dup |= strcmp(seen[k], real) == 0;
		if (dup) {
			free(real);
			free(tree);
			continue;
		}
		seen[nseen++] = real;
		o = cuda ? cuda_origin(root, real) : rocm_origin(root, real);
		if (o)
			prov_origin_list_add(l, o);
		free(tree);
	}
	prov_strv_free(seen, nseen);
	prov_strv_free(names, n);
}

static int rocm_inventory(struct prov_resolver *r, struct prov_origin_list *l)
{
	scan(l, r->ctx->sysroot, "/opt", "rocm", 0);
	scan(l, r->ctx->sysroot, "/usr/local", "cuda", 1);
	return 0;
}

static void rocm_free(struct prov_resolver *r)
{
	free(r);
}

/* The commit a Python package embeds; a repository URL the origin carries. */
static void rocm_annotate(struct prov_resolver *r, struct prov_origin *o, const struct prov_module *mod,
			   const struct prov_resolve_peers *peers)
{
	(void)peers;
	if (mod)
		prov_py_commit_of(o, r->ctx->sysroot, mod->path);
	prov_upstream_from_vcs(o, "derived:direct-url");
}

const struct prov_resolver_ops prov_resolver_rocm = {
	.version = PROV_RESOLVER_VERSION,
	.name = "rocm",
	.init = rocm_init,
	.resolve = rocm_resolve,
	.inventory = rocm_inventory,
	.free = rocm_free,
	.annotate = rocm_annotate,
};
