#ifndef PROV_SOURCES_GIT_H
#define PROV_SOURCES_GIT_H

#include <git2.h>

/* not sources.h: sources.c includes this header, which must not lead back to it */
struct prov_repo;

/*
 * The libgit2 handle of a prov_repo, for the other files of the sources
 * layer (suspects.c, srclocate.c) only. Outside this layer only
 * src/components/mapping.c includes this header (it asks libgit2 whether a
 * local path is a repository); nothing else includes git2.h.
 * Owned by the prov_repo.
 */
git_repository *prov_repo_git(struct prov_repo *r);

/*
 * libgit2's error, wrapped once: store "<our message>: <libgit2's message>"
 * (git_error_last(), which may be NULL: "unknown libgit2 error") and return
 * `code`, as prov_error_set does. Call it right after the failing libgit2
 * call, before any other libgit2 call replaces its error:
 *	if (git_commit_lookup(&c, repo, &oid) < 0)
 *		return prov_error_from_git(PROV_ERROR, "cannot read commit %.12s", hex);
 * The one reader of git_error_last() in the project.
 */
int prov_error_from_git(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
