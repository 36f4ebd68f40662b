/* The elf-note resolver: the .note.package a module's own ELF file carries (a package note, held for the package databases). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolver.h"
#include "kit-root.h"
#include "jsonread.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * ELF package notes (systemd's spec): a note owned by "FDO", type
 * 0xcafe1a7e, whose descriptor is a NUL-terminated JSON object. Read from the
 * module's file under the root: SHT_NOTE sections, else PT_NOTE segments.
 * (Reading the note from the core's own memory would also cover deleted
 * files; not done here.)
 */
#define NT_FDO_PACKAGING_METADATA 0xcafe1a7e
#define NOTE_CAP (64 << 10)

struct elf_note_resolver {
	struct prov_resolver base;
};

/* 1 found (JSON copied to out), 0 not in this data. */
static int scan_notes(struct prov_buf *out, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)data->d_buf + name_off;

		if (nh.n_type == NT_FDO_PACKAGING_METADATA && nh.n_namesz == 4 &&
		    memcmp(name, "FDO", 4) == 0 && nh.n_descsz > 0 && nh.n_descsz <= NOTE_CAP &&
		    desc_off + nh.n_descsz <= data->d_size) {
			const char *desc = (const char *)data->d_buf + desc_off;
			size_t len = strnlen(desc, nh.n_descsz);

			prov_buf_reset(out);
			prov_buf_add(out, desc, len);
			return 1;
		}
		if (next <= off)
			break;
		off = next;
	}
	return 0;
}

static int find_note(struct prov_buf *out, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t nph, i;
	int nsec = 0;

	while ((scn = elf_nextscn(elf, scn)) && nsec++ < 65536) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		if (scan_notes(out, elf_getdata(scn, NULL)))
			return 1;
	}
	if (elf_getphdrnum(elf, &nph) < 0)
		return 0;
	for (i = 0; i < nph && i < 65536; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		if (ph.p_filesz == 0 || ph.p_filesz > (16 << 20))
			continue;
		if (scan_notes(out, elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
							 ph.p_filesz, ELF_T_NHDR)))
			return 1;
	}
	return 0;
}

static int elf_note_init(struct prov_resolver **out, const struct prov_resolve_ctx *ctx)
{
	struct elf_note_resolver *r;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return prov_error_set(PROV_ERROR, "libelf: %s", elf_errmsg(-1));
	r = prov_xcalloc(1, sizeof(*r));
	*out = &r->base;
	return 0;
}

static char *dup_str(const struct prov_jv *o, const char *key)
{
	const char *s = prov_jv_get_str(o, key);

	return s && *s ? prov_xstrdup(s) : NULL;
}

/* The note's JSON from the module's file under the sysroot: 1 found, 0 not. */
static int note_from_file(struct prov_buf *json, const struct prov_resolver *r,
			  const struct prov_module *mod)
{
	Elf *elf = NULL;
	struct stat st;
	int fd, found = 0;

	fd = prov_root_open(r->ctx->sysroot, mod->path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto cleanup;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto cleanup;
	found = find_note(json, elf);
cleanup:
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/*
 * The note from the file; else, as systemd-coredump does, the copy the
 * analyzer found in the core's memory (the file may be gone, or the
 * container not unpacked).
 */
static int elf_note_resolve(struct prov_origin *out, struct prov_resolver *r,
			    const struct prov_module *mod)
{
	struct prov_buf json = PROV_BUF_INIT;
	struct prov_jv *v = NULL;
	const char *evidence = mod->path;
	int err = PROV_EPASSTHROUGH;

	if (!note_from_file(&json, r, mod)) {
		if (!mod->package_note)
			goto cleanup;
		prov_buf_reset(&json);
		if (prov_buf_add(&json, mod->package_note, strlen(mod->package_note)) < 0)
			goto cleanup;
		evidence = "core memory";
	}
	if (prov_jv_parse(&v, json.buf, json.len) < 0 || v->type != PROV_JV_OBJECT) {
		prov_warn("'%s': unreadable .note.package: %s", mod->path, prov_error_last());
		goto cleanup;
	}
	if (!prov_jv_get_str(v, "name"))
		goto cleanup;
	out->kind = prov_xstrdup("elf-note");
	out->name = dup_str(v, "name");
	out->version = dup_str(v, "version");
	out->arch = dup_str(v, "architecture");
	out->evidence = evidence == mod->path ? prov_xstrdup(mod->path)
					      : prov_xasprintf("%s (from the core's memory)", mod->path);
	err = 0;
cleanup:
	prov_jv_free(v);
	prov_buf_release(&json);
	return err;
}

static void elf_note_free(struct prov_resolver *r)
{
	free(r);
}

const struct prov_resolver_ops prov_resolver_elf_note = {
	.version = PROV_RESOLVER_VERSION,
	.name = "elf-note",
	.init = elf_note_init,
	.resolve = elf_note_resolve,
	.free = elf_note_free,
	.flags = PROV_RESOLVER_NOTE,
};
