/* provenance show: a stored crash's report, as it was stored (docs/store.md). */
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
const struct cmd cmd_show_def = {
	"show", cmd_show, 0,
	"show ID [--format json] [--store PATH]",
	"a stored crash's report, as it was stored"
};

static const char help[] =
	"Print the report of crash ID (crashes.id, triage's latest_crash_id) as the\n"
	"store holds it: what 'resolve --format json' printed for an imported\n"
	"report, byte for byte (resolve --store fills in crash.time and crash.host).\n"
	"\n"
	"options:\n"
	"   --format json     the stored JSON (the only format for now)\n"
	"   --store PATH|URL  the store: a SQLite file (default: store.sqlite in the\n"
	"                     data directory) or PostgreSQL (postgresql://... or\n"
	"                     \"host=... dbname=...\")\n"
	"\n"
	"exit: 0 done, 2 no such crash, no store or not a store, 64 usage error.\n";

enum { OPT_FORMAT = 256, OPT_STORE, OPT_HELP };

static const struct option options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

int cmd_show(int argc, char **argv, struct prov_ctx *g)
{
	struct prov_store *store = NULL;
	const char *store_opt = NULL;
	char *store_path = NULL, *json = NULL;
	size_t len = 0;
	int64_t id = 0;
	int opt, code = 0, err;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (opt) {
		case OPT_FORMAT:
			if (strcmp(optarg, "json") != 0) {
				code = prov_cmd_usage_error(&cmd_show_def, "--format json is the only format for now, not '%s'",
							    optarg);
				goto cleanup;
			}
			break;
		case OPT_STORE:
			store_opt = optarg;
			break;
		case OPT_HELP:
			code = prov_cmd_help(&cmd_show_def, help);
			goto cleanup;
		case ':':
			code = prov_cmd_usage_error(&cmd_show_def, "option '%s' needs a value", argv[optind - 1]);
			goto cleanup;
		default:
			code = prov_cmd_usage_error(&cmd_show_def, "unknown option '%s'", argv[optind - 1]);
			goto cleanup;
		}
	}
	if (optind + 1 != argc || prov_parse_i64(&id, argv[optind], strlen(argv[optind])) < 0 || id < 1) {
		code = prov_cmd_usage_error(&cmd_show_def, "one crash ID is needed (a number, crashes.id)");
		goto cleanup;
	}
	store_path = store_opt ? prov_xstrdup(store_opt) : prov_store_default_path(g->cache_dir);
	prov_store_hide_password((char *)store_opt);	/* argv: not on the process list */
	if ((err = prov_store_open(&store, store_path, 1)) < 0 ||
	    (err = prov_store_report_get(&json, &len, store, id)) < 0) {
		code = prov_cmd_fail(err);
		goto cleanup;
	}
	fwrite(json, 1, len, stdout);
	if (!len || json[len - 1] != '\n')
		putchar('\n');
cleanup:
	prov_store_free(store);
	free(store_path);
	free(json);
	return code;
}
