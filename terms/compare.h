/*
 * compare.h — exact equality and the Erlang term order (erts: utils.c erts_cmp, eq).
 *
 * Order: number < atom < reference < fun < port < pid < tuple < map < nil < list <
 * bitstring. Integers and floats compare by value (1 == 1.0 in term order). Tuples by
 * arity, then element by element; lists element by element; maps by size, then keys,
 * then values; atoms by name; bitstrings bit by bit, a prefix first.
 * Two relations, both erts_cmp: the term order (tc_term_compare, erts_cmp(a, b, 0, 0), what <
 * and lists:sort use) and the map key order (tc_term_compare_exact, erts_cmp(a, b, 1, 0), the
 * CMP_TERM of erl_utils.h): the same, except that every integer sorts before every float
 * whatever their values (1 before 0.5), at any depth. Map keys are kept, printed and encoded
 * in map key order, and the keys of two maps are compared in it even inside the term order
 * (their values are not); =:= is equality in map key order.
 * Walks are iterative; the only failure is running out of memory for the stack.
 */
#ifndef TC_COMPARE_H
#define TC_COMPARE_H

#include "term.h"

TC_BEGIN_DECLS

/* *order = <0, 0 or >0. */
tc_result tc_term_compare(tc_term a, tc_term b, int *order) TC_MUST_CHECK;
tc_result tc_term_compare_exact(tc_term a, tc_term b, int *order) TC_MUST_CHECK;
/* a =:= b */
tc_result tc_term_equal(tc_term a, tc_term b, bool *equal) TC_MUST_CHECK;

TC_END_DECLS

#endif
