#ifndef PROV_STLRACE_H
#define PROV_STLRACE_H

#include <stddef.h>

#include "model.h"
#include "util.h"

/*
 * Data-race evidence in libstdc++ containers (docs/analyzer.md "Data races
 * in standard containers"), from the frames' `this` arguments only.
 */

/*
 * The container family of a demangled frame name whose class is a
 * libstdc++ container or one of its bases (std::_Hashtable, std::__detail::
 * _Map_base, std::unordered_map, std::vector, std::_Rb_tree, std::map,
 * std::deque, std::list, ...): its index (>= 0), or -1 when it is none.
 * `name`, when not NULL, gets a short spelling: "std::_Hashtable<…>::_M_erase".
 */
int prov_stl_family(const char *fn, struct prov_buf *name);

/*
 * Another thread inside the same container object as the crashing thread:
 * for a frame of `t` in container code with a known `this`, every other
 * thread with a frame of the same family on the same `this`, where at least
 * one of the two threads is in a method that writes (insert, emplace,
 * erase, rehash, a map's operator[], push_back, reserve, ...). Appends the
 * finding to `b` ("; " between findings, *n counts them). Threads whose
 * frames carry no variables give nothing.
 */
void prov_stl_race(const struct prov_crash *c, const struct prov_thread *t,
		   struct prov_buf *b, size_t *n);

#endif
