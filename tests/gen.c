#include "gen.h"

#include <math.h>

#include <check.h>

#include "fixtures.h"
#include "terms/atom.h"
#include "terms/bignum.h"
#include "terms/binary.h"
#include "terms/flatmap.h"
#include "terms/fun.h"
#include "terms/hashmap.h"
#include "terms/ident.h"

/* Recently built subterms, reused when sharing is asked for. */
#define POOL 64

typedef struct gen {
    tc_alloc *a;
    bool share;
    tc_term pool[POOL];
    size_t pooled;
    bool oom;
} gen;

/* Latin-1 and beyond (~w writes \x{3BC}), reserved words, ones that need quotes. */
static const char *const atom_names[] = {"a",  "ok",     "hello", "undefined", "Quoted Atom", "ß", "Ω", "",
                                         "μs", "\xF0\x9F\x98\x80", "end", "tab\there", "ÿ", "aΩ"};

static tc_term check(gen *g, tc_term t)
{
    if (t == TC_NON_VALUE)
        g->oom = true;
    return t;
}

static tc_term gen_atom(void)
{
    size_t i = tc_rand_below(sizeof atom_names / sizeof *atom_names);
    tc_term t;
    ck_assert(tc_atom_intern(atom_names[i], strlen(atom_names[i]), &t) == TC_OK);
    return t;
}

static tc_term gen_integer(gen *g)
{
    switch (tc_rand_below(4)) {
    case 0:
        return tc_make_small((int64_t)tc_rand_below(512) - 256);
    case 1: {
        static const int64_t edges[] = {TC_MAX_SMALL, TC_MIN_SMALL, 0, -1, 255, 256, INT32_MAX, INT32_MIN};
        return tc_make_small(edges[tc_rand_below(8)]);
    }
    case 2:
        return check(g, tc_term_int64(g->a, (int64_t)tc_rand()));
    default: {
        uint64_t d[4];
        size_t n = 1 + tc_rand_below(4);
        for (size_t i = 0; i < n; i++)
            d[i] = tc_rand();
        return check(g, tc_term_integer(g->a, tc_rand_below(2), d, n));
    }
    }
}

/* Every class of double: zeros, subnormals, the smallest and largest normals, integers around
 * 2^53 and the decimal/exponent boundaries of ~w, short decimals, and any finite bit pattern. */
static double gen_double(void)
{
    static const double specials[] = {0.0, -0.0, 1.0, -0.5, 1e300, 5e-324, 3.141592653589793, 2.2250738585072014e-308,
                                      1.7976931348623157e308, 9007199254740992.0, 0.0001, 1e-5, 100.0, 1000.0, 0.1};
    uint64_t bits;
    double d;
    switch (tc_rand_below(6)) {
    case 0: return specials[tc_rand_below(sizeof specials / sizeof *specials)];
    case 1: /* an integer near 2^53 or a power of ten, or a power of two */
        return tc_rand_below(2) ? ldexp(1.0, (int)tc_rand_below(120) - 60) + (double)((int)tc_rand_below(5) - 2)
                                : pow(10.0, (double)((int)tc_rand_below(40) - 20)) * (double)(1 + tc_rand_below(9));
    case 2: /* a short decimal */
        return (double)((int64_t)tc_rand_below(200001) - 100000) / pow(10.0, (double)tc_rand_below(12));
    case 3: /* a subnormal */
        bits = tc_rand() & ((UINT64_C(1) << 52) - 1);
        memcpy(&d, &bits, sizeof d);
        return tc_rand_below(2) ? -d : d;
    case 4:
        return (double)(int64_t)tc_rand() / (double)(1u << tc_rand_below(31));
    default: /* any finite pattern */
        do {
            bits = tc_rand();
            memcpy(&d, &bits, sizeof d);
        } while (!isfinite(d));
        return d;
    }
}

static tc_term gen_float(gen *g) { return check(g, tc_term_float(g->a, gen_double())); }

static tc_term gen_bitstring(gen *g)
{
    /* Heap (<= 64 bytes) or refc sizes, sometimes sliced by a sub binary. */
    static const size_t sizes[] = {0, 1, 3, 8, 63, 64, 65, 200};
    size_t bytes = sizes[tc_rand_below(8)];
    unsigned char buf[256];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)tc_rand();
    unsigned kind = (unsigned)tc_rand_below(3);
    if (kind == 0)
        return check(g, tc_term_binary(g->a, buf, bytes));
    if (kind == 1)
        return check(g, tc_term_bitstring(g->a, buf, bytes, (unsigned)tc_rand_below(8)));
    /* A slice of a larger binary, with a bit offset and trailing bits. */
    tc_term real = check(g, tc_term_binary(g->a, buf, bytes + 2));
    if (g->oom)
        return TC_NON_VALUE;
    size_t offs = tc_rand_below(bytes + 1);
    size_t len = tc_rand_below(bytes - offs + 1);
    return check(g, tc_term_sub_binary(g->a, real, offs, len, (unsigned)tc_rand_below(8),
                                       (unsigned)tc_rand_below(8)));
}

static tc_term gen_term(gen *g, unsigned depth);

/* A remote node entry (two names, two creations), with one reference for the caller. */
static tc_node *gen_node(gen *g)
{
    static const char *const names[] = {"a@b.c.dx", "x@y"};
    const char *name = names[tc_rand_below(2)];
    tc_term atom;
    ck_assert(tc_atom_intern(name, strlen(name), &atom) == TC_OK);
    tc_node *n = tc_node_find_or_insert(atom, (uint32_t)tc_rand_below(2) + 1);
    if (!n)
        g->oom = true;
    return n;
}

/* Pids, ports and refs of this node and of others. */
static tc_term gen_ident(gen *g)
{
    uint32_t num[TC_REF_MAX_NUMBERS];
    for (size_t i = 0; i < TC_REF_MAX_NUMBERS; i++)
        num[i] = (uint32_t)tc_rand();
    num[0] = tc_rand_below(4) ? num[0] & ((1u << 18) - 1) : (1u << 18) - 1; /* a local ref's first number: 18 bits */
    switch (tc_rand_below(6)) {
    case 0: { /* the VM's limits among them */
        static const uint32_t nums[] = {0, 1, TC_PID_NUMBER_MAX}, sers[] = {0, 1, TC_PID_SERIAL_MAX};
        return tc_make_pid(tc_rand_below(2) ? nums[tc_rand_below(3)] : (uint32_t)tc_rand_below(TC_PID_NUMBER_MAX + 1),
                           tc_rand_below(2) ? sers[tc_rand_below(3)] : (uint32_t)tc_rand_below(3));
    }
    case 1: return tc_make_port(tc_rand_below(2) ? (uint32_t)tc_rand_below(1u << 28) : (1u << 28) - 1);
    case 2: return check(g, tc_term_local_ref(g->a, num));
    default: {
        tc_node *n = gen_node(g);
        if (!n)
            return TC_NON_VALUE;
        unsigned k = (unsigned)tc_rand_below(3);
        if (k == 0)
            return check(g, tc_term_external_pid(g->a, n, num[1], num[2]));
        if (k == 1)
            return check(g, tc_term_external_port(g->a, n, tc_rand_below(2) ? num[1] : tc_rand()));
        return check(g, tc_term_external_ref(g->a, n, num, 1 + tc_rand_below(TC_REF_MAX_NUMBERS)));
    }
    }
}

/* fun M:F/A, or a local fun of one of a few entries with `n` free variables, made here or on
 * another node. */
static tc_term gen_fun(gen *g, const tc_term *env, size_t n)
{
    tc_term m, f;
    ck_assert(tc_atom_intern("golden", 6, &m) == TC_OK && tc_atom_intern("f", 1, &f) == TC_OK);
    if (n == 0 && tc_rand_below(2)) {
        tc_export *e = tc_export_get(m, f, (unsigned)tc_rand_below(3));
        return e ? check(g, tc_term_export_fun(g->a, e)) : check(g, TC_NON_VALUE);
    }
    static const unsigned char uniq[16] = {0xC8, 0xAF, 0xC7, 0x99};
    tc_term creator = tc_make_pid(9, 0);
    if (tc_rand_below(3) == 0) {
        tc_node *node = gen_node(g);
        if (!node)
            return TC_NON_VALUE;
        creator = check(g, tc_term_external_pid(g->a, node, 9, 0));
        if (g->oom)
            return TC_NON_VALUE;
    }
    int32_t index = (int32_t)tc_rand_below(3);
    tc_fun_entry *fe = tc_fun_entry_put(m, 105217596, index, uniq, (uint32_t)index, 1);
    if (!fe)
        return check(g, TC_NON_VALUE);
    return check(g, tc_term_local_fun(g->a, fe, creator, env, n));
}

static tc_term remember(gen *g, tc_term t)
{
    if (t != TC_NON_VALUE && !tc_is_immed(t))
        g->pool[g->pooled++ % POOL] = t;
    return t;
}

/* A map of 33..200 pairs over mixed keys (integers, floats, atoms, binaries, strings,
 * tuples, and now and then any term, a hashmap among them), so mostly a hashmap; a repeated
 * key keeps its last value, and one value in ten is a random term (hashmaps nest). */
static tc_term gen_hashmap(gen *g, unsigned depth) /* NOLINT(misc-no-recursion): depth bounded */
{
    size_t n = 33 + tc_rand_below(168);
    tc_term *kv = tc_mem_alloc(2 * n * sizeof *kv);
    ck_assert(kv != NULL);
    for (size_t i = 0; i < n && !g->oom; i++) {
        int64_t x = (int64_t)tc_rand_below(400);
        tc_term k;
        switch (tc_rand_below(8)) {
        case 0: k = tc_make_small(x); break;
        case 1: k = check(g, tc_term_float(g->a, (double)x / 4)); break;
        case 2: k = gen_atom(); break;
        case 3: {
            unsigned char b[2] = {(unsigned char)x, (unsigned char)(x >> 8)};
            k = check(g, tc_term_binary(g->a, b, 1 + (size_t)(x % 2)));
            break;
        }
        case 4: {
            tc_term e[2] = {tc_make_small(x), gen_atom()};
            k = check(g, tc_term_tuple(g->a, e, 2));
            break;
        }
        case 5: {
            tc_term e[3] = {tc_make_small('k'), tc_make_small(x % 256), tc_make_small(x / 256)};
            k = check(g, tc_term_list(g->a, e, 3, TC_NIL));
            break;
        }
        case 6: k = gen_integer(g); break;
        default: k = depth > 1 ? gen_term(g, depth / 2) : tc_make_small(-x); break;
        }
        kv[2 * i] = k;
        kv[2 * i + 1] = i % 10 == 0 && depth > 1 ? gen_term(g, depth / 2) : tc_make_small((int64_t)i);
    }
    tc_term m = TC_NON_VALUE;
    if (!g->oom) {
        tc_result r = tc_term_map(g->a, kv, n, &m);
        if (r == TC_ENOMEM)
            g->oom = true;
        else
            ck_assert(r == TC_OK);
    }
    tc_mem_free(kv);
    return g->oom ? TC_NON_VALUE : m;
}

/* gen_compound and gen_term recurse into each other one level less deep each time. */
static tc_term gen_compound(gen *g, unsigned depth) /* NOLINT(misc-no-recursion): depth bounded */
{
    tc_term elems[2 * 12];
    size_t n = tc_rand_below(6);
    if (tc_rand_below(12) == 0)
        return gen_hashmap(g, depth);
    switch (tc_rand_below(5)) {
    case 4: /* a fun and its environment */
        for (size_t i = 0; i < n; i++)
            elems[i] = gen_term(g, depth - 1);
        return g->oom ? TC_NON_VALUE : gen_fun(g, elems, n);
    case 0: /* proper list, sometimes long */
        if (tc_rand_below(8) == 0)
            n = 50 + tc_rand_below(200);
        if (n > 12) {
            tc_term l = TC_NIL;
            for (size_t i = 0; i < n && !g->oom; i++)
                l = check(g, tc_term_cons(g->a, tc_make_small((int64_t)i), l));
            return l;
        }
        for (size_t i = 0; i < n; i++)
            elems[i] = gen_term(g, depth - 1);
        return g->oom ? TC_NON_VALUE : check(g, tc_term_list(g->a, elems, n, TC_NIL));
    case 1: { /* improper list */
        for (size_t i = 0; i <= n; i++)
            elems[i] = gen_term(g, depth - 1);
        if (tc_is_list(elems[n]) || tc_is_nil(elems[n]))
            elems[n] = tc_make_small(7);
        return g->oom ? TC_NON_VALUE : check(g, tc_term_list(g->a, elems, n + 1, elems[n]));
    }
    case 2:
        for (size_t i = 0; i < n; i++)
            elems[i] = gen_term(g, depth - 1);
        return g->oom ? TC_NON_VALUE : check(g, tc_term_tuple(g->a, elems, n));
    default: {
        for (size_t i = 0; i < 2 * n; i++)
            elems[i] = gen_term(g, depth - 1);
        for (size_t i = 0; i < n && tc_rand_below(2); i++) /* integer and float keys side by side */
            elems[2 * i] = tc_rand_below(2) ? tc_make_small((int64_t)tc_rand_below(5) - 2)
                                            : check(g, tc_term_float(g->a, (double)((int)tc_rand_below(9) - 4) / 2));
        tc_term m;
        if (g->oom)
            return TC_NON_VALUE;
        tc_result r = tc_term_flatmap(g->a, elems, n, &m);
        if (r == TC_ENOMEM) {
            g->oom = true;
            return TC_NON_VALUE;
        }
        ck_assert(r == TC_OK);
        return m;
    }
    }
}

static tc_term gen_term(gen *g, unsigned depth) /* NOLINT(misc-no-recursion): depth bounded */
{
    if (g->oom)
        return TC_NON_VALUE;
    if (g->share && g->pooled && tc_rand_below(5) == 0)
        return g->pool[tc_rand_below(g->pooled < POOL ? g->pooled : POOL)];
    unsigned k = (unsigned)tc_rand_below(depth > 0 ? 10 : 7);
    switch (k) {
    case 0: return gen_integer(g);
    case 1: return remember(g, gen_float(g));
    case 2: return gen_atom();
    case 3: return tc_rand_below(2) ? TC_NIL : TC_EMPTY_TUPLE;
    case 4: return remember(g, gen_ident(g));
    case 5: return remember(g, gen_bitstring(g));
    case 6: return remember(g, gen_integer(g));
    default: return remember(g, gen_compound(g, depth));
    }
}

tc_term tc_gen_term(tc_alloc *a, unsigned max_depth, bool share)
{
    gen g = {.a = a, .share = share};
    tc_term t = gen_term(&g, max_depth);
    return g.oom ? TC_NON_VALUE : t;
}
