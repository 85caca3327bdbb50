/*
 * check_scenarios_workload — the eptest workload (scenarios/workload.h) moves the words
 * its passes say: a round trip copies the payload once per reply, a lookup copies the stored
 * object out once, a persistent_term:get copies and collects nothing. Each pass's counters
 * are read when a mark reaches the meter (eptest.erl's), so they also hold two marks' 3-word
 * messages: the opening mark's reply and the closing mark's request.
 */
enum { MARK_WORDS = 2 * 3 };
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "scenarios/workload.h"
#include "terms/arena.h"
#include "terms/term.h"
#include "workload_fixture.h"

/* The era's eptest at one shape, length and number of calls per pass. */
static void run(tc_ep_shape shape, long len, long n, tc_ep_counts c[TC_EP_TESTS])
{
    tc_ep_config cfg = ep_config("otp25", shape, len, n);
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
}

START_TEST(pt_get_copies_and_collects_nothing)
{
    tc_ep_counts c[TC_EP_TESTS];
    run(TC_EP_INTS, 1000, 200, c); /* lists:seq(1, L): 2L words */
    ck_assert_str_eq(tc_ep_test_names[TC_EP_PT_GET], "pt_get");
    ck_assert_uint_eq(c[TC_EP_PT_GET].words_copied, MARK_WORDS);
    ck_assert_uint_eq(c[TC_EP_PT_GET].words_sized, MARK_WORDS);
    ck_assert_uint_eq(c[TC_EP_PT_GET].gcs, 0);
    ck_assert_uint_eq(c[TC_EP_PT_GET].fragments, 0);
}
END_TEST

START_TEST(lookup_copies_each_object_out_once)
{
    tc_ep_counts c[TC_EP_TESTS];
    run(TC_EP_INTS, 1000, 200, c);
    /* [{I, Data}]: Data's 2000 words, the 3-word tuple and the 2-word cons, per lookup */
    ck_assert_uint_eq(c[TC_EP_LOOKUP].words_copied, 200 * (2000 + 3 + 2) + MARK_WORDS);
    /* each reply {S, Data} copied once into the client: Data and the 3-word tuple */
    ck_assert_uint_eq((c[TC_EP_PROC2].words_copied - MARK_WORDS) % 200, 0);
    ck_assert_uint_ge(c[TC_EP_PROC2].words_copied, 200 * (2000 + 3));
}
END_TEST

/* The policy table's ets_compressed makes the workload's table [set, compressed]: each
 * object {I, Data} takes fewer bytes there (Data encoded, not copied), and each lookup still
 * writes the whole object and its cons, decoded. */
START_TEST(ets_compressed_from_the_policy_table)
{
    tc_ep_config cfg;
    ck_assert_int_eq(tc_ep_config_for_era("otp25", &cfg), TC_OK);
    cfg.shape = TC_EP_INTS;
    cfg.len = 1000;
    cfg.iterations = 200;
    ck_assert(!cfg.policy.ets_compressed);
    uint64_t plain, compressed, have;
    bool fits;
    ck_assert_int_eq(tc_ep_estimate_memory(&cfg, &plain, &have, &fits), TC_OK);
    char err[256];
    ck_assert_int_eq(tc_policy_set(&cfg.policy, "ets_compressed=on", err, sizeof err), TC_OK);
    ck_assert_int_eq(tc_ep_estimate_memory(&cfg, &compressed, &have, &fits), TC_OK);
    ck_assert_uint_lt(compressed, plain);
    tc_ep_counts c[TC_EP_TESTS];
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    ck_assert_uint_eq(c[TC_EP_LOOKUP].words_copied, 200 * (2000 + 3 + 2) + MARK_WORDS); /* and the two marks */
}
END_TEST

/* The workload's own switches, by name as the ablations set them; keep_result keeps each
 * lookup's result live across the next lookup's GC, so under R10B rules (a GC at the next
 * schedule, which finds a dropped result dead) every GC copies a result ({I, Data} in a
 * list: 2000 + 3 + 2 words), where the dropped ones copy the frames only, not one result. */
START_TEST(switches_by_name)
{
    ck_assert_ptr_null(tc_ep_switch_find("shrink")); /* a policy field, not the workload's */
    ck_assert_ptr_null(tc_ep_switch_find(NULL));
    tc_ep_config cfg;
    ck_assert_int_eq(tc_ep_config_for_era("r10b", &cfg), TC_OK);
    for (int k = 0; k < TC_EP_SWITCHES; k++) {
        const tc_ep_switch *sw = tc_ep_switch_find(tc_ep_switches[k].name);
        ck_assert_ptr_eq(sw, &tc_ep_switches[k]);
        ck_assert(!tc_ep_switch_get(&cfg, sw));
        tc_ep_switch_set(&cfg, sw, true);
        ck_assert(tc_ep_switch_get(&cfg, sw));
    }
    ck_assert(cfg.keep_result && cfg.hot_key);
    tc_ep_counts dropped[TC_EP_TESTS], kept[TC_EP_TESTS];
    cfg.len = 1000;
    cfg.iterations = 100;
    cfg.hot_key = false;
    ck_assert_int_eq(tc_ep_run(&cfg, kept), TC_OK);
    tc_ep_switch_set(&cfg, tc_ep_switch_find("keep_result"), false);
    ck_assert_int_eq(tc_ep_run(&cfg, dropped), TC_OK);
    ck_assert_uint_lt(dropped[TC_EP_LOOKUP].gc_words, 2000 + 3 + 2);
    ck_assert_uint_gt(kept[TC_EP_LOOKUP].tester_gcs, 0);
    ck_assert_uint_ge(kept[TC_EP_LOOKUP].gc_words, kept[TC_EP_LOOKUP].tester_gcs * (2000 + 3 + 2));
}
END_TEST

/* policy.tester picks the program, whatever the era: eptest.erl's tester reads each pass's
 * counters at the meter, so even pt_get's hold the two marks' words; the seed's loops have no
 * marks. */
START_TEST(tester_is_a_policy_field)
{
    static const char *const eras[] = {"otp25", "r10b"};
    static const char *const testers[] = {"eptest_erl", "seed"};
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < 2; k++) {
            tc_ep_config cfg;
            ck_assert_int_eq(tc_ep_config_for_era(eras[e], &cfg), TC_OK);
            char set[32], err[256];
            (void)snprintf(set, sizeof set, "tester=%s", testers[k]);
            ck_assert_int_eq(tc_policy_set(&cfg.policy, set, err, sizeof err), TC_OK);
            cfg.iterations = 50;
            tc_ep_counts c[TC_EP_TESTS];
            ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
            ck_assert_uint_eq(c[TC_EP_PT_GET].words_copied, k == 0 ? MARK_WORDS : 0);
        }
    tc_ep_config otp25;
    ck_assert_int_eq(tc_ep_config_for_era("otp25", &otp25), TC_OK);
    ck_assert_int_eq(otp25.policy.tester, TC_TESTER_EPTEST_ERL);
}
END_TEST

/*
 * A schedule-in whose GC is long (young generation and stack of 128 Ki words or more, erl_gc.c
 * check_for_possibly_long_gc) goes to a dirty scheduler and the process is scheduled out
 * (erl_process.c erts_schedule, sched_out_proc): the server, queued behind it, replies first.
 * Tuple L = 28000, 200 calls per pass: at the server's 113th request of proc1 its own GC is
 * delayed (inside its receive) and it yields before its send; the tester, queued before it
 * with one reply in a fragment beside its full 121536-word heap, wants a GC of 140066 words.
 * The server's schedule-in runs its own GC and sends the next reply before the tester's GC,
 * which then moves that reply onto the same heap: the tester keeps its 121536 words and
 * collects every fifth call, 40 GCs per pass. (Run inline at its schedule-in, the GC found
 * nothing live, shrank the heap to 28690 words and the tester collected every other call:
 * 100.) eptest.erl on the installed OTP 25.2.3, untraced, 3 runs each at +S 1:1 and +S 2:2:
 * proc2 40, proc3 40.
 */
START_TEST(long_schedule_in_gc_lets_the_server_reply_first)
{
    tc_ep_config cfg = ep_config("otp25", TC_EP_TUPLE, 28000, 200);
    tc_ep_counts c[TC_EP_TESTS];
    cfg.policy.dirty_gc_first = false; /* the server's turn first (sched.h) */
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    ck_assert_uint_eq(c[TC_EP_PROC2].gcs, 40);
    ck_assert_uint_eq(c[TC_EP_PROC3].gcs, 40);
}
END_TEST

/*
 * GC first at tuple L = 28000 (28004-word replies): the GC after proc1's 113th-call send goes
 * dirty and frees everything, its heap shrinks to 28690 words, and the server's reply, sent
 * while the dirty scheduler holds the tester's main lock, goes to a fragment
 * (tc_sched_is_locked). The next reply is built on the small heap and fills it; the
 * schedule-in after it collects with that reply live, the heap grows back to 75113 words and
 * the 5-call cycle of the server-first run returns: one GC more in proc1, the same 40 per 200
 * calls after.
 * gctrace.erl --tester at +S 1:1 on the installed OTP 25.2.3 (1000 calls) has this trace GC
 * for GC, 844 GCs. With the reply on the freed heap instead (the lock free at once) the heap
 * stays at 28690 words and every other call collects.
 */
START_TEST(dirty_gc_holds_the_main_lock)
{
    tc_ep_config cfg = ep_config("otp25", TC_EP_TUPLE, 28000, 200);
    tc_ep_counts off[TC_EP_TESTS], on[TC_EP_TESTS];
    ck_assert(cfg.policy.dirty_gc_first);
    cfg.policy.dirty_gc_first = false;
    ck_assert_int_eq(tc_ep_run(&cfg, off), TC_OK);
    cfg.policy.dirty_gc_first = true;
    ck_assert_int_eq(tc_ep_run(&cfg, on), TC_OK);
    ck_assert_uint_eq(on[TC_EP_PROC1].gcs, off[TC_EP_PROC1].gcs + 1);
    ck_assert_uint_eq(on[TC_EP_PROC2].gcs, 40);
    ck_assert_uint_eq(on[TC_EP_PROC3].gcs, 40);
}
END_TEST

/*
 * R10B-2's lookups at L = 30000 (60003-word results in fragments, a GC per lookup): each GC's
 * new heap (147 pages) is a fresh mapping. The heap it shrinks to holds a few hundred words,
 * and in R10B-2's page unit its one-page carrier is under rsbcmt's 80 % slack, so it shrinks
 * in place and only the tail, a page short of the next new heap, is freed (eras_ep.erl on
 * R10B-2: 999 GCs, 1001 mseg_create calls and 999 mseg_realloc shrinks per 1000 lookups,
 * erlang:system_info({allocator, mseg_alloc}) around the pass; 2231 faults against the
 * model's 2048). In OTP 25's 16 KiB unit the small heap moves to a multiblock carrier, its
 * whole 147-page carrier is cached, and the next GC takes it: no mapping.
 */
START_TEST(r10b_lookup_gcs_map_fresh_heaps)
{
    tc_ep_config cfg = ep_config("r10b", TC_EP_INTS, 30000, 40);
    tc_ep_counts c[TC_EP_TESTS];
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    ck_assert_uint_eq(c[TC_EP_LOOKUP].gcs, 39);
    ck_assert_uint_ge(c[TC_EP_LOOKUP].carriers_mapped, 37);
    cfg.policy.mem.sbc_unit = TC_MSEG_SACRR_UNIT;
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    ck_assert_uint_eq(c[TC_EP_LOOKUP].gcs, 39);
    ck_assert_uint_le(c[TC_EP_LOOKUP].carriers_mapped, 2);
}
END_TEST

/*
 * The same delay met by a GC after the send (policy.dirty_gc_first, sched.h): ints L = 18250,
 * 36503-word replies. The tester receives a reply in a fragment beside its 121536-word heap,
 * remove_message leaves it 5 reductions, and the GC after its next send (young use 153871
 * words) goes to a dirty CPU scheduler while the server, woken by that send, copies the next
 * reply on the normal one. Server first (off): the GC finds that reply queued and keeps it,
 * the heap stays 121536 words and the tester collects every 4th call, 50 GCs in 200. GC first
 * (on): nothing is live, the heap shrinks to 6772 words and from then every other call
 * collects, 100. The VM runs either from run to run (eptest.erl on the installed OTP 25.2.3,
 * 1000 calls, untraced: 250 or 500 per pass at +S 1:1 and +S 2:2; gctrace.erl --tester at +S
 * 1:1 gives both traces, each identical GC for GC to one of the two settings).
 */
START_TEST(dirty_gc_first_is_the_other_outcome)
{
    tc_ep_config cfg = ep_config("otp25", TC_EP_INTS, 18250, 200);
    tc_ep_counts c[TC_EP_TESTS];
    cfg.policy.dirty_gc_first = false;
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    ck_assert_uint_eq(c[TC_EP_PROC2].gcs, 50);
    ck_assert_uint_eq(c[TC_EP_PROC3].gcs, 50);
    cfg.policy.dirty_gc_first = true;
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    ck_assert_uint_eq(c[TC_EP_PROC2].gcs, 100);
    ck_assert_uint_eq(c[TC_EP_PROC3].gcs, 100);
}
END_TEST

/*
 * The race's outcomes one draw at a time (sched.h tc_sched_set_draws), the same run as above:
 * its one draw (the GC after proc1's first long send) decides the rest of the run, so "s" is
 * the run with dirty_gc_first off and the empty string the era's (on); the hook sees the
 * tester's draw. Floats L = 10000 (30 calls per pass) takes more draws, and TC_DRAW_GC_OVER
 * there frees the lock as the GC ends, so the server's next reply lands on the new heap: proc1
 * and proc3 collect once less than with the GC first (8, 9), and the run takes other draws.
 */
typedef struct draw_log {
    unsigned n;
    bool in_order, tester_only;
    char outcomes[64];
} draw_log;

static void log_draw(void *ctx, unsigned index, tc_ep_role role, const tc_ep_where *where, tc_draw outcome)
{
    draw_log *l = ctx;
    (void)where;
    l->in_order &= index == l->n;
    l->tester_only &= role == TC_EP_TESTER;
    if (l->n < sizeof l->outcomes)
        l->outcomes[l->n] = (char)outcome;
    l->n++;
}

static void ep_run_drawn(tc_ep_config *cfg, const char *draws, draw_log *l, tc_ep_counts c[TC_EP_TESTS])
{
    *l = (draw_log){.in_order = true, .tester_only = true};
    cfg->draws = draws;
    cfg->draw = log_draw;
    cfg->trace_ctx = l;
    ck_assert_int_eq(tc_ep_run(cfg, c), TC_OK);
    ck_assert(l->in_order);
    ck_assert(l->tester_only);
}

START_TEST(draws_decide_the_race_one_by_one)
{
    tc_ep_config cfg = ep_config("otp25", TC_EP_INTS, 18250, 200);
    tc_ep_counts c[TC_EP_TESTS];
    draw_log l;
    ep_run_drawn(&cfg, "s", &l, c);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_int_eq(l.outcomes[0], 's');
    ck_assert_uint_eq(c[TC_EP_PROC2].gcs, 50);
    ck_assert_uint_eq(c[TC_EP_PROC3].gcs, 50);
    ep_run_drawn(&cfg, "", &l, c);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_int_eq(l.outcomes[0], 'g');
    ck_assert_uint_eq(c[TC_EP_PROC2].gcs, 100);
    ck_assert_uint_eq(c[TC_EP_PROC3].gcs, 100);

    cfg = ep_config("otp25", TC_EP_FLOATS, 10000, 30);
    char many[64];
    memset(many, 'g', sizeof many - 1);
    many[sizeof many - 1] = '\0';
    ep_run_drawn(&cfg, many, &l, c);
    unsigned g_draws = l.n;
    ck_assert_uint_gt(g_draws, 1);
    ck_assert_uint_eq(c[TC_EP_PROC1].gcs, 8);
    ck_assert_uint_eq(c[TC_EP_PROC3].gcs, 9);
    memset(many, 'h', sizeof many - 1);
    ep_run_drawn(&cfg, many, &l, c);
    ck_assert_uint_ne(l.n, g_draws);
    ck_assert_int_eq(l.outcomes[l.n - 1], 'h');
    ck_assert_uint_eq(c[TC_EP_PROC1].gcs, 7);
    ck_assert_uint_eq(c[TC_EP_PROC3].gcs, 7);
    ck_assert(tc_sched_draw_valid('g') && tc_sched_draw_valid('h') && tc_sched_draw_valid('s'));
    ck_assert(!tc_sched_draw_valid('x') && !tc_sched_draw_valid('\0'));
}
END_TEST

/*
 * A GC after the lookup BIF that passes check_for_possibly_long_gc as a minor (young
 * generation and stack under 128 Ki words) but whose minor finds the old heap short of room
 * (minor_collection returns -1): erl_gc.c garbage_collect sets F_NEED_FULLSWEEP and asks
 * again as a major, which with the old heap's words is long, so it is delayed after its start
 * (delay_gc_after_start) and the major runs on a dirty scheduler where the process yielded,
 * the lookup's result no longer live. Ints L = 18000 (36005-word results), 200 calls per
 * pass: the lookup pass's first such GC keeps the old 36031 words only, and the pass
 * collects 31 times. (Run in place as a major with the result live, it kept 72036 words and
 * the pass collected 35 times.) eptest.erl on the installed OTP 25.2.3, untraced, 3 runs each
 * at +S 1:1 and +S 2:2: 31; at 1000 calls 146 (tracediff.sh --tester ints 18000: identical).
 */
START_TEST(long_major_after_minor_start_is_delayed)
{
    tc_ep_counts c[TC_EP_TESTS];
    run(TC_EP_INTS, 18000, 200, c);
    ck_assert_uint_eq(c[TC_EP_LOOKUP].gcs, 31);
    ck_assert_uint_eq(c[TC_EP_PROC2].gcs, 50);
}
END_TEST

/* The tester's GCs after proc1's last reply (op N + 1, before the closing mark): their
 * stack and heap words before, as gc_minor_start reports them. */
typedef struct pass_end_gcs {
    long op;
    int n;
    uint64_t stack, used;
} pass_end_gcs;

static void on_pass_end_gc(void *ctx, tc_ep_role role, const tc_ep_where *where, const tc_proc *p,
                           const tc_heap_event *ev)
{
    pass_end_gcs *g = ctx;
    if (role != TC_EP_TESTER || ev->kind == TC_HEAP_EV_FRAG || where->test != TC_EP_PROC1 || where->after ||
        where->op != g->op)
        return;
    g->n++;
    g->stack = tc_proc_stack_size(p);
    g->used = ev->used_before;
}

/*
 * The reductions after a receive that leaves a GC desired (beam_jit_common.cpp
 * beam_jit_remove_message: 5 left) run out in timer:tc's tail: call_loop(S, 0)'s entry and
 * its return (the x86 JIT's return takes one, instr_call.cpp emit_return), monotonic_time,
 * erlang:convert_time_unit/3's entry, and its call of erts_internal:time_unit/0, a light BIF
 * that yields with none left (emit_call_light_bif_shared). The tester is scheduled out there,
 * inside convert_time_unit's 5-word frame, and collects at the schedule-in before building the
 * closing mark's message. Ints L = 2000, 1000 calls: the VM's trace (tracediff.sh --tester ints
 * --schedulers 1 2000) has that GC at stack 29 with 16027 heap words, scheduled out in
 * erts_internal:time_unit/0 (the trace's `out` event); a model that ends the slice at the
 * mark's send collects at stack 20 with the message's 3 words more.
 */
START_TEST(pass_end_yields_in_convert_time_unit)
{
    tc_ep_config cfg;
    ck_assert_int_eq(tc_ep_config_for_era("otp25", &cfg), TC_OK);
    cfg.shape = TC_EP_INTS;
    cfg.len = 2000;
    cfg.iterations = 1000;
    pass_end_gcs g = {.op = 1001};
    cfg.trace = on_pass_end_gc;
    cfg.trace_ctx = &g;
    tc_ep_counts c[TC_EP_TESTS];
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    ck_assert_int_eq(g.n, 1);
    ck_assert_uint_eq(g.stack, 29);
    ck_assert_uint_eq(g.used, 16027);
}
END_TEST

/* The tester's GCs before its first pass (building Data and the rest of its spawn phase):
 * how many, and the heap and fragment words the last one found. */
typedef struct spawn_gcs {
    int n;
    uint64_t used, frag, stack, used_after;
} spawn_gcs;

static void on_spawn_gc(void *ctx, tc_ep_role role, const tc_ep_where *where, const tc_proc *p, const tc_heap_event *ev)
{
    (void)p;
    spawn_gcs *g = ctx;
    if (role != TC_EP_TESTER || ev->kind == TC_HEAP_EV_FRAG || where->test != -1)
        return;
    g->n++;
    g->used = ev->used_before;
    g->frag = ev->frag_before;
    g->stack = ev->stack_before;
    g->used_after = ev->used_after;
}

static spawn_gcs spawn_gcs_of(tc_ep_shape shape, long len, long n)
{
    tc_ep_config cfg;
    ck_assert_int_eq(tc_ep_config_for_era("otp25", &cfg), TC_OK);
    cfg.shape = shape;
    cfg.len = len;
    cfg.iterations = n;
    spawn_gcs g = {0};
    cfg.trace = on_spawn_gc;
    cfg.trace_ctx = &g;
    tc_ep_counts c[TC_EP_TESTS];
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    return g;
}

/*
 * maps:from_list builds a hashmap piece by piece (erl_map.c hashmap_from_validated_list):
 * its leaves' conses in one HAlloc, then the trie's nodes through a heap factory that fills
 * the heap's free words first and only then takes fragments. The GC after the BIF finds the
 * part that fitted on the heap: measured on OTP 25.2.3 with `tracediff.sh --tester map
 * --schedulers 1 L` (N 1000), the spawn phase's last GC at L = 1000 is the 13th, with 4169
 * heap and 3596 fragment words (the model placing the whole map in a fragment: 4055 and
 * 3710), and at L = 100 the 4th, with 593 and 273 (517 and 366).
 */
START_TEST(map_from_list_fills_the_heap_first)
{
    spawn_gcs g = spawn_gcs_of(TC_EP_MAP, 1000, 1000);
    ck_assert_int_eq(g.n, 13);
    ck_assert_uint_eq(g.used, 4169);
    ck_assert_uint_eq(g.frag, 3596);
    g = spawn_gcs_of(TC_EP_MAP, 100, 1000);
    ck_assert_int_eq(g.n, 4);
    ck_assert_uint_eq(g.used, 593);
    ck_assert_uint_eq(g.frag, 273);
}
END_TEST

/*
 * On its way back up, each level of a body-recursive comprehension returns, and the x86 JIT's
 * return takes a reduction (instr_call.cpp emit_return: `dec FCALLS; jl`), so the tester's
 * slice ends inside the unwinding and a desired GC runs at that schedule-in, with the
 * comprehension's stack still deep. Floats L = 2000: measured on OTP 25.2.3 with
 * `tracediff.sh --tester floats --schedulers 1 2000` (N 1000), the spawn phase's 12th and
 * last GC starts at stack 3767 with 1092 heap and 3828 fragment words.
 */
START_TEST(comprehension_returns_take_reductions)
{
    spawn_gcs g = spawn_gcs_of(TC_EP_FLOATS, 2000, 1000);
    ck_assert_int_eq(g.n, 12);
    ck_assert_uint_eq(g.stack, 3767);
    ck_assert_uint_eq(g.used, 1092);
    ck_assert_uint_eq(g.frag, 3828);
}
END_TEST

/*
 * A GC after a BIF that would be long goes to a dirty scheduler: erl_gc.c
 * delay_garbage_collection (force_reschedule) charges the reductions left as its cost, so
 * the tester yields at the next reduction test, payload/2's return after maps:from_list, and
 * collects there with payload/2's frame gone. Map L = 20000: measured on OTP 25.2.3 with
 * `tracediff.sh --tester map --schedulers 1 20000` (N 1000), the spawn phase's 24th and last
 * GC starts at stack 11 (the model yielding only when its own count ran out: 12, inside
 * payload/2). The spawn phase does not depend on N, so the run here makes one call per pass.
 */
START_TEST(long_gc_after_a_bif_ends_the_slice)
{
    spawn_gcs g = spawn_gcs_of(TC_EP_MAP, 20000, 1);
    ck_assert_int_eq(g.n, 24);
    ck_assert_uint_eq(g.stack, 11);
    /* maps:from_list trapped (map_from_list_traps_past_its_budget): its magic reference is
     * in the fragments, and the delayed GC moves them whole from the first trap's marker */
    ck_assert_uint_eq(g.frag, 52356);
    ck_assert_uint_eq(g.used_after, 73875);
}
END_TEST

/*
 * maps:from_list traps when its YCF work (about 27 reductions of its own a pair) outgrows 40
 * per reduction left in the slice (utils.c erts_ycf_trap_driver): the tester calls it with
 * 773 left at L = 1000 (no trap: 25966 of 30920), 1146 at 2000 (54554 of 45840: a trap
 * during the trie's build, before the heap factory gave back the heap) and 3257 at 20000
 * (four traps, the first in the sort). The trap's 3-word magic reference then lies in a
 * fragment of its own, and the GC after the BIF moves it whole with the other fragments,
 * from the marker the first trap saved, also when that GC is a long one delayed to a dirty
 * scheduler (L = 20000). Measured on OTP 25.2.3 with `tracediff.sh --tester map --schedulers 1
 * L` (N 1000): at 2000 the spawn phase's 16th and last GC starts with 10941 heap and 6372
 * fragment words and ends with 7313 (the model without the trap: 6369 and 7310); at 20000
 * the 24th ends with 73875 (without: 73872; long_gc_after_a_bif_ends_the_slice).
 */
START_TEST(map_from_list_traps_past_its_budget)
{
    spawn_gcs g = spawn_gcs_of(TC_EP_MAP, 2000, 1);
    ck_assert_int_eq(g.n, 16);
    ck_assert_uint_eq(g.used, 10941);
    ck_assert_uint_eq(g.frag, 6372);
    ck_assert_uint_eq(g.used_after, 7313);
    g = spawn_gcs_of(TC_EP_MAP, 1000, 1);
    ck_assert_uint_eq(g.frag, 3596); /* no trap */
}
END_TEST

/*
 * Every function's entry and every `return` takes a reduction (i_test_yield, emit_return);
 * beam_run_process's i_apply_only takes none. Floats L = 20000: lists:seq's return into
 * payload/2 is one of the slice's reductions, and the slice that ends in the comprehension's
 * descent collects at its schedule-in with 2866 floats in fragments and 2866 levels on the
 * stack. Measured on OTP 25.2.3 with `tracediff.sh --tester floats --schedulers 1 20000` (N
 * 1000): the spawn phase's 18th GC starts at stack 5744 with 5732 fragment words, the 19th
 * and last at stack 26120 with 20376 (a model without seq's return: 5746, 5734 and 26122). At
 * L = 2000 the whole build fits the first slice, counted from the tester's first entry
 * (comprehension_returns_take_reductions: a sixth reduction for the apply ends it a level
 * early, stack 3769).
 */
START_TEST(seq_return_takes_a_reduction)
{
    spawn_gcs g = spawn_gcs_of(TC_EP_FLOATS, 20000, 1);
    ck_assert_int_eq(g.n, 19);
    ck_assert_uint_eq(g.stack, 26120);
    ck_assert_uint_eq(g.frag, 20376);
}
END_TEST

/*
 * A caller's term (termcopy explain --vm) reaches eptest.erl's tester as {ext, Bin} among its
 * spawn arguments, and payload/2 decodes it with binary_to_term: one HAlloc of the term's
 * words, a fragment when the heap is short, then the GC after the BIF, which moves the
 * fragment whole and leaves the term as the heap's survivors. Measured on OTP 25.2.3 with
 * `tracediff.sh --term FILE --schedulers 1` on lists:seq(1, 8190) (16380 words; external
 * format 40192 bytes, a ProcBin): the spawn phase's one GC starts with 23 heap words (the
 * 14 of a shape's tester, the 3-tuple and the 6-word ProcBin), 16380 fragment words and a
 * 13-word stack and ends with 16380 heap words (the model placing the term after a GC of its
 * own: 14, 0 and 0); the whole life then matches GC for GC (747; a run of N = 1 here).
 */
/* eptest's run on a caller's term, n calls a pass, its GCs given to `fn`. */
static void run_term(tc_term t, long n, tc_ep_trace_fn fn, void *ctx)
{
    tc_ep_config cfg;
    ck_assert_int_eq(tc_ep_config_for_era("otp25", &cfg), TC_OK);
    cfg.payload = t;
    cfg.iterations = n;
    cfg.trace = fn;
    cfg.trace_ctx = ctx;
    tc_ep_counts c[TC_EP_TESTS];
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
}

START_TEST(a_callers_term_is_decoded_by_binary_to_term)
{
    tc_arena *ar = tc_arena_new(0);
    ck_assert_ptr_nonnull(ar);
    tc_term cells = TC_NIL;
    for (long i = 8190; i >= 1; i--)
        ck_assert((cells = tc_term_cons(tc_arena_alloc(ar), tc_make_small(i), cells)) != TC_NON_VALUE);
    spawn_gcs g = {0};
    run_term(cells, 1, on_spawn_gc, &g);
    ck_assert_int_eq(g.n, 1);
    ck_assert_uint_eq(g.used, 23);
    ck_assert_uint_eq(g.frag, 16380);
    ck_assert_uint_eq(g.stack, 13);
    ck_assert_uint_eq(g.used_after, 16380);
    tc_arena_free(ar);
}
END_TEST

/* The tester's first GC: where, and the heap, fragment and stack words it started with. */
typedef struct first_gc {
    bool seen;
    tc_ep_where where;
    uint64_t used, frag, stack;
} first_gc;

static void on_first_gc(void *ctx, tc_ep_role role, const tc_ep_where *where, const tc_proc *p, const tc_heap_event *ev)
{
    (void)p;
    first_gc *g = ctx;
    if (role != TC_EP_TESTER || ev->kind == TC_HEAP_EV_FRAG || g->seen)
        return;
    *g = (first_gc){true, *where, ev->used_before, ev->frag_before, ev->stack_before};
}

/*
 * A small term's external format is a heap binary in the tester's spawn arguments (up to 64
 * bytes: file:read_file's enif_make_binary, erl_nif.c, makes one), and the term fits the
 * fresh heap: no GC before the passes, so every word spawn and binary_to_term left counts
 * when proc1 fills the heap. {1, 2, 3} (9 bytes, a 4-word heap binary; the term 4 words):
 * measured on OTP 25.2.3 with `tracediff.sh --term FILE --schedulers 1` (N 1000), the
 * tester's first GC is at proc1's 15th call with 201 heap words, two replies (14 words) in
 * fragments and a 27-word stack; with the bytes a refc binary (binary:decode_hex's, 2 words
 * more) it comes earlier in that call, with 200, one reply and 26.
 */
START_TEST(a_small_terms_binary_is_a_heap_binary)
{
    tc_arena *ar = tc_arena_new(0);
    ck_assert_ptr_nonnull(ar);
    tc_term e[3] = {tc_make_small(1), tc_make_small(2), tc_make_small(3)};
    tc_term t = tc_term_tuple(tc_arena_alloc(ar), e, 3);
    ck_assert(t != TC_NON_VALUE);
    first_gc g = {0};
    run_term(t, 20, on_first_gc, &g);
    ck_assert(g.seen);
    ck_assert_int_eq(g.where.test, TC_EP_PROC1);
    ck_assert_int_eq(g.where.op, 15);
    ck_assert_uint_eq(g.used, 201);
    ck_assert_uint_eq(g.frag, 14);
    ck_assert_uint_eq(g.stack, 27);
    tc_arena_free(ar);
}
END_TEST

/* The k-th GC of the tester's spawn phase: its event, the stack and the old heap's words
 * when it ended. */
typedef struct spawn_gc_at {
    int k, n;
    tc_heap_event ev;
    uint64_t stack_after, old_used_after;
} spawn_gc_at;

static void on_spawn_gc_at(void *ctx, tc_ep_role role, const tc_ep_where *where, const tc_proc *p,
                           const tc_heap_event *ev)
{
    spawn_gc_at *g = ctx;
    if (role != TC_EP_TESTER || ev->kind == TC_HEAP_EV_FRAG || where->test != -1 || ++g->n != g->k)
        return;
    g->ev = *ev;
    g->stack_after = tc_proc_stack_size(p);
    g->old_used_after = tc_proc_old_heap_used(p);
}

static spawn_gc_at spawn_gc_at_of(tc_ep_shape shape, long len, int k)
{
    tc_ep_config cfg;
    ck_assert_int_eq(tc_ep_config_for_era("otp25", &cfg), TC_OK);
    cfg.shape = shape;
    cfg.len = len;
    cfg.iterations = 1;
    spawn_gc_at g = {.k = k};
    cfg.trace = on_spawn_gc_at;
    cfg.trace_ctx = &g;
    tc_ep_counts c[TC_EP_TESTS];
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    ck_assert_int_ge(g.n, k);
    return g;
}

/*
 * A heap test's GC that would be long is delayed (erl_gc.c garbage_collect,
 * delay_garbage_collection with need > 0): the process goes on on a fragment heap until its
 * next reduction test yields, and the GC runs there on a dirty scheduler. Map L = 30000: on
 * the comprehension's way up, the heap test (test_heap 5) at stack 2230 finds 119300 heap
 * words and 70059 old ones: as a minor it passes the check (119300 + 2231 < 128 Ki), its
 * minor finds the old heap short, and as a major it is long (delay_gc_after_start). The level
 * builds its {I, I} and cons on the fragment heap, deallocates and returns, and yields:
 * the dirty major copies those 5 words too and ends at stack 2228. Measured on OTP 25.2.3
 * with `tracediff.sh --tester map --schedulers 1 30000` (N 1000): the spawn phase's 24th GC,
 * a major, 119300 heap words at stack 2231 (the minor's start) -> 144460 at stack 2228 (a
 * model collecting at the heap test: 144455 at stack 2231).
 */
/*
 * A GC at schedule-in that costs the whole slice ends it before the process runs
 * (erl_process.c schedule: scheduler_gc_proc's cost is capped at the reductions left, and
 * `reds <= 0` goes to sched_out_proc): with nothing else runnable the tester is scheduled in
 * again and resumes where it yielded with a fresh slice. Floats L = 25000, on the
 * comprehension's way down (one reduction per level; each float(X) a 2-word fragment, each
 * level 2 stack words): the spawn phase's 19th GC, a major at a schedule-in leaving 50000
 * words (gc_cost 5000, above the slice's 4000), comes with 16000 fragment words; the next
 * schedule-in GC, four whole slices later, with 32000 (16000 levels). Measured on OTP 25.2.3
 * with `tracediff.sh --tester floats --schedulers 1 25000`: 32000 at stack 48560 (the model
 * running a level in the spent slice: 32002 at 48562).
 */
START_TEST(gc_costing_the_slice_ends_it)
{
    spawn_gc_at g = spawn_gc_at_of(TC_EP_FLOATS, 25000, 19);
    ck_assert_int_eq(g.ev.kind, TC_HEAP_EV_MAJOR);
    ck_assert_uint_eq(g.ev.frag_before, 16000);
    ck_assert_uint_ge(g.ev.used_after / 10, 4000);
    spawn_gc_at h = spawn_gc_at_of(TC_EP_FLOATS, 25000, 20);
    ck_assert_uint_eq(h.ev.frag_before, 2 * 4 * 4000); /* a GC leaves no fragment */
    ck_assert_uint_eq(h.ev.stack_before - g.ev.stack_before, 2 * 4 * 4000);
}
END_TEST

START_TEST(long_gc_at_a_heap_test_is_delayed)
{
    spawn_gc_at g = spawn_gc_at_of(TC_EP_MAP, 30000, 24);
    ck_assert_int_eq(g.ev.kind, TC_HEAP_EV_MAJOR);
    ck_assert_uint_eq(g.ev.used_before, 119300);
    ck_assert_uint_eq(g.ev.stack_before, 2231);
    ck_assert_uint_eq(g.ev.used_after, 144460);
    ck_assert_uint_eq(g.stack_after, 2228);
}
END_TEST

/*
 * The same delay met by an `allocate` in strings' comprehension going down, then
 * integer_to_list/1's call (a light BIF: emit_call_light_bif_shared tests FCALLS before
 * the BIF) yields with the level's frame pushed and the BIF not run. Strings L = 30000:
 * measured on OTP 25.2.3 with `tracediff.sh --tester strings --schedulers 1 30000` (N 1000),
 * the spawn phase's 25th GC, a minor, starts at stack 30471 and ends with 32830 heap words
 * and 126788 old ones (a model collecting at the allocate: 126790 old, the list cell x0 held
 * there promoted too; one yielding at the next entry instead, after the BIF: stack 30472,
 * 32840 words).
 */
START_TEST(long_gc_at_an_allocate_yields_at_the_bif_call)
{
    spawn_gc_at g = spawn_gc_at_of(TC_EP_STRINGS, 30000, 25);
    ck_assert_int_eq(g.ev.kind, TC_HEAP_EV_MINOR);
    ck_assert_uint_eq(g.ev.stack_before, 30471);
    ck_assert_uint_eq(g.ev.used_after, 32830);
    ck_assert_uint_eq(g.old_used_after, 126788);
    ck_assert_uint_eq(g.stack_after, 30471);
}
END_TEST

/* The tester's GCs in the lookup pass: how many, the stacks they start at, and those of the
 * ones that found nothing live (schedule-in GCs between lookups: the result dropped). */
typedef struct lookup_gcs {
    int n, n_at_39, idle;
    uint64_t idle_stack[4];
    long idle_op[4];
} lookup_gcs;

static void on_lookup_gc(void *ctx, tc_ep_role role, const tc_ep_where *where, const tc_proc *p,
                         const tc_heap_event *ev)
{
    (void)p;
    lookup_gcs *g = ctx;
    if (role != TC_EP_TESTER || ev->kind == TC_HEAP_EV_FRAG || where->test != TC_EP_LOOKUP || where->after)
        return;
    g->n++;
    g->n_at_39 += ev->stack_before == 39;
    if (ev->used_after == 0 && g->idle < 4) {
        g->idle_stack[g->idle] = ev->stack_before;
        g->idle_op[g->idle++] = where->op;
    }
}

static lookup_gcs lookup_gcs_of(long len)
{
    tc_ep_config cfg;
    ck_assert_int_eq(tc_ep_config_for_era("otp25", &cfg), TC_OK);
    cfg.shape = TC_EP_INTS;
    cfg.len = len;
    cfg.iterations = 1000;
    lookup_gcs g = {0};
    cfg.trace = on_lookup_gc;
    cfg.trace_ctx = &g;
    cfg.trace_receive = true; /* as gctrace.erl --tester traces the VM's */
    tc_ep_counts c[TC_EP_TESTS];
    ck_assert_int_eq(tc_ep_run(&cfg, c), TC_OK);
    return g;
}

/*
 * A lookup loop whose slice runs out at lookup_loop/3's entry resumes past that entry (the
 * JIT's i_test_yield decrements, then yields: sched.h tc_sched_entry_steps), so the next slice
 * reaches one reduction further. Ints L = 500: measured on OTP 25.2.3 with `tracediff.sh
 * --tester ints --schedulers 1 500` (N 1000), the lookup pass's two schedule-in GCs start at
 * op 534 with stack 35 (out at the loop's entry) and at op 803 with stack 38 (out at
 * ets:lookup/2's call, the loop's 3-word frame pushed); a slice that paid the entry again
 * ends at op 803's entry instead, stack 35.
 */
START_TEST(lookup_slice_resumes_past_the_entry)
{
    lookup_gcs g = lookup_gcs_of(500);
    ck_assert_int_eq(g.n, 126);
    ck_assert_int_eq(g.idle, 2);
    ck_assert_int_eq(g.idle_op[0], 532); /* the loop's own counts (gctrace's words-based ops: 534, 803) */
    ck_assert_uint_eq(g.idle_stack[0], 35);
    ck_assert_int_eq(g.idle_op[1], 802);
    ck_assert_uint_eq(g.idle_stack[1], 38);
}
END_TEST

/*
 * The reductions from the opening mark's reply to the lookup loop: the reply's receive pays
 * its fetch (4, and 1 for the traced receive: sched.h policy.receive_fetch_reds), then
 * mark/2's return, timer:tc's entry, monotonic_time, and the entry of the fun F (every
 * function has its i_test_yield, ops.tab int_func_start) before lookup_loop/3's own. Ints
 * L = 3000: measured on OTP 25.2.3 with `tracediff.sh --tester ints --schedulers 1 3000` (N
 * 1000), the lookup pass has 100 GCs, every one after a lookup at stack 39: no slice ends
 * with a fragment to collect. A model 6 reductions short of that runs to op 45's lookup call
 * and collects there (stack 38, a 101st GC).
 */
START_TEST(lookup_slice_pays_the_receive_and_the_fun)
{
    lookup_gcs g = lookup_gcs_of(3000);
    ck_assert_int_eq(g.n, 100);
    ck_assert_int_eq(g.n_at_39, 100);
}
END_TEST

/* The run's clock (tc_ep_config.clock), asked after each operation of a pass with the pass's
 * counts so far and at its end with all of them: at a second an operation the segment
 * cache's timed check (alloc/mseg.h tc_mseg_clock) empties the caches as the round trips go,
 * so replies that took a cached single-block carrier without the clock map fresh ones; a
 * clock that never reaches a second changes no count. */
typedef struct clock_log {
    double ns_per_op;
    long calls, ops[TC_EP_TESTS];
    uint64_t copied; /* proc2's words copied when its clock last read them */
} clock_log;

static double clock_of(void *ctx, int test, long ops, const tc_ep_counts *so_far)
{
    clock_log *l = ctx;
    l->calls++;
    l->ops[test] = ops;
    if (test == TC_EP_PROC2)
        l->copied = so_far->words_copied;
    return l->ns_per_op * (double)ops;
}

START_TEST(the_clock_drains_the_segment_cache)
{
    enum { N = 30 };
    tc_ep_counts none[TC_EP_TESTS], still[TC_EP_TESTS], fast[TC_EP_TESTS];
    run(TC_EP_STRINGS, 7000, N, none); /* each reply 672,024 bytes: an sbc, from the cache */
    ck_assert_uint_eq(none[TC_EP_PROC2].carriers_mapped, 0);
    clock_log slow = {.ns_per_op = 1.0}, second = {.ns_per_op = 1e9};
    tc_ep_config cfg = ep_config("otp25", TC_EP_STRINGS, 7000, N);
    cfg.clock = clock_of;
    cfg.clock_ctx = &slow;
    ck_assert_int_eq(tc_ep_run(&cfg, still), TC_OK);
    for (int t = 0; t < TC_EP_TESTS; t++) {
        ck_assert_uint_eq(still[t].carriers_mapped, none[t].carriers_mapped);
        ck_assert_uint_eq(still[t].gcs, none[t].gcs);
        ck_assert_int_eq(slow.ops[t], N); /* the pass's end */
    }
    ck_assert_int_ge(slow.calls, TC_EP_TESTS * (N + 1));
    ck_assert_uint_eq(slow.copied, still[TC_EP_PROC2].words_copied);
    cfg.clock_ctx = &second;
    ck_assert_int_eq(tc_ep_run(&cfg, fast), TC_OK);
    ck_assert_uint_gt(fast[TC_EP_PROC2].carriers_mapped, 0);
    ck_assert_uint_eq(fast[TC_EP_PROC2].words_copied, none[TC_EP_PROC2].words_copied);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scenarios_workload");
    TCase *tc = tcase_create("passes");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, pt_get_copies_and_collects_nothing);
    tcase_add_test(tc, lookup_copies_each_object_out_once);
    tcase_add_test(tc, switches_by_name);
    tcase_add_test(tc, tester_is_a_policy_field);
    tcase_add_test(tc, ets_compressed_from_the_policy_table);
    tcase_add_test(tc, long_schedule_in_gc_lets_the_server_reply_first);
    tcase_add_test(tc, long_major_after_minor_start_is_delayed);
    tcase_add_test(tc, dirty_gc_first_is_the_other_outcome);
    tcase_add_test(tc, draws_decide_the_race_one_by_one);
    tcase_add_test(tc, dirty_gc_holds_the_main_lock);
    tcase_add_test(tc, r10b_lookup_gcs_map_fresh_heaps);
    tcase_add_test(tc, pass_end_yields_in_convert_time_unit);
    tcase_add_test(tc, map_from_list_fills_the_heap_first);
    tcase_add_test(tc, comprehension_returns_take_reductions);
    tcase_add_test(tc, long_gc_after_a_bif_ends_the_slice);
    tcase_add_test(tc, map_from_list_traps_past_its_budget);
    tcase_add_test(tc, seq_return_takes_a_reduction);
    tcase_add_test(tc, a_callers_term_is_decoded_by_binary_to_term);
    tcase_add_test(tc, a_small_terms_binary_is_a_heap_binary);
    tcase_add_test(tc, long_gc_at_a_heap_test_is_delayed);
    tcase_add_test(tc, gc_costing_the_slice_ends_it);
    tcase_add_test(tc, the_clock_drains_the_segment_cache);
    tcase_add_test(tc, long_gc_at_an_allocate_yields_at_the_bif_call);
    tcase_add_test(tc, lookup_slice_resumes_past_the_entry);
    tcase_add_test(tc, lookup_slice_pays_the_receive_and_the_fun);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
