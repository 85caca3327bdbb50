#include "binary.h"

#include <string.h>

tc_term tc_term_heap_binary(tc_alloc *a, const unsigned char *data, size_t bytes)
{
    TC_ASSERT(bytes <= TC_HEAP_BIN_LIMIT);
    size_t words = TC_HEAP_BIN_SIZE(bytes);
    tc_term *p = tc_alloc_words(a, words);
    if (!p)
        return TC_NON_VALUE;
    p[0] = TC_MAKE_HEADER(words - 1, TC_SUBTAG_HEAP_BINARY);
    p[1] = bytes;
    p[words - 1] = 0; /* padding after the last byte is zero, so equal binaries are equal words */
    if (bytes)
        memcpy(&p[2], data, bytes);
    return tc_make_boxed(p);
}

void tc_offheap_link(tc_offheap *oh, tc_term *pb)
{
    pb[TC_PB_NEXT] = (tc_term)(uintptr_t)oh->first;
    oh->first = pb;
    oh->overhead += pb[TC_PB_SIZE];
    oh->vheap += pb[TC_PB_SIZE] / sizeof(tc_term);
}

tc_term tc_term_refc_binary(tc_alloc *a, const unsigned char *data, size_t bytes)
{
    if (bytes > SIZE_MAX - sizeof(tc_binary))
        return TC_NON_VALUE;
    tc_binary *bin = tc_mem_alloc(sizeof(tc_binary) + bytes);
    if (!bin)
        return TC_NON_VALUE;
    tc_term *p = tc_alloc_words(a, TC_PROC_BIN_SIZE);
    if (!p) {
        tc_mem_free(bin);
        return TC_NON_VALUE;
    }
    atomic_init(&bin->refc, 1);
    bin->orig_size = bytes;
    if (bytes)
        memcpy(bin->orig_bytes, data, bytes);
    p[TC_PB_HEADER] = TC_PROC_BIN_HEADER;
    p[TC_PB_SIZE] = bytes;
    p[TC_PB_VAL] = (tc_term)(uintptr_t)bin;
    p[TC_PB_BYTES] = (tc_term)(uintptr_t)bin->orig_bytes;
    p[TC_PB_FLAGS] = 0;
    tc_offheap_link(a->offheap, p);
    return tc_make_boxed(p);
}

tc_term tc_term_sub_binary(tc_alloc *a, tc_term orig, size_t offs, size_t bytes, unsigned bitoffs,
                           unsigned extra_bits)
{
    TC_ASSERT(bitoffs < 8 && extra_bits < 8);
    tc_term *p = tc_alloc_words(a, TC_SUB_BIN_SIZE);
    if (!p)
        return TC_NON_VALUE;
    p[TC_SB_HEADER] = TC_SUB_BIN_HEADER;
    p[TC_SB_SIZE] = bytes;
    p[TC_SB_OFFS] = offs;
    p[TC_SB_BITS] = (tc_term)extra_bits | ((tc_term)bitoffs << 8);
    p[TC_SB_ORIG] = orig;
    return tc_make_boxed(p);
}

tc_term tc_term_bitstring(tc_alloc *a, const unsigned char *data, size_t bytes, unsigned extra_bits)
{
    TC_ASSERT(extra_bits < 8);
    size_t stored = bytes + (extra_bits ? 1 : 0);
    tc_term real;
    if (stored <= TC_HEAP_BIN_LIMIT) {
        real = tc_term_heap_binary(a, data, stored);
    } else {
        real = tc_term_refc_binary(a, data, stored);
    }
    if (real == TC_NON_VALUE || extra_bits == 0)
        return real;
    /* Bits below the bitstring's end are zero in the canonical form. */
    unsigned char *last = (unsigned char *)tc_bitstring_get(real).data + bytes;
    *last &= (unsigned char)(0xFF00u >> extra_bits);
    return tc_term_sub_binary(a, real, 0, bytes, 0, extra_bits);
}

tc_term tc_bitstring_real(tc_term t)
{
    return tc_boxed_subtag(t) == TC_SUBTAG_SUB_BINARY ? tc_boxed_val(t)[TC_SB_ORIG] : t;
}

/* Recursion depth 1: a sub binary's orig is a heap binary or a ProcBin, never a sub binary. */
tc_bits tc_bitstring_get(tc_term t) /* NOLINT(misc-no-recursion): depth 1, see above */
{
    tc_bits b = {0};
    tc_term *p = tc_boxed_val(t);
    switch (tc_header_subtag(p[0])) {
    case TC_SUBTAG_HEAP_BINARY:
        b.data = (const unsigned char *)&p[2];
        b.bytes = p[1];
        break;
    case TC_SUBTAG_REFC_BINARY:
        b.data = (const unsigned char *)(uintptr_t)p[TC_PB_BYTES];
        b.bytes = p[TC_PB_SIZE];
        break;
    case TC_SUBTAG_SUB_BINARY: {
        tc_bits r = tc_bitstring_get(p[TC_SB_ORIG]);
        b.data = r.data + p[TC_SB_OFFS];
        b.bytes = p[TC_SB_SIZE];
        b.extra_bits = (unsigned)(p[TC_SB_BITS] & 0xFF);
        b.bitoffs = (unsigned)((p[TC_SB_BITS] >> 8) & 0xFF);
        break;
    }
    default:
        TC_CHECK(!"not a bitstring");
    }
    return b;
}

unsigned tc_bits_bit(const tc_bits *b, size_t i)
{
    size_t bit = i + b->bitoffs;
    return (b->data[bit >> 3] >> (7 - (bit & 7))) & 1u;
}

unsigned tc_bits_byte(const tc_bits *b, size_t i)
{
    if (b->bitoffs == 0)
        return b->data[i];
    return ((unsigned)(b->data[i] << b->bitoffs) | (b->data[i + 1] >> (8 - b->bitoffs))) & 0xFFu;
}

void tc_binary_release(tc_binary *bin)
{
    if (atomic_fetch_sub(&bin->refc, 1) == 1)
        tc_mem_free(bin);
}

void tc_offheap_abandon_until(tc_offheap *oh, tc_term *stop)
{
    for (tc_term *pb = oh->first; pb && pb != stop;) {
        tc_term *next = (tc_term *)(uintptr_t)pb[TC_PB_NEXT];
        oh->overhead -= pb[TC_PB_SIZE];
        oh->vheap -= pb[TC_PB_SIZE] / sizeof(tc_term); /* linked by the failed operation itself */
        tc_binary_release((tc_binary *)(uintptr_t)pb[TC_PB_VAL]);
        /* A tuple of as many words, all [], in its place: garbage that walks and verifiers
         * step over, where a ProcBin left off its list would be a broken heap. */
        pb[0] = TC_MAKE_HEADER(TC_PROC_BIN_SIZE - 1, TC_SUBTAG_ARITYVAL);
        for (unsigned i = 1; i < TC_PROC_BIN_SIZE; i++)
            pb[i] = TC_NIL;
        pb = next;
    }
    oh->first = stop;
}

void tc_offheap_release_until(tc_offheap *oh, tc_term *stop)
{
    tc_term *pb = oh->first;
    while (pb && pb != stop) {
        tc_term *next = (tc_term *)(uintptr_t)pb[TC_PB_NEXT];
        oh->overhead -= pb[TC_PB_SIZE];
        tc_binary_release((tc_binary *)(uintptr_t)pb[TC_PB_VAL]);
        pb = next;
    }
    oh->first = stop;
}
