#ifndef PROV_HANG_H
#define PROV_HANG_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/*
 * Hang analysis of a snapshot (docs/analyzer.md "Hangs"): fills c->hang from
 * the threads' frames and frame-0 registers. `mem` reads the process's memory
 * (a core's segments, /proc/PID/mem): 0 on success; NULL reads nothing (no
 * mutex owners, no joined threads).
 */
typedef int (*prov_hang_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

void prov_hang_analyze(struct prov_crash *c, prov_hang_read_fn mem, void *arg);

/* A group's or a wait's thread id, -1 when the thread has none. */
int64_t prov_hang_tid(const struct prov_crash *c, size_t thread);

#endif
