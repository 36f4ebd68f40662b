/* triage's output: the store's crashes grouped by signature, as text, Markdown or JSON. */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "util.h"
#include "banned.h"

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

/* component versions shown per group; the rest are counted ("and K more") */
#define TRIAGE_MAX_VERSIONS 20

static void text_versions(struct prov_buf *o, const struct prov_triage_group *g, int md)
{
	size_t i, shown = 0, more = 0;
	const char *prev = NULL;
	int any = 0;

	for (i = 0; i < g->nversions; i++) {
		const struct prov_triage_version *v = &g->versions[i];

		if (!v->count)
			continue;
		if (shown >= TRIAGE_MAX_VERSIONS) {
			more++;
			continue;
		}
		shown++;
		if (!prev || strcmp(prev, v->component)) {
			prov_buf_printf(o, "%s%s %s", any ? "; " : "", v->component, v->version);
		} else {
			prov_buf_printf(o, ", %s", v->version);
		}
		if (v->approximate)	/* resolved to a branch tip or a guessed tag: see query's components.found_by */
			prov_buf_printf(o, " (%lld, %lld approximate)", (long long)v->count,
					(long long)v->approximate);
		else
			prov_buf_printf(o, " (%lld)", (long long)v->count);
		prev = v->component;
		any = 1;
	}
	if (!any)
		prov_buf_puts(o, "none recorded");
	if (more)
		prov_buf_printf(o, "; and %zu more", more);
	prov_buf_putc(o, '\n');
	prev = NULL;
	shown = 0;
	for (i = 0; i < g->nversions; i++) {
		const struct prov_triage_version *v = &g->versions[i];
		size_t k;
		int first = 1;

		if (prev && !strcmp(prev, v->component))
			continue;
		prev = v->component;
		if (!only_some(g, v->component))
			continue;
		if (++shown > TRIAGE_MAX_VERSIONS)
			break;
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
		prov_json_real(j, t->total ? (double)g->count / (double)t->total : 0.0);
		prov_json_key(j, "repro_rate");
		if (runs)
			prov_json_real(j, (double)(g->count < runs ? g->count : runs) / (double)runs);
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
			prov_json_kv_int(j, "approximate", v->approximate);
			prov_json_end_object(j);
		}
		prov_json_end_array(j);
		prov_json_end_object(j);
	}
	prov_json_end_array(j);
	prov_json_end_object(j);
}

int prov_report_triage(struct prov_buf *out, struct prov_triage *t, int64_t runs,
		       enum prov_format format)
{
	struct prov_json j;

	if (format == PROV_FORMAT_JSON) {
		prov_json_init(&j, out);
		write_json(&j, t, runs);
		return prov_json_finish(&j);
	}
	defang_all(t, format == PROV_FORMAT_MARKDOWN);
	write_text(out, t, runs, format == PROV_FORMAT_MARKDOWN);
	return 0;
}
