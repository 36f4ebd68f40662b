#ifndef PROV_KIT_ORIGIN_H
#define PROV_KIT_ORIGIN_H

#include <stddef.h>

#include "model.h"

/* The resolvers' kit: origins (kit-origin.c). */

/* A fresh origin with kind set; other fields NULL. */
struct prov_origin *prov_origin_new(const char *kind);

/* A growable list of owned origins. */
struct prov_origin_list {
	struct prov_origin **v;
	size_t n, alloc;
};
/* Takes ownership of o. */
void prov_origin_list_add(struct prov_origin_list *l, struct prov_origin *o);
void prov_origin_list_release(struct prov_origin_list *l);

#endif
