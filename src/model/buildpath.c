/*
 * Package names, versions and repository paths from build-system source
 * paths (see buildpath.h). Lexical only: nothing is read from disk.
 */
#include <stdlib.h>
#include <string.h>

#include "buildpath.h"
#include "util.h"
#include "banned.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *const arches[] = {
	"x86_64", "aarch64", "i686", "i386", "noarch", "ppc64le", "ppc64", "s390x", "armv7hl", "riscv64",
};

/*
 * "rocclr-5.5.1-8.fc39.x86_64" -> rocclr, 5.5.1-8.fc39; "glibc-2.31" ->
 * glibc, 2.31. rpm: the last two '-' start version and release when both
 * begin with a digit. 0 when no '-<digit>' splits it.
 */
static int split_nvr(char **name, char **version, const char *s, size_t n)
{
	size_t i, end = n, d1 = 0, d2 = 0;
	int have1 = 0, have2 = 0;

	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		size_t an = strlen(arches[i]);

		if (n > an + 1 && s[n - an - 1] == '.' && memcmp(s + n - an, arches[i], an) == 0) {
			end = n - an - 1;
			break;
		}
	}
	for (i = end; i > 0; i--) {
		if (s[i - 1] != '-' || i >= end || !is_digit(s[i]))
			continue;
		if (!have1) {
			d1 = i - 1;
			have1 = 1;
		} else {
			d2 = i - 1;
			have2 = 1;
			break;
		}
	}
	if (!have1 || d1 == 0)
		return 0;
	/* rpm's NAME-VERSION-RELEASE: the release has a dist tag or is a number */
	if (have2 && d2 > 0 && end != n) {
		if (name)
			*name = prov_xstrndup(s, d2);
		if (version)
			*version = prov_xstrndup(s + d2 + 1, end - d2 - 1);
		return 1;
	}
	if (name)
		*name = prov_xstrndup(s, d1);
	if (version)
		*version = prov_xstrndup(s + d1 + 1, end - d1 - 1);
	return 1;
}

/* The next path component at p: its length (up to '/'), 0 when none. */
static size_t component(const char *p)
{
	const char *e = strchr(p, '/');

	return e ? (size_t)(e - p) : 0;
}

int prov_buildpath_split(char **name, char **version, char **rest, const char *path)
{
	char *norm_dir = NULL;
	const char *p, *dir = NULL, *tail;
	size_t n;

	if (name)
		*name = NULL;
	if (version)
		*version = NULL;
	if (rest)
		*rest = NULL;
	if (!path)
		return 0;
	if ((p = prov_skip_prefix(path, "/usr/src/debug/")) != NULL ||
	    (p = prov_skip_prefix(path, "/builddir/build/BUILD/")) != NULL ||
	    (p = prov_skip_prefix(path, "/build/buildd/")) != NULL) {
		dir = p;
	} else if ((p = prov_skip_prefix(path, "/build/")) != NULL && (n = component(p)) > 0) {
		/* sbuild: /build/SRC-XXXXXX/SRC-VERSION/ */
		const char *q = p + n + 1;
		size_t m = component(q);
		const char *dash = memchr(p, '-', n);

		if (m && dash && (size_t)(dash - p) < m && memcmp(p, q, (size_t)(dash - p) + 1) == 0)
			dir = q;
	}
	if (!dir || (n = component(dir)) == 0 || dir[0] == '.')
		return 0;
	if (!split_nvr(name, version, dir, n))
		return 0;
	tail = dir + n + 1;
	if (rest) {
		norm_dir = prov_path_normalize(tail);
		/* ".." climbing out of the tree: keep nothing */
		if (!*norm_dir || prov_starts_with(norm_dir, "../") || strcmp(norm_dir, "..") == 0) {
			free(norm_dir);
			norm_dir = NULL;
		}
		*rest = norm_dir;
	}
	return 1;
}

void prov_buildpath_repo_paths(struct prov_crash *c)
{
	prov_buildpath_repo_paths_of(c, 0);
}

void prov_buildpath_repo_paths_of(struct prov_crash *c, int no_component_only)
{
	size_t i, j;
	const char *miss = NULL;	/* the last file no build path matched (a deep recursion repeats it) */

	for (i = 0; i < c->nthreads; i++)
		for (j = 0; j < c->threads[i].nframes; j++) {
			struct prov_frame *f = &c->threads[i].frames[j];
			char *rest = NULL;

			if (!f->file || f->repo_path || (no_component_only && f->component) ||
			    (miss && !strcmp(miss, f->file)))
				continue;
			if (prov_buildpath_split(NULL, NULL, &rest, f->file) && rest) {
				f->repo_path = rest;
				free(f->path_rule);
				f->path_rule = prov_xstrdup("build-path");
			} else {
				free(rest);
				miss = f->file;
			}
		}
}

/*
 * Where a source path's package root ends: ".../site-packages/TOP",
 * "/usr/src/debug/NAME-VERSION...", the directory of a Python file; 0 when
 * the path says nothing about what installed or built it.
 */
size_t prov_buildpath_root_len(const char *path)
{
	const char *p, *e;
	size_t n = strlen(path);
	int skip;

	if (path[0] != '/')
		return 0;
	for (p = path; (p = strstr(p, "-packages/")) != NULL; p++)
		if (p - path >= 4 && (memcmp(p - 4, "site", 4) == 0 || memcmp(p - 4, "dist", 4) == 0) &&
		    (e = strchr(p + 10, '/')) != NULL)
			return (size_t)(e - path);
	if (prov_buildpath_split(NULL, NULL, NULL, path)) {
		/* the components up to NAME-VERSION */
		if (prov_starts_with(path, "/usr/src/debug/") || prov_starts_with(path, "/builddir/build/BUILD/"))
			skip = 4;
		else
			skip = 3;	/* /build/buildd/X, /build/S-R/S-V */
		for (p = path; skip > 0 && (p = strchr(p + 1, '/')) != NULL; skip--)
			;
		return p ? (size_t)(p - path) : 0;
	}
	/* the interpreter's own library: /usr/lib/python3.11/json/decoder.py */
	if (n > 3 && memcmp(path + n - 3, ".py", 3) == 0 &&
	    (strstr(path, "/lib/python") || strstr(path, "/lib64/python")) &&
	    (e = strrchr(path, '/')) != NULL && e > path)
		return (size_t)(e - path);
	return 0;
}
