#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store.h"
#include "cmd.h"
#include "error.h"
#include "fixstatus.h"
#include "json.h"
#include "pipeline.h"
#include "report.h"
#include "util.h"
#include "banned.h"

static const char help[] =
	"Analyze each INPUT (a core file, a core compressed with zstd, xz, lz4 or\n"
	"gzip, a text file holding a backtrace, or - for standard input), find the\n"
	"package that installed every module, the upstream repository and commit\n"
	"it was built from, and show the crashing lines from that commit.\n"
	"\n"
	"options:\n"
	"   --exe PATH        the executable, when it is not where the core says\n"
	"   --sysroot DIR     the crashed system's root (an unpacked container image):\n"
	"                     module files and package databases are read under DIR\n"
	"   --format FMT      text (default), markdown (the crash report) or json\n"
	"   --mapping FILE    extra component mappings (repeatable)\n"
	"   --offline         never touch the network: use the cache and the disk\n"
	"   --context N       lines of source around each frame's line (default 3)\n"
	"   --fix COMMIT      check whether COMMIT is in the deployed build of the\n"
	"                     component at the crash (repeatable; see fixcheck);\n"
	"                     A..B: one fix made of the commits in B and not in A\n"
	"   --component NAME  the component --fix applies to (default: the one of the\n"
	"                     innermost frame that has one)\n"
	"   --include-prereleases\n"
	"                     the first release containing a fix may be a pre-release\n"
	"                     tag (-rc1, alpha, beta, pre, dev, a1/b2); by default\n"
	"                     only final releases are named\n"
	"   --all-threads     text and markdown: show every thread\n"
	"   --locals          text: arguments and locals (from DWARF; Python\n"
	"                     frames from the interpreter) under the\n"
	"                     crashing thread's frames (markdown shows those of the\n"
	"                     top frames as evidence; JSON has frames[].args/locals)\n"
	"   --store[=PATH]    record each crash in the crash store (default:\n"
	"                     store.sqlite in the cache directory) and say when its\n"
	"                     signature was seen before; see triage and query\n"
	"   --host NAME       the host the crash happened on (default: unknown)\n"
	"   --time TIME       when it crashed (YYYY-MM-DD[THH:MM[:SS]][Z], UTC, or\n"
	"                     @SECONDS; default: the input file's modification time)\n"
	"                     With --store, --host or --time the report carries the\n"
	"                     host and time (crash.host, crash.time) for import\n"
	"   --no-suspects     do not look for possible upstream fixes: by default the\n"
	"                     upstream commits after the deployed one that changed a\n"
	"                     crash line or its function are listed (git log -L style)\n"
	"   --pid PID         a running process instead of INPUT (stopped with ptrace,\n"
	"                     read, and let go: it keeps running)\n"
	"\n"
	"With several INPUTs, one report each; when they share the crashing\n"
	"thread's signature, the determinism line says how many do.\n"
	"\n"
	"Network: unless --offline, resolve fetches each component's upstream\n"
	"repository into the mirror cache (one line on stderr per fetch), source\n"
	"packages and release archives named by mappings, and debug info from\n"
	"$DEBUGINFOD_URLS when set. url.<base>.insteadOf rewrites every URL (point\n"
	"them at local mirrors); --offline uses only the cache and the disk. Each\n"
	"fetch is bounded by fetch.connectTimeout, fetch.stallTimeout and\n"
	"fetch.timeout; debuginfod by debuginfod.timeout and debuginfod.totalTimeout.\n"
	"\n"
	"exit: 0 done, 1 done but incomplete (a module of the crashing thread not\n"
	"resolved, a commit or source not found, a core cut inside its memory, an\n"
	"installed file that is another build than the crash's), 2 bad input, 64\n"
	"usage error.\n"
	"With --fix: 0 every fix is in, 1 one is not, 3 it could not be determined\n"
	"(no deployed commit, repository unreachable), 2 bad input.\n";

enum {
	OPT_EXE = 256,
	OPT_SYSROOT,
	OPT_FORMAT,
	OPT_MAPPING,
	OPT_OFFLINE,
	OPT_CONTEXT,
	OPT_FIX,
	OPT_COMPONENT,
	OPT_ALL_THREADS,
	OPT_LOCALS,
	OPT_STORE,
	OPT_HOST,
	OPT_TIME,
	OPT_NO_SUSPECTS,
	OPT_INCLUDE_PRERELEASES,
	OPT_PID,
	OPT_HELP,
};

static const struct option options[] = {
	{ "exe", required_argument, NULL, OPT_EXE },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "mapping", required_argument, NULL, OPT_MAPPING },
	{ "offline", no_argument, NULL, OPT_OFFLINE },
	{ "context", required_argument, NULL, OPT_CONTEXT },
	{ "fix", required_argument, NULL, OPT_FIX },
	{ "component", required_argument, NULL, OPT_COMPONENT },
	{ "all-threads", no_argument, NULL, OPT_ALL_THREADS },
	{ "locals", no_argument, NULL, OPT_LOCALS },
	{ "store", optional_argument, NULL, OPT_STORE },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "no-suspects", no_argument, NULL, OPT_NO_SUSPECTS },
	{ "include-prereleases", no_argument, NULL, OPT_INCLUDE_PRERELEASES },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* The crashing thread's signature: signal and the first five function names. */
static char *signature(const struct prov_crash *c)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	struct prov_buf b = PROV_BUF_INIT;
	size_t i, n = 0;

	prov_buf_printf(&b, "%d", c->has_signal ? c->signal.number : 0);
	for (i = 0; t && i < t->nframes && n < 5; i++) {
		if (!t->frames[i].function)
			continue;
		prov_buf_printf(&b, "|%s", t->frames[i].function);
		n++;
	}
	return prov_buf_detach(&b);
}

/*
 * With several inputs, say in each how many share its crashing thread's
 * signature. Returns 1 when at least two inputs were read and all of them
 * share one signature (the same crash), else 0.
 */
static int set_determinism(struct prov_crash **crashes, size_t n)
{
	char **sig;
	size_t i, k, valid = 0, same_as_first = 0;
	const char *first = NULL;

	if (n < 2)
		return 0;
	sig = prov_xcalloc(n, sizeof(*sig));
	for (i = 0; i < n; i++)
		if (crashes[i]) {
			sig[i] = signature(crashes[i]);
			valid++;
		}
	for (i = 0; i < n && valid >= 2; i++) {
		size_t same = 0;

		if (!sig[i])
			continue;
		for (k = 0; k < n; k++)
			same += sig[k] && strcmp(sig[i], sig[k]) == 0;
		if (!first) {
			first = sig[i];
			same_as_first = same;
		}
		free(crashes[i]->determinism);
		if (same == valid)
			crashes[i]->determinism = prov_xasprintf(
				"deterministic: all %zu inputs share this crash signature", valid);
		else
			crashes[i]->determinism = prov_xasprintf(
				"non-deterministic: %zu of %zu inputs (%zu%%) share this crash signature",
				same, valid, same * 100 / valid);
	}
	for (i = 0; i < n; i++)
		free(sig[i]);
	free(sig);
	return valid >= 2 && same_as_first == valid;
}

/* Host and time of a crash for its report and the store. */
static void set_host_time(struct prov_crash *c, const char *input, const char *host,
			  const char *when)
{
	struct stat st;
	char buf[21];

	free(c->host);
	c->host = prov_xstrdup_or_null(host);
	free(c->time);
	c->time = NULL;
	if (when) {
		c->time = prov_xstrdup(when);
	} else if (strcmp(input, "-") != 0 && stat(input, &st) == 0) {
		prov_store_format_time(buf, (int64_t)st.st_mtime);
		c->time = prov_xstrdup(buf);
	}
}

/*
 * Record each crash in the store and collect what the store knew of its
 * signature before ("seen 14 times on 9 hosts since ..."), one line per
 * input in `notes`. 0 or an error (the reports are printed anyway).
 */
static int store_crashes(struct prov_buf *notes, struct prov_crash **crashes, size_t n,
			 const char *path)
{
	struct prov_store *store = NULL;
	struct prov_buf json = PROV_BUF_INIT;
	size_t i;
	int err;

	if ((err = prov_store_open(&store, path, 0)) < 0)
		return err;
	for (i = 0; i < n; i++) {
		struct prov_store_meta meta = { 0 };
		struct prov_json j;
		char *sig = NULL, *history = NULL;
		int64_t id;

		if (!crashes[i])
			continue;
		prov_buf_reset(&json);
		prov_json_init(&j, &json);
		prov_json_begin_object(&j);
		prov_report_json_body(&j, crashes[i]);
		prov_json_end_object(&j);
		if ((err = prov_json_finish(&j)) < 0)
			break;
		sig = signature(crashes[i]);
		meta.signature = sig;
		err = prov_store_add(&id, store, json.buf, json.len, &meta);
		free(sig);
		if (err < 0)
			break;
		if ((err = prov_store_history(&history, store, id)) < 0)
			break;
		/* hosts and versions in the store came from other machines' reports */
		for (char *p = history; p && *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		prov_buf_printf(notes, "%s: %s\n", crashes[i]->input_path,
				history ? history : "a new signature for the store");
		free(history);
	}
	prov_buf_release(&json);
	prov_store_free(store);
	return err < 0 ? err : 0;
}

int cmd_resolve(int argc, char **argv, struct prov_ctx *g)
{
	struct prov_pipeline_opts opts = { 0 };
	const char *format = "text", *component = NULL;
	const char **mappings = NULL, **fixes = NULL;
	size_t nmappings = 0, nfixes = 0, ninputs, i;
	struct prov_crash **crashes = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	unsigned int flags = PROV_REPORT_RESOLVE | PROV_REPORT_REGISTERS | PROV_REPORT_MODULES;
	int opt, code = 0, worst = 0, error, same_crash = 0, use_store = 0, fixcode = 0;
	const char *store_opt = NULL, *host = NULL, *when = NULL;
	char timebuf[21], *store_path = NULL;
	struct prov_buf notes = PROV_BUF_INIT;
	struct stat st;

	opts.context = 3;
	opts.global = g;
	opts.suspects = 1;
	mappings = prov_xcalloc((size_t)argc + 1, sizeof(*mappings));
	fixes = prov_xcalloc((size_t)argc + 1, sizeof(*fixes));
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (opt) {
		case OPT_EXE:
			opts.exe = optarg;
			break;
		case OPT_SYSROOT:
			opts.sysroot = optarg;
			break;
		case OPT_FORMAT:
			if (prov_cmd_parse_format(&format, optarg, "text|markdown|json") < 0) {
				code = prov_cmd_usage_error("resolve", "%s", prov_error_last());
				goto cleanup;
			}
			break;
		case OPT_MAPPING:
			mappings[nmappings++] = optarg;
			break;
		case OPT_OFFLINE:
			opts.offline = 1;
			break;
		case OPT_CONTEXT: {
			int n;

			if (prov_parse_int(&n, optarg, (size_t)-1) < 0 || n < 0 || n > 1000) {
				code = prov_cmd_usage_error("resolve", "--context wants a number from 0 to 1000, not '%s'", optarg);
				goto cleanup;
			}
			opts.context = n;
			break;
		}
		case OPT_FIX:
			fixes[nfixes++] = optarg;
			break;
		case OPT_COMPONENT:
			component = optarg;
			break;
		case OPT_ALL_THREADS:
			flags |= PROV_REPORT_ALL_THREADS;
			break;
		case OPT_LOCALS:
			flags |= PROV_REPORT_LOCALS;
			break;
		case OPT_STORE:
			use_store = 1;
			store_opt = optarg;
			/* "--store x.sqlite" (no '='): a store, never an input to resolve */
			if (!optarg && optind < argc && prov_ends_with(argv[optind], ".sqlite"))
				store_opt = argv[optind++];
			break;
		case OPT_HOST:
			host = optarg;
			break;
		case OPT_TIME:
			if (prov_store_parse_time(timebuf, optarg) < 0) {
				code = prov_cmd_usage_error("resolve", "%s", prov_error_last());
				goto cleanup;
			}
			when = timebuf;
			break;
		case OPT_NO_SUSPECTS:
			opts.suspects = 0;
			break;
		case OPT_INCLUDE_PRERELEASES:
			g->include_prereleases = 1;
			break;
		case OPT_PID:
			if (prov_parse_int(&opts.pid, optarg, strlen(optarg)) < 0 || opts.pid <= 0) {
				code = prov_cmd_usage_error("resolve", "--pid needs a process id, not '%s'",
							    optarg);
				goto cleanup;
			}
			break;
		case OPT_HELP:
			code = prov_cmd_help("resolve", help);
			goto cleanup;
		case ':':
			code = prov_cmd_usage_error("resolve", "option '%s' needs a value", argv[optind - 1]);
			goto cleanup;
		default:
			code = prov_cmd_usage_error("resolve", "unknown option '%s'", argv[optind - 1]);
			goto cleanup;
		}
	}
	if (opts.pid && optind < argc) {
		code = prov_cmd_usage_error("resolve", "--pid takes no INPUT ('%s')", argv[optind]);
		goto cleanup;
	}
	if (opts.pid) {
		/* the process stands in for the one INPUT */
		optind = argc - 1;
	} else if (optind >= argc) {
		code = prov_cmd_usage_error("resolve", "no INPUT given");
		goto cleanup;
	}
	if (opts.sysroot && (stat(opts.sysroot, &st) < 0 || !S_ISDIR(st.st_mode))) {
		code = prov_cmd_fail(prov_error_set(PROV_EINPUT, "sysroot '%s' is not a directory",
						    opts.sysroot));
		goto cleanup;
	}
	if (opts.exe && (error = prov_cmd_check_exe(opts.exe)) < 0) {
		code = prov_cmd_fail(error);
		goto cleanup;
	}
	mappings[nmappings] = NULL;
	opts.mappings = nmappings ? mappings : NULL;

	ninputs = (size_t)(argc - optind);
	crashes = prov_xcalloc(ninputs, sizeof(*crashes));
	for (i = 0; i < ninputs; i++) {
		int partial = 0;

		error = prov_pipeline_run(&crashes[i], &partial, argv[optind + (int)i], &opts);
		if (error < 0) {
			int ec = prov_cmd_fail(error);

			if (ec > worst)
				worst = ec;
			continue;
		}
		if (partial && worst < 1)
			worst = 1;
		/* only when recording: otherwise the same crash read from a copy, a
		 * compressed file or stdin would give another report */
		if (use_store || host || when)
			set_host_time(crashes[i], argv[optind + (int)i], host, when);
		if (nfixes && (error = prov_fix_status_check(crashes[i], fixes, nfixes, component,
							      g, opts.offline)) < 0) {
			int ec = prov_cmd_fail(error);

			if (ec > worst)
				worst = ec;
		}
		/* with --fix the exit code is the fix's: 0 in, 1 not in, 3 unknown */
		for (size_t k = 0; nfixes && k < crashes[i]->nfixes; k++) {
			const struct prov_fix_status *x = &crashes[i]->fixes[k];

			if (!x->known) {
				fprintf(stderr, "provenance: cannot determine whether %s is in the deployed build: %s\n",
					x->fix, x->note ? x->note : "unknown");
				fixcode = PROV_EXIT_UNKNOWN;
			} else if (!x->included && fixcode < PROV_EXIT_PARTIAL) {
				fixcode = PROV_EXIT_PARTIAL;
			}
		}
	}
	same_crash = set_determinism(crashes, ninputs);
	if (use_store) {
		store_path = store_opt && *store_opt ? prov_xstrdup(store_opt) :
			     prov_store_default_path(g->cache_dir);
		if ((error = store_crashes(&notes, crashes, ninputs, store_path)) < 0) {
			int ec = prov_cmd_fail(error);

			if (ec > worst)
				worst = ec;
		}
	}

	if (!strcmp(format, "json")) {
		struct prov_json j;
		size_t shown = 0;

		prov_json_init(&j, &out);
		if (ninputs > 1)
			prov_json_begin_array(&j);
		for (i = 0; i < ninputs; i++) {
			if (!crashes[i])
				continue;
			prov_json_begin_object(&j);
			prov_report_json_body(&j, crashes[i]);
			prov_json_end_object(&j);
			shown++;
		}
		if (ninputs > 1)
			prov_json_end_array(&j);
		if (shown || ninputs > 1)
			error = prov_json_finish(&j);
		else
			error = 0;
	} else {
		/* the same crash several times: one report, the inputs listed */
		int summary = same_crash;
		size_t first = 0;

		while (first < ninputs && !crashes[first])
			first++;
		error = 0;
		if (summary) {
			prov_buf_puts(&out, !strcmp(format, "markdown") ? "**Inputs:** " : "inputs: ");
			for (i = 0; i < ninputs; i++)
				if (crashes[i])
					prov_buf_printf(&out, "%s%s", out.buf[out.len - 1] == ' ' ? "" : ", ",
							crashes[i]->input_path);
			prov_buf_puts(&out, !strcmp(format, "markdown") ?
				      " — the same crash; the report of the first follows.\n\n" :
				      " (the same crash; the report of the first follows)\n\n");
		}
		for (i = 0; i < ninputs && !error; i++) {
			if (!crashes[i])
				continue;
			if (summary && i != first)
				continue;
			if (out.len)
				prov_buf_puts(&out, !strcmp(format, "markdown") ? "\n---\n\n" : "\n");
			if (!strcmp(format, "markdown"))
				error = prov_report_markdown(&out, crashes[i], flags);
			else
				error = prov_report_text(&out, crashes[i], flags);
		}
	}
	if (notes.len && !strcmp(format, "json")) {
		/* the JSON on stdout stays one document: the store's notes go to stderr */
		char *p = notes.buf, *nl;

		for (; *p && (nl = strchr(p, '\n')); p = nl + 1)
			fprintf(stderr, "provenance: store: %.*s\n", (int)(nl - p), p);
	} else if (notes.len) {
		char *p = notes.buf, *nl;

		prov_buf_puts(&out, !strcmp(format, "markdown") ? "\n**Crash store:**\n\n" : "\nstore:\n");
		for (; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			prov_buf_printf(&out, "%s%.*s\n", !strcmp(format, "markdown") ? "- " : "   ",
					(int)(nl - p), p);
		}
	}
	if (error < 0 || prov_cmd_write(out.buf, out.len) < 0) {
		code = prov_cmd_fail(error < 0 ? error : PROV_ERROR);
		goto cleanup;
	}
	/* resolve without --fix: 1 = incomplete; with --fix: the fix status,
	 * unless an input was bad */
	code = nfixes && worst < PROV_EXIT_INPUT ? fixcode : worst;
cleanup:
	for (i = 0; crashes && i < (size_t)(argc - optind); i++)
		prov_crash_free(crashes[i]);
	free(crashes);
	free(mappings);
	free(fixes);
	free(store_path);
	prov_buf_release(&notes);
	prov_buf_release(&out);
	return code;
}
