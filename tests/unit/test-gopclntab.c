/*
 * Go's pclntab reader (src/core/gopclntab.c) on a table built here by hand
 * (the layout of Go 1.18/1.19: two functions, one file; 1.20+'s inline
 * tree and moduledata too), so the expected
 * names and lines are the ones written into it; truncations and hostile
 * offsets give no answer, never a read outside the table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gopclntab.h"
#include "error.h"
#include "util.h"
#include "banned.h"

static unsigned char tab[512];
static size_t ntab;

static void put32(size_t at, uint32_t v)
{
	tab[at] = v & 0xff;
	tab[at + 1] = (v >> 8) & 0xff;
	tab[at + 2] = (v >> 16) & 0xff;
	tab[at + 3] = v >> 24;
}

static void put64(size_t at, uint64_t v)
{
	put32(at, (uint32_t)v);
	put32(at + 4, (uint32_t)(v >> 32));
}

/* a pc-value table: (value, pc end from the entry) pairs */
static size_t pcvals(size_t at, const int *vals, const unsigned char *ends, size_t n)
{
	int prev = -1;
	unsigned char pc = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		int d = vals[i] - prev;

		tab[at++] = (unsigned char)(d >= 0 ? (unsigned)d << 1 : ((unsigned)~d << 1) | 1);
		tab[at++] = (unsigned char)(ends[i] - pc);
		prev = vals[i];
		pc = ends[i];
	}
	tab[at++] = 0;
	return at;
}

/* main.a at text+0 (lines 10, then 11 from +8; sp delta 0, then 0x18 from +4),
 * main.b at +0x10 (line 20, no sp table) up to +0x30 */
static void build(void)
{
	static const int la[] = { 10, 11 }, f0[] = { 0 }, lb[] = { 20 };
	static const int spv[] = { 0, 0x18 };	/* main.a's pcsp: 0 up to +4, then 0x18 */
	static const unsigned char ea[] = { 8, 0x10 }, ef[] = { 0x20 }, eb[] = { 0x20 }, spe[] = { 4, 0x10 };
	size_t names = 72, cu, file, pct, ln_a, ln_b, fl, fd, sp_a;

	memset(tab, 0, sizeof(tab));
	put32(0, 0xfffffff0);
	tab[6] = 1;
	tab[7] = 8;
	memcpy(tab + names, "main.a\0main.b\0main.c\0main.d\0", 28);
	cu = names + 28;
	put32(cu, 0);
	file = cu + 4;
	memcpy(tab + file, "/x/a.go\0", 8);
	pct = file + 8;
	ln_a = 1;	/* offset 0 means "no table" */
	fl = pcvals(pct + ln_a, la, ea, 2) - pct;
	ln_b = pcvals(pct + fl, f0, ef, 1) - pct;
	sp_a = pcvals(pct + ln_b, lb, eb, 1) - pct;
	fd = pcvals(pct + sp_a, spv, spe, 2);
	/* functab: (entryoff, funcoff) x2, end; then the two _func records */
	put32(fd, 0);
	put32(fd + 4, 20);
	put32(fd + 8, 0x10);
	put32(fd + 12, 60);
	put32(fd + 16, 0x30);
	put32(fd + 20 + 4, 0);	/* main.a: nameoff */
	put32(fd + 20 + 20, (uint32_t)fl);
	put32(fd + 20 + 24, (uint32_t)ln_a);
	put32(fd + 20 + 16, (uint32_t)sp_a);	/* main.b has no pcsp table */
	put32(fd + 60, 0x10);
	put32(fd + 60 + 4, 7);
	put32(fd + 60 + 20, (uint32_t)fl);
	put32(fd + 60 + 24, (uint32_t)ln_b);
	ntab = fd + 100;
	put64(8, 2);
	put64(16, 1);
	put64(24, 0x401000);
	put64(32, names);
	put64(40, cu);
	put64(48, file);
	put64(56, pct);
	put64(64, fd);
}

static void lookup(const struct prov_gopcln *t, uint64_t pc, const char *want, int want_line)
{
	const char *func, *file;
	uint64_t entry;
	int line, inl;

	if (!want) {
		assert_int_equal(prov_gopcln_lookup(t, pc, &func, &entry, &file, &line, &inl),
				 PROV_ENOTFOUND);
		return;
	}
	assert_int_equal(prov_gopcln_lookup(t, pc, &func, &entry, &file, &line, &inl), 0);
	assert_string_equal(func, want);
	assert_int_equal(line, want_line);
	assert_string_equal(file, "/x/a.go");
	assert_int_equal(inl, 0);
}

static void test_lookup(void **state)
{
	struct prov_gopcln *t = NULL;

	build();
	assert_int_equal(prov_gopcln_open(&t, tab, ntab, 0), 0);
	lookup(t, 0x401000, "main.a", 10);
	lookup(t, 0x401007, "main.a", 10);
	lookup(t, 0x401008, "main.a", 11);
	lookup(t, 0x40100f, "main.a", 11);
	lookup(t, 0x401010, "main.b", 20);
	lookup(t, 0x40102f, "main.b", 20);
	lookup(t, 0x401030, NULL, 0);
	lookup(t, 0x400fff, NULL, 0);
	prov_gopcln_free(t);
	/* the binary's .text address wins over a table's field below it */
	assert_int_equal(prov_gopcln_open(&t, tab, ntab, 0x500000), 0);
	lookup(t, 0x500010, "main.b", 20);
	prov_gopcln_free(t);
	/* C code before runtime.text (external linking): the table's field wins */
	assert_int_equal(prov_gopcln_open(&t, tab, ntab, 0x400f00), 0);
	lookup(t, 0x401010, "main.b", 20);
	lookup(t, 0x400f10, NULL, 0);
	prov_gopcln_free(t);
}

static void test_spdelta(void **state)
{
	struct prov_gopcln *t = NULL;
	int32_t d = -1;

	build();
	assert_int_equal(prov_gopcln_open(&t, tab, ntab, 0), 0);
	assert_int_equal(prov_gopcln_spdelta(t, 0x401000, &d), 0);
	assert_int_equal(d, 0);	/* at the entry: nothing pushed */
	assert_int_equal(prov_gopcln_spdelta(t, 0x401003, &d), 0);
	assert_int_equal(d, 0);
	assert_int_equal(prov_gopcln_spdelta(t, 0x401004, &d), 0);
	assert_int_equal(d, 0x18);	/* after the prologue */
	assert_int_equal(prov_gopcln_spdelta(t, 0x40100f, &d), 0);
	assert_int_equal(d, 0x18);
	assert_int_equal(prov_gopcln_spdelta(t, 0x401010, &d), PROV_ENOTFOUND);	/* main.b: none */
	assert_int_equal(prov_gopcln_spdelta(t, 0x401030, &d), PROV_ENOTFOUND);	/* no function */
	prov_gopcln_free(t);
}

static void test_hostile(void **state)
{
	struct prov_gopcln *t = NULL;
	const char *func, *file;
	uint64_t entry;
	int line, inl;
	int32_t d;
	size_t n;

	build();
	/* every truncation: refused at open, or answers only from inside the table */
	for (n = 0; n < ntab; n++) {
		if (prov_gopcln_open(&t, tab, n, 0) == 0) {
			if (prov_gopcln_lookup(t, 0x401010, &func, &entry, &file, &line, &inl) == 0)
				assert_true((const unsigned char *)func + strlen(func) < tab + n);
			(void)prov_gopcln_spdelta(t, 0x401004, &d);	/* no read outside (ASan) */
			prov_gopcln_free(t);
		}
		prov_error_clear();
	}
	/* a function count past the table, a name offset past it */
	put64(8, 0xffffffffu);
	assert_int_equal(prov_gopcln_open(&t, tab, ntab, 0), PROV_EINPUT);
	prov_error_clear();
	build();
	put32(ntab - 100 + 20 + 4, 0x7fffffff);
	assert_int_equal(prov_gopcln_open(&t, tab, ntab, 0), 0);
	lookup(t, 0x401000, NULL, 0);
	prov_gopcln_free(t);
	/* not a pclntab */
	assert_int_equal(prov_gopcln_open(&t, (const unsigned char *)"hello world", 11, 0),
			 PROV_ENOTFOUND);
	prov_error_clear();
}

/*
 * main.b gets inlined calls: main.c inlined into it (tree index 0, called
 * at +0), main.d into main.c (index 1, called at +4). main.b's lines: 20 up
 * to +4, 30 (main.c) to +8, 40 (main.d) to +0x10, then 21; its inline index:
 * -1, 0, 1, -1. The tree lies at offset 8 of gofunc[]. v120: the Go 1.20+
 * layout (magic 0xfffffff1; _func has startLine before funcID, so its pcdata
 * and funcdata move 4 bytes; inlinedCall is 16 bytes: funcID, pad, nameOff,
 * parentPc, startLine), else 1.18/1.19's (20 bytes: parent, funcID, pad,
 * file, line, func_, parentPc).
 */
static unsigned char gofunc[48];
static size_t inl_size, inl_name, inl_ppc;	/* the inlinedCall layout in use */

static void build_inline(int v120)
{
	static const int lines[] = { 20, 30, 40, 21 }, inl[] = { -1, 0, 1, -1 };
	static const unsigned char ends[] = { 4, 8, 0x10, 0x20 };
	size_t fd = ntab - 100, pct, at, base = fd + 64, sh = v120 ? 4 : 0;
	uint64_t pctab = 0;
	int i;

	if (v120)
		put32(0, 0xfffffff1);
	for (i = 0; i < 8; i++)
		pctab |= (uint64_t)tab[56 + i] << (8 * i);
	pct = (size_t)pctab;
	at = fd + 136;	/* after main.b's record and its pcdata/funcdata */
	put32(base + 20, (uint32_t)(at - pct));	/* main.b's pcln */
	at = pcvals(at, lines, ends, 4);
	put32(base + 24, 3);	/* npcdata */
	if (v120)
		put32(base + 32, 19);	/* startLine */
	tab[base + 35 + sh] = 4;	/* nfuncdata */
	put32(base + 36 + sh, 0);
	put32(base + 40 + sh, 0);
	put32(base + 44 + sh, (uint32_t)(at - pct));	/* pcdata[2]: the inline index */
	at = pcvals(at, inl, ends, 4);
	put32(base + 48 + sh, 0xffffffffu);
	put32(base + 52 + sh, 0xffffffffu);
	put32(base + 56 + sh, 0xffffffffu);
	put32(base + 60 + sh, 8);	/* funcdata[3]: the tree, from gofunc */
	ntab = at;
	inl_size = v120 ? 16 : 20;
	inl_name = v120 ? 4 : 12;
	inl_ppc = v120 ? 8 : 16;
	memset(gofunc, 0, sizeof(gofunc));
	if (!v120) {
		gofunc[8] = 0xff;
		gofunc[9] = 0xff;	/* parent -1 */
	}
	gofunc[8 + inl_name] = 14;	/* main.c */
	gofunc[8 + inl_ppc] = 0;	/* called at +0 */
	gofunc[8 + inl_size + inl_name] = 21;	/* main.d */
	gofunc[8 + inl_size + inl_ppc] = 4;	/* called at +4 */
}

static void frames(const struct prov_gopcln *t, uint64_t pc, size_t gsize, int n, const char *f0,
		   int l0, const char *f1, int l1, const char *f2, int l2)
{
	struct prov_gopcln_frame g[8];
	const char *fn[] = { f0, f1, f2 };
	int ln[] = { l0, l1, l2 }, i;

	assert_int_equal(prov_gopcln_frames(t, pc, gofunc, gsize, g, 8), n);
	for (i = 0; i < n; i++) {
		assert_string_equal(g[i].func, fn[i]);
		assert_int_equal(g[i].line, ln[i]);
		assert_string_equal(g[i].file, "/x/a.go");
	}
}

static void inline_case(int v120)
{
	struct prov_gopcln *t = NULL;
	struct prov_gopcln_frame g[8];
	const char *func, *file;
	uint64_t entry;
	int line, inl;
	size_t n, rec1, need;

	build();
	build_inline(v120);
	rec1 = 8 + inl_size;
	need = 8 + 2 * inl_size;	/* the tree's end in gofunc */
	assert_int_equal(prov_gopcln_open(&t, tab, ntab, 0), 0);
	frames(t, 0x401010, sizeof(gofunc), 1, "main.b", 20, NULL, 0, NULL, 0);
	frames(t, 0x401014, sizeof(gofunc), 2, "main.c", 30, "main.b", 20, NULL, 0);
	frames(t, 0x401018, sizeof(gofunc), 3, "main.d", 40, "main.c", 30, "main.b", 20);
	frames(t, 0x401020, sizeof(gofunc), 1, "main.b", 21, NULL, 0, NULL, 0);
	frames(t, 0x401008, sizeof(gofunc), 1, "main.a", 11, NULL, 0, NULL, 0);
	/* the plain lookup: the outer name, no line, inside an inlined body */
	assert_int_equal(prov_gopcln_lookup(t, 0x401018, &func, &entry, &file, &line, &inl), 0);
	assert_string_equal(func, "main.b");
	assert_int_equal(inl, 1);
	assert_int_equal(line, 0);
	/* go.func cut anywhere: not expanded, or the whole answer; not found without it */
	for (n = 0; n < sizeof(gofunc); n++) {
		int r = prov_gopcln_frames(t, 0x401018, gofunc, n, g, 8);

		assert_true(r == PROV_ENOTFOUND || (r == 3 && n >= need));
		assert_true(n < need || r == 3);
		prov_error_clear();
	}
	assert_int_equal(prov_gopcln_frames(t, 0x401018, NULL, 0, g, 8), PROV_ENOTFOUND);
	assert_non_null(strstr(prov_error_last(), "not expanded"));
	prov_error_clear();
	/* too little room, a loop in the tree (main.d called from itself), a name outside */
	assert_int_equal(prov_gopcln_frames(t, 0x401018, gofunc, sizeof(gofunc), g, 2), PROV_ENOTFOUND);
	prov_error_clear();
	gofunc[rec1 + inl_ppc] = 8;
	assert_int_equal(prov_gopcln_frames(t, 0x401018, gofunc, sizeof(gofunc), g, 8), PROV_ENOTFOUND);
	prov_error_clear();
	gofunc[rec1 + inl_ppc] = 4;
	gofunc[rec1 + inl_name + 3] = 0x7f;
	assert_int_equal(prov_gopcln_frames(t, 0x401018, gofunc, sizeof(gofunc), g, 8), PROV_ENOTFOUND);
	prov_error_clear();
	gofunc[rec1 + inl_name + 3] = 0;
	prov_gopcln_free(t);
	/* every truncation of the table: no read outside it (ASan), and no answer
	 * but the whole one */
	for (n = 0; n < ntab; n++) {
		if (prov_gopcln_open(&t, tab, n, 0) == 0) {
			int r = prov_gopcln_frames(t, 0x401018, gofunc, sizeof(gofunc), g, 8);

			if (r == 3) {
				assert_string_equal(g[0].func, "main.d");
				assert_string_equal(g[2].func, "main.b");
			}
			prov_gopcln_free(t);
		}
		prov_error_clear();
	}
}

static void test_inline(void **state)
{
	inline_case(0);
}

/* the Go 1.20+ layout of _func and inlinedCall */
static void test_inline_120(void **state)
{
	inline_case(1);
}

/* Go 1.16/1.17 keep absolute funcdata pointers: not expanded, the outer name */
static void test_inline_116(void **state)
{
	struct prov_gopcln *t = NULL;
	struct prov_gopcln_frame g[8];

	build();
	build_inline(0);
	put32(0, 0xfffffffa);	/* the header has one word less: reopen it as 1.16 */
	if (prov_gopcln_open(&t, tab, ntab, 0) == 0) {
		assert_true(prov_gopcln_frames(t, 0x401018, gofunc, sizeof(gofunc), g, 8) < 3);
		prov_gopcln_free(t);
	}
	prov_error_clear();
}

/* runtime.moduledata found in a data section by its first fields */
static void test_gofunc(void **state)
{
	static unsigned char sec[64 + 39 * 8], sec120[64 + 41 * 8];
	struct prov_gopcln *t = NULL;
	uint64_t gf = 1, w[39];
	size_t i, k;

	build();
	assert_int_equal(prov_gopcln_open(&t, tab, ntab, 0), 0);
	memset(w, 0, sizeof(w));
	w[0] = 0x4c0000;	/* pcHeader: the table's address */
	w[1] = 0x4c0000 + 72;	/* funcnametab */
	w[22] = 0x401000;	/* text */
	w[38] = 0x4b1234;	/* gofunc */
	memset(sec, 0, sizeof(sec));
	for (i = 0; i < 8; i++)
		sec[8 + i] = (unsigned char)((uint64_t)0x4c0000 >> (8 * i));	/* a decoy pcHeader alone */
	for (k = 0; k < 39; k++)
		for (i = 0; i < 8; i++)
			sec[64 + k * 8 + i] = (unsigned char)(w[k] >> (8 * i));
	assert_int_equal(prov_gopcln_gofunc(t, sec, sizeof(sec), 0x4c0000, &gf), 0);
	assert_int_equal(gf, 0x4b1234);
	/* cut before its gofunc field: not found */
	assert_int_equal(prov_gopcln_gofunc(t, sec, sizeof(sec) - 1, 0x4c0000, &gf), PROV_ENOTFOUND);
	assert_int_equal(prov_gopcln_gofunc(t, sec, sizeof(sec), 0x4d0000, &gf), PROV_ENOTFOUND);
	prov_error_clear();
	prov_gopcln_free(t);
	/* 1.20+: covctrs and ecovctrs come before gofunc, now word 40 */
	put32(0, 0xfffffff1);
	assert_int_equal(prov_gopcln_open(&t, tab, ntab, 0), 0);
	assert_int_equal(prov_gopcln_gofunc(t, sec, sizeof(sec), 0x4c0000, &gf), PROV_ENOTFOUND);
	prov_error_clear();
	for (i = 0; i < 8; i++) {
		sec120[64 + 40 * 8 + i] = (unsigned char)((uint64_t)0x4b5678 >> (8 * i));
		sec120[64 + 38 * 8 + i] = 0x11;	/* where 1.18 kept it: not read */
	}
	memcpy(sec120, sec, 64 + 22 * 8 + 8);
	assert_int_equal(prov_gopcln_gofunc(t, sec120, sizeof(sec120), 0x4c0000, &gf), 0);
	assert_int_equal(gf, 0x4b5678);
	for (k = 0; k < sizeof(sec120); k++) {	/* every cut: found only whole */
		int r = prov_gopcln_gofunc(t, sec120, k, 0x4c0000, &gf);

		assert_int_equal(r, k >= 64 + 41 * 8 ? 0 : PROV_ENOTFOUND);
		prov_error_clear();
	}
	prov_gopcln_free(t);
	/* 1.16/1.17: no gofunc field, "not expanded" */
	put32(0, 0xfffffffa);
	if (prov_gopcln_open(&t, tab, ntab, 0) == 0) {
		assert_int_equal(prov_gopcln_gofunc(t, sec, sizeof(sec), 0x4c0000, &gf), PROV_ENOTFOUND);
		assert_non_null(strstr(prov_error_last(), "not expanded"));
		prov_gopcln_free(t);
	}
	prov_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_spdelta),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_inline),
		cmocka_unit_test(test_inline_120),
		cmocka_unit_test(test_inline_116),
		cmocka_unit_test(test_gofunc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
