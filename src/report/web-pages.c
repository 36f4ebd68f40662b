/* The web view's pages (serve): top crashers, a signature, a crash, as HTML with inline SVG charts. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "web.h"
#include "jsonread.h"
#include "error.h"
#include "banned.h"

#define SPARK_DAYS 90	/* a sparkline spans at most the selection's last 90 days */
#define CHART_DAYS 366	/* a signature's chart at most its last 366 days */
#define JSON_DEPTH 8	/* a crash page renders nested values this deep, then "…" */

const char prov_web_css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fff}\n"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em;border-bottom:1px solid #ccc}\n"
	"table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ddd;padding:2px 6px;"
	"text-align:left;vertical-align:top}th{background:#f4f4f4}\n"
	"td.n{text-align:right}code,.mono{font-family:monospace;font-size:.95em}\n"
	"form{margin:.5em 0}input{margin-right:1em}a{color:#0645ad}\n"
	"svg .bar{fill:#4a78c2}svg .axis{stroke:#444;stroke-width:1}svg text{font-size:11px;fill:#333}\n"
	"svg.spark polyline{fill:none;stroke:#4a78c2;stroke-width:1.5}\n"
	".note{color:#666}ol.frames{margin:0;padding-left:1.5em}\n"
	".regression{color:#b00;font-weight:bold}.fixed{color:#070}table.buckets td{border:0;padding:0 4px}\n";

int64_t prov_web_day(const char *iso)
{
	struct tm tm = { 0 };
	int y = 0, m, d, i;

	if (!iso || strlen(iso) < 10 || iso[4] != '-' || iso[7] != '-')
		return -1;
	for (i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (iso[i] < '0' || iso[i] > '9'))
			return -1;
	for (i = 0; i < 4; i++)
		y = y * 10 + (iso[i] - '0');
	m = (iso[5] - '0') * 10 + (iso[6] - '0');
	d = (iso[8] - '0') * 10 + (iso[9] - '0');
	if (m < 1 || m > 12 || d < 1 || d > 31)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	return (int64_t)(timegm(&tm) / 86400);
}

static void day_text(char out[16], int64_t day)
{
	time_t t = (time_t)(day * 86400);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 16, "%Y-%m-%d", &tm);
}

static void head(struct prov_buf *b, const char *title_a, const char *title_b)
{
	prov_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		      "<meta name=\"viewport\" content=\"width=device-width\"><title>provenance: ");
	prov_web_html(b, title_a);
	prov_web_html(b, title_b);
	prov_buf_puts(b, "</title><link rel=\"stylesheet\" href=\"/style.css\"></head>\n<body>\n"
		      "<p class=\"note\"><a href=\"/\">provenance: top crashers</a></p>\n");
}

static void foot(struct prov_buf *b)
{
	prov_buf_puts(b, "</body></html>\n");
}

/* The count of `s` on `day`, walking the series in order (i: the cursor). */
static int64_t count_on(const struct prov_web_series *s, size_t *i, int64_t day)
{
	while (*i < s->n && s->day[*i] < day)
		(*i)++;
	return *i < s->n && s->day[*i] == day ? s->count[*i] : 0;
}

static void sparkline(struct prov_buf *b, const struct prov_web_series *s, int64_t lo, int64_t hi)
{
	const int w = 120, h = 24;
	int64_t max = 1, d;
	size_t i = 0, j;

	if (!s || !s->n || hi < lo) {
		prov_buf_puts(b, "<span class=\"note\">no dated crashes</span>");
		return;
	}
	for (j = 0; j < s->n; j++)
		if (s->day[j] >= lo && s->count[j] > max)
			max = s->count[j];
	prov_buf_printf(b, "<svg class=\"spark\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">"
			"<title>crashes per day, %" PRId64 " days, at most %" PRId64 " a day</title><polyline points=\"",
			w, h + 2, w, h + 2, hi - lo + 1, max);
	for (d = lo; d <= hi; d++) {
		double x = hi > lo ? (double)(d - lo) * (w - 2) / (double)(hi - lo) + 1 : w / 2.0;
		double y = 1 + h - (double)count_on(s, &i, d) * h / (double)max;

		prov_buf_printf(b, "%s%.1f,%.1f", d > lo ? " " : "", x, y);
	}
	prov_buf_puts(b, "\"/></svg>");
}

/* A signature's crashes per day: one bar per day from its first to its last day (at most CHART_DAYS). */
static void chart(struct prov_buf *b, const struct prov_web_series *s)
{
	const int left = 48, right = 44, top = 12, bottom = 40, ph = 180;
	int64_t lo, hi, max = 1, d, ticks[3];
	size_t i = 0, j;
	double bw;
	int pw, k;
	char txt[16];

	if (!s || !s->n) {
		prov_buf_puts(b, "<p class=\"note\">No crash of this signature has a time.</p>\n");
		return;
	}
	hi = s->day[s->n - 1];
	lo = s->day[0] < hi - (CHART_DAYS - 1) ? hi - (CHART_DAYS - 1) : s->day[0];
	for (j = 0; j < s->n; j++)
		if (s->day[j] >= lo && s->count[j] > max)
			max = s->count[j];
	bw = hi - lo + 1 > 60 ? 4 : 12;
	pw = (int)(bw * (double)(hi - lo + 1));
	if (pw < 200)
		pw = 200;
	bw = (double)pw / (double)(hi - lo + 1);
	prov_buf_printf(b, "<svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">"
			"<title>crashes per day</title>\n", left + pw + right, top + ph + bottom,
			left + pw + right, top + ph + bottom);
	for (d = lo; d <= hi; d++) {
		int64_t c = count_on(s, &i, d);
		double bh = (double)c * ph / (double)max;

		day_text(txt, d);
		prov_buf_printf(b, "<rect class=\"bar\" data-day=\"%s\" data-count=\"%" PRId64 "\" x=\"%.1f\" y=\"%.1f\""
				" width=\"%.1f\" height=\"%.1f\"><title>%s: %" PRId64 "</title></rect>\n",
				txt, c, left + (double)(d - lo) * bw + bw * 0.1, top + ph - bh, bw * 0.8, bh, txt, c);
	}
	/* axes: y from 0 to the largest day, x with the first, middle and last day */
	prov_buf_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
			"<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
			left, top, left, top + ph, left, top + ph, left + pw, top + ph);
	prov_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%" PRId64 "</text>"
			"<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n",
			left - 4, top + 10, max, left - 4, top + ph);
	prov_buf_printf(b, "<text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">crashes</text>\n",
			top + ph / 2, top + ph / 2);
	ticks[0] = lo;
	ticks[1] = lo + (hi - lo) / 2;
	ticks[2] = hi;
	for (k = 0; k < 3; k++) {
		if (k && ticks[k] == ticks[k - 1])
			continue;
		day_text(txt, ticks[k]);
		prov_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
				left + ((double)(ticks[k] - lo) + 0.5) * bw, top + ph + 16, txt);
	}
	prov_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">day (UTC)</text>\n</svg>\n",
			left + pw / 2, top + ph + 34);
}

static void frames_list(struct prov_buf *b, const struct prov_triage_group *g, size_t max)
{
	size_t i;

	prov_buf_puts(b, "<ol class=\"frames mono\">");
	for (i = 0; i < g->nframes && i < max; i++) {
		prov_buf_puts(b, "<li>");
		prov_web_html(b, g->frames[i].function ? g->frames[i].function : "??");
		prov_buf_puts(b, "</li>");
	}
	prov_buf_puts(b, "</ol>");
}

static void versions_list(struct prov_buf *b, const struct prov_triage_group *g)
{
	size_t i;

	for (i = 0; i < g->nversions; i++) {
		const struct prov_triage_version *v = &g->versions[i];

		if (!v->count)
			continue;
		prov_web_html(b, v->component);
		prov_buf_puts(b, " ");
		prov_web_html(b, v->version);
		prov_buf_printf(b, " (%" PRId64 ")<br>", v->count);
	}
}

/* The lifecycle's status as the page says it; the JSON's word goes in data-status. */
static const char *fix_word(const struct prov_triage_fix *f)
{
	return f->status == PROV_MARK_REGRESSION ? "REGRESSION" :
		f->status == PROV_MARK_FIXED ? "fixed" : "could not determine";
}

static const char *fix_json_word(const struct prov_triage_fix *f)
{
	return f->status == PROV_MARK_REGRESSION ? "regression" :
		f->status == PROV_MARK_FIXED ? "fixed" : "undetermined";
}

/* "fixed in V of C" and the crash counts behind the status. */
static void fix_summary(struct prov_buf *b, const struct prov_triage_fix *f)
{
	prov_buf_puts(b, "fixed in <code class=\"fixed-in\">");
	prov_web_html(b, f->fixed_in);
	prov_buf_puts(b, "</code>");
	if (f->component) {
		prov_buf_puts(b, " of <code>");
		prov_web_html(b, f->component);
		prov_buf_puts(b, "</code>");
	}
	prov_buf_printf(b, "<br><span class=\"note\">crashes from builds with the fix: %" PRId64 ", before it: %" PRId64
			", not placed: %" PRId64 "</span>", f->in_fixed, f->before, f->unknown);
}

/* `/`'s fix status cell: provenance mark's record, or "not marked". */
static void fix_cell(struct prov_buf *b, const struct prov_triage_fix *f)
{
	if (!f) {
		prov_buf_puts(b, "<td class=\"fix\" data-status=\"\"><span class=\"note\">not marked</span></td>");
		return;
	}
	prov_buf_printf(b, "<td class=\"fix\" data-status=\"%s\"><span class=\"%s\">%s</span><br>", fix_json_word(f),
			f->status == PROV_MARK_REGRESSION ? "regression" : f->status == PROV_MARK_FIXED ? "fixed" : "note",
			fix_word(f));
	fix_summary(b, f);
	prov_buf_puts(b, "</td>");
}

/* A group's buckets (triage --by) as a small key/count table. */
/*
 * An image's bucket (triage --by image) links to its crashes of the
 * signature: the page's query, and image= its digest unless the page is
 * already of one image.
 */
static void bucket_link(struct prov_buf *b, const struct prov_triage_group *g, const struct prov_triage_bucket *k,
			const struct prov_web_filters *f)
{
	const char *q = f && f->query ? f->query : "";

	prov_buf_puts(b, "<a class=\"image\" href=\"/signature/");
	prov_web_url(b, g->signature);
	prov_web_html(b, q);
	if (!f || !f->image) {
		prov_buf_puts(b, *q ? "&amp;image=" : "?image=");
		prov_web_url(b, k->digest);
	}
	prov_buf_puts(b, "\">");
	prov_web_html(b, k->key);
	prov_buf_puts(b, "</a>");
}

static void buckets_table(struct prov_buf *b, const struct prov_triage_group *g, const struct prov_web_filters *f)
{
	size_t i;

	if (!g->nbuckets) {
		prov_buf_puts(b, "<span class=\"note\">none</span>");
		return;
	}
	prov_buf_puts(b, "<table class=\"buckets\">");
	for (i = 0; i < g->nbuckets; i++) {
		prov_buf_puts(b, "<tr class=\"bucket\"><td class=\"mono key\">");
		if (f && f->by && !strcmp(f->by, "image") && g->buckets[i].digest)
			bucket_link(b, g, &g->buckets[i], f);
		else
			prov_web_html(b, g->buckets[i].key);
		prov_buf_printf(b, "</td><td class=\"n count\">%" PRId64 "</td></tr>", g->buckets[i].count);
	}
	prov_buf_puts(b, "</table>");
}

static void sig_link(struct prov_buf *b, const char *sig, const struct prov_web_filters *f)
{
	prov_buf_puts(b, "<a href=\"/signature/");
	prov_web_url(b, sig);
	prov_web_html(b, f && f->query ? f->query : "");
	prov_buf_puts(b, "\">");
	prov_web_html(b, sig);
	prov_buf_puts(b, "</a>");
}

void prov_web_page_top(struct prov_buf *b, const struct prov_triage *t, const struct prov_web_series *series,
		       const struct prov_web_filters *f, int cut)
{
	static const char *const kinds[] = { "", "day", "week", "version", "host", "image" };
	int64_t lo = -1, hi = -1;
	size_t i, j;

	head(b, "top crashers", "");
	prov_buf_puts(b, "<h1>Top crashers</h1>\n<form method=\"get\" action=\"/\">"
		      "<label>since <input name=\"since\" placeholder=\"2026-11-01 or 7d\" value=\"");
	prov_web_html(b, f->since);
	prov_buf_puts(b, "\"></label><label>component <input name=\"component\" value=\"");
	prov_web_html(b, f->component);
	prov_buf_puts(b, "\"></label><label>image <input name=\"image\" placeholder=\"sha256:12+ hex digits or a tag\" value=\"");
	prov_web_html(b, f->image);
	prov_buf_puts(b, "\"></label><label>crashes per <select name=\"by\">");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		prov_buf_printf(b, "<option value=\"%s\"%s>%s</option>", kinds[i],
				(f->by ? !strcmp(f->by, kinds[i]) : !*kinds[i]) ? " selected" : "",
				*kinds[i] ? kinds[i] : "(none)");
	prov_buf_puts(b, "</select></label><button type=\"submit\">filter</button></form>\n");
	prov_buf_printf(b, "<p><span id=\"total\">%" PRId64 "</span> crashes on <span id=\"hosts\">%" PRId64
			"</span> hosts, <span id=\"groups\">%zu</span> signatures. <a href=\"/api/triage.json",
			t->total, t->hosts, t->ngroups);
	prov_web_html(b, f->query);
	prov_buf_puts(b, "\">JSON</a></p>\n");
	if (cut)
		prov_buf_puts(b, "<p class=\"note\">The daily counts were cut at their row limit: some sparklines are incomplete.</p>\n");
	for (i = 0; series && i < t->ngroups; i++)
		for (j = 0; j < series[i].n; j++) {
			if (lo < 0 || series[i].day[j] < lo)
				lo = series[i].day[j];
			if (series[i].day[j] > hi)
				hi = series[i].day[j];
		}
	if (lo >= 0 && hi - lo >= SPARK_DAYS)
		lo = hi - (SPARK_DAYS - 1);
	prov_buf_puts(b, "<table class=\"crashers\"><thead><tr><th>#</th><th>signature</th><th>crashes</th>"
		      "<th>share</th><th>hosts</th><th>first seen</th><th>last seen</th><th>versions</th>"
		      "<th>fix status</th><th>top frames (latest crash)</th><th>per day</th>");
	if (f->by)
		prov_buf_printf(b, "<th>crashes per %s</th>", f->by);
	prov_buf_puts(b, "</tr></thead><tbody>\n");
	for (i = 0; i < t->ngroups; i++) {
		const struct prov_triage_group *g = &t->groups[i];

		prov_buf_printf(b, "<tr class=\"group\"><td class=\"n\">%zu</td><td class=\"mono sig\">", i + 1);
		sig_link(b, g->signature, f);
		if (g->signal_name) {
			prov_buf_puts(b, "<br><span class=\"note\">");
			prov_web_html(b, g->signal_name);
			prov_buf_puts(b, "</span>");
		}
		prov_buf_printf(b, "</td><td class=\"n count\">%" PRId64 "</td><td class=\"n\">%.1f%%</td>"
				"<td class=\"n hosts\">%" PRId64 "</td><td>", g->count,
				t->total ? 100.0 * (double)g->count / (double)t->total : 0.0, g->hosts);
		prov_web_html(b, g->first_seen ? g->first_seen : "unknown");
		prov_buf_puts(b, "</td><td>");
		prov_web_html(b, g->last_seen ? g->last_seen : "unknown");
		prov_buf_puts(b, "</td><td class=\"mono\">");
		versions_list(b, g);
		prov_buf_puts(b, "</td>");
		fix_cell(b, g->fix);
		prov_buf_puts(b, "<td>");
		frames_list(b, g, 5);
		prov_buf_puts(b, "</td><td>");
		sparkline(b, series ? &series[i] : NULL, lo, hi);
		prov_buf_puts(b, "</td>");
		if (f->by) {
			prov_buf_puts(b, "<td class=\"per\">");
			buckets_table(b, g, f);
			prov_buf_puts(b, "</td>");
		}
		prov_buf_puts(b, "</tr>\n");
	}
	prov_buf_puts(b, "</tbody></table>\n");
	foot(b);
}

/* A bug reference: a link when it is an http(s) URL, else text. */
static void bug_ref(struct prov_buf *b, const char *bug)
{
	if (!strncmp(bug, "https://", 8) || !strncmp(bug, "http://", 7)) {
		prov_buf_puts(b, "<a href=\"");
		prov_web_html(b, bug);
		prov_buf_puts(b, "\">");
		prov_web_html(b, bug);
		prov_buf_puts(b, "</a>");
	} else {
		prov_web_html(b, bug);
	}
}

/* The signature page's "Fix status": the mark, what the crashes say about it, the fix component's versions. */
static void fix_section(struct prov_buf *b, const struct prov_triage_group *g)
{
	const struct prov_triage_fix *f = g->fix;
	size_t i, n = 0;

	prov_buf_puts(b, "<h2>Fix status</h2>\n");
	if (!f) {
		prov_buf_puts(b, "<p id=\"fix\" data-status=\"\">Not marked: no <code>provenance mark</code> names this "
			      "signature.</p>\n");
		return;
	}
	prov_buf_printf(b, "<table class=\"kv\" id=\"fix\" data-status=\"%s\"><tr><th>status</th><td><span class=\"%s\">%s"
			"</span></td></tr><tr><th>fixed in</th><td class=\"mono fixed-in\">", fix_json_word(f),
			f->status == PROV_MARK_REGRESSION ? "regression" : f->status == PROV_MARK_FIXED ? "fixed" : "note",
			fix_word(f));
	prov_web_html(b, f->fixed_in);
	prov_buf_puts(b, "</td></tr><tr><th>component</th><td class=\"mono\">");
	prov_web_html(b, f->component ? f->component : "not given (the innermost frame's)");
	prov_buf_puts(b, "</td></tr>");
	if (f->bug) {
		prov_buf_puts(b, "<tr><th>bug</th><td>");
		bug_ref(b, f->bug);
		prov_buf_puts(b, "</td></tr>");
	}
	if (f->note) {
		prov_buf_puts(b, "<tr><th>note</th><td class=\"fix-note\">");
		prov_web_html(b, f->note);
		prov_buf_puts(b, "</td></tr>");
	}
	prov_buf_puts(b, "<tr><th>marked</th><td>");
	prov_web_html(b, f->marked ? f->marked : "unknown");
	prov_buf_puts(b, " <span class=\"note\">(who marked it is not stored)</span></td></tr>");
	prov_buf_printf(b, "<tr><th>crashes from builds with the fix</th><td class=\"n\" id=\"with-fix\">%" PRId64
			"</td></tr><tr><th>crashes from builds before it</th><td class=\"n\" id=\"before-fix\">%" PRId64
			"</td></tr><tr><th>crashes not placed</th><td class=\"n\" id=\"not-placed\">%" PRId64 "</td></tr>"
			"</table>\n", f->in_fixed, f->before, f->unknown);
	if (f->status == PROV_MARK_REGRESSION)
		prov_buf_puts(b, "<p class=\"regression\">A crash came from a build that has the fix: a regression.</p>\n");
	else if (f->status == PROV_MARK_UNDETERMINED)
		prov_buf_puts(b, "<p class=\"note\">Could not determine whether every crash's build has the fix: some "
			      "build has no version of the component, or ran a commit the store cannot order.</p>\n");
	if (!f->component)
		return;
	prov_buf_puts(b, "<p>Versions of <code>");
	prov_web_html(b, f->component);
	prov_buf_puts(b, "</code> the crashes ran: <span class=\"mono fix-versions\">");
	for (i = 0; i < g->nversions; i++) {
		const struct prov_triage_version *v = &g->versions[i];

		if (!v->count || !v->component || strcmp(v->component, f->component))
			continue;
		prov_buf_puts(b, n++ ? ", " : "");
		prov_web_html(b, v->version);
		prov_buf_printf(b, " (%" PRId64 ")", v->count);
	}
	prov_buf_puts(b, n ? "</span></p>\n" : "none</span></p>\n");
}

void prov_web_page_signature(struct prov_buf *b, const struct prov_triage_group *g,
			     const struct prov_web_series *s, const struct prov_web_crash *crashes,
			     size_t ncrashes, int more, const struct prov_web_filters *f)
{
	size_t i;

	head(b, "signature ", g->signature);
	prov_buf_puts(b, "<h1>Signature <code id=\"signature\">");
	prov_web_html(b, g->signature);
	prov_buf_printf(b, "</code></h1>\n<table class=\"kv\"><tr><th>crashes</th><td id=\"count\">%" PRId64
			"</td></tr><tr><th>hosts</th><td id=\"hosts\">%" PRId64 "</td></tr><tr><th>first seen</th><td>",
			g->count, g->hosts);
	prov_web_html(b, g->first_seen ? g->first_seen : "unknown");
	prov_buf_puts(b, "</td></tr><tr><th>last seen</th><td>");
	prov_web_html(b, g->last_seen ? g->last_seen : "unknown");
	prov_buf_puts(b, "</td></tr><tr><th>signal</th><td>");
	prov_web_html(b, g->signal_name ? g->signal_name : "unknown");
	prov_buf_puts(b, "</td></tr>");
	if (g->context) {
		prov_buf_puts(b, "<tr><th>context</th><td>");
		prov_web_html(b, g->context);
		prov_buf_puts(b, "</td></tr>");
	}
	prov_buf_puts(b, "</table>\n<h2>Crashes per day</h2>\n");
	chart(b, s);
	if (f && f->by) {
		prov_buf_printf(b, "<h2>Crashes per %s, as <code>triage --by %s</code></h2>\n<div id=\"buckets\">",
				f->by, f->by);
		buckets_table(b, g, f);
		prov_buf_puts(b, "</div>\n");
	}
	fix_section(b, g);

	prov_buf_puts(b, "<h2>Versions</h2>\n<table class=\"versions\"><thead><tr><th>component</th><th>version</th>"
		      "<th>crashes of this signature</th><th>crashes of the selection</th><th>approximate commit</th>"
		      "</tr></thead><tbody>\n");
	for (i = 0; i < g->nversions; i++) {
		const struct prov_triage_version *v = &g->versions[i];

		prov_buf_puts(b, "<tr><td>");
		prov_web_html(b, v->component);
		prov_buf_puts(b, "</td><td class=\"mono\">");
		prov_web_html(b, v->version);
		prov_buf_printf(b, "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%"
				PRId64 "</td></tr>\n", v->count, v->total, v->approximate);
	}
	prov_buf_puts(b, "</tbody></table>\n");

	prov_buf_printf(b, "<h2>Call chain of the latest crash (<a href=\"/crash/%" PRId64 "\">#%" PRId64 "</a>)</h2>\n"
			"<table class=\"chain\"><thead><tr><th>#</th><th>function</th><th>source</th><th>module</th>"
			"</tr></thead><tbody>\n", g->example_id, g->example_id);
	for (i = 0; i < g->nframes; i++) {
		const struct prov_triage_frame *fr = &g->frames[i];

		prov_buf_printf(b, "<tr><td class=\"n\">%zu</td><td class=\"mono\">", i);
		prov_web_html(b, fr->function ? fr->function : "??");
		prov_buf_puts(b, "</td><td class=\"mono\">");
		prov_web_html(b, fr->file ? fr->file : "");
		if (fr->file && fr->line > 0)
			prov_buf_printf(b, ":%" PRId64, fr->line);
		prov_buf_puts(b, "</td><td class=\"mono\">");
		prov_web_html(b, fr->module);
		prov_buf_puts(b, "</td></tr>\n");
	}
	prov_buf_puts(b, "</tbody></table>\n");

	prov_buf_printf(b, "<h2>Crashes (newest first%s)</h2>\n<table class=\"crashes\"><thead><tr><th>crash</th>"
			"<th>time</th><th>host</th></tr></thead><tbody>\n", more ? ", the list is cut" : "");
	for (i = 0; i < ncrashes; i++) {
		prov_buf_printf(b, "<tr class=\"crash\"><td><a href=\"/crash/%" PRId64 "\">#%" PRId64 "</a></td><td>",
				crashes[i].id, crashes[i].id);
		prov_web_html(b, crashes[i].time ? crashes[i].time : "unknown");
		prov_buf_puts(b, "</td><td class=\"host\">");
		prov_web_html(b, crashes[i].host);
		prov_buf_puts(b, "</td></tr>\n");
	}
	prov_buf_puts(b, "</tbody></table>\n");
	foot(b);
}

static int scalar(const struct prov_jv *v)
{
	return v->type != PROV_JV_ARRAY && v->type != PROV_JV_OBJECT;
}

static void value(struct prov_buf *b, const struct prov_jv *v, int depth);

/* An array of objects as one table: the union of their keys as columns (at most 24). */
static void object_table(struct prov_buf *b, const struct prov_jv *v, int depth)
{
	const char *cols[24];
	size_t ncols = 0, i, j, k;

	for (i = 0; i < v->n; i++)
		for (j = 0; j < v->items[i].n; j++) {
			for (k = 0; k < ncols && strcmp(cols[k], v->items[i].keys[j]); k++)
				;
			if (k == ncols && ncols < 24)
				cols[ncols++] = v->items[i].keys[j];
		}
	prov_buf_puts(b, "<table><thead><tr>");
	for (k = 0; k < ncols; k++) {
		prov_buf_puts(b, "<th>");
		prov_web_html(b, cols[k]);
		prov_buf_puts(b, "</th>");
	}
	prov_buf_puts(b, "</tr></thead><tbody>\n");
	for (i = 0; i < v->n; i++) {
		prov_buf_puts(b, "<tr>");
		for (k = 0; k < ncols; k++) {
			prov_buf_puts(b, "<td>");
			for (j = 0; j < v->items[i].n; j++)
				if (!strcmp(cols[k], v->items[i].keys[j])) {
					value(b, &v->items[i].items[j], depth + 1);
					break;
				}
			prov_buf_puts(b, "</td>");
		}
		prov_buf_puts(b, "</tr>\n");
	}
	prov_buf_puts(b, "</tbody></table>");
}

static void value(struct prov_buf *b, const struct prov_jv *v, int depth)
{
	size_t i;
	int objects = 1;

	if (depth > JSON_DEPTH) {
		prov_buf_puts(b, "…");
		return;
	}
	switch (v->type) {
	case PROV_JV_NULL:
		prov_buf_puts(b, "<span class=\"note\">null</span>");
		return;
	case PROV_JV_BOOL:
		prov_buf_puts(b, v->boolean ? "true" : "false");
		return;
	case PROV_JV_NUMBER:
	case PROV_JV_STRING:
		prov_web_html(b, v->str);
		return;
	case PROV_JV_OBJECT:
		prov_buf_puts(b, "<table class=\"kv\">");
		for (i = 0; i < v->n; i++) {
			prov_buf_puts(b, "<tr><th>");
			prov_web_html(b, v->keys[i]);
			prov_buf_puts(b, "</th><td>");
			value(b, &v->items[i], depth + 1);
			prov_buf_puts(b, "</td></tr>");
		}
		prov_buf_puts(b, "</table>");
		return;
	case PROV_JV_ARRAY:
		for (i = 0; i < v->n; i++)
			objects &= v->items[i].type == PROV_JV_OBJECT;
		if (v->n && objects) {
			object_table(b, v, depth);
			return;
		}
		for (i = 0; i < v->n; i++) {
			if (i)
				prov_buf_puts(b, scalar(&v->items[i]) ? ", " : "<br>");
			value(b, &v->items[i], depth + 1);
		}
		return;
	}
}

/*
 * The image the crash was analysed in (the report's input.sysroot, when
 * --sysroot named an image): its kind, manifest digest and the ref it was
 * named by, each escaped (a ref comes from the image), and a link to the
 * crashes of that image.
 */
static void image_line(struct prov_buf *b, const struct prov_jv *root)
{
	const struct prov_jv *sr = prov_jv_get(prov_jv_get(root, "input"), "sysroot");
	const char *kind = prov_jv_get_str(sr, "kind"), *digest = prov_jv_get_str(sr, "digest");
	const char *ref = prov_jv_get_str(sr, "ref");

	if (!digest)
		return;
	prov_buf_puts(b, "<p id=\"image\">Analysed in the image <code id=\"image-digest\">");
	prov_web_html(b, digest);
	prov_buf_puts(b, "</code>");
	if (ref) {
		prov_buf_puts(b, ", named <code id=\"image-ref\">");
		prov_web_html(b, ref);
		prov_buf_puts(b, "</code>");
	}
	if (kind) {
		prov_buf_puts(b, " (");
		prov_web_html(b, kind);
		prov_buf_puts(b, ")");
	}
	prov_buf_puts(b, "; <a href=\"/?by=image&amp;image=");
	prov_web_url(b, digest);
	prov_buf_puts(b, "\">its crashes</a>.</p>\n");
}

int prov_web_page_crash(struct prov_buf *b, int64_t id, const char *json, size_t len)
{
	struct prov_jv *root = NULL;
	struct prov_crash *c = NULL;
	struct prov_buf md = PROV_BUF_INIT;
	char title[32];
	size_t i;
	int err;

	if ((err = prov_jv_parse(&root, json, len)) < 0)
		return err;
	snprintf(title, sizeof(title), "crash %" PRId64, id);
	head(b, title, "");
	prov_buf_printf(b, "<h1>Crash #%" PRId64 "</h1>\n", id);
	image_line(b, root);
	if (prov_report_load(&c, root) == 0 &&
	    prov_report_markdown(&md, c, PROV_REPORT_RESOLVE | PROV_REPORT_REGISTERS | PROV_REPORT_MODULES) == 0) {
		prov_buf_printf(b, "<p>The report as <code>show %" PRId64 " --format markdown</code> prints it; "
				"<a href=\"/api/crash/%" PRId64 ".json\">the JSON</a>.</p>\n<div class=\"report\">\n",
				id, id);
		prov_web_markdown(b, md.buf ? md.buf : "", md.len);
		prov_buf_puts(b, "</div>\n");
	} else if (root->type != PROV_JV_OBJECT) {
		prov_buf_printf(b, "<p>The report as stored; <a href=\"/api/crash/%" PRId64 ".json\">the JSON</a>.</p>\n", id);
		value(b, root, 0);
	} else {
		prov_buf_printf(b, "<p class=\"note\">This version cannot rebuild this report as the Markdown report (");
		prov_web_html(b, prov_error_last());
		prov_buf_printf(b, "); it is shown key by key as stored; <a href=\"/api/crash/%" PRId64 ".json\">the JSON</a>.</p>\n", id);
		for (i = 0; i < root->n; i++) {
			prov_buf_puts(b, "<section><h2>");
			prov_web_html(b, root->keys[i]);
			prov_buf_puts(b, "</h2>\n");
			value(b, &root->items[i], 1);
			prov_buf_puts(b, "\n</section>\n");
		}
	}
	foot(b);
	prov_crash_free(c);
	prov_buf_release(&md);
	prov_jv_free(root);
	return 0;
}

void prov_web_page_error(struct prov_buf *b, int status, const char *reason, const char *msg)
{
	char title[64];

	snprintf(title, sizeof(title), "%d ", status);
	head(b, title, reason);
	prov_buf_printf(b, "<h1>%d ", status);
	prov_web_html(b, reason);
	prov_buf_puts(b, "</h1>\n<p id=\"error\">");
	prov_web_html(b, msg);
	prov_buf_puts(b, "</p>\n");
	foot(b);
}
