#ifndef PROV_DERIVE_H
#define PROV_DERIVE_H

#include <stddef.h>

#include "config.h"
#include "context.h"
#include "sources.h"

/*
 * Tags for a version in a repository that no mapping describes (an upstream
 * derived from the package's metadata, docs/mappings.md "Derived
 * upstreams"): the spellings projects use for release tags.
 */

/*
 * The tag spellings of `version` (its upstream part: epoch, Debian revision
 * and repack suffix dropped, as {upstream_version}) for a project called
 * `name` (the package or source package) whose repository URL is `url` (its
 * last path component, without .git, is tried as a name too): v1.2.3,
 * 1.2.3, NAME-1.2.3, NAME_1.2.3, NAME-v1.2.3, release-1.2.3, R_1_2_3,
 * NAME-1_2_3, NAME_1_2_3, NAME_1_2_3 upper-cased, release-1-2-3, v1_2_3,
 * VER-1-2-3, version-1.2.3, releases/NAME-1.2.3 ... in that order (the
 * repository's name keeps its case: OpenBLAS-0.3.21), without duplicates. 0, or
 * PROV_ENOTFOUND when the version has no usable upstream part. Free with
 * prov_tag_candidates_free.
 */
int prov_tag_candidates(char ***out, size_t *nout, const char *name, const char *url,
			const char *version);
void prov_tag_candidates_free(char **v, size_t n);

/*
 * The first candidate that is a tag in repo: *tag and *commit (caller
 * frees). PROV_ENOTFOUND when none is.
 */
int prov_tag_match(char **tag, char **commit, struct prov_repo *repo, char *const *cands,
		   size_t ncands);

/*
 * Open a derived upstream's repository for the candidates: fetched only when
 * the config says fetch.trustSystemUrls = true and offline is 0; otherwise
 * only a mirror already in the cache is used (PROV_ENOTFOUND naming why).
 */
/*
 * 1 when a URL the crashed system's files name (pip direct_url.json, a
 * package's Vcs-Git, a .git config) is a local path or file:// URL: it would
 * name a repository of this host, not of the crashed system, so it is
 * never opened (a mapping or a url.<base>.insteadOf rule of the user's may
 * still point at a local mirror).
 */
int prov_system_url_is_local(const char *url);

int prov_derive_open(struct prov_repo **out, const char *url, char *const *cands, size_t ncands,
		     const struct prov_ctx *ctx);

#endif
