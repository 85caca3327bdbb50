/*
 * policy.h — how a process heap runs, as one value: every mechanism the model switches is one
 * field of tc_policy, and every field is one row of the policy table (policy.c), which says
 * its name, its type and allowed values, each era's value, the erts source it models and what
 * it does. Everything that names a field reads the table: the presets (an era is a column of
 * values, tc_policy_preset), `--set NAME=VALUE` (tc_policy_set), the listing (--list-policy,
 * tc_policy_write_table) and the CSV metadata (tc_policy_format). Code branches on a field's
 * value, never on an era's name.
 *
 * The eras (tc_policy_era): R10B-2 (erts 5.4.3, 2005: ggc.c, utils.c do_alloc, erl_process.c
 * schedule), R13B01 (erts 5.7.2, 2009, its non-SMP emulator: erl_gc.c, utils.c
 * erts_heap_alloc, beam_emu.c POST_BIF_GC_SWAPIN, erl_message.c erts_send_message) and OTP
 * 25.2.3 (erts 13.1.5: erl_gc.c, erts_heap_alloc, the x86-64 JIT's BIF-call glue), this
 * machine's VM.
 *
 * Adding a mechanism switch: a field here, a row in policy.c's table (with each era's value),
 * the mechanism's code branching on the field, a test. Adding an era: a row of
 * tc_policy_eras and its column of values in the table; code only where its mechanism is new.
 */
#ifndef TC_POLICY_H
#define TC_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../alloc/mseg.h"
#include "../copy/copy_shallow_fast.h"
#include "heapsize.h"
#include "pdict.h"

TC_BEGIN_DECLS

/* What HAlloc does when the request does not fit between htop and stop (proc.h has the rules). */
typedef enum tc_frag_rule {
    TC_FRAG_ARITH, /* do_alloc: bump only if free > need; else the arith heap (the last
                      fragment's tail), else a fragment of min_heap/2 + need (capped at 2·need
                      above 16K words) or exactly need; 6 header words of overhead each */
    TC_FRAG_EXACT, /* erts_heap_alloc: bump if free >= need; else the head fragment's tail, else
                      a fragment of exactly need (HAlloc's xtra is 0) */
    TC_FRAG_FILL   /* R13B01 erts_heap_alloc: bump if free >= need; else a new fragment of exactly
                      need, and the heap's free words are given up (a bignum header over them,
                      htop := HEAP_LIMIT): nothing more lands on the heap until the next GC */
} tc_frag_rule;

/* Where a message that arrived in its own fragment lives until the GC. */
typedef enum tc_msg_frag {
    TC_MSG_FRAG_MBUF, /* queue_message_tt: the fragment joins MBUF at once, the term a root */
    TC_MSG_FRAG_QUEUE, /* it stays with the message (young data once received); the GC moves a
                          queued one onto the new heap (move_msgs_to_heap) */
    TC_MSG_FRAG_COPY   /* R13B01: it stays with the message until loop_rec, which copies it onto
                          the heap, or collects when the heap has no room for it (the GC moves
                          it: erl_message.h ErtsMoveMsgAttachmentIntoProc) */
} tc_msg_frag;

/* When a process whose fragments outgrew its heap is collected. */
typedef enum tc_gc_trigger {
    TC_GC_AT_SCHEDULE, /* the fragment forces a yield; the GC runs when the scheduler next
                          picks the process (sched_gc_test), x registers live */
    TC_GC_AFTER_BIF    /* right after the BIF, with only its result live (bif_gc_test), and at
                          schedule-in (sched_gc_test) */
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
    TC_BIF_GC_WORDS,    /* stop - htop < mbuf_sz (the C macro; interpreter, arm64 JIT) */
    TC_BIF_GC_X86_JIT,  /* 8·(stop - htop) < mbuf_sz + 3 (the x86-64 JIT's byte compare) */
    TC_BIF_GC_ANY_FRAG  /* R13B01 beam_emu.c POST_BIF_GC_SWAPIN: any fragment (c_p->mbuf) */
} tc_bif_gc_test;

/* The test a process's schedule-in makes before it collects. */
typedef enum tc_sched_gc_test {
    TC_SCHED_GC_HEAP_SIZE, /* (MBUF_SIZE + overhead) * MBUF_GC_FACTOR >= HEAP_SIZE, the factor 1
                              (R10B-2 and R13B01 erl_process.c schedule) */
    TC_SCHED_GC_DESIRED    /* ERTS_IS_GC_DESIRED (OTP 25, tc_proc_gc_desired) */
} tc_sched_gc_test;

/* Where a sent message is copied (heaps/send.h has the rules). */
typedef enum tc_send_path {
    TC_SEND_DIRECT,      /* onto the receiver's heap, collecting it first if needed */
    TC_SEND_HEAP_OR_FRAG /* SMP (R13B01 -smp enable, OTP 21+ on_heap): the receiver's heap when it
                            is idle and has room, else a fragment attached to the message */
} tc_send_path;

/* The size of the heap a GC allocates (gc.h has the arithmetic). */
typedef enum tc_gc_size {
    TC_GC_SIZE_HEAP,     /* from the heap's size: heap_sz + mbuf_sz (+ old use + stack, major) */
    TC_GC_SIZE_YOUNG_USE /* from what is in use: stack + young use (+ old use + S_RESERVED, major) */
} tc_gc_size;

/* The size of the old heap a minor GC creates: one step above ... */
typedef enum tc_old_heap_size {
    TC_OLD_HEAP_MATURE,    /* ... the mature data, never below min_heap_size */
    TC_OLD_HEAP_YOUNG_USE, /* ... the young generation's use, the bare table */
    TC_OLD_HEAP_HEAP_USE   /* ... the heap's use, htop - heap, fragments left out: the bare
                              table (R13B01 minor_collection) */
} tc_old_heap_size;

/* What a minor GC does when it leaves less free than the need. */
typedef enum tc_minor_short {
    TC_MINOR_SHORT_FULLSWEEP, /* a fullsweep follows */
    TC_MINOR_SHORT_GROW       /* the heap grows to next(need_after) */
} tc_minor_short;

/* When live young data is promoted to the old heap (the high-water mark). */
typedef enum tc_tenure {
    TC_TENURE_FLIP,           /* high_water := the new heap's start when anything was mature,
                                 else htop: promotion at every second GC */
    TC_TENURE_SECOND_SURVIVAL /* high_water := htop: data surviving its second GC is promoted */
} tc_tenure;

/* The reductions a GC costs the process. */
typedef enum tc_gc_cost {
    TC_GC_COST_LIVE,      /* live words / 10 after the whole collection */
    TC_GC_COST_PER_GC     /* gc_cost of each collection: live / 10 + resize moved / 100, >= 1 */
} tc_gc_cost;

/* When a put splits one bucket of an ETS hash table (erl_db_hash.c db_put_hash, after a new
 * object is linked in; stores/ets.h reads it): the table's load, and so how many nodes of a
 * chain a lookup or an insert walks. A store rule, kept here with the era's other rules. */
typedef enum tc_ets_grow {
    TC_ETS_GROW_GT_1X,    /* nitems > nactive: OTP 25's GROW_LIMIT(NACTIVE), about one object a chain */
    TC_ETS_GROW_GT_7X,    /* nitems > nactive * (CHAIN_LEN + 1), CHAIN_LEN 6: R13B01, about seven */
    TC_ETS_GROW_DIV_GT_6  /* nitems / nactive > CHAIN_LEN (integer division): R10B-2, one insert
                             before R13B01's test */
} tc_ets_grow;

/* What an ETS object's block holds before the object's words, erts' HashDbTerm up to
 * DbTerm.tpl (erl_db_hash.h, erl_db_util.h; db_store_term allocates offsetof(HashDbTerm,
 * dbterm) + sizeof(DbTerm) + (size - 1) words): the chain's next and the hash value, then
 * the DbTerm's header. So how many bytes each object takes from ets_alloc, and the pages an
 * insert writes (stores/ets.h reads it). A store rule, kept here with the era's other rules. */
typedef enum tc_ets_term_head {
    TC_ETS_TERM_HEAD_FIRST_OH,    /* first_oh, size: 32 bytes in all (OTP 25) */
    TC_ETS_TERM_HEAD_OFF_HEAP,    /* a whole ErlOffHeap (mso, funs, externals, overhead), size: 56 (R13B01) */
    TC_ETS_TERM_HEAD_TPL_OFF_HEAP /* the tpl pointer, an ErlOffHeap, size: 64 (R10B-2) */
} tc_ets_term_head;

/* Whether an ETS object's ets_alloc block has its allocator's address before it: R13B01's SMP
 * emulator makes ets_alloc thread-preferred and erts_alcu_alloc_thr_pref keeps that word in
 * each block (erl_alloc_util.c); R10B-2 has no SMP emulator and OTP 25 finds a block's
 * allocator through its carrier. */
typedef enum tc_ets_owner_word {
    TC_ETS_OWNER_WORD_OFF, /* no such word */
    TC_ETS_OWNER_WORD_SMP  /* one word more a block in a table of the SMP emulator (a locked one) */
} tc_ets_owner_word;

/* The Erlang program whose tester the eptest workload runs (scenarios/workload.h): a program
 * as an era's compiler made it, so a column of the table, though no mechanism of erts. */
typedef enum tc_tester {
    TC_TESTER_SEED,         /* the seed's loops as first modelled: a fresh server per round-trip
                               pass, frames measured from OTP 25's GC trace */
    TC_TESTER_EPTEST_ERL,   /* experiments/beam/eptest.erl as OTP 25's erlc compiles it, frame by
                               frame (workload.c tc_ep_frames, checked by tests/cli_frames.sh) */
    TC_TESTER_ERAS_EP_R10B, /* experiments/beam/eras/eras_ep.erl's traced run as R10B-2's erlc
                               compiles it and its stdlib runs it (scenarios/erasep.h) */
    TC_TESTER_ERAS_EP_R13B  /* the same as R13B01's erlc and stdlib make it */
} tc_tester;

typedef struct tc_policy {
    const char *name; /* the preset it started from; fields set since keep it */
    tc_heap_table heap_table;
    tc_frag_rule frag_rule;
    bool frag_yield; /* a new fragment that brings mbuf_sz + overhead to heap_sz asks for a yield */
    tc_msg_frag msg_frag;
    tc_gc_trigger gc_trigger;
    tc_bif_gc_test bif_gc_test;
    tc_sched_gc_test sched_gc_test;
    tc_send_path send_path; /* how a process of this era sends (the sender's policy decides) */
    bool send_litopt; /* the sender's literals are neither sized nor copied (OTP 20+) */
    bool send_reds;   /* a local send charges the sender OTP 25's reductions (send.h) */
    /* OTP 25: `!` returns through the light-BIF glue (the x86-64 JIT's emit_send calls
     * emit_call_light_bif_shared with send/2, instr_bif.cpp), so the same bif_gc_test runs
     * after every send, with the message the only live register (erts_gc_after_bif_call_lhf
     * keeps the BIF's result alone). R10B's send made no such test. */
    bool gc_after_send;
    /* ERTS_POTENTIALLY_LONG_GC_HSIZE (erl_gc.h, 128 Ki words; 0 = never): a GC asked for on a
     * normal scheduler whose young use + stack (+ old use when major) reaches this is not
     * run there; the process is flagged F_FORCE_GC, gives up its reductions and is collected
     * on a dirty scheduler when it next runs, with the x registers live at its yield point
     * (erl_gc.c check_for_possibly_long_gc, delay_garbage_collection with need 0), asked as
     * a minor and, when the minor would find the old heap short of room, again as a major
     * (garbage_collect: delay_gc_after_start). Modelled at the GC-after-BIF safe point, at heap
     * tests and allocates (delay_garbage_collection with need > 0: a fragment heap) and at a
     * schedule-in (see proc.h). */
    uint64_t long_gc_words;
    /* Which of two threads goes first once a long GC is sent to a dirty CPU scheduler while
     * another task waits on the normal one (erl_process.c schedule_out_process enqueues the
     * process, ERTS_PSFLG_DIRTY_ACTIVE_SYS set by erl_process.h
     * erts_schedule_dirty_sys_execution, on the dirty CPU run queue, and the dirty thread
     * runs it beside the normal scheduler's next task): false, the normal scheduler's queued
     * tasks run first and the GC at the process's next schedule-in; true, the GC runs as the
     * process leaves, before them, and the process stays locked until it is scheduled in
     * again. A race on thread wake-up in the VM, not a rule of erts: OTP 25's value is the
     * outcome the installed VM's traces take on this machine at most of these GCs (sched.h);
     * the switch gives the other. */
    bool dirty_gc_first;
    bool move_live_frags; /* fragments made by the BIF move whole into the new heap */
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
    bool shrink;               /* the minor-GC shrink and the fullsweep 25 % shrink */
    uint64_t shrink_min_words; /* a minor GC shrinks only a heap above this */
    bool shrink_old_floor;     /* a minor GC's shrink stays at old heap / 8 or above */
    tc_old_heap_size old_heap_size;
    bool minor_needs_old_heap; /* off: with no mature data, a minor GC runs without one */
    tc_gc_size minor_heap_size;
    tc_minor_short minor_short;
    tc_gc_size major_heap_size;
    /* The fullsweep's new heap counts the stack: R10B-2 ggc.c adds `p->hend - p->stop`, OTP 25
     * major_collection stack_size; R13B01 major_collection dropped it ("for no obvious
     * reason"). */
    bool major_stack;
    tc_tenure tenure;
    tc_gc_cost gc_cost;
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
    int64_t call_reds;          /* reductions a step's call needs left (sched.h) */
    uint64_t input_reductions;  /* erl_sys_schedule after this many (0: never; sched.h) */
    int64_t receive_gc_reds;    /* a receive leaving a GC desired cuts the slice to this (0: no) */
    int64_t receive_fetch_reds; /* a receive's fetch from the outer signal queue costs this (sched.h) */
    bool gc_stress;             /* debug: every HAlloc makes a fragment and every safe point GCs */
    /* How ets:lookup/2 copies a stored object out: TC_COPY_OUT_SHALLOW (copy_shallow, every
     * era as shipped) or TC_COPY_OUT_SHALLOW_FAST, the PROPOSAL copy/copy_shallow_fast.h
     * that no VM has (the same words and counts, only faster). */
    tc_copy_out copy_out;
    tc_tester tester; /* the benchmark program the eptest workload runs (scenarios/workload.h) */
    /* The workload's table is [set, compressed] (ets:new's option, stores/ets.h): objects
     * stored as db_store_term_comp does, lookups decoding them (copy/compressed.h). No era
     * had it by default; R10B-2 and R13B01 have no such option. */
    bool ets_compressed;
    tc_ets_grow ets_grow; /* the tables' split rule (the workload's and the 2009 loops') */
    tc_ets_term_head ets_term_head; /* the tables' object header: the bytes each object takes */
    tc_ets_owner_word ets_owner_word; /* the thread-preferred ets_alloc's word in each block */
    tc_pdict_grow pdict_grow; /* how a process dictionary grows (heaps/pdict.h) */
    uint64_t min_heap_size;   /* words (233); rounded up to a table size by tc_proc_new */
    uint64_t fullsweep_after; /* minor GCs between fullsweeps (65535) */
    /* sbct, rsbcmt, the segment cache (mcs, its design) and the sbc resize unit are table
     * fields; the eheap allocator's other settings are tc_mseg_default_config()'s in every era. */
    tc_mseg_config mem;
} tc_policy;

/* ---- the table --------------------------------------------------------------------------- */

typedef enum tc_policy_type {
    TC_POLICY_BOOL, /* on or off */
    TC_POLICY_ENUM, /* one of `names`, stored as its index */
    TC_POLICY_UINT  /* a decimal integer in lo..hi */
} tc_policy_type;

/* The eras, in the order of the table's columns (oldest first). */
enum { TC_POLICY_ERAS = 3 };

typedef struct tc_policy_era {
    const char *name;  /* the preset's name, --era's value */
    const char *vm;    /* the VM its values were read in */
    long gap_len;      /* the payload length its lookup/round-trip gap is reported at */
    bool native;       /* the VM installed here (Debian's OTP 25.2.3): what runs by default */
} tc_policy_era;

/* One row of the table: one field of tc_policy. */
typedef struct tc_policy_field {
    const char *name;
    tc_policy_type type;
    const char *const *names; /* TC_POLICY_ENUM: the value names by index, NULL-terminated */
    unsigned proposal;        /* TC_POLICY_ENUM: bit i set: names[i] is a proposal, not a VM's */
    uint64_t lo, hi;          /* TC_POLICY_UINT: the range */
    size_t offset, size;      /* where in tc_policy, and how wide */
    const char *era[TC_POLICY_ERAS]; /* each era's value as --set writes it; NULL: not read yet */
    const char *erts;         /* the erts source it models: file and function, per era */
    const char *what;         /* one line of what it does */
} tc_policy_field;

unsigned tc_policy_field_count(void);
const tc_policy_field *tc_policy_field_at(unsigned i);
/* NULL when no field has that name. */
const tc_policy_field *tc_policy_field_find(const char *name);

const tc_policy_era *tc_policy_era_at(unsigned i); /* i < TC_POLICY_ERAS */
/* NULL when no era has that name. */
const tc_policy_era *tc_policy_era_find(const char *name);
/* Whether era i is a preset: every field has its value. */
bool tc_policy_era_ready(unsigned i);

/* The era's policy: every field at its value in the table. TC_EBADARG for a name that is not
 * a preset (tc_policy_era_ready). The one place era names are read. */
tc_result tc_policy_preset(const char *name, tc_policy *out) TC_MUST_CHECK;
/* The native era's preset (tc_policy_era.native): the VM the experiments compare with. */
tc_policy tc_policy_native(void);
/* The presets' names, "a, b or c" (every ready era in the table's order), into buf. */
const char *tc_policy_preset_names(char *buf, size_t cap);

/* What the field takes, in words ("bif or schedule", "on or off", "an integer in 0..1000"). */
const char *tc_policy_field_expected(const tc_policy_field *f, char *buf, size_t cap);
/* Sets one field from its text (a value name, on/off, or a decimal integer in range).
 * TC_EBADARG when the text is not one of the field's values; then, when err is not NULL, a
 * message saying what it expected ("bif or schedule", "an integer in 0..1000") goes to err. */
tc_result tc_policy_set_field(tc_policy *p, const tc_policy_field *f, const char *value, char *err,
                              size_t errcap) TC_MUST_CHECK;
/* NAME=VALUE, as --set takes it: TC_EBADARG, with a message in err naming the fields or the
 * allowed values, for an unknown name, a missing '=' or a bad value. */
tc_result tc_policy_set(tc_policy *p, const char *assignment, char *err, size_t errcap) TC_MUST_CHECK;
/* The other value of a two-valued field (a bool, or an enum of two names): the ablations'
 * flip. TC_EBADARG for any other field. */
tc_result tc_policy_flip(tc_policy *p, const tc_policy_field *f) TC_MUST_CHECK;
/* The field's value in p, as an integer (bool 0/1, an enum's index) and as its text. */
uint64_t tc_policy_get(const tc_policy *p, const tc_policy_field *f);
const char *tc_policy_value_text(const tc_policy *p, const tc_policy_field *f, char *buf, size_t cap);

/* "NAME (f=v, f=v, ...)": every field in the table's order, a proposal's value followed by
 * ": a PROPOSAL, not the VM"; and, into `changed`, the fields that differ from the preset
 * p->name ("f=v, ..." or "none"). Either buffer may be NULL. */
void tc_policy_format(const tc_policy *p, char *all, size_t allcap, char *changed, size_t changedcap);
/* The table: as text, or with csv '#' lines (era_NAME: its VM; native: the native era's name)
 * and one row per field in the columns name,type,values,ERA...,erts,what (every era of the
 * table, a preset or not). */
void tc_policy_write_table(FILE *f, bool csv);

/* TC_GC_STRESS=1 in the environment turns gc_stress on (the test suites' stress mode). */
void tc_policy_apply_env(tc_policy *p);

TC_END_DECLS

#endif
