/* provenance mark: record the fix of a crash signature, for triage's lifecycle (docs/store.md). */
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
const struct cmd cmd_mark_def = {
	"mark", cmd_mark, 0,
	"mark SIGNATURE --fixed-in VERSION|COMMIT [--component NAME] [--bug URL] [--note TEXT]\n"
	"                  [--store PATH]",
	"record that a crash signature is fixed, for triage's regressions"
};

static const char help[] =
	"Record that crash SIGNATURE (as triage prints it) is fixed in VERSION of\n"
	"component NAME, or in COMMIT (7 to 64 hex digits). The latest mark of a\n"
	"signature replaces the one before. Triage then shows, per marked group,\n"
	"the fix, bug and note and a status: REGRESSION when a crash came from a\n"
	"build that has the fix (its version at or after VERSION in dpkg's order,\n"
	"or the fix's own commit), fixed when every crash came from a build before\n"
	"it, could not determine when a crash's build could not be placed (no\n"
	"version of the component; a commit: its ancestry is not in the store).\n"
	"resolve --store's \"seen before\" line says so for a new crash too.\n"
	"\n"
	"options:\n"
	"   --fixed-in V      the first version (or the commit) with the fix\n"
	"   --component NAME  the component V is a version of (default: each\n"
	"                     crash's crashing frame's component)\n"
	"   --bug URL         the bug or issue\n"
	"   --note TEXT       a note\n"
	"   --store PATH|URL  the store: a SQLite file (default: store.sqlite in the\n"
	"                     data directory) or PostgreSQL (postgresql://... or\n"
	"                     \"host=... dbname=...\")\n"
	"\n"
	"exit: 0 done, 2 no store or not a store, 64 usage error.\n";

enum { OPT_FIXED = 256, OPT_COMPONENT, OPT_BUG, OPT_NOTE, OPT_STORE, OPT_HELP };

static const struct option options[] = {
	{ "fixed-in", required_argument, NULL, OPT_FIXED },
	{ "component", required_argument, NULL, OPT_COMPONENT },
	{ "bug", required_argument, NULL, OPT_BUG },
	{ "note", required_argument, NULL, OPT_NOTE },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* a value stored and shown later: one line, no control characters */
static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

int cmd_mark(int argc, char **argv, struct prov_ctx *g)
{
	struct prov_store *store = NULL;
	const char *store_opt = NULL, *fixed_in = NULL, *component = NULL, *bug = NULL, *note = NULL;
	const char *signature;
	char *store_path = NULL;
	int opt, code = 0, err;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (opt) {
		case OPT_FIXED:
			fixed_in = optarg;
			break;
		case OPT_COMPONENT:
			component = optarg;
			break;
		case OPT_BUG:
			bug = optarg;
			break;
		case OPT_NOTE:
			note = optarg;
			break;
		case OPT_STORE:
			store_opt = optarg;
			break;
		case OPT_HELP:
			code = prov_cmd_help(&cmd_mark_def, help);
			goto cleanup;
		case ':':
			code = prov_cmd_usage_error(&cmd_mark_def, "option '%s' needs a value", argv[optind - 1]);
			goto cleanup;
		default:
			code = prov_cmd_usage_error(&cmd_mark_def, "unknown option '%s'", argv[optind - 1]);
			goto cleanup;
		}
	}
	if (optind + 1 != argc) {
		code = prov_cmd_usage_error(&cmd_mark_def, optind < argc ? "one SIGNATURE only" :
					    "SIGNATURE is needed (as triage prints it)");
		goto cleanup;
	}
	signature = argv[optind];
	if (!fixed_in || !*fixed_in) {
		code = prov_cmd_usage_error(&cmd_mark_def, "--fixed-in VERSION|COMMIT is needed");
		goto cleanup;
	}
	if (!*signature || !printable(signature) || !printable(fixed_in) || (component && (!*component || !printable(component))) ||
	    (bug && !printable(bug)) || (note && !printable(note))) {
		code = prov_cmd_usage_error(&cmd_mark_def, "values must be one line of printable text");
		goto cleanup;
	}
	store_path = store_opt ? prov_xstrdup(store_opt) : prov_store_default_path(g->cache_dir);
	prov_store_hide_password((char *)store_opt);	/* argv: not on the process list */
	if ((err = prov_store_open(&store, store_path, 0)) < 0 ||
	    (err = prov_store_mark(store, signature, fixed_in, component, bug, note)) < 0) {
		code = prov_cmd_fail(err);
		goto cleanup;
	}
	printf("marked %s fixed in %s%s%s\n", signature, fixed_in, component ? " of " : "",
	       component ? component : "");
cleanup:
	prov_store_free(store);
	free(store_path);
	return code;
}
