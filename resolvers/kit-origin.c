/* The resolvers' kit: new origins and growable lists of them, for resolvers and the chain. */
#include <stdlib.h>
#include <string.h>

#include "kit-origin.h"
#include "util.h"
#include "banned.h"

struct prov_origin *prov_origin_new(const char *kind)
{
	struct prov_origin *o = prov_xcalloc(1, sizeof(*o));

	o->kind = prov_xstrdup_or_null(kind);
	return o;
}

void prov_origin_list_add(struct prov_origin_list *l, struct prov_origin *o)
{
	PROV_ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = o;
}

void prov_origin_list_release(struct prov_origin_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		prov_origin_free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
