#ifndef PROV_STLRACE_H
#define PROV_STLRACE_H

#include <stddef.h>
#include <stdint.h>

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

/*
 * The fields of the std::_Hashtable the crashing thread is in (a frame of
 * std::_Hashtable<…> with a known `this`, with std::hash, std::equal_to and
 * std::allocator, whose empty bases leave libstdc++'s layout: _M_buckets,
 * _M_bucket_count, _M_before_begin._M_nxt, _M_element_count at 0, 8, 16, 24
 * on LP64), read through `mem` (0 on success): a bucket array or node
 * pointer misaligned, non-canonical or unreadable, no buckets, an element
 * count that an empty list contradicts, a node list that does not end
 * within _M_element_count steps. Sets c->stl_fields to the findings, for
 * the data-race pattern. x86-64 and aarch64 cores only.
 */
typedef int (*prov_stl_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

void prov_stl_inspect(struct prov_crash *c, prov_stl_read_fn mem, void *arg);

#endif
