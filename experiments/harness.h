/*
 * harness.h — what every experiment binary shares (tc_bench_*): a monotonic clock whose
 * own cost is measured so it can be subtracted, summaries of repeated samples (median and
 * quartiles), minor page faults from getrusage, measured regions and warm-up + repeats
 * (time, faults, and the hardware counters of perf.h where there are any), a calibration of
 * what one page fault and one mmap+munmap cost on this machine (so a fault count reads as
 * time), CSV output that starts with '#' metadata lines (date, git revision, compiler and
 * flags, CPU model, kernel, calibration, era), and a progress line on stderr when stderr is
 * a terminal.
 *
 * Models no erts mechanism: it is the measuring instrument, kept apart so that every
 * figure is measured the same way.
 */
#ifndef TC_BENCH_HARNESS_H
#define TC_BENCH_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "procs/policy.h"
#include "perf.h"
#include "terms/base.h"

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t tc_bench_now_ns(void);
/* The median cost of one back-to-back pair of tc_bench_now_ns calls: what a timed region
 * measures when it is empty. Measured on the first call, then cached. */
double tc_bench_clock_overhead_ns(void);

typedef struct tc_bench_summary {
    double median, q1, q3; /* q3 - q1 is the interquartile range */
    size_t n;
} tc_bench_summary;

/* Summarises n > 0 samples (sorting them in place). */
tc_bench_summary tc_bench_summarize(double *samples, size_t n);

/* ---- measured regions ------------------------------------------------------------------ */

typedef struct tc_bench_region {
    uint64_t t0;
    long faults0;
    tc_perf *perf;
} tc_bench_region;

/* What one region cost: ns with the clock's own cost subtracted (never below 0), minor
 * faults of the process (getrusage), and counts.measured false when perf was NULL or had no
 * counters. */
typedef struct tc_bench_sample {
    double ns;
    long minor_faults;
    tc_perf_counts counts;
} tc_bench_sample;

/* Starts a region; perf may be NULL (no counters). */
void tc_bench_region_begin(tc_bench_region *r, tc_perf *perf);
tc_bench_sample tc_bench_region_end(tc_bench_region *r);

/* One operation to repeat: run is timed, before and after (either may be NULL) are not. */
typedef struct tc_bench_op {
    void (*before)(void *ctx);
    void (*run)(void *ctx);
    void (*after)(void *ctx);
    void *ctx;
} tc_bench_op;

typedef struct tc_bench_stats {
    tc_bench_summary ns;  /* per repeat: median, quartiles */
    double minor_faults;  /* mean per repeat */
    tc_perf_counts counts; /* mean per repeat (rounded); measured only if every repeat was */
} tc_bench_stats;

/* Runs op `warmup` times untimed, then `repeats` (> 0) times each as its own region.
 * false (errno ENOMEM) when the samples cannot be allocated; op never ran then. */
bool tc_bench_repeat(const tc_bench_op *op, int warmup, int repeats, tc_perf *perf, tc_bench_stats *out);

/* ---- calibration: what a fault and a carrier cost here ------------------------------- */

typedef struct tc_bench_calibration {
    bool measured;                   /* false: mmap failed, the figures below are zero */
    tc_bench_summary fault_ns;       /* one first-touch minor fault of a fresh anonymous page */
    tc_bench_summary mmap_munmap_ns; /* mmap + munmap of an untouched 1 MiB region */
    size_t fault_pages;              /* pages touched per fault run */
} tc_bench_calibration;

/* Measured on the first call (some tens of milliseconds), then cached. Convert a fault
 * count to time with faults * tc_bench_calibrate()->fault_ns.median. */
const tc_bench_calibration *tc_bench_calibrate(void);

/* ---- command lines ---------------------------------------------------------------------- */

/* A whole decimal argument within [lo, hi]; false (nothing stored) for anything else. */
bool tc_bench_parse_long(const char *s, long lo, long hi, long *out);

/* ---- CSV ------------------------------------------------------------------------------ */

/* Opens `path` for writing, "-" meaning stdout; NULL (errno set) when it cannot. */
FILE *tc_bench_csv_open(const char *path);
/* Closes what tc_bench_csv_open opened (stdout is flushed, not closed); false on a write
 * error. */
bool tc_bench_csv_close(FILE *f);
/* One metadata line: "# key: value". */
void tc_bench_meta(FILE *f, const char *key, const char *fmt, ...) TC_PRINTF(3, 4);
/* The metadata every CSV starts with: date (UTC), git revision, compiler, flags, CPU model,
 * kernel, and the calibration (tc_bench_calibrate, measured now if it was not yet).
 * Experiments add tc_bench_meta_policy when an era applies, their own lines with
 * tc_bench_meta, then the header row. */
void tc_bench_meta_standard(FILE *f);
/* The "era" line: the policy's name and every one of its switches, so an ablated run says
 * exactly what it turned off. */
void tc_bench_meta_policy(FILE *f, const tc_policy *pol);

/* What an experiment's main returns last: `rc`, or 2 with a one-line message when standard
 * output could not be written (a full disk, a closed pipe), so no table is lost silently. */
int tc_bench_exit_status(const char *prog, int rc);

/* Overwrites one progress line on stderr, only when stderr is a terminal. */
void tc_bench_progress(const char *fmt, ...) TC_PRINTF(1, 2);
/* Clears the progress line. */
void tc_bench_progress_end(void);

#endif
