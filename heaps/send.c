#include "send.h"
#include "../alloc/estack.h"

#include "../copy/copy_struct.h"
#include "../terms/binary.h"
#include "gc.h"
#include "proc_impl.h"

/* ERTS_MSG_COPY_WORDS_PER_REDUCTION (erl_message.h, non-debug emulators). */
#define TC_MSG_COPY_WORDS_PER_REDUCTION 64u

/* Copies into words reserved at `to`'s htop and queues the copy; the words are committed
 * only when the message is queued, so a failure leaves the heap as it was. */
static tc_result fill_on_heap(tc_proc *to, tc_term msg, uint64_t words, const tc_copy_literals *lit)
{
    tc_term *hp = tc_proc_heap_reserve(to, words);
    TC_CHECK(hp != NULL);
    tc_offheap *oh = tc_proc_offheap(to);
    tc_term *oh_mark = oh->first;
    uint64_t vheap_mark = oh->vheap;
    tc_term copy = tc_copy_struct_fill(msg, hp, words, oh, lit);
    tc_result r = tc_proc_queue_message(to, copy, NULL);
    if (r != TC_OK) {
        tc_offheap_release_until(oh, oh_mark);
        oh->vheap = vheap_mark;
        return r;
    }
    tc_proc_heap_commit(to, words);
    return TC_OK;
}

tc_result tc_proc_copy_in(tc_proc *p, tc_term t, uint64_t words, tc_term *out)
{
    tc_term *hp = tc_proc_heap_reserve(p, words);
    if (!hp)
        return TC_EBADARG;
    *out = tc_copy_struct_fill(t, hp, words, tc_proc_offheap(p), NULL);
    tc_proc_heap_commit(p, words);
    return TC_OK;
}

static tc_result send_direct(tc_proc *to, tc_term msg, uint64_t words, const tc_copy_literals *lit,
                             tc_copy_stats *stats)
{
    if (tc_proc_heap_room(to) <= words) {
        tc_result r = tc_gc_collect(to, words, tc_proc_x(to), tc_proc_arity(to));
        if (r != TC_OK)
            return r;
        if (stats)
            stats->gcs++;
    }
    return fill_on_heap(to, msg, words, lit);
}

static tc_result send_heap_or_frag(tc_proc *to, tc_term msg, uint64_t words, const tc_copy_literals *lit,
                                   bool to_busy, tc_copy_stats *stats)
{
    /* a receiver on a delayed GC's heap takes the message in a fragment (proc.c
     * tc_proc_heap_reserve; erts would bump the fragment heap) */
    if (!to_busy && tc_proc_heap_words_left(to) > words && tc_proc_heap_reserve(to, (size_t)words))
        return fill_on_heap(to, msg, words, lit);
    if (words == 0) /* nothing to copy: an immediate or a literal */
        return tc_proc_queue_message(to, msg, NULL);
    tc_heapfrag *frag = tc_heapfrag_new(tc_proc_mem(to), words);
    if (!frag)
        return TC_ENOMEM;
    tc_term copy = tc_copy_struct_fill(msg, frag->mem, words, &frag->off_heap, lit);
    frag->used_size = words;
    tc_result r = tc_proc_queue_message(to, copy, frag);
    if (r != TC_OK) {
        tc_heapfrag_free(tc_proc_mem(to), frag);
        return r;
    }
    if (stats)
        stats->fragments++;
    return TC_OK;
}

tc_result tc_send(tc_proc *from, tc_proc *to, tc_term msg, bool to_busy, tc_copy_stats *stats)
{
    const tc_policy *pol = tc_proc_policy(from);
    tc_send_path path = pol->send_path;
    tc_copy_literals lit = {NULL, NULL};
    if (pol->send_litopt)
        (void)tc_proc_literal_area(from, 0, &lit.start, &lit.end);
    uint64_t words;
    tc_result r = tc_estack_size_object(tc_proc_mem(from), msg, lit.start, lit.end, &words);
    if (r != TC_OK)
        return r;
    const tc_copy_literals *skip = lit.start ? &lit : NULL;
    r = path == TC_SEND_DIRECT ? send_direct(to, msg, words, skip, stats)
                               : send_heap_or_frag(to, msg, words, skip, to_busy, stats);
    if (r == TC_OK && pol->send_reds)
        from->reds += TC_SEND_REDS; /* erl_send (bif.c): ERTS_VBUMP_REDS(p, 4) after a local send */
    if (r == TC_OK && pol->send_reds && words > TC_MSG_COPY_WORDS_PER_REDUCTION) {
        /* erts_send_message: the sender pays a reduction per 64 words, at most a slice. */
        int64_t reds = (int64_t)(words / TC_MSG_COPY_WORDS_PER_REDUCTION);
        from->reds += reds < from->policy.context_reds ? reds : from->policy.context_reds;
    }
    if (r == TC_OK && stats) {
        stats->words_sized += words;
        stats->words_written += words;
        stats->passes += 2;
    }
    if (r == TC_OK)
        PROC_VERIFY_TRANSITION(to, to->x, to->arity);
    return r;
}

tc_result tc_send_maybe_gc(tc_proc *from, tc_proc *to, tc_term *msg, bool to_busy, tc_copy_stats *stats)
{
    tc_heapfrag *entry = tc_proc_bif_enter(from);
    tc_result r = tc_send(from, to, *msg, to_busy, stats);
    if (r == TC_OK && tc_proc_policy(from)->gc_after_send)
        r = tc_proc_bif_return_maybe_gc(from, entry, msg);
    return r;
}
