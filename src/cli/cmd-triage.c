#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "cmd.h"
#include "error.h"
#include "json.h"
#include "util.h"
#include "banned.h"

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
	"   --since TIME      only crashes at or after TIME (YYYY-MM-DD[THH:MM[:SS]], UTC)\n"
	"   --component NAME  only crashes that ran component NAME\n"
	"   --runs N          how many runs there were: adds the repro rate, the\n"
	"                     share of runs that hit each crash (one crash counts\n"
	"                     one run; count one report per failed run)\n"
	"   --frames N        top frames shown per group (default 5)\n"
	"   --format FMT      text (default), markdown or json\n"
	"   --store PATH      the store (default: store.sqlite in the cache directory)\n"
	"\n"
	"exit: 0 done, 2 no store or not a store, 64 usage error.\n";

enum { OPT_SINCE = 256, OPT_COMPONENT, OPT_RUNS, OPT_FRAMES, OPT_FORMAT, OPT_STORE, OPT_HELP };

static const struct option options[] = {
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "component", required_argument, NULL, OPT_COMPONENT },
	{ "runs", required_argument, NULL, OPT_RUNS },
	{ "frames", required_argument, NULL, OPT_FRAMES },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/*
 * Reports come from other machines: a control character in a function name
 * must not reach the terminal, nor a '|' or '`' break Markdown. Made safe in
 * place before the human formats are written (JSON escapes on its own).
 */
static void defang(char *s, int md)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || ((md & 1) && c == '`') || ((md & 2) && c == '|'))
			*s = '?';
	}
}

/* md: 0 text; else Markdown: no '`' anywhere (code spans), no '|' in table cells */
static void defang_all(struct prov_triage *t, int md)
{
	size_t i, k;
	int cell = md ? 3 : 0;

	md = md ? 1 : 0;
	for (i = 0; i < t->ngroups; i++) {
		struct prov_triage_group *g = &t->groups[i];

		defang(g->signature, md);
		defang(g->first_seen, md);
		defang(g->last_seen, md);
		defang(g->signal_name, md);
		defang(g->context, md);
		for (k = 0; k < g->nframes; k++) {
			defang(g->frames[k].function, cell);
			defang(g->frames[k].file, cell);
			defang(g->frames[k].module, cell);
		}
		for (k = 0; k < g->nversions; k++) {
			defang(g->versions[k].component, md);
			defang(g->versions[k].version, md);
		}
	}
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Does the group see only some of the versions of a component the selection has? */
static int only_some(const struct prov_triage_group *g, const char *component)
{
	size_t i, with = 0, all = 0;

	for (i = 0; i < g->nversions; i++) {
		if (strcmp(g->versions[i].component, component))
			continue;
		all++;
		with += g->versions[i].count > 0;
	}
	return with > 0 && with < all;
}

static void text_versions(struct prov_buf *o, const struct prov_triage_group *g, int md)
{
	size_t i;
	const char *prev = NULL;
	int any = 0;

	for (i = 0; i < g->nversions; i++) {
		const struct prov_triage_version *v = &g->versions[i];

		if (!v->count)
			continue;
		if (!prev || strcmp(prev, v->component)) {
			prov_buf_printf(o, "%s%s %s", any ? "; " : "", v->component, v->version);
		} else {
			prov_buf_printf(o, ", %s", v->version);
		}
		prov_buf_printf(o, " (%lld)", (long long)v->count);
		prev = v->component;
		any = 1;
	}
	if (!any)
		prov_buf_puts(o, "none recorded");
	prov_buf_putc(o, '\n');
	prev = NULL;
	for (i = 0; i < g->nversions; i++) {
		const struct prov_triage_version *v = &g->versions[i];
		size_t k;
		int first = 1;

		if (prev && !strcmp(prev, v->component))
			continue;
		prev = v->component;
		if (!only_some(g, v->component))
			continue;
		prov_buf_printf(o, md ? "- **only with** %s " : "    only with: %s ", v->component);
		for (k = i; k < g->nversions && !strcmp(g->versions[k].component, v->component); k++)
			if (g->versions[k].count) {
				prov_buf_printf(o, "%s%s", first ? "" : ", ", g->versions[k].version);
				first = 0;
			}
		prov_buf_puts(o, " (never with ");
		first = 1;
		for (k = i; k < g->nversions && !strcmp(g->versions[k].component, v->component); k++)
			if (!g->versions[k].count) {
				prov_buf_printf(o, "%s%s: %lld crash%s of other kinds", first ? "" : ", ",
						g->versions[k].version, (long long)g->versions[k].total,
						g->versions[k].total == 1 ? "" : "es");
				first = 0;
			}
		prov_buf_puts(o, ")\n");
	}
}

static void write_text(struct prov_buf *o, const struct prov_triage *t, int64_t runs, int md)
{
	size_t i, k;

	if (md)
		prov_buf_printf(o, "# Crash triage\n\n**%lld crash%s** on %lld host%s, %zu signature%s",
				(long long)t->total, t->total == 1 ? "" : "es", (long long)t->hosts,
				t->hosts == 1 ? "" : "s", t->ngroups, t->ngroups == 1 ? "" : "s");
	else
		prov_buf_printf(o, "%lld crash%s on %lld host%s, %zu signature%s", (long long)t->total,
				t->total == 1 ? "" : "es", (long long)t->hosts, t->hosts == 1 ? "" : "s",
				t->ngroups, t->ngroups == 1 ? "" : "s");
	if (runs)
		prov_buf_printf(o, ", %lld run%s", (long long)runs, runs == 1 ? "" : "s");
	prov_buf_puts(o, md ? ".\n" : "\n");
	for (i = 0; i < t->ngroups; i++) {
		const struct prov_triage_group *g = &t->groups[i];

		if (md) {
			prov_buf_printf(o, "\n## %zu. `%s`\n\n", i + 1, g->signature);
			prov_buf_printf(o, "- **%lld crash%s** (%.1f%% of all) on %lld host%s\n",
					(long long)g->count, g->count == 1 ? "" : "es", pct(g->count, t->total),
					(long long)g->hosts, g->hosts == 1 ? "" : "s");
			prov_buf_printf(o, "- first seen %s, last seen %s\n",
					g->first_seen ? g->first_seen : "unknown",
					g->last_seen ? g->last_seen : "unknown");
			if (runs)
				prov_buf_printf(o, "- **repro rate %.1f%%** (%lld of %lld runs)\n",
						pct(g->count < runs ? g->count : runs, runs),
						(long long)(g->count < runs ? g->count : runs), (long long)runs);
			prov_buf_printf(o, "- %s, context %s (latest: crash %lld)\n",
					g->signal_name ? g->signal_name : "no signal",
					g->context ? g->context : "unknown", (long long)g->example_id);
			prov_buf_puts(o, "- components: ");
			text_versions(o, g, 1);
			prov_buf_puts(o, "\n| # | function | file:line | module |\n|---|---|---|---|\n");
			for (k = 0; k < g->nframes; k++) {
				const struct prov_triage_frame *f = &g->frames[k];

				prov_buf_printf(o, "| %zu | `%s` | %s", k, f->function ? f->function : "??",
						f->file ? f->file : "");
				if (f->line)
					prov_buf_printf(o, ":%lld", (long long)f->line);
				prov_buf_printf(o, " | %s |\n", f->module ? prov_basename(f->module) : "");
			}
			continue;
		}
		prov_buf_printf(o, "\n#%zu  %lld crash%s (%.1f%%) on %lld host%s, first %s, last %s\n",
				i + 1, (long long)g->count, g->count == 1 ? "" : "es", pct(g->count, t->total),
				(long long)g->hosts, g->hosts == 1 ? "" : "s",
				g->first_seen ? g->first_seen : "unknown",
				g->last_seen ? g->last_seen : "unknown");
		prov_buf_printf(o, "    signature: %s\n", g->signature);
		if (runs)
			prov_buf_printf(o, "    repro rate: %.1f%% (%lld of %lld runs)\n",
					pct(g->count < runs ? g->count : runs, runs),
					(long long)(g->count < runs ? g->count : runs), (long long)runs);
		prov_buf_printf(o, "    %s, context %s (latest: crash %lld)\n",
				g->signal_name ? g->signal_name : "no signal",
				g->context ? g->context : "unknown", (long long)g->example_id);
		for (k = 0; k < g->nframes; k++) {
			const struct prov_triage_frame *f = &g->frames[k];

			prov_buf_printf(o, "    %s #%zu %s", k ? "      " : "frames:", k,
					f->function ? f->function : "??");
			if (f->file) {
				prov_buf_printf(o, " at %s", f->file);
				if (f->line)
					prov_buf_printf(o, ":%lld", (long long)f->line);
			}
			if (f->module)
				prov_buf_printf(o, " (%s)", prov_basename(f->module));
			prov_buf_putc(o, '\n');
		}
		prov_buf_puts(o, "    components: ");
		text_versions(o, g, 0);
	}
}

static void write_json(struct prov_json *j, const struct prov_triage *t, int64_t runs)
{
	size_t i, k;

	prov_json_begin_object(j);
	prov_json_kv_string(j, "schema", "provenance-triage/1");
	prov_json_kv_int(j, "total", t->total);
	prov_json_kv_int(j, "hosts", t->hosts);
	if (runs)
		prov_json_kv_int(j, "runs", runs);
	else
		prov_json_kv_null(j, "runs");
	prov_json_key(j, "groups");
	prov_json_begin_array(j);
	for (i = 0; i < t->ngroups; i++) {
		const struct prov_triage_group *g = &t->groups[i];

		prov_json_begin_object(j);
		prov_json_kv_string(j, "signature", g->signature);
		prov_json_kv_int(j, "count", g->count);
		prov_json_kv_int(j, "hosts", g->hosts);
		prov_json_kv_string(j, "first_seen", g->first_seen);
		prov_json_kv_string(j, "last_seen", g->last_seen);
		prov_json_key(j, "share");
		prov_json_fixed(j, t->total ? (double)g->count / (double)t->total : 0.0, 4);
		prov_json_key(j, "repro_rate");
		if (runs)
			prov_json_fixed(j, (double)(g->count < runs ? g->count : runs) / (double)runs, 4);
		else
			prov_json_null(j);
		prov_json_kv_string(j, "signal", g->signal_name);
		prov_json_kv_string(j, "context", g->context);
		prov_json_kv_int(j, "latest_crash_id", g->example_id);
		prov_json_key(j, "frames");
		prov_json_begin_array(j);
		for (k = 0; k < g->nframes; k++) {
			prov_json_begin_object(j);
			prov_json_kv_string(j, "function", g->frames[k].function);
			prov_json_kv_string(j, "file", g->frames[k].file);
			if (g->frames[k].line)
				prov_json_kv_int(j, "line", g->frames[k].line);
			else
				prov_json_kv_null(j, "line");
			prov_json_kv_string(j, "module", g->frames[k].module);
			prov_json_end_object(j);
		}
		prov_json_end_array(j);
		prov_json_key(j, "components");
		prov_json_begin_array(j);
		for (k = 0; k < g->nversions; k++) {
			const struct prov_triage_version *v = &g->versions[k];

			prov_json_begin_object(j);
			prov_json_kv_string(j, "name", v->component);
			prov_json_kv_string(j, "version", v->version);
			prov_json_kv_int(j, "count", v->count);
			prov_json_kv_int(j, "all_crashes", v->total);
			prov_json_end_object(j);
		}
		prov_json_end_array(j);
		prov_json_end_object(j);
	}
	prov_json_end_array(j);
	prov_json_end_object(j);
}

int cmd_triage(int argc, char **argv, struct prov_ctx *g)
{
	struct prov_triage_opts to = { 0 };
	struct prov_triage t = { 0 };
	struct prov_store *store = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	const char *format = "text", *store_opt = NULL;
	char *store_path = NULL, since[21];
	int64_t runs = 0;
	int opt, code = 0, err;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (opt) {
		case OPT_SINCE:
			if (prov_store_parse_time(since, optarg) < 0) {
				code = prov_cmd_usage_error("triage", "%s", prov_error_last());
				goto cleanup;
			}
			to.since = since;
			break;
		case OPT_COMPONENT:
			to.component = optarg;
			break;
		case OPT_RUNS:
			if (prov_parse_i64(&runs, optarg, strlen(optarg)) < 0 || runs < 1) {
				code = prov_cmd_usage_error("triage", "--runs wants a positive number, not '%s'", optarg);
				goto cleanup;
			}
			break;
		case OPT_FRAMES: {
			int n;

			if (prov_parse_int(&n, optarg, strlen(optarg)) < 0 || n < 1 || n > 100) {
				code = prov_cmd_usage_error("triage", "--frames wants a number from 1 to 100, not '%s'", optarg);
				goto cleanup;
			}
			to.max_frames = (size_t)n;
			break;
		}
		case OPT_FORMAT:
			if (prov_cmd_parse_format(&format, optarg, "text|markdown|json") < 0) {
				code = prov_cmd_usage_error("triage", "%s", prov_error_last());
				goto cleanup;
			}
			break;
		case OPT_STORE:
			store_opt = optarg;
			break;
		case OPT_HELP:
			code = prov_cmd_help("triage", help);
			goto cleanup;
		case ':':
			code = prov_cmd_usage_error("triage", "option '%s' needs a value", argv[optind - 1]);
			goto cleanup;
		default:
			code = prov_cmd_usage_error("triage", "unknown option '%s'", argv[optind - 1]);
			goto cleanup;
		}
	}
	if (optind < argc) {
		code = prov_cmd_usage_error("triage", "unexpected argument '%s'", argv[optind]);
		goto cleanup;
	}
	store_path = store_opt ? prov_xstrdup(store_opt) : prov_store_default_path(g->cache_dir);
	if ((err = prov_store_open(&store, store_path, 1)) < 0 ||
	    (err = prov_store_triage(&t, store, &to)) < 0) {
		code = prov_cmd_fail(err == PROV_ENOTFOUND ? PROV_EINPUT : err);
		goto cleanup;
	}
	if (!strcmp(format, "json")) {
		struct prov_json j;

		prov_json_init(&j, &out);
		write_json(&j, &t, runs);
		err = prov_json_finish(&j);
	} else {
		defang_all(&t, !strcmp(format, "markdown"));
		write_text(&out, &t, runs, !strcmp(format, "markdown"));
		err = 0;
	}
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
	return code;
}
