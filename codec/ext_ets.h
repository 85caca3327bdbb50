/*
 * ext_ets.h — the encoding a `compressed` ETS table gives each element it stores apart
 * (erts: external.c erts_encode_ext_size_ets, erts_encode_ext_ets and erts_decode_ext_ets,
 * which are encode_size_struct2, enc_term and dec_term under DFLAG_ETS_COMPRESSED; called
 * by erl_db_util.c db_size_dbterm_comp, copy_to_comp and db_copy_from_comp, whose object
 * layout is copy/compressed.h's).
 *
 * It is term_to_binary's format (NEW_FLOAT_EXT, STRING_EXT, maps in the walk's order, funs
 * and bignums alike) without the version byte and with three shortcuts, since the bytes
 * never leave the VM:
 * - an atom is its atom-table index: ATOM_INTERNAL_REF2 ('I') and 16 bits, or from index
 *   65536 ATOM_INTERNAL_REF3 ('K') and 24 bits (enc_atom), so 3 or 4 bytes whatever its name;
 * - a local pid, port or ref names the node '3RT$' (am_ErtsSecretAtom, INTERNAL_LOCAL_SYSNAME,
 *   terms/node.h tc_node_ets_sysname), which every decoder takes as this node: an atom no name
 *   finds, so only its index here reaches it;
 * - a refc binary, or a sub binary over one, whose bytes (counting a partial first and last
 *   byte whole) would take more words as a heap binary than a ProcBin does
 *   (heap_bin_size(n) > PROC_BIN_SIZE: n > 32) is stored as the ProcBin itself:
 *   BINARY_INTERNAL_REF ('J') and its 48 bytes, or BIT_BINARY_INTERNAL_REF ('L'), the bit
 *   offset, the bit size and its 48 bytes; the copy's bytes pointer is where the slice starts
 *   and its size the slice's bytes. Each copy takes a reference on the binary and is linked,
 *   unaligned, at the head of the owner's list (through its own next field), which
 *   tc_ext_ets_release drops (db_cleanup_offheap_comp). Decoded, it is a ProcBin again (and a
 *   sub binary over it for 'L'), linked into the destination's off-heap list. Any other
 *   bitstring is BINARY_EXT or BIT_BINARY_EXT, decoded as a heap binary (32 bytes or fewer
 *   here, or a heap binary's slice).
 *
 * tc_ext_ets_size is erts_encode_ext_size_ets, what the table allocates, which counts more
 * than enc_term writes in three places, as in the VM (whose table keeps the difference
 * unused): the two bit bytes for every sub binary kept as a ProcBin, which enc_term writes only
 * when the slice has a bit offset or a partial last byte; for any other sub binary, its
 * partial first and last bytes a second time (1 or 2 bytes); and a local fun's old index and
 * old uniq as INTEGER_EXT (5 bytes each), which enc_term writes as SMALL_INTEGER_EXT (2) below
 * 256.
 *
 * The decoder reads only what this encoder wrote for a table: its input is trusted, as
 * dec_term's ets_decode trusts it (erts only asserts), so outside bytes never reach it; its
 * fuzz target (tests/fuzz/fuzz_ext_ets.c) makes any term binary_to_term accepts and checks
 * the round trip. It fails on memory only (TC_ENOMEM; TC_EPARSE would be a bug), releasing
 * what it linked.
 *
 * Where termcopy differs from the VM: the atom indexes are termcopy's atom table's, so the
 * bytes differ while the sizes agree whenever both tables hold fewer than 65536 atoms. A
 * writable binary's ProcBin is emasculated first in the VM (erts_emasculate_writable_binary);
 * termcopy has no writable binaries. A magic reference keeps its binary alive through
 * erts_magic_ref_save_bin; termcopy has no magic references.
 */
#ifndef TC_EXT_ETS_H
#define TC_EXT_ETS_H

#include "../terms/term.h"
#include "../terms/wstack.h"

TC_BEGIN_DECLS

/* erts_encode_ext_size_ets: the bytes the table sets aside for `t`. TC_EUNSUPPORTED and
 * TC_ELIMIT as tc_ext_size; TC_ENOMEM (the atom table cannot take '3RT$', or the walk's
 * stack). `stack` (NULL: the walk's own) is the walk's stack, initialised by the caller:
 * given to the encoding of the same term afterwards, that write pass needs no memory. */
tc_result tc_ext_ets_size(tc_term t, tc_wstack *stack, size_t *bytes) TC_MUST_CHECK;

/* erts_encode_ext_ets: writes `t` into buf[0..cap), *len the bytes written (at most
 * tc_ext_ets_size); every ProcBin it embeds takes a reference and is linked at the head of
 * *oh. cap must be at least tc_ext_ets_size of `t`: the write pass has no bounds check, as
 * erts_encode_ext_ets writes into what erts_encode_ext_size_ets sized (debug level 2 checks
 * it with a size pass). On an error (TC_ENOMEM, TC_EUNSUPPORTED, TC_ELIMIT) nothing stays
 * referenced. With the stack a size pass of `t` grew (and '3RT$' interned by it), it cannot
 * fail for want of memory. */
tc_result tc_ext_ets_encode_into(tc_term t, tc_wstack *stack, unsigned char *buf, size_t cap, unsigned char **oh,
                                 size_t *len) TC_MUST_CHECK;

/* erts_decode_ext_ets: the term encoded at bytes[0..len) (bytes after it are ignored), built
 * in `a`, its ProcBins linked into a->offheap. TC_ENOMEM, with nothing left linked. */
tc_result tc_ext_ets_decode(tc_alloc *a, const unsigned char *bytes, size_t len, tc_term *out) TC_MUST_CHECK;

/* db_cleanup_offheap_comp for the embedded ProcBins: drops each one's reference, following
 * the list from `first` (NULL: none). The bytes stay where they are. */
void tc_ext_ets_release(unsigned char *first);

TC_END_DECLS

#endif
