#include "literal.h"

#include "copy_shared.h"
#include "../terms/binary.h"
#include "../terms/compare.h"

struct tc_copy_literal_area {
    tc_alloc iface; /* first, so the interface pointer is the area */
    tc_offheap offheap;
    tc_term *start, *top, *end;
    tc_term *entries; /* the stored {Key, Value} tuples */
    size_t n, cap;
};

static tc_term *area_alloc(tc_alloc *self, size_t words)
{
    tc_copy_literal_area *la = (tc_copy_literal_area *)self;
    if ((size_t)(la->end - la->top) < words)
        return NULL;
    tc_term *p = la->top;
    la->top += words;
    return p;
}

tc_copy_literal_area *tc_copy_literal_area_new(size_t words)
{
    if (words == 0 || words > SIZE_MAX / sizeof(tc_term))
        return NULL;
    tc_copy_literal_area *la = tc_mem_calloc(1, sizeof *la);
    if (!la)
        return NULL;
    la->start = tc_mem_alloc(words * sizeof(tc_term));
    if (!la->start) {
        tc_mem_free(la);
        return NULL;
    }
    la->top = la->start;
    la->end = la->start + words;
    la->iface.alloc = area_alloc;
    la->iface.offheap = &la->offheap;
    return la;
}

void tc_copy_literal_area_free(tc_copy_literal_area *la)
{
    if (!la)
        return;
    tc_offheap_release_until(&la->offheap, NULL);
    tc_mem_free(la->entries);
    tc_mem_free(la->start);
    tc_mem_free(la);
}

/* The index of `key`'s entry, or la->n when absent. */
static tc_result find(const tc_copy_literal_area *la, tc_term key, size_t *index)
{
    for (size_t i = 0; i < la->n; i++) {
        tc_term k = tc_tuple_element(la->entries[i], 1);
        bool eq = k == key;
        if (!eq && !tc_is_immed(k) && !tc_is_immed(key)) {
            tc_result r = tc_term_equal(k, key, &eq);
            if (r != TC_OK)
                return r;
        }
        if (eq) {
            *index = i;
            return TC_OK;
        }
    }
    *index = la->n;
    return TC_OK;
}

tc_result tc_copy_literal_put(tc_copy_literal_area *la, tc_term key, tc_term value, tc_copy_stats *stats)
{
    size_t i;
    tc_result r = find(la, key, &i);
    if (r != TC_OK)
        return r;
    if (i == la->n && la->n == la->cap) {
        size_t cap = la->cap ? 2 * la->cap : 16;
        tc_term *e = tc_mem_realloc(la->entries, cap * sizeof *e);
        if (!e)
            return TC_ENOMEM;
        la->entries = e;
        la->cap = cap;
    }
    /* {Key, Value} is built in writable scratch words: the shared copy marks its source. */
    tc_term pair[3] = {TC_MAKE_HEADER(2, TC_SUBTAG_ARITYVAL), key, value};
    tc_term stored;
    r = tc_copy_shared(&la->iface, tc_make_boxed(pair), &stored, stats);
    if (r != TC_OK)
        return r;
    la->entries[i] = stored;
    if (i == la->n)
        la->n++;
    return TC_OK;
}

tc_result tc_copy_literal_get(const tc_copy_literal_area *la, tc_term key, tc_term *value)
{
    size_t i;
    tc_result r = find(la, key, &i);
    if (r != TC_OK)
        return r;
    if (i == la->n)
        return TC_EBADARG;
    *value = tc_tuple_element(la->entries[i], 2);
    return TC_OK;
}

bool tc_copy_literal_contains(const tc_copy_literal_area *la, const void *p)
{
    return (const tc_term *)p >= la->start && (const tc_term *)p < la->end;
}

tc_copy_literals tc_copy_literal_range(const tc_copy_literal_area *la)
{
    tc_copy_literals r = {la->start, la->end};
    return r;
}
