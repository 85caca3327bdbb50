/*
 * gen.h — seeded random terms for property tests (uses tc_rand from fixtures.h, so the
 * printed TC_SEED reproduces a run).
 */
#ifndef TC_TEST_GEN_H
#define TC_TEST_GEN_H

#include "terms/term.h"

/*
 * A random term over every kind termcopy builds: small and big integers of both signs,
 * floats, atoms, nil, pids, ports and refs (local and of other nodes), proper and improper
 * lists, tuples (and {}), heap, refc and sub binaries, bitstrings, flatmaps and hashmaps of
 * 33..200 mixed keys, export funs and local funs with free variables (made here or on another
 * node). `max_depth` bounds nesting; with `share`, some subterms
 * are reused (real sharing). TC_NON_VALUE only when the allocator fails.
 */
tc_term tc_gen_term(tc_alloc *a, unsigned max_depth, bool share);

#endif
