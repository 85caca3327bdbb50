/*
 * The GC property test: random term graphs with sharing, random roots (x registers, stack
 * slots, queued messages), random safe points. After every step the process verifies and
 * every live root still equals the deep copy taken (in an arena, by printing and reading
 * back) when it became a root. Both eras, with and without the GC-at-every-safe-point
 * stress mode. The seed is printed; TC_SEED repeats a run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fixtures.h"
#include "gen.h"
#include "heaps/gc.h"
#include "heaps/proc_impl.h"
#include "heaps/proc.h"
#include "heaps/verify.h"
#include "terms/binary.h"
#include "terms/layout.h"
#include "codec/printer.h"
#include "terms/ptrset.h"
#include "terms/wstack.h"

#define XMAX 6
#define SMAX 6

/* A literal area the GC must never move: {lit, 42} and a cons [7]. */
static tc_term literal_area[5];

static void init_literals(void)
{
    literal_area[0] = TC_MAKE_HEADER(2, TC_SUBTAG_ARITYVAL);
    literal_area[1] = tc_make_small(-1);
    literal_area[2] = tc_make_small(42);
    literal_area[3] = tc_make_small(7);
    literal_area[4] = TC_NIL;
}

/*
 * "Nothing else survives": after a fullsweep without live fragments, every object on the
 * heap is reachable from the roots. Marks what the roots reach, then walks the heap.
 */
static void push_children(tc_wstack *s, const tc_term *obj, bool cons)
{
    if (cons) {
        ck_assert(tc_wstack_push(s, obj[0]) && tc_wstack_push(s, obj[1]));
        return;
    }
    tc_term h = obj[0];
    uint64_t arity = tc_header_arity(h);
    switch (tc_header_subtag(h)) {
    case TC_SUBTAG_ARITYVAL:
        for (uint64_t i = 1; i <= arity; i++)
            ck_assert(tc_wstack_push(s, obj[i]));
        break;
    case TC_SUBTAG_MAP: {
        size_t n;
        const tc_term *terms = tc_layout_map_terms(h, obj, &n);
        for (size_t i = 0; i < n; i++)
            ck_assert(tc_wstack_push(s, terms[i]));
        break;
    }
    case TC_SUBTAG_SUB_BINARY:
        ck_assert(tc_wstack_push(s, obj[TC_SB_ORIG]));
        break;
    case TC_SUBTAG_FUN: /* the creator, then the environment */
        for (size_t i = TC_FUN_CREATOR; i < TC_FUN_SIZE + tc_fun_num_free(obj); i++)
            ck_assert(tc_wstack_push(s, obj[i]));
        break;
    default:
        break;
    }
}

/* Queued message fragments are copied whole after the sweep (to the top of the used
 * heap), garbage included, so the last `msg_words` words are not checked. */
static void check_only_live_survives(tc_proc *p, uint64_t msg_words)
{
    tc_ptrset seen;
    tc_wstack s;
    tc_ptrset_init(&seen);
    tc_wstack_init(&s);
    for (tc_term *y = p->stop; y < p->hend; y++)
        ck_assert(tc_wstack_push(&s, *y));
    for (unsigned i = 0; i < p->arity; i++)
        ck_assert(tc_wstack_push(&s, p->x[i]));
    for (tc_msg *m = p->msgq; m; m = m->next)
        ck_assert(tc_wstack_push(&s, m->term));
    while (!tc_wstack_empty(&s)) {
        tc_term t = tc_wstack_pop(&s);
        if (!tc_is_list(t) && !tc_is_boxed(t))
            continue;
        const tc_term *obj = tc_is_list(t) ? tc_list_val(t) : tc_boxed_val(t);
        int fresh = tc_ptrset_add(&seen, obj);
        ck_assert(fresh >= 0);
        if (fresh)
            push_children(&s, obj, tc_is_list(t));
    }
    for (const tc_term *hp = p->heap; hp < p->htop - msg_words;) {
        int fresh = tc_ptrset_add(&seen, hp);
        ck_assert_msg(fresh == 0, "an unreachable object survived the fullsweep at word %td", hp - p->heap);
        hp += tc_layout_cell_words(hp);
    }
    tc_wstack_destroy(&s);
    tc_ptrset_destroy(&seen);
}

typedef struct world {
    tc_proc *p;
    tc_term xref[TC_PROC_MAX_XREGS]; /* deep copies of the live x registers */
    tc_term sref[64];                /* deep copies of the stack, slot 0 = bottom */
    tc_term qref[64];                /* deep copies of queued messages, in order */
    size_t nq;
    uint64_t gcs;
} world;

static void check(world *w, const char *after)
{
    const char *why;
    ck_assert_msg(tc_heap_verify(w->p, &why), "after %s: %s (TC_SEED=%llu)", after, why,
                  (unsigned long long)tc_test_seed());
    tc_proc *p = w->p;
    for (unsigned i = 0; i < p->arity; i++)
        ck_assert_msg(tc_equal_ok(p->x[i], w->xref[i]), "after %s: x%u changed", after, i);
    size_t depth = tc_proc_stack_size(p);
    for (size_t i = 0; i < depth; i++)
        ck_assert_msg(tc_equal_ok(*tc_proc_stack_slot(p, depth - 1 - i), w->sref[i]), "after %s: stack slot %zu changed",
                      after, i);
    size_t k = 0;
    for (tc_msg *m = p->msgq; m; m = m->next, k++)
        ck_assert_msg(tc_equal_ok(m->term, w->qref[k]), "after %s: message %zu changed", after, k);
}

/* A term of a random kind, built with `a`; may point at live roots (sharing across roots). */
static tc_term build(world *w, tc_alloc *a)
{
    tc_proc *p = w->p;
    static const unsigned char bytes[200] = {1, 2, 3, 250};
    switch (tc_rand_below(8)) {
    case 0:
    case 1:
        return tc_gen_term(a, 1 + (unsigned)tc_rand_below(4), true);
    case 2: {
        size_t n = 1 + tc_rand_below(40);
        tc_term e[40];
        for (size_t i = 0; i < n; i++)
            e[i] = tc_make_small((int64_t)tc_rand_below(1000));
        return tc_term_list(a, e, n, TC_NIL);
    }
    case 3: {
        tc_term e[3] = {p->arity ? p->x[tc_rand_below(p->arity)] : TC_NIL,
                        tc_proc_stack_size(p) ? *tc_proc_stack_slot(p, tc_rand_below(tc_proc_stack_size(p))) : TC_NIL,
                        tc_make_boxed(literal_area)};
        return tc_term_tuple(a, e, 1 + tc_rand_below(3));
    }
    case 4:
        return tc_term_binary(a, bytes, tc_rand_below(2) ? 100 + tc_rand_below(100) : tc_rand_below(64));
    case 5:
        return tc_term_float(a, (double)tc_rand_below(1u << 20) / 7.0);
    case 6:
        return tc_term_int64(a, INT64_MAX - (int64_t)tc_rand_below(1000));
    default:
        return tc_term_cons(a, p->arity ? p->x[0] : TC_NIL, tc_make_list(&literal_area[3]));
    }
}

/* A fragment-backed allocator for message data, as a sender would fill it. */
typedef struct frag_alloc {
    tc_alloc iface;
    tc_heapfrag *f;
} frag_alloc;

static tc_term *frag_words(tc_alloc *self, size_t n)
{
    tc_heapfrag *f = ((frag_alloc *)self)->f;
    if (f->alloc_size - f->used_size < n)
        return NULL;
    tc_term *hp = f->mem + f->used_size;
    f->used_size += n;
    return hp;
}

static void step(world *w, tc_mseg *mem)
{
    tc_proc *p = w->p;
    uint64_t before = p->stats.minor_gcs + p->stats.major_gcs;
    const char *what = "?";
    switch (tc_rand_below(12)) {
    case 0:
    case 1: { /* a new term into an x register */
        what = "build into x";
        unsigned i = (unsigned)tc_rand_below(XMAX);
        tc_term t = build(w, tc_proc_alloc(p));
        ck_assert(t != TC_NON_VALUE);
        while (p->arity <= i) {
            p->x[p->arity] = TC_NIL;
            w->xref[p->arity++] = TC_NIL;
        }
        p->x[i] = t;
        w->xref[i] = tc_deep_copy_ok(t);
        break;
    }
    case 2: { /* push an x register (or nothing) onto the stack */
        what = "push";
        if (tc_proc_stack_size(p) >= SMAX) {
            tc_proc_pop(p, 1 + tc_rand_below(tc_proc_stack_size(p)));
            break;
        }
        tc_term t = p->arity ? p->x[tc_rand_below(p->arity)] : tc_make_small(5);
        tc_term ref = tc_deep_copy_ok(t);
        ck_assert(tc_proc_push_maybe_gc(p, t) == TC_OK);
        w->sref[tc_proc_stack_size(p) - 1] = ref;
        break;
    }
    case 3: /* drop x registers */
        what = "drop";
        p->arity = (unsigned)tc_rand_below(p->arity + 1);
        break;
    case 4: /* TestHeap with a random need */
        what = "test heap";
        ck_assert(tc_proc_test_heap_maybe_gc(p, tc_rand_below(3) ? tc_rand_below(50) : tc_rand_below(3000)) == TC_OK);
        break;
    case 5:
    case 6: { /* a BIF: its result is the only live register afterwards */
        what = "bif";
        tc_heapfrag *live = tc_proc_bif_enter(p);
        tc_term t = build(w, tc_proc_alloc(p));
        ck_assert(t != TC_NON_VALUE);
        tc_term ref = tc_deep_copy_ok(t);
        ck_assert(tc_proc_bif_return_maybe_gc(p, live, &t) == TC_OK);
        p->x[0] = t;
        w->xref[0] = ref;
        p->arity = 1;
        break;
    }
    case 7: /* the scheduler picks the process */
        what = "schedule";
        ck_assert(tc_proc_schedule_in_maybe_gc(p) == TC_OK);
        break;
    case 8: { /* a message arrives, on the heap or in its own fragment */
        what = "queue";
        if (w->nq == 64)
            break;
        tc_term t;
        tc_heapfrag *f = NULL;
        if (tc_rand_below(2)) {
            t = build(w, tc_proc_alloc(p));
        } else {
            f = tc_heapfrag_new(mem, 2000);
            ck_assert(f != NULL);
            frag_alloc fa = {{frag_words, &f->off_heap, NULL}, f};
            t = tc_gen_term(&fa.iface, 1 + (unsigned)tc_rand_below(3), true);
            if (t == TC_NON_VALUE) { /* did not fit: the sender would have sized it */
                tc_heapfrag_free(mem, f);
                break;
            }
        }
        ck_assert(t != TC_NON_VALUE);
        w->qref[w->nq++] = tc_deep_copy_ok(t);
        ck_assert(tc_proc_queue_message(p, t, f) == TC_OK);
        break;
    }
    case 10: /* erlang:garbage_collect() */
        what = "collect";
        ck_assert(tc_gc_collect(p, 0, p->x, p->arity) == TC_OK);
        break;
    default: { /* receive into x0 */
        what = "receive";
        tc_term t;
        if (!tc_proc_receive(p, &t))
            break;
        tc_term ref = w->qref[0];
        memmove(&w->qref[0], &w->qref[1], --w->nq * sizeof w->qref[0]);
        if (p->arity == 0)
            p->arity = 1;
        p->x[0] = t;
        w->xref[0] = ref;
        break;
    }
    }
    check(w, what);
    w->gcs += p->stats.minor_gcs + p->stats.major_gcs - before;
}

static uint64_t run(tc_policy pol, unsigned procs, unsigned steps, uint64_t *words_copied)
{
    uint64_t copied = 0;
    init_literals();
    tc_mseg *mem = tc_mseg_new(&pol.mem);
    ck_assert(mem != NULL);
    uint64_t gcs = 0;
    for (unsigned k = 0; k < procs; k++) {
        world *w = calloc(1, sizeof *w);
        ck_assert(w != NULL);
        pol.fullsweep_after = tc_rand_below(3) ? 65535 : tc_rand_below(6);
        pol.min_heap_size = tc_rand_below(2) ? 233 : tc_rand_below(2000);
        ck_assert(tc_proc_new(mem, &pol, &w->p) == TC_OK);
        ck_assert(tc_proc_add_literal_area(w->p, literal_area, 5) == TC_OK);
        for (unsigned s = 0; s < steps; s++)
            step(w, mem);
        /* A fullsweep keeps exactly what the roots reach; then, with the x registers
         * dropped, only what the stack and the queue reach. */
        for (int last = 0; last < 2; last++) {
            if (last)
                w->p->arity = 0;
            w->p->flags |= TC_PROC_NEED_FULLSWEEP;
            uint64_t moved = w->p->stats.msgq_words_moved;
            ck_assert(tc_gc_collect(w->p, 0, w->p->x, w->p->arity) == TC_OK);
            check(w, "fullsweep");
            check_only_live_survives(w->p, w->p->stats.msgq_words_moved - moved);
            w->gcs++;
        }
        gcs += w->gcs;
        copied += w->p->stats.words_copied;
        tc_proc_free(w->p);
        free(w);
        tc_fixture_teardown();
    }
    ck_assert_uint_eq(tc_mseg_stats_get(mem)->live_blocks, 0);
    tc_mseg_free(mem);
    *words_copied = copied;
    return gcs;
}

static void property(tc_policy pol, bool stress)
{
    tc_policy_apply_env(&pol);
    pol.gc_stress = pol.gc_stress || stress;
    uint64_t copied;
    uint64_t gcs = run(pol, 40, 300, &copied);
    fprintf(stderr, "%s%s: %llu GCs, %llu words copied\n", pol.name, pol.gc_stress ? " (stress)" : "",
            (unsigned long long)gcs, (unsigned long long)copied);
    ck_assert_uint_ge(gcs, 1000);
}

START_TEST(otp25_property) { property(tc_preset_ok("otp25"), false); }
END_TEST

START_TEST(r10b_property) { property(tc_preset_ok("r10b"), false); }
END_TEST

START_TEST(otp25_property_stress) { property(tc_preset_ok("otp25"), true); }
END_TEST

START_TEST(r10b_property_stress) { property(tc_preset_ok("r10b"), true); }
END_TEST

/* Small caches, a low sbct and no segment cache: the heaps cross carrier kinds often. */
START_TEST(otp25_property_small_sbct)
{
    tc_policy pol = tc_preset_ok("otp25");
    pol.mem.sbct = 4096;
    pol.mem.cache_slots = 0;
    property(pol, false);
}
END_TEST

START_TEST(literals_never_move)
{
    init_literals();
    tc_policy pol = tc_preset_ok("otp25");
    tc_mseg *mem = tc_mseg_new(&pol.mem);
    ck_assert(mem != NULL);
    tc_proc *p;
    ck_assert(tc_proc_new(mem, &pol, &p) == TC_OK);
    ck_assert(tc_proc_add_literal_area(p, literal_area, 5) == TC_OK);
    tc_term lit = tc_make_boxed(literal_area);
    tc_term e[2] = {lit, tc_make_list(&literal_area[3])};
    p->x[0] = tc_term_tuple(tc_proc_alloc(p), e, 2);
    p->x[1] = lit;
    p->arity = 2;
    for (int i = 0; i < 3; i++)
        ck_assert(tc_gc_collect(p, 0, p->x, p->arity) == TC_OK);
    ck_assert(p->x[1] == lit);
    ck_assert(tc_tuple_element(p->x[0], 1) == lit);
    ck_assert(tc_tuple_element(p->x[0], 2) == tc_make_list(&literal_area[3]));
    ck_assert(tc_heap_verify(p, NULL));
    tc_proc_free(p);
    tc_mseg_free(mem);
}
END_TEST

/* A BIF that trapped with its GC disabled (erl_gc.c erts_gc_after_bif_call_lhf saves
 * p->live_hf_end at the first trap): the next collection, here one a heap test asks for,
 * moves every fragment made since the BIF's entry whole, the dead words too; the one after
 * it traces them again. */
START_TEST(trap_marker_moves_fragments_whole)
{
    tc_proc *p = tc_fixture_proc(tc_preset_ok("otp25"), 0, NULL);
    for (int trapped = 1; trapped >= 0; trapped--) {
        tc_heapfrag *entry = tc_proc_bif_enter(p);
        tc_term *dead = tc_proc_halloc_frag(p, 3); /* {0, 0}, as the trap's magic reference */
        ck_assert(dead != NULL);
        dead[0] = TC_MAKE_HEADER(2, TC_SUBTAG_ARITYVAL);
        dead[1] = dead[2] = tc_make_small(0);
        p->in_bif = false;
        if (trapped)
            tc_proc_bif_trap(p, entry);
        ck_assert(tc_gc_collect(p, 0, NULL, 0) == TC_OK); /* no roots */
        ck_assert_uint_eq(tc_proc_frag_size(p), 0);
        ck_assert_uint_eq(tc_proc_heap_used(p), trapped ? 3 : 0);
        ck_assert(tc_heap_verify(p, NULL));
    }
    tc_fixture_procs_done();
}
END_TEST

/* The verifier must catch what a broken GC would leave behind. */
START_TEST(verifier_catches_damage)
{
    tc_policy pol = tc_preset_ok("otp25");
    tc_mseg *mem = tc_mseg_new(&pol.mem);
    ck_assert(mem != NULL);
    tc_proc *p;
    ck_assert(tc_proc_new(mem, &pol, &p) == TC_OK);
    tc_alloc *a = tc_proc_alloc(p);
    tc_term e[2] = {tc_make_small(1), tc_make_small(2)};
    tc_term l = tc_term_list(a, e, 2, TC_NIL);
    tc_term t = tc_term_tuple(a, &l, 1);
    static const unsigned char bin[100];
    tc_term b = tc_term_binary(a, bin, sizeof bin);
    p->x[0] = t;
    p->x[1] = b;
    p->arity = 2;
    const char *why;
    ck_assert_msg(tc_heap_verify(p, &why), "%s", why);

    tc_term saved = tc_list_val(l)[0];
    tc_list_val(l)[0] = TC_NON_VALUE; /* a moved cons left behind */
    ck_assert(!tc_heap_verify(p, &why));
    tc_list_val(l)[0] = saved;

    saved = tc_boxed_val(t)[0];
    tc_boxed_val(t)[0] = tc_make_boxed(p->heap); /* a forwarded tuple */
    ck_assert(!tc_heap_verify(p, &why));
    tc_boxed_val(t)[0] = saved;

    tc_term outside[2] = {tc_make_small(1), TC_NIL};
    p->x[2] = tc_make_list(outside); /* a pointer to memory the process does not own */
    p->arity = 3;
    ck_assert(!tc_heap_verify(p, &why));
    p->arity = 2;

    tc_term *first = p->off_heap.first;
    p->off_heap.first = NULL; /* the ProcBin fell off the off-heap list */
    ck_assert(!tc_heap_verify(p, &why));
    p->off_heap.first = first;

    p->mbuf_sz++;
    ck_assert(!tc_heap_verify(p, &why));
    p->mbuf_sz--;
    ck_assert(tc_heap_verify(p, &why));
    tc_proc_free(p);
    tc_mseg_free(mem);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("heaps_gc");
    TCase *tc = tcase_create("property");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, otp25_property);
    tcase_add_test(tc, r10b_property);
    tcase_add_test(tc, otp25_property_stress);
    tcase_add_test(tc, r10b_property_stress);
    tcase_add_test(tc, otp25_property_small_sbct);
    tcase_add_test(tc, literals_never_move);
    tcase_add_test(tc, trap_marker_moves_fragments_whole);
    tcase_add_test(tc, verifier_catches_damage);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run_suite(suite()); }
