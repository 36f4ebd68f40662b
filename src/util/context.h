#ifndef PROV_CONTEXT_H
#define PROV_CONTEXT_H

struct prov_config;

/*
 * What a run knows before it reads its input, set up once by the command
 * layer (src/cli/main.c) and passed down read-only to every layer that
 * needs configuration, the cache or the network policy.
 */
struct prov_ctx {
	struct prov_config *config;	/* config file + -c overrides */
	const char *cache_opt;	/* --cache DIR, or NULL */
	char *cache_dir;	/* resolved: --cache, $PROVENANCE_CACHE, $XDG_CACHE_HOME/provenance */
	int verbose;
	int offline;	/* --offline: never touch the network (the cache and the disk only) */
	int include_prereleases;	/* --include-prereleases: a first release may be a pre-release tag */
};

#endif
