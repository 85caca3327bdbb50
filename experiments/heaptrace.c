/*
 * heaptrace — replays the brief's 7.2 prediction: a process that calls ets:lookup/2 on one
 * stored {Key, lists:seq(1, N)} in a tail-recursive loop that drops each result.
 *
 * The ETS table is not modelled here: the object is stored once in the compact form
 * (copy/compact.h, db_store_term), and each lookup is a BIF that takes one HAlloc of
 * size + 2 words on the process (heap or fragment) and fills it with copy_shallow plus
 * the result cons (build_term_list), then returns through the era's GC trigger with the
 * result as its only live register. The loop keeps Tab and Key (immediates) in x0/x1 and
 * 6 words of stack, the VM's for gctrace.erl's loop (its frame: Tab, N and a return address;
 * the spawned fun's: Self and one; one at the bottom; a 3-argument loop of the same shape
 * reports stack_size 7); the result is dropped before the next lookup. Under a GC-at-schedule
 * trigger the process is rescheduled after every lookup; under OTP25's, after a lookup
 * whose GC was delayed as long (policy.h long_gc_words), so that GC finds the result dead.
 * experiments/beam/gctrace.erl traces the same loop on the VM.
 *
 * Per lookup it measures the heap size after, the GCs and the words they copied, the new
 * heap each GC allocated, carriers mapped and segment-cache hits and misses, and minor
 * page faults (getrusage around the lookup). stdout gets the first lookups and a
 * steady-state summary; --csv writes one row per lookup after '#' metadata lines.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "copy/compact.h"
#include "harness.h"
#include "alloc/faults.h"
#include "procs/gc.h"
#include "procs/proc.h"
#include "procs/verify.h"
#include "terms/arena.h"

#define EXIT_USAGE 2

static const char usage[] =
    "usage: heaptrace [--era otp25|r10b] [--length N] [--lookups N] [--quick]\n"
    "                 [--cache SLOTS] [--sbct BYTES] [--no-shrink] [--trigger bif|schedule]\n"
    "                 [--min-heap WORDS] [--csv FILE|-] [--help]\n"
    "\n"
    "Replays an ets:lookup/2 loop that drops each result (the brief's 7.2) on a modelled\n"
    "process and prints the heap-size trajectory, GCs, words copied, carriers mapped and\n"
    "minor page faults per lookup.\n"
    "  --era        heap policy preset (default otp25)\n"
    "  --length N   the stored list's length (default 10000: a 20,005-word result)\n"
    "  --lookups N  lookups to run (default 1000; --quick: 100)\n"
    "  --cache      segment cache slots (default 10; 0 = every sbc freshly mapped)\n"
    "  --sbct       single-block carrier threshold in bytes (default 524288)\n"
    "  --no-shrink  switch the GC's shrink rules off\n"
    "  --trigger    when fragments are collected: after the BIF or at the next schedule\n"
    "  --min-heap   min_heap_size in words (default 233)\n"
    "  --csv FILE   one row per lookup; '-' is stdout\n";

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

static int bad(const char *option, const char *value)
{
    fprintf(stderr, "heaptrace: bad %s '%s'\n%s", option, value, usage);
    return EXIT_USAGE;
}

static int fail(const char *what, tc_result r)
{
    fprintf(stderr, "heaptrace: %s: %s\n", what, tc_result_name(r));
    return EXIT_FAILURE;
}

int main(int argc, char **argv)
{
    tc_policy pol = tc_policy_otp25();
    size_t length = 10000, lookups = 1000;
    const char *csv_path = NULL;
    bool quick = false, lookups_set = false;
    static const struct option longopts[] = {
        {"era", required_argument, NULL, 'e'},     {"length", required_argument, NULL, 'n'},
        {"lookups", required_argument, NULL, 'l'}, {"quick", no_argument, NULL, 'q'},
        {"cache", required_argument, NULL, 'c'},   {"sbct", required_argument, NULL, 's'},
        {"no-shrink", no_argument, NULL, 'S'},     {"trigger", required_argument, NULL, 't'},
        {"min-heap", required_argument, NULL, 'm'}, {"csv", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    /* Options that adjust the preset are applied after it is chosen. */
    long cache = -1, sbct = -1, min_heap = -1, v;
    int shrink = -1, trigger = -1;
    int opt;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'e':
            if (tc_policy_preset(optarg, &pol) != TC_OK) {
                fprintf(stderr, "heaptrace: unknown era '%s'\n%s", optarg, usage);
                return EXIT_USAGE;
            }
            break;
        case 'n':
            if (!tc_bench_parse_long(optarg, 1, 10000000, &v))
                return bad("--length", optarg);
            length = (size_t)v;
            break;
        case 'l':
            if (!tc_bench_parse_long(optarg, 1, 10000000, &v))
                return bad("--lookups", optarg);
            lookups = (size_t)v;
            lookups_set = true;
            break;
        case 'q': quick = true; break;
        case 'c':
            if (!tc_bench_parse_long(optarg, 0, 1000, &cache))
                return bad("--cache", optarg);
            break;
        case 's':
            if (!tc_bench_parse_long(optarg, 4096, 1L << 40, &sbct))
                return bad("--sbct", optarg);
            break;
        case 'S': shrink = 0; break;
        case 't':
            if (strcmp(optarg, "bif") != 0 && strcmp(optarg, "schedule") != 0) {
                fprintf(stderr, "heaptrace: --trigger is bif or schedule\n%s", usage);
                return EXIT_USAGE;
            }
            trigger = strcmp(optarg, "bif") == 0 ? TC_GC_AFTER_BIF : TC_GC_AT_SCHEDULE;
            break;
        case 'm':
            if (!tc_bench_parse_long(optarg, 1, 1L << 32, &min_heap))
                return bad("--min-heap", optarg);
            break;
        case 'o': csv_path = optarg; break;
        case 'h': fputs(usage, stdout); return EXIT_SUCCESS;
        default: fputs(usage, stderr); return EXIT_USAGE;
        }
    }
    if (optind != argc) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    FILE *out = NULL;
    if (csv_path && !(out = tc_bench_csv_open(csv_path))) {
        fprintf(stderr, "heaptrace: cannot write '%s': %s\n", csv_path, strerror(errno));
        return EXIT_USAGE;
    }
    if (quick && !lookups_set)
        lookups = 100;
    if (cache >= 0)
        pol.mem.cache_slots = (unsigned)cache;
    if (sbct > 0)
        pol.mem.sbct = (size_t)sbct;
    if (shrink == 0)
        pol.shrink = false;
    if (trigger >= 0)
        pol.trigger = (tc_gc_trigger)trigger;
    if (min_heap > 0)
        pol.min_heap_size = (uint64_t)min_heap;

    /* The stored object {1, [1..N]}, built in an arena and stored in compact form. */
    tc_arena *ar = tc_arena_new(0);
    if (!ar)
        return fail("arena", TC_ENOMEM);
    tc_term *elems = tc_mem_alloc(length * sizeof *elems);
    if (!elems)
        return fail("list", TC_ENOMEM);
    for (size_t i = 0; i < length; i++)
        elems[i] = tc_make_small((int64_t)i + 1);
    tc_term obj[2] = {tc_make_small(1), tc_term_list(tc_arena_alloc(ar), elems, length, TC_NIL)};
    tc_mem_free(elems);
    tc_term stored = tc_term_tuple(tc_arena_alloc(ar), obj, 2);
    if (obj[1] == TC_NON_VALUE || stored == TC_NON_VALUE)
        return fail("object", TC_ENOMEM);
    tc_copy_compact *db;
    tc_result r = tc_copy_compact_in(stored, &db, NULL);
    if (r != TC_OK)
        return fail("store", r);
    size_t result_words = tc_copy_compact_size(db) + 2;

    tc_mseg *mem = tc_mseg_new(&pol.mem);
    tc_proc *p;
    if (!mem)
        return fail("memory source", TC_ENOMEM);
    if ((r = tc_proc_new(mem, &pol, &p)) != TC_OK)
        return fail("process", r);
    tc_proc_x(p)[0] = tc_make_small(7); /* Tab */
    tc_proc_x(p)[1] = tc_make_small(1); /* Key */
    tc_proc_set_arity(p, 2);
    for (int i = 0; i < 6; i++)
        if ((r = tc_proc_push_maybe_gc(p, tc_make_small(i))) != TC_OK)
            return fail("stack", r);

    row *rows = calloc(lookups, sizeof *rows);
    if (!rows)
        return fail("rows", TC_ENOMEM);
    trace_acc acc = {NULL};
    tc_proc_set_trace(p, on_event, &acc);
    const tc_mseg_stats *ms = tc_mseg_stats_get(mem);
    for (size_t i = 0; i < lookups; i++) {
        row *w = &rows[i];
        acc.cur = w;
        tc_mseg_stats m0 = *ms;
        tc_faults f;
        tc_faults_begin(&f);
        tc_heapfrag *live = tc_proc_bif_enter(p);
        tc_term res;
        if ((r = tc_copy_compact_out_list(tc_proc_alloc(p), db, &res, NULL)) != TC_OK)
            return fail("lookup", r);
        if ((r = tc_proc_bif_return_maybe_gc(p, live, &res)) != TC_OK)
            return fail("gc after bif", r);
        /* The loop drops the result and calls itself: Tab and Key stay live. */
        tc_proc_set_arity(p, 2);
        if (tc_proc_yield_requested(p) || pol.trigger == TC_GC_AT_SCHEDULE)
            if ((r = tc_proc_schedule_in_maybe_gc(p)) != TC_OK)
                return fail("gc at schedule", r);
        w->faults = tc_faults_end(&f);
        w->heap_after = tc_proc_heap_size(p);
        w->old_heap = tc_proc_old_heap_size(p);
        w->mapped = ms->carriers_mapped - m0.carriers_mapped;
        w->unmapped = ms->carriers_unmapped - m0.carriers_unmapped;
        w->hits = ms->cache_hits - m0.cache_hits;
        w->misses = ms->cache_misses - m0.cache_misses;
        tc_bench_progress("lookup %zu/%zu", i + 1, lookups);
    }
    tc_bench_progress_end();
    const char *why;
    if (!tc_heap_verify(p, &why)) {
        fprintf(stderr, "heaptrace: the process fails the verifier: %s\n", why);
        return EXIT_FAILURE;
    }

    printf("# heaptrace: era %s, trigger %s, shrink %s, result %zu words, %zu lookups, sbct %zu bytes, "
           "segment cache %u slots, min_heap %llu\n",
           pol.name, pol.trigger == TC_GC_AFTER_BIF ? "after-bif" : "at-schedule", pol.shrink ? "on" : "off",
           result_words, lookups, pol.mem.sbct, pol.mem.cache_slots, (unsigned long long)tc_proc_min_heap_size(p));
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
    printf("  totals: %llu minor + %llu major GCs (%llu delayed as long), %llu words copied, %llu carriers "
           "mapped, %llu unmapped, %llu cache hits\n",
           (unsigned long long)tc_proc_stats_get(p)->minor_gcs, (unsigned long long)tc_proc_stats_get(p)->major_gcs,
           (unsigned long long)tc_proc_stats_get(p)->gcs_delayed, (unsigned long long)tc_proc_stats_get(p)->words_copied,
           (unsigned long long)ms->carriers_mapped, (unsigned long long)ms->carriers_unmapped,
           (unsigned long long)ms->cache_hits);

    int status = EXIT_SUCCESS;
    if (out) {
        tc_bench_meta_standard(out);
        tc_bench_meta(out, "experiment", "heaptrace");
        tc_bench_meta(out, "policy", "%s trigger=%s shrink=%s sbct=%zu cache=%u min_heap=%llu", pol.name,
                      pol.trigger == TC_GC_AFTER_BIF ? "after-bif" : "at-schedule", pol.shrink ? "on" : "off",
                      pol.mem.sbct, pol.mem.cache_slots, (unsigned long long)tc_proc_min_heap_size(p));
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
        if (!tc_bench_csv_close(out)) {
            fprintf(stderr, "heaptrace: writing %s failed\n", csv_path);
            status = EXIT_USAGE;
        }
    }
    free(rows);
    tc_proc_free(p);
    tc_mseg_free(mem);
    tc_copy_compact_free(db);
    tc_arena_free(ar);
    return tc_bench_exit_status("heaptrace", status);
}
