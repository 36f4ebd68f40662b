/* The command line on top: the command table, common options, the run context, warnings, the dispatch. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "error.h"
#include "image.h"
#include "sources.h"
#include "util.h"
#include "version.h"
#include "banned.h"

static const struct cmd *const commands[] = {
	&cmd_analyze_def,
	&cmd_resolve_def,
	&cmd_env_def,
	&cmd_fixcheck_def,
	&cmd_cache_def,
	&cmd_import_def,
	&cmd_triage_def,
	&cmd_show_def,
	&cmd_prune_def,
	&cmd_mark_def,
	&cmd_query_def,
	&cmd_collect_def,
	&cmd_serve_def,
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cmd *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static void print_overview(FILE *f)
{
	size_t i;

	fprintf(f, "usage: provenance [-c KEY=VALUE]... [--cache DIR] COMMAND [ARGS]\n"
		   "       provenance --help | --version\n\n"
		   "Tell exactly which source was running when a program crashed,\n"
		   "and whether a fix is already in it.\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "   %-10s %s\n", commands[i]->name, commands[i]->desc);
	fprintf(f, "\ncommon options (before or after the command):\n"
		   "   -c KEY=VALUE   set a config value (repeatable), e.g.\n"
		   "                  -c url.file:///srv/mirrors/.insteadOf=https://github.com/\n"
		   "   --cache DIR    cache directory (default: $PROVENANCE_CACHE,\n"
		   "                  else $XDG_CACHE_HOME/provenance, else ~/.cache/provenance;\n"
		   "                  HOME unset: /tmp/provenance-UID, mode 0700); the crash\n"
		   "                  store is data, not cache: its default is store.sqlite in\n"
		   "                  $XDG_DATA_HOME/provenance, else ~/.local/share/provenance\n"
		   "   --help         this text; 'provenance COMMAND --help' for a command\n"
		   "   --version      print the version\n"
		   "\nexit codes: 0 done, 1 done but incomplete (fixcheck: not included),\n"
		   "            2 bad input, 3 could not determine (fixcheck, resolve --fix),\n"
		   "            64 usage error\n"
		   "\nSee provenance(1).\n");
}

/*
 * Keys of the sections provenance owns; an unknown key in one of them
 * (`fetch.timout`) is a typo worth a warning, as git warns about what it can
 * detect. Other sections are left alone (url.<base>.* and substitute-path.*
 * have free-form names).
 */
static const char *const known_keys[] = {
	"fetch.timeout", "fetch.connecttimeout", "fetch.stalltimeout", "fetch.minrate", "fetch.retries", "fetch.hostdownfor",
	"fetch.retrydelayms", "fetch.maxsize", "fetch.maxpacksize", "fetch.maxrefssize", "fetch.trustsystemurls",
	"fetch.singlefile", "fetch.sslcainfo", "fetch.lsremote", "suspects.clone",
	"import.maxbytes", "import.maxentries",
	"core.maxsize", "cache.maxsize",
	"debuginfod.timeout", "debuginfod.totaltimeout", "debuginfod.maxsize",
	"sources.debianbaseurl", "sources.debiansecuritybaseurl",
	"core.plaindebug",
	"sources.localdirs",	/* file:// allow-list */
	"collect.spooldir", "collect.keepcores", "collect.maxuse", "collect.keepfree",
	"collect.maxcoresize", "collect.maxmemory", "collect.cpubudget", "collect.wallbudget",
	"collect.ratelimit", "collect.nice", "collect.ioclass",
	NULL
};

/* Keys whose value is a whole number of seconds (src/sources/bounded.c, at most 7 days). */
static const char *const seconds_keys[] = {
	"fetch.timeout", "fetch.connecttimeout", "fetch.stalltimeout", NULL
};

static int check_key(const char *key, const char *value, void *data)
{
	const char *dot = strchr(key, '.');
	size_t i, sect;
	int owned = 0;

	(void)data;
	if (!dot)
		return 0;
	for (i = 0; seconds_keys[i]; i++) {
		char *end;
		unsigned long long n;

		if (strcmp(seconds_keys[i], key) || !value || !*value)
			continue;
		errno = 0;
		n = strtoull(value, &end, 10);
		if (*end || errno || value[0] == '-' || n > 7ULL * 86400)
			return prov_error_set(PROV_ERROR, "config %s = '%s': not a number of seconds (0 to 604800)",
					      key, value);
	}
	if (!strcmp(key, "cache.maxsize") && value && *value) {	/* every command, not only those that prune */
		uint64_t bytes;
		int err = prov_image_parse_size(&bytes, value);

		if (err < 0)
			return err;
	}
	sect = (size_t)(dot - key) + 1;
	for (i = 0; known_keys[i]; i++) {
		if (!strcmp(known_keys[i], key))
			return 0;
		if (!strncmp(known_keys[i], key, sect))
			owned = 1;
	}
	if (owned)
		prov_cmd_eprintf("provenance: warning: unknown config key '%s' (ignored)\n", key);
	return 0;
}

static void warn_to_stderr(const char *msg, void *data)
{
	(void)data;
	prov_cmd_eprintf("provenance: warning: %s\n", msg);
}

static char *resolve_cache_dir(const char *opt)
{
	const char *env = getenv("PROVENANCE_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (opt && *opt)
		return prov_xstrdup(opt);
	if (env && *env)
		return prov_xstrdup(env);
	if (xdg && *xdg)
		return prov_xasprintf("%s/provenance", xdg);
	if (home && *home)
		return prov_xasprintf("%s/.cache/provenance", home);
	return NULL;	/* see private_tmp_cache() */
}

/*
 * HOME unset (a service, a bare container): a per-user directory under /tmp,
 * mode 0700, never the current directory. NULL with the error set when that
 * name is taken by something this user does not privately own.
 */
static char *private_tmp_cache(void)
{
	char *dir = prov_xasprintf("/tmp/provenance-%lu", (unsigned long)geteuid());
	struct stat st;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		prov_error_set(PROV_ERROR, "HOME is not set and '%s' cannot be created: %s; use --cache DIR",
			       dir, strerror(errno));
		free(dir);
		return NULL;
	}
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077)) {
		prov_error_set(PROV_ERROR, "HOME is not set and '%s' is not a private directory of this user; use --cache DIR",
			       dir);
		free(dir);
		return NULL;
	}
	return dir;
}

/*
 * Take the common options out of argv wherever they are (before `--`):
 * -c KEY=VALUE, -cKEY=VALUE, --cache DIR, --cache=DIR. Returns the new argc,
 * or -1 after printing a usage error.
 */
static int take_common_options(int argc, char **argv, struct prov_ctx *g)
{
	int i, w = 1;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (strcmp(a, "--") == 0) {
			while (i < argc)
				argv[w++] = argv[i++];
			break;
		}
		if (strcmp(a, "-c") == 0 || strcmp(a, "--cache") == 0) {
			if (i + 1 >= argc) {
				prov_cmd_eprintf("provenance: option '%s' needs a value\n", a);
				return -1;
			}
			v = argv[++i];
		} else if (prov_starts_with(a, "-c") && a[2]) {
			v = a + 2;
			a = "-c";
		} else if ((v = prov_skip_prefix(a, "--cache="))) {
			a = "--cache";
		} else {
			argv[w++] = argv[i];
			continue;
		}
		if (a[1] == 'c' && a[2] == '\0') {
			if (prov_config_add_arg(g->config, v) < 0) {
				prov_cmd_eprintf("provenance: %s\n", prov_error_last());
				return -1;
			}
		} else {
			g->cache_opt = v;
		}
	}
	argv[w] = NULL;
	return w;
}

int main(int argc, char **argv)
{
	struct prov_ctx g = { 0 };
	const struct cmd *c;
	char *cfgpath = NULL;
	int code, error;

	/* A fetch over git:// can die on a closed socket; errors are reported instead. */
	signal(SIGPIPE, SIG_IGN);
	prov_warn_set_sink(warn_to_stderr, NULL);
	g.config = prov_config_new();
	if ((cfgpath = prov_config_default_path()) &&
	    (error = prov_config_read_file(g.config, cfgpath)) < 0) {
		code = prov_cmd_fail(error);
		goto cleanup;
	}
	if ((argc = take_common_options(argc, argv, &g)) < 0) {
		code = PROV_EXIT_USAGE;
		goto cleanup;
	}
	g.cache_dir = resolve_cache_dir(g.cache_opt);
	if ((error = prov_config_foreach(g.config, "", check_key, NULL)) < 0) {
		prov_cmd_eprintf("provenance: %s\n", prov_error_last());
		code = PROV_EXIT_USAGE;
		goto cleanup;
	}

	if (argc < 2) {
		print_overview(stderr);
		code = PROV_EXIT_USAGE;
		goto cleanup;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		if (argc > 2 && (c = find_command(argv[2]))) {
			char *hargv[] = { argv[2], (char *)"--help", NULL };

			code = c->fn(2, hargv, &g);
		} else {
			print_overview(stdout);
			code = 0;
		}
		goto flush;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("provenance %s\n", PROV_VERSION);
		code = 0;
		goto flush;
	}
	if (!(c = find_command(argv[1]))) {
		prov_cmd_eprintf("provenance: '%s' is not a command; see 'provenance --help'\n",
			argv[1]);
		code = PROV_EXIT_USAGE;
		goto cleanup;
	}
	/* --version is a common option: accepted after the command too */
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--version")) {
			printf("provenance %s\n", PROV_VERSION);
			code = 0;
			goto flush;
		}
	if (!g.cache_dir && !(g.cache_dir = private_tmp_cache())) {
		prov_cmd_eprintf("provenance: %s\n", prov_error_last());
		code = PROV_EXIT_INPUT;
		goto cleanup;
	}
	code = c->fn(argc - 1, argv + 1, &g);
flush:
	/* as git does: a full disk or closed pipe must not pass silently */
	if ((fflush(stdout) != 0 || ferror(stdout)) && !prov_cmd_stdout_gone() && errno != EPIPE) {
		prov_cmd_eprintf("provenance: cannot write to standard output: %s\n",
			strerror(errno));
		if (code == 0)
			code = 1;
	}
cleanup:
	free(cfgpath);
	free(g.cache_dir);
	prov_config_free(g.config);
	/* libgit2 is started by its first user (sources.h), if any */
	prov_git_shutdown();
	return code;
}
