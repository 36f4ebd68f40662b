#ifndef PROV_DBGSRC_H
#define PROV_DBGSRC_H

#include "model.h"

/*
 * Source from debuginfod's /buildid/ID/source/PATH endpoint (libdebuginfod;
 * only when DEBUGINFOD_URLS is set: the pipeline unsets it for --offline):
 * for the top `max_frames` frames of the crashing thread that have a file
 * and line but no excerpt from a repository yet, and whose module has a
 * build ID. Each excerpt is a c->sources[] entry with located_by
 * "debuginfod", the module's build_id, no component and no commit (the JSON
 * report lists these apart, as debuginfod_sources[]). Files over 16 MiB are
 * not read. Returns how many excerpts were added.
 */
int prov_debuginfod_sources(struct prov_crash *c, int context, int max_frames);

/*
 * For the top `max_frames` frames of the crashing thread with an absolute
 * file and a line, no excerpt yet and no component, in a module found on
 * this host that no package owns (your own program): the lines around the
 * frame's line from the file at its DWARF path, as gdb shows them, when it
 * is a regular file no newer than the module's file (a newer one may not be
 * what was built). Each is a c->sources[] entry with fetched_by
 * "local-file", no component and no commit. Returns how many were added.
 */
int prov_local_sources(struct prov_crash *c, int context, int max_frames);

/*
 * The whole text of `path` (absolute, as DWARF names it) for the module
 * with `build_id` from debuginfod's /buildid/ID/source/PATH, into `out`
 * (capped at 16 MiB), under the run's debuginfod budget. PROV_ENOTFOUND
 * when DEBUGINFOD_URLS is unset (always with --offline) or no server has
 * it. The shape of the components stage's source hook (the last argument
 * is unused).
 */
struct prov_buf;
int prov_debuginfod_source_text(struct prov_buf *out, const char *build_id, const char *path,
				void *unused);

#endif
