/*
 * libdwfl's find callbacks: the ELF and debug file of a module, under
 * --sysroot, at --exe, by build ID, from debuginfod (core-int.h).
 */
#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "core-int.h"
#include "dbgbudget.h"
#include "plaindebug.h"
#include "util.h"
#include "banned.h"

struct mod_extra *core_mod_extra(struct core_ctx *x, void **userdata)
{
	if (!*userdata) {
		struct mod_extra *e = prov_xcalloc(1, sizeof(*e));

		PROV_ALLOC_GROW(x->mods.extras, x->mods.nextras + 1, x->mods.extras_alloc);
		x->mods.extras[x->mods.nextras++] = e;
		*userdata = e;
	}
	return *userdata;
}

const struct nt_file_entry *core_file_at(const struct core_ctx *x, uint64_t addr)
{
	size_t i;

	for (i = 0; i < x->map.nfiles; i++)
		if (x->map.files[i].name && addr >= x->map.files[i].start && addr < x->map.files[i].end)
			return &x->map.files[i];
	return NULL;
}

/* Modules are reported under the path the core recorded (NT_FILE). */
const char *core_module_recorded_path(Dwfl_Module *mod)
{
	return dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
}

/*
 * Open `path` under `root` (NULL: the host) and check its build ID against
 * the core's. 1: accepted (fd, elf, name out); 0: not there or not ELF;
 * -1: a different build (a note is recorded for `modname`).
 */
static int try_candidate(struct core_ctx *x, void **userdata, const char *root,
			 const char *path, const unsigned char *want, int wantlen,
			 int *fd_out, Elf **elf_out, char **name_out)
{
	int fd;
	Elf *elf;
	const void *bits = NULL;
	ssize_t len;
	char *shown;

	struct stat st;

	/* O_NONBLOCK: a path from a core may name a FIFO; only regular files are read */
	fd = prov_root_open(root, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return 0;
	}
	shown = root ? prov_root_join(root, path) : prov_xstrdup(path);
	if (wantlen > 0) {
		len = dwelf_elf_gnu_build_id(elf, &bits);
		if (len != wantlen || memcmp(bits, want, (size_t)wantlen) != 0) {
			char *have = len > 0 ? prov_hex(bits, (size_t)len) : prov_xstrdup("none");
			char *core = prov_hex(want, (size_t)wantlen);

			struct mod_extra *ex = core_mod_extra(x, userdata);

			free(ex->note);
			ex->note = prov_xasprintf("build-id mismatch: %s has %s, core has %s",
						  shown, have, core);
			free(have);
			free(core);
			free(shown);
			elf_end(elf);
			close(fd);
			return -1;
		}
	}
	*fd_out = fd;
	*elf_out = elf;
	*name_out = shown;
	return 1;
}

/*
 * A relative path from the core's notes ("./lib.so": relative to the
 * process's directory, unknown here) as a path under the sysroot, never
 * the current directory: "/lib.so". NULL when nothing is left.
 */
char *core_sysroot_relative(const char *path)
{
	for (;;) {
		if (path[0] == '.' && path[1] == '/')
			path += 2;
		else if (path[0] == '/')
			path++;
		else
			break;
	}
	return *path ? prov_xasprintf("/%s", path) : NULL;
}

static char *build_id_path(const char *dir, const unsigned char *bits, int len, const char *suffix)
{
	char *hex, *p;

	if (len < 2)
		return NULL;
	hex = prov_hex(bits, (size_t)len);
	p = prov_xasprintf("%s/.build-id/%.2s/%s%s", dir, hex, hex + 2, suffix);
	free(hex);
	return p;
}

static int module_is_main(const struct core_ctx *x, Dwfl_Module *mod)
{
	Dwarf_Addr lo = 0, hi = 0;

	if (!x->notes.has_entry)
		return 0;
	dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	return x->notes.entry >= lo && x->notes.entry < hi;
}

/*
 * Under a sysroot libdwfl's own search (which asks debuginfod) is not used:
 * ask debuginfod here, by build ID, when DEBUGINFOD_URLS is set. The file
 * lands in debuginfod's cache (the command layer points it into ours).
 */
static int debuginfod_fd(const unsigned char *bits, int len, int executable, char **path)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	debuginfod_client *client;
	int fd;

	*path = NULL;
	if (!urls || !*urls || len <= 0)
		return -1;
	if (!(client = debuginfod_begin()))
		return -1;
	prov_dbgbudget_attach(client);	/* one time budget for the whole run */
	fd = executable ? debuginfod_find_executable(client, bits, len, path)
			: debuginfod_find_debuginfo(client, bits, len, path);
	debuginfod_end(client);
	if (fd < 0) {
		free(*path);
		*path = NULL;
		return -1;
	}
	/* a fresh download leaves the offset at the end */
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* ---- find_elf: the module's ELF file ---- */

/*
 * A module with no build ID: is the file the one that was mapped? The core
 * holds the first page of each ELF mapping (the headers); 1 when the core's
 * copy at lo differs from the file's first bytes, 0 when they agree or the
 * core has no copy to compare (then nothing can be said).
 */
static int first_page_differs(const struct core_ctx *x, int fd, uint64_t lo)
{
	unsigned char file[4096], mem[4096];
	struct stat st;
	ssize_t n;

	if (!lo || fstat(fd, &st) < 0)
		return 0;
	n = pread(fd, file, sizeof(file), 0);
	if (n <= 0)
		return 0;
	if (core_read(x, lo, mem, (size_t)n) < 0)
		return 0;
	return memcmp(file, mem, (size_t)n) != 0;
}

#define MAX_MEM_IMAGE ((uint64_t)256 << 20)	/* bytes of a module rebuilt from memory */

/*
 * A module no file was found for, rebuilt from the core's memory as its
 * file was laid out (as libdwfl's elf_from_remote_memory does for
 * eu-stack): each PT_LOAD's bytes at its file offset, no section headers.
 * libdwfl then reads its dynamic symbols through PT_DYNAMIC. Only when the
 * core holds every byte its loads map from the file; else NULL.
 */
/* [addr, addr+len) across the core's segments (a load may span two): 0, or -1. */
static int read_span(const struct core_ctx *x, uint64_t addr, unsigned char *buf, uint64_t len)
{
	while (len) {
		uint64_t k = 4096 - (addr & 4095);

		if (k > len)
			k = len;
		if (core_read(x, addr, buf, k) < 0)
			return -1;
		addr += k;
		buf += k;
		len -= k;
	}
	return 0;
}

static unsigned char *image_from_memory(const struct core_ctx *x, uint64_t lo, size_t *lenp)
{
	unsigned char eh[64], *ph = NULL, *buf = NULL;
	size_t esz = x->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr), i;
	uint64_t phoff, size = 0, bias = 0;
	unsigned int phnum, type;
	int first = 1;

	if (core_read(x, lo, eh, x->is64 ? 64 : 52) < 0 || memcmp(eh, ELFMAG, SELFMAG) != 0 ||
	    eh[EI_CLASS] != (x->is64 ? ELFCLASS64 : ELFCLASS32) ||
	    core_rd16(x, eh + (x->is64 ? 54 : 42)) != esz)
		return NULL;
	type = core_rd16(x, eh + 16);
	phoff = x->is64 ? core_rd64(x, eh + 32) : core_rd32(x, eh + 28);
	phnum = core_rd16(x, eh + (x->is64 ? 56 : 44));
	if (!phnum || phnum > 512 || phoff > 65536)
		return NULL;
	ph = prov_xmalloc(phnum * esz);
	if (core_read(x, lo + phoff, ph, phnum * esz) < 0)
		goto fail;
	for (i = 0; i < phnum; i++) {	/* the file's size as the loads map it; the bias */
		const unsigned char *p = ph + i * esz;
		uint64_t off = x->is64 ? core_rd64(x, p + 8) : core_rd32(x, p + 4);
		uint64_t vaddr = x->is64 ? core_rd64(x, p + 16) : core_rd32(x, p + 8);
		uint64_t filesz = x->is64 ? core_rd64(x, p + 32) : core_rd32(x, p + 16);

		if (core_rd32(x, p) != PT_LOAD)
			continue;
		if (first && (off > vaddr || (type == ET_EXEC && vaddr - off != lo)))
			goto fail;
		if (first)
			bias = type == ET_EXEC ? 0 : lo - (vaddr - off);
		first = 0;
		if (off > MAX_MEM_IMAGE || filesz > MAX_MEM_IMAGE - off)
			goto fail;
		if (off + filesz > size)
			size = off + filesz;
	}
	if (first || size < (x->is64 ? 64u : 52u))
		goto fail;
	buf = prov_xcalloc(1, size);
	for (i = 0; i < phnum; i++) {
		const unsigned char *p = ph + i * esz;
		uint64_t off = x->is64 ? core_rd64(x, p + 8) : core_rd32(x, p + 4);
		uint64_t vaddr = x->is64 ? core_rd64(x, p + 16) : core_rd32(x, p + 8);
		uint64_t filesz = x->is64 ? core_rd64(x, p + 32) : core_rd32(x, p + 16);

		if (core_rd32(x, p) == PT_LOAD && filesz && read_span(x, bias + vaddr, buf + off, filesz) < 0)
			goto fail;	/* not all in the core */
	}
	/* no section headers: e_shoff, e_shnum, e_shstrndx are zero */
	if (x->is64) {
		memset(buf + 40, 0, 8);
		memset(buf + 60, 0, 4);
	} else {
		memset(buf + 32, 0, 4);
		memset(buf + 48, 0, 4);
	}
	free(ph);
	*lenp = size;
	return buf;
fail:
	free(ph);
	free(buf);
	return NULL;
}

/* The module from the core's memory when no file was found: -1 (no fd), *elfp set or NULL. */
static int find_elf_in_memory(struct core_ctx *x, Dwfl_Module *mod, void **userdata, Elf **elfp)
{
	struct mod_extra *ex = core_mod_extra(x, userdata);
	Dwarf_Addr lo = 0;

	if (!ex->image) {
		dwfl_module_info(mod, NULL, &lo, NULL, NULL, NULL, NULL, NULL);
		ex->image = image_from_memory(x, lo, &ex->image_len);
	}
	if (ex->image)
		*elfp = elf_memory((char *)ex->image, ex->image_len);
	errno = 0;
	return -1;
}

int core_find_elf_cb(Dwfl_Module *mod, void **userdata, const char *modname,
		Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct core_ctx *x = core_current;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len, fd = -1, r;
	Elf *elf = NULL;
	char *name = NULL;

	*elfp = NULL;
	if (!x)
		return -1;
	if (mod == x->mods.vdso_mod && x->mods.vdso_image) {
		*elfp = elf_memory((char *)x->mods.vdso_image, x->mods.vdso_len);
		*file_name = NULL;
		return -1;
	}
	/* libdwfl's name may be a soname; look files up by the path the core recorded */
	modname = core_module_recorded_path(mod);
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len < 0)
		len = 0;

	if (x->opts && x->opts->exe && module_is_main(x, mod)) {
		/* The user named it: the one file allowed outside the sysroot. */
		r = try_candidate(x, userdata, NULL, x->opts->exe, bits, len, &fd, &elf, &name);
		if (r != 0)
			goto done;
	}
	if (modname && modname[0] == '/') {
		r = try_candidate(x, userdata, x->sysroot, modname, bits, len, &fd, &elf, &name);
		if (r > 0)
			goto done;
		if (r < 0)
			core_mod_extra(x, userdata)->path_mismatch = 1;
		if (prov_ends_with(modname, " (deleted)")) {
			/* the file was replaced after it was mapped: the build ID decides */
			char *p = prov_xstrndup(modname, strlen(modname) - strlen(" (deleted)"));

			r = try_candidate(x, userdata, x->sysroot, p, bits, len, &fd, &elf, &name);
			free(p);
			if (r > 0)
				goto done;
			if (r < 0)
				core_mod_extra(x, userdata)->path_mismatch = 1;
		}
	} else if (modname && x->sysroot) {
		char *p = core_sysroot_relative(modname);

		r = p ? try_candidate(x, userdata, x->sysroot, p, bits, len, &fd, &elf, &name) : 0;
		free(p);
		if (r > 0)
			goto done;
		if (r < 0)
			core_mod_extra(x, userdata)->path_mismatch = 1;
	}
	if (len > 0) {
		static const char *const dirs[] = { "/usr/lib/debug", "/usr/lib", NULL };
		size_t i;

		for (i = 0; dirs[i]; i++) {
			char *p = build_id_path(dirs[i], bits, len, "");

			r = p ? try_candidate(x, userdata, x->sysroot, p, bits, len, &fd, &elf, &name) : 0;
			free(p);
			if (r > 0)
				goto done;
		}
	}
	if (len == 0 && core_mod_extra(x, userdata)->path_mismatch) {
		/* no build ID and the file at its path is not what was mapped */
		errno = 0;
		return -1;
	}
	if (!x->sysroot) {
		/* The host: libdwfl's own search (and debuginfod when configured). */
		r = dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
		if (r >= 0 || *elfp)
			return r;
		return find_elf_in_memory(x, mod, userdata, elfp);
	}
	if (len > 0 && (fd = debuginfod_fd(bits, len, 1, &name)) >= 0) {
		if (!(elf = elf_begin(fd, ELF_C_READ, NULL))) {
			close(fd);
			free(name);
			errno = 0;
			return -1;
		}
		goto done;
	}
	return find_elf_in_memory(x, mod, userdata, elfp);
done:
	if (fd < 0)
		return -1;
	if (len == 0) {
		Dwarf_Addr lo = 0;

		dwfl_module_info(mod, NULL, &lo, NULL, NULL, NULL, NULL, NULL);
		if (first_page_differs(x, fd, lo)) {
			/* replaced since the crash: as a build-ID mismatch, nothing is named from it */
			struct mod_extra *ex = core_mod_extra(x, userdata);

			free(ex->note);
			ex->note = prov_xasprintf("contents mismatch: %s differs from the core's copy of its first page "
						  "(no build ID to compare; the file was replaced since the crash)", name);
			ex->path_mismatch = 1;
			free(name);
			elf_end(elf);
			close(fd);
			errno = 0;
			return -1;
		}
	}
	free(core_mod_extra(x, userdata)->file);
	core_mod_extra(x, userdata)->file = prov_xstrdup(name);
	*file_name = name;
	*elfp = elf;
	return fd;
}

/* An ELF file whose build ID is `want` (any file when wantlen is 0): fd, or -1. */
/* ---- find_debuginfo: its separate debug file ---- */

static int open_debug_candidate(const char *root, const char *path,
				const unsigned char *want, int wantlen, char **name_out)
{
	int fd, ok = 0;
	Elf *elf;
	const void *bits;
	ssize_t len;

	struct stat st;

	fd = prov_root_open(root, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		if (wantlen <= 0)
			ok = 1;
		else {
			len = dwelf_elf_gnu_build_id(elf, &bits);
			ok = len == wantlen && memcmp(bits, want, (size_t)wantlen) == 0;
		}
	}
	elf_end(elf);
	if (!ok) {
		close(fd);
		return -1;
	}
	*name_out = prov_root_join(root, path);
	return fd;
}

static int find_debuginfo_any(Dwfl_Module *mod, void **userdata, const char *modname,
			      GElf_Addr base, const char *file_name, const char *debuglink_file,
			      GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct core_ctx *x = core_current;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len, fd = -1;
	char *p, *dir = NULL;
	size_t i;
	static const char *const bdirs[] = { "/usr/lib/debug", "", NULL };

	if (!x || !x->sysroot)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	modname = core_module_recorded_path(mod);
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len < 0)
		len = 0;
	for (i = 0; len > 0 && bdirs[i] && fd < 0; i++) {
		p = build_id_path(bdirs[i], bits, len, ".debug");
		if (p)
			fd = open_debug_candidate(x->sysroot, p, bits, len, debuginfo_file_name);
		free(p);
	}
	if (fd < 0 && debuglink_file && *debuglink_file && !strchr(debuglink_file, '/') &&
	    modname && modname[0] == '/') {
		const char *slash = strrchr(modname, '/');

		char *cand[3];

		dir = prov_xstrndup(modname, (size_t)(slash - modname));

		cand[0] = prov_xasprintf("/usr/lib/debug%s/%s", dir, debuglink_file);
		cand[1] = prov_xasprintf("%s/.debug/%s", dir, debuglink_file);
		cand[2] = prov_xasprintf("%s/%s", dir, debuglink_file);
		for (i = 0; i < 3; i++) {
			if (fd < 0 && strcmp(cand[i], modname) != 0)
				fd = open_debug_candidate(x->sysroot, cand[i], bits, len,
							  debuginfo_file_name);
			free(cand[i]);
		}
	}
	free(dir);
	if (fd < 0 && len > 0)
		fd = debuginfod_fd(bits, len, 0, debuginfo_file_name);
	if (fd < 0)
		errno = ENOENT;
	return fd;
}

/*
 * The debug file, or its uncompressed copy in the cache (plaindebug.h) when
 * the one libdwfl would find by build ID has compressed sections: opened
 * here, as libdwfl keeps the ELF of a file it found itself, and named as
 * libdwfl names it (the real path of /usr/lib/debug/.build-id/xx/y.debug).
 */
static int find_debuginfo_cb(Dwfl_Module *mod, void **userdata, const char *modname,
			     GElf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct core_ctx *x = core_current;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len, fd = -1;

	if (x && !x->sysroot && x->opts->plain_debug_dir &&
	    (len = dwfl_module_build_id(mod, &bits, &vaddr)) > 0) {
		char *p = build_id_path("/usr/lib/debug", bits, len, ".debug");
		char *real = p ? realpath(p, NULL) : NULL;

		if (real && (fd = prov_plain_debug_open(x->opts->plain_debug_dir, bits, len,
							real)) >= 0) {
			free(*debuginfo_file_name);
			*debuginfo_file_name = real;
			real = NULL;
		}
		free(real);
		free(p);
		if (fd >= 0)
			return fd;
	}
	return find_debuginfo_any(mod, userdata, modname, base, file_name, debuglink_file,
				  debuglink_crc, debuginfo_file_name);
}

/* ---- the Dwfl ---- */

static char *core_debuginfo_path;	/* NULL: libdwfl's default */
static const Dwfl_Callbacks core_callbacks = {
	.find_elf = core_find_elf_cb,
	.find_debuginfo = find_debuginfo_cb,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &core_debuginfo_path,
};



/* A Dwfl with our callbacks; libdwfl's own debuginfod queries share the run's time budget. */
Dwfl *core_dwfl_begin(void)
{
	Dwfl *dwfl = dwfl_begin(&core_callbacks);
	const char *urls = getenv("DEBUGINFOD_URLS");

	if (dwfl && urls && *urls)
		prov_dbgbudget_attach(dwfl_get_debuginfod_client(dwfl));
	return dwfl;
}
