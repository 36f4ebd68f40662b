/* provenance resolve: a core or backtrace to packages, upstream commits, source lines. */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"
#include "buf.h"
#include "cmd.h"
#include "error.h"
#include "pipeline.h"
#include "report.h"
#include "util.h"
#include "image.h"
#include "banned.h"

/* The command table's entry: name, usage line and description (main.c lists it). */
const struct cmd cmd_resolve_def = {
	"resolve", cmd_resolve, 0,
	"resolve INPUT... [--exe PATH] [--sysroot DIR|IMAGE] [--format text|markdown|json]\n"
	"                  [--mapping FILE]... [--offline] [--context N] [--fix COMMIT]...\n"
	"                  [--component NAME] [--all-threads] [--all-components] [--locals]\n"
	"                  [--host-packages] [--include-prereleases] [--store[=PATH]]\n"
	"                  [--host NAME] [--time TIME] [--no-suspects]\n"
	"       provenance resolve --pid PID [options]",
	"a core or pasted backtrace to packages, upstream commits and source lines"
};

static const char help[] =
	"Analyze each INPUT (a core file, a core compressed with zstd, xz, lz4 or\n"
	"gzip, a text file holding a backtrace, or - for standard input), find the\n"
	"package that installed every module, the upstream repository and commit\n"
	"it was built from, and show the crashing lines from that commit.\n"
	"\n"
	"options:\n"
	"   --exe PATH        the executable, when it is not where the core says\n"
	"   --sysroot DIR     the crashed system's root (an unpacked container image):\n"
	"                     module files and package databases are read under DIR;\n"
	"                     or an image: oci:DIR[:TAG], oci-archive:FILE,\n"
	"                     docker-archive:FILE, squashfs:FILE (enroot .sqsh),\n"
	"                     sif:FILE (Apptainer) or such a file (docs/containers.md)\n"
	"                     (--pid of a process in a chroot or container: its\n"
	"                     /proc/PID/root unless --sysroot is given)\n"
	"   --host-packages   a text backtrace without --sysroot: look its modules up\n"
	"                     in this host's package databases too (marked as a guess;\n"
	"                     also -c text.hostPackages=true). By default only a\n"
	"                     module whose build ID the text printed and this host's\n"
	"                     file has is looked up here; others get what their path says\n"
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
	"   --all-components  list and look up every component the process loaded;\n"
	"                     by default only those of the crash chain (the crashing\n"
	"                     thread's frames; a snapshot's blocked threads) are\n"
	"                     looked up (mirrors, downloads) and listed, the others\n"
	"                     counted (JSON: components[].in_crash_chain)\n"
	"   --locals          text: arguments and locals (from DWARF; Python\n"
	"                     frames from the interpreter) under the\n"
	"                     crashing thread's frames (markdown shows those of the\n"
	"                     top frames as evidence; JSON has frames[].args/locals)\n"
	"   --store[=PATH]    record each crash in the crash store (default:\n"
	"                     store.sqlite in the data directory) and say when its\n"
	"                     signature was seen before; see triage and query.\n"
	"                     A postgresql:// URL or \"host=... dbname=...\" names a\n"
	"                     PostgreSQL store (many nodes at once). Without '=',\n"
	"                     a following .sqlite/.db name, URL or SQLite file is\n"
	"                     the store, not an input\n"
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
	"thread's signature (the signal and three frames from the crash site that\n"
	"are not handler, abort, std::, allocator or interpreter machinery:\n"
	"docs/signature.md), the determinism line says how many do. Below a signal\n"
	"handler that re-raised a fault, the crash site is the interrupted frame.\n"
	"\n"
	"Network: the text report prints what is known without the network first\n"
	"(frames, modules, packages, repository paths), then the rest as it comes.\n"
	"The crash lines of a commit the installed system recorded come the\n"
	"cheapest way: a mirror already in the cache, debuginfod's source for the\n"
	"build ID, then the forge's single-file URL for the commit (GitHub, GitLab,\n"
	"cgit, Gitea; forge.<host>.type, forge.<host>.url; fetch.singleFile=false\n"
	"turns it off): no mirror is cloned for them. A mapping's tag or branch\n"
	"becomes a commit by the remote's ref advertisement (one request, no pack,\n"
	"cached; fetch.lsRemote=false: the mirror), and its crash lines come the\n"
	"same way. Otherwise, unless --offline,\n"
	"resolve fetches each component's upstream\n"
	"repository into the mirror cache (one line on stderr per fetch), source\n"
	"packages and release archives named by mappings, and debug info from\n"
	"$DEBUGINFOD_URLS when set. Suspects use the mirrors the cache holds; they\n"
	"clone one only with --fix or suspects.clone=true (fixcheck clones).\n"
	"url.<base>.insteadOf rewrites every URL (point\n"
	"them at local mirrors); --offline uses only the cache and the disk. Each\n"
	"fetch is bounded by fetch.connectTimeout, fetch.stallTimeout and\n"
	"fetch.timeout; debuginfod by debuginfod.timeout and debuginfod.totalTimeout.\n"
	"A host that gave no answer is skipped for fetch.hostDownFor seconds\n"
	"(default 600) by the next runs (remembered in the cache). An https server\n"
	"with a private CA: fetch.sslCAInfo=FILE (or git's http.sslCAInfo).\n"
	"\n"
	"exit: 0 done, 1 done but incomplete (a module of the crash chain not\n"
	"resolved, a commit or source of its components not found, a core cut inside\n"
	"its memory, an installed file that is another build than the crash's),\n"
	"2 bad input, 64 usage error. Components outside the crash chain do not\n"
	"make a run incomplete unless --all-components asks for them.\n"
	"With --fix: 0 every fix is in, 1 one is not, 3 it could not be determined\n"
	"(no deployed commit, repository unreachable), 2 bad input.\n";

enum {
	OPT_EXE = 256,
	OPT_SYSROOT,
	OPT_HOST_PACKAGES,
	OPT_FORMAT,
	OPT_MAPPING,
	OPT_OFFLINE,
	OPT_CONTEXT,
	OPT_FIX,
	OPT_COMPONENT,
	OPT_ALL_THREADS,
	OPT_ALL_COMPONENTS,
	OPT_LOCALS,
	OPT_STORE,
	OPT_HOST,
	OPT_TIME,
	OPT_NO_SUSPECTS,
	OPT_INCLUDE_PRERELEASES,
	OPT_PID,
	OPT_HELP,
};

/* An argument after a bare --store that names a store: a .sqlite/.db name, a URL, a SQLite file. */
static int looks_like_store(const char *arg)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	int fd, yes = 0;

	if (prov_ends_with(arg, ".sqlite") || prov_ends_with(arg, ".db") || prov_store_is_pg(arg))
		return 1;
	if ((fd = open(arg, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return 0;
	yes = read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) && !memcmp(head, magic, sizeof(head));
	close(fd);
	return yes;
}

static const struct option options[] = {
	{ "exe", required_argument, NULL, OPT_EXE },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "host-packages", no_argument, NULL, OPT_HOST_PACKAGES },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "mapping", required_argument, NULL, OPT_MAPPING },
	{ "offline", no_argument, NULL, OPT_OFFLINE },
	{ "context", required_argument, NULL, OPT_CONTEXT },
	{ "fix", required_argument, NULL, OPT_FIX },
	{ "component", required_argument, NULL, OPT_COMPONENT },
	{ "all-threads", no_argument, NULL, OPT_ALL_THREADS },
	{ "all-components", no_argument, NULL, OPT_ALL_COMPONENTS },
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

/* What cmd_resolve gathers from its options and from each input's outcome. */
struct resolve_args {
	struct prov_pipeline_opts opts;
	struct prov_image image;	/* what --sysroot named, unpacked (src/image/image.h) */
	struct prov_ctx *g;	/* the run context (--offline goes in it) */
	enum prov_format format;
	unsigned int flags;	/* enum prov_report_flags */
	const char **mappings, **fixes;
	size_t nmappings, nfixes;
	char timebuf[21];
	int worst;	/* the worst exit code of the inputs so far */
	int fixcode;	/* --fix: 0 every fix in, 1 one is not, 3 unknown */
	int streamed;	/* text: the part known without the network is out already */
};

static void worse(struct resolve_args *a, int code)
{
	if (code > a->worst)
		a->worst = code;
}

/*
 * Text, one input: what is known without the network (frames, modules and
 * packages, components' repository paths) goes out before the first mirror
 * or download is asked for, as gdb prints the backtrace before it downloads
 * sources; the rest (components, crash lines, suspects, --fix) follows.
 */
static void known(const struct prov_crash *c, void *arg)
{
	struct resolve_args *a = arg;
	struct prov_buf head = PROV_BUF_INIT;

	if (a->streamed || prov_report_text(&head, c, a->flags | PROV_REPORT_HEAD) < 0 ||
	    prov_cmd_write(head.buf, head.len) < 0) {
		prov_buf_release(&head);
		return;
	}
	fflush(stdout);
	a->streamed = 1;
	prov_buf_release(&head);
}

/* After each input (prov_pipeline_run_all): its errors, and what --fix found. */
static void input_done(const struct prov_pipeline_input *x, void *arg)
{
	struct resolve_args *a = arg;
	size_t k;

	if (x->error < 0) {
		worse(a, prov_cmd_fail(x->error));
		return;
	}
	if (x->partial && a->worst < 1)
		a->worst = 1;
	if (x->fix_error < 0)
		worse(a, prov_cmd_fail(x->fix_error));
	/* with --fix the exit code is the fix's: 0 in, 1 not in, 3 unknown */
	for (k = 0; a->nfixes && k < x->crash->nfixes; k++) {
		const struct prov_fix_status *f = &x->crash->fixes[k];

		if (!f->known) {
			prov_cmd_eprintf("provenance: cannot determine whether %s is in the deployed build: %s\n",
				f->fix, f->note ? f->note : "unknown");
			a->fixcode = PROV_EXIT_UNKNOWN;
		} else if (!f->included && a->fixcode < PROV_EXIT_PARTIAL) {
			a->fixcode = PROV_EXIT_PARTIAL;
		}
	}
}

/* One option into `a`; -1 to go on, else the exit code (usage error, --help). */
static int take_option(struct resolve_args *a, int opt, int argc, char **argv)
{
	int n;

	switch (opt) {
	case OPT_EXE:
		a->opts.exe = optarg;
		break;
	case OPT_SYSROOT:
		a->opts.sysroot = optarg;
		break;
	case OPT_HOST_PACKAGES:
		a->opts.host_packages = 1;
		break;
	case OPT_FORMAT:
		if (prov_cmd_parse_format(&a->format, optarg, "text|markdown|json") < 0)
			return prov_cmd_usage_error(&cmd_resolve_def, "%s", prov_error_last());
		break;
	case OPT_MAPPING:
		a->mappings[a->nmappings++] = optarg;
		break;
	case OPT_OFFLINE:
		a->g->offline = 1;
		break;
	case OPT_CONTEXT:
		if (prov_parse_int(&n, optarg, (size_t)-1) < 0 || n < 0 || n > 1000)
			return prov_cmd_usage_error(&cmd_resolve_def, "--context wants a number from 0 to 1000, not '%s'", optarg);
		a->opts.context = n;
		break;
	case OPT_FIX:
		a->fixes[a->nfixes++] = optarg;
		break;
	case OPT_COMPONENT:
		a->opts.component = optarg;
		break;
	case OPT_ALL_THREADS:
		a->flags |= PROV_REPORT_ALL_THREADS;
		break;
	case OPT_ALL_COMPONENTS:
		a->flags |= PROV_REPORT_ALL_COMPONENTS;
		a->opts.all_components = 1;
		break;
	case OPT_LOCALS:
		a->flags |= PROV_REPORT_LOCALS;
		break;
	case OPT_STORE:
		a->opts.store = 1;
		a->opts.store_path = optarg;
		/* "--store x.sqlite", "--store x.db", "--store URL" or an existing
		 * SQLite file (no '='): a store, never an input */
		if (!optarg && optind < argc && looks_like_store(argv[optind]))
			a->opts.store_path = argv[optind++];
		break;
	case OPT_HOST:
		a->opts.host = optarg;
		break;
	case OPT_TIME:
		if (prov_store_parse_time(a->timebuf, optarg) < 0)
			return prov_cmd_usage_error(&cmd_resolve_def, "%s", prov_error_last());
		a->opts.time = a->timebuf;
		break;
	case OPT_NO_SUSPECTS:
		a->opts.suspects = 0;
		break;
	case OPT_INCLUDE_PRERELEASES:
		a->g->include_prereleases = 1;
		break;
	case OPT_PID:
		if (prov_parse_int(&a->opts.pid, optarg, strlen(optarg)) < 0 || a->opts.pid <= 0)
			return prov_cmd_usage_error(&cmd_resolve_def, "--pid needs a process id, not '%s'",
						    optarg);
		break;
	case OPT_HELP:
		return prov_cmd_help(&cmd_resolve_def, help);
	case ':':
		return prov_cmd_usage_error(&cmd_resolve_def, "option '%s' needs a value", argv[optind - 1]);
	default:
		return prov_cmd_usage_error(&cmd_resolve_def, "unknown option '%s'", argv[optind - 1]);
	}
	return -1;
}

/* Options and operands; -1 to go on (optind at the first INPUT), else the exit code. */
static int parse_args(struct resolve_args *a, int argc, char **argv)
{
	int opt, code, error;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1)
		if ((code = take_option(a, opt, argc, argv)) >= 0)
			return code;
	if (a->opts.pid && optind < argc)
		return prov_cmd_usage_error(&cmd_resolve_def, "--pid takes no INPUT ('%s')", argv[optind]);
	if (a->opts.pid)
		optind = argc - 1;	/* the process stands in for the one INPUT */
	else if (optind >= argc)
		return prov_cmd_usage_error(&cmd_resolve_def, "no INPUT given");
	if ((error = prov_cmd_open_sysroot(&a->image, &a->opts.sysroot, a->g)) < 0)
		return prov_cmd_fail(error);
	a->opts.image = a->opts.sysroot ? &a->image : NULL;
	if (a->opts.exe && (error = prov_cmd_check_exe(&a->opts.exe)) < 0)
		return prov_cmd_fail(error);
	a->mappings[a->nmappings] = NULL;
	a->opts.mappings = a->nmappings ? a->mappings : NULL;
	a->fixes[a->nfixes] = NULL;
	a->opts.fixes = a->fixes;
	a->opts.nfixes = a->nfixes;
	return -1;
}

/* JSON on stdout stays one document: the store's notes go to stderr. */
static void store_notes_to_stderr(const struct prov_buf *notes)
{
	const char *p = notes->buf, *nl;

	for (; *p && (nl = strchr(p, '\n')); p = nl + 1)
		prov_cmd_eprintf("provenance: store: %.*s\n", (int)(nl - p), p);
}

int cmd_resolve(int argc, char **argv, struct prov_ctx *g)
{
	struct resolve_args a;
	struct prov_pipeline_result res = { 0 };
	struct prov_buf out = PROV_BUF_INIT;
	char *store_copy = NULL;
	int code, error;

	memset(&a, 0, sizeof(a));
	a.format = PROV_FORMAT_TEXT;
	a.flags = PROV_REPORT_RESOLVE | PROV_REPORT_REGISTERS | PROV_REPORT_MODULES;
	a.g = g;
	a.opts.ctx = g;
	a.opts.context = 3;
	a.opts.suspects = 1;
	a.opts.on_input = input_done;
	a.opts.on_input_arg = &a;
	a.mappings = prov_xcalloc((size_t)argc + 1, sizeof(*a.mappings));
	a.fixes = prov_xcalloc((size_t)argc + 1, sizeof(*a.fixes));
	if ((code = parse_args(&a, argc, argv)) >= 0)
		goto cleanup;
	if (a.opts.store_path && *a.opts.store_path) {
		/* keep a copy; a password in argv leaves the process list now */
		store_copy = prov_xstrdup(a.opts.store_path);
		prov_store_hide_password((char *)a.opts.store_path);
		a.opts.store_path = store_copy;
	}

	if (a.format == PROV_FORMAT_TEXT && argc - optind == 1) {
		a.opts.on_known = known;
		a.opts.on_known_arg = &a;
	}
	prov_pipeline_run_all(&res, (const char *const *)argv + optind, (size_t)(argc - optind),
			      &a.opts);
	if (res.store_error < 0)
		worse(&a, prov_cmd_fail(res.store_error));
	error = prov_report_resolve(&out, res.crashes, res.n, res.same_crash, &res.store_notes,
				    a.format, a.flags | (a.streamed ? PROV_REPORT_TAIL : 0));
	if (a.format == PROV_FORMAT_JSON)
		store_notes_to_stderr(&res.store_notes);
	if (error < 0 || prov_cmd_write(out.buf, out.len) < 0) {
		code = prov_cmd_fail(error < 0 ? error : PROV_ERROR);
		goto cleanup;
	}
	/* resolve without --fix: 1 = incomplete; with --fix: the fix status,
	 * unless an input was bad */
	code = a.nfixes && a.worst < PROV_EXIT_INPUT ? a.fixcode : a.worst;
cleanup:
	prov_pipeline_result_release(&res);
	free(a.mappings);
	free(a.fixes);
	free(store_copy);
	prov_buf_release(&out);
	prov_image_release(&a.image);
	return code;
}
