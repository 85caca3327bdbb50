#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include "harness.h"

#include "alloc/faults.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef TC_BENCH_SOURCE_DIR
#define TC_BENCH_SOURCE_DIR "."
#endif
#ifndef TC_BENCH_CFLAGS
#define TC_BENCH_CFLAGS "unknown"
#endif

uint64_t tc_bench_now_ns(void)
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

tc_bench_summary tc_bench_summarize(double *samples, size_t n)
{
    TC_CHECK(n > 0);
    qsort(samples, n, sizeof *samples, cmp_double);
    tc_bench_summary s = {quantile(samples, n, 0.5), quantile(samples, n, 0.25), quantile(samples, n, 0.75), n};
    return s;
}

double tc_bench_clock_overhead_ns(void)
{
    static double overhead = -1;
    if (overhead < 0) {
        enum { PAIRS = 1001 };
        static double d[PAIRS];
        for (int i = 0; i < PAIRS; i++) {
            uint64_t t0 = tc_bench_now_ns();
            uint64_t t1 = tc_bench_now_ns();
            d[i] = (double)(t1 - t0);
        }
        overhead = tc_bench_summarize(d, PAIRS).median;
    }
    return overhead;
}

void tc_bench_region_begin(tc_bench_region *r, tc_perf *perf)
{
    r->perf = perf;
    r->faults0 = (long)tc_faults_minor();
    if (perf)
        tc_perf_start(perf);
    r->t0 = tc_bench_now_ns();
}

tc_bench_sample tc_bench_region_end(tc_bench_region *r)
{
    uint64_t t1 = tc_bench_now_ns();
    tc_bench_sample s = {0};
    if (r->perf)
        s.counts = tc_perf_stop(r->perf);
    s.minor_faults = (long)tc_faults_minor() - r->faults0;
    double ns = (double)(t1 - r->t0) - tc_bench_clock_overhead_ns();
    s.ns = ns > 0 ? ns : 0;
    return s;
}

bool tc_bench_repeat(const tc_bench_op *op, int warmup, int repeats, tc_perf *perf, tc_bench_stats *out)
{
    TC_CHECK(op->run != NULL && warmup >= 0 && repeats > 0);
    double *ns = malloc((size_t)repeats * sizeof *ns);
    if (!ns) {
        errno = ENOMEM;
        return false;
    }
    long faults = 0;
    uint64_t counts[TC_PERF_NEVENTS] = {0};
    bool counted = perf != NULL;
    for (int i = -warmup; i < repeats; i++) {
        if (op->before)
            op->before(op->ctx);
        tc_bench_region r;
        tc_bench_region_begin(&r, perf);
        op->run(op->ctx);
        tc_bench_sample s = tc_bench_region_end(&r);
        if (op->after)
            op->after(op->ctx);
        if (i < 0)
            continue;
        ns[i] = s.ns;
        faults += s.minor_faults;
        counted = counted && s.counts.measured;
        for (int e = 0; e < TC_PERF_NEVENTS; e++)
            counts[e] += s.counts.value[e];
    }
    out->ns = tc_bench_summarize(ns, (size_t)repeats);
    out->minor_faults = (double)faults / repeats;
    memset(&out->counts, 0, sizeof out->counts);
    out->counts.measured = counted;
    for (int e = 0; counted && e < TC_PERF_NEVENTS; e++)
        out->counts.value[e] = (counts[e] + (uint64_t)repeats / 2) / (uint64_t)repeats;
    free(ns);
    return true;
}

/* ---- calibration ------------------------------------------------------------------------- */

enum { FAULT_PAGES = 256, FAULT_RUNS = 15, MAP_RUNS = 101, MAP_BYTES = 1 << 20 };

/* One run: touch every page of a fresh mapping, then touch them again. The second pass
 * costs the same loop, stores and TLB refills without the faults, so the difference is
 * the faults alone; it is divided by the faults getrusage saw (not by the pages), so a
 * huge page or a fault-around cannot make one fault look cheap. Negative when no fault. */
static double fault_run(size_t page)
{
    size_t bytes = FAULT_PAGES * page;
    /* cppcheck-suppress invalidFunctionArg ; MAP_ANONYMOUS takes fd -1 (cppcheck's posix.cfg wants >= 0) */
    volatile char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == (volatile char *)MAP_FAILED)
        return -1;
    long f0 = (long)tc_faults_minor();
    uint64_t t0 = tc_bench_now_ns();
    for (size_t o = 0; o < bytes; o += page)
        m[o] = 1;
    uint64_t t1 = tc_bench_now_ns();
    long faults = (long)tc_faults_minor() - f0;
    for (size_t o = 0; o < bytes; o += page)
        m[o] = 2;
    uint64_t t2 = tc_bench_now_ns();
    munmap((void *)m, bytes);
    double ns = (double)(t1 - t0) - (double)(t2 - t1);
    return faults > 0 && ns > 0 ? ns / (double)faults : -1;
}

static double map_run(void)
{
    uint64_t t0 = tc_bench_now_ns();
    /* cppcheck-suppress invalidFunctionArg ; MAP_ANONYMOUS takes fd -1 (cppcheck's posix.cfg wants >= 0) */
    void *m = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    munmap(m, MAP_BYTES);
    double ns = (double)(tc_bench_now_ns() - t0) - tc_bench_clock_overhead_ns();
    return ns > 0 ? ns : 0;
}

const tc_bench_calibration *tc_bench_calibrate(void)
{
    static tc_bench_calibration cal;
    static bool done;
    if (done)
        return &cal;
    done = true;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    double faults[FAULT_RUNS], maps[MAP_RUNS];
    size_t nf = 0, nm = 0;
    fault_run(page); /* warm-up: the first mmap also builds page tables above the leaves */
    for (int i = 0; i < FAULT_RUNS; i++) {
        double ns = fault_run(page);
        if (ns > 0)
            faults[nf++] = ns;
    }
    map_run();
    for (int i = 0; i < MAP_RUNS; i++) {
        double ns = map_run();
        if (ns >= 0)
            maps[nm++] = ns;
    }
    cal.fault_pages = FAULT_PAGES;
    cal.measured = nf > FAULT_RUNS / 2 && nm > MAP_RUNS / 2;
    if (cal.measured) {
        cal.fault_ns = tc_bench_summarize(faults, nf);
        cal.mmap_munmap_ns = tc_bench_summarize(maps, nm);
    }
    return &cal;
}

/* ---- command lines -------------------------------------------------------------------------- */

bool tc_bench_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* ---- CSV ----------------------------------------------------------------------------------- */

FILE *tc_bench_csv_open(const char *path)
{
    if (strcmp(path, "-") == 0)
        return stdout;
    return fopen(path, "w");
}

bool tc_bench_csv_close(FILE *f)
{
    bool ok = fflush(f) == 0 && !ferror(f);
    if (f != stdout)
        ok = fclose(f) == 0 && ok;
    return ok;
}

void tc_bench_meta(FILE *f, const char *key, const char *fmt, ...)
{
    fprintf(f, "# %s: ", key);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
}

/* The first line of a command's output, trailing newline removed; "unknown" if none. */
static void first_line_of(const char *cmd, char *out, size_t cap)
{
    (void)snprintf(out, cap, "unknown"); /* truncated is fine: it is metadata */
    /* cmd is a constant of this file (git describe of the source directory) */
    FILE *p = popen(cmd, "r"); /* NOLINT(cert-env33-c): a fixed command, see above */
    if (!p)
        return;
    char line[256];
    if (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            (void)snprintf(out, cap, "%s", line);
    }
    pclose(p);
}

static void cpu_model(char *out, size_t cap)
{
    (void)snprintf(out, cap, "unknown"); /* truncated is fine: it is metadata */
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *v = strchr(line, ':');
            if (v) {
                v += 1 + strspn(v + 1, " \t");
                (void)snprintf(out, cap, "%.*s", (int)strcspn(v, "\n"), v);
            }
            break;
        }
    }
    (void)fclose(f); /* read only */
}

void tc_bench_meta_standard(FILE *f)
{
    char buf[256];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    (void)strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm); /* 20 bytes of 256 */
    tc_bench_meta(f, "date", "%s", buf);
    first_line_of("git -C '" TC_BENCH_SOURCE_DIR "' describe --always --dirty 2>/dev/null", buf, sizeof buf);
    tc_bench_meta(f, "git", "%s", buf);
#if defined(__clang__)
    tc_bench_meta(f, "compiler", "%s", __VERSION__);
#elif defined(__GNUC__)
    tc_bench_meta(f, "compiler", "gcc %s", __VERSION__);
#endif
    tc_bench_meta(f, "flags", "%s", TC_BENCH_CFLAGS);
    cpu_model(buf, sizeof buf);
    tc_bench_meta(f, "cpu", "%s (%ld online)", buf, sysconf(_SC_NPROCESSORS_ONLN));
    struct utsname u;
    if (uname(&u) == 0)
        tc_bench_meta(f, "kernel", "%s %s %s", u.sysname, u.release, u.machine);
    const tc_bench_calibration *cal = tc_bench_calibrate();
    if (!cal->measured) {
        tc_bench_meta(f, "calibration", "not measured (mmap failed)");
        return;
    }
    tc_bench_meta(f, "fault_ns", "%.1f (one first-touch minor fault of a fresh anonymous %ld-byte page; median of %zu runs of %zu pages, IQR %.1f-%.1f)",
                  cal->fault_ns.median, sysconf(_SC_PAGESIZE), cal->fault_ns.n, cal->fault_pages, cal->fault_ns.q1,
                  cal->fault_ns.q3);
    tc_bench_meta(f, "mmap_munmap_ns", "%.0f (mmap + munmap of an untouched %d KiB region; median of %zu, IQR %.0f-%.0f)",
                  cal->mmap_munmap_ns.median, MAP_BYTES >> 10, cal->mmap_munmap_ns.n, cal->mmap_munmap_ns.q1,
                  cal->mmap_munmap_ns.q3);
}

void tc_bench_meta_policy(FILE *f, const tc_policy *pol)
{
    tc_bench_meta(f, "era",
                  "%s (heap_table %s, frag_rule %s, gc_trigger %s, gc_rules %s, move_live_frags %s, shrink %s, "
                  "gc_stress %s, min_heap_size %llu, fullsweep_after %llu, sbct %zu, mseg_cache %u)",
                  pol->name, pol->heap_table == TC_HEAP_TABLE_R10B ? "r10b" : "modern",
                  pol->frag_rule == TC_FRAG_R10B ? "r10b" : "modern",
                  pol->trigger == TC_GC_AT_SCHEDULE ? "at-schedule" : "after-bif",
                  pol->gc_rules == TC_GC_RULES_R10B ? "r10b" : "modern", pol->move_live_frags ? "on" : "off",
                  pol->shrink ? "on" : "off", pol->gc_stress ? "on" : "off", (unsigned long long)pol->min_heap_size,
                  (unsigned long long)pol->fullsweep_after, pol->mem.sbct, pol->mem.cache_slots);
}

void tc_bench_progress(const char *fmt, ...)
{
    if (!isatty(STDERR_FILENO))
        return;
    fputs("\r\033[K", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    (void)fflush(stderr); /* a progress line: nothing to do if it is lost */
}

void tc_bench_progress_end(void)
{
    if (isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
}

int tc_bench_exit_status(const char *prog, int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: cannot write standard output: %s\n", prog, strerror(errno));
        return 2;
    }
    return rc;
}
