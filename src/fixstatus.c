#include <stdlib.h>
#include <string.h>

#include "backport.h"
#include "error.h"
#include "fixstatus.h"
#include "sources.h"
#include "util.h"
#include "banned.h"

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

int prov_fix_status_check(struct prov_crash *c, const char *const *fixes, size_t nfixes,
			  const char *component, struct prov_global *g, int offline)
{
	const struct prov_component *p = prov_fix_status_component(c, component);
	struct prov_sources_opts sopts = { 0 };
	struct prov_repo *repo = NULL;
	struct prov_cache *cache = NULL;
	struct prov_backport_opts bo = { 0 };
	size_t i;
	int error = 0;

	if (p && p->commit && p->repo) {
		sopts.config = g->config;
		sopts.cache_dir = g->cache_dir;
		sopts.offline = offline;
		if (prov_sources_open(&repo, p->repo, fixes, nfixes, 0, &sopts) < 0)
			repo = NULL;
		if (repo && g->cache_dir && prov_cache_open(&cache, g->cache_dir) < 0)
			cache = NULL;
		bo.cache = cache;
	}
	for (i = 0; i < nfixes; i++) {
		struct prov_fix_status *x = prov_crash_add_fix(c);
		char *hex = NULL;
		struct prov_backport bp;

		x->fix = prov_xstrdup(fixes[i]);
		if (!p) {
			x->note = prov_xstrdup(component ? "no such component in this crash"
						    : "no component of the crash has a known commit; name one with --component");
			continue;
		}
		x->component = prov_xstrdup(p->name);
		if (!p->commit || !p->repo) {
			x->note = prov_xasprintf("the deployed commit of %s is not known", p->name);
			continue;
		}
		x->deployed = prov_xstrdup(p->commit);
		if (!repo) {
			x->note = prov_xasprintf("repository %s is not available: %s", p->repo,
						 prov_error_last());
			continue;
		}
		if (prov_repo_resolve(&hex, repo, fixes[i]) < 0) {
			x->note = prov_xstrdup(prov_error_last());
			continue;
		}
		x->fix_commit = hex;
		if ((error = prov_backport_check(&bp, repo, hex, p->commit, &bo)) < 0) {
			x->note = prov_xstrdup(prov_error_last());
			error = 0;
			continue;
		}
		x->known = 1;
		x->included = bp.included;
		x->how = bp.how;
		x->via = bp.via;
		x->first_tag = bp.first_tag;
		x->files_missing = bp.files_missing;
		x->branch_tag = bp.branch_tag;
		x->branch = bp.branch;
		bp.via = bp.first_tag = bp.files_missing = bp.branch_tag = bp.branch = NULL;
		prov_backport_release(&bp);
	}
	prov_cache_free(cache);
	prov_repo_free(repo);
	return error;
}
