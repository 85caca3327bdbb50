/*
 * flatmap.h — maps of at most 32 keys (erts: erl_map.h flatmap_t, MAP_SMALL_MAP_LIMIT).
 *
 * A flatmap is a header, the key count, a pointer to a tuple of the keys in exact term
 * order, then the values in the same order: 3 + n words plus the 1 + n of the keys tuple
 * (`#{}` points at the shared `{}` and takes 3). Larger maps are hashmaps (HAMT) in the
 * VM; termcopy does not build them yet and says so rather than build a wrong shape.
 */
#ifndef TC_FLATMAP_H
#define TC_FLATMAP_H

#include "term.h"

TC_BEGIN_DECLS

/* A map of the n pairs kv[2i] => kv[2i+1], in any order; a repeated key keeps its last
 * value, as `#{}` syntax does. TC_EUNSUPPORTED past 32 distinct keys. */
tc_result tc_term_flatmap(tc_alloc *a, const tc_term *kv, size_t n, tc_term *out) TC_MUST_CHECK;

TC_END_DECLS

#endif
