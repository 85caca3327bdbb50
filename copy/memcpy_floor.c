#include "memcpy_floor.h"

tc_result tc_copy_memcpy_floor(tc_alloc *a, const tc_term *src, size_t words, tc_term **out, tc_copy_stats *stats)
{
    tc_term *dst = NULL;
    if (words) {
        dst = tc_alloc_words(a, words);
        if (!dst)
            return TC_ENOMEM;
        memcpy(dst, src, words * sizeof *dst);
    }
    *out = dst;
    if (stats) {
        stats->words_written += words;
        stats->passes += 1;
    }
    return TC_OK;
}
