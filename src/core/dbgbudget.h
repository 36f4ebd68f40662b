#ifndef PROV_DBGBUDGET_H
#define PROV_DBGBUDGET_H

#include <elfutils/debuginfod.h>

#include <stdint.h>

#include "config.h"

/*
 * One time budget for every debuginfod query of a run: libdebuginfod bounds
 * each query (DEBUGINFOD_TIMEOUT, DEBUGINFOD_MAXTIME), but a silent server
 * asked for each of N modules would still cost N times that. The budget
 * (debuginfod.totalTimeout seconds, default 60; 0 = none) starts with the
 * first query; when it is spent the query in flight is aborted (through
 * the client's progress callback), DEBUGINFOD_URLS is unset so that no
 * later query starts, and one warning says so.
 */
void prov_dbgbudget_init(const struct prov_config *cfg);
/* debuginfod.maxSize: one download (a debug file, an executable, a source)
 * larger than this is abandoned (an endless body stops there) */
#define PROV_DBGBUDGET_DEFAULT_MAX_SIZE ((uint64_t)4 << 30)

/* Put a client (ours or libdwfl's) under the budget. NULL-safe. */
void prov_dbgbudget_attach(debuginfod_client *client);

/* Downloads from now on are abandoned past BYTES (when less than
 * debuginfod.maxSize): a source file is read only up to its own cap, so
 * more is never fetched. 0 lifts it. Returns the cap it replaces. */
uint64_t prov_dbgbudget_cap(uint64_t bytes);
/* 1 when the budget ran out during this run. */
int prov_dbgbudget_spent(void);

#endif
