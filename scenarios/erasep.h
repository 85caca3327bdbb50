/*
 * erasep.h — experiments/beam/eras/eras_ep.erl's traced run on modelled processes: the 2005
 * benchmark as the seeds' own VMs run it (R10B-2, R13B01), instruction by instruction as
 * their erlc -S compiles eras_ep.erl and their stdlib's lists:seq/2, lists:foreach/2 and
 * timer:now_diff/2 run (policy.tester eras_ep_r10b, eras_ep_r13b).
 *
 * The run is the one eras_ep counts its GCs in: a tester spawned with [Parent, L, {N, Keys},
 * {Tracer, Delivered}] builds Data = lists:seq(1, L), spawns ONE server holding [Data], turns
 * tracing on for itself and the server (lists:foreach of a fun), makes its table, and runs the
 * seven passes through a body-recursive list comprehension, each inside pass/7: statistics,
 * now, the loop, now, statistics, the mark (its name sent to the tracer; where the VM has
 * erlang:trace_delivered, R13B01, the tracer's `marked` awaited), then timer:now_diff and
 * {Test, Us, Gcs}. A pass's counters run from the previous mark to its own, as eras_ep's
 * tracer counts the tester's GC events (proc1's from the moment tracing starts); its time is
 * the loop's, between the two now() calls.
 *
 * Each step of the tester is the code from one dispatch (a call) to the next, with the
 * callee's arguments in the x registers: where R10B-2 asked for a yield (a fragment that made
 * MBUF_SIZE reach the heap's size) the slice ends there and the GC at the next schedule-in
 * has those registers live, as the emulator's context switch at the call does. Frames are
 * allocate's y slots plus the continuation pointer (R10B-2's and R13B01's AH: E - HTOP <
 * StackNeed + 1 + HeapNeed), heap tests test_heap's, funs ERL_FUN_SIZE + the environment
 * (erl_fun.h: 6 + 1 words; new_fun collects when HEAP_LIMIT - HTOP <= that), and every live
 * term is where the compiled code keeps it (the stack's y slots, the x registers at a GC).
 *
 * What the two releases' code differs in: R10B-2's lists:seq/4 conses one cell per call,
 * R13B01's seq_loop/3 four; R10B-2 has no literal area, so tests()'s list (14 words) and
 * [set] are built on the heap; R13B01 has erlang:trace_delivered, so its mark waits for the
 * tracer's `marked`. Data of another shape than ints (eras_ep has only lists:seq) is copied
 * onto the heap whole where lists:seq would build it.
 */
#ifndef TC_SCENARIOS_ERASEP_H
#define TC_SCENARIOS_ERASEP_H

#include "workload.h"

TC_BEGIN_DECLS

/* eras_ep's traced run under cfg (its policy's tester must be an eras_ep one): out[PROC1 ..
 * EMPTY] filled, out[PT_GET] zero (eras_ep has no such pass). */
tc_result tc_erasep_run(const tc_ep_config *cfg, tc_ep_counts out[TC_EP_TESTS]) TC_MUST_CHECK;

TC_END_DECLS

#endif
