/* Every copy strategy on random terms: equal to its source, verified, in exactly the words it
 * predicted; the shared copy also leaves its source unchanged; the proposal copy_shallow_fast
 * writes exactly the words copy_shallow writes, by each of its passes this CPU has (the
 * scalar one everywhere), at every destination alignment. */
#include <string.h>

#include "codec/verify.h"
#include "copy/compact.h"
#include "copy/copy_shallow_fast.h"
#include "copy/copy_shallow_fast_impl.h"
#include "copy/copy_shared.h"
#include "copy/copy_struct.h"
#include "copy/literal.h"
#include "copy/memcpy_floor.h"
#include "terms/binary.h"
#include "fixtures.h"
#include "gen.h"

#define TERMS 10000

static void check_copy(tc_term src, tc_term copy, const char *strategy)
{
    const char *why;
    ck_assert_msg(tc_term_verify(copy, &why), "%s: copy fails the verifier: %s", strategy, why);
    ck_assert_msg(tc_equal_ok(src, copy), "%s: copy differs: %s", strategy, tc_print_ok(src));
}

/* One buffer handed out whole, `skip` words past a 64-byte boundary, so that two copy-outs
 * into it can be compared word for word. */
typedef struct buffer {
    tc_alloc iface; /* first: the interface pointer is the buffer */
    tc_offheap offheap;
    tc_term *block, *words;
    size_t cap;
    bool taken;
} buffer;

static tc_term *buffer_alloc(tc_alloc *self, size_t words)
{
    buffer *b = (buffer *)self;
    ck_assert(!b->taken && words <= b->cap);
    b->taken = true;
    return b->words;
}

static void buffer_init(buffer *b, size_t cap, unsigned skip)
{
    *b = (buffer){.iface = {buffer_alloc, NULL, NULL}, .cap = cap};
    b->iface.offheap = &b->offheap;
    b->block = tc_mem_alloc((cap + skip + 8) * sizeof(tc_term));
    ck_assert(b->block != NULL);
    b->words = (tc_term *)(((uintptr_t)b->block + 63) & ~(uintptr_t)63) + skip;
}

static void buffer_reset(buffer *b)
{
    tc_offheap_release_until(&b->offheap, NULL);
    b->offheap.overhead = 0;
    b->taken = false;
}

static const struct {
    tc__fast_path path;
    const char *name;
} fast_paths[] = {{TC__FAST_SCALAR, "scalar"}, {TC__FAST_AVX2, "avx2"}, {TC__FAST_AVX512, "avx512"}};

/* copy_shallow_fast (as_list or not), by every pass this CPU has, writes the same root and
 * words as copy_shallow into the same place `skip` words past a 64-byte boundary (ProcBins'
 * next links included, so the off-heap list too), with the same counts. Returns how many
 * passes ran. */
static int check_shallow_fast(tc_term t, const tc_copy_compact *stored, size_t flat, bool as_list, unsigned skip)
{
    size_t n = flat + (as_list ? 2 : 0);
    buffer b;
    buffer_init(&b, n, skip);
    tc_term *want = tc_mem_alloc((n ? n : 1) * sizeof(tc_term));
    ck_assert(want != NULL);
    tc_term slow;
    ck_assert_int_eq(as_list ? tc_copy_compact_out_list(&b.iface, stored, &slow, NULL)
                             : tc_copy_compact_out(&b.iface, stored, &slow, NULL), TC_OK);
    memcpy(want, b.words, n * sizeof *want);
    uint64_t overhead = b.offheap.overhead;
    tc_term *first = b.offheap.first;
    buffer_reset(&b);
    int ran = 0;
    for (size_t p = 0; p < sizeof fast_paths / sizeof fast_paths[0]; p++) {
        if (!tc__copy_shallow_fast_force(fast_paths[p].path))
            continue;
        ran++;
        memset(b.words, 0xA5, n * sizeof *want); /* a word it failed to write would show */
        tc_copy_stats st = {0};
        tc_term fast;
        ck_assert_int_eq(as_list ? tc_copy_shallow_fast_out_list(&b.iface, stored, &fast, &st)
                                 : tc_copy_shallow_fast_out(&b.iface, stored, &fast, &st), TC_OK);
        ck_assert(slow == fast);
        ck_assert_msg(n == 0 || memcmp(want, b.words, n * sizeof *want) == 0,
                      "copy_shallow_fast%s (%s, +%u) differs: %s", as_list ? " (list)" : "", fast_paths[p].name,
                      skip, tc_print_ok(tc_copy_compact_term(stored)));
        ck_assert_uint_eq(b.offheap.overhead, overhead);
        ck_assert(b.offheap.first == first);
        ck_assert_uint_eq(st.words_written, n);
        ck_assert_uint_eq(st.passes, 1);
        check_copy(t, as_list ? tc_car(fast) : fast, fast_paths[p].name);
        buffer_reset(&b);
    }
    ck_assert(tc__copy_shallow_fast_force(TC__FAST_AUTO));
    tc_mem_free(want);
    tc_mem_free(b.block);
    return ran;
}

START_TEST(every_strategy_copies_random_terms_exactly)
{
    tc_test_seed();
    tc_arena *src_arena = tc_arena_new(0), *dst = tc_arena_new(0);
    ck_assert(src_arena && dst);
    tc_alloc *a = tc_arena_alloc(dst);
    for (int i = 0; i < TERMS; i++) {
        tc_arena_mark src_mark = tc_arena_get_mark(src_arena);
        tc_term t = tc_gen_term(tc_arena_alloc(src_arena), 1 + (unsigned)tc_rand_below(6), tc_rand_below(2));
        ck_assert(t != TC_NON_VALUE);
        uint64_t flat = tc_flat_ok(t), shared = tc_shared_copy_ok(t);
        tc_arena_mark m = tc_arena_get_mark(dst);
        size_t used = tc_arena_used_words(dst);
        tc_term c;

        ck_assert_int_eq(tc_copy_struct(a, t, NULL, &c, NULL), TC_OK);
        ck_assert_uint_eq(tc_arena_used_words(dst) - used, flat);
        check_copy(t, c, "copy_struct");

        tc_copy_compact *stored;
        ck_assert_int_eq(tc_copy_compact_in(t, &stored, NULL), TC_OK);
        ck_assert_uint_eq(tc_copy_compact_size(stored), flat);
        check_copy(t, tc_copy_compact_term(stored), "compact in");
        used = tc_arena_used_words(dst);
        ck_assert_int_eq(tc_copy_compact_out(a, stored, &c, NULL), TC_OK);
        ck_assert_uint_eq(tc_arena_used_words(dst) - used, flat);
        check_copy(t, c, "compact out");
        used = tc_arena_used_words(dst);
        ck_assert_int_eq(tc_copy_compact_out_list(a, stored, &c, NULL), TC_OK);
        ck_assert_uint_eq(tc_arena_used_words(dst) - used, flat + 2);
        ck_assert(tc_is_list(c) && tc_is_nil(tc_cdr(c)));
        check_copy(t, tc_car(c), "compact out list");
        ck_assert_int_ge(check_shallow_fast(t, stored, flat, false, (unsigned)tc_rand_below(8)), 1);
        ck_assert_int_ge(check_shallow_fast(t, stored, flat, true, (unsigned)tc_rand_below(8)), 1);
        tc_term *raw;
        ck_assert_int_eq(tc_copy_memcpy_floor(a, tc_copy_compact_words(stored), flat, &raw, NULL), TC_OK);
        ck_assert(flat == 0 || memcmp(raw, tc_copy_compact_words(stored), flat * sizeof *raw) == 0);
        tc_copy_compact_free(stored);

        const char *before = tc_print_ok(t);
        used = tc_arena_used_words(dst);
        ck_assert_int_eq(tc_copy_shared(a, t, &c, NULL), TC_OK);
        ck_assert_uint_eq(tc_arena_used_words(dst) - used, shared);
        ck_assert_str_eq(tc_print_ok(t), before);
        ck_assert(tc_term_verify(t, NULL));
        check_copy(t, c, "copy_shared");
        ck_assert_uint_eq(tc_shared_copy_ok(c), shared);
        ck_assert_uint_eq(tc_shared_ok(c), tc_shared_ok(t));

        tc_copy_literal_area *la = tc_copy_literal_area_new(shared + 3);
        ck_assert(la != NULL);
        tc_term v;
        ck_assert_int_eq(tc_copy_literal_put(la, TC_NIL, t, NULL), TC_OK);
        ck_assert_int_eq(tc_copy_literal_get(la, TC_NIL, &v), TC_OK);
        check_copy(t, v, "literal");
        ck_assert(tc_is_immed(v) || v == TC_EMPTY_TUPLE ||
                  tc_copy_literal_contains(la, tc_is_list(v) ? tc_list_val(v) : tc_boxed_val(v)));
        tc_copy_literal_area_free(la);

        tc_arena_rollback(dst, m);
        tc_arena_rollback(src_arena, src_mark);
        if (i % 1000 == 999)
            tc_fixture_teardown(); /* the printed texts */
    }
    tc_arena_free(dst);
    tc_arena_free(src_arena);
}
END_TEST

/* A float whose raw word is `w`: a word that looks like a header, a pointer or {} but is data. */
static tc_term float_with_bits(tc_alloc *a, tc_term w)
{
    double d;
    memcpy(&d, &w, sizeof d);
    tc_term f = tc_term_float(a, d);
    ck_assert(f != TC_NON_VALUE);
    return f;
}

static tc_term cons_ok(tc_alloc *a, tc_term car, tc_term cdr)
{
    tc_term c = tc_term_cons(a, car, cdr);
    ck_assert(c != TC_NON_VALUE);
    return c;
}

/* Lists of up to 300 elements whose words take the passes down each of their branches: runs of
 * pointers longer than a vector group (lists and tuples of small integers), floats, and floats
 * whose raw word looks like a float's, a map's or another thing's header, a pointer or {}; {}
 * among pointers; random subterms (hashmaps and flatmaps, refc and sub binaries, bignums, funs,
 * external things). Each is copied out at every destination alignment. */
START_TEST(shallow_fast_long_terms_every_alignment)
{
    tc_test_seed();
    const tc_term looks_like[] = {TC_MAKE_HEADER(1, TC_SUBTAG_FLOAT), TC_MAP_HEADER_FLATMAP,
                                  TC_MAP_HEADER_HAMT_NODE_BITMAP(3), TC_MAP_HEADER_HAMT_HEAD_ARRAY,
                                  TC_MAKE_HEADER(2, TC_SUBTAG_POS_BIG), TC_MAKE_HEADER(5, TC_SUBTAG_REFC_BINARY),
                                  TC_MAKE_HEADER(3, TC_SUBTAG_ARITYVAL), TC_EMPTY_TUPLE, tc_make_small(7), TC_NIL,
                                  (tc_term)0x1001, (tc_term)0x1002};
    tc_arena *arena = tc_arena_new(0);
    ck_assert(arena != NULL);
    tc_alloc *a = tc_arena_alloc(arena);
    for (int round = 0; round < 150; round++) {
        tc_arena_mark mark = tc_arena_get_mark(arena);
        tc_term l = TC_NIL, e[40];
        for (size_t k = 1 + tc_rand_below(300); k > 0; k--) {
            tc_term x = tc_make_small((int64_t)k);
            switch (tc_rand_below(7)) {
            case 0: x = float_with_bits(a, looks_like[tc_rand_below(sizeof looks_like / sizeof looks_like[0])]); break;
            case 1: x = tc_term_float(a, (double)k / 3); break;
            case 2: x = TC_EMPTY_TUPLE; break;
            case 3: x = tc_gen_term(a, 1 + (unsigned)tc_rand_below(3), false); break;
            case 4:
                x = TC_NIL;
                for (size_t j = tc_rand_below(64); j > 0; j--)
                    x = cons_ok(a, tc_make_small((int64_t)j), x);
                break;
            case 5: {
                size_t arity = 1 + tc_rand_below(40);
                for (size_t j = 0; j < arity; j++)
                    e[j] = tc_make_small((int64_t)j);
                x = tc_term_tuple(a, e, arity);
                break;
            }
            default: break;
            }
            ck_assert(x != TC_NON_VALUE);
            l = cons_ok(a, x, l);
        }
        tc_copy_compact *stored;
        ck_assert_int_eq(tc_copy_compact_in(l, &stored, NULL), TC_OK);
        for (unsigned skip = 0; skip < 8; skip++)
            ck_assert_int_ge(check_shallow_fast(l, stored, tc_copy_compact_size(stored), skip & 1, skip), 1);
        tc_copy_compact_free(stored);
        tc_arena_rollback(arena, mark);
        tc_fixture_teardown(); /* the printed texts */
    }
    tc_arena_free(arena);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy_random");
    TCase *tc = tcase_create("copy_random");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_strategy_copies_random_terms_exactly);
    tcase_add_test(tc, shallow_fast_long_terms_every_alignment);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
