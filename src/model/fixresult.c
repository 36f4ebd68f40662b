/* What fixcheck finds, as data: freeing fix evidence and fixcheck's answers (fixresult.h). */
#include <stdlib.h>
#include <string.h>

#include "fixresult.h"
#include "banned.h"

void prov_backport_release(struct prov_backport *b)
{
	free(b->via);
	free(b->files_present);
	free(b->files_missing);
	free(b->first_tag);
	free(b->branch);
	free(b->branch_tag);
	free(b->branch_via);
	free(b->patchid);
	free(b->commits_missing);
	prov_fix_evidence_release(b->evidence, b->nevidence);
	free(b->named_by);
	free(b->reason);
	memset(b, 0, sizeof(*b));
}

void prov_fixcheck_release(struct prov_fixcheck *r)
{
	size_t i, k;

	for (i = 0; r->items && i < r->n; i++) {
		for (k = 0; k < r->items[i].ncommits; k++)
			free(r->items[i].commits[k]);
		free(r->items[i].commits);
		free(r->items[i].arg);
		free(r->items[i].fix);
		free(r->items[i].note);
		prov_backport_release(&r->items[i].bp);
	}
	free(r->items);
	free(r->deployed);
	free(r->at_label);
	memset(r, 0, sizeof(*r));
}
