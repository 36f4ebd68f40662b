/* Apptainer's SIF: the documented header and descriptors, to find the root filesystem's squashfs partition. */
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "image.h"
#include "banned.h"

/*
 * The layout (github.com/sylabs/sif, pkg/sif: Go's encoding/binary,
 * little-endian, no padding). The header: launch script [32], magic [10]
 * "SIF_MAGIC", version [3], arch [3], uuid [16], then int64 ctime, mtime,
 * free descriptors, total descriptors, descriptors offset, descriptors
 * size, data offset, data size: 128 bytes. A descriptor: int32 datatype,
 * bool used, uint32 id, groupid, linkedid, int64 offset, size,
 * size-with-padding, ctime, mtime, uid, gid, name [128], extra [384]:
 * 585 bytes. A partition's extra: int32 fstype, int32 parttype, arch [3].
 */
#define HDR_SIZE 128
#define OFF_MAGIC 32
#define OFF_VERSION 42
#define OFF_DTOTAL 88
#define OFF_DESCROFF 96
#define DESC_SIZE 585
#define D_TYPE 0
#define D_USED 4
#define D_OFFSET 17
#define D_SIZE 25
#define D_EXTRA 201
#define DATA_PARTITION 0x4004
#define FS_SQUASH 1
#define FS_ENCRYPTED_SQUASH 5
#define PART_SYSTEM 1
#define PART_PRIMSYS 2

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int prov_sif_is(const unsigned char *buf, size_t len)
{
	return len >= OFF_MAGIC + 10 && !memcmp(buf + OFF_MAGIC, "SIF_MAGIC", 10);
}

int prov_sif_find_rootfs(const unsigned char *buf, size_t len, uint64_t file_size, struct prov_sif_part *out)
{
	uint64_t dtotal, descoff, i, off, size;
	int prim = -1, sys = -1, nsys = 0, encrypted = 0;
	const unsigned char *d;

	memset(out, 0, sizeof(*out));
	if (len < HDR_SIZE || !prov_sif_is(buf, len))
		return prov_error_set(PROV_EINPUT, "not a SIF image (no SIF_MAGIC)");
	if (memcmp(buf + OFF_VERSION, "01", 3))
		return prov_error_set(PROV_EINPUT, "a SIF image of a version this version cannot read "
				      "(only \"01\")");
	dtotal = le64(buf + OFF_DTOTAL);
	descoff = le64(buf + OFF_DESCROFF);
	if (dtotal == 0 || dtotal > PROV_SIF_MAX_DESCRIPTORS || descoff < HDR_SIZE || descoff > len ||
	    (len - descoff) / DESC_SIZE < dtotal)
		return prov_error_set(PROV_EINPUT, "a SIF image whose descriptor table (%llu at %llu) is "
				      "out of bounds", (unsigned long long)dtotal, (unsigned long long)descoff);
	for (i = 0; i < dtotal; i++) {
		d = buf + descoff + i * DESC_SIZE;
		if (!d[D_USED] || le32(d + D_TYPE) != DATA_PARTITION)
			continue;
		if (le32(d + D_EXTRA) == FS_ENCRYPTED_SQUASH)
			encrypted = 1;
		if (le32(d + D_EXTRA) != FS_SQUASH)
			continue;
		if (le32(d + D_EXTRA + 4) == PART_PRIMSYS && prim < 0)
			prim = (int)i;
		if (le32(d + D_EXTRA + 4) == PART_SYSTEM) {
			nsys++;
			sys = (int)i;
		}
	}
	if (prim < 0 && nsys != 1)
		return prov_error_set(PROV_EINPUT, encrypted ? "the SIF image's root filesystem is encrypted"
				      : nsys ? "the SIF image has no primary system partition and several "
				      "system ones" : "the SIF image has no squashfs system partition");
	d = buf + descoff + (uint64_t)(prim >= 0 ? prim : sys) * DESC_SIZE;
	off = le64(d + D_OFFSET);
	size = le64(d + D_SIZE);
	if (off > file_size || size == 0 || size > file_size - off)
		return prov_error_set(PROV_EINPUT, "the SIF image's root partition (%llu bytes at %llu) is "
				      "out of the file's %llu bytes", (unsigned long long)size,
				      (unsigned long long)off, (unsigned long long)file_size);
	out->offset = off;
	out->size = size;
	return 0;
}
