/* The names of the cache directory's parts (cachedir.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "buf.h"
#include "cachedir.h"
#include "banned.h"

static const char *const names[] = {
	[PROV_CACHEDIR_DB] = "cache.sqlite",
	[PROV_CACHEDIR_STORE] = "store.sqlite",
	[PROV_CACHEDIR_MIRRORS] = "mirrors",
	[PROV_CACHEDIR_IMPORTS] = "imports",
	[PROV_CACHEDIR_DOWNLOADS] = "downloads",
	[PROV_CACHEDIR_DEBUGINFOD] = "debuginfod",
	[PROV_CACHEDIR_TMP] = "tmp",
	[PROV_CACHEDIR_HOSTS] = "hosts-down",
	[PROV_CACHEDIR_DEBUG_PLAIN] = "debug-plain",
	[PROV_CACHEDIR_MEMO] = "cache.memo",
	[PROV_CACHEDIR_IMAGES] = "images",
};

const char *prov_cachedir_name(enum prov_cachedir_part part)
{
	return names[part];
}

char *prov_cachedir_path(const char *cache_dir, enum prov_cachedir_part part)
{
	return prov_xasprintf("%s/%s", cache_dir, names[part]);
}

char *prov_cachedir_pathf(const char *cache_dir, enum prov_cachedir_part part,
			  const char *fmt, ...)
{
	struct prov_buf b = PROV_BUF_INIT;
	va_list ap;

	prov_buf_printf(&b, "%s/%s/", cache_dir, names[part]);
	va_start(ap, fmt);
	prov_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return prov_buf_detach(&b);
}

/*
 * The marker: a CACHEDIR.TAG (https://bford.info/cachedir/, so backup tools
 * skip the cache too) written when provenance makes a cache, and what
 * `cache clear` requires before it removes anything.
 */
#define TAG_NAME "CACHEDIR.TAG"
#define TAG_SIGNATURE "Signature: 8a477f597d28d172789f06886806bc55"
static const char tag_text[] = TAG_SIGNATURE "\n"
	"# This file is a cache directory tag created by provenance.\n"
	"# For information about cache directory tags, see https://bford.info/cachedir/\n";

/* a name of the exact cache layout: a part, a database's companion, a set-aside database */
static int layout_name(const char *n)
{
	static const char *const extra[] = { "-wal", "-shm", "-journal" };
	size_t i, j, len;

	if (strcmp(n, TAG_NAME) == 0)
		return 1;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		len = strlen(names[i]);
		if (strncmp(n, names[i], len) != 0)
			continue;
		if (!n[len])
			return 1;
		if (i != PROV_CACHEDIR_DB && i != PROV_CACHEDIR_STORE)
			continue;
		for (j = 0; j < sizeof(extra) / sizeof(extra[0]); j++)
			if (strcmp(n + len, extra[j]) == 0)
				return 1;
		if (strncmp(n + len, ".corrupt-", 9) == 0)
			return 1;
	}
	return 0;
}

/* 1 when the directory holds nothing but names of the cache layout */
static int only_layout(int dfd)
{
	int fd = dup(dfd), ok = 1;
	DIR *d;
	struct dirent *e;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !layout_name(e->d_name)) {
			ok = 0;
			break;
		}
	closedir(d);
	return ok;
}

static int has_tag(int dfd)
{
	char buf[sizeof(TAG_SIGNATURE) - 1];
	int fd = openat(dfd, TAG_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return 0;
	n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof(buf)) : -1;
	close(fd);
	return n == (ssize_t)sizeof(buf) && memcmp(buf, TAG_SIGNATURE, sizeof(buf)) == 0;
}

void prov_cachedir_mark(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;

	if (dfd < 0)
		return;
	/* never tag a directory that holds anything but a cache (a --cache $HOME by mistake) */
	if (!has_tag(dfd) && only_layout(dfd)) {
		fd = openat(dfd, TAG_NAME, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			if (write(fd, tag_text, sizeof(tag_text) - 1) != (ssize_t)sizeof(tag_text) - 1)
				(void)unlinkat(dfd, TAG_NAME, 0);
			close(fd);
		}
	}
	close(dfd);
}

int prov_cachedir_is_ours(int dfd)
{
	return has_tag(dfd) || only_layout(dfd);
}
