/* A distribution patch's header: DEP-3 fields and the upstream commit ids it names. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "dep3.h"
#include "udiff.h"
#include "banned.h"

#define MAX_VALUE 1024

void prov_dep3_release(struct prov_dep3 *d)
{
	size_t i;

	free(d->origin_kind);
	free(d->origin);
	free(d->applied_upstream);
	free(d->bug);
	for (i = 0; i < d->ncommits; i++)
		free(d->commits[i]);
	memset(d, 0, sizeof(*d));
}

/* "Field:" (case-insensitive) at the start of [p, e): its value, trimmed; NULL otherwise. */
static const char *field(const char *p, const char *e, const char *name, const char **vend)
{
	size_t nl = strlen(name);
	const char *v;

	if ((size_t)(e - p) < nl + 1 || strncasecmp(p, name, nl) || p[nl] != ':')
		return NULL;
	v = p + nl + 1;
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	while (e > v && isspace((unsigned char)e[-1]))
		e--;
	*vend = e;
	return v;
}

static char *value_dup(const char *v, const char *e)
{
	size_t l = (size_t)(e - v);

	return prov_xstrndup(v, l > MAX_VALUE ? MAX_VALUE : l);
}

static void add_commit(struct prov_dep3 *d, const char *h, size_t l)
{
	size_t i, k;

	if (d->ncommits >= PROV_DEP3_MAX_COMMITS)
		return;
	for (i = 0; i < d->ncommits; i++)
		if (strlen(d->commits[i]) == l && !strncasecmp(d->commits[i], h, l))
			return;
	d->commits[d->ncommits] = prov_xstrndup(h, l);
	for (k = 0; k < l; k++)
		d->commits[d->ncommits][k] = (char)tolower((unsigned char)h[k]);
	d->ncommits++;
}

/* Hex runs of 7 to 40 digits, bounded by non-alphanumerics, with a letter and a digit (or all 40). */
static void scan_ids(struct prov_dep3 *d, const char *p, const char *e)
{
	while (p < e) {
		const char *q = p;
		int letter = 0, digit = 0;

		if (!isalnum((unsigned char)*p)) {
			p++;
			continue;
		}
		while (q < e && isxdigit((unsigned char)*q)) {
			letter |= isalpha((unsigned char)*q) != 0;
			digit |= isdigit((unsigned char)*q) != 0;
			q++;
		}
		if ((q == e || !isalnum((unsigned char)*q)) && q - p >= 7 && q - p <= 40 &&
		    (q - p == 40 || (letter && digit)))
			add_commit(d, p, (size_t)(q - p));
		/* the rest of an alphanumeric word is no id */
		while (q < e && isalnum((unsigned char)*q))
			q++;
		p = q;
	}
}

static int has_word(const char *p, const char *e, const char *w)
{
	size_t wl = strlen(w);

	for (; (size_t)(e - p) >= wl; p++)
		if (!strncasecmp(p, w, wl))
			return 1;
	return 0;
}

void prov_dep3_parse(struct prov_dep3 *out, const char *text, size_t len)
{
	const char *p = text, *end, *nul;

	memset(out, 0, sizeof(*out));
	if (len > PROV_DEP3_MAX_HEADER)
		len = PROV_DEP3_MAX_HEADER;
	end = text + len;
	if ((nul = memchr(text, '\0', len)))
		end = nul;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *v, *ve;

		if (e > p && e[-1] == '\r')
			e--;
		if (prov_udiff_is_diff_start(p, (size_t)(e - p)))
			break;
		if ((v = field(p, e, "Origin", &ve))) {
			const char *comma = memchr(v, ',', (size_t)(ve - v));
			const char *ke = comma ? comma : ve;

			if (!out->origin_kind && !out->origin) {
				static const char *const kinds[] = { "upstream", "backport", "vendor", "other", NULL };
				size_t i;

				for (i = 0; kinds[i]; i++)
					if ((size_t)(ke - v) == strlen(kinds[i]) && !strncasecmp(v, kinds[i], (size_t)(ke - v)))
						out->origin_kind = prov_xstrdup(kinds[i]);
				if (comma) {
					const char *o = comma + 1;

					while (o < ve && (*o == ' ' || *o == '\t'))
						o++;
					out->origin = value_dup(o, ve);
				} else if (!out->origin_kind) {
					out->origin = value_dup(v, ve);
				}
			}
			scan_ids(out, v, ve);
		} else if ((v = field(p, e, "Applied-Upstream", &ve))) {
			if (!out->applied_upstream)
				out->applied_upstream = value_dup(v, ve);
			scan_ids(out, v, ve);
		} else if ((v = field(p, e, "Bug", &ve))) {
			if (!out->bug)
				out->bug = value_dup(v, ve);
		} else if ((size_t)(e - p) >= 46 && !strncmp(p, "From ", 5) && !strncmp(p + 45, " ", 1)) {
			scan_ids(out, p + 5, p + 45);	/* git format-patch */
		} else if (has_word(p, e, "commit") || has_word(p, e, "cherry") || has_word(p, e, "id=") ||
			   has_word(p, e, "h=") || has_word(p, e, "upstream")) {
			scan_ids(out, p, e);
		}
		p = nl ? nl + 1 : end;
	}
}

int prov_dep3_names(const struct prov_dep3 *d, const char *fix_hex)
{
	size_t i, l;

	for (i = 0; i < d->ncommits; i++) {
		l = strlen(d->commits[i]);
		if (l >= 7 && l <= 40 && !strncasecmp(d->commits[i], fix_hex, l))
			return 1;
	}
	return 0;
}
