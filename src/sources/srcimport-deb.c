/* Debian source packages imported: the .dsc, its tarballs, and debian/patches applied. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <git2.h>

#include "cachedir.h"
#include "error.h"
#include "fetch.h"
#include "sha256.h"
#include "sources.h"
#include "sources-git.h"
#include "srcimport.h"
#include "srcimport-int.h"
#include "util.h"
#include "banned.h"

/* ---- Debian source packages ---- */

static int valid_source_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n < 2 || n > 128 || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
		return 0;
	for (i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || strchr("+.-", s[i])))
			return 0;
	return 1;
}

static int valid_version(const char *s)
{
	size_t i, n = strlen(s);

	if (n < 1 || n > 256 || !isalnum((unsigned char)s[0]))
		return 0;
	for (i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || strchr(".+~:-", s[i])))
			return 0;
	return 1;
}

int prov_srcimport_pool_dir(char **out, const char *source, const char *area)
{
	if (!valid_source_name(source))
		return prov_error_set(PROV_EINPUT, "'%s' is not a Debian source package name", source);
	if (prov_starts_with(source, "lib") && strlen(source) > 3)
		*out = prov_xasprintf("pool/%s/lib%c/%s", area, source[3], source);
	else
		*out = prov_xasprintf("pool/%s/%c/%s", area, source[0], source);
	return 0;
}

struct dsc_file {
	char sha256[2 * PROV_SHA256_LEN + 1];
	uint64_t size;
	char *name;
	char *path;	/* in the download cache */
	char *url;
};

struct dsc {
	char *format;
	char *source;
	char *version;
	struct dsc_file *files;
	size_t nfiles, alloc;
};

static void dsc_release(struct dsc *d)
{
	size_t i;

	free(d->format);
	free(d->source);
	free(d->version);
	for (i = 0; i < d->nfiles; i++) {
		free(d->files[i].name);
		free(d->files[i].path);
		free(d->files[i].url);
	}
	free(d->files);
}

static int valid_file_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 255 || s[0] == '.')
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == '\\' || (unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return 0;
	return 1;
}

/* Parse one "sha256 size name" line of Checksums-Sha256. */
static int dsc_add_file(struct dsc *d, const char *line, size_t len, const char *what)
{
	const char *p = line, *end = line + len, *f[3];
	size_t flen[3], i;
	struct dsc_file *df;

	for (i = 0; i < 3; i++) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		f[i] = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		flen[i] = (size_t)(p - f[i]);
	}
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (!flen[0] && !flen[1] && !flen[2])
		return 0;
	if (flen[0] != 2 * PROV_SHA256_LEN || p != end || !valid_file_name(f[2], flen[2]))
		return prov_error_set(PROV_EINPUT, "'%s': malformed Checksums-Sha256 line '%.*s'", what,
				      (int)(len > 200 ? 200 : len), line);
	for (i = 0; i < flen[0]; i++)
		if (!isxdigit((unsigned char)f[0][i]))
			return prov_error_set(PROV_EINPUT, "'%s': malformed SHA-256 '%.*s'", what,
					      (int)flen[0], f[0]);
	if (d->nfiles >= PROV_SRCIMPORT_MAX_DSC_FILES)
		return prov_error_set(PROV_ELIMIT, "'%s' lists more than %d files", what,
				      PROV_SRCIMPORT_MAX_DSC_FILES);
	PROV_ALLOC_GROW(d->files, d->nfiles + 1, d->alloc);
	df = &d->files[d->nfiles];
	memset(df, 0, sizeof(*df));
	for (i = 0; i < flen[0]; i++)
		df->sha256[i] = (char)tolower((unsigned char)f[0][i]);
	df->sha256[flen[0]] = '\0';
	if (prov_parse_u64(&df->size, f[1], flen[1], 10) < 0)
		return prov_error_set(PROV_EINPUT, "'%s': malformed size '%.*s'", what, (int)flen[1], f[1]);
	df->name = prov_xstrndup(f[2], flen[2]);
	d->nfiles++;
	return 0;
}

/*
 * Parse a .dsc (RFC 822 style, maybe inside an OpenPGP clear-signed
 * wrapper whose signature is not checked here).
 */
static int dsc_parse(struct dsc *d, const char *text, size_t len, const char *what)
{
	const char *p = text, *end = text + len;
	int signed_msg = 0, in_body = 1, in_sums = 0, seen_sums = 0, error = 0;

	if (len >= 34 && !memcmp(text, "-----BEGIN PGP SIGNED MESSAGE-----", 34)) {
		signed_msg = 1;
		in_body = 0;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *colon;
		size_t ll;

		if (le > p && le[-1] == '\r')
			le--;
		ll = (size_t)(le - p);
		if (!in_body) {
			if (ll == 0)	/* end of the armour headers */
				in_body = 1;
			goto next;
		}
		if (signed_msg && ll >= 5 && !memcmp(p, "-----", 5)) {
			if (ll >= 29 && !memcmp(p, "-----BEGIN PGP SIGNATURE-----", 29))
				break;
		}
		if (signed_msg && ll >= 2 && p[0] == '-' && p[1] == ' ') {	/* dash-escaped */
			p += 2;
			ll -= 2;
		}
		if (ll == 0) {
			in_sums = 0;
			goto next;
		}
		if (p[0] == ' ' || p[0] == '\t') {
			if (in_sums && (error = dsc_add_file(d, p, ll, what)) < 0)
				return error;
			goto next;
		}
		in_sums = 0;
		colon = memchr(p, ':', ll);
		if (!colon)
			return prov_error_set(PROV_EINPUT, "'%s': malformed line '%.*s'", what,
					      (int)(ll > 200 ? 200 : ll), p);
		{
			size_t kl = (size_t)(colon - p);
			const char *v = colon + 1;
			size_t vl;

			while (v < p + ll && (*v == ' ' || *v == '\t'))
				v++;
			vl = (size_t)(p + ll - v);
			while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
				vl--;
			if (kl == 6 && !strncasecmp(p, "Format", 6) && !d->format)
				d->format = prov_xstrndup(v, vl);
			else if (kl == 6 && !strncasecmp(p, "Source", 6) && !d->source)
				d->source = prov_xstrndup(v, vl);
			else if (kl == 7 && !strncasecmp(p, "Version", 7) && !d->version)
				d->version = prov_xstrndup(v, vl);
			else if (kl == 16 && !strncasecmp(p, "Checksums-Sha256", 16) && !seen_sums) {
				in_sums = seen_sums = 1;
				if (vl && (error = dsc_add_file(d, v, vl, what)) < 0)
					return error;
			}
		}
next:
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!d->format || !d->source || !d->version)
		return prov_error_set(PROV_EINPUT, "'%s' lacks a Format, Source or Version field", what);
	if (!seen_sums || !d->nfiles)
		return prov_error_set(PROV_EINPUT, "'%s' has no Checksums-Sha256 files", what);
	return 0;
}

static const char *const tar_exts[] = { ".tar.gz", ".tar.xz", ".tar.bz2", ".tar.lzma", ".tar.zst", ".tar", NULL };

/* If name is prefix + middle + a tarball extension, return middle's length via out. */
static int has_tar_ext(const char *name, size_t *out_stem)
{
	size_t n = strlen(name), i;

	for (i = 0; tar_exts[i]; i++) {
		size_t el = strlen(tar_exts[i]);
		if (n > el && !strcmp(name + n - el, tar_exts[i])) {
			*out_stem = n - el;
			return 1;
		}
	}
	return 0;
}

/* Debian's rules for a version in file names: no epoch. */
static const char *strip_epoch(const char *v)
{
	const char *c = strchr(v, ':');

	return c ? c + 1 : v;
}

/* Percent-escape what a ref name cannot hold (':', '~', ...). */
static int version_refname(char **out, const char *source, const char *version)
{
	struct prov_buf b = PROV_BUF_INIT;
	const char *p;
	int valid = 0;

	prov_buf_printf(&b, "refs/imports/%s/", source);
	for (p = version; *p; p++) {
		if (isalnum((unsigned char)*p) || strchr(".+-_", *p))
			prov_buf_putc(&b, *p);
		else
			prov_buf_printf(&b, "%%%02X", (unsigned char)*p);
	}
	if (git_reference_name_is_valid(&valid, b.buf) < 0 || !valid) {
		prov_buf_release(&b);
		return prov_error_set(PROV_EINPUT, "version '%s' of '%s' cannot be recorded as a ref", version,
				      source);
	}
	*out = prov_buf_detach(&b);
	return 0;
}

static int security_version(const char *v)
{
	const char *p = v;

	while ((p = strstr(p, "deb"))) {
		if (p > v && (p[-1] == '~' || p[-1] == '+')) {
			size_t n = strspn(p + 3, "0123456789");

			if (n && p[3 + n] == 'u' && p[4 + n] >= '0' && p[4 + n] <= '9')
				return 1;
		}
		p += 3;
	}
	return 0;
}

/*
 * Fetch the .dsc: the main archive's pool areas in order, then its flat
 * directory; the security archive's pool/updates areas (config
 * sources.debianSecurityBaseUrl; unset: Debian's when base is Debian's
 * main archive, else none). A security
 * version (~debNNuN, +debNNuN) tries the security archive first. At most
 * 9 URLs; only "not found" moves on to the next.
 */
/* The pool directory of source in area under base (a security archive's
 * pool/updates/), with a trailing slash. */
static char *pool_url(const char *base, size_t blen, int updates, const char *pool)
{
	/* "pool/main/..." -> "pool/updates/main/..." */
	return prov_xasprintf("%.*s/%s%s/", (int)blen, base, updates ? "pool/updates/" : "",
			      updates ? pool + 5 : pool);
}

static int fetch_dsc(char **out_path, char **out_url, char **out_alt_dir, const char *base, const char *source,
		     const char *version, const struct prov_srcimport_opts *o, uint64_t *ms)
{
	static const char *const areas[] = { "main", "contrib", "non-free", "non-free-firmware", NULL };
	const char *fv = strip_epoch(version);
	const char *sec = o->ctx->config ? prov_config_get(o->ctx->config, "sources.debiansecuritybaseurl") : NULL;
	const char *bases[2];
	size_t blen[2];
	int i, k, sec_first, error = PROV_ENOTFOUND;

	/* unset: Debian's own security archive beside Debian's own main archive;
	 * a site's mirror of the main archive says where its security mirror is */
	if (!sec)
		sec = !strcmp(base, PROV_SRCIMPORT_DEBIAN_URL) || !strcmp(base, PROV_SRCIMPORT_DEBIAN_URL "/")
			      ? PROV_SRCIMPORT_DEBIAN_SECURITY_URL : "";
	sec_first = security_version(version) && *sec;
	bases[0] = sec_first ? sec : base;
	bases[1] = sec_first ? base : (*sec ? sec : NULL);
	*out_alt_dir = NULL;
	for (k = 0; k < 2 && bases[k]; k++) {
		blen[k] = strlen(bases[k]);
		while (blen[k] && bases[k][blen[k] - 1] == '/')
			blen[k]--;
	}
	for (k = 0; k < 2 && bases[k]; k++) {
		int updates = bases[k] == sec;
		for (i = 0; ; i++) {
			char *url, *pool = NULL;

			if (areas[i]) {
				char *dir;

				if ((error = prov_srcimport_pool_dir(&pool, source, areas[i])) < 0)
					return error;
				dir = pool_url(bases[k], blen[k], updates, pool);
				url = prov_xasprintf("%s%s_%s.dsc", dir, source, fv);
				free(dir);
			} else if (!updates) {
				url = prov_xasprintf("%.*s/%s_%s.dsc", (int)blen[k], bases[k], source, fv);
			} else {
				break;
			}
			error = si_fetch(out_path, url, o, ms);
			if (error == 0) {
				/* the same area of the other archive: where the
				 * files the .dsc lists are looked for next */
				int j = !k;

				if (pool && j < 2 && bases[j])
					*out_alt_dir = pool_url(bases[j], blen[j], bases[j] == sec, pool);
				free(pool);
				*out_url = url;
				return 0;
			}
			free(pool);
			free(url);
			if (error != PROV_ENOTFOUND)
				return error;
			if (!areas[i])
				break;
		}
	}
	if (error == PROV_ENOTFOUND)
		error = prov_error_set(PROV_ENOTFOUND, "no %s_%s.dsc under '%.*s'%s%.*s%s%s", source, fv,
				       (int)blen[0], bases[0], k > 1 ? " nor '" : "", k > 1 ? (int)blen[1] : 0,
				       k > 1 ? bases[1] : "", k > 1 ? "'" : "",
				       o->ctx->offline ? " in the cache (--offline)" : "");
	return error;
}

enum dsc_kind { DSC_IGNORE, DSC_ORIG, DSC_COMPONENT, DSC_DEBIAN, DSC_NATIVE };

static enum dsc_kind classify(const char *name, const char *source, char **out_component)
{
	size_t stem, sl = strlen(source);
	const char *c;

	*out_component = NULL;
	if (prov_ends_with(name, ".asc"))
		return DSC_IGNORE;
	if (strncmp(name, source, sl) || name[sl] != '_' || !has_tar_ext(name, &stem))
		return DSC_IGNORE;
	if (stem > 7 && !strncmp(name + stem - 7, ".debian", 7))
		return DSC_DEBIAN;
	if (stem > 5 && !strncmp(name + stem - 5, ".orig", 5))
		return DSC_ORIG;
	c = strstr(name + sl, ".orig-");
	if (c && (size_t)(c - name) < stem) {
		size_t cl = stem - (size_t)(c + 6 - name), i;
		for (i = 0; i < cl; i++)
			if (!(isalnum((unsigned char)c[6 + i]) || c[6 + i] == '-'))
				return DSC_IGNORE;
		if (!cl)
			return DSC_IGNORE;
		*out_component = prov_xstrndup(c + 6, cl);
		return DSC_COMPONENT;
	}
	return DSC_NATIVE;
}

/*
 * The .dsc of source=version (read into *text, parsed into *d) and every file
 * it lists, fetched from beside it or, where that archive lacks it, from the
 * same area of the other archive (security and main), and checked against
 * the .dsc's sizes and SHA-256. A signature (.asc) found in neither is left
 * out with a warning: the tree is built from the checked tarballs, and
 * nothing reads the signature.
 */
static int fetch_verified(struct dsc *d, struct prov_buf *text, char **dsc_path, char **dsc_url,
			  const char *base_url, const char *source, const char *version,
			  const struct prov_srcimport_opts *o, struct prov_srcimport_stats *stats)
{
	char *dir_url = NULL, *alt_dir = NULL;
	size_t i;
	int error;

	if ((error = fetch_dsc(dsc_path, dsc_url, &alt_dir, base_url, source, version, o, &stats->download_ms)) < 0 ||
	    (error = prov_read_file(text, *dsc_path, PROV_SRCIMPORT_MAX_DSC)) < 0)
		goto cleanup;
	if ((error = dsc_parse(d, text->buf, text->len, *dsc_url)) < 0) {
		prov_fetch_forget(o->ctx->cache_dir, *dsc_url);
		goto cleanup;
	}
	if (strcmp(d->source, source) || strcmp(d->version, version)) {
		prov_fetch_forget(o->ctx->cache_dir, *dsc_url);
		error = prov_error_set(PROV_EINPUT, "'%s' describes %s %s, not %s %s", *dsc_url, d->source,
				       d->version, source, version);
		goto cleanup;
	}
	if (strcmp(d->format, "3.0 (quilt)") && strcmp(d->format, "3.0 (native)") && strcmp(d->format, "1.0")) {
		error = prov_error_set(PROV_EINPUT, "'%s' has source format '%s': only 3.0 (quilt), 3.0 (native) and native 1.0 are supported",
				       *dsc_url, d->format);
		goto cleanup;
	}
	dir_url = prov_xstrndup(*dsc_url, (size_t)(prov_basename(*dsc_url) - *dsc_url));
	for (i = 0; i < d->nfiles; i++) {
		struct dsc_file *f = &d->files[i];
		char got[2 * PROV_SHA256_LEN + 1];
		uint64_t size = 0, t1;

		f->url = prov_xasprintf("%s%s", dir_url, f->name);
		error = si_fetch(&f->path, f->url, o, &stats->download_ms);
		if (error == PROV_ENOTFOUND && alt_dir) {
			char *alt = prov_xasprintf("%s%s", alt_dir, f->name);

			prov_error_clear();
			error = si_fetch(&f->path, alt, o, &stats->download_ms);
			if (error == 0) {
				free(f->url);
				f->url = alt;
			} else {
				free(alt);
			}
		}
		if (error == PROV_ENOTFOUND && alt_dir && !prov_ends_with(f->name, ".asc")) {
			error = prov_error_set(PROV_ENOTFOUND, "'%s', which the .dsc lists, is neither at '%s' nor at '%s'%s",
					       f->name, dir_url, alt_dir, o->ctx->offline ? " in the cache (--offline)" : "");
			goto cleanup;
		}
		if (error == PROV_ENOTFOUND && prov_ends_with(f->name, ".asc")) {
			prov_error_clear();
			prov_warn("%s: the signature was not available (not at '%s'%s%s%s); the tree is built from the tarballs checked against the .dsc's SHA-256",
				  f->name, dir_url, alt_dir ? " nor '" : "", alt_dir ? alt_dir : "",
				  alt_dir ? "'" : "");
			continue;
		}
		if (error < 0)
			goto cleanup;
		t1 = prov_now_ms();
		error = prov_sha256_file(got, &size, f->path);
		stats->download_ms += prov_now_ms() - t1;
		if (error < 0)
			goto cleanup;
		if (size != f->size || strcmp(got, f->sha256)) {
			prov_fetch_forget(o->ctx->cache_dir, f->url);
			if (size != f->size)
				error = prov_error_set(PROV_EINPUT, "size mismatch for '%s' from '%s': the .dsc says %llu bytes, got %llu",
						       f->name, f->url, (unsigned long long)f->size,
						       (unsigned long long)size);
			else
				error = prov_error_set(PROV_EINPUT, "checksum mismatch for '%s' from '%s': the .dsc says SHA-256 %s, got %s",
						       f->name, f->url, f->sha256, got);
			goto cleanup;
		}
	}

	error = 0;
cleanup:
	free(dir_url);
	free(alt_dir);
	return error;
}

/*
 * The tree of the upstream tarballs into *root (which the caller frees): the
 * orig (or native) tarball, its single top directory stripped, then each
 * orig-<component> tarball as <component>/, as dpkg-source unpacks them.
 */
static int import_tarballs(struct tnode **root, int *native, struct import_state *st, const struct dsc *d,
			   const char *dsc_url, const char *source, const struct prov_srcimport_opts *o)
{
	char *component = NULL;
	size_t i;
	int error = 0, have_orig = 0;

	*root = tnode_new("", 0, GIT_FILEMODE_TREE);
	/* The orig tarball first, then its components, as dpkg-source does. */
	for (i = 0; i < d->nfiles; i++) {
		enum dsc_kind k = classify(d->files[i].name, source, &component);
		free(component);
		component = NULL;
		if (k == DSC_ORIG || k == DSC_NATIVE) {
			struct tnode *t = tnode_new("", 0, GIT_FILEMODE_TREE), *top;

			if (have_orig) {
				tnode_free(t);
				error = prov_error_set(PROV_EINPUT, "'%s' lists more than one main tarball", dsc_url);
				goto cleanup;
			}
			error = import_download(t, st, d->files[i].path, d->files[i].url, o);
			if (error < 0) {
				tnode_free(t);
				goto cleanup;
			}
			/* Keep the stripped directory's contents as the root. */
			top = tnode_strip_top(t);
			if (top != t) {
				t->n = 0;
				tnode_free(t);
				free(top->name);
				top->name = prov_xstrdup("");
				t = top;
			}
			tnode_free(*root);
			*root = t;
			have_orig = 1;
			*native = k == DSC_NATIVE;
		}
	}
	if (!have_orig) {
		error = prov_error_set(PROV_EINPUT, "'%s' lists no .orig.tar or native tarball", dsc_url);
		goto cleanup;
	}
	for (i = 0; i < d->nfiles; i++) {
		enum dsc_kind k = classify(d->files[i].name, source, &component);
		struct tnode *t, *top;

		if (k == DSC_COMPONENT) {
			t = tnode_new("", 0, GIT_FILEMODE_TREE);
			error = import_download(t, st, d->files[i].path, d->files[i].url, o);
			if (error < 0) {
				tnode_free(t);
				goto cleanup;
			}
			top = tnode_strip_top(t);
			if (top != t)
				t->n = 0;
			else
				t = NULL;
			tnode_free(t);
			free(top->name);
			top->name = component;
			component = NULL;
			tnode_free(tnode_take(*root, top->name));
			tnode_add(*root, top);
		}
		free(component);
		component = NULL;
	}
	error = 0;
cleanup:
	free(component);
	return error;
}

int prov_srcimport_debian(char **out_repo, char **out_commit, int *out_npatches,
			  const char *base_url, const char *source, const char *version,
			  const struct prov_srcimport_opts *o)
{
	struct import_run r = IMPORT_RUN_INIT;
	struct dsc d = { 0 };
	struct prov_buf text = PROV_BUF_INIT;
	struct tnode *root = NULL, *deb = NULL;
	char *name = NULL, *refname = NULL, *dsc_path = NULL, *dsc_url = NULL;
	char *msg = NULL, *component = NULL;
	char dsc_sha[2 * PROV_SHA256_LEN + 1];
	git_oid upstream_tree, upstream_commit, tree_oid, commit_oid;
	size_t i;
	int error, empty = 0, npatches = 0, native = 0, have_debian = 0;

	prov_git_init_once();	/* version_refname asks libgit2 */
	if (!valid_source_name(source)) {
		error = prov_error_set(PROV_EINPUT, "'%s' is not a Debian source package name", source);
		goto cleanup;
	}
	if (!valid_version(version)) {
		error = prov_error_set(PROV_EINPUT, "'%s' is not a Debian version", version);
		goto cleanup;
	}
	if ((error = version_refname(&refname, source, version)) < 0)
		goto cleanup;
	name = prov_xasprintf("debian-%s", source);
	if ((error = import_begin(&r, o, name, refname, &npatches)) < 0)
		goto cleanup;
	if (error == 1)
		goto done;
	if ((error = fetch_verified(&d, &text, &dsc_path, &dsc_url, base_url, source, version, o,
				    &r.stats)) < 0)
		goto cleanup;
	r.t0 = prov_now_ms();
	if ((error = import_tarballs(&root, &native, &r.st, &d, dsc_url, source, o)) < 0)
		goto cleanup;
	if ((error = tnode_write(&upstream_tree, &empty, r.ir.repo, root)) < 0)
		goto cleanup;
	/* Contents, not URLs: the same package from any mirror is the same commit. */
	prov_sha256_hex(dsc_sha, text.buf, text.len);
	msg = prov_xasprintf("Import %s %s (%s)\n\nSource: %s\nVersion: %s\nDsc-Sha256: %s\n",
			     source, version, native ? "native source" : "upstream tarballs",
			     source, version, dsc_sha);
	if ((error = si_commit_tree(&upstream_commit, r.ir.repo, &upstream_tree, NULL, msg)) < 0)
		goto cleanup;
	commit_oid = upstream_commit;

	if (!native) {
		for (i = 0; i < d.nfiles; i++) {
			enum dsc_kind k = classify(d.files[i].name, source, &component);
			free(component);
			component = NULL;
			if (k != DSC_DEBIAN)
				continue;
			if (have_debian) {
				error = prov_error_set(PROV_EINPUT, "'%s' lists more than one debian tarball", dsc_url);
				goto cleanup;
			}
			deb = tnode_new("", 0, GIT_FILEMODE_TREE);
			if ((error = import_download(deb, &r.st, d.files[i].path, d.files[i].url, o)) < 0)
				goto cleanup;
			have_debian = 1;
		}
		if (!have_debian) {
			error = prov_error_set(PROV_EINPUT, "'%s' (format %s) lists no .debian.tar", dsc_url, d.format);
			goto cleanup;
		}
		{
			struct tnode *debdir = tnode_take(deb, "debian");
			if (!debdir || debdir->mode != GIT_FILEMODE_TREE) {
				tnode_free(debdir);
				error = prov_error_set(PROV_EINPUT, "the debian tarball of '%s' has no debian/ directory",
						       dsc_url);
				goto cleanup;
			}
			if (deb->n)
				prov_warn("the debian tarball of '%s' has entries outside debian/: ignored", dsc_url);
			/* dpkg-source replaces an upstream debian/ directory. */
			tnode_free(tnode_take(root, "debian"));
			tnode_add(root, debdir);
		}
		if ((error = tnode_write(&tree_oid, &empty, r.ir.repo, root)) < 0 ||
		    (error = si_apply_series(&npatches, &tree_oid, &r.st)) < 0)
			goto cleanup;
		free(msg);
		msg = prov_xasprintf("Debian source %s %s with %d patch%s\n\nSource: %s\nVersion: %s\nDsc-Sha256: %s\nPatches-Applied: %d\n",
				     source, version, npatches, npatches == 1 ? "" : "es", source, version,
				     dsc_sha, npatches);
		if ((error = si_commit_tree(&commit_oid, r.ir.repo, &tree_oid, &upstream_commit, msg)) < 0)
			goto cleanup;
	}
	if ((error = import_record(&r, refname, &commit_oid, "provenance: import Debian source")) < 0)
		goto cleanup;
done:
	import_hand_out(&r, out_repo, out_commit);
	if (out_npatches)
		*out_npatches = npatches;
	error = 0;
cleanup:
	import_run_release(&r, o);
	tnode_free(root);
	tnode_free(deb);
	dsc_release(&d);
	prov_buf_release(&text);
	free(name);
	free(refname);
	free(dsc_path);
	free(dsc_url);
	free(msg);
	free(component);
	return error;
}
