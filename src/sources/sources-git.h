#ifndef PROV_SOURCES_GIT_H
#define PROV_SOURCES_GIT_H

#include <stddef.h>
#include <stdint.h>

#include <git2.h>

#include "buf.h"
#include "context.h"

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

/*
 * A network job that cannot hang (bounded.c): `work` runs in a child
 * process whose libgit2 connections read through the bounded stream
 * (gitstream.h: fetch.maxRefsSize, fetch.maxPackSize, fetch.timeout); the
 * parent kills it when nothing arrived within fetch.connectTimeout, when
 * nothing more arrived for fetch.stallTimeout, or after fetch.timeout.
 * Hosts that got no answer are skipped for the rest of the run and
 * remembered as down (hostdown.h), as for every fetch. `work` gets the
 * pipe to the parent (anything written there counts as an answer; its
 * result goes through prov_bounded_answer) and fetch.maxPackSize; it
 * returns 0 or an error with its message set (sent to the parent).
 */
struct prov_bounded_job {
	const char *verb;	/* "fetch", "ls-remote": messages, hosts remembered as down */
	const char *banner;	/* the line on stderr when it starts */
	const char *fetch_url;	/* after url.<base>.insteadOf: its host is the one asked */
	const char *display_url;	/* as named: in messages */
	const char *repo_path;	/* a repository whose litter a killed job leaves, or NULL */
	int (*work)(int fd, uint64_t max_pack, void *arg);
	void *arg;
	struct prov_buf *answer;	/* what the child sent with prov_bounded_answer, or NULL */
};

/* 0 when the child's work succeeded; its error, or why it was killed, otherwise. */
int prov_bounded_run(const struct prov_bounded_job *job, const struct prov_ctx *ctx);

/* In the child: send `data` to the parent's job->answer (once, at the end). */
void prov_bounded_answer(int fd, const char *data, size_t len);

#endif
