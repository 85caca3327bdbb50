#include "ext_ets.h"

#include <string.h>

#include "../terms/binary.h"
#include "../terms/offheap.h"
#include "ext_impl.h"

#define PB_BYTES (TC_PROC_BIN_SIZE * TC_WORD_BYTES) /* sizeof(ProcBin) */

/* The refc binary under bitstring t and the slice's bytes as erts counts them (a partial
 * first and last byte whole); false when t is over a heap binary. */
static bool over_refc(tc_term t, tc_bits *b, size_t *bytes, bool *sub)
{
    const tc_term *p = tc_boxed_val(t);
    *sub = tc_header_subtag(p[0]) == TC_SUBTAG_SUB_BINARY;
    tc_term real = *sub ? p[TC_SB_ORIG] : t;
    if (tc_header_subtag(tc_boxed_val(real)[0]) != TC_SUBTAG_REFC_BINARY)
        return false;
    *b = tc_bitstring_get(t);
    *bytes = b->bytes + (*sub ? (b->bitoffs + b->extra_bits + 7) / 8 : 0);
    return true;
}

size_t tc__ext_ets_procbin_size(tc_term t, bool estimate)
{
    tc_bits b;
    size_t bytes;
    bool sub;
    if (!over_refc(t, &b, &bytes, &sub) || TC_HEAP_BIN_SIZE(bytes) <= TC_PROC_BIN_SIZE)
        return 0;
    /* encode_size_struct_int counts the bit bytes for any sub binary, enc_term writes them
     * for a bit-level one only */
    bool bit_bytes = sub && (estimate || b.bitoffs || b.extra_bits);
    return 1 + (bit_bytes ? 2 : 0) + PB_BYTES;
}

size_t tc__ext_ets_slice_slack(tc_term t)
{
    if (tc_boxed_subtag(t) != TC_SUBTAG_SUB_BINARY)
        return 0;
    tc_bits b = tc_bitstring_get(t);
    return (b.bitoffs + b.extra_bits + 7) / 8; /* bin_size += ..., in the DFLAG_ETS_COMPRESSED branch */
}

void tc__ext_ets_procbin_put(tc_term t, unsigned char *out, unsigned char **oh)
{
    tc_bits b = {0};
    size_t bytes = 0;
    bool sub = false;
    bool refc = over_refc(t, &b, &bytes, &sub);
    TC_ASSERT(refc);
    (void)refc;
    const tc_term *p = tc_boxed_val(t);
    const tc_term *pb = sub ? tc_boxed_val(p[TC_SB_ORIG]) : p;
    if (b.bitoffs || b.extra_bits) {
        *out++ = TC__BIT_BINARY_INTERNAL_REF;
        *out++ = (unsigned char)b.bitoffs;
        *out++ = (unsigned char)b.extra_bits;
    } else {
        *out++ = TC__BINARY_INTERNAL_REF;
    }
    tc_term img[TC_PROC_BIN_SIZE];
    memcpy(img, pb, sizeof img);
    img[TC_PB_SIZE] = bytes;
    img[TC_PB_BYTES] = (tc_term)(uintptr_t)b.data;
    img[TC_PB_NEXT] = (tc_term)(uintptr_t)*oh;
    memcpy(out, img, sizeof img);
    atomic_fetch_add(&((tc_binary *)(uintptr_t)img[TC_PB_VAL])->refc, 1);
    *oh = out;
}

tc_result tc__ext_ets_procbin_get(tc_alloc *a, unsigned tag, const unsigned char *in, size_t left, tc_term *out,
                                  size_t *used)
{
    bool bit = tag == TC__BIT_BINARY_INTERNAL_REF;
    size_t n = (bit ? 2 : 0) + PB_BYTES;
    *used = 0;
    if (left < n)
        return TC_EPARSE;
    unsigned bitoffs = bit ? in[0] : 0, bitsize = bit ? in[1] : 0;
    if (bitoffs > 7 || bitsize > 7)
        return TC_EPARSE;
    tc_term *pb = tc_alloc_words(a, TC_PROC_BIN_SIZE);
    if (!pb)
        return TC_ENOMEM;
    memcpy(pb, in + (bit ? 2 : 0), PB_BYTES);
    tc_offheap_adopt(a->offheap, pb); /* a reference, flags cleared, linked: OH_OVERHEAD */
    *out = tc_make_boxed(pb);
    *used = n;
    if (!bit)
        return TC_OK;
    size_t whole = pb[TC_PB_SIZE] - (bitoffs + bitsize + 7) / 8;
    tc_term sb = tc_term_sub_binary(a, *out, 0, whole, bitoffs, bitsize);
    if (sb == TC_NON_VALUE)
        return TC_ENOMEM; /* the ProcBin is linked: the decoder's failure path drops it */
    *out = sb;
    return TC_OK;
}

/* Drops the reference of the embedded ProcBin at p (unaligned in the stored bytes); returns
 * the next one on its list. */
static unsigned char *drop(unsigned char *p)
{
    tc_term img[TC_PROC_BIN_SIZE];
    memcpy(img, p, sizeof img);
    tc_binary_release((tc_binary *)(uintptr_t)img[TC_PB_VAL]);
    return (unsigned char *)(uintptr_t)img[TC_PB_NEXT];
}

void tc_ext_ets_release(unsigned char *first)
{
    while (first)
        first = drop(first);
}

tc_result tc_ext_ets_size(tc_term t, tc_wstack *stack, size_t *bytes)
{
    return tc__ext_ets_walk(t, stack, NULL, NULL, bytes);
}

tc_result tc_ext_ets_encode_into(tc_term t, tc_wstack *stack, unsigned char *buf, size_t cap, unsigned char **oh,
                                 size_t *len)
{
#if TC_DEBUG_LEVEL >= 2 /* the precondition, at the price of a second size pass */
    size_t size;
    TC_CHECK(tc_ext_ets_size(t, stack, &size) != TC_OK || size <= cap);
#endif
    unsigned char *before = *oh;
    tc_result r = tc__ext_ets_walk(t, stack, buf, oh, len);
    TC_ASSERT(r != TC_OK || *len <= cap);
    (void)cap;
    while (r != TC_OK && *oh != before) /* the references this call took go back */
        *oh = drop(*oh);
    return r;
}

tc_result tc_ext_ets_decode(tc_alloc *a, const unsigned char *bytes, size_t len, tc_term *out)
{
    return tc__ext_ets_decode(a, bytes, len, out);
}
