/*
 * copy_shared.h — the sharing-preserving copy (erts: copy.c copy_shared_calculate and
 * copy_shared_perform, used by persistent_term:put and erts_debug:copy_shared, and by
 * sends in SHCOPY builds).
 *
 * Calculate walks the term breadth-first and marks every object it reaches *in the
 * source*: a boxed object's header gets a "visited" tag; a cons cell's head loses its tag,
 * which is kept in a bit store in visit order. A second reach makes the object shared: its
 * displaced words move to a table and the mark becomes "shared, entry i". Each object is
 * counted once, so the size is tc_term_shared_size. Perform repeats the same breadth-first
 * walk, copying into one block (children slots are filled as the queue reaches them),
 * restoring each mark as it goes; a shared object is copied on its first reach and its
 * forwarding address used after that. The table's words go back at the end.
 *
 * Hence the source must be writable and not read by anyone else while the copy runs (not
 * a term under an ETS read lock, not a literal being read by other threads). It is
 * unchanged afterwards, also when the allocation fails (the marks are undone by the same
 * walk without copying). Sub binaries are flattened and ProcBins adopted as by
 * copy_struct.
 */
#ifndef TC_COPY_SHARED_H
#define TC_COPY_SHARED_H

#include "stats.h"
#include "../terms/term.h"

TC_BEGIN_DECLS

/* Copies `t` into tc_term_shared_size(t) words from `a` (one allocation), keeping every
 * shared subterm shared. TC_ENOMEM leaves the source as it was and nothing allocated from
 * `a`. Adds to *stats when it is not NULL. */
tc_result tc_copy_shared(tc_alloc *a, tc_term t, tc_term *out, tc_copy_stats *stats) TC_MUST_CHECK;

TC_END_DECLS

#endif
