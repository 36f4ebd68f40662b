/* provenance triage: the stored crashes grouped by signature. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "cmd.h"
#include "error.h"
#include "report.h"
#include "util.h"
#include "banned.h"

/* The command table's entry: name, usage line and description (main.c lists it). */
const struct cmd cmd_triage_def = {
	"triage", cmd_triage, 0,
	"triage [--since TIME] [--until TIME] [--host NAME] [--signature SIG] [--component NAME[=VERSION]]\n"
	"                  [--image DIGEST|REF] [--by day|week|version|host|image] [--runs N] [--format text|markdown|json] [--frames N] [--store PATH]",
	"the stored crashes grouped by signature: counts, hosts, versions, repro rate"
};

static const char help[] =
	"Group the crashes of the store by signature (the signal and the first three\n"
	"function names of the crashing thread from its crash site that are not\n"
	"handler, abort, std::, allocator or interpreter machinery, as resolve\n"
	"computes it: docs/signature.md), largest group first: how many, on how\n"
	"many hosts, first and last seen, the top frames of the latest one, the\n"
	"component versions the group spans (and whether it happens only with\n"
	"some of the versions the store has), and its share of all crashes.\n"
	"\n"
	"options:\n"
	"   --since TIME      only crashes at or after TIME (YYYY-MM-DD[THH:MM[:SS]], UTC,\n"
	"                     @SECONDS, or an age before now: 30s, 15m, 12h, 7d, 2w)\n"
	"   --until TIME      only crashes before TIME (the same forms as --since)\n"
	"   --host NAME       only crashes of host NAME\n"
	"   --signature SIG   only crashes of signature SIG (as triage prints it)\n"
	"   --component NAME[=VERSION]\n"
	"                     only crashes that ran component NAME (that version of it)\n"
	"   --image DIGEST|REF\n"
	"                     only crashes analysed with --sysroot in that image: its\n"
	"                     manifest digest (sha256:HEX, or the HEX), or the start of\n"
	"                     it of at least 12 hex digits that starts one stored\n"
	"                     image's digest only, or the ref it was named by\n"
	"                     (oci:DIR:REF)\n"
	"   --by KIND         crashes per bucket per group: day (YYYY-MM-DD, UTC), week\n"
	"                     (ISO week YYYY-Www, UTC), version (of --component's\n"
	"                     component, else of the crashing frame's), host, or image\n"
	"                     (REF@sha256:12 hex digits; \"(no image)\" for crashes\n"
	"                     with none); a table, and a sparkline in text for days\n"
	"                     and weeks\n"
	"   --runs N          how many runs there were: adds the repro rate, the\n"
	"                     share of runs that hit each crash (one crash counts\n"
	"                     one run; count one report per failed run)\n"
	"   --frames N        top frames shown per group (default 5)\n"
	"   --format FMT      text (default), markdown or json\n"
	"   --store PATH|URL  the store: a SQLite file (default: store.sqlite in the\n"
	"                     data directory) or PostgreSQL (postgresql://... or\n"
	"                     \"host=... dbname=...\")\n"
	"\n"
	"A signature marked fixed (provenance mark) shows the fix, its bug and note,\n"
	"and its status: REGRESSION when a crash came from a build that has the fix,\n"
	"fixed when none did, or could not determine.\n"
	"\n"
	"exit: 0 done, 2 no store or not a store, or an --image that is not a digest\n"
	"or a ref, too short, or the start of several digests, 3 --image or --by image on a store\n"
	"older than schema 7 (it recorded no images), 64 usage error.\n";

enum { OPT_SINCE = 256, OPT_UNTIL, OPT_HOST, OPT_SIGNATURE, OPT_COMPONENT, OPT_IMAGE, OPT_BY, OPT_RUNS, OPT_FRAMES, OPT_FORMAT, OPT_STORE, OPT_HELP };

static const struct option options[] = {
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "signature", required_argument, NULL, OPT_SIGNATURE },
	{ "component", required_argument, NULL, OPT_COMPONENT },
	{ "image", required_argument, NULL, OPT_IMAGE },
	{ "by", required_argument, NULL, OPT_BY },
	{ "runs", required_argument, NULL, OPT_RUNS },
	{ "frames", required_argument, NULL, OPT_FRAMES },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* Whether the locale's characters are UTF-8 (LC_ALL, else LC_CTYPE, else LANG): the sparkline's blocks. */
static int locale_utf8(void)
{
	const char *names[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	size_t i;

	for (i = 0; i < 3; i++) {
		const char *v = getenv(names[i]);

		if (v && *v)
			return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
	}
	return 0;
}

int cmd_triage(int argc, char **argv, struct prov_ctx *g)
{
	struct prov_triage_opts to = { 0 };
	struct prov_triage t = { 0 };
	struct prov_store *store = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	enum prov_format format = PROV_FORMAT_TEXT;
	const char *store_opt = NULL;
	char *store_path = NULL, *image = NULL, since[21], until[21];
	int64_t runs = 0;
	int opt, code = 0, err;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (opt) {
		case OPT_SINCE:
			if (prov_store_parse_time(since, optarg) < 0) {
				code = prov_cmd_usage_error(&cmd_triage_def, "%s", prov_error_last());
				goto cleanup;
			}
			to.since = since;
			break;
		case OPT_UNTIL:
			if (prov_store_parse_time(until, optarg) < 0) {
				code = prov_cmd_usage_error(&cmd_triage_def, "%s", prov_error_last());
				goto cleanup;
			}
			to.until = until;
			break;
		case OPT_HOST:
			to.host = optarg;
			break;
		case OPT_SIGNATURE:
			to.signature = optarg;
			break;
		case OPT_COMPONENT: {
			char *eq = strchr(optarg, '=');

			if (eq) {	/* NAME=VERSION: argv's copy, cut in place */
				*eq = 0;
				to.component_version = eq + 1;
			}
			if (!*optarg || (eq && !eq[1])) {
				code = prov_cmd_usage_error(&cmd_triage_def, "--component wants NAME or NAME=VERSION");
				goto cleanup;
			}
			to.component = optarg;
			break;
		}
		case OPT_IMAGE:
			if (!*optarg) {
				code = prov_cmd_usage_error(&cmd_triage_def, "--image wants a digest or a ref");
				goto cleanup;
			}
			to.image = optarg;
			break;
		case OPT_BY:
			if (strcmp(optarg, "day") && strcmp(optarg, "week") && strcmp(optarg, "version") &&
			    strcmp(optarg, "host") && strcmp(optarg, "image")) {
				code = prov_cmd_usage_error(&cmd_triage_def,
							    "--by wants day, week, version, host or image, not '%s'", optarg);
				goto cleanup;
			}
			to.by = optarg;
			break;
		case OPT_RUNS:
			if (prov_parse_i64(&runs, optarg, strlen(optarg)) < 0 || runs < 1) {
				code = prov_cmd_usage_error(&cmd_triage_def, "--runs wants a positive number, not '%s'", optarg);
				goto cleanup;
			}
			break;
		case OPT_FRAMES: {
			int n;

			if (prov_parse_int(&n, optarg, strlen(optarg)) < 0 || n < 1 || n > 100) {
				code = prov_cmd_usage_error(&cmd_triage_def, "--frames wants a number from 1 to 100, not '%s'", optarg);
				goto cleanup;
			}
			to.max_frames = (size_t)n;
			break;
		}
		case OPT_FORMAT:
			if (prov_cmd_parse_format(&format, optarg, "text|markdown|json") < 0) {
				code = prov_cmd_usage_error(&cmd_triage_def, "%s", prov_error_last());
				goto cleanup;
			}
			break;
		case OPT_STORE:
			store_opt = optarg;
			break;
		case OPT_HELP:
			code = prov_cmd_help(&cmd_triage_def, help);
			goto cleanup;
		case ':':
			code = prov_cmd_usage_error(&cmd_triage_def, "option '%s' needs a value", argv[optind - 1]);
			goto cleanup;
		default:
			code = prov_cmd_usage_error(&cmd_triage_def, "unknown option '%s'", argv[optind - 1]);
			goto cleanup;
		}
	}
	if (optind < argc) {
		code = prov_cmd_usage_error(&cmd_triage_def, "unexpected argument '%s'", argv[optind]);
		goto cleanup;
	}
	store_path = store_opt ? prov_xstrdup(store_opt) : prov_store_default_path(g->cache_dir);
	prov_store_hide_password((char *)store_opt);	/* argv: not on the process list */
	/* a digest's start becomes the one digest it starts (or one line, exit 2) */
	if ((err = prov_store_open(&store, store_path, 1)) < 0 ||
	    (to.image && (err = prov_store_image_resolve(&image, store, to.image, 0)) < 0)) {
		code = prov_cmd_fail(err == PROV_ENOTFOUND ? PROV_EINPUT : err);
		goto cleanup;
	}
	if (image)
		to.image = image;
	if ((err = prov_store_triage(&t, store, &to)) < 0) {
		code = prov_cmd_fail(err == PROV_ENOTFOUND ? PROV_EINPUT : err);
		goto cleanup;
	}
	err = prov_report_triage(&out, &t, runs, format, locale_utf8());
	if (!err && out.over)	/* never a cut result with exit 0 */
		err = prov_error_set(PROV_ELIMIT, "the output is larger than %zu bytes; nothing written%s",
				     out.cap, "; narrow it (--since, --component)");
	if (err < 0 || prov_cmd_write(out.buf, out.len) < 0) {
		code = prov_cmd_fail(err < 0 ? err : PROV_ERROR);
		goto cleanup;
	}
	code = 0;
cleanup:
	prov_triage_release(&t);
	prov_store_free(store);
	prov_buf_release(&out);
	free(store_path);
	free(image);
	return code;
}
