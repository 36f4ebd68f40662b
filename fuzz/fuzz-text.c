/* libFuzzer target: any bytes through the text backtrace parsers. */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "textparse.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_crash *c = NULL;

	if (prov_text_parse(&c, "fuzz", (const char *)data, size) == 0)
		prov_crash_free(c);
	prov_error_clear();
	return 0;
}
