#ifndef PROV_SOURCES_INT_H
#define PROV_SOURCES_INT_H

#include <stdint.h>
#include <string.h>

#include <git2.h>

#include "error.h"

/*
 * Private to src/sources/ (libdwfl's libdwflP.h): the repository object
 * that sources.c opens and repo.c frees, and what its readers (ancestry.c,
 * commits.c, blobs.c) share. Nothing outside this folder includes it.
 */

struct tag_entry {
	char *name;
	git_oid commit;
	int64_t time;
};

struct prov_repo {
	git_repository *repo;
	char *path;
	char *url;
	struct tag_entry *tags;
	size_t ntags;
	int tags_loaded;
	int include_prereleases;	/* first tag: pre-release tags count too */
	int stale;	/* a refresh was needed but the fetch failed */
	char *fetch_error;	/* why */
};

/* A full 40-hex commit id; PROV_EINPUT (message set) otherwise. */
static inline int parse_oid(git_oid *out, const char *hex)
{
	if (!hex || strlen(hex) != GIT_OID_HEXSZ || git_oid_fromstr(out, hex) < 0)
		return prov_error_set(PROV_EINPUT, "'%s' is not a full commit id", hex ? hex : "");
	return 0;
}

#endif
