#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	"                     component at the crash (repeatable; see fixcheck)\n"
	"   --component NAME  the component --fix applies to (default: the one of the\n"
	"                     innermost frame that has one)\n"
	"   --all-threads     text and markdown: show every thread\n"
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
	"resolved, a commit or source not found), 2 bad input, 64 usage error.\n"
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

int cmd_resolve(int argc, char **argv, struct prov_global *g)
{
	struct prov_pipeline_opts opts = { 0 };
	const char *format = "text", *component = NULL;
	const char **mappings = NULL, **fixes = NULL;
	size_t nmappings = 0, nfixes = 0, ninputs, i;
	struct prov_crash **crashes = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	unsigned int flags = PROV_REPORT_RESOLVE | PROV_REPORT_REGISTERS | PROV_REPORT_MODULES;
	int opt, code = 0, worst = 0, error, same_crash = 0, fixcode = 0;
	struct stat st;

	opts.context = 3;
	opts.global = g;
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
	if (optind >= argc) {
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
	prov_buf_release(&out);
	return code;
}
