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
 * - Lists: STRING_EXT when proper, all 0..255 and at most 0xFFFF elements
 *   (is_external_string fails only when ++len > MAX_STRING_LEN: 65,535 bytes is still a
 *   string, 65,536 LIST_EXT); else LIST_EXT with the element count, the elements, then the
 *   tail (enc_term patches the count in when it reaches the tail, and so does termcopy).
 * - Maps: MAP_EXT, each key then its value: a flatmap in key order, a hashmap in the reverse
 *   of its iteration order (enc_term pushes a node's children in slot order on its stack, so
 *   the last slot comes out first). binary_to_term builds a MAP_EXT of at most 32 pairs as a
 *   flatmap and of more as a hashmap (dec_term, erts_hashmap_from_array), whatever the
 *   encoder was; a repeated key is an error either way.
 * - Bitstrings: BINARY_EXT, or BIT_BINARY_EXT with the used bits of the last byte (1..7)
 *   and the unused bits zero.
 * - Pids: NEW_PID_EXT (always, since OTP 23 made 32-bit creation mandatory): the node name,
 *   process number, serial, creation; a local pid's node is 'nonode@nohost', creation 0 (a
 *   node that is not distributed). Ports: NEW_PORT_EXT, or V4_PORT_EXT past 28 bits of
 *   number. References: NEWER_REFERENCE_EXT, the count of 32-bit numbers, node, creation,
 *   numbers (enc_term's REF_DEF).
 * - Funs: EXPORT_EXT (module, function, arity as an integer) or NEW_FUN_EXT (size, arity,
 *   uniq, index, free-variable count, module, old index and old uniq as integers, the creator
 *   pid, the free variables), its size patched in after the free variables (enc_term's
 *   ENC_PATCH_FUN_SIZE).
 * - COMPRESSED (tc_ext_encode_compressed): the plain form deflated, kept only when the
 *   stream fits in the plain length less 5, as erts_term_to_binary does.
 *
 * Decoding follows dec_term's rules (zero top bytes of a bignum are dropped, LIST_EXT of 0
 * elements is its tail, a BIT_BINARY_EXT uses 1..8 bits of a non-empty last byte, a map
 * key may not repeat, floats must be finite, an atom has at most 255 characters; a pid,
 * port or ref of 'nonode@nohost' with creation 0 is local, any other gets the entry of its
 * node; a local ref has at most 3 numbers, number 0 under 2^18; a fun has at most 255 free
 * variables; FUN_EXT is refused since OTP 23). binary_to_term/1 lets these pass, and so does
 * tc_ext_decode; tc_ext_decode_strict refuses them (TC_EPARSE): bytes after the term, or
 * after a COMPRESSED term's zlib stream (both ignored), a bignum sign byte other than 0 or 1
 * (any other is negative), a fun's old index, old uniq or export arity written as a
 * SMALL_BIG_EXT of small value (dec_term builds a small of it). Both refuse, where the VM
 * would not: a reference of 0 numbers (dec_term reads one number past it, out of the
 * declared bytes), a fun creator that is not a pid, a bignum-written fun field past
 * SMALL_BIG_EXT's 8 bytes. Every declared count is checked against the
 * bytes left before anything is built for it, where decoded_size would have caught it.
 */
#include "ext.h"

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
#include "../terms/layout.h"
#include "../terms/node.h"
#include "../terms/wstack.h"
#include "ext_impl.h"
#include "zlib_impl.h"

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
    V4_PORT_EXT = 120,
    /* the ETS compressed form's own (ext_impl.h) */
    ATOM_INTERNAL_REF2 = TC__ATOM_INTERNAL_REF2,
    ATOM_INTERNAL_REF3 = TC__ATOM_INTERNAL_REF3,
    BINARY_INTERNAL_REF = TC__BINARY_INTERNAL_REF,
    BIT_BINARY_INTERNAL_REF = TC__BIT_BINARY_INTERNAL_REF
};

/* The hot paths' helpers, inlined where the compiler would not on its own. */
#if defined(__GNUC__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE static inline
#endif

/* A condition the callers guarantee: asserted in debug builds, else told to the compiler, which
 * drops the tests its opposite would need (the plain passes: the ETS form's). */
#if TC_DEBUG_LEVEL >= 1 || !defined(__GNUC__)
#define ASSUME(c) TC_ASSERT(c)
#else
#define ASSUME(c) ((c) ? (void)0 : __builtin_unreachable())
#endif

#define MAX_STRING_LEN 0xFFFFu /* STRING_EXT holds at most this many elements */
#define MAX_ATOM_SZ_LIMIT (4u * TC_MAX_ATOM_CHARACTERS) /* bytes of the longest UTF-8 atom */

static const char local_node[] = "nonode@nohost";
#define LOCAL_NODE_LEN (sizeof local_node - 1)

/* ==== encoding ============================================================================ */

/*
 * The rare kinds (pids, ports, refs, funs, bignums, bitstrings, non-ASCII atoms under minor
 * 1) go through an emitter, in both passes: the size pass's has cap 0, so nothing is stored
 * and only `pos` advances; the write pass's stores what fits in cap (all of it: the size
 * pass sized the buffer). The walk that calls them is enc_walk, below.
 */
typedef struct emitter {
    unsigned char *buf;
    size_t cap, pos;
    /* the ETS form's (minor TC__EXT_ETS): where embedded ProcBins are linked, and the secret
     * atom, which put_other finds before an ident or a fun */
    unsigned char **ets_oh;
    tc_term ets_node;
} emitter;

static bool writing(const emitter *e, size_t n) { return e->buf && e->cap >= e->pos && e->cap - e->pos >= n; }

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

/* The walk's writes (enc_walk, below): W false, the size pass, writes nothing. */
ALWAYS_INLINE void out8(const bool W, unsigned char *buf, size_t at, unsigned v)
{
    if (W)
        buf[at] = (unsigned char)v;
}

ALWAYS_INLINE void out32(const bool W, unsigned char *buf, size_t at, uint32_t v)
{
    if (W)
        store32(buf + at, v);
}

static void put8(emitter *e, unsigned v)
{
    if (e->pos < e->cap && e->buf) /* the size pass has no buffer (cap 0) */
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

/* An atom in the ETS form: its index (enc_atom under DFLAG_ETS_COMPRESSED), ATOM_INTERNAL_REF2
 * and 16 bits, or from index 65536 ATOM_INTERNAL_REF3 and 24 (the table holds at most 2^20).
 * W false: only counts. Returns the position after it. */
ALWAYS_INLINE size_t put_atom_index(const bool W, unsigned char *buf, size_t at, tc_term atom)
{
    uint64_t ix = tc_atom_index(atom);
    bool wide = ix >= (1u << 16);
    out8(W, buf, at, wide ? ATOM_INTERNAL_REF3 : ATOM_INTERNAL_REF2);
    if (wide)
        out8(W, buf, ++at, (unsigned)(ix >> 16) & 0xFF);
    out8(W, buf, at + 1, (unsigned)(ix >> 8) & 0xFF);
    out8(W, buf, at + 2, (unsigned)ix & 0xFF);
    return at + 3;
}

/* Any atom: its index in the ETS form, else its text (put_atom_text). */
static void put_atom(emitter *e, tc_term atom, unsigned minor)
{
    if (minor == TC__EXT_ETS) {
        unsigned char b[4];
        put_bytes(e, b, put_atom_index(true, b, 0, atom));
        return;
    }
    size_t len;
    const char *name = tc_atom_name(atom, &len);
    put_atom_text(e, name, len, minor);
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
 *   CONS  cell count at      the rest of a LIST_EXT list from cell on, `count` elements
 *                            written before it, its length field at `at` (patched in at the
 *                            tail, as enc_term patches it)
 *   ARRAY ptr n              n > 0 terms at ptr (tuple elements, a fun's environment)
 *   MAP   keys values n      n key/value pairs, key first (flatmap order)
 *   HNODES kids n            the first n children of a HAMT node, still to encode, the last
 *                            first (a leaf [K | V]: K, then V; a node: its children)
 *   PATCH pos                a NEW_FUN_EXT's size field at pos, written once its
 *                            environment is (enc_term's ENC_PATCH_FUN_SIZE) */
enum { K_TERM, K_CONS, K_ARRAY, K_MAP, K_HNODES, K_PATCH };

static tc_term word_of(const tc_term *p) { return (tc_term)(uintptr_t)p; }
static const tc_term *ptr_of(tc_term w) { return (const tc_term *)(uintptr_t)w; }

/* Pushes k (two to four) words; the growth is out of line, so the hot path is a compare. */
static inline bool push(tc_wstack *s, size_t k, const tc_term *w)
{
    if (s->cap - s->n < k && !tc_wstack_reserve(s, k))
        return false;
    for (size_t i = 0; i < k; i++) /* a call to memcpy costs more */
        s->base[s->n + i] = w[i];
    s->n += k;
    return true;
}

/* The node fields of a pid, port or ref: its name and creation; this node's for a local one
 * ('3RT$' in the ETS form: INTERNAL_LOCAL_SYSNAME). */
static void put_node(emitter *e, tc_term t, unsigned minor)
{
    if (tc_is_boxed(t) && tc_is_external(t))
        put_atom(e, tc_external_node(t)->sysname, minor);
    else if (minor == TC__EXT_ETS)
        put_atom(e, e->ets_node, minor);
    else
        put_atom_text(e, local_node, LOCAL_NODE_LEN, minor);
}

static uint32_t creation_of(tc_term t) { return tc_is_boxed(t) && tc_is_external(t) ? tc_external_node(t)->creation : 0; }

/* NEW_PID_EXT, always (OTP 23 made 32-bit creations mandatory). */
static void put_pid(emitter *e, tc_term t, unsigned minor)
{
    put8(e, NEW_PID_EXT);
    put_node(e, t, minor);
    put32(e, tc_is_pid(t) ? tc_pid_number(t) : tc_external_pid_number(t));
    put32(e, tc_is_pid(t) ? tc_pid_serial(t) : tc_external_pid_serial(t));
    put32(e, creation_of(t));
}

/* enc_term: V4_PORT_EXT when the number passes 28 bits (ERTS_MAX_V3_PORT_NUMBER), else
 * NEW_PORT_EXT; NEWER_REFERENCE_EXT for every ref. */
static void put_ident(emitter *e, tc_term t, unsigned minor)
{
    if (tc_is_any_pid(t)) {
        put_pid(e, t, minor);
    } else if (tc_is_any_port(t)) {
        uint64_t num = tc_is_port(t) ? tc_port_number(t) : tc_external_port_number(t);
        bool v4 = num >= (UINT64_C(1) << TC_PORT_NUMBER_BITS);
        put8(e, v4 ? V4_PORT_EXT : NEW_PORT_EXT);
        put_node(e, t, minor);
        if (v4)
            put32(e, num >> 32);
        put32(e, num & 0xFFFFFFFFu);
        put32(e, creation_of(t));
    } else {
        uint32_t num[TC_REF_MAX_NUMBERS];
        size_t n = tc_ref_numbers(t, num);
        put8(e, NEWER_REFERENCE_EXT);
        put16(e, (unsigned)n);
        put_node(e, t, minor);
        put32(e, creation_of(t));
        for (size_t i = 0; i < n; i++)
            put32(e, num[i]);
    }
}

/* EXPORT_EXT (module, function, arity as an integer), or NEW_FUN_EXT: its size, arity, uniq,
 * index, free-variable count, module, old index and old uniq as integers, the creator pid,
 * then the environment, after which the size is patched in. */
static tc_result put_fun(emitter *e, tc_wstack *s, const tc_term *p, unsigned minor)
{
    if (!tc_fun_is_local(p)) {
        const tc_export *x = tc_fun_export_of(p);
        put8(e, EXPORT_EXT);
        put_atom(e, x->module, minor);
        put_atom(e, x->function, minor);
        return put_integer(e, tc_make_small(x->arity));
    }
    const tc_fun_entry *fe = tc_fun_entry_of(p);
    size_t nf = tc_fun_num_free(p);
    put8(e, NEW_FUN_EXT);
    size_t size_at = e->pos;
    put32(e, 0);
    put8(e, tc_fun_arity(p));
    put_bytes(e, fe->uniq, sizeof fe->uniq);
    put32(e, fe->index);
    put32(e, nf);
    put_atom(e, fe->module, minor);
    tc_result r = put_integer(e, tc_make_small(fe->old_index));
    if (r == TC_OK)
        r = put_integer(e, tc_make_small(fe->old_uniq));
    if (r != TC_OK)
        return r;
    if (minor == TC__EXT_ETS && !e->buf) /* the ETS size: encode_size_struct_int counts both as INTEGER_EXT */
        e->pos += (fe->old_index >= 0 && fe->old_index < 256 ? 3 : 0) + (fe->old_uniq >= 0 && fe->old_uniq < 256 ? 3 : 0);
    put_pid(e, p[TC_FUN_CREATOR], minor);
    if (!push(s, 2, (const tc_term[]){size_at, K_PATCH}))
        return TC_ENOMEM;
    if (nf > 0 && !push(s, 3, (const tc_term[]){word_of(&p[TC_FUN_ENV]), nf, K_ARRAY}))
        return TC_ENOMEM;
    return TC_OK;
}

/* A bitstring in the ETS form: true when it is kept a ProcBin, whole (the VM keeps one over a
 * refc binary when a heap binary would take more words), else false for put_bitstring to
 * write, the size pass having counted a slice's partial bytes again. */
static bool put_ets_procbin(emitter *e, tc_term t)
{
    size_t n = tc__ext_ets_procbin_size(t, !e->buf);
    if (n > 0) {
        if (e->buf)
            tc__ext_ets_procbin_put(t, e->buf + e->pos, e->ets_oh);
        e->pos += n;
        return true;
    }
    if (!e->buf)
        e->pos += tc__ext_ets_slice_slack(t);
    return false;
}

/* A local pid, port or ref (a local fun's creator too) names the secret atom in the ETS form:
 * made on its first use ever (the only failure), a load after that. */
static bool ets_node_ready(emitter *e, unsigned minor)
{
    return minor != TC__EXT_ETS || (e->ets_node = tc_node_ets_sysname()) != TC_NON_VALUE;
}

/* The terms the fast walk leaves to the emitter: smalls past 32 bits, minor-1 atoms with
 * characters past ASCII, bignums, bitstrings, pids, ports, refs and funs (a fun queues its
 * environment and its size patch). */
static tc_result put_other(emitter *e, tc_wstack *s, tc_term t, unsigned minor)
{
    if (tc_is_small(t))
        return put_integer(e, t);
    if (tc_is_atom(t)) { /* minor 1 only: atom_fast writes every other */
        size_t len;
        const char *name = tc_atom_name(t, &len);
        put_atom_text(e, name, len, minor);
        return TC_OK;
    }
    if (tc_is_any_pid(t) || tc_is_any_port(t) || tc_is_any_ref(t)) {
        if (!ets_node_ready(e, minor))
            return TC_ENOMEM;
        put_ident(e, t, minor);
        return TC_OK;
    }
    if (!tc_is_boxed(t))
        return TC_EUNSUPPORTED;
    const tc_term *p = tc_boxed_val(t);
    switch (tc_header_subtag(p[0])) {
    case TC_SUBTAG_POS_BIG:
    case TC_SUBTAG_NEG_BIG:
        return put_integer(e, t);
    case TC_SUBTAG_HEAP_BINARY:
    case TC_SUBTAG_REFC_BINARY:
    case TC_SUBTAG_SUB_BINARY:
        return minor == TC__EXT_ETS && put_ets_procbin(e, t) ? TC_OK : put_bitstring(e, t);
    case TC_SUBTAG_FUN:
        return ets_node_ready(e, minor) ? put_fun(e, s, p, minor) : TC_ENOMEM;
    default:
        return TC_EUNSUPPORTED;
    }
}

/*
 * The two passes are one walk, compiled twice (W false: the size pass, which only counts;
 * W true: the write pass, into a buffer the size pass has sized): the passes cannot disagree,
 * which the VM gets by keeping encode_size_struct2 and enc_term in step by hand, and the
 * write pass needs no bounds check. The walk writes a container's elements on its way and
 * goes round the stack only for an element that is itself a container (the last one not
 * even then: it is the next term); what it leaves to the emitter (put_other) is rare. In the
 * ETS form (minor TC__EXT_ETS) the size pass counts more than the write pass writes where
 * erts_encode_ext_size_ets counts more than enc_term writes (ext_ets.h), never less.
 */

/* ATOM_EXT of an all-ASCII name under minor 1 (one byte a character), SMALL_ATOM_UTF8_EXT
 * or ATOM_UTF8_EXT under minor 2, the index in the ETS form; false for a minor-1 name with
 * other characters, which put_atom_text converts. */
ALWAYS_INLINE bool atom_fast(const bool W, unsigned char *buf, size_t *pos, tc_term t, unsigned minor)
{
    if (minor == TC__EXT_ETS) {
        *pos = put_atom_index(W, buf, *pos, t);
        return true;
    }
    size_t len;
    const char *name = tc_atom_name(t, &len);
    size_t at = *pos;
    if (minor == 1) {
        unsigned high = 0;
        for (size_t i = 0; i < len; i++)
            high |= (unsigned char)name[i];
        if (high >= 0x80)
            return false;
        out8(W, buf, at, ATOM_EXT);
        out8(W, buf, at + 1, (unsigned)(len >> 8));
        out8(W, buf, at + 2, (unsigned)len & 0xFF);
        at += 3;
    } else if (len > 255) {
        out8(W, buf, at, ATOM_UTF8_EXT);
        out8(W, buf, at + 1, (unsigned)(len >> 8));
        out8(W, buf, at + 2, (unsigned)len & 0xFF);
        at += 3;
    } else {
        out8(W, buf, at, SMALL_ATOM_UTF8_EXT);
        out8(W, buf, at + 1, (unsigned)len);
        at += 2;
    }
    if (W)
        memcpy(buf + at, name, len);
    *pos = at + len;
    return true;
}

/* Writes t whole when it needs neither the stack nor the emitter: a small of the 32-bit
 * range, a float, an atom, [], a proper list of at most 65,535 bytes (STRING_EXT: the VM's
 * is_external_string fails only past MAX_STRING_LEN). false for anything else. */
ALWAYS_INLINE bool leaf(const bool W, unsigned char *buf, size_t *pos, tc_term t, unsigned minor)
{
    size_t at = *pos;
    switch (tc_primary_tag(t)) {
    case TC_TAG_PRIMARY_IMMED1:
        if (tc_is_small(t)) {
            int64_t v = tc_small_val(t);
            if ((uint64_t)v < 256) {
                out8(W, buf, at, SMALL_INTEGER_EXT);
                out8(W, buf, at + 1, (unsigned)v);
                *pos = at + 2;
                return true;
            }
            if (v < INT32_MIN || v > INT32_MAX)
                return false;
            out8(W, buf, at, INTEGER_EXT);
            out32(W, buf, at + 1, (uint32_t)(int32_t)v);
            *pos = at + 5;
            return true;
        }
        if (tc_is_atom(t))
            return atom_fast(W, buf, pos, t, minor);
        if (tc_is_nil(t)) {
            out8(W, buf, at, NIL_EXT);
            *pos = at + 1;
            return true;
        }
        return false;
    case TC_TAG_PRIMARY_BOXED: {
        const tc_term *p = tc_boxed_val(t);
        if (p[0] != TC_MAKE_HEADER(1, TC_SUBTAG_FLOAT))
            return false;
        uint64_t bits;
        memcpy(&bits, &p[1], sizeof bits);
        out8(W, buf, at, NEW_FLOAT_EXT);
        out32(W, buf, at + 1, (uint32_t)(bits >> 32));
        out32(W, buf, at + 5, (uint32_t)bits);
        *pos = at + 9;
        return true;
    }
    case TC_TAG_PRIMARY_LIST: {
        /* The write pass writes the bytes as it checks them: if the list is no string after
         * all, its LIST_EXT, longer than what was written (five bytes, then at least two an
         * element), writes over them from `at`. A small of 0..255 is 0xF | v << 4: no bit
         * set outside those. */
        size_t n = 0;
        tc_term l = t;
        unsigned char *b = W ? buf + at + 3 : NULL;
        do {
            tc_term h = tc_car(l);
            if ((h & ~(tc_term)0xFF0) != TC_TAG_IMMED1_SMALL || ++n > MAX_STRING_LEN)
                return false;
            if (W)
                *b++ = (unsigned char)(h >> TC_TAG_IMMED1_SIZE);
            l = tc_cdr(l);
        } while (tc_is_list(l));
        if (!tc_is_nil(l))
            return false;
        out8(W, buf, at, STRING_EXT);
        out8(W, buf, at + 1, (unsigned)(n >> 8));
        out8(W, buf, at + 2, (unsigned)n & 0xFF);
        *pos = at + 3 + n;
        return true;
    }
    default:
        return false;
    }
}

/* On the caller's stack s (emptied first: a write pass reuses the room its size pass grew);
 * oh: where the ETS form links the ProcBins it embeds (write pass only). */
ALWAYS_INLINE tc_result enc_walk(const bool W, tc_term t, unsigned minor, unsigned char *buf, tc_wstack *s,
                                 unsigned char **oh, size_t *len)
{
    tc_result r = TC_OK;
    size_t pos = 0;
    s->n = 0;
    if (minor != TC__EXT_ETS) /* the ETS form has no version byte */
        out8(W, buf, pos++, TC_EXT_VERSION);
    const tc_term *p = NULL, *v = NULL; /* the container being written: its elements or keys, values */
    uint64_t n = 0, count = 0;
    size_t len_at = 0;
    tc_term cell = TC_NIL;
    for (;;) {
        /* t: the next term to write. */
        if (leaf(W, buf, &pos, t, minor))
            goto next;
        if (tc_is_list(t)) {
            out8(W, buf, pos, LIST_EXT);
            len_at = pos + 1;
            pos += 5;
            cell = t;
            count = 0;
            goto list;
        }
        if (tc_is_boxed(t)) {
            p = tc_boxed_val(t);
            if (tc_header_subtag(p[0]) == TC_SUBTAG_ARITYVAL) {
                n = tc_header_arity(p[0]);
                if (n > UINT32_MAX) {
                    r = TC_ELIMIT;
                    break;
                }
                if (n <= 255) {
                    out8(W, buf, pos, SMALL_TUPLE_EXT);
                    out8(W, buf, pos + 1, (unsigned)n);
                    pos += 2;
                } else {
                    out8(W, buf, pos, LARGE_TUPLE_EXT);
                    out32(W, buf, pos + 1, (uint32_t)n);
                    pos += 5;
                }
                if (n == 0)
                    goto next;
                p++;
                goto array;
            }
            if (tc_header_subtag(p[0]) == TC_SUBTAG_MAP) {
                n = tc_map_size(t);
                if (n > UINT32_MAX) {
                    r = TC_ELIMIT;
                    break;
                }
                out8(W, buf, pos, MAP_EXT);
                out32(W, buf, pos + 1, (uint32_t)n);
                pos += 5;
                if (tc_is_hashmap(t)) {
                    p = tc_layout_map_terms(p[0], p, &n);
                    goto hamt;
                }
                if (n == 0)
                    goto next;
                v = tc_flatmap_values(t);
                p = &tc_boxed_val(tc_flatmap_keys(t))[1];
                goto pairs;
            }
        }
        {
            emitter e = {W ? buf : NULL, W ? SIZE_MAX : 0, pos, oh, TC_NON_VALUE};
            r = put_other(&e, s, t, minor);
            pos = e.pos;
            if (r != TC_OK)
                break;
            goto next;
        }

    list: /* the cells from `cell` on of a LIST_EXT list, `count` elements before them */
        for (;;) {
            tc_term h = tc_car(cell), tail = tc_cdr(cell);
            count++;
            if (!tc_is_list(tail)) {
                if (count > UINT32_MAX) {
                    r = TC_ELIMIT;
                    break;
                }
                out32(W, buf, len_at, (uint32_t)count);
                if (leaf(W, buf, &pos, h, minor)) {
                    t = tail;
                } else {
                    if (!push(s, 2, (const tc_term[]){tail, K_TERM})) {
                        r = TC_ENOMEM;
                        break;
                    }
                    t = h;
                }
                break;
            }
            if (!leaf(W, buf, &pos, h, minor)) {
                if (!push(s, 4, (const tc_term[]){tail, count, len_at, K_CONS})) {
                    r = TC_ENOMEM;
                    break;
                }
                t = h;
                break;
            }
            cell = tail;
        }
        if (r != TC_OK)
            break;
        continue;

    array: /* n > 0 terms at p; the last one is the next term */
        for (; n > 1; p++, n--) {
            if (!leaf(W, buf, &pos, *p, minor)) {
                if (!push(s, 3, (const tc_term[]){word_of(p + 1), n - 1, K_ARRAY})) {
                    r = TC_ENOMEM;
                    break;
                }
                break;
            }
        }
        if (r != TC_OK)
            break;
        t = *p;
        continue;

    pairs: /* n > 0 pairs, keys at p, values at v; the last value is the next term */
        for (;; p++, v++, n--) {
            if (!leaf(W, buf, &pos, *p, minor)) {
                if ((n > 1 && !push(s, 4, (const tc_term[]){word_of(p + 1), word_of(v + 1), n - 1, K_MAP})) ||
                    !push(s, 2, (const tc_term[]){*v, K_TERM}))
                    r = TC_ENOMEM;
                t = *p;
                break;
            }
            if (n == 1) {
                t = *v;
                break;
            }
            if (!leaf(W, buf, &pos, *v, minor)) {
                if (!push(s, 4, (const tc_term[]){word_of(p + 1), word_of(v + 1), n - 1, K_MAP}))
                    r = TC_ENOMEM;
                t = *v;
                break;
            }
        }
        if (r != TC_OK)
            break;
        continue;

    hamt: { /* the first n children of a HAMT node at p, the last first (enc_term pushes a
             * node's children in slot order on its stack): a leaf [K | V] is a pair, a node
             * goes down, and the rest of this one waits on the stack only for what is not a
             * leaf pair */
        bool have_t = false;
        while (n > 0 && !have_t) {
            tc_term child = p[--n];
            if (tc_is_list(child)) {
                const tc_term *kv = tc_list_val(child);
                bool key_done = leaf(W, buf, &pos, kv[0], minor);
                if (key_done && leaf(W, buf, &pos, kv[1], minor))
                    continue;
                if ((n > 0 && !push(s, 3, (const tc_term[]){word_of(p), n, K_HNODES})) ||
                    (!key_done && !push(s, 2, (const tc_term[]){kv[1], K_TERM}))) {
                    r = TC_ENOMEM;
                    break;
                }
                t = key_done ? kv[1] : kv[0];
                have_t = true;
            } else {
                if (n > 0 && !push(s, 3, (const tc_term[]){word_of(p), n, K_HNODES})) {
                    r = TC_ENOMEM;
                    break;
                }
                p = tc_layout_map_terms(tc_boxed_val(child)[0], tc_boxed_val(child), &n);
            }
        }
        if (r != TC_OK)
            break;
        if (have_t)
            continue;
        goto next;
    }

    next: /* the next term from the stack, patching fun sizes on the way */
        if (tc_wstack_empty(s))
            break;
        switch (tc_wstack_pop(s)) {
        case K_TERM:
            t = tc_wstack_pop(s);
            continue;
        case K_CONS:
            len_at = (size_t)tc_wstack_pop(s);
            count = tc_wstack_pop(s);
            cell = tc_wstack_pop(s);
            goto list;
        case K_ARRAY:
            n = tc_wstack_pop(s);
            p = ptr_of(tc_wstack_pop(s));
            goto array;
        case K_MAP:
            n = tc_wstack_pop(s);
            v = ptr_of(tc_wstack_pop(s));
            p = ptr_of(tc_wstack_pop(s));
            goto pairs;
        case K_HNODES:
            n = tc_wstack_pop(s);
            p = ptr_of(tc_wstack_pop(s));
            goto hamt;
        default: { /* K_PATCH */
            size_t at = (size_t)tc_wstack_pop(s);
            out32(W, buf, at, (uint32_t)(pos - at));
            goto next;
        }
        }
        break;
    }
    if (r == TC_OK)
        *len = pos;
    return r;
}

/* The plain format's passes (tc__ext_ets_walk has the ETS form's). */
static tc_result enc_size(tc_term t, unsigned minor, tc_wstack *s, size_t *len)
{
    ASSUME(minor == 1 || minor == 2);
    return enc_walk(false, t, minor, NULL, s, NULL, len);
}

static tc_result enc_write(tc_term t, unsigned minor, unsigned char *buf, tc_wstack *s, size_t *len)
{
    ASSUME(minor == 1 || minor == 2);
    return enc_walk(true, t, minor, buf, s, NULL, len);
}

tc_result tc_ext_size(tc_term t, unsigned minor, size_t *bytes)
{
    if (minor != 1 && minor != 2)
        return TC_EBADARG;
    tc_wstack s;
    tc_wstack_init(&s);
    tc_result r = enc_size(t, minor, &s, bytes);
    tc_wstack_destroy(&s);
    return r;
}

/* The size pass first, so the write pass never needs a bounds check; both on one stack. */
tc_result tc_ext_encode_into(tc_term t, unsigned minor, unsigned char *buf, size_t cap, size_t *len)
{
    if (minor != 1 && minor != 2)
        return TC_EBADARG;
    tc_wstack s;
    tc_wstack_init(&s);
    size_t size;
    tc_result r = enc_size(t, minor, &s, &size);
    if (r == TC_OK && size > cap)
        r = TC_EBADARG; /* buffer below tc_ext_size: nothing was written */
    if (r == TC_OK) {
        r = enc_write(t, minor, buf, &s, len);
        TC_ASSERT(r != TC_OK || *len == size);
    }
    tc_wstack_destroy(&s);
    return r;
}

tc_result tc_ext_encode(tc_term t, unsigned minor, unsigned char **bytes, size_t *len)
{
    if (minor != 1 && minor != 2)
        return TC_EBADARG;
    tc_wstack s;
    tc_wstack_init(&s);
    size_t size;
    unsigned char *buf = NULL;
    tc_result r = enc_size(t, minor, &s, &size);
    if (r == TC_OK && !(buf = tc_mem_alloc(size)))
        r = TC_ENOMEM;
    if (r == TC_OK)
        r = enc_write(t, minor, buf, &s, len);
    tc_wstack_destroy(&s);
    if (r != TC_OK) {
        tc_mem_free(buf);
        return r;
    }
    TC_ASSERT(*len == size);
    *bytes = buf;
    return TC_OK;
}

/* The ETS form: the size pass, or (buf) the write pass into what the size pass counted
 * (ext_ets.h). The walk is compiled twice more for it, with minor a constant, so that the
 * plain passes (enc_size, enc_write: minor 1 or 2) can drop its tests. */
tc_result tc__ext_ets_walk(tc_term t, tc_wstack *s, unsigned char *buf, unsigned char **oh, size_t *len)
{
    tc_wstack own;
    tc_wstack_init(&own);
    if (!s)
        s = &own;
    tc_result r = buf ? enc_walk(true, t, TC__EXT_ETS, buf, s, oh, len) : enc_walk(false, t, TC__EXT_ETS, NULL, s, NULL, len);
    tc_wstack_destroy(&own);
    return r;
}

/* ==== decoding ============================================================================ */

/*
 * Open containers, five words each: kind, values still to come, where the next value goes,
 * offset of the container's tag, the container. A tuple, a list (LIST_EXT) and a fun's
 * environment are built when their tag is read, as dec_term builds them, and their values
 * are written straight into their slots (a tuple's in order; a list's cells laid out as
 * tc_term_list lays them out, the head cell highest, so the cars go downwards and the tail
 * last into the lowest cell's cdr); the container is handed to its parent when its last
 * value is complete, or (F_HANDED) when it is opened as the last value of its parent, which
 * then closes at once: a right-nested term (a list of lists in the tail, {X, {Y, ...}})
 * keeps one frame, not one per level. Not inside a map: a map's keys and values wait on the
 * value stack (FR_SLOT: the index of its first) until the map is built from them, sorted or
 * hashed, when its last value is complete, so nothing under it closes before it is.
 */
enum { F_LIST, F_TUPLE, F_MAP, F_FUN, F_KIND = 3, F_HANDED = 4 };
enum { FR_KIND, FR_LEFT, FR_SLOT, FR_AT, FR_TERM, FRAME_WORDS };

typedef struct decoder {
    const unsigned char *start, *p, *end;
    const char *where; /* "byte", or "uncompressed byte" inside a COMPRESSED term */
    tc_alloc *a;
    tc_read_error *err;
    tc_result res;
    tc_wstack vals;
    tc_wstack frames;
    bool strict; /* tc_ext_decode_strict: refuse what binary_to_term/1 lets pass (ext.c's header) */
    bool ets;    /* the ETS compressed form (ext_ets.h): its atom and ProcBin tags too */
    tc_term *top;       /* the innermost open container's frame, or NULL (a pointer, and maps_open
                         * an unsigned: the values written into terms cannot alias them, so the
                         * hot loop keeps them in registers) */
    unsigned maps_open; /* map frames on the frame stack */
    tc_term result;     /* the term, once the outermost container closes */
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
        int k = snprintf(d->err->message, sizeof d->err->message, "%s %zu: ", d->where, off);
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

/* ATOM_INTERNAL_REF2/3 of the ETS form (its tag read): the atom's table index, 16 or 24 bits. */
static bool decode_atom_index(decoder *d, unsigned tag, tc_term *out)
{
    const unsigned char *at = d->p;
    bool wide = tag == ATOM_INTERNAL_REF3;
    if (!need(d, wide ? 3 : 2, "an atom index"))
        return false;
    uint64_t ix = wide ? (uint64_t)get8(d) << 16 : 0;
    ix |= get16(d);
    *out = tc_make_atom(ix);
    return tc_atom_exists(*out) || fail_at(d, at, TC_EPARSE, "atom index %llu is not in the table", (unsigned long long)ix);
}

static bool is_ets_atom_tag(const decoder *d, unsigned tag)
{
    return d->ets && (tag == ATOM_INTERNAL_REF2 || tag == ATOM_INTERNAL_REF3);
}

/* One atom in any of its four encodings (Latin-1 names are converted to UTF-8), or in the
 * ETS form by index. */
static bool decode_atom(decoder *d, tc_term *out)
{
    const unsigned char *at = d->p;
    if (left(d) == 0)
        return fail_at(d, at, TC_EPARSE, "input ends where an atom was expected");
    unsigned tag = get8(d);
    bool wide = tag == ATOM_EXT || tag == ATOM_UTF8_EXT;
    if (tag != ATOM_EXT && tag != SMALL_ATOM_EXT && tag != ATOM_UTF8_EXT && tag != SMALL_ATOM_UTF8_EXT) {
        if (is_ets_atom_tag(d, tag))
            return decode_atom_index(d, tag, out);
        return fail_at(d, at, TC_EPARSE, "expected an atom (tag 100, 115, 118 or 119), found tag %u", tag);
    }
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
    if (sign > 1 && d->strict)
        return fail_at(d, sign_at, TC_EPARSE, "bignum sign byte is %u (0 or 1 expected)", sign);
    sign = sign != 0; /* dec_term: any other byte is negative */
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

/* FLOAT_EXT (minor version 0: "%.20e" padded with NULs to 31 bytes), read as erts'
 * sys_chars_to_double (sys/unix/sys_float.c) reads it from the field's first byte up to a NUL:
 * [+-]digits, '.' or ',', digits, optionally [eE][+-]digits, and nothing else; strtod's value
 * must be finite (overflow is badarg; underflow to 0.0 is 0.0, OTP-7178). Hex floats, leading
 * spaces, "inf", a missing fraction or exponent digits are refused. With no NUL in the 31 bytes
 * the VM's scan runs on into the bytes after the field; termcopy does the same within the
 * input, and refuses a text that reaches its end (the VM would read past its binary). */
static bool digit_at(const unsigned char *q, const unsigned char *end) { return q < end && *q >= '0' && *q <= '9'; }

static bool float_ext_text(decoder *d, double *f)
{
    const unsigned char *s = d->p, *e = d->end;
    if (s < e && (*s == '+' || *s == '-'))
        s++;
    bool ok = digit_at(s, e);
    while (digit_at(s, e))
        s++;
    const unsigned char *dp = s;
    ok = ok && s < e && (*s == '.' || *s == ',');
    s += ok;
    ok = ok && digit_at(s, e);
    while (ok && digit_at(s, e))
        s++;
    if (ok && s < e && (*s == 'e' || *s == 'E')) {
        s++;
        if (s < e && (*s == '+' || *s == '-'))
            s++;
        ok = digit_at(s, e);
        while (digit_at(s, e))
            s++;
    }
    if (!ok || s == e || *s != '\0')
        return fail_at(d, d->p, TC_EPARSE, "FLOAT_EXT text is not a float as the VM reads one ([+-]D.D[e[+-]D], NUL-ended)");
    size_t n = (size_t)(s - d->p);
    char small[32], *text = n < sizeof small ? small : tc_mem_alloc(n + 1);
    if (!text)
        return oom(d);
    memcpy(text, d->p, n);
    text[n] = '\0';
    text[dp - d->p] = '.'; /* the VM's second strtod takes the other radix character */
    *f = strtod(text, NULL);
    if (text != small)
        tc_mem_free(text);
    if (!isfinite(*f))
        return fail_at(d, d->p, TC_EPARSE, "FLOAT_EXT text overflows a double");
    return true;
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
        if (!need(d, 31, "FLOAT_EXT"))
            return false;
        if (!float_ext_text(d, &f))
            return false;
        d->p = at + 31;
    }
    if (!isfinite(f))
        return fail_at(d, at, TC_EPARSE, "float is NaN or infinite (Erlang floats are finite)");
    *out = tc_term_float(d->a, f);
    return built(d, *out);
}

/* The node of a pid, port or ref: NULL for this node (dec_is_this_node), else the entry of
 * the remote node with one reference taken (dec_get_node); *ok false on an error. */
static tc_node *decode_node(decoder *d, tc_term sysname, uint32_t creation, bool *ok)
{
    *ok = true;
    if (tc_node_is_this(sysname, creation))
        return NULL;
    tc_node *n = tc_node_find_or_insert(sysname, creation);
    if (!n)
        *ok = oom(d);
    return n;
}

/* NEW_PID_EXT and PID_EXT (8-bit creation, 0..3: is_tiny_creation). A local pid's number
 * and serial must fit the VM's fields; a remote one's are taken as they come. */
static bool decode_pid(decoder *d, unsigned tag, tc_term *out)
{
    tc_term sysname;
    if (!decode_atom(d, &sysname))
        return false;
    const unsigned char *id_at = d->p;
    if (!need(d, tag == NEW_PID_EXT ? 12 : 9, "a pid's ID, serial and creation"))
        return false;
    uint32_t number = get32(d), serial = get32(d);
    uint32_t creation = tag == NEW_PID_EXT ? get32(d) : get8(d);
    if (tag == PID_EXT && creation > 3)
        return fail_at(d, id_at + 8, TC_EPARSE, "PID_EXT creation %lu (a tiny creation is 0..3)", (unsigned long)creation);
    bool ok;
    tc_node *n = decode_node(d, sysname, creation, &ok);
    if (!ok)
        return false;
    if (n) {
        *out = tc_term_external_pid(d->a, n, number, serial);
        return built(d, *out);
    }
    if (number > TC_PID_NUMBER_MAX || serial > TC_PID_SERIAL_MAX)
        return fail_at(d, id_at, TC_ELIMIT,
                       "local pid <0.%lu.%lu> is past the VM's limits (number at most %lu, serial at most %lu)",
                       (unsigned long)number, (unsigned long)serial, (unsigned long)TC_PID_NUMBER_MAX,
                       (unsigned long)TC_PID_SERIAL_MAX);
    *out = tc_make_pid(number, serial);
    return true;
}

/* V4_PORT_EXT (64-bit number), NEW_PORT_EXT, PORT_EXT (8-bit creation). */
static bool decode_port(decoder *d, unsigned tag, tc_term *out)
{
    tc_term sysname;
    if (!decode_atom(d, &sysname))
        return false;
    const unsigned char *id_at = d->p;
    if (!need(d, tag == V4_PORT_EXT ? 12 : tag == NEW_PORT_EXT ? 8 : 5, "a port's ID and creation"))
        return false;
    uint64_t number = get32(d);
    if (tag == V4_PORT_EXT)
        number = number << 32 | get32(d);
    uint32_t creation = tag == PORT_EXT ? get8(d) : get32(d);
    if (tag == PORT_EXT && creation > 3)
        return fail_at(d, d->p - 1, TC_EPARSE, "PORT_EXT creation %lu (a tiny creation is 0..3)", (unsigned long)creation);
    bool ok;
    tc_node *n = decode_node(d, sysname, creation, &ok);
    if (!ok)
        return false;
    if (n) {
        *out = tc_term_external_port(d->a, n, number);
        return built(d, *out);
    }
    if (number >= (UINT64_C(1) << TC_PORT_NUMBER_BITS))
        return fail_at(d, id_at, TC_ELIMIT, "local port number %llu does not fit the VM's 28 bits",
                       (unsigned long long)number);
    *out = tc_make_port((uint32_t)number);
    return true;
}

/* NEWER_REFERENCE_EXT (32-bit creation), NEW_REFERENCE_EXT (8-bit), REFERENCE_EXT (one
 * number). dec_term's rules: at most 5 numbers; a local ref at most 3 (fewer are padded with
 * zeros) and its number 0 below 2^18; the two old tags' creation tiny (0..3, is_tiny_creation)
 * and their number 0 below 2^18 (MAX_REFERENCE) whatever the node. termcopy also refuses a
 * count of 0, which dec_term reads one number past. */
static bool decode_ref(decoder *d, unsigned tag, tc_term *out)
{
    const unsigned char *len_at = d->p;
    size_t count = 1;
    if (tag != REFERENCE_EXT) {
        if (!need(d, 2, "a reference's length"))
            return false;
        count = get16(d);
        if (count == 0 || count > TC_REF_MAX_NUMBERS)
            return fail_at(d, len_at, TC_EPARSE, "reference of %zu numbers (1..5)", count);
    }
    tc_term sysname;
    if (!decode_atom(d, &sysname))
        return false;
    uint32_t creation = 0, num[TC_REF_MAX_NUMBERS] = {0};
    if (tag == REFERENCE_EXT) {
        if (!need(d, 5, "REFERENCE_EXT's ID and creation"))
            return false;
        num[0] = get32(d);
        creation = get8(d);
    } else {
        if (!need(d, (tag == NEWER_REFERENCE_EXT ? 4 : 1) + 4 * count, "a reference's creation and numbers"))
            return false;
        creation = tag == NEWER_REFERENCE_EXT ? get32(d) : get8(d);
        for (size_t i = 0; i < count; i++)
            num[i] = get32(d);
    }
    if (tag != NEWER_REFERENCE_EXT && creation > 3)
        return fail_at(d, len_at, TC_EPARSE, "creation %lu of an 8-bit reference, past its 2 bits",
                       (unsigned long)creation);
    if (tag != NEWER_REFERENCE_EXT && num[0] >= (UINT32_C(1) << 18))
        return fail_at(d, len_at, TC_EPARSE, "reference number 0 is %lu, past its 18 bits", (unsigned long)num[0]);
    bool ok;
    tc_node *n = decode_node(d, sysname, creation, &ok);
    if (!ok)
        return false;
    if (n) {
        *out = tc_term_external_ref(d->a, n, num, count);
        return built(d, *out);
    }
    if (count > TC_REF_NUMBERS)
        return fail_at(d, len_at, TC_EPARSE, "local reference of %zu numbers (this node makes 3)", count);
    if (num[0] >= (UINT32_C(1) << 18))
        return fail_at(d, len_at, TC_EPARSE, "local reference number 0 is %lu, past its 18 bits", (unsigned long)num[0]);
    *out = tc_term_local_ref(d->a, num);
    return built(d, *out);
}

/* An integer field of a fun that dec_term requires to be a small (it decodes any term and
 * tests is_small): SMALL_INTEGER_EXT, INTEGER_EXT, or (not under strict) a SMALL_BIG_EXT of a
 * value in the small range, which dec_term builds as a small. */
static bool decode_small_field(decoder *d, const char *what, int64_t *v)
{
    const unsigned char *at = d->p;
    if (!d->strict && left(d) >= 3 && d->p[0] == SMALL_BIG_EXT && d->p[1] <= 8 && left(d) >= 3u + d->p[1]) {
        uint64_t mag = 0;
        for (unsigned i = d->p[1]; i > 0; i--)
            mag = mag << 8 | d->p[2 + i];
        bool neg = d->p[2] != 0;
        if (neg ? mag <= (uint64_t)TC_MAX_SMALL + 1 : mag <= (uint64_t)TC_MAX_SMALL) {
            *v = neg ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
            d->p += 3u + d->p[1];
            return true;
        }
    }
    if (left(d) >= 2 && d->p[0] == SMALL_INTEGER_EXT) {
        *v = d->p[1];
        d->p += 2;
        return true;
    }
    if (left(d) >= 5 && d->p[0] == INTEGER_EXT) {
        d->p++;
        *v = (int32_t)get32(d);
        return true;
    }
    return fail_at(d, at, TC_EPARSE, "expected %s as SMALL_INTEGER_EXT or INTEGER_EXT", what);
}

/* EXPORT_EXT: module, function, a non-negative arity (a byte in the fun, MAX_ARG 255). */
static bool decode_export(decoder *d, tc_term *out)
{
    tc_term m, f;
    int64_t arity;
    if (!decode_atom(d, &m) || !decode_atom(d, &f))
        return false;
    const unsigned char *at = d->p;
    if (!decode_small_field(d, "EXPORT_EXT's arity", &arity))
        return false;
    if (arity < 0 || arity > TC_FUN_MAX_FREE)
        return fail_at(d, at, arity < 0 ? TC_EPARSE : TC_ELIMIT, "EXPORT_EXT arity %lld (0..255)", (long long)arity);
    tc_export *e = tc_export_get(m, f, (unsigned)arity);
    if (!e)
        return oom(d);
    *out = tc_term_export_fun(d->a, e);
    return built(d, *out);
}

ALWAYS_INLINE bool open_frame(decoder *d, unsigned kind, uint64_t values, const unsigned char *at, tc_term fun);

/* NEW_FUN_EXT: the fun object is built (and linked) before its environment, as dec_term
 * builds it, and the environment's values fill it when its frame closes. The size field is
 * not checked (dec_term ignores it: OTP 23..25 can write it too large). */
static bool decode_fun(decoder *d, const unsigned char *at, tc_term *out, bool *opened)
{
    if (!need(d, 4 + 1 + 16 + 4 + 4, "NEW_FUN_EXT's fixed fields"))
        return false;
    d->p += 4;
    unsigned arity = get8(d);
    const unsigned char *uniq = d->p;
    d->p += 16;
    uint32_t index = get32(d);
    const unsigned char *nf_at = d->p;
    uint32_t num_free = get32(d);
    if (num_free > TC_FUN_MAX_FREE)
        return fail_at(d, nf_at, TC_EPARSE, "NEW_FUN_EXT free-variable count %lu (0..255)", (unsigned long)num_free);
    if (!fits(d, nf_at, num_free, "NEW_FUN_EXT free variables"))
        return false;
    tc_term module, creator;
    int64_t old_index, old_uniq;
    if (!decode_atom(d, &module) || !decode_small_field(d, "NEW_FUN_EXT's old index", &old_index) ||
        !decode_small_field(d, "NEW_FUN_EXT's old uniq", &old_uniq))
        return false;
    const unsigned char *pid_at = d->p;
    if (left(d) == 0 || (d->p[0] != NEW_PID_EXT && d->p[0] != PID_EXT))
        return fail_at(d, pid_at, TC_EPARSE, "expected NEW_FUN_EXT's creator pid (tag 88 or 103)");
    if (!decode_pid(d, get8(d), &creator))
        return false;
    tc_fun_entry *fe = tc_fun_entry_put(module, (int32_t)old_uniq, (int32_t)old_index, uniq, index, arity);
    if (!fe)
        return oom(d);
    *out = tc_term_local_fun(d->a, fe, creator, NULL, num_free);
    if (!built(d, *out))
        return false;
    if (num_free == 0)
        return true;
    /* The environment is [] until the frame fills it. */
    *opened = true;
    return open_frame(d, F_FUN, num_free, at, *out);
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

static tc_term *slot_of(tc_term w) { return (tc_term *)(uintptr_t)w; }

ALWAYS_INLINE bool hand(decoder *d, tc_term v);

/* Pushes a frame; for a list or a tuple, builds it first (its slots are written as its
 * values are read; a list's cdrs but the last are linked here). A fun is built already. */
ALWAYS_INLINE bool open_frame(decoder *d, unsigned kind, uint64_t values, const unsigned char *at, tc_term fun)
{
    if (!tc_wstack_reserve(&d->frames, FRAME_WORDS))
        return oom(d);
    d->top = d->frames.n != 0 ? d->frames.base + (d->frames.n - FRAME_WORDS) : NULL; /* the stack may have moved */
    tc_term term = fun, slot;
    if (kind == F_TUPLE) {
        tc_term *p = tc_alloc_words(d->a, 1 + (size_t)values);
        if (!p)
            return oom(d);
        p[0] = TC_MAKE_HEADER(values, TC_SUBTAG_ARITYVAL);
        term = tc_make_boxed(p);
        slot = (tc_term)(uintptr_t)&p[1];
    } else if (kind == F_LIST) {
        size_t n = (size_t)values - 1; /* elements; the last value is the tail */
        tc_term *p = tc_alloc_words(d->a, TC_CONS_SIZE * n);
        if (!p)
            return oom(d);
        for (size_t c = 1; c < n; c++)
            p[TC_CONS_SIZE * c + 1] = tc_make_list(&p[TC_CONS_SIZE * (c - 1)]);
        term = tc_make_list(&p[TC_CONS_SIZE * (n - 1)]);
        slot = (tc_term)(uintptr_t)&p[TC_CONS_SIZE * (n - 1)];
    } else if (kind == F_FUN) {
        slot = (tc_term)(uintptr_t)&tc_boxed_val(fun)[TC_FUN_ENV];
    } else {
        slot = d->vals.n;
        d->maps_open++;
    }
    if (kind != F_MAP && d->maps_open == 0 && d->frames.n != 0 && d->top[FR_LEFT] == 1) {
        if (!hand(d, term)) /* closes the parent, and each ancestor this was the last value of */
            return false;
        kind |= F_HANDED;
    }
    tc_term *f = d->frames.base + d->frames.n; /* not &base[n]: see wstack.h */
    f[FR_KIND] = kind;
    f[FR_LEFT] = values;
    f[FR_SLOT] = slot;
    f[FR_AT] = (tc_term)(at - d->start);
    f[FR_TERM] = term;
    d->frames.n += FRAME_WORDS;
    d->top = f;
    return true;
}

/* Where the value after the one just written at `slot` goes, `left` values still to come:
 * a list's next car is a cell lower, its tail the cdr of the cell just filled. */
static inline tc_term *next_slot(unsigned kind, tc_term *slot, uint64_t left)
{
    if (kind != F_LIST)
        return slot + 1;
    return left == 1 ? slot + 1 : slot - TC_CONS_SIZE;
}

/* Builds the map of the top frame from its keys and values on the value stack. */
static bool build_map(decoder *d, const tc_term *f, tc_term *out)
{
    size_t start = (size_t)f[FR_SLOT], n = d->vals.n - start;
    const tc_term *v = d->vals.base + start;
    bool ok;
    if (n / 2 <= TC_MAP_SMALL_MAP_LIMIT) {
        tc_result r = tc_term_flatmap(d->a, v, n / 2, out);
        if (r != TC_OK)
            ok = oom(d); /* <= 32 keys: the only other failure is memory */
        else if (tc_flatmap_size(*out) != n / 2)
            ok = fail_at(d, d->start + f[FR_AT], TC_EPARSE, "MAP_EXT has a repeated key");
        else
            ok = true;
    } else {
        tc_result r = tc_term_hashmap_unique(d->a, v, n / 2, out);
        if (r == TC_EPARSE)
            ok = fail_at(d, d->start + f[FR_AT], TC_EPARSE, "MAP_EXT has a repeated key");
        else if (r == TC_EUNSUPPORTED)
            ok = fail_at(d, d->start + f[FR_AT], TC_EUNSUPPORTED,
                         "MAP_EXT keys the map hash cannot read, or whose hashes agree on 128 bits (deeper than the VM's trie)");
        else if (r != TC_OK)
            ok = oom(d);
        else
            ok = true;
    }
    d->vals.n = start;
    d->maps_open--;
    return ok;
}

/* On an error: the slots of the containers still open get [], so what was built is whole
 * terms (the allocator may be a heap that a walk reads later). */
static void abandon_frames(decoder *d)
{
    for (size_t k = d->frames.n; k >= FRAME_WORDS; k -= FRAME_WORDS) {
        const tc_term *f = d->frames.base + (k - FRAME_WORDS);
        unsigned kind = (unsigned)f[FR_KIND] & F_KIND;
        if (kind == F_MAP)
            continue;
        tc_term *slot = slot_of(f[FR_SLOT]);
        for (uint64_t left = f[FR_LEFT]; left > 0; left--) {
            *slot = TC_NIL;
            slot = next_slot(kind, slot, left - 1);
        }
    }
}

/* STRING_EXT (its tag read): the cells written straight from the bytes, laid out as
 * tc_term_list lays them out (one block, the head cell highest). */
ALWAYS_INLINE bool decode_string(decoder *d, tc_term *out)
{
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
    case STRING_EXT:
        return decode_string(d, out);
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
        if (values == 1 && tag == LIST_EXT)
            return true; /* LIST_EXT of no elements: the term is its tail, which follows */
        return open_frame(d, tag == LIST_EXT ? F_LIST : tag == MAP_EXT ? F_MAP : F_TUPLE, values, at, TC_NIL);
    }
    case BINARY_EXT:
    case BIT_BINARY_EXT:
        return decode_binary(d, tag, out);
    case NEW_PID_EXT:
    case PID_EXT:
        return decode_pid(d, tag, out);
    case NEW_PORT_EXT:
    case PORT_EXT:
    case V4_PORT_EXT:
        return decode_port(d, tag, out);
    case REFERENCE_EXT:
    case NEW_REFERENCE_EXT:
    case NEWER_REFERENCE_EXT:
        return decode_ref(d, tag, out);
    case EXPORT_EXT:
        return decode_export(d, out);
    case NEW_FUN_EXT:
        return decode_fun(d, at, out, opened);
    case FUN_EXT:
        return fail_at(d, at, TC_EPARSE, "FUN_EXT (tag 117): the old fun format, which binary_to_term refuses since OTP 23");
    default:
        if (is_ets_atom_tag(d, tag))
            return decode_atom_index(d, tag, out);
        if (d->ets && (tag == BINARY_INTERNAL_REF || tag == BIT_BINARY_INTERNAL_REF)) {
            size_t used = 0;
            tc_result r = tc__ext_ets_procbin_get(d->a, tag, d->p, left(d), out, &used);
            d->p += used;
            return r == TC_OK || fail_at(d, at, r, "%s", r == TC_ENOMEM ? "out of memory" : "embedded ProcBin cut short");
        }
        return fail_at(d, at, TC_EPARSE, "unknown or misplaced tag %u", tag);
    }
}

/*
 * The elements of the innermost open container that are small integers or floats, read in
 * one loop straight into its slots (a map's: onto the value stack): what decode_item and
 * the hand-over in parse do for them, without the round trip. It stops before the
 * container's last value (which closes it), and at anything else: a truncated or non-finite
 * item is left for decode_item to report exactly as it would. Each item's bytes are checked
 * once, not each byte.
 */
/* The double of the NEW_FLOAT_EXT at p (its tag, then 8 bytes, most significant first). */
static inline double float_at(const unsigned char *p)
{
    uint64_t bits = (uint64_t)p[1] << 56 | (uint64_t)p[2] << 48 | (uint64_t)p[3] << 40 | (uint64_t)p[4] << 32 |
                    (uint64_t)p[5] << 24 | (uint64_t)p[6] << 16 | (uint64_t)p[7] << 8 | p[8];
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static bool read_elements(decoder *d)
{
    if (left(d) == 0 || (*d->p != SMALL_INTEGER_EXT && *d->p != INTEGER_EXT && *d->p != NEW_FLOAT_EXT))
        return true;
    tc_term *f = d->top;
    uint64_t most = f[FR_LEFT] - 1;
    if (most > left(d) / 2) /* two bytes an item at least */
        most = left(d) / 2;
    if (most == 0)
        return true;
    unsigned kind = (unsigned)f[FR_KIND] & F_KIND;
    tc_term *v;
    ptrdiff_t step = kind == F_LIST ? -(ptrdiff_t)TC_CONS_SIZE : 1;
    if (kind == F_MAP) {
        if (!tc_wstack_reserve(&d->vals, (size_t)most))
            return oom(d);
        v = d->vals.base + d->vals.n;
    } else {
        v = slot_of(f[FR_SLOT]);
    }
    const unsigned char *p = d->p, *end = d->end;
    uint64_t k = 0;
    bool ok = true;
    for (; k < most; k++, v += step) {
        size_t n = (size_t)(end - p);
        if (n >= 2 && p[0] == SMALL_INTEGER_EXT) {
            *v = tc_make_small(p[1]);
            p += 2;
        } else if (n >= 5 && p[0] == INTEGER_EXT) {
            *v = tc_make_small((int32_t)((uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 | p[4]));
            p += 5;
        } else if (n >= 9 && p[0] == NEW_FLOAT_EXT) {
            /* A run of floats: their objects in one allocation, each where a bump allocator
             * would have put it had they come one by one. */
            uint64_t r = 0;
            while (r < most - k && (size_t)(end - p) >= 9 * (r + 1) && p[9 * r] == NEW_FLOAT_EXT &&
                   isfinite(float_at(p + 9 * r)))
                r++;
            if (r == 0)
                break;
            tc_term *w = tc_alloc_words(d->a, TC_FLOAT_SIZE * (size_t)r);
            if (!w) {
                p += 9; /* reported where decode_float reports it: after the item */
                ok = false;
                break;
            }
            for (uint64_t i = 0; i < r; i++, p += 9, w += TC_FLOAT_SIZE) {
                double x = float_at(p);
                w[0] = TC_MAKE_HEADER(1, TC_SUBTAG_FLOAT);
                memcpy(&w[1], &x, sizeof x);
                *v = tc_make_boxed(w);
                if (i + 1 < r)
                    v += step;
            }
            k += r - 1;
        } else {
            break;
        }
    }
    d->p = p;
    f[FR_LEFT] -= k;
    if (kind == F_MAP)
        d->vals.n += (size_t)k;
    else if (k > 0)
        f[FR_SLOT] = (tc_term)(uintptr_t)(kind == F_LIST && f[FR_LEFT] == 1 ? v - step + 1 : v);
    return ok || oom(d);
}

/* Hands a value to the innermost open container, closing each one it completes; the
 * outermost one's term, when it closes, goes to d->result. */
ALWAYS_INLINE bool hand(decoder *d, tc_term v)
{
    for (;;) {
        tc_term *f = d->top;
        unsigned kind = (unsigned)f[FR_KIND] & F_KIND;
        uint64_t left = --f[FR_LEFT];
        if (kind == F_MAP) {
            if (!tc_wstack_push(&d->vals, v))
                return oom(d);
        } else {
            tc_term *slot = slot_of(f[FR_SLOT]);
            *slot = v;
            f[FR_SLOT] = (tc_term)(uintptr_t)next_slot(kind, slot, left);
        }
        if (left > 0)
            return true;
        if (kind != F_MAP)
            v = f[FR_TERM];
        else if (!build_map(d, f, &v))
            return false;
        bool handed = (f[FR_KIND] & F_HANDED) != 0;
        d->frames.n -= FRAME_WORDS;
        d->top = d->frames.n != 0 ? f - FRAME_WORDS : NULL;
        if (handed)
            return true;
        if (!d->top) {
            d->result = v;
            return true;
        }
    }
}

/*
 * The decoding loop. The commonest items (small integers, [], a string, a small tuple) are
 * read here; a run of integers and floats in a container goes to read_elements; everything
 * else, and any of these whose bytes are short, to decode_item, which reports it.
 */
enum { CHAIN_MAX = 64 }; /* tuples read ahead and allocated at once (parse) */

static bool parse(decoder *d, tc_term *result)
{
    for (;;) {
        tc_term v;
        const unsigned char *p = d->p;
        size_t n = left(d);
        switch (n > 0 ? *p : 0) {
        case SMALL_INTEGER_EXT:
        case INTEGER_EXT:
        case NEW_FLOAT_EXT:
            if (d->top && d->top[FR_LEFT] > 2) {
                if (!read_elements(d))
                    return false;
                if (d->p != p) /* else a bad first item, which decode_item reports */
                    continue;
            }
            if (*p == SMALL_INTEGER_EXT && n >= 2) {
                v = tc_make_small(p[1]);
                d->p = p + 2;
            } else if (*p == INTEGER_EXT && n >= 5) {
                v = tc_make_small((int32_t)((uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 | p[4]));
                d->p = p + 5;
            } else {
                goto general;
            }
            break;
        case NIL_EXT:
            v = TC_NIL;
            d->p = p + 1;
            break;
        case STRING_EXT:
            d->p = p + 1;
            if (!decode_string(d, &v))
                return false;
            break;
        case SMALL_TUPLE_EXT: {
            if (n < 2 || p[1] == 0 || p[1] > n - 2)
                goto general;
            d->p = p + 2;
            tc_term *f = d->top;
            if (!f || d->maps_open != 0 || f[FR_LEFT] != 1 || !(f[FR_KIND] & F_HANDED)) {
                if (!open_frame(d, F_TUPLE, p[1], p, TC_NIL))
                    return false;
                continue;
            }
            /* The last value of a container that its own parent has had since it opened: this
             * tuple completes it, and takes its frame ({X, {Y, ...}} decodes in one frame). So
             * do the tuples that follow it as each one's last value when every other value of
             * theirs is an integer (a chain of links, CHAIN_MAX at most): one allocation for
             * them all, each tuple where a bump allocator puts it one after the other. */
            size_t links = 0, words = 0;
            const unsigned char *q = p, *end = d->end;
            while (links < CHAIN_MAX && (size_t)(end - q) >= 2 && q[0] == SMALL_TUPLE_EXT && q[1] != 0 &&
                   q[1] <= (size_t)(end - q) - 2) {
                const unsigned char *r = q + 2;
                unsigned i = 1;
                for (; i < q[1]; i++) {
                    if ((size_t)(end - r) >= 2 && r[0] == SMALL_INTEGER_EXT)
                        r += 2;
                    else if ((size_t)(end - r) >= 5 && r[0] == INTEGER_EXT)
                        r += 5;
                    else
                        break;
                }
                if (links > 0 && i < q[1])
                    break; /* this one has other values: the next round of the loop reads it */
                links++;
                words += 1 + (size_t)q[1];
                if (i < q[1])
                    break; /* the first has: it alone, its other values read as they come */
                q = r;
            }
            tc_term *t = tc_alloc_words(d->a, words);
            if (!t)
                return oom(d);
            tc_term *slot = slot_of(f[FR_SLOT]);
            const unsigned char *at = p;
            for (size_t l = 0; l < links; l++) {
                unsigned arity = p[1];
                at = p;
                p += 2;
                *slot = tc_make_boxed(t);
                t[0] = TC_MAKE_HEADER(arity, TC_SUBTAG_ARITYVAL);
                unsigned i = 1;
                if (links > 1) { /* whole links: their values but the last are integers, checked */
                    for (; i < arity; i++) {
                        if (p[0] == SMALL_INTEGER_EXT) {
                            t[i] = tc_make_small(p[1]);
                            p += 2;
                        } else {
                            t[i] = tc_make_small((int32_t)((uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 |
                                                           (uint32_t)p[3] << 8 | p[4]));
                            p += 5;
                        }
                    }
                }
                slot = &t[i];
                t += 1 + arity;
                f[FR_LEFT] = arity + 1 - i;
                f[FR_TERM] = tc_make_boxed(t - 1 - arity);
            }
            d->p = p;
            f[FR_KIND] = F_TUPLE | F_HANDED;
            f[FR_SLOT] = (tc_term)(uintptr_t)slot;
            f[FR_AT] = (tc_term)(at - d->start);
            continue;
        }
        default:
        general: {
            bool opened = false;
            if (!decode_item(d, &v, &opened))
                return false;
            if (opened)
                continue;
        }
        }
        if (!d->top) {
            *result = v;
            return true;
        }
        if (!hand(d, v))
            return false;
        if (!d->top) {
            *result = d->result;
            return true;
        }
    }
}

/* The term in bytes[first..len) (first: just past the version byte; 0 in the ETS form, which
 * has none), into a. */
static tc_result decode_term(tc_alloc *a, const unsigned char *bytes, size_t first, size_t len, const char *where,
                             bool strict, bool ets, tc_term *out, tc_read_error *err)
{
    decoder d = {bytes, bytes + first, bytes + len, where, a, err, TC_OK, {0}, {0}, strict, ets, NULL, 0, TC_NON_VALUE};
    tc_wstack_init(&d.vals);
    tc_wstack_init(&d.frames);
    tc_term *offheap_mark = a->offheap->first;
    tc_term v = TC_NON_VALUE;
    if (parse(&d, &v) && d.p != d.end && strict)
        record_failure(&d, d.p, TC_EPARSE, "%zu bytes after the end of the term", left(&d));
    if (d.res != TC_OK)
        abandon_frames(&d);
    tc_wstack_destroy(&d.vals);
    tc_wstack_destroy(&d.frames);
    if (d.res != TC_OK) {
        tc_offheap_abandon_until(a->offheap, offheap_mark);
        return d.res;
    }
    *out = v;
    return TC_OK;
}

/* One error before any term is built: the version byte or the COMPRESSED wrapper. */
TC_PRINTF(4, 5) static tc_result header_error(tc_read_error *err, size_t at, tc_result r, const char *fmt, ...)
{
    if (err) {
        err->offset = at;
        int k = snprintf(err->message, sizeof err->message, "byte %zu: ", at);
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(err->message + k, sizeof err->message - (size_t)k, fmt, ap); /* truncated is fine */
        va_end(ap);
    }
    return r;
}

/*
 * COMPRESSED: the uncompressed size (4 bytes), then a zlib stream of exactly that many bytes
 * (erts_binary2term_prepare inflates into a buffer of the declared size and fails unless it
 * fills exactly). A declared size past what deflate can expand the stream to (1032:1, its
 * best ratio, plus a margin for the zlib header) is refused before anything is allocated, so a
 * lie costs no memory; a stream that inflates to more or fewer bytes is refused too.
 */
#define ZLIB_MAX_RATIO 1032u

static tc_result decode_compressed(tc_alloc *a, const unsigned char *bytes, size_t len, bool strict, tc_term *out,
                                   tc_read_error *err)
{
    if (len < 6)
        return header_error(err, 2, TC_EPARSE, "input ends inside the compressed term's size (4 bytes needed, %zu left)",
                            len - 2);
    uint64_t size = (uint64_t)bytes[2] << 24 | (uint64_t)bytes[3] << 16 | (uint64_t)bytes[4] << 8 | bytes[5];
    size_t clen = len - 6;
    if (size == 0)
        return header_error(err, 2, TC_EPARSE, "compressed term declares 0 bytes uncompressed");
    if (size > (uint64_t)clen * ZLIB_MAX_RATIO + 64)
        return header_error(err, 2, TC_EPARSE,
                            "compressed term declares %llu bytes uncompressed, more than zlib can expand its %zu "
                            "bytes to",
                            (unsigned long long)size, clen);
    unsigned char *buf = tc_mem_alloc((size_t)size + 1);
    if (!buf)
        return header_error(err, 2, TC_ENOMEM, "out of memory for %llu uncompressed bytes", (unsigned long long)size);
    buf[0] = TC_EXT_VERSION;
    size_t got = 0;
    int z = tc__zlib_inflate(bytes + 6, clen, buf + 1, (size_t)size, &got);
    tc_result r;
    if (z == 1)
        r = header_error(err, 6, TC_EPARSE, "compressed term inflates past its declared %llu bytes",
                         (unsigned long long)size);
    else if (z == -2)
        r = header_error(err, 6, TC_ENOMEM, "out of memory inflating the compressed term");
    else if (z < 0)
        r = header_error(err, 6, TC_EPARSE, "compressed term is not a valid zlib stream");
    else if (got != size)
        r = header_error(err, 2, TC_EPARSE, "compressed term declares %llu bytes but inflates to %zu",
                         (unsigned long long)size, got);
    else if (z == 2 && strict)
        r = header_error(err, 6, TC_EPARSE, "bytes after the end of the zlib stream");
    else
        r = decode_term(a, buf, 1, (size_t)size + 1, "uncompressed byte", strict, false, out, err);
    tc_mem_free(buf);
    return r;
}

static tc_result decode_ext(tc_alloc *a, const unsigned char *bytes, size_t len, bool strict, tc_term *out,
                            tc_read_error *err)
{
    if (len == 0)
        return header_error(err, 0, TC_EPARSE, "empty input (expected the version byte 131)");
    if (bytes[0] != TC_EXT_VERSION)
        return header_error(err, 0, TC_EPARSE, "version byte is %u, expected 131", bytes[0]);
    if (len > 1 && bytes[1] == COMPRESSED)
        return decode_compressed(a, bytes, len, strict, out, err);
    return decode_term(a, bytes, 1, len, "byte", strict, false, out, err);
}

tc_result tc__ext_ets_decode(tc_alloc *a, const unsigned char *bytes, size_t len, tc_term *out)
{
    return decode_term(a, bytes, 0, len, "byte", false, true, out, NULL);
}

tc_result tc_ext_decode(tc_alloc *a, const unsigned char *bytes, size_t len, tc_term *out, tc_read_error *err)
{
    return decode_ext(a, bytes, len, false, out, err);
}

tc_result tc_ext_decode_strict(tc_alloc *a, const unsigned char *bytes, size_t len, tc_term *out, tc_read_error *err)
{
    return decode_ext(a, bytes, len, true, out, err);
}

/* term_to_binary(T, [{compressed, Level}, {minor_version, M}]): the plain encoding, then
 * deflate with an output limit of its length less 5 (erts_term_to_binary_simple gives zlib no
 * more room than that, and the chunked path stops there too); the plain encoding when the
 * stream does not fit, or the term is under 5 bytes. */
tc_result tc_ext_encode_compressed(tc_term t, unsigned minor, int level, unsigned char **bytes, size_t *len)
{
    if (level < 0 || level > 9)
        return TC_EBADARG;
    unsigned char *plain;
    size_t n;
    tc_result r = tc_ext_encode(t, minor, &plain, &n);
    if (r != TC_OK || level == 0 || n - 1 < 5)
        goto plain_out;
    size_t cap = n - 1 - 5;
    unsigned char *z = tc_mem_alloc(6 + cap);
    if (!z) {
        tc_mem_free(plain);
        return TC_ENOMEM;
    }
    size_t zlen;
    int zr = tc__zlib_deflate(plain + 1, n - 1, level, z + 6, cap, &zlen);
    if (zr < 0) {
        tc_mem_free(z);
        tc_mem_free(plain);
        return TC_ENOMEM;
    }
    if (zr == 0) {
        z[0] = TC_EXT_VERSION;
        z[1] = COMPRESSED;
        for (int k = 0; k < 4; k++)
            z[2 + k] = (unsigned char)((n - 1) >> (24 - 8 * k));
        tc_mem_free(plain);
        *bytes = z;
        *len = 6 + zlen;
        return TC_OK;
    }
    tc_mem_free(z);
plain_out:
    if (r == TC_OK) {
        *bytes = plain;
        *len = n;
    }
    return r;
}
