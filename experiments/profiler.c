#define _GNU_SOURCE /* ucontext_t as libunwind's context */
#define UNW_LOCAL_ONLY
#include "profiler.h"

#include <errno.h>
#include <libunwind.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#ifndef sigev_notify_thread_id /* the Linux name of the field; glibc 2.36 lacks the macro */
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* The handler may only touch lock-free atomics. */
_Static_assert(ATOMIC_LONG_LOCK_FREE == 2 && ATOMIC_POINTER_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2,
               "the SIGPROF handler needs lock-free atomics");

typedef struct record {
    uintptr_t depth;
    /* ip[0] is where the signal interrupted; the others are return addresses minus one, so
     * that each falls inside its call instruction's function */
    uintptr_t ip[TC_PROF_DEPTH];
} record;

struct tc_prof {
    record *buf;
    size_t capacity;
    unsigned hz;
    atomic_ulong reserved;   /* records handed out; past capacity means dropped */
    atomic_ulong unwalkable;
    bool running;
    bool posix_timer; /* this run samples with timer_create, not ITIMER_PROF */
    timer_t timer;
    struct sigaction old_action;
    struct rusage ru0;
    uint64_t wall0;
    double cpu_user_s, cpu_sys_s, wall_s; /* summed over start/stop pairs */
};

static tc_prof *_Atomic current;  /* the one profiler SIGPROF feeds */
static atomic_int in_handler;     /* handlers running now, on any thread */

static void on_sigprof(int sig, siginfo_t *info, void *uctx)
{
    (void)sig;
    (void)info;
    atomic_fetch_add(&in_handler, 1);
    int saved_errno = errno;
    tc_prof *p = atomic_load(&current);
    if (p) {
        unw_cursor_t c;
        /* On x86-64 unw_context_t is ucontext_t: start at the interrupted frame itself. */
        if (unw_init_local2(&c, (unw_context_t *)uctx, UNW_INIT_SIGNAL_FRAME) < 0) {
            atomic_fetch_add(&p->unwalkable, 1);
        } else {
            unsigned long slot = atomic_fetch_add(&p->reserved, 1);
            if (slot < p->capacity) {
                record *r = &p->buf[slot];
                size_t d = 0;
                do {
                    unw_word_t ip;
                    if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
                        break;
                    r->ip[d] = d == 0 ? ip : ip - 1;
                    d++;
                } while (d < TC_PROF_DEPTH && unw_step(&c) > 0);
                r->depth = d;
            }
        }
    }
    errno = saved_errno;
    atomic_fetch_sub(&in_handler, 1);
}

tc_result tc_prof_new(unsigned hz, size_t capacity, tc_prof **out)
{
    *out = NULL;
    tc_prof *p = calloc(1, sizeof *p);
    if (!p)
        return TC_ENOMEM;
    p->hz = hz ? hz : 1000;
    p->capacity = capacity ? capacity : 65536;
    /* malloc, not tc_mem_alloc: the instrument stays out of the model's allocation counts */
    p->buf = p->capacity <= SIZE_MAX / sizeof(record) ? malloc(p->capacity * sizeof(record)) : NULL;
    if (!p->buf) {
        free(p);
        return TC_ENOMEM;
    }
    memset(p->buf, 0, p->capacity * sizeof(record)); /* touched now, not in the handler */
    *out = p;
    return TC_OK;
}

void tc_prof_free(tc_prof *p)
{
    if (!p)
        return;
    if (p->running)
        tc_prof_stop(p);
    free(p->buf);
    free(p);
}

static double tv_s(struct timeval a, struct timeval b)
{
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_usec - a.tv_usec) * 1e-6;
}

tc_result tc_prof_start(tc_prof *p)
{
    tc_prof *none = NULL;
    if (p->running || !atomic_compare_exchange_strong(&current, &none, p))
        return TC_EBADARG;
    /* Per-thread caches: the default global cache takes a lock, which a signal handler
     * cannot; without any cache every sample would parse the unwind tables again. One walk
     * now, so that libunwind fills them here and not in the first signal. */
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    unw_context_t uc;
    unw_cursor_t c;
    if (unw_getcontext(&uc) == 0 && unw_init_local(&c, &uc) == 0)
        while (unw_step(&c) > 0)
            ;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigprof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, &p->old_action) != 0) {
        atomic_store(&current, NULL);
        return TC_EIO;
    }
    long usec = 1000000L / (long)p->hz;
    getrusage(RUSAGE_SELF, &p->ru0);
    p->wall0 = tc_timing_now_ns();
    /* A high-resolution timer aimed at this thread; the kernel's CPU-time timers only fire
     * at its tick, which left short passes with no samples at all. */
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGPROF;
    sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
    long nsec = 1000000000L / (long)p->hz;
    struct itimerspec its = {{0, nsec > 0 ? nsec : 1}, {0, nsec > 0 ? nsec : 1}};
    p->posix_timer = timer_create(CLOCK_MONOTONIC, &sev, &p->timer) == 0;
    if (p->posix_timer && timer_settime(p->timer, 0, &its, NULL) != 0) {
        timer_delete(p->timer);
        p->posix_timer = false;
    }
    struct itimerval it = {{0, usec > 0 ? usec : 1}, {0, usec > 0 ? usec : 1}};
    if (!p->posix_timer && setitimer(ITIMER_PROF, &it, NULL) != 0) {
        sigaction(SIGPROF, &p->old_action, NULL);
        atomic_store(&current, NULL);
        return TC_EIO;
    }
    p->running = true;
    return TC_OK;
}

void tc_prof_stop(tc_prof *p)
{
    if (!p->running)
        return;
    if (p->posix_timer) {
        timer_delete(p->timer);
    } else {
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_PROF, &off, NULL);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    p->wall_s += (double)(tc_timing_now_ns() - p->wall0) * 1e-9;
    p->cpu_user_s += tv_s(p->ru0.ru_utime, ru.ru_utime);
    p->cpu_sys_s += tv_s(p->ru0.ru_stime, ru.ru_stime);
    /* Ignoring SIGPROF discards one still pending, which the default action (terminate)
     * would not; then wait for handlers still running elsewhere before the buffer is read. */
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPROF, &ign, NULL);
    atomic_store(&current, NULL);
    while (atomic_load(&in_handler) > 0)
        sched_yield();
    sigaction(SIGPROF, &p->old_action, NULL);
    p->running = false;
}

uint64_t tc_prof_recorded(const tc_prof *p)
{
    unsigned long n = atomic_load(&p->reserved);
    return n < p->capacity ? n : p->capacity;
}

uint64_t tc_prof_dropped(const tc_prof *p)
{
    unsigned long n = atomic_load(&p->reserved);
    return n > p->capacity ? n - p->capacity : 0;
}

/* ---- attribution --------------------------------------------------------------------- */

typedef struct function {
    uintptr_t start;
    int phase; /* index into the report, -1 when not in the table */
    uint64_t samples;
    char name[TC_PROF_NAME];
} function;

static int cmp_uintptr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return (x > y) - (x < y);
}

static size_t sort_unique(uintptr_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_uintptr);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i])
            v[m++] = v[i];
    return m;
}

static size_t find(const uintptr_t *v, size_t n, uintptr_t x)
{
    const uintptr_t *hit = bsearch(&x, v, n, sizeof *v, cmp_uintptr);
    TC_CHECK(hit != NULL);
    return (size_t)(hit - v);
}

/* The start of the function holding ip, from its unwind info; ip itself without any. */
static uintptr_t function_start(uintptr_t ip)
{
    unw_proc_info_t pi;
    if (unw_get_proc_info_by_ip(unw_local_addr_space, ip, &pi, NULL) == 0 && pi.start_ip != 0)
        return pi.start_ip;
    return ip;
}

/* The function a direct call returning to `ret` called, 0 for any other call: on x86-64 a
 * call rel32 is the 5 bytes before the return address, E8 and a displacement from `ret`.
 * They are read only inside the caller's own code (from caller_start on), which is mapped.
 * An indirect call decodes to 0, or by chance to an address no table lists. */
static uintptr_t call_target(uintptr_t ret, uintptr_t caller_start)
{
#if defined(__x86_64__)
    unsigned char code[5];
    if (ret < caller_start + sizeof code)
        return 0;
    memcpy(code, (const void *)(ret - sizeof code), sizeof code);
    if (code[0] != 0xe8)
        return 0;
    int32_t displacement;
    memcpy(&displacement, code + 1, sizeof displacement);
    return ret + (uintptr_t)(intptr_t)displacement;
#else
    (void)ret;
    (void)caller_start;
    return 0;
#endif
}

/* The table row naming the function that starts at `start`, or NULL. */
static const tc_prof_phase_map *table_row(const tc_prof_phase_map *table, size_t n, uintptr_t start)
{
    for (size_t t = 0; t < n; t++)
        if ((uintptr_t)table[t].function == start)
            return &table[t];
    return NULL;
}

/* Its name from the symbol tables. The cursor starts as a signal frame so that libunwind
 * looks up the ip exactly, not the byte before it as for a return address. */
static void function_name(uintptr_t start, char *out, size_t cap)
{
    unw_context_t uc;
    unw_cursor_t c;
    unw_word_t off;
    (void)snprintf(out, cap, "?");
    if (unw_getcontext(&uc) == 0 && unw_init_local2(&c, &uc, UNW_INIT_SIGNAL_FRAME) == 0 &&
        unw_set_reg(&c, UNW_REG_IP, start) == 0 && unw_get_proc_name(&c, out, cap, &off) != 0)
        (void)snprintf(out, cap, "?");
}

/* The phase's index in the report, added if new while fewer than `room` are there. */
static int phase_index(tc_prof_report *r, const char *phase, size_t room)
{
    for (size_t i = 0; i < r->nphases; i++)
        if (strcmp(r->phase[i].phase, phase) == 0)
            return (int)i;
    if (r->nphases >= room)
        return -1;
    r->phase[r->nphases] = (tc_prof_phase_count){phase, 0, 0};
    return (int)r->nphases++;
}

static int cmp_function_samples(const void *a, const void *b)
{
    const function *x = a, *y = b;
    return (x->samples < y->samples) - (x->samples > y->samples);
}

static int cmp_function_name(const void *a, const void *b)
{
    return strcmp(((const function *)a)->name, ((const function *)b)->name);
}

/* One entry per name: two functions of a stripped library may carry the same one. */
static size_t merge_by_name(function *fns, size_t n)
{
    qsort(fns, n, sizeof *fns, cmp_function_name);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && strcmp(fns[m - 1].name, fns[i].name) == 0)
            fns[m - 1].samples += fns[i].samples;
        else
            fns[m++] = fns[i];
    }
    return m;
}

tc_result tc_prof_report_phases(tc_prof *p, const tc_prof_phase_map *table, size_t n, tc_prof_report *out)
{
    memset(out, 0, sizeof *out);
    if (p->running)
        return TC_EBADARG;
    for (size_t i = 0; i < n; i++)
        if (phase_index(out, table[i].phase, TC_PROF_MAX_PHASES - 1) < 0) /* room kept for "loop" */
            return TC_EBADARG;
    int loop = phase_index(out, "loop", TC_PROF_MAX_PHASES);
    size_t nsamples = tc_prof_recorded(p), nips = 0;
    out->samples = nsamples;
    out->dropped = tc_prof_dropped(p);
    out->unwalkable = atomic_load(&p->unwalkable);
    out->hz = p->hz;
    out->cpu_user_s = p->cpu_user_s;
    out->cpu_sys_s = p->cpu_sys_s;
    out->wall_s = p->wall_s;
    double cpu = p->cpu_user_s + p->cpu_sys_s;
    out->effective_hz = cpu > 0 ? (double)(nsamples + out->dropped + out->unwalkable) / cpu : 0;

    for (size_t s = 0; s < nsamples; s++)
        nips += p->buf[s].depth;
    size_t room = nips ? nips : 1;
    uintptr_t *ips = malloc(room * sizeof *ips);
    size_t *ip_fn = malloc(room * sizeof *ip_fn), *ip_called = malloc(room * sizeof *ip_called);
    uintptr_t *starts = malloc(2 * room * sizeof *starts); /* each ip's function and what it called */
    function *fns = NULL;
    tc_result res = TC_ENOMEM;
    if (!ips || !ip_fn || !ip_called || !starts)
        goto done;
    nips = 0;
    for (size_t s = 0; s < nsamples; s++)
        for (size_t d = 0; d < p->buf[s].depth; d++)
            ips[nips++] = p->buf[s].ip[d];
    nips = sort_unique(ips, nips);
    size_t nstarts = 0;
    for (size_t i = 0; i < nips; i++) {
        /* For now the functions' starts; their indices into fns once it is made. Every ip but
         * a leaf is a return address minus one. */
        uintptr_t start = function_start(ips[i]), called = call_target(ips[i] + 1, start);
        ip_fn[i] = starts[nstarts++] = start;
        ip_called[i] = table_row(table, n, called) ? called : 0;
        if (ip_called[i])
            starts[nstarts++] = called;
    }
    size_t nfns = sort_unique(starts, nstarts);
    fns = calloc(nfns ? nfns : 1, sizeof *fns);
    if (!fns)
        goto done;
    for (size_t f = 0; f < nfns; f++) {
        const tc_prof_phase_map *row = table_row(table, n, starts[f]);
        fns[f].start = starts[f];
        fns[f].phase = row ? phase_index(out, row->phase, 0) : -1; /* all are there already */
        function_name(starts[f], fns[f].name, sizeof fns[f].name);
    }
    for (size_t i = 0; i < nips; i++) {
        ip_fn[i] = find(starts, nfns, ip_fn[i]);
        ip_called[i] = ip_called[i] ? find(starts, nfns, ip_called[i]) : SIZE_MAX;
    }

    for (size_t s = 0; s < nsamples; s++) {
        const record *rec = &p->buf[s];
        function *decider = NULL;
        for (size_t d = 0; d < rec->depth && !decider; d++) {
            size_t i = find(ips, nips, rec->ip[d]);
            /* Above the leaf, what the frame called comes before the frame's own function:
             * the frame below it may be what that callee tail-called. */
            if (d > 0 && ip_called[i] != SIZE_MAX)
                decider = &fns[ip_called[i]];
            else if (fns[ip_fn[i]].phase >= 0)
                decider = &fns[ip_fn[i]];
        }
        if (decider) {
            out->phase[decider->phase].samples++;
        } else {
            out->phase[loop].samples++;
            if (rec->depth > 0)
                decider = &fns[ip_fn[find(ips, nips, rec->ip[0])]];
        }
        if (decider)
            decider->samples++;
    }
    for (size_t i = 0; i < out->nphases; i++)
        out->phase[i].share = nsamples ? (double)out->phase[i].samples / (double)nsamples : 0;
    nfns = merge_by_name(fns, nfns);
    qsort(fns, nfns, sizeof *fns, cmp_function_samples);
    for (size_t f = 0; f < nfns && out->ntop < TC_PROF_TOP && fns[f].samples > 0; f++) {
        tc_prof_function_count *t = &out->top[out->ntop++];
        (void)snprintf(t->name, sizeof t->name, "%s", fns[f].name); /* long names truncated */
        t->phase = out->phase[fns[f].phase >= 0 ? fns[f].phase : loop].phase;
        t->samples = fns[f].samples;
    }
    res = TC_OK;
done:
    free(fns);
    free(starts);
    free(ip_called);
    free(ip_fn);
    free(ips);
    return res;
}

/* ---- output -------------------------------------------------------------------------- */

void tc_prof_print(FILE *f, const tc_prof_report *r)
{
    fprintf(f, "profile: %llu samples (%llu dropped: buffer full; %llu unwalkable) at %.0f Hz of CPU time "
               "(%u requested); cpu user %.3f s, system %.3f s, wall %.3f s\n",
            (unsigned long long)r->samples, (unsigned long long)r->dropped, (unsigned long long)r->unwalkable,
            r->effective_hz, r->hz, r->cpu_user_s, r->cpu_sys_s, r->wall_s);
    fprintf(f, "  %-16s %9s %7s\n", "phase", "samples", "share");
    for (size_t i = 0; i < r->nphases; i++)
        fprintf(f, "  %-16s %9llu %6.1f%%\n", r->phase[i].phase, (unsigned long long)r->phase[i].samples,
                100 * r->phase[i].share);
    fprintf(f, "  top functions (the table's leaf-most match, else the leaf):\n");
    for (size_t i = 0; i < r->ntop; i++)
        fprintf(f, "  %9llu  %-12s %s\n", (unsigned long long)r->top[i].samples, r->top[i].phase, r->top[i].name);
}

void tc_prof_named_path(const char *name, char *buf, size_t cap)
{
    (void)snprintf(buf, cap, "results/profile-%s.csv", name); /* the names are short constants */
}

bool tc_prof_write_csv(const tc_prof_report *r, const char *path, const char *what, const tc_policy *pol)
{
    const char *slash = strrchr(path, '/');
    if (slash && slash != path) {
        char dir[4096];
        if ((size_t)(slash - path) >= sizeof dir) {
            errno = ENAMETOOLONG;
            return false;
        }
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return false;
    }
    FILE *f = tc_bench_csv_open(path);
    if (!f)
        return false;
    tc_bench_meta_standard(f);
    if (pol)
        tc_bench_meta_policy(f, pol);
    tc_bench_meta(f, "profiled", "%s", what);
    tc_bench_meta(f, "profiler",
                  "SIGPROF every 1/%u s to the profiled thread (a CLOCK_MONOTONIC timer; ITIMER_PROF of process "
                  "CPU time where there is none), libunwind stacks; a sample goes to the phase of its leaf-most "
                  "function in the table, else to loop",
                  r->hz);
    tc_bench_meta(f, "samples", "%llu recorded, %llu dropped (buffer full), %llu unwalkable; %.0f per CPU second",
                  (unsigned long long)r->samples, (unsigned long long)r->dropped, (unsigned long long)r->unwalkable,
                  r->effective_hz);
    tc_bench_meta(f, "cpu_s", "user %.3f, system %.3f, wall %.3f (getrusage; kernel time such as page faults is "
                              "sampled in the user function that entered the kernel)",
                  r->cpu_user_s, r->cpu_sys_s, r->wall_s);
    fputs("phase,samples,share\n", f);
    for (size_t i = 0; i < r->nphases; i++)
        fprintf(f, "%s,%llu,%.4f\n", r->phase[i].phase, (unsigned long long)r->phase[i].samples, r->phase[i].share);
    return tc_bench_csv_close(f);
}

void tc_prof_crosscheck(FILE *f, bool csv, const tc_prof_report *r, const tc_prof_counter_phase *c, size_t n)
{
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += c[i].ns;
    if (csv)
        fputs("phase,profiler_share,counter_share,difference_pp\n", f);
    else
        fprintf(f, "  %-16s %9s %9s %11s\n", "phase", "profiler", "counters", "difference");
    /* The profiler's phases in report order, then the counters' phases it does not know. */
    for (size_t row = 0; row < r->nphases + n; row++) {
        const char *phase;
        const tc_prof_phase_count *pc = NULL;
        const tc_prof_counter_phase *cc = NULL;
        if (row < r->nphases) {
            pc = &r->phase[row];
            phase = pc->phase;
            for (size_t i = 0; i < n && !cc; i++)
                if (strcmp(c[i].phase, phase) == 0)
                    cc = &c[i];
        } else {
            cc = &c[row - r->nphases];
            phase = cc->phase;
            bool known = false;
            for (size_t i = 0; i < r->nphases && !known; i++)
                known = strcmp(r->phase[i].phase, phase) == 0;
            if (known)
                continue;
        }
        bool have_p = pc && r->samples > 0, have_c = cc && total > 0;
        double ps = have_p ? 100 * pc->share : 0, cs = have_c ? 100 * cc->ns / total : 0;
        char pbuf[16] = "n/a", cbuf[16] = "n/a", dbuf[16] = "n/a";
        if (have_p)
            (void)snprintf(pbuf, sizeof pbuf, csv ? "%.2f" : "%.1f%%", ps); /* shares: 0 to 100 */
        if (have_c)
            (void)snprintf(cbuf, sizeof cbuf, csv ? "%.2f" : "%.1f%%", cs);
        if (have_p && have_c)
            (void)snprintf(dbuf, sizeof dbuf, csv ? "%.2f" : "%+.1f pp", ps - cs);
        if (csv)
            fprintf(f, "%s,%s,%s,%s\n", phase, pbuf, cbuf, dbuf);
        else
            fprintf(f, "  %-16s %9s %9s %11s\n", phase, pbuf, cbuf, dbuf);
    }
}
