/* The cargo-auditable resolver: a Rust binary's root package and dependencies from its .dep-v0 section. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolver.h"
#include "kit-cargo.h"
#include "kit-root.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * The section is what `cargo auditable build` links in (kit-cargo.h has the
 * format). It names crates and versions only: no repository, no commit.
 * A section that is not read (hostile, truncated, over a cap) gives one
 * warning and no origin: the binary is left to the resolvers after this one.
 */
#define INV_MAX_FILES 5000

struct cargo_resolver {
	struct prov_resolver base;
};

/* The section's bytes: 1 and *p, *n; 0 when there is none; PROV_ELIMIT when too big. */
static int find_section(const unsigned char **p, size_t *n, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int nsec = 0;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) && nsec++ < 65536) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".dep-v0") != 0)
			continue;
		if (sh.sh_size > PROV_CARGO_MAX_SECTION)
			return prov_error_set(PROV_ELIMIT, "a section of %llu bytes (at most %zu read)",
					      (unsigned long long)sh.sh_size, PROV_CARGO_MAX_SECTION);
		d = elf_getdata_rawchunk(elf, (int64_t)sh.sh_offset, sh.sh_size, ELF_T_BYTE);
		if (!d || !d->d_buf)
			return prov_error_set(PROV_EINPUT, "the section lies outside the file");
		*p = d->d_buf;
		*n = d->d_size;
		return 1;
	}
	return 0;
}

/*
 * The audit data of the file at path under root: 0, PROV_ENOTFOUND (not
 * ELF, no section: silent), or a negative code after one warning.
 */
static int read_audit(struct prov_cargo_audit *a, const char *root, const char *path)
{
	const unsigned char *p = NULL;
	Elf *elf = NULL;
	struct stat st;
	size_t n = 0;
	int fd, err = PROV_ENOTFOUND;

	memset(a, 0, sizeof(*a));
	fd = prov_root_open(root, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return PROV_ENOTFOUND;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto cleanup;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto cleanup;
	err = find_section(&p, &n, elf);
	if (err == 1)
		err = prov_cargo_audit_parse(a, p, n);
	else if (err == 0)
		err = PROV_ENOTFOUND;
	if (err < 0 && err != PROV_ENOTFOUND)
		prov_warn("cargo-auditable: '%s': .dep-v0 not read: %s", path, prov_error_last());
cleanup:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

/* The root package's origin: kind path, as the section says; no commit, no repository. */
static void root_origin(struct prov_origin *o, const struct prov_cargo_audit *a, const char *path)
{
	const struct prov_cargo_pkg *r = &a->pkgs[a->root];

	o->kind = prov_xstrdup("path");
	o->name = prov_xstrdup(r->name);
	o->version = prov_xstrdup(r->version);
	o->found_by = prov_xstrdup("cargo-auditable");
	o->evidence = prov_xasprintf("%s (.dep-v0: source %s, %zu package%s, format %lu)", path,
				     r->source, a->n, a->n == 1 ? "" : "s", a->format);
}

static int cargo_init(struct prov_resolver **out, const struct prov_resolve_ctx *ctx)
{
	struct cargo_resolver *r;

	(void)ctx;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return prov_error_set(PROV_ERROR, "libelf: %s", elf_errmsg(-1));
	r = prov_xcalloc(1, sizeof(*r));
	*out = &r->base;
	return 0;
}

static int cargo_resolve(struct prov_origin *out, struct prov_resolver *r, const struct prov_module *mod)
{
	struct prov_cargo_audit a;

	if (!mod->path || read_audit(&a, r->ctx->sysroot, mod->path) < 0) {
		prov_error_clear();
		return PROV_EPASSTHROUGH;
	}
	root_origin(out, &a, mod->path);
	prov_cargo_audit_release(&a);
	return 0;
}

/* One binary's root package and the other packages of its list, for env. */
static void inventory_file(void *arg, const char *root, const char *path)
{
	struct prov_origin_list *l = arg;
	struct prov_cargo_audit a;
	size_t i;

	if (read_audit(&a, root, path) < 0) {
		prov_error_clear();
		return;
	}
	prov_origin_list_add(l, prov_origin_new(NULL));
	root_origin(l->v[l->n - 1], &a, path);
	for (i = 0; i < a.n; i++) {
		struct prov_origin *o;

		if (i == a.root)
			continue;
		o = prov_origin_new("path");
		o->name = prov_xstrdup(a.pkgs[i].name);
		o->version = prov_xstrdup(a.pkgs[i].version);
		o->found_by = prov_xstrdup("cargo-auditable");
		o->evidence = prov_xasprintf("%s (.dep-v0 %sdependency of %s, source %s)", path,
					     a.pkgs[i].build ? "build " : "", a.pkgs[a.root].name,
					     a.pkgs[i].source);
		prov_origin_list_add(l, o);
	}
	prov_cargo_audit_release(&a);
}

/* Rust binaries in the root's program directories (at most INV_MAX_FILES files read). */
static int cargo_inventory(struct prov_resolver *r, struct prov_origin_list *l)
{
	if (!r->ctx->sysroot)
		return 0;	/* env without --sysroot: this host's binaries are not the question */
	prov_root_each_program(r->ctx->sysroot, INV_MAX_FILES, inventory_file, l);
	return 0;
}

static void cargo_free(struct prov_resolver *r)
{
	free(r);
}

const struct prov_resolver_ops prov_resolver_cargo_auditable = {
	.version = PROV_RESOLVER_VERSION,
	.name = "cargo-auditable",
	.init = cargo_init,
	.resolve = cargo_resolve,
	.inventory = cargo_inventory,
	.free = cargo_free,
};
