/*
 * The ETS set table: insert, overwrite, lookup, delete and update_counter against what
 * ets does, the objects' blocks in the table's ets_alloc (an equal-size overwrite in place),
 * growth, the compressed option, out of memory, and a concurrent stress test per
 * lock mode compared with a sequential oracle. The seed is printed; TC_SEED repeats a run.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/verify.h"
#include "copy/compact.h"
#include "fixtures.h"
#include "gen.h"
#include "stores/ets.h"
#include "terms/binary.h"
#include "terms/compare.h"
#include "terms/node.h"

static tc_ets *table_ok(tc_ets_lock_mode mode, bool compressed)
{
    tc_ets_opts o = tc_ets_opts_default(mode);
    o.compressed = compressed;
    tc_ets *t = NULL;
    ck_assert_int_eq(tc_ets_new(&o, &t), TC_OK);
    return t;
}

static void verify_ok(const tc_ets *t)
{
    const char *why = NULL;
    ck_assert_msg(tc_ets_verify(t, &why), "tc_ets_verify: %s", why);
}

static void insert_ok(tc_ets *t, tc_term obj)
{
    ck_assert_int_eq(tc_ets_insert(t, obj, NULL), TC_OK);
    verify_ok(t);
}

static tc_term lookup_ok(tc_ets *t, tc_term key)
{
    tc_term out = TC_NON_VALUE;
    ck_assert_int_eq(tc_ets_lookup(t, key, tc_arena_alloc(tc_fixture_arena()), &out, NULL), TC_OK);
    return out;
}

/* The one object of a non-empty lookup. */
static tc_term object_ok(tc_ets *t, tc_term key)
{
    tc_term l = lookup_ok(t, key);
    ck_assert(tc_is_list(l));
    ck_assert_uint_eq(tc_cdr(l), TC_NIL);
    return tc_car(l);
}

static tc_ets_info info(const tc_ets *t) { return tc_ets_get_info(t); }

START_TEST(insert_lookup_delete_in_every_mode)
{
    for (unsigned m = 0; m < TC_ETS_LOCK_MODES; m++)
        for (int comp = 0; comp < 2; comp++) {
            tc_ets *t = table_ok((tc_ets_lock_mode)m, comp);
            insert_ok(t, tc_read_ok("{1, hello}"));
            insert_ok(t, tc_read_ok("{{a, \"b\"}, [1.5, <<\"xyz\">>], 7}"));
            ck_assert_str_eq(tc_print_ok(lookup_ok(t, tc_make_small(1))), "[{1,hello}]");
            ck_assert_str_eq(tc_print_ok(lookup_ok(t, tc_read_ok("{a, \"b\"}"))),
                             "[{{a,[98]},[1.5,<<120,121,122>>],7}]");
            ck_assert_uint_eq(lookup_ok(t, tc_make_small(2)), TC_NIL);
            ck_assert_uint_eq(lookup_ok(t, tc_read_ok("1.0")), TC_NIL); /* =:=, not == */
            bool found = false;
            ck_assert_int_eq(tc_ets_delete(t, tc_make_small(1), &found), TC_OK);
            ck_assert(found);
            ck_assert_int_eq(tc_ets_delete(t, tc_make_small(1), &found), TC_OK);
            ck_assert(!found);
            ck_assert_uint_eq(lookup_ok(t, tc_make_small(1)), TC_NIL);
            ck_assert_uint_eq(info(t).objects, 1);
            verify_ok(t);
            ck_assert_int_eq(tc_ets_insert(t, tc_read_ok("[1]"), NULL), TC_EBADARG);
            ck_assert_int_eq(tc_ets_insert(t, tc_read_ok("{}"), NULL), TC_EBADARG);
            tc_ets_free(t);
        }
}
END_TEST

START_TEST(overwrite_keeps_one_object_per_key)
{
    for (int comp = 0; comp < 2; comp++) {
        tc_ets *t = table_ok(TC_ETS_LOCK_WRITE_CONCURRENCY, comp);
        insert_ok(t, tc_read_ok("{k, 1}"));
        uint64_t words = info(t).stored_words;
        insert_ok(t, tc_read_ok("{k, [1,2,3]}"));
        insert_ok(t, tc_read_ok("{k, two}"));
        ck_assert_uint_eq(info(t).objects, 1);
        ck_assert_uint_eq(info(t).stored_words, words);
        ck_assert_str_eq(tc_print_ok(lookup_ok(t, tc_read_ok("k"))), "[{k,two}]");
        tc_ets_free(t);
    }
}
END_TEST

/* {K, lists:seq(From, From + L - 1)}. */
static tc_term big_object(long k, long from, long len)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term l = TC_NIL;
    for (long i = len - 1; i >= 0; i--)
        ck_assert((l = tc_term_cons(a, tc_make_small(from + i), l)) != TC_NON_VALUE);
    tc_term el[2] = {tc_make_small(k), l};
    tc_term t = tc_term_tuple(a, el, 2);
    ck_assert(t != TC_NON_VALUE);
    return t;
}

/* {k, [[1], [1], ...]}: len heads that size_object pushes. */
static tc_term object_of_lists(long k, long len)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term one = tc_term_cons(a, tc_make_small(1), TC_NIL), l = TC_NIL;
    for (long i = 0; i < len; i++)
        ck_assert((l = tc_term_cons(a, one, l)) != TC_NON_VALUE);
    tc_term el[2] = {tc_make_small(k), l};
    tc_term t = tc_term_tuple(a, el, 2);
    ck_assert(t != TC_NON_VALUE);
    return t;
}

/* An insert sizes its object (db_store_term's size_object) on the inserting scheduler's
 * temp_alloc: a table beside heaps with one walks 8193 pushed heads beyond the main carrier
 * into a carrier of its own; 8192 stay in it. */
START_TEST(insert_sizes_on_the_heaps_temp_alloc)
{
    tc_mseg_config hc = tc_mseg_default_config();
    hc.temp_mmbcs = 128 * 1024;
    tc_mseg *heaps = tc_mseg_new(&hc);
    ck_assert(heaps != NULL);
    const tc_mseg_stats *ts = tc_mseg_stats_get(tc_mseg_temp(heaps));
    tc_ets *t = table_ok(TC_ETS_LOCK_NONE, false);
    insert_ok(t, object_of_lists(1, 8193)); /* not sharing: no stack there */
    ck_assert_uint_eq(ts->mbc_blocks, 0);
    tc_ets_free(t);
    t = table_ok(TC_ETS_LOCK_NONE, false);
    ck_assert_int_eq(tc_ets_share_segments(t, heaps), TC_OK);
    insert_ok(t, object_of_lists(1, 8192));
    ck_assert_uint_eq(ts->mbc_blocks, 1);
    ck_assert_uint_eq(ts->carriers_mapped, 1);
    insert_ok(t, object_of_lists(2, 8193));
    ck_assert_uint_eq(ts->carriers_mapped, 2);
    ck_assert_uint_eq(ts->live_blocks, 0);
    tc_ets_free(t);
    tc_mseg_free(heaps);
}
END_TEST

/* Objects are ets_alloc blocks (db_store_term): a 160 KB object (20003 words, below sbct) is
 * placed in a multiblock carrier of the table's source, and an overwrite with an object of
 * the same size reuses its block in place (no new block, no new carrier: what keeps the
 * VM's overwrite loop at a few faults); an object of another size takes a new block. */
START_TEST(objects_live_in_ets_alloc)
{
    tc_ets *t = table_ok(TC_ETS_LOCK_NONE, false);
    const tc_mseg_stats *ms = tc_mseg_stats_get(tc_ets_mem(t));
    insert_ok(t, big_object(1, 1, 10000));
    ck_assert_uint_eq(ms->mbc_blocks, 1);
    ck_assert_uint_eq(ms->sbc_blocks, 0);
    ck_assert_uint_eq(ms->carriers_mapped, 1);
    insert_ok(t, big_object(1, 2, 10000));
    ck_assert_uint_eq(ms->mbc_blocks, 1);
    ck_assert_uint_eq(ms->live_blocks, 1);
    ck_assert_uint_eq(ms->carriers_mapped, 1);
    tc_term o = object_ok(t, tc_make_small(1));
    ck_assert_uint_eq(tc_car(tc_tuple_element(o, 2)), tc_make_small(2));
    insert_ok(t, tc_read_ok("{1, [1,2,3]}"));
    ck_assert_uint_eq(ms->mbc_blocks, 2);
    ck_assert_uint_eq(ms->live_blocks, 1);
    ck_assert_str_eq(tc_print_ok(lookup_ok(t, tc_make_small(1))), "[{1,[1,2,3]}]");
    tc_ets_free(t);
}
END_TEST

/* A table sharing the heaps' segment caches (one per thread, erl_mseg.c): an object above
 * sbct (80,003 words, 640 KB) takes the segment a heap block of that size left cached, and
 * its delete leaves the segment for the next heap block. */
START_TEST(objects_share_the_heaps_segments)
{
    tc_mseg_config hc = tc_mseg_default_config();
    tc_mseg *heaps = tc_mseg_new(&hc);
    ck_assert(heaps != NULL);
    tc_ets *t = table_ok(TC_ETS_LOCK_NONE, false);
    ck_assert_int_eq(tc_ets_share_segments(t, heaps), TC_OK);
    const tc_mseg_stats *ms = tc_mseg_stats_get(tc_ets_mem(t));
    tc_mseg_free_block(heaps, tc_mseg_alloc_block(heaps, 700 * 1024));
    ck_assert_uint_eq(tc_mseg_cached(heaps), 1);
    insert_ok(t, big_object(1, 1, 40000));
    ck_assert_uint_eq(ms->sbc_blocks, 1);
    ck_assert_uint_eq(ms->cache_hits, 1);
    ck_assert_uint_eq(ms->carriers_mapped, 0);
    ck_assert_uint_eq(tc_mseg_cached(heaps), 0);
    bool found;
    ck_assert_int_eq(tc_ets_delete(t, tc_make_small(1), &found), TC_OK);
    ck_assert(found);
    ck_assert_uint_eq(tc_mseg_cached(heaps), 1);
    ck_assert_uint_eq(tc_mseg_cached(tc_ets_mem(t)), 0);
    uint64_t hits = tc_mseg_stats_get(heaps)->cache_hits;
    tc_mseg_free_block(heaps, tc_mseg_alloc_block(heaps, 640 * 1024));
    ck_assert_uint_eq(tc_mseg_stats_get(heaps)->cache_hits, hits + 1);
    tc_ets_free(t);
    tc_mseg_free(heaps);
}
END_TEST

START_TEST(delete_frees_the_storage)
{
    tc_arena *a = tc_fixture_arena();
    /* Decoding a pid interns the node name, and a compressed object names a local pid's
     * node '3RT$': intern both now, so the atom table stays put. */
    tc_read_ok("'nonode@nohost'");
    ck_assert(tc_node_ets_sysname() != TC_NON_VALUE);
    for (int comp = 0; comp < 2; comp++) {
        tc_ets *t = table_ok(TC_ETS_LOCK_R13B, comp);
        /* A refc binary in the object: the table holds one reference while it stores it. */
        tc_term bin = tc_read_ok("<<0:800>>");
        atomic_long *refc = &((tc_binary *)(uintptr_t)tc_boxed_val(bin)[TC_PB_VAL])->refc;
        tc_term objs[200];
        for (int i = 0; i < 200; i++) {
            tc_term e[3] = {tc_make_small(i), tc_gen_term(tc_arena_alloc(a), 3, false), bin};
            objs[i] = tc_term_tuple(tc_arena_alloc(a), e, 3);
        }
        int64_t live = tc_mem_live();
        long refc0 = atomic_load(refc);
        for (int i = 0; i < 200; i++)
            ck_assert_int_eq(tc_ets_insert(t, objs[i], NULL), TC_OK);
        verify_ok(t);
        ck_assert_uint_gt(info(t).stored_bytes, 0);
        /* The stored compact form holds a reference, and so does the ProcBin a compressed
         * object keeps in its encoding (codec/ext_ets.h). */
        ck_assert_int_eq(atomic_load(refc), refc0 + 200);
        /* One ets_alloc block an object, its node in it (HashDbTerm): none from the C heap. */
        ck_assert_uint_eq(tc_mseg_stats_get(tc_ets_mem(t))->live_blocks, 200);
        ck_assert_int_eq(tc_mem_live(), live);
        for (int i = 0; i < 200; i++) {
            bool found;
            ck_assert_int_eq(tc_ets_delete(t, tc_make_small(i), &found), TC_OK);
            ck_assert(found);
        }
        verify_ok(t);
        tc_ets_info in = info(t);
        ck_assert_uint_eq(in.objects, 0);
        ck_assert_uint_eq(in.stored_words, 0);
        ck_assert_uint_eq(in.stored_bytes, 0);
        ck_assert_int_eq(atomic_load(refc), refc0);
        ck_assert_uint_eq(tc_mseg_stats_get(tc_ets_mem(t))->live_blocks, 0);
        ck_assert_msg(tc_mem_live() == live, "comp %d: %ld blocks left", comp, (long)(tc_mem_live() - live));
        tc_ets_free(t);
    }
}
END_TEST

START_TEST(a_lookup_result_is_independent_of_later_changes)
{
    for (int comp = 0; comp < 2; comp++) {
        tc_ets *t = table_ok(TC_ETS_LOCK_NONE, comp);
        insert_ok(t, tc_read_ok("{c, 5, [x, {y}], <<1,2,3>>}"));
        tc_term before = lookup_ok(t, tc_read_ok("c"));
        tc_term ref = tc_read_ok("[{c, 5, [x, {y}], <<1,2,3>>}]");
        tc_term r;
        ck_assert_int_eq(tc_ets_update_counter(t, tc_read_ok("c"), 2, 10, tc_arena_alloc(tc_fixture_arena()), &r),
                         TC_OK);
        ck_assert(tc_equal_ok(before, ref));
        insert_ok(t, tc_read_ok("{c, 6, [z]}"));
        ck_assert(tc_equal_ok(before, ref));
        ck_assert_int_eq(tc_ets_delete(t, tc_read_ok("c"), NULL), TC_OK);
        ck_assert(tc_equal_ok(before, ref));
        ck_assert(tc_term_verify(before, NULL));
        tc_ets_free(t);
    }
}
END_TEST

/* Random objects keyed on random terms, found again through a separately built equal
 * key, plain and compressed tables returning equal terms. */
START_TEST(random_terms_compressed_and_plain_agree)
{
    tc_arena *a = tc_fixture_arena();
    tc_alloc *aa = tc_arena_alloc(a);
    tc_ets *plain = table_ok(TC_ETS_LOCK_WRITE_CONCURRENCY, false);
    tc_ets *comp = table_ok(TC_ETS_LOCK_READ_CONCURRENCY, true);
    enum { N = 600 };
    tc_term objs[N];
    for (int i = 0; i < N; i++) {
        tc_term e[3] = {tc_gen_term(aa, 3, true), tc_gen_term(aa, 4, true), tc_make_small(i)};
        objs[i] = tc_term_tuple(aa, e, 3);
        ck_assert_int_eq(tc_ets_insert(plain, objs[i], NULL), TC_OK);
        ck_assert_int_eq(tc_ets_insert(comp, objs[i], NULL), TC_OK);
    }
    verify_ok(plain);
    verify_ok(comp);
    ck_assert_uint_eq(info(plain).objects, info(comp).objects);
    for (int i = 0; i < N; i++) {
        /* The key as a fresh copy: same value, different words. */
        tc_copy_compact *c;
        ck_assert_int_eq(tc_copy_compact_in(tc_tuple_element(objs[i], 1), &c, NULL), TC_OK);
        tc_term key;
        ck_assert_int_eq(tc_copy_compact_out(aa, c, &key, NULL), TC_OK);
        tc_copy_compact_free(c);
        tc_term p = object_ok(plain, key), q = object_ok(comp, key);
        ck_assert(tc_equal_ok(p, q));
        ck_assert(tc_term_verify(q, NULL));
        /* The last insert of an equal key wins. */
        int last = i;
        bool eq;
        for (int j = i + 1; j < N; j++)
            if (tc_term_equal(tc_tuple_element(objs[j], 1), key, &eq) == TC_OK && eq)
                last = j;
        ck_assert(tc_equal_ok(p, objs[last]));
    }
    tc_ets_free(plain);
    tc_ets_free(comp);
}
END_TEST

/* The objects' memory as ets:info(T, memory) counts it, per object on OTP 25.2.3 (words a
 * [set] and a [set, compressed] table grew by), through inserts, overwrites of another size,
 * an in-place update_counter, one that resizes, and deletes. */
START_TEST(memory_words_are_the_vms)
{
    static const struct {
        const char *obj;
        uint64_t plain, comp;
    } vm[] = {{"{k, [1,2,3,4,5,6,7,8,9,10]}", 27, 10}, {"{k, {1,2,3,4,5,6,7,8,9,10}}", 18, 11},
              {"{k, \"hello world\"}", 29, 10},       {"{k, 1.5}", 9, 10},
              {"{k, hello}", 7, 8},                    {"{k, #{a => 1, b => 2}}", 15, 10},
              {"{k, 1, 2}", 8, 9},                     {"{\"abc\", [1]}", 15, 15}};
    for (int comp = 0; comp < 2; comp++) {
        tc_ets *t = table_ok(TC_ETS_LOCK_WRITE_CONCURRENCY, comp);
        uint64_t sum = 0;
        for (size_t i = 0; i < sizeof vm / sizeof *vm; i++) {
            tc_term o = tc_read_ok(vm[i].obj), e[3] = {tc_make_small((int64_t)i), tc_tuple_element(o, 2), 0};
            uint64_t arity = tc_tuple_arity(o);
            if (arity == 3)
                e[2] = tc_tuple_element(o, 3);
            uint64_t words = comp ? vm[i].comp : vm[i].plain;
            tc_ets *one = table_ok(TC_ETS_LOCK_NONE, comp);
            insert_ok(one, o);
            ck_assert_msg(info(one).memory_words == words, "%s in a %s table: %llu words, the VM %llu", vm[i].obj,
                          comp ? "compressed" : "plain", (unsigned long long)info(one).memory_words,
                          (unsigned long long)words);
            tc_ets_free(one);
            /* The same with an integer key in place of k: an immediate either way. */
            insert_ok(t, tc_term_tuple(tc_arena_alloc(tc_fixture_arena()), e, arity));
            sum += tc_is_atom(tc_tuple_element(o, 1)) ? words : 0;
        }
        /* {\"abc\", [1]} became {7, [1]}: plain 4 + 5, compressed 2 + (16 + 8 * 4 + 4) / 8
         * rounded up */
        sum += 9;
        ck_assert_uint_eq(info(t).memory_words, sum);
        tc_term r;
        tc_alloc *aa = tc_arena_alloc(tc_fixture_arena());
        ck_assert_int_eq(tc_ets_update_counter(t, tc_make_small(6), 3, 1, aa, &r), TC_OK); /* in place */
        ck_assert_uint_eq(info(t).memory_words, sum);
        /* a bignum: 2 more words in the plain object, 11 bytes (2 words) in the compressed one */
        ck_assert_int_eq(tc_ets_update_counter(t, tc_make_small(6), 3, TC_MAX_SMALL, aa, &r), TC_OK);
        sum += 2;
        ck_assert_uint_eq(info(t).memory_words, sum);
        insert_ok(t, tc_read_ok("{0, 1}")); /* over {0, [1..10]}: 7 words plain, 8 compressed */
        ck_assert_uint_eq(info(t).memory_words, sum - (comp ? 10 : 27) + (comp ? 8 : 7));
        for (int64_t i = 0; i < (int64_t)(sizeof vm / sizeof *vm); i++) {
            bool found;
            ck_assert_int_eq(tc_ets_delete(t, tc_make_small(i), &found), TC_OK);
            ck_assert(found);
        }
        ck_assert_uint_eq(info(t).memory_words, 0);
        verify_ok(t);
        tc_ets_free(t);
    }
}
END_TEST

START_TEST(update_counter_in_place_and_resized)
{
    for (int comp = 0; comp < 2; comp++) {
        tc_ets *t = table_ok(TC_ETS_LOCK_R13B, comp);
        tc_alloc *aa = tc_arena_alloc(tc_fixture_arena());
        insert_ok(t, tc_read_ok("{n, 1, x}"));
        tc_term r;
        tc_term n = tc_read_ok("n");
        ck_assert_int_eq(tc_ets_update_counter(t, n, 2, 41, aa, &r), TC_OK);
        ck_assert_str_eq(tc_print_ok(r), "42");
        ck_assert_uint_eq(info(t).updates_in_place, 1); /* a compressed object keeps immediates too */
        /* Past the small range: a bignum, so a new stored object. */
        ck_assert_int_eq(tc_ets_update_counter(t, n, 2, INT64_MAX, aa, &r), TC_OK);
        ck_assert_str_eq(tc_print_ok(r), "9223372036854775849");
        verify_ok(t);
        ck_assert_int_eq(tc_ets_update_counter(t, n, 2, INT64_MAX, aa, &r), TC_OK);
        ck_assert_str_eq(tc_print_ok(r), "18446744073709551656");
        ck_assert_int_eq(tc_ets_update_counter(t, n, 2, INT64_MIN, aa, &r), TC_OK);
        ck_assert_int_eq(tc_ets_update_counter(t, n, 2, INT64_MIN, aa, &r), TC_OK);
        ck_assert_str_eq(tc_print_ok(r), "40");
        ck_assert_int_eq(tc_ets_update_counter(t, n, 2, -100, aa, &r), TC_OK);
        ck_assert_str_eq(tc_print_ok(r), "-60");
        ck_assert_uint_eq(info(t).updates_resized, 4);
        ck_assert_str_eq(tc_print_ok(lookup_ok(t, n)), "[{n,-60,x}]");
        verify_ok(t);
        /* badarg, and nothing changes. */
        ck_assert_int_eq(tc_ets_update_counter(t, tc_read_ok("m"), 2, 1, aa, &r), TC_EBADARG);
        ck_assert_int_eq(tc_ets_update_counter(t, n, 1, 1, aa, &r), TC_EBADARG);
        ck_assert_int_eq(tc_ets_update_counter(t, n, 3, 1, aa, &r), TC_EBADARG);
        ck_assert_int_eq(tc_ets_update_counter(t, n, 4, 1, aa, &r), TC_EBADARG);
        ck_assert_str_eq(tc_print_ok(lookup_ok(t, n)), "[{n,-60,x}]");
        verify_ok(t);
        tc_ets_free(t);
    }
}
END_TEST

START_TEST(the_table_grows_by_splitting_buckets)
{
    tc_ets *t = table_ok(TC_ETS_LOCK_WRITE_CONCURRENCY, false);
    tc_alloc *aa = tc_arena_alloc(tc_fixture_arena());
    tc_term hello = tc_read_ok("hello");
    enum { N = 20000 };
    for (int i = 0; i < N; i++) {
        tc_term e[2] = {tc_make_small(i), hello};
        ck_assert_int_eq(tc_ets_insert(t, tc_term_tuple(aa, e, 2), NULL), TC_OK);
    }
    tc_ets_info in = info(t);
    ck_assert_uint_eq(in.objects, N);
    ck_assert_uint_ge(in.buckets, N); /* GROW_LIMIT: no more objects than buckets */
    ck_assert_uint_le(in.buckets, N + 1);
    ck_assert_uint_eq(in.stored_words, 3u * N);
    verify_ok(t);
    for (int i = 0; i < N; i += 97)
        ck_assert_int_eq(tc_small_val(tc_tuple_element(object_ok(t, tc_make_small(i)), 1)), i);
    tc_ets_free(t);
}
END_TEST

/* Each era's split rule (erl_db_hash.c db_put_hash): the insert that first takes 256
 * buckets past their load splits one, and the one before it does not; after 20000 keys
 * the chains hold what the rule allows, and every key is found. */
START_TEST(each_eras_split_rule)
{
    static const struct {
        tc_ets_grow grow;
        unsigned first_split; /* the insert that makes bucket 257 */
        unsigned per_bucket;  /* the most objects per bucket after a split */
    } rules[] = {
        {TC_ETS_GROW_GT_1X, 257, 1},    /* nitems > nactive */
        {TC_ETS_GROW_GT_7X, 1793, 7},   /* nitems > 7 * nactive */
        {TC_ETS_GROW_DIV_GT_6, 1792, 7} /* nitems / nactive > 6 */
    };
    tc_alloc *aa = tc_arena_alloc(tc_fixture_arena());
    tc_term hello = tc_read_ok("hello");
    enum { N = 20000 };
    for (size_t k = 0; k < sizeof rules / sizeof *rules; k++) {
        tc_ets_opts o = tc_ets_opts_default(TC_ETS_LOCK_NONE);
        o.grow = rules[k].grow;
        tc_ets *t = NULL;
        ck_assert_int_eq(tc_ets_new(&o, &t), TC_OK);
        for (unsigned i = 1; i <= N; i++) {
            tc_term e[2] = {tc_make_small(i), hello};
            ck_assert_int_eq(tc_ets_insert(t, tc_term_tuple(aa, e, 2), NULL), TC_OK);
            if (i == rules[k].first_split - 1)
                ck_assert_uint_eq(info(t).buckets, 256);
            if (i == rules[k].first_split)
                ck_assert_uint_eq(info(t).buckets, 257);
        }
        tc_ets_info in = info(t);
        ck_assert_uint_eq(in.objects, N);
        ck_assert_uint_le(in.objects, in.buckets * rules[k].per_bucket);
        ck_assert_uint_gt(in.objects, (in.buckets - 1) * rules[k].per_bucket - 1);
        verify_ok(t);
        for (int i = 1; i <= N; i += 89)
            ck_assert_int_eq(tc_small_val(tc_tuple_element(object_ok(t, tc_make_small(i)), 1)), i);
        tc_ets_free(t);
    }
    tc_ets_opts bad = tc_ets_opts_default(TC_ETS_LOCK_NONE);
    bad.grow = (tc_ets_grow)(TC_ETS_GROW_DIV_GT_6 + 1);
    tc_ets *t = NULL;
    ck_assert_int_eq(tc_ets_new(&bad, &t), TC_EBADARG);
}
END_TEST

/* Each era's object block takes the bytes the VM's does: what the objects between two rows of
 * tests/data/ets-blocks.tsv take from ets_alloc, with the blocks' header words (a block's
 * usable bytes and its one header word, alloc/mseg.h), against the VM's measured difference.
 * R10B-2, R13B01 plain and SMP (owner_word), and OTP 25, each equal. */
START_TEST(object_blocks_are_the_vms)
{
    static const struct {
        const char *vm;
        tc_ets_term_head head;
        bool owner_word;
    } eras[] = {{"r10b-2-64", TC_ETS_TERM_HEAD_TPL_OFF_HEAP, false},
                {"r13b01-plain", TC_ETS_TERM_HEAD_OFF_HEAP, false},
                {"r13b01-smp", TC_ETS_TERM_HEAD_OFF_HEAP, true},
                {"otp25", TC_ETS_TERM_HEAD_FIRST_OH, false}};
    tc_alloc *aa = tc_arena_alloc(tc_fixture_arena());
    tc_term hello = tc_read_ok("hello");
    for (size_t k = 0; k < sizeof eras / sizeof *eras; k++) {
        FILE *f = fopen(TC_ETS_BLOCKS_TSV, "r");
        ck_assert_msg(f != NULL, "cannot open %s", TC_ETS_BLOCKS_TSV);
        char line[256];
        long n[2] = {0, 0}, bytes[2] = {0, 0};
        int rows = 0;
        while (fgets(line, sizeof line, f) && rows < 2) {
            size_t len = strlen(eras[k].vm);
            char *end;
            if (strncmp(line, eras[k].vm, len) != 0 || line[len] != '\t')
                continue;
            n[rows] = strtol(line + len + 1, &end, 10);
            bytes[rows] = strtol(end + 1, NULL, 10);
            rows++;
        }
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_msg(rows == 2 && n[1] > n[0], "%s: two rows in %s", eras[k].vm, TC_ETS_BLOCKS_TSV);
        tc_ets_opts o = tc_ets_opts_default(TC_ETS_LOCK_NONE);
        o.term_head = eras[k].head;
        o.owner_word = eras[k].owner_word;
        tc_ets *t = NULL;
        ck_assert_int_eq(tc_ets_new(&o, &t), TC_OK);
        uint64_t at[2] = {0, 0};
        for (long i = n[1], done = 0; i >= 1; i--) { /* I = N..1, as the VM's loop */
            tc_term e[2] = {tc_make_small(i), hello};
            ck_assert_int_eq(tc_ets_insert(t, tc_term_tuple(aa, e, 2), NULL), TC_OK);
            if (++done == n[0])
                at[0] = info(t).stored_bytes + (uint64_t)done * 8;
        }
        verify_ok(t);
        at[1] = info(t).stored_bytes + (uint64_t)n[1] * 8; /* one header word a block */
        long per = (long)(at[1] - at[0]) / (n[1] - n[0]), vm = (bytes[1] - bytes[0]) / (n[1] - n[0]);
        ck_assert_msg(per == vm, "%s: an object's block takes %ld bytes, the VM's %ld", eras[k].vm, per, vm);
        tc_ets_free(t);
    }
    tc_ets_opts bad = tc_ets_opts_default(TC_ETS_LOCK_NONE);
    bad.term_head = (tc_ets_term_head)(TC_ETS_TERM_HEAD_TPL_OFF_HEAP + 1);
    tc_ets *t = NULL;
    ck_assert_int_eq(tc_ets_new(&bad, &t), TC_EBADARG);
}
END_TEST

START_TEST(out_of_memory_is_a_result)
{
    for (int comp = 0; comp < 2; comp++) {
        tc_ets *t = table_ok(TC_ETS_LOCK_WRITE_CONCURRENCY, comp);
        insert_ok(t, tc_read_ok("{a, 1}"));
        tc_term obj = tc_read_ok("{b, [1, 2, {3}], <<0:1000>>}");
        int64_t live = tc_mem_live();
        tc_result r = TC_ENOMEM;
        for (uint64_t n = 1; r == TC_ENOMEM; n++) {
            tc_mem_fail_at(n);
            r = tc_ets_insert(t, obj, NULL);
            tc_mem_fail_at(0);
            verify_ok(t);
            if (r == TC_ENOMEM) {
                ck_assert_int_eq(tc_mem_live(), live);
                ck_assert_uint_eq(info(t).objects, 1);
            }
        }
        ck_assert_int_eq(r, TC_OK);
        tc_offheap oh = {0};
        tc_alloc failing = {tc_null_alloc, &oh, NULL};
        tc_term out = TC_NIL, res;
        ck_assert_int_eq(tc_ets_lookup(t, tc_read_ok("b"), &failing, &out, NULL), TC_ENOMEM);
        ck_assert_int_eq(tc_ets_update_counter(t, tc_read_ok("a"), 2, INT64_MAX, &failing, &res), TC_ENOMEM);
        ck_assert_str_eq(tc_print_ok(lookup_ok(t, tc_read_ok("a"))), "[{a,1}]");
        verify_ok(t);
        tc_ets_free(t);
    }
}
END_TEST

/* ---- the concurrent stress test ------------------------------------------------------- */

/*
 * Each worker owns the keys k with k % workers == its index and inserts, deletes, updates
 * and looks them up; everybody looks up everybody's keys and bumps shared counters. An
 * object is {K, Count, {K, Version}, Pool[Version % POOL]}: a torn object would break the
 * tie between its elements. Afterwards the table must equal what each worker's own
 * sequence of operations, replayed alone, leaves, and each shared counter the sum of the
 * increments.
 */
enum { KEYS = 512, COUNTERS = 4, POOL = 32, OPS = 12000, SLICE = 64 };

typedef struct oracle_entry {
    bool present;
    int64_t count;
    uint64_t version;
} oracle_entry;

typedef struct stress {
    tc_ets *t;
    unsigned workers;
    tc_term pool[POOL];
    tc_term counter_key[COUNTERS];
    oracle_entry expect[KEYS];      /* each worker writes only its own keys */
    int64_t counter_sum[8][COUNTERS];
    atomic_int failures;
    const char *failure;
} stress;

typedef struct worker {
    stress *s;
    unsigned id;
    uint64_t rng;
    tc_arena *heap;
    int done;
} worker;

static uint64_t wrand(worker *w)
{
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return w->rng;
}

static void note_failure(stress *s, const char *why)
{
    if (atomic_fetch_add(&s->failures, 1) == 0)
        s->failure = why;
}

static tc_term make_obj(worker *w, uint64_t k, int64_t count, uint64_t version)
{
    tc_alloc *a = tc_arena_alloc(w->heap);
    tc_term tag[2] = {tc_make_small((int64_t)k), tc_make_small((int64_t)version)};
    tc_term e[4] = {tc_make_small((int64_t)k), tc_make_small(count), tc_term_tuple(a, tag, 2),
                    w->s->pool[version % POOL]};
    return tc_term_tuple(a, e, 4);
}

/* Whether a looked-up value could have been inserted for key k. */
static bool consistent(const stress *s, tc_term l, uint64_t k)
{
    if (l == TC_NIL)
        return true;
    if (!tc_is_list(l) || tc_cdr(l) != TC_NIL || !tc_term_verify(l, NULL))
        return false;
    tc_term o = tc_car(l);
    if (!tc_is_tuple(o) || tc_tuple_arity(o) != 4 || tc_tuple_element(o, 1) != tc_make_small((int64_t)k) ||
        !tc_is_small(tc_tuple_element(o, 2)))
        return false;
    tc_term tag = tc_tuple_element(o, 3);
    if (!tc_is_tuple(tag) || tc_tuple_arity(tag) != 2 || tc_tuple_element(tag, 1) != tc_make_small((int64_t)k))
        return false;
    bool eq = false;
    uint64_t v = (uint64_t)tc_small_val(tc_tuple_element(tag, 2));
    return tc_term_equal(tc_tuple_element(o, 4), s->pool[v % POOL], &eq) == TC_OK && eq;
}

static void worker_steps(worker *w, int steps)
{
    stress *s = w->s;
    for (; steps > 0 && w->done < OPS; steps--, w->done++) {
        tc_arena_mark mark = tc_arena_get_mark(w->heap);
        uint64_t r = wrand(w), op = r % 10;
        uint64_t own = (r >> 8) % (KEYS / s->workers) * s->workers + w->id;
        uint64_t any = (r >> 24) % KEYS;
        oracle_entry *e = &s->expect[own];
        tc_term key = tc_make_small((int64_t)own), out, res;
        if (op < 3) {
            e->version++;
            e->count = e->present ? e->count : 0;
            if (tc_ets_insert(s->t, make_obj(w, own, e->count, e->version), NULL) != TC_OK)
                note_failure(s, "insert failed");
            e->present = true;
        } else if (op < 4) {
            bool found;
            if (tc_ets_delete(s->t, key, &found) != TC_OK || found != e->present)
                note_failure(s, "delete disagrees with the oracle");
            e->present = false;
        } else if (op < 6) {
            tc_result rr = tc_ets_update_counter(s->t, key, 2, 3, tc_arena_alloc(w->heap), &res);
            if (rr != (e->present ? TC_OK : TC_EBADARG) || (e->present && res != tc_make_small(e->count + 3)))
                note_failure(s, "update_counter disagrees with the oracle");
            if (e->present)
                e->count += 3;
        } else if (op < 7) {
            unsigned c = (unsigned)(r >> 40) % COUNTERS;
            int64_t incr = (int64_t)(r >> 48) % 5 + 1;
            if (tc_ets_update_counter(s->t, s->counter_key[c], 2, incr, tc_arena_alloc(w->heap), &res) != TC_OK)
                note_failure(s, "update_counter on a shared counter failed");
            s->counter_sum[w->id][c] += incr;
        } else {
            if (tc_ets_lookup(s->t, tc_make_small((int64_t)any), tc_arena_alloc(w->heap), &out, NULL) != TC_OK ||
                !consistent(s, out, any))
                note_failure(s, "a lookup returned an object nobody inserted");
            if (op == 9) { /* my own key: exactly what I left */
                if (tc_ets_lookup(s->t, key, tc_arena_alloc(w->heap), &out, NULL) != TC_OK ||
                    (out == TC_NIL) == e->present ||
                    (e->present && tc_tuple_element(tc_car(out), 2) != tc_make_small(e->count)))
                    note_failure(s, "a lookup of my own key disagrees with the oracle");
            }
        }
        tc_arena_rollback(w->heap, mark);
    }
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    worker_steps(w, OPS);
    return NULL;
}

static void run_stress(tc_ets_lock_mode mode, bool compressed, unsigned workers)
{
    static stress s;
    memset(&s, 0, sizeof s);
    s.workers = workers;
    tc_arena *a = tc_fixture_arena();
    for (unsigned i = 0; i < POOL; i++)
        s.pool[i] = tc_gen_term(tc_arena_alloc(a), 3, true);
    /* workers on threads share the table's one allocator instance: it locks (stores/ets.h) */
    tc_ets_opts shared = tc_ets_opts_default(mode);
    shared.compressed = compressed;
    shared.alloc_lock = mode != TC_ETS_LOCK_NONE;
    ck_assert_int_eq(tc_ets_new(&shared, &s.t), TC_OK);
    for (unsigned c = 0; c < COUNTERS; c++) {
        tc_term e[2] = {tc_make_small(-1 - (int64_t)c), tc_make_small(0)};
        s.counter_key[c] = e[0];
        insert_ok(s.t, tc_term_tuple(tc_arena_alloc(a), e, 2));
    }
    worker w[8];
    uint64_t seed = tc_test_seed();
    for (unsigned i = 0; i < workers; i++) {
        w[i] = (worker){&s, i, seed * 2654435761u + i + 1, tc_arena_new(0), 0};
        ck_assert_ptr_nonnull(w[i].heap);
    }
    if (mode == TC_ETS_LOCK_NONE) {
        /* One scheduler: the workers take turns on this thread (-smp disable). */
        for (bool busy = true; busy;) {
            busy = false;
            for (unsigned i = 0; i < workers; i++) {
                worker_steps(&w[i], SLICE);
                busy |= w[i].done < OPS;
            }
        }
    } else {
        pthread_t th[8];
        for (unsigned i = 0; i < workers; i++)
            ck_assert_int_eq(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
        for (unsigned i = 0; i < workers; i++)
            pthread_join(th[i], NULL);
    }
    ck_assert_msg(atomic_load(&s.failures) == 0, "%s (%s, %u workers, %d failures)", s.failure,
                  tc_ets_lock_mode_name(mode), workers, atomic_load(&s.failures));
    verify_ok(s.t);
    /* The sequential oracle. */
    uint64_t present = 0;
    for (uint64_t k = 0; k < KEYS; k++) {
        tc_term l = lookup_ok(s.t, tc_make_small((int64_t)k));
        ck_assert((l != TC_NIL) == s.expect[k].present);
        if (l == TC_NIL)
            continue;
        present++;
        tc_term o = tc_car(l);
        ck_assert(consistent(&s, l, k));
        ck_assert_int_eq(tc_small_val(tc_tuple_element(o, 2)), s.expect[k].count);
        ck_assert_int_eq(tc_small_val(tc_tuple_element(tc_tuple_element(o, 3), 2)), (int64_t)s.expect[k].version);
    }
    for (unsigned c = 0; c < COUNTERS; c++) {
        int64_t sum = 0;
        for (unsigned i = 0; i < workers; i++)
            sum += s.counter_sum[i][c];
        tc_term o = object_ok(s.t, s.counter_key[c]);
        ck_assert_int_eq(tc_small_val(tc_tuple_element(o, 2)), sum); /* no lost update */
    }
    ck_assert_uint_eq(info(s.t).objects, present + COUNTERS);
    for (unsigned i = 0; i < workers; i++)
        tc_arena_free(w[i].heap);
    tc_ets_free(s.t);
}

START_TEST(concurrent_stress_per_lock_mode)
{
    tc_ets_lock_mode mode = (tc_ets_lock_mode)(_i / 2);
    for (unsigned workers = 2; workers <= 4; workers += 2)
        run_stress(mode, _i % 2, workers);
}
END_TEST

START_TEST(lock_mode_names_round_trip)
{
    for (unsigned m = 0; m < TC_ETS_LOCK_MODES; m++) {
        tc_ets_lock_mode back;
        ck_assert(tc_ets_lock_mode_parse(tc_ets_lock_mode_name((tc_ets_lock_mode)m), &back));
        ck_assert_int_eq(back, m);
    }
    tc_ets_lock_mode x;
    ck_assert(!tc_ets_lock_mode_parse("smp", &x));
    tc_ets_opts o = tc_ets_opts_default(TC_ETS_LOCK_WRITE_CONCURRENCY);
    tc_ets *t;
    o.bucket_locks = 48;
    ck_assert_int_eq(tc_ets_new(&o, &t), TC_EBADARG);
    o.bucket_locks = 16;
    ck_assert_int_eq(tc_ets_new(&o, &t), TC_OK);
    tc_ets_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("heaps_ets");
    TCase *tc = tcase_create("ets");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, insert_lookup_delete_in_every_mode);
    tcase_add_test(tc, overwrite_keeps_one_object_per_key);
    tcase_add_test(tc, objects_live_in_ets_alloc);
    tcase_add_test(tc, objects_share_the_heaps_segments);
    tcase_add_test(tc, insert_sizes_on_the_heaps_temp_alloc);
    tcase_add_test(tc, delete_frees_the_storage);
    tcase_add_test(tc, a_lookup_result_is_independent_of_later_changes);
    tcase_add_test(tc, random_terms_compressed_and_plain_agree);
    tcase_add_test(tc, memory_words_are_the_vms);
    tcase_add_test(tc, update_counter_in_place_and_resized);
    tcase_add_test(tc, the_table_grows_by_splitting_buckets);
    tcase_add_test(tc, each_eras_split_rule);
    tcase_add_test(tc, object_blocks_are_the_vms);
    tcase_add_test(tc, out_of_memory_is_a_result);
    tcase_add_test(tc, lock_mode_names_round_trip);
    tcase_add_loop_test(tc, concurrent_stress_per_lock_mode, 0, 2 * TC_ETS_LOCK_MODES);
    suite_add_tcase(s, tc);
    printf("seed %llu\n", (unsigned long long)tc_test_seed());
    return tc_run_suite(s);
}
