/* The git resolver: a module inside a git working tree (HEAD, branch, origin). */
#include <stdint.h>
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
 * git: a module inside a git working tree. .git is read directly (HEAD,
 * loose refs, packed-refs, "gitdir:" files of worktrees and submodules,
 * commondir, config's [remote "origin"] url), all under the root, all capped.
 * No libgit2 here: the resolver layer stays free of it.
 */

#define SMALL_CAP (64 << 10)
#define PACKED_CAP (64 << 20)

/* one repository's index, read once: its paths, sorted (git ls-files) */
struct index_memo {
	char *gitdir;
	char **names;
	size_t n;
};
#define MAX_INDEX_MEMOS 64

struct gitres {
	struct prov_resolver base;
	struct prov_dirmemo *memo;	/* directory -> nearest ancestor with a .git */
	/* indexes read so far: a 26 MB index was re-read for each of 500 modules
	 * under its working tree (18 s) */
	struct index_memo indexes[MAX_INDEX_MEMOS];
	size_t nindexes;
};

static int read_small(struct prov_buf *b, const char *root, const char *path)
{
	int err = prov_root_read(b, root, path, SMALL_CAP);

	if (!err)
		prov_buf_rtrim(b);
	return err;
}

static int valid_ref(const char *ref)
{
	if (!prov_starts_with(ref, "refs/") || strstr(ref, "..") || strstr(ref, "//") ||
	    strlen(ref) > 1024)
		return 0;
	for (; *ref; ref++)
		if ((unsigned char)*ref <= ' ' || *ref == '\\' || *ref == ':' || *ref == '~' ||
		    *ref == '^' || *ref == '?' || *ref == '*' || *ref == '[')
			return 0;
	return 1;
}

/* A ref's commit from loose refs or packed-refs; caller frees; NULL when unknown. */
static char *resolve_ref(const char *root, const char *gitdir, const char *common, const char *ref)
{
	struct prov_buf b = PROV_BUF_INIT;
	const char *dirs[2] = { gitdir, common };
	char *found = NULL;
	size_t i;

	if (!valid_ref(ref))
		return NULL;
	for (i = 0; i < 2 && !found; i++) {
		char *p = prov_xasprintf("%s/%s", dirs[i], ref);

		if (read_small(&b, root, p) == 0 && prov_is_hex_commit(b.buf, b.len))
			found = prov_xstrdup(b.buf);
		free(p);
	}
	if (!found) {
		char *p = prov_xasprintf("%s/packed-refs", common);
		const char *pos, *end, *line;
		size_t n, rl = strlen(ref);

		if (prov_root_read(&b, root, p, PACKED_CAP) == 0) {
			pos = b.buf;
			end = b.buf + b.len;
			while (prov_next_line(&line, &n, &pos, end)) {
				if (n == 41 + rl && line[40] == ' ' && memcmp(line + 41, ref, rl) == 0 &&
				    prov_is_hex_commit(line, 40)) {
					found = prov_xstrndup(line, 40);
					break;
				}
			}
		}
		free(p);
	}
	prov_buf_release(&b);
	return found;
}

/* [remote "origin"] url from a git config; caller frees. */
static char *origin_url(const char *root, const char *common)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *p = prov_xasprintf("%s/config", common), *url = NULL;
	const char *pos, *end, *line;
	size_t n;
	int in = 0;

	if (prov_root_read(&b, root, p, SMALL_CAP) < 0)
		goto cleanup;
	pos = b.buf;
	end = b.buf + b.len;
	while (prov_next_line(&line, &n, &pos, end)) {
		while (n && (*line == ' ' || *line == '\t')) {
			line++;
			n--;
		}
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
			n--;
		if (n && line[0] == '[') {
			in = n == 17 && memcmp(line, "[remote \"origin\"]", 17) == 0;
			continue;
		}
		if (in && n > 3 && strncasecmp(line, "url", 3) == 0) {
			const char *v = line + 3;
			size_t vl = n - 3;

			while (vl && (*v == ' ' || *v == '\t')) {
				v++;
				vl--;
			}
			if (!vl || *v != '=')
				continue;
			v++;
			vl--;
			while (vl && (*v == ' ' || *v == '\t')) {
				v++;
				vl--;
			}
			if (vl && !memchr(v, 0, vl)) {
				free(url);
				url = prov_xstrndup(v, vl);
			}
		}
	}
cleanup:
	free(p);
	prov_buf_release(&b);
	return url;
}

/* The origin of the working tree at `top` (which has a .git), or NULL. */
static struct prov_origin *tree_origin(const char *root, const char *top)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_origin *o = NULL;
	char *dotgit = prov_xasprintf("%s/.git", strcmp(top, "/") ? top : "");
	char *gitdir = NULL, *common = NULL, *p = NULL, *commit = NULL, *branch = NULL;
	const char *ref;

	if (prov_root_isdir(root, dotgit)) {
		gitdir = prov_xstrdup(dotgit);
	} else if (read_small(&b, root, dotgit) == 0 && (ref = prov_skip_prefix(b.buf, "gitdir:"))) {
		while (*ref == ' ')
			ref++;
		if (!*ref || strlen(ref) > 4096)
			goto cleanup;
		gitdir = ref[0] == '/' ? prov_path_normalize(ref) : NULL;
		if (!gitdir) {
			char *j = prov_xasprintf("%s/%s", top, ref);

			gitdir = prov_path_normalize(j);
			free(j);
		}
	} else {
		goto cleanup;
	}
	p = prov_xasprintf("%s/commondir", gitdir);
	if (read_small(&b, root, p) == 0 && b.len && b.len < 4096) {
		char *j = b.buf[0] == '/' ? prov_xstrdup(b.buf) : prov_xasprintf("%s/%s", gitdir, b.buf);

		common = prov_path_normalize(j);
		free(j);
	} else {
		common = prov_xstrdup(gitdir);
	}
	free(p);
	p = prov_xasprintf("%s/HEAD", gitdir);
	if (read_small(&b, root, p) < 0)
		goto cleanup;
	if ((ref = prov_skip_prefix(b.buf, "ref:"))) {
		while (*ref == ' ')
			ref++;
		commit = resolve_ref(root, gitdir, common, ref);
		if (prov_starts_with(ref, "refs/heads/"))
			branch = prov_xstrdup(ref + strlen("refs/heads/"));
	} else if (prov_is_hex_commit(b.buf, b.len)) {
		commit = prov_xstrdup(b.buf);
	} else {
		goto cleanup;
	}
	o = prov_origin_new("git");
	o->name = prov_xstrdup(strcmp(top, "/") ? prov_basename(top) : "/");
	o->commit = commit;
	o->branch = branch;
	o->vcs_url = prov_url_strip_userinfo(origin_url(root, common));
	o->evidence = dotgit;
	commit = branch = NULL;
	dotgit = NULL;
cleanup:
	free(dotgit);
	free(gitdir);
	free(common);
	free(p);
	free(commit);
	free(branch);
	prov_buf_release(&b);
	return o;
}

/* The git directory of the working tree at `top` (a linked worktree's own), or NULL. */
static char *tree_gitdir(const char *root, const char *top)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *dotgit = prov_xasprintf("%s/.git", strcmp(top, "/") ? top : "");
	char *gitdir = NULL;
	const char *ref;

	if (prov_root_isdir(root, dotgit)) {
		gitdir = dotgit;
		dotgit = NULL;
	} else if (read_small(&b, root, dotgit) == 0 && (ref = prov_skip_prefix(b.buf, "gitdir:"))) {
		while (*ref == ' ')
			ref++;
		if (*ref && strlen(ref) <= 4096) {
			char *j = ref[0] == '/' ? prov_xstrdup(ref) : prov_xasprintf("%s/%s", top, ref);

			gitdir = prov_path_normalize(j);
			free(j);
		}
	}
	free(dotgit);
	prov_buf_release(&b);
	return gitdir;
}

/* git's offset varint (index v4 path prefixes): 0 or -1 when cut. */
static int index_varint(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
	uint64_t v;
	unsigned char c;

	if (*p >= end)
		return -1;
	c = *(*p)++;
	v = c & 127;
	while (c & 128) {
		if (*p >= end || v > (UINT64_MAX >> 8))
			return -1;
		c = *(*p)++;
		v = ((v + 1) << 7) + (c & 127);
	}
	*out = v;
	return 0;
}

/*
 * Does the index of `gitdir` hold `rel` (what `git ls-files` lists)? Files
 * a tool's working tree ignores or never added (pyenv's versions/) are not
 * its files. Index versions 2, 3 and 4; anything unreadable says no.
 */
static void index_read(struct index_memo *m, const char *root, const char *gitdir)
{
	struct prov_buf b = PROV_BUF_INIT, name = PROV_BUF_INIT;
	char *path = prov_xasprintf("%s/index", gitdir);
	const unsigned char *p, *end;
	uint32_t version, count, i;
	size_t alloc = 0;

	if (prov_root_read(&b, root, path, PACKED_CAP) < 0 || b.len < 12 ||
	    memcmp(b.buf, "DIRC", 4) != 0)
		goto cleanup;
	p = (const unsigned char *)b.buf;
	end = p + b.len;
	version = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
	count = (uint32_t)p[8] << 24 | (uint32_t)p[9] << 16 | (uint32_t)p[10] << 8 | p[11];
	if (version < 2 || version > 4)
		goto cleanup;
	p += 12;
	for (i = 0; i < count; i++) {
		const unsigned char *entry = p, *nul;
		unsigned int flags;
		size_t fixed = 62;

		if ((size_t)(end - p) < fixed)
			goto cleanup;
		flags = (unsigned int)p[60] << 8 | p[61];
		if (version >= 3 && (flags & 0x4000))
			fixed += 2;
		if ((size_t)(end - p) < fixed)
			goto cleanup;
		p += fixed;
		if (version == 4) {
			uint64_t strip;

			if (index_varint(&p, end, &strip) < 0 || strip > name.len)
				goto cleanup;
			name.len -= (size_t)strip;
		} else {
			prov_buf_reset(&name);
		}
		nul = memchr(p, 0, (size_t)(end - p));
		if (!nul)
			goto cleanup;
		if (prov_buf_add(&name, (const char *)p, (size_t)(nul - p)) < 0)
			goto cleanup;
		PROV_ALLOC_GROW(m->names, m->n + 1, alloc);
		m->names[m->n++] = prov_xstrndup(name.buf, name.len);
		p = nul + 1;
		if (version != 4) {
			/* entries are NUL-padded to a multiple of 8 bytes */
			size_t len = ((size_t)(nul - entry) + 8) & ~(size_t)7;

			if (len > (size_t)(end - entry))
				goto cleanup;
			p = entry + len;
		}
	}
cleanup:
	free(path);
	prov_buf_release(&name);
	prov_buf_release(&b);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void index_memo_release(struct index_memo *m)
{
	prov_strv_free(m->names, m->n);
	free(m->gitdir);
	memset(m, 0, sizeof(*m));
}

/* Does the index of `gitdir` list `rel`? Each index is read once per run
 * (the last MAX_INDEX_MEMOS kept; a further one replaces the oldest). */
static int index_tracks(struct gitres *g, const char *root, const char *gitdir, const char *rel)
{
	struct index_memo *m = NULL;
	size_t i;

	for (i = 0; i < g->nindexes && !m; i++)
		if (!strcmp(g->indexes[i].gitdir, gitdir))
			m = &g->indexes[i];
	if (!m) {
		if (g->nindexes == MAX_INDEX_MEMOS) {
			index_memo_release(&g->indexes[0]);
			memmove(&g->indexes[0], &g->indexes[1], (MAX_INDEX_MEMOS - 1) * sizeof(g->indexes[0]));
			g->nindexes--;
			memset(&g->indexes[g->nindexes], 0, sizeof(g->indexes[0]));
		}
		m = &g->indexes[g->nindexes++];
		m->gitdir = prov_xstrdup(gitdir);
		index_read(m, root, gitdir);
		if (m->n)
			qsort(m->names, m->n, sizeof(*m->names), cmp_str);
	}
	return m->n && bsearch(&rel, m->names, m->n, sizeof(*m->names), cmp_str) != NULL;
}

static int has_dotgit(const char *root, const char *dir)
{
	char *p = prov_xasprintf("%s/.git", strcmp(dir, "/") ? dir : "");
	struct prov_buf b = PROV_BUF_INIT;
	int yes = prov_root_isdir(root, p) || read_small(&b, root, p) == 0;

	prov_buf_release(&b);
	free(p);
	return yes;
}

static int has_dotgit_test(const char *root, const char *dir, void *data)
{
	return has_dotgit(root, dir);
}

static int git_init(struct prov_resolver **out, const struct prov_resolve_ctx *ctx)
{
	struct gitres *g = prov_xcalloc(1, sizeof(*g));

	*out = &g->base;
	return 0;
}

static int git_resolve(struct prov_origin *out, struct prov_resolver *r,
		       const struct prov_module *mod)
{
	char *norm = prov_path_normalize(mod->path), *anc = NULL;
	struct prov_origin *o = NULL;

	if (norm[0] != '/') {
		free(norm);
		return PROV_EPASSTHROUGH;
	}
	/* nearest ancestor directory with a .git (not the root itself), memoized per directory */
	anc = prov_nearest_ancestor(&((struct gitres *)r)->memo, r->ctx->sysroot, norm,
				    has_dotgit_test, NULL);
	if (anc) {
		/* only a file the working tree tracks (git ls-files) is its file */
		char *gitdir = tree_gitdir(r->ctx->sysroot, anc);

		const char *rel = norm + strlen(anc) + 1;

		if (gitdir && index_tracks((struct gitres *)r, r->ctx->sysroot, gitdir, rel))
			o = tree_origin(r->ctx->sysroot, anc);
		free(gitdir);
	}
	free(anc);
	free(norm);
	if (!o)
		return PROV_EPASSTHROUGH;
	*out = *o;
	free(o);
	return 0;
}

static int git_inventory(struct prov_resolver *r, struct prov_origin_list *l)
{
	static const char *const parents[] = { "/opt", "/workspace", "/src", NULL };
	const char *root = r->ctx->sysroot;
	size_t i, j;

	for (i = 0; parents[i]; i++) {
		char **names = NULL;
		size_t n = 0;
		struct prov_origin *o;

		if (has_dotgit(root, parents[i]) && (o = tree_origin(root, parents[i])))
			prov_origin_list_add(l, o);
		if (prov_root_listdir(&names, &n, root, parents[i]) < 0)
			continue;
		for (j = 0; j < n && j < 1000; j++) {
			char *dir = prov_xasprintf("%s/%s", parents[i], names[j]);

			if (has_dotgit(root, dir) && (o = tree_origin(root, dir)))
				prov_origin_list_add(l, o);
			free(dir);
		}
		prov_strv_free(names, n);
	}
	return 0;
}

static void git_free(struct prov_resolver *r)
{
	if (r) {
		struct gitres *g = (struct gitres *)r;
		size_t i;

		prov_dirmemo_free(g->memo);
		for (i = 0; i < g->nindexes; i++)
			index_memo_release(&g->indexes[i]);
	}
	free(r);
}

/* The commit a Python package embeds; the working tree's origin as its upstream. */
static void git_annotate(struct prov_resolver *r, struct prov_origin *o, const struct prov_module *mod,
			  const struct prov_resolve_peers *peers)
{
	(void)peers;
	if (mod)
		prov_py_commit_of(o, r->ctx->sysroot, mod->path);
	prov_upstream_from_vcs(o, "derived:git-remote");
}

const struct prov_resolver_ops prov_resolver_git = {
	.version = PROV_RESOLVER_VERSION,
	.name = "git",
	.init = git_init,
	.resolve = git_resolve,
	.inventory = git_inventory,
	.free = git_free,
	.annotate = git_annotate,
};
