/*
 * vmoverhead.h — the vm_overhead phase (tc_vmoh_*): the fixed per-operation cost of the VM
 * that the model does not execute (the emulator's dispatch of the loop and the BIF call,
 * the real scheduler's wake-ups and context switches, the timer), measured on the installed
 * VM in the same run and charged to the model's times as a labelled phase
 * (DESIGN.md rule 6).
 *
 * What is measured: the same loops on both sides with the payload [] (nothing to copy but
 * the 3-word tuples): eptest's round trip, ets:lookup of {I, []} and ets:insert of {I, []}
 * with fresh keys, N operations each, medians of R runs (unitcost.erl's `fixed`). The phase
 * per operation is the VM's cost minus the model's own cost of the same operation, never
 * below 0: what the model executes (its copies, its scheduler switch, its hash table) it
 * times itself; the rest is the VM's. Nothing is fitted: both numbers are measured here, and
 * the phase is the same for every payload length (it is per operation, not per word).
 *
 * A binary takes it with --vm-overhead (experiments: eptest, crossover, breakdown) or gets it
 * with termcopy explain --vm; without, the phase is absent and its output says so.
 */
#ifndef TC_SCENARIOS_VMOVERHEAD_H
#define TC_SCENARIOS_VMOVERHEAD_H

#include <stdbool.h>
#include <stdio.h>

#include "../heaps/policy.h"
#include "vmside.h"

TC_BEGIN_DECLS

/* The loops' length and runs (the seed's N). */
enum { TC_VMOH_N = 1000, TC_VMOH_REPEATS = 5 };

typedef struct tc_vmoh {
    bool present;
    tc_vm_fixed vm, model; /* ns per operation with the payload [] */
    /* The phase, ns per operation: vm - model, never below 0. */
    double round_trip, lookup, insert;
} tc_vmoh;

/* The model's own fixed costs under `pol` (tc_ep_run on the payload [], `n` operations, the
 * median of `reps` runs; pt_get: tc_copy_literal_get of a key holding []). false after one
 * line on stderr. */
bool tc_vmoh_model_fixed(const char *prog, const tc_policy *pol, long n, int reps, tc_vm_fixed *out);

/* The phase of both sides' fixed costs. */
tc_vmoh tc_vmoh_of(const tc_vm_fixed *vm, const tc_vm_fixed *model);
/* Both sides and the phase, the VM's from `vm` (a session the caller owns). */
bool tc_vmoh_measure_with(const char *prog, tc_vm *vm, const tc_policy *pol, tc_vmoh *out);
/* The same in a session of its own (started and stopped here on the sources in `beam_dir`,
 * NULL: the source tree's; see tc_vm_start). */
bool tc_vmoh_measure(const char *prog, const char *beam_dir, const tc_policy *pol, tc_vmoh *out);

/* The phase of one eptest pass of `iterations` operations of test `test` (tc_ep_* test
 * index: the proc passes are round trips, insert and overwrite inserts, lookup lookups,
 * empty none), in microseconds; 0 when absent. */
double tc_vmoh_pass_us(const tc_vmoh *oh, int test, long iterations);

/* The metadata line "vm_overhead": the phase per operation and both sides' fixed costs, or
 * that it is absent and how to get it. */
void tc_vmoh_meta(FILE *f, const tc_vmoh *oh, const char *how);
/* The same as one line for a human on stdout. */
void tc_vmoh_print(FILE *f, const tc_vmoh *oh, const char *how);

TC_END_DECLS

#endif
