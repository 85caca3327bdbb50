/*
 * stats.h — what one copy did, counted the same way by every strategy in copy/.
 *
 * Models the work erts does in copy.c, erl_message.c and erl_db_util.c when a term moves,
 * so that each figure can be attributed (DESIGN.md rule 6): the words a size pass walked,
 * the words written at the destination, how many times the source was traversed, the
 * source words a sharing-preserving copy mangled and restored, and the heap fragments and
 * garbage collections a send or lookup caused. Strategies add to the counts, so a path
 * made of several steps (size, copy, GC) sums into one struct.
 */
#ifndef TC_COPY_STATS_H
#define TC_COPY_STATS_H

#include <stdint.h>

#include "../terms/base.h"

TC_BEGIN_DECLS

typedef struct tc_copy_stats {
    uint64_t words_sized;          /* words the size pass predicted (0 when the size was stored) */
    uint64_t words_written;        /* destination words written */
    uint64_t passes;               /* traversals of the source: size, copy, mark, perform */
    uint64_t source_words_written; /* source words marked then restored (shared copy) */
    uint64_t fragments;            /* heap fragments created (send and lookup paths) */
    uint64_t gcs;                  /* garbage collections caused (send and lookup paths) */
} tc_copy_stats;

TC_END_DECLS

#endif
