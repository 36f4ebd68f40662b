#ifndef PROV_SRCIMPORT_H
#define PROV_SRCIMPORT_H

#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "context.h"

/*
 * Sources that are not git repositories (docs/source-packages.md): release
 * archives and Debian-format source packages, downloaded with prov_fetch
 * and imported with libarchive straight into a bare git repository in the
 * cache (blobs and trees in the object database, never unpacked on disk),
 * so that source lines, path rewriting and fixcheck work on them exactly as
 * on a git mirror: open *out_repo with prov_sources_open() (a local path is
 * opened in place) and read blobs at *out_commit.
 *
 * Repositories: <cache_dir>/imports/<name>.git, one per Debian source
 * package ("debian-<source>") or per archive URL ("<archive base name>-<12
 * hex of the URL's SHA-256>"). The commit of an import is recorded in a ref
 * (refs/imports/<source>/<version> or refs/imports/archive) that is written
 * last, after every object: a killed import leaves no ref, and a later run
 * starts again. A second run finds the ref and downloads nothing. Commits
 * are deterministic (fixed author "provenance" at time 0): the same inputs
 * give the same commit id on every machine. An flock(2) on
 * <cache_dir>/imports/<name>.lock serialises runs on one repository.
 *
 * Settings read from config (all optional; see also fetch.h):
 *   import.maxBytes    cap on the bytes an import unpacks (default 4g; k/m/g)
 *   import.maxEntries  cap on archive entries (default 1000000)
 *
 * Hostile archives: an entry whose path is absolute or climbs with "..",
 * or that names ".git", is refused (PROV_EINPUT naming the URL and the
 * entry); symlinks are stored as git symlink blobs (mode 120000) and never
 * followed; device files, FIFOs and sockets are skipped with a warning; a
 * truncated or corrupt archive is PROV_EINPUT; exceeding a cap is
 * PROV_ELIMIT. A download that turns out broken (bad checksum, unreadable
 * archive) is removed from the cache so that a later run fetches it again.
 */
struct prov_srcimport_stats {
	uint64_t download_ms;	/* fetching (and checksumming) every file */
	uint64_t import_ms;	/* unpacking into the object database, patching, committing */
	uint64_t bytes;	/* uncompressed bytes imported */
	uint64_t entries;	/* archive entries read */
	/* work counts (what tests bound instead of time): */
	uint64_t name_compares;	/* child names compared building the tree (linear in entries) */
	uint64_t line_compares;	/* hunk lines compared finding where patches' hunks moved */
	uint64_t patches_applied;	/* patches handed to libgit2 to apply */
	int cached;	/* 1: the import was already in the cache, nothing fetched */
};

struct prov_srcimport_opts {
	/* config (url.<base>.insteadOf, fetch.*, import.*; may be NULL),
	 * cache_dir (downloads in <cache>/downloads, imports in <cache>/imports),
	 * offline (never download: use what the cache has; missing -> PROV_ENOTFOUND) */
	const struct prov_ctx *ctx;
	struct prov_srcimport_stats *stats;	/* filled when not NULL, also on failure (the work so far) */
};

#define PROV_SRCIMPORT_DEFAULT_MAX_BYTES ((uint64_t)4 << 30)
#define PROV_SRCIMPORT_DEFAULT_MAX_ENTRIES 1000000
#define PROV_SRCIMPORT_MAX_PATH 4096	/* bytes in an entry's path */
#define PROV_SRCIMPORT_MAX_DEPTH 256	/* directories in an entry's path */
#define PROV_SRCIMPORT_MAX_DSC ((size_t)1 << 20)
#define PROV_SRCIMPORT_MAX_DSC_FILES 64
#define PROV_SRCIMPORT_MAX_PATCHES 2000
/* config sources.debianBaseUrl's default */
#define PROV_SRCIMPORT_DEBIAN_URL "https://deb.debian.org/debian"
/* config sources.debianSecurityBaseUrl's default while sources.debianBaseUrl
 * is PROV_SRCIMPORT_DEBIAN_URL (another main archive: none unless set); "" turns it off */
#define PROV_SRCIMPORT_DEBIAN_SECURITY_URL "https://security.debian.org/debian-security"

/*
 * The next patch of a quilt series (debian/patches/series) from *pos, which
 * moves past its line: 1 with *name (caller frees) and its -p level in
 * *strip (default 1), 0 when none is left, PROV_EINPUT for an option other
 * than -pN (message stored). Blank lines and comments are skipped.
 */
int prov_quilt_series_next(char **name, int *strip, const char **pos, const char *end);
#define PROV_SRCIMPORT_MAX_PATCH ((size_t)64 << 20)

/*
 * A release archive (tar, optionally gzip/xz/bzip2/zstd/lz4-compressed, or
 * zip) at `url`: download (or reuse), import its files (the top-level
 * directory stripped when it is the only entry at the top) as a tree and a
 * parentless commit. *out_repo = the repository's path, *out_commit = 40
 * hex (both caller-freed; nothing written on failure).
 * Errors: as prov_fetch_file for the download (PROV_ENOTFOUND offline and
 * not cached, or HTTP 404), PROV_EINPUT for a broken or hostile archive,
 * PROV_ELIMIT for a cap, PROV_ERROR for libgit2 or disk failures.
 */
int prov_srcimport_archive(char **out_repo, char **out_commit, const char *url,
			   const struct prov_srcimport_opts *o);

/*
 * A Debian-format source package: <base_url>/pool/<area>/<l>/<source>/
 * <source>_<version without epoch>.dsc, <area> tried in the order main,
 * contrib, non-free, non-free-firmware, <l> = first letter of source, or
 * "lib" + the next letter for lib* names; failing those, the flat
 * <base_url>/<source>_<version>.dsc; then the security archive (config
 * sources.debianSecurityBaseUrl; unset: PROV_SRCIMPORT_DEBIAN_SECURITY_URL
 * when base_url is PROV_SRCIMPORT_DEBIAN_URL, else none; "" for none): <security>/pool/updates/<area>/<l>/<source>/. A version
 * with ~debNNuN or +debNNuN tries the security archive first. The .dsc (an OpenPGP clear-signed
 * wrapper is stripped, its signature NOT verified) must name `source` and
 * `version`; every file in its Checksums-Sha256 is fetched from beside the
 * .dsc and its size and SHA-256 verified. Formats "3.0 (quilt)" (orig
 * tarball, optional orig-<component> tarballs, debian tarball) and
 * "3.0 (native)" / native "1.0" (one tarball) are supported; a "1.0"
 * .diff.gz is PROV_EINPUT. The orig tarball(s) become the upstream commit;
 * the debian tarball replaces debian/, the series in
 * debian/patches/series is applied in order with libgit2's
 * git_apply_to_tree (quilt syntax: one patch per line, "#" comments and
 * blank lines ignored, -pN honoured, no fuzz), and the patched tree is
 * committed with the upstream commit as parent. *out_npatches = patches
 * applied. *out_repo, *out_commit as for prov_srcimport_archive.
 * Errors: PROV_EINPUT for a bad source name or version, a .dsc that does
 * not match, a checksum or size mismatch (message names the file and URL),
 * a patch that does not apply (message names the patch); PROV_ENOTFOUND
 * when no .dsc is found (offline: not cached); others as above.
 */
int prov_srcimport_debian(char **out_repo, char **out_commit, int *out_npatches,
			  const char *base_url, const char *source, const char *version,
			  const struct prov_srcimport_opts *o);

/*
 * The Debian pool directory of a source package, e.g. "pool/main/libf/libfoo"
 * for area "main". PROV_EINPUT when source is not a valid Debian source
 * package name ([a-z0-9][a-z0-9+.-]+). Caller frees.
 */
int prov_srcimport_pool_dir(char **out, const char *source, const char *area);

/*
 * Rewrite a quilt patch (-p`strip`) as a git-style diff that
 * git_diff_from_buffer reads: "diff --git" headers synthesised, paths
 * stripped of `strip` components and given a/ b/ prefixes, timestamps and
 * text between files (DEP-3 headers, "Index:" lines) dropped. A patch that
 * already has "diff --git" headers is kept as it is (strip must be 1), but
 * for files before its first "diff --git" line (---/+++ only), rewritten.
 * PROV_EINPUT naming `name` for a path with too few components or "..".
 */
int prov_srcimport_quilt_to_git(struct prov_buf *out, const char *patch, size_t len,
				int strip, const char *name);

#endif
