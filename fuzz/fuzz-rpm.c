/* libFuzzer target: any bytes as an rpmdb.sqlite Packages.blob header. */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kit-rpm-header.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_rpm_header h;

	if (prov_rpm_header_parse(&h, data, size) == 0)
		prov_rpm_header_release(&h);
	prov_error_clear();
	return 0;
}
