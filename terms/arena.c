#include "arena.h"

#include "binary.h"

typedef struct block {
    struct block *prev;
    size_t words;
    tc_term data[];
} block;

struct tc_arena {
    tc_alloc iface; /* first, so the interface pointer is the arena */
    tc_offheap offheap;
    block *cur;
    size_t top; /* words used in cur */
    size_t used;
    size_t block_words;
};

static tc_term *arena_alloc(tc_alloc *self, size_t words)
{
    tc_arena *a = (tc_arena *)self;
    if (!a->cur || a->cur->words - a->top < words) {
        size_t n = words > a->block_words ? words : a->block_words;
        if (n > (SIZE_MAX - sizeof(block)) / sizeof(tc_term))
            return NULL;
        block *b = tc_mem_alloc(sizeof(block) + n * sizeof(tc_term));
        if (!b)
            return NULL;
        b->prev = a->cur;
        b->words = n;
        a->cur = b;
        a->top = 0;
    }
    tc_term *p = &a->cur->data[a->top];
    a->top += words;
    a->used += words;
    return p;
}

/* HRelease on an arena: the tail of its last allocation goes back to the current block. */
static void arena_release(tc_alloc *self, tc_term *end, tc_term *used)
{
    tc_arena *a = (tc_arena *)self;
    if (a->cur && end == &a->cur->data[a->top] && used >= a->cur->data && used < end) {
        size_t back = (size_t)(end - used);
        a->top -= back;
        a->used -= back;
    }
}

tc_arena *tc_arena_new(size_t block_words)
{
    tc_arena *a = tc_mem_calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->iface.alloc = arena_alloc;
    a->iface.release = arena_release;
    a->iface.offheap = &a->offheap;
    a->block_words = block_words ? block_words : 4096;
    return a;
}

tc_alloc *tc_arena_alloc(tc_arena *a) { return &a->iface; }
size_t tc_arena_used_words(const tc_arena *a) { return a->used; }

tc_arena_mark tc_arena_get_mark(const tc_arena *a)
{
    tc_arena_mark m = {a->cur, a->top, a->used, a->offheap.first, a->offheap.overhead, a->offheap.vheap};
    return m;
}

void tc_arena_rollback(tc_arena *a, tc_arena_mark m)
{
    tc_offheap_release_until(&a->offheap, m.offheap_first);
    a->offheap.overhead = m.offheap_overhead;
    a->offheap.vheap = m.offheap_vheap;
    while (a->cur != m.block) {
        block *b = a->cur;
        a->cur = b->prev;
        tc_mem_free(b);
    }
    a->top = m.top;
    a->used = m.used;
}

void tc_arena_free(tc_arena *a)
{
    if (!a)
        return;
    tc_arena_mark empty = {0};
    tc_arena_rollback(a, empty);
    tc_mem_free(a);
}
