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
 * real process switches, a send is heaps/send.h's path for the era, a lookup is a BIF that
 * builds its result with HAlloc and returns through the era's GC trigger. Each pass is
 * timed as a whole, like the seed's timer:tc, and counted: faults, GCs, words the GC
 * copied, words the copies wrote, fragments, carriers mapped.
 *
 * Output: the seed's own line, [{proc,{A,B,C}},{ets,{I,O,L}},{empty,E}] in microseconds for
 * all iterations (medians over --repeats runs), and with --csv one row per test.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "scenarios/account.h"
#include "scenarios/progress.h"
#include "scenarios/vmoverhead.h"
#include "scenarios/workload.h"
#include "workload_cli.h"

/* ---- the command line -------------------------------------------------------------------- */

enum { X_VERIFY, X_KEEP_RESULT, X_HOT_KEY, X_VM_OVERHEAD, X_PRICES, NEXTRAS };
static const tc_bench_cli_extra extras[NEXTRAS] = {
    [X_VERIFY] = {"verify", NULL, "run the heap verifier after every pass", {0}},
    [X_KEEP_RESULT] = {"keep-result", NULL, "the lookup result stays live until the next lookup", {0}},
    [X_HOT_KEY] = {"hot-key", NULL, "look up key 1 every time instead of keys 1..N", {0}},
    [X_VM_OVERHEAD] = {"vm-overhead", NULL,
                       "measure on the installed VM (erl on PATH) the fixed per-operation cost the model does "
                       "not execute and add it to every pass as the phase vm_overhead (vmoverhead.h); "
                       "the CSV's median_us then includes it and its metadata says so",
                       {0}},
    [X_PRICES] = {"prices", "FILE",
                  "the unit prices of the VM on this machine (experiments/beam/account.sh's prices CSV): "
                  "each proc pass's and the lookup pass's counts (the first run's) priced at the prices of "
                  "the shape's nearest length there, as the column priced_us (scenarios/account.h); the "
                  "run's clock is that priced time, so the segment cache's timed check runs (alloc/mseg.h "
                  "tc_mseg_clock); the seed's line stays the C code's time",
                  {0}},
};

static const tc_bench_cli_spec spec = {
    .prog = "eptest",
    .about = "The 2005 send-vs-ets:lookup benchmark on modelled processes: prints the seed's line\n"
             "[{proc,{A,B,C}},{ets,{I,O,L}},{empty,E}] (microseconds for all iterations, medians).",
    .era = "otp25",
    .len = {"payload length", TC_EP_MIN_LEN, TC_EP_MAX_LEN, "1000"},
    .iterations = {"calls per test", 1, 100000000, "1000"},
    .repeats = {"whole runs to take medians over", 1, 1000, "5, --quick 3"},
    .shape_dflt = "ints, lists:seq(1, L)",
    .quick = "3 repeats",
    .csv = "one row per test",
    TC_EP_CLI_SWITCHES,
    .extras = extras,
    .nextras = NEXTRAS,
};

/* The command line: the workload's configuration, plus how to measure and where to write. */
typedef struct options {
    tc_ep_config cfg;
    long repeats;
    const char *csv;
    tc_vmoh oh; /* present with --vm-overhead */
    const char *prices_file; /* --prices, else NULL */
    tc_account_prices prices[TC_ACCOUNT_LOOPS];
    long prices_len; /* the length whose prices were read */
    uint64_t words;  /* with --prices, Data's flat size (built once: the clock asks at each operation) */
} options;

#define OH_HOW "not measured: add --vm-overhead (needs erl) to charge it"

/* A pass's counts after `ops` operations at the VM's prices, in microseconds; -1 for a pass
 * the account does not price (the inserts, the overwrites, the empty loop) or without
 * --prices. */
static double priced_us(const options *o, int test, long ops, const tc_ep_counts *k)
{
    if (!o->prices_file || (test != TC_EP_PROC1 && test != TC_EP_PROC2 && test != TC_EP_PROC3 && test != TC_EP_LOOKUP))
        return -1;
    tc_account_counts c = tc_account_of_model(k, ops, o->words);
    return tc_account_price(&c, &o->prices[tc_account_loop_of_test(test)]).total_us;
}

/* The run's clock (tc_ep_config.clock): the priced time; the passes the account does not
 * price take none. */
static double priced_clock(void *ctx, int test, long ops, const tc_ep_counts *so_far)
{
    double us = priced_us(ctx, test, ops, so_far);
    return us > 0 ? us * 1000.0 : 0.0;
}

static int parse_options(int argc, char **argv, tc_bench_cli *cli, options *o)
{
    int rc = tc_bench_cli_parse(cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return rc;
    tc_result r = tc_ep_cli_config(cli, 0, 1000, 1000, &o->cfg);
    if (r != TC_OK) {
        fprintf(stderr, "eptest: %s\n", tc_result_name(r));
        return 1;
    }
    o->cfg.verify = cli->extra[X_VERIFY].given;
    o->cfg.keep_result = cli->extra[X_KEEP_RESULT].given;
    o->cfg.hot_key = cli->extra[X_HOT_KEY].given;
    o->repeats = cli->repeats ? cli->repeats : cli->quick ? 3 : 5;
    o->csv = cli->csv;
    if (cli->extra[X_PRICES].given) {
        o->prices_file = cli->extra[X_PRICES].value;
        for (int k = 0; k < TC_ACCOUNT_LOOPS; k++) {
            r = tc_account_prices_read(o->prices_file, tc_ep_shape_names[o->cfg.shape], o->cfg.len,
                                       (tc_account_loop)k, &o->prices[k], &o->prices_len);
            if (r != TC_OK) {
                fprintf(stderr, "eptest: --prices %s: %s\n", o->prices_file,
                        r == TC_EBADARG ? "no prices for this shape (experiments/beam/account.sh --shapes)"
                                        : "not a prices CSV (experiments/beam/account.sh --prices)");
                return 2;
            }
        }
        if ((r = tc_ep_payload_words(o->cfg.shape, o->cfg.len, &o->words)) != TC_OK) {
            fprintf(stderr, "eptest: %s\n", tc_result_name(r));
            return 1;
        }
        o->cfg.clock = priced_clock; /* the cache's timed check runs on the priced time */
        o->cfg.clock_ctx = o;
    }
    return TC_BENCH_CLI_RUN;
}

static void write_csv(FILE *csv, const options *o, const tc_timing_summary *sum, const tc_ep_counts *counts)
{
    const tc_ep_config *c = &o->cfg;
    tc_bench_meta_standard(csv);
    tc_bench_meta(csv, "experiment", "eptest (seed 2005 on modelled processes)");
    tc_ep_meta_config(csv, c);
    tc_bench_meta(csv, "repeats", "%ld (times are medians; counts are from the first run)", o->repeats);
    tc_vmoh_meta(csv, &o->oh, OH_HOW);
    if (o->oh.present)
        tc_bench_meta(csv, "vm_overhead_included", "median_us of every pass includes iterations x its operation's "
                                                   "phase (proc: round trip, ets_insert and ets_overwrite: insert, "
                                                   "ets_lookup: lookup, empty: none)");
    if (o->prices_file)
        tc_bench_meta(csv, "prices", "%s at payload_len %ld (ns of the VM's CPU time: its metadata): priced_us is "
                                     "the pass's counts (the first run's) at those prices; median_us the C code's",
                      o->prices_file, o->prices_len);
    else
        tc_bench_meta(csv, "prices", "none (--prices FILE): priced_us n/a");
    fprintf(csv, "test,shape,payload_len,iterations,era,median_us,iqr_us,faults,gcs,gc_words_copied,words_copied,"
                 "fragments,carriers_mapped,switches,io_polls,tester_gcs,priced_us\n");
    for (int t = 0; t < TC_EP_TESTS; t++) {
        const tc_ep_counts *k = &counts[t];
        double priced = priced_us(o, t, o->cfg.iterations, k);
        char pc[32] = "n/a";
        if (priced >= 0)
            (void)snprintf(pc, sizeof pc, "%.1f", priced);
        fprintf(csv, "%s,%s,%ld,%ld,%s,%.1f,%.1f,%ld,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%s\n", tc_ep_test_names[t],
                tc_ep_shape_names[c->shape], c->len, c->iterations, c->policy.name,
                sum[t].median + tc_vmoh_pass_us(&o->oh, t, c->iterations),
                sum[t].q3 - sum[t].q1, k->faults, (unsigned long long)k->gcs, (unsigned long long)k->gc_words,
                (unsigned long long)k->words_copied, (unsigned long long)k->fragments,
                (unsigned long long)k->carriers_mapped, (unsigned long long)k->switches,
                (unsigned long long)k->io_polls, (unsigned long long)k->tester_gcs, pc);
    }
}

int main(int argc, char **argv)
{
    options o = {0};
    tc_bench_cli cli;
    int rc = parse_options(argc, argv, &cli, &o);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("eptest", rc);
    rc = 0;
    if (cli.extra[X_VM_OVERHEAD].given && !tc_vmoh_measure("eptest", NULL, &o.cfg.policy, &o.oh))
        return 2;
    uint64_t need, have;
    bool fits;
    tc_result er = tc_ep_estimate_memory(&o.cfg, &need, &have, &fits);
    if (er != TC_OK) {
        fprintf(stderr, "eptest: estimating the run's memory failed: %s\n", tc_result_name(er));
        return 1;
    }
    if (!fits) {
        fprintf(stderr,
                "eptest: this run would hold at least %.2f GiB (%llu bytes: %ld ETS objects of the payload) and the "
                "machine has %.2f GiB (%llu bytes); lower --iterations or --len\n",
                (double)need / (1 << 30), (unsigned long long)need, o.cfg.iterations, (double)have / (1 << 30),
                (unsigned long long)have);
        return 2;
    }
    FILE *csv = tc_bench_cli_open_csv(&cli, "--csv", o.csv, &rc);
    if (rc)
        return rc;
    double *samples = calloc((size_t)o.repeats * TC_EP_TESTS, sizeof *samples);
    tc_ep_counts *counts = calloc((size_t)o.repeats * TC_EP_TESTS, sizeof *counts);
    if (!samples || !counts) {
        fprintf(stderr, "eptest: out of memory\n");
        free(samples);
        free(counts);
        return 1;
    }
    for (long k = 0; k < o.repeats; k++) {
        tc_progress_line("eptest %s %s L=%ld: run %ld of %ld", o.cfg.policy.name, tc_ep_shape_names[o.cfg.shape],
                          o.cfg.len, k + 1, o.repeats);
        tc_result r = tc_ep_run(&o.cfg, &counts[k * TC_EP_TESTS]);
        if (r != TC_OK) {
            tc_progress_end();
            fprintf(stderr, "eptest: run failed: %s\n", tc_result_name(r));
            free(samples);
            free(counts);
            return 1;
        }
        for (int t = 0; t < TC_EP_TESTS; t++)
            samples[t * o.repeats + k] = counts[k * TC_EP_TESTS + t].us;
    }
    tc_progress_end();
    tc_timing_summary sum[TC_EP_TESTS];
    for (int t = 0; t < TC_EP_TESTS; t++)
        sum[t] = tc_timing_summarize(&samples[t * o.repeats], (size_t)o.repeats);
    if (o.cfg.policy.copy_out == TC_COPY_OUT_SHALLOW_FAST)
        fputs("eptest: the lookup copies out with copy_shallow_fast, a PROPOSAL, not the VM\n", stderr);
    printf("[{proc,{%.0f,%.0f,%.0f}},{ets,{%.0f,%.0f,%.0f}},{empty,%.0f}]\n", sum[TC_EP_PROC1].median,
           sum[TC_EP_PROC2].median, sum[TC_EP_PROC3].median, sum[TC_EP_INSERT].median, sum[TC_EP_OVERWRITE].median,
           sum[TC_EP_LOOKUP].median, sum[TC_EP_EMPTY].median);
    if (o.oh.present) { /* else stdout is the seed's line alone; the CSV says the phase is absent */
        tc_vmoh_print(stdout, &o.oh, OH_HOW);
        double with[TC_EP_TESTS];
        for (int t = 0; t < TC_EP_TESTS; t++)
            with[t] = sum[t].median + tc_vmoh_pass_us(&o.oh, t, o.cfg.iterations);
        printf("with vm_overhead: [{proc,{%.0f,%.0f,%.0f}},{ets,{%.0f,%.0f,%.0f}},{empty,%.0f}]\n", with[TC_EP_PROC1],
               with[TC_EP_PROC2], with[TC_EP_PROC3], with[TC_EP_INSERT], with[TC_EP_OVERWRITE], with[TC_EP_LOOKUP],
               with[TC_EP_EMPTY]);
    }
    if (o.prices_file) {
        double p[TC_EP_TESTS];
        for (int t = 0; t < TC_EP_TESTS; t++)
            p[t] = priced_us(&o, t, o.cfg.iterations, &counts[t]);
        double rt[3] = {p[TC_EP_PROC1], p[TC_EP_PROC2], p[TC_EP_PROC3]};
        tc_timing_summary m = tc_timing_summarize(rt, 3);
        printf("priced at the VM's prices (%s, payload_len %ld): proc {%.0f,%.0f,%.0f}, lookup %.0f us; "
               "lookup / round trip %.3f\n",
               o.prices_file, o.prices_len, p[TC_EP_PROC1], p[TC_EP_PROC2], p[TC_EP_PROC3], p[TC_EP_LOOKUP],
               m.median > 0 ? p[TC_EP_LOOKUP] / m.median : 0);
    }
    int status = 0;
    if (csv) {
        write_csv(csv, &o, sum, counts);
        if (!tc_bench_cli_close_csv(&cli, csv, o.csv))
            status = 2;
    }
    free(samples);
    free(counts);
    return tc_bench_exit_status("eptest", status);
}
