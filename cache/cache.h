#ifndef PROV_CACHE_H
#define PROV_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/*
 * The on-disk cache: <dir>/cache.sqlite. The only code that talks to SQLite;
 * no SQLite type leaves cache.c.
 *
 * What it keeps: file -> package indexes (dpkg, rpm, pip, conda), each keyed
 * by (kind, root, database path) and stamped with the database's identity
 * (a string the resolver makes from size, mtime_ns and inode); an index whose
 * identity changed is rebuilt. Every write is one transaction, so a killed
 * run leaves the previous consistent state. WAL mode and a busy timeout let
 * two runs share one cache. A corrupt or foreign file is renamed aside
 * (cache.sqlite.corrupt-<time>) with a warning and rebuilt, never trusted.
 */
struct prov_cache;

#define PROV_CACHE_SCHEMA 1

/*
 * Open (create, 0700 directory) the cache in `dir`. 0 and *out, or an error
 * with the message set (the directory cannot be made, SQLite fails twice).
 */
int prov_cache_open(struct prov_cache **out, const char *dir);
/*
 * The same, but SQLite is opened only when a function below first needs it
 * (a run whose answers all come from the memo never opens it). When it then
 * cannot be opened, that is said once ("cache unavailable, continuing
 * without it") and the functions answer as an empty cache that keeps
 * nothing. A missing cache.sqlite, or something other than a regular file
 * there, is opened (or set aside) at once, as prov_cache_open does.
 */
int prov_cache_open_lazy(struct prov_cache **out, const char *dir);
void prov_cache_free(struct prov_cache *c);	/* NULL-safe; writes the memo's new answers */

/*
 * The memo (<dir>/cache.memo): short answers a run read from cache.sqlite
 * (which package owns a path in an index of a given identity), so that the
 * next run need not open SQLite at all. It holds only while cache.sqlite is
 * the file it was written beside (size, mtime, inode): a rebuilt, set-aside
 * or since-written database drops every answer. A key must name everything
 * its answer depends on (index kind, root, database and its identity, the
 * question); keys hold no tab or newline, values no newline.
 * get: 0 and *out (caller frees), or PROV_ENOTFOUND. put: kept in memory,
 * written by prov_cache_free (a temporary renamed over: a concurrent run
 * reads the old memo or the new one); the newest 4,096 answers, 1 MiB.
 */
int prov_cache_memo_get(char **out, struct prov_cache *c, const char *key);
void prov_cache_memo_put(struct prov_cache *c, const char *key, const char *value);

/* One package of an index; strings may be NULL. */
struct prov_cache_pkg {
	const char *name, *version, *source, *source_version, *arch;
	const char *vcs_url, *commit, *branch, *evidence;
	int shlib;	/* ships a shared library */
};

/* The id of the index (kind, root, db) if its stored identity equals `identity`; else PROV_ENOTFOUND. */
int prov_cache_index_find(int64_t *out, struct prov_cache *c, const char *kind,
			  const char *root, const char *db, const char *identity);

/*
 * Replace the index (kind, root, db) in one transaction: packages
 * numbered 0..npkgs-1, files[i] owned by package file_pkg[i]. 0 and the new
 * id in *out, or an error (the old index is kept then).
 */
int prov_cache_index_write(int64_t *out, struct prov_cache *c, const char *kind,
			   const char *root, const char *db, const char *identity,
			   const struct prov_cache_pkg *pkgs, size_t npkgs,
			   char *const *files, const size_t *file_pkg, size_t nfiles);

/*
 * Package numbers owning `path` in index `id` (at most `max`, in insertion
 * order): 0 with *nout (0 when none), or an error.
 */
int prov_cache_index_lookup(size_t *out, size_t *nout, size_t max, struct prov_cache *c,
			    int64_t id, const char *path);

/*
 * Package `no` of index `id` as a new origin (kind = the index's kind,
 * found_by unset); PROV_ENOTFOUND when absent.
 */
int prov_cache_index_pkg(struct prov_origin **out, struct prov_cache *c, int64_t id, size_t no);

/* Call fn for every package (only those shipping a shared library when shlib_only). Stops on non-zero and returns it. */
int prov_cache_index_foreach_pkg(struct prov_cache *c, int64_t id, int shlib_only,
				 int (*fn)(const struct prov_origin *o, int shlib, void *data),
				 void *data);

struct prov_cache_stats {
	uint64_t db_size;	/* bytes, with -wal */
	uint64_t nindexes, npackages, nfiles, nresolutions;
};
int prov_cache_stats(struct prov_cache_stats *out, struct prov_cache *c);

/* Cached resolution of a build ID under a root (kind of the origin etc.). */
int prov_cache_resolution_get(struct prov_origin **out, struct prov_cache *c,
			      const char *root, const char *build_id);	/* PROV_ENOTFOUND */
int prov_cache_resolution_put(struct prov_cache *c, const char *root, const char *build_id,
			      const struct prov_origin *o);

/*
 * Suspects (src/sources/suspects.c): the commits found by following crash lines
 * through history, keyed by a string naming the repository, the deployed
 * commit, the branch heads, the path and the line ranges. The table is
 * made on first use. get: 0 and *out (caller frees), PROV_ENOTFOUND, or an
 * error; put: 0 or an error.
 */
int prov_cache_suspects_get(char **out, struct prov_cache *c, const char *key);
int prov_cache_suspects_put(struct prov_cache *c, const char *key, const char *value);

/*
 * Read-only access to another SQLite database (rpm's rpmdb.sqlite) by an
 * already open descriptor (from prov_root_open): call fn for every row of
 * `SELECT blob FROM <table>` whose value is a blob. Stops on non-zero and
 * returns it. `name` is for messages. PROV_EINPUT when it is not a database
 * or has no such table.
 */
int prov_cache_sqlite_blobs(int fd, const char *name, const char *table, const char *column,
			    int (*fn)(const unsigned char *blob, size_t len, void *data),
			    void *data);

/*
 * Remove cache.sqlite (and -wal, -shm) and the mirrors directory inside
 * `dir`. Refuses "/" and $HOME (PROV_EINPUT). 0 or an error.
 */
int prov_cache_clear_dir(const char *dir);

/*
 * Patch ids of commits (src/fix/backport.c), keyed by commit id: git's stable
 * patch-id and the per-file ids ("path\tid\n" lines). The table is made on
 * first use. get_many fills ids[i]/files[i] (caller frees; NULL when not
 * cached) for each of n commits with one statement; put_many writes n rows
 * in one transaction.
 */
int prov_cache_patchid_get_many(char **ids, char **files, struct prov_cache *c,
				const char *const *commits, size_t n);
int prov_cache_patchid_put_many(struct prov_cache *c, const char *const *commits,
				const char *const *ids, const char *const *files, size_t n);

/*
 * The result of searching the commits between a fix and a deployed commit
 * (immutable for two commit ids): `via` ("" when not found whole) and
 * `present` ("path\tcommit\n" lines). get: PROV_ENOTFOUND when not kept.
 */
int prov_cache_backport_get(char **via, char **present, struct prov_cache *c, const char *fix,
			    const char *deployed);
int prov_cache_backport_put(struct prov_cache *c, const char *fix, const char *deployed,
			    const char *via, const char *present);

#endif
