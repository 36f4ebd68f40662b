#ifndef PROV_PATTERNS_H
#define PROV_PATTERNS_H

#include "model.h"

/*
 * Crash patterns (the runbook's table), each added to c->patterns with the
 * facts that triggered it. A pattern is only claimed when the model holds
 * its evidence; the evidence text says what was seen, never more.
 *
 *   null-deref        SIGSEGV/SIGBUS with a fault address in the first 64 KiB
 *   bad-call          frame #0's pc is 0 or outside every mapped module (core)
 *   non-canonical     SIGSEGV with SI_KERNEL (x86-64 general protection: a
 *                     non-canonical address), or a non-canonical fault address
 *   misaligned        SIGBUS BUS_ADRALN
 *   stack-overflow    fault address within 64 KiB below the crashing thread's
 *                     stack pointer, or one function repeated 200+ times
 *   abort             SIGABRT, or abort/__assert_fail/std::terminate frames
 *                     (not for a lock cycle's kill without an assertion frame)
 *   deadlock          a sent signal (si_code <= 0, e.g. a watchdog's SIGABRT)
 *                     ended threads that wait on each other in a lock cycle
 *                     (crash->hang, kept by the core reader only with a cycle)
 *   exit-time         crash.context is exit (exit handlers, static destructors)
 *   heap-corruption   malloc_printerr / _int_free / free-checking frames
 *   data-race         red flags of a race or a use after free, for a fault:
 *                     the faulting operand's address misaligned for its
 *                     access or made of fill bytes (0xdeadbeef, 0xbebebebe,
 *                     0xa5a5…, 0x5a5a…, 0xdddd…, 0xfeeefeee, 0xcdcd…); in the
 *                     crash chain's arguments and locals (5 frames from the
 *                     crash site), pointers misaligned for their scalar type
 *                     or made of fill bytes, and structs whose size/len field
 *                     is past their capacity/cap field; or another thread
 *                     (for a fault or a SIGABRT) inside the same
 *                     libstdc++ container object as the
 *                     crashing thread (the same `this` in frames of the
 *                     same container family), one of them in a method that
 *                     changes it; or red flags in the fields of the
 *                     std::_Hashtable it is in, read from the core
 *                     (c->stl_fields, src/model/stlrace.h)
 *
 * A signal sent with kill (si_code SI_USER/SI_TKILL/SI_QUEUE) faulted on no
 * address: no fault-address pattern and no faulting-operand flag. The
 * faulting instruction's computed address stands in for the fault address
 * only in cores without siginfo (QEMU's).
 *
 * Frame-based patterns look from the crash site down (below a signal
 * handler that re-raised the fault).
 */
void prov_patterns_detect(struct prov_crash *c);

/* Stable description of a pattern id for reports ("NULL dereference"). */
const char *prov_pattern_title(const char *id);

#endif
