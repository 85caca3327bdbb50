/* Every copy strategy on random terms: equal to its source, verified, in exactly the words it
 * predicted; the shared copy also leaves its source unchanged; the proposal copy_shallow_fast
 * writes exactly the words copy_shallow writes. */
#include "codec/verify.h"
#include "copy/compact.h"
#include "copy/copy_shallow_fast.h"
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

/* One buffer handed out whole, so that two copy-outs into it can be compared word for word. */
typedef struct buffer {
    tc_alloc iface; /* first: the interface pointer is the buffer */
    tc_offheap offheap;
    tc_term *words;
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

static void buffer_reset(buffer *b)
{
    tc_offheap_release_until(&b->offheap, NULL);
    b->offheap.overhead = 0;
    b->taken = false;
}

/* copy_shallow_fast (as_list or not) writes the same root and words as copy_shallow into the
 * same place (ProcBins' next links included, so the off-heap list too), with the same counts. */
static void check_shallow_fast(tc_term t, const tc_copy_compact *stored, size_t flat, bool as_list)
{
    size_t n = flat + (as_list ? 2 : 0);
    buffer b = {.iface = {buffer_alloc, NULL, NULL}, .cap = n};
    b.iface.offheap = &b.offheap;
    b.words = tc_mem_alloc((n ? n : 1) * sizeof(tc_term));
    tc_term *want = tc_mem_alloc((n ? n : 1) * sizeof(tc_term));
    ck_assert(b.words && want);
    tc_term slow, fast;
    ck_assert_int_eq(as_list ? tc_copy_compact_out_list(&b.iface, stored, &slow, NULL)
                             : tc_copy_compact_out(&b.iface, stored, &slow, NULL), TC_OK);
    memcpy(want, b.words, n * sizeof *want);
    uint64_t overhead = b.offheap.overhead;
    buffer_reset(&b);
    memset(b.words, 0xA5, n * sizeof *want); /* a word it failed to write would show */
    tc_copy_stats st = {0};
    ck_assert_int_eq(as_list ? tc_copy_shallow_fast_out_list(&b.iface, stored, &fast, &st)
                             : tc_copy_shallow_fast_out(&b.iface, stored, &fast, &st), TC_OK);
    ck_assert(slow == fast);
    ck_assert_msg(n == 0 || memcmp(want, b.words, n * sizeof *want) == 0, "copy_shallow_fast%s differs: %s",
                  as_list ? " (list)" : "", tc_print_ok(tc_copy_compact_term(stored)));
    ck_assert_uint_eq(b.offheap.overhead, overhead);
    ck_assert_uint_eq(st.words_written, n);
    ck_assert_uint_eq(st.passes, 1);
    check_copy(t, as_list ? tc_car(fast) : fast, "copy_shallow_fast");
    buffer_reset(&b);
    tc_mem_free(want);
    tc_mem_free(b.words);
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
        check_shallow_fast(t, stored, flat, false);
        check_shallow_fast(t, stored, flat, true);
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

int main(void)
{
    Suite *s = suite_create("copy_random");
    TCase *tc = tcase_create("copy_random");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_strategy_copies_random_terms_exactly);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
