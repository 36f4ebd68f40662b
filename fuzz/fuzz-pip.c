/*
 * libFuzzer target: any bytes as a pip RECORD file and as METADATA /
 * PKG-INFO headers, and as the metadata an upstream is derived from:
 * METADATA's Project-URL, a DEP-5 copyright header, a conda about.json,
 * one URL.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "kit-python.h"
#include "kit-upstream.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_path(const char *path, void *data)
{
	size_t *n = data;

	/* touch every byte, so ASan sees a path that is not terminated */
	*n += strlen(path);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nbad = 0, total = 0;
	char *name = NULL, *version = NULL;

	prov_pip_record_foreach((const char *)data, size, &nbad, count_path, &total);
	prov_pip_metadata(&name, &version, (const char *)data, size);
	if (name)
		total += strlen(name);
	if (version)
		total += strlen(version);
	free(name);
	free(version);
	{
		char *u[4];
		size_t i;

		u[0] = prov_pip_upstream((const char *)data, size);
		u[1] = prov_dep5_upstream((const char *)data, size);
		u[2] = prov_conda_upstream((const char *)data, size);
		u[3] = prov_repo_url_from((const char *)data, size);
		for (i = 0; i < 4; i++) {
			if (u[i])
				total += strlen(u[i]);
			free(u[i]);
		}
	}
	prov_error_clear();
	return 0;
}
