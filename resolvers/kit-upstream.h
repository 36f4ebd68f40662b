#ifndef PROV_KIT_UPSTREAM_H
#define PROV_KIT_UPSTREAM_H

#include <stddef.h>

#include "model.h"

/* The resolvers' kit: upstream repositories derived from a package's metadata (kit-upstream.c). */

/*
 * A repository URL from one untrusted token (s[0..n)), normalised, or NULL
 * when it does not look like a repository: https/http/git(+) schemes only,
 * no credentials, ports, escapes or "..", at most 512 bytes. Known forges
 * (github.com, gitlab.com and other GitLabs, codeberg, bitbucket ...) give
 * https://HOST/OWNER/NAME.git (pages such as /tree/x, /-/issues dropped);
 * another host only a path ending in .git or a git.* / anongit.* host.
 */
char *prov_repo_url_from(const char *s, size_t n);
/* DEP-5 copyright header: the first repository in Source:, else in Upstream-Contact:
 * (only when the file has a Format: line). Caller frees; NULL when none. */
char *prov_dep5_upstream(const char *text, size_t len);
/* METADATA / PKG-INFO: Project-URL (Source, Repository, Code ... first, then
 * Homepage) or Home-page that is a repository. Caller frees; NULL when none. */
char *prov_pip_upstream(const char *text, size_t len);
/* conda info/about.json: dev_url, home, doc_source_url, doc_url. Caller frees. */
char *prov_conda_upstream(const char *text, size_t len);
/*
 * Set o->upstream_url / upstream_by / upstream_evidence from the package's
 * own files under root, each the way one sort of package says it: the DEP-5
 * copyright file of dpkg package o->name ("derived:dep5-source", 64 KiB),
 * the METADATA / PKG-INFO of the pip distribution in o->evidence
 * ("derived:pip-project-url", 64 KiB), the info/about.json of the conda
 * package whose conda-meta record is o->evidence ("derived:conda-about",
 * 1 MiB). Each returns 0 when o is not of its sort (no such name or
 * evidence: the caller may try prov_upstream_from_vcs), else 1, whether a
 * repository was found or not. Nothing is done for an origin that has an
 * upstream already or no kind. A resolver calls them from its annotate op.
 */
int prov_upstream_from_dep5(struct prov_origin *o, const char *root);
int prov_upstream_from_pip_metadata(struct prov_origin *o, const char *root);
int prov_upstream_from_conda_about(struct prov_origin *o, const char *root);
/*
 * From o->vcs_url when it names a repository (an rpm header's URL / VCS
 * tag, pip's direct_url.json of a VCS install, a git working tree's
 * origin), with `by` ("derived:rpm-url", "derived:direct-url",
 * "derived:git-remote") and o->evidence as the evidence.
 */
void prov_upstream_from_vcs(struct prov_origin *o, const char *by);

#endif
