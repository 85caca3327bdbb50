/*
 * ets_impl.h — what the ETS table and the process dictionary share besides tc_ets_hash:
 * key equality (erts: the EQ macro, used by both erl_db_hash.c and erl_process_dict.c).
 */
#ifndef TC_ETS_IMPL_H
#define TC_ETS_IMPL_H

#include "terms/compare.h"
#include "terms/term.h"

/* key =:= other, with the cheap answers first: the same word is equal, and two different
 * immediates are not. */
static inline tc_result tc_ets_key_equal(tc_term key, tc_term other, bool *eq)
{
    if (key == other || (tc_is_immed(key) && tc_is_immed(other))) {
        *eq = key == other;
        return TC_OK;
    }
    return tc_term_equal(key, other, eq);
}

#endif
