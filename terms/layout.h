/*
 * layout.h — how objects lie in memory: the words of a boxed object, how far a walk steps
 * from a header, and the pointer of a list or boxed word (erts: the header_arity /
 * thing_arityval arithmetic of erl_term.h and the scan loops of erl_gc.c, copy.c and
 * erl_debug.c, which all step over an area the same way).
 *
 * An area (a heap, a fragment, a stored object) is a sequence of cons cells and boxed
 * objects. Walked word by word, a header is followed by words that are not terms, except a
 * tuple's elements, a flatmap's keys tuple and values, a HAMT node's children, a sub
 * binary's last word (orig), and a fun's creator and environment (the words after its 3
 * counted ones):
 * those are left for the walk to read as terms, which is why a sub binary's arity is two
 * less than its size, as in erts. Every walk over an area in termcopy (the GC's scan and
 * relocation, copy_struct's scan, copy_shallow, the verifier) steps with
 * tc_layout_step; code that moves whole objects uses tc_layout_object_words.
 */
#ifndef TC_LAYOUT_H
#define TC_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "term.h"

TC_BEGIN_DECLS

/* Words of a map object (erl_map.h: MAP_HEADER_FLATMAP_SZ + n, HAMT_HEAD_ARRAY_SZ,
 * HAMT_HEAD_BITMAP_SZ(k), HAMT_NODE_BITMAP_SZ(k)); `hp[1]` is read only for a flatmap. */
static inline size_t tc_layout_map_words(tc_term h, const tc_term *hp)
{
    switch (tc_map_header_type(h)) {
    case TC_MAP_HEADER_TAG_FLATMAP_HEAD: return 3 + (size_t)hp[1];
    case TC_MAP_HEADER_TAG_HAMT_HEAD_ARRAY: return 2 + 16;
    case TC_MAP_HEADER_TAG_HAMT_HEAD_BITMAP: return 2 + (size_t)__builtin_popcount(tc_map_header_bitmap(h));
    default: return 1 + (size_t)__builtin_popcount(tc_map_header_bitmap(h));
    }
}

/* The term words of a map object: a flatmap's keys tuple and values, a HAMT node's
 * children. Before them are the header and, in a flatmap or a head, the size word: the
 * header's map arity plus one, as the VM's scan loops step (erl_gc.c, copy.c). */
static inline const tc_term *tc_layout_map_terms(tc_term h, const tc_term *hp, size_t *n)
{
    size_t raw = 1 + tc_map_header_arity(h);
    *n = tc_layout_map_words(h, hp) - raw;
    return hp + raw;
}

/* From a header: how many words until the next word the walk must read. */
static inline size_t tc_layout_header_step(const tc_term *hp)
{
    tc_term h = hp[0];
    switch (tc_header_subtag(h)) {
    case TC_SUBTAG_ARITYVAL: return 1;
    case TC_SUBTAG_MAP: return 1 + tc_map_header_arity(h); /* header and, but in an inner node, the size word */
    default: return 1 + (size_t)tc_header_arity(h);
    }
}

/* The one step of every area walk: over a header's raw words, or past one term word. */
static inline size_t tc_layout_step(const tc_term *hp)
{
    return tc_is_header(*hp) ? tc_layout_header_step(hp) : 1;
}

/* Words the boxed object at hp takes, header included, given its header `h` (passed apart
 * because a marking copier may have overwritten hp[0]; a map's size word must be intact). */
static inline size_t tc_layout_words(tc_term h, const tc_term *hp)
{
    switch (tc_header_subtag(h)) {
    case TC_SUBTAG_MAP: return tc_layout_map_words(h, hp);
    case TC_SUBTAG_SUB_BINARY: return 2 + (size_t)tc_header_arity(h);
    case TC_SUBTAG_FUN: return TC_FUN_SIZE + tc_fun_num_free(hp); /* creator and env follow */
    default: return 1 + (size_t)tc_header_arity(h);
    }
}

static inline size_t tc_layout_object_words(const tc_term *hp) { return tc_layout_words(hp[0], hp); }

/* Words of the object starting at hp in an area of whole objects: a boxed object, or a
 * cons cell when hp is not a header. */
static inline size_t tc_layout_cell_words(const tc_term *hp)
{
    return tc_is_header(*hp) ? tc_layout_object_words(hp) : TC_CONS_SIZE;
}

/* The cell or object a list or boxed word points at. */
static inline tc_term *tc_layout_ptr(tc_term t) { return tc_is_list(t) ? tc_list_val(t) : tc_boxed_val(t); }

/* The pointer check every copier and the GC make: is x in [lo, hi)? */
static inline bool tc_layout_in(const tc_term *x, const tc_term *lo, const tc_term *hi) { return x >= lo && x < hi; }

TC_END_DECLS

#endif
