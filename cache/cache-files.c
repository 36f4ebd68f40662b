/* The cache folder outside its tables: blobs read from another SQLite file, clearing the folder. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include <sqlite3.h>

#include "cache.h"
#include "cache-int.h"
#include "cachedir.h"
#include "error.h"
#include "util.h"
#include "banned.h"

int prov_cache_sqlite_blobs(int fd, const char *name, const char *table, const char *column,
			    int (*fn)(const unsigned char *blob, size_t len, void *data),
			    void *data)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *uri = prov_xasprintf("file:/proc/self/fd/%d?immutable=1", fd);
	char *sql = NULL;
	int err = 0, rc;

	/* immutable: no locks, no -wal/-shm beside /proc/self/fd, nothing written */
	rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		err = prov_error_set(PROV_EINPUT, "cannot open '%s': %s", name,
				     db ? sqlite3_errmsg(db) : "out of memory");
		goto cleanup;
	}
	sql = prov_xasprintf("SELECT \"%s\" FROM \"%s\"", column, table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		err = prov_error_set(PROV_EINPUT, "cannot read '%s': %s", name, sqlite3_errmsg(db));
		goto cleanup;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const void *b;
		int n;

		if (sqlite3_column_type(st, 0) != SQLITE_BLOB)
			continue;
		b = sqlite3_column_blob(st, 0);
		n = sqlite3_column_bytes(st, 0);
		if (!b || n <= 0)
			continue;
		if ((err = fn(b, (size_t)n, data)) != 0)
			goto cleanup;
	}
	if (rc != SQLITE_DONE)
		err = prov_error_set(PROV_EINPUT, "cannot read '%s': %s", name, sqlite3_errmsg(db));
cleanup:
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(uri);
	free(sql);
	return err;
}

/* the real path of a directory, or NULL (errno set) */
static char *real_dir(const char *dir)
{
	char *r = realpath(dir, NULL);
	char *out = r ? prov_xstrdup(r) : NULL;

	free(r);
	return out;
}

int prov_cache_clear_dir(const char *dir)
{
	const char *home = getenv("HOME");
	char *real = NULL, *rhome = NULL;
	/* the database with its companions, and the mirrors; never the store */
	static const char *const db_suffix[] = { "", "-wal", "-shm", "-journal" };
	const char *db = prov_cachedir_name(PROV_CACHEDIR_DB);
	int dfd = -1, err = 0;
	size_t i;

	/* by name first (even when it does not exist yet), then by its real path:
	 * a symlink to $HOME or / is $HOME or / */
	real = prov_path_normalize(dir);
	rhome = home && *home ? prov_path_normalize(home) : NULL;
	if (!*real || strcmp(real, "/") == 0 || strcmp(real, ".") == 0 ||
	    (rhome && strcmp(real, rhome) == 0)) {
		err = prov_error_set(PROV_EINPUT, "refusing to clear cache directory '%s'", dir);
		goto cleanup;
	}
	free(real);
	free(rhome);
	rhome = NULL;
	if (!(real = real_dir(dir))) {
		if (errno != ENOENT)
			err = prov_error_set(PROV_ERROR, "cannot open cache directory '%s': %s",
					     dir, strerror(errno));
		goto cleanup;
	}
	rhome = home && *home ? real_dir(home) : NULL;
	if (strcmp(real, "/") == 0 || (rhome && strcmp(real, rhome) == 0)) {
		err = prov_error_set(PROV_EINPUT, "refusing to clear cache directory '%s'", dir);
		goto cleanup;
	}
	dfd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		if (errno != ENOENT)
			err = prov_error_set(PROV_ERROR, "cannot open cache directory '%s': %s",
					     dir, strerror(errno));
		goto cleanup;
	}
	if (!prov_cachedir_is_ours(dfd)) {
		err = prov_error_set(PROV_EINPUT, "refusing to clear '%s': not a cache provenance made "
				     "(no CACHEDIR.TAG, and it holds other files)", dir);
		goto cleanup;
	}
	for (i = 0; i < sizeof(db_suffix) / sizeof(db_suffix[0]); i++) {
		char *name = prov_xasprintf("%s%s", db, db_suffix[i]);

		err = prov_remove_tree_at(dfd, name);
		free(name);
		if (err < 0)
			goto cleanup;
	}
	if ((err = prov_remove_tree_at(dfd, prov_cachedir_name(PROV_CACHEDIR_MEMO))) < 0)
		goto cleanup;
	err = prov_remove_tree_at(dfd, prov_cachedir_name(PROV_CACHEDIR_MIRRORS));
	if (err == 0)
		err = prov_remove_tree_at(dfd, prov_cachedir_name(PROV_CACHEDIR_DEBUG_PLAIN));
	if (err == 0)
		err = prov_remove_tree_at(dfd, prov_cachedir_name(PROV_CACHEDIR_IMAGES));
cleanup:
	if (dfd >= 0)
		close(dfd);
	free(real);
	free(rhome);
	return err;
}
