/*
 * lookuploop.h — the brief's 7.2 loop on a modelled process, shared by heaptrace (per-lookup
 * table) and gctrace (per-GC rows): a process that calls ets:lookup/2 on one stored
 * {1, Payload} in a tail-recursive loop that drops each result.
 *
 * The ETS table is not modelled here: the object is stored once in the compact form
 * (copy/compact.h, db_store_term), and each lookup is a BIF that takes one HAlloc of
 * size + 2 words on the process (heap or fragment) and fills it with copy_shallow plus
 * the result cons (build_term_list), then returns through the era's GC trigger with the
 * result as its only live register. The process starts as gctrace.erl's spawned one does:
 * spawn copied its arguments, [Fun], onto the heap, 13 words (a cons, the fun thing: ERL_FUN_SIZE
 * 5 words + its environment Self, T, N; T's magic reference, ERTS_MAGIC_REF_THING_SIZE 3
 * words: erl_fun.h, erl_term.h, erl_process.c erl_create_process size_object of the args),
 * of which only T stays live (a 3-word tuple stands in for the reference: the model's terms
 * have no references), so the VM's first GC keeps 3 words more than the result. Tab (that
 * object) and Key sit in x0/x1; the stack is 3 words at the tail call (the spawned fun's
 * frame: Self and one; one at the bottom) and 5 during the lookup (loop/2's `allocate 2`:
 * Tab and N, made with one heap test and gone before the tail call); a GC after the BIF sees
 * one more, the JIT's return address into the light-BIF glue (policy.gc_call_words), as the
 * VM's GC trace reports (stack_size 6 at a GC after the BIF, 3 at a delayed GC at a yield); the
 * result is dropped before the next lookup. Under a GC-at-schedule
 * trigger the process is rescheduled after every lookup; under OTP25's, after a lookup
 * whose GC was delayed as long (policy.h long_gc_words), so that GC finds the result dead.
 * experiments/beam/gctrace.erl runs the same loop on the VM.
 */
#ifndef TC_SCENARIOS_LOOKUPLOOP_H
#define TC_SCENARIOS_LOOKUPLOOP_H

#include <stddef.h>

#include "../alloc/mseg.h"
#include "../copy/compact.h"
#include "../heaps/policy.h"
#include "../heaps/proc.h"
#include "../terms/arena.h"

TC_BEGIN_DECLS

/* The words spawn leaves on the heap, the stack at the tail call, loop/2's frame (above). */
#define TC_LOOP_SPAWN_WORDS 13
#define TC_LOOP_BASE_STACK 3
#define TC_LOOP_FRAME 2

typedef struct tc_lookup_loop {
    tc_policy pol;
    tc_arena *ar;
    tc_copy_compact *db;
    size_t result_words; /* what one lookup allocates: the object's flat size + 2 (the cons) */
    tc_mseg *mem;
    tc_proc *p;
} tc_lookup_loop;

/* The stored object {1, [1..length]} and a fresh process under pol, Tab and Key in x0/x1 and
 * the spawned heap and stack above. On failure nothing is left allocated and *what names the step. */
tc_result tc_lookup_loop_new(const tc_policy *pol, size_t length, tc_lookup_loop *out,
                             const char **what) TC_MUST_CHECK;
/* One lookup: the BIF, its return through the era's trigger, the tail call, and the
 * schedule-in when the era or a long GC asks for one. *what names the failing step. */
tc_result tc_lookup_loop_step(tc_lookup_loop *l, const char **what) TC_MUST_CHECK;
/* The process passes the heap verifier: the run's own check, made outside any injected
 * allocation failure (TC_MEM_FAIL_AT), so a sweep of the failure paths fails only the run. */
bool tc_lookup_loop_verify(const tc_lookup_loop *l, const char **why);
void tc_lookup_loop_free(tc_lookup_loop *l);

TC_END_DECLS

#endif
