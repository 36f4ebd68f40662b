/*
 * libFuzzer target: any bytes as a pip RECORD file and as METADATA /
 * PKG-INFO headers.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "resolver.h"
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
	prov_error_clear();
	return 0;
}
