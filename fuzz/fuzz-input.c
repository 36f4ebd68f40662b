/*
 * libFuzzer target: input detection on a file holding the input (core,
 * compressed core, text), with a 1 MiB cap on decompressed cores so that
 * bombs must fail fast.
 */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "input.h"
#include "common.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_CORE ((uint64_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_input in;
	char *path, *tmp;

	path = prov_xasprintf("%s/input", fuzz_tmpdir());
	tmp = prov_xasprintf("%s/tmp", fuzz_tmpdir());
	fuzz_write(path, data, size);
	memset(&in, 0, sizeof(in));
	if (prov_input_open(&in, path, tmp, FUZZ_MAX_CORE) == 0) {
		if (in.tmpfile) {
			struct stat st;
			/* the cap holds: nothing bigger than max_core was written */
			if (stat(in.tmpfile, &st) == 0 && (uint64_t)st.st_size > FUZZ_MAX_CORE)
				__builtin_trap();
		}
		prov_input_release(&in);
	}
	/* success or failure, no decompressed file is left behind */
	if (fuzz_dir_count(tmp) != 0)
		__builtin_trap();
	unlink(path);
	free(path);
	free(tmp);
	prov_error_clear();
	return 0;
}
