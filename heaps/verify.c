#include "verify.h"

#include <stdlib.h>

#include "../codec/verify.h"
#include "../terms/fun.h"
#include "../terms/ident.h"
#include "../terms/ptrset.h"
#include "heapsize.h"
#include "proc_impl.h"

/* Area kinds; a queued message fragment's kind is QUEUED + its index. */
enum { YOUNG, OLD, QUEUED };

typedef struct area {
    const tc_term *lo, *hi;
    unsigned kind;
} area;

typedef struct vctx {
    const tc_proc *p;
    const tc_term *objv; /* the live registers */
    unsigned nobj;
    area *areas;
    size_t n;
    tc_ptrset procbins; /* ProcBins found in the process's own areas */
    size_t nprocbins;
    const char *why;
} vctx;

static int area_cmp(const void *a, const void *b)
{
    const tc_term *x = ((const area *)a)->lo, *y = ((const area *)b)->lo;
    return x < y ? -1 : x > y;
}

static const area *find_area(const vctx *v, const tc_term *ptr)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ptr < v->areas[mid].lo)
            hi = mid;
        else if (ptr >= v->areas[mid].hi)
            lo = mid + 1;
        else
            return &v->areas[mid];
    }
    return NULL;
}

static bool fail(vctx *v, const char *why)
{
    if (!v->why)
        v->why = why;
    return false;
}

static bool allowed(unsigned from, unsigned to)
{
    if (from == YOUNG)
        return to == YOUNG || to == OLD;
    return from == to;
}

/* One term word found in an area (or a root) of kind `from`. */
static bool check_word(vctx *v, tc_term t, unsigned from)
{
    if (tc_is_immed(t))
        return true;
    if (tc_is_header(t))
        return fail(v, "a header word where a term was expected (a forwarding mark?)");
    if ((t & 4u) != 0 || (t >> 3) == 0)
        return fail(v, "misaligned or null pointer");
    const tc_term *ptr = tc_layout_ptr(t);
    if (proc_is_literal(v->p, ptr))
        return true;
    const area *a = find_area(v, ptr);
    if (!a)
        return fail(v, "pointer outside the process's areas and the literal areas");
    if (!allowed(from, a->kind))
        return fail(v, from == OLD ? "old heap points outside the old heap"
                                   : "pointer into an area it may not reach");
    if (tc_is_list(t)) {
        if (ptr + 2 > a->hi)
            return fail(v, "cons cell runs past its area");
        if (tc_is_header(ptr[0]) || tc_is_header(ptr[1]))
            return fail(v, "list pointer to a header word (a moved cons?)");
        return true;
    }
    if (!tc_is_header(ptr[0]))
        return fail(v, "boxed pointer to a word that is not a header (a moved object?)");
    if (ptr + tc_layout_object_words(ptr) > a->hi)
        return fail(v, "boxed object runs past its area");
    return true;
}

static bool check_header(vctx *v, const tc_term *hp, const tc_term *end)
{
    tc_term h = hp[0];
    uint64_t arity = tc_header_arity(h);
    switch (tc_header_subtag(h)) {
    case TC_SUBTAG_ARITYVAL:
        if (arity == 0)
            return fail(v, "zero-arity tuple on a heap");
        break;
    case TC_SUBTAG_FLOAT:
        if (arity != 1)
            return fail(v, "float header arity");
        break;
    case TC_SUBTAG_POS_BIG: /* arity 0: a one-word hole of frag_rule fill (erts_heap_alloc) */
        break;
    case TC_SUBTAG_NEG_BIG:
        if (arity == 0)
            return fail(v, "bignum without digits");
        break;
    case TC_SUBTAG_HEAP_BINARY:
        if (hp + 1 >= end || hp[1] > TC_HEAP_BIN_LIMIT || arity + 1 != TC_HEAP_BIN_SIZE(hp[1]))
            return fail(v, "heap binary header and size disagree");
        break;
    case TC_SUBTAG_REFC_BINARY:
        if (h != TC_PROC_BIN_HEADER)
            return fail(v, "ProcBin header malformed");
        break;
    case TC_SUBTAG_SUB_BINARY:
        if (h != TC_SUB_BIN_HEADER)
            return fail(v, "sub binary header malformed");
        break;
    case TC_SUBTAG_MAP: {
        /* A flatmap of at most 32 keys, or a HAMT head or inner node (hashmap.h): its
         * bitmap gives its words, so a header of the wrong map arity is what can be wrong. */
        unsigned bmp = tc_map_header_bitmap(h);
        bool head = h == TC_MAP_HEADER_HAMT_HEAD_ARRAY || (h == TC_MAP_HEADER_HAMT_HEAD_BITMAP(bmp) && bmp != 0);
        if (h == TC_MAP_HEADER_FLATMAP) {
            if (hp + 1 >= end || hp[1] > TC_MAP_SMALL_MAP_LIMIT)
                return fail(v, "flatmap of more than 32 keys");
        } else if (head) {
            if (hp + 1 >= end || hp[1] <= TC_MAP_SMALL_MAP_LIMIT)
                return fail(v, "hashmap head of at most 32 keys");
        } else if (h != TC_MAP_HEADER_HAMT_NODE_BITMAP(bmp) || bmp == 0) {
            return fail(v, "map header is neither a flatmap nor a HAMT node of its map arity");
        }
        break;
    }
    case TC_SUBTAG_REF:
    case TC_SUBTAG_EXTERNAL_PID:
    case TC_SUBTAG_EXTERNAL_PORT:
    case TC_SUBTAG_EXTERNAL_REF: {
        const char *why = hp + 1 + arity <= end ? tc_ident_check(hp) : "thing runs past its area";
        if (why)
            return fail(v, why);
        break;
    }
    case TC_SUBTAG_FUN: {
        const char *why = hp + TC_FUN_SIZE <= end ? tc_fun_check(hp) : "fun runs past its area";
        if (why)
            return fail(v, why);
        break;
    }
    default:
        return fail(v, "header subtag the model never builds");
    }
    if (hp + tc_layout_object_words(hp) > end)
        return fail(v, "object runs past the end of its area");
    return true;
}

/* Walks [lo, hi) as a heap area of kind `kind`; collects ProcBins into `pbs` when given. */
static bool scan_area(vctx *v, const tc_term *lo, const tc_term *hi, unsigned kind, tc_ptrset *pbs,
                      size_t *npbs)
{
    for (const tc_term *hp = lo; hp < hi; hp += tc_layout_step(hp)) {
        if (!tc_is_header(*hp)) {
            if (!check_word(v, *hp, kind))
                return false;
            continue;
        }
        if (!check_header(v, hp, hi))
            return false;
        if (tc_offheap_is_member(hp)) {
            if (tc_ptrset_add(pbs, hp) < 0)
                return fail(v, "out of memory while verifying");
            (*npbs)++;
        }
    }
    return true;
}

/* The list `oh` must hold exactly the `n` off-heap members (ProcBins, external things,
 * local funs) in `found`, once each, and the ProcBins' bytes. */
static bool check_offheap(vctx *v, const tc_offheap *oh, tc_ptrset *found, size_t n)
{
    tc_ptrset seen;
    tc_ptrset_init(&seen);
    size_t count = 0;
    uint64_t bytes = 0;
    bool ok = true;
    for (const tc_term *pb = oh->first; pb; pb = (const tc_term *)(uintptr_t)pb[TC_OH_NEXT]) {
        if (++count > n) {
            ok = fail(v, "off-heap list longer than the members on the heap (or a cycle)");
            break;
        }
        int fresh = tc_ptrset_add(&seen, pb), known = tc_ptrset_add(found, pb);
        if (fresh < 0 || known < 0) {
            ok = fail(v, "out of memory while verifying");
            break;
        }
        if (!fresh || known) {
            ok = fail(v, known ? "off-heap list entry that is not a member object of this process"
                               : "object twice on the off-heap list");
            break;
        }
        if (tc_header_subtag(pb[0]) == TC_SUBTAG_REFC_BINARY)
            bytes += pb[TC_PB_SIZE];
    }
    if (ok && count != n)
        ok = fail(v, "an off-heap member of this process is missing from its off-heap list");
    if (ok && bytes != oh->overhead)
        ok = fail(v, "off-heap overhead differs from the ProcBins' byte total");
    tc_ptrset_destroy(&seen);
    return ok;
}

static bool check_root(vctx *v, tc_term t, unsigned kind)
{
    if (!check_word(v, t, kind))
        return false;
    const char *why = NULL;
    if (!tc_term_verify(t, &why))
        return fail(v, why ? why : "root is not a valid term");
    return true;
}

/* One area of the root set: each must be a valid young-data root (the first failure stays). */
static void check_root_area(void *ctx, tc_term *roots, size_t n)
{
    vctx *v = ctx;
    for (size_t i = 0; i < n && !v->why; i++)
        (void)check_root(v, roots[i], YOUNG);
}

static bool check_layout(vctx *v)
{
    const tc_proc *p = v->p;
    if (!(p->heap <= p->htop && p->htop <= p->stop && p->stop <= p->hend))
        return fail(v, "heap, htop, stop, hend out of order");
    if ((uint64_t)(p->hend - p->heap) != p->heap_sz)
        return fail(v, "heap_sz is not the block size");
    if (tc_heap_next_size(p->policy.heap_table, p->heap_sz, 0) != p->heap_sz ||
        p->heap_sz < p->min_heap_size)
        return fail(v, "heap size not in the table or below min_heap_size");
    if (p->high_water < p->heap || p->high_water > p->htop)
        return fail(v, "high_water outside the heap's used part");
    if (p->old_heap && !(p->old_heap <= p->old_htop && p->old_htop <= p->old_hend))
        return fail(v, "old heap pointers out of order");
    if (!p->old_heap && (p->old_htop || p->old_hend))
        return fail(v, "old heap pointers without an old heap");
    uint64_t sz = 0;
    bool arith_seen = p->arith_avail == 0;
    for (const tc_heapfrag *f = p->mbuf; f; f = f->next) {
        if (f->used_size > f->alloc_size)
            return fail(v, "fragment used beyond its size");
        /* erts_heap_alloc counts what is handed out (HRelease shrinks it: erts_heap_frag_shrink),
         * do_alloc whole fragments; a delayed GC's heap is young data outside mbuf_sz */
        if (f != p->aheap)
            sz += p->policy.frag_rule == TC_FRAG_ARITH ? f->alloc_size : f->used_size;
        if (f == p->arith_frag && f->alloc_size - f->used_size == p->arith_avail)
            arith_seen = true;
    }
    for (const tc_heapfrag *f = p->msg_frag; f; f = f->next)
        sz += f->used_size;
    if (sz != p->mbuf_sz)
        return fail(v, "mbuf_sz differs from the fragments' sizes");
    if (!arith_seen)
        return fail(v, "arith heap is not the tail of a fragment");
    return true;
}

static bool add_area(vctx *v, size_t *cap, const tc_term *lo, const tc_term *hi, unsigned kind)
{
    if (lo == hi)
        return true;
    if (v->n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        area *a = tc_mem_realloc(v->areas, ncap * sizeof *a);
        if (!a)
            return fail(v, "out of memory while verifying");
        v->areas = a;
        *cap = ncap;
    }
    v->areas[v->n++] = (area){lo, hi, kind};
    return true;
}

static bool verify(vctx *v)
{
    const tc_proc *p = v->p;
    if (!check_layout(v))
        return false;
    size_t cap = 0;
    bool ok = add_area(v, &cap, p->heap, p->htop, YOUNG) && add_area(v, &cap, p->old_heap, p->old_htop, OLD);
    for (const tc_heapfrag *f = p->mbuf; ok && f; f = f->next)
        ok = add_area(v, &cap, f->mem, f->mem + f->used_size, YOUNG);
    for (const tc_heapfrag *f = p->msg_frag; ok && f; f = f->next)
        ok = add_area(v, &cap, f->mem, f->mem + f->used_size, YOUNG);
    unsigned q = QUEUED;
    for (const tc_msg *m = p->msgq; ok && m; m = m->next)
        if (m->frag)
            ok = add_area(v, &cap, m->frag->mem, m->frag->mem + m->frag->used_size, q++);
    if (!ok)
        return false;
    if (v->n > 1)
        qsort(v->areas, v->n, sizeof *v->areas, area_cmp);
    for (size_t i = 1; i < v->n; i++)
        if (v->areas[i].lo < v->areas[i - 1].hi)
            return fail(v, "two areas overlap");

    if (!scan_area(v, p->heap, p->htop, YOUNG, &v->procbins, &v->nprocbins) ||
        !scan_area(v, p->old_heap, p->old_htop, OLD, &v->procbins, &v->nprocbins))
        return false;
    for (const tc_heapfrag *f = p->mbuf; f; f = f->next)
        if (!scan_area(v, f->mem, f->mem + f->used_size, YOUNG, &v->procbins, &v->nprocbins))
            return false;
    for (const tc_heapfrag *f = p->msg_frag; f; f = f->next)
        if (!scan_area(v, f->mem, f->mem + f->used_size, YOUNG, &v->procbins, &v->nprocbins))
            return false;
    if (!check_offheap(v, &p->off_heap, &v->procbins, v->nprocbins))
        return false;

    q = QUEUED;
    for (const tc_msg *m = p->msgq; m; m = m->next) {
        if (!m->frag)
            continue; /* on the heap: a root of the root set, checked below */
        tc_ptrset own;
        tc_ptrset_init(&own);
        size_t n = 0;
        bool good = scan_area(v, m->frag->mem, m->frag->mem + m->frag->used_size, q, &own, &n) &&
                    check_offheap(v, &m->frag->off_heap, &own, n) && check_root(v, m->term, q);
        tc_ptrset_destroy(&own);
        if (!good)
            return false;
        q++;
    }
    /* The GC's own root set; it only reads, so the casts are safe. */
    tc__proc_each_root((tc_proc *)(uintptr_t)p, (tc_term *)(uintptr_t)v->objv, v->nobj, check_root_area, v);
    if (v->why)
        return false;
    if (p->dict) {
        const char *why;
        if (!tc_pdict_verify(p->dict, &why))
            return fail(v, why);
    }
    return true;
}

bool tc_heap_verify_with(const tc_proc *p, const tc_term *objv, unsigned nobj, const char **why)
{
    vctx v = {.p = p, .objv = objv, .nobj = nobj};
    tc_ptrset_init(&v.procbins);
    bool ok = verify(&v);
    tc_ptrset_destroy(&v.procbins);
    tc_mem_free(v.areas);
    if (why)
        *why = ok ? NULL : v.why;
    return ok;
}

bool tc_heap_verify(const tc_proc *p, const char **why) { return tc_heap_verify_with(p, p->x, p->arity, why); }

void tc__proc_verify_transition(const tc_proc *p, const tc_term *objv, unsigned nobj, const char *file, int line)
{
    const char *why;
    tc_mem_unchecked(1);
    bool ok = tc_heap_verify_with(p, objv, nobj, &why);
    tc_mem_unchecked(0);
    if (!ok)
        tc_assert_fail(file, line, why);
}
