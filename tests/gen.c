#include "gen.h"

#include <check.h>

#include "fixtures.h"
#include "terms/atom.h"
#include "terms/bignum.h"
#include "terms/binary.h"
#include "terms/flatmap.h"
#include "terms/hashmap.h"

/* Recently built subterms, reused when sharing is asked for. */
#define POOL 64

typedef struct gen {
    tc_alloc *a;
    bool share;
    tc_term pool[POOL];
    size_t pooled;
    bool oom;
} gen;

static const char *const atom_names[] = {"a", "ok", "hello", "undefined", "Quoted Atom", "ß", "Ω", ""};

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

static tc_term gen_float(gen *g)
{
    static const double specials[] = {0.0, -0.0, 1.0, -0.5, 1e300, 5e-324, 3.141592653589793};
    double d = tc_rand_below(2) ? specials[tc_rand_below(7)]
                                : ((double)(int64_t)tc_rand() / (double)(1u << tc_rand_below(31)));
    return check(g, tc_term_float(g->a, d));
}

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
    switch (tc_rand_below(4)) {
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
    case 4: return tc_make_pid((uint32_t)tc_rand_below(1u << 20), (uint32_t)tc_rand_below(3));
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
