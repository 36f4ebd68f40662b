/* The configuration file in git-config syntax, and -c KEY=VALUE overrides (config.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfgparse.h"
#include "config.h"
#include "error.h"
#include "util.h"
#include "banned.h"

struct entry {
	char *key;
	char *value;
};

struct prov_config {
	struct entry *entries;
	size_t n, alloc;
};

struct prov_config *prov_config_new(void)
{
	return prov_xcalloc(1, sizeof(struct prov_config));
}

void prov_config_free(struct prov_config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->n; i++) {
		free(cfg->entries[i].key);
		free(cfg->entries[i].value);
	}
	free(cfg->entries);
	free(cfg);
}

/* section and key lower-case; a middle subsection keeps its case */
static char *normalize_key(const char *key)
{
	char *k = prov_xstrdup(key);
	char *first = strchr(k, '.');
	char *last = strrchr(k, '.');
	char *p;

	for (p = k; *p && (!first || p < first); p++)
		*p = (char)tolower((unsigned char)*p);
	if (last)
		for (p = last; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	return k;
}

void prov_config_set(struct prov_config *cfg, const char *key, const char *value)
{
	struct entry *e;

	PROV_ALLOC_GROW(cfg->entries, cfg->n + 1, cfg->alloc);
	e = &cfg->entries[cfg->n++];
	e->key = normalize_key(key);
	e->value = prov_xstrdup(value ? value : "true");
}

int prov_config_add_arg(struct prov_config *cfg, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *key;

	key = eq ? prov_xstrndup(arg, (size_t)(eq - arg)) : prov_xstrdup(arg);
	if (!*key || !strchr(key, '.') || key[0] == '.' || key[strlen(key) - 1] == '.') {
		free(key);
		return prov_error_set(PROV_EUSAGE,
				      "bad config key in '-c %s': expected section.key=value",
				      arg);
	}
	prov_config_set(cfg, key, eq ? eq + 1 : "true");
	free(key);
	return 0;
}

static int copy_entry(const char *name, const char *value, size_t line, void *data)
{
	/*
	 * A path cannot be a key in a file: [substitute-path "FROM"] to = TO
	 * is the file's spelling of -c substitute-path.FROM=TO.
	 */
	if (!value)
		value = "true";
	if (prov_starts_with(name, "substitute-path.") && prov_ends_with(name, ".to") &&
	    strlen(name) > strlen("substitute-path..to")) {
		char *key = prov_xstrndup(name, strlen(name) - 3);

		prov_config_set(data, key, value);
		free(key);
		return 0;
	}
	prov_config_set(data, name, value);
	return 0;
}

int prov_config_read_file(struct prov_config *cfg, const char *path)
{
	struct prov_buf text = PROV_BUF_INIT;
	struct stat st;
	int error;

	if (stat(path, &st) < 0 && errno == ENOENT)
		return 0;
	/* a regular file only (never a FIFO or a device), parsed from memory: no includes */
	if ((error = prov_read_file(&text, path, PROV_CONFIG_MAX_FILE)) < 0)
		goto cleanup;
	if (memchr(text.buf, '\0', text.len)) {
		error = prov_error_set(PROV_EINPUT, "config '%s' is not a text file", path);
		goto cleanup;
	}
	error = prov_cfg_parse(text.buf, text.len, "config", path, copy_entry, cfg);
cleanup:
	prov_buf_release(&text);
	return error;
}

static char *xdg_dir(const char *suffix)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg)
		return prov_xasprintf("%s/provenance/%s", xdg, suffix);
	if (home && *home)
		return prov_xasprintf("%s/.config/provenance/%s", home, suffix);
	return NULL;
}

char *prov_config_default_path(void)
{
	return xdg_dir("config");
}

char *prov_config_mapping_dir(void)
{
	return xdg_dir("mappings");
}

const char *prov_config_get(const struct prov_config *cfg, const char *key)
{
	char *k = normalize_key(key);
	const char *v = NULL;
	size_t i;

	for (i = cfg->n; i-- > 0;)
		if (strcmp(cfg->entries[i].key, k) == 0) {
			v = cfg->entries[i].value;
			break;
		}
	free(k);
	return v;
}

int prov_config_get_bool(const struct prov_config *cfg, const char *key, int def)
{
	const char *v = prov_config_get(cfg, key);

	if (!v)
		return def;
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") ||
	    !strcmp(v, "1"))
		return 1;
	if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off") ||
	    !strcmp(v, "0") || !*v)
		return 0;
	return -1;
}

int prov_config_foreach(const struct prov_config *cfg, const char *prefix,
			int (*fn)(const char *key, const char *value, void *data),
			void *data)
{
	size_t i, n = strlen(prefix);
	int r;

	for (i = 0; i < cfg->n; i++)
		if (strncasecmp(cfg->entries[i].key, prefix, n) == 0 &&
		    (r = fn(cfg->entries[i].key, cfg->entries[i].value, data)) != 0)
			return r;
	return 0;
}

char *prov_config_rewrite_url(const struct prov_config *cfg, const char *url)
{
	const char *best_base = NULL;
	size_t best_len = 0, i;

	for (i = 0; i < cfg->n; i++) {
		const char *k = cfg->entries[i].key, *v = cfg->entries[i].value;
		size_t vl = strlen(v);

		if (!prov_starts_with(k, "url.") || !prov_ends_with(k, ".insteadof"))
			continue;
		if (vl && strncmp(url, v, vl) == 0 && vl > best_len) {
			best_len = vl;
			best_base = k;
		}
	}
	if (!best_base)
		return prov_xstrdup(url);
	{
		/* key is url.<base>.insteadof */
		size_t bl = strlen(best_base) - strlen("url.") - strlen(".insteadof");

		return prov_xasprintf("%.*s%s", (int)bl, best_base + 4, url + best_len);
	}
}
