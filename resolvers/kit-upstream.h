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
 * Set o->upstream_url / upstream_by ("derived:dep5-source",
 * "derived:pip-project-url", "derived:conda-about", "derived:rpm-url",
 * "derived:direct-url", "derived:git-remote") / upstream_evidence from the
 * package's own files under root (64 KiB of a copyright or METADATA file,
 * 1 MiB of about.json). Nothing when none says.
 */
void prov_upstream_derive(struct prov_origin *o, const char *root);

#endif
