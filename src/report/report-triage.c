/* triage's output: the store's crashes grouped by signature, as text, Markdown or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
		for (k = 0; k < g->nbuckets; k++)
			defang(g->buckets[k].key, cell);
		if (g->fix) {
			defang(g->fix->fixed_in, md);
			defang(g->fix->component, md);
			defang(g->fix->bug, md);
			defang(g->fix->note, md);
			defang(g->fix->marked, md);
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


/* buckets listed per group in text and Markdown; JSON has them all */
#define TRIAGE_MAX_BUCKETS 40

/* ---- the sparkline's axis: every group's keys, and for days and weeks the gaps between ---- */

struct axis {
	char **keys;
	size_t n;
};

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the next day or ISO week after `key` (UTC), into out; 0 or -1 */
static int next_key(char out[16], const char *key, int week)
{
	struct tm tm = { 0 };
	time_t secs;
	int y, m = 1, d = 1, w = 1;

	if (prov_parse_int(&y, key, 4) < 0)
		return -1;
	if (week) {	/* Monday of week w: Jan 4 is in week 1 */
		if (strlen(key) != 8 || prov_parse_int(&w, key + 6, 2) < 0)
			return -1;
		tm.tm_year = y - 1900;
		tm.tm_mon = 0;
		tm.tm_mday = 4;
		tm.tm_hour = 12;
		if ((secs = timegm(&tm)) == (time_t)-1 || !gmtime_r(&secs, &tm))
			return -1;
		secs += ((time_t)(w - 1) * 7 - (tm.tm_wday + 6) % 7 + 7) * 86400;
	} else {
		if (strlen(key) != 10 || prov_parse_int(&m, key + 5, 2) < 0 || prov_parse_int(&d, key + 8, 2) < 0)
			return -1;
		tm.tm_year = y - 1900;
		tm.tm_mon = m - 1;
		tm.tm_mday = d;
		tm.tm_hour = 12;
		if ((secs = timegm(&tm)) == (time_t)-1)
			return -1;
		secs += 86400;
	}
	if (!gmtime_r(&secs, &tm) || !strftime(out, 16, week ? "%G-W%V" : "%Y-%m-%d", &tm))
		return -1;
	return 0;
}

/* at most this many points on a time axis: a wider one is not drawn */
#define TRIAGE_MAX_AXIS 400

static void axis_build(struct axis *a, const struct prov_triage *t)
{
	size_t i, k, n = 0;
	char **all = NULL, next[16];
	int week = !strcmp(t->by, "week");

	memset(a, 0, sizeof(*a));
	for (i = 0; i < t->ngroups; i++)
		for (k = 0; k < t->groups[i].nbuckets; k++) {
			all = prov_xrealloc(all, (n + 1) * sizeof(*all));
			all[n++] = t->groups[i].buckets[k].key;
		}
	if (!n)
		return;
	qsort(all, n, sizeof(*all), key_cmp);
	/* first to last, every day (week) in between */
	a->keys = prov_xcalloc(1, sizeof(*a->keys));
	a->keys[a->n++] = prov_xstrdup(all[0]);
	while (strcmp(a->keys[a->n - 1], all[n - 1]) < 0) {
		if (a->n >= TRIAGE_MAX_AXIS || next_key(next, a->keys[a->n - 1], week) < 0 ||
		    strcmp(next, a->keys[a->n - 1]) <= 0) {
			for (i = 0; i < a->n; i++)
				free(a->keys[i]);
			free(a->keys);
			memset(a, 0, sizeof(*a));
			break;
		}
		a->keys = prov_xrealloc(a->keys, (a->n + 1) * sizeof(*a->keys));
		a->keys[a->n++] = prov_xstrdup(next);
	}
	free(all);
}

static void axis_release(struct axis *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->keys[i]);
	free(a->keys);
}

/* one character per axis point: ' ' none, then eight heights (blocks, or ASCII) */
static void sparkline(struct prov_buf *o, const struct axis *a, const struct prov_triage_group *g, int utf8)
{
	static const char *const blocks[] = { "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586",
					      "\u2587", "\u2588" };
	static const char ascii[] = "._-~=+*#";
	int64_t max = 0;
	size_t i, k = 0;

	for (i = 0; i < g->nbuckets; i++)
		if (g->buckets[i].count > max)
			max = g->buckets[i].count;
	for (i = 0; i < a->n; i++) {
		int64_t n = 0;

		while (k < g->nbuckets && strcmp(g->buckets[k].key, a->keys[i]) < 0)
			k++;
		if (k < g->nbuckets && !strcmp(g->buckets[k].key, a->keys[i]))
			n = g->buckets[k].count;
		if (!n || !max) {
			prov_buf_putc(o, ' ');
			continue;
		}
		if (utf8)
			prov_buf_puts(o, blocks[(size_t)((n * 8 - 1) / max)]);
		else
			prov_buf_putc(o, ascii[(size_t)((n * 8 - 1) / max)]);
	}
}

static void text_buckets(struct prov_buf *o, const struct prov_triage *t, const struct axis *a,
			 const struct prov_triage_group *g, int md, int utf8)
{
	size_t k;

	if (md)
		prov_buf_printf(o, "\n| %s | crashes |\n|---|---|\n", t->by);
	else if (a->n && g->nbuckets) {
		prov_buf_printf(o, "    by %s: ", t->by);
		sparkline(o, a, g, utf8);
		prov_buf_printf(o, " (%s to %s)\n", a->keys[0], a->keys[a->n - 1]);
	} else {
		prov_buf_printf(o, "    by %s:%s\n", t->by, g->nbuckets ? "" : " none");
	}
	for (k = 0; k < g->nbuckets && k < TRIAGE_MAX_BUCKETS; k++)
		prov_buf_printf(o, md ? "| %s | %lld |\n" : "      %-24s %lld\n", g->buckets[k].key,
				(long long)g->buckets[k].count);
	if (g->nbuckets > TRIAGE_MAX_BUCKETS)
		prov_buf_printf(o, md ? "| and %zu more | |\n" : "      and %zu more (--format json has all)\n",
				g->nbuckets - TRIAGE_MAX_BUCKETS);
}

static const char *status_word(const struct prov_triage_fix *f)
{
	return f->status == PROV_MARK_REGRESSION ? "REGRESSION" :
		f->status == PROV_MARK_FIXED ? "fixed" : "could not determine";
}

static const char *status_json(const struct prov_triage_fix *f)
{
	return f->status == PROV_MARK_REGRESSION ? "regression" :
		f->status == PROV_MARK_FIXED ? "fixed" : "undetermined";
}

static void text_fix(struct prov_buf *o, const struct prov_triage_fix *f, int md)
{
	prov_buf_printf(o, md ? "- **%s**: fixed in %s%s%s" : "    lifecycle: %s: fixed in %s%s%s", status_word(f),
			f->fixed_in, f->component ? " of " : "", f->component ? f->component : "");
	prov_buf_printf(o, " (%lld crash%s from builds with the fix, %lld before it, %lld not placed)",
			(long long)f->in_fixed, f->in_fixed == 1 ? "" : "es", (long long)f->before,
			(long long)f->unknown);
	if (f->bug)
		prov_buf_printf(o, "; bug %s", f->bug);
	if (f->note)
		prov_buf_printf(o, "; note: %s", f->note);
	if (f->marked)
		prov_buf_printf(o, "; marked %s", f->marked);
	prov_buf_putc(o, '\n');
}

static void write_text(struct prov_buf *o, const struct prov_triage *t, int64_t runs, int md, int utf8)
{
	struct axis a = { 0 };
	size_t i, k;

	if (t->by && (!strcmp(t->by, "day") || !strcmp(t->by, "week")))
		axis_build(&a, t);

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
			if (g->fix)
				text_fix(o, g->fix, 1);
			prov_buf_puts(o, "\n| # | function | file:line | module |\n|---|---|---|---|\n");
			for (k = 0; k < g->nframes; k++) {
				const struct prov_triage_frame *f = &g->frames[k];

				prov_buf_printf(o, "| %zu | `%s` | %s", k, f->function ? f->function : "??",
						f->file ? f->file : "");
				if (f->line)
					prov_buf_printf(o, ":%lld", (long long)f->line);
				prov_buf_printf(o, " | %s |\n", f->module ? prov_basename(f->module) : "");
			}
			if (t->by)
				text_buckets(o, t, &a, g, 1, utf8);
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
		if (g->fix)
			text_fix(o, g->fix, 0);
		if (t->by)
			text_buckets(o, t, &a, g, 0, utf8);
	}
	axis_release(&a);
}

static void write_json(struct prov_json *j, const struct prov_triage *t, int64_t runs)
{
	size_t i, k;

	prov_json_begin_object(j);
	prov_json_kv_string(j, "schema", "provenance-triage/1");
	prov_json_kv_string(j, "by", t->by);
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
		if (t->by) {
			prov_json_key(j, "buckets");
			prov_json_begin_array(j);
			for (k = 0; k < g->nbuckets; k++) {
				prov_json_begin_object(j);
				prov_json_kv_string(j, "key", g->buckets[k].key);
				prov_json_kv_int(j, "count", g->buckets[k].count);
				if (!strcmp(t->by, "image"))	/* null: no image */
					prov_json_kv_string(j, "digest", g->buckets[k].digest);
				prov_json_end_object(j);
			}
			prov_json_end_array(j);
		}
		prov_json_key(j, "fix");
		if (g->fix) {
			prov_json_begin_object(j);
			prov_json_kv_string(j, "fixed_in", g->fix->fixed_in);
			prov_json_kv_string(j, "component", g->fix->component);
			prov_json_kv_string(j, "bug", g->fix->bug);
			prov_json_kv_string(j, "note", g->fix->note);
			prov_json_kv_string(j, "marked", g->fix->marked);
			prov_json_kv_string(j, "status", status_json(g->fix));
			prov_json_kv_int(j, "crashes_with_fix", g->fix->in_fixed);
			prov_json_kv_int(j, "crashes_before_fix", g->fix->before);
			prov_json_kv_int(j, "crashes_not_placed", g->fix->unknown);
			prov_json_end_object(j);
		} else {
			prov_json_null(j);
		}
		prov_json_end_object(j);
	}
	prov_json_end_array(j);
	prov_json_end_object(j);
}

int prov_report_triage(struct prov_buf *out, struct prov_triage *t, int64_t runs,
		       enum prov_format format, int utf8)
{
	struct prov_json j;

	if (format == PROV_FORMAT_JSON) {
		prov_json_init(&j, out);
		write_json(&j, t, runs);
		return prov_json_finish(&j);
	}
	defang_all(t, format == PROV_FORMAT_MARKDOWN);
	write_text(out, t, runs, format == PROV_FORMAT_MARKDOWN, utf8);
	return 0;
}
