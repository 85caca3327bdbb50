/*
 * arena.h — a plain growable region of heap words for terms that belong to no process.
 *
 * Models no erts allocator: it is where the reader, the tools and the tests build terms
 * before process heaps exist to hold them. Words are never moved (new blocks are chained),
 * so terms stay valid until the arena is freed. It owns an off-heap list: freeing or
 * rolling back drops its references to refc binaries.
 */
#ifndef TC_ARENA_H
#define TC_ARENA_H

#include "term.h"

TC_BEGIN_DECLS

typedef struct tc_arena tc_arena;

/* NULL when out of memory. `block_words` 0 picks a default. */
tc_arena *tc_arena_new(size_t block_words) TC_MUST_CHECK;
void tc_arena_free(tc_arena *a);
/* The allocator interface to pass to constructors. */
tc_alloc *tc_arena_alloc(tc_arena *a);
/* Words handed out so far (what the terms in it occupy, gaps at block ends excluded). */
size_t tc_arena_used_words(const tc_arena *a);

/* A point to return to: everything allocated after it is given back by rollback. */
typedef struct tc_arena_mark {
    void *block;
    size_t top;
    size_t used;
    tc_term *offheap_first;
    uint64_t offheap_overhead, offheap_vheap;
} tc_arena_mark;

tc_arena_mark tc_arena_get_mark(const tc_arena *a);
void tc_arena_rollback(tc_arena *a, tc_arena_mark m);

TC_END_DECLS

#endif
