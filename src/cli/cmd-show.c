/* provenance show: a stored crash's report, as it was stored (docs/store.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonread.h"
#include "report.h"
#include "store.h"
#include "cmd.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/* The command table's entry: name, usage line and description (main.c lists it). */
const struct cmd cmd_show_def = {
	"show", cmd_show, 0,
	"show ID [--format text|markdown|json] [--store PATH]",
	"a stored crash's report, as it was stored"
};

static const char help[] =
	"Print the report of crash ID (crashes.id, triage's latest_crash_id). JSON is\n"
	"what the store holds: what 'resolve --format json' printed for an imported\n"
	"report, byte for byte (resolve --store fills in crash.time and crash.host).\n"
	"Text and Markdown are that report as 'resolve' prints it in that format,\n"
	"rebuilt from the stored JSON; a report with parts this version cannot\n"
	"rebuild is refused (exit 3) rather than shown with parts missing.\n"
	"\n"
	"options:\n"
	"   --format FORMAT   json (the default), text or markdown\n"
	"   --store PATH|URL  the store: a SQLite file (default: store.sqlite in the\n"
	"                     data directory) or PostgreSQL (postgresql://... or\n"
	"                     \"host=... dbname=...\")\n"
	"\n"
	"exit: 0 done, 2 no such crash, no store or not a store, 3 the report cannot be\n"
	"rebuilt as text or Markdown, 64 usage error.\n";

enum { OPT_FORMAT = 256, OPT_STORE, OPT_HELP };

static const struct option options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* The stored JSON as resolve prints it in `format` (text or Markdown), into out. */
static int render(struct prov_buf *out, const char *json, size_t len, enum prov_format format)
{
	struct prov_jv *root = NULL;
	struct prov_crash *c = NULL;
	int err;

	if ((err = prov_jv_parse(&root, json, len)) < 0 || (err = prov_report_load(&c, root)) < 0)
		goto cleanup;
	err = prov_report_resolve(out, &c, 1, 0, NULL, format,
				  PROV_REPORT_RESOLVE | PROV_REPORT_REGISTERS | PROV_REPORT_MODULES);
cleanup:
	prov_crash_free(c);
	prov_jv_free(root);
	return err;
}

int cmd_show(int argc, char **argv, struct prov_ctx *g)
{
	struct prov_store *store = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	enum prov_format format = PROV_FORMAT_JSON;
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
			if (strcmp(optarg, "json") == 0) {
				format = PROV_FORMAT_JSON;
			} else if (strcmp(optarg, "text") == 0) {
				format = PROV_FORMAT_TEXT;
			} else if (strcmp(optarg, "markdown") == 0) {
				format = PROV_FORMAT_MARKDOWN;
			} else {
				code = prov_cmd_usage_error(&cmd_show_def, "--format is text, markdown or json, not '%s'",
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
	if (format != PROV_FORMAT_JSON) {
		if ((err = render(&out, json, len, format)) < 0) {
			code = prov_cmd_fail(err);
			goto cleanup;
		}
		fwrite(out.buf, 1, out.len, stdout);
		goto cleanup;
	}
	fwrite(json, 1, len, stdout);
	if (!len || json[len - 1] != '\n')
		putchar('\n');
cleanup:
	prov_buf_release(&out);
	prov_store_free(store);
	free(store_path);
	free(json);
	return code;
}
