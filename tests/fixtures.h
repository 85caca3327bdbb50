/*
 * fixtures.h — what the Check suites share: the golden vectors, a term arena per test,
 * reading and printing helpers that fail the test on error, and a seeded RNG whose seed
 * is printed and can be set with TC_SEED.
 */
#ifndef TC_TEST_FIXTURES_H
#define TC_TEST_FIXTURES_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>

#include "heaps/send.h"
#include "terms/arena.h"
#include "terms/term.h"

typedef struct tc_vector {
    char *expr, *literal, *ext_hex, *ext_compressed_hex; /* hex columns: "-" past 512 bytes */
    /* The columns that follow the VM instance that wrote the row, not the term ("-": none):
     * tests/data/vectors.escript says which and why. */
    char *instance_specific;
    uint64_t flat_words, shared_words, ext_bytes;
} tc_vector;

/* All rows of the golden vectors (loaded once; the test fails if the file is unreadable). */
const tc_vector *tc_vectors(size_t *count);
/* The row's term in the fixture arena: its literal read as text, or, when the text cannot
 * carry the term (a fun, a remote pid, port or ref: the reader says TC_EUNSUPPORTED), its
 * ext_hex decoded. *from_ext (may be NULL) says which. */
tc_term tc_vector_term(const tc_vector *v, bool *from_ext);
/* ~w text as termcopy prints it equals the VM's: the same, except that a remote node's dist
 * channel number (the atom index of its name, in <C.N.S>, #Port<C.N>, #Ref<C...>) is each
 * program's own. */
bool tc_text_matches(const char *printed, const char *vm);
/* The bytes of a hex string (free with free()). */
unsigned char *tc_from_hex(const char *hex, size_t *n);

/* True when some hashmap in t has a key holding an atom: its shape follows the atom-table
 * indices (terms/hashmap.h), termcopy's and not the VM's that wrote the row, so only the
 * value, the key count and the external byte count can be compared, not the order, the
 * node words or the bytes. */
bool tc_vector_atom_hashed(tc_term t);
/* The row's flat size and ~w text as a check of `t` (the row's literal, read) should expect
 * them: the VM's, or for an atom-hashed row t's own (see above). */
uint64_t tc_vector_flat_words(const tc_vector *v, tc_term t);
const char *tc_vector_text(const tc_vector *v, tc_term t);

/* A fresh arena for the running test, freed by tc_fixture_teardown. */
tc_arena *tc_fixture_arena(void);
void tc_fixture_teardown(void);

/* An allocator function that always fails: for `tc_alloc a = {tc_null_alloc, &oh, NULL}`. */
tc_term *tc_null_alloc(tc_alloc *self, size_t words);

/* Writes the list [n-1, ..., 1, 0] of small integers into hp[0 .. 2n) (its first cell ends
 * the list) and returns it; NIL for n = 0. For tests that build a payload on a heap. */
tc_term tc_int_list_at(tc_term *hp, size_t n);

/* tc_send by an explicit path, whatever the sender's era (the tests that mix an era with
 * the other era's send path): sets the sender's policy.send_path first. */
tc_result tc_fixture_send(tc_proc *from, tc_proc *to, tc_term msg, tc_send_path path, bool to_busy,
                          tc_copy_stats *stats) TC_MUST_CHECK;

/* The era's preset policy (tc_policy_preset); fails the test when it is not a preset. */
tc_policy tc_preset_ok(const char *era);
/* Process i (0 or 1) under pol, on one memory source the first call makes; traced by fn when
 * not NULL. tc_fixture_procs_done verifies and frees both, then checks the source holds no live
 * block and frees it. */
tc_proc *tc_fixture_proc(tc_policy pol, unsigned i, tc_heap_trace_fn fn);
void tc_fixture_procs_done(void);

/* Reads `text`; fails the test with the reader's message on error. */
tc_term tc_read_ok(const char *text);
/* An independent copy of t in the fixture arena, made by encoding and decoding it (so it
 * shares nothing with t and does not depend on any copier under test). */
tc_term tc_deep_copy_ok(tc_term t);
/* The ~w text of t in a static-lifetime buffer owned by the fixture (freed at teardown). */
const char *tc_print_ok(tc_term t);
uint64_t tc_flat_ok(tc_term t);
uint64_t tc_shared_ok(tc_term t);
/* tc_term_shared_copy_size: what copy_shared allocates. */
uint64_t tc_shared_copy_ok(tc_term t);
int tc_compare_ok(tc_term a, tc_term b);
int tc_equal_ok(tc_term a, tc_term b);

/* Seeded xorshift RNG: seed from TC_SEED or the clock, printed once per process. */
uint64_t tc_test_seed(void);
uint64_t tc_rand(void);
uint64_t tc_rand_below(uint64_t n);

/* Runs `s` in CK_NORMAL mode unless CK_FORK says otherwise; returns the process exit code. */
int tc_run_suite(Suite *s);

#endif
