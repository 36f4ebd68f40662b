/* Source lines from debuginfod, or the file at its DWARF path, for frames whose repository is unknown. */
#include <elfutils/debuginfod.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "dbgbudget.h"
#include "dbgsrc.h"
#include "error.h"
#include "util.h"
#include "banned.h"

#define MAX_SOURCE ((size_t)16 << 20)
#define MAX_LINE 4096

static int has_source(const struct prov_crash *c, int frame)
{
	size_t i;

	for (i = 0; i < c->nsources; i++)
		if (c->sources[i].frame_index == frame)
			return 1;
	return 0;
}

/* Lines [line - context, line + context] of the text. */
static void cut_lines(struct prov_source *s, const char *text, size_t len, int line, int context)
{
	int no = 1, lo = line - context, hi = line + context;
	size_t i = 0;

	while (i < len && no <= hi) {
		size_t end = i;

		while (end < len && text[end] != '\n')
			end++;
		if (no >= lo) {
			size_t n = end - i > MAX_LINE ? MAX_LINE : end - i;

			s->lines = prov_xrealloc(s->lines, (s->nlines + 1) * sizeof(*s->lines));
			s->lines[s->nlines].number = no;
			s->lines[s->nlines].text = prov_xstrndup(text + i, n);
			s->nlines++;
		}
		i = end + 1;
		no++;
	}
}

int prov_debuginfod_source_text(struct prov_buf *out, const char *build_id, const char *path,
				void *unused)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	debuginfod_client *client;
	char *found = NULL;
	uint64_t old_cap;
	int fd, error;

	(void)unused;
	if (!urls || !*urls)
		return prov_error_set(PROV_ENOTFOUND, "no debuginfod server (DEBUGINFOD_URLS)");
	if (!build_id || !path || path[0] != '/')
		return prov_error_set(PROV_ENOTFOUND, "no build ID or no absolute path for debuginfod");
	if (prov_dbgbudget_spent())
		return prov_error_set(PROV_ENOTFOUND, "the debuginfod time budget is spent");
	if (!(client = debuginfod_begin()))
		return prov_error_set(PROV_ERROR, "cannot start a debuginfod client");
	prov_dbgbudget_attach(client);	/* the run's one time budget */
	old_cap = prov_dbgbudget_cap(MAX_SOURCE + 1);	/* never fetch more than is read */
	fd = debuginfod_find_source(client, (const unsigned char *)build_id, 0, path, &found);
	prov_dbgbudget_cap(old_cap);
	if (fd < 0) {
		error = prov_error_set(PROV_ENOTFOUND, "debuginfod has no '%s' for build ID %s", path,
				       build_id);
		goto cleanup;
	}
	/* a fresh download leaves the offset at the end */
	if (lseek(fd, 0, SEEK_SET) < 0)
		error = prov_error_set(PROV_ERROR, "cannot read '%s' from debuginfod", path);
	else
		error = prov_read_fd(out, fd, found ? found : path, MAX_SOURCE);
	close(fd);
cleanup:
	free(found);
	debuginfod_end(client);
	return error;
}

int prov_debuginfod_sources(struct prov_crash *c, int context, int max_frames)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	debuginfod_client *client = NULL;
	size_t j;
	int added = 0, tried = 0;

	if (!urls || !*urls || !t)
		return 0;
	for (j = 0; j < t->nframes && tried < max_frames; j++) {
		const struct prov_frame *f = &t->frames[j];
		const struct prov_module *m;
		struct prov_buf text = PROV_BUF_INIT;
		struct prov_source *s;
		char *path = NULL;
		uint64_t old_cap;
		int fd;

		if (!f->file || f->line < 1 || f->python || f->file[0] != '/')
			continue;
		tried++;
		if (has_source(c, f->index))
			continue;
		m = f->module ? prov_crash_module_by_path(c, f->module) : NULL;
		if (!m && f->has_pc)
			m = prov_crash_module_at(c, f->pc);
		if (!m || !m->build_id)
			continue;
		if (prov_dbgbudget_spent())
			break;
		if (!client) {
			if (!(client = debuginfod_begin()))
				break;
			prov_dbgbudget_attach(client);	/* the run's one time budget */
		}
		old_cap = prov_dbgbudget_cap(MAX_SOURCE + 1);	/* never fetch more than is read */
		fd = debuginfod_find_source(client, (const unsigned char *)m->build_id, 0, f->file,
					    &path);
		prov_dbgbudget_cap(old_cap);
		if (fd < 0) {
			free(path);
			continue;
		}
		/* a fresh download leaves the offset at the end */
		if (lseek(fd, 0, SEEK_SET) < 0 ||
		    prov_read_fd(&text, fd, path ? path : f->file, MAX_SOURCE) < 0) {
			close(fd);
			free(path);
			prov_buf_release(&text);
			continue;
		}
		close(fd);
		free(path);
		s = prov_crash_add_source(c);
		s->path = prov_xstrdup(f->file);
		s->line = f->line;
		s->frame_index = f->index;
		s->located_by = prov_xstrdup("debuginfod");
		s->fetched_by = prov_xstrdup("debuginfod");
		s->build_id = prov_xstrdup(m->build_id);
		cut_lines(s, text.buf, text.len, f->line, context);
		prov_buf_release(&text);
		added++;
	}
	if (client)
		debuginfod_end(client);
	return added;
}

int prov_local_sources(struct prov_crash *c, int context, int max_frames)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	size_t j;
	int added = 0, tried = 0;

	if (!t)
		return 0;
	for (j = 0; j < t->nframes && tried < max_frames; j++) {
		const struct prov_frame *f = &t->frames[j];
		const struct prov_module *m;
		struct prov_buf text = PROV_BUF_INIT;
		struct prov_source *s;
		struct stat src, mod;
		int fd;

		if (!f->file || f->line < 1 || f->python || f->file[0] != '/')
			continue;
		tried++;
		if (has_source(c, f->index) || f->component)
			continue;
		m = f->module ? prov_crash_module_by_path(c, f->module) : NULL;
		if (!m && f->has_pc)
			m = prov_crash_module_at(c, f->pc);
		/* a packaged module's source is its package's, not a file that happens to be here */
		if (!m || !m->file || m->origin || m->component || m->build_id_mismatch ||
		    stat(m->file, &mod) != 0)
			continue;
		fd = open(f->file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0)
			continue;
		/* a regular file no newer than the module: else it may not be what was built */
		if (fstat(fd, &src) != 0 || !S_ISREG(src.st_mode) ||
		    src.st_mtim.tv_sec > mod.st_mtim.tv_sec ||
		    (src.st_mtim.tv_sec == mod.st_mtim.tv_sec && src.st_mtim.tv_nsec > mod.st_mtim.tv_nsec) ||
		    prov_read_fd(&text, fd, f->file, MAX_SOURCE) < 0) {
			close(fd);
			prov_buf_release(&text);
			continue;
		}
		close(fd);
		s = prov_crash_add_source(c);
		s->path = prov_xstrdup(f->file);
		s->line = f->line;
		s->frame_index = f->index;
		s->fetched_by = prov_xstrdup("local-file");
		cut_lines(s, text.buf, text.len, f->line, context);
		prov_buf_release(&text);
		added++;
	}
	return added;
}
