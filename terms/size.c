#include "size.h"

#include "binary.h"
#include "layout.h"
#include "ptrset.h"
#include "wstack.h"

uint64_t tc_sub_binary_copy_size(const tc_term *sb)
{
    /* A byte-aligned slice copies as a plain binary; a bitstring keeps a sub binary over a
     * new binary one or two bytes longer to hold the trailing bits. */
    unsigned bits = (unsigned)(sb[TC_SB_BITS] & 0xFF) + (unsigned)((sb[TC_SB_BITS] >> 8) & 0xFF);
    uint64_t sum = 0, extra = 0;
    if (bits > 8) {
        sum += TC_SUB_BIN_SIZE;
        extra = 2;
    } else if (bits > 0) {
        sum += TC_SUB_BIN_SIZE;
        extra = 1;
    }
    const tc_term *real = tc_boxed_val(sb[TC_SB_ORIG]);
    if (tc_header_subtag(real[0]) == TC_SUBTAG_REFC_BINARY)
        return sum + TC_PROC_BIN_SIZE;
    return sum + TC_HEAP_BIN_SIZE(sb[TC_SB_SIZE] + extra);
}

/* One walk for all sizes: `seen` NULL counts every reach, else each object once; objects
 * in [lit_lo, lit_hi) are literals and count 0; `creators`: a local fun's creator counts.
 * `peak` (may be NULL): the most entries size_object_x's ESTACK holds on the way, as it
 * pushes (see tc_term_flat_size_peak). */
static tc_result walk_size(tc_term t, tc_ptrset *seen, const tc_term *lit_lo, const tc_term *lit_hi, bool creators,
                           uint64_t *words, uint64_t *peak)
{
    size_t top = 0;
    tc_wstack s;
    tc_wstack_init(&s);
    uint64_t sum = 0;
    tc_result r = TC_OK;
    for (;;) {
        if (tc_is_list(t)) {
            const tc_term *cell = tc_list_val(t);
            int fresh = cell >= lit_lo && cell < lit_hi ? 0 : seen ? tc_ptrset_add(seen, cell) : 1;
            if (fresh < 0) {
                r = TC_ENOMEM;
                break;
            }
            if (fresh) {
                sum += TC_CONS_SIZE;
                if (!tc_is_immed(cell[0]) && !tc_wstack_push(&s, cell[0])) {
                    r = TC_ENOMEM;
                    break;
                }
                top = s.n > top ? s.n : top;
                t = cell[1];
                continue;
            }
        } else if (tc_is_boxed(t)) {
            const tc_term *p = tc_boxed_val(t);
            int fresh = p >= lit_lo && p < lit_hi ? 0 : seen ? tc_ptrset_add(seen, p) : 1;
            if (fresh < 0) {
                r = TC_ENOMEM;
                break;
            }
            if (fresh && !tc_is_empty_tuple_object(p)) {
                uint64_t arity = tc_header_arity(p[0]);
                switch (tc_header_subtag(p[0])) {
                case TC_SUBTAG_ARITYVAL:
                    sum += 1 + arity;
                    /* Only non-immediate elements are pushed: a wide tuple of smalls costs no
                     * stack, and an immediate is the fall-through (one taken branch a word). */
                    for (uint64_t i = 1; i < arity; i++)
                        if (!TC_LIKELY(tc_is_immed(p[i])) && !tc_wstack_push(&s, p[i])) {
                            r = TC_ENOMEM;
                            goto done;
                        }
                    top = s.n > top ? s.n : top;
                    t = p[arity];
                    continue;
                case TC_SUBTAG_MAP: {
                    /* A flatmap: its keys tuple and values; a HAMT node: its children. */
                    size_t n;
                    const tc_term *kids = tc_layout_map_terms(p[0], p, &n);
                    sum += tc_layout_map_words(p[0], p);
                    if (n == 0)
                        break;
                    /* Pushed last first, so kids[1], kids[2], ... pop in slot order after
                     * kids[0], as size_object_x visits them (erts copy.c): the builders lay
                     * the subtrees out in slot order, and popping them backwards cost 2x
                     * per word at 1 Mi words of hashmap (--profile size_object). */
                    for (size_t i = n - 1; i >= 1; i--)
                        if (!TC_LIKELY(tc_is_immed(kids[i])) && !tc_wstack_push(&s, kids[i])) {
                            r = TC_ENOMEM;
                            goto done;
                        }
                    /* size_object_x pushes a flatmap's keys tuple too, and pops it next */
                    size_t held = s.n + (tc_map_header_type(p[0]) == TC_MAP_HEADER_TAG_FLATMAP_HEAD && !tc_is_immed(kids[0]));
                    top = held > top ? held : top;
                    t = kids[0];
                    continue;
                }
                case TC_SUBTAG_SUB_BINARY:
                    sum += tc_sub_binary_copy_size(p);
                    break;
                case TC_SUBTAG_FUN: {
                    /* ErlFunThing: its words, then the environment and (flat only, see
                     * size.h) the creator as terms. */
                    size_t nf = tc_fun_num_free(p);
                    sum += TC_FUN_SIZE + nf;
                    for (size_t i = 0; i < nf; i++)
                        if (!tc_is_immed(p[TC_FUN_ENV + i]) && !tc_wstack_push(&s, p[TC_FUN_ENV + i])) {
                            r = TC_ENOMEM;
                            goto done;
                        }
                    /* size_object_x pushes the creator and all but the last of the
                     * environment, and follows the last */
                    size_t held = s.n + (nf && !tc_is_immed(p[TC_FUN_CREATOR])) - (nf && !tc_is_immed(p[TC_FUN_ENV + nf - 1]));
                    top = held > top ? held : top;
                    if (!creators)
                        break;
                    t = p[TC_FUN_CREATOR];
                    continue;
                }
                default:
                    sum += 1 + arity;
                    break;
                }
            }
        }
        if (tc_wstack_empty(&s))
            break;
        t = tc_wstack_pop(&s);
    }
done:
    tc_wstack_destroy(&s);
    if (r == TC_OK)
        *words = sum;
    if (r == TC_OK && peak)
        *peak = top;
    return r;
}

tc_result tc_term_flat_size(tc_term t, uint64_t *words) { return walk_size(t, NULL, NULL, NULL, true, words, NULL); }

tc_result tc_term_flat_size_litopt(tc_term t, const tc_term *lit_start, const tc_term *lit_end, uint64_t *words)
{
    return walk_size(t, NULL, lit_start, lit_end, true, words, NULL);
}

tc_result tc_term_flat_size_peak(tc_term t, const tc_term *lit_start, const tc_term *lit_end, uint64_t *words,
                                 uint64_t *peak)
{
    return walk_size(t, NULL, lit_start, lit_end, true, words, peak);
}

static tc_result shared_walk(tc_term t, bool creators, uint64_t *words)
{
    tc_ptrset seen;
    tc_ptrset_init(&seen);
    tc_result r = walk_size(t, &seen, NULL, NULL, creators, words, NULL);
    tc_ptrset_destroy(&seen);
    return r;
}

tc_result tc_term_shared_size(tc_term t, uint64_t *words) { return shared_walk(t, false, words); }
tc_result tc_term_shared_copy_size(tc_term t, uint64_t *words) { return shared_walk(t, true, words); }
