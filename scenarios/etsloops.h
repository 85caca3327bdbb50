/*
 * etsloops.h — the 2009 "how fast is ETS" loops on modelled processes (tc_etsloop_*),
 * measured by experiments/etsbench.c (seeds/2009-how-fast-is-ets.txt): insert and lookup of
 * N {I, hello} (I from N down to 1, as the seed's dotimes), the seed's 2-writer update,
 * update_counter(T, I, {2, 1}), and the process dictionary's put, get, get+put counter and
 * the update's two writers, each putting every key into its own dictionary.
 *
 * What the threads mean. threads is the number of schedulers (real threads). With 1, one
 * process does the N operations, except the update: the seed's two writer processes take
 * turns on the one scheduler, TC_ETSLOOP_SLICE operations each (about CONTEXT_REDS worth of
 * reductions [I]). With 2, the N keys are split between two processes on two threads
 * (halves, each counted down), and for the update both writers insert all N keys in the
 * same order, as in the seed, so they meet on the same buckets.
 *
 * Each process is a modelled process (heaps/proc.h) under the config's policy (OTP 25's
 * rules unless another era's is given) whose heap is
 * min_heap_size words (the seed's +h): {I, hello} is built on it before each insert, and a
 * lookup or update_counter result is built by HAlloc and passes the GC-after-BIF test
 * (bif_enter / bif_return_maybe_gc), so a smaller heap brings fragments and collections
 * back. The process dictionary puts on the same kind of heap (its slots are GC roots, as
 * ProcDict is in erts). Besides the operations themselves a run can do only the lock phase
 * of each (hash the key, take and release its locks in the operation's modes) or only the
 * hash, and a run on a table whose lock phase is clocked (tc_ets_time_locks) reports that
 * phase's time with the clock's own cost taken off.
 */
#ifndef TC_SCENARIOS_ETSLOOPS_H
#define TC_SCENARIOS_ETSLOOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "../heaps/policy.h"
#include "../stores/ets.h"

TC_BEGIN_DECLS

/* Keys a writer does before the other takes the one scheduler. */
enum { TC_ETSLOOP_SLICE = 500 };

typedef enum tc_etsloop_op {
    TC_ETSLOOP_INSERT,
    TC_ETSLOOP_LOOKUP,
    TC_ETSLOOP_UPDATE,         /* the seed's two writers, each inserting all N keys; without a
                                  table each puts them in its own dictionary, the first in the
                                  one its inserts filled, the second in an empty one */
    TC_ETSLOOP_UPDATE_COUNTER, /* on a table: ets:update_counter; without: the dictionary's get+put */
    TC_ETSLOOP_PUT,
    TC_ETSLOOP_GET,
    TC_ETSLOOP_OPS
} tc_etsloop_op;
extern const char *const tc_etsloop_op_names[TC_ETSLOOP_OPS];

/* What a process does per key: the operation, the operation on a table whose lock phase is
 * clocked, only the operation's locks, or only the hash. */
typedef enum tc_etsloop_kind { TC_ETSLOOP_RUN_OP, TC_ETSLOOP_RUN_TIMED, TC_ETSLOOP_RUN_LOCKS, TC_ETSLOOP_RUN_HASH } tc_etsloop_kind;

typedef struct tc_etsloop_config {
    int64_t n;           /* keys */
    uint64_t heap_words; /* each process's min_heap_size */
    bool meta_lock;      /* R13B's meta-table lock in every locked mode, not only r13b's */
    unsigned bucket_locks; /* write_concurrency bucket locks, 0: the default */
    bool compressed;       /* [compressed] tables (stores/ets.h) */
    const tc_policy *policy; /* the heap rules (NULL: the native era's, tc_policy_native) */
} tc_etsloop_config;

/* A table of lock mode m as the seed's ets:new makes it under c, for runs on `threads`
 * schedulers: its objects' allocator takes its lock where c's policy locks allocator calls
 * (alloc_lock: R13B01's SMP emulator) or two threads write it (stores/ets.h alloc_lock). */
tc_result tc_etsloop_table(const tc_etsloop_config *c, tc_ets_lock_mode m, int threads, tc_ets **out) TC_MUST_CHECK;
/* The same filled with {I, 0} for update_counter (an integer in element 2). */
tc_result tc_etsloop_counter_table(const tc_etsloop_config *c, tc_ets_lock_mode m, int threads,
                                   tc_ets **out) TC_MUST_CHECK;

/* What one run did. */
typedef struct tc_etsloop_result {
    double ns;          /* wall time: the first process's start to the last one's end */
    int64_t ops;        /* operations, all processes */
    double lock_ns;     /* TC_ETSLOOP_RUN_TIMED: time in the lock phase, all threads, clock cost removed */
    uint64_t dropped;   /* TC_ETSLOOP_RUN_TIMED: intervals over 100 us, kept apart */
    double dropped_ns;  /* their time */
    uint64_t faults;    /* minor page faults of the run's threads while they ran it (alloc/faults.h):
                           the fresh heap and dictionary pages the processes wrote */
} tc_etsloop_result;

/* One run of `what` on table t (NULL: the process dictionary, which each process fills
 * itself first, untimed, when the op reads it) on `threads` (1 or 2) schedulers. A table
 * without locks (TC_ETS_LOCK_NONE, -smp disable) takes 1 only: two threads on it race, as
 * two schedulers would on a table nothing locks. Two threads on a table made for one
 * (its allocator unlocked) are TC_EBADARG. On an error
 * `what_failed` (may be NULL) names the step: the operation, "process", "lock phase",
 * "pthread_create". */
tc_result tc_etsloop_run(const tc_etsloop_config *c, tc_etsloop_op what, tc_etsloop_kind kind, tc_ets *t, int threads,
                         tc_etsloop_result *out, const char **what_failed) TC_MUST_CHECK;

TC_END_DECLS

#endif
