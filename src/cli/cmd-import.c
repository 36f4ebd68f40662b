/* provenance import: reports made with resolve --format json, into the crash store. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"
#include "cmd.h"
#include "error.h"
#include "json.h"
#include "jsonread.h"
#include "util.h"
#include "banned.h"

static const char help[] =
	"Add reports made with 'provenance resolve --format json' (on this or any\n"
	"other machine) to the crash store. A REPORT file holds one report, a JSON\n"
	"array of reports (resolve with several inputs), or JSON lines (one report\n"
	"per line); - reads JSON lines from standard input. The same report twice\n"
	"is stored once (content hash over the report, its host and time).\n"
	"\n"
	"options:\n"
	"   --store PATH|URL  the store: a SQLite file (default: store.sqlite in the\n"
	"                  cache directory) or PostgreSQL (postgresql://... or\n"
	"                  \"host=... dbname=...\"; passwords from PGPASSWORD/~/.pgpass)\n"
	"   --host NAME    the host of reports that name none (default: unknown)\n"
	"   --time TIME    the crash time of reports that have none\n"
	"                  (YYYY-MM-DD[THH:MM[:SS]][Z], UTC, or @SECONDS)\n"
	"\n"
	"exit: 0 done, 2 a report was unreadable or not a provenance report (the\n"
	"others are imported), 64 usage error.\n";

enum { OPT_STORE = 256, OPT_HOST, OPT_TIME, OPT_HELP };

static const struct option options[] = {
	{ "store", required_argument, NULL, OPT_STORE },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* Reports per transaction: big enough to be fast, small enough to let a concurrent writer in. */
#define BATCH 500
#define MAX_REPORT ((size_t)64 << 20)

struct import {
	struct prov_store *store;
	struct prov_store_meta meta;
	size_t added, dup, bad, in_batch;
	int fatal;	/* a store error: stop */
};

static int add_one(struct import *im, const char *name, size_t line, const char *json, size_t len)
{
	int64_t id;
	int err;

	if (!im->in_batch && (err = prov_store_begin(im->store)) < 0) {
		im->fatal = err;
		return err;
	}
	err = prov_store_add(&id, im->store, json, len, &im->meta);
	if (err == PROV_EINPUT || err == PROV_ELIMIT) {
		if (line)
			prov_cmd_eprintf("provenance: bad report '%s' line %zu: %s\n", name, line,
				prov_error_last());
		else
			prov_cmd_eprintf("provenance: bad report '%s': %s\n", name, prov_error_last());
		im->bad++;
		return 0;
	}
	if (err < 0) {
		im->fatal = err;
		return err;
	}
	if (err == 1)
		im->dup++;
	else
		im->added++;
	if (++im->in_batch >= BATCH) {
		im->in_batch = 0;
		if ((err = prov_store_commit(im->store)) < 0) {
			im->fatal = err;
			return err;
		}
	}
	return 0;
}

/* A value back to JSON text (an element of an array of reports). */
static void write_value(struct prov_json *j, const struct prov_jv *v)
{
	size_t i;

	switch (v->type) {
	case PROV_JV_NULL:
		prov_json_null(j);
		break;
	case PROV_JV_BOOL:
		prov_json_bool(j, v->boolean);
		break;
	case PROV_JV_NUMBER: {
		int64_t n;

		if (prov_parse_i64(&n, v->str, v->len) == 0)
			prov_json_int(j, n);
		else
			prov_json_string(j, v->str);	/* a report has integers only */
		break;
	}
	case PROV_JV_STRING:
		prov_json_string(j, v->str);
		break;
	case PROV_JV_ARRAY:
		prov_json_begin_array(j);
		for (i = 0; i < v->n; i++)
			write_value(j, &v->items[i]);
		prov_json_end_array(j);
		break;
	case PROV_JV_OBJECT:
		prov_json_begin_object(j);
		for (i = 0; i < v->n; i++) {
			prov_json_key(j, v->keys[i]);
			write_value(j, &v->items[i]);
		}
		prov_json_end_object(j);
		break;
	}
}

static int import_lines(struct import *im, const char *name, const char *text, size_t len)
{
	size_t pos = 0, line = 0;

	while (pos < len && !im->fatal) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len, k = pos;

		line++;
		while (k < end && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r'))
			k++;
		if (k < end)
			add_one(im, name, line, text + pos, end - pos);
		pos = end + 1;
	}
	return im->fatal;
}

/* JSON lines, or one broken document (reported once, not line by line)? */
static int first_line_parses(const char *text, size_t len)
{
	const char *nl = memchr(text, '\n', len);
	struct prov_jv *v = NULL;
	int ok;

	if (!nl)
		return 0;
	ok = prov_jv_parse(&v, text, (size_t)(nl - text)) == 0 && v->type == PROV_JV_OBJECT;
	prov_jv_free(v);
	return ok;
}

/*
 * One line of f into *line (with its newline), at most max bytes held: the
 * rest of a longer line is read and dropped, never held (getline held a
 * 2 GiB line whole before it was refused). The line's length, or -1 at
 * the end; *too_long set when it was cut.
 */
static ssize_t read_line_capped(char **line, size_t *cap, FILE *f, size_t max, int *too_long)
{
	size_t len = 0;
	int c;

	*too_long = 0;
	while ((c = getc_unlocked(f)) != EOF) {
		if (len < max) {
			if (len + 2 > *cap) {
				*cap = *cap ? *cap * 2 : 4096;
				if (*cap > max + 2)
					*cap = max + 2;
				*line = prov_xrealloc(*line, *cap);
			}
			(*line)[len] = (char)c;
		} else {
			*too_long = 1;
		}
		len++;
		if (c == '\n')
			break;
	}
	if (!len)
		return -1;
	if (*line)
		(*line)[len < max ? len : max] = '\0';
	return *too_long ? (ssize_t)max : (ssize_t)len;
}

/* JSON lines from f, one report a line (each at most MAX_REPORT): files of any size stream. */
static int import_stream(struct import *im, FILE *f, const char *name)
{
	char *line = NULL;
	size_t cap = 0, no = 0;
	ssize_t n;
	int too_long;

	while (!im->fatal && (n = read_line_capped(&line, &cap, f, MAX_REPORT, &too_long)) >= 0) {
		size_t k = 0;

		no++;
		while (k < (size_t)n && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r' || line[k] == '\n'))
			k++;
		if (k == (size_t)n)
			continue;
		if (too_long) {
			prov_cmd_eprintf("provenance: bad report '%s' line %zu: longer than %zu bytes\n", name,
				no, MAX_REPORT);
			im->bad++;
			continue;
		}
		add_one(im, name, no, line, (size_t)n);
	}
	if (ferror(f) && !im->fatal)
		im->fatal = prov_error_set(PROV_EINPUT, "cannot read '%s': %s", name, strerror(errno));
	free(line);
	return im->fatal;
}

/*
 * 1 when PATH is a regular file whose first line is a whole JSON object
 * (JSON lines): then it was streamed, a report at a time, whatever its size.
 */
static int import_if_lines(struct import *im, const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	char *first = NULL;
	size_t cap = 0;
	ssize_t n;
	struct stat st;
	FILE *f = NULL;
	int done = 0, too_long;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return 0;
	}
	n = read_line_capped(&first, &cap, f, MAX_REPORT, &too_long);
	if (n > 0 && !too_long && first_line_parses(first, (size_t)n) &&
	    fseek(f, 0, SEEK_SET) == 0) {
		import_stream(im, f, path);
		done = 1;
	}
	free(first);
	fclose(f);
	return done;
}

static int import_file(struct import *im, const char *path)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_jv *v = NULL;
	int err;

	if (import_if_lines(im, path))
		return im->fatal;
	if ((err = prov_read_file(&b, path, MAX_REPORT)) < 0) {
		prov_cmd_eprintf("provenance: %s\n", prov_error_last());
		im->bad++;
		goto cleanup;
	}
	if (prov_jv_parse(&v, b.buf, b.len) == 0 && v->type == PROV_JV_ARRAY) {
		size_t i;

		for (i = 0; i < v->n && !im->fatal; i++) {
			struct prov_buf one = PROV_BUF_INIT;
			struct prov_json j;

			prov_json_init(&j, &one);
			write_value(&j, &v->items[i]);
			if (prov_json_finish(&j) == 0) {
				add_one(im, path, 0, one.buf, one.len);
			} else {
				prov_cmd_eprintf("provenance: bad report '%s' (element %zu): too large\n", path, i);
				im->bad++;
			}
			prov_buf_release(&one);
		}
	} else if (v) {
		add_one(im, path, 0, b.buf, b.len);
	} else if (first_line_parses(b.buf, b.len)) {
		import_lines(im, path, b.buf, b.len);	/* JSON lines */
	} else {
		add_one(im, path, 0, b.buf, b.len);	/* reports the parse error */
	}
	err = im->fatal;
cleanup:
	prov_jv_free(v);
	prov_buf_release(&b);
	return err;
}

int cmd_import(int argc, char **argv, struct prov_ctx *g)
{
	struct import im = { 0 };
	const char *store_opt = NULL;
	char *store_path = NULL, timebuf[21];
	int opt, code = 0, i, err;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (opt) {
		case OPT_STORE:
			store_opt = optarg;
			break;
		case OPT_HOST:
			im.meta.host = optarg;
			break;
		case OPT_TIME:
			if (prov_store_parse_time(timebuf, optarg) < 0) {
				code = prov_cmd_usage_error("import", "%s", prov_error_last());
				goto cleanup;
			}
			im.meta.time = timebuf;
			break;
		case OPT_HELP:
			code = prov_cmd_help("import", help);
			goto cleanup;
		case ':':
			code = prov_cmd_usage_error("import", "option '%s' needs a value", argv[optind - 1]);
			goto cleanup;
		default:
			code = prov_cmd_usage_error("import", "unknown option '%s'", argv[optind - 1]);
			goto cleanup;
		}
	}
	if (optind >= argc) {
		code = prov_cmd_usage_error("import", "no REPORT given (- reads JSON lines from standard input)");
		goto cleanup;
	}
	store_path = store_opt ? prov_xstrdup(store_opt) : prov_store_default_path(g->cache_dir);
	prov_store_hide_password((char *)store_opt);	/* argv: not on the process list */
	if ((err = prov_store_open(&im.store, store_path, 0)) < 0) {
		code = prov_cmd_fail(err);
		goto cleanup;
	}
	for (i = optind; i < argc && !im.fatal; i++) {
		if (!strcmp(argv[i], "-"))
			import_stream(&im, stdin, "-");
		else
			import_file(&im, argv[i]);
	}
	if (!im.fatal && im.in_batch && (err = prov_store_commit(im.store)) < 0)
		im.fatal = err;
	if (im.fatal) {
		prov_store_rollback(im.store);
		code = prov_cmd_fail(im.fatal);
		goto cleanup;
	}
	prov_cmd_eprintf("imported %zu report%s (%zu already in the store%s) into %s\n", im.added,
		im.added == 1 ? "" : "s", im.dup, im.bad ? ", some bad: see above" : "", prov_store_name(im.store));
	code = im.bad ? PROV_EXIT_INPUT : 0;
cleanup:
	prov_store_free(im.store);
	free(store_path);
	return code;
}
