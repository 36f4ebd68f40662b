/* The resolvers' kit: small parsers of package metadata (Debian versions, lines, hex object ids). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kit-text.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/* ---- Debian versions ---- */

int prov_debver_split(struct prov_debver *out, const char *version)
{
	struct prov_debver v;
	const char *colon, *up, *dash;
	uint64_t epoch = 0;

	memset(&v, 0, sizeof(v));
	if (!version || !*version)
		return prov_error_set(PROV_EINPUT, "empty Debian version");
	colon = strchr(version, ':');
	up = version;
	if (colon) {
		if (prov_parse_u64(&epoch, version, (size_t)(colon - version), 10) < 0 ||
		    epoch > UINT_MAX)
			return prov_error_set(PROV_EINPUT, "bad epoch in Debian version '%s'", version);
		up = colon + 1;
	}
	if (!*up)
		return prov_error_set(PROV_EINPUT, "no upstream part in Debian version '%s'", version);
	dash = strrchr(up, '-');
	if (dash && dash != up) {
		const char *b;

		v.upstream = prov_xstrndup(up, (size_t)(dash - up));
		v.revision = prov_xstrdup(dash + 1);
		b = strpbrk(v.revision, "~+");
		if (b && b[1])
			v.build = prov_xstrdup(b + 1);
	} else {
		v.upstream = prov_xstrdup(up);
	}
	v.epoch = (unsigned long)epoch;
	*out = v;
	return 0;
}

void prov_debver_release(struct prov_debver *v)
{
	if (!v)
		return;
	free(v->upstream);
	free(v->revision);
	free(v->build);
	memset(v, 0, sizeof(*v));
}

int prov_next_line(const char **line, size_t *len, const char **pos, const char *end)
{
	const char *p = *pos, *nl;

	if (p >= end)
		return 0;
	nl = memchr(p, '\n', (size_t)(end - p));
	*line = p;
	*len = nl ? (size_t)(nl - p) : (size_t)(end - p);
	*pos = nl ? nl + 1 : end;
	return 1;
}

int prov_is_hex_commit(const char *s, size_t len)
{
	size_t i;

	if (len != 40 && len != 64)
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}
