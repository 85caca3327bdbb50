/*
 * memcpy_floor.h — the floor: the same bytes moved with one memcpy, no term logic at all.
 *
 * Models no erts copier; it is what every copy strategy is measured against (sys_memcpy,
 * which copy_shallow approaches: one read and one write per word, in order). The words
 * are copied raw, so pointers in them still point at the source: the result is not a term
 * unless the source was position independent.
 */
#ifndef TC_COPY_MEMCPY_FLOOR_H
#define TC_COPY_MEMCPY_FLOOR_H

#include "stats.h"
#include "../terms/term.h"

TC_BEGIN_DECLS

/* Copies src[0 .. words) into `words` fresh words from `a` (one allocation) and returns
 * them in *out. TC_ENOMEM when the allocator fails. Adds to *stats when it is not NULL. */
tc_result tc_copy_memcpy_floor(tc_alloc *a, const tc_term *src, size_t words, tc_term **out,
                               tc_copy_stats *stats) TC_MUST_CHECK;

TC_END_DECLS

#endif
