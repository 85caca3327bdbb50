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
 *
 * Models no erts mechanism: an instrument.
 */
#include <erl_nif.h>
#include <sys/resource.h>
#include <time.h>

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

static ErlNifFunc funcs[] = {{"process_ns", 0, process_ns, 0},
                             {"thread_ns", 0, thread_ns, 0},
                             {"minflt", 0, minflt, 0},
                             {"nvcsw", 0, nvcsw, 0}};

ERL_NIF_INIT(cpuclock, funcs, NULL, NULL, NULL, NULL)
