#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include "account.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

const char *const tc_account_loop_names[TC_ACCOUNT_LOOPS] = {"rt", "lookup"};

tc_account_phases tc_account_price(const tc_account_counts *c, const tc_account_prices *p)
{
    tc_account_phases ph;
    ph.fixed_us = c->ops * p->fixed / 1000;
    ph.copy_us = c->ops * c->words * p->word / 1000;
    /* a major copies Data, which gc_major's calibration copied too: the rest at the word price */
    double rest = c->gc_copied - c->major * c->words;
    /* the loop's long GCs priced by its own calibration (minors first), their heaps within */
    bool own = p->gc_long_gcs > 0;
    double minor = own ? fmax(0, c->minor - c->dirty) : c->minor;
    double major = own ? c->major - fmax(0, c->dirty - c->minor) : c->major;
    ph.gc_us = (minor * p->gc_minor + major * p->gc_major + (rest > 0 ? rest : 0) * p->gc_word +
                c->gc_moved * p->gc_move_word + c->gc_frag * p->gc_frag_word + c->dirty * (own ? p->gc_long : p->gc_dirty)) /
               1000;
    ph.fault_us = c->faults * p->fault / 1000;
    ph.mmap_us = ((c->carriers - c->dirty_carriers) * p->carrier + (own ? 0 : c->dirty_carriers * p->carrier_dirty)) /
                 1000;
    /* the sleeps of the [] loop's rate and of the dirty trips are in their prices */
    double trips = own ? 0 : c->dirty;
    ph.sleep_us =
        c->sleeps < 0 ? 0 : (c->sleeps - c->ops * p->fixed_sleeps - trips * p->dirty_sleeps) * p->sleep / 1000;
    ph.total_us = ph.fixed_us + ph.copy_us + ph.gc_us + ph.fault_us + ph.mmap_us + ph.sleep_us;
    return ph;
}

/* A traced fragment's words are priced as collected where the GC found them live: no more
 * than the words it copied (a fragment's garbage is freed with it, not copied). */
static double frag_collected(double traced, double copied) { return traced < copied ? traced : copied; }

tc_account_counts tc_account_of_model(const tc_ep_counts *c, long ops, uint64_t words)
{
    double copied = (double)(c->gc_words - c->gc_moved), frag = frag_collected((double)c->frag_traced, copied);
    return (tc_account_counts){.ops = (double)ops,
                               .words = (double)words,
                               .minor = (double)c->minor_gcs,
                               .major = (double)c->major_gcs,
                               .dirty = (double)c->long_gcs,
                               .gc_copied = copied - frag,
                               .gc_frag = frag,
                               /* loop_rec's moves outside a GC copy a queued message's words onto
                                * the heap as the GC's do (erl_message.h
                                * ErtsMoveMsgAttachmentIntoProc): the same unit */
                               .gc_moved = (double)(c->gc_moved + c->rec_moved),
                               .faults = (double)c->faults,
                               .carriers = (double)c->carriers_mapped,
                               .dirty_carriers = (double)c->dirty_carriers,
                               .sleeps = -1};
}

/* The GC counts by kind are the traced run's, whose tracer can add collections of its own
 * (nothing copied); their number is the untraced run's, a major each traced major. */
tc_account_counts tc_account_of_vm(const tc_vm_pass *p, long ops, uint64_t words)
{
    double minor = p->gcs - p->major;
    return (tc_account_counts){.ops = (double)ops,
                               .words = (double)words,
                               .minor = minor > 0 ? minor : 0,
                               .major = p->major,
                               .dirty = p->dirty,
                               .gc_copied = p->copied,
                               .gc_moved = p->moved,
                               .faults = p->faults,
                               .carriers = p->carriers,
                               .dirty_carriers = p->dirty_carriers,
                               .sleeps = p->sleeps};
}

static double cpu_now_ns(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0)
        return 0;
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

enum { PROBE_RUNS = 7 };

bool tc_account_probe(size_t region_bytes, double *fault_ns)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (region_bytes < 16 * page)
        region_bytes = 16 * page;
    region_bytes = (region_bytes + page - 1) / page * page;
    double faults[PROBE_RUNS], maps[PROBE_RUNS];
    for (int r = 0; r < PROBE_RUNS; r++) {
        double t0 = cpu_now_ns();
        /* cppcheck-suppress invalidFunctionArg ; MAP_ANONYMOUS takes fd -1 */
        volatile char *m = mmap(NULL, region_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == (volatile char *)MAP_FAILED)
            return false;
        (void)munmap((void *)m, region_bytes);
        double t1 = cpu_now_ns();
        /* cppcheck-suppress invalidFunctionArg ; MAP_ANONYMOUS takes fd -1 */
        m = mmap(NULL, region_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == (volatile char *)MAP_FAILED)
            return false;
        for (size_t o = 0; o < region_bytes; o += page)
            m[o] = 1;
        (void)munmap((void *)m, region_bytes);
        double t2 = cpu_now_ns();
        maps[r] = t1 - t0;
        /* the touched run's mapping costs what the untouched one did: the rest is the pages' */
        faults[r] = (t2 - t1 - maps[r]) / ((double)region_bytes / (double)page);
    }
    *fault_ns = tc_timing_summarize(faults, PROBE_RUNS).median;
    return true;
}

bool tc_account_probe_carrier(size_t bytes, double fault_ns, double *carrier_ns)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    bytes = (bytes + page - 1) / page * page;
    double ns[PROBE_RUNS];
    for (int r = 0; r < PROBE_RUNS; r++) {
        double t0 = cpu_now_ns();
        /* cppcheck-suppress invalidFunctionArg ; MAP_ANONYMOUS takes fd -1 */
        volatile char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == (volatile char *)MAP_FAILED)
            return false;
        m[0] = 1;
        (void)munmap((void *)m, bytes);
        ns[r] = cpu_now_ns() - t0 - fault_ns;
    }
    *carrier_ns = tc_timing_summarize(ns, PROBE_RUNS).median;
    return true;
}

size_t tc_account_probe_region(double faults)
{
    double bytes = faults * (double)sysconf(_SC_PAGESIZE);
    return bytes < (1 << 20) ? (size_t)1 << 20 : bytes > (64 << 20) ? (size_t)64 << 20 : (size_t)bytes;
}

/* A calibration row of `loop`, or NULL. */
static const tc_vm_price *row(const tc_vm_account *a, const char *loop, const char *unit)
{
    for (int i = 0; i < a->nprices; i++)
        if (strcmp(a->price[i].loop, loop) == 0 && strcmp(a->price[i].unit, unit) == 0)
            return &a->price[i];
    return NULL;
}

/* The prices a calibration's own faults and sleeps are taken out at. */
typedef struct unit_prices {
    double fault, sleep;
} unit_prices;
/* A calibration's CPU ns less its own faults and sleeps at their prices. */
static double net(const tc_vm_price *r, unit_prices u) { return r->cpu_ns - r->faults * u.fault - r->sleeps * u.sleep; }

/* Per word: the difference of a run and its base over the words between them. */
static double per_word(const tc_vm_price *r, const tc_vm_price *base, unit_prices u)
{
    double w = r->words - base->words;
    return w > 0 ? (net(r, u) - net(base, u)) / w : 0;
}

bool tc_account_prices_of_vm(const tc_vm_account *a, tc_account_loop loop, double fault_ns,
                             tc_account_prices *out)
{
    const char *l = tc_account_loop_names[loop];
    bool rt = loop == TC_ACCOUNT_RT;
    static const char *const needed[] = {"gc_minor", "gc_minor_nil", "gc_major", "gc_major_nil", "gc_dirty",
                                         "gc_dirty_nil", "carrier", "carrier_dirty", "gc_minor_bif"};
    const tc_vm_price *fixed = row(a, l, rt ? "rt_fixed" : "lookup_fixed"), *copy = row(a, l, rt ? "send" : "lookup"),
                      *copy0 = row(a, l, rt ? "send_nil" : "lookup_nil");
    enum { NEEDED = sizeof needed / sizeof *needed };
    const tc_vm_price *unit[NEEDED]; /* needed's rows, in its order */
    bool ok = fixed && copy && copy0;
    for (int i = 0; i < NEEDED; i++)
        ok = (unit[i] = row(a, l, needed[i])) != NULL && ok;
    if (!ok) {
        fprintf(stderr, "account: the VM's calibrations of the %s loop are incomplete\n", l);
        return false;
    }
    const tc_vm_price *move = row(a, l, "gc_move"), *move0 = row(a, l, "gc_move_nil"), *sleep = row(a, l, "sleep");
    tc_account_prices p;
    p.sleep = sleep ? sleep->cpu_ns : 0;
    unit_prices u = {fault_ns, p.sleep};
    /* a minor GC where a loop's happen (after a BIF), not a forced one and its trip through the
     * scheduler; the forced pair still prices the collector's words */
    p.gc_minor = net(unit[8], u);
    /* the [] loop collects now and then too: those GCs are the gc phase's, not the fixed one's;
     * its sleeps stay in it (the sleep phase is the loop's beyond their rate) */
    p.fixed = net(fixed, (unit_prices){fault_ns, 0}) - fixed->gcs * p.gc_minor;
    p.fixed_sleeps = fixed->sleeps;
    p.word = per_word(copy, copy0, u);
    p.gc_word = per_word(unit[0], unit[1], u);
    p.gc_major = net(unit[3], u); /* Data live in the old heap: a major copies it */
    /* the trip's sleeps stay in its price, as the fixed unit's do */
    unit_prices faults_only = {fault_ns, 0};
    p.gc_dirty = net(unit[4], faults_only) - net(unit[5], faults_only);
    p.dirty_sleeps = unit[4]->sleeps - unit[5]->sleeps;
    p.gc_move_word = move && move0 ? per_word(move, move0, u) : p.gc_word;
    /* OTP 25's GC after a BIF moves the BIF's fragments whole (move_live_frags, in gc_word's
     * words); a fragment traced by another GC is copied as the heap's words are */
    p.gc_frag_word = p.gc_word;
    p.fault = fault_ns;
    p.carrier = net(unit[6], u);
    p.carrier_dirty = net(unit[7], u);
    const tc_vm_price *own = row(a, l, "gc_long");
    p.gc_long = own ? net(own, u) : 0;
    p.gc_long_gcs = own ? own->ops : 0;
    *out = p;
    return true;
}

tc_account_loop tc_account_loop_of_test(int test)
{
    return test == TC_EP_LOOKUP ? TC_ACCOUNT_LOOKUP : TC_ACCOUNT_RT;
}

void tc_account_prices_write(FILE *f, const char *shape, long len, tc_account_loop loop, const tc_account_prices *p)
{
    fprintf(f, "%s,%ld,%s,%.2f,%.4f,%.1f,%.1f,%.4f,%.4f,%.1f,%.1f,%.0f,%.1f,%.1f,%.1f,%.1f,%.4f,%.4f,%.4f\n", shape, len,
            tc_account_loop_names[loop], p->fixed, p->word, p->gc_minor, p->gc_major, p->gc_word, p->gc_move_word,
            p->gc_dirty, p->gc_long, p->gc_long_gcs, p->fault, p->carrier, p->carrier_dirty, p->sleep, p->fixed_sleeps,
            p->dirty_sleeps, p->gc_frag_word);
}

/* One row of the prices CSV: shape, length, loop and the sixteen prices (fifteen in a file of
 * the first header, `v1`: the fragment word is then the collector's), every field whole (a
 * number followed by anything else is not one). */
static bool prices_row(char *line, bool v1, char *shape, size_t shape_cap, long *len, char *loop, size_t loop_cap,
                       tc_account_prices *p)
{
    double *nums[] = {&p->fixed,    &p->word,         &p->gc_minor, &p->gc_major, &p->gc_word,
                      &p->gc_move_word, &p->gc_dirty, &p->gc_long,  &p->gc_long_gcs, &p->fault,
                      &p->carrier,      &p->carrier_dirty, &p->sleep, &p->fixed_sleeps, &p->dirty_sleeps,
                      &p->gc_frag_word};
    const size_t prices = sizeof nums / sizeof *nums - (v1 ? 1 : 0);
    enum { MAX_FIELDS = 3 + sizeof nums / sizeof *nums };
    const int FIELDS = 3 + (int)prices;
    char *field[MAX_FIELDS];
    int n = 0;
    for (char *s = line; n < FIELDS; n++) {
        field[n] = s;
        char *comma = strchr(s, ',');
        if (!comma) {
            n++;
            break;
        }
        *comma = '\0';
        s = comma + 1;
        if (n == FIELDS - 1)
            return false; /* more fields than a row has */
    }
    if (n != FIELDS || strlen(field[0]) >= shape_cap || strlen(field[2]) >= loop_cap)
        return false;
    char *end;
    errno = 0;
    *len = strtol(field[1], &end, 10);
    if (end == field[1] || *end || errno || *len <= 0)
        return false;
    for (size_t i = 0; i < prices; i++) {
        *nums[i] = strtod(field[3 + i], &end);
        if (end == field[3 + i] || *end || errno)
            return false;
    }
    if (v1)
        p->gc_frag_word = p->gc_word;
    strcpy(shape, field[0]);
    strcpy(loop, field[2]);
    return true;
}

tc_result tc_account_prices_read(const char *path, const char *shape, long len, tc_account_loop loop,
                                 tc_account_prices *out, long *used)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return TC_EIO;
    char line[512];
    bool header = false, v1 = false, found = false;
    double best = INFINITY;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (!header) {
            v1 = strcmp(line, TC_ACCOUNT_PRICES_HEADER_V1) == 0;
            header = v1 || strcmp(line, TC_ACCOUNT_PRICES_HEADER) == 0;
            if (!header)
                break;
            continue;
        }
        char sh[32], lp[16];
        long l;
        tc_account_prices p;
        if (!prices_row(line, v1, sh, sizeof sh, &l, lp, sizeof lp, &p)) {
            header = false; /* a row that is not one: not such a CSV */
            break;
        }
        double d = fabs(log((double)l / (double)(len > 0 ? len : 1)));
        if (strcmp(sh, shape) == 0 && strcmp(lp, tc_account_loop_names[loop]) == 0 && d < best) {
            best = d;
            *out = p;
            *used = l;
            found = true;
        }
    }
    (void)fclose(f);
    return !header ? TC_EIO : found ? TC_OK : TC_EBADARG;
}

_Static_assert(sizeof(tc_account_prices) % sizeof(double) == 0, "tc_account_prices holds doubles only");
_Static_assert(sizeof(tc_account_counts) % sizeof(double) == 0, "tc_account_counts holds doubles only");

/* Field by field, the median of n structs of nfields doubles, `stride` bytes apart. */
static void median_fields(const void *first, size_t stride, size_t n, size_t nfields, double *out)
{
    TC_CHECK(n >= 1 && n <= TC_ACCOUNT_MEDIAN_MAX);
    double vals[TC_ACCOUNT_MEDIAN_MAX];
    for (size_t f = 0; f < nfields; f++) {
        for (size_t r = 0; r < n; r++)
            memcpy(&vals[r], (const char *)first + r * stride + f * sizeof(double), sizeof(double));
        out[f] = tc_timing_summarize(vals, n).median;
    }
}

void tc_account_prices_median(const tc_account_prices *first, size_t stride, size_t n, tc_account_prices *out)
{
    double v[sizeof *out / sizeof(double)];
    median_fields(first, stride, n, sizeof v / sizeof *v, v);
    memcpy(out, v, sizeof v);
}

void tc_account_counts_median(const tc_account_counts *first, size_t stride, size_t n, tc_account_counts *out)
{
    double v[sizeof *out / sizeof(double)];
    median_fields(first, stride, n, sizeof v / sizeof *v, v);
    memcpy(out, v, sizeof v);
}
