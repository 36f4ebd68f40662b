/* The resolvers' kit: the file -> package index of a package database, kept in cache/ when there is a cache. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kit-index.h"
#include "kit-root.h"
#include "cache.h"
#include "error.h"
#include "util.h"
#include "banned.h"

int prov_is_shlib_path(const char *path)
{
	const char *b = prov_basename(path);
	const char *so = strstr(b, ".so");

	while (so) {
		if (so[3] == 0 || so[3] == '.')
			return so != b;
		so = strstr(so + 1, ".so");
	}
	return 0;
}

/* ---- file -> package index ---- */

struct ix_pkg {
	struct prov_origin o;
	int shlib;
};

struct prov_pkgindex {
	struct prov_cache *cache;
	int64_t cache_id;
	int cached;	/* lookups go to the cache */
	char *kind;
	/*
	 * With a cache: "pkgindex<US>kind<US>root<US>db<US>identity", the
	 * memo's key prefix. An index the memo knows is opened (SQLite, or a
	 * build) only when a question is not in the memo: `deferred` until then.
	 */
	char *memo;
	int deferred, failed;
	int stored;	/* the index is in the cache (found there, or written by this run) */
	const struct prov_resolve_ctx *ctx;
	char *db, *identity;
	prov_pkgindex_build_fn build;
	void *data;
	/* in memory */
	struct ix_pkg *pkgs;
	size_t npkgs, pkgs_alloc;
	char **files;
	size_t *file_pkg;
	size_t nfiles, files_alloc, fpkg_alloc;
	size_t *slots;	/* open addressing: file index + 1, 0 = empty */
	size_t nslots;
};




static void ix_rehash(struct prov_pkgindex *ix)
{
	size_t i, n = ix->nslots ? ix->nslots * 2 : 1024;

	free(ix->slots);
	ix->slots = prov_xcalloc(n, sizeof(*ix->slots));
	ix->nslots = n;
	for (i = 0; i < ix->nfiles; i++) {
		size_t s = prov_hash_str(ix->files[i]) & (n - 1);

		while (ix->slots[s])
			s = (s + 1) & (n - 1);
		ix->slots[s] = i + 1;
	}
}

size_t prov_pkgindex_add_pkg(struct prov_pkgindex *ix, const struct prov_origin *o, int shlib)
{
	struct prov_origin *d = prov_origin_dup(o);
	struct ix_pkg *p;

	PROV_ALLOC_GROW(ix->pkgs, ix->npkgs + 1, ix->pkgs_alloc);
	p = &ix->pkgs[ix->npkgs];
	p->o = *d;
	free(d);
	p->shlib = shlib;
	return ix->npkgs++;
}

void prov_pkgindex_set_shlib(struct prov_pkgindex *ix, size_t pkg)
{
	if (pkg < ix->npkgs)
		ix->pkgs[pkg].shlib = 1;
}

void prov_pkgindex_add_file(struct prov_pkgindex *ix, size_t pkg, const char *path)
{
	size_t s;

	if (pkg >= ix->npkgs)
		return;
	/*
	 * A path repeated (200k times in one .list, or in many packages) would
	 * make one probe cluster and the index quadratic. A lookup excludes at
	 * most one package name, so two owners with different names answer
	 * every lookup: the first, and the first named otherwise. Later ones
	 * are dropped here, so each path holds at most two slots.
	 */
	if (ix->nslots) {
		const char *name = ix->pkgs[pkg].o.name;
		size_t owners = 0;

		for (s = prov_hash_str(path) & (ix->nslots - 1); ix->slots[s];
		     s = (s + 1) & (ix->nslots - 1)) {
			size_t f = ix->slots[s] - 1;
			const char *other;

			if (strcmp(ix->files[f], path) != 0)
				continue;
			other = ix->pkgs[ix->file_pkg[f]].o.name;
			if (ix->file_pkg[f] == pkg || ++owners >= 2 ||
			    (name && other && strcmp(name, other) == 0) || (!name && !other))
				return;
		}
	}
	PROV_ALLOC_GROW(ix->files, ix->nfiles + 1, ix->files_alloc);
	PROV_ALLOC_GROW(ix->file_pkg, ix->nfiles + 1, ix->fpkg_alloc);
	ix->files[ix->nfiles] = prov_xstrdup(path);
	ix->file_pkg[ix->nfiles] = pkg;
	ix->nfiles++;
	if (ix->nfiles * 2 > ix->nslots) {
		ix_rehash(ix);
		return;
	}
	s = prov_hash_str(path) & (ix->nslots - 1);
	while (ix->slots[s])
		s = (s + 1) & (ix->nslots - 1);
	ix->slots[s] = ix->nfiles;
}

static void ix_release_mem(struct prov_pkgindex *ix)
{
	size_t i;

	for (i = 0; i < ix->npkgs; i++)
		prov_origin_release(&ix->pkgs[i].o);
	for (i = 0; i < ix->nfiles; i++)
		free(ix->files[i]);
	free(ix->pkgs);
	free(ix->files);
	free(ix->file_pkg);
	free(ix->slots);
	ix->pkgs = NULL;
	ix->files = NULL;
	ix->file_pkg = NULL;
	ix->slots = NULL;
	ix->npkgs = ix->nfiles = ix->nslots = 0;
	ix->pkgs_alloc = ix->files_alloc = ix->fpkg_alloc = 0;
}

void prov_pkgindex_free(struct prov_pkgindex *ix)
{
	if (!ix)
		return;
	ix_release_mem(ix);
	free(ix->kind);
	free(ix->memo);
	free(ix->db);
	free(ix->identity);
	free(ix);
}

/* The index from the cache when it holds it with this identity, else built (and stored). */
static int ix_load(struct prov_pkgindex *ix)
{
	char *rootkey = prov_root_key(ix->ctx->sysroot);
	int err;

	ix->deferred = 0;
	if (ix->cache && ix->identity &&
	    prov_cache_index_find(&ix->cache_id, ix->cache, ix->kind, rootkey, ix->db, ix->identity) == 0) {
		ix->cached = 1;
		ix->stored = 1;
		goto done;
	}
	if ((err = ix->build(ix, ix->data)) < 0) {
		free(rootkey);
		return err;
	}
	if (ix->cache && ix->identity) {
		struct prov_cache_pkg *cp = prov_xcalloc(ix->npkgs + 1, sizeof(*cp));
		size_t i;

		for (i = 0; i < ix->npkgs; i++) {
			const struct prov_origin *o = &ix->pkgs[i].o;

			cp[i].name = o->name;
			cp[i].version = o->version;
			cp[i].source = o->source;
			cp[i].source_version = o->source_version;
			cp[i].arch = o->arch;
			cp[i].vcs_url = o->vcs_url;
			cp[i].commit = o->commit;
			cp[i].branch = o->branch;
			cp[i].evidence = o->evidence;
			cp[i].shlib = ix->pkgs[i].shlib;
		}
		/* a cache that cannot be written only costs time: warn and go on */
		if (prov_cache_index_write(&ix->cache_id, ix->cache, ix->kind, rootkey, ix->db,
					   ix->identity, cp, ix->npkgs, ix->files, ix->file_pkg,
					   ix->nfiles) < 0)
			prov_warn("%s", prov_error_last());
		else
			ix->stored = ix->cache_id > 0;
		free(cp);
	}
done:
	free(rootkey);
	return 0;
}

/* the memo's key parts are separated by the ASCII unit separator (a path may hold a tab) */
#define MEMO_SEP "\x1f"

/* memo key: prefix + rest (NULL when a part holds the separator, a tab or a newline) */
static char *memo_key(const struct prov_pkgindex *ix, const char *what, const char *a,
		      const char *b)
{
	if (!ix->memo || strpbrk(a, MEMO_SEP "\t\n") || (b && strpbrk(b, MEMO_SEP "\t\n")))
		return NULL;
	return prov_xasprintf("%s" MEMO_SEP "%s" MEMO_SEP "%s" MEMO_SEP "%s", ix->memo, what, a, b ? b : "");
}

int prov_pkgindex_open(struct prov_pkgindex **out, const struct prov_resolve_ctx *ctx,
		       const char *kind, const char *db, const char *identity,
		       prov_pkgindex_build_fn build, void *data)
{
	struct prov_pkgindex *ix = prov_xcalloc(1, sizeof(*ix));
	char *key = NULL, *v = NULL;
	int err;

	ix->kind = prov_xstrdup(kind);
	ix->cache = ctx->cache;
	ix->ctx = ctx;
	ix->db = prov_xstrdup(db);
	ix->identity = prov_xstrdup_or_null(identity);
	ix->build = build;
	ix->data = data;
	if (ix->cache && identity) {
		char *rootkey = prov_root_key(ctx->sysroot);
		const char *bad = MEMO_SEP "\t\n";

		if (!strpbrk(kind, bad) && !strpbrk(rootkey, bad) && !strpbrk(db, bad) &&
		    !strpbrk(identity, bad))
			ix->memo = prov_xasprintf("pkgindex" MEMO_SEP "%s" MEMO_SEP "%s" MEMO_SEP "%s"
						  MEMO_SEP "%s", kind, rootkey, db, identity);
		free(rootkey);
		key = memo_key(ix, "ready", "", NULL);
	}
	/* the memo says an earlier run had this very index in the cache: open it only when asked */
	if (key && prov_cache_memo_get(&v, ix->cache, key) == 0) {
		ix->deferred = 1;
		goto done;
	}
	if ((err = ix_load(ix)) < 0) {
		free(key);
		prov_pkgindex_free(ix);
		return err;
	}
	if (key && ix->stored)
		prov_cache_memo_put(ix->cache, key, "1");
done:
	free(key);
	free(v);
	*out = ix;
	return 0;
}

/* A deferred index, opened now; its error said once. */
static int ix_open_now(struct prov_pkgindex *ix)
{
	int err;

	if (ix->failed)
		return PROV_ENOTFOUND;
	if (!ix->deferred)
		return 0;
	if ((err = ix_load(ix)) < 0) {
		ix->failed = 1;
		prov_warn("%s: %s", ix->kind, prov_error_last());
		return PROV_ENOTFOUND;
	}
	return 0;
}

/*
 * An answer as the memo keeps it: "-" none, else "o" and, for kind, name,
 * version, source, source_version, arch, vcs_url, commit, branch and
 * evidence, a tab and "-" (none) or "=" and the text. NULL: not memoizable.
 */
static char *memo_encode(const struct prov_origin *o)
{
	const char *f[10];
	struct prov_buf b = PROV_BUF_INIT;
	size_t i;

	if (!o)
		return prov_xstrdup("-");
	f[0] = o->kind, f[1] = o->name, f[2] = o->version, f[3] = o->source;
	f[4] = o->source_version, f[5] = o->arch, f[6] = o->vcs_url, f[7] = o->commit;
	f[8] = o->branch, f[9] = o->evidence;
	prov_buf_putc(&b, 'o');
	for (i = 0; i < 10; i++) {
		if (f[i] && strpbrk(f[i], "\t\n")) {
			prov_buf_release(&b);
			return NULL;
		}
		prov_buf_printf(&b, "\t%s%s", f[i] ? "=" : "-", f[i] ? f[i] : "");
	}
	return prov_buf_detach(&b);
}

/* 0 and *out (NULL: the memo says no package owns it), or -1: not a memo answer */
static int memo_decode(struct prov_origin **out, const char *v)
{
	char *f[10] = { NULL };
	const char *p = v + 1;
	size_t i;

	*out = NULL;
	if (!strcmp(v, "-"))
		return 0;
	if (v[0] != 'o')
		return -1;
	for (i = 0; i < 10; i++) {
		const char *end;

		if (*p != '\t' || (p[1] != '-' && p[1] != '='))
			goto bad;
		end = strchr(p + 1, '\t');
		if (!end)
			end = p + strlen(p);
		if (p[1] == '-' && end != p + 2)
			goto bad;
		if (p[1] == '=')
			f[i] = prov_xstrndup(p + 2, (size_t)(end - p - 2));
		p = end;
	}
	if (*p || !f[0])
		goto bad;
	*out = prov_xcalloc(1, sizeof(**out));
	(*out)->kind = f[0], (*out)->name = f[1], (*out)->version = f[2], (*out)->source = f[3];
	(*out)->source_version = f[4], (*out)->arch = f[5], (*out)->vcs_url = prov_url_strip_userinfo(f[6]);
	(*out)->commit = f[7], (*out)->branch = f[8], (*out)->evidence = f[9];
	return 0;
bad:
	for (i = 0; i < 10; i++)
		free(f[i]);
	return -1;
}

/* The lookup in the cache: 0, PROV_ENOTFOUND, or 1 when the cache failed (warned; not an answer to keep). */
static int cache_lookup(struct prov_origin **out, struct prov_pkgindex *ix, const char *path,
			const char *exclude)
{
	size_t pk[16], n, i;
	int err;

	/* a damaged cache costs this lookup, not the run: it is checked and
	 * set aside when the cache is closed, and rebuilt by the next run */
	if ((err = prov_cache_index_lookup(pk, &n, 16, ix->cache, ix->cache_id, path)) < 0) {
		prov_warn("%s", prov_error_last());
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct prov_origin *o = NULL;

		if ((err = prov_cache_index_pkg(&o, ix->cache, ix->cache_id, pk[i])) < 0) {
			prov_warn("%s", prov_error_last());
			return 1;
		}
		if (exclude && o->name && strcmp(o->name, exclude) == 0) {
			prov_origin_free(o);
			continue;
		}
		*out = o;
		return 0;
	}
	return PROV_ENOTFOUND;
}

int prov_pkgindex_lookup(struct prov_origin **out, struct prov_pkgindex *ix,
			 const char *path, const char *exclude)
{
	char *key = memo_key(ix, "file", path, exclude), *v = NULL;
	int err;

	if (key && prov_cache_memo_get(&v, ix->cache, key) == 0) {
		struct prov_origin *o = NULL;

		err = memo_decode(&o, v);
		free(v);
		v = NULL;
		if (err == 0) {
			free(key);
			if (!o)
				return PROV_ENOTFOUND;
			*out = o;
			return 0;
		}
	}
	if ((err = ix_open_now(ix)) < 0)
		goto cleanup;
	if (ix->cached) {
		struct prov_origin *o = NULL;

		err = cache_lookup(&o, ix, path, exclude);
		if (err == 1) {
			err = PROV_ENOTFOUND;
			goto cleanup;
		}
		if (key && (v = memo_encode(err == 0 ? o : NULL)))
			prov_cache_memo_put(ix->cache, key, v);
		if (err == 0)
			*out = o;
		goto cleanup;
	}
	err = PROV_ENOTFOUND;
	if (ix->nslots) {
		size_t s = prov_hash_str(path) & (ix->nslots - 1);
		size_t best = (size_t)-1;

		/* first inserted owner wins: collect the smallest matching file index */
		for (; ix->slots[s]; s = (s + 1) & (ix->nslots - 1)) {
			size_t f = ix->slots[s] - 1;
			const struct prov_origin *o = &ix->pkgs[ix->file_pkg[f]].o;

			if (strcmp(ix->files[f], path) != 0)
				continue;
			if (exclude && o->name && strcmp(o->name, exclude) == 0)
				continue;
			if (f < best)
				best = f;
		}
		if (best != (size_t)-1) {
			*out = prov_origin_dup(&ix->pkgs[ix->file_pkg[best]].o);
			if (!(*out)->kind)
				(*out)->kind = prov_xstrdup(ix->kind);
			err = 0;
		}
	}
	/* what the index just written answers, as the cache's copy will */
	if (key && ix->stored && (v = memo_encode(err == 0 ? *out : NULL)))
		prov_cache_memo_put(ix->cache, key, v);
cleanup:
	free(key);
	free(v);
	return err;
}

static int add_copy(const struct prov_origin *o, int shlib, void *data)
{
	prov_origin_list_add(data, prov_origin_dup(o));
	return 0;
}

int prov_pkgindex_packages(struct prov_pkgindex *ix, int shlib_only, struct prov_origin_list *l)
{
	size_t i;

	if (ix_open_now(ix) < 0)
		return 0;
	if (ix->cached)
		return prov_cache_index_foreach_pkg(ix->cache, ix->cache_id, shlib_only, add_copy, l);
	for (i = 0; i < ix->npkgs; i++) {
		struct prov_origin *o;

		if (shlib_only && !ix->pkgs[i].shlib)
			continue;
		o = prov_origin_dup(&ix->pkgs[i].o);
		if (!o->kind)
			o->kind = prov_xstrdup(ix->kind);
		prov_origin_list_add(l, o);
	}
	return 0;
}
