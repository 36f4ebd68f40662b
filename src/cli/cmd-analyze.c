/* provenance analyze: threads, frames, registers and modules of a core or a process. */
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cachedir.h"
#include "cmd.h"
#include "error.h"
#include "report.h"
#include "input.h"
#include "patterns.h"
#include "pipeline.h"
#include "util.h"
#include "image.h"
#include "banned.h"

/* The command table's entry: name, usage line and description (main.c lists it). */
const struct cmd cmd_analyze_def = {
	"analyze", cmd_analyze, 0,
	"analyze CORE [--exe PATH] [--sysroot DIR|IMAGE] [--format text|json] [--locals]\n"
	"                  [--no-python]\n"
	"       provenance analyze --pid PID [--format text|json] [--no-python]",
	"threads, frames, registers and modules of a core file"
};

static const char analyze_help[] =
	"Read an ELF core file (ET_CORE) and print its process, signal, threads,\n"
	"frames (function, file:line, inlined frames) and modules (build IDs).\n"
	"The kernel's signal trampoline shows as <signal handler called>; when a\n"
	"handler re-raised a fault (LLVM, c10, glog, faulthandler), the crash site\n"
	"is the frame it interrupted: its registers (the sigcontext), instruction\n"
	"and signal.\n"
	"\n"
	"   --exe PATH      the crashed executable, when it is not where the core says\n"
	"   --sysroot DIR   the crashed system's root: files and debug info are looked\n"
	"                   up under DIR only (by path and by build ID); or an image:\n"
	"                   oci:DIR[:TAG], oci-archive:FILE, docker-archive:FILE,\n"
	"                   squashfs:FILE (enroot .sqsh), sif:FILE (Apptainer) or such\n"
	"                   a file, unpacked once into the cache (docs/containers.md)\n"
	"   --format FMT    text (default) or json\n"
	"   --locals        text: arguments and locals (from DWARF; Python frames from\n"
	"                   the interpreter) under the crashing\n"
	"                   thread's frames (JSON always has frames[].args/locals)\n"
	"   --pid PID       a running process instead of a core: its threads are\n"
	"                   stopped with ptrace, read, and let go (it keeps running);\n"
	"                   like a gcore core, a snapshot: a hang analysis (stack\n"
	"                   groups, waits, lock owners, deadlocks) instead of a crash\n"
	"   --no-python     no Python frames from the interpreter state (as\n"
	"                   -c python.frames=false)\n"
	"\n"
	"exit codes: 0 done, 1 partial (a core cut inside its memory segments, or\n"
	"whose module list is incomplete: a damaged or missing file note),\n"
	"2 bad input (missing, not a core, truncated before its memory), 64 usage\n";

int cmd_analyze(int argc, char **argv, struct prov_ctx *g)
{
	static const struct option longopts[] = {
		{ "exe", required_argument, NULL, 'e' },
		{ "sysroot", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "locals", no_argument, NULL, 'l' },
		{ "no-python", no_argument, NULL, 'P' },
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct prov_pipeline_opts opts = { 0 };
	struct prov_crash *crash = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	enum prov_format format = PROV_FORMAT_TEXT;
	struct prov_input in;
	int opt, error, rc;
	unsigned int locals = 0;
	struct prov_image image = { 0 };

	opts.ctx = g;
	opts.cores_only = 1;
	optind = 0;	/* full re-initialisation: main may have used getopt */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			opts.exe = optarg;
			break;
		case 's':
			opts.sysroot = optarg;
			break;
		case 'f':
			if (prov_cmd_parse_format(&format, optarg, "text|json") < 0)
				return prov_cmd_usage_error(&cmd_analyze_def, "unknown format '%s'", optarg);
			break;
		case 'l':
			locals = PROV_REPORT_LOCALS;
			break;
		case 'P':
			opts.no_python = 1;
			break;
		case 'p':
			if (prov_parse_int(&opts.pid, optarg, strlen(optarg)) < 0 || opts.pid <= 0)
				return prov_cmd_usage_error(&cmd_analyze_def, "--pid needs a process id, "
							    "not '%s'", optarg);
			break;
		case 'h':
			return prov_cmd_help(&cmd_analyze_def, analyze_help);
		case ':':
			return prov_cmd_usage_error(&cmd_analyze_def, "option '%s' needs a value",
						    argv[optind - 1]);
		default:
			return prov_cmd_usage_error(&cmd_analyze_def, "unknown option '%s'",
						    argv[optind - 1]);
		}
	}
	if (opts.pid && optind < argc)
		return prov_cmd_usage_error(&cmd_analyze_def, "--pid takes no core file ('%s')",
					    argv[optind]);
	if (!opts.pid && optind >= argc)
		return prov_cmd_usage_error(&cmd_analyze_def, "no core file given");
	if (!opts.pid && argc - optind > 1)
		return prov_cmd_usage_error(&cmd_analyze_def, "one core file at a time ('%s' is extra)",
					    argv[optind + 1]);
	if (!opts.pid && opts.exe && (error = prov_cmd_check_exe(&opts.exe)) < 0)
		return prov_cmd_fail(error);

	if ((error = prov_cmd_open_sysroot(&image, &opts.sysroot, g)) < 0)
		return prov_cmd_fail(error);
	opts.image = opts.sysroot ? &image : NULL;
	error = prov_pipeline_analyze(&crash, &in, opts.pid ? NULL : argv[optind], &opts);
	prov_input_release(&in);
	if (error < 0) {
		prov_image_release(&image);
		return prov_cmd_fail(error);
	}
	prov_patterns_detect(crash);
	prov_crash_mark_chain(crash);	/* JSON: modules[].in_crash_chain */
	if (format == PROV_FORMAT_JSON)
		error = prov_report_json(&out, crash);
	else
		error = prov_report_text(&out, crash, PROV_REPORT_ALL_THREADS |
					 PROV_REPORT_REGISTERS | PROV_REPORT_MODULES | locals);
	if (error >= 0)
		error = prov_cmd_write(out.buf, out.len);
	rc = error < 0 ? prov_cmd_fail(error) : crash->partial || crash->modules_incomplete ? PROV_EXIT_PARTIAL : PROV_EXIT_OK;
	prov_buf_release(&out);
	prov_crash_free(crash);
	prov_image_release(&image);
	return rc;
}
