/*
 * Allocation failure over the public operations that the module suites do not already
 * sweep: each row runs its operation with the Nth allocation failing, for N = 1, 2, ...
 * until it completes. Every failure must be TC_ENOMEM from an allocation that really was
 * injected; after it and after the success, the source term is unchanged and verifies, the
 * table / process / dictionary the operation worked on verifies, a copy that promises
 * "nothing allocated" left its destination as it was, and once the row's state is freed
 * nothing is left allocated (tc_mem_live; LeakSanitizer in the sanitizer build).
 *
 * Swept elsewhere (not repeated here): the reader (check_codec_reader), ext encode and
 * decode (check_codec_ext), copy_shared and literal put (check_copy_shared, _literal),
 * send (check_heaps_send), proc spawn / HAlloc / GC / BIF / queue (check_heaps_enomem), an
 * ETS insert of a new key (check_stores_ets), pdict put and split (check_heaps_pdict).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/verify.h"
#include "heaps/proc_impl.h"
#include "heaps/gc.h"
#include "copy/compact.h"
#include "copy/copy_struct.h"
#include "codec/ext.h"
#include "copy/literal.h"
#include "copy/memcpy_floor.h"
#include "fixtures.h"
#include "stores/ets.h"
#include "terms/hash.h"
#include "heaps/pdict.h"
#include "heaps/verify.h"
#include "terms/atom.h"
#include "terms/binary.h"
#include "terms/compare.h"
#include "terms/node.h"
#include "codec/printer.h"
#include "codec/reader.h"
#include "terms/size.h"

/* A refc binary, a bitstring, a bignum, a float, a map, a pid, {}, and DEPTH levels of
 * {[x], {[x], ..., [y]}, [y]}: whichever order a walk takes the elements in, it keeps an
 * unvisited sibling per level on its stack, more than the stack's inline buffer. */
#define DEPTH 100
static const char rich_head[] = "{a, [1,2|3], <<0:1000>>, <<1:3>>, #{k => \"str\", 1.5 => [x]}, "
                                "123456789012345678901234567890, 1.5, <0.3.4>, {}, 'Ω', #Ref<0.1.2.3>, #Port<0.5>, "
                                "fun lists:seq/2, ";

static const char *rich_text(void)
{
    static char text[sizeof rich_head + 12 * DEPTH + 16];
    if (!text[0]) {
        char *p = text + sprintf(text, "%s", rich_head);
        for (int i = 0; i < DEPTH; i++)
            p += sprintf(p, "{[x], ");
        p += sprintf(p, "deep");
        for (int i = 0; i < DEPTH; i++)
            p += sprintf(p, ", [y]}");
        *p++ = '}';
    }
    return text;
}

typedef struct ctx {
    tc_arena *src, *dest;
    tc_term term, ref, out; /* the source, an equal copy read separately, the operation's result */
    size_t dest_used;
    char *text;
    unsigned char *bytes;
    size_t len;
    int order;
    bool flag;
    uint64_t words;
    tc_copy_compact *cc;
    tc_copy_literal_area *la;
    tc_term *raw;
    tc_ets *ets;
    tc_mseg *mem;
    tc_proc *proc;
    tc_heapfrag *frag;
    tc_arena *made;
    tc_pdict *pd;
} ctx;

/* What text cannot carry, as binary_to_term builds it: [a pid, a port and a ref of node x@y]
 * and a local fun with free variables 7 and {a,b} made on node a@b.c.dx. */
static const char remote_hex[] =
    "836C0000000358770378407900000001000000000000000759770378407900000002000000075A0003770378407900000007"
    "0000000100000002000000036A";
static const char fun_hex[] =
    "83700000005201C8AFC7993E9757F7C8F58247B8D4E1F900000000000000027706676F6C64656E61006206457E3C5877086140622E"
    "632E647800000001000000020000000361076802770161770162";

static tc_term decoded(tc_alloc *a, const char *hex)
{
    size_t n;
    unsigned char *b = tc_from_hex(hex, &n);
    tc_term t;
    ck_assert(tc_ext_decode(a, b, n, &t, NULL) == TC_OK);
    free(b);
    return t;
}

/* {R, R, Sub, Remote, Fun}: R the rich term (shared), Sub a sub binary of an unaligned bit
 * range, Remote and Fun what only bytes can carry. */
static tc_term rich(tc_arena *arena)
{
    tc_alloc *a = tc_arena_alloc(arena);
    tc_term r, bin;
    ck_assert(tc_term_read(a, rich_text(), strlen(rich_text()), &r, NULL) == TC_OK);
    ck_assert(tc_term_read(a, "<<0:1000>>", 10, &bin, NULL) == TC_OK);
    tc_term e[5] = {r, r, tc_term_sub_binary(a, bin, 1, 100, 3, 5), decoded(a, remote_hex), decoded(a, fun_hex)};
    ck_assert(e[2] != TC_NON_VALUE);
    tc_term t = tc_term_tuple(a, e, 5);
    ck_assert(t != TC_NON_VALUE);
    return t;
}

static tc_term read_in(tc_arena *arena, const char *text)
{
    tc_term t;
    ck_assert(tc_term_read(tc_arena_alloc(arena), text, strlen(text), &t, NULL) == TC_OK);
    return t;
}

static bool equal(tc_term a, tc_term b)
{
    bool eq;
    ck_assert(tc_term_equal(a, b, &eq) == TC_OK);
    return eq;
}

static void ets_table(ctx *c, tc_ets_lock_mode mode, bool compressed)
{
    tc_ets_opts o = tc_ets_opts_default(mode);
    o.compressed = compressed;
    ck_assert(tc_ets_new(&o, &c->ets) == TC_OK);
}

static void ets_put(ctx *c, tc_term obj) { ck_assert(tc_ets_insert(c->ets, obj, NULL) == TC_OK); }

static void ets_put_k0(ctx *c) { ets_put(c, read_in(c->src, "{k, 0}")); }

/* ---- the rows: setup (not under failure), op (under failure), check of a success ---- */

static tc_result op_print(ctx *c) { return tc_term_print(c->term, &c->text, &c->len); }
/* The text of a term with funs and remote pids does not read back: compared with the reference's. */
static void ok_print(ctx *c)
{
    char *want;
    ck_assert(tc_term_print(c->ref, &want, NULL) == TC_OK);
    ck_assert_str_eq(c->text, want);
    tc_mem_free(want);
}

static tc_result op_equal(ctx *c) { return tc_term_equal(c->term, c->ref, &c->flag); }
static void ok_equal(ctx *c) { ck_assert(c->flag); }
static tc_result op_compare(ctx *c) { return tc_term_compare(c->term, c->ref, &c->order); }
static tc_result op_compare_exact(ctx *c) { return tc_term_compare_exact(c->term, c->ref, &c->order); }
static void ok_order(ctx *c) { ck_assert_int_eq(c->order, 0); }

static tc_result op_flat_size(ctx *c) { return tc_term_flat_size(c->term, &c->words); }
static tc_result op_shared_size(ctx *c) { return tc_term_shared_size(c->term, &c->words); }
static tc_result op_flat_size_litopt(ctx *c)
{
    return tc_term_flat_size_litopt(c->term, &c->term, &c->term + 1, &c->words);
}
static void ok_flat(ctx *c) { ck_assert_uint_eq(c->words, tc_flat_ok(c->ref)); }
static void ok_shared(ctx *c) { ck_assert_uint_eq(c->words, tc_shared_ok(c->ref)); }

static tc_result op_ext_size(ctx *c) { return tc_ext_size(c->term, 2, &c->len); }
static void ok_ext_size(ctx *c)
{
    unsigned char *b;
    size_t n;
    ck_assert(tc_ext_encode(c->ref, 2, &b, &n) == TC_OK);
    ck_assert_uint_eq(c->len, n);
    tc_mem_free(b);
}

static tc_result op_copy_struct(ctx *c) { return tc_copy_struct(tc_arena_alloc(c->dest), c->term, NULL, &c->out, NULL); }
static void ok_copy(ctx *c) { ck_assert(tc_term_verify(c->out, NULL) && equal(c->out, c->ref)); }

static tc_result op_compact_in(ctx *c) { return tc_copy_compact_in(c->term, &c->cc, NULL); }
static void ok_compact_in(ctx *c)
{
    c->out = tc_copy_compact_term(c->cc);
    ok_copy(c);
}
static void setup_compact(ctx *c) { ck_assert(tc_copy_compact_in(c->term, &c->cc, NULL) == TC_OK); }
static tc_result op_compact_out(ctx *c) { return tc_copy_compact_out(tc_arena_alloc(c->dest), c->cc, &c->out, NULL); }
static tc_result op_compact_out_list(ctx *c)
{
    return tc_copy_compact_out_list(tc_arena_alloc(c->dest), c->cc, &c->out, NULL);
}
static void ok_list_of_copy(ctx *c)
{
    ck_assert(tc_is_list(c->out) && tc_cdr(c->out) == TC_NIL);
    c->out = tc_car(c->out);
    ok_copy(c);
}
static tc_result op_memcpy_floor(ctx *c)
{
    return tc_copy_memcpy_floor(tc_arena_alloc(c->dest), tc_copy_compact_words(c->cc), tc_copy_compact_size(c->cc),
                                &c->raw, NULL);
}
static void ok_memcpy_floor(ctx *c)
{
    ck_assert(memcmp(c->raw, tc_copy_compact_words(c->cc), tc_copy_compact_size(c->cc) * sizeof(tc_term)) == 0);
}

static tc_result op_literal_area_new(ctx *c)
{
    c->la = tc_copy_literal_area_new(4096);
    return c->la ? TC_OK : TC_ENOMEM;
}
static void ok_literal_area(ctx *c)
{
    ck_assert(tc_copy_literal_put(c->la, tc_make_small(1), c->term, NULL) == TC_OK);
    ck_assert(tc_copy_literal_get(c->la, tc_make_small(1), &c->out) == TC_OK);
    ok_copy(c);
}

static tc_result op_arena_new(ctx *c)
{
    c->made = tc_arena_new(0);
    return c->made ? TC_OK : TC_ENOMEM;
}
static void ok_arena(ctx *c) { ck_assert(tc_arena_alloc(c->made) != NULL); }

static tc_result op_atom_intern(ctx *c)
{
    static const char name[] = "a fresh atom for check_reliability_enomem";
    c->words = tc_atom_count();
    return tc_atom_intern(name, sizeof name - 1, &c->out);
}
static void ok_atom(ctx *c) { ck_assert(tc_atom_exists(c->out) && tc_atom_count() == c->words + 1); }
static void intact_atoms(ctx *c) { ck_assert_uint_eq(tc_atom_count(), c->words); }

static void setup_mseg(ctx *c)
{
    tc_mseg_config cfg = tc_mseg_default_config();
    c->mem = tc_mseg_new(&cfg);
    ck_assert(c->mem != NULL);
}
static tc_result op_mseg_new(ctx *c)
{
    tc_mseg_config cfg = tc_mseg_default_config();
    c->mem = tc_mseg_new(&cfg);
    return c->mem ? TC_OK : TC_ENOMEM;
}
static void ok_mseg(ctx *c) { ck_assert_uint_eq(tc_mseg_stats_get(c->mem)->live_blocks, 0); }
static tc_result op_heapfrag_new(ctx *c)
{
    c->frag = tc_heapfrag_new(c->mem, 100000);
    return c->frag ? TC_OK : TC_ENOMEM;
}
static void ok_heapfrag(ctx *c) { ck_assert_uint_eq(c->frag->alloc_size, 100000); }

static tc_result op_pdict_new(ctx *c) { return tc_pdict_new(TC_PDICT_GROW_MASK, c->mem, &c->pd); }
static void ok_pdict(ctx *c)
{
    tc_term v;
    ck_assert(tc_pdict_put(c->pd, tc_arena_alloc(c->dest), c->term, c->ref, NULL) == TC_OK);
    ck_assert(tc_pdict_get(c->pd, c->ref, &v) == TC_OK && v == c->ref);
    ck_assert(tc_pdict_verify(c->pd, NULL));
}

static tc_result op_ets_new(ctx *c)
{
    tc_ets_opts o = tc_ets_opts_default(TC_ETS_LOCK_READ_CONCURRENCY);
    return tc_ets_new(&o, &c->ets);
}
static tc_result op_ets_new_r13b(ctx *c)
{
    tc_ets_opts o = tc_ets_opts_default(TC_ETS_LOCK_R13B);
    return tc_ets_new(&o, &c->ets);
}
static void ok_ets_empty(ctx *c) { ck_assert_uint_eq(tc_ets_get_info(c->ets).objects, 0); }

/* 300 objects {I, I}: past the first segment, so inserts split buckets. */
static void setup_ets_full(ctx *c, bool compressed)
{
    ets_table(c, TC_ETS_LOCK_WRITE_CONCURRENCY, compressed);
    for (int64_t i = 0; i < 300; i++) {
        tc_term e[2] = {tc_make_small(i), tc_make_small(i)};
        ets_put(c, tc_term_tuple(tc_arena_alloc(c->src), e, 2));
    }
}
static void setup_ets_grow(ctx *c) { setup_ets_full(c, false); }
static void setup_ets_grow_compressed(ctx *c) { setup_ets_full(c, true); }
/* {k, 0} stored: an insert of {k, Rich} overwrites it. */
static void setup_ets_overwrite(ctx *c)
{
    ets_table(c, TC_ETS_LOCK_R13B, false);
    ets_put_k0(c);
}
static void setup_ets_overwrite_compressed(ctx *c)
{
    ets_table(c, TC_ETS_LOCK_NONE, true);
    ets_put_k0(c);
}
static tc_term rich_object(ctx *c)
{
    tc_term e[2] = {read_in(c->src, "k"), c->term};
    return tc_term_tuple(tc_arena_alloc(c->src), e, 2);
}
static tc_result op_ets_insert(ctx *c) { return tc_ets_insert(c->ets, c->out = rich_object(c), NULL); }
static tc_term ets_object(ctx *c, tc_term key)
{
    tc_term l;
    ck_assert(tc_ets_lookup(c->ets, key, tc_arena_alloc(c->dest), &l, NULL) == TC_OK);
    ck_assert(tc_is_list(l) && tc_cdr(l) == TC_NIL);
    return tc_car(l);
}
static void ok_ets_insert(ctx *c) { ck_assert(equal(ets_object(c, read_in(c->dest, "k")), c->out)); }
/* After a failed overwrite the old object is still there. */
static void intact_ets_k0(ctx *c)
{
    ck_assert(equal(ets_object(c, read_in(c->dest, "k")), read_in(c->dest, "{k, 0}")));
}
static void intact_ets_300(ctx *c) { ck_assert_uint_eq(tc_ets_get_info(c->ets).objects, 300); }

/* {k, Rich} stored in a compressed table: a lookup decodes it. */
static void setup_ets_rich(ctx *c, bool compressed)
{
    ets_table(c, TC_ETS_LOCK_READ_CONCURRENCY, compressed);
    ets_put(c, rich_object(c));
}
static void setup_ets_rich_compressed(ctx *c) { setup_ets_rich(c, true); }
static void setup_ets_rich_plain(ctx *c) { setup_ets_rich(c, false); }
static tc_result op_ets_lookup(ctx *c)
{
    return tc_ets_lookup(c->ets, read_in(c->src, "k"), tc_arena_alloc(c->dest), &c->out, NULL);
}
static void ok_ets_lookup(ctx *c)
{
    ck_assert(tc_is_list(c->out) && tc_cdr(c->out) == TC_NIL);
    ck_assert(tc_term_verify(tc_car(c->out), NULL) && equal(tc_car(c->out), rich_object(c)));
}
/* {c, MAX_SMALL}: adding 1 makes a bignum, so the object is stored anew. */
static void setup_ets_counter(ctx *c)
{
    ets_table(c, TC_ETS_LOCK_WRITE_CONCURRENCY, false);
    tc_term e[2] = {read_in(c->src, "c"), tc_make_small(TC_MAX_SMALL)};
    ets_put(c, tc_term_tuple(tc_arena_alloc(c->src), e, 2));
}
static void setup_ets_counter_compressed(ctx *c)
{
    ets_table(c, TC_ETS_LOCK_NONE, true);
    tc_term e[2] = {read_in(c->src, "c"), tc_make_small(TC_MAX_SMALL)};
    ets_put(c, tc_term_tuple(tc_arena_alloc(c->src), e, 2));
}
static tc_result op_ets_update_counter(ctx *c)
{
    return tc_ets_update_counter(c->ets, read_in(c->src, "c"), 2, 1, tc_arena_alloc(c->dest), &c->out);
}
static void ok_ets_counter(ctx *c)
{
    ck_assert(equal(c->out, read_in(c->dest, "576460752303423488")));
    ck_assert(equal(ets_object(c, read_in(c->dest, "c")), read_in(c->dest, "{c, 576460752303423488}")));
}
static void intact_ets_counter(ctx *c)
{
    ck_assert(equal(ets_object(c, read_in(c->dest, "c")), read_in(c->dest, "{c, 576460752303423487}")));
}
static tc_result op_ets_hash(ctx *c) { return tc_term_hash(c->term, &c->words); }
static void ok_ets_hash(ctx *c)
{
    uint64_t h;
    ck_assert(tc_term_hash(c->ref, &h) == TC_OK);
    ck_assert_uint_eq(h, c->words);
}
static void setup_ets_plain(ctx *c) { ets_table(c, TC_ETS_LOCK_WRITE_CONCURRENCY, false); }
static tc_result op_ets_lock_phase(ctx *c) { return tc_ets_lock_phase(c->ets, c->term, TC_ETS_WRITE); }
static void ok_nothing(ctx *c) { (void)c; }

/* A process with a min_heap_size heap: the lookup of {k, Rich} lands in a fragment. */
static void setup_ets_to_proc(ctx *c)
{
    setup_ets_rich_plain(c);
    tc_policy pol = tc_preset_ok("otp25");
    c->mem = tc_mseg_new(&pol.mem);
    ck_assert(c->mem != NULL && tc_proc_new(c->mem, &pol, &c->proc) == TC_OK);
}
static tc_result op_ets_lookup_to_proc(ctx *c)
{
    return tc_ets_lookup(c->ets, read_in(c->src, "k"), tc_proc_alloc(c->proc), &c->out, NULL);
}
static void ok_ets_to_proc(ctx *c)
{
    ck_assert_ptr_nonnull(c->proc->mbuf);
    ok_ets_lookup(c);
}
/* The same lookup from a compressed table: the object is decoded onto the heap. */
static void setup_ets_compressed_to_proc(ctx *c)
{
    setup_ets_rich_compressed(c);
    tc_policy pol = tc_preset_ok("otp25");
    c->mem = tc_mseg_new(&pol.mem);
    ck_assert(c->mem != NULL && tc_proc_new(c->mem, &pol, &c->proc) == TC_OK);
}
static void ok_ets_compressed_to_proc(ctx *c) { ok_ets_lookup(c); }
/* binary_to_term onto a process heap (HAlloc): a failure must leave the heap verifying. */
static void setup_ext_to_proc(ctx *c)
{
    ck_assert(tc_ext_encode(c->term, 2, &c->bytes, &c->len) == TC_OK);
    tc_policy pol = tc_preset_ok("otp25");
    c->mem = tc_mseg_new(&pol.mem);
    ck_assert(c->mem != NULL && tc_proc_new(c->mem, &pol, &c->proc) == TC_OK);
}
static tc_result op_ext_to_proc(ctx *c) { return tc_ext_decode(tc_proc_alloc(c->proc), c->bytes, c->len, &c->out, NULL); }
/* The same from the COMPRESSED form: zlib's own allocations fail too. */
static void setup_zext_to_proc(ctx *c)
{
    setup_ext_to_proc(c);
    tc_mem_free(c->bytes);
    ck_assert(tc_ext_encode_compressed(c->term, 2, TC_EXT_COMPRESSED_LEVEL, &c->bytes, &c->len) == TC_OK);
    ck_assert(c->bytes[1] == 80);
}
static tc_result op_ext_compressed(ctx *c) { return tc_ext_encode_compressed(c->term, 2, 6, &c->bytes, &c->len); }
static void ok_ext_compressed(ctx *c)
{
    tc_term back;
    ck_assert(tc_ext_decode(tc_arena_alloc(c->dest), c->bytes, c->len, &back, NULL) == TC_OK && equal(back, c->ref));
}
static void ok_ext_to_proc(ctx *c) { ck_assert(tc_term_verify(c->out, NULL) && equal(c->out, c->ref)); }

typedef struct row {
    const char *name;
    void (*setup)(ctx *c);
    tc_result (*op)(ctx *c);
    void (*ok)(ctx *c);
    void (*intact)(ctx *c); /* after a failure, beyond the common checks (may be NULL) */
    unsigned flags;
} row;
/* A failure leaves the destination arena untouched. */
#define NOTHING_ALLOCATED 1u
/* A global table may keep what it grew before the failing allocation (reachable and reused
 * by the next call; LeakSanitizer still reports a real leak). */
#define KEEPS_GROWTH 2u

static const row rows[] = {
    {"tc_term_print", NULL, op_print, ok_print, NULL, NOTHING_ALLOCATED},
    {"tc_term_equal", NULL, op_equal, ok_equal, NULL, NOTHING_ALLOCATED},
    {"tc_term_compare", NULL, op_compare, ok_order, NULL, NOTHING_ALLOCATED},
    {"tc_term_compare_exact", NULL, op_compare_exact, ok_order, NULL, NOTHING_ALLOCATED},
    {"tc_term_flat_size", NULL, op_flat_size, ok_flat, NULL, NOTHING_ALLOCATED},
    {"tc_term_shared_size", NULL, op_shared_size, ok_shared, NULL, NOTHING_ALLOCATED},
    {"tc_term_flat_size_litopt", NULL, op_flat_size_litopt, ok_flat, NULL, NOTHING_ALLOCATED},
    {"tc_atom_intern", NULL, op_atom_intern, ok_atom, intact_atoms, NOTHING_ALLOCATED | KEEPS_GROWTH},
    {"tc_arena_new", NULL, op_arena_new, ok_arena, NULL, NOTHING_ALLOCATED},
    {"tc_ext_size", NULL, op_ext_size, ok_ext_size, NULL, NOTHING_ALLOCATED},
    {"tc_copy_struct", NULL, op_copy_struct, ok_copy, NULL, NOTHING_ALLOCATED},
    {"tc_copy_compact_in", NULL, op_compact_in, ok_compact_in, NULL, NOTHING_ALLOCATED},
    {"tc_copy_compact_out", setup_compact, op_compact_out, ok_copy, NULL, NOTHING_ALLOCATED},
    {"tc_copy_compact_out_list", setup_compact, op_compact_out_list, ok_list_of_copy, NULL, NOTHING_ALLOCATED},
    {"tc_copy_memcpy_floor", setup_compact, op_memcpy_floor, ok_memcpy_floor, NULL, NOTHING_ALLOCATED},
    {"tc_copy_literal_area_new", NULL, op_literal_area_new, ok_literal_area, NULL, NOTHING_ALLOCATED},
    {"tc_mseg_new", NULL, op_mseg_new, ok_mseg, NULL, NOTHING_ALLOCATED},
    {"tc_heapfrag_new", setup_mseg, op_heapfrag_new, ok_heapfrag, NULL, NOTHING_ALLOCATED},
    {"tc_pdict_new", setup_mseg, op_pdict_new, ok_pdict, NULL, NOTHING_ALLOCATED},
    {"tc_ets_new read_concurrency", NULL, op_ets_new, ok_ets_empty, NULL, NOTHING_ALLOCATED},
    {"tc_ets_new r13b", NULL, op_ets_new_r13b, ok_ets_empty, NULL, NOTHING_ALLOCATED},
    {"tc_ets_insert growing", setup_ets_grow, op_ets_insert, ok_ets_insert, intact_ets_300, NOTHING_ALLOCATED},
    {"tc_ets_insert growing compressed", setup_ets_grow_compressed, op_ets_insert, ok_ets_insert, intact_ets_300,
     NOTHING_ALLOCATED},
    {"tc_ets_insert overwrite", setup_ets_overwrite, op_ets_insert, ok_ets_insert, intact_ets_k0, NOTHING_ALLOCATED},
    {"tc_ets_insert overwrite compressed", setup_ets_overwrite_compressed, op_ets_insert, ok_ets_insert,
     intact_ets_k0, NOTHING_ALLOCATED},
    {"tc_ets_lookup", setup_ets_rich_plain, op_ets_lookup, ok_ets_lookup, NULL, NOTHING_ALLOCATED},
    {"tc_ets_lookup compressed", setup_ets_rich_compressed, op_ets_lookup, ok_ets_lookup, NULL, 0},
    {"tc_ets_lookup onto a process", setup_ets_to_proc, op_ets_lookup_to_proc, ok_ets_to_proc, NULL, NOTHING_ALLOCATED},
    {"tc_ets_lookup compressed onto a process", setup_ets_compressed_to_proc, op_ets_lookup_to_proc,
     ok_ets_compressed_to_proc, NULL, 0},
    {"tc_ext_decode onto a process", setup_ext_to_proc, op_ext_to_proc, ok_ext_to_proc, NULL, 0},
    {"tc_ext_decode compressed onto a process", setup_zext_to_proc, op_ext_to_proc, ok_ext_to_proc, NULL, 0},
    {"tc_ext_encode_compressed", NULL, op_ext_compressed, ok_ext_compressed, NULL, NOTHING_ALLOCATED},
    {"tc_ets_update_counter to a bignum", setup_ets_counter, op_ets_update_counter, ok_ets_counter,
     intact_ets_counter, 0},
    {"tc_ets_update_counter compressed", setup_ets_counter_compressed, op_ets_update_counter, ok_ets_counter,
     intact_ets_counter, 0},
    {"tc_term_hash", NULL, op_ets_hash, ok_ets_hash, NULL, NOTHING_ALLOCATED},
    {"tc_ets_lock_phase", setup_ets_plain, op_ets_lock_phase, ok_nothing, NULL, NOTHING_ALLOCATED},
};
#define NROWS (sizeof rows / sizeof *rows)

static void free_ctx(ctx *c)
{
    tc_mem_free(c->text);
    tc_mem_free(c->bytes);
    tc_copy_compact_free(c->cc);
    tc_copy_literal_area_free(c->la);
    tc_ets_free(c->ets);
    tc_pdict_free(c->pd);
    if (c->frag)
        tc_heapfrag_free(c->mem, c->frag);
    tc_proc_free(c->proc);
    tc_mseg_free(c->mem);
    tc_arena_free(c->made);
    tc_arena_free(c->dest);
    tc_arena_free(c->src);
}

/* The common checks after an attempt: the source unchanged, the structures valid. */
static void common_checks(const row *w, ctx *c, uint64_t n)
{
    const char *why = NULL;
    ck_assert_msg(tc_term_verify(c->term, &why) && equal(c->term, c->ref), "%s, failing allocation %llu: source %s",
                  w->name, (unsigned long long)n, why ? why : "changed");
    if (c->ets)
        ck_assert_msg(tc_ets_verify(c->ets, &why), "%s, failing allocation %llu: %s", w->name,
                      (unsigned long long)n, why);
    if (c->pd)
        ck_assert_msg(tc_pdict_verify(c->pd, &why), "%s, failing allocation %llu: %s", w->name,
                      (unsigned long long)n, why);
    if (c->proc)
        ck_assert_msg(tc_heap_verify(c->proc, &why), "%s, failing allocation %llu: %s", w->name,
                      (unsigned long long)n, why);
}

START_TEST(sweep)
{
    const row *w = &rows[_i];
    /* Interns every atom the rows use once (the atom table keeps what it grows), also the
     * node name that decoding a pid interns, the one a compressed ETS object gives a local
     * pid, and the dictionary's 'undefined'. */
    ctx warm = {.src = tc_arena_new(0)};
    ck_assert(warm.src != NULL);
    ck_assert(tc_ext_encode(read_in(warm.src, "{<0.1.2>, #Port<0.1>, #Ref<0.1.2.3>, k, 0, c, undefined}"), 2, &warm.bytes,
                            &warm.len) == TC_OK);
    ck_assert(tc_ext_decode(tc_arena_alloc(warm.src), warm.bytes, warm.len, &warm.out, NULL) == TC_OK);
    rich(warm.src);
    ck_assert(tc_node_ets_sysname() != TC_NON_VALUE); /* a compressed ETS object's local pids */
    free_ctx(&warm);
    unsigned failures = 0;
    for (uint64_t n = 1;; n++) {
        int64_t live = tc_mem_live();
        ctx c = {.src = tc_arena_new(0), .dest = tc_arena_new(0)};
        tc_arena *refs = tc_arena_new(0);
        ck_assert(c.src && c.dest && refs);
        c.term = rich(c.src);
        c.ref = rich(refs);
        if (w->setup)
            w->setup(&c);
        c.dest_used = tc_arena_used_words(c.dest);
        uint64_t calls = tc_mem_calls();
        tc_mem_fail_at(n);
        tc_result r = w->op(&c);
        tc_mem_fail_at(0);
        bool injected = tc_mem_calls() - calls >= n;
        common_checks(w, &c, n);
        if (r == TC_OK) {
            w->ok(&c);
            common_checks(w, &c, n);
        } else {
            ck_assert_msg(r == TC_ENOMEM && injected, "%s, failing allocation %llu: %s", w->name,
                          (unsigned long long)n, tc_result_name(r));
            if (w->flags & NOTHING_ALLOCATED)
                ck_assert_uint_eq(tc_arena_used_words(c.dest), c.dest_used);
            if (w->intact)
                w->intact(&c);
            failures++;
        }
        free_ctx(&c);
        tc_arena_free(refs);
        ck_assert_msg(tc_mem_live() == live || ((w->flags & KEEPS_GROWTH) && tc_mem_live() > live), "%s, failing allocation %llu: %lld blocks leaked", w->name,
                      (unsigned long long)n, (long long)(tc_mem_live() - live));
        if (r == TC_OK)
            break;
    }
    /* Every row allocates, so every row tested something. */
    ck_assert_msg(failures > 0, "%s never allocated", w->name);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("reliability_enomem");
    TCase *tc = tcase_create("every public operation");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, sweep, 0, (int)NROWS);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run_suite(suite()); }
