/* The crash store on PostgreSQL, through libpq loaded lazily: a store_ops backend (store-int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "store.h"
#include "store-int.h"
#include "buf.h"
#include "error.h"
#include "jsonread.h"
#include "util.h"
#include "banned.h"

/*
 * The crash store on PostgreSQL, through libpq. Credentials come the libpq
 * way (PGPASSWORD, ~/.pgpass, service files, sslmode...); messages name the
 * store by its safe name (no password). Every report is one transaction:
 * INSERT ... ON CONFLICT (hash) DO NOTHING, its rows, and the per-signature
 * summaries, so that many writers deduplicate against each other and a
 * killed one leaves only whole reports.
 */

/* The backend behind a struct store_backend handle (store-int.h). */
struct store_pg {
	PGconn *conn;
	char *name;
	int readonly;
	int in_tx;
	int prepared;	/* the insert statements */
	int stale;	/* a write found the schema changed under it: no more writes */
	int64_t ids[256];	/* crash ids taken from the sequence, not yet used */
	int nids;
};

#define PG_RETRIES 5

static struct store_pg *pgs(struct store_backend *be)
{
	return (struct store_pg *)be;
}

static void quiet_notices(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

char *prov_store_safe_name(const char *where)
{
	static const char *const keep[] = { "host", "hostaddr", "port", "dbname", "user", "service",
					    NULL };
	PQconninfoOption *opts, *o;
	struct prov_buf b = PROV_BUF_INIT;
	char *err = NULL;
	size_t i;

	if (!prov_store_is_pg(where))
		return prov_xstrdup(where);
	opts = PQconninfoParse(where, &err);
	if (!opts) {
		PQfreemem(err);
		return prov_xstrdup("postgresql (unparsable connection string)");
	}
	prov_buf_puts(&b, "postgresql:");
	for (i = 0; keep[i]; i++)
		for (o = opts; o->keyword; o++)
			if (!strcmp(o->keyword, keep[i]) && o->val && *o->val)
				prov_buf_printf(&b, " %s=%s", o->keyword, o->val);
	PQconninfoFree(opts);
	return prov_buf_detach(&b);
}

/* "?N" to "$N": the shared SQL is written in SQLite's numbered form. */
static char *pg_sql(const char *sql)
{
	char *out = prov_xstrdup(sql), *p;

	for (p = out; *p; p++)
		if (*p == '?' && p[1] >= '0' && p[1] <= '9')
			*p = '$';
	return out;
}

/* The server's message, first line only. */
static const char *pg_msg(PGconn *c, const PGresult *r)
{
	static char line[400];
	const char *m = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	size_t n;

	if (!m)
		m = PQerrorMessage(c);
	snprintf(line, sizeof(line), "%s", m && *m ? m : "unknown error");
	n = strcspn(line, "\n");
	line[n] = 0;
	return line;
}

static int pg_fail(struct store_pg *s, PGresult *r, const char *what)
{
	int err = prov_error_set(PROV_ERROR, "store %s: %s: %s", s->name, what, pg_msg(s->conn, r));

	PQclear(r);
	return err;
}

static int pg_exec(struct store_pg *s, const char *sql)
{
	PGresult *r = PQexec(s->conn, sql);

	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		return pg_fail(s, r, "sql");
	PQclear(r);
	return 0;
}

/* A retryable conflict between writers: serialization failure or deadlock. */
static int retryable(const PGresult *r)
{
	const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

	return st && (!strcmp(st, "40001") || !strcmp(st, "40P01"));
}

static int one_text(char **out, struct store_pg *s, const char *sql)
{
	PGresult *r = PQexec(s->conn, sql);

	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		return pg_fail(s, r, "sql");
	*out = PQntuples(r) > 0 && !PQgetisnull(r, 0, 0) ? prov_xstrdup(PQgetvalue(r, 0, 0)) : NULL;
	PQclear(r);
	return 0;
}

/* Create or upgrade the schema under an advisory lock: the first of many writers does it. */
/*
 * Schema 3 -> 4: every crash signed again from its stored report with the
 * current rule (docs/signature.md), 1,000 crashes at a time (never every
 * report in memory at once), in the migration's transaction.
 */
static int pg_resign(struct store_pg *s)
{
	char last[24] = "0";
	int i, n, err = 0;

	do {
		const char *v[1] = { last };
		PGresult *r = PQexecParams(s->conn, "SELECT c.id, c.signature, r.json FROM crashes c"
					   " JOIN reports r ON r.crash_id = c.id WHERE c.id > $1::bigint"
					   " ORDER BY c.id LIMIT 1000", 1, NULL, v, NULL, NULL, 0);

		if (PQresultStatus(r) != PGRES_TUPLES_OK)
			return pg_fail(s, r, "recompute signatures");
		n = PQntuples(r);
		for (i = 0; i < n && !err; i++) {
			const char *json = PQgetvalue(r, i, 2);
			char *sig = prov_store_signature_of(json, strlen(json));

			if (sig && strcmp(sig, PQgetvalue(r, i, 1)) != 0) {
				const char *u[2] = { sig, PQgetvalue(r, i, 0) };
				PGresult *w = PQexecParams(s->conn, "UPDATE crashes SET signature = $1"
							   " WHERE id = $2::bigint", 2, NULL, u, NULL, NULL, 0);

				if (PQresultStatus(w) != PGRES_COMMAND_OK)
					err = pg_fail(s, w, "recompute signatures");
				else
					PQclear(w);
			}
			free(sig);
		}
		if (n)
			snprintf(last, sizeof(last), "%s", PQgetvalue(r, n - 1, 0));
		PQclear(r);
	} while (n == 1000 && !err);
	return err;
}

static int pg_schema(struct store_pg *s)
{
	char *ident = NULL, *ver = NULL, *crashes = NULL, *sql = NULL;
	int err, v;

	if (s->readonly) {
		if ((err = one_text(&ident, s, "SELECT to_regclass('store_meta')::text")) < 0)
			return err;
		if (!ident) {
			err = prov_error_set(PROV_ENOTFOUND, "no crash store in %s (resolve --store or import make one)",
					     s->name);
			goto cleanup;
		}
		free(ident);
		ident = NULL;
	} else {
		if ((err = pg_exec(s, "BEGIN")) < 0 ||
		    (err = pg_exec(s, "SELECT pg_advisory_xact_lock(1347573331)")) < 0)
			goto cleanup;
		if ((err = one_text(&ident, s, "SELECT to_regclass('store_meta')::text")) < 0 ||
		    (err = one_text(&crashes, s, "SELECT to_regclass('crashes')::text")) < 0)
			goto rollback;
		if (!ident && crashes) {
			err = prov_error_set(PROV_EINPUT, "%s has a 'crashes' table that is not a provenance crash store",
					     s->name);
			goto rollback;
		}
		if (!ident) {
			sql = store_schema_sql(STORE_PG);
			if ((err = pg_exec(s, sql)) < 0)
				goto rollback;
		}
		free(ident);
		ident = NULL;
	}
	if ((err = one_text(&ident, s, "SELECT value FROM store_meta WHERE key = 'identity'")) < 0 ||
	    (err = one_text(&ver, s, "SELECT value FROM store_meta WHERE key = 'schema'")) < 0)
		goto rollback;
	if (!ident || strcmp(ident, "provenance crash store") != 0 || !ver) {
		err = prov_error_set(PROV_EINPUT, "%s is not a provenance crash store", s->name);
		goto rollback;
	}
	v = (int)strtol(ver, NULL, 10);
	while (!s->readonly && v >= 1 && v < PROV_STORE_SCHEMA) {
		free(sql);
		sql = store_migration_sql(STORE_PG, v);
		if (sql && v == 3 && (err = pg_resign(s)) < 0)
			goto rollback;
		if (!sql || (err = pg_exec(s, sql)) < 0) {
			if (!sql)
				err = prov_error_set(PROV_EINPUT, "crash store %s has schema %d and no upgrade",
						     s->name, v);
			goto rollback;
		}
		v++;
	}
	if (v != PROV_STORE_SCHEMA) {
		err = prov_error_set(PROV_EINPUT, "crash store %s has schema %s; this provenance reads %d%s",
				     s->name, ver, PROV_STORE_SCHEMA,
				     v > PROV_STORE_SCHEMA ? " (made by a newer provenance)" :
				     " (open it for writing once to upgrade it)");
		goto rollback;
	}
	if (!s->readonly && (err = pg_exec(s, "COMMIT")) < 0)
		goto cleanup;
	err = 0;
	goto cleanup;
rollback:
	if (!s->readonly)
		PQclear(PQexec(s->conn, "ROLLBACK"));
cleanup:
	free(ident);
	free(ver);
	free(crashes);
	free(sql);
	return err;
}

static const struct store_ops pg_ops;
static void op_free(struct store_backend *be);

/*
 * libpq's parse error with every quoted part longer than one character
 * shown as "..." (it quotes the connection string or a piece of it, which
 * may hold the password); first line only.
 */
static char *quotes_hidden(const char *m)
{
	struct prov_buf b = PROV_BUF_INIT;
	const char *q;

	while (m && *m && *m != '\n') {
		if (*m != '"') {
			prov_buf_putc(&b, *m++);
			continue;
		}
		if (!(q = strchr(m + 1, '"')))
			break;
		if (q - m <= 2)
			prov_buf_add(&b, m, (size_t)(q - m + 1));
		else
			prov_buf_puts(&b, "\"...\"");
		m = q + 1;
	}
	prov_buf_rtrim(&b);
	return prov_buf_detach(&b);
}

int store_pg_open(struct store_backend **out, const struct store_ops **ops, const char *conninfo,
		  const char *safe_name, int readonly)
{
	struct store_pg *s = prov_xcalloc(1, sizeof(*s));
	PQconninfoOption *parsed;
	char *perr = NULL;
	int err;

	s->name = prov_xstrdup(safe_name);
	s->readonly = readonly;
	/* libpq's parse errors quote the string whole, password included */
	if (!(parsed = PQconninfoParse(conninfo, &perr))) {
		char *m = quotes_hidden(perr);

		err = prov_error_set(PROV_EINPUT, "cannot open crash store %s: %s", s->name,
				     *m ? m : "the connection string cannot be parsed");
		free(m);
		PQfreemem(perr);
		goto fail;
	}
	PQconninfoFree(parsed);
	s->conn = PQconnectdb(conninfo);
	if (!s->conn || PQstatus(s->conn) != CONNECTION_OK) {
		err = prov_error_set(PROV_EINPUT, "cannot open crash store %s: %s", s->name,
				     pg_msg(s->conn, NULL));
		goto fail;
	}
	PQsetNoticeProcessor(s->conn, quiet_notices, NULL);
	if ((err = pg_exec(s, "SET client_min_messages = warning")) < 0)
		goto fail;
	if (readonly && (err = pg_exec(s, "SET default_transaction_read_only = on")) < 0)
		goto fail;
	if ((err = pg_schema(s)) < 0)
		goto fail;
	*out = (struct store_backend *)s;
	*ops = &pg_ops;
	return 0;
fail:
	op_free((struct store_backend *)s);
	return err;
}

static void op_free(struct store_backend *be)
{
	struct store_pg *s = pgs(be);

	if (!s)
		return;
	PQfinish(s->conn);
	free(s->name);
	free(s);
}

/*
 * Batches on PostgreSQL stay one transaction per report (a killed importer
 * leaves whole reports, and many writers do not hold each other's locks):
 * begin and commit only mark the batch.
 */
static int op_begin(struct store_backend *be)
{
	struct store_pg *s = pgs(be);

	s->in_tx = 1;
	return 0;
}

static int op_commit(struct store_backend *be)
{
	struct store_pg *s = pgs(be);

	s->in_tx = 0;
	return 0;
}

static void op_rollback(struct store_backend *be)
{
	struct store_pg *s = pgs(be);

	s->in_tx = 0;
}

/* ----------------------------------------------------------------- adding */

/*
 * A report is sent as one pipeline (libpq pipeline mode): BEGIN, the crash
 * (ON CONFLICT (hash) DO NOTHING, with an id taken beforehand from the
 * sequence), its frames, modules and components as arrays (one statement
 * per table), the report, the summaries, COMMIT, then one sync: one round
 * trip. Every statement after the crash's is guarded by the crash existing
 * under that id, so a duplicate adds nothing anywhere.
 */
#define GUARD " WHERE EXISTS (SELECT 1 FROM crashes WHERE id = $1 AND hash = $2)"

static const char ins_crash[] =
	"INSERT INTO crashes(id, hash, signature, signal, signal_name, time, host, input,"
	" context, patterns, executable, kind, added, image_kind, image_digest, image_ref)"
	" VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16)"
	" ON CONFLICT (hash) DO NOTHING RETURNING id";
static const char ins_frames[] =
	"INSERT INTO frames SELECT $1, * FROM unnest($3::bigint[], $4::bigint[], $5::bigint[],"
	" $6::bigint[], $7::text[], $8::text[], $9::bigint[], $10::text[], $11::text[], $12::text[])"
	GUARD;
static const char ins_modules[] =
	"INSERT INTO modules SELECT $1, * FROM unnest($3::text[], $4::text[], $5::text[],"
	" $6::text[], $7::text[], $8::text[])" GUARD;
static const char ins_components[] =
	"INSERT INTO components SELECT $1, * FROM unnest($3::text[], $4::text[], $5::text[],"
	" $6::text[], $7::text[], $8::text[])" GUARD;
static const char ins_report[] = "INSERT INTO reports SELECT $1, $3" GUARD;

/* A PostgreSQL array literal, one element at a time. */
struct pg_array {
	struct prov_buf b;
};

static void arr_add(struct pg_array *a, const char *v)
{
	const char *p;

	prov_buf_putc(&a->b, a->b.len ? ',' : '{');
	if (!v) {
		prov_buf_puts(&a->b, "NULL");
		return;
	}
	prov_buf_putc(&a->b, '"');
	for (p = v; *p; p++) {
		if (*p == '"' || *p == '\\')
			prov_buf_putc(&a->b, '\\');
		prov_buf_putc(&a->b, *p);
	}
	prov_buf_putc(&a->b, '"');
}

static void arr_end(struct pg_array *a)
{
	if (!a->b.len)
		prov_buf_putc(&a->b, '{');
	prov_buf_putc(&a->b, '}');
}

static void arr_int(struct pg_array *a, const struct prov_jv *v)
{
	int64_t n;
	char num[24];

	if (store_jint(&n, v) < 0) {
		arr_add(a, NULL);
		return;
	}
	snprintf(num, sizeof(num), "%lld", (long long)n);
	arr_add(a, num);
}

static void arr_size(struct pg_array *a, size_t n)
{
	char num[24];

	snprintf(num, sizeof(num), "%zu", n);
	arr_add(a, num);
}

static char *int_text(const struct prov_jv *v)
{
	int64_t n;

	return store_jint(&n, v) == 0 ? prov_xasprintf("%lld", (long long)n) : NULL;
}

/* The rows of a report as array literals: frames 10, modules 6, components 6. */
struct pg_rows {
	struct pg_array f[10], m[6], c[6];
};

static void rows_build(struct pg_rows *w, const struct prov_jv *r)
{
	const struct prov_jv *threads = store_jarray(r, "threads"), *mods = store_jarray(r, "modules");
	const struct prov_jv *comps = store_jarray(r, "components");
	size_t i, k;

	for (i = 0; threads && i < threads->n; i++) {
		const struct prov_jv *t = &threads->items[i], *frames = store_jarray(t, "frames");
		const struct prov_jv *c = store_jget(t, "crashed");
		int crashed = c && c->type == PROV_JV_BOOL && c->boolean;

		for (k = 0; frames && k < frames->n; k++) {
			const struct prov_jv *f = &frames->items[k];
			const char *lang = store_jstr(f, "language");

			arr_size(&w->f[0], i);
			arr_int(&w->f[1], store_jget(t, "tid"));
			arr_add(&w->f[2], crashed ? "1" : "0");
			arr_size(&w->f[3], k);
			arr_add(&w->f[4], store_jstr(f, "function"));
			arr_add(&w->f[5], store_jstr(f, "file"));
			arr_int(&w->f[6], store_jget(f, "line"));
			arr_add(&w->f[7], store_jstr(f, "module"));
			arr_add(&w->f[8], store_jstr(f, "component"));
			arr_add(&w->f[9], lang && !strcmp(lang, "python") ? "python" : "native");
		}
	}
	for (i = 0; mods && i < mods->n; i++) {
		const struct prov_jv *m = &mods->items[i], *p = store_jget(m, "package");

		arr_add(&w->m[0], store_jstr(m, "path"));
		arr_add(&w->m[1], store_jstr(m, "build_id"));
		arr_add(&w->m[2], store_jstr(p, "kind"));
		arr_add(&w->m[3], store_jstr(p, "name"));
		arr_add(&w->m[4], store_jstr(p, "version"));
		arr_add(&w->m[5], store_jstr(m, "component"));
	}
	for (i = 0; comps && i < comps->n; i++) {
		const struct prov_jv *c = &comps->items[i];

		if (!store_jstr(c, "name"))
			continue;
		arr_add(&w->c[0], store_jstr(c, "name"));
		arr_add(&w->c[1], store_jstr(c, "version"));
		arr_add(&w->c[2], store_jstr(c, "commit"));
		arr_add(&w->c[3], store_jstr(c, "repo"));
		arr_add(&w->c[4], store_jstr(c, "commit_is"));
		arr_add(&w->c[5], store_jstr(c, "found_by"));
	}
	for (i = 0; i < 10; i++)
		arr_end(&w->f[i]);
	for (i = 0; i < 6; i++)
		arr_end(&w->m[i]);
	for (i = 0; i < 6; i++)
		arr_end(&w->c[i]);
}

static void rows_init(struct pg_rows *w)
{
	const struct prov_buf empty = PROV_BUF_INIT;
	size_t i;

	for (i = 0; i < 10; i++)
		w->f[i].b = empty;
	for (i = 0; i < 6; i++)
		w->m[i].b = empty;
	for (i = 0; i < 6; i++)
		w->c[i].b = empty;
}

static void rows_release(struct pg_rows *w)
{
	size_t i;

	for (i = 0; i < 10; i++)
		prov_buf_release(&w->f[i].b);
	for (i = 0; i < 6; i++)
		prov_buf_release(&w->m[i].b);
	for (i = 0; i < 6; i++)
		prov_buf_release(&w->c[i].b);
}

/* The next crash id, from a block taken from the sequence (one round trip per 256). */
static int next_id(int64_t *out, struct store_pg *s)
{
	PGresult *r;
	int i;

	if (s->nids == 0) {
		r = PQexec(s->conn, "SELECT nextval(pg_get_serial_sequence('crashes', 'id'))"
			   " FROM generate_series(1, 256)");
		if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 256)
			return pg_fail(s, r, "crash ids");
		for (i = 0; i < 256; i++)
			s->ids[255 - i] = strtoll(PQgetvalue(r, i, 0), NULL, 10);
		s->nids = 256;
		PQclear(r);
	}
	*out = s->ids[--s->nids];
	return 0;
}

/* The insert statements, prepared once per connection (named by their first letter). */
static int prepare_inserts(struct store_pg *s)
{
	/* text, text, text, bigint: the summaries' ?1..?4, some unused by a statement */
	static const Oid summary_types[4] = { 25, 25, 25, 20 };
	char *hsql = pg_sql(store_summary_hosts_sql), *vsql = pg_sql(store_summary_versions_sql),
	     *dsql = pg_sql(store_summary_days_sql);
	const char *names[8] = { "c", "f", "m", "k", "r", "h", "v", "d" };
	const char *sqls[8] = { ins_crash, ins_frames, ins_modules, ins_components, ins_report,
				hsql, vsql, dsql };
	int i, err = 0;

	for (i = 0; i < 8 && !err; i++) {
		PGresult *r = PQprepare(s->conn, names[i], sqls[i], i >= 5 ? 4 : 0,
					i >= 5 ? summary_types : NULL);

		if (PQresultStatus(r) != PGRES_COMMAND_OK)
			err = pg_fail(s, r, "prepare");
		else
			PQclear(r);
	}
	free(hsql);
	free(vsql);
	free(dsql);
	if (!err)
		s->prepared = 1;
	return err;
}

static int send(struct store_pg *s, const char *name, int n, const char *const *v)
{
	int ok = n ? PQsendQueryPrepared(s->conn, name, n, v, NULL, NULL, 0) :
		     PQsendQueryParams(s->conn, name, 0, NULL, NULL, NULL, NULL, 0);

	if (!ok)
		return prov_error_set(PROV_ERROR, "store %s: %s", s->name, pg_msg(s->conn, NULL));
	return 0;
}

/* Fails (a cast error) unless the store still has the schema this writer writes. */
#define STR2(x) #x
#define STR(x) STR2(x)
static const char schema_check[] =
	"SELECT CASE WHEN v = '" STR(PROV_STORE_SCHEMA) "' THEN 0"
	" ELSE ('schema changed to ' || coalesce(v, 'none'))::int END"
	" FROM (SELECT (SELECT value FROM store_meta WHERE key = 'schema') AS v) AS m";

/* A pipeline's results (BEGIN, lock, schema check, crash, ...): 0, 1 (was there), 2 (retry), error. */
static int pipeline_results(struct store_pg *s, int nsent, int *inserted)
{
	int i, err = 0;
	PGresult *r;

	*inserted = 0;
	for (i = 0; i < nsent; i++) {
		while ((r = PQgetResult(s->conn))) {
			ExecStatusType st = PQresultStatus(r);

			if (i == 3 && st == PGRES_TUPLES_OK)
				*inserted = PQntuples(r) == 1;
			if (i == 2 && st == PGRES_FATAL_ERROR && !err && (s->stale = 1))
				err = prov_error_set(PROV_EINPUT, "crash store %s changed its schema while this "
						     "writer ran (it writes schema %d); nothing more is written",
						     s->name, PROV_STORE_SCHEMA);
			if (st == PGRES_FATAL_ERROR && !err)
				err = retryable(r) ? 2 : prov_error_set(PROV_ERROR, "store %s: insert: %s",
									s->name, pg_msg(s->conn, r));
			PQclear(r);
		}
	}
	/* the sync */
	while ((r = PQgetResult(s->conn))) {
		ExecStatusType st = PQresultStatus(r);

		PQclear(r);
		if (st == PGRES_PIPELINE_SYNC)
			break;
	}
	return err;
}

static int pg_add_once(int64_t *out_id, struct store_pg *s, const struct prov_jv *r,
		       const struct store_report *rep, const char *json, struct pg_rows *w)
{
	const struct prov_jv *crash = store_jget(r, "crash"), *sig = store_jget(r, "signal");
	char *signo = int_text(store_jget(sig, "number")), id[24];
	const char *v[16];
	int64_t newid = 0;
	int err, nsent = 0, inserted = 0, i;
	PGresult *res;

	if ((!s->prepared && (err = prepare_inserts(s)) < 0) || (err = next_id(&newid, s)) < 0)
		goto cleanup;
	snprintf(id, sizeof(id), "%lld", (long long)newid);
	if (!PQenterPipelineMode(s->conn)) {
		err = prov_error_set(PROV_ERROR, "store %s: %s", s->name, pg_msg(s->conn, NULL));
		goto cleanup;
	}
	v[0] = id;
	v[1] = rep->hash;
	v[2] = rep->signature;
	v[3] = signo;
	v[4] = store_jstr(sig, "name");
	v[5] = rep->time;
	v[6] = rep->host;
	v[7] = store_jstr(store_jget(r, "input"), "path");
	v[8] = store_jstr(crash, "context");
	v[9] = rep->patterns;
	v[10] = store_jstr(store_jget(r, "process"), "executable");
	v[11] = store_jstr(store_jget(r, "input"), "kind");
	v[12] = rep->now;
	memcpy(&v[13], rep->image, sizeof(rep->image));
	/*
	 * The schema checked inside the transaction, after a shared hold of
	 * the upgrade's advisory lock (its own statement: a new snapshot sees
	 * an upgrade that committed while this one waited). A store upgraded
	 * under this writer fails the check and nothing of the report is kept.
	 */
	if ((err = send(s, "BEGIN", 0, NULL)) < 0 || (nsent++, 0) ||
	    (err = send(s, "SELECT pg_advisory_xact_lock_shared(1347573331)", 0, NULL)) < 0 ||
	    (nsent++, 0) || (err = send(s, schema_check, 0, NULL)) < 0 || (nsent++, 0) ||
	    (err = send(s, "c", 16, v)) < 0 || (nsent++, 0))
		goto pipeline;
	{
		const char *fv[12], *mv[8], *cv[8], *rv[3] = { id, rep->hash, json };
		const char *sv[4] = { rep->signature, rep->host, rep->time, id };

		fv[0] = mv[0] = cv[0] = id;
		fv[1] = mv[1] = cv[1] = rep->hash;
		for (i = 0; i < 10; i++)
			fv[2 + i] = w->f[i].b.buf;
		for (i = 0; i < 6; i++)
			mv[2 + i] = w->m[i].b.buf;
		for (i = 0; i < 6; i++)
			cv[2 + i] = w->c[i].b.buf;
		if ((err = send(s, "f", 12, fv)) < 0 || (nsent++, 0) ||
		    (err = send(s, "m", 8, mv)) < 0 || (nsent++, 0) ||
		    (err = send(s, "k", 8, cv)) < 0 || (nsent++, 0) ||
		    (err = send(s, "r", 3, rv)) < 0 || (nsent++, 0) ||
		    (err = send(s, "h", 4, sv)) < 0 || (nsent++, 0) ||
		    (err = send(s, "v", 4, sv)) < 0 || (nsent++, 0) ||
		    (err = send(s, "d", 4, sv)) < 0 || (nsent++, 0) ||
		    (err = send(s, "COMMIT", 0, NULL)) < 0 || (nsent++, 0))
			goto pipeline;
	}
pipeline:
	if (!PQpipelineSync(s->conn) && err == 0)
		err = prov_error_set(PROV_ERROR, "store %s: %s", s->name, pg_msg(s->conn, NULL));
	{
		int e = pipeline_results(s, nsent, &inserted);

		if (err == 0)
			err = e;
	}
	PQexitPipelineMode(s->conn);
	if (err != 0) {
		/* an aborted transaction stays open after the sync: end it */
		PQclear(PQexec(s->conn, "ROLLBACK"));
		goto cleanup;
	}
	if (inserted) {
		*out_id = newid;
		goto cleanup;
	}
	/* another writer (or an earlier run) stored it: its id */
	res = PQexecParams(s->conn, "SELECT id FROM crashes WHERE hash = $1", 1, NULL, &v[1], NULL,
			   NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		err = pg_fail(s, res, "find report");
		goto cleanup;
	}
	*out_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	err = 1;
cleanup:
	free(signo);
	return err;
}

static int op_add(int64_t *out_id, struct store_backend *be, const char *json, size_t len,
		  const struct prov_store_meta *meta)
{
	struct store_pg *s = pgs(be);
	struct prov_jv *r = NULL;
	struct store_report rep;
	struct pg_rows rows;
	char *text = NULL;
	int err, tries;

	rows_init(&rows);

	if (s->readonly)
		return prov_error_set(PROV_ERROR, "store %s: opened read-only", s->name);
	if (s->stale)
		return prov_error_set(PROV_EINPUT, "crash store %s changed its schema while this writer ran "
				      "(it writes schema %d); nothing more is written", s->name, PROV_STORE_SCHEMA);
	if (len > INT32_MAX)
		return prov_error_set(PROV_ELIMIT, "report too large");
	if ((err = prov_jv_parse(&r, json, len)) < 0)
		return err;
	if ((err = store_check_report(r)) < 0) {
		prov_jv_free(r);
		return err;
	}
	if (memchr(json, 0, len)) {
		prov_jv_free(r);
		return prov_error_set(PROV_EINPUT, "a report with a NUL byte");
	}
	text = prov_xstrndup(json, len);
	store_report_read(&rep, r, meta);
	rows_build(&rows, r);
	for (tries = 0; tries < PG_RETRIES; tries++)
		if ((err = pg_add_once(out_id, s, r, &rep, text, &rows)) != 2)
			break;
	rows_release(&rows);
	if (err == 2)
		err = prov_error_set(PROV_ERROR, "store %s: writers kept conflicting; try again", s->name);
	store_report_release(&rep);
	prov_jv_free(r);
	free(text);
	return err;
}

/* ---------------------------------------------------------------- history */

static char *val_dup(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : prov_xstrdup(PQgetvalue(r, row, col));
}

#define PG_COMPONENT_SET \
	"(SELECT string_agg(name || ' ' || coalesce(version, '?'), ', '" \
	" ORDER BY name, version NULLS FIRST) FROM components WHERE crash_id = %s)"

/* The stored report of one crash (text: no NUL inside). */
static int op_report(char **out, size_t *out_len, struct store_backend *be, int64_t crash_id)
{
	struct store_pg *s = pgs(be);
	char idtext[24];
	const char *v[1] = { idtext };
	PGresult *r;
	size_t n;

	snprintf(idtext, sizeof(idtext), "%lld", (long long)crash_id);
	r = PQexecParams(s->conn, "SELECT json FROM reports WHERE crash_id = $1::bigint", 1, NULL, v,
			 NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		return pg_fail(s, r, "read report");
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 1;
	}
	n = strlen(PQgetvalue(r, 0, 0));
	*out = prov_xmalloc(n + 1);
	memcpy(*out, PQgetvalue(r, 0, 0), n + 1);
	*out_len = n;
	PQclear(r);
	return 0;
}

static int op_history(char **out, struct store_backend *be, int64_t crash_id)
{
	struct store_pg *s = pgs(be);
	PGresult *r = NULL;
	char idtext[24], *sig = NULL, *mine = NULL, *sql = NULL;
	struct prov_buf b = PROV_BUF_INIT;
	const char *v[2];
	int64_t count, hosts;
	int err, i, found = 0;

	snprintf(idtext, sizeof(idtext), "%lld", (long long)crash_id);
	sql = prov_xasprintf("SELECT signature, " PG_COMPONENT_SET " FROM crashes WHERE id = $1", "$1");
	v[0] = idtext;
	r = PQexecParams(s->conn, sql, 1, NULL, v, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		err = pg_fail(s, r, "history");
		r = NULL;
		goto cleanup;
	}
	if (PQntuples(r) != 1) {
		err = prov_error_set(PROV_ENOTFOUND, "no crash %lld in the store", (long long)crash_id);
		goto cleanup;
	}
	sig = val_dup(r, 0, 0);
	mine = val_dup(r, 0, 1);
	PQclear(r);
	v[0] = sig;
	v[1] = idtext;
	r = PQexecParams(s->conn, "SELECT count(*), count(DISTINCT host), min(time) FROM crashes"
			 " WHERE signature = $1 AND id != $2", 2, NULL, v, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		err = pg_fail(s, r, "history");
		r = NULL;
		goto cleanup;
	}
	count = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	hosts = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
	if (count == 0) {
		*out = NULL;
		err = 0;
		goto cleanup;
	}
	prov_buf_printf(&b, "seen %lld time%s on %lld host%s", (long long)count, count == 1 ? "" : "s",
			(long long)hosts, hosts == 1 ? "" : "s");
	if (!PQgetisnull(r, 0, 2))
		prov_buf_printf(&b, " since %.10s", PQgetvalue(r, 0, 2));
	PQclear(r);
	free(sql);
	sql = prov_xasprintf("SELECT time, host, " PG_COMPONENT_SET " FROM crashes c"
			     " WHERE signature = $1 AND id != $2"
			     " ORDER BY time IS NULL, time DESC, id DESC LIMIT 100000", "c.id");
	r = PQexecParams(s->conn, sql, 2, NULL, v, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		err = pg_fail(s, r, "history");
		r = NULL;
		goto cleanup;
	}
	for (i = 0; i < PQntuples(r) && !found; i++) {
		const char *set = PQgetisnull(r, i, 2) ? "" : PQgetvalue(r, i, 2);

		if (!strcmp(set, mine ? mine : "")) {
			prov_buf_printf(&b, "; last with the same component versions: %s on %s",
					PQgetisnull(r, i, 0) ? "an unknown time" : PQgetvalue(r, i, 0),
					PQgetvalue(r, i, 1));
			found = 1;
		}
	}
	if (!found)
		prov_buf_printf(&b, "; never before with these component versions (%s)",
				mine ? mine : "none known");
	*out = prov_buf_detach(&b);
	err = 0;
cleanup:
	PQclear(r);
	prov_buf_release(&b);
	free(sql);
	free(sig);
	free(mine);
	return err;
}

/* ----------------------------------------------------------------- triage */

static PGresult *pg_sel(struct store_pg *s, const struct prov_triage_opts *o, const char *head,
			const char *tail, const char *third)
{
	char *text = store_triage_selection(o), *sel = pg_sql(text), *sql = prov_xasprintf("%s%s%s", head, sel, tail);
	const char *v[8] = { o->since, o->component, third, o->until, o->host, o->signature,
			     o->component_version, o->image };
	/* text, each declared: the selection's parameters need no casts, unused ones are allowed */
	Oid types[8] = { 25, 25, 25, 25, 25, 25, 25, 25 };
	int n = o->image ? 8 : o->component && o->component_version ? 7 : o->signature ? 6 : o->host ? 5 :
		o->until ? 4 : third ? 3 : 2;
	PGresult *r = PQexecParams(s->conn, sql, n, types, v, NULL, NULL, 0);

	free(text);
	free(sel);
	free(sql);
	return r;
}

static int pg_triage_groups(struct prov_triage *t, struct store_pg *s,
			    const struct prov_triage_opts *o, int summary)
{
	PGresult *r;
	int i;

	if (summary)
		r = PQexec(s->conn, "SELECT coalesce(sum(count), 0), count(DISTINCT host) FROM signature_hosts");
	else
		r = pg_sel(s, o, "SELECT count(*), count(DISTINCT host) FROM crashes c WHERE", "", NULL);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
		return pg_fail(s, r, "triage");
	t->total = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	t->hosts = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
	PQclear(r);
	if (summary)
		r = PQexec(s->conn, "SELECT signature, sum(count), count(*), min(first_seen), max(last_seen)"
			   " FROM signature_hosts GROUP BY signature ORDER BY 2 DESC, 1");
	else
		r = pg_sel(s, o, "SELECT signature, count(*), count(DISTINCT host), min(time), max(time)"
			   " FROM crashes c WHERE", "GROUP BY signature ORDER BY 2 DESC, 1", NULL);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		return pg_fail(s, r, "triage");
	t->ngroups = (size_t)PQntuples(r);
	t->groups = prov_xcalloc(t->ngroups + 1, sizeof(*t->groups));
	for (i = 0; i < PQntuples(r); i++) {
		struct prov_triage_group *g = &t->groups[i];

		g->signature = val_dup(r, i, 0);
		g->count = strtoll(PQgetvalue(r, i, 1), NULL, 10);
		g->hosts = strtoll(PQgetvalue(r, i, 2), NULL, 10);
		g->first_seen = val_dup(r, i, 3);
		g->last_seen = val_dup(r, i, 4);
	}
	PQclear(r);
	return 0;
}

/* Every (component, version) of the selection, with its count per group and in all. */
static int pg_triage_versions(struct prov_triage *t, struct store_pg *s,
			      const struct prov_triage_opts *o, int summary)
{
	PGresult *r;
	char *name = NULL, *ver = NULL;
	int64_t total = 0, *counts = prov_xcalloc(t->ngroups + 1, sizeof(*counts));
	int64_t *approx = prov_xcalloc(t->ngroups + 1, sizeof(*approx));
	size_t *index = store_triage_index(t);
	int i, n, err = 0;
	long gi;

	if (summary)
		r = PQexec(s->conn, "SELECT component, version, signature, count, approximate"
			   " FROM signature_versions ORDER BY 1, 2");
	else
		/* the selection first, then its components by crash id (never a scan of them all) */
		r = pg_sel(s, o, "WITH sel AS MATERIALIZED (SELECT c.id, c.signature FROM crashes c WHERE",
			   ") SELECT v.name, coalesce(v.version, '?') COLLATE \"C\", sel.signature,"
			   " count(DISTINCT v.crash_id),"
			   " count(DISTINCT v.crash_id) FILTER (WHERE v.commit_is = 'approximate')"
			   " FROM sel CROSS JOIN LATERAL"
			   " (SELECT name, version, crash_id, commit_is FROM components WHERE crash_id = sel.id) v"
			   " GROUP BY 1, 2, 3 ORDER BY 1, 2", NULL);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		free(counts);
		free(approx);
		free(index);
		return pg_fail(s, r, "triage");
	}
	n = PQntuples(r);
	for (i = 0; i <= n; i++) {
		int next = i == n || !name || strcmp(name, PQgetvalue(r, i, 0)) ||
			   strcmp(ver, PQgetvalue(r, i, 1));

		if (next && name) {
			/* close the (name, version): one entry in every group, as on SQLite */
			store_triage_add_version(t, name, ver, counts, approx, total);
			free(name);
			free(ver);
			name = ver = NULL;
		}
		if (i == n)
			break;
		if (next) {
			name = prov_xstrdup(PQgetvalue(r, i, 0));
			ver = prov_xstrdup(PQgetvalue(r, i, 1));
			total = 0;
			memset(counts, 0, (t->ngroups + 1) * sizeof(*counts));
			memset(approx, 0, (t->ngroups + 1) * sizeof(*approx));
		}
		total += strtoll(PQgetvalue(r, i, 3), NULL, 10);
		gi = store_triage_find(t, index, PQgetvalue(r, i, 2));
		if (gi >= 0) {
			counts[gi] += strtoll(PQgetvalue(r, i, 3), NULL, 10);
			approx[gi] += strtoll(PQgetvalue(r, i, 4), NULL, 10);
		}
	}
	free(name);
	free(ver);
	free(counts);
	free(approx);
	free(index);
	PQclear(r);
	return err;
}

static int pg_triage_example(struct prov_triage_group *g, struct store_pg *s,
			     const struct prov_triage_opts *o, size_t max_frames)
{
	PGresult *r;
	char idtext[24], lim[24];
	const char *v[3];
	int i;

	r = pg_sel(s, o, "SELECT id, signal_name, context FROM crashes c WHERE",
		   "AND signature = $3 AND time IS NOT NULL ORDER BY time DESC, id DESC LIMIT 1",
		   g->signature);
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 0) {
		PQclear(r);
		r = pg_sel(s, o, "SELECT id, signal_name, context FROM crashes c WHERE",
			   "AND signature = $3 ORDER BY id DESC LIMIT 1", g->signature);
	}
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
		return pg_fail(s, r, "triage");
	g->example_id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	g->signal_name = val_dup(r, 0, 1);
	g->context = val_dup(r, 0, 2);
	PQclear(r);

	snprintf(idtext, sizeof(idtext), "%lld", (long long)g->example_id);
	snprintf(lim, sizeof(lim), "%zu", max_frames);
	v[0] = idtext;
	v[1] = strchr(g->signature, '|') ? "0" : "1";	/* no crashing thread: its first */
	v[2] = lim;
	r = PQexecParams(s->conn, "SELECT function, file, line, module FROM frames"
			 " WHERE crash_id = $1 AND (crashed = 1 OR ($2::int = 1 AND thread = 0))"
			 " ORDER BY thread, depth LIMIT $3", 3, NULL, v, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		return pg_fail(s, r, "triage");
	g->frames = prov_xcalloc(max_frames, sizeof(*g->frames));
	for (i = 0; i < PQntuples(r) && g->nframes < max_frames; i++) {
		struct prov_triage_frame *f = &g->frames[g->nframes++];

		f->function = val_dup(r, i, 0);
		f->file = val_dup(r, i, 1);
		f->line = PQgetisnull(r, i, 2) ? 0 : strtoll(PQgetvalue(r, i, 2), NULL, 10);
		f->module = val_dup(r, i, 3);
	}
	PQclear(r);
	return 0;
}

static int op_triage(struct prov_triage *out, struct store_backend *be,
		     const struct prov_triage_opts *opts)
{
	struct store_pg *s = pgs(be);
	struct prov_triage t = { 0 };
	struct prov_triage_opts o = *opts;
	int summary = !o.since && !o.component && !o.until && !o.host && !o.signature && !o.image, err;
	size_t i;

	if (!o.max_frames)
		o.max_frames = 5;
	/* one snapshot for the whole answer, while writers go on */
	if ((err = pg_exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")) < 0)
		return err;
	if ((err = pg_triage_groups(&t, s, &o, summary)) < 0 ||
	    (err = pg_triage_versions(&t, s, &o, summary)) < 0)
		goto cleanup;
	for (i = 0; i < t.ngroups; i++)
		if ((err = pg_triage_example(&t.groups[i], s, &o, o.max_frames)) < 0)
			goto cleanup;
	*out = t;
	memset(&t, 0, sizeof(t));
	err = 0;
cleanup:
	PQclear(PQexec(s->conn, "COMMIT"));
	prov_triage_release(&t);
	return err;
}

/* ------------------------------------------------------------------ query */

/* The first keyword after blanks and comments, lowercased into `out`. */
static void first_word(char out[16], const char *p)
{
	size_t n = 0;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '(')
			p++;
		if (p[0] == '-' && p[1] == '-') {
			while (*p && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");

			p = e ? e + 2 : p + strlen(p);
		} else {
			break;
		}
	}
	while (n < 15 && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		out[n++] = (char)(*p++ | 0x20);
	out[n] = 0;
}

static char pg_type(Oid t)
{
	switch (t) {
	case 20: case 21: case 23: case 26:
		return 'i';
	case 700: case 701: case 1700:
		return 'r';
	case 17:
		return 'b';
	default:
		return 't';
	}
}

static int query_error(struct store_pg *s, PGresult *r, const struct prov_query_opts *o)
{
	const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	int err;

	if (st && !strcmp(st, "57014"))
		err = prov_error_set(PROV_EINPUT, "query ran past its time limit of %llu ms; narrow it or raise --timeout",
				     (unsigned long long)o->timeout_ms);
	else if (st && !strcmp(st, "25006"))
		err = prov_error_set(PROV_EINPUT, "query refused: the store is read-only here: only SELECT statements run");
	else if (st && !strcmp(st, "42601") && strstr(pg_msg(s->conn, r), "multiple commands"))
		err = prov_error_set(PROV_EINPUT, "query refused: exactly one statement is allowed");
	else if (st && !strcmp(st, "42501"))
		err = prov_error_set(PROV_EINPUT, "query refused: %s", pg_msg(s->conn, r));
	else
		err = prov_error_set(PROV_EINPUT, "bad query: %s", pg_msg(s->conn, r));
	PQclear(r);
	return err;
}

/* Drain what is left of a result stream (after an early stop). */
static void drain(PGconn *c)
{
	PGresult *r;

	PQrequestCancel(c);
	while ((r = PQgetResult(c)))
		PQclear(r);
}

static int pg_query_rows(struct store_pg *s, const struct prov_query_opts *o,
			 prov_store_row_fn row, void *data)
{
	const char **names = NULL, **values = NULL;
	char *types = NULL;
	uint64_t nrows = 0;
	PGresult *r;
	int ncols = -1, i, err = 0;

	while ((r = PQgetResult(s->conn))) {
		ExecStatusType st = PQresultStatus(r);

		if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK) {
			if (st == PGRES_COPY_OUT || st == PGRES_COPY_IN || st == PGRES_COMMAND_OK) {
				PQclear(r);
				err = prov_error_set(PROV_EINPUT, "query refused: only SELECT statements run");
			} else {
				err = query_error(s, r, o);
			}
			drain(s->conn);
			break;
		}
		if (ncols < 0) {
			ncols = PQnfields(r);
			names = prov_xcalloc((size_t)ncols + 1, sizeof(*names));
			values = prov_xcalloc((size_t)ncols + 1, sizeof(*values));
			types = prov_xcalloc((size_t)ncols + 1, 1);
			for (i = 0; i < ncols; i++)
				names[i] = prov_xstrdup(PQfname(r, i));
			if ((err = row((size_t)ncols, names, NULL, NULL, data)) != 0) {
				PQclear(r);
				drain(s->conn);
				break;
			}
		}
		if (st == PGRES_SINGLE_TUPLE) {
			if (++nrows > o->max_rows) {
				PQclear(r);
				drain(s->conn);
				err = prov_error_set(PROV_EINPUT, "query returned more than %llu rows; add a LIMIT or raise --max-rows",
						     (unsigned long long)o->max_rows);
				break;
			}
			for (i = 0; i < ncols; i++) {
				types[i] = PQgetisnull(r, 0, i) ? 'n' : pg_type(PQftype(r, i));
				values[i] = types[i] == 'n' ? NULL : PQgetvalue(r, 0, i);
			}
			err = row((size_t)ncols, names, values, types, data);
			if (err) {
				PQclear(r);
				drain(s->conn);
				break;
			}
		}
		PQclear(r);
	}
	for (i = 0; names && i < ncols; i++)
		free((char *)names[i]);
	free(names);
	free(values);
	free(types);
	return err;
}

/*
 * Functions whose effects a rolled-back READ ONLY transaction does not undo
 * (server files, other sessions, session locks, the server's state), or
 * that read the server's files: refused by name, on top of the read-only
 * transaction (dashboards should also use a role without these rights).
 */
static const char *side_effect(const char *sql)
{
	static const char *const names[] = {
		"lo_export", "lo_import", "pg_terminate_backend", "pg_cancel_backend",
		"pg_reload_conf", "pg_rotate_logfile", "pg_switch_wal", "pg_promote",
		"pg_create_restore_point", "pg_backup_start", "pg_backup_stop", "pg_file_write",
		"pg_read_file", "pg_read_binary_file", "pg_ls_", "pg_stat_file", "pg_advisory",
		"pg_notify", "dblink", "set_config", "pg_log_backend_memory_contexts",
		"pg_replication_origin", "pg_create_logical_replication_slot",
		"pg_create_physical_replication_slot", "pg_drop_replication_slot", NULL,
	};
	char *low = prov_xstrdup(sql), *p;
	const char *hit = NULL;
	size_t i;

	for (p = low; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p | 0x20);
	for (i = 0; names[i] && !hit; i++)
		if (strstr(low, names[i]))
			hit = names[i];
	free(low);
	return hit;
}

/*
 * Who may run `query`: a name list cannot tell every way SQL reaches a
 * function (U&"" identifiers, query_to_xml, ...), so the fence is the
 * connecting role. Refused (PROV_EINPUT, one line) when the session's or the
 * current role is a superuser, owns (or is a member of the owner of) the
 * store's schema or one of its relations, or is a member of a role that
 * reads or writes the server's files, runs programs or signals backends.
 */
static const char role_check[] =
	"SELECT r.rolname, r.rolsuper,"
	" EXISTS (SELECT 1 FROM pg_class c WHERE c.relnamespace = m.nsp"
	"  AND pg_has_role(r.oid, c.relowner, 'MEMBER'))"
	" OR EXISTS (SELECT 1 FROM pg_namespace n WHERE n.oid = m.nsp"
	"  AND pg_has_role(r.oid, n.nspowner, 'MEMBER')),"
	" (SELECT string_agg(g.rolname, ', ' ORDER BY g.rolname) FROM pg_roles g"
	"  WHERE g.rolname IN ('pg_read_server_files', 'pg_write_server_files',"
	"  'pg_execute_server_program', 'pg_signal_backend') AND pg_has_role(r.oid, g.oid, 'MEMBER'))"
	" FROM pg_roles r, (SELECT relnamespace AS nsp FROM pg_class"
	"  WHERE oid = to_regclass('store_meta')) AS m"
	" WHERE r.rolname IN (current_user, session_user)";

static int query_role_ok(struct store_pg *s)
{
	PGresult *r = PQexec(s->conn, role_check);
	int i, err = 0;

	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		return pg_fail(s, r, "check the role");
	if (PQntuples(r) == 0)
		err = prov_error_set(PROV_EINPUT, "query refused: cannot tell what the connecting role may do");
	for (i = 0; i < PQntuples(r) && !err; i++) {
		const char *name = PQgetvalue(r, i, 0);
		char *why = NULL;

		if (!strcmp(PQgetvalue(r, i, 1), "t"))
			why = prov_xstrdup("is a superuser");
		else if (!strcmp(PQgetvalue(r, i, 2), "t"))
			why = prov_xstrdup("owns the store's schema or tables");
		else if (!PQgetisnull(r, i, 3))
			why = prov_xasprintf("is a member of %s", PQgetvalue(r, i, 3));
		if (why)
			err = prov_error_set(PROV_EINPUT, "query refused: role '%s' %s; run query as a read-only role "
					     "with SELECT on the store's tables and nothing else (docs/store.md, 'dashboards')",
					     name, why);
		free(why);
	}
	PQclear(r);
	return err;
}

static int op_query(struct store_backend *be, const char *sql, const struct prov_query_opts *opts,
		    prov_store_row_fn row, void *data)
{
	struct store_pg *s = pgs(be);
	static const char *const allowed[] = { "select", "with", "values", "table", NULL };
	struct prov_query_opts o = *opts;
	char word[16], *set = NULL;
	PGresult *r = NULL;
	int err, ok = 0, i;

	if (!s->readonly)
		return prov_error_set(PROV_ERROR, "store: queries need a read-only store");
	if (!o.timeout_ms)
		o.timeout_ms = 10000;
	first_word(word, sql);
	if (!word[0])
		return prov_error_set(PROV_EINPUT, "bad query: no SQL statement given");
	for (i = 0; allowed[i]; i++)
		ok |= !strcmp(word, allowed[i]);
	if (!ok)
		return prov_error_set(PROV_EINPUT, "query refused: '%s' statements do not run here; only SELECT (WITH, VALUES, TABLE)",
				      word);
	if (side_effect(sql))
		return prov_error_set(PROV_EINPUT, "query refused: '%s' functions act outside the query; only SELECT statements run",
				      side_effect(sql));
	if ((err = query_role_ok(s)) < 0)
		return err;
	if ((err = pg_exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")) < 0)
		return err;
	set = prov_xasprintf("SET LOCAL statement_timeout = %llu", (unsigned long long)o.timeout_ms);
	if ((err = pg_exec(s, set)) < 0 ||
	    (err = pg_exec(s, "SET LOCAL idle_in_transaction_session_timeout = 60000")) < 0)
		goto cleanup;
	/* prepared: the extended protocol takes exactly one statement */
	r = PQprepare(s->conn, "", sql, 0, NULL);
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		err = query_error(s, r, &o);
		r = NULL;
		goto cleanup;
	}
	PQclear(r);
	r = NULL;
	if (!PQsendQueryPrepared(s->conn, "", 0, NULL, NULL, NULL, 0) ||
	    !PQsetSingleRowMode(s->conn)) {
		err = prov_error_set(PROV_ERROR, "store %s: %s", s->name, pg_msg(s->conn, NULL));
		drain(s->conn);
		goto cleanup;
	}
	err = pg_query_rows(s, &o, row, data);
cleanup:
	PQclear(r);
	PQclear(PQexec(s->conn, "ROLLBACK"));
	free(set);
	return err;
}

/* prov_store_rows: triage's selection as rows for the web view, bounded in rows and time. */
static int op_rows(struct store_backend *be, int what, const struct prov_triage_opts *o,
		   const char *signature, uint64_t max_rows, uint64_t timeout_ms,
		   store_row_fn row, void *data)
{
	struct store_pg *s = pgs(be);
	char *raw = store_rows_sql(what, o, max_rows + 1, 1), *sql = pg_sql(raw), *set = NULL;
	const char *v[8] = { o->since, o->component, signature, o->until, o->host, o->signature,
			     o->component_version, o->image };
	Oid types[8] = { 25, 25, 25, 25, 25, 25, 25, 25 };
	int nparams = o->image ? 8 : o->component && o->component_version ? 7 : o->signature ? 6 :
		o->host ? 5 : o->until ? 4 : 3;
	PGresult *r = NULL;
	int err, n, i, j, ncols;

	if ((err = pg_exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")) < 0)
		goto cleanup;
	set = prov_xasprintf("SET LOCAL statement_timeout = %llu", (unsigned long long)timeout_ms);
	if ((err = pg_exec(s, set)) < 0)
		goto cleanup;
	r = PQexecParams(s->conn, sql, nparams, types, v, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		err = pg_fail(s, r, "rows");
		r = NULL;
		goto cleanup;
	}
	n = PQntuples(r);
	ncols = PQnfields(r) > 8 ? 8 : PQnfields(r);
	err = 0;
	for (i = 0; i < n && err >= 0; i++) {
		const char *vals[8];

		if ((uint64_t)i >= max_rows) {
			err = 1;
			break;
		}
		for (j = 0; j < ncols; j++)
			vals[j] = PQgetisnull(r, i, j) ? NULL : PQgetvalue(r, i, j);
		err = row((size_t)ncols, NULL, vals, "tttttttt", data);
	}
cleanup:
	PQclear(r);
	PQclear(PQexec(s->conn, "ROLLBACK"));
	free(set);
	free(sql);
	free(raw);
	return err;
}

/* provenance mark: one upsert, its own transaction. */
static int op_mark(struct store_backend *be, const char *const v[6])
{
	struct store_pg *s = pgs(be);
	char *sql = pg_sql(store_mark_sql);
	PGresult *r = PQexecParams(s->conn, sql, 6, NULL, v, NULL, NULL, 0);
	int err = 0;

	free(sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		return pg_fail(s, r, "mark");
	PQclear(r);
	return err;
}

/* prune: one statement (its own transaction unless the caller's); the delete trigger does the rest. */
static int op_prune(int64_t *out_n, struct store_backend *be, const char *before, int64_t keep,
		    int dry_run)
{
	struct store_pg *s = pgs(be);
	char *where = pg_sql(store_prune_where), *sql;
	char keeptext[24];
	const char *v[2] = { before, keeptext };
	PGresult *r;

	sql = dry_run ? prov_xasprintf("SELECT count(*) FROM crashes WHERE%s", where) :
		prov_xasprintf("WITH d AS (DELETE FROM crashes WHERE%s RETURNING 1) SELECT count(*) FROM d",
			       where);
	snprintf(keeptext, sizeof(keeptext), "%lld", (long long)keep);
	r = PQexecParams(s->conn, sql, 2, NULL, v, NULL, NULL, 0);
	free(where);
	free(sql);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
		return pg_fail(s, r, "prune");
	*out_n = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return 0;
}

static int op_stale(struct store_backend *be)
{
	return pgs(be)->stale;
}

/* prov_store_triage_bounded: the session's statement_timeout, until lifted. */
static int op_deadline(struct store_backend *be, uint64_t timeout_ms)
{
	struct store_pg *s = pgs(be);
	char *set;
	int err;

	if (!timeout_ms)
		return pg_exec(s, "RESET statement_timeout");
	set = prov_xasprintf("SET statement_timeout = %llu", (unsigned long long)timeout_ms);
	err = pg_exec(s, set);
	free(set);
	return err;
}

static const struct store_ops pg_ops = {
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
