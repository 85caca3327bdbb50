/*
 * Debug level 2 means what it says: the verifiers run at every state transition. A process
 * is damaged in a way its next operation does not repair (the off-heap byte total, which a
 * collection keeps for the ProcBins that survive), then made to collect or to receive a
 * send: at level 2 the verifier must stop it there, through the assertion handler, with
 * its reason; below level 2 nothing may notice (the check is really compiled out).
 */
#include <setjmp.h>
#include <string.h>

#include "fixtures.h"
#include "heaps/gc.h"
#include "heaps/proc_impl.h"
#include "heaps/send.h"
#include "heaps/verify.h"
#include "terms/binary.h"

static jmp_buf caught_at;
static const char *caught_why;

static void catch_failure(const char *file, int line, const char *expr)
{
    (void)file;
    (void)line;
    caught_why = expr;
    longjmp(caught_at, 1);
}

static tc_mseg *mem;
static tc_proc *p, *sender;

/* A process holding a 100-byte refc binary in x0, its off-heap total then made one byte
 * too high. */
static void setup_damaged(void)
{
    tc_policy pol = tc_preset_ok("otp25");
    mem = tc_mseg_new(&pol.mem);
    ck_assert(mem != NULL);
    ck_assert(tc_proc_new(mem, &pol, &p) == TC_OK);
    ck_assert(tc_proc_new(mem, &pol, &sender) == TC_OK);
    unsigned char bytes[100] = {0};
    tc_proc_x(p)[0] = tc_term_binary(tc_proc_alloc(p), bytes, sizeof bytes);
    ck_assert(tc_proc_x(p)[0] != TC_NON_VALUE);
    tc_proc_set_arity(p, 1);
    ck_assert(tc_heap_verify(p, NULL));
    p->off_heap.overhead += 1;
    ck_assert(!tc_heap_verify(p, NULL));
    caught_why = NULL;
    tc_set_assert_handler(catch_failure);
}

static void teardown_damaged(void)
{
    tc_set_assert_handler(NULL);
    p->off_heap.overhead -= 1;
    tc_proc_free(p);
    tc_proc_free(sender);
    tc_mseg_free(mem);
}

static void expect_caught_iff_level_2(void)
{
    if (TC_DEBUG_LEVEL >= 2) {
        ck_assert_msg(caught_why != NULL, "level 2: the transition did not run the verifier");
        ck_assert_msg(strstr(caught_why, "overhead") != NULL, "caught for another reason: %s", caught_why);
    } else {
        ck_assert_msg(caught_why == NULL, "level %d ran a verifier: %s", TC_DEBUG_LEVEL, caught_why);
    }
}

START_TEST(gc_end_runs_the_verifier)
{
    setup_damaged();
    if (setjmp(caught_at) == 0) {
        /* a need no heap of this size has: TestHeap collects */
        tc_result r = tc_proc_test_heap_maybe_gc(p, tc_proc_heap_size(p) + 1);
        ck_assert(r == TC_OK);
        ck_assert_uint_eq(tc_proc_stats_get(p)->minor_gcs + tc_proc_stats_get(p)->major_gcs, 1);
    }
    expect_caught_iff_level_2();
    teardown_damaged();
}
END_TEST

START_TEST(send_end_runs_the_verifier)
{
    setup_damaged();
    if (setjmp(caught_at) == 0)
        ck_assert(tc_send(sender, p, tc_make_small(1), false, NULL) == TC_OK);
    expect_caught_iff_level_2();
    teardown_damaged();
}
END_TEST

/* An undamaged process passes every transition: the verifier is not just failing always. */
START_TEST(sound_process_passes)
{
    setup_damaged();
    p->off_heap.overhead -= 1;
    if (setjmp(caught_at) == 0) {
        ck_assert(tc_proc_test_heap_maybe_gc(p, tc_proc_heap_size(p) + 1) == TC_OK);
        ck_assert(tc_send(sender, p, tc_make_small(1), false, NULL) == TC_OK);
    }
    ck_assert_msg(caught_why == NULL, "a sound process failed: %s", caught_why);
    p->off_heap.overhead += 1; /* what teardown takes back */
    teardown_damaged();
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("heaps_transitions");
    TCase *tc = tcase_create("level2");
    tcase_add_test(tc, gc_end_runs_the_verifier);
    tcase_add_test(tc, send_end_runs_the_verifier);
    tcase_add_test(tc, sound_process_passes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run_suite(suite()); }
