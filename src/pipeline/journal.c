/* provenance import --journal: systemd-coredump's journal entries and cores, each stored once. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "collect.h"
#include "error.h"
#include "journal.h"
#include "sha256.h"
#include "store.h"
#include "util.h"
#include "banned.h"

#define MAX_CURSOR 1024
/* an entry's fields read at most (a journal entry of systemd-coredump has about 40) */
#define MAX_FIELDS 1024

void prov_journal_entry_init(struct prov_journal_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->pid = e->signal = -1;
}

void prov_journal_entry_release(struct prov_journal_entry *e)
{
	prov_collect_facts_release(&e->facts);
	free(e->host);
	free(e->filename);
	free(e->comm);
	free(e->root);
	free(e->unit);
	free(e->uid);
	free(e->boot_id);
	free(e->machine_id);
	free(e->bad);
	prov_journal_entry_init(e);
}

static void entry_bad(struct prov_journal_entry *e, const char *name, size_t nlen, const char *why)
{
	if (!e->bad)
		e->bad = prov_xasprintf("%.*s %s", (int)nlen, name, why);
}

/* A text value: *dst (first one wins); `cut` shortens a long one, else it is bad. */
static void take_text(struct prov_journal_entry *e, char **dst, const char *name, size_t nlen,
		      const char *v, size_t vlen, int cut)
{
	if (*dst)
		return;
	if (memchr(v, 0, vlen)) {
		entry_bad(e, name, nlen, "holds a NUL byte");
		return;
	}
	if (vlen > PROV_JOURNAL_MAX_VALUE) {
		if (!cut) {
			entry_bad(e, name, nlen, "is over " "4096" " bytes");
			return;
		}
		vlen = PROV_JOURNAL_MAX_VALUE;
		while (vlen && ((unsigned char)v[vlen] & 0xc0) == 0x80)
			vlen--;	/* not inside a UTF-8 sequence */
	}
	*dst = prov_xstrndup(v, vlen);
}

/* A decimal number value, 0 to max; bad otherwise. */
static void take_num(struct prov_journal_entry *e, int64_t *dst, const char *name, size_t nlen,
		     const char *v, size_t vlen, int64_t max)
{
	int64_t n;

	if (*dst >= 0)
		return;
	if (vlen == 0 || vlen > 20 || prov_parse_i64(&n, v, vlen) < 0 || n < 0 || n > max) {
		entry_bad(e, name, nlen, "is not a number in range");
		return;
	}
	*dst = n;
}

/* COREDUMP_ENVIRON: NAME=value lines; only the job variables are kept. */
static void take_environ(struct prov_journal_entry *e, const char *v, size_t vlen)
{
	size_t pos = 0;

	while (pos < vlen) {
		const char *line = v + pos;
		const char *nl = memchr(line, '\n', vlen - pos);
		size_t len = nl ? (size_t)(nl - line) : vlen - pos;
		const char *eq = memchr(line, '=', len);
		int i = eq ? prov_collect_job_var(line, (size_t)(eq - line)) : -1;

		if (i >= 0 && !e->facts.var[i]) {
			size_t l = len - (size_t)(eq - line) - 1;

			if (l <= 256 && !memchr(eq + 1, 0, l))
				e->facts.var[i] = prov_xstrndup(eq + 1, l);
		}
		pos += len + 1;
	}
}

/* A 128-bit id as systemd writes it: 32 lowercase hex digits. */
static void take_id(struct prov_journal_entry *e, char **dst, const char *name, size_t nlen,
		    const char *v, size_t vlen)
{
	if (*dst)
		return;
	if (vlen != 32 || strspn(v, "0123456789abcdef") < 32) {
		entry_bad(e, name, nlen, "is not a 128-bit id");
		return;
	}
	*dst = prov_xstrndup(v, vlen);
}

void prov_journal_entry_add(struct prov_journal_entry *e, const char *data, size_t len)
{
	const char *eq = memchr(data, '=', len);
	size_t n, vlen;
	const char *v;
	int64_t num = -1;

	if (!eq)
		return;	/* sd-journal gives NAME=value only */
	n = (size_t)(eq - data);
	v = eq + 1;
	vlen = len - n - 1;
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(data, lit, n))
	if (IS("MESSAGE_ID"))
		e->coredump = vlen == 32 && !memcmp(v, PROV_JOURNAL_COREDUMP_ID, 32);
	else if (IS("COREDUMP"))
		e->has_core = 1;
	else if (IS("COREDUMP_PID"))
		take_num(e, &e->pid, data, n, v, vlen, 0x7fffffff);
	else if (IS("COREDUMP_SIGNAL"))
		take_num(e, &e->signal, data, n, v, vlen, 127);
	else if (IS("COREDUMP_TIMESTAMP")) {
		take_num(e, &num, data, n, v, vlen, INT64_MAX);
		if (num >= 0)
			e->usec = (uint64_t)num;
	} else if (IS("COREDUMP_UID")) {
		take_num(e, &num, data, n, v, vlen, 0xffffffffLL);
		if (num >= 0 && !e->uid)
			e->uid = prov_xasprintf("%lld", (long long)num);
	} else if (IS("COREDUMP_EXE"))
		take_text(e, &e->facts.exe, data, n, v, vlen, 0);
	else if (IS("COREDUMP_CMDLINE"))
		take_text(e, &e->facts.cmdline, data, n, v, vlen, 1);
	else if (IS("COREDUMP_CGROUP"))
		take_text(e, &e->facts.cgroup, data, n, v, vlen, 1);
	else if (IS("COREDUMP_HOSTNAME")) {
		free(e->host);	/* COREDUMP_HOSTNAME wins over _HOSTNAME */
		e->host = NULL;
		take_text(e, &e->host, data, n, v, vlen, 0);
	} else if (IS("_HOSTNAME"))
		take_text(e, &e->host, data, n, v, vlen, 0);
	else if (IS("COREDUMP_FILENAME")) {
		take_text(e, &e->filename, data, n, v, vlen, 0);
		if (e->filename && e->filename[0] != '/') {
			entry_bad(e, data, n, "is not an absolute path");
			free(e->filename);
			e->filename = NULL;
		}
	} else if (IS("COREDUMP_COMM"))
		take_text(e, &e->comm, data, n, v, vlen, 1);
	else if (IS("COREDUMP_ROOT"))
		take_text(e, &e->root, data, n, v, vlen, 0);
	else if (IS("COREDUMP_UNIT"))
		take_text(e, &e->unit, data, n, v, vlen, 1);
	else if (IS("COREDUMP_ENVIRON"))
		take_environ(e, v, vlen);
	else if (IS("_BOOT_ID"))
		take_id(e, &e->boot_id, data, n, v, vlen);
	else if (IS("_MACHINE_ID"))
		take_id(e, &e->machine_id, data, n, v, vlen);
#undef IS
	if (e->host && (!*e->host || strpbrk(e->host, " /\\\n\t") ||
			strlen(e->host) > 253)) {
		entry_bad(e, "hostname", 8, "is not a host name");
		free(e->host);
		e->host = NULL;
	}
}

int prov_journal_entry_check(const struct prov_journal_entry *e)
{
	if (e->bad)
		return prov_error_set(PROV_EINPUT, "%s", e->bad);
	if (!e->coredump)
		return prov_error_set(PROV_EINPUT, "not a systemd-coredump entry");
	if (e->signal < 0)
		return prov_error_set(PROV_EINPUT, "no COREDUMP_SIGNAL");
	if (e->pid < 0)
		return prov_error_set(PROV_EINPUT, "no COREDUMP_PID");
	return 0;
}

/* ---- the cursor, per journal and store ---- */

/* DATA_DIR/journal/HASH.cursor, HASH over the journal and the store. */
static char *cursor_path(const struct prov_journal_opts *o)
{
	struct prov_buf key = PROV_BUF_INIT, mid = PROV_BUF_INIT;
	char hex[2 * PROV_SHA256_LEN + 1], *real = NULL, *path;

	if (o->directory) {
		real = realpath(o->directory, NULL);
		prov_buf_printf(&key, "directory:%s", real ? real : o->directory);
	} else {
		if (prov_read_file(&mid, "/etc/machine-id", 64) == 0)
			prov_buf_rtrim(&mid);
		prov_buf_printf(&key, "machine:%s", mid.len ? mid.buf : "");
	}
	prov_buf_printf(&key, "\nstore:%s", o->collect.store ? o->collect.store : "");
	prov_sha256_hex(hex, key.buf, key.len);
	path = prov_xasprintf("%s/journal/%s.cursor", o->data_dir, hex);
	prov_buf_release(&key);
	prov_buf_release(&mid);
	free(real);
	return path;
}

static int cursor_write(const char *path, const char *cursor)
{
	char *tmp = prov_xasprintf("%s.tmp", path), *dir = prov_xstrdup(path);
	size_t len = strlen(cursor);
	int fd = -1, err = 0;

	*strrchr(dir, '/') = 0;
	if ((err = prov_mkdir_p(dir, 0700, 0)) < 0)
		goto cleanup;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, cursor, len) != (ssize_t)len || close(fd) < 0 ||
	    rename(tmp, path) < 0) {
		err = prov_error_set(PROV_ERROR, "cannot keep the journal cursor in '%s': %s", path,
				     strerror(errno));
		if (fd >= 0)
			unlink(tmp);
	}
	fd = -1;
cleanup:
	free(tmp);
	free(dir);
	return err;
}

/* ---- one entry ---- */

/* The core in the entry's COREDUMP field, into a file under dir; NULL with *why set. */
static char *inline_core(sd_journal *j, const char *dir, uint64_t max, char **why)
{
	const void *data;
	size_t len;
	char *path = NULL;
	int fd, r;

	sd_journal_set_data_threshold(j, max ? (size_t)max + 9 : 0);
	r = sd_journal_get_data(j, "COREDUMP", &data, &len);
	sd_journal_set_data_threshold(j, 65536);
	if (r < 0 || len < 9) {
		*why = prov_xasprintf("cannot read the core from the journal: %s", strerror(-r));
		return NULL;
	}
	data = (const char *)data + 9;
	len -= 9;
	if (max && len > max) {
		*why = prov_xasprintf("the core in the journal is over collect.maxCoreSize "
				      "(%llu bytes)", (unsigned long long)max);
		return NULL;
	}
	if (prov_mkdir_p(dir, 0700, 0) < 0) {
		*why = prov_xstrdup(prov_error_last());
		return NULL;
	}
	path = prov_xasprintf("%s/journal-core.%d", dir, (int)getpid());
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len || close(fd) < 0) {
		*why = prov_xasprintf("cannot write the core from the journal: %s", strerror(errno));
		if (fd >= 0)
			unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

/* Analyze and store one checked entry. 0 stored, 1 in the store already, or an error. */
static int import_entry(const struct prov_journal_opts *o, sd_journal *j,
			struct prov_journal_entry *e, const char *cursor, struct prov_buf *msg)
{
	struct prov_collect_opts co = o->collect;
	struct prov_collect_given g = { 0 };
	char secs[24], pid[16], *why = NULL, *tmp = NULL;
	const char *detail[] = {
		"cursor", cursor, "boot_id", e->boot_id, "machine_id", e->machine_id,
		"comm", e->comm, "root", e->root, "unit", e->unit, "filename", e->filename, NULL,
	};
	uint64_t max = co.limits.max_core_size.pct ? 0 : co.limits.max_core_size.value;
	struct stat st;
	int err;

	snprintf(secs, sizeof(secs), "%llu", (unsigned long long)(e->usec / 1000000));
	snprintf(pid, sizeof(pid), "%d", (int)e->pid);
	co.pid = (int)e->pid;
	co.signal = (int)e->signal;
	co.time = e->usec ? secs : NULL;
	co.host = e->host;
	co.uid = e->uid;
	g.origin = "journal";
	g.detail_name = "journal";
	g.detail = detail;
	if (e->filename) {
		g.kept = e->filename;
		if (stat(e->filename, &st) < 0)
			why = prov_xasprintf("the core '%s' is gone (%s)", e->filename, strerror(errno));
		else if (!S_ISREG(st.st_mode))
			why = prov_xasprintf("'%s' is not a regular file", e->filename);
		else if (max && (uint64_t)st.st_size > max)
			why = prov_xasprintf("the core '%s' is over collect.maxCoreSize (%llu bytes)",
					     e->filename, (unsigned long long)max);
		else
			g.core = e->filename;
	} else if (e->has_core) {
		g.core = tmp = inline_core(j, co.spool_dir, max, &why);
	} else {
		why = prov_xstrdup("systemd-coredump kept no core (Storage=none, or over its limits)");
	}
	g.core_note = why;
	err = prov_collect_import(&co, &e->facts, &g, msg);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(why);
	return err;
}

static int open_journal(sd_journal **j, const struct prov_journal_opts *o)
{
	int r = o->directory ? sd_journal_open_directory(j, o->directory, 0) :
		sd_journal_open(j, SD_JOURNAL_LOCAL_ONLY);

	if (r < 0)
		return prov_error_set(r == -ENOSYS ? PROV_ERROR : PROV_EINPUT,
				      "cannot open the journal%s%s%s: %s",
				      o->directory ? " '" : "", o->directory ? o->directory : "",
				      o->directory ? "'" : "",
				      r == -ENOSYS ? "libsystemd could not be loaded" : strerror(-r));
	r = sd_journal_add_match(*j, "MESSAGE_ID=" PROV_JOURNAL_COREDUMP_ID, 0);
	if (r < 0)
		return prov_error_set(PROV_ERROR, "cannot read the journal: %s", strerror(-r));
	return 0;
}

/* Read one entry's fields into e (the core's bytes are not read here). */
static void read_entry(sd_journal *j, struct prov_journal_entry *e)
{
	const void *data;
	size_t len, n = 0;
	uint64_t usec;

	prov_journal_entry_init(e);
	sd_journal_restart_data(j);
	while (n++ < MAX_FIELDS && sd_journal_enumerate_data(j, &data, &len) > 0)
		prov_journal_entry_add(e, data, len);
	if (!e->usec && sd_journal_get_realtime_usec(j, &usec) >= 0)
		e->usec = usec;
}

int prov_journal_import(const struct prov_journal_opts *o, struct prov_journal_counts *c)
{
	struct prov_buf saved = PROV_BUF_INIT, msg = PROV_BUF_INIT;
	struct prov_journal_entry e;
	sd_journal *j = NULL;
	char *cpath = cursor_path(o), *cursor = NULL;
	int err, r, first = 1;

	memset(c, 0, sizeof(*c));
	prov_journal_entry_init(&e);
	if ((err = open_journal(&j, o)) < 0)
		goto cleanup;
	if (prov_read_file(&saved, cpath, MAX_CURSOR) == 0 && saved.len) {
		prov_buf_rtrim(&saved);
		if ((r = sd_journal_seek_cursor(j, saved.buf)) < 0) {
			err = prov_error_set(PROV_ERROR, "the kept journal cursor ('%s') is not one: %s",
					     cpath, strerror(-r));
			goto cleanup;
		}
	} else {
		prov_buf_reset(&saved);
		sd_journal_seek_head(j);
	}
	while ((r = sd_journal_next(j)) > 0) {
		char when[21];

		if (first && saved.len && sd_journal_test_cursor(j, saved.buf) > 0) {
			first = 0;
			continue;	/* the entry the cursor names: taken last time */
		}
		first = 0;
		free(cursor);
		cursor = NULL;
		if ((r = sd_journal_get_cursor(j, &cursor)) < 0 || strlen(cursor) >= MAX_CURSOR) {
			err = prov_error_set(PROV_EINPUT, "the journal gives no usable cursor: %s",
					     r < 0 ? strerror(-r) : "too long");
			goto cleanup;
		}
		read_entry(j, &e);
		prov_store_format_time(when, (int64_t)(e.usec / 1000000));
		prov_buf_reset(&msg);
		if (o->since && e.usec && strcmp(when, o->since) < 0) {
			c->skipped++;
		} else if (prov_journal_entry_check(&e) < 0) {
			c->bad++;
			prov_buf_printf(&msg, "bad systemd-coredump entry %s: %s\n", cursor,
					prov_error_last());
		} else {
			err = import_entry(o, j, &e, cursor, &msg);
			if (err < 0)
				goto cleanup;	/* the cursor stays before this entry */
			*(err == 1 ? &c->dup : &c->stored) += 1;
		}
		if (msg.len && o->say)
			o->say(o->arg, msg.buf);
		prov_journal_entry_release(&e);
		if ((err = cursor_write(cpath, cursor)) < 0)
			goto cleanup;
	}
	err = 0;
	if (r < 0)
		err = prov_error_set(PROV_EINPUT, "cannot read the journal: %s", strerror(-r));
cleanup:
	prov_journal_entry_release(&e);
	if (j)
		sd_journal_close(j);
	free(cursor);
	free(cpath);
	prov_buf_release(&saved);
	prov_buf_release(&msg);
	return err;
}
