/*
 * literal.h — a literal area: terms stored once and then used in place, never copied
 * (erts: erl_bif_persistent.c persistent_term:put/get and the ErtsLiteralArea blocks,
 * recognised by erts_is_literal).
 *
 * put stores {Key, Value} with the sharing-preserving copy (copy_shared_calculate +
 * copy_shared_perform, as persistent_term:put does), so it takes the term's shared size.
 * get returns the stored Value itself: zero words copied, zero words allocated. The area
 * is one reserved address range (as a VM with a reserved literal region decides literal
 * membership by address), so "is this a literal" is a range check; tc_copy_literal_range
 * hands that range to tc_copy_struct, which then leaves literal subterms in place.
 *
 * Differences from the VM, on purpose: the area is bump-allocated and only freed whole, so
 * putting a key again leaves the old copy's words in place until the area is freed
 * (persistent_term frees them after a global literal GC); keys are found by a linear search
 * with =:= (persistent_term hashes them). Neither changes what a put or get copies.
 */
#ifndef TC_COPY_LITERAL_H
#define TC_COPY_LITERAL_H

#include "copy_struct.h"
#include "stats.h"
#include "../terms/term.h"

TC_BEGIN_DECLS

typedef struct tc_copy_literal_area tc_copy_literal_area;

/* An area of `words` words (reserved, not touched until used). NULL when out of memory. */
tc_copy_literal_area *tc_copy_literal_area_new(size_t words) TC_MUST_CHECK;
/* Frees the area and drops the references of the ProcBins stored in it. NULL is fine. */
void tc_copy_literal_area_free(tc_copy_literal_area *la);

/* persistent_term:put(Key, Value). The source is marked while it is copied (see
 * copy_shared.h). TC_ENOMEM when the area is full or memory runs out; the old value, if
 * any, stays. Adds to *stats when it is not NULL. */
tc_result tc_copy_literal_put(tc_copy_literal_area *la, tc_term key, tc_term value,
                              tc_copy_stats *stats) TC_MUST_CHECK;
/* persistent_term:get(Key): the stored value, not a copy. TC_EBADARG when the key was
 * never put (the VM raises badarg). */
tc_result tc_copy_literal_get(const tc_copy_literal_area *la, tc_term key, tc_term *value) TC_MUST_CHECK;

/* erts_is_literal: true when `p` points into the area. */
bool tc_copy_literal_contains(const tc_copy_literal_area *la, const void *p);
/* The area's address range, for tc_copy_struct (and later the GC) to skip. */
tc_copy_literals tc_copy_literal_range(const tc_copy_literal_area *la);

TC_END_DECLS

#endif
