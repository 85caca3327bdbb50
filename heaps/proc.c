#include "proc.h"

#include "heapsize.h"
#include "proc_impl.h"

static tc_term *proc_alloc(tc_alloc *self, size_t words) { return tc_proc_halloc((tc_proc *)self, words); }

/* HRelease (erl_vm.h): the unused tail of the last HAlloc goes back to the heap when it was
 * bumped there, else to the head fragment (erts_heap_frag_shrink: its used size and mbuf_sz
 * shrink; the fragment keeps its size). */
static void proc_release(tc_alloc *self, tc_term *end, tc_term *used)
{
    tc_proc *p = (tc_proc *)self;
    if (used >= p->heap && used < p->htop) {
        TC_ASSERT(end == p->htop);
        p->htop = used;
        return;
    }
    tc_heapfrag *f = p->mbuf; /* the last HAlloc went to a fragment: the head one */
    TC_ASSERT(used >= f->mem && end == f->mem + f->used_size);
    size_t back = (size_t)(end - used);
    f->used_size -= back;
    if (p->policy.frag_rule == TC_FRAG_ARITH) {
        if (f == p->arith_frag) /* do_alloc counts whole fragments: the tail becomes arith heap again */
            p->arith_avail += back;
    } else if (f != p->aheap) { /* a delayed GC's heap is outside mbuf_sz */
        p->mbuf_sz -= back;
    }
}

static tc_result proc_new(tc_mseg *mem, const tc_policy *policy, uint64_t arg_words, tc_proc **out)
{
    tc_proc *p = tc_mem_calloc(1, sizeof *p);
    if (!p)
        return TC_ENOMEM;
    p->policy = *policy;
    p->mem = mem;
    p->min_heap_size = tc_heap_next_size(policy->heap_table, policy->min_heap_size, 0);
    uint64_t need = arg_words + policy->reserved;
    p->heap_sz = need < p->min_heap_size ? p->min_heap_size : tc_heap_next_size(policy->heap_table, need, 0);
    p->heap = tc_mseg_alloc_block(mem, p->heap_sz * sizeof(tc_term));
    if (!p->heap) {
        tc_mem_free(p);
        return TC_ENOMEM;
    }
    /* erl_init.c rounds BIN_VH_MIN_SIZE with erts_next_heap_size; erl_process.c
     * erts_create_process starts both virtual heaps at min_vheap_size. */
    p->min_vheap_size = tc_heap_next_size(policy->heap_table, policy->min_bin_vheap_size, 0);
    p->bin_vheap_sz = p->bin_old_vheap_sz = p->min_vheap_size;
    p->htop = p->high_water = p->heap;
    p->hend = p->stop = p->heap + p->heap_sz;
    p->iface.alloc = proc_alloc;
    p->iface.release = proc_release;
    p->iface.offheap = &p->off_heap;
    p->msgq_last = &p->msgq;
    p->stats.heaps_allocated = 1;
    *out = p;
    return TC_OK;
}

tc_result tc_proc_new(tc_mseg *mem, const tc_policy *policy, tc_proc **out) { return proc_new(mem, policy, 0, out); }

tc_result tc_proc_spawn(tc_mseg *mem, const tc_policy *policy, uint64_t arg_words, tc_proc **out)
{
    return proc_new(mem, policy, arg_words, out);
}

void tc__proc_free_frags(tc_mseg *mem, tc_heapfrag *f)
{
    while (f) {
        tc_heapfrag *next = f->next;
        tc_heapfrag_free(mem, f);
        f = next;
    }
}

void tc_proc_free(tc_proc *p)
{
    if (!p)
        return;
    while (p->msgq) {
        tc_msg *m = p->msgq;
        p->msgq = m->next;
        if (m->frag)
            tc_heapfrag_free(p->mem, m->frag);
        tc_mem_free(m);
    }
    tc__proc_free_frags(p->mem, p->mbuf);
    tc__proc_free_frags(p->mem, p->msg_frag);
    tc_offheap_release_until(&p->off_heap, NULL);
    tc_pdict_free(p->dict);
    tc_mseg_free_block(p->mem, p->heap);
    tc_mseg_free_block(p->mem, p->old_heap);
    tc_mem_free(p);
}

tc_alloc *tc_proc_alloc(tc_proc *p) { return &p->iface; }
const tc_policy *tc_proc_policy(const tc_proc *p) { return &p->policy; }
tc_mseg *tc_proc_mem(const tc_proc *p) { return p->mem; }
tc_offheap *tc_proc_offheap(tc_proc *p) { return &p->off_heap; }
/* While a delayed GC's heap is active, erts's htop and stop are in it (the stack was copied
 * to its top): its room is what is left after its words and the stack. */
uint64_t tc_proc_heap_room(const tc_proc *p)
{
    if (p->aheap) {
        uint64_t used = p->aheap->used_size + tc_proc_stack_size(p);
        return p->aheap->alloc_size > used ? p->aheap->alloc_size - used : 0;
    }
    return (uint64_t)(p->stop - p->htop);
}

uint64_t tc_proc_heap_words_left(const tc_proc *p)
{
    uint64_t room = tc_proc_heap_room(p), keep = p->policy.redzone + (p->in_bif ? p->policy.gc_call_words : 0);
    return room > keep ? room - keep : 0;
}
uint64_t tc_proc_heap_size(const tc_proc *p) { return p->heap_sz; }
uint64_t tc_proc_heap_used(const tc_proc *p) { return (uint64_t)(p->htop - p->heap); }
uint64_t tc_proc_old_heap_size(const tc_proc *p) { return p->old_heap ? (uint64_t)(p->old_hend - p->old_heap) : 0; }
uint64_t tc_proc_min_heap_size(const tc_proc *p) { return p->min_heap_size; }
uint64_t tc_proc_frag_size(const tc_proc *p) { return p->mbuf_sz; }
uint64_t tc_proc_old_heap_used(const tc_proc *p) { return p->old_heap ? (uint64_t)(p->old_htop - p->old_heap) : 0; }
uint64_t tc_proc_high_water_used(const tc_proc *p) { return (uint64_t)(p->high_water - p->heap); }
tc_term *tc_proc_x(tc_proc *p) { return p->x; }
unsigned tc_proc_arity(const tc_proc *p) { return p->arity; }

void tc_proc_set_arity(tc_proc *p, unsigned arity)
{
    TC_ASSERT(arity <= TC_PROC_MAX_XREGS);
    p->arity = arity;
}

size_t tc_proc_stack_size(const tc_proc *p) { return (size_t)(p->hend - p->stop); }

tc_term *tc_proc_stack_slot(tc_proc *p, size_t i)
{
    TC_ASSERT(i < tc_proc_stack_size(p));
    return &p->stop[i];
}

tc_result tc_proc_push_cp(tc_proc *p)
{
    if (p->stop == p->htop)
        return TC_EBADARG;
    *--p->stop = TC_NIL;
    return TC_OK;
}

void tc_proc_pop(tc_proc *p, size_t n)
{
    TC_ASSERT(n <= tc_proc_stack_size(p));
    p->stop += n;
}

bool tc_proc_yield_requested(const tc_proc *p) { return p->yield_requested; }

int64_t tc_proc_take_reds(tc_proc *p)
{
    int64_t r = p->reds;
    p->reds = 0;
    return r;
}
const tc_proc_stats *tc_proc_stats_get(const tc_proc *p) { return &p->stats; }
size_t tc_proc_queue_len(const tc_proc *p) { return p->msgq_len; }

void tc_proc_set_trace(tc_proc *p, tc_heap_trace_fn fn, void *ctx)
{
    p->trace = fn;
    p->trace_ctx = ctx;
}

void tc_proc_set_trace_receive(tc_proc *p, bool on) { p->trace_receive = on; }
bool tc_proc_trace_receive(const tc_proc *p) { return p->trace_receive; }

void tc__proc_each_root(tc_proc *p, tc_term *objv, unsigned nobj, proc_root_fn fn, void *ctx)
{
    fn(ctx, p->stop, tc_proc_stack_size(p));
    fn(ctx, objv, nobj);
    for (tc_msg *m = p->msgq; m; m = m->next)
        if (!m->frag)
            fn(ctx, &m->term, 1);
    if (p->dict) {
        size_t n;
        tc_term *slots = tc_pdict_roots(p->dict, &n);
        fn(ctx, slots, n);
    }
}

tc_result tc_proc_dict(tc_proc *p, tc_pdict **out)
{
    if (!p->dict) {
        tc_result r = tc_pdict_new(p->policy.pdict_grow, p->mem, &p->dict);
        if (r != TC_OK)
            return r;
    }
    *out = p->dict;
    return TC_OK;
}

uint64_t tc_proc_young_use(const tc_proc *p)
{
    return (uint64_t)(p->htop - p->heap) + p->mbuf_sz + (p->aheap ? p->aheap->used_size : 0);
}

tc_heapfrag *tc_heapfrag_new(tc_mseg *mem, size_t words)
{
    if (words > (SIZE_MAX - sizeof(tc_heapfrag)) / sizeof(tc_term))
        return NULL;
    tc_heapfrag *f = tc_mseg_alloc_block(mem, sizeof *f + words * sizeof(tc_term));
    if (!f)
        return NULL;
    f->next = NULL;
    f->off_heap.first = NULL;
    f->off_heap.overhead = 0;
    f->off_heap.vheap = 0;
    f->alloc_size = words;
    f->used_size = 0;
    return f;
}

void tc_heapfrag_free(tc_mseg *mem, tc_heapfrag *f)
{
    tc_offheap_release_until(&f->off_heap, NULL);
    tc_mseg_free_block(mem, f);
}

/* Links a new HAlloc fragment whose first `need` words are handed out; with policy.frag_yield
 * (R10B-2 do_alloc's BUMP_ALL_REDS) the process yields once the fragments and their overhead
 * reach the heap's size, so the GC at its next schedule comes at once. */
static void link_frag(tc_proc *p, tc_heapfrag *f, size_t need, uint64_t counted)
{
    f->used_size = need;
    f->next = p->mbuf;
    p->mbuf = f;
    p->mbuf_sz += counted;
    if (p->policy.frag_yield && p->mbuf_sz + p->frag_overhead >= p->heap_sz)
        p->yield_requested = true;
    p->stats.frags_allocated++;
    p->stats.frag_words += f->alloc_size;
    tc_heap_event ev = {.kind = TC_HEAP_EV_FRAG, .need = need, .heap_before = p->heap_sz,
                        .young_before = tc_proc_young_use(p), .heap_after = p->heap_sz,
                        .used_after = (uint64_t)(p->htop - p->heap), .frag_words = f->alloc_size};
    if (p->old_heap)
        ev.old_heap_after = (uint64_t)(p->old_hend - p->old_heap);
    proc_emit(p, &ev);
}

/* erts_heap_alloc, OTP 20+ (frag_rule exact): the head fragment's tail, else a fragment of
 * exactly need. */
static tc_term *halloc_exact(tc_proc *p, size_t need)
{
    tc_heapfrag *f = p->mbuf;
    if (f && f != p->aheap && need <= f->alloc_size - f->used_size) { /* a tail HRelease gave back */
        tc_term *hp = f->mem + f->used_size;
        f->used_size += need;
        p->mbuf_sz += need;
        return hp;
    }
    f = tc_heapfrag_new(p->mem, need);
    if (!f)
        return NULL;
    link_frag(p, f, need, need);
    return f->mem;
}

/* erts_heap_alloc, R13B01 (frag_rule fill): a fragment of exactly need, and the heap's free
 * words up to HEAP_LIMIT are given up under a bignum header ("When we have created a heap
 * fragment, we are no longer allowed to store anything more on the heap"): they count as used
 * until the next GC, which never reaches them. */
static tc_term *halloc_fill(tc_proc *p, size_t need)
{
    tc_heapfrag *f = tc_heapfrag_new(p->mem, need);
    if (!f)
        return NULL;
    uint64_t left = tc_proc_heap_words_left(p);
    if (left > 0) {
        p->htop[0] = TC_MAKE_HEADER(left - 1, TC_SUBTAG_POS_BIG);
        p->htop += left;
    }
    link_frag(p, f, need, need);
    return f->mem;
}

/* do_alloc, R10B-2 (frag_rule arith): the arith heap's tail, else a fragment with slack that
 * becomes it. */
static tc_term *halloc_arith(tc_proc *p, size_t need)
{
    if (need <= p->arith_avail) {
        tc_heapfrag *f = p->arith_frag;
        tc_term *hp = f->mem + f->used_size;
        f->used_size += need;
        p->arith_avail -= need;
        return hp;
    }
    size_t n = need;
    bool new_arith = p->arith_avail < 16 || n < 64;
    if (new_arith) {
        n = p->min_heap_size / 2 + need;
        if (n > 16 * 1024 && n > 2 * need)
            n = 2 * need;
    }
    tc_heapfrag *f = tc_heapfrag_new(p->mem, n);
    if (!f)
        return NULL;
    if (new_arith) {
        p->arith_frag = f;
        p->arith_avail = n - need;
    }
    p->frag_overhead += TC_ARITH_FRAG_OVERHEAD;
    link_frag(p, f, need, n);
    return f->mem;
}

/* A process on a delayed GC's heap takes no message on its heap (see proc.h). */
tc_term *tc_proc_heap_reserve(tc_proc *p, size_t words)
{
    return !p->aheap && tc_proc_heap_room(p) >= words ? p->htop : NULL;
}

void tc_proc_heap_commit(tc_proc *p, size_t words)
{
    TC_ASSERT(tc_proc_heap_room(p) >= words);
    p->htop += words;
}

tc_term *tc_proc_halloc_frag(tc_proc *p, size_t need)
{
    return p->policy.frag_rule == TC_FRAG_ARITH ? halloc_arith(p, need) : halloc_exact(p, need);
}

tc_term *tc_proc_halloc_x(tc_proc *p, size_t need, size_t xtra)
{
    if (p->policy.frag_rule != TC_FRAG_EXACT || p->aheap || p->policy.gc_stress || tc_proc_heap_words_left(p) >= need)
        return tc_proc_halloc(p, need);
    tc_heapfrag *f = p->mbuf;
    if (f && need <= f->alloc_size - f->used_size)
        return halloc_exact(p, need);
    if (!(f = tc_heapfrag_new(p->mem, need + xtra)))
        return NULL;
    link_frag(p, f, need, need);
    return f->mem;
}

tc_term *tc_proc_halloc(tc_proc *p, size_t need)
{
    size_t room = (size_t)tc_proc_heap_words_left(p);
    bool arith = p->policy.frag_rule == TC_FRAG_ARITH;
    if (p->aheap && need > 0 && room >= need && !p->policy.gc_stress) {
        tc_term *hp = p->aheap->mem + p->aheap->used_size;
        p->aheap->used_size += need;
        return hp;
    }
    if (p->aheap)
        return halloc_exact(p, need); /* the abandoned heap takes nothing more */
    if (need == 0 || (!p->policy.gc_stress && (arith ? room > need : room >= need))) {
        tc_term *hp = p->htop;
        p->htop += need;
        return hp;
    }
    return arith ? halloc_arith(p, need) : p->policy.frag_rule == TC_FRAG_FILL ? halloc_fill(p, need) : halloc_exact(p, need);
}

void tc__proc_splice_offheap(tc_offheap *into, tc_offheap *from)
{
    tc_term *pb = from->first;
    if (!pb)
        return;
    while (pb[TC_OH_NEXT])
        pb = (tc_term *)(uintptr_t)pb[TC_OH_NEXT];
    pb[TC_OH_NEXT] = (tc_term)(uintptr_t)into->first;
    into->first = from->first;
    into->overhead += from->overhead;
    into->vheap += from->vheap; /* erl_message.c erts_link_mbuf_to_proc, copy.c erts_move_multi_frags */
    from->first = NULL;
    from->overhead = 0;
    from->vheap = 0;
}

tc_heapfrag *tc_proc_bif_enter(tc_proc *p)
{
    p->in_bif = true;
    return p->mbuf;
}

void tc_proc_bif_trap(tc_proc *p, tc_heapfrag *live_hf_end)
{
    if (p->hf_saved)
        return; /* a later trap keeps the first one's */
    p->hf_saved = true;
    p->hf_saved_end = live_hf_end;
}

/* ERTS_IS_GC_DESIRED: fragments outgrew the free heap, the binaries the binary virtual heap,
 * or a delayed GC is pending (F_FORCE_GC). */
bool tc_proc_gc_desired(const tc_proc *p)
{
    return tc_proc_heap_room(p) < p->mbuf_sz || proc_bin_vheap_full(p) || (p->flags & TC_PROC_FORCE_GC);
}

void tc_proc_set_delay_gc(tc_proc *p, bool on)
{
    if (on)
        p->flags |= TC_PROC_DELAY_GC;
    else
        p->flags &= ~TC_PROC_DELAY_GC;
}

tc_proc_bin_vheap tc_proc_bin_vheap_get(const tc_proc *p)
{
    return (tc_proc_bin_vheap){.size = p->off_heap.vheap, .block_size = p->bin_vheap_sz,
                               .old_size = p->bin_old_vheap, .old_block_size = p->bin_old_vheap_sz,
                               .min_size = p->min_vheap_size};
}

tc_result tc_proc_queue_message(tc_proc *p, tc_term term, tc_heapfrag *frag)
{
    tc_msg *m = tc_mem_alloc(sizeof *m);
    if (!m)
        return TC_ENOMEM;
    m->next = NULL;
    m->term = term;
    m->frag = frag;
    if (frag && p->policy.msg_frag == TC_MSG_FRAG_MBUF) {
        /* R10B-2 queue_message_tt: the buffer joins MBUF at once; the term is a root. */
        tc__proc_splice_offheap(&p->off_heap, &frag->off_heap);
        frag->next = p->mbuf;
        p->mbuf = frag;
        p->mbuf_sz += frag->alloc_size;
        m->frag = NULL;
    }
    *p->msgq_last = m;
    p->msgq_last = &m->next;
    p->msgq_len++;
    return TC_OK;
}

bool tc_proc_receive(tc_proc *p, tc_term *out)
{
    tc_msg *m = p->msgq;
    if (!m)
        return false;
    p->msgq = m->next;
    if (!p->msgq)
        p->msgq_last = &p->msgq;
    p->msgq_len--;
    if (m->frag) {
        /* erts_save_message_in_proc: the data stays where it is and becomes young. */
        tc__proc_splice_offheap(&p->off_heap, &m->frag->off_heap);
        m->frag->next = p->msg_frag;
        p->msg_frag = m->frag;
        p->mbuf_sz += m->frag->used_size;
    }
    *out = m->term;
    tc_mem_free(m);
    return true;
}

tc_result tc_proc_add_literal_area(tc_proc *p, const tc_term *start, size_t words)
{
    if (p->nlit == TC_PROC_MAX_LITERAL_AREAS)
        return TC_ELIMIT;
    p->lit_start[p->nlit] = start;
    p->lit_end[p->nlit] = start + words;
    p->nlit++;
    return TC_OK;
}

bool tc_proc_literal_area(const tc_proc *p, unsigned i, const tc_term **start, const tc_term **end)
{
    if (i >= p->nlit)
        return false;
    *start = p->lit_start[i];
    *end = p->lit_end[i];
    return true;
}
