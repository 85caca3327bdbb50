/*
 * copy_shallow_fast.h — PROPOSAL, NOT THE VM: a copy-out of the ETS compact form at close to
 * memcpy speed, to show what erts leaves on the table in ets:lookup/2.
 *
 * The VM's copy_shallow (erts copy.c, OTP 25; modelled by compact.h) takes one word at a
 * time and switches on its tag: even a tuple of small integers, with no pointer in it, costs
 * several times a memcpy of its bytes. This pass gives the same result word for word — the
 * same layout, the same relocated pointers, the same ProcBin references in the same order —
 * but relocates four words at once without a branch: every list or boxed word gets the
 * offset added (except the shared `{}`, which is never in the block, as in copy_shallow),
 * headers and immediates are left as they are. Only a header of a thing (any boxed object
 * but a tuple: floats, bignums, binaries, a map's size word…) stops the vector pass: its raw
 * words are copied unrelocated, found by the header as tc_layout_header_step says, and a
 * ProcBin is adopted. A tuple's header is a word with tag 00 and subtag 0 that relocation
 * leaves alone, so tuples never stop it.
 *
 * Nothing in OTP 25 (or later) does this. It is selected by tc_policy.copy_out
 * (heaps/policy.h) and tc_ets_opts.copy_out (stores/ets.h), default TC_COPY_OUT_SHALLOW;
 * `ablate` has it as the row proposal_shallow_fast, the experiments as --set
 * copy_out=shallow_fast, and every output that uses it says "proposal".
 */
#ifndef TC_COPY_SHALLOW_FAST_H
#define TC_COPY_SHALLOW_FAST_H

#include "compact.h"

TC_BEGIN_DECLS

/* Which pass copies a stored term out: the VM's, or the proposal. */
typedef enum tc_copy_out {
    TC_COPY_OUT_SHALLOW,     /* copy_shallow, as erts does it (compact.h) */
    TC_COPY_OUT_SHALLOW_FAST /* PROPOSAL, not the VM: this header */
} tc_copy_out;

/* As tc_copy_compact_out and tc_copy_compact_out_list, with the proposal's pass: same words,
 * same allocation, same counts. */
tc_result tc_copy_shallow_fast_out(tc_alloc *a, const tc_copy_compact *c, tc_term *out,
                                   tc_copy_stats *stats) TC_MUST_CHECK;
tc_result tc_copy_shallow_fast_out_list(tc_alloc *a, const tc_copy_compact *c, tc_term *out,
                                        tc_copy_stats *stats) TC_MUST_CHECK;

/* The kind's lookup copy-out: tc_copy_compact_out_list or tc_copy_shallow_fast_out_list. */
tc_result tc_copy_out_list(tc_copy_out kind, tc_alloc *a, const tc_copy_compact *c, tc_term *out,
                           tc_copy_stats *stats) TC_MUST_CHECK;

TC_END_DECLS

#endif
