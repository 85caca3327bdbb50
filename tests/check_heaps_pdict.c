/*
 * The process dictionary: put/get against a plain oracle over random keys (small
 * integers, atoms, compound terms, so slots collide and split), values never copied,
 * out of memory, the root slots, each in both grow designs (the loop tests' _i: mask, mod);
 * the array's size against the VMs' own (tests/data/pdict-array.tsv) and where it lives (a
 * block of the memory source, every block freed by the teardown). The seed is printed;
 * TC_SEED repeats a run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heaps/proc_impl.h"
#include "copy/copy_struct.h"
#include "fixtures.h"
#include "gen.h"
#include "heaps/gc.h"
#include "heaps/pdict.h"
#include "heaps/verify.h"
#include "terms/compare.h"
#include "terms/size.h"

/* =:= without a Check assertion per call: in fork mode every assertion writes to a pipe. */
static bool same(tc_term a, tc_term b)
{
    bool eq = false;
    return tc_term_equal(a, b, &eq) == TC_OK && eq;
}

/* The memory source of the test's dictionaries (std_alloc's, with eheap's settings). */
static tc_mseg *source;

static void setup(void)
{
    tc_mseg_config cfg = tc_mseg_default_config();
    source = tc_mseg_new(&cfg);
    ck_assert(source != NULL);
}

/* Every dictionary the test made was freed, and its array with it. */
static void teardown(void)
{
    uint64_t live = tc_mseg_stats_get(source)->live_blocks;
    tc_mseg_free_discard(source);
    source = NULL;
    tc_fixture_teardown();
    ck_assert_msg(live == 0, "%llu blocks of the source still live", (unsigned long long)live);
}

static tc_pdict *pdict_ok(int design)
{
    tc_pdict *pd = NULL;
    ck_assert_int_eq(tc_pdict_new(design ? TC_PDICT_GROW_MOD : TC_PDICT_GROW_MASK, source, &pd), TC_OK);
    return pd;
}

static void verify_ok(const tc_pdict *pd)
{
    const char *why = NULL;
    ck_assert_msg(tc_pdict_verify(pd, &why), "tc_pdict_verify: %s", why);
}

static tc_term get_ok(const tc_pdict *pd, tc_term key)
{
    tc_term v = TC_NON_VALUE;
    ck_assert_int_eq(tc_pdict_get(pd, key, &v), TC_OK);
    return v;
}

static tc_term put_ok(tc_pdict *pd, tc_term key, tc_term value)
{
    tc_term old = TC_NON_VALUE;
    ck_assert_int_eq(tc_pdict_put(pd, tc_arena_alloc(tc_fixture_arena()), key, value, &old), TC_OK);
    return old;
}

START_TEST(put_returns_the_old_value_and_get_finds_it)
{
    tc_pdict *pd = pdict_ok(_i);
    tc_term undefined = tc_read_ok("undefined");
    verify_ok(pd);
    ck_assert_uint_eq(get_ok(pd, tc_make_small(1)), undefined);
    ck_assert_uint_eq(put_ok(pd, tc_make_small(1), tc_read_ok("hello")), undefined);
    tc_term v = tc_read_ok("{a, [1, 2], <<\"bin\">>}");
    ck_assert_str_eq(tc_print_ok(put_ok(pd, tc_make_small(1), v)), "hello");
    ck_assert_uint_eq(get_ok(pd, tc_make_small(1)), v); /* the same word: no copy */
    ck_assert_uint_eq(put_ok(pd, tc_read_ok("{k, 1}"), tc_make_small(5)), undefined);
    ck_assert_uint_eq(get_ok(pd, tc_read_ok("{k, 1}")), tc_make_small(5));
    ck_assert_uint_eq(get_ok(pd, tc_read_ok("{k, 1.0}")), undefined);
    ck_assert_uint_eq(tc_pdict_size(pd), 2);
    verify_ok(pd);
    tc_pdict_free(pd);
}
END_TEST

START_TEST(random_keys_against_an_oracle)
{
    enum { N = 3000, KEYS = 700 };
    tc_alloc *aa = tc_arena_alloc(tc_fixture_arena());
    tc_term keys[KEYS], vals[KEYS];
    for (int i = 0; i < KEYS; i++) {
        unsigned kind = (unsigned)tc_rand_below(3);
        keys[i] = kind == 0 ? tc_make_small((int64_t)tc_rand_below(1u << 20)) : tc_gen_term(aa, kind, true);
        vals[i] = TC_NON_VALUE;
    }
    tc_pdict *pd = pdict_ok(_i);
    tc_term undefined = tc_read_ok("undefined");
    for (int n = 0; n < N; n++) {
        int i = (int)tc_rand_below(KEYS);
        /* The oracle's answer: the value of the last put of an equal key. */
        tc_term expect = undefined;
        for (int j = 0; j < KEYS; j++)
            if (vals[j] != TC_NON_VALUE && same(keys[j], keys[i]))
                expect = vals[j];
        ck_assert_uint_eq(get_ok(pd, keys[i]), expect);
        tc_term v = tc_term_int64(aa, n);
        ck_assert_uint_eq(put_ok(pd, keys[i], v), expect);
        for (int j = 0; j < KEYS; j++)
            if (same(keys[j], keys[i]))
                vals[j] = j == i ? v : TC_NON_VALUE;
        if (n % 50 == 0)
            verify_ok(pd);
    }
    verify_ok(pd);
    size_t distinct = 0;
    for (int j = 0; j < KEYS; j++) {
        if (vals[j] == TC_NON_VALUE)
            continue;
        distinct++;
        ck_assert_uint_eq(get_ok(pd, keys[j]), vals[j]);
    }
    ck_assert_uint_eq(tc_pdict_size(pd), distinct);
    size_t nroots;
    tc_term *roots = tc_pdict_roots(pd, &nroots);
    ck_assert_uint_ge(nroots, distinct); /* no more elements than slots after a grow */
    size_t filled = 0;
    for (size_t i = 0; i < nroots; i++)
        filled += roots[i] != TC_NIL;
    ck_assert_uint_gt(filled, 0);
    tc_pdict_free(pd);
}
END_TEST

START_TEST(many_small_keys_spread_evenly)
{
    /* mod: just past 81920 slots, where each split reallocates the array (under a sanitizer
     * or valgrind each realloc copies it all) */
    const int N = _i ? 83000 : 100000;
    tc_pdict *pd = pdict_ok(_i);
    tc_term hello = tc_read_ok("hello");
    for (int i = 1; i <= N; i++)
        put_ok(pd, tc_make_small(i), hello);
    verify_ok(pd);
    for (int i = 1; i <= N; i += 7)
        ck_assert_uint_eq(get_ok(pd, tc_make_small(i)), hello);
    ck_assert_uint_eq(tc_pdict_size(pd), N);
    tc_pdict_free(pd);
}
END_TEST

START_TEST(out_of_memory_leaves_it_unchanged)
{
    tc_pdict *pd = pdict_ok(_i);
    tc_offheap oh = {0};
    tc_alloc failing = {tc_null_alloc, &oh, NULL};
    tc_term old;
    ck_assert_int_eq(tc_pdict_put(pd, &failing, tc_make_small(1), tc_make_small(2), &old), TC_ENOMEM);
    ck_assert_uint_eq(tc_pdict_size(pd), 0);
    verify_ok(pd);
    put_ok(pd, tc_make_small(1), tc_make_small(2));
    tc_pdict *fresh = pdict_ok(_i);
    tc_mem_fail_at(1); /* the first put's slot array */
    ck_assert_int_eq(tc_pdict_put(fresh, tc_arena_alloc(tc_fixture_arena()), tc_make_small(1), tc_make_small(2), &old),
                     TC_ENOMEM);
    tc_mem_fail_at(0);
    verify_ok(fresh);
    ck_assert_int_eq(tc_pdict_put(pd, &failing, tc_make_small(1), tc_make_small(3), &old), TC_ENOMEM);
    ck_assert_uint_eq(get_ok(pd, tc_make_small(1)), tc_make_small(2));
    verify_ok(pd);
    tc_pdict_free(fresh);
    tc_pdict_free(pd);
}
END_TEST

/* Keys wide enough that hashing them needs memory: a failed allocation anywhere in a put,
 * its hash or a split leaves a dictionary that verifies and still holds every key. */
START_TEST(failed_allocations_never_half_split)
{
    enum { N = 300, W = 40 };
    tc_alloc *aa = tc_arena_alloc(tc_fixture_arena());
    tc_pdict *pd = pdict_ok(_i);
    tc_term keys[N];
    for (int i = 0; i < N; i++) {
        tc_term e[W];
        for (int j = 0; j < W; j++)
            e[j] = tc_make_small(j == 0 ? i : j);
        keys[i] = tc_term_tuple(aa, e, W);
    }
    for (int i = 0; i < N; i++) {
        tc_term old;
        tc_mem_fail_at(1 + (uint64_t)(i % 4));
        tc_result r = tc_pdict_put(pd, aa, keys[i], tc_make_small(i), &old);
        tc_mem_fail_at(0);
        ck_assert(r == TC_OK || r == TC_ENOMEM);
        verify_ok(pd);
        if (r == TC_ENOMEM)
            put_ok(pd, keys[i], tc_make_small(i));
    }
    for (int i = 0; i < N; i++)
        ck_assert_uint_eq(get_ok(pd, keys[i]), tc_make_small(i));
    tc_pdict_free(pd);
}
END_TEST

/* A process's dictionary is part of its root set: values survive every GC, moved, and the
 * heap stays valid. Without the roots the first GC would leave the slots dangling. */
START_TEST(dictionary_values_survive_gcs)
{
    static const char *const eras[] = {"r10b", "otp25"};
    for (int e = 0; e < 2; e++) {
        tc_policy pol;
        ck_assert(tc_policy_preset(eras[e], &pol) == TC_OK);
        tc_mseg *mem = tc_mseg_new(&pol.mem);
        tc_proc *p;
        ck_assert(mem != NULL && tc_proc_new(mem, &pol, &p) == TC_OK);
        tc_pdict *pd;
        ck_assert(tc_proc_dict(p, &pd) == TC_OK);
        tc_term ref[200];
        tc_alloc *arena = tc_arena_alloc(tc_fixture_arena());
        for (int i = 0; i < 200; i++) {
            tc_term v = tc_gen_term(arena, 3, false);
            ck_assert(v != TC_NON_VALUE);
            ref[i] = v;
            /* The value is copied onto the process heap first, as a process's own term. */
            uint64_t words;
            ck_assert(tc_term_flat_size(v, &words) == TC_OK);
            ck_assert(tc_proc_test_heap_maybe_gc(p, words + 3) == TC_OK);
            tc_term own = tc_copy_struct_fill(v, p->htop, words, &p->off_heap, NULL);
            p->htop += words;
            ck_assert(tc_pdict_put(pd, tc_proc_alloc(p), tc_make_small(i), own, NULL) == TC_OK);
            if (i % 16 == 0)
                ck_assert(tc_gc_collect(p, 0, p->x, 0) == TC_OK);
            const char *why;
            ck_assert_msg(tc_heap_verify(p, &why), "%s: %s", eras[e], why);
        }
        ck_assert(tc_gc_collect(p, 0, p->x, 0) == TC_OK);
        for (int i = 0; i < 200; i++)
            ck_assert(same(get_ok(pd, tc_make_small(i)), ref[i]));
        tc_proc_free(p);
        tc_mseg_free(mem);
    }
}
END_TEST

/* A GC that must grow the heap past sbct moves the block (it changes carrier kind): the
 * dictionary's slots are relocated with the rest of the roots. */
START_TEST(dictionary_follows_a_moved_heap)
{
    tc_policy pol = tc_preset_ok("otp25");
    tc_mseg *mem = tc_mseg_new(&pol.mem);
    tc_proc *p;
    ck_assert(mem != NULL && tc_proc_new(mem, &pol, &p) == TC_OK);
    tc_pdict *pd;
    ck_assert(tc_proc_dict(p, &pd) == TC_OK);
    for (int i = 0; i < 20; i++) {
        ck_assert(tc_proc_test_heap_maybe_gc(p, 5) == TC_OK);
        tc_term e[2] = {tc_make_small(i), tc_make_small(-i)};
        tc_term v = tc_term_tuple(tc_proc_alloc(p), e, 2);
        ck_assert(tc_pdict_put(pd, tc_proc_alloc(p), tc_make_small(i), v, NULL) == TC_OK);
    }
    const tc_term *before = p->heap;
    ck_assert(tc_gc_collect(p, 100000, p->x, 0) == TC_OK);
    ck_assert((uintptr_t)p->heap != (uintptr_t)before);
    const char *why;
    ck_assert_msg(tc_heap_verify(p, &why), "%s", why);
    for (int i = 0; i < 20; i++) {
        tc_term v = get_ok(pd, tc_make_small(i));
        ck_assert(tc_is_tuple(v) && tc_small_val(tc_tuple_element(v, 2)) == -i);
    }
    tc_proc_free(p);
    tc_mseg_free(mem);
}
END_TEST

/* The array after N puts (I = N..1) is the VM's, byte for byte as process_info counts it:
 * r13b01's rows in the mod design, otp25's in the mask design (tests/data/pdict-array.tsv). */
START_TEST(array_sizes_are_the_vms)
{
    FILE *f = fopen(TC_PDICT_TSV, "r");
    ck_assert_msg(f != NULL, "cannot open %s", TC_PDICT_TSV);
    char line[256];
    int rows = 0;
    tc_term hello = tc_read_ok("hello");
    while (fgets(line, sizeof line, f)) {
        /* vm, keys, dict_bytes; the header's keys column is not a number */
        char *vm = line, *tab = strchr(line, '\t'), *end;
        if (line[0] == '#' || !tab)
            continue;
        *tab = '\0';
        long keys = strtol(tab + 1, &end, 10);
        if (end == tab + 1 || *end != '\t')
            continue;
        long bytes = strtol(end + 1, &end, 10);
        bool r13 = strcmp(vm, "r13b01") == 0;
        ck_assert_msg(r13 || strcmp(vm, "otp25") == 0, "unknown vm %s", vm);
        tc_pdict *pd = pdict_ok(r13);
        for (long i = keys; i >= 1; i--)
            put_ok(pd, tc_make_small(i), hello);
        verify_ok(pd);
        long model = 32 + ((long)tc_pdict_array_slots(pd) - 1) * 8; /* PD_SZ2BYTES, sizeof(ProcDict) 32 */
        ck_assert_msg(model == bytes, "%s, %ld keys: the model's array is %ld bytes, the VM's %ld", vm, keys, model, bytes);
        tc_pdict_free(pd);
        rows++;
    }
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_ge(rows, 20);
}
END_TEST

/* Past 81920 slots R13B01's array is sized exactly, one realloc for each split that writes a
 * slot past its end; OTP 25's keeps doubling. From 81000 to 83000 keys: over 1000 reallocs
 * against one (163840 slots). */
START_TEST(mod_reallocs_once_a_split_past_81920_slots)
{
    tc_term hello = tc_read_ok("hello");
    uint64_t reallocs[2];
    for (int d = 0; d < 2; d++) {
        tc_pdict *pd = pdict_ok(d);
        int i = 83000;
        for (; i > 2000; i--)
            put_ok(pd, tc_make_small(i), hello);
        uint64_t before = tc_pdict_array_reallocs(pd);
        for (; i >= 1; i--)
            put_ok(pd, tc_make_small(i), hello);
        reallocs[d] = tc_pdict_array_reallocs(pd) - before;
        if (d == 1) /* the array ends at the last slot a split wrote */
            ck_assert_uint_le(tc_pdict_array_slots(pd), 83000 + 83000 / 5);
        tc_pdict_free(pd);
    }
    ck_assert_uint_le(reallocs[0], 1);
    ck_assert_uint_gt(reallocs[1], 1000);
}
END_TEST

/* put(K, undefined) then put(K, V): the second replaces and so does not grow (the VM returns
 * before its grow test); only puts that add a key do. */
START_TEST(replacing_an_undefined_value_does_not_grow)
{
    tc_pdict *pd = pdict_ok(_i);
    tc_term undefined = tc_read_ok("undefined");
    for (int i = 1; i <= 7; i++)
        put_ok(pd, tc_make_small(i), undefined);
    size_t slots = tc_pdict_array_slots(pd);
    uint64_t reallocs = tc_pdict_array_reallocs(pd);
    for (int round = 0; round < 50; round++)
        for (int i = 1; i <= 7; i++)
            put_ok(pd, tc_make_small(i), round % 2 ? undefined : tc_make_small(round));
    ck_assert_uint_eq(tc_pdict_array_slots(pd), slots);
    ck_assert_uint_eq(tc_pdict_array_reallocs(pd), reallocs);
    ck_assert_uint_eq(tc_pdict_size(pd), 7);
    verify_ok(pd);
    tc_pdict_free(pd);
}
END_TEST

START_TEST(a_bad_design_is_refused)
{
    tc_pdict *pd = NULL;
    ck_assert_int_eq(tc_pdict_new((tc_pdict_grow)(TC_PDICT_GROW_MOD + 1), source, &pd), TC_EBADARG);
    ck_assert_int_eq(tc_pdict_new(TC_PDICT_GROW_MOD, NULL, &pd), TC_EBADARG);
    ck_assert_ptr_null(pd);
}
END_TEST

/* The array is one block of the source (std_alloc's, ERTS_ALC_T_PROC_DICT): R13B01's grows
 * one split at a time past 81920 slots, in a single-block carrier resized a page at a time
 * (the era's sbc unit), so 100000 keys move it to a carrier of its own once and remap that
 * once a page, not once a realloc; nothing else is allocated. Freeing the dictionary frees
 * the block. */
START_TEST(array_is_a_block_of_the_source)
{
    tc_policy pol = tc_preset_ok("r13b");
    tc_mseg *own = tc_mseg_new(&pol.mem);
    ck_assert(own != NULL);
    tc_pdict *pd = NULL;
    ck_assert_int_eq(tc_pdict_new(TC_PDICT_GROW_MOD, own, &pd), TC_OK);
    ck_assert_uint_eq(tc_mseg_stats_get(own)->live_blocks, 0); /* made on the first put */
    tc_term hello = tc_read_ok("hello");
    tc_arena *heap = tc_arena_new(1u << 20); /* every put's words, allocated before counting */
    ck_assert(heap != NULL);
    uint64_t calls = tc_mem_calls();
    for (long i = 100000; i >= 1; i--)
        ck_assert(tc_pdict_put(pd, tc_arena_alloc(heap), tc_make_small(i), hello, NULL) == TC_OK);
    calls = tc_mem_calls() - calls;
    verify_ok(pd);
    const tc_mseg_stats *st = tc_mseg_stats_get(own);
    size_t slots = tc_pdict_array_slots(pd);
    uint64_t reallocs = tc_pdict_array_reallocs(pd);
    ck_assert_uint_eq(st->live_blocks, 1);
    ck_assert_uint_eq(st->sbc_blocks, 1); /* moved from its mbc once, at 81920 slots */
    /* 14 sizes up to 81920 (10, 20, ... 81920), one realloc each; every later realloc resizes
     * the sbc, and remaps it only when it needs another page. */
    ck_assert_uint_eq(reallocs - st->sbc_resizes, 14);
    uint64_t grown = (24 + slots * 8 + 4095) / 4096 - (24 + 81920 * 8 + 4095) / 4096;
    ck_assert_uint_le(st->sbc_remaps, grown + 1);
    ck_assert_uint_ge(st->sbc_remaps + 1, grown);
    /* The array's calls and the source's first carrier: the splits of small-integer keys keep
     * no buffer between their walks (they rehash), as the VM's grow keeps none. */
    ck_assert_uint_le(calls, reallocs + 1);
    tc_pdict_free(pd);
    tc_arena_free(heap);
    ck_assert_uint_eq(tc_mseg_stats_get(own)->live_blocks, 0);
    tc_mseg_free(own);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("heaps_pdict");
    TCase *tc = tcase_create("pdict");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, put_returns_the_old_value_and_get_finds_it, 0, 2);
    tcase_add_loop_test(tc, random_keys_against_an_oracle, 0, 2);
    tcase_add_loop_test(tc, many_small_keys_spread_evenly, 0, 2);
    tcase_add_loop_test(tc, out_of_memory_leaves_it_unchanged, 0, 2);
    tcase_add_loop_test(tc, failed_allocations_never_half_split, 0, 2);
    tcase_add_test(tc, array_sizes_are_the_vms);
    tcase_add_test(tc, mod_reallocs_once_a_split_past_81920_slots);
    tcase_add_loop_test(tc, replacing_an_undefined_value_does_not_grow, 0, 2);
    tcase_add_test(tc, a_bad_design_is_refused);
    tcase_add_test(tc, dictionary_values_survive_gcs);
    tcase_add_test(tc, dictionary_follows_a_moved_heap);
    tcase_add_test(tc, array_is_a_block_of_the_source);
    suite_add_tcase(s, tc);
    printf("seed %llu\n", (unsigned long long)tc_test_seed());
    return tc_run_suite(s);
}
