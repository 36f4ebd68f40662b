/* The cache (cache.sqlite): opening it, setting a damaged one aside, its tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cache.h"
#include "cachedir.h"
#include "error.h"
#include "cache-int.h"
#include "util.h"
#include "banned.h"

/* 'PROV': marks a file as ours; anything else is foreign. */
#define PROV_APP_ID 0x50524f56

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS indexes("
	" id INTEGER PRIMARY KEY, kind TEXT NOT NULL, root TEXT NOT NULL,"
	" db TEXT NOT NULL, identity TEXT NOT NULL, built INTEGER,"
	" UNIQUE(kind, root, db));"
	"CREATE TABLE IF NOT EXISTS packages("
	" index_id INTEGER NOT NULL, no INTEGER NOT NULL, name TEXT, version TEXT,"
	" source TEXT, source_version TEXT, arch TEXT, vcs_url TEXT, vcs_commit TEXT,"
	" branch TEXT, evidence TEXT, shlib INTEGER, PRIMARY KEY(index_id, no));"
	"CREATE TABLE IF NOT EXISTS files("
	" index_id INTEGER NOT NULL, path TEXT NOT NULL, pkg INTEGER NOT NULL);"
	"CREATE INDEX IF NOT EXISTS files_path ON files(index_id, path);"
	"CREATE TABLE IF NOT EXISTS resolutions("
	" root TEXT NOT NULL, build_id TEXT NOT NULL, kind TEXT, name TEXT, version TEXT,"
	" source TEXT, source_version TEXT, arch TEXT, vcs_url TEXT, vcs_commit TEXT,"
	" branch TEXT, found_by TEXT, evidence TEXT, guess INTEGER,"
	" PRIMARY KEY(root, build_id));";

/*
 * Open and check: 0 ready, 1 not ours or corrupt (caller sets it aside),
 * <0 a real error (cannot open at all, busy for too long).
 */
static int try_open(sqlite3 **out, const char *path)
{
	struct prov_sqlite_identity id = { 0 };
	sqlite3 *db = NULL;
	int rc, err;

	/* NOFOLLOW: a symlink planted as cache.sqlite is refused (and set aside) */
	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			     SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		err = prov_sql_error(db, "cache", "cannot open the database");
		sqlite3_close(db);
		return rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? 1 : err;
	}
	sqlite3_busy_timeout(db, 15000);
	sqlite3_extended_result_codes(db, 0);
	if (prov_sqlite_identity_read(&id, db, "cache") < 0) {
		rc = sqlite3_errcode(db);
		prov_sql_take_corrupt(db);
		sqlite3_close(db);
		if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
			return 1;
		return PROV_ERROR;
	}
	if (id.ntables == 0 && id.appid == 0 && id.version == 0) {
		/* new: create under a write lock so two first runs do not race */
		if ((err = prov_sql_exec(db, "cache", "PRAGMA journal_mode=WAL")) < 0 ||
		    (err = prov_sql_exec(db, "cache", "BEGIN IMMEDIATE")) < 0)
			goto fail;
		if ((err = prov_sql_one_int(&id.ntables, db, "cache",
					    "SELECT count(*) FROM sqlite_master")) < 0)
			goto fail;
		if (id.ntables == 0) {
			if ((err = prov_sql_exec(db, "cache", schema_sql)) < 0 ||
			    (err = prov_sql_exec(db, "cache", "PRAGMA application_id=1347571542;"
						 "PRAGMA user_version=1")) < 0)
				goto fail;
		}
		if ((err = prov_sql_exec(db, "cache", "COMMIT")) < 0 ||
		    (err = prov_sqlite_identity_read(&id, db, "cache")) < 0)
			goto fail;
	}
	if (id.appid != PROV_APP_ID || id.version != PROV_CACHE_SCHEMA) {
		sqlite3_close(db);
		return 1;
	}
	if ((err = prov_sql_exec(db, "cache", "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")) < 0)
		goto fail;
	*out = db;
	return 0;
fail:
	rc = sqlite3_errcode(db);
	prov_sql_take_corrupt(db);
	sqlite3_close(db);
	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
		return 1;
	return err;
}

/*
 * cache.sqlite and its -wal/-shm must be regular files this user owns (or
 * absent): a symlink would make SQLite write where it points, a FIFO would
 * hang. 1 when something else sits there (the caller sets it aside).
 */
static int foreign_files(const char *path)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	struct stat st;
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		char *p = prov_xasprintf("%s%s", path, suffix[i]);

		if (lstat(p, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
			if (i == 0)
				bad = 1;
			else if (unlink(p) < 0)	/* a side file is ours to remove, never to follow */
				bad = 1;
		}
		free(p);
	}
	return bad;
}

/* PRAGMA quick_check: 1 when the database is damaged */
static int damaged(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int bad = 1;

	if (sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *r = sqlite3_column_text(st, 0);

		bad = !r || strcmp((const char *)r, "ok") != 0;
	}
	sqlite3_finalize(st);
	return bad;
}

static void set_aside(const char *path)
{
	char *aside = prov_xasprintf("%s.corrupt-%lld", path, (long long)time(NULL));
	char *wal = prov_xasprintf("%s-wal", path), *shm = prov_xasprintf("%s-shm", path);

	if (rename(path, aside) < 0)
		unlink(path);
	unlink(wal);
	unlink(shm);
	prov_warn("cache '%s' is corrupt or not ours; moved it to '%s' and starting afresh",
		  path, aside);
	free(aside);
	free(wal);
	free(shm);
}


/* SQLite's side: open and check the file, setting it aside (once) when it is not ours or corrupt. */
static int open_db(struct prov_cache *c)
{
	sqlite3 *db = NULL;
	int err = 0, attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		err = foreign_files(c->path) ? 1 : try_open(&db, c->path);
		if (err <= 0)
			break;
		set_aside(c->path);
	}
	if (err > 0)
		err = prov_error_set(PROV_ERROR, "cache '%s' cannot be rebuilt", c->path);
	if (err < 0)
		return err;
	c->db = db;
	c->state = 1;
	return 0;
}

/*
 * 1 when the database can be used (opened now if it was not yet), 0 when
 * it cannot: a lazily opened cache then says so once and the run goes on
 * without it, as an eager open's caller does.
 */
static int ready(struct prov_cache *c)
{
	if (c->state)
		return c->state > 0;
	if (open_db(c) < 0) {
		c->state = -1;
		prov_warn("cache unavailable, continuing without it: %s", prov_error_last());
		return 0;
	}
	return 1;
}

sqlite3 *prov_cache__db(struct prov_cache *c)
{
	if (!ready(c))
		return NULL;
	return c->db;
}

static int cache_new(struct prov_cache **out, const char *dir)
{
	struct prov_cache *c;
	int err;

	if ((err = prov_mkdir_p(dir, 0700, 0)) < 0)
		return err;
	prov_cachedir_mark(dir);
	c = prov_xcalloc(1, sizeof(*c));
	c->path = prov_cachedir_path(dir, PROV_CACHEDIR_DB);
	c->dir = prov_xstrdup(dir);
	*out = c;
	return 0;
}

int prov_cache_open(struct prov_cache **out, const char *dir)
{
	struct prov_cache *c = NULL;
	int err;

	if ((err = cache_new(&c, dir)) < 0)
		return err;
	if ((err = open_db(c)) < 0) {
		prov_cache_free(c);
		return err;
	}
	*out = c;
	return 0;
}

int prov_cache_open_lazy(struct prov_cache **out, const char *dir)
{
	struct prov_cache *c = NULL;
	struct stat st;
	int err;

	if ((err = cache_new(&c, dir)) < 0)
		return err;
	/* a new cache, or something else where it belongs: as an eager open */
	if ((lstat(c->path, &st) < 0 || !S_ISREG(st.st_mode)) && (err = open_db(c)) < 0) {
		prov_cache_free(c);
		return err;
	}
	*out = c;
	return 0;
}

void prov_cache_free(struct prov_cache *c)
{
	if (!c)
		return;
	sqlite3_finalize(c->st_lookup);
	sqlite3_finalize(c->st_pkg);
	if (c->db && prov_sql_take_corrupt(c->db)) {
		/* SQLite said corrupt during the run: check, and set it aside if so */
		int bad = damaged(c->db);

		sqlite3_close(c->db);
		c->db = NULL;
		if (bad) {
			set_aside(c->path);
			c->nmemo_new = 0;	/* answers from a damaged file: not kept */
		}
	}
	sqlite3_close(c->db);
	cache_memo_save(c);
	cache_memo_release(c);
	free(c->path);
	free(c->dir);
	free(c);
}

int prov_cache_index_find(int64_t *out, struct prov_cache *c, const char *kind,
			  const char *root, const char *db, const char *identity)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	if (!ready(c))
		return PROV_ENOTFOUND;
	if ((err = prov_sql_prepare(&st, c->db, "cache", "SELECT id FROM indexes WHERE kind=? AND root=? AND db=? AND identity=?")) < 0)
		return err;
	prov_sql_bind_text(st, 1, kind);
	prov_sql_bind_text(st, 2, root);
	prov_sql_bind_text(st, 3, db);
	prov_sql_bind_text(st, 4, identity);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		err = 0;
	} else if (rc == SQLITE_DONE) {
		err = PROV_ENOTFOUND;
	} else {
		err = prov_sql_error(c->db, "cache", "index lookup");
	}
	sqlite3_finalize(st);
	return err;
}

int prov_cache_index_write(int64_t *out, struct prov_cache *c, const char *kind,
			   const char *root, const char *db, const char *identity,
			   const struct prov_cache_pkg *pkgs, size_t npkgs,
			   char *const *files, const size_t *file_pkg, size_t nfiles)
{
	sqlite3_stmt *st = NULL, *del = NULL;
	int64_t id = 0;
	size_t i;
	int err;

	if (!ready(c)) {
		*out = 0;
		return 0;	/* nothing kept, as without a cache */
	}
	if ((err = prov_sql_exec(c->db, "cache", "BEGIN IMMEDIATE")) < 0)
		return err;
	/* drop the old index of this database, if any */
	if ((err = prov_sql_prepare(&del, c->db, "cache", "SELECT id FROM indexes WHERE kind=? AND root=? AND db=?")) < 0)
		goto cleanup;
	prov_sql_bind_text(del, 1, kind);
	prov_sql_bind_text(del, 2, root);
	prov_sql_bind_text(del, 3, db);
	if (sqlite3_step(del) == SQLITE_ROW) {
		int64_t old = sqlite3_column_int64(del, 0);
		const char *sqls[] = { "DELETE FROM files WHERE index_id=?",
				       "DELETE FROM packages WHERE index_id=?",
				       "DELETE FROM indexes WHERE id=?" };
		for (i = 0; i < 3; i++) {
			if ((err = prov_sql_prepare(&st, c->db, "cache", sqls[i])) < 0)
				goto cleanup;
			sqlite3_bind_int64(st, 1, old);
			if (sqlite3_step(st) != SQLITE_DONE) {
				err = prov_sql_error(c->db, "cache", "drop old index");
				goto cleanup;
			}
			sqlite3_finalize(st);
			st = NULL;
		}
	}
	sqlite3_finalize(del);
	del = NULL;

	if ((err = prov_sql_prepare(&st, c->db, "cache", "INSERT INTO indexes(kind, root, db, identity, built) VALUES(?,?,?,?,?)")) < 0)
		goto cleanup;
	prov_sql_bind_text(st, 1, kind);
	prov_sql_bind_text(st, 2, root);
	prov_sql_bind_text(st, 3, db);
	prov_sql_bind_text(st, 4, identity);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)time(NULL));
	if (sqlite3_step(st) != SQLITE_DONE) {
		err = prov_sql_error(c->db, "cache", "insert index");
		goto cleanup;
	}
	id = sqlite3_last_insert_rowid(c->db);
	sqlite3_finalize(st);
	st = NULL;

	if ((err = prov_sql_prepare(&st, c->db, "cache", "INSERT INTO packages VALUES(?,?,?,?,?,?,?,?,?,?,?,?)")) < 0)
		goto cleanup;
	for (i = 0; i < npkgs; i++) {
		const struct prov_cache_pkg *p = &pkgs[i];

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		prov_sql_bind_text(st, 3, p->name);
		prov_sql_bind_text(st, 4, p->version);
		prov_sql_bind_text(st, 5, p->source);
		prov_sql_bind_text(st, 6, p->source_version);
		prov_sql_bind_text(st, 7, p->arch);
		prov_sql_bind_text(st, 8, p->vcs_url);
		prov_sql_bind_text(st, 9, p->commit);
		prov_sql_bind_text(st, 10, p->branch);
		prov_sql_bind_text(st, 11, p->evidence);
		sqlite3_bind_int(st, 12, p->shlib);
		if (sqlite3_step(st) != SQLITE_DONE) {
			err = prov_sql_error(c->db, "cache", "insert package");
			goto cleanup;
		}
	}
	sqlite3_finalize(st);
	st = NULL;

	if ((err = prov_sql_prepare(&st, c->db, "cache", "INSERT INTO files VALUES(?,?,?)")) < 0)
		goto cleanup;
	for (i = 0; i < nfiles; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		prov_sql_bind_text(st, 2, files[i]);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)file_pkg[i]);
		if (sqlite3_step(st) != SQLITE_DONE) {
			err = prov_sql_error(c->db, "cache", "insert file");
			goto cleanup;
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((err = prov_sql_exec(c->db, "cache", "COMMIT")) < 0)
		goto cleanup;
	*out = id;
	err = 0;
cleanup:
	sqlite3_finalize(st);
	sqlite3_finalize(del);
	if (err < 0)
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

int prov_cache_index_lookup(size_t *out, size_t *nout, size_t max, struct prov_cache *c,
			    int64_t id, const char *path)
{
	sqlite3_stmt *st = NULL;
	size_t n = 0;
	int err = 0, rc;

	*nout = 0;
	if (!ready(c))
		return 0;
	if (!c->st_lookup &&
	    (err = prov_sql_prepare(&c->st_lookup, c->db, "cache", "SELECT pkg FROM files WHERE index_id=? AND path=? ORDER BY rowid")) < 0)
		return err;
	st = c->st_lookup;
	sqlite3_bind_int64(st, 1, id);
	prov_sql_bind_text(st, 2, path);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n < max)
			out[n++] = (size_t)sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_DONE)
		err = prov_sql_error(c->db, "cache", "file lookup");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	*nout = n;
	return err;
}

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? prov_xstrdup((const char *)s) : NULL;
}

static struct prov_origin *row_origin(sqlite3_stmt *st, const char *kind)
{
	struct prov_origin *o = prov_xcalloc(1, sizeof(*o));

	o->kind = prov_xstrdup_or_null(kind);
	o->name = col_str(st, 0);
	o->version = col_str(st, 1);
	o->source = col_str(st, 2);
	o->source_version = col_str(st, 3);
	o->arch = col_str(st, 4);
	o->vcs_url = prov_url_strip_userinfo(col_str(st, 5));
	o->commit = col_str(st, 6);
	o->branch = col_str(st, 7);
	o->evidence = col_str(st, 8);
	return o;
}

#define PKG_COLS "p.name, p.version, p.source, p.source_version, p.arch, p.vcs_url, p.vcs_commit, p.branch, p.evidence, p.shlib, i.kind"

int prov_cache_index_pkg(struct prov_origin **out, struct prov_cache *c, int64_t id, size_t no)
{
	sqlite3_stmt *st = NULL;
	int err = 0, rc;

	if (!ready(c))
		return PROV_ENOTFOUND;
	if (!c->st_pkg &&
	    (err = prov_sql_prepare(&c->st_pkg, c->db, "cache", "SELECT " PKG_COLS " FROM packages p JOIN indexes i ON i.id = p.index_id"
			   " WHERE p.index_id=? AND p.no=?")) < 0)
		return err;
	st = c->st_pkg;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)no);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = row_origin(st, (const char *)sqlite3_column_text(st, 10));
		err = 0;
	} else if (rc == SQLITE_DONE) {
		err = PROV_ENOTFOUND;
	} else {
		err = prov_sql_error(c->db, "cache", "package lookup");
	}
	sqlite3_reset(st);
	return err;
}

int prov_cache_index_foreach_pkg(struct prov_cache *c, int64_t id, int shlib_only,
				 int (*fn)(const struct prov_origin *o, int shlib, void *data),
				 void *data)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	if (!ready(c))
		return 0;
	if ((err = prov_sql_prepare(&st, c->db, "cache", "SELECT " PKG_COLS " FROM packages p JOIN indexes i ON i.id = p.index_id"
			   " WHERE p.index_id=? AND (p.shlib OR NOT ?) ORDER BY p.no")) < 0)
		return err;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, shlib_only);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct prov_origin *o = row_origin(st, (const char *)sqlite3_column_text(st, 10));

		err = fn(o, sqlite3_column_int(st, 9), data);
		prov_origin_free(o);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = prov_sql_error(c->db, "cache", "package list");
	sqlite3_finalize(st);
	return err;
}

int prov_cache_stats(struct prov_cache_stats *out, struct prov_cache *c)
{
	struct prov_cache_stats s;
	struct stat sb;
	char *wal;
	int err;
	int64_t v;

	if (!ready(c))
		return prov_error_set(PROV_ERROR, "cache '%s' is unavailable", c->path);
	memset(&s, 0, sizeof(s));
	if (stat(c->path, &sb) == 0)
		s.db_size = (uint64_t)sb.st_size;
	wal = prov_xasprintf("%s-wal", c->path);
	if (stat(wal, &sb) == 0)
		s.db_size += (uint64_t)sb.st_size;
	free(wal);
	if ((err = prov_sql_one_int(&v, c->db, "cache", "SELECT count(*) FROM indexes")) < 0)
		return err;
	s.nindexes = (uint64_t)v;
	if ((err = prov_sql_one_int(&v, c->db, "cache", "SELECT count(*) FROM packages")) < 0)
		return err;
	s.npackages = (uint64_t)v;
	if ((err = prov_sql_one_int(&v, c->db, "cache", "SELECT count(*) FROM files")) < 0)
		return err;
	s.nfiles = (uint64_t)v;
	if ((err = prov_sql_one_int(&v, c->db, "cache", "SELECT count(*) FROM resolutions")) < 0)
		return err;
	s.nresolutions = (uint64_t)v;
	*out = s;
	return 0;
}

int prov_cache_resolution_get(struct prov_origin **out, struct prov_cache *c,
			      const char *root, const char *build_id)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	if (!ready(c))
		return PROV_ENOTFOUND;
	if ((err = prov_sql_prepare(&st, c->db, "cache", "SELECT name, version, source, source_version, arch, vcs_url,"
			   " vcs_commit, branch, evidence, guess, kind, found_by FROM resolutions"
			   " WHERE root=? AND build_id=?")) < 0)
		return err;
	prov_sql_bind_text(st, 1, root);
	prov_sql_bind_text(st, 2, build_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		struct prov_origin *o = row_origin(st, (const char *)sqlite3_column_text(st, 10));

		o->guess = sqlite3_column_int(st, 9);
		o->found_by = col_str(st, 11);
		*out = o;
		err = 0;
	} else if (rc == SQLITE_DONE) {
		err = PROV_ENOTFOUND;
	} else {
		err = prov_sql_error(c->db, "cache", "resolution lookup");
	}
	sqlite3_finalize(st);
	return err;
}

int prov_cache_resolution_put(struct prov_cache *c, const char *root, const char *build_id,
			      const struct prov_origin *o)
{
	sqlite3_stmt *st = NULL;
	int err;

	if (!ready(c))
		return 0;
	if ((err = prov_sql_prepare(&st, c->db, "cache", "INSERT OR REPLACE INTO resolutions(root, build_id, kind, name,"
			   " version, source, source_version, arch, vcs_url, vcs_commit, branch,"
			   " found_by, evidence, guess) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) < 0)
		return err;
	prov_sql_bind_text(st, 1, root);
	prov_sql_bind_text(st, 2, build_id);
	prov_sql_bind_text(st, 3, o->kind);
	prov_sql_bind_text(st, 4, o->name);
	prov_sql_bind_text(st, 5, o->version);
	prov_sql_bind_text(st, 6, o->source);
	prov_sql_bind_text(st, 7, o->source_version);
	prov_sql_bind_text(st, 8, o->arch);
	prov_sql_bind_text(st, 9, o->vcs_url);
	prov_sql_bind_text(st, 10, o->commit);
	prov_sql_bind_text(st, 11, o->branch);
	prov_sql_bind_text(st, 12, o->found_by);
	prov_sql_bind_text(st, 13, o->evidence);
	sqlite3_bind_int(st, 14, o->guess);
	if (sqlite3_step(st) != SQLITE_DONE)
		err = prov_sql_error(c->db, "cache", "store resolution");
	sqlite3_finalize(st);
	return err;
}

static int suspects_table(struct prov_cache *c)
{
	return prov_sql_exec(c->db, "cache", "CREATE TABLE IF NOT EXISTS suspects("
		    " key TEXT PRIMARY KEY, value TEXT NOT NULL, made INTEGER)");
}

int prov_cache_suspects_get(char **out, struct prov_cache *c, const char *key)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	if (!ready(c))
		return PROV_ENOTFOUND;
	if ((err = suspects_table(c)) < 0 ||
	    (err = prov_sql_prepare(&st, c->db, "cache", "SELECT value FROM suspects WHERE key=?")) < 0)
		return err;
	prov_sql_bind_text(st, 1, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = col_str(st, 0);
		err = *out ? 0 : PROV_ENOTFOUND;
	} else if (rc == SQLITE_DONE) {
		err = PROV_ENOTFOUND;
	} else {
		err = prov_sql_error(c->db, "cache", "suspects lookup");
	}
	sqlite3_finalize(st);
	return err;
}

int prov_cache_suspects_put(struct prov_cache *c, const char *key, const char *value)
{
	sqlite3_stmt *st = NULL;
	int err;

	if (!ready(c))
		return 0;
	if ((err = suspects_table(c)) < 0 ||
	    (err = prov_sql_prepare(&st, c->db, "cache", "INSERT OR REPLACE INTO suspects(key, value, made)"
			   " VALUES(?,?,strftime('%s','now'))")) < 0)
		return err;
	prov_sql_bind_text(st, 1, key);
	prov_sql_bind_text(st, 2, value);
	err = sqlite3_step(st) == SQLITE_DONE ? 0 : prov_sql_error(c->db, "cache", "suspects write");
	sqlite3_finalize(st);
	return err;
}

/* ---- patch ids (src/fix/backport.c) ---- */

static int patchid_table(struct prov_cache *c)
{
	return prov_sql_exec(c->db, "cache", "CREATE TABLE IF NOT EXISTS patchids("
		    " commit_id TEXT PRIMARY KEY, patchid TEXT NOT NULL, files TEXT NOT NULL)");
}

int prov_cache_patchid_get_many(char **ids, char **files, struct prov_cache *c,
				const char *const *commits, size_t n)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int err, rc;

	for (i = 0; i < n; i++)
		ids[i] = files[i] = NULL;
	if (!ready(c))
		return 0;
	if ((err = patchid_table(c)) < 0 ||
	    (err = prov_sql_prepare(&st, c->db, "cache", "SELECT patchid, files FROM patchids WHERE commit_id=?")) < 0)
		return err;
	for (i = 0; i < n; i++) {
		sqlite3_reset(st);
		prov_sql_bind_text(st, 1, commits[i]);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			ids[i] = col_str(st, 0);
			files[i] = col_str(st, 1);
		} else if (rc != SQLITE_DONE) {
			err = prov_sql_error(c->db, "cache", "patch-id lookup");
			break;
		}
	}
	sqlite3_finalize(st);
	return err;
}

int prov_cache_patchid_put_many(struct prov_cache *c, const char *const *commits,
				const char *const *ids, const char *const *files, size_t n)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int err;

	if (!ready(c))
		return 0;
	if (!n)
		return 0;
	if ((err = patchid_table(c)) < 0 || (err = prov_sql_exec(c->db, "cache", "BEGIN IMMEDIATE")) < 0)
		return err;
	if ((err = prov_sql_prepare(&st, c->db, "cache", "INSERT OR REPLACE INTO patchids(commit_id, patchid, files)"
			   " VALUES(?,?,?)")) < 0)
		goto fail;
	for (i = 0; i < n; i++) {
		sqlite3_reset(st);
		prov_sql_bind_text(st, 1, commits[i]);
		prov_sql_bind_text(st, 2, ids[i]);
		prov_sql_bind_text(st, 3, files[i] ? files[i] : "");
		if (sqlite3_step(st) != SQLITE_DONE) {
			err = prov_sql_error(c->db, "cache", "patch-id write");
			goto fail;
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((err = prov_sql_exec(c->db, "cache", "COMMIT")) < 0)
		goto fail;
	return 0;
fail:
	sqlite3_finalize(st);
	sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

static int backport_table(struct prov_cache *c)
{
	return prov_sql_exec(c->db, "cache", "CREATE TABLE IF NOT EXISTS backport_ranges("
		    " fix TEXT NOT NULL, deployed TEXT NOT NULL, via TEXT NOT NULL,"
		    " present TEXT NOT NULL, PRIMARY KEY(fix, deployed))");
}

int prov_cache_backport_get(char **via, char **present, struct prov_cache *c, const char *fix,
			    const char *deployed)
{
	sqlite3_stmt *st = NULL;
	int err, rc;

	if (!ready(c))
		return PROV_ENOTFOUND;
	*via = *present = NULL;
	if ((err = backport_table(c)) < 0 ||
	    (err = prov_sql_prepare(&st, c->db, "cache", "SELECT via, present FROM backport_ranges WHERE fix=? AND deployed=?")) < 0)
		return err;
	prov_sql_bind_text(st, 1, fix);
	prov_sql_bind_text(st, 2, deployed);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*via = col_str(st, 0);
		*present = col_str(st, 1);
		err = *via && *present ? 0 : PROV_ENOTFOUND;
		if (err) {
			free(*via);
			free(*present);
			*via = *present = NULL;
		}
	} else {
		err = rc == SQLITE_DONE ? PROV_ENOTFOUND : prov_sql_error(c->db, "cache", "backport lookup");
	}
	sqlite3_finalize(st);
	return err;
}

int prov_cache_backport_put(struct prov_cache *c, const char *fix, const char *deployed,
			    const char *via, const char *present)
{
	sqlite3_stmt *st = NULL;
	int err;

	if (!ready(c))
		return 0;
	if ((err = backport_table(c)) < 0 ||
	    (err = prov_sql_prepare(&st, c->db, "cache", "INSERT OR REPLACE INTO backport_ranges(fix, deployed, via, present)"
			   " VALUES(?,?,?,?)")) < 0)
		return err;
	prov_sql_bind_text(st, 1, fix);
	prov_sql_bind_text(st, 2, deployed);
	prov_sql_bind_text(st, 3, via ? via : "");
	prov_sql_bind_text(st, 4, present ? present : "");
	if (sqlite3_step(st) != SQLITE_DONE)
		err = prov_sql_error(c->db, "cache", "backport write");
	sqlite3_finalize(st);
	return err;
}
