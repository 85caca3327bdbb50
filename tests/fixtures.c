#include "fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/verify.h"
#include "heaps/proc_impl.h"
#include "heaps/verify.h"
#include "terms/compare.h"
#include "terms/hashmap.h"
#include "codec/ext.h"
#include "codec/printer.h"
#include "codec/reader.h"
#include "terms/size.h"

static tc_vector *rows;
static size_t nrows;

const tc_vector *tc_vectors(size_t *count)
{
    if (!rows) {
        FILE *f = fopen(TC_VECTORS_TSV, "r");
        ck_assert_msg(f != NULL, "cannot open golden vectors %s", TC_VECTORS_TSV);
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        bool header = true;
        while ((n = getline(&line, &cap, f)) > 0) {
            if (line[n - 1] == '\n')
                line[--n] = '\0';
            if (header) {
                header = false;
                continue;
            }
            char *cols[8];
            char *s = line;
            for (int i = 0; i < 8; i++) {
                cols[i] = s;
                s = strchr(s, '\t');
                if (i < 7) {
                    ck_assert_msg(s != NULL, "vector row has fewer than 8 columns");
                    *s++ = '\0';
                }
            }
            ck_assert_msg(s == NULL, "vector row has more than 8 columns");
            tc_vector *grown = realloc(rows, (nrows + 1) * sizeof *rows);
            ck_assert(grown != NULL);
            rows = grown;
            tc_vector *v = &rows[nrows++];
            v->expr = strdup(cols[0]);
            v->literal = strdup(cols[1]);
            v->flat_words = strtoull(cols[2], NULL, 10);
            v->shared_words = strtoull(cols[3], NULL, 10);
            v->ext_bytes = strtoull(cols[4], NULL, 10);
            v->ext_hex = strdup(cols[5]);
            v->ext_compressed_hex = strdup(cols[6]);
            v->instance_specific = strdup(cols[7]);
        }
        free(line);
        (void)fclose(f); /* read only */
        ck_assert_msg(nrows > 0, "no rows in %s", TC_VECTORS_TSV);
    }
    *count = nrows;
    return rows;
}

static tc_arena *arena;
static char **printed;
static size_t nprinted;

tc_arena *tc_fixture_arena(void)
{
    if (!arena) {
        arena = tc_arena_new(0);
        ck_assert(arena != NULL);
    }
    return arena;
}

void tc_fixture_teardown(void)
{
    tc_arena_free(arena);
    arena = NULL;
    for (size_t i = 0; i < nprinted; i++)
        tc_mem_free(printed[i]);
    free(printed);
    printed = NULL;
    nprinted = 0;
}

tc_term *tc_null_alloc(tc_alloc *self, size_t words)
{
    (void)self;
    (void)words;
    return NULL;
}

tc_term tc_int_list_at(tc_term *hp, size_t n)
{
    tc_term tail = TC_NIL;
    for (size_t i = 0; i < n; i++) {
        hp[2 * i] = tc_make_small((int64_t)i);
        hp[2 * i + 1] = tail;
        tail = tc_make_list(&hp[2 * i]);
    }
    return tail;
}

tc_policy tc_preset_ok(const char *era)
{
    tc_policy p;
    ck_assert_msg(tc_policy_preset(era, &p) == TC_OK, "no preset '%s'", era);
    return p;
}

tc_term tc_read_ok(const char *text)
{
    tc_term t;
    tc_read_error err = {0};
    tc_result r = tc_term_read(tc_arena_alloc(tc_fixture_arena()), text, strlen(text), &t, &err);
    ck_assert_msg(r == TC_OK, "reading \"%.200s\" failed: %s at %zu: %s", text, tc_result_name(r),
                  err.offset, err.message);
    const char *why;
    ck_assert_msg(tc_term_verify(t, &why), "read term fails the verifier: %s", why);
    return t;
}

const char *tc_print_ok(tc_term t)
{
    char *s;
    ck_assert(tc_term_print(t, &s, NULL) == TC_OK);
    char **grown = realloc(printed, (nprinted + 1) * sizeof *printed);
    ck_assert(grown != NULL);
    printed = grown;
    printed[nprinted++] = s;
    return s;
}

tc_term tc_deep_copy_ok(tc_term t)
{
    unsigned char *b;
    size_t n;
    ck_assert(tc_ext_encode(t, 2, &b, &n) == TC_OK);
    tc_term r;
    tc_read_error err = {0};
    tc_result res = tc_ext_decode(tc_arena_alloc(tc_fixture_arena()), b, n, &r, &err);
    tc_mem_free(b);
    ck_assert_msg(res == TC_OK, "decoding a deep copy: %s", err.message);
    return r;
}

unsigned char *tc_from_hex(const char *hex, size_t *n)
{
    size_t len = strlen(hex);
    ck_assert_msg(len % 2 == 0, "odd hex string");
    unsigned char *b = malloc(len / 2 + 1);
    ck_assert(b != NULL);
    for (size_t i = 0; i < len / 2; i++) {
        int hi = tc_hex_digit(hex[2 * i]), lo = tc_hex_digit(hex[2 * i + 1]);
        ck_assert_msg(hi >= 0 && lo >= 0, "not hex: %.20s", hex);
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    *n = len / 2;
    return b;
}

tc_term tc_vector_term(const tc_vector *v, bool *from_ext)
{
    tc_term t;
    tc_read_error err = {0};
    tc_result r = tc_term_read(tc_arena_alloc(tc_fixture_arena()), v->literal, strlen(v->literal), &t, &err);
    if (from_ext)
        *from_ext = r == TC_EUNSUPPORTED;
    if (r == TC_EUNSUPPORTED) {
        ck_assert_msg(strcmp(v->ext_hex, "-") != 0, "%s: no text form and no ext_hex", v->expr);
        size_t n;
        unsigned char *b = tc_from_hex(v->ext_hex, &n);
        r = tc_ext_decode(tc_arena_alloc(tc_fixture_arena()), b, n, &t, &err);
        free(b);
    }
    ck_assert_msg(r == TC_OK, "%s: %s at %zu: %s", v->expr, tc_result_name(r), err.offset, err.message);
    const char *why;
    ck_assert_msg(tc_term_verify(t, &why), "%s: fails the verifier: %s", v->expr, why);
    return t;
}

/* Copies s to out with every dist channel number other than 0 ('<' digits '.', not inside
 * "<<") replaced by 'C'. */
static void mask_channels(const char *s, char *masked)
{
    for (size_t i = 0; s[i];) {
        *masked++ = s[i];
        bool opener = s[i] == '<' && (i == 0 || s[i - 1] != '<') && s[i + 1] != '<';
        i++;
        if (!opener)
            continue;
        size_t j = i;
        while (s[j] >= '0' && s[j] <= '9')
            j++;
        if (j > i && s[j] == '.' && !(j == i + 1 && s[i] == '0')) {
            *masked++ = 'C';
            i = j;
        }
    }
    *masked = '\0';
}

bool tc_text_matches(const char *text, const char *vm)
{
    if (strcmp(text, vm) == 0)
        return true;
    char *a = malloc(strlen(text) + 1), *b = malloc(strlen(vm) + 1);
    ck_assert(a && b);
    mask_channels(text, a);
    mask_channels(vm, b);
    bool same = strcmp(a, b) == 0;
    free(a);
    free(b);
    return same;
}

uint64_t tc_flat_ok(tc_term t)
{
    uint64_t w;
    ck_assert(tc_term_flat_size(t, &w) == TC_OK);
    return w;
}

uint64_t tc_shared_ok(tc_term t)
{
    uint64_t w;
    ck_assert(tc_term_shared_size(t, &w) == TC_OK);
    return w;
}

uint64_t tc_shared_copy_ok(tc_term t)
{
    uint64_t w;
    ck_assert(tc_term_shared_copy_size(t, &w) == TC_OK);
    return w;
}

int tc_compare_ok(tc_term a, tc_term b)
{
    int c;
    ck_assert(tc_term_compare(a, b, &c) == TC_OK);
    return c;
}

int tc_equal_ok(tc_term a, tc_term b)
{
    bool e;
    ck_assert(tc_term_equal(a, b, &e) == TC_OK);
    return e;
}

static uint64_t rng_state;

uint64_t tc_test_seed(void)
{
    static uint64_t seed;
    if (!seed) {
        const char *env = getenv("TC_SEED");
        seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
        if (!seed)
            seed = 1;
        fprintf(stderr, "random seed: %llu (set TC_SEED=%llu to repeat)\n", (unsigned long long)seed,
                (unsigned long long)seed);
        rng_state = seed;
    }
    return seed;
}

uint64_t tc_rand(void)
{
    tc_test_seed();
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

uint64_t tc_rand_below(uint64_t n) { return n ? tc_rand() % n : 0; }

int tc_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

tc_result tc_fixture_send(tc_proc *from, tc_proc *to, tc_term msg, tc_send_path path, bool to_busy,
                          tc_copy_stats *stats)
{
    from->policy.send_path = path;
    return tc_send(from, to, msg, to_busy, stats);
}

/* Does t hold an atom anywhere? With `in_keys` false: does a hashmap in t have such a key? */
static bool atom_walk(tc_term t, bool in_keys) /* NOLINT(misc-no-recursion): test terms, shallow */
{
    for (;;) {
        if (tc_is_atom(t))
            return in_keys;
        if (tc_is_list(t)) {
            if (atom_walk(tc_car(t), in_keys))
                return true;
            t = tc_cdr(t);
            continue;
        }
        if (!tc_is_boxed(t))
            return false;
        if (tc_is_tuple(t)) {
            for (uint64_t i = 1; i <= tc_tuple_arity(t); i++)
                if (atom_walk(tc_tuple_element(t, i), in_keys))
                    return true;
            return false;
        }
        if (!tc_is_map(t))
            return false;
        tc_map_iter it;
        tc_term k, v;
        tc_map_iter_init(&it, t, false);
        while (tc_map_iter_next(&it, &k, &v))
            if (atom_walk(k, in_keys || tc_is_hashmap(t)) || atom_walk(v, in_keys))
                return true;
        return false;
    }
}

bool tc_vector_atom_hashed(tc_term t) { return atom_walk(t, false); }

uint64_t tc_vector_flat_words(const tc_vector *v, tc_term t)
{
    return tc_vector_atom_hashed(t) ? tc_flat_ok(t) : v->flat_words;
}

const char *tc_vector_text(const tc_vector *v, tc_term t) { return tc_vector_atom_hashed(t) ? tc_print_ok(t) : v->literal; }

static tc_mseg *fixture_mem;
static tc_proc *fixture_procs[2];

tc_proc *tc_fixture_proc(tc_policy pol, unsigned i, tc_heap_trace_fn fn)
{
    ck_assert_uint_lt(i, 2);
    if (!fixture_mem) {
        fixture_mem = tc_mseg_new(&pol.mem);
        ck_assert(fixture_mem != NULL);
    }
    ck_assert(tc_proc_new(fixture_mem, &pol, &fixture_procs[i]) == TC_OK);
    if (fn)
        tc_proc_set_trace(fixture_procs[i], fn, NULL);
    return fixture_procs[i];
}

void tc_fixture_procs_done(void)
{
    const char *why;
    for (unsigned i = 0; i < 2; i++) {
        if (fixture_procs[i])
            ck_assert_msg(tc_heap_verify(fixture_procs[i], &why), "%s", why);
        tc_proc_free(fixture_procs[i]);
        fixture_procs[i] = NULL;
    }
    ck_assert_uint_eq(tc_mseg_stats_get(fixture_mem)->live_blocks, 0);
    tc_mseg_free(fixture_mem);
    fixture_mem = NULL;
}
