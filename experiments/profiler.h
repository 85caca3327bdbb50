/*
 * profiler.h — a sampling profiler (tc_prof_*) that cross-checks by stack what the
 * experiments' counters attribute to each phase (DESIGN rule 6).
 *
 * Sampling: a POSIX timer on CLOCK_MONOTONIC (high resolution, not bound to the kernel's
 * tick) sends SIGPROF every 1/hz s to the thread that started the profiler; while that
 * thread is off the CPU its expirations collapse into one signal, so the samples follow the
 * thread's running time. Where timer_create fails it falls back to ITIMER_PROF, every 1/hz s
 * of the process's CPU time (user and kernel, all threads). The handler walks the
 * interrupted stack with libunwind from the signal's own context (UNW_LOCAL_ONLY:
 * unw_init_local2 with UNW_INIT_SIGNAL_FRAME, unw_step, unw_get_reg, which libunwind
 * documents as safe in a signal handler for a local cursor) and stores raw instruction pointers into a preallocated, pre-touched buffer of
 * fixed-size records, reserving a record with one lock-free fetch-add because several
 * threads may take the signal at once. Nothing else happens there: no malloc, no stdio, no
 * name lookup. The buffer does not wrap (attribution needs every sample of the run): when
 * it is full a sample is counted as dropped, never lost silently.
 *
 * Attribution, after the run and outside the handler: each distinct pointer is resolved
 * to the start of its function (unw_get_proc_info_by_ip). Each sample then goes to a phase
 * by the caller's function-to-phase table, which names functions by their addresses, so
 * that the linker checks every name and a renamed function breaks the build instead of
 * silently matching nothing: walking from the leaf up, the first function in the table
 * decides; a sample with none goes to "loop". A function that ends in a tail call is off the
 * stack while its callee runs, but the call instruction that called it is still there: each
 * return address's direct call is decoded (x86-64's call rel32), so a listed function also
 * covers what it tail-called. That is how a static function, which no other file can name,
 * is listed: by the public function it is reached through. A function inlined into its
 * caller is its caller. Names are looked up for the report's top functions only
 * (unw_get_proc_name on a cursor set to the function's start: it reads the ELF symbol
 * tables, static functions included, which opens and maps files and so is never done in the
 * handler; in a stripped library such as libc a function takes the name of the nearest
 * exported symbol).
 *
 * Kernel time: SIGPROF lands on user code, so a page fault or a syscall is sampled in the
 * user function that entered the kernel (the faulting store, the mmap call) and counts in
 * that function's phase. The report adds the run's user and system CPU seconds
 * (getrusage), which bound how much of all the phases together was kernel time; turning
 * fault counts into time is the calibration's job (tc_bench_calibrate).
 *
 * The report gives the effective rate as measured (signals per CPU second): the fallback's
 * CPU timers fire only at the kernel's tick, so it is at most CONFIG_HZ there.
 */
#ifndef TC_PROFILER_H
#define TC_PROFILER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "heaps/policy.h"
#include "terms/base.h"

enum {
    TC_PROF_DEPTH = 32,      /* frames kept per sample, from the leaf */
    TC_PROF_MAX_PHASES = 32, /* distinct phases in a report, "loop" included */
    TC_PROF_TOP = 10,        /* functions listed in a report */
    TC_PROF_NAME = 64        /* bytes of a function name kept in a report */
};

typedef struct tc_prof tc_prof;

/* A function by its address: only compared, never called through, so any function is
 * converted to this one type (void (*)(void), which -Wcast-function-type lets every function
 * type convert to). */
typedef void (*tc_prof_fn)(void);
#define TC_PROF_FN(f) ((tc_prof_fn)(f))

/* One row of the caller's table: samples whose leaf-most listed function is `function`
 * (TC_PROF_FN(name)) go to `phase`. Several functions may share a phase. */
typedef struct tc_prof_phase_map {
    tc_prof_fn function;
    const char *phase;
} tc_prof_phase_map;

typedef struct tc_prof_phase_count {
    const char *phase; /* points into the caller's table, or "loop" */
    uint64_t samples;
    double share; /* of the recorded samples */
} tc_prof_phase_count;

typedef struct tc_prof_function_count {
    char name[TC_PROF_NAME]; /* "?" when it has no symbol */
    const char *phase;
    uint64_t samples; /* samples this function decided (its phase, or the leaf of a "loop" one) */
} tc_prof_function_count;

typedef struct tc_prof_report {
    tc_prof_phase_count phase[TC_PROF_MAX_PHASES]; /* table order of first mention, then "loop" */
    size_t nphases;
    tc_prof_function_count top[TC_PROF_TOP]; /* most samples first */
    size_t ntop;
    uint64_t samples;    /* recorded and attributed */
    uint64_t dropped;    /* the buffer was full */
    uint64_t unwalkable; /* libunwind could not start on the signal's context */
    unsigned hz;         /* requested */
    double effective_hz; /* signals per CPU second */
    double cpu_user_s, cpu_sys_s, wall_s;
} tc_prof_report;

/* A profiler sampling at hz (0: 1000) into room for `capacity` samples (0: 65536, about
 * 17 MiB, allocated and touched now so that sampling adds no page faults). TC_ENOMEM. */
tc_result tc_prof_new(unsigned hz, size_t capacity, tc_prof **out) TC_MUST_CHECK;
void tc_prof_free(tc_prof *p);
/* Installs the SIGPROF handler and arms the timer for the calling thread; samples
 * accumulate over successive start/stop pairs. TC_EBADARG when a profiler is already
 * running (there is one SIGPROF per process), TC_EIO when sigaction or both timers fail (the
 * previous handler is back then). */
tc_result tc_prof_start(tc_prof *p) TC_MUST_CHECK;
/* Disarms the timer, waits for handlers still running on other threads, restores the
 * previous SIGPROF action. */
void tc_prof_stop(tc_prof *p);
/* Samples recorded and dropped so far; safe to call while running. */
uint64_t tc_prof_recorded(const tc_prof *p);
uint64_t tc_prof_dropped(const tc_prof *p);

/* Attributes the samples (profiler stopped) by table[0..n). TC_EBADARG while running or
 * with more than TC_PROF_MAX_PHASES - 1 distinct phases; TC_ENOMEM. */
tc_result tc_prof_report_phases(tc_prof *p, const tc_prof_phase_map *table, size_t n,
                                tc_prof_report *out) TC_MUST_CHECK;

/* The human table: phases with samples and shares, the top functions, the CPU split. */
void tc_prof_print(FILE *f, const tc_prof_report *r);
/* "results/profile-NAME.csv" (relative to the working directory) into buf. */
void tc_prof_named_path(const char *name, char *buf, size_t cap);
/* Writes the report as CSV (phase,samples,share) after the standard '#' metadata, a line
 * naming the run (`what`), the era when pol is not NULL, and the profiler's own lines.
 * Creates the file's directory (the last level only) when missing. false (errno set) on
 * failure. */
bool tc_prof_write_csv(const tc_prof_report *r, const char *path, const char *what, const tc_policy *pol);

/* One phase as the experiment's counters timed it. */
typedef struct tc_prof_counter_phase {
    const char *phase;
    double ns;
} tc_prof_counter_phase;

/* Profiler shares beside counter shares (each phase's ns over the sum of all n) and their
 * difference in percentage points, one row per phase either side knows; n/a where one side
 * has no such phase. For equal denominators give the counters a "loop" phase (the run's
 * time minus the timed phases). csv: "phase,profiler_share,counter_share,difference_pp"
 * rows with a header, else an aligned table. */
void tc_prof_crosscheck(FILE *f, bool csv, const tc_prof_report *r, const tc_prof_counter_phase *c, size_t n);

#endif
