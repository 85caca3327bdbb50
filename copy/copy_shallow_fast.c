/* PROPOSAL, not the VM: see copy_shallow_fast.h. */
#include "copy_shallow_fast.h"

#include "copy_struct_impl.h"
#include "../terms/layout.h"
#include "../terms/offheap.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TC_FAST_AVX2 1
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

/* Copies the thing at src[j] raw (adopting an off-heap member: a ProcBin, an external thing,
 * a local fun, as copy_shallow does) and returns where the walk goes on. */
static inline size_t copy_thing(const tc_term *src, tc_term *dst, size_t j, tc_offheap *oh)
{
    size_t k = tc_layout_header_step(&src[j]);
    tc_copy_object_words(&dst[j], &src[j], k);
    if (tc_offheap_is_member(&src[j])) /* from src: a fun's creator is not copied yet */
        tc_offheap_adopt(oh, &dst[j]);
    return j + k;
}

/* The whole pass one word at a time, where there is no AVX2. */
static void scalar_pass(const tc_term *src, tc_term *dst, size_t n, tc_term delta, tc_offheap *oh)
{
    for (size_t i = 0; i < n;) {
        if (stops(src[i])) {
            i = copy_thing(src, dst, i, oh);
        } else {
            dst[i] = relocate_word(src[i], delta);
            i++;
        }
    }
}

#ifdef TC_FAST_AVX2
/* relocate_word on four words. Adding 1 to the tag turns 01 and 10 into 10 and 11 and the
 * other two into 00 and 01 (the carry goes into the data bits, which are not looked at):
 * bit 1 of w + 1 says "pointer", and shifted to the sign bit it drives the blend. */
__attribute__((target("avx2"))) static inline __m256i relocate4(__m256i w, __m256i delta, __m256i empty)
{
    __m256i ptr = _mm256_slli_epi64(_mm256_add_epi64(w, _mm256_set1_epi64x(1)), 62);
    __m256i add = _mm256_castpd_si256(
        _mm256_blendv_pd(_mm256_setzero_pd(), _mm256_castsi256_pd(delta), _mm256_castsi256_pd(ptr)));
    return _mm256_add_epi64(w, _mm256_andnot_si256(_mm256_cmpeq_epi64(w, empty), add));
}

/* Nonzero in a lane whose word is a thing's header: all ones where the tag is 00, and-ed
 * with the subtag bits. */
__attribute__((target("avx2"))) static inline __m256i stops4(__m256i w)
{
    __m256i header = _mm256_cmpeq_epi64(_mm256_and_si256(w, _mm256_set1_epi64x(TC_TAG_PRIMARY_MASK)),
                                        _mm256_setzero_si256());
    return _mm256_and_si256(header, _mm256_and_si256(w, _mm256_set1_epi64x(TC_HEADER_SUBTAG_MASK)));
}

/* From src[i], eight words a step while no thing's header is among them: relocated and
 * stored. Returns the start of the first step that has one, or of the last few words. No call inside, so the constants stay in registers. */
__attribute__((target("avx2"))) static size_t vector_run(const tc_term *src, tc_term *dst, size_t i, size_t n,
                                                         tc_term delta)
{
    const __m256i vdelta = _mm256_set1_epi64x((long long)delta);
    const __m256i vempty = _mm256_set1_epi64x((long long)TC_EMPTY_TUPLE);
    for (; i + 8 <= n; i += 8) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)&src[i]);
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)&src[i + 4]);
        __m256i any = _mm256_or_si256(stops4(a), stops4(b));
        if (!_mm256_testz_si256(any, any))
            break;
        _mm256_storeu_si256((__m256i *)(void *)&dst[i], relocate4(a, vdelta, vempty));
        _mm256_storeu_si256((__m256i *)(void *)&dst[i + 4], relocate4(b, vdelta, vempty));
    }
    return i;
}
#endif

static tc_term relocate_all(const tc_copy_compact *c, tc_term *dst, tc_offheap *oh)
{
    const tc_term *src = tc_copy_compact_words(c);
    size_t n = tc_copy_compact_size(c);
    tc_term delta = (tc_term)(uintptr_t)dst - (tc_term)(uintptr_t)src; /* modulo 2^64 */
#ifdef TC_FAST_AVX2
    if (__builtin_cpu_supports("avx2")) {
        /* Vector steps up to the step with a thing, that step word by word up to the thing,
         * the thing and any that follow it (a list's floats or binaries often lie
         * together), and on with vector steps right after them. */
        for (size_t i = 0; i < n;) {
            i = vector_run(src, dst, i, n, delta);
            for (size_t end = i + 8 < n ? i + 8 : n; i < end && !stops(src[i]); i++)
                dst[i] = relocate_word(src[i], delta);
            while (i < n && stops(src[i]))
                i = copy_thing(src, dst, i, oh);
        }
        return relocate_word(tc_copy_compact_term(c), delta);
    }
#endif
    scalar_pass(src, dst, n, delta, oh);
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
