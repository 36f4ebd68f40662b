#ifndef PROV_MAPPING_H
#define PROV_MAPPING_H

#include <stddef.h>

#include "buf.h"
#include "config.h"
#include "model.h"

/*
 * Mapping files (docs/mappings.md): which libraries and packages come from
 * which upstream repository, and how an installed version becomes a ref.
 * Git-config syntax, one [component "NAME"] section each, read with
 * libgit2's config parser.
 */
/*
 * A version-dependent part of a mapping: a [component "NAME@RANGE"]
 * section. RANGE is comma-separated comparisons (">=5.6,<7"); within it
 * repo, subdir, subdir-paths, ref and path-prefix replace the base
 * section's (lists replace, not add to). A variant that names a repo
 * starts without the base's subdir and subdir-paths.
 */
struct prov_mapping_variant {
	char *range;	/* as written */
	char **ops;	/* ">=", ">", "<=", "<", "=" */
	char **bounds;	/* dotted numbers */
	size_t nbounds;
	char *repo;
	char *subdir;
	int has_subdir_paths, subdir_paths;
	char **refs;
	size_t nrefs;
	char **path_prefixes;
	size_t npath_prefixes;
};

struct prov_mapping {
	char *name;	/* the section's subsection */
	char **libraries;	/* fnmatch globs on a module's file name */
	size_t nlibraries;
	char **packages;	/* origin->name or origin->source */
	size_t npackages;
	char *repo;	/* URL or local path, NULL when the file gave none */
	char *subdir;	/* repo-relative, never contains ".." */
	char **refs;	/* templates, tried in order */
	size_t nrefs;
	char **path_prefixes;	/* globs: strip through the first match */
	size_t npath_prefixes;
	int subdir_paths;	/* frame paths are relative to subdir, not the repo */
	char *archive;	/* release archive URL template ({version} ...), or NULL */
	char *debian_source;	/* Debian source package template ({source}), or NULL */
	char *file;	/* the file it came from, for messages */
	struct prov_mapping_variant *variants;	/* in file order; the first that matches wins */
	size_t nvariants;
	int has_base;	/* a [component "NAME"] section was given (variants need one) */
	int version_rocm;	/* version-scheme = rocm: versions end in the ROCm release
				 * (rocblas 4.1.0.60100 is ROCm 6.1.0): see prov_mapping_version */
	const char *variant;	/* in a view (prov_mapping_select): the range chosen, or NULL */
};

struct prov_mappings {
	struct prov_mapping *items;
	size_t n, alloc;
};

/* Caps on what a mapping file may hold. */
#define PROV_MAPPING_MAX_FILE ((size_t)1 << 20)
#define PROV_MAPPING_MAX_VALUE 4096
#define PROV_MAPPING_MAX_ITEMS 10000
#define PROV_MAPPING_MAX_VALUES 256	/* per key per component */

void prov_mappings_init(struct prov_mappings *m);
void prov_mappings_release(struct prov_mappings *m);

/*
 * Read one mapping file and append its components. A component whose name
 * is already known (from an earlier, higher-precedence file) is skipped.
 * PROV_EINPUT naming the file for: unreadable file, broken syntax, include
 * sections, a component without a name, a subdir with "..", or an absolute
 * subdir, a repo URL of a scheme other than https/http/ssh/git/file, a
 * file:// or local repo that is not a git repository; PROV_ELIMIT for
 * over-long values or too many entries. Unknown keys and sections are
 * warnings (prov_warn). On error nothing from the file is kept.
 */
int prov_mappings_load_file(struct prov_mappings *m, const char *path);

/*
 * Load in precedence order: every file in `files` (NULL-terminated, may be
 * NULL; errors are fatal), then *.map in the user dir
 * (prov_config_mapping_dir(); missing dir is fine), then the shipped
 * directory (prov_mappings_shipped_dir()). Files of a directory are read in
 * name order.
 */
int prov_mappings_load_all(struct prov_mappings *m, const char *const *files);

/* Load every *.map of a directory in name order; a missing dir is not an error. */
int prov_mappings_load_dir(struct prov_mappings *m, const char *dir);

/*
 * The shipped mappings directory: "<dir of /proc/self/exe>/mappings" when
 * that exists (an uninstalled build), else
 * "<dir of /proc/self/exe>/../share/provenance/mappings" when that exists
 * (an install, staged with DESTDIR or moved as a whole), else
 * PROV_DATADIR "/mappings".
 * Caller frees.
 */
char *prov_mappings_shipped_dir(void);

/*
 * The mapping for a module: the first whose `library` glob matches the file
 * name (basename) of module_path; failing that, the first whose `package`
 * equals origin->name or origin->source. Either argument may be NULL.
 * NULL when none.
 */
const struct prov_mapping *prov_mappings_match(const struct prov_mappings *m,
					       const char *module_path,
					       const struct prov_origin *origin);

const struct prov_mapping *prov_mappings_find(const struct prov_mappings *m,
					      const char *name);

/*
 * Version pieces. upstream: epoch ("1:") and distribution revision (from the
 * last '-', and "+dfsg"-style suffixes are kept) removed:
 * "1:2.0.0-43~24.04" -> "2.0.0". major/minor/patch: the leading numeric
 * dot-separated parts of upstream ("6.4.3" -> 6, 4, 3); missing parts are
 * empty strings. Each out string is caller-freed.
 */
struct prov_version_parts {
	char *upstream;
	char *major;
	char *minor;
	char *patch;
};
void prov_version_split(struct prov_version_parts *out, const char *version);
void prov_version_parts_release(struct prov_version_parts *p);

/*
 * Expand a ref template: {version} {upstream_version} {major} {minor}
 * {patch}. PROV_EINPUT for an unknown placeholder or a placeholder whose
 * value is empty (e.g. {patch} of "6.4"), or a NULL version with any
 * placeholder. `out` is reset first.
 */
int prov_mapping_expand_ref(struct prov_buf *out, const char *tmpl, const char *version);

/*
 * The mapping for one installed version: *out is a shallow copy of m (its
 * pointers borrow m's) with the first variant whose range holds `version`
 * applied, and out->variant its range (NULL: the base section). A NULL
 * version, or one without a leading number, matches no variant.
 */
void prov_mapping_select(struct prov_mapping *out, const struct prov_mapping *m,
			 const char *version);

/*
 * 1 when the version's range expression (">=5.6,<7") holds `version`
 * (compared by the leading dotted numbers of its upstream version, ROCm
 * package versions decoded), 0 when not, PROV_EINPUT for a broken range.
 */
int prov_version_in_range(const char *range, const char *version);

/*
 * 1 when ref (a tag name) names the installed version: it holds the
 * upstream version (without a pip "+local" part) as a whole word, not
 * followed by more digits or ".N" ("v1.13.0" names 1.13.0 and 1.13.0+cu1,
 * not 1.13 or 1.13.0a0; "rocm-6.1.0" names 6.1.40091.60100-82). 0 when not.
 */
int prov_ref_names_version(const char *ref, const char *version);

/*
 * ROCm package versions: "6.1.40091.60100-82~22.04" (hip-runtime-amd) and
 * "6.1.0.60100-82" (rocm-core) end in XXYYZZ = major*10000 + minor*100 +
 * patch of the ROCm release. *out "6.1.0" (caller frees) and 0 when the
 * version has that form (its first two parts agree with XXYYZZ), else
 * PROV_ENOTFOUND.
 */
int prov_rocm_version_decode(char **out, const char *version);

/*
 * The version a mapping's refs and ranges see: with version-scheme = rocm,
 * the ROCm release a package version ends in, whatever its own first parts
 * ("4.1.0.60100-82~22.04" of rocblas -> "6.1.0"; at least three numeric
 * parts, the last of 5-6 digits, major >= 1); otherwise, or when the
 * version has no such part, the version itself. NULL for NULL. Caller frees.
 */
char *prov_mapping_version(const struct prov_mapping *m, const char *version);

#endif
