/*
 * lookuploop.h — the brief's 7.2 loop on a modelled process, shared by heaptrace (per-lookup
 * table) and gctrace (per-GC rows): a process that calls ets:lookup/2 on one stored
 * {1, Payload} in a tail-recursive loop that drops each result.
 *
 * The ETS table is not modelled here: the object is stored once in the compact form
 * (copy/compact.h, db_store_term), and each lookup is a BIF that takes one HAlloc of
 * size + 2 words on the process (heap or fragment) and fills it with copy_shallow plus
 * the result cons (build_term_list), then returns through the era's GC trigger with the
 * result as its only live register. The loop keeps Tab and Key (immediates) in x0/x1 and
 * 6 words of stack, the VM's for gctrace.erl's loop (its frame: Tab, N and a return address;
 * the spawned fun's: Self and one; one at the bottom; a 3-argument loop of the same shape
 * reports stack_size 7); the result is dropped before the next lookup. Under a GC-at-schedule
 * trigger the process is rescheduled after every lookup; under OTP25's, after a lookup
 * whose GC was delayed as long (policy.h long_gc_words), so that GC finds the result dead.
 * experiments/beam/gctrace.erl runs the same loop on the VM.
 */
#ifndef TC_BENCH_LOOKUPLOOP_H
#define TC_BENCH_LOOKUPLOOP_H

#include <stddef.h>

#include "alloc/mseg.h"
#include "copy/compact.h"
#include "procs/policy.h"
#include "procs/proc.h"
#include "terms/arena.h"

typedef struct tc_lookup_loop {
    tc_policy pol;
    tc_arena *ar;
    tc_copy_compact *db;
    size_t result_words; /* what one lookup allocates: the object's flat size + 2 (the cons) */
    tc_mseg *mem;
    tc_proc *p;
} tc_lookup_loop;

/* The stored object {1, [1..length]} and a fresh process under pol, Tab and Key in x0/x1 and
 * 6 stack words. On failure nothing is left allocated and *what names the step. */
tc_result tc_lookup_loop_new(const tc_policy *pol, size_t length, tc_lookup_loop *out,
                             const char **what) TC_MUST_CHECK;
/* One lookup: the BIF, its return through the era's trigger, the tail call, and the
 * schedule-in when the era or a long GC asks for one. *what names the failing step. */
tc_result tc_lookup_loop_step(tc_lookup_loop *l, const char **what) TC_MUST_CHECK;
/* The process passes the heap verifier: the run's own check, made outside any injected
 * allocation failure (TC_MEM_FAIL_AT), so a sweep of the failure paths fails only the run. */
bool tc_lookup_loop_verify(const tc_lookup_loop *l, const char **why);
void tc_lookup_loop_free(tc_lookup_loop *l);

#endif
