/*
 * proc.h — the memory of one modelled Erlang process, word for word (erts: Process in
 * erl_process.h; HAlloc and erts_heap_alloc in global.h / utils.c; ErlHeapFragment and
 * the message queue in erl_message.h; TestHeap and the BIF-call glue in the emulator).
 *
 * The young heap is one block from the memory source: terms grow up from `heap` to
 * `htop`, the stack grows down from `hend` to `stop`; `stop - htop` is what HAlloc can
 * bump into. Every GC and every resize copies the stack to the top of the new block.
 * Beside it: an optional old heap (filled only by the GC), heap fragments (`mbuf`,
 * counted in `mbuf_sz`), fragments of received messages (`msg_frag`), the off-heap list
 * of ProcBins, the x registers, and a message queue whose messages either sit on the heap
 * (R10B delivery) or carry their own fragment (modern delivery).
 *
 * HAlloc per era (policy.frag_rule):
 *   R10B:  bump when stop - htop > need (the VM's `<=` test goes to a fragment);
 *          else reuse the "arith heap" (the unused tail of the last fragment) when need
 *          fits it; else a new fragment of min_heap/2 + need words (2·need when that is
 *          above 16K words and smaller) when the tail was under 16 words or need < 64,
 *          exactly need otherwise; 6 words of header overhead are counted per fragment and
 *          when mbuf_sz + overhead >= heap_sz the process must yield (BUMP_ALL_REDS;
 *          policy.frag_yield, which asks for it under either rule).
 *   R13B01: bump when stop - htop >= need; else a new fragment of exactly need words, and the
 *          heap's free words are given up (a bignum header over them, htop := stop), so every
 *          later HAlloc makes a fragment until the next GC (utils.c erts_heap_alloc; frag_rule
 *          fill).
 *   OTP25: bump when HeapWordsLeft >= need, HeapWordsLeft being HEAP_LIMIT - htop =
 *          max(0, stop - htop - S_REDZONE) (erl_vm.h HAllocX, erl_process.h HEAP_LIMIT;
 *          policy.redzone, 3 words on this x86-64 JIT); else take the head fragment's free tail when
 *          need fits, else a new fragment of exactly need words; mbuf_sz counts whole
 *          fragment sizes.
 *
 * The process is opaque: other modules allocate on its heap with HAlloc or with
 * reserve/commit, and read it through the accessors below. A GC runs only at the safe
 * points of gc.h, where the root set is explicit (C locals holding terms are not roots).
 *
 * Where this differs from erts, and why:
 * - No seq-trace token, group leader or saved registers: the experiments keep their live
 *   data in x registers, the stack, the message queue and the process dictionary.
 * - Stack slots hold terms only (no continuation pointers or catches), so every slot is
 *   a root; a CP would be skipped by the VM's GC and costs the same copy.
 * - The binary virtual heap (OTP 25, policy.bin_vheap): off_heap.vheap is the VM's
 *   off_heap.overhead, the words of every ProcBin built or copied onto the heap or an HAlloc
 *   fragment (OH_OVERHEAD at each copy: the copies link them into this list, terms/term.h;
 *   an ets:lookup's copy_shallow is given &MSO(p), erl_db_hash.c build_term_list) and of
 *   every message fragment received or moved in (erl_message.c
 *   erts_link_mbuf_to_proc, copy.c erts_move_multi_frags); ERTS_IS_GC_DESIRED fires when it
 *   exceeds bin_vheap_sz, at every test the model makes (after a BIF or a send, at
 *   schedule-in, at receive). Left out: magic references, funs and external pids (the VM
 *   counts a magic ref's binary too; the model has none), writable binaries (wrt_bins and
 *   their shrinking), and every other OH_OVERHEAD site the workloads never reach (io, dist,
 *   NIFs, erl_bits). Not modelled for R10B-2: its HAlloc and schedule test
 *   (MBUF_SIZE + MSO(p).overhead) >= HEAP_SIZE (utils.c, erl_process.c schedule) also adds
 *   size / BINARY_OVERHEAD_FACTOR (16) / word size per refc binary to MSO(p).overhead
 *   (binary.c, copy.c); the model's R10B test counts fragment headers only.
 *   `off_heap.overhead` is the byte total of the ProcBins on the list at all times.
 * - Queued messages that carry a fragment are not roots; after a modern GC their data is
 *   copied onto the new heap (move_msgq_to_heap, whose callee was not read [I]).
 * - The long-GC check (policy.long_gc_words) is made at the GC-after-BIF safe point and at
 *   a schedule-in (gc.h tc_proc_schedule_in_goes_dirty), where erts' delay needs no heap
 *   (need 0), and at TestHeap and stack pushes, where it needs `need` words: the process
 *   abandons its heap for a fragment of stack (with the GC glue's return address) + need +
 *   ERTS_DELAY_GC_EXTRA_FREE + S_RESERVED words (erl_gc.c delay_garbage_collection), builds
 *   on it until its next reduction test yields, and the dirty GC collects there (gc.c
 *   delay_long_gc). At the GC-after-BIF and the heap tests it is also made the second time
 *   erts makes it: as a major, when the minor it passed as would find the old heap short of
 *   room (erl_gc.c garbage_collect, minor_collection returning -1, delay_gc_after_start);
 *   the dirty major then reports the start the minor traced (gc_minor_start/gc_minor_end
 *   there). At a schedule-in the model does not make that second check. The check
 *   ignores the on-heap message count erts adds.
 *   Reductions are counted as sched.h says (calls, the GC's cost, the send charge), so a
 *   slice ends where the VM's does and a GC desired then runs at the schedule-in.
 * - Out of memory is TC_ENOMEM (the VM aborts): a failed allocation before a GC copies
 *   anything leaves the process exactly as it was; a failed resize after a completed GC
 *   leaves it collected (same root values) and still valid.
 */
#ifndef TC_PROC_H
#define TC_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../alloc/mseg.h"
#include "../terms/term.h"
#include "pdict.h"
#include "policy.h"

TC_BEGIN_DECLS

#define TC_PROC_MAX_XREGS 1024 /* erts MAX_REG */
#define TC_PROC_MAX_LITERAL_AREAS 8

/* A heap fragment (erts: ErlHeapFragment). HAlloc fragments link their ProcBins into the
 * process's list; a message fragment keeps its own until it is received. */
typedef struct tc_heapfrag {
    struct tc_heapfrag *next;
    tc_offheap off_heap;
    size_t alloc_size; /* words */
    size_t used_size;  /* words in use from mem[0] */
    tc_term mem[];
} tc_heapfrag;

typedef struct tc_proc_stats {
    uint64_t minor_gcs, major_gcs;
    uint64_t words_copied;     /* words written by the GC: traced copies and fragment moves */
    uint64_t frag_words_moved; /* of which moved wholesale as live BIF fragments */
    /* The fragments' words (mbuf_sz) at the start of each GC that traces them as young data
     * (not moved whole): R13B01's GC after a BIF takes its result out of the fragment
     * (erl_gc.c collect_heap_frags) and then sweeps it again with the new heap (do_minor's
     * or major_collection's scan), erts_process_gc_info's mbuf_size at gc_start */
    uint64_t frag_words_traced;
    uint64_t msgq_words_moved; /* queued message data copied onto the heap after a GC */
    uint64_t rec_words_moved;  /* the same by R13B01's loop_rec, no GC (tc_proc_loop_rec_maybe_gc) */
    uint64_t frags_allocated;
    uint64_t frag_words;       /* words of fragments allocated */
    uint64_t heaps_allocated;  /* young heap blocks allocated (creation and every GC) */
    uint64_t grows, shrinks;   /* resizes after a GC */
    uint64_t gcs_after_bif, gcs_at_schedule, gcs_test_heap;
    uint64_t gcs_delayed;      /* GC-after-BIF requests sent to a dirty scheduler (long GC) */
    uint64_t long_gcs;         /* GCs the VM runs on a dirty CPU scheduler: young generation,
                                * stack (and old heap, major) of policy.long_gc_words or more */
} tc_proc_stats;

typedef enum tc_heap_event_kind { TC_HEAP_EV_MINOR, TC_HEAP_EV_MAJOR, TC_HEAP_EV_FRAG } tc_heap_event_kind;

/* What the trace hook sees: one per GC (after any resize) and one per new fragment. */
typedef struct tc_heap_event {
    tc_heap_event_kind kind;
    uint64_t need;           /* the GC's need, or the HAlloc request that made the fragment */
    uint64_t heap_before;    /* heap_sz before */
    uint64_t young_before;   /* young-generation use before: heap use + mbuf_sz */
    uint64_t used_before;    /* htop - heap before (what erts's gc_*_start reports as heap_size) */
    uint64_t frag_before;    /* mbuf_sz before: HAlloc and received message fragments, and (OTP 25)
                                the queued messages' own fragments: erts's trace mbuf_size */
    uint64_t stack_before;   /* the stack's words when the GC started (a delayed one ends elsewhere) */
    uint64_t heap_new;       /* the young heap the GC allocated, before any resize */
    uint64_t heap_after;     /* heap_sz after, including the resize */
    uint64_t used_after;     /* htop - heap after */
    uint64_t old_heap_after; /* old heap size in words (0: none) */
    uint64_t copied;         /* words the GC wrote */
    uint64_t frag_words;     /* size of the new fragment (FRAG) */
    int resized;             /* -1 shrunk, +1 grown, 0 neither */
    bool old_heap_created;
} tc_heap_event;

typedef struct tc_proc tc_proc;
typedef void (*tc_heap_trace_fn)(void *ctx, const tc_proc *p, const tc_heap_event *ev);

/* A process with an empty min_heap_size heap (the policy's value rounded up to a table size). */
tc_result tc_proc_new(tc_mseg *mem, const tc_policy *policy, tc_proc **out) TC_MUST_CHECK;
/* A process spawned with arguments of `arg_words` words (as size_object / copy_shared_calculate
 * count them, literals left out): erl_process.c erl_create_process makes its first heap
 * heap_need = arg_words + S_RESERVED (policy.reserved) words, min_heap_size when that is
 * smaller, else erts_next_heap_size(heap_need), before it copies them. The caller copies. */
tc_result tc_proc_spawn(tc_mseg *mem, const tc_policy *policy, uint64_t arg_words, tc_proc **out) TC_MUST_CHECK;
/* Frees every heap, fragment and message, and drops the off-heap references. */
void tc_proc_free(tc_proc *p);

const tc_policy *tc_proc_policy(const tc_proc *p);
/* The memory source its heaps and fragments come from. */
tc_mseg *tc_proc_mem(const tc_proc *p);
/* HAlloc as an allocator: constructors build straight onto this heap. Its release is
 * HRelease: htop moves back, or the head fragment's used size and mbuf_sz shrink
 * (erts_heap_frag_shrink), so a later HAlloc may take that fragment's tail. */
tc_alloc *tc_proc_alloc(tc_proc *p);
/* The ProcBins on the heap and in its HAlloc fragments (erts MSO). */
tc_offheap *tc_proc_offheap(tc_proc *p);
/* The process dictionary (created on first use; its values live on this heap and are GC
 * roots, as ProcDict is in erts). TC_ENOMEM. */
tc_result tc_proc_dict(tc_proc *p, tc_pdict **out) TC_MUST_CHECK;

/* HAlloc: `words` contiguous words on the heap or in a fragment; NULL when out of memory.
 * Never collects. */
tc_term *tc_proc_halloc(tc_proc *p, size_t words) TC_MUST_CHECK;
/* HAllocX (erl_vm.h): as HAlloc, but a new fragment gets `xtra` words of slack that later
 * HAllocs fill (erts_heap_alloc: the head fragment's tail when it holds `need`). The heap
 * factory's reserve (erl_message.c erts_reserve_heap__, FACTORY_HALLOC) allocates so. Other
 * eras' fragment rules than OTP 25's take plain HAlloc. */
tc_term *tc_proc_halloc_x(tc_proc *p, size_t words, size_t xtra) TC_MUST_CHECK;
/* HAlloc from a guard BIF the x86-64 JIT calls (gc_bif -> i_bif1, instr_bif.cpp
 * emit_i_bif_body_shared, which enters the runtime without syncing the heap top): its words
 * go to a heap fragment (the head fragment's tail, else a new one), never the heap. ops.tab
 * calls them the guard BIFs that create heap fragments; the VM's trace of eptest.erl's float
 * comprehension shows each float(X) in a fragment with heap room left [I]. */
tc_term *tc_proc_halloc_frag(tc_proc *p, size_t words) TC_MUST_CHECK;
/* HAlloc's bump alone, in two steps, for a writer that may still fail after it has filled
 * the words (a send that cannot queue its message): the `words` free words at htop, or
 * NULL when fewer than `words` are free (nothing else happens: no fragment, no GC). They
 * become the process's only with tc_proc_heap_commit, which takes at most what was
 * reserved; until then the heap is as it was. */
tc_term *tc_proc_heap_reserve(tc_proc *p, size_t words) TC_MUST_CHECK;
void tc_proc_heap_commit(tc_proc *p, size_t words);
/* Free words between htop and the stack (erts: STACK_TOP - HEAP_TOP). */
uint64_t tc_proc_heap_room(const tc_proc *p);
/* HeapWordsLeft (erl_vm.h): HEAP_LIMIT - htop, the room less policy.redzone (0 when the
 * room is inside the redzone); what HAlloc and the on-heap send may take. */
uint64_t tc_proc_heap_words_left(const tc_proc *p);
/* Heap use plus fragments (erts young_gen_usage, queued message data excluded). */
uint64_t tc_proc_young_use(const tc_proc *p);

/* Sizes in words: the young heap block (heap_sz), its use (htop - heap), the old heap
 * block (0 when there is none), min_heap_size as rounded up, the fragments (mbuf_sz). */
uint64_t tc_proc_heap_size(const tc_proc *p);
uint64_t tc_proc_heap_used(const tc_proc *p);
uint64_t tc_proc_old_heap_size(const tc_proc *p);
uint64_t tc_proc_min_heap_size(const tc_proc *p);
uint64_t tc_proc_frag_size(const tc_proc *p);
/* Read-only views for traces: the old heap's use (old_htop - old_heap, 0 without one) and the
 * young data that survived the last GC (high_water - heap, what erts's trace reports as
 * recent_size). */
uint64_t tc_proc_old_heap_used(const tc_proc *p);
uint64_t tc_proc_high_water_used(const tc_proc *p);

/* The x registers: tc_proc_x gives all TC_PROC_MAX_XREGS; the first `arity` are live at
 * a safe point (the GC's roots). */
tc_term *tc_proc_x(tc_proc *p);
unsigned tc_proc_arity(const tc_proc *p);
void tc_proc_set_arity(tc_proc *p, unsigned arity);

/* The stack: slot 0 is the top (y0). Pushing is a safe point (gc.h). */
void tc_proc_pop(tc_proc *p, size_t n);
/* A call's return address (a NIL word: the collector skips CPs and NIL costs the same): no
 * heap test, as erts makes none at a call, the emulator keeping S_RESERVED words free for it
 * (erl_vm.h). TC_EBADARG when the heap block has no free word left. */
tc_result tc_proc_push_cp(tc_proc *p) TC_MUST_CHECK;
size_t tc_proc_stack_size(const tc_proc *p);
tc_term *tc_proc_stack_slot(tc_proc *p, size_t i);

/* The reductions the runtime charged the process (BUMP_REDS: the GC's cost, the sender's
 * message-size charge) since the last call; the scheduler takes them from the slice. */
int64_t tc_proc_take_reds(tc_proc *p);
/* BUMP_ALL_REDS was asked for (R10B fragments, a delayed OTP 25 GC): the scheduler ends
 * the slice after this step. */
bool tc_proc_yield_requested(const tc_proc *p);
const tc_proc_stats *tc_proc_stats_get(const tc_proc *p);
void tc_proc_set_trace(tc_proc *p, tc_heap_trace_fn fn, void *ctx);
/* The process's receives are traced, as erlang:trace(P, true, ['receive']) does (the VM run a
 * model run is compared with may trace them): OTP 25 fetches a traced receiver's messages into
 * the middle signal queue (erl_proc_sig_queue.c erts_proc_sig_fetch__, ERTS_MSG_RECV_TRACED),
 * and moving them on to the message queue costs a pass of erts_proc_sig_handle_incoming, one
 * reduction more per fetch (sched.h). */
void tc_proc_set_trace_receive(tc_proc *p, bool on);
bool tc_proc_trace_receive(const tc_proc *p);

/* A BIF call: remember the fragment list at entry, build the result with HAlloc, then
 * return through the era's trigger (tc_proc_bif_return_maybe_gc in gc.h). In between, the
 * light-BIF glue's return address is on the stack (policy.gc_call_words): HAlloc's
 * HeapWordsLeft is that much smaller (HEAP_LIMIT from the stop the glue stored). */
tc_heapfrag *tc_proc_bif_enter(tc_proc *p);
/* The BIF entered at `live_hf_end` traps with its GC disabled (erl_process.c
 * erts_set_gc_state): at its first such trap erl_gc.c erts_gc_after_bif_call_lhf saves the
 * marker in p->live_hf_end, and garbage_collect takes it over the one it is given, so the
 * collection after the BIF's last continuation (and a long one delayed from there) moves
 * every fragment made since the first call whole. It is cleared when a collection ends. */
void tc_proc_bif_trap(tc_proc *p, tc_heapfrag *live_hf_end);
/* ERTS_IS_GC_DESIRED: the fragments outgrew the free heap (words), the binaries' words
 * exceed the binary virtual heap (policy.bin_vheap), or a delayed GC is pending, so the next
 * safe point collects. */
bool tc_proc_gc_desired(const tc_proc *p);

/* F_DELAY_GC (erts erl_process.h): the x86-64 JIT's loop_rec sets it (instr_msg.cpp
 * emit_i_loop_rec_shared) and remove_message clears it (beam_jit_common.cpp
 * beam_jit_remove_message), so a heap test between them does not collect: erl_gc.c
 * garbage_collect calls delay_garbage_collection, which moves the process onto a heap
 * fragment of stack + need + ERTS_DELAY_GC_EXTRA_FREE (40) + S_RESERVED words ("abandons"
 * its heap), sets F_FORCE_GC and takes its reductions (all but ERTS_ABANDON_HEAP_COST, which
 * the next reduction test then ends), so the GC runs at the next schedule-in (gc.h). */
void tc_proc_set_delay_gc(tc_proc *p, bool on);

/* The binary virtual heap in words, as process_info(P, garbage_collection_info) names it:
 * bin_vheap_size (off_heap.overhead), bin_vheap_block_size, bin_old_vheap_size,
 * bin_old_vheap_block_size, and min_bin_vheap_size as rounded. */
typedef struct tc_proc_bin_vheap {
    uint64_t size, block_size, old_size, old_block_size, min_size;
} tc_proc_bin_vheap;
tc_proc_bin_vheap tc_proc_bin_vheap_get(const tc_proc *p);

/* A fragment not linked to any process (a message's own), from `mem`. */
tc_heapfrag *tc_heapfrag_new(tc_mseg *mem, size_t words) TC_MUST_CHECK;
/* Frees a fragment and drops its own off-heap references. */
void tc_heapfrag_free(tc_mseg *mem, tc_heapfrag *f);

/* Queues `term` (on p's heap when frag is NULL, else inside frag, which p then owns). */
tc_result tc_proc_queue_message(tc_proc *p, tc_term term, tc_heapfrag *frag) TC_MUST_CHECK;
/* Takes the first message (false when the queue is empty). A message fragment becomes
 * young data of the process (msg_frag, counted in mbuf_sz); nothing is copied. */
bool tc_proc_receive(tc_proc *p, tc_term *out);
size_t tc_proc_queue_len(const tc_proc *p);

/* Declares [start, start + words) a literal area: pointers into it are never moved and
 * are valid for the verifier. */
tc_result tc_proc_add_literal_area(tc_proc *p, const tc_term *start, size_t words) TC_MUST_CHECK;
/* Literal area i: false when there is none. */
bool tc_proc_literal_area(const tc_proc *p, unsigned i, const tc_term **start, const tc_term **end);

TC_END_DECLS

#endif
