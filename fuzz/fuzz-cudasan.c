/*
 * libFuzzer target: compute-sanitizer / cuda-memcheck reports
 * (src/text/cudasan.c: "========= Invalid __global__ read ...", device
 * and host frames, "by thread (x,y,z) in block (x,y,z)") through
 * prov_text_parse, seeded with fixtures/text/compute-sanitizer. Checks
 * that every frame of every thread is there (no NULL in the frame arrays).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "model.h"
#include "textparse.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_crash *c = NULL;
	size_t i;

	if (prov_text_parse(&c, "fuzz", (const char *)data, size) == 0) {
		for (i = 0; i < c->nthreads; i++)
			if (c->threads[i].nframes && !c->threads[i].frames)
				abort();
		prov_crash_free(c);
	}
	prov_error_clear();
	return 0;
}
