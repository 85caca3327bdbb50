#include "compact.h"

#include "copy_struct.h"
#include "copy_struct_impl.h"
#include "../terms/binary.h"
#include "../terms/layout.h"
#include "../terms/size.h"

struct tc_copy_compact {
    tc_offheap offheap; /* the ProcBins in tpl (DbTerm.first_oh) */
    tc_term root;       /* absolute pointer into tpl, or a term with no words */
    size_t size;
    tc_term tpl[];
};

tc_result tc_copy_compact_in(tc_term t, tc_copy_compact **out, tc_copy_stats *stats)
{
    uint64_t words;
    tc_result r = tc_term_flat_size(t, &words);
    if (r != TC_OK)
        return r;
    if (words > (SIZE_MAX - sizeof(tc_copy_compact)) / sizeof(tc_term))
        return TC_ENOMEM;
    tc_copy_compact *c = tc_mem_alloc(sizeof *c + words * sizeof(tc_term));
    if (!c)
        return TC_ENOMEM;
    c->offheap.first = NULL;
    c->offheap.overhead = 0;
    c->offheap.vheap = 0;
    c->size = words;
    c->root = tc_copy_struct_fill(t, c->tpl, words, &c->offheap, NULL);
    if (stats) {
        stats->words_sized += words;
        stats->words_written += words;
        stats->passes += 2;
    }
    *out = c;
    return TC_OK;
}

void tc_copy_compact_free(tc_copy_compact *c)
{
    if (!c)
        return;
    tc_offheap_release_until(&c->offheap, NULL);
    tc_mem_free(c);
}

tc_term tc_copy_compact_term(const tc_copy_compact *c) { return c->root; }
size_t tc_copy_compact_size(const tc_copy_compact *c) { return c->size; }
const tc_term *tc_copy_compact_words(const tc_copy_compact *c) { return c->tpl; }

/* A stored word moved by `delta` bytes, if it points into the block. */
static tc_term relocate(tc_term w, tc_term delta)
{
    if (tc_is_immed(w) || w == TC_EMPTY_TUPLE)
        return w;
    return w + delta;
}

/* copy_shallow: one linear pass; things are copied raw and skipped, except that a sub
 * binary's orig follows its counted words and so is relocated like any other pointer. */
static tc_term copy_shallow(const tc_copy_compact *c, tc_term *dst, tc_offheap *oh)
{
    const tc_term *src = c->tpl;
    tc_term delta = (tc_term)(uintptr_t)dst - (tc_term)(uintptr_t)src; /* modulo 2^64 */
    for (size_t i = 0; i < c->size;) {
        tc_term w = src[i];
        if (!tc_is_header(w)) {
            dst[i++] = relocate(w, delta);
            continue;
        }
        size_t k = tc_layout_header_step(&src[i]);
        tc_copy_object_words(&dst[i], &src[i], k);
        if (tc_header_subtag(w) == TC_SUBTAG_REFC_BINARY)
            tc_copy_adopt_proc_bin(oh, &dst[i]);
        i += k;
    }
    return relocate(c->root, delta);
}

/* *hp is NULL only when there are no words at all (c->size and extra both 0). */
static tc_result copy_out(tc_alloc *a, const tc_copy_compact *c, size_t extra, tc_term **hp)
{
    *hp = NULL;
    if (c->size == 0 && extra == 0)
        return TC_OK;
    *hp = tc_alloc_words(a, c->size + extra);
    return *hp ? TC_OK : TC_ENOMEM;
}

static void count_out(tc_copy_stats *stats, size_t words)
{
    if (stats) {
        stats->words_written += words;
        stats->passes += 1;
    }
}

tc_result tc_copy_compact_out(tc_alloc *a, const tc_copy_compact *c, tc_term *out, tc_copy_stats *stats)
{
    tc_term *hp;
    tc_result r = copy_out(a, c, 0, &hp);
    if (r != TC_OK)
        return r;
    *out = c->size ? copy_shallow(c, hp, a->offheap) : c->root;
    count_out(stats, c->size);
    return TC_OK;
}

tc_result tc_copy_compact_out_list(tc_alloc *a, const tc_copy_compact *c, tc_term *out, tc_copy_stats *stats)
{
    tc_term *hp;
    tc_result r = copy_out(a, c, TC_CONS_SIZE, &hp);
    if (r != TC_OK)
        return r;
    tc_term *cell = hp + c->size;
    cell[0] = c->size ? copy_shallow(c, hp, a->offheap) : c->root;
    cell[1] = TC_NIL;
    *out = tc_make_list(cell);
    count_out(stats, c->size + TC_CONS_SIZE);
    return TC_OK;
}
