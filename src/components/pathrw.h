#ifndef PROV_PATHRW_H
#define PROV_PATHRW_H

#include <stddef.h>

#include "config.h"

/*
 * Path rewriting (docs/mappings.md, "Path rewriting"): a source path as the
 * build recorded it becomes a path relative to the component's repository.
 */
struct prov_pathrw_ctx {
	const struct prov_config *config;	/* substitute-path.FROM=TO; may be NULL */
	char *const *path_prefixes;	/* the component's path-prefix globs */
	size_t npath_prefixes;
	const char *subdir;	/* the component's subdir in a monorepo, or NULL */
	int subdir_paths;	/* 1: rewritten paths are relative to subdir: prefix it */
	const char *repo_name;	/* last part of the repo URL without .git, or NULL */
};

/*
 * Rewrite `file` (joined to comp_dir first when it is relative and comp_dir
 * is given). Rules in order, first match wins: substitute-path (user),
 * path-prefix (component), site-packages and python-stdlib (installed .py
 * files: after site-/dist-packages/; <prefix>/lib/python3.N/x.py -> Lib/x.py),
 * rpm-longer-pathname, rpm-usr-src-debug,
 * debian-build, bazel-proc-self-cwd, bazel-external, conda-build,
 * pip-build, repo-name (".../<repo>/"), tmp-build-dir, relative (already
 * relative). Then ".", ".." and "//" are normalised and, with
 * ctx->subdir_paths, the subdir is prefixed unless already there.
 *
 * On success *out is the repo-relative path and *out_rule the rule's name,
 * with "+subdir" appended when the subdir was prefixed
 * ("path-prefix+subdir"); both are heap strings the caller frees.
 * PROV_ENOTFOUND
 * when no rule applies (an absolute path nothing recognises) or the
 * result would leave the repository (a leading ".."); nothing is written
 * to the outs then.
 */
int prov_pathrw_rewrite(char **out, char **out_rule, const char *file,
			const char *comp_dir, const struct prov_pathrw_ctx *ctx);

/*
 * fnmatch backtracks: a glob with many '*' against a long path can take
 * exponential time. Globs longer than PROV_PATHRW_MAX_GLOB bytes or with
 * more than PROV_PATHRW_MAX_STARS stars are refused (mapping files: an
 * error; here: the rule is skipped), and path-prefix globs are not tried
 * on paths longer than PROV_PATHRW_MAX_GLOB_PATH.
 */
#define PROV_PATHRW_MAX_GLOB 512
#define PROV_PATHRW_MAX_STARS 4
#define PROV_PATHRW_MAX_GLOB_PATH 4096
/* 1 when a glob is within those caps. */
int prov_pathrw_glob_ok(const char *glob);

/* The repository name of a URL: ".../ROCm/clr.git" -> "clr". Caller frees; NULL when none. */
char *prov_pathrw_repo_name(const char *url);

#endif
