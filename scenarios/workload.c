#include "workload.h"

#include "erasep.h"
#include "workload_impl.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../copy/copy_struct.h"
#include "../copy/literal.h"
#include "timing.h"
#include "../alloc/faults.h"
#include "../stores/ets.h"
#include "../heaps/gc.h"
#include "../heaps/sched.h"
#include "../heaps/verify.h"
#include "../terms/hashmap.h"
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

/* The world of one run: the memory source, the scheduler, the tester process. */
typedef struct world {
    const tc_ep_config *cfg;
    tc_mseg *mem;
    tc_sched sched;
    tc_proc *tester;
    const tc_ets *table; /* its ets_alloc source's carriers count with the heaps' */
    tc_copy_stats copy;
    tc_term get_atom;
    tc_ep_where at[TC_EP_ROLES];   /* where each process is, for cfg->trace */
} world;

/* The proc.h trace hook of the tester and the servers: adds where the event happened. */
static void on_heap_event(void *ctx, const tc_proc *p, const tc_heap_event *ev)
{
    world *w = ctx;
    tc_ep_role role = p == w->tester ? TC_EP_TESTER : TC_EP_SERVER;
    w->cfg->trace(w->cfg->trace_ctx, role, &w->at[role], p, ev);
}

static void traced(world *w, tc_proc *p)
{
    if (w->cfg->trace)
        tc_proc_set_trace(p, on_heap_event, w);
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
static tc_result build_seq(tc_proc *p, long len)
{
    tc_term *x = tc_proc_x(p);
    x[0] = TC_NIL;
    tc_proc_set_arity(p, 1);
    for (long n = len, top = len; n > 0;) {
        long k = n >= 4 ? 4 : n >= 2 ? 2 : 1;
        tc_result r = tc_proc_test_heap_maybe_gc(p, 2 * (uint64_t)k);
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
    return TC_OK;
}

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
static tc_result build_on_heap(tc_proc *p, tc_ep_shape sh, long len, tc_term arena_copy)
{
    if (sh == TC_EP_BINARY || sh == TC_EP_MAP)
        return tc_ep_place_on_heap(p, arena_copy);
    if (sh == TC_EP_INTS || sh == TC_EP_TUPLE)
        return build_seq_payload(p, sh, len);
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
    if (r == TC_OK)
        r = tc_proc_push_maybe_gc(p, x[0]);
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
static tc_result send_pair(world *w, tc_proc *p, tc_task *peer, tc_term self, tc_term term)
{
    tc_term e[2] = {self, term};
    tc_term msg = tc_term_tuple(tc_proc_alloc(p), e, 2);
    tc_result r = tc_send_maybe_gc(p, peer->proc, &msg, peer->status != TC_TASK_WAITING, &w->copy);
    if (r == TC_OK)
        tc_sched_wake(peer);
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
        r = send_pair(st->w, t->proc, st->peer, tc_make_pid(0, 0), st->w->get_atom);
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
        r = send_pair(st->w, t->proc, st->peer, tc_make_pid(1, 0), data_of(t->proc));
    if (r != TC_OK)
        return fail(t, r);
    tc_sched_bump(t, 1); /* the send, then server(Data)'s call */
    st->left--;
    return TC_STEP_CONTINUE;
}

typedef enum loop_op { OP_INSERT, OP_LOOKUP, OP_EMPTY, OP_PT_GET } loop_op;

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
}

tc__ep_snapshot tc__ep_take(const tc_mseg *mem, const tc_copy_stats *copy, const tc_sched_stats *sched,
                            const tc_ets *table, const tc_proc *tester, const tc_proc *other)
{
    tc__ep_snapshot s = {.faults = (long)tc_faults_minor(), .mem = *tc_mseg_stats_get(mem), .copy = *copy,
                         .sched = *sched, .ets_carriers = table ? tc_mseg_stats_get(tc_ets_mem(table))->carriers_mapped : 0};
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
    c.carriers_mapped = b->mem.carriers_mapped - a->mem.carriers_mapped + (b->ets_carriers - a->ets_carriers);
    c.switches = b->sched.switches - a->sched.switches;
    c.io_polls = b->sched.io_polls - a->sched.io_polls;
    c.minor_gcs = b->minor - a->minor;
    c.major_gcs = b->major - a->major;
    c.long_gcs = b->long_gcs - a->long_gcs;
    c.gc_moved = b->moved - a->moved;
    return c;
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
    tc_term payload;
    w.mem = tc_mseg_new(&cfg->policy.mem);
    if (!arena || !w.mem)
        goto out;
    tc_sched_init(&w.sched);
    if ((r = tc_atom_intern("get", 3, &w.get_atom)) != TC_OK || (r = tc_proc_new(w.mem, &cfg->policy, &w.tester)) != TC_OK)
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

const tc_ep_fn tc_ep_step_fns[TC_EP_STEP_FNS] = {(tc_ep_fn)client_step, (tc_ep_fn)server_step, (tc_ep_fn)loop_step};
