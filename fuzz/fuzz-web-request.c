/*
 * libFuzzer target: any bytes as the target of an HTTP request line
 * ("/path?name=value&..."), decoded and routed as `provenance serve` does
 * without a socket or a store: the path and every query component decoded
 * by prov_web_url_decode (libmicrohttpd's unescape callback), the
 * parameters collected (at most PROV_WEB_MAX_PARAMS), routed by
 * prov_web_route, and an error page rendered for a refused one. Checked:
 * the page is one of the enum's; a crash page's ID is a positive number or
 * 0; the carried query string is URL-safe; an error page holds no '<' or
 * '"' of the input unescaped (its only tags are the template's).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "util.h"
#include "web.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What `canon` may hold: unreserved characters, %XX, and ? = & between parameters. */
static void web_check_canon(const char *s)
{
	for (; s && *s; s++)
		if (!strchr("?=&%-._~", *s) && !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
						  (*s >= '0' && *s <= '9')))
			__builtin_trap();
}

/* The query string into decoded parameters, as libmicrohttpd splits it; -1 past the cap. */
static int web_split_query(struct prov_web_query *q, char *qs)
{
	char *p = qs, *amp, *eq;

	while (p && *p) {
		amp = strchr(p, '&');
		if (amp)
			*amp = '\0';
		eq = strchr(p, '=');
		if (eq)
			*eq = '\0';
		prov_web_url_decode(p, 1);
		if (eq)
			prov_web_url_decode(eq + 1, 1);
		if (*p && prov_web_query_add(q, p, eq ? eq + 1 : NULL) < 0)
			return -1;
		p = amp ? amp + 1 : NULL;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_web_query q = { 0 };
	struct prov_web_request r = { 0 };
	struct prov_buf page = PROV_BUF_INIT;
	char *target, *qs;
	int err;

	if (size > 65536)
		return 0;
	target = prov_xstrndup((const char *)data, size);	/* a request line holds no NUL */
	qs = strchr(target, '?');
	if (qs)
		*qs++ = '\0';
	prov_web_url_decode(target, 1);
	if (web_split_query(&q, qs) < 0) {
		err = prov_error_set(PROV_EINPUT, "too many query parameters");
	} else {
		err = prov_web_route(&r, target, &q);
		if (err == 0) {
			if (r.page < PROV_WEB_NOT_FOUND || r.page > PROV_WEB_CRASH_JSON)
				__builtin_trap();
			if ((r.page == PROV_WEB_CRASH || r.page == PROV_WEB_CRASH_JSON) && (r.id < 0 || !r.arg))
				__builtin_trap();
			if (r.page == PROV_WEB_SIGNATURE && (!r.arg || !*r.arg))
				__builtin_trap();
			if (r.frames < 0 || r.frames > 100 || r.runs < 0)
				__builtin_trap();
			web_check_canon(r.canon.buf);
		} else if (err != PROV_EINPUT) {
			__builtin_trap();
		}
	}
	if (err < 0) {
		/* the 400 page: the message (which quotes the parameter's name) only escaped */
		const char *at;

		prov_web_page_error(&page, 400, "Bad Request", prov_error_last());
		at = page.buf ? strstr(page.buf, "<p id=\"error\">") : NULL;
		if (!at)
			__builtin_trap();
		at += strlen("<p id=\"error\">");
		if (strcspn(at, "<\"") < strcspn(at, "\n") && strncmp(at + strcspn(at, "<\""), "</p>", 4) != 0)
			__builtin_trap();
	}
	prov_buf_release(&page);
	prov_web_request_release(&r);
	prov_web_query_release(&q);
	free(target);
	return 0;
}
