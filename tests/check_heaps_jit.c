/* What the x86-64 JIT's way of running a process changes for the heap (issue 26): the
 * fragment_call's return address a GC sees, the GC a receive delays, a spawned process's first
 * heap, erl_send's reductions, the guard BIFs' fragments and the scheduler's running process.
 * Each test fails without its mechanism. */
#include "heaps/gc.h"
#include "heaps/proc_impl.h"
#include "heaps/sched.h"
#include "heaps/send.h"
#include "heaps/verify.h"
#include "fixtures.h"

static tc_mseg *mem;
static tc_proc *procs[4];
static unsigned nprocs;

/* A process of the era's preset, with one field set over it when `set` is not NULL. */
static tc_proc *proc_set(const char *era, const char *set)
{
    tc_policy pol;
    char err[256];
    ck_assert(tc_policy_preset(era, &pol) == TC_OK);
    if (set)
        ck_assert_msg(tc_policy_set(&pol, set, err, sizeof err) == TC_OK, "%s", err);
    if (!mem)
        ck_assert((mem = tc_mseg_new(&pol.mem)) != NULL);
    ck_assert(nprocs < 4);
    ck_assert(tc_proc_new(mem, &pol, &procs[nprocs]) == TC_OK);
    return procs[nprocs++];
}

static tc_proc *proc_for(const char *era) { return proc_set(era, NULL); }

static void teardown(void)
{
    for (unsigned i = 0; i < nprocs; i++)
        tc_proc_free(procs[i]);
    nprocs = 0;
    tc_mseg_free(mem);
    mem = NULL;
    tc_fixture_teardown();
}

static void verify(const tc_proc *p)
{
    const char *why;
    ck_assert_msg(tc_heap_verify(p, &why), "heap verify: %s", why);
}

/* The stack each GC saw (the trace hook runs inside the collection). */
typedef struct seen {
    size_t stack[8];
    unsigned gcs;
} seen;

static void on_gc(void *ctx, const tc_proc *p, const tc_heap_event *ev)
{
    seen *s = ctx;
    if (ev->kind != TC_HEAP_EV_FRAG && s->gcs < 8)
        s->stack[s->gcs++] = tc_proc_stack_size(p);
}

/* Fills the heap with garbage up to `room` free words, `stack` words on the stack. */
static void fill(tc_proc *p, size_t stack, uint64_t room)
{
    for (size_t i = 0; i < stack; i++)
        ck_assert(tc_proc_push_maybe_gc(p, TC_NIL) == TC_OK);
    uint64_t now = tc_proc_heap_room(p);
    ck_assert(now >= room);
    tc_term *hp = tc_proc_heap_reserve(p, (size_t)(now - room));
    ck_assert(hp != NULL);
    for (uint64_t i = 0; i < now - room; i++)
        hp[i] = TC_NIL; /* garbage: a NIL is a whole term */
    tc_proc_heap_commit(p, (size_t)(now - room));
}

START_TEST(test_gc_call_word)
{
    /* OTP 25: a heap test's GC sees the fragment_call's return address, one word more than
     * the frames; a GC at schedule-in sees the frames alone. R10B, and OTP 25 with
     * gc_call_words=0: the frames. */
    static const char *const eras[] = {"otp25", "r10b", "otp25"};
    static const char *const sets[] = {NULL, NULL, "gc_call_words=0"};
    for (int e = 0; e < 3; e++) {
        tc_proc *p = proc_set(eras[e], sets[e]);
        seen s = {0};
        tc_proc_set_trace(p, on_gc, &s);
        fill(p, 5, 2);
        ck_assert(tc_proc_test_heap_maybe_gc(p, 8) == TC_OK);
        ck_assert_uint_eq(s.gcs, 1);
        ck_assert_uint_eq(s.stack[0], e == 0 ? 6 : 5);
        ck_assert_uint_eq(tc_proc_stack_size(p), 5); /* popped again */
        verify(p);
        if (e == 0) {
            p->flags |= TC_PROC_FORCE_GC;
            p->aheap = NULL;
            ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
            ck_assert_uint_eq(s.gcs, 2);
            ck_assert_uint_eq(s.stack[1], 5);
        }
    }
}
END_TEST

START_TEST(test_bif_room)
{
    /* Inside a light BIF the glue's return address is pushed: HAlloc has a word less. */
    tc_proc *p = proc_for("otp25");
    fill(p, 2, 10);
    uint64_t outside = tc_proc_heap_words_left(p);
    tc_heapfrag *entry = tc_proc_bif_enter(p);
    ck_assert_uint_eq(tc_proc_heap_words_left(p), outside - 1);
    tc_term res = TC_NIL;
    ck_assert(tc_proc_bif_return_maybe_gc(p, entry, &res) == TC_OK);
    ck_assert_uint_eq(tc_proc_heap_words_left(p), outside);
    tc_proc *r = proc_for("r10b");
    fill(r, 2, 10);
    outside = tc_proc_heap_words_left(r);
    (void)tc_proc_bif_enter(r);
    ck_assert_uint_eq(tc_proc_heap_words_left(r), outside);
}
END_TEST

START_TEST(test_delay_gc_in_receive)
{
    /* Between loop_rec and remove_message a heap test that needs a GC delays it: the words
     * come from a fragment heap outside mbuf_sz, F_FORCE_GC and a yield are asked for, and
     * the schedule-in collects; a waiting process (flag cleared) collects at once. */
    tc_proc *p = proc_for("otp25");
    seen s = {0};
    tc_proc_set_trace(p, on_gc, &s);
    fill(p, 3, 2);
    uint64_t young = tc_proc_young_use(p);
    tc_proc_set_delay_gc(p, true);
    ck_assert(tc_proc_test_heap_maybe_gc(p, 3) == TC_OK);
    ck_assert_uint_eq(s.gcs, 0);
    ck_assert(tc_proc_yield_requested(p));
    ck_assert(tc_proc_gc_desired(p));
    tc_term e[2] = {tc_make_small(1), tc_make_small(2)};
    tc_proc_x(p)[0] = tc_term_tuple(tc_proc_alloc(p), e, 2);
    tc_proc_set_arity(p, 1);
    ck_assert(tc_proc_x(p)[0] != TC_NON_VALUE);
    ck_assert_uint_eq(tc_proc_frag_size(p), 0);      /* not mbuf_sz */
    ck_assert_uint_eq(tc_proc_young_use(p), young + 3); /* but young data */
    verify(p);
    /* no GC at a schedule-in while the flag is set; then remove_message clears it */
    ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
    ck_assert_uint_eq(s.gcs, 0);
    tc_proc_set_delay_gc(p, false);
    ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
    ck_assert_uint_eq(s.gcs, 1);
    ck_assert_uint_eq(s.stack[0], 3);
    ck_assert(tc_is_tuple(tc_proc_x(p)[0]));
    verify(p);
    /* not inside a receive: the same test collects at once */
    fill(p, 0, 2);
    ck_assert(tc_proc_test_heap_maybe_gc(p, 3) == TC_OK);
    ck_assert_uint_eq(s.gcs, 2);
    /* R10B has no such flag, nor OTP 25 with receive_delays_gc=off */
    static const char *const eras[] = {"r10b", "otp25"};
    static const char *const sets[] = {NULL, "receive_delays_gc=off"};
    for (int k = 0; k < 2; k++) {
        tc_proc *r = proc_set(eras[k], sets[k]);
        seen rs = {0};
        tc_proc_set_trace(r, on_gc, &rs);
        fill(r, 3, 2);
        tc_proc_set_delay_gc(r, true);
        ck_assert(tc_proc_test_heap_maybe_gc(r, 3) == TC_OK);
        ck_assert_uint_eq(rs.gcs, 1);
    }
}
END_TEST

START_TEST(test_long_gc_at_heap_test_delayed)
{
    /* OTP 25: a heap test whose GC would be long (young generation + stack with the glue's
     * return address >= long_gc_words) collects nothing: the process moves onto a fragment of
     * stack + 1 + need + 40 + reserved words, outside mbuf_sz, F_FORCE_GC and a yield are
     * asked for, and the GC, a dirty one, runs at the schedule-in with the registers and the
     * stack the process has there. With long_gc_words=0 the same test collects at once. */
    static const char *const sets[] = {NULL, "long_gc_words=0"};
    for (int k = 0; k < 2; k++) {
        tc_proc *p = proc_set("otp25", sets[k]);
        seen s = {0};
        tc_proc_set_trace(p, on_gc, &s);
        tc_term *garbage = tc_proc_halloc(p, 140000); /* in a fragment: young words */
        ck_assert(garbage != NULL);
        for (size_t i = 0; i < 140000; i++)
            garbage[i] = TC_NIL;
        fill(p, 3, 2);
        uint64_t frags = tc_proc_frag_size(p);
        ck_assert(tc_proc_test_heap_maybe_gc(p, 8) == TC_OK);
        if (k == 1) {
            ck_assert_uint_eq(s.gcs, 1);
            ck_assert(!tc_proc_dirty_gc_pending(p));
            continue;
        }
        ck_assert_uint_eq(s.gcs, 0);
        ck_assert(tc_proc_yield_requested(p));
        ck_assert(tc_proc_dirty_gc_pending(p));
        ck_assert_uint_eq(tc_proc_heap_room(p), 1 + 8 + 40 + p->policy.reserved);
        ck_assert_uint_eq(tc_proc_frag_size(p), frags);
        tc_term e[2] = {tc_make_small(1), tc_make_small(2)};
        tc_proc_x(p)[0] = tc_term_tuple(tc_proc_alloc(p), e, 2);
        tc_proc_set_arity(p, 1);
        ck_assert(tc_proc_x(p)[0] != TC_NON_VALUE);
        ck_assert_uint_eq(tc_proc_heap_room(p), 1 + 5 + 40 + p->policy.reserved);
        tc_proc_pop(p, 2); /* deallocate and return: the yield is two words up */
        verify(p);
        ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
        ck_assert_uint_eq(s.gcs, 1);
        ck_assert_uint_eq(s.stack[0], 1);
        ck_assert_uint_eq(tc_proc_stats_get(p)->long_gcs, 1);
        ck_assert(!tc_proc_dirty_gc_pending(p));
        ck_assert(tc_is_tuple(tc_proc_x(p)[0]));
        verify(p);
    }
}
END_TEST

START_TEST(test_spawn_heap)
{
    /* erl_create_process: next_heap_size(args + S_RESERVED), min_heap_size when smaller. */
    tc_policy pol;
    ck_assert(tc_policy_preset("otp25", &pol) == TC_OK);
    ck_assert((mem = tc_mseg_new(&pol.mem)) != NULL);
    tc_proc *p;
    ck_assert(tc_proc_spawn(mem, &pol, 2008, &p) == TC_OK);
    ck_assert_uint_eq(tc_proc_heap_size(p), 2586);
    ck_assert_uint_eq(tc_proc_min_heap_size(p), 233);
    tc_proc_free(p);
    ck_assert(tc_proc_spawn(mem, &pol, 13, &p) == TC_OK);
    ck_assert_uint_eq(tc_proc_heap_size(p), 233);
    tc_proc_free(p);
    ck_assert(tc_proc_spawn(mem, &pol, 229, &p) == TC_OK); /* 229 + 4 = 233 */
    ck_assert_uint_eq(tc_proc_heap_size(p), 233);
    tc_proc_free(p);
    ck_assert(tc_proc_spawn(mem, &pol, 230, &p) == TC_OK);
    ck_assert_uint_eq(tc_proc_heap_size(p), 376);
    tc_proc_free(p);
}
END_TEST

START_TEST(test_send_reductions)
{
    /* erl_send's ERTS_VBUMP_REDS(4) per local send (modern path only). */
    tc_proc *a = proc_for("otp25"), *b = proc_for("otp25");
    (void)tc_proc_take_reds(a);
    ck_assert(tc_send(a, b, tc_make_small(7), false, NULL) == TC_OK);
    ck_assert_int_eq(tc_proc_take_reds(a), TC_SEND_REDS);
    tc_proc *c = proc_for("r10b"), *d = proc_for("r10b");
    (void)tc_proc_take_reds(c);
    ck_assert(tc_send(c, d, tc_make_small(7), false, NULL) == TC_OK);
    ck_assert_int_eq(tc_proc_take_reds(c), 0);
}
END_TEST

START_TEST(test_guard_bif_fragment)
{
    /* A guard BIF's HAlloc goes to a fragment even with room on the heap. */
    tc_proc *p = proc_for("otp25");
    uint64_t used = tc_proc_heap_used(p);
    ck_assert(tc_proc_halloc_frag(p, 2) != NULL);
    ck_assert_uint_eq(tc_proc_heap_used(p), used);
    ck_assert_uint_eq(tc_proc_frag_size(p), 2);
    ck_assert(tc_proc_halloc(p, 2) != NULL);
    ck_assert_uint_eq(tc_proc_heap_used(p), used + 2);
}
END_TEST

/* One step: records whether its peer counts as running, then finishes. */
typedef struct peer_state {
    tc_task *peer;
    bool peer_running, self_running;
} peer_state;

static tc_step peek_step(tc_task *t)
{
    peer_state *st = t->state;
    st->peer_running = tc_sched_is_running(st->peer);
    st->self_running = tc_sched_is_running(t);
    return TC_STEP_DONE;
}

static tc_step empty_receive(tc_task *t)
{
    tc_term m;
    return tc_sched_loop_rec(t, &m) ? TC_STEP_DONE : TC_STEP_WAIT;
}

START_TEST(test_sched_running)
{
    /* Only the task whose step runs is running (a sender finds everyone else's lock free);
     * a loop_rec that finds nothing leaves F_DELAY_GC clear (it goes to wait). */
    tc_proc *a = proc_for("otp25"), *b = proc_for("otp25");
    tc_sched s;
    tc_sched_init(&s);
    tc_task ta, tb;
    peer_state st = {&tb, true, false};
    tc_sched_spawn(&s, &tb, b, empty_receive, NULL);
    tc_sched_spawn(&s, &ta, a, peek_step, &st);
    ck_assert(tc_sched_run(&s) == TC_OK);
    ck_assert(!st.peer_running && st.self_running);
    ck_assert(tb.status == TC_TASK_WAITING);
    ck_assert(!(b->flags & TC_PROC_DELAY_GC));
    /* spawned running: no schedule-in, the given reductions */
    tc_task tc;
    tc_sched_spawn_running(&s, &tc, a, peek_step, &st, 7);
    ck_assert(tc_sched_run(&s) == TC_OK);
    ck_assert_int_eq(tc.reds_left, 6);
    ck_assert_uint_eq(s.stats.switches, 2);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("heaps_jit");
    TCase *tc = tcase_create("jit");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test_gc_call_word);
    tcase_add_test(tc, test_bif_room);
    tcase_add_test(tc, test_delay_gc_in_receive);
    tcase_add_test(tc, test_long_gc_at_heap_test_delayed);
    tcase_add_test(tc, test_spawn_heap);
    tcase_add_test(tc, test_send_reductions);
    tcase_add_test(tc, test_guard_bif_fragment);
    tcase_add_test(tc, test_sched_running);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
