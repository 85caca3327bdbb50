#include "estack.h"

#include <string.h>

#include "../terms/size.h"

tc_result tc_estack_walk(tc_mseg *temp, uint64_t peak)
{
    if (!temp || peak <= TC_ESTACK_DEFAULT)
        return TC_OK;
    if (peak > SIZE_MAX / 2 / sizeof(uint64_t))
        return TC_ENOMEM;
    /* erl_grow_estack from the default: erts_alloc of twice its entries, the 16 copied */
    size_t cap = 2 * TC_ESTACK_DEFAULT, filled = 0;
    uint64_t *st = tc_mseg_alloc_block(temp, cap * sizeof *st);
    if (!st)
        return TC_ENOMEM;
    for (;;) {
        size_t upto = peak < cap ? (size_t)peak : cap;
        memset(st + filled, 0, (upto - filled) * sizeof *st); /* the pushes */
        filled = upto;
        if (filled == peak)
            break;
        uint64_t *grown = tc_mseg_realloc_block(temp, st, 2 * cap * sizeof *st);
        if (!grown) {
            tc_mseg_free_block(temp, st);
            return TC_ENOMEM;
        }
        st = grown;
        cap *= 2;
    }
    tc_mseg_free_block(temp, st);
    return TC_OK;
}

tc_result tc_estack_size_object(tc_mseg *heaps, tc_term t, const tc_term *lit_start, const tc_term *lit_end,
                                uint64_t *words)
{
    uint64_t peak;
    tc_result r = tc_term_flat_size_peak(t, lit_start, lit_end, words, &peak);
    return r == TC_OK ? tc_estack_walk(tc_mseg_temp(heaps), peak) : r;
}
