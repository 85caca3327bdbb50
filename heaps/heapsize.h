/*
 * heapsize.h — the heap-size series every heap and old heap is sized from (erts: erl_gc.c
 * erts_init_gc, heap_sizes[] and erts_next_heap_size, in R10B-2, R13B01 and OTP 25).
 *
 * fib_slow (R10B-2, heap_series HS_FIBONACCI_SLOW, the default erl_init.c sets): 34, 55,
 * Fibonacci up to index 22 (1.3 M words), then a[i] = 5·a[i-1]/4 while the previous entry
 * is below MAX_SMALL, at most 150 entries (MAX_HEAP_SIZES, 64-bit). fib_slow_floor (R13B01,
 * whose erts_init_gc keeps only this series): the same start, then a[i] = 5·(a[i-1]/4), the
 * quarter floored first (1,682,835 at index 23 where fib_slow has 1,682,836), until a
 * product turns negative or the 154 entries of MAX_HEAP_SIZES are full (64-bit: they fill
 * first, the last near 6.7·10^18). fib_plus1 (OTP 25): 12,
 * 38, then a[i-1] + a[i-2] + 1 up to index 22 (the +1 leaves room for an allocator block
 * header), then 20 % growth, ending below 2^53 bytes (erts also drops the last fitting entry;
 * so does the model).
 */
#ifndef TC_HEAPSIZE_H
#define TC_HEAPSIZE_H

#include <stdint.h>

#include "../terms/base.h"

TC_BEGIN_DECLS

/* A heap-size series (policy.heap_table). */
typedef enum tc_heap_table {
    TC_HEAP_TABLE_FIB_SLOW,       /* 34, 55, Fibonacci to index 22, then 5/4 growth (R10B-2) */
    TC_HEAP_TABLE_FIB_PLUS1,      /* 12, 38, a[i-1] + a[i-2] + 1 up to index 22, then +20 % (OTP 25) */
    TC_HEAP_TABLE_FIB_SLOW_FLOOR  /* as fib_slow, then 5·(a/4) to 154 entries (R13B01) */
} tc_heap_table;

/* Entry i of the series (0 past its end) and how many there are. */
uint64_t tc_heap_size_at(tc_heap_table t, unsigned i);
unsigned tc_heap_sizes_count(tc_heap_table t);
/* erts_next_heap_size: the smallest entry >= size, `offset` entries further up; sizes
 * below the first entry give the first entry. */
uint64_t tc_heap_next_size(tc_heap_table t, uint64_t size, unsigned offset);

TC_END_DECLS

#endif
