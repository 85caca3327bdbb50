/* Message sends between modelled processes, per era: where the copy lands, who collects. */
#include <string.h>

#include "heaps/proc_impl.h"
#include "heaps/gc.h"
#include "copy/copy_struct.h"
#include "heaps/send.h"
#include "fixtures.h"
#include "gen.h"
#include "heaps/verify.h"
#include "terms/size.h"

static tc_mseg *mem;
static tc_proc *sender, *receiver;

static void setup_procs(const char *era)
{
    tc_policy pol;
    ck_assert(tc_policy_preset(era, &pol) == TC_OK);
    mem = tc_mseg_new(&pol.mem);
    ck_assert(mem != NULL);
    ck_assert(tc_proc_new(mem, &pol, &sender) == TC_OK);
    ck_assert(tc_proc_new(mem, &pol, &receiver) == TC_OK);
}

static void teardown_procs(void)
{
    tc_proc_free(sender);
    tc_proc_free(receiver);
    tc_mseg_free(mem);
    sender = receiver = NULL;
    mem = NULL;
    tc_fixture_teardown();
}

static void verify(const tc_proc *p)
{
    const char *why;
    ck_assert_msg(tc_heap_verify(p, &why), "heap verify: %s", why);
}

/* lists:seq(1, n) built on the sender's heap, held in x0. */
static tc_term seq_on_sender(int64_t n)
{
    tc_term l = TC_NIL;
    for (int64_t i = n; i >= 1; i--)
        l = tc_term_cons(tc_proc_alloc(sender), tc_make_small(i), l);
    ck_assert(l != TC_NON_VALUE);
    sender->x[0] = l;
    sender->arity = 1;
    return l;
}

static bool on_heap(const tc_proc *p, tc_term t)
{
    const tc_term *a = tc_list_val(t);
    return a >= p->heap && a < p->htop;
}

/* n copies of [1] in a list on the sender's heap, held in x0: size_object pushes every head. */
static tc_term lists_on_sender(int64_t n)
{
    tc_term one = tc_term_cons(tc_proc_alloc(sender), tc_make_small(1), TC_NIL), l = TC_NIL;
    for (int64_t i = 0; i < n; i++)
        l = tc_term_cons(tc_proc_alloc(sender), one, l);
    ck_assert(l != TC_NON_VALUE);
    sender->x[0] = l;
    sender->arity = 1;
    return l;
}

/* A send sizes its message with size_object, whose stack of pending heads grows into
 * temp_alloc (alloc/estack.h): a stack that outgrows the main carrier (128 KiB, 8192
 * entries; R10B-2's 64 KiB, 4096) maps a multiblock carrier, given back to the segment cache
 * when the walk ends, where OTP 25's next walk takes it again. */
START_TEST(test_send_stack_in_temp_alloc)
{
    static const struct {
        const char *era;
        int64_t fits;
    } cases[] = {{"otp25", 8192}, {"r13b", 8192}, {"r10b", 4096}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        setup_procs(cases[k].era);
        tc_mseg *temp = tc_mseg_temp(mem);
        ck_assert(temp != NULL);
        const tc_mseg_stats *ts = tc_mseg_stats_get(temp);
        ck_assert_uint_eq(ts->carriers_mapped, 1); /* the main carrier */
        for (int64_t n = cases[k].fits; n <= cases[k].fits + 1; n++) {
            tc_term l = lists_on_sender(n);
            for (int again = 0; again < 2; again++) {
                ck_assert(tc_send(sender, receiver, l, false, NULL) == TC_OK);
                bool out = n > cases[k].fits;
                ck_assert_uint_eq(ts->carriers_mapped > 1, out);
                ck_assert_uint_eq(ts->live_blocks, 0);
                /* OTP 25 keeps it for the stack; in the old eras the receiver's next heap
                 * may take it first (alloc/mseg.h) */
                if (k == 0)
                    ck_assert_uint_eq(ts->cache_hits, out ? (uint64_t)again : 0);
            }
        }
        teardown_procs();
    }
}
END_TEST

/* R10B: a 2,003-word reply does not fit a 233-word heap, so the sender collects the
 * receiver with need = 2,003, then copies onto its heap: no fragment. */
START_TEST(test_r10b_direct_collects_receiver)
{
    setup_procs("r10b");
    tc_term l = seq_on_sender(1000);
    tc_copy_stats st = {0};
    ck_assert_uint_lt(receiver->heap_sz, 2000);
    ck_assert(tc_fixture_send(sender, receiver, l, TC_SEND_DIRECT, false, &st) == TC_OK);
    ck_assert_uint_eq(st.gcs, 1);
    ck_assert_uint_eq(st.fragments, 0);
    ck_assert_uint_eq(st.words_written, 2000);
    ck_assert_uint_ge(receiver->heap_sz, 2000);
    ck_assert_ptr_null(receiver->mbuf);
    verify(receiver);
    tc_term got;
    ck_assert(tc_proc_receive(receiver, &got));
    ck_assert(on_heap(receiver, got));
    ck_assert(tc_equal_ok(got, l));
    /* copy_struct layout: the head cell is highest, each tail points lower. */
    for (tc_term c = got; tc_is_list(tc_cdr(c)); c = tc_cdr(c))
        ck_assert((uintptr_t)tc_list_val(tc_cdr(c)) < (uintptr_t)tc_list_val(c));
    /* A second send collects again exactly when the first left no room (the VM's <=). */
    receiver->x[0] = got;
    receiver->arity = 1;
    bool fits = (uint64_t)(receiver->stop - receiver->htop) > 2000;
    ck_assert(tc_fixture_send(sender, receiver, l, TC_SEND_DIRECT, false, &st) == TC_OK);
    ck_assert_uint_eq(st.gcs, fits ? 1 : 2);
    verify(receiver);
    teardown_procs();
}
END_TEST

/* Modern: an idle receiver with room takes the copy on its heap; a busy one, or one
 * without room, gets a fragment attached to the message; receiving copies nothing. */
START_TEST(test_modern_heap_or_fragment)
{
    setup_procs("otp25");
    tc_term small = seq_on_sender(10), big;
    tc_copy_stats st = {0};
    ck_assert(tc_fixture_send(sender, receiver, small, TC_SEND_HEAP_OR_FRAG, false, &st) == TC_OK);
    ck_assert_uint_eq(st.fragments, 0);
    ck_assert(tc_fixture_send(sender, receiver, small, TC_SEND_HEAP_OR_FRAG, true, &st) == TC_OK);
    ck_assert_uint_eq(st.fragments, 1);
    big = seq_on_sender(1000);
    ck_assert(tc_fixture_send(sender, receiver, big, TC_SEND_HEAP_OR_FRAG, false, &st) == TC_OK);
    ck_assert_uint_eq(st.fragments, 2);
    ck_assert_uint_eq(st.gcs, 0);
    verify(receiver);
    tc_term got;
    uint64_t mbuf_before = receiver->mbuf_sz;
    ck_assert(tc_proc_receive(receiver, &got));
    ck_assert(on_heap(receiver, got));
    ck_assert_uint_eq(receiver->mbuf_sz, mbuf_before);
    ck_assert(tc_proc_receive(receiver, &got));
    ck_assert(!on_heap(receiver, got));
    ck_assert(tc_proc_receive(receiver, &got));
    ck_assert(tc_equal_ok(got, big));
    /* The received fragment is young data now: 20 + 2,000 words. */
    ck_assert_uint_eq(receiver->mbuf_sz, mbuf_before + 20 + 2000);
    receiver->x[0] = got;
    receiver->arity = 1;
    verify(receiver);
    teardown_procs();
}
END_TEST

/* The send paths are a switch of their own: an R10B heap receiving the modern path's
 * fragment (the ablation "send path") keeps a valid heap through receive and GC. */
START_TEST(test_r10b_heap_with_fragment_send)
{
    setup_procs("r10b");
    tc_term l = seq_on_sender(1000);
    tc_copy_stats st = {0};
    for (int i = 0; i < 5; i++) {
        ck_assert(tc_fixture_send(sender, receiver, l, TC_SEND_HEAP_OR_FRAG, false, &st) == TC_OK);
        verify(receiver);
        tc_term got;
        ck_assert(tc_proc_receive(receiver, &got));
        ck_assert(tc_equal_ok(got, l));
        verify(receiver);
        ck_assert(tc_proc_schedule_in_maybe_gc(receiver) == TC_OK);
        verify(receiver);
    }
    ck_assert_uint_ge(st.fragments, 1);
    teardown_procs();
}
END_TEST

/* OTP 25's sends skip the sender's literals (send_litopt): neither sized nor copied, on either
 * path. Without it (R10B, R13B01: their SMP emulator places a message as OTP 25 does) every
 * word is copied. */
START_TEST(test_modern_skips_literals)
{
    setup_procs("otp25");
    tc_arena *lit = tc_arena_new(64);
    tc_alloc *la = tc_arena_alloc(lit);
    tc_term *area = tc_alloc_words(la, 64);
    /* A 3-element list built inside the literal area. */
    area[4] = tc_make_small(3), area[5] = TC_NIL;
    area[2] = tc_make_small(2), area[3] = tc_make_list(&area[4]);
    area[0] = tc_make_small(1), area[1] = tc_make_list(&area[2]);
    tc_term literal = tc_make_list(area);
    ck_assert(tc_proc_add_literal_area(sender, area, 64) == TC_OK);
    ck_assert(tc_proc_add_literal_area(receiver, area, 64) == TC_OK);
    tc_term e[2] = {tc_make_small(7), literal};
    tc_term msg = tc_term_tuple(tc_proc_alloc(sender), e, 2);
    sender->x[0] = msg;
    sender->arity = 1;
    tc_copy_stats st = {0};
    ck_assert(tc_fixture_send(sender, receiver, msg, TC_SEND_HEAP_OR_FRAG, false, &st) == TC_OK);
    ck_assert_uint_eq(st.words_sized, 3);
    tc_term got;
    ck_assert(tc_proc_receive(receiver, &got));
    ck_assert_uint_eq(tc_tuple_element(got, 2), literal);
    ck_assert(tc_fixture_send(sender, receiver, msg, TC_SEND_DIRECT, false, &st) == TC_OK);
    ck_assert_uint_eq(st.words_sized, 3 + 3);
    ck_assert(tc_proc_receive(receiver, &got));
    ck_assert_uint_eq(tc_tuple_element(got, 2), literal);
    sender->policy.send_litopt = false;
    ck_assert(tc_fixture_send(sender, receiver, msg, TC_SEND_DIRECT, false, &st) == TC_OK);
    ck_assert_uint_eq(st.words_sized, 3 + 3 + 9);
    ck_assert(tc_fixture_send(sender, receiver, msg, TC_SEND_HEAP_OR_FRAG, false, &st) == TC_OK);
    ck_assert_uint_eq(st.words_sized, 3 + 3 + 9 + 9);
    ck_assert(tc_proc_receive(receiver, &got));
    ck_assert(tc_proc_receive(receiver, &got));
    ck_assert(tc_tuple_element(got, 2) != literal);
    ck_assert(tc_equal_ok(tc_tuple_element(got, 2), literal));
    receiver->x[0] = got;
    receiver->arity = 1;
    verify(receiver);
    teardown_procs();
    tc_arena_free(lit);
}
END_TEST

/* Random terms both ways, in both eras: equal on arrival, every heap valid, refc binaries
 * counted once per copy. */
START_TEST(test_random_sends)
{
    static const char *const eras[] = {"r10b", "otp25"};
    for (int e = 0; e < 2; e++) {
        setup_procs(eras[e]);
        tc_send_path path = e == 0 ? TC_SEND_DIRECT : TC_SEND_HEAP_OR_FRAG;
        for (int i = 0; i < 400; i++) {
            tc_arena *arena = tc_arena_new(0);
            tc_term src = tc_gen_term(tc_arena_alloc(arena), 5, i % 2);
            ck_assert(src != TC_NON_VALUE);
            /* Through the sender's heap first: a send copies from one process to another. */
            tc_term msg;
            ck_assert(tc_proc_test_heap_maybe_gc(sender, 0) == TC_OK);
            tc_copy_stats st = {0};
            uint64_t words;
            ck_assert(tc_term_flat_size(src, &words) == TC_OK);
            ck_assert(tc_proc_test_heap_maybe_gc(sender, words) == TC_OK);
            msg = tc_copy_struct_fill(src, sender->htop, words, &sender->off_heap, NULL);
            sender->htop += words;
            sender->x[0] = msg;
            sender->arity = 1;
            ck_assert(tc_fixture_send(sender, receiver, msg, path, i % 3 == 0, &st) == TC_OK);
            ck_assert_uint_eq(st.words_written, words);
            tc_term got;
            ck_assert(tc_proc_receive(receiver, &got));
            ck_assert(tc_equal_ok(got, src));
            receiver->x[0] = got;
            receiver->arity = 1;
            verify(receiver);
            verify(sender);
            tc_arena_free(arena);
            if (i % 16 == 0)
                ck_assert(tc_proc_schedule_in_maybe_gc(receiver) == TC_OK);
        }
        teardown_procs();
    }
}
END_TEST

/* Every allocation a send makes may fail: TC_ENOMEM, nothing queued, heaps valid. */
START_TEST(test_send_allocation_failure)
{
    static const char *const eras[] = {"r10b", "otp25"};
    for (int e = 0; e < 2; e++) {
        tc_send_path path = e == 0 ? TC_SEND_DIRECT : TC_SEND_HEAP_OR_FRAG;
        for (uint64_t n = 1;; n++) {
            setup_procs(eras[e]);
            tc_term l = seq_on_sender(3000);
            int64_t live = tc_mem_live();
            tc_mem_fail_at(n);
            tc_result r = tc_fixture_send(sender, receiver, l, path, false, NULL);
            tc_mem_fail_at(0);
            verify(receiver);
            if (r == TC_OK) {
                ck_assert_uint_eq(receiver->msgq_len, 1);
                teardown_procs();
                break;
            }
            ck_assert_int_eq(r, TC_ENOMEM);
            ck_assert_uint_eq(receiver->msgq_len, 0);
            ck_assert_int_eq(tc_mem_live(), live);
            teardown_procs();
        }
    }
}
END_TEST

/* OTP 25's `!` returns through the GC-after-BIF test: a sender whose fragments outgrew its
 * free heap collects right after it sends, the message its only live register; R10B's does
 * not, and neither does an OTP 25 sender with gc_after_send switched off. */
static unsigned gcs_after_send(const char *era, bool gc_after_send)
{
    tc_policy pol;
    ck_assert(tc_policy_preset(era, &pol) == TC_OK);
    pol.gc_after_send = gc_after_send;
    mem = tc_mseg_new(&pol.mem);
    ck_assert(mem != NULL);
    ck_assert(tc_proc_new(mem, &pol, &sender) == TC_OK);
    ck_assert(tc_proc_new(mem, &pol, &receiver) == TC_OK);
    /* The heap used up to HEAP_LIMIT, then a 100-word fragment: mbuf_sz 100 > the free heap
     * (the redzone's words, 3 in OTP 25). */
    size_t room = (size_t)tc_proc_heap_words_left(sender);
    tc_term *hp = tc_proc_halloc(sender, room), *frag = tc_proc_halloc(sender, 100);
    ck_assert(hp && frag);
    for (size_t i = 0; i < room; i++)
        hp[i] = TC_NIL; /* garbage, but words a heap walk can read */
    for (size_t i = 0; i < 100; i++)
        frag[i] = TC_NIL;
    tc_term e[2] = {tc_make_small(1), tc_make_small(2)};
    tc_term msg = tc_term_tuple(tc_proc_alloc(sender), e, 2);
    ck_assert(msg != TC_NON_VALUE);
    ck_assert(tc_send_maybe_gc(sender, receiver, &msg, false, NULL) == TC_OK);
    unsigned gcs = (unsigned)tc_proc_stats_get(sender)->gcs_after_bif;
    /* The message survived the collection, wherever it was moved. */
    ck_assert(tc_is_tuple(msg) && tc_tuple_arity(msg) == 2 && tc_tuple_element(msg, 2) == tc_make_small(2));
    tc_proc_x(sender)[0] = msg;
    tc_proc_set_arity(sender, 1);
    verify(sender);
    verify(receiver);
    teardown_procs();
    return gcs;
}

START_TEST(test_gc_after_send)
{
    ck_assert_uint_eq(gcs_after_send("otp25", true), 1);
    ck_assert_uint_eq(gcs_after_send("otp25", false), 0);
    ck_assert_uint_eq(gcs_after_send("r10b", false), 0);
    tc_policy r10b = tc_preset_ok("r10b"), otp25 = tc_preset_ok("otp25");
    ck_assert(!r10b.gc_after_send && otp25.gc_after_send);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy_send");
    TCase *tc = tcase_create("send");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_r10b_direct_collects_receiver);
    tcase_add_test(tc, test_modern_heap_or_fragment);
    tcase_add_test(tc, test_send_stack_in_temp_alloc);
    tcase_add_test(tc, test_modern_skips_literals);
    tcase_add_test(tc, test_r10b_heap_with_fragment_send);
    tcase_add_test(tc, test_random_sends);
    tcase_add_test(tc, test_send_allocation_failure);
    tcase_add_test(tc, test_gc_after_send);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
