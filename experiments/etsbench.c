/*
 * etsbench — the 2009 "how fast is ETS" replay (seed 2009-how-fast-is-ets.txt): insert and
 * lookup of N {I, hello} (I from N down to 1, as the seed's dotimes), the seed's 2-writer
 * update, and update_counter(T, I, {2, 1}), for each lock mode on 1 and 2 scheduler
 * threads; the same on one thread with a [set, compressed] table (lock mode `compressed`:
 * r13b's locks, as OTP 25's plain set, whose rows are `r13b`); then the process dictionary
 * (put, get, get+put as a counter, and the update's two writers, each putting every key into
 * its own dictionary) as the baseline.
 *
 * The loops themselves (what the threads mean, the modelled processes and their heaps) are
 * scenarios/etsloops.h's; --era gives their processes that era's heap rules (OTP 25's by
 * default; R13B01's, --era r13b, beside the seed's own VM). `none` (-smp disable) has one scheduler only. The seed's own SMP
 * runs were one process on a 2-scheduler VM for insert and lookup (compare with threads 1
 * here) and two for the update (threads 2).
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
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scenarios/etsloops.h"
#include "scenarios/progress.h"
#include "scenarios/timing.h"

#define MAX_REPEATS 15

enum { X_META_LOCK, X_BUCKET_LOCKS, X_MIN_HEAP, X_PDICT, X_MODES, NEXTRAS };
static const tc_bench_cli_extra extras[NEXTRAS] = {
    [X_META_LOCK] = {"meta-lock", NULL, "also take R13B's meta-table lock in the write/read_concurrency "
                                        "modes (the seed's R13B01 table was write_concurrency with it)", {0}},
    [X_BUCKET_LOCKS] = {"bucket-locks", "L", NULL,
                        {"write_concurrency bucket locks, a power of two, 0 for the default", 0, 256, "64"}},
    [X_MIN_HEAP] = {"min-heap", "WORDS", NULL,
                    {"min_heap_size of every process in words", 1, 1L << 32, "9999999, the seed's +h"}},
    [X_PDICT] = {"pdict", NULL, "the process dictionary's rows only (no table: seconds, where the "
                                "tables take minutes at the seed's N)", {0}},
    [X_MODES] = {"modes", "M,...", "the tables' rows of these modes only: none, r13b, write_concurrency, "
                                  "read_concurrency, compressed (default: all; the dictionary's rows follow)", {0}},
};

static const tc_bench_cli_spec spec = {
    .prog = "etsbench",
    .era = "otp25", /* the processes' heap rules (the seed's +h keeps the loops from collecting) */
    .about = "Replays the 2009 seed: insert, lookup and the 2-writer update of N {I, hello}, and\n"
             "update_counter(T, I, {2, 1}), for each ETS lock mode (none, r13b, write_concurrency,\n"
             "read_concurrency) on 1 and 2 threads, a compressed table on 1, then process-dictionary\n"
             "put/get/counter and the 2-writer update; prints ops/s in the seed's style, what the\n"
             "locks cost per operation, and the seed beside it.",
    .iterations = {"objects, N", 2, 100000000, "1000000, as the seed; --quick 20000"},
    .repeats = {"repeats per figure, median reported", 1, MAX_REPEATS, "3, --quick 5"},
    .quick = "N = 20000, 5 repeats (under 10 s)",
    .csv = "one row per lock mode, threads and operation: "
           "lock_mode,threads,op,ops_per_s,ns_per_op,lock_ns,lock_loop_ns,lock_long_ns,faults",
    .extras = extras,
    .nextras = NEXTRAS,
};

typedef struct config {
    tc_etsloop_config loop;
    int repeats;
} config;

static uint64_t dropped_total; /* clocked intervals kept apart as descheduled */

static void die(const char *what, tc_result r)
{
    fprintf(stderr, "etsbench: %s: %s\n", what, tc_result_name(r));
    exit(EXIT_FAILURE);
}

/* One run of the loops (scenarios/etsloops.h); a failure ends the program. */
static tc_etsloop_result run(const config *c, tc_etsloop_op what, tc_etsloop_kind kind, tc_ets *t, int threads)
{
    tc_etsloop_result res;
    const char *failed;
    tc_result r = tc_etsloop_run(&c->loop, what, kind, t, threads, &res, &failed);
    if (r != TC_OK)
        die(failed, r);
    return res;
}

typedef struct row {
    const char *mode;
    int threads;
    tc_etsloop_op what;
    /* per operation: plain run, clocked run, its lock phase, the lock loop */
    double ns[MAX_REPEATS], clocked[MAX_REPEATS], lock[MAX_REPEATS], loop[MAX_REPEATS], longer[MAX_REPEATS];
    double faults[MAX_REPEATS]; /* the plain run's minor faults, all its operations */
    bool has_lock;
} row;

static double median(const double *v, int n)
{
    double s[MAX_REPEATS];
    memcpy(s, v, (size_t)n * sizeof *s);
    return tc_timing_summarize(s, (size_t)n).median;
}

static tc_ets *table(const config *c, tc_ets_lock_mode m, int threads)
{
    tc_ets *t;
    tc_result r = tc_etsloop_table(&c->loop, m, threads, &t);
    if (r != TC_OK)
        die("ets:new", r);
    return t;
}

/* The lock loop of `what`: (hash + locks) - hash, ns per operation. */
static double lock_loop(const config *c, tc_etsloop_op what, tc_ets *t, int threads)
{
    tc_etsloop_result with = run(c, what, TC_ETSLOOP_RUN_LOCKS, t, threads), hash = run(c, what, TC_ETSLOOP_RUN_HASH, t, threads);
    return (with.ns - hash.ns) / (double)with.ops;
}

/* Row r's figures for repeat `rep`: the plain run, the clocked run, the lock loop. */
static void measure(const config *c, tc_etsloop_op what, tc_ets *plain, tc_ets *clocked, int threads, row *r, int rep)
{
    tc_etsloop_result res = run(c, what, TC_ETSLOOP_RUN_OP, plain, threads);
    r->ns[rep] = res.ns / (double)res.ops;
    r->faults[rep] = (double)res.faults;
    res = run(c, what, TC_ETSLOOP_RUN_TIMED, clocked, threads);
    r->clocked[rep] = res.ns / (double)res.ops;
    dropped_total += res.dropped;
    r->lock[rep] = res.lock_ns / (double)res.ops;
    r->longer[rep] = res.dropped_ns / (double)res.ops;
    r->loop[rep] = lock_loop(c, what, clocked, threads);
}

/* A table of {I, 0} for update_counter (an integer in element 2), filled untimed. */
static tc_ets *counter_table(const config *c, tc_ets_lock_mode m, int threads)
{
    tc_ets *t;
    tc_result r = tc_etsloop_counter_table(&c->loop, m, threads, &t);
    if (r != TC_OK)
        die("fill", r);
    return t;
}

/* One repeat of every ETS figure of mode m on `threads` schedulers, into rows[0..4). The
 * clocked runs use a table of their own, so their insert also starts empty. */
static void ets_repeat(const config *c, tc_ets_lock_mode m, int threads, row *rows, int rep)
{
    static const tc_etsloop_op ops[] = {TC_ETSLOOP_INSERT, TC_ETSLOOP_LOOKUP, TC_ETSLOOP_UPDATE};
    tc_ets *plain = table(c, m, threads), *clocked = table(c, m, threads);
    for (int i = 0; i < 3; i++)
        measure(c, ops[i], plain, clocked, threads, &rows[i], rep);
    tc_ets_free(plain);
    tc_ets_free(clocked);
    plain = counter_table(c, m, threads);
    clocked = counter_table(c, m, threads);
    measure(c, TC_ETSLOOP_UPDATE_COUNTER, plain, clocked, threads, &rows[3], rep);
    tc_ets_free(plain);
    tc_ets_free(clocked);
}

/* lock% is the lock phase's share of the busy threads' time in the clocked run (its wall
 * time per operation times the threads: on 2 threads each operation had 2 x that). */
static void print_row(FILE *csv, const row *r, int repeats)
{
    double ns = median(r->ns, repeats), faults = median(r->faults, repeats), lock = 0, loop = 0, longer = 0, share = 0;
    if (r->has_lock) {
        lock = median(r->lock, repeats);
        loop = median(r->loop, repeats);
        longer = median(r->longer, repeats);
        share = 100 * lock / (median(r->clocked, repeats) * r->threads);
    }
    printf("%-18s %2d  %-15s %12.0f %9.1f %9.1f %6.0f%% %9.1f %9.1f %9.0f\n", r->mode, r->threads,
           tc_etsloop_op_names[r->what], 1e9 / ns, ns, lock, share, loop, longer, faults);
    if (csv)
        fprintf(csv, "%s,%d,%s,%.0f,%.2f,%.2f,%.2f,%.2f,%.0f\n", r->mode, r->threads, tc_etsloop_op_names[r->what], 1e9 / ns, ns,
                lock, loop, longer, faults);
}

/* ops/s the way the seed computes it: N over the wall time (the update does 2N). */
static double seed_style(const row *r, int repeats)
{
    return 1e9 / (median(r->ns, repeats) * (r->what == TC_ETSLOOP_UPDATE ? 2 : 1));
}

/* --modes' list into want[mode] (want[TC_ETS_LOCK_MODES]: the compressed table); NULL: all.
 * False on a name that is none of them, or an empty list. */
static bool modes(const char *list, bool *want)
{
    for (unsigned m = 0; m <= TC_ETS_LOCK_MODES; m++)
        want[m] = !list;
    for (const char *p = list; p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        unsigned m = 0;
        while (m < TC_ETS_LOCK_MODES && !(strlen(tc_ets_lock_mode_name((tc_ets_lock_mode)m)) == n &&
                                          !strncmp(p, tc_ets_lock_mode_name((tc_ets_lock_mode)m), n)))
            m++;
        if (m == TC_ETS_LOCK_MODES && !(n == strlen("compressed") && !strncmp(p, "compressed", n)))
            return false;
        want[m] = true;
        p = end ? end + 1 : NULL;
    }
    return true;
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
    config c = {{cli.iterations ? cli.iterations : quick ? 20000 : 1000000,
                 cli.extra[X_MIN_HEAP].given ? (uint64_t)cli.extra[X_MIN_HEAP].number : 9999999,
                 cli.extra[X_META_LOCK].given,
                 (unsigned)cli.extra[X_BUCKET_LOCKS].number, false, NULL},
                (int)(cli.repeats ? cli.repeats : quick ? 5 : 3)};
    if (c.loop.bucket_locks & (c.loop.bucket_locks - 1))
        return tc_bench_cli_bad(&cli, "--bucket-locks", "a power of two in 1..256, or 0",
                                cli.extra[X_BUCKET_LOCKS].value);
    tc_policy pol;
    if (tc_policy_preset(cli.eras[0], &pol) != TC_OK)
        return tc_bench_cli_bad(&cli, "--era", "a preset", cli.eras[0]);
    tc_bench_cli_policy(&cli, &pol);
    c.loop.policy = &pol;
    const char *csv_path = cli.csv;
    FILE *csv = tc_bench_cli_open_csv(&cli, "--csv", csv_path, &rc);
    if (rc)
        return rc;

    enum { ETS_ROWS = 8 * 4, PD_ROWS = 2 * 4 };
    static row rows[ETS_ROWS + PD_ROWS];
    int nrows = 0;
    bool tables = !cli.extra[X_PDICT].given;
    bool want[TC_ETS_LOCK_MODES + 1]; /* the lock modes, then the compressed table */
    if (!modes(cli.extra[X_MODES].given ? cli.extra[X_MODES].value : NULL, want))
        return tc_bench_cli_bad(&cli, "--modes", "lock modes (none, r13b, write_concurrency, read_concurrency, "
                                "compressed) separated by commas", cli.extra[X_MODES].value);
    for (unsigned m = 0; tables && m < TC_ETS_LOCK_MODES; m++)
        for (int th = 1; want[m] && th <= 2; th++) {
            if (m == TC_ETS_LOCK_NONE && th == 2)
                continue; /* -smp disable has one scheduler */
            row *rs = &rows[nrows];
            for (int i = 0; i < 4; i++)
                rs[i] = (row){.mode = tc_ets_lock_mode_name((tc_ets_lock_mode)m), .threads = th, .what = (tc_etsloop_op)i, .has_lock = true};
            for (int rep = 0; rep < c.repeats; rep++) {
                tc_progress_line("%s, %d thread%s, repeat %d/%d", rs[0].mode, th, th > 1 ? "s" : "", rep + 1,
                                  c.repeats);
                ets_repeat(&c, (tc_ets_lock_mode)m, th, rs, rep);
            }
            nrows += 4;
        }
    /* A [set, compressed] table, as OTP 25's plain set is locked (r13b's modes) */
    config cc = c;
    cc.loop.compressed = true;
    row *cr = &rows[nrows];
    for (int i = 0; i < 4; i++)
        cr[i] = (row){.mode = "compressed", .threads = 1, .what = (tc_etsloop_op)i, .has_lock = true};
    for (int rep = 0; tables && want[TC_ETS_LOCK_MODES] && rep < c.repeats; rep++) {
        tc_progress_line("compressed, 1 thread, repeat %d/%d", rep + 1, c.repeats);
        ets_repeat(&cc, TC_ETS_LOCK_R13B, 1, cr, rep);
    }
    if (tables && want[TC_ETS_LOCK_MODES])
        nrows += 4;
    static const tc_etsloop_op pd_ops[] = {TC_ETSLOOP_PUT, TC_ETSLOOP_GET, TC_ETSLOOP_UPDATE_COUNTER, TC_ETSLOOP_UPDATE};
    for (int th = 1; th <= 2; th++)
        for (int i = 0; i < 4; i++) {
            row *r = &rows[nrows++];
            *r = (row){.mode = "pdict", .threads = th, .what = pd_ops[i]};
            for (int rep = 0; rep < c.repeats; rep++) {
                tc_progress_line("pdict, %d thread%s, %s, repeat %d/%d", th, th > 1 ? "s" : "", tc_etsloop_op_names[r->what],
                                  rep + 1, c.repeats);
                tc_etsloop_result res = run(&c, r->what, TC_ETSLOOP_RUN_OP, NULL, th);
                r->ns[rep] = res.ns / (double)res.ops;
                r->faults[rep] = (double)res.faults;
            }
        }
    tc_progress_end();

    if (csv) {
        tc_policy meta = pol;
        meta.min_heap_size = c.loop.heap_words;
        tc_bench_meta_standard(csv);
        tc_bench_meta_policy(csv, &meta);
        tc_bench_meta(csv, "experiment", "etsbench --era %s%s --iterations %lld --repeats %d --min-heap %llu%s --bucket-locks %u%s%s%s",
                      pol.name, quick ? " --quick" : "", (long long)c.loop.n, c.repeats, (unsigned long long)c.loop.heap_words,
                      c.loop.meta_lock ? " --meta-lock" : "", c.loop.bucket_locks ? c.loop.bucket_locks : 64,
                      tables ? "" : " --pdict", cli.extra[X_MODES].given ? " --modes " : "",
                      cli.extra[X_MODES].given ? cli.extra[X_MODES].value : "");
        tc_bench_meta(csv, "objects", "{I, hello}, I = N..1; update_counter on {I, 0}");
        tc_bench_meta(csv, "compressed", "lock_mode compressed: a [set, compressed] table with r13b's locks "
                                         "(OTP 25's plain set takes those: its rows are r13b)");
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
        tc_bench_meta(csv, "faults", "minor page faults of the run's threads over the whole run (getrusage), median: "
                                     "the pages its heaps, dictionaries and table took fresh");
        fputs("lock_mode,threads,op,ops_per_s,ns_per_op,lock_ns,lock_loop_ns,lock_long_ns,faults\n", csv);
    }
    printf("etsbench: N = %lld, median of %d, process heaps of %llu words%s\n", (long long)c.loop.n, c.repeats,
           (unsigned long long)c.loop.heap_words, c.loop.meta_lock ? ", meta lock in every locked mode" : "");
    printf("%-18s %2s  %-15s %12s %9s %9s %7s %9s %9s %9s\n", "lock_mode", "th", "op", "ops/s", "ns/op",
           "lock_ns", "lock%", "loop_ns", "long_ns", "faults");
    for (int i = 0; i < nrows; i++)
        print_row(csv, &rows[i], c.repeats);

    /* The seed beside the model: its -smp disable runs, and its smp:2 runs (one process
     * for insert and lookup, two writers for the update). */
    printf("lock_ns: clocked lock phase per operation; loop_ns: the locks alone in a loop; long_ns: "
           "clocked intervals over 100 us (%llu), per operation\n",
           (unsigned long long)dropped_total);
    if (!tables || cli.extra[X_MODES].given) { /* the comparisons below are every table's */
        if (!tc_bench_cli_close_csv(&cli, csv, csv_path))
            return 2;
        return tc_bench_exit_status("etsbench", EXIT_SUCCESS);
    }
    const row *none = &rows[0], *r13b1 = &rows[4 * 1], *wc1 = &rows[4 * 3], *wc2 = &rows[4 * 4], *comp = &rows[4 * 7];
    printf("\ncompressed beside r13b (the same locks), 1 thread: lookup %.1f ns against %.1f (%.2fx), insert "
           "%.1f against %.1f (%.2fx)\n",
           median(comp[1].ns, c.repeats), median(r13b1[1].ns, c.repeats),
           median(comp[1].ns, c.repeats) / median(r13b1[1].ns, c.repeats), median(comp[0].ns, c.repeats),
           median(r13b1[0].ns, c.repeats), median(comp[0].ns, c.repeats) / median(r13b1[0].ns, c.repeats));
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
