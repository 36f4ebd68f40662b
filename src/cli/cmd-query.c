/* provenance query: one read-only SQL statement over the crash store. */
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

/* The command table's entry: name, usage line and description (main.c lists it). */
const struct cmd cmd_query_def = {
	"query", cmd_query, 0,
	"query SQL [--format table|csv|json] [--max-rows N] [--timeout SEC] [--store PATH]",
	"one read-only SQL statement over the crash store"
};

static const char help[] =
	"Run one read-only SQL statement over the crash store's tables (crashes,\n"
	"frames, modules, components, reports; see docs/store.md), e.g.\n"
	"   provenance query \"SELECT function, file, line FROM frames\n"
	"                     WHERE crashed AND depth < 5 AND crash_id = 1\"\n"
	"The store is opened read-only; writes, ATTACH and pragmas that are not\n"
	"table_info-style are refused, as is more than one statement.\n"
	"\n"
	"options:\n"
	"   --format FMT     table (default), csv or json (an array of objects)\n"
	"   --max-rows N     refuse a result of more than N rows (default 10000)\n"
	"   --timeout SEC    stop a query running longer than SEC seconds (default 10)\n"
	"   --store PATH|URL the store: a SQLite file (default: store.sqlite in the\n"
	"                    data directory) or PostgreSQL (postgresql://... or\n"
	"                    \"host=... dbname=...\"); on PostgreSQL a READ ONLY\n"
	"                    transaction with statement_timeout\n"
	"\n"
	"exit: 0 done, 2 refused, bad SQL, over a limit, or no store; 64 usage error.\n";

enum { OPT_FORMAT = 256, OPT_MAX_ROWS, OPT_TIMEOUT, OPT_STORE, OPT_HELP };

static const struct option options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "max-rows", required_argument, NULL, OPT_MAX_ROWS },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* Rows are kept until the end: a refused query prints nothing on stdout. */
struct table {
	enum prov_format format;
	size_t ncols, nrows;
	char **cells;	/* nrows * ncols, NULL for SQL NULL */
	char *types;	/* nrows * ncols */
	char **names;
};

static int collect(size_t ncols, const char *const *names, const char *const *values,
		   const char *types, void *data)
{
	struct table *t = data;
	size_t i;

	if (!values) {
		t->ncols = ncols;
		t->names = prov_xcalloc(ncols + 1, sizeof(*t->names));
		for (i = 0; i < ncols; i++)
			t->names[i] = prov_xstrdup(names[i]);
		return 0;
	}
	t->cells = prov_xrealloc(t->cells, (t->nrows + 1) * ncols * sizeof(*t->cells) + 1);
	t->types = prov_xrealloc(t->types, (t->nrows + 1) * ncols + 1);
	for (i = 0; i < ncols; i++) {
		t->cells[t->nrows * ncols + i] = prov_xstrdup_or_null(values[i]);
		t->types[t->nrows * ncols + i] = types[i];
	}
	t->nrows++;
	return 0;
}

static void table_release(struct table *t)
{
	size_t i;

	for (i = 0; t->cells && i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	for (i = 0; t->names && i < t->ncols; i++)
		free(t->names[i]);
	free(t->cells);
	free(t->types);
	free(t->names);
}

/* Display width: UTF-8 code points (no East Asian width tables). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Control characters would let a crafted report rewrite the terminal. */
static void put_cell(struct prov_buf *o, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			prov_buf_printf(o, "\\x%02x", c);
		else
			prov_buf_putc(o, (char)c);
	}
}

static size_t shown_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			w += 4;
		else
			w += (c & 0xc0) != 0x80;
	}
	return w;
}

static void write_table(struct prov_buf *o, const struct table *t)
{
	size_t *w = prov_xcalloc(t->ncols + 1, sizeof(*w)), r, c, k;

	for (c = 0; c < t->ncols; c++)
		w[c] = width(t->names[c]);
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			const char *v = t->cells[r * t->ncols + c];
			size_t n = shown_width(v ? v : "NULL");

			if (n > w[c])
				w[c] = n;
		}
	for (c = 0; c < t->ncols; c++) {
		put_cell(o, t->names[c]);
		for (k = shown_width(t->names[c]); c + 1 < t->ncols && k < w[c] + 2; k++)
			prov_buf_putc(o, ' ');
	}
	prov_buf_putc(o, '\n');
	for (c = 0; c < t->ncols; c++) {
		for (k = 0; k < w[c]; k++)
			prov_buf_putc(o, '-');
		if (c + 1 < t->ncols)
			prov_buf_puts(o, "  ");
	}
	prov_buf_putc(o, '\n');
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const char *v = t->cells[r * t->ncols + c];

			v = v ? v : "NULL";
			put_cell(o, v);
			for (k = shown_width(v); c + 1 < t->ncols && k < w[c] + 2; k++)
				prov_buf_putc(o, ' ');
		}
		prov_buf_putc(o, '\n');
	}
	prov_buf_printf(o, "(%zu row%s)\n", t->nrows, t->nrows == 1 ? "" : "s");
	free(w);
}

static void csv_cell(struct prov_buf *o, const char *s)
{
	if (!s)
		return;	/* NULL: an empty field */
	if (!strpbrk(s, ",\"\r\n")) {
		prov_buf_puts(o, s);
		return;
	}
	prov_buf_putc(o, '"');
	for (; *s; s++) {
		if (*s == '"')
			prov_buf_putc(o, '"');
		prov_buf_putc(o, *s);
	}
	prov_buf_putc(o, '"');
}

static void write_csv(struct prov_buf *o, const struct table *t)
{
	size_t r, c;

	for (c = 0; c < t->ncols; c++) {
		if (c)
			prov_buf_putc(o, ',');
		csv_cell(o, t->names[c]);
	}
	prov_buf_putc(o, '\n');
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			if (c)
				prov_buf_putc(o, ',');
			csv_cell(o, t->cells[r * t->ncols + c]);
		}
		prov_buf_putc(o, '\n');
	}
}

static int write_json(struct prov_buf *o, const struct table *t)
{
	struct prov_json j;
	size_t r, c;

	prov_json_init(&j, o);
	prov_json_begin_array(&j);
	for (r = 0; r < t->nrows; r++) {
		prov_json_begin_object(&j);
		for (c = 0; c < t->ncols; c++) {
			const char *v = t->cells[r * t->ncols + c];
			char type = t->types[r * t->ncols + c];
			int64_t n;

			prov_json_key(&j, t->names[c]);
			if (!v)
				prov_json_null(&j);
			else if (type == 'i' && prov_parse_i64(&n, v, strlen(v)) == 0)
				prov_json_int(&j, n);
			else if (type == 'r')
				prov_json_real(&j, strtod(v, NULL));
			else
				prov_json_string(&j, v);
		}
		prov_json_end_object(&j);
	}
	prov_json_end_array(&j);
	return prov_json_finish(&j);
}

int cmd_query(int argc, char **argv, struct prov_ctx *g)
{
	struct prov_query_opts qo = { 10000, 10000 };
	struct table t = { 0 };
	struct prov_store *store = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	const char *store_opt = NULL;
	enum prov_format format = PROV_FORMAT_TABLE;
	char *store_path = NULL;
	int opt, code = 0, err;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (opt) {
		case OPT_FORMAT:
			if (prov_cmd_parse_format(&format, optarg, "table|csv|json") < 0) {
				code = prov_cmd_usage_error(&cmd_query_def, "%s", prov_error_last());
				goto cleanup;
			}
			break;
		case OPT_MAX_ROWS: {
			uint64_t n;

			if (prov_parse_u64(&n, optarg, strlen(optarg), 10) < 0 || n < 1 || n > 100000000) {
				code = prov_cmd_usage_error(&cmd_query_def, "--max-rows wants a number from 1 to 100000000, not '%s'", optarg);
				goto cleanup;
			}
			qo.max_rows = n;
			break;
		}
		case OPT_TIMEOUT: {
			uint64_t n;

			if (prov_parse_u64(&n, optarg, strlen(optarg), 10) < 0 || n < 1 || n > 3600) {
				code = prov_cmd_usage_error(&cmd_query_def, "--timeout wants seconds from 1 to 3600, not '%s'", optarg);
				goto cleanup;
			}
			qo.timeout_ms = n * 1000;
			break;
		}
		case OPT_STORE:
			store_opt = optarg;
			break;
		case OPT_HELP:
			code = prov_cmd_help(&cmd_query_def, help);
			goto cleanup;
		case ':':
			code = prov_cmd_usage_error(&cmd_query_def, "option '%s' needs a value", argv[optind - 1]);
			goto cleanup;
		default:
			code = prov_cmd_usage_error(&cmd_query_def, "unknown option '%s'", argv[optind - 1]);
			goto cleanup;
		}
	}
	if (optind >= argc) {
		code = prov_cmd_usage_error(&cmd_query_def, "no SQL given");
		goto cleanup;
	}
	if (optind + 1 < argc) {
		code = prov_cmd_usage_error(&cmd_query_def, "one SQL argument expected (quote it)");
		goto cleanup;
	}
	store_path = store_opt ? prov_xstrdup(store_opt) : prov_store_default_path(g->cache_dir);
	prov_store_hide_password((char *)store_opt);	/* argv: not on the process list */
	t.format = format;
	if ((err = prov_store_open(&store, store_path, 1)) < 0 ||
	    (err = prov_store_query(store, argv[optind], &qo, collect, &t)) < 0) {
		code = prov_cmd_fail(err == PROV_ENOTFOUND ? PROV_EINPUT : err);
		goto cleanup;
	}
	err = 0;
	if (format == PROV_FORMAT_CSV)
		write_csv(&out, &t);
	else if (format == PROV_FORMAT_JSON)
		err = write_json(&out, &t);
	else
		write_table(&out, &t);
	if (!err && out.over)	/* never a cut result with exit 0 */
		err = prov_error_set(PROV_ELIMIT, "the output is larger than %zu bytes; nothing written%s",
				     out.cap, "; narrow the query (WHERE, LIMIT)");
	if (err < 0 || prov_cmd_write(out.buf, out.len) < 0) {
		code = prov_cmd_fail(err < 0 ? err : PROV_ERROR);
		goto cleanup;
	}
	code = 0;
cleanup:
	table_release(&t);
	prov_store_free(store);
	prov_buf_release(&out);
	free(store_path);
	return code;
}
