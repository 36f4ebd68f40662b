#ifndef PROV_STORE_H
#define PROV_STORE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The crash store: one SQLite file (<cache dir>/store.sqlite, or a path the
 * user names) holding resolved crashes as rows the user can query. The
 * tables are documented and stable (docs/store.md): crashes, frames,
 * modules, components, reports. Like the cache, only cache/ talks to SQLite;
 * no SQLite type leaves store.c.
 *
 * Reports are untrusted input (they travel between machines): every value is
 * bound as a parameter, never spliced into SQL. Writes are transactions (WAL,
 * busy timeout), so a killed writer leaves the last committed state. A file
 * that is not a store is an error, never renamed or rebuilt: it is user data.
 */
struct prov_store;

#define PROV_STORE_SCHEMA 1

/* The default store path inside a cache directory (malloc'd). */
char *prov_store_default_path(const char *cache_dir);

/*
 * Open the store at `path`, creating it (and its directory, 0700) unless
 * `readonly`. A read-only open never writes (SQLITE_OPEN_READONLY).
 * 0 and *out; PROV_EINPUT when the file is not a store (message names it);
 * PROV_ENOTFOUND (read-only) when there is no store yet.
 */
int prov_store_open(struct prov_store **out, const char *path, int readonly);
void prov_store_free(struct prov_store *s);	/* NULL-safe */

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
 * The signature resolve computes (prov_crash_signature, docs/signature.md),
 * from a report's text: the signal number and the first three function names
 * of the crashing thread from its crash site that the rules do not skip,
 * joined by '|'. malloc'd, or NULL when `json` is not a report.
 */
char *prov_store_signature_of(const char *json, size_t len);

/*
 * One line about a stored crash's signature in the rest of the store, e.g.
 * "seen 14 times on 9 hosts since 2026-10-02; last with the same component
 * versions: 2026-11-20 on node17". NULL in *out when no other crash has it.
 */
int prov_store_history(char **out, struct prov_store *s, int64_t crash_id);

/* Triage: crashes grouped by signature. */
struct prov_triage_frame {
	char *function, *file, *module;
	int64_t line;	/* 0: unknown */
};
struct prov_triage_version {
	char *component, *version;
	int64_t count;	/* crashes of the group with it */
	int64_t total;	/* crashes of the selection with it */
};
struct prov_triage_group {
	char *signature;
	int64_t count, hosts;
	char *first_seen, *last_seen;	/* ISO 8601 or NULL */
	char *signal_name, *context;
	struct prov_triage_frame *frames;	/* the latest crash's crashing thread, innermost first */
	size_t nframes;
	struct prov_triage_version *versions;
	size_t nversions;
	int64_t example_id;	/* the latest crash of the group */
};
struct prov_triage {
	int64_t total;	/* crashes in the selection */
	int64_t hosts;
	struct prov_triage_group *groups;	/* largest first */
	size_t ngroups;
};
struct prov_triage_opts {
	const char *since;	/* ISO 8601 (or a prefix: a date); NULL: all */
	const char *component;	/* only crashes with a frame or component of this name */
	size_t max_frames;	/* per group; 0: 5 */
};
int prov_store_triage(struct prov_triage *out, struct prov_store *s,
		      const struct prov_triage_opts *opts);
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
int prov_store_query(struct prov_store *s, const char *sql, const struct prov_query_opts *opts,
		     int (*row)(size_t ncols, const char *const *names, const char *const *values,
				const char *types, void *data),
		     void *data);

/*
 * Parse a crash time: "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS][Z]" (a space for
 * the T), or "@SECONDS" (Unix time). Writes "YYYY-MM-DDTHH:MM:SSZ" (UTC)
 * into out (21 bytes). 0 or PROV_EINPUT.
 */
int prov_store_parse_time(char out[21], const char *text);
/* Format Unix seconds as above. */
void prov_store_format_time(char out[21], int64_t secs);

#endif
