#ifndef PROV_WEB_H
#define PROV_WEB_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "triage.h"

/*
 * The web view's pages (provenance serve, docs/web.md), rendered from the
 * model's triage structs and a stored report's JSON: server-side HTML, no
 * script, one stylesheet (prov_web_css). Every value goes through one
 * escaping module (web-escape.c); the pages are web-pages.c.
 */

/* --- escaping (web-escape.c) --- */
/*
 * A value as HTML text or a quoted attribute value (also SVG text): & < > "
 * ' as references; control characters, C1 controls and bytes that are not
 * UTF-8 as U+FFFD. NULL writes nothing.
 */
void prov_web_html(struct prov_buf *b, const char *s);
/* A value as one URL component: every byte but A-Z a-z 0-9 - . _ ~ as %XX. */
void prov_web_url(struct prov_buf *b, const char *s);
/*
 * Decode a URL path or query component in place (%XX, and '+' as a space
 * when `plus` is set): a '%' not followed by two hex digits, and %00, stay
 * as written. Returns the new length; the result is NUL-terminated.
 */
size_t prov_web_url_decode(char *s, int plus);
/*
 * A request's query parameters, decoded (libmicrohttpd splits the query
 * string and decodes it with prov_web_url_decode): at most
 * PROV_WEB_MAX_PARAMS.
 */
#define PROV_WEB_MAX_PARAMS 16
struct prov_web_query {
	char *names[PROV_WEB_MAX_PARAMS], *values[PROV_WEB_MAX_PARAMS];
	size_t n;
};
/* Add one decoded parameter (copied; NULL value: ""); PROV_EINPUT past PROV_WEB_MAX_PARAMS. */
int prov_web_query_add(struct prov_web_query *q, const char *name, const char *value);
const char *prov_web_query_get(const struct prov_web_query *q, const char *name);
void prov_web_query_release(struct prov_web_query *q);

/* --- routing (web-route.c) --- */
enum prov_web_page {
	PROV_WEB_NOT_FOUND,	/* 404 */
	PROV_WEB_CSS,	/* /style.css */
	PROV_WEB_TOP,	/* / */
	PROV_WEB_TRIAGE_JSON,	/* /api/triage.json */
	PROV_WEB_SIGNATURE,	/* /signature/SIG */
	PROV_WEB_CRASH,	/* /crash/ID */
	PROV_WEB_CRASH_JSON,	/* /api/crash/ID.json */
};
/* What a request asks for, from its decoded path and query parameters alone. */
struct prov_web_request {
	enum prov_web_page page;
	int api;	/* the path is under /api/: errors answer JSON */
	char *arg;	/* the signature or the crash ID as written (owned), else NULL */
	int64_t id;	/* crash pages: the ID, 0 when arg is no positive number (404) */
	/* triage's filters as given (pointing into the query; NULL: not given or empty);
	 * since and until are still text, which the store's time parser reads */
	const char *since, *until, *host, *signature, *component;
	const char *image;	/* triage --image's argument, which the store resolves (a digest's start) */
	const char *by;	/* "day", "week", "version", "host" or "image" (static, as triage --by), NULL: not given */
	int frames;	/* 1..100, 0: not given */
	int64_t runs;	/* > 0, 0: not given */
	struct prov_buf canon;	/* the accepted parameters to carry to links: "" or "?since=...&...", URL-safe */
};
/*
 * Route a request: path (decoded, NUL-terminated) and q. 0 with r filled,
 * or PROV_EINPUT with one line (answer 400): a parameter twice, one that
 * is unknown, by not one of triage --by's kinds, frames or runs out of
 * range. Release r
 * either way.
 */
int prov_web_route(struct prov_web_request *r, const char *path, const struct prov_web_query *q);
void prov_web_request_release(struct prov_web_request *r);

/* --- pages (web-pages.c) --- */
/* Crashes per day: days since 1970-01-01 (UTC) and counts, in day order. */
struct prov_web_series {
	int64_t *day, *count;
	size_t n;
};
/* One crash of a signature's list. */
struct prov_web_crash {
	int64_t id;
	char *time, *host;
};
/* What the filters form shows: the values as the user gave them (NULL: none). */
struct prov_web_filters {
	const char *since, *component;
	const char *image;	/* image= as given (NULL: none): the form shows it; buckets link within it */
	const char *by;	/* triage --by's kind: the pages show each group's buckets (NULL: none) */
	const char *query;	/* the query string to carry to links ("" or "?since=..."), already URL-safe */
};
/* "YYYY-MM-DD..." to days since 1970-01-01; -1 when it is not a date. */
int64_t prov_web_day(const char *iso);

extern const char prov_web_css[];
/* `/`: one row per group; series[i] belongs to t->groups[i] (NULL: none known). */
void prov_web_page_top(struct prov_buf *b, const struct prov_triage *t, const struct prov_web_series *series,
		       const struct prov_web_filters *f, int cut);
/* `/signature/SIG`: the group, its crashes per day, its newest crashes (`more`: the list was cut). */
void prov_web_page_signature(struct prov_buf *b, const struct prov_triage_group *g,
			     const struct prov_web_series *s, const struct prov_web_crash *crashes,
			     size_t ncrashes, int more, const struct prov_web_filters *f);
/*
 * `/crash/ID`: the stored report (JSON text) as the Markdown report's sections
 * (what `show ID --format markdown` prints, rebuilt by prov_report_load), in
 * HTML; a report the loader cannot rebuild is shown key by key, with a note
 * saying so. PROV_EINPUT when it is not JSON.
 */
int prov_web_page_crash(struct prov_buf *b, int64_t id, const char *json, size_t len);
/*
 * Markdown as report-md.c writes it (headings, tables, lists, code blocks,
 * `code`, **strong**) as HTML, every byte of it escaped as HTML text
 * (web-md.c). The crash page renders the Markdown report with it.
 */
void prov_web_markdown(struct prov_buf *b, const char *md, size_t len);
/* An error page: the status line's words and one line of message. */
void prov_web_page_error(struct prov_buf *b, int status, const char *reason, const char *msg);

#endif
