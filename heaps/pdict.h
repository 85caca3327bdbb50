/*
 * pdict.h — the process dictionary, the lock-free baseline beside ETS (erts:
 * erl_process_dict.c pd_hash_put, pd_hash_get, grow; ProcDict in erl_process_dict.h).
 *
 * A per-process linear-hashing array outside the heap (ERTS_ALC_T_PROC_DICT) whose slots
 * hold [] (empty), a {Key, Value} tuple, or a list of such tuples when keys collide. The
 * tuples and list cells live on the process heap: put/2 builds a new 3-word tuple from the
 * caller's allocator (the process heap, so HAlloc) and never copies the key or the value,
 * which are already the process's own terms; get/1 returns the stored value word itself,
 * with no copy and no lock. Slot choice is MAKE_HASH: a small integer's value, an atom's
 * index, else the term hash (terms/hash.h). It starts at 8 slots on the first put and
 * grows after a put that leaves as many elements as slots, by (slots / 4) & 15 splits
 * (at least one); the array is sized from 10, 20, 40, ...
 *
 * Where this differs from erts, and why:
 * - A process holds one (tc_proc_dict) and its GC scans the slots as roots
 *   (tc_pdict_roots), as the VM's does; the heap is whatever tc_alloc the caller passes, so
 *   a dictionary on its own (tests, an arena) needs no GC.
 * - Where the VM collects garbage when the heap lacks room for a put or a split, this
 *   allocates from the tc_alloc (a fragment, on a process heap) and leaves the GC decision
 *   to the process layer. Each put allocates exactly the words it builds, with one call.
 * - No erase, no shrink, no get_keys.
 */
#ifndef TC_PDICT_H
#define TC_PDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "../terms/term.h"

TC_BEGIN_DECLS

typedef struct tc_pdict tc_pdict;

tc_result tc_pdict_new(tc_pdict **out) TC_MUST_CHECK;
void tc_pdict_free(tc_pdict *pd);

/* put(Key, Value): *old (may be NULL) gets the previous value or 'undefined'. TC_ENOMEM
 * leaves the dictionary as it was. A split that finds no memory is skipped, not an error. */
tc_result tc_pdict_put(tc_pdict *pd, tc_alloc *heap, tc_term key, tc_term value, tc_term *old) TC_MUST_CHECK;
/* get(Key): the stored value, or 'undefined'. */
tc_result tc_pdict_get(const tc_pdict *pd, tc_term key, tc_term *value) TC_MUST_CHECK;
size_t tc_pdict_size(const tc_pdict *pd);

/* The slot words the GC must treat as roots (and may update); *n of them. */
tc_term *tc_pdict_roots(tc_pdict *pd, size_t *n);

/* pd_check: every slot [], a 2-tuple or a proper list of 2-tuples, each key in the slot
 * its hash selects and only once, the element count right. */
bool tc_pdict_verify(const tc_pdict *pd, const char **why);

TC_END_DECLS

#endif
