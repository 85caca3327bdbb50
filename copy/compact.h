/*
 * compact.h — the ETS compact form: a term stored as one contiguous block, and copied out
 * of it by relocation (erts: erl_db_util.c db_store_term and its DbTerm going in;
 * copy.c copy_shallow, called by db_copy_object_from_ets and build_term_list, coming out).
 *
 * In: size_object, one block of that many words behind a header (its own allocation, as
 * ets_alloc gives a DbTerm; not a heap), and copy_struct into it, so the stored term has
 * copy_struct's two-ended layout and absolute internal pointers. The block records its
 * size and owns the references of the ProcBins in it (DbTerm.first_oh). The block comes
 * from a memory source (alloc/mseg.h: the table's ets_alloc) or from the C heap, with room
 * before it for the caller's own words (a table's chain node, next and hvalue, as erts'
 * HashDbTerm) and as large as erts' block of the era: its header is OTP 25's DbTerm header
 * (first_oh, size), so a stored tuple takes what the VM's takes; R13B01's and R10B-2's DbTerm
 * holds a whole ErlOffHeap, and the rest of that header is added as zeroed words after the
 * term. erts stores only tuples, whose root is the block's first word; any other term (this
 * module stores any) keeps its root in one word more, after the term's. The block does not
 * know its source: whoever stores into a source frees with it.
 * Storing over an old object is db_store_term's: when the sizes are equal the old block is
 * reused in place (its ProcBin references released first), so an overwrite of an object
 * with one of the same size touches no new memory. Where this differs from erts: with
 * different sizes erts reallocs the block (db_realloc_term), which may keep it in place;
 * here a new block is taken and the old one freed (as erts with realloc_always_moves), so
 * that a failed allocation leaves the old object whole.
 *
 * Out: copy_shallow, one linear pass over the stored words adding a constant offset to
 * every pointer, so the copy keeps the stored layout exactly (a stored list still has its
 * head highest). No size pass, no scan, no stack. Copied ProcBins get their refcount
 * raised and join the destination's off-heap list. The only pointer not relocated is the
 * shared `{}`, which is never in the block (the newest erts makes the same exception).
 */
#ifndef TC_COPY_COMPACT_H
#define TC_COPY_COMPACT_H

#include "stats.h"
#include "../alloc/mseg.h"
#include "../terms/term.h"

TC_BEGIN_DECLS

typedef struct tc_copy_compact tc_copy_compact;

/* Stores `t` as a new compact block from the C heap. TC_ENOMEM leaves nothing allocated. */
tc_result tc_copy_compact_in(tc_term t, tc_copy_compact **out, tc_copy_stats *stats) TC_MUST_CHECK;
/* db_store_term: stores `t` in *slot. *slot NULL: a new block from `mem` (NULL: the C heap);
 * otherwise (a block stored from `mem`) the old object's block is reused when the sizes are
 * equal, else replaced by a new block from `mem`. The block starts `offset` bytes before the stored form: the caller's
 * (a table's chain node, as erts' HashDbTerm has next and hvalue before its DbTerm), copied
 * to a new block when the size changes, as erts' realloc moves them. `head` is the bytes
 * erts' block has before the term's words (a table's offsetof(HashDbTerm, dbterm) +
 * offsetof(DbTerm, tpl), stores/ets.h): a new block has that many besides the words, or the
 * offset and this block's own header if more (0: just those), so that it takes from its
 * source what erts' takes from ets_alloc. TC_ENOMEM leaves *slot and its object as they were. */
tc_result tc_copy_compact_store(tc_mseg *mem, size_t offset, size_t head, tc_term t, tc_copy_compact **slot,
                                tc_copy_stats *stats) TC_MUST_CHECK;
/* Drops the block and its ProcBin references (erts_cleanup_offheap + free). NULL is fine. */
void tc_copy_compact_free(tc_copy_compact *c);
/* The same for a block stored with an offset (the block starts `offset` bytes before c) from
 * `mem` (NULL: the C heap), the source tc_copy_compact_store was given. */
void tc_copy_compact_free_at(tc_mseg *mem, tc_copy_compact *c, size_t offset);
/* Drops only the references; the block stays to its source, which the caller frees whole
 * (tc_mseg_free_discard). NULL is fine. */
void tc_copy_compact_discard(tc_copy_compact *c);

/* The stored term itself (read-only: it belongs to the block), its size in words, and the
 * block's words. */
tc_term tc_copy_compact_term(const tc_copy_compact *c);
size_t tc_copy_compact_size(const tc_copy_compact *c);
const tc_term *tc_copy_compact_words(const tc_copy_compact *c);

/* copy_shallow: the stored term, relocated into size words from `a` (one allocation). */
tc_result tc_copy_compact_out(tc_alloc *a, const tc_copy_compact *c, tc_term *out,
                              tc_copy_stats *stats) TC_MUST_CHECK;
/* What ets:lookup/2 returns for a set: [Object], size + 2 words in one allocation, the
 * object first and the cons cell after it (build_term_list). */
tc_result tc_copy_compact_out_list(tc_alloc *a, const tc_copy_compact *c, tc_term *out,
                                   tc_copy_stats *stats) TC_MUST_CHECK;

/* The copy-out steps every relocating pass shares (copy_shallow here, the proposal
 * copy_shallow_fast in copy_shallow_fast.h): one allocation of the stored size (plus the
 * [Object] cell for a lookup), the relocation itself by `pass`, and the counts. The two
 * functions above, and the proposal's, tail-call it; a sampling profiler names it to credit
 * the copy with the samples it takes there (experiments/breakdown.c, copysweep.c). */

/* Writes the block's words relocated to `dst` (c->size words, c->size > 0), adopts its
 * ProcBins into `oh`, and returns the relocated root. */
typedef tc_term (*tc_copy_compact_relocator)(const tc_copy_compact *c, tc_term *dst, tc_offheap *oh);

/* tc_copy_compact_out (as_list false) or tc_copy_compact_out_list (true) with `pass`. */
tc_result tc_copy_compact_out_via(tc_alloc *a, const tc_copy_compact *c, tc_copy_compact_relocator pass,
                                  bool as_list, tc_term *out, tc_copy_stats *stats) TC_MUST_CHECK;

TC_END_DECLS

#endif
