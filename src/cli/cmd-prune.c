/* provenance prune: retention for the crash store, its per-signature counts kept right (docs/store.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "cmd.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/* The command table's entry: name, usage line and description (main.c lists it). */
const struct cmd cmd_prune_def = {
	"prune", cmd_prune, 0,
	"prune --older-than AGE [--keep-per-signature N] [--dry-run] [--store PATH]",
	"delete old crashes from the store; its counts follow"
};

static const char help[] =
	"Delete the crashes older than AGE, with their frames, modules, components\n"
	"and reports, in one transaction; the per-signature summaries follow, as\n"
	"they do for an admin's plain DELETE FROM crashes (schema 4's triggers).\n"
	"Crashes with no time are kept. Run it from a timer: docs/store.md,\n"
	"\"Retention\".\n"
	"\n"
	"options:\n"
	"   --older-than AGE  an age (30s, 15m, 12h, 90d, 2w) or a time\n"
	"                     (YYYY-MM-DD[THH:MM[:SS]] UTC, @SECONDS): crashes\n"
	"                     before it go\n"
	"   --keep-per-signature N  keep each signature's N newest crashes however\n"
	"                     old (default 0)\n"
	"   --dry-run         say how many would go; delete nothing\n"
	"   --store PATH|URL  the store: a SQLite file (default: store.sqlite in the\n"
	"                     data directory) or PostgreSQL (postgresql://... or\n"
	"                     \"host=... dbname=...\")\n"
	"\n"
	"exit: 0 done, 2 no store or not a store, 64 usage error.\n";

enum { OPT_OLDER = 256, OPT_KEEP, OPT_DRY, OPT_STORE, OPT_HELP };

static const struct option options[] = {
	{ "older-than", required_argument, NULL, OPT_OLDER },
	{ "keep-per-signature", required_argument, NULL, OPT_KEEP },
	{ "dry-run", no_argument, NULL, OPT_DRY },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int cmd_prune(int argc, char **argv, struct prov_ctx *g)
{
	struct prov_store *store = NULL;
	const char *store_opt = NULL;
	char *store_path = NULL, before[21] = "";
	int64_t keep = 0, n = 0;
	int opt, dry_run = 0, code = 0, err;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (opt) {
		case OPT_OLDER:
			if (prov_store_parse_time(before, optarg) < 0) {
				code = prov_cmd_usage_error(&cmd_prune_def, "%s", prov_error_last());
				goto cleanup;
			}
			break;
		case OPT_KEEP:
			if (prov_parse_i64(&keep, optarg, strlen(optarg)) < 0 || keep < 0) {
				code = prov_cmd_usage_error(&cmd_prune_def,
							    "--keep-per-signature needs a count, not '%s'", optarg);
				goto cleanup;
			}
			break;
		case OPT_DRY:
			dry_run = 1;
			break;
		case OPT_STORE:
			store_opt = optarg;
			break;
		case OPT_HELP:
			code = prov_cmd_help(&cmd_prune_def, help);
			goto cleanup;
		case ':':
			code = prov_cmd_usage_error(&cmd_prune_def, "option '%s' needs a value", argv[optind - 1]);
			goto cleanup;
		default:
			code = prov_cmd_usage_error(&cmd_prune_def, "unknown option '%s'", argv[optind - 1]);
			goto cleanup;
		}
	}
	if (optind < argc) {
		code = prov_cmd_usage_error(&cmd_prune_def, "unexpected argument '%s'", argv[optind]);
		goto cleanup;
	}
	if (!before[0]) {
		code = prov_cmd_usage_error(&cmd_prune_def, "--older-than AGE is needed");
		goto cleanup;
	}
	store_path = store_opt ? prov_xstrdup(store_opt) : prov_store_default_path(g->cache_dir);
	prov_store_hide_password((char *)store_opt);	/* argv: not on the process list */
	if ((err = prov_store_open(&store, store_path, 0)) < 0 ||
	    (err = prov_store_prune(&n, store, before, keep, dry_run)) < 0) {
		code = prov_cmd_fail(err);
		goto cleanup;
	}
	printf("%s %lld crash%s from before %s\n", dry_run ? "would prune" : "pruned", (long long)n,
	       n == 1 ? "" : "es", before);
cleanup:
	prov_store_free(store);
	free(store_path);
	return code;
}
