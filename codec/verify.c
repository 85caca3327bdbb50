#include "verify.h"

#include <math.h>

#include "../terms/atom.h"
#include "../terms/bignum.h"
#include "../terms/binary.h"
#include "../terms/compare.h"
#include "../terms/fun.h"
#include "../terms/hashmap.h"
#include "../terms/ident.h"
#include "../terms/ptrset.h"
#include "../terms/wstack.h"

/* ---- the verifier ---------------------------------------------------------------------- */

#define FAIL(msg)      \
    do {               \
        *why = (msg);  \
        goto done;     \
    } while (0)

static bool aligned(tc_term t) { return ((t & ~(tc_term)TC_TAG_PRIMARY_MASK) & 7u) == 0 && (t >> 3) != 0; }

static const char *check_immediate(tc_term t)
{
    if (tc_is_small(t) || tc_is_pid(t) || tc_is_port(t) || tc_is_nil(t))
        return NULL;
    if (tc_is_atom(t))
        return tc_atom_exists(t) ? NULL : "atom index not in the atom table";
    return "immediate with an unknown or stack-only tag";
}

/* Recursion depth 1: a sub binary's orig is checked to be a heap binary or a ProcBin first. */
static const char *check_binary(const tc_term *p) /* NOLINT(misc-no-recursion): depth 1, see above */
{
    uint64_t arity = tc_header_arity(p[0]);
    switch (tc_header_subtag(p[0])) {
    case TC_SUBTAG_HEAP_BINARY:
        if (p[1] > TC_HEAP_BIN_LIMIT || arity + 1 != TC_HEAP_BIN_SIZE(p[1]))
            return "heap binary size and arity disagree";
        return NULL;
    case TC_SUBTAG_REFC_BINARY: {
        if (p[0] != TC_PROC_BIN_HEADER)
            return "ProcBin header malformed";
        const tc_binary *bin = (const tc_binary *)(uintptr_t)p[TC_PB_VAL];
        if (!bin || atomic_load(&bin->refc) < 1)
            return "ProcBin without a live off-heap binary";
        const unsigned char *bytes = (const unsigned char *)(uintptr_t)p[TC_PB_BYTES];
        if (bytes < bin->orig_bytes || bytes + p[TC_PB_SIZE] > bin->orig_bytes + bin->orig_size)
            return "ProcBin bytes outside its binary";
        return NULL;
    }
    case TC_SUBTAG_SUB_BINARY: {
        if (p[0] != TC_SUB_BIN_HEADER)
            return "sub binary header malformed";
        tc_term orig = p[TC_SB_ORIG];
        if (!tc_is_boxed(orig) || !aligned(orig))
            return "sub binary orig is not a boxed pointer";
        unsigned os = tc_boxed_subtag(orig);
        if (os != TC_SUBTAG_HEAP_BINARY && os != TC_SUBTAG_REFC_BINARY)
            return "sub binary orig is not a heap binary or ProcBin";
        const char *e = check_binary(tc_boxed_val(orig));
        if (e)
            return e;
        unsigned extra = (unsigned)(p[TC_SB_BITS] & 0xFF), bitoffs = (unsigned)((p[TC_SB_BITS] >> 8) & 0xFF);
        if (extra > 7 || bitoffs > 7)
            return "sub binary bit fields out of range";
        uint64_t end_bits = (p[TC_SB_OFFS] + p[TC_SB_SIZE]) * 8 + bitoffs + extra;
        if (end_bits > tc_bitstring_get(orig).bytes * 8)
            return "sub binary runs past its binary";
        return NULL;
    }
    }
    return "not a binary";
}

bool tc_term_verify(tc_term t, const char **why_out)
{
    const char *dummy = NULL;
    const char **why = why_out ? why_out : &dummy;
    *why = NULL;
    tc_wstack s;
    tc_ptrset seen;
    tc_wstack_init(&s);
    tc_ptrset_init(&seen);
    for (;;) {
        if (tc_is_header(t))
            FAIL("header word used as a value");
        if (tc_is_immed(t)) {
            const char *e = check_immediate(t);
            if (e)
                FAIL(e);
        } else {
            if (!aligned(t))
                FAIL("misaligned or null pointer");
            const tc_term *p = tc_is_list(t) ? tc_list_val(t) : tc_boxed_val(t);
            int fresh = tc_ptrset_add(&seen, p);
            if (fresh < 0)
                FAIL("out of memory while verifying");
            if (fresh && tc_is_list(t)) {
                if (tc_is_header(p[0]) || tc_is_header(p[1]))
                    FAIL("cons cell holds a header word");
                if (!tc_wstack_push(&s, p[0]))
                    FAIL("out of memory while verifying");
                t = p[1];
                continue;
            }
            if (fresh) {
                tc_term h = p[0];
                if (!tc_is_header(h))
                    FAIL("boxed pointer to a word that is not a header");
                uint64_t arity = tc_header_arity(h);
                switch (tc_header_subtag(h)) {
                case TC_SUBTAG_ARITYVAL:
                    if (arity == 0 && !tc_is_empty_tuple_object(p))
                        FAIL("a zero-arity tuple that is not the shared {}");
                    if (!tc_wstack_reserve(&s, arity))
                        FAIL("out of memory while verifying");
                    for (uint64_t i = 1; i <= arity; i++)
                        s.base[s.n++] = p[i];
                    break;
                case TC_SUBTAG_FLOAT: {
                    double d;
                    memcpy(&d, &p[1], sizeof d);
                    if (arity != 1 || !isfinite(d))
                        FAIL("float header or value malformed");
                    break;
                }
                case TC_SUBTAG_POS_BIG:
                case TC_SUBTAG_NEG_BIG:
                    if (arity == 0 || p[arity] == 0)
                        FAIL("bignum not normalised (zero top digit)");
                    if (arity > TC_BIG_ARITY_MAX)
                        FAIL("bignum past the VM's largest");
                    if (arity == 1 && (p[1] <= (uint64_t)TC_MAX_SMALL ||
                                       (tc_header_subtag(h) == TC_SUBTAG_NEG_BIG && p[1] == (uint64_t)TC_MAX_SMALL + 1)))
                        FAIL("bignum in the small-integer range");
                    break;
                case TC_SUBTAG_HEAP_BINARY:
                case TC_SUBTAG_REFC_BINARY:
                case TC_SUBTAG_SUB_BINARY: {
                    const char *e = check_binary(p);
                    if (e)
                        FAIL(e);
                    break;
                }
                case TC_SUBTAG_MAP: {
                    uint64_t n = p[1];
                    if (tc_map_header_type(h) == TC_MAP_HEADER_TAG_HAMT_NODE_BITMAP)
                        FAIL("pointer to an inner HAMT node");
                    if (tc_is_hashmap(t)) {
                        const char *e = tc_hashmap_check(t);
                        if (e)
                            FAIL(e);
                        if (!tc_wstack_reserve(&s, 2 * n))
                            FAIL("out of memory while verifying");
                        tc_map_iter it;
                        tc_term k, v;
                        tc_map_iter_init(&it, t, false);
                        while (tc_map_iter_next(&it, &k, &v)) {
                            s.base[s.n++] = k;
                            s.base[s.n++] = v;
                        }
                        break;
                    }
                    if (h != TC_MAP_HEADER_FLATMAP || n > TC_MAP_SMALL_MAP_LIMIT)
                        FAIL("map is not a flatmap of at most 32 keys");
                    tc_term keys = p[2];
                    if (!tc_is_boxed(keys) || !aligned(keys) || !tc_is_tuple(keys) || tc_tuple_arity(keys) != n)
                        FAIL("flatmap keys are not a tuple of its size");
                    for (uint64_t i = 1; i < n; i++) {
                        int c;
                        if (tc_term_compare_exact(tc_tuple_element(keys, i), tc_tuple_element(keys, i + 1), &c) != TC_OK)
                            FAIL("out of memory while verifying");
                        if (c >= 0)
                            FAIL("flatmap keys not strictly ascending");
                    }
                    if (!tc_wstack_reserve(&s, n + 1))
                        FAIL("out of memory while verifying");
                    s.base[s.n++] = keys;
                    for (uint64_t i = 0; i < n; i++)
                        s.base[s.n++] = p[3 + i];
                    break;
                }
                case TC_SUBTAG_REF:
                case TC_SUBTAG_EXTERNAL_PID:
                case TC_SUBTAG_EXTERNAL_PORT:
                case TC_SUBTAG_EXTERNAL_REF: {
                    const char *e = tc_ident_check(p);
                    if (e)
                        FAIL(e);
                    break;
                }
                case TC_SUBTAG_FUN: {
                    const char *e = tc_fun_check(p);
                    if (e)
                        FAIL(e);
                    size_t nf = tc_fun_num_free(p);
                    if (!tc_wstack_reserve(&s, nf + 1))
                        FAIL("out of memory while verifying");
                    s.base[s.n++] = p[TC_FUN_CREATOR];
                    for (size_t i = 0; i < nf; i++)
                        s.base[s.n++] = p[TC_FUN_ENV + i];
                    break;
                }
                default:
                    FAIL("header subtag not built by termcopy");
                }
            }
        }
        if (tc_wstack_empty(&s))
            break;
        t = tc_wstack_pop(&s);
    }
done:
    tc_wstack_destroy(&s);
    tc_ptrset_destroy(&seen);
    return *why == NULL;
}
