#include "gc.h"

#include <string.h>

#include "heapsize.h"
#include "proc_impl.h"

/* The process-level next() (R10B-2 ggc.c and OTP 25 erl_gc.c next_heap_size alike): the
 * table's entry, never below min_heap_size. */
static uint64_t proc_next(const tc_proc *p, uint64_t size, unsigned offset)
{
    uint64_t s = tc_heap_next_size(p->policy.heap_table, size, offset);
    return s < p->min_heap_size ? p->min_heap_size : s;
}

/* ---- relocation ---------------------------------------------------------------------- */

static inline void offset_word(tc_term *w, tc_term offs_bytes, const tc_term *lo, const tc_term *hi)
{
    tc_term v = *w;
    if ((tc_is_list(v) || tc_is_boxed(v)) && tc_layout_in(tc_layout_ptr(v), lo, hi))
        *w = v + offs_bytes;
}

static tc_term offs_in_bytes(ptrdiff_t offs) { return (tc_term)offs * (tc_term)sizeof(tc_term); }

void tc_gc_offset_heap(tc_term *hp, size_t n, ptrdiff_t offs, const tc_term *lo, const tc_term *hi)
{
    tc_term ob = offs_in_bytes(offs);
    tc_term *end = hp + n;
    for (; hp < end; hp += tc_layout_step(hp)) {
        if (!tc_is_header(*hp)) {
            offset_word(hp, ob, lo, hi);
        } else if (tc_offheap_is_member(hp)) {
            tc_term *next = (tc_term *)(uintptr_t)hp[TC_OH_NEXT];
            if (next && tc_layout_in(next, lo, hi))
                hp[TC_OH_NEXT] += ob;
        }
    }
}

/* A resize's relocation, applied to each area of the root set. */
typedef struct relocation {
    tc_term offs_bytes;
    const tc_term *lo, *hi;
} relocation;

static void relocate_area(void *ctx, tc_term *roots, size_t n)
{
    const relocation *rel = ctx;
    for (size_t i = 0; i < n; i++)
        offset_word(&roots[i], rel->offs_bytes, rel->lo, rel->hi);
}

static ptrdiff_t words_between(const tc_term *from, const tc_term *to)
{
    return (ptrdiff_t)(((intptr_t)(uintptr_t)to - (intptr_t)(uintptr_t)from) / (intptr_t)sizeof(tc_term));
}

/* A raw pointer (an off-heap link) relocated by `offs` words; the arithmetic is done on
 * integers because the old and new blocks are different objects. */
static tc_term *relocated(tc_term *x, ptrdiff_t offs)
{
    return (tc_term *)(uintptr_t)((uintptr_t)x + (uintptr_t)offs_in_bytes(offs));
}

/* ---- the copy ------------------------------------------------------------------------ */

typedef struct gc {
    tc_proc *p;
    const tc_term *mat_lo, *mat_hi; /* minor: mature data, promoted */
    const tc_term *old_lo, *old_hi; /* minor: the old heap, left alone */
    bool major;
    /* The words moved are what the tops grew by (do_minor, do_major): no count in the
     * sweep, where one in memory is loaded and stored again after every object copied (a
     * tc_term store may alias a uint64_t), while erl_gc.c's sweep counts nothing. */
    tc_term *ntop, *otop;
} gc;

/* Moves the object `v` points at to *dst and leaves a forwarding mark behind. */
static inline tc_term move_object(tc_term v, tc_term **dst)
{
    tc_term *to = *dst, nv;
    if (tc_is_list(v)) {
        tc_term *src = tc_list_val(v);
        to[0] = src[0];
        to[1] = src[1];
        nv = tc_make_list(to);
        src[0] = TC_NON_VALUE;
        src[1] = nv;
        *dst = to + 2;
        return nv;
    }
    tc_term *src = tc_boxed_val(v);
    size_t n = tc_layout_object_words(src);
    /* Word by word, as erl_gc.c's move_boxed: most boxed objects are a few words (a float,
     * a 2-tuple), where a memcpy call costs more than the copy. */
    for (size_t i = 0; i < n; i++)
        to[i] = src[i];
    nv = tc_make_boxed(to);
    src[0] = nv;
    *dst = to + n;
    return nv;
}

static inline void evac(gc *g, tc_term *slot, bool all_to_old)
{
    tc_term v = *slot;
    if (!tc_is_list(v) && !tc_is_boxed(v))
        return;
    tc_term *ptr = tc_layout_ptr(v);
    if (tc_layout_in(ptr, g->old_lo, g->old_hi) || proc_is_literal(g->p, ptr))
        return;
    tc_term w = ptr[0];
    if (tc_is_list(v) ? w == TC_NON_VALUE : !tc_is_header(w)) {
        *slot = tc_is_list(v) ? ptr[1] : w;
        return;
    }
    bool to_old = all_to_old || tc_layout_in(ptr, g->mat_lo, g->mat_hi);
    *slot = move_object(v, to_old ? &g->otop : &g->ntop);
}

/* Cheney scan from `scan` up to *top, which grows while objects are copied. The primary tag
 * is tested here, as erl_gc.c's sweep loops switch on it, so an immediate costs no call. */
static void sweep(gc *g, tc_term *scan, tc_term **top, bool all_to_old)
{
    while (scan < *top) {
        tc_term w = *scan;
        if (tc_is_header(w)) {
            scan += tc_layout_header_step(scan);
            continue;
        }
        if (tc_is_list(w) || tc_is_boxed(w))
            evac(g, scan, all_to_old);
        scan++;
    }
}

static void evac_area(void *ctx, tc_term *roots, size_t n)
{
    for (size_t i = 0; i < n; i++)
        evac(ctx, &roots[i], false);
}

static void evac_roots(gc *g, tc_term *objv, unsigned nobj) { tc__proc_each_root(g->p, objv, nobj, evac_area, g); }

/* collect_live_heap_frags + move_one_area: the BIF's fragments go whole, garbage included. */
static void move_live_frags(gc *g, tc_heapfrag *end)
{
    for (tc_heapfrag *f = g->p->mbuf; f && f != end; f = f->next) {
        tc_term *src = f->mem, *lim = f->mem + f->used_size;
        while (src < lim) {
            size_t n = tc_layout_cell_words(src);
            TC_ASSERT(src + n <= lim); /* a fragment holds whole objects only */
            (void)move_object(tc_is_header(*src) ? tc_make_boxed(src) : tc_make_list(src), &g->ntop);
            src += n;
        }
        g->p->stats.frag_words_moved += f->used_size;
    }
}

/* erl_gc.c do_next_vheap_size: grow by the golden ratio (a double product, truncated) while
 * vheap/3 > vheap_sz/4, stopping if the product wraps; halve when vheap < vheap_sz/4; else
 * keep. next_vheap_size: never below min_vheap_size. */
static uint64_t next_vheap_size(const tc_proc *p, uint64_t vheap, uint64_t vheap_sz)
{
    uint64_t sz = vheap_sz;
    if (vheap / 3 > sz / 4) {
        while (vheap / 3 > sz / 4) {
            uint64_t grown = (uint64_t)((double)sz * 1.618);
            if (grown < sz)
                break;
            sz = grown;
        }
    } else if (vheap < sz / 4) {
        sz >>= 1;
    }
    return sz < p->min_vheap_size ? p->min_vheap_size : sz;
}

/* sweep_off_heap: moved members (ProcBins, external things, local funs) are relinked,
 * old-heap ones kept by a minor GC, the rest dropped: a binary, node entry or fun entry
 * reference each. The binary virtual heaps are sized from the moved ones: those now young give
 * bin_vheap, those a minor GC promoted add to bin_old_vheap; a fullsweep empties the old
 * one and sizes it from the overhead before the GC; then bin_vheap_sz is sized from
 * bin_vheap and the overhead restarts at it. The VM calls it only when the list is not
 * empty (do_minor, full_sweep_heaps), so an empty list leaves all of that as it was. */
static void sweep_offheap(gc *g)
{
    tc_proc *p = g->p;
    tc_term *pb = p->off_heap.first, *last = NULL;
    if (!pb)
        return;
    uint64_t bin_vheap = 0;
    p->off_heap.first = NULL;
    while (pb) {
        tc_term *live = NULL, *next;
        if (!tc_is_header(pb[0])) {
            live = tc_boxed_val(pb[0]);
            next = (tc_term *)(uintptr_t)live[TC_OH_NEXT];
            if (tc_header_subtag(live[0]) == TC_SUBTAG_REFC_BINARY) {
                uint64_t words = live[TC_PB_SIZE] / sizeof(tc_term);
                if (!g->major && tc_layout_in(live, g->old_lo, g->old_hi))
                    p->bin_old_vheap += words;
                else
                    bin_vheap += words;
            }
        } else {
            next = (tc_term *)(uintptr_t)pb[TC_OH_NEXT];
            if (!g->major && tc_layout_in(pb, g->old_lo, g->old_hi))
                live = pb;
            else
                tc_offheap_drop(&p->off_heap, pb);
        }
        if (live) {
            if (last)
                last[TC_OH_NEXT] = (tc_term)(uintptr_t)live;
            else
                p->off_heap.first = live;
            last = live;
        }
        pb = next;
    }
    if (last)
        last[TC_OH_NEXT] = 0;
    if (g->major) {
        p->bin_old_vheap = 0;
        p->bin_old_vheap_sz = next_vheap_size(p, p->off_heap.vheap, p->bin_old_vheap_sz);
    }
    p->bin_vheap_sz = next_vheap_size(p, bin_vheap, p->bin_vheap_sz);
    p->off_heap.vheap = bin_vheap;
}

/* The new heap replaces the young generation: stack to its top, old block and fragments freed. */
static void install_new_heap(tc_proc *p, tc_term *n_heap, uint64_t new_sz, tc_term *n_htop)
{
    size_t stack = tc_proc_stack_size(p);
    memcpy(n_heap + new_sz - stack, p->stop, stack * sizeof(tc_term));
    tc_mseg_free_block(p->mem, p->heap);
    tc__proc_free_frags(p->mem, p->mbuf);
    tc__proc_free_frags(p->mem, p->msg_frag);
    p->mbuf = p->msg_frag = p->aheap = NULL;
    p->mbuf_sz = 0;
    p->arith_frag = NULL;
    p->arith_avail = 0;
    p->frag_overhead = 0;
    p->heap = n_heap;
    p->htop = n_htop;
    p->heap_sz = new_sz;
    p->hend = n_heap + new_sz;
    p->stop = p->hend - stack;
    p->stats.heaps_allocated++;
}

static uint64_t do_minor(tc_proc *p, tc_term *n_heap, uint64_t new_sz, tc_term *objv, unsigned nobj,
                         bool live_frags, tc_heapfrag *live_hf_end)
{
    gc g = {.p = p, .mat_lo = p->heap, .mat_hi = p->high_water, .old_lo = p->old_heap,
            .old_hi = p->old_hend, .ntop = n_heap, .otop = p->old_htop};
    bool had_mature = p->high_water != p->heap;
    tc_term *prev_otop = p->old_htop;
    if (live_frags)
        move_live_frags(&g, live_hf_end);
    evac_roots(&g, objv, nobj);
    sweep(&g, n_heap, &g.ntop, false);
    /* What was just promoted may still point into the dying young generation. */
    sweep(&g, prev_otop, &g.otop, true);
    p->old_htop = g.otop;
    sweep_offheap(&g);
    install_new_heap(p, n_heap, new_sz, g.ntop);
    p->high_water = p->policy.tenure == TC_TENURE_FLIP && had_mature ? p->heap : p->htop;
    p->gen_gcs++;
    return (uint64_t)(words_between(n_heap, g.ntop) + words_between(prev_otop, g.otop));
}

static uint64_t do_major(tc_proc *p, tc_term *n_heap, uint64_t new_sz, tc_term *objv, unsigned nobj,
                         bool live_frags, tc_heapfrag *live_hf_end)
{
    gc g = {.p = p, .major = true, .ntop = n_heap};
    if (live_frags)
        move_live_frags(&g, live_hf_end);
    evac_roots(&g, objv, nobj);
    sweep(&g, n_heap, &g.ntop, false);
    sweep_offheap(&g);
    tc_mseg_free_block(p->mem, p->old_heap);
    p->old_heap = p->old_htop = p->old_hend = NULL;
    install_new_heap(p, n_heap, new_sz, g.ntop);
    p->high_water = p->htop;
    p->gen_gcs = 0;
    p->flags &= ~(TC_PROC_HEAP_GROW | TC_PROC_NEED_FULLSWEEP);
    p->stats.major_gcs++;
    return (uint64_t)words_between(n_heap, g.ntop);
}

/* A queued message's fragment copied onto the heap at htop, which has room for it: its words
 * relocated, its binaries joining the process's (erl_message.c
 * erts_move_msg_attached_data_to_heap, OTP 25 move_msgq_to_heap). Returns the words moved. */
static uint64_t move_msg_to_heap(tc_proc *p, tc_msg *m)
{
    tc_heapfrag *f = m->frag;
    size_t n = f->used_size;
    TC_CHECK(tc_proc_heap_room(p) >= n);
    memcpy(p->htop, f->mem, n * sizeof(tc_term));
    ptrdiff_t offs = words_between(f->mem, p->htop);
    const tc_term *lo = f->mem, *hi = f->mem + n;
    tc_gc_offset_heap(p->htop, n, offs, lo, hi);
    offset_word(&m->term, offs_in_bytes(offs), lo, hi);
    if (f->off_heap.first) /* its links were relocated with the words */
        f->off_heap.first = relocated(f->off_heap.first, offs);
    tc__proc_splice_offheap(&p->off_heap, &f->off_heap);
    p->htop += n;
    tc_heapfrag_free(p->mem, f);
    m->frag = NULL;
    return n;
}

/* After a GC (R13B01 minor_collection and major_collection, OTP25 move_msgq_to_heap): queued
 * message fragments are copied onto the fresh heap, their binaries' words joining the
 * overhead; when that changed it, erl_gc.c move_msgs_to_heap resizes bin_vheap_sz from the
 * new overhead. */
static uint64_t move_msgq_to_heap(tc_proc *p)
{
    uint64_t moved = 0, pre_oh = p->off_heap.vheap;
    for (tc_msg *m = p->msgq; m; m = m->next)
        if (m->frag)
            moved += move_msg_to_heap(p, m);
    p->stats.msgq_words_moved += moved;
    if (p->off_heap.vheap != pre_oh)
        p->bin_vheap_sz = next_vheap_size(p, p->off_heap.vheap, p->bin_vheap_sz);
    return moved;
}

/* ---- resizing (grow_new_heap / shrink_new_heap) ---------------------------------------- */

static tc_result resize(tc_proc *p, uint64_t new_sz, tc_term *objv, unsigned nobj)
{
    size_t stack = tc_proc_stack_size(p), used = (size_t)(p->htop - p->heap);
    tc_term *old = p->heap;
    bool shrinking = new_sz < p->heap_sz;
    ptrdiff_t stack_at = p->stop - old;
    if (shrinking) /* the stack moves down first, or the realloc would cut it off */
        memmove(old + new_sz - stack, p->stop, stack * sizeof(tc_term));
    tc_term *nh = tc_mseg_realloc_block(p->mem, old, new_sz * sizeof(tc_term));
    if (!nh) {
        if (shrinking)
            memmove(p->stop, old + new_sz - stack, stack * sizeof(tc_term));
        return TC_ENOMEM;
    }
    tc_term *nstop = nh + new_sz - stack;
    if (!shrinking)
        memmove(nstop, nh + stack_at, stack * sizeof(tc_term));
    p->high_water = nh + (p->high_water - old);
    p->heap = nh;
    p->htop = nh + used;
    p->hend = nh + new_sz;
    p->stop = nstop;
    if (nh != old) { /* the block moved: relocate the heap, then the roots (stack included) */
        ptrdiff_t offs = words_between(old, nh);
        const tc_term *lo = old, *hi = old + used;
        tc_gc_offset_heap(nh, used, offs, lo, hi);
        relocation rel = {offs_in_bytes(offs), lo, hi};
        tc__proc_each_root(p, objv, nobj, relocate_area, &rel);
        if (p->off_heap.first && tc_layout_in(p->off_heap.first, lo, hi))
            p->off_heap.first = relocated(p->off_heap.first, offs);
    }
    if (shrinking)
        p->stats.shrinks++;
    else
        p->stats.grows++;
    p->heap_sz = new_sz;
    return TC_OK;
}

static tc_result adjust_after_fullsweep(tc_proc *p, uint64_t need, tc_term *objv, unsigned nobj, int *resized)
{
    uint64_t need_after = (uint64_t)(p->htop - p->heap) + need + tc_proc_stack_size(p) + p->policy.reserved;
    if (p->heap_sz < need_after) {
        *resized = 1;
        return resize(p, proc_next(p, need_after, 0), objv, nobj);
    }
    if (3 * p->heap_sz < 4 * need_after) {
        p->flags |= TC_PROC_HEAP_GROW; /* over 75 % used: grow at the next fullsweep */
        return TC_OK;
    }
    if (p->policy.shrink && 4 * need_after < p->heap_sz && p->heap_sz > TC_H_MIN_SIZE) {
        uint64_t wanted = 2 * need_after;
        uint64_t sz = wanted < p->min_heap_size ? p->min_heap_size : proc_next(p, wanted, 0);
        if (sz < p->heap_sz) {
            *resized = -1;
            return resize(p, sz, objv, nobj);
        }
    }
    return TC_OK;
}

/* ---- garbage_collect ------------------------------------------------------------------- */

/* OTP 25 gc_cost (erl_gc.c), what minor_collection and major_collection return and the
 * caller BUMP_REDS: a reduction per 10 live words after the GC, one per 100 words a resize
 * moved, at least one (policy.gc_cost per_gc). */
static void charge_gc_cost(tc_proc *p, uint64_t size_after, uint64_t resize_moved)
{
    if (p->policy.gc_cost != TC_GC_COST_PER_GC)
        return;
    uint64_t reds = size_after / 10 + resize_moved / 100;
    p->reds += reds < 1 ? 1 : (int64_t)reds;
}

static void emit_gc(tc_proc *p, tc_heap_event ev, tc_heap_event_kind kind, uint64_t new_sz, uint64_t copied,
                    int resized, bool created)
{
    ev.kind = kind;
    ev.heap_new = new_sz;
    ev.heap_after = p->heap_sz;
    ev.used_after = (uint64_t)(p->htop - p->heap);
    ev.old_heap_after = p->old_heap ? (uint64_t)(p->old_hend - p->old_heap) : 0;
    ev.copied = copied;
    ev.resized = resized;
    ev.old_heap_created = created;
    p->stats.words_copied += copied;
    proc_emit(p, &ev);
}

/* What a collection starts from, for its event. Its frag_before is erts_process_gc_info's
 * mbuf_size: MBUF_SIZE and, with an on-heap queue (msg_frag queue), the data of the queued
 * messages that still carry their own fragment. */
static tc_heap_event gc_event(const tc_proc *p, uint64_t need)
{
    uint64_t young = proc_young_gen_usage(p), queued = young - tc_proc_young_use(p);
    return (tc_heap_event){.need = need, .heap_before = p->heap_sz, .young_before = young,
                           .used_before = (uint64_t)(p->htop - p->heap), .frag_before = p->mbuf_sz + queued,
                           .stack_before = tc_proc_stack_size(p)};
}

static tc_term *alloc_heap(tc_proc *p, uint64_t words) { return tc_mseg_alloc_block(p->mem, words * sizeof(tc_term)); }

static bool create_old_heap(tc_proc *p, uint64_t words)
{
    tc_term *oh = alloc_heap(p, words);
    if (!oh)
        return false;
    p->old_heap = p->old_htop = oh;
    p->old_hend = oh + words;
    return true;
}

static void drop_new_old_heap(tc_proc *p)
{
    tc_mseg_free_block(p->mem, p->old_heap);
    p->old_heap = p->old_htop = p->old_hend = NULL;
}

/* The fragments and the data of queued messages in fragments, which the heap_size rules add
 * to the heap's size (R13B01 erl_gc.c: MBUF_SIZE(p) + combined_message_size(p); R10B-2 had
 * the messages' buffers in MBUF). */
static uint64_t queued_and_frags(const tc_proc *p) { return proc_young_gen_usage(p) - (uint64_t)(p->htop - p->heap); }

/* minor_collection's test: the mature data fits the old heap's free words (created first when
 * there is none and mature data needs one), and the old binary virtual heap has room. */
static bool minor_fits(const tc_proc *p, uint64_t mature)
{
    const tc_policy *pol = &p->policy;
    bool old_vheap_room = !pol->bin_vheap || p->bin_old_vheap_sz > p->bin_old_vheap;
    bool old_room = p->old_heap ? mature <= (uint64_t)(p->old_hend - p->old_htop) : !pol->minor_needs_old_heap;
    return old_room && old_vheap_room;
}

/* The fullsweep: everything live to one new heap (policy.major_heap_size sizes it). */
static tc_result collect_major(tc_proc *p, tc_heap_event ev, uint64_t need, tc_term *objv, unsigned nobj,
                               bool live_frags, tc_heapfrag *live_hf_end, uint64_t copied_before)
{
    uint64_t stack = tc_proc_stack_size(p), old_use = (uint64_t)(p->old_htop - p->old_heap);
    uint64_t new_sz = (p->policy.major_heap_size == TC_GC_SIZE_HEAP
                           ? p->heap_sz + queued_and_frags(p) + old_use
                           : proc_young_gen_usage(p) + old_use + p->policy.reserved) +
                      (p->policy.major_stack ? stack : 0);
    new_sz = proc_next(p, new_sz, 0);
    if (new_sz == p->heap_sz && (p->flags & TC_PROC_HEAP_GROW))
        new_sz = proc_next(p, p->heap_sz, 1);
    tc_term *n_heap = alloc_heap(p, new_sz);
    if (!n_heap)
        return TC_ENOMEM;
    uint64_t copied = copied_before + do_major(p, n_heap, new_sz, objv, nobj, live_frags, live_hf_end);
    copied += move_msgq_to_heap(p);
    int resized = 0;
    tc_result r = adjust_after_fullsweep(p, need, objv, nobj, &resized);
    uint64_t used = (uint64_t)(p->htop - p->heap);
    charge_gc_cost(p, used, resized ? used : 0);
    emit_gc(p, ev, TC_HEAP_EV_MAJOR, new_sz, copied, resized, false);
    return r;
}

/*
 * garbage_collect, with every rule that differs between the eras taken from the policy (gc.h
 * says which erts function each follows): a minor GC when the mature data fits the old heap
 * (created here when there is mature data and none yet), else or when it leaves the heap short
 * of room under the fullsweep rule, a major one.
 */
static tc_result collect_heaps(tc_proc *p, uint64_t need, tc_term *objv, unsigned nobj, bool live_frags,
                               tc_heapfrag *live_hf_end)
{
    const tc_policy *pol = &p->policy;
    uint64_t stack = tc_proc_stack_size(p);
    tc_heap_event ev = gc_event(p, need);
    if (p->delayed_started) { /* the dirty GC that finishes one delayed after its minor started */
        ev = p->delayed_start;
        p->delayed_started = false;
    }
    uint64_t before = ev.young_before, copied_minor = 0;
    if (!(p->flags & TC_PROC_NEED_FULLSWEEP)) {
        uint64_t mature = (uint64_t)(p->high_water - p->heap);
        bool created = false;
        if (!p->old_heap && mature != 0) {
            /* One step above what is needed: fewer fullsweeps, says the erts comment. */
            uint64_t sz = pol->old_heap_size == TC_OLD_HEAP_MATURE    ? proc_next(p, mature, 1)
                          : pol->old_heap_size == TC_OLD_HEAP_HEAP_USE ? tc_heap_next_size(pol->heap_table, ev.used_before, 1)
                                                                       : tc_heap_next_size(pol->heap_table, before, 1);
            if (!create_old_heap(p, sz))
                return TC_ENOMEM;
            created = true;
        }
        if (minor_fits(p, mature)) {
            uint64_t new_sz = pol->minor_heap_size == TC_GC_SIZE_HEAP ? p->heap_sz + queued_and_frags(p) : stack + before;
            new_sz = proc_next(p, new_sz, 0);
            tc_term *n_heap = alloc_heap(p, new_sz);
            if (!n_heap) {
                if (created)
                    drop_new_old_heap(p);
                return TC_ENOMEM;
            }
            const tc_term *prev_otop = p->old_htop;
            uint64_t copied = do_minor(p, n_heap, new_sz, objv, nobj, live_frags, live_hf_end);
            copied += move_msgq_to_heap(p);
            uint64_t size_after = (uint64_t)(p->old_htop - prev_otop) + (uint64_t)(p->htop - p->heap);
            uint64_t need_after = (uint64_t)(p->htop - p->heap) + need + stack + pol->reserved;
            uint64_t old_sz = p->old_heap ? (uint64_t)(p->old_hend - p->old_heap) : 0;
            tc_result r = TC_OK;
            int resized = 0;
            bool short_of_room = false;
            if (pol->shrink && p->heap_sz > pol->shrink_min_words && 4 * need_after < p->heap_sz &&
                (p->heap_sz > 8000 || p->heap_sz > old_sz)) {
                uint64_t wanted = 3 * need_after;
                if (pol->shrink_old_floor && wanted * 9 < old_sz && old_sz / 8 > wanted)
                    wanted = old_sz / 8; /* not too small next to the old generation */
                wanted = wanted < p->min_heap_size ? p->min_heap_size : proc_next(p, wanted, 0);
                if (wanted < p->heap_sz) {
                    resized = -1;
                    r = resize(p, wanted, objv, nobj);
                }
            } else if (need_after > p->heap_sz) {
                if (pol->minor_short == TC_MINOR_SHORT_GROW) {
                    resized = 1;
                    r = resize(p, proc_next(p, need_after, 0), objv, nobj);
                } else {
                    short_of_room = true;
                }
            }
            charge_gc_cost(p, size_after, resized ? (uint64_t)(p->htop - p->heap) : 0);
            if (!short_of_room) {
                p->stats.minor_gcs++;
                emit_gc(p, ev, TC_HEAP_EV_MINOR, new_sz, copied, resized, created);
                return r;
            }
            /* Still short of room: a fullsweep follows in the same collection, as erts's
             * garbage-collect loop runs it (R10B-2 ggc.c, R13B01 erl_gc.c
             * erts_garbage_collect: one gc_start before the minor and one gc_end after the
             * fullsweep, one garbage_cols++): one GC, a major one, whose event starts where
             * the minor did and counts both copies. */
            copied_minor = copied;
        }
    }
    return collect_major(p, ev, need, objv, nobj, live_frags, live_hf_end, copied_minor);
}

/* check_for_possibly_long_gc: a GC this large goes to a dirty scheduler; `major` when it
 * will be one (erts asks again as major when the minor finds no room, below). */
static bool long_gc_as(const tc_proc *p, bool major)
{
    if (p->policy.long_gc_words == 0)
        return false;
    uint64_t sz = proc_young_gen_usage(p) + tc_proc_stack_size(p);
    if (major)
        sz += (uint64_t)(p->old_htop - p->old_heap);
    return sz >= p->policy.long_gc_words;
}

static bool long_gc(const tc_proc *p)
{
    return long_gc_as(p, (p->flags & TC_PROC_NEED_FULLSWEEP) || p->gen_gcs >= p->policy.fullsweep_after);
}

/* erl_gc.c garbage_collect on a normal scheduler, a GC that passed the first
 * check_for_possibly_long_gc as a minor: minor_collection returns -1 when it does not fit
 * (with no old heap it creates one that fits, so only an existing one can be short); then
 * F_NEED_FULLSWEEP is set and the check is made again as major, and a long one goes to
 * delay_gc_after_start. */
static bool long_after_minor_start(const tc_proc *p)
{
    if (p->policy.long_gc_words == 0 || (p->flags & TC_PROC_NEED_FULLSWEEP) ||
        p->gen_gcs >= p->policy.fullsweep_after || !p->old_heap)
        return false;
    return !minor_fits(p, (uint64_t)(p->high_water - p->heap)) && long_gc_as(p, true);
}

/* The state transition every safe point ends in. At debug level 2 the process must verify
 * after each collection, so a heap the collector (or anything before it) broke is caught
 * here rather than at some later dereference. */
static tc_result collect(tc_proc *p, uint64_t need, tc_term *objv, unsigned nobj, bool live_frags,
                         tc_heapfrag *live_hf_end)
{
    /* Where the VM's check_for_possibly_long_gc would send it to a dirty CPU scheduler: a
     * delayed long one, or any other this large, which the model runs in place (a schedule-in
     * with no other task queued: the process would wait for it anyway), and a minor that turns
     * into a long major (delay_gc_after_start). Either way its heaps come from the dirty
     * scheduler's allocator instance (erts_alloc_register_scheduler, +Mdai 0: instance 0, and
     * mseg's ERTS_MSEG_ALLCTR_SS the same), whose segment cache is not the normal scheduler's.
     * A GC a receive delayed (on its fragment heap) runs on the normal scheduler. */
    bool dirty = proc_dirty_gc_pending(p) || long_gc(p) || long_after_minor_start(p);
    if (dirty)
        p->stats.long_gcs++;
    if (p->gen_gcs >= p->policy.fullsweep_after)
        p->flags |= TC_PROC_NEED_FULLSWEEP;
    if (p->hf_saved && !p->aheap) { /* garbage_collect: p->live_hf_end unless the heap is abandoned */
        live_frags = true;
        live_hf_end = p->hf_saved_end;
    }
    p->hf_saved = false; /* garbage_collect's end: p->live_hf_end = ERTS_INVALID_HFRAG_PTR */
    unsigned was = dirty ? tc_mseg_instance_set(p->mem, TC_MSEG_DIRTY_INSTANCE) : 0;
    if (!(live_frags && p->policy.move_live_frags))
        p->stats.frag_words_traced += p->mbuf_sz;
    tc_result r = collect_heaps(p, need, objv, nobj, live_frags && p->policy.move_live_frags, live_hf_end);
    if (dirty)
        tc_mseg_instance_set(p->mem, was);
    if (r == TC_OK && p->policy.gc_cost == TC_GC_COST_LIVE) /* R10B-2 ggc.c: live words / 10 */
        p->reds += (int64_t)((p->htop - p->heap) / 10);
    if (r == TC_OK)
        p->flags &= ~(TC_PROC_FORCE_GC | TC_PROC_DIRTY_GC); /* garbage_collect clears F_FORCE_GC (and a dirty one its F_DIRTY_*_GC) when done */
    PROC_VERIFY_TRANSITION(p, objv, nobj);
    return r;
}

tc_result tc_gc_collect(tc_proc *p, uint64_t need, tc_term *objv, unsigned nobj)
{
    return collect(p, need, objv, nobj, false, NULL);
}

/* ---- the safe points --------------------------------------------------------------------- */

/* A GC the emulator reaches through the JIT's fragment_call (a heap test, an allocate, a
 * light BIF's or a send's return): its return address sits on the stack while the GC runs
 * (policy.gc_call_words). The S_RESERVED words the heap tests keep free hold it. */
static unsigned gc_call_words(const tc_proc *p)
{
    /* only a gc_stress GC gets here with no room left */
    return tc_proc_heap_room(p) < p->policy.gc_call_words ? 0 : p->policy.gc_call_words;
}

static tc_result collect_from_call(tc_proc *p, uint64_t need, tc_term *objv, unsigned nobj, bool live_frags,
                                   tc_heapfrag *live_hf_end)
{
    unsigned words = gc_call_words(p);
    for (unsigned i = 0; i < words; i++)
        *--p->stop = TC_NIL;
    tc_result r = collect(p, need, objv, nobj, live_frags, live_hf_end);
    p->stop += words;
    return r;
}

/*
 * delay_garbage_collection (erl_gc.c) with need > 0, reached from a heap test or an allocate
 * (the x86-64 JIT's emit_gc_test: fragment_call to the garbage_collect glue, whose return
 * address is on the stack, `ra` words, when erts_garbage_collect_nobump runs): no GC here.
 * The process moves onto a heap fragment of ssz + need + ERTS_DELAY_GC_EXTRA_FREE (40) +
 * S_RESERVED words, ssz = hend - stop with that return address (a previous delayed heap
 * becomes an ordinary fragment, its words now counted in mbuf_sz), F_FORCE_GC is set and
 * the slice ends at the next reduction test (FCALLS less all but ERTS_ABANDON_HEAP_COST
 * reductions), so the GC runs at the next schedule-in. The model keeps the stack in the old
 * block (its words are counted as erts counts the copy at the fragment's top).
 */
static bool abandon_heap(tc_proc *p, uint64_t need, unsigned ra)
{
    size_t stack = tc_proc_stack_size(p) + ra;
    tc_heapfrag *f = tc_heapfrag_new(p->mem, stack + need + 40 + p->policy.reserved);
    if (!f)
        return false; /* collect at once instead */
    if (p->aheap) { /* erts: hfrag->used_size = used; p->mbuf_sz += used */
        p->aheap->alloc_size = p->aheap->used_size;
        p->mbuf_sz += p->aheap->used_size;
    }
    f->next = p->mbuf;
    p->mbuf = f;
    p->aheap = f;
    p->flags |= TC_PROC_FORCE_GC;
    p->yield_requested = true;
    p->stats.gcs_delayed++;
    return true;
}

/* A heap test inside a receive (F_DELAY_GC): garbage_collect delays before anything else. */
static bool delay_gc(tc_proc *p, uint64_t need)
{
    if (!(p->flags & TC_PROC_DELAY_GC) || !p->policy.receive_delays_gc || p->policy.gc_stress)
        return false;
    return abandon_heap(p, need, gc_call_words(p));
}

/*
 * A heap test's or an allocate's GC that would be long (policy.long_gc_words): erl_gc.c
 * garbage_collect on a normal scheduler asks check_for_possibly_long_gc (young generation +
 * hend - stop, the glue's return address among the stack's words, + the old heap's use when
 * major) and, long, sets F_DIRTY_MAJOR_GC or F_DIRTY_MINOR_GC and goes to
 * delay_gc_before_start; a minor that passed the check and then finds the old heap short
 * (minor_collection returns -1) has traced its gc_minor_start and gc_minor_end, sets
 * F_NEED_FULLSWEEP, asks again as major and goes to delay_gc_after_start. Either way
 * delay_garbage_collection(need) abandons the heap (abandon_heap): the process goes on
 * building on the fragment until its next reduction test yields, and the GC runs on a dirty
 * CPU scheduler (erl_process.c erts_execute_dirty_system_task: F_DIRTY_MAJOR_GC sets
 * F_NEED_FULLSWEEP, then erts_garbage_collect_nobump with the registers the yield saved),
 * so what it copies and the stack it sees are those of the yield, not the heap test's.
 */
static bool delay_long_gc(tc_proc *p, uint64_t need)
{
    if (p->policy.long_gc_words == 0 || p->policy.gc_stress || (p->flags & TC_PROC_DELAY_GC))
        return false;
    unsigned ra = gc_call_words(p);
    p->stop -= ra; /* the glue's return address, counted in hend - stop */
    bool now = long_gc(p), after_start = !now && long_after_minor_start(p);
    tc_heap_event start = gc_event(p, need);
    p->stop += ra;
    if (!(now || after_start) || !abandon_heap(p, need, ra))
        return false;
    if (after_start) { /* the dirty major reports the start the minor traced here */
        p->delayed_start = start;
        p->delayed_started = true;
        p->flags |= TC_PROC_NEED_FULLSWEEP;
    }
    p->flags |= TC_PROC_DIRTY_GC;
    return true;
}

tc_result tc_proc_push_maybe_gc(tc_proc *p, tc_term t)
{
    /* the model's stack stays in the old block: a push needs a word there too */
    bool block_full = p->stop == p->htop;
    if (tc_proc_heap_room(p) < 1 + p->policy.reserved && !block_full && (delay_gc(p, 1) || delay_long_gc(p, 1))) {
        *--p->stop = t;
        return TC_OK;
    }
    if (tc_proc_heap_room(p) < 1 + p->policy.reserved || block_full || p->policy.gc_stress) {
        /* Like `allocate`: the value waits in an x register, so it is a root of the GC. */
        if (p->arity >= TC_PROC_MAX_XREGS)
            return TC_EBADARG;
        p->x[p->arity] = t;
        tc_result r = collect_from_call(p, 1, p->x, p->arity + 1, false, NULL);
        t = p->x[p->arity];
        if (r != TC_OK)
            return r;
        p->stats.gcs_test_heap++;
    }
    *--p->stop = t;
    return TC_OK;
}

tc_result tc_proc_test_heap_maybe_gc(tc_proc *p, uint64_t need)
{
    if (tc_proc_heap_room(p) >= need + p->policy.reserved && !p->policy.gc_stress)
        return TC_OK;
    if (delay_gc(p, need) || delay_long_gc(p, need))
        return TC_OK;
    tc_result r = collect_from_call(p, need, p->x, p->arity, false, NULL);
    if (r == TC_OK)
        p->stats.gcs_test_heap++;
    return r;
}

/* The BIF-call glue's own test (policy.h tc_bif_gc_test). */
static bool bif_gc_desired(const tc_proc *p)
{
    if (p->policy.bif_gc_test == TC_BIF_GC_ANY_FRAG)
        return p->mbuf != NULL;
    if (p->policy.bif_gc_test == TC_BIF_GC_X86_JIT) {
        /* E there is the glue's own stack pointer: its return address is pushed (gc_call_words) */
        uint64_t room = tc_proc_heap_room(p), ra = p->policy.gc_call_words;
        return (p->flags & TC_PROC_FORCE_GC) || proc_bin_vheap_full(p) ||
               (room > ra ? room - ra : 0) * sizeof(tc_term) < p->mbuf_sz + 3;
    }
    return tc_proc_gc_desired(p);
}

tc_result tc_proc_bif_return_maybe_gc(tc_proc *p, tc_heapfrag *live_hf_end, tc_term *result)
{
    p->in_bif = false;
    if (p->policy.gc_trigger != TC_GC_AFTER_BIF || !(bif_gc_desired(p) || p->policy.gc_stress))
        return TC_OK;
    bool long_now = long_gc(p), after_start = !long_now && long_after_minor_start(p);
    if (long_now || after_start) {
        /* delay_garbage_collection, need 0: nothing is collected here; the process yields.
         * After the minor started, gc_minor_start/gc_minor_end were traced from here and the
         * dirty major is to be a fullsweep (F_NEED_FULLSWEEP). */
        if (after_start) {
            p->delayed_start = gc_event(p, 0);
            p->delayed_start.stack_before += gc_call_words(p); /* inside the glue's call */
            p->delayed_started = true;
            p->flags |= TC_PROC_NEED_FULLSWEEP;
        }
        p->flags |= TC_PROC_FORCE_GC;
        p->yield_requested = true;
        p->stats.gcs_delayed++;
        return TC_OK;
    }
    tc_result r = collect_from_call(p, 0, result, 1, true, live_hf_end);
    if (r == TC_OK)
        p->stats.gcs_after_bif++;
    return r;
}

tc_result tc_proc_loop_rec_maybe_gc(tc_proc *p)
{
    tc_msg *m = p->msgq;
    if (p->policy.msg_frag != TC_MSG_FRAG_COPY || !m || !m->frag)
        return TC_OK;
    if (tc_proc_heap_room(p) >= m->frag->used_size) {
        p->stats.rec_words_moved += move_msg_to_heap(p, m);
        PROC_VERIFY_TRANSITION(p, p->x, p->arity);
        return TC_OK;
    }
    /* erts_garbage_collect(p, 0, NULL, 0): the GC moves the message onto its new heap */
    return collect(p, 0, NULL, 0, false, NULL);
}

bool tc_proc_schedule_in_goes_dirty(tc_proc *p)
{
    if (p->policy.sched_gc_test != TC_SCHED_GC_DESIRED || (p->flags & TC_PROC_DELAY_GC) || p->aheap ||
        proc_dirty_gc_pending(p) || !tc_proc_gc_desired(p))
        return false;
    bool now = long_gc(p), after_start = !now && long_after_minor_start(p);
    if (!now && !after_start)
        return false;
    if (after_start) { /* the minor traced its start here; the dirty major reports it */
        p->delayed_start = gc_event(p, 0);
        p->delayed_started = true;
        p->flags |= TC_PROC_NEED_FULLSWEEP;
    }
    /* delay_garbage_collection with need 0 (force_reschedule): F_FORCE_GC, nothing collected */
    p->flags |= TC_PROC_FORCE_GC;
    p->stats.gcs_delayed++;
    return true;
}

bool tc_proc_dirty_gc_pending(const tc_proc *p) { return proc_dirty_gc_pending(p); }

tc_result tc_proc_schedule_in_maybe_gc(tc_proc *p)
{
    bool want = p->policy.sched_gc_test == TC_SCHED_GC_HEAP_SIZE ? p->mbuf_sz + p->frag_overhead >= p->heap_sz
                                                              : tc_proc_gc_desired(p);
    p->yield_requested = false;
    if (!want && !p->policy.gc_stress)
        return TC_OK;
    if (p->flags & TC_PROC_DELAY_GC)
        return TC_OK; /* waiting in a receive: erts schedules it in without a GC */
    /* a delayed long GC runs here as the dirty one (erts_execute_dirty_system_task; collect
     * allocates it from the dirty instance) */
    tc_result r = collect(p, 0, p->x, p->arity, false, NULL);
    if (r == TC_OK)
        p->stats.gcs_at_schedule++;
    return r;
}
