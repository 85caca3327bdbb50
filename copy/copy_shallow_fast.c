/* PROPOSAL, not the VM: see copy_shallow_fast.h. */
#include "copy_shallow_fast.h"
#include "copy_shallow_fast_impl.h"

#include "copy_struct_impl.h"
#include "../terms/layout.h"
#include "../terms/offheap.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TC_FAST_X86 1
#define TC_AVX2 __attribute__((target("avx2")))
#define TC_AVX512 __attribute__((target("avx512f,avx512vbmi")))
#endif

/* One stored word as copy_shallow writes it: a list or boxed word (tag 01 or 10: bit 0 and
 * bit 1 differ) moved by delta unless it is the shared {}; anything else unchanged. */
static inline tc_term relocate_word(tc_term w, tc_term delta)
{
    tc_term ptr = 0 - ((w ^ (w >> 1)) & 1);
    return w + (delta & ptr & (0 - (tc_term)(w != TC_EMPTY_TUPLE)));
}

/* A header the pass must stop at: tag 00 and a subtag other than ARITYVAL. */
static inline bool stops(tc_term w)
{
    return (w & TC_TAG_PRIMARY_MASK) == TC_TAG_PRIMARY_HEADER && (w & TC_HEADER_SUBTAG_MASK) != 0;
}

/* From src[i], a thing's header: copies that thing and the things right after it raw (a
 * list's floats or binaries lie together: copy_struct puts leaf things at the top end),
 * adopting each off-heap member (a ProcBin, an external thing, a local fun) in address order
 * as copy_shallow does. Returns the first word after them. */
static size_t copy_things(const tc_term *src, tc_term *dst, size_t i, size_t n, tc_offheap *oh)
{
    size_t from = i;
    do {
        size_t k = tc_layout_header_step(&src[i]);
        if (tc__copy_maybe_member(src[i]) && tc_offheap_is_member(&src[i])) { /* from src: a fun's creator is not copied yet */
            tc_copy_object_words(&dst[from], &src[from], i + k - from);
            tc_offheap_adopt(oh, &dst[i]);
            from = i + k;
        }
        i += k;
    } while (i < n && stops(src[i]));
    tc_copy_object_words(&dst[from], &src[from], i - from);
    return i;
}

/* Word by word from src[i] up to `end` (things that start before it are copied whole); says
 * whether it met a thing. */
static size_t scalar_span(const tc_term *src, tc_term *dst, size_t i, size_t end, size_t n, tc_term delta,
                          tc_offheap *oh, bool *seen)
{
    *seen = false;
    while (i < end) {
        if (stops(src[i])) {
            *seen = true;
            i = copy_things(src, dst, i, n, oh);
        } else {
            dst[i] = relocate_word(src[i], delta);
            i++;
        }
    }
    return i;
}

#ifdef TC_FAST_X86
/*
 * AVX2, four words a vector. The vector loop stores a group of sixteen words first and then
 * looks whether one of them was a thing's header; if so, the group is written again word by
 * word (a destination word is only ever written, never read, so the second write wins), and
 * so is every following group that has a thing in it, before the vector loop is tried again.
 */

/* relocate_word on four words. Adding 1 to the tag turns 01 and 10 into 10 and 11 and the
 * other two into 00 and 01 (the carry goes into the data bits, which are not looked at): bit
 * 1 of w + 1 says "pointer" and picks delta out of the lane's {0, delta} pair. */
TC_AVX2 static inline __m256i relocate4(__m256i w, __m256i pairs, __m256i one, __m256i empty)
{
    __m256i add = _mm256_castpd_si256(_mm256_permutevar_pd(_mm256_castsi256_pd(pairs), _mm256_add_epi64(w, one)));
    return _mm256_add_epi64(w, _mm256_andnot_si256(_mm256_cmpeq_epi64(w, empty), add));
}

/* w where its tag is 00 (a header), else 0: a thing's subtag bits survive, a tuple's are 0. */
TC_AVX2 static inline __m256i headers4(__m256i w, __m256i tag)
{
    return _mm256_and_si256(_mm256_cmpeq_epi64(_mm256_and_si256(w, tag), _mm256_setzero_si256()), w);
}

/* From src[i], groups of sixteen words while none holds a thing. Returns the start of the
 * first group that does, or of the last few words. No call inside, so the constants stay in
 * registers. */
TC_AVX2 __attribute__((noinline)) static size_t run_avx2(const tc_term *src, tc_term *dst, size_t i, size_t n,
                                                         tc_term delta)
{
    const __m256i pairs = _mm256_set_epi64x((long long)delta, 0, (long long)delta, 0);
    const __m256i one = _mm256_set1_epi64x(1), tag = _mm256_set1_epi64x(TC_TAG_PRIMARY_MASK);
    const __m256i empty = _mm256_set1_epi64x((long long)TC_EMPTY_TUPLE);
    const __m256i subtag = _mm256_set1_epi64x(TC_HEADER_SUBTAG_MASK);
    for (; n - i >= 16; i += 16) {
        __m256i seen = _mm256_setzero_si256();
        for (int g = 0; g < 16; g += 4) {
            __m256i w = _mm256_loadu_si256((const __m256i *)(const void *)&src[i + g]);
            _mm256_storeu_si256((__m256i *)(void *)&dst[i + g], relocate4(w, pairs, one, empty));
            seen = _mm256_or_si256(seen, headers4(w, tag));
        }
        if (!_mm256_testz_si256(seen, subtag))
            break;
    }
    return i;
}

static void pass_avx2(const tc_term *src, tc_term *dst, size_t n, tc_term delta, tc_offheap *oh)
{
    for (size_t i = 0; i < n;) {
        i = run_avx2(src, dst, i, n, delta);
        bool seen;
        do
            i = scalar_span(src, dst, i, n - i > 16 ? i + 16 : n, n, delta, oh, &seen);
        while (seen && i < n);
    }
}

/*
 * AVX-512 (F and VBMI), eight words a vector, the stores aligned to 64 bytes. run512 copies
 * groups of 32 words while none holds a thing's header: it stores a group, then looks the
 * low six bits (tag and subtag) of all its words up in a 64-byte table, one vpermb a vector
 * where mask compares would take two (on this kind of core the shuffle and mask units, not
 * the stores, bound the loop). A group with a thing is written again a vector at a time,
 * floats' and maps' headers copied in place there with their raw words masked; any other
 * thing, and the words up to the next 64-byte boundary, go to step512, which walks the
 * things of its vector in order.
 */

/* relocate_word on eight words: w's low three bits pick the offset out of the table (tag 01
 * and 10: delta, 00 and 11: 0), added where w is not the shared {}. */
TC_AVX512 static inline __m512i relocate8(__m512i w, __m512i table, __m512i empty, __mmask8 raw)
{
    __mmask8 add = _mm512_cmpneq_epi64_mask(w, empty) & (__mmask8)~raw;
    return _mm512_mask_add_epi64(w, add, w, _mm512_permutexvar_epi64(w, table));
}

/* The lanes whose word is a thing's header: tag 00 and a subtag bit set. */
TC_AVX512 static inline __mmask8 things8(__m512i w)
{
    __mmask8 header = _mm512_testn_epi64_mask(w, _mm512_set1_epi64(TC_TAG_PRIMARY_MASK));
    return _mm512_mask_test_epi64_mask(header, w, _mm512_set1_epi64(TC_HEADER_SUBTAG_MASK));
}

TC_AVX512 static inline __m512i offset_table(tc_term delta)
{
    long long d = (long long)delta;
    return _mm512_set_epi64(0, d, d, 0, 0, d, d, 0);
}

/* The headers among eight words that are followed by exactly one raw word (a float's; a
 * flatmap's or a HAMT head's size word), and those followed by none (a HAMT node's). */
TC_AVX512 static inline unsigned one_raw8(__m512i w, __m512i map)
{
    return _mm512_cmpeq_epi64_mask(w, _mm512_set1_epi64((long long)TC_MAKE_HEADER(1, TC_SUBTAG_FLOAT))) |
           _mm512_cmpeq_epi64_mask(map, _mm512_set1_epi64(0x100 | TC_HEADER_SUBTAG_MASK));
}
TC_AVX512 static inline unsigned no_raw8(__m512i map)
{
    return _mm512_cmpeq_epi64_mask(map, _mm512_set1_epi64(TC_HEADER_SUBTAG_MASK));
}
TC_AVX512 static inline __m512i map_bits(__m512i w)
{
    /* the map arity, the subtag and the primary tag */
    return _mm512_and_si512(w, _mm512_set1_epi64(0xFF00 | TC_HEADER_SUBTAG_MASK | TC_TAG_PRIMARY_MASK));
}

/* Where run512 hands over: src[i] copied raw first when it is the raw word of a float (or a
 * map's size word) whose header ended the last vector. */
static inline size_t finish_carry(const tc_term *src, tc_term *dst, size_t i, unsigned carry)
{
    if (carry)
        dst[i] = src[i];
    return i + carry;
}

/*
 * From src[i] (dst + i 64-byte aligned), a vector at a time while the things met are floats
 * and maps' headers (their raw words masked as they are found, so a list of floats or a
 * hashmap never leaves the loop), and in groups of 32 words after 32 words without a thing.
 * Returns at a vector with another thing, or where fewer than eight words are left. No call
 * inside, so the constants stay in registers.
 */
TC_AVX512 __attribute__((noinline)) static size_t run512(const tc_term *src, tc_term *dst, size_t i, size_t n,
                                                         tc_term delta)
{
    const __m512i table = offset_table(delta), empty = _mm512_set1_epi64((long long)TC_EMPTY_TUPLE);
    /* Byte y of the lookup table: 0x80 when y, as a word's low six bits, is a thing's header
     * (y a multiple of 4 but not 0), so bit 7 of each word's first looked-up byte says it. */
    const __m512i headers = _mm512_set_epi64(0x8000000080, 0x8000000080, 0x8000000080, 0x8000000080,
                                             0x8000000080, 0x8000000080, 0x8000000080, 0x8000000000);
    const __m512i first_bit7 = _mm512_set1_epi64(0x80);
    unsigned calm = 0, carry = 0; /* vectors in a row without a thing; lane 0 is a raw word */
    while (n - i >= 8) {
        if (calm >= 4 && n - i >= 32) {
            __m512i seen = _mm512_setzero_si512();
            for (int g = 0; g < 32; g += 8) {
                __m512i w = _mm512_loadu_si512(&src[i + g]);
                _mm512_storeu_si512(&dst[i + g], relocate8(w, table, empty, 0));
                seen = _mm512_or_si512(seen, _mm512_permutexvar_epi8(w, headers));
            }
            if (!_mm512_test_epi64_mask(seen, first_bit7)) {
                i += 32;
                continue;
            }
            calm = 0; /* and the group again, a vector at a time */
        }
        __m512i w = _mm512_loadu_si512(&src[i]);
        unsigned things = things8(w), raw = carry;
        if (things | carry) {
            /* The lane after a header with one raw word is raw, whatever it looks like, as long
             * as no such header itself sits in a raw lane (then only a walk in order can tell
             * which is which). Any other thing in a lane that is not raw: step512 copies it. */
            __m512i map = map_bits(w);
            unsigned one = one_raw8(w, map);
            raw |= (one << 1) & 0xFF;
            if ((one & raw) != 0 || (things & ~raw & ~(one | no_raw8(map))) != 0)
                return finish_carry(src, dst, i, carry); /* lane 0 first, if raw */
            carry = one >> 7;
            calm = 0;
        } else {
            calm++;
        }
        _mm512_storeu_si512(&dst[i], relocate8(w, table, empty, (__mmask8)raw));
        i += 8;
    }
    return finish_carry(src, dst, i, carry);
}

/* One vector from src[i] up to the next 64-byte boundary of dst (or n). A thing that ends
 * inside the vector is copied in place: its words after the header are kept raw by the mask,
 * and an off-heap member is adopted once they are stored. The vector stops at a thing that
 * runs past it: copy_things copies it and the things after it. */
TC_AVX512 static size_t step512(const tc_term *src, tc_term *dst, size_t i, size_t n, tc_term delta, tc_offheap *oh)
{
    unsigned lanes = 8 - (unsigned)(((uintptr_t)&dst[i] >> 3) & 7);
    if (lanes > n - i)
        lanes = (unsigned)(n - i);
    __m512i w = _mm512_maskz_loadu_epi64((__mmask8)((1u << lanes) - 1), &src[i]);
    unsigned things = things8(w) & ((1u << lanes) - 1), raw = 0, members = 0, end = lanes;
    while (things) {
        unsigned j = (unsigned)__builtin_ctz(things);
        size_t k = tc_layout_header_step(&src[i + j]);
        if (k > lanes - j) {
            end = j;
            break;
        }
        unsigned through = (1u << (j + k)) - 1;
        raw |= through & ~((2u << j) - 1);
        if (tc__copy_maybe_member(src[i + j]))
            members |= 1u << j;
        things &= ~through;
    }
    __m512i r = relocate8(w, offset_table(delta), _mm512_set1_epi64((long long)TC_EMPTY_TUPLE), (__mmask8)raw);
    _mm512_mask_storeu_epi64(&dst[i], (__mmask8)((1u << end) - 1), r);
    for (; members; members &= members - 1) {
        size_t j = i + (unsigned)__builtin_ctz(members);
        if (tc_offheap_is_member(&src[j]))
            tc_offheap_adopt(oh, &dst[j]);
    }
    i += end;
    return end < lanes ? copy_things(src, dst, i, n, oh) : i;
}

static void pass512(const tc_term *src, tc_term *dst, size_t n, tc_term delta, tc_offheap *oh)
{
    for (size_t i = 0; i < n;) {
        if (((uintptr_t)&dst[i] & 63) == 0 && (i = run512(src, dst, i, n, delta)) == n)
            break;
        i = step512(src, dst, i, n, delta, oh);
    }
}
#endif

/* TC__FAST_AUTO but in tests. */
static tc__fast_path forced;

static bool cpu_has(tc__fast_path path)
{
    switch (path) {
    case TC__FAST_SCALAR: return true;
#ifdef TC_FAST_X86
    case TC__FAST_AVX2: return __builtin_cpu_supports("avx2");
    case TC__FAST_AVX512: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vbmi");
#endif
    default: return false;
    }
}

bool tc__copy_shallow_fast_force(tc__fast_path path)
{
    if (path != TC__FAST_AUTO && !cpu_has(path))
        return false;
    forced = path;
    return true;
}

static tc__fast_path pick(void)
{
    if (forced != TC__FAST_AUTO)
        return forced;
    return cpu_has(TC__FAST_AVX512) ? TC__FAST_AVX512 : cpu_has(TC__FAST_AVX2) ? TC__FAST_AVX2 : TC__FAST_SCALAR;
}

static tc_term relocate_all(const tc_copy_compact *c, tc_term *dst, tc_offheap *oh)
{
    const tc_term *src = tc_copy_compact_words(c);
    size_t n = tc_copy_compact_size(c);
    tc_term delta = (tc_term)(uintptr_t)dst - (tc_term)(uintptr_t)src; /* modulo 2^64 */
    bool seen;
    switch (pick()) {
#ifdef TC_FAST_X86
    case TC__FAST_AVX512: pass512(src, dst, n, delta, oh); break;
    case TC__FAST_AVX2: pass_avx2(src, dst, n, delta, oh); break;
#endif
    default: scalar_span(src, dst, 0, n, n, delta, oh, &seen); break;
    }
    return relocate_word(tc_copy_compact_term(c), delta);
}

tc_result tc_copy_shallow_fast_out(tc_alloc *a, const tc_copy_compact *c, tc_term *out, tc_copy_stats *stats)
{
    return tc_copy_compact_out_via(a, c, relocate_all, false, out, stats);
}

tc_result tc_copy_shallow_fast_out_list(tc_alloc *a, const tc_copy_compact *c, tc_term *out, tc_copy_stats *stats)
{
    return tc_copy_compact_out_via(a, c, relocate_all, true, out, stats);
}

tc_result tc_copy_out_list(tc_copy_out kind, tc_alloc *a, const tc_copy_compact *c, tc_term *out,
                           tc_copy_stats *stats)
{
    return kind == TC_COPY_OUT_SHALLOW_FAST ? tc_copy_shallow_fast_out_list(a, c, out, stats)
                                            : tc_copy_compact_out_list(a, c, out, stats);
}
