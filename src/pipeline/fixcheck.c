/*
 * `provenance fixcheck`: is each fix in what was deployed, and how. The
 * deployed build is --repo/--at (plus a Debian source package's or an RPM
 * spec's patches), or the component of a crash (INPUT --component, through
 * prov_pipeline_run). Errors come back as the code the exit status needs
 * (PROV_EINPUT: 2, PROV_EUNKNOWN: 3), the message stored.
 */
#include <stdlib.h>
#include <string.h>

#include "backport.h"
#include "error.h"
#include "fixstatus.h"
#include "pipeline.h"
#include "rpmspec.h"
#include "sources.h"
#include "srcimport.h"
#include "util.h"
#include "banned.h"

/* What a run holds open; released at the end. */
struct fixcheck_run {
	const struct prov_fixcheck_opts *o;
	struct prov_sources_opts so;
	struct prov_crash *crash;
	struct prov_repo *repo, *patches_repo;
	char *patches_path, *patches_commit, *import_label;
	struct prov_rpm_patches rpm;
	struct prov_cache *cache;
	const char *url, *at;
	const struct prov_component *approx;	/* INPUT --component with an approximate commit */
};

/* INPUT --component NAME: the repository and deployed commit from the crash. */
static int target_from_crash(struct fixcheck_run *r)
{
	const struct prov_fixcheck_opts *o = r->o;
	struct prov_pipeline_opts po = { 0 };
	const struct prov_component *comp;
	struct prov_fix_target target;
	int error;

	po.sysroot = o->sysroot;
	po.image = o->image;
	po.mappings = o->mappings;
	po.ctx = o->ctx;
	if ((error = prov_pipeline_run(&r->crash, NULL, o->input, &po)) < 0)
		return error;
	if (!(comp = prov_crash_component(r->crash, o->component)))
		return prov_error_set(PROV_EINPUT, "no component '%s' in '%s'", o->component, o->input);
	if (!comp->repo || !comp->commit)
		return prov_error_set(PROV_EUNKNOWN, "component '%s' has no %s%s%s", o->component,
				      comp->repo ? "resolved commit" : "repository",
				      comp->note ? ": " : "", comp->note ? comp->note : "");
	if (comp->commit_is && !strcmp(comp->commit_is, "approximate"))
		r->approx = comp;
	/* an imported source: the upstream repository its mapping names, plus the import's patches */
	if ((error = prov_fix_target(&target, comp)) < 0)
		return error;
	r->url = target.url;
	r->at = target.at;
	if (target.patches_path) {
		r->import_label = prov_xasprintf("%s + %s", target.at,
						 comp->found_by ? comp->found_by : "import");
		if (prov_sources_open(&r->patches_repo, target.patches_path, NULL, 0, 0, &r->so) < 0)
			return PROV_EUNKNOWN;
		r->patches_commit = prov_xstrdup(target.patches_commit);
	}
	return 0;
}

/* The repository, fetched only when something asked for is missing (or --at is a branch). */
static int open_repo(struct fixcheck_run *r)
{
	const struct prov_fixcheck_opts *o = r->o;
	const char **wants = prov_xcalloc(2 * o->nfixes + 1, sizeof(*wants));
	char **parts = prov_xcalloc(2 * o->nfixes + 1, sizeof(*parts));
	size_t i, nw = 0, np = 0;
	int error;

	for (i = 0; i < o->nfixes; i++) {
		const char *dots = strstr(o->fixes[i], "..");

		if (dots) {	/* A..B: both ends */
			parts[np] = prov_xstrndup(o->fixes[i], (size_t)(dots - o->fixes[i]));
			wants[nw++] = parts[np++];
			wants[nw++] = dots + 2;
		} else {
			wants[nw++] = o->fixes[i];
		}
	}
	wants[nw++] = r->at;
	error = prov_sources_open(&r->repo, r->url, wants, nw, 0, &r->so);
	if (error == 0)
		prov_repo_include_prereleases(r->repo, o->ctx->include_prereleases);
	free(wants);
	for (i = 0; i < np; i++)
		free(parts[i]);
	free(parts);
	/* a path that is no repository is bad input; a fetch that failed or
	 * no mirror offline: could not determine */
	return error < 0 ? (error == PROV_EINPUT ? PROV_EINPUT : PROV_EUNKNOWN) : 0;
}

/* --debian-source and --rpm-spec: the distribution's patches on top of --at. */
static int open_patches(struct fixcheck_run *r)
{
	const struct prov_fixcheck_opts *o = r->o;
	int error;

	if (o->debsrc) {
		struct prov_srcimport_opts io = { o->ctx, NULL };
		const struct prov_config *cfg = o->ctx->config;
		const char *base = cfg ? prov_config_get(cfg, "sources.debianbaseurl") : NULL;
		char *src = prov_xstrndup(o->debsrc, strcspn(o->debsrc, "="));

		error = prov_srcimport_debian(&r->patches_path, &r->patches_commit, NULL,
					      base ? base : "https://deb.debian.org/debian", src,
					      strchr(o->debsrc, '=') + 1, &io);
		free(src);
		if (error == 0)
			error = prov_sources_open(&r->patches_repo, r->patches_path, NULL, 0, 0, &r->so);
		if (error < 0)
			return error == PROV_EINPUT || error == PROV_ELIMIT ? error : PROV_EUNKNOWN;
	}
	if (o->rpmspec && (error = prov_rpm_patches_read(&r->rpm, o->rpmspec)) < 0)
		return error == PROV_ELIMIT ? PROV_EINPUT : error;
	return 0;
}

/* The commits of fixes[first..last) into one item, without duplicates. */
static int expand_item(struct prov_fixcheck_item *it, struct prov_repo *repo,
		       const char *const *fixes, size_t first, size_t last)
{
	struct prov_buf label = PROV_BUF_INIT;
	size_t f, k, alloc = 0;
	int error = 0;

	for (f = first; f < last && !error; f++) {
		char **v = NULL;
		size_t nv = 0;

		if ((error = prov_backport_expand(&v, &nv, repo, fixes[f], PROV_FIXCHECK_MAX_RANGE)) < 0) {
			/* unknown in a mirror that could not be refreshed: maybe upstream has it */
			error = error == PROV_EINPUT ? PROV_EINPUT :
				prov_repo_stale(repo) ? PROV_EUNKNOWN : PROV_EINPUT;
			break;
		}
		for (k = 0; k < nv; k++) {
			size_t d;

			for (d = 0; d < it->ncommits && strcmp(it->commits[d], v[k]); d++)
				;
			if (d < it->ncommits || error) {
				free(v[k]);
				continue;
			}
			if (it->ncommits >= PROV_FIXCHECK_MAX_FIXES) {
				free(v[k]);
				error = prov_error_set(PROV_EINPUT, "one fix of more than %d commits",
						       PROV_FIXCHECK_MAX_FIXES);
				continue;
			}
			PROV_ALLOC_GROW(it->commits, it->ncommits + 1, alloc);
			it->commits[it->ncommits++] = v[k];
		}
		free(v);
		if (label.len)
			prov_buf_putc(&label, ' ');
		prov_buf_puts(&label, fixes[f]);
	}
	if (error < 0) {
		prov_buf_release(&label);
		return error;
	}
	it->arg = prov_buf_detach(&label);
	it->fix = prov_xstrdup(it->commits[it->ncommits - 1]);
	return 0;
}

/* Each fix (or all of them as one, --one-fix) against the deployed commit. */
static int check_items(struct prov_fixcheck *out, struct fixcheck_run *r)
{
	const struct prov_fixcheck_opts *o = r->o;
	struct prov_backport_opts bo = { 0 };
	size_t i;
	int error;

	if (prov_cache_open(&r->cache, o->ctx->cache_dir) < 0) {
		prov_warn("%s; patch-ids are not kept", prov_error_last());
		r->cache = NULL;
	}
	bo.cache = r->cache;
	bo.patches_repo = r->patches_repo;
	bo.patches_commit = r->patches_commit;
	bo.extra_patch_names = r->rpm.names;
	bo.extra_patch_ids = r->rpm.ids;
	bo.nextra_patches = r->rpm.n;
	bo.extra_patch_texts = r->rpm.texts;
	bo.extra_patch_notes = r->rpm.notes;
	if (prov_repo_resolve(&out->deployed, r->repo, r->at) < 0)
		return o->input || prov_repo_stale(r->repo) ? PROV_EUNKNOWN : PROV_EINPUT;
	out->at_label = r->import_label ? prov_xstrdup(r->import_label) :
			o->input ? prov_xstrndup(out->deployed, 12) : prov_xstrdup(r->at);
	out->n = o->one_fix ? 1 : o->nfixes;
	out->items = prov_xcalloc(out->n, sizeof(*out->items));
	for (i = 0; i < out->n; i++) {
		struct prov_fixcheck_item *it = &out->items[i];

		if ((error = expand_item(it, r->repo, o->fixes, o->one_fix ? 0 : i,
					 o->one_fix ? o->nfixes : i + 1)) < 0)
			return error;
		if ((error = prov_backport_check_all(&it->bp, r->repo, (const char *const *)it->commits,
						     it->ncommits, out->deployed, &bo)) < 0)
			return error;
		if (r->approx) {
			out->approximate = 1;
			it->note = prov_fix_approximate_note(r->approx, it->bp.included);
		}
		if (it->bp.undetermined)
			out->any_unknown = 1;
		else if (!it->bp.included)
			out->any_missing = 1;
	}
	return 0;
}

int prov_pipeline_fixcheck(struct prov_fixcheck *out, const struct prov_fixcheck_opts *o)
{
	struct fixcheck_run r;
	int error;

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	out->component = o->component;
	out->debsrc = o->debsrc;
	out->rpmspec = o->rpmspec;
	r.o = o;
	r.so.ctx = o->ctx;
	r.url = o->repo;
	r.at = o->at;
	if ((o->input && (error = target_from_crash(&r)) < 0) ||
	    (error = open_repo(&r)) < 0 ||
	    (error = open_patches(&r)) < 0 ||
	    (error = check_items(out, &r)) < 0)
		goto cleanup;
	error = 0;
cleanup:
	prov_repo_free(r.patches_repo);
	free(r.patches_path);
	free(r.patches_commit);
	free(r.import_label);
	prov_rpm_patches_release(&r.rpm);
	prov_cache_free(r.cache);
	prov_repo_free(r.repo);
	prov_crash_free(r.crash);
	return error;
}
