/* The golden vectors from the real VM (OTP 25.2.3): sizes and ~w text, row by row. */
#include <stdio.h>
#include <string.h>

#include "codec/verify.h"
#include "fixtures.h"
#include "terms/atom.h"
#include "terms/binary.h"

static tc_term atom(const char *name)
{
    tc_term t;
    ck_assert(tc_atom_intern(name, strlen(name), &t) == TC_OK);
    return t;
}

static tc_term seq(tc_alloc *a, int64_t from, int64_t to)
{
    tc_term l = TC_NIL;
    for (int64_t i = to; i >= from; i--)
        l = tc_term_cons(a, tc_make_small(i), l);
    return l;
}

static tc_term duplicate(tc_alloc *a, int n, tc_term t)
{
    tc_term l = TC_NIL;
    while (n-- > 0)
        l = tc_term_cons(a, t, l);
    return l;
}

/* Each row whose value the VM built with sharing, rebuilt the same way through the
 * constructors (the expression in the comment is the row's `expr`). */
static tc_term build_shared(const char *expr)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    if (strcmp(expr, "begin L = lists:seq(1,10), {L, L} end") == 0) {
        tc_term l = seq(a, 1, 10), e[2] = {l, l};
        return tc_term_tuple(a, e, 2);
    }
    if (strcmp(expr, "begin L = lists:seq(1,100), [L, L, L, L] end") == 0)
        return duplicate(a, 4, seq(a, 1, 100));
    if (strcmp(expr, "begin T = {a,b}, [T,T,T] end") == 0) {
        tc_term e[2] = {atom("a"), atom("b")};
        return duplicate(a, 3, tc_term_tuple(a, e, 2));
    }
    if (strcmp(expr, "lists:duplicate(10, list_to_binary(\"xyz\"))") == 0)
        return duplicate(a, 10, tc_term_binary(a, (const unsigned char *)"xyz", 3));
    if (strcmp(expr, "lists:foldl(fun(_, A) -> {A, A} end, leaf, lists:seq(1,10))") == 0) {
        tc_term acc = atom("leaf");
        for (int i = 0; i < 10; i++) {
            tc_term e[2] = {acc, acc};
            acc = tc_term_tuple(a, e, 2);
        }
        return acc;
    }
    return TC_NON_VALUE;
}

START_TEST(test_literal_sizes_and_print)
{
    size_t n;
    const tc_vector *v = tc_vectors(&n);
    size_t atom_rows = 0;
    ck_assert_uint_ge(n, 40);
    size_t decoded = 0;
    for (size_t i = 0; i < n; i++) {
        /* The literal read as text, or for a row text cannot carry (a fun, a remote pid, port
         * or ref) the VM's own bytes decoded: either way sizes and text are the VM's. */
        bool from_ext;
        tc_term t = tc_vector_term(&v[i], &from_ext);
        decoded += from_ext;
        if (tc_vector_atom_hashed(t)) {
            /* The VM's order and node words follow its atom indices: the value must survive. */
            ck_assert_msg(tc_equal_ok(tc_read_ok(tc_print_ok(t)), t), "%s: printed %s", v[i].expr, tc_print_ok(t));
            atom_rows++;
            continue;
        }
        ck_assert_msg(tc_flat_ok(t) == v[i].flat_words, "%s: flat size %llu, VM says %llu", v[i].expr,
                      (unsigned long long)tc_flat_ok(t), (unsigned long long)v[i].flat_words);
        ck_assert_msg(tc_text_matches(tc_print_ok(t), v[i].literal), "%s: printed %s", v[i].expr, tc_print_ok(t));
        /* Read from text, nothing is shared: shared size equals flat size. Decoded, neither:
         * but erts_debug:size/1 leaves out a local fun's creator (size.h). */
        ck_assert_msg(tc_shared_ok(t) == (from_ext ? v[i].shared_words : v[i].flat_words),
                      "%s: shared size %llu, VM says %llu", v[i].expr, (unsigned long long)tc_shared_ok(t),
                      (unsigned long long)v[i].shared_words);
    }
    ck_assert_uint_le(atom_rows, 2); /* the two atom-keyed hashmap rows, no more */
    ck_assert_uint_ge(decoded, 10);
}
END_TEST

START_TEST(test_sharing_rows_rebuilt)
{
    size_t n, rebuilt = 0;
    const tc_vector *v = tc_vectors(&n);
    for (size_t i = 0; i < n; i++) {
        bool from_ext;
        (void)tc_vector_term(&v[i], &from_ext);
        if (v[i].shared_words == v[i].flat_words || from_ext) /* decoded: see above */
            continue;
        tc_term t = build_shared(v[i].expr);
        ck_assert_msg(t != TC_NON_VALUE, "no sharing builder for row %s", v[i].expr);
        ck_assert_msg(tc_term_verify(t, NULL), "%s: rebuilt term fails the verifier", v[i].expr);
        ck_assert_uint_eq(tc_shared_ok(t), v[i].shared_words);
        ck_assert_uint_eq(tc_flat_ok(t), v[i].flat_words);
        /* The shared build is the same value as the literal. */
        ck_assert(tc_equal_ok(t, tc_read_ok(v[i].literal)));
        rebuilt++;
    }
    ck_assert_uint_ge(rebuilt, 5);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("terms_vectors");
    TCase *tc = tcase_create("golden");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_add_test(tc, test_literal_sizes_and_print);
    tcase_add_test(tc, test_sharing_rows_rebuilt);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
