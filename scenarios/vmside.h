/*
 * vmside.h — a session with the installed VM (tc_vm_*): `erl` started once, running
 * experiments/beam/unitcost.erl, asked one measurement at a time over a pipe, so that a
 * binary can alternate the model's measurements with the VM's in one run (unitcost --vm,
 * and the vm_overhead phase of vmoverhead.h).
 *
 * Models no erts mechanism: it is the instrument's other half. The VM runs as
 * experiments/beam/run.sh runs every twin: `erl -noshell +S 2:2`.
 */
#ifndef TC_SCENARIOS_VMSIDE_H
#define TC_SCENARIOS_VMSIDE_H

#include <stdbool.h>
#include <stddef.h>

#include "../terms/base.h"

TC_BEGIN_DECLS

typedef struct tc_vm tc_vm;

/* The emulator flags every session runs with (recorded in the CSVs' metadata). */
#define TC_VM_FLAGS "+S 2:2"

/* Whether `name` is an executable file in a PATH directory. */
bool tc_vm_on_path(const char *name);
/* The same, and the file found first (PATH's order) in file[size]: which VM a session runs. */
bool tc_vm_which(const char *name, char *file, size_t size);
/* Whether erl and erlc both are. */
bool tc_vm_installed(void);

/* The environment variable naming a directory where sessions keep their compiled modules
 * (made when missing) and reuse them while every .beam is at least as new as its source: the
 * report pipeline sets it, so that its many sessions compile once, and explain --vm sets it to
 * its own temporary directory for its three. Unset, each session compiles into a temporary
 * directory of its own, removed when it stops. */
#define TC_VM_BEAM_CACHE "TC_BEAM_CACHE"

/* Compiles the session's modules (eptest, unitcost, account, cpuclock) of `beam_dir` (NULL: the
 * source tree's experiments/beam) into the directory `out`, unless each .beam there is at least
 * as new as its .erl. false after one line on stderr (prefixed "PROG: "). */
bool tc_vm_compile(const char *prog, const char *beam_dir, const char *out);

/* Compiles the modules (into TC_BEAM_CACHE when it is set, else a temporary directory) and
 * starts erl on them. NULL after one line on stderr (prefixed "PROG: ") when erl or erlc is
 * missing, the sources are not there, or the VM does not start. */
tc_vm *tc_vm_start(const char *prog, const char *beam_dir);
/* Asks the VM to quit, waits for it and removes its temporary directory (never the cache).
 * NULL: nothing. */
void tc_vm_stop(tc_vm *vm);

/* The median ns of one operation `unit` (size_object, copy_struct, copy_shallow, gc_copy,
 * encode, decode) on eptest:payload(shape, len) (shape "nil": the payload []) over `reps`
 * timed operations, in a fresh process of the VM, and the mean minor faults of one. false
 * after one line on stderr. */
bool tc_vm_point(tc_vm *vm, const char *unit, const char *shape, long len, int reps, double *ns, double *faults);

/* The fixed cost of one operation with the payload [], each the median of `reps` loops of
 * `n` operations: a client-server round trip, an ets:lookup, an ets:insert of a fresh key,
 * a persistent_term:get (ns per operation). */
typedef struct tc_vm_fixed {
    double round_trip, lookup, insert, pt_get;
} tc_vm_fixed;
bool tc_vm_fixed_costs(tc_vm *vm, long n, int reps, tc_vm_fixed *out);

/* A session for the time account (scenarios/account.h): the same VM with its schedulers'
 * busy wait off (+sbwt none +sbwtdcpu none +sbwtdio none: an idle scheduler sleeps at once,
 * so the process CPU clock counts work, not spinning; the loops' counts are the same) and
 * the cpuclock NIF (experiments/beam/cpuclock.c, built beside the experiments where
 * erl_nif.h is) loaded from `nif_dir` (NULL: the build tree's). NULL after one line on
 * stderr, as tc_vm_start. */
tc_vm *tc_vm_start_account(const char *prog, const char *beam_dir, const char *nif_dir);
/* The emulator flags of such a session. */
#define TC_VM_ACCOUNT_FLAGS TC_VM_FLAGS " +sbwt none +sbwtdcpu none +sbwtdio none"

/* One eptest pass on the VM (experiments/beam/account.erl loops/2): its CPU time (the median
 * of the untraced testers'), wall time and traced run's wall time (us); from that untraced run the OS process's minor faults,
 * erlang:statistics GCs, mseg_alloc's creates and destroys; from the traced run, summed over
 * tester and server, the GCs by kind, those that went dirty, the words the collector copied,
 * the message words moved onto the heap, the fragment words the GCs found, the GCs' time by
 * the trace's timestamps and the largest heap block. */
typedef struct tc_vm_pass {
    char test[16];
    double cpu_us, wall_us, traced_us;
    double cpu_lo_us, cpu_hi_us; /* the fastest and slowest of the testers whose median cpu_us is */
    double testers;              /* how many untraced testers ran the pass */
    double faults, gcs, carriers, unmapped;
    double dirty_carriers; /* of carriers, those mseg instance 0 mapped: a dirty scheduler's */
    double dirty_cpu_us;   /* of cpu_us, the dirty CPU schedulers' threads' */
    double minor, major, dirty, copied, moved, mbuf, gc_us, heap;
    double sleeps; /* the VM's threads' voluntary context switches: schedulers going to sleep */
} tc_vm_pass;

/* One calibration row (account.erl prices/3): for `loop` ("rt" or "lookup"), `unit`'s median
 * CPU and wall ns per operation, its faults and GCs per operation, the words it moves, the
 * operations timed. */
typedef struct tc_vm_price {
    char loop[8], unit[16];
    double cpu_ns, wall_ns, faults, gcs, words, ops;
    double sleeps; /* per operation, as faults */
} tc_vm_price;

enum { TC_VM_ACCOUNT_PASSES = 4, TC_VM_ACCOUNT_PRICES = 40 };
typedef struct tc_vm_account {
    uint64_t words; /* flat_size(Data) */
    tc_vm_pass pass[TC_VM_ACCOUNT_PASSES];
    int npasses;
    tc_vm_price price[TC_VM_ACCOUNT_PRICES];
    int nprices;
} tc_vm_account;

/* One point of the account on the VM: eptest's loops on `payload` (a shape name, or
 * "ext:FILE": the term of the external format in FILE) of length `len`, `n` operations a
 * pass, then each loop's calibrations. Needs a tc_vm_start_account session. false after one
 * line on stderr. */
bool tc_vm_account_point(tc_vm *vm, const char *payload, long len, long n, tc_vm_account *out);

TC_END_DECLS

#endif
