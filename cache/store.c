#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cachedir.h"
#include "store.h"
#include "store-int.h"
#include "buf.h"
#include "error.h"
#include "jsonread.h"
#include "sha256.h"
#include "signature.h"
#include "util.h"
#include "banned.h"

/*
 * The store's front: which implementation a --store value names, the one
 * schema both implementations create, the migrations, and the report
 * reading they share (signature, identity hash).
 */

struct prov_store {
	enum store_dialect dialect;
	struct store_sqlite *lite;
	struct store_pg *pg;
	char *name;	/* for messages: never a password */
};

/*
 * The documented tables (docs/store.md): keep names and meanings. One text
 * for both stores: ID_PK is the crash id column, CTEXT a text column that
 * compares and sorts bytewise (SQLite's default; COLLATE "C" on PostgreSQL)
 * so that both stores order groups alike; COVER_* add PostgreSQL's INCLUDE
 * columns (index-only scans for triage --since), nothing on SQLite.
 */
static const char schema_tables[] =
	"CREATE TABLE crashes("
	" id ID_PK, signature CTEXT NOT NULL, signal BIGINT, signal_name CTEXT,"
	" time CTEXT, host CTEXT NOT NULL, input CTEXT, context CTEXT, patterns CTEXT,"
	" executable CTEXT, kind CTEXT, hash CTEXT NOT NULL UNIQUE, added CTEXT NOT NULL);"
	"CREATE INDEX crashes_signature ON crashes(signature, time, id);"
	"CREATE INDEX crashes_time ON crashes(time) COVER_TIME;"
	"CREATE TABLE frames("
	" crash_id BIGINT NOT NULL, thread BIGINT NOT NULL, tid BIGINT,"
	" crashed BIGINT NOT NULL, depth BIGINT NOT NULL, function CTEXT, file CTEXT,"
	" line BIGINT, module CTEXT, component CTEXT, language CTEXT NOT NULL);"
	"CREATE INDEX frames_crash ON frames(crash_id, crashed, depth);"
	"CREATE TABLE modules("
	" crash_id BIGINT NOT NULL, path CTEXT, build_id CTEXT, package_kind CTEXT,"
	" package CTEXT, version CTEXT, component CTEXT);"
	"CREATE INDEX modules_crash ON modules(crash_id);"
	"CREATE TABLE components("
	" crash_id BIGINT NOT NULL, name CTEXT NOT NULL, version CTEXT, \"commit\" CTEXT,"
	" repo CTEXT);"
	"CREATE INDEX components_crash ON components(crash_id) COVER_COMPONENT;"
	"CREATE INDEX components_name ON components(name, version);"
	"CREATE TABLE reports(crash_id BIGINT PRIMARY KEY, json TEXT NOT NULL);";

/* Schema 2: per-signature summaries kept in the insert's transaction (triage at fleet scale). */
static const char schema_summaries[] =
	"CREATE TABLE signature_hosts(signature CTEXT NOT NULL, host CTEXT NOT NULL,"
	" count BIGINT NOT NULL, first_seen CTEXT, last_seen CTEXT,"
	" PRIMARY KEY(signature, host));"
	"CREATE TABLE signature_versions(signature CTEXT NOT NULL, component CTEXT NOT NULL,"
	" version CTEXT NOT NULL, count BIGINT NOT NULL,"
	" PRIMARY KEY(signature, component, version));";

/*
 * Schema 3: how each component's commit was found (components.commit_is,
 * "exact" or "approximate", and components.found_by, as in the report) and,
 * per signature and version, how many crashes ran an approximate commit.
 * A new store is schema 2 and these: one text, so that a new store and an
 * upgraded one are the same. Rows stored before are NULL / 0: not recorded.
 */
static const char schema_3_columns[] =
	"ALTER TABLE components ADD COLUMN commit_is CTEXT;"
	"ALTER TABLE components ADD COLUMN found_by CTEXT;"
	"ALTER TABLE signature_versions ADD COLUMN approximate BIGINT NOT NULL DEFAULT 0;";

/* Schema 1 -> 2: the summaries, filled from what is stored. */
static const char migrate_1_2_fill[] =
	"INSERT INTO signature_hosts SELECT signature, host, count(*), min(time), max(time)"
	" FROM crashes GROUP BY signature, host;"
	"INSERT INTO signature_versions SELECT c.signature, v.name, coalesce(v.version, '?'),"
	" count(DISTINCT v.crash_id) FROM components v JOIN crashes c ON c.id = v.crash_id"
	" GROUP BY c.signature, v.name, coalesce(v.version, '?');";

const char store_summary_hosts_sql[] =
	"INSERT INTO signature_hosts(signature, host, count, first_seen, last_seen)"
	" SELECT ?1, ?2, 1, ?3, ?3 FROM crashes WHERE id = ?4"
	" ON CONFLICT(signature, host) DO UPDATE SET"
	" count = signature_hosts.count + 1,"
	" first_seen = CASE WHEN excluded.first_seen IS NOT NULL AND (signature_hosts.first_seen IS NULL"
	" OR excluded.first_seen < signature_hosts.first_seen) THEN excluded.first_seen"
	" ELSE signature_hosts.first_seen END,"
	" last_seen = CASE WHEN excluded.last_seen IS NOT NULL AND (signature_hosts.last_seen IS NULL"
	" OR excluded.last_seen > signature_hosts.last_seen) THEN excluded.last_seen"
	" ELSE signature_hosts.last_seen END";

const char store_summary_versions_sql[] =
	"INSERT INTO signature_versions(signature, component, version, count, approximate)"
	" SELECT ?1, name, v, 1, a FROM (SELECT name, coalesce(version, '?') AS v,"
	" max(CASE WHEN commit_is = 'approximate' THEN 1 ELSE 0 END) AS a"
	" FROM components WHERE crash_id = ?4 GROUP BY 1, 2) AS d ORDER BY name, v"
	" ON CONFLICT(signature, component, version) DO UPDATE SET"
	" count = signature_versions.count + 1,"
	" approximate = signature_versions.approximate + excluded.approximate";

static void subst(struct prov_buf *b, const char *sql, enum store_dialect d)
{
	const char *p = sql;

	while (*p) {
		if (!strncmp(p, "ID_PK", 5)) {
			prov_buf_printf(b, "%s", d == STORE_PG ?
					"BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" :
					"INTEGER PRIMARY KEY");
			p += 5;
		} else if (!strncmp(p, "COVER_TIME", 10)) {
			/* PostgreSQL: --since answered from the index alone */
			if (d == STORE_PG)
				prov_buf_puts(b, "INCLUDE (signature, host, id)");
			p += 10;
		} else if (!strncmp(p, "COVER_COMPONENT", 15)) {
			if (d == STORE_PG)
				prov_buf_puts(b, "INCLUDE (name, version)");
			p += 15;
		} else if (!strncmp(p, "CTEXT", 5)) {
			prov_buf_printf(b, "%s", d == STORE_PG ? "TEXT COLLATE \"C\"" : "TEXT");
			p += 5;
		} else {
			prov_buf_putc(b, *p);
			p++;
		}
	}
}

char *store_schema_sql(enum store_dialect dialect)
{
	struct prov_buf b = PROV_BUF_INIT;

	subst(&b, schema_tables, dialect);
	subst(&b, schema_summaries, dialect);
	subst(&b, schema_3_columns, dialect);
	if (dialect == STORE_SQLITE)
		prov_buf_printf(&b, "PRAGMA application_id=1347573331;PRAGMA user_version=%d;",
				PROV_STORE_SCHEMA);
	else
		prov_buf_printf(&b, "CREATE TABLE store_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
				"INSERT INTO store_meta VALUES('identity', 'provenance crash store'),"
				" ('schema', '%d');", PROV_STORE_SCHEMA);
	return prov_buf_detach(&b);
}

char *store_migration_sql(enum store_dialect dialect, int from)
{
	struct prov_buf b = PROV_BUF_INIT;

	if (from == 1) {
		subst(&b, schema_summaries, dialect);
		prov_buf_printf(&b, "%s", migrate_1_2_fill);
	} else if (from == 2) {
		subst(&b, schema_3_columns, dialect);
	} else {
		return NULL;
	}
	if (dialect == STORE_SQLITE)
		prov_buf_printf(&b, "PRAGMA user_version=%d;", from + 1);
	else
		prov_buf_printf(&b, "UPDATE store_meta SET value = '%d' WHERE key = 'schema';", from + 1);
	return prov_buf_detach(&b);
}

const char *store_triage_selection(const struct prov_triage_opts *o)
{
	if (o->since && o->component)
		return " c.time >= ?1 AND c.id IN (SELECT crash_id FROM components WHERE name = ?2) ";
	if (o->since)
		return " c.time >= ?1 AND ?2 IS NULL ";
	if (o->component)
		return " ?1 IS NULL AND c.id IN (SELECT crash_id FROM components WHERE name = ?2) ";
	return " ?1 IS NULL AND ?2 IS NULL ";
}

char *prov_store_default_path(const char *cache_dir)
{
	return prov_cachedir_path(cache_dir, PROV_CACHEDIR_STORE);
}

int prov_store_is_pg(const char *where)
{
	const char *p = where;

	if (!strncmp(where, "postgresql://", 13) || !strncmp(where, "postgres://", 11))
		return 1;
	/* a libpq keyword string: "key=value ..." with a known first key */
	while (*p >= 'a' && *p <= 'z')
		p++;
	while (*p == ' ')
		p++;
	if (p == where || *p != '=')
		return 0;
	return !strncmp(where, "host", 4) || !strncmp(where, "hostaddr", 8) ||
	       !strncmp(where, "dbname", 6) || !strncmp(where, "service", 7) ||
	       !strncmp(where, "user", 4) || !strncmp(where, "port", 4) ||
	       !strncmp(where, "sslmode", 7) || !strncmp(where, "application_name", 16) ||
	       !strncmp(where, "connect_timeout", 15) || !strncmp(where, "passfile", 8);
}

static void blank(char *p, const char *stop)
{
	for (; *p && !strchr(stop, *p); p++)
		*p = 'x';
}

void prov_store_hide_password(char *arg)
{
	char *p, *at, *end;

	if (!arg || !prov_store_is_pg(arg))
		return;
	p = strstr(arg, "://");
	if (p) {
		/* postgresql://user:PASSWORD@host/db?...&password=PASSWORD */
		p += 3;
		end = p + strcspn(p, "/?");
		at = memchr(p, '@', (size_t)(end - p));
		if (at) {
			char *colon = memchr(p, ':', (size_t)(at - p));

			if (colon)
				blank(colon + 1, "@");
		}
		for (p = strchr(end, '?'); p; p = strchr(p + 1, '&'))
			if (!strncmp(p + 1, "password=", 9))
				blank(p + 10, "&");
		return;
	}
	/* keywords: password=VALUE or password = 'VALUE' */
	for (p = strstr(arg, "password"); p; p = strstr(p + 1, "password")) {
		char *v = p + 8;

		if (p != arg && p[-1] != ' ' && p[-1] != '\t')
			continue;
		while (*v == ' ')
			v++;
		if (*v != '=')
			continue;
		v++;
		while (*v == ' ')
			v++;
		if (*v == '\'')
			blank(v + 1, "'");
		else
			blank(v, " \t");
	}
}

int prov_store_open(struct prov_store **out, const char *path, int readonly)
{
	struct prov_store *s = prov_xcalloc(1, sizeof(*s));
	int err;

	s->name = prov_store_safe_name(path);
	if (prov_store_is_pg(path)) {
		s->dialect = STORE_PG;
		err = store_pg_open(&s->pg, path, s->name, readonly);
	} else {
		s->dialect = STORE_SQLITE;
		err = store_sqlite_open(&s->lite, path, readonly);
	}
	if (err < 0) {
		free(s->name);
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

void prov_store_free(struct prov_store *s)
{
	if (!s)
		return;
	store_sqlite_free(s->lite);
	store_pg_free(s->pg);
	free(s->name);
	free(s);
}

const char *prov_store_name(const struct prov_store *s)
{
	return s->name;
}

int prov_store_begin(struct prov_store *s)
{
	return s->pg ? store_pg_begin(s->pg) : store_sqlite_begin(s->lite);
}

int prov_store_commit(struct prov_store *s)
{
	return s->pg ? store_pg_commit(s->pg) : store_sqlite_commit(s->lite);
}

void prov_store_rollback(struct prov_store *s)
{
	if (s->pg)
		store_pg_rollback(s->pg);
	else
		store_sqlite_rollback(s->lite);
}

int prov_store_add(int64_t *out_id, struct prov_store *s, const char *json, size_t len,
		   const struct prov_store_meta *meta)
{
	return s->pg ? store_pg_add(out_id, s->pg, json, len, meta) :
		       store_sqlite_add(out_id, s->lite, json, len, meta);
}

int prov_store_history(char **out, struct prov_store *s, int64_t crash_id)
{
	return s->pg ? store_pg_history(out, s->pg, crash_id) :
		       store_sqlite_history(out, s->lite, crash_id);
}

int prov_store_triage(struct prov_triage *out, struct prov_store *s,
		      const struct prov_triage_opts *opts)
{
	return s->pg ? store_pg_triage(out, s->pg, opts) :
		       store_sqlite_triage(out, s->lite, opts);
}

int prov_store_query(struct prov_store *s, const char *sql, const struct prov_query_opts *opts,
		     prov_store_row_fn row, void *data)
{
	return s->pg ? store_pg_query(s->pg, sql, opts, row, data) :
		       store_sqlite_query(s->lite, sql, opts, row, data);
}

/* ------------------------------------------------------------------ time */
static int digits(int *out, const char *s, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

void prov_store_format_time(char out[21], int64_t secs)
{
	struct tm tm;
	time_t t = (time_t)secs;

	if (!gmtime_r(&t, &tm) || !strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 21, "1970-01-01T00:00:00Z");
}

int prov_store_parse_time(char out[21], const char *text)
{
	struct tm tm = { 0 };
	int y, mo, d, h = 0, mi = 0, sec = 0;
	size_t n = strlen(text);
	time_t t;

	if (text[0] == '@') {
		int64_t v;

		if (prov_parse_i64(&v, text + 1, strlen(text + 1)) < 0 || v < 0 ||
		    v > 253402300799LL)
			goto bad;
		prov_store_format_time(out, v);
		return 0;
	}
	if (n < 10 || digits(&y, text, 4) < 0 || text[4] != '-' || digits(&mo, text + 5, 2) < 0 ||
	    text[7] != '-' || digits(&d, text + 8, 2) < 0)
		goto bad;
	if (n > 10) {
		const char *p = text + 10;

		if ((*p != 'T' && *p != ' ') || strlen(p) < 6 || digits(&h, p + 1, 2) < 0 ||
		    p[3] != ':' || digits(&mi, p + 4, 2) < 0)
			goto bad;
		p += 6;
		if (*p == ':') {
			if (digits(&sec, p + 1, 2) < 0)
				goto bad;
			p += 3;
		}
		if (*p == 'Z')
			p++;
		if (*p)
			goto bad;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || y < 1970)
		goto bad;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if (t == (time_t)-1)
		goto bad;
	prov_store_format_time(out, (int64_t)t);
	/* 2026-02-30 normalises to March: refuse it rather than guess */
	{
		int got;

		if (digits(&got, out + 8, 2) < 0 || got != d)
			goto bad;
	}
	return 0;
bad:
	return prov_error_set(PROV_EINPUT, "bad time '%s' (expected YYYY-MM-DD[THH:MM[:SS]][Z], UTC, or @SECONDS)",
			      text);
}

/* ---------------------------------------------------------------- reports */

const struct prov_jv *store_jget(const struct prov_jv *v, const char *key)
{
	return v && v->type == PROV_JV_OBJECT ? prov_jv_get(v, key) : NULL;
}

const char *store_jstr(const struct prov_jv *v, const char *key)
{
	return prov_jv_str(store_jget(v, key));
}

int store_jint(int64_t *out, const struct prov_jv *v)
{
	if (!v || v->type != PROV_JV_NUMBER || !v->str)
		return -1;
	return prov_parse_i64(out, v->str, v->len) < 0 ? -1 : 0;
}

const struct prov_jv *store_jarray(const struct prov_jv *v, const char *key)
{
	const struct prov_jv *a = store_jget(v, key);

	return a && a->type == PROV_JV_ARRAY ? a : NULL;
}

const struct prov_jv *store_crashed_thread(const struct prov_jv *report, size_t *index)
{
	const struct prov_jv *threads = store_jarray(report, "threads");
	size_t i;

	for (i = 0; threads && i < threads->n; i++) {
		const struct prov_jv *c = store_jget(&threads->items[i], "crashed");

		if (c && c->type == PROV_JV_BOOL && c->boolean) {
			if (index)
				*index = i;
			return &threads->items[i];
		}
	}
	return NULL;
}

static int jtrue(const struct prov_jv *v, const char *key)
{
	const struct prov_jv *b = store_jget(v, key);

	return b && b->type == PROV_JV_BOOL && b->boolean;
}

/* The signature of a stored report: the rule of prov_crash_signature (signature.h). */
char *store_signature(const struct prov_jv *report)
{
	const struct prov_jv *sig = store_jget(report, "signal"), *t = store_crashed_thread(report, NULL);
	const struct prov_jv *frames = store_jarray(t, "frames");
	const char *kind = store_jstr(store_jget(report, "input"), "kind");
	struct prov_sig_frame *f = NULL;
	int64_t number = 0, crash_index = -1, index;
	size_t i, n = frames ? frames->n : 0, from;
	char *out;

	if (store_jint(&number, store_jget(sig, "number")) < 0 || number < 0 || number > 1024)
		number = 0;
	if (store_jint(&crash_index, store_jget(t, "crash_frame")) < 0)
		crash_index = -1;
	/* a core's analyzer decided the crash site; a text backtrace leaves it to the rules */
	from = kind && strcmp(kind, "core") == 0 ? 0 : (size_t)-1;
	if (n)
		f = prov_xcalloc(n, sizeof(*f));
	for (i = 0; i < n; i++) {
		const struct prov_jv *fr = &frames->items[i];
		const char *lang = store_jstr(fr, "language");

		f[i].function = store_jstr(fr, "function");
		f[i].module = store_jstr(fr, "module");
		f[i].python = lang && strcmp(lang, "python") == 0;
		f[i].signal_frame = jtrue(fr, "signal_frame");
		f[i].in_handler = jtrue(fr, "in_signal_handler");
		if (crash_index >= 0 && store_jint(&index, store_jget(fr, "index")) == 0 && index == crash_index)
			from = i;
	}
	out = prov_signature_frames((int)number, f, n, from);
	free(f);
	return out;
}

int store_check_report(const struct prov_jv *r)
{
	const char *schema = store_jstr(r, "schema");

	if (!r || r->type != PROV_JV_OBJECT)
		return prov_error_set(PROV_EINPUT, "not a JSON object");
	if (!schema || strcmp(schema, "provenance/1") != 0)
		return prov_error_set(PROV_EINPUT, "not a provenance report (no \"schema\": \"provenance/1\")");
	if (!store_jarray(r, "threads"))
		return prov_error_set(PROV_EINPUT, "a report without \"threads\"");
	return 0;
}

char *prov_store_signature_of(const char *json, size_t len)
{
	struct prov_jv *r = NULL;
	char *sig = NULL;

	if (prov_jv_parse(&r, json, len) < 0)
		return NULL;
	if (store_check_report(r) == 0)
		sig = store_signature(r);
	prov_jv_free(r);
	return sig;
}

/*
 * A canonical byte stream of a value for the content hash: the same report
 * pretty-printed or on one line hashes alike. "determinism" is left out:
 * it says how many inputs of one run shared the crash, not what crashed.
 */
void store_hash_value(struct prov_sha256 *h, const struct prov_jv *v, int top)
{
	char tag[24];
	size_t i;

	snprintf(tag, sizeof(tag), "%d:%zu:", (int)v->type,
		 v->type == PROV_JV_ARRAY || v->type == PROV_JV_OBJECT ? v->n : v->len);
	prov_sha256_update(h, tag, strlen(tag));
	switch (v->type) {
	case PROV_JV_BOOL:
		prov_sha256_update(h, v->boolean ? "t" : "f", 1);
		break;
	case PROV_JV_NUMBER:
	case PROV_JV_STRING:
		prov_sha256_update(h, v->str, v->len);
		break;
	case PROV_JV_ARRAY:
		for (i = 0; i < v->n; i++)
			store_hash_value(h, &v->items[i], 0);
		break;
	case PROV_JV_OBJECT:
		for (i = 0; i < v->n; i++) {
			if (top && !strcmp(v->keys[i], "determinism"))
				continue;
			prov_sha256_update(h, v->keys[i], strlen(v->keys[i]) + 1);
			store_hash_value(h, &v->items[i], 0);
		}
		break;
	default:
		break;
	}
}

static int index_cmp(const void *a, const void *b, void *data)
{
	const struct prov_triage *t = data;

	return strcmp(t->groups[*(const size_t *)a].signature, t->groups[*(const size_t *)b].signature);
}

size_t *store_triage_index(const struct prov_triage *t)
{
	size_t *index = prov_xcalloc(t->ngroups + 1, sizeof(*index)), i;

	for (i = 0; i < t->ngroups; i++)
		index[i] = i;
	qsort_r(index, t->ngroups, sizeof(*index), index_cmp, (void *)t);
	return index;
}

long store_triage_find(const struct prov_triage *t, const size_t *index, const char *signature)
{
	size_t lo = 0, hi = t->ngroups;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->groups[index[mid]].signature, signature);

		if (!c)
			return (long)index[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void store_triage_add_version(struct prov_triage *t, const char *component, const char *version,
			      const int64_t *counts, const int64_t *approx, int64_t total)
{
	char *c = prov_xstrdup(component), *ver = prov_xstrdup(version);
	size_t k;

	/* one copy of the strings for every group, owned by the first group's entry */
	for (k = 0; k < t->ngroups; k++) {
		struct prov_triage_group *g = &t->groups[k];
		struct prov_triage_version *v;

		/* capacity: the next power of two (at least 8) */
		if (g->nversions < 8 ? !g->nversions : !(g->nversions & (g->nversions - 1)))
			g->versions = prov_xrealloc(g->versions, (g->nversions < 8 ? 8 : 2 * g->nversions) *
							       sizeof(*v));
		v = &g->versions[g->nversions++];
		v->component = c;
		v->version = ver;
		v->count = counts[k];
		v->total = total;
		v->approximate = approx[k];
	}
	if (!t->ngroups) {
		free(c);
		free(ver);
	}
}

void prov_triage_release(struct prov_triage *t)
{
	size_t i, k;

	for (i = 0; i < t->ngroups; i++) {
		struct prov_triage_group *g = &t->groups[i];

		free(g->signature);
		free(g->first_seen);
		free(g->last_seen);
		free(g->signal_name);
		free(g->context);
		for (k = 0; k < g->nframes; k++) {
			free(g->frames[k].function);
			free(g->frames[k].file);
			free(g->frames[k].module);
		}
		free(g->frames);
		/* the version strings are shared by every group: the first owns them */
		for (k = 0; i == 0 && k < g->nversions; k++) {
			free(g->versions[k].component);
			free(g->versions[k].version);
		}
		free(g->versions);
	}
	free(t->groups);
	memset(t, 0, sizeof(*t));
}

int store_only_trailer(const char *p)
{
	while (*p) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ';') {
			p++;
		} else if (p[0] == '-' && p[1] == '-') {
			while (*p && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");

			if (!e)
				return 1;	/* an unterminated comment is a comment to the end */
			p = e + 2;
		} else {
			return 0;
		}
	}
	return 1;
}

/* ---------------------------------------------------------- report identity */

void store_report_read(struct store_report *out, const struct prov_jv *r,
		       const struct prov_store_meta *meta)
{
	const struct prov_jv *crash = store_jget(r, "crash");
	const struct prov_jv *pats = store_jarray(crash, "patterns");
	const char *time_s = store_jstr(crash, "time");
	unsigned char digest[PROV_SHA256_LEN];
	struct prov_buf patterns = PROV_BUF_INIT;
	struct prov_sha256 h;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->host = store_jstr(crash, "host");
	if (!out->host || !*out->host)
		out->host = meta && meta->host ? meta->host : "unknown";
	if (time_s && prov_store_parse_time(out->normtime, time_s) == 0)
		out->time = out->normtime;
	else
		out->time = meta ? meta->time : NULL;
	out->signature = meta && meta->signature ? prov_xstrdup(meta->signature) :
			 store_signature(r);

	prov_sha256_init(&h);
	store_hash_value(&h, r, 1);
	prov_sha256_update(&h, out->host, strlen(out->host) + 1);
	if (out->time)
		prov_sha256_update(&h, out->time, strlen(out->time) + 1);
	prov_sha256_final(digest, &h);
	for (i = 0; i < PROV_SHA256_LEN; i++)
		snprintf(out->hash + 2 * i, 3, "%02x", digest[i]);

	for (i = 0; pats && i < pats->n; i++) {
		const char *id = store_jstr(&pats->items[i], "id");

		if (id)
			prov_buf_printf(&patterns, "%s%s", patterns.len ? "," : "", id);
	}
	out->patterns = patterns.len ? prov_buf_detach(&patterns) : NULL;
	prov_buf_release(&patterns);
	prov_store_format_time(out->now, (int64_t)time(NULL));
}

void store_report_release(struct store_report *rep)
{
	free(rep->signature);
	free(rep->patterns);
	rep->signature = rep->patterns = NULL;
}
