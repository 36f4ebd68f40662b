/* The web view's routing: a request's path and decoded query parameters to a page and triage's filters (no socket). */
#include <stdlib.h>
#include <string.h>

#include "web.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/* The path to a page and its argument. */
static void route_path(struct prov_web_request *r, const char *path)
{
	size_t n = strlen(path);

	r->api = !strncmp(path, "/api/", 5);
	if (!strcmp(path, "/style.css")) {
		r->page = PROV_WEB_CSS;
	} else if (!strcmp(path, "/")) {
		r->page = PROV_WEB_TOP;
	} else if (!strcmp(path, "/api/triage.json")) {
		r->page = PROV_WEB_TRIAGE_JSON;
	} else if (!strncmp(path, "/signature/", 11) && path[11]) {
		r->page = PROV_WEB_SIGNATURE;
		r->arg = prov_xstrdup(path + 11);
	} else if (!strncmp(path, "/crash/", 7)) {
		r->page = PROV_WEB_CRASH;
		r->arg = prov_xstrdup(path + 7);
	} else if (!strncmp(path, "/api/crash/", 11) && n > 16 && !strcmp(path + n - 5, ".json")) {
		r->page = PROV_WEB_CRASH_JSON;
		r->arg = prov_xstrndup(path + 11, n - 16);
	} else {
		r->page = PROV_WEB_NOT_FOUND;
	}
	if ((r->page == PROV_WEB_CRASH || r->page == PROV_WEB_CRASH_JSON) &&
	    (prov_parse_i64(&r->id, r->arg, strlen(r->arg)) < 0 || r->id < 1))
		r->id = 0;
}

/*
 * The query parameters: the one place a parameter gets its meaning (the
 * same as triage's option of that name). A parameter it does not know, or
 * a value triage would refuse, is refused (PROV_EINPUT, one line), never
 * ignored; an empty one (a form's empty field) is no filter.
 */
static int route_query(struct prov_web_request *r, const struct prov_web_query *q)
{
	static const char *const kinds[] = { "day", "week", "version", "host", "image", NULL };
	size_t i, j;

	for (i = 0; i < q->n; i++) {
		const char *name = q->names[i], *v = q->values[i];

		for (j = 0; j < i; j++)
			if (!strcmp(q->names[j], name))
				return prov_error_set(PROV_EINPUT, "'%s' is given twice", name);
		if (!*v)
			continue;
		if (!strcmp(name, "since")) {
			r->since = v;
		} else if (!strcmp(name, "until")) {
			r->until = v;
		} else if (!strcmp(name, "host")) {
			r->host = v;
		} else if (!strcmp(name, "signature")) {
			r->signature = v;
		} else if (!strcmp(name, "component")) {
			r->component = v;
		} else if (!strcmp(name, "image")) {
			r->image = v;
		} else if (!strcmp(name, "frames")) {
			if (prov_parse_int(&r->frames, v, strlen(v)) < 0 || r->frames < 1 || r->frames > 100)
				return prov_error_set(PROV_EINPUT, "frames wants a number from 1 to 100");
		} else if (!strcmp(name, "by")) {
			for (j = 0; kinds[j] && strcmp(kinds[j], v); j++)
				;
			if (!kinds[j])
				return prov_error_set(PROV_EINPUT, "by wants day, week, version, host or image");
			r->by = kinds[j];
		} else if (!strcmp(name, "runs")) {
			if (prov_parse_i64(&r->runs, v, strlen(v)) < 0 || r->runs < 1)
				return prov_error_set(PROV_EINPUT, "runs wants a positive number");
		} else {
			return prov_error_set(PROV_EINPUT, "unknown query parameter '%s' (since, until, host, signature, component, image, by, frames, runs)", name);
		}
		prov_buf_putc(&r->canon, r->canon.len ? '&' : '?');
		prov_web_url(&r->canon, name);
		prov_buf_putc(&r->canon, '=');
		prov_web_url(&r->canon, v);
	}
	return 0;
}

int prov_web_route(struct prov_web_request *r, const char *path, const struct prov_web_query *q)
{
	memset(r, 0, sizeof(*r));
	prov_buf_init(&r->canon, 8192);
	prov_buf_puts(&r->canon, "");
	route_path(r, path);
	if (r->page == PROV_WEB_CSS)
		return 0;	/* the stylesheet: whatever the query */
	return route_query(r, q);
}

void prov_web_request_release(struct prov_web_request *r)
{
	free(r->arg);
	r->arg = NULL;
	prov_buf_release(&r->canon);
}
