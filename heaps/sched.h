/*
 * sched.h — one scheduler thread running modelled processes (erts: erl_process.c
 * schedule() and its run queue; R10B's non-SMP loop, which calls erl_sys_schedule to
 * poll I/O and bump timers whenever more than INPUT_REDUCTIONS reductions ran since the
 * last poll; the emulator's reduction counting and BUMP_ALL_REDS; OTP 21+'s
 * remove_message, which leaves a receiver 5 reductions when a GC is desired).
 *
 * A process's code is a step function over its own state: each call does one reduction's
 * worth of work (a send, a receive, a BIF, a loop iteration) and says what comes next.
 * The scheduler switches between processes for real: it takes the next runnable task off
 * the run queue, runs its schedule-in safe point (tc_proc_schedule_in_maybe_gc: where R10B
 * collects a process whose fragments forced a yield, and where a modern process collects
 * when a GC is desired: erl_process.c schedule, ERTS_IS_GC_DESIRED, scheduler_gc_proc),
 * gives it policy.context_reds (CONTEXT_REDS, erl_vm.h: 4000 in OTP 25, 1000 in R10B-2)
 * less that GC's cost, then steps it until it waits in receive, yields, finishes or has
 * used its reductions.
 *
 * Reductions: a step is one call (a BIF call and a local call each take one, as the JIT's
 * `dec FCALLS` does; a step that makes more says so with tc_sched_bump), plus what the
 * runtime charged the process in it (tc_proc_take_reds): the GC's cost (OTP 25 gc_cost:
 * live words / 10 + words a resize moved / 100, at least 1, bumped by
 * erts_gc_after_bif_call_lhf and taken from FCALLS at TestHeap; R10B-2 ggc.c: live / 10) and
 * the modern sender's message charge (send.h). The slice ends once they reach zero or
 * below. A GC run at schedule-in costs the new slice, except a delayed one (it ran on a
 * dirty scheduler).
 *
 * Rules from the process's policy:
 * - a step after which HAlloc asked for a yield (BUMP_ALL_REDS: R10B-2's fragments, OTP 25's
 *   delayed GC) ends the slice with all its reductions charged;
 * - policy.input_reductions (R10B-2 INPUT_REDUCTIONS, 2000; 0 in OTP 25): past that many
 *   charged reductions the scheduler does erl_sys_schedule's work, a real poll(2) with zero
 *   timeout and a clock read;
 * - policy.receive_gc_reds (OTP 25: 5; 0 in R10B-2): a receive that leaves a GC desired cuts
 *   the slice to that many reductions, so the collection runs at the next schedule-in, when
 *   the message has become garbage;
 * - policy.receive_fetch_reds (OTP 25: 4; 0 in R10B-2 and R13B01): a receive that takes a
 *   message pays the loop_rec's fetch (erl_proc_sig_queue.c erts_proc_sig_receive_helper:
 *   consumed_reds += 4 when the inner queue is empty and the outer one is fetched), and one
 *   more when its receives are traced (tc_proc_set_trace_receive: the fetched messages go to
 *   the middle queue, erts_proc_sig_fetch__, and erts_proc_sig_handle_incoming moves them for
 *   cnt / ERTS_SIG_REDS_CNT_FACTOR + 1 = 1). The model's receivers take only messages that
 *   arrived while they were out, which the VM fetches at that loop_rec (a GC after a BIF
 *   fetches too, erts_gc_after_bif_call_lhf: not modelled); a loop_rec that finds nothing
 *   waits, and what it paid went with the slice;
 * - policy.call_reds: a step runs only with that many reductions left, 2 in OTP 25 (the JIT's
 *   call must leave FCALLS positive after its decrement), 1 in R10B-2 (beam_emu.c
 *   DispatchMacro tests FCALLS > 0, then decrements).
 * - policy.long_gc_words (OTP 25): a schedule-in whose GC would be long, with another task
 *   queued, does not run the task (gc.h tc_proc_schedule_in_goes_dirty: erts_schedule sends
 *   the GC to a dirty CPU scheduler and schedules the process out); the task goes to the back
 *   of the queue and its GC runs, as the dirty one, at its next schedule-in, after the tasks
 *   queued before it have had their turn. With none queued the GC runs in place, its heaps
 *   from the dirty scheduler's allocator instance as in the VM (gc.c collect). In the VM
 *   the dirty GC and those turns run at once on two threads, and which comes first (for a
 *   message one of them sends the process: in the queue when the GC starts, or not) is a
 *   race. policy.dirty_gc_first says which comes first in the model. Off, the normal
 *   scheduler's turn: the GC at the process's next schedule-in. On (OTP 25): the GC runs as
 *   the process leaves (a long GC after a BIF, or one a
 *   schedule-in sent dirty), before the queued tasks, and the process stays locked until the
 *   normal scheduler takes it again (tc_sched_is_locked), so what the next task sends it goes
 *   to a fragment the GC did not see. The race is the dirty CPU scheduler thread's wake-up
 *   against the normal scheduler's switch to the next task and that task's work, and a
 *   third outcome follows from it: the GC first and over before that task sends, so the lock
 *   is free and the message lands on the new heap (tc_draw, TC_DRAW_GC_OVER). A caller can
 *   give the outcomes draw by draw (tc_sched_set_draws); experiments/beam/tracediff.sh
 *   --search-draws looks for those under which the model's trace is a VM trace's, and at
 *   +S 1:1 finds them at every point of its grid (the report's §5.2). On
 *   this machine the VM's traces mostly take the GC first: gctrace.erl --tester with the
 *   gcnif tracer at +S 1:1 over tracediff.sh's 55-point grid (one run, 2026-12-03) is
 *   identical to the model's for the tester's whole life at 49 points with the switch off and
 *   at 51 with it on, and each of the four left with it on differs at one call where the VM's
 *   server went first (ints 20000 proc1's 9th call, tuple 30000 its 158th, strings 5000
 *   proc2's 992nd) or at a GC the model adds (floats 10000); at tuple 28000 the VM starts the
 *   GC first at proc1's 113th call and its 844 GCs are the model's with the switch on, GC for
 *   GC (pass counts cannot tell the two there: one GC more in proc1). The sweep at +S 2:2
 *   (experiments/beam/sweep.sh --remodel of its VM runs) says the same: the lookup's and the
 *   round trip's GCs within 3 % of the VM's median at 205 of its 210 points with the switch
 *   on, 185 with it off. So OTP 25's value is on; what remains are the VM's server-first
 *   draws, which no deterministic model gives. At ints
 *   L = 18250 the same point gives 250 or 500 GCs per pass from run to run at +S 1:1 and 2:2,
 *   and gctrace.erl's two traces are the model's with the switch off and on, GC for GC. Each
 *   long GC is a new draw (ints 20000: server first at proc1's 9th call, GC first at its
 *   21st). At +S 2:2 there is a second race the one run
 *   queue cannot give: the other normal scheduler may take the tester, queued behind the
 *   server after its send's yield, and run its schedule-in GC while the server copies the
 *   reply (the same trace: a GC of every call while the two ran on two schedulers), so a
 *   run's count can exceed the switch's.
 * - Which normal scheduler runs the tester is a third draw at +S 2:2, and its allocator
 *   instance goes with it: the model's processes allocate from one instance (and the dirty
 *   one). OTP 25 compacts a light load onto fewer run queues (erl_process.c check_balance,
 *   +scl true by default: past ERTS_RUNQ_CHECK_BALANCE_REDS_PER_SCHED reductions it sets
 *   migration paths that empty the highest run queue), so a tester that starts on the second
 *   scheduler moves to the first during its passes, and there its heaps find none of its
 *   segments cached. Measured with gctrace.erl --tester strings at L = 25000 (+S 2:2, three
 *   runs, 2026-12-07): two testers began on scheduler 2 and moved to 1 in proc2 (4 carriers
 *   mapped there, about 1,700 faults), one began on 1 and stayed (none, 18 faults); with
 *   +scl false four runs moved none (none mapped in proc2). The model runs the tester where
 *   it stays.
 *
 * Where this differs from erts: a long GC at a schedule-in with no other task queued runs in
 * place, its reductions charged and its heap from the normal scheduler's allocator instance
 * (erts runs it on the dirty scheduler too, with that scheduler's instance, and the process
 * comes back with a whole slice); one run queue with no priorities, no timers, no ports; the
 * VM checks each of a step's later calls too, the model charges them after the step (the
 * experiments' steps allocate nothing after their first call but the BIF's own result);
 * modern I/O polling (separate poll threads) is not modelled.
 */
#ifndef TC_SCHED_H
#define TC_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc.h"

TC_BEGIN_DECLS


typedef struct tc_sched tc_sched;
typedef struct tc_task tc_task;

typedef enum tc_step {
    TC_STEP_CONTINUE, /* more work this slice */
    TC_STEP_WAIT,     /* blocked in receive: runnable again when a message arrives */
    TC_STEP_YIELD,    /* give up the rest of the slice */
    TC_STEP_DONE,     /* the process exits */
    TC_STEP_ERROR     /* stop everything: the task's `error` says why */
} tc_step;

typedef tc_step (*tc_task_fn)(tc_task *t);

typedef enum tc_task_status { TC_TASK_RUNNABLE, TC_TASK_WAITING, TC_TASK_DONE } tc_task_status;

struct tc_task {
    tc_proc *proc;
    tc_task_fn step;
    void *state;
    tc_sched *sched;
    tc_task_status status;
    int64_t reds_left; /* of the current slice */
    tc_result error;
    tc_task *next; /* run queue */
    bool running;  /* spawned running: its first turn is no schedule-in (tc_sched_spawn_running) */
    bool entry_steps; /* each step begins at a function's entry (tc_sched_entry_steps) */
    bool entered;     /* its slice ended at that entry's decrement: the next step is past it */
    bool on_dirty;    /* policy.dirty_gc_first: its GC went to a dirty scheduler as it left, and
                       * the normal scheduler has not taken it again (tc_sched_is_locked) */
};

/* The outcomes of the dirty-GC race (the header's policy.long_gc_words rule), one per long GC
 * sent to a dirty scheduler while another task was queued, in the order they come:
 * TC_DRAW_GC_FIRST: the dirty scheduler collects before the queued tasks run, and the
 * process stays locked until the normal scheduler takes it again (policy.dirty_gc_first on);
 * TC_DRAW_GC_OVER: the same, and the GC ends before the next task sends it anything, so the
 * lock is free again (a message then lands on its new heap);
 * TC_DRAW_SERVER_FIRST: the queued tasks run first and the GC at its next schedule-in sees
 * what they sent (policy.dirty_gc_first off).
 * On the VM each outcome is a matter of the two threads' times; the model takes the
 * policy's unless tc_sched_set_draws gives it the outcomes one by one (a VM trace's, to show
 * that the model follows it once its draws go the VM's way: tracediff.sh --draws). */
typedef enum tc_draw {
    TC_DRAW_GC_FIRST = 'g',
    TC_DRAW_GC_OVER = 'h',
    TC_DRAW_SERVER_FIRST = 's'
} tc_draw;

/* Called at each draw with its index (0, 1, ...), the task whose GC it is and its outcome. */
typedef void (*tc_draw_fn)(void *ctx, unsigned index, const tc_task *t, tc_draw outcome);

typedef struct tc_sched_stats {
    uint64_t switches;      /* a task scheduled in */
    uint64_t steps;         /* reductions run */
    uint64_t forced_yields; /* R10B BUMP_ALL_REDS slices */
    uint64_t io_polls;      /* R10B erl_sys_schedule calls */
    uint64_t reds_cut;      /* modern receives that left only 5 reductions */
} tc_sched_stats;

struct tc_sched {
    tc_task *head, *tail;
    tc_task *current; /* the task whose step runs now (NULL between steps) */
    uint64_t function_calls; /* reductions charged since the last I/O poll */
    tc_sched_stats stats;
    const char *draws; /* tc_sched_set_draws: outcomes by index, NULL for the policy's */
    size_t ndraws;
    unsigned draws_taken;
    tc_draw_fn on_draw;
    void *draw_ctx;
};

void tc_sched_init(tc_sched *s);
/* The dirty-GC race's outcomes from now on: draws[i] (a tc_draw letter) decides the i-th draw
 * of the run, policy.dirty_gc_first the draws past its end. NULL: the policy's for all. The
 * string must outlive the run. `fn` (or NULL) sees every draw taken. */
void tc_sched_set_draws(tc_sched *s, const char *draws, tc_draw_fn fn, void *ctx);
/* Is `c` a tc_draw letter? */
bool tc_sched_draw_valid(char c);
/* Makes `t` a runnable process running `fn` over `state` on `p`. */
void tc_sched_spawn(tc_sched *s, tc_task *t, tc_proc *p, tc_task_fn fn, void *state);
/* Makes `t` the process that is running now (code that called into it, as a function calls
 * another): it is first in the queue, and its first turn goes on with `reds_left` reductions
 * of its slice with no schedule-in (no switch, no schedule-in GC). When the reductions are
 * spent before its first step, it yields instead. */
void tc_sched_spawn_running(tc_sched *s, tc_task *t, tc_proc *p, tc_task_fn fn, void *state, int64_t reds_left);
/* Every step of `t` begins at a function's entry (the callee's reduction test). Under
 * policy.call_reds 2 (the OTP 25 JIT's emit_i_test_yield: `dec FCALLS; jle yieldEnter`) a
 * slice that ends there has made the entry's decrement, and i_test_yield_shared saves the
 * address after it (TEST_YIELD_RETURN_OFFSET): the process resumes past the test, so the
 * step it runs at its next schedule-in does not pay for its entry again. (R10B's
 * DispatchMacro tests before it decrements: a yield there pays at the resume.) */
void tc_sched_entry_steps(tc_task *t);
/* A message was queued to `t`: a waiting task becomes runnable. */
void tc_sched_wake(tc_task *t);
/* The running step made `reds` calls more than the one every step is charged. */
void tc_sched_bump(tc_task *t, int64_t reds);
/* receive: takes the first message (false: none, the step should return TC_STEP_WAIT).
 * Runs loop_rec's safe point first (tc_proc_loop_rec_maybe_gc: R13B01 copies a message's
 * fragment onto the heap, or collects; a failed GC sets t->error, returns false, and
 * tc_sched_run returns that error). Applies policy.receive_gc_reds' slice cut. */
bool tc_sched_receive(tc_task *t, tc_term *msg);
/* receive in two halves, as the JIT runs it: loop_rec takes the first message (false: none,
 * the step should return TC_STEP_WAIT) and, under policy.receive_delays_gc, sets F_DELAY_GC,
 * so a heap test before remove_message delays its GC (proc.h) and no GC runs at a
 * schedule-in while the process waits; remove_message clears it and applies
 * policy.receive_gc_reds' slice cut. tc_sched_receive is both at once. */
bool tc_sched_loop_rec(tc_task *t, tc_term *msg);
void tc_sched_remove_message(tc_task *t);
/* `t` is the process running now (its step is executing): a sender cannot take its main
 * lock, so a message to it goes to a fragment (erl_message.c erts_try_alloc_message_on_heap).
 * A process that yielded or waits is not running: its lock is free. */
bool tc_sched_is_running(const tc_task *t);
/* A sender cannot take `t`'s main lock: it is running, or (policy.dirty_gc_first) its GC went
 * to a dirty scheduler as it left and the normal scheduler has not taken it back. The dirty
 * scheduler holds the main lock for the whole GC (erl_process.c erts_execute_dirty_system_task),
 * so in the race's GC-first outcome the message the next task sends it goes to a fragment
 * (erl_message.c erts_alloc_message_heap_state) and into its queue after the GC's fetch: the
 * model's GC has already run, and the message lands where the VM's does only if the lock is
 * held until the process is scheduled in again. A message sent after the VM's GC ended and
 * before that schedule-in would find the lock free; the model sends none in that window: the
 * next task's send starts microseconds after the process leaves, the GC lasts longer. */
bool tc_sched_is_locked(const tc_task *t);
/* The running step's reductions so far (its own call and what the runtime charged it, e.g.
 * a send's) leave none of the slice: a BIF that checks ERTS_IS_PROC_OUT_OF_REDS now yields
 * (erl_send's yield return keeps the light BIF's return address on the stack). */
bool tc_sched_slice_spent(const tc_task *t);
/* Runs until no task is runnable. TC_OK, or the error of a task that stopped, or of a
 * schedule-in GC. */
tc_result tc_sched_run(tc_sched *s) TC_MUST_CHECK;

TC_END_DECLS

#endif
