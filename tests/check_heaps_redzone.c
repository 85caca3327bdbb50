/*
 * The emulator's reserved words and R10B-2's sizing, each rule pinned at the word where the
 * old rule and the VM's part (policy.h redzone / reserved, heapsize.h, gc.h):
 * - HAlloc's and the on-heap send's HEAP_LIMIT (S_REDZONE, 3 words);
 * - the JIT's TestHeap (need + S_RESERVED), and S_RESERVED in the minor GC's need_after,
 *   the fullsweep's new heap and adjust_after_fullsweep's need_after;
 * - R10B-2's HS_FIBONACCI_SLOW table, its next() clamped to min_heap_size, its 5-slot cache.
 * The sequences are exact, so the policies are built without TC_GC_STRESS.
 */
#include "heaps/proc_impl.h"
#include "fixtures.h"
#include "heaps/gc.h"
#include "heaps/proc.h"
#include "heaps/send.h"
#include "heaps/verify.h"

static tc_heap_event last_gc;

static void record(void *ctx, const tc_proc *p, const tc_heap_event *ev)
{
    (void)ctx;
    (void)p;
    if (ev->kind != TC_HEAP_EV_FRAG)
        last_gc = *ev;
}

static tc_proc *new_proc(tc_policy pol, unsigned i) { return tc_fixture_proc(pol, i, record); }

static void done(void) { tc_fixture_procs_done(); }

/* n words of garbage a heap walk can read. */
static void fill_nil(tc_term *hp, size_t n)
{
    ck_assert(hp != NULL);
    for (size_t i = 0; i < n; i++)
        hp[i] = TC_NIL;
}

/* A list of `cells` integers on p's heap in x0 (arity 1): 2·cells live words. */
static void live_list(tc_proc *p, size_t cells)
{
    tc_term *hp = tc_proc_halloc(p, 2 * cells);
    ck_assert(hp != NULL);
    tc_proc_x(p)[0] = tc_int_list_at(hp, cells);
    tc_proc_set_arity(p, 1);
}

START_TEST(send_leaves_the_redzone)
{
    /* A fresh receiver: 233 words, no stack, so HEAP_LIMIT - htop is 230. A 230-word
     * message needs HEAP_LIMIT - htop > 230: a fragment (the old `stop - htop > size` put it
     * on the heap); a 228-word one goes on the heap. */
    for (size_t cells = 114; cells <= 115; cells++) {
        tc_proc *from = new_proc(tc_preset_ok("otp25"), 0), *to = new_proc(tc_preset_ok("otp25"), 1);
        tc_term *hp = tc_proc_halloc(from, 2 * cells);
        ck_assert(hp != NULL);
        tc_term msg = tc_int_list_at(hp, cells);
        bool on_heap = 2 * cells < 230;
        tc_copy_stats st = {0};
        ck_assert(tc_send(from, to, msg, false, &st) == TC_OK);
        ck_assert_uint_eq(tc_proc_heap_used(to), on_heap ? 2 * cells : 0);
        ck_assert_uint_eq(st.fragments, on_heap ? 0 : 1);
        done();
    }
}
END_TEST

START_TEST(test_heap_adds_s_reserved)
{
    /* 200 words used of 233, no stack: 33 free. TestHeap 30 collects (33 < 30 + 4), TestHeap
     * 29 does not; the old `free < need` collected at neither. */
    for (uint64_t need = 29; need <= 30; need++) {
        tc_proc *p = new_proc(tc_preset_ok("otp25"), 0);
        fill_nil(tc_proc_halloc(p, 200), 200);
        ck_assert(tc_proc_test_heap_maybe_gc(p, need) == TC_OK);
        ck_assert_uint_eq(tc_proc_stats_get(p)->gcs_test_heap, need == 30 ? 1 : 0);
        ck_assert_uint_ge(tc_proc_heap_room(p), need);
        done();
    }
    /* allocate (a stack push) tests 1 + S_RESERVED free words. */
    tc_proc *p = new_proc(tc_preset_ok("otp25"), 0);
    fill_nil(tc_proc_halloc(p, 229), 229);
    ck_assert_uint_eq(tc_proc_heap_room(p), 4);
    ck_assert(tc_proc_push_maybe_gc(p, TC_NIL) == TC_OK);
    ck_assert_uint_eq(tc_proc_stats_get(p)->gcs_test_heap, 1);
    done();
}
END_TEST

START_TEST(major_heap_adds_s_reserved)
{
    /* Young use 233 (200 on the heap, a 33-word fragment: 30 words were left under the
     * redzone), nothing live, no old heap: a fullsweep whose new heap is
     * next(0 + 233 + 0 + S_RESERVED 4) = 376 (the old rule: next(233) = 233). It then
     * shrinks to min_heap_size, so the allocated heap is read from the trace. */
    tc_proc *p = new_proc(tc_preset_ok("otp25"), 0);
    fill_nil(tc_proc_halloc(p, 200), 200);
    fill_nil(tc_proc_halloc(p, 33), 33);
    ck_assert_uint_eq(tc_proc_frag_size(p), 33);
    ck_assert(tc_gc_collect(p, 0, NULL, 0) == TC_OK);
    ck_assert_int_eq(last_gc.kind, TC_HEAP_EV_MAJOR);
    ck_assert_uint_eq(last_gc.heap_new, 376);
    ck_assert_uint_eq(tc_proc_heap_size(p), 233);
    done();
}
END_TEST

START_TEST(fullsweep_need_after_adds_s_reserved)
{
    /* 100 live words, need 130, no stack: need_after = 100 + 130 + 0 + 4 = 234 > 233, so
     * adjust_after_fullsweep grows to 376 (the old 230 left 233 and set the grow flag). */
    tc_proc *p = new_proc(tc_preset_ok("otp25"), 0);
    live_list(p, 50);
    ck_assert(tc_gc_collect(p, 130, tc_proc_x(p), 1) == TC_OK);
    ck_assert_int_eq(last_gc.kind, TC_HEAP_EV_MAJOR);
    ck_assert_uint_eq(last_gc.heap_new, 233); /* next(0 + 100 + 0 + 4) */
    ck_assert_uint_eq(tc_proc_heap_size(p), 376);
    ck_assert_uint_ge(tc_proc_heap_room(p), 130);
    done();
}
END_TEST

START_TEST(minor_need_after_adds_s_reserved)
{
    /* A fullsweep leaves 100 live words under high_water; the next GC is minor: they are
     * promoted, nothing young survives, and need_after = 0 + 230 + 0 + 4 = 234 > 233 grows
     * the new heap to 376 (the old need_after 230 kept 233). */
    tc_proc *p = new_proc(tc_preset_ok("otp25"), 0);
    live_list(p, 50);
    ck_assert(tc_gc_collect(p, 0, tc_proc_x(p), 1) == TC_OK);
    ck_assert_int_eq(last_gc.kind, TC_HEAP_EV_MAJOR);
    ck_assert_uint_eq(tc_proc_heap_size(p), 233);
    ck_assert(tc_gc_collect(p, 230, tc_proc_x(p), 1) == TC_OK);
    ck_assert_int_eq(last_gc.kind, TC_HEAP_EV_MINOR);
    ck_assert_uint_eq(tc_proc_old_heap_used(p), 100);
    ck_assert_uint_eq(tc_proc_heap_used(p), 0);
    ck_assert_uint_eq(tc_proc_heap_size(p), 376);
    done();
}
END_TEST

START_TEST(r10b_heap_table_slows_past_index_22)
{
    /* HS_FIBONACCI_SLOW: Fibonacci through index 22 (1,346,269), then 5·a/4 (integer). */
    tc_heap_table t = TC_HEAP_TABLE_FIB_SLOW;
    ck_assert_uint_eq(tc_heap_size_at(t, 21), 832040);
    ck_assert_uint_eq(tc_heap_size_at(t, 22), 1346269);
    ck_assert_uint_eq(tc_heap_size_at(t, 23), 1682836); /* Fibonacci: 2,178,309 */
    ck_assert_uint_eq(tc_heap_size_at(t, 24), 2103545);
    unsigned n = tc_heap_sizes_count(t);
    ck_assert_uint_le(n, 150);
    ck_assert_uint_lt(tc_heap_size_at(t, n - 2), (uint64_t)TC_MAX_SMALL);
    ck_assert_uint_ge(tc_heap_size_at(t, n - 1), (uint64_t)TC_MAX_SMALL);
    /* OTP 25's 20 % stage runs to 2^53 bytes, past the old 64-entry cut. */
    unsigned m = tc_heap_sizes_count(TC_HEAP_TABLE_FIB_PLUS1);
    ck_assert_uint_gt(m, 64);
}
END_TEST

START_TEST(r10b_next_clamps_to_min_heap)
{
    /* min_heap_size 1597 (a table entry). The first GC promotes nothing (R10B's high-water
     * flip); the second creates the old heap for 20 mature words at ggc.c's
     * next_heap_size(p, 20, 1), clamped to 1597 (the bare table gave 55). */
    tc_policy pol = tc_preset_ok("r10b");
    pol.min_heap_size = 1597;
    tc_proc *p = new_proc(pol, 0);
    live_list(p, 10);
    ck_assert(tc_gc_collect(p, 0, tc_proc_x(p), 1) == TC_OK);
    ck_assert_uint_eq(tc_proc_old_heap_size(p), 0);
    ck_assert(tc_gc_collect(p, 0, tc_proc_x(p), 1) == TC_OK);
    ck_assert_uint_eq(tc_proc_old_heap_used(p), 20);
    ck_assert_uint_eq(tc_proc_old_heap_size(p), 1597);
    done();
}
END_TEST

START_TEST(r10b_segment_cache_has_5_slots)
{
    ck_assert_uint_eq(tc_preset_ok("r10b").mem.cache_slots, 5);
    ck_assert_uint_eq(tc_preset_ok("otp25").mem.cache_slots, 10);
    ck_assert_uint_eq(tc_preset_ok("r10b").redzone + tc_preset_ok("r10b").reserved, 0);
    ck_assert_uint_eq(tc_preset_ok("otp25").redzone, 3);
    ck_assert_uint_eq(tc_preset_ok("otp25").reserved, 4);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("heaps_redzone");
    TCase *tc = tcase_create("redzone");
    tcase_add_test(tc, send_leaves_the_redzone);
    tcase_add_test(tc, test_heap_adds_s_reserved);
    tcase_add_test(tc, major_heap_adds_s_reserved);
    tcase_add_test(tc, fullsweep_need_after_adds_s_reserved);
    tcase_add_test(tc, minor_need_after_adds_s_reserved);
    tcase_add_test(tc, r10b_heap_table_slows_past_index_22);
    tcase_add_test(tc, r10b_next_clamps_to_min_heap);
    tcase_add_test(tc, r10b_segment_cache_has_5_slots);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run_suite(suite()); }
