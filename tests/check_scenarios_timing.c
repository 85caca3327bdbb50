/*
 * check_scenarios_timing — the scenarios' clock and summaries (scenarios/timing.h) and the
 * progress line (scenarios/progress.h): summaries of known samples, the clock's own cost
 * taken off an interval and never below 0, and a progress line that writes nothing when
 * stderr is not a terminal. Nothing here asserts how long anything took.
 */
#include <check.h>
#include <stdio.h>
#include <unistd.h>

#include "fixtures.h"
#include "scenarios/progress.h"
#include "scenarios/timing.h"

/* ---- summaries ----------------------------------------------------------------------- */

START_TEST(summary_odd)
{
    double v[] = {5, 1, 3, 2, 4};
    tc_timing_summary s = tc_timing_summarize(v, 5);
    ck_assert_double_eq(s.median, 3);
    ck_assert_double_eq(s.q1, 2);
    ck_assert_double_eq(s.q3, 4);
    ck_assert_uint_eq(s.n, 5);
}
END_TEST

START_TEST(summary_even_interpolates)
{
    double v[] = {4, 3, 2, 1};
    tc_timing_summary s = tc_timing_summarize(v, 4);
    ck_assert_double_eq(s.median, 2.5);
    ck_assert_double_eq(s.q1, 1.75);
    ck_assert_double_eq(s.q3, 3.25);
    double one[] = {7};
    s = tc_timing_summarize(one, 1);
    ck_assert(s.median == 7 && s.q1 == 7 && s.q3 == 7);
}
END_TEST

/* ---- the clock ------------------------------------------------------------------------ */

START_TEST(elapsed_takes_off_the_clock_cost)
{
    double overhead = tc_timing_overhead_ns();
    ck_assert(overhead >= 0);
    ck_assert_double_eq(tc_timing_overhead_ns(), overhead); /* measured once, then cached */
    ck_assert_double_eq(tc_timing_elapsed_ns(1000, 1000 + 1000000000u), 1e9 - overhead);
    ck_assert_double_eq(tc_timing_elapsed_ns(1000, 1000), 0); /* never below 0 */
    uint64_t t0 = tc_timing_now_ns();
    ck_assert_uint_ge(tc_timing_now_ns(), t0); /* monotonic */
}
END_TEST

/* ---- the progress line ----------------------------------------------------------------- */

START_TEST(progress_is_silent_off_a_terminal)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fflush(stderr), 0);
    int saved = dup(STDERR_FILENO);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_ge(dup2(fileno(f), STDERR_FILENO), 0);
    tc_progress_line("round %d of %d", 1, 2);
    tc_progress_end();
    ck_assert_int_eq(fflush(stderr), 0);
    ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
    close(saved);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    ck_assert_int_eq(ftell(f), 0);
    ck_assert_int_eq(fclose(f), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("scenarios_timing");
    TCase *tc = tcase_create("timing");
    tcase_add_test(tc, summary_odd);
    tcase_add_test(tc, summary_even_interpolates);
    tcase_add_test(tc, elapsed_takes_off_the_clock_cost);
    tcase_add_test(tc, progress_is_silent_off_a_terminal);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run_suite(suite()); }
