/* Mapping files: which package comes from which repository, how a version becomes a ref. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfgparse.h"
#include "error.h"
#include "mapping.h"
#include "pathrw.h"
#include "sources.h"
#include "sources-git.h"
#include "util.h"
#include "banned.h"

void prov_mappings_init(struct prov_mappings *m)
{
	memset(m, 0, sizeof(*m));
}

static void free_list(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void variant_release(struct prov_mapping_variant *v)
{
	free(v->range);
	free_list(v->ops, v->nbounds);
	free_list(v->bounds, v->nbounds);
	free(v->repo);
	free(v->subdir);
	free_list(v->refs, v->nrefs);
	free_list(v->path_prefixes, v->npath_prefixes);
}

static void mapping_release(struct prov_mapping *p)
{
	size_t i;

	for (i = 0; i < p->nvariants; i++)
		variant_release(&p->variants[i]);
	free(p->variants);
	free(p->name);
	free_list(p->libraries, p->nlibraries);
	free_list(p->packages, p->npackages);
	free(p->repo);
	free(p->archive);
	free(p->debian_source);
	free(p->subdir);
	free_list(p->refs, p->nrefs);
	free_list(p->path_prefixes, p->npath_prefixes);
	free(p->file);
	memset(p, 0, sizeof(*p));
}

void prov_mappings_release(struct prov_mappings *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		mapping_release(&m->items[i]);
	free(m->items);
	memset(m, 0, sizeof(*m));
}

const struct prov_mapping *prov_mappings_find(const struct prov_mappings *m,
					      const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->items[i].name, name))
			return &m->items[i];
	return NULL;
}

/* For file:// URLs and local paths: the path on disk, else NULL. */
static const char *local_path_of(const char *url)
{
	if (!strncasecmp(url, "file://", 7))
		return url + 7;
	if (strstr(url, "://"))
		return NULL;
	return url;
}

static int is_git_repository(const char *path)
{
	git_repository *r = NULL;
	int ok;

	prov_git_init_once();
	ok = git_repository_open_ext(&r, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0;
	git_repository_free(r);
	return ok;
}

struct load_state {
	struct prov_mappings *m;
	size_t first;	/* index of the first item from this file */
	const char *path;
	int error;
	size_t last;	/* the item of the previous entry + 1 (a section's entries come together); 0: none */
};

static struct prov_mapping *item_for(struct load_state *st, const char *name, size_t len)
{
	struct prov_mappings *m = st->m;
	struct prov_mapping *p;
	size_t i;

	if (st->last && !strncmp(m->items[st->last - 1].name, name, len) &&
	    !m->items[st->last - 1].name[len])
		return &m->items[st->last - 1];
	for (i = st->first; i < m->n; i++)
		if (!strncmp(m->items[i].name, name, len) && !m->items[i].name[len]) {
			st->last = i + 1;
			return &m->items[i];
		}
	if (m->n - st->first >= PROV_MAPPING_MAX_ITEMS) {
		st->error = prov_error_set(PROV_ELIMIT, "mapping file '%s' has more than %d components",
					   st->path, PROV_MAPPING_MAX_ITEMS);
		return NULL;
	}
	PROV_ALLOC_GROW(m->items, m->n + 1, m->alloc);
	p = &m->items[m->n++];
	st->last = m->n;
	memset(p, 0, sizeof(*p));
	p->name = prov_xstrndup(name, len);
	p->file = prov_xstrdup(st->path);
	return p;
}

static int add_value(struct load_state *st, char ***list, size_t *n, const char *key,
		     const char *name, const char *value)
{
	if (*n >= PROV_MAPPING_MAX_VALUES)
		return prov_error_set(PROV_ELIMIT, "mapping file '%s': too many '%s' values in component '%s'",
				      st->path, key, name);
	*list = prov_xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = prov_xstrdup(value);
	return 0;
}

static int set_single(struct load_state *st, char **field, const char *key,
		      const char *name, const char *value)
{
	if (*field)
		prov_warn("mapping file '%s': component '%s' sets '%s' twice; the last one wins",
			  st->path, name, key);
	free(*field);
	*field = prov_xstrdup(value);
	return 0;
}

/* A repo URL without its userinfo: credentials go in url.<base>.insteadOf, never the model. */
static int set_repo(struct load_state *st, char **field, const char *name, const char *value)
{
	char *clean = prov_url_strip_userinfo(prov_xstrdup(value));
	int error = set_single(st, field, "repo", name, clean);

	free(clean);
	return error;
}

static int check_subdir(struct load_state *st, const char *name, const char *v)
{
	const char *p = v;

	if (*v == '/' || !*v)
		return prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': subdir '%s' must be a relative path inside the repository",
				      st->path, name, v);
	while (*p) {
		const char *e = strchr(p, '/');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == 2 && p[0] == '.' && p[1] == '.')
			return prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': subdir '%s' must not contain '..'",
					      st->path, name, v);
		p += l;
		while (*p == '/')
			p++;
	}
	return 0;
}

/* A dotted number ("5.6", "7", "6.1.0"): at most 4 parts of at most 9 digits. */
static int bound_ok(const char *s, size_t n)
{
	size_t i, digits = 0, parts = 1;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (!digits || ++parts > 4)
				return 0;
			digits = 0;
		} else if (s[i] >= '0' && s[i] <= '9') {
			if (++digits > 9)
				return 0;
		} else {
			return 0;
		}
	}
	return digits > 0;
}

/* Parse ">=5.6,<7" into v->ops/bounds; PROV_EINPUT naming the file otherwise. */
static int parse_range(struct prov_mapping_variant *v, const char *range, const char *file,
		       const char *name)
{
	const char *p = range;

	if (!*range)
		goto bad;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p), ol;

		while (n && *p == ' ') {
			p++;
			n--;
		}
		while (n && p[n - 1] == ' ')
			n--;
		ol = n >= 2 && (p[1] == '=') && (p[0] == '<' || p[0] == '>') ? 2 :
		     n >= 1 && (p[0] == '<' || p[0] == '>' || p[0] == '=') ? 1 : 0;
		if (!ol || !bound_ok(p + ol, n - ol) || v->nbounds >= 8)
			goto bad;
		v->ops = prov_xrealloc(v->ops, (v->nbounds + 1) * sizeof(*v->ops));
		v->bounds = prov_xrealloc(v->bounds, (v->nbounds + 1) * sizeof(*v->bounds));
		v->ops[v->nbounds] = prov_xstrndup(p, ol);
		v->bounds[v->nbounds++] = prov_xstrndup(p + ol, n - ol);
		if (!e)
			break;
		p = e + 1;
		if (!*p)
			goto bad;
	}
	return 0;
bad:
	return prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': version range '%.64s' is not like '>=5.6,<7' (comparisons >= > <= < = of dotted numbers, comma-separated)",
			      file, name, range);
}

static int check_subdir(struct load_state *st, const char *name, const char *v);

/* One key of a [component "NAME@RANGE"] section. */
static int variant_entry(struct load_state *st, struct prov_mapping *p, const char *range,
			 const char *key, const char *value, const char *v)
{
	struct prov_mapping_variant *var = NULL;
	size_t i;
	int error;

	for (i = 0; i < p->nvariants; i++)
		if (!strcmp(p->variants[i].range, range))
			var = &p->variants[i];
	if (!var) {
		struct prov_mapping_variant tmp;

		if (p->nvariants >= 64)
			return prov_error_set(PROV_ELIMIT, "mapping file '%s': component '%s' has more than 64 version ranges",
					      st->path, p->name);
		memset(&tmp, 0, sizeof(tmp));
		if ((error = parse_range(&tmp, range, st->path, p->name)) < 0) {
			variant_release(&tmp);
			return error;
		}
		tmp.range = prov_xstrdup(range);
		p->variants = prov_xrealloc(p->variants, (p->nvariants + 1) * sizeof(*p->variants));
		p->variants[p->nvariants++] = tmp;
		var = &p->variants[p->nvariants - 1];
	}
	if (!strcmp(key, "ref"))
		return add_value(st, &var->refs, &var->nrefs, key, p->name, v);
	if (!strcmp(key, "path-prefix")) {
		if (!prov_pathrw_glob_ok(v))
			return prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': path-prefix glob '%.64s' has more than %d '*' or %d bytes",
					      st->path, p->name, v, PROV_PATHRW_MAX_STARS, PROV_PATHRW_MAX_GLOB);
		return add_value(st, &var->path_prefixes, &var->npath_prefixes, key, p->name, v);
	}
	if (!strcmp(key, "repo")) {
		if (!prov_url_scheme_ok(v))
			return prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': repo '%s' is not an https, http, ssh, git or file URL or a local path",
					      st->path, p->name, v);
		return set_repo(st, &var->repo, p->name, v);
	}
	if (!strcmp(key, "subdir")) {
		char *norm;
		size_t l;

		if ((error = check_subdir(st, p->name, v)) < 0)
			return error;
		norm = prov_path_normalize(v);
		l = strlen(norm);
		while (l > 1 && norm[l - 1] == '/')
			norm[--l] = '\0';
		error = set_single(st, &var->subdir, key, p->name, norm);
		free(norm);
		return error;
	}
	if (!strcmp(key, "subdir-paths")) {
		const char *bv = value ? v : "true";

		var->has_subdir_paths = 1;
		if (!strcasecmp(bv, "true") || !strcasecmp(bv, "yes") || !strcasecmp(bv, "on") ||
		    !strcmp(bv, "1"))
			var->subdir_paths = 1;
		else if (!strcasecmp(bv, "false") || !strcasecmp(bv, "no") ||
			 !strcasecmp(bv, "off") || !strcmp(bv, "0") || !*bv)
			var->subdir_paths = 0;
		else
			return prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': subdir-paths '%s' is not a boolean",
					      st->path, p->name, v);
		return 0;
	}
	return prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s@%s': '%s' cannot depend on the version (only repo, subdir, subdir-paths, ref, path-prefix)",
			      st->path, p->name, range, key);
}

static int entry_cb(const char *name, const char *value, size_t line, void *data)
{
	struct load_state *st = data;
	const char *n = name, *v = value ? value : "";
	const char *first, *last, *key;
	struct prov_mapping *p;
	int error = 0;

	first = strchr(n, '.');
	last = strrchr(n, '.');
	if (!first || first == last || strncmp(n, "component.", 10) != 0) {
		prov_warn("mapping file '%s': ignoring '%s' (not in a [component \"NAME\"] section)",
			  st->path, n);
		return 0;
	}
	if (strlen(v) > PROV_MAPPING_MAX_VALUE) {
		st->error = prov_error_set(PROV_ELIMIT, "mapping file '%s': value of '%s' is longer than %d bytes",
					   st->path, n, PROV_MAPPING_MAX_VALUE);
		return st->error;
	}
	if (last - first - 1 > 256) {
		st->error = prov_error_set(PROV_ELIMIT, "mapping file '%s': component name longer than 256 bytes",
					   st->path);
		return st->error;
	}
	{
		const char *sub = first + 1, *at = memchr(sub, '@', (size_t)(last - sub));

		if (!(p = item_for(st, sub, at ? (size_t)(at - sub) : (size_t)(last - sub))))
			return st->error;
		key = last + 1;
		if (at) {
			char *range = prov_xstrndup(at + 1, (size_t)(last - at - 1));

			error = variant_entry(st, p, range, key, value, v);
			free(range);
			if (error < 0)
				st->error = error;
			return error;
		}
		p->has_base = 1;
	}
	if ((!strcmp(key, "library") || !strcmp(key, "path-prefix")) && !prov_pathrw_glob_ok(v)) {
		st->error = prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': %s glob '%.64s' has more than %d '*' or %d bytes",
					   st->path, p->name, key, v, PROV_PATHRW_MAX_STARS, PROV_PATHRW_MAX_GLOB);
		return st->error;
	}
	if (!strcmp(key, "library"))
		error = add_value(st, &p->libraries, &p->nlibraries, key, p->name, v);
	else if (!strcmp(key, "package"))
		error = add_value(st, &p->packages, &p->npackages, key, p->name, v);
	else if (!strcmp(key, "ref"))
		error = add_value(st, &p->refs, &p->nrefs, key, p->name, v);
	else if (!strcmp(key, "path-prefix"))
		error = add_value(st, &p->path_prefixes, &p->npath_prefixes, key, p->name, v);
	else if (!strcmp(key, "repo")) {
		if (!prov_url_scheme_ok(v))
			error = prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': repo '%s' is not an https, http, ssh, git or file URL or a local path",
					       st->path, p->name, v);
		else
			error = set_repo(st, &p->repo, p->name, v);
	} else if (!strcmp(key, "archive")) {
		if (!prov_starts_with(v, "https://") && !prov_starts_with(v, "http://") &&
		    !prov_starts_with(v, "file://"))
			error = prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': archive '%s' is not an https, http or file URL",
					       st->path, p->name, v);
		else
			error = set_single(st, &p->archive, key, p->name, v);
	} else if (!strcmp(key, "debian-source")) {
		if (!*v || strchr(v, '/'))
			error = prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': debian-source '%s' is not a source package name",
					       st->path, p->name, v);
		else
			error = set_single(st, &p->debian_source, key, p->name, v);
	} else if (!strcmp(key, "subdir")) {
		if (!(error = check_subdir(st, p->name, v))) {
			char *norm = prov_path_normalize(v);
			size_t l = strlen(norm);

			while (l > 1 && norm[l - 1] == '/')
				norm[--l] = '\0';
			error = set_single(st, &p->subdir, key, p->name, norm);
			free(norm);
		}
	} else if (!strcmp(key, "version-scheme")) {
		if (!strcmp(v, "rocm"))
			p->version_rocm = 1;
		else if (!strcmp(v, "plain"))
			p->version_rocm = 0;
		else
			error = prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': version-scheme '%s' is not 'rocm' or 'plain'",
					       st->path, p->name, v);
	} else if (!strcmp(key, "subdir-paths")) {
		const char *bv = value ? v : "true";
		int b = 0;

		/* the plain words without libgit2: it would have to be started
		 * (sources.h) for this on every run with the builtin mappings */
		if (!strcasecmp(bv, "true") || !strcasecmp(bv, "yes") || !strcasecmp(bv, "on"))
			p->subdir_paths = 1;
		else if (!strcasecmp(bv, "false") || !strcasecmp(bv, "no") ||
			 !strcasecmp(bv, "off") || !*bv)
			p->subdir_paths = 0;
		else {
			/* numbers as git reads them; its error needs a started libgit2 */
			prov_git_init_once();
			b = git_config_parse_bool(&p->subdir_paths, bv);
		}

		if (b < 0)
			error = prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': subdir-paths '%s' is not a boolean",
					       st->path, p->name, v);
	} else {
		prov_warn("mapping file '%s': component '%s': unknown key '%s' ignored",
			  st->path, p->name, key);
	}
	if (error < 0) {
		st->error = error;
		return error;
	}
	return 0;
}

static int prov_mappings_find_before(const struct prov_mappings *m, const char *name,
				     size_t end)
{
	size_t i;

	for (i = 0; i < end; i++)
		if (!strcmp(m->items[i].name, name))
			return 1;
	return 0;
}

int prov_mappings_load_file(struct prov_mappings *m, const char *path)
{
	struct prov_buf text = PROV_BUF_INIT;
	struct load_state st = { m, m->n, path, 0, 0 };
	size_t i, w;
	int error;

	if ((error = prov_read_file(&text, path, PROV_MAPPING_MAX_FILE)) < 0) {
		if (error == PROV_ELIMIT)
			error = prov_error_set(PROV_ELIMIT, "mapping file '%s' is larger than %zu bytes",
					       path, PROV_MAPPING_MAX_FILE);
		goto cleanup;
	}
	if (memchr(text.buf, '\0', text.len)) {
		error = prov_error_set(PROV_EINPUT, "mapping file '%s' is not a text file", path);
		goto cleanup;
	}
	/* our own parser, from memory: nothing else can be opened ([include] is refused) */
	if ((error = prov_cfg_parse(text.buf, text.len, "mapping file", path, entry_cb, &st)) < 0)
		goto cleanup;
	/* local repositories must be git repositories; file:///etc is not */
	for (i = st.first; i < m->n; i++) {
		const char *repo = m->items[i].repo, *lp;
		size_t k;

		if (m->items[i].nvariants && !m->items[i].has_base) {
			error = prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s' has version ranges ([component \"%s@%s\"]) but no [component \"%s\"] section",
					       path, m->items[i].name, m->items[i].name,
					       m->items[i].variants[0].range, m->items[i].name);
			goto cleanup;
		}
		for (k = 0; k < m->items[i].nvariants; k++) {
			const char *vr = m->items[i].variants[k].repo;

			if (vr && (lp = local_path_of(vr)) && !is_git_repository(lp)) {
				error = prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': repo '%s' is not a git repository",
						       path, m->items[i].name, vr);
				goto cleanup;
			}
		}

		if (repo && (lp = local_path_of(repo)) && !is_git_repository(lp)) {
			error = prov_error_set(PROV_EINPUT, "mapping file '%s': component '%s': repo '%s' is not a git repository",
					       path, m->items[i].name, repo);
			goto cleanup;
		}
	}
	/* earlier files win: drop components already defined before this file */
	for (i = w = st.first; i < m->n; i++) {
		if (prov_mappings_find_before(m, m->items[i].name, st.first)) {
			mapping_release(&m->items[i]);
			continue;
		}
		if (w != i)
			m->items[w] = m->items[i];
		w++;
	}
	m->n = w;
	error = 0;
cleanup:
	if (error < 0) {
		for (i = st.first; i < m->n; i++)
			mapping_release(&m->items[i]);
		m->n = st.first;
	}
	prov_buf_release(&text);
	return error;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int prov_mappings_load_dir(struct prov_mappings *m, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, alloc = 0, i;
	int error = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !prov_ends_with(de->d_name, ".map"))
			continue;
		if (n >= PROV_MAPPING_MAX_ITEMS)
			break;
		PROV_ALLOC_GROW(names, n + 1, alloc);
		names[n++] = prov_xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n && !error; i++)
		error = prov_mappings_load_file(m, names[i]);
	free_list(names, n);
	return error;
}

char *prov_mappings_shipped_dir(void)
{
	struct prov_buf exe = PROV_BUF_INIT;
	char *dir = NULL;
	struct stat st;
	ssize_t r;
	char tmp[4096];

	r = readlink("/proc/self/exe", tmp, sizeof(tmp) - 1);
	if (r > 0) {
		char *slash;

		tmp[r] = '\0';
		prov_buf_puts(&exe, tmp);
		slash = strrchr(exe.buf, '/');
		if (slash) {
			prov_buf_setlen(&exe, (size_t)(slash - exe.buf));
			dir = prov_xasprintf("%s/mappings", exe.buf);
			if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
				goto done;
			free(dir);
			/* installed as $(PREFIX)/bin: PROV_DATADIR, also when staged (DESTDIR) or moved */
			dir = prov_xasprintf("%s/../share/provenance/mappings", exe.buf);
			if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
				goto done;
			free(dir);
			dir = NULL;
		}
	}
#ifdef PROV_DATADIR
	dir = prov_xstrdup(PROV_DATADIR "/mappings");
#else
	dir = prov_xstrdup("/usr/local/share/provenance/mappings");
#endif
done:
	prov_buf_release(&exe);
	return dir;
}

int prov_mappings_load_all(struct prov_mappings *m, const char *const *files)
{
	char *dir = NULL;
	int error = 0;
	size_t i;

	for (i = 0; files && files[i]; i++) {
		struct stat st;

		if (stat(files[i], &st) < 0) {
			error = prov_error_set(PROV_EINPUT, "cannot read mapping file '%s': %s",
					       files[i], strerror(errno));
			goto cleanup;
		}
		if ((error = prov_mappings_load_file(m, files[i])) < 0)
			goto cleanup;
	}
	if ((dir = prov_config_mapping_dir()) && (error = prov_mappings_load_dir(m, dir)) < 0)
		goto cleanup;
	free(dir);
	dir = prov_mappings_shipped_dir();
	error = prov_mappings_load_dir(m, dir);
cleanup:
	free(dir);
	return error;
}

static int any_equal(char *const *list, size_t n, const char *s)
{
	size_t i;

	if (!s)
		return 0;
	for (i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

const struct prov_mapping *prov_mappings_match(const struct prov_mappings *m,
					       const char *module_path,
					       const struct prov_origin *origin)
{
	const char *base = module_path ? prov_basename(module_path) : NULL;
	size_t i, j;

	/* a library glob is more specific than a package: xla_extension.so inside the jaxlib wheel is XLA */
	if (base && strlen(base) > 255)
		base = NULL;	/* no file name is longer (NAME_MAX): do not let fnmatch chew on it */
	for (i = 0; base && *base && i < m->n; i++)
		for (j = 0; j < m->items[i].nlibraries; j++)
			if (fnmatch(m->items[i].libraries[j], base, 0) == 0)
				return &m->items[i];
	for (i = 0; origin && i < m->n; i++) {
		const struct prov_mapping *p = &m->items[i];

		if (any_equal(p->packages, p->npackages, origin->name) ||
		    any_equal(p->packages, p->npackages, origin->source))
			return p;
	}
	return NULL;
}

void prov_version_parts_release(struct prov_version_parts *p)
{
	free(p->upstream);
	free(p->major);
	free(p->minor);
	free(p->patch);
	memset(p, 0, sizeof(*p));
}

void prov_version_split(struct prov_version_parts *out, const char *version)
{
	const char *s = version ? version : "", *colon, *dash, *end, *p;
	size_t i;
	char **parts[3];

	memset(out, 0, sizeof(*out));
	/* epoch: digits followed by ':' */
	colon = strchr(s, ':');
	if (colon && colon > s) {
		for (p = s; p < colon && isdigit((unsigned char)*p); p++)
			;
		if (p == colon)
			s = colon + 1;
	}
	/* Debian/RPM revision: from the last '-' */
	dash = strrchr(s, '-');
	end = dash && dash > s ? dash : s + strlen(s);
	/* repacked Debian sources: "2.0+dfsg1", "1.2~ds" */
	for (p = s; p < end; p++)
		if ((*p == '+' || *p == '~' || *p == '.') &&
		    (!strncmp(p + 1, "dfsg", 4) || !strncmp(p + 1, "ds", 2))) {
			end = p;
			break;
		}
	out->upstream = prov_xstrndup(s, (size_t)(end - s));
	{
		char *rocm = NULL;

		/* ROCm's 6.1.40091.60100: the release is 6.1.0 */
		if (prov_rocm_version_decode(&rocm, out->upstream) == 0) {
			free(out->upstream);
			out->upstream = rocm;
		}
	}

	parts[0] = &out->major;
	parts[1] = &out->minor;
	parts[2] = &out->patch;
	p = out->upstream;
	for (i = 0; i < 3; i++) {
		const char *q = p;

		while (isdigit((unsigned char)*q))
			q++;
		*parts[i] = prov_xstrndup(p, (size_t)(q - p));
		if (q == p || *q != '.') {
			for (i++; i < 3; i++)
				*parts[i] = prov_xstrdup("");
			break;
		}
		p = q + 1;
	}
}

int prov_mapping_expand_ref(struct prov_buf *out, const char *tmpl, const char *version)
{
	struct prov_version_parts vp;
	const char *p = tmpl;
	int error = 0;

	prov_buf_reset(out);
	prov_version_split(&vp, version);
	while (*p) {
		const char *close, *val = NULL;
		size_t l;

		if (*p != '{') {
			if ((error = prov_buf_putc(out, *p++)) < 0)
				goto cleanup;
			continue;
		}
		if (!(close = strchr(p, '}'))) {
			error = prov_error_set(PROV_EINPUT, "unterminated placeholder in ref template '%s'", tmpl);
			goto cleanup;
		}
		l = (size_t)(close - p - 1);
		if (l == 7 && !strncmp(p + 1, "version", l))
			val = version;
		else if (l == 16 && !strncmp(p + 1, "upstream_version", l))
			val = vp.upstream;
		else if (l == 5 && !strncmp(p + 1, "major", l))
			val = vp.major;
		else if (l == 5 && !strncmp(p + 1, "minor", l))
			val = vp.minor;
		else if (l == 5 && !strncmp(p + 1, "patch", l))
			val = vp.patch;
		else {
			error = prov_error_set(PROV_EINPUT, "unknown placeholder '%.*s' in ref template '%s'",
					       (int)(l + 2), p, tmpl);
			goto cleanup;
		}
		if (!version || !val || !*val) {
			error = prov_error_set(PROV_EINPUT, "version '%s' has no value for '%.*s' in ref template '%s'",
					       version ? version : "(unknown)", (int)(l + 2), p, tmpl);
			goto cleanup;
		}
		if ((error = prov_buf_puts(out, val)) < 0)
			goto cleanup;
		p = close + 1;
	}
cleanup:
	prov_version_parts_release(&vp);
	return error;
}

int prov_rocm_version_decode(char **out, const char *version)
{
	unsigned long part[6], code;
	const char *p = version, *last = NULL;
	size_t n = 0, lastlen = 0;
	char *end;

	if (!version)
		return PROV_ENOTFOUND;
	/* numeric dot-separated parts up to the revision ('-') or the end */
	while (n < 6) {
		if (!isdigit((unsigned char)*p))
			return PROV_ENOTFOUND;
		last = p;
		part[n++] = strtoul(p, &end, 10);
		lastlen = (size_t)(end - p);
		p = end;
		if (*p != '.')
			break;
		p++;
	}
	if (*p && *p != '-' && *p != '~' && *p != '+')
		return PROV_ENOTFOUND;
	if (n != 4 || lastlen < 5 || lastlen > 6 || !last)
		return PROV_ENOTFOUND;
	code = part[n - 1];
	if (code / 10000 != part[0] || (code / 100) % 100 != part[1])
		return PROV_ENOTFOUND;
	*out = prov_xasprintf("%lu.%lu.%lu", part[0], part[1], code % 100);
	return 0;
}

/* -1, 0, 1 comparing dotted numbers a (first n chars) and b; missing parts are 0. */
static int cmp_dotted(const char *a, size_t an, const char *b)
{
	const char *ae = a + an;

	while (a < ae || *b) {
		unsigned long x = 0, y = 0;

		while (a < ae && isdigit((unsigned char)*a) && x < 1000000000UL)
			x = x * 10 + (unsigned long)(*a++ - '0');
		while (isdigit((unsigned char)*b) && y < 1000000000UL)
			y = y * 10 + (unsigned long)(*b++ - '0');
		if (x != y)
			return x < y ? -1 : 1;
		if (a < ae && *a == '.')
			a++;
		else
			a = ae;
		if (*b == '.')
			b++;
		else if (*b)
			break;
	}
	return 0;
}

int prov_version_in_range(const char *range, const char *version)
{
	struct prov_mapping_variant v;
	struct prov_version_parts vp;
	size_t i, vn = 0;
	int error, in = 1;

	memset(&v, 0, sizeof(v));
	if ((error = parse_range(&v, range, "(range)", "(range)")) < 0)
		goto cleanup;
	prov_version_split(&vp, version);
	while (vp.upstream[vn] && (isdigit((unsigned char)vp.upstream[vn]) ||
				   (vp.upstream[vn] == '.' && isdigit((unsigned char)vp.upstream[vn + 1]))))
		vn++;
	if (!version || !vn)
		in = 0;
	for (i = 0; in && i < v.nbounds; i++) {
		int c = cmp_dotted(vp.upstream, vn, v.bounds[i]);
		const char *op = v.ops[i];

		if (!strcmp(op, ">="))
			in = c >= 0;
		else if (!strcmp(op, ">"))
			in = c > 0;
		else if (!strcmp(op, "<="))
			in = c <= 0;
		else if (!strcmp(op, "<"))
			in = c < 0;
		else
			in = c == 0;
	}
	prov_version_parts_release(&vp);
	error = in;
cleanup:
	variant_release(&v);
	return error;
}

void prov_mapping_select(struct prov_mapping *out, const struct prov_mapping *m,
			 const char *version)
{
	size_t i;

	*out = *m;
	out->variant = NULL;
	for (i = 0; version && i < m->nvariants; i++) {
		const struct prov_mapping_variant *v = &m->variants[i];

		if (prov_version_in_range(v->range, version) != 1)
			continue;
		out->variant = v->range;
		if (v->repo) {
			/* another repository has its own layout: no subdir unless given */
			out->repo = v->repo;
			out->subdir = NULL;
			out->subdir_paths = 0;
		}
		if (v->subdir)
			out->subdir = v->subdir;
		if (v->has_subdir_paths)
			out->subdir_paths = v->subdir_paths;
		if (v->nrefs) {
			out->refs = v->refs;
			out->nrefs = v->nrefs;
		}
		if (v->npath_prefixes) {
			out->path_prefixes = v->path_prefixes;
			out->npath_prefixes = v->npath_prefixes;
		}
		break;
	}
	prov_error_clear();
}

int prov_ref_names_version(const char *ref, const char *version)
{
	struct prov_version_parts vp;
	const char *p;
	char *want;
	size_t n;
	int names = 0;

	if (!ref || !version)
		return 0;
	prov_version_split(&vp, version);
	n = strcspn(vp.upstream, "+");
	want = prov_xstrndup(vp.upstream, n);
	for (p = ref; n && (p = strstr(p, want)) && !names; p++) {
		const char *after = p + n;
		if (p > ref && isalnum((unsigned char)p[-1]) && !(p[-1] == 'v' && (p - 1 == ref ||
								   !isalnum((unsigned char)p[-2]))))
			continue;
		if (isdigit((unsigned char)*after) ||
		    (*after == '.' && isdigit((unsigned char)after[1])) || isalpha((unsigned char)*after))
			continue;
		names = 1;
	}
	free(want);
	prov_version_parts_release(&vp);
	return names;
}

char *prov_mapping_version(const struct prov_mapping *m, const char *version)
{
	unsigned long code = 0;
	const char *p = version, *end;
	size_t n = 0, lastlen = 0;

	if (!version)
		return NULL;
	if (!m || !m->version_rocm)
		return prov_xstrdup(version);
	/* the numeric dot-separated parts up to the revision */
	while (n < 8 && isdigit((unsigned char)*p)) {
		char *e;

		code = strtoul(p, &e, 10);
		lastlen = (size_t)(e - p);
		n++;
		p = e;
		if (*p != '.')
			break;
		p++;
	}
	end = p;
	if (n >= 3 && lastlen >= 5 && lastlen <= 6 && code / 10000 >= 1 &&
	    (!*end || *end == '-' || *end == '~' || *end == '+'))
		return prov_xasprintf("%lu.%lu.%lu", code / 10000, (code / 100) % 100, code % 100);
	return prov_xstrdup(version);
}
