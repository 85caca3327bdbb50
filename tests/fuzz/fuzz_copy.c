/*
 * libFuzzer target: any bytes decoded with binary_to_term, then moved by every copy
 * strategy. Seeds: the golden vectors' ext_hex. Each copy must verify (tc_term_verify, or
 * tc_heap_verify on a process), equal the decoded term and have its size: copy_struct
 * (flat size), the ETS compact form in and out (also as [Object]), the sharing-preserving
 * copy (shared size; the source unchanged), a literal area's put and get, the memcpy floor
 * of the compact words (the same words), and a send between two processes on each era's
 * path (the first input byte picks whether the modern receiver is busy). The proposal
 * copy_shallow_fast, by each of its passes this CPU has and at the destination alignment the
 * input's length picks, writes exactly copy_shallow's words.
 */
#include <string.h>

#include "codec/verify.h"
#include "copy/compact.h"
#include "copy/copy_shallow_fast.h"
#include "copy/copy_shallow_fast_impl.h"
#include "copy/copy_shared.h"
#include "copy/copy_struct.h"
#include "codec/ext.h"
#include "copy/literal.h"
#include "copy/memcpy_floor.h"
#include "heaps/send.h"
#include "heaps/verify.h"
#include "terms/arena.h"
#include "terms/compare.h"
#include "terms/offheap.h"
#include "terms/size.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_copy(tc_term orig, tc_term copy)
{
    bool eq;
    TC_CHECK(tc_term_verify(copy, NULL));
    TC_CHECK(tc_term_equal(orig, copy, &eq) == TC_OK && eq);
}

static void check_send(tc_term t, const char *era, bool busy)
{
    tc_policy pol;
    TC_CHECK(tc_policy_preset(era, &pol) == TC_OK);
    tc_mseg *mem = tc_mseg_new(&pol.mem);
    tc_proc *from, *to;
    TC_CHECK(mem && tc_proc_new(mem, &pol, &from) == TC_OK && tc_proc_new(mem, &pol, &to) == TC_OK);
    tc_term msg, got;
    TC_CHECK(tc_copy_struct(tc_proc_alloc(from), t, NULL, &msg, NULL) == TC_OK);
    tc_proc_x(from)[0] = msg;
    tc_proc_set_arity(from, 1);
    TC_CHECK(tc_send(from, to, msg, busy, NULL) == TC_OK);
    TC_CHECK(tc_heap_verify(from, NULL) && tc_heap_verify(to, NULL));
    TC_CHECK(tc_proc_receive(to, &got));
    tc_proc_x(to)[0] = got;
    tc_proc_set_arity(to, 1);
    TC_CHECK(tc_heap_verify(to, NULL));
    check_copy(t, got);
    tc_proc_free(from);
    tc_proc_free(to);
    tc_mseg_free(mem);
}

/* One block handed out whole to every copy-out, so that their words can be compared. */
typedef struct block {
    tc_alloc iface; /* first: the interface pointer is the block */
    tc_offheap offheap;
    tc_term *words;
    size_t cap;
} block;

static tc_term *block_alloc(tc_alloc *self, size_t words)
{
    block *b = (block *)self;
    return words <= b->cap ? b->words : NULL;
}

/* copy_shallow_fast, by each pass this CPU has, into the same words `skip` words past a
 * 64-byte boundary (the AVX-512 pass's vectors follow the destination's alignment): the same
 * words, root and off-heap list as copy_shallow. */
static void check_shallow_fast(const tc_copy_compact *cc, size_t flat, unsigned skip)
{
    static const tc__fast_path paths[] = {TC__FAST_SCALAR, TC__FAST_AVX2, TC__FAST_AVX512};
    block b = {.iface = {block_alloc, NULL, NULL}, .cap = flat};
    b.iface.offheap = &b.offheap;
    tc_term *mem = tc_mem_alloc((flat + 16) * sizeof(tc_term));
    tc_term *want = tc_mem_alloc((flat ? flat : 1) * sizeof(tc_term)), slow, fast;
    TC_CHECK(mem && want);
    b.words = (tc_term *)(((uintptr_t)mem + 63) & ~(uintptr_t)63) + skip;
    TC_CHECK(tc_copy_compact_out(&b.iface, cc, &slow, NULL) == TC_OK);
    memcpy(want, b.words, flat * sizeof(tc_term));
    tc_term *first = b.offheap.first;
    tc_offheap_release_until(&b.offheap, NULL);
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        if (!tc__copy_shallow_fast_force(paths[p]))
            continue;
        memset(b.words, 0xA5, flat * sizeof(tc_term)); /* a word it failed to write would show */
        TC_CHECK(tc_copy_shallow_fast_out(&b.iface, cc, &fast, NULL) == TC_OK);
        TC_CHECK(fast == slow && b.offheap.first == first);
        TC_CHECK(flat == 0 || memcmp(want, b.words, flat * sizeof(tc_term)) == 0);
        tc_offheap_release_until(&b.offheap, NULL);
    }
    TC_CHECK(tc__copy_shallow_fast_force(TC__FAST_AUTO));
    tc_mem_free(want);
    tc_mem_free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return 0;
    tc_alloc *a = tc_arena_alloc(arena);
    tc_term t, before, c;
    if (tc_ext_decode(a, data, size, &t, NULL) != TC_OK ||
        tc_ext_decode(a, data, size, &before, NULL) != TC_OK) {
        tc_arena_free(arena);
        return 0;
    }
    uint64_t flat, shared, got;
    TC_CHECK(tc_term_flat_size(t, &flat) == TC_OK && tc_term_shared_copy_size(t, &shared) == TC_OK);

    size_t used = tc_arena_used_words(arena);
    TC_CHECK(tc_copy_struct(a, t, NULL, &c, NULL) == TC_OK);
    check_copy(t, c);
    TC_CHECK(tc_arena_used_words(arena) - used == flat);

    tc_copy_compact *cc;
    TC_CHECK(tc_copy_compact_in(t, &cc, NULL) == TC_OK);
    TC_CHECK(tc_copy_compact_size(cc) == flat);
    check_copy(t, tc_copy_compact_term(cc));
    TC_CHECK(tc_copy_compact_out(a, cc, &c, NULL) == TC_OK);
    check_copy(t, c);
    TC_CHECK(tc_copy_compact_out_list(a, cc, &c, NULL) == TC_OK);
    TC_CHECK(tc_is_list(c) && tc_cdr(c) == TC_NIL);
    check_copy(t, tc_car(c));
    check_shallow_fast(cc, flat, (unsigned)(size & 7)); /* the alignment from the input */
    tc_term *raw;
    TC_CHECK(tc_copy_memcpy_floor(a, tc_copy_compact_words(cc), flat, &raw, NULL) == TC_OK);
    TC_CHECK(flat == 0 || memcmp(raw, tc_copy_compact_words(cc), flat * sizeof *raw) == 0);
    tc_copy_compact_free(cc);

    TC_CHECK(tc_copy_shared(a, t, &c, NULL) == TC_OK);
    check_copy(t, c);
    TC_CHECK(tc_term_shared_copy_size(c, &got) == TC_OK && got == shared);
    check_copy(before, t);

    tc_copy_literal_area *la = tc_copy_literal_area_new(2 * shared + 64);
    TC_CHECK(la != NULL);
    TC_CHECK(tc_copy_literal_put(la, tc_make_small(1), t, NULL) == TC_OK);
    TC_CHECK(tc_copy_literal_get(la, tc_make_small(1), &c) == TC_OK);
    check_copy(t, c);
    check_copy(before, t);
    tc_copy_literal_area_free(la);

    bool busy = size > 0 && (data[0] & 1);
    check_send(t, "r10b", busy); /* its policy sends direct */
    check_send(t, "otp25", busy); /* heap or fragment */
    tc_arena_free(arena);
    return 0;
}
