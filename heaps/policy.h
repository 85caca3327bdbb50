/*
 * policy.h — one value that says how an era runs a process heap: R10B (2005, non-SMP) or
 * OTP 25. Each field is one mechanism and can be switched alone, so an experiment can
 * turn exactly one off (ablation). The presets are the eras as the VM ships them
 * (erts: ggc.c + utils.c do_alloc + erl_process.c schedule for R10B; erl_gc.c +
 * erts_heap_alloc + the BIF-call glue for OTP 25).
 */
#ifndef TC_POLICY_H
#define TC_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "../alloc/mseg.h"
#include "../copy/copy_shallow_fast.h"
#include "heapsize.h"

TC_BEGIN_DECLS

/* What HAlloc does when the request does not fit between htop and stop. */
typedef enum tc_frag_rule {
    TC_FRAG_R10B,  /* fits only if free > need; new fragment min_heap/2 + need (capped at
                      2·need above 16K words) or exactly need, with the arith-heap tail
                      reused; 6 header words of overhead per fragment */
    TC_FRAG_MODERN /* fits if free >= need; reuse the head fragment's tail, else a
                      fragment of exactly need (HAlloc's xtra is 0) */
} tc_frag_rule;

/* When a process whose fragments outgrew its heap is collected. */
typedef enum tc_gc_trigger {
    TC_GC_AT_SCHEDULE, /* R10B: the fragment forces a yield; the GC runs when the scheduler
                          next picks the process, with the x registers live then */
    TC_GC_AFTER_BIF    /* OTP 25: right after the BIF, with only its result live */
} tc_gc_trigger;

/*
 * The test the BIF-call glue makes before it collects (TC_GC_AFTER_BIF only).
 * ERTS_IS_GC_DESIRED (erl_gc.h) is `stop - htop < mbuf_sz` in words, and so is the arm64
 * JIT's and the interpreter's inline copy of it. The x86-64 JIT's (OTP 25
 * emit_call_light_bif_shared, and still in later releases) forms its limit as
 * htop + mbuf_sz + 3 with an index scale of 1, so it compares the free heap in *bytes*
 * with mbuf_sz in words: it collects only once the fragments hold 8 times the free heap.
 * This machine's VM is an x86-64 JIT, and its GC trace of the 7.2 loop follows the byte
 * test exactly (experiments/beam/gctrace.erl: at L=10000 a 28,690-word heap with 20,008
 * words used collects at the 4th fragment, 80,020 words, not at the 1st).
 */
typedef enum tc_bif_gc_test {
    TC_BIF_GC_WORDS,   /* stop - htop < mbuf_sz (the C macro; interpreter, arm64 JIT) */
    TC_BIF_GC_X86_JIT  /* 8·(stop - htop) < mbuf_sz + 3 (the x86-64 JIT's byte compare) */
} tc_bif_gc_test;

/* Where a sent message is copied (heaps/send.h has the rules). */
typedef enum tc_send_path {
    TC_SEND_DIRECT,      /* R10B: onto the receiver's heap, collecting it first if needed */
    TC_SEND_HEAP_OR_FRAG /* OTP 21+ (message_queue_data = on_heap): the receiver's heap when it
                            is idle and has room, else a fragment attached to the message */
} tc_send_path;

/* The GC's sizing arithmetic (everything else in the collector is shared). */
typedef enum tc_gc_rules {
    TC_GC_RULES_R10B,  /* minor heap next(heap_sz + mbuf); old heap next(high_water use, +1);
                          shrink above 300 words; fullsweep next(heap_sz + mbuf + old + stack);
                          tenure every second minor GC (the high-water flip) */
    TC_GC_RULES_MODERN /* minor heap next(stack + young use incl. fragments); old heap
                          next(young use, +1); shrink above 3000 words with the old/8 floor;
                          grow on need; tenure on second survival */
} tc_gc_rules;

typedef struct tc_policy {
    const char *name;
    tc_heap_table heap_table;
    tc_frag_rule frag_rule;
    tc_gc_trigger trigger;
    tc_gc_rules gc_rules;
    tc_bif_gc_test bif_gc_test;
    tc_send_path send_path;   /* how a process of this era sends (the sender's policy decides) */
    /* ERTS_POTENTIALLY_LONG_GC_HSIZE (erl_gc.h, 128 Ki words; 0 = never): a GC asked for on a
     * normal scheduler whose young use + stack (+ old use when major) reaches this is not
     * run there; the process is flagged F_FORCE_GC, gives up its reductions and is collected
     * on a dirty scheduler when it next runs, with the x registers live at its yield point
     * (erl_gc.c check_for_possibly_long_gc, delay_garbage_collection with need 0). Modelled
     * at the GC-after-BIF safe point only (see proc.h). */
    uint64_t long_gc_words;
    bool move_live_frags;     /* OTP 25: fragments made by the BIF move whole into the new heap */
    /* S_REDZONE (erl_vm.h): words under the stack that runtime code leaves to the emulator.
     * HEAP_LIMIT (erl_process.h) is max(htop, stop - S_REDZONE): HAlloc (HAllocX via
     * HeapWordsLeft) bumps only when HEAP_LIMIT - htop >= need, and the on-heap send
     * (erl_message.c erts_alloc_message_heap_state) needs HEAP_LIMIT - htop > size. It is
     * CP_SIZE * 3 with BEAMASM and NATIVE_ERLANG_STACK, which this VM's configure defines on
     * x86-64 Linux (its config.h), CP_SIZE being 1 unless +JPperf asks for frame pointers
     * (beam_jit_main.cpp): 3 words. R10B had no redzone: 0. */
    unsigned redzone;
    /* S_RESERVED = CP_SIZE + S_REDZONE (4 here; R10B 0): the free words the emulator keeps
     * above the heap. The x86-64 JIT's heap test (instr_common.cpp emit_gc_test and
     * emit_gc_test_preserve: TestHeap and allocate) collects when stop - htop < need +
     * S_RESERVED; erl_gc.c adds it to need_after (minor_collection, adjust_after_fullsweep)
     * and to the fullsweep's new heap (major_collection: stack + size_before + S_RESERVED);
     * the minor GC's new heap (stack + size_before) has none. */
    unsigned reserved;
    /* The return address of the JIT's fragment_call (x86-64 instr_common.cpp emit_gc_test calls
     * the shared garbage_collect code; instr_bif.cpp emit_call_light_bif and emit_send call
     * call_light_bif_shared, whose erts_gc_after_bif_call collects): with NATIVE_ERLANG_STACK
     * the call pushes it on the Erlang stack, so a GC from a heap test, an allocate, a light
     * BIF's return or a send sees this many more stack words (erl_gc.c counts the stack,
     * STACK_START - stop, in the new heap's size and the trace's stack_size), and the light-BIF
     * glue's byte test (tc_bif_gc_test) compares its own E, this word lower. A GC at
     * schedule-in runs from the scheduler with the frames alone. 1 on this VM; R10B-2's
     * interpreter calls the GC from C: 0. */
    unsigned gc_call_words;
    /* F_DELAY_GC inside a receive (proc.h tc_proc_set_delay_gc): OTP 25's loop_rec sets it and
     * remove_message clears it, so a heap test between them delays its GC to the next
     * schedule-in, and no GC runs at a schedule-in while it is set (erl_process.c schedule:
     * `!(p->flags & (F_DELAY_GC|F_DISABLE_GC))`). R10B-2's receive had no such flag. */
    bool receive_delays_gc;
    /* OTP 25: `!` returns through the light-BIF glue (the x86-64 JIT's emit_send calls
     * emit_call_light_bif_shared with send/2, instr_bif.cpp), so the same bif_gc_test runs
     * after every send, with the message the only live register (erts_gc_after_bif_call_lhf
     * keeps the BIF's result alone). R10B's send made no such test. */
    bool gc_after_send;
    bool shrink;              /* the minor-GC shrink and the fullsweep 25 % shrink */
    /* The binary virtual heap (OTP R13B04 on; R10B-2 had none, see proc.h): ERTS_IS_GC_DESIRED
     * (erl_gc.h ERTS_IS_GC_DESIRED_INTERNAL) also fires when off_heap.overhead, the words of
     * the refc binaries built or copied onto the process since its last GC, exceeds
     * bin_vheap_sz, and a minor GC needs bin_old_vheap_sz > bin_old_vheap (erl_gc.c
     * minor_collection); gc.h has the sizing. min_bin_vheap_size is VH_DEFAULT_SIZE (erl_vm.h,
     * 32768 words), rounded up to a heap-table size by tc_proc_new as erl_init.c rounds
     * BIN_VH_MIN_SIZE (46422; erlang:system_info(min_bin_vheap_size) says the same). */
    bool bin_vheap;
    uint64_t min_bin_vheap_size;
    /* CONTEXT_REDS (erl_vm.h): the reductions of one slice; 4000 in OTP 25, 1000 in R10B-2. */
    int64_t context_reds;
    bool gc_stress;           /* debug: every HAlloc makes a fragment and every safe point GCs */
    /* How ets:lookup/2 copies a stored object out: TC_COPY_OUT_SHALLOW (copy_shallow, every
     * era as shipped) or TC_COPY_OUT_SHALLOW_FAST, the PROPOSAL copy/copy_shallow_fast.h
     * that no VM has (the same words and counts, only faster). */
    tc_copy_out copy_out;
    uint64_t min_heap_size;   /* words (233); rounded up to a table size by tc_proc_new */
    uint64_t fullsweep_after; /* minor GCs between fullsweeps (65535) */
    tc_mseg_config mem;       /* sbct, segment cache size (R10B 5, OTP 25 10) and the carrier thresholds */
} tc_policy;

tc_policy tc_policy_r10b(void);
tc_policy tc_policy_otp25(void);
/* "r10b" or "otp25"; TC_EBADARG for any other name. The one place era names are read. */
tc_result tc_policy_preset(const char *name, tc_policy *out) TC_MUST_CHECK;
/* "direct" or "heap_or_frag"; TC_EBADARG for any other name. */
tc_result tc_send_path_parse(const char *name, tc_send_path *out) TC_MUST_CHECK;
const char *tc_send_path_name(tc_send_path path);
/* TC_GC_STRESS=1 in the environment turns gc_stress on (the test suites' stress mode). */
void tc_policy_apply_env(tc_policy *p);

TC_END_DECLS

#endif
