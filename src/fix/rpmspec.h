#ifndef PROV_RPMSPEC_H
#define PROV_RPMSPEC_H

#include <stddef.h>

/*
 * The distribution patches of an RPM spec file: its `Patch:` / `PatchN:`
 * lines, read as the files of those names beside the spec (an unpacked
 * source RPM, a dist-git checkout). A URL keeps only its last component, as
 * rpmbuild does with SOURCES. Macros: %{name}, %{version}, %{release} from
 * the spec's tags, %global / %define NAME VALUE, %{?NAME}, %% (no shell, no
 * conditionals: a Patch line inside %if counts whatever the condition).
 * Every declared patch is taken to be applied (%autosetup / %autopatch).
 */
struct prov_rpm_patches {
	char **names;	/* as the spec names them, after macros; file name only */
	char **ids;	/* per-file ids (prov_backport_file_ids) of each patch */
	char **texts;	/* each patch's text (NUL bytes end it) */
	char **notes;	/* the spec's comment lines just above each Patch line ("" when none) */
	size_t *first;	/* the first index naming the same file: ids and texts are shared with it */
	size_t n;
};

/*
 * Read SPEC and the patch files beside it. PROV_EINPUT naming the spec (or
 * the patch) when it cannot be read, a name has a macro left unexpanded or
 * the file is missing; PROV_ELIMIT past the caps (spec 4 MiB, 2000 patches,
 * 64 MiB each, 256 MiB of distinct patch files in all). A file named on
 * several Patch lines is read once; its entries share ids and texts.
 */
int prov_rpm_patches_read(struct prov_rpm_patches *out, const char *spec_path);
void prov_rpm_patches_release(struct prov_rpm_patches *p);

/* The patch names of a spec text (for the unit test and the above). */
int prov_rpmspec_patch_names(char ***out, size_t *n, const char *text, size_t len,
			     const char *spec_name);

#endif
