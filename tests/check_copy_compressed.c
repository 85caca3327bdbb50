/* copy/compressed and codec/ext_ets: a compressed ETS object's stored size (the VM's, for
 * terms whose sizes were measured on OTP 25), its layout, the ETS form of each element, the
 * lookup's one allocation and its release, ProcBin references, round trips of random terms,
 * and out of memory at every allocation. */
#include <stdatomic.h>
#include <stdio.h>

#include "codec/ext.h"
#include "codec/ext_ets.h"
#include "codec/verify.h"
#include "copy/compressed.h"
#include "fixtures.h"
#include "gen.h"
#include "heaps/policy.h"
#include "heaps/proc.h"
#include "terms/atom.h"
#include "terms/binary.h"
#include "terms/ident.h"
#include "terms/node.h"

static long refc_of(tc_term procbin)
{
    return atomic_load(&((tc_binary *)(uintptr_t)tc_boxed_val(procbin)[TC_PB_VAL])->refc);
}

static tc_copy_compressed *store_ok(tc_term t, unsigned keypos)
{
    tc_copy_compressed *c = NULL;
    ck_assert_int_eq(tc_copy_compressed_store(NULL, 0, keypos, t, &c, NULL), TC_OK);
    return c;
}

/* The object back, checked: equal to t, well formed, and exactly the words the arena gave
 * out for it beyond the one allocation's released tail: its flat size, + 2 as [Object]. */
static tc_term lookup_ok(const tc_copy_compressed *c, tc_term t)
{
    tc_arena *ar = tc_fixture_arena();
    size_t before = tc_arena_used_words(ar);
    tc_term list;
    tc_copy_stats st = {0};
    ck_assert_int_eq(tc_copy_compressed_out_list(tc_arena_alloc(ar), c, &list, &st), TC_OK);
    ck_assert(tc_term_verify(list, NULL));
    tc_term obj = tc_car(list);
    ck_assert(tc_is_nil(tc_cdr(list)));
    ck_assert(tc_equal_ok(obj, t));
    uint64_t flat = tc_flat_ok(obj);
    ck_assert_uint_le(flat, tc_copy_compressed_size(c));
    ck_assert_uint_eq(tc_arena_used_words(ar) - before, flat + 2);
    ck_assert_uint_eq(st.words_written, flat + 2);
    return obj;
}

/* The object's stored bytes (db_size_dbterm_comp) and the words ets:info(T, memory) grew by
 * when OTP 25.2.3 stored it in a [set, compressed] table, minus the 2-word HashDbTerm header:
 * terms whose sizes do not depend on the VM instance. */
static const struct {
    const char *text;
    size_t bytes;
} measured[] = {
    {"{k, hello}", 48},                              /* 8 words per object on the VM */
    {"{k, 1.5}", 64},                                /* 10 */
    {"{k, [1,2,3,4,5,6,7,8,9,10]}", 64},             /* 10: STRING_EXT */
    {"{k, {1,2,3,4,5,6,7,8,9,10}}", 72},             /* 11 */
    {"{k, \"hello world\"}", 64},                    /* 10 */
    {"{k, <<1,2,3>>}", 56},                          /* 9 */
    {"{k, #{a => 1, b => 2}}", 64},                  /* 10: atoms as 3-byte indexes */
    {"{k, 1, 2}", 56},                               /* 9 */
    {"{\"abc\", [1]}", 104},                         /* 15: the key copied whole */
};

START_TEST(stored_size_is_the_vms)
{
    for (size_t i = 0; i < sizeof measured / sizeof *measured; i++) {
        tc_term t = tc_read_ok(measured[i].text);
        tc_copy_compressed *c = store_ok(t, 1);
        ck_assert_msg(tc_copy_compressed_bytes(c) == measured[i].bytes, "%s: %zu bytes, the VM %zu", measured[i].text,
                      tc_copy_compressed_bytes(c), measured[i].bytes);
        ck_assert_uint_eq(tc_copy_compressed_size(c), tc_flat_ok(t));
        lookup_ok(c, t);
        tc_copy_compressed_free(c);
    }
}
END_TEST

/* A refc binary of 100 bytes (15 words per object on the VM): its ProcBin is kept whole,
 * 1 + 48 bytes, holding a reference while stored. */
START_TEST(refc_binaries_are_kept_as_procbins)
{
    tc_term bin = tc_read_ok("<<0:800>>"), e[2] = {tc_read_ok("k"), bin};
    tc_term t = tc_term_tuple(tc_arena_alloc(tc_fixture_arena()), e, 2);
    long refc = refc_of(bin);
    tc_copy_compressed *c = store_ok(t, 1);
    ck_assert_uint_eq(tc_copy_compressed_bytes(c), 104);
    ck_assert_int_eq(refc_of(bin), refc + 1);
    tc_term obj = lookup_ok(c, t);
    ck_assert_int_eq(refc_of(bin), refc + 2);
    ck_assert_ptr_eq((void *)tc_boxed_val(tc_tuple_element(obj, 2))[TC_PB_VAL], (void *)tc_boxed_val(bin)[TC_PB_VAL]);
    tc_copy_compressed_free(c);
    ck_assert_int_eq(refc_of(bin), refc + 1); /* the lookup's copy, on the arena */
}
END_TEST

/* The block from a table's source is db_size_dbterm_comp's bytes, no more (DbTerm's header,
 * first_oh and size); a key's refc binaries, found by walking its copy, keep one reference
 * while the object is stored, over a store of the same size too, and none after. */
START_TEST(the_block_is_the_dbterm_and_the_keys_references_go_with_it)
{
    tc_mseg_config mc = tc_mseg_default_config();
    tc_mseg *mem = tc_mseg_new(&mc);
    ck_assert_ptr_nonnull(mem);
    tc_term bin = tc_read_ok("<<0:800>>"), other = tc_read_ok("<<1:800>>");
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term k[3] = {tc_read_ok("key"), bin, other}, key = tc_term_tuple(a, k, 3);
    tc_term e[3] = {key, tc_read_ok("[1,2,3]"), tc_make_small(7)}, t = tc_term_tuple(a, e, 3);
    long refc = refc_of(bin), refc_other = refc_of(other);
    tc_copy_compressed *c = NULL;
    ck_assert_int_eq(tc_copy_compressed_store(mem, 0, 1, t, &c, NULL), TC_OK);
    ck_assert_uint_eq(tc_mseg_block_bytes(c), tc_copy_compressed_bytes(c));
    ck_assert_int_eq(refc_of(bin), refc + 1);
    ck_assert_int_eq(refc_of(other), refc_other + 1);
    tc_copy_compressed *same = c;
    ck_assert_int_eq(tc_copy_compressed_store(mem, 0, 1, t, &same, NULL), TC_OK);
    ck_assert_ptr_eq(same, c);
    ck_assert_int_eq(refc_of(bin), refc + 1);
    lookup_ok(c, t);
    ck_assert_int_eq(refc_of(bin), refc + 2); /* and the lookup's copy, on the arena */
    tc_copy_compressed_free_at(mem, c, 0);
    ck_assert_int_eq(refc_of(bin), refc + 1);
    ck_assert_int_eq(refc_of(other), refc_other + 1);
    ck_assert_uint_eq(tc_mseg_stats_get(mem)->live_blocks, 0);
    tc_mseg_free(mem);
}
END_TEST

/* ETS form of single terms: no version byte, atoms by index, local pids named '3RT$'. */
START_TEST(element_encodings)
{
    size_t n;
    unsigned char buf[256], *oh = NULL;
    tc_term a = tc_read_ok("hello");
    ck_assert_int_eq(tc_ext_ets_size(a, NULL, &n), TC_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(tc_ext_ets_encode_into(a, NULL, buf, sizeof buf, &oh, &n), TC_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(buf[0], 'I');
    ck_assert_uint_eq((uint64_t)buf[1] << 8 | buf[2], tc_atom_index(a));
    /* Past index 65535 an atom takes 24 bits (ATOM_INTERNAL_REF3); decoding gives it back. */
    tc_term wide = tc_make_atom(70000);
    ck_assert_int_eq(tc_ext_ets_size(wide, NULL, &n), TC_OK);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(tc_ext_ets_encode_into(wide, NULL, buf, sizeof buf, &oh, &n), TC_OK);
    ck_assert_uint_eq(buf[0], 'K');
    ck_assert_uint_eq((uint64_t)buf[1] << 16 | (uint64_t)buf[2] << 8 | buf[3], 70000);
    /* Everything else as term_to_binary writes it, less the version byte. */
    const char *same[] = {"[1,2,3]", "{1.5, -7, 1000000000000000000000}", "<<1,2,3>>", "\"text\"", "[a|b]"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        tc_term t = tc_read_ok(same[i]);
        unsigned char *plain;
        size_t len;
        ck_assert_int_eq(tc_ext_encode(t, 1, &plain, &len), TC_OK);
        ck_assert_int_eq(tc_ext_ets_encode_into(t, NULL, buf, sizeof buf, &oh, &n), TC_OK);
        if (strchr(same[i], 'a')) { /* atoms differ: compare the sizes only */
            ck_assert_uint_ge(len - 1, n);
        } else {
            ck_assert_uint_eq(n, len - 1);
            ck_assert_mem_eq(buf, plain + 1, n);
        }
        tc_mem_free(plain);
    }
    /* A local pid: NEW_PID_EXT, node '3RT$' by index, creation 0; decoded, local again. */
    tc_term pid = tc_make_pid(77, 3), back;
    ck_assert_int_eq(tc_ext_ets_encode_into(pid, NULL, buf, sizeof buf, &oh, &n), TC_OK);
    ck_assert_uint_eq(n, 1 + 3 + 12);
    ck_assert_uint_eq(buf[1], 'I');
    ck_assert_uint_eq((uint64_t)buf[2] << 8 | buf[3], tc_atom_index(tc_node_ets_sysname()));
    ck_assert_int_eq(tc_ext_ets_decode(tc_arena_alloc(tc_fixture_arena()), buf, n, &back), TC_OK);
    ck_assert_uint_eq(back, pid);
    ck_assert_ptr_null(oh);
    /* The text '3RT$' names another atom (the secret one is found by no name): binary_to_term
     * makes a remote pid of it, as OTP 25 does (<8820.5.0>, node '3RT$'). */
    static const unsigned char text[] = {131, 88, 119, 4, '3', 'R', 'T', '$', 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 7};
    ck_assert_int_eq(tc_ext_decode(tc_arena_alloc(tc_fixture_arena()), text, sizeof text, &back, NULL), TC_OK);
    ck_assert(tc_is_boxed(back) && tc_is_external(back));
    ck_assert_uint_ne(tc_external_node(back)->sysname, tc_node_ets_sysname());
    size_t len;
    ck_assert_str_eq(tc_atom_name(tc_node_ets_sysname(), &len), "3RT$");
}
END_TEST

/* Sub binaries of a refc binary: above 32 bytes (heap_bin_size > PROC_BIN_SIZE) the ProcBin,
 * with the bit offset and size for a bitstring; the size pass counts those 2 bytes for any
 * sub binary (encode_size_struct_int), enc_term writes them for a bitstring only. At 32 bytes
 * or fewer the bytes, which come back as a heap binary: no more words than size_object's
 * ProcBin (fewer below 25 bytes); the size pass counts a slice's partial bytes twice. */
START_TEST(sub_binaries_of_refc_binaries)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term big = tc_read_ok("<<0:8000>>");
    struct {
        size_t offs, bytes;
        unsigned bitoffs, bits;
        size_t sized, written;
    } cases[] = {
        {10, 40, 0, 0, 3 + 48, 1 + 48}, /* byte-aligned: 'J', 2 bytes counted, not written */
        {10, 40, 3, 5, 3 + 48, 3 + 48}, /* a bitstring: 'L', offset, size */
        {10, 32, 0, 0, 5 + 32, 5 + 32}, /* 32 bytes: BINARY_EXT */
        {10, 31, 4, 4, 7 + 32, 6 + 32}, /* 31 bytes + 8 bits over two: BIT_BINARY_EXT, 1 counted twice */
        {10, 20, 0, 0, 5 + 20, 5 + 20}, /* a 5-word heap binary for a 6-word ProcBin */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tc_term sub = tc_term_sub_binary(a, big, cases[i].offs, cases[i].bytes, cases[i].bitoffs, cases[i].bits);
        ck_assert(sub != TC_NON_VALUE);
        size_t n;
        unsigned char buf[128], *oh = NULL;
        ck_assert_int_eq(tc_ext_ets_size(sub, NULL, &n), TC_OK);
        ck_assert_uint_eq(n, cases[i].sized);
        long refc = refc_of(big);
        ck_assert_int_eq(tc_ext_ets_encode_into(sub, NULL, buf, sizeof buf, &oh, &n), TC_OK);
        ck_assert_uint_eq(n, cases[i].written);
        bool kept = cases[i].bytes > 32;
        ck_assert_int_eq(refc_of(big), refc + kept);
        ck_assert(kept ? oh == buf + (cases[i].bits ? 3 : 1) : oh == NULL);
        tc_term back;
        ck_assert_int_eq(tc_ext_ets_decode(a, buf, n, &back), TC_OK);
        ck_assert(tc_term_verify(back, NULL));
        ck_assert(tc_equal_ok(back, sub));
        uint64_t words = tc_flat_ok(back);
        if (kept)
            ck_assert_uint_eq(words, tc_flat_ok(sub));
        else
            ck_assert_uint_le(words, tc_flat_ok(sub) - (cases[i].bytes == 20));
        tc_ext_ets_release(oh);
        ck_assert_int_eq(refc_of(big), refc + kept); /* the decoded copy's, on the arena */
    }
}
END_TEST

/* The ETS form through each path of the encoder's walk (codec/ext.c): containers among a
 * list's elements and in its tail, right-nested tuples, flat and hash maps, a 65,535-byte
 * string and a 65,536-element list. Without atoms its bytes are term_to_binary's less the
 * version byte; with atoms (of two characters or more: 3-byte indexes, shorter than their
 * text) fewer. The size pass counts what the write pass writes (nothing here makes the VM's
 * size count more) and the bytes decode back to the term. */
static void ets_form_ok(tc_term t, bool atoms)
{
    size_t size, n, len;
    unsigned char *oh = NULL, *plain;
    ck_assert_int_eq(tc_ext_ets_size(t, NULL, &size), TC_OK);
    unsigned char *buf = tc_mem_alloc(size);
    ck_assert_ptr_nonnull(buf);
    ck_assert_int_eq(tc_ext_ets_encode_into(t, NULL, buf, size, &oh, &n), TC_OK);
    ck_assert_uint_eq(n, size);
    ck_assert_ptr_null(oh);
    ck_assert_int_eq(tc_ext_encode(t, 2, &plain, &len), TC_OK);
    if (atoms) {
        ck_assert_uint_lt(n, len - 1);
    } else {
        ck_assert_uint_eq(n, len - 1);
        ck_assert_mem_eq(buf, plain + 1, n);
    }
    tc_mem_free(plain);
    tc_term back;
    ck_assert_int_eq(tc_ext_ets_decode(tc_arena_alloc(tc_fixture_arena()), buf, n, &back), TC_OK);
    ck_assert(tc_term_verify(back, NULL));
    ck_assert(tc_equal_ok(back, t));
    tc_mem_free(buf);
}

START_TEST(walk_paths_in_the_ets_form)
{
    static const struct {
        const char *text;
        bool atoms;
    } terms[] = {
        {"[{1,2},[3|4],5.5,{}|[[6]]]", false},
        {"[1,{2,[3,{4}]}|{7,{8,{9}}}]", false},
        {"{[1,2],{3,{4,{5}}},#{1 => [2], 3 => {4}}}", false},
        {"#{1 => aa, bb => [cc|dd], {ee} => <<1,2,3>>, \"f\" => 2.5}", true},
        {"[ab, bc, {cd, [de, ef]}, fg | gh]", true},
        {"{ok, {'\\x{1F600}', [xy, 12345678901234567890]}}", true},
    };
    for (size_t i = 0; i < sizeof terms / sizeof *terms; i++)
        ets_form_ok(tc_read_ok(terms[i].text), terms[i].atoms);
    /* hashmaps (over 32 keys): integer keys with container values, then atom keys */
    char text[2048];
    for (int atoms = 0; atoms < 2; atoms++) {
        size_t k = 0;
        for (int i = 1; i <= 40; i++)
            k += (size_t)snprintf(text + k, sizeof text - k, "%s%s%d => %s%d%s%s", i == 1 ? "#{" : ", ",
                                  atoms ? "key" : "", i, i % 2 ? "[" : "{", i, i % 2 ? "]" : "}", i == 40 ? "}" : "");
        ets_form_ok(tc_read_ok(text), atoms);
    }
    /* lists:seq(0, N - 1) rem 256: STRING_EXT up to 65,535 elements, LIST_EXT past */
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    static tc_term bytes[65536];
    for (size_t i = 0; i < 65536; i++)
        bytes[i] = tc_make_small((int64_t)(i % 256));
    ets_form_ok(tc_term_list(a, bytes, 65535, TC_NIL), false);
    ets_form_ok(tc_term_list(a, bytes, 65536, TC_NIL), false);
}
END_TEST

/* Layout: immediates and the key as they are, other elements as header-tagged offsets. */
START_TEST(top_tuple_layout)
{
    tc_term t = tc_read_ok("{1.5, {key, 1}, atom, [1,2], 7}");
    tc_copy_compressed *c = store_ok(t, 2);
    ck_assert_uint_eq(tc_copy_compressed_arity(c), 5);
    ck_assert(tc_equal_ok(tc_copy_compressed_key(c, 2), tc_read_ok("{key, 1}")));
    ck_assert_uint_eq(tc_copy_compressed_key(c, 1), TC_NON_VALUE); /* not the keypos: encoded */
    ck_assert_uint_eq(tc_copy_compressed_element(c, 1), TC_NON_VALUE);
    ck_assert(tc_equal_ok(tc_copy_compressed_element(c, 2), tc_read_ok("{key, 1}")));
    ck_assert_uint_eq(tc_copy_compressed_element(c, 3), tc_read_ok("atom"));
    ck_assert_uint_eq(tc_copy_compressed_element(c, 4), TC_NON_VALUE);
    ck_assert_uint_eq(tc_copy_compressed_element(c, 5), tc_make_small(7));
    /* 16 + 8 * (5 + 2 + 3 key words) + 9 (float) + 5 (STRING_EXT of 2) = 110 -> 112 */
    ck_assert_uint_eq(tc_copy_compressed_bytes(c), 112);
    tc_copy_compressed_set_immediate(c, 5, tc_make_small(8));
    lookup_ok(c, tc_read_ok("{1.5, {key, 1}, atom, [1,2], 8}"));
    tc_copy_compressed_free(c);
}
END_TEST

/* Random objects, keyed on random terms: stored, looked up equal, and every words count
 * as above; stored again over themselves (the same size: the block reused) and over others. */
START_TEST(random_round_trips)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_copy_compressed *prev = NULL;
    unsigned prev_keypos = 0;
    for (int i = 0; i < 2000; i++) {
        tc_term e[4] = {tc_gen_term(a, 3, true), tc_gen_term(a, 4, true), tc_make_small(i), tc_gen_term(a, 2, false)};
        tc_term t = tc_term_tuple(a, e, 1 + tc_rand_below(4));
        unsigned keypos = 1 + (unsigned)tc_rand_below(tc_tuple_arity(t));
        tc_copy_compressed *c = store_ok(t, keypos);
        ck_assert_uint_eq(tc_copy_compressed_size(c), tc_flat_ok(t));
        lookup_ok(c, t);
        size_t bytes = tc_copy_compressed_bytes(c);
        tc_copy_compressed *same = c;
        ck_assert_int_eq(tc_copy_compressed_store(NULL, 0, keypos, t, &same, NULL), TC_OK);
        ck_assert_ptr_eq(same, c); /* db_store_term_comp: the same size reuses the block */
        ck_assert_uint_eq(tc_copy_compressed_bytes(c), bytes);
        lookup_ok(c, t);
        if (prev && prev_keypos <= tc_tuple_arity(t)) {
            ck_assert_int_eq(tc_copy_compressed_store(NULL, 0, prev_keypos, t, &prev, NULL), TC_OK);
            lookup_ok(prev, t);
        }
        tc_copy_compressed_free(prev);
        prev = c;
        prev_keypos = keypos;
    }
    tc_copy_compressed_free(prev);
}
END_TEST

/* The lookup onto a process heap: HAlloc of size + 2 words, then HRelease of what decoding
 * left unused: the heap keeps exactly the result's words; in a fragment, mbuf_sz does. */
START_TEST(lookup_releases_onto_a_process)
{
    tc_mseg_config mc = tc_mseg_default_config();
    tc_mseg *mem = tc_mseg_new(&mc);
    ck_assert_ptr_nonnull(mem);
    tc_policy pol = tc_policy_native();
    tc_proc *p;
    ck_assert_int_eq(tc_proc_new(mem, &pol, &p), TC_OK);
    /* a 20-byte slice of a refc binary: size_object counts a ProcBin (6), it decodes to a heap
     * binary (5) */
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term sub = tc_term_sub_binary(a, tc_read_ok("<<0:8000>>"), 3, 20, 0, 0), e[2] = {tc_make_small(1), sub};
    tc_term t = tc_term_tuple(a, e, 2);
    tc_copy_compressed *c = store_ok(t, 1);
    ck_assert_uint_eq(tc_copy_compressed_size(c), 3 + 6);
    uint64_t used = tc_proc_heap_used(p);
    tc_term list;
    ck_assert_int_eq(tc_copy_compressed_out_list(tc_proc_alloc(p), c, &list, NULL), TC_OK);
    ck_assert_uint_eq(tc_proc_heap_used(p) - used, 3 + 5 + 2);
    ck_assert(tc_equal_ok(tc_car(list), t));
    /* A heap too full for size + 2: a fragment of size + 2 words, shrunk to what was used. */
    size_t fill = (size_t)tc_proc_heap_words_left(p) - 5;
    ck_assert_ptr_nonnull(tc_proc_halloc(p, fill));
    ck_assert_int_eq(tc_copy_compressed_out_list(tc_proc_alloc(p), c, &list, NULL), TC_OK);
    ck_assert_uint_eq(tc_proc_frag_size(p), 3 + 5 + 2);
    ck_assert_uint_eq(tc_proc_stats_get(p)->frag_words, 3 + 6 + 2);
    tc_copy_compressed_free(c);
    tc_proc_free(p);
    tc_mseg_free(mem);
}
END_TEST

/* Every allocation of a store (new and over an object of another size) and of a lookup
 * fails in turn: the result is TC_ENOMEM, the old object is whole, nothing leaks. */
START_TEST(out_of_memory_at_every_allocation)
{
    tc_term t = tc_read_ok("{k, <<0:800>>, [1.5, {a, <<1,2>>}], #{x => \"y\"}, 12345678901234567890}");
    tc_term u = tc_read_ok("{k, [other, 1]}");
    (void)tc_node_ets_sysname();
    tc_copy_compressed *old = store_ok(u, 1);
    int64_t live = tc_mem_live();
    for (uint64_t n = 1;; n++) {
        tc_copy_compressed *c = old;
        tc_mem_fail_at(n);
        tc_result r = tc_copy_compressed_store(NULL, 0, 1, t, &c, NULL);
        tc_mem_fail_at(0);
        if (r == TC_OK) {
            lookup_ok(c, t);
            tc_copy_compressed_free(c);
            break;
        }
        ck_assert_int_eq(r, TC_ENOMEM);
        ck_assert_ptr_eq(c, old);
        lookup_ok(old, u);
        ck_assert_int_eq(tc_mem_live(), live);
    }
    old = store_ok(t, 1);
    for (uint64_t n = 1;; n++) {
        live = tc_mem_live();
        tc_arena *ar = tc_arena_new(0);
        ck_assert_ptr_nonnull(ar);
        tc_term list = TC_NIL;
        tc_mem_fail_at(n);
        tc_result r = tc_copy_compressed_out_list(tc_arena_alloc(ar), old, &list, NULL);
        tc_mem_fail_at(0);
        if (r == TC_OK) {
            ck_assert(tc_equal_ok(tc_car(list), t));
            tc_arena_free(ar);
            break;
        }
        ck_assert_int_eq(r, TC_ENOMEM);
        ck_assert_uint_eq(list, TC_NIL);
        ck_assert_uint_eq(tc_arena_used_words(ar), 0);
        ck_assert_ptr_null(tc_arena_alloc(ar)->offheap->first);
        tc_arena_free(ar);
        ck_assert_int_eq(tc_mem_live(), live);
    }
    tc_copy_compressed_free(old);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy_compressed");
    TCase *tc = tcase_create("copy_compressed");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, stored_size_is_the_vms);
    tcase_add_test(tc, refc_binaries_are_kept_as_procbins);
    tcase_add_test(tc, the_block_is_the_dbterm_and_the_keys_references_go_with_it);
    tcase_add_test(tc, element_encodings);
    tcase_add_test(tc, sub_binaries_of_refc_binaries);
    tcase_add_test(tc, walk_paths_in_the_ets_form);
    tcase_add_test(tc, top_tuple_layout);
    tcase_add_test(tc, random_round_trips);
    tcase_add_test(tc, lookup_releases_onto_a_process);
    tcase_add_test(tc, out_of_memory_at_every_allocation);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
