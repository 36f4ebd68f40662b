#ifndef PROV_BUILDPATH_H
#define PROV_BUILDPATH_H

#include "model.h"

/*
 * Source paths that say which package built them, by the build system's
 * directory layout:
 *   /usr/src/debug/NAME-VERSION-RELEASE.ARCH/REST   Fedora/RHEL debugsource
 *   /usr/src/debug/NAME-VERSION/REST                older Fedora
 *   /builddir/build/BUILD/NAME-VERSION/REST         rpmbuild
 *   /build/SRC-XXXXXX/SRC-VERSION/REST              Debian/Ubuntu sbuild
 *   /build/buildd/SRC-VERSION/REST                  old Ubuntu buildd
 *
 * On a match: 1, *name and *version new strings (version may be NULL),
 * *rest the normalised path inside the source tree (a new string,
 * "a/cmake/../b" -> "a/b"). 0 when the path has no such prefix. Any of the
 * out parameters may be NULL.
 */
int prov_buildpath_split(char **name, char **version, char **rest, const char *path);

/*
 * Where a source path's package root ends: ".../site-packages/TOP",
 * "/usr/src/debug/NAME-VERSION...", the directory of the interpreter's own
 * Python file; 0 when the path says nothing about what installed or built
 * it. The text reader names one module per root (inferred); a frame with no
 * module belongs to the inferred module of its root.
 */
size_t prov_buildpath_root_len(const char *path);

/* repo_path for frames that have none, from a known build prefix. */
void prov_buildpath_repo_paths(struct prov_crash *c);
/* The same, for the frames of no component only when no_component_only. */
void prov_buildpath_repo_paths_of(struct prov_crash *c, int no_component_only);

#endif
