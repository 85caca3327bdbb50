#include "vmoverhead.h"

#include <stdlib.h>

#include "../copy/literal.h"
#include "timing.h"
#include "../terms/atom.h"
#include "workload.h"

/* persistent_term:get of a key holding [], n times: the ns of the whole loop. */
static bool pt_loop_ns(long n, double *ns)
{
    tc_copy_literal_area *la = tc_copy_literal_area_new(64);
    tc_term key, v = TC_NIL;
    bool ok = la && tc_atom_intern("unitcost", 8, &key) == TC_OK && tc_copy_literal_put(la, key, TC_NIL, NULL) == TC_OK;
    uint64_t t0 = tc_timing_now_ns();
    for (long i = 0; ok && i < n; i++) {
        ok = tc_copy_literal_get(la, key, &v) == TC_OK;
        __asm__ volatile("" : : "r"(v) : "memory"); /* the result is used */
    }
    *ns = tc_timing_elapsed_ns(t0, tc_timing_now_ns());
    tc_copy_literal_area_free(la);
    return ok;
}

bool tc_vmoh_model_fixed(const char *prog, const tc_policy *pol, long n, int reps, tc_vm_fixed *out)
{
    enum { MAX_REPS = 64 };
    double rt[MAX_REPS], lk[MAX_REPS], ins[MAX_REPS], pt[MAX_REPS];
    if (reps < 1 || reps > MAX_REPS || n < 1)
        return false;
    tc_ep_config cfg = {.len = 0, .iterations = n, .policy = *pol, .payload = TC_NIL};
    for (int k = 0; k < reps; k++) {
        tc_ep_counts c[TC_EP_TESTS];
        tc_result r = tc_ep_run(&cfg, c);
        if (r != TC_OK || !pt_loop_ns(n, &pt[k])) {
            fprintf(stderr, "%s: the model's fixed-cost run failed: %s\n", prog, tc_result_name(r == TC_OK ? TC_ENOMEM : r));
            return false;
        }
        double passes[3] = {c[TC_EP_PROC1].us, c[TC_EP_PROC2].us, c[TC_EP_PROC3].us};
        rt[k] = tc_timing_summarize(passes, 3).median;
        lk[k] = c[TC_EP_LOOKUP].us;
        ins[k] = c[TC_EP_INSERT].us;
    }
    double per_op = 1000.0 / (double)n; /* us per loop -> ns per operation */
    out->round_trip = tc_timing_summarize(rt, (size_t)reps).median * per_op;
    out->lookup = tc_timing_summarize(lk, (size_t)reps).median * per_op;
    out->insert = tc_timing_summarize(ins, (size_t)reps).median * per_op;
    out->pt_get = tc_timing_summarize(pt, (size_t)reps).median / (double)n;
    return true;
}

static double above_zero(double x) { return x > 0 ? x : 0; }

tc_vmoh tc_vmoh_of(const tc_vm_fixed *vm, const tc_vm_fixed *model)
{
    tc_vmoh oh = {.present = true, .vm = *vm, .model = *model};
    oh.round_trip = above_zero(vm->round_trip - model->round_trip);
    oh.lookup = above_zero(vm->lookup - model->lookup);
    oh.insert = above_zero(vm->insert - model->insert);
    return oh;
}

bool tc_vmoh_measure_with(const char *prog, tc_vm *vm, const tc_policy *pol, tc_vmoh *out)
{
    tc_vm_fixed v, m;
    /* The VM first, then the model: each side's loops back to back, as eptest runs them. */
    if (!tc_vm_fixed_costs(vm, TC_VMOH_N, TC_VMOH_REPEATS, &v) ||
        !tc_vmoh_model_fixed(prog, pol, TC_VMOH_N, TC_VMOH_REPEATS, &m))
        return false;
    *out = tc_vmoh_of(&v, &m);
    return true;
}

bool tc_vmoh_measure(const char *prog, const char *beam_dir, const tc_policy *pol, tc_vmoh *out)
{
    tc_vm *vm = tc_vm_start(prog, beam_dir);
    if (!vm)
        return false;
    bool ok = tc_vmoh_measure_with(prog, vm, pol, out);
    tc_vm_stop(vm);
    return ok;
}

double tc_vmoh_pass_us(const tc_vmoh *oh, int test, long iterations)
{
    if (!oh || !oh->present)
        return 0;
    double per_op = test <= TC_EP_PROC3                                    ? oh->round_trip
                    : test == TC_EP_INSERT || test == TC_EP_OVERWRITE ? oh->insert
                    : test == TC_EP_LOOKUP                                 ? oh->lookup
                                                                           : 0;
    return per_op * (double)iterations / 1000.0;
}

static void describe(FILE *f, const char *lead, const tc_vmoh *oh, const char *how)
{
    if (!oh->present) {
        fprintf(f, "%sabsent (%s)\n", lead, how);
        return;
    }
    fprintf(f,
            "%sns per operation: round trip %.1f, lookup %.1f, insert %.1f (VM - model with the payload []: "
            "round trip %.1f - %.1f, lookup %.1f - %.1f, insert %.1f - %.1f; median of %d loops of %d, this run)\n",
            lead, oh->round_trip, oh->lookup, oh->insert, oh->vm.round_trip, oh->model.round_trip, oh->vm.lookup,
            oh->model.lookup, oh->vm.insert, oh->model.insert, TC_VMOH_REPEATS, TC_VMOH_N);
}

void tc_vmoh_meta(FILE *f, const tc_vmoh *oh, const char *how) { describe(f, "# vm_overhead: ", oh, how); }

void tc_vmoh_print(FILE *f, const tc_vmoh *oh, const char *how) { describe(f, "vm_overhead: ", oh, how); }
