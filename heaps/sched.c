#include "sched.h"

#include <poll.h>
#include <string.h>
#include <time.h>

#include "gc.h"
#include "proc_impl.h"

void tc_sched_init(tc_sched *s) { *s = (tc_sched){0}; }

void tc_sched_set_draws(tc_sched *s, const char *draws, tc_draw_fn fn, void *ctx)
{
    s->draws = draws;
    s->ndraws = draws ? strlen(draws) : 0;
    s->on_draw = fn;
    s->draw_ctx = ctx;
}

bool tc_sched_draw_valid(char c)
{
    return c == TC_DRAW_GC_FIRST || c == TC_DRAW_GC_OVER || c == TC_DRAW_SERVER_FIRST;
}

static void enqueue(tc_sched *s, tc_task *t)
{
    t->next = NULL;
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
}

static tc_task *dequeue(tc_sched *s)
{
    tc_task *t = s->head;
    if (t) {
        s->head = t->next;
        if (!s->head)
            s->tail = NULL;
    }
    return t;
}

void tc_sched_spawn(tc_sched *s, tc_task *t, tc_proc *p, tc_task_fn fn, void *state)
{
    *t = (tc_task){.proc = p, .step = fn, .state = state, .sched = s, .status = TC_TASK_RUNNABLE};
    enqueue(s, t);
}

void tc_sched_spawn_running(tc_sched *s, tc_task *t, tc_proc *p, tc_task_fn fn, void *state, int64_t reds_left)
{
    *t = (tc_task){.proc = p, .step = fn, .state = state, .sched = s, .status = TC_TASK_RUNNABLE,
                   .reds_left = reds_left, .running = true};
    t->next = s->head;
    s->head = t;
    if (!s->tail)
        s->tail = t;
}

void tc_sched_entry_steps(tc_task *t) { t->entry_steps = true; }

void tc_sched_wake(tc_task *t)
{
    if (t->status == TC_TASK_WAITING) {
        t->status = TC_TASK_RUNNABLE;
        enqueue(t->sched, t);
    }
}

void tc_sched_bump(tc_task *t, int64_t reds) { t->reds_left -= reds; }

/* remove_message's slice cut (policy.receive_gc_reds; sched.h). */
static void receive_gc_cut(tc_task *t)
{
    int64_t leave = tc_proc_policy(t->proc)->receive_gc_reds;
    if (leave > 0 && tc_proc_gc_desired(t->proc) && t->reds_left > leave) {
        t->reds_left = leave;
        t->sched->stats.reds_cut++;
    }
}

/* loop_rec's safe point, then the first message (sched.h). */
static bool take_message(tc_task *t, tc_term *msg)
{
    /* R13B01's loop_rec copies a message's fragment onto the heap first (may collect) */
    tc_result r = tc_proc_loop_rec_maybe_gc(t->proc);
    if (r != TC_OK) {
        t->error = r;
        return false;
    }
    if (!tc_proc_receive(t->proc, msg))
        return false;
    /* the message arrived while the process was out (the model's receivers fetch nothing
     * before their loop_rec): erts_proc_sig_receive_helper's fetch, and with receives traced
     * the pass that moves the fetched messages on (ERTS_SIG_REDS_CNT_FACTOR: cnt 0 -> 1) */
    int64_t fetch = tc_proc_policy(t->proc)->receive_fetch_reds;
    if (fetch > 0)
        t->reds_left -= fetch + (tc_proc_trace_receive(t->proc) ? 1 : 0);
    return true;
}

bool tc_sched_receive(tc_task *t, tc_term *msg)
{
    if (!take_message(t, msg))
        return false;
    receive_gc_cut(t);
    return true;
}

bool tc_sched_loop_rec(tc_task *t, tc_term *msg)
{
    bool got = take_message(t, msg);
    /* i_loop_rec_shared sets F_DELAY_GC, and clears it again when it goes to wait */
    tc_proc_set_delay_gc(t->proc, got && tc_proc_policy(t->proc)->receive_delays_gc);
    return got;
}

void tc_sched_remove_message(tc_task *t)
{
    tc_proc_set_delay_gc(t->proc, false);
    receive_gc_cut(t);
}

bool tc_sched_is_running(const tc_task *t) { return t->sched->current == t; }

bool tc_sched_is_locked(const tc_task *t) { return tc_sched_is_running(t) || t->on_dirty; }

bool tc_sched_slice_spent(const tc_task *t) { return t->reds_left - 1 - t->proc->reds <= 0; }

/* erl_sys_schedule in a non-SMP R10B-2: check I/O without blocking and read the clock. */
static void sys_schedule(tc_sched *s)
{
    struct timespec ts;
    (void)poll(NULL, 0, 0);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s->stats.io_polls++;
    s->function_calls = 0;
}

/* The next draw of the dirty-GC race, for t's long GC (sched.h tc_draw). */
static tc_draw draw(tc_sched *s, const tc_task *t)
{
    unsigned i = s->draws_taken++;
    tc_draw d = i < s->ndraws ? (tc_draw)s->draws[i]
              : tc_proc_policy(t->proc)->dirty_gc_first ? TC_DRAW_GC_FIRST : TC_DRAW_SERVER_FIRST;
    if (s->on_draw)
        s->on_draw(s->draw_ctx, i, t, d);
    return d;
}

/* The dirty scheduler runs t's pending long GC, unless the draw puts the queued tasks first
 * (the GC then runs at t's next schedule-in); its reductions are charged to no slice, and
 * with TC_DRAW_GC_FIRST t's main lock stays taken until the normal scheduler takes t again
 * (tc_sched_is_locked). */
static tc_result collect_on_dirty(tc_task *t)
{
    tc_draw d = draw(t->sched, t);
    if (d == TC_DRAW_SERVER_FIRST)
        return TC_OK;
    tc_result r = tc_proc_schedule_in_maybe_gc(t->proc);
    (void)tc_proc_take_reds(t->proc);
    t->on_dirty = d == TC_DRAW_GC_FIRST;
    return r;
}

tc_result tc_sched_run(tc_sched *s)
{
    tc_task *t;
    while ((t = dequeue(s)) != NULL) {
        tc_proc *p = t->proc;
        const tc_policy *pol = tc_proc_policy(p);
        int64_t context_reds = pol->context_reds;
        t->on_dirty = false;
        bool was_entered = t->entered, spent = false;
        if (t->running) {
            t->running = false; /* it goes on with the slice it has: no schedule-in */
        } else {
            s->stats.switches++;
            (void)tc_proc_take_reds(p); /* charged while it did not run (an R10B sender's GC of it) */
            if (s->head && tc_proc_schedule_in_goes_dirty(p)) {
                /* its GC went to a dirty scheduler: the next task runs first, or, as the
                 * race's draw goes, after the GC (which then costs no slice) */
                tc_result r = collect_on_dirty(t);
                if (r != TC_OK)
                    return r;
                enqueue(s, t);
                continue;
            }
            bool dirty = proc_dirty_gc_pending(p); /* a long GC runs on a dirty scheduler */
            tc_result r = tc_proc_schedule_in_maybe_gc(p);
            if (r != TC_OK)
                return r;
            int64_t gc_reds = tc_proc_take_reds(p);
            t->reds_left = context_reds - (dirty ? 0 : gc_reds);
            spent = t->reds_left <= 0; /* the GC used the slice up: the process does not run */
            if (t->entered) /* its entry's reduction was the last slice's (tc_sched_entry_steps) */
                t->reds_left += 1;
            t->entered = false;
        }
        tc_step step = TC_STEP_CONTINUE;
        s->current = t;
        /* A step begins with a call, made with policy.call_reds left (sched.h). */
        while (step == TC_STEP_CONTINUE && t->reds_left >= pol->call_reds) {
            step = t->step(t);
            t->reds_left -= 1 + tc_proc_take_reds(p);
            s->stats.steps++;
            if (tc_proc_yield_requested(p) && step == TC_STEP_CONTINUE) {
                /* BUMP_ALL_REDS: the slice ends and counts as fully used. */
                t->reds_left = 0;
                s->stats.forced_yields++;
            }
        }
        s->current = NULL;
        /* out of reductions at a step's entry: with the decrement before the test (call_reds
         * 2) the entry's reduction is spent in this slice (tc_sched_entry_steps); a slice its
         * schedule-in GC used up ran nothing (erl_process.c schedule: `reds <= 0` goes to
         * sched_out_proc), so the process stays where it was */
        t->entered = spent ? was_entered : t->entry_steps && step == TC_STEP_CONTINUE && pol->call_reds > 1;
        s->function_calls += (uint64_t)(context_reds - (t->reds_left > 0 ? t->reds_left : 0));
        switch (step) {
        case TC_STEP_ERROR:
            return t->error != TC_OK ? t->error : TC_EBADARG;
        case TC_STEP_DONE:
            t->status = TC_TASK_DONE;
            break;
        case TC_STEP_WAIT:
            if (t->error != TC_OK) /* a receive's GC failed (tc_sched_receive) */
                return t->error;
            t->status = TC_TASK_WAITING;
            break;
        default: /* yielded or out of reductions */
            if (s->head && proc_dirty_gc_pending(p)) {
                /* a long GC asked for in the slice (a GC after a BIF): the dirty scheduler
                 * collects before the queued tasks run, as the race's draw goes */
                tc_result r = collect_on_dirty(t);
                if (r != TC_OK)
                    return r;
            }
            enqueue(s, t);
            break;
        }
        if (pol->input_reductions && s->function_calls > pol->input_reductions)
            sys_schedule(s);
    }
    return TC_OK;
}
