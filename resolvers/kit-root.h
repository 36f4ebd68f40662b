#ifndef PROV_KIT_ROOT_H
#define PROV_KIT_ROOT_H

#include <stddef.h>

#include "buf.h"

/*
 * The resolvers' kit: files under the sysroot (kit-root.c). Every path is
 * looked up through prov_root_open(), so none leads outside the root.
 * prov_root_find_lib is declared in resolve.h (the pipeline uses it too).
 */

/* Read `path` under root (prov_root_open) into out, at most cap bytes. PROV_ENOTFOUND when it does not exist, PROV_ELIMIT when larger, PROV_EINPUT when unreadable. */
int prov_root_read(struct prov_buf *out, const char *root, const char *path, size_t cap);

/*
 * Resolve symlinks of `path` as seen inside root (absolute links re-rooted,
 * ".." clamped at the root, at most 40 links). Returns the resolved absolute
 * path (caller frees); components that do not exist are kept as written.
 */
char *prov_root_realpath(const char *root, const char *path);

/*
 * Identity of a file under root: "size:mtime_ns:ino:ctime_ns:hash", the hash
 * (FNV-1a) of a regular file's first and last 64 KiB, 0 for a directory; NULL
 * when missing. Caller frees.
 */
char *prov_root_identity(const char *root, const char *path);

/*
 * Canonical form of a packaged path for index keys: normalised, and when
 * `merged` (the root's /lib resolves to /usr/lib) /bin /sbin /lib* moved
 * under /usr. Caller frees.
 */
char *prov_pkgpath_canon(const char *path, int merged);
/* 1 when the root has a merged /usr (/lib resolves to /usr/lib inside it). */
int prov_root_merged_usr(const char *root);

/*
 * Names in directory `path` under root, sorted (at most 100000). 0 with
 * *out (free with prov_strv_free), PROV_ENOTFOUND when not a directory.
 */
int prov_root_listdir(char ***out, size_t *nout, const char *root, const char *path);

/* Called with each file of the program folders (prov_root_each_program). */
typedef void (*prov_root_program_fn)(void *arg, const char *root, const char *path);

/*
 * Call fn with the path (from the root) of each entry of the root's program
 * folders (/usr/local/bin, /usr/local/sbin, /usr/bin, /usr/sbin, /bin, /sbin,
 * /opt/bin, /app: where env looks for binaries that carry their own
 * inventory), at most max_files in all; a folder that cannot be listed is
 * skipped. src/image/image-lazy-index.c keeps the same list (the image layer
 * cannot include the resolvers' kit).
 */
void prov_root_each_program(const char *root, size_t max_files, prov_root_program_fn fn, void *arg);
void prov_strv_free(char **v, size_t n);
/* 1 when `path` under root is a directory. */
int prov_root_isdir(const char *root, const char *path);

/* The root as a cache key: the absolute normalised sysroot, "/" for the host. Caller frees. */
char *prov_root_key(const char *root);

/*
 * The nearest ancestor directory of `path` (absolute, normalised; "/" itself
 * excluded, at most 64 levels up) for which test(root, dir, data) holds, or
 * NULL; caller frees. Answers are memoized per directory in *memo (created
 * on first use, freed with prov_dirmemo_free), so 30k modules deep in one
 * tree cost one test per directory, not one per module and ancestor. The
 * memo keeps at most PROV_DIRMEMO_MAX_BYTES of keys; beyond, it stops
 * remembering (answers stay right).
 */
#define PROV_DIRMEMO_MAX_BYTES ((size_t)64 << 20)
struct prov_dirmemo;
char *prov_nearest_ancestor(struct prov_dirmemo **memo, const char *root, const char *path,
			    int (*test)(const char *root, const char *dir, void *data), void *data);
void prov_dirmemo_free(struct prov_dirmemo *m);

#endif
