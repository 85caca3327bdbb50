/*
 * perf.h — hardware counters around a measured region (tc_perf_*): CPU cycles,
 * instructions retired and last-level cache misses of this thread, in user space and, when
 * the kernel allows it, in the kernel too, read with perf_event_open(2).
 *
 * Counters are not always there: a VM without a virtual PMU has no hardware events
 * (ENOENT), perf_event_paranoid or a seccomp filter may forbid them (EACCES, EPERM), a CPU
 * may lack one event (EOPNOTSUPP). tc_perf_open then says why and every count of that
 * session is "not measured": the CSV columns print n/a. A count is also not measured when
 * the kernel multiplexed the group (it ran for only part of the region), because scaling
 * it up would print a number nobody measured.
 *
 * Models no erts mechanism: it is part of the measuring instrument.
 */
#ifndef TC_PERF_H
#define TC_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum tc_perf_event {
    TC_PERF_CYCLES,
    TC_PERF_INSTRUCTIONS,
    TC_PERF_CACHE_MISSES,
    TC_PERF_NEVENTS
} tc_perf_event;

/* The CSV header fragment matching tc_perf_csv_values (no leading or trailing comma). */
#define TC_PERF_CSV_HEADER "cycles,instructions,cache_misses"

/* One session: the counter group of the calling thread. */
typedef struct tc_perf {
    int fd[TC_PERF_NEVENTS]; /* -1 when not open */
    bool available;
    bool kernel;             /* the counts include kernel mode (page faults, syscalls) */
    char why[96];            /* when !available: the reason, e.g. "cycles: ENOENT (...)" */
} tc_perf;

/* The counts of one region; a count is meaningful only when measured is true. */
typedef struct tc_perf_counts {
    bool measured;
    uint64_t value[TC_PERF_NEVENTS];
} tc_perf_counts;

/* Opens the counters for the calling thread, stopped. Returns p->available; when false,
 * p->why says why, and the other calls still work (they measure nothing). */
bool tc_perf_open(tc_perf *p);
void tc_perf_close(tc_perf *p);
/* Zeroes and starts the counters. */
void tc_perf_start(tc_perf *p);
/* Stops them and returns what they counted since tc_perf_start. */
tc_perf_counts tc_perf_stop(tc_perf *p);

const char *tc_perf_event_name(tc_perf_event e);
/* Writes the three values for TC_PERF_CSV_HEADER, each "n/a" when not measured. */
void tc_perf_csv_values(FILE *f, const tc_perf_counts *c);
/* One '#' metadata line saying whether counters were measured, in which modes, or why not. */
void tc_perf_meta(FILE *f, const tc_perf *p);

#endif
