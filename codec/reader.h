/*
 * reader.h — Erlang term text to a term (what erl_scan + erl_parse + erl_parse:parse_term
 * accept for literal terms).
 *
 * Integers of any size and sign (`16#FF`, `2#101`, `1_000`, `$a`), floats with exponents,
 * bare and quoted atoms, strings, proper and improper lists, tuples, maps `#{K => V}` of any
 * size (over 32 distinct keys a hashmap: hashmap.h),
 * binaries (`<<1,2,3>>`, `<<"text">>`, `<<1:3>>`, `<<0,1,5:3>>`, `<<300:16>>`), local pids
 * `<0.N.S>`, `%` comments, an optional final `.`, and every escape (`\n`, `\x{3A9}`, `\xFF`,
 * octal, `\^A`). Input is UTF-8. The parse is iterative, so nesting depth is bounded only
 * by memory.
 *
 * Bad input gives an error with the byte offset and what was expected, and no term: any
 * refc binaries built before the error are released.
 */
#ifndef TC_READER_H
#define TC_READER_H

#include "../terms/term.h"

TC_BEGIN_DECLS

typedef struct tc_read_error {
    size_t offset;
    char message[192];
} tc_read_error;

/* TC_EPARSE (syntax), TC_ELIMIT (a VM limit: atom length, pid fields, segment size),
 * TC_EUNSUPPORTED (a map whose keys' hashes agree on 128 bits, or a kind of map key the hash
 * does not know), TC_ENOMEM. `err` may be NULL. */
tc_result tc_term_read(tc_alloc *a, const char *text, size_t len, tc_term *out,
                       tc_read_error *err) TC_MUST_CHECK;

TC_END_DECLS

#endif
