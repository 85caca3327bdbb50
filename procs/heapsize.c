#include "heapsize.h"

#include "../terms/term.h"

/* MAX_HEAP_SIZES on 64-bit builds: 150 in R10B-2's erl_gc.c, 154 in OTP 25's. */
#define TABLE_MAX 154

static unsigned fill_table(tc_heap_table t, uint64_t a[TABLE_MAX])
{
    unsigned i;
    if (t == TC_HEAP_TABLE_R10B) {
        /* HS_FIBONACCI_SLOW, R10B-2's default (erl_init.c): Fibonacci to index 22, then 5/4. */
        a[0] = 34;
        a[1] = 55;
        for (i = 2; i < 23; i++)
            a[i] = a[i - 1] + a[i - 2];
        for (; i < 150 && a[i - 1] < (uint64_t)TC_MAX_SMALL; i++)
            a[i] = 5 * a[i - 1] / 4;
        return i;
    }
    a[0] = 12;
    a[1] = 38;
    for (i = 2; i < 23; i++)
        a[i] = a[i - 1] + a[i - 2] + 1; /* the +1 leaves room for an allocator block header */
    const uint64_t max_words = (UINT64_C(1) << 53) / sizeof(tc_term);
    for (; i < TABLE_MAX; i++) {
        a[i] = a[i - 1] + a[i - 1] / 5;
        if (a[i] > max_words) {
            i--; /* erts drops the last fitting entry too; kept for fidelity */
            break;
        }
    }
    return i;
}

uint64_t tc_heap_size_at(tc_heap_table t, unsigned i)
{
    uint64_t a[TABLE_MAX];
    return i < fill_table(t, a) ? a[i] : 0;
}

unsigned tc_heap_sizes_count(tc_heap_table t)
{
    uint64_t a[TABLE_MAX];
    return fill_table(t, a);
}

uint64_t tc_heap_next_size(tc_heap_table t, uint64_t size, unsigned offset)
{
    uint64_t a[TABLE_MAX];
    unsigned n = fill_table(t, a);
    if (size < a[0])
        return a[0];
    for (unsigned i = 0; i < n; i++)
        if (a[i] >= size)
            return i + offset < n ? a[i + offset] : a[n - 1];
    return a[n - 1];
}
