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

#endif
