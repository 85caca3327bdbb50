/* The modelled scheduler: real switches between processes, and each era's reduction rules. */
#include <string.h>

#include "heaps/proc_impl.h"
#include "fixtures.h"
#include "heaps/send.h"
#include "heaps/gc.h"
#include "heaps/sched.h"
#include "heaps/verify.h"

static tc_mseg *mem;

static tc_proc *new_proc(const char *era)
{
    tc_policy pol;
    ck_assert(tc_policy_preset(era, &pol) == TC_OK);
    if (!mem)
        mem = tc_mseg_new(&pol.mem);
    tc_proc *p;
    ck_assert(tc_proc_new(mem, &pol, &p) == TC_OK);
    return p;
}

static void teardown(void)
{
    tc_mseg_free(mem);
    mem = NULL;
}

/* Ping-pong: the pinger sends 1..limit and waits for each number back; the echo returns
 * whatever it receives. */
typedef struct pp_state {
    tc_task *peer;
    long next, limit;
    bool awaiting;
} pp_state;

static tc_step ping_step(tc_task *t)
{
    pp_state *st = t->state;
    tc_term m;
    if (st->awaiting) {
        if (!tc_sched_receive(t, &m))
            return TC_STEP_WAIT;
        ck_assert_int_eq(tc_small_val(m), st->next);
        st->awaiting = false;
        if (st->next++ == st->limit)
            return TC_STEP_DONE;
    }
    ck_assert(tc_fixture_send(t->proc, st->peer->proc, tc_make_small(st->next), TC_SEND_HEAP_OR_FRAG, false, NULL) == TC_OK);
    tc_sched_wake(st->peer);
    st->awaiting = true;
    return TC_STEP_CONTINUE;
}

static tc_step echo_step(tc_task *t)
{
    pp_state *st = t->state;
    tc_term m;
    if (!tc_sched_receive(t, &m))
        return TC_STEP_WAIT;
    ck_assert(tc_fixture_send(t->proc, st->peer->proc, m, TC_SEND_HEAP_OR_FRAG, false, NULL) == TC_OK);
    tc_sched_wake(st->peer);
    return ++st->next == st->limit ? TC_STEP_DONE : TC_STEP_CONTINUE;
}

START_TEST(test_ping_pong_switches)
{
    tc_proc *a = new_proc("otp25"), *b = new_proc("otp25");
    tc_sched s;
    tc_sched_init(&s);
    tc_task ta, tb;
    pp_state sa = {&tb, 1, 100, false}, sb = {&ta, 0, 100, false};
    tc_sched_spawn(&s, &ta, a, ping_step, &sa);
    tc_sched_spawn(&s, &tb, b, echo_step, &sb);
    ck_assert(tc_sched_run(&s) == TC_OK);
    ck_assert_int_eq(sa.next, 101);
    ck_assert_int_eq(sb.next, 100);
    /* Each send wakes the peer and each receive on an empty queue waits: two switches per
     * round trip, plus the echo's first slice (it starts by waiting). */
    ck_assert_uint_eq(s.stats.switches, 201);
    ck_assert_uint_eq(s.stats.io_polls, 0);
    tc_proc_free(a);
    tc_proc_free(b);
    teardown();
}
END_TEST

/* R10B: a step whose HAlloc makes a fragment forces a yield with the whole slice charged;
 * every charge past INPUT_REDUCTIONS polls I/O; the GC runs when the process comes back. */
typedef struct frag_state {
    int left;
} frag_state;

static tc_step frag_step(tc_task *t)
{
    frag_state *st = t->state;
    if (st->left == 0)
        return TC_STEP_DONE;
    st->left--;
    /* A result far bigger than the heap: a fragment, dropped at once. */
    ck_assert(tc_proc_halloc(t->proc, 5000) != NULL);
    return TC_STEP_CONTINUE;
}

/* OTP25: a step is one ets:lookup of a 20,005-word result, dropped. With no stack the
 * first GCs fall as in check_heaps_sizes' otp25_ets_loop_vm: the 14th lookup's GC
 * (young 60015 + 140035 >= 128 Ki words) is delayed, which ends the slice at once; the
 * schedule-in collects, and the 15th lookup fits the new 28690-word heap. */
static tc_step lookup_step(tc_task *t)
{
    frag_state *st = t->state;
    if (st->left == 0)
        return TC_STEP_DONE;
    st->left--;
    tc_heapfrag *live = tc_proc_bif_enter(t->proc);
    tc_term *hp = tc_proc_halloc(t->proc, 20005); /* [{1, [9999, ..., 0]}] */
    ck_assert(hp != NULL);
    tc_term list = tc_int_list_at(hp, 10000);
    hp[20000] = TC_MAKE_HEADER(2, TC_SUBTAG_ARITYVAL);
    hp[20001] = tc_make_small(1);
    hp[20002] = list;
    hp[20003] = tc_make_boxed(&hp[20000]);
    hp[20004] = TC_NIL;
    tc_term res = tc_make_list(&hp[20003]);
    ck_assert(tc_proc_bif_return_maybe_gc(t->proc, live, &res) == TC_OK);
    return TC_STEP_CONTINUE;
}

START_TEST(test_otp25_delayed_gc_yields)
{
    tc_proc *p = new_proc("otp25");
    tc_sched s;
    tc_sched_init(&s);
    tc_task t;
    frag_state st = {15};
    tc_sched_spawn(&s, &t, p, lookup_step, &st);
    ck_assert(tc_sched_run(&s) == TC_OK);
    ck_assert_uint_eq(p->stats.gcs_after_bif, 2); /* lookups 1 and 5 */
    ck_assert_uint_eq(p->stats.gcs_delayed, 1);
    ck_assert_uint_eq(s.stats.forced_yields, 1);
    ck_assert_uint_eq(p->stats.gcs_at_schedule, 1);
    /* the delayed one is the one GC the VM runs on a dirty CPU scheduler (the time account's) */
    ck_assert_uint_eq(p->stats.long_gcs, 1);
    ck_assert_uint_eq(p->heap_sz, 28690);
    ck_assert_uint_eq(p->htop - p->heap, 20005);
    tc_proc_free(p);
    teardown();
}
END_TEST

/* A GC of 128 Ki words of young generation or more that is not delayed (a heap test's, as a
 * round trip's receive takes) is counted as the VM's dirty one too, and its new heap is the
 * dirty scheduler's instance's, as the VM's dirty scheduler allocates it; one below it is
 * neither, and the scheduler's instance stays the current one. */
START_TEST(test_otp25_long_gc_counted_in_place)
{
    tc_proc *p = new_proc("otp25");
    unsigned sched = tc_mseg_instance_get(mem);
    ck_assert_uint_ne(sched, TC_MSEG_DIRTY_INSTANCE);
    for (uint64_t words = 128 * 1024 - 4096; words <= 128 * 1024; words += 4096) {
        tc_proc_stats before = *tc_proc_stats_get(p);
        ck_assert(tc_proc_test_heap_maybe_gc(p, words) == TC_OK);
        ck_assert(tc_proc_halloc(p, (size_t)words) != NULL); /* garbage: nothing refers to it */
        ck_assert(tc_gc_collect(p, 0, NULL, 0) == TC_OK);
        bool long_gc = words >= 128 * 1024;
        ck_assert_uint_eq(tc_proc_stats_get(p)->long_gcs - before.long_gcs, long_gc ? 1 : 0);
        ck_assert_uint_eq(tc_mseg_block_instance(mem, p->heap), long_gc ? TC_MSEG_DIRTY_INSTANCE : sched);
        ck_assert_uint_eq(tc_mseg_instance_get(mem), sched);
    }
    tc_proc_free(p);
    teardown();
}
END_TEST

/* An OTP25 process whose next GC passes check_for_possibly_long_gc as a minor, finds the old
 * heap short of room and is long as a major (erl_gc.c garbage_collect: minor_collection
 * returns -1, F_NEED_FULLSWEEP, the check again as a major, delay_gc_after_start): two live
 * lists of 72 Ki words in x0 and x1, the first promoted to an old heap that fits it, the
 * second mature in the young heap. Each generation is short of 128 Ki words; both are not. */
static const size_t two_gen_n = 36 * 1024;

static tc_proc *two_long_generations(void)
{
    tc_proc *p = new_proc("otp25");
    unsigned sched = tc_mseg_instance_get(mem);
    p->arity = 2;
    p->x[0] = p->x[1] = TC_NIL;
    for (int k = 0; k < 2; k++) {
        tc_term *hp = tc_proc_halloc(p, 2 * two_gen_n);
        ck_assert(hp != NULL);
        p->x[k] = tc_int_list_at(hp, two_gen_n);
        for (int g = 0; g < 2 - k; g++) /* copied below the high-water mark, then promoted */
            ck_assert(tc_gc_collect(p, 0, p->x, p->arity) == TC_OK);
    }
    ck_assert_uint_eq(tc_proc_old_heap_used(p), 2 * two_gen_n);
    ck_assert_uint_eq((uint64_t)(p->htop - p->heap), 2 * two_gen_n);
    ck_assert_uint_eq(p->stats.long_gcs, 0);
    ck_assert_uint_eq(tc_mseg_block_instance(mem, p->heap), sched);
    return p;
}

/* The VM runs that GC on a dirty scheduler; the model, in place, takes its heap from the
 * dirty instance too. */
START_TEST(test_otp25_minor_turned_major_is_dirty)
{
    tc_proc *p = two_long_generations();
    unsigned sched = tc_mseg_instance_get(mem);
    ck_assert(tc_gc_collect(p, 0, p->x, p->arity) == TC_OK);
    ck_assert_uint_eq(p->stats.long_gcs, 1);
    ck_assert_uint_eq(tc_mseg_block_instance(mem, p->heap), TC_MSEG_DIRTY_INSTANCE);
    ck_assert_uint_eq(tc_mseg_instance_get(mem), sched);
    ck_assert_uint_eq(tc_proc_old_heap_used(p), 0); /* a major */
    ck_assert_uint_eq((uint64_t)(p->htop - p->heap), 4 * two_gen_n);
    tc_proc_free(p);
    teardown();
}
END_TEST

/* OTP25: a schedule-in whose GC is long is not a schedule-in (erl_process.c erts_schedule:
 * scheduler_gc_proc finds check_for_possibly_long_gc sending the GC to a dirty CPU
 * scheduler, then sched_out_proc): the task queued behind runs first, and the GC runs, as the
 * dirty one, when the process comes back; so does one whose minor turns into a long major
 * (delay_gc_after_start). A short one runs in place, first. */
typedef struct order_state {
    char *log;
    char name;
} order_state;

static tc_step log_step(tc_task *t)
{
    order_state *st = t->state;
    size_t n = strlen(st->log);
    st->log[n] = st->name;
    st->log[n + 1] = '\0';
    return TC_STEP_DONE;
}

START_TEST(test_otp25_long_schedule_in_gc_goes_last)
{
    static const struct {
        size_t garbage;
        const char *order;
        bool turns_major; /* two_long_generations' state: its minor turns into a long major */
    } cases[] = {{128 * 1024, "BA", false}, {128 * 1024 - 4096, "AB", false}, {4096, "BA", true}};
    for (int k = 0; k < 3; k++) {
        tc_proc *a = cases[k].turns_major ? two_long_generations() : new_proc("otp25"), *b = new_proc("otp25");
        ck_assert(tc_proc_halloc(a, cases[k].garbage) != NULL); /* a fragment the heap cannot take */
        ck_assert(tc_proc_gc_desired(a));
        char log[4] = "";
        order_state sa = {log, 'A'}, sb = {log, 'B'};
        tc_sched s;
        tc_sched_init(&s);
        tc_task ta, tb;
        tc_sched_spawn(&s, &ta, a, log_step, &sa);
        tc_sched_spawn(&s, &tb, b, log_step, &sb);
        ck_assert(tc_sched_run(&s) == TC_OK);
        ck_assert_str_eq(log, cases[k].order);
        ck_assert_uint_eq(a->stats.gcs_at_schedule, 1);
        ck_assert_uint_eq(a->stats.gcs_delayed, k != 1 ? 1 : 0);
        ck_assert_uint_eq(a->stats.long_gcs, k != 1 ? 1 : 0);
        if (cases[k].turns_major)
            ck_assert_uint_eq(tc_proc_old_heap_used(a), 0);
        ck_assert_uint_eq(a->mbuf_sz, 0);
        tc_proc_free(a);
        tc_proc_free(b);
        teardown();
    }
}
END_TEST

START_TEST(test_r10b_forced_yields_and_polls)
{
    tc_proc *p = new_proc("r10b");
    tc_sched s;
    tc_sched_init(&s);
    tc_task t;
    frag_state st = {6};
    tc_sched_spawn(&s, &t, p, frag_step, &st);
    ck_assert(tc_sched_run(&s) == TC_OK);
    /* Six fragments, six slices ended by BUMP_ALL_REDS (6 x 1000 reductions charged): a poll
     * after the 3rd slice (3000 > 2000) and after the 6th. */
    ck_assert_uint_eq(s.stats.forced_yields, 6);
    ck_assert_uint_eq(s.stats.io_polls, 2);
    /* The yields' schedule-ins collected the dead fragments: 6 GCs, nothing copied from
     * them (the live set is empty). */
    ck_assert_uint_eq(p->stats.gcs_at_schedule, 6);
    ck_assert_ptr_null(p->mbuf);
    const char *why;
    ck_assert_msg(tc_heap_verify(p, &why), "%s", why);
    tc_proc_free(p);
    teardown();
}
END_TEST

/* OTP 25: receiving a message that leaves a GC desired cuts the slice to 5 reductions; the
 * GC then runs at the next schedule-in, when the message is garbage. */
typedef struct recv_state {
    int phase;
    uint64_t words_copied_at_receive;
} recv_state;

static tc_step recv_step(tc_task *t)
{
    recv_state *st = t->state;
    if (st->phase == 0) {
        tc_term m;
        if (!tc_sched_receive(t, &m))
            return TC_STEP_WAIT;
        ck_assert_int_le(t->reds_left, tc_proc_policy(t->proc)->receive_gc_reds);
        st->words_copied_at_receive = t->proc->stats.words_copied;
        st->phase = 1;
        return TC_STEP_CONTINUE; /* the message is dropped here */
    }
    if (st->phase < 20) {
        st->phase++;
        return TC_STEP_CONTINUE;
    }
    return TC_STEP_DONE;
}

START_TEST(test_modern_receive_cuts_reductions)
{
    tc_proc *sender = new_proc("otp25"), *p = new_proc("otp25");
    /* A 20,000-word message: it cannot go on the 233-word heap, so it arrives in a fragment. */
    tc_term l = TC_NIL;
    tc_arena *arena = tc_arena_new(0);
    for (int i = 0; i < 10000; i++)
        l = tc_term_cons(tc_arena_alloc(arena), tc_make_small(i), l);
    tc_sched s;
    tc_sched_init(&s);
    tc_task t;
    recv_state st = {0, 0};
    tc_sched_spawn(&s, &t, p, recv_step, &st);
    ck_assert(tc_sched_run(&s) == TC_OK); /* waits */
    ck_assert(tc_fixture_send(sender, p, l, TC_SEND_HEAP_OR_FRAG, false, NULL) == TC_OK);
    tc_sched_wake(&t);
    ck_assert(tc_sched_run(&s) == TC_OK);
    ck_assert_uint_eq(s.stats.reds_cut, 1);
    ck_assert_int_eq(st.phase, 20);
    /* Collected once, at a schedule-in after the cut, with the message dead: only the
     * stack (nothing) was copied. */
    ck_assert_uint_eq(p->stats.gcs_at_schedule, 1);
    ck_assert_uint_eq(p->stats.words_copied, st.words_copied_at_receive);
    ck_assert_uint_eq(p->mbuf_sz, 0);
    tc_proc_free(sender);
    tc_proc_free(p);
    tc_arena_free(arena);
    teardown();
}
END_TEST

/* A step that makes 1000 calls (tc_sched_bump 999). OTP 25's slice of 4000 runs 4 of them
 * (the 5th would need 2 left), R10B-2's of 1000 one: 8 steps and the finishing one take 3
 * slices under OTP 25 and 9 under R10B. */
static tc_step thousand_step(tc_task *t)
{
    frag_state *st = t->state;
    if (st->left == 0)
        return TC_STEP_DONE;
    st->left--;
    tc_sched_bump(t, 999);
    return TC_STEP_CONTINUE;
}

START_TEST(test_context_reds_per_era)
{
    const char *eras[2] = {"otp25", "r10b"};
    uint64_t want[2] = {3, 9};
    for (int e = 0; e < 2; e++) {
        tc_proc *p = new_proc(eras[e]);
        tc_sched s;
        tc_sched_init(&s);
        tc_task t;
        frag_state st = {8};
        tc_sched_spawn(&s, &t, p, thousand_step, &st);
        ck_assert(tc_sched_run(&s) == TC_OK);
        ck_assert_uint_eq(s.stats.switches, want[e]);
        ck_assert_int_eq(tc_proc_policy(p)->context_reds, e == 0 ? 4000 : 1000);
        tc_proc_free(p);
        teardown();
    }
}
END_TEST

/* The GC's cost in reductions: OTP 25 gc_cost, live / 10 and at least 1; R10B live / 10. */
START_TEST(test_gc_cost_reds)
{
    const char *eras[2] = {"otp25", "r10b"};
    for (int e = 0; e < 2; e++) {
        for (size_t cells = 2; cells <= 50; cells += 48) {
            tc_proc *p = new_proc(eras[e]);
            tc_term *hp = tc_proc_halloc(p, 2 * cells);
            ck_assert(hp != NULL);
            p->x[0] = tc_int_list_at(hp, cells);
            p->arity = 1;
            ck_assert_int_eq(tc_proc_take_reds(p), 0);
            ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK);
            int64_t want = cells == 50 ? 10 : e == 0 ? 1 : 0;
            ck_assert_int_eq(tc_proc_take_reds(p), want);
            ck_assert_int_eq(tc_proc_take_reds(p), 0); /* taken once */
            tc_proc_free(p);
            teardown();
        }
    }
}
END_TEST

/* erts_send_message: an OTP 25 sender pays msize / 64 reductions above 64 words, and erl_send
 * 4 more for every send (send.h TC_SEND_REDS); R10B's send_message charged nothing, nor does
 * the model's R13B01 with its SMP emulator's placement (send_reds is a field of its own). */
START_TEST(test_send_charge_reds)
{
    const char *eras[3] = {"otp25", "r10b", "r13b"};
    tc_arena *arena = tc_arena_new(0);
    tc_term big = TC_NIL, small = TC_NIL;
    for (int i = 0; i < 1000; i++)
        big = tc_term_cons(tc_arena_alloc(arena), tc_make_small(i), big);
    for (int i = 0; i < 32; i++)
        small = tc_term_cons(tc_arena_alloc(arena), tc_make_small(i), small);
    for (int e = 0; e < 3; e++) {
        tc_proc *from = new_proc(eras[e]), *to = new_proc(eras[e]);
        if (e == 2)
            from->policy.send_path = TC_SEND_HEAP_OR_FRAG;
        ck_assert(tc_send(from, to, small, false, NULL) == TC_OK);
        ck_assert_int_eq(tc_proc_take_reds(from), e == 0 ? TC_SEND_REDS : 0); /* 64 words: not over */
        ck_assert(tc_send(from, to, big, false, NULL) == TC_OK);
        ck_assert_int_eq(tc_proc_take_reds(from), e == 0 ? 2000 / 64 + TC_SEND_REDS : 0);
        tc_proc_free(from);
        tc_proc_free(to);
        teardown();
    }
    tc_arena_free(arena);
}
END_TEST

/* Steps of one call each plus `bump` more; at the first step of every slice after the first
 * it records the reductions the step starts with. */
typedef struct entry_state {
    int left, slices;
    int64_t bump, first[8];
    tc_sched *s;
    uint64_t switches;
} entry_state;

static tc_step entry_step(tc_task *t)
{
    entry_state *st = t->state;
    if (st->s->stats.switches != st->switches) {
        st->switches = st->s->stats.switches;
        if (st->slices < 8)
            st->first[st->slices] = t->reds_left;
        st->slices++;
    }
    if (st->left == 0)
        return TC_STEP_DONE;
    st->left--;
    tc_sched_bump(t, st->bump);
    return TC_STEP_CONTINUE;
}

/*
 * A slice that runs out at a step's entry: the OTP 25 JIT's i_test_yield decrements first and
 * then yields (instr_common.cpp emit_i_test_yield: `dec FCALLS; jle`), and i_test_yield_shared
 * resumes after the test, so that entry's reduction was the old slice's and the next slice
 * starts past it: its first step has 4001 to start from (4000 after the entry). R10B-2 tests
 * before it decrements (beam_emu.c DispatchMacro): the entry is paid at the resume. Steps of
 * 1 + 999: the first slice runs 4 (3999 ... 3 left, too few for the next entry).
 */
START_TEST(test_entry_yield_resumes_past_the_entry)
{
    const char *eras[2] = {"otp25", "r10b"};
    int64_t want[2] = {4001, 1000};
    for (int e = 0; e < 2; e++) {
        for (int entries = 0; entries < 2; entries++) {
            tc_proc *p = new_proc(eras[e]);
            tc_sched s;
            tc_sched_init(&s);
            tc_task t;
            entry_state st = {.left = 8, .bump = 999, .s = &s};
            tc_sched_spawn(&s, &t, p, entry_step, &st);
            if (entries)
                tc_sched_entry_steps(&t);
            ck_assert(tc_sched_run(&s) == TC_OK);
            ck_assert_int_ge(st.slices, 2);
            ck_assert_int_eq(st.first[0], tc_proc_policy(p)->context_reds);
            ck_assert_int_eq(st.first[1], (entries ? want[e] : tc_proc_policy(p)->context_reds));
            tc_proc_free(p);
            teardown();
        }
    }
}
END_TEST

/* A first step that leaves a 20,000-cell list live in fragments (so its schedule-in GC keeps
 * 40,000 words: gc_cost 4000, the whole slice) and yields, or runs its slice out at the next
 * entry; a second that records what its slice starts with. */
typedef struct spent_state {
    int step;
    bool yield;
    int64_t second;
} spent_state;

static tc_step spent_step(tc_task *t)
{
    spent_state *st = t->state;
    if (st->step++ == 1) {
        st->second = t->reds_left;
        return TC_STEP_DONE;
    }
    tc_term *hp = tc_proc_halloc(t->proc, 40000);
    ck_assert(hp != NULL);
    t->proc->x[0] = tc_int_list_at(hp, 20000);
    t->proc->arity = 1;
    if (st->yield)
        return TC_STEP_YIELD;
    tc_sched_bump(t, tc_proc_policy(t->proc)->context_reds - 2); /* 1 left: out at the next entry */
    return TC_STEP_CONTINUE;
}

/*
 * A schedule-in GC that costs the whole slice: erl_process.c schedule caps its cost
 * (scheduler_gc_proc) at the reductions left and `reds <= 0` goes to sched_out_proc, so the
 * process does not run in that slice and resumes where it stopped in the next: past the entry
 * when its last slice ended at one (4001 to start from), at a fresh slice when it had yielded
 * (4000).
 */
START_TEST(test_gc_costing_the_slice_runs_nothing)
{
    for (int yield = 0; yield < 2; yield++) {
        tc_proc *p = new_proc("otp25");
        tc_sched s;
        tc_sched_init(&s);
        tc_task t;
        spent_state st = {.yield = yield};
        tc_sched_spawn(&s, &t, p, spent_step, &st);
        tc_sched_entry_steps(&t);
        ck_assert(tc_sched_run(&s) == TC_OK);
        ck_assert_uint_eq(p->stats.gcs_at_schedule, 1);
        ck_assert_uint_eq(s.stats.switches, 3); /* the first slice, the GC's, the second step's */
        ck_assert_int_eq(st.second, yield ? 4000 : 4001);
        tc_proc_free(p);
        teardown();
    }
}
END_TEST

/* A receiver woken by a small message (no GC desired, so no cut) and what its slice has left
 * right after the receive: OTP 25's loop_rec pays erts_proc_sig_receive_helper's fetch, 4,
 * and with its receives traced one more (erts_proc_sig_handle_incoming moves the message from
 * the middle queue); R10B-2's loop_rec nothing. */
typedef struct fetch_state {
    int64_t after;
} fetch_state;

static tc_step fetch_step(tc_task *t)
{
    fetch_state *st = t->state;
    tc_term m;
    if (!tc_sched_receive(t, &m))
        return TC_STEP_WAIT;
    st->after = t->reds_left;
    return TC_STEP_DONE;
}

START_TEST(test_receive_pays_the_fetch)
{
    const char *eras[2] = {"otp25", "r10b"};
    for (int e = 0; e < 2; e++) {
        for (int traced = 0; traced < 2; traced++) {
            tc_proc *sender = new_proc(eras[e]), *p = new_proc(eras[e]);
            tc_proc_set_trace_receive(p, traced);
            tc_sched s;
            tc_sched_init(&s);
            tc_task t;
            fetch_state st = {0};
            tc_sched_spawn(&s, &t, p, fetch_step, &st);
            ck_assert(tc_sched_run(&s) == TC_OK); /* waits */
            ck_assert(tc_fixture_send(sender, p, tc_make_small(7), TC_SEND_HEAP_OR_FRAG, false, NULL) == TC_OK);
            tc_sched_wake(&t);
            ck_assert(tc_sched_run(&s) == TC_OK);
            int64_t ctx = tc_proc_policy(p)->context_reds;
            ck_assert_int_eq(st.after, (e == 0 ? ctx - 4 - traced : ctx));
            tc_proc_free(sender);
            tc_proc_free(p);
            teardown();
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("heaps_sched");
    TCase *tc = tcase_create("sched");
    tcase_add_test(tc, test_ping_pong_switches);
    tcase_add_test(tc, test_r10b_forced_yields_and_polls);
    tcase_add_test(tc, test_otp25_delayed_gc_yields);
    tcase_add_test(tc, test_otp25_long_gc_counted_in_place);
    tcase_add_test(tc, test_otp25_minor_turned_major_is_dirty);
    tcase_add_test(tc, test_otp25_long_schedule_in_gc_goes_last);
    tcase_add_test(tc, test_modern_receive_cuts_reductions);
    tcase_add_test(tc, test_context_reds_per_era);
    tcase_add_test(tc, test_gc_cost_reds);
    tcase_add_test(tc, test_send_charge_reds);
    tcase_add_test(tc, test_entry_yield_resumes_past_the_entry);
    tcase_add_test(tc, test_gc_costing_the_slice_runs_nothing);
    tcase_add_test(tc, test_receive_pays_the_fetch);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
