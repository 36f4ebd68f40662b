/* provenance env: the components installed on a system, with versions and commits. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "error.h"
#include "derive.h"
#include "mapping.h"
#include "sources.h"
#include "util.h"
#include "cache.h"
#include "resolve.h"
#include "image.h"
#include "banned.h"

/* The command table's entry: name, usage line and description (main.c lists it). */
const struct cmd cmd_env_def = {
	"env", cmd_env, 0,
	"env [--sysroot DIR|IMAGE] [--format text|markdown|json] [--mapping FILE]...\n"
	"                  [--fetch | --offline]",
	"the components installed on a system, with versions and commits"
};

static const char env_help[] =
	"List the components a crash report would care about on a system (the host,\n"
	"or an unpacked container image): pip distributions, dpkg/rpm packages that\n"
	"ship shared libraries, conda packages, ROCm/CUDA trees, git working trees\n"
	"under /opt, /workspace and /src. Sorted by name.\n"
	"\n"
	"   --sysroot DIR   the system's root (default /), or an image: oci:DIR[:TAG],\n"
	"                   oci-archive:FILE, docker-archive:FILE, squashfs:FILE,\n"
	"                   sif:FILE or such a file\n"
	"   --format FMT    text (default), markdown or json\n"
	"   --mapping FILE  extra component mappings (repeatable); JSON gives each\n"
	"                   package's upstream component, repository and ref\n"
	"   --fetch         fetch the mirrors that are missing (network)\n"
	"   --offline       never fetch (the default)\n"
	"\n"
	"A package that a mapping names is shown under its component's name, as\n"
	"'provenance resolve' does, and its Git Hash is the mapping's ref resolved in\n"
	"the component's repository: a mirror already in the cache, or a local or\n"
	"file:// upstream (url.<base>.insteadOf applies); with --fetch, missing\n"
	"mirrors are fetched first (a whole system's upstreams can be large).\n"
	"A package no mapping names shows the repository its own metadata names\n"
	"(DEP-5 Source:, pip Project-URL, conda about.json, rpm URL), found_by\n"
	"'derived:...'; its ref is a tag the version names, only when found in a\n"
	"mirror (fetched only with --fetch and fetch.trustSystemUrls = true).\n"
	"\n"
	"exit codes: 0 done, 2 the sysroot does not exist or a mapping is bad, 64 usage\n";

static void map_origins(struct prov_env_map *out, struct prov_origin **v, size_t n,
			const struct prov_mappings *maps)
{
	struct prov_buf ref = PROV_BUF_INIT;
	struct prov_mapping view;
	char *mver = NULL;
	size_t i, k;

	for (i = 0; i < n; i++) {
		const struct prov_mapping *m = prov_mappings_match(maps, NULL, v[i]);

		memset(&out[i], 0, sizeof(out[i]));
		/* a URL the system recorded with its commit (git remote, pip VCS
		 * install) is shown as before (repo = vcs_url); the others are derived */
		if (!m && v[i]->upstream_url && v[i]->upstream_by &&
		    strcmp(v[i]->upstream_by, "derived:git-remote") != 0 &&
		    strcmp(v[i]->upstream_by, "derived:direct-url") != 0) {
			/* derived: the ref is a tag found in the repository, or none */
			out[i].repo = v[i]->upstream_url;
			out[i].derived = 1;
			if (v[i]->commit && !strcmp(v[i]->upstream_by, "go-buildinfo"))
				out[i].commit_is = v[i]->commit_approximate ? "approximate" : "exact";
			continue;
		}
		if (!m)
			continue;
		free(mver);
		mver = prov_mapping_version(m, v[i]->version);
		prov_mapping_select(&view, m, mver);
		out[i].component = m->name;
		out[i].repo = view.repo;
		if (v[i]->commit)
			out[i].commit_is = "exact";	/* recorded by the system */
		for (k = 0; k < view.nrefs; k++)
			if (prov_mapping_expand_ref(&ref, view.refs[k], mver) == 0) {
				out[i].literal = !strchr(view.refs[k], '{');
				out[i].names = prov_ref_names_version(ref.buf, mver);
				out[i].ref = prov_xstrdup(ref.buf);
				break;
			}
	}
	free(mver);
	prov_error_clear();
	prov_buf_release(&ref);
}

/*
 * A derived upstream's tag: the version's spellings looked up in the mirror
 * (fetched only with --fetch and fetch.trustSystemUrls); nothing when the
 * mirror is missing.
 */
static void derived_tag(struct prov_origin *o, struct prov_env_map *m, const struct prov_sources_opts *so)
{
	struct prov_repo *repo = NULL;
	char **cands = NULL, *tag = NULL, *hex = NULL;
	size_t ncands = 0;

	if (prov_tag_candidates(&cands, &ncands, o->source ? o->source : o->name, m->repo,
				o->version) < 0)
		goto cleanup;
	if (prov_derive_open(&repo, m->repo, cands, ncands, so->ctx) < 0)
		goto cleanup;
	if (prov_tag_match(&tag, &hex, repo, cands, ncands) == 0) {
		m->ref = tag;
		o->commit = hex;
		tag = hex = NULL;
	}
cleanup:
	prov_error_clear();
	prov_repo_free(repo);
	prov_tag_candidates_free(cands, ncands);
	free(tag);
	free(hex);
}

/* The Git Hash of mapped packages: the mapping's ref in the component's repository. */
static void fill_commits(struct prov_origin **v, size_t n, struct prov_env_map *map,
			 const struct prov_ctx *g)
{
	struct prov_sources_opts so = { g };
	const char **failed = prov_xcalloc(n + 1, sizeof(*failed));
	size_t i, k, nfailed = 0;

	for (i = 0; i < n; i++) {
		struct prov_repo *repo = NULL;
		const char *want;
		char *hex = NULL;
		int skip = 0;

		if (map[i].derived && !v[i]->commit) {
			derived_tag(v[i], &map[i], &so);
			continue;
		}
		if (v[i]->commit || !map[i].repo || !map[i].ref)
			continue;
		for (k = 0; k < nfailed; k++)
			if (!strcmp(failed[k], map[i].repo))
				skip = 1;
		if (skip)
			continue;
		want = map[i].ref;
		if (prov_sources_open(&repo, map[i].repo, &want, 1, 0, &so) < 0) {
			/* offline, a missing mirror is the normal case: no warning */
			if (!g->offline || prov_error_last_code() != PROV_ENOTFOUND)
				prov_warn("%s: no Git Hash for %s: %s", map[i].component, v[i]->name,
					  prov_error_last());
			failed[nfailed++] = map[i].repo;
			continue;
		}
		if (prov_repo_resolve(&hex, repo, map[i].ref) == 0) {
			v[i]->commit = hex;
			/* as resolve: only a tag that names the version is the deployed commit */
			if (prov_repo_is_tag(repo, map[i].ref))
				map[i].found_by = map[i].literal || map[i].names ?
						  "mapping:tag" : "mapping:guessed-tag";
			else
				map[i].found_by = prov_repo_is_branch(repo, map[i].ref) ?
						  "mapping:branch-tip" : "mapping:ref";
			map[i].commit_is = strcmp(map[i].found_by, "mapping:tag") ? "approximate" : "exact";
		}
		prov_repo_free(repo);
	}
	free(failed);
	prov_error_clear();
}

int cmd_env(int argc, char **argv, struct prov_ctx *g)
{
	static const struct option longopts[] = {
		{ "sysroot", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "mapping", required_argument, NULL, 'm' },
		{ "offline", no_argument, NULL, 'o' },
		{ "fetch", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct prov_resolve_ctx ctx;
	struct prov_cache *cache = NULL;
	struct prov_origin **v = NULL;
	struct prov_buf out = PROV_BUF_INIT;
	enum prov_format format = PROV_FORMAT_TEXT;
	const char *sysroot = NULL;
	struct prov_image image = { 0 };
	struct prov_env_root root;
	struct prov_mappings maps;
	struct prov_env_map *map = NULL;
	const char **mapping_files = prov_xcalloc((size_t)argc + 1, sizeof(*mapping_files));
	size_t n = 0, i, nmf = 0;
	int opt, err, rc, offline = 1;

	prov_mappings_init(&maps);

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			sysroot = optarg;
			break;
		case 'f':
			if (prov_cmd_parse_format(&format, optarg, "text|markdown|json") < 0) {
				rc = prov_cmd_usage_error(&cmd_env_def, "unknown format '%s'", optarg);
				goto out;
			}
			break;
		case 'm':
			mapping_files[nmf++] = optarg;
			break;
		case 'o':
			offline = 1;
			break;
		case 'F':
			offline = 0;
			break;
		case 'h':
			rc = prov_cmd_help(&cmd_env_def, env_help);
			goto out;
		case ':':
			rc = prov_cmd_usage_error(&cmd_env_def, "option '%s' needs a value", argv[optind - 1]);
			goto out;
		default:
			rc = prov_cmd_usage_error(&cmd_env_def, "unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (optind < argc) {
		rc = prov_cmd_usage_error(&cmd_env_def, "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if ((err = prov_cmd_open_sysroot(&image, &sysroot, g)) < 0) {
		rc = prov_cmd_fail(err);
		goto out;
	}

	if ((err = prov_mappings_load_all(&maps, mapping_files)) < 0)
		goto cleanup;
	if (g && g->cache_dir && prov_cache_open(&cache, g->cache_dir) < 0) {
		prov_warn("working without a cache: %s", prov_error_last());
		cache = NULL;
	}
	ctx.sysroot = sysroot;
	ctx.cache = cache;
	err = prov_inventory(&v, &n, &ctx);
	if (err < 0)
		goto cleanup;
	map = prov_xcalloc(n ? n : 1, sizeof(*map));
	map_origins(map, v, n, &maps);
	g->offline = offline;
	fill_commits(v, n, map, g);
	root.kind = image.kind;
	root.digest = image.digest;
	root.ref = image.ref;
	err = prov_report_env(&out, (const struct prov_origin *const *)v, map, n, format,
			      sysroot ? &root : NULL);
	if (err >= 0)
		err = prov_cmd_write(out.buf, out.len);
cleanup:
	rc = err < 0 ? prov_cmd_fail(err) : 0;
	for (i = 0; i < n; i++) {
		prov_origin_free(v[i]);
		if (map)
			free(map[i].ref);
	}
	free(v);
	free(map);
	prov_mappings_release(&maps);
out:
	free(mapping_files);
	prov_buf_release(&out);
	prov_cache_free(cache);
	prov_image_release(&image);
	return rc;
}
