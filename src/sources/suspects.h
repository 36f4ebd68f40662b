#ifndef PROV_SUSPECTS_H
#define PROV_SUSPECTS_H

#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "config.h"
#include "context.h"
#include "model.h"
#include "sources.h"

/*
 * Suspects (docs/suspects.md): the upstream commits after the deployed one
 * that changed a crash line of the crashing thread, or the function around
 * it, found by following the line ranges forward through history as
 * `git log -L` follows them backward. Sources layer (libgit2).
 */

/* Hard caps. */
#define PROV_SUSPECTS_MAX_FRAMES 16	/* frames of the crashing thread looked at */
#define PROV_SUSPECTS_MAX_RANGES 64	/* line ranges followed in one file */
#define PROV_SUSPECTS_MAX_COMMITS 1000000	/* commits walked per file */
#define PROV_SUSPECTS_MAX_BRANCHES 64	/* branches tested for the deployed commit */
#define PROV_SUSPECTS_MAX_RENAMES 64	/* renames followed per file */
#define PROV_SUSPECTS_SHOWN 10	/* in the Markdown and text reports */

struct prov_suspects_opts {
	const struct prov_ctx *ctx;	/* config, cache_dir, offline */
	struct prov_cache *cache;	/* results per (commit, path, ranges); may be NULL */
	int no_clone;	/* use only the mirrors the cache holds (and local repositories): a
			 * missing mirror is not cloned for suspects (resolve without --fix
			 * and without suspects.clone = true); suspects_note says so */
};

/*
 * Fill c->suspects (ranked: commits changing a crash line first, then those
 * whose message says fix/crash/race/null/overflow/leak/UAF, then newest
 * first) and c->suspects_fixcheck for the frames of the crashing thread that
 * have a component with a known commit and repository, a repository path and
 * a line. Nothing to look at is not an error; a repository that cannot be
 * read sets c->suspects_note. Returns 0, or an error for real failures.
 */
int prov_suspects_find(struct prov_crash *c, const struct prov_suspects_opts *opts);

/* A line range, 1-based and inclusive, at the deployed commit. */
struct prov_line_range {
	int start, end;
};

/* A commit that touched some of the ranges followed. */
struct prov_touch {
	char commit[41];	/* full hex */
	uint64_t ranges;	/* bit i: range i was changed */
};

/*
 * The branch heads to look on: the default branch (refs/remotes/origin/HEAD
 * of a mirror, else HEAD) and every local branch that contains deployed_hex
 * (at most PROV_SUSPECTS_MAX_BRANCHES tested). *out is an array of *nout
 * full hex commits, sorted, without duplicates; free each and the array.
 */
int prov_suspects_heads(char ***out, size_t *nout, struct prov_repo *r, const char *deployed_hex);

/*
 * Follow `ranges` (at most PROV_SUSPECTS_MAX_RANGES; range i lies in
 * paths[range_file[i]], at most PROV_SUSPECTS_MAX_FRAMES files, all followed
 * in one walk) at deployed_hex forward through every commit reachable from
 * `heads` and not from deployed_hex, parents before children: a range moves with the lines
 * added or removed above it, grows or shrinks with changes inside it,
 * follows the file through renames (libgit2's similarity detection), and
 * ends when its lines are all deleted. A commit touches a range when it
 * changes, deletes or inserts lines inside it (as `git log -L`). *out lists
 * the touching commits, oldest first. PROV_ENOTFOUND when no path is a
 * file at deployed_hex; PROV_ELIMIT past PROV_SUSPECTS_MAX_COMMITS.
 */
int prov_suspects_follow(struct prov_touch **out, size_t *nout, struct prov_repo *r,
			 const char *deployed_hex, char *const *heads, size_t nheads,
			 const char *const *paths, size_t npaths,
			 const struct prov_line_range *ranges, const size_t *range_file, size_t nranges);

/*
 * The lines of the function named `function` (qualified or not, with or
 * without a parameter list) that holds line `line` of `text`: from the line
 * naming it to its closing brace. 0 and *out, or PROV_ENOTFOUND. C-like
 * sources only (braces); a guess, not a parser.
 */
int prov_suspects_function_range(struct prov_line_range *out, const char *text, size_t len,
				 const char *function, int line);

#endif
