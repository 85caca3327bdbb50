/*
 * workload.h — the 2005 benchmark's workload on modelled processes (tc_ep_*), shared by
 * eptest, ablate, crossover and breakdown (seeds/2005-send-vs-ets-lookup.txt).
 *
 * One tester process holds Data (a payload of length L) and runs, in the seed's order:
 *   proc1..3   N client-server calls each: {self(), get} to a fresh server holding Data,
 *              which replies {self(), Data};
 *   ets        N inserts of {I, Data} (I = 1..N) into a fresh set table, N overwrites,
 *              then N ets:lookup(T, I) whose results are dropped;
 *   empty      a loop of N iterations;
 *   pt_get     after persistent_term:put(K, Data) (untimed), N persistent_term:get(K) whose
 *              results are dropped (copy/literal.h: the stored term itself, nothing copied).
 * All processes run on one modelled scheduler (heaps/sched.h): a round trip is two real
 * process switches, a send is heaps/send.h's path, a lookup is a BIF that builds its result
 * with HAlloc and returns through the era's GC trigger. Each pass is timed as a whole, as
 * the seed's timer:tc does, and counted. A policy's min_heap_size (--min-heap) is the
 * tester's; the server keeps its era's, as eptest.erl's server, spawned without options.
 *
 * policy.tester picks the program: seed, the loops above as first modelled; eras_ep_r10b and
 * eras_ep_r13b (R10B-2's and R13B01's values), eras_ep.erl as those eras compiled it, run by
 * scenarios/erasep.h; eptest_erl (OTP 25's value), with which the run follows
 * experiments/beam/eptest.erl as OTP 25's erlc compiles it, frame by frame and word by word (tc_ep_frames, checked against
 * erlc -S by tests/cli_frames.sh): the tester spawned with its fun, Data built by the
 * payload's own code, ONE server for its whole life spawned with a heap sized for Data,
 * ets:new and persistent_term:put before the passes, and each pass inside pass/4 and timer:tc between two marks, the messages a meter
 * process answers (the counters are read when a mark reaches it, as eptest:meter/2 does).
 * With +S 1:1 the VM's GC trace of this tester is reproduced event for event at most
 * lengths (experiments/beam/tracediff.sh --tester, --grid); what is still missing is listed in
 * workload.c above ep_life. Where its slice ends, and so where a desired GC runs, follows the
 * x86 JIT's reduction counting on OTP 25: a call's reduction at the callee's entry
 * (instr_common.cpp emit_i_test_yield: `dec FCALLS; jle`), a light BIF's before the BIF
 * (instr_bif.cpp emit_call_light_bif_shared: a yield there unwinds the fragment's return
 * address and calls the BIF again at the schedule-in), a return's (instr_call.cpp emit_return:
 * `dec FCALLS; jl`, yielding in the caller through dispatch_return), and the 5 reductions a
 * receive leaves when a GC is desired (beam_jit_common.cpp beam_jit_remove_message). Functions
 * of other modules the tester runs are followed as compiled too: timer:tc/1 and the
 * erlang:convert_time_unit/3 it calls (erts's preloaded erlang.erl: a 5-word frame and a call
 * of the light BIF erts_internal:time_unit/0). maps:from_list/1 builds a map of more than 32
 * keys where the VM puts it (erl_map.c hashmap_from_validated_list: the leaves' conses in one
 * HAlloc, then the nodes in hashmap_from_chunked_array's order through a heap factory,
 * erl_message.c erts_factory_proc_init and erts_reserve_heap__: the heap's free words first,
 * then HAllocX fragments); its trap (utils.c erts_ycf_trap_driver) is not modelled (workload.c
 * says why). These rules are the OTP 25 JIT's and go with
 * this program: an era whose policy sets tester=eptest_erl (only otp25's does) keeps them,
 * though R10B's and R13B's emulators charged no reduction for a return.
 */
#ifndef TC_SCENARIOS_WORKLOAD_H
#define TC_SCENARIOS_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "../heaps/policy.h"
#include "../heaps/sched.h"
#include "../heaps/send.h"

TC_BEGIN_DECLS

typedef enum tc_ep_shape {
    TC_EP_INTS,    /* lists:seq(1, L) */
    TC_EP_FLOATS,  /* [float(X) || X <- lists:seq(1, L)] */
    TC_EP_TUPLE,   /* list_to_tuple(lists:seq(1, L)) */
    TC_EP_NESTED,  /* {1, {2, ... {L, []} ...}} */
    TC_EP_STRINGS, /* [integer_to_list(X) || X <- lists:seq(1, L)] */
    TC_EP_BINARY,  /* <<0:(8 * L)>>: heap binary up to 64 bytes, refc above */
    TC_EP_MAP,     /* maps:from_list([{I, I} || I <- lists:seq(1, L)]): a hashmap past 32 keys */
    TC_EP_SHAPES
} tc_ep_shape;

extern const char *const tc_ep_shape_names[TC_EP_SHAPES];

/* Where a traced heap event of the run happened (tc_ep_config.trace): which process, which
 * phase of the tester's life, and the operation within a pass, from the loops' own counters
 * (a client's call: the replies received + 1; the server's: the requests received; a loop's:
 * its iteration). */
typedef enum tc_ep_role { TC_EP_TESTER, TC_EP_SERVER, TC_EP_ROLES } tc_ep_role;
typedef struct tc_ep_where {
    int test;   /* the pass (TC_EP_PROC1 ...), or -1 before the first */
    bool after; /* past the pass's end, before the next one begins */
    long op;    /* 0 outside a pass */
} tc_ep_where;
typedef void (*tc_ep_trace_fn)(void *ctx, tc_ep_role role, const tc_ep_where *where, const tc_proc *p,
                               const tc_heap_event *ev);

/* One entry of the tester's compiled code (workload.c has the table and says where each
 * comes from): in Module:Function/Arity, `instr` is "allocate" (the first allocate or
 * allocate_heap: its stack words), "trimN" (the N-th trim: the words it drops) or
 * "make_fun3_N" (the N-th make_fun3: its free variables); `words` is that number. */
typedef struct tc_ep_frame {
    const char *module, *function;
    int arity;
    const char *instr;
    unsigned words;
} tc_ep_frame;
enum {
    TC_EP_F_TESTER_FUN, TC_EP_F_TESTER_BODY, TC_EP_F_PAYLOAD, TC_EP_F_LC, TC_EP_F_LC_TRIM_PASS,
    TC_EP_F_LC_TRIM_AFTER, TC_EP_F_PASS, TC_EP_F_PASS_TRIM, TC_EP_F_MARK, TC_EP_F_TC, TC_EP_F_TC_TRIM,
    TC_EP_F_CONVERT, TC_EP_F_CALL_LOOP, TC_EP_F_INSERT_LOOP, TC_EP_F_LOOKUP_LOOP, TC_EP_F_PT_LOOP, TC_EP_F_SERVER,
    TC_EP_F_FUN_TESTER, TC_EP_F_FUN_SERVER, TC_EP_F_FUN_PASSES, TC_EP_F_FUN_PT, TC_EP_F_FUN_PROC,
    TC_EP_F_FUN_OVERWRITE, TC_EP_F_FUN_LOOKUP, TC_EP_F_FUN_INSERT, TC_EP_F_FUN_EMPTY, TC_EP_FRAMES
};
extern const tc_ep_frame tc_ep_frames[TC_EP_FRAMES];

typedef struct tc_ep_counts tc_ep_counts; /* below */

typedef struct tc_ep_config {
    long len, iterations;
    tc_ep_shape shape;
    tc_policy policy; /* the era's rules, the send path and the tester among them */
    /* A term of the caller's used as Data instead of the shape's payload (len and shape are
     * then not read): the tester decodes it from its external format, as eptest.erl's
     * payload({ext, Bin}, _) does with the bytes termcopy explain --vm gives the VM
     * (binary_to_term: one allocation, a fragment when the heap is short, then the
     * GC-after-BIF test). It must outlive the run. TC_NON_VALUE (0, what a zeroed config
     * holds): the shape's. */
    tc_term payload;
    bool hot_key;     /* look up key 1 N times instead of keys 1..N */
    bool keep_result; /* the lookup result stays live until the next lookup */
    bool verify;      /* run the heap verifier after every pass */
    /* Called just outside each timed pass (begin true before, false after), so a profiler
     * can cover exactly one test; NULL for none. */
    void (*pass_hook)(void *ctx, int test, bool begin);
    void *pass_ctx;
    /* Every GC and new fragment of the tester and the servers, with where it happened (the
     * proc.h trace hook, tc_proc_set_trace); NULL for none. */
    tc_ep_trace_fn trace;
    void *trace_ctx;
    /* The tester's, the server's and the meter's receives are traced, as gctrace.erl --tester
     * traces every process eptest:tester/2 spawns ('receive' events): each receive pays one
     * reduction more (proc.h tc_proc_set_trace_receive). */
    bool trace_receive;
    /* The dirty-GC race's outcomes one by one (heaps/sched.h tc_sched_set_draws: draws[i] the
     * i-th draw of the run's), NULL for the policy's; `draw` (or NULL) sees each draw taken,
     * with trace_ctx, the process whose GC it is and where that process was. */
    const char *draws;
    void (*draw)(void *ctx, unsigned index, tc_ep_role role, const tc_ep_where *where, tc_draw outcome);
    /* The run's clock, for the memory source's time-driven rule (alloc/mseg.h tc_mseg_clock:
     * the segment cache's check once a second): the ns of the VM's time that pass `test`'s
     * counts after its `ops` operations stand for (the time account's counts at the VM's
     * prices, experiments/eptest.c --prices), asked after each operation of the tester's
     * loop; 0 for a pass it does not price, which then takes no time. NULL: no clock, the
     * cache never drained by time. */
    double (*clock)(void *ctx, int test, long ops, const tc_ep_counts *so_far);
    void *clock_ctx;
} tc_ep_config;

/* The payload of length L of a shape, built in `a` as the seed's expressions build it. */
tc_result tc_ep_build_payload(tc_alloc *a, tc_ep_shape shape, long len, tc_term *out) TC_MUST_CHECK;

/* The flat size of that payload (its words, as erts_debug:flat_size). */
tc_result tc_ep_payload_words(tc_ep_shape shape, long len, uint64_t *words) TC_MUST_CHECK;

/* Copies `t` onto p's heap (as spawn copies its arguments) and keeps it on p's stack (its
 * bottom slot when the stack was empty). */
tc_result tc_ep_place_on_heap(tc_proc *p, tc_term t) TC_MUST_CHECK;

/* The era's defaults: its policy (L 1000, N 1000, ints). */
tc_result tc_ep_config_for_era(const char *era, tc_ep_config *out) TC_MUST_CHECK;

enum { TC_EP_PROC1, TC_EP_PROC2, TC_EP_PROC3, TC_EP_INSERT, TC_EP_OVERWRITE, TC_EP_LOOKUP, TC_EP_EMPTY, TC_EP_PT_GET, TC_EP_TESTS };
extern const char *const tc_ep_test_names[TC_EP_TESTS];

/* What one pass did, from counters read before and after it. */
struct tc_ep_counts {
    double us;  /* wall time of the pass, clock overhead subtracted */
    long faults;
    uint64_t gcs, gc_words, words_sized, words_copied, fragments, carriers_mapped, switches, io_polls;
    uint64_t tester_gcs; /* the tester's own collections (gcs counts the server's too) */
    /* What the time account prices (scenarios/account.h): the GCs by kind, those the VM runs on
     * a dirty CPU scheduler (tc_proc_stats.long_gcs), and of gc_words the queued messages'
     * words moved onto the heap after a collection (the rest the collector copied); and the
     * message words R13B01's loop_rec copied onto the heap with no collection (not in gc_words);
     * and the heap fragments' words the collections traced (tc_proc_stats.frag_words_traced). */
    uint64_t minor_gcs, major_gcs, long_gcs, gc_moved, rec_moved, frag_traced;
    /* Of carriers_mapped, those of the memory source's dirty-scheduler instance
     * (TC_MSEG_DIRTY_INSTANCE: the heaps long GCs make; 0 with a single instance). */
    uint64_t dirty_carriers;
};

/* The memory a run of cfg holds at once, before it runs: the ETS insert pass keeps every one of
 * its N objects {I, Data} live in the table until the run ends, so N times the bytes the store
 * charges for one such object (tc_ets_get_info's stored_bytes after storing {1, Data} once in
 * a scratch table: node, compact DbTerm words), plus Data on the tester's heap. A lower bound
 * of the peak (heaps and messages come on top), so a run it does not fit cannot fit.
 * *machine: the machine's physical memory (sysconf), or TC_MEM_BYTES from the environment
 * when set (the tests' way to put the limit where they want it). *fits: estimate <= machine. */
tc_result tc_ep_estimate_memory(const tc_ep_config *cfg, uint64_t *estimate, uint64_t *machine,
                                bool *fits) TC_MUST_CHECK;

/* One eptest:run(N): every test once. TC_EBADARG when --verify found a broken heap. */
tc_result tc_ep_run(const tc_ep_config *cfg, tc_ep_counts out[TC_EP_TESTS]) TC_MUST_CHECK;

/* The question in one number: `repeats` runs, each run's round trip the median of its three
 * proc passes (the report's one definition, report/stats.awk), then the medians over the
 * runs of the round trips and of the lookup passes, and their ratio (lookup / round trip:
 * above 1, the lookup loses). The counts are those of the first run's proc2 and lookup. */
typedef struct tc_ep_gap {
    double proc_us, lookup_us, ratio;
    double pt_get_us; /* the persistent_term:get pass, medians like the others */
    tc_ep_counts proc, lookup;
} tc_ep_gap;
tc_result tc_ep_measure_gap(const tc_ep_config *cfg, int repeats, tc_ep_gap *out) TC_MUST_CHECK;

/* The payload lengths the binaries take (--len): the span of the seed's and the brief's
 * figures and of crossover's grid. At the top the ETS passes already store half a gigabyte
 * (N = 1000 copies of a list of 30000 integers). */
enum { TC_EP_MIN_LEN = 10, TC_EP_MAX_LEN = 30000 };

/* The payload length at which the era's gap was reported (tc_policy_era.gap_len: 1000 for
 * R10B-2, the 2005 seed; 10000 for OTP 25, the brief's measurement). */
long tc_ep_gap_len(const char *era);

/* The workload's own switches, which are not mechanisms of the VM (hence not policy fields),
 * declared as the policy table declares its booleans: by name, so that an ablation or a
 * command line names them the same way. */
typedef struct tc_ep_switch {
    const char *name;
    const char *what;
    size_t offset; /* of its bool in tc_ep_config */
} tc_ep_switch;
enum { TC_EP_SWITCHES = 2 };
extern const tc_ep_switch tc_ep_switches[TC_EP_SWITCHES];
/* NULL when no switch has that name. */
const tc_ep_switch *tc_ep_switch_find(const char *name);
void tc_ep_switch_set(tc_ep_config *c, const tc_ep_switch *s, bool on);
bool tc_ep_switch_get(const tc_ep_config *c, const tc_ep_switch *s);
/* The code the workload's processes run (the client's, the server's and the tester's loop
 * steps), for a profiler's phase table (experiments/profiler.h's tc_prof_fn is the same
 * type): static in workload.c, so named there. */
typedef void (*tc_ep_fn)(void);
enum { TC_EP_STEP_FNS = 7 };
extern const tc_ep_fn tc_ep_step_fns[TC_EP_STEP_FNS];

TC_END_DECLS

#endif
