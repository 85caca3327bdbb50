/*
 * size.h — how many heap words a term takes (erts: copy.c size_object and size_shared).
 *
 * Flat size is what `erts_debug:flat_size/1` reports and what every ordinary copy (send,
 * ETS insert) allocates: a subterm reached twice is counted twice. Shared size is
 * `erts_debug:size/1`: each object once. Both count what a copy would produce, so a sub
 * binary counts its flattened form, and the shared `{}` counts 0. Both walk with an
 * explicit stack. erts_debug:size/1 is Erlang code (kernel's erts_debug.erl fun_size): a
 * local fun counts its words and its environment but not its creator, so the shared size
 * of a fun made on another node (an external pid as creator) is 4 words less than what
 * copy.c's size_shared, and copy_shared, count. tc_term_shared_size follows
 * erts_debug:size/1; tc_term_shared_copy_size is size_shared, the words copy_shared takes.
 */
#ifndef TC_SIZE_H
#define TC_SIZE_H

#include "term.h"

TC_BEGIN_DECLS

tc_result tc_term_flat_size(tc_term t, uint64_t *words) TC_MUST_CHECK;
tc_result tc_term_shared_size(tc_term t, uint64_t *words) TC_MUST_CHECK;
tc_result tc_term_shared_copy_size(tc_term t, uint64_t *words) TC_MUST_CHECK;
/* size_object_litopt: the flat size with objects in [lit_start, lit_end) counted 0, as the
 * modern send sizes a message whose literal subterms it will not copy. */
tc_result tc_term_flat_size_litopt(tc_term t, const tc_term *lit_start, const tc_term *lit_end,
                                   uint64_t *words) TC_MUST_CHECK;

/* size_object_x's flat size (literals in [lit_start, lit_end) counted 0; both NULL: none)
 * and `peak`, the most entries its ESTACK holds on the way: it pushes a list cell's head, a
 * tuple's elements but the last, a fun's environment, a map node's children but the first
 * (a flatmap's all) when they are not immediate, and follows the rest, so a list of N boxed
 * or list elements peaks at N (a list of N strings or floats: N), one of smalls at 0. The
 * stack grows beyond its 16 entries on the C stack into temp_alloc (erl_grow_estack; see
 * alloc/estack.h). */
tc_result tc_term_flat_size_peak(tc_term t, const tc_term *lit_start, const tc_term *lit_end, uint64_t *words,
                                 uint64_t *peak) TC_MUST_CHECK;

/* Words the flattened copy of one sub binary takes (the sub binary's own rule). */
uint64_t tc_sub_binary_copy_size(const tc_term *sub);

TC_END_DECLS

#endif
