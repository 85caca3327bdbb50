/* copy/copy_shared: sharing kept, shared_size words, source restored (also on failure). */
#include <stdatomic.h>

#include "codec/verify.h"
#include "copy/copy_shared.h"
#include "copy/copy_struct.h"
#include "fixtures.h"
#include "terms/binary.h"

static long refc_of(tc_term procbin)
{
    return atomic_load(&((tc_binary *)(uintptr_t)tc_boxed_val(procbin)[TC_PB_VAL])->refc);
}

static tc_term seq(tc_alloc *a, int n)
{
    tc_term l = TC_NIL;
    for (int i = n; i >= 1; i--)
        l = tc_term_cons(a, tc_make_small(i), l);
    return l;
}

static tc_term list_of(tc_alloc *a, tc_term x, int n)
{
    tc_term l = TC_NIL;
    for (int i = 0; i < n; i++)
        l = tc_term_cons(a, x, l);
    return l;
}

static tc_term pair(tc_alloc *a, tc_term x, tc_term y)
{
    tc_term e[2] = {x, y};
    return tc_term_tuple(a, e, 2);
}

/* The sharing rows of the golden vectors, rebuilt with the sharing the VM has. */
static tc_term build_row(tc_alloc *a, const char *expr)
{
    if (!strcmp(expr, "begin L = lists:seq(1,10), {L, L} end")) {
        tc_term l = seq(a, 10);
        return pair(a, l, l);
    }
    if (!strcmp(expr, "begin L = lists:seq(1,100), [L, L, L, L] end"))
        return list_of(a, seq(a, 100), 4);
    if (!strcmp(expr, "begin T = {a,b}, [T,T,T] end"))
        return list_of(a, tc_read_ok("{a,b}"), 3);
    if (!strcmp(expr, "lists:duplicate(10, list_to_binary(\"xyz\"))"))
        return list_of(a, tc_term_binary(a, (const unsigned char *)"xyz", 3), 10);
    if (!strcmp(expr, "lists:foldl(fun(_, A) -> {A, A} end, leaf, lists:seq(1,10))")) {
        tc_term t = tc_read_ok("leaf");
        for (int i = 0; i < 10; i++)
            t = pair(a, t, t);
        return t;
    }
    return TC_NON_VALUE;
}

/* Copies with copy_shared and checks everything the strategy promises. */
static tc_term shared_copy_ok(tc_term t, uint64_t shared_words)
{
    tc_arena *ar = tc_fixture_arena();
    tc_term ref;
    ck_assert_int_eq(tc_copy_struct(tc_arena_alloc(ar), t, NULL, &ref, NULL), TC_OK);
    const char *before = tc_print_ok(t);
    size_t used = tc_arena_used_words(ar);
    tc_copy_stats st = {0};
    tc_term c;
    ck_assert_int_eq(tc_copy_shared(tc_arena_alloc(ar), t, &c, &st), TC_OK);
    ck_assert_uint_eq(tc_arena_used_words(ar) - used, shared_words);
    ck_assert_uint_eq(st.words_sized, shared_words);
    ck_assert_uint_eq(st.words_written, shared_words);
    ck_assert_uint_eq(st.passes, 2);
    ck_assert(tc_is_immed(t) || t == TC_EMPTY_TUPLE || st.source_words_written > 0);
    ck_assert_str_eq(tc_print_ok(t), before);
    ck_assert(tc_term_verify(t, NULL));
    ck_assert(tc_equal_ok(t, ref));
    const char *why;
    ck_assert_msg(tc_term_verify(c, &why), "copy fails the verifier: %s", why);
    ck_assert(tc_equal_ok(c, t));
    ck_assert_uint_eq(tc_shared_copy_ok(c), shared_words);
    ck_assert_uint_eq(tc_shared_ok(c), tc_shared_ok(t));
    ck_assert_uint_eq(tc_flat_ok(c), tc_flat_ok(t));
    return c;
}

START_TEST(vectors_copy_in_shared_size)
{
    size_t n;
    const tc_vector *v = tc_vectors(&n);
    for (size_t i = 0; i < n; i++) {
        /* Read back from text (or decoded), the sharing rows have none: they are rebuilt
         * below. A decoded row's shared size is the VM's even so (erts_debug:size/1 leaves a
         * fun's creator out, size.h). */
        bool from_ext;
        tc_term t = tc_vector_term(&v[i], &from_ext);
        if (v[i].shared_words == v[i].flat_words || from_ext)
            ck_assert_uint_eq(tc_shared_ok(t), tc_vector_atom_hashed(t) ? tc_vector_flat_words(&v[i], t) : v[i].shared_words);
        shared_copy_ok(t, tc_shared_copy_ok(t));
    }
}
END_TEST

START_TEST(sharing_rows_keep_their_sharing)
{
    size_t n, rows = 0;
    const tc_vector *v = tc_vectors(&n);
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    for (size_t i = 0; i < n; i++) {
        bool from_ext;
        (void)tc_vector_term(&v[i], &from_ext);
        if (v[i].shared_words >= v[i].flat_words || from_ext) /* decoded rows share nothing */
            continue;
        tc_term t = build_row(a, v[i].expr);
        ck_assert_msg(t != TC_NON_VALUE, "no builder for sharing row %s", v[i].expr);
        ck_assert_uint_eq(tc_flat_ok(t), v[i].flat_words);
        ck_assert_uint_eq(tc_shared_ok(t), v[i].shared_words);
        ck_assert_str_eq(tc_print_ok(t), v[i].literal);
        shared_copy_ok(t, tc_shared_copy_ok(t));
        rows++;
    }
    ck_assert_uint_eq(rows, 5);
    /* The same object twice in the copy is one object. */
    tc_term c = shared_copy_ok(build_row(a, "begin L = lists:seq(1,10), {L, L} end"), 23);
    ck_assert_uint_eq(tc_tuple_element(c, 1), tc_tuple_element(c, 2));
}
END_TEST

START_TEST(every_mark_shape_is_restored)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    /* Cells whose head and tail are both immediate, shared cells reached along a tail chain,
     * shared floats, bignums and maps, and sub binaries whose binary is marked. */
    tc_term imm = tc_term_cons(a, tc_make_small(1), tc_make_small(2));
    tc_term tail = seq(a, 3);
    tc_term l2 = tc_term_cons(a, tc_make_small(0), tail);
    tc_term f = tc_term_float(a, 2.5), big = tc_read_ok("123456789012345678901234567890");
    tc_term m = tc_read_ok("#{a => [x], b => 2.0}");
    unsigned char bytes[100];
    for (int i = 0; i < 100; i++)
        bytes[i] = (unsigned char)(i * 3);
    tc_term refc = tc_term_refc_binary(a, bytes, 100), heap = tc_term_heap_binary(a, bytes, 40);
    tc_term sr = tc_term_sub_binary(a, refc, 3, 10, 2, 5), sh = tc_term_sub_binary(a, heap, 1, 5, 0, 3);
    tc_term e[] = {imm, imm, tail, l2, l2, f, f, big, big, m, m, refc, sr, refc, sr, heap, sh, sh, heap,
                   tc_term_cons(a, imm, imm)};
    tc_term t = tc_term_tuple(a, e, sizeof e / sizeof e[0]);
    tc_term c = shared_copy_ok(t, tc_shared_ok(t));
    ck_assert_uint_eq(tc_tuple_element(c, 1), tc_tuple_element(c, 2));
    ck_assert_uint_eq(tc_tuple_element(c, 10), tc_tuple_element(c, 11));
    ck_assert_uint_eq(tc_tuple_element(c, 13), tc_tuple_element(c, 15));
    /* The reference flat copy took 4 references; the shared copy one for the ProcBin and one
     * for the flattened slice. */
    ck_assert_int_eq(refc_of(refc), 1 + 4 + 2);
}
END_TEST

START_TEST(long_lists_and_deep_nesting)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term l = seq(a, 100000);
    shared_copy_ok(pair(a, l, l), 3 + 200000);
    tc_term s = seq(a, 10), deep = TC_NIL;
    for (int i = 0; i < 50000; i++)
        deep = tc_term_cons(a, pair(a, s, deep), TC_NIL);
    shared_copy_ok(deep, 20 + 50000 * 5);
}
END_TEST

START_TEST(out_of_memory_anywhere_restores_the_source)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term l = seq(a, 3000), tree = tc_read_ok("leaf");
    for (int i = 0; i < 12; i++)
        tree = pair(a, tree, i % 3 ? tree : tc_term_float(a, i));
    unsigned char bytes[100] = {1, 2, 3};
    tc_term refc = tc_term_refc_binary(a, bytes, 100);
    tc_term e[] = {l, l, tree, refc, tc_term_sub_binary(a, refc, 1, 50, 0, 0), list_of(a, refc, 50)};
    tc_term t = tc_term_tuple(a, e, 6);
    const char *before = tc_print_ok(t);
    uint64_t shared = tc_shared_ok(t);

    tc_offheap oh = {0};
    tc_alloc failing = {tc_null_alloc, &oh, NULL};
    tc_term c = TC_NIL;
    int64_t live = tc_mem_live();
    ck_assert_int_eq(tc_copy_shared(&failing, t, &c, NULL), TC_ENOMEM);
    ck_assert_int_eq(tc_mem_live(), live);
    ck_assert_str_eq(tc_print_ok(t), before);
    ck_assert_int_eq(refc_of(refc), 1);

    /* Every allocation the walk makes (queue, bit store, table) fails once in turn. */
    tc_arena *dst = tc_arena_new(shared + 16);
    ck_assert(dst != NULL);
    ck_assert(tc_alloc_words(tc_arena_alloc(dst), 1) != NULL); /* the block exists: the copy needs no tc_mem */
    int failures = 0;
    for (uint64_t k = 1;; k++) {
        live = tc_mem_live();
        tc_mem_fail_at(k);
        tc_result r = tc_copy_shared(tc_arena_alloc(dst), t, &c, NULL);
        tc_mem_fail_at(0);
        if (r == TC_OK)
            break;
        ck_assert_int_eq(r, TC_ENOMEM);
        failures++;
        ck_assert_int_eq(tc_mem_live(), live);
        ck_assert_str_eq(tc_print_ok(t), before);
        ck_assert(tc_term_verify(t, NULL));
        ck_assert_int_eq(refc_of(refc), 1);
        ck_assert_uint_eq(tc_arena_used_words(dst), 1);
    }
    ck_assert_int_ge(failures, 5);
    ck_assert(tc_equal_ok(c, t));
    ck_assert_uint_eq(tc_arena_used_words(dst), 1 + shared);
    tc_arena_free(dst);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy_shared");
    TCase *tc = tcase_create("copy_shared");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, vectors_copy_in_shared_size);
    tcase_add_test(tc, sharing_rows_keep_their_sharing);
    tcase_add_test(tc, every_mark_shape_is_restored);
    tcase_add_test(tc, long_lists_and_deep_nesting);
    tcase_add_test(tc, out_of_memory_anywhere_restores_the_source);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
