/*
 * bignum.h — integers of any size (erts: big.c, the POS_BIG/NEG_BIG things).
 *
 * A bignum is a header (subtag POS_BIG or NEG_BIG, arity = digit count) and 64-bit digits,
 * least significant first, magnitude only. As in the VM it is always normalised: no zero
 * top digit, and an integer in the 60-bit small range is never a bignum.
 */
#ifndef TC_BIGNUM_H
#define TC_BIGNUM_H

#include "term.h"

TC_BEGIN_DECLS

/* The integer sign * sum(digits[i] * 2^(64 i)), normalised (small when it fits). */
tc_term tc_term_integer(tc_alloc *a, bool negative, const uint64_t *digits, size_t n);

/* Parses `len` digits (0-9, a-z, A-Z; no sign, no separators) in `base` (2..36). */
tc_result tc_integer_parse(tc_alloc *a, const char *text, size_t len, unsigned base, bool negative,
                           tc_term *out) TC_MUST_CHECK;

/* An upper bound on the decimal text length of integer `t`, sign and NUL included. */
size_t tc_integer_decimal_bound(tc_term t);
/* Writes `t` in decimal into `out` (at least tc_integer_decimal_bound bytes); returns the
 * length. Needs scratch memory for bignums: TC_ENOMEM-free callers pass `scratch` of
 * bignum-arity words, or NULL to allocate (then 0 is returned on allocation failure). */
size_t tc_integer_to_decimal(tc_term t, char *out, uint64_t *scratch);

/* Magnitude digits of a bignum (or of a small, in `tmp`), and the sign. */
const uint64_t *tc_integer_digits(tc_term t, uint64_t *tmp, size_t *n, bool *negative);

/* Three-way comparisons by value: <0, 0, >0. */
int tc_integer_compare(tc_term a, tc_term b);
int tc_integer_compare_double(tc_term i, double d);

TC_END_DECLS

#endif
