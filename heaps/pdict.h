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
 * index, else the term hash (terms/hash.h). A put of a new key that leaves as many
 * elements as slots grows it, by one of two designs (tc_pdict_grow, an era's rule):
 * - mask (OTP 25: grow, pd_hash_value_to_ix, ensure_array_size): 8 slots on the first put;
 *   (slots / 4) & 15 splits a grow (at least one); the slot is the hash's low bits (a mask
 *   one bit wider once the split passes it); the array is sized before each grow for every
 *   slot the grow makes.
 * - mod (R10B-2 and R13B01: grow, pd_hash_value, array_put): 10 slots; home / 5 splits a
 *   grow (home: the slots before the round of splits began); the slot is the hash modulo
 *   twice home, or modulo home past the split; the array grows only when a slot past its end
 *   is written (array_put), one split at a time, and a split whose one tuple stays home
 *   writes none.
 * Both size the array with next_array_size: the least of 10, 20, 40, ... that holds the slots
 * asked for, searched from its second entry, so a request of 10 slots or fewer is sized
 * exactly; R10B-2's and R13B01's search ends at 81920 on 64-bit (sizeof(tab) / sizeof(Uint)
 * over a table of unsigned int: 13 entries searched), past which every request is sized
 * exactly, one realloc per split; OTP 25's searches the whole table (sizeof(tab[0])).
 * Measured on each VM with process_info(P, memory), which counts the array
 * (erts_dicts_mem_size): R13B01 holds 10 slots after one put, 81922 after 81920, 83001
 * after 83000; OTP 25 8, 163840 and 163840 (tests/data/pdict-array.tsv, which
 * check_heaps_pdict holds the model to and tests/cli_pdict.sh the installed VM).
 *
 * Where this differs from erts, and why:
 * - A process holds one (tc_proc_dict) and its GC scans the slots as roots
 *   (tc_pdict_roots), as the VM's does; the heap is whatever tc_alloc the caller passes, so
 *   a dictionary on its own (tests, an arena) needs no GC.
 * - Where the VM collects garbage when the heap lacks room for a put or a split, this
 *   allocates from the tc_alloc (a fragment, on a process heap) and leaves the GC decision
 *   to the process layer. Each put allocates exactly the words it builds, with one call.
 * - No erase, no shrink, no get_keys.
 * - The array is one block (PD_SZ2BYTES: a 24-byte header, then the slots) of the caller's
 *   tc_mseg, resized in place or moved as alloc_util moves it (do_erts_alcu_realloc): the
 *   VM's std_alloc (ERTS_ALC_T_PROC_DICT is STANDARD in erl_alloc.types). Past sbct the block
 *   has its own carrier, grown by mremap a unit at a time, so a dictionary of a million keys
 *   faults each page of its array once. The model takes the block from the process's heap
 *   source (eheap_alloc's settings; in the VM, std_alloc's carriers map through the same mseg
 *   and its cache): below sbct it shares eheap's multiblock carriers instead of std_alloc's.
 * - The mod design hashes a non-small, non-atom key with terms/hash.h as the mask design does
 *   (the VM: make_hash2); a small integer is its value and an atom its index in both.
 */
#ifndef TC_PDICT_H
#define TC_PDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../alloc/mseg.h"
#include "../terms/term.h"

TC_BEGIN_DECLS

typedef struct tc_pdict tc_pdict;

/* How the dictionary grows (above): OTP 25's design, or R10B-2's and R13B01's. */
typedef enum tc_pdict_grow { TC_PDICT_GROW_MASK, TC_PDICT_GROW_MOD } tc_pdict_grow;

/* The array is a block of `mem` (std_alloc's memory: a process passes its own source, whose
 * segment cache its heaps share, as they share one mseg in the VM). TC_EBADARG for a grow
 * value outside the enum or no `mem`. */
tc_result tc_pdict_new(tc_pdict_grow grow, tc_mseg *mem, tc_pdict **out) TC_MUST_CHECK;
void tc_pdict_free(tc_pdict *pd);

/* put(Key, Value): *old (may be NULL) gets the previous value or 'undefined'. TC_ENOMEM
 * leaves the dictionary as it was. A split that finds no memory is skipped, not an error. */
tc_result tc_pdict_put(tc_pdict *pd, tc_alloc *heap, tc_term key, tc_term value, tc_term *old) TC_MUST_CHECK;
/* get(Key): the stored value, or 'undefined'. */
tc_result tc_pdict_get(const tc_pdict *pd, tc_term key, tc_term *value) TC_MUST_CHECK;
size_t tc_pdict_size(const tc_pdict *pd);
/* The slots of the array (the VM's arraySize or size: what process_info's memory counts), and
 * how many times it was allocated or resized (PD_ALLOC and PD_REALLOC calls). */
size_t tc_pdict_array_slots(const tc_pdict *pd);
uint64_t tc_pdict_array_reallocs(const tc_pdict *pd);

/* The slot words the GC must treat as roots (and may update); *n of them. */
tc_term *tc_pdict_roots(tc_pdict *pd, size_t *n);

/* pd_check: every slot [], a 2-tuple or a proper list of 2-tuples, each key in the slot
 * its hash selects and only once, the element count right. */
bool tc_pdict_verify(const tc_pdict *pd, const char **why);

TC_END_DECLS

#endif
