/*
 * ablate — which mechanism makes ets:lookup/2 lose to a round trip? On the eptest workload
 * (scenarios/workload.h), each era runs once as shipped and once with exactly one
 * mechanism switched, and the lookup/proc ratio of every variant is measured in the same
 * run. A switch that moves the ratio towards (or past) 1 is part of the explanation; the
 * size of the move says how much.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "scenarios/account.h"
#include "scenarios/progress.h"
#include "scenarios/workload.h"
#include "workload_cli.h"

/* One variant: `what` switched over the era as shipped. `field` names a field of the policy
 * table (heaps/policy.h) or one of the workload's own switches (tc_ep_switches); `value` is
 * its value as --set takes it, or NULL to flip a two-valued field to its other value. */
typedef struct ablation {
    const char *name;
    const char *what;
    const char *field, *value;
} ablation;

static const ablation ablations[] = {
    {"baseline", "the era as shipped", NULL, NULL},
    {"gc_trigger", "GC-after-BIF <-> GC at the next schedule", "gc_trigger", NULL},
    {"no_shrink", "the GC never shrinks a heap", "shrink", "off"},
    {"fresh_pages", "no segment cache: every large heap freshly mapped", "mseg_cache", "0"},
    {"sbct_2mib", "single-block carrier threshold 2 MiB (+MHsbct 2048)", "sbct", "2097152"},
    {"min_heap_200k", "min_heap_size 200000 words", "min_heap_size", "200000"},
    {"keep_result", "the lookup result stays live until the next lookup", "keep_result", "on"},
    {"hot_key", "one key looked up N times instead of keys 1..N", "hot_key", "on"},
    {"send_path", "the other era's send path (direct <-> heap or fragment)", "send_path", NULL},
    {"word_gc_test", "GC-after-BIF tests words (C macro, arm64 JIT) not the x86-64 JIT's bytes", "bif_gc_test", "words"},
    {"no_long_gc_delay", "a GC of 128 Ki words or more runs at once, not delayed to a reschedule", "long_gc_words", "0"},
    {"proposal_shallow_fast", "PROPOSAL, not the VM: the lookup copies out with copy_shallow_fast", "copy_out",
     "shallow_fast"},
    {"no_bin_vheap", "refc binaries never trigger a GC (no binary virtual heap)", "bin_vheap", "off"},
};
#define NABLATIONS (sizeof ablations / sizeof *ablations)

/* The variant applied to c, which holds the era as the command line gives it. */
static tc_result apply(const ablation *a, tc_ep_config *c)
{
    if (!a->field)
        return TC_OK;
    const tc_policy_field *f = tc_policy_field_find(a->field);
    if (f)
        return a->value ? tc_policy_set_field(&c->policy, f, a->value, NULL, 0) : tc_policy_flip(&c->policy, f);
    const tc_ep_switch *sw = tc_ep_switch_find(a->field);
    if (!sw || !a->value || (strcmp(a->value, "on") != 0 && strcmp(a->value, "off") != 0))
        return TC_EBADARG;
    tc_ep_switch_set(c, sw, strcmp(a->value, "on") == 0);
    return TC_OK;
}

enum { X_LIST, X_PRICES, NEXTRAS };
static const tc_bench_cli_extra extras[NEXTRAS] = {
    [X_LIST] = {"list-ablations", NULL, "print the variants (with --csv FILE|-: as CSV): the field of the "
                                        "policy table, or the workload's switch, each sets, and to what", {0}},
    [X_PRICES] = {"prices", "FILE", "the unit prices of the VM on this machine (experiments/beam/account.sh's "
                                    "prices CSV): each variant's counts priced at the nearest length's, in "
                                    "phases, and ratio is then the priced one (lookup / round trip)", {0}},
};

static const tc_bench_cli_spec spec = {
    .prog = "ablate",
    .about = "Runs the eptest workload per era as shipped and with one mechanism switched at a time,\n"
             "and prints the lookup/proc ratio of each variant (above 1: the lookup loses). The\n"
             "switches of the era's mechanisms change what every variant starts from.",
    .era = "all",
    .era_all = true,
    .len = {"payload length", TC_EP_MIN_LEN, TC_EP_MAX_LEN, "the era's gap length: r10b 1000, as the seed; otp25 10000"},
    .iterations = {"calls per pass", 1, 100000000, "1000, --quick 200"},
    .repeats = {"runs per variant, medians", 1, 64, "3, --quick 1"},
    .shape_dflt = "ints",
    .quick = "200 calls per pass, 1 run per variant",
    .csv = "one row per era and variant",
    TC_EP_CLI_SWITCHES,
    .extras = extras,
    .nextras = NEXTRAS,
};

/* --list-ablations: the variants, each with the field it switches and to what. */
static int list_ablations(tc_bench_cli *cli)
{
    int rc = 0;
    FILE *csv = tc_bench_cli_open_csv(cli, "--csv", cli->csv, &rc);
    if (rc)
        return rc;
    FILE *out = csv ? csv : stdout;
    fprintf(out, csv ? "ablation,field,value,what\n" : "%-21s %-16s %-13s %s\n", "ablation", "field", "value", "what");
    for (size_t a = 0; a < NABLATIONS; a++) {
        const ablation *x = &ablations[a];
        const char *field = x->field ? x->field : "-", *value = !x->field ? "-" : x->value ? x->value : "flip";
        if (csv)
            fprintf(out, "%s,%s,%s,\"%s\"\n", x->name, field, value, x->what);
        else
            fprintf(out, "%-21s %-16s %-13s %s\n", x->name, field, value, x->what);
    }
    return csv && !tc_bench_cli_close_csv(cli, csv, cli->csv) ? 2 : 0;
}

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("ablate", rc);
    if (cli.extra[X_LIST].given)
        return tc_bench_exit_status("ablate", list_ablations(&cli));
    rc = 0;
    long iterations = cli.quick ? 200 : 1000, repeats = cli.repeats ? cli.repeats : cli.quick ? 1 : 3;
    /* the prices of the workload's shape at each era's own length (r10b's 1000, otp25's 10000):
     * a loop's prices are its context's, a long GC's above all */
    bool priced = cli.extra[X_PRICES].given;
    tc_account_prices prices[TC_POLICY_ERAS][TC_ACCOUNT_LOOPS];
    long prices_len[TC_POLICY_ERAS] = {0};
    char used[TC_POLICY_ERAS * 32] = "";
    for (int e = 0; priced && e < cli.neras; e++) {
        tc_ep_config ce;
        if (tc_ep_cli_config(&cli, e, tc_ep_gap_len(cli.eras[e]), iterations, &ce) != TC_OK)
            return 1;
        for (int k = 0; k < TC_ACCOUNT_LOOPS; k++) {
            tc_result pr = tc_account_prices_read(cli.extra[X_PRICES].value, tc_ep_shape_names[ce.shape], ce.len,
                                                  (tc_account_loop)k, &prices[e][k], &prices_len[e]);
            if (pr != TC_OK) {
                fprintf(stderr, "ablate: --prices %s: %s\n", cli.extra[X_PRICES].value,
                        pr == TC_EIO ? "not a prices CSV (experiments/beam/account.sh --prices)"
                                     : "no row for the shape");
                return 2;
            }
        }
        (void)snprintf(used + strlen(used), sizeof used - strlen(used), "%s%s %ld", e ? ", " : "", cli.eras[e],
                       prices_len[e]);
    }
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
        if (priced)
            tc_bench_meta(csv, "prices", "%s, each era at its nearest priced payload_len (%s; ns of the VM's CPU "
                                         "time: %s's metadata); ratio is priced_lookup_us / priced_proc_us, "
                                         "model_exec_ratio the C code's own",
                          cli.extra[X_PRICES].value, used, cli.extra[X_PRICES].value);
        else
            tc_bench_meta(csv, "prices", "none (--prices FILE): ratio is the C code's own time, the priced columns n/a");
        fprintf(csv, "era,ablation,shape,payload_len,iterations,proc_us,lookup_us,ratio,proc_faults,lookup_faults,"
                     "lookup_gcs,lookup_gc_words,lookup_carriers_mapped,proc_gcs,proc_gc_words,model_exec_ratio,"
                     "priced_proc_us,priced_lookup_us,lookup_copy_us,lookup_gc_us,lookup_fault_us,lookup_mmap_us,"
                     "lookup_fixed_us,proc_copy_us,proc_gc_us,proc_fault_us,proc_mmap_us,proc_fixed_us\n");
    }
    if (priced)
        printf("ratio: the model's counts at the VM's prices (%s, payload_len %s); proc_us, lookup_us: its C "
               "code's time\n", cli.extra[X_PRICES].value, used);
    printf("%-6s %-21s %10s %10s %7s %8s %8s %9s  %s\n", "era", "ablation", "proc_us", "lookup_us", "ratio",
           "l.faults", "l.gcs", "l.gcw/op", "switched");
    for (int e = 0; e < cli.neras; e++) {
        const char *era = cli.eras[e];
        for (size_t a = 0; a < NABLATIONS; a++) {
            tc_ep_config cfg;
            tc_result r = tc_ep_cli_config(&cli, e, tc_ep_gap_len(era), iterations, &cfg);
            if (r == TC_OK)
                r = apply(&ablations[a], &cfg);
            if (r != TC_OK) {
                fprintf(stderr, "ablate: %s %s: %s\n", era, ablations[a].name, tc_result_name(r));
                return 1;
            }
            tc_progress_line("ablate %s %s", era, ablations[a].name);
            tc_ep_gap g;
            r = tc_ep_measure_gap(&cfg, (int)repeats, &g);
            tc_progress_end();
            if (r != TC_OK) {
                fprintf(stderr, "ablate: %s %s failed: %s\n", era, ablations[a].name, tc_result_name(r));
                return 1;
            }
            /* the counts of the first run's proc2 and lookup at the VM's prices */
            tc_account_phases ph[TC_ACCOUNT_LOOPS];
            memset(ph, 0, sizeof ph);
            uint64_t words = 0;
            if (priced && tc_ep_payload_words(cfg.shape, cfg.len, &words) != TC_OK)
                return 1;
            const tc_ep_counts *cnt[TC_ACCOUNT_LOOPS] = {&g.proc, &g.lookup};
            for (int k = 0; priced && k < TC_ACCOUNT_LOOPS; k++) {
                tc_account_counts c = tc_account_of_model(cnt[k], cfg.iterations, words);
                ph[k] = tc_account_price(&c, &prices[e][k]);
            }
            double ratio = priced && ph[TC_ACCOUNT_RT].total_us > 0
                               ? ph[TC_ACCOUNT_LOOKUP].total_us / ph[TC_ACCOUNT_RT].total_us
                               : g.ratio;
            printf("%-6s %-21s %10.0f %10.0f %7.2f %8ld %8llu %9.0f  %s\n", era, ablations[a].name, g.proc_us,
                   g.lookup_us, ratio, g.lookup.faults, (unsigned long long)g.lookup.gcs,
                   (double)g.lookup.gc_words / (double)cfg.iterations, ablations[a].what);
            (void)fflush(stdout); /* a row at a time; tc_bench_exit_status checks stdout */
            if (csv) {
                fprintf(csv, "%s,%s,%s,%ld,%ld,%.1f,%.1f,%.3f,%ld,%ld,%llu,%llu,%llu,%llu,%llu,%.3f", era,
                        ablations[a].name, tc_ep_shape_names[cfg.shape], cfg.len, cfg.iterations, g.proc_us,
                        g.lookup_us, ratio, g.proc.faults, g.lookup.faults, (unsigned long long)g.lookup.gcs,
                        (unsigned long long)g.lookup.gc_words, (unsigned long long)g.lookup.carriers_mapped,
                        (unsigned long long)g.proc.gcs, (unsigned long long)g.proc.gc_words, g.ratio);
                if (!priced)
                    fputs(",n/a,n/a,n/a,n/a,n/a,n/a,n/a,n/a,n/a,n/a,n/a,n/a\n", csv);
                else
                    fprintf(csv, ",%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n",
                            ph[TC_ACCOUNT_RT].total_us, ph[TC_ACCOUNT_LOOKUP].total_us, ph[1].copy_us, ph[1].gc_us,
                            ph[1].fault_us, ph[1].mmap_us, ph[1].fixed_us, ph[0].copy_us, ph[0].gc_us,
                            ph[0].fault_us, ph[0].mmap_us, ph[0].fixed_us);
            }
        }
    }
    if (!tc_bench_cli_close_csv(&cli, csv, cli.csv))
        return 2;
    return tc_bench_exit_status("ablate", 0);
}
