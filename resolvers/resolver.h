#ifndef PROV_RESOLVER_H
#define PROV_RESOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "buf.h"

struct prov_cache;

/*
 * Resolvers: module -> the package that installed it. One small interface,
 * one registry table in priority order (elf-note, dpkg, rpm, pip, conda,
 * rocm, git, path); the first resolver that claims a module wins.
 *
 * Everything a resolver reads is looked up under ctx->sysroot through
 * prov_root_open(): "..", absolute symlinks and magic links inside the root
 * cannot lead outside it. Module paths are taken as the crash recorded them
 * (text backtraces give paths only: no ranges, no build IDs).
 */
struct prov_resolve_ctx {
	const char *sysroot;	/* NULL or "/" = host */
	struct prov_cache *cache;	/* may be NULL: no cache */
	/* NULL: every module; else only modules for which it returns 1 */
	int (*want)(const struct prov_module *m, void *data);
	void *want_data;
};

/*
 * For every module of c without an origin: run the chain; set module->origin
 * (kind, name, version, source, source_version, arch, vcs_url, commit,
 * branch, found_by, evidence, guess). Unclaimed modules stay NULL (best
 * effort). Returns 0, or a real error (not PASSTHROUGH/NOTFOUND).
 */
int prov_resolve_modules(struct prov_crash *c, const struct prov_resolve_ctx *ctx);

/*
 * The inventory for `env`: every component the resolvers can see (pip
 * distributions, dpkg/rpm packages shipping shared libraries, conda
 * packages, ROCm/CUDA trees, git working trees under /opt, /workspace, /src),
 * sorted by name (then kind, version). *out is an array of *nout owned
 * origins (free each with prov_origin_free, then the array). 0 or an error;
 * nothing is written to *out on failure.
 */
int prov_inventory(struct prov_origin ***out, size_t *nout, const struct prov_resolve_ctx *ctx);

/*
 * The GNU build ID (lower-case hex) of the ELF file `path` under root:
 * 0 and *out (caller frees), PROV_ENOTFOUND when the file is missing, not
 * ELF, or has none.
 */
int prov_root_build_id(char **out, const char *root, const char *path);

/*
 * A bare library name ("libc.so.6", as eu-stack and some backtraces print
 * it): the path of the first regular file of that name in the root's
 * library directories, or NULL. Caller frees.
 */
char *prov_root_find_lib(const char *root, const char *name);

/* ---- for resolver authors ---- */

/* The base of every resolver instance (put it first in the private struct). */
struct prov_resolver {
	const struct prov_resolver_ops *ops;
	const struct prov_resolve_ctx *ctx;
};

/* A growable list of owned origins. */
struct prov_origin_list {
	struct prov_origin **v;
	size_t n, alloc;
};
/* Takes ownership of o. */
void prov_origin_list_add(struct prov_origin_list *l, struct prov_origin *o);
void prov_origin_list_release(struct prov_origin_list *l);

#define PROV_RESOLVER_VERSION 1

struct prov_resolver_ops {
	unsigned int version;	/* PROV_RESOLVER_VERSION */
	const char *name;	/* "dpkg": also origin->found_by */
	/* Set up; may decline the whole root with PROV_EPASSTHROUGH (no database). */
	int (*init)(struct prov_resolver **out, const struct prov_resolve_ctx *ctx);
	/*
	 * Fill *out (zeroed by the caller; the chain sets found_by when unset)
	 * for mod: 0 claimed, PROV_EPASSTHROUGH / PROV_ENOTFOUND declined,
	 * anything else stops the chain. On decline *out must be left empty.
	 */
	int (*resolve)(struct prov_origin *out, struct prov_resolver *r,
		       const struct prov_module *mod);
	/* Optional: add what this resolver sees to l (env). */
	int (*inventory)(struct prov_resolver *r, struct prov_origin_list *l);
	void (*free)(struct prov_resolver *r);
};

extern const struct prov_resolver_ops prov_resolver_elf_note, prov_resolver_dpkg,
	prov_resolver_rpm, prov_resolver_pip, prov_resolver_conda, prov_resolver_rocm,
	prov_resolver_git, prov_resolver_path,
	prov_resolver_python;

/* The registry: NULL-terminated, in priority order. */
extern const struct prov_resolver_ops *const prov_resolvers[];

/* prov_resolve_modules / prov_inventory with another chain (tests). */
int prov_resolve_modules_chain(struct prov_crash *c, const struct prov_resolve_ctx *ctx,
			       const struct prov_resolver_ops *const *chain);
int prov_inventory_chain(struct prov_origin ***out, size_t *nout,
			 const struct prov_resolve_ctx *ctx,
			 const struct prov_resolver_ops *const *chain);

/* A fresh origin with kind set; other fields NULL. */
struct prov_origin *prov_origin_new(const char *kind);

/* ---- Debian versions ---- */

/*
 * Split a Debian version "[epoch:]upstream[-revision]": epoch (0 when
 * absent), upstream, revision (after the LAST '-', NULL when none), and the
 * build suffix of the revision (after '~' or '+', e.g. "24.04" of "43~24.04";
 * NULL when none). Caller frees with prov_debver_release. PROV_EINPUT for an
 * empty version or a bad epoch.
 */
struct prov_debver {
	unsigned long epoch;
	char *upstream;
	char *revision;
	char *build;
};
int prov_debver_split(struct prov_debver *out, const char *version);
void prov_debver_release(struct prov_debver *v);

/* ---- files under the root ---- */

/* Read `path` under root (prov_root_open) into out, at most cap bytes. PROV_ENOTFOUND when it does not exist, PROV_ELIMIT when larger, PROV_EINPUT when unreadable. */
int prov_root_read(struct prov_buf *out, const char *root, const char *path, size_t cap);

/*
 * Resolve symlinks of `path` as seen inside root (absolute links re-rooted,
 * ".." clamped at the root, at most 40 links). Returns the resolved absolute
 * path (caller frees); components that do not exist are kept as written.
 */
char *prov_root_realpath(const char *root, const char *path);

/* Identity of a file under root: "size:mtime_ns:ino", or NULL when missing. Caller frees. */
char *prov_root_identity(const char *root, const char *path);

/*
 * Canonical form of a packaged path for index keys: normalised, and when
 * `merged` (the root's /lib resolves to /usr/lib) /bin /sbin /lib* moved
 * under /usr. Caller frees.
 */
char *prov_pkgpath_canon(const char *path, int merged);
/* 1 when the root has a merged /usr (/lib resolves to /usr/lib inside it). */
int prov_root_merged_usr(const char *root);

/*
 * Names in directory `path` under root, sorted (at most 100000). 0 with
 * *out (free with prov_strv_free), PROV_ENOTFOUND when not a directory.
 */
int prov_root_listdir(char ***out, size_t *nout, const char *root, const char *path);
void prov_strv_free(char **v, size_t n);
/* 1 when `path` under root is a directory. */
int prov_root_isdir(const char *root, const char *path);
/* 1 when s[0..len) is a full lower-case hex object id (40 or 64). */
int prov_is_hex_commit(const char *s, size_t len);

/* The root as a cache key: the absolute normalised sysroot, "/" for the host. Caller frees. */
char *prov_root_key(const char *root);

/* ---- file -> package indexes (cached in cache/ when a cache is given) ---- */

struct prov_pkgindex;

/*
 * Builder: add packages and files with prov_pkgindex_add_*; 0 or an error.
 */
typedef int (*prov_pkgindex_build_fn)(struct prov_pkgindex *ix, void *data);

/*
 * Open the index of one package database: from the cache when it holds one
 * with the same identity, else built by `build` (and stored in the cache).
 * kind is the origin kind; db the database's path under the root.
 */
int prov_pkgindex_open(struct prov_pkgindex **out, const struct prov_resolve_ctx *ctx,
		       const char *kind, const char *db, const char *identity,
		       prov_pkgindex_build_fn build, void *data);
void prov_pkgindex_free(struct prov_pkgindex *ix);	/* NULL-safe */

/* Add a package (strings copied); *out its number. */
size_t prov_pkgindex_add_pkg(struct prov_pkgindex *ix, const struct prov_origin *o, int shlib);
/* Mark package `pkg` as shipping a shared library. */
void prov_pkgindex_set_shlib(struct prov_pkgindex *ix, size_t pkg);
/* Add a file (path copied as given: canonicalise first). */
void prov_pkgindex_add_file(struct prov_pkgindex *ix, size_t pkg, const char *path);

/*
 * The package owning `path` (exact key), skipping packages named
 * `exclude` (NULL: none). 0 and a new origin, PROV_ENOTFOUND, or an error.
 */
int prov_pkgindex_lookup(struct prov_origin **out, struct prov_pkgindex *ix,
			 const char *path, const char *exclude);
/* Add a copy of every package (shlib_only: those with a shared library) to l. */
int prov_pkgindex_packages(struct prov_pkgindex *ix, int shlib_only, struct prov_origin_list *l);

/* 1 when a path names a shared library ("*.so" or "*.so.*"). */
int prov_is_shlib_path(const char *path);

/* Line reader over a buffer: next line [*line, *len) without the newline; 0 at the end. */
int prov_next_line(const char **line, size_t *len, const char **pos, const char *end);

/* ---- rpm headers (rpmdb.sqlite Packages.blob: a header without its magic) ---- */

struct prov_rpm_header {
	char *name, *version, *release, *arch, *sourcerpm;
	char *url, *vcs;	/* the URL and VCS tags (untrusted; NULL when absent) */
	int has_epoch;
	uint32_t epoch;
	char **files;	/* dirnames[dirindexes[i]] + basenames[i] */
	size_t nfiles;
};

#define PROV_RPM_MAX_ENTRIES 65536
#define PROV_RPM_MAX_FILES 1000000

/*
 * Parse one header blob; every count and offset is checked against the blob.
 * 0 and *out filled (release with prov_rpm_header_release); PROV_EINPUT for
 * a malformed blob (message says what), PROV_ELIMIT past the caps.
 */
int prov_rpm_header_parse(struct prov_rpm_header *out, const unsigned char *blob, size_t len);
void prov_rpm_header_release(struct prov_rpm_header *h);

/* ---- pip ---- */

/*
 * RECORD lines ("path,hash,size", CSV with optional quotes): call fn with each
 * path (as written, relative to site-packages). Lines longer than 4096 bytes
 * or holding NUL bytes are skipped and counted in *nbad.
 */
int prov_pip_record_foreach(const char *text, size_t len, size_t *nbad,
			    int (*fn)(const char *path, void *data), void *data);
/* METADATA / PKG-INFO headers: Name and Version (first occurrence, before the body). Caller frees; NULL when absent. */
void prov_pip_metadata(char **name, char **version, const char *text, size_t len);

/*
 * Python packages: the site-packages (or dist-packages) directory that is an
 * ancestor of path (normalised), or NULL; *rel is the rest of the path.
 * prov_py_embedded_commit: a quoted 40-hex commit in <site>/<top>/version.py
 * (torch's git_version), commit_info.py or _version.py (numpy's versioneer
 * "full-revisionid"), 1 MiB read each; *evidence names the file. Caller frees.
 * prov_py_add_commit sets o->commit (and o->evidence) from it, whatever
 * resolver claimed the file, when o has no commit yet.
 */
/* ---- upstream repositories derived from a package's metadata (upstream.c) ---- */

/*
 * A repository URL from one untrusted token (s[0..n)), normalised, or NULL
 * when it does not look like a repository: https/http/git(+) schemes only,
 * no credentials, ports, escapes or "..", at most 512 bytes. Known forges
 * (github.com, gitlab.com and other GitLabs, codeberg, bitbucket ...) give
 * https://HOST/OWNER/NAME.git (pages such as /tree/x, /-/issues dropped);
 * another host only a path ending in .git or a git.* / anongit.* host.
 */
char *prov_repo_url_from(const char *s, size_t n);
/* DEP-5 copyright header: the first repository in Source:, else in Upstream-Contact:
 * (only when the file has a Format: line). Caller frees; NULL when none. */
char *prov_dep5_upstream(const char *text, size_t len);
/* METADATA / PKG-INFO: Project-URL (Source, Repository, Code ... first, then
 * Homepage) or Home-page that is a repository. Caller frees; NULL when none. */
char *prov_pip_upstream(const char *text, size_t len);
/* conda info/about.json: dev_url, home, doc_source_url, doc_url. Caller frees. */
char *prov_conda_upstream(const char *text, size_t len);
/*
 * Set o->upstream_url / upstream_by ("derived:dep5-source",
 * "derived:pip-project-url", "derived:conda-about", "derived:rpm-url",
 * "derived:direct-url", "derived:git-remote") / upstream_evidence from the
 * package's own files under root (64 KiB of a copyright or METADATA file,
 * 1 MiB of about.json). Nothing when none says.
 */
void prov_upstream_derive(struct prov_origin *o, const char *root);

char *prov_py_site_of(const char *path, const char **rel);
char *prov_py_embedded_commit(const char *root, const char *site, const char *top, char **evidence);
void prov_py_add_commit(struct prov_origin *o, const char *root, const char *site, const char *top);

/*
 * The nearest ancestor directory of `path` (absolute, normalised; "/" itself
 * excluded, at most 64 levels up) for which test(root, dir, data) holds, or
 * NULL; caller frees. Answers are memoized per directory in *memo (created
 * on first use, freed with prov_dirmemo_free), so 30k modules deep in one
 * tree cost one test per directory, not one per module and ancestor. The
 * memo keeps at most PROV_DIRMEMO_MAX_BYTES of keys; beyond, it stops
 * remembering (answers stay right).
 */
#define PROV_DIRMEMO_MAX_BYTES ((size_t)64 << 20)
struct prov_dirmemo;
char *prov_nearest_ancestor(struct prov_dirmemo **memo, const char *root, const char *path,
			    int (*test)(const char *root, const char *dir, void *data), void *data);
void prov_dirmemo_free(struct prov_dirmemo *m);

#endif
