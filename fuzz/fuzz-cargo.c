/*
 * libFuzzer target: any bytes as cargo-auditable's .dep-v0 section
 * (resolvers/kit-cargo.c). The first byte chooses: even, the rest is the
 * JSON text and is zlib-compressed here first (so that the fuzzer reaches
 * the JSON checks); odd, the rest is the section's bytes as they are.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "error.h"
#include "kit-cargo.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_cargo_audit a;
	unsigned char *z = NULL;
	size_t i, total = 0;
	uLongf zlen;

	if (size < 1)
		return 0;
	if (data[0] & 1) {
		if (prov_cargo_audit_parse(&a, data + 1, size - 1) < 0)
			goto cleanup;
	} else {
		zlen = compressBound((uLong)(size - 1));
		z = malloc(zlen);
		if (!z || compress(z, &zlen, data + 1, (uLong)(size - 1)) != Z_OK)
			goto cleanup;
		if (prov_cargo_audit_parse(&a, z, zlen) < 0)
			goto cleanup;
	}
	/* touch what was read: every string, every index (each below n) */
	for (i = 0; i < a.n; i++) {
		size_t k;

		total += strlen(a.pkgs[i].name) + strlen(a.pkgs[i].version) + strlen(a.pkgs[i].source);
		for (k = 0; k < a.pkgs[i].ndeps; k++)
			if (a.pkgs[i].deps[k] >= a.n)
				abort();
	}
	if (a.root >= a.n)
		abort();
	prov_cargo_audit_release(&a);
cleanup:
	free(z);
	prov_error_clear();
	return (int)(total & 0);
}
