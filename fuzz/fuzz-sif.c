/*
 * libFuzzer target: any bytes as the head of an Apptainer SIF file
 * (src/image/image-sif.c): the root partition it names lies inside the
 * file, whatever the header says.
 */
#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "error.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_sif_part p;

	(void)prov_sif_is(data, size);
	if (prov_sif_find_rootfs(data, size, size, &p) == 0 &&
	    (p.size == 0 || p.offset > size || p.size > size - p.offset))
		__builtin_trap();
	/* a file said to be larger than what was read: bounds still hold for the table */
	if (prov_sif_find_rootfs(data, size, (uint64_t)size * 4, &p) == 0 &&
	    (p.size == 0 || p.offset > (uint64_t)size * 4 || p.size > (uint64_t)size * 4 - p.offset))
		__builtin_trap();
	prov_error_clear();
	return 0;
}
