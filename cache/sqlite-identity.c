#include <string.h>

#include "sqlite-identity.h"
#include "banned.h"

int prov_sqlite_identity_read(struct prov_sqlite_identity *out, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT (SELECT application_id FROM pragma_application_id),"
				  " (SELECT user_version FROM pragma_user_version),"
				  " (SELECT count(*) FROM sqlite_master)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->appid = sqlite3_column_int64(st, 0);
		out->version = sqlite3_column_int64(st, 1);
		out->ntables = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}
