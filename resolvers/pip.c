/* The pip resolver: a module listed in the RECORD of a Python distribution of its site-packages. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolver.h"
#include "kit-index.h"
#include "kit-python.h"
#include "kit-root.h"
#include "kit-text.h"
#include "kit-upstream.h"
#include "jsonread.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * pip: the *.dist-info / *.egg-info directories of the site-packages (or
 * dist-packages) directory that is an ancestor of the module. RECORD (or
 * installed-files.txt) says which distribution owns which file;
 * direct_url.json gives the VCS URL and commit of VCS installs; ML wheels
 * embed their commit in <pkg>/version.py (torch: git_version = '...') or
 * <pkg>/commit_info.py.
 */

#define META_CAP (4 << 20)
#define RECORD_CAP (64 << 20)
#define MAX_SITES 64

struct site {
	char *dir;	/* absolute, normalised */
	struct prov_pkgindex *ix;
	dev_t dev;	/* the real directory: symlinked site-packages share one index */
	ino_t ino;
	size_t same;	/* an alias: the index of the site it resolves to, else SIZE_MAX */
};

struct pip {
	struct prov_resolver base;
	struct site sites[MAX_SITES];
	size_t nsites;
};

struct add_state {
	struct prov_pkgindex *ix;
	size_t pkg;
	const char *base;	/* directory the paths are relative to */
};

static int add_path(const char *path, void *data)
{
	struct add_state *as = data;
	char *full = path[0] == '/' ? prov_xstrdup(path) : prov_xasprintf("%s/%s", as->base, path);
	char *norm = prov_path_normalize(full);

	prov_pkgindex_add_file(as->ix, as->pkg, norm);
	if (prov_is_shlib_path(norm))
		prov_pkgindex_set_shlib(as->ix, as->pkg);
	free(norm);
	free(full);
	return 0;
}

static void read_direct_url(struct prov_origin *o, const char *root, const char *path)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_jv *v = NULL;
	const struct prov_jv *vcs;
	const char *s;

	if (prov_root_read(&b, root, path, 1 << 20) < 0)
		goto cleanup;
	if (prov_jv_parse(&v, b.buf, b.len) < 0) {
		prov_warn("pip: '%s': %s", path, prov_error_last());
		goto cleanup;
	}
	if ((s = prov_jv_get_str(v, "url")) && *s)
		o->vcs_url = prov_url_strip_userinfo(prov_xstrdup(s));
	vcs = prov_jv_get(v, "vcs_info");
	if ((s = prov_jv_get_str(vcs, "commit_id")) && *s)
		o->commit = prov_xstrdup(s);
	if ((s = prov_jv_get_str(vcs, "requested_revision")) && *s)
		o->branch = prov_xstrdup(s);
	if (!vcs) {
		/* not a VCS install: the URL is an archive or a directory, not a repository */
		free(o->vcs_url);
		o->vcs_url = NULL;
	}
cleanup:
	prov_jv_free(v);
	prov_buf_release(&b);
}

static void add_dist(struct prov_pkgindex *ix, const char *root, const char *site,
		     const char *entry)
{
	struct prov_buf meta = PROV_BUF_INIT, rec = PROV_BUF_INIT;
	struct prov_origin o;
	int egg = prov_ends_with(entry, ".egg-info");
	char *dir = prov_xasprintf("%s/%s", site, entry);
	char *p = NULL, *name = NULL, *version = NULL;
	struct add_state as;
	size_t nbad = 0;
	int rc;

	memset(&o, 0, sizeof(o));
	p = prov_xasprintf("%s/%s", dir, egg ? "PKG-INFO" : "METADATA");
	if (prov_root_read(&meta, root, p, META_CAP) < 0) {
		if (egg) {
			/* a flat egg-info file is the PKG-INFO itself */
			if (prov_root_read(&meta, root, dir, META_CAP) < 0)
				goto cleanup;
		} else {
			goto cleanup;
		}
	}
	prov_pip_metadata(&name, &version, meta.buf, meta.len);
	if (!name)
		goto cleanup;
	o.kind = (char *)"pip";
	o.name = name;
	o.version = version;
	o.evidence = dir;
	free(p);
	p = prov_xasprintf("%s/direct_url.json", dir);
	read_direct_url(&o, root, p);
	as.ix = ix;
	as.pkg = prov_pkgindex_add_pkg(ix, &o, 0);
	free(p);
	if (!egg) {
		p = prov_xasprintf("%s/RECORD", dir);
		as.base = site;
	} else {
		p = prov_xasprintf("%s/installed-files.txt", dir);
		as.base = dir;
	}
	rc = prov_root_read(&rec, root, p, RECORD_CAP);
	if (rc == 0) {
		prov_pip_record_foreach(rec.buf, rec.len, &nbad, add_path, &as);
		if (nbad)
			prov_warn("pip: '%s': skipped %zu bad line%s", p, nbad, nbad == 1 ? "" : "s");
	} else if (rc != PROV_ENOTFOUND) {
		prov_warn("pip: %s", prov_error_last());
	}
cleanup:
	free(o.vcs_url);
	free(o.commit);
	free(o.branch);
	free(name);
	free(version);
	free(dir);
	free(p);
	prov_buf_release(&meta);
	prov_buf_release(&rec);
}

static int build(struct prov_pkgindex *ix, void *data)
{
	const char **args = data;
	const char *root = args[0], *site = args[1];
	char **names = NULL;
	size_t n = 0, i;

	if (prov_root_listdir(&names, &n, root, site) < 0)
		return PROV_EPASSTHROUGH;
	for (i = 0; i < n; i++)
		if (prov_ends_with(names[i], ".dist-info") || prov_ends_with(names[i], ".egg-info"))
			add_dist(ix, root, site, names[i]);
	prov_strv_free(names, n);
	return 0;
}

static struct site *open_site(struct pip *pp, const char *dir)
{
	const char *root = pp->base.ctx->sysroot;
	const char *args[2];
	struct site *s;
	char *id, *identity;
	size_t i;

	struct stat st;
	int fd;

	for (i = 0; i < pp->nsites; i++)
		if (strcmp(pp->sites[i].dir, dir) == 0) {
			if (pp->sites[i].same != SIZE_MAX)
				i = pp->sites[i].same;
			return pp->sites[i].ix ? &pp->sites[i] : NULL;
		}
	if (pp->nsites >= MAX_SITES)
		return NULL;
	/* 64 symlinks to one site-packages: each real directory is read once */
	if ((fd = prov_root_open(root, dir, O_PATH | O_DIRECTORY)) < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	close(fd);
	s = &pp->sites[pp->nsites++];
	s->dir = prov_xstrdup(dir);
	s->ix = NULL;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->same = SIZE_MAX;
	for (i = 0; i + 1 < pp->nsites; i++)
		if (pp->sites[i].same == SIZE_MAX && pp->sites[i].dev == st.st_dev &&
		    pp->sites[i].ino == st.st_ino) {
			s->same = i;
			return pp->sites[i].ix ? &pp->sites[i] : NULL;
		}
	args[0] = root;
	args[1] = dir;
	id = prov_root_identity(root, dir);
	if (!id)
		return NULL;
	identity = prov_xasprintf("%s;1", id);
	if (prov_pkgindex_open(&s->ix, pp->base.ctx, "pip", dir, identity, build, args) < 0)
		s->ix = NULL;
	free(id);
	free(identity);
	return s->ix ? s : NULL;
}

static int pip_init(struct prov_resolver **out, const struct prov_resolve_ctx *ctx)
{
	struct pip *pp = prov_xcalloc(1, sizeof(*pp));

	pp->base.ctx = ctx;
	*out = &pp->base;
	return 0;
}

static int pip_resolve(struct prov_origin *out, struct prov_resolver *r,
		       const struct prov_module *mod)
{
	struct pip *pp = (struct pip *)r;
	char *norm = prov_path_normalize(mod->path), *dir = NULL, *top = NULL;
	const char *rel = NULL;
	struct site *s;
	struct prov_origin *o = NULL;
	int err = PROV_EPASSTHROUGH;

	dir = prov_py_site_of(norm, &rel);
	if (!dir) {
		/* the module may reach site-packages through a symlink */
		char *real = prov_root_realpath(r->ctx->sysroot, norm);

		free(norm);
		norm = real;
		dir = prov_py_site_of(norm, &rel);
	}
	if (!dir || !(s = open_site(pp, dir)))
		goto cleanup;
	if (strcmp(s->dir, dir) != 0) {
		/* reached through another name of the same directory: its index's paths */
		char *alias = prov_xasprintf("%s%s", s->dir, norm + strlen(dir));

		free(norm);
		norm = alias;
	}
	if ((err = prov_pkgindex_lookup(&o, s->ix, norm, NULL)) < 0)
		goto cleanup;
	{
		const char *slash = strchr(rel, '/');

		top = slash ? prov_xstrndup(rel, (size_t)(slash - rel)) : NULL;
	}
	prov_py_add_commit(o, r->ctx->sysroot, dir, top);
	*out = *o;
	free(o);
	o = NULL;
	err = 0;
cleanup:
	prov_origin_free(o);
	free(norm);
	free(dir);
	free(top);
	return err;
}

/* Append dir to the newline-separated list unless it is there already. */
static void add_site_once(struct prov_buf *sites, const char *d)
{
	const char *pos = sites->buf, *end = sites->buf + sites->len, *line;
	size_t n, dl = strlen(d);

	while (prov_next_line(&line, &n, &pos, end))
		if (n == dl && memcmp(line, d, n) == 0)
			return;
	prov_buf_puts(sites, d);
	prov_buf_putc(sites, '\n');
}

/* Add the site-packages and dist-packages of prefix/lib/python3.x to sites. */
static void add_sites_under(struct prov_buf *sites, const char *root, const char *prefix)
{
	char **py = NULL;
	size_t npy = 0, i, k;
	char *lib = prov_xasprintf("%s/lib", prefix);

	if (prov_root_listdir(&py, &npy, root, lib) == 0) {
		for (i = 0; i < npy; i++) {
			static const char *const kinds[] = { "site-packages", "dist-packages" };

			if (!prov_starts_with(py[i], "python3"))
				continue;
			for (k = 0; k < 2; k++) {
				char *d = prov_xasprintf("%s/%s/%s", lib, py[i], kinds[k]);

				if (prov_root_isdir(root, d))
					add_site_once(sites, d);
				free(d);
			}
		}
	}
	prov_strv_free(py, npy);
	free(lib);
}

/* add_sites_under for every entry of directory `dir` (pyenv versions, uv Pythons, virtualenvs). */
static void add_sites_of_children(struct prov_buf *sites, const char *root, const char *dir)
{
	char **names = NULL;
	size_t n = 0, i;

	if (prov_root_listdir(&names, &n, root, dir) < 0)
		return;
	for (i = 0; i < n && i < 1000; i++) {
		char *p = prov_xasprintf("%s/%s", dir, names[i]);

		add_sites_under(sites, root, p);
		free(p);
	}
	prov_strv_free(names, n);
}

/* A user's Pythons: ~/.local, pyenv's versions, uv's Pythons, the usual venv places. */
static void add_home_sites(struct prov_buf *sites, const char *root, const char *home)
{
	static const char *const one[] = { ".local", ".venv", "venv", NULL };
	static const char *const many[] = { ".pyenv/versions", ".local/share/uv/python",
		".virtualenvs", NULL };
	size_t i;

	for (i = 0; one[i]; i++) {
		char *p = prov_xasprintf("%s/%s", home, one[i]);

		add_sites_under(sites, root, p);
		free(p);
	}
	for (i = 0; many[i]; i++) {
		char *p = prov_xasprintf("%s/%s", home, many[i]);

		add_sites_of_children(sites, root, p);
		free(p);
	}
}

/*
 * The host's Pythons on PATH: the prefix of each python3 found there (its
 * real file: pyenv's shims aside, <prefix>/bin/python3.X), and a venv whose
 * bin directory is on PATH (pyvenv.cfg beside it).
 */
static void add_path_sites(struct prov_buf *sites)
{
	const char *path = getenv("PATH"), *p, *e;
	int ndirs = 0;

	for (p = path; p && *p && ndirs < 64; p = *e ? e + 1 : e, ndirs++) {
		char *dir, *py, *real, *cfg, *up;

		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		if (e == p || *p != '/' || e - p > 4096)
			continue;
		dir = prov_xstrndup(p, (size_t)(e - p));
		py = prov_xasprintf("%s/python3", dir);
		cfg = prov_xasprintf("%s/../pyvenv.cfg", dir);
		up = prov_xasprintf("%s/..", dir);
		real = prov_root_realpath(NULL, py);
		if (real && prov_root_isdir(NULL, dir)) {
			char *norm = prov_path_normalize(up);
			struct prov_buf b = PROV_BUF_INIT;

			if (prov_root_read(&b, NULL, cfg, 1 << 16) == 0)
				add_sites_under(sites, NULL, norm);	/* a venv */
			prov_buf_release(&b);
			free(norm);
			/* <prefix>/bin/python3.X: the prefix */
			char *slash = strrchr(real, '/');

			if (slash) {
				*slash = 0;
				if (prov_ends_with(real, "/bin")) {
					real[strlen(real) - 4] = 0;
					add_sites_under(sites, NULL, *real ? real : "/");
				}
			}
		}
		free(real);
		free(up);
		free(cfg);
		free(py);
		free(dir);
	}
}

static int pip_inventory(struct prov_resolver *r, struct prov_origin_list *l)
{
	struct pip *pp = (struct pip *)r;
	const char *root = r->ctx->sysroot;
	struct prov_buf sites = PROV_BUF_INIT;
	static const char *const prefixes[] = { "/usr", "/usr/local", "/opt/conda", NULL };
	static const char *const envdirs[] = { "/opt/conda/envs", "/opt", "/workspace", NULL };
	const char *pos, *end, *line;
	struct site *seen[MAX_SITES];
	size_t n, i, j, nseen = 0;
	int err = 0;

	for (i = 0; prefixes[i]; i++)
		add_sites_under(&sites, root, prefixes[i]);
	if (!root || !*root || strcmp(root, "/") == 0) {
		const char *home = getenv("HOME");

		add_path_sites(&sites);
		if (home && home[0] == '/')
			add_home_sites(&sites, root, home);
	} else {
		char **homes = NULL;
		size_t nh = 0;

		add_home_sites(&sites, root, "/root");
		if (prov_root_listdir(&homes, &nh, root, "/home") == 0) {
			for (j = 0; j < nh && j < 1000; j++) {
				char *h = prov_xasprintf("/home/%s", homes[j]);

				add_home_sites(&sites, root, h);
				free(h);
			}
			prov_strv_free(homes, nh);
		}
	}
	/* environments one level down: conda envs, /opt/<venv>, /workspace/<venv> */
	for (i = 0; envdirs[i]; i++) {
		char **names = NULL;
		size_t nn = 0;

		if (prov_root_listdir(&names, &nn, root, envdirs[i]) < 0)
			continue;
		for (j = 0; j < nn && j < 1000; j++) {
			char *p = prov_xasprintf("%s/%s", envdirs[i], names[j]);

			if (strcmp(p, "/opt/conda") != 0)
				add_sites_under(&sites, root, p);
			free(p);
		}
		prov_strv_free(names, nn);
	}
	pos = sites.buf;
	end = sites.buf + sites.len;
	while (prov_next_line(&line, &n, &pos, end)) {
		char *dir = prov_xstrndup(line, n);
		struct site *s = open_site(pp, dir);
		size_t n0 = l->n, k;

		/* a site reached again through a symlink is listed once */
		for (k = 0; s && k < nseen; k++)
			if (seen[k] == s)
				s = NULL;
		if (s && nseen < MAX_SITES)
			seen[nseen++] = s;
		if (!s) {
			free(dir);
			continue;
		}

		if (s && (err = prov_pkgindex_packages(s->ix, 0, l)) < 0) {
			free(dir);
			break;
		}
		for (k = n0; k < l->n; k++) {
			/* the top-level package usually carries the distribution's name */
			char *top = prov_xstrdup(l->v[k]->name ? l->v[k]->name : "");
			char *c;

			for (c = top; *c; c++)
				if (*c == '-')
					*c = '_';
			prov_py_add_commit(l->v[k], root, dir, top);
			free(top);
		}
		free(dir);
	}
	prov_buf_release(&sites);
	return err;
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

/*
 * A pip distribution that a dpkg or rpm package installed (Debian's
 * python3-torch ships torch-1.13.0a0+gitunknown.egg-info while the package
 * is 1.13.1+dfsg-4): the distribution's package version wins over the
 * embedded one when their upstream parts differ. The package is looked up by
 * the metadata file, as a module would be.
 */
static void distribution_version(struct prov_origin *o, const struct prov_resolve_peers *peers)
{
	struct prov_module view;
	struct prov_origin pkg;
	char *meta, *up_pip, *up_pkg;
	int claimed = 0;

	if (!o->evidence)
		return;
	meta = prov_ends_with(o->evidence, ".egg-info") ?
		prov_xasprintf("%s/PKG-INFO", o->evidence) :
		prov_xasprintf("%s/METADATA", o->evidence);
	memset(&view, 0, sizeof(view));
	memset(&pkg, 0, sizeof(pkg));
	view.path = meta;
	claimed = peers->package_of(&pkg, peers, &view);
	if (!claimed && prov_ends_with(o->evidence, ".egg-info")) {
		/* a flat egg-info file is the metadata itself */
		view.path = o->evidence;
		claimed = peers->package_of(&pkg, peers, &view);
	}
	free(meta);
	prov_error_clear();
	if (!claimed)
		return;
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

static void pip_annotate(struct prov_resolver *r, struct prov_origin *o, const struct prov_module *mod,
			 const struct prov_resolve_peers *peers)
{
	if (mod)
		prov_py_commit_of(o, r->ctx->sysroot, mod->path);
	else
		distribution_version(o, peers);
	if (!prov_upstream_from_pip_metadata(o, r->ctx->sysroot))
		prov_upstream_from_vcs(o, "derived:direct-url");
}

static void pip_free(struct prov_resolver *r)
{
	struct pip *pp = (struct pip *)r;
	size_t i;

	if (!pp)
		return;
	for (i = 0; i < pp->nsites; i++) {
		free(pp->sites[i].dir);
		prov_pkgindex_free(pp->sites[i].ix);
	}
	free(pp);
}

const struct prov_resolver_ops prov_resolver_pip = {
	.version = PROV_RESOLVER_VERSION,
	.name = "pip",
	.init = pip_init,
	.resolve = pip_resolve,
	.inventory = pip_inventory,
	.free = pip_free,
	.annotate = pip_annotate,
};
