/*
 * libFuzzer target: the version pieces of mapping files (issue 27): a
 * range expression (">=5.6,<7", [component "NAME@RANGE"]), a version and a
 * ref template, NUL-separated, through prov_version_in_range (checked: 0, 1
 * or PROV_EINPUT, and the same answer twice), prov_version_split,
 * prov_rocm_version_decode, prov_ref_names_version and
 * prov_mapping_expand_ref.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "mapping.h"
#include "util.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy, *part[3] = { NULL, NULL, NULL }, *p, *rocm = NULL;
	struct prov_version_parts vp;
	struct prov_buf ref = PROV_BUF_INIT;
	size_t i, n = 0;
	int in;

	if (size > 4096)
		return 0;
	copy = prov_xmalloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = 0;
	/* range NUL version NUL template: missing parts are empty */
	for (p = copy; n < 3; n++) {
		part[n] = p;
		p += strlen(p);
		if (p >= copy + size)
			break;
		p++;
	}
	for (i = 0; i < 3; i++)
		if (!part[i])
			part[i] = copy + size;
	in = prov_version_in_range(part[0], part[1]);
	if (in != 0 && in != 1 && in != PROV_EINPUT)
		abort();
	if (prov_version_in_range(part[0], part[1]) != in)
		abort();
	(void)prov_version_in_range(part[0], part[2]);
	prov_version_split(&vp, part[1]);
	if (!vp.upstream || !vp.major || !vp.minor || !vp.patch)
		abort();
	prov_version_parts_release(&vp);
	if (prov_rocm_version_decode(&rocm, part[1]) == 0) {
		if (!rocm)
			abort();
		(void)prov_version_in_range(part[0], rocm);
		free(rocm);
	}
	(void)prov_ref_names_version(part[2], part[1]);
	(void)prov_ref_names_version(part[1], part[0]);
	(void)prov_mapping_expand_ref(&ref, part[2], part[1]);
	(void)prov_mapping_expand_ref(&ref, part[0], NULL);
	prov_buf_release(&ref);
	free(copy);
	prov_error_clear();
	return 0;
}
