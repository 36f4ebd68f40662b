#ifndef PROV_CONFIG_H
#define PROV_CONFIG_H

/* the config file is read whole into memory, at most this many bytes */
#define PROV_CONFIG_MAX_FILE ((size_t)1 << 20)

/*
 * Configuration in git-config syntax: $XDG_CONFIG_HOME/provenance/config
 * (default ~/.config/provenance/config), then every `-c KEY=VALUE` in
 * command-line order. Keys are "section.key" or "section.subsection.key";
 * section and key are case-insensitive (stored lower-case), the subsection
 * keeps its case, as in git. Later entries win for single-valued lookups.
 */
struct prov_config;

/* An empty configuration. */
struct prov_config *prov_config_new(void);
void prov_config_free(struct prov_config *cfg);	/* NULL-safe */

/*
 * Read a git-config file (libgit2's parser). A missing file is not an error;
 * a malformed one is PROV_EINPUT with the file and line in the message.
 */
int prov_config_read_file(struct prov_config *cfg, const char *path);

/* The default file path ($XDG_CONFIG_HOME or ~/.config); caller frees; NULL if no home. */
char *prov_config_default_path(void);
/* The user's mapping directory ($XDG_CONFIG_HOME/provenance/mappings); caller frees. */
char *prov_config_mapping_dir(void);

/* "key=value" from -c; a bare "key" means "true". PROV_EUSAGE when malformed. */
int prov_config_add_arg(struct prov_config *cfg, const char *arg);
/* Add one entry (key normalised as above). */
void prov_config_set(struct prov_config *cfg, const char *key, const char *value);

/* The last value of key, or NULL. */
const char *prov_config_get(const struct prov_config *cfg, const char *key);
/* git's boolean spelling; `def` when unset; -1 when set but not a boolean. */
int prov_config_get_bool(const struct prov_config *cfg, const char *key, int def);

/* Call fn for every entry whose key starts with `prefix`, in order. Stops on a non-zero return and returns it. */
int prov_config_foreach(const struct prov_config *cfg, const char *prefix,
			int (*fn)(const char *key, const char *value, void *data),
			void *data);

/*
 * Apply url.<base>.insteadOf: the longest matching insteadOf prefix of `url`
 * is replaced by its base. Returns a new string (the URL unchanged when no
 * rule matches). Caller frees.
 */
char *prov_config_rewrite_url(const struct prov_config *cfg, const char *url);

#endif
