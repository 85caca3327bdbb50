/*
 * check_experiments_harness — the measuring instrument itself: regions and repeats, the fault and mmap calibration, hardware counters (whichever way
 * this machine answers), and the sampling profiler's attribution, overflow accounting and
 * cross-check table. Nothing here asserts how long anything took.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, mkdtemp */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"
#include "harness.h"
#include "output.h"
#include "perf.h"
#include "profiler.h"

/* Kept out of line and unrenamed (no clones), so the profiler sees them by these names. */
#if defined(__clang__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE __attribute__((noipa))
#endif

/* Reads the whole of f (rewound) into a static buffer. */
static const char *slurp(FILE *f)
{
    static char buf[16384];
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    return buf;
}

/* ---- regions and repeats ------------------------------------------------------------- */

START_TEST(region_counts_fresh_page_faults)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = 64 * page;
    /* cppcheck-suppress invalidFunctionArg ; MAP_ANONYMOUS takes fd -1 (cppcheck's posix.cfg wants >= 0) */
    char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    tc_bench_region r;
    tc_bench_region_begin(&r, NULL);
    for (size_t o = 0; o < bytes; o += page)
        ((volatile char *)m)[o] = 1;
    tc_bench_sample s = tc_bench_region_end(&r);
    munmap(m, bytes);
    ck_assert_int_ge(s.minor_faults, 1); /* at least one: a huge page may serve all 64 */
    ck_assert(s.ns >= 0 && isfinite(s.ns));
    ck_assert(!s.counts.measured); /* no perf session given */
}
END_TEST

typedef struct calls {
    int before, run, after;
} calls;

static void count_before(void *ctx) { ((calls *)ctx)->before++; }
static void count_run(void *ctx) { ((calls *)ctx)->run++; }
static void count_after(void *ctx)
{
    calls *c = ctx;
    c->after++;
    ck_assert_int_eq(c->after, c->run); /* after follows its own run */
}

START_TEST(repeat_runs_warmup_then_repeats)
{
    calls c = {0};
    tc_bench_op op = {count_before, count_run, count_after, &c};
    tc_bench_stats st;
    ck_assert(tc_bench_repeat(&op, 2, 5, NULL, &st));
    ck_assert_int_eq(c.before, 7);
    ck_assert_int_eq(c.run, 7);
    ck_assert_int_eq(c.after, 7);
    ck_assert_uint_eq(st.ns.n, 5);
    ck_assert(st.ns.q1 <= st.ns.median && st.ns.median <= st.ns.q3);
    ck_assert(st.minor_faults >= 0);
    ck_assert(!st.counts.measured);

    tc_bench_op bare = {NULL, count_run, NULL, &c};
    ck_assert(tc_bench_repeat(&bare, 0, 3, NULL, &st));
    ck_assert_int_eq(c.run, 10);
}
END_TEST

/* ---- calibration and metadata --------------------------------------------------------- */

START_TEST(calibration_is_positive_and_finite)
{
    const tc_bench_calibration *cal = tc_bench_calibrate();
    ck_assert(cal->measured);
    ck_assert(isfinite(cal->fault_ns.median) && cal->fault_ns.median > 0);
    ck_assert(cal->fault_ns.q1 <= cal->fault_ns.median && cal->fault_ns.median <= cal->fault_ns.q3);
    ck_assert(isfinite(cal->mmap_munmap_ns.median) && cal->mmap_munmap_ns.median > 0);
    ck_assert(cal->mmap_munmap_ns.q1 <= cal->mmap_munmap_ns.median);
    ck_assert_uint_gt(cal->fault_pages, 0);
    ck_assert_ptr_eq(tc_bench_calibrate(), cal); /* cached */
}
END_TEST

START_TEST(metadata_has_calibration_and_era)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    tc_bench_meta_standard(f);
    tc_policy pol = tc_preset_ok("otp25");
    tc_bench_meta_policy(f, &pol);
    const char *text = slurp(f);
    (void)fclose(f); /* read back only */
    for (const char *key = "# date: \0# git: \0# flags: \0# cpu: \0# kernel: \0# fault_ns: \0# mmap_munmap_ns: \0";
         *key; key += strlen(key) + 1)
        ck_assert_msg(strstr(text, key) != NULL, "missing '%s' in:\n%s", key, text);
    ck_assert_ptr_nonnull(strstr(text, "# era: otp25 (heap_table=fib_plus1, "));
    /* every field of the table, by name */
    for (unsigned k = 0; k < tc_policy_field_count(); k++) {
        char want[96];
        (void)snprintf(want, sizeof want, "%s=", tc_policy_field_at(k)->name);
        ck_assert_msg(strstr(text, want) != NULL, "missing '%s' in:\n%s", want, text);
    }
    ck_assert_ptr_nonnull(strstr(text, "gc_trigger=bif, "));
    ck_assert_ptr_nonnull(strstr(text, "# era_set: none\n"));
    pol.shrink = false;
    pol.copy_out = TC_COPY_OUT_SHALLOW_FAST;
    f = tmpfile();
    ck_assert_ptr_nonnull(f);
    tc_bench_meta_policy(f, &pol);
    text = slurp(f);
    (void)fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "# era_set: shrink=off, copy_out=shallow_fast: a PROPOSAL, not the VM\n"));
}
END_TEST

/* ---- hardware counters ------------------------------------------------------------- */

START_TEST(perf_counts_or_says_why_not)
{
    tc_perf p;
    bool available = tc_perf_open(&p);
    ck_assert(available == p.available);
    tc_perf_start(&p);
    volatile uint64_t x = 0;
    for (int i = 0; i < 100000; i++)
        x += (uint64_t)i;
    tc_perf_counts c = tc_perf_stop(&p);
    ck_assert_uint_eq(x, UINT64_C(4999950000));
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    tc_perf_csv_values(f, &c);
    fputc('\n', f);
    tc_perf_meta(f, &p);
    const char *text = slurp(f);
    if (available) {
        for (int e = 0; e < TC_PERF_NEVENTS; e++)
            ck_assert_int_ge(p.fd[e], 0);
        if (c.measured) /* a multiplexed group is not measured: that is allowed */
            ck_assert(c.value[TC_PERF_CYCLES] > 0 && c.value[TC_PERF_INSTRUCTIONS] > 0);
        else
            ck_assert_ptr_nonnull(strstr(text, "n/a,n/a,n/a\n"));
        ck_assert_ptr_nonnull(strstr(text, "# perf_counters: " TC_PERF_CSV_HEADER));
    } else {
        ck_assert(!c.measured);
        ck_assert(p.why[0] != '\0');
        for (int e = 0; e < TC_PERF_NEVENTS; e++)
            ck_assert_int_eq(p.fd[e], -1);
        char *nl = strchr(text, '\n');
        ck_assert_ptr_nonnull(nl);
        *nl = '\0'; /* the first line alone; the rest is read after it below */
        ck_assert_str_eq(text, "n/a,n/a,n/a");
        ck_assert_ptr_nonnull(strstr(text + strlen(text) + 1, "# perf_counters: not measured (n/a): "));
    }
    (void)fclose(f); /* read back only */
    /* A region with a session measures exactly when the session does. */
    tc_bench_region r;
    tc_bench_region_begin(&r, &p);
    x += 1;
    tc_bench_sample s = tc_bench_region_end(&r);
    ck_assert(!s.counts.measured || available);
    tc_perf_close(&p);
    ck_assert(!p.available);
}
END_TEST

/* ---- the command line -------------------------------------------------------------- */

static const char *const cli_shapes[] = {"ints", "floats"};
static const tc_bench_cli_extra cli_extras[] = {
    {"flag", NULL, "a switch", {0}},
    {"name", "NAME", "a value", {0}},
    {"slots", "N", NULL, {"slots", 0, 8, NULL}},
};
static const tc_bench_cli_spec cli_spec = {
    .prog = "prog",
    .about = "A test.",
    .era = "all",
    .era_all = true,
    .len = {"length", 10, 100, "50"},
    .iterations = {"calls", 1, 1000, NULL},
    .shapes = cli_shapes,
    .nshapes = 2,
    .shape_dflt = "ints",
    .quick = "less",
    .csv = "rows",
    .extras = cli_extras,
    .nextras = 3,
};

/* Parses a NULL-terminated command line; the stderr it wrote goes to *err (a static buffer). */
static int cli_parse(tc_bench_cli *c, const char **err, const char *arg, ...)
{
    char *argv[32] = {(char *)"prog"};
    int argc = 1;
    va_list ap;
    va_start(ap, arg);
    for (const char *a = arg; a && argc < 31; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fflush(stderr), 0);
    int saved = dup(STDERR_FILENO);
    ck_assert_int_ge(dup2(fileno(f), STDERR_FILENO), 0);
    int rc = tc_bench_cli_parse(c, &cli_spec, argc, argv);
    ck_assert_int_eq(fflush(stderr), 0);
    ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
    ck_assert_int_eq(close(saved), 0);
    *err = slurp(f);
    ck_assert_int_eq(fclose(f), 0);
    return rc;
}

START_TEST(cli_parses_shared_and_own_switches)
{
    tc_bench_cli c;
    const char *err;
    ck_assert_int_eq(cli_parse(&c, &err, (const char *)NULL), TC_BENCH_CLI_RUN);
    ck_assert_int_eq(c.neras, 3); /* every preset, in the table's order */
    ck_assert_str_eq(c.eras[0], "r10b");
    ck_assert_str_eq(c.eras[1], "r13b");
    ck_assert_str_eq(c.eras[2], "otp25");
    ck_assert(c.len == 0 && c.iterations == 0 && c.shape == -1 && c.nsets == 0);
    ck_assert(!c.quick && c.csv == NULL && !c.extra[0].given && !c.extra[2].given);

    ck_assert_int_eq(cli_parse(&c, &err, "--era", "otp25", "--len", "10", "--shape", "floats", "--iterations=1000",
                               "--quick", "--csv", "-", "--gc-trigger", "schedule", "--no-shrink", "--segment-cache",
                               "0", "--set", "min_heap_size=4096", "--set", "tenure=flip", "--flag", "--name", "x y",
                               "--slots", "8", (const char *)NULL),
                     TC_BENCH_CLI_RUN);
    ck_assert_str_eq(err, "");
    ck_assert_int_eq(c.neras, 1);
    ck_assert_str_eq(c.eras[0], "otp25");
    ck_assert(c.len == 10 && c.iterations == 1000 && c.shape == 1 && c.quick && c.nsets == 5);
    ck_assert_str_eq(c.csv, "-");
    ck_assert(c.extra[0].given && c.extra[1].given && c.extra[2].given);
    ck_assert_str_eq(c.extra[1].value, "x y");
    ck_assert_int_eq(c.extra[2].number, 8);
    tc_policy pol = tc_preset_ok("otp25");
    tc_bench_cli_policy(&c, &pol);
    ck_assert(pol.gc_trigger == TC_GC_AT_SCHEDULE && !pol.shrink && pol.mem.cache_slots == 0 && pol.min_heap_size == 4096);
    ck_assert(pol.tenure == TC_TENURE_FLIP);
    ck_assert_uint_eq(pol.mem.sbct, tc_preset_ok("otp25").mem.sbct); /* not given: the era's */
    /* applied in order: the last one given wins */
    ck_assert_int_eq(cli_parse(&c, &err, "--no-shrink", "--set", "shrink=on", (const char *)NULL), TC_BENCH_CLI_RUN);
    pol = tc_preset_ok("r10b");
    tc_bench_cli_policy(&c, &pol);
    ck_assert(pol.shrink);
}
END_TEST

START_TEST(cli_rejects_in_one_line)
{
    tc_bench_cli c;
    const char *err;
    ck_assert_int_eq(cli_parse(&c, &err, "--len", "9", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: --len: expected an integer in 10..100, got '9'; try 'prog --help'\n");
    ck_assert_int_eq(cli_parse(&c, &err, "--len", "101", (const char *)NULL), 2);
    ck_assert_int_eq(cli_parse(&c, &err, "--len", "1e2", (const char *)NULL), 2);
    ck_assert_int_eq(cli_parse(&c, &err, "--slots", "9", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: --slots: expected an integer in 0..8, got '9'; try 'prog --help'\n");
    ck_assert_int_eq(cli_parse(&c, &err, "--shape", "cube", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: --shape: expected ints or floats, got 'cube'; try 'prog --help'\n");
    ck_assert_int_eq(cli_parse(&c, &err, "--era", "r9\n", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: --era: expected r10b, r13b, otp25 or all, got 'r9\\x0a'; try 'prog --help'\n");
    ck_assert_int_eq(cli_parse(&c, &err, "--set", "shrink=maybe", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: --set shrink: expected on or off, got 'maybe'; try 'prog --help'\n");
    ck_assert_int_eq(cli_parse(&c, &err, "--set", "gc_trigger=later", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: --set gc_trigger: expected schedule or bif, got 'later'; try 'prog --help'\n");
    ck_assert_int_eq(cli_parse(&c, &err, "--gc-trigger", "later", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: --gc-trigger: expected schedule or bif, got 'later'; try 'prog --help'\n");
    ck_assert_int_eq(cli_parse(&c, &err, "--set", "mseg_cache=1001", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: --set mseg_cache: expected an integer in 0..1000, got '1001'; try 'prog --help'\n");
    ck_assert_int_eq(cli_parse(&c, &err, "--set", "no_such_field=1", (const char *)NULL), 2);
    ck_assert(strstr(err, "prog: --set: expected NAME=VALUE with NAME one of heap_table, ") == err);
    ck_assert_int_eq(cli_parse(&c, &err, "--set", "shrink", (const char *)NULL), 2);
    ck_assert(strstr(err, "got 'shrink'; try 'prog --help'\n") != NULL);
    ck_assert_int_eq(cli_parse(&c, &err, "--bogus", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: unknown option '--bogus'; try 'prog --help'\n");
    ck_assert_int_eq(cli_parse(&c, &err, "--quick", "-x", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: unknown option '-x'; try 'prog --help'\n");
    ck_assert_int_eq(cli_parse(&c, &err, "--quick=1", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: a value given to an option that takes none: '--quick=1'; try 'prog --help'\n");
    ck_assert_int_eq(cli_parse(&c, &err, "--len", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: a value is missing after '--len'; try 'prog --help'\n");
    ck_assert_int_eq(cli_parse(&c, &err, "stray", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: unexpected argument 'stray'; try 'prog --help'\n");
    /* Shared switches the binary does not take are unknown to it. */
    ck_assert_int_eq(cli_parse(&c, &err, "--repeats", "1", (const char *)NULL), 2);
    ck_assert_str_eq(err, "prog: unknown option '--repeats'; try 'prog --help'\n");
}
END_TEST

/* ---- the profiler ------------------------------------------------------------------ */

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void busy_inner(volatile uint64_t *x);
void busy_outer(double seconds);

OUT_OF_LINE void busy_inner(volatile uint64_t *x)
{
    for (int i = 0; i < 200000; i++)
        *x = *x * 6364136223846793005u + 1442695040888963407u;
}

/* CPU time, not wall time: the box may be busy elsewhere. */
OUT_OF_LINE void busy_outer(double seconds)
{
    volatile uint64_t x = 1;
    double end = cpu_seconds() + seconds;
    while (cpu_seconds() < end)
        busy_inner(&x);
}

START_TEST(profiler_attributes_busy_loop_by_stack)
{
    tc_prof *p;
    ck_assert_int_eq(tc_prof_new(1000, 0, &p), TC_OK);
    ck_assert_int_eq(tc_prof_start(p), TC_OK);
    tc_prof *other;
    ck_assert_int_eq(tc_prof_new(100, 16, &other), TC_OK);
    tc_result busy = tc_prof_start(other); /* one SIGPROF per process */
    tc_prof_report running;
    tc_result while_running = tc_prof_report_phases(p, NULL, 0, &running);
    busy_outer(0.3);
    tc_prof_stop(p);
    tc_prof_free(other);
    ck_assert_int_eq(busy, TC_EBADARG);
    ck_assert_int_eq(while_running, TC_EBADARG);

    static const tc_prof_phase_map both[] = {{TC_PROF_FN(busy_outer), "outer"}, {TC_PROF_FN(busy_inner), "inner"}};
    static const tc_prof_phase_map outer_only[] = {{TC_PROF_FN(busy_outer), "outer"}};
    tc_prof_report r;
    ck_assert_int_eq(tc_prof_report_phases(p, both, 2, &r), TC_OK);
    tc_prof_print(stderr, &r);
    ck_assert_uint_ge(r.samples, 5);
    ck_assert_uint_eq(r.dropped, 0);
    ck_assert_uint_eq(r.nphases, 3);
    ck_assert_str_eq(r.phase[0].phase, "outer");
    ck_assert_str_eq(r.phase[1].phase, "inner");
    ck_assert_str_eq(r.phase[2].phase, "loop");
    ck_assert_uint_eq(r.phase[0].samples + r.phase[1].samples + r.phase[2].samples, r.samples);
    /* The leaf-most listed function decides. */
    ck_assert_msg(r.phase[1].share > 0.5, "inner share %.2f", r.phase[1].share);
    ck_assert_uint_ge(r.ntop, 1);
    ck_assert_str_eq(r.top[0].name, "busy_inner");
    ck_assert_str_eq(r.top[0].phase, "inner");
    ck_assert(r.cpu_user_s + r.cpu_sys_s > 0 && r.effective_hz > 0);

    /* Not listed: the caller's phase, found walking up. */
    ck_assert_int_eq(tc_prof_report_phases(p, outer_only, 1, &r), TC_OK);
    ck_assert_msg(r.phase[0].share > 0.5, "outer share %.2f", r.phase[0].share);
    /* Nothing listed: loop, and the leaf is named. */
    ck_assert_int_eq(tc_prof_report_phases(p, NULL, 0, &r), TC_OK);
    ck_assert_uint_eq(r.nphases, 1);
    ck_assert_double_eq(r.phase[0].share, 1.0);
    ck_assert_str_eq(r.top[0].name, "busy_inner");
    tc_prof_free(p);
}
END_TEST

void busy_tail(double seconds);

/* Ends in a call to busy_outer, which the compiler makes a jump when it optimises: its frame
 * is gone while busy_outer runs, and only its caller's call instruction names it. */
OUT_OF_LINE void busy_tail(double seconds) { busy_outer(seconds); }

START_TEST(profiler_credits_a_tail_caller)
{
    tc_prof *p;
    ck_assert_int_eq(tc_prof_new(1000, 0, &p), TC_OK);
    ck_assert_int_eq(tc_prof_start(p), TC_OK);
    busy_tail(0.3);
    tc_prof_stop(p);
    static const tc_prof_phase_map tail_only[] = {{TC_PROF_FN(busy_tail), "tail"}};
    tc_prof_report r;
    ck_assert_int_eq(tc_prof_report_phases(p, tail_only, 1, &r), TC_OK);
    ck_assert_uint_ge(r.samples, 5);
    ck_assert_str_eq(r.phase[0].phase, "tail");
    ck_assert_msg(r.phase[0].share > 0.5, "tail share %.2f", r.phase[0].share);
    /* Listed below it, the callee still decides first. */
    static const tc_prof_phase_map with_inner[] = {{TC_PROF_FN(busy_tail), "tail"}, {TC_PROF_FN(busy_inner), "inner"}};
    ck_assert_int_eq(tc_prof_report_phases(p, with_inner, 2, &r), TC_OK);
    ck_assert_msg(r.phase[1].share > 0.5, "inner share %.2f", r.phase[1].share);
    tc_prof_free(p);
}
END_TEST

START_TEST(profiler_full_buffer_counts_drops)
{
    tc_prof *p;
    ck_assert_int_eq(tc_prof_new(1000, 4, &p), TC_OK);
    ck_assert_int_eq(tc_prof_start(p), TC_OK);
    volatile uint64_t x = 1;
    double give_up = cpu_seconds() + 20;
    while (tc_prof_recorded(p) + tc_prof_dropped(p) < 10 && cpu_seconds() < give_up)
        busy_inner(&x);
    tc_prof_stop(p);
    uint64_t recorded = tc_prof_recorded(p), dropped = tc_prof_dropped(p);
    ck_assert_uint_eq(recorded, 4);
    ck_assert_uint_ge(dropped, 6);
    tc_prof_report r;
    ck_assert_int_eq(tc_prof_report_phases(p, NULL, 0, &r), TC_OK);
    ck_assert_uint_eq(r.samples, 4);
    ck_assert_uint_eq(r.dropped, dropped);
    tc_prof_free(p);
}
END_TEST

START_TEST(profiler_too_many_phases)
{
    static char names[TC_PROF_MAX_PHASES][8];
    tc_prof_phase_map table[TC_PROF_MAX_PHASES];
    for (int i = 0; i < TC_PROF_MAX_PHASES; i++) {
        ck_assert_int_lt(snprintf(names[i], sizeof names[i], "p%d", i), (int)sizeof names[i]);
        table[i] = (tc_prof_phase_map){TC_PROF_FN(busy_inner), names[i]};
    }
    tc_prof *p;
    ck_assert_int_eq(tc_prof_new(0, 1, &p), TC_OK);
    tc_prof_report r;
    ck_assert_int_eq(tc_prof_report_phases(p, table, TC_PROF_MAX_PHASES, &r), TC_EBADARG);
    ck_assert_int_eq(tc_prof_report_phases(p, table, TC_PROF_MAX_PHASES - 1, &r), TC_OK);
    ck_assert_uint_eq(r.nphases, TC_PROF_MAX_PHASES);
    ck_assert_uint_eq(r.samples, 0);
    tc_prof_free(p);
}
END_TEST

/* A report as tc_prof_report_phases would make it, for the output functions. */
static tc_prof_report made_up_report(void)
{
    tc_prof_report r = {0};
    r.phase[0] = (tc_prof_phase_count){"copy", 50, 0.5};
    r.phase[1] = (tc_prof_phase_count){"size", 25, 0.25};
    r.phase[2] = (tc_prof_phase_count){"loop", 25, 0.25};
    r.nphases = 3;
    r.samples = 100;
    r.hz = 1000;
    return r;
}

START_TEST(crosscheck_side_by_side)
{
    tc_prof_report r = made_up_report();
    tc_prof_counter_phase c[] = {{"copy", 600}, {"size", 200}, {"gc_copy", 200}};
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    tc_prof_crosscheck(f, true, &r, c, 3);
    ck_assert_str_eq(slurp(f), "phase,profiler_share,counter_share,difference_pp\n"
                               "copy,50.00,60.00,-10.00\n"
                               "size,25.00,20.00,5.00\n"
                               "loop,25.00,n/a,n/a\n"
                               "gc_copy,n/a,20.00,n/a\n");
    (void)fclose(f); /* read back only */
    f = tmpfile();
    ck_assert_ptr_nonnull(f);
    tc_prof_crosscheck(f, false, &r, c, 3);
    const char *text = slurp(f);
    ck_assert_ptr_nonnull(strstr(text, "-10.0 pp"));
    ck_assert_ptr_nonnull(strstr(text, "gc_copy"));
    (void)fclose(f); /* read back only */
}
END_TEST

START_TEST(profile_csv_named_and_written)
{
    char path[256];
    tc_prof_named_path("eptest", path, sizeof path);
    ck_assert_str_eq(path, "results/profile-eptest.csv");

    char dir[] = "/tmp/tc-prof-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_lt(snprintf(path, sizeof path, "%s/results/profile-test.csv", dir), (int)sizeof path);
    tc_prof_report r = made_up_report();
    tc_policy pol = tc_preset_ok("r10b");
    ck_assert(tc_prof_write_csv(&r, path, "check_experiments_harness", &pol));
    ck_assert_int_ne(access(path, F_OK), 0); /* pending until the run ends well (output.h) */
    ck_assert_int_eq(tc_bench_exit_status("check_experiments_harness", 0), 0);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    const char *text = slurp(f);
    (void)fclose(f); /* read back only */
    ck_assert_ptr_nonnull(strstr(text, "# era: r10b ("));
    ck_assert_ptr_nonnull(strstr(text, "# profiled: check_experiments_harness\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nphase,samples,share\ncopy,50,0.5000\nsize,25,0.2500\nloop,25,0.2500\n"));
    unlink(path);
    ck_assert_int_lt(snprintf(path, sizeof path, "%s/results", dir), (int)sizeof path);
    rmdir(path);
    rmdir(dir);
}
END_TEST

/* A device written in place (/dev/full) fails to close whatever the length: a length just past
 * stdio's buffer fails its write mid-run, after which fclose flushes nothing and returns 0. */
START_TEST(device_output_failure_seen_at_close)
{
    if (access("/dev/full", W_OK) != 0)
        return; /* no such device here: nothing to write to */
    for (size_t n = 4090; n <= 4100; n++) {
        FILE *f = tc_out_open("/dev/full");
        ck_assert_ptr_nonnull(f);
        for (size_t i = 0; i < n; i++)
            (void)fputc('x', f);
        ck_assert_msg(!tc_out_close(f), "%zu bytes to /dev/full closed as written", n);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("experiments_harness");
    TCase *tc = tcase_create("harness");
    tcase_add_test(tc, region_counts_fresh_page_faults);
    tcase_add_test(tc, repeat_runs_warmup_then_repeats);
    tcase_add_test(tc, calibration_is_positive_and_finite);
    tcase_add_test(tc, metadata_has_calibration_and_era);
    tcase_add_test(tc, perf_counts_or_says_why_not);
    tcase_add_test(tc, cli_parses_shared_and_own_switches);
    tcase_add_test(tc, cli_rejects_in_one_line);
    tcase_add_test(tc, device_output_failure_seen_at_close);
    suite_add_tcase(s, tc);
    TCase *prof = tcase_create("profiler");
    tcase_set_timeout(prof, 120);
    tcase_add_test(prof, profiler_attributes_busy_loop_by_stack);
    tcase_add_test(prof, profiler_credits_a_tail_caller);
    tcase_add_test(prof, profiler_full_buffer_counts_drops);
    tcase_add_test(prof, profiler_too_many_phases);
    tcase_add_test(prof, crosscheck_side_by_side);
    tcase_add_test(prof, profile_csv_named_and_written);
    suite_add_tcase(s, prof);
    return s;
}

int main(void) { return tc_run_suite(suite()); }
