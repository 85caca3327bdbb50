#include "copy_struct.h"

#include "copy_struct_impl.h"
#include "../terms/binary.h"
#include "../terms/layout.h"
#include "../terms/size.h"

tc_term tc__copy_flatten_sub_binary(const tc_term *sb, tc_term real_header, tc_term *dst, size_t words,
                                   tc_offheap *oh)
{
    const tc_term *real = tc_boxed_val(sb[TC_SB_ORIG]);
    uint64_t size = sb[TC_SB_SIZE], offs = sb[TC_SB_OFFS];
    unsigned bitsize = (unsigned)(sb[TC_SB_BITS] & 0xFF), bitoffs = (unsigned)((sb[TC_SB_BITS] >> 8) & 0xFF);
    /* Trailing bits, and bits before the first whole byte, need the bytes that hold them. */
    size_t extra = bitsize + bitoffs > 8 ? 2 : bitsize + bitoffs > 0 ? 1 : 0;
    size_t real_size = size + extra;
    tc_term *bin = extra ? dst + TC_SUB_BIN_SIZE : dst;
    size_t used;
    if (tc_header_subtag(real_header) == TC_SUBTAG_REFC_BINARY) {
        /* A slice of a refc binary stays off-heap: a new handle on the same block. */
        bin[TC_PB_HEADER] = TC_PROC_BIN_HEADER;
        bin[TC_PB_SIZE] = real_size;
        bin[TC_PB_VAL] = real[TC_PB_VAL];
        bin[TC_PB_BYTES] = real[TC_PB_BYTES] + offs;
        tc_offheap_adopt(oh, bin);
        used = TC_PROC_BIN_SIZE;
    } else {
        used = TC_HEAP_BIN_SIZE(real_size);
        bin[0] = TC_MAKE_HEADER(used - 1, TC_SUBTAG_HEAP_BINARY);
        bin[1] = real_size;
        bin[used - 1] = 0; /* zero padding, as the constructors leave it */
        memcpy(&bin[2], (const unsigned char *)&real[2] + offs, real_size);
    }
    tc_term res = tc_make_boxed(bin);
    if (extra) {
        dst[TC_SB_HEADER] = TC_SUB_BIN_HEADER;
        dst[TC_SB_SIZE] = size;
        dst[TC_SB_OFFS] = 0;
        dst[TC_SB_BITS] = (tc_term)bitsize | ((tc_term)bitoffs << 8);
        dst[TC_SB_ORIG] = res;
        res = tc_make_boxed(dst);
        used += TC_SUB_BIN_SIZE;
    }
    TC_CHECK(used == words);
    return res;
}

/* The state of one fill: the two ends, the block, the literal range. */
typedef struct fill {
    tc_term *htop, *hbot;
    const tc_term *lo, *hi;
    const tc_term *lit_lo, *lit_hi;
    const tc_term *const_tuple; /* last tuple copied whose elements are all immediate */
    tc_offheap *oh;
} fill;

static bool is_literal(const fill *f, const tc_term *p) { return tc_layout_in(p, f->lit_lo, f->lit_hi); }

/* A pointer that is already final: into the block, into the literals, or to the shared {}. */
static bool stays(const fill *f, const tc_term *p)
{
    return tc_layout_in(p, f->lo, f->hi) || is_literal(f, p) || tc_is_empty_tuple_object(p);
}

static void copy_boxed(fill *f, tc_term *slot, const tc_term *p)
{
    tc_term h = p[0];
    uint64_t n = tc_header_arity(h);
    tc_term *d;
    switch (tc_header_subtag(h)) {
    case TC_SUBTAG_ARITYVAL: {
        d = f->htop;
        f->htop += 1 + n;
        bool all_immed = true;
        d[0] = h;
        for (uint64_t i = 1; i <= n; i++) {
            d[i] = p[i];
            all_immed &= tc_is_immed(p[i]);
        }
        if (all_immed)
            f->const_tuple = d; /* lets the scan skip it */
        break;
    }
    case TC_SUBTAG_MAP: /* a flatmap or a HAMT node: the scan reaches its term words */
        n = tc_layout_words(h, p);
        d = f->htop;
        f->htop += n;
        memcpy(d, p, n * sizeof *d);
        break;
    case TC_SUBTAG_REFC_BINARY:
        f->hbot -= TC_PROC_BIN_SIZE;
        d = f->hbot;
        memcpy(d, p, TC_PROC_BIN_SIZE * sizeof *d);
        tc_offheap_adopt(f->oh, d);
        break;
    case TC_SUBTAG_FUN:
    case TC_SUBTAG_EXTERNAL_PID:
    case TC_SUBTAG_EXTERNAL_PORT:
    case TC_SUBTAG_EXTERNAL_REF:
        /* At htop as copy_struct_x puts them (a fun's creator and env are scanned there),
         * taking a reference and linking the copy into the destination's off-heap list. */
        n = tc_layout_words(h, p);
        d = f->htop;
        f->htop += n;
        memcpy(d, p, n * sizeof *d);
        if (tc_offheap_is_member(d))
            tc_offheap_adopt(f->oh, d);
        break;
    case TC_SUBTAG_SUB_BINARY: {
        size_t w = tc_sub_binary_copy_size(p);
        f->hbot -= w;
        TC_ASSERT(f->htop <= f->hbot);
        *slot = tc__copy_flatten_sub_binary(p, tc_boxed_val(p[TC_SB_ORIG])[0], f->hbot, w, f->oh);
        return;
    }
    default: /* bignums, floats, heap binaries: raw words */
        f->hbot -= 1 + n;
        d = f->hbot;
        tc_copy_object_words(d, p, 1 + n);
        break;
    }
    TC_ASSERT(f->htop <= f->hbot);
    *slot = tc_make_boxed(d);
}

/* Copies what *slot points at in the source, if anything, and points *slot at the copy. */
static void copy_term(fill *f, tc_term *slot)
{
    tc_term t = *slot;
    if (tc_is_boxed(t)) {
        if (!stays(f, tc_boxed_val(t)))
            copy_boxed(f, slot, tc_boxed_val(t));
        return;
    }
    if (!tc_is_list(t) || stays(f, tc_list_val(t)))
        return;
    /* Along the tail chain in one loop, so a long list needs no stack and no rescans. */
    tc_term *tail = slot;
    for (;;) {
        const tc_term *cell = tc_list_val(t);
        tc_term car = cell[0];
        tc_term *d;
        if (tc_is_immed(car)) {
            f->hbot -= TC_CONS_SIZE;
            d = f->hbot;
        } else {
            d = f->htop; /* its head is copied when the scan reaches it */
            f->htop += TC_CONS_SIZE;
        }
        TC_ASSERT(f->htop <= f->hbot);
        d[0] = car;
        *tail = tc_make_list(d);
        tail = &d[1];
        t = cell[1];
        if (!tc_is_list(t) || is_literal(f, tc_list_val(t)))
            break;
    }
    *tail = t;
    if (tc_is_boxed(t) && !stays(f, tc_boxed_val(t)))
        copy_boxed(f, tail, tc_boxed_val(t));
}

tc_term tc_copy_struct_fill(tc_term t, tc_term *hp, size_t words, tc_offheap *oh, const tc_copy_literals *lit)
{
    fill f = {0};
    f.lit_lo = lit ? lit->start : NULL;
    f.lit_hi = lit ? lit->end : NULL;
    if (words == 0) {
        TC_CHECK(tc_is_immed(t) || stays(&f, tc_layout_ptr(t)));
        return t;
    }
    f.htop = hp;
    f.hbot = hp + words;
    f.lo = hp;
    f.hi = hp + words;
    f.oh = oh;
    tc_term root = t;
    copy_term(&f, &root);
    /* Cheney scan of the bottom region: whatever still points into the source is copied. */
    for (tc_term *p = hp; p < f.htop;) {
        tc_term w = *p;
        if (tc_is_header(w)) {
            /* a tuple of immediates has nothing to copy: its elements are skipped too */
            p += p == f.const_tuple ? 1 + tc_header_arity(w) : tc_layout_header_step(p);
        } else {
            /* Inline, as erts's scan switches on the tag in place: most words here are
             * pointers into the block already (the tails of copied cells) or to boxed things. */
            if (tc_is_boxed(w)) {
                const tc_term *q = tc_boxed_val(w);
                if (!stays(&f, q))
                    copy_boxed(&f, p, q);
            } else if (tc_is_list(w) && !stays(&f, tc_list_val(w))) {
                copy_term(&f, p);
            }
            p++;
        }
    }
    TC_CHECK(f.htop == f.hbot);
    return root;
}

tc_result tc_copy_struct(tc_alloc *a, tc_term t, const tc_copy_literals *lit, tc_term *out, tc_copy_stats *stats)
{
    uint64_t words;
    tc_result r = lit ? tc_term_flat_size_litopt(t, lit->start, lit->end, &words) : tc_term_flat_size(t, &words);
    if (r != TC_OK)
        return r;
    tc_term *hp = NULL;
    if (words) {
        hp = tc_alloc_words(a, words);
        if (!hp)
            return TC_ENOMEM;
    }
    *out = tc_copy_struct_fill(t, hp, words, a->offheap, lit);
    if (stats) {
        stats->words_sized += words;
        stats->words_written += words;
        stats->passes += 2;
    }
    return TC_OK;
}
