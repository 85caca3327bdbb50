#include "workload.h"

#include "erasep.h"
#include "workload_impl.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../copy/copy_struct.h"
#include "../codec/ext.h"
#include "../copy/literal.h"
#include "timing.h"
#include "../alloc/estack.h"
#include "../alloc/faults.h"
#include "../stores/ets.h"
#include "../heaps/gc.h"
#include "../heaps/sched.h"
#include "../heaps/verify.h"
#include "../terms/hashmap.h"
#include "../terms/layout.h"
#include "../terms/arena.h"
#include "../terms/atom.h"
#include "../terms/binary.h"
#include "../terms/size.h"

const char *const tc_ep_shape_names[TC_EP_SHAPES] = {"ints", "floats", "tuple", "nested", "strings", "binary", "map"};
const char *const tc_ep_test_names[TC_EP_TESTS] = {"proc1",         "proc2",      "proc3", "ets_insert",
                                                   "ets_overwrite", "ets_lookup", "empty",      "pt_get"};

tc_result tc_ep_config_for_era(const char *era, tc_ep_config *out)
{
    tc_ep_config c = {.len = 1000, .iterations = 1000, .shape = TC_EP_INTS};
    tc_result r = tc_policy_preset(era, &c.policy);
    if (r != TC_OK)
        return r;
    *out = c;
    return TC_OK;
}

/* The world of one run: the memory source, the scheduler, the tester process (and, in
 * eptest.erl's life, its one server and the meter that reads the counters at each mark). */
typedef struct world {
    const tc_ep_config *cfg;
    tc_mseg *mem;
    tc_sched sched;
    tc_proc *tester;
    const tc_ets *table; /* its ets_alloc source's carriers count with the heaps' */
    tc_copy_stats copy;
    tc_term get_atom;
    tc_ep_where at[TC_EP_ROLES];   /* where each process is, for cfg->trace */
    tc_proc *server, *meter;
    tc_task *tester_task, *server_task, *meter_task; /* the tester's task of the moment */
    tc_task server_t, meter_t;                        /* the server's and the meter's, for the run */
    tc_ets *work_table;
    tc__ep_snapshot snap[2]; /* the meter's reads at a pass's two marks */
    int nsnap, pass;
    tc_term pending_fun, marked_atom;
    int64_t tester_reds; /* what is left of the tester's slice between its tasks */
    double clock_ns;     /* cfg->clock's time at the start of the pass */
} world;

/* The proc.h trace hook of the tester and the servers: adds where the event happened. */
static void on_heap_event(void *ctx, const tc_proc *p, const tc_heap_event *ev)
{
    world *w = ctx;
    tc_ep_role role = p == w->tester ? TC_EP_TESTER : TC_EP_SERVER;
    w->cfg->trace(w->cfg->trace_ctx, role, &w->at[role], p, ev);
}

/* The scheduler's draw hook: adds whose GC it is and where that process was. */
static void on_draw(void *ctx, unsigned index, const tc_task *t, tc_draw outcome)
{
    world *w = ctx;
    tc_ep_role role = t->proc == w->tester ? TC_EP_TESTER : TC_EP_SERVER;
    w->cfg->draw(w->cfg->trace_ctx, index, role, &w->at[role], outcome);
}

static void traced(world *w, tc_proc *p)
{
    if (w->cfg->trace)
        tc_proc_set_trace(p, on_heap_event, w);
    tc_proc_set_trace_receive(p, w->cfg->trace_receive);
}

/* The pass `test` begins (after false) or ends (after true) for the tester. */
static void enter(world *w, int test, bool after)
{
    w->at[TC_EP_TESTER] = (tc_ep_where){.test = test, .after = after, .op = after ? 0 : 1};
    w->at[TC_EP_SERVER] = (tc_ep_where){.test = test, .after = after, .op = 0};
}

/* ---- payloads -------------------------------------------------------------------------- */

tc_result tc_ep_build_payload(tc_alloc *a, tc_ep_shape sh, long len, tc_term *out)
{
    tc_term acc = TC_NIL;
    switch (sh) {
    case TC_EP_INTS:
    case TC_EP_FLOATS:
    case TC_EP_STRINGS:
        for (long i = len; i >= 1; i--) {
            tc_term e;
            if (sh == TC_EP_INTS) {
                e = tc_make_small(i);
            } else if (sh == TC_EP_FLOATS) {
                e = tc_term_float(a, (double)i);
            } else {
                char digits[24];
                int n = snprintf(digits, sizeof digits, "%ld", i);
                tc_term chars[24];
                for (int k = 0; k < n; k++)
                    chars[k] = tc_make_small(digits[k]);
                e = tc_term_list(a, chars, (size_t)n, TC_NIL);
            }
            if (e == TC_NON_VALUE || (acc = tc_term_cons(a, e, acc)) == TC_NON_VALUE)
                return TC_ENOMEM;
        }
        break;
    case TC_EP_TUPLE: {
        tc_term *elems = tc_mem_alloc((size_t)len * sizeof *elems);
        if (!elems)
            return TC_ENOMEM;
        for (long i = 0; i < len; i++)
            elems[i] = tc_make_small(i + 1);
        acc = tc_term_tuple(a, elems, (uint64_t)len);
        tc_mem_free(elems);
        break;
    }
    case TC_EP_NESTED:
        for (long i = len; i >= 1 && acc != TC_NON_VALUE; i--) {
            tc_term e[2] = {tc_make_small(i), acc};
            acc = tc_term_tuple(a, e, 2);
        }
        break;
    case TC_EP_BINARY: {
        unsigned char *zero = tc_mem_calloc((size_t)len + 1, 1);
        if (!zero)
            return TC_ENOMEM;
        acc = tc_term_binary(a, zero, (size_t)len);
        tc_mem_free(zero);
        break;
    }
    case TC_EP_MAP: {
        tc_term *kv = tc_mem_alloc(2 * (size_t)len * sizeof *kv);
        if (!kv)
            return TC_ENOMEM;
        for (long i = 0; i < len; i++)
            kv[2 * i] = kv[2 * i + 1] = tc_make_small(i + 1);
        tc_result r = tc_term_map(a, kv, (size_t)len, &acc);
        tc_mem_free(kv);
        if (r != TC_OK)
            return r;
        break;
    }
    default:
        return TC_EBADARG;
    }
    if (acc == TC_NON_VALUE)
        return TC_ENOMEM;
    *out = acc;
    return TC_OK;
}

tc_result tc_ep_payload_words(tc_ep_shape shape, long len, uint64_t *words)
{
    tc_arena *a = tc_arena_new(0);
    if (!a)
        return TC_ENOMEM;
    tc_term t;
    tc_result r = tc_ep_build_payload(tc_arena_alloc(a), shape, len, &t);
    if (r == TC_OK)
        r = tc_term_flat_size(t, words);
    tc_arena_free(a);
    return r;
}

/* Data lives in the process's bottom stack slot. */
static tc_term data_of(tc_proc *p) { return *tc_proc_stack_slot(p, tc_proc_stack_size(p) - 1); }

/*
 * The stack eptest.erl's processes run on, in words, as the VM's GC trace reports it
 * (stack_size at each GC start; experiments/beam/stackdepth.erl prints it per pass). The
 * stack decides where the heap ends for HAlloc and the GC tests (stop - htop), so a model
 * tester with Data alone on its stack collects later than the VM's (L = 1000: 6 lookups per
 * GC instead of 5). The tester's frames below a pass are tester_body's and its list
 * comprehension's, which keeps 2 words per finished pass: 24 + 2·pass index (proc1 0 ...
 * ets_lookup 5; Data counts as one of them). Each loop's own frame comes on top while it
 * runs and is gone at its tail call: call_loop 3 words, insert_loop 1, lookup_loop 4
 * (so a lookup's GC-after-BIF sees 38 at ets_lookup, a GC at a yield 34). The server's
 * stack is 2. Measured at L = 10, 1000, 10000 (tuple), 3000 (strings): the same.
 */
enum { TESTER_BASE_STACK = 24, SERVER_STACK = 2, CLIENT_FRAME = 3, INSERT_FRAME = 1, LOOKUP_FRAME = 4, PT_FRAME = 3 };

/* Grows the stack with NIL words, as `allocate` does a frame: one heap test for all of them
 * (need + S_RESERVED, the live x registers as roots), then the pushes, which cannot collect
 * any more; or pops it, down to Data at least. */
static tc_result stack_to(tc_proc *p, size_t depth)
{
    size_t have = tc_proc_stack_size(p);
    tc_result r = have < depth ? tc_proc_test_heap_maybe_gc(p, depth - have) : TC_OK;
    while (tc_proc_stack_size(p) < depth && r == TC_OK)
        r = tc_proc_push_maybe_gc(p, TC_NIL);
    size_t n = tc_proc_stack_size(p);
    if (depth < 1)
        depth = 1;
    if (n > depth)
        tc_proc_pop(p, n - depth);
    return r;
}

static size_t tester_base_stack(int test) { return TESTER_BASE_STACK + 2 * (size_t)test; }

/* Copies `t` onto p's heap (as spawn copies its arguments) and keeps it on p's stack. */
tc_result tc_ep_place_on_heap(tc_proc *p, tc_term t)
{
    uint64_t words;
    tc_result r = tc_term_flat_size(t, &words);
    if (r == TC_OK)
        r = tc_proc_test_heap_maybe_gc(p, words + 1);
    if (r != TC_OK)
        return r;
    tc_term copy;
    if ((r = tc_proc_copy_in(p, t, words, &copy)) != TC_OK)
        return r;
    return tc_proc_push_maybe_gc(p, copy);
}

/*
 * What eptest.erl's tester holds when it starts building Data, as the VM's GC trace shows
 * it (experiments/beam/stackdepth.erl's build lines): the 13 words spawn copied onto its heap
 * ([Fun]: a cons and the fun thing with its environment; dead once tester_body runs) and an
 * 11-word stack under lists:seq (12 under list_to_tuple's argument).
 */
enum { TESTER_SPAWN_WORDS = 13, SEQ_STACK = 11, TUPLE_SEQ_STACK = 12 };

/* lists:seq(1, len) as OTP 25's stdlib lists.erl seq_loop builds it: from the last element
 * down, 4 cells per call (a heap test of 8 words), then 2, then 1, the partial list live in
 * x0 (N and X are immediates). */
typedef tc_result (*call_fn)(void *ctx, unsigned live);

static tc_result build_seq_calls(tc_proc *p, long len, call_fn call, void *ctx)
{
    tc_term *x = tc_proc_x(p);
    x[0] = TC_NIL;
    tc_proc_set_arity(p, 1);
    for (long n = len, top = len; n > 0;) {
        long k = n >= 4 ? 4 : n >= 2 ? 2 : 1;
        tc_result r = call ? call(ctx, 1) : TC_OK; /* seq_loop's entry, the partial list live */
        if (r == TC_OK)
            r = tc_proc_test_heap_maybe_gc(p, 2 * (uint64_t)k);
        if (r != TC_OK)
            return r;
        tc_term *hp = tc_proc_halloc(p, 2 * (size_t)k);
        if (!hp)
            return TC_ENOMEM;
        for (long i = 0; i < k; i++) { /* [top-k+1, ..., top | L] */
            hp[2 * i] = tc_make_small(top - i);
            hp[2 * i + 1] = x[0];
            x[0] = tc_make_list(&hp[2 * i]);
        }
        n -= k;
        top -= k;
    }
    /* the last call, seq_loop(0, _, L), only returns the list */
    return call ? call(ctx, 1) : TC_OK;
}

static tc_result build_seq(tc_proc *p, long len) { return build_seq_calls(p, len, NULL, NULL); }

/* list_to_tuple(x0): a BIF whose result HAlloc places (a fragment when the heap is short),
 * then the GC-after-BIF test with the tuple the only live register. */
static tc_result seq_to_tuple(tc_proc *p, long len)
{
    tc_term *x = tc_proc_x(p);
    tc_heapfrag *entry = tc_proc_bif_enter(p);
    tc_term *hp = tc_proc_halloc(p, (size_t)len + 1);
    if (!hp)
        return TC_ENOMEM;
    hp[0] = TC_MAKE_HEADER(len, TC_SUBTAG_ARITYVAL);
    long k = 1;
    for (tc_term l = x[0]; tc_is_list(l); l = tc_cdr(l))
        hp[k++] = tc_car(l);
    x[0] = tc_make_boxed(hp);
    return tc_proc_bif_return_maybe_gc(p, entry, &x[0]);
}

/* Data built as eptest.erl builds ints and tuple (build_seq, seq_to_tuple), from a tester
 * that starts as the VM's: its heap's history (which GCs, what ends up in the old heap)
 * decides the heap sizes of every later pass through the old heap's 1/8 floor. */
static tc_result build_seq_payload(tc_proc *p, tc_ep_shape sh, long len)
{
    tc_term *spawned = tc_proc_halloc(p, TESTER_SPAWN_WORDS);
    if (!spawned)
        return TC_ENOMEM;
    for (int i = 0; i < TESTER_SPAWN_WORDS; i++)
        spawned[i] = TC_NIL;
    tc_result r = stack_to(p, sh == TC_EP_TUPLE ? TUPLE_SEQ_STACK : SEQ_STACK);
    if (r == TC_OK)
        r = build_seq(p, len);
    if (r == TC_OK && sh == TC_EP_TUPLE)
        r = seq_to_tuple(p, len);
    if (r != TC_OK)
        return r;
    tc_proc_pop(p, tc_proc_stack_size(p));
    r = tc_proc_push_maybe_gc(p, tc_proc_x(p)[0]);
    tc_proc_set_arity(p, 0);
    return r;
}

/*
 * Builds Data on the tester's own heap: ints and tuple exactly as the VM's tester does
 * (build_seq_payload); floats, strings and nested element by element from the tail with a
 * heap test before each, the partial term live in x0, from an empty process: the VM builds
 * floats and strings with a body-recursive list comprehension over lists:seq, whose stack
 * grows 2 words per element (17,211 words for floats at L = 10000), not modelled. A binary is
 * one allocation either way, placed like a spawn argument. So is a map: maps:from_list is one
 * BIF over the list of pairs; the model places the finished map and leaves out the pair list
 * the VM's comprehension builds first (5 L words of garbage).
 */
static tc_result build_elements(tc_proc *p, tc_ep_shape sh, long len)
{
    tc_result r = TC_OK;
    bool as_list = sh != TC_EP_NESTED;
    tc_term *x = tc_proc_x(p);
    x[0] = TC_NIL;
    tc_proc_set_arity(p, 1);
    for (long i = len; i >= 1 && r == TC_OK; i--) {
        char digits[24];
        int n = sh == TC_EP_STRINGS ? snprintf(digits, sizeof digits, "%ld", i) : 0;
        uint64_t need = !as_list ? 3 : sh == TC_EP_FLOATS ? TC_FLOAT_SIZE + 2 : 2 * (uint64_t)n + 2;
        if ((r = tc_proc_test_heap_maybe_gc(p, need)) != TC_OK)
            break;
        tc_alloc *a = tc_proc_alloc(p);
        tc_term e = tc_make_small(i);
        if (sh == TC_EP_FLOATS) {
            e = tc_term_float(a, (double)i);
        } else if (sh == TC_EP_STRINGS) {
            tc_term chars[24];
            for (int k = 0; k < n; k++)
                chars[k] = tc_make_small(digits[k]);
            e = tc_term_list(a, chars, (size_t)n, TC_NIL);
        }
        tc_term pair[2] = {e, x[0]};
        x[0] = as_list ? tc_term_cons(a, e, x[0]) : tc_term_tuple(a, pair, 2);
        if (e == TC_NON_VALUE || x[0] == TC_NON_VALUE)
            r = TC_ENOMEM;
    }
    return r;
}

/* A finished term copied onto p's heap into x0 (a binary or a map: one allocation, placed as a
 * spawn argument is). */
static tc_result place_x0(tc_proc *p, tc_term t)
{
    uint64_t words;
    tc_result r = tc_term_flat_size(t, &words);
    if (r == TC_OK)
        r = tc_proc_test_heap_maybe_gc(p, words);
    if (r == TC_OK)
        r = tc_proc_copy_in(p, t, words, &tc_proc_x(p)[0]);
    tc_proc_set_arity(p, 1);
    return r;
}

static tc_result build_on_heap(tc_proc *p, tc_ep_shape sh, long len, tc_term arena_copy)
{
    if (sh == TC_EP_BINARY || sh == TC_EP_MAP)
        return tc_ep_place_on_heap(p, arena_copy);
    if (sh == TC_EP_INTS || sh == TC_EP_TUPLE)
        return build_seq_payload(p, sh, len);
    tc_result r = build_elements(p, sh, len);
    if (r == TC_OK)
        r = tc_proc_push_maybe_gc(p, tc_proc_x(p)[0]);
    tc_proc_set_arity(p, 0);
    return r;
}

/* ---- the processes --------------------------------------------------------------------- */

static tc_step fail(tc_task *t, tc_result r)
{
    t->error = r;
    return TC_STEP_ERROR;
}

typedef struct rpc_state {
    world *w;
    tc_task *peer;
    long left;
    bool awaiting; /* client: sent a request, waiting for the reply */
} rpc_state;

/* Sends {Self, Term} built on p's heap and wakes the peer. The caller has made room for
 * the tuple (test_heap 3) before reading Term: the test may collect and move it. */
static tc_result send_pair(world *w, tc_proc *p, tc_task *peer, tc_term self, tc_term term, tc_term *sent)
{
    tc_term e[2] = {self, term};
    tc_term msg = tc_term_tuple(tc_proc_alloc(p), e, 2);
    /* eptest.erl's processes: busy only while running; the seed's loops kept the first model's
     * rule (busy unless waiting) */
    bool busy = w->cfg->policy.tester == TC_TESTER_EPTEST_ERL ? tc_sched_is_locked(peer) : peer->status != TC_TASK_WAITING;
    tc_result r = tc_send_maybe_gc(p, peer->proc, &msg, busy, &w->copy);
    if (r == TC_OK)
        tc_sched_wake(peer);
    if (sent)
        *sent = msg;
    return r;
}

/* loop(N, S) -> S ! {self(), get}, receive {S, _} -> loop(N - 1, S) end. */
static tc_step client_step(tc_task *t)
{
    rpc_state *st = t->state;
    size_t base = tc_proc_stack_size(t->proc) - (st->awaiting ? CLIENT_FRAME : 0);
    if (st->awaiting) {
        tc_term reply;
        if (!tc_sched_receive(t, &reply))
            return TC_STEP_WAIT;
        st->awaiting = false; /* the reply is dropped; the frame goes before the tail call */
        st->left--;
        st->w->at[TC_EP_TESTER].op = st->w->cfg->iterations - st->left + 1;
        tc_result r = stack_to(t->proc, base);
        return r == TC_OK ? TC_STEP_CONTINUE : fail(t, r);
    }
    if (st->left == 0)
        return TC_STEP_DONE;
    tc_result r = stack_to(t->proc, base + CLIENT_FRAME);
    if (r == TC_OK)
        r = tc_proc_test_heap_maybe_gc(t->proc, 3);
    if (r == TC_OK)
        r = send_pair(st->w, t->proc, st->peer, tc_make_pid(0, 0), st->w->get_atom, NULL);
    if (r != TC_OK)
        return fail(t, r);
    st->awaiting = true;
    return TC_STEP_CONTINUE;
}

/* loop(Data) -> receive {From, get} -> From ! {self(), Data}, loop(Data) end. */
static tc_step server_step(tc_task *t)
{
    rpc_state *st = t->state;
    if (st->left == 0)
        return TC_STEP_DONE;
    tc_term req;
    if (!tc_sched_receive(t, &req))
        return TC_STEP_WAIT;
    st->w->at[TC_EP_SERVER].op = st->w->cfg->iterations - st->left + 1;
    tc_result r = tc_proc_test_heap_maybe_gc(t->proc, 3);
    if (r == TC_OK) /* Data is read after the heap test: a GC there moves it */
        r = send_pair(st->w, t->proc, st->peer, tc_make_pid(1, 0), data_of(t->proc), NULL);
    if (r != TC_OK)
        return fail(t, r);
    tc_sched_bump(t, 1); /* the send, then server(Data)'s call */
    st->left--;
    return TC_STEP_CONTINUE;
}

typedef enum loop_op { OP_INSERT, OP_LOOKUP, OP_EMPTY, OP_PT_GET, OP_PROC } loop_op;

typedef struct loop_state {
    world *w;
    tc_ets *table;
    const tc_copy_literal_area *pt; /* OP_PT_GET: the persistent terms, Data under pt_key */
    loop_op op;
    long i, n;
} loop_state;

static tc_step loop_step(tc_task *t)
{
    loop_state *st = t->state;
    tc_proc *p = t->proc;
    if (st->i == st->n)
        return TC_STEP_DONE;
    st->i++;
    st->w->at[TC_EP_TESTER].op = st->i;
    tc_result r = TC_OK;
    size_t base = tc_proc_stack_size(p);
    if (st->op == OP_INSERT) {
        /* ets:insert(T, {I, Data}) */
        r = stack_to(p, base + INSERT_FRAME);
        if (r == TC_OK)
            r = tc_proc_test_heap_maybe_gc(p, 3);
        if (r == TC_OK) {
            tc_term e[2] = {tc_make_small(st->i), data_of(p)};
            tc_term obj = tc_term_tuple(tc_proc_alloc(p), e, 2);
            r = tc_ets_insert(st->table, obj, &st->w->copy);
        }
        tc_sched_bump(t, 1); /* the BIF, then insert_loop's call */
    } else if (st->op == OP_LOOKUP) {
        /* ets:lookup(T, I): a BIF whose result is built with HAlloc, then dropped. A kept
         * result waits in x0 and is a root of the frame's heap test. */
        r = stack_to(p, base + LOOKUP_FRAME);
        tc_term key = tc_make_small(st->w->cfg->hot_key ? 1 : st->i);
        tc_heapfrag *entry = tc_proc_bif_enter(p);
        tc_term res;
        if (r == TC_OK)
            r = tc_ets_lookup(st->table, key, tc_proc_alloc(p), &res, &st->w->copy);
        if (r == TC_OK)
            r = tc_proc_bif_return_maybe_gc(p, entry, &res);
        if (r == TC_OK && st->w->cfg->keep_result) {
            tc_proc_x(p)[0] = res;
            tc_proc_set_arity(p, 1);
        }
        tc_sched_bump(t, 1); /* the BIF, then lookup_loop's call */
    } else if (st->op == OP_PT_GET) {
        /* persistent_term:get(K): a BIF (call_ext) that returns the stored term itself, no copy
         * and no heap word, through the same GC-after-BIF test as a lookup; pt_loop's frame is
         * erlc's `allocate 2` (2 y slots and the return address) */
        r = stack_to(p, base + PT_FRAME);
        tc_heapfrag *entry = tc_proc_bif_enter(p);
        tc_term res;
        if (r == TC_OK)
            r = tc_copy_literal_get(st->pt, st->w->get_atom, &res);
        if (r == TC_OK)
            r = tc_proc_bif_return_maybe_gc(p, entry, &res);
        tc_sched_bump(t, 1); /* the BIF, then pt_loop's call */
    }
    if (r == TC_OK)
        r = stack_to(p, base); /* the frame goes before the tail call */
    return r == TC_OK ? TC_STEP_CONTINUE : fail(t, r);
}

/* ---- passes ---------------------------------------------------------------------------- */

static void add_proc(tc__ep_snapshot *s, const tc_proc *p)
{
    const tc_proc_stats *st = tc_proc_stats_get(p);
    s->gcs += st->minor_gcs + st->major_gcs;
    s->gc_words += st->words_copied;
    s->frags += st->frags_allocated;
    s->minor += st->minor_gcs;
    s->major += st->major_gcs;
    s->long_gcs += st->long_gcs;
    s->moved += st->msgq_words_moved;
    s->rec_moved += st->rec_words_moved;
    s->frag_traced += st->frag_words_traced;
}

tc__ep_snapshot tc__ep_take(const tc_mseg *mem, const tc_copy_stats *copy, const tc_sched_stats *sched,
                            const tc_ets *table, const tc_proc *tester, const tc_proc *other)
{
    tc__ep_snapshot s = {.faults = (long)tc_faults_minor(), .mem = *tc_mseg_stats_get(mem), .copy = *copy,
                         .sched = *sched, .ets_carriers = table ? tc_mseg_stats_get(tc_ets_mem(table))->carriers_mapped : 0};
    if (tc_mseg_temp(mem))
        s.temp_carriers = tc_mseg_stats_get(tc_mseg_temp(mem))->carriers_mapped;
    if (tc_mseg_instances(mem) > 1) /* one instance: every thread's, none the dirty schedulers' own */
        s.dirty_carriers = tc_mseg_instance_stats(mem, TC_MSEG_DIRTY_INSTANCE)->carriers_mapped;
    add_proc(&s, tester);
    s.tester_gcs = s.gcs;
    if (other)
        add_proc(&s, other);
    s.t_ns = tc_timing_now_ns();
    return s;
}

static tc__ep_snapshot take(const world *w, const tc_proc *other)
{
    return tc__ep_take(w->mem, &w->copy, &w->sched.stats, w->table, w->tester, other);
}

tc_ep_counts tc__ep_diff(const tc__ep_snapshot *a, const tc__ep_snapshot *b)
{
    tc_ep_counts c = {0};
    c.us = ((double)(b->t_ns - a->t_ns) - tc_timing_overhead_ns()) / 1000.0;
    c.faults = b->faults - a->faults;
    c.gcs = b->gcs - a->gcs;
    c.tester_gcs = b->tester_gcs - a->tester_gcs;
    c.gc_words = b->gc_words - a->gc_words;
    c.words_sized = b->copy.words_sized - a->copy.words_sized;
    c.words_copied = b->copy.words_written - a->copy.words_written;
    c.fragments = (b->copy.fragments - a->copy.fragments) + (b->frags - a->frags);
    c.carriers_mapped = b->mem.carriers_mapped - a->mem.carriers_mapped + (b->ets_carriers - a->ets_carriers) +
                        (b->temp_carriers - a->temp_carriers);
    c.dirty_carriers = b->dirty_carriers - a->dirty_carriers;
    c.switches = b->sched.switches - a->sched.switches;
    c.io_polls = b->sched.io_polls - a->sched.io_polls;
    c.minor_gcs = b->minor - a->minor;
    c.major_gcs = b->major - a->major;
    c.long_gcs = b->long_gcs - a->long_gcs;
    c.gc_moved = b->moved - a->moved;
    c.rec_moved = b->rec_moved - a->rec_moved;
    c.frag_traced = b->frag_traced - a->frag_traced;
    return c;
}

/* The run's clock after op `ops` of the pass `test` (tc_ep_config.clock), from the meter's
 * read at the pass's opening mark. */
static void clock_at(world *w, int test, long ops)
{
    if (!w->cfg->clock || w->nsnap != 1)
        return;
    tc__ep_snapshot now = take(w, w->server);
    tc_ep_counts c = tc__ep_diff(&w->snap[0], &now);
    double ns = w->clock_ns + w->cfg->clock(w->cfg->clock_ctx, test, ops, &c);
    tc_mseg_clock(w->mem, ns > 0 ? (uint64_t)ns : 0);
}

static tc_result check_heap(const world *w, const tc_proc *p)
{
    const char *why;
    if (!w->cfg->verify || tc_heap_verify(p, &why))
        return TC_OK;
    fprintf(stderr, "eptest: heap verifier failed for the %s process: %s\n", p == w->tester ? "tester" : "server", why);
    return TC_EBADARG;
}

static void hook(const world *w, int test, bool begin)
{
    if (w->cfg->pass_hook)
        w->cfg->pass_hook(w->cfg->pass_ctx, test, begin);
}

/* One round-trip pass against a fresh server holding Data. */
static tc_result pass_proc(world *w, int test, tc_ep_counts *c)
{
    /* The server is spawned by the tester with no options, as eptest.erl's is: a min_heap_size
     * given to the run is the tester's (the VM's spawn option), the server keeps the era's. */
    tc_policy sp = w->cfg->policy, preset;
    if (tc_policy_preset(sp.name, &preset) == TC_OK)
        sp.min_heap_size = preset.min_heap_size;
    tc_proc *server;
    tc_result r = tc_proc_new(w->mem, &sp, &server);
    if (r != TC_OK)
        return r;
    traced(w, server);
    r = tc_ep_place_on_heap(server, data_of(w->tester));
    if (r == TC_OK)
        r = stack_to(server, SERVER_STACK);
    if (r == TC_OK)
        r = stack_to(w->tester, tester_base_stack(test));
    tc_task client_task, server_task;
    rpc_state cs = {w, &server_task, w->cfg->iterations, false};
    rpc_state ss = {w, &client_task, w->cfg->iterations, false};
    if (r == TC_OK) {
        tc_sched_spawn(&w->sched, &server_task, server, server_step, &ss);
        tc_sched_spawn(&w->sched, &client_task, w->tester, client_step, &cs);
        hook(w, test, true);
        enter(w, test, false); /* the pass's phase is what its counters cover */
        tc__ep_snapshot a = take(w, server);
        r = tc_sched_run(&w->sched);
        tc__ep_snapshot b = take(w, server);
        hook(w, test, false);
        *c = tc__ep_diff(&a, &b);
        if (r == TC_OK)
            r = check_heap(w, server);
        if (r == TC_OK)
            r = check_heap(w, w->tester);
    }
    tc_proc_free(server);
    enter(w, test, true);
    if (r == TC_OK)
        r = stack_to(w->tester, 1);
    return r;
}

static tc_result pass_loop(world *w, tc_ets *table, const tc_copy_literal_area *pt, loop_op op, int test,
                           tc_ep_counts *c)
{
    loop_state st = {w, table, pt, op, 0, w->cfg->iterations};
    tc_result r = stack_to(w->tester, tester_base_stack(test));
    if (r != TC_OK)
        return r;
    tc_task task;
    tc_sched_spawn(&w->sched, &task, w->tester, loop_step, &st);
    hook(w, test, true);
    enter(w, test, false);
    tc__ep_snapshot a = take(w, NULL);
    r = tc_sched_run(&w->sched);
    tc__ep_snapshot b = take(w, NULL);
    hook(w, test, false);
    *c = tc__ep_diff(&a, &b);
    enter(w, test, true);
    tc_proc_set_arity(w->tester, 0); /* a kept result dies with the loop */
    if (r == TC_OK)
        r = stack_to(w->tester, 1);
    return r == TC_OK ? check_heap(w, w->tester) : r;
}

/* ---- eptest.erl's tester, as erlc compiles it ------------------------------------------ */

/*
 * experiments/beam/eptest.erl's tester and server run here as `erlc -S` compiles them (and
 * OTP 25 stdlib's timer:tc/1 and the preloaded erlang:convert_time_unit/3 it calls, the
 * functions of other modules on the tester's stack): the frames below are the `allocate`s
 * and `trim`s of that code and the funs' words are ERL_FUN_SIZE (erl_fun.h: thing word,
 * entry, next, arity/num_free, creator; 5) plus the make_fun3's environment.
 * tests/cli_frames.sh re-derives every entry from `erlc -S` (timer's and erlang's from
 * beam_disasm), so a change to eptest.erl that moves a frame fails until this table follows.
 * A call pushes its return address (the x86-64 JIT's native stack) and a GC entered through
 * the JIT's fragment_call sees one more (policy.gc_call_words).
 */
const tc_ep_frame tc_ep_frames[TC_EP_FRAMES] = {
    [TC_EP_F_TESTER_FUN] = {"eptest", "-tester/2-fun-2-", 7, "allocate", 2},
    [TC_EP_F_TESTER_BODY] = {"eptest", "tester_body", 6, "allocate", 7},
    [TC_EP_F_PAYLOAD] = {"eptest", "payload", 2, "allocate", 0},
    [TC_EP_F_LC] = {"eptest", "-tester_body/6-lc$^10/1-1-", 4, "allocate", 5},
    [TC_EP_F_LC_TRIM_PASS] = {"eptest", "-tester_body/6-lc$^10/1-1-", 4, "trim1", 1},
    [TC_EP_F_LC_TRIM_AFTER] = {"eptest", "-tester_body/6-lc$^10/1-1-", 4, "trim2", 3},
    [TC_EP_F_PASS] = {"eptest", "pass", 4, "allocate", 4},
    [TC_EP_F_PASS_TRIM] = {"eptest", "pass", 4, "trim1", 2},
    [TC_EP_F_MARK] = {"eptest", "mark", 2, "allocate", 1},
    [TC_EP_F_TC] = {"timer", "tc", 1, "allocate", 2},
    [TC_EP_F_TC_TRIM] = {"timer", "tc", 1, "trim1", 1},
    [TC_EP_F_CONVERT] = {"erlang", "convert_time_unit", 3, "allocate", 5},
    [TC_EP_F_CALL_LOOP] = {"eptest", "call_loop", 2, "allocate", 2},
    [TC_EP_F_INSERT_LOOP] = {"eptest", "insert_loop", 4, "allocate", 4},
    [TC_EP_F_LOOKUP_LOOP] = {"eptest", "lookup_loop", 3, "allocate", 3},
    [TC_EP_F_PT_LOOP] = {"eptest", "pt_loop", 2, "allocate", 2},
    [TC_EP_F_SERVER] = {"eptest", "server", 1, "allocate", 1},
    [TC_EP_F_FUN_TESTER] = {"eptest", "tester", 2, "make_fun3_3", 7},
    [TC_EP_F_FUN_SERVER] = {"eptest", "tester_body", 6, "make_fun3_1", 1},
    [TC_EP_F_FUN_PASSES] = {"eptest", "tester_body", 6, "make_fun3_2", 5},
    [TC_EP_F_FUN_PT] = {"eptest", "-tester_body/6-fun-9-", 6, "make_fun3_1", 2},
    [TC_EP_F_FUN_PROC] = {"eptest", "-tester_body/6-fun-9-", 6, "make_fun3_2", 2},
    [TC_EP_F_FUN_OVERWRITE] = {"eptest", "-tester_body/6-fun-9-", 6, "make_fun3_3", 3},
    [TC_EP_F_FUN_LOOKUP] = {"eptest", "-tester_body/6-fun-9-", 6, "make_fun3_6", 2},
    [TC_EP_F_FUN_INSERT] = {"eptest", "-tester_body/6-fun-9-", 6, "make_fun3_7", 3},
    [TC_EP_F_FUN_EMPTY] = {"eptest", "-tester_body/6-fun-9-", 6, "make_fun3_8", 1},
};

/* ERL_FUN_SIZE (erl_fun.h) and ERTS_MAGIC_REF_THING_SIZE (erl_term.h: header, the binary,
 * the off-heap link): the words of a fun before its environment and of a magic reference
 * (ets:new's table, persistent_term:put's state, maps:from_list's trap state). */
enum { ERL_FUN_SIZE = 5, MAGIC_REF_WORDS = 3 };

static unsigned fw(int f) { return tc_ep_frames[f].words; }

/* After a send: when its reductions spent the slice, erl_send yields returning the message
 * (bif_return_trap(Msg, Op): Msg live in x0) and the light BIF's return address stays on the
 * stack until the process runs again, its schedule-in GC included (send.h TC_SEND_REDS). */
static tc_result trap_if_spent(tc_task *t, tc_term msg, bool *trapped)
{
    if (!tc_sched_slice_spent(t))
        return TC_OK;
    *trapped = true;
    tc_proc_x(t->proc)[0] = msg;
    tc_proc_set_arity(t->proc, 1);
    return tc_proc_push_cp(t->proc);
}

static void untrap(tc_task *t, bool *trapped)
{
    if (*trapped) {
        tc_proc_pop(t->proc, 1);
        tc_proc_set_arity(t->proc, 0);
        *trapped = false;
    }
}

/* Stack slots counted from the bottom (the initial continuation pointer is slot 0). */
static tc_term *bottom(tc_proc *p, size_t i) { return tc_proc_stack_slot(p, tc_proc_stack_size(p) - 1 - i); }

/* `allocate_heap Y, H`: one heap test for the frame and the heap words (the x86-64 JIT's
 * emit_allocate_heap: emit_gc_test(Y, H) with the live x registers as roots), then the frame. */
static tc_result allocate(tc_proc *p, unsigned y, uint64_t heap)
{
    tc_result r = tc_proc_test_heap_maybe_gc(p, y + heap);
    for (unsigned i = 0; i < y && r == TC_OK; i++)
        r = tc_proc_push_maybe_gc(p, TC_NIL);
    return r;
}

/* A fun of `env` free variables built on p's heap (after its heap test): a tuple of
 * ERL_FUN_SIZE + env words stands in, the environment in its last slots. */
static tc_term make_fun(tc_proc *p, const tc_term *env, unsigned env_n)
{
    tc_term e[ERL_FUN_SIZE - 1 + 8];
    for (unsigned i = 0; i < ERL_FUN_SIZE - 1; i++)
        e[i] = tc_make_small(0);
    for (unsigned i = 0; i < env_n; i++)
        e[ERL_FUN_SIZE - 1 + i] = env ? env[i] : TC_NIL;
    return tc_term_tuple(tc_proc_alloc(p), e, ERL_FUN_SIZE - 1 + env_n);
}

static tc_term fun_env(tc_term fun, unsigned i) { return tc_tuple_element(fun, ERL_FUN_SIZE + i); /* boxed word 0 is the header */ }

/*
 * The tester's stack, bottom up: the initial continuation pointer (erl_create_process:
 * stop = hend - CP_SIZE), '-tester/2-fun-2-'/6's frame, tester_body's return address and
 * frame (its y3 is Data until the passes' fun holds it, y1 the persistent-term key, y0 the
 * table), the comprehension's return address; then per pass k, at 12 + 2k, the
 * comprehension's frame (y3 the passes' fun) and after the pass its one slot (the pass's
 * {Test, Us}) and the next call's return address.
 */
enum {
    SLOT_BODY = 4,          /* tester_body's frame: slots 4..10, y6 first */
    SLOT_DATA = SLOT_BODY + 3,  /* y3 */
    SLOT_PTKEY = SLOT_BODY + 5, /* y1 */
    SLOT_TABLE = SLOT_BODY + 6, /* y0 */
    SLOT_LC = 12,               /* pass 0's comprehension frame */
};
static size_t lc_slot(int k) { return SLOT_LC + 2 * (size_t)k; }
static tc_term passes_fun(world *w) { return *bottom(w->tester, lc_slot(w->pass) + 1); }
/* Fun env: [N, Data, PtKey, S, T] ('-tester_body/6-fun-9-'s arguments after the kind). */
static tc_term tester_data(world *w)
{
    return w->pass < 0 ? *bottom(w->tester, SLOT_DATA) : fun_env(passes_fun(w), 1);
}
static tc_term server_data(tc_proc *s) { return *bottom(s, 1); }

/* A light BIF (the JIT's call_light_bif) that allocates `words` on the caller's heap with
 * HAlloc and returns through the GC-after-BIF test; the result is those words or `res`. */
static tc_result light_bif(tc_proc *p, size_t words, tc_term *res)
{
    tc_heapfrag *entry = tc_proc_bif_enter(p);
    if (words) {
        tc_term e[8] = {0};
        for (size_t i = 0; i < words - 1; i++)
            e[i] = tc_make_small(0);
        tc_term t = tc_term_tuple(tc_proc_alloc(p), e, words - 1);
        if (t == TC_NON_VALUE)
            return TC_ENOMEM;
        *res = t;
    }
    return tc_proc_bif_return_maybe_gc(p, entry, res);
}

static tc_result entry(void *ctx, unsigned live);

/* The tester scheduled out in its straight-line code with `live` x registers: with +S 1:1 and
 * nothing else runnable it is scheduled straight back in, collects if a GC is desired
 * (tc_proc_schedule_in_maybe_gc) and starts a new slice less that GC's cost; a long GC
 * delayed to a dirty scheduler costs no slice (gc.h tc_proc_dirty_gc_pending). A GC that costs
 * the whole slice (erl_process.c schedule: scheduler_gc_proc's cost is capped at the slice,
 * and `reds <= 0` goes to sched_out_proc) ends it before the tester runs: it is scheduled in
 * again, and resumes where it stopped with a fresh slice. */
static tc_result reschedule(world *w, unsigned live)
{
    tc_proc *p = w->tester;
    unsigned was = tc_proc_arity(p);
    tc_proc_set_arity(p, live);
    (void)tc_proc_take_reds(p);
    tc_result r;
    do {
        bool dirty = tc_proc_dirty_gc_pending(p);
        r = tc_proc_schedule_in_maybe_gc(p);
        int64_t gc_reds = tc_proc_take_reds(p);
        w->tester_reds = tc_proc_policy(p)->context_reds - (dirty ? 0 : gc_reds);
        w->sched.stats.switches++;
    } while (r == TC_OK && w->tester_reds <= 0);
    tc_proc_set_arity(p, was);
    return r;
}

/* The costs the runtime charged the tester (BUMP_REDS) come off its slice. A GC delayed to a
 * dirty scheduler or onto a fragment heap charged all that was left (erl_gc.c
 * delay_garbage_collection, force_reschedule: its cost is the reductions left), so the next
 * reduction test ends the slice. */
static void charged(world *w)
{
    w->tester_reds -= tc_proc_take_reds(w->tester);
    if (tc_proc_yield_requested(w->tester) && w->tester_reds > 0)
        w->tester_reds = 0;
}

/* The x86 JIT's `return` (instr_call.cpp BeamModuleAssembler::emit_return: `dec FCALLS; jl
 * yieldReturn`) takes a reduction, and with the slice overspent yields through
 * dispatch_return, which pops the return address first: the process is scheduled out in its
 * caller, the result in x0. The caller has popped the return address before this. */
static tc_result ret(world *w)
{
    charged(w);
    w->tester_reds -= 1;
    return w->tester_reds < 0 ? reschedule(w, 1) : TC_OK;
}

/* A light BIF's call (instr_bif.cpp emit_call_light_bif_shared: `dec FCALLS; jle yield`
 * before the BIF): with the slice spent the process yields at the call, the fragment's return
 * address unwound (emit_unwind_frame), `live` argument registers live, and calls again at
 * the schedule-in, a reduction of the new slice. */
static tc_result bif_call(world *w, unsigned live)
{
    charged(w);
    tc_result r = w->tester_reds - 1 > 0 ? TC_OK : reschedule(w, live);
    w->tester_reds -= 1;
    return r;
}

/* ---- the meter and the marks ---- */

/* eptest:meter/2: reads the counters when a mark arrives (the model: the snapshot that opens
 * or closes a pass), then answers {self(), marked}. Its own heap is not traced. */
static tc_step meter_step(tc_task *t)
{
    world *w = t->state;
    tc_term req;
    if (!tc_sched_receive(t, &req))
        return TC_STEP_WAIT;
    w->snap[w->nsnap < 2 ? w->nsnap : 1] = take(w, w->server);
    w->nsnap++;
    tc_result r = tc_proc_test_heap_maybe_gc(t->proc, 3);
    if (r == TC_OK)
        r = send_pair(w, t->proc, w->tester_task, tc_make_pid(2, 0), w->marked_atom, NULL);
    return r == TC_OK ? TC_STEP_CONTINUE : fail(t, r);
}

typedef struct mark_state {
    world *w;
    int test;
    bool after, sent, trapped;
} mark_state;

/* eptest:mark/2: {allocate_heap,1,3,2}, Meter ! {self(), S}, then receive {Meter, marked}. The
 * reply opens the phase (VM: gctrace.erl places GCs by the tester's receive events). */
static tc_step mark_step(tc_task *t)
{
    mark_state *st = t->state;
    tc_proc *p = t->proc;
    if (!st->sent) {
        tc_result r = allocate(p, fw(TC_EP_F_MARK), 3);
        tc_term msg = TC_NIL;
        if (r == TC_OK)
            r = send_pair(st->w, p, st->w->meter_task, tc_make_pid(0, 0), tc_make_pid(1, 0), &msg);
        tc_sched_bump(t, 1); /* the send's own reduction (the step's is mark/2's call) */
        if (r == TC_OK)
            r = trap_if_spent(t, msg, &st->trapped);
        if (r != TC_OK)
            return fail(t, r);
        st->sent = true;
        return TC_STEP_CONTINUE;
    }
    untrap(t, &st->trapped);
    tc_term reply;
    if (!tc_sched_loop_rec(t, &reply))
        return TC_STEP_WAIT;
    tc_sched_remove_message(t);
    enter(st->w, st->test, st->after);
    tc_proc_pop(p, fw(TC_EP_F_MARK));
    return TC_STEP_DONE;
}

static tc_step ep_loop_step(tc_task *t);

/* The tester's code from here to `fn`'s end runs as a task that goes on with the tester's
 * slice (no schedule-in: it is the running process), which is carried to the next. */
static tc_result run_tester(world *w, tc_task_fn fn, void *state)
{
    tc_task task;
    w->tester_task = &task;
    tc_sched_spawn_running(&w->sched, &task, w->tester, fn, state, w->tester_reds);
    if (fn == ep_loop_step)
        tc_sched_entry_steps(&task); /* each step is the loop function's entry */
    tc_result r = tc_sched_run(&w->sched);
    w->tester_reds = task.reds_left;
    w->tester_task = NULL;
    return r;
}

/* The reductions of the tester's straight-line code: a call's and a light BIF's one each. */
static void spend(world *w, int64_t reds) { w->tester_reds -= reds; }

/* A call to mark/2 from pass/4: its return address, the exchange with the meter, the return. */
static tc_result mark(world *w, int test, bool after)
{
    tc_result r = tc_proc_push_cp(w->tester);
    if (r != TC_OK)
        return r;
    mark_state st = {.w = w, .test = test, .after = after};
    r = run_tester(w, mark_step, &st);
    if (r == TC_OK)
        tc_proc_pop(w->tester, 1); /* its return's reduction: the receiving step's */
    return r;
}

/* ---- the server: one for the tester's whole life ---- */

typedef struct server_state {
    world *w;
    long requests;
    bool framed, reply_pending, stopped, started, trapped;
    tc_term spawn_data; /* Data as spawn copied it, until the first run puts it in y0 */
} server_state;

/*
 * eptest:server/1: allocate 1 (Data in y0), receive {From, get} -> test_heap 3 (inside the
 * receive: a GC there is delayed, proc.h tc_proc_set_delay_gc), remove_message, From !
 * {self(), Data}, server(Data) (deallocate and call). A delayed GC took the slice: the send
 * (a light BIF, `dec FCALLS; jle yield`) yields first and the GC runs at the schedule-in, the
 * reply live in the send's argument registers.
 */
static tc_step ep_server_step(tc_task *t)
{
    server_state *st = t->state;
    tc_proc *p = t->proc;
    tc_result r = TC_OK;
    untrap(t, &st->trapped);
    if (!st->reply_pending) {
        if (!st->framed) {
            tc_term data = st->started ? *bottom(p, 1) : st->spawn_data;
            if (st->started)
                tc_proc_pop(p, 1);
            st->started = true;
            tc_proc_x(p)[0] = data;
            tc_proc_set_arity(p, 1);
            if ((r = tc_proc_test_heap_maybe_gc(p, fw(TC_EP_F_SERVER))) == TC_OK)
                r = tc_proc_push_maybe_gc(p, tc_proc_x(p)[0]);
            tc_proc_set_arity(p, 0);
            if (r != TC_OK)
                return fail(t, r);
            st->framed = true;
        }
        tc_term req;
        if (!tc_sched_loop_rec(t, &req))
            return TC_STEP_WAIT;
        if (tc_is_atom(req)) { /* stop */
            tc_sched_remove_message(t);
            st->stopped = true;
            return TC_STEP_DONE;
        }
        st->requests++;
        st->w->at[TC_EP_SERVER] = (tc_ep_where){.test = TC_EP_PROC1 + (int)((st->requests - 1) / st->w->cfg->iterations),
                                                .op = (st->requests - 1) % st->w->cfg->iterations + 1};
        tc_proc_x(p)[0] = req;
        tc_proc_set_arity(p, 1);
        r = tc_proc_test_heap_maybe_gc(p, 3);
        tc_proc_set_arity(p, 0);
        if (r != TC_OK)
            return fail(t, r);
        tc_sched_remove_message(t);
        tc_term e[2] = {tc_make_pid(1, 0), server_data(p)};
        tc_proc_x(p)[0] = tc_make_pid(0, 0);
        tc_proc_x(p)[1] = tc_term_tuple(tc_proc_alloc(p), e, 2);
        if (tc_proc_x(p)[1] == TC_NON_VALUE)
            return fail(t, TC_ENOMEM);
        st->reply_pending = true;
        if (tc_proc_yield_requested(p)) {
            tc_proc_set_arity(p, 2);
            return TC_STEP_YIELD;
        }
    }
    tc_proc_set_arity(p, 0);
    tc_term msg = tc_proc_x(p)[1];
    r = tc_send_maybe_gc(p, st->w->tester_task->proc, &msg, tc_sched_is_locked(st->w->tester_task), &st->w->copy);
    if (r != TC_OK)
        return fail(t, r);
    tc_sched_wake(st->w->tester_task);
    st->reply_pending = false;
    st->framed = false; /* call_last: the frame goes, server/1's entry allocates it again */
    if ((r = trap_if_spent(t, msg, &st->trapped)) != TC_OK)
        return fail(t, r);
    tc_sched_bump(t, 1);
    return TC_STEP_CONTINUE;
}

/* ---- the passes' loops ---- */

typedef struct ep_loop_state {
    world *w;
    loop_op op; /* OP_PROC: call_loop */
    const tc_copy_literal_area *pt;
    long i, n;
    bool awaiting, trapped;
    bool at_bif; /* scheduled out at the loop's light BIF, its frame pushed */
} ep_loop_state;

/* call_loop/2: allocate_heap 2,3 (the frame and {self(), get}), S ! {self(), get}, receive
 * {S, _} (loop_rec, remove_message), call_loop(S, N - 1) (the frame goes first). */
static tc_step ep_client_step(tc_task *t)
{
    ep_loop_state *st = t->state;
    tc_proc *p = t->proc;
    if (st->awaiting) {
        untrap(t, &st->trapped);
        tc_term reply;
        if (!tc_sched_loop_rec(t, &reply))
            return TC_STEP_WAIT;
        tc_sched_remove_message(t);
        st->awaiting = false;
        st->i++;
        st->w->at[TC_EP_TESTER].op = st->i + 1;
        tc_proc_pop(p, fw(TC_EP_F_CALL_LOOP));
        clock_at(st->w, st->w->pass, st->i);
        return TC_STEP_CONTINUE;
    }
    if (st->i == st->n)
        return TC_STEP_DONE;
    tc_result r = allocate(p, fw(TC_EP_F_CALL_LOOP), 3);
    tc_term msg = TC_NIL;
    if (r == TC_OK)
        r = send_pair(st->w, p, st->w->server_task, tc_make_pid(0, 0), st->w->get_atom, &msg);
    if (r == TC_OK)
        r = trap_if_spent(t, msg, &st->trapped);
    if (r != TC_OK)
        return fail(t, r);
    st->awaiting = true;
    return TC_STEP_CONTINUE;
}

/* insert_loop/4 (allocate_heap 4,3: the frame and {I, Data}; ets:insert), lookup_loop/3
 * (allocate 3; ets:lookup, its result dropped), empty_loop/1 (no frame), pt_loop/2
 * (allocate 2; persistent_term:get): each a light BIF and its GC test, then the tail call. */
static tc_step ep_loop_step(tc_task *t)
{
    ep_loop_state *st = t->state;
    world *w = st->w;
    tc_proc *p = t->proc;
    tc_result r = TC_OK;
    unsigned frame = 0;
    bool resumed = st->at_bif;
    if (!resumed) {
        if (st->i == st->n)
            return TC_STEP_DONE;
        st->i++;
        w->at[TC_EP_TESTER].op = st->i;
    }
    st->at_bif = false;
    if ((st->op == OP_LOOKUP || st->op == OP_PT_GET) && !resumed) {
        /* The light BIF's `dec FCALLS; jle yield` (emit_call_light_bif_shared) after this
         * step's entry: with one reduction left there the tester is scheduled out at the call,
         * its frame pushed (the arguments, T or K and a small, are in the frame as well), and
         * calls the BIF at the schedule-in, a reduction of the new slice. */
        frame = fw(st->op == OP_LOOKUP ? TC_EP_F_LOOKUP_LOOP : TC_EP_F_PT_LOOP);
        if ((r = allocate(p, frame, 0)) != TC_OK)
            return fail(t, r);
        if (t->reds_left - 1 <= 1) {
            st->at_bif = true;
            tc_proc_set_arity(p, 0);
            return TC_STEP_YIELD;
        }
    }
    if (st->op == OP_INSERT) {
        frame = fw(TC_EP_F_INSERT_LOOP);
        r = allocate(p, frame, 3);
        if (r == TC_OK) {
            tc_term e[2] = {tc_make_small(st->i), tester_data(w)};
            tc_heapfrag *entry = tc_proc_bif_enter(p);
            tc_term obj = tc_term_tuple(tc_proc_alloc(p), e, 2), res = TC_NIL;
            r = tc_ets_insert(w->work_table, obj, &w->copy);
            if (r == TC_OK)
                r = tc_proc_bif_return_maybe_gc(p, entry, &res);
        }
    } else if (st->op == OP_LOOKUP) {
        frame = fw(TC_EP_F_LOOKUP_LOOP);
        tc_term key = tc_make_small(w->cfg->hot_key ? 1 : st->i), res;
        tc_heapfrag *entry = tc_proc_bif_enter(p);
        if (r == TC_OK)
            r = tc_ets_lookup(w->work_table, key, tc_proc_alloc(p), &res, &w->copy);
        if (r == TC_OK)
            r = tc_proc_bif_return_maybe_gc(p, entry, &res);
        if (r == TC_OK && w->cfg->keep_result) {
            tc_proc_x(p)[0] = res;
            tc_proc_set_arity(p, 1);
        }
    } else if (st->op == OP_PT_GET) {
        frame = fw(TC_EP_F_PT_LOOP);
        tc_heapfrag *entry = tc_proc_bif_enter(p);
        tc_term res;
        if (r == TC_OK)
            r = tc_copy_literal_get(st->pt, w->get_atom, &res);
        if (r == TC_OK)
            r = tc_proc_bif_return_maybe_gc(p, entry, &res);
    }
    if (st->op != OP_EMPTY && !resumed)
        tc_sched_bump(t, 1); /* the BIF, then the loop's call (resumed: the step's is the BIF's) */
    if (r == TC_OK) {
        tc_proc_pop(p, frame);
        clock_at(w, w->pass, st->i);
    }
    return r == TC_OK ? TC_STEP_CONTINUE : fail(t, r);
}

/*
 * One pass as pass/4 runs it, from the comprehension's frame k: the loop fun (fun-9), pass/4's
 * frame, the opening mark, timer:tc (its frame, call_fun), the loop on its own stack, tc's
 * {Time, Val}, the closing mark and {Test, Us}; the comprehension keeps that result.
 */
static tc_result ep_pass(world *w, int test, const tc_copy_literal_area *pt, tc_ep_counts *c)
{
    tc_proc *p = w->tester;
    static const int fun_of[TC_EP_TESTS] = {TC_EP_F_FUN_PROC, TC_EP_F_FUN_PROC, TC_EP_F_FUN_PROC, TC_EP_F_FUN_INSERT,
                                            TC_EP_F_FUN_OVERWRITE, TC_EP_F_FUN_LOOKUP, TC_EP_F_FUN_EMPTY, TC_EP_F_FUN_PT};
    w->pass = test;
    /* the comprehension: allocate 5 with Passes (a literal), Meter, Fun and S live */
    tc_term fun = w->pending_fun;
    tc_proc_x(p)[0] = fun;
    tc_proc_set_arity(p, 1);
    tc_result r = allocate(p, fw(TC_EP_F_LC), 0);
    fun = tc_proc_x(p)[0];
    tc_proc_set_arity(p, 0);
    if (r != TC_OK)
        return r;
    *bottom(p, lc_slot(test) + 1) = fun;
    /* kind/1 (no frame), then call_fun2 of fun-9: test_heap for the loop's fun, built */
    unsigned env = fw(fun_of[test]);
    spend(w, 4); /* the comprehension's, kind/1's and fun-9's entries, kind/1's return */
    if ((r = tc_proc_push_cp(p)) == TC_OK)
        r = tc_proc_test_heap_maybe_gc(p, ERL_FUN_SIZE + env);
    tc_term loop_fun = TC_NON_VALUE;
    if (r == TC_OK) {
        tc_term fenv[3] = {tc_make_small(w->cfg->iterations), tester_data(w), TC_NIL};
        loop_fun = make_fun(p, fenv, env);
        tc_proc_pop(p, 1);
        spend(w, 1); /* fun-9's return */
        if (loop_fun == TC_NON_VALUE)
            r = TC_ENOMEM;
    }
    if (r != TC_OK)
        return r;
    tc_proc_pop(p, fw(TC_EP_F_LC_TRIM_PASS));
    /* pass/4: its return address, allocate 4 with the loop fun live in x1 */
    tc_proc_x(p)[0] = loop_fun;
    tc_proc_set_arity(p, 1);
    spend(w, 1); /* pass/4's entry */
    if ((r = tc_proc_push_cp(p)) == TC_OK)
        r = allocate(p, fw(TC_EP_F_PASS), 0);
    size_t pass_f = tc_proc_stack_size(p) - 3; /* y2 from the bottom */
    *bottom(p, pass_f) = tc_proc_x(p)[0];
    tc_proc_set_arity(p, 0);
    if (r == TC_OK)
        r = mark(w, test, false);
    if (r != TC_OK)
        return r;
    /* timer:tc(F): F leaves pass's frame for x0; tc's return address and allocate 2 (F in y1) */
    tc_proc_x(p)[0] = *bottom(p, pass_f);
    *bottom(p, pass_f) = TC_NIL;
    tc_proc_set_arity(p, 1);
    if ((r = tc_proc_push_cp(p)) == TC_OK)
        r = allocate(p, fw(TC_EP_F_TC), 0);
    tc_proc_set_arity(p, 0);
    /* timer:tc's entry, monotonic_time, and the entry of the fun F (the JIT gives every
     * function, a fun's too, its i_test_yield: jit/x86/ops.tab int_func_start); the loop
     * function it tail-calls (call_only) has its own, the loop's first step */
    spend(w, 3);
    tc_term none = TC_NIL;
    if (r == TC_OK)
        r = light_bif(p, 0, &none); /* erlang:monotonic_time/0 */
    if (r == TC_OK)
        r = tc_proc_push_cp(p); /* call_fun: F is dead once its environment is in the registers */
    if (r != TC_OK)
        return r;
    hook(w, test, true);
    ep_loop_state st = {.w = w, .pt = pt, .n = w->cfg->iterations,
                        .op = test <= TC_EP_PROC3 ? OP_PROC : test == TC_EP_INSERT || test == TC_EP_OVERWRITE ? OP_INSERT
                            : test == TC_EP_LOOKUP ? OP_LOOKUP : test == TC_EP_EMPTY ? OP_EMPTY : OP_PT_GET};
    r = run_tester(w, st.op == OP_PROC ? ep_client_step : ep_loop_step, &st);
    hook(w, test, false);
    tc_proc_set_arity(p, 0); /* a kept result dies with the loop */
    if (r != TC_OK)
        return r;
    /* back in tc (the loop's last step, which finds it done, was its return's reduction):
     * erlang:monotonic_time/0 (a light BIF), trim 1 */
    tc_proc_pop(p, 1);
    r = bif_call(w, 0);
    if (r == TC_OK)
        r = light_bif(p, 0, &none);
    if (r != TC_OK)
        return r;
    tc_proc_pop(p, fw(TC_EP_F_TC_TRIM));
    /* erlang:convert_time_unit(T2 - T1, native, microsecond), an Erlang function (erts's
     * preloaded erlang.erl): its entry, allocate 5 (the try's frame), erts_internal:time_unit/0
     * (a light BIF), arithmetic on smalls, deallocate, return */
    tc_term *x = tc_proc_x(p);
    x[0] = x[1] = x[2] = tc_make_small(0); /* its arguments: a small and two atoms, immediates */
    if ((r = tc_proc_push_cp(p)) == TC_OK)
        r = entry(w, 3);
    if (r == TC_OK)
        r = allocate(p, fw(TC_EP_F_CONVERT), 0);
    if (r == TC_OK)
        r = bif_call(w, 0);
    if (r == TC_OK)
        r = light_bif(p, 0, &none);
    if (r != TC_OK)
        return r;
    tc_proc_pop(p, fw(TC_EP_F_CONVERT) + 1);
    if ((r = ret(w)) != TC_OK)
        return r;
    /* test_heap 3 for {Time, Val}, deallocate, return */
    if ((r = tc_proc_test_heap_maybe_gc(p, 3)) != TC_OK)
        return r;
    tc_term tv[2] = {tc_make_small(1), TC_NIL};
    if ((x[0] = tc_term_tuple(tc_proc_alloc(p), tv, 2)) == TC_NON_VALUE) /* returned in x0 */
        return TC_ENOMEM;
    tc_proc_pop(p, fw(TC_EP_F_TC) - fw(TC_EP_F_TC_TRIM) + 1);
    if ((r = ret(w)) != TC_OK)
        return r;
    /* pass: trim 2, the closing mark, {Test, Us} */
    tc_proc_pop(p, fw(TC_EP_F_PASS_TRIM));
    if ((r = mark(w, test, true)) != TC_OK)
        return r;
    if (w->nsnap >= 2)
        *c = tc__ep_diff(&w->snap[0], &w->snap[1]);
    if (w->nsnap >= 2 && w->cfg->clock)
        w->clock_ns += w->cfg->clock(w->cfg->clock_ctx, test, w->cfg->iterations, c);
    w->nsnap = 0;
    if ((r = tc_proc_test_heap_maybe_gc(p, 3)) != TC_OK)
        return r;
    tc_term res[2] = {tc_make_small(test), tc_make_small(1)}; /* {Test, Us}: an atom and a small */
    tc_term result = tc_term_tuple(tc_proc_alloc(p), res, 2);
    if ((x[0] = result) == TC_NON_VALUE)
        return TC_ENOMEM;
    tc_proc_pop(p, fw(TC_EP_F_PASS) - fw(TC_EP_F_PASS_TRIM) + 1); /* deallocate, return */
    if ((r = ret(w)) != TC_OK)
        return r;
    /* the comprehension: the result in its deepest slot, trim 3, the next call's return address */
    w->pending_fun = *bottom(p, lc_slot(test) + 1);
    *bottom(p, lc_slot(test)) = x[0]; /* where a GC at the return left it */
    tc_proc_pop(p, fw(TC_EP_F_LC_TRIM_AFTER));
    r = tc_proc_push_cp(p);
    return r == TC_OK ? check_heap(w, p) : r;
}


/* A call's reduction at the callee's entry (the JIT's i_test_yield: `dec FCALLS; jle`): when the
 * slice is spent the tester yields there, its frames on the stack and `live` x registers
 * (the arguments) live, and collects at the schedule-in if a GC is desired. */
static tc_result entry(void *ctx, unsigned live)
{
    world *w = ctx;
    charged(w); /* what the GCs since cost (BUMP_REDS) */
    w->tester_reds -= 1;
    return w->tester_reds > 0 ? TC_OK : reschedule(w, live);
}


/* A guard BIF's HAlloc as an allocator (tc_proc_halloc_frag). */
typedef struct frag_alloc {
    tc_alloc iface;
    tc_proc *p;
} frag_alloc;
static tc_term *frag_words(tc_alloc *self, size_t words) { return tc_proc_halloc_frag(((frag_alloc *)self)->p, words); }

/*
 * eptest.erl's payload comprehensions (erlc -S '-payload/2-lc$^0/1-0-' floats, '-lc$^2/1-1-'
 * strings, '-lc$^3/1-2-' the map's pairs), which payload/2 tail-calls after lists:seq:
 * body-recursive, each level an `allocate 1` (one heap test, the live registers its roots)
 * keeping its element in y0 under the next call's return address, 2 stack words per element.
 * Going down, floats makes float(X) first (the guard BIF float_1, erl_bif_guard.c: HAlloc of
 * FLOAT_SIZE_OBJECT, no GC) and strings calls integer_to_list/1 (a light BIF: its digits'
 * list by HAlloc, then the GC-after-BIF test); coming back up each level conses its y0
 * (test_heap 2, live 1; the map's pairs {I, I} and cons, test_heap 5), deallocates and
 * returns, a reduction each (emit_return), so the slice may end on the way up. x0 holds lists:seq's list on entry and the result on return.
 */
static tc_result build_lc(world *w, tc_ep_shape sh, long len)
{
    tc_proc *p = w->tester;
    tc_term *x = tc_proc_x(p);
    tc_result r = TC_OK;
    for (long i = 1; i <= len && r == TC_OK; i++) {
        tc_proc_set_arity(p, 1);
        if ((r = entry(w, 1)) != TC_OK)
            break;
        tc_term hd = tc_car(x[0]);
        if (sh == TC_EP_FLOATS) {
            frag_alloc fa = {{frag_words, tc_proc_offheap(p), NULL}, p};
            x[1] = tc_term_float(&fa.iface, (double)tc_small_val(hd));
            x[0] = tc_cdr(x[0]);
            tc_proc_set_arity(p, 2);
            if (x[1] == TC_NON_VALUE)
                return TC_ENOMEM;
            if ((r = allocate(p, 1, 0)) == TC_OK)
                *tc_proc_stack_slot(p, 0) = x[1];
        } else if (sh == TC_EP_STRINGS) {
            if ((r = allocate(p, 1, 0)) != TC_OK)
                break;
            *tc_proc_stack_slot(p, 0) = tc_cdr(x[0]); /* get_list: x0 the head, y0 the tail */
            x[0] = tc_car(x[0]);
            char digits[24];
            int n = snprintf(digits, sizeof digits, "%ld", (long)tc_small_val(x[0]));
            tc_term chars[24];
            for (int k = 0; k < n; k++)
                chars[k] = tc_make_small(digits[k]);
            /* call_ext integer_to_list/1, a light BIF: its reduction test comes before the BIF
             * (bif_call), so a slice a delayed GC ended yields here, the BIF not yet run */
            if ((r = bif_call(w, 1)) != TC_OK)
                break;
            tc_heapfrag *fentry = tc_proc_bif_enter(p);
            x[0] = tc_term_list(tc_proc_alloc(p), chars, (size_t)n, TC_NIL);
            if (x[0] == TC_NON_VALUE)
                return TC_ENOMEM;
            r = tc_proc_bif_return_maybe_gc(p, fentry, &x[0]);
            charged(w);
            tc_term t = *tc_proc_stack_slot(p, 0); /* swap: y0 the string, x0 the tail */
            *tc_proc_stack_slot(p, 0) = x[0];
            x[0] = t;
        } else { /* map: the key in y0 */
            if ((r = allocate(p, 1, 0)) != TC_OK)
                break;
            *tc_proc_stack_slot(p, 0) = tc_car(x[0]);
            x[0] = tc_cdr(x[0]);
        }
        charged(w);
        if (r == TC_OK)
            r = tc_proc_push_cp(p);
    }
    if (r != TC_OK)
        return r;
    /* the innermost call meets [] and returns it; then each level conses its y0 */
    if ((r = entry(w, 1)) != TC_OK)
        return r;
    x[0] = TC_NIL;
    tc_proc_set_arity(p, 1);
    for (long i = len; i >= 1 && r == TC_OK; i--) {
        tc_proc_pop(p, 1); /* the return address of the level below, and its return's reduction */
        if ((r = ret(w)) != TC_OK)
            break;
        unsigned need = sh == TC_EP_MAP ? 5 : 2;
        if ((r = tc_proc_test_heap_maybe_gc(p, need)) != TC_OK)
            break;
        charged(w);
        tc_term e = *tc_proc_stack_slot(p, 0);
        if (sh == TC_EP_MAP) {
            tc_term kv[2] = {e, e};
            e = tc_term_tuple(tc_proc_alloc(p), kv, 2);
        }
        x[0] = e == TC_NON_VALUE ? TC_NON_VALUE : tc_term_cons(tc_proc_alloc(p), e, x[0]);
        if (x[0] == TC_NON_VALUE)
            return TC_ENOMEM;
        tc_proc_pop(p, 1); /* deallocate */
    }
    return r;
}

/*
 * maps:from_list/1 over more than 32 pairs as OTP 25 builds its hashmap on the caller's heap
 * (erl_map.c hashmap_from_validated_list): one HAlloc of 2 words per pair for the leaves'
 * cons cells [K | V], then a heap factory (erl_message.c erts_factory_proc_init,
 * FACTORY_HALLOC) for the trie's nodes, which takes the heap from htop to HEAP_LIMIT and, for
 * a node that no longer fits, gives the rest back (HRelease) and takes HAllocX(need, xtra)
 * (erts_reserve_heap__): the heap when it still holds that node, else the head fragment's
 * tail, else a new fragment with xtra words of slack; so each node is one tc_proc_halloc_x.
 * xtra is HALLOC_EXTRA_HASHMAP_FROM_CHUNKED_ARRAY (200) for inner nodes and 0 for a level's
 * top (hashmap_from_chunked_array's root produce). The nodes come in the order the VM makes
 * them: hashmap_from_sorted_unique_array first builds, for each run of keys whose 32-bit
 * hashes collide, the subtree of the next salt level (depth 8 below), then
 * hashmap_from_chunked_array walks the pairs sorted by swizzled hash, descending
 * (hxnodecmp), and makes a node when the walk leaves it: post-order, slots descending. The
 * trie's shape is terms/hashmap.h's (the arena map `m`); only the words' places are the VM's.
 * Keys and values are the payload's integers (immediates: a leaf is just its cons).
 */
typedef struct map_copy {
    tc_proc *p;
    tc_term *leaf; /* the next free leaf cons in the 2-words-per-pair block */
    /* maps:from_list's trap (below), counted when `count`: YCF reductions spent so far, the
     * budget they trap at, the leaves walked, the pairs, the opens waiting for the next leaf,
     * the fragment words when the builders began (more: the factory has left the heap) */
    bool count, trapped;
    uint64_t units, budget, leaves, pairs, opens, frag0;
} map_copy;

enum { MAP_NODE_XTRA = 200, MAP_LEVEL_DEPTHS = 8 };

static tc_result map_level(map_copy *c, const tc_term *node, unsigned base, tc_term *out);

/* A leaf of hashmap_from_chunked_array's walk: the main loop's reduction (leaves 2 to n-1)
 * and the levels pushed for the nodes whose first leaf it is (`while (slot == maskval)` for
 * the first leaf, one each; `while (d < dn)` after, two each: YCF puts its consume into a
 * nested loop once per enclosing loop). */
static void map_leaf_units(map_copy *c)
{
    uint64_t i = c->leaves++;
    c->units += (i > 0 && i + 1 < c->pairs) + c->opens * (i == 0 ? 1 : 2);
    c->opens = 0;
}

/* The trap's magic reference (utils.c erts_ycf_trap_driver: HAlloc(p,
 * ERTS_MAGIC_REF_THING_SIZE)): in a fragment while the heap factory holds the heap (`held`:
 * erl_message.c erts_factory_proc_init sets HEAP_TOP to HEAP_LIMIT until its first reserve
 * past the heap gives the rest back), else as HAlloc. */
static tc_result map_trap_ref(tc_proc *p, bool held)
{
    tc_term *hp = held ? tc_proc_halloc_frag(p, MAGIC_REF_WORDS) : tc_proc_halloc(p, MAGIC_REF_WORDS);
    if (!hp)
        return TC_ENOMEM;
    /* a 2-tuple of smalls stands for it, as light_bif's does: dead once the BIF returns */
    hp[0] = TC_MAKE_HEADER(MAGIC_REF_WORDS - 1, TC_SUBTAG_ARITYVAL);
    hp[1] = hp[2] = tc_make_small(0);
    return TC_OK;
}

/* The builders' trap, once their work reaches the budget. */
static tc_result map_trap_due(map_copy *c)
{
    if (!c->count || c->trapped || c->units < c->budget)
        return TC_OK;
    c->trapped = true;
    return map_trap_ref(c->p, tc_proc_frag_size(c->p) == c->frag0);
}

/* The subtrees one salt level down (nodes at depth base + 8), built first, in the walk's
 * order, into q. NOLINTNEXTLINE(misc-no-recursion): depth < TC_HAMT_MAX_DEPTH */
static tc_result map_collisions(map_copy *c, const tc_term *node, unsigned depth, unsigned base, tc_term *q, size_t *nq)
{
    enum { CAP = 64 };
    size_t n;
    const tc_term *kids = tc_layout_map_terms(node[0], node, &n);
    tc_result r = TC_OK;
    for (size_t k = n; k-- > 0 && r == TC_OK;) {
        if (tc_is_list(kids[k]))
            continue;
        const tc_term *sub = tc_boxed_val(kids[k]);
        if (depth + 1 == base + MAP_LEVEL_DEPTHS)
            r = *nq < CAP ? map_level(c, sub, depth + 1, &q[(*nq)++]) : TC_EUNSUPPORTED;
        else
            r = map_collisions(c, sub, depth + 1, base, q, nq);
    }
    return r;
}

/* A level's nodes in post-order, slots descending; q holds its collision subtrees in that
 * order. NOLINTNEXTLINE(misc-no-recursion): depth < TC_HAMT_MAX_DEPTH */
static tc_result map_nodes(map_copy *c, const tc_term *node, unsigned depth, unsigned base, const tc_term *q,
                           size_t *iq, tc_term *out)
{
    size_t n;
    const tc_term *kids = tc_layout_map_terms(node[0], node, &n);
    size_t head = (size_t)(kids - node);
    tc_term made[16];
    c->opens += depth > 0; /* a node opens at its first leaf */
    for (size_t k = n; k-- > 0;) {
        if (tc_is_list(kids[k])) {
            map_leaf_units(c);
            const tc_term *cell = tc_list_val(kids[k]);
            if (!tc_is_immed(cell[0]) || !tc_is_immed(cell[1]))
                return TC_EUNSUPPORTED;
            c->leaf[0] = cell[0];
            c->leaf[1] = cell[1];
            made[k] = tc_make_list(c->leaf);
            c->leaf += 2;
        } else if (depth + 1 == base + MAP_LEVEL_DEPTHS) {
            made[k] = q[(*iq)++];
        } else {
            tc_result r = map_nodes(c, tc_boxed_val(kids[k]), depth + 1, base, q, iq, &made[k]);
            if (r != TC_OK)
                return r;
        }
    }
    /* the node closes: its last leaf is the last of all (the tail loop) or not (the main
     * loop's drop), or it is the head; the trap may come just before it is made */
    bool tail = c->leaves == c->pairs;
    c->units += depth == 0 ? 0 : tail ? 1 : 2;
    tc_result r = map_trap_due(c);
    if (r != TC_OK)
        return r;
    tc_term *hp = tc_proc_halloc_x(c->p, head + n, depth == base ? 0 : MAP_NODE_XTRA);
    if (!hp)
        return TC_ENOMEM;
    memcpy(hp, node, head * sizeof *hp);
    memcpy(hp + head, made, n * sizeof *hp);
    *out = tc_make_boxed(hp);
    c->units += (n - 1) * (depth == 0 ? 1 : tail ? 2 : 4); /* `while (sz--)` pops the others */
    return TC_OK;
}

/* One salt level of the trie whose top is `node` at depth `base`: 32-bit hash collisions are
 * rare, and more than 64 under one level are refused (TC_EUNSUPPORTED).
 * NOLINTNEXTLINE(misc-no-recursion): depth < TC_HAMT_MAX_DEPTH */
static tc_result map_level(map_copy *c, const tc_term *node, unsigned base, tc_term *out)
{
    tc_term q[64] = {0};
    size_t nq = 0, iq = 0;
    tc_result r = map_collisions(c, node, base, base, q, &nq);
    if (r == TC_OK)
        r = map_nodes(c, node, base, base, q, &iq, out);
    return r;
}

/* ---- maps:from_list's YCF work ---- */

/* The trie's shape as hashmap_from_chunked_array walks it (leaves in descending swizzled
 * hash order: slots descending, the model's map_nodes order). */
typedef struct map_walk {
    uint64_t nonroot;    /* inner nodes */
    uint64_t d_first;    /* inner nodes on the first leaf's path */
    uint64_t d_last;     /* inner nodes on the last leaf's path */
    uint64_t kids_main;  /* sum of (children - 1) over inner nodes not on the last path */
    uint64_t kids_tail;  /* the same over the inner nodes on the last path */
    uint64_t kids_root;  /* the head's children */
    bool collisions;     /* a level past depth 7: not counted */
} map_walk;

/* NOLINTNEXTLINE(misc-no-recursion): depth < TC_HAMT_MAX_DEPTH */
static void map_walk_node(const tc_term *node, unsigned depth, bool first, bool last, map_walk *u)
{
    size_t n;
    const tc_term *kids = tc_layout_map_terms(node[0], node, &n);
    if (depth >= MAP_LEVEL_DEPTHS) {
        u->collisions = true;
        return;
    }
    if (depth == 0) {
        u->kids_root = n;
    } else {
        u->nonroot++;
        u->d_first += first;
        u->d_last += last;
        *(last ? &u->kids_tail : &u->kids_main) += n - 1;
    }
    for (size_t k = 0; k < n; k++)
        if (!tc_is_list(kids[k]))
            map_walk_node(tc_boxed_val(kids[k]), depth + 1, first && k == n - 1, last && k == 0, u);
}

/* erts_fit_in_bits_int64 (utils.c fit_in_bits): the bits of a positive value, 1 for 0. */
static unsigned fit_in_bits(uint64_t v)
{
    unsigned b = 0;
    while (v >>= 1)
        b++;
    return b + 1;
}

/* The YCF reductions erts_qsort spends on n distinct items (utils.c erts_qsort_helper,
 * erts_qsort_partion_array: one per item the partition loop passes, m * bits(m) * 2 for a
 * run of m <= 16 sorted by insertion), averaged over the pivot, which the VM draws from a
 * hash of the array's address and a per-scheduler counter: E(m) = m - 1 + (2/m) sum E(j<m). */
static double qsort_units(uint64_t n)
{
    enum { CUT_OFF = 16 }; /* erts_qsort_helper's qsort_cut_off */
    double sum = 0, e = 0;
    for (uint64_t m = 0; m <= n; m++) {
        e = m <= CUT_OFF ? (double)(m * fit_in_bits(m) * 2) : (double)(m - 1) + 2.0 * sum / (double)m;
        sum += e;
    }
    return e;
}

/* The hashmap `m` (an arena copy) built into x0 as maps:from_list builds it (above), with
 * `budget` YCF reductions before it traps (0: not counted, no trap). *units: the work. */
static tc_result map_from_list(tc_proc *p, tc_term m, uint64_t budget, uint64_t *units, bool *trapped)
{
    uint64_t n = tc_map_size(m);
    map_walk u = {0};
    map_walk_node(tc_boxed_val(m), 0, true, true, &u);
    /* maps_from_list_1_helper's check and hashmap_from_validated_list's hash loop, a
     * reduction a pair each; the factory's builders: erts_qsort, the compaction loop of
     * hashmap_from_unsorted_array and hashmap_from_sorted_unique_array's, one a pair each */
    uint64_t before = 2 * n + (uint64_t)qsort_units(n) + 2 * (n - 1);
    map_copy c = {.p = p, .count = budget > 0 && !u.collisions, .budget = budget, .pairs = n, .units = before};
    tc_result r;
    if (c.count && budget <= n && (r = map_trap_ref(p, false)) != TC_OK) /* in the check, before any HAlloc */
        return r;
    if (!(c.leaf = tc_proc_halloc(p, 2 * (size_t)n)))
        return TC_ENOMEM;
    if (c.count && n < budget && budget <= 2 * n && (r = map_trap_ref(p, false)) != TC_OK) /* the hash loop's */
        return r;
    c.trapped = c.count && budget <= 2 * n;
    c.frag0 = tc_proc_frag_size(p); /* erts_factory_proc_init: the factory takes the heap */
    r = map_trap_due(&c); /* in the sort or the loops before the first node */
    if (r == TC_OK)
        r = map_level(&c, tc_boxed_val(m), 0, &tc_proc_x(p)[0]);
    if (r == TC_OK)
        r = map_trap_due(&c); /* past the last node: the head's `while (sz--)` */
    *units = c.count ? c.units : 0;
    *trapped = c.trapped;
    return r;
}

/*
 * maps:from_list/1 on the tester's slice (erl_map.c maps_from_list_1 through utils.c
 * erts_ycf_trap_driver): the YCF builders may spend 40 (iterations_per_red) reductions of
 * theirs per reduction left (ERTS_BIF_REDS_LEFT, the slice after the light BIF's own), and
 * BUMP_REDS what they spent over 40. Past that budget they yield: the driver makes the
 * magic reference (map_trap_due), disables GC (erts_set_gc_state) and traps, which the light
 * BIF's glue takes as a context switch (instr_bif.cpp emit_call_light_bif_shared,
 * context_switch_simplified) with the slice spent (BUMP_REDS stops at 0). With +S 1:1 the
 * tester is straight back, with no GC at the schedule-in (GC disabled), and the trap export
 * runs the continuation as a heavy BIF (emit_call_bif: no reduction test) on a new slice's
 * budget, trapping again while its work is not less than that. The GC after it starts from
 * the live_hf_end marker the first trap saved (erl_gc.c erts_gc_after_bif_call_lhf), the
 * light call's entry, as tc_proc_bif_return_maybe_gc's (tc_proc_bif_trap), and moves the
 * magic reference whole too. The work is counted as the YCF-generated loops consume it
 * (map_from_list, map_nodes), with qsort_units' mean for the sort: the VM's pivots make it
 * vary from call to call, so the trap is only as certain as the budget is far from the work.
 * Measured on OTP 25.2.3 (+S 1:1, eptest's list, a fresh process with a heap no GC needs,
 * 12 calls each, process_info reductions less the 2 of an empty call): the BIF's own
 * reductions are 50 at L = 100 (the model 52), 298 to 319 at 500 (308), 622 to 673 at
 * 1000 (649), 1309 to 1377 at 2000 (1363), 2006 to 2181 at 3000 (2114). The tester calls it
 * with 773 reductions left at L = 1000 (30920 against 24880 ... 26960: no trap), 1146 at
 * 2000 (45840 against 52360 ... 55080: a trap in the trie's build, before the factory left
 * the heap), 1710 at 3000, 2192 at 5000, 2802 at 10000 and 3257 at 20000 (traps, from 5000
 * in the sort); VM runs with a burnt-down slice agree (L = 1000: a context switch and the
 * running trace's out/in at the call with 494 left, none with 894). A map with a level past
 * depth 7 is built untrapped and uncharged (not counted).
 */
static tc_result map_from_list_bif(world *w, tc_term m, tc_heapfrag *fentry)
{
    tc_proc *p = w->tester;
    const int64_t per_red = 40; /* maps_from_list_1's iterations_per_red */
    int64_t slice = tc_proc_policy(p)->context_reds;
    uint64_t units = 0;
    bool trapped = false;
    tc_result r = map_from_list(p, m, (uint64_t)(per_red * w->tester_reds), &units, &trapped);
    if (r != TC_OK || units == 0)
        return r;
    if (!trapped) {
        spend(w, (int64_t)units / per_red);
        return TC_OK;
    }
    tc_proc_bif_trap(p, fentry);
    /* each trap spends the slice it began with (the consume that crosses the budget may pass
     * it by up to an insertion sort's 160, which the model does not carry over); the
     * continuations' budget is a new slice's */
    uint64_t left = units - (uint64_t)(per_red * w->tester_reds);
    uint64_t budget = (uint64_t)(per_red * slice);
    w->sched.stats.switches++;
    for (; left >= budget; left -= budget)
        w->sched.stats.switches++;
    w->tester_reds = slice - (int64_t)left / per_red;
    return TC_OK;
}

/* payload/2, called from tester_body (its return address pushed), Data left in x0: ints
 * tail-calls lists:seq; the others make `allocate 0` and call lists:seq (call_ext: a return
 * address), then tuple tail-calls list_to_tuple (call_ext_last: call_light_bif, deallocate,
 * return), floats and strings tail-call their comprehension (call_last), map calls its
 * comprehension (call) and tail-calls maps:from_list, which builds its map as map_from_list
 * says (a flatmap of up to 32 keys in one HAlloc: flatmap_from_validated_list). nested and binary are built as build_elements and place_x0 say. */
static tc_result ep_payload(world *w, tc_ep_shape sh, long len, tc_term arena_copy)
{
    tc_proc *p = w->tester;
    tc_result r;
    if (sh == TC_EP_INTS)
        return build_seq_calls(p, len, entry, w);
    if (sh == TC_EP_NESTED)
        return build_elements(p, sh, len);
    if (sh == TC_EP_BINARY)
        return place_x0(p, arena_copy);
    if ((r = allocate(p, fw(TC_EP_F_PAYLOAD), 0)) != TC_OK || (r = tc_proc_push_cp(p)) != TC_OK)
        return r;
    r = build_seq_calls(p, len, entry, w);
    charged(w);
    tc_proc_pop(p, 1);
    /* seq_loop's `return` into payload/2, a reduction (emit_return) */
    if (r != TC_OK || (r = ret(w)) != TC_OK)
        return r;
    if (sh == TC_EP_TUPLE)
        return seq_to_tuple(p, len);
    if (sh != TC_EP_MAP)
        return build_lc(w, sh, len); /* call_last: payload's frame is gone */
    /* map: `call` the comprehension (a return address), then maps:from_list (call_ext_last:
     * call_light_bif, and its reduction) */
    if ((r = tc_proc_push_cp(p)) != TC_OK || (r = build_lc(w, sh, len)) != TC_OK)
        return r;
    tc_proc_pop(p, 1);
    if ((r = ret(w)) != TC_OK) /* the comprehension's outermost return, into payload/2 */
        return r;
    if ((r = bif_call(w, 1)) != TC_OK)
        return r;
    tc_heapfrag *fentry = tc_proc_bif_enter(p);
    if (tc_is_hashmap(arena_copy)) {
        r = map_from_list_bif(w, arena_copy, fentry);
    } else { /* flatmap_from_validated_list: one HAlloc */
        uint64_t words;
        if ((r = tc_term_flat_size(arena_copy, &words)) != TC_OK)
            return r;
        tc_term *hp = tc_proc_halloc(p, (size_t)words);
        if (!hp)
            return TC_ENOMEM;
        tc_proc_x(p)[0] = tc_copy_struct_fill(arena_copy, hp, words, tc_proc_offheap(p), NULL);
    }
    return r == TC_OK ? tc_proc_bif_return_maybe_gc(p, fentry, &tc_proc_x(p)[0]) : r;
}

/* eptest.erl's tester gets a caller's term as {ext, Bin} among its spawn arguments
 * (termcopy explain --vm and the fixed-cost runs pass its external format), where a shape
 * passes an atom: spawn copies the 3-tuple and the binary onto the tester's heap, a ProcBin
 * linked into its off-heap list (its bytes counted in the binary virtual heap) or a heap
 * binary up to 64 bytes. Its bytes: term_to_binary with minor version 2, as termcopy encodes
 * it. Dead once payload/2 has decoded it. */
static tc_result ext_spawn_arg(tc_proc *p, const unsigned char *ext, size_t len)
{
    tc_term tag, e[2];
    tc_result r = tc_atom_intern("ext", 3, &tag);
    if (r != TC_OK)
        return r;
    e[0] = tag;
    e[1] = tc_term_binary(tc_proc_alloc(p), ext, len);
    return e[1] == TC_NON_VALUE || tc_term_tuple(tc_proc_alloc(p), e, 2) == TC_NON_VALUE ? TC_ENOMEM : TC_OK;
}

/* binary_to_term(Bin), eptest.erl's payload({ext, Bin}, _): a tail call to a BIF, which the
 * loader makes a light BIF call with a zero-word frame around it (its reduction test before
 * the BIF, its `return` after). The BIF takes the term's words with HAlloc (external.c
 * binary_to_term_int, erl_message.c erts_factory_proc_prealloc_init: a fragment when the heap
 * is short), builds the term there and returns through the GC-after-BIF test, the term the
 * only live register. Where the model differs: decoded_size's estimate for a map (and a
 * bignum's or a binary's spare word) is the flat size here, as the factory trims it at its
 * close; a term large enough to trap (more terms than the slice's reductions times 128) is
 * decoded in one go; the BIF's own reductions (one per 64 terms decoded) are not charged. */
static tc_result decode_x0(world *w, tc_term t)
{
    tc_proc *p = w->tester;
    uint64_t words;
    tc_result r = tc_term_flat_size(t, &words);
    if (r != TC_OK || (r = bif_call(w, 1)) != TC_OK)
        return r;
    tc_heapfrag *fentry = tc_proc_bif_enter(p);
    tc_term *hp = tc_proc_halloc(p, (size_t)words);
    if (!hp)
        return TC_ENOMEM;
    tc_proc_x(p)[0] = tc_copy_struct_fill(t, hp, words, tc_proc_offheap(p), NULL);
    tc_proc_set_arity(p, 1);
    if ((r = tc_proc_bif_return_maybe_gc(p, fentry, &tc_proc_x(p)[0])) != TC_OK)
        return r;
    return ret(w);
}

static tc_result tester_runs_others(world *w);

static tc_step yield_step(tc_task *t)
{
    (void)t;
    return TC_STEP_DONE;
}

/* The rest of the scheduler's queue runs (the server's first steps), then the tester comes
 * back in: persistent_term:put suspends the caller until thread progress
 * (erl_bif_persistent.c suspend_updater, ERTS_BIF_YIELD_RETURN: a trap, so the light BIF's
 * return address stays on the stack through the schedule-in and its GC). */
static tc_result tester_yields(world *w)
{
    tc_result r = tc_proc_push_cp(w->tester);
    if (r != TC_OK)
        return r;
    r = tester_runs_others(w);
    tc_proc_pop(w->tester, 1);
    return r;
}

/* The tester gives up its slice and the queue runs until it is back (the server's stop). */
static tc_result tester_runs_others(world *w)
{
    tc_task task;
    w->tester_task = &task;
    tc_sched_spawn(&w->sched, &task, w->tester, yield_step, NULL);
    tc_result r = tc_sched_run(&w->sched);
    w->tester_reds = task.reds_left;
    w->tester_task = NULL;
    return r;
}

/*
 * Where the model still differs from the VM's +S 1:1 trace of this tester (tracediff.sh
 * --grid --schedulers 1, the 55 points of ints, tuple, floats, strings and map at L = 10 ...
 * 30000 whose VM traces report/data/tracegrid-s1-vm.tar.xz holds: identical at 50 with the
 * era's outcomes of the dirty-GC race, against 38 before the receive's fetch, the fun's entry
 * and the resume past a loop's entry were modelled, 42 before maps:from_list's trap
 * (map_from_list_bif), a heap test's long GC delayed onto a fragment heap (gc.c
 * delay_long_gc) and lists:seq's return and the apply's entries counted as the JIT counts
 * them): only at the race of a long GC sent to a dirty CPU scheduler against the server's
 * reply (sched.h, tc_draw). At ints 20000, tuple 30000, floats 10000, strings 5000 and 10000
 * the VM's own trace changes from run to run, and with the outcomes of its draws given one by
 * one (tc_ep_config.draws, found by tracediff.sh --search-draws) the model's trace is the
 * VM's at all 55 points: mostly the GC first, a few draws the server first (ints 20000: 3 of
 * 599), and at floats 10000 mostly the GC over before the server's send. Which comes first is
 * thread timing, so the VM's own GC count moves from run to run there (ints 20000: 1108 ...
 * 1543).
 */
/*
 * eptest.erl's whole run: the tester spawned as eptest:tester/2 spawns it ([Fun | [[]]]: a
 * cons, the fun of 7 free variables; the tail is a literal), tester_body/6 (the payload, the
 * server spawned with Data, ets:new, the persistent-term key and put, the passes' fun), the
 * comprehension over the passes, and its end (the results' list, S ! stop). The meter stands
 * for eptest:meter/2: the counters are read when a mark reaches it.
 */
static tc_result ep_life(world *w, tc_ets *table, tc_copy_literal_area **pt_out, tc_term payload,
                         tc_ep_counts out[TC_EP_TESTS])
{
    const tc_ep_config *cfg = w->cfg;
    tc_result r;
    server_state ss = {.w = w};
    w->work_table = table;
    w->pass = -1;
    w->tester_reds = cfg->policy.context_reds;
    /* the meter: an untraced process waiting for marks */
    if ((r = tc_proc_new(w->mem, &cfg->policy, &w->meter)) != TC_OK)
        return r;
    tc_proc_set_trace_receive(w->meter, cfg->trace_receive); /* its heap is not traced */
    w->meter_task = &w->meter_t;
    tc_sched_spawn(&w->sched, w->meter_task, w->meter, meter_step, w);
    /* the tester, its spawn arguments and the frames down to payload/2 */
    uint64_t spawn_words = 2 + ERL_FUN_SIZE + fw(TC_EP_F_FUN_TESTER), ext_words = 0;
    unsigned char *ext = NULL;
    size_t ext_len = 0;
    if (cfg->payload != TC_NON_VALUE) {
        if ((r = tc_ext_encode(cfg->payload, 2, &ext, &ext_len)) != TC_OK)
            return r;
        /* the 3-tuple and the binary (erl_binary.h PROC_BIN_SIZE, heap_bin_size) */
        ext_words = 3 + (ext_len > TC_HEAP_BIN_LIMIT ? TC_PROC_BIN_SIZE : TC_HEAP_BIN_SIZE(ext_len));
    }
    if ((r = tc_proc_spawn(w->mem, &cfg->policy, spawn_words + ext_words, &w->tester)) != TC_OK) {
        free(ext);
        return r;
    }
    traced(w, w->tester);
    tc_proc *p = w->tester;
    tc_term *hp = tc_proc_halloc(p, spawn_words);
    r = !hp ? TC_ENOMEM : ext ? ext_spawn_arg(p, ext, ext_len) : TC_OK;
    free(ext);
    if (r != TC_OK)
        return r;
    for (uint64_t i = 0; i < spawn_words; i++)
        hp[i] = TC_NIL;
    if ((r = tc_proc_push_cp(p)) != TC_OK || (r = allocate(p, fw(TC_EP_F_TESTER_FUN), 0)) != TC_OK ||
        (r = tc_proc_push_cp(p)) != TC_OK || (r = allocate(p, fw(TC_EP_F_TESTER_BODY), 0)) != TC_OK ||
        (r = tc_proc_push_cp(p)) != TC_OK)
        return r;
    /* the calls so far, a reduction each at the callee's entry (i_test_yield: `dec FCALLS`):
     * erlang:apply/2, the fun, tester_body/6, payload/2, lists:seq/2. beam_run_process's
     * i_apply_only takes none (instr_call.cpp emit_variable_apply: the C apply(), then a
     * jump to erlang:apply/2's entry) */
    spend(w, 5);
    r = cfg->payload != TC_NON_VALUE ? decode_x0(w, cfg->payload) : ep_payload(w, cfg->shape, cfg->len, payload);
    if (r != TC_OK)
        return r;
    tc_proc_pop(p, 1);
    /* The `return` into tester_body/6, a reduction (emit_return): payload/2's own where its
     * last call is a light BIF (call_ext_last: the BIF, deallocate, return: tuple's
     * list_to_tuple and map's maps:from_list; a long GC the BIF asked for
     * (check_for_possibly_long_gc) runs where this return yields, in tester_body), the
     * callee's of its tail call for ints (lists:seq's seq_loop) and floats and strings (the
     * comprehension's outermost level). nested and binary are built without reductions. */
    if (cfg->payload == TC_NON_VALUE && cfg->shape != TC_EP_NESTED && cfg->shape != TC_EP_BINARY && (r = ret(w)) != TC_OK)
        return r;
    *bottom(p, SLOT_DATA) = tc_proc_x(p)[0];
    /* the server's fun (test_heap 1 word + 1 fun, Data live), erlang:spawn_link/1's
     * [F | [[]]] (test_heap 2), and the server spawned with a heap for them */
    tc_proc_set_arity(p, 0);
    if ((r = tc_proc_test_heap_maybe_gc(p, ERL_FUN_SIZE + fw(TC_EP_F_FUN_SERVER))) != TC_OK)
        return r;
    tc_term data = *bottom(p, SLOT_DATA);
    tc_proc_x(p)[0] = make_fun(p, &data, fw(TC_EP_F_FUN_SERVER));
    tc_proc_set_arity(p, 1);
    if (tc_proc_x(p)[0] == TC_NON_VALUE)
        return TC_ENOMEM;
    if ((r = tc_proc_push_cp(p)) != TC_OK || (r = tc_proc_test_heap_maybe_gc(p, 2)) != TC_OK)
        return r;
    tc_term args = tc_term_cons(tc_proc_alloc(p), tc_proc_x(p)[0], TC_NIL);
    uint64_t arg_words = 0;
    if (args == TC_NON_VALUE)
        return TC_ENOMEM;
    if ((r = tc_estack_size_object(w->mem, args, NULL, NULL, &arg_words)) != TC_OK) /* erl_create_process */
        return r;
    tc_policy sp = cfg->policy, preset;
    if (tc_policy_preset(sp.name, &preset) == TC_OK)
        sp.min_heap_size = preset.min_heap_size; /* the server is spawned with no options */
    if ((r = tc_proc_spawn(w->mem, &sp, arg_words, &w->server)) != TC_OK)
        return r;
    traced(w, w->server);
    tc_term sargs;
    if ((r = tc_proc_copy_in(w->server, args, arg_words, &sargs)) != TC_OK || (r = tc_proc_push_cp(w->server)) != TC_OK)
        return r;
    tc_term sfun = tc_car(sargs);
    tc_term sdata = fun_env(sfun, 0);
    w->server_task = &w->server_t;
    tc_sched_spawn(&w->sched, w->server_task, w->server, ep_server_step, &ss);
    ss.spawn_data = sdata;
    tc_proc_pop(p, 1);
    tc_proc_set_arity(p, 0);
    /* ets:new: its table's magic reference (y0), the key {eptest, self()} (test_heap 3, the
     * table live; y1), persistent_term:put (its state's magic reference, then the yield) */
    tc_term tab = TC_NIL;
    if ((r = light_bif(p, MAGIC_REF_WORDS, &tab)) != TC_OK)
        return r;
    tc_proc_x(p)[0] = tab;
    tc_proc_set_arity(p, 1);
    if ((r = tc_proc_test_heap_maybe_gc(p, 3)) != TC_OK)
        return r;
    tc_term key[2] = {w->get_atom, tc_make_pid(0, 0)};
    tc_term ptkey = tc_term_tuple(tc_proc_alloc(p), key, 2);
    if (ptkey == TC_NON_VALUE)
        return TC_ENOMEM;
    *bottom(p, SLOT_PTKEY) = ptkey;
    *bottom(p, SLOT_TABLE) = tc_proc_x(p)[0];
    tc_proc_set_arity(p, 0);
    tc_term state = TC_NIL;
    if ((r = light_bif(p, MAGIC_REF_WORDS, &state)) != TC_OK)
        return r;
    uint64_t dwords = 0;
    if ((r = tc_term_shared_size(*bottom(p, SLOT_DATA), &dwords)) != TC_OK)
        return r;
    if (!(*pt_out = tc_copy_literal_area_new((size_t)dwords + 16)))
        return TC_ENOMEM;
    if ((r = tc_copy_literal_put(*pt_out, w->get_atom, *bottom(p, SLOT_DATA), NULL)) != TC_OK)
        return r;
    if ((r = tester_yields(w)) != TC_OK)
        return r;
    /* the passes' fun (test_heap 5 words + 1 fun): N, Data, PtKey, S, T; y3..y6 die */
    if ((r = tc_proc_test_heap_maybe_gc(p, ERL_FUN_SIZE + fw(TC_EP_F_FUN_PASSES))) != TC_OK)
        return r;
    tc_term env[5] = {tc_make_small(cfg->iterations), *bottom(p, SLOT_DATA), *bottom(p, SLOT_PTKEY),
                      tc_make_pid(1, 0), *bottom(p, SLOT_TABLE)};
    w->pending_fun = make_fun(p, env, fw(TC_EP_F_FUN_PASSES));
    if (w->pending_fun == TC_NON_VALUE)
        return TC_ENOMEM;
    for (size_t i = SLOT_BODY; i <= SLOT_DATA; i++)
        *bottom(p, i) = TC_NIL;
    if ((r = tc_proc_push_cp(p)) != TC_OK)
        return r;
    for (int k = 0; k < TC_EP_TESTS && r == TC_OK; k++)
        r = ep_pass(w, k, *pt_out, &out[k]);
    if (r != TC_OK)
        return r;
    /* lc([]) returns [], then each level conses its result (test_heap 2) and returns */
    w->pass = -1;
    tc_proc_pop(p, 1);
    tc_proc_x(p)[0] = TC_NIL;
    tc_proc_set_arity(p, 1);
    for (int k = TC_EP_TESTS - 1; k >= 0 && r == TC_OK; k--) {
        if ((r = tc_proc_test_heap_maybe_gc(p, 2)) != TC_OK)
            break;
        tc_proc_x(p)[0] = tc_term_cons(tc_proc_alloc(p), *tc_proc_stack_slot(p, 0), tc_proc_x(p)[0]);
        if (tc_proc_x(p)[0] == TC_NON_VALUE)
            r = TC_ENOMEM;
        tc_proc_pop(p, 2);
    }
    /* S ! stop: the server leaves its loop */
    tc_term stop = w->get_atom;
    if (r == TC_OK)
        r = tc_send_maybe_gc(p, w->server, &stop, false, &w->copy);
    if (r == TC_OK) {
        tc_sched_wake(w->server_task);
        r = tester_runs_others(w);
    }
    tc_proc_set_arity(p, 0);
    return r;
}

tc_result tc_ep_estimate_memory(const tc_ep_config *cfg, uint64_t *estimate, uint64_t *machine, bool *fits)
{
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return TC_ENOMEM;
    tc_term payload = cfg->payload, obj, elems[2];
    tc_result r = payload != TC_NON_VALUE ? TC_OK : tc_ep_build_payload(tc_arena_alloc(arena), cfg->shape, cfg->len, &payload);
    uint64_t words = 0;
    tc_ets *scratch = NULL;
    tc_ets_opts eo = tc_ets_opts_default(TC_ETS_LOCK_NONE);
    eo.compressed = cfg->policy.ets_compressed;
    eo.grow = cfg->policy.ets_grow;
    eo.term_head = cfg->policy.ets_term_head;
    eo.alloc_lock = cfg->policy.mem.thread_safe;
    if (r == TC_OK)
        r = tc_term_flat_size(payload, &words);
    elems[0] = tc_make_small(1);
    elems[1] = payload;
    if (r == TC_OK && (obj = tc_term_tuple(tc_arena_alloc(arena), elems, 2)) == TC_NON_VALUE)
        r = TC_ENOMEM;
    if (r == TC_OK)
        r = tc_ets_new(&eo, &scratch);
    tc_copy_stats stats = {0};
    if (r == TC_OK)
        r = tc_ets_insert(scratch, obj, &stats);
    if (r == TC_OK) {
        uint64_t per_object = tc_ets_get_info(scratch).stored_bytes;
        *estimate = (uint64_t)cfg->iterations * per_object + words * TC_WORD_BYTES;
        const char *env = getenv("TC_MEM_BYTES");
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        *machine = env && *env ? strtoull(env, NULL, 10) : pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
        *fits = *estimate <= *machine;
    }
    if (scratch)
        tc_ets_free(scratch);
    tc_arena_free(arena);
    return r;
}

tc_result tc_ep_run(const tc_ep_config *cfg, tc_ep_counts out[TC_EP_TESTS])
{
    if (cfg->policy.tester == TC_TESTER_ERAS_EP_R10B || cfg->policy.tester == TC_TESTER_ERAS_EP_R13B)
        return tc_erasep_run(cfg, out); /* eras_ep.erl's run as the seeds' own VMs compile it */
    world w = {.cfg = cfg, .at = {{.test = -1}, {.test = -1}}};
    tc_result r = TC_ENOMEM;
    tc_arena *arena = tc_arena_new(0);
    tc_ets *table = NULL;
    tc_copy_literal_area *pt = NULL;
    tc_ets_opts eo = tc_ets_opts_default(TC_ETS_LOCK_NONE);
    eo.copy_out = cfg->policy.copy_out;
    eo.compressed = cfg->policy.ets_compressed;
    eo.grow = cfg->policy.ets_grow;
    eo.term_head = cfg->policy.ets_term_head;
    eo.alloc_lock = cfg->policy.mem.thread_safe;
    tc_term payload;
    w.mem = tc_mseg_new(&cfg->policy.mem);
    if (!arena || !w.mem)
        goto out;
    tc_sched_init(&w.sched);
    tc_sched_set_draws(&w.sched, cfg->draws, cfg->draw ? on_draw : NULL, &w);
    if ((r = tc_atom_intern("get", 3, &w.get_atom)) != TC_OK || (r = tc_atom_intern("marked", 6, &w.marked_atom)) != TC_OK)
        goto out;
    if (cfg->policy.tester == TC_TESTER_EPTEST_ERL) {
        payload = TC_NON_VALUE;
        if (cfg->payload == TC_NON_VALUE)
            r = tc_ep_build_payload(tc_arena_alloc(arena), cfg->shape, cfg->len, &payload);
        if (r == TC_OK && (r = tc_ets_new(&eo, &table)) == TC_OK)
            w.table = table;
        if (r == TC_OK)
            r = tc_ets_share_segments(table, w.mem);
        if (r == TC_OK)
            r = ep_life(&w, table, &pt, payload, out);
        goto out;
    }
    if ((r = tc_proc_new(w.mem, &cfg->policy, &w.tester)) != TC_OK)
        goto out;
    traced(&w, w.tester);
    if (cfg->payload != TC_NON_VALUE)
        r = tc_ep_place_on_heap(w.tester, cfg->payload);
    else if ((r = tc_ep_build_payload(tc_arena_alloc(arena), cfg->shape, cfg->len, &payload)) == TC_OK)
        r = build_on_heap(w.tester, cfg->shape, cfg->len, payload);
    if (r != TC_OK)
        goto out;
    for (int k = TC_EP_PROC1; k <= TC_EP_PROC3 && r == TC_OK; k++)
        r = pass_proc(&w, k, &out[k]);
    if (r == TC_OK && (r = tc_ets_new(&eo, &table)) == TC_OK)
        w.table = table;
    if (r == TC_OK) /* one mseg cache for the scheduler's heaps and objects (erl_mseg.c) */
        r = tc_ets_share_segments(table, w.mem);
    if (r == TC_OK)
        r = pass_loop(&w, table, NULL, OP_INSERT, TC_EP_INSERT, &out[TC_EP_INSERT]);
    if (r == TC_OK)
        r = pass_loop(&w, table, NULL, OP_INSERT, TC_EP_OVERWRITE, &out[TC_EP_OVERWRITE]);
    if (r == TC_OK)
        r = pass_loop(&w, table, NULL, OP_LOOKUP, TC_EP_LOOKUP, &out[TC_EP_LOOKUP]);
    if (r == TC_OK)
        r = pass_loop(&w, table, NULL, OP_EMPTY, TC_EP_EMPTY, &out[TC_EP_EMPTY]);
    if (r == TC_OK) {
        /* persistent_term:put(pt_key, Data) outside the timed pass, then N gets. The area holds
         * {Key, Data} at Data's shared size, the copy persistent_term:put makes. */
        tc_term data = data_of(w.tester);
        uint64_t words = 0;
        r = tc_term_shared_size(data, &words);
        if (r == TC_OK && !(pt = tc_copy_literal_area_new((size_t)words + 16)))
            r = TC_ENOMEM;
        if (r == TC_OK)
            r = tc_copy_literal_put(pt, w.get_atom, data, NULL);
    }
    if (r == TC_OK)
        r = pass_loop(&w, NULL, pt, OP_PT_GET, TC_EP_PT_GET, &out[TC_EP_PT_GET]);
out:
    tc_copy_literal_area_free(pt);
    tc_ets_free(table);
    if (w.tester)
        tc_proc_free(w.tester);
    if (w.server)
        tc_proc_free(w.server);
    if (w.meter)
        tc_proc_free(w.meter);
    tc_mseg_free(w.mem);
    tc_arena_free(arena);
    return r;
}

tc_result tc_ep_measure_gap(const tc_ep_config *cfg, int repeats, tc_ep_gap *out)
{
    double proc[64], lookup[64], pt[64];
    if (repeats < 1 || repeats > 64)
        return TC_EBADARG;
    for (int k = 0; k < repeats; k++) {
        tc_ep_counts c[TC_EP_TESTS];
        tc_result r = tc_ep_run(cfg, c);
        if (r != TC_OK)
            return r;
        /* The round trip of a run: the median of its three proc passes (as the report's). */
        double passes[3] = {c[TC_EP_PROC1].us, c[TC_EP_PROC2].us, c[TC_EP_PROC3].us};
        proc[k] = tc_timing_summarize(passes, 3).median;
        lookup[k] = c[TC_EP_LOOKUP].us;
        pt[k] = c[TC_EP_PT_GET].us;
        if (k == 0) {
            out->proc = c[TC_EP_PROC2];
            out->lookup = c[TC_EP_LOOKUP];
        }
    }
    out->proc_us = tc_timing_summarize(proc, (size_t)repeats).median;
    out->lookup_us = tc_timing_summarize(lookup, (size_t)repeats).median;
    out->pt_get_us = tc_timing_summarize(pt, (size_t)repeats).median;
    out->ratio = out->proc_us > 0 ? out->lookup_us / out->proc_us : 0;
    return TC_OK;
}

long tc_ep_gap_len(const char *era)
{
    const tc_policy_era *e = tc_policy_era_find(era);
    TC_CHECK(e && e->gap_len >= TC_EP_MIN_LEN); /* the command line took only preset names */
    return e->gap_len;
}

const tc_ep_switch tc_ep_switches[TC_EP_SWITCHES] = {
    {"keep_result", "the lookup result stays live until the next lookup", offsetof(tc_ep_config, keep_result)},
    {"hot_key", "one key looked up N times instead of keys 1..N", offsetof(tc_ep_config, hot_key)},
};

const tc_ep_switch *tc_ep_switch_find(const char *name)
{
    for (int i = 0; name && i < TC_EP_SWITCHES; i++)
        if (strcmp(tc_ep_switches[i].name, name) == 0)
            return &tc_ep_switches[i];
    return NULL;
}

void tc_ep_switch_set(tc_ep_config *c, const tc_ep_switch *s, bool on)
{
    memcpy((unsigned char *)c + s->offset, &on, sizeof on);
}

bool tc_ep_switch_get(const tc_ep_config *c, const tc_ep_switch *s)
{
    bool on;
    memcpy(&on, (const unsigned char *)c + s->offset, sizeof on);
    return on;
}

const tc_ep_fn tc_ep_step_fns[TC_EP_STEP_FNS] = {(tc_ep_fn)client_step,    (tc_ep_fn)server_step,    (tc_ep_fn)loop_step,
                                                 (tc_ep_fn)ep_client_step, (tc_ep_fn)ep_server_step, (tc_ep_fn)ep_loop_step,
                                                 (tc_ep_fn)mark_step};
