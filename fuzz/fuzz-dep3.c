/*
 * libFuzzer target: any bytes as a distribution patch (quilt, format-patch,
 * RPM Patch file): its DEP-3 header and commit ids, its hunks, and each hunk
 * matched against the patch text itself as a deployed file.
 */
#include <stddef.h>
#include <stdint.h>

#include "dep3.h"
#include "error.h"
#include "hunks.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_dep3 d;
	struct prov_hunks h;
	struct prov_hunk_file f;
	size_t i;

	prov_dep3_parse(&d, (const char *)data, size);
	(void)prov_dep3_names(&d, "0123456789abcdef0123456789abcdef01234567");
	prov_dep3_release(&d);
	prov_hunks_parse(&h, (const char *)data, size, 1);
	prov_hunk_file_init(&f, (const char *)data, size);
	for (i = 0; i < h.n && i < 64; i++) {
		(void)prov_hunk_match(&h.v[i], &f);
		(void)prov_hunk_not_applicable(&h.v[i], &f);
		if (i)
			(void)prov_hunk_carries(&h.v[i], &h.v[i - 1]);
	}
	prov_hunk_file_release(&f);
	prov_hunks_release(&h);
	prov_error_clear();
	return 0;
}
