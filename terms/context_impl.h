/*
 * context_impl.h — the library's global state and its one owner, tc_context (as Lua's
 * global_State and mimalloc's heap own theirs): the atom table (erts: atom.c), the node
 * table (erl_node_tables.c), the fun and export tables (erl_fun.c, export.c), and, in
 * builds at debug level 1 or more, the allocation counters behind fault injection
 * (terms/base.h). erts keeps each of these process-wide as well.
 *
 * Every module reaches its part through the one accessor, tc__ctx(). There is one context
 * today, the process's default, and every public function works on it, so the API's calling
 * convention is unchanged; a caller that holds two would make tc__ctx() return a
 * thread-local current context, and no module would change. What is per thread rather than
 * global (the unchecked-allocation depth in base.c, the ETS lock clocks in stores/ets.c)
 * stays thread-local in its module.
 */
#ifndef TC_CONTEXT_IMPL_H
#define TC_CONTEXT_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include "fun.h"
#include "node.h"

/* 1,048,576 atoms: the VM's default atom limit, in chunks of 4096 (atom.c). */
#define TC__ATOM_CHUNK_BITS 12
#define TC__ATOM_MAX_CHUNKS 256u

typedef struct tc__atom_entry {
    const char *name;
    size_t len;
} tc__atom_entry;

typedef struct tc_context {
    struct {
        /* A fixed directory of chunks that only ever grows, so a reader holding an index
         * never races with a writer that appends; count publishes each new entry. */
        tc__atom_entry *chunks[TC__ATOM_MAX_CHUNKS];
        atomic_size_t count;
        pthread_mutex_t lock;
        uint32_t *hash_slots; /* index + 1, 0 = empty */
        size_t hash_cap;
        atomic_size_t secret; /* index + 1 of the atom no name finds (tc_atom_secret), 0: none yet */
    } atoms;
    struct {
        pthread_mutex_t lock;
        tc_node *list; /* few entries in any run: a list, searched under the lock */
        size_t entries;
    } nodes;
    struct {
        pthread_mutex_t lock;
        tc_fun_entry *funs; /* few entries in any run: lists, searched under the lock */
        tc_export *exports;
        _Atomic tc_term external_atom;
    } funs;
#if TC_DEBUG_LEVEL >= 1
    struct {
        atomic_uint_fast64_t calls, fail_at;
        atomic_int_fast64_t live;
    } mem;
#endif
} tc_context;

extern tc_context tc__context_default;

static inline tc_context *tc__ctx(void) { return &tc__context_default; }

#endif
