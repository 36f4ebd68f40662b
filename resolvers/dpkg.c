/* The dpkg resolver: a module listed by an installed Debian package (status, .list files, diversions). */
#include <stdlib.h>
#include <string.h>

#include "resolver.h"
#include "kit-index.h"
#include "kit-root.h"
#include "kit-text.h"
#include "kit-python.h"
#include "kit-upstream.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * dpkg: var/lib/dpkg/status + info/<pkg>[:<arch>].list, with diversions.
 * Merged /usr: lists may say /lib/x86_64-linux-gnu/libc.so.6 where a core
 * says /usr/lib/...; when the root's /lib resolves to /usr/lib both sides
 * are canonicalised to /usr/... before they meet.
 */

#define STATUS "/var/lib/dpkg/status"
#define INFO "/var/lib/dpkg/info"
#define STATUS_CAP ((size_t)512 << 20)
#define LIST_CAP ((size_t)256 << 20)
#define MAX_PACKAGES 200000
#define MAX_LINE 4096

struct diversion {
	char *from, *to, *by;
};

/* The upstream repository a package's copyright file names. */
static void derive(struct prov_origin *o, const char *root)
{
	if (!prov_upstream_from_dep5(o, root))
		prov_upstream_from_vcs(o, "derived:direct-url");
}

/*
 * What derive() found for the packages of this call (the chain sets up a
 * resolver per call): a
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

struct dpkg {
	struct prov_resolver base;
	int merged;
	int opened;
	char *status_id;	/* the status file's identity when the chain started (dpkg_init) */
	struct prov_pkgindex *ix;
	struct diversion *div;
	size_t ndiv, div_alloc;
	struct derive_memo memo;
};

/* A field's value in [s, e), trimmed. */
static char *field_dup(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return prov_xstrndup(s, (size_t)(e - s));
}

struct stanza {
	char *package, *status, *arch, *multiarch, *source, *version;
};

static void stanza_release(struct stanza *s)
{
	free(s->package);
	free(s->status);
	free(s->arch);
	free(s->multiarch);
	free(s->source);
	free(s->version);
	memset(s, 0, sizeof(*s));
}

static int valid_pkg_name(const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '+' || *s == '-' || *s == '.'))
			return 0;
	return n > 0 && n < 256;
}

/* Add the package o (evidence: its .list, else the status file) and the files of its list. */
static void index_list(struct prov_pkgindex *ix, const char *root, struct prov_origin *o,
		       const struct stanza *s, int merged)
{
	size_t pkg;
	struct prov_buf b = PROV_BUF_INIT;
	char *path = NULL;
	const char *pos, *end, *line;
	size_t len;
	int err, bad = 0;

	path = prov_xasprintf(INFO "/%s:%s.list", s->package, s->arch ? s->arch : "");
	err = prov_root_read(&b, root, path, LIST_CAP);
	if (err == PROV_ENOTFOUND) {
		free(path);
		path = prov_xasprintf(INFO "/%s.list", s->package);
		err = prov_root_read(&b, root, path, LIST_CAP);
	}
	if (err < 0) {
		if (err != PROV_ENOTFOUND)
			prov_warn("dpkg: %s", prov_error_last());
		o->evidence = (char *)STATUS;
		prov_pkgindex_add_pkg(ix, o, 0);
		goto cleanup;
	}
	o->evidence = path;
	pkg = prov_pkgindex_add_pkg(ix, o, 0);
	pos = b.buf;
	end = b.buf + b.len;
	while (prov_next_line(&line, &len, &pos, end)) {
		char *p, *key;

		if (!len)
			continue;
		if (len > MAX_LINE || line[0] != '/' || memchr(line, 0, len)) {
			bad++;
			continue;
		}
		p = prov_xstrndup(line, len);
		if (strstr(p, "/../") || prov_ends_with(p, "/..")) {
			bad++;
			free(p);
			continue;
		}
		key = prov_pkgpath_canon(p, merged);
		prov_pkgindex_add_file(ix, pkg, key);
		if (prov_is_shlib_path(key))
			prov_pkgindex_set_shlib(ix, pkg);
		free(key);
		free(p);
	}
	if (bad)
		prov_warn("dpkg: '%s': skipped %d bad line%s", path, bad, bad == 1 ? "" : "s");
cleanup:
	o->evidence = NULL;
	free(path);
	prov_buf_release(&b);
}

static void add_stanza(struct prov_pkgindex *ix, const char *root, struct stanza *s,
		       int merged, size_t *count, size_t lineno)
{
	struct prov_origin o;
	const char *st;

	if (!s->package && !s->version && !s->status)
		return;
	if (!s->package || !s->version || !s->status || !valid_pkg_name(s->package) ||
	    (s->arch && !valid_pkg_name(s->arch))) {
		prov_warn("dpkg: '%s': broken stanza before line %zu skipped", STATUS, lineno);
		return;
	}
	st = strrchr(s->status, ' ');
	st = st ? st + 1 : s->status;
	if (strcmp(st, "installed") != 0 && strcmp(st, "half-configured") != 0 &&
	    strcmp(st, "triggers-awaited") != 0 && strcmp(st, "triggers-pending") != 0)
		return;
	if (++*count > MAX_PACKAGES)
		return;
	memset(&o, 0, sizeof(o));
	o.kind = (char *)"dpkg";
	o.name = s->package;
	o.version = s->version;
	o.arch = s->arch;
	if (s->source) {
		char *sp = strchr(s->source, ' ');

		if (sp) {
			char *open = strchr(sp, '('), *close = strrchr(sp, ')');

			*sp = 0;
			if (open && close && close > open) {
				*close = 0;
				o.source_version = field_dup(open + 1, close);
			}
		}
		o.source = s->source;
	} else {
		o.source = s->package;
	}
	if (!o.source_version)
		o.source_version = prov_xstrdup(s->version);
	index_list(ix, root, &o, s, merged);
	free(o.source_version);
}

struct build_data {
	struct dpkg *d;
};

static int build(struct prov_pkgindex *ix, void *data)
{
	struct dpkg *d = data;
	const char *root = d->base.ctx->sysroot;
	struct prov_buf b = PROV_BUF_INIT;
	struct stanza s;
	const char *pos, *end, *line;
	size_t len, lineno = 0, count = 0;
	char **cur = NULL;
	int err;

	memset(&s, 0, sizeof(s));
	if ((err = prov_root_read(&b, root, STATUS, STATUS_CAP)) < 0)
		return err == PROV_ENOTFOUND ? PROV_EPASSTHROUGH : err;
	pos = b.buf;
	end = b.buf + b.len;
	while (prov_next_line(&line, &len, &pos, end)) {
		const char *colon;

		lineno++;
		if (len == 0 || (len == 1 && line[0] == '\r')) {
			add_stanza(ix, root, &s, d->merged, &count, lineno);
			stanza_release(&s);
			cur = NULL;
			continue;
		}
		if (line[0] == ' ' || line[0] == '\t')
			continue;	/* continuation of a multi-line field */
		colon = memchr(line, ':', len);
		if (!colon) {
			cur = NULL;
			continue;
		}
#define FIELD(name, member)                                                       \
		if ((size_t)(colon - line) == sizeof(name) - 1 &&                  \
		    strncasecmp(line, name, sizeof(name) - 1) == 0)                \
			cur = &s.member;
		cur = NULL;
		FIELD("Package", package)
		FIELD("Status", status)
		FIELD("Architecture", arch)
		FIELD("Multi-Arch", multiarch)
		FIELD("Source", source)
		FIELD("Version", version)
#undef FIELD
		if (cur) {
			free(*cur);
			*cur = field_dup(colon + 1, line + len);
		}
	}
	add_stanza(ix, root, &s, d->merged, &count, lineno);
	stanza_release(&s);
	if (count > MAX_PACKAGES)
		prov_warn("dpkg: more than %d packages; the rest ignored", MAX_PACKAGES);
	prov_buf_release(&b);
	return 0;
}

static void read_diversions(struct dpkg *d)
{
	struct prov_buf b = PROV_BUF_INIT;
	const char *pos, *end, *line[3];
	size_t len[3];

	if (prov_root_read(&b, d->base.ctx->sysroot, "/var/lib/dpkg/diversions", 16 << 20) < 0)
		goto cleanup;
	pos = b.buf;
	end = b.buf + b.len;
	while (prov_next_line(&line[0], &len[0], &pos, end) &&
	       prov_next_line(&line[1], &len[1], &pos, end) &&
	       prov_next_line(&line[2], &len[2], &pos, end)) {
		struct diversion *v;
		char *f, *t;

		if (d->ndiv >= 100000 || len[0] > MAX_LINE || len[1] > MAX_LINE || len[2] > 256)
			break;
		PROV_ALLOC_GROW(d->div, d->ndiv + 1, d->div_alloc);
		v = &d->div[d->ndiv++];
		f = prov_xstrndup(line[0], len[0]);
		t = prov_xstrndup(line[1], len[1]);
		v->from = prov_pkgpath_canon(f, d->merged);
		v->to = prov_pkgpath_canon(t, d->merged);
		v->by = prov_xstrndup(line[2], len[2]);
		free(f);
		free(t);
	}
cleanup:
	prov_buf_release(&b);
}

static int dpkg_init(struct prov_resolver **out, const struct prov_resolve_ctx *ctx)
{
	struct dpkg *d;
	char *id = prov_root_identity(ctx->sysroot, STATUS);

	if (!id)
		return PROV_EPASSTHROUGH;
	d = prov_xcalloc(1, sizeof(*d));
	d->status_id = id;
	d->base.ctx = ctx;
	d->merged = prov_root_merged_usr(ctx->sysroot);
	*out = &d->base;
	return 0;
}

static int dpkg_open(struct dpkg *d)
{
	char *id1, *id2, *identity;
	int err;

	if (d->opened)
		return d->ix ? 0 : PROV_EPASSTHROUGH;
	d->opened = 1;
	id1 = d->status_id;	/* read once: dpkg_init's */
	d->status_id = NULL;
	id2 = prov_root_identity(d->base.ctx->sysroot, INFO);
	identity = id1 ? prov_xasprintf("%s;%s;%d", id1, id2 ? id2 : "-", d->merged) : NULL;
	err = prov_pkgindex_open(&d->ix, d->base.ctx, "dpkg", STATUS, identity, build, d);
	free(id1);
	free(id2);
	free(identity);
	if (err < 0 && err != PROV_EPASSTHROUGH) {
		/* a broken database is a warning: the other resolvers still run */
		prov_warn("dpkg: %s", prov_error_last());
		return PROV_EPASSTHROUGH;
	}
	if (err < 0)
		return err;
	read_diversions(d);
	return 0;
}

static int lookup_key(struct prov_origin **out, struct dpkg *d, const char *key)
{
	size_t i;
	int err;

	for (i = 0; i < d->ndiv; i++) {
		struct diversion *v = &d->div[i];

		if (strcmp(key, v->to) == 0) {
			/* the diverted original: owned by the package that is not the diverter */
			return prov_pkgindex_lookup(out, d->ix, v->from,
						    strcmp(v->by, ":") ? v->by : NULL);
		}
		if (strcmp(key, v->from) == 0 && strcmp(v->by, ":") != 0) {
			struct prov_origin *o = NULL;

			if ((err = prov_pkgindex_lookup(&o, d->ix, key, NULL)) < 0)
				return err;
			if (o->name && strcmp(o->name, v->by) != 0) {
				struct prov_origin *o2 = NULL;

				if (prov_pkgindex_lookup(&o2, d->ix, key, o->name) == 0) {
					prov_origin_free(o);
					o = o2;
				}
			}
			*out = o;
			return 0;
		}
	}
	return prov_pkgindex_lookup(out, d->ix, key, NULL);
}

static int dpkg_resolve(struct prov_origin *out, struct prov_resolver *r,
			const struct prov_module *mod)
{
	struct dpkg *d = (struct dpkg *)r;
	struct prov_origin *o = NULL;
	char *key = NULL, *real = NULL, *rkey = NULL;
	int err;

	if ((err = dpkg_open(d)) < 0)
		return err;
	/* packages list their directories too: owning a directory is not owning a module */
	if (prov_root_isdir(r->ctx->sysroot, mod->path))
		return PROV_EPASSTHROUGH;
	key = prov_pkgpath_canon(mod->path, d->merged);
	err = lookup_key(&o, d, key);
	if (err == PROV_ENOTFOUND) {
		real = prov_root_realpath(r->ctx->sysroot, mod->path);
		rkey = prov_pkgpath_canon(real, d->merged);
		if (strcmp(rkey, key) != 0)
			err = lookup_key(&o, d, rkey);
	}
	if (err < 0)
		goto cleanup;
	*out = *o;
	free(o);
	o = NULL;
	err = 0;
cleanup:
	prov_origin_free(o);
	free(key);
	free(real);
	free(rkey);
	return err;
}

static int dpkg_inventory(struct prov_resolver *r, struct prov_origin_list *l)
{
	struct dpkg *d = (struct dpkg *)r;
	int err;

	if ((err = dpkg_open(d)) < 0)
		return err;
	return prov_pkgindex_packages(d->ix, 1, l);
}

static void derive_upstream(struct derive_memo *dm, struct prov_origin *o, const char *root)
{
	size_t i;

	if (!o->name || o->upstream_url) {
		derive(o, root);
		return;
	}
	for (i = 0; i < dm->n; i++)
		if (!strcmp(dm->v[i].name, o->name)) {
			o->upstream_url = prov_xstrdup_or_null(dm->v[i].url);
			o->upstream_by = prov_xstrdup_or_null(dm->v[i].by);
			o->upstream_evidence = prov_xstrdup_or_null(dm->v[i].evidence);
			return;
		}
	derive(o, root);
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

static void dpkg_annotate(struct prov_resolver *r, struct prov_origin *o, const struct prov_module *mod,
			  const struct prov_resolve_peers *peers)
{
	struct dpkg *d = (struct dpkg *)r;

	(void)peers;
	if (!mod) {
		derive(o, r->ctx->sysroot);
		return;
	}
	prov_py_commit_of(o, r->ctx->sysroot, mod->path);
	derive_upstream(&d->memo, o, r->ctx->sysroot);
}

static void dpkg_free(struct prov_resolver *r)
{
	struct dpkg *d = (struct dpkg *)r;
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->ndiv; i++) {
		free(d->div[i].from);
		free(d->div[i].to);
		free(d->div[i].by);
	}
	free(d->div);
	derive_memo_release(&d->memo);
	prov_pkgindex_free(d->ix);
	free(d->status_id);
	free(d);
}

const struct prov_resolver_ops prov_resolver_dpkg = {
	.version = PROV_RESOLVER_VERSION,
	.name = "dpkg",
	.init = dpkg_init,
	.resolve = dpkg_resolve,
	.inventory = dpkg_inventory,
	.free = dpkg_free,
	.annotate = dpkg_annotate,
	.flags = PROV_RESOLVER_PACKAGE_DB,
};
