#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "error.h"
#include "json.h"
#include "model.h"
#include "pipeline.h"
#include "sources.h"
#include "util.h"
#include "banned.h"

#define MAX_FIXES 4096
#define MAX_MAPPINGS 256

static const char help[] =
	"Is each COMMIT (a fix) an ancestor of, or equal to, what was deployed?\n"
	"\n"
	"  --repo URL|PATH   the repository (a local path is used in place; a URL is\n"
	"                    fetched into the mirror cache, url.<base>.insteadOf applied)\n"
	"  --at REV          the deployed revision: a commit, tag or branch\n"
	"  INPUT --component NAME\n"
	"                    take the deployed commit and repository of component NAME\n"
	"                    from a crash (core or backtrace), as 'provenance resolve' finds it\n"
	"  --sysroot DIR     the crashed system's root (INPUT mode)\n"
	"  --mapping FILE    an extra mapping file (repeatable; INPUT mode)\n"
	"  --offline         never fetch; use the mirrors in the cache\n"
	"  --format text|json\n"
	"\n"
	"Text output: one line per COMMIT, 'YES <fix> is in <rev> (first in tag T)' or\n"
	"'NO <fix> is not in <rev> ...'. Exit 0 when every fix is included, 1 when one\n"
	"is not, 2 for an unknown commit or revision, 64 for a usage error.\n";

struct result {
	const char *arg;
	char *fix;
	int included;
	char *first_tag;
};

int cmd_fixcheck(int argc, char **argv, struct prov_global *g)
{
	const char *repo_arg = NULL, *at = NULL, *component = NULL, *format = "text";
	const char *sysroot = NULL, *input = NULL;
	const char **fixes = NULL, **mappings = NULL;
	size_t nfixes = 0, nmappings = 0, i;
	struct prov_crash *crash = NULL;
	struct prov_repo *repo = NULL;
	struct result *res = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	char *deployed = NULL, *at_label = NULL;
	const char *url;
	int offline = 0, code, error, any_missing = 0;
	struct prov_sources_opts so = { 0 };

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
		} else if (!strcmp(a, "--")) {
			for (i++; i < (size_t)argc; i++)
				fixes[nfixes++] = argv[i];
		} else if (prov_starts_with(a, "--repo")) {
			if (!(repo_arg = VALUE("--repo")))
				goto needs_value;
		} else if (prov_starts_with(a, "--at")) {
			if (!(at = VALUE("--at")))
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
		if (at) {
			code = prov_cmd_usage_error("fixcheck", "--at goes with --repo, not with --component");
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
			code = prov_cmd_fail(prov_error_set(PROV_ENOTFOUND, "component '%s' has no %s%s%s",
							    component, comp->repo ? "resolved commit" : "repository",
							    comp->note ? ": " : "", comp->note ? comp->note : ""));
			goto cleanup;
		}
		url = comp->repo;
		at = comp->commit;
	} else {
		url = repo_arg;
	}

	{
		/* fetch only when something asked for is missing (or --at is a branch) */
		const char **wants = prov_xcalloc(nfixes + 1, sizeof(*wants));

		for (i = 0; i < nfixes; i++)
			wants[i] = fixes[i];
		wants[nfixes] = at;
		error = prov_sources_open(&repo, url, wants, nfixes + 1, 0, &so);
		free(wants);
		if (error < 0) {
			code = prov_cmd_fail(error == PROV_ENOTFOUND ? PROV_EINPUT : error);
			goto cleanup;
		}
	}
	if ((error = prov_repo_resolve(&deployed, repo, at)) < 0) {
		code = prov_cmd_fail(PROV_EINPUT);
		goto cleanup;
	}
	at_label = input ? prov_xstrndup(deployed, 12) : prov_xstrdup(at);
	res = prov_xcalloc(nfixes, sizeof(*res));
	for (i = 0; i < nfixes; i++) {
		res[i].arg = fixes[i];
		if ((error = prov_repo_resolve(&res[i].fix, repo, fixes[i])) < 0) {
			code = prov_cmd_fail(PROV_EINPUT);
			goto cleanup;
		}
		if ((error = prov_repo_is_ancestor(&res[i].included, repo, res[i].fix, deployed)) < 0 ||
		    (error = prov_repo_first_tag(&res[i].first_tag, repo, res[i].fix)) < 0) {
			code = prov_cmd_fail(error);
			goto cleanup;
		}
		if (!res[i].included)
			any_missing = 1;
	}

	if (!strcmp(format, "json")) {
		struct prov_json j;

		prov_json_init(&j, &out);
		prov_json_begin_array(&j);
		for (i = 0; i < nfixes; i++) {
			prov_json_begin_object(&j);
			prov_json_kv_string(&j, "fix", res[i].fix);
			prov_json_kv_string(&j, "deployed", deployed);
			prov_json_kv_bool(&j, "included", res[i].included);
			prov_json_kv_string(&j, "first_tag", res[i].first_tag);
			prov_json_kv_string(&j, "component", component);
			prov_json_end_object(&j);
		}
		prov_json_end_array(&j);
		if ((error = prov_json_finish(&j)) < 0) {
			code = prov_cmd_fail(error);
			goto cleanup;
		}
	} else {
		for (i = 0; i < nfixes; i++) {
			prov_buf_printf(&out, "%s %s %s %s", res[i].included ? "YES" : "NO",
					res[i].arg, res[i].included ? "is in" : "is not in", at_label);
			if (component)
				prov_buf_printf(&out, " (%s)", component);
			if (res[i].first_tag)
				prov_buf_printf(&out, " (first in tag %s)", res[i].first_tag);
			else
				prov_buf_puts(&out, " (in no tag)");
			prov_buf_putc(&out, '\n');
		}
	}
	if ((error = prov_cmd_write(out.buf, out.len)) < 0) {
		code = prov_cmd_fail(error);
		goto cleanup;
	}
	code = any_missing ? PROV_EXIT_PARTIAL : PROV_EXIT_OK;
cleanup:
	for (i = 0; res && i < nfixes; i++) {
		free(res[i].fix);
		free(res[i].first_tag);
	}
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
