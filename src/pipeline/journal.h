#ifndef PROV_JOURNAL_H
#define PROV_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "collect.h"

/* systemd-coredump's MESSAGE_ID: the entries `import --journal` reads. */
#define PROV_JOURNAL_COREDUMP_ID "fc2e22bc6ee647b6b90729ab34a250b1"
/* A field value's bytes at most (a longer COREDUMP_CMDLINE or _CGROUP is cut, others are bad). */
#define PROV_JOURNAL_MAX_VALUE 4096

/* One systemd-coredump entry, its fields checked (untrusted: any journal file). */
struct prov_journal_entry {
	struct prov_collect_facts facts;	/* COREDUMP_EXE, _CMDLINE, _CGROUP, job vars of _ENVIRON */
	char *host;	/* COREDUMP_HOSTNAME, else _HOSTNAME */
	char *filename;	/* COREDUMP_FILENAME: the stored core */
	char *comm, *root, *unit, *uid, *boot_id, *machine_id;
	int64_t pid, signal;	/* -1: none */
	uint64_t usec;	/* COREDUMP_TIMESTAMP, else the entry's; 0: none */
	int has_core;	/* a COREDUMP field (the core stored in the journal) */
	int coredump;	/* MESSAGE_ID is systemd-coredump's */
	char *bad;	/* why the entry cannot be taken (the first problem), or NULL */
};

void prov_journal_entry_init(struct prov_journal_entry *e);
void prov_journal_entry_release(struct prov_journal_entry *e);

/*
 * One field of an entry as sd-journal gives it, "NAME=value" (len bytes, not
 * NUL-terminated, any bytes). The first of a repeated field counts. A value
 * that is not what the field must be (a PID that is no number, a path with a
 * NUL, over PROV_JOURNAL_MAX_VALUE) sets e->bad; nothing else is kept of it.
 */
void prov_journal_entry_add(struct prov_journal_entry *e, const char *data, size_t len);

/* 0 when the entry is a crash to store; PROV_EINPUT (the message says why) otherwise. */
int prov_journal_entry_check(const struct prov_journal_entry *e);

/* What `import --journal` did. */
struct prov_journal_counts {
	size_t stored, dup, bad, skipped;	/* skipped: before --since */
};

struct prov_journal_opts {
	const char *directory;	/* a journal directory (--directory), or NULL: this machine's */
	const char *since;	/* ISO 8601 UTC (prov_store_parse_time's), or NULL */
	const char *data_dir;	/* where the cursors are kept: DATA_DIR/journal/ */
	struct prov_collect_opts collect;	/* store, limits, ctx; spool_dir: temporaries */
	void (*say)(void *arg, const char *line);	/* each line (one per entry) */
	void *arg;
};

/*
 * Import systemd-coredump's crashes from the journal (docs/collect.md,
 * "systemd-coredump"): each entry after this journal's cursor (kept per
 * journal and store under data_dir/journal/), analyzed like collect's and
 * stored once; the cursor moves past each entry once it is stored (or found
 * bad). A bad entry is one line and the next is read. 0, or the first error
 * that stops the run (the store, the journal): the cursor stays before it.
 */
int prov_journal_import(const struct prov_journal_opts *o, struct prov_journal_counts *c);

#endif
