/* The memo (cache.memo): answers read from cache.sqlite before, so a warm run opens no SQLite. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "cache-int.h"
#include "cachedir.h"
#include "buf.h"
#include "error.h"
#include "util.h"
#include "banned.h"

#define MEMO_MAGIC "provenance-memo 1"
#define MEMO_MAX_FILE ((size_t)1 << 20)
#define MEMO_MAX_RECORDS 4096
#define MEMO_MAX_LINE 8192

/* ---- the memo (cache.memo) ---- */

/* "size:mtime_ns:inode" of cache.sqlite, a regular file; NULL when it is not one. */
static char *db_stamp(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	return prov_xasprintf("%lld:%lld:%llu", (long long)st.st_size,
			      (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
			      (unsigned long long)st.st_ino);
}

static int memo_key_ok(const char *key)
{
	return *key && !strpbrk(key, "\t\n") && strlen(key) < MEMO_MAX_LINE / 2;
}

static int memo_value_ok(const char *value)
{
	return !strchr(value, '\n') && strlen(value) < MEMO_MAX_LINE / 2;
}


/* the slot holding key, or the empty slot it would take (nmemo_slots > 0) */
static size_t *memo_slot(const struct prov_cache *c, const char *key)
{
	size_t s = (size_t)prov_hash_str(key) & (c->nmemo_slots - 1);

	while (c->memo_slots[s] && strcmp(c->memo[c->memo_slots[s] - 1].key, key))
		s = (s + 1) & (c->nmemo_slots - 1);
	return &c->memo_slots[s];
}

static const struct memo_rec *memo_find(const struct prov_cache *c, const char *key)
{
	size_t *slot;

	if (!c->nmemo_slots)
		return NULL;
	slot = memo_slot(c, key);
	return *slot ? &c->memo[*slot - 1] : NULL;
}

/* A record (the key not there yet); the hash grows to keep it at most half full. */
static void memo_add(struct prov_cache *c, const char *key, size_t klen, const char *value,
		     size_t vlen)
{
	struct memo_rec *r;
	size_t i;

	PROV_ALLOC_GROW(c->memo, c->nmemo + 1, c->memo_alloc);
	r = &c->memo[c->nmemo++];
	r->key = prov_xstrndup(key, klen);
	r->value = prov_xstrndup(value, vlen);
	if (c->nmemo * 2 > c->nmemo_slots) {
		free(c->memo_slots);
		c->nmemo_slots = c->nmemo_slots ? c->nmemo_slots * 2 : 64;
		c->memo_slots = prov_xcalloc(c->nmemo_slots, sizeof(*c->memo_slots));
		for (i = 0; i < c->nmemo; i++)
			*memo_slot(c, c->memo[i].key) = i + 1;
		return;
	}
	*memo_slot(c, r->key) = c->nmemo;
}

/*
 * Read cache.memo: its first line names the cache.sqlite it was written
 * beside; for another file (rebuilt, set aside, changed by a writer since)
 * every answer is dropped. A line that is not KEY<TAB>VALUE ends the read.
 */
static void memo_load(struct prov_cache *c)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *path = prov_cachedir_path(c->dir, PROV_CACHEDIR_MEMO), *stamp = NULL, *head = NULL;
	const char *pos, *end, *nl;
	struct stat st;
	int fd;

	c->memo_loaded = 1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		goto cleanup;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    prov_read_fd(&b, fd, path, MEMO_MAX_FILE) < 0 || !(stamp = db_stamp(c->path))) {
		prov_error_clear();	/* an unreadable memo is no error: SQLite answers */
		close(fd);
		goto cleanup;
	}
	close(fd);
	head = prov_xasprintf(MEMO_MAGIC " %s\n", stamp);
	if (b.len < strlen(head) || memcmp(b.buf, head, strlen(head)) != 0)
		goto cleanup;
	pos = b.buf + strlen(head);
	end = b.buf + b.len;
	while (pos < end && c->nmemo < MEMO_MAX_RECORDS && (nl = memchr(pos, '\n', (size_t)(end - pos)))) {
		const char *tab = memchr(pos, '\t', (size_t)(nl - pos));

		char *key;

		if (!tab || tab == pos || memchr(pos, 0, (size_t)(nl - pos)))
			break;
		key = prov_xstrndup(pos, (size_t)(tab - pos));
		if (!memo_find(c, key))	/* a repeated key: the first stands */
			memo_add(c, pos, (size_t)(tab - pos), tab + 1, (size_t)(nl - tab - 1));
		free(key);
		pos = nl + 1;
	}
cleanup:
	prov_buf_release(&b);
	free(head);
	free(stamp);
	free(path);
}

int prov_cache_memo_get(char **out, struct prov_cache *c, const char *key)
{
	const struct memo_rec *r;

	if (!c->memo_loaded)
		memo_load(c);
	if (!(r = memo_find(c, key)))
		return PROV_ENOTFOUND;
	*out = prov_xstrdup(r->value);
	return 0;
}

void prov_cache_memo_put(struct prov_cache *c, const char *key, const char *value)
{
	if (!memo_key_ok(key) || !memo_value_ok(value))
		return;
	if (!c->memo_loaded)
		memo_load(c);
	if (memo_find(c, key))
		return;
	memo_add(c, key, strlen(key), value, strlen(value));
	c->nmemo_new++;
}

/*
 * After the database is closed (its WAL checkpointed into the file when this
 * run was the last one on it): the memo again, stamped with the file as it
 * is now, the newest answers kept. A temporary renamed over: a reader sees
 * the old memo or the new one.
 */
void cache_memo_save(struct prov_cache *c)
{
	struct prov_buf b = PROV_BUF_INIT;
	char *path = NULL, *tmp = NULL, *stamp = NULL;
	size_t i, first, size;
	int fd, ok;

	if (!c->nmemo_new || !(stamp = db_stamp(c->path)))
		goto cleanup;
	path = prov_cachedir_path(c->dir, PROV_CACHEDIR_MEMO);
	tmp = prov_xasprintf("%s.%ld", path, (long)getpid());
	prov_buf_printf(&b, MEMO_MAGIC " %s\n", stamp);
	/* the newest answers that fit the limits the reader applies */
	for (first = c->nmemo, size = b.len; first > 0 && c->nmemo - first < MEMO_MAX_RECORDS; first--) {
		size += strlen(c->memo[first - 1].key) + strlen(c->memo[first - 1].value) + 2;
		if (size > MEMO_MAX_FILE)
			break;
	}
	for (i = first; i < c->nmemo; i++)
		prov_buf_printf(&b, "%s\t%s\n", c->memo[i].key, c->memo[i].value);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	ok = fd >= 0 && write(fd, b.buf, b.len) == (ssize_t)b.len;
	if (fd >= 0 && close(fd) < 0)
		ok = 0;
	if (fd >= 0 && (!ok || rename(tmp, path) < 0))
		unlink(tmp);
cleanup:
	prov_buf_release(&b);
	free(stamp);
	free(tmp);
	free(path);
}

void cache_memo_release(struct prov_cache *c)
{
	size_t i;

	for (i = 0; i < c->nmemo; i++) {
		free(c->memo[i].key);
		free(c->memo[i].value);
	}
	free(c->memo);
	free(c->memo_slots);
}
