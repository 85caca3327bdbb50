/* Hashmaps (terms/hashmap.h): the trie's shape against the VM's erts_debug:map_info, lookup,
 * iteration, term order, the ETS hash, the verifier's rules, and running out of memory. */
#include <stdio.h>
#include <string.h>

#include "codec/verify.h"
#include "fixtures.h"
#include "terms/compare.h"
#include "terms/hash.h"
#include "terms/hashmap.h"
#include "terms/layout.h"

/* maps:from_list([{I, I * mul} || I <- lists:seq(from, to)]) */
static tc_term int_map(int64_t from, int64_t to, int64_t mul)
{
    size_t n = (size_t)(to - from + 1);
    tc_term *kv = tc_mem_alloc(2 * n * sizeof *kv);
    ck_assert(kv != NULL);
    for (size_t i = 0; i < n; i++) {
        kv[2 * i] = tc_make_small(from + (int64_t)i);
        kv[2 * i + 1] = tc_make_small((from + (int64_t)i) * mul);
    }
    tc_term m;
    ck_assert_int_eq(tc_term_map(tc_arena_alloc(tc_fixture_arena()), kv, n, &m), TC_OK);
    tc_mem_free(kv);
    return m;
}

typedef struct shape {
    unsigned depth, arrays, bitmaps, leaves;
} shape;

/* What erts_debug:map_info/1 counts: head arrays, bitmap nodes (head or inner), leaves, and
 * the depth of the deepest leaf (a leaf in the head is at depth 1). */
static void walk_shape(const tc_term *p, unsigned depth, shape *s) /* NOLINT(misc-no-recursion): trie depth */
{
    if (p[0] == TC_MAP_HEADER_HAMT_HEAD_ARRAY)
        s->arrays++;
    else
        s->bitmaps++;
    size_t n;
    const tc_term *kids = tc_layout_map_terms(p[0], p, &n);
    for (size_t i = 0; i < n; i++) {
        if (tc_is_list(kids[i])) {
            s->leaves++;
            if (depth + 1 > s->depth)
                s->depth = depth + 1;
        } else {
            walk_shape(tc_boxed_val(kids[i]), depth + 1, s);
        }
    }
}

static shape shape_of(tc_term m)
{
    shape s = {0, 0, 0, 0};
    walk_shape(tc_boxed_val(m), 0, &s);
    return s;
}

START_TEST(test_shape_is_the_vms)
{
    /* erts_debug:map_info(maps:from_list([{I,I} || I <- lists:seq(1,N)])) on OTP 25.2.3 */
    static const struct {
        int64_t n;
        shape vm;
    } rows[] = {{33, {3, 0, 14, 33}}, {1000, {6, 1, 354, 1000}}, {10000, {7, 1, 3948, 10000}}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        tc_term m = int_map(1, rows[i].n, 1);
        shape s = shape_of(m);
        ck_assert_msg(s.depth == rows[i].vm.depth && s.arrays == rows[i].vm.arrays && s.bitmaps == rows[i].vm.bitmaps &&
                          s.leaves == rows[i].vm.leaves,
                      "%lld keys: depth %u arrays %u bitmaps %u leaves %u", (long long)rows[i].n, s.depth, s.arrays,
                      s.bitmaps, s.leaves);
        ck_assert(tc_term_verify(m, NULL));
    }
    /* 1000 binary keys: {depth,6},{arrays,1},{bitmaps,367} */
    static char text[32000] = "#{";
    size_t len = 2;
    for (int i = 1; i <= 1000; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%s<<\"%d\">> => %d", i > 1 ? "," : "", i, i);
    (void)snprintf(text + len, sizeof text - len, "}");
    shape s = shape_of(tc_read_ok(text));
    ck_assert_uint_eq(s.depth, 6);
    ck_assert_uint_eq(s.arrays, 1);
    ck_assert_uint_eq(s.bitmaps, 367);
}
END_TEST

START_TEST(test_lookup_and_iteration)
{
    for (int64_t n = 33; n <= 3000; n = n * 3 + 1) {
        tc_term m = int_map(1, n, 7);
        ck_assert(tc_is_hashmap(m));
        ck_assert_uint_eq(tc_map_size(m), (uint64_t)n);
        for (int64_t k = -5; k <= n + 5; k++) {
            const tc_term *v;
            ck_assert_int_eq(tc_map_get(m, tc_make_small(k), &v), TC_OK);
            if (k < 1 || k > n)
                ck_assert_ptr_null(v);
            else
                ck_assert_msg(v && *v == tc_make_small(7 * k), "%lld keys: key %lld", (long long)n, (long long)k);
        }
        /* A float equal to a key is another key (=:=). */
        const tc_term *v;
        ck_assert_int_eq(tc_map_get(m, tc_read_ok("1.0"), &v), TC_OK);
        ck_assert_ptr_null(v);
        /* Forward and reverse visit each pair once, in opposite orders. */
        tc_term *fwd = tc_mem_alloc((size_t)n * sizeof *fwd);
        ck_assert(fwd != NULL);
        tc_map_iter it;
        tc_term k, val;
        size_t i = 0;
        for (tc_map_iter_init(&it, m, false); tc_map_iter_next(&it, &k, &val); i++) {
            ck_assert_uint_lt(i, (size_t)n);
            ck_assert_uint_eq(val, tc_make_small(7 * tc_small_val(k)));
            fwd[i] = k;
        }
        ck_assert_uint_eq(i, (size_t)n);
        for (tc_map_iter_init(&it, m, true); tc_map_iter_next(&it, &k, &val);)
            ck_assert_uint_eq(k, fwd[--i]);
        ck_assert_uint_eq(i, 0);
        tc_mem_free(fwd);
    }
}
END_TEST

START_TEST(test_order_and_equality)
{
    /* Built in different orders, the same pairs are one shape: =:=, equal ETS hash. */
    tc_term kv[2 * 100], rev[2 * 100];
    for (int i = 0; i < 100; i++) {
        kv[2 * i] = rev[2 * (99 - i)] = tc_make_small(i);
        kv[2 * i + 1] = rev[2 * (99 - i) + 1] = tc_make_small(-i);
    }
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term m1, m2;
    ck_assert_int_eq(tc_term_map(a, kv, 100, &m1), TC_OK);
    ck_assert_int_eq(tc_term_map(a, rev, 100, &m2), TC_OK);
    ck_assert(tc_equal_ok(m1, m2));
    uint64_t h1, h2;
    ck_assert_int_eq(tc_term_hash(m1, &h1), TC_OK);
    ck_assert_int_eq(tc_term_hash(m2, &h2), TC_OK);
    ck_assert_uint_eq(h1, h2);
    ck_assert_str_eq(tc_print_ok(m1), tc_print_ok(m2));
    int c;
    /* Size first: 33 keys > 32 keys, whatever the keys. */
    ck_assert_int_eq(tc_term_compare(int_map(100, 132, 1), int_map(1, 32, 1), &c), TC_OK);
    ck_assert_int_gt(c, 0);
    /* Same size: the least key not in both decides (1..40 < 2..41, as [1..] < [2..]). */
    ck_assert_int_eq(tc_term_compare(int_map(1, 40, 1), int_map(2, 41, 1), &c), TC_OK);
    ck_assert_int_lt(c, 0);
    /* Same keys: the values in key order (1*2 < 1*3). */
    ck_assert_int_eq(tc_term_compare(int_map(1, 40, 2), int_map(1, 40, 3), &c), TC_OK);
    ck_assert_int_lt(c, 0);
    /* Keys compare exactly: 1 and 1.0 are different keys, integers first; == ignores that in values. */
    char t1[2048] = "#{", t2[2048] = "#{";
    for (int i = 1; i <= 40; i++) {
        (void)snprintf(t1 + strlen(t1), sizeof t1 - strlen(t1), "%s%d => %d", i > 1 ? "," : "", i, i);
        (void)snprintf(t2 + strlen(t2), sizeof t2 - strlen(t2), "%s%d%s => %d.0", i > 1 ? "," : "", i, i == 40 ? ".0" : "", i);
    }
    strcat(t1, "}");
    strcat(t2, "}");
    ck_assert_int_eq(tc_term_compare(tc_read_ok(t1), tc_read_ok(t2), &c), TC_OK);
    ck_assert_int_lt(c, 0); /* 40 < 40.0 as map keys */
    ck_assert(!tc_equal_ok(tc_read_ok(t1), tc_read_ok(t2)));
}
END_TEST

START_TEST(test_duplicates)
{
    tc_term kv[2 * 40];
    for (int i = 0; i < 40; i++) {
        kv[2 * i] = tc_make_small(i % 35);
        kv[2 * i + 1] = tc_make_small(i);
    }
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term m;
    /* maps:from_list: the last value wins, 35 keys stay a hashmap. */
    ck_assert_int_eq(tc_term_map(a, kv, 40, &m), TC_OK);
    ck_assert_uint_eq(tc_map_size(m), 35);
    const tc_term *v;
    ck_assert_int_eq(tc_map_get(m, tc_make_small(2), &v), TC_OK);
    ck_assert(v && *v == tc_make_small(37));
    /* binary_to_term: a repeated key is an error. */
    ck_assert_int_eq(tc_term_hashmap_unique(a, kv, 40, &m), TC_EPARSE);
    /* 40 pairs over 20 keys are a flatmap. */
    for (int i = 0; i < 40; i++)
        kv[2 * i] = tc_make_small(i % 20);
    ck_assert_int_eq(tc_term_map(a, kv, 40, &m), TC_OK);
    ck_assert(!tc_is_hashmap(m));
    ck_assert_uint_eq(tc_flat_ok(m), TC_FLATMAP_SIZE(20));
    /* 0.0 and -0.0 are one key on OTP 25: the later key term stays. */
    ck_assert_str_eq(tc_print_ok(tc_read_ok("#{0.0 => a, -0.0 => b}")), "#{-0.0 => b}");
}
END_TEST

/* The node at slot path `path` (one index per level) below the head. */
static tc_term *node_at(tc_term m, const unsigned *path, size_t depth)
{
    tc_term *p = tc_boxed_val(m);
    for (size_t d = 0; d < depth; d++) {
        size_t n;
        const tc_term *kids = tc_layout_map_terms(p[0], p, &n);
        ck_assert_uint_lt(path[d], n);
        p = tc_boxed_val(kids[path[d]]);
    }
    return p;
}

START_TEST(test_verifier_rules)
{
    const char *why;
    tc_term m = int_map(1, 200, 1);
    ck_assert(tc_term_verify(m, &why));
    tc_term *head = tc_boxed_val(m);
    /* Find an inner node: a head child that is not a leaf. */
    size_t n;
    tc_term *kids = (tc_term *)tc_layout_map_terms(head[0], head, &n);
    unsigned inner = 0;
    while (tc_is_list(kids[inner]))
        inner++;
    tc_term *node = node_at(m, &inner, 1);
    tc_term saved = node[0];
    unsigned bmp = tc_map_header_bitmap(saved);
    /* A bitmap with the same count of slots, moved: it disagrees with the keys beneath. */
    unsigned low = bmp & (0u - bmp), free_bit = 1;
    while (bmp & free_bit)
        free_bit <<= 1;
    node[0] = TC_MAP_HEADER_HAMT_NODE_BITMAP((bmp & ~low) | free_bit);
    ck_assert(!tc_term_verify(m, &why));
    ck_assert_msg(strstr(why, "bitmap disagrees") != NULL, "%s", why);
    /* A node header of the head's map arity. */
    node[0] = TC_MAP_HEADER_HAMT_HEAD_BITMAP(bmp);
    ck_assert(!tc_term_verify(m, &why));
    ck_assert_msg(strstr(why, "map arity 0") != NULL, "%s", why);
    node[0] = saved;
    /* A size word that lies. */
    head[1] = 201;
    ck_assert(!tc_term_verify(m, &why));
    ck_assert_msg(strstr(why, "size word") != NULL, "%s", why);
    head[1] = 200;
    /* Two children swapped. */
    tc_term x = kids[0];
    kids[0] = kids[1];
    kids[1] = x;
    ck_assert(!tc_term_verify(m, &why));
    kids[1] = kids[0];
    kids[0] = x;
    ck_assert(tc_term_verify(m, &why));
    /* A pointer straight at an inner node is not a map. */
    ck_assert(!tc_term_verify(kids[inner], &why));
    ck_assert_msg(strstr(why, "inner HAMT node") != NULL, "%s", why);
}
END_TEST

START_TEST(test_out_of_memory)
{
    tc_term kv[2 * 100];
    for (int i = 0; i < 100; i++) {
        kv[2 * i] = tc_make_small(i);
        kv[2 * i + 1] = tc_make_small(i);
    }
    int failed = 0;
    for (int64_t at = 1;; at++) {
        int64_t live = tc_mem_live();
        tc_arena *ar = tc_arena_new(0);
        ck_assert(ar != NULL);
        tc_mem_fail_at(at);
        tc_term m;
        tc_result r = tc_term_map(tc_arena_alloc(ar), kv, 100, &m);
        tc_mem_fail_at(0);
        tc_arena_free(ar);
        ck_assert_int_eq(tc_mem_live(), live); /* nothing leaked */
        if (r == TC_OK)
            break;
        ck_assert_int_eq(r, TC_ENOMEM);
        failed++;
    }
    ck_assert_int_gt(failed, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("terms_hashmap");
    TCase *tc = tcase_create("hashmap");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_add_test(tc, test_shape_is_the_vms);
    tcase_add_test(tc, test_lookup_and_iteration);
    tcase_add_test(tc, test_order_and_equality);
    tcase_add_test(tc, test_duplicates);
    tcase_add_test(tc, test_verifier_rules);
    tcase_add_test(tc, test_out_of_memory);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
