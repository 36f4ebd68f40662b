#ifndef PROV_CMD_H
#define PROV_CMD_H

#include <stdio.h>

#include "config.h"
#include "context.h"
#include "report.h"

/* Exit codes (design contract). */
enum prov_exit {
	PROV_EXIT_OK = 0,
	PROV_EXIT_PARTIAL = 1,	/* done but incomplete; fixcheck: not an ancestor */
	PROV_EXIT_INPUT = 2,	/* bad input */
	PROV_EXIT_UNKNOWN = 3,	/* could not determine (fixcheck, resolve --fix) */
	PROV_EXIT_USAGE = 64,
};

/*
 * A command: parses its own options from argv (argv[0] is the command name),
 * writes results to stdout and everything else to stderr, returns the exit
 * code. Common options (-c, --cache) were already removed from argv by main.
 */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv, struct prov_ctx *g);
	unsigned int flags;	/* none today: libgit2 starts on first use (sources.h) */
	const char *usage;	/* one line after "provenance " */
	const char *desc;
};

int cmd_analyze(int argc, char **argv, struct prov_ctx *g);
int cmd_resolve(int argc, char **argv, struct prov_ctx *g);
int cmd_env(int argc, char **argv, struct prov_ctx *g);
int cmd_fixcheck(int argc, char **argv, struct prov_ctx *g);
int cmd_cache(int argc, char **argv, struct prov_ctx *g);
int cmd_import(int argc, char **argv, struct prov_ctx *g);
int cmd_show(int argc, char **argv, struct prov_ctx *g);
int cmd_prune(int argc, char **argv, struct prov_ctx *g);
int cmd_mark(int argc, char **argv, struct prov_ctx *g);
int cmd_triage(int argc, char **argv, struct prov_ctx *g);
int cmd_query(int argc, char **argv, struct prov_ctx *g);
int cmd_collect(int argc, char **argv, struct prov_ctx *g);
int cmd_serve(int argc, char **argv, struct prov_ctx *g);

/* Each command's entry (name, usage, description), defined in its cmd-*.c: the
 * command owns its usage text; main.c's table lists these. */
extern const struct cmd cmd_analyze_def, cmd_resolve_def, cmd_env_def, cmd_fixcheck_def,
	cmd_cache_def, cmd_import_def, cmd_show_def, cmd_prune_def, cmd_mark_def, cmd_triage_def, cmd_query_def,
	cmd_collect_def, cmd_serve_def;

/* Print "provenance: <msg>" for the stored error; returns its exit code
 * (never 1, "done but incomplete": a failed command wrote no result; 3 then). */
int prov_cmd_fail(int code);
/* Print "provenance <cmd>: <msg>" plus c's usage line; returns 64. */
int prov_cmd_usage_error(const struct cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print a command's help (c's usage line and description, then `body`) to stdout; returns 0. */
int prov_cmd_help(const struct cmd *c, const char *body);
/* Print to stderr with every control character from input (C0 but \n and \t,
 * DEL, U+0080..U+009F) shown as \xHH: the one way messages reach stderr. */
void prov_cmd_eprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write a buffer to stdout, controls from input (C0 but \n and \t, DEL,
 * U+0080..U+009F) shown as \xHH; 0 or -1 (message set). */
int prov_cmd_write(const char *data, size_t len);
/* 1 once prov_cmd_write found the reader of stdout gone (EPIPE): not an error. */
int prov_cmd_stdout_gone(void);

/* --exe PATH: 0 when *path is a readable ELF file, else PROV_EINPUT saying why.
 * A relative *path is made absolute (one static buffer: --exe is given once
 * per run), so that the analyzer compares it with the module paths it makes
 * (a relative one left a PAC-signed QEMU core with no module at all). */
int prov_cmd_check_exe(const char **path);

struct prov_image;
/* --sysroot's value as a root (src/image/image.h): a directory as it is, an
 * image unpacked into the cache; *sysroot becomes the root's path. 0, or
 * PROV_EINPUT with the message set (the caller fails with it). */
int prov_cmd_open_sysroot(struct prov_image *img, const char **sysroot, const struct prov_ctx *g);

/* Parse --format; 0 or PROV_EUSAGE. `allowed` is e.g. "text|json". */
int prov_cmd_parse_format(enum prov_format *out, const char *value, const char *allowed);

#endif
