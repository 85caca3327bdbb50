/*
 * proc_impl.h — the process as the heaps/ modules see it (proc.c, gc.c, verify.c): the
 * struct, the root set, and the helpers the collector and the verifier share. Other layers
 * see tc_proc only through proc.h. White-box tests include it too.
 */
#ifndef TC_PROC_IMPL_H
#define TC_PROC_IMPL_H

#include "../terms/binary.h"
#include "../terms/layout.h"
#include "proc.h"

/* erts H_MIN_SIZE: the fullsweep shrink never acts on heaps this small. */
#define TC_H_MIN_SIZE 233u
/* frag_rule arith (R10B-2 utils.c do_alloc): header words of one ErlHeapFragment counted as
 * overhead (sizeof / word - 1). */
#define TC_ARITH_FRAG_OVERHEAD 6u

/* A queued message: `term` is on the receiver's heap when frag is NULL, else in frag. */
typedef struct tc_msg {
    struct tc_msg *next;
    tc_term term;
    tc_heapfrag *frag;
} tc_msg;

struct tc_proc {
    tc_alloc iface; /* HAlloc as an allocator: constructors build straight onto this heap */
    tc_policy policy;
    tc_mseg *mem;
    tc_term *heap, *htop, *stop, *hend;
    uint64_t heap_sz;
    tc_term *high_water; /* data below it has survived a GC: promoted at the next minor GC */
    tc_term *old_heap, *old_htop, *old_hend;
    tc_heapfrag *mbuf; /* newest first */
    uint64_t mbuf_sz;
    tc_heapfrag *msg_frag; /* fragments of received messages (young data) */
    /* A delayed GC's heap (erts p->heap while p->abandoned_heap is set, erl_gc.c
     * delay_garbage_collection): a fragment on the mbuf list that HAlloc and the heap tests
     * use until the GC; its words are young data but not mbuf_sz (gc.h). NULL: none. */
    tc_heapfrag *aheap;
    tc_offheap off_heap; /* off_heap.vheap is erts off_heap.overhead */
    /* The binary virtual heap in words (erl_process.h bin_vheap_sz, bin_old_vheap_sz,
     * bin_old_vheap, min_vheap_size; policy.bin_vheap; gc.h has the rules). */
    uint64_t bin_vheap_sz, bin_old_vheap_sz, bin_old_vheap, min_vheap_size;
    tc_pdict *dict; /* the process dictionary, NULL until first used: its slots are roots */
    tc_term x[TC_PROC_MAX_XREGS];
    unsigned arity; /* live x registers at a safe point */
    tc_msg *msgq, **msgq_last;
    size_t msgq_len;
    uint64_t min_heap_size, gen_gcs;
    unsigned flags;
    tc_heapfrag *arith_frag; /* R10B: the fragment whose tail is the arith heap */
    uint64_t arith_avail;
    uint64_t frag_overhead;  /* R10B: fragment header words since the last GC */
    bool yield_requested;    /* BUMP_ALL_REDS (R10B fragments, OTP25 delayed GC): yield at the next call */
    /* A long GC delayed after its minor started (gc.c tc_proc_bif_return_maybe_gc): its event
     * starts where the minor did, and the dirty GC that finishes it reports that start. */
    bool delayed_started;
    tc_heap_event delayed_start;
    bool in_bif;             /* between tc_proc_bif_enter and its return: the glue's return address is pushed */
    /* erts p->live_hf_end: the marker a BIF's first trap saved (tc_proc_bif_trap), which the
     * next collection, wherever it runs, takes as its live_hf_end */
    bool hf_saved;
    tc_heapfrag *hf_saved_end;
    int64_t reds;            /* BUMP_REDS by the runtime (GC cost, message size) not yet taken */
    const tc_term *lit_start[TC_PROC_MAX_LITERAL_AREAS], *lit_end[TC_PROC_MAX_LITERAL_AREAS];
    unsigned nlit;
    tc_proc_stats stats;
    tc_heap_trace_fn trace;
    void *trace_ctx;
    bool trace_receive; /* its receives are traced ('receive' events: tc_proc_set_trace_receive) */
};

/* Process flags (erts F_NEED_FULLSWEEP, F_HEAP_GROW, F_FORCE_GC). */
#define TC_PROC_NEED_FULLSWEEP 0x1u
#define TC_PROC_HEAP_GROW 0x2u
#define TC_PROC_FORCE_GC 0x4u /* a delayed GC runs at the next safe point */
#define TC_PROC_DELAY_GC 0x8u /* F_DELAY_GC: inside a receive, a heap test's GC is delayed */
/* F_DIRTY_MAJOR_GC / F_DIRTY_MINOR_GC set by a heap test: the long GC it delayed onto a
 * fragment heap (gc.c delay_long_gc) runs on a dirty scheduler */
#define TC_PROC_DIRTY_GC 0x10u

/*
 * The root set (erts: setup_rootset and its Rootset in erl_gc.c): the stack, the registers
 * the safe point names (objv), the terms of messages that sit on the heap, and the process
 * dictionary's slots, handed to `fn` area by area in that order. The collector's
 * evacuation, a resize's relocation and the verifier all walk it here, so a root added in
 * one place is a root for all three.
 */
typedef void (*proc_root_fn)(void *ctx, tc_term *roots, size_t n);
void tc__proc_each_root(tc_proc *p, tc_term *objv, unsigned nobj, proc_root_fn fn, void *ctx);

/* Debug level 2: the check every state transition of a process ends with (the end of each
 * collection and each send): the process must verify with objv[0..nobj) as its live
 * registers, or the assertion handler is called with the verifier's reason. */
void tc__proc_verify_transition(const tc_proc *p, const tc_term *objv, unsigned nobj, const char *file, int line);
#if TC_DEBUG_LEVEL >= 2
#define PROC_VERIFY_TRANSITION(p, objv, nobj) tc__proc_verify_transition(p, objv, nobj, __FILE__, __LINE__)
#else
#define PROC_VERIFY_TRANSITION(p, objv, nobj) ((void)0)
#endif

/* Pointers into a literal area (or to the shared {}) are never moved. */
static inline bool proc_is_literal(const tc_proc *p, const tc_term *ptr)
{
    if (tc_is_empty_tuple_object(ptr))
        return true;
    for (unsigned i = 0; i < p->nlit; i++)
        if (tc_layout_in(ptr, p->lit_start[i], p->lit_end[i]))
            return true;
    return false;
}

/* erts young_gen_usage: heap use, fragments, and the data of queued messages that still
 * carry their own fragment. */
static inline uint64_t proc_young_gen_usage(const tc_proc *p)
{
    uint64_t u = tc_proc_young_use(p);
    for (const tc_msg *m = p->msgq; m; m = m->next)
        if (m->frag)
            u += m->frag->used_size;
    return u;
}

/* The binary virtual heap's arm of ERTS_IS_GC_DESIRED_INTERNAL (erl_gc.h): off_heap.overhead
 * > bin_vheap_sz, unsigned, as the x86-64 JIT's light-BIF glue compares them too (`ja`,
 * instr_bif.cpp emit_call_light_bif_shared). */
static inline bool proc_bin_vheap_full(const tc_proc *p)
{
    return p->policy.bin_vheap && p->off_heap.vheap > p->bin_vheap_sz;
}

/* A GC delayed as long (check_for_possibly_long_gc) is pending: it runs on a dirty scheduler.
 * A receive's delayed GC (aheap set, no TC_PROC_DIRTY_GC) runs on the normal one. */
static inline bool proc_dirty_gc_pending(const tc_proc *p)
{
    return (p->flags & TC_PROC_FORCE_GC) && (!p->aheap || (p->flags & TC_PROC_DIRTY_GC));
}
/* Frees a list of fragments. */
void tc__proc_free_frags(tc_mseg *mem, tc_heapfrag *f);
/* Moves the ProcBins of `from` (a message fragment's list) to the front of `into`. */
void tc__proc_splice_offheap(tc_offheap *into, tc_offheap *from);

static inline void proc_emit(tc_proc *p, const tc_heap_event *ev)
{
    if (p->trace)
        p->trace(p->trace_ctx, p, ev);
}

#endif
