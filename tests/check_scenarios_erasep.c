/*
 * check_scenarios_erasep — eras_ep.erl's traced run on modelled processes (scenarios/erasep.h)
 * collects the tester exactly as often, pass by pass, as the seeds' own VMs did: R10B-2 and
 * R13B01 (64-bit words, built from github.com/mfoemmel/erlang-otp e4bd6dec3 and 7b734f235)
 * running experiments/beam/eras/eras_trace.erl main L 1000 OUT base 2, the tester's
 * garbage_collection trace events counted from mark to mark (R10B-2: -- -run ... on its beam;
 * R13B01: -smp disable). The VMs are not needed here:
 * their counts are the expected values.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "scenarios/workload.h"

typedef struct vm_counts {
    long len;
    uint64_t gcs[TC_EP_EMPTY + 1]; /* proc1 proc2 proc3 ets_insert ets_overwrite ets_lookup empty */
} vm_counts;

static void expect(const char *era, const vm_counts *want)
{
    tc_ep_config cfg;
    ck_assert_int_eq(tc_ep_config_for_era(era, &cfg), TC_OK);
    cfg.shape = TC_EP_INTS;
    cfg.len = want->len;
    cfg.iterations = 1000;
    tc_ep_counts c[TC_EP_TESTS];
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    for (int k = 0; k <= TC_EP_EMPTY; k++)
        ck_assert_msg(c[k].tester_gcs == want->gcs[k], "%s L %ld %s: %llu tester GCs, the VM %llu", era, want->len,
                      tc_ep_test_names[k], (unsigned long long)c[k].tester_gcs, (unsigned long long)want->gcs[k]);
    ck_assert_uint_eq(c[TC_EP_PT_GET].tester_gcs, 0); /* eras_ep has no such pass */
}

/* R10B-2: a fragment that makes MBUF_SIZE reach the heap's size asks for a yield, the GC comes
 * at the next schedule; a minor short of room and its fullsweep are one collection. */
static const vm_counts r10b[] = {
    {10, {143, 143, 143, 17, 18, 83, 1}},
    {100, {502, 500, 500, 16, 17, 1000, 0}},
    {1000, {501, 500, 500, 1, 0, 500, 0}},
    {10000, {1000, 1000, 1000, 0, 0, 999, 0}},
};

/* R13B01: any fragment left by a BIF collects on its return; the mark awaits the tracer's
 * `marked` (erlang:trace_delivered). */
static const vm_counts r13b[] = {
    {10, {143, 143, 142, 16, 15, 26, 0}},
    {100, {502, 500, 500, 5, 5, 131, 0}},
    {1000, {501, 500, 500, 1, 0, 334, 0}},
    {3000, {501, 500, 500, 0, 0, 250, 0}},
};

START_TEST(r10b_as_r10b_2)
{
    expect("r10b", &r10b[_i]);
}
END_TEST

START_TEST(r13b_as_r13b01)
{
    expect("r13b", &r13b[_i]);
}
END_TEST

/* Each preset's tester is the program its era compiled (eras_ep for the old VMs, eptest.erl for
 * OTP 25); the seed's loops stay one field away. */
START_TEST(tester_is_a_policy_field)
{
    tc_ep_config cfg;
    ck_assert_int_eq(tc_ep_config_for_era("r10b", &cfg), TC_OK);
    ck_assert_int_eq(cfg.policy.tester, TC_TESTER_ERAS_EP_R10B);
    ck_assert_int_eq(tc_ep_config_for_era("r13b", &cfg), TC_OK);
    ck_assert_int_eq(cfg.policy.tester, TC_TESTER_ERAS_EP_R13B);
    char err[200];
    ck_assert_int_eq(tc_policy_set(&cfg.policy, "tester=seed", err, sizeof err), TC_OK);
    ck_assert_int_eq(cfg.policy.tester, TC_TESTER_SEED);
    ck_assert_int_eq(tc_ep_config_for_era("otp25", &cfg), TC_OK);
    ck_assert_int_eq(cfg.policy.tester, TC_TESTER_EPTEST_ERL);
    ck_assert_int_eq(tc_policy_set(&cfg.policy, "tester=seed", err, sizeof err), TC_OK);
    ck_assert_int_eq(cfg.policy.tester, TC_TESTER_SEED);
}
END_TEST

/* Each tester value runs its own program: under one era the four make different schedules (a
 * value that fell through to another's run would repeat that run's switches pass by pass). */
START_TEST(each_tester_its_own_program)
{
    static const char *const testers[] = {"seed", "eptest_erl", "eras_ep_r10b", "eras_ep_r13b"};
    enum { N = sizeof testers / sizeof *testers };
    uint64_t sw[N][TC_EP_TESTS];
    for (int k = 0; k < N; k++) {
        tc_ep_config cfg;
        ck_assert_int_eq(tc_ep_config_for_era("otp25", &cfg), TC_OK);
        char set[32], err[200];
        (void)snprintf(set, sizeof set, "tester=%s", testers[k]);
        ck_assert_int_eq(tc_policy_set(&cfg.policy, set, err, sizeof err), TC_OK);
        cfg.iterations = 50;
        tc_ep_counts c[TC_EP_TESTS];
        ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
        for (int t = 0; t < TC_EP_TESTS; t++)
            sw[k][t] = c[t].switches;
    }
    for (int a = 0; a < N; a++)
        for (int b = a + 1; b < N; b++)
            ck_assert_msg(memcmp(sw[a], sw[b], sizeof sw[a]) != 0, "tester=%s and tester=%s: the same switches",
                          testers[a], testers[b]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scenarios_erasep");
    TCase *tc = tcase_create("per_pass_gcs");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, r10b_as_r10b_2, 0, (int)(sizeof r10b / sizeof r10b[0]));
    tcase_add_loop_test(tc, r13b_as_r13b01, 0, (int)(sizeof r13b / sizeof r13b[0]));
    tcase_add_test(tc, tester_is_a_policy_field);
    tcase_add_test(tc, each_tester_its_own_program);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
