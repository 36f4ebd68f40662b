/* provenance cache stats|clear|prune: show, clear or prune the cache of indexes, patch-ids, mirrors, images. */
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "cachedir.h"
#include "cmd.h"
#include "config.h"
#include "error.h"
#include "input.h"
#include "util.h"
#include "image.h"
#include "cache.h"
#include "banned.h"

/* The command table's entry: name, usage line and description (main.c lists it). */
const struct cmd cmd_cache_def = {
	"cache", cmd_cache, 0,
	"cache stats|clear|prune",
	"show, clear or prune the cache of indexes, patch-ids, mirrors and images"
};

static const char cache_help[] =
	"stats   the cache's path and size, its package indexes and entries, and the\n"
	"        size of the source mirrors (<cache>/mirrors) and of the unpacked\n"
	"        images (<cache>/images)\n"
	"clear   remove the database, the mirrors and the uncompressed debug files\n"
	"        (only inside the cache directory;\n"
	"        a cache directory of / or $HOME, symlinks resolved, is refused, and so\n"
	"        is one without the CACHEDIR.TAG a run writes that holds other files)\n"
	"prune   evict unpacked images (--sysroot IMAGE), least recently used first,\n"
	"        until the whole cache is within -c cache.maxSize=SIZE (N, NK, NM, NG,\n"
	"        NT); an image a running provenance uses is kept. Runs that unpack an\n"
	"        image do the same by themselves when cache.maxSize is set\n";

/* Bytes and files under dirfd/name, not following symlinks; capped depth. */
static void du(uint64_t *bytes, uint64_t *files, int dfd, const char *name, int depth)
{
	struct stat st;
	int fd;
	DIR *d;
	struct dirent *e;

	if (depth > 64 || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		*bytes += (uint64_t)st.st_blocks * 512;
		(*files)++;
		return;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			du(bytes, files, dirfd(d), e->d_name, depth + 1);
	closedir(d);
}

static int count_mirrors(const char *dir)
{
	char *m = prov_cachedir_path(dir, PROV_CACHEDIR_MIRRORS);
	DIR *d = opendir(m);
	struct dirent *e;
	int n = 0;

	free(m);
	if (!d)
		return 0;
	/* <name>.git only: not the <name>.git.lock files, not a <name>.git.tmp being built */
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && prov_ends_with(e->d_name, ".git"))
			n++;
	closedir(d);
	return n;
}

static int cache_stats(struct prov_ctx *g)
{
	struct prov_cache *c = NULL;
	struct prov_cache_stats s;
	uint64_t mbytes = 0, mfiles = 0, ibytes = 0;
	unsigned nimages = 0;
	char *db = prov_cachedir_path(g->cache_dir, PROV_CACHEDIR_DB);
	struct stat st;
	int err, dfd, have = lstat(db, &st) == 0;

	/* a report: never make a directory or a database where --cache points */
	memset(&s, 0, sizeof(s));
	if (have && (err = prov_cache_open(&c, g->cache_dir)) < 0) {
		free(db);
		return prov_cmd_fail(err);
	}
	if (have && (err = prov_cache_stats(&s, c)) < 0) {
		free(db);
		prov_cache_free(c);
		return prov_cmd_fail(err);
	}
	dfd = open(g->cache_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		du(&mbytes, &mfiles, dfd, prov_cachedir_name(PROV_CACHEDIR_MIRRORS), 0);
		close(dfd);
	}
	{
		struct prov_buf o = PROV_BUF_INIT;

		prov_buf_printf(&o, "cache:        %s\n", g->cache_dir);
		prov_buf_printf(&o, "database:     %s (%llu bytes%s)\n", db, (unsigned long long)s.db_size,
		       have ? "" : ", none yet");
		prov_buf_printf(&o, "indexes:      %llu (%llu packages, %llu files)\n", (unsigned long long)s.nindexes,
		       (unsigned long long)s.npackages, (unsigned long long)s.nfiles);
		prov_buf_printf(&o, "mirrors:      %d (%llu bytes in %llu files)\n", count_mirrors(g->cache_dir),
		       (unsigned long long)mbytes, (unsigned long long)mfiles);
		prov_image_cache_size(&ibytes, &nimages, g->cache_dir);
		prov_buf_printf(&o, "images:       %u (%llu bytes)\n", nimages, (unsigned long long)ibytes);
		prov_cmd_write(o.buf, o.len);
		prov_buf_release(&o);
	}
	prov_cache_free(c);
	free(db);
	return 0;
}

static int cache_prune(struct prov_ctx *g)
{
	const char *v = prov_config_get(g->config, "cache.maxsize");
	struct prov_image_prune p;
	struct prov_buf o = PROV_BUF_INIT;
	uint64_t max;
	int err;

	if (!v)
		return prov_cmd_usage_error(&cmd_cache_def, "prune needs a budget: -c cache.maxSize=SIZE "
					    "(or cache.maxSize in the config file)");
	if ((err = prov_image_parse_size(&max, v)) < 0 || (err = prov_image_cache_prune(&p, g->cache_dir, max)) < 0)
		return prov_cmd_fail(err);
	prov_buf_printf(&o, "pruned %u image%s (%llu bytes); the cache is %llu bytes, cache.maxSize %llu%s\n",
			p.evicted, p.evicted == 1 ? "" : "s", (unsigned long long)p.freed,
			(unsigned long long)p.total, (unsigned long long)max,
			p.total <= max ? "" : p.busy ? " (still over: images in use were kept, only images are evicted)"
			: " (still over: only images are evicted)");
	prov_cmd_write(o.buf, o.len);
	prov_buf_release(&o);
	return 0;
}

int cmd_cache(int argc, char **argv, struct prov_ctx *g)
{
	const char *sub;
	int err;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return prov_cmd_help(&cmd_cache_def, cache_help);
	if (argc < 2)
		return prov_cmd_usage_error(&cmd_cache_def, "expected 'stats', 'clear' or 'prune'");
	if (argc > 2)
		return prov_cmd_usage_error(&cmd_cache_def, "unexpected argument '%s'", argv[2]);
	sub = argv[1];
	if (!g->cache_dir)
		return prov_cmd_fail(prov_error_set(PROV_ERROR, "no cache directory"));
	if (strcmp(sub, "stats") == 0)
		return cache_stats(g);
	if (strcmp(sub, "prune") == 0)
		return cache_prune(g);
	if (strcmp(sub, "clear") == 0) {
		char *tmp = prov_cachedir_path(g->cache_dir, PROV_CACHEDIR_TMP);

		/* temporaries of runs that were killed; a live run's stay */
		prov_input_remove_stale(tmp);
		free(tmp);
		if ((err = prov_cache_clear_dir(g->cache_dir)) < 0)
			return prov_cmd_fail(err);
		{
			struct prov_buf o = PROV_BUF_INIT;

			prov_buf_printf(&o, "cleared %s\n", g->cache_dir);
			prov_cmd_write(o.buf, o.len);
			prov_buf_release(&o);
		}
		return 0;
	}
	return prov_cmd_usage_error(&cmd_cache_def, "unknown subcommand '%s' (expected stats, clear or prune)", sub);
}
