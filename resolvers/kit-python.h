#ifndef PROV_KIT_PYTHON_H
#define PROV_KIT_PYTHON_H

#include <stddef.h>

#include "model.h"

/* The resolvers' kit: Python distributions and packages (kit-python.c). */

/*
 * RECORD lines ("path,hash,size", CSV with optional quotes): call fn with each
 * path (as written, relative to site-packages). Lines longer than 4096 bytes
 * or holding NUL bytes are skipped and counted in *nbad.
 */
int prov_pip_record_foreach(const char *text, size_t len, size_t *nbad,
			    int (*fn)(const char *path, void *data), void *data);
/* METADATA / PKG-INFO headers: Name and Version (first occurrence, before the body). Caller frees; NULL when absent. */
void prov_pip_metadata(char **name, char **version, const char *text, size_t len);

/*
 * Python packages: the site-packages (or dist-packages) directory that is an
 * ancestor of path (normalised), or NULL; *rel is the rest of the path.
 * prov_py_embedded_commit: a quoted 40-hex commit in <site>/<top>/version.py
 * (torch's git_version), commit_info.py or _version.py (numpy's versioneer
 * "full-revisionid"), 1 MiB read each; *evidence names the file. Caller frees.
 * prov_py_add_commit sets o->commit (and o->evidence) from it, whatever
 * resolver claimed the file, when o has no commit yet.
 */
char *prov_py_site_of(const char *path, const char **rel);
char *prov_py_embedded_commit(const char *root, const char *site, const char *top, char **evidence);
void prov_py_add_commit(struct prov_origin *o, const char *root, const char *site, const char *top);
/*
 * A module at `path` inside a Python package (<site>/<top>/...) whatever
 * installed it (python3-numpy from dpkg, a conda package): prov_py_add_commit
 * for its package, unless o has a commit already or is a guess.
 */
void prov_py_commit_of(struct prov_origin *o, const char *root, const char *path);

#endif
