/*
 * atom.h — the atom table (erts: atom.c, erl_atom_table).
 *
 * One table per program, as in the VM: an atom term carries its table index
 * (index << 6 | 0x0B), names are UTF-8 of at most 255 characters, and atoms are never
 * freed. Lookups by index take no lock; interning takes a mutex, so threads may share it.
 * The first four atoms are the VM's first four (false, true, '_', 'nonode@nohost').
 */
#ifndef TC_ATOM_H
#define TC_ATOM_H

#include <stddef.h>

#include "term.h"

TC_BEGIN_DECLS

/* The atom named by `len` bytes of UTF-8 at `name`, created if new. Errors: TC_ELIMIT
 * (over 255 characters, or the table is full), TC_EPARSE (not UTF-8), TC_ENOMEM. */
tc_result tc_atom_intern(const char *name, size_t len, tc_term *out) TC_MUST_CHECK;
/* ErtsSecretAtom (atom.names: '3RT$', "can never be found by string lookup"): an atom named
 * '3RT$' that interning "3RT$" never returns (that makes another atom), made on first use.
 * A compressed ETS object names it as the node of a local pid, port or ref (terms/node.h).
 * TC_NON_VALUE when the table is full or memory runs out. */
tc_term tc_atom_secret(void);
/* An atom's name and its byte length; the pointer stays valid for the program's life. */
const char *tc_atom_name(tc_term atom, size_t *len);
/* True when `atom` is an atom term whose index is in the table. */
bool tc_atom_exists(tc_term atom);
size_t tc_atom_count(void);

/* The scanner's rules for a bare atom (erl_scan, Latin-1 letters): it starts with a
 * lowercase letter, goes on with name characters, and is not a reserved word. */
bool tc_atom_is_lower_start(long c);
bool tc_atom_is_name_char(long c);
bool tc_atom_is_reserved_word(const char *name, size_t len);

/* Counts the characters of valid UTF-8; -1 when the bytes are not UTF-8. Decodes one
 * code point at *p (advancing it) with tc_utf8_decode; returns -1 on a bad sequence. */
long tc_utf8_length(const char *s, size_t len);
long tc_utf8_decode(const unsigned char **p, const unsigned char *end);
/* Writes the UTF-8 form of `cp` (< 0x110000) to `out`, returning its length (1..4). */
size_t tc_utf8_encode(uint32_t cp, char out[4]);

TC_END_DECLS

#endif
