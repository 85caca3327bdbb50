#include "policy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the eras: the table's columns ---------------------------------------------------------- */

static const tc_policy_era eras[TC_POLICY_ERAS] = {
    {"r10b", "R10B-2 (erts 5.4.3, 2005), non-SMP: the 2005 seed's VM", 1000, false},
    {"r13b", "R13B01 (erts 5.7.2, 2009), non-SMP (-smp disable): the 2009 seed's VM", 1000, false},
    {"otp25", "OTP 25.2.3 (erts 13.1.5), x86-64 JIT: this machine's VM", 10000, true},
};

/* ---- the table: one row per field, each era's value in the column of tc_policy_era ---------- */

static const char *const heap_tables[] = {"fib_slow", "fib_plus1", "fib_slow_floor", NULL};
static const char *const frag_rules[] = {"arith", "exact", "fill", NULL};
static const char *const msg_frags[] = {"mbuf", "queue", "copy", NULL};
static const char *const gc_triggers[] = {"schedule", "bif", NULL};
static const char *const bif_gc_tests[] = {"words", "x86_jit", "any_frag", NULL};
static const char *const sched_gc_tests[] = {"heap_size", "desired", NULL};
static const char *const send_paths[] = {"direct", "heap_or_frag", NULL};
static const char *const gc_sizes[] = {"heap_size", "young_use", NULL};
static const char *const old_heap_sizes[] = {"mature", "young_use", "heap_use", NULL};
static const char *const minor_shorts[] = {"fullsweep", "grow", NULL};
static const char *const tenures[] = {"flip", "second_survival", NULL};
static const char *const gc_costs[] = {"live", "per_gc", NULL};
static const char *const mseg_fits[] = {"newest_split", "best_whole", NULL};
static const char *const copy_outs[] = {"shallow", "shallow_fast", NULL};
static const char *const ets_grows[] = {"gt_1x", "gt_7x", "div_gt_6", NULL};
static const char *const pdict_grows[] = {"mask", "mod", NULL};
static const char *const ets_term_heads[] = {"first_oh", "off_heap", "tpl_off_heap", NULL};
static const char *const ets_owner_words[] = {"off", "smp", NULL};
static const char *const testers[] = {"seed", "eptest_erl", "eras_ep_r10b", "eras_ep_r13b", NULL};

/* Where a field is, and how wide. */
#define AT(member) .offset = offsetof(tc_policy, member), .size = sizeof(((tc_policy *)0)->member)
#define BOOL(member) .type = TC_POLICY_BOOL, AT(member)
#define ENUM(member, values) .type = TC_POLICY_ENUM, .names = (values), AT(member)
#define UINT(member, l, h) .type = TC_POLICY_UINT, .lo = (l), .hi = (h), AT(member)
/* The columns r10b, r13b, otp25 (tc_policy_era's order); NULL: not read in that era's source. */
#define ERAS(r10b, r13b, otp25) .era = {r10b, r13b, otp25}

static const tc_policy_field fields[] = {
    {"heap_table", ENUM(heap_table, heap_tables), ERAS("fib_slow", "fib_slow_floor", "fib_plus1"),
     "R10B-2 erl_gc.c erts_init_gc (HS_FIBONACCI_SLOW, erl_init.c's default); R13B01 erl_gc.c erts_init_gc "
     "(5*(heap_sizes[i-1]/4)); OTP 25 erl_gc.c erts_init_gc",
     "the heap-size series every heap is sized from: 34, 55, Fibonacci, then x5/4 (fib_slow) or 5 x "
     "floor(a/4) (fib_slow_floor); 12, 38, a+b+1, then x1.2 (fib_plus1)"},
    {"frag_rule", ENUM(frag_rule, frag_rules), ERAS("arith", "fill", "exact"),
     "R10B-2 utils.c do_alloc (global.h HAlloc); R13B01 utils.c erts_heap_alloc (erl_vm.h HAlloc); OTP 25 "
     "utils.c erts_heap_alloc (erl_vm.h HAllocX)",
     "HAlloc with no room: a fragment with slack that becomes the arith heap, 6 header words counted "
     "(arith); a fragment of exactly the need, the heap's free words given up (fill); the head "
     "fragment's tail or a fragment of exactly the need (exact)"},
    {"frag_yield", BOOL(frag_yield), ERAS("on", "off", "off"),
     "R10B-2 utils.c do_alloc (BUMP_ALL_REDS when (MBUF_SIZE + overhead) * MBUF_GC_FACTOR >= HEAP_SIZE, "
     "the factor 1: erl_process.h); R13B01 and OTP 25 utils.c erts_heap_alloc make no such test",
     "HAlloc's new fragment asks the process to yield once the fragments reach the heap size, so the GC "
     "at its next schedule comes at once"},
    {"msg_frag", ENUM(msg_frag, msg_frags), ERAS("mbuf", "copy", "queue"),
     "R10B-2 erl_message.c queue_message_tt; R13B01 erl_message.c erts_queue_message (data.heap_frag), "
     "erl_message.h ErtsMoveMsgAttachmentIntoProc (beam_emu.c loop_rec); OTP 25 erl_message.c "
     "erts_save_message_in_proc, erl_gc.c move_msgs_to_heap",
     "a message that arrived in its own fragment: the fragment joins MBUF at once (mbuf); receive copies "
     "it onto the heap, or collects when it does not fit (copy); it stays with the message and the GC "
     "moves a queued one onto the new heap (queue)"},
    {"gc_trigger", ENUM(gc_trigger, gc_triggers), ERAS("schedule", "bif", "bif"),
     "R10B-2 erl_process.c schedule; R13B01 beam_emu.c POST_BIF_GC_SWAPIN (call_bif0..3, apply_bif), "
     "erl_gc.c erts_gc_after_bif_call; OTP 25 jit/x86 instr_bif.cpp emit_call_light_bif_shared, erl_gc.c "
     "erts_gc_after_bif_call_lhf",
     "when fragments get a process collected: at its next schedule, x registers live (schedule); right "
     "after the BIF, its result alone live (bif)"},
    {"bif_gc_test", ENUM(bif_gc_test, bif_gc_tests), ERAS("words", "any_frag", "x86_jit"),
     "R13B01 beam_emu.c POST_BIF_GC_SWAPIN (if (c_p->mbuf)); OTP 25 erl_gc.h ERTS_IS_GC_DESIRED; "
     "jit/x86 instr_bif.cpp emit_call_light_bif_shared",
     "the GC-after-BIF test: free heap < fragments in words (words); 8 x free words < fragments + 3, "
     "the x86-64 JIT's byte compare (x86_jit); any fragment at all (any_frag)"},
    {"sched_gc_test", ENUM(sched_gc_test, sched_gc_tests), ERAS("heap_size", "heap_size", "desired"),
     "R10B-2 and R13B01 erl_process.c schedule ((MBUF_SIZE + MSO(p).overhead) * MBUF_GC_FACTOR >= "
     "HEAP_SIZE, the factor 1); OTP 25 erl_process.c schedule (ERTS_IS_GC_DESIRED)",
     "the schedule-in GC test: the fragments (and R10B-2's fragment headers) reach the heap size "
     "(heap_size); a GC is desired (desired)"},
    {"send_path", ENUM(send_path, send_paths), ERAS("direct", "direct", "heap_or_frag"),
     "R10B-2 erl_message.c send_message; R13B01 erl_message.c erts_send_message (#ifndef ERTS_SMP: "
     "stop - htop <= msize collects the receiver); OTP 25 erl_message.c erts_send_message, "
     "erts_alloc_message_heap_state",
     "where a message is copied: the receiver's heap, collecting it first (direct); its heap when idle "
     "with room, else a fragment (heap_or_frag: R13B01's SMP emulator too, global.h "
     "erts_alloc_message_heap)"},
    {"send_litopt", BOOL(send_litopt), ERAS("off", "off", "on"),
     "OTP 25 erl_message.c erts_send_message (size_object_litopt, copy_struct_litopt); R13B01 "
     "erl_message.c erts_send_message (size_object, copy_struct: literals copied too; R10B-2 has none)",
     "a send leaves the sender's literals where they are: neither sized nor copied"},
    {"send_reds", BOOL(send_reds), ERAS("off", "off", "on"),
     "OTP 25 bif.c erl_send (ERTS_VBUMP_REDS 4, then ERTS_BIF_PREP_YIELD_RETURN when none are left), "
     "erl_message.c erts_send_message (ERTS_MSG_COPY_WORDS_PER_REDUCTION); R10B-2 erl_message.c "
     "send_message charges nothing; R13B01 bif.c do_send charges 4 per message queued at the "
     "receiver (erts_use_sender_punish), not modelled",
     "a local send charges the sender 4 reductions, and one per 64 words copied, at most a slice"},
    {"gc_after_send", BOOL(gc_after_send), ERAS("off", "on", "on"),
     "R13B01 beam_emu.c OpCase(send) (POST_BIF_GC_SWAPIN after send_2); OTP 25 jit/x86 instr_bif.cpp "
     "(send/2 through emit_call_light_bif_shared)",
     "`!` returns through the BIF glue: the GC-after-BIF test runs after each send, the message live"},
    {"long_gc_words", UINT(long_gc_words, 0, UINT64_C(1) << 40), ERAS("0", "0", "131072"),
     "OTP 25 erl_gc.h ERTS_POTENTIALLY_LONG_GC_HSIZE; erl_gc.c check_for_possibly_long_gc, "
     "delay_garbage_collection; erl_process.c erts_schedule (scheduler_gc_proc, then sched_out_proc) "
     "(R10B-2 and R13B01 have none)",
     "a GC this large (words), after a BIF, at a heap test or at a schedule-in, goes to a dirty scheduler: "
     "the process yields (after a heap test, building on a fragment of stack + need + 40 + reserved words "
     "until its next reduction test), or is scheduled out, and is collected at its next schedule-in (0: never)"},
    {"dirty_gc_first", BOOL(dirty_gc_first), ERAS("off", "off", "on"),
     "OTP 25 erl_process.h erts_schedule_dirty_sys_execution; erl_process.c schedule_out_process "
     "(check_enqueue_in_prio_queue: the dirty CPU run queue); the dirty scheduler thread beside the normal one; "
     "erts_execute_dirty_system_task holds the main lock for the GC",
     "a long GC sent to a dirty scheduler runs before the tasks queued on the normal scheduler, the process "
     "locked until it is scheduled in again (on), or after them at the process's next schedule-in (off); "
     "in the VM a race between two threads"},
    {"move_live_frags", BOOL(move_live_frags), ERAS("off", "off", "on"),
     "R13B01 erl_gc.c collect_heap_frags (traces from the roots); OTP 25 erl_gc.c collect_live_heap_frags "
     "(do_minor, major_collection: live_hf_end)",
     "a GC after a BIF moves the fragments the BIF made whole into the new heap, garbage included"},
    {"redzone", UINT(redzone, 0, 1024), ERAS("0", "0", "3"),
     "OTP 25 erl_vm.h S_REDZONE; erl_process.h HEAP_LIMIT (R13B01 erl_process.h: HEAP_LIMIT is stop)",
     "words under the stack HAlloc and the on-heap send leave free"},
    {"reserved", UINT(reserved, 0, 1024), ERAS("0", "0", "4"),
     "OTP 25 erl_vm.h S_RESERVED; jit/x86 instr_common.cpp emit_gc_test; erl_gc.c minor_collection, "
     "major_collection, adjust_after_fullsweep (R13B01 beam_emu.c TestHeap: E - HTOP < need)",
     "free words the heap test and the GC's sizing keep above the heap"},
    {"gc_call_words", UINT(gc_call_words, 0, 1024), ERAS("0", "0", "1"),
     "OTP 25 jit/x86 instr_common.cpp emit_gc_test, instr_bif.cpp emit_call_light_bif, emit_send "
     "(fragment_call, NATIVE_ERLANG_STACK); erl_gc.c garbage_collect (STACK_START - stop); R10B-2 and "
     "R13B01 beam_emu.c call erts_garbage_collect from C (R13B01 TestHeap, AH: no return address on E)",
     "stack words a GC entered through a call (heap test, allocate, light BIF, send) sees above the "
     "frames, the call's return address; the light-BIF glue's byte test and HAlloc in a BIF leave them "
     "out too"},
    {"receive_delays_gc", BOOL(receive_delays_gc), ERAS("off", "off", "on"),
     "OTP 25 jit/x86 instr_msg.cpp emit_i_loop_rec_shared (F_DELAY_GC), beam_jit_common.cpp "
     "beam_jit_remove_message, erl_gc.c delay_garbage_collection, erl_process.c schedule; R10B-2 and "
     "R13B01 have no F_DELAY_GC (R13B01 beam_emu.c i_loop_rec_fr, remove_message: a TestHeap between "
     "them collects at once)",
     "a heap test between a receive's loop_rec and remove_message delays its GC to the next "
     "schedule-in (the process moves onto a fragment of stack + need + 40 + reserved words, the stack with "
     "the GC glue's return address); no GC at a "
     "schedule-in while it waits"},
    {"shrink", BOOL(shrink), ERAS("on", "on", "on"),
     "R10B-2 ggc.c erts_garbage_collect, adjust_after_fullsweep; R13B01 and OTP 25 erl_gc.c "
     "minor_collection, adjust_after_fullsweep",
     "the GC shrinks heaps: the minor GC's shrink and the fullsweep's under-25 % shrink (off: a model "
     "ablation)"},
    {"shrink_min_words", UINT(shrink_min_words, 0, UINT64_C(1) << 40), ERAS("300", "3000", "3000"),
     "R10B-2 ggc.c erts_garbage_collect (HEAP_SIZE > 300); R13B01 and OTP 25 erl_gc.c minor_collection "
     "(> 3000)",
     "a minor GC shrinks only a heap above this many words"},
    {"shrink_old_floor", BOOL(shrink_old_floor), ERAS("off", "on", "on"),
     "R13B01 and OTP 25 erl_gc.c minor_collection (wanted * 9 < old_heap_sz)",
     "a minor GC's shrink stays at old heap / 8 or above"},
    {"old_heap_size", ENUM(old_heap_size, old_heap_sizes), ERAS("mature", "heap_use", "young_use"),
     "R10B-2 ggc.c erts_garbage_collect (next_heap_size(HIGH_WATER - HEAP_START, 1)); R13B01 erl_gc.c "
     "minor_collection (erts_next_heap_size(HEAP_TOP - HEAP_START, 1)); OTP 25 erl_gc.c minor_collection "
     "(erts_next_heap_size(size_before, 1))",
     "the old heap a minor GC creates: one size above the mature data, at least min_heap_size "
     "(mature); one above the heap's use (heap_use) or the young generation's, fragments included "
     "(young_use), the bare table"},
    {"minor_needs_old_heap", BOOL(minor_needs_old_heap), ERAS("off", "on", "on"),
     "R10B-2 ggc.c erts_garbage_collect (mature <= OLD_HEND - OLD_HTOP); R13B01 and OTP 25 erl_gc.c "
     "minor_collection (OLD_HEAP(p) && ...)",
     "a minor GC needs an old heap, else it is a major one (off: with no mature data it runs without)"},
    {"minor_heap_size", ENUM(minor_heap_size, gc_sizes), ERAS("heap_size", "heap_size", "young_use"),
     "R10B-2 ggc.c erts_garbage_collect (gen_gc(next_heap_size(HEAP_SIZE + MBUF_SIZE))); R13B01 erl_gc.c "
     "minor_collection (next_heap_size(HEAP_SIZE + fragments)); OTP 25 erl_gc.c minor_collection "
     "(stack_size + size_before)",
     "the minor GC's new heap: next(heap size + fragments) (heap_size); next(stack + young use) "
     "(young_use)"},
    {"minor_short", ENUM(minor_short, minor_shorts), ERAS("fullsweep", "fullsweep", "grow"),
     "R10B-2 ggc.c erts_garbage_collect (a fullsweep follows); R13B01 erl_gc.c minor_collection "
     "(F_NEED_FULLSWEEP); OTP 25 erl_gc.c minor_collection (grow_new_heap)",
     "a minor GC that leaves less free than use + need + stack: a fullsweep follows (fullsweep); the "
     "heap grows to next(need_after) (grow)"},
    {"major_heap_size", ENUM(major_heap_size, gc_sizes), ERAS("heap_size", "heap_size", "young_use"),
     "R10B-2 ggc.c erts_garbage_collect (HEAP_SIZE + MBUF_SIZE + old + stack); R13B01 erl_gc.c "
     "major_collection (HEAP_SIZE + fragments + old); OTP 25 erl_gc.c major_collection (stack + "
     "size_before + S_RESERVED)",
     "the fullsweep's new heap: next(heap size + fragments + old use (+ stack)) (heap_size); next(young "
     "use + old use + reserved (+ stack)) (young_use)"},
    {"major_stack", BOOL(major_stack), ERAS("on", "off", "on"),
     "R10B-2 ggc.c erts_garbage_collect (sz += p->hend - p->stop); R13B01 erl_gc.c major_collection "
     "(the stack no longer added); OTP 25 erl_gc.c major_collection (stack_size)",
     "the fullsweep's new heap counts the stack"},
    {"tenure", ENUM(tenure, tenures), ERAS("flip", "flip", "second_survival"),
     "R10B-2 ggc.c gen_gc, R13B01 erl_gc.c do_minor (HIGH_WATER = HEAP_START != HIGH_WATER ? n_heap : "
     "n_htop); OTP 25 erl_gc.c do_minor (high_water = htop)",
     "when young data is promoted: at every second GC (flip); once it survived two (second_survival)"},
    {"gc_cost", ENUM(gc_cost, gc_costs), ERAS("live", "live", "per_gc"),
     "R10B-2 ggc.c and R13B01 erl_gc.c erts_garbage_collect (return live / 10); OTP 25 erl_gc.c gc_cost",
     "the reductions a GC costs: live words / 10 after the whole collection (live); live / 10 + "
     "resize moved / 100, at least 1, per collection (per_gc)"},
    {"bin_vheap", BOOL(bin_vheap), ERAS("off", "off", "on"),
     "OTP 25 erl_gc.h ERTS_IS_GC_DESIRED_INTERNAL; erl_gc.c minor_collection, sweep_off_heap (from "
     "R13B04; R13B01 has none)",
     "the binary virtual heap: refc binaries' words since the last GC can make a GC"},
    {"min_bin_vheap_size", UINT(min_bin_vheap_size, 0, UINT64_C(1) << 40), ERAS("0", "0", "32768"),
     "OTP 25 erl_vm.h VH_DEFAULT_SIZE; erl_init.c", "the binary virtual heap's least size in words"},
    {"context_reds", UINT(context_reds, 1, 1000000), ERAS("1000", "2000", "4000"),
     "erl_vm.h CONTEXT_REDS (R10B-2, R13B01 and OTP 25)", "the reductions of one time slice"},
    {"call_reds", UINT(call_reds, 1, 1000), ERAS("1", "1", "2"),
     "R10B-2 and R13B01 beam_emu.c DispatchMacro (FCALLS > 0, then the decrement); OTP 25 jit/x86 "
     "instr_call.cpp (dec FCALLS, then the yield branch)",
     "the reductions a step's call needs left in the slice"},
    {"input_reductions", UINT(input_reductions, 0, UINT64_C(1) << 32), ERAS("2000", "4000", "0"),
     "R10B-2 and R13B01 erl_vm.h INPUT_REDUCTIONS (R13B01: 2 * CONTEXT_REDS), erl_process.c schedule "
     "(erl_sys_schedule); OTP 25 has poll threads",
     "the scheduler polls I/O and reads the clock after this many reductions (0: never)"},
    {"receive_gc_reds", UINT(receive_gc_reds, 0, 1000000), ERAS("0", "0", "5"),
     "OTP 25 jit/beam_jit_common.cpp beam_jit_remove_message (ERTS_VBUMP_LEAVE_REDS_INTERNAL 5); "
     "R13B01 beam_emu.c remove_message has no such cut",
     "a receive that leaves a GC desired cuts the slice to this many reductions (0: no cut)"},
    {"receive_fetch_reds", UINT(receive_fetch_reds, 0, 1000000), ERAS("0", "0", "4"),
     "OTP 25 erl_proc_sig_queue.c erts_proc_sig_receive_helper (4 per fetch of the outer signal "
     "queue; 1 more per erts_proc_sig_handle_incoming pass when receives are traced); R10B-2 and "
     "R13B01 beam_emu.c loop_rec charge nothing",
     "the reductions a receive pays to fetch a message that arrived since it last looked (0: none)"},
    {"min_heap_size", UINT(min_heap_size, 1, UINT64_C(1) << 32), ERAS("233", "233", "233"),
     "erl_vm.h H_DEFAULT_SIZE (R10B-2, R13B01 and OTP 25); +h", "every process's least heap size in words"},
    {"fullsweep_after", UINT(fullsweep_after, 0, 65535), ERAS("65535", "65535", "65535"),
     "erl_init.c erts_max_gen_gcs (R10B-2, R13B01 and OTP 25); ERL_FULLSWEEP_AFTER",
     "minor GCs between two fullsweeps"},
    {"sbct", UINT(mem.sbct, 4096, UINT64_C(1) << 40), ERAS("524288", "524288", "524288"),
     "erl_alloc_util.h ERTS_DEFAULT_ALLCTR_INIT (eheap_alloc; R10B-2, R13B01 and OTP 25); +MHsbct",
     "bytes: a heap block this large gets a single-block carrier of its own"},
    {"mseg_cache", UINT(mem.cache_slots, 0, 1000), ERAS("5", "5", "10"),
     "erl_mseg.h ERTS_MSEG_INIT_DEFAULT_INITIALIZER mcs (R10B-2 and R13B01 5, OTP 25 10); +MMmcs",
     "freed segments kept for reuse (0: every large heap freshly mapped)"},
    {"alloc_instances", UINT(mem.instances, 1, 2), ERAS("1", "1", "2"),
     "OTP 25 erl_alloc.c set_default_eheap_alloc_opts (thr_spec), erl_alloc_util.c erts_alcu_free_thr_pref "
     "(enqueue_dealloc_other_instance); +Mut false: one instance; R10B-2 and R13B01 plain run one "
     "scheduler thread (the model's r13b, one scheduler, too)",
     "eheap_alloc's instances: 2, the scheduler's own and instance 0, which a dirty GC allocates from "
     "and whose frees of the scheduler's blocks go back to their owner; 1, one for every thread (+Mut "
     "false)"},
    {"alloc_lock", BOOL(mem.thread_safe), ERAS("off", "off", "off"),
     "R13B01 erl_alloc.types (eheap_alloc, std_alloc, ets_alloc multi-threaded under +if smp only), "
     "erl_alloc.c adjust_tpref, set_au_allocator (thread-preferred with two or more schedulers; the _ts "
     "calls with one), erl_alloc_util.c erts_alcu_realloc_thr_pref: on in its SMP emulator, off in its "
     "plain one (the model's r13b); R10B-2 has no SMP emulator; OTP 25 erl_alloc.c start_au_allocator "
     "(no lock for the scheduler instances)",
     "every alloc, realloc and free of a process's heap memory (heap blocks, fragments, the dictionary's "
     "array) and of an ETS table's objects takes its allocator instance's mutex"},
    {"mseg_lock", BOOL(mem.seg_lock), ERAS("off", "on", "off"),
     "R13B01 sys/common/erl_mseg.c erts_mseg_alloc_opt, erts_mseg_realloc_opt, erts_mseg_dealloc_opt "
     "(mseg_mutex, both emulators built with threads); R10B-2 built without threads (erl_threads.h "
     "erts_mtx_lock empty); OTP 25 erl_mseg.c ERTS_MSEG_LOCK (none for a scheduler's instance)",
     "every segment call (a carrier mapped or taken from the cache, freed, a single-block carrier "
     "resized, as each realloc of its block does) takes mseg's one mutex"},
    {"rsbcmt", UINT(mem.rsbcmt, 0, 100), ERAS("80", "80", "80"),
     "erl_alloc_util.h ERTS_DEFAULT_ALLCTR_INIT rsbcmt (R10B-2, R13B01 and OTP 25); erl_alloc_util.c "
     "do_erts_alcu_realloc; +MHrsbcmt",
     "%: a single-block carrier's block realloc'd below sbct moves into a multiblock carrier when the "
     "carrier resized for it would be at least this share slack"},
    {"mseg_fit", ENUM(mem.fit, mseg_fits), ERAS("best_whole", "best_whole", "newest_split"),
     "R10B-2 and R13B01 sys/common/erl_mseg.c mseg_alloc, mseg_dealloc, mseg_realloc (CAN_PARTLY_DESTROY); "
     "OTP 25 erl_mseg.c cache_get_segment, cache_bless_segment, mseg_realloc",
     "the segment cache: the smallest segment that holds a request, whole if a good fit, a stale "
     "remembered size turning requests away, a shrink's tail cached (best_whole); the newest good fit "
     "whole, else the least excess split, a shrink's tail unmapped (newest_split)"},
    {"sbc_unit", UINT(mem.sbc_unit, 4096, UINT64_C(1) << 30), ERAS("4096", "4096", "16384"),
     "R10B-2 and R13B01 erl_alloc_util.c resize_carrier, do_erts_alcu_realloc (MSEG_UNIT_CEILING: "
     "erts_mseg_unit_size, the page); OTP 25 erl_alloc_util.c (ERTS_SACRR_UNIT_CEILING, 16 KiB)",
     "bytes: the unit a resized single-block carrier is sized in, and the sbc-to-mbc move test's"},
    {"temp_mmbcs", UINT(mem.temp_mmbcs, 0, UINT64_C(1) << 30), ERAS("65536", "131072", "131072"),
     "erl_alloc.c set_default_temp_alloc_opts mmbcs (R10B-2 64 KiB, R13B01 and OTP 25 128 KiB); "
     "copy.c size_object_x's ESTACK (global.h, utils.c erl_grow_estack) is temp_alloc's; +MTmmbcs",
     "bytes: temp_alloc's main carrier, where a sized term's walk stack grows first; a larger stack "
     "takes a multiblock carrier through the segment cache (0: no temp_alloc, the stack maps nothing)"},
    {"copy_out", ENUM(copy_out, copy_outs), .proposal = 1u << TC_COPY_OUT_SHALLOW_FAST,
     ERAS("shallow", "shallow", "shallow"),
     "erl_db_hash.c build_term_list (R13B01 put_term_list), copy.c copy_shallow; shallow_fast: "
     "copy/copy_shallow_fast.h",
     "how ets:lookup copies the object out: copy_shallow (shallow); a faster pass, a PROPOSAL, not the "
     "VM (shallow_fast)"},
    {"ets_compressed", BOOL(ets_compressed), ERAS("off", "off", "off"),
     "OTP 25 erl_db.c ets_new_2 (am_compressed), erl_db_util.c db_store_term_comp, db_copy_from_comp; "
     "R10B-2 and R13B01 erl_db.c take no compressed option",
     "the workload's ETS table is [set, compressed]: each non-key element stored in the ETS form of the "
     "external format, each lookup decoding it"},
    {"ets_grow", ENUM(ets_grow, ets_grows), ERAS("div_gt_6", "gt_7x", "gt_1x"),
     "R10B-2 erl_db_hash.c db_put_hash ((nitems / nactive) > CHAIN_LEN, CHAIN_LEN 6); R13B01 "
     "erl_db_hash.c db_put_hash (nitems > nactive * (CHAIN_LEN+1)); OTP 25 erl_db_hash.c db_put_hash "
     "(GROW_LIMIT(NACTIVE), NACTIVE * 1)",
     "when an insert of a new key splits a bucket: past one object per active bucket (gt_1x), past "
     "seven (gt_7x), or once nitems div nactive passes six (div_gt_6): the chains a lookup walks"},
    {"ets_term_head", ENUM(ets_term_head, ets_term_heads), ERAS("tpl_off_heap", "off_heap", "first_oh"),
     "R10B-2 erl_db_util.h DbTerm (tpl, ErlOffHeap off_heap, size, v), erl_db_hash.c get_term; R13B01 "
     "erl_db_util.h DbTerm (ErlOffHeap off_heap, size, tpl), erl_db_util.c db_get_term; OTP 25 "
     "erl_db_util.h DbTerm (first_oh, size, tpl), erl_db_util.c db_store_term; erl_db_hash.h HashDbTerm "
     "(next, hvalue) in each; erl_alloc_util.c UMEMSZ2BLKSZ (a header word, 8-byte units)",
     "the bytes an ETS object's block has before its words: 32 (first_oh), 56 (off_heap: a whole "
     "ErlOffHeap), 64 (tpl_off_heap: a tpl pointer too); the ets_alloc memory, and pages, an insert takes"},
    {"ets_owner_word", ENUM(ets_owner_word, ets_owner_words), ERAS("off", "smp", "off"),
     "R13B01 erl_alloc_util.c erts_alcu_alloc_thr_pref (size + sizeof(Uint), the allocator stored first), "
     "erl_alloc.c set_default_ets_alloc_opts (thr_spec, thread preferred with SMP); R10B-2 has no SMP "
     "emulator; OTP 25 erl_alloc_util.c finds the allocator through the block's carrier",
     "whether each ETS object's block holds its allocator's address too (smp: in a table of the SMP "
     "emulator, one taking locks): 8 bytes an object, and the pages an insert writes"},
    {"pdict_grow", ENUM(pdict_grow, pdict_grows), ERAS("mod", "mod", "mask"),
     "R10B-2 and R13B01 erl_process_dict.c grow (homeSize / 5 splits), pd_hash_value (hash % (homeSize*2)), "
     "array_put and next_array_size (sizeof(tab) / sizeof(Uint) - 1: 13 entries searched on 64-bit); OTP 25 "
     "erl_process_dict.c grow ((usedSlots / 4) & 0xf splits), pd_hash_value_to_ix (sizeMask), "
     "ensure_array_size; process_info(P, memory) on each VM (tests/cli_pdict.sh)",
     "how a process dictionary grows: mask, (slots / 4) & 15 splits at a time, the array sized per grow; "
     "mod, home / 5 splits, the array grown as slots are written, exactly past 81920 slots (one realloc "
     "a split): the reallocs and the slots a put or get reads"},
    {"tester", ENUM(tester, testers), ERAS("eras_ep_r10b", "eras_ep_r13b", "eptest_erl"),
     "none: the benchmark program as the era's compiler made it, not the VM; eptest_erl's frames are "
     "OTP 25's erlc -S of experiments/beam/eptest.erl (scenarios/workload.c tc_ep_frames); eras_ep's "
     "are R10B-2's and R13B01's erlc -S of experiments/beam/eras/eras_ep.erl, with their stdlib's "
     "lists:seq and erlang:trace_delivered (scenarios/erasep.c)",
     "the tester the eptest workload runs: the seed's loops as first modelled, a fresh server per "
     "round-trip pass (seed); eptest.erl as compiled, one server, a meter, ets:new and "
     "persistent_term:put before the passes (eptest_erl); eras_ep.erl's traced run as compiled, one "
     "server, counted from mark to mark (eras_ep_r10b, eras_ep_r13b)"},
    {"gc_stress", BOOL(gc_stress), ERAS("off", "off", "off"),
     "none: a test mode of the model (TC_GC_STRESS=1)",
     "every HAlloc makes a fragment and every safe point collects"},
};
#define NFIELDS (sizeof fields / sizeof *fields)

unsigned tc_policy_field_count(void) { return (unsigned)NFIELDS; }

const tc_policy_field *tc_policy_field_at(unsigned i) { return i < NFIELDS ? &fields[i] : NULL; }

const tc_policy_field *tc_policy_field_find(const char *name)
{
    for (size_t i = 0; name && i < NFIELDS; i++)
        if (strcmp(fields[i].name, name) == 0)
            return &fields[i];
    return NULL;
}

const tc_policy_era *tc_policy_era_at(unsigned i) { return i < TC_POLICY_ERAS ? &eras[i] : NULL; }

static int era_index(const char *name)
{
    for (int i = 0; name && i < TC_POLICY_ERAS; i++)
        if (strcmp(eras[i].name, name) == 0)
            return i;
    return -1;
}

const tc_policy_era *tc_policy_era_find(const char *name)
{
    int i = era_index(name);
    return i < 0 ? NULL : &eras[i];
}

bool tc_policy_era_ready(unsigned i)
{
    if (i >= TC_POLICY_ERAS)
        return false;
    for (size_t k = 0; k < NFIELDS; k++)
        if (!fields[k].era[i])
            return false;
    return true;
}

/* ---- values -------------------------------------------------------------------------------- */

static void store(tc_policy *p, const tc_policy_field *f, uint64_t v)
{
    unsigned char *at = (unsigned char *)p + f->offset;
    if (f->type == TC_POLICY_BOOL) {
        bool b = v != 0;
        memcpy(at, &b, sizeof b);
    } else if (f->size == sizeof(uint32_t)) {
        uint32_t w = (uint32_t)v;
        memcpy(at, &w, sizeof w);
    } else {
        TC_CHECK(f->size == sizeof(uint64_t));
        memcpy(at, &v, sizeof v);
    }
}

uint64_t tc_policy_get(const tc_policy *p, const tc_policy_field *f)
{
    const unsigned char *at = (const unsigned char *)p + f->offset;
    if (f->type == TC_POLICY_BOOL) {
        bool b;
        memcpy(&b, at, sizeof b);
        return b;
    }
    if (f->size == sizeof(uint32_t)) {
        uint32_t w;
        memcpy(&w, at, sizeof w);
        return w;
    }
    uint64_t v;
    memcpy(&v, at, sizeof v);
    return v;
}

static unsigned name_count(const tc_policy_field *f)
{
    unsigned n = 0;
    while (f->names[n])
        n++;
    return n;
}

/* "a, b or c" of the field's names. */
static void names_text(const tc_policy_field *f, const char *sep, const char *last, char *buf, size_t cap)
{
    unsigned n = name_count(f);
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < n && used < cap; k++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", k == 0 ? "" : k == n - 1 ? last : sep, f->names[k]);
}

const char *tc_policy_field_expected(const tc_policy_field *f, char *buf, size_t cap)
{
    if (f->type == TC_POLICY_BOOL)
        (void)snprintf(buf, cap, "on or off");
    else if (f->type == TC_POLICY_ENUM)
        names_text(f, ", ", " or ", buf, cap);
    else
        (void)snprintf(buf, cap, "an integer in %llu..%llu", (unsigned long long)f->lo, (unsigned long long)f->hi);
    return buf;
}

/* The field's text as a value: false when it is none of the field's values. */
static bool parse_value(const tc_policy_field *f, const char *s, uint64_t *out)
{
    if (f->type == TC_POLICY_BOOL) {
        if (strcmp(s, "on") != 0 && strcmp(s, "off") != 0)
            return false;
        *out = strcmp(s, "on") == 0;
        return true;
    }
    if (f->type == TC_POLICY_ENUM) {
        for (unsigned k = 0; f->names[k]; k++)
            if (strcmp(f->names[k], s) == 0) {
                *out = k;
                return true;
            }
        return false;
    }
    /* digits only: no sign, space or '+' (strtoull takes them all) */
    if (s[0] < '0' || s[0] > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end != '\0' || v < f->lo || v > f->hi)
        return false;
    *out = v;
    return true;
}

/* A message into err (when not NULL), printf-style. */
static TC_PRINTF(3, 4) void say(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

/* A value as a message quotes it: control bytes escaped, cut after 64 bytes. */
static void quoted(const char *v, char *buf, size_t cap)
{
    size_t used = 0, n = 0;
    buf[0] = '\0';
    for (; n < 64 && v[n] && used + 8 < cap; n++) {
        unsigned char b = (unsigned char)v[n];
        used += (size_t)snprintf(buf + used, cap - used, b < 0x20 || b == 0x7f ? "\\x%02x" : "%c", b);
    }
    if (v[n] && used + 4 < cap)
        (void)snprintf(buf + used, cap - used, "...");
}

tc_result tc_policy_set_field(tc_policy *p, const tc_policy_field *f, const char *value, char *err, size_t errcap)
{
    uint64_t v;
    if (!parse_value(f, value, &v)) {
        char expected[256], got[300];
        tc_policy_field_expected(f, expected, sizeof expected);
        quoted(value, got, sizeof got);
        say(err, errcap, "%s: expected %s, got '%s'", f->name, expected, got);
        return TC_EBADARG;
    }
    store(p, f, v);
    return TC_OK;
}

tc_result tc_policy_set(tc_policy *p, const char *assignment, char *err, size_t errcap)
{
    const char *eq = strchr(assignment, '=');
    char name[64], got[300];
    size_t n = eq ? (size_t)(eq - assignment) : 0;
    const tc_policy_field *f = NULL;
    if (eq && n < sizeof name) {
        memcpy(name, assignment, n);
        name[n] = '\0';
        f = tc_policy_field_find(name);
    }
    if (f)
        return tc_policy_set_field(p, f, eq + 1, err, errcap);
    quoted(assignment, got, sizeof got);
    char names[1024];
    size_t used = 0;
    names[0] = '\0';
    for (size_t k = 0; k < NFIELDS && used < sizeof names; k++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", fields[k].name);
    say(err, errcap, "expected NAME=VALUE with NAME one of %s, got '%s'", names, got);
    return TC_EBADARG;
}

tc_result tc_policy_flip(tc_policy *p, const tc_policy_field *f)
{
    if (f->type == TC_POLICY_UINT || (f->type == TC_POLICY_ENUM && name_count(f) != 2))
        return TC_EBADARG;
    store(p, f, tc_policy_get(p, f) ? 0 : 1);
    return TC_OK;
}

const char *tc_policy_value_text(const tc_policy *p, const tc_policy_field *f, char *buf, size_t cap)
{
    uint64_t v = tc_policy_get(p, f);
    if (f->type == TC_POLICY_BOOL)
        (void)snprintf(buf, cap, "%s", v ? "on" : "off");
    else if (f->type == TC_POLICY_ENUM)
        (void)snprintf(buf, cap, "%s", v < name_count(f) ? f->names[v] : "?");
    else
        (void)snprintf(buf, cap, "%llu", (unsigned long long)v);
    return buf;
}

/* ---- presets ------------------------------------------------------------------------------- */

tc_result tc_policy_preset(const char *name, tc_policy *out)
{
    int e = era_index(name);
    if (e < 0 || !tc_policy_era_ready((unsigned)e))
        return TC_EBADARG;
    tc_policy p = {.name = eras[e].name, .mem = tc_mseg_default_config()};
    for (size_t k = 0; k < NFIELDS; k++) {
        uint64_t v;
        TC_CHECK(parse_value(&fields[k], fields[k].era[e], &v)); /* tests/check_heaps_policy.c */
        store(&p, &fields[k], v);
    }
    *out = p;
    return TC_OK;
}

tc_policy tc_policy_native(void)
{
    tc_policy p = {0};
    int found = 0;
    for (unsigned i = 0; i < TC_POLICY_ERAS; i++)
        if (eras[i].native)
            found += tc_policy_preset(eras[i].name, &p) == TC_OK;
    TC_CHECK(found == 1); /* tests/check_heaps_policy.c: one native era, a preset */
    return p;
}

const char *tc_policy_preset_names(char *buf, size_t cap)
{
    unsigned n = 0, k = 0;
    for (unsigned i = 0; i < TC_POLICY_ERAS; i++)
        n += tc_policy_era_ready(i);
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < TC_POLICY_ERAS && used < cap; i++)
        if (tc_policy_era_ready(i)) {
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", k == 0 ? "" : k == n - 1 ? " or " : ", ",
                                     eras[i].name);
            k++;
        }
    return buf;
}

/* ---- text ---------------------------------------------------------------------------------- */

/* snprintf at *used, which stays within cap. */
static TC_PRINTF(4, 5) void append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    if (*used >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n < cap - *used ? (size_t)n : cap - *used - 1;
}

static bool is_proposal(const tc_policy_field *f, uint64_t v)
{
    return f->type == TC_POLICY_ENUM && v < 32 && (f->proposal >> v) & 1u;
}

void tc_policy_format(const tc_policy *p, char *all, size_t allcap, char *changed, size_t changedcap)
{
    tc_policy base;
    bool has_base = tc_policy_preset(p->name, &base) == TC_OK;
    size_t ua = 0, uc = 0;
    if (all && allcap)
        all[0] = '\0';
    if (changed && changedcap)
        changed[0] = '\0';
    if (all)
        append(all, allcap, &ua, "%s (", p->name ? p->name : "?");
    for (size_t k = 0; k < NFIELDS; k++) {
        const tc_policy_field *f = &fields[k];
        char v[32];
        uint64_t x = tc_policy_get(p, f);
        tc_policy_value_text(p, f, v, sizeof v);
        const char *note = is_proposal(f, x) ? ": a PROPOSAL, not the VM" : "";
        if (all)
            append(all, allcap, &ua, "%s%s=%s%s", k ? ", " : "", f->name, v, note);
        if (changed && (!has_base || tc_policy_get(&base, f) != x))
            append(changed, changedcap, &uc, "%s%s=%s%s", uc ? ", " : "", f->name, v, note);
    }
    if (all)
        append(all, allcap, &ua, ")");
    if (changed && uc == 0)
        append(changed, changedcap, &uc, "none");
}

static const char *type_name(tc_policy_type t)
{
    return t == TC_POLICY_BOOL ? "bool" : t == TC_POLICY_ENUM ? "enum" : "uint";
}

/* The values column: "a|b" (a proposal marked), "on|off", "LO..HI". */
static void values_text(const tc_policy_field *f, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    if (f->type == TC_POLICY_BOOL)
        append(buf, cap, &used, "on|off");
    else if (f->type == TC_POLICY_UINT)
        append(buf, cap, &used, "%llu..%llu", (unsigned long long)f->lo, (unsigned long long)f->hi);
    else
        for (unsigned k = 0; f->names[k]; k++)
            append(buf, cap, &used, "%s%s%s", k ? "|" : "", f->names[k], is_proposal(f, k) ? " (PROPOSAL)" : "");
}

/* A CSV field: quoted when it holds a comma or a quote. */
static void csv_field(FILE *out, const char *s, const char *after)
{
    if (strpbrk(s, ",\"")) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', out);
            fputc(*s, out);
        }
        fputc('"', out);
    } else {
        fputs(s, out);
    }
    fputs(after, out);
}

void tc_policy_write_table(FILE *out, bool csv)
{
    char values[256];
    if (csv) {
        /* '#' metadata first, as every CSV of the project: each era's VM, and the native one */
        for (unsigned e = 0; e < TC_POLICY_ERAS; e++) {
            fprintf(out, "# era_%s: %s%s\n", eras[e].name, eras[e].vm, tc_policy_era_ready(e) ? "" : " (not a preset)");
            if (eras[e].native)
                fprintf(out, "# native: %s\n", eras[e].name);
        }
        fputs("name,type,values", out);
        for (unsigned e = 0; e < TC_POLICY_ERAS; e++)
            fprintf(out, ",%s", eras[e].name);
        fputs(",erts,what\n", out);
        for (size_t k = 0; k < NFIELDS; k++) {
            const tc_policy_field *f = &fields[k];
            values_text(f, values, sizeof values);
            fprintf(out, "%s,%s,", f->name, type_name(f->type));
            csv_field(out, values, ",");
            for (unsigned e = 0; e < TC_POLICY_ERAS; e++)
                csv_field(out, f->era[e] ? f->era[e] : "", ",");
            csv_field(out, f->erts, ",");
            csv_field(out, f->what, "\n");
        }
        return;
    }
    fputs("The policy table: one field per mechanism; an era is a column of values (--era), and\n"
          "--set NAME=VALUE switches one field over the era's value.\n\neras:\n",
          out);
    for (unsigned e = 0; e < TC_POLICY_ERAS; e++)
        fprintf(out, "  %-6s %s%s\n", eras[e].name, eras[e].vm, tc_policy_era_ready(e) ? "" : " (not a preset)");
    /* the columns as wide as their widest entry */
    int wname = 4, wvalues = 6, wera[TC_POLICY_ERAS];
    for (unsigned e = 0; e < TC_POLICY_ERAS; e++)
        wera[e] = (int)strlen(eras[e].name);
    for (size_t k = 0; k < NFIELDS; k++) {
        values_text(&fields[k], values, sizeof values);
        wname = (int)strlen(fields[k].name) > wname ? (int)strlen(fields[k].name) : wname;
        wvalues = (int)strlen(values) > wvalues ? (int)strlen(values) : wvalues;
        for (unsigned e = 0; e < TC_POLICY_ERAS; e++)
            if (fields[k].era[e] && (int)strlen(fields[k].era[e]) > wera[e])
                wera[e] = (int)strlen(fields[k].era[e]);
    }
    fprintf(out, "\n%-*s %-4s %-*s", wname, "NAME", "TYPE", wvalues, "VALUES");
    for (unsigned e = 0; e < TC_POLICY_ERAS; e++) /* the last column unpadded */
        fprintf(out, " %-*s", e + 1 < TC_POLICY_ERAS ? wera[e] : 0, eras[e].name);
    fputc('\n', out);
    for (size_t k = 0; k < NFIELDS; k++) {
        const tc_policy_field *f = &fields[k];
        values_text(f, values, sizeof values);
        fprintf(out, "%-*s %-4s %-*s", wname, f->name, type_name(f->type), wvalues, values);
        for (unsigned e = 0; e < TC_POLICY_ERAS; e++)
            fprintf(out, " %-*s", e + 1 < TC_POLICY_ERAS ? wera[e] : 0, f->era[e] ? f->era[e] : "-");
        fprintf(out, "\n    %s\n    erts: %s\n", f->what, f->erts);
    }
}

void tc_policy_apply_env(tc_policy *p)
{
    const char *s = getenv("TC_GC_STRESS");
    if (s && *s && strcmp(s, "0") != 0)
        p->gc_stress = true;
}
