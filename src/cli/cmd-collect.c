/* provenance collect: install/uninstall the core_pattern handler, the handler itself, --flush. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmd.h"
#include "collect.h"
#include "config.h"
#include "error.h"
#include "store.h"
#include "util.h"
#include "banned.h"

/* A small non-negative integer from text; -1 when it is not one. */
static int prov_atoi(const char *s)
{
	int64_t v;

	while (*s == ' ')
		s++;
	if (prov_parse_i64(&v, s, strcspn(s, "\n")) < 0 || v < 0 || v > 1000000000)
		return -1;
	return (int)v;
}

#define CORE_PATTERN "/proc/sys/kernel/core_pattern"
#define PIPE_LIMIT "/proc/sys/kernel/core_pipe_limit"
#define DEFAULT_SPOOL "/var/spool/provenance"
#define SYSCTL_FILE "50-provenance-collect.conf"

/* The command table's entry: name, usage line and description (main.c lists it). */
const struct cmd cmd_collect_def = {
	"collect", cmd_collect, 0,
	"collect --install [--persist]|--uninstall|--flush [--store PATH|URL] [--spool-dir DIR]",
	"collect crashes where they happen (core_pattern handler, job and rank)"
};

static const char help[] =
	"Collect crashes where they happen: --install makes the kernel pipe every\n"
	"core to this binary (core_pattern), which reads the crashed process's job\n"
	"facts from /proc, analyzes the core offline against the process's own root\n"
	"and stores the report; when the store fails the report is queued in\n"
	"SPOOL/queue for --flush. See docs/collect.md.\n"
	"\n"
	"options:\n"
	"   --install      write core_pattern (and core_pipe_limit when it is 0); the\n"
	"                  previous values go to SPOOL/state, the store to SPOOL/store\n"
	"   --persist      with --install: also write /etc/sysctl.d/" SYSCTL_FILE "\n"
	"                  (the pattern at the next boot); --uninstall removes it\n"
	"   --uninstall    put back the values saved by --install\n"
	"   --flush        send the queued reports (SPOOL/queue) to the store, each once\n"
	"   --store PATH|URL  the store (SQLite file or PostgreSQL URL; default: the\n"
	"                  one in SPOOL/store, else store.sqlite in the data directory)\n"
	"   --spool-dir DIR   an absolute path: the spooled core, the queue, the state\n"
	"                  (default: config collect.spoolDir, else " DEFAULT_SPOOL ")\n"
	"   --handler DIR PID SIGNAL TIME HOST UID\n"
	"                  the kernel's call (core_pattern %P %s %t %h %u); the core\n"
	"                  is standard input\n"
	"\n"
	"settings (-c KEY=VALUE with --install, kept in SPOOL/config; docs/collect.md):\n"
	"   collect.keepCores N     cores kept per signature, zstd (default 1)\n"
	"   collect.maxUse SIZE     all kept cores at most (default 10%)\n"
	"   collect.keepFree SIZE   left free on the spool's file system (default 15%)\n"
	"   collect.maxCoreSize SIZE  bigger cores are not analyzed (default 2G)\n"
	"   collect.cpuBudget SEC   CPU seconds of the analysis (default 60)\n"
	"   collect.wallBudget SEC  wall seconds of the analysis (default 120)\n"
	"   collect.maxMemory SIZE  data of the analysis (default 1G)\n"
	"   collect.rateLimit N     analyses per executable and signal a minute (default 10)\n"
	"   collect.nice N          the handler's niceness, 0 to 19 (default 19)\n"
	"   collect.ioClass CLASS   the handler's I/O class: idle, best-effort (its\n"
	"                           lowest priority) or none (default idle)\n"
	"\n"
	"exit: 0 done (the handler: stored or queued), 2 bad input, 3 could not\n"
	"keep the report, 64 usage error.\n";

enum { OPT_INSTALL = 256, OPT_UNINSTALL, OPT_FLUSH, OPT_STORE, OPT_SPOOL, OPT_HANDLER,
       OPT_PERSIST, OPT_HELP };

static const struct option options[] = {
	{ "install", no_argument, NULL, OPT_INSTALL },
	{ "uninstall", no_argument, NULL, OPT_UNINSTALL },
	{ "flush", no_argument, NULL, OPT_FLUSH },
	{ "persist", no_argument, NULL, OPT_PERSIST },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "spool-dir", required_argument, NULL, OPT_SPOOL },
	{ "handler", required_argument, NULL, OPT_HANDLER },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static int read_small(char *out, size_t cap, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, out, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	out[n] = 0;
	return 0;
}

static int write_small(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t len = strlen(text);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, len) == (ssize_t)len;
	return close(fd) == 0 && ok ? 0 : -1;
}

/* Characters that core_pattern would split or expand: refused in paths we put there. */
static int pattern_safe(const char *s)
{
	for (; *s; s++)
		if (*s == ' ' || *s == '%' || *s == '\n' || (unsigned char)*s < 0x20)
			return 0;
	return 1;
}

/* DIR/NAME = text (0600), replaced atomically. */
static int write_private(const char *dir, const char *name, const char *text)
{
	char *tmp = prov_xasprintf("%s/.%s.tmp", dir, name), *dst = prov_xasprintf("%s/%s", dir, name);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), err = 0;
	size_t len = strlen(text);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd) < 0 || rename(tmp, dst) < 0) {
		prov_cmd_eprintf("provenance: cannot write '%s': %s\n", dst, strerror(errno));
		err = -1;
		unlink(tmp);
	}
	free(tmp);
	free(dst);
	return err;
}

/* The sysctl.d directory: /etc/sysctl.d, or $PROVENANCE_SYSCTL_DIR (tests). */
static char *sysctl_path(void)
{
	const char *d = getenv("PROVENANCE_SYSCTL_DIR");

	return prov_xasprintf("%s/" SYSCTL_FILE, d && *d ? d : "/etc/sysctl.d");
}

static int add_setting(const char *key, const char *value, void *data)
{
	prov_buf_printf(data, "%s=%s\n", key, value);
	return 0;
}

/* --persist: the pattern (and pipe limit) for the next boot. */
static int persist(const char *pattern)
{
	char *path = sysctl_path(), *text;
	int fd, err = 0;

	text = prov_xasprintf("# written by provenance collect --install --persist; "
			      "--uninstall removes it\nkernel.core_pattern = %s\n"
			      "kernel.core_pipe_limit = 16\n", pattern);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) < 0) {
		prov_cmd_eprintf("provenance: cannot write '%s': %s\n", path, strerror(errno));
		err = -1;
	} else {
		printf("written: %s\n", path);
	}
	free(path);
	free(text);
	return err;
}

static int install(const char *spool, const char *store, const struct prov_config *cfg,
		   int persist_it)
{
	struct prov_buf settings = PROV_BUF_INIT;
	char self[4096], old[4096], limit[64], *state = NULL, *pattern = NULL, *text = NULL;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int code = PROV_EXIT_UNKNOWN;

	if (n <= 0)
		return prov_cmd_eprintf("provenance: cannot read /proc/self/exe\n"), 3;
	self[n] = 0;
	if (!pattern_safe(self) || !pattern_safe(spool))
		return prov_cmd_usage_error(&cmd_collect_def, "paths in core_pattern cannot hold spaces, "
					    "'%%' or control characters");
	if (read_small(old, sizeof(old), CORE_PATTERN) < 0 ||
	    read_small(limit, sizeof(limit), PIPE_LIMIT) < 0) {
		prov_cmd_eprintf("provenance: cannot read %s: %s\n", CORE_PATTERN, strerror(errno));
		return 3;
	}
	if (prov_mkdir_p(spool, 0700, 0) < 0)
		return prov_cmd_fail(prov_error_last_code());
	state = prov_xasprintf("%s/state", spool);
	if (access(state, F_OK) == 0) {
		prov_cmd_eprintf("provenance: already installed ('%s' exists); run --uninstall first\n",
				 state);
		goto cleanup;
	}
	/* the state file: the pattern line, then the pipe limit */
	text = prov_xasprintf("%s%s%s", old, strchr(old, '\n') ? "" : "\n", limit);
	{
		int fd = open(state, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		size_t len = strlen(text);

		if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd) < 0) {
			prov_cmd_eprintf("provenance: cannot write '%s': %s\n", state, strerror(errno));
			goto cleanup;
		}
	}
	/* the store stays out of core_pattern (world-readable, 127 characters at most) */
	if (store && write_private(spool, "store", store) < 0)
		goto cleanup;
	/* the collect.* settings the handler will read (it gets no -c) */
	prov_config_foreach(cfg, "collect.", add_setting, &settings);
	if (write_private(spool, "config", settings.buf ? settings.buf : "") < 0)
		goto cleanup;
	pattern = prov_xasprintf("|%s collect --handler %s %%P %%s %%t %%h %%u", self, spool);
	if (strlen(pattern) >= 128) {
		prov_cmd_eprintf("provenance: the pattern is over the kernel's 127 characters: %s\n",
				 pattern);
		unlink(state);
		goto cleanup;
	}
	if (write_small(CORE_PATTERN, pattern) < 0) {
		prov_cmd_eprintf("provenance: cannot write %s: %s\n", CORE_PATTERN, strerror(errno));
		unlink(state);
		goto cleanup;
	}
	printf("core_pattern: %s", old);
	printf("         now: %s\n", pattern);
	if (prov_atoi(limit) == 0) {
		if (write_small(PIPE_LIMIT, "16") == 0)
			printf("core_pipe_limit: 0 -> 16 (keeps /proc/PID while the handler runs)\n");
		else
			prov_cmd_eprintf("provenance: warning: cannot set core_pipe_limit\n");
	}
	printf("saved in %s\n", state);
	code = persist_it && persist(pattern) < 0 ? PROV_EXIT_UNKNOWN : 0;
cleanup:
	prov_buf_release(&settings);
	free(state);
	free(pattern);
	free(text);
	return code;
}

static int uninstall(const char *spool)
{
	char *state = prov_xasprintf("%s/state", spool), text[8192], *nl;
	int code = PROV_EXIT_UNKNOWN;

	if (read_small(text, sizeof(text), state) < 0 || !(nl = strchr(text, '\n'))) {
		prov_cmd_eprintf("provenance: not installed here (cannot read '%s')\n", state);
		goto cleanup;
	}
	*nl = 0;
	if (write_small(CORE_PATTERN, text) < 0 || write_small(PIPE_LIMIT, nl + 1) < 0) {
		prov_cmd_eprintf("provenance: cannot restore %s: %s\n", CORE_PATTERN, strerror(errno));
		goto cleanup;
	}
	printf("core_pattern restored: %s\ncore_pipe_limit restored: %s", text, nl + 1);
	unlink(state);
	{
		char *p = sysctl_path();

		if (unlink(p) == 0)
			printf("removed: %s\n", p);
		free(p);
	}
	code = 0;
cleanup:
	free(state);
	return code;
}

/* SPOOL/config: the collect.* settings given to --install, one KEY=VALUE a line. */
/* ioprio_set(2) for this process (inherited by the analysis): ionice's classes. */
static void io_class(int cls)
{
	/* <linux/ioprio.h>: the class in the top 3 of 16 bits; IOPRIO_WHO_PROCESS is 1 */
	int prio = cls == PROV_COLLECT_IO_IDLE ? 3 << 13 :
		   cls == PROV_COLLECT_IO_BEST_EFFORT ? (2 << 13) | 7 : -1;

	if (prio >= 0 && syscall(SYS_ioprio_set, 1, 0, prio) < 0)
		errno = 0;	/* not fatal: the crash is recorded all the same */
}

static void load_settings(struct prov_config *cfg, const char *spool)
{
	char *path = prov_xasprintf("%s/config", spool), text[8192], *line, *save = NULL;

	if (read_small(text, sizeof(text), path) == 0)
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			if (prov_starts_with(line, "collect."))
				prov_config_add_arg(cfg, line);
	free(path);
}

/* The handler: a quiet environment, low priority, then the crash. */
static int handle(struct prov_collect_opts *o)
{
	struct prov_buf msg = PROV_BUF_INIT;
	int err;

	/* the kernel starts the handler with only fd 0 (the core): fds 1 and 2
	 * would otherwise be the first files and pipes it opens */
	for (;;) {
		int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (fd < 0)
			break;
		if (fd > 2) {
			close(fd);
			break;
		}
		fcntl(fd, F_SETFD, 0);
	}
	if (!getenv("PATH"))
		setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
	if (!getenv("HOME"))
		setenv("HOME", "/root", 1);
	if (o->limits.nice && nice(o->limits.nice) < 0)
		errno = 0;
	io_class(o->limits.io_class);
	err = prov_collect_crash(o, &msg);
	if (err < 0) {
		int code = prov_cmd_fail(err);

		prov_buf_release(&msg);
		return code;
	}
	fputs(msg.buf ? msg.buf : "", stderr);
	prov_buf_release(&msg);
	return 0;
}

int cmd_collect(int argc, char **argv, struct prov_ctx *g)
{
	struct prov_collect_opts o = { 0 };
	const char *spool = prov_config_get(g->config, "collect.spoolDir");
	int c, mode = 0, have_pid = 0, persist_it = 0, err;
	char saved_store[4096];

	o.ctx = g;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case OPT_INSTALL:
		case OPT_UNINSTALL:
		case OPT_FLUSH:
			if (mode && mode != c)
				return prov_cmd_usage_error(&cmd_collect_def, "choose one of --install, "
							    "--uninstall, --flush");
			mode = c;
			break;
		case OPT_STORE: o.store = optarg; break;
		case OPT_PERSIST: persist_it = 1; break;
		case OPT_SPOOL: spool = optarg; break;
		case OPT_HANDLER:
			spool = optarg;
			have_pid = 1;
			break;
		case OPT_HELP: return prov_cmd_help(&cmd_collect_def, help);
		default: return prov_cmd_usage_error(&cmd_collect_def, "unknown option");
		}
	}
	if (have_pid) {
		if (argc - optind != 5 || (o.pid = prov_atoi(argv[optind])) <= 0)
			return prov_cmd_usage_error(&cmd_collect_def, "--handler DIR PID SIGNAL TIME HOST UID");
		o.signal = prov_atoi(argv[optind + 1]);
		o.time = argv[optind + 2];
		o.host = argv[optind + 3];
		o.uid = argv[optind + 4];
		optind = argc;
	}
	if (optind < argc)
		return prov_cmd_usage_error(&cmd_collect_def, "unexpected argument '%s'", argv[optind]);
	o.spool_dir = spool && *spool ? spool : DEFAULT_SPOOL;
	if (spool && *spool != '/' && mode != OPT_FLUSH)
		return prov_cmd_usage_error(&cmd_collect_def, "--spool-dir must be an absolute path");
	if (!o.store && mode != OPT_INSTALL) {
		char *f = prov_xasprintf("%s/store", o.spool_dir);

		if (read_small(saved_store, sizeof(saved_store), f) == 0 && *saved_store)
			o.store = saved_store;
		free(f);
	}
	if (persist_it && mode != OPT_INSTALL)
		return prov_cmd_usage_error(&cmd_collect_def, "--persist goes with --install");
	if (have_pid)
		load_settings(g->config, o.spool_dir);
	if ((err = prov_collect_limits_read(&o.limits, g->config)) < 0)
		return prov_cmd_fail(err);
	if (mode == OPT_INSTALL)
		return install(o.spool_dir, o.store, g->config, persist_it);
	if (mode == OPT_UNINSTALL)
		return uninstall(o.spool_dir);
	if (mode == OPT_FLUSH) {
		size_t sent, dups;
		err = prov_collect_flush(o.spool_dir, o.store, g, &sent, &dups);

		printf("sent %zu queued reports (%zu were stored already)\n", sent + dups, dups);
		return err < 0 ? prov_cmd_fail(err) : 0;
	}
	if (!have_pid)
		return prov_cmd_usage_error(&cmd_collect_def, "give --install, --uninstall, --flush or "
					    "--handler");
	return handle(&o);
}
