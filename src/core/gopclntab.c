/* A reader of Go's .gopclntab (Go 1.16+): pc -> function, file and line for stripped Go binaries. */
#include <stdlib.h>
#include <string.h>

#include "gopclntab.h"
#include "error.h"
#include "util.h"
#include "banned.h"

#define MAGIC_116 0xfffffffau
#define MAGIC_118 0xfffffff0u
#define MAGIC_120 0xfffffff1u
#define MAX_FUNCS (1u << 24)	/* more functions than any real binary */
#define MAX_STR 4096
#define PCDATA_INLTREEINDEX 2
#define MAX_STEPS (1u << 20)	/* pc-value pairs walked for one lookup */
#define FUNCDATA_INLTREE 3
/*
 * runtime.inlinedCall: Go 1.18/1.19 (20 bytes): parent int16, funcID, pad,
 * file, line, nameOff, parentPc; Go 1.20+ (16 bytes): funcID, 3 pad bytes,
 * nameOff, parentPc, startLine.
 */
#define INLCALL_SIZE_118 20
#define INLCALL_SIZE_120 16
#define MAX_INLINE_DEPTH 64
/*
 * runtime.moduledata, in pointer-sized words: pcHeader, six slices,
 * findfunctab, minpc, maxpc, then text, etext, noptrdata, enoptrdata, data,
 * edata, bss, ebss, noptrbss, enoptrbss, [1.20+: covctrs, ecovctrs,] end,
 * gcdata, gcbss, types, etypes, rodata, gofunc.
 */
#define MODDATA_TEXT 22
#define MODDATA_GOFUNC_118 38
#define MODDATA_GOFUNC_120 40

struct prov_gopcln {
	const unsigned char *d;
	size_t size;
	int v118;	/* 1.18+ layout: uint32 entry offsets from text_start */
	int v120;	/* 1.20+: _func has startLine */
	unsigned int ptr;
	uint64_t nfunc, text_start;
	/* offsets of the sub-tables in d */
	uint64_t funcname, cu, filetab, pctab, funcdata;
};

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rdptr(const unsigned char *p, unsigned int ptr)
{
	return ptr == 8 ? (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32 : rd32(p);
}

/* 1 when [off, off+len) lies in the table */
static int in(const struct prov_gopcln *t, uint64_t off, uint64_t len)
{
	return off <= t->size && len <= t->size - off;
}

int prov_gopcln_open(struct prov_gopcln **out, const unsigned char *data, size_t size,
		     uint64_t text_start)
{
	struct prov_gopcln *t;
	uint32_t magic;
	unsigned int ptr, words;
	uint64_t w[8], fsz;
	unsigned int i;

	*out = NULL;
	if (!data || size < 8)
		return PROV_ENOTFOUND;
	magic = rd32(data);
	if (magic != MAGIC_116 && magic != MAGIC_118 && magic != MAGIC_120)
		return PROV_ENOTFOUND;
	ptr = data[7];
	if (data[4] != 0 || data[5] != 0 || data[6] != 1 || (ptr != 4 && ptr != 8))
		return prov_error_set(PROV_ENOTFOUND, "a Go pclntab for another architecture "
				      "(quantum %u, pointer size %u)", data[6], ptr);
	words = magic == MAGIC_116 ? 7 : 8;
	if (size < 8 + (size_t)words * ptr)
		return prov_error_set(PROV_EINPUT, "truncated Go pclntab header");
	for (i = 0; i < words; i++)
		w[i] = rdptr(data + 8 + i * ptr, ptr);
	t = prov_xcalloc(1, sizeof(*t));
	t->d = data;
	t->size = size;
	t->ptr = ptr;
	t->v118 = magic != MAGIC_116;
	t->v120 = magic == MAGIC_120;
	t->nfunc = w[0];
	if (t->v118) {
		/* runtime.text is never below .text (gopclntab.h) */
		t->text_start = w[2] && w[2] >= text_start ? w[2] : text_start;
		t->funcname = w[3];
		t->cu = w[4];
		t->filetab = w[5];
		t->pctab = w[6];
		t->funcdata = w[7];
	} else {
		t->funcname = w[2];
		t->cu = w[3];
		t->filetab = w[4];
		t->pctab = w[5];
		t->funcdata = w[6];
	}
	/* the functab: nfunc (entry, funcoff) pairs and the end pc */
	fsz = t->v118 ? 4 : ptr;
	if (t->nfunc == 0 || t->nfunc > MAX_FUNCS || !in(t, t->funcname, 0) || !in(t, t->cu, 0) ||
	    !in(t, t->filetab, 0) || !in(t, t->pctab, 0) ||
	    !in(t, t->funcdata, (t->nfunc * 2 + 1) * fsz)) {
		free(t);
		return prov_error_set(PROV_EINPUT, "malformed Go pclntab (offsets outside the table)");
	}
	*out = t;
	return 0;
}

void prov_gopcln_free(struct prov_gopcln *t)
{
	free(t);
}

/* functab entry i's pc (i == nfunc: the end) */
static uint64_t ft_pc(const struct prov_gopcln *t, uint64_t i)
{
	if (t->v118)
		return t->text_start + rd32(t->d + t->funcdata + i * 8);
	return rdptr(t->d + t->funcdata + i * 2 * t->ptr, t->ptr);
}

static uint64_t ft_off(const struct prov_gopcln *t, uint64_t i)
{
	if (t->v118)
		return rd32(t->d + t->funcdata + i * 8 + 4);
	return rdptr(t->d + t->funcdata + i * 2 * t->ptr + t->ptr, t->ptr);
}

/* A NUL-terminated printable string at off (base + rel), else NULL. */
static const char *str_at(const struct prov_gopcln *t, uint64_t base, uint64_t rel)
{
	const unsigned char *s, *nul;
	size_t avail, i;

	if (rel > t->size || !in(t, base + rel, 1))
		return NULL;
	s = t->d + base + rel;
	avail = t->size - (base + rel);
	nul = memchr(s, 0, avail < MAX_STR ? avail : MAX_STR);
	if (!nul || nul == s)
		return NULL;
	for (i = 0; s + i < nul; i++)
		if (s[i] < 0x20 || s[i] == 0x7f)
			return NULL;
	return (const char *)s;
}

/* A uint32 varint at *off (bounded by the table); 0 when malformed. */
static int varint(uint32_t *v, const struct prov_gopcln *t, uint64_t *off)
{
	uint32_t x = 0;
	unsigned int shift;

	for (shift = 0; shift < 35; shift += 7) {
		unsigned char b;

		if (*off >= t->size)
			return 0;
		b = t->d[(*off)++];
		x |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 1;
		}
	}
	return 0;
}

/* The value of the pc-value table at pctab+off for target (Go's pcvalue); -1 unknown. */
static int32_t pcvalue(const struct prov_gopcln *t, uint32_t off, uint64_t entry, uint64_t target)
{
	uint64_t p = t->pctab + off, pc = entry;
	int32_t val = -1;
	uint32_t n;

	if (off == 0 || !in(t, p, 1))
		return -1;
	for (n = 0; n < MAX_STEPS; n++) {
		uint32_t uv, pcd;

		if (!varint(&uv, t, &p) || (uv == 0 && n > 0))
			return -1;
		uv = uv & 1 ? ~(uv >> 1) : uv >> 1;
		if (!varint(&pcd, t, &p))
			return -1;
		pc += pcd;	/* quantum 1 (checked at open) */
		val += (int32_t)uv;
		if (target < pc)
			return val;
	}
	return -1;
}

/* The function holding pc: its entry and the offset of its _func's uint32
 * fields (after the entry) in the table. 0, or PROV_ENOTFOUND. */
static int find_func(const struct prov_gopcln *t, uint64_t pc, uint64_t *entry, uint64_t *basep)
{
	uint64_t lo = 0, hi, f;
	unsigned int sz0;

	*entry = 0;
	if (pc < ft_pc(t, 0) || pc >= ft_pc(t, t->nfunc))
		return PROV_ENOTFOUND;
	hi = t->nfunc;	/* ft_pc(lo) <= pc < ft_pc(hi) */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (ft_pc(t, mid) <= pc)
			lo = mid;
		else
			hi = mid;
	}
	*entry = ft_pc(t, lo);
	/* the _func: entry (uint32 in 1.18+, else a pointer), then uint32 fields */
	sz0 = t->v118 ? 4 : t->ptr;
	f = ft_off(t, lo);
	if (f > t->size || !in(t, t->funcdata + f, sz0 + 8 * 4))
		return PROV_ENOTFOUND;
	*basep = t->funcdata + f + sz0;
	return 0;
}

int prov_gopcln_spdelta(const struct prov_gopcln *t, uint64_t pc, int32_t *delta)
{
	uint64_t entry, base;
	int32_t v;

	*delta = 0;
	if (find_func(t, pc, &entry, &base) < 0)
		return PROV_ENOTFOUND;
	v = pcvalue(t, rd32(t->d + base + 3 * 4), entry, pc);	/* the _func's pcsp */
	if (v < 0)
		return PROV_ENOTFOUND;
	*delta = v;
	return 0;
}

/* The file and line at pc of the function whose _func fields start at base. */
static void funcline(const struct prov_gopcln *t, uint64_t base, uint64_t entry, uint64_t pc,
		     const char **file, int *line)
{
	uint32_t pcfile = rd32(t->d + base + 4 * 4), pcln = rd32(t->d + base + 5 * 4);
	uint32_t cuoff = rd32(t->d + base + 7 * 4);
	int32_t fno, ln;
	uint64_t at;

	*file = NULL;
	ln = pcvalue(t, pcln, entry, pc);
	*line = ln > 0 ? ln : 0;
	fno = pcvalue(t, pcfile, entry, pc);
	if (fno >= 0 && (uint64_t)cuoff + (uint64_t)fno < (1ull << 32)) {
		at = t->cu + ((uint64_t)cuoff + (uint64_t)fno) * 4;
		if (in(t, at, 4) && rd32(t->d + at) != 0xffffffffu)
			*file = str_at(t, t->filetab, rd32(t->d + at));
	}
}

/* The index of the _func's uint32 word (after the entry) that ends with
 * nfuncdata: funcID, flag, pad, nfuncdata; 1.20 put startLine before it. */
static uint64_t flag_word(const struct prov_gopcln *t)
{
	return t->v120 ? 9 : 8;
}

/* The inline tree index at pc (-1: not in an inlined body, or no table). */
static int32_t inl_index(const struct prov_gopcln *t, uint64_t base, uint64_t entry, uint64_t pc)
{
	uint32_t npcdata = rd32(t->d + base + 6 * 4);
	uint64_t at = base + (flag_word(t) + 1) * 4;	/* the pcdata offsets */

	if (npcdata <= PCDATA_INLTREEINDEX || !in(t, at + PCDATA_INLTREEINDEX * 4, 4))
		return -1;
	return pcvalue(t, rd32(t->d + at + PCDATA_INLTREEINDEX * 4), entry, pc);
}

int prov_gopcln_lookup(const struct prov_gopcln *t, uint64_t pc, const char **func,
		       uint64_t *entry, const char **file, int *line, int *inlined)
{
	uint64_t base;

	*func = NULL;
	*file = NULL;
	*line = 0;
	*inlined = 0;
	if (find_func(t, pc, entry, &base) < 0)
		return PROV_ENOTFOUND;
	*func = str_at(t, t->funcname, rd32(t->d + base));
	if (!*func)
		return PROV_ENOTFOUND;
	/*
	 * In an inlined body the line table gives the callee's file:line; the
	 * callee is named only by the inline tree (prov_gopcln_frames): no
	 * line here rather than the callee's line under the caller's name.
	 */
	if (inl_index(t, base, *entry, pc) >= 0) {
		*inlined = 1;
		return 0;
	}
	funcline(t, base, *entry, pc, file, line);
	return 0;
}

int prov_gopcln_gofunc(const struct prov_gopcln *t, const unsigned char *sec, size_t size,
		       uint64_t pclntab_addr, uint64_t *gofunc)
{
	unsigned int p = t->ptr;
	size_t off, gf = t->v120 ? MODDATA_GOFUNC_120 : MODDATA_GOFUNC_118;

	*gofunc = 0;
	if (!t->v118)
		return prov_error_set(PROV_ENOTFOUND, "inlined calls not expanded: the Go "
				      "moduledata of this Go version is not known");
	if (!sec || size < (gf + 1) * p)
		return PROV_ENOTFOUND;
	for (off = 0; off + (gf + 1) * p <= size; off += p) {
		const unsigned char *w = sec + off;

		/* pcHeader, then funcnametab's data pointer and the text start */
		if (rdptr(w, p) != pclntab_addr ||
		    rdptr(w + p, p) != pclntab_addr + t->funcname ||
		    rdptr(w + MODDATA_TEXT * p, p) != t->text_start)
			continue;
		*gofunc = rdptr(w + gf * p, p);
		return *gofunc ? 0 : PROV_ENOTFOUND;
	}
	return PROV_ENOTFOUND;
}

int prov_gopcln_frames(const struct prov_gopcln *t, uint64_t pc, const unsigned char *gofunc,
		       size_t gofunc_size, struct prov_gopcln_frame *out, size_t max)
{
	uint64_t entry, base, tracepc = pc, tree = 0, toff;
	uint32_t npcdata, nfuncdata;
	/* the _func's word holding nfuncdata (its last byte), after startLine in 1.20+ */
	uint64_t flagw = flag_word(t);
	size_t n = 0, isz = t->v120 ? INLCALL_SIZE_120 : INLCALL_SIZE_118;
	unsigned int name_at = t->v120 ? 4 : 12, ppc_at = t->v120 ? 8 : 16;
	int32_t ix;

	if (max == 0 || find_func(t, pc, &entry, &base) < 0)
		return PROV_ENOTFOUND;
	out[0].func = str_at(t, t->funcname, rd32(t->d + base));
	if (!out[0].func)
		return PROV_ENOTFOUND;
	ix = inl_index(t, base, entry, pc);
	if (ix >= 0) {
		/* 1.18+ only: 1.16/1.17 keep absolute funcdata pointers (untested here) */
		if (!t->v118)
			return prov_error_set(PROV_ENOTFOUND, "inlined calls not expanded: "
					      "Go pclntab layout without a known inline tree");
		npcdata = rd32(t->d + base + 6 * 4);
		if (!in(t, base + flagw * 4, 4))
			return prov_error_set(PROV_ENOTFOUND, "inlined calls not expanded: a "
					      "truncated function record");
		nfuncdata = t->d[base + flagw * 4 + 3];
		toff = base + (flagw + 1) * 4 + (uint64_t)npcdata * 4 + FUNCDATA_INLTREE * 4;
		if (nfuncdata <= FUNCDATA_INLTREE || npcdata > MAX_FUNCS || !in(t, toff, 4) ||
		    !gofunc)
			return prov_error_set(PROV_ENOTFOUND, "inlined calls not expanded: no "
					      "inline tree for %s", out[0].func);
		tree = rd32(t->d + toff);
		if (tree == 0xffffffffu || tree > gofunc_size)
			return prov_error_set(PROV_ENOTFOUND, "inlined calls not expanded: %s's "
					      "inline tree is outside go.func", out[0].func);
	}
	while (ix >= 0) {
		const unsigned char *r;
		uint64_t at = tree + (uint64_t)ix * isz;

		if (n + 1 >= max || n >= MAX_INLINE_DEPTH || at > gofunc_size ||
		    gofunc_size - at < isz)
			return prov_error_set(PROV_ENOTFOUND, "inlined calls not expanded: a "
					      "malformed inline tree in %s", out[0].func);
		r = gofunc + at;
		out[n].func = str_at(t, t->funcname, rd32(r + name_at));
		if (!out[n].func)
			return prov_error_set(PROV_ENOTFOUND, "inlined calls not expanded: a "
					      "malformed inline tree in %s", out[0].func);
		funcline(t, base, entry, tracepc, &out[n].file, &out[n].line);
		n++;
		/* back to an instruction of the caller (parentPc: from the entry) */
		tracepc = entry + rd32(r + ppc_at);
		if (tracepc >= ft_pc(t, t->nfunc))
			return prov_error_set(PROV_ENOTFOUND, "inlined calls not expanded: a "
					      "malformed inline tree in %s", out[0].func);
		ix = inl_index(t, base, entry, tracepc);
	}
	out[n].func = str_at(t, t->funcname, rd32(t->d + base));
	funcline(t, base, entry, tracepc, &out[n].file, &out[n].line);
	return (int)(n + 1);
}
