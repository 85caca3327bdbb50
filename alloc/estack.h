/*
 * estack.h — the explicit stack of a term walk growing into temp_alloc (erts: global.h
 * DECLARE_ESTACK, ESTACK_PUSH, DESTROY_ESTACK; utils.c erl_grow_estack; the ESTACK type is
 * temp_alloc's, erl_alloc.types). copy.c size_object_x, which sizes every message a process
 * sends, every object ets:insert stores and a spawned fun's environment, keeps its pending
 * subterms there: a list of N strings or floats peaks at N entries (terms/size.h
 * tc_term_flat_size_peak). The stack starts as 16 entries on the C stack; the first push past
 * them allocates 32 and each later one that finds it full doubles it (erts_realloc), so a walk
 * that peaks at P entries ends in the least 16 * 2^k >= P, holding it until the walk ends.
 *
 * temp_alloc's main carrier (128 KiB in R13B01 and OTP 25, 64 KiB in R10B-2:
 * set_default_temp_alloc_opts mmbcs) holds a stack of up to 8192 entries (4096 in R10B-2);
 * a larger one takes a multiblock carrier of its own (1 MiB, smbcs) through the thread's
 * segment cache, and gives it back there when the walk ends: a segment request each time,
 * a fresh mapping when the cache has none to give, and in OTP 25 a cache slot the heaps'
 * carriers cannot use while it sits there, and the first the VM's timed cache check drops
 * (alloc/mseg.h). On the VM, lists of strings of 10000 elements and more make one temp_alloc
 * mseg allocation per ets:insert, 5000 none (erlang:system_info({allocator, temp_alloc})
 * around 100 inserts, OTP 25.2.3), and one per reply of the round trip at L = 24000.
 *
 * Not modelled: the other walks whose stacks or queues are temp_alloc's. Among them
 * persistent_term:put's copy_shared_calculate (its queue; eptest puts its term once, before
 * the passes), and the ESTACKs of term comparison and hashing, which the modelled loops run
 * on small terms only.
 */
#ifndef TC_ESTACK_H
#define TC_ESTACK_H

#include <stdint.h>

#include "../terms/term.h"
#include "mseg.h"

TC_BEGIN_DECLS

#define TC_ESTACK_DEFAULT 16u /* global.h DEF_ESTACK_SIZE: entries on the C stack */

/* A walk whose stack peaks at `peak` entries, on `temp` (a temp_alloc source: tc_mseg_temp;
 * NULL or a peak within the default: nothing allocated): its blocks allocated, grown, written
 * as the pushes write them, and freed. TC_ENOMEM when an allocation fails (nothing held). */
tc_result tc_estack_walk(tc_mseg *temp, uint64_t peak) TC_MUST_CHECK;

/* size_object_x as the calling scheduler runs it, for a send, a spawn's arguments or an
 * ets:insert: *words, t's flat size (literals in [lit_start, lit_end) counted 0; both NULL:
 * none), and its walk's stack on the temp_alloc of `heaps` (tc_mseg_temp; a source without
 * one, or NULL: the size alone). */
tc_result tc_estack_size_object(tc_mseg *heaps, tc_term t, const tc_term *lit_start, const tc_term *lit_end,
                                uint64_t *words) TC_MUST_CHECK;

TC_END_DECLS

#endif
