#include "pdict.h"

#include "../terms/atom.h"
#include "../terms/hash.h"

#define MASK_INITIAL 8u /* OTP 25: erts_pd_initial_size's default [I] */
#define MOD_INITIAL 10u /* R10B-2, R13B01: INITIAL_SIZE */
#define MAX_HASH UINT64_C(1342177280)
/* next_array_size's table is 10 * 2^i, i = 0..28; the entries its search reaches. */
#define MASK_LAST_ENTRY 28u
#define MOD_LAST_ENTRY 13u /* 29 unsigned ints / sizeof(Uint) - 1, on 64-bit */
/* PD_SZ2BYTES: the ProcDict header (four unsigned ints and numElements) before data[0]. */
#define HEAD_BYTES (sizeof(tc_term) * 3u)

struct tc_pdict {
    tc_term undefined;
    tc_pdict_grow grow;
    /* used_slots is HASH_RANGE: the VM's usedSlots (mask) or homeSize + splitPosition (mod) */
    size_t array_size, used_slots, size_mask, split_position, num_elements;
    uint64_t reallocs;
    tc_mseg *mem;  /* std_alloc: where the array's block comes from */
    void *block;   /* the header and the slots; NULL until the first put, as in the VM */
    tc_term *data; /* the block's slots */
};

static tc_term tuple2(tc_term *hp, tc_term a, tc_term b)
{
    hp[0] = TC_MAKE_HEADER(2, TC_SUBTAG_ARITYVAL);
    hp[1] = a;
    hp[2] = b;
    return tc_make_boxed(hp);
}

static tc_term cons(tc_term *hp, tc_term car, tc_term cdr)
{
    hp[0] = car;
    hp[1] = cdr;
    return tc_make_list(hp);
}

static tc_term tkey(tc_term tpl) { return tc_tuple_element(tpl, 1); }

/* MAKE_HASH of erl_process_dict.c: a Uint in the mod design, cut to the Uint32 that
 * pd_hash_value_to_ix takes in the mask design. */
static tc_result make_hash(const tc_pdict *pd, tc_term key, uint64_t *hx)
{
    uint64_t h;
    if (tc_is_small(key))
        h = (uint64_t)key >> TC_TAG_IMMED1_SIZE;
    else if (tc_is_atom(key))
        h = tc_atom_index(key);
    else {
        tc_result r = tc_term_hash(key, &h);
        if (r != TC_OK)
            return r;
    }
    *hx = pd->grow == TC_PDICT_GROW_MASK ? (uint32_t)h : h;
    return TC_OK;
}

/* The slots before the current round of splits (the VM's homeSize). */
static size_t home_of(const tc_pdict *pd) { return pd->used_slots - pd->split_position; }

/* The slot hx selects among `used` slots, `home` of them before the round of splits (mod),
 * with `mask` (mask). */
static size_t slot_in(const tc_pdict *pd, uint64_t hx, size_t used, size_t home, size_t mask)
{
    if (pd->grow == TC_PDICT_GROW_MOD) {
        size_t high = hx % (2 * home);
        return high >= used ? hx % home : high;
    }
    size_t high = hx & mask;
    return high >= used ? hx & (mask >> 1) : high;
}

static size_t slot_of(const tc_pdict *pd, uint64_t hx)
{
    return slot_in(pd, hx, pd->used_slots, home_of(pd), pd->size_mask);
}

static tc_result slot_of_key(const tc_pdict *pd, tc_term key, size_t *ix)
{
    uint64_t hx;
    tc_result r = make_hash(pd, key, &hx);
    if (r == TC_OK)
        *ix = slot_of(pd, hx);
    return r;
}

/* Slot i; in the mod design a slot past the array's end is [] (ARRAY_GET). */
static tc_term slot_get(const tc_pdict *pd, size_t i) { return i < pd->array_size ? pd->data[i] : TC_NIL; }

/* next_array_size: the least entry of 10, 20, 40, ... that holds `need`, among those its search
 * reaches (entries 1 to last), else `need` itself. */
static size_t next_array_size(const tc_pdict *pd, size_t need)
{
    size_t last = (size_t)10 << (pd->grow == TC_PDICT_GROW_MOD ? MOD_LAST_ENTRY : MASK_LAST_ENTRY);
    if (need <= 10 || need > last)
        return need;
    size_t size = 20;
    while (size < need)
        size *= 2;
    return size;
}

/* The array holds at least `need` slots, resized as next_array_size says when it does not
 * (ensure_array_size; array_put for the slot need - 1). */
static bool ensure_array(tc_pdict *pd, size_t need)
{
    if (need <= pd->array_size)
        return true;
    size_t size = next_array_size(pd, need);
    if (size > (SIZE_MAX - HEAD_BYTES) / sizeof(tc_term))
        return false;
    void *b = tc_mseg_realloc_block(pd->mem, pd->block, HEAD_BYTES + size * sizeof(tc_term));
    if (!b)
        return false;
    tc_term *d = (tc_term *)((char *)b + HEAD_BYTES);
    for (size_t i = pd->array_size; i < size; i++)
        d[i] = TC_NIL;
    pd->block = b;
    pd->data = d;
    pd->array_size = size;
    pd->reallocs++;
    return true;
}

tc_result tc_pdict_new(tc_pdict_grow grow, tc_mseg *mem, tc_pdict **out)
{
    if ((grow != TC_PDICT_GROW_MASK && grow != TC_PDICT_GROW_MOD) || !mem)
        return TC_EBADARG;
    tc_term undefined;
    tc_result r = tc_atom_intern("undefined", 9, &undefined);
    if (r != TC_OK)
        return r;
    tc_pdict *pd = tc_mem_calloc(1, sizeof *pd);
    if (!pd)
        return TC_ENOMEM;
    pd->undefined = undefined;
    pd->grow = grow;
    pd->mem = mem;
    *out = pd;
    return TC_OK;
}

void tc_pdict_free(tc_pdict *pd)
{
    if (!pd)
        return;
    if (pd->block)
        tc_mseg_free_block(pd->mem, pd->block);
    tc_mem_free(pd);
}

size_t tc_pdict_size(const tc_pdict *pd) { return pd->num_elements; }
size_t tc_pdict_array_slots(const tc_pdict *pd) { return pd->array_size; }
uint64_t tc_pdict_array_reallocs(const tc_pdict *pd) { return pd->reallocs; }

tc_term *tc_pdict_roots(tc_pdict *pd, size_t *n)
{
    *n = pd->data ? (pd->used_slots < pd->array_size ? pd->used_slots : pd->array_size) : 0;
    return pd->data;
}

/* Position of `key` in a collision list: *at = -1 when absent. */
static tc_result list_find(tc_term list, tc_term key, long *at)
{
    long i = 0;
    for (; list != TC_NIL; list = tc_cdr(list), i++) {
        bool eq;
        tc_result r = tc_term_key_equal(key, tkey(tc_car(list)), &eq);
        if (r != TC_OK)
            return r;
        if (eq) {
            *at = i;
            return TC_OK;
        }
    }
    *at = -1;
    return TC_OK;
}

/* A key whose hash is its own word (a small integer's value, an atom's index): computing it
 * again cannot fail and allocates nothing. */
static bool hash_is_immediate(tc_term key) { return tc_is_small(key) || tc_is_atom(key); }

/* The hash of a bucket's key during a split: an immediate key's computed now, any other's
 * taken in order from the n the first walk stored (*c counts them). */
static uint64_t split_hash(const tc_pdict *pd, tc_term key, const uint64_t *hx, size_t n, size_t *c)
{
    uint64_t h = 0;
    if (!hash_is_immediate(key)) {
        TC_ASSERT(hx && *c < n);
        return hx && *c < n ? hx[(*c)++] : 0;
    }
    tc_result r = make_hash(pd, key, &h);
    TC_ASSERT(r == TC_OK);
    (void)r;
    return h;
}

/* Splits buckets (erl_process_dict.c grow). The keys of the buckets to split are hashed
 * first, the array sized for every slot the splits write and the list cells they are rebuilt
 * with allocated in one call, so that running out of memory leaves the dictionary unsplit
 * rather than half split. Only the hashes of compound keys (which can fail: tc_term_hash's
 * stack) are kept between the walks, in a buffer of their own: the VM has none, and a
 * million-key dictionary of small integers would map and fault one on every grow (a fifth of
 * its slots each: about 1,650 pages over a million puts). */
static void grow(tc_pdict *pd, tc_alloc *heap)
{
    bool mod = pd->grow == TC_PDICT_GROW_MOD;
    size_t steps = mod ? home_of(pd) / 5 : (pd->used_slots / 4) & 0xf;
    if (steps == 0)
        steps = 1;
    if (MAX_HASH - steps <= pd->used_slots || (!mod && !ensure_array(pd, pd->used_slots + steps)))
        return;
    size_t needed = 0, compound = 0, pos = pd->split_position, home = home_of(pd);
    for (size_t i = 0; i < steps; i++, pos++) {
        if (pos == home) {
            home *= 2;
            pos = 0;
        }
        tc_term l = slot_get(pd, pos);
        compound += tc_is_tuple(l) && !hash_is_immediate(tkey(l));
        for (; tc_is_list(l); l = tc_cdr(l)) {
            needed += TC_CONS_SIZE;
            compound += !hash_is_immediate(tkey(tc_car(l)));
        }
    }
    uint64_t *hx = compound ? tc_mem_alloc(compound * sizeof *hx) : NULL;
    if (compound && !hx)
        return;
    /* Hash the same buckets as the walk that counted `compound`, unchanged since; in the mod
     * design grow the array as array_put does when each split is made: the home slot, then the
     * one past home (a tuple that stays home writes nothing). */
    size_t c = 0;
    pos = pd->split_position;
    home = home_of(pd);
    for (size_t i = 0; i < steps; i++, pos++) {
        if (pos == home) {
            home *= 2;
            pos = 0;
        }
        tc_term l = slot_get(pd, pos);
        if (tc_is_tuple(l)) {
            uint64_t h;
            if (make_hash(pd, tkey(l), &h) != TC_OK)
                goto out;
            if (!hash_is_immediate(tkey(l))) {
                if (!hx || c == compound)
                    goto out;
                hx[c++] = h;
            }
            if (mod && slot_in(pd, h, pd->used_slots + i + 1, home, 0) != pos && !ensure_array(pd, pos + home + 1))
                goto out;
            continue;
        }
        for (; tc_is_list(l); l = tc_cdr(l)) {
            if (hash_is_immediate(tkey(tc_car(l))))
                continue;
            if (!hx || c == compound || make_hash(pd, tkey(tc_car(l)), &hx[c++]) != TC_OK)
                goto out;
        }
        if (mod && (!ensure_array(pd, pos + 1) || !ensure_array(pd, pos + home + 1)))
            goto out;
    }
    TC_ASSERT(c == compound);
    tc_term *hp = NULL;
    if (needed && !(hp = tc_alloc_words(heap, needed)))
        goto out;
    c = 0;
    home = home_of(pd);
    for (size_t i = 0; i < steps; i++) {
        if (pd->split_position == home) {
            home *= 2;
            pd->size_mask = home * 2 - 1;
            pd->split_position = 0;
        }
        pos = pd->split_position++;
        pd->used_slots++;
        tc_term l = slot_get(pd, pos);
        if (tc_is_tuple(l)) {
            if (slot_of(pd, split_hash(pd, tkey(l), hx, compound, &c)) != pos) {
                pd->data[pos + home] = l;
                pd->data[pos] = TC_NIL;
            }
            continue;
        }
        tc_term stay = TC_NIL, move = TC_NIL;
        for (; l != TC_NIL; l = tc_cdr(l), hp += TC_CONS_SIZE) {
            TC_ASSERT(hp); /* allocated for by the walk above */
            if (slot_of(pd, split_hash(pd, tkey(tc_car(l)), hx, compound, &c)) == pos)
                stay = cons(hp, tc_car(l), stay);
            else
                move = cons(hp, tc_car(l), move);
        }
        /* A one-element list becomes its tuple again. */
        pd->data[pos] = tc_is_list(stay) && tc_cdr(stay) == TC_NIL ? tc_car(stay) : stay;
        pd->data[pos + home] = tc_is_list(move) && tc_cdr(move) == TC_NIL ? tc_car(move) : move;
    }
out:
    tc_mem_free(hx);
}

tc_result tc_pdict_put(tc_pdict *pd, tc_alloc *heap, tc_term key, tc_term value, tc_term *old)
{
    uint64_t hx;
    tc_result r = make_hash(pd, key, &hx);
    if (r != TC_OK)
        return r;
    if (!pd->data) {
        TC_ASSERT(pd->array_size == 0);
        size_t initial = pd->grow == TC_PDICT_GROW_MOD ? MOD_INITIAL : MASK_INITIAL;
        if (!ensure_array(pd, initial))
            return TC_ENOMEM;
        pd->used_slots = initial;
        pd->size_mask = initial * 2 - 1;
    }
    size_t ix = slot_of(pd, hx);
    /* mod: a slot past the array's end makes array_put grow it */
    if (!ensure_array(pd, ix + 1))
        return TC_ENOMEM;
    tc_term slot = pd->data[ix];
    bool eq = false;
    long at = -1;
    size_t words = 3; /* the {Key, Value} tuple */
    if (tc_is_boxed(slot)) {
        if ((r = tc_term_key_equal(key, tkey(slot), &eq)) != TC_OK)
            return r;
        words += eq ? 0 : 2 * TC_CONS_SIZE;
    } else if (tc_is_list(slot)) {
        if ((r = list_find(slot, key, &at)) != TC_OK)
            return r;
        /* A replaced element's list is rebuilt up to it, so that no older cell points at
         * the newer tuple (the VM's reason: no old-generation to young pointers). */
        words += at < 0 ? TC_CONS_SIZE : TC_CONS_SIZE * (size_t)(at + 1);
    }
    tc_term *hp = tc_alloc_words(heap, words);
    if (!hp)
        return TC_ENOMEM;
    tc_term tpl = tuple2(hp, key, value), prev = pd->undefined;
    hp += 3;
    if (slot == TC_NIL) {
        pd->data[ix] = tpl;
        pd->num_elements++;
    } else if (tc_is_boxed(slot) && eq) {
        prev = tc_tuple_element(slot, 2);
        pd->data[ix] = tpl;
    } else if (tc_is_boxed(slot)) {
        pd->data[ix] = cons(hp, tpl, cons(hp + 2, slot, TC_NIL));
        pd->num_elements++;
    } else if (at < 0) {
        pd->data[ix] = cons(hp, tpl, slot);
        pd->num_elements++;
    } else {
        tc_term rest = slot, l = TC_NIL;
        for (long j = 0; j < at; j++)
            rest = tc_cdr(rest);
        prev = tc_tuple_element(tc_car(rest), 2);
        l = tc_cdr(rest);
        for (tc_term s = slot; s != rest; s = tc_cdr(s), hp += TC_CONS_SIZE)
            l = cons(hp, tc_car(s), l);
        pd->data[ix] = cons(hp, tpl, l);
    }
    if (old)
        *old = prev;
    /* only a put that added a key grows, whatever value a replaced one had */
    bool added = slot == TC_NIL || (tc_is_boxed(slot) && !eq) || (tc_is_list(slot) && at < 0);
    if (added && pd->used_slots <= pd->num_elements)
        grow(pd, heap);
    return TC_OK;
}

tc_result tc_pdict_get(const tc_pdict *pd, tc_term key, tc_term *value)
{
    *value = pd->undefined;
    if (!pd->data)
        return TC_OK;
    size_t ix;
    tc_result r = slot_of_key(pd, key, &ix);
    if (r != TC_OK)
        return r;
    tc_term slot = slot_get(pd, ix);
    bool eq;
    if (tc_is_boxed(slot)) {
        if ((r = tc_term_key_equal(key, tkey(slot), &eq)) == TC_OK && eq)
            *value = tc_tuple_element(slot, 2);
        return r;
    }
    for (; tc_is_list(slot); slot = tc_cdr(slot)) {
        if ((r = tc_term_key_equal(key, tkey(tc_car(slot)), &eq)) != TC_OK)
            return r;
        if (eq) {
            *value = tc_tuple_element(tc_car(slot), 2);
            break;
        }
    }
    return TC_OK;
}

static bool is_entry(tc_term t) { return tc_is_tuple(t) && tc_tuple_arity(t) == 2; }

/* A {Key, Value} tuple whose key selects slot i. */
static bool entry_in_slot(const tc_pdict *pd, tc_term e, size_t i)
{
    size_t ix;
    return is_entry(e) && slot_of_key(pd, tkey(e), &ix) == TC_OK && ix == i;
}

bool tc_pdict_verify(const tc_pdict *pd, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    *why = "element count is wrong";
    if (!pd->data)
        return pd->num_elements == 0;
    /* mod: slots past the array's end are [] and may be in use */
    if ((pd->grow == TC_PDICT_GROW_MASK && (pd->used_slots > pd->array_size || (pd->size_mask & (pd->size_mask + 1)) != 0)) ||
        pd->used_slots < pd->split_position * 2) {
        *why = "slot counts disagree";
        return false;
    }
    size_t num = 0;
    for (size_t i = 0; i < pd->array_size; i++) {
        tc_term s = pd->data[i];
        if (s == TC_NIL)
            continue;
        if (i >= pd->used_slots) {
            *why = "an unused slot is not []";
            return false;
        }
        if (tc_is_boxed(s)) {
            if (!entry_in_slot(pd, s, i)) {
                *why = "an entry is not a 2-tuple in its key's slot";
                return false;
            }
            num++;
            continue;
        }
        tc_term l = s;
        for (; tc_is_list(l); l = tc_cdr(l), num++) {
            long at;
            if (!entry_in_slot(pd, tc_car(l), i)) {
                *why = "an entry is not a 2-tuple in its key's slot";
                return false;
            }
            if (list_find(tc_cdr(l), tkey(tc_car(l)), &at) != TC_OK || at >= 0) {
                *why = "a key is in a slot twice";
                return false;
            }
        }
        if (l != TC_NIL) {
            *why = "a slot is neither [], a 2-tuple nor a proper list";
            return false;
        }
    }
    return num == pd->num_elements;
}
