/* Term order and exact equality, against what the VM answers for the same pairs. */
#include <string.h>

#include "codec/verify.h"
#include "fixtures.h"
#include "gen.h"
#include "terms/compare.h"

/* Each row: a < b in the Erlang term order. */
static const char *const ascending[][2] = {
    {"1", "a"},          {"1.0e300", "a"},     {"a", "<0.1.0>"},     {"<0.1.0>", "<0.2.0>"},
    {"<0.9.0>", "<0.1.1>"}, {"<0.1.0>", "{}"}, {"{}", "{a}"},        {"{b}", "{a,a}"},
    {"{a,b}", "{a,c}"},  {"{z}", "#{}"},       {"#{}", "[]"},        {"#{a => 1}", "#{a => 2}"},
    {"#{b => 1}", "#{a => 1, b => 1}"}, {"#{a => 2}", "#{b => 1}"}, {"[]", "[a]"},
    {"[a]", "[a,b]"},    {"[a|b]", "[a,b]"},   {"[1]", "<<>>"},      {"<<>>", "<<0>>"},
    {"<<1>>", "<<1:1>>"}, {"<<0:7>>", "<<0>>"}, {"<<1,2>>", "<<1,3>>"}, {"<<1,2,3>>", "<<2>>"},
    {"abc", "abd"},      {"ab", "abc"},        {"'B'", "a"},         {"-1", "0"},
    {"1", "1.5"},        {"1.5", "2"},         {"-576460752303423489", "-576460752303423488"},
    {"18446744073709551615", "1.8446744073709552e19" /* the double is exactly 2^64 */},
    {"-1.0e300", "-1"},  {"9007199254740993", "9007199254740994.0"},
    {"9007199254740992.0", "9007199254740993"},
};

START_TEST(test_order)
{
    for (size_t i = 0; i < sizeof ascending / sizeof *ascending; i++) {
        tc_term a = tc_read_ok(ascending[i][0]), b = tc_read_ok(ascending[i][1]);
        ck_assert_msg(tc_compare_ok(a, b) < 0, "%s < %s failed", ascending[i][0], ascending[i][1]);
        ck_assert_msg(tc_compare_ok(b, a) > 0, "%s > %s failed", ascending[i][1], ascending[i][0]);
        ck_assert(!tc_equal_ok(a, b));
    }
}
END_TEST

START_TEST(test_number_equality)
{
    /* == compares by value; =:= also by type. */
    static const char *const same_value[][2] = {
        {"1", "1.0"}, {"0", "-0.0"}, {"0.0", "-0.0"}, {"-3", "-3.0"},
        {"9007199254740992", "9007199254740992.0"}, {"18446744073709551616", "1.8446744073709552e19"}};
    for (size_t i = 0; i < 6; i++) {
        tc_term a = tc_read_ok(same_value[i][0]), b = tc_read_ok(same_value[i][1]);
        ck_assert_msg(tc_compare_ok(a, b) == 0, "%s == %s", same_value[i][0], same_value[i][1]);
        int exact;
        ck_assert(tc_term_compare_exact(a, b, &exact) == TC_OK);
        bool ints_first = tc_is_integer(a) && tc_is_float(b);
        ck_assert_msg(ints_first ? exact < 0 : exact == 0, "exact order of %s and %s", same_value[i][0],
                      same_value[i][1]);
    }
    ck_assert(tc_equal_ok(tc_read_ok("0.0"), tc_read_ok("-0.0"))); /* OTP 25: 0.0 =:= -0.0 */
    ck_assert(!tc_equal_ok(tc_read_ok("1"), tc_read_ok("1.0")));
    ck_assert(tc_compare_ok(tc_read_ok("{1, [2.0]}"), tc_read_ok("{1.0, [2]}")) == 0);
    ck_assert(!tc_equal_ok(tc_read_ok("{1, [2.0]}"), tc_read_ok("{1.0, [2]}")));
}
END_TEST

/* The order is total and consistent on random terms: antisymmetric, reflexive, and a term
 * equals its encoded-and-decoded self (text cannot carry funs and remote pids). */
START_TEST(test_random_consistency)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term prev = TC_NIL;
    for (int i = 0; i < 2000; i++) {
        tc_term t = tc_gen_term(a, 4, i % 2);
        ck_assert(t != TC_NON_VALUE);
        ck_assert(tc_term_verify(t, NULL));
        ck_assert_int_eq(tc_compare_ok(t, t), 0);
        ck_assert_int_eq(tc_compare_ok(t, prev), -tc_compare_ok(prev, t));
        tc_term back = tc_deep_copy_ok(t);
        ck_assert_msg(tc_equal_ok(t, back), "%s did not decode back equal", tc_print_ok(t));
        prev = t;
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("terms_compare");
    TCase *tc = tcase_create("compare");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_add_test(tc, test_order);
    tcase_add_test(tc, test_number_equality);
    tcase_add_test(tc, test_random_consistency);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
