/*
 * compact_impl.h — the copy-out steps of the compact form that every relocating pass shares
 * (copy_shallow in compact.c, the proposal copy_shallow_fast in copy_shallow_fast.c): one
 * allocation of the stored size (plus the [Object] cell for a lookup), the relocation
 * itself, and the counts.
 */
#ifndef TC_COPY_COMPACT_IMPL_H
#define TC_COPY_COMPACT_IMPL_H

#include "compact.h"

/* Writes the block's words relocated to `dst` (c->size words, c->size > 0), adopts its
 * ProcBins into `oh`, and returns the relocated root. */
typedef tc_term (*tc_copy_compact_relocator)(const tc_copy_compact *c, tc_term *dst, tc_offheap *oh);

/* tc_copy_compact_out (as_list false) or tc_copy_compact_out_list (true) with `pass`. */
tc_result tc_copy_compact_out_via(tc_alloc *a, const tc_copy_compact *c, tc_copy_compact_relocator pass,
                                  bool as_list, tc_term *out, tc_copy_stats *stats) TC_MUST_CHECK;

#endif
