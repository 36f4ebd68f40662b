/* The analysis context's shared state, at the bottom of the core files: the context being analyzed, releasing it. */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <unistd.h>

#include "core-int.h"
#include "corevars.h"
#include "model.h"
#include "banned.h"

__thread struct core_ctx *core_current;

void core_memo_free(struct core_ctx *x)
{
	size_t i, k;

	for (i = 0; x->memo.pcs && i < x->memo.pcs_cap; i++) {
		for (k = 0; k < x->memo.pcs[i].n; k++) {
			free(x->memo.pcs[i].frames[k].function);
			free(x->memo.pcs[i].frames[k].module);
			free(x->memo.pcs[i].frames[k].file);
		}
		free(x->memo.pcs[i].frames);
	}
	free(x->memo.pcs);
	x->memo.pcs = NULL;
}

/* What the analysis holds, for a core and a live process alike (NULL fields skipped). */
void core_ctx_release(struct core_ctx *x)
{
	size_t i;

	for (i = 0; i < x->go.n; i++)
		prov_gopcln_free(x->go.tab[i]);
	if (x->dwfl)
		dwfl_end(x->dwfl);
	if (x->elf)
		elf_end(x->elf);
	if (x->fd >= 0)
		close(x->fd);
	prov_crash_free(x->c);
	for (i = 0; i < x->map.nfiles; i++) {
		free(x->map.files[i].name);
		free(x->map.files[i].note);
	}
	free(x->map.files);
	free(x->mods.keep);
	for (i = 0; i < x->mods.nextras; i++) {
		free(x->mods.extras[i]->file);
		free(x->mods.extras[i]->note);
		free(x->mods.extras[i]->package_note);
		free(x->mods.extras[i]->origin);
		free(x->mods.extras[i]->image);	/* after dwfl_end: its Elf read it */
		free(x->mods.extras[i]);
	}
	free(x->mods.extras);
	free(x->map.segs);
	free(x->map.noexec);
	free(x->mods.vdso_image);
	free(x->rcache);
	free(x->unwind.attach);
	free(x->memo.tramp);
	core_memo_free(x);
	free(x->memo.chain);
	prov_vars_pending_free(x->unwind.vars_pending);
}
