/*
 * libFuzzer target: any bytes as a mapping file (git-config syntax read by
 * our own parser, src/util/cfgparse.c, which cannot include other files), then
 * what the pipeline does with the result: match a module, pick the version
 * range sections that hold a few versions, and expand every ref template
 * against a Debian-style version. Seeds hold [include] after a
 * BOM, \f, \v, CR-only line ends and another header on the same line.
 * libgit2 is initialised once (local repo checks use it).
 */
#include <stddef.h>
#include <stdint.h>

#include <git2.h>

#include "error.h"
#include "mapping.h"
#include "model.h"
#include "common.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* libgit2 checks that a local repo is a git repository. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	git_libgit2_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_mappings m;
	struct prov_buf ref = PROV_BUF_INIT;
	struct prov_origin o;
	char *path;
	size_t i, j;

	if (size > PROV_MAPPING_MAX_FILE + 16)
		return 0;
	path = prov_xasprintf("%s/fuzz.map", fuzz_tmpdir());
	fuzz_write(path, data, size);
	prov_mappings_init(&m);
	if (prov_mappings_load_file(&m, path) == 0) {
		memset(&o, 0, sizeof(o));
		o.kind = (char *)"dpkg";
		o.name = (char *)"libfoo1";
		o.source = (char *)"foo";
		o.version = (char *)"1:2.3.4-5~24.04";
		prov_mappings_match(&m, "/usr/lib/x86_64-linux-gnu/libfoo.so.1", &o);
		prov_mappings_match(&m, "libamdhip64.so.6", NULL);
		for (i = 0; i < m.n; i++) {
			struct prov_mapping v;

			prov_mappings_find(&m, m.items[i].name);
			/* version ranges ([component "NAME@RANGE"]) for a few versions */
			prov_mapping_select(&v, &m.items[i], o.version);
			prov_mapping_select(&v, &m.items[i], "6.1.40091.60100-82~22.04");
			prov_mapping_select(&v, &m.items[i], "5.2.3-3");
			prov_mapping_select(&v, &m.items[i], NULL);
			for (j = 0; j < v.nrefs; j++)
				prov_mapping_expand_ref(&ref, v.refs[j], "5.2.3-3");
			for (j = 0; j < m.items[i].nvariants; j++)
				prov_version_in_range(m.items[i].variants[j].range, "7.0.1");
			for (j = 0; j < m.items[i].nrefs; j++) {
				prov_mapping_expand_ref(&ref, m.items[i].refs[j], o.version);
				prov_mapping_expand_ref(&ref, m.items[i].refs[j], "6.4");
			}
		}
	}
	prov_mappings_release(&m);
	prov_buf_release(&ref);
	unlink(path);
	free(path);
	prov_error_clear();
	return 0;
}
