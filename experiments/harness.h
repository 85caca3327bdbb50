/*
 * harness.h — what every experiment binary shares (tc_bench_*): minor page faults from
 * getrusage, measured regions and warm-up + repeats (time on scenarios/timing.h's clock,
 * faults, and the hardware counters of perf.h where there are any), a calibration of what
 * one page fault and one mmap+munmap cost on this machine (so a fault count reads as time),
 * CSV output that starts with '#' metadata lines (date, git revision, compiler and flags,
 * CPU model, kernel, calibration, era), and the command line every binary parses the same
 * way (tc_bench_cli_*). The clock, the summaries of repeated samples and the progress line
 * are the scenarios' (scenarios/timing.h, scenarios/progress.h), which time themselves.
 *
 * Models no erts mechanism: it is the measuring instrument, kept apart so that every
 * figure is measured the same way.
 */
#ifndef TC_BENCH_HARNESS_H
#define TC_BENCH_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "heaps/policy.h"
#include "perf.h"
#include "scenarios/timing.h"
#include "terms/base.h"

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
    tc_timing_summary ns;  /* per repeat: median, quartiles */
    double minor_faults;  /* mean per repeat */
    tc_perf_counts counts; /* mean per repeat (rounded); measured only if every repeat was */
} tc_bench_stats;

/* Runs op `warmup` times untimed, then `repeats` (> 0) times each as its own region.
 * false (errno ENOMEM) when the samples cannot be allocated; op never ran then. */
bool tc_bench_repeat(const tc_bench_op *op, int warmup, int repeats, tc_perf *perf, tc_bench_stats *out);

/* ---- calibration: what a fault and a carrier cost here ------------------------------- */

typedef struct tc_bench_calibration {
    bool measured;                   /* false: mmap failed, the figures below are zero */
    tc_timing_summary fault_ns;       /* one first-touch minor fault of a fresh anonymous page */
    tc_timing_summary mmap_munmap_ns; /* mmap + munmap of an untouched 1 MiB region */
    size_t fault_pages;              /* pages touched per fault run */
} tc_bench_calibration;

/* Measured on the first call (some tens of milliseconds), then cached. Convert a fault
 * count to time with faults * tc_bench_calibrate()->fault_ns.median. */
const tc_bench_calibration *tc_bench_calibrate(void);

/* ---- command lines ---------------------------------------------------------------------- */

/*
 * The one command line of every experiment binary: the switches they share are parsed here,
 * by the same names everywhere, and each binary says which of them it takes and what they
 * mean there (a tc_bench_cli_spec); a shared switch it does not take is an unknown option.
 * The usage text is made from the same spec, so --help states exactly the values the parser
 * accepts. Bad input is one line on stderr and exit status 2; --help and --version print on
 * stdout and exit 0, and so does --list-policy (the policy table; with --csv FILE|- as CSV).
 */

/* A number a binary takes: what it means there (NULL: the binary does not take it), the
 * values it accepts, and its default in --help's words (NULL: none stated). */
typedef struct tc_bench_cli_number {
    const char *what;
    long lo, hi;
    const char *dflt;
} tc_bench_cli_number;

/* An option of one binary's own: a switch when metavar is NULL, else a value, checked to be
 * an integer in range.lo..range.hi when range.what is set (the help then states the range). */
typedef struct tc_bench_cli_extra {
    const char *name; /* without the dashes */
    const char *metavar;
    const char *help;
    tc_bench_cli_number range;
} tc_bench_cli_extra;

enum { TC_BENCH_CLI_MAX_EXTRAS = 8, TC_BENCH_CLI_MAX_SETS = 32 };

/* What one binary takes. The help texts are wrapped to the usage's width, and a '\n' breaks a
 * line where it stands; `about` is printed as it is. */
typedef struct tc_bench_cli_spec {
    const char *prog;
    const char *about; /* the usage text's paragraph: what the binary does */
    /* --era's default, "all" when era_all (NULL: no --era). A binary with --era takes the
     * policy table's switches too: --set NAME=VALUE (and the old spellings of some, such as
     * --no-shrink), --list-policy. */
    const char *era;
    bool era_all;      /* --era all (or both): every preset in turn, in the table's order */
    tc_bench_cli_number len, iterations, repeats;
    const char *const *shapes; /* --shape's names (NULL: no --shape) */
    int nshapes;
    const char *shape_dflt; /* what runs without --shape */
    const char *quick;      /* what --quick changes (NULL: no --quick) */
    const char *csv;        /* what the CSV holds (NULL: no --csv) */
    const tc_bench_cli_extra *extras;
    int nextras;
} tc_bench_cli_spec;

/* A command line as parsed: anything not given is 0, NULL or false, except where noted. */
typedef struct tc_bench_cli {
    const tc_bench_cli_spec *spec;
    const char *eras[TC_POLICY_ERAS]; /* --era (else the spec's default), in the order to run */
    int neras;
    long len, iterations, repeats;
    int shape;          /* index into spec->shapes; -1 when not given */
    bool quick;
    const char *csv;    /* --csv's path */
    struct {
        const tc_policy_field *field;
        const char *value;
    } set[TC_BENCH_CLI_MAX_SETS]; /* --set and its old spellings, in the order given */
    int nsets;
    struct {
        bool given;
        const char *value; /* as given */
        long number;       /* when the extra has a range */
    } extra[TC_BENCH_CLI_MAX_EXTRAS]; /* in the spec's order */
    bool csv_on_stdout; /* a CSV has taken standard output (tc_bench_cli_open_csv) */
} tc_bench_cli;

/* What tc_bench_cli_parse returns when the binary should go on and measure. */
enum { TC_BENCH_CLI_RUN = -1 };

/* Parses the whole command line against spec: TC_BENCH_CLI_RUN, or the status to exit with
 * (through tc_bench_exit_status): 0 after --help or --version, 2 after one line on stderr
 * for an unknown option, a missing or bad value, or a stray argument. TC_MEM_FAIL_AT=N in
 * the environment makes the Nth library allocation after it fail (the tests' sweep of
 * every binary's out-of-memory exits); in a level-0 build, which has no fault injection, it
 * is an error (status 2). */
int tc_bench_cli_parse(tc_bench_cli *c, const tc_bench_cli_spec *spec, int argc, char **argv);
/* The one line for a bad value the binary found itself, in the parser's words:
 * "PROG: OPTION: expected EXPECTED, got 'VALUE'; try 'PROG --help'". Returns 2. */
int tc_bench_cli_bad(const tc_bench_cli *c, const char *option, const char *expected, const char *value);
/* The --set switches (and their old spellings) applied in order to pol, which holds the era's
 * own settings. */
void tc_bench_cli_policy(const tc_bench_cli *c, tc_policy *pol);
/* Opens the CSV file `path` given with `option` (tc_bench_csv_open; NULL path: NULL, no CSV).
 * NULL with *status 2 after a one-line message when it cannot be written, or when it is "-"
 * and another CSV already took standard output. */
FILE *tc_bench_cli_open_csv(tc_bench_cli *c, const char *option, const char *path, int *status);
/* Closes it (NULL: nothing to do); false after a one-line message on a write error. */
bool tc_bench_cli_close_csv(const tc_bench_cli *c, FILE *f, const char *path);

/* ---- CSV ------------------------------------------------------------------------------ */

/* Opens `path` for writing (output.h: a temporary file beside it, put in place by
 * tc_bench_exit_status when the run ends with status 0, else removed, so the previous file
 * survives any failure); NULL (errno set) when it cannot. "-" is standard output, taken
 * over: the CSV gets the process's standard output and stdout itself goes to standard error
 * from then on, so that nothing else a binary prints can land in the CSV. Once per process
 * (errno EBUSY after). */
FILE *tc_bench_csv_open(const char *path);
/* Closes what tc_bench_csv_open opened; false on a write error. */
bool tc_bench_csv_close(FILE *f);
/* One metadata line: "# key: value". */
void tc_bench_meta(FILE *f, const char *key, const char *fmt, ...) TC_PRINTF(3, 4);
/* The metadata every CSV starts with: date (UTC), git revision, compiler, flags, CPU model,
 * kernel, and the calibration (tc_bench_calibrate, measured now if it was not yet).
 * Experiments add tc_bench_meta_policy when an era applies, their own lines with
 * tc_bench_meta, then the header row. */
void tc_bench_meta_standard(FILE *f);
/* The "era" line, the policy's name and every field of the policy table (tc_policy_format),
 * and the "era_set" line, the fields that differ from the preset ("none"), so an ablated run
 * says exactly what it switched. */
void tc_bench_meta_policy(FILE *f, const tc_policy *pol);

/* What an experiment's main returns last: `rc`, or 2 with a one-line message when standard
 * output could not be written (a full disk, a closed pipe), so no table is lost silently.
 * It ends the run's output files (tc_out_finish): in place with status 0, else discarded. */
int tc_bench_exit_status(const char *prog, int rc);
/* Setup that cannot go on without its memory (a payload being built): prints
 * "PROG: out of memory (WHAT)" and exits 1. */
TC_NORETURN void tc_bench_oom(const char *prog, const char *what);

#endif
