/* The crash store's front: which backend a --store value opens, and the calls through its ops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cachedir.h"
#include "store.h"
#include "store-int.h"
#include "error.h"
#include "util.h"
#include "banned.h"

/*
 * The store's front: which backend a --store value names (store-sqlite.c,
 * store-pg.c) and the calls through the ops its open filled. What the
 * backends share with the front (names, times, triage grouping) is
 * store-common.c, the schema store-schema.c, the report reading
 * store-report.c: the backends call those, never this file.
 */

/* The data directory: $XDG_DATA_HOME/provenance, else ~/.local/share/provenance; NULL: neither is set. */
static char *data_dir(void)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return prov_xasprintf("%s/provenance", xdg);
	if (home && *home)
		return prov_xasprintf("%s/.local/share/provenance", home);
	return NULL;
}

/* Move a store left in the cache directory (and its WAL companions) to `path`; 0 when moved. */
static int move_old_store(const char *old, const char *path)
{
	static const char *const parts[] = { "-wal", "-shm" };
	struct stat st;
	size_t i;

	if (lstat(old, &st) < 0 || !S_ISREG(st.st_mode) || lstat(path, &st) == 0)
		return -1;
	if (prov_mkdir_p(path, 0700, PROV_MKDIR_PARENTS) < 0 || rename(old, path) < 0)
		return -1;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		char *from = prov_xasprintf("%s%s", old, parts[i]), *to = prov_xasprintf("%s%s", path, parts[i]);

		if (rename(from, to) < 0)
			unlink(to);	/* no companion there: none must be left here either */
		free(from);
		free(to);
	}
	return 0;
}

char *prov_store_default_path(const char *cache_dir)
{
	char *dir = data_dir(), *path, *old = prov_cachedir_path(cache_dir, PROV_CACHEDIR_STORE);

	if (!dir)
		return old;	/* no HOME (a service): the cache directory, as before */
	path = prov_xasprintf("%s/%s", dir, prov_cachedir_name(PROV_CACHEDIR_STORE));
	free(dir);
	if (strcmp(path, old) != 0 && move_old_store(old, path) == 0) {
		prov_warn("moved the crash store from the cache directory '%s' to '%s' (a store is data, not cache)",
			  old, path);
	} else if (strcmp(path, old) != 0 && access(old, F_OK) == 0 && access(path, F_OK) != 0) {
		/* there and not movable (another file system?): used where it is */
		prov_warn("using the crash store in the cache directory '%s': it could not be moved to '%s'",
			  old, path);
		free(path);
		return old;
	}
	free(old);
	return path;
}

static void blank(char *p, const char *stop)
{
	for (; *p && !strchr(stop, *p); p++)
		*p = 'x';
}

void prov_store_hide_password(char *arg)
{
	char *p, *at, *end;

	if (!arg || !prov_store_is_pg(arg))
		return;
	p = strstr(arg, "://");
	if (p) {
		/* postgresql://user:PASSWORD@host/db?...&password=PASSWORD */
		p += 3;
		end = p + strcspn(p, "/?");
		at = memchr(p, '@', (size_t)(end - p));
		if (at) {
			char *colon = memchr(p, ':', (size_t)(at - p));

			if (colon)
				blank(colon + 1, "@");
		}
		for (p = strchr(end, '?'); p; p = strchr(p + 1, '&'))
			if (!strncmp(p + 1, "password=", 9))
				blank(p + 10, "&");
		return;
	}
	/* keywords: password=VALUE or password = 'VALUE' */
	for (p = strstr(arg, "password"); p; p = strstr(p + 1, "password")) {
		char *v = p + 8;

		if (p != arg && p[-1] != ' ' && p[-1] != '\t')
			continue;
		while (*v == ' ')
			v++;
		if (*v != '=')
			continue;
		v++;
		while (*v == ' ')
			v++;
		if (*v == '\'')
			blank(v + 1, "'");
		else
			blank(v, " \t");
	}
}

int prov_store_open(struct prov_store **out, const char *path, int readonly)
{
	struct prov_store *s = prov_xcalloc(1, sizeof(*s));
	int err;

	s->name = prov_store_safe_name(path);
	if (prov_store_is_pg(path))
		err = store_pg_open(&s->backend, &s->ops, path, s->name, readonly);
	else
		err = store_sqlite_open(&s->backend, &s->ops, path, readonly);
	if (err < 0) {
		free(s->name);
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

void prov_store_free(struct prov_store *s)
{
	if (!s)
		return;
	s->ops->free(s->backend);
	free(s->name);
	free(s);
}

const char *prov_store_name(const struct prov_store *s)
{
	return s->name;
}

int prov_store_begin(struct prov_store *s)
{
	return s->ops->begin(s->backend);
}

int prov_store_commit(struct prov_store *s)
{
	return s->ops->commit(s->backend);
}

void prov_store_rollback(struct prov_store *s)
{
	s->ops->rollback(s->backend);
}

int prov_store_add(int64_t *out_id, struct prov_store *s, const char *json, size_t len,
		   const struct prov_store_meta *meta)
{
	return s->ops->add(out_id, s->backend, json, len, meta);
}

int prov_store_stale(const struct prov_store *s)
{
	return s && s->ops->stale ? s->ops->stale(s->backend) : 0;
}

int prov_store_report_get(char **out, size_t *out_len, struct prov_store *s, int64_t id)
{
	int err = s->ops->report(out, out_len, s->backend, id);

	if (err == 1)
		err = prov_error_set(PROV_EINPUT, "no crash %lld in %s", (long long)id, s->name);
	return err;
}

int prov_store_prune(int64_t *out_n, struct prov_store *s, const char *before, int64_t keep,
		     int dry_run)
{
	*out_n = 0;
	return s->ops->prune(out_n, s->backend, before, keep < 0 ? 0 : keep, dry_run);
}

int prov_store_history(char **out, struct prov_store *s, int64_t crash_id)
{
	char *fix = NULL, *both;
	int err;

	if ((err = s->ops->history(out, s->backend, crash_id)) < 0)
		return err;
	if ((err = store_history_fix(&fix, s, crash_id)) < 0 || !fix) {
		if (err < 0) {
			free(*out);
			*out = NULL;
		}
		return err;
	}
	both = *out ? prov_xasprintf("%s; %s", *out, fix) : prov_xstrdup(fix);
	free(*out);
	free(fix);
	*out = both;
	return 0;
}

int prov_store_triage(struct prov_triage *out, struct prov_store *s,
		      const struct prov_triage_opts *opts)
{
	int err;

	if ((err = s->ops->triage(out, s->backend, opts)) < 0)
		return err;
	if ((err = store_triage_extras(out, s, opts, 0)) < 0)
		prov_triage_release(out);
	return err;
}

int prov_store_mark(struct prov_store *s, const char *signature, const char *fixed_in,
		    const char *component, const char *bug, const char *note)
{
	char now[21];
	const char *v[6] = { signature, fixed_in, component, bug, note, now };

	if (!signature || !*signature || !fixed_in || !*fixed_in)
		return prov_error_set(PROV_EINPUT, "mark needs a signature and --fixed-in");
	prov_store_format_time(now, (int64_t)time(NULL));
	return s->ops->mark(s->backend, v);
}

int prov_store_triage_bounded(struct prov_triage *out, struct prov_store *s,
			      const struct prov_triage_opts *opts, uint64_t timeout_ms)
{
	uint64_t start = prov_now_ms();
	int err;

	if (!timeout_ms)
		timeout_ms = 10000;
	if ((err = s->ops->deadline(s->backend, timeout_ms)) < 0)
		return err;
	err = s->ops->triage(out, s->backend, opts);
	s->ops->deadline(s->backend, 0);
	if (err < 0 && prov_now_ms() - start >= timeout_ms)
		return prov_error_set(PROV_ELIMIT, "store: triage ran past its time limit of %llu ms; narrow the selection",
				      (unsigned long long)timeout_ms);
	if (err < 0)
		return err;
	/* the buckets and the fix lifecycle, as prov_store_triage: the web view's JSON is triage's */
	if ((err = store_triage_extras(out, s, opts, timeout_ms)) < 0)
		prov_triage_release(out);
	return err;
}

int prov_store_query(struct prov_store *s, const char *sql, const struct prov_query_opts *opts,
		     prov_store_row_fn row, void *data)
{
	return s->ops->query(s->backend, sql, opts, row, data);
}

int prov_store_rows(struct prov_store *s, enum prov_store_rows what, const struct prov_triage_opts *o,
		    const char *signature, uint64_t max_rows, uint64_t timeout_ms,
		    prov_store_row_fn row, void *data)
{
	return s->ops->rows(s->backend, (int)what, o, signature, max_rows, timeout_ms ? timeout_ms : 10000,
			    row, data);
}

/* The digests an image argument matches (prov_store_image_resolve's rows). */
struct image_match {
	char *digest[4];	/* the first four, for the message */
	size_t n;	/* digests that start with the argument */
	size_t by_ref;	/* crashes' digests named by the argument as a ref */
	int prefix;	/* whether the argument is a digest prefix (12+ hex digits) */
};

static int image_match_row(size_t ncols, const char *const *names, const char *const *v, const char *types,
			   void *data)
{
	struct image_match *m = data;

	if (ncols < 3 || !v[0])
		return 0;
	if (v[1] && !strcmp(v[1], "1"))
		m->by_ref++;
	if (m->prefix && v[2] && !strcmp(v[2], "1")) {
		if (m->n < 4)
			m->digest[m->n] = prov_xstrdup(v[0]);
		m->n++;
	}
	return 0;
}

/* The length of arg's run of lowercase hex digits from its start. */
static size_t hex_run(const char *arg)
{
	size_t n = 0;

	while ((arg[n] >= '0' && arg[n] <= '9') || (arg[n] >= 'a' && arg[n] <= 'f'))
		n++;
	return n;
}

/* Whether every byte is one an OCI ref.name has: letters, digits and -._:@/+ */
static int ref_chars(const char *arg)
{
	for (; *arg; arg++)
		if (!((*arg >= 'a' && *arg <= 'z') || (*arg >= 'A' && *arg <= 'Z') || (*arg >= '0' && *arg <= '9') ||
		      strchr("-._:@/+", *arg)))
			return 0;
	return 1;
}

int prov_store_image_resolve(char **out, struct prov_store *s, const char *arg, uint64_t timeout_ms)
{
	struct prov_triage_opts none = { 0 };
	struct image_match m = { 0 };
	const char *hex = prov_skip_prefix(arg, "sha256:");
	char *lower = NULL;
	size_t i, n, shown;
	int err, more;

	*out = NULL;
	if (hex) {	/* a digest: its hex in lowercase, as stores keep it */
		lower = prov_xstrdup(arg);
		for (i = 7; lower[i]; i++)
			if (lower[i] >= 'A' && lower[i] <= 'F')
				lower[i] = (char)(lower[i] - 'A' + 'a');
		n = hex_run(lower + 7);
		if (lower[7 + n] || n < PROV_IMAGE_PREFIX_MIN || n > 64) {
			err = prov_error_set(PROV_EINPUT, "image: a digest is sha256: and %d to 64 hex digits%s",
					     PROV_IMAGE_PREFIX_MIN, lower[7 + n] ? " (this one has a character that is not one)" :
					     n < PROV_IMAGE_PREFIX_MIN ? " (this one is too short)" : " (this one is too long)");
			goto cleanup;
		}
		arg = lower;
		m.prefix = 1;
	} else if (!ref_chars(arg)) {
		err = prov_error_set(PROV_EINPUT, "image: neither a digest (sha256:HEX) nor a ref (letters, digits and -._:@/+)");
		goto cleanup;
	} else {
		n = hex_run(arg);
		m.prefix = !arg[n] && n >= PROV_IMAGE_PREFIX_MIN && n <= 64;
	}
	if ((err = prov_store_rows(s, PROV_STORE_IMAGE_MATCH, &none, arg, 64, timeout_ms, image_match_row, &m)) < 0)
		goto cleanup;
	more = err == 1;
	err = 0;
	if (!hex && !arg[hex_run(arg)] && !m.prefix && !m.by_ref) {
		err = prov_error_set(PROV_EINPUT, "image: '%s' is too short for a digest (at least %d hex digits) "
				     "and no crash was recorded from an image named by it", arg, PROV_IMAGE_PREFIX_MIN);
	} else if (m.prefix && m.n > 1) {
		struct prov_buf b = PROV_BUF_INIT;

		/* each candidate as sha256: and 4 hex digits more than were given */
		shown = 7 + (n + 4 > 64 ? 64 : n + 4);
		for (i = 0; i < m.n && i < 4; i++)
			prov_buf_printf(&b, "%s%.*s", i ? ", " : "", (int)shown, m.digest[i]);
		err = prov_error_set(PROV_EINPUT, "image: '%s' is the start of %s%zu image digests (%s%s); give more digits",
				     arg, more ? "more than " : "", m.n, b.buf ? b.buf : "", m.n > 4 ? ", ..." : "");
		prov_buf_release(&b);
	} else if (m.prefix && m.n == 1) {
		*out = m.digest[0];
		m.digest[0] = NULL;
	}
cleanup:
	for (i = 0; i < 4; i++)
		free(m.digest[i]);
	free(lower);
	return err;
}
