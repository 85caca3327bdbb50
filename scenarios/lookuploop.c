/* lookuploop.c — the 7.2 loop on a modelled process (lookuploop.h says what it models). */
#include "lookuploop.h"

#include <string.h>

#include "../heaps/gc.h"
#include "../heaps/verify.h"

tc_result tc_lookup_loop_new(const tc_policy *pol, size_t length, tc_lookup_loop *out, const char **what)
{
    memset(out, 0, sizeof *out);
    out->pol = *pol;
    tc_result r = TC_ENOMEM;
    /* The stored object {1, [1..N]}, built in an arena and stored in compact form. */
    *what = "arena";
    if (!(out->ar = tc_arena_new(0)))
        goto fail;
    *what = "list";
    tc_term *elems = tc_mem_alloc(length * sizeof *elems);
    if (!elems)
        goto fail;
    for (size_t i = 0; i < length; i++)
        elems[i] = tc_make_small((int64_t)i + 1);
    tc_term obj[2] = {tc_make_small(1), tc_term_list(tc_arena_alloc(out->ar), elems, length, TC_NIL)};
    tc_mem_free(elems);
    *what = "object";
    tc_term stored = obj[1] == TC_NON_VALUE ? TC_NON_VALUE : tc_term_tuple(tc_arena_alloc(out->ar), obj, 2);
    if (stored == TC_NON_VALUE)
        goto fail;
    *what = "store";
    if ((r = tc_copy_compact_in(stored, &out->db, NULL)) != TC_OK)
        goto fail;
    out->result_words = tc_copy_compact_size(out->db) + 2;
    *what = "memory source";
    r = TC_ENOMEM;
    if (!(out->mem = tc_mseg_new(&out->pol.mem)))
        goto fail;
    *what = "process";
    if ((r = tc_proc_new(out->mem, &out->pol, &out->p)) != TC_OK)
        goto fail;
    *what = "spawn";
    tc_term *hp = tc_proc_halloc(out->p, TC_LOOP_SPAWN_WORDS);
    if (!hp)
        goto fail;
    /* [Fun]: a cons (2), the fun (8: ERL_FUN_SIZE 5 + env Self, T, N) and T's reference (3). */
    tc_term *tab = hp + 10, *fun = hp + 2;
    tab[0] = TC_MAKE_HEADER(2, TC_SUBTAG_ARITYVAL);
    tab[1] = tc_make_small(7);
    tab[2] = tc_make_small(0);
    fun[0] = TC_MAKE_HEADER(7, TC_SUBTAG_ARITYVAL);
    for (int i = 1; i < 8; i++)
        fun[i] = tc_make_small(i);
    fun[6] = tc_make_boxed(tab);
    hp[0] = tc_make_boxed(fun);
    hp[1] = TC_NIL;
    tc_proc_x(out->p)[0] = tc_make_boxed(tab); /* Tab */
    tc_proc_x(out->p)[1] = tc_make_small(1);   /* Key */
    tc_proc_set_arity(out->p, 2);
    *what = "stack";
    for (int i = 0; i < TC_LOOP_BASE_STACK; i++)
        if ((r = tc_proc_push_maybe_gc(out->p, tc_make_small(i))) != TC_OK)
            goto fail;
    return TC_OK;
fail:
    tc_lookup_loop_free(out);
    return r;
}

tc_result tc_lookup_loop_step(tc_lookup_loop *l, const char **what)
{
    tc_proc *p = l->p;
    tc_result r;
    /* loop/2's frame (Tab, N), with allocate's one heap test (Tab and Key live in x0/x1):
     * Tab survives the BIF's GC there, where only the result is live in the registers, and is
     * read back from it for the tail call. */
    *what = "frame";
    if ((r = tc_proc_test_heap_maybe_gc(p, TC_LOOP_FRAME)) != TC_OK)
        return r;
    tc_term frame[TC_LOOP_FRAME] = {tc_proc_x(p)[0], tc_proc_x(p)[1]};
    for (int i = 0; i < TC_LOOP_FRAME; i++)
        if ((r = tc_proc_push_maybe_gc(p, frame[i])) != TC_OK)
            return r;
    tc_heapfrag *live = tc_proc_bif_enter(p);
    tc_term res;
    *what = "lookup";
    if ((r = tc_copy_out_list(l->pol.copy_out, tc_proc_alloc(p), l->db, &res, NULL)) != TC_OK)
        return r;
    *what = "gc after bif";
    if ((r = tc_proc_bif_return_maybe_gc(p, live, &res)) != TC_OK)
        return r;
    /* The loop drops the result, deallocates its frame and calls itself with Tab and Key. */
    tc_proc_x(p)[0] = *tc_proc_stack_slot(p, 1);
    tc_proc_x(p)[1] = *tc_proc_stack_slot(p, 0);
    tc_proc_pop(p, TC_LOOP_FRAME);
    tc_proc_set_arity(p, 2);
    *what = "gc at schedule";
    if (tc_proc_yield_requested(p) || l->pol.gc_trigger == TC_GC_AT_SCHEDULE)
        if ((r = tc_proc_schedule_in_maybe_gc(p)) != TC_OK)
            return r;
    return TC_OK;
}

void tc_lookup_loop_free(tc_lookup_loop *l)
{
    if (l->p)
        tc_proc_free(l->p);
    if (l->mem)
        tc_mseg_free(l->mem);
    if (l->db)
        tc_copy_compact_free(l->db);
    if (l->ar)
        tc_arena_free(l->ar);
    memset(l, 0, sizeof *l);
}

bool tc_lookup_loop_verify(const tc_lookup_loop *l, const char **why)
{
    tc_mem_unchecked(1);
    bool ok = tc_heap_verify(l->p, why);
    tc_mem_unchecked(0);
    return ok;
}
