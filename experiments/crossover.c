/*
 * crossover — from which payload length does ets:lookup/2 lose to a round trip? The
 * eptest workload (scenarios/workload.h) measured over a grid of payload lengths per
 * shape and era: the lookup/proc ratio at each length (medians from the same runs), and
 * the crossover, the smallest length on the grid at which the lookup takes longer. The
 * curve need not be monotonic, so every grid point is written out.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "scenarios/account.h"
#include "scenarios/progress.h"
#include "terms/arena.h"
#include "terms/size.h"
#include "scenarios/vmoverhead.h"
#include "scenarios/workload.h"
#include "workload_cli.h"

/* ints: every 250 from 1000 to 10000 with a few points around; other shapes: a coarse grid. */
static size_t fine_grid(long *out)
{
    static const long extra[] = {10, 100, 300, 500, 750, 15000, 20000, 30000};
    size_t n = 0;
    for (size_t i = 0; i < 5; i++)
        out[n++] = extra[i];
    for (long l = 1000; l <= 10000; l += 250)
        out[n++] = l;
    for (size_t i = 5; i < 8; i++)
        out[n++] = extra[i];
    return n;
}

static size_t coarse_grid(long *out, bool quick)
{
    static const long full[] = {10, 30, 100, 300, 1000, 2000, 3000, 5000, 10000, 20000, 30000};
    static const long small[] = {10, 100, 1000, 3000, 10000, 30000};
    const long *g = quick ? small : full;
    size_t n = quick ? sizeof small / sizeof *small : sizeof full / sizeof *full;
    memcpy(out, g, n * sizeof *g);
    return n;
}

/* Calls per pass: the rule experiments/beam/crossover.erl uses, so model and VM points run
 * the same number of calls: min(cap, max(20, 2,000,000 words / flat size of {I, Data})),
 * about the same copy volume at every point. */
static tc_result iterations_for(tc_ep_shape shape, long len, long cap, long *out)
{
    tc_arena *arena = tc_arena_new(0);
    tc_term data;
    uint64_t words = 0;
    tc_result r = arena ? tc_ep_build_payload(tc_arena_alloc(arena), shape, len, &data) : TC_ENOMEM;
    if (r == TC_OK)
        r = tc_term_flat_size(data, &words);
    tc_arena_free(arena);
    if (r != TC_OK)
        return r;
    long n = (long)(2000000 / (words + 3)); /* + the {I, Data} tuple */
    *out = n < 20 ? 20 : n > cap ? cap : n;
    return TC_OK;
}

/* A point's counts (the first run's proc2 and lookup) at the prices of its shape's nearest
 * length in the prices CSV; len 0 when the file has no prices for the shape. */
typedef struct priced_point {
    long len;
    double proc_us, lookup_us;
} priced_point;

static bool price_point(const char *file, const tc_ep_config *cfg, const tc_ep_gap *g, priced_point *out)
{
    uint64_t words;
    if (tc_ep_payload_words(cfg->shape, cfg->len, &words) != TC_OK)
        return false;
    const tc_ep_counts *cnt[TC_ACCOUNT_LOOPS] = {&g->proc, &g->lookup};
    double us[TC_ACCOUNT_LOOPS];
    for (int k = 0; k < TC_ACCOUNT_LOOPS; k++) {
        tc_account_prices p;
        tc_result r = tc_account_prices_read(file, tc_ep_shape_names[cfg->shape], cfg->len, (tc_account_loop)k, &p,
                                             &out->len);
        if (r == TC_EBADARG) {
            out->len = 0;
            return true;
        }
        if (r != TC_OK) {
            fprintf(stderr, "crossover: --prices %s: not a prices CSV (experiments/beam/account.sh --prices)\n", file);
            return false;
        }
        tc_account_counts c = tc_account_of_model(cnt[k], cfg->iterations, words);
        us[k] = tc_account_price(&c, &p).total_us;
    }
    out->proc_us = us[TC_ACCOUNT_RT];
    out->lookup_us = us[TC_ACCOUNT_LOOKUP];
    if (out->proc_us <= 0)
        out->len = 0;
    return true;
}

enum { X_SUMMARY, X_VM_OVERHEAD, X_PRICES, NEXTRAS };
static const tc_bench_cli_extra extras[NEXTRAS] = {
    [X_SUMMARY] = {"summary", "FILE|-", "one row per shape and era, after '#' metadata lines: "
                                        "shape,era,crossover_len,ratio_at_1000,ratio_at_10000", {0}},
    [X_VM_OVERHEAD] = {"vm-overhead", NULL,
                       "measure on the installed VM (erl on PATH) the fixed per-operation cost the model does "
                       "not execute, per era, and add it to every point as the phase vm_overhead "
                       "(vmoverhead.h): proc_us, lookup_us and ratio then include it",
                       {0}},
    [X_PRICES] = {"prices", "FILE", "the unit prices of the VM on this machine (experiments/beam/account.sh's "
                                    "prices CSV): each point's counts priced at the prices of its shape's nearest "
                                    "length there; ratio is then the priced one (a shape with no prices keeps "
                                    "the C code's time, priced columns n/a)", {0}},
};

static const tc_bench_cli_spec spec = {
    .prog = "crossover",
    .about = "The lookup/proc ratio of the eptest workload over a grid of payload lengths (ints:\n"
             "every 250 from 1000 to 10000 and a few around; other shapes a coarse grid), and per\n"
             "shape and era the crossover: the smallest length where the lookup takes longer.",
    .era = "all",
    .era_all = true,
    .iterations = {"calls per point", 1, 100000000,
                   "min(cap, max(20, 2,000,000 words / flat size of {I, Data})), "
                   "cap 1000, --quick 200, as experiments/beam/crossover.erl"},
    .repeats = {"runs per point, medians", 1, 64, "3, --quick 1"},
    .shape_dflt = "every shape",
    .quick = "a coarse grid for every shape, 1 run per point",
    .csv = "one row per point: shape,payload_len,iterations,era,proc_us,lookup_us,ratio",
    TC_EP_CLI_SWITCHES,
    .extras = extras,
    .nextras = NEXTRAS,
};

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("crossover", rc);
    rc = 0;
    bool quick = cli.quick;
    long repeats = cli.repeats ? cli.repeats : quick ? 1 : 3;
    int first_shape = cli.shape >= 0 ? cli.shape : 0, last_shape = cli.shape >= 0 ? cli.shape : TC_EP_SHAPES - 1;
    const char *summary_path = cli.extra[X_SUMMARY].value;
    /* The phase per era: the VM's fixed costs once, the model's under each era's rules. */
    tc_vmoh oh[TC_POLICY_ERAS] = {{0}}; /* one per era run (cli.neras) */
    if (cli.extra[X_VM_OVERHEAD].given) {
        tc_vm *vm = tc_vm_start("crossover", NULL);
        bool ok = vm != NULL;
        for (int e = 0; ok && e < cli.neras; e++) {
            tc_ep_config cfg;
            ok = tc_ep_cli_config(&cli, e, TC_EP_MIN_LEN, 1, &cfg) == TC_OK &&
                 tc_vmoh_measure_with("crossover", vm, &cfg.policy, &oh[e]);
        }
        tc_vm_stop(vm);
        if (!ok)
            return 2;
    }
    FILE *csv = tc_bench_cli_open_csv(&cli, "--csv", cli.csv, &rc);
    FILE *summary = rc ? NULL : tc_bench_cli_open_csv(&cli, "--summary", summary_path, &rc);
    if (rc)
        return rc;
    const char *what = "crossover (eptest workload over a grid of payload lengths)";
    if (csv) {
        tc_bench_meta_standard(csv);
        tc_bench_meta(csv, "experiment", "%s", what);
        tc_bench_meta(csv, "repeats", "%ld per point; proc_us is the median of all proc passes", repeats);
        for (int e = 0; e < cli.neras; e++) {
            tc_ep_config cfg;
            if (tc_ep_cli_config(&cli, e, TC_EP_MIN_LEN, 1, &cfg) == TC_OK)
                tc_ep_meta_config(csv, &cfg); /* what every point runs, at its own length and calls */
            tc_bench_meta(csv, "era_of_vm_overhead", "%s", cli.eras[e]);
            tc_vmoh_meta(csv, &oh[e], "not measured: add --vm-overhead (needs erl) to charge it");
        }
        tc_bench_meta(csv, "prices", "%s%s", cli.extra[X_PRICES].given ? cli.extra[X_PRICES].value : "none (--prices FILE)",
                      cli.extra[X_PRICES].given ? ": ratio is priced_lookup_us / priced_proc_us (the model's counts at "
                                                  "the VM's prices of prices_len), model_exec_ratio the C code's own"
                                                : ": ratio is the C code's own time");
        fprintf(csv, "shape,payload_len,iterations,era,proc_us,lookup_us,ratio,model_exec_ratio,prices_len,"
                     "priced_proc_us,priced_lookup_us\n");
    }
    if (summary) {
        tc_bench_meta_standard(summary);
        tc_bench_meta(summary, "experiment", "%s: the smallest grid length where the lookup loses", what);
        fprintf(summary, "shape,era,crossover_len,ratio_at_1000,ratio_at_10000\n");
    }
    printf("%-8s %-6s %-10s %8s %8s\n", "shape", "era", "crossover", "r@1000", "r@10000");
    for (int s = first_shape; s <= last_shape; s++) {
        long grid[64];
        size_t n = s == TC_EP_INTS && !quick ? fine_grid(grid) : coarse_grid(grid, quick);
        for (int e = 0; e < cli.neras; e++) {
            long crossing = 0;
            double r1000 = 0, r10000 = 0;
            for (size_t i = 0; i < n; i++) {
                tc_ep_config cfg;
                long iterations;
                if (iterations_for((tc_ep_shape)s, grid[i], quick ? 200 : 1000, &iterations) != TC_OK) {
                    fprintf(stderr, "crossover: out of memory building the payload\n");
                    return 1;
                }
                tc_result r = tc_ep_cli_config(&cli, e, grid[i], iterations, &cfg);
                if (r != TC_OK) {
                    fprintf(stderr, "crossover: %s: %s\n", cli.eras[e], tc_result_name(r));
                    return 1;
                }
                cfg.shape = (tc_ep_shape)s;
                tc_progress_line("crossover %s %s L=%ld (%zu of %zu)", tc_ep_shape_names[s], cli.eras[e], grid[i], i + 1, n);
                tc_ep_gap g;
                r = tc_ep_measure_gap(&cfg, (int)repeats, &g);
                if (r != TC_OK) {
                    tc_progress_end();
                    fprintf(stderr, "crossover: %s %s L=%ld failed: %s\n", tc_ep_shape_names[s], cli.eras[e], grid[i],
                            tc_result_name(r));
                    return 1;
                }
                g.proc_us += tc_vmoh_pass_us(&oh[e], TC_EP_PROC1, cfg.iterations);
                g.lookup_us += tc_vmoh_pass_us(&oh[e], TC_EP_LOOKUP, cfg.iterations);
                g.ratio = g.proc_us > 0 ? g.lookup_us / g.proc_us : 0;
                double exec_ratio = g.ratio;
                priced_point pp = {0, 0, 0};
                if (cli.extra[X_PRICES].given && !price_point(cli.extra[X_PRICES].value, &cfg, &g, &pp))
                    return 2;
                if (pp.len)
                    g.ratio = pp.lookup_us / pp.proc_us;
                if (!crossing && g.ratio > 1.0)
                    crossing = grid[i];
                if (grid[i] == 1000)
                    r1000 = g.ratio;
                if (grid[i] == 10000)
                    r10000 = g.ratio;
                if (csv) {
                    fprintf(csv, "%s,%ld,%ld,%s,%.1f,%.1f,%.3f,%.3f", tc_ep_shape_names[s], grid[i], cfg.iterations,
                            cli.eras[e], g.proc_us, g.lookup_us, g.ratio, exec_ratio);
                    if (pp.len)
                        fprintf(csv, ",%ld,%.1f,%.1f\n", pp.len, pp.proc_us, pp.lookup_us);
                    else
                        fputs(",n/a,n/a,n/a\n", csv);
                }
            }
            tc_progress_end();
            char cross[24];
            (void)snprintf(cross, sizeof cross, crossing ? "%ld" : "none", crossing); /* 20 bytes at most */
            printf("%-8s %-6s %-10s %8.2f %8.2f\n", tc_ep_shape_names[s], cli.eras[e], cross, r1000, r10000);
            (void)fflush(stdout); /* a row at a time; tc_bench_exit_status checks stdout */
            if (summary)
                fprintf(summary, "%s,%s,%s,%.3f,%.3f\n", tc_ep_shape_names[s], cli.eras[e], cross, r1000, r10000);
        }
    }
    bool csv_ok = tc_bench_cli_close_csv(&cli, csv, cli.csv);
    if (!tc_bench_cli_close_csv(&cli, summary, summary_path) || !csv_ok)
        return 2;
    return tc_bench_exit_status("crossover", 0);
}
