#include "offheap.h"

#include "binary.h"
#include "fun.h"
#include "layout.h"
#include "node.h"

bool tc_offheap_is_member(const tc_term *p)
{
    unsigned s = tc_header_subtag(p[0]);
    if (s == TC_SUBTAG_FUN)
        return tc_fun_is_local(p);
    return s == TC_SUBTAG_REFC_BINARY || tc_header_is_external(p[0]);
}

void tc_offheap_link(tc_offheap *oh, tc_term *p)
{
    /* By kind only: a fun being copied word by word may not have its creator yet. */
    TC_ASSERT(tc_header_subtag(p[0]) == TC_SUBTAG_REFC_BINARY || tc_header_subtag(p[0]) == TC_SUBTAG_FUN ||
              tc_header_is_external(p[0]));
    p[TC_OH_NEXT] = (tc_term)(uintptr_t)oh->first;
    oh->first = p;
    if (tc_header_subtag(p[0]) == TC_SUBTAG_REFC_BINARY) {
        oh->overhead += p[TC_PB_SIZE];
        oh->vheap += p[TC_PB_SIZE] / sizeof(tc_term);
    }
}

void tc_offheap_adopt(tc_offheap *oh, tc_term *p)
{
    switch (tc_header_subtag(p[0])) {
    case TC_SUBTAG_REFC_BINARY:
        atomic_fetch_add(&((tc_binary *)(uintptr_t)p[TC_PB_VAL])->refc, 1);
        p[TC_PB_FLAGS] = 0;
        break;
    case TC_SUBTAG_FUN:
        atomic_fetch_add(&tc_fun_entry_of(p)->refc, 1);
        break;
    default:
        tc_node_ref((tc_node *)(uintptr_t)p[TC_EXT_NODE]);
        break;
    }
    tc_offheap_link(oh, p);
}

void tc_offheap_drop(tc_offheap *oh, tc_term *p)
{
    switch (tc_header_subtag(p[0])) {
    case TC_SUBTAG_REFC_BINARY:
        oh->overhead -= p[TC_PB_SIZE];
        tc_binary_release((tc_binary *)(uintptr_t)p[TC_PB_VAL]);
        break;
    case TC_SUBTAG_FUN:
        tc_fun_entry_deref(tc_fun_entry_of(p));
        break;
    default:
        tc_node_deref((tc_node *)(uintptr_t)p[TC_EXT_NODE]);
        break;
    }
}

void tc_offheap_abandon_until(tc_offheap *oh, tc_term *stop)
{
    for (tc_term *p = oh->first; p && p != stop;) {
        tc_term *next = (tc_term *)(uintptr_t)p[TC_OH_NEXT];
        size_t words = tc_layout_object_words(p);
        if (tc_header_subtag(p[0]) == TC_SUBTAG_REFC_BINARY) /* linked by the failed operation itself */
            oh->vheap -= p[TC_PB_SIZE] / sizeof(tc_term);
        tc_offheap_drop(oh, p);
        /* A tuple of as many words, all [], in its place: garbage that walks and verifiers
         * step over, where a member left off its list would be a broken heap. */
        p[0] = TC_MAKE_HEADER(words - 1, TC_SUBTAG_ARITYVAL);
        for (size_t i = 1; i < words; i++)
            p[i] = TC_NIL;
        p = next;
    }
    oh->first = stop;
}

void tc_offheap_release_until(tc_offheap *oh, tc_term *stop)
{
    tc_term *p = oh->first;
    while (p && p != stop) {
        tc_term *next = (tc_term *)(uintptr_t)p[TC_OH_NEXT];
        tc_offheap_drop(oh, p);
        p = next;
    }
    oh->first = stop;
}
