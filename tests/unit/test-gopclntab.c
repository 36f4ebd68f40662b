/*
 * Go's pclntab reader (src/core/gopclntab.c) on a table built here by hand
 * (the layout of Go 1.18/1.19: two functions, one file), so the expected
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
	memcpy(tab + names, "main.a\0main.b\0", 14);
	cu = names + 14;
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
	/* the binary's .text address wins over the table's field */
	assert_int_equal(prov_gopcln_open(&t, tab, ntab, 0x500000), 0);
	lookup(t, 0x500010, "main.b", 20);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_spdelta),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
