#ifndef PROV_PIPELINE_H
#define PROV_PIPELINE_H

#include "config.h"
#include "buf.h"
#include "context.h"
#include "fixresult.h"
#include "input.h"
#include "model.h"

/*
 * The whole pipeline behind `provenance resolve` (and `fixcheck INPUT`):
 * input detection (core, compressed core, text, stdin) → core analyzer or
 * text parsers → resolvers (packages) → components (mappings, mirrors,
 * commits, path rewriting, source lines) → crash patterns.
 */
struct prov_pipeline_input;
struct prov_image;

struct prov_pipeline_opts {
	const char *exe;	/* --exe */
	const char *sysroot;	/* --sysroot, NULL = "/" */
	const struct prov_image *image;	/* what --sysroot named (src/image/image.h), or NULL */
	const char *const *mappings;	/* --mapping FILE..., NULL-terminated, may be NULL */
	int context;	/* --context N: source lines around each frame's line */
	int no_sources;	/* stop after packages (no mappings/mirrors) */
	int suspects;	/* look for possible upstream fixes (src/sources/suspects.h) */
	const struct prov_ctx *ctx;	/* config, cache dir, --offline */
	int pid;	/* --pid: a running process instead of the input (input ignored) */
	int host_packages;	/* --host-packages: a text backtrace's modules may be looked
				 * up in this host's package databases (marked a guess) */
	int no_python;	/* --no-python (also config python.frames=false) */
	int cores_only;	/* analyze: a text input is bad input */
	int all_components;	/* --all-components: look up every component, not only
				 * the crash chain's (prov_components_ctx.all_components) */
	/*
	 * Called once per input with everything known without the network
	 * (frames, packages, components named, repository paths, patterns),
	 * before the first mirror or download is asked for; the command layer
	 * prints that part of the report then (docs/sources.md, "First answer").
	 */
	void (*on_known)(const struct prov_crash *c, void *arg);
	void *on_known_arg;

	/* prov_pipeline_run_all only */
	const char *const *fixes;	/* --fix COMMIT|A..B..., checked on each crash */
	size_t nfixes;
	const char *component;	/* --component: the one --fix applies to, or NULL */
	int store;	/* --store: record each crash in the crash store */
	const char *store_path;	/* --store=PATH; NULL or "": <cache>/store.sqlite */
	const char *host;	/* --host: crash.host */
	const char *time;	/* --time (normalised): crash.time; NULL: the input's mtime */
	/* called after each input, in order (the command layer prints its errors) */
	void (*on_input)(const struct prov_pipeline_input *x, void *arg);
	void *on_input_arg;
};

/* One input done by prov_pipeline_run_all, for opts->on_input. */
struct prov_pipeline_input {
	size_t index;
	const char *name;	/* as given */
	const struct prov_crash *crash;	/* NULL when `error` */
	int error;	/* the input could not be read (message stored), else 0 */
	int partial;	/* done but incomplete (see prov_pipeline_run) */
	int fix_error;	/* --fix failed for a real error (message stored), else 0 */
};

/* What prov_pipeline_run_all gives back. */
struct prov_pipeline_result {
	struct prov_crash **crashes;	/* one per input; NULL where it failed */
	size_t n;
	int same_crash;	/* at least two inputs read, all with one signature */
	struct prov_buf store_notes;	/* --store: "INPUT: what the store knew\n" per crash */
	int store_error;	/* --store failed (message stored), else 0 */
};

/*
 * The analyze stage, the same for `analyze` and `resolve`: a core file, a
 * compressed core (decompressed into <cache>/tmp), a --pid process (stopped
 * with ptrace, read, let go) or a text backtrace becomes the crash model.
 * Cores and processes get debuginfod bounded (or off with --offline), the
 * crash context classified, the code bytes around the crash address and
 * their disassembly. Uses exe, sysroot, pid, no_python, cores_only and ctx
 * of `opts`. `in` is filled (the caller releases it with
 * prov_input_release, also on error: the decompressed core lives until
 * then). Errors: PROV_EINPUT for unusable input, others propagated.
 */
int prov_pipeline_analyze(struct prov_crash **out, struct prov_input *in, const char *name,
			  const struct prov_pipeline_opts *opts);

/*
 * Run the pipeline on one input path ("-" = stdin). *out gets the model
 * (caller frees) even when some stage was incomplete; `*partial` (may be
 * NULL) is set to 1 when a module stayed unresolved or a source was not
 * found. Errors: PROV_EINPUT for unusable input, others propagated.
 */
int prov_pipeline_run(struct prov_crash **out, int *partial, const char *input,
		      const struct prov_pipeline_opts *opts);

/*
 * prov_pipeline_run with every crash of the input: a cluster job's log
 * gives one per rank (prov_text_parse_all), anything else one. *out is a
 * new array of *nout crashes (free each, then the array); on_known is not
 * called when there are several.
 */
int prov_pipeline_run_each(struct prov_crash ***out, size_t *nout, int *partial,
			   const char *input, const struct prov_pipeline_opts *opts);

/*
 * The pipeline over a run's inputs (`resolve INPUT...`): prov_pipeline_run
 * on each, crash.host/time (with store, host or time), --fix on each crash
 * (prov_fix_status_check), then with several inputs the determinism line
 * of each crash (how many share its signature, signature.h), then --store
 * (each crash recorded; store_notes says what the store knew of its
 * signature). Release `res` with prov_pipeline_result_release.
 */
void prov_pipeline_run_all(struct prov_pipeline_result *res, const char *const *inputs,
			   size_t n, const struct prov_pipeline_opts *opts);
void prov_pipeline_result_release(struct prov_pipeline_result *res);

#define PROV_FIXCHECK_MAX_FIXES 4096	/* COMMIT arguments, and commits in one fix */
#define PROV_FIXCHECK_MAX_RANGE 1000	/* commits of one A..B */

/* `provenance fixcheck`: the deployed build and the fixes to look for. */
struct prov_fixcheck_opts {
	const char *const *fixes;	/* COMMIT or A..B, as given */
	size_t nfixes;
	int one_fix;	/* --one-fix: all of them are one fix */
	const char *repo, *at;	/* --repo URL|PATH --at REV */
	const char *debsrc;	/* --debian-source SOURCE=VERSION, or NULL */
	const char *rpmspec;	/* --rpm-spec SPEC, or NULL */
	const char *input, *component;	/* INPUT --component NAME (instead of --repo/--at) */
	const char *sysroot;	/* INPUT mode */
	const struct prov_image *image;	/* what --sysroot named, or NULL */
	const char *const *mappings;	/* INPUT mode: --mapping FILE..., NULL-terminated, or NULL */
	const struct prov_ctx *ctx;	/* config, cache dir, --offline */
};

/*
 * Is each fix in the deployed build, and how (src/fix/backport.h): *out
 * gets one item per fix (or one with one_fix); release it with
 * prov_fixcheck_release, also on error. Errors carry the exit status's
 * meaning: PROV_EINPUT (an unknown commit or revision, a path that is no
 * repository, bad patches), PROV_EUNKNOWN (could not determine: a fetch
 * failed, no mirror offline, no deployed commit), others propagated.
 */
int prov_pipeline_fixcheck(struct prov_fixcheck *out, const struct prov_fixcheck_opts *o);

/*
 * Set libdebuginfod's environment for this run: off with g->offline,
 * otherwise a timeout (config debuginfod.timeout, default 30 s), its cache
 * under the provenance cache, progress on a terminal. Called by the
 * pipeline; `analyze` calls it too.
 */
void prov_pipeline_setup_debuginfod(const struct prov_ctx *g);

#endif
