#include "hash.h"

#include "binary.h"
#include "flatmap.h"
#include "fun.h"
#include "ident.h"
#include "layout.h"
#include "wstack.h"

static inline uint64_t fmix(uint64_t h)
{
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    return h ^ (h >> 33);
}

static inline uint64_t mix(uint64_t h, uint64_t x) { return fmix(h ^ (x + UINT64_C(0x9e3779b97f4a7c15))); }

/* Byte i of a bitstring's whole bytes, wherever its bits start. */
static inline unsigned byte_at(const tc_bits *b, size_t i)
{
    if (b->bitoffs == 0)
        return b->data[i];
    return (unsigned)((b->data[i] << b->bitoffs) | (b->data[i + 1] >> (8 - b->bitoffs))) & 0xFFu;
}

/* Mixes a bitstring's sizes and whole bytes, the same for every layout of the same bits
 * (heap, refc or sub binary, aligned or not). The trailing bits are left out. */
static uint64_t mix_bits(uint64_t h, tc_term t)
{
    tc_bits b = tc_bitstring_get(t);
    h = mix(h, ((uint64_t)b.bytes << 3) | b.extra_bits);
    for (size_t i = 0; i < b.bytes; i += 8) {
        uint64_t w = 0;
        for (size_t j = i; j < b.bytes && j < i + 8; j++)
            w = (w << 8) | byte_at(&b, j);
        h = mix(h, w);
    }
    return h;
}

tc_result tc_term_hash(tc_term t, uint64_t *hval)
{
    if (tc_is_immed(t)) {
        *hval = fmix(t) % TC_TERM_HASH_MAX;
        return TC_OK;
    }
    tc_wstack s;
    tc_wstack_init(&s);
    uint64_t h = 0;
    tc_result r = TC_OK;
    if (!tc_wstack_push(&s, t))
        r = TC_ENOMEM;
    while (r == TC_OK && !tc_wstack_empty(&s)) {
        tc_term x = tc_wstack_pop(&s);
        if (tc_is_immed(x)) {
            h = mix(h, x);
        } else if (tc_is_list(x)) {
            h = mix(h, 'L');
            if (!tc_wstack_reserve(&s, 2)) {
                r = TC_ENOMEM;
                break;
            }
            s.base[s.n++] = tc_cdr(x);
            s.base[s.n++] = tc_car(x);
        } else {
            tc_term *p = tc_boxed_val(x);
            uint64_t n = tc_header_arity(p[0]);
            switch (tc_header_subtag(p[0])) {
            case TC_SUBTAG_ARITYVAL:
                h = mix(h, p[0]);
                if (!tc_wstack_reserve(&s, n)) {
                    r = TC_ENOMEM;
                    break;
                }
                for (uint64_t i = n; i >= 1; i--)
                    s.base[s.n++] = p[i];
                break;
            case TC_SUBTAG_FLOAT: /* -0.0 =:= 0.0 on OTP 25: hash both as 0 */
                h = mix(h, tc_float_val(x) == 0.0 ? 0 : p[1]);
                break;
            case TC_SUBTAG_POS_BIG:
            case TC_SUBTAG_NEG_BIG:
                for (uint64_t i = 0; i <= n; i++)
                    h = mix(h, p[i]);
                break;
            case TC_SUBTAG_REFC_BINARY:
            case TC_SUBTAG_HEAP_BINARY:
            case TC_SUBTAG_SUB_BINARY:
                h = mix_bits(h, x);
                break;
            case TC_SUBTAG_MAP: {
                if (tc_map_header_type(p[0]) != TC_MAP_HEADER_TAG_FLATMAP_HEAD) {
                    /* =:= hashmaps have one shape (hashmap.h), so their nodes hash alike. */
                    size_t k;
                    const tc_term *kids = tc_layout_map_terms(p[0], p, &k);
                    h = mix(h, p[0]);
                    if (!tc_wstack_reserve(&s, k)) {
                        r = TC_ENOMEM;
                        break;
                    }
                    for (size_t i = 0; i < k; i++)
                        s.base[s.n++] = kids[i];
                    break;
                }
                uint64_t size = tc_flatmap_size(x);
                h = mix(h, 'M' ^ (size << 8));
                if (!tc_wstack_reserve(&s, size + 1)) {
                    r = TC_ENOMEM;
                    break;
                }
                s.base[s.n++] = tc_flatmap_keys(x);
                for (uint64_t i = 0; i < size; i++)
                    s.base[s.n++] = tc_flatmap_values(x)[i];
                break;
            }
            case TC_SUBTAG_REF:
            case TC_SUBTAG_EXTERNAL_REF: {
                /* The numbers with zero top ones dropped, as =:= ignores them, and the node. */
                uint32_t num[TC_REF_MAX_NUMBERS];
                size_t k = tc_ref_numbers(x, num);
                while (k > 1 && num[k - 1] == 0)
                    k--;
                h = mix(h, 'R' ^ (k << 8));
                for (size_t i = 0; i < k; i++)
                    h = mix(h, num[i]);
                if (tc_header_subtag(p[0]) == TC_SUBTAG_EXTERNAL_REF)
                    h = mix(mix(h, tc_external_node(x)->sysname), tc_external_node(x)->creation);
                break;
            }
            case TC_SUBTAG_EXTERNAL_PID:
            case TC_SUBTAG_EXTERNAL_PORT:
                h = mix(mix(h, p[0]), p[TC_EXT_DATA]);
                h = mix(mix(h, tc_external_node(x)->sysname), tc_external_node(x)->creation);
                break;
            case TC_SUBTAG_FUN:
                /* What =:= compares: module, index and old_uniq of a local fun (or the one
                 * export entry of M:F/A), then the environment. */
                if (tc_fun_is_local(p)) {
                    const tc_fun_entry *fe = tc_fun_entry_of(p);
                    h = mix(mix(mix(h, fe->module), fe->index), (uint32_t)fe->old_uniq);
                } else {
                    h = mix(mix(h, 'F'), p[TC_FUN_ENTRY]);
                }
                if (!tc_wstack_reserve(&s, tc_fun_num_free(p))) {
                    r = TC_ENOMEM;
                    break;
                }
                for (size_t i = 0; i < tc_fun_num_free(p); i++)
                    s.base[s.n++] = p[TC_FUN_ENV + i];
                break;
            default: /* kinds the model does not build: the kind alone */
                h = mix(h, tc_header_subtag(p[0]));
                break;
            }
        }
    }
    tc_wstack_destroy(&s);
    *hval = h % TC_TERM_HASH_MAX;
    return r;
}
