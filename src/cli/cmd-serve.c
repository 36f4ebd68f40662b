/* provenance serve: a read-only web view of the crash store (libmicrohttpd; docs/web.md). */
#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "store.h"
#include "cmd.h"
#include "error.h"
#include "report.h"
#include "util.h"
#include "web.h"
#include "banned.h"

#define SERVE_PORT 8047
#define SERVE_CONNECTIONS 64	/* at once; more wait in the kernel's backlog */
#define SERVE_TIMEOUT_S 15	/* a connection idle this long is closed */
#define SERVE_MAX_PAGE ((size_t)64 << 20)
#define SERVE_DAY_ROWS 200000	/* (signature, day) rows behind the sparklines */
#define SERVE_CRASH_ROWS 500	/* crashes listed on a signature page */
#define SERVE_QUERY_MS 10000	/* each bounded store query */

/* The command table's entry: name, usage line and description (main.c lists it). */
const struct cmd cmd_serve_def = {
	"serve", cmd_serve, 0,
	"serve [--listen ADDR:PORT] [--store PATH] [--timeout MS]",
	"a read-only web view of the crash store: top crashers, signatures, crashes"
};

static const char help[] =
	"Serve the crash store as web pages and JSON, read-only, until SIGINT or\n"
	"SIGTERM (docs/web.md): / (top crashers: one row per signature with its\n"
	"fix status from provenance mark and a sparkline of crashes per day),\n"
	"/signature/SIG (a chart of crashes per day, the fix status, versions, the\n"
	"latest crash's call chain, its crashes), /crash/ID (the stored report as\n"
	"the Markdown report's sections), /api/triage.json (what 'triage --format\n"
	"json' prints for the same query) and /api/crash/ID.json (the stored JSON,\n"
	"as 'show ID --format json' prints it). The query string means what\n"
	"triage's options mean: since, until, host, signature, component, image\n"
	"(a digest, its start of 12 or more hex digits, or a ref; several digests\n"
	"that start so answer 400), frames, runs, and by=day|week|version|host|image\n"
	"(each signature's crashes per bucket, a table on the pages; an image's\n"
	"bucket links to that image's crashes); anything else answers 400. The\n"
	"crash page names the image a crash was analysed in. GET and HEAD only; no\n"
	"authentication: put it behind a reverse proxy that authenticates before\n"
	"you bind it to anything but loopback.\n"
	"\n"
	"options:\n"
	"   --listen ADDR:PORT  where to listen (default 127.0.0.1:8047; [::1]:PORT for\n"
	"                       IPv6; port 0 picks a free port); the address it\n"
	"                       listens on is printed on stdout\n"
	"   --store PATH|URL    the store, opened read-only: a SQLite file (default:\n"
	"                       store.sqlite in the cache directory) or PostgreSQL\n"
	"                       (postgresql://... or \"host=... dbname=...\")\n"
	"   --timeout MS        each store query's time limit, the triage of a page\n"
	"                       included (default 10000); a query past it answers\n"
	"                       503 with one line\n"
	"\n"
	"exit: 0 stopped by a signal, 2 no store, not a store or cannot listen, 64 usage error.\n";

enum { OPT_LISTEN = 256, OPT_STORE, OPT_TIMEOUT, OPT_HELP };

static const struct option options[] = {
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

struct serve {
	struct prov_store *store;
	uint64_t timeout_ms;	/* each store query's time limit (--timeout) */
};

/* What a page's query string asks for: triage's options. */
struct serve_query {
	struct prov_triage_opts opts;
	char since[21], until[21];
	int64_t runs;
	const char *canon;	/* the accepted parameters, to carry to links: "" or "?since=...&..." */
	const char *component;	/* component= as given (NAME or NAME=VERSION), for the form */
	char *name_version;	/* NAME=VERSION cut in two, as triage --component does (owned) */
	const char *image;	/* image= as given, for the form and the buckets' links */
	char *digest;	/* image= resolved to the one digest it starts (owned), else NULL */
};

/*
 * The routed request's filters to triage's options (web-route.c gives each
 * parameter its meaning; the times are read here, by the store's parser).
 */
static int serve_query_opts(struct serve_query *sq, const struct prov_web_request *r)
{
	memset(sq, 0, sizeof(*sq));
	if (r->since) {
		if (prov_store_parse_time(sq->since, r->since) < 0)
			return PROV_EINPUT;
		sq->opts.since = sq->since;
	}
	if (r->until) {
		if (prov_store_parse_time(sq->until, r->until) < 0)
			return PROV_EINPUT;
		sq->opts.until = sq->until;
	}
	sq->opts.host = r->host;
	sq->opts.signature = r->signature;
	sq->opts.component = sq->component = r->component;
	if (r->component && strchr(r->component, '=')) {	/* NAME=VERSION: triage --component's split */
		char *eq;

		sq->name_version = prov_xstrdup(r->component);
		eq = strchr(sq->name_version, '=');
		if (eq == sq->name_version || !eq[1])
			return prov_error_set(PROV_EINPUT, "component wants NAME or NAME=VERSION");
		*eq = '\0';
		sq->opts.component = sq->name_version;
		sq->opts.component_version = eq + 1;
	}
	sq->opts.image = sq->image = r->image;
	sq->opts.by = r->by;
	sq->opts.max_frames = (size_t)r->frames;
	sq->runs = r->runs;
	sq->canon = r->canon.buf ? r->canon.buf : "";
	return 0;
}

static enum MHD_Result add_arg(void *data, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct prov_web_query *q = data;

	return prov_web_query_add(q, key, value) < 0 ? MHD_NO : MHD_YES;
}

/* libmicrohttpd's unescaper: ours (web-escape.c), so that it is the unit-tested one. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	return prov_web_url_decode(s, 1);
}

static enum MHD_Result respond(struct MHD_Connection *conn, unsigned status, const char *type,
			       struct prov_buf *body)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t len = body->len;
	char *data = prov_buf_detach(body);

	r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(data);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'none'; style-src 'self'; img-src 'self' data:; "
				"form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result fail(struct MHD_Connection *conn, unsigned status, const char *reason, int api,
			    const char *msg)
{
	struct prov_buf b = PROV_BUF_INIT;

	if (api)
		prov_buf_printf(&b, "%s\n", msg);
	else
		prov_web_page_error(&b, (int)status, reason, msg);
	return respond(conn, status, api ? "text/plain; charset=utf-8" : "text/html; charset=utf-8", &b);
}

/* A store error: 404 for what is not there, 400 for a refused query, else 500. */
static enum MHD_Result store_fail(struct MHD_Connection *conn, int err, int api)
{
	if (err == PROV_ENOTFOUND)
		return fail(conn, 404, "Not Found", api, prov_error_last());
	if (err == PROV_EINPUT && strstr(prov_error_last(), "no crash"))
		return fail(conn, 404, "Not Found", api, prov_error_last());
	/* a query past its time limit: the others go on; this one answers at once */
	if (err == PROV_ELIMIT)
		return fail(conn, 503, "Service Unavailable", api, prov_error_last());
	return fail(conn, 500, "Internal Server Error", api, prov_error_last());
}

/* The crashes-per-day rows into one series per group (by signature). */
struct days_ctx {
	const struct prov_triage *t;
	size_t *order;	/* group indexes sorted by signature */
	struct prov_web_series *series;
};

static const struct prov_triage *sort_t;

static int by_signature(const void *a, const void *b)
{
	return strcmp(sort_t->groups[*(const size_t *)a].signature, sort_t->groups[*(const size_t *)b].signature);
}

static void series_add(struct prov_web_series *s, int64_t day, int64_t count)
{
	s->day = prov_xrealloc(s->day, (s->n + 1) * sizeof(*s->day));
	s->count = prov_xrealloc(s->count, (s->n + 1) * sizeof(*s->count));
	s->day[s->n] = day;
	s->count[s->n++] = count;
}

static int day_row(size_t ncols, const char *const *names, const char *const *v, const char *types, void *data)
{
	struct days_ctx *c = data;
	size_t lo = 0, hi = c->t->ngroups;
	int64_t day = prov_web_day(v[1]), n = 0;

	if (!v[0] || day < 0 || prov_parse_i64(&n, v[2], strlen(v[2])) < 0)
		return 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int cmp = strcmp(c->t->groups[c->order[mid]].signature, v[0]);

		if (!cmp) {
			series_add(&c->series[c->order[mid]], day, n);
			break;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void series_free(struct prov_web_series *s, size_t n)
{
	size_t i;

	for (i = 0; s && i < n; i++) {
		free(s[i].day);
		free(s[i].count);
	}
	free(s);
}

/* The daily counts of every group of `t` (signature NULL) or of its one group. */
static int daily(struct prov_web_series **out, int *cut, const struct serve *sv, const struct prov_triage *t,
		 const struct prov_triage_opts *o, const char *signature)
{
	struct days_ctx c = { t, NULL, NULL };
	size_t i;
	int err;

	c.order = prov_xcalloc(t->ngroups + 1, sizeof(*c.order));
	c.series = prov_xcalloc(t->ngroups + 1, sizeof(*c.series));
	for (i = 0; i < t->ngroups; i++)
		c.order[i] = i;
	sort_t = t;
	qsort(c.order, t->ngroups, sizeof(*c.order), by_signature);
	err = prov_store_rows(sv->store, PROV_STORE_DAYS, o, signature, SERVE_DAY_ROWS, sv->timeout_ms, day_row, &c);
	free(c.order);
	if (err < 0) {
		series_free(c.series, t->ngroups);
		return err;
	}
	*cut = err == 1;
	*out = c.series;
	return 0;
}

struct crashes_ctx {
	struct prov_web_crash *list;
	size_t n;
};

static int crash_row(size_t ncols, const char *const *names, const char *const *v, const char *types, void *data)
{
	struct crashes_ctx *c = data;
	struct prov_web_crash *e;

	c->list = prov_xrealloc(c->list, (c->n + 1) * sizeof(*c->list));
	e = &c->list[c->n++];
	e->id = 0;
	if (v[0])
		prov_parse_i64(&e->id, v[0], strlen(v[0]));
	e->time = v[1] ? prov_xstrdup(v[1]) : NULL;
	e->host = v[2] ? prov_xstrdup(v[2]) : NULL;
	return 0;
}

static enum MHD_Result page_top(struct MHD_Connection *conn, struct serve *sv, struct serve_query *sq, int json)
{
	struct prov_triage t = { 0 };
	struct prov_web_series *series = NULL;
	struct prov_web_filters f = { 0 };
	struct prov_buf b;
	enum MHD_Result ret;
	int err, cut = 0;

	prov_buf_init(&b, SERVE_MAX_PAGE);
	if ((err = prov_store_triage_bounded(&t, sv->store, &sq->opts, sv->timeout_ms)) < 0) {
		ret = store_fail(conn, err, json);
		goto cleanup;
	}
	if (json) {
		if ((err = prov_report_triage(&b, &t, sq->runs, PROV_FORMAT_JSON, 0)) < 0 || b.over) {
			ret = fail(conn, 500, "Internal Server Error", 1, b.over ? "the answer is too large; narrow it" :
				   prov_error_last());
			goto cleanup;
		}
		ret = respond(conn, 200, "application/json", &b);
		goto cleanup;
	}
	if ((err = daily(&series, &cut, sv, &t, &sq->opts, NULL)) < 0) {
		ret = store_fail(conn, err, 0);
		goto cleanup;
	}
	f.component = sq->component;
	f.image = sq->image;
	f.by = sq->opts.by;
	f.query = sq->canon;
	f.since = sq->opts.since;
	prov_web_page_top(&b, &t, series, &f, cut);
	ret = b.over ? fail(conn, 500, "Internal Server Error", 0, "the page is too large; narrow it") :
		respond(conn, 200, "text/html; charset=utf-8", &b);
cleanup:
	series_free(series, t.ngroups);
	prov_triage_release(&t);
	prov_buf_release(&b);
	return ret;
}

static enum MHD_Result page_signature(struct MHD_Connection *conn, struct serve *sv, struct serve_query *sq,
				      const char *sig)
{
	struct prov_triage t = { 0 };
	struct prov_web_series *series = NULL;
	struct prov_web_filters f = { 0 };
	struct crashes_ctx cr = { 0 };
	struct prov_triage_opts o = sq->opts;
	struct prov_buf b;
	enum MHD_Result ret;
	size_t i;
	long gi = -1;
	int err, cut = 0, more;

	prov_buf_init(&b, SERVE_MAX_PAGE);
	if (!o.max_frames)
		o.max_frames = 100;
	if ((err = prov_store_triage_bounded(&t, sv->store, &o, sv->timeout_ms)) < 0) {
		ret = store_fail(conn, err, 0);
		goto cleanup;
	}
	for (i = 0; i < t.ngroups && gi < 0; i++)
		if (!strcmp(t.groups[i].signature, sig))
			gi = (long)i;
	if (gi < 0) {
		ret = fail(conn, 404, "Not Found", 0, "no crash with this signature in the selection");
		goto cleanup;
	}
	if ((err = daily(&series, &cut, sv, &t, &o, sig)) < 0 ||
	    (err = prov_store_rows(sv->store, PROV_STORE_CRASHES, &o, sig, SERVE_CRASH_ROWS, sv->timeout_ms,
				   crash_row, &cr)) < 0) {
		ret = store_fail(conn, err, 0);
		goto cleanup;
	}
	more = err == 1;
	f.since = o.since;
	f.component = sq->component;
	f.image = sq->image;
	f.by = o.by;
	f.query = sq->canon;
	prov_web_page_signature(&b, &t.groups[gi], &series[gi], cr.list, cr.n, more, &f);
	ret = respond(conn, 200, "text/html; charset=utf-8", &b);
cleanup:
	for (i = 0; i < cr.n; i++) {
		free(cr.list[i].time);
		free(cr.list[i].host);
	}
	free(cr.list);
	series_free(series, t.ngroups);
	prov_triage_release(&t);
	prov_buf_release(&b);
	return ret;
}

static enum MHD_Result page_crash(struct MHD_Connection *conn, struct serve *sv, int64_t id, int json)
{
	struct prov_buf b;
	char *report = NULL;
	size_t len = 0;
	enum MHD_Result ret;
	int err;

	prov_buf_init(&b, SERVE_MAX_PAGE);
	if (id < 1) {
		ret = fail(conn, 404, "Not Found", json, "a crash is named by its number (crashes.id)");
		goto cleanup;
	}
	if ((err = prov_store_report_get(&report, &len, sv->store, id)) < 0) {
		ret = store_fail(conn, err, json);
		goto cleanup;
	}
	if (json) {
		prov_buf_add(&b, report, len);
		if (!len || report[len - 1] != '\n')	/* as show prints it */
			prov_buf_putc(&b, '\n');
		ret = respond(conn, 200, "application/json", &b);
		goto cleanup;
	}
	if (prov_web_page_crash(&b, id, report, len) < 0 || b.over) {
		ret = fail(conn, 500, "Internal Server Error", 0, b.over ? "the report is too large to show; use the JSON" :
			   prov_error_last());
		goto cleanup;
	}
	ret = respond(conn, 200, "text/html; charset=utf-8", &b);
cleanup:
	free(report);
	prov_buf_release(&b);
	return ret;
}

static enum MHD_Result route(struct MHD_Connection *conn, struct serve *sv, const char *url)
{
	struct prov_web_query q = { 0 };
	struct prov_web_request r = { 0 };
	struct serve_query sq = { 0 };
	struct prov_buf b = PROV_BUF_INIT;
	enum MHD_Result ret;

	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_arg, &q);
	if ((size_t)MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, NULL, NULL) != q.n) {
		ret = fail(conn, 400, "Bad Request", !strncmp(url, "/api/", 5), "too many query parameters");
		goto cleanup;
	}
	if (prov_web_route(&r, url, &q) < 0 || serve_query_opts(&sq, &r) < 0) {
		ret = fail(conn, 400, "Bad Request", r.api, prov_error_last());
		goto cleanup;
	}
	/* image=: a digest's start becomes the one stored digest it starts (triage --image) */
	if (sq.image && r.page != PROV_WEB_CSS) {
		int err = prov_store_image_resolve(&sq.digest, sv->store, sq.image, sv->timeout_ms);

		if (err == PROV_EINPUT) {
			ret = fail(conn, 400, "Bad Request", r.api, prov_error_last());
			goto cleanup;
		}
		if (err < 0) {
			ret = store_fail(conn, err, r.api);
			goto cleanup;
		}
		if (sq.digest)
			sq.opts.image = sq.digest;
	}
	switch (r.page) {
	case PROV_WEB_CSS:
		prov_buf_puts(&b, prov_web_css);
		ret = respond(conn, 200, "text/css; charset=utf-8", &b);
		break;
	case PROV_WEB_TOP:
	case PROV_WEB_TRIAGE_JSON:
		ret = page_top(conn, sv, &sq, r.page == PROV_WEB_TRIAGE_JSON);
		break;
	case PROV_WEB_SIGNATURE:
		ret = page_signature(conn, sv, &sq, r.arg);
		break;
	case PROV_WEB_CRASH:
	case PROV_WEB_CRASH_JSON:
		ret = page_crash(conn, sv, r.id, r.page == PROV_WEB_CRASH_JSON);
		break;
	default:
		ret = fail(conn, 404, "Not Found", r.api,
			   "no such page (/, /signature/SIG, /crash/ID, /api/triage.json, /api/crash/ID.json)");
	}
cleanup:
	free(sq.name_version);
	free(sq.digest);
	prov_web_request_release(&r);
	prov_web_query_release(&q);
	prov_buf_release(&b);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			      const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return fail(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "Method Not Allowed", 0, "only GET and HEAD");
	if (*upload_size)
		return fail(conn, 400, "Bad Request", 0, "a GET has no body");
	return route(conn, cls, url);
}

/* "ADDR:PORT" or "[V6]:PORT" into a socket address; PROV_EUSAGE with a message. */
static int parse_listen(struct sockaddr_storage *ss, int *v6, const char *text)
{
	const char *colon = strrchr(text, ':');
	char host[64];
	int port;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	if (!colon || prov_parse_int(&port, colon + 1, strlen(colon + 1)) < 0 || port < 0 || port > 65535)
		return prov_error_set(PROV_EUSAGE, "--listen wants ADDR:PORT (127.0.0.1:8047, [::1]:8047), not '%s'", text);
	hl = (size_t)(colon - text);
	if (hl >= 2 && text[0] == '[' && text[hl - 1] == ']') {
		text++;
		hl -= 2;
	}
	if (!hl || hl >= sizeof(host))
		return prov_error_set(PROV_EUSAGE, "--listen wants ADDR:PORT, not '%s'", text);
	memcpy(host, text, hl);
	host[hl] = '\0';
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		((struct sockaddr_in *)ss)->sin_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
		*v6 = 0;
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
		*v6 = 1;
		return 0;
	}
	return prov_error_set(PROV_EUSAGE, "--listen wants a numeric address (127.0.0.1, ::1), not '%s'", host);
}

int cmd_serve(int argc, char **argv, struct prov_ctx *g)
{
	struct serve sv = { 0 };
	struct MHD_Daemon *d = NULL;
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	const char *store_opt = NULL, *listen = "127.0.0.1:" "8047";
	char *store_path = NULL, addr[INET6_ADDRSTRLEN] = "";
	sigset_t set;
	int opt, code = 0, err, v6 = 0, sig;

	sv.timeout_ms = SERVE_QUERY_MS;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (opt) {
		case OPT_LISTEN:
			listen = optarg;
			break;
		case OPT_STORE:
			store_opt = optarg;
			break;
		case OPT_TIMEOUT:
			if (prov_parse_u64(&sv.timeout_ms, optarg, (size_t)-1, 10) < 0 || !sv.timeout_ms ||
			    sv.timeout_ms > 3600000) {
				code = prov_cmd_usage_error(&cmd_serve_def, "--timeout takes milliseconds, 1 to 3600000, not '%s'",
							    optarg);
				goto cleanup;
			}
			break;
		case OPT_HELP:
			code = prov_cmd_help(&cmd_serve_def, help);
			goto cleanup;
		case ':':
			code = prov_cmd_usage_error(&cmd_serve_def, "option '%s' needs a value", argv[optind - 1]);
			goto cleanup;
		default:
			code = prov_cmd_usage_error(&cmd_serve_def, "unknown option '%s'", argv[optind - 1]);
			goto cleanup;
		}
	}
	if (optind < argc) {
		code = prov_cmd_usage_error(&cmd_serve_def, "unexpected argument '%s'", argv[optind]);
		goto cleanup;
	}
	if (parse_listen(&ss, &v6, listen) < 0) {
		code = prov_cmd_usage_error(&cmd_serve_def, "%s", prov_error_last());
		goto cleanup;
	}
	store_path = store_opt ? prov_xstrdup(store_opt) : prov_store_default_path(g->cache_dir);
	prov_store_hide_password((char *)store_opt);	/* argv: not on the process list */
	if ((err = prov_store_open(&sv.store, store_path, 1)) < 0) {
		code = prov_cmd_fail(err == PROV_ENOTFOUND ? PROV_EINPUT : err);
		goto cleanup;
	}
	/* the server's thread inherits the mask: the signals come to sigwait below */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* one internal thread polls every connection; handlers run in it, one at a time, on one store handle */
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | (v6 ? MHD_USE_IPv6 : 0),
			     0, NULL, NULL, handle, &sv,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)SERVE_CONNECTIONS,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SERVE_TIMEOUT_S,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 << 10),
			     MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
			     MHD_OPTION_END);
	if (!d) {
		code = prov_cmd_fail(prov_error_set(PROV_EINPUT, "cannot listen on %s (in use, or not an address of this machine)",
						    listen));
		goto cleanup;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	if (v6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, sizeof(addr));
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof(addr));
	printf("listening on http://%s%s%s:%u/ (store %s, read-only)\n", v6 ? "[" : "", addr, v6 ? "]" : "",
	       info ? (unsigned)info->port : 0u, prov_store_name(sv.store));
	fflush(stdout);
	do {
		if (sigwait(&set, &sig) != 0)
			break;
	} while (sig == SIGPIPE);
	code = 0;
cleanup:
	if (d)
		MHD_stop_daemon(d);
	prov_store_free(sv.store);
	free(store_path);
	return code;
}
