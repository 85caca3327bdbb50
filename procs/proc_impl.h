/*
 * heap_impl.h — internals shared by proc.c, gc.c and verify.c: how a heap area is walked
 * word by word, and the collector's entry point for the safe points.
 */
#ifndef TC_HEAP_IMPL_H
#define TC_HEAP_IMPL_H

#include "proc.h"
#include "../terms/binary.h"

/* erts H_MIN_SIZE: the fullsweep shrink never acts on heaps this small. */
#define TC_H_MIN_SIZE 233u
/* R10B: header words of one ErlHeapFragment counted as overhead (sizeof / word - 1). */
#define TC_R10B_FRAG_OVERHEAD 6u

/*
 * Walking an area linearly: a header is followed by words that are not terms, except
 * a tuple's elements, a flatmap's keys and values, and a sub binary's last word (orig):
 * those are left for the walk to read as terms, which is why a sub binary's arity is two
 * less than its size (erts does the same). Returns how far to step from a header.
 */
static inline size_t heap_header_step(const tc_term *hp)
{
    tc_term h = hp[0];
    switch (tc_header_subtag(h)) {
    case TC_SUBTAG_ARITYVAL: return 1;
    case TC_SUBTAG_MAP: return 2; /* header and the raw size word */
    default: return 1 + (size_t)tc_header_arity(h);
    }
}

/* Words a boxed object takes (header included). */
static inline size_t heap_object_words(const tc_term *hp)
{
    tc_term h = hp[0];
    switch (tc_header_subtag(h)) {
    case TC_SUBTAG_MAP: return 3 + (size_t)hp[1];
    case TC_SUBTAG_SUB_BINARY: return 2 + (size_t)tc_header_arity(h);
    default: return 1 + (size_t)tc_header_arity(h);
    }
}

static inline bool heap_in(const tc_term *x, const tc_term *lo, const tc_term *hi) { return x >= lo && x < hi; }

static inline bool heap_is_literal(const tc_proc *p, const tc_term *ptr)
{
    if (tc_is_empty_tuple_object(ptr))
        return true;
    for (unsigned i = 0; i < p->nlit; i++)
        if (heap_in(ptr, p->lit_start[i], p->lit_end[i]))
            return true;
    return false;
}

/* The collector behind every safe point (erts garbage_collect). With live_frags, the
 * fragments from p->mbuf up to live_hf_end (exclusive) were made by the BIF just
 * returned and move whole when the policy says so. */
tc_result heap_collect(tc_proc *p, uint64_t need, tc_term *objv, unsigned nobj, bool live_frags,
                       tc_heapfrag *live_hf_end);

/* erts young_gen_usage: heap use, fragments, and the data of queued messages that still
 * carry their own fragment. */
static inline uint64_t heap_young_gen_usage(const tc_proc *p)
{
    uint64_t u = tc_proc_young_use(p);
    for (const tc_msg *m = p->msgq; m; m = m->next)
        if (m->frag)
            u += m->frag->used_size;
    return u;
}

/* Frees a list of fragments. */
void heap_free_frags(tc_mseg *mem, tc_heapfrag *f);
/* Moves the ProcBins of `from` (a message fragment's list) to the front of `into`. */
void heap_splice_offheap(tc_offheap *into, tc_offheap *from);

static inline void heap_emit(tc_proc *p, const tc_heap_event *ev)
{
    if (p->trace)
        p->trace(p->trace_ctx, p, ev);
}

#endif
