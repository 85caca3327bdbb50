/*
 * What OTP 25 writes, and why:
 *
 * - Integers: SMALL_INTEGER_EXT for 0..255, INTEGER_EXT for the rest of the 32-bit range,
 *   else SMALL_BIG_EXT (under 256 magnitude bytes) or LARGE_BIG_EXT. A 60-bit small that
 *   does not fit 32 bits goes out as a bignum too.
 * - Floats: NEW_FLOAT_EXT under both minor versions (FLOAT_EXT is minor 0 only).
 * - Atoms: minor 2 always UTF-8 (SMALL_ATOM_UTF8_EXT, ATOM_UTF8_EXT past 255 bytes). Minor 1
 *   writes an atom whose characters are all below 256 as ATOM_EXT, one byte per character:
 *   term_to_binary's flags lack DFLAG_SMALL_ATOM_TAGS, so SMALL_ATOM_EXT never appears.
 *   OTP 26 made minor 2 the default.
 * - Lists: STRING_EXT when proper, all 0..255 and shorter than 0xFFFF elements (the VM
 *   tests len < MAX_STRING_LEN, so 65,535 bytes is already LIST_EXT); else LIST_EXT with
 *   the full element count, the elements, then the tail.
 * - Maps: MAP_EXT, each key then its value, in flatmap (term) order.
 * - Bitstrings: BINARY_EXT, or BIT_BINARY_EXT with the used bits of the last byte (1..7)
 *   and the unused bits zero.
 * - Local pids: NEW_PID_EXT (always, since OTP 23 made 32-bit creation mandatory), node
 *   'nonode@nohost', process number, serial, creation 0 (a node that is not distributed).
 *
 * Decoding follows dec_term's rules (zero top bytes of a bignum are dropped, LIST_EXT of 0
 * elements is its tail, a BIT_BINARY_EXT uses 1..8 bits of a non-empty last byte, a map
 * key may not repeat, floats must be finite, an atom has at most 255 characters) and is
 * stricter in two places: bytes after the term (binary_to_term/1 ignores them) and a bignum
 * sign byte other than 0 or 1 are TC_EPARSE. Every declared count is checked against the
 * bytes left before anything is built for it, where decoded_size would have caught it.
 */
#include "ext.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "atom.h"
#include "bignum.h"
#include "binary.h"
#include "flatmap.h"
#include "wstack.h"

/* Tags (erl_ext_dist). */
enum {
    NEW_FLOAT_EXT = 70,
    BIT_BINARY_EXT = 77,
    COMPRESSED = 80,
    NEW_PID_EXT = 88,
    NEW_PORT_EXT = 89,
    NEWER_REFERENCE_EXT = 90,
    SMALL_INTEGER_EXT = 97,
    INTEGER_EXT = 98,
    FLOAT_EXT = 99,
    ATOM_EXT = 100,
    REFERENCE_EXT = 101,
    PORT_EXT = 102,
    PID_EXT = 103,
    SMALL_TUPLE_EXT = 104,
    LARGE_TUPLE_EXT = 105,
    NIL_EXT = 106,
    STRING_EXT = 107,
    LIST_EXT = 108,
    BINARY_EXT = 109,
    SMALL_BIG_EXT = 110,
    LARGE_BIG_EXT = 111,
    NEW_FUN_EXT = 112,
    EXPORT_EXT = 113,
    NEW_REFERENCE_EXT = 114,
    SMALL_ATOM_EXT = 115,
    MAP_EXT = 116,
    FUN_EXT = 117,
    ATOM_UTF8_EXT = 118,
    SMALL_ATOM_UTF8_EXT = 119,
    V4_PORT_EXT = 120
};

#define MAX_STRING_LEN 0xFFFFu /* STRING_EXT holds fewer elements than this */
#define MAX_ATOM_SZ_LIMIT (4u * TC_MAX_ATOM_CHARACTERS) /* bytes of the longest UTF-8 atom */
#define PID_NUMBER_LIMIT (UINT32_C(1) << TC_PID_NUMBER_BITS)

static const char local_node[] = "nonode@nohost";
#define LOCAL_NODE_LEN (sizeof local_node - 1)

/* ==== encoding ============================================================================ */

/*
 * Both passes run the same walk. The size pass has cap 0, so nothing is stored and only
 * `pos` advances; the write pass stores what fits in cap. Sharing the walk keeps the two
 * passes from ever disagreeing, which the VM gets by keeping encode_size_struct2 and
 * enc_term in step by hand.
 */
typedef struct emitter {
    unsigned char *buf;
    size_t cap, pos;
} emitter;

static bool writing(const emitter *e, size_t n) { return e->cap >= e->pos && e->cap - e->pos >= n; }

/* Where the next n bytes go when all of them fit, else NULL (always in the size pass): the
 * hot paths test once per item, not once per byte. The caller advances pos by n either way. */
static inline unsigned char *room(emitter *e, size_t n) { return writing(e, n) ? e->buf + e->pos : NULL; }

static inline void store32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

static void put8(emitter *e, unsigned v)
{
    if (e->pos < e->cap)
        e->buf[e->pos] = (unsigned char)v;
    e->pos++;
}

static void put16(emitter *e, unsigned v)
{
    put8(e, (v >> 8) & 0xFF);
    put8(e, v & 0xFF);
}

static void put32(emitter *e, uint64_t v)
{
    unsigned char *b = room(e, 4);
    if (b) {
        store32(b, (uint32_t)v);
        e->pos += 4;
        return;
    }
    for (int s = 24; s >= 0; s -= 8)
        put8(e, (unsigned)(v >> s) & 0xFF);
}

static void put_bytes(emitter *e, const void *p, size_t n)
{
    if (writing(e, n))
        memcpy(e->buf + e->pos, p, n);
    e->pos += n;
}

/* An atom's name as term_to_binary writes it: under minor 1 an all-Latin-1 name goes out
 * as ATOM_EXT, one byte per character; everything else as UTF-8. */
static void put_atom_text(emitter *e, const char *name, size_t len, unsigned minor)
{
    const unsigned char *p = (const unsigned char *)name, *end = p + len;
    if (minor == 1) {
        size_t chars = 0;
        long c = 0;
        while (p < end && (c = tc_utf8_decode(&p, end)) >= 0 && c < 256)
            chars++;
        if (p == end && c >= 0 && c < 256) {
            put8(e, ATOM_EXT);
            put16(e, (unsigned)chars);
            if (!writing(e, chars)) {
                e->pos += chars;
                return;
            }
            for (p = (const unsigned char *)name; p < end;)
                put8(e, (unsigned)tc_utf8_decode(&p, end));
            return;
        }
    }
    if (len > 255) {
        put8(e, ATOM_UTF8_EXT);
        put16(e, (unsigned)len);
    } else {
        put8(e, SMALL_ATOM_UTF8_EXT);
        put8(e, (unsigned)len);
    }
    put_bytes(e, name, len);
}

/* SMALL_BIG_EXT / LARGE_BIG_EXT: byte count, sign, magnitude least significant byte first,
 * with no zero top byte. `d` has n > 0 digits and a non-zero top one. */
static tc_result put_big(emitter *e, const uint64_t *d, size_t n, bool negative)
{
    unsigned top = 8;
    while (top > 1 && (d[n - 1] >> (8 * (top - 1))) == 0)
        top--;
    uint64_t bytes = (uint64_t)(n - 1) * 8 + top;
    if (n > TC_BIG_ARITY_MAX) /* built by hand past the VM's limit: the decoder would refuse it */
        return TC_ELIMIT;
    if (bytes < 256) {
        put8(e, SMALL_BIG_EXT);
        put8(e, (unsigned)bytes);
    } else {
        put8(e, LARGE_BIG_EXT);
        put32(e, bytes);
    }
    put8(e, negative);
    if (!writing(e, bytes)) {
        e->pos += bytes;
        return TC_OK;
    }
    for (uint64_t i = 0; i < bytes; i++)
        put8(e, (unsigned)(d[i / 8] >> (8 * (i % 8))) & 0xFF);
    return TC_OK;
}

/* A small integer of the 32-bit range: SMALL_INTEGER_EXT or INTEGER_EXT. Anything else
 * (a bigger small, any other term) is left to put_term: false. */
static inline bool put_int32(emitter *e, tc_term t)
{
    if (!tc_is_small(t))
        return false;
    int64_t v = tc_small_val(t);
    if (v >= 0 && v < 256) {
        unsigned char *b = room(e, 2);
        if (b) {
            b[0] = SMALL_INTEGER_EXT;
            b[1] = (unsigned char)v;
        }
        e->pos += 2;
        return true;
    }
    if (v < INT32_MIN || v > INT32_MAX)
        return false;
    unsigned char *b = room(e, 5);
    if (b) {
        b[0] = INTEGER_EXT;
        store32(b + 1, (uint32_t)(int32_t)v);
    }
    e->pos += 5;
    return true;
}

/* NEW_FLOAT_EXT of the float object at p. */
static inline void put_float(emitter *e, const tc_term *p)
{
    uint64_t bits;
    memcpy(&bits, &p[1], sizeof bits);
    unsigned char *b = room(e, 9);
    if (b) {
        b[0] = NEW_FLOAT_EXT;
        store32(b + 1, (uint32_t)(bits >> 32));
        store32(b + 5, (uint32_t)bits);
    }
    e->pos += 9;
}

/* A list or tuple element the walk writes on its way, without the stack: a small integer of
 * the 32-bit range or a float. false for anything else, which goes to put_term. */
static inline bool put_leaf(emitter *e, tc_term t)
{
    if (tc_is_boxed(t) && tc_boxed_val(t)[0] == TC_MAKE_HEADER(1, TC_SUBTAG_FLOAT)) {
        put_float(e, tc_boxed_val(t));
        return true;
    }
    return put_int32(e, t);
}

static tc_result put_integer(emitter *e, tc_term t)
{
    if (put_int32(e, t))
        return TC_OK;
    uint64_t tmp;
    size_t n;
    bool negative;
    const uint64_t *d = tc_integer_digits(t, &tmp, &n, &negative);
    return put_big(e, d, n, negative);
}

/* BINARY_EXT, or BIT_BINARY_EXT with the count of used bits in the last byte and the unused
 * ones zero. A sub binary may start mid-byte, so bytes are realigned as they are written. */
static tc_result put_bitstring(emitter *e, tc_term t)
{
    tc_bits b = tc_bitstring_get(t);
    size_t stored = b.bytes + (b.extra_bits ? 1 : 0);
    if (stored > UINT32_MAX)
        return TC_ELIMIT;
    if (b.extra_bits == 0) {
        put8(e, BINARY_EXT);
        put32(e, stored);
    } else {
        put8(e, BIT_BINARY_EXT);
        put32(e, stored);
        put8(e, b.extra_bits);
    }
    if (!writing(e, stored)) {
        e->pos += stored;
        return TC_OK;
    }
    if (b.bitoffs == 0) {
        memcpy(e->buf + e->pos, b.data, b.bytes);
        e->pos += b.bytes;
    } else {
        for (size_t i = 0; i < b.bytes; i++)
            put8(e, tc_bits_byte(&b, i));
    }
    if (b.extra_bits) {
        unsigned last = 0;
        for (unsigned k = 0; k < b.extra_bits; k++)
            last |= tc_bits_bit(&b, 8 * b.bytes + k) << (7 - k);
        put8(e, last);
    }
    return TC_OK;
}

/* What is left to encode, on the walk's stack (kind on top):
 *   TERM  t                  one term
 *   CONS  cell               the car of cell, then the rest of its list
 *   ARRAY ptr n              n > 0 terms at ptr (tuple elements)
 *   MAP   keys values n      n key/value pairs, key first (flatmap order) */
enum { K_TERM, K_CONS, K_ARRAY, K_MAP };

static tc_term word_of(const tc_term *p) { return (tc_term)(uintptr_t)p; }
static const tc_term *ptr_of(tc_term w) { return (const tc_term *)(uintptr_t)w; }

static bool push(tc_wstack *s, size_t k, const tc_term *w)
{
    if (!tc_wstack_reserve(s, k))
        return false;
    for (size_t i = 0; i < k; i++) /* two to four words: a call to memcpy costs more */
        s->base[s->n + i] = w[i];
    s->n += k;
    return true;
}

/* A list goes out as STRING_EXT when proper, all bytes, and short enough; else LIST_EXT
 * with its full element count (is_external_string walks it all, as here). */
static tc_result put_list_header(emitter *e, tc_wstack *s, tc_term list)
{
    uint64_t n = 0;
    bool bytes_only = true;
    tc_term l = list;
    for (; tc_is_list(l); l = tc_cdr(l), n++) {
        tc_term h = tc_car(l);
        if (bytes_only && !(tc_is_small(h) && (uint64_t)tc_small_val(h) < 256))
            bytes_only = false;
    }
    if (bytes_only && tc_is_nil(l) && n < MAX_STRING_LEN) {
        put8(e, STRING_EXT);
        put16(e, (unsigned)n);
        if (!writing(e, n)) {
            e->pos += n;
            return TC_OK;
        }
        unsigned char *b = e->buf + e->pos;
        for (l = list; tc_is_list(l); l = tc_cdr(l))
            *b++ = (unsigned char)tc_small_val(tc_car(l));
        e->pos += n;
        return TC_OK;
    }
    if (n > UINT32_MAX)
        return TC_ELIMIT;
    put8(e, LIST_EXT);
    put32(e, n);
    return push(s, 2, (const tc_term[]){list, K_CONS}) ? TC_OK : TC_ENOMEM;
}

/* Writes one term's header (or all of it, for a leaf) and queues its children. */
static tc_result put_term(emitter *e, tc_wstack *s, tc_term t, unsigned minor)
{
    if (tc_is_small(t))
        return put_integer(e, t);
    if (tc_is_atom(t)) {
        size_t len;
        const char *name = tc_atom_name(t, &len);
        put_atom_text(e, name, len, minor);
        return TC_OK;
    }
    if (tc_is_nil(t)) {
        put8(e, NIL_EXT);
        return TC_OK;
    }
    if (tc_is_pid(t)) {
        put8(e, NEW_PID_EXT);
        put_atom_text(e, local_node, LOCAL_NODE_LEN, minor);
        put32(e, tc_pid_number(t));
        put32(e, tc_pid_serial(t));
        put32(e, 0); /* creation of a node that is not distributed */
        return TC_OK;
    }
    if (tc_is_list(t))
        return put_list_header(e, s, t);
    if (!tc_is_boxed(t))
        return TC_EUNSUPPORTED;
    const tc_term *p = tc_boxed_val(t);
    switch (tc_header_subtag(p[0])) {
    case TC_SUBTAG_ARITYVAL: {
        uint64_t arity = tc_header_arity(p[0]);
        if (arity > UINT32_MAX)
            return TC_ELIMIT;
        if (arity <= 255) {
            put8(e, SMALL_TUPLE_EXT);
            put8(e, (unsigned)arity);
        } else {
            put8(e, LARGE_TUPLE_EXT);
            put32(e, arity);
        }
        if (arity > 0 && !push(s, 3, (const tc_term[]){word_of(&p[1]), arity, K_ARRAY}))
            return TC_ENOMEM;
        return TC_OK;
    }
    case TC_SUBTAG_POS_BIG:
    case TC_SUBTAG_NEG_BIG:
        return put_integer(e, t);
    case TC_SUBTAG_FLOAT:
        put_float(e, p);
        return TC_OK;
    case TC_SUBTAG_HEAP_BINARY:
    case TC_SUBTAG_REFC_BINARY:
    case TC_SUBTAG_SUB_BINARY:
        return put_bitstring(e, t);
    case TC_SUBTAG_MAP: {
        if (p[0] != TC_MAP_HEADER_FLATMAP)
            return TC_EUNSUPPORTED;
        uint64_t n = tc_flatmap_size(t);
        put8(e, MAP_EXT);
        put32(e, n);
        const tc_term *keys = &tc_boxed_val(tc_flatmap_keys(t))[1];
        if (n > 0 && !push(s, 4, (const tc_term[]){word_of(keys), word_of(tc_flatmap_values(t)), n, K_MAP}))
            return TC_ENOMEM;
        return TC_OK;
    }
    default:
        return TC_EUNSUPPORTED;
    }
}

/* Pops the next term to encode into *t; false when the walk is done. Small integers and
 * floats among a list's or a tuple's elements are written on the way (put_leaf; in order:
 * nothing else is written between them), so only the other elements go round the stack and
 * put_term. */
static bool next_term(emitter *e, tc_wstack *s, tc_term *t, tc_result *r)
{
    if (tc_wstack_empty(s))
        return false;
    tc_term kind = tc_wstack_pop(s);
    if (kind == K_TERM) {
        *t = tc_wstack_pop(s);
    } else if (kind == K_CONS) {
        tc_term cell = tc_wstack_pop(s), tail = tc_cdr(cell);
        while (tc_is_list(tail) && put_leaf(e, tc_car(cell))) {
            cell = tail;
            tail = tc_cdr(cell);
        }
        *t = tc_car(cell);
        s->base[s->n++] = tail; /* the two words just popped make room */
        s->base[s->n++] = tc_is_list(tail) ? K_CONS : K_TERM;
    } else if (kind == K_ARRAY) {
        uint64_t n = tc_wstack_pop(s);
        const tc_term *p = ptr_of(tc_wstack_pop(s));
        while (n > 1 && put_leaf(e, p[0])) {
            p++;
            n--;
        }
        *t = p[0];
        if (n > 1) {
            s->base[s->n++] = word_of(p + 1);
            s->base[s->n++] = n - 1;
            s->base[s->n++] = K_ARRAY;
        }
    } else {
        uint64_t n = tc_wstack_pop(s);
        const tc_term *v = ptr_of(tc_wstack_pop(s)), *k = ptr_of(tc_wstack_pop(s));
        *t = k[0];
        if ((n > 1 && !push(s, 4, (const tc_term[]){word_of(k + 1), word_of(v + 1), n - 1, K_MAP})) ||
            !push(s, 2, (const tc_term[]){v[0], K_TERM}))
            *r = TC_ENOMEM;
    }
    return true;
}

static tc_result walk(tc_term t, unsigned minor, emitter *e)
{
    tc_wstack s;
    tc_wstack_init(&s);
    put8(e, TC_EXT_VERSION);
    tc_result r = TC_OK;
    do
        r = put_term(e, &s, t, minor);
    while (r == TC_OK && next_term(e, &s, &t, &r) && r == TC_OK);
    tc_wstack_destroy(&s);
    return r;
}

tc_result tc_ext_size(tc_term t, unsigned minor, size_t *bytes)
{
    if (minor != 1 && minor != 2)
        return TC_EBADARG;
    emitter e = {NULL, 0, 0};
    tc_result r = walk(t, minor, &e);
    if (r == TC_OK)
        *bytes = e.pos;
    return r;
}

tc_result tc_ext_encode_into(tc_term t, unsigned minor, unsigned char *buf, size_t cap, size_t *len)
{
    if (minor != 1 && minor != 2)
        return TC_EBADARG;
    emitter e = {buf, cap, 0};
    tc_result r = walk(t, minor, &e);
    if (r == TC_OK && e.pos > cap)
        r = TC_EBADARG; /* buffer below tc_ext_size: what did not fit was not written */
    if (r == TC_OK)
        *len = e.pos;
    return r;
}

tc_result tc_ext_encode(tc_term t, unsigned minor, unsigned char **bytes, size_t *len)
{
    size_t size;
    tc_result r = tc_ext_size(t, minor, &size);
    if (r != TC_OK)
        return r;
    unsigned char *buf = tc_mem_alloc(size);
    if (!buf)
        return TC_ENOMEM;
    r = tc_ext_encode_into(t, minor, buf, size, len);
    if (r != TC_OK) {
        tc_mem_free(buf);
        return r;
    }
    TC_ASSERT(*len == size);
    *bytes = buf;
    return TC_OK;
}

/* ==== decoding ============================================================================ */

/* Open containers, four words each: kind, values still to come, index of the first value
 * on the value stack, offset of the container's tag. */
enum { F_LIST, F_TUPLE, F_MAP };
enum { FR_KIND, FR_LEFT, FR_START, FR_AT, FRAME_WORDS };

typedef struct decoder {
    const unsigned char *start, *p, *end;
    tc_alloc *a;
    tc_read_error *err;
    tc_result res;
    tc_wstack vals;
    tc_wstack frames;
} decoder;

/* Records the first error; later ones are consequences. */
TC_PRINTF(4, 5) static void record_failure(decoder *d, const unsigned char *at, tc_result code, const char *fmt, ...)
{
    if (d->res != TC_OK)
        return;
    d->res = code;
    if (d->err) {
        size_t off = (size_t)(at - d->start);
        d->err->offset = off;
        int k = snprintf(d->err->message, sizeof d->err->message, "byte %zu: ", off);
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(d->err->message + k, sizeof d->err->message - (size_t)k, fmt, ap); /* truncated is fine */
        va_end(ap);
    }
}

/* record_failure as an expression that is false, for `return fail_at(...)`; a macro so that
 * the static analyzer, which does not follow variadic calls, sees the false. */
#define fail_at(...) (record_failure(__VA_ARGS__), false)

static bool oom(decoder *d) { return fail_at(d, d->p, TC_ENOMEM, "out of memory"); }
static bool built(decoder *d, tc_term t) { return t != TC_NON_VALUE || oom(d); }
static size_t left(const decoder *d) { return (size_t)(d->end - d->p); }

/* A fixed-size field of `n` bytes must be there. */
static bool need(decoder *d, size_t n, const char *what)
{
    if (left(d) >= n)
        return true;
    return fail_at(d, d->p, TC_EPARSE, "input ends inside %s (%zu bytes needed, %zu left)", what, n, left(d));
}

/* A declared count read at `at` must fit what is left: every value takes at least one
 * byte, so a corrupt huge count fails here, before anything is allocated for it. */
static bool fits(decoder *d, const unsigned char *at, uint64_t n, const char *what)
{
    if (n <= left(d))
        return true;
    return fail_at(d, at, TC_EPARSE, "%s declares %llu, more than the %zu bytes left", what,
                   (unsigned long long)n, left(d));
}

static unsigned get8(decoder *d) { return *d->p++; }
static unsigned get16(decoder *d)
{
    unsigned v = (unsigned)d->p[0] << 8 | d->p[1];
    d->p += 2;
    return v;
}
static uint32_t get32(decoder *d)
{
    uint32_t v = (uint32_t)d->p[0] << 24 | (uint32_t)d->p[1] << 16 | (uint32_t)d->p[2] << 8 | d->p[3];
    d->p += 4;
    return v;
}

static bool intern(decoder *d, const unsigned char *len_at, const unsigned char *text, const char *name,
                   size_t len, tc_term *out)
{
    tc_result r = tc_atom_intern(name, len, out);
    if (r == TC_OK)
        return true;
    if (r == TC_ENOMEM)
        return oom(d);
    if (r == TC_EPARSE) {
        const unsigned char *q = text, *end = text + len;
        while (q < end) {
            const unsigned char *at = q;
            if (tc_utf8_decode(&q, end) < 0)
                return fail_at(d, at, TC_EPARSE, "atom text is not UTF-8 (byte 0x%02X)", *at);
        }
    }
    long chars = tc_utf8_length(name, len);
    if (chars > (long)TC_MAX_ATOM_CHARACTERS)
        return fail_at(d, len_at, TC_ELIMIT, "atom of %ld characters (the VM's limit is 255)", chars);
    return fail_at(d, len_at, r, "atom table full");
}

/* One atom in any of its four encodings; Latin-1 names are converted to UTF-8. */
static bool decode_atom(decoder *d, tc_term *out)
{
    const unsigned char *at = d->p;
    if (left(d) == 0)
        return fail_at(d, at, TC_EPARSE, "input ends where an atom was expected");
    unsigned tag = get8(d);
    bool wide = tag == ATOM_EXT || tag == ATOM_UTF8_EXT;
    if (tag != ATOM_EXT && tag != SMALL_ATOM_EXT && tag != ATOM_UTF8_EXT && tag != SMALL_ATOM_UTF8_EXT)
        return fail_at(d, at, TC_EPARSE, "expected an atom (tag 100, 115, 118 or 119), found tag %u", tag);
    const unsigned char *len_at = d->p;
    if (!need(d, wide ? 2 : 1, "an atom's length"))
        return false;
    size_t n = wide ? get16(d) : get8(d);
    if (!fits(d, len_at, n, "atom length"))
        return false;
    const unsigned char *text = d->p;
    d->p += n;
    if (tag == ATOM_EXT || tag == SMALL_ATOM_EXT) {
        if (n > TC_MAX_ATOM_CHARACTERS)
            return fail_at(d, len_at, TC_ELIMIT, "atom of %zu characters (the VM's limit is 255)", n);
        char utf8[2 * TC_MAX_ATOM_CHARACTERS];
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            k += tc_utf8_encode(text[i], utf8 + k);
        return intern(d, len_at, text, utf8, k, out);
    }
    if (n > MAX_ATOM_SZ_LIMIT)
        return fail_at(d, len_at, TC_ELIMIT, "atom of %zu bytes (the VM's limit is 1020: 255 characters)", n);
    return intern(d, len_at, text, (const char *)text, n, out);
}

static bool decode_big(decoder *d, unsigned tag, tc_term *out)
{
    const unsigned char *len_at = d->p;
    bool large = tag == LARGE_BIG_EXT;
    if (!need(d, large ? 4 : 1, "a bignum's length"))
        return false;
    uint64_t n = large ? get32(d) : get8(d);
    if (!fits(d, len_at, n + 1, "bignum (sign and digit bytes)"))
        return false;
    if (n > TC_BIG_ARITY_MAX * 8)
        return fail_at(d, len_at, TC_ELIMIT, "bignum of %llu bytes (the VM's limit is %llu)", (unsigned long long)n,
                       (unsigned long long)(TC_BIG_ARITY_MAX * 8));
    const unsigned char *sign_at = d->p;
    unsigned sign = get8(d);
    if (sign > 1)
        return fail_at(d, sign_at, TC_EPARSE, "bignum sign byte is %u (0 or 1 expected)", sign);
    const unsigned char *mag = d->p;
    d->p += n;
    while (n > 0 && mag[n - 1] == 0) /* leading zero bytes: normalise as dec_term does */
        n--;
    size_t words = (size_t)(n + 7) / 8;
    uint64_t one = 0, *digits = words <= 1 ? &one : tc_mem_calloc(words, sizeof *digits);
    if (!digits)
        return oom(d);
    for (uint64_t i = 0; i < n; i++)
        digits[i / 8] |= (uint64_t)mag[i] << (8 * (i % 8));
    *out = tc_term_integer(d->a, sign, digits, words);
    if (digits != &one)
        tc_mem_free(digits);
    return built(d, *out);
}

static bool decode_float(decoder *d, unsigned tag, tc_term *out)
{
    const unsigned char *at = d->p;
    double f;
    if (tag == NEW_FLOAT_EXT) {
        if (!need(d, 8, "NEW_FLOAT_EXT"))
            return false;
        uint64_t bits = (uint64_t)get32(d) << 32;
        bits |= get32(d);
        memcpy(&f, &bits, sizeof f);
    } else {
        /* Minor version 0: "%.20e" text padded with NULs to 31 bytes. */
        if (!need(d, 31, "FLOAT_EXT"))
            return false;
        char text[32];
        memcpy(text, d->p, 31);
        text[31] = '\0';
        d->p += 31;
        char *end;
        f = strtod(text, &end);
        size_t used = (size_t)(end - text);
        if (used == 0 || text[used] != '\0')
            return fail_at(d, at, TC_EPARSE, "FLOAT_EXT text is not a number");
    }
    if (!isfinite(f))
        return fail_at(d, at, TC_EPARSE, "float is NaN or infinite (Erlang floats are finite)");
    *out = tc_term_float(d->a, f);
    return built(d, *out);
}

static bool decode_pid(decoder *d, unsigned tag, const unsigned char *at, tc_term *out)
{
    tc_term node;
    if (!decode_atom(d, &node))
        return false;
    const unsigned char *id_at = d->p;
    if (!need(d, tag == NEW_PID_EXT ? 12 : 9, "a pid's ID, serial and creation"))
        return false;
    uint32_t number = get32(d), serial = get32(d);
    uint32_t creation = tag == NEW_PID_EXT ? get32(d) : get8(d);
    if (number >= PID_NUMBER_LIMIT)
        return fail_at(d, id_at, TC_ELIMIT, "pid process number %lu does not fit the VM's 28 bits",
                       (unsigned long)number);
    size_t len;
    const char *name = tc_atom_name(node, &len);
    if (len != LOCAL_NODE_LEN || memcmp(name, local_node, len) != 0 || creation != 0)
        return fail_at(d, at, TC_EUNSUPPORTED,
                       "pid of node '%.*s' creation %lu: only local pids ('nonode@nohost', creation 0) are modelled",
                       (int)(len > 64 ? 64 : len), name, (unsigned long)creation);
    *out = tc_make_pid(number, serial);
    return true;
}

static bool decode_binary(decoder *d, unsigned tag, tc_term *out)
{
    const unsigned char *len_at = d->p;
    bool bits_field = tag == BIT_BINARY_EXT;
    if (!need(d, bits_field ? 5 : 4, bits_field ? "BIT_BINARY_EXT's header" : "BINARY_EXT's length"))
        return false;
    uint32_t n = get32(d);
    const unsigned char *bits_at = d->p;
    unsigned bits = bits_field ? get8(d) : 8;
    if (!fits(d, len_at, n, "binary length"))
        return false;
    /* dec_term's rule: a non-empty bitstring uses 1..8 bits of its last byte, an empty one 0. */
    if (bits_field && ((bits == 0) != (n == 0) || bits > 8))
        return fail_at(d, bits_at, TC_EPARSE, "BIT_BINARY_EXT of %lu bytes says %u bits in its last byte",
                       (unsigned long)n, bits);
    const unsigned char *data = d->p;
    d->p += n;
    if (bits == 8 || n == 0)
        *out = tc_term_binary(d->a, data, n);
    else
        *out = tc_term_bitstring(d->a, data, n - 1, bits);
    return built(d, *out);
}

static bool open_frame(decoder *d, unsigned kind, uint64_t values, const unsigned char *at)
{
    if (!tc_wstack_reserve(&d->frames, FRAME_WORDS))
        return oom(d);
    tc_term *f = d->frames.base + d->frames.n; /* not &base[n]: see wstack.h */
    f[FR_KIND] = kind;
    f[FR_LEFT] = values;
    f[FR_START] = d->vals.n;
    f[FR_AT] = (tc_term)(at - d->start);
    d->frames.n += FRAME_WORDS;
    return true;
}

/* Builds the top container from its values on the value stack and pops it. */
static bool close_frame(decoder *d, tc_term *out)
{
    tc_term *f = d->frames.base + (d->frames.n - FRAME_WORDS); /* not &base[n]: see wstack.h */
    size_t start = (size_t)f[FR_START], n = d->vals.n - start;
    const tc_term *v = d->vals.base + start;
    bool ok;
    if (f[FR_KIND] == F_LIST) {
        ok = built(d, *out = tc_term_list(d->a, v, n - 1, v[n - 1]));
    } else if (f[FR_KIND] == F_TUPLE) {
        ok = built(d, *out = tc_term_tuple(d->a, v, n));
    } else {
        tc_result r = tc_term_flatmap(d->a, v, n / 2, out);
        if (r != TC_OK)
            ok = oom(d); /* <= 32 keys: the only other failure is memory */
        else if (tc_flatmap_size(*out) != n / 2)
            ok = fail_at(d, d->start + f[FR_AT], TC_EPARSE, "MAP_EXT has a repeated key");
        else
            ok = true;
    }
    d->vals.n = start;
    d->frames.n -= FRAME_WORDS;
    return ok;
}

/* Reads one value, or opens a container (*opened) whose values follow. */
static bool decode_item(decoder *d, tc_term *out, bool *opened)
{
    const unsigned char *at = d->p;
    if (left(d) == 0)
        return fail_at(d, at, TC_EPARSE, "input ends where a term was expected");
    unsigned tag = *d->p;
    if (tag == ATOM_EXT || tag == SMALL_ATOM_EXT || tag == ATOM_UTF8_EXT || tag == SMALL_ATOM_UTF8_EXT)
        return decode_atom(d, out);
    d->p++;
    switch (tag) {
    case SMALL_INTEGER_EXT:
        if (!need(d, 1, "SMALL_INTEGER_EXT"))
            return false;
        *out = tc_make_small(get8(d));
        return true;
    case INTEGER_EXT:
        if (!need(d, 4, "INTEGER_EXT"))
            return false;
        *out = tc_make_small((int32_t)get32(d));
        return true;
    case SMALL_BIG_EXT:
    case LARGE_BIG_EXT:
        return decode_big(d, tag, out);
    case NEW_FLOAT_EXT:
    case FLOAT_EXT:
        return decode_float(d, tag, out);
    case NIL_EXT:
        *out = TC_NIL;
        return true;
    case STRING_EXT: {
        const unsigned char *len_at = d->p;
        if (!need(d, 2, "STRING_EXT's length"))
            return false;
        size_t n = get16(d);
        if (!fits(d, len_at, n, "STRING_EXT length"))
            return false;
        if (n == 0) {
            *out = TC_NIL;
            return true;
        }
        /* The cells written straight from the bytes, laid out as tc_term_list lays them out
         * (one block, the head cell highest). */
        const unsigned char *text = d->p;
        d->p += n;
        tc_term *cells = tc_alloc_words(d->a, TC_CONS_SIZE * n);
        if (!cells)
            return oom(d);
        tc_term tail = TC_NIL;
        for (size_t i = n; i-- > 0;) {
            tc_term *cell = &cells[TC_CONS_SIZE * (n - 1 - i)];
            cell[0] = tc_make_small(text[i]);
            cell[1] = tail;
            tail = tc_make_list(cell);
        }
        *out = tail;
        return true;
    }
    case LIST_EXT:
    case SMALL_TUPLE_EXT:
    case LARGE_TUPLE_EXT:
    case MAP_EXT: {
        const unsigned char *len_at = d->p;
        bool small = tag == SMALL_TUPLE_EXT;
        if (!need(d, small ? 1 : 4, "a container's count"))
            return false;
        uint64_t n = small ? get8(d) : get32(d);
        /* Values that follow: elements and tail, elements, or keys and values. */
        uint64_t values = tag == LIST_EXT ? n + 1 : tag == MAP_EXT ? 2 * n : n;
        if (!fits(d, len_at, values, tag == LIST_EXT ? "LIST_EXT (elements + tail)" : tag == MAP_EXT ? "MAP_EXT (keys + values)" : "tuple arity"))
            return false;
        if (tag == MAP_EXT && n > TC_MAP_SMALL_MAP_LIMIT)
            return fail_at(d, at, TC_EUNSUPPORTED,
                           "map of %llu keys: over 32 keys the VM builds a hashmap, which termcopy does not model yet",
                           (unsigned long long)n);
        if (values == 0) {
            if (tag != MAP_EXT) {
                *out = TC_EMPTY_TUPLE;
                return true;
            }
            if (tc_term_flatmap(d->a, NULL, 0, out) != TC_OK)
                return oom(d);
            return true;
        }
        *opened = true;
        return open_frame(d, tag == LIST_EXT ? F_LIST : tag == MAP_EXT ? F_MAP : F_TUPLE, values, at);
    }
    case BINARY_EXT:
    case BIT_BINARY_EXT:
        return decode_binary(d, tag, out);
    case NEW_PID_EXT:
    case PID_EXT:
        return decode_pid(d, tag, at, out);
    case NEW_PORT_EXT:
    case PORT_EXT:
    case V4_PORT_EXT:
        return fail_at(d, at, TC_EUNSUPPORTED, "a port (tag %u): termcopy does not model ports", tag);
    case REFERENCE_EXT:
    case NEW_REFERENCE_EXT:
    case NEWER_REFERENCE_EXT:
        return fail_at(d, at, TC_EUNSUPPORTED, "a reference (tag %u): termcopy does not model references", tag);
    case NEW_FUN_EXT:
    case FUN_EXT:
    case EXPORT_EXT:
        return fail_at(d, at, TC_EUNSUPPORTED, "a fun (tag %u): termcopy does not model funs", tag);
    default:
        return fail_at(d, at, TC_EPARSE, "unknown or misplaced tag %u", tag);
    }
}

/*
 * The elements of the innermost open container that are small integers or floats, read in
 * one loop straight onto the value stack: what decode_item and the hand-over in parse do for
 * them, without the round trip. It stops before the container's last value (which closes it),
 * and at anything else: a truncated or non-finite item is left for decode_item to report
 * exactly as it would. The stack is grown once, for at most as many values as the bytes left
 * could hold (two bytes each at least); each item's bytes are checked once, not each byte.
 */
static bool read_elements(decoder *d)
{
    if (left(d) == 0 || (*d->p != SMALL_INTEGER_EXT && *d->p != INTEGER_EXT && *d->p != NEW_FLOAT_EXT))
        return true;
    tc_term *f = d->frames.base + (d->frames.n - FRAME_WORDS); /* not &base[n]: see wstack.h */
    uint64_t most = f[FR_LEFT] - 1;
    if (most > left(d) / 2)
        most = left(d) / 2;
    if (most == 0)
        return true;
    if (!tc_wstack_reserve(&d->vals, (size_t)most))
        return oom(d);
    tc_term *v = d->vals.base + d->vals.n;
    const unsigned char *p = d->p, *end = d->end;
    uint64_t k = 0;
    for (; k < most; k++) {
        size_t n = (size_t)(end - p);
        if (n >= 2 && p[0] == SMALL_INTEGER_EXT) {
            v[k] = tc_make_small(p[1]);
            p += 2;
        } else if (n >= 5 && p[0] == INTEGER_EXT) {
            v[k] = tc_make_small((int32_t)((uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 | p[4]));
            p += 5;
        } else if (n >= 9 && p[0] == NEW_FLOAT_EXT) {
            uint64_t bits = (uint64_t)p[1] << 56 | (uint64_t)p[2] << 48 | (uint64_t)p[3] << 40 | (uint64_t)p[4] << 32 |
                            (uint64_t)p[5] << 24 | (uint64_t)p[6] << 16 | (uint64_t)p[7] << 8 | p[8];
            double x;
            memcpy(&x, &bits, sizeof x);
            if (!isfinite(x))
                break;
            p += 9;
            if ((v[k] = tc_term_float(d->a, x)) == TC_NON_VALUE) {
                d->p = p; /* where decode_float reports it */
                return oom(d);
            }
        } else {
            break;
        }
    }
    d->p = p;
    d->vals.n += (size_t)k;
    f[FR_LEFT] -= k;
    return true;
}

static bool parse(decoder *d, tc_term *result)
{
    for (;;) {
        tc_term v = TC_NON_VALUE;
        bool opened = false;
        if (d->frames.n != 0 && !read_elements(d))
            return false;
        if (!decode_item(d, &v, &opened))
            return false;
        if (opened)
            continue;
        /* Hand the value to the innermost open container, closing each one it completes. */
        for (;;) {
            if (d->frames.n == 0) {
                *result = v;
                return true;
            }
            if (!tc_wstack_push(&d->vals, v))
                return oom(d);
            if (--d->frames.base[d->frames.n - FRAME_WORDS + FR_LEFT] > 0)
                break;
            if (!close_frame(d, &v))
                return false;
        }
    }
}

tc_result tc_ext_decode(tc_alloc *a, const unsigned char *bytes, size_t len, tc_term *out, tc_read_error *err)
{
    decoder d = {bytes, bytes, bytes + len, a, err, TC_OK, {0}, {0}};
    tc_wstack_init(&d.vals);
    tc_wstack_init(&d.frames);
    tc_term *offheap_mark = a->offheap->first;
    tc_term v = TC_NON_VALUE;
    if (len == 0) {
        record_failure(&d, d.p, TC_EPARSE, "empty input (expected the version byte 131)");
    } else if (bytes[0] != TC_EXT_VERSION) {
        record_failure(&d, d.p, TC_EPARSE, "version byte is %u, expected 131", bytes[0]);
    } else if (len > 1 && bytes[1] == COMPRESSED) {
        d.p += 2;
        if (need(&d, 4, "the compressed term's size"))
            record_failure(&d, bytes + 1, TC_EUNSUPPORTED, "compressed term (tag 80): termcopy is built without zlib");
    } else {
        d.p++;
        if (parse(&d, &v) && d.p != d.end)
            record_failure(&d, d.p, TC_EPARSE, "%zu bytes after the end of the term", left(&d));
    }
    tc_wstack_destroy(&d.vals);
    tc_wstack_destroy(&d.frames);
    if (d.res != TC_OK) {
        tc_offheap_abandon_until(a->offheap, offheap_mark);
        return d.res;
    }
    *out = v;
    return TC_OK;
}
