/*
 * etsbench — the 2009 "how fast is ETS" replay (seed 2009-how-fast-is-ets.txt): insert and
 * lookup of N {I, hello} (I from N down to 1, as the seed's dotimes), the seed's 2-writer
 * update, and update_counter(T, I, {2, 1}), for each lock mode on 1 and 2 scheduler
 * threads; then the process dictionary (put, get, get+put as a counter) as the baseline.
 *
 * What the threads mean. threads is the number of schedulers (real threads). With 1, one
 * process does the N operations, except the update: the seed's two writer processes take
 * turns on the one scheduler, 500 operations each (about CONTEXT_REDS worth of reductions
 * [I]). With 2, the N keys are split between two processes on two threads (halves, each
 * counted down), and for the update both writers insert all N keys in the same order, as
 * in the seed, so they meet on the same buckets. `none` (-smp disable) has one scheduler
 * only. The seed's own SMP runs were one process on a 2-scheduler VM for insert and lookup
 * (compare with threads 1 here) and two for the update (threads 2).
 *
 * Each process is a modelled process (heaps/proc.h) whose heap is min_heap_size words
 * (default 9999999, the seed's +h): {I, hello} is built on it before each insert, and a
 * lookup or update_counter result is built by HAlloc and passes the GC-after-BIF test
 * (bif_enter / bif_return_maybe_gc), so a smaller --min-heap brings fragments and collections
 * back. The process dictionary puts on the same kind of heap (its slots are GC roots, as
 * ProcDict is in erts); the seed's heap holds every put, so it never collects.
 *
 * The lock phase, measured two ways in the same run:
 * - lock_ns: the workload runs again on a table whose lock phase is clocked in place
 *   (tc_ets_time_locks: CLOCK_MONOTONIC around every lock and unlock call, the cost of a
 *   clock pair subtracted, intervals over 100 us left out as a descheduled thread and
 *   counted), summed over the threads, per operation. It includes waiting for a holder
 *   that is doing real work; the clocks themselves lengthen each critical section by about
 *   one clock read, and `none` shows the floor of the method (calls that take no lock).
 * - lock_loop_ns: the same drivers doing only what the table does around an operation
 *   (hash the key, take and release its locks in that operation's modes) minus a run
 *   doing only the hash: the locks with empty critical sections.
 * Every figure is the median of the repeats; ns_per_op is wall time over all operations of
 * the run (both threads' together), so ops_per_s is throughput.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scenarios/progress.h"
#include "stores/ets.h"
#include "terms/hash.h"
#include "heaps/gc.h"
#include "heaps/pdict.h"
#include "heaps/proc.h"
#include "terms/atom.h"

#define SLICE 500
#define MAX_REPEATS 15

enum { X_META_LOCK, X_BUCKET_LOCKS, NEXTRAS };
static const tc_bench_cli_extra extras[NEXTRAS] = {
    [X_META_LOCK] = {"meta-lock", NULL, "also take R13B's meta-table lock in the write/read_concurrency "
                                        "modes (the seed's R13B01 table was write_concurrency with it)", {0}},
    [X_BUCKET_LOCKS] = {"bucket-locks", "L", NULL,
                        {"write_concurrency bucket locks, a power of two, 0 for the default", 0, 256, "64"}},
};

static const tc_bench_cli_spec spec = {
    .prog = "etsbench",
    .about = "Replays the 2009 seed: insert, lookup and the 2-writer update of N {I, hello}, and\n"
             "update_counter(T, I, {2, 1}), for each ETS lock mode (none, r13b, write_concurrency,\n"
             "read_concurrency) on 1 and 2 threads, then process-dictionary put/get/counter; prints\n"
             "ops/s in the seed's style, what the locks cost per operation, and the seed beside it.",
    .iterations = {"objects, N", 2, 100000000, "1000000, as the seed; --quick 20000"},
    .repeats = {"repeats per figure, median reported", 1, MAX_REPEATS, "3, --quick 5"},
    .quick = "N = 20000, 5 repeats (under 10 s)",
    .csv = "one row per lock mode, threads and operation: "
           "lock_mode,threads,op,ops_per_s,ns_per_op,lock_ns,lock_loop_ns,lock_long_ns",
    .min_heap = "9999999, the seed's +h",
    .extras = extras,
    .nextras = NEXTRAS,
};

typedef enum op { INSERT, LOOKUP, UPDATE, UPDATE_COUNTER, PUT, GET, NOPS } op;
static const char *const op_names[NOPS] = {"insert", "lookup", "update", "update_counter", "put", "get"};

/* What a driver does per key: the operation (with its lock phase clocked, for RUN_TIMED),
 * only the locks, or only the hash. */
typedef enum run_kind { RUN_OP, RUN_TIMED, RUN_LOCKS, RUN_HASH } run_kind;

typedef struct config {
    int64_t n;
    int repeats;
    uint64_t heap_words;
    bool meta_lock;
    unsigned bucket_locks;
} config;

static tc_term hello;
static uint64_t dropped_total; /* clocked intervals kept apart as descheduled */

/* One modelled process running one stream of keys. */
typedef struct task {
    op what;
    run_kind kind;
    tc_ets *t;
    tc_pdict *pd;
    tc_mseg *mem;
    tc_proc *p;
    int64_t next, last; /* keys next, next - 1, ..., last */
    uint64_t start, end;
    tc_ets_lock_time lock; /* this task's thread in the clocked lock phase */
    uint64_t sink;         /* where the hash-only loop's hashes go, so they are computed */
    pthread_barrier_t *go;
} task;

static void die(const char *what, tc_result r)
{
    fprintf(stderr, "etsbench: %s: %s\n", what, tc_result_name(r));
    exit(EXIT_FAILURE);
}

static void task_init(task *k, const config *c, op what, run_kind kind, tc_ets *t, int64_t from, int64_t to)
{
    memset(k, 0, sizeof *k);
    k->what = what;
    k->kind = kind;
    k->t = t;
    k->next = from;
    k->last = to;
    tc_policy pol = tc_policy_otp25();
    pol.min_heap_size = c->heap_words;
    k->mem = tc_mseg_new(&pol.mem);
    if (!k->mem)
        die("memory source", TC_ENOMEM);
    tc_result r = tc_proc_new(k->mem, &pol, &k->p);
    /* The process's own dictionary: its slots are GC roots of that process. */
    if (r == TC_OK && (what == PUT || what == GET || (what == UPDATE_COUNTER && !t)))
        r = tc_proc_dict(k->p, &k->pd);
    if (r != TC_OK)
        die("process", r);
}

static void task_destroy(task *k)
{
    tc_proc_free(k->p); /* frees its dictionary too */
    tc_mseg_free(k->mem);
}

static tc_ets_access access_of(op what) { return what == LOOKUP ? TC_ETS_READ : TC_ETS_WRITE; }

/* The lock phase alone (hash, then the operation's locks), or the hash alone. */
static void locks_only(task *k, tc_term key)
{
    uint64_t h;
    tc_result r = k->kind == RUN_HASH ? tc_term_hash(key, &h) : tc_ets_lock_phase(k->t, key, access_of(k->what));
    if (r != TC_OK)
        die("lock phase", r);
    if (k->kind == RUN_HASH)
        k->sink += h;
}

static tc_result one_op(task *k, tc_term key)
{
    tc_alloc *heap = tc_proc_alloc(k->p);
    tc_result r = TC_OK;
    tc_term res, e[2] = {key, hello};
    tc_heapfrag *hf;
    switch (k->what) {
    case INSERT:
    case UPDATE: { /* the loop builds {I, hello} on its heap, then ets:insert copies it */
        tc_term obj = tc_term_tuple(heap, e, 2);
        return obj == TC_NON_VALUE ? TC_ENOMEM : tc_ets_insert(k->t, obj, NULL);
    }
    case LOOKUP:
    case UPDATE_COUNTER:
        if (!k->t) { /* the dictionary as a counter: put(K, get(K) + 1) */
            if ((r = tc_pdict_get(k->pd, key, &res)) == TC_OK)
                r = tc_pdict_put(k->pd, heap, key, tc_make_small(tc_small_val(res) + 1), NULL);
            return r;
        }
        hf = tc_proc_bif_enter(k->p);
        r = k->what == LOOKUP ? tc_ets_lookup(k->t, key, heap, &res, NULL)
                              : tc_ets_update_counter(k->t, key, 2, 1, heap, &res);
        return r == TC_OK ? tc_proc_bif_return_maybe_gc(k->p, hf, &res) : r;
    case PUT:
        return tc_pdict_put(k->pd, heap, key, hello, NULL);
    case GET:
        return tc_pdict_get(k->pd, key, &res);
    default:
        return TC_EBADARG;
    }
}

/* Up to `steps` keys; false when the task is done. */
static bool task_step(task *k, int64_t steps)
{
    for (; steps > 0 && k->next >= k->last; steps--, k->next--) {
        tc_term key = tc_make_small(k->next);
        if (k->kind == RUN_LOCKS || k->kind == RUN_HASH)
            locks_only(k, key);
        else {
            tc_result r = one_op(k, key);
            if (r != TC_OK)
                die(op_names[k->what], r);
        }
    }
    return k->next >= k->last;
}

static tc_ets_lock_time lock_time_since(tc_ets_lock_time before)
{
    tc_ets_lock_time now = tc_ets_thread_lock_time();
    now.ns -= before.ns;
    now.intervals -= before.intervals;
    now.dropped -= before.dropped;
    now.dropped_ns -= before.dropped_ns;
    return now;
}

static void *task_thread(void *arg)
{
    task *k = arg;
    pthread_barrier_wait(k->go);
    tc_ets_lock_time before = tc_ets_thread_lock_time();
    k->start = tc_timing_now_ns();
    task_step(k, INT64_MAX);
    k->end = tc_timing_now_ns();
    k->lock = lock_time_since(before);
    return NULL;
}

/* Runs the tasks on `threads` schedulers; returns the wall time in ns. With one scheduler
 * and several tasks, they take turns SLICE keys at a time. */
static double run_tasks(task *k, int ntasks, int threads)
{
    if (threads == 1) {
        tc_ets_lock_time before = tc_ets_thread_lock_time();
        uint64_t t0 = tc_timing_now_ns();
        for (bool busy = true; busy;) {
            busy = false;
            for (int i = 0; i < ntasks; i++)
                busy |= task_step(&k[i], ntasks > 1 ? SLICE : INT64_MAX);
        }
        double ns = (double)(tc_timing_now_ns() - t0);
        k[0].lock = lock_time_since(before); /* all the tasks' */
        return ns;
    }
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, (unsigned)ntasks);
    pthread_t th[2];
    for (int i = 0; i < ntasks; i++) {
        k[i].go = &go;
        if (pthread_create(&th[i], NULL, task_thread, &k[i]) != 0) {
            perror("etsbench: pthread_create");
            exit(EXIT_FAILURE);
        }
    }
    uint64_t start = UINT64_MAX, end = 0;
    for (int i = 0; i < ntasks; i++) {
        pthread_join(th[i], NULL);
        start = k[i].start < start ? k[i].start : start;
        end = k[i].end > end ? k[i].end : end;
    }
    pthread_barrier_destroy(&go);
    return (double)(end - start);
}

/* What one run measured. */
typedef struct result {
    double ns;      /* wall time */
    int64_t ops;    /* operations, all tasks */
    double lock_ns; /* RUN_TIMED: time in the lock phase, all threads, clock cost removed */
    uint64_t dropped;   /* RUN_TIMED: intervals over 100 us, kept apart */
    double dropped_ns;  /* their time */
} result;

/* One run of `what` on table t (NULL: the process dictionary, which each process fills
 * itself first when the op reads it). */
static result run(const config *c, op what, run_kind kind, tc_ets *t, int threads)
{
    task k[2];
    int ntasks = threads;
    if (what == UPDATE) { /* the seed's two writers, each over all N keys */
        ntasks = 2;
        task_init(&k[0], c, what, kind, t, c->n, 1);
        task_init(&k[1], c, what, kind, t, c->n, 1);
    } else if (threads == 2) {
        task_init(&k[0], c, what, kind, t, c->n, c->n / 2 + 1);
        task_init(&k[1], c, what, kind, t, c->n / 2, 1);
    } else {
        task_init(&k[0], c, what, kind, t, c->n, 1);
    }
    if (!t && what != PUT) /* get and the counter read a filled dictionary */
        for (int i = 0; i < ntasks; i++) {
            task fill = k[i];
            fill.what = PUT;
            task_step(&fill, INT64_MAX);
        }
    if (kind == RUN_TIMED)
        tc_ets_time_locks(t, true);
    result res = {run_tasks(k, ntasks, threads), what == UPDATE ? 2 * c->n : c->n, 0, 0, 0};
    if (kind == RUN_TIMED)
        tc_ets_time_locks(t, false);
    for (int i = 0; i < ntasks; i++) {
        res.lock_ns += (double)k[i].lock.ns - (double)k[i].lock.intervals * tc_timing_overhead_ns();
        res.dropped += k[i].lock.dropped;
        res.dropped_ns += (double)k[i].lock.dropped_ns;
        task_destroy(&k[i]);
    }
    return res;
}

typedef struct row {
    const char *mode;
    int threads;
    op what;
    /* per operation: plain run, clocked run, its lock phase, the lock loop */
    double ns[MAX_REPEATS], clocked[MAX_REPEATS], lock[MAX_REPEATS], loop[MAX_REPEATS], longer[MAX_REPEATS];
    bool has_lock;
} row;

static double median(const double *v, int n)
{
    double s[MAX_REPEATS];
    memcpy(s, v, (size_t)n * sizeof *s);
    return tc_timing_summarize(s, (size_t)n).median;
}

static tc_ets *table(const config *c, tc_ets_lock_mode m)
{
    tc_ets_opts o = tc_ets_opts_default(m);
    o.meta_lock = m == TC_ETS_LOCK_R13B || (c->meta_lock && m != TC_ETS_LOCK_NONE);
    o.bucket_locks = c->bucket_locks;
    tc_ets *t;
    tc_result r = tc_ets_new(&o, &t);
    if (r != TC_OK)
        die("ets:new", r);
    return t;
}

/* The lock loop of `what`: (hash + locks) - hash, ns per operation. */
static double lock_loop(const config *c, op what, tc_ets *t, int threads)
{
    result with = run(c, what, RUN_LOCKS, t, threads), hash = run(c, what, RUN_HASH, t, threads);
    return (with.ns - hash.ns) / (double)with.ops;
}

/* Row r's figures for repeat `rep`: the plain run, the clocked run, the lock loop. */
static void measure(const config *c, op what, tc_ets *plain, tc_ets *clocked, int threads, row *r, int rep)
{
    result res = run(c, what, RUN_OP, plain, threads);
    r->ns[rep] = res.ns / (double)res.ops;
    res = run(c, what, RUN_TIMED, clocked, threads);
    r->clocked[rep] = res.ns / (double)res.ops;
    dropped_total += res.dropped;
    r->lock[rep] = res.lock_ns / (double)res.ops;
    r->longer[rep] = res.dropped_ns / (double)res.ops;
    r->loop[rep] = lock_loop(c, what, clocked, threads);
}

/* A table of {I, 0} for update_counter (an integer in element 2), filled untimed. */
static tc_ets *counter_table(const config *c, tc_ets_lock_mode m)
{
    tc_ets *t = table(c, m);
    tc_term obj[3] = {TC_MAKE_HEADER(2, TC_SUBTAG_ARITYVAL), 0, tc_make_small(0)};
    for (int64_t i = c->n; i >= 1; i--) {
        obj[1] = tc_make_small(i); /* built in C memory: the insert copies it anyway */
        tc_result r = tc_ets_insert(t, tc_make_boxed(obj), NULL);
        if (r != TC_OK)
            die("fill", r);
    }
    return t;
}

/* One repeat of every ETS figure of mode m on `threads` schedulers, into rows[0..4). The
 * clocked runs use a table of their own, so their insert also starts empty. */
static void ets_repeat(const config *c, tc_ets_lock_mode m, int threads, row *rows, int rep)
{
    static const op ops[] = {INSERT, LOOKUP, UPDATE};
    tc_ets *plain = table(c, m), *clocked = table(c, m);
    for (int i = 0; i < 3; i++)
        measure(c, ops[i], plain, clocked, threads, &rows[i], rep);
    tc_ets_free(plain);
    tc_ets_free(clocked);
    plain = counter_table(c, m);
    clocked = counter_table(c, m);
    measure(c, UPDATE_COUNTER, plain, clocked, threads, &rows[3], rep);
    tc_ets_free(plain);
    tc_ets_free(clocked);
}

/* lock% is the lock phase's share of the busy threads' time in the clocked run (its wall
 * time per operation times the threads: on 2 threads each operation had 2 x that). */
static void print_row(FILE *csv, const row *r, int repeats)
{
    double ns = median(r->ns, repeats), lock = 0, loop = 0, longer = 0, share = 0;
    if (r->has_lock) {
        lock = median(r->lock, repeats);
        loop = median(r->loop, repeats);
        longer = median(r->longer, repeats);
        share = 100 * lock / (median(r->clocked, repeats) * r->threads);
    }
    printf("%-18s %2d  %-15s %12.0f %9.1f %9.1f %6.0f%% %9.1f %9.1f\n", r->mode, r->threads,
           op_names[r->what], 1e9 / ns, ns, lock, share, loop, longer);
    if (csv)
        fprintf(csv, "%s,%d,%s,%.0f,%.2f,%.2f,%.2f,%.2f\n", r->mode, r->threads, op_names[r->what], 1e9 / ns, ns, lock,
                loop, longer);
}

/* ops/s the way the seed computes it: N over the wall time (the update does 2N). */
static double seed_style(const row *r, int repeats)
{
    return 1e9 / (median(r->ns, repeats) * (r->what == UPDATE ? 2 : 1));
}

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("etsbench", rc);
    rc = 0;
    bool quick = cli.quick;
    /* Explicit --iterations and --repeats win over --quick. */
    config c = {cli.iterations ? cli.iterations : quick ? 20000 : 1000000,
                (int)(cli.repeats ? cli.repeats : quick ? 5 : 3), cli.min_heap ? (uint64_t)cli.min_heap : 9999999,
                cli.extra[X_META_LOCK].given, (unsigned)cli.extra[X_BUCKET_LOCKS].number};
    if (c.bucket_locks & (c.bucket_locks - 1))
        return tc_bench_cli_bad(&cli, "--bucket-locks", "a power of two in 1..256, or 0",
                                cli.extra[X_BUCKET_LOCKS].value);
    const char *csv_path = cli.csv;
    FILE *csv = tc_bench_cli_open_csv(&cli, "--csv", csv_path, &rc);
    if (rc)
        return rc;
    if (tc_atom_intern("hello", 5, &hello) != TC_OK)
        die("atom", TC_ENOMEM);

    enum { ETS_ROWS = 7 * 4, PD_ROWS = 2 * 3 };
    static row rows[ETS_ROWS + PD_ROWS];
    int nrows = 0;
    for (unsigned m = 0; m < TC_ETS_LOCK_MODES; m++)
        for (int th = 1; th <= 2; th++) {
            if (m == TC_ETS_LOCK_NONE && th == 2)
                continue; /* -smp disable has one scheduler */
            row *rs = &rows[nrows];
            for (int i = 0; i < 4; i++)
                rs[i] = (row){.mode = tc_ets_lock_mode_name((tc_ets_lock_mode)m), .threads = th, .what = (op)i, .has_lock = true};
            for (int rep = 0; rep < c.repeats; rep++) {
                tc_progress_line("%s, %d thread%s, repeat %d/%d", rs[0].mode, th, th > 1 ? "s" : "", rep + 1,
                                  c.repeats);
                ets_repeat(&c, (tc_ets_lock_mode)m, th, rs, rep);
            }
            nrows += 4;
        }
    static const op pd_ops[] = {PUT, GET, UPDATE_COUNTER};
    for (int th = 1; th <= 2; th++)
        for (int i = 0; i < 3; i++) {
            row *r = &rows[nrows++];
            *r = (row){.mode = "pdict", .threads = th, .what = pd_ops[i]};
            for (int rep = 0; rep < c.repeats; rep++) {
                tc_progress_line("pdict, %d thread%s, %s, repeat %d/%d", th, th > 1 ? "s" : "", op_names[r->what],
                                  rep + 1, c.repeats);
                result res = run(&c, r->what, RUN_OP, NULL, th);
                r->ns[rep] = res.ns / (double)res.ops;
            }
        }
    tc_progress_end();

    if (csv) {
        tc_policy pol = tc_policy_otp25();
        pol.min_heap_size = c.heap_words;
        tc_bench_meta_standard(csv);
        tc_bench_meta_policy(csv, &pol);
        tc_bench_meta(csv, "experiment", "etsbench%s --iterations %lld --repeats %d --min-heap %llu%s --bucket-locks %u",
                      quick ? " --quick" : "", (long long)c.n, c.repeats, (unsigned long long)c.heap_words,
                      c.meta_lock ? " --meta-lock" : "", c.bucket_locks ? c.bucket_locks : 64);
        tc_bench_meta(csv, "objects", "{I, hello}, I = N..1; update_counter on {I, 0}");
        tc_bench_meta(csv, "threads", "schedulers; 2 threads split the keys in halves, except the 2-writer "
                                      "update (both writers, all keys, same order)");
        tc_bench_meta(csv, "ns_per_op", "median wall time of the run / all operations of the run");
        tc_bench_meta(csv, "lock_ns", "time inside the lock and unlock calls of a clocked run of the same "
                                      "workload (CLOCK_MONOTONIC pairs, their %.1f ns cost subtracted), all "
                                      "threads, per operation, intervals over 100 us kept apart in lock_long_ns "
                                      "(%llu of them); pdict takes no lock, 0 by construction",
                      tc_timing_overhead_ns(), (unsigned long long)dropped_total);
        tc_bench_meta(csv, "lock_loop_ns", "(hash + lock/unlock loop - hash loop) wall time per operation, same "
                                           "drivers and threads: the locks with empty critical sections");
        tc_bench_meta(csv, "lock_long_ns", "the clocked lock intervals over 100 us, per operation: a thread (or "
                                           "a lock holder) descheduled, on this shared machine");
        fputs("lock_mode,threads,op,ops_per_s,ns_per_op,lock_ns,lock_loop_ns,lock_long_ns\n", csv);
    }
    printf("etsbench: N = %lld, median of %d, process heaps of %llu words%s\n", (long long)c.n, c.repeats,
           (unsigned long long)c.heap_words, c.meta_lock ? ", meta lock in every locked mode" : "");
    printf("%-18s %2s  %-15s %12s %9s %9s %7s %9s %9s\n", "lock_mode", "th", "op", "ops/s", "ns/op",
           "lock_ns", "lock%", "loop_ns", "long_ns");
    for (int i = 0; i < nrows; i++)
        print_row(csv, &rows[i], c.repeats);

    /* The seed beside the model: its -smp disable runs, and its smp:2 runs (one process
     * for insert and lookup, two writers for the update). */
    printf("lock_ns: clocked lock phase per operation; loop_ns: the locks alone in a loop; long_ns: "
           "clocked intervals over 100 us (%llu), per operation\n",
           (unsigned long long)dropped_total);
    const row *none = &rows[0], *wc1 = &rows[4 * 3], *wc2 = &rows[4 * 4];
    printf("\nseed (R13B01, 2009) beside the model; ops/s as the seed computes them (N / wall time)\n");
    printf("%-30s %12s   %-34s %12s\n", "seed run", "seed", "model", "model");
    printf("%-30s %12.0f   %-34s %12.0f\n", "-smp disable insert", 855202.28, "none, 1 thread, insert",
           seed_style(&none[0], c.repeats));
    printf("%-30s %12.0f   %-34s %12.0f\n", "-smp disable lookup", 1584148.38, "none, 1 thread, lookup",
           seed_style(&none[1], c.repeats));
    printf("%-30s %12.0f   %-34s %12.0f\n", "-smp disable update (2 writers)", 1068965.37,
           "none, 1 thread, update", seed_style(&none[2], c.repeats));
    printf("%-30s %12.0f   %-34s %12.0f\n", "smp:2 insert", 673841.28, "write_concurrency, 1 thread, insert",
           seed_style(&wc1[0], c.repeats));
    printf("%-30s %12.0f   %-34s %12.0f\n", "smp:2 lookup", 1250201.60, "write_concurrency, 1 thread, lookup",
           seed_style(&wc1[1], c.repeats));
    printf("%-30s %12.0f   %-34s %12.0f\n", "smp:2 update (2 writers)", 896912.47,
           "write_concurrency, 2 threads, update", seed_style(&wc2[2], c.repeats));
    if (!tc_bench_cli_close_csv(&cli, csv, csv_path))
        return 2;
    return tc_bench_exit_status("etsbench", EXIT_SUCCESS);
}
