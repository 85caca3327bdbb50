/*
 * R13B01's own mechanisms (the r13b column of the policy table), each pinned where its rule
 * and the other eras' part, so that each test fails without its code:
 * - the heap-size table's 5·(a/4) past index 22 (heapsize.h fib_slow_floor);
 * - erts_heap_alloc giving up the heap's free words with a fragment (frag_rule fill);
 * - the GC after a BIF whenever a fragment exists (bif_gc_test any_frag);
 * - schedule()'s MBUF_SIZE >= HEAP_SIZE test beside the BIF trigger (sched_gc_test heap_size);
 * - the old heap sized from the heap's use alone (old_heap_size heap_use);
 * - the fullsweep's heap without the stack (major_stack off);
 * - a message's fragment copied onto the heap at loop_rec, or a GC (msg_frag copy), and the
 *   queued fragments counted in the GC's heap size (combined_message_size).
 * The sequences are exact, so the policies are built without TC_GC_STRESS.
 */
#include "fixtures.h"
#include "heaps/gc.h"
#include "heaps/heapsize.h"
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

/* n words of garbage a heap walk can read, by HAlloc. */
static void garbage(tc_proc *p, size_t n)
{
    tc_term *hp = tc_proc_halloc(p, n);
    ck_assert(hp != NULL);
    for (size_t i = 0; i < n; i++)
        hp[i] = TC_NIL;
}

static uint64_t gcs(const tc_proc *p) { return tc_proc_stats_get(p)->minor_gcs + tc_proc_stats_get(p)->major_gcs; }

START_TEST(r13b_heap_table_floors_the_quarter)
{
    tc_heap_table t = TC_HEAP_TABLE_FIB_SLOW_FLOOR;
    ck_assert(tc_preset_ok("r13b").heap_table == t);
    ck_assert_uint_eq(tc_heap_size_at(t, 0), 34);
    ck_assert_uint_eq(tc_heap_size_at(t, 5), 377);
    ck_assert_uint_eq(tc_heap_size_at(t, 22), 1346269);
    /* 5*(1346269/4), where R10B-2's 5*1346269/4 is 1682836 */
    ck_assert_uint_eq(tc_heap_size_at(t, 23), 1682835);
    ck_assert_uint_eq(tc_heap_size_at(TC_HEAP_TABLE_FIB_SLOW, 23), 1682836);
    ck_assert_uint_eq(tc_heap_size_at(t, 24), 5 * (1682835 / 4));
    /* MAX_HEAP_SIZES 154 fill before a product turns negative */
    ck_assert_uint_eq(tc_heap_sizes_count(t), 154);
    ck_assert_uint_eq(tc_heap_size_at(t, 153), 5 * (tc_heap_size_at(t, 152) / 4));
    ck_assert_uint_eq(tc_heap_next_size(t, 1682836, 0), 5 * (1682835 / 4));
}
END_TEST

START_TEST(r13b_fragment_gives_up_the_heap)
{
    /* 233 words, no stack: 200 bump; 50 do not fit the 33 left: a 50-word fragment, and the
     * 33 become a bignum-headed hole, so the next word too goes to a fragment */
    tc_proc *p = new_proc(tc_preset_ok("r13b"), 0);
    garbage(p, 200);
    ck_assert_uint_eq(tc_proc_heap_used(p), 200);
    garbage(p, 50);
    ck_assert_uint_eq(tc_proc_frag_size(p), 50);
    ck_assert_uint_eq(tc_proc_heap_used(p), 233);
    ck_assert_uint_eq(tc_proc_heap_room(p), 0);
    garbage(p, 1);
    ck_assert_uint_eq(tc_proc_frag_size(p), 51);
    ck_assert_uint_eq(tc_proc_stats_get(p)->frags_allocated, 2);
    done();
    /* one word left: a header of arity 0 is the whole hole */
    p = new_proc(tc_preset_ok("r13b"), 0);
    garbage(p, 232);
    garbage(p, 5);
    ck_assert_uint_eq(tc_proc_heap_used(p), 233);
    done();
}
END_TEST

START_TEST(any_fragment_collects_after_a_bif)
{
    /* OTP 25's heap with its 3-word redzone: 5 words free, 2 of them HAlloc's, so a 4-word
     * result goes to a fragment while the heap could still hold it; the word test (5 < 4)
     * does not collect, R13B01's `if (c_p->mbuf)` does. */
    for (int any = 0; any <= 1; any++) {
        tc_policy pol = tc_preset_ok("otp25");
        if (any)
            pol.bif_gc_test = TC_BIF_GC_ANY_FRAG;
        else
            pol.bif_gc_test = TC_BIF_GC_WORDS;
        tc_proc *p = new_proc(pol, 0);
        garbage(p, 228);
        tc_heapfrag *entry = tc_proc_bif_enter(p);
        tc_term *hp = tc_proc_halloc(p, 4);
        ck_assert(hp != NULL);
        tc_term res = tc_int_list_at(hp, 2);
        ck_assert_uint_eq(tc_proc_frag_size(p), 4);
        ck_assert(tc_proc_bif_return_maybe_gc(p, entry, &res) == TC_OK);
        ck_assert_uint_eq(gcs(p), (uint64_t)any);
        ck_assert_uint_eq(tc_proc_frag_size(p), any ? 0 : 4);
        done();
    }
}
END_TEST

START_TEST(r13b_schedule_collects_when_fragments_reach_the_heap)
{
    /* Fragments made outside a BIF (no GC after one): the schedule-in collects only once they
     * reach the heap's 233 words, though the given-up heap has no room at all */
    tc_proc *p = new_proc(tc_preset_ok("r13b"), 0);
    garbage(p, 220);
    garbage(p, 20);
    ck_assert_uint_eq(tc_proc_heap_room(p), 0);
    ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
    ck_assert_uint_eq(gcs(p), 0);
    garbage(p, 213);
    ck_assert_uint_eq(tc_proc_frag_size(p), 233);
    ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
    ck_assert_uint_eq(gcs(p), 1);
    done();
}
END_TEST

START_TEST(r13b_old_heap_is_sized_from_the_heap_use)
{
    /* 100 live words survive a first (major: no old heap) GC and are mature; then 100 words of
     * garbage and a 100-word fragment, which gives up the last 33: the old heap the minor GC
     * creates is next(233, 1) = 377 (R10B-2's next(mature 100, 1) would be 233, OTP 25's
     * next(233 + 100, 1) 610) */
    tc_proc *p = new_proc(tc_preset_ok("r13b"), 0);
    tc_term *hp = tc_proc_halloc(p, 100);
    ck_assert(hp != NULL);
    tc_proc_x(p)[0] = tc_int_list_at(hp, 50);
    tc_proc_set_arity(p, 1);
    ck_assert(tc_gc_collect(p, 0, tc_proc_x(p), 1) == TC_OK);
    ck_assert_uint_eq(tc_proc_stats_get(p)->major_gcs, 1);
    ck_assert_uint_eq(tc_proc_high_water_used(p), 100);
    garbage(p, 100);
    garbage(p, 100);
    ck_assert_uint_eq(tc_proc_heap_used(p), 233);
    ck_assert(tc_gc_collect(p, 0, tc_proc_x(p), 1) == TC_OK);
    ck_assert_uint_eq(tc_proc_stats_get(p)->minor_gcs, 1);
    ck_assert(last_gc.old_heap_created);
    ck_assert_uint_eq(tc_proc_old_heap_size(p), 377);
    ck_assert_uint_eq(tc_proc_old_heap_used(p), 100);
    done();
}
END_TEST

START_TEST(r13b_fullsweep_leaves_the_stack_out)
{
    /* 100 stack words on a 233-word heap: the first GC is a fullsweep (no old heap), of
     * next(233) words in R13B01, next(233 + 100) = 377 with the stack counted */
    for (int stack = 0; stack <= 1; stack++) {
        tc_policy pol = tc_preset_ok("r13b");
        pol.major_stack = stack;
        tc_proc *p = new_proc(pol, 0);
        for (int i = 0; i < 100; i++)
            ck_assert(tc_proc_push_maybe_gc(p, TC_NIL) == TC_OK);
        ck_assert(tc_gc_collect(p, 0, NULL, 0) == TC_OK);
        ck_assert(last_gc.kind == TC_HEAP_EV_MAJOR);
        ck_assert_uint_eq(last_gc.heap_new, stack ? 377 : 233);
        done();
    }
}
END_TEST

/* A 100-cell list (200 words) from an OTP 25 sender to `to` while it runs: a fragment
 * attached to the message. */
static void send_in_fragment(tc_proc *from, tc_proc *to)
{
    tc_term *hp = tc_proc_halloc(from, 200);
    ck_assert(hp != NULL);
    tc_term msg = tc_int_list_at(hp, 100);
    ck_assert(tc_fixture_send(from, to, msg, TC_SEND_HEAP_OR_FRAG, true, NULL) == TC_OK);
}

START_TEST(r13b_loop_rec_copies_a_message_fragment)
{
    /* room: the fragment's 200 words are copied to htop and the fragment freed; nothing
     * becomes young data outside the heap (OTP 25's receive would add 200 to mbuf_sz) */
    tc_proc *from = new_proc(tc_preset_ok("otp25"), 0), *to = new_proc(tc_preset_ok("r13b"), 1);
    send_in_fragment(from, to);
    ck_assert(tc_proc_loop_rec_maybe_gc(to) == TC_OK);
    tc_term got;
    ck_assert(tc_proc_receive(to, &got));
    ck_assert_uint_eq(tc_proc_heap_used(to), 200);
    ck_assert_uint_eq(tc_proc_frag_size(to), 0);
    ck_assert_uint_eq(gcs(to), 0);
    ck_assert_uint_eq(tc_flat_ok(got), 200);
    done();
    /* no room (100 used): a GC, which moves the message onto its new heap */
    from = new_proc(tc_preset_ok("otp25"), 0);
    to = new_proc(tc_preset_ok("r13b"), 1);
    garbage(to, 100);
    send_in_fragment(from, to);
    ck_assert(tc_proc_loop_rec_maybe_gc(to) == TC_OK);
    ck_assert_uint_eq(gcs(to), 1);
    ck_assert(tc_proc_receive(to, &got));
    ck_assert_uint_eq(tc_proc_heap_used(to), 200);
    ck_assert_uint_eq(tc_proc_frag_size(to), 0);
    done();
}
END_TEST

/* Where an R13B01 sender puts a 200-word message for a receiver with 133 free words: without
 * SMP it collects the receiver and copies onto its heap (erl_message.c erts_send_message,
 * #ifndef ERTS_SMP); its SMP emulator never collects the receiver and copies into a fragment
 * (global.h erts_alloc_message_heap), which the receive copies in or, with no room, collects. */
START_TEST(r13b_smp_send_leaves_the_receiver_uncollected)
{
    for (int smp = 0; smp <= 1; smp++) {
        tc_policy pol = tc_preset_ok("r13b");
        if (smp)
            pol.send_path = TC_SEND_HEAP_OR_FRAG;
        tc_proc *from = new_proc(pol, 0), *to = new_proc(tc_preset_ok("r13b"), 1);
        garbage(to, 100);
        tc_term *hp = tc_proc_halloc(from, 200);
        ck_assert(hp != NULL);
        ck_assert(tc_send(from, to, tc_int_list_at(hp, 100), false, NULL) == TC_OK);
        ck_assert_uint_eq(gcs(to), smp ? 0 : 1);
        ck_assert_uint_eq(tc_proc_heap_used(to), smp ? 100 : 200);
        ck_assert(tc_proc_loop_rec_maybe_gc(to) == TC_OK);
        ck_assert_uint_eq(gcs(to), 1);
        tc_term got;
        ck_assert(tc_proc_receive(to, &got));
        ck_assert_uint_eq(tc_flat_ok(got), 200);
        ck_assert_uint_eq(tc_proc_frag_size(to), 0);
        done();
    }
}
END_TEST

START_TEST(r13b_gc_counts_queued_fragments)
{
    /* two queued 200-word messages in fragments: the fullsweep's heap is next(233 + 400) = 987
     * (erl_gc.c major_collection: HEAP_SIZE + MBUF_SIZE + combined_message_size), and holds
     * them once they are moved */
    tc_proc *from = new_proc(tc_preset_ok("otp25"), 0), *to = new_proc(tc_preset_ok("r13b"), 1);
    send_in_fragment(from, to);
    send_in_fragment(from, to);
    ck_assert(tc_gc_collect(to, 0, NULL, 0) == TC_OK);
    ck_assert(last_gc.kind == TC_HEAP_EV_MAJOR);
    ck_assert_uint_eq(last_gc.heap_new, 987);
    ck_assert_uint_eq(tc_proc_heap_used(to), 400);
    done();
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("heaps_r13b");
    TCase *tc = tcase_create("r13b");
    tcase_add_test(tc, r13b_heap_table_floors_the_quarter);
    tcase_add_test(tc, r13b_fragment_gives_up_the_heap);
    tcase_add_test(tc, any_fragment_collects_after_a_bif);
    tcase_add_test(tc, r13b_schedule_collects_when_fragments_reach_the_heap);
    tcase_add_test(tc, r13b_old_heap_is_sized_from_the_heap_use);
    tcase_add_test(tc, r13b_fullsweep_leaves_the_stack_out);
    tcase_add_test(tc, r13b_loop_rec_copies_a_message_fragment);
    tcase_add_test(tc, r13b_smp_send_leaves_the_receiver_uncollected);
    tcase_add_test(tc, r13b_gc_counts_queued_fragments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run_suite(suite()); }
