/* The crash store's one schema for both dialects, its migrations, the fixed SQL both run. */
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store-int.h"
#include "alloc.h"
#include "buf.h"
#include "banned.h"

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

/*
 * Schema 4: the summaries follow every DELETE of crashes (prune, or an
 * admin's plain DELETE), and a deleted crash's frames, modules, components
 * and report go with it; an index answers first/last seen per (signature,
 * host). SQLite has no statement triggers: per row, first/last seen looked
 * up again only when the deleted crash was the pair's first or last.
 * PostgreSQL: once per statement (a transition table), and TRUNCATE too.
 * IF NOT EXISTS / OR REPLACE: the same text makes and upgrades a store.
 */
static const char schema_4_sqlite[] =
	"CREATE INDEX IF NOT EXISTS crashes_signature_host ON crashes(signature, host, time);"
	"CREATE TRIGGER IF NOT EXISTS crashes_deleted AFTER DELETE ON crashes BEGIN"
	" UPDATE signature_hosts SET count = count - 1,"
	" first_seen = CASE WHEN OLD.time IS NOT NULL AND OLD.time <= first_seen"
	" THEN (SELECT min(time) FROM crashes WHERE signature = OLD.signature AND host = OLD.host)"
	" ELSE first_seen END,"
	" last_seen = CASE WHEN OLD.time IS NOT NULL AND OLD.time >= last_seen"
	" THEN (SELECT max(time) FROM crashes WHERE signature = OLD.signature AND host = OLD.host)"
	" ELSE last_seen END"
	" WHERE signature = OLD.signature AND host = OLD.host;"
	" DELETE FROM signature_hosts"
	" WHERE signature = OLD.signature AND host = OLD.host AND count <= 0;"
	" UPDATE signature_versions SET count = count - 1,"
	" approximate = approximate - (SELECT max(CASE WHEN commit_is = 'approximate' THEN 1 ELSE 0 END)"
	" FROM components WHERE crash_id = OLD.id AND name = signature_versions.component"
	" AND coalesce(version, '?') = signature_versions.version)"
	" WHERE signature = OLD.signature AND EXISTS (SELECT 1 FROM components"
	" WHERE crash_id = OLD.id AND name = signature_versions.component"
	" AND coalesce(version, '?') = signature_versions.version);"
	" DELETE FROM signature_versions WHERE signature = OLD.signature AND count <= 0;"
	" DELETE FROM frames WHERE crash_id = OLD.id;"
	" DELETE FROM modules WHERE crash_id = OLD.id;"
	" DELETE FROM components WHERE crash_id = OLD.id;"
	" DELETE FROM reports WHERE crash_id = OLD.id;"
	"END;";

static const char schema_4_pg[] =
	"CREATE INDEX IF NOT EXISTS crashes_signature_host ON crashes(signature, host, time);"
	"CREATE OR REPLACE FUNCTION provenance_crashes_deleted() RETURNS trigger LANGUAGE plpgsql AS $body$"
	"BEGIN"
	" UPDATE signature_hosts h SET count = h.count - d.n"
	" FROM (SELECT signature, host, count(*) AS n FROM old_crashes GROUP BY 1, 2) d"
	" WHERE h.signature = d.signature AND h.host = d.host;"
	" DELETE FROM signature_hosts h USING (SELECT DISTINCT signature, host FROM old_crashes) d"
	" WHERE h.signature = d.signature AND h.host = d.host AND h.count <= 0;"
	" UPDATE signature_hosts h SET first_seen = s.lo, last_seen = s.hi"
	" FROM (SELECT c.signature, c.host, min(c.time) AS lo, max(c.time) AS hi"
	" FROM (SELECT DISTINCT signature, host FROM old_crashes) d"
	" JOIN crashes c ON c.signature = d.signature AND c.host = d.host"
	" GROUP BY 1, 2) s"
	" WHERE h.signature = s.signature AND h.host = s.host;"
	" UPDATE signature_versions v SET count = v.count - d.n, approximate = v.approximate - d.a"
	" FROM (SELECT o.signature, k.name, coalesce(k.version, '?') AS version,"
	" count(DISTINCT k.crash_id) AS n,"
	" count(DISTINCT k.crash_id) FILTER (WHERE k.commit_is = 'approximate') AS a"
	" FROM old_crashes o JOIN components k ON k.crash_id = o.id GROUP BY 1, 2, 3) d"
	" WHERE v.signature = d.signature AND v.component = d.name AND v.version = d.version;"
	" DELETE FROM signature_versions v USING (SELECT DISTINCT signature FROM old_crashes) d"
	" WHERE v.signature = d.signature AND v.count <= 0;"
	" DELETE FROM frames WHERE crash_id IN (SELECT id FROM old_crashes);"
	" DELETE FROM modules WHERE crash_id IN (SELECT id FROM old_crashes);"
	" DELETE FROM components WHERE crash_id IN (SELECT id FROM old_crashes);"
	" DELETE FROM reports WHERE crash_id IN (SELECT id FROM old_crashes);"
	" RETURN NULL;"
	"END"
	"$body$;"
	"CREATE OR REPLACE TRIGGER crashes_deleted AFTER DELETE ON crashes REFERENCING OLD TABLE AS old_crashes"
	" FOR EACH STATEMENT EXECUTE FUNCTION provenance_crashes_deleted();"
	"CREATE OR REPLACE FUNCTION provenance_crashes_truncated() RETURNS trigger LANGUAGE plpgsql AS $body$"
	"BEGIN"
	" TRUNCATE signature_hosts, signature_versions, frames, modules, components, reports;"
	" RETURN NULL;"
	"END"
	"$body$;"
	"CREATE OR REPLACE TRIGGER crashes_truncated AFTER TRUNCATE ON crashes"
	" FOR EACH STATEMENT EXECUTE FUNCTION provenance_crashes_truncated();";

/*
 * Schema 5: the fix lifecycle (provenance mark): one row per signature, the
 * latest mark replacing the one before. Crashes deleted or pruned leave it.
 */
static const char schema_5[] =
	"CREATE TABLE IF NOT EXISTS marks(signature CTEXT PRIMARY KEY, fixed_in CTEXT NOT NULL,"
	" component CTEXT, bug CTEXT, note CTEXT, marked CTEXT NOT NULL);";

/*
 * Schema 6: crashes per signature per UTC day (the first 10 bytes of the
 * time), so that triage --by day and the web view's daily counts read one
 * row per (signature, day) instead of every crash. Kept in the insert's
 * transaction (store_summary_days_sql) and by DELETE and TRUNCATE triggers,
 * as the schema 4 summaries are; a crash with no time has no day.
 */
static const char schema_6_table[] =
	"CREATE TABLE IF NOT EXISTS signature_days(signature CTEXT NOT NULL, day CTEXT NOT NULL,"
	" count BIGINT NOT NULL, PRIMARY KEY(signature, day));";

static const char schema_6_sqlite[] =
	"CREATE TRIGGER IF NOT EXISTS crashes_deleted_days AFTER DELETE ON crashes"
	" WHEN OLD.time IS NOT NULL BEGIN"
	" UPDATE signature_days SET count = count - 1"
	" WHERE signature = OLD.signature AND day = substr(OLD.time, 1, 10);"
	" DELETE FROM signature_days"
	" WHERE signature = OLD.signature AND day = substr(OLD.time, 1, 10) AND count <= 0;"
	"END;";

static const char schema_6_pg[] =
	"CREATE OR REPLACE FUNCTION provenance_crashes_deleted_days() RETURNS trigger LANGUAGE plpgsql AS $body$"
	"BEGIN"
	" UPDATE signature_days s SET count = s.count - d.n"
	" FROM (SELECT signature, substr(time, 1, 10) AS day, count(*) AS n FROM old_days"
	" WHERE time IS NOT NULL GROUP BY 1, 2) d"
	" WHERE s.signature = d.signature AND s.day = d.day;"
	" DELETE FROM signature_days s USING (SELECT DISTINCT signature FROM old_days) d"
	" WHERE s.signature = d.signature AND s.count <= 0;"
	" RETURN NULL;"
	"END"
	"$body$;"
	"CREATE OR REPLACE TRIGGER crashes_deleted_days AFTER DELETE ON crashes REFERENCING OLD TABLE AS old_days"
	" FOR EACH STATEMENT EXECUTE FUNCTION provenance_crashes_deleted_days();"
	"CREATE OR REPLACE FUNCTION provenance_crashes_truncated_days() RETURNS trigger LANGUAGE plpgsql AS $body$"
	"BEGIN"
	" TRUNCATE signature_days;"
	" RETURN NULL;"
	"END"
	"$body$;"
	"CREATE OR REPLACE TRIGGER crashes_truncated_days AFTER TRUNCATE ON crashes"
	" FOR EACH STATEMENT EXECUTE FUNCTION provenance_crashes_truncated_days();";

/* Schema 5 -> 6: the days, filled from what is stored. */
static const char migrate_5_6_fill[] =
	"DELETE FROM signature_days;"
	"INSERT INTO signature_days(signature, day, count)"
	" SELECT signature, substr(time, 1, 10), count(*) FROM crashes WHERE time IS NOT NULL"
	" GROUP BY 1, 2;";

/*
 * Schema 7: the image a crash ran in (the report's input.sysroot: kind,
 * manifest digest, the ref it was named by), for triage --by image and
 * --image. NULL: no image (a directory root, none, or not recorded).
 */
static const char schema_7_columns[] =
	"ALTER TABLE crashes ADD COLUMN image_kind CTEXT;"
	"ALTER TABLE crashes ADD COLUMN image_digest CTEXT;"
	"ALTER TABLE crashes ADD COLUMN image_ref CTEXT;"
	"CREATE INDEX IF NOT EXISTS crashes_image ON crashes(image_digest, signature);";

/*
 * Schema 6 -> 7: the image read back from each stored report that has one
 * (a report stored under schema 6 may have come from an image): a string
 * value only; a report that does not parse is left NULL, never a failed
 * upgrade (PostgreSQL: the cast caught per report in a temporary function).
 */
static const char migrate_6_7_sqlite[] =
	"UPDATE crashes SET (image_kind, image_digest, image_ref) = (SELECT"
	" CASE WHEN json_type(r.json, '$.input.sysroot.kind') = 'text'"
	" THEN json_extract(r.json, '$.input.sysroot.kind') END,"
	" CASE WHEN json_type(r.json, '$.input.sysroot.digest') = 'text'"
	" THEN json_extract(r.json, '$.input.sysroot.digest') END,"
	" CASE WHEN json_type(r.json, '$.input.sysroot.ref') = 'text'"
	" THEN json_extract(r.json, '$.input.sysroot.ref') END"
	" FROM reports r WHERE r.crash_id = crashes.id AND json_valid(r.json))"
	" WHERE id IN (SELECT crash_id FROM reports WHERE json LIKE '%\"sysroot\"%');";

static const char migrate_6_7_pg[] =
	"CREATE FUNCTION pg_temp.provenance_sysroot(t text) RETURNS jsonb LANGUAGE plpgsql AS $body$"
	"BEGIN"
	" RETURN t::jsonb -> 'input' -> 'sysroot';"
	" EXCEPTION WHEN others THEN RETURN NULL;"
	"END"
	"$body$;"
	"UPDATE crashes c SET"
	" image_kind = CASE WHEN jsonb_typeof(s.j -> 'kind') = 'string' THEN s.j ->> 'kind' END,"
	" image_digest = CASE WHEN jsonb_typeof(s.j -> 'digest') = 'string' THEN s.j ->> 'digest' END,"
	" image_ref = CASE WHEN jsonb_typeof(s.j -> 'ref') = 'string' THEN s.j ->> 'ref' END"
	" FROM (SELECT crash_id, pg_temp.provenance_sysroot(json) AS j FROM reports"
	" WHERE json LIKE '%\"sysroot\"%') s"
	" WHERE s.crash_id = c.id AND jsonb_typeof(s.j) = 'object';"
	"DROP FUNCTION pg_temp.provenance_sysroot(text);";

const char store_summary_days_sql[] =
	"INSERT INTO signature_days(signature, day, count)"
	" SELECT ?1, substr(?3, 1, 10), 1 FROM crashes WHERE id = ?4 AND ?3 IS NOT NULL"
	" ON CONFLICT(signature, day) DO UPDATE SET count = signature_days.count + 1";

const char store_mark_sql[] =
	"INSERT INTO marks(signature, fixed_in, component, bug, note, marked) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"
	" ON CONFLICT(signature) DO UPDATE SET fixed_in = excluded.fixed_in,"
	" component = excluded.component, bug = excluded.bug, note = excluded.note,"
	" marked = excluded.marked";

/*
 * Schema 3 -> 4, after the backend has signed every crash again with the
 * current rule: the rows of crashes deleted before the triggers existed go,
 * and the summaries are rebuilt from what the crashes table holds (a
 * PostgreSQL store's were kept on insert only, so a plain DELETE left them
 * counting deleted crashes).
 */
const char store_rebuild_summaries_sql[] =
	"DELETE FROM frames WHERE crash_id NOT IN (SELECT id FROM crashes);"
	"DELETE FROM modules WHERE crash_id NOT IN (SELECT id FROM crashes);"
	"DELETE FROM components WHERE crash_id NOT IN (SELECT id FROM crashes);"
	"DELETE FROM reports WHERE crash_id NOT IN (SELECT id FROM crashes);"
	"DELETE FROM signature_hosts;"
	"DELETE FROM signature_versions;"
	"INSERT INTO signature_hosts(signature, host, count, first_seen, last_seen)"
	" SELECT signature, host, count(*), min(time), max(time) FROM crashes GROUP BY signature, host;"
	"INSERT INTO signature_versions(signature, component, version, count, approximate)"
	" SELECT c.signature, v.name, coalesce(v.version, '?'), count(DISTINCT v.crash_id),"
	" count(DISTINCT CASE WHEN v.commit_is = 'approximate' THEN v.crash_id END)"
	" FROM components v JOIN crashes c ON c.id = v.crash_id"
	" GROUP BY c.signature, v.name, coalesce(v.version, '?');";

const char store_prune_where[] =
	" time < ?1 AND id NOT IN (SELECT id FROM (SELECT id, row_number() OVER"
	" (PARTITION BY signature ORDER BY time DESC, id DESC) AS k FROM crashes"
	" WHERE time IS NOT NULL) AS r WHERE k <= ?2)";

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
	prov_buf_puts(&b, dialect == STORE_SQLITE ? schema_4_sqlite : schema_4_pg);
	subst(&b, schema_5, dialect);
	subst(&b, schema_6_table, dialect);
	prov_buf_puts(&b, dialect == STORE_SQLITE ? schema_6_sqlite : schema_6_pg);
	subst(&b, schema_7_columns, dialect);
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
	} else if (from == 3) {
		prov_buf_puts(&b, dialect == STORE_SQLITE ? schema_4_sqlite : schema_4_pg);
		prov_buf_puts(&b, store_rebuild_summaries_sql);
	} else if (from == 4) {
		subst(&b, schema_5, dialect);
	} else if (from == 5) {
		subst(&b, schema_6_table, dialect);
		prov_buf_puts(&b, dialect == STORE_SQLITE ? schema_6_sqlite : schema_6_pg);
		prov_buf_puts(&b, migrate_5_6_fill);
	} else if (from == 6) {
		subst(&b, schema_7_columns, dialect);
		prov_buf_puts(&b, dialect == STORE_SQLITE ? migrate_6_7_sqlite : migrate_6_7_pg);
	} else {
		return NULL;
	}
	if (dialect == STORE_SQLITE)
		prov_buf_printf(&b, "PRAGMA user_version=%d;", from + 1);
	else
		prov_buf_printf(&b, "UPDATE store_meta SET value = '%d' WHERE key = 'schema';", from + 1);
	return prov_buf_detach(&b);
}

/* ?7 the component's version, in the text only with a component (bind it only then) */
static const char *selection_base(const struct prov_triage_opts *o)
{
	int ver = o->component && o->component_version;

	if (o->since && o->component)
		return ver ? " c.time >= ?1 AND c.id IN (SELECT crash_id FROM components WHERE name = ?2 AND version = ?7) " :
			" c.time >= ?1 AND c.id IN (SELECT crash_id FROM components WHERE name = ?2) ";
	if (o->since)
		return " c.time >= ?1 AND ?2 IS NULL ";
	if (o->component)
		return ver ? " ?1 IS NULL AND c.id IN (SELECT crash_id FROM components WHERE name = ?2 AND version = ?7) " :
			" ?1 IS NULL AND c.id IN (SELECT crash_id FROM components WHERE name = ?2) ";
	return " ?1 IS NULL AND ?2 IS NULL ";
}

char *store_triage_selection(const struct prov_triage_opts *o)
{
	return prov_xasprintf("%s%s%s%s%s", selection_base(o), o->until ? "AND c.time < ?4 " : "",
			      o->host ? "AND c.host = ?5 " : "", o->signature ? "AND c.signature = ?6 " : "",
			      o->image ? "AND (c.image_digest = ?8 OR c.image_digest = 'sha256:' || ?8"
			      " OR c.image_ref = ?8) " : "");
}

/* The component a crash is placed by when none is named: the crashing thread's innermost frame's. */
#define FRAME_COMPONENT "(SELECT f.component FROM frames f WHERE f.crash_id = c.id AND f.crashed = 1" \
	" AND f.component IS NOT NULL ORDER BY f.depth LIMIT 1)"

/* A time that starts a UTC day: a crash is at or after it exactly when its day is. */
static int day_start(const char *t)
{
	return !t || (strlen(t) == 20 && !strcmp(t + 10, "T00:00:00Z"));
}

int store_days_summary(const struct prov_triage_opts *o)
{
	/* signature_days has no image: an --image selection is counted from the crashes */
	return !o->host && !o->component && !o->image && day_start(o->since) && day_start(o->until);
}

/* A crash's image digest starts with ?3, or with "sha256:" and ?3 */
#define DIGEST_STARTS "(substr(c.image_digest, 1, length(?3)) = ?3 OR substr(c.image_digest, 8, length(?3)) = ?3)"

char *store_rows_sql(int what, const struct prov_triage_opts *o, uint64_t limit, int days_table)
{
	char *sel = store_triage_selection(o), *sql;
	unsigned long long n = (unsigned long long)limit;

	if (what == PROV_STORE_DAYS && days_table && store_days_summary(o)) {
		/* the same rows from signature_days: ?1 IS NULL and ?2 IS NULL as the selection reads them */
		free(sel);
		return prov_xasprintf("SELECT signature, day, count FROM signature_days WHERE"
				      " (?1 IS NULL OR day >= substr(?1, 1, 10)) AND ?2 IS NULL%s%s"
				      " AND (?3 IS NULL OR signature = ?3) ORDER BY 1, 2 LIMIT %llu",
				      o->until ? " AND day < substr(?4, 1, 10)" : "",
				      o->signature ? " AND signature = ?6" : "", n);
	}
	switch (what) {
	case PROV_STORE_DAYS:
		sql = prov_xasprintf("SELECT c.signature, substr(c.time, 1, 10), count(*) FROM crashes c WHERE%s"
				     "AND (?3 IS NULL OR c.signature = ?3) AND c.time IS NOT NULL"
				     " GROUP BY 1, 2 ORDER BY 1, 2 LIMIT %llu", sel, n);
		break;
	case PROV_STORE_HOSTS:
		sql = prov_xasprintf("SELECT c.signature, c.host, count(*) FROM crashes c WHERE%s"
				     "AND (?3 IS NULL OR c.signature = ?3) GROUP BY 1, 2 ORDER BY 1, 2 LIMIT %llu",
				     sel, n);
		break;
	case PROV_STORE_VERSIONS:
		sql = prov_xasprintf("SELECT c.signature, coalesce(k.name || ' ' || coalesce(k.version, '?'), '?'),"
				     " count(DISTINCT c.id) FROM crashes c LEFT JOIN components k ON k.crash_id = c.id"
				     " AND k.name = coalesce(?2, " FRAME_COMPONENT ") WHERE%s"
				     "AND (?3 IS NULL OR c.signature = ?3) GROUP BY 1, 2 ORDER BY 1, 2 LIMIT %llu",
				     sel, n);
		break;
	case PROV_STORE_IMAGES:
		/* the same order on both stores: no image last */
		sql = prov_xasprintf("SELECT c.signature, c.image_digest, count(*), max(c.image_ref)"
				     " FROM crashes c WHERE%s"
				     "AND (?3 IS NULL OR c.signature = ?3) GROUP BY 1, 2"
				     " ORDER BY 1, c.image_digest IS NULL, 2 LIMIT %llu", sel, n);
		break;
	case PROV_STORE_IMAGE_MATCH:
		/* ?3 the argument: a digest's start (with or without "sha256:") or a ref */
		sql = prov_xasprintf("SELECT c.image_digest, max(CASE WHEN c.image_ref = ?3 THEN '1' ELSE '0' END),"
				     " max(CASE WHEN " DIGEST_STARTS " THEN '1' ELSE '0' END)"
				     " FROM crashes c WHERE ?1 IS NULL AND ?2 IS NULL AND c.image_digest IS NOT NULL"
				     " AND (c.image_ref = ?3 OR " DIGEST_STARTS ")"
				     " GROUP BY 1 ORDER BY 1 LIMIT %llu", n);
		break;
	case PROV_STORE_MARKS:
		sql = prov_xasprintf("SELECT signature, fixed_in, component, bug, note, marked FROM marks"
				     " WHERE (?3 IS NULL OR signature = ?3) ORDER BY signature LIMIT %llu", n);
		break;
	case PROV_STORE_FIX_BUILDS:
		sql = prov_xasprintf("SELECT c.signature, k.version, k.\"commit\", count(DISTINCT c.id)"
				     " FROM crashes c JOIN marks m ON m.signature = c.signature"
				     " LEFT JOIN components k ON k.crash_id = c.id"
				     " AND k.name = coalesce(m.component, " FRAME_COMPONENT ") WHERE%s"
				     "AND (?3 IS NULL OR c.id = CAST(?3 AS BIGINT)) GROUP BY 1, 2, 3 ORDER BY 1 LIMIT %llu",
				     sel, n);
		break;
	default:
		sql = prov_xasprintf("SELECT c.id, c.time, c.host FROM crashes c WHERE%s"
				     "AND c.signature = ?3 ORDER BY c.time DESC, c.id DESC LIMIT %llu", sel, n);
		break;
	}
	free(sel);
	return sql;
}
