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

static void mapping_release(struct prov_mapping *p)
{
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
};

static struct prov_mapping *item_for(struct load_state *st, const char *name, size_t len)
{
	struct prov_mappings *m = st->m;
	struct prov_mapping *p;
	size_t i;

	for (i = st->first; i < m->n; i++)
		if (strlen(m->items[i].name) == len && !strncmp(m->items[i].name, name, len))
			return &m->items[i];
	if (m->n - st->first >= PROV_MAPPING_MAX_ITEMS) {
		st->error = prov_error_set(PROV_ELIMIT, "mapping file '%s' has more than %d components",
					   st->path, PROV_MAPPING_MAX_ITEMS);
		return NULL;
	}
	PROV_ALLOC_GROW(m->items, m->n + 1, m->alloc);
	p = &m->items[m->n++];
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
	if (!(p = item_for(st, first + 1, (size_t)(last - first - 1))))
		return st->error;
	key = last + 1;
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
			error = set_single(st, &p->repo, key, p->name, v);
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
	struct load_state st = { m, m->n, path, 0 };
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
