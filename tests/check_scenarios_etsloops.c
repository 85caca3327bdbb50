/*
 * check_scenarios_etsloops — the 2009 loops (scenarios/etsloops.h) do the operations they
 * say on the table they are given: N inserts leave N objects in every lock mode, on the
 * threads it allows, the 2-writer update does 2N over the same N keys, update_counter finds
 * every counter; a lock-only run stores nothing; the table's allocator locks where the era or
 * two threads need it; the dictionary runs (the update's two writers too) need no table; and an
 * allocation failure anywhere comes back as a result naming its step, never an exit.
 */
#include <check.h>

#include "fixtures.h"
#include "alloc/mseg.h"
#include "scenarios/etsloops.h"

static const tc_etsloop_config small = {.n = 200, .heap_words = 9999999};

static tc_ets *table_ok(tc_ets_lock_mode m, int threads)
{
    tc_ets *t;
    ck_assert_int_eq(tc_etsloop_table(&small, m, threads, &t), TC_OK);
    return t;
}

static tc_etsloop_result run_ok(tc_etsloop_op what, tc_etsloop_kind kind, tc_ets *t, int threads)
{
    tc_etsloop_result res;
    const char *failed = NULL;
    tc_result r = tc_etsloop_run(&small, what, kind, t, threads, &res, &failed);
    ck_assert_msg(r == TC_OK, "%s: %s", failed ? failed : "?", tc_result_name(r));
    ck_assert(res.ns >= 0);
    return res;
}

START_TEST(inserts_fill_the_table_in_every_mode)
{
    for (unsigned m = 0; m < TC_ETS_LOCK_MODES; m++)
        for (int threads = 1; threads <= (m == TC_ETS_LOCK_NONE ? 1 : 2); threads++) { /* none: one scheduler */
            tc_ets *t = table_ok((tc_ets_lock_mode)m, threads);
            ck_assert_int_eq(run_ok(TC_ETSLOOP_INSERT, TC_ETSLOOP_RUN_OP, t, threads).ops, small.n);
            ck_assert_uint_eq(tc_ets_get_info(t).objects, (uint64_t)small.n);
            ck_assert_int_eq(run_ok(TC_ETSLOOP_LOOKUP, TC_ETSLOOP_RUN_OP, t, threads).ops, small.n);
            tc_etsloop_result u = run_ok(TC_ETSLOOP_UPDATE, TC_ETSLOOP_RUN_OP, t, threads);
            ck_assert_int_eq(u.ops, 2 * small.n); /* two writers over the same keys */
            ck_assert_uint_eq(tc_ets_get_info(t).objects, (uint64_t)small.n);
            tc_ets_free(t);
        }
}
END_TEST

/* A compressed table (etsbench's `compressed` rows): the same operations, each object stored
 * in the compressed form ({I, hello}: 8 words per object, as OTP 25 counts it), and the
 * counters updated in place. */
START_TEST(a_compressed_table_runs_the_loops)
{
    tc_etsloop_config c = small;
    c.compressed = true;
    tc_ets *t;
    ck_assert_int_eq(tc_etsloop_table(&c, TC_ETS_LOCK_R13B, 1, &t), TC_OK);
    tc_etsloop_result res;
    const char *failed = NULL;
    ck_assert_int_eq(tc_etsloop_run(&c, TC_ETSLOOP_INSERT, TC_ETSLOOP_RUN_OP, t, 1, &res, &failed), TC_OK);
    ck_assert_uint_eq(tc_ets_get_info(t).memory_words, 8u * (uint64_t)c.n);
    ck_assert_int_eq(tc_etsloop_run(&c, TC_ETSLOOP_LOOKUP, TC_ETSLOOP_RUN_OP, t, 1, &res, &failed), TC_OK);
    ck_assert_int_eq(res.ops, c.n);
    tc_ets_free(t);
    ck_assert_int_eq(tc_etsloop_counter_table(&c, TC_ETS_LOCK_R13B, 1, &t), TC_OK);
    ck_assert_int_eq(tc_etsloop_run(&c, TC_ETSLOOP_UPDATE_COUNTER, TC_ETSLOOP_RUN_OP, t, 1, &res, &failed), TC_OK);
    ck_assert_uint_eq(tc_ets_get_info(t).updates_in_place, (uint64_t)c.n);
    tc_ets_free(t);
}
END_TEST

START_TEST(lock_only_runs_store_nothing)
{
    tc_ets *t = table_ok(TC_ETS_LOCK_WRITE_CONCURRENCY, 2);
    run_ok(TC_ETSLOOP_INSERT, TC_ETSLOOP_RUN_LOCKS, t, 2);
    run_ok(TC_ETSLOOP_INSERT, TC_ETSLOOP_RUN_HASH, t, 1);
    ck_assert_uint_eq(tc_ets_get_info(t).objects, 0);
    /* the clocked run does the operations themselves */
    ck_assert_int_eq(run_ok(TC_ETSLOOP_INSERT, TC_ETSLOOP_RUN_TIMED, t, 1).ops, small.n);
    ck_assert_uint_eq(tc_ets_get_info(t).objects, (uint64_t)small.n);
    tc_ets_free(t);
}
END_TEST

/* The table's allocator takes its lock where the era's emulator locks its allocator calls
 * (alloc_lock: R13B01's SMP emulator), or where two threads write it, and nowhere else (the
 * plain emulator, R10B-2, OTP 25's scheduler instances): one locked call per new object. A
 * table made for one thread refuses two. */
START_TEST(the_tables_allocator_locks_as_the_era_and_threads_say)
{
    tc_policy pol;
    ck_assert_int_eq(tc_policy_preset("r13b", &pol), TC_OK);
    for (int smp = 0; smp <= 1; smp++)
        for (int threads = 1; threads <= 2; threads++) {
            pol.mem.thread_safe = smp;
            tc_etsloop_config c = small;
            c.policy = &pol;
            tc_ets *t;
            ck_assert_int_eq(tc_etsloop_table(&c, TC_ETS_LOCK_R13B, threads, &t), TC_OK);
            tc_etsloop_result res;
            const char *failed = NULL;
            ck_assert_int_eq(tc_etsloop_run(&c, TC_ETSLOOP_INSERT, TC_ETSLOOP_RUN_OP, t, threads, &res, &failed), TC_OK);
            uint64_t locked = tc_mseg_stats_get(tc_ets_mem(t))->locked_calls;
            ck_assert_uint_eq(locked, smp || threads == 2 ? (uint64_t)c.n : 0);
            if (!smp && threads == 1) {
                ck_assert_int_eq(tc_etsloop_run(&c, TC_ETSLOOP_LOOKUP, TC_ETSLOOP_RUN_OP, t, 2, &res, &failed), TC_EBADARG);
                ck_assert_str_eq(failed, "table made for one thread");
            }
            tc_ets_free(t);
        }
}
END_TEST

START_TEST(update_counter_counts_every_key)
{
    tc_ets *t;
    ck_assert_int_eq(tc_etsloop_counter_table(&small, TC_ETS_LOCK_R13B, 2, &t), TC_OK);
    ck_assert_uint_eq(tc_ets_get_info(t).objects, (uint64_t)small.n);
    run_ok(TC_ETSLOOP_UPDATE_COUNTER, TC_ETSLOOP_RUN_OP, t, 2);
    tc_term counter;
    for (int64_t i = 1; i <= small.n; i++) {
        tc_arena *a = tc_fixture_arena();
        ck_assert_int_eq(tc_ets_lookup(t, tc_make_small(i), tc_arena_alloc(a), &counter, NULL), TC_OK);
        /* [{I, 1}] */
        ck_assert(tc_is_list(counter));
        tc_term obj = tc_list_val(counter)[0];
        ck_assert_int_eq(tc_small_val(tc_tuple_element(obj, 2)), 1);
    }
    tc_ets_free(t);
}
END_TEST

START_TEST(dictionary_runs_need_no_table)
{
    for (int threads = 1; threads <= 2; threads++) {
        ck_assert_int_eq(run_ok(TC_ETSLOOP_PUT, TC_ETSLOOP_RUN_OP, NULL, threads).ops, small.n);
        ck_assert_int_eq(run_ok(TC_ETSLOOP_GET, TC_ETSLOOP_RUN_OP, NULL, threads).ops, small.n);
        ck_assert_int_eq(run_ok(TC_ETSLOOP_UPDATE_COUNTER, TC_ETSLOOP_RUN_OP, NULL, threads).ops, small.n);
        /* the update's two writers, each putting every key into its own dictionary */
        ck_assert_int_eq(run_ok(TC_ETSLOOP_UPDATE, TC_ETSLOOP_RUN_OP, NULL, threads).ops, 2 * small.n);
    }
}
END_TEST

/* Every allocation of a small 2-thread update failing in turn: each run returns the error
 * and the step, and frees what it had (the ASan build's LeakSanitizer checks that). */
START_TEST(allocation_failures_are_results)
{
    const tc_etsloop_config tiny = {.n = 20, .heap_words = 233};
    int failures = 0;
    for (uint64_t n = 1;; n++) {
        tc_ets *t;
        ck_assert_int_eq(tc_etsloop_table(&tiny, TC_ETS_LOCK_WRITE_CONCURRENCY, 2, &t), TC_OK);
        tc_etsloop_result res;
        const char *failed = NULL;
        tc_mem_fail_at(n);
        tc_result r = tc_etsloop_run(&tiny, TC_ETSLOOP_UPDATE, TC_ETSLOOP_RUN_OP, t, 2, &res, &failed);
        tc_mem_fail_at(0);
        tc_ets_free(t);
        if (r == TC_OK)
            break;
        ck_assert_int_eq(r, TC_ENOMEM);
        ck_assert_ptr_nonnull(failed);
        failures++;
        ck_assert_int_lt(n, 100000);
    }
    ck_assert_int_gt(failures, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scenarios_etsloops");
    TCase *tc = tcase_create("loops");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, inserts_fill_the_table_in_every_mode);
    tcase_add_test(tc, a_compressed_table_runs_the_loops);
    tcase_add_test(tc, lock_only_runs_store_nothing);
    tcase_add_test(tc, the_tables_allocator_locks_as_the_era_and_threads_say);
    tcase_add_test(tc, update_counter_counts_every_key);
    tcase_add_test(tc, dictionary_runs_need_no_table);
    tcase_add_test(tc, allocation_failures_are_results);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
