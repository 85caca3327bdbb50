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

/* The VM's largest bignum, in 64-bit digits (erl_term.h BIG_ARITY_MAX): an integer past it
 * is a system_limit error on the VM, and TC_ELIMIT (or TC_NON_VALUE from a constructor)
 * in every direction here: text, external format, arithmetic. */
#define TC_BIG_ARITY_MAX ((UINT64_C(1) << 19) - 1)

/* The integer sign * sum(digits[i] * 2^(64 i)), normalised (small when it fits).
 * TC_NON_VALUE when out of memory, or when it needs more than TC_BIG_ARITY_MAX digits. */
tc_term tc_term_integer(tc_alloc *a, bool negative, const uint64_t *digits, size_t n);

/* Parses `len` digits (0-9, a-z, A-Z; no sign, no separators) in `base` (2..36), in time
 * near-linear in len (GMP's subquadratic conversion). TC_EPARSE for a digit outside the
 * base, TC_ELIMIT past TC_BIG_ARITY_MAX digits. */
tc_result tc_integer_parse(tc_alloc *a, const char *text, size_t len, unsigned base, bool negative,
                           tc_term *out) TC_MUST_CHECK;

/* An upper bound on the decimal text length of integer `t`, sign and NUL included. */
size_t tc_integer_decimal_bound(tc_term t);
/* Writes `t` in decimal into `out` (at least tc_integer_decimal_bound bytes); returns the
 * length. Near-linear in the digits (GMP). Needs scratch memory for bignums: TC_ENOMEM-free
 * callers pass `scratch` of bignum-arity words, or NULL to allocate (then 0 is returned on
 * allocation failure). */
size_t tc_integer_to_decimal(tc_term t, char *out, uint64_t *scratch);

/* Magnitude digits of a bignum (or of a small, in `tmp`), and the sign. */
const uint64_t *tc_integer_digits(tc_term t, uint64_t *tmp, size_t *n, bool *negative);

/* Three-way comparisons by value: <0, 0, >0. */
int tc_integer_compare(tc_term a, tc_term b);
int tc_integer_compare_double(tc_term i, double d);

TC_END_DECLS

#endif
