#ifndef PROV_SOURCES_GIT_H
#define PROV_SOURCES_GIT_H

#include <git2.h>

#include "sources.h"

/*
 * The libgit2 handle of a prov_repo, for the other files of the sources
 * layer (src/sources/suspects.c) only: nothing outside that layer includes git2.h.
 * Owned by the prov_repo.
 */
git_repository *prov_repo_git(struct prov_repo *r);

#endif
