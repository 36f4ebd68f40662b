#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "buildpath.h"
#include "cache.h"
#include "cachedir.h"
#include "dbgbudget.h"
#include "components.h"
#include "config.h"
#include "code.h"
#include "core.h"
#include "disasm.h"
#include "error.h"
#include "input.h"
#include "kernelmod.h"
#include "patterns.h"
#include "pipeline.h"
#include "dbgsrc.h"
#include "python.h"
#include "resolver.h"
#include "suspects.h"
#include "textparse.h"
#include "util.h"
#include "banned.h"

/* Modules no resolver is expected to claim: the kernel's, anonymous maps. */
static int module_is_special(const char *path)
{
	return !path || path[0] == '[' || prov_starts_with(path, "linux-vdso") ||
	       prov_starts_with(path, "linux-gate") || strstr(path, "(deleted)") ||
	       prov_starts_with(path, "/dev/") || prov_starts_with(path, "/memfd:") ||
	       prov_starts_with(path, "/SYSV");
}

/*
 * Partial: a module named by a frame of the crashing thread (or, without
 * one, of any thread) was not resolved to a package.
 */
static int modules_incomplete(const struct prov_crash *c)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	size_t i, k, first = 0, last = c->nthreads;

	if (t) {
		first = (size_t)(t - c->threads);
		last = first + 1;
	}
	for (k = first; k < last; k++) {
		const struct prov_thread *th = &c->threads[k];

		for (i = 0; i < th->nframes; i++) {
			const struct prov_frame *f = &th->frames[i];
			const struct prov_module *m;

			if (!f->module || module_is_special(f->module) || f->python)
				continue;
			m = prov_crash_module_by_path(c, f->module);
			if (m && !m->origin)
				return 1;
		}
	}
	return 0;
}

/*
 * libdwfl asks debuginfod by itself when DEBUGINFOD_URLS is set. Keep it
 * off with --offline; otherwise bound it (a slow server must not hang the
 * run), keep its downloads in our cache, and show its progress on a
 * terminal. The user's own settings win.
 */
void prov_pipeline_setup_debuginfod(const struct prov_ctx *g, int offline)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const char *timeout = g ? prov_config_get(g->config, "debuginfod.timeout") : NULL;

	if (offline) {
		unsetenv("DEBUGINFOD_URLS");
		return;
	}
	if (!urls || !*urls)
		return;
	prov_dbgbudget_init(g ? g->config : NULL);
	setenv("DEBUGINFOD_TIMEOUT", timeout ? timeout : "30", 0);
	setenv("DEBUGINFOD_MAXTIME", timeout ? timeout : "120", 0);
	if (g && g->cache_dir) {
		char *dir = prov_cachedir_path(g->cache_dir, PROV_CACHEDIR_DEBUGINFOD);

		/* libdebuginfod makes only the last level */
		if (prov_mkdir_p(g->cache_dir, 0700, 0) < 0)
			prov_warn("%s", prov_error_last());
		setenv("DEBUGINFOD_CACHE_PATH", dir, 0);
		free(dir);
	}
	if (prov_isatty(2))
		setenv("DEBUGINFOD_PROGRESS", "1", 0);
}

int prov_pipeline_run(struct prov_crash **out, int *partial, const char *name,
		      const struct prov_pipeline_opts *opts)
{
	struct prov_input in;
	struct prov_crash *c = NULL;
	struct prov_cache *cache = NULL;
	char *tmpdir = NULL;
	int error, incomplete = 0;
	const char *cache_dir = opts->global ? opts->global->cache_dir : NULL;

	memset(&in, 0, sizeof(in));
	tmpdir = prov_cachedir_path(cache_dir ? cache_dir : ".", PROV_CACHEDIR_TMP);
	if (opts->pid) {
		struct prov_core_opts copts = { 0 };

		prov_pipeline_setup_debuginfod(opts->global, opts->offline);
		copts.exe = opts->exe;
		copts.no_python = opts->global && opts->global->config &&
			prov_config_get_bool(opts->global->config, "python.frames", 1) == 0;
		if ((error = prov_core_analyze_pid(&c, opts->pid, &copts)) < 0)
			goto cleanup;
		prov_crash_classify_context(c);
	} else if ((error = prov_input_open(&in, name, tmpdir, opts->global ? prov_input_max_core(opts->global->config) : 0)) < 0)
		goto cleanup;

	if (opts->pid) {
		/* analyzed above */
	} else if (in.type == PROV_INPUT_TYPE_CORE) {
		struct prov_core_opts copts = { 0 };

		prov_pipeline_setup_debuginfod(opts->global, opts->offline);
		copts.exe = opts->exe;
		copts.sysroot = opts->sysroot;
		copts.no_python = opts->global && opts->global->config &&
			prov_config_get_bool(opts->global->config, "python.frames", 1) == 0;
		if ((error = prov_core_analyze(&c, in.path, &copts)) < 0) {
			/* the analyzer names the temporary file; name the user's */
			if (in.tmpfile && error == PROV_EINPUT)
				error = prov_error_set(PROV_EINPUT, "'%s' (%s-compressed): %s",
						       in.name, in.compression, prov_error_last());
			goto cleanup;
		}
		free(c->input_path);
		c->input_path = prov_xstrdup(in.name);
		prov_crash_classify_context(c);
		prov_code_capture(c);
		prov_disasm_crash(c, 6, 3);
	} else {
		if ((error = prov_text_parse(&c, in.name, in.text.buf, in.text.len)) < 0)
			goto cleanup;
		/* a kernel fault line names its module and offset: look them up
		 * (libdwfl may ask debuginfod for the debug file: same rules as a core) */
		if (c->kernel_line) {
			prov_pipeline_setup_debuginfod(opts->global, opts->offline);
			prov_kernel_module_lookup(c, opts->sysroot);
		}
		/* one reason for every renderer (text, Markdown, JSON) */
		if (!c->ninsns && !c->insns_note)
			c->insns_note = prov_xstrdup("a text backtrace has no code bytes (disassembly needs a core)");
	}

	/* Python frames' .py files resolve as modules do */
	if (c->kind == PROV_INPUT_CORE)
		prov_python_file_modules(c);
	if (cache_dir && prov_cache_open(&cache, cache_dir) < 0) {
		prov_warn("cache unavailable, continuing without it: %s", prov_error_last());
		cache = NULL;
	}
	{
		struct prov_resolve_ctx rctx = { 0 };

		rctx.sysroot = opts->sysroot;
		rctx.cache = cache;
		if ((error = prov_resolve_modules(c, &rctx)) < 0)
			goto cleanup;
	}
	incomplete |= modules_incomplete(c);
	incomplete |= c->partial;	/* a truncated core */
	incomplete |= c->modules_incomplete;	/* a damaged file note */

	if (!opts->no_sources) {
		struct prov_components_ctx cctx = { 0 };

		cctx.config = opts->global ? opts->global->config : NULL;
		cctx.cache_dir = cache_dir;
		cctx.mapping_files = opts->mappings;
		cctx.offline = opts->offline;
		cctx.context = opts->context;
		cctx.max_source_frames = 5;
		if ((error = prov_components_resolve(c, &incomplete, &cctx)) < 0)
			goto cleanup;
		if (in.type == PROV_INPUT_TYPE_CORE)
			prov_debuginfod_sources(c, opts->context, cctx.max_source_frames);
		if (opts->suspects) {
			struct prov_suspects_opts sopts = { 0 };

			sopts.config = cctx.config;
			sopts.cache_dir = cache_dir;
			sopts.offline = opts->offline;
			sopts.cache = cache;
			if ((error = prov_suspects_find(c, &sopts)) < 0)
				goto cleanup;
		}
	}

	/* repo_path from build-system prefixes where no component gave one */
	prov_buildpath_repo_paths(c);
	prov_patterns_detect(c);
	if (partial)
		*partial = incomplete;
	*out = c;
	c = NULL;
	error = 0;
cleanup:
	prov_cache_free(cache);
	prov_crash_free(c);
	prov_input_release(&in);
	free(tmpdir);
	return error;
}
