#ifndef PROV_KIT_RPM_HEADER_H
#define PROV_KIT_RPM_HEADER_H

#include <stddef.h>
#include <stdint.h>

/* The resolvers' kit: rpm headers (rpmdb.sqlite Packages.blob: a header without its magic; kit-rpm-header.c). */

struct prov_rpm_header {
	char *name, *version, *release, *arch, *sourcerpm;
	char *url, *vcs;	/* the URL and VCS tags (untrusted; NULL when absent) */
	int has_epoch;
	uint32_t epoch;
	char **files;	/* dirnames[dirindexes[i]] + basenames[i] */
	size_t nfiles;
};

#define PROV_RPM_MAX_ENTRIES 65536
#define PROV_RPM_MAX_FILES 1000000

/*
 * Parse one header blob; every count and offset is checked against the blob.
 * 0 and *out filled (release with prov_rpm_header_release); PROV_EINPUT for
 * a malformed blob (message says what), PROV_ELIMIT past the caps.
 */
int prov_rpm_header_parse(struct prov_rpm_header *out, const unsigned char *blob, size_t len);
void prov_rpm_header_release(struct prov_rpm_header *h);

#endif
