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
#include "collect.h"
#include "journal.h"
#include "error.h"
#include "buf.h"
#include "util.h"
#include "banned.h"

/* The command table's entry: name, usage line and description (main.c lists it). */
const struct cmd cmd_import_def = {
	"import", cmd_import, 0,
	"import REPORT.json...|- [--store PATH] [--host NAME] [--time TIME]\n"
	"       provenance import --journal [--since TIME] [--directory DIR] [--store PATH]",
	"add reports made with resolve --format json, or systemd-coredump's crashes, to the crash store"
};

static const char help[] =
	"Add reports made with 'provenance resolve --format json' (on this or any\n"
	"other machine) to the crash store. A REPORT file holds one report, a JSON\n"
	"array of reports (resolve with several inputs), or JSON lines (one report\n"
	"per line), or several reports one after the other; - reads the same from\n"
	"standard input. The same report twice\n"
	"is stored once (content hash over the report, its host and time).\n"
	"\n"
	"With --journal it reads systemd-coredump's entries from the journal\n"
	"(MESSAGE_ID fc2e22bc6ee647b6b90729ab34a250b1) and the cores it stored\n"
	"(COREDUMP_FILENAME: zstd, xz, lz4 or plain; or the COREDUMP field), analyzes\n"
	"each offline as 'provenance collect' does (its collect.* budgets) and stores\n"
	"it with the entry's host, time, pid, executable, command line, cgroup and job\n"
	"variables (COREDUMP_ENVIRON: only those docs/collect.md names). A cursor per\n"
	"journal and store (in the data directory) makes each crash imported once:\n"
	"a second run imports only what came since. A bad entry is one line; the\n"
	"next is read.\n"
	"\n"
	"options:\n"
	"   --journal      read systemd-coredump's crashes from the journal\n"
	"   --directory DIR  the journal files in DIR (journalctl --directory), not\n"
	"                  this machine's journal\n"
	"   --since TIME   with --journal: only crashes at or after TIME\n"
	"   --store PATH|URL  the store: a SQLite file (default: store.sqlite in the\n"
	"                  data directory) or PostgreSQL (postgresql://... or\n"
	"                  \"host=... dbname=...\"; passwords from PGPASSWORD/~/.pgpass)\n"
	"   --host NAME    the host of reports that name none (default: unknown)\n"
	"   --time TIME    the crash time of reports that have none\n"
	"                  (YYYY-MM-DD[THH:MM[:SS]][Z], UTC, or @SECONDS)\n"
	"\n"
	"exit: 0 done, 2 a report was unreadable or not a provenance report (the\n"
	"others are imported), 64 usage error.\n";

enum { OPT_STORE = 256, OPT_HOST, OPT_TIME, OPT_HELP, OPT_JOURNAL, OPT_SINCE, OPT_DIRECTORY };

static const struct option options[] = {
	{ "store", required_argument, NULL, OPT_STORE },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "journal", no_argument, NULL, OPT_JOURNAL },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "directory", required_argument, NULL, OPT_DIRECTORY },
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
	/* a store whose schema changed under this writer: stop (exit 2), not a bad report */
	if ((err == PROV_EINPUT || err == PROV_ELIMIT) && !prov_store_stale(im->store)) {
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

/*
 * The reports of a stream, one at a time, as the bytes given: one report
 * (pretty, as `resolve --format json` prints it), several concatenated, a
 * top-level array of them (`resolve` with several inputs), or JSON Lines.
 * The first value decides: one that starts and ends on one line makes the
 * stream JSON Lines, where a newline ends a value whatever its brackets say
 * (a truncated line is one bad report, the next line is read again);
 * otherwise a value ends where its brackets close (strings and escapes
 * respected). Files of any size stream: one report is held at a time.
 */
struct import_split {
	FILE *f;
	size_t max;	/* bytes per value at most */
	size_t line;	/* the line being read, from 1 */
	int lines;	/* -1: not known yet; 1: JSON Lines; 0: values span lines */
	int in_array;	/* inside a top-level '[' */
	int peeked;	/* a character read ahead, or EOF */
	int has_peek;
};

static void import_split_init(struct import_split *sp, FILE *f, size_t max)
{
	memset(sp, 0, sizeof(*sp));
	sp->f = f;
	sp->max = max;
	sp->line = 1;
	sp->lines = -1;
}

static int split_getc(struct import_split *sp)
{
	int c;

	if (sp->has_peek) {
		sp->has_peek = 0;
		c = sp->peeked;
	} else {
		c = getc_unlocked(sp->f);
	}
	if (c == '\n')
		sp->line++;
	return c;
}

static void split_ungetc(struct import_split *sp, int c)
{
	if (c == '\n')
		sp->line--;
	sp->peeked = c;
	sp->has_peek = 1;
}

/* Blanks, and between an array's elements their ',' and the closing ']'. */
static int split_skip(struct import_split *sp)
{
	int c;

	for (;;) {
		c = split_getc(sp);
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (sp->in_array && c == ',')
			continue;
		if (sp->in_array && c == ']') {
			sp->in_array = 0;
			continue;
		}
		if (c == '[' && !sp->in_array && sp->lines != 1) {
			sp->in_array = 1;	/* a top-level array: its elements are the reports */
			continue;
		}
		return c;
	}
}

/*
 * The next report into `out` (reset first) and the line it starts on: 1; 0 at
 * the end of the stream; -1 when it was longer than sp->max bytes (read to its
 * end and dropped) — the caller reports it and goes on. A value that is not
 * JSON comes back as it is: the caller's parser says what is wrong with it.
 */
static int import_split_next(struct prov_buf *out, size_t *out_line, struct import_split *sp)
{
	size_t depth = 0, first_line;
	int c = split_skip(sp), in_string = 0, escaped = 0, too_long = 0, closed = 0;

	prov_buf_reset(out);
	if (c == EOF)
		return 0;
	first_line = *out_line = sp->line;
	for (; c != EOF; c = split_getc(sp)) {
		if (c == '\n' && sp->lines == 1) {
			split_ungetc(sp, c);
			break;	/* JSON Lines: the line ends the value */
		}
		if (out->len < sp->max)
			prov_buf_putc(out, (char)c);
		else
			too_long = 1;
		if (in_string) {
			if (escaped)
				escaped = 0;
			else if (c == '\\')
				escaped = 1;
			else if (c == '"')
				in_string = 0;
			continue;
		}
		if (c == '"') {
			in_string = 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if ((c == '}' || c == ']') && depth) {
			if (--depth == 0) {
				closed = 1;
				break;
			}
		} else if (!depth && (c == ',' || c == ']' || c == ' ' || c == '\n')) {
			break;	/* a bare scalar at the top: let the parser refuse it */
		}
	}
	if (sp->lines < 0)
		sp->lines = closed && sp->line == first_line && !sp->in_array;
	return too_long ? -1 : 1;
}

/* Every report of f (a file or standard input). */
static int import_stream(struct import *im, FILE *f, const char *name)
{
	struct import_split sp;
	struct prov_buf one = PROV_BUF_INIT;
	size_t line;
	int r;

	import_split_init(&sp, f, MAX_REPORT);
	while (!im->fatal && (r = import_split_next(&one, &line, &sp)) != 0) {
		/* a line number where it helps: JSON Lines, or a report after the first line */
		size_t where = sp.lines == 1 || line > 1 ? line : 0;

		if (r < 0) {
			prov_cmd_eprintf("provenance: bad report '%s' line %zu: longer than %zu bytes\n", name,
				line, MAX_REPORT);
			im->bad++;
			continue;
		}
		add_one(im, name, where, one.buf, one.len);
	}
	if (ferror(f) && !im->fatal)
		im->fatal = prov_error_set(PROV_EINPUT, "cannot read '%s': %s", name, strerror(errno));
	prov_buf_release(&one);
	return im->fatal;
}

static int import_file(struct import *im, const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	FILE *f;
	int err;

	if (fd < 0 || fstat(fd, &st) < 0 || S_ISDIR(st.st_mode) || !(f = fdopen(fd, "r"))) {
		prov_cmd_eprintf("provenance: cannot read '%s': %s\n", path,
				 fd >= 0 && S_ISDIR(st.st_mode) ? "a directory" : strerror(errno));
		if (fd >= 0)
			close(fd);
		im->bad++;
		return 0;
	}
	err = import_stream(im, f, path);
	fclose(f);
	return err;
}

static void journal_say(void *arg, const char *line)
{
	(void)arg;
	prov_cmd_eprintf("%s", line);
}

/* import --journal: systemd-coredump's crashes (journal.h). */
static int import_journal(struct prov_ctx *g, const char *store_path, const char *directory,
			  const char *since)
{
	struct prov_journal_opts o = { 0 };
	struct prov_journal_counts c;
	char *spool = prov_xasprintf("%s/journal", g->cache_dir);
	int err, code;

	o.directory = directory;
	o.since = since;
	o.data_dir = g->cache_dir;
	o.collect.store = store_path;
	o.collect.spool_dir = spool;
	o.collect.ctx = g;
	o.say = journal_say;
	if ((err = prov_collect_limits_read(&o.collect.limits, g->config)) < 0) {
		code = prov_cmd_fail(err);
		goto cleanup;
	}
	err = prov_journal_import(&o, &c);
	prov_cmd_eprintf("journal: %zu crash%s stored, %zu in the store already, %zu bad entr%s%s\n",
			 c.stored, c.stored == 1 ? "" : "es", c.dup, c.bad, c.bad == 1 ? "y" : "ies",
			 c.skipped ? ", some before --since" : "");
	if (err < 0) {
		code = prov_cmd_fail(err);
		goto cleanup;
	}
	code = c.bad ? PROV_EXIT_INPUT : 0;
cleanup:
	free(spool);
	return code;
}

int cmd_import(int argc, char **argv, struct prov_ctx *g)
{
	const char *directory = NULL, *since = NULL;
	char sincebuf[21];
	int journal = 0;
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
				code = prov_cmd_usage_error(&cmd_import_def, "%s", prov_error_last());
				goto cleanup;
			}
			im.meta.time = timebuf;
			break;
		case OPT_JOURNAL:
			journal = 1;
			break;
		case OPT_DIRECTORY:
			directory = optarg;
			break;
		case OPT_SINCE:
			if (prov_store_parse_time(sincebuf, optarg) < 0) {
				code = prov_cmd_usage_error(&cmd_import_def, "%s", prov_error_last());
				goto cleanup;
			}
			since = sincebuf;
			break;
		case OPT_HELP:
			code = prov_cmd_help(&cmd_import_def, help);
			goto cleanup;
		case ':':
			code = prov_cmd_usage_error(&cmd_import_def, "option '%s' needs a value", argv[optind - 1]);
			goto cleanup;
		default:
			code = prov_cmd_usage_error(&cmd_import_def, "unknown option '%s'", argv[optind - 1]);
			goto cleanup;
		}
	}
	if (!journal && (directory || since)) {
		code = prov_cmd_usage_error(&cmd_import_def, "--directory and --since go with --journal");
		goto cleanup;
	}
	if (journal && (optind < argc || im.meta.host || im.meta.time)) {
		code = prov_cmd_usage_error(&cmd_import_def, "--journal takes no REPORT, --host or --time "
					    "(the entries have them)");
		goto cleanup;
	}
	if (journal) {
		store_path = store_opt ? prov_xstrdup(store_opt) : prov_store_default_path(g->cache_dir);
		prov_store_hide_password((char *)store_opt);
		code = import_journal(g, store_path, directory, since);
		goto cleanup;
	}
	if (optind >= argc) {
		code = prov_cmd_usage_error(&cmd_import_def, "no REPORT given (- reads JSON lines from standard input)");
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
