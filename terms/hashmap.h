/*
 * hashmap.h — maps of more than 32 keys, as OTP 25 builds them: a hash array mapped trie
 * (erts: erl_map.c hashmap_from_unsorted_array, hashmap_from_sorted_unique_array,
 * hashmap_from_chunked_array, erts_hashmap_get, hashmap_iterator_next; erl_map.h).
 *
 * The trie: each key's 32-bit map hash (utils.c make_map_hash) is read 4 bits at a time
 * from its low end; depth d uses bits 4(d mod 8).. of the hash salted with level d / 8
 * (hashmap_restore_hash), so keys whose 32-bit hashes collide part at depth 8 under the
 * next salt. The root is a head node (HAMT_HEAD_BITMAP, or HAMT_HEAD_ARRAY when all 16
 * slots are used) holding the key count; below it inner nodes (HAMT_NODE_BITMAP, even when
 * full: the VM builds no inner array). A slot reached by one key holds a list word to its
 * cons cell [Key | Value]; by more, an inner node one level down. Children lie in slot
 * order. For a set of keys this shape is unique, so building it top-down here gives the
 * words, flat size, iteration order and external bytes the VM's bottom-up stack machine
 * gives; only the order of the nodes in memory differs, which no count sees.
 *
 * Where the result depends on the VM instance: make_internal_hash mixes an immediate's raw
 * word, so an atom key hashes by its atom-table index. termcopy's indices are its own
 * (atom.h): a map keyed by atoms (or by terms holding atoms) has the shape the VM gives for
 * the same indices, which is a different VM's atom table than the one `erl` starts with.
 * The same holds for what the VM hashes by an address (POINTER_HASH): a remote pid's, port's
 * or ref's node entry and an export fun's entry hash by termcopy's entries, and a local fun
 * by its module's atom word. Integer, float, string, binary, local-ref and tuple-of-those
 * keys hash exactly as the VM's.
 * Construction refuses (TC_EUNSUPPORTED) keys whose hashes agree on 128 bits, where the VM
 * would salt past level 3 (`ASSERT(lvl < 32)`).
 */
#ifndef TC_HASHMAP_H
#define TC_HASHMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "term.h"

TC_BEGIN_DECLS

/* Nodes on the path from the head to a leaf, head included (depths 0..31). */
#define TC_HAMT_MAX_DEPTH 32u

/* A hashmap head or inner node (not a flatmap). */
static inline bool tc_is_hashmap(tc_term t)
{
    return tc_is_map(t) && tc_map_header_type(tc_boxed_val(t)[0]) != TC_MAP_HEADER_TAG_FLATMAP_HEAD;
}

/* Keys of a flatmap or of a hashmap head. */
static inline uint64_t tc_map_size(tc_term m) { return tc_boxed_val(m)[1]; }

/* utils.c make_map_hash(key, level): make_internal_hash salted by the level. TC_EUNSUPPORTED
 * for a kind the model does not build; TC_ENOMEM when the walk's stack cannot grow. */
tc_result tc_map_hash(tc_term key, unsigned level, uint32_t *hash) TC_MUST_CHECK;

/*
 * The map of the n pairs kv[2i] => kv[2i+1], in any order, as maps:from_list/1 and the
 * `#{}` syntax build it: a repeated key keeps its last value (and its last key term), and
 * more than 32 distinct keys give a hashmap, 32 or fewer a flatmap.
 */
tc_result tc_term_map(tc_alloc *a, const tc_term *kv, size_t n, tc_term *out) TC_MUST_CHECK;

/* As binary_to_term builds a MAP_EXT of n > 32 pairs (erts_hashmap_from_array with
 * reject_dupkeys): always a hashmap; TC_EPARSE when a key repeats. */
tc_result tc_term_hashmap_unique(tc_alloc *a, const tc_term *kv, size_t n, tc_term *out) TC_MUST_CHECK;

/* maps:get: *value is the value of `key` in `map` (either kind), or NULL when absent. */
tc_result tc_map_get(tc_term map, tc_term key, const tc_term **value) TC_MUST_CHECK;

/* The trie rules above for the hashmap whose head is `head`: headers of their kind (a head
 * with the size word, inner nodes of map arity 0, no empty bitmap, a full head an array),
 * depth under TC_HAMT_MAX_DEPTH, every leaf an aligned cons whose key's hash slots are the
 * path to it (so a bitmap that disagrees with the keys beneath is found), no inner node over
 * a single key, leaves counting the size word, more than 32 of them. NULL when all hold,
 * else why. The keys' and values' own shape is the caller's to check (tc_term_verify). */
const char *tc_hashmap_check(tc_term head);

/* Iteration in the VM's order (hashmap_iterator_next: depth first, slots ascending, the
 * order of maps:to_list and ~w; a flatmap in key order). The external format writes a
 * hashmap in the reverse order (tc_map_iter_init's `reverse`). */
typedef struct tc_map_iter {
    tc_term map;
    bool reverse;
    unsigned depth;
    uint64_t flat_next;
    const tc_term *node[TC_HAMT_MAX_DEPTH + 1];
    unsigned next[TC_HAMT_MAX_DEPTH + 1];
} tc_map_iter;

void tc_map_iter_init(tc_map_iter *it, tc_term map, bool reverse);
/* The next pair; false when done. */
bool tc_map_iter_next(tc_map_iter *it, tc_term *key, tc_term *value);

TC_END_DECLS

#endif
