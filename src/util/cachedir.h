#ifndef PROV_CACHEDIR_H
#define PROV_CACHEDIR_H

/*
 * The layout of the cache directory (--cache, $PROVENANCE_CACHE,
 * $XDG_CACHE_HOME/provenance): every file and folder provenance keeps
 * there, named in one place (docs/cache.md describes each).
 */
enum prov_cachedir_part {
	PROV_CACHEDIR_DB,	/* cache.sqlite: package indexes, resolutions, patch-ids (cache/cache.c) */
	PROV_CACHEDIR_STORE,	/* store.sqlite: the default crash store (cache/store.c) */
	PROV_CACHEDIR_MIRRORS,	/* mirrors/: one bare git mirror per upstream URL (src/sources/sources.c) */
	PROV_CACHEDIR_IMPORTS,	/* imports/: source packages imported into git (src/sources/srcimport.c) */
	PROV_CACHEDIR_DOWNLOADS,	/* downloads/: fetched files by the URL's hash (src/sources/fetch.c) */
	PROV_CACHEDIR_DEBUGINFOD,	/* debuginfod/: libdebuginfod's own cache */
	PROV_CACHEDIR_TMP,	/* tmp/: decompressed cores, spooled stdin (src/util/input.c) */
	PROV_CACHEDIR_HOSTS,	/* hosts-down: hosts that did not answer, and when (src/sources/hostdown.c) */
	PROV_CACHEDIR_DEBUG_PLAIN,	/* debug-plain/: debug files with their DWARF uncompressed (src/core/plaindebug.c) */
	PROV_CACHEDIR_MEMO,	/* cache.memo: answers read from cache.sqlite by an earlier run (cache/cache.c) */
	PROV_CACHEDIR_IMAGES,	/* images/: container images given as --sysroot, unpacked (src/image/image.c) */
};

/* The part's name inside the cache directory ("mirrors", "cache.sqlite"). */
const char *prov_cachedir_name(enum prov_cachedir_part part);

/* "<cache_dir>/<name of part>". Caller frees. */
char *prov_cachedir_path(const char *cache_dir, enum prov_cachedir_part part);

/* "<cache_dir>/<name of part>/<fmt...>": an entry of a folder part
 * (a mirror, a download). Caller frees. */
char *prov_cachedir_pathf(const char *cache_dir, enum prov_cachedir_part part,
			  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Write CACHEDIR.TAG in a cache directory provenance made: only when the
 * directory holds nothing but the cache's own names. */
void prov_cachedir_mark(const char *dir);

/* 1 when the open directory is a cache provenance made: it has the tag, or
 * (a cache made before the tag) it holds nothing but the cache's own names. */
int prov_cachedir_is_ours(int dfd);

#endif
