#ifndef PROV_SQLITE_GUARD_H
#define PROV_SQLITE_GUARD_H

#include <stdint.h>

#include <sqlite3.h>

/*
 * A deadline that holds inside one SQLite VM step (cache/ only). The
 * progress handler runs between VM steps, but one call of SQLite's own
 * like(), glob(), instr(), replace() or trim(X,Y) on long strings is a
 * single step that costs O(length * pattern): 'a' x 10M LIKE
 * '%' || 'a' x 2000 || 'b' ran 28 s past a 1 s --timeout. These
 * replacements give the same results; like() and glob() match with one
 * backtrack point (O(n*m) at worst, never exponential), instr() and
 * replace() search with memmem() (linear), trim(X,Y) is SQLite's loop; all
 * look at the clock every few thousand steps and fail the statement once
 * the deadline passed (timed_out is then set).
 */
struct prov_sql_guard {
	uint64_t start_ms;
	uint64_t timeout_ms;	/* 0: no deadline */
	int timed_out;
};

/* Register the functions on `db` for `g` (which must outlive the statements run with it). 0 or -1. */
int prov_sql_guard_install(sqlite3 *db, struct prov_sql_guard *g);
/* The same functions without a deadline (g no longer referenced). */
void prov_sql_guard_remove(sqlite3 *db);
/* Whether the deadline has passed (sets timed_out). */
int prov_sql_guard_expired(struct prov_sql_guard *g);

#endif
