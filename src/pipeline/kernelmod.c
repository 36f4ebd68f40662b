/*
 * A kernel fault line (src/text/kernel.c) names its module by file name
 * only and carries no build ID. The file is looked up by that name under the
 * usual library and program directories of the host or of --sysroot (the
 * name as given when it is a path), and the faulting instruction's function
 * and line are read from it (src/core/modsym.h). Nothing proves that file is
 * the one that ran: the frame is marked a guess (frame.location_guess) and
 * the kernel line's note says what was checked (the size of the mapping
 * against the file's executable segment).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static int is_file(const char *path, struct stat *sb)
{
	return stat(path, sb) == 0 && S_ISREG(sb->st_mode);
}

/* the module's path on the crashed system and on this host; NULL when not found */
static char *find_module(const char *sysroot, const char *name, char **host, int *count)
{
	const char *const *d;
	char *found = NULL;
	struct stat sb, first;

	*host = NULL;
	*count = 0;
	if (strchr(name, '/')) {
		*host = prov_root_join(sysroot, name);
		if (is_file(*host, &sb)) {
			*count = 1;
			return prov_xstrdup(name);
		}
		free(*host);
		*host = NULL;
		return NULL;
	}
	for (d = search_dirs; *d; d++) {
		char *sys = prov_xasprintf("%s/%s", *d, name), *h = prov_root_join(sysroot, sys);

		/* /lib is often /usr/lib (merged /usr): one file, counted once */
		if (is_file(h, &sb) && (!found || sb.st_dev != first.st_dev || sb.st_ino != first.st_ino)) {
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
		prov_buf_printf(&note, "no file named '%s' under %s's library and program directories: "
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
	}
	prov_modsym_release(&ms);
done:
	free(k->note);
	k->note = prov_buf_detach(&note);
	free(sys);
	free(host);
}
