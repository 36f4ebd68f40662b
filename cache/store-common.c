/* What the store's front and both backends share: which --store values are PostgreSQL, times, triage grouping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store.h"
#include "store-int.h"
#include "error.h"
#include "util.h"
#include "banned.h"

int prov_store_is_pg(const char *where)
{
	const char *p = where;

	if (!strncmp(where, "postgresql://", 13) || !strncmp(where, "postgres://", 11))
		return 1;
	/* a libpq keyword string: "key=value ..." with a known first key */
	while (*p >= 'a' && *p <= 'z')
		p++;
	while (*p == ' ')
		p++;
	if (p == where || *p != '=')
		return 0;
	return !strncmp(where, "host", 4) || !strncmp(where, "hostaddr", 8) ||
	       !strncmp(where, "dbname", 6) || !strncmp(where, "service", 7) ||
	       !strncmp(where, "user", 4) || !strncmp(where, "port", 4) ||
	       !strncmp(where, "sslmode", 7) || !strncmp(where, "application_name", 16) ||
	       !strncmp(where, "connect_timeout", 15) || !strncmp(where, "passfile", 8);
}

/* ------------------------------------------------------------------ time */
static int digits(int *out, const char *s, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* "30s", "15m", "12h", "7d", "2w": that long before now. 0, or -1 when it is not one. */
static int relative_time(char out[21], const char *text)
{
	static const char units[] = "smhdw";
	static const int64_t secs[] = { 1, 60, 3600, 86400, 7 * 86400 };
	size_t n = strlen(text);
	const char *u;
	int64_t v;

	if (n < 2 || !(u = strchr(units, text[n - 1])) || prov_parse_i64(&v, text, n - 1) < 0 ||
	    v < 0 || v > 100000LL * 86400 / secs[u - units])
		return -1;
	prov_store_format_time(out, (int64_t)time(NULL) - v * secs[u - units]);
	return 0;
}

void prov_store_format_time(char out[21], int64_t secs)
{
	struct tm tm;
	time_t t = (time_t)secs;

	if (!gmtime_r(&t, &tm) || !strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 21, "1970-01-01T00:00:00Z");
}

int prov_store_parse_time(char out[21], const char *text)
{
	struct tm tm = { 0 };
	int y, mo, d, h = 0, mi = 0, sec = 0;
	size_t n = strlen(text);
	time_t t;

	if (relative_time(out, text) == 0)
		return 0;
	if (text[0] == '@') {
		int64_t v;

		if (prov_parse_i64(&v, text + 1, strlen(text + 1)) < 0 || v < 0 ||
		    v > 253402300799LL)
			goto bad;
		prov_store_format_time(out, v);
		return 0;
	}
	if (n < 10 || digits(&y, text, 4) < 0 || text[4] != '-' || digits(&mo, text + 5, 2) < 0 ||
	    text[7] != '-' || digits(&d, text + 8, 2) < 0)
		goto bad;
	if (n > 10) {
		const char *p = text + 10;

		if ((*p != 'T' && *p != ' ') || strlen(p) < 6 || digits(&h, p + 1, 2) < 0 ||
		    p[3] != ':' || digits(&mi, p + 4, 2) < 0)
			goto bad;
		p += 6;
		if (*p == ':') {
			if (digits(&sec, p + 1, 2) < 0)
				goto bad;
			p += 3;
		}
		if (*p == 'Z')
			p++;
		if (*p)
			goto bad;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || y < 1970)
		goto bad;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if (t == (time_t)-1)
		goto bad;
	prov_store_format_time(out, (int64_t)t);
	/* 2026-02-30 normalises to March: refuse it rather than guess */
	{
		int got;

		if (digits(&got, out + 8, 2) < 0 || got != d)
			goto bad;
	}
	return 0;
bad:
	return prov_error_set(PROV_EINPUT, "bad time '%s' (expected YYYY-MM-DD[THH:MM[:SS]][Z], UTC, @SECONDS, or an age: 7d, 12h, 2w)",
			      text);
}

static int index_cmp(const void *a, const void *b, void *data)
{
	const struct prov_triage *t = data;

	return strcmp(t->groups[*(const size_t *)a].signature, t->groups[*(const size_t *)b].signature);
}

size_t *store_triage_index(const struct prov_triage *t)
{
	size_t *index = prov_xcalloc(t->ngroups + 1, sizeof(*index)), i;

	for (i = 0; i < t->ngroups; i++)
		index[i] = i;
	qsort_r(index, t->ngroups, sizeof(*index), index_cmp, (void *)t);
	return index;
}

long store_triage_find(const struct prov_triage *t, const size_t *index, const char *signature)
{
	size_t lo = 0, hi = t->ngroups;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->groups[index[mid]].signature, signature);

		if (!c)
			return (long)index[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void store_triage_add_version(struct prov_triage *t, const char *component, const char *version,
			      const int64_t *counts, const int64_t *approx, int64_t total)
{
	char *c = prov_xstrdup(component), *ver = prov_xstrdup(version);
	size_t k;

	/* one copy of the strings for every group, owned by the first group's entry */
	for (k = 0; k < t->ngroups; k++) {
		struct prov_triage_group *g = &t->groups[k];
		struct prov_triage_version *v;

		/* capacity: the next power of two (at least 8) */
		if (g->nversions < 8 ? !g->nversions : !(g->nversions & (g->nversions - 1)))
			g->versions = prov_xrealloc(g->versions, (g->nversions < 8 ? 8 : 2 * g->nversions) *
							       sizeof(*v));
		v = &g->versions[g->nversions++];
		v->component = c;
		v->version = ver;
		v->count = counts[k];
		v->total = total;
		v->approximate = approx[k];
	}
	if (!t->ngroups) {
		free(c);
		free(ver);
	}
}

void prov_triage_release(struct prov_triage *t)
{
	size_t i, k;

	for (i = 0; i < t->ngroups; i++) {
		struct prov_triage_group *g = &t->groups[i];

		free(g->signature);
		free(g->first_seen);
		free(g->last_seen);
		free(g->signal_name);
		free(g->context);
		for (k = 0; k < g->nframes; k++) {
			free(g->frames[k].function);
			free(g->frames[k].file);
			free(g->frames[k].module);
		}
		free(g->frames);
		/* the version strings are shared by every group: the first owns them */
		for (k = 0; i == 0 && k < g->nversions; k++) {
			free(g->versions[k].component);
			free(g->versions[k].version);
		}
		free(g->versions);
		for (k = 0; k < g->nbuckets; k++) {
			free(g->buckets[k].key);
			free(g->buckets[k].digest);
		}
		free(g->buckets);
		if (g->fix) {
			free(g->fix->fixed_in);
			free(g->fix->component);
			free(g->fix->bug);
			free(g->fix->note);
			free(g->fix->marked);
			free(g->fix);
		}
	}
	free(t->groups);
	memset(t, 0, sizeof(*t));
}

int store_only_trailer(const char *p)
{
	while (*p) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ';') {
			p++;
		} else if (p[0] == '-' && p[1] == '-') {
			while (*p && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");

			if (!e)
				return 1;	/* an unterminated comment is a comment to the end */
			p = e + 2;
		} else {
			return 0;
		}
	}
	return 1;
}
