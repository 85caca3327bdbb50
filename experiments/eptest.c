/*
 * eptest — the 2005 benchmark (seeds/2005-send-vs-ets-lookup.txt) on modelled processes.
 *
 * As in the seed, one tester process holds Data (a payload of length L) and runs:
 *   proc   three passes of N client-server calls: the tester sends {self(), get} to a
 *          server process holding Data, which replies {self(), Data};
 *   ets    N inserts of {I, Data} (I = 1..N) into a fresh set table, N overwrites of the
 *          same keys, then N ets:lookup(T, I) whose results are dropped;
 *   empty  a loop of N iterations.
 * Every process runs on one modelled scheduler (heaps/sched.h), so a round trip is two
 * real process switches, a send is copy/send.h's path for the era, a lookup is a BIF that
 * builds its result with HAlloc and returns through the era's GC trigger. Each pass is
 * timed as a whole, like the seed's timer:tc, and counted: faults, GCs, words the GC
 * copied, words the copies wrote, fragments, carriers mapped.
 *
 * Output: the seed's own line, [{proc,{A,B,C}},{ets,{I,O,L}},{empty,E}] in microseconds for
 * all iterations (medians over --repeats runs), and with --csv one row per test.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy/copy_struct.h"
#include "copy/send.h"
#include "harness.h"
#include "heaps/ets.h"
#include "heaps/gc.h"
#include "heaps/sched.h"
#include "heaps/verify.h"
#include "terms/arena.h"
#include "terms/atom.h"
#include "terms/binary.h"
#include "terms/size.h"

#define EXIT_USAGE 2

typedef enum shape { SHAPE_INTS, SHAPE_FLOATS, SHAPE_TUPLE, SHAPE_NESTED, SHAPE_STRINGS, SHAPE_BINARY } shape;
static const char *const shape_names[] = {"ints", "floats", "tuple", "nested", "strings", "binary"};

typedef struct options {
    long len, iterations, repeats;
    shape shape;
    tc_policy policy;
    tc_send_path send_path;
    bool hot_key;  /* look up one key N times instead of keys 1..N */
    bool keep_result; /* the lookup result stays live (in a register) until the next one */
    const char *csv;
    bool verify;
} options;

/* What one pass did, from counters read before and after it. */
typedef struct pass_counts {
    long faults;
    uint64_t gcs, gc_words, words_copied, fragments, carriers_mapped, switches, io_polls;
} pass_counts;

/* The world of one run: the memory source, the scheduler, the tester process. */
typedef struct world {
    const options *opt;
    tc_mseg *mem;
    tc_sched sched;
    tc_proc *tester;
    tc_copy_stats copy;
    tc_term get_atom;
} world;

/* ---- payloads ---------------------------------------------------------------------------- */

/* The payload of length L built in an arena, as the seed's expressions build it. */
static tc_result build_payload(tc_alloc *a, shape sh, long len, tc_term *out)
{
    tc_term acc = TC_NIL;
    switch (sh) {
    case SHAPE_INTS:
    case SHAPE_FLOATS:
    case SHAPE_STRINGS:
        for (long i = len; i >= 1; i--) {
            tc_term e;
            if (sh == SHAPE_INTS) {
                e = tc_make_small(i);
            } else if (sh == SHAPE_FLOATS) {
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
    case SHAPE_TUPLE: {
        tc_term *elems = tc_mem_alloc((size_t)len * sizeof *elems);
        if (!elems)
            return TC_ENOMEM;
        for (long i = 0; i < len; i++)
            elems[i] = tc_make_small(i + 1);
        acc = tc_term_tuple(a, elems, (uint64_t)len);
        tc_mem_free(elems);
        break;
    }
    case SHAPE_NESTED: /* {1,{2,...{L,[]}...}} */
        for (long i = len; i >= 1 && acc != TC_NON_VALUE; i--) {
            tc_term e[2] = {tc_make_small(i), acc};
            acc = tc_term_tuple(a, e, 2);
        }
        break;
    case SHAPE_BINARY: { /* <<0:(8*L)>>: a heap binary up to 64 bytes, refc above */
        unsigned char *zero = tc_mem_calloc((size_t)len + 1, 1);
        if (!zero)
            return TC_ENOMEM;
        acc = tc_term_binary(a, zero, (size_t)len);
        tc_mem_free(zero);
        break;
    }
    }
    if (acc == TC_NON_VALUE)
        return TC_ENOMEM;
    *out = acc;
    return TC_OK;
}

/* Copies `t` onto p's heap (as spawn copies its arguments) and keeps it on p's stack. */
static tc_result place_on_heap(tc_proc *p, tc_term t)
{
    uint64_t words;
    tc_result r = tc_term_flat_size(t, &words);
    if (r == TC_OK)
        r = tc_proc_test_heap_maybe_gc(p, words + 1);
    if (r != TC_OK)
        return r;
    tc_term copy = tc_copy_struct_fill(t, p->htop, words, &p->off_heap, NULL);
    p->htop += words;
    return tc_proc_push_maybe_gc(p, copy);
}

/* Data lives in the process's bottom stack slot. */
static tc_term data_of(tc_proc *p) { return *tc_proc_stack_slot(p, tc_proc_stack_size(p) - 1); }

/* ---- the processes ------------------------------------------------------------------------- */

typedef struct rpc_state {
    world *w;
    tc_task *peer;
    long left;
    int phase; /* client: 0 send, 1 await reply; server: 0 await request */
} rpc_state;

static tc_step fail(tc_task *t, tc_result r)
{
    t->error = r;
    return TC_STEP_ERROR;
}

static tc_step client_step(tc_task *t)
{
    rpc_state *st = t->state;
    tc_proc *p = t->proc;
    if (st->phase == 0) {
        if (st->left == 0)
            return TC_STEP_DONE;
        /* S ! {self(), get}: test_heap 3, put_tuple, send. */
        tc_result r = tc_proc_test_heap_maybe_gc(p, 3);
        if (r != TC_OK)
            return fail(t, r);
        tc_term e[2] = {tc_make_pid(0, 0), st->w->get_atom};
        tc_term req = tc_term_tuple(tc_proc_alloc(p), e, 2);
        r = tc_send(p, st->peer->proc, req, st->w->opt->send_path, st->peer->status != TC_TASK_WAITING,
                    &st->w->copy);
        if (r != TC_OK)
            return fail(t, r);
        tc_sched_wake(st->peer);
        st->phase = 1;
        return TC_STEP_CONTINUE;
    }
    tc_term reply;
    if (!tc_sched_receive(t, &reply))
        return TC_STEP_WAIT;
    /* receive {S, _} -> loop(N - 1, S): the reply is dropped. */
    st->left--;
    st->phase = 0;
    return TC_STEP_CONTINUE;
}

static tc_step server_step(tc_task *t)
{
    rpc_state *st = t->state;
    tc_proc *p = t->proc;
    if (st->left == 0)
        return TC_STEP_DONE;
    tc_term req;
    if (!tc_sched_receive(t, &req))
        return TC_STEP_WAIT;
    /* From ! {self(), Data} */
    tc_result r = tc_proc_test_heap_maybe_gc(p, 3);
    if (r != TC_OK)
        return fail(t, r);
    tc_term e[2] = {tc_make_pid(1, 0), data_of(p)};
    tc_term reply = tc_term_tuple(tc_proc_alloc(p), e, 2);
    r = tc_send(p, st->peer->proc, reply, st->w->opt->send_path, st->peer->status != TC_TASK_WAITING,
                &st->w->copy);
    if (r != TC_OK)
        return fail(t, r);
    tc_sched_wake(st->peer);
    st->left--;
    return TC_STEP_CONTINUE;
}

typedef enum ets_op { OP_INSERT, OP_LOOKUP, OP_EMPTY } ets_op;

typedef struct loop_state {
    world *w;
    tc_ets *table;
    ets_op op;
    long i, n;
} loop_state;

static tc_step loop_step(tc_task *t)
{
    loop_state *st = t->state;
    tc_proc *p = t->proc;
    if (st->i == st->n)
        return TC_STEP_DONE;
    st->i++;
    tc_result r = TC_OK;
    if (st->op == OP_INSERT) {
        /* ets:insert(T, {I, Data}) */
        r = tc_proc_test_heap_maybe_gc(p, 3);
        if (r == TC_OK) {
            tc_term e[2] = {tc_make_small(st->i), data_of(p)};
            tc_term obj = tc_term_tuple(tc_proc_alloc(p), e, 2);
            r = tc_ets_insert(st->table, obj, &st->w->copy);
        }
    } else if (st->op == OP_LOOKUP) {
        /* ets:lookup(T, I): a BIF whose result is built with HAlloc, then dropped. */
        tc_term key = tc_make_small(st->w->opt->hot_key ? 1 : st->i);
        tc_heapfrag *entry = tc_proc_bif_enter(p);
        tc_term res;
        r = tc_ets_lookup(st->table, key, tc_proc_alloc(p), &res, &st->w->copy);
        if (r == TC_OK)
            r = tc_proc_bif_return_maybe_gc(p, entry, &res);
        if (r == TC_OK && st->w->opt->keep_result) {
            p->x[0] = res;
            p->arity = 1;
        }
    }
    return r == TC_OK ? TC_STEP_CONTINUE : fail(t, r);
}

/* ---- passes ------------------------------------------------------------------------------ */

typedef struct snapshot {
    long faults;
    tc_mseg_stats mem;
    tc_copy_stats copy;
    tc_sched_stats sched;
    uint64_t tester_gcs, tester_gc_words, tester_frags;
} snapshot;

static snapshot take(const world *w)
{
    snapshot s = {.faults = tc_bench_minor_faults(), .mem = *tc_mseg_stats_get(w->mem), .copy = w->copy,
                  .sched = w->sched.stats};
    s.tester_gcs = w->tester->stats.minor_gcs + w->tester->stats.major_gcs;
    s.tester_gc_words = w->tester->stats.words_copied;
    s.tester_frags = w->tester->stats.frags_allocated;
    return s;
}

static pass_counts diff(const snapshot *a, const snapshot *b)
{
    pass_counts c = {0};
    c.faults = b->faults - a->faults;
    c.gcs = b->tester_gcs - a->tester_gcs;
    c.gc_words = b->tester_gc_words - a->tester_gc_words;
    c.words_copied = b->copy.words_written - a->copy.words_written;
    c.fragments = (b->copy.fragments - a->copy.fragments) + (b->tester_frags - a->tester_frags);
    c.carriers_mapped = b->mem.carriers_mapped - a->mem.carriers_mapped;
    c.switches = b->sched.switches - a->sched.switches;
    c.io_polls = b->sched.io_polls - a->sched.io_polls;
    return c;
}

static bool check_heap(const world *w, const tc_proc *p)
{
    const char *why;
    if (!w->opt->verify || tc_heap_verify(p, &why))
        return true;
    fprintf(stderr, "eptest: heap verifier failed: %s\n", why);
    return false;
}

/* One round-trip pass: a fresh server holding Data; counts include the server's GCs. */
static tc_result pass_proc(world *w, double *us, pass_counts *c)
{
    tc_proc *server;
    tc_result r = tc_proc_new(w->mem, &w->opt->policy, &server);
    if (r != TC_OK)
        return r;
    r = place_on_heap(server, data_of(w->tester));
    tc_task client_task, server_task;
    rpc_state cs = {w, &server_task, w->opt->iterations, 0}, ss = {w, &client_task, w->opt->iterations, 0};
    if (r == TC_OK) {
        tc_sched_spawn(&w->sched, &server_task, server, server_step, &ss);
        tc_sched_spawn(&w->sched, &client_task, w->tester, client_step, &cs);
        uint64_t server_gcs = server->stats.minor_gcs + server->stats.major_gcs;
        uint64_t server_words = server->stats.words_copied;
        snapshot a = take(w);
        uint64_t t0 = tc_bench_now_ns();
        r = tc_sched_run(&w->sched);
        uint64_t t1 = tc_bench_now_ns();
        snapshot b = take(w);
        *us = ((double)(t1 - t0) - tc_bench_clock_overhead_ns()) / 1000.0;
        *c = diff(&a, &b);
        c->gcs += server->stats.minor_gcs + server->stats.major_gcs - server_gcs;
        c->gc_words += server->stats.words_copied - server_words;
        if (r == TC_OK && !(check_heap(w, server) && check_heap(w, w->tester)))
            r = TC_EBADARG;
    }
    tc_proc_free(server);
    return r;
}

static tc_result pass_loop(world *w, tc_ets *table, ets_op op, double *us, pass_counts *c)
{
    loop_state st = {w, table, op, 0, w->opt->iterations};
    tc_task task;
    tc_sched_spawn(&w->sched, &task, w->tester, loop_step, &st);
    snapshot a = take(w);
    uint64_t t0 = tc_bench_now_ns();
    tc_result r = tc_sched_run(&w->sched);
    uint64_t t1 = tc_bench_now_ns();
    snapshot b = take(w);
    *us = ((double)(t1 - t0) - tc_bench_clock_overhead_ns()) / 1000.0;
    *c = diff(&a, &b);
    w->tester->arity = 0; /* a kept result dies with the loop */
    if (r == TC_OK && !check_heap(w, w->tester))
        r = TC_EBADARG;
    return r;
}

enum { T_PROC1, T_PROC2, T_PROC3, T_INSERT, T_OVERWRITE, T_LOOKUP, T_EMPTY, T_COUNT };
static const char *const test_names[T_COUNT] = {"proc1", "proc2", "proc3", "ets_insert", "ets_overwrite",
                                               "ets_lookup", "empty"};

/* One eptest:run(N): every test once, in the seed's order. */
static tc_result run_once(const options *opt, double us[T_COUNT], pass_counts counts[T_COUNT])
{
    world w = {.opt = opt};
    tc_result r = TC_ENOMEM;
    tc_arena *arena = tc_arena_new(0);
    tc_ets *table = NULL;
    tc_ets_opts eo = tc_ets_opts_default(TC_ETS_LOCK_NONE);
    w.mem = tc_mseg_new(&opt->policy.mem);
    if (!arena || !w.mem)
        goto out;
    if ((r = tc_atom_intern("get", 3, &w.get_atom)) != TC_OK)
        goto out;
    tc_sched_init(&w.sched);
    if ((r = tc_proc_new(w.mem, &opt->policy, &w.tester)) != TC_OK)
        goto out;
    tc_term payload;
    if ((r = build_payload(tc_arena_alloc(arena), opt->shape, opt->len, &payload)) != TC_OK ||
        (r = place_on_heap(w.tester, payload)) != TC_OK)
        goto out;
    for (int k = T_PROC1; k <= T_PROC3 && r == TC_OK; k++)
        r = pass_proc(&w, &us[k], &counts[k]);
    if (r == TC_OK)
        r = tc_ets_new(&eo, &table);
    if (r == TC_OK)
        r = pass_loop(&w, table, OP_INSERT, &us[T_INSERT], &counts[T_INSERT]);
    if (r == TC_OK)
        r = pass_loop(&w, table, OP_INSERT, &us[T_OVERWRITE], &counts[T_OVERWRITE]);
    if (r == TC_OK)
        r = pass_loop(&w, table, OP_LOOKUP, &us[T_LOOKUP], &counts[T_LOOKUP]);
    if (r == TC_OK)
        r = pass_loop(&w, table, OP_EMPTY, &us[T_EMPTY], &counts[T_EMPTY]);
out:
    tc_ets_free(table);
    if (w.tester)
        tc_proc_free(w.tester);
    tc_mseg_free(w.mem);
    tc_arena_free(arena);
    return r;
}

/* ---- the command line -------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fputs("usage: eptest [OPTIONS]\n"
          "\n"
          "The 2005 send-vs-ets:lookup benchmark on modelled processes: prints the seed's line\n"
          "[{proc,{A,B,C}},{ets,{I,O,L}},{empty,E}] (microseconds for all iterations, medians).\n"
          "\n"
          "  --len L            payload length, 10..30000 (default 1000)\n"
          "  --iterations N     calls per test (default 1000)\n"
          "  --shape S          ints (lists:seq(1,L), default), floats, tuple, nested, strings, binary\n"
          "  --era E            r10b or otp25 (default otp25): heap rules, GC trigger, send path\n"
          "  --repeats R        whole runs to take medians over (default 5; --quick 3)\n"
          "  --csv FILE|-       one row per test\n"
          "  --quick            fewer repeats\n"
          "  --verify           run the heap verifier after every pass\n"
          "ablation switches (each changes one mechanism of the era):\n"
          "  --gc-trigger bif|schedule   when a fragment-holding process is collected\n"
          "  --send-path direct|heap_or_frag\n"
          "  --no-shrink        the GC never shrinks a heap\n"
          "  --segment-cache N  mseg cache slots (0: every large heap freshly mapped)\n"
          "  --sbct BYTES       single-block carrier threshold\n"
          "  --min-heap WORDS   min_heap_size of every process\n"
          "  --keep-result      the lookup result stays live until the next lookup\n"
          "  --hot-key          look up key 1 every time instead of keys 1..N\n"
          "  --help\n",
          f);
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static int bad(const char *what, const char *value)
{
    fprintf(stderr, "eptest: bad %s '%s' (see --help)\n", what, value);
    return EXIT_USAGE;
}

static int parse_options(int argc, char **argv, options *o)
{
    enum { O_ERA = 256, O_CSV, O_SHAPE, O_TRIGGER, O_SEND, O_NOSHRINK, O_CACHE, O_SBCT, O_MINHEAP, O_KEEP, O_HOT,
           O_VERIFY, O_REPEATS };
    static const struct option longs[] = {
        {"len", required_argument, NULL, 'l'},       {"iterations", required_argument, NULL, 'n'},
        {"quick", no_argument, NULL, 'q'},           {"help", no_argument, NULL, 'h'},
        {"era", required_argument, NULL, O_ERA},     {"csv", required_argument, NULL, O_CSV},
        {"shape", required_argument, NULL, O_SHAPE}, {"gc-trigger", required_argument, NULL, O_TRIGGER},
        {"send-path", required_argument, NULL, O_SEND}, {"no-shrink", no_argument, NULL, O_NOSHRINK},
        {"segment-cache", required_argument, NULL, O_CACHE}, {"sbct", required_argument, NULL, O_SBCT},
        {"min-heap", required_argument, NULL, O_MINHEAP}, {"keep-result", no_argument, NULL, O_KEEP},
        {"hot-key", no_argument, NULL, O_HOT},       {"verify", no_argument, NULL, O_VERIFY},
        {"repeats", required_argument, NULL, O_REPEATS}, {NULL, 0, NULL, 0}};
    /* Era first: the ablation switches change one field of its policy. */
    const char *era = "otp25";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--era") == 0 && i + 1 < argc)
            era = argv[i + 1];
        else if (strncmp(argv[i], "--era=", 6) == 0)
            era = argv[i] + 6;
    }
    if (tc_policy_preset(era, &o->policy) != TC_OK)
        return bad("era", era);
    o->send_path = o->policy.frag_rule == TC_FRAG_R10B ? TC_SEND_DIRECT : TC_SEND_HEAP_OR_FRAG;
    bool quick = false, repeats_set = false;
    long v;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (c) {
        case 'l':
            if (!parse_long(optarg, 1, 1000000, &o->len))
                return bad("--len", optarg);
            break;
        case 'n':
            if (!parse_long(optarg, 1, 100000000, &o->iterations))
                return bad("--iterations", optarg);
            break;
        case 'q': quick = true; break;
        case 'h': usage(stdout); exit(0);
        case O_ERA: break;
        case O_CSV: o->csv = optarg; break;
        case O_SHAPE: {
            size_t k = 0;
            while (k < 6 && strcmp(optarg, shape_names[k]) != 0)
                k++;
            if (k == 6)
                return bad("--shape", optarg);
            o->shape = (shape)k;
            break;
        }
        case O_TRIGGER:
            if (strcmp(optarg, "bif") == 0)
                o->policy.trigger = TC_GC_AFTER_BIF;
            else if (strcmp(optarg, "schedule") == 0)
                o->policy.trigger = TC_GC_AT_SCHEDULE;
            else
                return bad("--gc-trigger", optarg);
            break;
        case O_SEND:
            if (tc_send_path_parse(optarg, &o->send_path) != TC_OK)
                return bad("--send-path", optarg);
            break;
        case O_NOSHRINK: o->policy.shrink = false; break;
        case O_CACHE:
            if (!parse_long(optarg, 0, 1000, &v))
                return bad("--segment-cache", optarg);
            o->policy.mem.cache_slots = (unsigned)v;
            break;
        case O_SBCT:
            if (!parse_long(optarg, 4096, 1L << 40, &v))
                return bad("--sbct", optarg);
            o->policy.mem.sbct = (size_t)v;
            break;
        case O_MINHEAP:
            if (!parse_long(optarg, 1, 1L << 32, &v))
                return bad("--min-heap", optarg);
            o->policy.min_heap_size = (uint64_t)v;
            break;
        case O_KEEP: o->keep_result = true; break;
        case O_HOT: o->hot_key = true; break;
        case O_VERIFY: o->verify = true; break;
        case O_REPEATS:
            if (!parse_long(optarg, 1, 1000, &o->repeats))
                return bad("--repeats", optarg);
            repeats_set = true;
            break;
        default:
            fprintf(stderr, "eptest: unknown or incomplete option '%s' (see --help)\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "eptest: unexpected argument '%s' (see --help)\n", argv[optind]);
        return EXIT_USAGE;
    }
    if (!repeats_set)
        o->repeats = quick ? 3 : 5;
    return 0;
}

int main(int argc, char **argv)
{
    options o = {.len = 1000, .iterations = 1000, .shape = SHAPE_INTS};
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;
    FILE *csv = NULL;
    if (o.csv && !(csv = tc_bench_csv_open(o.csv))) {
        fprintf(stderr, "eptest: cannot write '%s': %s\n", o.csv, strerror(errno));
        return EXIT_USAGE;
    }
    double *samples = calloc((size_t)o.repeats * T_COUNT, sizeof *samples);
    pass_counts *counts = calloc((size_t)o.repeats * T_COUNT, sizeof *counts);
    if (!samples || !counts) {
        fprintf(stderr, "eptest: out of memory\n");
        return 1;
    }
    for (long k = 0; k < o.repeats; k++) {
        tc_bench_progress("eptest %s %s L=%ld: run %ld of %ld", o.policy.name, shape_names[o.shape], o.len, k + 1,
                          o.repeats);
        double us[T_COUNT];
        tc_result r = run_once(&o, us, &counts[k * T_COUNT]);
        if (r != TC_OK) {
            tc_bench_progress_end();
            fprintf(stderr, "eptest: run failed: %s\n", tc_result_name(r));
            return 1;
        }
        for (int t = 0; t < T_COUNT; t++)
            samples[t * o.repeats + k] = us[t];
    }
    tc_bench_progress_end();
    tc_bench_summary sum[T_COUNT];
    for (int t = 0; t < T_COUNT; t++)
        sum[t] = tc_bench_summarize(&samples[t * o.repeats], (size_t)o.repeats);
    printf("[{proc,{%.0f,%.0f,%.0f}},{ets,{%.0f,%.0f,%.0f}},{empty,%.0f}]\n", sum[T_PROC1].median,
           sum[T_PROC2].median, sum[T_PROC3].median, sum[T_INSERT].median, sum[T_OVERWRITE].median,
           sum[T_LOOKUP].median, sum[T_EMPTY].median);
    if (csv) {
        tc_bench_meta_standard(csv);
        tc_bench_meta(csv, "experiment", "eptest (seed 2005 on modelled processes)");
        tc_bench_meta(csv, "era", "%s (send path %s, gc trigger %s, shrink %s, segment cache %u, sbct %zu, min_heap %llu)",
                      o.policy.name, tc_send_path_name(o.send_path),
                      o.policy.trigger == TC_GC_AFTER_BIF ? "bif" : "schedule", o.policy.shrink ? "on" : "off",
                      o.policy.mem.cache_slots, o.policy.mem.sbct, (unsigned long long)o.policy.min_heap_size);
        tc_bench_meta(csv, "repeats", "%ld (counts are from the first run; times are medians)", o.repeats);
        fprintf(csv, "test,shape,payload_len,iterations,era,median_us,iqr_us,faults,gcs,gc_words_copied,words_copied,"
                     "fragments,carriers_mapped,switches,io_polls\n");
        for (int t = 0; t < T_COUNT; t++) {
            const pass_counts *c = &counts[t];
            fprintf(csv, "%s,%s,%ld,%ld,%s,%.1f,%.1f,%ld,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", test_names[t],
                    shape_names[o.shape], o.len, o.iterations, o.policy.name, sum[t].median, sum[t].q3 - sum[t].q1,
                    c->faults, (unsigned long long)c->gcs, (unsigned long long)c->gc_words,
                    (unsigned long long)c->words_copied, (unsigned long long)c->fragments,
                    (unsigned long long)c->carriers_mapped, (unsigned long long)c->switches,
                    (unsigned long long)c->io_polls);
        }
        if (!tc_bench_csv_close(csv)) {
            fprintf(stderr, "eptest: writing '%s' failed\n", o.csv);
            return EXIT_USAGE;
        }
    }
    free(samples);
    free(counts);
    return 0;
}
