/* The one set of SQLite helpers of cache/ (cache-int.h): errors, corruption marks, identity. */
#include <string.h>

#include "cache-int.h"
#include "error.h"
#include "banned.h"

/*
 * The open connections SQLite last called corrupt, checked (and the file set
 * aside) when their owner closes them. A run has at most a cache and a store
 * open; a mark that finds no free slot is dropped (the file is then checked
 * on its next corrupt error in a later run).
 */
static sqlite3 *corrupt_db[4];

static void mark_corrupt(sqlite3 *db)
{
	size_t i, free_slot = sizeof(corrupt_db) / sizeof(corrupt_db[0]);

	for (i = 0; i < sizeof(corrupt_db) / sizeof(corrupt_db[0]); i++) {
		if (corrupt_db[i] == db)
			return;
		if (!corrupt_db[i] && free_slot == sizeof(corrupt_db) / sizeof(corrupt_db[0]))
			free_slot = i;
	}
	if (free_slot < sizeof(corrupt_db) / sizeof(corrupt_db[0]))
		corrupt_db[free_slot] = db;
}

int prov_sql_take_corrupt(sqlite3 *db)
{
	size_t i;

	for (i = 0; db && i < sizeof(corrupt_db) / sizeof(corrupt_db[0]); i++) {
		if (corrupt_db[i] == db) {
			corrupt_db[i] = NULL;
			return 1;
		}
	}
	return 0;
}

int prov_sql_error(sqlite3 *db, const char *who, const char *what)
{
	if (db && ((sqlite3_errcode(db) & 0xff) == SQLITE_CORRUPT ||
		   (sqlite3_errcode(db) & 0xff) == SQLITE_NOTADB))
		mark_corrupt(db);
	return prov_error_set(PROV_ERROR, "%s: %s: %s", who, what,
			      db ? sqlite3_errmsg(db) : "out of memory");
}

int prov_sql_exec(sqlite3 *db, const char *who, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int err = prov_error_set(PROV_ERROR, "%s: %s", who, msg ? msg : sqlite3_errmsg(db));

		sqlite3_free(msg);
		return err;
	}
	return 0;
}

int prov_sql_one_int(int64_t *out, sqlite3 *db, const char *who, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return prov_sql_error(db, who, sql);
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return prov_sql_error(db, who, sql);
	return 0;
}

int prov_sql_prepare(sqlite3_stmt **out, sqlite3 *db, const char *who, const char *sql)
{
	if (sqlite3_prepare_v2(db, sql, -1, out, NULL) != SQLITE_OK)
		return prov_sql_error(db, who, "prepare");
	return 0;
}

void prov_sql_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int prov_sqlite_identity_read(struct prov_sqlite_identity *out, sqlite3 *db, const char *who)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT (SELECT application_id FROM pragma_application_id),"
				  " (SELECT user_version FROM pragma_user_version),"
				  " (SELECT count(*) FROM sqlite_master)", -1, &st, NULL) != SQLITE_OK)
		return prov_sql_error(db, who, "read identity");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->appid = sqlite3_column_int64(st, 0);
		out->version = sqlite3_column_int64(st, 1);
		out->ntables = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : prov_sql_error(db, who, "read identity");
}
