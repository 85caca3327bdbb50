/*
 * Allocation failure: every operation that allocates is run with the Nth allocation
 * failing, for N = 1, 2, ... until it succeeds. Each failure must be TC_ENOMEM with the
 * process still verifiable and its roots unchanged; when no GC completed, the process
 * must be exactly as before (same blocks, same words). After the process and the memory
 * source are freed nothing is left allocated. TC_GC_STRESS=1 runs it in the stress mode.
 */
#include <string.h>

#include "heaps/proc_impl.h"
#include "fixtures.h"
#include "heaps/gc.h"
#include "heaps/proc.h"
#include "heaps/verify.h"
#include "terms/binary.h"
#include "codec/printer.h"

typedef struct snap {
    tc_term *heap, *htop, *stop, *old_heap, *old_htop, *high_water;
    uint64_t heap_sz, mbuf_sz, gcs;
    tc_heapfrag *mbuf;
    size_t msgq_len;
    tc_term words[64];
} snap;

static snap take(const tc_proc *p)
{
    snap s = {p->heap, p->htop, p->stop, p->old_heap, p->old_htop, p->high_water, p->heap_sz, p->mbuf_sz,
              p->stats.minor_gcs + p->stats.major_gcs, p->mbuf, p->msgq_len, {0}};
    size_t n = (size_t)(p->htop - p->heap);
    memcpy(s.words, p->heap, (n < 64 ? n : 64) * sizeof(tc_term));
    return s;
}

static bool same(const snap *a, const snap *b)
{
    return a->heap == b->heap && a->htop == b->htop && a->stop == b->stop && a->old_heap == b->old_heap &&
           a->old_htop == b->old_htop && a->high_water == b->high_water && a->heap_sz == b->heap_sz &&
           a->mbuf_sz == b->mbuf_sz && a->mbuf == b->mbuf && a->msgq_len == b->msgq_len &&
           memcmp(a->words, b->words, sizeof a->words) == 0;
}

enum { S_MAJOR, S_MINOR_OLD, S_SHRINK, S_GROW, S_HALLOC, S_BIF, S_QUEUE, S_MSGQ_MOVE, S_R10B_FULL, S_SPAWN, S_COUNT };

/* A 2n+5-word lookup result built in one HAlloc. */
static tc_term result_term(tc_proc *p, size_t n)
{
    tc_term *hp = tc_proc_halloc(p, 2 * n + 5);
    ck_assert(hp != NULL);
    tc_term tail = tc_int_list_at(hp, n);
    tc_term *t = &hp[2 * n];
    t[0] = TC_MAKE_HEADER(2, TC_SUBTAG_ARITYVAL);
    t[1] = tc_make_small(7);
    t[2] = tail;
    t[3] = tc_make_boxed(t);
    t[4] = TC_NIL;
    return tc_make_list(&t[3]);
}

/* Brings a process to the state each scenario starts from (no failures armed). */
static void setup(int s, tc_proc *p)
{
    static const unsigned char bytes[300] = {9};
    tc_alloc *a = tc_proc_alloc(p);
    tc_term e[3] = {tc_term_binary(a, bytes, 200), tc_term_float(a, 2.5), tc_term_int64(a, INT64_MAX)};
    p->x[0] = tc_term_tuple(a, e, 3);
    p->x[1] = result_term(p, 300);
    p->arity = 2;
    ck_assert(tc_proc_push_maybe_gc(p, tc_term_binary(a, bytes, 100)) == TC_OK);
    switch (s) {
    case S_MINOR_OLD:
        ck_assert(tc_gc_collect(p, 0, p->x, p->arity) == TC_OK); /* data becomes mature */
        break;
    case S_SHRINK: { /* the word-test ETS loop's 7th lookup starts here (check_heaps_sizes) */
        tc_term r = TC_NIL;
        for (int i = 0; i < 6; i++) {
            tc_heapfrag *live = tc_proc_bif_enter(p);
            r = result_term(p, 10000);
            ck_assert(tc_proc_bif_return_maybe_gc(p, live, &r) == TC_OK);
        }
        /* After a BIF only its result is live. */
        p->x[0] = p->x[1] = r;
        break;
    }
    case S_MSGQ_MOVE: { /* a queued message with its own fragment; the GC moves it on-heap */
        ck_assert(tc_gc_collect(p, 0, p->x, p->arity) == TC_OK);
        tc_heapfrag *f = tc_heapfrag_new(p->mem, 300);
        ck_assert(f != NULL);
        tc_term *hp = f->mem;
        f->used_size = 6;
        hp[0] = tc_make_small(1);
        hp[1] = TC_NIL;
        hp[2] = TC_MAKE_HEADER(1, TC_SUBTAG_FLOAT);
        double d = 1.5;
        memcpy(&hp[3], &d, sizeof d);
        hp[4] = tc_make_boxed(&hp[2]);
        hp[5] = tc_make_list(&hp[0]);
        ck_assert(tc_proc_queue_message(p, tc_make_list(&hp[4]), f) == TC_OK);
        break;
    }
    default:
        break;
    }
}

/* The operation under test; TC_ENOMEM is the only failure allowed. A two-step operation
 * retakes *before once its first step has succeeded. */
static tc_result op(int s, tc_proc *p, snap *before)
{
    switch (s) {
    case S_GROW:
        return tc_proc_test_heap_maybe_gc(p, 50000);
    case S_HALLOC: {
        tc_term *hp = tc_proc_halloc(p, 5000);
        if (!hp)
            return TC_ENOMEM;
        for (int i = 0; i < 5000; i++)
            hp[i] = TC_NIL;
        return TC_OK;
    }
    case S_SHRINK:
    case S_BIF: {
        tc_heapfrag *live = tc_proc_bif_enter(p);
        size_t words = s == S_BIF ? 5000 : 20000; /* both overflow into a fragment */
        tc_term *hp = tc_proc_halloc(p, words);
        if (!hp)
            return TC_ENOMEM;
        for (size_t i = 0; i < words; i += 2) { /* whole cons cells, as a BIF would leave */
            hp[i] = tc_make_small((int64_t)i);
            hp[i + 1] = TC_NIL;
        }
        *before = take(p);
        tc_term r = p->x[0];
        tc_result res = tc_proc_bif_return_maybe_gc(p, live, &r);
        p->x[0] = p->x[1] = r; /* after a BIF only its result is live */
        return res;
    }
    case S_QUEUE:
        return tc_proc_queue_message(p, p->x[0], NULL);
    default:
        return tc_gc_collect(p, 0, p->x, p->arity);
    }
}

static void scenario(int s)
{
    unsigned failures = 0;
    for (uint64_t n = 1;; n++) {
        int64_t live0 = tc_mem_live();
        tc_policy pol = s == S_R10B_FULL ? tc_preset_ok("r10b") : tc_preset_ok("otp25");
        if (s == S_R10B_FULL)
            pol.fullsweep_after = 0;
        if (s == S_SHRINK) { /* the word test collects after every overflowing BIF */
            pol.bif_gc_test = TC_BIF_GC_WORDS;
            pol.long_gc_words = 0;
        }
        tc_policy_apply_env(&pol);
        tc_mseg *mem = tc_mseg_new(&pol.mem);
        ck_assert(mem != NULL);
        tc_proc *p;
        if (s == S_SPAWN) {
            tc_mem_fail_at(n);
            tc_result r = tc_proc_new(mem, &pol, &p);
            tc_mem_fail_at(0);
            if (r == TC_OK) {
                tc_proc_free(p);
                tc_mseg_free(mem);
                ck_assert_int_eq(tc_mem_live(), live0);
                break;
            }
            ck_assert_int_eq(r, TC_ENOMEM);
            ck_assert_uint_eq(tc_mseg_stats_get(mem)->live_blocks, 0);
            tc_mseg_free(mem);
            ck_assert_int_eq(tc_mem_live(), live0);
            failures++;
            continue;
        }
        ck_assert(tc_proc_new(mem, &pol, &p) == TC_OK);
        setup(s, p);
        tc_term ref[3] = {tc_deep_copy_ok(p->x[0]), tc_deep_copy_ok(p->x[1]), tc_deep_copy_ok(*tc_proc_stack_slot(p, 0))};
        snap before = take(p);
        uint64_t calls = tc_mem_calls();
        tc_mem_fail_at(n);
        tc_result r = op(s, p, &before);
        tc_mem_fail_at(0);
        bool injected = tc_mem_calls() - calls >= n;
        const char *why;
        ck_assert_msg(tc_heap_verify(p, &why), "scenario %d, failing allocation %llu: %s", s,
                      (unsigned long long)n, why);
        if (r != TC_OK) {
            ck_assert_int_eq(r, TC_ENOMEM);
            ck_assert(injected);
            failures++;
            snap after = take(p);
            if (after.gcs == before.gcs)
                ck_assert_msg(same(&before, &after), "scenario %d: failed at %llu but changed", s,
                              (unsigned long long)n);
        }
        ck_assert(tc_equal_ok(p->x[0], ref[0]));
        if (s != S_SHRINK && s != S_BIF) /* a BIF leaves only its result live */
            ck_assert(tc_equal_ok(p->x[1], ref[1]));
        ck_assert(tc_equal_ok(*tc_proc_stack_slot(p, 0), ref[2]));
        tc_proc_free(p);
        ck_assert_uint_eq(tc_mseg_stats_get(mem)->live_blocks, 0);
        tc_mseg_free(mem);
        tc_fixture_teardown();
        ck_assert_msg(tc_mem_live() == live0, "scenario %d, failing allocation %llu: leaked %lld", s,
                      (unsigned long long)n, (long long)(tc_mem_live() - live0));
        if (r == TC_OK && !injected)
            break;
    }
    ck_assert_uint_gt(failures, 0); /* every scenario allocates, so some N must fail */
}

START_TEST(each_scenario) { scenario(_i); }
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("heaps_enomem");
    TCase *tc = tcase_create("enomem");
    tcase_add_loop_test(tc, each_scenario, 0, S_COUNT);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run_suite(suite()); }
