/*
 * ablate — which mechanism makes ets:lookup/2 lose to a round trip? On the eptest workload
 * (scenarios/workload.h), each era runs once as shipped and once with exactly one
 * mechanism switched, and the lookup/proc ratio of every variant is measured in the same
 * run. A switch that moves the ratio towards (or past) 1 is part of the explanation; the
 * size of the move says how much.
 */
#include <stdio.h>

#include "harness.h"
#include "scenarios/progress.h"
#include "scenarios/workload.h"
#include "workload_cli.h"

typedef struct ablation {
    const char *name;
    const char *what;
    void (*apply)(tc_ep_config *c);
} ablation;

static void none(tc_ep_config *c) { (void)c; }
static void flip_trigger(tc_ep_config *c)
{
    c->policy.trigger = c->policy.trigger == TC_GC_AFTER_BIF ? TC_GC_AT_SCHEDULE : TC_GC_AFTER_BIF;
}
static void no_shrink(tc_ep_config *c) { c->policy.shrink = false; }
static void fresh_pages(tc_ep_config *c) { c->policy.mem.cache_slots = 0; }
static void big_sbct(tc_ep_config *c) { c->policy.mem.sbct = 2048u * 1024u; }
static void big_min_heap(tc_ep_config *c) { c->policy.min_heap_size = 200000; }
static void keep_result(tc_ep_config *c) { c->keep_result = true; }
static void hot_key(tc_ep_config *c) { c->hot_key = true; }
static void word_gc_test(tc_ep_config *c) { c->policy.bif_gc_test = TC_BIF_GC_WORDS; }
static void no_long_gc_delay(tc_ep_config *c) { c->policy.long_gc_words = 0; }
static void shallow_fast(tc_ep_config *c) { c->policy.copy_out = TC_COPY_OUT_SHALLOW_FAST; }
static void no_bin_vheap(tc_ep_config *c) { c->policy.bin_vheap = false; }
static void flip_send(tc_ep_config *c)
{
    c->policy.send_path = c->policy.send_path == TC_SEND_DIRECT ? TC_SEND_HEAP_OR_FRAG : TC_SEND_DIRECT;
}

static const ablation ablations[] = {
    {"baseline", "the era as shipped", none},
    {"gc_trigger", "GC-after-BIF <-> GC at the next schedule", flip_trigger},
    {"no_shrink", "the GC never shrinks a heap", no_shrink},
    {"fresh_pages", "no segment cache: every large heap freshly mapped", fresh_pages},
    {"sbct_2mib", "single-block carrier threshold 2 MiB (+MHsbct 2048)", big_sbct},
    {"min_heap_200k", "min_heap_size 200000 words", big_min_heap},
    {"keep_result", "the lookup result stays live until the next lookup", keep_result},
    {"hot_key", "one key looked up N times instead of keys 1..N", hot_key},
    {"send_path", "the other era's send path (direct <-> heap or fragment)", flip_send},
    {"word_gc_test", "GC-after-BIF tests words (C macro, arm64 JIT) not the x86-64 JIT's bytes", word_gc_test},
    {"no_long_gc_delay", "a GC of 128 Ki words or more runs at once, not delayed to a reschedule", no_long_gc_delay},
    {"proposal_shallow_fast", "PROPOSAL, not the VM: the lookup copies out with copy_shallow_fast", shallow_fast},
    {"no_bin_vheap", "refc binaries never trigger a GC (no binary virtual heap)", no_bin_vheap},
};
#define NABLATIONS (sizeof ablations / sizeof *ablations)

static const tc_bench_cli_spec spec = {
    .prog = "ablate",
    .about = "Runs the eptest workload per era as shipped and with one mechanism switched at a time,\n"
             "and prints the lookup/proc ratio of each variant (above 1: the lookup loses). The\n"
             "switches of the era's mechanisms change what every variant starts from.",
    .era = "both",
    .era_both = true,
    .len = {"payload length", TC_EP_MIN_LEN, TC_EP_MAX_LEN, "1000 for r10b, as the seed; 10000 for otp25"},
    .iterations = {"calls per pass", 1, 100000000, "1000, --quick 200"},
    .repeats = {"runs per variant, medians", 1, 64, "3, --quick 1"},
    .shape_dflt = "ints",
    .quick = "200 calls per pass, 1 run per variant",
    .csv = "one row per era and variant",
    TC_EP_CLI_SWITCHES,
};

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("ablate", rc);
    rc = 0;
    long iterations = cli.quick ? 200 : 1000, repeats = cli.repeats ? cli.repeats : cli.quick ? 1 : 3;
    FILE *csv = tc_bench_cli_open_csv(&cli, "--csv", cli.csv, &rc);
    if (rc)
        return rc;
    if (csv) {
        tc_bench_meta_standard(csv);
        tc_bench_meta(csv, "experiment", "ablate (eptest workload, one mechanism switched per variant)");
        tc_bench_meta(csv, "repeats", "%ld per variant; times are medians, counts from the first run", repeats);
        for (int e = 0; e < cli.neras; e++) {
            tc_ep_config cfg;
            if (tc_ep_cli_config(&cli, e, tc_ep_gap_len(cli.eras[e]), iterations, &cfg) == TC_OK)
                tc_ep_meta_config(csv, &cfg); /* what the baseline runs; each variant switches one thing */
        }
        fprintf(csv, "era,ablation,shape,payload_len,iterations,proc_us,lookup_us,ratio,proc_faults,lookup_faults,"
                     "lookup_gcs,lookup_gc_words,lookup_carriers_mapped,proc_gcs,proc_gc_words\n");
    }
    printf("%-6s %-21s %10s %10s %7s %8s %8s %9s  %s\n", "era", "ablation", "proc_us", "lookup_us", "ratio",
           "l.faults", "l.gcs", "l.gcw/op", "switched");
    for (int e = 0; e < cli.neras; e++) {
        const char *era = cli.eras[e];
        for (size_t a = 0; a < NABLATIONS; a++) {
            tc_ep_config cfg;
            tc_result r = tc_ep_cli_config(&cli, e, tc_ep_gap_len(era), iterations, &cfg);
            if (r != TC_OK) {
                fprintf(stderr, "ablate: %s: %s\n", era, tc_result_name(r));
                return 1;
            }
            ablations[a].apply(&cfg);
            tc_progress_line("ablate %s %s", era, ablations[a].name);
            tc_ep_gap g;
            r = tc_ep_measure_gap(&cfg, (int)repeats, &g);
            tc_progress_end();
            if (r != TC_OK) {
                fprintf(stderr, "ablate: %s %s failed: %s\n", era, ablations[a].name, tc_result_name(r));
                return 1;
            }
            printf("%-6s %-21s %10.0f %10.0f %7.2f %8ld %8llu %9.0f  %s\n", era, ablations[a].name, g.proc_us,
                   g.lookup_us, g.ratio, g.lookup.faults, (unsigned long long)g.lookup.gcs,
                   (double)g.lookup.gc_words / (double)cfg.iterations, ablations[a].what);
            (void)fflush(stdout); /* a row at a time; tc_bench_exit_status checks stdout */
            if (csv)
                fprintf(csv, "%s,%s,%s,%ld,%ld,%.1f,%.1f,%.3f,%ld,%ld,%llu,%llu,%llu,%llu,%llu\n", era,
                        ablations[a].name, tc_ep_shape_names[cfg.shape], cfg.len, cfg.iterations, g.proc_us,
                        g.lookup_us, g.ratio, g.proc.faults, g.lookup.faults, (unsigned long long)g.lookup.gcs,
                        (unsigned long long)g.lookup.gc_words, (unsigned long long)g.lookup.carriers_mapped,
                        (unsigned long long)g.proc.gcs, (unsigned long long)g.proc.gc_words);
        }
    }
    if (!tc_bench_cli_close_csv(&cli, csv, cli.csv))
        return 2;
    return tc_bench_exit_status("ablate", 0);
}
