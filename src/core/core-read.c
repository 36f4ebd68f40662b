/*
 * Reading the core: byte order, fixed-size fields, memory at an address
 * through the PT_LOADs, the last blocks read kept (core-int.h).
 */
#include <string.h>
#include <unistd.h>

#include "core-int.h"
#include "util.h"
#include "banned.h"

uint16_t core_rd16(const struct core_ctx *x, const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return x->swap ? __builtin_bswap16(v) : v;
}

uint32_t core_rd32(const struct core_ctx *x, const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return x->swap ? __builtin_bswap32(v) : v;
}

uint64_t core_rd64(const struct core_ctx *x, const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return x->swap ? __builtin_bswap64(v) : v;
}

uint64_t core_rdword(const struct core_ctx *x, const unsigned char *p)
{
	return x->is64 ? core_rd64(x, p) : core_rd32(x, p);
}

int core_host_is_le(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 1;
}

/* A string from a fixed-size field that may lack its NUL. */
char *core_field_str(const unsigned char *p, size_t max)
{
	size_t n = strnlen((const char *)p, max);

	while (n > 0 && p[n - 1] == ' ')
		n--;
	return prov_xstrndup((const char *)p, n);
}

/* The Python reader's view of the core's memory. */
int core_mem_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	return core_read(arg, addr, buf, len);
}

/* len bytes of the core at off through the block cache: 0, or -1 when not all there */
static int cached_pread(const struct core_ctx *x, void *buf, size_t len, uint64_t off)
{
	struct read_cache *rc = x->rcache;
	uint64_t block = off & ~(uint64_t)(RC_BLOCK - 1);
	size_t slot = (size_t)(block / RC_BLOCK) % RC_NBLOCKS, at = (size_t)(off - block);
	ssize_t got;

	if (at + len > RC_BLOCK)
		return pread(x->fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
	if (rc->tag[slot] != block + 1) {
		got = pread(x->fd, rc->data[slot], RC_BLOCK, (off_t)block);
		if (got < 0) {
			rc->tag[slot] = 0;
			return -1;
		}
		rc->tag[slot] = block + 1;
		rc->valid[slot] = (size_t)got;
	}
	if (at + len > rc->valid[slot])
		return -1;
	memcpy(buf, rc->data[slot] + at, len);
	return 0;
}

/* Read [addr, addr+len) of the crashed process from the core: 0, or -1 when not all there. */
int core_read(const struct core_ctx *x, uint64_t addr, void *buf, size_t len)
{
	size_t lo = 0, hi = x->map.nsegs;
	const struct core_seg *sg;
	uint64_t rel;

	if (x->live)
		return addr <= INT64_MAX && pread(x->fd, buf, len, (off_t)addr) == (ssize_t)len ?
			0 : -1;
	/* segs are sorted by vaddr: the last one starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->map.segs[mid].vaddr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	sg = &x->map.segs[lo - 1];
	rel = addr - sg->vaddr;
	if (rel >= sg->filesz || len > sg->filesz - rel || sg->offset + rel < sg->offset ||
	    sg->offset + rel > INT64_MAX)
		return -1;
	if (x->rcache && len <= RC_BLOCK)
		return cached_pread(x, buf, len, sg->offset + rel);
	return pread(x->fd, buf, len, (off_t)(sg->offset + rel)) == (ssize_t)len ? 0 : -1;
}

int core_read_cb(void *arg, uint64_t addr, void *buf, size_t len)
{
	return core_read(arg, addr, buf, len);
}
