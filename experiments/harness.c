#include "harness.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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

long tc_bench_minor_faults(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

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
    snprintf(out, cap, "unknown");
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    char line[256];
    if (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            snprintf(out, cap, "%s", line);
    }
    pclose(p);
}

static void cpu_model(char *out, size_t cap)
{
    snprintf(out, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *v = strchr(line, ':');
            if (v) {
                v += 1 + strspn(v + 1, " \t");
                snprintf(out, cap, "%.*s", (int)strcspn(v, "\n"), v);
            }
            break;
        }
    }
    fclose(f);
}

void tc_bench_meta_standard(FILE *f)
{
    char buf[256];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
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
    fflush(stderr);
}

void tc_bench_progress_end(void)
{
    if (isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
}
