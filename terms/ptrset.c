#include "ptrset.h"

void tc_ptrset_init(tc_ptrset *s)
{
    s->slots = NULL;
    s->cap = 0;
    s->n = 0;
}

void tc_ptrset_destroy(tc_ptrset *s)
{
    tc_mem_free(s->slots);
    tc_ptrset_init(s);
}

static size_t slot_of(const void *p, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)p * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 17) & (cap - 1);
}

int tc_ptrset_add(tc_ptrset *s, const void *p)
{
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        const void **slots = tc_mem_calloc(cap, sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slots[i])
                continue;
            size_t j = slot_of(s->slots[i], cap);
            while (slots[j])
                j = (j + 1) & (cap - 1);
            slots[j] = s->slots[i];
        }
        tc_mem_free(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    size_t j = slot_of(p, s->cap);
    while (s->slots[j]) {
        if (s->slots[j] == p)
            return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->slots[j] = p;
    s->n++;
    return 1;
}
