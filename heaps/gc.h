/*
 * gc.h — the generational copying collector and its sizing rules (erts R10B-2
 * ggc.c: erts_garbage_collect, gen_gc, fullsweep_heap, adjust_after_fullsweep,
 * grow_new_heap, shrink_new_heap; R13B01 erl_gc.c: erts_garbage_collect, minor_collection,
 * do_minor, major_collection, collect_heap_frags; OTP 21+ erl_gc.c: garbage_collect,
 * minor_collection, do_minor, major_collection, collect_live_heap_frags, sweep_off_heap,
 * erts_next_heap_size).
 *
 * The copy is Cheney's: each root's object is moved (a moved cons keeps NON_VALUE in its
 * car and the new address in its cdr; a moved boxed object has its header replaced by the
 * new boxed pointer), then a scan pointer sweeps the new area. Pointers into the old heap
 * (minor GC) and into literal areas are left alone. Liveness is the root set only.
 *
 * Rules: one collector for every era; where the eras' sources differ, a field of the policy
 * (policy.h, whose table cites each one) says which rule runs. R10B-2 is erts 5.4.3 ggc.c
 * erts_garbage_collect and gen_gc; R13B01 is erts 5.7.2 erl_gc.c minor_collection and
 * major_collection (R10B-2's rules but for the shrink threshold and old-heap floor, the old
 * heap's size and the fullsweep's stack); OTP 25 is erl_gc.c minor_collection and major_collection.
 * - Minor GC. Data below high_water (it survived a GC) is "mature" and is copied to the old
 *   heap; the rest goes to a new young heap; promoted objects are then swept for pointers
 *   back into the dying young generation. Old-heap objects are not traced.
 *   An old heap is created when there is mature data and none yet: one table step above
 *   the mature data, never below min_heap_size (old_heap_size mature: R10B-2), or above the
 *   heap's use htop - heap, the bare table (heap_use: R13B01, erts_next_heap_size(HEAP_TOP -
 *   HEAP_START, 1)), or above the young use, fragments included, the bare table (young_use:
 *   OTP 25, erts_next_heap_size(size_before, 1)).
 *   The minor GC runs when the mature data fits the old heap's free space (with no old heap:
 *   only when minor_needs_old_heap is off, R10B-2, which runs it with no mature data), and,
 *   with bin_vheap, bin_old_vheap_sz > bin_old_vheap; else it is a major GC. Its new heap is
 *   next(heap_sz + mbuf_sz) (minor_heap_size heap_size: R10B-2, `need` ignored) or
 *   next(stack + young use), young use = heap use + mbuf_sz (+ queued message fragments)
 *   (young_use: OTP 25). high_water := htop (tenure second_survival: OTP 25), or the new
 *   heap's start when anything was mature, so data is promoted at every second GC (flip:
 *   R10B-2). Queued message fragments are then moved onto the new heap (msg_frag queue).
 *   Then need_after = use + need + stack + S_RESERVED (policy.reserved: 4 in OTP 25, 0 in
 *   R10B-2): shrink when heap > shrink_min_words (3000; R10B-2 300) and 4·need_after < heap
 *   and (heap > 8000 or heap > old heap): wanted = 3·need_after, raised to old/8 when
 *   wanted·9 < old (shrink_old_floor: OTP 25), then min_heap or next(wanted); else, when
 *   need_after > heap, grow to next(need_after) (minor_short grow: OTP 25) or follow with a
 *   fullsweep (fullsweep: R10B-2).
 * - Major GC (fullsweep): everything live to one new heap; the old heap is freed.
 *   next(heap_sz + mbuf_sz + old use + stack) (major_heap_size heap_size: R10B-2; R13B01
 *   leaves the stack out, major_stack off) or next(stack + young use + old use + S_RESERVED)
 *   (young_use: OTP 25 major_collection);
 *   one step up when that equals heap_sz and the heap-grow flag is set. Then
 *   adjust_after_fullsweep (need_after with S_RESERVED): grow to next(need_after) if short; set
 *   the grow flag when need_after > 75 % of the heap; shrink to min_heap or next(2·need_after)
 *   when under 25 % and heap > 233 (H_MIN_SIZE). Every fullsweep_after minor GCs, the next GC
 *   is major.
 * - The cost, in reductions (gc_cost): live words / 10 after the whole collection (live:
 *   R10B-2 erts_garbage_collect's return) or gc_cost per collection (per_gc: OTP 25).
 * - Fragments are traced as young data; with move_live_frags (OTP 25) a GC after a BIF first
 *   moves the fragments the BIF just made whole into the new heap (their garbage survives one
 *   GC), then traces the rest.
 *   All fragments are freed with the old young heap. The stack is copied to the top of
 *   every new heap; a resize moves it with memmove.
 * - Off-heap: ProcBins whose header was moved are relinked, those left in the old heap by a
 *   minor GC stay, the rest lose a reference.
 * - The binary virtual heap (OTP 25, policy.bin_vheap; erl_gc.c sweep_off_heap,
 *   do_next_vheap_size, next_vheap_size, move_msgs_to_heap, minor_collection). All in words,
 *   a binary being size / 8. The sweep (run only when the off-heap list is not empty) sums
 *   the moved ProcBins now in the young heap (bin_vheap); those a minor GC promoted are
 *   added to bin_old_vheap. A fullsweep sets bin_old_vheap to 0 and bin_old_vheap_sz to
 *   next_vheap(overhead before the GC, bin_old_vheap_sz). Then bin_vheap_sz :=
 *   next_vheap(bin_vheap, bin_vheap_sz) and the overhead := bin_vheap. next_vheap(v, sz):
 *   while v/3 > sz/4, sz := (uint64)(sz · 1.618) (stopping if that wraps); else if v < sz/4,
 *   sz/2; else sz; never below min_vheap_size. Moving queued message fragments onto the new
 *   heap adds their binaries to the overhead and, when it changed, sets bin_vheap_sz :=
 *   next_vheap(overhead, bin_vheap_sz). A minor GC also needs bin_old_vheap_sz >
 *   bin_old_vheap, else it is a major one. The overhead's trigger is in proc.h
 *   (tc_proc_gc_desired) and in the x86-64 JIT's BIF test below. Left out: writable
 *   binaries (wrt_bins, the shrinking of their spare bytes) and magic references.
 * next() is the heap-size table's next entry (heapsize.h), never below min_heap_size
 * (R10B-2 ggc.c and OTP 25 erl_gc.c next_heap_size clamp it alike); only the old-heap
 * creation of old_heap_size heap_use and young_use reads the bare table.
 *
 * Safe points are the only places a GC may run, because only there is the root set
 * explicit (C locals holding terms are not roots): tc_proc_test_heap_maybe_gc (TestHeap,
 * live x registers as roots), tc_proc_bif_return_maybe_gc (GC-after-BIF, only the result
 * live), tc_proc_schedule_in_maybe_gc (R10B's GC at the next schedule, x registers live),
 * tc_proc_push_maybe_gc (allocate a stack slot). Liveness is what these roots say. The
 * collector calls into the process module; the process module never calls the collector.
 */
#ifndef TC_GC_H
#define TC_GC_H

#include "proc.h"

TC_BEGIN_DECLS

/* erts_garbage_collect: collects with the stack, objv[0..nobj) and the on-heap messages
 * as roots, so that `need` words fit afterwards. Updates objv in place. */
tc_result tc_gc_collect(tc_proc *p, uint64_t need, tc_term *objv, unsigned nobj) TC_MUST_CHECK;

/* Pushes t on the stack; needs one free word beyond policy.reserved (allocate's heap test,
 * emit_gc_test with Ns 1) and may collect first, with the live x registers (and t) as roots.
 * Here and in tc_proc_test_heap_maybe_gc a GC inside a receive (F_DELAY_GC) or one that would
 * be long (OTP 25, policy.long_gc_words: erl_gc.c check_for_possibly_long_gc) is delayed
 * instead (delay_garbage_collection: the process goes on on a fragment heap, F_FORCE_GC, a
 * yield asked for; proc.h), the long one to a dirty scheduler (tc_proc_dirty_gc_pending). */
tc_result tc_proc_push_maybe_gc(tc_proc *p, tc_term t) TC_MUST_CHECK;

/* TestHeap: collects (roots: stack, x[0..arity), messages) when stop - htop < need +
 * policy.reserved (the x86-64 JIT's emit_gc_test adds S_RESERVED; the GC itself gets `need`
 * alone), so that afterwards `need` words can be bumped. */
tc_result tc_proc_test_heap_maybe_gc(tc_proc *p, uint64_t need) TC_MUST_CHECK;

/* The return of a BIF entered with tc_proc_bif_enter. R13B01 (bif_gc_test any_frag):
 * collects whenever the process has a fragment (beam_emu.c POST_BIF_GC_SWAPIN, erl_gc.c
 * erts_gc_after_bif_call), the result its only live register. OTP25: collects at once when the
 * policy's bif_gc_test says so (words and x86_jit also test F_FORCE_GC and, with
 * policy.bin_vheap, the binary virtual heap: emit_call_light_bif_shared tests the flags, then
 * off_heap.overhead > bin_vheap_sz, then the fragments), with *result the only live register, moving the BIF's
 * fragments whole; a long GC (policy.long_gc_words) is delayed instead: F_FORCE_GC and a
 * yield are asked for and schedule_in collects. Long is asked as erts asks it: as the minor
 * the GC would start as, then, when that minor would find the old heap short of room, as a
 * major (F_NEED_FULLSWEEP is then set; the dirty GC's event starts here). R10B: no GC here
 * (HAlloc may have asked the process to yield; see schedule_in). */
tc_result tc_proc_bif_return_maybe_gc(tc_proc *p, tc_heapfrag *live_hf_end, tc_term *result) TC_MUST_CHECK;

/* loop_rec with a message at the head of the queue. R13B01 (policy.msg_frag copy): a message
 * whose data came in its own fragment is copied onto the heap when stop - htop has room for
 * it, else the process collects (need 0, no registers live), and the GC moves it
 * (erl_message.h ErtsMoveMsgAttachmentIntoProc); other policies do nothing here. */
tc_result tc_proc_loop_rec_maybe_gc(tc_proc *p) TC_MUST_CHECK;

/* The scheduler picks the process: R10B and R13B collect when (mbuf_sz + overhead) >= heap_sz
 * (policy.sched_gc_test heap_size; roots: x[0..arity)); OTP25 collects when a GC is desired
 * (tc_proc_gc_desired), which is
 * where a delayed long GC runs (on the dirty scheduler: no long-GC check, and its heaps come
 * from the memory source's instance 0, TC_MSEG_DIRTY_INSTANCE) [I: the modern
 * scheduler's own check was not read; the VM's trace shows the delayed GC there with the
 * dropped result dead, gctrace.erl]. */
tc_result tc_proc_schedule_in_maybe_gc(tc_proc *p) TC_MUST_CHECK;

/* OTP25, asked before tc_proc_schedule_in_maybe_gc: the GC a schedule-in wants is a long one
 * (policy.long_gc_words), which erts runs on a dirty CPU scheduler instead (erl_process.c erts_schedule: scheduler_gc_proc,
 * whose garbage_collect finds check_for_possibly_long_gc setting F_DIRTY_MAJOR_GC or
 * F_DIRTY_MINOR_GC and delays with need 0, F_FORCE_GC; then `goto sched_out_proc`), or a
 * minor that finds the old heap short and is long as a major (delay_gc_after_start: its
 * gc_minor_start is traced here, F_NEED_FULLSWEEP set): true, and the GC is left pending
 * (F_FORCE_GC) for tc_proc_schedule_in_maybe_gc to run as the dirty one. The caller schedules the process out (sched.h: only when another task is queued).
 * False, changing nothing, otherwise
 * (inside a receive, a GC already pending or delayed onto a fragment heap, no GC desired, a
 * short one, or R10B's and R13B's schedule test). */
bool tc_proc_schedule_in_goes_dirty(tc_proc *p);

/* A long GC delayed to a dirty CPU scheduler is pending (after a BIF, a heap test, or a
 * schedule-in that sent it there): tc_proc_schedule_in_maybe_gc runs it as the dirty one, and
 * its cost is no slice's (erl_process.c erts_execute_dirty_system_task ignores what
 * erts_garbage_collect_nobump returns; the process comes back to a normal scheduler with a
 * whole one). */
bool tc_proc_dirty_gc_pending(const tc_proc *p);

/*
 * erts_offset_heap: adds `offs` words to every list or boxed pointer in the area
 * [hp, hp + n) that points into [lo, hi), and to ProcBin `next` links into it. The area is
 * walked as a heap (headers skip their raw words). Relocating a copied block this way is
 * also what copy_shallow and a fragment move do.
 */
void tc_gc_offset_heap(tc_term *hp, size_t n, ptrdiff_t offs, const tc_term *lo, const tc_term *hi);

TC_END_DECLS

#endif
