/*
 * harness.h — what every experiment binary shares (tc_bench_*): a monotonic clock whose
 * own cost is measured so it can be subtracted, summaries of repeated samples (median and
 * quartiles), minor page faults from getrusage, CSV output that starts with '#' metadata
 * lines (date, git revision, compiler and flags, CPU model, kernel), and a progress line
 * on stderr when stderr is a terminal.
 *
 * Models no erts mechanism: it is the measuring instrument, kept apart so that every
 * figure is measured the same way.
 */
#ifndef TC_BENCH_HARNESS_H
#define TC_BENCH_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "terms/base.h"

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t tc_bench_now_ns(void);
/* The median cost of one back-to-back pair of tc_bench_now_ns calls: what a timed region
 * measures when it is empty. Measured on the first call, then cached. */
double tc_bench_clock_overhead_ns(void);
/* Minor page faults of this process so far (getrusage). */
long tc_bench_minor_faults(void);

typedef struct tc_bench_summary {
    double median, q1, q3; /* q3 - q1 is the interquartile range */
    size_t n;
} tc_bench_summary;

/* Summarises n > 0 samples (sorting them in place). */
tc_bench_summary tc_bench_summarize(double *samples, size_t n);

/* Opens `path` for writing, "-" meaning stdout; NULL (errno set) when it cannot. */
FILE *tc_bench_csv_open(const char *path);
/* Closes what tc_bench_csv_open opened (stdout is flushed, not closed); false on a write
 * error. */
bool tc_bench_csv_close(FILE *f);
/* One metadata line: "# key: value". */
void tc_bench_meta(FILE *f, const char *key, const char *fmt, ...) TC_PRINTF(3, 4);
/* The metadata every CSV starts with: date (UTC), git revision, compiler, flags, CPU model,
 * kernel. Experiments add their own lines with tc_bench_meta, then the header row. */
void tc_bench_meta_standard(FILE *f);

/* Overwrites one progress line on stderr, only when stderr is a terminal. */
void tc_bench_progress(const char *fmt, ...) TC_PRINTF(1, 2);
/* Clears the progress line. */
void tc_bench_progress_end(void);

#endif
