/*
 * The binary virtual heap (policy.h bin_vheap, gc.h, proc.h): refc binaries copied onto a
 * process count their size / 8 words in off_heap.overhead, a GC is desired when that
 * exceeds bin_vheap_sz, and every GC sizes the virtual heaps by erl_gc.c
 * do_next_vheap_size. Every number below is worked out from those rules by hand; R10B-2
 * has none of it. The sequences are exact, so the policies are built without TC_GC_STRESS.
 */
#include "fixtures.h"
#include "copy/compact.h"
#include "heaps/gc.h"
#include "heaps/proc.h"
#include "heaps/send.h"
#include "heaps/verify.h"
#include "terms/arena.h"
#include "terms/binary.h"

#define BIN_BYTES 102400u /* <<0:819200>>: 12800 words of overhead per copy */
#define BIN_WORDS (BIN_BYTES / 8u)
#define MIN_VHEAP 46422u  /* VH_DEFAULT_SIZE 32768 rounded up to a heap size */

static unsigned char zeros[800000];

static tc_proc *new_proc(tc_policy pol, unsigned i) { return tc_fixture_proc(pol, i, NULL); }

static void done(void) { tc_fixture_procs_done(); }

static uint64_t vheap_size(const tc_proc *p) { return tc_proc_bin_vheap_get(p).size; }
static uint64_t vheap_block(const tc_proc *p) { return tc_proc_bin_vheap_get(p).block_size; }

/* The stored object {K, <<0:819200>>}, as ets:insert leaves it. */
static tc_copy_compact *stored_object(void)
{
    tc_arena *a = tc_fixture_arena();
    tc_term bin = tc_term_binary(tc_arena_alloc(a), zeros, BIN_BYTES);
    ck_assert(bin != TC_NON_VALUE);
    tc_term *hp = tc_alloc_words(tc_arena_alloc(a), 3);
    ck_assert(hp != NULL);
    hp[0] = TC_MAKE_HEADER(2, TC_SUBTAG_ARITYVAL);
    hp[1] = tc_make_small(1);
    hp[2] = bin;
    tc_copy_compact *c = NULL;
    ck_assert(tc_copy_compact_in(tc_make_boxed(hp), &c, NULL) == TC_OK);
    return c;
}

/* ets:lookup(T, K) as the workload calls it: a BIF whose result, [Object], copy_shallow
 * builds with HAlloc (its ProcBin joins the process's list), then the GC-after-BIF test
 * with the result the only live register. The result is dropped. */
static void lookup(tc_proc *p, const tc_copy_compact *c)
{
    tc_heapfrag *hf = tc_proc_bif_enter(p);
    tc_term res;
    ck_assert(tc_copy_compact_out_list(tc_proc_alloc(p), c, &res, NULL) == TC_OK);
    ck_assert(tc_proc_bif_return_maybe_gc(p, hf, &res) == TC_OK);
}

START_TEST(defaults)
{
    ck_assert(tc_preset_ok("otp25").bin_vheap);
    ck_assert_uint_eq(tc_preset_ok("otp25").min_bin_vheap_size, 32768);
    ck_assert(!tc_preset_ok("r10b").bin_vheap);
    tc_proc *p = new_proc(tc_preset_ok("otp25"), 0);
    tc_proc_bin_vheap v = tc_proc_bin_vheap_get(p);
    ck_assert_uint_eq(v.min_size, MIN_VHEAP);
    ck_assert_uint_eq(v.block_size, MIN_VHEAP);
    ck_assert_uint_eq(v.old_block_size, MIN_VHEAP);
    ck_assert_uint_eq(v.size + v.old_size, 0);
    done();
}
END_TEST

START_TEST(lookup_loop_collects_when_the_overhead_passes_the_vheap)
{
    /* 12800 words per lookup: 4 lookups (51200) pass 46422, so the 4th collects, with its
     * result live. That GC leaves 12800 young (bin_vheap_sz stays: 12800/3 <= 46422/4 and
     * 12800 >= 46422/4), so 3 more lookups pass it again: GCs at 4, 7, 10, ... — 333 in
     * 1000, the VM's count for this loop (termcopy explain --vm '<<0:819200>>'). Without
     * the rule, 1000 lookups of 11 words each collect only as the heap fills. */
    tc_copy_compact *c = stored_object();
    for (int on = 1; on >= 0; on--) {
        tc_policy pol = tc_preset_ok("otp25");
        pol.bin_vheap = on;
        tc_proc *p = new_proc(pol, 0);
        for (unsigned i = 1; i <= 1000; i++) {
            uint64_t before = tc_proc_stats_get(p)->gcs_after_bif;
            lookup(p, c);
            bool collected = tc_proc_stats_get(p)->gcs_after_bif != before;
            if (on) {
                ck_assert_msg(collected == (i >= 4 && (i - 4) % 3 == 0), "lookup %u", i);
                uint64_t copies = collected ? 1 : i < 4 ? i : (i - 4) % 3 + 1;
                ck_assert_uint_eq(vheap_size(p), copies * BIN_WORDS);
                ck_assert_uint_eq(vheap_block(p), MIN_VHEAP);
            } else if (i <= 20) {
                ck_assert_msg(!collected, "lookup %u", i); /* 20 results fit the 233 words */
            }
        }
        const tc_proc_stats *st = tc_proc_stats_get(p);
        if (on)
            ck_assert_uint_eq(st->minor_gcs + st->major_gcs, 333);
        else
            ck_assert_uint_lt(st->minor_gcs + st->major_gcs, 100);
        done();
    }
    tc_copy_compact_free(c);
    tc_fixture_teardown();
}
END_TEST

/* A refc binary of `words` words built on p's heap into x[i]. */
static void binary_in(tc_proc *p, unsigned i, size_t words)
{
    tc_term b = tc_term_binary(tc_proc_alloc(p), zeros, words * 8);
    ck_assert(b != TC_NON_VALUE);
    tc_proc_x(p)[i] = b;
}

/* A GC with x[0..live) as the roots. */
static void gc(tc_proc *p, unsigned live)
{
    tc_proc_set_arity(p, live);
    ck_assert(tc_gc_collect(p, 0, tc_proc_x(p), live) == TC_OK);
}

static void expect(const tc_proc *p, uint64_t size, uint64_t block, uint64_t old_size, uint64_t old_block)
{
    tc_proc_bin_vheap v = tc_proc_bin_vheap_get(p);
    ck_assert_uint_eq(v.size, size);
    ck_assert_uint_eq(v.block_size, block);
    ck_assert_uint_eq(v.old_size, old_size);
    ck_assert_uint_eq(v.old_block_size, old_block);
}

START_TEST(vheap_grows_and_shrinks_as_do_next_vheap_size_says)
{
    tc_proc *p = new_proc(tc_preset_ok("otp25"), 0);
    binary_in(p, 0, 100000);
    ck_assert(tc_proc_gc_desired(p));
    /* GC 1, a fullsweep (no old heap yet): 100000 young survivors grow the young vheap by
     * 1.618 while 33333 > sz/4: 46422 -> 75110 -> 121527 -> 196630; the old one is sized
     * from the overhead before the GC, also 100000: 196630. */
    gc(p, 1);
    expect(p, 100000, 196630, 0, 196630);
    ck_assert(!tc_proc_gc_desired(p));
    /* GC 2, minor: the binary had survived once, so it is promoted; 0 young halves the young
     * vheap (0 < 196630/4). */
    gc(p, 1);
    expect(p, 0, 98315, 100000, 196630);
    /* GC 3, minor (196630 > 100000): a second binary stays young, 98315 -> 159073. */
    binary_in(p, 1, 100000);
    gc(p, 2);
    expect(p, 100000, 159073, 100000, 196630);
    /* GC 4, minor: the second is promoted too; the old vheap now holds 200000. */
    gc(p, 2);
    expect(p, 0, 79536, 200000, 196630);
    ck_assert_uint_eq(tc_proc_stats_get(p)->minor_gcs, 3);
    /* GC 5: bin_old_vheap_sz 196630 is not above 200000, so it is a fullsweep although the
     * old heap has room. The old vheap empties and is sized from the overhead before the GC
     * (0: halved); both binaries are young: 79536 -> 128689 -> 208218 -> 336896. */
    gc(p, 2);
    ck_assert_uint_eq(tc_proc_stats_get(p)->major_gcs, 2);
    expect(p, 200000, 336896, 0, 98315);
    /* Nothing live: each GC halves, down to the minimum (84224 / 2 is below 46422). */
    gc(p, 0);
    expect(p, 0, 168448, 0, 98315);
    binary_in(p, 0, 10);
    gc(p, 0);
    ck_assert_uint_eq(vheap_block(p), 84224);
    binary_in(p, 0, 10);
    gc(p, 0);
    ck_assert_uint_eq(vheap_block(p), MIN_VHEAP);
    done();
}
END_TEST

START_TEST(vheap_stays_between_a_quarter_and_three_quarters)
{
    /* Every GC a fullsweep, so a live binary stays young: 100000 words grow 46422 to
     * 196630, then sit between 196630/4 and 3/4 of it: kept. An empty off-heap list is not
     * swept at all (do_minor, full_sweep_heaps): the overhead and the size stay as they
     * were even though nothing survived. */
    tc_policy pol = tc_preset_ok("otp25");
    pol.fullsweep_after = 0;
    tc_proc *p = new_proc(pol, 0);
    binary_in(p, 0, 100000);
    gc(p, 1);
    ck_assert_uint_eq(vheap_block(p), 196630);
    gc(p, 1);
    gc(p, 1);
    ck_assert_uint_eq(tc_proc_stats_get(p)->major_gcs, 3);
    expect(p, 100000, 196630, 0, 196630);
    gc(p, 0);
    expect(p, 0, 98315, 0, 196630);
    gc(p, 0);
    expect(p, 0, 98315, 0, 196630);
    done();
}
END_TEST

START_TEST(without_the_rule_a_promoted_binary_allows_minor_gcs)
{
    tc_policy pol = tc_preset_ok("otp25");
    pol.bin_vheap = false;
    tc_proc *p = new_proc(pol, 0);
    /* The steps of vheap_grows_and_shrinks_as_do_next_vheap_size_says: its 5th GC, a
     * fullsweep there, is a minor one here (the first is a fullsweep: no old heap yet). */
    binary_in(p, 0, 100000);
    ck_assert(!tc_proc_gc_desired(p));
    gc(p, 1);
    gc(p, 1);
    binary_in(p, 1, 100000);
    gc(p, 2);
    gc(p, 2);
    gc(p, 2);
    ck_assert_uint_eq(tc_proc_stats_get(p)->minor_gcs, 4);
    ck_assert_uint_eq(tc_proc_stats_get(p)->major_gcs, 1);
    done();
}
END_TEST

START_TEST(received_binaries_count)
{
    /* A reply carrying 50000 words of binary to a busy client goes to a fragment with its
     * own list; receiving it moves its overhead into the client's (erts_link_mbuf_to_proc),
     * and 50000 > 46422 makes a GC desired there. */
    tc_proc *server = new_proc(tc_preset_ok("otp25"), 0), *client = new_proc(tc_preset_ok("otp25"), 1);
    binary_in(server, 0, 50000);
    ck_assert(tc_send(server, client, tc_proc_x(server)[0], true, NULL) == TC_OK);
    ck_assert_uint_eq(vheap_size(client), 0);
    ck_assert(!tc_proc_gc_desired(client));
    tc_term msg;
    ck_assert(tc_proc_receive(client, &msg));
    ck_assert_uint_eq(vheap_size(client), 50000);
    ck_assert(tc_proc_gc_desired(client));
    tc_proc_x(client)[0] = msg;
    tc_proc_set_arity(client, 1);
    ck_assert(tc_proc_schedule_in_maybe_gc(client) == TC_OK);
    ck_assert_uint_eq(tc_proc_stats_get(client)->gcs_at_schedule, 1);
    done();
}
END_TEST

START_TEST(r10b_never_triggers_it)
{
    tc_copy_compact *c = stored_object();
    tc_proc *p = new_proc(tc_preset_ok("r10b"), 0);
    binary_in(p, 0, 100000);
    tc_proc_set_arity(p, 1);
    ck_assert_uint_eq(vheap_size(p), 100000);
    ck_assert(!tc_proc_gc_desired(p));
    ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
    for (unsigned i = 0; i < 10; i++)
        lookup(p, c);
    ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
    const tc_proc_stats *st = tc_proc_stats_get(p);
    ck_assert_uint_eq(st->minor_gcs + st->major_gcs, 0);
    done();
    tc_copy_compact_free(c);
    tc_fixture_teardown();
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("heaps_vheap");
    TCase *tc = tcase_create("vheap");
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, lookup_loop_collects_when_the_overhead_passes_the_vheap);
    tcase_add_test(tc, vheap_grows_and_shrinks_as_do_next_vheap_size_says);
    tcase_add_test(tc, vheap_stays_between_a_quarter_and_three_quarters);
    tcase_add_test(tc, without_the_rule_a_promoted_binary_allows_minor_gcs);
    tcase_add_test(tc, received_binaries_count);
    tcase_add_test(tc, r10b_never_triggers_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run_suite(suite()); }
