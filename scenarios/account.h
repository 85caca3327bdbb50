/*
 * account.h — the time account (tc_account_*): a loop's time is its counts times this
 * machine's unit prices (DESIGN.md rule 8), for the VM's own counts and for the model's.
 *
 * Models no erts mechanism: it prices the ones the counts come from. The phases and what
 * each unit is:
 *   fixed  one operation on the payload [] (a round trip: eptest's call_loop and server; a
 *          lookup: ets:lookup of {I, []}): the emulator, the BIF, the switches, the 3-word
 *          messages, at N operations
 *   copy   a word of Data copied by the operation: a send's size_object + copy_struct
 *          (erl_message.c erts_send_message), a lookup's copy_shallow (erl_db_util.c
 *          db_copy_from_comp), at N x flat_size(Data)
 *   gc     per GC by kind (erl_gc.c minor_collection with nothing to copy, at the test after a
 *          BIF as a loop's GCs are, not forced: a forced GC also takes the process out through
 *          the scheduler and back; major_collection copying Data), per other word the collector
 *          copied, per queued message word moved onto
 *          the heap after it (move_msgs_to_heap), per word of a heap fragment a GC traced
 *          (R13B01's GC after a BIF: erl_gc.c collect_heap_frags copies the result out of its
 *          fragment, then do_minor's or major_collection's scan sweeps it again with the new
 *          heap; the fragment's allocation and free with it), per GC sent to a dirty CPU scheduler and back
 *          (check_for_possibly_long_gc: 128 Ki words of young generation: the scheduler
 *          and the dirty one each go to sleep in it, priced with the trip); or, where the VM
 *          calibrated the loop's own long GC in its context (the lookup loop: the dirty
 *          scheduler's time for a GC of the results' fragments, which it frees, and of the
 *          heap it maps and unmaps, mechanisms the unit GCs above leave out), each long GC at
 *          that price instead of a minor's and a trip's, the dirty instance's carriers in it
 *   fault  a first-touch minor fault of a fresh page, the page's unmap with its carrier
 *          included (a probe here: a region of the loop's heap block size, every page touched,
 *          unmapped: the kernel's price, the same for the VM's process and the model's)
 *   mmap   one carrier mapped, its first page written, unmapped, less that page's fault: the
 *          mmap and munmap, the page tables made and freed, the TLB flush of the CPUs the
 *          process's other threads ran on (the cpuclock NIF in the VM's process, on a
 *          scheduler and, for the carriers a long GC maps, mseg instance 0's, on a dirty
 *          CPU scheduler: its munmaps flush the CPU the process's scheduler runs on)
 *   sleep  one voluntary context switch of a VM thread: a scheduler with nothing to run goes to
 *          sleep (erl_process.c scheduler_wait) until a message for one of its processes wakes
 *          it. The fixed price keeps the sleeps of the [] loop (fixed_sleeps per operation); the
 *          sleep phase is the loop's sleeps beyond that rate, which can be fewer. The model runs
 *          no scheduler threads and counts none (sleeps -1): its sleep phase is 0, its fixed
 *          price the [] loop's, sleeps included. Likewise a trip to a dirty scheduler keeps the
 *          sleeps its calibration saw (dirty_sleeps a trip), and the phase is the sleeps beyond
 *          them: a thread's sleep costs what its context makes it cost, and the trip's are
 *          cheaper than the round trips' the sleep price comes from.
 * Every price is nanoseconds of CPU time: the VM's process CPU clock (experiments/beam/
 * cpuclock.c) in its calibrations, this process's in the probe; a shared machine changes a
 * loop's wall time with the share of the cores other programs leave it, not its CPU time.
 * Prices depend on their context (where the source and destination sit, how big the heap
 * is, what a GC frees), so each set is measured for one loop at one point: the VM's
 * calibrations rebuild the loop's context (experiments/beam/account.erl says how) in runs
 * of their own, apart from the loop they price.
 */
#ifndef TC_SCENARIOS_ACCOUNT_H
#define TC_SCENARIOS_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../terms/base.h"
#include "vmside.h"
#include "workload.h"

TC_BEGIN_DECLS

/* The loops priced: the round trip (each proc pass) and the lookup pass. */
typedef enum tc_account_loop { TC_ACCOUNT_RT, TC_ACCOUNT_LOOKUP, TC_ACCOUNT_LOOPS } tc_account_loop;
extern const char *const tc_account_loop_names[TC_ACCOUNT_LOOPS];

/* The unit prices of one loop's context, ns of CPU time. */
typedef struct tc_account_prices {
    double fixed;        /* one operation on [] */
    double word;         /* one word of Data copied by the operation */
    double gc_minor;     /* one minor GC, nothing copied, where a loop collects (after a BIF) */
    double gc_major;     /* one major GC copying Data (live in the old heap) and nothing else */
    double gc_word;      /* one word the collector copied */
    double gc_move_word; /* one queued message word moved onto the heap */
    double gc_frag_word; /* one word of a heap fragment a GC traced (the result of the BIF before it) */
    double gc_dirty;     /* one GC's trip to a dirty CPU scheduler and back, its sleeps in it */
    double dirty_sleeps; /* the sleeps per trip that price holds */
    /* One long GC of the loop measured in the loop's own context: the dirty CPU scheduler's
     * time for it (the collection, what it frees, the heaps it maps and unmaps), its faults
     * out; and the long GCs its calibration saw (0: none, the unit prices above price them). */
    double gc_long, gc_long_gcs;
    double fault;        /* one first-touch fault, its page's unmap included */
    double carrier;      /* one carrier mapped, first written and unmapped, less its fault */
    double carrier_dirty; /* the same on a dirty CPU scheduler (a long GC's heaps) */
    double sleep;        /* one scheduler thread's sleep and wake-up */
    double fixed_sleeps; /* the sleeps per operation the fixed price holds */
} tc_account_prices;

/* What one loop did, in the units the prices are for. */
typedef struct tc_account_counts {
    double ops, words; /* operations; words of Data each copies */
    double minor, major, dirty;
    double gc_copied, gc_moved; /* words */
    double gc_frag;             /* of the words collected, those of traced heap fragments */
    double faults, carriers;
    double dirty_carriers; /* of carriers, those mapped on a dirty scheduler */
    double sleeps;         /* the VM's; -1: not counted (the model's) */
} tc_account_counts;

/* Counts times prices, in microseconds; total is their sum. */
typedef struct tc_account_phases {
    double fixed_us, copy_us, gc_us, fault_us, mmap_us, sleep_us, total_us;
} tc_account_phases;

tc_account_phases tc_account_price(const tc_account_counts *c, const tc_account_prices *p);

/* The model's counts of one pass (tc_ep_run's), `words` the flat size of its Data. */
tc_account_counts tc_account_of_model(const tc_ep_counts *c, long ops, uint64_t words);
/* The VM's counts of one pass (tc_vm_account_point's). */
tc_account_counts tc_account_of_vm(const tc_vm_pass *p, long ops, uint64_t words);

/* The fault price of this machine for `region_bytes` of fresh memory: the median over a few
 * runs of mapping a fresh anonymous region, touching every page and unmapping it, less the
 * same mapped and unmapped untouched, per page, on the process CPU clock. A fault's price
 * grows with the fresh memory a run takes (the kernel's page allocator and, on a virtual
 * machine, the host's first touch): the account's region is what its loop faulted in,
 * tc_account_probe_region. false when mmap fails. */
bool tc_account_probe(size_t region_bytes, double *fault_ns);
/* The region for a loop that took `faults` faults: their pages, within 1 MiB and 64 MiB. */
size_t tc_account_probe_region(double faults);
/* The carrier price of this machine for a carrier of `bytes`: mapped, its first page written,
 * unmapped, as erl_mseg.c mseg_create and mseg_destroy do for a heap, on the process CPU clock;
 * the median over a few, less that page's fault at `fault_ns`. For a VM of one scheduler
 * thread (the seeds' VMs, which have no NIF to time it in) this process's price is the VM's.
 * false when mmap fails. */
bool tc_account_probe_carrier(size_t bytes, double fault_ns, double *carrier_ns);

/* The prices of `loop` from the VM's calibration rows (tc_vm_account_point's, this loop's
 * context), the fault price of the probe, and the words of Data: each unit its
 * calibration's CPU ns less the faults it took at fault_ns and (but for the fixed unit) the
 * sleeps at the "sleep" row's price (0 without that row), per word as the difference to its
 * [] or no-live-words run; the dirty trip keeps its sleeps (dirty_sleeps: the trip's less the
 * same GC's on its scheduler). The carrier units are the VM's own process's (the cpuclock NIF on
 * a scheduler and on a dirty CPU scheduler: a munmap there flushes the TLBs of the CPUs the
 * VM's other threads ran on, where a one-threaded probe's flushes none). A GC unit the
 * loop's context did not need calibrated (no messages moved) takes the collector's per-word
 * price. false, after one line on stderr naming it, when a row is missing. */
bool tc_account_prices_of_vm(const tc_vm_account *a, tc_account_loop loop, double fault_ns,
                             tc_account_prices *out);

/* The header row of a prices CSV (experiments/account --prices): shape, length, loop, then
 * tc_account_prices's fields in ns. The reader also takes the header without the last column
 * (files written before it: a fragment word at the collector's word price). */
#define TC_ACCOUNT_PRICES_HEADER_V1                                                                \
    "shape,payload_len,loop,fixed_ns,word_ns,gc_minor_ns,gc_major_ns,gc_word_ns,gc_move_word_ns," \
    "gc_dirty_ns,gc_long_ns,gc_long_gcs,fault_ns,carrier_ns,carrier_dirty_ns,sleep_ns,fixed_sleeps,dirty_sleeps"
#define TC_ACCOUNT_PRICES_HEADER TC_ACCOUNT_PRICES_HEADER_V1 ",gc_frag_word_ns"
/* Writes one row of it. */
void tc_account_prices_write(FILE *f, const char *shape, long len, tc_account_loop loop, const tc_account_prices *p);
/* The prices of `loop` for `shape` at the length nearest `len` (by ratio) in such a CSV, and
 * that length in *used; TC_EIO when the file cannot be read or is not such a CSV, TC_EBADARG
 * when it has no row for the shape and loop. */
tc_result tc_account_prices_read(const char *path, const char *shape, long len, tc_account_loop loop,
                                 tc_account_prices *out, long *used) TC_MUST_CHECK;

/* Field by field, the median of n (1 .. TC_ACCOUNT_MEDIAN_MAX) prices or counts `stride` bytes
 * apart (an array of them, or the same member of an array of structs): each round of a shared
 * machine prices a loop in a stretch of its own, and the median of the rounds leaves out the
 * stretches a slow spell fell on (experiments/account.c's rounds, termcopy explain --vm's). */
#define TC_ACCOUNT_MEDIAN_MAX 64
void tc_account_prices_median(const tc_account_prices *first, size_t stride, size_t n, tc_account_prices *out);
void tc_account_counts_median(const tc_account_counts *first, size_t stride, size_t n, tc_account_counts *out);

/* The loop a pass of eptest is (proc1..3: the round trip; ets_lookup: the lookup). */
tc_account_loop tc_account_loop_of_test(int test);

TC_END_DECLS

#endif
