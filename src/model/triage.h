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
/* One bucket of triage --by: a day, an ISO week, a component version, a host or an image. */
struct prov_triage_bucket {
	/*
	 * YYYY-MM-DD, YYYY-Www (UTC), "NAME VERSION" ("?": none), a host, or an
	 * image's label: "REF@sha256:" and the digest's first 12 hex digits (no
	 * "REF@" when no crash named a ref), "(no image)" for crashes with none
	 */
	char *key;
	int64_t count;
	char *digest;	/* --by image: the image's manifest digest; NULL otherwise or for no image */
};
/*
 * A group's lifecycle (provenance mark): the fix recorded for its signature
 * and what the group's crashes say about it. Status: REGRESSION when a crash
 * came from a build that contains the fix (version order, or the fix's
 * commit itself); FIXED when every crash came from a build before it;
 * UNDETERMINED when some crash's build could not be placed (no version of
 * the component, or a commit the store cannot order).
 */
enum prov_mark_status { PROV_MARK_FIXED, PROV_MARK_REGRESSION, PROV_MARK_UNDETERMINED };
struct prov_triage_fix {
	char *fixed_in, *component, *bug, *note, *marked;	/* component, bug, note: NULL when not given */
	enum prov_mark_status status;
	int64_t in_fixed;	/* crashes from builds that contain the fix */
	int64_t before;		/* crashes from builds before it */
	int64_t unknown;	/* crashes whose build could not be placed */
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
	struct prov_triage_bucket *buckets;	/* triage --by, in key order; NULL without it */
	size_t nbuckets;
	struct prov_triage_fix *fix;	/* provenance mark's record; NULL when unmarked */
};
struct prov_triage {
	int64_t total;	/* crashes in the selection */
	int64_t hosts;
	struct prov_triage_group *groups;	/* largest first */
	size_t ngroups;
	const char *by;	/* "day", "week", "version", "host", "image" or NULL (static) */
};

#endif
