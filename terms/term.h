/*
 * term.h — the 64-bit BEAM term word (`Eterm`), exactly as OTP 25 lays it out.
 *
 * This is the only file where tag bits live (erts: erl_term.h). A term is one 64-bit word.
 * Its two low bits are the primary tag: 00 header (first word of a boxed object), 01 list
 * pointer, 10 boxed pointer, 11 immediate. Immediates use 4 bits (pid, port, small int,
 * IMMED2 escape) and IMMED2 uses 6 (atom, catch, nil). A header word is
 * (arity << 6) | (subtag << 2); the subtag table is OTP 17–26's.
 *
 * Objects (64-bit words; sizes are what erts_debug:flat_size counts):
 *   cons            2  [car, cdr]
 *   tuple        1+n   [ARITYVAL n, e1..en]; {} is one shared constant of 0 heap words
 *   float          2   [FLOAT 1, ieee double]
 *   bignum       1+d   [POS_BIG|NEG_BIG d, digit0 (least significant) .. digit d-1]
 *   heap binary  2+ceil(b/8)  [HEAP_BINARY 1+ceil(b/8), byte size, bytes..]   (b <= 64)
 *   ProcBin        6   [REFC_BINARY 5, byte size, next, Binary*, bytes*, flags] (b > 64)
 *   sub binary     5   [SUB_BINARY 3, byte size, byte offset, packed bits, orig]
 *   flatmap      3+n   [MAP flatmap header, n, keys tuple, v1..vn] + keys tuple 1+n
 *   HAMT head   2+k   [MAP head header (bitmap of k slots, or array: k = 16), n, k children]
 *   HAMT node   1+k   [MAP node header (bitmap of k slots), k children]; a child is another
 *                     node, or a list word to a cons [Key | Value] (2 words): hashmap.h
 *   local ref      3   [REF 2, 0xFFFFFFFF | num0 << 32, num1 | num2 << 32]   (ErtsORefThing)
 *   external pid   4   [EXTERNAL_PID 3, node*, next, num | serial << 32]      (ExternalThing)
 *   external port  4   [EXTERNAL_PORT 3, node*, next, 64-bit number]
 *   external ref 3+d   [EXTERNAL_REF 2+d, node*, next, count | num0 << 32, num1 | num2 << 32, ..]
 *                      d = count/2 + 1 words: the 32-bit count, then the numbers, zero-padded
 *   fun          5+f   [FUN 3, entry*, next, arity | num_free << 8, creator, env1..envf]
 *                      (ErlFunThing; an export fun `fun M:F/A` has f = 0, creator 'external',
 *                      entry* its export entry, next NULL, and is on no off-heap list)
 *
 * Pointers are 8-byte aligned; bit 2 (erts' TAG_LITERAL_PTR on some builds) is never used:
 * literal membership is decided by address range, as on builds with a reserved literal
 * area.
 */
#ifndef TC_TERM_H
#define TC_TERM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base.h"

TC_BEGIN_DECLS

typedef uint64_t tc_term;

#define TC_WORD_BYTES 8u

/* Primary tag. */
#define TC_TAG_PRIMARY_SIZE 2
#define TC_TAG_PRIMARY_MASK 0x3u
#define TC_TAG_PRIMARY_HEADER 0x0u
#define TC_TAG_PRIMARY_LIST 0x1u
#define TC_TAG_PRIMARY_BOXED 0x2u
#define TC_TAG_PRIMARY_IMMED1 0x3u

/* Immediate-1: 4 bits. */
#define TC_TAG_IMMED1_SIZE 4
#define TC_TAG_IMMED1_MASK 0xFu
#define TC_TAG_IMMED1_PID 0x3u
#define TC_TAG_IMMED1_PORT 0x7u
#define TC_TAG_IMMED1_IMMED2 0xBu
#define TC_TAG_IMMED1_SMALL 0xFu

/* Immediate-2: 6 bits. */
#define TC_TAG_IMMED2_SIZE 6
#define TC_TAG_IMMED2_MASK 0x3Fu
#define TC_TAG_IMMED2_ATOM 0x0Bu
#define TC_TAG_IMMED2_CATCH 0x1Bu
#define TC_TAG_IMMED2_NIL 0x3Bu

#define TC_NIL ((tc_term)TC_TAG_IMMED2_NIL)
/* "No value": also the forwarding mark a copier leaves in a moved cons cell's car. */
#define TC_NON_VALUE ((tc_term)0)

/* Header words. */
#define TC_HEADER_ARITY_OFFS 6
#define TC_HEADER_SUBTAG_MASK 0x3Cu /* 4 bits above the primary tag */
#define TC_SUBTAG_ARITYVAL 0x0u
#define TC_SUBTAG_BIN_MATCHSTATE 0x1u
#define TC_SUBTAG_POS_BIG 0x2u
#define TC_SUBTAG_NEG_BIG 0x3u
#define TC_SUBTAG_REF 0x4u
#define TC_SUBTAG_FUN 0x5u
#define TC_SUBTAG_FLOAT 0x6u
#define TC_SUBTAG_EXPORT 0x7u
#define TC_SUBTAG_REFC_BINARY 0x8u
#define TC_SUBTAG_HEAP_BINARY 0x9u
#define TC_SUBTAG_SUB_BINARY 0xAu
#define TC_SUBTAG_EXTERNAL_PID 0xCu
#define TC_SUBTAG_EXTERNAL_PORT 0xDu
#define TC_SUBTAG_EXTERNAL_REF 0xEu
#define TC_SUBTAG_MAP 0xFu

#define TC_MAKE_HEADER(arity, subtag) \
    (((tc_term)(arity) << TC_HEADER_ARITY_OFFS) | ((tc_term)(subtag) << TC_TAG_PRIMARY_SIZE))

/*
 * Map headers reuse the arity field: its two low bits are the kind of map node (erl_term.h
 * MAP_HEADER_TAG_*: 0 flatmap head, 1 HAMT node, 2 HAMT head array, 3 HAMT head bitmap), the
 * next 8 an arity (1 for a head) and the 16 above a bitmap. erl_map.h's MAP_HEADER_FLATMAP is
 * MAKE_MAP_HEADER(FLATMAP_HEAD, 1, 0). A flatmap's size is in the word after the header.
 */
#define TC_MAP_HEADER_TAG_FLATMAP_HEAD 0x0u
#define TC_MAP_HEADER_TAG_HAMT_NODE_BITMAP 0x1u
#define TC_MAP_HEADER_TAG_HAMT_HEAD_ARRAY 0x2u
#define TC_MAP_HEADER_TAG_HAMT_HEAD_BITMAP 0x3u
#define TC_MAP_HEADER_TAG_SIZE 2
#define TC_MAP_HEADER_ARITY_SIZE 8
#define TC_MAKE_MAP_HEADER(type, arity, val) \
    TC_MAKE_HEADER(((((uint64_t)(uint16_t)(val) << TC_MAP_HEADER_ARITY_SIZE) | (arity)) << TC_MAP_HEADER_TAG_SIZE) | (type), \
                   TC_SUBTAG_MAP)
#define TC_MAP_HEADER_FLATMAP TC_MAKE_MAP_HEADER(TC_MAP_HEADER_TAG_FLATMAP_HEAD, 1u, 0u)
/* HAMT nodes (erl_map.h): a head holds the map's size in its second word and, unless all 16
 * slots are used (HEAD_ARRAY), a bitmap of the used slots; an inner node has only the bitmap. */
#define TC_MAP_HEADER_HAMT_HEAD_ARRAY TC_MAKE_MAP_HEADER(TC_MAP_HEADER_TAG_HAMT_HEAD_ARRAY, 1u, 0xFFFFu)
#define TC_MAP_HEADER_HAMT_HEAD_BITMAP(bmp) TC_MAKE_MAP_HEADER(TC_MAP_HEADER_TAG_HAMT_HEAD_BITMAP, 1u, bmp)
#define TC_MAP_HEADER_HAMT_NODE_BITMAP(bmp) TC_MAKE_MAP_HEADER(TC_MAP_HEADER_TAG_HAMT_NODE_BITMAP, 0u, bmp)
#define TC_MAP_SMALL_MAP_LIMIT 32u

/* erl_term.h MAP_HEADER_TYPE, MAP_HEADER_ARITY (words before the terms, less one) and
 * MAP_HEADER_VAL (the bitmap). */
static inline unsigned tc_map_header_type(tc_term h) { return (unsigned)(h >> TC_HEADER_ARITY_OFFS) & 0x3u; }
static inline unsigned tc_map_header_arity(tc_term h)
{
    return (unsigned)(h >> (TC_HEADER_ARITY_OFFS + TC_MAP_HEADER_TAG_SIZE)) & 0xFFu;
}
static inline unsigned tc_map_header_bitmap(tc_term h)
{
    return (unsigned)(h >> (TC_HEADER_ARITY_OFFS + TC_MAP_HEADER_TAG_SIZE + TC_MAP_HEADER_ARITY_SIZE)) & 0xFFFFu;
}

/* Small integers: 60 bits on 64-bit, value << 4 | 0xF. */
#define TC_SMALL_BITS 60
#define TC_MAX_SMALL ((int64_t)((UINT64_C(1) << (TC_SMALL_BITS - 1)) - 1))
#define TC_MIN_SMALL (-TC_MAX_SMALL - 1)

/* Fixed object sizes in words (erts: global.h, erl_binary.h). */
#define TC_CONS_SIZE 2u
#define TC_FLOAT_SIZE 2u
#define TC_PROC_BIN_SIZE 6u
#define TC_SUB_BIN_SIZE 5u
#define TC_HEAP_BIN_LIMIT 64u /* ERL_ONHEAP_BIN_LIMIT: larger binaries are refc */
#define TC_HEAP_BIN_SIZE(bytes) (2u + ((size_t)(bytes) + TC_WORD_BYTES - 1) / TC_WORD_BYTES)
#define TC_TUPLE_SIZE(arity) ((arity) == 0 ? 0u : 1u + (size_t)(arity))
#define TC_FLATMAP_SIZE(n) (3u + (size_t)(n) + TC_TUPLE_SIZE(n))
/* erl_term.h ERTS_REF_THING_SIZE, EXTERNAL_THING_HEAD_SIZE, EXTERNAL_PID_HEAP_SIZE and
 * make_external_ref_header (64-bit: the 32-bit count and the numbers, rounded up to words);
 * erl_fun.h ERL_FUN_SIZE and HEADER_FUN (arity ERL_FUN_SIZE - 2: creator and env are terms). */
#define TC_REF_THING_SIZE 3u
#define TC_REF_NUMBERS 3u
#define TC_REF_MAX_NUMBERS 5u /* ERTS_MAX_REF_NUMBERS */
#define TC_ORDINARY_REF_MARKER UINT64_C(0xFFFFFFFF)
#define TC_EXTERNAL_THING_HEAD_SIZE 3u
#define TC_EXTERNAL_PID_SIZE 4u
#define TC_EXTERNAL_PORT_SIZE 4u
#define TC_EXTERNAL_REF_SIZE(count) (TC_EXTERNAL_THING_HEAD_SIZE + (size_t)(count) / 2 + 1)
#define TC_FUN_SIZE 5u
#define TC_FUN_HEADER TC_MAKE_HEADER(TC_FUN_SIZE - 2, TC_SUBTAG_FUN)
#define TC_FUN_MAX_FREE 255u /* MAX_ARG: num_free and arity are bytes */
/* Word offsets of the things above (the off-heap link `next` is word 2 in every one, as in
 * erts' struct erl_off_heap_header). */
enum { TC_EXT_NODE = 1, TC_OH_NEXT = 2, TC_EXT_DATA = 3 };
enum { TC_FUN_ENTRY = 1, TC_FUN_ARITY_FREE = 3, TC_FUN_CREATOR = 4, TC_FUN_ENV = 5 };
#define TC_MAX_ATOM_CHARACTERS 255u

/* ---- primary tag ---------------------------------------------------------------------- */

static inline unsigned tc_primary_tag(tc_term t) { return (unsigned)(t & TC_TAG_PRIMARY_MASK); }
static inline bool tc_is_header(tc_term t) { return tc_primary_tag(t) == TC_TAG_PRIMARY_HEADER; }
static inline bool tc_is_list(tc_term t) { return tc_primary_tag(t) == TC_TAG_PRIMARY_LIST; }
static inline bool tc_is_boxed(tc_term t) { return tc_primary_tag(t) == TC_TAG_PRIMARY_BOXED; }
static inline bool tc_is_immed(tc_term t) { return tc_primary_tag(t) == TC_TAG_PRIMARY_IMMED1; }
/* A word that is a complete value by itself: no heap words behind it. */
static inline bool tc_is_immediate_value(tc_term t) { return tc_is_immed(t); }

static inline tc_term *tc_list_val(tc_term t) { return (tc_term *)(uintptr_t)(t - TC_TAG_PRIMARY_LIST); }
static inline tc_term *tc_boxed_val(tc_term t) { return (tc_term *)(uintptr_t)(t - TC_TAG_PRIMARY_BOXED); }
static inline tc_term tc_make_list(const tc_term *p) { return (tc_term)(uintptr_t)p + TC_TAG_PRIMARY_LIST; }
static inline tc_term tc_make_boxed(const tc_term *p) { return (tc_term)(uintptr_t)p + TC_TAG_PRIMARY_BOXED; }

static inline tc_term tc_car(tc_term list) { return tc_list_val(list)[0]; }
static inline tc_term tc_cdr(tc_term list) { return tc_list_val(list)[1]; }

/* ---- immediates ----------------------------------------------------------------------- */

static inline bool tc_is_small(tc_term t) { return (t & TC_TAG_IMMED1_MASK) == TC_TAG_IMMED1_SMALL; }
static inline bool tc_is_pid(tc_term t) { return (t & TC_TAG_IMMED1_MASK) == TC_TAG_IMMED1_PID; }
static inline bool tc_is_port(tc_term t) { return (t & TC_TAG_IMMED1_MASK) == TC_TAG_IMMED1_PORT; }
static inline bool tc_is_atom(tc_term t) { return (t & TC_TAG_IMMED2_MASK) == TC_TAG_IMMED2_ATOM; }
static inline bool tc_is_nil(tc_term t) { return t == TC_NIL; }

static inline bool tc_small_fits(int64_t v) { return v >= TC_MIN_SMALL && v <= TC_MAX_SMALL; }
static inline tc_term tc_make_small(int64_t v)
{
    return ((uint64_t)v << TC_TAG_IMMED1_SIZE) | TC_TAG_IMMED1_SMALL;
}
static inline int64_t tc_small_val(tc_term t) { return (int64_t)t >> TC_TAG_IMMED1_SIZE; }

static inline tc_term tc_make_atom(uint64_t index)
{
    return (index << TC_TAG_IMMED2_SIZE) | TC_TAG_IMMED2_ATOM;
}
static inline uint64_t tc_atom_index(tc_term t) { return t >> TC_TAG_IMMED2_SIZE; }

/*
 * Local pid <0.N.S>: the 28-bit data field holds the process number in its low 15 bits and
 * the serial in the 13 above them (erl_term.h _PID_NUM_SIZE 15, _PID_DATA_SIZE 28;
 * erl_node_container_utils.h ERTS_MAX_INTERNAL_PID_NUMBER and _SERIAL, beyond which
 * list_to_pid/1 and binary_to_term/1 of a local pid are badarg), so <0.N.0> is (N << 4) | 0x3.
 * Callers pass a number and serial within those limits.
 */
#define TC_PID_NUMBER_BITS 15
#define TC_PID_SERIAL_BITS 13
#define TC_PID_NUMBER_MAX ((UINT32_C(1) << TC_PID_NUMBER_BITS) - 1)
#define TC_PID_SERIAL_MAX ((UINT32_C(1) << TC_PID_SERIAL_BITS) - 1)
static inline tc_term tc_make_pid(uint32_t number, uint32_t serial)
{
    uint64_t data = ((uint64_t)(serial & TC_PID_SERIAL_MAX) << TC_PID_NUMBER_BITS) | (number & TC_PID_NUMBER_MAX);
    return (data << TC_TAG_IMMED1_SIZE) | TC_TAG_IMMED1_PID;
}
static inline uint32_t tc_pid_number(tc_term t)
{
    return (uint32_t)((t >> TC_TAG_IMMED1_SIZE) & TC_PID_NUMBER_MAX);
}
static inline uint32_t tc_pid_serial(tc_term t)
{
    return (uint32_t)(t >> (TC_TAG_IMMED1_SIZE + TC_PID_NUMBER_BITS));
}

/*
 * Local port #Port<0.N>: the data field holds the port number (28 bits, _PORT_NUM_SIZE).
 * Where termcopy differs: the VM's pid and port words (erts_ptab_make_id) put the process
 * or port table index in the high 32 bits; termcopy keeps the number and serial in place.
 * No size, order, text or external byte depends on it.
 */
#define TC_PORT_NUMBER_BITS 28
static inline tc_term tc_make_port(uint32_t number)
{
    return ((uint64_t)number << TC_TAG_IMMED1_SIZE) | TC_TAG_IMMED1_PORT;
}
static inline uint32_t tc_port_number(tc_term t) { return (uint32_t)(t >> TC_TAG_IMMED1_SIZE); }

/* ---- headers -------------------------------------------------------------------------- */

static inline uint64_t tc_header_arity(tc_term h) { return h >> TC_HEADER_ARITY_OFFS; }
static inline unsigned tc_header_subtag(tc_term h) { return (unsigned)((h & TC_HEADER_SUBTAG_MASK) >> TC_TAG_PRIMARY_SIZE); }
static inline bool tc_header_is_thing(tc_term h) { return tc_header_subtag(h) != TC_SUBTAG_ARITYVAL; }
static inline unsigned tc_boxed_subtag(tc_term t) { return tc_header_subtag(tc_boxed_val(t)[0]); }

static inline bool tc_is_tuple(tc_term t) { return tc_is_boxed(t) && tc_boxed_subtag(t) == TC_SUBTAG_ARITYVAL; }
static inline bool tc_is_float(tc_term t) { return tc_is_boxed(t) && tc_boxed_subtag(t) == TC_SUBTAG_FLOAT; }
static inline bool tc_is_big(tc_term t)
{
    if (!tc_is_boxed(t))
        return false;
    unsigned s = tc_boxed_subtag(t);
    return s == TC_SUBTAG_POS_BIG || s == TC_SUBTAG_NEG_BIG;
}
static inline bool tc_is_integer(tc_term t) { return tc_is_small(t) || tc_is_big(t); }
static inline bool tc_is_number(tc_term t) { return tc_is_integer(t) || tc_is_float(t); }
static inline bool tc_is_bitstring(tc_term t)
{
    if (!tc_is_boxed(t))
        return false;
    unsigned s = tc_boxed_subtag(t);
    return s == TC_SUBTAG_REFC_BINARY || s == TC_SUBTAG_HEAP_BINARY || s == TC_SUBTAG_SUB_BINARY;
}
static inline bool tc_is_map(tc_term t) { return tc_is_boxed(t) && tc_boxed_subtag(t) == TC_SUBTAG_MAP; }
static inline bool tc_is_fun(tc_term t) { return tc_is_boxed(t) && tc_boxed_subtag(t) == TC_SUBTAG_FUN; }
static inline bool tc_is_local_ref(tc_term t) { return tc_is_boxed(t) && tc_boxed_subtag(t) == TC_SUBTAG_REF; }
/* An external pid, port or ref: a thing with a node pointer, on the off-heap list. */
static inline bool tc_header_is_external(tc_term h)
{
    unsigned s = tc_header_subtag(h);
    return s == TC_SUBTAG_EXTERNAL_PID || s == TC_SUBTAG_EXTERNAL_PORT || s == TC_SUBTAG_EXTERNAL_REF;
}
static inline bool tc_is_external(tc_term t) { return tc_is_boxed(t) && tc_header_is_external(tc_boxed_val(t)[0]); }
/* Free variables of the fun object at p. */
static inline size_t tc_fun_num_free(const tc_term *p) { return (size_t)((p[TC_FUN_ARITY_FREE] >> 8) & 0xFF); }

static inline uint64_t tc_tuple_arity(tc_term t) { return tc_header_arity(tc_boxed_val(t)[0]); }
/* Element i, 1-based as in element/2. */
static inline tc_term tc_tuple_element(tc_term t, uint64_t i) { return tc_boxed_val(t)[i]; }

static inline double tc_float_val(tc_term t)
{
    double d;
    memcpy(&d, &tc_boxed_val(t)[1], sizeof d);
    return d;
}

/* Flatmap fields. */
static inline uint64_t tc_flatmap_size(tc_term m) { return tc_boxed_val(m)[1]; }
static inline tc_term tc_flatmap_keys(tc_term m) { return tc_boxed_val(m)[2]; }
static inline tc_term *tc_flatmap_values(tc_term m) { return &tc_boxed_val(m)[3]; }

/* The one shared `{}`: 0 heap words, never copied (OTP 25 measures flat_size({}) = 0). */
extern const tc_term tc_empty_tuple_object[1];
#define TC_EMPTY_TUPLE (tc_make_boxed(tc_empty_tuple_object))
static inline bool tc_is_empty_tuple_object(const tc_term *p) { return p == tc_empty_tuple_object; }

/* ---- where new words come from ---------------------------------------------------------- */

/*
 * The off-heap list (erts: ErlOffHeap): every ProcBin on a heap is linked through its
 * `next` field, so the owner can drop its references when the heap dies. `overhead` is the
 * byte total of the binaries on the list at all times (what the verifier checks). `vheap`
 * is the VM's own ErlOffHeap.overhead, the binary virtual heap's use: OH_OVERHEAD
 * (erl_message.h) adds a ProcBin's size / 8 in words whenever one is built or copied onto
 * the list (binary.c build_proc_bin, copy.c copy_struct / copy_shallow / copy_shared), a
 * fragment's whole `vheap` when its list is spliced in, and nothing ever subtracts it: the
 * owner resets it (a process's GC, heaps/gc.h sweep_off_heap).
 */
typedef struct tc_offheap {
    tc_term *first; /* header word of the first ProcBin, or NULL */
    uint64_t overhead;
    uint64_t vheap; /* words (erts ErlOffHeap.overhead) */
} tc_offheap;

/*
 * An allocator of heap words: a term arena now, a process heap's HAlloc later. `alloc`
 * returns `words` contiguous words (8-aligned) or NULL when memory runs out; `offheap`
 * is where ProcBins built in those words get linked. `release` (may be NULL: the words
 * stay taken) is HRelease (erl_vm.h): the caller filled only [.., used) of its last
 * allocation, which ends at `end`, and gives the rest back.
 */
typedef struct tc_alloc tc_alloc;
struct tc_alloc {
    tc_term *(*alloc)(tc_alloc *self, size_t words);
    tc_offheap *offheap;
    void (*release)(tc_alloc *self, tc_term *end, tc_term *used);
};

static inline tc_term *tc_alloc_words(tc_alloc *a, size_t words) { return a->alloc(a, words); }
static inline void tc_alloc_release(tc_alloc *a, tc_term *end, tc_term *used)
{
    if (a->release && used != end)
        a->release(a, end, used);
}

/* ---- constructors: each returns TC_NON_VALUE when the allocator fails ------------------- */

tc_term tc_term_cons(tc_alloc *a, tc_term car, tc_term cdr);
/* A tuple of `arity` elements copied from `elems`; arity 0 gives the shared `{}`. */
tc_term tc_term_tuple(tc_alloc *a, const tc_term *elems, uint64_t arity);
tc_term tc_term_float(tc_alloc *a, double d);
/* A small int when it fits, else a one-digit bignum. */
tc_term tc_term_int64(tc_alloc *a, int64_t v);
/* A list of the `n` terms in `elems`, ending in `tail`. */
tc_term tc_term_list(tc_alloc *a, const tc_term *elems, size_t n, tc_term tail);

TC_END_DECLS

#endif
