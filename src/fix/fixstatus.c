/* `--fix COMMIT`: is each fix an ancestor of the deployed commit, and the first release with it. */
#include <stdlib.h>
#include <string.h>

#include "backport.h"
#include "error.h"
#include "fixstatus.h"
#include "sources.h"
#include "util.h"
#include "banned.h"

#define MAX_RANGE 1000

const struct prov_component *prov_fix_status_component(const struct prov_crash *c,
						       const char *component)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	const struct prov_component *found = NULL;
	size_t i, with_commit = 0;

	if (component)
		return prov_crash_component(c, component);
	for (i = 0; t && i < t->nframes; i++) {
		const struct prov_component *p;

		if (t->frames[i].component && (p = prov_crash_component(c, t->frames[i].component)) &&
		    p->commit)
			return p;
	}
	for (i = 0; i < c->ncomponents; i++)
		if (c->components[i].commit) {
			found = &c->components[i];
			with_commit++;
		}
	return with_commit == 1 ? found : NULL;
}

int prov_fix_target(struct prov_fix_target *out, const struct prov_component *p)
{
	memset(out, 0, sizeof(*out));
	if (!p->commit || !p->repo)
		return prov_error_set(PROV_EUNKNOWN, "the deployed commit of %s is not known%s%s", p->name,
				      p->note ? ": " : "", p->note ? p->note : "");
	if (!p->import_path) {
		out->url = p->repo;
		out->at = p->commit;
		return 0;
	}
	if (!p->upstream_repo || !p->upstream_ref)
		return prov_error_set(PROV_EUNKNOWN,
				      "%s is built from an imported source (%s) and no upstream repository is known to look fixes up in: give its mapping 'repo' and 'ref' beside '%s', or use --repo UPSTREAM --at TAG --debian-source SOURCE=VERSION",
				      p->name, p->found_by ? p->found_by : p->repo,
				      p->ref && prov_starts_with(p->ref, "refs/imports/archive") ? "archive" : "debian-source");
	out->url = p->upstream_repo;
	out->at = p->upstream_ref;
	out->patches_path = p->import_path;
	out->patches_commit = p->commit;
	return 0;
}

char *prov_fix_approximate_note(const struct prov_component *p, int included)
{
	int tip = p->found_by && !strcmp(p->found_by, "mapping:branch-tip");
	const char *what = tip ? "the branch tip" : "the approximate commit";

	if (included)
		return prov_xasprintf("in %s %s (%.12s); the deployed build may predate it: "
				      "whether the deployed build has it is not known",
				      what, p->ref ? p->ref : "?", p->commit ? p->commit : "?");
	return prov_xasprintf("not in %s %s (%.12s), which is not exactly the deployed build: "
			      "whether the deployed build has it is not known",
			      what, p->ref ? p->ref : "?", p->commit ? p->commit : "?");
}

int prov_fix_status_check(struct prov_crash *c, const char *const *fixes, size_t nfixes,
			  const char *component, const struct prov_ctx *g)
{
	const struct prov_component *p = prov_fix_status_component(c, component);
	struct prov_sources_opts sopts = { 0 };
	struct prov_repo *repo = NULL, *patches = NULL;
	struct prov_cache *cache = NULL;
	struct prov_backport_opts bo = { 0 };
	struct prov_fix_target t;
	char *why = NULL, *deployed = NULL;
	const char **wants = NULL;
	char **ends = NULL;
	size_t i;
	int error = 0;

	if (p && prov_fix_target(&t, p) < 0)
		why = prov_xstrdup(prov_error_last());
	if (p && !why) {
		size_t nw = 0;

		sopts.ctx = g;
		/* what must be in the mirror: each fix (both ends of A..B) and the deployed rev */
		wants = prov_xcalloc(2 * nfixes + 2, sizeof(*wants));
		ends = prov_xcalloc(nfixes + 1, sizeof(*ends));
		for (i = 0; i < nfixes; i++) {
			const char *dots = strstr(fixes[i], "..");

			if (dots) {
				ends[i] = prov_xstrndup(fixes[i], (size_t)(dots - fixes[i]));
				wants[nw++] = ends[i];
				wants[nw++] = dots + 2;
			} else {
				wants[nw++] = fixes[i];
			}
		}
		wants[nw++] = t.at;
		if (prov_sources_open(&repo, t.url, wants, nw, 0, &sopts) < 0 ||
		    prov_repo_resolve(&deployed, repo, t.at) < 0 ||
		    (t.patches_path && prov_sources_open(&patches, t.patches_path, NULL, 0, 0, &sopts) < 0))
			why = prov_xasprintf("repository %s is not available: %s", t.url, prov_error_last());
		if (!why)
			prov_repo_include_prereleases(repo, g->include_prereleases);
		if (!why && g->cache_dir && prov_cache_open(&cache, g->cache_dir) < 0)
			cache = NULL;
		bo.cache = cache;
		bo.patches_repo = patches;
		bo.patches_commit = t.patches_path ? t.patches_commit : NULL;
	}
	for (i = 0; i < nfixes; i++) {
		struct prov_fix_status *x = prov_crash_add_fix(c);
		char **commits = NULL;
		size_t ncommits = 0, k;
		struct prov_backport bp;

		x->fix = prov_xstrdup(fixes[i]);
		if (!p) {
			x->note = prov_xstrdup(component ? "no such component in this crash"
						    : "no component of the crash has a known commit; name one with --component");
			continue;
		}
		x->component = prov_xstrdup(p->name);
		if (why) {
			x->note = prov_xstrdup(why);
			continue;
		}
		x->deployed = prov_xstrdup(deployed);
		if (prov_backport_expand(&commits, &ncommits, repo, fixes[i], MAX_RANGE) < 0) {
			x->note = prov_xstrdup(prov_error_last());
			continue;
		}
		x->fix_commit = prov_xstrdup(commits[ncommits - 1]);
		error = prov_backport_check_all(&bp, repo, (const char *const *)commits, ncommits, deployed, &bo);
		for (k = 0; k < ncommits; k++)
			free(commits[k]);
		free(commits);
		if (error < 0) {
			x->note = prov_xstrdup(prov_error_last());
			error = 0;
			continue;
		}
		x->evidence = bp.evidence;
		x->nevidence = bp.nevidence;
		bp.evidence = NULL;
		bp.nevidence = 0;
		if (bp.undetermined) {
			/* neither shown present nor absent: could not be determined (exit 3) */
			x->reason = bp.reason;
			x->note = prov_xstrdup(bp.reason ? bp.reason : "undetermined");
			bp.reason = NULL;
			prov_backport_release(&bp);
			continue;
		}
		x->known = 1;
		x->included = bp.included;
		if (p->commit_is && !strcmp(p->commit_is, "approximate")) {
			/* the commit checked is near the deployed build, not it */
			x->known = 0;
			x->note = prov_fix_approximate_note(p, bp.included);
			x->included = 0;
		}
		x->how = bp.how;
		x->via = bp.via;
		x->first_tag = bp.first_tag;
		x->files_missing = bp.files_missing;
		x->commits_missing = bp.commits_missing;
		x->branch_tag = bp.branch_tag;
		x->branch = bp.branch;
		bp.via = bp.first_tag = bp.files_missing = bp.branch_tag = bp.branch = NULL;
		bp.commits_missing = NULL;
		prov_backport_release(&bp);
	}
	for (i = 0; ends && i < nfixes; i++)
		free(ends[i]);
	free(ends);
	free(wants);
	free(why);
	free(deployed);
	prov_repo_free(patches);
	prov_cache_free(cache);
	prov_repo_free(repo);
	return error;
}
