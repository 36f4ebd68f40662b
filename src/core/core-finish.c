/* The end of an analysis, for a core and a live process alike (between core.c / core-pid.c and the steps). */
#include <stdlib.h>

#include "core.h"
#include "core-int.h"
#include "core-python.h"
#include "hang.h"
#include "stlrace.h"
#include "banned.h"

/* a signal sent (kill, tgkill, raise; si_code <= 0), not a fault: a
 * watchdog's SIGABRT or a user's SIGQUIT may have ended a hang */
static int sent_signal(const struct prov_crash *c)
{
	return c->has_signal && c->signal.has_code && c->signal.code <= 0;
}

/* A sent signal's core: analysed as a hang too, and the analysis kept only
 * when it finds a lock cycle (the cause; the signal only ended it). */
static void killed_in_a_hang(struct core_ctx *x)
{
	prov_hang_analyze(x->c, core_mem_read, x);
	if (x->c->hang && !x->c->hang->ncycles) {
		prov_hang_free(x->c->hang);
		x->c->hang = NULL;
	}
}

/* After unwinding, for a core and a live process alike: shared chains, Python
 * frames, what a truncated core lost, debug files, modules in address order. */
void core_finish_analysis(struct core_ctx *x)
{
	size_t i;

	core_chain_finish(x);
	for (i = 0; i < x->c->nthreads; i++)
		core_mark_handler_frames(&x->c->threads[i]);
	if (!x->opts->no_python)
		prov_core_python_frames(x->c, x->dwfl, core_mem_read, x);
	if (x->c->partial)
		core_note_missing_stacks(x);
	dwfl_getmodules(x->dwfl, core_debug_file_cb, x, 0);
	if (x->c->nmodules > 1)
		qsort(x->c->modules, x->c->nmodules, sizeof(*x->c->modules), core_module_cmp);
	/* a snapshot is a hang until shown otherwise: who waits for whom */
	if (x->c->snapshot) {
		prov_hang_analyze(x->c, core_mem_read, x);
		return;
	}
	if (sent_signal(x->c))
		killed_in_a_hang(x);
	if (x->is64 && (x->machine == EM_X86_64 || x->machine == EM_AARCH64))
		prov_stl_inspect(x->c, core_mem_read, x);
}
