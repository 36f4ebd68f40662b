#ifndef PROV_STORE_H
#define PROV_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "triage.h"

/*
 * The crash store: one SQLite file (<data dir>/store.sqlite, or a path the
 * user names) or a PostgreSQL database (a postgresql:// or postgres:// URI,
 * or a libpq keyword string such as "host=db dbname=crashes"), holding resolved crashes as rows the user can query. The
 * tables are documented and stable (docs/store.md): crashes, frames,
 * modules, components, reports, and the per-signature summaries
 * signature_hosts and signature_versions. Like the cache, only cache/ talks to
 * SQL; no SQLite or libpq type leaves cache/ (store.c dispatches to
 * store-sqlite.c and store-pg.c).
 *
 * Reports are untrusted input (they travel between machines): every value is
 * bound as a parameter, never spliced into SQL. Writes are transactions (WAL,
 * busy timeout), so a killed writer leaves the last committed state. A file
 * that is not a store is an error, never renamed or rebuilt: it is user data.
 */
struct prov_store;

#define PROV_STORE_SCHEMA 7

/*
 * The default store (malloc'd): store.sqlite in the data directory,
 * $XDG_DATA_HOME/provenance (an absolute one), else ~/.local/share/provenance;
 * with neither HOME nor XDG_DATA_HOME set, in `cache_dir` as before. A
 * store found at the old place, store.sqlite in `cache_dir`, is moved there
 * (with its -wal/-shm) with one warning line; when it cannot be moved it is
 * used where it is, with one warning line.
 */
char *prov_store_default_path(const char *cache_dir);

/* Whether `where` names a PostgreSQL database rather than a SQLite file. */
int prov_store_is_pg(const char *where);

/*
 * Open the store at `path` (a file, or a PostgreSQL URI / keyword string),
 * creating it (and its directory, 0700; or the tables) unless `readonly`.
 * A read-only open never writes. An older store is upgraded by a writer
 * (read as it is by a reader when its tables mean the same); a newer one is
 * refused. 0 and *out; PROV_EINPUT when it is not a store or cannot be
 * reached (message names it, never with a password); PROV_ENOTFOUND
 * (read-only) when there is no store yet.
 */
int prov_store_open(struct prov_store **out, const char *path, int readonly);
void prov_store_free(struct prov_store *s);	/* NULL-safe */
/* How to name the store in messages: the path, or the connection without its password. */
const char *prov_store_name(const struct prov_store *s);
/*
 * A printable description of `where` with any password removed (malloc'd):
 * for PostgreSQL the host, port, database and user only.
 */
char *prov_store_safe_name(const char *where);
/*
 * Overwrite, in place, a password written into a PostgreSQL URI or keyword
 * string (with 'x's), so that the process's command line (ps, /proc) does
 * not show it once the command has taken its copy. Other values untouched.
 */
void prov_store_hide_password(char *arg);

/* Group several adds in one transaction (faster imports). 0 or an error. */
int prov_store_begin(struct prov_store *s);
int prov_store_commit(struct prov_store *s);
void prov_store_rollback(struct prov_store *s);

/* What the report does not say, or the user overrides (NULL: from the report). */
struct prov_store_meta {
	const char *host;	/* used when the report names no host; NULL: "unknown" */
	const char *time;	/* ISO 8601 UTC, used when the report has none */
	const char *signature;	/* the caller's; NULL: computed from the report */
};

/*
 * Add one JSON report (as `resolve --format json` writes it). 0 and the new
 * crash id in *out_id; 1 and the existing id when the same report (content
 * hash over the report, host and time) is already stored; PROV_EINPUT when
 * it is not a provenance report (message says why). Outside a
 * prov_store_begin() the add is its own transaction.
 */
int prov_store_add(int64_t *out_id, struct prov_store *s, const char *json, size_t len,
		   const struct prov_store_meta *meta);

/*
 * 1 when a write found that another provenance changed the store's schema
 * since it was opened (each writing transaction checks it): that add's
 * PROV_EINPUT is about the store, not the report, and every later write is
 * refused the same way. 0 otherwise.
 */
int prov_store_stale(const struct prov_store *s);

/*
 * The signature resolve computes (prov_crash_signature, docs/signature.md),
 * from a report's text: the signal number and the first three function names
 * of the crashing thread from its crash site that the rules do not skip,
 * joined by '|'. malloc'd, or NULL when `json` is not a report.
 */
char *prov_store_signature_of(const char *json, size_t len);

/*
 * The report stored for crash `id` (the `reports` table: the bytes that
 * import or resolve --store gave), malloc'd and NUL-terminated into *out,
 * its length in *out_len. PROV_EINPUT when there is no such crash.
 */
int prov_store_report_get(char **out, size_t *out_len, struct prov_store *s, int64_t id);

/*
 * Retention: delete the crashes older than `before` (ISO 8601 UTC, as
 * prov_store_parse_time writes it) except the `keep` newest of each
 * signature (0: none kept), with their frames, modules, components and
 * reports; the per-signature summaries follow (schema 4's delete triggers,
 * which an admin's plain DELETE fires as well). One transaction. Crashes
 * with no time are kept. The count in *out_n; with dry_run nothing is
 * deleted, *out_n says how many would be.
 */
int prov_store_prune(int64_t *out_n, struct prov_store *s, const char *before, int64_t keep,
		     int dry_run);

/*
 * One line about a stored crash's signature in the rest of the store, e.g.
 * "seen 14 times on 9 hosts since 2026-10-02; last with the same component
 * versions: 2026-11-20 on node17". NULL in *out when no other crash has it.
 */
int prov_store_history(char **out, struct prov_store *s, int64_t crash_id);

/*
 * provenance mark: record that `signature` is fixed in `fixed_in` (a
 * version of `component`, or a commit; component NULL: the crashing
 * thread's innermost frame's), with an optional bug URL and note. The
 * latest mark of a signature replaces the one before. Triage then shows
 * each marked group's status (struct prov_triage_fix).
 */
int prov_store_mark(struct prov_store *s, const char *signature, const char *fixed_in,
		    const char *component, const char *bug, const char *note);

/* Triage: crashes grouped by signature (struct prov_triage: triage.h, model layer). */
struct prov_triage_opts {
	const char *since;	/* ISO 8601 (or a prefix: a date); NULL: all */
	const char *component;	/* only crashes with a frame or component of this name */
	const char *until;	/* as since: only crashes before it; NULL: all */
	const char *host;	/* only crashes of this host; NULL: all */
	const char *signature;	/* only crashes of this signature; NULL: all */
	const char *component_version;	/* with component: only crashes that ran this version of it */
	const char *by;	/* "day", "week", "version", "host" or "image": buckets per group; NULL: none */
	/*
	 * only crashes that ran in this image (schema 7): its manifest digest
	 * ("sha256:HEX", or the HEX alone) or the ref it was named by; NULL: all
	 */
	const char *image;
	size_t max_frames;	/* per group; 0: 5 */
};
int prov_store_triage(struct prov_triage *out, struct prov_store *s,
		      const struct prov_triage_opts *opts);
/*
 * prov_store_triage (the groups, o->by's buckets and the fix lifecycle: the
 * same result) with each of its store queries bounded in run time
 * (timeout_ms; 0: 10 s), as `query` is: SQLite's progress handler and
 * guarded functions, PostgreSQL's statement_timeout. PROV_ELIMIT with one
 * line when one ran past the limit (the web view answers 503).
 */
int prov_store_triage_bounded(struct prov_triage *out, struct prov_store *s,
			      const struct prov_triage_opts *opts, uint64_t timeout_ms);
void prov_triage_release(struct prov_triage *t);

/*
 * Read-only SQL. The statement must be exactly one, read-only (checked
 * with sqlite3_stmt_readonly and an authorizer that denies writes, ATTACH,
 * DETACH and pragmas other than table_info-style ones), on a store opened
 * read-only. `row` is called with the column names once (names != NULL,
 * values NULL) and then for every row (values: text, NULL for SQL NULL;
 * types[i]: 'i' integer, 'r' real, 't' text, 'b' blob as hex, 'n' null).
 * PROV_EINPUT with a one-line message for a refused statement, a syntax
 * error, more than max_rows rows or more than timeout_ms of run time
 * (nothing is returned then; the caller discards what `row` got).
 */
struct prov_query_opts {
	uint64_t max_rows;
	uint64_t timeout_ms;
};
typedef int (*prov_store_row_fn)(size_t ncols, const char *const *names,
				 const char *const *values, const char *types, void *data);
/*
 * On PostgreSQL: a READ ONLY transaction with statement_timeout, the
 * statement prepared alone (one statement only), SELECT/WITH/VALUES/TABLE
 * only, rows fetched one at a time up to max_rows.
 */
int prov_store_query(struct prov_store *s, const char *sql, const struct prov_query_opts *opts,
		     prov_store_row_fn row, void *data);

/*
 * Rows of triage's selection for the web view (serve), bounded: at most
 * max_rows rows and timeout_ms of run time (0: 10 s). PROV_STORE_DAYS:
 * (signature, day "YYYY-MM-DD", crashes) in (signature, day) order, of one
 * signature when `signature` is not NULL. PROV_STORE_CRASHES: (id, time,
 * host) of the crashes of `signature`, newest first; the others: below.
 * `row` gets the kind's values (names NULL; a value may be NULL). 0 when all rows were given, 1 when
 * there were more than max_rows (the first max_rows were given), or an error.
 */
enum prov_store_rows { PROV_STORE_DAYS, PROV_STORE_CRASHES,
	/* triage --by and the lifecycle (store.c), each a row of text values: */
	PROV_STORE_HOSTS,	/* (signature, host, crashes) in that order */
	PROV_STORE_VERSIONS,	/* (signature, "NAME VERSION" or "?", crashes): NAME the selection's
				   component, else the crashing thread's innermost frame's */
	PROV_STORE_MARKS,	/* (signature, fixed_in, component, bug, note, marked), of `signature` or all */
	PROV_STORE_FIX_BUILDS,	/* (signature, version, commit, crashes) of marked signatures' crashes
				   in the mark's component; `signature`: a crash id, only that crash */
	PROV_STORE_IMAGES,	/* (signature, image digest or NULL: none, crashes, a ref it was named by
				   or NULL), NULL digest last; schema 7 */
	PROV_STORE_IMAGE_MATCH,	/* (image digest, "1"/"0": a crash named it by the ref `signature`,
				   "1"/"0": it starts with `signature` or with "sha256:" and it) of
				   each digest either holds for, in digest order, all crashes; schema 7 */
};
int prov_store_rows(struct prov_store *s, enum prov_store_rows what, const struct prov_triage_opts *o,
		    const char *signature, uint64_t max_rows, uint64_t timeout_ms,
		    prov_store_row_fn row, void *data);

/* The fewest hex digits a digest prefix has (triage --image, serve's image=). */
#define PROV_IMAGE_PREFIX_MIN 12
/*
 * triage --image's argument (and serve's image=) to what the selection
 * matches (prov_triage_opts.image), as git and docker read a short digest:
 * "sha256:HEX" with 12 to 64 hex digits, or the bare HEX, that starts
 * exactly one stored image's manifest digest gives that digest (*out, owned);
 * a ref (a tag) is matched as it is (*out NULL: use arg). PROV_EINPUT with
 * one line for a digest that is not hex or shorter than 12 digits, a bare
 * hex string shorter than that which no crash was named by, a ref with
 * characters an OCI ref.name has not, and a prefix of several digests (their
 * short forms named). A prefix of no stored digest matches no crash.
 */
int prov_store_image_resolve(char **out, struct prov_store *s, const char *arg, uint64_t timeout_ms);

/*
 * Parse a crash time: "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS][Z]" (a space for
 * the T), "@SECONDS" (Unix time), or an age before now: N followed by s, m,
 * h, d or w ("7d"). Writes "YYYY-MM-DDTHH:MM:SSZ" (UTC)
 * into out (21 bytes). 0 or PROV_EINPUT.
 */
int prov_store_parse_time(char out[21], const char *text);
/* Format Unix seconds as above. */
void prov_store_format_time(char out[21], int64_t secs);

#endif
