#include "bignum.h"

#include <math.h>
#include <string.h>

typedef unsigned __int128 u128;

tc_term tc_term_integer(tc_alloc *a, bool negative, const uint64_t *digits, size_t n)
{
    while (n > 0 && digits[n - 1] == 0)
        n--;
    if (n == 0)
        return tc_make_small(0);
    if (n == 1 && digits[0] <= (uint64_t)TC_MAX_SMALL)
        return tc_make_small(negative ? -(int64_t)digits[0] : (int64_t)digits[0]);
    if (n == 1 && negative && digits[0] == (uint64_t)TC_MAX_SMALL + 1)
        return tc_make_small(TC_MIN_SMALL);
    tc_term *p = tc_alloc_words(a, 1 + n);
    if (!p)
        return TC_NON_VALUE;
    p[0] = TC_MAKE_HEADER(n, negative ? TC_SUBTAG_NEG_BIG : TC_SUBTAG_POS_BIG);
    memcpy(&p[1], digits, n * sizeof *digits);
    return tc_make_boxed(p);
}

tc_term tc_term_int64(tc_alloc *a, int64_t v)
{
    if (tc_small_fits(v))
        return tc_make_small(v);
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return tc_term_integer(a, v < 0, &mag, 1);
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

tc_result tc_integer_parse(tc_alloc *a, const char *text, size_t len, unsigned base, bool negative,
                           tc_term *out)
{
    if (base < 2 || base > 36 || len == 0)
        return TC_EBADARG;
    /* log2(36) < 6 bits per digit: a safe bound on the digit words needed. */
    size_t cap = len * 6 / 64 + 2;
    uint64_t *d = tc_mem_calloc(cap, sizeof *d);
    if (!d)
        return TC_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        int v = digit_value(text[i]);
        if (v >= (int)base) {
            tc_mem_free(d);
            return TC_EPARSE;
        }
        uint64_t carry = (uint64_t)v;
        for (size_t k = 0; k < n; k++) {
            u128 x = (u128)d[k] * base + carry;
            d[k] = (uint64_t)x;
            carry = (uint64_t)(x >> 64);
        }
        if (carry)
            d[n++] = carry;
    }
    tc_term t = tc_term_integer(a, negative, d, n);
    tc_mem_free(d);
    if (t == TC_NON_VALUE)
        return TC_ENOMEM;
    *out = t;
    return TC_OK;
}

const uint64_t *tc_integer_digits(tc_term t, uint64_t *tmp, size_t *n, bool *negative)
{
    if (tc_is_small(t)) {
        int64_t v = tc_small_val(t);
        *negative = v < 0;
        *tmp = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        *n = *tmp ? 1 : 0;
        return tmp;
    }
    tc_term *p = tc_boxed_val(t);
    *negative = tc_header_subtag(p[0]) == TC_SUBTAG_NEG_BIG;
    *n = tc_header_arity(p[0]);
    return &p[1];
}

size_t tc_integer_decimal_bound(tc_term t)
{
    if (tc_is_small(t))
        return 22;
    /* 64 bits need at most 20 decimal digits; one word of slack for the sign and NUL. */
    return tc_header_arity(tc_boxed_val(t)[0]) * 20 + 2;
}

size_t tc_integer_to_decimal(tc_term t, char *out, uint64_t *scratch)
{
    uint64_t tmp;
    size_t n;
    bool neg;
    const uint64_t *d = tc_integer_digits(t, &tmp, &n, &neg);
    uint64_t *w = scratch;
    if (n > 1 && !w) {
        w = tc_mem_alloc(n * sizeof *w);
        if (!w)
            return 0;
    } else if (n <= 1) {
        w = &tmp;
    }
    if (w != d)
        memcpy(w, d, n * sizeof *w);
    /* Repeated division by 10^19 yields 19-digit chunks, least significant first. */
    char rev[24];
    size_t len, cap = tc_integer_decimal_bound(t);
    char *end = out + cap - 1;
    char *p = end;
    *p = '\0';
    const uint64_t chunk = UINT64_C(10000000000000000000);
    do {
        uint64_t rem = 0;
        for (size_t k = n; k-- > 0;) {
            u128 x = ((u128)rem << 64) | w[k];
            w[k] = (uint64_t)(x / chunk);
            rem = (uint64_t)(x % chunk);
        }
        /* cppcheck-suppress objectIndex ; w is &tmp only when n <= 1, so n - 1 is 0 then */
        while (n > 0 && w[n - 1] == 0)
            n--;
        size_t r = 0;
        do {
            rev[r++] = (char)('0' + rem % 10);
            rem /= 10;
        } while (rem);
        if (n > 0)
            while (r < 19)
                rev[r++] = '0';
        for (size_t i = 0; i < r; i++)
            *--p = rev[i];
    } while (n > 0);
    if (neg)
        *--p = '-';
    len = (size_t)(end - p);
    memmove(out, p, len + 1);
    if (w != scratch && w != &tmp)
        tc_mem_free(w);
    return len;
}

static int magnitude_compare(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    if (na != nb)
        return na < nb ? -1 : 1;
    for (size_t k = na; k-- > 0;)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

int tc_integer_compare(tc_term a, tc_term b)
{
    if (tc_is_small(a) && tc_is_small(b)) {
        int64_t x = tc_small_val(a), y = tc_small_val(b);
        return (x > y) - (x < y);
    }
    uint64_t ta, tb;
    size_t na, nb;
    bool sa, sb;
    const uint64_t *da = tc_integer_digits(a, &ta, &na, &sa);
    const uint64_t *db = tc_integer_digits(b, &tb, &nb, &sb);
    if (na == 0)
        sa = false;
    if (nb == 0)
        sb = false;
    if (sa != sb)
        return sa ? -1 : 1;
    int c = magnitude_compare(da, na, db, nb);
    return sa ? -c : c;
}

int tc_integer_compare_double(tc_term i, double d)
{
    /* Compare with floor(d) exactly, then break the tie with d's fraction. */
    double fl = floor(d);
    bool dneg = fl < 0;
    double mag = dneg ? -fl : fl;
    uint64_t dd[17] = {0}; /* 2^1024 fits in 17 words */
    size_t dn = 0;
    if (mag > 0) {
        int e;
        double m = frexp(mag, &e); /* mag = m * 2^e, 0.5 <= m < 1 */
        uint64_t mant = (uint64_t)ldexp(m, 53);
        int shift = e - 53;
        if (shift <= 0) {
            dd[0] = mant >> -shift;
            dn = 1;
        } else {
            size_t w = (size_t)shift / 64, b = (size_t)shift % 64;
            dd[w] = mant << b;
            if (b)
                dd[w + 1] = mant >> (64 - b);
            dn = w + 2;
        }
        while (dn > 0 && dd[dn - 1] == 0)
            dn--;
    }
    uint64_t ti;
    size_t ni;
    bool ineg;
    const uint64_t *di = tc_integer_digits(i, &ti, &ni, &ineg);
    if (ni == 0)
        ineg = false;
    if (dn == 0)
        dneg = false;
    int c;
    if (ineg != dneg)
        c = ineg ? -1 : 1;
    else {
        c = magnitude_compare(di, ni, dd, dn);
        if (ineg)
            c = -c;
    }
    if (c != 0)
        return c;
    return fl == d ? 0 : -1; /* i == floor(d) < d */
}
