#include "fun.h"

#include "atom.h"
#include "context_impl.h"
#include "ident.h"
#include "offheap.h"

tc_term tc_fun_external_atom(void)
{
    tc_term t = atomic_load(&tc__ctx()->funs.external_atom);
    if (t == TC_NON_VALUE) {
        /* 'external' fits the table unless it is full, when no fun can be built either. */
        if (tc_atom_intern("external", 8, &t) != TC_OK)
            return TC_NON_VALUE;
        atomic_store(&tc__ctx()->funs.external_atom, t);
    }
    return t;
}

tc_fun_entry *tc_fun_entry_put(tc_term module, int32_t old_uniq, int32_t old_index, const unsigned char uniq[16],
                               uint32_t index, unsigned arity)
{
    pthread_mutex_lock(&tc__ctx()->funs.lock);
    tc_fun_entry *fe = tc__ctx()->funs.funs;
    while (fe && !(fe->module == module && fe->old_uniq == old_uniq && fe->old_index == old_index))
        fe = fe->next;
    if (fe) {
        atomic_fetch_add(&fe->refc, 1);
    } else if ((fe = tc_mem_alloc(sizeof *fe)) != NULL) {
        atomic_init(&fe->refc, 1);
        fe->module = module;
        fe->old_uniq = old_uniq;
        fe->old_index = old_index;
        memcpy(fe->uniq, uniq, sizeof fe->uniq);
        fe->index = index;
        fe->arity = arity;
        fe->next = tc__ctx()->funs.funs;
        tc__ctx()->funs.funs = fe;
    }
    pthread_mutex_unlock(&tc__ctx()->funs.lock);
    return fe;
}

void tc_fun_entry_deref(tc_fun_entry *fe)
{
    pthread_mutex_lock(&tc__ctx()->funs.lock);
    if (atomic_fetch_sub(&fe->refc, 1) == 1) {
        tc_fun_entry **pp = &tc__ctx()->funs.funs;
        while (*pp != fe)
            pp = &(*pp)->next;
        *pp = fe->next;
        tc_mem_free(fe);
    }
    pthread_mutex_unlock(&tc__ctx()->funs.lock);
}

tc_export *tc_export_get(tc_term module, tc_term function, unsigned arity)
{
    pthread_mutex_lock(&tc__ctx()->funs.lock);
    tc_export *e = tc__ctx()->funs.exports;
    while (e && !(e->module == module && e->function == function && e->arity == arity))
        e = e->next;
    if (!e) {
        /* Export entries live as long as the program, as the VM's do: counted as live memory
         * the whole run, never freed, and outside tc_mem_live's leak checks. */
        tc_mem_unchecked(1);
        e = tc_mem_alloc(sizeof *e);
        tc_mem_unchecked(0);
        if (e) {
            e->module = module;
            e->function = function;
            e->arity = arity;
            e->next = tc__ctx()->funs.exports;
            tc__ctx()->funs.exports = e;
        }
    }
    pthread_mutex_unlock(&tc__ctx()->funs.lock);
    return e;
}

tc_term tc_term_export_fun(tc_alloc *a, tc_export *e)
{
    tc_term ext = tc_fun_external_atom();
    tc_term *p = ext == TC_NON_VALUE ? NULL : tc_alloc_words(a, TC_FUN_SIZE);
    if (!p)
        return TC_NON_VALUE;
    p[0] = TC_FUN_HEADER;
    p[TC_FUN_ENTRY] = (tc_term)(uintptr_t)e;
    p[TC_OH_NEXT] = 0;
    p[TC_FUN_ARITY_FREE] = e->arity;
    p[TC_FUN_CREATOR] = ext;
    return tc_make_boxed(p);
}

tc_term tc_term_local_fun(tc_alloc *a, tc_fun_entry *fe, tc_term creator, const tc_term *env, size_t num_free)
{
    TC_ASSERT(num_free <= TC_FUN_MAX_FREE);
    tc_term *p = tc_fun_external_atom() == TC_NON_VALUE ? NULL : tc_alloc_words(a, TC_FUN_SIZE + num_free);
    if (!p) {
        tc_fun_entry_deref(fe);
        return TC_NON_VALUE;
    }
    p[0] = TC_FUN_HEADER;
    p[TC_FUN_ENTRY] = (tc_term)(uintptr_t)fe;
    p[TC_FUN_ARITY_FREE] = (tc_term)fe->arity | (tc_term)num_free << 8;
    p[TC_FUN_CREATOR] = creator;
    for (size_t i = 0; i < num_free; i++)
        p[TC_FUN_ENV + i] = env ? env[i] : TC_NIL;
    tc_offheap_link(a->offheap, p);
    return tc_make_boxed(p);
}

const char *tc_fun_check(const tc_term *p)
{
    if (p[0] != TC_FUN_HEADER || p[TC_FUN_ENTRY] == 0)
        return "fun header or entry malformed";
    if (p[TC_FUN_ARITY_FREE] >> 16)
        return "fun arity word has bits past arity and num_free";
    if (!tc_fun_is_local(p)) {
        const tc_export *e = tc_fun_export_of(p);
        if (tc_fun_num_free(p) != 0 || p[TC_OH_NEXT] != 0 || tc_fun_arity(p) != e->arity)
            return "export fun with an environment, an off-heap link or the wrong arity";
        return NULL;
    }
    const tc_fun_entry *fe = tc_fun_entry_of(p);
    if (atomic_load(&fe->refc) < 1 || tc_fun_arity(p) != fe->arity)
        return "local fun without a live entry of its arity";
    if (!tc_is_any_pid(p[TC_FUN_CREATOR]))
        return "local fun whose creator is not a pid";
    return NULL;
}
