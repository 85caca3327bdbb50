#include "term.h"

const tc_term tc_empty_tuple_object[1] = {TC_MAKE_HEADER(0, TC_SUBTAG_ARITYVAL)};

tc_term tc_term_cons(tc_alloc *a, tc_term car, tc_term cdr)
{
    tc_term *p = tc_alloc_words(a, TC_CONS_SIZE);
    if (!p)
        return TC_NON_VALUE;
    p[0] = car;
    p[1] = cdr;
    return tc_make_list(p);
}

tc_term tc_term_tuple(tc_alloc *a, const tc_term *elems, uint64_t arity)
{
    if (arity == 0)
        return TC_EMPTY_TUPLE;
    tc_term *p = tc_alloc_words(a, 1 + arity);
    if (!p)
        return TC_NON_VALUE;
    p[0] = TC_MAKE_HEADER(arity, TC_SUBTAG_ARITYVAL);
    if (arity > 4) {
        memcpy(&p[1], elems, arity * sizeof *elems);
    } else { /* most tuples are small, and a call to memcpy costs more than their copy */
        for (uint64_t i = 0; i < arity; i++)
            p[1 + i] = elems[i];
    }
    return tc_make_boxed(p);
}

tc_term tc_term_float(tc_alloc *a, double d)
{
    tc_term *p = tc_alloc_words(a, TC_FLOAT_SIZE);
    if (!p)
        return TC_NON_VALUE;
    p[0] = TC_MAKE_HEADER(1, TC_SUBTAG_FLOAT);
    memcpy(&p[1], &d, sizeof d);
    return tc_make_boxed(p);
}

tc_term tc_term_list(tc_alloc *a, const tc_term *elems, size_t n, tc_term tail)
{
    if (n == 0)
        return tail;
    /* One block, built from the tail so the head cell sits highest, as lists:seq does. */
    tc_term *p = tc_alloc_words(a, TC_CONS_SIZE * n);
    if (!p)
        return TC_NON_VALUE;
    for (size_t i = n; i-- > 0;) {
        tc_term *cell = &p[TC_CONS_SIZE * (n - 1 - i)];
        cell[0] = elems[i];
        cell[1] = tail;
        tail = tc_make_list(cell);
    }
    return tail;
}
