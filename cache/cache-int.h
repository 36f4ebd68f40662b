#ifndef PROV_CACHE_INT_H
#define PROV_CACHE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/*
 * Inside cache/ only: the one set of SQLite helpers that the cache
 * (cache.c, defs.c) and the SQLite crash store (store-sqlite.c) use
 * (sqlite-helpers.c). Errors are worded "WHO: WHAT: SQLite's message",
 * WHO being "cache" or "store". An error that SQLite calls SQLITE_CORRUPT
 * or SQLITE_NOTADB marks its connection: prov_sql_take_corrupt tells the
 * owner on close, so that the cache sets a damaged file aside.
 */

/* Set the error (PROV_ERROR); marks `db` when SQLite called it corrupt. db NULL: out of memory. */
int prov_sql_error(sqlite3 *db, const char *who, const char *what);
/* 1 when an error marked `db` corrupt since it was opened (and clear the mark), else 0. */
int prov_sql_take_corrupt(sqlite3 *db);
/* Run `sql` (any number of statements). 0 or PROV_ERROR. */
int prov_sql_exec(sqlite3 *db, const char *who, const char *sql);
/* The first column of the first row of `sql` (0 when no row). 0 or PROV_ERROR. */
int prov_sql_one_int(int64_t *out, sqlite3 *db, const char *who, const char *sql);
/* Prepare one statement (the caller finalizes it). 0 or PROV_ERROR. */
int prov_sql_prepare(sqlite3_stmt **out, sqlite3 *db, const char *who, const char *sql);
/* Bind text (copied), or NULL when s is NULL. */
void prov_sql_bind_text(sqlite3_stmt *st, int i, const char *s);

/*
 * What a SQLite file says it is: application_id, user_version and the
 * number of schema entries, read in ONE statement, so one read snapshot (read
 * in three, a cache or store being created by another process between them
 * looked foreign: tables, but no id yet). 0, or PROV_ERROR worded
 * "WHO: read identity: ..." (sqlite3_errcode(db) still says why).
 */
struct prov_sqlite_identity {
	int64_t appid;
	int64_t version;
	int64_t ntables;
};

int prov_sqlite_identity_read(struct prov_sqlite_identity *out, sqlite3 *db, const char *who);

/*
 * The cache (cache.h's opaque struct prov_cache), shared by cache.c (the
 * database), cache-memo.c (the memo) and defs.c (through prov_cache__db).
 */

/* one answer of the memo (cache.memo) */
struct memo_rec {
	char *key, *value;
};

struct prov_cache {
	sqlite3 *db;
	char *path;
	char *dir;
	int state;	/* 0: SQLite not opened yet (lazy), 1: open, -1: unusable (warned once) */
	/* the memo: loaded on first use; nmemo_new answers of this run not in the file */
	sqlite3_stmt *st_lookup, *st_pkg;	/* kept for the run: one lookup per module */
	int memo_loaded;
	struct memo_rec *memo;
	size_t nmemo, memo_alloc, nmemo_new;
	size_t *memo_slots, nmemo_slots;	/* open addressing: record index + 1, 0 = empty */
};

/* The cache's connection, opened now if it was lazy (cache.c); NULL when the cache is unusable. */
sqlite3 *prov_cache__db(struct prov_cache *c);
/* Write this run's new memo answers to cache.memo (cache-memo.c), when there are any. */
void cache_memo_save(struct prov_cache *c);
/* Free the memo's records. */
void cache_memo_release(struct prov_cache *c);

#endif
