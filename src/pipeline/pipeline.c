/* One input through every stage: analyzer or text reader, resolvers, components, sources. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

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
#include "image.h"
#include "input.h"
#include "kernelmod.h"
#include "patterns.h"
#include "pipeline.h"
#include "dbgsrc.h"
#include "python.h"
#include "resolve.h"
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
 * Partial: a module named by a frame of the crash chain (the crashing
 * thread; a snapshot's blocked threads; without either, any thread;
 * prov_crash_thread_in_chain) was not resolved to a package.
 */
static int modules_incomplete(const struct prov_crash *c)
{
	size_t i, k;

	for (k = 0; k < c->nthreads; k++) {
		const struct prov_thread *th = &c->threads[k];

		if (!prov_crash_thread_in_chain(c, k))
			continue;
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
void prov_pipeline_setup_debuginfod(const struct prov_ctx *g)
{
	int offline = g && g->offline;
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

/* Which modules of a text backtrace a resolver pass may look at. */
enum text_pass { TEXT_BUILD_ID_MATCH, TEXT_HOST, TEXT_PATH_ONLY };

struct text_want {
	enum text_pass pass;
	const char *root;
};

/* The build ID of the file a text module names under root (a bare name: in its library directories). */
static int text_module_build_id(char **out, const struct prov_module *m, const char *root)
{
	char *found = NULL;
	int error;

	if (!m->path || !*m->path || m->path[0] == '[')
		return PROV_ENOTFOUND;
	if (!strchr(m->path, '/') && !(found = prov_root_find_lib(root, m->path)))
		return PROV_ENOTFOUND;
	error = prov_root_build_id(out, root, found ? found : m->path);
	free(found);
	return error;
}

/* 1: the module's file under root has the build ID the paste printed. */
static int text_build_id_matches(const struct prov_module *m, const char *root)
{
	char *bid = NULL;
	int same;

	if (!m->build_id || text_module_build_id(&bid, m, root) < 0)
		return 0;
	same = !strcmp(bid, m->build_id);
	free(bid);
	return same;
}

static int text_want(const struct prov_module *m, void *data)
{
	const struct text_want *w = data;

	switch (w->pass) {
	case TEXT_BUILD_ID_MATCH:
		return text_build_id_matches(m, w->root);
	case TEXT_HOST:
		return 1;
	default:
		return 0;
	}
}

/*
 * A text backtrace comes from another machine. With --sysroot its modules
 * are looked up there (a build ID the paste printed is checked against the
 * file: a mismatch is another build). Without it, this host's files and
 * package databases say nothing about the crash, except for a module whose
 * build ID the paste printed and the host's file has (exact). Other modules
 * get only what their path says (guesses), or, with --host-packages (or
 * -c text.hostPackages=true), this host's packages marked as a guess.
 */
static int resolve_text_modules(struct prov_crash *c, struct prov_resolve_ctx *rctx,
				const struct prov_pipeline_opts *opts)
{
	const char *root = opts->sysroot ? opts->sysroot : "/";
	struct text_want w = { TEXT_BUILD_ID_MATCH, root };
	unsigned char *before = NULL, *matched = NULL;
	size_t i;
	int error, host = opts->host_packages;

	if (!host && opts->ctx && opts->ctx->config)
		host = prov_config_get_bool(opts->ctx->config, "text.hostpackages", 0) == 1;
	matched = prov_xcalloc(c->nmodules + 1, 1);
	for (i = 0; i < c->nmodules; i++) {
		struct prov_module *m = &c->modules[i];
		char *bid = NULL;

		if (!m->build_id || text_module_build_id(&bid, m, root) < 0)
			continue;
		free(m->note);
		if (!strcmp(bid, m->build_id)) {
			matched[i] = 1;
			m->note = prov_xasprintf("the build ID matches %s%s", opts->sysroot ? "the file under the sysroot: " : "this host's file: ", m->path);
		} else {
			m->build_id_mismatch = 1;
			m->note = prov_xasprintf("build-id mismatch: %s%s has %s, the backtrace %s",
						 opts->sysroot ? "the sysroot's " : "this host's ", m->path, bid, m->build_id);
		}
		free(bid);
	}
	if (opts->sysroot) {
		error = prov_resolve_modules(c, rctx);
	} else {
		/* without a root: modules whose build ID matches this host's file */
		rctx->want = text_want;
		rctx->want_data = &w;
		error = prov_resolve_modules(c, rctx);
	}
	if (error < 0)
		goto cleanup;
	/* the file is the crashed build: its package is no guess, even for a bare name */
	for (i = 0; i < c->nmodules; i++)
		if (matched[i] && c->modules[i].origin && !c->modules[i].origin->build_id_mismatch)
			c->modules[i].origin->guess = 0;
	if (opts->sysroot)
		goto cleanup;	/* (inferred modules stay guesses: below) */
	before = prov_xcalloc(c->nmodules + 1, 1);
	for (i = 0; i < c->nmodules; i++)
		before[i] = c->modules[i].origin != NULL;
	if (host) {
		w.pass = TEXT_HOST;
		if ((error = prov_resolve_modules(c, rctx)) < 0)
			goto cleanup;
		for (i = 0; i < c->nmodules; i++) {
			struct prov_module *m = &c->modules[i];

			if (before[i] || !m->origin)
				continue;
			m->origin->guess = 1;
			if (!m->note)
				m->note = prov_xstrdup("package from this host's databases (--host-packages), "
						       "not from the crashed system: a guess");
		}
	} else {
		rctx->want = NULL;
		error = prov_resolve_modules_chain(c, rctx, prov_resolvers_path_only);
	}
cleanup:
	/* a module inferred from a source path: that the frame ran that file is a guess */
	for (i = 0; i < c->nmodules; i++)
		if (c->modules[i].inferred && c->modules[i].origin)
			c->modules[i].origin->guess = 1;
	rctx->want = NULL;
	rctx->want_data = NULL;
	free(before);
	free(matched);
	return error;
}

/* The analyzer's options from the pipeline's: --exe, --sysroot, Python frames. */
static void core_opts(struct prov_core_opts *copts, const struct prov_pipeline_opts *opts)
{
	const struct prov_ctx *g = opts->ctx;

	memset(copts, 0, sizeof(*copts));
	copts->exe = opts->exe;
	copts->sysroot = opts->sysroot;
	copts->no_python = opts->no_python ||
		(g && g->config && prov_config_get_bool(g->config, "python.frames", 1) == 0);
}

/* Where the analyzer keeps uncompressed debug files (core.plainDebug, default on); NULL: nowhere. */
static char *plain_debug_dir(const struct prov_pipeline_opts *opts)
{
	const struct prov_ctx *g = opts->ctx;

	if (!g || !g->cache_dir ||
	    (g->config && prov_config_get_bool(g->config, "core.plainDebug", 1) == 0))
		return NULL;
	return prov_cachedir_path(g->cache_dir, PROV_CACHEDIR_DEBUG_PLAIN);
}

/* What a core and a live process share after the analyzer: context, code, disassembly. */
static void after_core(struct prov_crash *c)
{
	prov_crash_classify_context(c);
	prov_code_capture(c);
	prov_disasm_crash(c, 6, 3);
}

/*
 * A live process in a chroot or a container (its /proc/PID/root is not this
 * host's /): its packages are read under /proc/PID/root, as systemd-coredump
 * reads a container's, and the modules' paths become the process's own (in a
 * chroot under this root the kernel writes them with the chroot's directory
 * in front).
 */
static void proc_root(struct prov_crash *c, long pid)
{
	char *root = prov_xasprintf("/proc/%ld/root", pid);
	char target[4096];
	struct stat a, b;
	ssize_t n;
	size_t i;

	if (stat(root, &a) < 0 || stat("/", &b) < 0 || (a.st_dev == b.st_dev && a.st_ino == b.st_ino)) {
		free(root);
		return;
	}
	c->proc_root = root;
	n = readlink(root, target, sizeof(target) - 1);
	if (n <= 1 || target[0] != '/')
		return;
	target[n] = '\0';
	for (i = 0; i < c->nmodules; i++) {
		char *p = c->modules[i].path;

		if (p && !strncmp(p, target, (size_t)n) && p[n] == '/')
			memmove(p, p + n, strlen(p + n) + 1);
	}
}

/* A text input: one crash per rank of a cluster job's log (prov_text_parse_all). */
static int analyze_text(struct prov_crash ***out, size_t *nout, const struct prov_input *in,
			const struct prov_pipeline_opts *opts)
{
	struct prov_crash **cs;
	size_t i, n;
	int error;

	if ((error = prov_text_parse_all(&cs, &n, in->name, in->text.buf, in->text.len)) < 0)
		return error;
	for (i = 0; i < n; i++) {
		struct prov_crash *c = cs[i];

		/* a kernel fault line names its module and offset: look them up
		 * (libdwfl may ask debuginfod for the debug file: same rules as a core) */
		if (c->kernel_line) {
			prov_pipeline_setup_debuginfod(opts->ctx);
			prov_kernel_module_lookup(c, opts->sysroot);
		}
		/* one reason for every renderer (text, Markdown, JSON) */
		if (!c->ninsns && !c->insns_note)
			c->insns_note = prov_xstrdup("a text backtrace has no code bytes (disassembly needs a core)");
	}
	*out = cs;
	*nout = n;
	return 0;
}

/* prov_pipeline_analyze, with every crash of a text input (*nout of them). */
static int analyze_all(struct prov_crash ***out, size_t *nout, struct prov_input *in,
		       const char *name, const struct prov_pipeline_opts *opts)
{
	const struct prov_ctx *g = opts->ctx;
	struct prov_core_opts copts;
	struct prov_crash *c = NULL;
	char *tmpdir = NULL, *plain_dir = NULL;
	int error;

	memset(in, 0, sizeof(*in));
	*out = NULL;
	*nout = 0;
	core_opts(&copts, opts);
	copts.plain_debug_dir = plain_dir = plain_debug_dir(opts);
	if (opts->pid) {
		prov_pipeline_setup_debuginfod(g);
		if ((error = prov_core_analyze_pid(&c, opts->pid, &copts)) < 0)
			goto cleanup;
		if (!opts->sysroot)
			proc_root(c, opts->pid);
		after_core(c);
		goto done;
	}
	/* compressed cores (systemd-coredump's storage) are decompressed first */
	tmpdir = prov_cachedir_path(g && g->cache_dir ? g->cache_dir : ".", PROV_CACHEDIR_TMP);
	if ((error = prov_input_open(in, name, tmpdir, g ? prov_input_max_core(g->config) : 0)) < 0)
		goto cleanup;
	if (in->type == PROV_INPUT_TYPE_CORE) {
		prov_pipeline_setup_debuginfod(g);
		if ((error = prov_core_analyze(&c, in->path, &copts)) < 0) {
			/* the analyzer names the temporary file; name the user's */
			if (in->tmpfile && error == PROV_EINPUT)
				error = prov_error_set(PROV_EINPUT, "'%s' (%s-compressed): %s",
						       in->name, in->compression, prov_error_last());
			goto cleanup;
		}
		free(c->input_path);
		c->input_path = prov_xstrdup(in->name);
		after_core(c);
	} else if (opts->cores_only) {
		error = prov_error_set(PROV_EINPUT, "'%s' is not a core file (for a text backtrace "
				       "use 'provenance resolve')", name);
		goto cleanup;
	} else {
		error = analyze_text(out, nout, in, opts);
		goto cleanup;
	}
done:
	*out = prov_xcalloc(1, sizeof(**out));
	(*out)[0] = c;
	*nout = 1;
	c = NULL;
	error = 0;
cleanup:
	for (size_t i = 0; error >= 0 && opts->image && i < *nout; i++)
		prov_crash_set_sysroot((*out)[i], opts->image->kind, opts->image->digest, opts->image->ref);
	prov_crash_free(c);
	free(tmpdir);
	free(plain_dir);
	return error;
}

static void crashes_free(struct prov_crash **cs, size_t n, size_t keep)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (i != keep)
			prov_crash_free(cs[i]);
	free(cs);
}

int prov_pipeline_analyze(struct prov_crash **out, struct prov_input *in, const char *name,
			  const struct prov_pipeline_opts *opts)
{
	struct prov_crash **cs;
	size_t n;
	int error;

	*out = NULL;
	if ((error = analyze_all(&cs, &n, in, name, opts)) < 0)
		return error;
	*out = cs[0];
	crashes_free(cs, n, 0);
	return 0;
}

/* What needs no network: build-path repository paths and patterns. */
struct known_arg {
	const struct prov_pipeline_opts *opts;
	int done;
};

/*
 * repo_path from build-system prefixes for the frames of no component (the
 * stages after the hook never read those); a component's frame whose path
 * was not rewritten gets one at the end, as before, so that its crash lines
 * and suspects are not looked for at a path no rule gave.
 */
static void buildpath_no_component(struct prov_crash *c)
{
	prov_buildpath_repo_paths_of(c, 1);
}

static void known(struct prov_crash *c, void *arg)
{
	struct known_arg *k = arg;

	if (k->done)
		return;
	k->done = 1;
	buildpath_no_component(c);
	prov_patterns_detect(c);
	if (k->opts->on_known)
		k->opts->on_known(c, k->opts->on_known_arg);
}

/* The stages after analyze, for one crash: packages, components, suspects, patterns. */
static int resolve_one(struct prov_crash *c, int *incomplete_out, const struct prov_input *in,
		       struct prov_cache *cache, const struct prov_pipeline_opts *opts)
{
	struct known_arg ka = { opts, 0 };
	int error, incomplete = 0;

	/* Python frames' .py files resolve as modules do */
	if (c->kind == PROV_INPUT_CORE)
		prov_python_file_modules(c);
	{
		struct prov_resolve_ctx rctx = { 0 };

		rctx.sysroot = opts->sysroot ? opts->sysroot : c->proc_root;
		rctx.cache = cache;
		if ((error = c->kind == PROV_INPUT_TEXT ? resolve_text_modules(c, &rctx, opts)
							: prov_resolve_modules(c, &rctx)) < 0)
			return error;
	}
	prov_crash_mark_chain(c);	/* modules may have been added from frames */
	incomplete |= modules_incomplete(c);
	incomplete |= c->partial;	/* a truncated core */
	incomplete |= c->modules_incomplete;	/* a damaged file note */

	if (!opts->no_sources) {
		struct prov_components_ctx cctx = { 0 };

		cctx.ctx = opts->ctx;
		cctx.mapping_files = opts->mappings;
		cctx.context = opts->context;
		cctx.max_source_frames = 5;
		cctx.on_known = known;
		cctx.on_known_arg = &ka;
		cctx.all_components = opts->all_components;
		if (!(opts->ctx && opts->ctx->offline) && getenv("DEBUGINFOD_URLS") &&
		    *getenv("DEBUGINFOD_URLS")) {
			if (in->type != PROV_INPUT_TYPE_CORE && !c->kernel_line)
				prov_pipeline_setup_debuginfod(opts->ctx);	/* a text input's build IDs */
			cctx.debuginfod_text = prov_debuginfod_source_text;
		}
		if ((error = prov_components_resolve(c, &incomplete, &cctx)) < 0)
			return error;
		if (in->type == PROV_INPUT_TYPE_CORE)	/* a core, or a process (no input) */
			prov_debuginfod_sources(c, opts->context, cctx.max_source_frames);
		if (in->type == PROV_INPUT_TYPE_CORE)	/* your own program's file at its path */
			prov_local_sources(c, opts->context, cctx.max_source_frames);
		if (opts->suspects) {
			struct prov_suspects_opts sopts = { 0 };

			sopts.ctx = opts->ctx;
			sopts.cache = cache;
			/* a full mirror for suspects only when asked (or --fix makes one anyway) */
			sopts.no_clone = !opts->nfixes && !(opts->ctx && opts->ctx->config &&
				prov_config_get_bool(opts->ctx->config, "suspects.clone", 0) == 1);
			if ((error = prov_suspects_find(c, &sopts)) < 0)
				return error;
		}
	}

	known(c, &ka);	/* when the components stage did not run */
	/* repo_path from build-system prefixes where no component gave one */
	prov_buildpath_repo_paths(c);
	*incomplete_out |= incomplete;
	return 0;
}

int prov_pipeline_run_each(struct prov_crash ***out, size_t *nout, int *partial,
			   const char *name, const struct prov_pipeline_opts *opts)
{
	struct prov_pipeline_opts one;
	struct prov_input in;
	struct prov_crash **cs = NULL;
	struct prov_cache *cache = NULL;
	size_t i, n = 0;
	int error, incomplete = 0;
	const char *cache_dir = opts->ctx ? opts->ctx->cache_dir : NULL;

	if ((error = analyze_all(&cs, &n, &in, name, opts)) < 0)
		goto cleanup;
	if (cache_dir && prov_cache_open_lazy(&cache, cache_dir) < 0) {
		prov_warn("cache unavailable, continuing without it: %s", prov_error_last());
		cache = NULL;
	}
	/* several crashes from one input: no streamed first answer (it is one report's) */
	one = *opts;
	if (n > 1)
		one.on_known = NULL;
	for (i = 0; i < n; i++)
		if ((error = resolve_one(cs[i], &incomplete, &in, cache, &one)) < 0)
			goto cleanup;
	if (partial)
		*partial = incomplete;
	*out = cs;
	*nout = n;
	cs = NULL;
	n = 0;
	error = 0;
cleanup:
	prov_cache_free(cache);
	crashes_free(cs, n, (size_t)-1);
	prov_input_release(&in);
	return error;
}

int prov_pipeline_run(struct prov_crash **out, int *partial, const char *name,
		      const struct prov_pipeline_opts *opts)
{
	struct prov_crash **cs;
	size_t n;
	int error;

	if ((error = prov_pipeline_run_each(&cs, &n, partial, name, opts)) < 0)
		return error;
	*out = cs[0];	/* a cluster log's first rank */
	crashes_free(cs, n, 0);
	return 0;
}
