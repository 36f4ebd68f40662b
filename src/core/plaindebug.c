/* Debug files kept with their DWARF uncompressed (plaindebug.h). */
#include <errno.h>
#include <fcntl.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plaindebug.h"
#include "alloc.h"
#include "util.h"
#include "banned.h"

/* Copies above this (uncompressed sections in all) are not made. */
#define PLAIN_DEBUG_MAX ((uint64_t)512 << 20)

/* The total uncompressed size of the compressed sections (0: none), or UINT64_MAX when unreadable. */
static uint64_t compressed_size(Elf *elf)
{
	Elf_Scn *scn = NULL;
	uint64_t total = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Chdr ch;

		if (!gelf_getshdr(scn, &sh))
			return UINT64_MAX;
		if (!(sh.sh_flags & SHF_COMPRESSED))
			continue;
		if (!gelf_getchdr(scn, &ch) || ch.ch_size > PLAIN_DEBUG_MAX)
			return UINT64_MAX;
		total += ch.ch_size;
	}
	return total;
}

/*
 * 1 when the copy open on fd is whole: an ELF file of build ID id whose
 * sections all lie inside it and none compressed (a copy cut short or
 * damaged after it was made is made again).
 */
static int copy_is_whole(int fd, const unsigned char *id, int idlen)
{
	struct stat st;
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	const void *got;
	size_t shnum, seen = 1;
	int ok = 0;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	/* libelf shows no sections when their table is cut off: check it is all there */
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getshdrnum(elf, &shnum) < 0 || shnum < 2 || eh.e_shoff > (uint64_t)st.st_size ||
	    (uint64_t)shnum * eh.e_shentsize > (uint64_t)st.st_size - eh.e_shoff ||
	    dwelf_elf_gnu_build_id(elf, &got) != idlen || memcmp(got, id, (size_t)idlen) != 0)
		goto cleanup;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		seen++;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_flags & SHF_COMPRESSED))
			goto cleanup;
		if (sh.sh_type != SHT_NOBITS &&
		    (sh.sh_offset > (uint64_t)st.st_size ||
		     sh.sh_size > (uint64_t)st.st_size - sh.sh_offset))
			goto cleanup;
	}
	ok = seen == shnum;
cleanup:
	if (elf)
		elf_end(elf);
	return ok;
}

/* Write src with every compressed section inflated to the new file outfd: 0, or -1. */
static int write_plain(Elf *src, int outfd)
{
	Elf *dst = elf_begin(outfd, ELF_C_WRITE, NULL);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t phnum, shstrndx, i;
	int rc = -1;

	if (!dst || !gelf_getehdr(src, &eh) || !gelf_newehdr(dst, gelf_getclass(src)) ||
	    elf_getphdrnum(src, &phnum) < 0 || elf_getshdrstrndx(src, &shstrndx) < 0)
		goto cleanup;
	if (phnum && !gelf_newphdr(dst, phnum))
		goto cleanup;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(src, (int)i, &ph) || !gelf_update_phdr(dst, (int)i, &ph))
			goto cleanup;
	}
	while ((scn = elf_nextscn(src, scn))) {
		Elf_Scn *out = elf_newscn(dst);
		Elf_Data *d, *od;
		GElf_Shdr sh;

		if (!out || !gelf_getshdr(scn, &sh))
			goto cleanup;
		if ((sh.sh_flags & SHF_COMPRESSED) &&
		    (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &sh)))
			goto cleanup;
		if ((d = elf_getdata(scn, NULL))) {
			if (!(od = elf_newdata(out)))
				goto cleanup;
			od->d_buf = d->d_buf;
			od->d_type = d->d_type;
			od->d_size = d->d_size;
			od->d_off = 0;
			od->d_align = d->d_align;
			od->d_version = d->d_version;
		}
		if (!gelf_update_shdr(out, &sh))
			goto cleanup;
	}
	eh.e_shstrndx = shstrndx < SHN_LORESERVE ? (Elf64_Half)shstrndx : SHN_XINDEX;
	if (shstrndx >= SHN_LORESERVE)
		goto cleanup;	/* not in debug files; not worth the extended numbering */
	if (!gelf_update_ehdr(dst, &eh) || elf_update(dst, ELF_C_WRITE) < 0)
		goto cleanup;
	rc = 0;
cleanup:
	if (dst)
		elf_end(dst);
	return rc;
}

int prov_plain_debug_open(const char *dir, const unsigned char *id, int idlen, const char *path)
{
	struct stat st;
	Elf *elf = NULL;
	char *name = NULL, *tmp = NULL, *hex = NULL;
	const void *got_id;
	uint64_t need;
	int fd = -1, out = -1;

	if (!dir || !id || idlen <= 0 || idlen > 64 || !path || stat(path, &st) < 0 ||
	    !S_ISREG(st.st_mode))
		return -1;
	hex = prov_hex(id, (size_t)idlen);
	name = prov_xasprintf("%s/%s-%" PRIu64 "-%" PRId64 ".debug", dir, hex,
			      (uint64_t)st.st_size, (int64_t)st.st_mtime);
	if ((out = open(name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) >= 0) {
		if (copy_is_whole(out, id, idlen))
			goto cleanup;
		close(out);
		out = -1;
		unlink(name);
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		goto cleanup;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    dwelf_elf_gnu_build_id(elf, &got_id) != idlen ||
	    memcmp(got_id, id, (size_t)idlen) != 0)
		goto cleanup;
	need = compressed_size(elf);
	if (need == 0 || need > PLAIN_DEBUG_MAX || prov_mkdir_p(dir, 0700, 0) < 0)
		goto cleanup;
	tmp = prov_xasprintf("%s/.tmp-%s-%ld", dir, hex, (long)getpid());
	unlink(tmp);
	out = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (out < 0)
		goto cleanup;
	if (write_plain(elf, out) < 0 || fsync(out) < 0 || rename(tmp, name) < 0) {
		close(out);
		out = -1;
		unlink(tmp);
	}
cleanup:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(name);
	free(hex);
	return out;
}
