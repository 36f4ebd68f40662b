/* provenance fixcheck: its options; the work is in src/pipeline/fixcheck.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "error.h"
#include "pipeline.h"
#include "report.h"
#include "util.h"
#include "image.h"
#include "banned.h"

#define MAX_MAPPINGS 256

/* The command table's entry: name, usage line and description (main.c lists it). */
const struct cmd cmd_fixcheck_def = {
	"fixcheck", cmd_fixcheck, 0,
	"fixcheck COMMIT|A..B... [--one-fix] (--repo URL|PATH --at REV\n"
	"                  [--debian-source SRC=VER | --rpm-spec SPEC] | INPUT --component NAME)\n"
	"                  [--sysroot DIR|IMAGE] [--mapping FILE]... [--offline] [--include-prereleases]\n"
	"                  [--format text|json]",
	"is a fix in what was deployed (ancestor, cherry-pick, patch), which release has it"
};

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
	"  --sysroot DIR     the crashed system's root (INPUT mode), or an image:\n"
	"                    oci:DIR[:TAG], oci-archive:FILE, docker-archive:FILE,\n"
	"                    squashfs:FILE, sif:FILE or such a file\n"
	"  --mapping FILE    an extra mapping file (repeatable; INPUT mode)\n"
	"  --offline         never fetch; use the mirrors in the cache\n"
	"  --include-prereleases\n"
	"                    the first tag containing a fix, and the same-branch\n"
	"                    upgrade, may be a pre-release (-rc1, alpha, beta, pre,\n"
	"                    dev, a1/b2); by default only final releases count\n"
	"  --format text|json\n"
	"\n"
	"A fix is in the deployed build by ancestry ('ancestor'), as a commit on its\n"
	"history that says '(cherry picked from commit FIX)' or has the fix's\n"
	"patch-id (git patch-id --stable), or whose changes cover every file of the\n"
	"fix ('cherry-pick'), as a Debian or RPM patch ('distribution-patch'), with\n"
	"its effect in the deployed tree but not byte-identical ('adapted': context\n"
	"drifted, lines changed a little, test, doc or comment hunks left out, a hunk\n"
	"the patch naming the fix writes another way); or not: some hunks absent and\n"
	"some present ('partial'), hunks absent and none present, test and doc files\n"
	"aside ('missing'); absent means proven (applies forward). Each hunk is looked\n"
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
	"for a usage error. See docs/fixcheck.md. With INPUT --component, a\n"
	"component whose commit is only\n"
	"approximate (commit_is: a branch tip or a tag the version does not name)\n"
	"gives 'UNKNOWN <fix> (NAME): in the branch tip ...; the deployed build may\n"
	"predate it' (JSON: included false, deployed_is \"approximate\", note) and exit 3.\n";

enum {
	OPT_OFFLINE = 256,
	OPT_ONE_FIX,
	OPT_REPO,
	OPT_AT,
	OPT_DEBIAN_SOURCE,
	OPT_RPM_SPEC,
	OPT_COMPONENT,
	OPT_SYSROOT,
	OPT_MAPPING,
	OPT_FORMAT,
	OPT_INCLUDE_PRERELEASES,
};

static const struct option options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "offline", no_argument, NULL, OPT_OFFLINE },
	{ "one-fix", no_argument, NULL, OPT_ONE_FIX },
	{ "repo", required_argument, NULL, OPT_REPO },
	{ "at", required_argument, NULL, OPT_AT },
	{ "debian-source", required_argument, NULL, OPT_DEBIAN_SOURCE },
	{ "rpm-spec", required_argument, NULL, OPT_RPM_SPEC },
	{ "component", required_argument, NULL, OPT_COMPONENT },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "mapping", required_argument, NULL, OPT_MAPPING },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "include-prereleases", no_argument, NULL, OPT_INCLUDE_PRERELEASES },
	{ NULL, 0, NULL, 0 },
};

struct fixcheck_args {
	struct prov_fixcheck_opts o;
	struct prov_ctx *g;
	enum prov_format format;
	const char **fixes, **mappings;
	size_t nfixes, nmappings;
};

/* One option into `a`; -1 to go on, else the exit code (usage error, --help). */
static int take_option(struct fixcheck_args *a, int opt, char **argv)
{
	const char *d;

	switch (opt) {
	case 'h':
		return prov_cmd_help(&cmd_fixcheck_def, help);
	case OPT_OFFLINE:
		a->g->offline = 1;
		break;
	case OPT_INCLUDE_PRERELEASES:
		a->g->include_prereleases = 1;
		break;
	case OPT_ONE_FIX:
		a->o.one_fix = 1;
		break;
	case OPT_REPO:
		a->o.repo = optarg;
		break;
	case OPT_AT:
		a->o.at = optarg;
		break;
	case OPT_DEBIAN_SOURCE:
		d = strchr(optarg, '=');
		if (!d || optarg[0] == '=' || !d[1])
			return prov_cmd_usage_error(&cmd_fixcheck_def, "--debian-source takes SOURCE=VERSION");
		a->o.debsrc = optarg;
		break;
	case OPT_RPM_SPEC:
		a->o.rpmspec = optarg;
		break;
	case OPT_COMPONENT:
		a->o.component = optarg;
		break;
	case OPT_SYSROOT:
		a->o.sysroot = optarg;
		break;
	case OPT_MAPPING:
		if (a->nmappings >= MAX_MAPPINGS)
			return prov_cmd_usage_error(&cmd_fixcheck_def, "too many --mapping options");
		a->mappings[a->nmappings++] = optarg;
		break;
	case OPT_FORMAT:
		if (prov_cmd_parse_format(&a->format, optarg, "text|json") < 0)
			return prov_cmd_usage_error(&cmd_fixcheck_def, "%s", prov_error_last());
		break;
	case ':':
		return prov_cmd_usage_error(&cmd_fixcheck_def, "option '%s' needs a value", argv[optind - 1]);
	default:
		/* a short option may sit inside a group ("-xy"): name the letter */
		if (optopt > 0 && optopt < OPT_OFFLINE && optopt != 'h')
			return prov_cmd_usage_error(&cmd_fixcheck_def, "unknown option '-%c'", optopt);
		return prov_cmd_usage_error(&cmd_fixcheck_def, "unknown option '%s'", argv[optind - 1]);
	}
	return -1;
}

/* The two modes: --repo URL|PATH --at REV, or COMMIT... INPUT --component NAME. */
static int check_mode(struct fixcheck_args *a)
{
	struct prov_fixcheck_opts *o = &a->o;
	size_t i;

	if (o->repo && o->component)
		return prov_cmd_usage_error(&cmd_fixcheck_def, "use either --repo and --at, or INPUT --component");
	if (o->repo) {
		if (!o->at)
			return prov_cmd_usage_error(&cmd_fixcheck_def, "--repo needs --at REV");
	} else if (o->component) {
		if (o->at || o->debsrc || o->rpmspec)
			return prov_cmd_usage_error(&cmd_fixcheck_def, "%s goes with --repo, not with --component",
						    o->at ? "--at" : o->debsrc ? "--debian-source" : "--rpm-spec");
		if (a->nfixes < 2)
			return prov_cmd_usage_error(&cmd_fixcheck_def, "need COMMIT... INPUT with --component");
		o->input = a->fixes[--a->nfixes];
	} else {
		return prov_cmd_usage_error(&cmd_fixcheck_def, "need --repo URL|PATH --at REV, or INPUT --component NAME");
	}
	if (!a->nfixes)
		return prov_cmd_usage_error(&cmd_fixcheck_def, "no COMMIT to check");
	if (a->nfixes > PROV_FIXCHECK_MAX_FIXES)
		return prov_cmd_usage_error(&cmd_fixcheck_def, "more than %d commits", PROV_FIXCHECK_MAX_FIXES);
	for (i = 0; i < a->nfixes; i++) {
		const char *f = a->fixes[i], *dots = strstr(f, "..");

		if (dots && (dots == f || !dots[2] || dots[2] == '.' || strstr(dots + 2, "..")))
			return prov_cmd_usage_error(&cmd_fixcheck_def, "'%s': a range is A..B (the commits in B not in A)", f);
	}
	return -1;
}

/* Options and operands (COMMIT..., INPUT); -1 to go on, else the exit code. */
static int parse_args(struct fixcheck_args *a, int argc, char **argv)
{
	int opt, code;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1)
		if ((code = take_option(a, opt, argv)) >= 0)
			return code;
	/* every operand is a COMMIT (the last one INPUT with --component) */
	while (optind < argc)
		a->fixes[a->nfixes++] = argv[optind++];
	if ((code = check_mode(a)) >= 0)
		return code;
	a->mappings[a->nmappings] = NULL;
	a->o.mappings = a->nmappings ? a->mappings : NULL;
	a->o.fixes = a->fixes;
	a->o.nfixes = a->nfixes;
	return -1;
}

int cmd_fixcheck(int argc, char **argv, struct prov_ctx *g)
{
	struct fixcheck_args a;
	struct prov_fixcheck res;
	struct prov_buf out = PROV_BUF_INIT;
	struct prov_image image = { 0 };
	int code, error;

	memset(&a, 0, sizeof(a));
	memset(&res, 0, sizeof(res));
	a.g = g;
	a.o.ctx = g;
	a.format = PROV_FORMAT_TEXT;
	a.fixes = prov_xcalloc((size_t)argc + 1, sizeof(*a.fixes));
	a.mappings = prov_xcalloc((size_t)argc + 1, sizeof(*a.mappings));
	if ((code = parse_args(&a, argc, argv)) >= 0)
		goto cleanup;
	if ((error = prov_cmd_open_sysroot(&image, &a.o.sysroot, g)) < 0) {
		code = prov_cmd_fail(error);
		goto cleanup;
	}
	a.o.image = a.o.sysroot ? &image : NULL;
	if ((error = prov_pipeline_fixcheck(&res, &a.o)) < 0 ||
	    (error = prov_report_fixcheck(&out, &res, a.format)) < 0 ||
	    (error = prov_cmd_write(out.buf, out.len)) < 0) {
		code = prov_cmd_fail(error);
		goto cleanup;
	}
	/* 3: some fix undetermined (or the deployed commit approximate); 1: some not (fully) in */
	code = res.approximate || res.any_unknown ? PROV_EXIT_UNKNOWN :
	       res.any_missing ? PROV_EXIT_PARTIAL : PROV_EXIT_OK;
cleanup:
	prov_fixcheck_release(&res);
	prov_buf_release(&out);
	free(a.fixes);
	free(a.mappings);
	prov_image_release(&image);
	return code;
}
