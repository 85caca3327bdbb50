/*
 * ets_impl.h — what the ETS table and the process dictionary share: the hash of a term and
 * key equality (erts: utils.c make_internal_hash and the EQ macro, used by both
 * erl_db_hash.c and erl_process_dict.c).
 */
#ifndef TC_ETS_IMPL_H
#define TC_ETS_IMPL_H

#include "terms/compare.h"
#include "terms/term.h"

/* erl_db_hash.c MAX_HASH: hash values are kept below it. */
#define TC_ETS_MAX_HASH UINT64_C(0xEFFFFFFF)

/* A hash of `t` that exactly equal (=:=) terms share: it reads only what =:= compares
 * (a bitstring's bits, not whether it is a heap, refc or sub binary). In [0, MAX_HASH).
 * TC_ENOMEM only when the walk's stack cannot grow. */
tc_result tc_ets_internal_hash(tc_term t, uint64_t *hval) TC_MUST_CHECK;

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
