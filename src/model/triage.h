#ifndef PROV_TRIAGE_H
#define PROV_TRIAGE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The crash store's triage as data: crashes grouped by signature, largest
 * group first. cache/store.c fills it (prov_store_triage, freed with
 * prov_triage_release); src/report/report-triage.c renders it.
 */
struct prov_triage_frame {
	char *function, *file, *module;
	int64_t line;	/* 0: unknown */
};
struct prov_triage_version {
	char *component, *version;
	int64_t count;	/* crashes of the group with it */
	int64_t total;	/* crashes of the selection with it */
	int64_t approximate;	/* crashes of the group with it whose commit was approximate */
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

#endif
