#include "ident.h"

#include "offheap.h"

tc_term tc_term_local_ref(tc_alloc *a, const uint32_t num[TC_REF_NUMBERS])
{
    tc_term *p = tc_alloc_words(a, TC_REF_THING_SIZE);
    if (!p)
        return TC_NON_VALUE;
    p[0] = TC_MAKE_HEADER(TC_REF_THING_SIZE - 1, TC_SUBTAG_REF);
    p[1] = TC_ORDINARY_REF_MARKER | (tc_term)num[0] << 32;
    p[2] = (tc_term)num[1] | (tc_term)num[2] << 32;
    return tc_make_boxed(p);
}

/* The head of every external thing, linked as dec_term links it. */
static tc_term *external_thing(tc_alloc *a, tc_node *n, size_t words, unsigned subtag)
{
    tc_term *p = tc_alloc_words(a, words);
    if (!p) {
        tc_node_deref(n);
        return NULL;
    }
    p[0] = TC_MAKE_HEADER(words - 1, subtag);
    p[TC_EXT_NODE] = (tc_term)(uintptr_t)n;
    for (size_t i = TC_EXT_DATA; i < words; i++)
        p[i] = 0;
    tc_offheap_link(a->offheap, p);
    return p;
}

tc_term tc_term_external_pid(tc_alloc *a, tc_node *n, uint32_t number, uint32_t serial)
{
    tc_term *p = external_thing(a, n, TC_EXTERNAL_PID_SIZE, TC_SUBTAG_EXTERNAL_PID);
    if (!p)
        return TC_NON_VALUE;
    p[TC_EXT_DATA] = (tc_term)number | (tc_term)serial << 32;
    return tc_make_boxed(p);
}

tc_term tc_term_external_port(tc_alloc *a, tc_node *n, uint64_t number)
{
    tc_term *p = external_thing(a, n, TC_EXTERNAL_PORT_SIZE, TC_SUBTAG_EXTERNAL_PORT);
    if (!p)
        return TC_NON_VALUE;
    p[TC_EXT_DATA] = number;
    return tc_make_boxed(p);
}

tc_term tc_term_external_ref(tc_alloc *a, tc_node *n, const uint32_t *num, size_t count)
{
    TC_ASSERT(count >= 1 && count <= TC_REF_MAX_NUMBERS);
    tc_term *p = external_thing(a, n, TC_EXTERNAL_REF_SIZE(count), TC_SUBTAG_EXTERNAL_REF);
    if (!p)
        return TC_NON_VALUE;
    /* 32-bit slots from the first data word: the count, then the numbers. */
    for (size_t i = 0; i <= count; i++) {
        tc_term v = i == 0 ? count : num[i - 1];
        p[TC_EXT_DATA + i / 2] |= v << (32 * (i % 2));
    }
    return tc_make_boxed(p);
}

size_t tc_ref_numbers(tc_term ref, uint32_t num[TC_REF_MAX_NUMBERS])
{
    const tc_term *p = tc_boxed_val(ref);
    if (tc_header_subtag(p[0]) == TC_SUBTAG_REF) {
        num[0] = (uint32_t)(p[1] >> 32);
        num[1] = (uint32_t)p[2];
        num[2] = (uint32_t)(p[2] >> 32);
        return TC_REF_NUMBERS;
    }
    size_t count = (size_t)(uint32_t)p[TC_EXT_DATA];
    for (size_t i = 1; i <= count; i++)
        num[i - 1] = (uint32_t)(p[TC_EXT_DATA + i / 2] >> (32 * (i % 2)));
    return count;
}

const char *tc_ident_check(const tc_term *p)
{
    uint64_t arity = tc_header_arity(p[0]);
    switch (tc_header_subtag(p[0])) {
    case TC_SUBTAG_REF:
        if (arity != TC_REF_THING_SIZE - 1 || (p[1] & 0xFFFFFFFFu) != TC_ORDINARY_REF_MARKER)
            return "local reference is not an ordinary ref thing";
        if ((p[1] >> 32) >= (UINT64_C(1) << 18))
            return "local reference number 0 past 18 bits";
        return NULL;
    case TC_SUBTAG_EXTERNAL_PID:
    case TC_SUBTAG_EXTERNAL_PORT:
    case TC_SUBTAG_EXTERNAL_REF: {
        const tc_node *n = (const tc_node *)(uintptr_t)p[TC_EXT_NODE];
        if (!n || atomic_load(&n->refc) < 1 || tc_node_is_this(n->sysname, n->creation))
            return "external thing without a live remote node entry";
        if (tc_header_subtag(p[0]) != TC_SUBTAG_EXTERNAL_REF)
            return arity + 1 == TC_EXTERNAL_PID_SIZE ? NULL : "external pid or port of the wrong size";
        uint64_t count = (uint32_t)p[TC_EXT_DATA];
        if (count < 1 || count > TC_REF_MAX_NUMBERS || arity + 1 != TC_EXTERNAL_REF_SIZE(count))
            return "external reference count and size disagree";
        if (count % 2 == 0 && (p[TC_EXT_DATA + count / 2] >> 32) != 0)
            return "external reference padding is not zero";
        return NULL;
    }
    }
    return "not a reference or external thing";
}
