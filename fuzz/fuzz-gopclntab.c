/*
 * libFuzzer target: any bytes as a Go .gopclntab (src/core/gopclntab.c):
 * the table opened and pcs looked up across its text range, every answer a
 * string inside the table; the same bytes also serve as go.func.* (inline
 * trees, expanded by prov_gopcln_frames) and as a section holding moduledata.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gopclntab.h"
#include "error.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* a string the reader gave: inside the input, NUL-terminated there */
static void inside(const char *s, const uint8_t *data, size_t size)
{
	if (s && ((const uint8_t *)s < data || (const uint8_t *)s + strlen(s) >= data + size))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_gopcln *t = NULL;
	uint64_t base = 0, entry, k;
	const char *func, *file;
	int line, inlined, n, i;
	int32_t delta;
	struct prov_gopcln_frame g[8];
	uint64_t gofunc;

	/* 1.18+: the table's textStart word (pointer size 8); 1.16: 0 reaches the entries too */
	if (size >= 32)
		memcpy(&base, data + 24, sizeof(base));
	if (prov_gopcln_open(&t, data, size, 0) == 0) {
		(void)prov_gopcln_gofunc(t, data, size, base, &gofunc);
		for (k = 0; k < 512; k++) {
			n = prov_gopcln_frames(t, base + k * 37, data, size, g, 8);
			if (n > 8)
				__builtin_trap();
			for (i = 0; i < n; i++) {
				if (!g[i].func)
					__builtin_trap();
				inside(g[i].func, data, size);
				inside(g[i].file, data, size);
			}
			if (prov_gopcln_spdelta(t, base + k * 37, &delta) == 0 && delta < 0)
				__builtin_trap();	/* a negative sp delta is never an answer */
			if (prov_gopcln_lookup(t, base + k * 37, &func, &entry, &file, &line,
					       &inlined) == 0) {
				/* the answers are NUL-terminated strings inside the input */
				if (!func || (const uint8_t *)func < data ||
				    (const uint8_t *)func + strlen(func) >= data + size)
					__builtin_trap();
				if (file && ((const uint8_t *)file < data ||
					     (const uint8_t *)file + strlen(file) >= data + size))
					__builtin_trap();
			}
		}
		prov_gopcln_free(t);
	}
	prov_error_clear();
	return 0;
}
