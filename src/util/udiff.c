/* The one unified-diff reader: files, hunks and lines, -p stripping, one rule for safe names. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "udiff.h"
#include "util.h"
#include "banned.h"

void prov_udiff_init(struct prov_udiff *d, const char *text, size_t len, int strip, unsigned flags)
{
	const char *nul = memchr(text, '\0', len);

	memset(d, 0, sizeof(*d));
	d->p = text;
	d->end = nul ? nul : text + len;
	d->strip = strip;
	d->flags = flags;
}

void prov_udiff_release(struct prov_udiff *d)
{
	free(d->old_path);
	free(d->new_path);
	d->old_path = d->new_path = NULL;
}

void prov_udiff_end_hunk(struct prov_udiff *d)
{
	d->in_hunk = 0;
	d->after_hunk = 0;
}

int prov_udiff_is_diff_start(const char *p, size_t l)
{
	return (l == 3 && !strncmp(p, "---", 3)) || (l >= 4 && (!strncmp(p, "--- ", 4) || !strncmp(p, "+++ ", 4))) ||
	       (l >= 5 && !strncmp(p, "diff ", 5)) || (l >= 7 && !strncmp(p, "Index: ", 7)) ||
	       (l >= 4 && !strncmp(p, "@@ -", 4));
}

/* The name of a ---/+++ line: after the prefix, up to a tab or CR, trailing blanks dropped. */
static void raw_name(const char **out, size_t *out_len, const char *line, size_t len)
{
	const char *p = line + 4, *e = line + len, *q;

	for (q = p; q < e && *q != '\t' && *q != '\r'; q++)
		;
	while (q > p && q[-1] == ' ')
		q--;
	*out = p;
	*out_len = (size_t)(q - p);
}

static int name_refused(const char *s)
{
	return !*s || s[0] == '/' || !strcmp(s, "..") || prov_starts_with(s, "../");
}

int prov_udiff_path(char **out, int *dev_null, const char *line, size_t len, int strip, unsigned flags)
{
	const char *p;
	size_t n, i = 0;
	int k;
	char *s, *norm;

	*out = NULL;
	*dev_null = 0;
	if (len < 4)
		return -1;
	raw_name(&p, &n, line, len);
	if (n == 9 && !memcmp(p, "/dev/null", 9)) {
		*dev_null = 1;
		return 0;
	}
	if (!n || p[0] == '"')
		return -1;
	for (k = 0; k < strip; k++) {
		const char *q = memchr(p + i, '/', n - i);

		if (!q) {
			if (flags & PROV_UDIFF_STRIP_AT_MOST)
				break;
			return -1;
		}
		i = (size_t)(q - p) + 1;
		while (i < n && p[i] == '/')
			i++;
	}
	if (i >= n)
		return -1;
	s = prov_xstrndup(p + i, n - i);
	norm = prov_path_normalize(s);
	free(s);
	if (name_refused(norm)) {
		free(norm);
		return -1;
	}
	*out = norm;
	return 0;
}

/* A number of 1 to 9 digits, at most PROV_UDIFF_MAX_NUM. */
static int parse_num(long *out, const char **pp, const char *e)
{
	const char *p = *pp;
	long v = 0;
	int digits = 0;

	while (p < e && isdigit((unsigned char)*p) && digits < 10) {
		v = v * 10 + (*p++ - '0');
		digits++;
	}
	if (!digits || digits > 9 || v > PROV_UDIFF_MAX_NUM)
		return -1;
	*out = v;
	*pp = p;
	return 0;
}

static int parse_range(long *start, long *count, const char **pp, const char *e)
{
	const char *p = *pp;

	if (parse_num(start, &p, e) < 0)
		return -1;
	*count = 1;
	if (p < e && *p == ',') {
		p++;
		if (parse_num(count, &p, e) < 0)
			return -1;
	}
	*pp = p;
	return 0;
}

/* The "@@ -A[,B] +C[,D] @@ function" line at d->line; -1 when it is not one. */
static int parse_header(struct prov_udiff *d)
{
	const char *q = d->line + 4, *e = d->line + d->len, *close, *fe;

	if (parse_range(&d->old_start, &d->old_count, &q, e) < 0 || q + 2 > e || strncmp(q, " +", 2))
		return -1;
	q += 2;
	if (parse_range(&d->new_start, &d->new_count, &q, e) < 0)
		return -1;
	close = q;
	while (close < e && *close == ' ')
		close++;
	if ((size_t)(e - close) < 2 || strncmp(close, "@@", 2))
		return -1;
	d->header_len = (size_t)(close + 2 - d->line);
	q = close + 2;
	while (q < e && isspace((unsigned char)*q))
		q++;
	fe = e;
	while (fe > q && isspace((unsigned char)fe[-1]))
		fe--;
	d->function = fe > q ? q : NULL;
	d->function_len = (size_t)(fe - q);
	return 0;
}

/* The "--- " line at d->line and the "+++ " line at n2[0..l2). */
static void read_file(struct prov_udiff *d, const char *n2, size_t l2)
{
	int old_null, new_null, old_bad, new_bad;

	prov_udiff_release(d);
	old_bad = prov_udiff_path(&d->old_path, &old_null, d->line, d->len, d->strip, d->flags) < 0;
	new_bad = prov_udiff_path(&d->new_path, &new_null, n2, l2, d->strip, d->flags) < 0;
	raw_name(&d->old_raw, &d->old_raw_len, d->line, d->len);
	raw_name(&d->new_raw, &d->new_raw_len, n2, l2);
	d->new_file = old_null;
	d->deleted_file = new_null;
	d->file_ok = !old_bad && !new_bad && !(old_null && new_null);
}

/* A line while the hunk's counts are not used up. */
static int hunk_line(struct prov_udiff *d, const char *next)
{
	char c = d->len ? d->line[0] : ' ';

	if (c == '\\') {
		d->p = next;
		return PROV_UDIFF_NOEOL;
	}
	if (c != ' ' && c != '-' && c != '+') {
		d->in_hunk = 0;
		return PROV_UDIFF_CUT;	/* d->p stays: the line is read again */
	}
	if (c != '+')
		d->old_left--;
	if (c != '-')
		d->new_left--;
	d->origin = c;
	d->text = d->len ? d->line + 1 : d->line;
	d->text_len = d->len ? d->len - 1 : 0;
	d->in_hunk = d->old_left > 0 || d->new_left > 0;
	d->after_hunk = !d->in_hunk;
	d->p = next;
	return PROV_UDIFF_LINE;
}

int prov_udiff_next(struct prov_udiff *d)
{
	const char *nl, *next;

	if (d->p >= d->end) {
		d->line = NULL;
		d->len = 0;
		if (d->in_hunk) {
			d->in_hunk = 0;
			return PROV_UDIFF_CUT;
		}
		return PROV_UDIFF_END;
	}
	nl = memchr(d->p, '\n', (size_t)(d->end - d->p));
	d->line = d->p;
	d->len = nl ? (size_t)(nl - d->p) : (size_t)(d->end - d->p);
	next = nl ? nl + 1 : d->end;
	if (d->in_hunk)
		return hunk_line(d, next);
	if (d->after_hunk && d->len && d->line[0] == '\\') {
		d->p = next;
		return PROV_UDIFF_NOEOL;
	}
	d->after_hunk = 0;
	d->p = next;
	if (d->len >= 4 && !strncmp(d->line, "--- ", 4) && (size_t)(d->end - next) >= 4 &&
	    !strncmp(next, "+++ ", 4)) {
		const char *nl2 = memchr(next, '\n', (size_t)(d->end - next));
		size_t l2 = nl2 ? (size_t)(nl2 - next) : (size_t)(d->end - next);

		read_file(d, next, l2);
		d->p = nl2 ? nl2 + 1 : d->end;
		return PROV_UDIFF_FILE;
	}
	if (d->file_ok && d->len >= 4 && !strncmp(d->line, "@@ -", 4)) {
		if (parse_header(d) < 0)
			return PROV_UDIFF_BAD_HUNK;
		d->old_left = d->old_count;
		d->new_left = d->new_count;
		d->in_hunk = d->old_left > 0 || d->new_left > 0;
		d->after_hunk = !d->in_hunk;
		return PROV_UDIFF_HUNK;
	}
	if (d->len >= 11 && !strncmp(d->line, "diff --git ", 11))
		return PROV_UDIFF_GIT;
	return PROV_UDIFF_OTHER;
}
