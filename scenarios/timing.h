/*
 * timing.h — the clock a scenario times its passes with (tc_timing_*), as the seeds' loops
 * time theirs with timer:tc: CLOCK_MONOTONIC in nanoseconds, the measured cost of reading
 * it (subtracted from every timed region), and the median and quartiles of repeated
 * timings.
 *
 * Models no erts mechanism: it is the measuring instrument, here at the floor of the
 * scenarios that time themselves (tc_ep_run's passes); experiments/harness.h builds its
 * regions, repeats and calibration on it.
 */
#ifndef TC_SCENARIOS_TIMING_H
#define TC_SCENARIOS_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "../terms/base.h"

TC_BEGIN_DECLS

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t tc_timing_now_ns(void);
/* The median cost of one back-to-back pair of tc_timing_now_ns calls: what a timed region
 * measures when it is empty. Measured on the first call, then cached. */
double tc_timing_overhead_ns(void);
/* t1 - t0 less the clock's own cost, never below 0. */
double tc_timing_elapsed_ns(uint64_t t0, uint64_t t1);

typedef struct tc_timing_summary {
    double median, q1, q3; /* q3 - q1 is the interquartile range */
    size_t n;
} tc_timing_summary;

/* Summarises n > 0 samples (sorting them in place). */
tc_timing_summary tc_timing_summarize(double *samples, size_t n);

TC_END_DECLS

#endif
