/*
 * verify.h — the process heap checker (erts: erts_check_heap, check_stack and the
 * HARDDEBUG disallow_heap_frag_ref checks of erl_gc.c / erl_debug.c, gathered into one).
 *
 * tc_heap_verify walks every area of a process word by word (young heap, old heap,
 * HAlloc and received-message fragments, queued message fragments) and every root (the GC's
 * root set: stack, live x registers, messages on the heap, dictionary slots) and checks:
 * - the block layout: heap <= htop <= stop <= hend, heap_sz a table size and not below
 *   min_heap_size, high_water inside the heap, old_htop inside the old heap, mbuf_sz equal
 *   to the fragments' sizes, the R10B arith heap at the end of its fragment;
 * - headers well formed (known subtag, arity consistent with the object, object inside
 *   its area; no zero-arity tuple on a heap);
 * - every pointer aligned and landing on an object in an allowed area: young data and
 *   roots may point to young data, the old heap or a literal area; the old heap only to
 *   itself or literals; a queued message's fragment only to itself or literals. A boxed
 *   pointer must find a header and a list pointer two non-header words, so a forwarding
 *   mark left by a GC is always an error;
 * - each root term valid as a term (tc_term_verify);
 * - the off-heap list: exactly the ProcBins in the process's areas, once each, and its
 *   overhead equal to their byte sizes; each queued fragment's own list likewise.
 * Returns false with a reason in *why (may be NULL). Allocates only for its own sets.
 */
#ifndef TC_VERIFY_H
#define TC_VERIFY_H

#include "proc.h"

TC_BEGIN_DECLS

bool tc_heap_verify(const tc_proc *p, const char **why);
/* The same with objv[0..nobj) as the live registers instead of x[0..arity): what a safe
 * point's collection took as its roots. */
bool tc_heap_verify_with(const tc_proc *p, const tc_term *objv, unsigned nobj, const char **why);

TC_END_DECLS

#endif
