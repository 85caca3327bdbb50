/*
 * node.h — the node table: one entry per (node name, creation) that an external pid, port
 * or reference names (erts: erl_node_tables.h ErlNode, erl_node_tables.c
 * erts_find_or_insert_node, erts_ref_node_entry / erts_deref_node_entry).
 *
 * As in the VM an entry lives off-heap, is shared by every external thing of that node in
 * every heap and store, and counts them: each copy of an external thing takes a reference
 * (copy.c copy_struct, the ETS compact form, the GC keeps the one it moves), each dropped
 * one releases it. This node is 'nonode@nohost' with creation 0 (a node that is not
 * distributed, as the installed VM runs the tests); its pids, ports and refs are the local
 * kinds and have no entry. Where termcopy differs: the VM deletes an unreferenced entry
 * after a delay (erts_schedule_delete_node); termcopy frees it at once. The table takes a
 * mutex for inserts, as the VM's does.
 */
#ifndef TC_NODE_H
#define TC_NODE_H

#include <stdatomic.h>

#include "term.h"

TC_BEGIN_DECLS

typedef struct tc_node {
    atomic_long refc;
    tc_term sysname; /* an atom */
    uint32_t creation;
    struct tc_node *next; /* the table's chain */
} tc_node;

/* Is (sysname, creation) this node (dec_is_this_node: 'nonode@nohost' with creation 0, or
 * the ETS sysname with any creation)? */
bool tc_node_is_this(tc_term sysname, uint32_t creation);
/* The atom 'nonode@nohost'. TC_NON_VALUE only when the atom table cannot take it. */
tc_term tc_node_this_sysname(void);
/* The secret atom '3RT$' (terms/atom.h tc_atom_secret; external.c INTERNAL_LOCAL_SYSNAME):
 * the node a compressed ETS object names for a local pid, port or ref (codec/ext_ets.h), and
 * which every decoder takes as this node. Only an atom index reaches it: decoding the text
 * '3RT$' makes an ordinary atom, a remote node's name. TC_NON_VALUE when the atom table
 * cannot take it. */
tc_term tc_node_ets_sysname(void);
/* The entry of a remote node with one new reference, created when new; NULL out of memory. */
tc_node *tc_node_find_or_insert(tc_term sysname, uint32_t creation);
void tc_node_ref(tc_node *n);
void tc_node_deref(tc_node *n);
/* Entries in the table (every one has at least one reference). */
size_t tc_node_count(void);

TC_END_DECLS

#endif
