/*
 * ident.h — references, ports and pids beyond the local pid: local references as make_ref()
 * and binary_to_term build them, local ports, and the external pid, port and reference of
 * another node (erts: erl_term.h ErtsORefThing, ExternalThing; external.c dec_pid and
 * dec_term's NEWER_REFERENCE_EXT / V4_PORT_EXT cases; erl_node_container_utils.h).
 *
 * A local reference is an ordinary ref thing of 3 words: header, the marker 0xFFFFFFFF
 * beside number 0, numbers 1 and 2 (64-bit little endian ErtsORefThing). binary_to_term
 * builds one for any local ref whose numbers name no live pid ref or magic ref, which is
 * every ref a byte string can name in termcopy (there are no live ones): pid refs and magic
 * refs are not modelled. An external thing is a header, the node entry it names
 * (node.h, one reference held), the off-heap link, then its data; it is linked into the
 * allocator's off-heap list when built, as dec_term links it.
 */
#ifndef TC_IDENT_H
#define TC_IDENT_H

#include "node.h"
#include "term.h"

TC_BEGIN_DECLS

/* A local reference #Ref<0.n[2].n[1].n[0]>. */
tc_term tc_term_local_ref(tc_alloc *a, const uint32_t num[TC_REF_NUMBERS]);

/* External things of node `n`; each takes over one reference to `n` (released again when
 * the allocator fails). TC_NON_VALUE when out of memory. */
tc_term tc_term_external_pid(tc_alloc *a, tc_node *n, uint32_t number, uint32_t serial);
tc_term tc_term_external_port(tc_alloc *a, tc_node *n, uint64_t number);
/* count is 1..TC_REF_MAX_NUMBERS. */
tc_term tc_term_external_ref(tc_alloc *a, tc_node *n, const uint32_t *num, size_t count);

/* The numbers of a local or external reference (count 3 for a local one). */
size_t tc_ref_numbers(tc_term ref, uint32_t num[TC_REF_MAX_NUMBERS]);
static inline tc_node *tc_external_node(tc_term t)
{
    return (tc_node *)(uintptr_t)tc_boxed_val(t)[TC_EXT_NODE];
}
static inline uint32_t tc_external_pid_number(tc_term t) { return (uint32_t)tc_boxed_val(t)[TC_EXT_DATA]; }
static inline uint32_t tc_external_pid_serial(tc_term t) { return (uint32_t)(tc_boxed_val(t)[TC_EXT_DATA] >> 32); }
static inline uint64_t tc_external_port_number(tc_term t) { return tc_boxed_val(t)[TC_EXT_DATA]; }
/* A pid, port or ref of any node. */
static inline bool tc_is_any_pid(tc_term t)
{
    return tc_is_pid(t) || (tc_is_boxed(t) && tc_boxed_subtag(t) == TC_SUBTAG_EXTERNAL_PID);
}
static inline bool tc_is_any_port(tc_term t)
{
    return tc_is_port(t) || (tc_is_boxed(t) && tc_boxed_subtag(t) == TC_SUBTAG_EXTERNAL_PORT);
}
static inline bool tc_is_any_ref(tc_term t)
{
    return tc_is_boxed(t) && (tc_boxed_subtag(t) == TC_SUBTAG_REF || tc_boxed_subtag(t) == TC_SUBTAG_EXTERNAL_REF);
}

/* Checks the words of a ref or external thing at p; NULL when well formed, else why. */
const char *tc_ident_check(const tc_term *p);

TC_END_DECLS

#endif
