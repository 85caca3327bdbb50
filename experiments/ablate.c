/*
 * ablate — which mechanism makes ets:lookup/2 lose to a round trip? On the eptest workload
 * (experiments/workload.h), each era runs once as shipped and once with exactly one
 * mechanism switched, and the lookup/proc ratio of every variant is measured in the same
 * run. A switch that moves the ratio towards (or past) 1 is part of the explanation; the
 * size of the move says how much.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "workload.h"

#define EXIT_USAGE 2

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
static void flip_send(tc_ep_config *c)
{
    c->send_path = c->send_path == TC_SEND_DIRECT ? TC_SEND_HEAP_OR_FRAG : TC_SEND_DIRECT;
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
};
#define NABLATIONS (sizeof ablations / sizeof *ablations)

static void usage(FILE *f)
{
    fputs("usage: ablate [--era r10b|otp25|both] [--len L] [--iterations N] [--repeats R]\n"
          "              [--shape S] [--quick] [--csv FILE|-] [--help]\n"
          "\n"
          "Runs the eptest workload per era as shipped and with one mechanism switched at a time,\n"
          "and prints the lookup/proc ratio of each variant (above 1: the lookup loses).\n"
          "  --era       which era (default both)\n"
          "  --len L     payload length (default: 1000 for r10b, as the seed; 10000 for otp25)\n"
          "  --iterations N   calls per pass (default 1000; --quick 200)\n"
          "  --repeats R      runs per variant, medians (default 3; --quick 1)\n",
          f);
}

int main(int argc, char **argv)
{
    tc_ep_cli cli;
    tc_ep_cli_init(&cli, "ablate");
    int rc = tc_ep_cli_parse(&cli, argc, argv);
    if (rc)
        return rc;
    if (cli.help) {
        usage(stdout);
        return 0;
    }
    long iterations = cli.quick ? 200 : 1000, repeats = cli.repeats ? cli.repeats : cli.quick ? 1 : 3;
    FILE *csv = tc_ep_cli_open_csv(&cli, cli.csv, &rc);
    if (rc)
        return rc;
    if (csv) {
        tc_bench_meta_standard(csv);
        tc_bench_meta(csv, "experiment", "ablate (eptest workload, one mechanism switched per variant)");
        tc_bench_meta(csv, "repeats", "%ld per variant; times are medians, counts from the first run", repeats);
        fprintf(csv, "era,ablation,shape,payload_len,iterations,proc_us,lookup_us,ratio,proc_faults,lookup_faults,"
                     "lookup_gcs,lookup_gc_words,lookup_carriers_mapped,proc_gcs,proc_gc_words\n");
    }
    printf("%-6s %-16s %10s %10s %7s %8s %8s %9s  %s\n", "era", "ablation", "proc_us", "lookup_us", "ratio",
           "l.faults", "l.gcs", "l.gcw/op", "switched");
    for (int e = 0; e < cli.neras; e++) {
        const char *era = cli.eras[e];
        for (size_t a = 0; a < NABLATIONS; a++) {
            tc_ep_config cfg;
            if (tc_ep_cli_config(&cli, e, tc_ep_gap_len(era), iterations, &cfg) != TC_OK)
                return tc_ep_cli_bad(&cli, "--era", era);
            ablations[a].apply(&cfg);
            tc_bench_progress("ablate %s %s", era, ablations[a].name);
            tc_ep_gap g;
            tc_result r = tc_ep_measure_gap(&cfg, (int)repeats, &g);
            tc_bench_progress_end();
            if (r != TC_OK) {
                fprintf(stderr, "ablate: %s %s failed: %s\n", era, ablations[a].name, tc_result_name(r));
                return 1;
            }
            printf("%-6s %-16s %10.0f %10.0f %7.2f %8ld %8llu %9.0f  %s\n", era, ablations[a].name, g.proc_us,
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
    if (csv && !tc_bench_csv_close(csv)) {
        fprintf(stderr, "ablate: writing '%s' failed\n", cli.csv);
        return EXIT_USAGE;
    }
    return tc_bench_exit_status("ablate", 0);
}
