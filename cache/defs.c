/* The definitions index (see defs.h); SQLite stays in cache/. */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "defs.h"
#include "cache-int.h"
#include "error.h"
#include "util.h"
#include "banned.h"

#define MAX_FOUND 1000

static const char defs_schema[] =
	"CREATE TABLE IF NOT EXISTS srcdefs_sets("
	" id INTEGER PRIMARY KEY, commit_id TEXT NOT NULL, subdir TEXT NOT NULL,"
	" files INTEGER, truncated INTEGER, UNIQUE(commit_id, subdir));"
	"CREATE TABLE IF NOT EXISTS srcdefs("
	" set_id INTEGER NOT NULL, name TEXT NOT NULL, qname TEXT NOT NULL,"
	" path TEXT NOT NULL, line INTEGER NOT NULL);"
	"CREATE INDEX IF NOT EXISTS srcdefs_name ON srcdefs(set_id, name);";

static int ensure(sqlite3 *db)
{
	return prov_sql_exec(db, "cache", defs_schema);
}

static int set_id(int64_t *out, sqlite3 *db, const char *commit, const char *subdir)
{
	sqlite3_stmt *st = NULL;
	int rc, err;

	if ((err = ensure(db)) < 0)
		return err;
	if (sqlite3_prepare_v2(db, "SELECT id FROM srcdefs_sets WHERE commit_id=?1 AND subdir=?2",
			       -1, &st, NULL) != SQLITE_OK)
		return prov_sql_error(db, "cache", "definitions");
	sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, subdir ? subdir : "", -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		err = 1;
	} else if (rc == SQLITE_DONE) {
		err = 0;
	} else {
		err = prov_sql_error(db, "cache", "definitions");
	}
	sqlite3_finalize(st);
	return err;
}

int prov_cache_defs_indexed(struct prov_cache *c, const char *commit, const char *subdir)
{
	int64_t id;

	return set_id(&id, prov_cache__db(c), commit, subdir);
}

int prov_cache_defs_put(struct prov_cache *c, const char *commit, const char *subdir,
			const struct prov_defs *d)
{
	sqlite3 *db = prov_cache__db(c);
	sqlite3_stmt *st = NULL;
	int64_t id;
	size_t i;
	int err;

	if ((err = ensure(db)) < 0)
		return err;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return prov_sql_error(db, "cache", "definitions");
	if ((err = set_id(&id, db, commit, subdir)) != 0) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return err < 0 ? err : 0;	/* another run indexed it meanwhile */
	}
	if (sqlite3_prepare_v2(db, "INSERT INTO srcdefs_sets(commit_id, subdir, files, truncated)"
			       " VALUES(?1, ?2, ?3, ?4)", -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, subdir ? subdir : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)d->files);
	sqlite3_bind_int(st, 4, d->truncated);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	id = sqlite3_last_insert_rowid(db);
	if (sqlite3_prepare_v2(db, "INSERT INTO srcdefs(set_id, name, qname, path, line)"
			       " VALUES(?1, ?2, ?3, ?4, ?5)", -1, &st, NULL) != SQLITE_OK)
		goto fail;
	for (i = 0; i < d->n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, d->items[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, d->items[i].qname, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, d->items[i].path, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 5, d->items[i].line);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto fail;
	}
	sqlite3_finalize(st);
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail_nost;
	return 0;
fail:
	sqlite3_finalize(st);
fail_nost:
	err = prov_sql_error(db, "cache", "cannot store definitions");
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

int prov_cache_defs_find(struct prov_defs *out, struct prov_cache *c, const char *commit,
			 const char *subdir, const char *name)
{
	sqlite3 *db = prov_cache__db(c);
	sqlite3_stmt *st = NULL;
	int64_t id;
	int err, rc;
	size_t found = 0;

	if ((err = set_id(&id, db, commit, subdir)) <= 0)
		return err;
	if (sqlite3_prepare_v2(db, "SELECT qname, path, line FROM srcdefs WHERE set_id=?1 AND name=?2"
			       " ORDER BY path, line", -1, &st, NULL) != SQLITE_OK)
		return prov_sql_error(db, "cache", "definitions");
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && found < MAX_FOUND) {
		const char *q = (const char *)sqlite3_column_text(st, 0);
		const char *p = (const char *)sqlite3_column_text(st, 1);
		struct prov_def *e;

		if (!q || !p)
			continue;
		PROV_ALLOC_GROW(out->items, out->n + 1, out->alloc);
		e = &out->items[out->n++];
		e->qname = prov_xstrdup(q);
		e->name = prov_xstrdup(name);
		e->path = prov_xstrdup(p);
		e->line = sqlite3_column_int(st, 2);
		found++;
	}
	err = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : prov_sql_error(db, "cache", "definitions");
	sqlite3_finalize(st);
	return err;
}
