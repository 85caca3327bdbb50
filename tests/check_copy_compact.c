/* copy/compact: the ETS stored form (in) and copy_shallow (out), [Object] lookups,
 * layout kept, ProcBin references, out of memory. */
#include <stdatomic.h>

#include "codec/verify.h"
#include "copy/compact.h"
#include "fixtures.h"
#include "terms/binary.h"

static long refc_of(tc_term procbin)
{
    return atomic_load(&((tc_binary *)(uintptr_t)tc_boxed_val(procbin)[TC_PB_VAL])->refc);
}

static tc_copy_compact *store_ok(tc_term t)
{
    tc_copy_compact *c;
    tc_copy_stats st = {0};
    ck_assert_int_eq(tc_copy_compact_in(t, &c, &st), TC_OK);
    ck_assert_uint_eq(st.words_sized, tc_copy_compact_size(c));
    ck_assert_uint_eq(st.passes, 2);
    return c;
}

START_TEST(vectors_in_and_out)
{
    size_t n;
    const tc_vector *v = tc_vectors(&n);
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    for (size_t i = 0; i < n; i++) {
        tc_term t = tc_vector_term(&v[i], NULL);
        uint64_t flat = tc_vector_flat_words(&v[i], t);
        const char *text = tc_vector_text(&v[i], t);
        tc_copy_compact *c = store_ok(t);
        ck_assert_uint_eq(tc_copy_compact_size(c), flat);
        ck_assert(tc_text_matches(tc_print_ok(tc_copy_compact_term(c)), text));
        size_t used = tc_arena_used_words(tc_fixture_arena());
        tc_copy_stats st = {0};
        tc_term out, list;
        ck_assert_int_eq(tc_copy_compact_out(a, c, &out, &st), TC_OK);
        ck_assert_uint_eq(st.words_sized, 0);
        ck_assert_uint_eq(st.passes, 1);
        ck_assert_uint_eq(st.words_written, flat);
        ck_assert_int_eq(tc_copy_compact_out_list(a, c, &list, &st), TC_OK);
        ck_assert_uint_eq(tc_arena_used_words(tc_fixture_arena()) - used, 2 * flat + 2);
        ck_assert(tc_term_verify(out, NULL) && tc_term_verify(list, NULL));
        ck_assert(tc_text_matches(tc_print_ok(out), text));
        ck_assert(tc_equal_ok(tc_car(list), t) && tc_is_nil(tc_cdr(list)));
        tc_copy_compact_free(c);
    }
}
END_TEST

START_TEST(copy_out_keeps_the_stored_layout)
{
    tc_term t = tc_read_ok("{key, [1,2,3,4,5,6,7,8], [{a}, 2.5, \"xy\"]}");
    tc_copy_compact *c = store_ok(t);
    tc_term out;
    ck_assert_int_eq(tc_copy_compact_out(tc_arena_alloc(tc_fixture_arena()), c, &out, NULL), TC_OK);
    /* Word for word the same block, each pointer moved by one offset. */
    const tc_term *src = tc_copy_compact_words(c), *dst = tc_boxed_val(out);
    ck_assert_ptr_eq(tc_boxed_val(tc_copy_compact_term(c)), src); /* the top tuple is first */
    uintptr_t delta = (uintptr_t)dst - (uintptr_t)src;
    for (size_t i = 0; i < tc_copy_compact_size(c); i++) {
        bool ptr = tc_is_list(src[i]) || tc_is_boxed(src[i]);
        ck_assert_uint_eq(dst[i], ptr ? src[i] + delta : src[i]);
    }
    /* The stored list descends (copy_struct layout), and so does the copy. */
    for (tc_term l = tc_tuple_element(out, 2); tc_is_list(tc_cdr(l)); l = tc_cdr(l))
        ck_assert_ptr_eq(tc_list_val(tc_cdr(l)), tc_list_val(l) - 2);
    tc_copy_compact_free(c);
}
END_TEST

START_TEST(wordless_terms_store_and_lookup)
{
    tc_term terms[3] = {tc_read_ok("42"), TC_EMPTY_TUPLE, TC_NIL};
    for (int i = 0; i < 3; i++) {
        tc_copy_compact *c = store_ok(terms[i]);
        ck_assert_uint_eq(tc_copy_compact_size(c), 0);
        tc_term out, list;
        ck_assert_int_eq(tc_copy_compact_out(tc_arena_alloc(tc_fixture_arena()), c, &out, NULL), TC_OK);
        ck_assert_uint_eq(out, terms[i]);
        ck_assert_int_eq(tc_copy_compact_out_list(tc_arena_alloc(tc_fixture_arena()), c, &list, NULL), TC_OK);
        ck_assert_uint_eq(tc_car(list), terms[i]);
        tc_copy_compact_free(c);
    }
}
END_TEST

/* A tuple's block from a source is erts' DbTerm: first_oh and size, then the words; any other
 * root takes one word more, kept after them; the old block goes back to the source. */
START_TEST(a_tuple_block_is_the_dbterm)
{
    tc_mseg_config cfg = tc_mseg_default_config();
    tc_mseg *mem = tc_mseg_new(&cfg);
    ck_assert(mem != NULL);
    static const struct {
        const char *text;
        size_t extra; /* words beyond the DbTerm's two and the term's */
    } cases[] = {{"{1, hello}", 0}, {"{k, [1,2,3], 2.5}", 0}, {"[{a} | 7]", 1}, {"2.5", 1}, {"hello", 1}};
    tc_copy_compact *c = NULL;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tc_term t = tc_read_ok(cases[i].text);
        ck_assert_int_eq(tc_copy_compact_store(mem, 0, 0, t, &c, NULL), TC_OK);
        size_t words = tc_copy_compact_size(c);
        ck_assert_uint_eq(tc_mseg_block_bytes(c), (2 + words + cases[i].extra) * sizeof(tc_term));
        ck_assert_uint_eq(tc_mseg_stats_get(mem)->live_blocks, 1);
        ck_assert(tc_equal_ok(tc_copy_compact_term(c), t));
        tc_term out;
        ck_assert_int_eq(tc_copy_compact_out(tc_arena_alloc(tc_fixture_arena()), c, &out, NULL), TC_OK);
        ck_assert(tc_equal_ok(out, t));
    }
    tc_copy_compact_free_at(mem, c, 0);
    ck_assert_uint_eq(tc_mseg_stats_get(mem)->live_blocks, 0);
    tc_mseg_free(mem);
}
END_TEST

START_TEST(refcounts_follow_the_stored_form_and_each_lookup)
{
    tc_term t = tc_read_ok("{k, <<\"0123456789012345678901234567890123456789012345678901234567890123456789\">>}");
    tc_term pb = tc_tuple_element(t, 2);
    tc_copy_compact *c = store_ok(t);
    ck_assert_int_eq(refc_of(pb), 2);
    tc_arena *dst = tc_arena_new(0);
    ck_assert(dst != NULL);
    for (int i = 1; i <= 3; i++) {
        tc_term l;
        ck_assert_int_eq(tc_copy_compact_out_list(tc_arena_alloc(dst), c, &l, NULL), TC_OK);
        ck_assert_int_eq(refc_of(pb), 2 + i);
        ck_assert_ptr_eq(tc_arena_alloc(dst)->offheap->first, tc_boxed_val(tc_tuple_element(tc_car(l), 2)));
    }
    tc_arena_free(dst);
    ck_assert_int_eq(refc_of(pb), 2);
    tc_copy_compact_free(c);
    ck_assert_int_eq(refc_of(pb), 1);
}
END_TEST

START_TEST(out_of_memory_is_a_result_and_leaks_nothing)
{
    tc_term t = tc_read_ok("[{a, <<\"0123456789012345678901234567890123456789012345678901234567890123456789\">>}, 2.5]");
    tc_term pb = tc_tuple_element(tc_car(t), 2);
    int64_t live = tc_mem_live();
    tc_copy_compact *c = NULL;
    tc_mem_fail_at(1);
    ck_assert_int_eq(tc_copy_compact_in(t, &c, NULL), TC_ENOMEM);
    tc_mem_fail_at(0);
    ck_assert_ptr_null(c);
    ck_assert_int_eq(tc_mem_live(), live);
    ck_assert_int_eq(refc_of(pb), 1);
    c = store_ok(t);
    tc_offheap oh = {0};
    tc_alloc failing = {tc_null_alloc, &oh, NULL};
    tc_term out = TC_NIL;
    ck_assert_int_eq(tc_copy_compact_out(&failing, c, &out, NULL), TC_ENOMEM);
    ck_assert_int_eq(tc_copy_compact_out_list(&failing, c, &out, NULL), TC_ENOMEM);
    ck_assert_uint_eq(out, TC_NIL);
    ck_assert_ptr_null(oh.first);
    ck_assert_int_eq(refc_of(pb), 2);
    tc_copy_compact_free(c);
    ck_assert_int_eq(refc_of(pb), 1);
    ck_assert_int_eq(tc_mem_live(), live);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy_compact");
    TCase *tc = tcase_create("copy_compact");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, vectors_in_and_out);
    tcase_add_test(tc, copy_out_keeps_the_stored_layout);
    tcase_add_test(tc, wordless_terms_store_and_lookup);
    tcase_add_test(tc, a_tuple_block_is_the_dbterm);
    tcase_add_test(tc, refcounts_follow_the_stored_form_and_each_lookup);
    tcase_add_test(tc, out_of_memory_is_a_result_and_leaks_nothing);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
