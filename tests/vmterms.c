/*
 * vmterms — the model's side of the VM-oracle tests (tests/cli_vmoracle.sh runs it beside
 * tests/vmoracle.escript, one erl for a whole batch).
 *
 *   vmterms gen N    N random terms (tests/gen.c; seed from TC_SEED, printed on stderr), a line
 *                    each: HEX<TAB>PRINT<TAB>FLATSIZE<TAB>CMP<TAB>HEX1, where HEX is termcopy's
 *                    encoding (minor 2) and HEX1 its minor-1 encoding (term_to_binary/1 on
 *                    OTP 25), PRINT its ~w, FLATSIZE the flat size of what that decodes to
 *                    (the heap form binary_to_term builds), and CMP 1 when its bytes
 *                    and text do not depend on the instance's atom or node tables (no hashmap
 *                    with a key holding an atom, pid, port, fun or remote ref: terms/hashmap.h)
 *   vmterms decode   hex lines on stdin; a line each: ok<TAB>HEX of the decoded term
 *                    re-encoded (minor 2), or error<TAB>MESSAGE (tc_ext_decode: binary_to_term/1)
 *   vmterms ets      NAME<TAB>HEX lines on stdin (the first field of 'gen' will do for HEX); for
 *                    T, the term HEX decodes to, a line each: NAME<TAB>HEX<TAB>, then for the
 *                    object {1, T}: the words one such object adds to the objects' memory of a
 *                    plain and of a compressed set table (tc_ets_info memory_words: ets:info(T,
 *                    memory)'s difference), the flat size of [Object] from a compressed lookup and
 *                    the words that lookup leaves on a process heap; then for {T, T} (T the key,
 *                    copied whole) the compressed table's words and the lookup's heap words;
 *                    then CMP as 'gen' says it: PLAIN COMP FLAT HEAP COMP_KEYED HEAP_KEYED CMP
 *
 * Exit 0 unless an operation the test relies on fails; 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "gen.h"
#include "codec/ext.h"
#include "terms/hashmap.h"
#include "terms/ident.h"
#include "codec/printer.h"
#include "terms/size.h"
#include "heaps/policy.h"
#include "heaps/proc.h"
#include "stores/ets.h"

/* Whether t holds only what hashes alike in every instance (integers, floats, binaries, local
 * refs, and lists, tuples and maps of those). Depth bounded by the generator's. */
static bool instance_free(tc_term t) /* NOLINT(misc-no-recursion): the generator bounds depth */
{
    if (tc_is_small(t) || tc_is_nil(t) || t == TC_EMPTY_TUPLE)
        return true;
    if (tc_is_list(t))
        return instance_free(tc_car(t)) && instance_free(tc_cdr(t));
    if (!tc_is_boxed(t))
        return false; /* atoms, local pids and ports */
    switch (tc_boxed_subtag(t)) {
    case TC_SUBTAG_ARITYVAL:
        for (uint64_t i = 1; i <= tc_tuple_arity(t); i++)
            if (!instance_free(tc_tuple_element(t, i)))
                return false;
        return true;
    case TC_SUBTAG_MAP: {
        tc_map_iter it;
        tc_term k, v;
        tc_map_iter_init(&it, t, false);
        while (tc_map_iter_next(&it, &k, &v))
            if (!instance_free(k) || !instance_free(v))
                return false;
        return true;
    }
    case TC_SUBTAG_FUN:
    case TC_SUBTAG_EXPORT:
    case TC_SUBTAG_EXTERNAL_PID:
    case TC_SUBTAG_EXTERNAL_PORT:
    case TC_SUBTAG_EXTERNAL_REF: return false;
    default: return true; /* numbers, binaries, local refs */
    }
}

/* Whether every hashmap in t has instance-free keys. */
static bool comparable(tc_term t) /* NOLINT(misc-no-recursion): the generator bounds depth */
{
    if (tc_is_list(t))
        return comparable(tc_car(t)) && comparable(tc_cdr(t));
    if (!tc_is_boxed(t))
        return true;
    const tc_term *p = tc_boxed_val(t);
    switch (tc_boxed_subtag(t)) {
    case TC_SUBTAG_ARITYVAL:
        for (uint64_t i = 1; i <= tc_tuple_arity(t); i++)
            if (!comparable(tc_tuple_element(t, i)))
                return false;
        return true;
    case TC_SUBTAG_MAP: {
        tc_map_iter it;
        tc_term k, v;
        tc_map_iter_init(&it, t, false);
        while (tc_map_iter_next(&it, &k, &v))
            if ((tc_is_hashmap(t) && !instance_free(k)) || !comparable(k) || !comparable(v))
                return false;
        return true;
    }
    case TC_SUBTAG_FUN:
        for (size_t i = 0; i < tc_fun_num_free(p); i++)
            if (!comparable(p[TC_FUN_ENV + i]))
                return false;
        return true;
    default: return true;
    }
}

static void put_hex(const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02X", b[i]);
}

static int gen(long n)
{
    (void)tc_test_seed();
    for (long i = 0; i < n; i++) {
        tc_arena *arena = tc_arena_new(0);
        if (!arena)
            return 1;
        tc_term t = tc_gen_term(tc_arena_alloc(arena), 4, false);
        unsigned char *b, *b1;
        size_t len, len1;
        char *text;
        size_t tlen;
        uint64_t words;
        tc_term canon; /* as binary_to_term holds it: sub binaries and small refc ones become heap binaries */
        if (t == TC_NON_VALUE || tc_ext_encode(t, 2, &b, &len) != TC_OK || tc_term_print(t, &text, &tlen) != TC_OK ||
            tc_ext_decode(tc_arena_alloc(arena), b, len, &canon, NULL) != TC_OK ||
            tc_term_flat_size(canon, &words) != TC_OK || tc_ext_encode(t, 1, &b1, &len1) != TC_OK) {
            fprintf(stderr, "vmterms: term %ld: out of memory or not encodable\n", i);
            return 1;
        }
        put_hex(b, len);
        printf("\t%s\t%llu\t%d\t", text, (unsigned long long)words, comparable(t));
        put_hex(b1, len1);
        putchar('\n');
        tc_mem_free(b);
        tc_mem_free(b1);
        tc_mem_free(text);
        tc_arena_free(arena);
    }
    return 0;
}

static int decode(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, stdin)) > 0) {
        size_t n = (size_t)got;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            n--;
        unsigned char *bytes = malloc(n / 2 + 1);
        if (!bytes) {
            free(line);
            return 1;
        }
        for (size_t i = 0; i + 1 < n; i += 2) {
            char pair[3] = {line[i], line[i + 1], '\0'};
            bytes[i / 2] = (unsigned char)strtoul(pair, NULL, 16); /* the escript writes hex only */
        }
        tc_arena *arena = tc_arena_new(0);
        if (!arena) {
            free(bytes);
            free(line);
            return 1;
        }
        tc_term t;
        tc_read_error err = {0};
        tc_result r = tc_ext_decode(tc_arena_alloc(arena), bytes, n / 2, &t, &err);
        unsigned char *b;
        size_t len;
        if (r == TC_OK && tc_ext_encode(t, 2, &b, &len) == TC_OK) {
            printf("ok\t");
            put_hex(b, len);
            putchar('\n');
            tc_mem_free(b);
        } else {
            printf("error\t%s\n", r == TC_OK ? "re-encoding failed" : err.message);
        }
        tc_arena_free(arena);
        free(bytes);
    }
    free(line);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}

/* The words one object adds to a new table's objects (ets:info(T, memory)'s difference), and
 * the flat size and heap words of its lookup onto a fresh process. */
typedef struct ets_numbers {
    uint64_t memory, flat, heap;
} ets_numbers;

static tc_result ets_measure(tc_term obj, bool compressed, ets_numbers *out)
{
    tc_ets_opts o = tc_ets_opts_default(TC_ETS_LOCK_NONE);
    o.compressed = compressed;
    tc_ets *t;
    tc_result r = tc_ets_new(&o, &t);
    if (r != TC_OK)
        return r;
    tc_policy pol = tc_policy_native();
    tc_mseg *mem = tc_mseg_new(&pol.mem);
    tc_proc *p = NULL;
    if (!mem)
        r = TC_ENOMEM;
    if (r == TC_OK)
        r = tc_proc_new(mem, &pol, &p);
    if (r == TC_OK)
        r = tc_ets_insert(t, obj, NULL);
    tc_term list;
    uint64_t h0 = p ? tc_proc_heap_used(p) + tc_proc_frag_size(p) : 0;
    if (r == TC_OK)
        r = tc_ets_lookup(t, tc_tuple_element(obj, 1), tc_proc_alloc(p), &list, NULL);
    if (r == TC_OK)
        r = tc_term_flat_size(list, &out->flat);
    if (r == TC_OK) {
        out->memory = tc_ets_get_info(t).memory_words;
        out->heap = tc_proc_heap_used(p) + tc_proc_frag_size(p) - h0;
    }
    if (p)
        tc_proc_free(p);
    tc_mseg_free(mem);
    tc_ets_free(t);
    return r;
}

static int ets(void)
{
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, stdin) > 0) {
        line[strcspn(line, "\r\n")] = '\0';
        char *hex = strchr(line, '\t');
        if (!hex) {
            rc = 2;
            break;
        }
        *hex++ = '\0';
        size_t n = strlen(hex) / 2;
        unsigned char *bytes = malloc(n + 1);
        tc_arena *arena = tc_arena_new(0);
        if (!bytes || !arena) {
            free(bytes);
            tc_arena_free(arena);
            rc = 1;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            char pair[3] = {hex[2 * i], hex[2 * i + 1], '\0'};
            bytes[i] = (unsigned char)strtoul(pair, NULL, 16);
        }
        tc_alloc *a = tc_arena_alloc(arena);
        tc_term t, one[2], two[2];
        ets_numbers plain = {0}, comp = {0}, keyed = {0};
        tc_result r = tc_ext_decode(a, bytes, n, &t, NULL);
        if (r == TC_OK) {
            one[0] = tc_make_small(1);
            one[1] = two[0] = two[1] = t;
            tc_term o1 = tc_term_tuple(a, one, 2), o2 = tc_term_tuple(a, two, 2);
            r = o1 == TC_NON_VALUE || o2 == TC_NON_VALUE ? TC_ENOMEM : ets_measure(o1, false, &plain);
            if (r == TC_OK)
                r = ets_measure(o1, true, &comp);
            if (r == TC_OK)
                r = ets_measure(o2, true, &keyed);
        }
        if (r == TC_OK)
            printf("%s\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%d\n", line, hex, (unsigned long long)plain.memory,
                   (unsigned long long)comp.memory, (unsigned long long)comp.flat, (unsigned long long)comp.heap,
                   (unsigned long long)keyed.memory, (unsigned long long)keyed.heap, comparable(t));
        else
            fprintf(stderr, "vmterms ets: %s: %s\n", line, tc_result_name(r)), rc = 1;
        tc_arena_free(arena);
        free(bytes);
    }
    free(line);
    return rc == 0 && fflush(stdout) == 0 && !ferror(stdout) ? 0 : rc ? rc : 1;
}

/* tests/gen.c asserts with Check, which needs a running test: the work runs as one, unforked
 * and silent, so only the lines above reach stdout. */
static long gen_count;
static int gen_rc;

START_TEST(run_gen) { gen_rc = gen(gen_count); }
END_TEST

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "gen") == 0) {
        gen_count = strtol(argv[2], NULL, 10);
        Suite *s = suite_create("vmterms");
        TCase *tc = tcase_create("gen");
        tcase_set_timeout(tc, 0);
        tcase_add_test(tc, run_gen);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_set_fork_status(sr, CK_NOFORK);
        srunner_run_all(sr, CK_SILENT);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed || gen_rc || fflush(stdout) != 0 ? 1 : 0;
    }
    if (argc == 2 && strcmp(argv[1], "decode") == 0)
        return decode();
    if (argc == 2 && strcmp(argv[1], "ets") == 0)
        return ets();
    fputs("usage: vmterms gen N | vmterms decode | vmterms ets\n", stderr);
    return 2;
}
