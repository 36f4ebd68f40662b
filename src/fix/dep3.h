#ifndef PROV_DEP3_H
#define PROV_DEP3_H

#include <stddef.h>

/*
 * What a distribution patch says about where it comes from: its DEP-3
 * header (https://dep-team.pages.debian.net/deps/dep3/: Origin,
 * Applied-Upstream, Bug, ...), "(cherry picked from commit X)" trailers, a
 * git format-patch "From <sha> Mon Sep 17 00:00:00 2001" line, commit URLs
 * (.../commit/<sha>, ?id=<sha>, ;h=<sha>) and "commit <sha>" lines; for an
 * RPM spec, the comment lines above a Patch line are read the same way.
 *
 * Only the text before the first diff ("--- ", "diff ", "Index: ", "@@ ")
 * is read, at most PROV_DEP3_MAX_HEADER bytes; a NUL byte ends it; CRLF is
 * accepted; at most PROV_DEP3_MAX_COMMITS ids are kept. Never fails.
 */
#define PROV_DEP3_MAX_HEADER ((size_t)64 << 10)
#define PROV_DEP3_MAX_COMMITS 64

struct prov_dep3 {
	char *origin_kind;	/* "upstream", "backport", "vendor", "other" or NULL (no Origin:) */
	char *origin;	/* the Origin: value after the kind, or NULL */
	char *applied_upstream;	/* Applied-Upstream: value, or NULL */
	char *bug;	/* Bug: value, or NULL */
	char *commits[PROV_DEP3_MAX_COMMITS];	/* hex ids (7 to 40 digits, lower case) named anywhere above */
	size_t ncommits;
};

void prov_dep3_parse(struct prov_dep3 *out, const char *text, size_t len);
void prov_dep3_release(struct prov_dep3 *d);

/* 1 when d names fix_hex (40 hex): a named id of 7+ digits is a prefix of it. */
int prov_dep3_names(const struct prov_dep3 *d, const char *fix_hex);

#endif
