#include "reader.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../terms/atom.h"
#include "../terms/bignum.h"
#include "../terms/binary.h"
#include "../terms/flatmap.h"
#include "../terms/fun.h"
#include "../terms/hashmap.h"
#include "../terms/ident.h"
#include "../terms/wstack.h"

/* Containers being read: a frame is (kind | state << 8, index of its first value). */
enum { F_LIST, F_TUPLE, F_MAP };
enum { LIST_ELEMS = 0, LIST_TAIL = 1, MAP_KEY = 0, MAP_VALUE = 1 };

/* The most binary data one text may build: 2^27 bits (16 MiB, whose ~w text is up to
 * 64 MiB), over all its binaries together, and so for any one binary or segment. Binary
 * segments are the one place where a few bytes of text ("<<0:99999999>>") make much more
 * data; everything else the reader builds is proportional to its input. termcopy's bound,
 * not the VM's (which builds what memory holds); larger binaries come in the external
 * format. */
#define MAX_BINARY_BITS (UINT64_C(1) << 27)

typedef struct reader {
    const unsigned char *start, *p, *end;
    tc_alloc *a;
    tc_read_error *err;
    tc_result res;
    tc_wstack vals;
    tc_wstack frames;
    uint64_t binary_bits; /* of the binaries read so far (MAX_BINARY_BITS in all) */
} reader;

static bool at_end(const reader *r) { return r->p >= r->end; }
static int peek(const reader *r) { return at_end(r) ? -1 : *r->p; }
static int peek_at(const reader *r, size_t k) { return (size_t)(r->end - r->p) > k ? r->p[k] : -1; }

/* At most 13 bytes with the NUL ("end of input"); a shorter buffer gets them truncated. */
static void describe(const reader *r, const unsigned char *at, char *buf, size_t cap)
{
    if (at >= r->end)
        (void)snprintf(buf, cap, "end of input");
    else if (*at >= 0x21 && *at <= 0x7E)
        (void)snprintf(buf, cap, "'%c'", *at);
    else if (*at == ' ')
        (void)snprintf(buf, cap, "a space");
    else
        (void)snprintf(buf, cap, "byte 0x%02X", *at);
}

/* Records the first error; later ones are consequences. */
TC_PRINTF(4, 5) static void record_failure(reader *r, const unsigned char *at, tc_result code, const char *fmt, ...)
{
    if (r->res != TC_OK)
        return;
    r->res = code;
    if (r->err) {
        r->err->offset = (size_t)(at - r->start);
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(r->err->message, sizeof r->err->message, fmt, ap); /* truncated is fine */
        va_end(ap);
    }
}

/* record_failure as an expression that is false, for `return fail_at(...)`; a macro so that
 * the static analyzer, which does not follow variadic calls, sees the false. */
#define fail_at(...) (record_failure(__VA_ARGS__), false)

static bool expected(reader *r, const char *what)
{
    char found[32];
    describe(r, r->p, found, sizeof found);
    return fail_at(r, r->p, TC_EPARSE, "expected %s, found %s", what, found);
}

static bool oom(reader *r) { return fail_at(r, r->p, TC_ENOMEM, "out of memory"); }

static bool push_val(reader *r, tc_term v)
{
    if (v == TC_NON_VALUE || !tc_wstack_push(&r->vals, v))
        return oom(r);
    return true;
}

static void skip_ws(reader *r)
{
    while (!at_end(r)) {
        int c = *r->p;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            r->p++;
        } else if (c == '%') {
            while (!at_end(r) && *r->p != '\n')
                r->p++;
        } else {
            break;
        }
    }
}

/* One UTF-8 character; -1 after recording the error. */
static long next_char(reader *r)
{
    const unsigned char *at = r->p;
    long c = tc_utf8_decode(&r->p, r->end);
    if (c < 0) {
        r->p = at;
        if (at_end(r))
            expected(r, "a character");
        else
            record_failure(r, at, TC_EPARSE, "invalid UTF-8 at byte 0x%02X", *at);
    }
    return c;
}

/* The character after a backslash (already consumed); -1 on error. */
static long read_escape(reader *r)
{
    const unsigned char *at = r->p - 1;
    if (at_end(r))
        return expected(r, "an escape character after '\\'"), -1;
    int c = *r->p;
    if (c >= '0' && c <= '7') {
        long v = 0;
        for (int i = 0; i < 3 && peek(r) >= '0' && peek(r) <= '7'; i++)
            v = v * 8 + (*r->p++ - '0');
        return v;
    }
    r->p++;
    switch (c) {
    case 'b': return '\b';
    case 'd': return 127;
    case 'e': return 27;
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 's': return ' ';
    case 't': return '\t';
    case 'v': return '\v';
    case '^': {
        if (at_end(r))
            return expected(r, "a character after '\\^'"), -1;
        int k = *r->p++;
        return k == '?' ? 127 : (k & 31);
    }
    case 'x': {
        long v = 0;
        if (peek(r) == '{') {
            r->p++;
            int digits = 0;
            while (tc_hex_digit(peek(r)) >= 0) {
                v = v * 16 + tc_hex_digit(*r->p++);
                if (v > 0x10FFFF)
                    return record_failure(r, at, TC_ELIMIT, "character code in '\\x{...}' past U+10FFFF"), -1;
                digits++;
            }
            if (digits == 0)
                return expected(r, "hex digits in '\\x{...}'"), -1;
            if (peek(r) != '}')
                return expected(r, "'}' closing '\\x{'"), -1;
            r->p++;
            return v;
        }
        for (int i = 0; i < 2; i++) {
            int h = tc_hex_digit(peek(r));
            if (h < 0)
                return expected(r, "two hex digits after '\\x'"), -1;
            v = v * 16 + h;
            r->p++;
        }
        return v;
    }
    default:
        r->p--;
        return next_char(r);
    }
}

/* A character inside a quoted item, handling escapes; -1 on error. */
static long quoted_char(reader *r)
{
    if (peek(r) == '\\') {
        r->p++;
        return read_escape(r);
    }
    return next_char(r);
}

/* ---- numbers --------------------------------------------------------------------------- */

/* The reason an integer's digits did not make an integer. */
static bool bad_integer(reader *r, const unsigned char *at, tc_result res)
{
    if (res == TC_ELIMIT)
        return fail_at(r, at, TC_ELIMIT, "integer larger than the VM's largest (%llu 64-bit digits: system_limit)",
                       (unsigned long long)TC_BIG_ARITY_MAX);
    return fail_at(r, at, res, "bad integer");
}

/* Digits valid in `base` with '_' allowed only between two digits, copied to `buf`. */
static size_t scan_digits(reader *r, unsigned base, char *buf, size_t cap, bool *too_long)
{
    size_t n = 0;
    for (;;) {
        int c = peek(r);
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10 : c >= 'A' && c <= 'Z' ? c - 'A' + 10 : 99;
        if (v < (int)base) {
            if (n < cap)
                buf[n] = (char)c;
            else
                *too_long = true;
            n++;
            r->p++;
        } else if (c == '_' && n > 0) {
            int d = peek_at(r, 1);
            int w = d >= '0' && d <= '9' ? d - '0' : d >= 'a' && d <= 'z' ? d - 'a' + 10 : d >= 'A' && d <= 'Z' ? d - 'A' + 10 : 99;
            if (w >= (int)base)
                break;
            r->p++;
        } else {
            break;
        }
    }
    return n;
}

static bool read_number(reader *r, tc_term *out)
{
    const unsigned char *at = r->p;
    bool neg = false;
    if (peek(r) == '-' || peek(r) == '+') {
        neg = *r->p == '-';
        r->p++;
    }
    if (peek(r) == '$') {
        r->p++;
        long c = quoted_char(r);
        if (c < 0)
            return false;
        *out = tc_make_small(neg ? -c : c);
        return true;
    }
    if (!(peek(r) >= '0' && peek(r) <= '9'))
        return expected(r, "a digit");
    /* The number's text ends before the first byte no number can hold: size the digit
     * buffer by that, not by the rest of the input. */
    const unsigned char *q = r->p;
    while (q < r->end && (isalnum(*q) || *q == '_' || *q == '.' || *q == '#' || *q == '+' || *q == '-'))
        q++;
    size_t len = (size_t)(q - r->p);
    char local[128];
    char *buf = len + 16 <= sizeof local ? local : tc_mem_alloc(len + 16);
    if (!buf)
        return oom(r);
    bool too_long = false, ok = true;
    size_t n = scan_digits(r, 10, buf, len, &too_long);
    if (peek(r) == '#') {
        unsigned long base = 0;
        if (n <= 2) {
            buf[n] = '\0';
            base = strtoul(buf, NULL, 10);
        }
        if (base < 2 || base > 36) {
            ok = fail_at(r, at, TC_EPARSE, "integer base must be 2..36");
        } else {
            r->p++;
            n = scan_digits(r, (unsigned)base, buf, len, &too_long);
            if (n == 0)
                ok = expected(r, "a base-N digit after '#'");
            else {
                tc_result res = tc_integer_parse(r->a, buf, n, (unsigned)base, neg, out);
                if (res != TC_OK)
                    ok = res == TC_ENOMEM ? oom(r) : bad_integer(r, at, res);
            }
        }
    } else if (peek(r) == '.' && peek_at(r, 1) >= '0' && peek_at(r, 1) <= '9') {
        size_t k = n;
        buf[k++] = '.';
        r->p++;
        k += scan_digits(r, 10, buf + k, len - k, &too_long);
        if ((peek(r) == 'e' || peek(r) == 'E')) {
            const unsigned char *save = r->p;
            size_t k0 = k;
            buf[k++] = 'e';
            r->p++;
            if (peek(r) == '-' || peek(r) == '+')
                buf[k++] = (char)*r->p++;
            size_t e = scan_digits(r, 10, buf + k, len - k, &too_long);
            if (e == 0) {
                r->p = save; /* not an exponent: "1.0e" then garbage, reported below */
                k = k0;
            }
            k += e;
        }
        buf[k] = '\0';
        double d = strtod(buf, NULL);
        if (!isfinite(d))
            ok = fail_at(r, at, TC_ELIMIT, "float out of range (not a finite double)");
        else {
            *out = tc_term_float(r->a, neg ? -d : d);
            if (*out == TC_NON_VALUE)
                ok = oom(r);
        }
    } else {
        tc_result res = tc_integer_parse(r->a, buf, n, 10, neg, out);
        if (res != TC_OK)
            ok = res == TC_ENOMEM ? oom(r) : bad_integer(r, at, res);
    }
    if (buf != local)
        tc_mem_free(buf);
    return ok;
}

/* ---- atoms, strings, pids ---------------------------------------------------------------- */



static bool make_atom(reader *r, const unsigned char *at, const char *name, size_t len, tc_term *out)
{
    tc_result res = tc_atom_intern(name, len, out);
    if (res == TC_ELIMIT)
        return fail_at(r, at, TC_ELIMIT, "atom too long (%ld characters; the VM's limit is 255)",
                       tc_utf8_length(name, len));
    if (res == TC_ENOMEM)
        return oom(r);
    if (res != TC_OK)
        return fail_at(r, at, res, "invalid atom name");
    return true;
}

static bool read_bare_atom(reader *r, tc_term *out)
{
    const unsigned char *at = r->p;
    for (;;) {
        const unsigned char *q = r->p;
        long c = tc_utf8_decode(&q, r->end);
        if (c < 0 || !tc_atom_is_name_char(c))
            break;
        r->p = q;
    }
    size_t len = (size_t)(r->p - at);
    if (tc_atom_is_reserved_word((const char *)at, len))
        return fail_at(r, at, TC_EPARSE, "reserved word '%.*s' must be quoted to be an atom", (int)len, at);
    return make_atom(r, at, (const char *)at, len, out);
}

/* Reads characters up to the closing `quote` into `vals` (code points). */
static bool read_quoted_chars(reader *r, int quote)
{
    const unsigned char *at = r->p;
    r->p++;
    for (;;) {
        if (at_end(r))
            return fail_at(r, at, TC_EPARSE, "unterminated %s starting here", quote == '"' ? "string" : "quoted atom");
        if (*r->p == quote) {
            r->p++;
            return true;
        }
        long c = quoted_char(r);
        if (c < 0 || !push_val(r, tc_make_small(c)))
            return false;
    }
}

static bool read_quoted_atom(reader *r, tc_term *out)
{
    const unsigned char *at = r->p;
    size_t base = r->vals.n;
    if (!read_quoted_chars(r, '\''))
        return false;
    size_t n = r->vals.n - base;
    char *name = tc_mem_alloc(4 * n + 1);
    if (!name)
        return oom(r);
    size_t len = 0;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        long c = tc_small_val(r->vals.base[base + i]);
        if (c >= 0xD800 && c <= 0xDFFF)
            ok = fail_at(r, at, TC_EPARSE, "atom contains a UTF-16 surrogate code point");
        else
            len += tc_utf8_encode((uint32_t)c, name + len);
    }
    r->vals.n = base;
    if (ok)
        ok = make_atom(r, at, name, len, out);
    tc_mem_free(name);
    return ok;
}

static bool read_string(reader *r, tc_term *out)
{
    size_t base = r->vals.n;
    do {
        if (!read_quoted_chars(r, '"'))
            return false;
        skip_ws(r);
    } while (peek(r) == '"'); /* "ab" "cd" is one string */
    *out = tc_term_list(r->a, &r->vals.base[base], r->vals.n - base, TC_NIL);
    r->vals.n = base;
    return *out != TC_NON_VALUE || oom(r);
}

static bool read_decimal_u64(reader *r, uint64_t max, uint64_t *v, const char *what)
{
    const unsigned char *at = r->p;
    if (!(peek(r) >= '0' && peek(r) <= '9'))
        return expected(r, what);
    uint64_t x = 0;
    while (peek(r) >= '0' && peek(r) <= '9') {
        x = x * 10 + (uint64_t)(*r->p++ - '0');
        if (x > max)
            return fail_at(r, at, TC_ELIMIT, "%s out of range (at most %llu)", what, (unsigned long long)max);
    }
    *v = x;
    return true;
}

static bool read_pid(reader *r, tc_term *out)
{
    const unsigned char *at = r->p;
    uint64_t node = 0, num = 0, serial = 0; /* set by read_decimal_u64 before use; -O3 cannot see it */
    r->p++;
    if (!read_decimal_u64(r, UINT32_MAX, &node, "a pid's node number"))
        return false;
    if (node != 0)
        return fail_at(r, at, TC_EUNSUPPORTED,
                       "a remote pid's text names its node by the VM's dist channel number, which text cannot "
                       "resolve (list_to_pid/1 refuses it unless connected); give its external bytes with --ext");
    if (peek(r) != '.')
        return expected(r, "'.' in a pid");
    r->p++;
    if (!read_decimal_u64(r, (UINT64_C(1) << TC_PID_NUMBER_BITS) - 1, &num, "a pid's process number"))
        return false;
    if (peek(r) != '.')
        return expected(r, "'.' in a pid");
    r->p++;
    if (!read_decimal_u64(r, TC_PID_SERIAL_MAX, &serial, "a pid's serial"))
        return false;
    if (peek(r) != '>')
        return expected(r, "'>' closing a pid");
    r->p++;
    *out = tc_make_pid((uint32_t)num, (uint32_t)serial);
    return true;
}

/* A prefix that must be there, as in "#Ref<". */
static bool accept(reader *r, const char *text)
{
    size_t n = strlen(text);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, text, n) != 0)
        return false;
    r->p += n;
    return true;
}

/* #Ref<0.A.B.C> and #Port<0.N>, as ref_to_list and port_to_list write a local one (and
 * list_to_ref, list_to_port read it); a remote one, and a fun's #Fun<...>, cannot be built
 * from its text. */
static bool read_hash_ident(reader *r, tc_term *out)
{
    const unsigned char *at = r->p;
    if (accept(r, "#Fun<"))
        return fail_at(r, at, TC_EUNSUPPORTED,
                       "a fun's text #Fun<...> does not hold its code or free variables; give the fun's "
                       "external bytes (term_to_binary) with --ext");
    bool ref = accept(r, "#Ref<");
    if (!ref && !accept(r, "#Port<")) {
        r->p++;
        return expected(r, "'{', 'Ref<' or 'Port<' after '#'");
    }
    uint64_t node = 0, num[TC_REF_NUMBERS] = {0};
    if (!read_decimal_u64(r, UINT32_MAX, &node, ref ? "a reference's node number" : "a port's node number"))
        return false;
    if (node != 0)
        return fail_at(r, at, TC_EUNSUPPORTED,
                       "a remote %s's text names its node by the VM's dist channel number, which text cannot "
                       "resolve; give its external bytes with --ext", ref ? "reference" : "port");
    size_t n = ref ? TC_REF_NUMBERS : 1;
    for (size_t i = 0; i < n; i++) {
        if (peek(r) != '.')
            return expected(r, ref ? "'.' in a reference" : "'.' in a port");
        r->p++;
        /* Printed most significant first; number 0 (printed last) has 18 bits, as
         * binary_to_term insists for a local ref, and a port number 28. */
        uint64_t max = !ref ? (UINT64_C(1) << TC_PORT_NUMBER_BITS) - 1 : i == n - 1 ? (UINT64_C(1) << 18) - 1 : UINT32_MAX;
        if (!read_decimal_u64(r, max, &num[n - 1 - i], ref ? "a reference number" : "a port number"))
            return false;
    }
    if (peek(r) != '>')
        return expected(r, ref ? "'>' closing a reference" : "'>' closing a port");
    r->p++;
    if (!ref) {
        *out = tc_make_port((uint32_t)num[0]);
        return true;
    }
    uint32_t n32[TC_REF_NUMBERS] = {(uint32_t)num[0], (uint32_t)num[1], (uint32_t)num[2]};
    *out = tc_term_local_ref(r->a, n32);
    return *out != TC_NON_VALUE || oom(r);
}

static bool read_any_atom(reader *r, tc_term *out);

/* fun M:F/A, as fun_to_list writes an export fun. */
static bool read_export_fun(reader *r, tc_term *out)
{
    r->p += 3;
    tc_term m, f;
    uint64_t arity = 0;
    skip_ws(r);
    if (!read_any_atom(r, &m))
        return false;
    skip_ws(r);
    if (peek(r) != ':')
        return expected(r, "':' in fun M:F/A");
    r->p++;
    skip_ws(r);
    if (!read_any_atom(r, &f))
        return false;
    skip_ws(r);
    if (peek(r) != '/')
        return expected(r, "'/' in fun M:F/A");
    r->p++;
    skip_ws(r);
    if (!read_decimal_u64(r, TC_FUN_MAX_FREE, &arity, "a fun's arity"))
        return false;
    tc_export *e = tc_export_get(m, f, (unsigned)arity);
    *out = e ? tc_term_export_fun(r->a, e) : TC_NON_VALUE;
    return *out != TC_NON_VALUE || oom(r);
}

static bool read_any_atom(reader *r, tc_term *out)
{
    if (peek(r) == '\'')
        return read_quoted_atom(r, out);
    const unsigned char *q = r->p;
    long u = at_end(r) ? -1 : tc_utf8_decode(&q, r->end);
    if (u >= 0 && tc_atom_is_lower_start(u))
        return read_bare_atom(r, out);
    return expected(r, "an atom");
}

/* ---- binaries -------------------------------------------------------------------------- */

typedef struct bitbuf {
    unsigned char *bytes;
    uint64_t bits, cap; /* cap in bytes */
} bitbuf;

/* Makes room for `more` bits (zeroed); TC_ELIMIT past MAX_BINARY_BITS in all. */
static bool bitbuf_reserve(reader *r, bitbuf *b, uint64_t more)
{
    if (more > MAX_BINARY_BITS - r->binary_bits - b->bits)
        return fail_at(r, r->p, TC_ELIMIT,
                       "binaries of more than %llu bits in all (termcopy's bound for binaries written as text)",
                       (unsigned long long)MAX_BINARY_BITS);
    uint64_t need = (b->bits + more + 7) / 8;
    if (need <= b->cap)
        return true;
    uint64_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    if (cap > SIZE_MAX)
        return oom(r);
    unsigned char *p = tc_mem_realloc(b->bytes, (size_t)cap);
    if (!p)
        return oom(r);
    memset(p + b->cap, 0, (size_t)(cap - b->cap));
    b->bytes = p;
    b->cap = cap;
    return true;
}

static bool bitbuf_put(reader *r, bitbuf *b, unsigned bit)
{
    if (!bitbuf_reserve(r, b, 1))
        return false;
    if (bit)
        b->bytes[b->bits / 8] |= (unsigned char)(0x80u >> (b->bits % 8));
    b->bits++;
    return true;
}

/* `count` copies of one bit, whole bytes at a time: a sign extension can be 2^31 bits. */
static bool bitbuf_fill(reader *r, bitbuf *b, unsigned bit, uint64_t count)
{
    if (!bitbuf_reserve(r, b, count))
        return false;
    while (count > 0 && b->bits % 8 != 0) {
        bitbuf_put(r, b, bit);
        count--;
    }
    if (bit)
        memset(b->bytes + b->bits / 8, 0xFF, (size_t)(count / 8));
    b->bits += count / 8 * 8;
    for (count %= 8; count > 0; count--)
        bitbuf_put(r, b, bit);
    return true;
}

/* Appends the low `size` bits of integer `v`, big-endian, in two's complement. */
static bool put_integer_bits(reader *r, bitbuf *b, tc_term v, uint64_t size)
{
    uint64_t tmp;
    size_t n;
    bool neg;
    const uint64_t *mag = tc_integer_digits(v, &tmp, &n, &neg);
    /* The common segment, a small value in whole bytes at a byte boundary, skips the bit loop. */
    if (tc_is_small(v) && size % 8 == 0 && size <= 64 && b->bits % 8 == 0) {
        if (!bitbuf_reserve(r, b, size))
            return false;
        uint64_t x = (uint64_t)tc_small_val(v);
        for (uint64_t k = size / 8; k-- > 0;)
            b->bytes[b->bits / 8 + (size / 8 - 1 - k)] = (unsigned char)(x >> (8 * k));
        b->bits += size;
        return true;
    }
    /* Above the magnitude's digits every bit is the sign. */
    uint64_t digit_bits = (uint64_t)n * 64;
    if (size > digit_bits) {
        if (!bitbuf_fill(r, b, neg, size - digit_bits))
            return false;
        size = digit_bits;
    }
    /* For a negative v the bits are those of ~(|v| - 1); `borrow_end` is the first digit
     * the subtraction of 1 left unchanged. */
    size_t borrow_end = 0;
    if (neg)
        while (borrow_end < n && mag[borrow_end] == 0)
            borrow_end++;
    for (uint64_t i = size; i-- > 0;) {
        size_t w = (size_t)(i / 64);
        uint64_t d = mag[w];
        if (neg) {
            if (w < borrow_end)
                d = UINT64_MAX;      /* 0 - 1 with borrow */
            else if (w == borrow_end)
                d = d - 1;
            d = ~d;
        }
        if (!bitbuf_put(r, b, (unsigned)((d >> (i % 64)) & 1)))
            return false;
    }
    return true;
}

static bool read_binary(reader *r, tc_term *out)
{
    const unsigned char *at = r->p;
    r->p += 2;
    bitbuf b = {0};
    bool ok = true;
    skip_ws(r);
    if (peek(r) == '>' && peek_at(r, 1) == '>') {
        r->p += 2;
    } else {
        for (;;) {
            skip_ws(r);
            const unsigned char *seg = r->p;
            if (peek(r) == '"') {
                size_t base = r->vals.n;
                ok = read_quoted_chars(r, '"');
                for (size_t i = base; ok && i < r->vals.n; i++)
                    for (int k = 7; ok && k >= 0; k--)
                        ok = bitbuf_put(r, &b, (unsigned)(tc_small_val(r->vals.base[i]) >> k) & 1);
                r->vals.n = base;
            } else {
                tc_term v;
                uint64_t size = 8;
                ok = read_number(r, &v);
                if (ok && !tc_is_integer(v))
                    ok = fail_at(r, seg, TC_EPARSE, "binary segments must be integers or strings");
                if (ok && peek(r) == ':') {
                    r->p++;
                    ok = read_decimal_u64(r, MAX_BINARY_BITS, &size, "a segment size in bits");
                }
                if (ok && size > MAX_BINARY_BITS - r->binary_bits - b.bits)
                    ok = fail_at(r, seg, TC_ELIMIT, "binaries of more than %llu bits in all (termcopy's bound "
                                 "for binaries written as text)", (unsigned long long)MAX_BINARY_BITS);
                if (ok)
                    ok = put_integer_bits(r, &b, v, size);
            }
            if (!ok)
                break;
            skip_ws(r);
            if (peek(r) == '/') {
                ok = fail_at(r, r->p, TC_EUNSUPPORTED, "binary type specifiers (/binary, /float, ...) are not supported");
                break;
            }
            if (peek(r) == ',') {
                r->p++;
                continue;
            }
            if (peek(r) == '>' && peek_at(r, 1) == '>') {
                r->p += 2;
                break;
            }
            ok = expected(r, "',' or '>>' in a binary");
            break;
        }
    }
    if (ok && b.bits / 8 > SIZE_MAX - 1)
        ok = fail_at(r, at, TC_ELIMIT, "binary too large");
    if (ok) {
        r->binary_bits += b.bits;
        *out = tc_term_bitstring(r->a, b.bytes, (size_t)(b.bits / 8), (unsigned)(b.bits % 8));
        if (*out == TC_NON_VALUE)
            ok = oom(r);
    }
    tc_mem_free(b.bytes);
    return ok;
}

/* ---- the parse loop -------------------------------------------------------------------- */

/* Reads one value that is not a container; containers are opened by the caller. */
static bool read_scalar(reader *r, tc_term *out)
{
    int c = peek(r);
    if (c == '"')
        return read_string(r, out);
    if (c == '\'')
        return read_quoted_atom(r, out);
    if (c == '<')
        return peek_at(r, 1) == '<' ? read_binary(r, out) : read_pid(r, out);
    if (c == '$' || c == '-' || c == '+' || (c >= '0' && c <= '9'))
        return read_number(r, out);
    if (c == 'f' && peek_at(r, 1) == 'u' && peek_at(r, 2) == 'n' &&
        (peek_at(r, 3) == ' ' || peek_at(r, 3) == '\t' || peek_at(r, 3) == '\n'))
        return read_export_fun(r, out);
    const unsigned char *q = r->p;
    long u = at_end(r) ? -1 : tc_utf8_decode(&q, r->end);
    if (u >= 0 && tc_atom_is_lower_start(u))
        return read_bare_atom(r, out);
    if (u >= 0 && (u == '_' || (u >= 'A' && u <= 'Z')))
        return fail_at(r, r->p, TC_EPARSE, "variables are not terms (found a name starting with '%c')", (int)u);
    return expected(r, "a term");
}

static bool push_frame(reader *r, int kind)
{
    if (!tc_wstack_reserve(&r->frames, 2))
        return oom(r);
    r->frames.base[r->frames.n++] = (tc_term)kind;
    r->frames.base[r->frames.n++] = r->vals.n;
    return true;
}

static int frame_kind(const reader *r) { return (int)(r->frames.base[r->frames.n - 2] & 0xFF); }
static int frame_state(const reader *r) { return (int)(r->frames.base[r->frames.n - 2] >> 8); }
static void set_frame_state(reader *r, int st) { r->frames.base[r->frames.n - 2] = (tc_term)(frame_kind(r) | (st << 8)); }
static size_t frame_start(const reader *r) { return (size_t)r->frames.base[r->frames.n - 1]; }

/* Builds the container of the top frame from its values and pops it. */
static bool close_frame(reader *r, tc_term tail, tc_term *out)
{
    size_t start = frame_start(r), n = r->vals.n - start;
    const tc_term *v = &r->vals.base[start];
    int kind = frame_kind(r);
    bool ok = true;
    if (kind == F_LIST) {
        *out = tc_term_list(r->a, v, n, tail);
        ok = *out != TC_NON_VALUE || oom(r);
    } else if (kind == F_TUPLE) {
        *out = tc_term_tuple(r->a, v, n);
        ok = *out != TC_NON_VALUE || oom(r);
    } else {
        tc_result res = tc_term_map(r->a, v, n / 2, out); /* as `#{}` evaluates: the last of a repeated key wins */
        if (res == TC_EUNSUPPORTED)
            ok = fail_at(r, r->p - 1, res, "map keys the map hash cannot read, or whose hashes agree on 128 bits (deeper than the VM's trie)");
        else if (res != TC_OK)
            ok = oom(r);
    }
    r->vals.n = start;
    r->frames.n -= 2;
    return ok;
}

static bool parse(reader *r, tc_term *result)
{
    tc_term v;
    for (;;) {
        /* Want a value: open a container or read a scalar. */
        skip_ws(r);
        int c = peek(r);
        if (c == '[' || c == '{' || (c == '#' && peek_at(r, 1) == '{')) {
            int kind = c == '[' ? F_LIST : c == '{' ? F_TUPLE : F_MAP;
            r->p += kind == F_MAP ? 2 : 1;
            skip_ws(r);
            int close = kind == F_LIST ? ']' : '}';
            if (peek(r) != close) {
                if (!push_frame(r, kind))
                    return false;
                continue;
            }
            r->p++;
            if (kind == F_LIST)
                v = TC_NIL;
            else if (kind == F_TUPLE)
                v = TC_EMPTY_TUPLE;
            else if (tc_term_flatmap(r->a, NULL, 0, &v) != TC_OK)
                return oom(r);
        } else if (c == '#') {
            if (!read_hash_ident(r, &v))
                return false;
        } else if (!read_scalar(r, &v)) {
            return false;
        }
        /* Have a value: hand it to the innermost open container, closing as many as the
         * text closes. */
        for (;;) {
            if (r->frames.n == 0) {
                *result = v;
                return true;
            }
            int kind = frame_kind(r), st = frame_state(r);
            skip_ws(r);
            c = peek(r);
            if (kind == F_LIST && st == LIST_TAIL) {
                if (c != ']')
                    return expected(r, "']' after the tail of a list");
                r->p++;
                if (!close_frame(r, v, &v))
                    return false;
                continue;
            }
            if (!push_val(r, v))
                return false;
            if (kind == F_MAP && st == MAP_KEY) {
                if (c == ':' && peek_at(r, 1) == '=')
                    return fail_at(r, r->p, TC_EPARSE, "expected '=>' in a map term (':=' only updates a map)");
                if (c != '=' || peek_at(r, 1) != '>')
                    return expected(r, "'=>' after a map key");
                r->p += 2;
                set_frame_state(r, MAP_VALUE);
                break;
            }
            if (c == ',') {
                r->p++;
                if (kind == F_MAP)
                    set_frame_state(r, MAP_KEY);
                break;
            }
            if (kind == F_LIST && c == '|') {
                r->p++;
                set_frame_state(r, LIST_TAIL);
                break;
            }
            if (c == (kind == F_LIST ? ']' : '}')) {
                r->p++;
                if (!close_frame(r, TC_NIL, &v))
                    return false;
                continue;
            }
            return expected(r, kind == F_LIST ? "',', '|' or ']'" : "',' or '}'");
        }
    }
}

tc_result tc_term_read(tc_alloc *a, const char *text, size_t len, tc_term *out, tc_read_error *err)
{
    reader r = {(const unsigned char *)text, (const unsigned char *)text, (const unsigned char *)text + len, a, err, TC_OK, {0}, {0}, 0};
    tc_wstack_init(&r.vals);
    tc_wstack_init(&r.frames);
    tc_term *offheap_mark = a->offheap->first;
    tc_term v = TC_NON_VALUE;
    if (parse(&r, &v)) {
        skip_ws(&r);
        if (peek(&r) == '.') {
            r.p++;
            skip_ws(&r);
        }
        if (!at_end(&r))
            expected(&r, "end of input");
    }
    tc_wstack_destroy(&r.vals);
    tc_wstack_destroy(&r.frames);
    if (r.res != TC_OK) {
        tc_offheap_abandon_until(a->offheap, offheap_mark);
        return r.res;
    }
    *out = v;
    return TC_OK;
}
