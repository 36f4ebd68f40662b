/*
 * Frames for a pc: function, inlined scopes, file:line from DWARF, kept per
 * pc and per unwound chain so that alike threads are not looked up again.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "core-int.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/* C++ demangling from libstdc++, as eu-stack does. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* ---- names ---- */

char *core_demangle(const char *name)
{
	char *d;
	int status = -1;

	if (!name)
		return NULL;
	if (name[0] == '_' && name[1] == 'Z') {
		d = __cxa_demangle(name, NULL, NULL, &status);
		if (d && status == 0)
			return d;
		free(d);
	}
	return prov_xstrdup(name);
}

/* An ELF symbol without its version ("__libc_start_main@@GLIBC_2.34"), demangled. */
static char *symbol_name(const char *sym)
{
	const char *at = sym ? strchr(sym, '@') : NULL;
	char *plain, *d;

	if (!at || at == sym)
		return core_demangle(sym);
	plain = prov_xstrndup(sym, (size_t)(at - sym));
	d = core_demangle(plain);
	free(plain);
	return d;
}

/*
 * A line-table name joined with the CU's comp_dir when relative. libdw has
 * already prefixed names whose directory entry is the comp_dir (DWARF 5,
 * relative comp_dirs such as Debian's "./nptl"): do not prefix twice.
 */
static char *path_join(const char *dir, const char *name)
{
	size_t n;

	if (!name)
		return NULL;
	if (name[0] == '/' || !dir || !*dir)
		return prov_xstrdup(name);
	n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(name, dir, n) == 0 && name[n] == '/')
		return prov_xstrdup(name);
	return prov_xasprintf("%.*s/%s", (int)n, dir, name);
}

/* ---- a pc's function and inlined scopes (DWARF) ---- */

static char *die_function_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		s = dwarf_formstring(&attr);
	if (s)
		return core_demangle(s);
	s = dwarf_diename(die);
	return s ? prov_xstrdup(s) : NULL;
}

static const char *cu_comp_dir(Dwarf_Die *cudie)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr(cudie, DW_AT_comp_dir, &attr))
		return NULL;
	return dwarf_formstring(&attr);
}

/* The call site of an inlined subroutine: file (new string) and line. */
static void call_site(Dwarf_Die *cudie, Dwarf_Die *inl, char **file, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word fileidx = 0, lineno = 0;
	Dwarf_Files *files;
	size_t nfiles;
	const char *name = NULL;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(inl, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &lineno) == 0 &&
	    lineno <= INT32_MAX)
		*line = (int)lineno;
	if (dwarf_attr(inl, DW_AT_call_file, &attr) && dwarf_formudata(&attr, &fileidx) == 0 &&
	    dwarf_getsrcfiles(cudie, &files, &nfiles) == 0 && fileidx < nfiles)
		name = dwarf_filesrc(files, fileidx, NULL, NULL);
	if (name)
		*file = path_join(cu_comp_dir(cudie), name);
}

#define MAX_SCOPE_DEPTH 128

/* Does the DIE say where its code is (low_pc/high_pc, ranges, entry_pc)? */
static int die_has_code_attrs(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/*
 * The scopes holding addr below `parent`, appended outermost first: the
 * subprogram, then lexical blocks and inlined subroutines down to the
 * innermost. Walks the DIE tree itself: libdw's dwarf_getscopes misses the
 * inline chains of GCC's LTO units (abstract origins in other units).
 */
static void walk_scopes(Dwarf_Die *parent, Dwarf_Addr addr, Dwarf_Die **v, size_t *n,
			size_t *alloc, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_SCOPE_DEPTH || dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (!die_has_code_attrs(&child)) {
				/* a block without ranges of its own: what it holds may have some */
				if (tag == DW_TAG_lexical_block) {
					size_t before = *n;

					walk_scopes(&child, addr, v, n, alloc, depth + 1);
					if (*n > before)
						return;
				}
				break;
			}
			if (dwarf_haspc(&child, addr) != 1)
				break;
			PROV_ALLOC_GROW(*v, *n + 1, *alloc);
			(*v)[(*n)++] = child;
			walk_scopes(&child, addr, v, n, alloc, depth + 1);
			return;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type: {
			/* C++ member functions and namespaced code */
			size_t before = *n;

			if (depth > 8)
				break;
			walk_scopes(&child, addr, v, n, alloc, depth + 1);
			if (*n > before)
				return;
			break;
		}
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* dwarf_getscopes' shape (innermost first, up to the subprogram): count, or 0 when none. */
static int die_scopes(Dwarf_Die *cudie, Dwarf_Addr addr, Dwarf_Die **out)
{
	Dwarf_Die *v = NULL, *r;
	size_t n = 0, alloc = 0, i;

	*out = NULL;
	walk_scopes(cudie, addr, &v, &n, &alloc, 0);
	if (!n || dwarf_tag(&v[0]) != DW_TAG_subprogram) {
		free(v);
		return 0;
	}
	r = prov_xcalloc(n, sizeof(*r));
	for (i = 0; i < n; i++)
		r[i] = v[n - 1 - i];
	free(v);
	*out = r;
	return (int)n;
}

/* ---- frames, kept per pc and per chain ---- */

struct prov_frame *core_new_frame(struct core_ctx *x, struct prov_thread *t)
{
	struct prov_frame *f;

	if (t->nframes >= x->max_frames) {
		t->truncated = 1;
		return NULL;
	}
	if (x->unwind.total_frames >= PROV_MAX_TOTAL_FRAMES) {
		t->truncated = 1;
		x->unwind.total_cut = 1;
		return NULL;
	}
	f = prov_thread_add_frame(t);
	if (f)
		x->unwind.total_frames++;
	return f;
}

static void frame_copy(struct prov_frame *dst, const struct prov_frame *src)
{
	int index = dst->index;

	*dst = *src;
	dst->index = index;
	dst->function = prov_xstrdup_or_null(src->function);
	dst->module = prov_xstrdup_or_null(src->module);
	dst->file = prov_xstrdup_or_null(src->file);
	dst->repo_path = NULL;
	dst->path_rule = NULL;
	dst->component = NULL;
	dst->has_vars = 0;
	dst->args = dst->locals = NULL;
	dst->nargs = dst->nlocals = 0;
	dst->located_by = NULL;
}

static struct pc_memo *memo_slot(struct core_ctx *x, uint64_t pc, uint64_t adj)
{
	size_t i, mask;

	if (!x->memo.pcs) {
		x->memo.pcs = prov_xcalloc(PC_MEMO_CAP, sizeof(*x->memo.pcs));
		x->memo.pcs_cap = PC_MEMO_CAP;
	}
	mask = x->memo.pcs_cap - 1;
	for (i = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 40) & mask;; i = (i + 1) & mask) {
		struct pc_memo *e = &x->memo.pcs[i];

		if (!e->used || (e->pc == pc && e->adj == adj))
			return e;
	}
}

/* After unwinding: the note of the total frames cap, chain memo freed. */
void core_chain_finish(struct core_ctx *x)
{
	free(x->memo.chain);
	x->memo.chain = NULL;
	x->memo.chain_cap = x->memo.chain_used = 0;
	if (x->unwind.total_cut && x->c && !x->c->threads_note) {
		x->c->threads_note = prov_xasprintf("more than %d frames in all threads: the "
						    "threads marked truncated were cut short or "
						    "not unwound", PROV_MAX_TOTAL_FRAMES);
		prov_warn("'%s': %s", x->path, x->c->threads_note);
	}
}

/*
 * A Go module's .gopclntab (kept by the Go runtime in stripped binaries),
 * read once per module; NULL when it has none. *bias: the module's load bias.
 */
/* The bytes of elf from link-time address addr to the end of the section holding it. */
static const unsigned char *elf_bytes_at(Elf *elf, uint64_t addr, size_t *size)
{
	Elf_Scn *scn = NULL;
	int nsec = 0;

	*size = 0;
	while ((scn = elf_nextscn(elf, scn)) && nsec++ < 65536) {
		GElf_Shdr sh;
		Elf_Data *d;
		uint64_t skip;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || addr < sh.sh_addr ||
		    addr - sh.sh_addr >= sh.sh_size || sh.sh_size > (1u << 30))
			continue;
		skip = addr - sh.sh_addr;
		d = elf_getdata_rawchunk(elf, (int64_t)(sh.sh_offset + skip), sh.sh_size - skip,
					 ELF_T_BYTE);
		if (!d || !d->d_buf)
			return NULL;
		*size = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

/*
 * A Go module's .gopclntab (kept by the Go runtime in stripped binaries),
 * read once per module; NULL when it has none. *bias: the module's load bias.
 * Also go.func.* (the inline trees), found through runtime.moduledata.
 */
static const struct prov_gopcln *go_table(struct core_ctx *x, Dwfl_Module *m, Dwarf_Addr *bias)
{
	struct prov_gopcln *t = NULL;
	Elf *elf;
	Elf_Scn *scn = NULL;
	Elf_Data *d = NULL, *nd = NULL;
	GElf_Addr text = 0, tab_addr = 0;
	uint64_t gofunc = 0;
	size_t i, shstrndx;
	int nsec = 0;

	*bias = 0;
	for (i = 0; i < x->go.n; i++)
		if (x->go.mod[i] == m) {
			if (x->go.tab[i])
				dwfl_module_getelf(m, bias);
			return x->go.tab[i];
		}
	if (x->go.n == CORE_GO_MAX)
		return NULL;
	i = x->go.n;
	x->go.gofunc[i] = NULL;
	x->go.gofunc_size[i] = 0;
	elf = dwfl_module_getelf(m, bias);
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
		while ((scn = elf_nextscn(elf, scn)) && nsec++ < 65536) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (name && !strcmp(name, ".text")) {
				text = sh.sh_addr;
			} else if (name && (!strcmp(name, ".gopclntab") ||
					    !strcmp(name, ".data.rel.ro.gopclntab")) &&
				   !d && sh.sh_size <= (1u << 30)) {
				d = elf_getdata_rawchunk(elf, (int64_t)sh.sh_offset, sh.sh_size, ELF_T_BYTE);
				tab_addr = sh.sh_addr;
			} else if (name && !strcmp(name, ".noptrdata") && !nd && sh.sh_size <= (1u << 30)) {
				nd = elf_getdata_rawchunk(elf, (int64_t)sh.sh_offset, sh.sh_size, ELF_T_BYTE);
			}
		}
	if (d && d->d_buf && prov_gopcln_open(&t, d->d_buf, d->d_size, text) < 0)
		prov_error_clear();
	if (t && nd && nd->d_buf) {
		if (prov_gopcln_gofunc(t, nd->d_buf, nd->d_size, tab_addr, &gofunc) == 0)
			x->go.gofunc[i] = elf_bytes_at(elf, gofunc, &x->go.gofunc_size[i]);
		prov_error_clear();
	}
	x->go.mod[i] = m;
	x->go.tab[i] = t;
	x->go.n++;
	return t;
}

/* go.func.* of m's Go module (after go_table), or NULL. */
static const unsigned char *go_func_data(const struct core_ctx *x, Dwfl_Module *m, size_t *size)
{
	size_t i;

	*size = 0;
	for (i = 0; i < x->go.n; i++)
		if (x->go.mod[i] == m) {
			*size = x->go.gofunc_size[i];
			return x->go.gofunc[i];
		}
	return NULL;
}

int core_go_caller(struct core_ctx *x, Dwarf_Addr pc, Dwarf_Addr adj, uint64_t sp, uint64_t bp,
		   struct core_go_caller *out)
{
	static const char *const stops[] = { "runtime.goexit", "runtime.mstart", "runtime.systemstack",
		"runtime.mcall", "runtime.morestack", "runtime.asmcgocall", "runtime.cgocallback",
		"runtime.rt0_go", "runtime.sigreturn" };
	const struct prov_gopcln *t;
	Dwfl_Module *m = core_addrmodule(x->dwfl, adj);
	const char *func, *file, *rfunc;
	Dwarf_Addr bias;
	uint64_t entry, ret, obp = 0;
	unsigned char raw[8];
	int32_t delta;
	int line, inlined;
	size_t i;

	(void)pc;
	if (x->machine != EM_X86_64 || !sp || !m || !(t = go_table(x, m, &bias)) ||
	    prov_gopcln_lookup(t, adj - bias, &func, &entry, &file, &line, &inlined) < 0 ||
	    prov_gopcln_spdelta(t, adj - bias, &delta) < 0 || delta > (1 << 24))
		return 0;
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		if (prov_starts_with(func, stops[i]))
			return 0;
	if (core_read(x, sp + (uint64_t)delta, raw, 8) < 0 || !(ret = core_rd64(x, raw)) ||
	    core_addrmodule(x->dwfl, ret) != m ||
	    prov_gopcln_lookup(t, ret - 1 - bias, &rfunc, &entry, &file, &line, &inlined) < 0)
		return 0;
	if (delta >= 8 && core_read(x, sp + (uint64_t)delta - 8, raw, 8) == 0)
		obp = core_rd64(x, raw);
	out->ret = ret;
	out->ret_at = sp + (uint64_t)delta;
	out->bp = delta == 0 ? bp : obp;
	out->fault = !strcmp(func, "runtime.sigpanic");
	return 1;
}

/*
 * The last frame of t, which no symbol names, named from its Go module's
 * pclntab (file and line too, if DWARF had none); when pc is in inlined
 * calls, they come first as Go's traceback prints them, the last frame
 * then being the real one. 0, or -1 at the frames cap.
 */
static int go_frames(struct core_ctx *x, struct prov_thread *t, Dwfl_Module *m, Dwarf_Addr pc,
		     Dwarf_Addr adj)
{
	struct prov_gopcln_frame g[CORE_GO_INLINE_MAX];
	const struct prov_gopcln *tab;
	const unsigned char *gf;
	const char *func, *file;
	Dwarf_Addr bias;
	uint64_t entry;
	size_t gfsize;
	int line, inlined, n, k;

	if (!m || !(tab = go_table(x, m, &bias)) ||
	    prov_gopcln_lookup(tab, adj - bias, &func, &entry, &file, &line, &inlined) < 0)
		return 0;
	gf = go_func_data(x, m, &gfsize);
	n = prov_gopcln_frames(tab, adj - bias, gf, gfsize, g, CORE_GO_INLINE_MAX);
	if (n < 1) {
		/* the outer function's name alone, without the callee's line */
		if (inlined && !x->go.inl_warned && *prov_error_last()) {
			x->go.inl_warned = 1;
			prov_warn("'%s': %s", x->path, prov_error_last());
		}
		prov_error_clear();
		g[0].func = func;
		g[0].file = file;
		g[0].line = line;
		n = 1;
	}
	for (k = 0; k < n; k++) {
		struct prov_frame *f = &t->frames[t->nframes - 1];

		if (k > 0) {
			char *mod = prov_xstrdup_or_null(f->module);

			f = core_new_frame(x, t);
			if (!f) {
				free(mod);
				return -1;
			}
			f->has_pc = 1;
			f->pc = pc;
			f->module = mod;
		}
		f->function = prov_xstrdup(g[k].func);
		f->inlined = k < n - 1;
		if (k == n - 1) {
			f->has_offset = 1;
			f->offset = pc - bias - entry;
		}
		if (!f->line && g[k].line > 0) {
			free(f->file);
			f->file = prov_xstrdup_or_null(g[k].file);
			f->line = g[k].line;
			f->column = 0;
		}
	}
	return 0;
}

static int add_pc_frames_uncached(struct core_ctx *x, struct prov_thread *t, Dwarf_Addr pc,
				  Dwarf_Addr adj);

static size_t chain_hash(uint64_t pc, uint64_t sp, uint64_t fp)
{
	uint64_t h = (pc * 0x9e3779b97f4a7c15ull) ^ (sp * 0xc2b2ae3d27d4eb4full) ^
		     (fp * 0x165667b19e3779f9ull);

	return (size_t)(h ^ (h >> 29));
}

/* The entry of (pc, sp, fp), or the free slot where it would go. */
struct chain_memo *core_chain_slot(struct core_ctx *x, uint64_t pc, uint64_t sp, uint64_t fp)
{
	size_t i, mask = x->memo.chain_cap - 1;

	for (i = chain_hash(pc, sp, fp) & mask;; i = (i + 1) & mask) {
		struct chain_memo *e = &x->memo.chain[i];

		if (!e->used || (e->pc == pc && e->sp == sp && e->fp == fp))
			return e;
	}
}

/* Remember that the frames of (pc, sp, fp) start at frame `frame` of the current thread. */
void core_chain_remember(struct core_ctx *x, uint64_t pc, uint64_t sp, uint64_t fp, size_t frame)
{
	struct chain_memo *e;

	if (x->memo.chain_used + 1 >= x->memo.chain_cap / 2) {
		struct chain_memo *old = x->memo.chain;
		size_t i, n = x->memo.chain_cap;

		x->memo.chain_cap = n ? 2 * n : 1024;
		x->memo.chain = prov_xcalloc(x->memo.chain_cap, sizeof(*x->memo.chain));
		for (i = 0; i < n; i++)
			if (old[i].used)
				*core_chain_slot(x, old[i].pc, old[i].sp, old[i].fp) = old[i];
		free(old);
	}
	e = core_chain_slot(x, pc, sp, fp);
	if (e->used)
		return;
	e->used = 1;
	e->pc = pc;
	e->sp = sp;
	e->fp = fp;
	e->thread = (uint32_t)x->unwind.cur;
	e->frame = (uint32_t)frame;
	x->memo.chain_used++;
}

/*
 * The current thread met a frame another thread has: copy that thread's
 * frames from there to its end, with the way its chain ended (truncated,
 * or why it stopped). 0, or -1 at a cap.
 */
int core_chain_copy(struct core_ctx *x, struct prov_thread *t, const struct chain_memo *e)
{
	size_t k;

	for (k = e->frame; k < x->c->threads[e->thread].nframes; k++) {
		struct prov_frame *f = core_new_frame(x, t);
		const struct prov_thread *src;

		if (!f)
			return -1;
		src = &x->c->threads[e->thread];	/* core_new_frame may not move threads, but be plain */
		frame_copy(f, &src->frames[k]);
	}
	if (x->c->threads[e->thread].truncated)
		t->truncated = 1;
	if (x->c->threads[e->thread].unwind_error && !t->unwind_error)
		t->unwind_error = prov_xstrdup(x->c->threads[e->thread].unwind_error);
	return 0;
}

/* Emit the frames of one pc: inlined ones first (innermost first), then the real one. 0 or -1 at the cap. */
int core_add_pc_frames(struct core_ctx *x, struct prov_thread *t, Dwarf_Addr pc, Dwarf_Addr adj)
{
	struct pc_memo *e = memo_slot(x, pc, adj);
	size_t first = t->nframes, k;

	if (e->used) {
		for (k = 0; k < e->n; k++) {
			struct prov_frame *f = core_new_frame(x, t);

			if (!f)
				return -1;
			frame_copy(f, &e->frames[k]);
		}
		return 0;
	}
	if (add_pc_frames_uncached(x, t, pc, adj) < 0)
		return -1;
	/* keep a free slot or two so that lookups always end */
	if (x->memo.pcs_used + 1 < x->memo.pcs_cap - x->memo.pcs_cap / 4) {
		e->used = 1;
		e->pc = pc;
		e->adj = adj;
		e->n = t->nframes - first;
		e->frames = prov_xcalloc(e->n ? e->n : 1, sizeof(*e->frames));
		for (k = 0; k < e->n; k++)
			frame_copy(&e->frames[k], &t->frames[first + k]);
		x->memo.pcs_used++;
	}
	return 0;
}

/*
 * dwfl_addrmodule, but only a module whose range holds addr: libdwfl 0.188
 * builds its address table from the modules alone (we report no segments)
 * and gives the highest module for every address above it (a pc in the
 * vsyscall page was "[vdso]", a jump past the last library was in it).
 */
Dwfl_Module *core_addrmodule(Dwfl *dwfl, Dwarf_Addr addr)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr lo = 0, hi = 0;

	if (m && dwfl_module_info(m, NULL, &lo, &hi, NULL, NULL, NULL, NULL) &&
	    (addr < lo || addr >= hi))
		return NULL;
	return m;
}

static int add_pc_frames_uncached(struct core_ctx *x, struct prov_thread *t, Dwarf_Addr pc,
				  Dwarf_Addr adj)
{
	Dwfl_Module *m = core_addrmodule(x->dwfl, adj);
	const char *modname = NULL, *sname = NULL;
	GElf_Off off = 0;
	GElf_Sym sym;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cudie = NULL, *scopes = NULL;
	int nscopes = 0, i, line = 0, col = 0, error = 0;
	char *file = NULL, *subprogram = NULL;
	struct prov_frame *f;

	if (m) {
		Dwfl_Line *ln;

		modname = core_module_recorded_path(m);
		sname = dwfl_module_addrinfo(m, adj, &off, &sym, NULL, NULL, NULL);
		cudie = dwfl_module_addrdie(m, adj, &bias);
		if (cudie)
			nscopes = die_scopes(cudie, adj - bias, &scopes);
		if (nscopes <= 0 && cudie) {
			free(scopes);
			scopes = NULL;
			nscopes = dwarf_getscopes(cudie, adj - bias, &scopes);
		}
		if (nscopes < 0)
			nscopes = 0;
		ln = dwfl_module_getsrc(m, adj);
		if (ln) {
			const char *src = dwfl_lineinfo(ln, NULL, &line, &col, NULL, NULL);

			if (src)
				file = path_join(dwfl_line_comp_dir(ln), src);
		}
	}
	for (i = 0; i < nscopes; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine) {
			char *cfile;
			int cline;

			f = core_new_frame(x, t);
			if (!f) {
				error = -1;
				goto cleanup;
			}
			f->has_pc = 1;
			f->pc = pc;
			f->function = die_function_name(&scopes[i]);
			f->module = prov_xstrdup_or_null(modname);
			f->file = file;
			f->line = line;
			f->column = col;
			f->inlined = 1;
			file = NULL;
			call_site(cudie, &scopes[i], &cfile, &cline);
			file = cfile;
			line = cline;
			col = 0;
		} else if (tag == DW_TAG_subprogram) {
			subprogram = die_function_name(&scopes[i]);
			break;
		}
	}
	f = core_new_frame(x, t);
	if (!f) {
		error = -1;
		goto cleanup;
	}
	f->has_pc = 1;
	f->pc = pc;
	/* DWARF names what gdb names (__libc_start_main_impl); else the symbol */
	if (subprogram) {
		f->function = subprogram;
		subprogram = NULL;
	} else if (sname) {
		f->function = symbol_name(sname);
	}
	if (sname) {
		f->has_offset = 1;
		f->offset = off + (pc - adj);
	}
	f->module = prov_xstrdup_or_null(modname);
	f->file = file;
	file = NULL;
	f->line = line;
	f->column = col;
	if (!f->function)
		error = go_frames(x, t, m, pc, adj);
cleanup:
	free(file);
	free(subprogram);
	free(scopes);
	return error;
}
