#ifndef PROV_STORE_INT_H
#define PROV_STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "jsonread.h"
#include "sha256.h"

/* The public types (store.h); not included here, so that store.c and this header form no cycle. */
struct prov_store_meta;
struct prov_triage;
struct prov_triage_opts;
struct prov_query_opts;
typedef int (*store_row_fn)(size_t ncols, const char *const *names, const char *const *values,
			    const char *types, void *data);

/*
 * Inside the crash store (cache/ only): what the front (store.c) and the
 * shared parts (store-schema.c: the schema, one definition for both
 * dialects, and the migrations; store-report.c: the report reading,
 * signature and identity hash) share with the two backends, store-sqlite.c
 * and store-pg.c, which own their connections and SQL execution.
 */


enum store_dialect { STORE_SQLITE, STORE_PG };

/*
 * The schema as one SQL text for `dialect` (malloc'd): every table and
 * index of the current version. The SQLite text ends with the pragmas that
 * mark the file; PostgreSQL records the same in store_meta.
 */
char *store_schema_sql(enum store_dialect dialect);
/*
 * The SQL that upgrades a store of version `from` to the next (malloc'd),
 * NULL: none. Before the text from 3, the backend signs every crash again
 * from its stored report with the current rule (prov_store_signature_of),
 * in the same transaction: the text then rebuilds the summaries from that.
 */
char *store_migration_sql(enum store_dialect dialect, int from);
extern const char store_rebuild_summaries_sql[];
/*
 * prune's selection, a WHERE clause on crashes (no alias): ?1 the time
 * before which crashes go, ?2 how many of the newest each signature keeps
 * whatever their age. Crashes with no time are never selected.
 */
extern const char store_prune_where[];
/*
 * The statements that keep the per-signature summaries up to date for one
 * new crash, run in the insert's transaction: parameters ?1 signature,
 * ?2 host, ?3 time (or NULL), ?4 crash id. In SQLite's ?N form; PostgreSQL's
 * implementation rewrites ?N to $N.
 */
extern const char store_summary_hosts_sql[];
/* provenance mark's upsert: ?1 signature, ?2 fixed in, ?3 component, ?4 bug, ?5 note, ?6 when. */
extern const char store_mark_sql[];
extern const char store_summary_versions_sql[];
/* The same for the crashes per signature per day (schema 6): ?1, ?3, ?4 as above. */
extern const char store_summary_days_sql[];

/*
 * Triage's selection, a WHERE clause (malloc'd): ?1 since, ?2 component,
 * both bound (NULL when not given) whichever the clause uses; ?4 until,
 * ?5 host, ?6 signature, ?7 the component's version (with a component),
 * each in the text only when given (bind those only then); ?3 is left to
 * the caller's tail. Crashes are "c".
 * PostgreSQL's implementation rewrites ?N to $N.
 */
char *store_triage_selection(const struct prov_triage_opts *o);
/*
 * The web view's rows (prov_store_rows, store.h) as SQL on triage's
 * selection (malloc'd): ?3 the signature (NULL: all for the days), at most
 * `limit` rows. `what` is an enum prov_store_rows.
 */
char *store_rows_sql(int what, const struct prov_triage_opts *o, uint64_t limit, int days_table);
/*
 * Whether the daily counts of selection `o` can be read from signature_days
 * (schema 6) with the same result as from the crashes: no host or component
 * filter, since and until absent or at the start of a UTC day. store_rows_sql
 * reads them there when `days_table` is set and this holds.
 */
int store_days_summary(const struct prov_triage_opts *o);

/* Report reading shared by both implementations. */
const struct prov_jv *store_jget(const struct prov_jv *v, const char *key);
const char *store_jstr(const struct prov_jv *v, const char *key);
int store_jint(int64_t *out, const struct prov_jv *v);
const struct prov_jv *store_jarray(const struct prov_jv *v, const char *key);
const struct prov_jv *store_crashed_thread(const struct prov_jv *report, size_t *index);
char *store_signature(const struct prov_jv *report);
int store_check_report(const struct prov_jv *r);
void store_hash_value(struct prov_sha256 *h, const struct prov_jv *v, int top);
int store_only_trailer(const char *p);

/*
 * Triage's versions pass, shared by both implementations: one query gives
 * (component, version, signature, crashes) for the whole selection, in
 * (component, version) order; each (component, version) then goes into
 * every group (docs/store.md: `components` lists every version the
 * selection has). A group is found by signature in an index sorted once
 * (a scan of the groups per row, or one query per group over the whole
 * selection, was quadratic: 4,000 single-crash groups took 34 s). The
 * strings of an entry are shared by all groups, owned by the first group's
 * (prov_triage_release).
 */
size_t *store_triage_index(const struct prov_triage *t);
long store_triage_find(const struct prov_triage *t, const size_t *index, const char *signature);
void store_triage_add_version(struct prov_triage *t, const char *component, const char *version,
			      const int64_t *counts, const int64_t *approx, int64_t total);

/*
 * store-lifecycle.c, called by the front after a backend's answer, through
 * the backend rows only, not store.c (no call back): triage --by's buckets and each marked group's fix
 * (struct prov_triage_fix); and the line resolve --store adds about a
 * marked signature for one crash (*out NULL: not marked, or nothing known).
 */
/* A store opened by prov_store_open (store.c): its backend and the backend's ops. */
struct prov_store {
	const struct store_ops *ops;	/* filled by the backend's open */
	struct store_backend *backend;
	char *name;	/* for messages: never a password */
};
/*
 * Triage's buckets (o->by) and fix lifecycle, after the groups: each of
 * their queries bounded by timeout_ms (0: an hour, as the CLI's triage).
 */
int store_triage_extras(struct prov_triage *t, struct prov_store *s, const struct prov_triage_opts *o,
			uint64_t timeout_ms);
int store_history_fix(char **out, struct prov_store *s, int64_t crash_id);

/* What one report adds as a crash row: the same on both stores. */
struct store_report {
	const char *host;	/* the report's, the caller's or "unknown" */
	const char *time;	/* normalised, or NULL */
	char *signature;	/* malloc'd */
	char *patterns;		/* malloc'd "id,id", or NULL */
	const char *image[3];	/* input.sysroot's kind, digest and ref (schema 7), each or NULL */
	char hash[2 * PROV_SHA256_LEN + 1];	/* the identity: content, host and time */
	char now[21];		/* when it is added */
	char normtime[21];
};
void store_report_read(struct store_report *out, const struct prov_jv *r,
		       const struct prov_store_meta *meta);
void store_report_release(struct store_report *rep);

/*
 * One backend, as store.c sees it: an opaque handle (a struct store_sqlite
 * or a struct store_pg, each defined in its own file) and the operations
 * that backend's open fills in. store.c calls s->ops->X(s->backend, ...).
 */
struct store_backend;
struct store_ops {
	void (*free)(struct store_backend *be);
	int (*begin)(struct store_backend *be);
	int (*commit)(struct store_backend *be);
	void (*rollback)(struct store_backend *be);
	int (*add)(int64_t *out_id, struct store_backend *be, const char *json, size_t len,
		   const struct prov_store_meta *meta);
	int (*history)(char **out, struct store_backend *be, int64_t crash_id);
	/* the stored bytes of one crash; 1 (nothing set) when there is no such crash */
	int (*report)(char **out, size_t *out_len, struct store_backend *be, int64_t crash_id);
	/* prune (docs/store.md): how many crashes store_prune_where selects; deletes them unless dry_run */
	int (*prune)(int64_t *out_n, struct store_backend *be, const char *before, int64_t keep,
		     int dry_run);
	int (*triage)(struct prov_triage *out, struct store_backend *be,
		      const struct prov_triage_opts *opts);
	int (*query)(struct store_backend *be, const char *sql, const struct prov_query_opts *opts,
		     store_row_fn row, void *data);
	/* prov_store_rows: `what` an enum prov_store_rows */
	int (*mark)(struct store_backend *be, const char *const v[6]);	/* store_mark_sql's values */
	int (*rows)(struct store_backend *be, int what, const struct prov_triage_opts *o,
		    const char *signature, uint64_t max_rows, uint64_t timeout_ms,
		    store_row_fn row, void *data);
	/* 1 once a write found the store's schema changed under it (prov_store_stale) */
	int (*stale)(struct store_backend *be);
	/* bound the statements that follow in run time (timeout_ms; 0 lifts the bound) */
	int (*deadline)(struct store_backend *be, uint64_t timeout_ms);
};

/* The SQLite backend (store-sqlite.c): a file, made on the first write. */
int store_sqlite_open(struct store_backend **out, const struct store_ops **ops, const char *path,
		      int readonly);
/* The PostgreSQL backend (store-pg.c): `safe_name` names it in messages. */
int store_pg_open(struct store_backend **out, const struct store_ops **ops, const char *conninfo,
		  const char *safe_name, int readonly);

#endif
