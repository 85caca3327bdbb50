#include "heapsize.h"

#include <stdbool.h>

#include "../terms/term.h"

/* MAX_HEAP_SIZES on 64-bit builds: 150 in R10B-2's erl_gc.c, 154 in R13B01's and OTP 25's. */
#define TABLE_MAX 154

/* The series into a[], stopping once it holds `offset` entries past the first one >= upto
 * (UINT64_MAX: the whole series). Every GC asks for several sizes, so tc_heap_next_size
 * stops early rather than computing all 154 entries each time. */
static unsigned fill_table(tc_heap_table t, uint64_t a[TABLE_MAX], uint64_t upto, unsigned offset)
{
    unsigned i, past = 0;
    bool slow = t != TC_HEAP_TABLE_FIB_PLUS1;
    const uint64_t max_words = (UINT64_C(1) << 53) / sizeof(tc_term);
    a[0] = slow ? 34 : 12;
    a[1] = slow ? 55 : 38;
    for (i = 2; i < TABLE_MAX; i++) {
        if (a[i - 1] >= upto && ++past > offset)
            break;
        if (i < 23) {
            /* fib_plus1: the +1 leaves room for an allocator block header */
            a[i] = a[i - 1] + a[i - 2] + (slow ? 0 : 1);
        } else if (t == TC_HEAP_TABLE_FIB_SLOW_FLOOR) {
            /* R13B01 erts_init_gc: 5*(a/4) in a Sint; one that turns negative is dropped with
             * the entry before it (`i--; break`), though the 64-bit table is full first */
            if (a[i - 1] / 4 > (uint64_t)INT64_MAX / 5) {
                i--;
                break;
            }
            a[i] = 5 * (a[i - 1] / 4);
        } else if (slow) {
            /* HS_FIBONACCI_SLOW, R10B-2's default (erl_init.c): 5/4 past index 22, while the
             * previous entry is below MAX_SMALL, at most 150 entries */
            if (i >= 150 || a[i - 1] >= (uint64_t)TC_MAX_SMALL)
                break;
            a[i] = 5 * a[i - 1] / 4;
        } else {
            a[i] = a[i - 1] + a[i - 1] / 5;
            if (a[i] > max_words) {
                i--; /* erts drops the last fitting entry too; kept for fidelity */
                break;
            }
        }
    }
    return i;
}

uint64_t tc_heap_size_at(tc_heap_table t, unsigned i)
{
    uint64_t a[TABLE_MAX];
    return i < fill_table(t, a, UINT64_MAX, 0) ? a[i] : 0;
}

unsigned tc_heap_sizes_count(tc_heap_table t)
{
    uint64_t a[TABLE_MAX];
    return fill_table(t, a, UINT64_MAX, 0);
}

uint64_t tc_heap_next_size(tc_heap_table t, uint64_t size, unsigned offset)
{
    uint64_t a[TABLE_MAX];
    unsigned n = fill_table(t, a, size, offset);
    if (size < a[0])
        return a[0];
    for (unsigned i = 0; i < n; i++)
        if (a[i] >= size)
            return i + offset < n ? a[i + offset] : a[n - 1];
    return a[n - 1];
}
