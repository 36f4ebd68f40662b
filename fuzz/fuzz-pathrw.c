/*
 * libFuzzer target: path rewriting. The input is split on NUL bytes into
 * (file, comp_dir, path-prefix glob, substitute-path "FROM=TO", subdir,
 * repository URL); each rewrite result must be relative and free of "..".
 */
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "error.h"
#include "pathrw.h"
#include "common.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *f[6] = { NULL };
	size_t n = fuzz_split(f, 6, data, size);
	struct prov_config *cfg = prov_config_new();
	struct prov_pathrw_ctx ctx;
	char *prefixes[1], *repo_name = NULL, *arg = NULL;
	char *out = NULL, *rule = NULL;
	int subdir_paths;

	if (n < 1)
		goto cleanup;
	memset(&ctx, 0, sizeof(ctx));
	if (n > 3 && f[3][0]) {
		arg = prov_xasprintf("substitute-path.%s", f[3]);
		prov_config_add_arg(cfg, arg);
	}
	ctx.config = cfg;
	if (n > 2 && f[2][0]) {
		prefixes[0] = f[2];
		ctx.path_prefixes = prefixes;
		ctx.npath_prefixes = 1;
	}
	if (n > 5)
		repo_name = prov_pathrw_repo_name(f[5]);
	ctx.repo_name = repo_name;
	for (subdir_paths = 0; subdir_paths < 2; subdir_paths++) {
		ctx.subdir = n > 4 && f[4][0] ? f[4] : NULL;
		ctx.subdir_paths = subdir_paths && ctx.subdir;
		if (prov_pathrw_rewrite(&out, &rule, f[0], n > 1 && f[1][0] ? f[1] : NULL,
					&ctx) == 0) {
			if (!out || !rule)
				__builtin_trap();
			/* the contract: relative, never climbing out of the repository */
			if (out[0] == '/' || !strcmp(out, "..") || prov_starts_with(out, "../"))
				__builtin_trap();
			free(out);
			free(rule);
			out = rule = NULL;
		}
	}
cleanup:
	free(repo_name);
	free(arg);
	prov_config_free(cfg);
	fuzz_fields_free(f, n);
	prov_error_clear();
	return 0;
}
