/*
 * workload.h — the 2005 benchmark's workload on modelled processes (tc_ep_*), shared by
 * eptest, ablate, crossover and breakdown (seeds/2005-send-vs-ets-lookup.txt).
 *
 * One tester process holds Data (a payload of length L) and runs, in the seed's order:
 *   proc1..3   N client-server calls each: {self(), get} to a fresh server holding Data,
 *              which replies {self(), Data};
 *   ets        N inserts of {I, Data} (I = 1..N) into a fresh set table, N overwrites,
 *              then N ets:lookup(T, I) whose results are dropped;
 *   empty      a loop of N iterations.
 * All processes run on one modelled scheduler (heaps/sched.h): a round trip is two real
 * process switches, a send is copy/send.h's path, a lookup is a BIF that builds its result
 * with HAlloc and returns through the era's GC trigger. Each pass is timed as a whole, as
 * the seed's timer:tc does, and counted.
 */
#ifndef TC_EP_WORKLOAD_H
#define TC_EP_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "procs/send.h"
#include "procs/policy.h"

typedef enum tc_ep_shape {
    TC_EP_INTS,    /* lists:seq(1, L) */
    TC_EP_FLOATS,  /* [float(X) || X <- lists:seq(1, L)] */
    TC_EP_TUPLE,   /* list_to_tuple(lists:seq(1, L)) */
    TC_EP_NESTED,  /* {1, {2, ... {L, []} ...}} */
    TC_EP_STRINGS, /* [integer_to_list(X) || X <- lists:seq(1, L)] */
    TC_EP_BINARY,  /* <<0:(8 * L)>>: heap binary up to 64 bytes, refc above */
    TC_EP_SHAPES
} tc_ep_shape;

extern const char *const tc_ep_shape_names[TC_EP_SHAPES];
/* TC_EBADARG for an unknown name. */
tc_result tc_ep_shape_parse(const char *name, tc_ep_shape *out) TC_MUST_CHECK;

typedef struct tc_ep_config {
    long len, iterations;
    tc_ep_shape shape;
    tc_policy policy; /* the era's rules, the send path among them */
    bool hot_key;     /* look up key 1 N times instead of keys 1..N */
    bool keep_result; /* the lookup result stays live until the next lookup */
    bool verify;      /* run the heap verifier after every pass */
    /* Called just outside each timed pass (begin true before, false after), so a profiler
     * can cover exactly one test; NULL for none. */
    void (*pass_hook)(void *ctx, int test, bool begin);
    void *pass_ctx;
} tc_ep_config;

/* The payload of length L of a shape, built in `a` as the seed's expressions build it. */
tc_result tc_ep_build_payload(tc_alloc *a, tc_ep_shape shape, long len, tc_term *out) TC_MUST_CHECK;

/* The era's defaults: its policy (L 1000, N 1000, ints). */
tc_result tc_ep_config_for_era(const char *era, tc_ep_config *out) TC_MUST_CHECK;

enum { TC_EP_PROC1, TC_EP_PROC2, TC_EP_PROC3, TC_EP_INSERT, TC_EP_OVERWRITE, TC_EP_LOOKUP, TC_EP_EMPTY, TC_EP_TESTS };
extern const char *const tc_ep_test_names[TC_EP_TESTS];

/* What one pass did, from counters read before and after it. */
typedef struct tc_ep_counts {
    double us;  /* wall time of the pass, clock overhead subtracted */
    long faults;
    uint64_t gcs, gc_words, words_sized, words_copied, fragments, carriers_mapped, switches, io_polls;
} tc_ep_counts;

/* One eptest:run(N): every test once. TC_EBADARG when --verify found a broken heap. */
tc_result tc_ep_run(const tc_ep_config *cfg, tc_ep_counts out[TC_EP_TESTS]) TC_MUST_CHECK;

/* The question in one number: `repeats` runs, then the median of all round-trip passes and
 * of the lookup passes, and their ratio (lookup / proc: above 1, the lookup loses). The
 * counts are those of the first run's proc2 and lookup passes. */
typedef struct tc_ep_gap {
    double proc_us, lookup_us, ratio;
    tc_ep_counts proc, lookup;
} tc_ep_gap;
tc_result tc_ep_measure_gap(const tc_ep_config *cfg, int repeats, tc_ep_gap *out) TC_MUST_CHECK;

/*
 * The command line the experiment binaries share: --era r10b|otp25|both, --len L,
 * --iterations N, --repeats R, --shape S, --quick, --csv FILE|-, --help. Each binary lists
 * TC_EP_CLI_OPTIONS in its getopt_long table beside its own options and hands every option
 * to tc_ep_cli_option first.
 */
enum { TC_EP_OPT_ERA = 1000, TC_EP_OPT_LEN, TC_EP_OPT_ITERATIONS, TC_EP_OPT_REPEATS, TC_EP_OPT_SHAPE, TC_EP_OPT_QUICK,
       TC_EP_OPT_CSV, TC_EP_OPT_HELP };
#define TC_EP_CLI_OPTIONS                                                                          \
    {"era", required_argument, NULL, TC_EP_OPT_ERA}, {"len", required_argument, NULL, TC_EP_OPT_LEN}, \
        {"iterations", required_argument, NULL, TC_EP_OPT_ITERATIONS},                             \
        {"repeats", required_argument, NULL, TC_EP_OPT_REPEATS},                                   \
        {"shape", required_argument, NULL, TC_EP_OPT_SHAPE}, {"quick", no_argument, NULL, TC_EP_OPT_QUICK}, \
        {"csv", required_argument, NULL, TC_EP_OPT_CSV}, {"help", no_argument, NULL, TC_EP_OPT_HELP}

typedef struct tc_ep_cli {
    const char *prog;
    const char *eras[2]; /* the eras to run, in order */
    int neras;
    long len, iterations, repeats; /* 0: the binary's default */
    tc_ep_shape shape;
    bool shape_set, quick, help;
    const char *csv;
} tc_ep_cli;

/* Both eras, everything else unset. */
void tc_ep_cli_init(tc_ep_cli *c, const char *prog);
/* One option from getopt_long: 0 when it was a shared option and is now set, 2 after
 * printing a one-line message for a bad value, -1 when the option is not a shared one. */
int tc_ep_cli_option(tc_ep_cli *c, int opt, const char *arg);
/* The one-line message for a bad value or argument; returns 2 (the exit code). */
int tc_ep_cli_bad(const tc_ep_cli *c, const char *what, const char *value);
/* After getopt_long: 2 with a message for an unknown option or a stray argument. */
int tc_ep_cli_unknown(const tc_ep_cli *c, int argc, char **argv);
/* The whole command line of a binary with only the shared options: 0, or 2 after a
 * message. --help sets c->help and the binary prints its usage. */
int tc_ep_cli_parse(tc_ep_cli *c, int argc, char **argv);
/* Opens --csv (NULL when not given); on failure prints the message and sets *rc to 2. */
FILE *tc_ep_cli_open_csv(const tc_ep_cli *c, const char *path, int *rc);
/* The payload length at which each era's gap was reported: 1000 for R10B (the 2005 seed),
 * 10000 for OTP 25 (the brief's measurement). */
long tc_ep_gap_len(const char *era);
/* The configuration of one era from the command line, `default_len` when --len is unset. */
tc_result tc_ep_cli_config(const tc_ep_cli *c, int era, long default_len, long default_iterations,
                           tc_ep_config *out) TC_MUST_CHECK;

#endif
