/*
 * ext.h — the external term format: term_to_binary/1,2 and binary_to_term/1 as OTP 25 does
 * them (erts: external.c erts_encode_ext / enc_term with encode_size_struct2 before it, and
 * dec_term; the format is erl_ext_dist).
 *
 * Encoding is the VM's two passes: a size pass, then a write pass into a buffer of exactly
 * that size. Both walk with an explicit stack, so a 1,000,000-element list or a
 * 100,000-deep tuple never touches the C stack.
 *
 * Minor version. OTP 25's term_to_binary/1 uses minor version 1; OTP 26 made 2 the
 * default. Both write floats as NEW_FLOAT_EXT. They differ only in atoms: minor 2 always
 * writes UTF-8 (SMALL_ATOM_UTF8_EXT, or ATOM_UTF8_EXT past 255 bytes); minor 1 writes an
 * atom whose characters are all Latin-1 as ATOM_EXT (2-byte length, one byte per
 * character; term_to_binary never asks for SMALL_ATOM_EXT) and any other atom as minor 2
 * does. The golden vectors are minor 2.
 *
 * Tags written: SMALL_INTEGER_EXT (0..255), INTEGER_EXT (32-bit signed), SMALL_BIG_EXT /
 * LARGE_BIG_EXT (anything larger, small ints included), NEW_FLOAT_EXT, atoms as above,
 * NIL_EXT, STRING_EXT (a proper list of 0..255 of at most 65,534 elements: the VM tests
 * length < 0xFFFF), LIST_EXT (element count, elements, tail), SMALL_TUPLE_EXT /
 * LARGE_TUPLE_EXT, MAP_EXT (pairs in flatmap key order), BINARY_EXT, BIT_BINARY_EXT, and
 * NEW_PID_EXT for local pids: since OTP 23 pids are always NEW_PID_EXT, and a node that is
 * not distributed is 'nonode@nohost' with creation 0.
 *
 * Decoding is binary_to_term/1 into a tc_alloc, building the canonical form: heap
 * binaries up to 64 bytes, refc above, a sub binary for trailing bits, normalised
 * integers, flatmaps (more than 32 keys: TC_EUNSUPPORTED, as the VM would build a hashmap).
 * It checks every declared length against the bytes that remain before allocating, so a
 * corrupt size fails fast. It is stricter than the VM in two places, both reported as
 * TC_EPARSE: bytes after the term (binary_to_term/1 ignores them) and a bignum sign byte
 * other than 0 or 1. Valid terms the model does not build (ports, references, funs,
 * exports, pids of other nodes, compressed input) give TC_EUNSUPPORTED.
 */
#ifndef TC_EXT_H
#define TC_EXT_H

#include "terms/reader.h"
#include "terms/term.h"

#define TC_EXT_VERSION 131u

/* Bytes of term_to_binary(T, [{minor_version, minor}]) (version byte included), without
 * encoding. minor is 1 or 2 (else TC_EBADARG). TC_EUNSUPPORTED for a term the format
 * cannot hold here (a port, a hashmap), TC_ELIMIT past a 32-bit length field. */
tc_result tc_ext_size(tc_term t, unsigned minor, size_t *bytes) TC_MUST_CHECK;

/* Writes the encoding into buf (cap bytes, at least tc_ext_size); *len is its length. */
tc_result tc_ext_encode_into(tc_term t, unsigned minor, unsigned char *buf, size_t cap,
                             size_t *len) TC_MUST_CHECK;

/* Size pass, then a tc_mem_alloc'd buffer of exactly that size, then the write pass. */
tc_result tc_ext_encode(tc_term t, unsigned minor, unsigned char **bytes, size_t *len) TC_MUST_CHECK;

/*
 * binary_to_term/1 of `len` bytes into `a`. On error nothing is returned, refc binaries
 * built so far are released, and `err` (may be NULL) gets the byte offset of the bad
 * field and a message that starts with "byte N: ". Results: TC_EPARSE (malformed),
 * TC_ELIMIT (past a VM limit: atom length, bignum size, pid fields), TC_EUNSUPPORTED,
 * TC_ENOMEM.
 */
tc_result tc_ext_decode(tc_alloc *a, const unsigned char *bytes, size_t len, tc_term *out,
                        tc_read_error *err) TC_MUST_CHECK;

#endif
