/*
 * hash.h — the term hash and the key equality that ETS and the process dictionary share
 * (erts: make_internal_hash in utils.c, the role it plays in erl_db_hash.c and, through
 * MAKE_HASH, in erl_process_dict.c; the EQ macro both use).
 *
 * Where this differs from erts, and why: the hash is termcopy's own (a 64-bit mix over the
 * words =:= compares), not make_internal_hash, and atoms hash by index, not by the atom
 * table's cached name hash. Values are reduced below TC_TERM_HASH_MAX, as the VM's are, so
 * the bucket and lock arithmetic built on them is the VM's.
 */
#ifndef TC_HASH_H
#define TC_HASH_H

#include <stdbool.h>
#include <stdint.h>

#include "compare.h"
#include "term.h"

TC_BEGIN_DECLS

#define TC_TERM_HASH_MAX UINT64_C(0xEFFFFFFF) /* erl_db_hash.c MAX_HASH */

/* Exactly equal (=:=) terms share a hash, since it reads only what =:= compares (a
 * bitstring's bits, not whether it is a heap, refc or sub binary). Below
 * TC_TERM_HASH_MAX. TC_ENOMEM only when the walk's stack cannot grow. */
tc_result tc_term_hash(tc_term t, uint64_t *hval) TC_MUST_CHECK;

/* key =:= other, with the cheap answers first: the same word is equal, and two different
 * immediates are not. */
static inline tc_result tc_term_key_equal(tc_term key, tc_term other, bool *eq)
{
    if (key == other || (tc_is_immed(key) && tc_is_immed(other))) {
        *eq = key == other;
        return TC_OK;
    }
    return tc_term_equal(key, other, eq);
}

TC_END_DECLS

#endif
