#include "compare.h"

#include "atom.h"
#include "binary.h"
#include "bignum.h"
#include "fun.h"
#include "hashmap.h"
#include "ident.h"
#include "wstack.h"

enum term_class { NUMBER = 1, ATOM, REFERENCE, FUN, PORT, PID, TUPLE, MAP, NIL, LIST, BITSTRING };

static enum term_class class_of(tc_term t)
{
    if (tc_is_list(t))
        return LIST;
    if (tc_is_boxed(t)) {
        switch (tc_boxed_subtag(t)) {
        case TC_SUBTAG_ARITYVAL: return TUPLE;
        case TC_SUBTAG_POS_BIG:
        case TC_SUBTAG_NEG_BIG:
        case TC_SUBTAG_FLOAT: return NUMBER;
        case TC_SUBTAG_REF:
        case TC_SUBTAG_EXTERNAL_REF: return REFERENCE;
        case TC_SUBTAG_FUN:
        case TC_SUBTAG_EXPORT: return FUN;
        case TC_SUBTAG_EXTERNAL_PORT: return PORT;
        case TC_SUBTAG_EXTERNAL_PID: return PID;
        case TC_SUBTAG_MAP: return MAP;
        default: return BITSTRING;
        }
    }
    if (tc_is_small(t))
        return NUMBER;
    if (tc_is_atom(t))
        return ATOM;
    if (tc_is_pid(t))
        return PID;
    if (tc_is_port(t))
        return PORT;
    return NIL;
}

static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

static int cmp_numbers(tc_term a, tc_term b, bool exact)
{
    bool fa = tc_is_float(a), fb = tc_is_float(b);
    if (fa && fb) {
        double x = tc_float_val(a), y = tc_float_val(b);
        return (x > y) - (x < y);
    }
    if (!fa && !fb)
        return tc_integer_compare(a, b);
    /* Map key order: every integer before every float, whatever their values (erts_cmp_compound's
     * mixed_types with exact set: SMALL_FLOAT, BIG_FLOAT and the reverse fall through to the
     * type order b_tag - a_tag, and FLOAT_DEF sorts above BIG_DEF and SMALL_DEF). */
    if (exact)
        return fa ? 1 : -1;
    return fa ? -tc_integer_compare_double(b, tc_float_val(a)) : tc_integer_compare_double(a, tc_float_val(b));
}

static int cmp_atoms(tc_term a, tc_term b)
{
    size_t la, lb;
    const char *na = tc_atom_name(a, &la), *nb = tc_atom_name(b, &lb);
    int c = memcmp(na, nb, la < lb ? la : lb);
    if (c)
        return c < 0 ? -1 : 1;
    return cmp_u64(la, lb);
}

static int cmp_bitstrings(tc_term a, tc_term b)
{
    tc_bits x = tc_bitstring_get(a), y = tc_bitstring_get(b);
    size_t bytes = x.bytes < y.bytes ? x.bytes : y.bytes;
    if (x.bitoffs == 0 && y.bitoffs == 0) {
        int c = memcmp(x.data, y.data, bytes);
        if (c)
            return c < 0 ? -1 : 1;
    } else {
        for (size_t i = 0; i < bytes; i++) {
            int c = (int)tc_bits_byte(&x, i) - (int)tc_bits_byte(&y, i);
            if (c)
                return c < 0 ? -1 : 1;
        }
    }
    size_t xb = x.bytes * 8 + x.extra_bits, yb = y.bytes * 8 + y.extra_bits;
    size_t common = xb < yb ? xb : yb;
    for (size_t i = bytes * 8; i < common; i++) {
        int c = (int)tc_bits_bit(&x, i) - (int)tc_bits_bit(&y, i);
        if (c)
            return c;
    }
    return cmp_u64(xb, yb);
}

/* Hashmaps sort their keys with walk_compare, which may meet hashmaps among those keys: the
 * recursion is as deep as hashmaps nest inside hashmap keys (33 keys or more a level). */
static tc_result walk_compare(tc_term a, tc_term b, bool exact, int *order);

/* The pairs of a map sorted by key in exact order (the map-key order erts_cmp uses):
 * kv[2i], kv[2i+1]. Merge sort, since the comparison itself can fail. */
static tc_result sorted_pairs(tc_term m, uint64_t n, tc_term **out) /* NOLINT(misc-no-recursion): see above */
{
    size_t bytes = (n ? 2 * n : 2) * sizeof(tc_term);
    tc_term *kv = tc_mem_alloc(bytes), *tmp = tc_mem_alloc(bytes);
    tc_result r = kv && tmp ? TC_OK : TC_ENOMEM;
    if (r == TC_OK) {
        tc_map_iter it;
        tc_map_iter_init(&it, m, false);
        for (uint64_t i = 0; tc_map_iter_next(&it, &kv[2 * i], &kv[2 * i + 1]); i++)
            ;
    }
    for (uint64_t w = 1; r == TC_OK && w < n; w *= 2) {
        for (uint64_t lo = 0; r == TC_OK && lo < n; lo += 2 * w) {
            uint64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint64_t i = lo, j = mid, k = lo;
            while (i < mid || j < hi) {
                int c = -1;
                if (i < mid && j < hi && (r = walk_compare(kv[2 * i], kv[2 * j], true, &c)) != TC_OK)
                    break;
                uint64_t from = j >= hi || (i < mid && c <= 0) ? i++ : j++;
                tmp[2 * k] = kv[2 * from], tmp[2 * k + 1] = kv[2 * from + 1];
                k++;
            }
        }
        tc_term *x = kv;
        kv = tmp, tmp = x;
    }
    tc_mem_free(tmp);
    if (r != TC_OK) {
        tc_mem_free(kv);
        return r;
    }
    *out = kv;
    return TC_OK;
}

/* Two maps of n keys, one of them a hashmap: keys in sorted order (exactly), then values in
 * key order, as the flatmap case compares its keys tuple and values (erts_cmp's hashmap
 * phases reach the same verdict: the least key not in both decides, else the value at the
 * least key whose values differ). Queued on the stack as compare triples. */
/* NOLINTNEXTLINE(misc-no-recursion): see above */
static tc_result push_hashmaps(tc_wstack *s, tc_term a, tc_term b, uint64_t n, bool exact)
{
    tc_term *ka = NULL, *kb = NULL;
    tc_result r = sorted_pairs(a, n, &ka);
    if (r == TC_OK)
        r = sorted_pairs(b, n, &kb);
    if (r == TC_OK && !tc_wstack_reserve(s, 6 * n))
        r = TC_ENOMEM;
    if (r == TC_OK) {
        for (uint64_t i = n; i > 0; i--) {
            s->base[s->n++] = ka[2 * i - 1];
            s->base[s->n++] = kb[2 * i - 1];
            s->base[s->n++] = exact;
        }
        for (uint64_t i = n; i > 0; i--) {
            s->base[s->n++] = ka[2 * i - 2];
            s->base[s->n++] = kb[2 * i - 2];
            s->base[s->n++] = true;
        }
    }
    tc_mem_free(ka);
    tc_mem_free(kb);
    return r;
}

/* The node a pid, port or ref belongs to, and the VM's CMP_NODES order of two: by name,
 * then by creation (erl_utils.c erts_cmp_compound). */
static void node_of(tc_term t, tc_term *sysname, uint32_t *creation)
{
    if (tc_is_boxed(t) && tc_is_external(t)) {
        const tc_node *n = tc_external_node(t);
        *sysname = n->sysname;
        *creation = n->creation;
    } else {
        *sysname = tc_node_this_sysname();
        *creation = 0;
    }
}

static int cmp_nodes(tc_term a, tc_term b)
{
    tc_term na, nb;
    uint32_t ca, cb;
    node_of(a, &na, &ca);
    node_of(b, &nb, &cb);
    if (na != nb)
        return cmp_atoms(na, nb);
    return cmp_u64(ca, cb);
}

/* Pids: serial, number, node; ports: node, number (erts_cmp_compound's pid_common and
 * EXTERNAL_PORT cases; two local ones compare by their data word). */
static int cmp_pids(tc_term a, tc_term b)
{
    if (tc_is_pid(a) && tc_is_pid(b))
        return cmp_u64(a >> TC_TAG_IMMED1_SIZE, b >> TC_TAG_IMMED1_SIZE);
    uint32_t sa = tc_is_pid(a) ? tc_pid_serial(a) : tc_external_pid_serial(a);
    uint32_t sb = tc_is_pid(b) ? tc_pid_serial(b) : tc_external_pid_serial(b);
    uint32_t xa = tc_is_pid(a) ? tc_pid_number(a) : tc_external_pid_number(a);
    uint32_t xb = tc_is_pid(b) ? tc_pid_number(b) : tc_external_pid_number(b);
    int c = sa != sb ? cmp_u64(sa, sb) : cmp_u64(xa, xb);
    return c ? c : cmp_nodes(a, b);
}

static int cmp_ports(tc_term a, tc_term b)
{
    int c = cmp_nodes(a, b);
    if (c)
        return c;
    uint64_t xa = tc_is_port(a) ? tc_port_number(a) : tc_external_port_number(a);
    uint64_t xb = tc_is_port(b) ? tc_port_number(b) : tc_external_port_number(b);
    return cmp_u64(xa, xb);
}

/* Node, then the 32-bit numbers from the most significant, a longer ref's extra top
 * numbers compared with zero (the ref_common case). */
static int cmp_refs(tc_term a, tc_term b)
{
    int c = cmp_nodes(a, b);
    if (c)
        return c;
    uint32_t na[TC_REF_MAX_NUMBERS], nb[TC_REF_MAX_NUMBERS];
    size_t la = tc_ref_numbers(a, na), lb = tc_ref_numbers(b, nb);
    for (; la > lb; la--)
        if (na[la - 1] != 0)
            return 1;
    for (; lb > la; lb--)
        if (nb[lb - 1] != 0)
            return -1;
    for (size_t i = la; i-- > 0;)
        if (na[i] != nb[i])
            return na[i] < nb[i] ? -1 : 1;
    return 0;
}

/* Funs without their environments: local ones by module, index, old_uniq and num_free,
 * export ones by module, function and arity; a local fun sorts first. The environments of
 * two local funs that tie are compared next, element by element. */
static int cmp_fun_heads(const tc_term *a, const tc_term *b)
{
    bool la = tc_fun_is_local(a), lb = tc_fun_is_local(b);
    if (la != lb)
        return la ? -1 : 1;
    int c;
    if (la) {
        const tc_fun_entry *x = tc_fun_entry_of(a), *y = tc_fun_entry_of(b);
        if ((c = cmp_atoms(x->module, y->module)) != 0)
            return c;
        if (x->index != y->index)
            return x->index < y->index ? -1 : 1;
        if (x->old_uniq != y->old_uniq)
            return x->old_uniq < y->old_uniq ? -1 : 1;
        return cmp_u64(tc_fun_num_free(a), tc_fun_num_free(b));
    }
    const tc_export *x = tc_fun_export_of(a), *y = tc_fun_export_of(b);
    if ((c = cmp_atoms(x->module, y->module)) != 0 || (c = cmp_atoms(x->function, y->function)) != 0)
        return c;
    return cmp_u64(x->arity, y->arity);
}

/* Pairs still to compare sit on the stack as (a, b, exact) triples, so the first
 * difference in depth-first, left-to-right order decides. */
static tc_result walk_compare(tc_term a, tc_term b, bool exact, int *order) /* NOLINT(misc-no-recursion): see above */
{
    tc_wstack s;
    tc_wstack_init(&s);
    tc_result r = TC_OK;
    int c = 0;
    for (;;) {
        if (a != b) {
            enum term_class ca = class_of(a), cb = class_of(b);
            if (ca != cb) {
                c = ca < cb ? -1 : 1;
                break;
            }
            switch (ca) {
            case NUMBER:
                c = cmp_numbers(a, b, exact);
                break;
            case ATOM:
                c = cmp_atoms(a, b);
                break;
            case PID:
                c = cmp_pids(a, b);
                break;
            case PORT:
                c = cmp_ports(a, b);
                break;
            case REFERENCE:
                c = cmp_refs(a, b);
                break;
            case FUN: {
                const tc_term *pa = tc_boxed_val(a), *pb = tc_boxed_val(b);
                size_t n = tc_fun_num_free(pa);
                c = cmp_fun_heads(pa, pb);
                if (c || !tc_fun_is_local(pa) || n == 0)
                    break;
                if (!tc_wstack_reserve(&s, 3 * n)) {
                    r = TC_ENOMEM;
                    goto done;
                }
                for (size_t i = n; i > 1; i--) {
                    s.base[s.n++] = pa[TC_FUN_ENV + i - 1];
                    s.base[s.n++] = pb[TC_FUN_ENV + i - 1];
                    s.base[s.n++] = exact;
                }
                a = pa[TC_FUN_ENV];
                b = pb[TC_FUN_ENV];
                continue;
            }
            case LIST:
                if (!tc_wstack_reserve(&s, 3)) {
                    r = TC_ENOMEM;
                    goto done;
                }
                s.base[s.n++] = tc_cdr(a);
                s.base[s.n++] = tc_cdr(b);
                s.base[s.n++] = exact;
                a = tc_car(a);
                b = tc_car(b);
                continue;
            case TUPLE: {
                uint64_t n = tc_tuple_arity(a);
                c = cmp_u64(n, tc_tuple_arity(b));
                if (c || n == 0)
                    break;
                if (!tc_wstack_reserve(&s, 3 * n)) {
                    r = TC_ENOMEM;
                    goto done;
                }
                for (uint64_t i = n; i > 1; i--) {
                    s.base[s.n++] = tc_tuple_element(a, i);
                    s.base[s.n++] = tc_tuple_element(b, i);
                    s.base[s.n++] = exact;
                }
                a = tc_tuple_element(a, 1);
                b = tc_tuple_element(b, 1);
                continue;
            }
            case MAP: {
                uint64_t n = tc_map_size(a);
                c = cmp_u64(n, tc_map_size(b));
                if (c)
                    break;
                if (tc_is_hashmap(a) || tc_is_hashmap(b)) {
                    r = push_hashmaps(&s, a, b, n, exact);
                    if (r != TC_OK)
                        goto done;
                    goto pop;
                }
                if (!tc_wstack_reserve(&s, 3 * n)) {
                    r = TC_ENOMEM;
                    goto done;
                }
                /* Keys first (compared exactly, as keys are), then values in key order. */
                for (uint64_t i = n; i > 0; i--) {
                    s.base[s.n++] = tc_flatmap_values(a)[i - 1];
                    s.base[s.n++] = tc_flatmap_values(b)[i - 1];
                    s.base[s.n++] = exact;
                }
                a = tc_flatmap_keys(a);
                b = tc_flatmap_keys(b);
                exact = true;
                continue;
            }
            case BITSTRING:
                c = cmp_bitstrings(a, b);
                break;
            default: /* nil equals nil; other classes are not built by termcopy */
                c = cmp_u64(a, b);
                break;
            }
            if (c)
                break;
        }
    pop:
        if (tc_wstack_empty(&s))
            break;
        exact = tc_wstack_pop(&s);
        b = tc_wstack_pop(&s);
        a = tc_wstack_pop(&s);
    }
done:
    tc_wstack_destroy(&s);
    if (r == TC_OK)
        *order = c < 0 ? -1 : c > 0;
    return r;
}

tc_result tc_term_compare(tc_term a, tc_term b, int *order) { return walk_compare(a, b, false, order); }
tc_result tc_term_compare_exact(tc_term a, tc_term b, int *order) { return walk_compare(a, b, true, order); }

tc_result tc_term_equal(tc_term a, tc_term b, bool *equal)
{
    int c;
    tc_result r = walk_compare(a, b, true, &c);
    if (r == TC_OK)
        *equal = c == 0;
    return r;
}
