/*
 * libFuzzer target: any bytes through the JSON reader, then the lookups the
 * resolvers make on .note.package, direct_url.json and conda-meta objects.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "jsonread.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t walk(const struct prov_jv *v, unsigned depth)
{
	size_t n = 1, i;
	const char *s;

	if (depth > PROV_JV_MAX_DEPTH + 1)
		__builtin_trap();
	if ((s = prov_jv_str(v)))
		n += strlen(s);
	for (i = 0; i < v->n; i++) {
		if (v->type == PROV_JV_OBJECT)
			n += strlen(v->keys[i]);
		n += walk(&v->items[i], depth + 1);
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = {
		"type", "name", "version", "os", "osVersion", "architecture",
		"url", "commit_id", "requested_revision", "vcs", "vcs_info",
		"files", "channel", "build", "build_string", "subdir", "fn",
	};
	struct prov_jv *v = NULL;
	size_t i;

	if (prov_jv_parse(&v, (const char *)data, size) == 0) {
		walk(v, 0);
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			const struct prov_jv *x = prov_jv_get(v, keys[i]);
			prov_jv_get_str(v, keys[i]);
			if (x)
				prov_jv_get_str(x, "commit_id");
		}
		prov_jv_free(v);
	}
	prov_error_clear();
	return 0;
}
