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

struct store_pg {
	PGconn *conn;
	char *name;
	int readonly;
	int in_tx;
};

#define PG_RETRIES 5

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

int store_pg_open(struct store_pg **out, const char *conninfo, const char *safe_name,
		  int readonly)
{
	struct store_pg *s = prov_xcalloc(1, sizeof(*s));
	int err;

	s->name = prov_xstrdup(safe_name);
	s->readonly = readonly;
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
	*out = s;
	return 0;
fail:
	store_pg_free(s);
	return err;
}

void store_pg_free(struct store_pg *s)
{
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
int store_pg_begin(struct store_pg *s)
{
	s->in_tx = 1;
	return 0;
}

int store_pg_commit(struct store_pg *s)
{
	s->in_tx = 0;
	return 0;
}

void store_pg_rollback(struct store_pg *s)
{
	s->in_tx = 0;
}

/* ----------------------------------------------------------------- adding */


static PGresult *pg_params(struct store_pg *s, const char *sql, int n, const char *const *v)
{
	Oid types[16];
	int i;

	/* $1 is a bigint (the crash id) where a statement says so; the rest text */
	for (i = 0; i < n && i < 16; i++)
		types[i] = 0;
	return PQexecParams(s->conn, sql, n, types, v, NULL, NULL, 0);
}

static char *int_text(const struct prov_jv *v)
{
	int64_t n;

	return store_jint(&n, v) == 0 ? prov_xasprintf("%lld", (long long)n) : NULL;
}

static int pg_row(struct store_pg *s, const char *sql, int n, const char *const *v)
{
	PGresult *r = pg_params(s, sql, n, v);

	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		return retryable(r) ? (PQclear(r), 1) : pg_fail(s, r, "insert");
	PQclear(r);
	return 0;
}

static int pg_insert_rows(struct store_pg *s, const char *id, const struct prov_jv *r)
{
	const struct prov_jv *threads = store_jarray(r, "threads"), *mods = store_jarray(r, "modules");
	const struct prov_jv *comps = store_jarray(r, "components");
	size_t i, k;
	int err = 0;

	for (i = 0; threads && i < threads->n && !err; i++) {
		const struct prov_jv *t = &threads->items[i], *frames = store_jarray(t, "frames");
		const struct prov_jv *c = store_jget(t, "crashed");
		int crashed = c && c->type == PROV_JV_BOOL && c->boolean;
		char thread[24], *tid = int_text(store_jget(t, "tid"));

		snprintf(thread, sizeof(thread), "%zu", i);
		for (k = 0; frames && k < frames->n && !err; k++) {
			const struct prov_jv *f = &frames->items[k];
			const char *lang = store_jstr(f, "language");
			char depth[24], *line = int_text(store_jget(f, "line"));
			const char *v[11];

			snprintf(depth, sizeof(depth), "%zu", k);
			v[0] = id;
			v[1] = thread;
			v[2] = tid;
			v[3] = crashed ? "1" : "0";
			v[4] = depth;
			v[5] = store_jstr(f, "function");
			v[6] = store_jstr(f, "file");
			v[7] = line;
			v[8] = store_jstr(f, "module");
			v[9] = store_jstr(f, "component");
			v[10] = lang && !strcmp(lang, "python") ? "python" : "native";
			err = pg_row(s, "INSERT INTO frames VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)",
				     11, v);
			free(line);
		}
		free(tid);
	}
	for (i = 0; mods && i < mods->n && !err; i++) {
		const struct prov_jv *m = &mods->items[i], *p = store_jget(m, "package");
		const char *v[7] = { id, store_jstr(m, "path"), store_jstr(m, "build_id"),
				     store_jstr(p, "kind"), store_jstr(p, "name"),
				     store_jstr(p, "version"), store_jstr(m, "component") };

		err = pg_row(s, "INSERT INTO modules VALUES($1,$2,$3,$4,$5,$6,$7)", 7, v);
	}
	for (i = 0; comps && i < comps->n && !err; i++) {
		const struct prov_jv *c = &comps->items[i];
		const char *v[5] = { id, store_jstr(c, "name"), store_jstr(c, "version"),
				     store_jstr(c, "commit"), store_jstr(c, "repo") };

		if (!v[1])
			continue;
		err = pg_row(s, "INSERT INTO components VALUES($1,$2,$3,$4,$5)", 5, v);
	}
	return err;
}

/* One try: 0 added, 1 already there, 2 retry (a conflict between writers), <0 error. */
static int pg_add_once(int64_t *out_id, struct store_pg *s, const struct prov_jv *r,
		       const struct store_report *rep, const char *json)
{
	const struct prov_jv *crash = store_jget(r, "crash"), *sig = store_jget(r, "signal");
	char *signo = int_text(store_jget(sig, "number")), *hsql = NULL, *vsql = NULL;
	const char *v[12];
	PGresult *res = NULL;
	char id[24];
	int err;

	if ((err = pg_exec(s, "BEGIN")) < 0)
		goto cleanup;
	v[0] = rep->signature;
	v[1] = signo;
	v[2] = store_jstr(sig, "name");
	v[3] = rep->time;
	v[4] = rep->host;
	v[5] = store_jstr(store_jget(r, "input"), "path");
	v[6] = store_jstr(crash, "context");
	v[7] = rep->patterns;
	v[8] = store_jstr(store_jget(r, "process"), "executable");
	v[9] = store_jstr(store_jget(r, "input"), "kind");
	v[10] = rep->hash;
	v[11] = rep->now;
	res = pg_params(s, "INSERT INTO crashes(signature, signal, signal_name, time, host, input,"
			" context, patterns, executable, kind, hash, added)"
			" VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)"
			" ON CONFLICT (hash) DO NOTHING RETURNING id", 12, v);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		err = retryable(res) ? 2 : pg_fail(s, res, "insert crash");
		if (err == 2)
			PQclear(res);
		res = NULL;
		goto rollback;
	}
	if (PQntuples(res) == 0) {
		/* another writer (or an earlier run) stored it: find its id */
		PQclear(res);
		PQclear(PQexec(s->conn, "ROLLBACK"));
		res = pg_params(s, "SELECT id FROM crashes WHERE hash = $1", 1, &v[10]);
		if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
			err = pg_fail(s, res, "find report");
			res = NULL;
			goto cleanup;
		}
		*out_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		err = 1;
		goto cleanup;
	}
	*out_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	snprintf(id, sizeof(id), "%lld", (long long)*out_id);
	PQclear(res);
	res = NULL;
	if ((err = pg_insert_rows(s, id, r)) != 0)
		goto rollback;
	{
		const char *rv[2] = { id, json };
		const char *sv[4] = { rep->signature, rep->host, rep->time, id };
		Oid st[4] = { 25, 25, 25, 20 };

		if ((err = pg_row(s, "INSERT INTO reports VALUES($1,$2)", 2, rv)) != 0)
			goto rollback;
		hsql = pg_sql(store_summary_hosts_sql);
		vsql = pg_sql(store_summary_versions_sql);
		res = PQexecParams(s->conn, hsql, 3, st, sv, NULL, NULL, 0);
		if (PQresultStatus(res) == PGRES_COMMAND_OK) {
			PQclear(res);
			res = PQexecParams(s->conn, vsql, 4, st, sv, NULL, NULL, 0);
		}
		if (PQresultStatus(res) != PGRES_COMMAND_OK) {
			err = retryable(res) ? 2 : pg_fail(s, res, "update summary");
			if (err == 2)
				PQclear(res);
			res = NULL;
			goto rollback;
		}
		PQclear(res);
		res = NULL;
	}
	res = PQexec(s->conn, "COMMIT");
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		err = retryable(res) ? 2 : pg_fail(s, res, "commit");
		if (err == 2)
			PQclear(res);
		res = NULL;
		goto cleanup;
	}
	err = 0;
	goto cleanup;
rollback:
	if (err == 1)
		err = 2;	/* a row insert hit a writers' conflict */
	PQclear(PQexec(s->conn, "ROLLBACK"));
cleanup:
	PQclear(res);
	free(signo);
	free(hsql);
	free(vsql);
	return err;
}

int store_pg_add(int64_t *out_id, struct store_pg *s, const char *json, size_t len,
		 const struct prov_store_meta *meta)
{
	struct prov_jv *r = NULL;
	struct store_report rep;
	char *text = NULL;
	int err, tries;

	if (s->readonly)
		return prov_error_set(PROV_ERROR, "store %s: opened read-only", s->name);
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
	for (tries = 0; tries < PG_RETRIES; tries++)
		if ((err = pg_add_once(out_id, s, r, &rep, text)) != 2)
			break;
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

int store_pg_history(char **out, struct store_pg *s, int64_t crash_id)
{
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

/*
 * The selection: all crashes (answered from the summaries), or since a time
 * and/or with a component (answered from the crashes, by the time index).
 */
static const char *pg_selection(const struct prov_triage_opts *o)
{
	if (o->since && o->component)
		return " c.time >= $1 AND c.id IN (SELECT crash_id FROM components WHERE name = $2) ";
	if (o->since)
		return " c.time >= $1 AND $2::text IS NULL ";
	if (o->component)
		return " $1::text IS NULL AND c.id IN (SELECT crash_id FROM components WHERE name = $2) ";
	return " $1::text IS NULL AND $2::text IS NULL ";
}

static PGresult *pg_sel(struct store_pg *s, const struct prov_triage_opts *o, const char *head,
			const char *tail, const char *third)
{
	char *sql = prov_xasprintf("%s%s%s", head, pg_selection(o), tail);
	const char *v[3] = { o->since, o->component, third };
	Oid types[3] = { 25, 25, 25 };
	PGresult *r = PQexecParams(s->conn, sql, third ? 3 : 2, types, v, NULL, NULL, 0);

	free(sql);
	return r;
}

static int group_of(const struct prov_triage *t, const char *sig)
{
	size_t lo = 0, hi = t->ngroups;

	/* groups are few; a linear scan keeps the order rules in one place */
	for (lo = 0; lo < hi; lo++)
		if (!strcmp(t->groups[lo].signature, sig))
			return (int)lo;
	return -1;
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
	int i, n, err = 0;
	size_t k;

	if (summary)
		r = PQexec(s->conn, "SELECT component, version, signature, count FROM signature_versions"
			   " ORDER BY 1, 2");
	else
		r = pg_sel(s, o, "SELECT v.name, coalesce(v.version, '?') COLLATE \"C\", c.signature,"
			   " count(DISTINCT v.crash_id) FROM components v JOIN crashes c ON c.id = v.crash_id"
			   " WHERE", "GROUP BY 1, 2, 3 ORDER BY 1, 2", NULL);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		free(counts);
		return pg_fail(s, r, "triage");
	}
	n = PQntuples(r);
	for (i = 0; i <= n; i++) {
		int next = i == n || !name || strcmp(name, PQgetvalue(r, i, 0)) ||
			   strcmp(ver, PQgetvalue(r, i, 1));
		int gi;

		if (next && name) {
			/* close the (name, version): one entry in every group, as on SQLite */
			for (k = 0; k < t->ngroups; k++) {
				struct prov_triage_group *g = &t->groups[k];
				struct prov_triage_version *v;

				g->versions = prov_xrealloc(g->versions, (g->nversions + 1) * sizeof(*v));
				v = &g->versions[g->nversions++];
				v->component = prov_xstrdup(name);
				v->version = prov_xstrdup(ver);
				v->count = counts[k];
				v->total = total;
			}
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
		}
		total += strtoll(PQgetvalue(r, i, 3), NULL, 10);
		gi = group_of(t, PQgetvalue(r, i, 2));
		if (gi >= 0)
			counts[gi] += strtoll(PQgetvalue(r, i, 3), NULL, 10);
	}
	free(name);
	free(ver);
	free(counts);
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

int store_pg_triage(struct prov_triage *out, struct store_pg *s,
		    const struct prov_triage_opts *opts)
{
	struct prov_triage t = { 0 };
	struct prov_triage_opts o = *opts;
	int summary = !o.since && !o.component, err;
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

int store_pg_query(struct store_pg *s, const char *sql, const struct prov_query_opts *opts,
		   prov_store_row_fn row, void *data)
{
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
