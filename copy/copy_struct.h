/*
 * copy_struct.h — size then copy into one exactly sized block, filled from both ends
 * (erts: copy.c size_object + copy_struct, bundled as copy_object_x; the literal-skipping
 * variant is size_object_litopt + copy_struct_litopt of the modern send path).
 *
 * Pass 1 is tc_term_flat_size (size_object). Pass 2 fills the block from both ends: `htop`
 * grows up from the bottom with tuples, maps and cons cells whose head is not immediate;
 * `hbot` grows down from the top with cons cells whose head is immediate and with the
 * plain things (bignums, floats, heap binaries, ProcBins, flattened sub binaries). The
 * htop region is then scanned Cheney-style, copying what its words still point at in the
 * source; lists are copied along their tail chain in one loop. The two pointers must meet
 * exactly (checked in every build). So a copied list of small integers has its head at the
 * highest address and each tail pointing lower, as in a message or an ETS object.
 *
 * ProcBin placement: R10B and the newest erts (its BinRef) both put refc handles at hbot;
 * OTP 25 was not read, so it is taken to do the same. The scan skips things either way, so
 * the choice moves no word count, only layout.
 *
 * Off-heap: every copied ProcBin gets its refcount raised and is linked into the
 * destination's off-heap list. Sub binaries are flattened exactly as
 * tc_sub_binary_copy_size counts them. The shared `{}` is never copied.
 */
#ifndef TC_COPY_STRUCT_H
#define TC_COPY_STRUCT_H

#include "stats.h"
#include "../terms/term.h"

TC_BEGIN_DECLS

/* An address range of literal terms: pointers into [start, end) are stored, not copied
 * (and sized 0). A NULL range means copy everything, as an ETS insert does. */
typedef struct tc_copy_literals {
    const tc_term *start, *end;
} tc_copy_literals;

/*
 * The second pass alone (copy_struct): copies `t` into hp[0 .. words), where `words` is
 * exactly its size (tc_term_flat_size, or tc_term_flat_size_litopt with the same `lit`),
 * linking ProcBins into `oh`. Returns the copy's root. Cannot fail.
 */
tc_term tc_copy_struct_fill(tc_term t, tc_term *hp, size_t words, tc_offheap *oh,
                            const tc_copy_literals *lit);

/*
 * Both passes (copy_object_x): sizes `t`, takes exactly that many words from `a` in one
 * allocation and fills them. TC_ENOMEM (nothing allocated, nothing changed) when the size
 * pass's stack or the allocator fails. Adds to *stats when it is not NULL.
 */
tc_result tc_copy_struct(tc_alloc *a, tc_term t, const tc_copy_literals *lit, tc_term *out,
                         tc_copy_stats *stats) TC_MUST_CHECK;

TC_END_DECLS

#endif
