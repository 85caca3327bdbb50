#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include "harness.h"
#include "output.h"

#include "alloc/faults.h"
#include "heaps/send.h"

#include <errno.h>
#include <getopt.h>
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
#ifndef TC_BENCH_VERSION
#define TC_BENCH_VERSION "unknown"
#endif

void tc_bench_region_begin(tc_bench_region *r, tc_perf *perf)
{
    r->perf = perf;
    r->faults0 = (long)tc_faults_minor();
    if (perf)
        tc_perf_start(perf);
    r->t0 = tc_timing_now_ns();
}

tc_bench_sample tc_bench_region_end(tc_bench_region *r)
{
    uint64_t t1 = tc_timing_now_ns();
    tc_bench_sample s = {0};
    if (r->perf)
        s.counts = tc_perf_stop(r->perf);
    s.minor_faults = (long)tc_faults_minor() - r->faults0;
    s.ns = tc_timing_elapsed_ns(r->t0, t1);
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
    out->ns = tc_timing_summarize(ns, (size_t)repeats);
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
    uint64_t t0 = tc_timing_now_ns();
    for (size_t o = 0; o < bytes; o += page)
        m[o] = 1;
    uint64_t t1 = tc_timing_now_ns();
    long faults = (long)tc_faults_minor() - f0;
    for (size_t o = 0; o < bytes; o += page)
        m[o] = 2;
    uint64_t t2 = tc_timing_now_ns();
    munmap((void *)m, bytes);
    double ns = (double)(t1 - t0) - (double)(t2 - t1);
    return faults > 0 && ns > 0 ? ns / (double)faults : -1;
}

static double map_run(void)
{
    uint64_t t0 = tc_timing_now_ns();
    /* cppcheck-suppress invalidFunctionArg ; MAP_ANONYMOUS takes fd -1 (cppcheck's posix.cfg wants >= 0) */
    void *m = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    munmap(m, MAP_BYTES);
    double ns = (double)(tc_timing_now_ns() - t0) - tc_timing_overhead_ns();
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
        cal.fault_ns = tc_timing_summarize(faults, nf);
        cal.mmap_munmap_ns = tc_timing_summarize(maps, nm);
    }
    return &cal;
}

/* ---- CSV ----------------------------------------------------------------------------------- */

FILE *tc_bench_csv_open(const char *path)
{
    static bool stdout_taken;
    if (strcmp(path, "-") != 0)
        return tc_out_open(path);
    if (stdout_taken) { /* stdout is standard error's now */
        errno = EBUSY;
        return NULL;
    }
    (void)fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        (void)fclose(f);
        return NULL;
    }
    stdout_taken = true;
    return f;
}

bool tc_bench_csv_close(FILE *f) { return tc_out_close(f); }

void tc_bench_meta(FILE *f, const char *key, const char *fmt, ...)
{
    fprintf(f, "# %s: ", key);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): va_start is the line above
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

/* The checkout's revision as git describes it, "unknown" without git or a checkout. */
static void git_revision(char *out, size_t cap)
{
    first_line_of("git -C '" TC_BENCH_SOURCE_DIR "' describe --always --dirty 2>/dev/null", out, cap);
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
    git_revision(buf, sizeof buf);
    tc_bench_meta(f, "git", "%s", buf);
#if defined(__clang__)
    tc_bench_meta(f, "compiler", "%s", __VERSION__);
#elif defined(__GNUC__)
    tc_bench_meta(f, "compiler", "gcc %s", __VERSION__);
#endif
    tc_bench_meta(f, "flags", "%s", TC_BENCH_CFLAGS);
    tc_bench_meta(f, "debug_level", "%d (%s)", TC_DEBUG_LEVEL,
                  TC_DEBUG_LEVEL == 0 ? "no checks" : TC_DEBUG_LEVEL == 1 ? "assertions" : "assertions and verifiers");
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
    char all[4096], changed[1024];
    tc_policy_format(pol, all, sizeof all, changed, sizeof changed);
    tc_bench_meta(f, "era", "%s", all);
    tc_bench_meta(f, "era_set", "%s", changed);
}

void tc_bench_oom(const char *prog, const char *what)
{
    fprintf(stderr, "%s: out of memory (%s)\n", prog, what);
    exit(EXIT_FAILURE);
}

int tc_bench_exit_status(const char *prog, int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: cannot write standard output: %s\n", prog, strerror(errno));
        rc = 2;
    }
    return tc_out_finish(prog, rc);
}

/* ---- command lines -------------------------------------------------------------------------- */

/* A whole decimal argument within [lo, hi]: digits, or '-' and a nonzero digit first (strtol
 * alone also takes leading spaces, '+' and -0); false (nothing stored) for anything else. */
static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    bool plain = (s[0] >= '0' && s[0] <= '9') || (s[0] == '-' && s[1] >= '1' && s[1] <= '9');
    if (errno || !plain || *end != '\0' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* The old spellings of --set, kept for the scripts and habits that use them: --OPTION VALUE
 * is --set FIELD=VALUE, and an option with a fixed value (no metavar) is the flag alone. */
static const struct alias {
    const char *option, *metavar, *field, *value;
} aliases[] = {
    {"gc-trigger", "T", "gc_trigger", NULL},  {"send-path", "P", "send_path", NULL},
    {"copy-out", "C", "copy_out", NULL},      {"no-shrink", NULL, "shrink", "off"},
    {"segment-cache", "N", "mseg_cache", NULL}, {"sbct", "BYTES", "sbct", NULL},
    {"min-heap", "WORDS", "min_heap_size", NULL},
};
enum { NALIASES = sizeof aliases / sizeof *aliases };

/* getopt_long's codes for the shared options; the aliases are OPT_ALIAS + their index, a
 * binary's own options OPT_EXTRA + theirs. */
enum { OPT_HELP = 'h', OPT_VERSION = 256, OPT_ERA, OPT_LEN, OPT_SHAPE, OPT_ITERATIONS, OPT_REPEATS, OPT_QUICK,
       OPT_CSV, OPT_SET, OPT_LIST_POLICY, OPT_ALIAS = 384, OPT_EXTRA = 512 };

/* A value as the message quotes it: control bytes escaped (it may be any bytes at all), long
 * ones cut, so that the message stays one line. */
static void quote_value(FILE *f, const char *v)
{
    size_t n = 0;
    for (; n < 64 && v[n]; n++) {
        unsigned char b = (unsigned char)v[n];
        if (b < 0x20 || b == 0x7f)
            fprintf(f, "\\x%02x", b);
        else
            fputc(b, f);
    }
    if (v[n])
        fputs("...", f);
}

int tc_bench_cli_bad(const tc_bench_cli *c, const char *option, const char *expected, const char *value)
{
    fprintf(stderr, "%s: %s: expected %s, got '", c->spec->prog, option, expected);
    quote_value(stderr, value);
    fprintf(stderr, "'; try '%s --help'\n", c->spec->prog);
    return 2;
}

/* A usage error that is not about a value: "PROG: WHAT 'ARG'; try 'PROG --help'". */
static int usage_error(const tc_bench_cli *c, const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s '", c->spec->prog, what);
    quote_value(stderr, arg);
    fprintf(stderr, "'; try '%s --help'\n", c->spec->prog);
    return 2;
}

/* A number in n's range into *out: 0, or 2 after the message. */
static int number_arg(const tc_bench_cli *c, const char *option, const tc_bench_cli_number *n, const char *arg,
                      long *out)
{
    char expected[64];
    if (parse_long(arg, n->lo, n->hi, out))
        return 0;
    (void)snprintf(expected, sizeof expected, "an integer in %ld..%ld", n->lo, n->hi);
    return tc_bench_cli_bad(c, option, expected, arg);
}

/* "a, b or c" of names[0..n), into buf. */
static const char *choices(const char *const *names, int n, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && used < cap; k++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", k == 0 ? "" : k == n - 1 ? " or " : ", ", names[k]);
    return buf;
}

/* The index of name in names[0..n), -1 when it is not there. */
static int index_of(const char *const *names, int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (strcmp(names[k], name) == 0)
            return k;
    return -1;
}

/* --era: a preset, or with era_all "all" (also spelt "both", from when there were two) for
 * every preset in the table's order. */
static bool set_era(tc_bench_cli *c, const char *name)
{
    tc_policy unused;
    if (c->spec->era_all && (strcmp(name, "all") == 0 || strcmp(name, "both") == 0)) {
        c->neras = 0;
        for (unsigned i = 0; i < TC_POLICY_ERAS; i++)
            if (tc_policy_era_ready(i))
                c->eras[c->neras++] = tc_policy_era_at(i)->name;
        return true;
    }
    if (tc_policy_preset(name, &unused) != TC_OK)
        return false;
    c->eras[0] = name;
    c->neras = 1;
    return true;
}

/* What --era takes, in the parser's words: "r10b or otp25", "r10b, otp25 or all". */
static const char *era_choices(const tc_bench_cli_spec *s, char *buf, size_t cap)
{
    char names[128];
    tc_policy_preset_names(names, sizeof names);
    if (!s->era_all) {
        (void)snprintf(buf, cap, "%s", names);
        return buf;
    }
    char *last = strstr(names, " or ");
    if (last)
        *last = '\0'; /* "a, b or c" -> "a, b, c or all" */
    (void)snprintf(buf, cap, "%s%s%s or all", names, last ? ", " : "", last ? last + 4 : "");
    return buf;
}

/* One help line: the option at the left, its text from column 24, wrapped at spaces to
 * stay within 100 columns; a '\n' in the text breaks it there too. */
static void help_line(const char *option, const char *text)
{
    enum { COLUMN = 24, WIDTH = 100 };
    int at = printf("  %s", option);
    if (at > COLUMN - 2) {
        putchar('\n');
        at = 0;
    }
    at += printf("%*s", COLUMN - at, "");
    bool line_start = true;
    for (const char *t = text; *t;) {
        if (*t == '\n' || *t == ' ') {
            if (*t == '\n') {
                printf("\n%*s", COLUMN, "");
                at = COLUMN;
                line_start = true;
            }
            t++;
            continue;
        }
        int word = (int)strcspn(t, " \n");
        if (!line_start && at + 1 + word > WIDTH) {
            printf("\n%*s", COLUMN, "");
            at = COLUMN;
            line_start = true;
        }
        at += printf("%s%.*s", line_start ? "" : " ", word, t);
        line_start = false;
        t += word;
    }
    putchar('\n');
}

/* A number's line: what it is, then "(LO..HI; default D)". */
static void number_line(const char *option, const tc_bench_cli_number *n, const char *dflt)
{
    char text[512];
    int k = snprintf(text, sizeof text, "%s (%ld..%ld", n->what, n->lo, n->hi);
    if (dflt)
        (void)snprintf(text + k, sizeof text - (size_t)k, "; default: %s)", dflt);
    else
        (void)snprintf(text + k, sizeof text - (size_t)k, ")");
    help_line(option, text);
}

static void usage(const tc_bench_cli_spec *s)
{
    char text[512], names[256];
    printf("usage: %s [OPTIONS]\n\n%s\n\n", s->prog, s->about);
    if (s->era) {
        (void)snprintf(text, sizeof text, "the era whose rules the model follows: %s (default: %s)%s",
                       era_choices(s, names, sizeof names), s->era,
                       s->era_all ? "; all: every one, in that order" : "");
        help_line("--era E", text);
    }
    if (s->len.what)
        number_line("--len L", &s->len, s->len.dflt);
    if (s->shapes) {
        (void)snprintf(text, sizeof text, "%s (default: %s)", choices(s->shapes, s->nshapes, names, sizeof names), s->shape_dflt);
        help_line("--shape S", text);
    }
    if (s->iterations.what)
        number_line("--iterations N", &s->iterations, s->iterations.dflt);
    if (s->repeats.what)
        number_line("--repeats R", &s->repeats, s->repeats.dflt);
    if (s->quick)
        help_line("--quick", s->quick);
    if (s->csv) {
        (void)snprintf(text, sizeof text, "%s, after '#' metadata lines; '-': on standard output, and everything else "
                 "on standard error", s->csv);
        help_line("--csv FILE|-", text);
    }
    for (int k = 0; k < s->nextras; k++) {
        const tc_bench_cli_extra *x = &s->extras[k];
        char option[64];
        (void)snprintf(option, sizeof option, "--%s%s%s", x->name, x->metavar ? " " : "", x->metavar ? x->metavar : "");
        if (x->range.what)
            number_line(option, &x->range, x->range.dflt);
        else
            help_line(option, x->help);
    }
    if (s->era) {
        help_line("--set NAME=VALUE", "one field of the policy table (one mechanism) over the era's value; "
                                      "--list-policy lists the fields, their values and each era's; "
                                      "repeatable, applied in order");
        help_line("--list-policy", "print the policy table and exit (with --csv FILE|-: as CSV, one row "
                                   "per field)");
        size_t used = (size_t)snprintf(text, sizeof text, "the old spellings of --set:");
        for (int k = 0; k < NALIASES && used < sizeof text; k++) {
            const struct alias *a = &aliases[k];
            used += (size_t)snprintf(text + used, sizeof text - used, "%s --%s%s%s is %s=%s", k ? ";" : "",
                                     a->option, a->metavar ? " " : "", a->metavar ? a->metavar : "", a->field,
                                     a->value ? a->value : a->metavar);
        }
        help_line("--OLD-NAME", text);
    }
    help_line("-h, --help", "this text");
    help_line("--version", "the program, termcopy's version and the git revision");
}

static void version(const char *prog)
{
    char git[256];
    git_revision(git, sizeof git);
    printf("%s (termcopy) %s", prog, TC_BENCH_VERSION);
    if (strcmp(git, "unknown") != 0)
        printf(", git %s", git);
    putchar('\n');
}

/* One field set to `value`, given as OPTION (prefix and name: "--" "copy-out", "--set " "shrink"):
 * 0, or 2 after the message when the value is not one of the field's. */
static int add_set(tc_bench_cli *c, const char *prefix, const char *name, const tc_policy_field *f, const char *value)
{
    char option[96], expected[256];
    (void)snprintf(option, sizeof option, "%s%s", prefix, name);
    tc_policy scratch = {0};
    if (tc_policy_set_field(&scratch, f, value, NULL, 0) != TC_OK)
        return tc_bench_cli_bad(c, option, tc_policy_field_expected(f, expected, sizeof expected), value);
    if (c->nsets == TC_BENCH_CLI_MAX_SETS)
        return usage_error(c, "too many policy switches: one more is", option);
    c->set[c->nsets].field = f;
    c->set[c->nsets].value = value;
    c->nsets++;
    return 0;
}

/* --set NAME=VALUE. */
static int set_arg(tc_bench_cli *c, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char name[64];
    const tc_policy_field *f = NULL;
    if (eq && (size_t)(eq - arg) < sizeof name) {
        memcpy(name, arg, (size_t)(eq - arg));
        name[eq - arg] = '\0';
        f = tc_policy_field_find(name);
    }
    if (f)
        return add_set(c, "--set ", name, f, eq + 1);
    char expected[1024];
    size_t used = (size_t)snprintf(expected, sizeof expected, "NAME=VALUE with NAME one of");
    for (unsigned k = 0; k < tc_policy_field_count() && used < sizeof expected; k++)
        used += (size_t)snprintf(expected + used, sizeof expected - used, "%s %s", k ? "," : "",
                                 tc_policy_field_at(k)->name);
    return tc_bench_cli_bad(c, "--set", expected, arg);
}

/* getopt's code of an old spelling of --set or of one of the binary's own options, with its
 * value: 0 or 2 (after the message). */
static int alias_or_extra_arg(tc_bench_cli *c, int opt, const char *arg)
{
    for (int k = 0; k < NALIASES; k++)
        if (opt == OPT_ALIAS + k) {
            const struct alias *a = &aliases[k];
            return add_set(c, "--", a->option, tc_policy_field_find(a->field), a->value ? a->value : arg);
        }
    for (int k = 0; k < c->spec->nextras; k++)
        if (opt == OPT_EXTRA + k) {
            const tc_bench_cli_extra *x = &c->spec->extras[k];
            char option[64];
            (void)snprintf(option, sizeof option, "--%s", x->name);
            c->extra[k].given = true;
            c->extra[k].value = arg;
            return x->range.what ? number_arg(c, option, &x->range, arg, &c->extra[k].number) : 0;
        }
    TC_CHECK(!"an option code tc_bench_cli_parse did not add");
    return 2;
}

/* --list-policy: the table on standard output, or as CSV into --csv's file. */
static int list_policy_table(tc_bench_cli *c)
{
    int status = 0;
    FILE *f = tc_bench_cli_open_csv(c, "--csv", c->csv, &status);
    if (status)
        return status;
    tc_policy_write_table(f ? f : stdout, f != NULL);
    return f && !tc_bench_cli_close_csv(c, f, c->csv) ? 2 : 0;
}

/* The shared switches tc_bench_cli_parse can add (help and version among them), the extras,
 * and getopt's terminating entry. */
enum { SHARED_SWITCHES = 11 + NALIASES, MAX_LONGS = SHARED_SWITCHES + TC_BENCH_CLI_MAX_EXTRAS + 1 };

static void add_option(struct option *longs, int *n, bool taken, const char *name, int has_arg, int code)
{
    TC_CHECK(*n < MAX_LONGS - 1); /* a new shared switch must raise SHARED_SWITCHES */
    if (taken)
        longs[(*n)++] = (struct option){name, has_arg, NULL, code};
}

int tc_bench_cli_parse(tc_bench_cli *c, const tc_bench_cli_spec *s, int argc, char **argv)
{
    TC_CHECK(s->nextras <= TC_BENCH_CLI_MAX_EXTRAS);
    *c = (tc_bench_cli){.spec = s, .shape = -1};
    if (s->era)
        TC_CHECK(set_era(c, s->era));
    struct option longs[MAX_LONGS];
    int n = 0;
    add_option(longs, &n, true, "help", no_argument, OPT_HELP);
    add_option(longs, &n, true, "version", no_argument, OPT_VERSION);
    add_option(longs, &n, s->era, "era", required_argument, OPT_ERA);
    add_option(longs, &n, s->len.what, "len", required_argument, OPT_LEN);
    add_option(longs, &n, s->shapes, "shape", required_argument, OPT_SHAPE);
    add_option(longs, &n, s->iterations.what, "iterations", required_argument, OPT_ITERATIONS);
    add_option(longs, &n, s->repeats.what, "repeats", required_argument, OPT_REPEATS);
    add_option(longs, &n, s->quick, "quick", no_argument, OPT_QUICK);
    add_option(longs, &n, s->csv, "csv", required_argument, OPT_CSV);
    add_option(longs, &n, s->era, "set", required_argument, OPT_SET);
    add_option(longs, &n, s->era, "list-policy", no_argument, OPT_LIST_POLICY);
    for (int k = 0; k < NALIASES; k++)
        add_option(longs, &n, s->era, aliases[k].option, aliases[k].metavar ? required_argument : no_argument,
                   OPT_ALIAS + k);
    for (int k = 0; k < s->nextras; k++)
        add_option(longs, &n, true, s->extras[k].name, s->extras[k].metavar ? required_argument : no_argument,
                   OPT_EXTRA + k);
    longs[n] = (struct option){NULL, 0, NULL, 0};

    char expected[256]; /* --shape's names, --era's */
    int opt, bad = 0;
    bool list_policy = false;
    /* Messages are ours (opterr 0), a missing value is ':' (the leading ':'), and optind 0
     * makes glibc start over even after a parse that stopped inside a cluster like -hx. */
    opterr = 0;
    optind = 0;
    while (bad == 0 && (opt = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
        switch (opt) {
        case OPT_HELP: usage(s); return 0;
        case OPT_VERSION: version(s->prog); return 0;
        case OPT_ERA:
            if (!set_era(c, optarg))
                bad = tc_bench_cli_bad(c, "--era", era_choices(s, expected, sizeof expected), optarg);
            break;
        case OPT_LEN: bad = number_arg(c, "--len", &s->len, optarg, &c->len); break;
        case OPT_SHAPE:
            c->shape = index_of(s->shapes, s->nshapes, optarg);
            if (c->shape < 0)
                bad = tc_bench_cli_bad(c, "--shape", choices(s->shapes, s->nshapes, expected, sizeof expected), optarg);
            break;
        case OPT_ITERATIONS: bad = number_arg(c, "--iterations", &s->iterations, optarg, &c->iterations); break;
        case OPT_REPEATS: bad = number_arg(c, "--repeats", &s->repeats, optarg, &c->repeats); break;
        case OPT_QUICK: c->quick = true; break;
        case OPT_CSV: c->csv = optarg; break;
        case OPT_SET: bad = set_arg(c, optarg); break;
        case OPT_LIST_POLICY: list_policy = true; break;
        case ':': bad = usage_error(c, "a value is missing after", argv[optind - 1]); break;
        case '?':
            /* glibc leaves optopt 0 for an unknown long option, sets it to the code of a long one
             * given a value it does not take, and to the letter of an unknown short one; a long
             * one is the argument before optind then, with any "=value". */
            if (optopt == 0) {
                bad = usage_error(c, "unknown option", argv[optind - 1]);
            } else if (optopt == OPT_HELP || optopt >= OPT_VERSION) {
                bad = usage_error(c, "a value given to an option that takes none:", argv[optind - 1]);
            } else {
                char letter[3] = {'-', (char)optopt, '\0'};
                bad = usage_error(c, "unknown option", letter);
            }
            break;
        default: bad = alias_or_extra_arg(c, opt, optarg); break;
        }
    }
    if (bad)
        return bad;
    if (optind < argc)
        return usage_error(c, "unexpected argument", argv[optind]);
    if (list_policy)
        return list_policy_table(c);
    /* The tests' hook into every failure path (tests/cli_enomem.sh): the Nth allocation the
     * library makes from here on fails. */
    const char *fail_at = getenv("TC_MEM_FAIL_AT");
    if (fail_at && *fail_at) {
        char *end;
        unsigned long long nth = strtoull(fail_at, &end, 10);
        if (*end != '\0' || nth == 0)
            return usage_error(c, "TC_MEM_FAIL_AT (a positive integer)", fail_at);
        if (!tc_mem_fail_at(nth)) {
            fprintf(stderr, "%s: TC_MEM_FAIL_AT: this build has no fault injection (debug level 0 compiles it out)\n",
                    c->spec->prog);
            return 2;
        }
    }
    return TC_BENCH_CLI_RUN;
}

void tc_bench_cli_policy(const tc_bench_cli *c, tc_policy *pol)
{
    for (int k = 0; k < c->nsets; k++)
        TC_CHECK(tc_policy_set_field(pol, c->set[k].field, c->set[k].value, NULL, 0) == TC_OK); /* checked by the parse */
}

FILE *tc_bench_cli_open_csv(tc_bench_cli *c, const char *option, const char *path, int *status)
{
    if (!path)
        return NULL;
    bool to_stdout = strcmp(path, "-") == 0;
    if (to_stdout && c->csv_on_stdout) {
        fprintf(stderr, "%s: %s: standard output already has the other CSV; try '%s --help'\n", c->spec->prog,
                option, c->spec->prog);
        *status = 2;
        return NULL;
    }
    if (!to_stdout && tc_out_clashes(path)) {
        fprintf(stderr, "%s: %s: '", c->spec->prog, option);
        quote_value(stderr, path);
        fprintf(stderr, "' is the same file as another output of this run; try '%s --help'\n", c->spec->prog);
        *status = 2;
        return NULL;
    }
    FILE *f = tc_bench_csv_open(path);
    if (!f) {
        fprintf(stderr, "%s: %s: cannot write '", c->spec->prog, option);
        quote_value(stderr, path);
        fprintf(stderr, "': %s\n", strerror(errno));
        *status = 2;
        return NULL;
    }
    c->csv_on_stdout |= to_stdout;
    return f;
}

bool tc_bench_cli_close_csv(const tc_bench_cli *c, FILE *f, const char *path)
{
    if (!f || tc_bench_csv_close(f))
        return true;
    fprintf(stderr, "%s: writing '%s' failed: %s\n", c->spec->prog, path, strerror(errno));
    return false;
}
