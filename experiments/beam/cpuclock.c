/*
 * cpuclock — a NIF for the VM's side of the time account (experiments/beam/cpuclock.erl,
 * account.erl, eptest.erl's meter): the CPU time the VM's OS process has used, in ns,
 * clock_gettime(CLOCK_PROCESS_CPUTIME_ID), all threads (schedulers, dirty schedulers, their
 * idle spinning too). Erlang itself has no CPU clock finer than statistics(runtime)'s
 * milliseconds, and the machine is shared: a loop's wall time is its CPU time divided by the
 * share of the cores the other programs left it, which changes from second to second, so the
 * account is kept in CPU time and the wall time beside it. thread_ns/0 is the calling
 * thread's alone (CLOCK_THREAD_CPUTIME_ID): a scheduler's, cheaper to read, for a calibration
 * whose work stays on the process's own scheduler. minflt/0 is the OS process's minor faults
 * (getrusage, all threads) read without allocating: reading /proc/self/stat from Erlang builds
 * terms on the caller's heap, and a calibration's fresh heap pages then fault for the reading.
 * nvcsw/0 is its threads' voluntary context switches (getrusage): a scheduler thread with
 * nothing to run goes to sleep (erl_process.c scheduler_wait) and another wakes it.
 * dirty_ns/0 is the CPU time the dirty CPU schedulers' threads have used (their names in
 * /proc/self/task: "N_dirty_cpu_sch", erl_process.c's "dirty_cpu_scheduler" cut to 15
 * characters), read through each thread's CPU clock: the part of a loop's time its long GCs
 * take there (erl_gc.c check_for_possibly_long_gc), which the process clock does not part;
 * dirty_faults/0 their minor faults.
 * carrier/1 and carrier_dirty/1 do to a fresh mapping of Bytes what the allocators do to a
 * carrier their thread maps for a heap (erl_mseg.c mseg_create, mseg_destroy): mmap it, write
 * its first page, munmap it; carrier_dirty runs on a dirty CPU scheduler, as a long GC does
 * (erl_gc.c check_for_possibly_long_gc). They answer {ThreadNs, WallNs} of that work on the
 * thread that did it: the kernel's price of a carrier in the VM's own process, whose other
 * threads' CPUs a munmap must flush, which a one-threaded probe does not see.
 * hold/1 keeps the calling process running (a NIF runs with the process's main lock held)
 * until another process calls release/0, or Ms milliseconds pass: messages sent to it
 * meanwhile cannot go on its heap and are built in heap fragments (erl_message.c
 * erts_try_alloc_message_on_heap), as a reply that comes while the tester runs; it answers
 * released or timeout.
 *
 * Models no erts mechanism: an instrument.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include <dirent.h>
#include <erl_nif.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static ERL_NIF_TERM process_ns(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    (void)argv;
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0)
        return enif_make_badarg(env);
    return enif_make_uint64(env, (ErlNifUInt64)t.tv_sec * 1000000000u + (ErlNifUInt64)t.tv_nsec);
}

static ERL_NIF_TERM thread_ns(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    (void)argv;
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return enif_make_badarg(env);
    return enif_make_uint64(env, (ErlNifUInt64)t.tv_sec * 1000000000u + (ErlNifUInt64)t.tv_nsec);
}

/* One count of getrusage(RUSAGE_SELF), every thread's: its minor faults or its voluntary
 * context switches. */
static ERL_NIF_TERM rusage_count(ErlNifEnv *env, int voluntary_switches)
{
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0)
        return enif_make_badarg(env);
    return enif_make_uint64(env, (ErlNifUInt64)(voluntary_switches ? u.ru_nvcsw : u.ru_minflt));
}

static ERL_NIF_TERM minflt(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    (void)argv;
    return rusage_count(env, 0);
}

static ERL_NIF_TERM nvcsw(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    (void)argv;
    return rusage_count(env, 1);
}

static ErlNifUInt64 clock_ns(clockid_t id)
{
    struct timespec t;
    (void)clock_gettime(id, &t);
    return (ErlNifUInt64)t.tv_sec * 1000000000u + (ErlNifUInt64)t.tv_nsec;
}

/* A thread of this process by its id: its CPU clock (the kernel's per-thread CPU-clock id,
 * what glibc's pthread_getcpuclockid makes: CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED). */
static clockid_t thread_clock(long tid) { return (clockid_t)((~(unsigned long)tid << 3) | 6u); }

/* Over the dirty CPU schedulers' threads: the sum of their CPU time in ns (faults 0) or of
 * their minor faults (faults 1: field 10 of /proc/self/task/TID/stat); -1 when /proc fails. */
static long long dirty_sum(int faults)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    long long sum = 0;
    struct dirent *e;
    /* cppcheck-suppress readdirCalled ; one directory stream per call, never shared */
    while ((e = readdir(d)) != NULL) {
        char path[64], buf[512] = "";
        long tid = strtol(e->d_name, NULL, 10);
        if (tid <= 0)
            continue;
        (void)snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        (void)fclose(f);
        buf[n] = '\0';
        const char *name = strchr(buf, '('), *rest = strrchr(buf, ')');
        if (!name || !rest || !strstr(name, "_dirty_cpu_") || strstr(name, "_dirty_cpu_") > rest)
            continue;
        if (faults) {
            /* after ")": state ppid pgrp session tty_nr tpgid flags minflt, one space before each */
            const char *q = rest;
            for (int k = 0; k < 8 && q; k++)
                q = strchr(q + 1, ' ');
            char *end;
            unsigned long minflt = q ? strtoul(q + 1, &end, 10) : 0;
            if (q && end != q + 1)
                sum += (long long)minflt;
        } else {
            struct timespec t;
            if (clock_gettime(thread_clock(tid), &t) == 0)
                sum += (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
        }
    }
    (void)closedir(d);
    return sum;
}

static ERL_NIF_TERM dirty_ns(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    (void)argv;
    long long v = dirty_sum(0);
    return v < 0 ? enif_make_badarg(env) : enif_make_uint64(env, (ErlNifUInt64)v);
}

static ERL_NIF_TERM dirty_faults(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    (void)argv;
    long long v = dirty_sum(1);
    return v < 0 ? enif_make_badarg(env) : enif_make_uint64(env, (ErlNifUInt64)v);
}

static ERL_NIF_TERM carrier(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    ErlNifUInt64 bytes;
    long page = sysconf(_SC_PAGESIZE);
    if (!enif_get_uint64(env, argv[0], &bytes) || bytes == 0 || bytes > ((ErlNifUInt64)1 << 32) || page <= 0)
        return enif_make_badarg(env);
    size_t len = (size_t)((bytes + (ErlNifUInt64)page - 1) / (ErlNifUInt64)page * (ErlNifUInt64)page);
    ErlNifUInt64 c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), w0 = clock_ns(CLOCK_MONOTONIC);
    /* cppcheck-suppress invalidFunctionArg ; MAP_ANONYMOUS takes fd -1 (cppcheck's posix.cfg wants >= 0) */
    volatile char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == (volatile char *)MAP_FAILED)
        return enif_make_badarg(env);
    m[0] = 1;
    (void)munmap((void *)m, len);
    ErlNifUInt64 c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID), w1 = clock_ns(CLOCK_MONOTONIC);
    return enif_make_tuple2(env, enif_make_uint64(env, c1 - c0), enif_make_uint64(env, w1 - w0));
}

/* hold/1's flag: release/0 sets it, hold/1 takes it back. */
static atomic_int released;

static ERL_NIF_TERM hold(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    unsigned ms;
    if (!enif_get_uint(env, argv[0], &ms) || ms > 10000)
        return enif_make_badarg(env);
    ErlNifUInt64 end = clock_ns(CLOCK_MONOTONIC) + (ErlNifUInt64)ms * 1000000u;
    while (!atomic_exchange(&released, 0))
        if (clock_ns(CLOCK_MONOTONIC) >= end)
            return enif_make_atom(env, "timeout");
    return enif_make_atom(env, "released");
}

static ERL_NIF_TERM release(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[])
{
    (void)argc;
    (void)argv;
    atomic_store(&released, 1);
    return enif_make_atom(env, "ok");
}

static ErlNifFunc funcs[] = {{"process_ns", 0, process_ns, 0},
                             {"thread_ns", 0, thread_ns, 0},
                             {"minflt", 0, minflt, 0},
                             {"nvcsw", 0, nvcsw, 0},
                             {"dirty_ns", 0, dirty_ns, 0},
                             {"dirty_faults", 0, dirty_faults, 0},
                             {"carrier", 1, carrier, 0},
                             {"carrier_dirty", 1, carrier, ERL_NIF_DIRTY_JOB_CPU_BOUND},
                             {"hold", 1, hold, 0},
                             {"release", 0, release, 0}};

ERL_NIF_INIT(cpuclock, funcs, NULL, NULL, NULL, NULL)
