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
/* Whether erl and erlc both are. */
bool tc_vm_installed(void);

/* Compiles eptest.erl and unitcost.erl from `beam_dir` (NULL: the source tree's
 * experiments/beam) into a temporary directory and starts erl on them. NULL after one line on stderr (prefixed "PROG: ") when erl or erlc is missing,
 * the sources are not there, or the VM does not start. */
tc_vm *tc_vm_start(const char *prog, const char *beam_dir);
/* Asks the VM to quit, waits for it and removes the temporary directory. NULL: nothing. */
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

TC_END_DECLS

#endif
