#include "erasep.h"

#include "workload_impl.h"

#include <stdio.h>
#include <string.h>

#include "../alloc/estack.h"
#include "../heaps/gc.h"
#include "../heaps/sched.h"
#include "../heaps/verify.h"
#include "../stores/ets.h"
#include "../terms/arena.h"
#include "../terms/atom.h"
#include "../terms/size.h"
#include "timing.h"

/* ERL_FUN_SIZE in R10B-2 and R13B01 (erl_fun.h, no HiPE): thing word, next, fe, arity,
 * num_free, creator; the environment follows. */
enum { ERL_FUN_SIZE = 6 };

/* The tester's program counter: the code it runs from one dispatch to the next. */
typedef enum pc {
    TESTER,      /* tester/4's entry */
    SEQ2,        /* lists:seq/2 */
    SEQ4,        /* R10B lists:seq/4, one cell per call */
    SEQ_LOOP,    /* R13B lists:seq_loop/3, four cells per call */
    TRACE_ON,    /* trace_on/2 */
    FOREACH,     /* lists:foreach/2 */
    TRACE_FUN,   /* '-trace_on/2-fun-0-'/2 */
    TESTS,       /* tests/0 */
    LC,          /* '-tester/4-lc$^0/1-0-'/7 */
    PASS,        /* pass/7's entry */
    BODY,        /* body/6 */
    CALL_LOOP,   /* call_loop/2 */
    INSERT_LOOP, /* insert_loop/4 */
    LOOKUP_LOOP, /* lookup_loop/3 */
    HOT_LOOP,    /* hot_loop/2 */
    EMPTY_LOOP,  /* empty_loop/1 */
    MARK,        /* mark/2 */
    NOW_DIFF,    /* timer:now_diff/2 */
    FINISHED     /* the last mark is sent: nothing after it is counted */
} pc;

typedef struct run {
    const tc_ep_config *cfg;
    bool r13b;      /* R13B01's code: seq_loop, literals, trace_delivered */
    tc_mseg *mem;
    tc_sched sched;
    tc_proc *tester, *server, *tracer;
    tc_task tester_t, server_t, tracer_t;
    tc_ets *table; /* made by ets:new in the tester's code */
    tc_copy_stats copy;
    tc_term get_atom, marked_atom;
    tc_term tests_list[TC_EP_TESTS]; /* R13B: tests()'s literal list, element by element */
    /* the tester */
    pc pc;
    int pass;          /* the pass being run */
    int phase;         /* the pass being counted: the marks sent so far */
    bool awaiting;     /* in a receive */
    bool counting;     /* its trace is on: GCs count from here */
    bool server_up;
    tc__ep_snapshot last; /* at the previous mark (or when tracing began) */
    uint64_t t0;
    tc_ep_counts *out;
    tc_result error;
    tc_term data; /* a shape other than ints, or the caller's payload: copied where seq returns */
} run;

/* The proc.h trace hook of the tester and the server: the pass it happened in. */
static void on_heap_event(void *ctx, const tc_proc *p, const tc_heap_event *ev)
{
    const struct run *w = ctx;
    tc_ep_where at = {.test = w->counting ? w->phase : -1};
    w->cfg->trace(w->cfg->trace_ctx, p == w->tester ? TC_EP_TESTER : TC_EP_SERVER, &at, p, ev);
}

static void traced(run *w, tc_proc *p)
{
    if (w->cfg->trace)
        tc_proc_set_trace(p, on_heap_event, w);
}

static tc_term *y(tc_proc *p, unsigned i) { return tc_proc_stack_slot(p, 1 + i); } /* slot 0: the CP */
static tc_term *x(tc_proc *p) { return tc_proc_x(p); }

/* allocate / allocate_heap (AH): one heap test for the frame (its y slots and CP) and the
 * heap words, `live` x registers its roots, then the frame, its slots NIL (init). */
static tc_result ah(tc_proc *p, unsigned ys, unsigned heap, unsigned live)
{
    tc_proc_set_arity(p, live);
    tc_result r = tc_proc_test_heap_maybe_gc(p, ys + 1 + heap);
    for (unsigned i = 0; i <= ys && r == TC_OK; i++)
        r = tc_proc_push_maybe_gc(p, TC_NIL);
    return r;
}

static void deallocate(tc_proc *p, unsigned ys) { tc_proc_pop(p, ys + 1); }

/* put_list / put_tuple: compiled code writes at HTOP, which its heap test made room for (no
 * HAlloc: R10B-2's do_alloc would take a fragment where the room is exactly the need). */
static tc_term put_list(tc_proc *p, tc_term head, tc_term tail)
{
    tc_term *hp = tc_proc_heap_reserve(p, 2);
    if (!hp)
        return TC_NON_VALUE;
    tc_proc_heap_commit(p, 2);
    hp[0] = head;
    hp[1] = tail;
    return tc_make_list(hp);
}

static tc_term put_tuple(tc_proc *p, const tc_term *elems, unsigned n)
{
    tc_term *hp = tc_proc_heap_reserve(p, n + 1);
    if (!hp)
        return TC_NON_VALUE;
    tc_proc_heap_commit(p, n + 1);
    hp[0] = TC_MAKE_HEADER(n, TC_SUBTAG_ARITYVAL);
    memcpy(hp + 1, elems, n * sizeof *elems);
    return tc_make_boxed(hp);
}

static tc_result test_heap(tc_proc *p, uint64_t need, unsigned live)
{
    tc_proc_set_arity(p, live);
    return tc_proc_test_heap_maybe_gc(p, need);
}

/* The callee's arguments are x0..arity-1: where a slice ends, they are the GC's roots. */
static tc_step dispatch(run *w, pc next, unsigned arity)
{
    w->pc = next;
    tc_proc_set_arity(w->tester, arity);
    return TC_STEP_CONTINUE;
}

static tc_step fail(run *w, tc_result r)
{
    w->error = r;
    w->tester_t.error = r;
    return TC_STEP_ERROR;
}

/* A BIF that builds a tuple of n elements with HAlloc, then returns through the era's
 * GC-after-BIF (R13B01: any fragment collects, the result live; R10B-2: none, HAlloc may
 * have asked for a yield). */
static tc_result bif_tuple(tc_proc *p, const tc_term *elems, unsigned n, tc_term *res)
{
    tc_heapfrag *entry = tc_proc_bif_enter(p);
    tc_term t = tc_term_tuple(tc_proc_alloc(p), elems, n);
    if (t == TC_NON_VALUE)
        return TC_ENOMEM;
    tc_result r = tc_proc_bif_return_maybe_gc(p, entry, &t);
    *res = t;
    return r;
}

/* erlang:now/0 (bif.c now_0: HAlloc 4) and statistics(garbage_collection) (erl_bif_info.c:
 * HAlloc 4, smalls on 64-bit words). */
static tc_result now_bif(tc_proc *p, tc_term *res)
{
    tc_term e[3] = {tc_make_small(1200), tc_make_small(0), tc_make_small(0)};
    return bif_tuple(p, e, 3, res);
}

/* ---- counters ------------------------------------------------------------------------- */

static tc__ep_snapshot take(const run *w)
{
    return tc__ep_take(w->mem, &w->copy, &w->sched.stats, w->table, w->tester, w->server);
}

/* The mark of pass w->pass: its counters since the previous mark (its time is the loop's). */
static void mark_counts(run *w)
{
    tc__ep_snapshot b = take(w);
    double us = w->out[w->pass].us;
    w->out[w->pass] = tc__ep_diff(&w->last, &b);
    w->out[w->pass].us = us;
    w->last = b;
}

/* ---- the server and the tracer ---------------------------------------------------------- */

/* server/1: allocate 1 (Data in y0); receive {From, get} -> test_heap 3 (the message and From
 * live), {self(), Data} sent back; call_last server/1. */
static tc_step server_step(tc_task *t)
{
    run *w = t->state;
    tc_proc *p = t->proc;
    tc_result r;
    if (!w->server_up) {
        if ((r = ah(p, 1, 0, 1)) != TC_OK)
            return fail(w, r);
        *y(p, 0) = x(p)[0];
        w->server_up = true;
    }
    tc_term msg;
    if (!tc_sched_receive(t, &msg))
        return t->error != TC_OK ? fail(w, t->error) : TC_STEP_WAIT;
    if (tc_is_atom(msg))
        return TC_STEP_DONE; /* stop */
    x(p)[0] = msg;
    x(p)[1] = tc_make_pid(0, 0);
    if ((r = test_heap(p, 3, 2)) != TC_OK)
        return fail(w, r);
    tc_term e[2] = {tc_make_pid(1, 0), *y(p, 0)};
    tc_term reply = put_tuple(p, e, 2);
    if (reply == TC_NON_VALUE)
        return fail(w, TC_ENOMEM);
    tc_proc_set_arity(p, 2);
    r = tc_send_maybe_gc(p, w->tester, &reply, false, &w->copy);
    if (r != TC_OK)
        return fail(w, r);
    tc_sched_wake(&w->tester_t);
    x(p)[0] = *y(p, 0);
    deallocate(p, 1);
    w->server_up = false;
    tc_proc_set_arity(p, 1);
    return TC_STEP_CONTINUE;
}

/* eras_ep:tracer/1 as far as the tester sees it: each pass's name arrives; where the VM has
 * erlang:trace_delivered the tracer answers `marked` once the pass's events are in. */
static tc_step tracer_step(tc_task *t)
{
    run *w = t->state;
    tc_term msg;
    if (!tc_sched_receive(t, &msg))
        return t->error != TC_OK ? fail(w, t->error) : TC_STEP_WAIT;
    if (w->r13b) {
        tc_term marked = w->marked_atom;
        tc_result r = tc_send_maybe_gc(t->proc, w->tester, &marked, false, &w->copy);
        if (r != TC_OK)
            return fail(w, r);
        tc_sched_wake(&w->tester_t);
    }
    return TC_STEP_CONTINUE;
}

/* ---- the tester ------------------------------------------------------------------------- */

/* Data where lists:seq returned it: for a shape other than ints (or a caller's payload), the
 * whole term copied onto the heap as a spawn argument is. */
static tc_result place_data(run *w, tc_term data)
{
    tc_proc *p = w->tester;
    uint64_t words;
    tc_result r = tc_term_flat_size(data, &words);
    if (r == TC_OK)
        r = test_heap(p, words, 0);
    tc_term copy;
    if (r == TC_OK && (r = tc_proc_copy_in(p, data, words, &copy)) == TC_OK)
        x(p)[0] = copy;
    return r;
}

/* After lists:seq returns Data in x0: test_heap 2,1, spawn(eras_ep, server, [Data]) (the
 * server's heap sized for [Data], erl_create_process), test_heap 4,1 and [self(), S], call
 * trace_on(Tracer, Pids). */
static tc_step after_seq(run *w)
{
    tc_proc *p = w->tester;
    tc_result r = test_heap(p, 2, 1);
    if (r != TC_OK)
        return fail(w, r);
    *y(p, 2) = x(p)[0];
    tc_term args = put_list(p, x(p)[0], TC_NIL);
    uint64_t words;
    if (args == TC_NON_VALUE)
        return fail(w, TC_ENOMEM);
    tc_policy sp = w->cfg->policy, preset;
    if (tc_policy_preset(sp.name, &preset) == TC_OK)
        sp.min_heap_size = preset.min_heap_size; /* spawned without options */
    tc_term sargs;
    if ((r = tc_estack_size_object(w->mem, args, NULL, NULL, &words)) != TC_OK || /* erl_create_process */
        (r = tc_proc_spawn(w->mem, &sp, words, &w->server)) != TC_OK ||
        (r = tc_proc_copy_in(w->server, args, words, &sargs)) != TC_OK)
        return fail(w, r);
    traced(w, w->server);
    x(w->server)[0] = tc_car(sargs);
    tc_proc_set_arity(w->server, 1);
    tc_sched_spawn(&w->sched, &w->server_t, w->server, server_step, w);
    tc_sched_bump(&w->tester_t, 1); /* the spawn BIF */
    x(p)[0] = tc_make_pid(1, 0);
    if ((r = test_heap(p, 4, 1)) != TC_OK)
        return fail(w, r);
    *y(p, 1) = x(p)[0];
    tc_term pids = put_list(p, *y(p, 1), TC_NIL);
    pids = pids == TC_NON_VALUE ? pids : put_list(p, tc_make_pid(0, 0), pids);
    if (pids == TC_NON_VALUE)
        return fail(w, TC_ENOMEM);
    x(p)[0] = *y(p, 6);
    x(p)[1] = pids;
    return dispatch(w, TRACE_ON, 2);
}

/* After trace_on returns: [set] (R10B: built, test_heap 2), ets:new (a table id, a small),
 * call tests/0. */
static tc_step after_trace(run *w)
{
    tc_proc *p = w->tester;
    if (!w->r13b) {
        tc_result r = test_heap(p, 2, 0);
        if (r != TC_OK)
            return fail(w, r);
        if (put_list(p, w->get_atom, TC_NIL) == TC_NON_VALUE)
            return fail(w, TC_ENOMEM);
    }
    tc_ets_opts eo = tc_ets_opts_default(TC_ETS_LOCK_NONE);
    eo.copy_out = w->cfg->policy.copy_out;
    eo.grow = w->cfg->policy.ets_grow;
    eo.term_head = w->cfg->policy.ets_term_head;
    eo.alloc_lock = w->cfg->policy.mem.thread_safe;
    tc_result r = tc_ets_new(&eo, &w->table);
    if (r == TC_OK) /* one mseg cache for the scheduler's heaps and objects (erl_mseg.c) */
        r = tc_ets_share_segments(w->table, w->mem);
    if (r != TC_OK)
        return fail(w, r);
    tc_sched_bump(&w->tester_t, 1); /* the BIF */
    *y(p, 0) = tc_make_small(1);
    return dispatch(w, TESTS, 0);
}

/* The comprehension's call of itself or pass/7's return into it: x0 the tests left, x1 Data,
 * x2 S, x3 T, x4 Tracer, x5 Keys, x6 N. */
static void lc_args(tc_proc *p, tc_term tail, tc_term data, tc_term tracer, tc_term keys, tc_term n)
{
    tc_term *xr = x(p);
    xr[0] = tail;
    xr[1] = data;
    xr[2] = tc_make_pid(1, 0);
    xr[3] = tc_make_small(1);
    xr[4] = tracer;
    xr[5] = keys;
    xr[6] = n;
}

static bool tests_done(const run *w, tc_term tail)
{
    return w->r13b ? tc_small_val(tail) >= TC_EP_EMPTY + 1 : tail == TC_NIL;
}

/* R10B: the heap list's head; R13B: the literal list is an index into tests(). */
static tc_term tests_head(const run *w, tc_term tail) { return w->r13b ? tc_make_small(tc_small_val(tail)) : tc_car(tail); }
static tc_term tests_tail(const run *w, tc_term tail) { return w->r13b ? tc_make_small(tc_small_val(tail) + 1) : tc_cdr(tail); }

static int pass_of(const run *w, tc_term test)
{
    if (w->r13b)
        return (int)tc_small_val(test);
    for (int k = 0; k < TC_EP_EMPTY + 1; k++)
        if (w->tests_list[k] == test)
            return k;
    return -1;
}

/* After the loop returns into pass/7: now (y5), statistics (y4), call mark(Tracer, Test). */
static tc_step after_body(run *w)
{
    tc_proc *p = w->tester;
    uint64_t t1 = tc_timing_now_ns();
    w->out[w->pass].us = ((double)(t1 - w->t0) - tc_timing_overhead_ns()) / 1000.0;
    if (w->cfg->pass_hook)
        w->cfg->pass_hook(w->cfg->pass_ctx, w->pass, false);
    tc_proc_set_arity(p, 0);
    tc_term t1v, g1;
    tc_result r = now_bif(p, &t1v);
    if (r != TC_OK)
        return fail(w, r);
    *y(p, 5) = t1v;
    if ((r = now_bif(p, &g1)) != TC_OK)
        return fail(w, r);
    *y(p, 4) = tc_make_small(0);
    tc_sched_bump(&w->tester_t, 2);
    x(p)[0] = *y(p, 7);
    x(p)[1] = *y(p, 1);
    *y(p, 7) = TC_NIL;
    return dispatch(w, MARK, 2);
}

static tc_step tester_step(tc_task *t)
{
    run *w = t->state;
    tc_proc *p = t->proc;
    tc_term *xr = x(p);
    tc_result r = TC_OK;
    switch (w->pc) {
    case TESTER: /* allocate 7,4; N, Keys, Parent and Tracer to y3, y4, y5, y6; lists:seq(1, L) */
        if ((r = ah(p, 7, 0, 4)) != TC_OK)
            return fail(w, r);
        *y(p, 3) = tc_tuple_element(xr[2], 1);
        *y(p, 4) = tc_tuple_element(xr[2], 2);
        *y(p, 5) = xr[0];
        *y(p, 6) = xr[3];
        xr[0] = tc_make_small(1);
        xr[1] = tc_make_small(w->cfg->len);
        return dispatch(w, SEQ2, 2);
    case SEQ2:
        if (w->data != TC_NON_VALUE) {
            if ((r = place_data(w, w->data)) != TC_OK)
                return fail(w, r);
            return after_seq(w);
        }
        if (w->r13b) { /* seq_loop(Last - First + 1, Last, []) */
            xr[0] = tc_make_small(w->cfg->len);
            xr[1] = tc_make_small(w->cfg->len);
            xr[2] = TC_NIL;
            return dispatch(w, SEQ_LOOP, 3);
        }
        xr[2] = tc_make_small(1); /* seq(Min, Max, 1, []) */
        xr[3] = TC_NIL;
        return dispatch(w, SEQ4, 4);
    case SEQ4: { /* seq(Min, Min, _, L) -> [Min|L]; seq(Min, Max, I, L) -> seq(Min, Max-I, I, [Max|L]) */
        if ((r = test_heap(p, 2, 4)) != TC_OK)
            return fail(w, r);
        bool last = xr[1] == xr[0];
        tc_term l = put_list(p, xr[1], xr[3]);
        if (l == TC_NON_VALUE)
            return fail(w, TC_ENOMEM);
        if (last) {
            xr[0] = l;
            return after_seq(w);
        }
        xr[3] = l;
        xr[1] = tc_make_small(tc_small_val(xr[1]) - 1);
        return dispatch(w, SEQ4, 4);
    }
    case SEQ_LOOP: { /* seq_loop(N, X, L): 4 cells (test_heap 8, live 7), 2 (4, 5), 1 (2, 3) or none */
        int64_t n = tc_small_val(xr[0]), xv = tc_small_val(xr[1]);
        int64_t k = n >= 4 ? 4 : n >= 2 ? 2 : n;
        unsigned live = k == 4 ? 7 : k == 2 ? 5 : 3;
        for (unsigned i = 3; i < live; i++) /* the clause's arithmetic, done before its heap test: smalls */
            xr[i] = tc_make_small(xv - (int64_t)(i - 2));
        if (k > 0 && (r = test_heap(p, 2 * (uint64_t)k, live)) != TC_OK)
            return fail(w, r);
        tc_term l = xr[2];
        for (int64_t i = 0; i < k && l != TC_NON_VALUE; i++)
            l = put_list(p, tc_make_small(xv - i), l);
        if (l == TC_NON_VALUE)
            return fail(w, TC_ENOMEM);
        if (n < 2) {
            xr[0] = l;
            return after_seq(w);
        }
        xr[0] = tc_make_small(n - k);
        xr[1] = tc_make_small(xv - k);
        xr[2] = l;
        return dispatch(w, SEQ_LOOP, 3);
    }
    case TRACE_ON: { /* allocate 1,2; make_fun2 of the tracer's pid; call_ext_last lists:foreach/2 */
        if ((r = ah(p, 1, 0, 2)) != TC_OK)
            return fail(w, r);
        *y(p, 0) = xr[1];
        xr[0] = tc_tuple_element(xr[0], 1);
        /* beam_emu.c new_fun: erts_garbage_collect when HEAP_LIMIT - HTOP <= needed */
        tc_proc_set_arity(p, 1);
        if (tc_proc_heap_room(p) <= ERL_FUN_SIZE + 1 && (r = tc_gc_collect(p, ERL_FUN_SIZE + 1, xr, 1)) != TC_OK)
            return fail(w, r);
        tc_term env[ERL_FUN_SIZE] = {tc_make_small(0), tc_make_small(0), tc_make_small(0), tc_make_small(0),
                                     tc_make_small(0), xr[0]};
        tc_term *hp = tc_proc_heap_reserve(p, ERL_FUN_SIZE + 1);
        if (!hp)
            return fail(w, TC_ENOMEM);
        tc_proc_heap_commit(p, ERL_FUN_SIZE + 1);
        hp[0] = TC_MAKE_HEADER(ERL_FUN_SIZE, TC_SUBTAG_ARITYVAL); /* a tuple stands for the fun thing */
        memcpy(hp + 1, env, sizeof env);
        xr[0] = tc_make_boxed(hp);
        xr[1] = *y(p, 0);
        deallocate(p, 1);
        return dispatch(w, FOREACH, 2);
    }
    case FOREACH: /* foreach(F, [H|T]) -> F(H), foreach(F, T); foreach(_, []) -> ok */
        if (xr[1] == TC_NIL)
            return after_trace(w);
        if ((r = ah(p, 2, 0, 2)) != TC_OK)
            return fail(w, r);
        *y(p, 0) = tc_cdr(xr[1]);
        *y(p, 1) = xr[0];
        xr[0] = tc_car(xr[1]);
        xr[1] = tc_tuple_element(*y(p, 1), ERL_FUN_SIZE); /* call_fun: the environment follows */
        return dispatch(w, TRACE_FUN, 2);
    case TRACE_FUN: { /* test_heap 7,2: [garbage_collection, {tracer, T}]; erlang:trace/3; return */
        if ((r = test_heap(p, 7, 2)) != TC_OK)
            return fail(w, r);
        tc_term tr[2] = {w->get_atom, xr[1]};
        tc_term opt = put_tuple(p, tr, 2);
        opt = opt == TC_NON_VALUE ? opt : put_list(p, opt, TC_NIL);
        opt = opt == TC_NON_VALUE ? opt : put_list(p, w->get_atom, opt);
        if (opt == TC_NON_VALUE)
            return fail(w, TC_ENOMEM);
        tc_sched_bump(t, 1); /* the BIF */
        if (!w->counting && xr[0] == tc_make_pid(0, 0)) { /* the tester's own trace is on */
            w->counting = true;
            w->last = take(w);
        }
        xr[1] = *y(p, 0);
        xr[0] = *y(p, 1);
        deallocate(p, 2);
        return dispatch(w, FOREACH, 2);
    }
    case TESTS: { /* R10B: test_heap 14,0 and the list; R13B: a literal */
        tc_term list = tc_make_small(0);
        if (!w->r13b) {
            if ((r = test_heap(p, 14, 0)) != TC_OK)
                return fail(w, r);
            list = TC_NIL;
            for (int k = TC_EP_EMPTY; k >= 0 && list != TC_NON_VALUE; k--)
                list = put_list(p, w->tests_list[k], list);
            if (list == TC_NON_VALUE)
                return fail(w, TC_ENOMEM);
        }
        /* back in tester/4: y2..y4 die, the comprehension gets Data, S, T, Tracer, Keys, N */
        tc_term data = *y(p, 2), keys = *y(p, 4), n = *y(p, 3);
        *y(p, 2) = *y(p, 3) = *y(p, 4) = TC_NIL;
        lc_args(p, list, data, *y(p, 6), keys, n);
        return dispatch(w, LC, 7);
    }
    case LC: /* [pass(Test, ...) || Test <- Tests]: allocate 7,7, the tail in y0, the rest y1..y6 */
        if (tests_done(w, xr[0]))
            return TC_STEP_DONE;
        if ((r = ah(p, 7, 0, 7)) != TC_OK)
            return fail(w, r);
        *y(p, 0) = tests_tail(w, xr[0]);
        *y(p, 6) = xr[1];
        *y(p, 5) = xr[2];
        *y(p, 4) = xr[3];
        *y(p, 3) = xr[4];
        *y(p, 2) = xr[5];
        *y(p, 1) = xr[6];
        {
            tc_term test = tests_head(w, xr[0]), keys = xr[5], n = xr[6], data = xr[1], tracer = xr[4];
            xr[0] = test;
            xr[1] = keys;
            xr[2] = n;
            xr[3] = tc_make_pid(1, 0);
            xr[4] = tc_make_small(1);
            xr[5] = data;
            xr[6] = tracer;
        }
        return dispatch(w, PASS, 7);
    case PASS: { /* allocate 8,7; statistics; now (T0 in y6); call body(Test, Keys, N, S, T, Data) */
        if ((r = ah(p, 8, 0, 7)) != TC_OK)
            return fail(w, r);
        for (unsigned i = 0; i < 7; i++)
            *y(p, 1 + i) = xr[i];
        w->pass = pass_of(w, xr[0]);
        tc_proc_set_arity(p, 0);
        tc_term g0, t0;
        if ((r = now_bif(p, &g0)) != TC_OK || (r = now_bif(p, &t0)) != TC_OK)
            return fail(w, r);
        tc_sched_bump(t, 2);
        *y(p, 0) = tc_make_small(0);
        for (unsigned i = 0; i < 6; i++)
            xr[i] = *y(p, 1 + i);
        *y(p, 6) = t0;
        for (unsigned i = 2; i <= 5; i++)
            *y(p, i) = TC_NIL;
        if (w->cfg->pass_hook)
            w->cfg->pass_hook(w->cfg->pass_ctx, w->pass, true);
        w->t0 = tc_timing_now_ns();
        return dispatch(w, BODY, 6);
    }
    case BODY: { /* the pass's loop: call_only with its arguments */
        tc_term n = xr[2], tab = xr[4], data = xr[5]; /* x1, Keys: the loops know it as hot_key */
        switch (w->pass) {
        case TC_EP_LOOKUP: { /* keep_result: one more argument, the previous result ([] first) */
            unsigned keep = w->cfg->keep_result ? 1 : 0;
            xr[0] = tab;
            if (w->cfg->hot_key) {
                xr[1] = n;
                xr[2] = TC_NIL;
                return dispatch(w, HOT_LOOP, 2 + keep);
            }
            xr[1] = tc_make_small(1);
            xr[2] = n;
            xr[3] = TC_NIL;
            return dispatch(w, LOOKUP_LOOP, 3 + keep);
        }
        case TC_EP_INSERT:
        case TC_EP_OVERWRITE:
            xr[0] = tab;
            xr[1] = tc_make_small(1);
            xr[2] = n;
            xr[3] = data;
            return dispatch(w, INSERT_LOOP, 4);
        case TC_EP_EMPTY:
            xr[0] = n;
            return dispatch(w, EMPTY_LOOP, 1);
        default:
            xr[0] = tc_make_pid(1, 0);
            xr[1] = n;
            return dispatch(w, CALL_LOOP, 2);
        }
    }
    case CALL_LOOP: { /* allocate_heap 2,3; S ! {self(), get}; receive {S, _}; call_last */
        if (w->awaiting) {
            tc_term reply;
            if (!tc_sched_receive(t, &reply))
                return t->error != TC_OK ? fail(w, t->error) : TC_STEP_WAIT;
            w->awaiting = false;
            xr[1] = tc_make_small(tc_small_val(*y(p, 1)) - 1);
            xr[0] = *y(p, 0);
            deallocate(p, 2);
            return dispatch(w, CALL_LOOP, 2);
        }
        if (tc_small_val(xr[1]) == 0)
            return after_body(w);
        if ((r = ah(p, 2, 3, 2)) != TC_OK)
            return fail(w, r);
        *y(p, 1) = xr[1];
        *y(p, 0) = xr[0];
        tc_term e[2] = {tc_make_pid(0, 0), w->get_atom};
        tc_term req = put_tuple(p, e, 2);
        if (req == TC_NON_VALUE)
            return fail(w, TC_ENOMEM);
        tc_proc_set_arity(p, 2);
        if ((r = tc_send_maybe_gc(p, w->server, &req, true, &w->copy)) != TC_OK)
            return fail(w, r);
        tc_sched_wake(&w->server_t);
        w->awaiting = true;
        tc_proc_set_arity(p, 0);
        return TC_STEP_WAIT; /* loop_rec finds nothing yet: wait */
    }
    case INSERT_LOOP: { /* allocate_heap 4,3; ets:insert(T, {I, Data}); call_last */
        int64_t i = tc_small_val(xr[1]);
        if (i > tc_small_val(xr[2]))
            return after_body(w);
        if ((r = ah(p, 4, 3, 4)) != TC_OK)
            return fail(w, r);
        for (unsigned k = 0; k < 4; k++)
            *y(p, k) = xr[k];
        tc_term e[2] = {xr[1], xr[3]};
        tc_term obj = put_tuple(p, e, 2), res = tc_make_small(1);
        if (obj == TC_NON_VALUE)
            return fail(w, TC_ENOMEM);
        tc_heapfrag *entry = tc_proc_bif_enter(p);
        if ((r = tc_ets_insert(w->table, obj, &w->copy)) != TC_OK || (r = tc_proc_bif_return_maybe_gc(p, entry, &res)) != TC_OK)
            return fail(w, r);
        tc_sched_bump(t, 1);
        xr[1] = tc_make_small(i + 1);
        xr[2] = *y(p, 2);
        xr[3] = *y(p, 3);
        xr[0] = *y(p, 0);
        deallocate(p, 4);
        return dispatch(w, INSERT_LOOP, 4);
    }
    case LOOKUP_LOOP:
    case HOT_LOOP: { /* allocate 3,3 (hot: 2,2); ets:lookup(T, Key), the result dropped; call_last.
                      * keep_result (not eras_ep's code): the previous result one more argument
                      * and y slot, live through this lookup's GC, as the seed's model keeps it */
        bool hot = w->pc == HOT_LOOP;
        int64_t i = tc_small_val(xr[1]);
        if (hot ? i == 0 : i > tc_small_val(xr[2]))
            return after_body(w);
        unsigned ys = (hot ? 2u : 3u) + (w->cfg->keep_result ? 1u : 0u);
        if ((r = ah(p, ys, 0, ys)) != TC_OK)
            return fail(w, r);
        for (unsigned k = 0; k < ys; k++)
            *y(p, k) = xr[k];
        tc_heapfrag *entry = tc_proc_bif_enter(p);
        tc_term res;
        if ((r = tc_ets_lookup(w->table, hot ? tc_make_small(1) : xr[1], tc_proc_alloc(p), &res, &w->copy)) != TC_OK ||
            (r = tc_proc_bif_return_maybe_gc(p, entry, &res)) != TC_OK)
            return fail(w, r);
        tc_sched_bump(t, 1);
        xr[1] = tc_make_small(hot ? i - 1 : i + 1);
        xr[0] = *y(p, 0);
        if (!hot)
            xr[2] = *y(p, 2);
        if (w->cfg->keep_result)
            xr[ys - 1] = res;
        deallocate(p, ys);
        return dispatch(w, w->pc, ys);
    }
    case EMPTY_LOOP:
        if (tc_small_val(xr[0]) == 0)
            return after_body(w);
        xr[0] = tc_make_small(tc_small_val(xr[0]) - 1);
        return dispatch(w, EMPTY_LOOP, 1);
    case MARK: { /* R10B: allocate 0,3 and Tracer ! Test; R13B: allocate 1,3, the send, receive marked */
        if (w->awaiting) {
            tc_term got;
            if (!tc_sched_receive(t, &got))
                return t->error != TC_OK ? fail(w, t->error) : TC_STEP_WAIT;
            w->awaiting = false;
            deallocate(p, 1);
        } else {
            xr[2] = tc_make_pid(2, 0);
            if ((r = ah(p, w->r13b ? 1 : 0, 0, 3)) != TC_OK)
                return fail(w, r);
            if (w->r13b)
                *y(p, 0) = xr[1];
            tc_term test = xr[1];
            tc_proc_set_arity(p, 2);
            if ((r = tc_send_maybe_gc(p, w->tracer, &test, true, &w->copy)) != TC_OK)
                return fail(w, r);
            tc_sched_wake(&w->tracer_t);
            mark_counts(w);
            w->phase = w->pass + 1;
            if (w->r13b) {
                w->awaiting = true;
                tc_proc_set_arity(p, 0);
                return TC_STEP_WAIT;
            }
            deallocate(p, 0);
        }
        /* back in pass/7: timer:now_diff(T1, T0) */
        xr[1] = *y(p, 6);
        xr[0] = *y(p, 5);
        *y(p, 5) = *y(p, 6) = TC_NIL;
        return dispatch(w, NOW_DIFF, 2);
    }
    case NOW_DIFF: { /* smalls only; back in pass/7: test_heap 4, {Test, Us, G1 - G0}; return */
        if (w->pass == TC_EP_EMPTY) {
            w->pc = FINISHED;
            return TC_STEP_DONE;
        }
        xr[0] = tc_make_small(1);
        if ((r = test_heap(p, 4, w->r13b ? 2 : 1)) != TC_OK)
            return fail(w, r);
        tc_term e[3] = {*y(p, 1), xr[0], tc_make_small(0)};
        tc_term res = put_tuple(p, e, 3);
        if (res == TC_NON_VALUE)
            return fail(w, TC_ENOMEM);
        deallocate(p, 8);
        /* the comprehension: its result to y6, the next level called with Data from y6 first */
        tc_term data = *y(p, 6);
        *y(p, 6) = res;
        lc_args(p, *y(p, 0), data, *y(p, 3), *y(p, 2), *y(p, 1));
        for (unsigned i = 0; i <= 5; i++)
            *y(p, i) = TC_NIL;
        if (w->r13b) { /* trim 6,1: y0..y5 go, the result is the frame's y0 under its CP */
            tc_proc_pop(p, 6);
            *tc_proc_stack_slot(p, 0) = TC_NIL;
        }
        return dispatch(w, LC, 7);
    }
    case FINISHED:
        return TC_STEP_DONE;
    }
    return fail(w, TC_EBADARG);
}

/* ---- the run ---------------------------------------------------------------------------- */

static void free_run(run *w)
{
    tc_proc_free(w->tester);
    tc_proc_free(w->server);
    tc_proc_free(w->tracer);
    tc_ets_free(w->table);
    tc_mseg_free(w->mem);
}

tc_result tc_erasep_run(const tc_ep_config *cfg, tc_ep_counts out[TC_EP_TESTS])
{
    if (cfg->policy.tester != TC_TESTER_ERAS_EP_R10B && cfg->policy.tester != TC_TESTER_ERAS_EP_R13B)
        return TC_EBADARG;
    run w = {.cfg = cfg, .r13b = cfg->policy.tester == TC_TESTER_ERAS_EP_R13B, .out = out, .pc = TESTER};
    memset(out, 0, TC_EP_TESTS * sizeof *out);
    static const char *const names[TC_EP_EMPTY + 1] = {"proc1", "proc2", "proc3", "ets_insert",
                                                        "ets_overwrite", "ets_lookup", "empty"};
    tc_result r = tc_atom_intern("get", 3, &w.get_atom);
    if (r == TC_OK)
        r = tc_atom_intern("marked", 6, &w.marked_atom);
    for (int k = 0; k <= TC_EP_EMPTY && r == TC_OK; k++)
        r = tc_atom_intern(names[k], strlen(names[k]), &w.tests_list[k]);
    if (r != TC_OK)
        return r;
    if (!(w.mem = tc_mseg_new(&cfg->policy.mem)))
        return TC_ENOMEM;
    tc_sched_init(&w.sched);
    /* the tracer (its own heap is not the benchmark's), then the tester spawned with
     * [Parent, L, {N, Keys}, {Tracer, Delivered}]: 8 list words and two 3-word tuples */
    tc_policy tp = cfg->policy, preset;
    if (tc_policy_preset(tp.name, &preset) == TC_OK)
        tp.min_heap_size = preset.min_heap_size;
    tc_arena *arena = tc_arena_new(0);
    if (!arena) {
        free_run(&w);
        return TC_ENOMEM;
    }
    tc_alloc *a = tc_arena_alloc(arena);
    w.data = cfg->payload;
    if (w.data == TC_NON_VALUE && cfg->shape != TC_EP_INTS)
        r = tc_ep_build_payload(a, cfg->shape, cfg->len, &w.data);
    tc_term nk[2] = {tc_make_small(cfg->iterations), w.get_atom};
    tc_term tr[2] = {tc_make_pid(2, 0), w.marked_atom};
    tc_term targs[4] = {tc_make_pid(3, 0), tc_make_small(cfg->len), tc_term_tuple(a, nk, 2), tc_term_tuple(a, tr, 2)};
    tc_term args = tc_term_list(a, targs, 4, TC_NIL);
    uint64_t words = 0;
    tc_term copied;
    if (args == TC_NON_VALUE)
        r = TC_ENOMEM;
    if (r == TC_OK && (r = tc_proc_new(w.mem, &tp, &w.tracer)) == TC_OK && (r = tc_term_flat_size(args, &words)) == TC_OK &&
        (r = tc_proc_spawn(w.mem, &cfg->policy, words, &w.tester)) == TC_OK)
        r = tc_proc_copy_in(w.tester, args, words, &copied);
    if (r == TC_OK) {
        traced(&w, w.tester);
        for (unsigned i = 0; i < 4; i++, copied = tc_cdr(copied))
            x(w.tester)[i] = tc_car(copied);
        tc_proc_set_arity(w.tester, 4);
        tc_sched_spawn(&w.sched, &w.tracer_t, w.tracer, tracer_step, &w);
        tc_sched_spawn(&w.sched, &w.tester_t, w.tester, tester_step, &w);
        r = tc_sched_run(&w.sched);
    }
    tc_arena_free(arena); /* Data's arena copy was read by then */
    if (r == TC_OK && w.error != TC_OK)
        r = w.error;
    if (r == TC_OK && w.pc != FINISHED)
        r = TC_EBADARG; /* the program stopped short of its last mark */
    if (r == TC_OK && cfg->verify) {
        const char *why;
        if (!tc_heap_verify(w.tester, &why) || (w.server && !tc_heap_verify(w.server, &why))) {
            fprintf(stderr, "eptest: heap verifier failed: %s\n", why);
            r = TC_EBADARG;
        }
    }
    free_run(&w);
    return r;
}
