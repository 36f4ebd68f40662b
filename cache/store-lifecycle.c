/* Triage's buckets (--by) and the fix lifecycle (provenance mark) on either store, through prov_store_rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store.h"
#include "store-int.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * Both stores answer with the same rows (store_rows_sql: one SQL text), and
 * everything else is done here, once: weeks folded from days, versions in
 * dpkg order, each marked group's builds placed against its fix. Bounded:
 * a selection with more rows than this is refused, never cut.
 */
#define LIFE_MAX_ROWS 50000000ULL
#define LIFE_QUERY_MS (3600ULL * 1000)

struct bucket_rows {
	struct prov_triage *t;
	const size_t *index;
	int week;
	int image;	/* rows of (signature, digest, crashes, ref) */
	long last_group;
};

/*
 * An image's label: "REF@" when a crash named one, then the digest cut to
 * "sha256:" and 12 hex digits (a digest of another form whole);
 * "(no image)" for none (malloc'd).
 */
static char *image_label(const char *digest, const char *ref)
{
	int len = !digest ? 0 : !strncmp(digest, "sha256:", 7) && strlen(digest) > 19 ? 19 : (int)strlen(digest);

	if (!digest)
		return prov_xstrdup("(no image)");
	return prov_xasprintf("%s%s%.*s", ref ? ref : "", ref ? "@" : "", len, digest);
}

/* "YYYY-MM-DD" to its ISO week "YYYY-Www" (UTC); 0, or -1 for a bad date. */
static int iso_week(char out[16], const char *day)
{
	struct tm tm = { 0 };
	time_t secs;
	int y, m, d;

	if (!day || strlen(day) != 10 || day[4] != '-' || day[7] != '-')
		return -1;
	if (prov_parse_int(&y, day, 4) < 0 || prov_parse_int(&m, day + 5, 2) < 0 ||
	    prov_parse_int(&d, day + 8, 2) < 0)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	tm.tm_hour = 12;
	secs = timegm(&tm);
	if (secs == (time_t)-1 || !gmtime_r(&secs, &tm) || !strftime(out, 16, "%G-W%V", &tm))
		return -1;
	return 0;
}

static int bucket_row(size_t ncols, const char *const *names, const char *const *v, const char *types,
		      void *data)
{
	struct bucket_rows *b = data;
	struct prov_triage_group *g;
	char week[16];
	const char *key = v[1] ? v[1] : "?";
	long gi;
	int64_t n = 0;

	(void)names;
	(void)types;
	if (ncols < 3 || !v[0] || !v[2] || prov_parse_i64(&n, v[2], strlen(v[2])) < 0)
		return 0;
	gi = store_triage_find(b->t, b->index, v[0]);
	if (gi < 0)
		return 0;
	g = &b->t->groups[gi];
	if (b->week) {
		if (iso_week(week, key) < 0)
			return 0;
		key = week;
		/* days come in order: a week's days are one run */
		if (g->nbuckets && !strcmp(g->buckets[g->nbuckets - 1].key, key)) {
			g->buckets[g->nbuckets - 1].count += n;
			return 0;
		}
	}
	g->buckets = prov_xrealloc(g->buckets, (g->nbuckets + 1) * sizeof(*g->buckets));
	g->buckets[g->nbuckets].key = b->image ? image_label(v[1], ncols > 3 ? v[3] : NULL) :
		prov_xstrdup(key);
	g->buckets[g->nbuckets].count = n;
	g->buckets[g->nbuckets].digest = b->image && v[1] ? prov_xstrdup(v[1]) : NULL;
	g->nbuckets++;
	return 0;
}

/* "NAME VERSION" in component name order, then dpkg's version order; "?" last */
static int version_key_cmp(const void *pa, const void *pb)
{
	const struct prov_triage_bucket *a = pa, *b = pb;
	const char *sa = strchr(a->key, ' '), *sb = strchr(b->key, ' ');
	size_t la = sa ? (size_t)(sa - a->key) : strlen(a->key);
	size_t lb = sb ? (size_t)(sb - b->key) : strlen(b->key);
	int c;

	if (!sa || !sb)
		return !sa && !sb ? strcmp(a->key, b->key) : !sa ? 1 : -1;
	if ((c = strncmp(a->key, b->key, la < lb ? la : lb)) || la != lb)
		return c ? c : la < lb ? -1 : 1;
	return prov_version_cmp(sa + 1, sb + 1);
}

/* The backend's rows, as prov_store_rows gives them: called here directly,
 * so that store.c (which calls this file) is not called back. */
static int life_rows(struct prov_store *s, enum prov_store_rows what, const struct prov_triage_opts *o,
		     const char *signature, uint64_t max_rows, uint64_t timeout_ms,
		     prov_store_row_fn row, void *data)
{
	return s->ops->rows(s->backend, (int)what, o, signature, max_rows, timeout_ms, row, data);
}

static int fill_buckets(struct prov_triage *t, struct prov_store *s, const struct prov_triage_opts *o,
			uint64_t ms)
{
	struct bucket_rows b = { t, NULL, 0, 0, -1 };
	enum prov_store_rows what;
	size_t i;
	int err;

	if (!strcmp(o->by, "day") || !strcmp(o->by, "week")) {
		what = PROV_STORE_DAYS;
		b.week = o->by[0] == 'w';
	} else if (!strcmp(o->by, "host")) {
		what = PROV_STORE_HOSTS;
	} else if (!strcmp(o->by, "version")) {
		what = PROV_STORE_VERSIONS;
	} else if (!strcmp(o->by, "image")) {
		what = PROV_STORE_IMAGES;
		b.image = 1;
	} else {
		return prov_error_set(PROV_EINPUT, "--by wants day, week, version, host or image, not '%s'", o->by);
	}
	t->by = b.week ? "week" : what == PROV_STORE_DAYS ? "day" : what == PROV_STORE_HOSTS ? "host" :
		b.image ? "image" : "version";
	if (!t->ngroups)
		return 0;
	b.index = store_triage_index(t);
	err = life_rows(s, what, o, NULL, LIFE_MAX_ROWS, ms, bucket_row, &b);
	free((void *)b.index);
	if (err == 1)
		err = prov_error_set(PROV_ELIMIT, "triage --by: more than %llu rows; narrow it (--since)",
				     LIFE_MAX_ROWS);
	if (err < 0)
		return err;
	for (i = 0; what == PROV_STORE_VERSIONS && i < t->ngroups; i++)
		if (t->groups[i].nbuckets > 1)
			qsort(t->groups[i].buckets, t->groups[i].nbuckets, sizeof(*t->groups[i].buckets),
			      version_key_cmp);
	return 0;
}

/* ---------------------------------------------------------------- lifecycle */

/* A fix named by a commit: 7 to 64 hex digits with at least one letter (all digits: a version). */
static int is_commit(const char *s)
{
	size_t n = strlen(s), i;
	int letter = 0;

	if (n < 7 || n > 64)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] >= 'a' && s[i] <= 'f')
			letter = 1;
		else if (!(s[i] >= '0' && s[i] <= '9'))
			return 0;
	}
	return letter;
}

/* Where a build stands against the fix: 1 contains it, 0 before it, -1 could not determine. */
static int build_has_fix(const char *fixed_in, const char *version, const char *commit)
{
	if (is_commit(fixed_in)) {
		size_t a, b;

		if (!commit || !is_commit(commit))
			return -1;
		a = strlen(fixed_in);
		b = strlen(commit);
		/* the fix's own commit; any other: its ancestry is not in the store */
		return !strncmp(fixed_in, commit, a < b ? a : b) ? 1 : -1;
	}
	if (!version || !*version || !strcmp(version, "?"))
		return -1;
	return prov_version_cmp(version, fixed_in) >= 0;
}

static void fix_count(struct prov_triage_fix *f, const char *version, const char *commit, int64_t n)
{
	int has = build_has_fix(f->fixed_in, version, commit);

	if (has > 0)
		f->in_fixed += n;
	else if (has == 0)
		f->before += n;
	else
		f->unknown += n;
	f->status = f->in_fixed ? PROV_MARK_REGRESSION : f->unknown ? PROV_MARK_UNDETERMINED : PROV_MARK_FIXED;
}

struct mark_rows {
	struct prov_triage *t;
	const size_t *index;
	size_t marked;	/* groups with a mark: without one, no build is read */
};

static char *dup_or_null(const char *s)
{
	return s ? prov_xstrdup(s) : NULL;
}

static int mark_row(size_t ncols, const char *const *names, const char *const *v, const char *types,
		    void *data)
{
	struct mark_rows *m = data;
	struct prov_triage_fix *f;
	long gi;

	(void)names;
	(void)types;
	if (ncols < 6 || !v[0] || !v[1] || (gi = store_triage_find(m->t, m->index, v[0])) < 0)
		return 0;
	if (m->t->groups[gi].fix)
		return 0;
	f = prov_xcalloc(1, sizeof(*f));
	f->fixed_in = prov_xstrdup(v[1]);
	f->component = dup_or_null(v[2]);
	f->bug = dup_or_null(v[3]);
	f->note = dup_or_null(v[4]);
	f->marked = dup_or_null(v[5]);
	f->status = PROV_MARK_FIXED;
	m->t->groups[gi].fix = f;
	m->marked++;
	return 0;
}

static int build_row(size_t ncols, const char *const *names, const char *const *v, const char *types,
		     void *data)
{
	struct mark_rows *m = data;
	struct prov_triage_fix *f;
	int64_t n = 0;
	long gi;

	(void)names;
	(void)types;
	if (ncols < 4 || !v[0] || !v[3] || prov_parse_i64(&n, v[3], strlen(v[3])) < 0 ||
	    (gi = store_triage_find(m->t, m->index, v[0])) < 0 || !(f = m->t->groups[gi].fix))
		return 0;
	fix_count(f, v[1], v[2], n);
	return 0;
}

static int fill_fixes(struct prov_triage *t, struct prov_store *s, const struct prov_triage_opts *o, uint64_t ms)
{
	struct prov_triage_opts none = { 0 };
	struct mark_rows m = { t, NULL, 0 };
	int err;

	if (!t->ngroups)
		return 0;
	m.index = store_triage_index(t);
	err = life_rows(s, PROV_STORE_MARKS, &none, NULL, LIFE_MAX_ROWS, ms, mark_row, &m);
	/* no marked group: the builds' query (a join over the selection) would count nothing */
	if (err >= 0 && m.marked)
		err = life_rows(s, PROV_STORE_FIX_BUILDS, o, NULL, LIFE_MAX_ROWS, ms,
				      build_row, &m);
	free((void *)m.index);
	if (err == 1)
		err = prov_error_set(PROV_ELIMIT, "triage: more than %llu rows of marked builds; narrow it (--since)",
				     LIFE_MAX_ROWS);
	return err < 0 ? err : 0;
}

int store_triage_extras(struct prov_triage *t, struct prov_store *s, const struct prov_triage_opts *o,
			uint64_t timeout_ms)
{
	uint64_t ms = timeout_ms ? timeout_ms : LIFE_QUERY_MS;
	int err;

	if (o->by && (err = fill_buckets(t, s, o, ms)) < 0)
		return err;
	return fill_fixes(t, s, o, ms);
}

/* -------------------------------------------------------- resolve --store */

struct one_crash {
	char *signature, *version, *commit;
	int found;
	struct prov_triage_fix fix;
};

static int one_build(size_t ncols, const char *const *names, const char *const *v, const char *types,
		     void *data)
{
	struct one_crash *c = data;

	(void)names;
	(void)types;
	if (ncols < 4 || !v[0] || c->found)
		return 0;
	c->found = 1;
	c->signature = prov_xstrdup(v[0]);
	c->version = dup_or_null(v[1]);
	c->commit = dup_or_null(v[2]);
	return 0;
}

static int one_mark(size_t ncols, const char *const *names, const char *const *v, const char *types,
		    void *data)
{
	struct one_crash *c = data;

	(void)names;
	(void)types;
	if (ncols < 6 || !v[1] || c->fix.fixed_in)
		return 0;
	c->fix.fixed_in = prov_xstrdup(v[1]);
	c->fix.component = dup_or_null(v[2]);
	return 0;
}

int store_history_fix(char **out, struct prov_store *s, int64_t crash_id)
{
	struct prov_triage_opts none = { 0 };
	struct one_crash c = { 0 };
	char id[24];
	int err, has;

	*out = NULL;
	snprintf(id, sizeof(id), "%lld", (long long)crash_id);
	if ((err = life_rows(s, PROV_STORE_FIX_BUILDS, &none, id, 2, LIFE_QUERY_MS, one_build, &c)) < 0 ||
	    !c.found)
		goto cleanup;
	if ((err = life_rows(s, PROV_STORE_MARKS, &none, c.signature, 2, LIFE_QUERY_MS, one_mark, &c)) < 0 ||
	    !c.fix.fixed_in)
		goto cleanup;
	has = build_has_fix(c.fix.fixed_in, c.version, c.commit);
	if (has > 0)
		*out = prov_xasprintf("REGRESSION: marked fixed in %s%s%s, and this build has the fix",
				      c.fix.fixed_in, c.fix.component ? " of " : "",
				      c.fix.component ? c.fix.component : "");
	else if (has == 0)
		*out = prov_xasprintf("marked fixed in %s%s%s; this build (%s) is before the fix",
				      c.fix.fixed_in, c.fix.component ? " of " : "",
				      c.fix.component ? c.fix.component : "", c.version);
	else
		*out = prov_xasprintf("marked fixed in %s%s%s; could not determine whether this build has the fix",
				      c.fix.fixed_in, c.fix.component ? " of " : "",
				      c.fix.component ? c.fix.component : "");
	err = 0;
cleanup:
	free(c.signature);
	free(c.version);
	free(c.commit);
	free(c.fix.fixed_in);
	free(c.fix.component);
	return err < 0 ? err : 0;
}
