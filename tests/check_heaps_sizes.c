/*
 * Heap sizes: the tables, next_heap_size, HAlloc's fragment sizing, and grow/shrink
 * sequences compared with worked examples computed by hand from the rules in gc.h (the
 * arithmetic is in each test's comment). Also min_heap_size and fullsweep_after.
 * These pin the exact sequences, so they ignore TC_GC_STRESS (extra GCs change every
 * size); the property and allocation-failure suites run under it.
 */
#include "heaps/proc_impl.h"
#include "fixtures.h"
#include "heaps/gc.h"
#include "heaps/proc.h"
#include "heaps/verify.h"

typedef struct rig {
    tc_mseg *mem;
    tc_proc *p;
    tc_heap_event ev[64];
    unsigned nev;
} rig;

static void record(void *ctx, const tc_proc *p, const tc_heap_event *ev)
{
    (void)p;
    rig *r = ctx;
    if (ev->kind != TC_HEAP_EV_FRAG && r->nev < 64)
        r->ev[r->nev++] = *ev;
}

static void rig_init(rig *r, tc_policy pol, size_t stack_words)
{
    r->nev = 0;
    r->mem = tc_mseg_new(&pol.mem);
    ck_assert(r->mem != NULL);
    ck_assert(tc_proc_new(r->mem, &pol, &r->p) == TC_OK);
    tc_proc_set_trace(r->p, record, r);
    for (size_t i = 0; i < stack_words; i++)
        ck_assert(tc_proc_push_maybe_gc(r->p, tc_make_small((int64_t)i)) == TC_OK);
}

static void rig_done(rig *r)
{
    const char *why;
    ck_assert_msg(tc_heap_verify(r->p, &why), "%s", why);
    tc_proc_free(r->p);
    ck_assert_uint_eq(tc_mseg_stats_get(r->mem)->live_blocks, 0);
    tc_mseg_free(r->mem);
}

/* An ETS lookup result laid out as one block: [list of n ints][{Key, List}][cons] = 2n+5 words. */
static tc_term fill_result(tc_term *hp, size_t n, int64_t key)
{
    tc_term tail = TC_NIL;
    for (size_t i = n; i-- > 0;) {
        tc_term *cell = &hp[2 * (n - 1 - i)];
        cell[0] = tc_make_small((int64_t)i + 1);
        cell[1] = tail;
        tail = tc_make_list(cell);
    }
    tc_term *tup = &hp[2 * n];
    tup[0] = TC_MAKE_HEADER(2, TC_SUBTAG_ARITYVAL);
    tup[1] = tc_make_small(key);
    tup[2] = tail;
    tc_term *cons = &hp[2 * n + 3];
    cons[0] = tc_make_boxed(tup);
    cons[1] = TC_NIL;
    return tc_make_list(cons);
}

/* One lookup: a BIF that HAllocs the whole result and fills it; then the caller drops it
 * (keep = false) or keeps it in x0. */
static void lookup(rig *r, size_t n, bool keep)
{
    tc_proc *p = r->p;
    tc_heapfrag *live = tc_proc_bif_enter(p);
    tc_term *hp = tc_proc_halloc(p, 2 * n + 5);
    ck_assert(hp != NULL);
    tc_term res = fill_result(hp, n, 1);
    ck_assert(tc_proc_bif_return_maybe_gc(p, live, &res) == TC_OK);
    p->x[0] = res;
    p->arity = keep ? 1 : 0;
    const char *why;
    ck_assert_msg(tc_heap_verify(p, &why), "%s", why);
}

START_TEST(tables)
{
    static const uint64_t modern[] = {12, 38, 51, 90, 142, 233, 376, 610, 987, 1598, 2586, 4185, 6772,
                                      10958, 17731, 28690, 46422, 75113, 121536, 196650, 318187, 514838,
                                      833026, 999631, 1199557, 1439468};
    static const uint64_t r10b[] = {34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765,
                                    10946, 17711, 28657, 46368, 75025, 121393};
    for (unsigned i = 0; i < sizeof modern / sizeof *modern; i++)
        ck_assert_uint_eq(tc_heap_size_at(TC_HEAP_TABLE_FIB_PLUS1, i), modern[i]);
    for (unsigned i = 0; i < sizeof r10b / sizeof *r10b; i++)
        ck_assert_uint_eq(tc_heap_size_at(TC_HEAP_TABLE_FIB_SLOW, i), r10b[i]);
    /* The +20 % stage stops below 2^53 bytes. */
    unsigned n = tc_heap_sizes_count(TC_HEAP_TABLE_FIB_PLUS1);
    ck_assert_uint_le(tc_heap_size_at(TC_HEAP_TABLE_FIB_PLUS1, n - 1), (UINT64_C(1) << 53) / 8);
    ck_assert_uint_eq(tc_heap_size_at(TC_HEAP_TABLE_FIB_PLUS1, n), 0);

    tc_heap_table m = TC_HEAP_TABLE_FIB_PLUS1;
    ck_assert_uint_eq(tc_heap_next_size(m, 5, 0), 12);
    ck_assert_uint_eq(tc_heap_next_size(m, 5, 1), 12); /* below the first entry: the first */
    ck_assert_uint_eq(tc_heap_next_size(m, 233, 0), 233);
    ck_assert_uint_eq(tc_heap_next_size(m, 233, 1), 376);
    ck_assert_uint_eq(tc_heap_next_size(m, 234, 0), 376);
    ck_assert_uint_eq(tc_heap_next_size(m, 20009, 0), 28690);  /* brief 7.2 step 1 */
    ck_assert_uint_eq(tc_heap_next_size(m, 40016, 1), 75113);  /* brief 7.2 step 2, old heap */
    ck_assert_uint_eq(tc_heap_next_size(m, 80020, 0), 121536); /* brief 7.2 step 4 */
    ck_assert_uint_eq(tc_heap_next_size(TC_HEAP_TABLE_FIB_SLOW, 233 + 2121, 0), 2584); /* brief 7.3 */
}
END_TEST

/* policy.frag_yield (R10B-2 do_alloc's BUMP_ALL_REDS): a new fragment that brings mbuf_sz and
 * the fragments' overhead to the heap's size asks the process to yield, under either HAlloc
 * rule; off, the fragment is the same and no yield is asked for. */
START_TEST(frag_yield_asks_for_a_yield)
{
    static const char *const eras[] = {"r10b", "otp25"};
    for (int e = 0; e < 2; e++)
        for (int on = 0; on < 2; on++) {
            rig r;
            tc_policy pol = tc_preset_ok(eras[e]);
            ck_assert_int_eq(tc_policy_set(&pol, on ? "frag_yield=on" : "frag_yield=off", NULL, 0), TC_OK);
            rig_init(&r, pol, 0);
            tc_proc *p = r.p;
            /* 300 words do not fit the empty 233-word heap: a fragment past its size */
            ck_assert(tc_proc_halloc(p, 300) != NULL);
            for (size_t i = 0; i < 300; i++)
                p->mbuf->mem[i] = TC_NIL;
            ck_assert_uint_eq(p->mbuf_sz, e == 0 ? 116 + 300 : 300); /* r10b: min_heap/2 + need */
            ck_assert(p->yield_requested == (bool)on);
            rig_done(&r);
            /* a fragment below the heap's size: no yield either way */
            rig_init(&r, pol, 0);
            p = r.p;
            tc_term *hp = tc_proc_halloc(p, 200);
            ck_assert_ptr_eq(hp, p->heap);
            for (size_t i = 0; i < 200; i++)
                hp[i] = TC_NIL;
            ck_assert(tc_proc_halloc(p, 100) != NULL);
            for (size_t i = 0; i < 100; i++)
                p->mbuf->mem[i] = TC_NIL;
            ck_assert_uint_eq(p->mbuf_sz, e == 0 ? 116 + 100 : 100);
            ck_assert(!p->yield_requested); /* 216 + 6 of overhead (r10b) or 100: under 233 */
            rig_done(&r);
        }
}
END_TEST

/*
 * HAlloc overflow, R10B do_alloc (min_heap 233, no stack):
 *   HAlloc(232): 233 > 232: bumped, 1 word left.
 *   HAlloc(233): 1 > 233 fails -> arith 0 < 16 -> 116 + 233 = 349 words,
 *                arith tail 116; mbuf 349 + 6 overhead >= 233 -> must yield.
 *   HAlloc(100): fits the arith tail (100 <= 116) -> same fragment, tail 16.
 *   HAlloc(70):  tail 16 >= 16 and 70 >= 64 -> a fragment of exactly 70; the tail stays.
 *   HAlloc(20):  20 > 16: not from the tail; 20 < 64 -> 116 + 20 = 136, the new tail
 *                is 116. mbuf = 349 + 70 + 136 = 555.
 *   HAlloc(40000): tail 116 >= 16 but 40000 >= 64 -> exactly 40000.
 *   HAlloc(30000) after a GC (tail 0): 116 + 30000 = 30116 > 16K and > 2*30000? no -> 30116.
 * R10B compares with `<=`: HAlloc(233) on an empty 233-word heap makes a fragment:
 *   116 + 233 = 349.
 * OTP25 (free 233): HAlloc(233) bumps (`<`); HAlloc(1): new fragment of exactly 1;
 *   HAlloc(1) again: no room in the head fragment -> another of 1; mbuf_sz = 2.
 */
START_TEST(fragment_sizing)
{
    rig r;
    rig_init(&r, tc_preset_ok("r10b"), 0);
    tc_proc *p = r.p;
    ck_assert(tc_proc_halloc(p, 232) == p->heap);
    for (size_t i = 0; i < 232; i++)
        p->heap[i] = TC_NIL;
    ck_assert(tc_proc_halloc(p, 233) != NULL);
    ck_assert_ptr_eq(p->htop, p->heap + 232);
    ck_assert_uint_eq(p->mbuf->alloc_size, 349);
    ck_assert_uint_eq(p->arith_avail, 116);
    ck_assert(p->yield_requested);
    tc_heapfrag *first = p->mbuf;
    ck_assert(tc_proc_halloc(p, 100) != NULL);
    ck_assert_ptr_eq(p->mbuf, first);
    ck_assert_uint_eq(p->arith_avail, 16);
    ck_assert(tc_proc_halloc(p, 70) != NULL);
    ck_assert_uint_eq(p->mbuf->alloc_size, 70);
    ck_assert_uint_eq(p->arith_avail, 16);
    ck_assert(tc_proc_halloc(p, 20) != NULL);
    ck_assert_uint_eq(p->mbuf->alloc_size, 136);
    ck_assert_uint_eq(p->arith_avail, 116);
    ck_assert_uint_eq(p->mbuf_sz, 349 + 70 + 136);
    ck_assert_uint_eq(p->frag_overhead, 3 * 6);
    ck_assert(tc_proc_halloc(p, 40000) != NULL);
    ck_assert_uint_eq(p->mbuf->alloc_size, 40000);
    /* The fragments hold no terms yet: fill them so the GC and the verifier can walk them. */
    for (tc_heapfrag *f = p->mbuf; f; f = f->next)
        for (size_t i = 0; i < f->used_size; i++)
            f->mem[i] = TC_NIL;
    ck_assert(tc_gc_collect(p, 0, NULL, 0) == TC_OK);
    ck_assert_uint_eq(p->arith_avail, 0);
    ck_assert(tc_proc_halloc(p, 30000) != NULL);
    ck_assert_uint_eq(p->mbuf->alloc_size, 30116);
    for (size_t i = 0; i < 30000; i++)
        p->mbuf->mem[i] = TC_NIL;
    rig_done(&r);

    rig_init(&r, tc_preset_ok("r10b"), 0);
    p = r.p;
    ck_assert(tc_proc_halloc(p, 233) != NULL);
    ck_assert_ptr_eq(p->htop, p->heap);
    ck_assert_uint_eq(p->mbuf->alloc_size, 349);
    for (size_t i = 0; i < 233; i++)
        p->mbuf->mem[i] = TC_NIL;
    rig_done(&r);

    rig_init(&r, tc_preset_ok("otp25"), 0);
    p = r.p;
    /* HAllocX bumps only up to HEAP_LIMIT = stop - S_REDZONE: 233 words of a 233-word heap
     * with no stack go to a fragment, 230 fill it to the redzone. */
    ck_assert(tc_proc_halloc(p, 233) != NULL);
    ck_assert_ptr_eq(p->htop, p->heap);
    ck_assert_uint_eq(p->mbuf->alloc_size, 233);
    for (size_t i = 0; i < 233; i++)
        p->mbuf->mem[i] = TC_NIL;
    rig_done(&r);

    rig_init(&r, tc_preset_ok("otp25"), 0);
    p = r.p;
    ck_assert(tc_proc_halloc(p, 230) != NULL);
    ck_assert_ptr_eq(p->htop, p->hend - 3);
    ck_assert_uint_eq(tc_proc_heap_words_left(p), 0);
    ck_assert(tc_proc_halloc(p, 1) != NULL);
    ck_assert(tc_proc_halloc(p, 1) != NULL);
    ck_assert_uint_eq(p->mbuf->alloc_size, 1);
    ck_assert_uint_eq(p->mbuf->next->alloc_size, 1);
    ck_assert_uint_eq(p->mbuf_sz, 2);
    for (size_t i = 0; i < 230; i++)
        p->heap[i] = TC_NIL;
    p->mbuf->mem[0] = p->mbuf->next->mem[0] = TC_NIL;
    rig_done(&r);
}
END_TEST

/*
 * The brief's 7.2 hand trace: OTP25 with the C macro's word test after the BIF and no
 * long-GC delay (policy.h: bif_gc_test WORDS, long_gc_words 0; the interpreter's or an
 * arm64 JIT's rule, not this machine's VM, see otp25_ets_loop_vm). Stack of 4 words, a
 * 20,005-word result (n = 10,000) taken in a loop that drops it:
 *  L1: free 229 < 20005 -> fragment; GC-after-BIF. No old heap and nothing mature -> a
 *      major GC: new heap next(4 + 20005) = 28690; the fragment moves whole (20005 words);
 *      need_after 20009: not > 28690, 4*20009 = 80036 > 3*28690 = 86070? no, < 25 %? no.
 *  L2: free 28690-20005-4 = 8681 -> fragment, GC. Mature 20005 -> old heap
 *      next(20005 + 20005, +1) = 75113. Minor: new heap next(4 + 40010) = 46422, the dead
 *      L1 result is not promoted; 20005 moved. Shrink? 4*20009 = 80036 > 46422: no.
 *  L3: free 46422-20005-4 = 26413 >= 20005: bumped on the heap, no GC.
 *  L4: free 6408 -> fragment, GC: new heap next(4 + 40010 + 20005) = 75113.
 *  L5, L6: bumped (free 55104, 35099). L7: free 15094 -> GC: young use 80020, new heap
 *      next(80024) = 121536; then shrink: 121536 > 3000, 80036 < 121536, > 8000;
 *      wanted 3*20009 = 60027 (60027*9 > 75113: no floor) -> next = 75113.
 *  Then every third lookup repeats L7: 75113 -> 121536 -> 75113, 20005 words moved.
 */
START_TEST(otp25_ets_loop_word_test)
{
    rig r;
    tc_policy pol = tc_preset_ok("otp25");
    pol.bif_gc_test = TC_BIF_GC_WORDS;
    pol.long_gc_words = 0;
    rig_init(&r, pol, 4);
    static const uint64_t heap_after[] = {28690, 46422, 46422, 75113, 75113, 75113, 75113, 75113, 75113, 75113};
    for (unsigned i = 0; i < 10; i++) {
        lookup(&r, 10000, false);
        ck_assert_uint_eq(r.p->heap_sz, heap_after[i]);
    }
    ck_assert_uint_eq(r.nev, 5); /* GCs at lookups 1, 2, 4, 7, 10 */
    ck_assert(r.ev[0].kind == TC_HEAP_EV_MAJOR && r.ev[0].heap_after == 28690 && r.ev[0].copied == 20005);
    ck_assert(r.ev[1].kind == TC_HEAP_EV_MINOR && r.ev[1].old_heap_created && r.ev[1].old_heap_after == 75113);
    ck_assert(r.ev[1].heap_after == 46422 && r.ev[1].copied == 20005 && r.ev[1].young_before == 40010);
    ck_assert(r.ev[2].heap_after == 75113 && r.ev[2].resized == 0 && r.ev[2].young_before == 60015);
    for (unsigned i = 3; i < 5; i++) {
        ck_assert_uint_eq(r.ev[i].young_before, 80020);
        ck_assert_uint_eq(r.ev[i].resized, -1);
        ck_assert_uint_eq(r.ev[i].heap_after, 75113);
        ck_assert_uint_eq(r.ev[i].copied, 20005);
    }
    ck_assert_uint_eq(r.p->stats.frag_words_moved, 5 * 20005);
    ck_assert_uint_eq(r.p->stats.shrinks, 2);
    /* 121536 words (238 pages) shrunk to 75113 (147 pages): 91 pages = 37 % < rsbcst 50 %,
     * so the carrier keeps its size (no remap). */
    ck_assert_uint_eq(tc_mseg_stats_get(r.mem)->sbc_remaps, 0);
    ck_assert(tc_mseg_block_is_sbc(r.p->heap));
    rig_done(&r);
}
END_TEST

/*
 * The same loop under the otp25 preset, which is this machine's VM (OTP 25, x86-64 JIT):
 * the GC-after-BIF test compares free bytes with fragment words (8·free < mbuf_sz + 3)
 * and a GC of 128 Ki words or more is delayed to the next schedule (policy.h). Each
 * GC below is the VM's, heap sizes and all, from experiments/beam/gctrace.erl --len 10000
 * (its heap use runs 3 to 16 words above the model's: the VM's loop keeps a few more).
 *  L1: free 229, 8*229 = 1832 < 20008 -> GC: major (no old heap, nothing mature), new heap
 *      next(4 + 20005) = 28690, 20005 words moved.                     [VM: major, 28690]
 *  L2-L4: free 8681, 8*8681 = 69448 >= 20005*k + 3 for k = 1..3: fragments, no GC.
 *  L5: 80023 > 69448 -> GC with the result live; young 20005 + 80020 = 100025, + stack
 *      100029 < 131072: not long. Mature 20005 -> old heap next(100025, +1) = 196650; new
 *      heap next(100029) = 121536; shrink: 4*20009 < 121536, > 8000, wanted 60027 (no old/8
 *      floor: 540243 > 196650) -> 75113.            [VM: minor, 75113, old heap 196650]
 *  L6, L7: bumped (free 55104, 35099). L8: free 15094, 8*15094 = 120752: fragments up to
 *      6*20005 + 3 = 120033; L14: 140038 > 120752 -> desired, but young 60015 + 140035 + 4
 *      = 200054 >= 131072: delayed, the process yields with nothing of the result live.
 *  At the schedule: minor GC, new heap next(200054) = 318187, nothing live (the L5 result
 *      is mature but dead), need_after 4: wanted 12, 12*9 < 196650 -> old/8 = 24581 ->
 *      28690.                                    [VM: minor after a dirty reschedule, 0 live, 28690]
 *  L15: bumped (free 28686). L16-L18 fragments as L2-L4; L19 GC as L5 (mature 0 now).
 *  So from L14 on, two GCs every 14 lookups: 2 + 2*71 = 144 GCs in 1000 lookups. [VM: 144]
 * Memory: the L5 new heap's carrier (121536 words, 238 pages) shrunk to 75113 (147 pages)
 * is 38 % smaller, < rsbcst 50 %: kept as it is. The delayed GC's 318187-word heap shrunk
 * to 28690 words stays in its sbc (a 57-page carrier is not 80 % slack: rsbcmt) and loses
 * its tail (91 % >= 50 %): one remap. The delayed GC runs on a dirty scheduler, so that heap
 * is allocator instance 0's (erl_alloc.c: a dirty scheduler's alc_ix is 0); the L19 GC on the
 * scheduler allocates from instance 1 and frees it into instance 0's segment cache.
 */
START_TEST(otp25_ets_loop_vm)
{
    rig r;
    rig_init(&r, tc_preset_ok("otp25"), 4);
    tc_proc *p = r.p;
    static const uint64_t heap_after[] = {28690, 28690, 28690, 28690, 75113, 75113, 75113, 75113, 75113, 75113,
                                          75113, 75113, 75113, 28690, 28690, 28690, 28690, 28690, 75113, 75113};
    for (unsigned i = 0; i < 20; i++) {
        lookup(&r, 10000, false);
        ck_assert_uint_eq(p->yield_requested, i == 13);
        if (p->yield_requested) {
            ck_assert(p->flags & TC_PROC_FORCE_GC);
            ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
            ck_assert(!(p->flags & TC_PROC_FORCE_GC));
        }
        ck_assert_uint_eq(p->heap_sz, heap_after[i]);
        if (i == 4) /* 238 pages to 147: the carrier keeps its size */
            ck_assert_uint_eq(tc_mseg_stats_get(r.mem)->sbc_remaps, 0);
        if (i == 13) /* the delayed GC ran on a dirty scheduler: its heap is instance 0's */
            ck_assert_uint_eq(tc_mseg_block_instance(r.mem, p->heap), TC_MSEG_DIRTY_INSTANCE);
        if (i == 18) { /* back on the scheduler: instance 1's heap; the old one went home */
            ck_assert_uint_eq(tc_mseg_block_instance(r.mem, p->heap), 1);
            ck_assert_uint_eq(tc_mseg_instance_cached(r.mem, TC_MSEG_DIRTY_INSTANCE), 1);
        }
    }
    ck_assert_uint_eq(r.nev, 4); /* GCs at lookups 1, 5, 14 (delayed), 19 */
    ck_assert(r.ev[0].kind == TC_HEAP_EV_MAJOR && r.ev[0].heap_after == 28690 && r.ev[0].copied == 20005);
    ck_assert(r.ev[1].kind == TC_HEAP_EV_MINOR && r.ev[1].old_heap_created && r.ev[1].old_heap_after == 196650);
    ck_assert(r.ev[1].young_before == 100025 && r.ev[1].heap_new == 121536 && r.ev[1].heap_after == 75113);
    ck_assert(r.ev[2].young_before == 200050 && r.ev[2].heap_new == 318187 && r.ev[2].heap_after == 28690);
    ck_assert_uint_eq(r.ev[2].copied, 0);
    ck_assert(r.ev[3].young_before == 100025 && r.ev[3].heap_after == 75113 && r.ev[3].copied == 20005);
    ck_assert_uint_eq(p->stats.gcs_after_bif, 3);
    ck_assert_uint_eq(p->stats.gcs_delayed, 1);
    ck_assert_uint_eq(p->stats.gcs_at_schedule, 1);
    ck_assert_uint_eq(tc_mseg_stats_get(r.mem)->sbc_remaps, 1);
    ck_assert(tc_mseg_block_is_sbc(p->heap));
    for (unsigned i = 20; i < 1000; i++) {
        lookup(&r, 10000, false);
        if (p->yield_requested)
            ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
    }
    ck_assert_uint_eq(p->stats.minor_gcs + p->stats.major_gcs, 144);
    rig_done(&r);
}
END_TEST

/* The same loop with one allocator instance for every thread (alloc_instances=1, the VM's
 * +Mut false): the GCs are the same, but the dirty GC's heap comes from the one instance, so
 * no block is ever freed by a thread that does not own it (erl_alloc_util.c
 * erts_alcu_free_thr_pref frees it in place instead of queueing it for its owner). */
START_TEST(otp25_ets_loop_one_instance)
{
    tc_policy pol = tc_preset_ok("otp25");
    char err[160];
    ck_assert_msg(tc_policy_set(&pol, "alloc_instances=1", err, sizeof err) == TC_OK, "%s", err);
    rig r;
    rig_init(&r, pol, 4);
    tc_proc *p = r.p;
    ck_assert_uint_eq(tc_mseg_instances(r.mem), 1);
    for (unsigned i = 0; i < 20; i++) {
        lookup(&r, 10000, false);
        ck_assert_uint_eq(p->yield_requested, i == 13);
        if (p->yield_requested)
            ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
        ck_assert_uint_eq(tc_mseg_block_instance(r.mem, p->heap), 0);
    }
    ck_assert_uint_eq(r.nev, 4); /* GCs at lookups 1, 5, 14 (delayed), 19, as with two */
    ck_assert(r.ev[2].young_before == 200050 && r.ev[2].heap_new == 318187 && r.ev[2].heap_after == 28690);
    ck_assert_uint_eq(p->stats.gcs_delayed, 1);
    /* lookup 19's GC freed the dirty GC's heap into the one cache */
    ck_assert_uint_ge(tc_mseg_instance_cached(r.mem, 0), 1);
    rig_done(&r);
}
END_TEST

/*
 * The payload-length bands of fresh memory (the VM: experiments/beam/gctrace.erl --summary,
 * mseg_alloc counters over 1000 lookups: L=4250 200 creates, 199 reallocs, 190 destroys,
 * 1 cache hit; L=4500 none of its own). Stack 4.
 * L=4250 (8505 words): L1 major -> 10958. L4 (free 2449, 19592 < 25518) GC: young 34020,
 *   old heap next(34020, +1) = 75113 (an sbc), new heap next(34024) = 46422, shrunk to
 *   next(3*8509) = 28690. L5, L6 bumped; L7-L9 fragments, L9 GC: young 51030 -> new heap
 *   75113 (147 pages, an sbc, mapped fresh: the cache is empty), shrunk to 28690 words: it
 *   stays an sbc, cut to 57 pages. Every 5th lookup repeats L9: the cache fills with
 *   57-page carriers, none of which holds a 147-page heap, so every GC maps fresh memory.
 *   [VM: 28690 heap, old heap 75113, a GC every 5 lookups]
 * L=4500 (9005 words): L1 -> 10958; L3 GC: young 27015, old heap next(27015, +1) = 46422,
 *   new heap 28690, no shrink. Then every 4th lookup: young 45025 -> new heap 46422 (363
 *   KiB, below sbct) shrunk to 28690. No sbc ever.   [VM: old heap 46422, 28690 heap]
 */
START_TEST(otp25_ets_loop_mseg_bands)
{
    rig r;
    rig_init(&r, tc_preset_ok("otp25"), 4);
    for (unsigned i = 0; i < 29; i++)
        lookup(&r, 4250, false);
    const tc_mseg_stats *st = tc_mseg_stats_get(r.mem);
    ck_assert_uint_eq(r.nev, 7); /* lookups 1, 4, 9, 14, 19, 24, 29 */
    ck_assert_uint_eq(r.p->heap_sz, 28690);
    ck_assert_uint_eq(r.p->old_hend - r.p->old_heap, 75113);
    ck_assert_uint_eq(st->cache_misses, 6); /* the old heap and the new heaps at 9 .. 29 */
    ck_assert_uint_eq(st->cache_hits, 0);
    ck_assert_uint_eq(st->sbc_remaps, 5);
    ck_assert_uint_eq(tc_mseg_cached(r.mem), 4);
    rig_done(&r);

    rig_init(&r, tc_preset_ok("otp25"), 4);
    for (unsigned i = 0; i < 31; i++)
        lookup(&r, 4500, false);
    st = tc_mseg_stats_get(r.mem);
    ck_assert_uint_eq(r.nev, 9); /* lookups 1, 3, 7, 11, ..., 31 */
    ck_assert_uint_eq(r.p->heap_sz, 28690);
    ck_assert_uint_eq(r.p->old_hend - r.p->old_heap, 46422);
    ck_assert_uint_eq(st->sbc_blocks, 0);
    rig_done(&r);
}
END_TEST

/*
 * The brief's 7.3 trace with 64-bit words, R10B, stack 4, 2,005-word result (n = 1000),
 * dropped before the next schedule:
 *  HAlloc(2005): free 229 -> fragment 116 + 2005 = 2121, yield (2121 + 6 >= 233).
 *  At schedule: a minor GC (no mature data, so no old heap): new heap next(233 + 2121) =
 *  2584; nothing live but the stack; need_after 4: 2584 > 300, 16 < 2584, 2584 > old (0):
 *  wanted 12 < 233 -> shrink to 233. Every lookup: 233 -> 2584 -> 233.
 * Kept live instead (x0 = result at the schedule): the GC copies 2005 words, need_after
 * 2009, 4*2009 > 2584: no shrink, 2584 >= 2009: done. Next lookup: free 2584-2005-4 = 575
 * -> fragment 2121 (arith tail 116), 2127 < 2584: no yield. The one after: tail 116 >= 16
 * and 2005 >= 64 -> exactly 2005; mbuf 4126 + 12 >= 2584 -> yield.
 */
START_TEST(r10b_ets_loop)
{
    rig r;
    rig_init(&r, tc_preset_ok("r10b"), 4);
    tc_proc *p = r.p;
    for (unsigned i = 0; i < 5; i++) {
        lookup(&r, 1000, false);
        ck_assert(p->yield_requested);
        ck_assert_uint_eq(p->mbuf_sz, 2121);
        ck_assert_uint_eq(p->heap_sz, 233);
        ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
        ck_assert_uint_eq(p->heap_sz, 233);
        ck_assert_uint_eq(r.ev[r.nev - 1].heap_before, 233);
        ck_assert_uint_eq(r.ev[r.nev - 1].resized, -1);
        ck_assert_uint_eq(r.ev[r.nev - 1].copied, 0);
    }
    ck_assert_uint_eq(p->stats.minor_gcs, 5);
    ck_assert_uint_eq(p->stats.shrinks, 5);
    ck_assert_ptr_eq(p->old_heap, NULL);

    lookup(&r, 1000, true);
    ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
    ck_assert_uint_eq(p->heap_sz, 2584);
    ck_assert_uint_eq(r.ev[r.nev - 1].copied, 2005);
    lookup(&r, 1000, true);
    ck_assert_uint_eq(p->mbuf_sz, 2121);
    ck_assert(!p->yield_requested);
    lookup(&r, 1000, true);
    ck_assert_uint_eq(p->mbuf->alloc_size, 2005);
    ck_assert_uint_eq(p->mbuf_sz, 4126);
    ck_assert(p->yield_requested);
    rig_done(&r);
}
END_TEST

/* A list of n small ints in x0, built with HAlloc. */
static void live_list(tc_proc *p, size_t n)
{
    tc_term *hp = tc_proc_halloc(p, 2 * n);
    ck_assert(hp != NULL);
    p->x[0] = tc_int_list_at(hp, n);
    p->arity = 1;
}

/*
 * OTP25, no stack, x0 = a 60000-word list (in a fragment):
 *  GC 1: no old heap, nothing mature -> major: next(60000) = 75113, 60000 copied;
 *        need_after 60000: 3*75113 = 225339 < 240000 -> the heap-grow flag, no resize.
 *  GC 2: mature 60000 -> old heap next(60000, +1) = 121536; minor: new heap next(60000) =
 *        75113, all 60000 promoted; need_after 0 -> shrink: wanted 0, 0*9 < 121536 so
 *        raised to 121536/8 = 15192 -> next = 17731.
 *  GC 3: x0 is in the old heap, nothing young: new heap next(0) = 12 -> min_heap 233.
 *  x0 = a new 10-word list on the heap, then TestHeap(5000): 213 free -> minor GC, new heap
 *        next(20) = 38 -> 233; need_after 20 + 5000 = 5020 > 233 -> grow to next(5020) = 6772.
 */
START_TEST(otp25_grow_shrink)
{
    rig r;
    rig_init(&r, tc_preset_ok("otp25"), 0);
    tc_proc *p = r.p;
    live_list(p, 30000);
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK);
    ck_assert(r.ev[0].kind == TC_HEAP_EV_MAJOR);
    ck_assert_uint_eq(p->heap_sz, 75113);
    ck_assert_uint_eq(r.ev[0].copied, 60000);
    ck_assert(p->flags & TC_PROC_HEAP_GROW);
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK);
    ck_assert(r.ev[1].kind == TC_HEAP_EV_MINOR && r.ev[1].old_heap_created);
    ck_assert_uint_eq(p->old_hend - p->old_heap, 121536);
    ck_assert_uint_eq(p->old_htop - p->old_heap, 60000);
    ck_assert_uint_eq(p->heap_sz, 17731);
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK);
    ck_assert(r.ev[2].kind == TC_HEAP_EV_MINOR);
    ck_assert_uint_eq(p->heap_sz, 233);
    ck_assert_uint_eq(r.ev[2].copied, 0);
    live_list(p, 10);
    ck_assert(tc_proc_test_heap_maybe_gc(p, 5000) == TC_OK);
    ck_assert_uint_eq(p->heap_sz, 6772);
    ck_assert_uint_eq(r.ev[3].resized, 1);
    ck_assert(p->stop - p->htop >= 5000);
    rig_done(&r);
}
END_TEST

/*
 * R10B, fullsweep_after 0 (every GC a fullsweep), no stack, x0 = a 2000-word list:
 *  HAlloc(2000): fragment 116 + 2000 = 2116.
 *  GC 1: next(233 + 2116 + 0 + 0 = 2349) = 2584; need_after 2000: 3*2584 = 7752 < 8000 ->
 *        heap-grow flag.
 *  GC 2: next(2584) = 2584 = heap and the flag is set -> one step up: 4181. 8000 < 12543,
 *        8000 > 4181: stays, flag cleared.
 *  GC 3 with x0 dropped: next(4181) = 4181; need_after 0 < 25 %, 4181 > 233 -> min 233.
 */
START_TEST(r10b_fullsweep_adjust)
{
    rig r;
    tc_policy pol = tc_preset_ok("r10b");
    pol.fullsweep_after = 0;
    rig_init(&r, pol, 0);
    tc_proc *p = r.p;
    live_list(p, 1000);
    ck_assert_uint_eq(p->mbuf_sz, 2116);
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK);
    ck_assert(r.ev[0].kind == TC_HEAP_EV_MAJOR);
    ck_assert_uint_eq(p->heap_sz, 2584);
    ck_assert(p->flags & TC_PROC_HEAP_GROW);
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK);
    ck_assert_uint_eq(p->heap_sz, 4181);
    ck_assert(!(p->flags & TC_PROC_HEAP_GROW));
    p->arity = 0;
    ck_assert(tc_gc_collect(p, 0, p->x, 0) == TC_OK);
    ck_assert_uint_eq(p->heap_sz, 233);
    ck_assert_uint_eq(r.ev[2].resized, -1);
    ck_assert_uint_eq(p->stats.major_gcs, 3);
    rig_done(&r);
}
END_TEST

/*
 * R10B promotion by the high-water flip, no stack, x0 = 100-word list on the heap
 * (233 > 200: bumped), nothing else allocated:
 *  GC 1: mature 0: new heap next(233 + 0) = 233, list copied young, high_water = htop.
 *  GC 2: mature 200 -> old heap next(200, +1) = 377; all promoted; high_water = heap start.
 *  GC 3: nothing mature, nothing young: 0 copied.
 * OTP25 promotes on the second survival the same way but keeps high_water = htop.
 */
START_TEST(promotion)
{
    rig r;
    rig_init(&r, tc_preset_ok("r10b"), 0);
    tc_proc *p = r.p;
    live_list(p, 100);
    ck_assert_ptr_eq(p->mbuf, NULL);
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK);
    ck_assert_ptr_eq(p->old_heap, NULL);
    ck_assert_uint_eq(p->htop - p->heap, 200);
    ck_assert_ptr_eq(p->high_water, p->htop);
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK);
    ck_assert_uint_eq(p->old_hend - p->old_heap, 377);
    ck_assert_uint_eq(p->old_htop - p->old_heap, 200);
    ck_assert_ptr_eq(p->high_water, p->heap);
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK);
    ck_assert_uint_eq(r.ev[2].copied, 0);
    ck_assert_uint_eq(p->stats.minor_gcs, 3);
    rig_done(&r);
}
END_TEST

/* min_heap_size 1000 rounds up to a table size, and no GC or shrink goes below it. */
START_TEST(min_heap_size_honoured)
{
    for (int era = 0; era < 2; era++) {
        tc_policy pol = era ? tc_preset_ok("r10b") : tc_preset_ok("otp25");
        pol.min_heap_size = 1000;
        uint64_t want = era ? 1597 : 1598;
        rig r;
        rig_init(&r, pol, 2);
        tc_proc *p = r.p;
        ck_assert_uint_eq(p->heap_sz, want);
        for (int i = 0; i < 6; i++) {
            live_list(p, i % 2 ? 30000 : 5);
            ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK);
            p->arity = 0;
            ck_assert(tc_gc_collect(p, 0, p->x, 0) == TC_OK);
            ck_assert_uint_ge(p->heap_sz, want);
        }
        /* A fullsweep with nothing live but the 2 stack words shrinks to the minimum:
         * need_after 2 < 25 %, 2*2 < min. */
        p->flags |= TC_PROC_NEED_FULLSWEEP;
        ck_assert(tc_gc_collect(p, 0, p->x, 0) == TC_OK);
        ck_assert_uint_eq(p->heap_sz, want);
        rig_done(&r);
    }
}
END_TEST

/* fullsweep_after 2: two minor GCs, then a major one that drops the old heap. */
START_TEST(fullsweep_after)
{
    tc_policy pol = tc_preset_ok("otp25");
    pol.fullsweep_after = 2;
    rig r;
    rig_init(&r, pol, 0);
    tc_proc *p = r.p;
    live_list(p, 50);
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK); /* major: nothing mature, no old heap */
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK); /* minor 1: promotes */
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK); /* minor 2 */
    ck_assert_uint_eq(p->stats.minor_gcs, 2);
    ck_assert(p->old_heap != NULL);
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK); /* major */
    ck_assert_uint_eq(p->stats.major_gcs, 2);
    ck_assert_ptr_eq(p->old_heap, NULL);
    ck_assert_uint_eq(p->htop - p->heap, 100);
    rig_done(&r);
}
END_TEST

/* With shrink switched off the ETS loop's heap ratchets up and stays. */
START_TEST(shrink_switch)
{
    tc_policy pol = tc_preset_ok("otp25");
    pol.shrink = false;
    rig r;
    rig_init(&r, pol, 4);
    for (unsigned i = 0; i < 7; i++)
        lookup(&r, 10000, false);
    ck_assert_uint_eq(r.p->heap_sz, 121536);
    ck_assert_uint_eq(r.p->stats.shrinks, 0);
    rig_done(&r);
}
END_TEST

/* GC-at-schedule with OTP25 sizing: the result is dead when the deferred GC runs. */
START_TEST(trigger_switch)
{
    tc_policy pol = tc_preset_ok("otp25");
    pol.gc_trigger = TC_GC_AT_SCHEDULE;
    rig r;
    rig_init(&r, pol, 4);
    lookup(&r, 10000, false);
    ck_assert_uint_eq(r.nev, 0);
    ck_assert(tc_proc_schedule_in_maybe_gc(r.p) == TC_OK);
    /* major (no old heap): next(4 + 20005) = 28690, nothing copied, then < 25 % used:
     * shrink to min_heap 233 (next(2*4) = 12 < 233). */
    ck_assert_uint_eq(r.ev[0].copied, 0);
    ck_assert_uint_eq(r.p->heap_sz, 233);
    rig_done(&r);
}
END_TEST

/* A queued message carrying its own fragment: a 50-element list, 100 words. */
static tc_term queue_frag_message(rig *r)
{
    tc_heapfrag *f = tc_heapfrag_new(r->mem, 100);
    ck_assert(f != NULL);
    tc_term tail = TC_NIL;
    for (size_t i = 0; i < 50; i++) {
        f->mem[2 * i] = tc_make_small((int64_t)i);
        f->mem[2 * i + 1] = tail;
        tail = tc_make_list(&f->mem[2 * i]);
    }
    f->used_size = 100;
    ck_assert(tc_proc_queue_message(r->p, tail, f) == TC_OK);
    return tail;
}

/*
 * Messages, OTP25 (no stack):
 *  a queued 100-word fragment message is young data for sizing but not a root: the GC
 *  (major: no old heap) sizes next(0 + 100) = 142 -> min 233, traces nothing, then copies
 *  the fragment onto the heap (move_msgq_to_heap): 100 words, the message now on-heap.
 *  Received into x0, it is traced like any root: the next GC copies 100 words.
 *  Received straight from its fragment (no GC in between): the fragment joins msg_frag,
 *  mbuf_sz = 100, and the GC copies the data out of it and frees it; x0, which survived
 *  the previous GC, is promoted to a new old heap by this (minor) one.
 * R10B: the fragment joins MBUF when queued and the message is a root: the (minor) GC
 *  makes next(233 + 100) = 377 and copies 100 words; 4*100 > 377 so no shrink.
 */
START_TEST(messages)
{
    rig r;
    rig_init(&r, tc_preset_ok("otp25"), 0);
    tc_proc *p = r.p;
    tc_term m = queue_frag_message(&r);
    ck_assert(tc_gc_collect(p, 0, NULL, 0) == TC_OK);
    ck_assert(r.ev[0].kind == TC_HEAP_EV_MAJOR && r.ev[0].young_before == 100);
    ck_assert_uint_eq(p->heap_sz, 233);
    ck_assert_uint_eq(r.ev[0].copied, 100);
    ck_assert_uint_eq(p->stats.msgq_words_moved, 100);
    ck_assert_ptr_eq(p->msgq->frag, NULL);
    ck_assert(p->msgq->term != m);
    ck_assert(tc_proc_receive(p, &p->x[0]));
    p->arity = 1;
    ck_assert(tc_gc_collect(p, 0, p->x, 1) == TC_OK);
    ck_assert_uint_eq(r.ev[1].copied, 100);
    ck_assert_uint_eq(tc_list_val(p->x[0])[0], tc_make_small(49));
    queue_frag_message(&r);
    ck_assert(tc_proc_receive(p, &p->x[1]));
    p->arity = 2;
    ck_assert_uint_eq(p->mbuf_sz, 100);
    ck_assert(p->msg_frag != NULL);
    ck_assert(tc_heap_verify(p, NULL));
    ck_assert(tc_gc_collect(p, 0, p->x, 2) == TC_OK);
    ck_assert_ptr_eq(p->msg_frag, NULL);
    ck_assert_uint_eq(p->mbuf_sz, 0);
    ck_assert(r.ev[2].kind == TC_HEAP_EV_MINOR && r.ev[2].old_heap_created);
    ck_assert_uint_eq(p->htop - p->heap, 100);
    ck_assert_uint_eq(p->old_htop - p->old_heap, 100);
    rig_done(&r);

    rig_init(&r, tc_preset_ok("r10b"), 0);
    p = r.p;
    queue_frag_message(&r);
    ck_assert_uint_eq(p->mbuf_sz, 100);
    ck_assert_ptr_eq(p->msgq->frag, NULL);
    ck_assert(tc_gc_collect(p, 0, NULL, 0) == TC_OK);
    ck_assert(r.ev[0].kind == TC_HEAP_EV_MINOR);
    ck_assert_uint_eq(p->heap_sz, 377);
    ck_assert_uint_eq(r.ev[0].copied, 100);
    rig_done(&r);
}
END_TEST

/*
 * R10B round trip, client side (brief 7.3), stack 4: the server's send first collects the
 * client with need = 2003 (the reply's size), then copies the reply onto its heap.
 *  Round 1: 229 free < 2003 -> GC: minor, new heap next(233 + 0) = 233 (need is not
 *    used), need_after 0 + 2003 + 4 = 2007 > 233 -> fullsweep next(233 + 4) = 377, then
 *    adjust_after_fullsweep grows to next(2007) = 2584. The minor and the fullsweep are one
 *    collection (ggc.c erts_garbage_collect loops between one gc_start and one gc_end, one
 *    garbage_cols++): one event, a major one.
 *  Later rounds: 2584 - 2003 - 4 = 577 free < 2003 -> minor GC into a new 2584 heap, the
 *    old reply is dead, need_after 2007: 4*2007 > 2584, no shrink; 2584 >= 2007: done.
 */
START_TEST(r10b_round_trip_client)
{
    rig r;
    rig_init(&r, tc_preset_ok("r10b"), 4);
    tc_proc *p = r.p;
    for (int round = 0; round < 4; round++) {
        ck_assert(tc_proc_test_heap_maybe_gc(p, 2003) == TC_OK);
        ck_assert_uint_eq(p->heap_sz, 2584);
        tc_term *hp = tc_proc_halloc(p, 2003);
        ck_assert_ptr_eq(hp + 2003, p->htop); /* on the heap, no fragment */
        for (int i = 0; i < 2003; i++)
            hp[i] = TC_NIL;
    }
    ck_assert(r.ev[0].kind == TC_HEAP_EV_MAJOR && r.ev[0].heap_new == 377 && r.ev[0].resized == 1);
    for (unsigned i = 1; i < r.nev; i++)
        ck_assert(r.ev[i].kind == TC_HEAP_EV_MINOR && r.ev[i].heap_new == 2584 && r.ev[i].resized == 0);
    ck_assert_uint_eq(r.nev, 4);
    ck_assert_uint_eq(tc_proc_stats_get(p)->major_gcs + tc_proc_stats_get(p)->minor_gcs, 4);
    rig_done(&r);
}
END_TEST

/* One reply of n words arrives in its own fragment and is received, then dropped. */
static void reply(rig *r, size_t words)
{
    tc_heapfrag *f = tc_heapfrag_new(r->mem, words);
    ck_assert(f != NULL);
    for (size_t i = 0; i < words; i++)
        f->mem[i] = TC_NIL;
    f->used_size = words;
    ck_assert(tc_proc_queue_message(r->p, TC_NIL, f) == TC_OK);
    tc_term t;
    ck_assert(tc_proc_receive(r->p, &t));
}

/*
 * OTP25 round trip, client side (brief 7.2), stack 4, a 20,003-word reply in a fragment,
 * dead by the time the process is scheduled and collected.
 *  Only immediates live (the brief's case): every GC is major (no mature data, no old
 *    heap): next(4 + 20003) = 28690, nothing copied, then < 25 % used: back to 233.
 *  A 3-word tuple live instead: GC 1 as above (tuple copied, heap 233); GC 2 finds it
 *    mature: old heap next(3 + 20003, +1) = 46422, minor into next(4 + 20006) = 28690,
 *    tuple promoted; need_after 4 -> shrink, but 12*9 < 46422 raises wanted to 46422/8 =
 *    5802 -> 6772. From then on the client oscillates 6772 <-> 28690, not 233 <-> 28690.
 */
START_TEST(otp25_round_trip_client)
{
    rig r;
    rig_init(&r, tc_preset_ok("otp25"), 4);
    tc_proc *p = r.p;
    for (int round = 0; round < 4; round++) {
        reply(&r, 20003);
        ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
        ck_assert(r.ev[round].kind == TC_HEAP_EV_MAJOR && r.ev[round].heap_new == 28690);
        ck_assert_uint_eq(p->heap_sz, 233);
    }
    rig_done(&r);

    rig_init(&r, tc_preset_ok("otp25"), 4);
    p = r.p;
    tc_term e[2] = {tc_make_small(1), tc_make_small(2)};
    p->x[0] = tc_term_tuple(tc_proc_alloc(p), e, 2);
    p->arity = 1;
    static const uint64_t after[] = {233, 6772, 6772, 6772};
    for (int round = 0; round < 4; round++) {
        reply(&r, 20003);
        ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
        ck_assert_uint_eq(r.ev[round].heap_new, 28690);
        ck_assert_uint_eq(p->heap_sz, after[round]);
    }
    ck_assert(r.ev[1].old_heap_created && r.ev[1].old_heap_after == 46422);
    rig_done(&r);
}
END_TEST

/* The trace hook sees every new fragment with its size. */
static void count_frags(void *ctx, const tc_proc *p, const tc_heap_event *ev)
{
    (void)p;
    if (ev->kind == TC_HEAP_EV_FRAG)
        *(uint64_t *)ctx += ev->frag_words;
}

START_TEST(fragment_events)
{
    tc_policy pol = tc_preset_ok("otp25");
    tc_mseg *mem = tc_mseg_new(&pol.mem);
    tc_proc *p;
    ck_assert(mem && tc_proc_new(mem, &pol, &p) == TC_OK);
    uint64_t words = 0;
    tc_proc_set_trace(p, count_frags, &words);
    for (int i = 0; i < 3; i++) {
        tc_term *hp = tc_proc_halloc(p, 1000);
        ck_assert(hp != NULL);
        for (int k = 0; k < 1000; k++)
            hp[k] = TC_NIL;
    }
    ck_assert_uint_eq(words, 3000);
    ck_assert_uint_eq(p->stats.frags_allocated, 3);
    ck_assert_uint_eq(p->stats.frag_words, 3000);
    tc_proc_free(p);
    tc_mseg_free(mem);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("heaps_sizes");
    TCase *tc = tcase_create("sizes");
    tcase_set_timeout(tc, 120); /* the VM-sized loops take seconds under ASan on a loaded machine */
    tcase_add_test(tc, tables);
    tcase_add_test(tc, fragment_sizing);
    tcase_add_test(tc, frag_yield_asks_for_a_yield);
    tcase_add_test(tc, otp25_ets_loop_word_test);
    tcase_add_test(tc, otp25_ets_loop_vm);
    tcase_add_test(tc, otp25_ets_loop_one_instance);
    tcase_add_test(tc, otp25_ets_loop_mseg_bands);
    tcase_add_test(tc, r10b_ets_loop);
    tcase_add_test(tc, otp25_grow_shrink);
    tcase_add_test(tc, r10b_fullsweep_adjust);
    tcase_add_test(tc, promotion);
    tcase_add_test(tc, min_heap_size_honoured);
    tcase_add_test(tc, fullsweep_after);
    tcase_add_test(tc, shrink_switch);
    tcase_add_test(tc, trigger_switch);
    tcase_add_test(tc, messages);
    tcase_add_test(tc, r10b_round_trip_client);
    tcase_add_test(tc, otp25_round_trip_client);
    tcase_add_test(tc, fragment_events);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run_suite(suite()); }
