/* After the resolvers: origins to components, mirrors to commits and source lines. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buildpath.h"
#include "components.h"
#include "derive.h"
#include "srclocate.h"
#include "error.h"
#include "forge.h"
#include "mapping.h"
#include "pathrw.h"
#include "sources.h"
#include "srcimport.h"
#include "util.h"
#include "banned.h"

#define DEFAULT_SOURCE_FRAMES 5

struct comp_state {
	const struct prov_mapping *mapping;	/* the base, then &view */
	struct prov_mapping view;	/* the mapping for the component's version */
	char *mver;	/* the version refs and ranges see (prov_mapping_version) */
	const struct prov_origin *origin;	/* first origin that matched */
	struct prov_repo *repo;
	int mismatch;	/* a module of it is another build than the crash's */
	struct prov_mapping *owned;	/* a derived component's stand-in mapping */
	int single;	/* an exact commit read file by file (debuginfod, forge), no mirror */
	int forge;	/* single: the host has a single-file form (else the mirror comes last) */
	int mirror_failed;	/* single: the late mirror fetch failed (not tried again) */
};

static int is_full_hex(const char *s)
{
	size_t i;

	if (!s || strlen(s) != 40)
		return 0;
	for (i = 0; i < 40; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static void set_note(struct prov_component *comp, const char *msg)
{
	if (comp->note) {
		char *n = prov_xasprintf("%s; %s", comp->note, msg);

		free(comp->note);
		comp->note = n;
	} else {
		comp->note = prov_xstrdup(msg);
	}
}

static void set_commit_is(struct prov_component *comp, const char *how)
{
	free(comp->commit_is);
	comp->commit_is = prov_xstrdup(how);
}

/* Same repository, ignoring a trailing ".git" and "/". */
static int same_repo(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la && a[la - 1] == '/')
		la--;
	while (lb && b[lb - 1] == '/')
		lb--;
	if (la >= 4 && !strncmp(a + la - 4, ".git", 4))
		la -= 4;
	if (lb >= 4 && !strncmp(b + lb - 4, ".git", 4))
		lb -= 4;
	return la == lb && !strncasecmp(a, b, la);
}

/* "{source}" in a debian-source template: the origin's source package. */
static char *debian_source_name(const char *tmpl, const struct prov_origin *o)
{
	const char *src = o->source ? o->source : o->name;
	const char *at = strstr(tmpl, "{source}");

	if (!src)
		return NULL;
	if (!at)
		return prov_xstrdup(tmpl);
	return prov_xasprintf("%.*s%s%s", (int)(at - tmpl), tmpl, src, at + strlen("{source}"));
}

/*
 * A component whose source is not a git repository: the distribution's
 * source package (debian-source, for dpkg origins) or an upstream release
 * archive, imported into a local repository in the cache. 1 when the
 * mapping says so (done, or a note), 0 when it does not.
 */
static int resolve_imported(struct prov_component *comp, struct comp_state *cs, int *partial,
			    const struct prov_components_ctx *ctx)
{
	const struct prov_mapping *mp = cs->mapping;
	const struct prov_origin *o = cs->origin;
	struct prov_srcimport_stats st = { 0 };
	struct prov_srcimport_opts io = { ctx->ctx, &st };
	struct prov_sources_opts so = { ctx->ctx };
	struct prov_buf url = PROV_BUF_INIT;
	char *path = NULL, *commit = NULL, *src = NULL;
	int npatches = 0, error;

	if (mp->debian_source && o && o->kind && !strcmp(o->kind, "dpkg") &&
	    (src = debian_source_name(mp->debian_source, o))) {
		const char *ver = o->source_version ? o->source_version : o->version;
		const char *base = ctx->ctx->config ? prov_config_get(ctx->ctx->config, "sources.debianbaseurl") : NULL;

		if (!base)
			base = "https://deb.debian.org/debian";
		free(comp->repo);
		comp->repo = prov_xasprintf("%s (Debian source %s %s)", base, src, ver ? ver : "?");
		error = ver ? prov_srcimport_debian(&path, &commit, &npatches, base, src, ver, &io)
			    : prov_error_set(PROV_ENOTFOUND, "the package has no version");
		if (error == 0) {
			free(comp->found_by);
			comp->found_by = prov_xasprintf("Debian source with %d patch%s", npatches,
							npatches == 1 ? "" : "es");
			set_commit_is(comp, "exact");
			free(comp->ref);
			comp->ref = prov_xasprintf("refs/imports/%s/%s", src, ver);
		}
	} else if (mp->archive) {
		if (prov_mapping_expand_ref(&url, mp->archive, comp->version) < 0) {
			set_note(comp, prov_error_last());
			*partial = 1;
			goto cleanup;
		}
		free(comp->repo);
		comp->repo = prov_xstrdup(url.buf);
		error = prov_srcimport_archive(&path, &commit, url.buf, &io);
		if (error == 0) {
			free(comp->found_by);
			comp->found_by = prov_xstrdup("release archive");
			set_commit_is(comp, "exact");
			free(comp->ref);
			comp->ref = prov_xstrdup("refs/imports/archive");
		}
	} else {
		return 0;
	}
	if (error < 0 || prov_sources_open(&cs->repo, path, NULL, 0, 0, &so) < 0) {
		set_note(comp, prov_error_last());
		*partial = 1;
		goto cleanup;
	}
	free(comp->commit);
	comp->commit = commit;
	commit = NULL;
	free(comp->import_path);
	comp->import_path = prov_xstrdup(path);
	/* the upstream repository beside it: where fixcheck finds fixes */
	if (mp->repo) {
		size_t i;

		for (i = 0; i < mp->nrefs && !comp->upstream_ref; i++) {
			prov_buf_reset(&url);
			if (prov_mapping_expand_ref(&url, mp->refs[i], cs->mver) == 0)
				comp->upstream_ref = prov_xstrdup(url.buf);
		}
		prov_error_clear();
		if (comp->upstream_ref) {
			free(comp->upstream_repo);
			comp->upstream_repo = prov_xstrdup(mp->repo);
		}
	}
	if (st.cached)
		set_note(comp, "source import cached");
	else {
		char *n = prov_xasprintf("download %llu ms, import %llu ms",
					 (unsigned long long)st.download_ms,
					 (unsigned long long)st.import_ms);

		set_note(comp, n);
		free(n);
	}
cleanup:
	free(path);
	free(commit);
	free(src);
	prov_buf_release(&url);
	return 1;
}

/*
 * How a mapping ref found the commit: "mapping:tag" when it is a tag that
 * names the installed version, or one the mapping names literally (exact),
 * "mapping:guessed-tag" a tag that
 * does not (rocm-6.1 for 6.1.2), "mapping:branch-tip" a branch (its tip may
 * be later than the deployed build), "mapping:ref" anything else. is_tag
 * and is_branch from the mirror or from the remote's ref advertisement.
 */
static const char *ref_found_by(int is_tag, int is_branch, const char *ref, const char *version,
				int literal)
{
	/* a tag the mapping names outright (no placeholder) is its author's
	 * statement of what is deployed */
	if (is_tag)
		return literal || prov_ref_names_version(ref, version) ? "mapping:tag" : "mapping:guessed-tag";
	if (is_branch)
		return "mapping:branch-tip";
	return "mapping:ref";
}

/* The commit a mapping ref found; how sure it is, and a note when it is only near the build. */
static void take_ref(struct prov_component *comp, const char *want, const char *commit,
		     const char *found_by)
{
	free(comp->commit);
	comp->commit = prov_xstrdup(commit);
	free(comp->ref);
	comp->ref = prov_xstrdup(want);
	free(comp->found_by);
	comp->found_by = prov_xstrdup(found_by);
	set_commit_is(comp, !strcmp(found_by, "mapping:tag") ? "exact" : "approximate");
	if (strcmp(found_by, "mapping:tag")) {
		char *n = prov_xasprintf("%s '%s' is not the deployed build, only near it",
					 !strcmp(found_by, "mapping:branch-tip") ? "the tip of branch" :
					 !strcmp(found_by, "mapping:guessed-tag") ? "tag" : "ref", want);

		set_note(comp, n);
		free(n);
	}
}

/* None of the mapping's refs is in the repository. */
static void no_ref_note(struct prov_component *comp, char **wants, size_t nwants, const char *url,
			int *partial)
{
	struct prov_buf msg = PROV_BUF_INIT;
	size_t i;

	prov_buf_puts(&msg, "no ref ");
	for (i = 0; i < nwants; i++)
		prov_buf_printf(&msg, "%s'%s'", i ? ", " : "", wants[i]);
	prov_buf_printf(&msg, " in '%s'", url);
	set_note(comp, msg.buf);
	prov_buf_release(&msg);
	*partial = 1;
}

/* The commit the installed system recorded (direct_url.json, version.py, .git HEAD): exact. */
static void system_commit(struct prov_component *comp, const struct prov_origin *o)
{
	free(comp->commit);
	comp->commit = prov_xstrdup(o->commit);
	free(comp->found_by);
	comp->found_by = o->evidence ?
		prov_xasprintf("%s:%s", o->kind ? o->kind : "system", prov_basename(o->evidence)) :
		prov_xasprintf("%s", o->found_by ? o->found_by : (o->kind ? o->kind : "system"));
	set_commit_is(comp, "exact");
}

/*
 * An exact commit's lines without a mirror: 1 when the files are to be read
 * one by one (fetch.singleFile is not false, the host has a single-file
 * form or debuginfod is asked, and no mirror in the cache holds the
 * commit), 0 to go through the mirror as before (cs->repo is set when the
 * cache's mirror holds it).
 */
static int single_first(struct comp_state *cs, const char *url, const char *commit,
			const struct prov_components_ctx *ctx)
{
	const struct prov_config *cfg = ctx->ctx->config;
	struct prov_ctx off = *ctx->ctx;
	struct prov_sources_opts so = { &off };
	const char *kind = NULL, *want = commit;
	char *probe, *hex = NULL;

	if (cfg && prov_config_get_bool(cfg, "fetch.singlefile", 1) == 0)
		return 0;
	probe = prov_forge_file_url(&kind, cfg, url, commit, "probe");
	free(probe);
	if (!probe && !ctx->debuginfod_text)
		return 0;
	/* a mirror already here that holds the commit is cheaper still */
	off.offline = 1;
	if (prov_sources_open(&cs->repo, url, &want, 1, 0, &so) == 0) {
		if (prov_repo_resolve(&hex, cs->repo, commit) == 0) {
			free(hex);
			return 0;
		}
		prov_repo_free(cs->repo);
		cs->repo = NULL;
	}
	prov_error_clear();
	cs->single = 1;
	cs->forge = probe != NULL;
	return 1;
}

/*
 * A mapping's tag or branch turned into a commit without a mirror: when the
 * cache has no mirror of the repository and its crash lines can come file
 * by file (the host has a single-file form, or debuginfod is asked), the
 * remote's ref advertisement (prov_sources_ls_remote: one round trip, no
 * pack, or the cache's earlier answer) names the commit, in the order the
 * mirror would: the first ref that exists wins, and found_by and commit_is
 * mean what they mean with a mirror. 1 when that decided (the commit, or a
 * note: no such ref, or the remote did not answer), 0 to go through the
 * mirror as before (fetch.lsRemote=false, a ref only the mirror can
 * resolve such as v1~2 or a commit id, offline with nothing cached).
 */
static int refs_first(struct prov_component *comp, struct comp_state *cs, const char *url,
		      char **wants, const int *literal, size_t nwants, int *partial,
		      const struct prov_components_ctx *ctx)
{
	const struct prov_config *cfg = ctx->ctx->config;
	struct prov_sources_opts so = { ctx->ctx };
	struct prov_remote_ref *refs = NULL;
	const char *kind = NULL;
	char *probe = NULL;
	size_t i;
	int decided = 0, error;

	if (cfg && (prov_config_get_bool(cfg, "fetch.singlefile", 1) == 0 ||
		    prov_config_get_bool(cfg, "fetch.lsremote", 1) == 0))
		return 0;
	if (!strstr(url, "://") || prov_sources_have_mirror(url, &so))
		return 0;
	probe = prov_forge_file_url(&kind, cfg, url, "0000000000000000000000000000000000000000", "probe");
	if (!probe && !ctx->debuginfod_text)
		return 0;
	refs = prov_xcalloc(nwants, sizeof(*refs));
	if ((error = prov_sources_ls_remote(refs, url, (const char *const *)wants, nwants, &so)) < 0) {
		if (error == PROV_ENOTFOUND) {
			/* offline, nothing cached: the mirror's path says so */
			prov_error_clear();
			goto cleanup;
		}
		/* a fetch would ask the same remote the same thing first */
		set_note(comp, prov_error_last());
		if (!comp->ref)
			comp->ref = prov_xstrdup(wants[0]);
		*partial = 1;
		decided = 1;
		goto cleanup;
	}
	for (i = 0; i < nwants; i++) {
		if (refs[i].kind == PROV_REF_NONE)
			continue;
		if (refs[i].kind != PROV_REF_TAG && refs[i].kind != PROV_REF_BRANCH &&
		    refs[i].kind != PROV_REF_HEAD)
			goto cleanup;	/* the mirror's to resolve, in this order */
		take_ref(comp, wants[i], refs[i].commit,
			 ref_found_by(refs[i].kind == PROV_REF_TAG, refs[i].kind == PROV_REF_BRANCH,
				      wants[i], cs->mver, literal[i]));
		cs->single = 1;
		cs->forge = probe != NULL;
		decided = 1;
		goto cleanup;
	}
	no_ref_note(comp, wants, nwants, url, partial);
	decided = 1;
cleanup:
	free(probe);
	free(refs);
	return decided;
}

static void resolve_one(struct prov_component *comp, struct comp_state *cs, int *partial,
			const struct prov_components_ctx *ctx)
{
	const struct prov_mapping *mp = cs->mapping;
	const struct prov_origin *o = cs->origin;
	struct prov_sources_opts so = { ctx->ctx };
	struct prov_buf ref = PROV_BUF_INIT;
	char **wants = NULL;
	int *literal = NULL;	/* wants[i] came from a template without placeholders */
	size_t nwants = 0, i;
	const char *url = mp->repo;
	char *commit = NULL;

	/* a commit the system recorded still wins (below); otherwise the
	 * distribution's source or a release archive, when the mapping names one */
	if (!(o && is_full_hex(o->commit)) && (mp->debian_source || mp->archive) &&
	    resolve_imported(comp, cs, partial, ctx))
		goto cleanup;
	if (o && o->vcs_url) {
		if (!url && ctx->ctx->config &&
		    prov_config_get_bool(ctx->ctx->config, "fetch.trustsystemurls", 0) == 1 &&
		    prov_system_url_is_local(o->vcs_url))
			set_note(comp, "the system names a local repository; it is never opened (it would be this host's)");
		else if (!url && ctx->ctx->config &&
		    prov_config_get_bool(ctx->ctx->config, "fetch.trustsystemurls", 0) == 1)
			url = o->vcs_url;
		else if (!url)
			set_note(comp, "the system names a repository but fetch.trustSystemUrls is not set");
	}
	if (!url) {
		set_note(comp, "no repository for this component");
		*partial = 1;
		goto cleanup;
	}
	free(comp->repo);
	comp->repo = prov_xstrdup(url);
	/* a commit the installed system recorded wins over templates, when it is for this repo */
	if (o && is_full_hex(o->commit) && (!o->vcs_url || url == o->vcs_url || same_repo(url, o->vcs_url))) {
		wants = prov_xcalloc(1, sizeof(*wants));
		wants[nwants++] = prov_xstrdup(o->commit);
	} else {
		wants = prov_xcalloc(mp->nrefs + 1, sizeof(*wants));
		literal = prov_xcalloc(mp->nrefs + 1, sizeof(*literal));
		for (i = 0; i < mp->nrefs; i++) {
			if (prov_mapping_expand_ref(&ref, mp->refs[i], cs->mver) < 0) {
				set_note(comp, prov_error_last());
				continue;
			}
			literal[nwants] = !strchr(mp->refs[i], '{');
			wants[nwants++] = prov_xstrdup(ref.buf);
		}
		if (!nwants) {
			if (!mp->nrefs)
				set_note(comp, "the mapping gives no ref");
			*partial = 1;
			goto cleanup;
		}
	}
	if (o && is_full_hex(o->commit) && nwants == 1 && !strcmp(wants[0], o->commit) &&
	    single_first(cs, url, o->commit, ctx)) {
		system_commit(comp, o);
		goto cleanup;
	}
	if (literal && refs_first(comp, cs, url, wants, literal, nwants, partial, ctx))
		goto cleanup;
	if (!cs->repo && prov_sources_open(&cs->repo, url, (const char *const *)wants, nwants, 0, &so) < 0) {
		set_note(comp, prov_error_last());
		/* the ref the mapping asks for first, though nothing could check it (commit null) */
		if (literal && !comp->ref)
			comp->ref = prov_xstrdup(wants[0]);
		*partial = 1;
		goto cleanup;
	}
	if (o && is_full_hex(o->commit) && nwants == 1 && !strcmp(wants[0], o->commit)) {
		/* the installed system recorded it (direct_url.json, version.py, .git HEAD) */
		system_commit(comp, o);
		if (prov_repo_resolve(&commit, cs->repo, o->commit) < 0) {
			char *msg = prov_xasprintf("commit %.12s is not in '%s'", o->commit, url);

			set_note(comp, msg);
			free(msg);
			*partial = 1;
		} else {
			/* the mapping's tag for the version, when it is that very commit */
			for (i = 0; i < mp->nrefs && !comp->ref; i++) {
				char *hex = NULL;

				if (prov_mapping_expand_ref(&ref, mp->refs[i], comp->version) == 0 &&
				    prov_repo_resolve(&hex, cs->repo, ref.buf) == 0 &&
				    !strcmp(hex, o->commit))
					comp->ref = prov_xstrdup(ref.buf);
				free(hex);
			}
			prov_error_clear();
		}
		goto cleanup;
	}
	for (i = 0; i < nwants; i++) {
		if (prov_repo_resolve(&commit, cs->repo, wants[i]) == 0) {
			take_ref(comp, wants[i], commit,
				 ref_found_by(prov_repo_is_tag(cs->repo, wants[i]),
					      prov_repo_is_branch(cs->repo, wants[i]), wants[i], cs->mver,
					      literal && literal[i]));
			goto cleanup;
		}
	}
	no_ref_note(comp, wants, nwants, url, partial);
cleanup:
	for (i = 0; i < nwants; i++)
		free(wants[i]);
	free(wants);
	free(literal);
	free(commit);
	prov_buf_release(&ref);
}

static struct prov_module *frame_module(struct prov_crash *c, const struct prov_frame *f)
{
	struct prov_module *m = NULL;

	if (f->module)
		m = prov_crash_module_by_path(c, f->module);
	if (!m && f->has_pc)
		m = prov_crash_module_at(c, f->pc);
	/* "at FILE:LINE" with no module: the module the text reader inferred
	 * for FILE's package root (the same root, so the same package) */
	if (!m && !f->module && f->file) {
		size_t i, n = prov_buildpath_root_len(f->file);

		for (i = 0; n && i < c->nmodules; i++)
			if (c->modules[i].inferred && c->modules[i].path &&
			    prov_buildpath_root_len(c->modules[i].path) == n &&
			    !strncmp(c->modules[i].path, f->file, n))
				return &c->modules[i];
	}
	return m;
}

/* A repository opened in place: a path, not a URL (prov_sources_open's rule). */
static int repo_is_local(const char *url)
{
	const char *colon = url ? strchr(url, ':') : NULL;

	if (!url)
		return 0;
	if (strstr(url, "://"))
		return 0;	/* file:// too goes through a mirror */
	/* user@host:path is ssh */
	return !(colon && (!strchr(url, '/') || colon < strchr(url, '/')));
}

/*
 * An exact commit's file, the cheapest way first: debuginfod's source for
 * the module's build ID (the path as DWARF names it), then the forge's
 * single-file endpoint at the commit, or, for a host without one, the
 * mirror (fetched now, once: debuginfod did not have the file). *how names
 * the way that answered (sources[].fetched_by).
 */
static int read_single(struct prov_source_line **lines, size_t *nl, char **how,
		       struct prov_crash *c, const struct prov_frame *f, struct prov_component *comp,
		       struct comp_state *cs, const struct prov_components_ctx *ctx)
{
	const struct prov_module *m = frame_module(c, f);
	struct prov_sources_opts so = { ctx->ctx };
	const char *kind = NULL, *want = comp->commit;
	int error;

	if (ctx->debuginfod_text && m && m->build_id && f->file && f->file[0] == '/') {
		struct prov_buf text = PROV_BUF_INIT;

		error = ctx->debuginfod_text(&text, m->build_id, f->file, ctx->debuginfod_arg);
		if (error == 0)
			error = prov_source_cut_lines(lines, nl, text.buf ? text.buf : "", text.len,
						      f->repo_path, comp->commit, f->line, ctx->context);
		prov_buf_release(&text);
		if (error == 0) {
			*how = prov_xstrdup("debuginfod");
			return 0;
		}
		prov_error_clear();
	}
	if (cs->forge) {
		if ((error = prov_forge_read_lines(lines, nl, &kind, comp->repo, comp->commit,
						   f->repo_path, f->line, ctx->context, ctx->ctx)) < 0)
			return error;
		*how = prov_xasprintf("single-file:%s", kind ? kind : "custom");
		return 0;
	}
	if (!cs->repo && !cs->mirror_failed &&
	    prov_sources_open(&cs->repo, comp->repo, &want, 1, 0, &so) < 0) {
		cs->mirror_failed = 1;
		set_note(comp, prov_error_last());
		return PROV_ENOTFOUND;
	}
	if (!cs->repo)
		return prov_error_set(PROV_ENOTFOUND, "no mirror of '%s'", comp->repo);
	return prov_repo_read_lines(lines, nl, cs->repo, comp->commit, f->repo_path, f->line,
				    ctx->context);
}

static size_t component_index(const struct prov_crash *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ncomponents; i++)
		if (!strcmp(c->components[i].name, name))
			return i;
	return (size_t)-1;
}

/*
 * A derived component's repository and ref: the mirror when it exists (or,
 * with fetch.trustSystemUrls and not offline, fetched), then the version's
 * tag spellings. The component's found_by stays "derived:...".
 */
static void resolve_derived(struct prov_component *comp, struct comp_state *cs,
			    const struct prov_origin *o, const struct prov_components_ctx *ctx)
{
	char **cands = NULL, *tag = NULL, *commit = NULL, *msg = NULL;
	size_t ncands = 0;

	if (!comp->repo)
		return;	/* no repository to look in (cargo-auditable: its note says so) */
	if (is_full_hex(o->commit)) {
		/* the system recorded the commit (a git working tree's HEAD, a pip VCS install) */
		comp->commit = prov_xstrdup(o->commit);
		if (o->found_by && !strcmp(o->found_by, "go-buildinfo")) {
			/* the binary says which commit it was built from (vcs.revision) */
			set_commit_is(comp, o->commit_approximate ? "approximate" : "exact");
			msg = prov_xasprintf("module and commit recorded in '%s'%s",
					     o->upstream_evidence ? o->upstream_evidence : "?",
					     o->commit_approximate ? "; built from a tree with local "
					     "changes (vcs.modified is not false): near that commit, not it" : "");
		} else {
			msg = prov_xasprintf("upstream and commit recorded by '%s'",
					     o->upstream_evidence ? o->upstream_evidence : "?");
		}
		set_note(comp, msg);
		if (prov_derive_open(&cs->repo, comp->repo, NULL, 0, ctx->ctx) < 0)
			prov_error_clear();
		goto cleanup;
	}
	if (prov_tag_candidates(&cands, &ncands, o->source ? o->source : o->name, comp->repo,
				comp->version) < 0) {
		set_note(comp, prov_error_last());
		goto cleanup;
	}
	if (prov_derive_open(&cs->repo, comp->repo, cands, ncands, ctx->ctx) < 0) {
		msg = prov_xasprintf("upstream derived from '%s'; its tags (%s%s%s ...) were not "
				     "checked: %s", o->upstream_evidence ? o->upstream_evidence : "?",
				     cands[0], ncands > 1 ? ", " : "", ncands > 1 ? cands[1] : "",
				     prov_error_last());
		set_note(comp, msg);
		prov_error_clear();
		goto cleanup;
	}
	if (prov_tag_match(&tag, &commit, cs->repo, cands, ncands) == 0) {
		comp->ref = tag;
		comp->commit = commit;
		tag = commit = NULL;
		msg = prov_xasprintf("upstream derived from '%s'; tag '%s' names version %s",
				     o->upstream_evidence ? o->upstream_evidence : "?", comp->ref,
				     comp->version ? comp->version : "?");
	} else {
		msg = prov_xasprintf("upstream derived from '%s'; %s", o->upstream_evidence ?
				     o->upstream_evidence : "?", prov_error_last());
		prov_error_clear();
	}
	set_note(comp, msg);
cleanup:
	prov_tag_candidates_free(cands, ncands);
	free(tag);
	free(commit);
	free(msg);
}

/*
 * Modules no mapping names whose package names a repository in its own
 * metadata (origin->upstream_url, from the resolvers): a component named
 * after the source package, marked found_by "derived:..." (its commit is
 * looked for later, by resolve_derived).
 */
static void derive_components(struct prov_crash *c, struct comp_state **cs, size_t *cs_alloc,
			      size_t first)
{
	size_t i, k;

	for (i = 0; i < c->nmodules; i++) {
		struct prov_module *m = &c->modules[i];
		const struct prov_origin *o = m->origin;
		const char *name;
		struct prov_component *comp;
		int cargo;

		if (m->component || !o || o->guess || m->build_id_mismatch)
			continue;
		/* a Rust binary's .dep-v0 names its crate and version, never a repository */
		cargo = o->found_by && !strcmp(o->found_by, "cargo-auditable");
		if (!cargo && (!o->upstream_url || !o->upstream_by))
			continue;
		name = o->source ? o->source : o->name;
		if (!name)
			continue;
		k = component_index(c, name);
		if (k != (size_t)-1) {
			/* the same derived upstream: one component; anything else keeps its own */
			if (k >= first && (*cs)[k].owned && c->components[k].repo && o->upstream_url &&
			    !strcmp(c->components[k].repo, o->upstream_url)) {
				free(m->component);
				m->component = prov_xstrdup(name);
			}
			continue;
		}
		comp = prov_crash_add_component(c);
		comp->name = prov_xstrdup(name);
		/* Go's "(devel)": a build in the module's tree, not a version */
		comp->version = o->version && strcmp(o->version, "(devel)") ? prov_xstrdup(o->version) : NULL;
		comp->repo = prov_xstrdup_or_null(o->upstream_url);
		comp->found_by = prov_xstrdup(cargo ? o->found_by : o->upstream_by);
		if (cargo) {
			char *msg = prov_xasprintf("crate and version recorded in '%s' (.dep-v0); "
						   "cargo-auditable records no repository or commit",
						   m->path ? m->path : "?");

			set_note(comp, msg);
			free(msg);
		}
		k = c->ncomponents - 1;
		PROV_ALLOC_GROW(*cs, k + 1, *cs_alloc);
		memset(&(*cs)[k], 0, sizeof((*cs)[k]));
		(*cs)[k].owned = prov_xcalloc(1, sizeof(*(*cs)[k].owned));
		(*cs)[k].owned->name = prov_xstrdup(name);
		(*cs)[k].owned->repo = prov_xstrdup_or_null(o->upstream_url);
		(*cs)[k].mapping = (*cs)[k].owned;
		(*cs)[k].origin = o;
		free(m->component);
		m->component = prov_xstrdup(name);
	}
}

/*
 * Rewrites done in this run, by (component, file): the frames of many
 * threads share their files, and a rewrite is a pure function of the two.
 * Open addressing; at most REWRITE_MEMO_MAX answers kept.
 */
#define REWRITE_MEMO_MAX 65536

struct rewrite_entry {
	size_t k;	/* component index */
	char *file, *rp, *rule;	/* file NULL: an empty slot; rp NULL: no rule applied */
};

struct rewrite_memo {
	struct rewrite_entry *v;
	size_t nslots, n;
};

static size_t rewrite_hash(size_t k, const char *file)
{
	return (size_t)prov_hash_more(PROV_HASH_INIT ^ (uint64_t)k, file, strlen(file));
}

/* the slot of (k, file): its entry, or the empty slot it would take */
static struct rewrite_entry *rewrite_slot(const struct rewrite_memo *memo, size_t k,
					  const char *file)
{
	size_t s = rewrite_hash(k, file) & (memo->nslots - 1);

	while (memo->v[s].file && (memo->v[s].k != k || strcmp(memo->v[s].file, file)))
		s = (s + 1) & (memo->nslots - 1);
	return &memo->v[s];
}

static void rewrite_remember(struct rewrite_memo *memo, size_t k, const struct prov_frame *f)
{
	struct rewrite_entry *e;

	if (memo->n >= REWRITE_MEMO_MAX)
		return;
	if ((memo->n + 1) * 2 > memo->nslots) {
		struct rewrite_memo grown = { NULL, memo->nslots ? memo->nslots * 2 : 256, memo->n };
		size_t i;

		grown.v = prov_xcalloc(grown.nslots, sizeof(*grown.v));
		for (i = 0; i < memo->nslots; i++)
			if (memo->v[i].file)
				*rewrite_slot(&grown, memo->v[i].k, memo->v[i].file) = memo->v[i];
		free(memo->v);
		*memo = grown;
	}
	e = rewrite_slot(memo, k, f->file);
	e->k = k;
	e->file = prov_xstrdup(f->file);
	e->rp = prov_xstrdup_or_null(f->repo_path);
	e->rule = prov_xstrdup_or_null(f->path_rule);
	memo->n++;
}

static void rewrite_memo_release(struct rewrite_memo *memo)
{
	size_t i;

	for (i = 0; i < memo->nslots; i++) {
		free(memo->v[i].file);
		free(memo->v[i].rp);
		free(memo->v[i].rule);
	}
	free(memo->v);
}

static void rewrite_frame(struct prov_frame *f, const struct comp_state *cs,
			  const struct prov_component *comp, const struct prov_components_ctx *ctx,
			  size_t k, struct rewrite_memo *memo)
{
	struct prov_pathrw_ctx pc = { 0 };
	char *rp = NULL, *rule = NULL, *name;
	const struct rewrite_entry *e;

	if (!f->file || f->repo_path)
		return;
	if (memo->n && (e = rewrite_slot(memo, k, f->file))->file) {
		if (e->rp) {
			f->repo_path = prov_xstrdup(e->rp);
			f->path_rule = prov_xstrdup_or_null(e->rule);
		}
		return;
	}
	name = prov_pathrw_repo_name(comp->repo);
	pc.config = ctx->ctx->config;
	pc.path_prefixes = cs->mapping->path_prefixes;
	pc.npath_prefixes = cs->mapping->npath_prefixes;
	pc.subdir = cs->mapping->subdir;
	pc.subdir_paths = cs->mapping->subdir_paths;
	pc.repo_name = name;
	if (prov_pathrw_rewrite(&rp, &rule, f->file, NULL, &pc) == 0) {
		f->repo_path = rp;
		f->path_rule = rule;
	}
	rewrite_remember(memo, k, f);
	free(name);
}

/* A relative source path a tree could hold: no "..", no "." component, not empty. */
static int relative_path_ok(const char *p)
{
	const char *s = p;

	if (!p || !*p || *p == '/' || strlen(p) > 4096)
		return 0;
	while (*s) {
		size_t n = strcspn(s, "/");

		if (!n || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		s += n;
		if (*s == '/')
			s++;
	}
	return 1;
}

#define MAX_RELATIVE_LOOKUPS 256	/* distinct relative paths looked up in the trees */

struct relative_seen {
	char *file;
	size_t comp;	/* the one component whose tree holds it, or -1 */
	char *repo_path;
};

/* The components (from first) whose tree at their commit holds file: how many, and the first. */
static size_t relative_lookup(struct relative_seen *e, const struct prov_crash *c,
			      const struct comp_state *cs, size_t first, struct prov_buf *probe)
{
	size_t k, nhit = 0;
	char *path;
	int r;

	e->comp = (size_t)-1;
	for (k = first; k < c->ncomponents; k++) {
		const char *sub = c->components[k].subdir;

		if (!cs[k].repo || !c->components[k].commit)
			continue;
		path = sub && *sub ? prov_xasprintf("%s/%s", sub, e->file) : prov_xstrdup(e->file);
		prov_buf_reset(probe);
		r = prov_repo_read_blob(probe, cs[k].repo, c->components[k].commit, path, 0);
		if ((r == 0 || r == PROV_ELIMIT) && !nhit++) {
			e->comp = k;
			e->repo_path = path;
			path = NULL;
		}
		free(path);
	}
	if (nhit > 1) {
		e->comp = (size_t)-1;
		free(e->repo_path);
		e->repo_path = NULL;
	}
	return nhit;
}

/*
 * "at src/x.c:12" (a relative path, no module): the component whose tree
 * at its commit holds that path (under its subdir, as mapped), when exactly
 * one does; in two or more, none, and a warning says so.
 */
static void place_relative(struct prov_crash *c, const struct comp_state *cs, size_t first)
{
	struct prov_buf probe = PROV_BUF_INIT;
	struct relative_seen *seen = NULL, *e;
	size_t nseen = 0, seen_alloc = 0, i, j, k, nhit;

	for (i = 0; i < c->nthreads; i++)
		for (j = 0; j < c->threads[i].nframes; j++) {
			struct prov_frame *f = &c->threads[i].frames[j];

			if (f->component || f->module || f->python || !relative_path_ok(f->file))
				continue;
			for (k = 0; k < nseen && strcmp(seen[k].file, f->file); k++)
				;
			if (k == nseen) {
				if (nseen >= MAX_RELATIVE_LOOKUPS)
					continue;
				PROV_ALLOC_GROW(seen, nseen + 1, seen_alloc);
				e = &seen[nseen++];
				memset(e, 0, sizeof(*e));
				e->file = prov_xstrdup(f->file);
				nhit = relative_lookup(e, c, cs, first, &probe);
				if (nhit > 1)
					prov_warn("frame #%d: '%s' is in the trees of %zu components: "
						  "its component could not be determined", f->index, f->file, nhit);
			}
			e = &seen[k];
			if (e->comp == (size_t)-1)
				continue;
			f->component = prov_xstrdup(c->components[e->comp].name);
			free(f->repo_path);
			f->repo_path = prov_xstrdup(e->repo_path);
			free(f->path_rule);
			f->path_rule = prov_xstrdup("relative-in-tree");
		}
	for (k = 0; k < nseen; k++) {
		free(seen[k].file);
		free(seen[k].repo_path);
	}
	free(seen);
	prov_buf_release(&probe);
}

/* Each excerpt says how sure its commit is, and how its file was obtained. */
static void label_sources(struct prov_crash *c, const struct comp_state *cs, size_t first)
{
	size_t j;

	/* each excerpt says how sure its commit is */
	for (j = 0; j < c->nsources; j++) {
		struct prov_source *s = &c->sources[j];
		const struct prov_component *p = s->component ? prov_crash_component(c, s->component) : NULL;

		if (p && p->commit_is && !s->commit_is && s->commit && p->commit &&
		    !strcmp(s->commit, p->commit))
			s->commit_is = prov_xstrdup(p->commit_is);
	}
	/* a component's repository: mirror, local repository, imported source */
	for (j = 0; j < c->nsources; j++) {
		struct prov_source *s = &c->sources[j];
		size_t k = s->component ? component_index(c, s->component) : (size_t)-1;

		if (s->fetched_by || k == (size_t)-1 || k < first || !cs[k].repo)
			continue;
		s->fetched_by = prov_xstrdup(c->components[k].import_path ? "source-import" :
					     repo_is_local(c->components[k].repo) ? "repository" : "mirror");
	}
}

/* components[].in_crash_chain from their modules' (marked here, prov_crash_mark_chain) */
/* 1 when a frame of the crash chain is a relative `at FILE:LINE` with no
 * module: any component's tree may hold it (place_relative), so none is
 * left out of the chain on a guess. */
static int chain_has_relative(const struct prov_crash *c)
{
	size_t i, j;

	for (i = 0; i < c->nthreads; i++) {
		if (!prov_crash_thread_in_chain(c, i))
			continue;
		for (j = 0; j < c->threads[i].nframes; j++) {
			const struct prov_frame *f = &c->threads[i].frames[j];

			if (!f->component && !f->module && !f->python && relative_path_ok(f->file))
				return 1;
		}
	}
	return 0;
}

static void mark_chain_components(struct prov_crash *c, size_t first)
{
	size_t i, k;
	int all;

	prov_crash_mark_chain(c);	/* as the pipeline did; callers need not */
	all = chain_has_relative(c);
	for (i = first; all && i < c->ncomponents; i++)
		c->components[i].in_crash_chain = 1;
	for (i = 0; i < c->nmodules; i++) {
		if (!c->modules[i].in_crash_chain || !c->modules[i].component)
			continue;
		k = component_index(c, c->modules[i].component);
		if (k != (size_t)-1 && k >= first)
			c->components[k].in_crash_chain = 1;
	}
}

/* a component no frame of the crash chain is in: named, not looked up */
static void off_chain_note(struct prov_component *comp)
{
	if (!comp->note)
		set_note(comp, "not in the crash chain: its commit was not looked up "
			 "(--all-components looks up every component)");
}

/* Components [first, n) to commits: mapped ones up to nmapped, derived ones
 * after; unless all are asked for, only those of the crash chain. */
static void resolve_commits(struct prov_crash *c, struct comp_state *cs, size_t first, size_t nmapped,
			    int *partial, const struct prov_components_ctx *ctx)
{
	size_t i;

	for (i = first; i < c->ncomponents; i++) {
		if (!ctx->all_components && !c->components[i].in_crash_chain) {
			off_chain_note(&c->components[i]);
			continue;
		}
		if (i >= nmapped) {
			resolve_derived(&c->components[i], &cs[i], cs[i].origin, ctx);
		} else if (cs[i].mismatch) {
			*partial = 1;
		} else {
			resolve_one(&c->components[i], &cs[i], partial, ctx);
		}
	}
}

int prov_components_resolve(struct prov_crash *c, int *partial,
			    const struct prov_components_ctx *ctx)
{
	struct prov_mappings maps;
	struct comp_state *cs = NULL;
	size_t cs_alloc = 0, first = c->ncomponents, nmapped, i, j;
	int dummy = 0, error, max_frames, nsrc = 0;
	struct prov_thread *t;
	struct rewrite_memo memo = { NULL, 0, 0 };
	struct prov_module *last = NULL;

	if (!partial)
		partial = &dummy;
	prov_mappings_init(&maps);
	if ((error = prov_mappings_load_all(&maps, ctx->mapping_files)) < 0)
		goto cleanup;

	/* modules -> components */
	for (i = 0; i < c->nmodules; i++) {
		struct prov_module *m = &c->modules[i];
		const struct prov_mapping *mp = prov_mappings_match(&maps, m->path, m->origin);
		struct prov_component *comp;
		size_t k;

		if (!mp)
			continue;
		k = component_index(c, mp->name);
		if (k == (size_t)-1) {
			comp = prov_crash_add_component(c);
			comp->name = prov_xstrdup(mp->name);
			comp->version = prov_xstrdup_or_null(m->origin ? m->origin->version : NULL);
			comp->subdir = prov_xstrdup_or_null(mp->subdir);
			comp->repo = prov_xstrdup_or_null(mp->repo);
			comp->found_by = prov_xstrdup("mapping");
			k = c->ncomponents - 1;
			PROV_ALLOC_GROW(cs, k + 1, cs_alloc);
			memset(&cs[k], 0, sizeof(cs[k]));
			cs[k].mapping = mp;
			cs[k].origin = m->origin;
		} else if (k >= first && !cs[k].origin && m->origin) {
			cs[k].origin = m->origin;
			if (!c->components[k].version)
				c->components[k].version = prov_xstrdup_or_null(m->origin->version);
		}
		if (m->build_id_mismatch && !cs[k].mismatch) {
			char *n = prov_xasprintf("installed %s %s does not match the crash (another "
						 "build ID): no commit or source is taken from it; give "
						 "--sysroot or install the matching package",
						 m->origin && m->origin->name ? m->origin->name : m->path,
						 m->origin && m->origin->version ? m->origin->version : "?");

			cs[k].mismatch = 1;
			set_note(&c->components[k], n);
			free(n);
		}
		free(m->component);
		m->component = prov_xstrdup(mp->name);
	}
	/* the mapping for each component's version (cs moves again only for derived ones) */
	for (i = first; i < c->ncomponents; i++) {
		struct prov_component *comp = &c->components[i];

		cs[i].mver = prov_mapping_version(cs[i].mapping, comp->version);
		prov_mapping_select(&cs[i].view, cs[i].mapping, cs[i].mver);
		cs[i].mapping = &cs[i].view;
		free(comp->subdir);
		comp->subdir = prov_xstrdup_or_null(cs[i].view.subdir);
		free(comp->repo);
		comp->repo = prov_xstrdup_or_null(cs[i].view.repo);
		if (!cs[i].view.variant && cs[i].view.nvariants && !comp->version)
			set_note(comp, "the version is unknown: the mapping's default repository is used");
	}
	/* modules without a mapping: an upstream their package's metadata names
	 * (cs may move: the mapped components point at their own view again) */
	nmapped = c->ncomponents;
	derive_components(c, &cs, &cs_alloc, first);
	for (i = first; i < nmapped; i++)
		cs[i].mapping = &cs[i].view;

	/* frames -> components and repository paths */
	for (i = 0; i < c->nthreads; i++) {
		for (j = 0; j < c->threads[i].nframes; j++) {
			struct prov_frame *f = &c->threads[i].frames[j];
			struct prov_module *m;
			size_t k;

			/* the previous frame's module when the path is the same (a deep recursion) */
			if (last && f->module && !strcmp(f->module, last->path))
				m = last;
			else if ((m = frame_module(c, f)) && f->module && m->path && !strcmp(f->module, m->path))
				last = m;
			if (!m || !m->component)
				continue;
			k = component_index(c, m->component);
			if (k == (size_t)-1 || k < first)
				continue;
			free(f->component);
			f->component = prov_xstrdup(m->component);
			rewrite_frame(f, &cs[k], &c->components[k], ctx, k, &memo);
		}
	}
	rewrite_memo_release(&memo);
	/* all that is known without the network, before it is asked */
	if (ctx->on_known)
		ctx->on_known(c, ctx->on_known_arg);

	/* components -> commits; never for an installed build that is not the crashed one,
	 * and, unless all are asked for, only for the crash chain's */
	mark_chain_components(c, first);
	resolve_commits(c, cs, first, nmapped, partial, ctx);
	place_relative(c, cs, first);

	/* source excerpts for the top frames of the crashing thread */
	max_frames = ctx->max_source_frames > 0 ? ctx->max_source_frames : DEFAULT_SOURCE_FRAMES;
	t = prov_crash_crashed_thread(c);
	if (!t && c->nthreads == 1)
		t = &c->threads[0];
	for (j = 0; t && j < t->nframes && nsrc < max_frames; j++) {
		struct prov_frame *f = &t->frames[j];
		struct prov_source_line *lines = NULL;
		struct prov_source *s;
		struct prov_component *comp;
		char *how = NULL;
		size_t k, nl = 0;

		if (!f->component || !f->repo_path || f->line < 1)
			continue;
		k = component_index(c, f->component);
		if (k == (size_t)-1 || k < first)
			continue;
		comp = &c->components[k];
		if ((!cs[k].repo && !cs[k].single) || !comp->commit)
			continue;
		if (cs[k].single ? read_single(&lines, &nl, &how, c, f, comp, &cs[k], ctx) :
		    prov_repo_read_lines(&lines, &nl, cs[k].repo, comp->commit, f->repo_path,
					 f->line, ctx->context) < 0) {
			*partial = 1;
			prov_warn("frame #%d: %s", f->index, prov_error_last());
			continue;
		}
		s = prov_crash_add_source(c);
		s->fetched_by = how;
		how = NULL;
		s->component = prov_xstrdup(comp->name);
		s->commit = prov_xstrdup(comp->commit);
		s->path = prov_xstrdup(f->repo_path);
		s->line = f->line;
		s->frame_index = f->index;
		s->lines = lines;
		s->nlines = nl;
		nsrc++;
	}
	/* frames with a function but no line (stripped): the definition by name, a guess */
	for (j = 0, nsrc = 0; t && j < t->nframes && nsrc < max_frames; j++) {
		struct prov_frame *f = &t->frames[j];
		size_t k;

		if (!f->component || f->line > 0 || !f->function || f->python)
			continue;
		k = component_index(c, f->component);
		if (k == (size_t)-1 || k < first || !cs[k].repo || !c->components[k].commit)
			continue;
		if (prov_srclocate_frame(c, f, cs[k].repo, &c->components[k], ctx->ctx->cache_dir,
					 ctx->context) < 0)
			prov_warn("frame #%d: %s", f->index, prov_error_last());
		else
			nsrc++;
	}
	label_sources(c, cs, first);
	error = 0;
cleanup:
	for (i = first; cs && i < c->ncomponents; i++) {
		prov_repo_free(cs[i].repo);
		if (cs[i].owned) {
			free(cs[i].owned->name);
			free(cs[i].owned->repo);
			free(cs[i].owned);
		}
		free(cs[i].mver);
	}
	free(cs);
	prov_mappings_release(&maps);
	return error;
}
