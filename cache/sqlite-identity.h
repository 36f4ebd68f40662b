#ifndef PROV_SQLITE_IDENTITY_H
#define PROV_SQLITE_IDENTITY_H

#include <stdint.h>

#include <sqlite3.h>

/*
 * What a SQLite file says it is: application_id, user_version and the
 * number of schema entries, read in ONE statement, so one read snapshot (read
 * in three, a cache or store being created by another process between them
 * looked foreign: tables, but no id yet). Shared by the cache (cache.c) and
 * the SQLite crash store (store-sqlite.c). 0, or -1 with the reason in
 * sqlite3_errmsg(db): the caller words the error.
 */
struct prov_sqlite_identity {
	int64_t appid;
	int64_t version;
	int64_t ntables;
};

int prov_sqlite_identity_read(struct prov_sqlite_identity *out, sqlite3 *db);

#endif
