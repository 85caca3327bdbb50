/* The assertion handler, the failable allocator, the term verifier, and size_object's stack. */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "codec/verify.h"
#include "fixtures.h"
#include "terms/binary.h"
#include "terms/flatmap.h"
#include "terms/size.h"

static jmp_buf escape;
static int handled_line;

static void recording_handler(const char *file, int line, const char *expr)
{
    (void)file;
    (void)expr;
    handled_line = line;
    longjmp(escape, 1);
}

/* A flatmap's header word is the VM's: erl_map.h MAP_HEADER_FLATMAP, MAKE_MAP_HEADER(0, 1, 0)
 * = _make_header(((0 << 8) | 1) << 2 | 0, _TAG_HEADER_MAP) = 4 << 6 | 0x3C (not the HAMT
 * head-bitmap tag 3 it once carried). */
START_TEST(test_flatmap_header_word)
{
    tc_term m = tc_read_ok("#{a => 1, b => 2}");
    ck_assert(tc_is_boxed(m));
    ck_assert_uint_eq(tc_boxed_val(m)[0], (UINT64_C(4) << 6) | 0x3C);
    ck_assert_uint_eq(TC_MAP_HEADER_FLATMAP, 0x13C);
}
END_TEST

START_TEST(test_replaceable_handler)
{
    tc_set_assert_handler(recording_handler);
    if (setjmp(escape) == 0) {
        TC_CHECK(1 + 1 == 3);
        ck_abort_msg("TC_CHECK did not call the handler");
    }
    tc_set_assert_handler(NULL);
    ck_assert_int_gt(handled_line, 0);
}
END_TEST

START_TEST(test_default_handler_aborts)
{
    TC_CHECK(!"this must abort with a backtrace");
}
END_TEST

START_TEST(test_fail_nth_allocation)
{
    tc_mem_fail_at(3);
    void *a = tc_mem_alloc(8), *b = tc_mem_alloc(8), *c = tc_mem_alloc(8), *d = tc_mem_alloc(8);
    ck_assert(a && b && !c && d);
    tc_mem_free(a);
    tc_mem_free(b);
    tc_mem_free(d);
    tc_mem_fail_at(0);
}
END_TEST

static void expect_rejected(tc_term t, const char *why_part)
{
    const char *why;
    ck_assert_msg(!tc_term_verify(t, &why), "verifier accepted a term with: %s", why_part);
    ck_assert_msg(strstr(why, why_part) != NULL, "verifier said \"%s\", expected \"%s\"", why, why_part);
}

START_TEST(test_verifier_catches_corruption)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term big = tc_read_ok("18446744073709551616");
    tc_boxed_val(big)[2] = 0;
    expect_rejected(big, "zero top digit");

    tc_term small_big = tc_read_ok("576460752303423488");
    tc_boxed_val(small_big)[1] = 5;
    expect_rejected(small_big, "small-integer range");

    tc_term bin = tc_read_ok("<<1,2,3>>");
    tc_boxed_val(bin)[1] = 20;
    expect_rejected(bin, "heap binary size and arity disagree");

    tc_term map = tc_read_ok("#{a => 1, b => 2}");
    tc_term keys = tc_flatmap_keys(map);
    tc_term k1 = tc_boxed_val(keys)[1];
    tc_boxed_val(keys)[1] = tc_boxed_val(keys)[2];
    tc_boxed_val(keys)[2] = k1;
    expect_rejected(map, "not strictly ascending");

    tc_term *zero = tc_alloc_words(a, 1);
    zero[0] = TC_MAKE_HEADER(0, TC_SUBTAG_ARITYVAL);
    expect_rejected(tc_make_boxed(zero), "not the shared {}");

    expect_rejected(tc_make_atom(1u << 30), "atom index");
    expect_rejected(TC_MAKE_HEADER(2, TC_SUBTAG_ARITYVAL), "header word used as a value");

    tc_term sub = tc_read_ok("<<1,2,3:5>>");
    tc_boxed_val(sub)[TC_SB_SIZE] = 9;
    expect_rejected(sub, "runs past its binary");

    tc_term list = tc_read_ok("[1,2]");
    tc_list_val(list)[1] = TC_MAKE_HEADER(1, TC_SUBTAG_FLOAT);
    expect_rejected(list, "cons cell holds a header word");

    tc_term tuple = tc_read_ok("{a, b}");
    tc_boxed_val(tuple)[2] = tc_make_boxed(tc_boxed_val(tuple)) + 4;
    expect_rejected(tuple, "misaligned");
}
END_TEST

START_TEST(test_refc_binaries_released)
{
    tc_arena *arena = tc_arena_new(0);
    unsigned char data[100] = {0};
    tc_term bin = tc_term_binary(tc_arena_alloc(arena), data, sizeof data);
    ck_assert_uint_eq(tc_boxed_subtag(bin), TC_SUBTAG_REFC_BINARY);
    ck_assert_uint_eq(tc_arena_alloc(arena)->offheap->overhead, 100);
    tc_binary *b = (tc_binary *)(uintptr_t)tc_boxed_val(bin)[TC_PB_VAL];
    ck_assert_int_eq(atomic_load(&b->refc), 1);
    int64_t live = tc_mem_live();
    tc_arena_free(arena);
    /* The arena's blocks, the arena and the off-heap binary are gone. */
    ck_assert_int_lt(tc_mem_live(), live - 1);
}
END_TEST

/* size_object_x's ESTACK (copy.c): a list cell's head and a tuple's elements but the last are
 * pushed when not immediate, a flatmap's keys tuple and values all; the rest is followed. */
START_TEST(test_size_object_stack_peak)
{
    static const struct {
        const char *text;
        uint64_t peak;
    } cases[] = {
        {"[1,2,3]", 0},      {"[[1],[2],[3]]", 3}, {"[1.0,2.0]", 2},     {"{[1],[2],[3]}", 2},
        {"{a,b}", 0},        {"#{a => [1]}", 2},   {"#{a => 1}", 1},     {"[[[1]]]", 1},
        {"[{[1],[2]},x]", 1}, {"[\"ab\",\"cd\"]", 2}, {"1.5", 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        tc_term t = tc_read_ok(cases[k].text);
        uint64_t words, peak = 99, flat;
        ck_assert_int_eq(tc_term_flat_size_peak(t, NULL, NULL, &words, &peak), TC_OK);
        ck_assert_int_eq(tc_term_flat_size(t, &flat), TC_OK);
        ck_assert_uint_eq(words, flat);
        ck_assert_msg(peak == cases[k].peak, "%s: peak %llu, want %llu", cases[k].text, (unsigned long long)peak,
                      (unsigned long long)cases[k].peak);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("terms_base");
    TCase *tc = tcase_create("base");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_add_test(tc, test_replaceable_handler);
    tcase_add_test(tc, test_flatmap_header_word);
    tcase_add_test(tc, test_fail_nth_allocation);
    tcase_add_test(tc, test_verifier_catches_corruption);
    tcase_add_test(tc, test_refc_binaries_released);
    tcase_add_test(tc, test_size_object_stack_peak);
    suite_add_tcase(s, tc);
    /* Aborting needs its own process: only in Check's default fork mode. */
    const char *fork = getenv("CK_FORK");
    if (!fork || strcmp(fork, "no") != 0) {
        TCase *ab = tcase_create("abort");
        tcase_add_test_raise_signal(ab, test_default_handler_aborts, SIGABRT);
        suite_add_tcase(s, ab);
    }
    return tc_run_suite(s);
}
