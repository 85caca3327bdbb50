/*
 * workload_impl.h — what the eptest workload's two testers share (workload.c's seed loops,
 * erasep.c's eras_ep twin): a pass's counters, read at its start and at its end.
 */
#ifndef TC_SCENARIOS_WORKLOAD_IMPL_H
#define TC_SCENARIOS_WORKLOAD_IMPL_H

#include "../alloc/mseg.h"
#include "../copy/copy_struct.h"
#include "../heaps/proc.h"
#include "../heaps/sched.h"
#include "../stores/ets.h"
#include "workload.h"

typedef struct tc__ep_snapshot {
    uint64_t t_ns;
    long faults;
    tc_mseg_stats mem;
    uint64_t ets_carriers;
    uint64_t temp_carriers; /* mapped by mem's temp_alloc (tc_mseg_temp) */
    uint64_t dirty_carriers; /* mapped by the dirty schedulers' instance (tc_ep_counts) */
    tc_copy_stats copy;
    tc_sched_stats sched;
    uint64_t gcs, gc_words, frags; /* of the processes in the pass */
    uint64_t tester_gcs;
    uint64_t minor, major, long_gcs, moved, rec_moved, frag_traced;
} tc__ep_snapshot;

/* The counters now: the process memory `mem`, the copies `copy` counted, the scheduler's,
 * the table's and mem's temp_alloc's carriers (table may be NULL), the tester's GCs and those of `other` (NULL: none). */
tc__ep_snapshot tc__ep_take(const tc_mseg *mem, const tc_copy_stats *copy, const tc_sched_stats *sched,
                            const tc_ets *table, const tc_proc *tester, const tc_proc *other);
/* What happened between a and b (us: b's clock less a's and the clock's own cost). */
tc_ep_counts tc__ep_diff(const tc__ep_snapshot *a, const tc__ep_snapshot *b);

#endif
