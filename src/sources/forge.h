#ifndef PROV_FORGE_H
#define PROV_FORGE_H

#include <stddef.h>

#include "config.h"
#include "context.h"
#include "model.h"

/*
 * One file of one commit from the forge that hosts a repository, without a
 * mirror (docs/sources.md, "Crash lines without a mirror"). The URL forms
 * are a table (kind -> template); a repository's host picks its kind from
 * the built-in hosts or from the configuration:
 *
 *   forge.<host>.type   github | gitlab | cgit | gitea | none
 *   forge.<host>.url    a template of its own (wins over the type's)
 *   fetch.singleFile    false: never use a forge's single-file endpoint
 *
 * <host> is the repository URL's host (with ":port" when it names one), as
 * the mapping names it, before url.<base>.insteadOf. A repository that
 * url.<base>.insteadOf sends elsewhere (a local or air-gapped mirror) has
 * no built-in form: only a forge.<host> setting applies to it then. Templates know
 * {url} (the repository URL without a trailing '/'), {base} ({url} without
 * ".git"), {host}, {owner} (the first component of the path), {repo} (the
 * rest of the path without ".git"), {commit} and {path} (percent-encoded,
 * '/' kept). The download goes through prov_fetch_file (url.insteadOf, the
 * connect bound, hosts remembered as down, the download cache: a file of a
 * full commit id never changes).
 */

/* Template placeholders expanded; NULL when the host has no known form. *kind: the kind's name. */
char *prov_forge_file_url(const char **kind, const struct prov_config *cfg, const char *repo_url,
			  const char *commit_hex, const char *path);

/*
 * Lines [line - context, line + context] of path at commit_hex (a full hex
 * id) from the forge's single-file endpoint. *kind as above. PROV_ENOTFOUND
 * when no form is known for the host (message says so) or the forge has no
 * such file; PROV_ELIMIT for a binary file or one over PROV_SOURCES_MAX_BLOB;
 * the errors of prov_fetch_file otherwise.
 */
int prov_forge_read_lines(struct prov_source_line **out, size_t *nout, const char **kind,
			  const char *repo_url, const char *commit_hex, const char *path, int line,
			  int context, const struct prov_ctx *ctx);

#endif
