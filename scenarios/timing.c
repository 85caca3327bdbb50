#include "timing.h"

#include <stdlib.h>
#include <time.h>

uint64_t tc_timing_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between the order statistics around fraction p. */
static double quantile(const double *sorted, size_t n, double p)
{
    double pos = p * (double)(n - 1);
    size_t i = (size_t)pos;
    double frac = pos - (double)i;
    return i + 1 < n ? sorted[i] + frac * (sorted[i + 1] - sorted[i]) : sorted[i];
}

tc_timing_summary tc_timing_summarize(double *samples, size_t n)
{
    TC_CHECK(n > 0);
    qsort(samples, n, sizeof *samples, cmp_double);
    tc_timing_summary s = {quantile(samples, n, 0.5), quantile(samples, n, 0.25), quantile(samples, n, 0.75), n};
    return s;
}

double tc_timing_overhead_ns(void)
{
    static double overhead = -1;
    if (overhead < 0) {
        enum { PAIRS = 1001 };
        static double d[PAIRS];
        for (int i = 0; i < PAIRS; i++) {
            uint64_t t0 = tc_timing_now_ns();
            uint64_t t1 = tc_timing_now_ns();
            d[i] = (double)(t1 - t0);
        }
        overhead = tc_timing_summarize(d, PAIRS).median;
    }
    return overhead;
}

double tc_timing_elapsed_ns(uint64_t t0, uint64_t t1)
{
    double ns = (double)(t1 - t0) - tc_timing_overhead_ns();
    return ns > 0 ? ns : 0;
}
