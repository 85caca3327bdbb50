/*
 * zlib_impl.h — the two zlib calls the external format makes (erts: erl_zlib.c
 * erl_zlib_compress2 and erl_zlib_uncompress over the system zlib, which Debian's erlang
 * links too, so the same level gives the same bytes). zlib allocates through tc_mem_*,
 * so its allocations can fail on demand like every other.
 */
#ifndef TC_ZLIB_IMPL_H
#define TC_ZLIB_IMPL_H

#include <stddef.h>

/* Inflates the zlib stream in[0..n) into out[0..cap). *got: bytes written. Returns 0 when
 * the stream ended (got may be short of cap), 1 when it would write past cap, 2 when input
 * follows the end of the stream, -1 for a corrupt or truncated stream, -2 out of memory. */
int tc_zlib_inflate(const unsigned char *in, size_t n, unsigned char *out, size_t cap, size_t *got);

/* Deflates in[0..n) at `level` (1..9; 6 is term_to_binary's `compressed`, zlib's
 * Z_DEFAULT_COMPRESSION) as one zlib stream into out[0..cap). Returns 0 and *len when it
 * fits, 1 when it does not, -1 out of memory. */
int tc_zlib_deflate(const unsigned char *in, size_t n, int level, unsigned char *out, size_t cap, size_t *len);

#endif
