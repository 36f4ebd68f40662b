/* tests/e2e: what prov_text_parse_all made of a file, one fact a line (t-text-prefixes.sh) */
#include <stdio.h>
#include <stdlib.h>
#include "buf.h"
#include "error.h"
#include "model.h"
#include "textparse.h"
#include "util.h"

int main(int argc, char **argv)
{
	struct prov_buf b = PROV_BUF_INIT;
	struct prov_crash **cs;
	size_t n, k, i, j;

	if (argc < 2 || prov_read_file(&b, argv[1], 64 << 20) < 0)
		return 2;
	if (prov_text_parse_all(&cs, &n, argv[1], b.buf, b.len) < 0) {
		printf("error %s\n", prov_error_last());
		return 1;
	}
	for (k = 0; k < n; k++) {
		struct prov_crash *c = cs[k];
		if (n > 1 || argc > 2)
			printf("crash %zu label %s\n", k, c->label ? c->label : "-");
		printf("format %s signal %d headline %s\n", c->format ? c->format : "-", c->has_signal ? c->signal.number : 0,
		       c->headline && c->headline->text ? c->headline->text : "-");
		printf("threads %zu crashed %zd\n", c->nthreads, c->has_crashed_thread ? (ssize_t)c->crashed_thread : -1);
		for (i = 0; i < c->nthreads; i++) {
			struct prov_thread *t = &c->threads[i];
			printf("thread %zu crashed %d cf %zd tid %lld name %s frames %zu\n", i, t->crashed,
			       t->has_crash_frame ? (ssize_t)t->crash_frame : -1, t->has_tid ? (long long)t->tid : -1,
			       t->name ? t->name : "-", t->nframes);
			for (j = 0; j < t->nframes; j++) {
				struct prov_frame *f = &t->frames[j];
				printf("  %d %llx %s %s %s %d py=%d\n", f->index, f->has_pc ? (unsigned long long)f->pc : 0ULL,
				       f->function ? f->function : "-", f->module ? f->module : "-", f->file ? f->file : "-", f->line, f->python);
			}
		}
		prov_crash_free(c);
	}
	free(cs);
	prov_buf_release(&b);
	return 0;
}
