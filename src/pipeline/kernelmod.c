/*
 * A kernel fault line (src/text/kernel.c) names its module by file name
 * only and carries no build ID. The file is looked up by that name under the
 * directories of the root's /etc/ld.so.conf (its include lines followed,
 * bounded, every file read inside the root), the usual library and program
 * directories and /opt/rocm<version>/lib of the host or of --sysroot (the name as
 * given when it is a path), and the faulting instruction's function
 * and line are read from it (src/core/modsym.h). Nothing proves that file is
 * the one that ran: the frame is marked a guess (frame.location_guess) and
 * the kernel line's note says what was checked (the size of the mapping
 * against the file's executable segment).
 */
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "kernelmod.h"
#include "modsym.h"
#include "util.h"
#include "banned.h"

/* where a program or a shared library is, in the order a loader would look */
static const char *const search_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
	"/lib", "/usr/lib", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
	"/usr/local/lib", "/usr/local/lib64", "/usr/bin", "/bin", "/usr/sbin", "/sbin",
	"/usr/local/bin", NULL,
};

/* bounds on what a root's loader configuration may make us read */
#define LDCONF_MAX_DEPTH 8	/* nested include lines */
#define LDCONF_MAX_FILES 64	/* configuration files read */
#define LDCONF_MAX_DIRS 128	/* directories searched */
#define LDCONF_MAX_SIZE (64 * 1024)	/* bytes of one file */
#define GLOB_MAX_MATCHES 64	/* names one pattern gives */

struct dirlist {
	char **v;
	size_t n, alloc;
	int files;	/* configuration files read so far */
};

static void dirlist_add(struct dirlist *d, const char *dir)
{
	size_t i;

	if (d->n >= LDCONF_MAX_DIRS || dir[0] != '/')
		return;
	for (i = 0; i < d->n; i++)
		if (!strcmp(d->v[i], dir))
			return;
	PROV_ALLOC_GROW(d->v, d->n + 1, d->alloc);
	d->v[d->n++] = prov_xstrdup(dir);
}

static void dirlist_release(struct dirlist *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->v[i]);
	free(d->v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names in directory `dir` (a path inside root) matching `pattern`
 * (fnmatch, no leading dot unless the pattern has one), sorted as glob(3)
 * sorts them; at most GLOB_MAX_MATCHES. The directory is opened inside the
 * root (prov_root_open). Returns how many; *out is freed by the caller.
 */
static size_t glob_in_root(char ***out, const char *root, const char *dir, const char *pattern)
{
	int fd = prov_root_open(root, dir, O_RDONLY | O_DIRECTORY);
	DIR *dh;
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, alloc = 0;

	*out = NULL;
	if (fd < 0)
		return 0;
	if (!(dh = fdopendir(fd))) {
		close(fd);
		return 0;
	}
	while ((e = readdir(dh)) && n < GLOB_MAX_MATCHES) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fnmatch(pattern, e->d_name, FNM_PERIOD) != 0)
			continue;
		PROV_ALLOC_GROW(v, n + 1, alloc);
		v[n++] = prov_xstrdup(e->d_name);
	}
	closedir(dh);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	return n;
}

static void ldconf_read(struct dirlist *d, const char *root, const char *path, int depth);

/* "include PATTERN": relative to the including file's directory; a pattern
 * only in the last component (as in /etc/ld.so.conf.d/NAME.conf with NAME a *) */
static void ldconf_include(struct dirlist *d, const char *root, const char *from,
			   const char *pattern, int depth)
{
	char *full, *slash, **names = NULL;
	size_t i, n;

	if (pattern[0] == '/') {
		full = prov_xstrdup(pattern);
	} else {
		const char *s = strrchr(from, '/');

		full = prov_xasprintf("%.*s/%s", s ? (int)(s - from) : 0, from, pattern);
	}
	slash = strrchr(full, '/');
	if (!strpbrk(slash + 1, "*?[")) {
		ldconf_read(d, root, full, depth + 1);
	} else {
		*slash = '\0';
		n = glob_in_root(&names, root, *full ? full : "/", slash + 1);
		for (i = 0; i < n; i++) {
			char *one = prov_xasprintf("%s/%s", full, names[i]);

			ldconf_read(d, root, one, depth + 1);
			free(one);
			free(names[i]);
		}
		free(names);
	}
	free(full);
}

/*
 * One loader configuration file (ld.so.conf(5)): a directory a line (or
 * several, separated by spaces, tabs, ':' or ','), '#' comments, "include
 * PATTERN" lines, "hwcap" lines ignored. Read inside the root; bounded.
 */
static void ldconf_read(struct dirlist *d, const char *root, const char *path, int depth)
{
	struct prov_buf text = PROV_BUF_INIT;
	char *line, *next;
	int fd;

	if (depth > LDCONF_MAX_DEPTH || d->files >= LDCONF_MAX_FILES)
		return;
	d->files++;
	if ((fd = prov_root_open(root, path, O_RDONLY)) < 0)
		return;
	if (prov_read_fd(&text, fd, path, LDCONF_MAX_SIZE) < 0) {
		prov_error_clear();
		close(fd);
		prov_buf_release(&text);
		return;
	}
	close(fd);
	for (line = text.buf; line && *line; line = next) {
		char *hash, *tok, *save = NULL;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if ((hash = strchr(line, '#')))
			*hash = '\0';
		line += strspn(line, " \t");
		if (!strncmp(line, "include", 7) && (line[7] == ' ' || line[7] == '\t')) {
			line += 8;
			for (tok = strtok_r(line, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save))
				ldconf_include(d, root, path, tok, depth);
			continue;
		}
		if (!strncmp(line, "hwcap", 5) && (line[5] == ' ' || line[5] == '\t'))
			continue;
		for (tok = strtok_r(line, " \t\r:,", &save); tok; tok = strtok_r(NULL, " \t\r:,", &save)) {
			char *eq = strchr(tok, '=');	/* old "DIR=TYPE" */

			if (eq)
				*eq = '\0';
			dirlist_add(d, tok);
		}
	}
	prov_buf_release(&text);
}

/* where the crashed system's loader and shell would look, in that order:
 * its ld.so.conf directories, the usual ones, then /opt/rocm<version>/lib */
static void search_path(struct dirlist *d, const char *root)
{
	const char *const *p;
	char **names = NULL;
	size_t i, n;

	ldconf_read(d, root, "/etc/ld.so.conf", 0);
	for (p = search_dirs; *p; p++)
		dirlist_add(d, *p);
	n = glob_in_root(&names, root, "/opt", "rocm*");
	for (i = 0; i < n; i++) {
		char *lib = prov_xasprintf("/opt/%s/lib", names[i]);
		char *lib64 = prov_xasprintf("/opt/%s/lib64", names[i]);

		dirlist_add(d, lib);
		dirlist_add(d, lib64);
		free(lib);
		free(lib64);
		free(names[i]);
	}
	free(names);
}

/* a regular file at `path` inside root (symlinks resolved inside it) */
static int is_file(const char *root, const char *path, struct stat *sb)
{
	int fd = prov_root_open(root, path, O_RDONLY), ok;

	if (fd < 0)
		return 0;
	ok = fstat(fd, sb) == 0 && S_ISREG(sb->st_mode);
	close(fd);
	return ok;
}

/* the module's path on the crashed system and on this host; NULL when not found */
static char *find_module(const char *sysroot, const char *name, char **host, int *count)
{
	struct dirlist dirs = { NULL, 0, 0, 0 };
	size_t i;
	char *found = NULL;
	struct stat sb, first;

	*host = NULL;
	*count = 0;
	if (strchr(name, '/')) {
		*host = prov_root_join(sysroot, name);
		if (is_file(sysroot, name, &sb)) {
			*count = 1;
			return prov_xstrdup(name);
		}
		free(*host);
		*host = NULL;
		return NULL;
	}
	search_path(&dirs, sysroot);
	for (i = 0; i < dirs.n; i++) {
		char *sys = prov_xasprintf("%s/%s", dirs.v[i], name), *h = prov_root_join(sysroot, sys);

		/* /lib is often /usr/lib (merged /usr): one file, counted once */
		if (is_file(sysroot, sys, &sb) && (!found || sb.st_dev != first.st_dev || sb.st_ino != first.st_ino)) {
			(*count)++;
			if (!found) {
				found = sys;
				*host = h;
				first = sb;
				continue;
			}
		}
		free(sys);
		free(h);
	}
	dirlist_release(&dirs);
	return found;
}

static void frame_from(struct prov_frame *f, struct prov_modsym *ms)
{
	if (ms->function) {
		free(f->function);
		f->function = ms->function;
		ms->function = NULL;
		f->has_offset = ms->has_offset;
		f->offset = ms->offset;
	}
	if (ms->file) {
		free(f->file);
		f->file = ms->file;
		ms->file = NULL;
		f->line = ms->line;
		f->column = ms->column;
	}
	f->location_guess = 1;
}

void prov_kernel_module_lookup(struct prov_crash *c, const char *sysroot)
{
	struct prov_kernel_line *k = c->kernel_line;
	struct prov_thread *t = prov_crash_crashed_thread(c);
	struct prov_frame *f = t && t->nframes ? &t->frames[0] : NULL;
	struct prov_module *m;
	struct prov_modsym ms;
	struct prov_buf note = PROV_BUF_INIT;
	char *sys = NULL, *host = NULL;
	int count = 0;

	if (!k || !k->has_ip)
		return;
	if (!k->module || !k->has_base || !f || !f->module) {
		free(k->note);
		k->note = prov_xstrdup("the kernel named no file for ip (anonymous memory: JIT code, a "
				       "corrupted return address, or the line was cut short): no function or line");
		return;
	}
	m = prov_crash_module_by_path(c, f->module);
	if (m && !m->has_range) {
		m->has_range = 1;
		m->start = k->base;
		m->end = k->base + k->size;
	}
	prov_buf_init(&note, 4096);
	sys = find_module(sysroot, k->module, &host, &count);
	if (!sys) {
		prov_buf_printf(&note, "no file named '%s' under %s's library and program directories "
				"(its /etc/ld.so.conf's, the usual ones, /opt/rocm*/lib): "
				"function and line unknown (give --sysroot with the crashed system's root)",
				k->module, sysroot && strcmp(sysroot, "/") ? sysroot : "this host");
		goto done;
	}
	if (k->ip < k->base && !k->has_file_offset) {
		prov_buf_printf(&note, "ip is below the mapping's start: no offset to look up");
		goto done;
	}
	if (prov_modsym_lookup(&ms, host, sysroot, k->has_file_offset,
			       k->has_file_offset ? k->file_offset : k->ip - k->base, k->size) < 0) {
		prov_buf_printf(&note, "%s", prov_error_last());
		goto done;
	}
	k->file = prov_xstrdup(host);
	k->has_vaddr = 1;
	k->vaddr = ms.vaddr;
	if (!k->has_file_offset) {
		k->has_file_offset = 1;
		k->file_offset = ms.file_offset;
	}
	prov_buf_printf(&note, "looked up in %s at file offset 0x%" PRIx64 " (address 0x%" PRIx64
			"); a kernel line carries no build ID, so the file cannot be checked to be "
			"the one that ran: the location is a guess", host, ms.file_offset, ms.vaddr);
	if (ms.size_matches == 1)
		prov_buf_printf(&note, "; its executable segment has the mapping's size (0x%" PRIx64 ")", k->size);
	else if (ms.size_matches == 0)
		prov_buf_printf(&note, "; none of its executable segments has the mapping's size (0x%" PRIx64
				"): probably another build", k->size);
	if (count > 1)
		prov_buf_printf(&note, "; %d files of that name were found, the first was used", count);
	frame_from(f, &ms);
	/* the path on the crashed system: the resolvers find its package */
	free(f->module);
	f->module = prov_xstrdup(sys);
	if (m) {
		free(m->path);
		m->path = prov_xstrdup(sys);
		if (!m->note)
			m->note = prov_xstrdup("found by the file name a kernel line printed (no build ID to check)");
		/* the file's build ID, marked as read from the file (build_id_from "file"):
		 * the crash gave none, so nothing says it is the build that ran */
		if (!m->build_id && ms.build_id) {
			m->build_id = ms.build_id;
			ms.build_id = NULL;
			m->build_id_from_file = 1;
		}
	}
	prov_modsym_release(&ms);
done:
	free(k->note);
	k->note = prov_buf_detach(&note);
	free(sys);
	free(host);
}
