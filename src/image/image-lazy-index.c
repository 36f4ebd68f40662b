/* An image's tree read lazily, as it is made: which files are written up front, the placeholders of the others and their records in the index. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "alloc.h"
#include "buf.h"
#include "error.h"
#include "util.h"
#include "image.h"
#include "banned.h"

/* Paths (relative to the root, as they lie on disk) whose files are always
 * written up front: what resolvers read by name and libraries open by path
 * (package databases, version files, .git metadata, programs env scans). */
static const char *const eager_globs[] = {
	"var/lib/dpkg/*", "var/lib/rpm/*", "usr/lib/sysimage/rpm/*", "*.dist-info/*", "*.egg-info/*",
	"*conda-meta/*", "opt/rocm*/.info/*", "*/.git/*", ".git/*", "usr/share/doc/*/copyright",
	"etc/*", "usr/lib/os-release", "usr/bin/*", "usr/sbin/*", "bin/*", "sbin/*", "usr/local/bin/*",
	"usr/local/sbin/*", "opt/bin/*", "app/*", "*/version.txt", "*/version", "*/.version", NULL,
};

int prov_image_lazy_eager(const char *rel, unsigned long long size)
{
	size_t i;

	if (size <= PROV_IMAGE_LAZY_MIN)
		return 1;
	for (i = 0; eager_globs[i]; i++)
		if (fnmatch(eager_globs[i], rel, 0) == 0)
			return 1;
	return 0;
}

/* The folders env scans for binaries that carry their inventory (resolvers/kit-root.c, prov_root_each_program), relative to the root. */
const char *const prov_image_lazy_program_dirs[] = { "usr/local/bin", "usr/local/sbin", "usr/bin", "usr/sbin",
					    "bin", "sbin", "opt/bin", "app", NULL };
#define WANTED_MAX 16384

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* `target` of the link `dir`/... made lexically relative to the root ("." and ".." folded), or NULL. */
static char *link_dest(const char *dir, const char *target)
{
	struct prov_buf b = PROV_BUF_INIT;
	const char *p = target;

	if (*target != '/')
		prov_buf_printf(&b, "%s/", dir);
	while (*p) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if ((n == 2 && !strncmp(p, "..", 2))) {
			char *slash;

			if (b.len == 0)
				goto out;	/* above the root: not followed here */
			prov_buf_setlen(&b, b.len - 1);
			slash = strrchr(b.buf, '/');
			prov_buf_setlen(&b, slash ? (size_t)(slash - b.buf) + 1 : 0);
		} else if (n > 0 && !(n == 1 && *p == '.')) {
			prov_buf_add(&b, p, n);
			prov_buf_putc(&b, '/');
		}
		p += n + (end ? 1 : 0);
	}
	if (b.len > 0) {
		prov_buf_setlen(&b, b.len - 1);
		return prov_buf_detach(&b);
	}
out:
	prov_buf_release(&b);
	return NULL;
}

void prov_image_lazy_link(struct prov_image_lazy *lz, const char *dirrel, const char *target)
{
	size_t len = strlen(dirrel), i;
	char *dest;

	while (len > 0 && dirrel[len - 1] == '/')
		len--;
	for (i = 0; prov_image_lazy_program_dirs[i]; i++)
		if (strlen(prov_image_lazy_program_dirs[i]) == len && !strncmp(prov_image_lazy_program_dirs[i], dirrel, len))
			break;
	if (!prov_image_lazy_program_dirs[i] || lz->nwanted >= WANTED_MAX)
		return;
	dest = prov_xasprintf("%.*s", (int)len, dirrel);
	{
		char *d = link_dest(dest, target);

		free(dest);
		if (!(dest = d))
			return;
	}
	if (lz->nwanted > 0 && bsearch(&dest, lz->wanted, lz->nwanted, sizeof(char *), cmp_str)) {
		free(dest);
		return;
	}
	PROV_ALLOC_GROW(lz->wanted, lz->nwanted + 1, lz->wanted_cap);
	for (i = lz->nwanted; i > 0 && strcmp(lz->wanted[i - 1], dest) > 0; i--)
		lz->wanted[i] = lz->wanted[i - 1];
	lz->wanted[i] = dest;
	lz->nwanted++;
}

int prov_image_lazy_wanted(const struct prov_image_lazy *lz, const char *rel)
{
	return lz->nwanted > 0 && bsearch(&rel, lz->wanted, lz->nwanted, sizeof(char *), cmp_str) != NULL;
}

void prov_image_lazy_free(struct prov_image_lazy *lz)
{
	size_t i;

	for (i = 0; i < lz->nwanted; i++)
		free(lz->wanted[i]);
	free(lz->wanted);
	lz->wanted = NULL;
	lz->nwanted = lz->wanted_cap = 0;
}

int prov_image_lazy_rel(struct prov_buf *out, int dfd, const char *base, const char *rootpath)
{
	char proc[64], host[PATH_MAX + 1];
	size_t rl = strlen(rootpath);
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dfd);
	if ((n = readlink(proc, host, sizeof(host) - 1)) < 0)
		return prov_error_set(PROV_ERROR, "cannot name a folder of the image: %s", prov_strerror(errno));
	host[n] = 0;
	if (strncmp(host, rootpath, rl) || (host[rl] && host[rl] != '/'))
		return prov_error_set(PROV_ERROR, "a folder of the image lies outside its root");
	prov_buf_setlen(out, 0);
	if (host[rl] && host[rl + 1])
		prov_buf_printf(out, "%s/", host + rl + 1);
	if (base)
		prov_buf_puts(out, base);
	return 0;
}

int prov_image_lazy_record(struct prov_image_lazy *lz, unsigned layer, const char *rel, uint64_t ordinal,
			   uint64_t size, unsigned mode)
{
	char *line = prov_xasprintf("%u %llu %llu %o %s", layer, (unsigned long long)ordinal,
				    (unsigned long long)size, mode & 07777, rel);
	size_t len = strlen(line) + 1;
	int err = 0;

	if (fwrite(line, 1, len, lz->index) != len)
		err = prov_error_set(PROV_ERROR, "cannot write the image's index: %s", prov_strerror(errno));
	free(line);
	lz->count++;
	return err;
}

/* The placeholder: an empty file with mode 0000 (prov_root_set_fill). */
int prov_image_lazy_placeholder(int dfd, const char *base)
{
	int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0);

	if (fd < 0)
		return prov_error_set(PROV_ERROR, "cannot write '%s': %s", base, prov_strerror(errno));
	fchmod(fd, 0);
	close(fd);
	return 0;
}

/* ---- filling a placeholder in ---- */
