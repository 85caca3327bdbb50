/* copy/literal: put copies once (shared size), get copies nothing, membership by range. */
#include <stdatomic.h>

#include "copy/literal.h"
#include "fixtures.h"
#include "terms/binary.h"

static long refc_of(tc_term procbin)
{
    return atomic_load(&((tc_binary *)(uintptr_t)tc_boxed_val(procbin)[TC_PB_VAL])->refc);
}

START_TEST(put_copies_once_get_copies_nothing)
{
    tc_copy_literal_area *la = tc_copy_literal_area_new(4096);
    ck_assert(la != NULL);
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term l = tc_read_ok("[1,2,3,{x,1.5}]"), e[2] = {l, l};
    tc_term v = tc_term_tuple(a, e, 2), key = tc_read_ok("{my, key}");
    const char *before = tc_print_ok(v);
    tc_copy_stats st = {0};
    ck_assert_int_eq(tc_copy_literal_put(la, key, v, &st), TC_OK);
    /* {Key, Value}: 3 words, the key's 3, the value's shared size (its list once). */
    ck_assert_uint_eq(st.words_written, 3 + 3 + tc_shared_ok(v));
    ck_assert_str_eq(tc_print_ok(v), before);
    tc_term g1, g2;
    ck_assert_int_eq(tc_copy_literal_get(la, tc_read_ok("{my, key}"), &g1), TC_OK);
    ck_assert_int_eq(tc_copy_literal_get(la, key, &g2), TC_OK);
    ck_assert_uint_eq(g1, g2);
    ck_assert(tc_equal_ok(g1, v));
    ck_assert(tc_copy_literal_contains(la, tc_boxed_val(g1)));
    ck_assert(!tc_copy_literal_contains(la, tc_boxed_val(v)));
    ck_assert_uint_eq(tc_tuple_element(g1, 1), tc_tuple_element(g1, 2)); /* sharing kept */
    tc_copy_literals r = tc_copy_literal_range(la);
    ck_assert(r.start <= tc_boxed_val(g1) && tc_boxed_val(g1) < r.end);

    tc_term missing;
    ck_assert_int_eq(tc_copy_literal_get(la, tc_read_ok("other"), &missing), TC_EBADARG);
    ck_assert_int_eq(tc_copy_literal_put(la, key, tc_read_ok("replaced"), NULL), TC_OK);
    ck_assert_int_eq(tc_copy_literal_get(la, key, &g1), TC_OK);
    ck_assert_str_eq(tc_print_ok(g1), "replaced");
    ck_assert_int_eq(tc_copy_literal_put(la, tc_read_ok("other"), tc_read_ok("7"), NULL), TC_OK);
    ck_assert_int_eq(tc_copy_literal_get(la, tc_read_ok("other"), &g1), TC_OK);
    ck_assert_uint_eq(g1, tc_make_small(7));
    tc_copy_literal_area_free(la);
}
END_TEST

START_TEST(full_area_and_failed_allocations_change_nothing)
{
    tc_term v = tc_read_ok("{a, [1,2,3], <<\"0123456789012345678901234567890123456789012345678901234567890123456789\">>}");
    tc_term pb = tc_tuple_element(v, 3);
    const char *before = tc_print_ok(v);
    tc_copy_literal_area *la = tc_copy_literal_area_new(3 + 3 + 4 + 6 + 6 - 1); /* after "small", a word short */
    ck_assert(la != NULL);
    ck_assert_int_eq(tc_copy_literal_put(la, TC_NIL, tc_read_ok("small"), NULL), TC_OK);
    ck_assert_int_eq(tc_copy_literal_put(la, TC_NIL, v, NULL), TC_ENOMEM);
    tc_term g;
    ck_assert_int_eq(tc_copy_literal_get(la, TC_NIL, &g), TC_OK);
    ck_assert_str_eq(tc_print_ok(g), "small");
    ck_assert_str_eq(tc_print_ok(v), before);
    ck_assert_int_eq(refc_of(pb), 1);
    tc_copy_literal_area_free(la);

    la = tc_copy_literal_area_new(1000);
    ck_assert(la != NULL);
    ck_assert_int_eq(tc_copy_literal_put(la, TC_NIL, v, NULL), TC_OK);
    ck_assert_int_eq(refc_of(pb), 2);
    tc_copy_literal_area_free(la);
    ck_assert_int_eq(refc_of(pb), 1);

    int64_t live = tc_mem_live();
    for (uint64_t k = 1; k <= 2; k++) {
        tc_mem_fail_at(k);
        la = tc_copy_literal_area_new(1000);
        tc_mem_fail_at(0);
        ck_assert_ptr_null(la);
    }
    /* A put whose entry table cannot grow. */
    la = tc_copy_literal_area_new(1000);
    ck_assert(la != NULL);
    tc_mem_fail_at(1);
    ck_assert_int_eq(tc_copy_literal_put(la, TC_NIL, v, NULL), TC_ENOMEM);
    tc_mem_fail_at(0);
    ck_assert_int_eq(tc_copy_literal_get(la, TC_NIL, &g), TC_EBADARG);
    tc_copy_literal_area_free(la);
    ck_assert_int_eq(tc_mem_live(), live);
    ck_assert_int_eq(refc_of(pb), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy_literal");
    TCase *tc = tcase_create("copy_literal");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_add_test(tc, put_copies_once_get_copies_nothing);
    tcase_add_test(tc, full_area_and_failed_allocations_change_nothing);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
