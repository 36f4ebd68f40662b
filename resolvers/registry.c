#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolver.h"
#include "cache.h"
#include "error.h"
#include "util.h"
#include "banned.h"

const struct prov_resolver_ops *const prov_resolvers[] = {
	&prov_resolver_elf_note,
	&prov_resolver_dpkg,
	&prov_resolver_rpm,
	&prov_resolver_pip,
	&prov_resolver_conda,
	&prov_resolver_rocm,
	&prov_resolver_python,
	&prov_resolver_git,
	&prov_resolver_path,
	NULL
};

struct prov_origin *prov_origin_new(const char *kind)
{
	struct prov_origin *o = prov_xcalloc(1, sizeof(*o));

	o->kind = prov_xstrdup_or_null(kind);
	return o;
}

void prov_origin_list_add(struct prov_origin_list *l, struct prov_origin *o)
{
	PROV_ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = o;
}

void prov_origin_list_release(struct prov_origin_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		prov_origin_free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Instances of a chain, set up once per call; resolvers that decline the root are left out. */
struct chain {
	struct prov_resolver **r;
	size_t n;
};

static int chain_init(struct chain *ch, const struct prov_resolve_ctx *ctx,
		      const struct prov_resolver_ops *const *ops)
{
	size_t n = 0, i;
	int err;

	while (ops[n])
		n++;
	ch->r = prov_xcalloc(n + 1, sizeof(*ch->r));
	ch->n = 0;
	for (i = 0; i < n; i++) {
		struct prov_resolver *r = NULL;

		if (ops[i]->version != PROV_RESOLVER_VERSION)
			return prov_error_set(PROV_ERROR, "resolver '%s' has interface version %u, expected %u",
					      ops[i]->name, ops[i]->version, PROV_RESOLVER_VERSION);
		err = ops[i]->init ? ops[i]->init(&r, ctx) : PROV_EPASSTHROUGH;
		if (err == PROV_EPASSTHROUGH || err == PROV_ENOTFOUND)
			continue;
		if (err < 0)
			return err;
		r->ops = ops[i];
		r->ctx = ctx;
		ch->r[ch->n++] = r;
	}
	return 0;
}

static void chain_release(struct chain *ch)
{
	size_t i;

	for (i = 0; i < ch->n; i++)
		ch->r[i]->ops->free(ch->r[i]);
	free(ch->r);
	ch->r = NULL;
	ch->n = 0;
}

static const char *const libdirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
	"/usr/local/lib", "/lib/x86_64-linux-gnu", "/lib64", "/lib", NULL
};

char *prov_root_find_lib(const char *root, const char *name)
{
	size_t i;

	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return NULL;
	for (i = 0; libdirs[i]; i++) {
		char *p = prov_xasprintf("%s/%s", libdirs[i], name);
		int fd = prov_root_open(root, p, O_RDONLY | O_NONBLOCK);
		struct stat st;

		/* a file: /usr/lib/python3 is a directory, not the module "python3" */
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
			close(fd);
			return p;
		}
		if (fd >= 0)
			close(fd);
		free(p);
	}
	return NULL;
}

/*
 * A module inside a Python package (<site>/<top>/...) whatever installed it
 * (python3-numpy from dpkg, a conda package): the commit the package embeds
 * in its version file, as the pip resolver reads it.
 */
static void python_commit(struct prov_origin *o, const char *root, const char *path)
{
	const char *rel = NULL, *slash;
	char *norm, *site, *top;

	if (o->commit || o->guess)
		return;
	norm = prov_path_normalize(path);
	site = prov_py_site_of(norm, &rel);
	if (site && (slash = strchr(rel, '/'))) {
		top = prov_xstrndup(rel, (size_t)(slash - rel));
		prov_py_add_commit(o, root, site, top);
		free(top);
	}
	free(site);
	free(norm);
}

/*
 * What prov_upstream_derive found for the dpkg packages of this call: a
 * package's copyright file is read once, not once per library of it (libc6:
 * libc, libm, ld-linux...). Bounded; further packages are derived each time.
 */
#define DERIVE_MEMO_MAX 64

struct derive_memo {
	struct {
		char *name, *url, *by, *evidence;
	} v[DERIVE_MEMO_MAX];
	size_t n;
};

static void derive_upstream(struct derive_memo *dm, struct prov_origin *o, const char *root)
{
	size_t i;

	if (!o->kind || strcmp(o->kind, "dpkg") || !o->name || o->upstream_url) {
		prov_upstream_derive(o, root);
		return;
	}
	for (i = 0; i < dm->n; i++)
		if (!strcmp(dm->v[i].name, o->name)) {
			o->upstream_url = prov_xstrdup_or_null(dm->v[i].url);
			o->upstream_by = prov_xstrdup_or_null(dm->v[i].by);
			o->upstream_evidence = prov_xstrdup_or_null(dm->v[i].evidence);
			return;
		}
	prov_upstream_derive(o, root);
	if (dm->n < DERIVE_MEMO_MAX) {
		dm->v[dm->n].name = prov_xstrdup(o->name);
		dm->v[dm->n].url = prov_xstrdup_or_null(o->upstream_url);
		dm->v[dm->n].by = prov_xstrdup_or_null(o->upstream_by);
		dm->v[dm->n].evidence = prov_xstrdup_or_null(o->upstream_evidence);
		dm->n++;
	}
}

static void derive_memo_release(struct derive_memo *dm)
{
	size_t i;

	for (i = 0; i < dm->n; i++) {
		free(dm->v[i].name);
		free(dm->v[i].url);
		free(dm->v[i].by);
		free(dm->v[i].evidence);
	}
	dm->n = 0;
}

int prov_resolve_modules_chain(struct prov_crash *c, const struct prov_resolve_ctx *ctx,
			       const struct prov_resolver_ops *const *ops)
{
	struct derive_memo dm;
	struct chain ch = { NULL, 0 };
	struct prov_origin tmp, note;
	size_t m, i;
	int err, bare;

	memset(&tmp, 0, sizeof(tmp));
	memset(&note, 0, sizeof(note));
	dm.n = 0;
	if ((err = chain_init(&ch, ctx, ops)) < 0)
		goto cleanup;
	for (m = 0; m < c->nmodules; m++) {
		struct prov_module *mod = &c->modules[m];
		struct prov_module view;
		char *stripped = NULL;

		if (mod->origin || !mod->path || !*mod->path || mod->path[0] == '[')
			continue;	/* [vdso], [heap]: no file */
		if (ctx->want && !ctx->want(mod, ctx->want_data))
			continue;
		view = *mod;
		bare = 0;
		if (prov_ends_with(mod->path, " (deleted)")) {
			/* the kernel's mark for a file replaced since it was mapped */
			stripped = prov_xstrndup(mod->path, strlen(mod->path) - strlen(" (deleted)"));
			view.path = stripped;
		} else if (!strchr(mod->path, '/')) {
			/* a bare name ("libc.so.6", as some backtraces print): the
			 * first library directory of the root holding that file */
			char *found = prov_root_find_lib(ctx->sysroot, mod->path);

			if (found) {
				stripped = found;
				view.path = stripped;
				bare = 1;
			}
		}
		for (i = 0; i < ch.n; i++) {
			struct prov_resolver *r = ch.r[i];

			/* after a package note, only the package databases may claim it */
			if (note.kind && strcmp(r->ops->name, "dpkg") && strcmp(r->ops->name, "rpm"))
				continue;
			err = r->ops->resolve(&tmp, r, &view);
			if (err == PROV_EPASSTHROUGH || err == PROV_ENOTFOUND) {
				prov_origin_release(&tmp);
				continue;
			}
			if (err < 0) {
				free(stripped);
				goto cleanup;
			}
			if (!tmp.found_by)
				tmp.found_by = prov_xstrdup(r->ops->name);
			if (!note.kind && !strcmp(r->ops->name, "elf-note")) {
				/* the note names the source project ("systemd"); the binary
				 * package that installed the file (dpkg/rpm) owns the module */
				note = tmp;
				memset(&tmp, 0, sizeof(tmp));
				continue;
			}
			if (note.kind && note.name) {
				/* the note stays as evidence: the source, and in evidence */
				char *ev = prov_xasprintf("%s%s(package note: %s %s)",
							  tmp.evidence ? tmp.evidence : "",
							  tmp.evidence ? " " : "", note.name,
							  note.version ? note.version : "");

				if (!tmp.source)
					tmp.source = prov_xstrdup(note.name);
				free(tmp.evidence);
				tmp.evidence = ev;
			}
			if (bare)
				tmp.guess = 1;	/* the directory was our guess */
			/* the package installed a file, not the build that crashed */
			tmp.build_id_mismatch = mod->build_id_mismatch;
			mod->origin = prov_xcalloc(1, sizeof(*mod->origin));
			*mod->origin = tmp;
			memset(&tmp, 0, sizeof(tmp));
			python_commit(mod->origin, ctx->sysroot, view.path);
			derive_upstream(&dm, mod->origin, ctx->sysroot);
			break;
		}
		if (note.kind && !mod->origin) {
			/* no package database owns it: the note is all there is */
			if (bare)
				note.guess = 1;
			note.build_id_mismatch = mod->build_id_mismatch;
			mod->origin = prov_xcalloc(1, sizeof(*mod->origin));
			*mod->origin = note;
			memset(&note, 0, sizeof(note));
		}
		prov_origin_release(&note);
		free(stripped);
	}
	err = 0;
cleanup:
	prov_origin_release(&tmp);
	prov_origin_release(&note);
	chain_release(&ch);
	derive_memo_release(&dm);
	return err;
}

int prov_resolve_modules(struct prov_crash *c, const struct prov_resolve_ctx *ctx)
{
	return prov_resolve_modules_chain(c, ctx, prov_resolvers);
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_origin(const void *pa, const void *pb)
{
	const struct prov_origin *a = *(struct prov_origin *const *)pa;
	const struct prov_origin *b = *(struct prov_origin *const *)pb;
	int d;

	if ((d = cmp_str(a->name, b->name)))
		return d;
	if ((d = cmp_str(a->kind, b->kind)))
		return d;
	if ((d = cmp_str(a->version, b->version)))
		return d;
	return cmp_str(a->evidence, b->evidence);
}

/* The version's upstream part as prov_debver_split gives it, else the version. */
static char *upstream_of(const char *version)
{
	struct prov_debver dv;
	char *up = NULL;

	if (!version)
		return NULL;
	if (prov_debver_split(&dv, version) == 0) {
		up = prov_xstrdup_or_null(dv.upstream);
		prov_debver_release(&dv);
	}
	return up ? up : prov_xstrdup(version);
}

/* Drop a Debian repack suffix (+dfsg, +ds, ~dfsg, .dfsg) from an upstream version. */
static void drop_repack(char *up)
{
	static const char *const marks[] = { "+dfsg", "~dfsg", ".dfsg", "+ds", "~ds", NULL };
	size_t i;

	for (i = 0; marks[i]; i++) {
		char *p = strstr(up, marks[i]);

		if (p)
			*p = 0;
	}
}

/* Whether the dpkg or rpm resolver of the chain claims the file view->path: 1 and *pkg. */
static int system_package_of(struct prov_origin *pkg, const struct chain *ch, const struct prov_module *view)
{
	size_t k;

	for (k = 0; k < ch->n; k++) {
		const struct prov_resolver_ops *ops = ch->r[k]->ops;

		if (ops != &prov_resolver_dpkg && ops != &prov_resolver_rpm)
			continue;
		if (ops->resolve(pkg, ch->r[k], view) == 0 && pkg->version)
			return 1;
		prov_origin_release(pkg);
	}
	return 0;
}

/*
 * A pip distribution that a dpkg or rpm package installed (Debian's
 * python3-torch ships torch-1.13.0a0+gitunknown.egg-info while the package
 * is 1.13.1+dfsg-4): the distribution's package version wins over the
 * embedded one when their upstream parts differ. The package is looked up by
 * the metadata file, as a module would be.
 */
static void distribution_versions(struct prov_origin_list *l, const struct chain *ch)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct prov_origin *o = l->v[i];
		struct prov_module view;
		struct prov_origin pkg;
		char *meta, *up_pip, *up_pkg;
		int claimed = 0;

		if (!o->kind || strcmp(o->kind, "pip") != 0 || !o->evidence)
			continue;
		meta = prov_ends_with(o->evidence, ".egg-info") ?
			prov_xasprintf("%s/PKG-INFO", o->evidence) :
			prov_xasprintf("%s/METADATA", o->evidence);
		memset(&view, 0, sizeof(view));
		memset(&pkg, 0, sizeof(pkg));
		view.path = meta;
		claimed = system_package_of(&pkg, ch, &view);
		if (!claimed && prov_ends_with(o->evidence, ".egg-info")) {
			/* a flat egg-info file is the metadata itself */
			view.path = o->evidence;
			claimed = system_package_of(&pkg, ch, &view);
		}
		free(meta);
		prov_error_clear();
		if (!claimed)
			continue;
		up_pip = o->version ? prov_xstrdup(o->version) : NULL;
		up_pkg = upstream_of(pkg.version);
		drop_repack(up_pkg);
		if (!up_pip || strcmp(up_pip, up_pkg) != 0) {
			char *fb = prov_xasprintf("pip; version from %s %s (the distribution says %s)",
						  pkg.kind ? pkg.kind : "package", pkg.name ? pkg.name : "?",
						  o->version ? o->version : "nothing");

			free(o->version);
			o->version = prov_xstrdup(pkg.version);
			free(o->found_by);
			o->found_by = fb;
			if (!o->source) {
				o->source = prov_xstrdup_or_null(pkg.source ? pkg.source : pkg.name);
				o->source_version = prov_xstrdup_or_null(pkg.source_version ? pkg.source_version
										   : pkg.version);
			}
		}
		free(up_pip);
		free(up_pkg);
		prov_origin_release(&pkg);
	}
}

int prov_inventory_chain(struct prov_origin ***out, size_t *nout,
			 const struct prov_resolve_ctx *ctx,
			 const struct prov_resolver_ops *const *ops)
{
	struct chain ch = { NULL, 0 };
	struct prov_origin_list l = { NULL, 0, 0 };
	size_t i, n0;
	int err;

	if ((err = chain_init(&ch, ctx, ops)) < 0)
		goto cleanup;
	for (i = 0; i < ch.n; i++) {
		struct prov_resolver *r = ch.r[i];
		size_t k;

		if (!r->ops->inventory)
			continue;
		n0 = l.n;
		err = r->ops->inventory(r, &l);
		if (err == PROV_EPASSTHROUGH || err == PROV_ENOTFOUND)
			continue;
		if (err < 0)
			goto cleanup;
		for (k = n0; k < l.n; k++)
			if (!l.v[k]->found_by)
				l.v[k]->found_by = prov_xstrdup(r->ops->name);
	}
	distribution_versions(&l, &ch);
	for (i = 0; i < l.n; i++)
		prov_upstream_derive(l.v[i], ctx->sysroot);
	if (l.n) {
		size_t w = 0;

		qsort(l.v, l.n, sizeof(*l.v), cmp_origin);
		/* the same component seen twice (two prefixes, a symlinked tree) is listed once */
		for (i = 0; i < l.n; i++) {
			struct prov_origin *o = l.v[i];

			if (w && !cmp_str(o->name, l.v[w - 1]->name) &&
			    !cmp_str(o->kind, l.v[w - 1]->kind) &&
			    !cmp_str(o->version, l.v[w - 1]->version) &&
			    !cmp_str(o->commit, l.v[w - 1]->commit)) {
				prov_origin_free(o);
				continue;
			}
			l.v[w++] = o;
		}
		l.n = w;
	}
	*out = l.v;
	*nout = l.n;
	memset(&l, 0, sizeof(l));
	err = 0;
cleanup:
	prov_origin_list_release(&l);
	chain_release(&ch);
	return err;
}

int prov_inventory(struct prov_origin ***out, size_t *nout, const struct prov_resolve_ctx *ctx)
{
	return prov_inventory_chain(out, nout, ctx, prov_resolvers);
}

/* ---- Debian versions ---- */

int prov_debver_split(struct prov_debver *out, const char *version)
{
	struct prov_debver v;
	const char *colon, *up, *dash;
	uint64_t epoch = 0;

	memset(&v, 0, sizeof(v));
	if (!version || !*version)
		return prov_error_set(PROV_EINPUT, "empty Debian version");
	colon = strchr(version, ':');
	up = version;
	if (colon) {
		if (prov_parse_u64(&epoch, version, (size_t)(colon - version), 10) < 0 ||
		    epoch > UINT_MAX)
			return prov_error_set(PROV_EINPUT, "bad epoch in Debian version '%s'", version);
		up = colon + 1;
	}
	if (!*up)
		return prov_error_set(PROV_EINPUT, "no upstream part in Debian version '%s'", version);
	dash = strrchr(up, '-');
	if (dash && dash != up) {
		const char *b;

		v.upstream = prov_xstrndup(up, (size_t)(dash - up));
		v.revision = prov_xstrdup(dash + 1);
		b = strpbrk(v.revision, "~+");
		if (b && b[1])
			v.build = prov_xstrdup(b + 1);
	} else {
		v.upstream = prov_xstrdup(up);
	}
	v.epoch = (unsigned long)epoch;
	*out = v;
	return 0;
}

void prov_debver_release(struct prov_debver *v)
{
	if (!v)
		return;
	free(v->upstream);
	free(v->revision);
	free(v->build);
	memset(v, 0, sizeof(*v));
}

/* ---- files under the root ---- */

int prov_root_read(struct prov_buf *out, const char *root, const char *path, size_t cap)
{
	int fd, err;
	struct stat st;

	fd = prov_root_open(root, path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return PROV_ENOTFOUND;
		return prov_error_set(PROV_EINPUT, "cannot open '%s': %s", path, prov_strerror(errno));
	}
	/* never block on a FIFO or read a device a hostile root planted */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return prov_error_set(PROV_EINPUT, "'%s' is not a regular file", path);
	}
	err = prov_read_fd(out, fd, path, cap);
	close(fd);
	return err;
}

static int is_host_root(const char *root)
{
	return !root || !*root || strcmp(root, "/") == 0;
}

char *prov_root_key(const char *root)
{
	char *abs, *norm;
	char cwd[PATH_MAX];

	if (is_host_root(root))
		return prov_xstrdup("/");
	if (root[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		abs = prov_xstrdup(root);
	else
		abs = prov_xasprintf("%s/%s", cwd, root);
	norm = prov_path_normalize(abs);
	free(abs);
	return norm;
}

/*
 * The kernel's answer when the whole path exists: one openat2 (RESOLVE_IN_ROOT
 * resolves symlinks as chroot would) and the name of what it opened. A
 * readlink per component through a path 400 levels deep was quadratic in
 * the depth. NULL when it cannot tell (missing components: the walk below).
 */
static char *kernel_realpath(const char *root, const char *path)
{
	char proc[64], host[PATH_MAX], *rroot = NULL, *result = NULL;
	ssize_t n;
	size_t rl;
	int fd = prov_root_open(root, path, O_PATH);

	if (fd < 0)
		return NULL;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, host, sizeof(host) - 1);
	close(fd);
	if (n <= 0 || n >= (ssize_t)sizeof(host) - 1)
		return NULL;
	host[n] = 0;
	if (host[0] != '/')
		return NULL;
	if (!root || !*root || !strcmp(root, "/"))
		return prov_xstrdup(host);
	if (!(rroot = realpath(root, NULL)))
		return NULL;
	rl = strlen(rroot);
	if (rl == 1)
		result = prov_xstrdup(host);
	else if (!strncmp(host, rroot, rl) && (host[rl] == '/' || !host[rl]))
		result = prov_xstrdup(host[rl] ? host + rl : "/");
	free(rroot);
	return result;
}

char *prov_root_realpath(const char *root, const char *path)
{
	struct prov_buf done = PROV_BUF_INIT;	/* resolved prefix, "" = root */
	char *rest, *result;
	char *p;
	int links = 0;

	if ((result = kernel_realpath(root, path)))
		return result;
	if (path[0] == '/' && !strstr(path, "/..") && !strstr(path, "/./")) {
		/*
		 * A missing file: the longest existing prefix (existence is
		 * monotone in the prefix, so a binary search over the slashes)
		 * resolved by the kernel, the missing rest appended as it is.
		 */
		size_t *cut = NULL, ncut = 0, alloc = 0, lo = 0, hi, i;
		char *best = NULL;

		for (i = 1; path[i]; i++)
			if (path[i] == '/') {
				PROV_ALLOC_GROW(cut, ncut + 1, alloc);
				cut[ncut++] = i;
			}
		hi = ncut;	/* prefixes path[0..cut[k]) for k < ncut */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			char *pre = prov_xstrndup(path, cut[mid]), *r = kernel_realpath(root, pre);

			free(pre);
			if (r) {
				free(best);
				best = r;
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		if (best || lo == 0) {
			result = lo == 0 ? prov_xstrdup(path)
				 : prov_xasprintf("%s%s", strcmp(best, "/") ? best : "", path + cut[lo - 1]);
			free(best);
			free(cut);
			return result;
		}
		free(cut);
	}
	rest = prov_xasprintf("%s", path);

	p = rest;
	while (*p) {
		char *comp, *host, *end;
		char target[PATH_MAX];
		ssize_t n;
		size_t mark;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		end = strchr(p, '/');
		if (end) {
			*end = 0;
			p = end + 1;
		} else {
			p += strlen(p);
		}
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			char *slash = strrchr(done.buf, '/');

			prov_buf_setlen(&done, slash ? (size_t)(slash - done.buf) : 0);
			continue;
		}
		mark = done.len;
		prov_buf_putc(&done, '/');
		prov_buf_puts(&done, comp);
		if (links >= 40)
			continue;
		host = prov_root_join(root, done.buf);
		n = readlink(host, target, sizeof(target) - 1);
		free(host);
		if (n <= 0)
			continue;
		target[n] = 0;
		links++;
		{
			/* the rest becomes target + "/" + remaining */
			char *nrest = prov_xasprintf("%s/%s", target, p);

			free(rest);
			rest = nrest;
			p = rest;
		}
		if (target[0] == '/')
			prov_buf_setlen(&done, 0);
		else
			prov_buf_setlen(&done, mark);
	}
	if (!done.len)
		prov_buf_putc(&done, '/');
	result = prov_buf_detach(&done);
	free(rest);
	return result;
}

char *prov_root_identity(const char *root, const char *path)
{
	struct stat st;
	/* O_PATH: files and directories alike, and nothing is opened for reading */
	int fd = prov_root_open(root, path, O_PATH);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	close(fd);
	return prov_xasprintf("%lld:%lld:%llu", (long long)st.st_size,
			      (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
			      (unsigned long long)st.st_ino);
}

int prov_is_shlib_path(const char *path)
{
	const char *b = prov_basename(path);
	const char *so = strstr(b, ".so");

	while (so) {
		if (so[3] == 0 || so[3] == '.')
			return so != b;
		so = strstr(so + 1, ".so");
	}
	return 0;
}

int prov_next_line(const char **line, size_t *len, const char **pos, const char *end)
{
	const char *p = *pos, *nl;

	if (p >= end)
		return 0;
	nl = memchr(p, '\n', (size_t)(end - p));
	*line = p;
	*len = nl ? (size_t)(nl - p) : (size_t)(end - p);
	*pos = nl ? nl + 1 : end;
	return 1;
}

/* ---- file -> package index ---- */

struct ix_pkg {
	struct prov_origin o;
	int shlib;
};

struct prov_pkgindex {
	struct prov_cache *cache;
	int64_t cache_id;
	int cached;	/* lookups go to the cache */
	char *kind;
	/*
	 * With a cache: "pkgindex<US>kind<US>root<US>db<US>identity", the
	 * memo's key prefix. An index the memo knows is opened (SQLite, or a
	 * build) only when a question is not in the memo: `deferred` until then.
	 */
	char *memo;
	int deferred, failed;
	int stored;	/* the index is in the cache (found there, or written by this run) */
	const struct prov_resolve_ctx *ctx;
	char *db, *identity;
	prov_pkgindex_build_fn build;
	void *data;
	/* in memory */
	struct ix_pkg *pkgs;
	size_t npkgs, pkgs_alloc;
	char **files;
	size_t *file_pkg;
	size_t nfiles, files_alloc, fpkg_alloc;
	size_t *slots;	/* open addressing: file index + 1, 0 = empty */
	size_t nslots;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static void ix_rehash(struct prov_pkgindex *ix)
{
	size_t i, n = ix->nslots ? ix->nslots * 2 : 1024;

	free(ix->slots);
	ix->slots = prov_xcalloc(n, sizeof(*ix->slots));
	ix->nslots = n;
	for (i = 0; i < ix->nfiles; i++) {
		size_t s = hash_str(ix->files[i]) & (n - 1);

		while (ix->slots[s])
			s = (s + 1) & (n - 1);
		ix->slots[s] = i + 1;
	}
}

size_t prov_pkgindex_add_pkg(struct prov_pkgindex *ix, const struct prov_origin *o, int shlib)
{
	struct prov_origin *d = prov_origin_dup(o);
	struct ix_pkg *p;

	PROV_ALLOC_GROW(ix->pkgs, ix->npkgs + 1, ix->pkgs_alloc);
	p = &ix->pkgs[ix->npkgs];
	p->o = *d;
	free(d);
	p->shlib = shlib;
	return ix->npkgs++;
}

void prov_pkgindex_set_shlib(struct prov_pkgindex *ix, size_t pkg)
{
	if (pkg < ix->npkgs)
		ix->pkgs[pkg].shlib = 1;
}

void prov_pkgindex_add_file(struct prov_pkgindex *ix, size_t pkg, const char *path)
{
	size_t s;

	if (pkg >= ix->npkgs)
		return;
	/*
	 * A path repeated (200k times in one .list, or in many packages) would
	 * make one probe cluster and the index quadratic. A lookup excludes at
	 * most one package name, so two owners with different names answer
	 * every lookup: the first, and the first named otherwise. Later ones
	 * are dropped here, so each path holds at most two slots.
	 */
	if (ix->nslots) {
		const char *name = ix->pkgs[pkg].o.name;
		size_t owners = 0;

		for (s = hash_str(path) & (ix->nslots - 1); ix->slots[s];
		     s = (s + 1) & (ix->nslots - 1)) {
			size_t f = ix->slots[s] - 1;
			const char *other;

			if (strcmp(ix->files[f], path) != 0)
				continue;
			other = ix->pkgs[ix->file_pkg[f]].o.name;
			if (ix->file_pkg[f] == pkg || ++owners >= 2 ||
			    (name && other && strcmp(name, other) == 0) || (!name && !other))
				return;
		}
	}
	PROV_ALLOC_GROW(ix->files, ix->nfiles + 1, ix->files_alloc);
	PROV_ALLOC_GROW(ix->file_pkg, ix->nfiles + 1, ix->fpkg_alloc);
	ix->files[ix->nfiles] = prov_xstrdup(path);
	ix->file_pkg[ix->nfiles] = pkg;
	ix->nfiles++;
	if (ix->nfiles * 2 > ix->nslots) {
		ix_rehash(ix);
		return;
	}
	s = hash_str(path) & (ix->nslots - 1);
	while (ix->slots[s])
		s = (s + 1) & (ix->nslots - 1);
	ix->slots[s] = ix->nfiles;
}

static void ix_release_mem(struct prov_pkgindex *ix)
{
	size_t i;

	for (i = 0; i < ix->npkgs; i++)
		prov_origin_release(&ix->pkgs[i].o);
	for (i = 0; i < ix->nfiles; i++)
		free(ix->files[i]);
	free(ix->pkgs);
	free(ix->files);
	free(ix->file_pkg);
	free(ix->slots);
	ix->pkgs = NULL;
	ix->files = NULL;
	ix->file_pkg = NULL;
	ix->slots = NULL;
	ix->npkgs = ix->nfiles = ix->nslots = 0;
	ix->pkgs_alloc = ix->files_alloc = ix->fpkg_alloc = 0;
}

void prov_pkgindex_free(struct prov_pkgindex *ix)
{
	if (!ix)
		return;
	ix_release_mem(ix);
	free(ix->kind);
	free(ix->memo);
	free(ix->db);
	free(ix->identity);
	free(ix);
}

/* The index from the cache when it holds it with this identity, else built (and stored). */
static int ix_load(struct prov_pkgindex *ix)
{
	char *rootkey = prov_root_key(ix->ctx->sysroot);
	int err;

	ix->deferred = 0;
	if (ix->cache && ix->identity &&
	    prov_cache_index_find(&ix->cache_id, ix->cache, ix->kind, rootkey, ix->db, ix->identity) == 0) {
		ix->cached = 1;
		ix->stored = 1;
		goto done;
	}
	if ((err = ix->build(ix, ix->data)) < 0) {
		free(rootkey);
		return err;
	}
	if (ix->cache && ix->identity) {
		struct prov_cache_pkg *cp = prov_xcalloc(ix->npkgs + 1, sizeof(*cp));
		size_t i;

		for (i = 0; i < ix->npkgs; i++) {
			const struct prov_origin *o = &ix->pkgs[i].o;

			cp[i].name = o->name;
			cp[i].version = o->version;
			cp[i].source = o->source;
			cp[i].source_version = o->source_version;
			cp[i].arch = o->arch;
			cp[i].vcs_url = o->vcs_url;
			cp[i].commit = o->commit;
			cp[i].branch = o->branch;
			cp[i].evidence = o->evidence;
			cp[i].shlib = ix->pkgs[i].shlib;
		}
		/* a cache that cannot be written only costs time: warn and go on */
		if (prov_cache_index_write(&ix->cache_id, ix->cache, ix->kind, rootkey, ix->db,
					   ix->identity, cp, ix->npkgs, ix->files, ix->file_pkg,
					   ix->nfiles) < 0)
			prov_warn("%s", prov_error_last());
		else
			ix->stored = ix->cache_id > 0;
		free(cp);
	}
done:
	free(rootkey);
	return 0;
}

/* the memo's key parts are separated by the ASCII unit separator (a path may hold a tab) */
#define MEMO_SEP "\x1f"

/* memo key: prefix + rest (NULL when a part holds the separator, a tab or a newline) */
static char *memo_key(const struct prov_pkgindex *ix, const char *what, const char *a,
		      const char *b)
{
	if (!ix->memo || strpbrk(a, MEMO_SEP "\t\n") || (b && strpbrk(b, MEMO_SEP "\t\n")))
		return NULL;
	return prov_xasprintf("%s" MEMO_SEP "%s" MEMO_SEP "%s" MEMO_SEP "%s", ix->memo, what, a, b ? b : "");
}

int prov_pkgindex_open(struct prov_pkgindex **out, const struct prov_resolve_ctx *ctx,
		       const char *kind, const char *db, const char *identity,
		       prov_pkgindex_build_fn build, void *data)
{
	struct prov_pkgindex *ix = prov_xcalloc(1, sizeof(*ix));
	char *key = NULL, *v = NULL;
	int err;

	ix->kind = prov_xstrdup(kind);
	ix->cache = ctx->cache;
	ix->ctx = ctx;
	ix->db = prov_xstrdup(db);
	ix->identity = prov_xstrdup_or_null(identity);
	ix->build = build;
	ix->data = data;
	if (ix->cache && identity) {
		char *rootkey = prov_root_key(ctx->sysroot);
		const char *bad = MEMO_SEP "\t\n";

		if (!strpbrk(kind, bad) && !strpbrk(rootkey, bad) && !strpbrk(db, bad) &&
		    !strpbrk(identity, bad))
			ix->memo = prov_xasprintf("pkgindex" MEMO_SEP "%s" MEMO_SEP "%s" MEMO_SEP "%s"
						  MEMO_SEP "%s", kind, rootkey, db, identity);
		free(rootkey);
		key = memo_key(ix, "ready", "", NULL);
	}
	/* the memo says an earlier run had this very index in the cache: open it only when asked */
	if (key && prov_cache_memo_get(&v, ix->cache, key) == 0) {
		ix->deferred = 1;
		goto done;
	}
	if ((err = ix_load(ix)) < 0) {
		free(key);
		prov_pkgindex_free(ix);
		return err;
	}
	if (key && ix->stored)
		prov_cache_memo_put(ix->cache, key, "1");
done:
	free(key);
	free(v);
	*out = ix;
	return 0;
}

/* A deferred index, opened now; its error said once. */
static int ix_open_now(struct prov_pkgindex *ix)
{
	int err;

	if (ix->failed)
		return PROV_ENOTFOUND;
	if (!ix->deferred)
		return 0;
	if ((err = ix_load(ix)) < 0) {
		ix->failed = 1;
		prov_warn("%s: %s", ix->kind, prov_error_last());
		return PROV_ENOTFOUND;
	}
	return 0;
}

/*
 * An answer as the memo keeps it: "-" none, else "o" and, for kind, name,
 * version, source, source_version, arch, vcs_url, commit, branch and
 * evidence, a tab and "-" (none) or "=" and the text. NULL: not memoizable.
 */
static char *memo_encode(const struct prov_origin *o)
{
	const char *f[10];
	struct prov_buf b = PROV_BUF_INIT;
	size_t i;

	if (!o)
		return prov_xstrdup("-");
	f[0] = o->kind, f[1] = o->name, f[2] = o->version, f[3] = o->source;
	f[4] = o->source_version, f[5] = o->arch, f[6] = o->vcs_url, f[7] = o->commit;
	f[8] = o->branch, f[9] = o->evidence;
	prov_buf_putc(&b, 'o');
	for (i = 0; i < 10; i++) {
		if (f[i] && strpbrk(f[i], "\t\n")) {
			prov_buf_release(&b);
			return NULL;
		}
		prov_buf_printf(&b, "\t%s%s", f[i] ? "=" : "-", f[i] ? f[i] : "");
	}
	return prov_buf_detach(&b);
}

/* 0 and *out (NULL: the memo says no package owns it), or -1: not a memo answer */
static int memo_decode(struct prov_origin **out, const char *v)
{
	char *f[10] = { NULL };
	const char *p = v + 1;
	size_t i;

	*out = NULL;
	if (!strcmp(v, "-"))
		return 0;
	if (v[0] != 'o')
		return -1;
	for (i = 0; i < 10; i++) {
		const char *end;

		if (*p != '\t' || (p[1] != '-' && p[1] != '='))
			goto bad;
		end = strchr(p + 1, '\t');
		if (!end)
			end = p + strlen(p);
		if (p[1] == '-' && end != p + 2)
			goto bad;
		if (p[1] == '=')
			f[i] = prov_xstrndup(p + 2, (size_t)(end - p - 2));
		p = end;
	}
	if (*p || !f[0])
		goto bad;
	*out = prov_xcalloc(1, sizeof(**out));
	(*out)->kind = f[0], (*out)->name = f[1], (*out)->version = f[2], (*out)->source = f[3];
	(*out)->source_version = f[4], (*out)->arch = f[5], (*out)->vcs_url = f[6];
	(*out)->commit = f[7], (*out)->branch = f[8], (*out)->evidence = f[9];
	return 0;
bad:
	for (i = 0; i < 10; i++)
		free(f[i]);
	return -1;
}

/* The lookup in the cache: 0, PROV_ENOTFOUND, or 1 when the cache failed (warned; not an answer to keep). */
static int cache_lookup(struct prov_origin **out, struct prov_pkgindex *ix, const char *path,
			const char *exclude)
{
	size_t pk[16], n, i;
	int err;

	/* a damaged cache costs this lookup, not the run: it is checked and
	 * set aside when the cache is closed, and rebuilt by the next run */
	if ((err = prov_cache_index_lookup(pk, &n, 16, ix->cache, ix->cache_id, path)) < 0) {
		prov_warn("%s", prov_error_last());
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct prov_origin *o = NULL;

		if ((err = prov_cache_index_pkg(&o, ix->cache, ix->cache_id, pk[i])) < 0) {
			prov_warn("%s", prov_error_last());
			return 1;
		}
		if (exclude && o->name && strcmp(o->name, exclude) == 0) {
			prov_origin_free(o);
			continue;
		}
		*out = o;
		return 0;
	}
	return PROV_ENOTFOUND;
}

int prov_pkgindex_lookup(struct prov_origin **out, struct prov_pkgindex *ix,
			 const char *path, const char *exclude)
{
	char *key = memo_key(ix, "file", path, exclude), *v = NULL;
	int err;

	if (key && prov_cache_memo_get(&v, ix->cache, key) == 0) {
		struct prov_origin *o = NULL;

		err = memo_decode(&o, v);
		free(v);
		v = NULL;
		if (err == 0) {
			free(key);
			if (!o)
				return PROV_ENOTFOUND;
			*out = o;
			return 0;
		}
	}
	if ((err = ix_open_now(ix)) < 0)
		goto cleanup;
	if (ix->cached) {
		struct prov_origin *o = NULL;

		err = cache_lookup(&o, ix, path, exclude);
		if (err == 1) {
			err = PROV_ENOTFOUND;
			goto cleanup;
		}
		if (key && (v = memo_encode(err == 0 ? o : NULL)))
			prov_cache_memo_put(ix->cache, key, v);
		if (err == 0)
			*out = o;
		goto cleanup;
	}
	err = PROV_ENOTFOUND;
	if (ix->nslots) {
		size_t s = hash_str(path) & (ix->nslots - 1);
		size_t best = (size_t)-1;

		/* first inserted owner wins: collect the smallest matching file index */
		for (; ix->slots[s]; s = (s + 1) & (ix->nslots - 1)) {
			size_t f = ix->slots[s] - 1;
			const struct prov_origin *o = &ix->pkgs[ix->file_pkg[f]].o;

			if (strcmp(ix->files[f], path) != 0)
				continue;
			if (exclude && o->name && strcmp(o->name, exclude) == 0)
				continue;
			if (f < best)
				best = f;
		}
		if (best != (size_t)-1) {
			*out = prov_origin_dup(&ix->pkgs[ix->file_pkg[best]].o);
			if (!(*out)->kind)
				(*out)->kind = prov_xstrdup(ix->kind);
			err = 0;
		}
	}
	/* what the index just written answers, as the cache's copy will */
	if (key && ix->stored && (v = memo_encode(err == 0 ? *out : NULL)))
		prov_cache_memo_put(ix->cache, key, v);
cleanup:
	free(key);
	free(v);
	return err;
}

static int add_copy(const struct prov_origin *o, int shlib, void *data)
{
	prov_origin_list_add(data, prov_origin_dup(o));
	return 0;
}

int prov_pkgindex_packages(struct prov_pkgindex *ix, int shlib_only, struct prov_origin_list *l)
{
	size_t i;

	if (ix_open_now(ix) < 0)
		return 0;
	if (ix->cached)
		return prov_cache_index_foreach_pkg(ix->cache, ix->cache_id, shlib_only, add_copy, l);
	for (i = 0; i < ix->npkgs; i++) {
		struct prov_origin *o;

		if (shlib_only && !ix->pkgs[i].shlib)
			continue;
		o = prov_origin_dup(&ix->pkgs[i].o);
		if (!o->kind)
			o->kind = prov_xstrdup(ix->kind);
		prov_origin_list_add(l, o);
	}
	return 0;
}

static const char *const merged_dirs[] = { "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/", NULL };

char *prov_pkgpath_canon(const char *path, int merged)
{
	char *n = prov_path_normalize(path);
	size_t i;

	if (!merged)
		return n;
	for (i = 0; merged_dirs[i]; i++) {
		if (prov_starts_with(n, merged_dirs[i])) {
			char *u = prov_xasprintf("/usr%s", n);

			free(n);
			return u;
		}
	}
	return n;
}

int prov_root_merged_usr(const char *root)
{
	char *lib = prov_root_realpath(root, "/lib");
	int merged = strcmp(lib, "/usr/lib") == 0;

	free(lib);
	return merged;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int prov_root_listdir(char ***out, size_t *nout, const char *root, const char *path)
{
	int fd = prov_root_open(root, path, O_RDONLY | O_DIRECTORY);
	DIR *d;
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, alloc = 0;

	if (fd < 0)
		return PROV_ENOTFOUND;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return PROV_ENOTFOUND;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n >= 100000) {
			prov_warn("'%s': more than 100000 entries; the rest ignored", path);
			break;
		}
		PROV_ALLOC_GROW(v, n + 1, alloc);
		v[n++] = prov_xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_name);
	*out = v;
	*nout = n;
	return 0;
}

void prov_strv_free(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int prov_root_isdir(const char *root, const char *path)
{
	int fd = prov_root_open(root, path, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int prov_is_hex_commit(const char *s, size_t len)
{
	size_t i;

	if (len != 40 && len != 64)
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* ---- per-directory memo of nearest-ancestor answers ---- */

struct dirmemo_entry {
	char *dir;
	char *answer;	/* NULL: no such ancestor */
};

struct prov_dirmemo {
	struct dirmemo_entry *slots;
	size_t nslots, n, bytes;
};

static struct dirmemo_entry *dirmemo_find(const struct prov_dirmemo *m, const char *dir)
{
	size_t s;

	if (!m->nslots)
		return NULL;
	for (s = hash_str(dir) & (m->nslots - 1); m->slots[s].dir; s = (s + 1) & (m->nslots - 1))
		if (!strcmp(m->slots[s].dir, dir))
			return &m->slots[s];
	return NULL;
}

static void dirmemo_put(struct prov_dirmemo *m, const char *dir, const char *answer)
{
	size_t s, i;

	if (m->bytes + strlen(dir) > PROV_DIRMEMO_MAX_BYTES || dirmemo_find(m, dir))
		return;
	if ((m->n + 1) * 2 > m->nslots) {
		size_t n = m->nslots ? m->nslots * 2 : 256;
		struct dirmemo_entry *old = m->slots, *e;

		m->slots = prov_xcalloc(n, sizeof(*m->slots));
		for (i = 0; i < m->nslots; i++) {
			if (!old[i].dir)
				continue;
			for (s = hash_str(old[i].dir) & (n - 1); m->slots[s].dir; s = (s + 1) & (n - 1))
				;
			e = &m->slots[s];
			*e = old[i];
		}
		free(old);
		m->nslots = n;
	}
	for (s = hash_str(dir) & (m->nslots - 1); m->slots[s].dir; s = (s + 1) & (m->nslots - 1))
		;
	m->slots[s].dir = prov_xstrdup(dir);
	m->slots[s].answer = answer ? prov_xstrdup(answer) : NULL;
	m->n++;
	m->bytes += strlen(dir) + 1;
}

void prov_dirmemo_free(struct prov_dirmemo *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nslots; i++) {
		free(m->slots[i].dir);
		free(m->slots[i].answer);
	}
	free(m->slots);
	free(m);
}

char *prov_nearest_ancestor(struct prov_dirmemo **memo, const char *root, const char *path,
			    int (*test)(const char *root, const char *dir, void *data), void *data)
{
	char *anc = prov_xstrdup(path), *slash, *answer = NULL;
	size_t *marks = NULL, nmarks = 0, alloc = 0, i;
	int depth = 0, known = 0;

	if (!*memo)
		*memo = prov_xcalloc(1, sizeof(**memo));
	while ((slash = strrchr(anc, '/')) && slash != anc && depth++ < 64) {
		const struct dirmemo_entry *e;

		*slash = 0;
		if ((e = dirmemo_find(*memo, anc))) {
			answer = e->answer ? prov_xstrdup(e->answer) : NULL;
			known = 1;
			break;
		}
		PROV_ALLOC_GROW(marks, nmarks + 1, alloc);
		marks[nmarks++] = (size_t)(slash - anc);
		if (test(root, anc, data)) {
			answer = prov_xstrdup(anc);
			break;
		}
	}
	(void)known;
	/* every directory walked has the same answer */
	for (i = 0; i < nmarks; i++) {
		char *d = prov_xstrndup(path, marks[i]);

		dirmemo_put(*memo, d, answer);
		free(d);
	}
	free(marks);
	free(anc);
	return answer;
}
