/*
 * ext.h — the external term format: term_to_binary/1,2 and binary_to_term/1 as OTP 25 does
 * them (erts: external.c erts_encode_ext / enc_term after the encode_size_struct2 size
 * pass, and dec_term).
 *
 * Encoding is the VM's two passes (size, then write into an exactly sized buffer), minor
 * version 1 (OTP 25's term_to_binary/1 default: Latin-1 atoms as ATOM_EXT) or 2 (all atoms
 * UTF-8, as the golden vectors). Decoding builds the canonical heap form with strict checks.
 * Both walk with explicit stacks. The tag choices and where termcopy differs from the VM
 * are listed at the top of ext.c.
 */
#ifndef TC_EXT_H
#define TC_EXT_H

#include "reader.h"
#include "../terms/term.h"

TC_BEGIN_DECLS

#define TC_EXT_VERSION 131u
#define TC_EXT_COMPRESSED_LEVEL 6 /* term_to_binary's `compressed`: Z_DEFAULT_COMPRESSION */

/* Bytes of term_to_binary(T, [{minor_version, minor}]) (version byte included), without
 * encoding. minor is 1 or 2 (else TC_EBADARG). TC_EUNSUPPORTED for a term the format
 * cannot hold here, TC_ELIMIT past a 32-bit length field. */
tc_result tc_ext_size(tc_term t, unsigned minor, size_t *bytes) TC_MUST_CHECK;

/* Writes the encoding into buf (cap bytes, at least tc_ext_size); *len is its length. */
tc_result tc_ext_encode_into(tc_term t, unsigned minor, unsigned char *buf, size_t cap,
                             size_t *len) TC_MUST_CHECK;

/* Size pass, then a tc_mem_alloc'd buffer of exactly that size, then the write pass. */
tc_result tc_ext_encode(tc_term t, unsigned minor, unsigned char **bytes, size_t *len) TC_MUST_CHECK;

/* term_to_binary(T, [{compressed, level}, {minor_version, minor}]), level 0..9 (6 is what
 * `compressed` alone means): COMPRESSED (tag 80) with the uncompressed length and a zlib
 * stream when that is no longer than the plain form, else the plain form (as the VM). */
tc_result tc_ext_encode_compressed(tc_term t, unsigned minor, int level, unsigned char **bytes,
                                   size_t *len) TC_MUST_CHECK;

/*
 * binary_to_term/1 of `len` bytes (COMPRESSED terms are inflated first; errors inside one
 * are at "uncompressed byte N") into `a`. On error nothing is returned, refc binaries
 * built so far are released, and `err` (may be NULL) gets the byte offset of the bad
 * field and a message that starts with "byte N: ". Results: TC_EPARSE (malformed),
 * TC_ELIMIT (past a VM limit: atom length, bignum size, pid fields), TC_EUNSUPPORTED,
 * TC_ENOMEM.
 */
tc_result tc_ext_decode(tc_alloc *a, const unsigned char *bytes, size_t len, tc_term *out,
                        tc_read_error *err) TC_MUST_CHECK;

TC_END_DECLS

#endif
