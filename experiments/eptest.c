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

#include "harness.h"
#include "workload.h"

#define EXIT_USAGE 2

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

static int bad(const char *what, const char *value)
{
    fprintf(stderr, "eptest: bad %s '%s' (see --help)\n", what, value);
    return EXIT_USAGE;
}

/* The command line: the workload's configuration, plus how to measure and where to write. */
typedef struct options {
    tc_ep_config cfg;
    long repeats;
    const char *csv;
} options;

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
    /* The era first: the ablation switches change single fields of its configuration. */
    const char *era = "otp25";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--era") == 0 && i + 1 < argc)
            era = argv[i + 1];
        else if (strncmp(argv[i], "--era=", 6) == 0)
            era = argv[i] + 6;
    }
    tc_ep_config *c = &o->cfg;
    if (tc_ep_config_for_era(era, c) != TC_OK)
        return bad("--era", era);
    bool quick = false, repeats_set = false;
    long v;
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (opt) {
        case 'l':
            if (!tc_bench_parse_long(optarg, 1, 1000000, &c->len))
                return bad("--len", optarg);
            break;
        case 'n':
            if (!tc_bench_parse_long(optarg, 1, 100000000, &c->iterations))
                return bad("--iterations", optarg);
            break;
        case 'q': quick = true; break;
        case 'h': usage(stdout); exit(0);
        case O_ERA: break;
        case O_CSV: o->csv = optarg; break;
        case O_SHAPE:
            if (tc_ep_shape_parse(optarg, &c->shape) != TC_OK)
                return bad("--shape", optarg);
            break;
        case O_TRIGGER:
            if (strcmp(optarg, "bif") == 0)
                c->policy.trigger = TC_GC_AFTER_BIF;
            else if (strcmp(optarg, "schedule") == 0)
                c->policy.trigger = TC_GC_AT_SCHEDULE;
            else
                return bad("--gc-trigger", optarg);
            break;
        case O_SEND:
            if (tc_send_path_parse(optarg, &c->send_path) != TC_OK)
                return bad("--send-path", optarg);
            break;
        case O_NOSHRINK: c->policy.shrink = false; break;
        case O_CACHE:
            if (!tc_bench_parse_long(optarg, 0, 1000, &v))
                return bad("--segment-cache", optarg);
            c->policy.mem.cache_slots = (unsigned)v;
            break;
        case O_SBCT:
            if (!tc_bench_parse_long(optarg, 4096, 1L << 40, &v))
                return bad("--sbct", optarg);
            c->policy.mem.sbct = (size_t)v;
            break;
        case O_MINHEAP:
            if (!tc_bench_parse_long(optarg, 1, 1L << 32, &v))
                return bad("--min-heap", optarg);
            c->policy.min_heap_size = (uint64_t)v;
            break;
        case O_KEEP: c->keep_result = true; break;
        case O_HOT: c->hot_key = true; break;
        case O_VERIFY: c->verify = true; break;
        case O_REPEATS:
            if (!tc_bench_parse_long(optarg, 1, 1000, &o->repeats))
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

static void write_csv(FILE *csv, const options *o, const tc_bench_summary *sum, const tc_ep_counts *counts)
{
    const tc_ep_config *c = &o->cfg;
    tc_bench_meta_standard(csv);
    tc_bench_meta(csv, "experiment", "eptest (seed 2005 on modelled processes)");
    tc_bench_meta(csv, "era", "%s (send path %s, gc trigger %s, shrink %s, segment cache %u, sbct %zu, min_heap %llu%s%s)",
                  c->policy.name, tc_send_path_name(c->send_path),
                  c->policy.trigger == TC_GC_AFTER_BIF ? "bif" : "schedule", c->policy.shrink ? "on" : "off",
                  c->policy.mem.cache_slots, c->policy.mem.sbct, (unsigned long long)c->policy.min_heap_size,
                  c->hot_key ? ", hot key" : "", c->keep_result ? ", result kept" : "");
    tc_bench_meta(csv, "repeats", "%ld (times are medians; counts are from the first run)", o->repeats);
    fprintf(csv, "test,shape,payload_len,iterations,era,median_us,iqr_us,faults,gcs,gc_words_copied,words_copied,"
                 "fragments,carriers_mapped,switches,io_polls\n");
    for (int t = 0; t < TC_EP_TESTS; t++) {
        const tc_ep_counts *k = &counts[t];
        fprintf(csv, "%s,%s,%ld,%ld,%s,%.1f,%.1f,%ld,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", tc_ep_test_names[t],
                tc_ep_shape_names[c->shape], c->len, c->iterations, c->policy.name, sum[t].median,
                sum[t].q3 - sum[t].q1, k->faults, (unsigned long long)k->gcs, (unsigned long long)k->gc_words,
                (unsigned long long)k->words_copied, (unsigned long long)k->fragments,
                (unsigned long long)k->carriers_mapped, (unsigned long long)k->switches,
                (unsigned long long)k->io_polls);
    }
}

int main(int argc, char **argv)
{
    options o = {0};
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc;
    FILE *csv = NULL;
    if (o.csv && !(csv = tc_bench_csv_open(o.csv))) {
        fprintf(stderr, "eptest: cannot write '%s': %s\n", o.csv, strerror(errno));
        return EXIT_USAGE;
    }
    double *samples = calloc((size_t)o.repeats * TC_EP_TESTS, sizeof *samples);
    tc_ep_counts *counts = calloc((size_t)o.repeats * TC_EP_TESTS, sizeof *counts);
    if (!samples || !counts) {
        fprintf(stderr, "eptest: out of memory\n");
        free(samples);
        free(counts);
        return 1;
    }
    for (long k = 0; k < o.repeats; k++) {
        tc_bench_progress("eptest %s %s L=%ld: run %ld of %ld", o.cfg.policy.name, tc_ep_shape_names[o.cfg.shape],
                          o.cfg.len, k + 1, o.repeats);
        tc_result r = tc_ep_run(&o.cfg, &counts[k * TC_EP_TESTS]);
        if (r != TC_OK) {
            tc_bench_progress_end();
            fprintf(stderr, "eptest: run failed: %s\n", tc_result_name(r));
            free(samples);
            free(counts);
            return 1;
        }
        for (int t = 0; t < TC_EP_TESTS; t++)
            samples[t * o.repeats + k] = counts[k * TC_EP_TESTS + t].us;
    }
    tc_bench_progress_end();
    tc_bench_summary sum[TC_EP_TESTS];
    for (int t = 0; t < TC_EP_TESTS; t++)
        sum[t] = tc_bench_summarize(&samples[t * o.repeats], (size_t)o.repeats);
    printf("[{proc,{%.0f,%.0f,%.0f}},{ets,{%.0f,%.0f,%.0f}},{empty,%.0f}]\n", sum[TC_EP_PROC1].median,
           sum[TC_EP_PROC2].median, sum[TC_EP_PROC3].median, sum[TC_EP_INSERT].median, sum[TC_EP_OVERWRITE].median,
           sum[TC_EP_LOOKUP].median, sum[TC_EP_EMPTY].median);
    int status = 0;
    if (csv) {
        write_csv(csv, &o, sum, counts);
        if (!tc_bench_csv_close(csv)) {
            fprintf(stderr, "eptest: writing '%s' failed\n", o.csv);
            status = EXIT_USAGE;
        }
    }
    free(samples);
    free(counts);
    return tc_bench_exit_status("eptest", status);
}
