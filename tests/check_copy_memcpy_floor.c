/* copy/memcpy_floor: the same bytes, one allocation, out of memory as a result. */
#include "copy/memcpy_floor.h"
#include "fixtures.h"

START_TEST(copies_exactly_the_words_asked)
{
    tc_term src[1000];
    for (size_t i = 0; i < 1000; i++)
        src[i] = tc_rand();
    tc_arena *ar = tc_fixture_arena();
    size_t used = tc_arena_used_words(ar);
    tc_term *out;
    tc_copy_stats st = {0};
    ck_assert_int_eq(tc_copy_memcpy_floor(tc_arena_alloc(ar), src, 1000, &out, &st), TC_OK);
    ck_assert_uint_eq(tc_arena_used_words(ar) - used, 1000);
    ck_assert_mem_eq(out, src, sizeof src);
    ck_assert_uint_eq(st.words_written, 1000);
    ck_assert_uint_eq(st.passes, 1);
    ck_assert_int_eq(tc_copy_memcpy_floor(tc_arena_alloc(ar), src, 0, &out, NULL), TC_OK);
    tc_offheap oh = {0};
    tc_alloc failing = {tc_null_alloc, &oh, NULL};
    ck_assert_int_eq(tc_copy_memcpy_floor(&failing, src, 10, &out, NULL), TC_ENOMEM);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy_memcpy_floor");
    TCase *tc = tcase_create("copy_memcpy_floor");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_add_test(tc, copies_exactly_the_words_asked);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
