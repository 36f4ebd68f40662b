#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backport.h"
#include "cmd.h"
#include "error.h"
#include "fixstatus.h"
#include "json.h"
#include "model.h"
#include "pipeline.h"
#include "rpmspec.h"
#include "sources.h"
#include "srcimport.h"
#include "util.h"
#include "banned.h"

#define MAX_FIXES 4096
#define MAX_MAPPINGS 256

static const char help[] =
	"Is each COMMIT (a fix) in what was deployed, and how?\n"
	"\n"
	"  COMMIT            a revision, or A..B: one fix made of the commits in B\n"
	"                    and not in A (as git log A..B; merges left out)\n"
	"  --one-fix         all COMMITs (and ranges) together are one fix: it is in\n"
	"                    when every commit is; 'partial' names the missing ones\n"
	"  --repo URL|PATH   the repository (a local path is used in place; a URL is\n"
	"                    fetched into the mirror cache, url.<base>.insteadOf applied)\n"
	"  --at REV          the deployed revision: a commit, tag or branch\n"
	"  --debian-source SOURCE=VERSION\n"
	"                    the deployed build is REV plus the patches of this Debian\n"
	"                    source package (downloaded from sources.debianBaseUrl)\n"
	"  --rpm-spec SPEC   the deployed build is REV plus the Patch:/PatchN: files\n"
	"                    of this RPM spec, read from beside it (an unpacked source\n"
	"                    RPM or a dist-git checkout)\n"
	"  INPUT --component NAME\n"
	"                    take the deployed commit and repository of component NAME\n"
	"                    from a crash (core or backtrace), as 'provenance resolve' finds it;\n"
	"                    for an imported source (debian-source, archive) the fixes\n"
	"                    are looked up in the upstream repository its mapping names\n"
	"                    beside it ('repo' and 'ref'), with the package's patches\n"
	"  --sysroot DIR     the crashed system's root (INPUT mode)\n"
	"  --mapping FILE    an extra mapping file (repeatable; INPUT mode)\n"
	"  --offline         never fetch; use the mirrors in the cache\n"
	"  --format text|json\n"
	"\n"
	"A fix is in the deployed build by ancestry ('ancestor'), as a commit on its\n"
	"history that says '(cherry picked from commit FIX)' or has the fix's\n"
	"patch-id (git patch-id --stable), or whose changes cover every file of the\n"
	"fix ('cherry-pick'), as a Debian or RPM patch ('distribution-patch'), with\n"
	"its effect in the deployed tree but not byte-identical ('adapted': context\n"
	"drifted, lines changed a little, test hunks not shipped); or not: some hunks\n"
	"shown absent ('partial'), every hunk absent ('missing'). Each hunk is looked\n"
	"for in the deployed tree (REV plus the distribution's patches) as 'git apply\n"
	"--check --reverse' would, whitespace aside, through renames: present-exact,\n"
	"present-changed-lines, absent, test-only or unknown (JSON evidence[], with\n"
	"the patch carrying it; DEP-3 Origin/Applied-Upstream headers naming the fix\n"
	"in named_by). A hunk neither shown present nor absent (code rewritten):\n"
	"UNKNOWN, exit 3, never 'not included'.\n"
	"\n"
	"Text output: one line per COMMIT, 'YES <fix> is in <rev> (first in tag T):\n"
	"<how>', 'PARTIAL ...' or 'NO <fix> is not in <rev> ...' with the first tag\n"
	"containing it and, when a branch holding <rev> got it later by cherry-pick,\n"
	"'upgrade to TAG, same branch B', then '; hunks: ...' when the hunks decided.\n"
	"Exit 0 when every fix is included, 1 when\n"
	"one is not, 2 for an unknown commit or revision, 3 when it could not be\n"
	"determined (fetch failed, no mirror offline, no deployed commit, no upstream\n"
	"repository for an imported source, a hunk neither present nor absent), 64\n"
	"for a usage error. See docs/fixcheck.md.\n";

#define MAX_RANGE 1000

struct result {
	char *arg;	/* as given: COMMIT, A..B, or the --one-fix arguments */
	char *fix;	/* the newest commit of the fix */
	char **commits;	/* every commit of the fix, oldest first */
	size_t ncommits;
	struct prov_backport bp;
};

static void json_words(struct prov_json *j, const char *key, const char *list, const char *sep)
{
	const char *p = list;

	prov_json_key(j, key);
	if (!list) {
		prov_json_null(j);
		return;
	}
	prov_json_begin_array(j);
	while (*p) {
		size_t l = strcspn(p, sep);
		char *w = prov_xstrndup(p, l);

		if (l)
			prov_json_string(j, w);
		free(w);
		p += l;
		p += strspn(p, sep);
	}
	prov_json_end_array(j);
}

/* "a b" of full ids -> "a12 b12"; patch names as they are. */
static void short_via(struct prov_buf *b, const char *via)
{
	const char *p = via;

	while (p && *p) {
		size_t l = strcspn(p, " ");

		if (b->len && b->buf[b->len - 1] != ' ' && b->buf[b->len - 1] != '(')
			prov_buf_putc(b, ' ');
		prov_buf_add(b, p, l == 40 ? 12 : l);
		p += l;
		p += strspn(p, " ");
	}
}

/* evidence[]: the fix's hunks in the deployed tree (src/fix/fixeffect.h). */
static void json_evidence(struct prov_json *j, const struct prov_backport *bp)
{
	size_t k;

	prov_json_key(j, "evidence");
	prov_json_begin_array(j);
	for (k = 0; k < bp->nevidence; k++) {
		const struct prov_fix_evidence *e = &bp->evidence[k];

		prov_json_begin_object(j);
		prov_json_kv_string(j, "commit", e->commit);
		prov_json_kv_string(j, "file", e->file);
		prov_json_kv_string(j, "deployed_file", e->deployed_file);
		prov_json_kv_string(j, "hunk", e->hunk);
		prov_json_kv_string(j, "function", e->function);
		prov_json_kv_string(j, "state", e->state);
		prov_json_kv_string(j, "via", e->via);
		prov_json_kv_string(j, "note", e->note);
		prov_json_end_object(j);
	}
	prov_json_end_array(j);
	json_words(j, "named_by", bp->named_by, " ");
	prov_json_kv_string(j, "reason", bp->reason);
}

/* "; hunks: 2 exact, 1 by changed lines, 1 test-only (a.c @@ -1 +1 @@ absent)" for hunk-decided verdicts. */
static void text_evidence(struct prov_buf *out, const struct prov_backport *bp)
{
	static const char *const states[] = { "present-exact", "present-changed-lines", "test-only", "absent",
					      "unknown", NULL };
	static const char *const words[] = { "exact", "by changed lines", "test-only (not shipped)", "absent",
					     "neither present nor absent", NULL };
	size_t k, s, cnt;
	const char *sep = "";

	if (!bp->nevidence || (bp->how && (!strcmp(bp->how, "ancestor") || !strcmp(bp->how, "cherry-pick"))))
		return;
	prov_buf_puts(out, "; hunks:");
	for (s = 0; states[s]; s++) {
		for (cnt = 0, k = 0; k < bp->nevidence; k++)
			cnt += !strcmp(bp->evidence[k].state, states[s]);
		if (cnt) {
			prov_buf_printf(out, "%s %zu %s", sep, cnt, words[s]);
			sep = ",";
		}
	}
	for (k = 0; k < bp->nevidence; k++) {
		const struct prov_fix_evidence *e = &bp->evidence[k];

		if (strcmp(e->state, "absent") && strcmp(e->state, "unknown") && strcmp(e->state, "present-changed-lines"))
			continue;
		prov_buf_printf(out, " [%s %s %s%s%s]", e->file, e->hunk, e->state, e->via ? " via " : "",
				e->via ? e->via : "");
	}
}

int cmd_fixcheck(int argc, char **argv, struct prov_ctx *g)
{
	const char *repo_arg = NULL, *at = NULL, *component = NULL, *format = "text";
	const char *sysroot = NULL, *input = NULL, *debsrc = NULL, *rpmspec = NULL;
	struct prov_rpm_patches rpm = { 0 };
	const char **fixes = NULL, **mappings = NULL;
	size_t nfixes = 0, nmappings = 0, i;
	struct prov_crash *crash = NULL;
	struct prov_repo *repo = NULL;
	struct result *res = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	char *deployed = NULL, *at_label = NULL;
	const char *url;
	int offline = 0, code, error, any_missing = 0, any_unknown = 0, one_fix = 0;
	size_t ngroups = 0;
	struct prov_sources_opts so = { 0 };
	struct prov_backport_opts bo = { 0 };
	struct prov_cache *cache = NULL;
	struct prov_repo *patches_repo = NULL;
	char *patches_path = NULL, *patches_commit = NULL, *import_label = NULL;
	struct prov_fix_target target;

	fixes = prov_xcalloc((size_t)argc + 1, sizeof(*fixes));
	mappings = prov_xcalloc((size_t)argc + 1, sizeof(*mappings));
	for (i = 1; i < (size_t)argc; i++) {
		const char *a = argv[i], *v = NULL;

#define VALUE(opt)                                                                     \
	((v = prov_skip_prefix(a, opt "=")) ? v :                                      \
	 !strcmp(a, opt) ? (i + 1 < (size_t)argc ? argv[++i] : NULL) : NULL)
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			code = prov_cmd_help("fixcheck", help);
			goto cleanup;
		} else if (!strcmp(a, "--offline")) {
			offline = 1;
		} else if (!strcmp(a, "--one-fix")) {
			one_fix = 1;
		} else if (!strcmp(a, "--")) {
			for (i++; i < (size_t)argc; i++)
				fixes[nfixes++] = argv[i];
		} else if (prov_starts_with(a, "--repo")) {
			if (!(repo_arg = VALUE("--repo")))
				goto needs_value;
		} else if (prov_starts_with(a, "--at")) {
			if (!(at = VALUE("--at")))
				goto needs_value;
		} else if (prov_starts_with(a, "--debian-source")) {
			if (!(debsrc = VALUE("--debian-source")))
				goto needs_value;
			if (!strchr(debsrc, '=') || debsrc[0] == '=' || !strchr(debsrc, '=')[1]) {
				code = prov_cmd_usage_error("fixcheck", "--debian-source takes SOURCE=VERSION");
				goto cleanup;
			}
		} else if (prov_starts_with(a, "--rpm-spec")) {
			if (!(rpmspec = VALUE("--rpm-spec")))
				goto needs_value;
		} else if (prov_starts_with(a, "--component")) {
			if (!(component = VALUE("--component")))
				goto needs_value;
		} else if (prov_starts_with(a, "--sysroot")) {
			if (!(sysroot = VALUE("--sysroot")))
				goto needs_value;
		} else if (prov_starts_with(a, "--mapping")) {
			if (!(v = VALUE("--mapping")))
				goto needs_value;
			if (nmappings >= MAX_MAPPINGS) {
				code = prov_cmd_usage_error("fixcheck", "too many --mapping options");
				goto cleanup;
			}
			mappings[nmappings++] = v;
		} else if (prov_starts_with(a, "--format")) {
			if (!(v = VALUE("--format")))
				goto needs_value;
			if (prov_cmd_parse_format(&format, v, "text|json") < 0) {
				code = prov_cmd_usage_error("fixcheck", "%s", prov_error_last());
				goto cleanup;
			}
		} else if (a[0] == '-' && a[1]) {
			code = prov_cmd_usage_error("fixcheck", "unknown option '%s'", a);
			goto cleanup;
		} else {
			fixes[nfixes++] = a;
		}
		continue;
needs_value:
		code = prov_cmd_usage_error("fixcheck", "option '%s' needs a value", a);
		goto cleanup;
#undef VALUE
	}
	if (repo_arg && component) {
		code = prov_cmd_usage_error("fixcheck", "use either --repo and --at, or INPUT --component");
		goto cleanup;
	}
	if (repo_arg) {
		if (!at) {
			code = prov_cmd_usage_error("fixcheck", "--repo needs --at REV");
			goto cleanup;
		}
	} else if (component) {
		if (at || debsrc || rpmspec) {
			code = prov_cmd_usage_error("fixcheck", "%s goes with --repo, not with --component",
						    at ? "--at" : debsrc ? "--debian-source" : "--rpm-spec");
			goto cleanup;
		}
		if (nfixes < 2) {
			code = prov_cmd_usage_error("fixcheck", "need COMMIT... INPUT with --component");
			goto cleanup;
		}
		input = fixes[--nfixes];
	} else {
		code = prov_cmd_usage_error("fixcheck", "need --repo URL|PATH --at REV, or INPUT --component NAME");
		goto cleanup;
	}
	if (!nfixes) {
		code = prov_cmd_usage_error("fixcheck", "no COMMIT to check");
		goto cleanup;
	}
	if (nfixes > MAX_FIXES) {
		code = prov_cmd_usage_error("fixcheck", "more than %d commits", MAX_FIXES);
		goto cleanup;
	}
	for (i = 0; i < nfixes; i++) {
		const char *dots = strstr(fixes[i], "..");

		if (dots && (dots == fixes[i] || !dots[2] || dots[2] == '.' || strstr(dots + 2, ".."))) {
			code = prov_cmd_usage_error("fixcheck", "'%s': a range is A..B (the commits in B not in A)",
						    fixes[i]);
			goto cleanup;
		}
	}
	ngroups = one_fix ? 1 : nfixes;
	so.config = g->config;
	so.cache_dir = g->cache_dir;
	so.offline = offline;

	if (input) {
		struct prov_pipeline_opts po = { 0 };
		const struct prov_component *comp;

		po.sysroot = sysroot;
		po.mappings = nmappings ? mappings : NULL;
		po.offline = offline;
		po.global = g;
		if ((error = prov_pipeline_run(&crash, NULL, input, &po)) < 0) {
			code = prov_cmd_fail(error);
			goto cleanup;
		}
		if (!(comp = prov_crash_component(crash, component))) {
			code = prov_cmd_fail(prov_error_set(PROV_EINPUT, "no component '%s' in '%s'",
							    component, input));
			goto cleanup;
		}
		if (!comp->repo || !comp->commit) {
			code = prov_cmd_fail(prov_error_set(PROV_EUNKNOWN, "component '%s' has no %s%s%s",
							    component, comp->repo ? "resolved commit" : "repository",
							    comp->note ? ": " : "", comp->note ? comp->note : ""));
			goto cleanup;
		}
		/* an imported source: the upstream repository its mapping names, plus the import's patches */
		if ((error = prov_fix_target(&target, comp)) < 0) {
			code = prov_cmd_fail(error);
			goto cleanup;
		}
		url = target.url;
		at = target.at;
		if (target.patches_path) {
			import_label = prov_xasprintf("%s + %s", target.at, comp->found_by ? comp->found_by : "import");
			if ((error = prov_sources_open(&patches_repo, target.patches_path, NULL, 0, 0, &so)) < 0) {
				code = prov_cmd_fail(PROV_EUNKNOWN);
				goto cleanup;
			}
			patches_commit = prov_xstrdup(target.patches_commit);
		}
	} else {
		url = repo_arg;
	}

	{
		/* fetch only when something asked for is missing (or --at is a branch) */
		const char **wants = prov_xcalloc(2 * nfixes + 1, sizeof(*wants));
		char **parts = prov_xcalloc(2 * nfixes + 1, sizeof(*parts));
		size_t nw = 0, np = 0;

		for (i = 0; i < nfixes; i++) {
			const char *dots = strstr(fixes[i], "..");

			if (dots) {	/* A..B: both ends */
				parts[np] = prov_xstrndup(fixes[i], (size_t)(dots - fixes[i]));
				wants[nw++] = parts[np++];
				wants[nw++] = dots + 2;
			} else {
				wants[nw++] = fixes[i];
			}
		}
		wants[nw++] = at;
		error = prov_sources_open(&repo, url, wants, nw, 0, &so);
		free(wants);
		for (i = 0; i < np; i++)
			free(parts[i]);
		free(parts);
		if (error < 0) {
			/* a path that is no repository is bad input; a fetch that
			 * failed or no mirror offline: could not determine */
			code = prov_cmd_fail(error == PROV_EINPUT ? PROV_EINPUT : PROV_EUNKNOWN);
			goto cleanup;
		}
	}
	if (debsrc) {
		struct prov_srcimport_opts io = { g->config, g->cache_dir, offline, NULL };
		const char *base = g->config ? prov_config_get(g->config, "sources.debianbaseurl") : NULL;
		char *src = prov_xstrndup(debsrc, strcspn(debsrc, "="));

		error = prov_srcimport_debian(&patches_path, &patches_commit, NULL,
					      base ? base : "https://deb.debian.org/debian", src,
					      strchr(debsrc, '=') + 1, &io);
		free(src);
		if (error == 0)
			error = prov_sources_open(&patches_repo, patches_path, NULL, 0, 0, &so);
		if (error < 0) {
			code = prov_cmd_fail(error == PROV_EINPUT || error == PROV_ELIMIT ? error : PROV_EUNKNOWN);
			goto cleanup;
		}
	}
	if (rpmspec && (error = prov_rpm_patches_read(&rpm, rpmspec)) < 0) {
		code = prov_cmd_fail(error == PROV_ELIMIT ? PROV_EINPUT : error);
		goto cleanup;
	}
	if (prov_cache_open(&cache, g->cache_dir) < 0) {
		prov_warn("%s; patch-ids are not kept", prov_error_last());
		cache = NULL;
	}
	bo.cache = cache;
	bo.patches_repo = patches_repo;
	bo.patches_commit = patches_commit;
	bo.extra_patch_names = rpm.names;
	bo.extra_patch_ids = rpm.ids;
	bo.nextra_patches = rpm.n;
	bo.extra_patch_texts = rpm.texts;
	bo.extra_patch_notes = rpm.notes;
	if ((error = prov_repo_resolve(&deployed, repo, at)) < 0) {
		code = prov_cmd_fail(input || prov_repo_stale(repo) ? PROV_EUNKNOWN : PROV_EINPUT);
		goto cleanup;
	}
	at_label = import_label ? prov_xstrdup(import_label) : input ? prov_xstrndup(deployed, 12) : prov_xstrdup(at);
	res = prov_xcalloc(ngroups, sizeof(*res));
	for (i = 0; i < ngroups; i++) {
		struct prov_buf label = PROV_BUF_INIT;
		size_t first = one_fix ? 0 : i, last = one_fix ? nfixes : i + 1, f, k, alloc = 0;

		for (f = first; f < last; f++) {
			char **v = NULL;
			size_t nv = 0;

			if ((error = prov_backport_expand(&v, &nv, repo, fixes[f], MAX_RANGE)) < 0) {
				prov_buf_release(&label);
				/* unknown in a mirror that could not be refreshed: maybe upstream has it */
				code = prov_cmd_fail(error == PROV_EINPUT ? PROV_EINPUT :
						     prov_repo_stale(repo) ? PROV_EUNKNOWN : PROV_EINPUT);
				goto cleanup;
			}
			for (k = 0; k < nv; k++) {
				size_t d;

				for (d = 0; d < res[i].ncommits && strcmp(res[i].commits[d], v[k]); d++)
					;
				if (d < res[i].ncommits) {
					free(v[k]);
					continue;
				}
				if (res[i].ncommits >= MAX_FIXES) {
					for (; k < nv; k++)
						free(v[k]);
					free(v);
					prov_buf_release(&label);
					code = prov_cmd_fail(prov_error_set(PROV_EINPUT, "one fix of more than %d commits",
									    MAX_FIXES));
					goto cleanup;
				}
				PROV_ALLOC_GROW(res[i].commits, res[i].ncommits + 1, alloc);
				res[i].commits[res[i].ncommits++] = v[k];
			}
			free(v);
			if (label.len)
				prov_buf_putc(&label, ' ');
			prov_buf_puts(&label, fixes[f]);
		}
		res[i].arg = prov_buf_detach(&label);
		res[i].fix = prov_xstrdup(res[i].commits[res[i].ncommits - 1]);
		if ((error = prov_backport_check_all(&res[i].bp, repo, (const char *const *)res[i].commits,
						     res[i].ncommits, deployed, &bo)) < 0) {
			code = prov_cmd_fail(error);
			goto cleanup;
		}
		if (res[i].bp.undetermined)
			any_unknown = 1;
		else if (!res[i].bp.included)
			any_missing = 1;
	}

	if (!strcmp(format, "json")) {
		struct prov_json j;

		prov_json_init(&j, &out);
		prov_json_begin_array(&j);
		for (i = 0; i < ngroups; i++) {
			const struct prov_backport *bp = &res[i].bp;
			size_t k;

			prov_json_begin_object(&j);
			prov_json_kv_string(&j, "schema", "provenance/1");
			prov_json_kv_string(&j, "fix", res[i].fix);
			prov_json_kv_string(&j, "deployed", deployed);
			if (bp->undetermined)
				prov_json_kv_null(&j, "included");
			else
				prov_json_kv_bool(&j, "included", bp->included);
			prov_json_kv_string(&j, "how", bp->how);
			prov_json_kv_string(&j, "via", bp->via);
			prov_json_kv_string(&j, "first_tag", bp->first_tag);
			prov_json_kv_string(&j, "component", component);
			json_words(&j, "files_present", bp->files_present, ", ");
			json_words(&j, "files_missing", bp->files_missing, ", ");
			prov_json_kv_string(&j, "branch", bp->branch);
			prov_json_kv_string(&j, "branch_tag", bp->branch_tag);
			prov_json_kv_string(&j, "branch_via", bp->branch_via);
			prov_json_kv_string(&j, "patch_id", bp->patchid);
			prov_json_key(&j, "commits");
			prov_json_begin_array(&j);
			for (k = 0; k < res[i].ncommits; k++)
				prov_json_string(&j, res[i].commits[k]);
			prov_json_end_array(&j);
			json_words(&j, "commits_missing", bp->commits_missing, " ");
			json_evidence(&j, bp);
			prov_json_end_object(&j);
		}
		prov_json_end_array(&j);
		if ((error = prov_json_finish(&j)) < 0) {
			code = prov_cmd_fail(error);
			goto cleanup;
		}
	} else {
		for (i = 0; i < ngroups; i++) {
			const struct prov_backport *bp = &res[i].bp;
			int partial = bp->how && !strcmp(bp->how, "partial");

			prov_buf_printf(&out, "%s %s", bp->included ? "YES" : partial ? "PARTIAL" :
					bp->undetermined ? "UNKNOWN" : "NO", res[i].arg);
			if (res[i].ncommits > 1)
				prov_buf_printf(&out, " [%zu commits]", res[i].ncommits);
			prov_buf_printf(&out, " %s %s", bp->included ? "is in" : partial ? "is partly in" :
					bp->undetermined ? "may or may not be in" : "is not in", at_label);
			if (debsrc)
				prov_buf_printf(&out, " + %s", debsrc);
			if (rpmspec)
				prov_buf_printf(&out, " + %s", prov_basename(rpmspec));
			if (component)
				prov_buf_printf(&out, " (%s)", component);
			if (bp->first_tag)
				prov_buf_printf(&out, " (first in tag %s)", bp->first_tag);
			else
				prov_buf_puts(&out, " (in no tag)");
			if (bp->undetermined) {
				prov_buf_printf(&out, ": could not be determined: %s", bp->reason ? bp->reason : "?");
			} else if (bp->how && !strcmp(bp->how, "ancestor")) {
				prov_buf_puts(&out, ": ancestor");
			} else if (bp->how && !strcmp(bp->how, "missing")) {
				/* "NO" says it; the hunks follow at the end */
			} else if (bp->how && !partial) {
				prov_buf_printf(&out, ": %s ", bp->how);
				short_via(&out, bp->via);
			} else if (partial && bp->commits_missing) {
				prov_buf_puts(&out, ": partial, missing ");
				short_via(&out, bp->commits_missing);
				if (bp->via) {
					prov_buf_puts(&out, " (in: ");
					short_via(&out, bp->via);
					prov_buf_putc(&out, ')');
				}
				if (bp->files_missing)
					prov_buf_printf(&out, ", files not changed as the fix does: %s", bp->files_missing);
			} else if (partial) {
				prov_buf_printf(&out, ": partial, %s changed as the fix does (", bp->files_present);
				short_via(&out, bp->via);
				prov_buf_printf(&out, "), not %s", bp->files_missing);
			}
			if (bp->undetermined) {
				/* no advice on a guess */
			} else if (!bp->included && bp->branch_tag) {
				prov_buf_printf(&out, "; upgrade to %s, same branch %s (cherry-pick ",
						bp->branch_tag, bp->branch);
				short_via(&out, bp->branch_via);
				prov_buf_putc(&out, ')');
			} else if (!bp->included && bp->first_tag) {
				prov_buf_printf(&out, "; upgrade to %s or backport it", bp->first_tag);
			}
			text_evidence(&out, bp);
			prov_buf_putc(&out, '\n');
		}
	}
	if ((error = prov_cmd_write(out.buf, out.len)) < 0) {
		code = prov_cmd_fail(error);
		goto cleanup;
	}
	code = any_unknown ? PROV_EXIT_UNKNOWN : any_missing ? PROV_EXIT_PARTIAL : PROV_EXIT_OK;
cleanup:
	for (i = 0; res && i < ngroups; i++) {
		size_t k;

		for (k = 0; k < res[i].ncommits; k++)
			free(res[i].commits[k]);
		free(res[i].commits);
		free(res[i].arg);
		free(res[i].fix);
		prov_backport_release(&res[i].bp);
	}
	prov_repo_free(patches_repo);
	free(patches_path);
	free(patches_commit);
	free(import_label);
	prov_rpm_patches_release(&rpm);
	prov_cache_free(cache);
	free(res);
	free(deployed);
	free(at_label);
	prov_repo_free(repo);
	prov_crash_free(crash);
	prov_buf_release(&out);
	free(fixes);
	free(mappings);
	return code;
}
