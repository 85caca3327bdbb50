/*
 * offheap.h — the off-heap list (erts: ErlOffHeap and struct erl_off_heap_header in
 * erl_term.h / global.h; erts_cleanup_offheap in erl_message.c; sweep_off_heap in
 * erl_gc.c): every object on a heap that holds a reference to something outside it is
 * linked through its word 2, so the heap's owner can drop those references when the
 * objects die. Three kinds are on it, as in OTP 25: ProcBins (the refc binary block),
 * external pids, ports and refs (their node entry) and local funs (their fun entry).
 * Export funs and local refs are not: they hold nothing that is counted. `overhead` is the
 * byte total of the binaries only, as the VM's OH_OVERHEAD counts binaries.
 */
#ifndef TC_OFFHEAP_H
#define TC_OFFHEAP_H

#include "term.h"

TC_BEGIN_DECLS

/* Is the object at p one that lives on an off-heap list? (Reads word 4 of a fun.) */
bool tc_offheap_is_member(const tc_term *p);
/* Links the object at p (a member kind) into `oh`, counting a ProcBin's bytes in `overhead`
 * and its words in `vheap` (term.h: the binary virtual heap's use). */
void tc_offheap_link(tc_offheap *oh, tc_term *p);
/* A raw copy at p of a member object: takes one more reference to what it points to
 * (binary, node entry, fun entry), clears a ProcBin's flags, and links it into `oh`. */
void tc_offheap_adopt(tc_offheap *oh, tc_term *p);
/* Drops the reference the member object at p holds and uncounts it from `oh`. */
void tc_offheap_drop(tc_offheap *oh, tc_term *p);
/* Walks `oh` from its head, dropping every object until `stop` (exclusive), and makes
 * `stop` the new head. */
void tc_offheap_release_until(tc_offheap *oh, tc_term *stop);
/* The same for terms a failed operation abandons on a heap it cannot take words back from
 * (a process heap or fragment): each dropped object's words are overwritten with a tuple
 * of [] of the same size, so the heap still verifies, and a ProcBin's words are taken back
 * from `vheap` (they were linked after `stop`, by the operation that failed). */
void tc_offheap_abandon_until(tc_offheap *oh, tc_term *stop);

TC_END_DECLS

#endif
