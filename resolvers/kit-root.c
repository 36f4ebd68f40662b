/* The resolvers' kit: files under the sysroot (read, list, resolve symlinks, identity) and the nearest-ancestor memo. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolve.h"
#include "kit-root.h"
#include "error.h"
#include "util.h"
#include "banned.h"

static const char *const libdirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
	"/usr/local/lib", "/lib/x86_64-linux-gnu", "/lib64", "/lib", NULL
};

char *prov_root_find_lib(const char *root, const char *name)
{
	size_t i;

	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return NULL;
	for (i = 0; libdirs[i]; i++) {
		char *p = prov_xasprintf("%s/%s", libdirs[i], name);
		int fd = prov_root_open(root, p, O_RDONLY | O_NONBLOCK);
		struct stat st;

		/* a file: /usr/lib/python3 is a directory, not the module "python3" */
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
			close(fd);
			return p;
		}
		if (fd >= 0)
			close(fd);
		free(p);
	}
	return NULL;
}

/* ---- files under the root ---- */

int prov_root_read(struct prov_buf *out, const char *root, const char *path, size_t cap)
{
	int fd, err;
	struct stat st;

	fd = prov_root_open(root, path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return PROV_ENOTFOUND;
		return prov_error_set(PROV_EINPUT, "cannot open '%s': %s", path, prov_strerror(errno));
	}
	/* never block on a FIFO or read a device a hostile root planted */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return prov_error_set(PROV_EINPUT, "'%s' is not a regular file", path);
	}
	err = prov_read_fd(out, fd, path, cap);
	close(fd);
	return err;
}

static int is_host_root(const char *root)
{
	return !root || !*root || strcmp(root, "/") == 0;
}

char *prov_root_key(const char *root)
{
	char *abs, *norm;
	char cwd[PATH_MAX];

	if (is_host_root(root))
		return prov_xstrdup("/");
	if (root[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		abs = prov_xstrdup(root);
	else
		abs = prov_xasprintf("%s/%s", cwd, root);
	norm = prov_path_normalize(abs);
	free(abs);
	return norm;
}

/*
 * The kernel's answer when the whole path exists: one openat2 (RESOLVE_IN_ROOT
 * resolves symlinks as chroot would) and the name of what it opened. A
 * readlink per component through a path 400 levels deep was quadratic in
 * the depth. NULL when it cannot tell (missing components: the walk below).
 */
static char *kernel_realpath(const char *root, const char *path)
{
	char proc[64], host[PATH_MAX], *rroot = NULL, *result = NULL;
	ssize_t n;
	size_t rl;
	int fd = prov_root_open(root, path, O_PATH);

	if (fd < 0)
		return NULL;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, host, sizeof(host) - 1);
	close(fd);
	if (n <= 0 || n >= (ssize_t)sizeof(host) - 1)
		return NULL;
	host[n] = 0;
	if (host[0] != '/')
		return NULL;
	if (!root || !*root || !strcmp(root, "/"))
		return prov_xstrdup(host);
	if (!(rroot = realpath(root, NULL)))
		return NULL;
	rl = strlen(rroot);
	if (rl == 1)
		result = prov_xstrdup(host);
	else if (!strncmp(host, rroot, rl) && (host[rl] == '/' || !host[rl]))
		result = prov_xstrdup(host[rl] ? host + rl : "/");
	free(rroot);
	return result;
}

char *prov_root_realpath(const char *root, const char *path)
{
	struct prov_buf done = PROV_BUF_INIT;	/* resolved prefix, "" = root */
	char *rest, *result;
	char *p;
	int links = 0;

	if ((result = kernel_realpath(root, path)))
		return result;
	if (path[0] == '/' && !strstr(path, "/..") && !strstr(path, "/./")) {
		/*
		 * A missing file: the longest existing prefix (existence is
		 * monotone in the prefix, so a binary search over the slashes)
		 * resolved by the kernel, the missing rest appended as it is.
		 */
		size_t *cut = NULL, ncut = 0, alloc = 0, lo = 0, hi, i;
		char *best = NULL;

		for (i = 1; path[i]; i++)
			if (path[i] == '/') {
				PROV_ALLOC_GROW(cut, ncut + 1, alloc);
				cut[ncut++] = i;
			}
		hi = ncut;	/* prefixes path[0..cut[k]) for k < ncut */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			char *pre = prov_xstrndup(path, cut[mid]), *r = kernel_realpath(root, pre);

			free(pre);
			if (r) {
				free(best);
				best = r;
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		if (best || lo == 0) {
			result = lo == 0 ? prov_xstrdup(path)
				 : prov_xasprintf("%s%s", strcmp(best, "/") ? best : "", path + cut[lo - 1]);
			free(best);
			free(cut);
			return result;
		}
		free(cut);
	}
	rest = prov_xasprintf("%s", path);

	p = rest;
	while (*p) {
		char *comp, *host, *end;
		char target[PATH_MAX];
		ssize_t n;
		size_t mark;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		end = strchr(p, '/');
		if (end) {
			*end = 0;
			p = end + 1;
		} else {
			p += strlen(p);
		}
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			char *slash = strrchr(done.buf, '/');

			prov_buf_setlen(&done, slash ? (size_t)(slash - done.buf) : 0);
			continue;
		}
		mark = done.len;
		prov_buf_putc(&done, '/');
		prov_buf_puts(&done, comp);
		if (links >= 40)
			continue;
		host = prov_root_join(root, done.buf);
		n = readlink(host, target, sizeof(target) - 1);
		free(host);
		if (n <= 0)
			continue;
		target[n] = 0;
		links++;
		{
			/* the rest becomes target + "/" + remaining */
			char *nrest = prov_xasprintf("%s/%s", target, p);

			free(rest);
			rest = nrest;
			p = rest;
		}
		if (target[0] == '/')
			prov_buf_setlen(&done, 0);
		else
			prov_buf_setlen(&done, mark);
	}
	if (!done.len)
		prov_buf_putc(&done, '/');
	result = prov_buf_detach(&done);
	free(rest);
	return result;
}

/*
 * FNV-1a of a regular file's first and last ROOT_ID_BLOCK bytes (all of a
 * smaller file): a file rewritten with the same size, mtime and inode (cp -a
 * from an image, a re-extraction) is still told apart. 0 when not readable.
 */
#define ROOT_ID_BLOCK 65536
static uint64_t ends_hash(int pfd, off_t size)
{
	char *buf = prov_xmalloc(ROOT_ID_BLOCK);
	uint64_t h = PROV_HASH_INIT;
	off_t at[2] = { 0, size > ROOT_ID_BLOCK ? size - ROOT_ID_BLOCK : -1 };
	int fd = prov_open_regular_at(pfd, O_RDONLY);
	ssize_t n;
	int i;

	if (fd < 0) {
		free(buf);
		return 0;
	}
	for (i = 0; i < 2 && at[i] >= 0; i++) {
		if ((n = pread(fd, buf, ROOT_ID_BLOCK, at[i])) < 0) {
			h = 0;
			break;
		}
		h = prov_hash_more(h, buf, (size_t)n);
	}
	close(fd);
	free(buf);
	return h;
}

char *prov_root_identity(const char *root, const char *path)
{
	struct stat st;
	/* O_PATH: files and directories alike; only a regular file is then read */
	int fd = prov_root_open(root, path, O_PATH);
	uint64_t h = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	if (S_ISREG(st.st_mode))
		h = ends_hash(fd, st.st_size);
	close(fd);
	return prov_xasprintf("%lld:%lld:%llu:%lld:%016llx", (long long)st.st_size,
			      (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
			      (unsigned long long)st.st_ino,
			      (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec,
			      (unsigned long long)h);
}

static const char *const merged_dirs[] = { "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/", NULL };

char *prov_pkgpath_canon(const char *path, int merged)
{
	char *n = prov_path_normalize(path);
	size_t i;

	if (!merged)
		return n;
	for (i = 0; merged_dirs[i]; i++) {
		if (prov_starts_with(n, merged_dirs[i])) {
			char *u = prov_xasprintf("/usr%s", n);

			free(n);
			return u;
		}
	}
	return n;
}

int prov_root_merged_usr(const char *root)
{
	char *lib = prov_root_realpath(root, "/lib");
	int merged = strcmp(lib, "/usr/lib") == 0;

	free(lib);
	return merged;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int prov_root_listdir(char ***out, size_t *nout, const char *root, const char *path)
{
	int fd = prov_root_open(root, path, O_RDONLY | O_DIRECTORY);
	DIR *d;
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, alloc = 0;

	if (fd < 0)
		return PROV_ENOTFOUND;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return PROV_ENOTFOUND;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n >= 100000) {
			prov_warn("'%s': more than 100000 entries; the rest ignored", path);
			break;
		}
		PROV_ALLOC_GROW(v, n + 1, alloc);
		v[n++] = prov_xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_name);
	*out = v;
	*nout = n;
	return 0;
}

void prov_strv_free(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int prov_root_isdir(const char *root, const char *path)
{
	int fd = prov_root_open(root, path, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}


/* ---- per-directory memo of nearest-ancestor answers ---- */

struct dirmemo_entry {
	char *dir;
	char *answer;	/* NULL: no such ancestor */
};

struct prov_dirmemo {
	struct dirmemo_entry *slots;
	size_t nslots, n, bytes;
};

static struct dirmemo_entry *dirmemo_find(const struct prov_dirmemo *m, const char *dir)
{
	size_t s;

	if (!m->nslots)
		return NULL;
	for (s = prov_hash_str(dir) & (m->nslots - 1); m->slots[s].dir; s = (s + 1) & (m->nslots - 1))
		if (!strcmp(m->slots[s].dir, dir))
			return &m->slots[s];
	return NULL;
}

static void dirmemo_put(struct prov_dirmemo *m, const char *dir, const char *answer)
{
	size_t s, i;

	if (m->bytes + strlen(dir) > PROV_DIRMEMO_MAX_BYTES || dirmemo_find(m, dir))
		return;
	if ((m->n + 1) * 2 > m->nslots) {
		size_t n = m->nslots ? m->nslots * 2 : 256;
		struct dirmemo_entry *old = m->slots, *e;

		m->slots = prov_xcalloc(n, sizeof(*m->slots));
		for (i = 0; i < m->nslots; i++) {
			if (!old[i].dir)
				continue;
			for (s = prov_hash_str(old[i].dir) & (n - 1); m->slots[s].dir; s = (s + 1) & (n - 1))
				;
			e = &m->slots[s];
			*e = old[i];
		}
		free(old);
		m->nslots = n;
	}
	for (s = prov_hash_str(dir) & (m->nslots - 1); m->slots[s].dir; s = (s + 1) & (m->nslots - 1))
		;
	m->slots[s].dir = prov_xstrdup(dir);
	m->slots[s].answer = answer ? prov_xstrdup(answer) : NULL;
	m->n++;
	m->bytes += strlen(dir) + 1;
}

void prov_dirmemo_free(struct prov_dirmemo *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nslots; i++) {
		free(m->slots[i].dir);
		free(m->slots[i].answer);
	}
	free(m->slots);
	free(m);
}

char *prov_nearest_ancestor(struct prov_dirmemo **memo, const char *root, const char *path,
			    int (*test)(const char *root, const char *dir, void *data), void *data)
{
	char *anc = prov_xstrdup(path), *slash, *answer = NULL;
	size_t *marks = NULL, nmarks = 0, alloc = 0, i;
	int depth = 0, known = 0;

	if (!*memo)
		*memo = prov_xcalloc(1, sizeof(**memo));
	while ((slash = strrchr(anc, '/')) && slash != anc && depth++ < 64) {
		const struct dirmemo_entry *e;

		*slash = 0;
		if ((e = dirmemo_find(*memo, anc))) {
			answer = e->answer ? prov_xstrdup(e->answer) : NULL;
			known = 1;
			break;
		}
		PROV_ALLOC_GROW(marks, nmarks + 1, alloc);
		marks[nmarks++] = (size_t)(slash - anc);
		if (test(root, anc, data)) {
			answer = prov_xstrdup(anc);
			break;
		}
	}
	(void)known;
	/* every directory walked has the same answer */
	for (i = 0; i < nmarks; i++) {
		char *d = prov_xstrndup(path, marks[i]);

		dirmemo_put(*memo, d, answer);
		free(d);
	}
	free(marks);
	free(anc);
	return answer;
}

void prov_root_each_program(const char *root, size_t max_files, prov_root_program_fn fn, void *arg)
{
	static const char *const dirs[] = { "/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/usr/sbin",
					    "/bin", "/sbin", "/opt/bin", "/app", NULL };
	size_t d, j, budget = max_files;

	for (d = 0; dirs[d] && budget; d++) {
		char **names = NULL;
		size_t n = 0;

		if (prov_root_listdir(&names, &n, root, dirs[d]) < 0) {
			prov_error_clear();
			continue;
		}
		for (j = 0; j < n && budget; j++, budget--) {
			char *p = prov_xasprintf("%s/%s", dirs[d], names[j]);

			fn(arg, root, p);
			free(p);
		}
		prov_strv_free(names, n);
	}
}
