/* The go-buildinfo resolver: the main module, its commit and its dependencies from a Go binary's .go.buildinfo. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolver.h"
#include "kit-root.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * Go (since 1.18) writes its build information inline at the start of the
 * .go.buildinfo section: 14 bytes of magic "\xff Go buildinf:", the pointer
 * size, a flags byte (bit 1: inline strings), padding to 32 bytes, then two
 * uvarint-length-prefixed strings: the Go version and the module info text
 * (wrapped in 16-byte sentinels) with tab-separated lines "path P",
 * "mod P V [SUM]", "dep P V [SUM]", "=> P V [SUM]" (a replacement) and
 * "build KEY=VALUE" (vcs, vcs.revision, vcs.time, vcs.modified). Go < 1.18
 * stores pointers instead of the strings: not read (the binary is declined).
 */
#define BI_MAGIC "\xff Go buildinf:"
#define BI_MAGIC_LEN 14
#define BI_HDR 32
#define BI_CAP (4u << 20)	/* the most of the section read */
#define BI_SCAN_CAP (1u << 20)	/* the most of a data segment searched without the section */
#define BI_MAX_DEPS 10000
#define INV_MAX_FILES 5000

struct go_dep {
	char *path, *version;
};

struct go_info {
	char *go_version;
	char *path, *version;	/* the main module */
	char *vcs, *revision, *vcs_time;
	int modified;	/* -1 unknown, 0 false, 1 true */
	struct go_dep *deps;
	size_t ndeps, alloc;
};

struct go_resolver {
	struct prov_resolver base;
};

static void go_info_release(struct go_info *gi)
{
	size_t i;

	free(gi->go_version);
	free(gi->path);
	free(gi->version);
	free(gi->vcs);
	free(gi->revision);
	free(gi->vcs_time);
	for (i = 0; i < gi->ndeps; i++) {
		free(gi->deps[i].path);
		free(gi->deps[i].version);
	}
	free(gi->deps);
	memset(gi, 0, sizeof(*gi));
}

/* A uvarint at p (at most 10 bytes, before end): its length, 0 when malformed. */
static size_t uvarint(uint64_t *v, const unsigned char *p, const unsigned char *end)
{
	uint64_t x = 0;
	unsigned int shift = 0;
	size_t i;

	for (i = 0; i < 10 && p + i < end; i++) {
		x |= (uint64_t)(p[i] & 0x7f) << shift;
		if (!(p[i] & 0x80)) {
			*v = x;
			return i + 1;
		}
		shift += 7;
	}
	return 0;
}

/* A printable field (no control bytes: it is shown on terminals), else NULL. */
static char *field(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 4096)
		return NULL;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return NULL;
	return prov_xstrndup(s, n);
}

/* Split one modinfo line at tabs into at most 4 fields; returns the count. */
static size_t split_tabs(const char **f, size_t *fl, const char *s, size_t n)
{
	size_t k = 0, start = 0, i;

	for (i = 0; i <= n && k < 4; i++)
		if (i == n || s[i] == '\t') {
			f[k] = s + start;
			fl[k++] = i - start;
			start = i + 1;
		}
	return k;
}

static void modinfo_line(struct go_info *gi, const char *s, size_t n)
{
	const char *f[4];
	size_t fl[4], k = split_tabs(f, fl, s, n);

	if (k >= 2 && fl[0] == 4 && !memcmp(f[0], "path", 4) && !gi->path) {
		gi->path = field(f[1], fl[1]);
	} else if (k >= 3 && fl[0] == 3 && !memcmp(f[0], "mod", 3)) {
		free(gi->path);
		free(gi->version);
		gi->path = field(f[1], fl[1]);
		gi->version = field(f[2], fl[2]);
	} else if (k >= 3 && fl[0] == 3 && !memcmp(f[0], "dep", 3) && gi->ndeps < BI_MAX_DEPS) {
		PROV_ALLOC_GROW(gi->deps, gi->ndeps + 1, gi->alloc);
		gi->deps[gi->ndeps].path = field(f[1], fl[1]);
		gi->deps[gi->ndeps].version = field(f[2], fl[2]);
		if (gi->deps[gi->ndeps].path)
			gi->ndeps++;
		else
			free(gi->deps[gi->ndeps].version);
	} else if (k >= 3 && fl[0] == 2 && !memcmp(f[0], "=>", 2) && gi->ndeps > 0) {
		/* the dependency above is replaced: the replacement is what was built */
		struct go_dep *d = &gi->deps[gi->ndeps - 1];

		free(d->path);
		free(d->version);
		d->path = field(f[1], fl[1]);
		d->version = field(f[2], fl[2]);
		if (!d->path) {
			free(d->version);
			gi->ndeps--;
		}
	} else if (k >= 2 && fl[0] == 5 && !memcmp(f[0], "build", 5)) {
		const char *kv = f[1], *eq = memchr(kv, '=', fl[1]);
		size_t kl = eq ? (size_t)(eq - kv) : 0, vl = eq ? fl[1] - kl - 1 : 0;

		if (!eq)
			return;
		if (kl == 3 && !memcmp(kv, "vcs", 3) && !gi->vcs)
			gi->vcs = field(eq + 1, vl);
		else if (kl == 12 && !memcmp(kv, "vcs.revision", 12) && !gi->revision)
			gi->revision = field(eq + 1, vl);
		else if (kl == 8 && !memcmp(kv, "vcs.time", 8) && !gi->vcs_time)
			gi->vcs_time = field(eq + 1, vl);
		else if (kl == 12 && !memcmp(kv, "vcs.modified", 12))
			gi->modified = vl == 4 && !memcmp(eq + 1, "true", 4) ? 1 :
				       vl == 5 && !memcmp(eq + 1, "false", 5) ? 0 : -1;
	}
}

/*
 * Parse a buildinfo blob (the section's bytes from its magic): 0 with *gi
 * filled (at least the main module's path), PROV_ENOTFOUND when it is not
 * one this reader knows (Go < 1.18, no module info), PROV_EINPUT when malformed.
 */
static int buildinfo_parse(struct go_info *gi, const unsigned char *p, size_t n)
{
	const unsigned char *q = p + BI_HDR, *end = p + n;
	uint64_t len;
	size_t used, i, start;
	const char *mod;

	memset(gi, 0, sizeof(*gi));
	gi->modified = -1;
	if (n < BI_HDR || memcmp(p, BI_MAGIC, BI_MAGIC_LEN) != 0)
		return PROV_ENOTFOUND;
	if (!(p[15] & 2))
		return prov_error_set(PROV_ENOTFOUND, "Go build info of Go < 1.18 (pointers): not read");
	if (!(used = uvarint(&len, q, end)) || len > (uint64_t)(end - q - (ptrdiff_t)used))
		return prov_error_set(PROV_EINPUT, "malformed Go build info (version)");
	q += used;
	gi->go_version = field((const char *)q, (size_t)len);
	q += len;
	if (!(used = uvarint(&len, q, end)) || len > (uint64_t)(end - q - (ptrdiff_t)used))
		return prov_error_set(PROV_EINPUT, "malformed Go build info (module info)");
	q += used;
	/* the module info text between its two 16-byte sentinels */
	if (len < 33 || q[len - 17] != '\n')
		return prov_error_set(PROV_ENOTFOUND, "Go build info without module information");
	mod = (const char *)q + 16;
	len -= 32;
	for (i = 0, start = 0; i <= len; i++)
		if (i == len || mod[i] == '\n') {
			if (i > start)
				modinfo_line(gi, mod + start, i - start);
			start = i + 1;
		}
	if (!gi->path)
		return prov_error_set(PROV_ENOTFOUND, "Go build info names no main module");
	return 0;
}

/* The section's bytes from libelf (at most BI_CAP), else a data segment's first MiB. */
static int find_blob(const unsigned char **p, size_t *n, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, nph, i;
	int nsec = 0;

	if (elf_getshdrstrndx(elf, &shstrndx) == 0)
		while ((scn = elf_nextscn(elf, scn)) && nsec++ < 65536) {
			GElf_Shdr sh;
			const char *name;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!name || strcmp(name, ".go.buildinfo") != 0)
				continue;
			d = elf_getdata_rawchunk(elf, (int64_t)sh.sh_offset,
						 sh.sh_size < BI_CAP ? sh.sh_size : BI_CAP, ELF_T_BYTE);
			if (!d || !d->d_buf)
				return 0;
			*p = d->d_buf;
			*n = d->d_size;
			return 1;
		}
	/* no section headers: the writable segment, searched at 16-byte alignment */
	if (elf_getphdrnum(elf, &nph) < 0)
		return 0;
	for (i = 0; i < nph && i < 65536; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		size_t off, len;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_W))
			continue;
		len = ph.p_filesz < BI_SCAN_CAP ? ph.p_filesz : BI_SCAN_CAP;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, len, ELF_T_BYTE);
		if (!d || !d->d_buf)
			continue;
		for (off = 0; off + BI_HDR <= d->d_size; off += 16)
			if (!memcmp((const char *)d->d_buf + off, BI_MAGIC, BI_MAGIC_LEN)) {
				*p = (const unsigned char *)d->d_buf + off;
				*n = d->d_size - off;
				return 1;
			}
	}
	return 0;
}

/* The build info of the file at path under root: 0, or a negative code (not Go, unreadable). */
static int read_buildinfo(struct go_info *gi, const char *root, const char *path)
{
	const unsigned char *p = NULL;
	Elf *elf = NULL;
	struct stat st;
	size_t n = 0;
	int fd, err = PROV_ENOTFOUND;

	memset(gi, 0, sizeof(*gi));
	fd = prov_root_open(root, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return PROV_ENOTFOUND;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto cleanup;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto cleanup;
	if (find_blob(&p, &n, elf))
		err = buildinfo_parse(gi, p, n);
	if (err < 0)
		go_info_release(gi);
cleanup:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

/*
 * The repository of a Go module path: github.com/x/y[/...] (and gitlab.com,
 * bitbucket.org) -> https://HOST/x/y; any other path is kept as written
 * (the go command would ask https://PATH?go-get=1; not done here).
 */
static char *module_repo(const char *path)
{
	static const char *const forges[] = { "github.com/", "gitlab.com/", "bitbucket.org/" };
	size_t i;

	for (i = 0; i < sizeof(forges) / sizeof(forges[0]); i++) {
		size_t fl = strlen(forges[i]);
		const char *owner = path + fl, *slash, *end;

		if (strncmp(path, forges[i], fl) != 0)
			continue;
		slash = strchr(owner, '/');
		if (!slash || slash == owner || !slash[1])
			return NULL;
		end = strchr(slash + 1, '/');
		return prov_xasprintf("https://%.*s", (int)((end ? end : path + strlen(path)) - path), path);
	}
	return prov_xstrdup(path);
}

static int is_full_hex(const char *s)
{
	size_t i;

	if (!s)
		return 0;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == 40 || i == 64;
}

/* The main module's origin (evidence: the binary's path under the root). */
static void main_origin(struct prov_origin *o, const struct go_info *gi, const char *path)
{
	int git = gi->vcs && !strcmp(gi->vcs, "git");

	o->kind = prov_xstrdup(git ? "git" : "path");
	o->name = prov_xstrdup(gi->path);
	/* as Go says: "(devel)" for a build in the module's own tree (the component's version is null) */
	o->version = prov_xstrdup(gi->version ? gi->version : "(devel)");
	if (is_full_hex(gi->revision)) {
		o->commit = prov_xstrdup(gi->revision);
		/* built from a tree with local changes (or not said): near the commit, not it */
		o->commit_approximate = gi->modified != 0;
	}
	o->found_by = prov_xstrdup("go-buildinfo");
	o->evidence = prov_xasprintf("%s (.go.buildinfo: %s%s%s%s)", path,
				     gi->go_version ? gi->go_version : "go",
				     gi->vcs_time ? ", vcs.time=" : "", gi->vcs_time ? gi->vcs_time : "",
				     gi->modified == 1 ? ", vcs.modified=true" :
				     gi->modified == 0 ? ", vcs.modified=false" : "");
	o->upstream_url = module_repo(gi->path);
	if (o->upstream_url) {
		o->upstream_by = prov_xstrdup("go-buildinfo");
		o->upstream_evidence = prov_xstrdup(path);
	}
}

static int go_init(struct prov_resolver **out, const struct prov_resolve_ctx *ctx)
{
	struct go_resolver *r;

	(void)ctx;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return prov_error_set(PROV_ERROR, "libelf: %s", elf_errmsg(-1));
	r = prov_xcalloc(1, sizeof(*r));
	*out = &r->base;
	return 0;
}

static int go_resolve(struct prov_origin *out, struct prov_resolver *r, const struct prov_module *mod)
{
	struct go_info gi;

	if (!mod->path || read_buildinfo(&gi, r->ctx->sysroot, mod->path) < 0) {
		prov_error_clear();
		return PROV_EPASSTHROUGH;
	}
	main_origin(out, &gi, mod->path);
	go_info_release(&gi);
	return 0;
}

/* One binary's main module and dependencies, for env. */
static void inventory_file(void *arg, const char *root, const char *path)
{
	struct prov_origin_list *l = arg;
	struct go_info gi;
	size_t i;

	if (read_buildinfo(&gi, root, path) < 0) {
		prov_error_clear();
		return;
	}
	prov_origin_list_add(l, prov_origin_new(NULL));
	main_origin(l->v[l->n - 1], &gi, path);
	for (i = 0; i < gi.ndeps; i++) {
		struct prov_origin *o = prov_origin_new("path");

		o->name = prov_xstrdup(gi.deps[i].path);
		o->version = prov_xstrdup_or_null(gi.deps[i].version);
		o->found_by = prov_xstrdup("go-buildinfo");
		o->evidence = prov_xasprintf("%s (.go.buildinfo dep of %s)", path, gi.path);
		o->upstream_url = module_repo(gi.deps[i].path);
		if (o->upstream_url) {
			o->upstream_by = prov_xstrdup("go-buildinfo");
			o->upstream_evidence = prov_xstrdup(path);
		}
		prov_origin_list_add(l, o);
	}
	go_info_release(&gi);
}

/* Go binaries in the root's program directories (at most INV_MAX_FILES files read). */
static int go_inventory(struct prov_resolver *r, struct prov_origin_list *l)
{
	if (!r->ctx->sysroot)
		return 0;	/* env without --sysroot: this host's binaries are not the question */
	prov_root_each_program(r->ctx->sysroot, INV_MAX_FILES, inventory_file, l);
	return 0;
}

static void go_free(struct prov_resolver *r)
{
	free(r);
}

const struct prov_resolver_ops prov_resolver_go_buildinfo = {
	.version = PROV_RESOLVER_VERSION,
	.name = "go-buildinfo",
	.init = go_init,
	.resolve = go_resolve,
	.inventory = go_inventory,
	.free = go_free,
};
