/*
 * compressed.h — the object a `compressed` ETS table stores, and its copy out to a lookup
 * (erts: erl_db_util.c db_store_term_comp, db_size_dbterm_comp, copy_to_comp,
 * db_copy_from_comp, db_cleanup_offheap_comp; the DbTerm comment in erl_db_util.h;
 * erl_db_hash.c build_term_list).
 *
 * The stored form, in one block whose size is db_size_dbterm_comp's:
 * - the object's top tuple, its header and arity words (tpl[0..arity]): an immediate element
 *   as it is, the key as a pointer to its copy, any other element as the byte offset of its
 *   encoding from tpl, tagged as a header word (ext2elem);
 * - tpl[arity + 1]: the block's size in bytes (what the table counts, db_alloced_size_comp);
 * - the key, copied whole by copy_struct (so it is compared without decoding);
 * - each non-immediate element but the key encoded apart, in element order, in
 *   codec/ext_ets.h's form (erts_encode_ext_ets), packed byte after byte;
 * - the total rounded up to a word. DbTerm.size is the whole object's size_object: what a
 *   lookup allocates for it, not what the block holds.
 * So its size is 16 + 8 * (arity + 2 + key words) + the elements' encoded bytes, word-aligned
 * (sizeof(DbTerm) 24 with tpl[1]), and the block is that size: its header is DbTerm's
 * (first_oh, size); the table's node header comes on top (stores/ets.h). The block holds no
 * keypos and no source: the key is the one element stored as a pointer (an immediate key is
 * stored as any immediate is), and whoever stores into a source frees with it.
 *
 * Storing over an old object is db_store_term_comp's: its off-heap references dropped, then
 * its block reused when the new size in bytes is the same, else a new block (as compact.h,
 * where erts reallocs). The encodings are sized first and written with the same walk stack,
 * so once a block is chosen nothing can fail: TC_ENOMEM leaves the old object whole.
 *
 * Copying out (db_copy_from_comp inside build_term_list, straight onto the process heap: no
 * temporary uncompressed copy, which erts makes only for match specs, update_element and
 * update_counter of a non-immediate, and bag comparisons): one allocation of size + 2
 * words (HAlloc of DbTerm.size plus the cons cell); the tuple's header; the key by
 * size_object + copy_struct after the tuple; each other element from the last to the first,
 * an immediate as stored, the rest decoded (erts_decode_ext_ets) into the words that follow,
 * as erts' static heap factory fills them; then the cons cell; then HRelease gives back what
 * decoding did not use (tc_alloc_release: a slice of a refc binary of 32 bytes or fewer comes
 * back a heap binary, smaller than the ProcBin size_object counted; #{} too, see below).
 *
 * Where termcopy differs: the model's decoder builds each container after its elements, so
 * the decoded words are laid out in another order than dec_term's (the same words, the same
 * count). DbTerm.first_oh chains the embedded ProcBins (codec/ext_ets.h) and not the key's
 * off-heap objects, which are found by walking the key's copy when the object is released;
 * erts chains both from first_oh.
 */
#ifndef TC_COPY_COMPRESSED_H
#define TC_COPY_COMPRESSED_H

#include "stats.h"
#include "../alloc/mseg.h"
#include "../terms/term.h"

TC_BEGIN_DECLS

typedef struct tc_copy_compressed tc_copy_compressed;

/* db_store_term_comp: stores tuple `t` keyed on element keypos (1-based, at most its arity)
 * in *slot. *slot NULL: a new block from `mem` (NULL: the C heap); otherwise the old object's
 * block is reused when its size in bytes is the same, else replaced by a new one from `mem`.
 * The block starts `offset` bytes before the stored form, the caller's (a table's chain
 * node), copied to a new block when the size changes. TC_ENOMEM (and TC_EUNSUPPORTED / TC_ELIMIT for what the external format cannot hold) leave
 * *slot and its object as they were. */
tc_result tc_copy_compressed_store(tc_mseg *mem, size_t offset, unsigned keypos, tc_term t,
                                   tc_copy_compressed **slot, tc_copy_stats *stats) TC_MUST_CHECK;
/* Drops the block and its references (db_free_term). NULL is fine. */
void tc_copy_compressed_free(tc_copy_compressed *c);
/* The same for a block stored with an offset (the block starts `offset` bytes before c) from
 * `mem` (NULL: the C heap), the source tc_copy_compressed_store was given. */
void tc_copy_compressed_free_at(tc_mseg *mem, tc_copy_compressed *c, size_t offset);
/* Drops only the references; the block stays to its source, freed whole by the caller
 * (tc_mseg_free_discard). NULL is fine. */
void tc_copy_compressed_discard(tc_copy_compressed *c);

/* The stored key (read-only, in the block) of an object stored with `keypos` (TC_NON_VALUE
 * if that element is encoded: the wrong keypos); the object's arity. */
tc_term tc_copy_compressed_key(const tc_copy_compressed *c, unsigned keypos);
uint64_t tc_copy_compressed_arity(const tc_copy_compressed *c);
/* DbTerm.size: the object's size_object, what a lookup allocates for it. */
size_t tc_copy_compressed_size(const tc_copy_compressed *c);
/* The block's bytes as the table counts them (db_size_dbterm_comp). */
size_t tc_copy_compressed_bytes(const tc_copy_compressed *c);
/* The stored word of element i (1..arity): the element itself when it is an immediate or the
 * key, TC_NON_VALUE when it is encoded. */
tc_term tc_copy_compressed_element(const tc_copy_compressed *c, uint64_t i);
/* db_do_update_element's both-immediate case: element i (not the key: the caller knows the
 * keypos), stored as an immediate, becomes immediate v in place. */
void tc_copy_compressed_set_immediate(tc_copy_compressed *c, uint64_t i, tc_term v);

/* db_copy_from_comp: the object decoded into `a` (one allocation of size words, the unused
 * tail released). */
tc_result tc_copy_compressed_out(tc_alloc *a, const tc_copy_compressed *c, tc_term *out,
                                 tc_copy_stats *stats) TC_MUST_CHECK;
/* What ets:lookup/2 returns for a set: [Object] from one allocation of size + 2 words, the
 * object then the cons cell, the unused words released (build_term_list). TC_ENOMEM leaves
 * `a` as it was. */
tc_result tc_copy_compressed_out_list(tc_alloc *a, const tc_copy_compressed *c, tc_term *out,
                                      tc_copy_stats *stats) TC_MUST_CHECK;

TC_END_DECLS

#endif
