/*
 * binary.h — binaries and bitstrings as OTP 25 stores them (erts: erl_binary.h, binary.c).
 *
 * Up to 64 bytes (ERL_ONHEAP_BIN_LIMIT) a binary is a heap binary: its bytes sit in the
 * heap words. Larger ones are refc binaries: a 6-word ProcBin on the heap points to an
 * off-heap block with a reference count, and the ProcBin is linked into its heap's
 * off-heap list. A bitstring, or a slice of another binary, is a 5-word sub binary whose
 * `orig` points at the heap binary or ProcBin holding the bytes.
 */
#ifndef TC_BINARY_H
#define TC_BINARY_H

#include <stdatomic.h>

#include "term.h"

TC_BEGIN_DECLS

/* The off-heap block of a refc binary (erts: Binary). */
typedef struct tc_binary {
    atomic_long refc;
    size_t orig_size;
    unsigned char orig_bytes[];
} tc_binary;

/* ProcBin word offsets. */
enum { TC_PB_HEADER, TC_PB_SIZE, TC_PB_NEXT, TC_PB_VAL, TC_PB_BYTES, TC_PB_FLAGS };
/* Sub binary word offsets; the packed word holds bitsize (byte 0), bitoffs (byte 1) and
 * is_writable (byte 2). */
enum { TC_SB_HEADER, TC_SB_SIZE, TC_SB_OFFS, TC_SB_BITS, TC_SB_ORIG };

#define TC_PROC_BIN_HEADER TC_MAKE_HEADER(TC_PROC_BIN_SIZE - 1, TC_SUBTAG_REFC_BINARY)
#define TC_SUB_BIN_HEADER TC_MAKE_HEADER(TC_SUB_BIN_SIZE - 2, TC_SUBTAG_SUB_BINARY)

/*
 * A binary of `bytes` bytes followed by `extra_bits` (0..7) bits taken from the high bits
 * of data[bytes]. Heap or refc by size, wrapped in a sub binary when extra_bits > 0,
 * exactly the canonical form binary_to_term/1 builds. TC_NON_VALUE when out of memory.
 */
tc_term tc_term_bitstring(tc_alloc *a, const unsigned char *data, size_t bytes, unsigned extra_bits);
static inline tc_term tc_term_binary(tc_alloc *a, const unsigned char *data, size_t bytes)
{
    return tc_term_bitstring(a, data, bytes, 0);
}
/* A heap binary (bytes <= 64) or a ProcBin + new off-heap block (any size). */
tc_term tc_term_heap_binary(tc_alloc *a, const unsigned char *data, size_t bytes);
tc_term tc_term_refc_binary(tc_alloc *a, const unsigned char *data, size_t bytes);
/* A sub binary over `orig` (a heap binary or ProcBin) starting `offs` bytes in. */
tc_term tc_term_sub_binary(tc_alloc *a, tc_term orig, size_t offs, size_t bytes, unsigned bitoffs,
                           unsigned extra_bits);

/* What any bitstring term holds: `bytes` whole bytes then `extra_bits` bits, starting
 * `bitoffs` bits into `data`. */
typedef struct tc_bits {
    const unsigned char *data;
    size_t bytes;
    unsigned bitoffs;
    unsigned extra_bits;
} tc_bits;
tc_bits tc_bitstring_get(tc_term t);
/* Bit `i` (0 = most significant of the first byte) of the bitstring. */
unsigned tc_bits_bit(const tc_bits *b, size_t i);
/* Byte `i` of the bitstring, for i < bytes, honouring bitoffs. */
unsigned tc_bits_byte(const tc_bits *b, size_t i);

/* The underlying heap binary or ProcBin of a sub binary (itself otherwise). */
tc_term tc_bitstring_real(tc_term t);

/* Drops one reference to an off-heap block, freeing it at zero. */
void tc_binary_release(tc_binary *bin);
/* Walks `oh` from its head, releasing every ProcBin until `stop` (exclusive), and makes
 * `stop` the new head. */
void tc_offheap_release_until(tc_offheap *oh, tc_term *stop);
/* The same for terms a failed operation abandons on a heap it cannot take words back from
 * (a process heap or fragment): each released ProcBin's words are overwritten with a tuple
 * of [] of the same size, so the heap still verifies, and its words are taken back from
 * `vheap` (they were linked after `stop`, by the operation that failed). */
void tc_offheap_abandon_until(tc_offheap *oh, tc_term *stop);
/* Links a ProcBin at `pb` into `oh`: its bytes in the overhead, its words in vheap. */
void tc_offheap_link(tc_offheap *oh, tc_term *pb);

TC_END_DECLS

#endif
