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
 * The fields of the containers the crashing thread is in, read through
 * `mem` (0 on success), for every distinct `this` of a container frame from
 * the crash site out (up to 8; the first finding wins). Only libstdc++'s
 * gcc-12 layouts on LP64 with the standard allocator:
 * - std::_Hashtable with std::hash and std::equal_to: _M_buckets,
 *   _M_bucket_count, _M_before_begin._M_nxt, _M_element_count at 0, 8, 16,
 *   24: a bucket array or node pointer misaligned, non-canonical or
 *   unreadable, no buckets, a node list that contradicts the count;
 * - std::vector: _M_start, _M_finish, _M_end_of_storage at 0, 8, 16:
 *   _M_start wild, begin > end, size > capacity, a size not a whole number
 *   of (fundamental) elements;
 * - std::_Rb_tree with std::less (map, set, ...): the header node at 8
 *   (_M_parent = the root, _M_left, _M_right at 16, 24, 32), _M_node_count
 *   at 40: wild pointers, the root's _M_parent not the header, a count that
 *   the root contradicts;
 * - std::__cxx11::list: _M_next, _M_prev, _M_size at 0, 8, 16: wild node
 *   pointers, a node's _M_prev not the node before it, a walk that
 *   contradicts _M_size.
 * The checks that a single thread's own change passes through (counts,
 * order, links) are skipped while the crashing thread is changing that
 * object. Sets c->stl_fields to the finding, for the data-race pattern.
 * x86-64 and aarch64 cores only.
 */
typedef int (*prov_stl_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

void prov_stl_inspect(struct prov_crash *c, prov_stl_read_fn mem, void *arg);

#endif
