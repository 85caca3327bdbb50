/*
 * gc.h — the generational copying collector and its sizing rules, per era (erts R10B
 * ggc.c: erts_garbage_collect, gen_gc, fullsweep_heap, adjust_after_fullsweep,
 * grow_new_heap, shrink_new_heap; OTP 21+ erl_gc.c: garbage_collect, minor_collection,
 * do_minor, major_collection, collect_live_heap_frags, sweep_off_heap,
 * erts_next_heap_size).
 *
 * The copy is Cheney's: each root's object is moved (a moved cons keeps NON_VALUE in its
 * car and the new address in its cdr; a moved boxed object has its header replaced by the
 * new boxed pointer), then a scan pointer sweeps the new area. Pointers into the old heap
 * (minor GC) and into literal areas are left alone. Liveness is the root set only.
 *
 * Rules, as each era's source has them (policy.gc_rules selects):
 * - Minor GC. Data below high_water (it survived a GC) is "mature" and is copied to the old
 *   heap; the rest goes to a new young heap; promoted objects are then swept for pointers
 *   back into the dying young generation. Old-heap objects are not traced.
 *   OTP25: needs an old heap with room for all mature data, else it is a major GC (so a
 *   process with no old heap and no mature data gets a major GC). The old heap is created
 *   when there is mature data, sized next(young use, +1). New heap next(stack + young
 *   use), young use = heap use + mbuf_sz (+ queued message fragments). high_water := htop.
 *   Then need_after = use + need + stack: shrink when heap > 3000 and 4·need_after < heap
 *   and (heap > 8000 or heap > old heap): wanted = 3·need_after, raised to old/8 when
 *   wanted·9 < old, then min_heap or next(wanted); else grow to next(need_after) when
 *   need_after > heap. A minor GC never falls through to a major one.
 *   R10B: runs when mature data fits the old heap's free space (an old heap of
 *   next(high_water use, +1) is created when there is mature data); new heap
 *   next(heap_sz + mbuf_sz), `need` ignored. high_water flips: the new heap's start if
 *   anything was mature, else the new htop, so data is promoted on every second GC.
 *   Then the same shrink test with 300 for 3000, no old/8 floor and min_heap not via
 *   next(); done if heap >= need_after, else a fullsweep follows.
 * - Major GC (fullsweep): everything live to one new heap; the old heap is freed.
 *   OTP25 next(stack + young use + old use); R10B next(heap_sz + mbuf_sz + old use + stack);
 *   one step up when that equals heap_sz and the heap-grow flag is set. Then
 *   adjust_after_fullsweep: grow to next(need_after) if short; set the grow flag when
 *   need_after > 75 % of the heap; shrink to min_heap or next(2·need_after) when under 25 %
 *   and heap > 233 (H_MIN_SIZE). Every fullsweep_after minor GCs, the next GC is major.
 * - Fragments: R10B traces them as young data. OTP25 first moves the fragments the BIF just
 *   made whole into the new heap (their garbage survives one GC), then traces the rest.
 *   All fragments are freed with the old young heap. The stack is copied to the top of
 *   every new heap; a resize moves it with memmove.
 * - Off-heap: ProcBins whose header was moved are relinked, those left in the old heap by a
 *   minor GC stay, the rest lose a reference.
 * next() is the heap-size table's next entry; OTP25's process-level next() is never below
 * min_heap_size, R10B's is the bare table.
 */
#ifndef TC_GC_H
#define TC_GC_H

#include "proc.h"

TC_BEGIN_DECLS

/* Entry i of the era's heap-size series (0 past its end) and how many there are. */
uint64_t tc_gc_heap_size_at(tc_heap_table t, unsigned i);
unsigned tc_gc_heap_sizes_count(tc_heap_table t);
/* erts_next_heap_size: the smallest entry >= size, `offset` entries further up; sizes
 * below the first entry give the first entry. */
uint64_t tc_gc_next_heap_size(tc_heap_table t, uint64_t size, unsigned offset);

/* erts_garbage_collect: collects with the stack, objv[0..nobj) and the on-heap messages
 * as roots, so that `need` words fit afterwards. Updates objv in place. */
tc_result tc_gc_collect(tc_proc *p, uint64_t need, tc_term *objv, unsigned nobj) TC_MUST_CHECK;

/*
 * erts_offset_heap: adds `offs` words to every list or boxed pointer in the area
 * [hp, hp + n) that points into [lo, hi), and to ProcBin `next` links into it. The area is
 * walked as a heap (headers skip their raw words). Relocating a copied block this way is
 * also what copy_shallow and a fragment move do.
 */
void tc_gc_offset_heap(tc_term *hp, size_t n, ptrdiff_t offs, const tc_term *lo, const tc_term *hi);

TC_END_DECLS

#endif
