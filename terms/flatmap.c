#include "flatmap.h"

#include "compare.h"

tc_result tc_term_flatmap(tc_alloc *a, const tc_term *kv, size_t n, tc_term *out)
{
    /* Insertion sort of indices by key: n is small, and a stable sort keeps the later of two
     * equal keys after the earlier one, so "last wins" is a neighbour check. */
    size_t idx[TC_MAP_SMALL_MAP_LIMIT + 1];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = m;
        int c = 1;
        while (j > 0) {
            tc_term x = kv[2 * idx[j - 1]], y = kv[2 * i];
            if (tc_is_small(x) && tc_is_small(y)) { /* the commonest keys, in a line of their own */
                c = (tc_small_val(x) > tc_small_val(y)) - (tc_small_val(x) < tc_small_val(y));
            } else {
                tc_result r = tc_term_compare_exact(x, y, &c);
                if (r != TC_OK)
                    return r;
            }
            if (c <= 0)
                break;
            j--;
        }
        if (j > 0 && c == 0) {
            idx[j - 1] = i; /* same key again: the later value wins */
            continue;
        }
        if (m == TC_MAP_SMALL_MAP_LIMIT)
            return TC_EUNSUPPORTED;
        if (j < m) /* keys in order (as every encoder writes them) never move */
            memmove(&idx[j + 1], &idx[j], (m - j) * sizeof idx[0]);
        idx[j] = i;
        m++;
    }
    tc_term *p = tc_alloc_words(a, TC_FLATMAP_SIZE(m));
    if (!p)
        return TC_ENOMEM;
    tc_term *kt = &p[3 + m];
    p[0] = TC_MAP_HEADER_FLATMAP;
    p[1] = m;
    p[2] = m ? tc_make_boxed(kt) : TC_EMPTY_TUPLE;
    if (m)
        kt[0] = TC_MAKE_HEADER(m, TC_SUBTAG_ARITYVAL);
    for (size_t i = 0; i < m; i++) {
        kt[1 + i] = kv[2 * idx[i]];
        p[3 + i] = kv[2 * idx[i] + 1];
    }
    *out = tc_make_boxed(p);
    return TC_OK;
}
