#include "pdict.h"

#include "../terms/atom.h"
#include "../terms/hash.h"

#define INITIAL_SIZE 8u /* erts_pd_initial_size's default [I] */
#define MAX_HASH UINT64_C(1342177280)

struct tc_pdict {
    tc_term undefined;
    size_t array_size, used_slots, size_mask, split_position, num_elements;
    tc_term *data; /* NULL until the first put, as the VM creates it then */
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

/* MAKE_HASH of erl_process_dict.c, 32 bits. */
static tc_result make_hash(tc_term key, uint32_t *hx)
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
    *hx = (uint32_t)h;
    return TC_OK;
}

static size_t slot_of(const tc_pdict *pd, uint32_t hx)
{
    size_t high = hx & pd->size_mask;
    return high >= pd->used_slots ? hx & (pd->size_mask >> 1) : high;
}

static tc_result slot_of_key(const tc_pdict *pd, tc_term key, size_t *ix)
{
    uint32_t hx;
    tc_result r = make_hash(key, &hx);
    if (r == TC_OK)
        *ix = slot_of(pd, hx);
    return r;
}

/* The array holds at least `need` slots: 10, 20, 40, ... (next_array_size). */
static bool ensure_array(tc_pdict *pd, size_t need)
{
    if (need <= pd->array_size)
        return true;
    size_t size = 10;
    while (size < need)
        size *= 2;
    tc_term *d = tc_mem_realloc(pd->data, size * sizeof *d);
    if (!d)
        return false;
    for (size_t i = pd->array_size; i < size; i++)
        d[i] = TC_NIL;
    pd->data = d;
    pd->array_size = size;
    return true;
}

tc_result tc_pdict_new(tc_pdict **out)
{
    tc_term undefined;
    tc_result r = tc_atom_intern("undefined", 9, &undefined);
    if (r != TC_OK)
        return r;
    tc_pdict *pd = tc_mem_calloc(1, sizeof *pd);
    if (!pd)
        return TC_ENOMEM;
    pd->undefined = undefined;
    *out = pd;
    return TC_OK;
}

void tc_pdict_free(tc_pdict *pd)
{
    if (!pd)
        return;
    tc_mem_free(pd->data);
    tc_mem_free(pd);
}

size_t tc_pdict_size(const tc_pdict *pd) { return pd->num_elements; }

tc_term *tc_pdict_roots(tc_pdict *pd, size_t *n)
{
    *n = pd->data ? pd->used_slots : 0;
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

/* Splits buckets (erl_process_dict.c grow). The keys of the buckets to split are hashed
 * first, and the list cells they are rebuilt with allocated in one call, so that running
 * out of memory leaves the dictionary unsplit rather than half split. */
static void grow(tc_pdict *pd, tc_alloc *heap)
{
    size_t steps = (pd->used_slots / 4) & 0xf;
    if (steps == 0)
        steps = 1;
    if (MAX_HASH - steps <= pd->used_slots || !ensure_array(pd, pd->used_slots + steps))
        return;
    size_t needed = 0, entries = 0, pos = pd->split_position, home = pd->used_slots - pd->split_position;
    for (size_t i = 0; i < steps; i++, pos++) {
        if (pos == home) {
            home *= 2;
            pos = 0;
        }
        tc_term l = pd->data[pos];
        entries += tc_is_tuple(l);
        for (; tc_is_list(l); l = tc_cdr(l), entries++)
            needed += TC_CONS_SIZE;
    }
    uint32_t *hx = entries ? tc_mem_alloc(entries * sizeof *hx) : NULL;
    if (entries && !hx)
        return;
    size_t e = 0;
    pos = pd->split_position;
    home = pd->used_slots - pd->split_position;
    for (size_t i = 0; i < steps; i++, pos++) {
        if (pos == home) {
            home *= 2;
            pos = 0;
        }
        tc_term l = pd->data[pos];
        /* The same buckets as the walk that counted `entries`, unchanged since. */
        if (tc_is_tuple(l)) {
            TC_ASSERT(e < entries);
            if (make_hash(tkey(l), &hx[e++]) != TC_OK)
                goto out;
        }
        for (; tc_is_list(l); l = tc_cdr(l)) {
            TC_ASSERT(e < entries);
            if (make_hash(tkey(tc_car(l)), &hx[e++]) != TC_OK)
                goto out;
        }
    }
    tc_term *hp = NULL;
    if (needed && !(hp = tc_alloc_words(heap, needed)))
        goto out;
    e = 0;
    home = pd->used_slots - pd->split_position;
    for (size_t i = 0; i < steps; i++) {
        if (pd->split_position == home) {
            home *= 2;
            pd->size_mask = home * 2 - 1;
            pd->split_position = 0;
        }
        pos = pd->split_position++;
        pd->used_slots++;
        tc_term l = pd->data[pos];
        if (tc_is_tuple(l)) {
            TC_ASSERT(e < entries);
            if (slot_of(pd, hx[e++]) != pos) {
                pd->data[pos + home] = l;
                pd->data[pos] = TC_NIL;
            }
            continue;
        }
        tc_term stay = TC_NIL, move = TC_NIL;
        for (; l != TC_NIL; l = tc_cdr(l), hp += TC_CONS_SIZE) {
            TC_ASSERT(e < entries && hp); /* hashed and allocated for by the walks above */
            if (slot_of(pd, hx[e++]) == pos)
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
    uint32_t hx;
    tc_result r = make_hash(key, &hx);
    if (r != TC_OK)
        return r;
    if (!pd->data) {
        TC_ASSERT(pd->array_size == 0);
        if (!ensure_array(pd, INITIAL_SIZE))
            return TC_ENOMEM;
        pd->used_slots = INITIAL_SIZE;
        pd->size_mask = INITIAL_SIZE * 2 - 1;
    }
    size_t ix = slot_of(pd, hx);
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
    if (prev == pd->undefined && pd->used_slots <= pd->num_elements)
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
    tc_term slot = pd->data[ix];
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
    if (pd->used_slots > pd->array_size || pd->used_slots < pd->split_position * 2 ||
        (pd->size_mask & (pd->size_mask + 1)) != 0) {
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
