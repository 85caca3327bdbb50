#include "compact.h"

#include <limits.h>
#include <string.h>

#include "copy_struct.h"
#include "copy_struct_impl.h"
#include "../terms/binary.h"
#include "../terms/layout.h"
#include "../terms/size.h"

/* OTP 25's DbTerm header: first_oh, size, then the words. erts stores only tuples, whose root
 * is tpl itself (copy_struct puts the top tuple first); this module stores any term, and any
 * other root is kept in one word after the term's, which the size word's top bit announces. */
struct tc_copy_compact {
    tc_term *first_oh; /* the ProcBins in tpl (DbTerm.first_oh) */
    size_t size;       /* the term's words, | ROOT_KEPT */
    tc_term tpl[];
};

#define ROOT_KEPT ((size_t)1 << (sizeof(size_t) * CHAR_BIT - 1))

static size_t words_of(const tc_copy_compact *c) { return c->size & ~ROOT_KEPT; }

/* Whether t's copy_struct copy starts with t itself: a tuple with words. */
static bool root_first(tc_term t, uint64_t words)
{
    return words > 0 && tc_is_boxed(t) && tc_header_subtag(*tc_boxed_val(t)) == TC_SUBTAG_ARITYVAL;
}

/* erts_cleanup_offheap of the block's ProcBins, through an ErlOffHeap made for the call, as
 * db_store_term does with DbTerm.first_oh. */
static void release(tc_copy_compact *c)
{
    tc_offheap oh = {c->first_oh, 0, 0};
    tc_offheap_release_until(&oh, NULL);
    c->first_oh = NULL;
}

static void *block_alloc(tc_mseg *mem, size_t bytes)
{
    return mem ? tc_mseg_alloc_block(mem, bytes) : tc_mem_alloc(bytes);
}

void tc_copy_compact_discard(tc_copy_compact *c)
{
    if (c)
        release(c);
}

void tc_copy_compact_free_at(tc_mseg *mem, tc_copy_compact *c, size_t offset)
{
    if (!c)
        return;
    release(c);
    void *block = (char *)c - offset;
    if (mem)
        tc_mseg_free_block(mem, block);
    else
        tc_mem_free(block);
}

void tc_copy_compact_free(tc_copy_compact *c) { tc_copy_compact_free_at(NULL, c, 0); }

tc_result tc_copy_compact_store(tc_mseg *mem, size_t offset, size_t head, tc_term t, tc_copy_compact **slot,
                                tc_copy_stats *stats)
{
    uint64_t words;
    tc_result r = tc_term_flat_size(t, &words);
    if (r != TC_OK)
        return r;
    size_t own = offset + sizeof(tc_copy_compact), pad = head > own ? head - own : 0;
    size_t kept = root_first(t, words) ? 0 : 1, size = (size_t)words | (kept ? ROOT_KEPT : 0);
    if (words > (SIZE_MAX / 2 - own - pad) / sizeof(tc_term) - kept)
        return TC_ENOMEM;
    tc_copy_compact *c = *slot;
    if (c && c->size == size) {
        release(c); /* erts_cleanup_offheap; the block is reused */
    } else {
        char *block = block_alloc(mem, own + (words + kept) * sizeof(tc_term) + pad);
        if (!block)
            return TC_ENOMEM; /* the old object, if any, is untouched */
        c = (tc_copy_compact *)(block + offset);
        if (*slot) /* db_realloc_term: the caller's bytes move with the object */
            memcpy(block, (char *)*slot - offset, offset);
        tc_copy_compact_free_at(mem, *slot, offset);
        /* the words erts' header has and this one has not, written as erts writes them */
        memset(&c->tpl[words + kept], 0, pad);
    }
    c->size = size;
    tc_offheap oh = {NULL, 0, 0};
    tc_term root = tc_copy_struct_fill(t, c->tpl, words, &oh, NULL);
    if (kept)
        c->tpl[words] = root;
    else
        TC_CHECK(root == tc_make_boxed(c->tpl));
    c->first_oh = oh.first;
    if (stats) {
        stats->words_sized += words;
        stats->words_written += words;
        stats->passes += 2;
    }
    *slot = c;
    return TC_OK;
}

tc_result tc_copy_compact_in(tc_term t, tc_copy_compact **out, tc_copy_stats *stats)
{
    *out = NULL;
    return tc_copy_compact_store(NULL, 0, 0, t, out, stats);
}

tc_term tc_copy_compact_term(const tc_copy_compact *c)
{
    return c->size & ROOT_KEPT ? c->tpl[words_of(c)] : tc_make_boxed(c->tpl);
}

size_t tc_copy_compact_size(const tc_copy_compact *c) { return words_of(c); }
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
    /* An immediate is stored as it is, on the fall-through: one taken branch a word (the
     * loop's), as copy_shallow_x's switch compiles, not three. The size is read once: a
     * word stored may alias it. */
    for (size_t i = 0, n = words_of(c); i < n;) {
        tc_term w = src[i];
        if (TC_LIKELY(tc_is_immed(w))) {
            dst[i++] = w;
            continue;
        }
        if (!tc_is_header(w)) {
            dst[i++] = relocate(w, delta);
            continue;
        }
        if (tc_header_subtag(w) == TC_SUBTAG_ARITYVAL) { /* its elements are the next words */
            dst[i++] = w;
            continue;
        }
        size_t k = tc_layout_header_step(&src[i]);
        tc_copy_object_words(&dst[i], &src[i], k);
        /* from src: a fun's creator is not copied yet */
        if (tc__copy_maybe_member(w) && tc_offheap_is_member(&src[i]))
            tc_offheap_adopt(oh, &dst[i]);
        i += k;
    }
    return relocate(tc_copy_compact_term(c), delta);
}

tc_result tc_copy_compact_out_via(tc_alloc *a, const tc_copy_compact *c, tc_copy_compact_relocator pass,
                                  bool as_list, tc_term *out, tc_copy_stats *stats)
{
    size_t size = words_of(c), words = size + (as_list ? TC_CONS_SIZE : 0);
    tc_term obj = tc_copy_compact_term(c);
    if (words) {
        tc_term *hp = tc_alloc_words(a, words);
        if (!hp)
            return TC_ENOMEM;
        if (size)
            obj = pass(c, hp, a->offheap);
        if (as_list) {
            tc_term *cell = hp + size;
            cell[0] = obj;
            cell[1] = TC_NIL;
            obj = tc_make_list(cell);
        }
    }
    *out = obj;
    if (stats) {
        stats->words_written += words;
        stats->passes += 1;
    }
    return TC_OK;
}

tc_result tc_copy_compact_out(tc_alloc *a, const tc_copy_compact *c, tc_term *out, tc_copy_stats *stats)
{
    return tc_copy_compact_out_via(a, c, copy_shallow, false, out, stats);
}

tc_result tc_copy_compact_out_list(tc_alloc *a, const tc_copy_compact *c, tc_term *out, tc_copy_stats *stats)
{
    return tc_copy_compact_out_via(a, c, copy_shallow, true, out, stats);
}
