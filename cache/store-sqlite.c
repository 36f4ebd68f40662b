/* The crash store in one SQLite file: a store_ops backend (store-int.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cachedir.h"
#include "store.h"
#include "store-int.h"
#include "buf.h"
#include "error.h"
#include "cache-int.h"
#include "sqlite-guard.h"
#include "json.h"
#include "jsonread.h"
#include "sha256.h"
#include "util.h"
#include "banned.h"

/* 'PRVS': marks a file as a provenance crash store. */
#define PROV_STORE_APP_ID 0x50525653

/* The backend behind a struct store_backend handle (store-int.h). */
struct store_sqlite {
	sqlite3 *db;
	char *path;
	int readonly;
	int in_tx;
	int stale;	/* a write found the schema changed under it: no more writes */
	int schema;	/* a reader reads an older schema as it is */
	sqlite3_stmt *find, *crash, *frame, *module, *component, *report, *sum_hosts, *sum_versions, *sum_days;
	struct prov_sql_guard deadline;	/* op_deadline's, while one is set */
};

static struct store_sqlite *lite(struct store_backend *be)
{
	return (struct store_sqlite *)be;
}

/*
 * Switching the journal mode takes the database's exclusive lock, and
 * SQLite answers SQLITE_BUSY there without calling the busy handler while
 * another first writer is switching too: try again for as long as the busy
 * timeout would have waited (60 s).
 */
static int exec_journal_mode(sqlite3 *db, const char *sql)
{
	int tries;

	for (tries = 0; tries < 6000; tries++) {
		if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
			return 0;
		if ((sqlite3_errcode(db) & 0xff) != SQLITE_BUSY)
			break;
		sqlite3_sleep(10);
	}
	return prov_error_set(PROV_ERROR, "store: %s", sqlite3_errmsg(db));
}


/*
 * Schema 3 -> 4: every crash signed again from its stored report with the
 * current rule (docs/signature.md), in the migration's transaction. The
 * changes are collected first and written after the read has finished:
 * crashes is never updated under a statement still reading it.
 */
static int resign(sqlite3 *db)
{
	sqlite3_stmt *sel = NULL, *upd = NULL;
	struct change { int64_t id; char *sig; } *ch = NULL;
	size_t n = 0, cap = 0, i;
	int rc, err = 0;

	if ((err = prov_sql_prepare(&sel, db, "store", "SELECT c.id, c.signature, r.json FROM crashes c"
				    " JOIN reports r ON r.crash_id = c.id")) < 0)
		goto cleanup;
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		const char *old = (const char *)sqlite3_column_text(sel, 1);
		const char *json = (const char *)sqlite3_column_text(sel, 2);
		char *sig = json ? prov_store_signature_of(json, (size_t)sqlite3_column_bytes(sel, 2)) : NULL;

		if (!sig || (old && !strcmp(sig, old))) {
			free(sig);
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			ch = prov_xrealloc(ch, cap * sizeof(*ch));
		}
		ch[n].id = sqlite3_column_int64(sel, 0);
		ch[n++].sig = sig;
	}
	if (rc != SQLITE_DONE) {
		err = prov_sql_error(db, "store", "recompute signatures");
		goto cleanup;
	}
	if ((err = prov_sql_prepare(&upd, db, "store", "UPDATE crashes SET signature = ?1 WHERE id = ?2")) < 0)
		goto cleanup;
	for (i = 0; i < n; i++) {
		sqlite3_bind_text(upd, 1, ch[i].sig, -1, SQLITE_STATIC);
		sqlite3_bind_int64(upd, 2, ch[i].id);
		rc = sqlite3_step(upd);
		sqlite3_reset(upd);
		if (rc != SQLITE_DONE) {
			err = prov_sql_error(db, "store", "recompute signatures");
			goto cleanup;
		}
	}
cleanup:
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	for (i = 0; i < n; i++)
		free(ch[i].sig);
	free(ch);
	return err;
}

/* Upgrade an older store in one write transaction (the first writer does it). */
static int migrate(sqlite3 *db, const char *path, int64_t *ver)
{
	char *sql = NULL;
	int err;

	if ((err = prov_sql_exec(db, "store", "BEGIN IMMEDIATE")) < 0)
		return err;
	if ((err = prov_sql_one_int(ver, db, "store", "PRAGMA user_version")) < 0)
		goto fail;
	while (*ver >= 1 && *ver < PROV_STORE_SCHEMA) {
		free(sql);
		sql = store_migration_sql(STORE_SQLITE, (int)*ver);
		if (sql && *ver == 3 && (err = resign(db)) < 0)
			goto fail;
		if (!sql || (err = prov_sql_exec(db, "store", sql)) < 0) {
			if (!sql)
				err = prov_error_set(PROV_EINPUT, "no upgrade from schema %lld", (long long)*ver);
			goto fail;
		}
		++*ver;
	}
	free(sql);
	return prov_sql_exec(db, "store", "COMMIT");
fail:
	free(sql);
	sql = prov_xstrdup(prov_error_last());
	prov_sql_exec(db, "store", "ROLLBACK");
	err = prov_error_set(PROV_EINPUT, "cannot upgrade crash store '%s' to schema %d: %s", path,
			     PROV_STORE_SCHEMA, sql);
	free(sql);
	return err;
}

static const struct store_ops sqlite_ops;

int store_sqlite_open(struct store_backend **out, const struct store_ops **ops, const char *path,
		      int readonly)
{
	struct store_sqlite *s = NULL;
	struct prov_sqlite_identity id = { 0 };
	sqlite3 *db = NULL;
	struct stat st;
	int rc, err;

	if (readonly && stat(path, &st) < 0)
		return prov_error_set(PROV_ENOTFOUND, "no crash store at '%s' (resolve --store or import make one)",
				      path);
	if (!readonly && (err = prov_mkdir_p(path, 0700, PROV_MKDIR_PARENTS | PROV_MKDIR_INPUT)) < 0)
		return err;
	rc = sqlite3_open_v2(path, &db, readonly ? SQLITE_OPEN_READONLY :
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		err = prov_error_set(PROV_EINPUT, "cannot open crash store '%s': %s", path,
				     db ? sqlite3_errmsg(db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(db, 60000);
	if (prov_sqlite_identity_read(&id, db, "store") < 0) {
		err = prov_error_set(PROV_EINPUT, "'%s' is not a crash store: %s", path,
				     sqlite3_errmsg(db));
		goto fail;
	}
	if (!readonly && id.ntables == 0 && id.appid == 0 && id.version == 0) {
		/* new: create under the write lock so that two first writers do not race */
		if ((err = exec_journal_mode(db, "PRAGMA journal_mode=WAL")) < 0 ||
		    (err = prov_sql_exec(db, "store", "BEGIN IMMEDIATE")) < 0)
			goto fail;
		if ((err = prov_sql_one_int(&id.ntables, db, "store",
					    "SELECT count(*) FROM sqlite_master")) < 0)
			goto fail;
		if (id.ntables == 0) {
			char *schema = store_schema_sql(STORE_SQLITE);

			err = prov_sql_exec(db, "store", schema);
			free(schema);
			if (err < 0) {
				prov_sql_exec(db, "store", "ROLLBACK");
				goto fail;
			}
		}
		if ((err = prov_sql_exec(db, "store", "COMMIT")) < 0 ||
		    (err = prov_sqlite_identity_read(&id, db, "store")) < 0)
			goto fail;
	}
	if (id.appid != PROV_STORE_APP_ID) {
		err = prov_error_set(PROV_EINPUT, "'%s' is not a crash store", path);
		goto fail;
	}
	if (id.version >= 1 && id.version < PROV_STORE_SCHEMA && !readonly &&
	    (err = migrate(db, path, &id.version)) < 0)
		goto fail;
	/* a reader reads an older schema as it is: its tables mean what they meant */
	if (id.version != PROV_STORE_SCHEMA &&
	    !(id.version >= 1 && id.version < PROV_STORE_SCHEMA && readonly)) {
		err = prov_error_set(PROV_EINPUT, "crash store '%s' has schema %lld; this provenance reads 1 to %d%s",
				     path, (long long)id.version, PROV_STORE_SCHEMA,
				     id.version > PROV_STORE_SCHEMA ? " (made by a newer provenance)" : "");
		goto fail;
	}
	if (!readonly && (err = exec_journal_mode(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")) < 0)
		goto fail;
	s = prov_xcalloc(1, sizeof(*s));
	s->db = db;
	s->path = prov_xstrdup(path);
	s->readonly = readonly;
	s->schema = (int)id.version;
	*out = (struct store_backend *)s;
	*ops = &sqlite_ops;
	return 0;
fail:
	prov_sql_take_corrupt(db);
	sqlite3_close(db);
	return err;
}

static void op_rollback(struct store_backend *be)
{
	struct store_sqlite *s = lite(be);

	if (!s->in_tx)
		return;
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_tx = 0;
}

static void op_free(struct store_backend *be)
{
	struct store_sqlite *s = lite(be);

	if (!s)
		return;
	if (s->in_tx)
		op_rollback(be);
	sqlite3_finalize(s->find);
	sqlite3_finalize(s->crash);
	sqlite3_finalize(s->frame);
	sqlite3_finalize(s->module);
	sqlite3_finalize(s->component);
	sqlite3_finalize(s->report);
	sqlite3_finalize(s->sum_hosts);
	sqlite3_finalize(s->sum_versions);
	sqlite3_finalize(s->sum_days);
	prov_sql_take_corrupt(s->db);
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

static int op_begin(struct store_backend *be)
{
	struct store_sqlite *s = lite(be);
	int err;

	if (s->in_tx)
		return 0;
	if ((err = prov_sql_exec(s->db, "store", "BEGIN IMMEDIATE")) < 0)
		return err;
	s->in_tx = 1;
	/*
	 * The schema checked inside each writing transaction: another
	 * provenance may have upgraded the store since this writer opened it,
	 * and rows of this schema would then mean something else there.
	 */
	if (!s->readonly) {
		int64_t ver = 0;

		if ((err = prov_sql_one_int(&ver, s->db, "store", "PRAGMA user_version")) < 0) {
			op_rollback(be);
			return err;
		}
		if (ver != PROV_STORE_SCHEMA) {
			s->stale = 1;
			op_rollback(be);
			return prov_error_set(PROV_EINPUT, "crash store '%s' changed to schema %lld while "
					      "this writer ran (it writes schema %d); nothing more is written",
					      s->path, (long long)ver, PROV_STORE_SCHEMA);
		}
	}
	return 0;
}

static int op_commit(struct store_backend *be)
{
	struct store_sqlite *s = lite(be);
	int err;

	if (!s->in_tx)
		return 0;
	err = prov_sql_exec(s->db, "store", "COMMIT");
	if (err < 0) {
		op_rollback(be);
		return err;
	}
	s->in_tx = 0;
	return 0;
}

/* A statement prepared once per connection, reset and unbound on each later use. */
static int prepare_kept(sqlite3_stmt **st, sqlite3 *db, const char *sql)
{
	if (*st) {
		sqlite3_reset(*st);
		sqlite3_clear_bindings(*st);
		return 0;
	}
	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return prov_sql_error(db, "store", "prepare");
	return 0;
}

static void bind_int_or_null(sqlite3_stmt *st, int i, const struct prov_jv *v)
{
	int64_t n;

	if (store_jint(&n, v) == 0)
		sqlite3_bind_int64(st, i, n);
	else
		sqlite3_bind_null(st, i);
}

static int step_done(sqlite3 *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return prov_sql_error(db, "store", what);
	return 0;
}

static int insert_rows(struct store_sqlite *s, int64_t id, const struct prov_jv *r)
{
	const struct prov_jv *threads = store_jarray(r, "threads"), *mods = store_jarray(r, "modules");
	const struct prov_jv *comps = store_jarray(r, "components");
	size_t i, k;
	int err;

	for (i = 0; threads && i < threads->n; i++) {
		const struct prov_jv *t = &threads->items[i], *frames = store_jarray(t, "frames");
		const struct prov_jv *c = store_jget(t, "crashed");
		int crashed = c && c->type == PROV_JV_BOOL && c->boolean;

		for (k = 0; frames && k < frames->n; k++) {
			const struct prov_jv *f = &frames->items[k];
			const char *lang = store_jstr(f, "language");

			if ((err = prepare_kept(&s->frame, s->db, "INSERT INTO frames VALUES(?,?,?,?,?,?,?,?,?,?,?)")) < 0)
				return err;
			sqlite3_bind_int64(s->frame, 1, id);
			sqlite3_bind_int64(s->frame, 2, (int64_t)i);
			bind_int_or_null(s->frame, 3, store_jget(t, "tid"));
			sqlite3_bind_int(s->frame, 4, crashed);
			sqlite3_bind_int64(s->frame, 5, (int64_t)k);
			prov_sql_bind_text(s->frame, 6, store_jstr(f, "function"));
			prov_sql_bind_text(s->frame, 7, store_jstr(f, "file"));
			bind_int_or_null(s->frame, 8, store_jget(f, "line"));
			prov_sql_bind_text(s->frame, 9, store_jstr(f, "module"));
			prov_sql_bind_text(s->frame, 10, store_jstr(f, "component"));
			prov_sql_bind_text(s->frame, 11, lang && !strcmp(lang, "python") ? "python" : "native");
			if ((err = step_done(s->db, s->frame, "insert frame")) < 0)
				return err;
		}
	}
	for (i = 0; mods && i < mods->n; i++) {
		const struct prov_jv *m = &mods->items[i], *p = store_jget(m, "package");

		if ((err = prepare_kept(&s->module, s->db, "INSERT INTO modules VALUES(?,?,?,?,?,?,?)")) < 0)
			return err;
		sqlite3_bind_int64(s->module, 1, id);
		prov_sql_bind_text(s->module, 2, store_jstr(m, "path"));
		prov_sql_bind_text(s->module, 3, store_jstr(m, "build_id"));
		prov_sql_bind_text(s->module, 4, store_jstr(p, "kind"));
		prov_sql_bind_text(s->module, 5, store_jstr(p, "name"));
		prov_sql_bind_text(s->module, 6, store_jstr(p, "version"));
		prov_sql_bind_text(s->module, 7, store_jstr(m, "component"));
		if ((err = step_done(s->db, s->module, "insert module")) < 0)
			return err;
	}
	for (i = 0; comps && i < comps->n; i++) {
		const struct prov_jv *c = &comps->items[i];

		if (!store_jstr(c, "name"))
			continue;
		if ((err = prepare_kept(&s->component, s->db, "INSERT INTO components VALUES(?,?,?,?,?,?,?)")) < 0)
			return err;
		sqlite3_bind_int64(s->component, 1, id);
		prov_sql_bind_text(s->component, 2, store_jstr(c, "name"));
		prov_sql_bind_text(s->component, 3, store_jstr(c, "version"));
		prov_sql_bind_text(s->component, 4, store_jstr(c, "commit"));
		prov_sql_bind_text(s->component, 5, store_jstr(c, "repo"));
		prov_sql_bind_text(s->component, 6, store_jstr(c, "commit_is"));
		prov_sql_bind_text(s->component, 7, store_jstr(c, "found_by"));
		if ((err = step_done(s->db, s->component, "insert component")) < 0)
			return err;
	}
	return 0;
}

static int run_summary(struct store_sqlite *s, sqlite3_stmt **st, const char *sql,
		       const struct store_report *rep, int64_t id)
{
	if (prepare_kept(st, s->db, sql) < 0)
		return PROV_ERROR;
	prov_sql_bind_text(*st, 1, rep->signature);
	prov_sql_bind_text(*st, 2, rep->host);
	if (sqlite3_bind_parameter_count(*st) >= 3)
		prov_sql_bind_text(*st, 3, rep->time);
	if (sqlite3_bind_parameter_count(*st) >= 4)
		sqlite3_bind_int64(*st, 4, id);
	return step_done(s->db, *st, "update summary");
}

static int add_parsed(int64_t *out_id, struct store_sqlite *s, const struct prov_jv *r,
		      const char *json, size_t len, const struct prov_store_meta *meta)
{
	const struct prov_jv *crash = store_jget(r, "crash"), *sig = store_jget(r, "signal");
	struct store_report rep;
	int err, rc;

	store_report_read(&rep, r, meta);
	if ((err = prepare_kept(&s->find, s->db, "SELECT id FROM crashes WHERE hash=?")) < 0)
		goto cleanup;
	prov_sql_bind_text(s->find, 1, rep.hash);
	rc = sqlite3_step(s->find);
	if (rc == SQLITE_ROW) {
		*out_id = sqlite3_column_int64(s->find, 0);
		sqlite3_reset(s->find);
		err = 1;
		goto cleanup;
	}
	sqlite3_reset(s->find);
	if (rc != SQLITE_DONE) {
		err = prov_sql_error(s->db, "store", "find report");
		goto cleanup;
	}
	if ((err = prepare_kept(&s->crash, s->db,
			   "INSERT INTO crashes(signature, signal, signal_name, time, host, input,"
			   " context, patterns, executable, kind, hash, added, image_kind, image_digest,"
			   " image_ref) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) < 0)
		goto cleanup;
	prov_sql_bind_text(s->crash, 1, rep.signature);
	bind_int_or_null(s->crash, 2, store_jget(sig, "number"));
	prov_sql_bind_text(s->crash, 3, store_jstr(sig, "name"));
	prov_sql_bind_text(s->crash, 4, rep.time);
	prov_sql_bind_text(s->crash, 5, rep.host);
	prov_sql_bind_text(s->crash, 6, store_jstr(store_jget(r, "input"), "path"));
	prov_sql_bind_text(s->crash, 7, store_jstr(crash, "context"));
	prov_sql_bind_text(s->crash, 8, rep.patterns);
	prov_sql_bind_text(s->crash, 9, store_jstr(store_jget(r, "process"), "executable"));
	prov_sql_bind_text(s->crash, 10, store_jstr(store_jget(r, "input"), "kind"));
	prov_sql_bind_text(s->crash, 11, rep.hash);
	prov_sql_bind_text(s->crash, 12, rep.now);
	prov_sql_bind_text(s->crash, 13, rep.image[0]);
	prov_sql_bind_text(s->crash, 14, rep.image[1]);
	prov_sql_bind_text(s->crash, 15, rep.image[2]);
	if ((err = step_done(s->db, s->crash, "insert crash")) < 0)
		goto cleanup;
	*out_id = sqlite3_last_insert_rowid(s->db);
	if ((err = insert_rows(s, *out_id, r)) < 0)
		goto cleanup;
	if ((err = prepare_kept(&s->report, s->db, "INSERT INTO reports VALUES(?,?)")) < 0)
		goto cleanup;
	sqlite3_bind_int64(s->report, 1, *out_id);
	sqlite3_bind_text(s->report, 2, json, (int)len, SQLITE_TRANSIENT);
	if ((err = step_done(s->db, s->report, "insert report")) < 0)
		goto cleanup;
	if ((err = run_summary(s, &s->sum_hosts, store_summary_hosts_sql, &rep, *out_id)) < 0 ||
	    (err = run_summary(s, &s->sum_versions, store_summary_versions_sql, &rep, *out_id)) < 0 ||
	    (err = run_summary(s, &s->sum_days, store_summary_days_sql, &rep, *out_id)) < 0)
		goto cleanup;
cleanup:
	store_report_release(&rep);
	return err;
}

static int op_add(int64_t *out_id, struct store_backend *be, const char *json, size_t len,
		  const struct prov_store_meta *meta)
{
	struct store_sqlite *s = lite(be);
	struct prov_jv *r = NULL;
	int err, own_tx = !s->in_tx;
	int64_t id = 0;

	if (len > INT32_MAX)
		return prov_error_set(PROV_ELIMIT, "report too large");
	if ((err = prov_jv_parse(&r, json, len)) < 0)
		return err;
	if ((err = store_check_report(r)) < 0)
		goto cleanup;
	if (own_tx && (err = op_begin(be)) < 0)
		goto cleanup;
	err = add_parsed(&id, s, r, json, len, meta);
	if (err < 0) {
		if (own_tx)
			op_rollback(be);
		goto cleanup;
	}
	if (own_tx) {
		int e = op_commit(be);

		if (e < 0) {
			err = e;
			goto cleanup;
		}
	}
	*out_id = id;
cleanup:
	prov_jv_free(r);
	return err;
}

/* ----------------------------------------------------------------- history */

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? prov_xstrdup((const char *)t) : NULL;
}

#define COMPONENT_SET \
	"(SELECT group_concat(nv, ', ') FROM (SELECT name || ' ' || ifnull(version, '?') AS nv" \
	" FROM components WHERE crash_id = %s ORDER BY name, version))"

/* The stored report of one crash, as the bytes it was stored with. */
static int op_report(char **out, size_t *out_len, struct store_backend *be, int64_t crash_id)
{
	struct store_sqlite *s = lite(be);
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT json FROM reports WHERE crash_id = ?1", -1, &st, NULL) !=
	    SQLITE_OK)
		return prov_sql_error(s->db, "store", "read report");
	sqlite3_bind_int64(st, 1, crash_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		size_t n = (size_t)sqlite3_column_bytes(st, 0);
		const void *p = sqlite3_column_blob(st, 0);

		*out = prov_xmalloc(n + 1);
		if (n)
			memcpy(*out, p, n);
		(*out)[n] = '\0';
		*out_len = n;
	} else if (rc == SQLITE_DONE) {
		err = 1;
	} else {
		err = prov_sql_error(s->db, "store", "read report");
	}
	sqlite3_finalize(st);
	return err;
}

static int op_history(char **out, struct store_backend *be, int64_t crash_id)
{
	struct store_sqlite *s = lite(be);
	sqlite3_stmt *st = NULL;
	char *sig = NULL, *mine = NULL, *since = NULL, *sql = NULL;
	struct prov_buf b = PROV_BUF_INIT;
	int64_t count = 0, hosts = 0;
	int err = PROV_ERROR, rc, found = 0;

	sql = prov_xasprintf("SELECT signature, " COMPONENT_SET " FROM crashes WHERE id=?1", "?1");
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		goto sqlfail;
	sqlite3_bind_int64(st, 1, crash_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		err = prov_error_set(PROV_ENOTFOUND, "no crash %lld in the store", (long long)crash_id);
		goto cleanup;
	}
	sig = col_dup(st, 0);
	mine = col_dup(st, 1);
	sqlite3_finalize(st);
	st = NULL;

	if (sqlite3_prepare_v2(s->db, "SELECT count(*), count(DISTINCT host), min(time) FROM crashes"
			       " WHERE signature=?1 AND id != ?2", -1, &st, NULL) != SQLITE_OK)
		goto sqlfail;
	sqlite3_bind_text(st, 1, sig, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, crash_id);
	if (sqlite3_step(st) != SQLITE_ROW)
		goto sqlfail;
	count = sqlite3_column_int64(st, 0);
	hosts = sqlite3_column_int64(st, 1);
	since = col_dup(st, 2);
	sqlite3_finalize(st);
	st = NULL;
	if (count == 0) {
		*out = NULL;
		err = 0;
		goto cleanup;
	}
	prov_buf_printf(&b, "seen %lld time%s on %lld host%s", (long long)count, count == 1 ? "" : "s",
			(long long)hosts, hosts == 1 ? "" : "s");
	if (since)
		prov_buf_printf(&b, " since %.10s", since);

	free(sql);
	sql = prov_xasprintf("SELECT time, host, " COMPONENT_SET " FROM crashes c"
			     " WHERE signature=?1 AND id != ?2 ORDER BY time IS NULL, time DESC, id DESC"
			     " LIMIT 100000", "c.id");
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		goto sqlfail;
	sqlite3_bind_text(st, 1, sig, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, crash_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		const char *host = (const char *)sqlite3_column_text(st, 1);
		const char *set = (const char *)sqlite3_column_text(st, 2);

		if ((set ? set : "")[0] == (mine ? mine : "")[0] &&
		    strcmp(set ? set : "", mine ? mine : "") == 0) {
			prov_buf_printf(&b, "; last with the same component versions: %s on %s",
					t ? t : "an unknown time", host ? host : "unknown");
			found = 1;
			break;
		}
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		goto sqlfail;
	if (!found)
		prov_buf_printf(&b, "; never before with these component versions (%s)",
				mine ? mine : "none known");
	*out = prov_buf_detach(&b);
	err = 0;
	goto cleanup;
sqlfail:
	err = prov_sql_error(s->db, "store", "history");
cleanup:
	sqlite3_finalize(st);
	prov_buf_release(&b);
	free(sql);
	free(sig);
	free(mine);
	free(since);
	return err;
}

/* ------------------------------------------------------------------ triage */

static int prep_sel(sqlite3_stmt **st, struct store_sqlite *s, const struct prov_triage_opts *o,
		    const char *head, const char *tail)
{
	char *sel = store_triage_selection(o), *sql = prov_xasprintf("%s%s%s", head, sel, tail);
	int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);

	free(sel);
	free(sql);
	if (rc != SQLITE_OK)
		return prov_sql_error(s->db, "store", "triage");
	prov_sql_bind_text(*st, 1, o->since);
	prov_sql_bind_text(*st, 2, o->component);
	if (o->until)
		prov_sql_bind_text(*st, 4, o->until);
	if (o->host)
		prov_sql_bind_text(*st, 5, o->host);
	if (o->signature)
		prov_sql_bind_text(*st, 6, o->signature);
	if (o->component && o->component_version)
		prov_sql_bind_text(*st, 7, o->component_version);
	if (o->image)
		prov_sql_bind_text(*st, 8, o->image);
	return 0;
}

/*
 * Every (component, version) of the selection with its crashes per group
 * and in all: one pass over the selection's components (store-int.h).
 */
static int triage_versions(struct prov_triage *t, struct store_sqlite *s, const struct prov_triage_opts *o,
			   int summary)
{
	sqlite3_stmt *st = NULL;
	size_t *index = store_triage_index(t);
	int64_t *counts = prov_xcalloc(t->ngroups + 1, sizeof(*counts)), total = 0, n;
	int64_t *approx = prov_xcalloc(t->ngroups + 1, sizeof(*approx));
	char *name = NULL, *ver = NULL;
	long gi;
	int rc, err;

	/* an older store read as it is recorded no commit_is: none approximate */
	if (summary)
		err = prov_sql_prepare(&st, s->db, "store", "SELECT component, version, signature, count,"
				       " approximate FROM signature_versions ORDER BY 1, 2");
	else
		err = prep_sel(&st, s, o, s->schema >= 3 ?
			    "SELECT v.name, ifnull(v.version, '?'), c.signature,"
			    " count(DISTINCT v.crash_id),"
			    " count(DISTINCT v.crash_id) FILTER (WHERE v.commit_is = 'approximate')"
			    " FROM crashes c JOIN components v ON v.crash_id = c.id WHERE" :
			    "SELECT v.name, ifnull(v.version, '?'), c.signature,"
			    " count(DISTINCT v.crash_id), 0"
			    " FROM crashes c JOIN components v ON v.crash_id = c.id WHERE", ""
			    " GROUP BY 1, 2, 3 ORDER BY 1, 2");
	if (err < 0)
		goto cleanup;
	for (;;) {
		const char *rn = NULL, *rv = NULL;

		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
			err = prov_sql_error(s->db, "store", "triage");
			goto cleanup;
		}
		if (rc == SQLITE_ROW) {
			rn = (const char *)sqlite3_column_text(st, 0);
			rv = (const char *)sqlite3_column_text(st, 1);
			rn = rn ? rn : "";
			rv = rv ? rv : "?";
		}
		if (name && (rc == SQLITE_DONE || strcmp(name, rn) || strcmp(ver, rv))) {
			store_triage_add_version(t, name, ver, counts, approx, total);
			free(name);
			free(ver);
			name = ver = NULL;
		}
		if (rc == SQLITE_DONE)
			break;
		if (!name) {
			name = prov_xstrdup(rn);
			ver = prov_xstrdup(rv);
			total = 0;
			memset(counts, 0, (t->ngroups + 1) * sizeof(*counts));
			memset(approx, 0, (t->ngroups + 1) * sizeof(*approx));
		}
		n = sqlite3_column_int64(st, 3);
		total += n;
		gi = sqlite3_column_text(st, 2) ? store_triage_find(t, index, (const char *)sqlite3_column_text(st, 2)) : -1;
		if (gi >= 0) {
			counts[gi] += n;
			approx[gi] += sqlite3_column_int64(st, 4);
		}
	}
	err = 0;
cleanup:
	sqlite3_finalize(st);
	free(name);
	free(ver);
	free(counts);
	free(approx);
	free(index);
	return err;
}


/* An older store read as it is (schema 1 to 6) did not record the image a crash ran in. */
static int no_images(const struct store_sqlite *s)
{
	return prov_error_set(PROV_EUNKNOWN, "could not determine: crash store '%s' has schema %d, which "
			      "records no images (a write, resolve --store or import, upgrades it to %d)",
			      s->path, s->schema, PROV_STORE_SCHEMA);
}

static int op_triage(struct prov_triage *out, struct store_backend *be,
		     const struct prov_triage_opts *opts)
{
	struct store_sqlite *s = lite(be);
	struct prov_triage t = { 0 };
	struct prov_triage_opts o = *opts;
	sqlite3_stmt *st = NULL, *latest = NULL, *fr = NULL;
	size_t cap = 0, i;
	/* the whole store from the summaries, kept right by the writers and the delete trigger since schema 4 */
	int summary = s->schema >= 4 && !o.since && !o.component && !o.until && !o.host && !o.signature &&
		!o.image;
	int err = PROV_ERROR, rc;

	if ((o.image || (o.by && !strcmp(o.by, "image"))) && s->schema < 7)
		return no_images(s);
	if (!o.max_frames)
		o.max_frames = 5;
	if (summary)
		err = prov_sql_prepare(&st, s->db, "store", "SELECT coalesce(sum(count), 0),"
				       " count(DISTINCT host) FROM signature_hosts");
	else
		err = prep_sel(&st, s, &o, "SELECT count(*), count(DISTINCT host) FROM crashes c WHERE", "");
	if (err < 0)
		goto cleanup;
	if (sqlite3_step(st) != SQLITE_ROW)
		goto sqlfail;
	t.total = sqlite3_column_int64(st, 0);
	t.hosts = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	st = NULL;

	if (summary)
		err = prov_sql_prepare(&st, s->db, "store", "SELECT signature, sum(count), count(*),"
				       " min(first_seen), max(last_seen) FROM signature_hosts"
				       " GROUP BY signature ORDER BY 2 DESC, 1");
	else
		err = prep_sel(&st, s, &o, "SELECT signature, count(*), count(DISTINCT host), min(time),"
			       " max(time) FROM crashes c WHERE", "GROUP BY signature ORDER BY 2 DESC, 1");
	if (err < 0)
		goto cleanup;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct prov_triage_group *g;

		if (t.ngroups == cap) {
			cap = cap ? 2 * cap : 16;
			t.groups = prov_xrealloc(t.groups, cap * sizeof(*t.groups));
		}
		g = &t.groups[t.ngroups++];
		memset(g, 0, sizeof(*g));
		g->signature = col_dup(st, 0);
		g->count = sqlite3_column_int64(st, 1);
		g->hosts = sqlite3_column_int64(st, 2);
		g->first_seen = col_dup(st, 3);
		g->last_seen = col_dup(st, 4);
	}
	if (rc != SQLITE_DONE)
		goto sqlfail;
	sqlite3_finalize(st);
	st = NULL;

	if ((err = prep_sel(&latest, s, &o, "SELECT id, signal_name, context FROM crashes c"
			    " WHERE", "AND signature = ?3 ORDER BY time IS NULL, time DESC, id DESC LIMIT 1")) < 0)
		goto cleanup;
	if ((err = triage_versions(&t, s, &o, summary)) < 0)
		goto cleanup;
	if (sqlite3_prepare_v2(s->db, "SELECT function, file, line, module FROM frames"
			       " WHERE crash_id = ?1 AND (crashed = 1 OR (?2 AND thread = 0))"
			       " ORDER BY thread, depth LIMIT ?3", -1, &fr, NULL) != SQLITE_OK)
		goto sqlfail;
	for (i = 0; i < t.ngroups; i++) {
		struct prov_triage_group *g = &t.groups[i];
		int any_crashed;

		sqlite3_reset(latest);
		sqlite3_bind_text(latest, 3, g->signature, -1, SQLITE_STATIC);
		if (sqlite3_step(latest) != SQLITE_ROW)
			goto sqlfail;
		g->example_id = sqlite3_column_int64(latest, 0);
		g->signal_name = col_dup(latest, 1);
		g->context = col_dup(latest, 2);

		/* a text backtrace may mark no crashing thread: then its first thread */
		any_crashed = strchr(g->signature, '|') != NULL;
		sqlite3_reset(fr);
		sqlite3_bind_int64(fr, 1, g->example_id);
		sqlite3_bind_int(fr, 2, !any_crashed);
		sqlite3_bind_int64(fr, 3, (int64_t)o.max_frames);
		g->frames = prov_xcalloc(o.max_frames, sizeof(*g->frames));
		while ((rc = sqlite3_step(fr)) == SQLITE_ROW && g->nframes < o.max_frames) {
			struct prov_triage_frame *f = &g->frames[g->nframes++];

			f->function = col_dup(fr, 0);
			f->file = col_dup(fr, 1);
			f->line = sqlite3_column_int64(fr, 2);
			f->module = col_dup(fr, 3);
		}
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			goto sqlfail;
	}
	*out = t;
	memset(&t, 0, sizeof(t));
	err = 0;
	goto cleanup;
sqlfail:
	err = prov_sql_error(s->db, "store", "triage");
cleanup:
	sqlite3_finalize(st);
	sqlite3_finalize(latest);
	sqlite3_finalize(fr);
	prov_triage_release(&t);
	return err;
}

/* ------------------------------------------------------------------- query */

struct query_guard {
	struct prov_sql_guard clock;	/* also held inside one step: sqlite-guard.h */
	char refused[160];
};

static int query_progress(void *data)
{
	struct query_guard *g = data;

	return prov_sql_guard_expired(&g->clock);
}

static int query_authorizer(void *data, int action, const char *a1, const char *a2,
			    const char *db, const char *trigger)
{
	static const char *const pragmas[] = {
		"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo",
		"table_list", "foreign_key_list", NULL,
	};
	struct query_guard *g = data;
	size_t i;

	(void)db;
	(void)trigger;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_FUNCTION:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_PRAGMA:
		for (i = 0; a1 && pragmas[i]; i++)
			if (!strcasecmp(a1, pragmas[i]))
				return SQLITE_OK;
		if (!g->refused[0])
			snprintf(g->refused, sizeof(g->refused), "PRAGMA %s is not allowed (only table_info-style pragmas)",
				 a1 ? a1 : "?");
		return SQLITE_DENY;
	case SQLITE_ATTACH:
	case SQLITE_DETACH:
		if (!g->refused[0])
			snprintf(g->refused, sizeof(g->refused), "ATTACH and DETACH are not allowed");
		return SQLITE_DENY;
	default:
		if (!g->refused[0])
			snprintf(g->refused, sizeof(g->refused),
				 "the store is read-only here: only SELECT statements run");
		return SQLITE_DENY;
	}
}

/* Only blanks, semicolons and comments after the first statement. */

static int op_query(struct store_backend *be, const char *sql, const struct prov_query_opts *opts,
		    store_row_fn row, void *data)
{
	struct store_sqlite *s = lite(be);
	struct query_guard g = { 0 };
	sqlite3_stmt *st = NULL;
	const char *tail = NULL, **names = NULL, **values = NULL;
	char *types = NULL, **hexes = NULL;
	uint64_t nrows = 0;
	int ncols = 0, i, rc, err;

	if (!s->readonly)
		return prov_error_set(PROV_ERROR, "store: queries need a read-only store");
	g.clock.start_ms = prov_now_ms();
	g.clock.timeout_ms = opts->timeout_ms ? opts->timeout_ms : 10000;
	if (prov_sql_guard_install(s->db, &g.clock) < 0) {
		err = prov_sql_error(s->db, "store", "query");
		goto cleanup;
	}
	sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, 64 << 20);
	sqlite3_limit(s->db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
	sqlite3_limit(s->db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_set_authorizer(s->db, query_authorizer, &g);
	sqlite3_progress_handler(s->db, 1000, query_progress, &g);

	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, &tail);
	if (rc != SQLITE_OK) {
		if (g.refused[0])
			err = prov_error_set(PROV_EINPUT, "query refused: %s", g.refused);
		else if (g.clock.timed_out)
			err = prov_error_set(PROV_EINPUT, "query ran past its time limit of %llu ms",
					     (unsigned long long)g.clock.timeout_ms);
		else
			err = prov_error_set(PROV_EINPUT, "bad query: %s", sqlite3_errmsg(s->db));
		goto cleanup;
	}
	if (!st) {
		err = prov_error_set(PROV_EINPUT, "bad query: no SQL statement given");
		goto cleanup;
	}
	if (tail && !store_only_trailer(tail)) {
		err = prov_error_set(PROV_EINPUT, "query refused: exactly one statement is allowed");
		goto cleanup;
	}
	if (!sqlite3_stmt_readonly(st)) {
		err = prov_error_set(PROV_EINPUT, "query refused: the store is read-only here: only SELECT statements run");
		goto cleanup;
	}
	ncols = sqlite3_column_count(st);
	names = prov_xcalloc((size_t)ncols + 1, sizeof(*names));
	values = prov_xcalloc((size_t)ncols + 1, sizeof(*values));
	hexes = prov_xcalloc((size_t)ncols + 1, sizeof(*hexes));
	types = prov_xcalloc((size_t)ncols + 1, 1);
	for (i = 0; i < ncols; i++) {
		const char *n = sqlite3_column_name(st, i);

		names[i] = n ? n : "?";
	}
	if ((err = row((size_t)ncols, names, NULL, NULL, data)) != 0)
		goto cleanup;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (++nrows > opts->max_rows) {
			err = prov_error_set(PROV_EINPUT, "query returned more than %llu rows; add a LIMIT or raise --max-rows",
					     (unsigned long long)opts->max_rows);
			goto cleanup;
		}
		for (i = 0; i < ncols; i++) {
			free(hexes[i]);
			hexes[i] = NULL;
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER:
				types[i] = 'i';
				break;
			case SQLITE_FLOAT:
				types[i] = 'r';
				break;
			case SQLITE_BLOB:
				types[i] = 'b';
				break;
			case SQLITE_NULL:
				types[i] = 'n';
				break;
			default:
				types[i] = 't';
			}
			if (types[i] == 'b') {
				hexes[i] = prov_hex(sqlite3_column_blob(st, i),
						    (size_t)sqlite3_column_bytes(st, i));
				values[i] = hexes[i];
			} else if (types[i] == 'n') {
				values[i] = NULL;
			} else if (types[i] == 'r') {
				/* sqlite3_column_text keeps 15 digits: not round-trip */
				char real[40];

				prov_real_format(real, sizeof(real), sqlite3_column_double(st, i));
				hexes[i] = prov_xstrdup(real);
				values[i] = hexes[i];
			} else {
				values[i] = (const char *)sqlite3_column_text(st, i);
			}
		}
		if ((err = row((size_t)ncols, names, values, types, data)) != 0)
			goto cleanup;
	}
	if (rc != SQLITE_DONE) {
		if (g.clock.timed_out)
			err = prov_error_set(PROV_EINPUT, "query ran past its time limit of %llu ms; narrow it or raise --timeout",
					     (unsigned long long)g.clock.timeout_ms);
		else
			err = prov_error_set(PROV_EINPUT, "query failed: %s", sqlite3_errmsg(s->db));
		goto cleanup;
	}
	err = 0;
cleanup:
	sqlite3_finalize(st);
	sqlite3_set_authorizer(s->db, NULL, NULL);
	sqlite3_progress_handler(s->db, 0, NULL, NULL);
	prov_sql_guard_remove(s->db);
	for (i = 0; hexes && i < ncols; i++)
		free(hexes[i]);
	free(hexes);
	free(names);
	free(values);
	free(types);
	return err;
}

/* prov_store_rows: triage's selection as rows for the web view, bounded in rows and time. */
static int op_rows(struct store_backend *be, int what, const struct prov_triage_opts *o,
		   const char *signature, uint64_t max_rows, uint64_t timeout_ms,
		   store_row_fn row, void *data)
{
	struct store_sqlite *s = lite(be);
	struct query_guard g = { 0 };
	char *sql = store_rows_sql(what, o, max_rows + 1, s->schema >= 6);
	sqlite3_stmt *st = NULL;
	uint64_t n = 0;
	int rc, i, ncols, err = 0;

	if ((what == PROV_STORE_MARKS || what == PROV_STORE_FIX_BUILDS) && s->schema < 5) {
		free(sql);	/* an older store read as it is: no marks yet */
		return 0;
	}
	if ((what == PROV_STORE_IMAGES || what == PROV_STORE_IMAGE_MATCH || o->image) && s->schema < 7) {
		free(sql);
		return no_images(s);
	}

	g.clock.start_ms = prov_now_ms();
	g.clock.timeout_ms = timeout_ms;
	if (prov_sql_guard_install(s->db, &g.clock) < 0) {
		err = prov_sql_error(s->db, "store", "rows");
		goto cleanup;
	}
	sqlite3_progress_handler(s->db, 1000, query_progress, &g);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		err = prov_sql_error(s->db, "store", "rows");
		goto cleanup;
	}
	prov_sql_bind_text(st, 1, o->since);
	prov_sql_bind_text(st, 2, o->component);
	prov_sql_bind_text(st, 3, signature);
	if (o->until)
		prov_sql_bind_text(st, 4, o->until);
	if (o->host)
		prov_sql_bind_text(st, 5, o->host);
	if (o->signature)
		prov_sql_bind_text(st, 6, o->signature);
	if (o->component && o->component_version)
		prov_sql_bind_text(st, 7, o->component_version);
	if (o->image)
		prov_sql_bind_text(st, 8, o->image);
	ncols = sqlite3_column_count(st);
	if (ncols > 8)
		ncols = 8;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *v[8];

		if (++n > max_rows) {
			err = 1;
			goto cleanup;
		}
		for (i = 0; i < ncols; i++)
			v[i] = (const char *)sqlite3_column_text(st, i);
		if ((err = row((size_t)ncols, NULL, v, "tttttttt", data)) < 0)
			goto cleanup;
	}
	if (rc != SQLITE_DONE)
		err = g.clock.timed_out ?
			prov_error_set(PROV_ELIMIT, "store: the query ran past its time limit of %llu ms",
				       (unsigned long long)timeout_ms) :
			prov_sql_error(s->db, "store", "rows");
cleanup:
	sqlite3_finalize(st);
	sqlite3_progress_handler(s->db, 0, NULL, NULL);
	prov_sql_guard_remove(s->db);
	free(sql);
	return err;
}

/* provenance mark: one upsert, its own transaction. */
static int op_mark(struct store_backend *be, const char *const v[6])
{
	struct store_sqlite *s = lite(be);
	sqlite3_stmt *st = NULL;
	int i, err;

	if ((err = prov_sql_prepare(&st, s->db, "store", store_mark_sql)) < 0)
		return err;
	for (i = 0; i < 6; i++)
		prov_sql_bind_text(st, i + 1, v[i]);
	err = step_done(s->db, st, "mark");
	sqlite3_finalize(st);
	return err;
}

/* prune: one statement in its own transaction (or the caller's); the delete triggers do the rest. */
static int op_prune(int64_t *out_n, struct store_backend *be, const char *before, int64_t keep,
		    int dry_run)
{
	struct store_sqlite *s = lite(be);
	sqlite3_stmt *st = NULL;
	char *sql = prov_xasprintf("%s FROM crashes WHERE%s", dry_run ? "SELECT count(*)" : "DELETE",
				   store_prune_where);
	int rc, err;

	if ((err = prov_sql_prepare(&st, s->db, "store", sql)) < 0)
		goto cleanup;
	sqlite3_bind_text(st, 1, before, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, keep);
	rc = sqlite3_step(st);
	if (rc != (dry_run ? SQLITE_ROW : SQLITE_DONE)) {
		err = prov_sql_error(s->db, "store", "prune");
		goto cleanup;
	}
	/* changes64: the statement's own rows, not its triggers' */
	*out_n = dry_run ? sqlite3_column_int64(st, 0) : (int64_t)sqlite3_changes64(s->db);
cleanup:
	sqlite3_finalize(st);
	free(sql);
	return err;
}

static int op_stale(struct store_backend *be)
{
	return lite(be)->stale;
}

static int deadline_progress(void *data)
{
	return prov_sql_guard_expired(data);
}

/* prov_store_triage_bounded: the progress handler and the guarded functions, until lifted. */
static int op_deadline(struct store_backend *be, uint64_t timeout_ms)
{
	struct store_sqlite *s = lite(be);

	if (!timeout_ms) {
		sqlite3_progress_handler(s->db, 0, NULL, NULL);
		prov_sql_guard_remove(s->db);
		return 0;
	}
	s->deadline.start_ms = prov_now_ms();
	s->deadline.timeout_ms = timeout_ms;
	s->deadline.timed_out = 0;
	if (prov_sql_guard_install(s->db, &s->deadline) < 0)
		return prov_sql_error(s->db, "store", "deadline");
	sqlite3_progress_handler(s->db, 1000, deadline_progress, &s->deadline);
	return 0;
}

static const struct store_ops sqlite_ops = {
	.free = op_free,
	.begin = op_begin,
	.commit = op_commit,
	.rollback = op_rollback,
	.add = op_add,
	.history = op_history,
	.report = op_report,
	.prune = op_prune,
	.triage = op_triage,
	.mark = op_mark,
	.query = op_query,
	.rows = op_rows,
	.stale = op_stale,
	.deadline = op_deadline,
};
