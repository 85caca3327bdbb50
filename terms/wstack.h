/*
 * wstack.h — the explicit word stack every term walk uses instead of C recursion
 * (erts: ESTACK/WSTACK in global.h). It starts in a small inline buffer and doubles on the
 * heap through the failable allocator, so a 1,000,000-element list or a 100,000-deep
 * tuple never touches the C stack and running out of memory is a result.
 */
#ifndef TC_WSTACK_H
#define TC_WSTACK_H

#include "term.h"

TC_BEGIN_DECLS

#define TC_WSTACK_INLINE 32

typedef struct tc_wstack {
    tc_term *base;
    size_t n, cap;
    tc_term inline_buf[TC_WSTACK_INLINE];
} tc_wstack;

/* The stack must not move between init and destroy (base may point into it).
 * A pointer to word i is written `s->base + i`: cppcheck 2.10 reads `&s->base[i]` of a stack
 * that starts in inline_buf as the address of the variable `base` itself, and then reports
 * every further index through that pointer (objectIndex). */
static inline void tc_wstack_init(tc_wstack *s)
{
    s->base = s->inline_buf;
    s->n = 0;
    s->cap = TC_WSTACK_INLINE;
}

static inline void tc_wstack_destroy(tc_wstack *s)
{
    if (s->base != s->inline_buf)
        tc_mem_free(s->base);
}

/* Makes room for `k` more words; false when out of memory. */
static inline bool tc_wstack_reserve(tc_wstack *s, size_t k)
{
    if (s->cap - s->n >= k)
        return true;
    size_t cap = s->cap;
    while (cap - s->n < k) {
        if (cap > SIZE_MAX / 2 / sizeof(tc_term))
            return false;
        cap *= 2;
    }
    tc_term *b;
    if (s->base == s->inline_buf) {
        b = tc_mem_alloc(cap * sizeof *b);
        if (b)
            memcpy(b, s->base, s->n * sizeof *b);
    } else {
        b = tc_mem_realloc(s->base, cap * sizeof *b);
    }
    if (!b)
        return false;
    s->base = b;
    s->cap = cap;
    return true;
}

static inline bool tc_wstack_push(tc_wstack *s, tc_term v)
{
    if (s->n == s->cap && !tc_wstack_reserve(s, 1))
        return false;
    s->base[s->n++] = v;
    return true;
}

static inline bool tc_wstack_empty(const tc_wstack *s) { return s->n == 0; }
static inline tc_term tc_wstack_pop(tc_wstack *s) { return s->base[--s->n]; }

TC_END_DECLS

#endif
