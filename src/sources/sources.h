#ifndef PROV_SOURCES_H
#define PROV_SOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "context.h"
#include "model.h"

/*
 * Upstream sources with libgit2 (docs/sources.md): one bare mirror per
 * upstream URL in <cache_dir>/mirrors/, commits, blobs and ancestry. Only
 * the sources layer includes git2.h (its own files through sources-git.h,
 * and src/components/mapping.c through that header too).
 */
struct prov_repo;

struct prov_sources_opts {
	/* config (insteadOf, fetch.*), cache_dir (mirrors go in
	 * <cache_dir>/mirrors), offline (never fetch; a missing mirror is
	 * PROV_ENOTFOUND) */
	const struct prov_ctx *ctx;
};

/*
 * libgit2 is initialised on first use, not at start-up: git_libgit2_init
 * loads the TLS trust store, which costs more than a whole text resolve.
 * Every entry of this module (and of the other libgit2 users: mapping.c,
 * srcimport.c) that starts from no repository calls prov_git_init_once();
 * calls with a prov_repo are covered by the open that made it. The first
 * call also turns off strict hash verification (mirrors are written by
 * libgit2 itself; hashing every object read again costs a tenth of an
 * ancestry walk). prov_git_shutdown() undoes it at exit; both are no-ops
 * when nothing (or already everything) was done. Not thread-safe: the
 * program is single-threaded.
 */
void prov_git_init_once(void);
void prov_git_shutdown(void);

/* Hard caps. */
#define PROV_SOURCES_MAX_BLOB ((size_t)16 << 20)
/* fetch.maxPackSize: bytes one fetch may receive (an endless pack stops there) */
#define PROV_SOURCES_DEFAULT_MAX_PACK ((uint64_t)16 << 30)
#define PROV_SOURCES_MAX_LINE 4096	/* longer lines are cut */
#define PROV_SOURCES_MAX_CONTEXT 1000
#define PROV_SOURCES_LOCK_WAIT_MS (15 * 60 * 1000)	/* wait for another run's fetch */

/*
 * The mirror directory for a URL (as named, before insteadOf):
 * <cache_dir>/mirrors/<host-and-path with [^A-Za-z0-9._-] as '-'>-<12 hex
 * of the URL's hash>.git. Caller frees.
 */
char *prov_sources_mirror_path(const char *cache_dir, const char *url);

/*
 * Open the repository for `url`:
 * - a plain local path (no scheme) is opened in place (bare or not; no
 *   mirror, nothing written);
 * - anything else (https, http, ssh, git, file URL after
 *   url.<base>.insteadOf from opts->config) goes through the mirror in the
 *   cache. Unless offline, the mirror is fetched when it does not exist yet
 *   or when some of `wants` (tags, branch names, hex commits; may be NULL
 *   with nwants 0) does not resolve in it as a tag or a commit. The fetch
 *   takes every tag, every branch named in `wants`, and every branch when
 *   all_heads is set or a want is hex. A new mirror is built in a temporary
 *   directory and renamed into place only when the fetch succeeded; an
 *   flock(2) on <mirror>.lock serialises runs on one mirror. Progress goes
 *   to stderr only when stderr is a terminal.
 * Errors: PROV_EINPUT for a URL of another scheme or a file/local path that
 * is not a git repository; PROV_ENOTFOUND when offline and no mirror exists;
 * PROV_ERROR when the fetch failed (message has libgit2's reason).
 */
int prov_sources_open(struct prov_repo **out, const char *url, const char *const *wants,
		      size_t nwants, int all_heads, const struct prov_sources_opts *opts);

void prov_repo_free(struct prov_repo *r);	/* NULL-safe */

/* 1 when the cache holds a mirror of `url` (a URL, not a local path); nothing is fetched. */
int prov_sources_have_mirror(const char *url, const struct prov_sources_opts *opts);

/*
 * A remote's answer for a ref (prov_sources_ls_remote), in the order
 * prov_repo_resolve looks: refs/tags/W, refs/heads/W, then HEAD.
 */
enum prov_ref_kind {
	PROV_REF_UNASKED = 0,	/* not looked for: an earlier want was found in the cache */
	PROV_REF_UNKNOWN,	/* not answerable from refs (a hex id, v1~2): the mirror's to resolve */
	PROV_REF_NONE,	/* the remote has no such tag or branch */
	PROV_REF_TAG,	/* refs/tags/W: commit is what it tags (refs/tags/W^{} when annotated) */
	PROV_REF_BRANCH,	/* refs/heads/W: its tip now */
	PROV_REF_HEAD,	/* W is HEAD: the remote's HEAD */
};

struct prov_remote_ref {
	enum prov_ref_kind kind;
	char commit[41];	/* TAG, BRANCH, HEAD: 40 hex */
	int cached;	/* from the cache, not asked */
};

/* How long a cached answer stands: a tag's (they do not move; the mirror
 * never refetches one either), a branch's, HEAD's or a missing ref's. */
#define PROV_SOURCES_REFS_TAG_TTL ((uint64_t)30 * 86400)
#define PROV_SOURCES_REFS_MOVING_TTL ((uint64_t)300)

/*
 * The commits `wants` (tag or branch names) name on the remote, without a
 * mirror: one ref advertisement (libgit2's connect and ls, no pack), in a
 * bounded child as a fetch is (fetch.connectTimeout, fetch.stallTimeout,
 * fetch.timeout, fetch.maxRefsSize; hosts remembered as down), so it costs
 * one round trip and the advertisement's bytes. The answers are kept in
 * <mirror>.refs beside the mirror's place in the cache: a tag's for
 * PROV_SOURCES_REFS_TAG_TTL, a branch's, HEAD's or a missing ref's for
 * PROV_SOURCES_REFS_MOVING_TTL; when the wants up to the first one found
 * are all answered there, nothing is asked. refs[] has nwants entries.
 * Offline (and not a file:// URL after insteadOf): the cache's answers of
 * any age, else PROV_ENOTFOUND. PROV_EINPUT for a local path or a URL of
 * another scheme; the errors of a failed or bounded fetch otherwise.
 */
int prov_sources_ls_remote(struct prov_remote_ref *refs, const char *url, const char *const *wants,
			   size_t nwants, const struct prov_sources_opts *opts);

/* 1 when the mirror needed a refresh for some of `wants` but the fetch failed. */
int prov_repo_stale(const struct prov_repo *r);

/*
 * Resolve a revision to a full hex commit: tried as refs/tags/REV,
 * refs/heads/REV, then git_revparse_single(REV) (abbreviated SHAs, ~, ^),
 * peeled to a commit. PROV_ENOTFOUND (message names rev and repository)
 * when unknown or not a commit. *out is caller-freed.
 */
int prov_repo_resolve(char **out, struct prov_repo *r, const char *rev);

/* 1 when `ref` exists as refs/heads/<ref> (a moving branch), else 0. */
int prov_repo_is_branch(struct prov_repo *r, const char *ref);

/* 1 when `ref` exists as refs/tags/<ref> (what prov_repo_resolve tries first), else 0. */
int prov_repo_is_tag(struct prov_repo *r, const char *ref);

/*
 * *out = 1 when ancestor_hex is descendant_hex or one of its ancestors,
 * else 0. Both are full hex commits (from prov_repo_resolve).
 */
int prov_repo_is_ancestor(int *out, struct prov_repo *r, const char *ancestor_hex,
			  const char *descendant_hex);

/*
 * The first release tag (earliest by the commit time of the tagged commit,
 * ties by name) whose commit is commit_hex or a descendant of it:
 * pre-release tags (prov_tag_is_prerelease) are left out unless
 * prov_repo_include_prereleases(r, 1). *out NULL (return 0) when no tag
 * contains it. Tags are listed and peeled once per prov_repo.
 */
int prov_repo_first_tag(char **out, struct prov_repo *r, const char *commit_hex);
void prov_repo_include_prereleases(struct prov_repo *r, int yes);

/*
 * Lines [line - context, line + context] (clamped) of the blob at
 * commit_hex:path, read from the object database. *out is an array of
 * *nout lines (free with prov_source_lines_free). PROV_ENOTFOUND when the
 * path does not exist at that commit or the line is past the end;
 * PROV_ELIMIT when the blob is larger than PROV_SOURCES_MAX_BLOB or binary.
 */
int prov_repo_read_lines(struct prov_source_line **out, size_t *nout, struct prov_repo *r,
			 const char *commit_hex, const char *path, int line, int context);

void prov_source_lines_free(struct prov_source_line *lines, size_t n);

/*
 * Lines [line - context, line + context] (clamped) of a file's text (a blob
 * or a file downloaded whole), as prov_repo_read_lines cuts them; path and
 * commit_hex only name it in messages. PROV_ELIMIT for a binary text or one
 * larger than PROV_SOURCES_MAX_BLOB, PROV_ENOTFOUND when it has no such line.
 */
int prov_source_cut_lines(struct prov_source_line **out, size_t *nout, const char *data,
			  size_t size, const char *path, const char *commit_hex, int line, int context);

/* ---- backports (src/fix/backport.c): the git side ---- */

/*
 * The diff of commit_hex against its first parent (an empty tree for a
 * root commit) as unified text with 3 lines of context, git's format, into
 * `text` (capped at PROV_SOURCES_MAX_DIFF: PROV_ELIMIT), and its patch-id as
 * `git patch-id --stable` computes it (40 hex, NUL-terminated) into
 * patchid. A merge commit gets an empty text and an all-zero id.
 */
#define PROV_SOURCES_MAX_DIFF ((size_t)32 << 20)
int prov_repo_commit_diff(struct prov_buf *text, char patchid[41], struct prov_repo *r,
			  const char *commit_hex);

/* One commit of a range walk. */
struct prov_range_commit {
	char hex[41];
	char *picked_from;	/* hex ids of "(cherry picked from commit X)" lines, space-separated; or NULL */
	int merge;	/* more than one parent */
};

/*
 * The commits reachable from tip_hex but not from hide_hex (NULL: none
 * hidden), newest first in topological order, at most `max` (PROV_ELIMIT
 * beyond). *out is freed with prov_range_free.
 */
int prov_repo_range(struct prov_range_commit **out, size_t *nout, struct prov_repo *r,
		    const char *tip_hex, const char *hide_hex, size_t max);
void prov_range_free(struct prov_range_commit *c, size_t n);

/* The merge base of two commits (*out NULL, return 0, when they have none). */
int prov_repo_merge_base(char **out, struct prov_repo *r, const char *a_hex, const char *b_hex);

/* Every branch (refs/heads/ name, sorted) and its tip commit (40 hex); caller frees each and both arrays. */
int prov_repo_branch_tips(char ***names, char ***tips, size_t *nout, struct prov_repo *r);

/*
 * The blob at commit_hex:path into out (at most max bytes: PROV_ELIMIT);
 * PROV_ENOTFOUND when there is no such file.
 */
int prov_repo_read_blob(struct prov_buf *out, struct prov_repo *r, const char *commit_hex,
			const char *path, size_t max);

/*
 * Where `path` of commit from_hex is in commit to_hex: *out = path itself
 * when to_hex has it; else the path libgit2's rename detection
 * (git_diff_find_similar, at most PROV_SOURCES_RENAME_LIMIT candidates)
 * pairs it with in the diff from_hex -> to_hex; else NULL (return 0).
 */
#define PROV_SOURCES_RENAME_LIMIT 1000
int prov_repo_renamed_path(char **out, struct prov_repo *r, const char *from_hex, const char *to_hex,
			   const char *path);

/* The paths in commit_hex's tree whose last component is `base`, at most max (caller frees each and *out). */
int prov_repo_find_basename(char ***out, size_t *nout, struct prov_repo *r, const char *commit_hex,
			    const char *base, size_t max);
/* The same for the paths whose last component ends with `suffix` (".c"), and is longer. */
int prov_repo_find_suffix(char ***out, size_t *nout, struct prov_repo *r, const char *commit_hex,
			  const char *suffix, size_t max);

/*
 * The files (blobs) directly in directory `dir` ("" or NULL: the top) of
 * commit_hex's tree, at most max, as paths from the top (caller frees each
 * and *out); none when there is no such directory.
 */
int prov_repo_list_dir(char ***out, size_t *nout, struct prov_repo *r, const char *commit_hex, const char *dir,
		       size_t max);

/*
 * The commit that last changed each of lines [start, start + n) (from 1) of
 * `path` at commit_hex, as hex into out[0..n) (git blame, libgit2); "" for
 * a line beyond the file or older than oldest_hex (NULL: the root; a
 * boundary commit is never named).
 */
int prov_repo_blame_lines(char (*out)[41], struct prov_repo *r, const char *commit_hex, const char *path,
			  size_t start, size_t n, const char *oldest_hex);

/*
 * The same blame kept for many questions: lines [start, start + n) blamed
 * once (prov_repo_blame_open), then any lines of that range answered by
 * prov_blame_get as prov_repo_blame_lines would (one blame per hunk of a
 * fix re-read the whole file per hunk: quadratic). Free with prov_blame_free.
 */
struct prov_blame;
int prov_repo_blame_open(struct prov_blame **out, struct prov_repo *r, const char *commit_hex, const char *path,
			 size_t start, size_t n, const char *oldest_hex);
/* 0 and out[0..n) when [start, start + n) is inside the blamed range; -1 otherwise (out untouched). */
int prov_blame_get(const struct prov_blame *b, char (*out)[41], size_t start, size_t n);
void prov_blame_free(struct prov_blame *b);

/* 1 when url is acceptable as a repository URL by scheme (https, http,
 * ssh, git, file) or is a local path; 0 otherwise. Does not touch disk. */
int prov_url_scheme_ok(const char *url);

#endif
