/* terms/ident, terms/fun, terms/node, terms/offheap: the words of refs, external things and
 * funs as OTP 25 lays them out, the shared node and fun entries and their counts, the
 * off-heap list through every copier and the GC, and the printed channel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/verify.h"
#include "fixtures.h"
#include "copy/compact.h"
#include "copy/copy_shared.h"
#include "copy/copy_struct.h"
#include "heaps/gc.h"
#include "heaps/proc_impl.h"
#include "heaps/verify.h"
#include "terms/atom.h"
#include "codec/ext.h"
#include "terms/fun.h"
#include "terms/ident.h"
#include "terms/offheap.h"

static tc_term decode_hex_ok(tc_alloc *a, const char *hex)
{
    size_t n;
    unsigned char *b = tc_from_hex(hex, &n);
    tc_term t;
    tc_read_error err = {0};
    ck_assert_msg(tc_ext_decode(a, b, n, &t, &err) == TC_OK, "%s: %s", hex, err.message);
    free(b);
    return t;
}

static size_t offheap_length(const tc_offheap *oh)
{
    size_t n = 0;
    for (const tc_term *p = oh->first; p; p = (const tc_term *)(uintptr_t)p[TC_OH_NEXT])
        n++;
    return n;
}

/* binary_to_term(<<131,88,119,8,"a@b.c.dx",0,0,0,1,0,0,0,2,0,0,0,3>>) and friends. */
#define REMOTE_PID "835877086140622E632E6478000000010000000200000003"
#define REMOTE_REF5 "835A000577086140622E632E6478000000030000000100000002000000030000000400000005"
#define LOCAL_FUN                                                                                                  \
    "83700000005201C8AFC7993E9757F7C8F58247B8D4E1F900000000000000027706676F6C64656E61006206457E3C58770D6E6F6E6F6465" \
    "406E6F686F737400000009000000000000000061076802770161770162"

START_TEST(words_are_the_vms)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    /* #Ref<0.1.2.3>: ErtsORefThing on 64-bit little endian. */
    const tc_term *r = tc_boxed_val(tc_read_ok("#Ref<0.1.2.3>"));
    ck_assert_uint_eq(r[0], 0x90); /* arity 2, REF_SUBTAG */
    ck_assert_uint_eq(r[1], UINT64_C(0x00000003FFFFFFFF));
    ck_assert_uint_eq(r[2], UINT64_C(0x0000000100000002));
    /* An external pid: header, node, next, num | serial << 32. */
    tc_term pid = decode_hex_ok(a, REMOTE_PID);
    const tc_term *p = tc_boxed_val(pid);
    ck_assert_uint_eq(p[0], (3u << 6) | (0xCu << 2));
    ck_assert_uint_eq(p[3], UINT64_C(0x0000000200000001));
    const tc_node *n = tc_external_node(pid);
    ck_assert_uint_eq(n->creation, 3);
    size_t len;
    ck_assert_str_eq(tc_atom_name(n->sysname, &len), "a@b.c.dx");
    /* An external ref of 5 numbers: 3 data words, the count first. */
    const tc_term *x = tc_boxed_val(decode_hex_ok(a, REMOTE_REF5));
    ck_assert_uint_eq(x[0], (5u << 6) | (0xEu << 2));
    ck_assert_uint_eq(x[3], UINT64_C(0x0000000100000005));
    ck_assert_uint_eq(x[4], UINT64_C(0x0000000300000002));
    ck_assert_uint_eq(x[5], UINT64_C(0x0000000500000004));
    /* A local fun of 2 free variables: HEADER_FUN, entry, next, arity | num_free << 8,
     * creator <0.9.0>, env. */
    tc_term f = decode_hex_ok(a, LOCAL_FUN);
    const tc_term *fp = tc_boxed_val(f);
    ck_assert_uint_eq(fp[0], (3u << 6) | (5u << 2));
    ck_assert_uint_eq(fp[TC_FUN_ARITY_FREE], 1u | 2u << 8);
    ck_assert_uint_eq(fp[TC_FUN_CREATOR], tc_make_pid(9, 0));
    ck_assert_uint_eq(fp[TC_FUN_ENV], tc_make_small(7));
    ck_assert(tc_fun_is_local(fp));
    ck_assert_uint_eq(tc_fun_entry_of(fp)->old_uniq, 105217596);
    /* An export fun: creator 'external', no link. */
    const tc_term *e = tc_boxed_val(tc_read_ok("fun lists:seq/2"));
    ck_assert(!tc_fun_is_local(e) && e[TC_OH_NEXT] == 0 && e[TC_FUN_ARITY_FREE] == 2);
    ck_assert(!tc_offheap_is_member(e));
    /* The printed channel of a remote node is its name's atom index. */
    char want[64];
    (void)snprintf(want, sizeof want, "<%llu.1.2>", (unsigned long long)tc_atom_index(n->sysname));
    ck_assert_str_eq(tc_print_ok(pid), want);
    ck_assert_uint_gt(tc_atom_index(n->sysname), 3);
}
END_TEST

START_TEST(entries_are_shared_and_counted)
{
    size_t nodes = tc_node_count();
    tc_arena *one = tc_arena_new(0), *two = tc_arena_new(0);
    ck_assert(one && two);
    tc_term p1 = decode_hex_ok(tc_arena_alloc(one), REMOTE_PID);
    tc_term p2 = decode_hex_ok(tc_arena_alloc(one), REMOTE_PID);
    tc_node *n = tc_external_node(p1);
    ck_assert_ptr_eq(n, tc_external_node(p2)); /* one entry per node, as erts_find_or_insert_node */
    ck_assert_uint_eq(tc_node_count(), nodes + 1);
    ck_assert_int_eq(atomic_load(&n->refc), 2);
    tc_term f = decode_hex_ok(tc_arena_alloc(one), LOCAL_FUN);
    tc_fun_entry *fe = tc_fun_entry_of(tc_boxed_val(f));
    ck_assert_int_eq(atomic_load(&fe->refc), 1);
    ck_assert_uint_eq(offheap_length(tc_arena_alloc(one)->offheap), 3);

    /* Every copier takes a reference and links the copy into the destination's list. */
    tc_term e[2] = {p1, f};
    tc_term t = tc_term_tuple(tc_arena_alloc(one), e, 2), c;
    ck_assert(tc_copy_struct(tc_arena_alloc(two), t, NULL, &c, NULL) == TC_OK);
    ck_assert_int_eq(atomic_load(&n->refc), 3);
    ck_assert_int_eq(atomic_load(&fe->refc), 2);
    ck_assert(tc_copy_shared(tc_arena_alloc(two), t, &c, NULL) == TC_OK);
    tc_copy_compact *cc;
    ck_assert(tc_copy_compact_in(t, &cc, NULL) == TC_OK);
    ck_assert(tc_copy_compact_out(tc_arena_alloc(two), cc, &c, NULL) == TC_OK);
    ck_assert_int_eq(atomic_load(&n->refc), 6);
    ck_assert_int_eq(atomic_load(&fe->refc), 5);
    ck_assert_uint_eq(offheap_length(tc_arena_alloc(two)->offheap), 6);
    ck_assert(tc_term_verify(c, NULL) && tc_equal_ok(c, t));
    tc_copy_compact_free(cc);
    ck_assert_int_eq(atomic_load(&n->refc), 5);
    tc_arena_free(two);
    ck_assert_int_eq(atomic_load(&n->refc), 2);
    ck_assert_int_eq(atomic_load(&fe->refc), 1);
    tc_arena_free(one);
    ck_assert_uint_eq(tc_node_count(), nodes); /* the last reference freed the entry */
}
END_TEST

/* A process holding a remote pid and a local fun: the GC moves them with their links, keeps
 * their entries, and drops the references of the ones that die. */
START_TEST(gc_keeps_and_drops_offheap_members)
{
    tc_policy pol = tc_preset_ok("otp25");
    tc_mseg *mem = tc_mseg_new(&pol.mem);
    ck_assert(mem != NULL);
    tc_proc *p;
    ck_assert(tc_proc_new(mem, &pol, &p) == TC_OK);
    size_t nodes = tc_node_count();
    tc_term pid = decode_hex_ok(tc_proc_alloc(p), REMOTE_PID);
    tc_term f = decode_hex_ok(tc_proc_alloc(p), LOCAL_FUN);
    tc_node *n = tc_external_node(pid);
    tc_fun_entry *fe = tc_fun_entry_of(tc_boxed_val(f));
    tc_term dead = decode_hex_ok(tc_proc_alloc(p), REMOTE_PID);
    (void)dead;
    ck_assert_int_eq(atomic_load(&n->refc), 2);
    p->x[0] = pid;
    p->x[1] = f;
    p->arity = 2;
    const char *why;
    ck_assert_msg(tc_heap_verify(p, &why), "%s", why);
    ck_assert(tc_gc_collect(p, 0, p->x, p->arity) == TC_OK);
    ck_assert_msg(tc_heap_verify(p, &why), "%s", why);
    ck_assert_int_eq(atomic_load(&n->refc), 1); /* the dead one was dropped */
    ck_assert_uint_eq(offheap_length(&p->off_heap), 2);
    ck_assert(tc_boxed_val(p->x[0]) != tc_boxed_val(pid)); /* moved */
    ck_assert_ptr_eq(tc_external_node(p->x[0]), n);
    for (int i = 0; i < 3; i++) { /* promoted to the old heap, then swept again */
        ck_assert(tc_gc_collect(p, 0, p->x, p->arity) == TC_OK);
        ck_assert_msg(tc_heap_verify(p, &why), "%s", why);
    }
    ck_assert_int_eq(atomic_load(&fe->refc), 1);
    p->arity = 0;
    p->policy.fullsweep_after = 0;
    ck_assert(tc_gc_collect(p, 0, p->x, p->arity) == TC_OK);
    ck_assert_msg(tc_heap_verify(p, &why), "%s", why);
    tc_proc_free(p);
    ck_assert_uint_eq(tc_node_count(), nodes);
    tc_mseg_free(mem);
}
END_TEST

/* Verifier: a broken ref, a fun off its list, an external thing without its node. */
START_TEST(verifier_knows_the_new_kinds)
{
    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    const char *why;
    tc_term r = tc_read_ok("#Ref<0.1.2.3>");
    tc_boxed_val(r)[1] &= ~UINT64_C(1); /* the ordinary-ref marker broken */
    ck_assert(!tc_term_verify(r, &why));
    tc_term f = decode_hex_ok(a, LOCAL_FUN);
    tc_boxed_val(f)[TC_FUN_CREATOR] = TC_NIL;
    ck_assert(!tc_term_verify(f, &why));
    tc_boxed_val(f)[TC_FUN_CREATOR] = tc_make_pid(9, 0);
    tc_boxed_val(f)[TC_FUN_ARITY_FREE] |= UINT64_C(1) << 20;
    ck_assert(!tc_term_verify(f, &why));
    tc_boxed_val(f)[TC_FUN_ARITY_FREE] &= ~(UINT64_C(1) << 20);
    ck_assert_msg(tc_term_verify(f, &why), "%s", why);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("terms_ident");
    TCase *tc = tcase_create("ident");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_add_test(tc, words_are_the_vms);
    tcase_add_test(tc, entries_are_shared_and_counted);
    tcase_add_test(tc, gc_keeps_and_drops_offheap_members);
    tcase_add_test(tc, verifier_knows_the_new_kinds);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
