/*
 * compare.h — exact equality and the Erlang term order (erts: utils.c erts_cmp, eq).
 *
 * Order: number < atom < reference < fun < port < pid < tuple < map < nil < list <
 * bitstring. Integers and floats compare by value (1 == 1.0 in term order). Tuples by
 * arity, then element by element; lists element by element; maps by size, then keys,
 * then values; atoms by name; bitstrings bit by bit, a prefix first.
 * The exact order differs only where an integer equals a float: the integer comes first.
 * It is the order flatmap keys are kept in, and =:= is "exactly equal".
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
