#ifndef PROV_KIT_TEXT_H
#define PROV_KIT_TEXT_H

#include <stddef.h>

/* The resolvers' kit: small parsers of package metadata (kit-text.c). */

/*
 * Split a Debian version "[epoch:]upstream[-revision]": epoch (0 when
 * absent), upstream, revision (after the LAST '-', NULL when none), and the
 * build suffix of the revision (after '~' or '+', e.g. "24.04" of "43~24.04";
 * NULL when none). Caller frees with prov_debver_release. PROV_EINPUT for an
 * empty version or a bad epoch.
 */
struct prov_debver {
	unsigned long epoch;
	char *upstream;
	char *revision;
	char *build;
};
int prov_debver_split(struct prov_debver *out, const char *version);
void prov_debver_release(struct prov_debver *v);

/* Line reader over a buffer: next line [*line, *len) without the newline; 0 at the end. */
int prov_next_line(const char **line, size_t *len, const char **pos, const char *end);

/* 1 when s[0..len) is a full lower-case hex object id (40 or 64). */
int prov_is_hex_commit(const char *s, size_t len);

#endif
