/* copy/copy_struct: size-then-copy, two-ended layout, off-heap adoption, literals, OOM. */
#include <stdatomic.h>

#include "codec/verify.h"
#include "copy/copy_struct.h"
#include "copy/literal.h"
#include "fixtures.h"
#include "terms/binary.h"
#include "terms/compare.h"
#include "terms/size.h"

static tc_term copy_ok(tc_arena *dst, tc_term t, const tc_copy_literals *lit, uint64_t expect_words)
{
    size_t before = tc_arena_used_words(dst);
    tc_copy_stats st = {0};
    tc_term c;
    ck_assert_int_eq(tc_copy_struct(tc_arena_alloc(dst), t, lit, &c, &st), TC_OK);
    ck_assert_uint_eq(tc_arena_used_words(dst) - before, expect_words);
    ck_assert_uint_eq(st.words_sized, expect_words);
    ck_assert_uint_eq(st.words_written, expect_words);
    ck_assert_uint_eq(st.passes, 2);
    const char *why;
    ck_assert_msg(tc_term_verify(c, &why), "copy fails the verifier: %s", why);
    ck_assert(tc_equal_ok(t, c));
    return c;
}

static long refc_of(tc_term procbin)
{
    return atomic_load(&((tc_binary *)(uintptr_t)tc_boxed_val(procbin)[TC_PB_VAL])->refc);
}

START_TEST(vectors_copy_in_flat_size)
{
    size_t n;
    const tc_vector *v = tc_vectors(&n);
    for (size_t i = 0; i < n; i++) {
        tc_term t = tc_vector_term(&v[i], NULL);
        tc_term c = copy_ok(tc_fixture_arena(), t, NULL, tc_vector_flat_words(&v[i], t));
        ck_assert(tc_text_matches(tc_print_ok(c), tc_vector_text(&v[i], t)));
    }
}
END_TEST

START_TEST(list_of_smalls_descends)
{
    tc_term t = tc_read_ok("[1,2,3,4,5,6,7,8,9,10]");
    tc_term c = copy_ok(tc_fixture_arena(), t, NULL, 20);
    for (tc_term l = c; tc_is_list(tc_cdr(l)); l = tc_cdr(l))
        ck_assert_ptr_eq(tc_list_val(tc_cdr(l)), tc_list_val(l) - 2); /* adjacent, one cell lower */
}
END_TEST

START_TEST(boxed_heads_go_up_plain_things_down)
{
    /* [{a}, 1.0]: the first cell's head is a tuple, so the cell goes to htop; the second
     * cell (head boxed float) also goes up; the tuple and the float follow: tuple at htop,
     * float at hbot (the top of the block). */
    tc_term c = copy_ok(tc_fixture_arena(), tc_read_ok("[{a}, 1.0]"), NULL, 8);
    const tc_term *cell1 = tc_list_val(c), *cell2 = tc_list_val(tc_cdr(c));
    const tc_term *tuple = tc_boxed_val(tc_car(c)), *flt = tc_boxed_val(tc_car(tc_cdr(c)));
    ck_assert_ptr_eq(cell2, cell1 + 2);
    ck_assert_ptr_eq(tuple, cell1 + 4);
    ck_assert_ptr_eq(flt, cell1 + 6);
}
END_TEST

START_TEST(empty_tuple_is_never_copied)
{
    tc_term c = copy_ok(tc_fixture_arena(), tc_read_ok("{[], {}, <<>>, #{}}"), NULL, 10);
    ck_assert_uint_eq(tc_tuple_element(c, 2), TC_EMPTY_TUPLE);
    ck_assert_uint_eq(tc_flatmap_keys(tc_tuple_element(c, 4)), TC_EMPTY_TUPLE);
    tc_term e;
    ck_assert_int_eq(tc_copy_struct(tc_arena_alloc(tc_fixture_arena()), TC_EMPTY_TUPLE, NULL, &e, NULL), TC_OK);
    ck_assert_uint_eq(e, TC_EMPTY_TUPLE);
}
END_TEST

START_TEST(sub_binaries_are_flattened)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    unsigned char bytes[200];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 7 + 1);
    tc_term heap = tc_term_heap_binary(a, bytes, 40);
    tc_term refc = tc_term_refc_binary(a, bytes, sizeof bytes);
    /* every combination of offset, bit offset and trailing bits the rule distinguishes */
    const unsigned shapes[][4] = {{0, 10, 0, 0}, {3, 10, 0, 5}, {3, 10, 4, 0}, {3, 10, 6, 5}, {1, 0, 0, 3}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        for (int r = 0; r < 2; r++) {
            tc_term orig = r ? refc : heap;
            tc_term sb = tc_term_sub_binary(a, orig, shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3]);
            uint64_t predicted = tc_sub_binary_copy_size(tc_boxed_val(sb));
            tc_term c = copy_ok(tc_fixture_arena(), sb, NULL, predicted);
            tc_term real = tc_bitstring_real(c);
            ck_assert_uint_eq(tc_boxed_subtag(real), r ? TC_SUBTAG_REFC_BINARY : TC_SUBTAG_HEAP_BINARY);
            if (r)
                ck_assert_ptr_eq((void *)(uintptr_t)tc_boxed_val(real)[TC_PB_VAL],
                                 (void *)(uintptr_t)tc_boxed_val(refc)[TC_PB_VAL]);
        }
    }
}
END_TEST

START_TEST(refcounts_rise_per_copy_and_fall_when_dropped)
{
    tc_term t = tc_read_ok("{<<\"0123456789012345678901234567890123456789012345678901234567890123456789\">>, x}");
    tc_term pb = tc_tuple_element(t, 1);
    ck_assert_uint_eq(tc_boxed_subtag(pb), TC_SUBTAG_REFC_BINARY);
    ck_assert_int_eq(refc_of(pb), 1);
    tc_arena *dst = tc_arena_new(0);
    ck_assert(dst != NULL);
    for (int i = 1; i <= 3; i++) {
        tc_term c = copy_ok(dst, t, NULL, 9);
        ck_assert_int_eq(refc_of(pb), 1 + i);
        ck_assert_ptr_eq(tc_arena_alloc(dst)->offheap->first, tc_boxed_val(tc_tuple_element(c, 1)));
    }
    ck_assert_uint_eq(tc_arena_alloc(dst)->offheap->overhead, 3 * 70);
    tc_arena_free(dst);
    ck_assert_int_eq(refc_of(pb), 1);
}
END_TEST

START_TEST(literal_subterms_stay_in_place)
{
    tc_copy_literal_area *la = tc_copy_literal_area_new(1024);
    ck_assert(la != NULL);
    tc_term key = tc_read_ok("k"), big = tc_read_ok("[1,2,3,{4,5.0}]"), lit;
    ck_assert_int_eq(tc_copy_literal_put(la, key, big, NULL), TC_OK);
    ck_assert_int_eq(tc_copy_literal_get(la, key, &lit), TC_OK);
    tc_term elems[3] = {lit, tc_read_ok("[7]"), lit};
    tc_term t = tc_term_tuple(tc_arena_alloc(tc_fixture_arena()), elems, 3);
    tc_copy_literals range = tc_copy_literal_range(la);
    tc_term c = copy_ok(tc_fixture_arena(), t, &range, 4 + 2);
    ck_assert_uint_eq(tc_tuple_element(c, 1), lit);
    ck_assert_uint_eq(tc_tuple_element(c, 3), lit);
    /* A literal tail is kept too; without the range everything is copied. */
    tc_term l = tc_term_cons(tc_arena_alloc(tc_fixture_arena()), tc_make_small(0), lit);
    tc_term cl = copy_ok(tc_fixture_arena(), l, &range, 2);
    ck_assert_uint_eq(tc_cdr(cl), lit);
    ck_assert_uint_eq(copy_ok(tc_fixture_arena(), lit, &range, 0), lit);
    copy_ok(tc_fixture_arena(), t, NULL, tc_flat_ok(t));
    tc_copy_literal_area_free(la);
}
END_TEST

START_TEST(out_of_memory_is_a_result_and_leaks_nothing)
{
    tc_term t = tc_read_ok("[{a, <<\"0123456789012345678901234567890123456789012345678901234567890123456789\">>}, 2.5]");
    tc_term pb = tc_tuple_element(tc_car(t), 2);
    tc_offheap oh = {0};
    tc_alloc failing = {tc_null_alloc, &oh, NULL};
    tc_term c = TC_NIL;
    int64_t live = tc_mem_live();
    ck_assert_int_eq(tc_copy_struct(&failing, t, NULL, &c, NULL), TC_ENOMEM);
    ck_assert_uint_eq(c, TC_NIL);
    ck_assert_ptr_null(oh.first);
    ck_assert_int_eq(refc_of(pb), 1);
    /* A fresh arena's first block is the first tc_mem call of the copy. */
    tc_arena *dst = tc_arena_new(0);
    ck_assert(dst != NULL);
    tc_mem_fail_at(1);
    ck_assert_int_eq(tc_copy_struct(tc_arena_alloc(dst), t, NULL, &c, NULL), TC_ENOMEM);
    tc_mem_fail_at(0);
    tc_arena_free(dst);
    ck_assert_int_eq(refc_of(pb), 1);
    ck_assert_int_eq(tc_mem_live(), live);
    /* The size pass's stack: a tuple wider than the stack's inline buffer. */
    tc_term wide[100];
    for (int i = 0; i < 100; i++)
        wide[i] = t;
    tc_term w = tc_term_tuple(tc_arena_alloc(tc_fixture_arena()), wide, 100);
    dst = tc_arena_new(0);
    ck_assert(dst != NULL);
    live = tc_mem_live();
    tc_mem_fail_at(1);
    ck_assert_int_eq(tc_copy_struct(tc_arena_alloc(dst), w, NULL, &c, NULL), TC_ENOMEM);
    tc_mem_fail_at(0);
    ck_assert_int_eq(tc_mem_live(), live);
    ck_assert_uint_eq(tc_arena_used_words(dst), 0);
    tc_arena_free(dst);
}
END_TEST

START_TEST(long_and_deep_terms_need_no_c_stack)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term deep = TC_NIL;
    for (int i = 0; i < 100000; i++) {
        tc_term e[2] = {tc_make_small(i), deep};
        deep = tc_term_tuple(a, e, 2);
        deep = tc_term_cons(a, deep, TC_NIL);
    }
    copy_ok(tc_fixture_arena(), deep, NULL, 100000 * 5);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy_struct");
    TCase *tc = tcase_create("copy_struct");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, vectors_copy_in_flat_size);
    tcase_add_test(tc, list_of_smalls_descends);
    tcase_add_test(tc, boxed_heads_go_up_plain_things_down);
    tcase_add_test(tc, empty_tuple_is_never_copied);
    tcase_add_test(tc, sub_binaries_are_flattened);
    tcase_add_test(tc, refcounts_rise_per_copy_and_fall_when_dropped);
    tcase_add_test(tc, literal_subterms_stay_in_place);
    tcase_add_test(tc, out_of_memory_is_a_result_and_leaks_nothing);
    tcase_add_test(tc, long_and_deep_terms_need_no_c_stack);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
