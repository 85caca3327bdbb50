#include "send.h"

#include <string.h>

#include "../copy/copy_struct.h"
#include "gc.h"
#include "../terms/binary.h"
#include "../terms/size.h"

tc_result tc_send_path_parse(const char *name, tc_send_path *out)
{
    if (name && (strcmp(name, "direct") == 0 || strcmp(name, "r10b") == 0))
        *out = TC_SEND_DIRECT;
    else if (name && (strcmp(name, "heap_or_frag") == 0 || strcmp(name, "otp25") == 0))
        *out = TC_SEND_HEAP_OR_FRAG;
    else
        return TC_EBADARG;
    return TC_OK;
}

const char *tc_send_path_name(tc_send_path path)
{
    return path == TC_SEND_DIRECT ? "direct" : "heap_or_frag";
}

static uint64_t heap_room(const tc_proc *p) { return (uint64_t)(p->stop - p->htop); }

/* Copies into words already reserved at `to`'s htop and queues the copy; htop moves only
 * when the message is queued, so a failure leaves the heap as it was. */
static tc_result fill_on_heap(tc_proc *to, tc_term msg, uint64_t words, const tc_copy_literals *lit)
{
    tc_term *oh_mark = to->off_heap.first;
    tc_term copy = tc_copy_struct_fill(msg, to->htop, words, &to->off_heap, lit);
    tc_result r = tc_proc_queue_message(to, copy, NULL);
    if (r != TC_OK) {
        tc_offheap_release_until(&to->off_heap, oh_mark);
        return r;
    }
    to->htop += words;
    return TC_OK;
}

static tc_result send_direct(tc_proc *to, tc_term msg, uint64_t words, tc_copy_stats *stats)
{
    if (heap_room(to) <= words) {
        tc_result r = tc_gc_collect(to, words, to->x, to->arity);
        if (r != TC_OK)
            return r;
        if (stats)
            stats->gcs++;
    }
    TC_CHECK(heap_room(to) >= words);
    return fill_on_heap(to, msg, words, NULL);
}

static tc_result send_heap_or_frag(tc_proc *to, tc_term msg, uint64_t words, const tc_copy_literals *lit,
                                   bool to_busy, tc_copy_stats *stats)
{
    if (!to_busy && heap_room(to) > words)
        return fill_on_heap(to, msg, words, lit);
    if (words == 0) /* nothing to copy: an immediate or a literal */
        return tc_proc_queue_message(to, msg, NULL);
    tc_heapfrag *frag = tc_heapfrag_new(to->mem, words);
    if (!frag)
        return TC_ENOMEM;
    tc_term copy = tc_copy_struct_fill(msg, frag->mem, words, &frag->off_heap, lit);
    frag->used_size = words;
    tc_result r = tc_proc_queue_message(to, copy, frag);
    if (r != TC_OK) {
        tc_heapfrag_free(to->mem, frag);
        return r;
    }
    if (stats)
        stats->fragments++;
    return TC_OK;
}

tc_result tc_send(tc_proc *from, tc_proc *to, tc_term msg, tc_send_path path, bool to_busy, tc_copy_stats *stats)
{
    tc_copy_literals lit = {NULL, NULL};
    if (path == TC_SEND_HEAP_OR_FRAG && from->nlit > 0) {
        lit.start = from->lit_start[0];
        lit.end = from->lit_end[0];
    }
    uint64_t words;
    tc_result r = lit.start ? tc_term_flat_size_litopt(msg, lit.start, lit.end, &words) : tc_term_flat_size(msg, &words);
    if (r != TC_OK)
        return r;
    r = path == TC_SEND_DIRECT ? send_direct(to, msg, words, stats)
                               : send_heap_or_frag(to, msg, words, lit.start ? &lit : NULL, to_busy, stats);
    if (r == TC_OK && stats) {
        stats->words_sized += words;
        stats->words_written += words;
        stats->passes += 2;
    }
    return r;
}
