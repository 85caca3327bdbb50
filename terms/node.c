#include "node.h"

#include "atom.h"
#include "context_impl.h"

tc_term tc_node_this_sysname(void)
{
    tc_term t;
    return tc_atom_intern("nonode@nohost", 13, &t) == TC_OK ? t : TC_NON_VALUE;
}

tc_term tc_node_ets_sysname(void) { return tc_atom_secret(); }

bool tc_node_is_this(tc_term sysname, uint32_t creation)
{
    size_t secret = atomic_load(&tc__ctx()->atoms.secret); /* asking never makes it */
    return (creation == 0 && sysname == tc_node_this_sysname()) || (secret && sysname == tc_make_atom(secret - 1));
}

tc_node *tc_node_find_or_insert(tc_term sysname, uint32_t creation)
{
    tc_context *ctx = tc__ctx();
    pthread_mutex_lock(&ctx->nodes.lock);
    tc_node *n = ctx->nodes.list;
    while (n && !(n->sysname == sysname && n->creation == creation))
        n = n->next;
    if (n) {
        atomic_fetch_add(&n->refc, 1);
    } else if ((n = tc_mem_alloc(sizeof *n)) != NULL) {
        atomic_init(&n->refc, 1);
        n->sysname = sysname;
        n->creation = creation;
        n->next = ctx->nodes.list;
        ctx->nodes.list = n;
        ctx->nodes.entries++;
    }
    pthread_mutex_unlock(&ctx->nodes.lock);
    return n;
}

void tc_node_ref(tc_node *n) { atomic_fetch_add(&n->refc, 1); }

void tc_node_deref(tc_node *n)
{
    tc_context *ctx = tc__ctx();
    pthread_mutex_lock(&ctx->nodes.lock);
    if (atomic_fetch_sub(&n->refc, 1) == 1) {
        tc_node **pp = &ctx->nodes.list;
        while (*pp != n)
            pp = &(*pp)->next;
        *pp = n->next;
        ctx->nodes.entries--;
        tc_mem_free(n);
    }
    pthread_mutex_unlock(&ctx->nodes.lock);
}

size_t tc_node_count(void)
{
    tc_context *ctx = tc__ctx();
    pthread_mutex_lock(&ctx->nodes.lock);
    size_t n = ctx->nodes.entries;
    pthread_mutex_unlock(&ctx->nodes.lock);
    return n;
}
