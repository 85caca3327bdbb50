#include "printer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../terms/atom.h"
#include "../terms/bignum.h"
#include "../terms/binary.h"
#include "../terms/fun.h"
#include "../terms/hashmap.h"
#include "../terms/ident.h"
#include "../terms/wstack.h"

typedef struct strbuf {
    char *p;
    size_t n, cap;
    bool oom;
} strbuf;

static void put(strbuf *b, const char *s, size_t len)
{
    if (b->oom)
        return;
    if (b->cap - b->n <= len) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->n <= len)
            cap *= 2;
        char *p = tc_mem_realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, len);
    b->n += len;
    b->p[b->n] = '\0';
}

static void puts_(strbuf *b, const char *s) { put(b, s, strlen(s)); }

static void put_u64(strbuf *b, uint64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
    put(b, tmp, (size_t)n);
}

/* ---- floats ---------------------------------------------------------------------------- */

size_t tc_float_format(double d, char *out)
{
    /* Erlang floats are finite (the reader, the decoder and tc_term_verify refuse the rest);
     * "inf" and "nan" have no digits or exponent for the scan below to find. */
    TC_CHECK(isfinite(d));
    char *o = out;
    if (signbit(d)) {
        *o++ = '-';
        d = -d;
    }
    if (d == 0) {
        strcpy(o, "0.0");
        return (size_t)(o - out) + 3;
    }
    /* Shortest digits that round-trip: the first precision whose correctly rounded
     * decimal reads back as the same double. */
    char sci[40];
    for (int prec = 1; prec <= 17; prec++) {
        (void)snprintf(sci, sizeof sci, "%.*e", prec - 1, d); /* at most 24 bytes */
        if (strtod(sci, NULL) == d)
            break;
    }
    char digits[20];
    int nd = 0;
    const char *s = sci;
    for (; *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            digits[nd++] = *s;
    TC_ASSERT(nd > 0);
    int exp10 = (int)strtol(s + 1, NULL, 10); /* the exponent %e wrote: 3 digits at most */
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    /* value = digits * 10^place; the placement rules are io_lib_format's. */
    int place = exp10 - (nd - 1);
    int exp = place + nd - 1;
    char expl[8];
    int explen = snprintf(expl, sizeof expl, "%d", exp);
    int expcost = explen + 2;
    if (place == 0) {
        memcpy(o, digits, (size_t)nd);
        o += nd;
        strcpy(o, ".0");
        o += 2;
    } else if (place < 0 && exp >= 0) {
        int before = nd + place;
        memcpy(o, digits, (size_t)before);
        o += before;
        *o++ = '.';
        memcpy(o, digits + before, (size_t)(nd - before));
        o += nd - before;
    } else if (place < 0 && 2 - place - nd <= expcost) {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -place - nd; i++)
            *o++ = '0';
        memcpy(o, digits, (size_t)nd);
        o += nd;
    } else if (place > 0 && expcost + (nd == 1) >= place + 2) {
        memcpy(o, digits, (size_t)nd);
        o += nd;
        for (int i = 0; i < place; i++)
            *o++ = '0';
        *o++ = '.';
        *o++ = '0';
    } else {
        *o++ = digits[0];
        *o++ = '.';
        if (nd == 1) {
            *o++ = '0';
        } else {
            memcpy(o, digits + 1, (size_t)(nd - 1));
            o += nd - 1;
        }
        *o++ = 'e';
        memcpy(o, expl, (size_t)explen);
        o += explen;
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* ---- atoms ----------------------------------------------------------------------------- */




static bool atom_needs_quotes(const char *name, size_t len)
{
    if (len == 0 || tc_atom_is_reserved_word(name, len))
        return true;
    const unsigned char *p = (const unsigned char *)name, *end = p + len;
    long c = tc_utf8_decode(&p, end);
    if (!tc_atom_is_lower_start(c))
        return true;
    while (p < end)
        if (!tc_atom_is_name_char(tc_utf8_decode(&p, end)))
            return true;
    return false;
}

/* One character inside quotes, as io_lib's string_char escapes it. */
static void quoted_char(long c, char quote, char *out, size_t *len)
{
    static const char esc_from[] = "\n\r\t\v\b\f\033\177";
    static const char esc_to[] = "nrtvbfed";
    size_t n = 0;
    if (c == quote || c == '\\') {
        out[n++] = '\\';
        out[n++] = (char)c;
    } else if ((c >= ' ' && c <= '~') || c >= 0xA0) {
        n = tc_utf8_encode((uint32_t)c, out);
    } else {
        const char *e = c ? strchr(esc_from, (int)c) : NULL;
        out[n++] = '\\';
        if (e) {
            out[n++] = esc_to[e - esc_from];
        } else {
            out[n++] = (char)('0' + ((c >> 6) & 7));
            out[n++] = (char)('0' + ((c >> 3) & 7));
            out[n++] = (char)('0' + (c & 7));
        }
    }
    *len = n;
}

static void put_atom(strbuf *b, tc_term atom)
{
    size_t len;
    const char *name = tc_atom_name(atom, &len);
    if (!atom_needs_quotes(name, len)) {
        put(b, name, len);
        return;
    }
    put(b, "'", 1);
    const unsigned char *p = (const unsigned char *)name, *end = p + len;
    while (p < end) {
        char tmp[8];
        size_t n;
        quoted_char(tc_utf8_decode(&p, end), '\'', tmp, &n);
        put(b, tmp, n);
    }
    put(b, "'", 1);
}

/* ---- the walk -------------------------------------------------------------------------- */

/* Work items: a term to print, the rest of a list after an element, or fixed text. */
enum { ITEM_TERM, ITEM_LIST_REST, ITEM_TEXT };

static bool push_item(tc_wstack *s, int kind, tc_term v)
{
    if (!tc_wstack_reserve(s, 2))
        return false;
    s->base[s->n++] = v;
    s->base[s->n++] = (tc_term)kind;
    return true;
}
#define PUSH_TEXT(s, str) push_item((s), ITEM_TEXT, (tc_term)(uintptr_t)(str))

static void put_bitstring(strbuf *b, tc_term t)
{
    tc_bits bits = tc_bitstring_get(t);
    put(b, "<<", 2);
    for (size_t i = 0; i < bits.bytes; i++) {
        if (i)
            put(b, ",", 1);
        put_u64(b, tc_bits_byte(&bits, i));
    }
    if (bits.extra_bits) {
        unsigned v = 0;
        for (unsigned i = 0; i < bits.extra_bits; i++)
            v = (v << 1) | tc_bits_bit(&bits, bits.bytes * 8 + i);
        if (bits.bytes)
            put(b, ",", 1);
        put_u64(b, v);
        put(b, ":", 1);
        put_u64(b, bits.extra_bits);
    }
    put(b, ">>", 2);
}

/* erl_printf_term.c: a remote node's pid, port or ref names it by its dist channel, the
 * atom index of its name (dist_entry_channel_no); this node is channel 0. */
static uint64_t channel_of(tc_term t)
{
    return tc_is_external(t) ? tc_atom_index(tc_external_node(t)->sysname) : 0;
}

static void put_signed(strbuf *b, int64_t v)
{
    char tmp[24];
    (void)snprintf(tmp, sizeof tmp, "%lld", (long long)v); /* 20 bytes at most */
    puts_(b, tmp);
}

/* Pids, ports, refs and funs as erlang:pid_to_list, port_to_list, ref_to_list and
 * fun_to_list write them (io_lib:write calls them): <C.N.S>, #Port<C.N>, #Ref<C.nk..n0>,
 * `fun M:F/A` and #Fun<Module.OldIndex.OldUniq>. */
static bool put_ident(strbuf *b, tc_term t)
{
    if (tc_is_any_pid(t)) {
        put(b, "<", 1);
        put_u64(b, channel_of(t));
        put(b, ".", 1);
        put_u64(b, tc_is_pid(t) ? tc_pid_number(t) : tc_external_pid_number(t));
        put(b, ".", 1);
        put_u64(b, tc_is_pid(t) ? tc_pid_serial(t) : tc_external_pid_serial(t));
        put(b, ">", 1);
    } else if (tc_is_any_port(t)) {
        put(b, "#Port<", 6);
        put_u64(b, channel_of(t));
        put(b, ".", 1);
        put_u64(b, tc_is_port(t) ? tc_port_number(t) : tc_external_port_number(t));
        put(b, ">", 1);
    } else if (tc_is_any_ref(t)) {
        uint32_t num[TC_REF_MAX_NUMBERS];
        put(b, "#Ref<", 5);
        put_u64(b, channel_of(t));
        for (size_t i = tc_ref_numbers(t, num); i-- > 0;) {
            put(b, ".", 1);
            put_u64(b, num[i]);
        }
        put(b, ">", 1);
    } else if (tc_is_fun(t)) {
        const tc_term *p = tc_boxed_val(t);
        if (tc_fun_is_local(p)) {
            const tc_fun_entry *fe = tc_fun_entry_of(p);
            size_t len;
            const char *name = tc_atom_name(fe->module, &len);
            put(b, "#Fun<", 5);
            put(b, name, len);
            put(b, ".", 1);
            put_signed(b, fe->old_index);
            put(b, ".", 1);
            put_signed(b, fe->old_uniq);
            put(b, ">", 1);
        } else {
            const tc_export *e = tc_fun_export_of(p);
            put(b, "fun ", 4);
            put_atom(b, e->module);
            put(b, ":", 1);
            put_atom(b, e->function);
            put(b, "/", 1);
            put_u64(b, e->arity);
        }
    } else {
        return false;
    }
    return true;
}

static bool put_scalar(strbuf *b, tc_term t)
{
    if (tc_is_small(t)) {
        char tmp[24];
        (void)snprintf(tmp, sizeof tmp, "%lld", (long long)tc_small_val(t)); /* 20 bytes at most */
        puts_(b, tmp);
    } else if (tc_is_atom(t)) {
        put_atom(b, t);
    } else if (tc_is_nil(t)) {
        put(b, "[]", 2);
    } else if (put_ident(b, t)) {
        return true;
    } else if (tc_is_float(t)) {
        char tmp[40];
        put(b, tmp, tc_float_format(tc_float_val(t), tmp));
    } else if (tc_is_big(t)) {
        size_t cap = tc_integer_decimal_bound(t);
        char *tmp = tc_mem_alloc(cap);
        size_t n = tmp ? tc_integer_to_decimal(t, tmp, NULL) : 0;
        if (n == 0)
            b->oom = true;
        else
            put(b, tmp, n);
        tc_mem_free(tmp);
    } else if (tc_is_bitstring(t)) {
        put_bitstring(b, t);
    } else {
        return false;
    }
    return true;
}

tc_result tc_term_print(tc_term t, char **text, size_t *len)
{
    strbuf b = {0};
    tc_wstack s;
    tc_wstack_init(&s);
    bool ok = push_item(&s, ITEM_TERM, t);
    while (ok && !b.oom && !tc_wstack_empty(&s)) {
        int kind = (int)tc_wstack_pop(&s);
        tc_term v = tc_wstack_pop(&s);
        if (kind == ITEM_TEXT) {
            puts_(&b, (const char *)(uintptr_t)v);
        } else if (kind == ITEM_LIST_REST) {
            if (tc_is_nil(v)) {
                put(&b, "]", 1);
            } else if (tc_is_list(v)) {
                put(&b, ",", 1);
                ok = push_item(&s, ITEM_LIST_REST, tc_cdr(v)) && push_item(&s, ITEM_TERM, tc_car(v));
            } else {
                put(&b, "|", 1);
                ok = PUSH_TEXT(&s, "]") && push_item(&s, ITEM_TERM, v);
            }
        } else if (tc_is_list(v)) {
            put(&b, "[", 1);
            ok = push_item(&s, ITEM_LIST_REST, tc_cdr(v)) && push_item(&s, ITEM_TERM, tc_car(v));
        } else if (tc_is_tuple(v)) {
            uint64_t n = tc_tuple_arity(v);
            put(&b, "{", 1);
            ok = PUSH_TEXT(&s, "}");
            for (uint64_t i = n; ok && i >= 1; i--)
                ok = push_item(&s, ITEM_TERM, tc_tuple_element(v, i)) && (i == 1 || PUSH_TEXT(&s, ","));
        } else if (tc_is_map(v)) {
            /* maps:next order (hashmap.h), pushed last pair first. */
            uint64_t i = tc_map_size(v);
            tc_map_iter it;
            tc_term key, val;
            tc_map_iter_init(&it, v, true);
            put(&b, "#{", 2);
            ok = PUSH_TEXT(&s, "}");
            for (; ok && tc_map_iter_next(&it, &key, &val); i--)
                ok = push_item(&s, ITEM_TERM, val) && PUSH_TEXT(&s, " => ") && push_item(&s, ITEM_TERM, key) &&
                     (i == 1 || PUSH_TEXT(&s, ","));
        } else if (!put_scalar(&b, v)) {
            puts_(&b, "#Unknown<>");
        }
    }
    tc_wstack_destroy(&s);
    if (!ok || b.oom) {
        tc_mem_free(b.p);
        return TC_ENOMEM;
    }
    if (!b.p)
        put(&b, "", 0);
    if (b.oom) {
        tc_mem_free(b.p);
        return TC_ENOMEM;
    }
    *text = b.p;
    if (len)
        *len = b.n;
    return TC_OK;
}
