#include "etsloops.h"

#include <pthread.h>
#include <string.h>

#include "../alloc/faults.h"
#include "../alloc/mseg.h"
#include "../heaps/gc.h"
#include "../heaps/pdict.h"
#include "../heaps/proc.h"
#include "../terms/atom.h"
#include "../terms/hash.h"
#include "timing.h"

const char *const tc_etsloop_op_names[TC_ETSLOOP_OPS] = {"insert", "lookup", "update", "update_counter", "put", "get"};

/* One modelled process running one stream of keys. */
typedef struct task {
    tc_etsloop_op what;
    tc_etsloop_kind kind;
    tc_ets *t;
    tc_pdict *pd;
    tc_mseg *mem;
    tc_proc *p;
    tc_term hello;
    int64_t next, last; /* keys next, next - 1, ..., last */
    uint64_t start, end;
    uint64_t faults;       /* this task's thread's minor faults while it ran (2 threads) */
    tc_ets_lock_time lock; /* this task's thread in the clocked lock phase */
    uint64_t sink;         /* where the hash-only loop's hashes go, so they are computed */
    tc_result error;       /* the step that stopped the task, and why */
    const char *failed;
    pthread_barrier_t *go;
} task;

static tc_result task_init(task *k, const tc_etsloop_config *c, tc_etsloop_op what, tc_etsloop_kind kind, tc_ets *t,
                           tc_term hello, int64_t from, int64_t to)
{
    memset(k, 0, sizeof *k);
    k->what = what;
    k->kind = kind;
    k->t = t;
    k->hello = hello;
    k->next = from;
    k->last = to;
    tc_policy pol = c->policy ? *c->policy : tc_policy_native();
    pol.min_heap_size = c->heap_words;
    k->mem = tc_mseg_new(&pol.mem);
    if (!k->mem)
        return TC_ENOMEM;
    tc_result r = tc_proc_new(k->mem, &pol, &k->p);
    /* The process's own dictionary: its slots are GC roots of that process. */
    if (r == TC_OK && (what == TC_ETSLOOP_PUT || what == TC_ETSLOOP_GET ||
                       ((what == TC_ETSLOOP_UPDATE_COUNTER || what == TC_ETSLOOP_UPDATE) && !t)))
        r = tc_proc_dict(k->p, &k->pd);
    return r;
}

static void task_destroy(task *k)
{
    tc_proc_free(k->p); /* frees its dictionary too */
    tc_mseg_free(k->mem);
}

static tc_ets_access access_of(tc_etsloop_op what) { return what == TC_ETSLOOP_LOOKUP ? TC_ETS_READ : TC_ETS_WRITE; }

/* The lock phase alone (hash, then the operation's locks), or the hash alone. */
static tc_result locks_only(task *k, tc_term key)
{
    uint64_t h;
    tc_result r = k->kind == TC_ETSLOOP_RUN_HASH ? tc_term_hash(key, &h) : tc_ets_lock_phase(k->t, key, access_of(k->what));
    if (r == TC_OK && k->kind == TC_ETSLOOP_RUN_HASH)
        k->sink += h;
    return r;
}

static tc_result one_op(task *k, tc_term key)
{
    tc_alloc *heap = tc_proc_alloc(k->p);
    tc_result r = TC_OK;
    tc_term res, e[2] = {key, k->hello};
    tc_heapfrag *hf;
    switch (k->what) {
    case TC_ETSLOOP_INSERT:
    case TC_ETSLOOP_UPDATE: { /* the loop builds {I, hello} on its heap, then ets:insert copies it */
        if (!k->t) /* the update's writer of its own dictionary: put(I, hello) */
            return tc_pdict_put(k->pd, heap, key, k->hello, NULL);
        tc_term obj = tc_term_tuple(heap, e, 2);
        return obj == TC_NON_VALUE ? TC_ENOMEM : tc_ets_insert(k->t, obj, NULL);
    }
    case TC_ETSLOOP_LOOKUP:
    case TC_ETSLOOP_UPDATE_COUNTER:
        if (!k->t) { /* the dictionary as a counter: put(K, get(K) + 1) */
            if ((r = tc_pdict_get(k->pd, key, &res)) == TC_OK)
                r = tc_pdict_put(k->pd, heap, key, tc_make_small(tc_small_val(res) + 1), NULL);
            return r;
        }
        hf = tc_proc_bif_enter(k->p);
        r = k->what == TC_ETSLOOP_LOOKUP ? tc_ets_lookup(k->t, key, heap, &res, NULL)
                                         : tc_ets_update_counter(k->t, key, 2, 1, heap, &res);
        return r == TC_OK ? tc_proc_bif_return_maybe_gc(k->p, hf, &res) : r;
    case TC_ETSLOOP_PUT:
        return tc_pdict_put(k->pd, heap, key, k->hello, NULL);
    case TC_ETSLOOP_GET:
        return tc_pdict_get(k->pd, key, &res);
    default:
        return TC_EBADARG;
    }
}

/* Up to `steps` keys; false when the task is done or stopped on an error (k->error). */
static bool task_step(task *k, int64_t steps)
{
    for (; steps > 0 && k->next >= k->last; steps--, k->next--) {
        tc_term key = tc_make_small(k->next);
        bool locks = k->kind == TC_ETSLOOP_RUN_LOCKS || k->kind == TC_ETSLOOP_RUN_HASH;
        tc_result r = locks ? locks_only(k, key) : one_op(k, key);
        if (r != TC_OK) {
            k->error = r;
            k->failed = locks ? "lock phase" : tc_etsloop_op_names[k->what];
            return false;
        }
    }
    return k->next >= k->last;
}

static tc_ets_lock_time lock_time_since(tc_ets_lock_time before)
{
    tc_ets_lock_time now = tc_ets_thread_lock_time();
    now.ns -= before.ns;
    now.intervals -= before.intervals;
    now.dropped -= before.dropped;
    now.dropped_ns -= before.dropped_ns;
    return now;
}

static void *task_thread(void *arg)
{
    task *k = arg;
    pthread_barrier_wait(k->go);
    tc_ets_lock_time before = tc_ets_thread_lock_time();
    tc_faults f;
    tc_faults_begin(&f);
    k->start = tc_timing_now_ns();
    task_step(k, INT64_MAX);
    k->end = tc_timing_now_ns();
    k->faults = tc_faults_end(&f);
    k->lock = lock_time_since(before);
    return NULL;
}

/* Runs the tasks on `threads` schedulers into *ns, the wall time. With one scheduler and
 * several tasks, they take turns TC_ETSLOOP_SLICE keys at a time. TC_ENOMEM when a thread
 * cannot be started (the tasks started run to their end first). */
static tc_result run_tasks(task *k, int ntasks, int threads, double *ns)
{
    if (threads == 1) {
        tc_ets_lock_time before = tc_ets_thread_lock_time();
        tc_faults f;
        tc_faults_begin(&f);
        uint64_t t0 = tc_timing_now_ns();
        for (bool busy = true; busy;) {
            busy = false;
            for (int i = 0; i < ntasks; i++)
                busy |= task_step(&k[i], ntasks > 1 ? TC_ETSLOOP_SLICE : INT64_MAX);
        }
        *ns = (double)(tc_timing_now_ns() - t0);
        k[0].faults = tc_faults_end(&f); /* all the tasks' */
        k[0].lock = lock_time_since(before); /* all the tasks' */
        return TC_OK;
    }
    TC_CHECK(ntasks == 2);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, (unsigned)ntasks);
    pthread_t th[2];
    int started = 0;
    for (; started < ntasks; started++) {
        k[started].go = &go;
        if (pthread_create(&th[started], NULL, task_thread, &k[started]) != 0)
            break;
    }
    if (started == 1) /* the second did not start: take its place at the barrier */
        pthread_barrier_wait(&go);
    uint64_t start = UINT64_MAX, end = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        start = k[i].start < start ? k[i].start : start;
        end = k[i].end > end ? k[i].end : end;
    }
    pthread_barrier_destroy(&go);
    *ns = (double)(end - start);
    return started == ntasks ? TC_OK : TC_ENOMEM;
}

tc_result tc_etsloop_run(const tc_etsloop_config *c, tc_etsloop_op what, tc_etsloop_kind kind, tc_ets *t, int threads,
                         tc_etsloop_result *out, const char **what_failed)
{
    const char *ignored;
    if (!what_failed)
        what_failed = &ignored;
    *what_failed = "process";
    if (threads != 1 && threads != 2)
        return TC_EBADARG;
    if (threads == 2 && t && !tc_mseg_config_get(tc_ets_mem(t))->thread_safe) {
        *what_failed = "table made for one thread";
        return TC_EBADARG;
    }
    tc_term hello;
    tc_result r = tc_atom_intern("hello", 5, &hello);
    if (r != TC_OK)
        return r;
    task k[2];
    memset(k, 0, sizeof k);
    int ntasks = threads;
    if (what == TC_ETSLOOP_UPDATE) { /* the seed's two writers, each over all N keys */
        ntasks = 2;
        if ((r = task_init(&k[0], c, what, kind, t, hello, c->n, 1)) == TC_OK)
            r = task_init(&k[1], c, what, kind, t, hello, c->n, 1);
    } else if (threads == 2) {
        if ((r = task_init(&k[0], c, what, kind, t, hello, c->n, c->n / 2 + 1)) == TC_OK)
            r = task_init(&k[1], c, what, kind, t, hello, c->n / 2, 1);
    } else {
        r = task_init(&k[0], c, what, kind, t, hello, c->n, 1);
    }
    /* get and the counter read a filled dictionary; of the update's two writers only the first
     * has one (the worker's own, from its inserts) */
    if (r == TC_OK && !t && what != TC_ETSLOOP_PUT)
        for (int i = 0; i < (what == TC_ETSLOOP_UPDATE ? 1 : ntasks) && r == TC_OK; i++) {
            task fill = k[i];
            fill.what = TC_ETSLOOP_PUT;
            if (!task_step(&fill, INT64_MAX) && fill.error != TC_OK) {
                r = fill.error;
                *what_failed = fill.failed;
            }
        }
    tc_etsloop_result res = {0, what == TC_ETSLOOP_UPDATE ? 2 * c->n : c->n, 0, 0, 0, 0};
    if (r == TC_OK) {
        if (kind == TC_ETSLOOP_RUN_TIMED)
            tc_ets_time_locks(t, true);
        r = run_tasks(k, ntasks, threads, &res.ns);
        if (r != TC_OK)
            *what_failed = "pthread_create";
        if (kind == TC_ETSLOOP_RUN_TIMED)
            tc_ets_time_locks(t, false);
    }
    for (int i = 0; i < ntasks; i++) {
        if (r == TC_OK && k[i].error != TC_OK) {
            r = k[i].error;
            *what_failed = k[i].failed;
        }
        res.lock_ns += (double)k[i].lock.ns - (double)k[i].lock.intervals * tc_timing_overhead_ns();
        res.dropped += k[i].lock.dropped;
        res.dropped_ns += (double)k[i].lock.dropped_ns;
        res.faults += k[i].faults;
        task_destroy(&k[i]);
    }
    if (r == TC_OK)
        *out = res;
    return r;
}

tc_result tc_etsloop_table(const tc_etsloop_config *c, tc_ets_lock_mode m, int threads, tc_ets **out)
{
    tc_ets_opts o = tc_ets_opts_default(m);
    o.meta_lock = m == TC_ETS_LOCK_R13B || (c->meta_lock && m != TC_ETS_LOCK_NONE);
    o.bucket_locks = c->bucket_locks;
    o.compressed = c->compressed;
    tc_policy pol = c->policy ? *c->policy : tc_policy_native();
    o.grow = pol.ets_grow;
    o.term_head = pol.ets_term_head;
    /* a table that takes locks is the SMP emulator's (none: -smp disable) */
    o.owner_word = pol.ets_owner_word == TC_ETS_OWNER_WORD_SMP && m != TC_ETS_LOCK_NONE;
    /* the era's lock, or the one instance two threads share (erts: one each, unlocked) */
    o.alloc_lock = pol.mem.thread_safe || threads > 1;
    return tc_ets_new(&o, out);
}

tc_result tc_etsloop_counter_table(const tc_etsloop_config *c, tc_ets_lock_mode m, int threads, tc_ets **out)
{
    tc_ets *t;
    tc_result r = tc_etsloop_table(c, m, threads, &t);
    if (r != TC_OK)
        return r;
    tc_term obj[3] = {TC_MAKE_HEADER(2, TC_SUBTAG_ARITYVAL), 0, tc_make_small(0)};
    for (int64_t i = c->n; i >= 1 && r == TC_OK; i--) {
        obj[1] = tc_make_small(i); /* built in C memory: the insert copies it anyway */
        r = tc_ets_insert(t, tc_make_boxed(obj), NULL);
    }
    if (r != TC_OK) {
        tc_ets_free(t);
        return r;
    }
    *out = t;
    return TC_OK;
}
