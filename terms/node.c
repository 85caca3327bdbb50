#include "node.h"

#include <pthread.h>

#include "atom.h"

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static tc_node *table; /* few entries in any run: a list, searched under the lock */
static size_t entries;

tc_term tc_node_this_sysname(void)
{
    tc_term t;
    return tc_atom_intern("nonode@nohost", 13, &t) == TC_OK ? t : TC_NON_VALUE;
}

bool tc_node_is_this(tc_term sysname, uint32_t creation)
{
    return creation == 0 && sysname == tc_node_this_sysname();
}

tc_node *tc_node_find_or_insert(tc_term sysname, uint32_t creation)
{
    pthread_mutex_lock(&table_lock);
    tc_node *n = table;
    while (n && !(n->sysname == sysname && n->creation == creation))
        n = n->next;
    if (n) {
        atomic_fetch_add(&n->refc, 1);
    } else if ((n = tc_mem_alloc(sizeof *n)) != NULL) {
        atomic_init(&n->refc, 1);
        n->sysname = sysname;
        n->creation = creation;
        n->next = table;
        table = n;
        entries++;
    }
    pthread_mutex_unlock(&table_lock);
    return n;
}

void tc_node_ref(tc_node *n) { atomic_fetch_add(&n->refc, 1); }

void tc_node_deref(tc_node *n)
{
    pthread_mutex_lock(&table_lock);
    if (atomic_fetch_sub(&n->refc, 1) == 1) {
        tc_node **pp = &table;
        while (*pp != n)
            pp = &(*pp)->next;
        *pp = n->next;
        entries--;
        tc_mem_free(n);
    }
    pthread_mutex_unlock(&table_lock);
}

size_t tc_node_count(void)
{
    pthread_mutex_lock(&table_lock);
    size_t n = entries;
    pthread_mutex_unlock(&table_lock);
    return n;
}
