#include "hashmap.h"


#include "binary.h"
#include "compare.h"
#include "flatmap.h"
#include "fun.h"
#include "ident.h"
#include "layout.h"
#include "wstack.h"

/* ==== the map hash (utils.c make_map_hash, make_internal_hash, block_hash) ============== */

#define HCONST 0x9e3779b9u
#define HCONST_4 0x78dde6e4u
#define HCONST_5 0x1715609du
#define HCONST_6 0xb54cda56u
#define HCONST_7 0x5384540fu
#define HCONST_8 0xf1bbcdc8u
#define HCONST_9 0x8ff34781u
#define HCONST_10 0x2e2ac13au
#define HCONST_11 0xcc623af3u
#define HCONST_12 0x6a99b4acu
#define HCONST_13 0x08d12e65u
#define HCONST_14 0xa708a81eu
#define HCONST_15 0x454021d7u
#define HCONST_16 0xe3779b90u
#define HCONST_17 0x81af1549u
#define HCONST_18 0x1fe68f02u
#define HCONST_20 0x5c558274u
#define HCONST_21 0xfa8cfc2du
#define HCONST_22 0x98c475e6u
#define INTERNAL_HASH_SALT 3432918353u

/* Bob Jenkins' mix of three 32-bit words, as utils.c MIX. */
static void mix3(uint32_t *pa, uint32_t *pb, uint32_t *pc)
{
    uint32_t a = *pa, b = *pb, c = *pc;
    a -= b; a -= c; a ^= (c >> 13);
    b -= c; b -= a; b ^= (a << 8);
    c -= a; c -= b; c ^= (b >> 13);
    a -= b; a -= c; a ^= (c >> 12);
    b -= c; b -= a; b ^= (a << 16);
    c -= a; c -= b; c ^= (b >> 5);
    a -= b; a -= c; a ^= (c >> 3);
    b -= c; b -= a; b ^= (a << 10);
    c -= a; c -= b; c ^= (b >> 15);
    *pa = a, *pb = b, *pc = c;
}

/* UINT32_HASH_2(x, y, k) */
static void hash2(uint32_t *hash, uint32_t x, uint32_t y, uint32_t k)
{
    uint32_t a = k + x, b = k + y;
    mix3(&a, &b, hash);
}

/* CONST_HASH(k): the light mix of a cons cell's car or cdr marker. */
static void const_hash(uint32_t *hash, uint32_t k)
{
    *hash ^= k;
    *hash = (*hash << 17) ^ (*hash >> 15);
}

/* block_hash over a bitstring's whole bytes, wherever its bits start. */
static uint32_t block_hash(const tc_bits *b, uint32_t initval)
{
    uint32_t a = HCONST, bb = HCONST, c = initval;
    size_t n = b->bytes, i = 0;
    for (; n - i >= 12; i += 12) {
        uint32_t w[3] = {0, 0, 0};
        for (unsigned j = 0; j < 12; j++)
            w[j / 4] += (uint32_t)tc_bits_byte(b, i + j) << (8 * (j % 4));
        a += w[0], bb += w[1], c += w[2];
        mix3(&a, &bb, &c);
    }
    c += (uint32_t)n;
    /* The tail: up to 11 bytes, into a, b and the upper three bytes of c. */
    for (size_t j = 0; i + j < n; j++) {
        uint32_t v = tc_bits_byte(b, i + j);
        if (j < 4)
            a += v << (8 * j);
        else if (j < 8)
            bb += v << (8 * (j - 4));
        else
            c += v << (8 * (j - 7));
    }
    mix3(&a, &bb, &c);
    return c;
}

/* A marker on the walk's stack: a header word, which no term pushed there can be. */
#define HASH_CDR TC_MAKE_HEADER(3u, TC_SUBTAG_REF)

static bool is_byte(tc_term t) { return tc_is_small(t) && (uint64_t)tc_small_val(t) < 256; }

tc_result tc_map_hash(tc_term key, unsigned level, uint32_t *out)
{
    uint32_t hash = 0;
    if (level > 0)
        hash2(&hash, level, 1, HCONST_22);
    hash ^= INTERNAL_HASH_SALT;
    tc_wstack s;
    tc_wstack_init(&s);
    tc_result r = TC_OK;
    tc_term t = key;
    for (;;) {
        if (tc_is_immed(t)) {
            hash2(&hash, (uint32_t)t, (uint32_t)(t >> 32), HCONST);
        } else if (tc_is_list(t)) {
            /* A run of bytes is mixed four at a time (the string optimisation). */
            unsigned c = 0;
            uint32_t sh = 0;
            const tc_term *cell = tc_list_val(t);
            while (is_byte(cell[0])) {
                sh = (sh << 8) + (uint32_t)tc_small_val(cell[0]);
                if (c == 3) {
                    hash2(&hash, sh, 0, HCONST_4);
                    c = 0, sh = 0;
                } else {
                    c++;
                }
                t = cell[1];
                if (!tc_is_list(t))
                    break;
                cell = tc_list_val(t);
            }
            if (c > 0)
                hash2(&hash, sh, c, HCONST_22);
            if (tc_is_list(t)) {
                tc_term tail = cell[1];
                const_hash(&hash, HCONST_17);
                if (!tc_wstack_push(&s, tail) || (!tc_is_list(tail) && !tc_wstack_push(&s, HASH_CDR))) {
                    r = TC_ENOMEM;
                    break;
                }
                t = cell[0];
            }
            continue; /* the car, or the tail the run ended on */
        } else {
            const tc_term *p = tc_boxed_val(t);
            tc_term h = p[0];
            switch (tc_header_subtag(h)) {
            case TC_SUBTAG_ARITYVAL: {
                uint64_t n = tc_header_arity(h);
                hash2(&hash, (uint32_t)n, 0, HCONST_9);
                if (n == 0)
                    break;
                if (!tc_wstack_reserve(&s, n)) {
                    r = TC_ENOMEM;
                    goto done;
                }
                for (uint64_t i = n; i > 1; i--)
                    s.base[s.n++] = p[i];
                t = p[1];
                continue;
            }
            case TC_SUBTAG_MAP: {
                size_t n;
                const tc_term *kids = tc_layout_map_terms(h, p, &n);
                unsigned type = tc_map_header_type(h);
                if (type != TC_MAP_HEADER_TAG_HAMT_NODE_BITMAP) {
                    hash2(&hash, (uint32_t)p[1], 0, HCONST_16);
                    if (p[1] == 0)
                        break;
                }
                if (!tc_wstack_reserve(&s, 2 * n)) {
                    r = TC_ENOMEM;
                    goto done;
                }
                if (type == TC_MAP_HEADER_TAG_FLATMAP_HEAD) {
                    /* Pairs in key order: k0 is hashed first, then v0, k1, ... */
                    const tc_term *ks = &tc_boxed_val(kids[0])[1], *vs = kids + 1;
                    for (size_t i = p[1]; i > 0; i--) {
                        s.base[s.n++] = vs[i - 1];
                        s.base[s.n++] = ks[i - 1];
                    }
                } else {
                    /* Children pushed in slot order, so the last is hashed first. */
                    for (size_t i = 0; i < n; i++) {
                        if (tc_is_list(kids[i])) {
                            s.base[s.n++] = tc_cdr(kids[i]);
                            s.base[s.n++] = tc_car(kids[i]);
                        } else {
                            s.base[s.n++] = kids[i];
                        }
                    }
                }
                break;
            }
            case TC_SUBTAG_REFC_BINARY:
            case TC_SUBTAG_HEAP_BINARY:
            case TC_SUBTAG_SUB_BINARY: {
                tc_bits b = tc_bitstring_get(t);
                uint32_t con = HCONST_13 + hash;
                if (b.bytes == 0 && b.extra_bits == 0) {
                    hash = con;
                } else {
                    hash = block_hash(&b, con);
                    if (b.extra_bits > 0) {
                        uint32_t last = 0;
                        for (unsigned i = 0; i < b.extra_bits; i++)
                            last = (last << 1) | tc_bits_bit(&b, b.bytes * 8 + i);
                        hash2(&hash, b.extra_bits, last, HCONST_15);
                    }
                }
                break;
            }
            case TC_SUBTAG_POS_BIG:
            case TC_SUBTAG_NEG_BIG: {
                uint32_t con = tc_header_subtag(h) == TC_SUBTAG_NEG_BIG ? HCONST_10 : HCONST_11;
                for (uint64_t i = 1; i <= tc_header_arity(h); i++)
                    hash2(&hash, (uint32_t)p[i], (uint32_t)(p[i] >> 32), con);
                break;
            }
            case TC_SUBTAG_FLOAT: {
                uint64_t bits = tc_float_val(t) == 0.0 ? 0 : p[1]; /* -0.0 hashes as 0.0 */
                hash2(&hash, (uint32_t)bits, (uint32_t)(bits >> 32), HCONST_12);
                break;
            }
            case TC_SUBTAG_REF: {
                uint32_t num[TC_REF_MAX_NUMBERS];
                (void)tc_ref_numbers(t, num); /* an ordinary ref has 3 */
                hash2(&hash, num[0], 0, HCONST_7);
                hash2(&hash, num[1], num[2], HCONST_8);
                break;
            }
            case TC_SUBTAG_EXTERNAL_REF: {
                /* The node by its entry's address, as the VM's POINTER_HASH: instance-specific */
                uint32_t num[TC_REF_MAX_NUMBERS];
                size_t n = tc_ref_numbers(t, num);
                uintptr_t node = (uintptr_t)tc_external_node(t);
                hash2(&hash, (uint32_t)node, (uint32_t)((uint64_t)node >> 32), HCONST_7);
                hash2(&hash, n > 0 ? num[0] : 0, 0, HCONST_7);
                hash2(&hash, n > 1 ? num[1] : 0, n > 2 ? num[2] : 0, HCONST_8);
                break;
            }
            case TC_SUBTAG_EXTERNAL_PID:
            case TC_SUBTAG_EXTERNAL_PORT: {
                bool pid = tc_header_subtag(h) == TC_SUBTAG_EXTERNAL_PID;
                uint32_t con = pid ? HCONST_5 : HCONST_6;
                uintptr_t node = (uintptr_t)tc_external_node(t);
                hash2(&hash, (uint32_t)node, (uint32_t)((uint64_t)node >> 32), con);
                if (pid)
                    hash2(&hash, tc_external_pid_number(t), tc_external_pid_serial(t), con);
                else
                    hash2(&hash, (uint32_t)tc_external_port_number(t), (uint32_t)(tc_external_port_number(t) >> 32), con);
                break;
            }
            case TC_SUBTAG_FUN: {
                if (!tc_fun_is_local(p)) { /* the export entry's address: instance-specific */
                    uintptr_t e = (uintptr_t)tc_fun_export_of(p);
                    hash2(&hash, (uint32_t)e, (uint32_t)((uint64_t)e >> 32), HCONST_14);
                    break;
                }
                const tc_fun_entry *fe = tc_fun_entry_of(p);
                size_t nf = tc_fun_num_free(p);
                /* the module as an atom word, like any atom key: instance-specific */
                hash2(&hash, (uint32_t)nf, (uint32_t)fe->module, HCONST_20);
                hash2(&hash, fe->index, (uint32_t)fe->old_uniq, HCONST_21);
                if (nf == 0)
                    break;
                if (!tc_wstack_reserve(&s, nf)) {
                    r = TC_ENOMEM;
                    goto done;
                }
                for (size_t i = nf; i > 1; i--) /* the first free variable is hashed first */
                    s.base[s.n++] = p[TC_FUN_ENV + i - 1];
                t = p[TC_FUN_ENV];
                continue;
            }
            default:
                r = TC_EUNSUPPORTED;
                goto done;
            }
        }
        /* pop_next */
        for (;;) {
            if (tc_wstack_empty(&s))
                goto done;
            t = tc_wstack_pop(&s);
            if (t != HASH_CDR)
                break;
            const_hash(&hash, HCONST_18);
        }
    }
done:
    tc_wstack_destroy(&s);
    if (r == TC_OK)
        *out = hash;
    return r;
}

/* ==== construction ======================================================================= */

typedef struct entry {
    uint32_t sw; /* the level's hash, nibbles reversed: sorting by it sorts by slot path */
    tc_term key, value;
} entry;

/* erl_map.c swizzle32: nibble 0 (the slot at the level's first depth) to the top. */
static uint32_t swizzle(uint32_t h)
{
    uint32_t d = 0;
    for (unsigned i = 0; i < 8; i++)
        d |= ((h >> (4 * i)) & 0xFu) << (28 - 4 * i);
    return d;
}

/* Hashes the level's key of each entry and sorts them by it, stably: the entries come in
 * input order (at level 0) or sharing every hash bit above (deeper, where they are in input
 * order among themselves), so ties stay in input order and the last of equal keys is last.
 * An LSD radix sort, a byte a pass (a pass where every entry has the same byte is skipped):
 * linear, where a comparison sort of these 32-byte entries was most of a big map's decode. */
static tc_result hash_range(entry *e, size_t n, unsigned level)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t h;
        tc_result r = tc_map_hash(e[i].key, level, &h);
        if (r != TC_OK)
            return r;
        e[i].sw = swizzle(h);
    }
    if (n < 2)
        return TC_OK;
    entry *tmp = tc_mem_alloc(n * sizeof *tmp);
    if (!tmp)
        return TC_ENOMEM;
    entry *from = e, *to = tmp;
    for (unsigned shift = 0; shift < 32; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(from[i].sw >> shift) & 0xFFu]++;
        if (count[(from[0].sw >> shift) & 0xFFu] == n)
            continue;
        size_t at = 0;
        for (unsigned b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            to[count[(from[i].sw >> shift) & 0xFFu]++] = from[i];
        entry *t = from;
        from = to;
        to = t;
    }
    if (from != e)
        memcpy(e, from, n * sizeof *e);
    tc_mem_free(tmp);
    return TC_OK;
}

static unsigned slot_at(const entry *e, unsigned depth) { return (e->sw >> (28 - 4 * (depth % 8))) & 0xFu; }

/* The node at `depth` over the n >= 2 distinct keys of e, which share every slot above it;
 * `size` is the map's key count when this is the head. */
/* NOLINTNEXTLINE(misc-no-recursion): depth < TC_HAMT_MAX_DEPTH */
static tc_result build_node(tc_alloc *a, entry *e, size_t n, unsigned depth, uint64_t size, tc_term *out)
{
    if (depth % 8 == 0 && depth > 0) {
        if (depth >= TC_HAMT_MAX_DEPTH)
            return TC_EUNSUPPORTED; /* 128 equal hash bits: the VM's ASSERT(lvl < 32) */
        tc_result r = hash_range(e, n, depth / 8);
        if (r != TC_OK)
            return r;
    }
    tc_term kids[16];
    unsigned bitmap = 0, k = 0;
    for (size_t i = 0; i < n;) {
        unsigned slot = slot_at(&e[i], depth);
        size_t j = i + 1;
        while (j < n && slot_at(&e[j], depth) == slot)
            j++;
        bitmap |= 1u << slot;
        if (j - i == 1) {
            tc_term *c = tc_alloc_words(a, TC_CONS_SIZE);
            if (!c)
                return TC_ENOMEM;
            c[0] = e[i].key;
            c[1] = e[i].value;
            kids[k] = tc_make_list(c);
        } else {
            tc_result r = build_node(a, e + i, j - i, depth + 1, 0, &kids[k]);
            if (r != TC_OK)
                return r;
        }
        k++;
        i = j;
    }
    bool head = depth == 0;
    size_t raw = head ? 2 : 1;
    tc_term *p = tc_alloc_words(a, raw + k);
    if (!p)
        return TC_ENOMEM;
    if (head) {
        p[0] = bitmap == 0xFFFFu ? TC_MAP_HEADER_HAMT_HEAD_ARRAY : TC_MAP_HEADER_HAMT_HEAD_BITMAP(bitmap);
        p[1] = size;
    } else {
        p[0] = TC_MAP_HEADER_HAMT_NODE_BITMAP(bitmap);
    }
    memcpy(p + raw, kids, k * sizeof kids[0]);
    *out = tc_make_boxed(p);
    return TC_OK;
}

/* Sorts the pairs by level-0 hash and drops repeated keys (equal keys hash alike, so they
 * are neighbours): the later one wins, or TC_EPARSE when `unique` is asked for. *m is the
 * count left, at the front of e in hash order. hashmap_from_unsorted_array. */
static tc_result dedup(entry *e, size_t n, bool unique, size_t *m)
{
    tc_result r = hash_range(e, n, 0);
    if (r != TC_OK)
        return r;
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && e[j].sw == e[i].sw)
            j++;
        size_t first = out;
        for (size_t x = i; x < j; x++) { /* in input order within the run */
            size_t y = first;
            for (; y < out; y++) {
                bool eq;
                r = tc_term_equal(e[y].key, e[x].key, &eq);
                if (r != TC_OK)
                    return r;
                if (eq)
                    break;
            }
            if (y < out && unique)
                return TC_EPARSE;
            e[y] = e[x];
            if (y == out)
                out++;
        }
        i = j;
    }
    *m = out;
    return TC_OK;
}

static tc_result from_pairs(tc_alloc *a, const tc_term *kv, size_t n, bool unique, tc_term *out)
{
    if (n <= TC_MAP_SMALL_MAP_LIMIT && !unique)
        return tc_term_flatmap(a, kv, n, out);
    if (n > SIZE_MAX / sizeof(entry))
        return TC_ENOMEM;
    entry *e = tc_mem_alloc((n ? n : 1) * sizeof *e);
    if (!e)
        return TC_ENOMEM;
    for (size_t i = 0; i < n; i++)
        e[i] = (entry){0, kv[2 * i], kv[2 * i + 1]};
    size_t m = 0;
    tc_result r = dedup(e, n, unique, &m);
    if (r == TC_OK && m <= TC_MAP_SMALL_MAP_LIMIT && !unique) {
        /* maps:from_list: few distinct keys after all make a flatmap (hashmap_from_validated_list) */
        tc_term *pairs = tc_mem_alloc((m ? 2 * m : 1) * sizeof *pairs);
        if (!pairs) {
            r = TC_ENOMEM;
        } else {
            for (size_t i = 0; i < m; i++)
                pairs[2 * i] = e[i].key, pairs[2 * i + 1] = e[i].value;
            r = tc_term_flatmap(a, pairs, m, out);
            tc_mem_free(pairs);
        }
    } else if (r == TC_OK) {
        r = build_node(a, e, m, 0, m, out);
    }
    tc_mem_free(e);
    return r;
}

tc_result tc_term_map(tc_alloc *a, const tc_term *kv, size_t n, tc_term *out) { return from_pairs(a, kv, n, false, out); }

tc_result tc_term_hashmap_unique(tc_alloc *a, const tc_term *kv, size_t n, tc_term *out)
{
    return from_pairs(a, kv, n, true, out);
}

/* ==== lookup and iteration ================================================================ */

tc_result tc_map_get(tc_term map, tc_term key, const tc_term **value)
{
    *value = NULL;
    const tc_term *p = tc_boxed_val(map);
    tc_result r;
    bool eq;
    if (!tc_is_hashmap(map)) {
        const tc_term *ks = &tc_boxed_val(tc_flatmap_keys(map))[1];
        for (uint64_t i = 0; i < tc_flatmap_size(map); i++) {
            if ((r = tc_term_equal(ks[i], key, &eq)) != TC_OK)
                return r;
            if (eq) {
                *value = &tc_flatmap_values(map)[i];
                return TC_OK;
            }
        }
        return TC_OK;
    }
    uint32_t h = 0;
    for (unsigned depth = 0; depth < TC_HAMT_MAX_DEPTH; depth++) {
        if (depth % 8 == 0 && (r = tc_map_hash(key, depth / 8, &h)) != TC_OK)
            return r;
        unsigned slot = (h >> (4 * (depth % 8))) & 0xFu, bitmap = tc_map_header_bitmap(p[0]);
        if (!(bitmap & (1u << slot)))
            return TC_OK;
        size_t n;
        const tc_term *kids = tc_layout_map_terms(p[0], p, &n);
        tc_term child = kids[__builtin_popcount(bitmap & ((1u << slot) - 1))];
        if (tc_is_list(child)) {
            if ((r = tc_term_equal(tc_car(child), key, &eq)) != TC_OK)
                return r;
            if (eq)
                *value = &tc_list_val(child)[1];
            return TC_OK;
        }
        p = tc_boxed_val(child);
    }
    return TC_OK;
}

void tc_map_iter_init(tc_map_iter *it, tc_term map, bool reverse)
{
    it->map = map;
    it->reverse = reverse;
    it->depth = 0;
    it->flat_next = 0;
    it->node[0] = tc_boxed_val(map);
    it->next[0] = 0;
}

bool tc_map_iter_next(tc_map_iter *it, tc_term *key, tc_term *value)
{
    if (!tc_is_hashmap(it->map)) {
        uint64_t n = tc_flatmap_size(it->map);
        if (it->flat_next >= n)
            return false;
        uint64_t i = it->reverse ? n - 1 - it->flat_next : it->flat_next;
        it->flat_next++;
        *key = tc_boxed_val(tc_flatmap_keys(it->map))[1 + i];
        *value = tc_flatmap_values(it->map)[i];
        return true;
    }
    for (;;) {
        const tc_term *p = it->node[it->depth];
        size_t n;
        const tc_term *kids = tc_layout_map_terms(p[0], p, &n);
        if (it->next[it->depth] >= n) {
            if (it->depth == 0)
                return false;
            it->depth--;
            continue;
        }
        unsigned i = it->next[it->depth]++;
        tc_term child = kids[it->reverse ? n - 1 - i : i];
        if (tc_is_list(child)) {
            *key = tc_car(child);
            *value = tc_cdr(child);
            return true;
        }
        /* Depth stays within bounds: the builders and the verifier cap it. */
        if (it->depth + 1 > TC_HAMT_MAX_DEPTH)
            return false;
        it->depth++;
        it->node[it->depth] = tc_boxed_val(child);
        it->next[it->depth] = 0;
    }
}

/* ==== the verifier's rules ================================================================ */

/* NOLINTNEXTLINE(misc-no-recursion): depth < TC_HAMT_MAX_DEPTH */
static const char *check_node(const tc_term *p, unsigned depth, unsigned *slots, uint64_t *leaves)
{
    tc_term h = p[0];
    unsigned bitmap = tc_map_header_bitmap(h);
    if (bitmap == 0)
        return "HAMT node with an empty bitmap";
    size_t n;
    const tc_term *kids = tc_layout_map_terms(h, p, &n);
    uint64_t before = *leaves;
    size_t k = 0;
    for (unsigned slot = 0; slot < 16; slot++) {
        if (!(bitmap & (1u << slot)))
            continue;
        tc_term child = kids[k++];
        slots[depth] = slot;
        if (tc_is_list(child)) {
            if ((uintptr_t)tc_list_val(child) % TC_WORD_BYTES != 0)
                return "HAMT leaf cell not word-aligned";
            uint32_t hh = 0;
            for (unsigned d = 0; d <= depth; d++) {
                if (d % 8 == 0 && tc_map_hash(tc_car(child), d / 8, &hh) != TC_OK)
                    return "HAMT key the map hash cannot read";
                if (((hh >> (4 * (d % 8))) & 0xFu) != slots[d])
                    return "HAMT bitmap disagrees with the hashes of the keys beneath it";
            }
            ++*leaves;
            continue;
        }
        if (!tc_is_boxed(child) || (uintptr_t)tc_boxed_val(child) % TC_WORD_BYTES != 0 || !tc_is_map(child))
            return "HAMT child is neither a leaf cons nor a node";
        const tc_term *q = tc_boxed_val(child);
        if (q[0] != TC_MAP_HEADER_HAMT_NODE_BITMAP(tc_map_header_bitmap(q[0])))
            return "HAMT inner node header is not a node bitmap of map arity 0";
        if (depth + 1 >= TC_HAMT_MAX_DEPTH)
            return "HAMT deeper than the VM's 32 levels";
        const char *why = check_node(q, depth + 1, slots, leaves);
        if (why)
            return why;
    }
    if (depth > 0 && *leaves - before < 2)
        return "HAMT inner node over a single key (the VM puts the leaf in the parent)";
    return NULL;
}

const char *tc_hashmap_check(tc_term head)
{
    const tc_term *p = tc_boxed_val(head);
    tc_term h = p[0];
    if (h != TC_MAP_HEADER_HAMT_HEAD_ARRAY && h != TC_MAP_HEADER_HAMT_HEAD_BITMAP(tc_map_header_bitmap(h)))
        return "hashmap head header is neither a head array nor a head bitmap of map arity 1";
    if (h != TC_MAP_HEADER_HAMT_HEAD_ARRAY && tc_map_header_bitmap(h) == 0xFFFFu)
        return "hashmap head with all 16 slots is not a head array";
    unsigned slots[TC_HAMT_MAX_DEPTH];
    uint64_t leaves = 0;
    const char *why = check_node(p, 0, slots, &leaves);
    if (why)
        return why;
    if (leaves != p[1])
        return "hashmap size word disagrees with its leaves";
    if (leaves <= TC_MAP_SMALL_MAP_LIMIT)
        return "hashmap of at most 32 keys (the VM builds a flatmap)";
    return NULL;
}
