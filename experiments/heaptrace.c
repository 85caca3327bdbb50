/*
 * heaptrace — replays the brief's 7.2 prediction: a process that calls ets:lookup/2 on one
 * stored {Key, lists:seq(1, N)} in a tail-recursive loop that drops each result.
 *
 * The loop itself is lookuploop.h's (what it models is said there), shared with gctrace;
 * experiments/beam/gctrace.erl traces the same loop on the VM.
 *
 * Per lookup it measures the heap size after, the GCs and the words they copied, the new
 * heap each GC allocated, carriers mapped and segment-cache hits and misses, and minor
 * page faults (getrusage around the lookup). stdout gets the first lookups and a
 * steady-state summary; --csv writes one row per lookup after '#' metadata lines.
 */
#include <stdlib.h>

#include "alloc/faults.h"
#include "harness.h"
#include "scenarios/lookuploop.h"
#include "scenarios/progress.h"

static const tc_bench_cli_spec spec = {
    .prog = "heaptrace",
    .about = "Replays an ets:lookup/2 loop that drops each result (the brief's 7.2) on a modelled\n"
             "process and prints the heap-size trajectory, GCs, words copied, carriers mapped and\n"
             "minor page faults per lookup.",
    .era = "otp25",
    .len = {"the stored list's length", 1, 10000000, "10000, a 20,005-word result"},
    .iterations = {"lookups", 1, 10000000, "1000, --quick 100"},
    .quick = "100 lookups",
    .csv = "one row per lookup",
};

typedef struct row {
    uint64_t heap_after, old_heap, gcs, copied, heap_new, frags;
    uint64_t mapped, unmapped, hits, misses, faults;
} row;

typedef struct trace_acc {
    row *cur;
} trace_acc;

static void on_event(void *ctx, const tc_proc *p, const tc_heap_event *ev)
{
    (void)p;
    row *r = ((trace_acc *)ctx)->cur;
    if (ev->kind == TC_HEAP_EV_FRAG) {
        r->frags++;
        return;
    }
    r->gcs++;
    r->copied += ev->copied;
    if (ev->heap_new > r->heap_new)
        r->heap_new = ev->heap_new;
}

/* The fields the loop's heap trajectory turns on, by the policy table's names (the CSV's
 * "policy" line, which report/derive.sh reads sbct from): "ERA NAME=VALUE ...". */
static const char *policy_summary(const tc_policy *pol, char *buf, size_t cap)
{
    static const char *const names[] = {"gc_trigger", "shrink", "sbct", "mseg_cache"};
    size_t used = (size_t)snprintf(buf, cap, "%s", pol->name);
    for (size_t k = 0; k < sizeof names / sizeof *names && used < cap; k++) {
        char v[32];
        const tc_policy_field *f = tc_policy_field_find(names[k]);
        used += (size_t)snprintf(buf + used, cap - used, " %s=%s", names[k], tc_policy_value_text(pol, f, v, sizeof v));
    }
    return buf;
}

static int fail(const char *what, tc_result r)
{
    fprintf(stderr, "heaptrace: %s: %s\n", what, tc_result_name(r));
    return EXIT_FAILURE;
}

int main(int argc, char **argv)
{
    tc_bench_cli cli;
    int rc = tc_bench_cli_parse(&cli, &spec, argc, argv);
    if (rc != TC_BENCH_CLI_RUN)
        return tc_bench_exit_status("heaptrace", rc);
    rc = 0;
    tc_policy pol;
    if (tc_policy_preset(cli.eras[0], &pol) != TC_OK)
        return fail("era", TC_EBADARG);
    tc_bench_cli_policy(&cli, &pol);
    size_t length = cli.len ? (size_t)cli.len : 10000;
    size_t lookups = cli.iterations ? (size_t)cli.iterations : cli.quick ? 100 : 1000;
    const char *csv_path = cli.csv;
    FILE *out = tc_bench_cli_open_csv(&cli, "--csv", csv_path, &rc);
    if (rc)
        return rc;

    tc_lookup_loop loop;
    const char *what;
    tc_result r = tc_lookup_loop_new(&pol, length, &loop, &what);
    if (r != TC_OK) {
        if (out)
            (void)tc_bench_cli_close_csv(&cli, out, csv_path); /* failing already */
        return fail(what, r);
    }
    tc_proc *p = loop.p;
    size_t result_words = loop.result_words;

    row *rows = calloc(lookups, sizeof *rows);
    if (!rows) {
        tc_lookup_loop_free(&loop);
        if (out)
            (void)tc_bench_cli_close_csv(&cli, out, csv_path); /* failing already */
        return fail("rows", TC_ENOMEM);
    }
    trace_acc acc = {NULL};
    tc_proc_set_trace(p, on_event, &acc);
    const tc_mseg_stats *ms = tc_mseg_stats_get(loop.mem);
    for (size_t i = 0; i < lookups; i++) {
        row *w = &rows[i];
        acc.cur = w;
        tc_mseg_stats m0 = *ms;
        tc_faults f;
        tc_faults_begin(&f);
        if ((r = tc_lookup_loop_step(&loop, &what)) != TC_OK) {
            free(rows);
            tc_lookup_loop_free(&loop);
            if (out)
                (void)tc_bench_cli_close_csv(&cli, out, csv_path); /* failing already */
            return fail(what, r);
        }
        w->faults = tc_faults_end(&f);
        w->heap_after = tc_proc_heap_size(p);
        w->old_heap = tc_proc_old_heap_size(p);
        w->mapped = ms->carriers_mapped - m0.carriers_mapped;
        w->unmapped = ms->carriers_unmapped - m0.carriers_unmapped;
        w->hits = ms->cache_hits - m0.cache_hits;
        w->misses = ms->cache_misses - m0.cache_misses;
        tc_progress_line("lookup %zu/%zu", i + 1, lookups);
    }
    tc_progress_end();
    if (!tc_lookup_loop_verify(&loop, &what)) {
        fprintf(stderr, "heaptrace: the process fails the verifier: %s\n", what);
        free(rows);
        tc_lookup_loop_free(&loop);
        if (out)
            (void)tc_bench_cli_close_csv(&cli, out, csv_path); /* failing already */
        return EXIT_FAILURE;
    }

    char summary[256];
    printf("# heaptrace: %s min_heap=%llu, result %zu words, %zu lookups\n",
           policy_summary(&pol, summary, sizeof summary), (unsigned long long)tc_proc_min_heap_size(p), result_words,
           lookups);
    printf("%7s %9s %9s %4s %8s %9s %6s %7s %6s %6s %7s\n", "lookup", "heap", "old_heap", "gcs", "copied",
           "new_heap", "mapped", "unmapped", "hits", "misses", "faults");
    size_t shown = lookups < 12 ? lookups : 12;
    for (size_t i = 0; i < shown; i++) {
        const row *w = &rows[i];
        printf("%7zu %9llu %9llu %4llu %8llu %9llu %6llu %7llu %6llu %6llu %7llu\n", i + 1,
               (unsigned long long)w->heap_after, (unsigned long long)w->old_heap, (unsigned long long)w->gcs,
               (unsigned long long)w->copied, (unsigned long long)w->heap_new, (unsigned long long)w->mapped,
               (unsigned long long)w->unmapped, (unsigned long long)w->hits, (unsigned long long)w->misses,
               (unsigned long long)w->faults);
    }
    /* Steady state: the second half of the run. */
    size_t from = lookups / 2, n = lookups - from;
    row sum = {0};
    uint64_t hmin = UINT64_MAX, hmax = 0, newmax = 0;
    for (size_t i = from; i < lookups; i++) {
        const row *w = &rows[i];
        sum.gcs += w->gcs;
        sum.copied += w->copied;
        sum.frags += w->frags;
        sum.mapped += w->mapped;
        sum.hits += w->hits;
        sum.misses += w->misses;
        sum.faults += w->faults;
        hmin = w->heap_after < hmin ? w->heap_after : hmin;
        hmax = w->heap_after > hmax ? w->heap_after : hmax;
        newmax = w->heap_new > newmax ? w->heap_new : newmax;
    }
    printf("steady state (lookups %zu-%zu): heap %llu..%llu words (%.0f..%.0f KiB); largest new heap %llu words "
           "(%.0f KiB)\n",
           from + 1, lookups, (unsigned long long)hmin, (unsigned long long)hmax, hmin * 8 / 1024.0, hmax * 8 / 1024.0,
           (unsigned long long)newmax, newmax * 8 / 1024.0);
    printf("  per lookup: %.3f GCs, %.0f words copied by the GC (%.3f x result), %.3f fragments, "
           "%.3f carriers mapped, %.3f cache hits, %.3f misses, %.1f minor faults\n",
           (double)sum.gcs / n, (double)sum.copied / n, (double)sum.copied / n / result_words,
           (double)sum.frags / n, (double)sum.mapped / n, (double)sum.hits / n, (double)sum.misses / n,
           (double)sum.faults / n);
    /* The loop's own carriers, as the CSV's rows sum them; the memory source's totals also hold
     * what was mapped before the first lookup (the process's heap, the payload, the table). */
    row all = {0};
    for (size_t i = 0; i < lookups; i++) {
        all.mapped += rows[i].mapped;
        all.unmapped += rows[i].unmapped;
        all.hits += rows[i].hits;
    }
    printf("  totals of the %zu lookups: %llu minor + %llu major GCs (%llu delayed as long), %llu words copied, "
           "%llu carriers mapped, %llu unmapped, %llu cache hits; carriers mapped before the first lookup: %llu\n",
           lookups, (unsigned long long)tc_proc_stats_get(p)->minor_gcs,
           (unsigned long long)tc_proc_stats_get(p)->major_gcs, (unsigned long long)tc_proc_stats_get(p)->gcs_delayed,
           (unsigned long long)tc_proc_stats_get(p)->words_copied, (unsigned long long)all.mapped,
           (unsigned long long)all.unmapped, (unsigned long long)all.hits,
           (unsigned long long)(ms->carriers_mapped - all.mapped));

    int status = EXIT_SUCCESS;
    if (out) {
        tc_bench_meta_standard(out);
        tc_bench_meta(out, "experiment", "heaptrace");
        tc_bench_meta_policy(out, &pol);
        tc_bench_meta(out, "policy", "%s min_heap=%llu", policy_summary(&pol, summary, sizeof summary),
                      (unsigned long long)tc_proc_min_heap_size(p));
        tc_bench_meta(out, "result_words", "%zu", result_words);
        fputs("lookup,heap_words,old_heap_words,gcs,gc_words_copied,new_heap_words,fragments,carriers_mapped,"
              "carriers_unmapped,cache_hits,cache_misses,minor_faults\n",
              out);
        for (size_t i = 0; i < lookups; i++) {
            const row *w = &rows[i];
            fprintf(out, "%zu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", i + 1,
                    (unsigned long long)w->heap_after, (unsigned long long)w->old_heap, (unsigned long long)w->gcs,
                    (unsigned long long)w->copied, (unsigned long long)w->heap_new, (unsigned long long)w->frags,
                    (unsigned long long)w->mapped, (unsigned long long)w->unmapped, (unsigned long long)w->hits,
                    (unsigned long long)w->misses, (unsigned long long)w->faults);
        }
        if (!tc_bench_cli_close_csv(&cli, out, csv_path))
            status = 2;
    }
    free(rows);
    tc_lookup_loop_free(&loop);
    return tc_bench_exit_status("heaptrace", status);
}
