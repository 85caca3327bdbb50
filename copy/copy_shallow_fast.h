/*
 * copy_shallow_fast.h — PROPOSAL, NOT THE VM: a copy-out of the ETS compact form at close to
 * memcpy speed, to show what erts leaves on the table in ets:lookup/2.
 *
 * What it models: the lookup's copy-out, erts copy.c copy_shallow_x (the copy_shallow macro,
 * called by db_copy_object_from_ets in erl_db_util.h, which erl_db_hash.c build_term_list
 * calls for a set's lookup; the VM's own pass is modelled by compact.h). The block it reads
 * was laid out by copy_struct_x (db_store_term; copy_struct.h): tuples, maps, funs, external
 * things and cons cells whose head is not immediate from the bottom up; leaf things (floats,
 * bignums, binaries, ProcBins) and cons cells whose head is immediate from the top down. So
 * a stored list's floats or binaries lie next to each other, and the bottom part is mostly
 * words that need only relocation.

 * The result is copy_shallow's word for word — the same layout, the same relocated pointers,
 * the same off-heap members linked in the same order (copy_shallow pushes each one on
 * off_heap->first as it meets it, in address order; so does this) with the same reference
 * counts and overhead. What differs is only how the words are visited. copy_shallow takes one
 * word at a time and switches on its primary tag, then on a header's subtag: even a tuple of
 * small integers, with no pointer in it, costs several times a memcpy of its bytes. This
 * pass relocates eight words at once (AVX-512 F and VBMI) or four (AVX2) without a branch:
 * every list or boxed word gets the offset added (except the shared `{}`, which is never in
 * the block, as in copy_shallow), headers and immediates are left as they are. A tuple's
 * header (tag 00, subtag 0) is left alone by relocation, so tuples never stop it; only the
 * header of a thing (any boxed object but a tuple: floats, bignums, binaries, a map's
 * header…) does, because the thing's raw words must not be relocated: they are copied as
 * they are, found by the header as tc_layout_header_step says (copy_shallow's header_arity
 * and thing_arityval), and an off-heap member (a ProcBin, an external thing, a local fun) is
 * adopted. With AVX-512, floats and maps' headers are handled inside the vector loop by
 * masks; things that lie together are copied as one run. Each call takes the widest pass the
 * CPU has, one word at a time where it has neither (copy_shallow_fast_impl.h; the tests run
 * every pass the CPU has). The VM's magic references (REF_SUBTAG things copy_shallow adopts)
 * are not modelled (terms/ident.h), so neither pass meets one.
 *
 * What bounds it where a memcpy is faster: a vector with a thing's header in it costs more
 * than a vector without (masks for a float or map header, a walk in order for any other
 * thing), and an off-heap member costs what it costs copy_shallow. A list of floats has a
 * header every other word in its top half (copy_struct puts the floats together); a hashmap's
 * nodes are small, so a header falls in nearly every vector and the loop never reaches its
 * grouped mode; a heap binary is a thing the loop does not mask, so it is walked; and every
 * ProcBin takes an atomic increment of its binary's count and a link into the off-heap list
 * (tc_offheap_adopt; erts_refc_inc and the off_heap->first push in copy_shallow), which no
 * vector does and a memcpy skips, as it skips the reference the copy must own.
 *
 * Nothing in OTP 25 (or later) does this. It is selected by tc_policy.copy_out
 * (heaps/policy.h) and tc_ets_opts.copy_out (stores/ets.h), default TC_COPY_OUT_SHALLOW;
 * `ablate` has it as the row proposal_shallow_fast, the experiments as --set
 * copy_out=shallow_fast, and every output that uses it says "proposal". `copysweep` times it
 * as shallow_fast against the memcpy floor (memcpy_floor.h) on every shape.
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
