/*
 * mseg.h — the memory process heaps and ETS objects come from: an alloc_util allocator
 * (eheap_alloc, ets_alloc) with its instances, their carriers and each instance's mseg
 * segment cache (erts: erl_alloc_util.c carriers and its realloc; erl_mseg.c
 * cache_get_segment, cache_bless_segment, mseg_realloc; erl_alloc.c the instances).
 *
 * A block smaller than sbct (512 KiB) is carved from a multiblock carrier (mbc); a block of
 * sbct bytes or more gets a single-block carrier (sbc): its own page-rounded mmap
 * (create_carrier; mseg_alloc's ERTS_PAGEALIGNED_CEILING). A freed sbc goes to the segment
 * cache of its instance, `cache_slots` entries (0: no cache, straight munmap); when the cache
 * is full the oldest entry is unmapped (cache_bless_segment). A request looks at the cached
 * segments newest first and takes the first whose excess is a good fit, strictly below
 * rmcbf % and amcbf bytes, whole; when none is, it splits the one with the least excess (the
 * newest of equals), the rest staying cached in its place (cache_get_segment). Nothing is
 * pre-touched: a fresh mapping faults each page on its first write, as the VM's heaps do.
 *
 * An instance takes an sbc from mseg only while it holds fewer than mmsbc (256) of them
 * (erl_alloc_util.c create_carrier, ERTS_DEFAULT_ALLCTR_INIT; R10B-2 and R13B01 alike); past
 * that, from sys_alloc: malloc of the block and the carrier header rounded up to ycs (1 MiB,
 * SYS_ALLOC_CARRIER_CEILING), which glibc maps on its own and unmaps at the free, so the carrier
 * is fresh, never cached, and no mseg counter sees it (stats.sys_carriers counts it); a
 * resize is realloc, glibc's mremap. An ETS table holding many large objects reaches it: at
 * lists of strings, L = 24000, eptest's insert pass maps 254 segments on the VM for 1000
 * objects. The limit is per allocator instance and so over every table of that instance in
 * erts; the model's ETS table has an ets_alloc source of its own. (R10B-2's and R13B01's
 * mseg also stops at mmc, 1024 segments over all allocators, not modelled.)
 *
 * Realloc follows alloc_util (do_erts_alcu_realloc, resize_carrier, mseg_realloc): an sbc
 * block stays in its sbc whatever its new size, even below sbct, unless the carrier resized
 * for it would be rsbcmt % (80) or more slack: only then is it copied into an mbc. A resized
 * sbc is sized in the super-aligned unit, 16 KiB on 64-bit (ERTS_SACRR_UNIT_CEILING,
 * ERTS_MMAP_SUPERALIGNED_BITS 14; cfg.sbc_unit), not in pages as in R10B-2. A shrink keeps
 * the mapping while it is below both asbcst bytes (4,145,152: ERTS_DEFAULT_ALLCTR_INIT's
 * 2*1024*2024) and rsbcst % of the carrier (eheap: 50 %, ets: 20 %), otherwise the tail is
 * unmapped; a growth is mremap'ed (mseg_recreate; it may move). An mbc block that grows to
 * sbct or more is copied into a new sbc. This is what makes the heaps of the 7.2 loop hit or
 * miss the cache by payload length: a GC's new heap above sbct shrunk below half its carrier
 * leaves a small sbc, which the cache keeps after the next GC but cannot hand to the next
 * large new heap (on the VM: L=4250, 200 mseg creates, 199 mseg reallocs, 190 destroys per
 * 1000 lookups; L=4500, whose new heaps stay below sbct, none;
 * experiments/beam/gctrace.erl).
 *
 * Instances (erl_alloc.c erts_alloc_register_scheduler, erl_alloc_util.c get_pref_allctr):
 * eheap_alloc and ets_alloc are thread-preferred; each normal scheduler N allocates from
 * instance N, and a dirty scheduler from instance 0 (with the default +Mdai 0). Each instance
 * has its own carriers, and, since an alloc_util instance maps through the mseg instance of
 * the calling thread (erl_mseg.c ERTS_MSEG_ALLCTR_SS), its own segment cache: the thread's,
 * which the thread's other allocators use too (an ETS table's source shares it:
 * tc_mseg_share_cache). The source
 * holds `instances` of them (default 2: instance 0 and the modelled scheduler's instance 1,
 * which is current when the source is made); tc_mseg_instance_set is erts_get_thr_alloc_ix's
 * answer for the calling code. A block returns to the instance that owns it whoever frees it
 * (delayed dealloc, see mseg.c release_block); a realloc of another instance's block
 * allocates a new block from the current instance, copies and frees the old one to its owner
 * (realloc_thr_pref).
 *
 * Two designs of the cache and the resize unit, by era (cfg.fit, cfg.sbc_unit):
 * - newest_split, 16 KiB: OTP 25, as above.
 * - best_whole, the page: R10B-2 and R13B01 (sys/common/erl_mseg.c mseg_alloc, mseg_dealloc,
 *   mseg_realloc with CAN_PARTLY_DESTROY; erl_alloc_util.c MSEG_UNIT_CEILING, whose unit is
 *   erts_mseg_unit_size, the page). A request takes the smallest cached segment that holds it
 *   (the newest of equals), whole, if its excess is at most rmcbf % (in pages) and amcbf
 *   bytes; otherwise it maps a new one: nothing is split. Before looking, it is turned away
 *   by the cache's remembered least and largest sizes, which mseg_alloc sets from the
 *   segments it passed over, mseg_dealloc widens, and only an eviction of an extreme or an
 *   empty scan makes exact again (check_cache_limits): a stale bound can send a request that
 *   would fit to a new mapping, as in the VM. A freed segment is the newest; with the
 *   descriptors all used the oldest is unmapped first. A shrink beyond the thresholds keeps
 *   its tail mapped as a cached segment, the oldest, when a descriptor is free and the tail
 *   is larger than the least segment ever asked for (min_seg_size), else unmaps it; the
 *   remembered sizes do not see that tail. The cache is the instance's (in these VMs one
 *   mseg serves every allocator; the model's r10b and r13b runs allocate from one instance).
 *
 * Where this differs from erts, and why:
 * - Multiblock carriers stay mapped until the source is freed; erts returns an empty one to
 *   mseg. They are sized as erts sizes them (get_next_mbc_size, power-of-two segments) when
 *   the config has growth stages (ets_alloc's), otherwise they have one size, mbc_bytes
 *   (eheap's: its small blocks recycle warm carriers after warm-up either way, and its mbc
 *   count is not compared). There is no main carrier (erts: mmbcs, created at start-up;
 *   for ets_alloc 64 KiB with two schedulers, too small for the objects measured). Both
 *   are modelled for temp_alloc (cfg.mmbcs, cfg.mbc_release), where a walk's stack takes
 *   and gives back a whole carrier each time it outgrows the main one.
 * - Blocks inside mbcs are placed address-ordered first fit with coalescing (eheap_alloc is
 *   good fit, ets_alloc best fit); placement inside warm carriers does not change which
 *   pages are fresh.
 * - best_whole has no segment watermark: R10B-2's and R13B01's mseg_alloc, before it maps,
 *   unmaps cached segments (oldest first) while the cache holds more than the peak count of
 *   mapped segments less the current one (adjust_cache_size), the peak falling by one a
 *   second (check_cache). The counts are of every allocator's segments (the multiblock
 *   carriers of ets_alloc, binary_alloc, ... too), which the model does not hold, and the
 *   fall is timed. Without it the model's cache keeps segments the VM has unmapped; a request
 *   they would serve is a hit here and a fresh mapping there. (At R10B-2's L = 30000 lookups
 *   the VM empties its cache before each new heap; the model's cached tails are a page too
 *   small for it, so both map: the heap shrunk in place keeps a page, where OTP 25's 16 KiB
 *   unit would move it to an mbc and free the whole carrier for the next GC.)
 * - The cache is drained by time only on a clock the caller keeps (tc_mseg_clock): erts drops
 *   one cached segment per instance once a second while the cache is not empty, a
 *   power-of-two segment first (erl_mseg.c: mseg_dealloc's schedule_cache_check sets the
 *   instance's aux-work timeout; erl_process.c start_aux_work_timer fires every 1000 ms while
 *   any timeout is set, and the instance's thread then runs mseg_cache_check ->
 *   mseg_check_cache: the least size class's oldest, else the oldest sbc; an empty cache
 *   clears the timeout). The model's timeouts fall at whole seconds of the caller's clock
 *   from the source's start: the VM's timer is global and other aux work (alloc_util's
 *   fix-alloc shrink) keeps it running, so its phase is not the benchmark's. A loop that
 *   runs for seconds loses a cached segment a second and maps it again: at lists of strings,
 *   L = 30000, +S 2:2, a proc pass takes 6.2-6.4 s on the VM and maps 256-258 carriers
 *   (erlang:system_info({allocator, mseg_alloc}): 43 mseg_check_cache calls in the tester's
 *   31 s over three instances); the model maps 250 a pass without a clock, 255-257 with its
 *   priced one (5.4 s a pass). Without a clock the cache is never drained by time. R10B-2's
 *   and R13B01's timed rule (the peak's fall, above) is not run.
 * - Each instance's cache holds sbcs and temp_alloc's multiblock carriers only: erts' cache
 *   also holds the freed mbcs of the other allocators using that mseg instance, which the
 *   model does not give back. In OTP 25 an mbc's segment is a power of two kept apart
 *   (cache_get_segment, cache_bless_segment: an sbc request never takes one; it takes a free
 *   slot only, and a full cache evicts the oldest sbc for an sbc, the oldest of the least
 *   size class only when no sbc is cached); in R10B-2 and R13B01 every segment is alike.
 * - A block freed by another instance is back in its owner's free lists or cache at once:
 *   erts queues it for the owner, who can take it only after thread progress, so a GC that
 *   frees many fragments can leave the owner's next requests to map fresh carriers (mseg.c
 *   release_block gives the VM's counts). How soon the owner takes them is the timing of two
 *   threads, a race the model does not draw. With one instance for every thread (the VM's
 *   +Mut false, policy alloc_instances=1) nothing is freed across instances, and the VM's
 *   extra mappings go (tracediff.sh --vm-flags; report/data/tracegrid-s1-mut-vm.tar.xz).
 * - thread_safe is the locking of an era's allocator calls: R13B01's SMP emulator makes
 *   eheap_alloc, std_alloc and ets_alloc thread-safe (erl_alloc.types: MULTI_THREAD true
 *   under +if smp, false in the plain build) and thread-preferred with two or more
 *   schedulers (erl_alloc.c adjust_tpref, set_au_allocator), so every alloc, realloc and free
 *   takes its instance's mutex (erl_alloc_util.c erts_alcu_realloc_thr_pref), with one
 *   scheduler the one mutex of the _ts calls; its plain emulator, R10B-2 and OTP 25's
 *   scheduler instances (erl_alloc.c start_au_allocator: init.util.ts 0 for instances
 *   1..schedulers) take none. The model's instances share the one mutex, where erts gives
 *   each its own, and a source that two threads use must set it: erts has each thread use
 *   its own instance, the model chooses one by tc_mseg_instance_set only (an ETS table
 *   written by two schedulers' processes, stores/ets.h). The calls made under it are
 *   counted (locked_calls).
 * - seg_lock is R13B01's mseg_mutex (sys/common/erl_mseg.c erts_mseg_alloc_opt,
 *   erts_mseg_realloc_opt, erts_mseg_dealloc_opt): one mutex for the whole VM, taken around
 *   every segment call in both of its emulators (both are built with threads), so a block in
 *   a single-block carrier takes it at each realloc, whether or not the carrier's size
 *   changes (erl_alloc_util.c do_erts_alcu_realloc -> resize_carrier -> mseg_realloc): a
 *   dictionary of a million keys reallocs its array at almost every put (heaps/pdict.h). The
 *   model's is one mutex for every source that sets seg_lock, taken around its segment
 *   calls: a carrier taken from the cache or mapped, a carrier freed, an sbc resized.
 *   R10B-2, built without threads, takes none (erl_threads.h erts_mtx_lock is empty without
 *   USE_THREADS); OTP 25's scheduler instances of mseg none (erl_mseg.c ERTS_MSEG_LOCK, only
 *   when is_thread_safe: instance 0, which the model's dirty GCs use unlocked).
 * - The era designs above are eheap_alloc's. The ETS store's ets_alloc keeps OTP 25's
 *   settings (newest_split, 16 KiB unit, mbc growth stages) in every era: R10B-2's and
 *   R13B01's ets_alloc caches its segments as their eheap does and, past its tenth multiblock
 *   carrier (mmmbc), takes carriers from malloc (erl_alloc_util.c create_carrier), memory that
 *   may be touched already, so an old era's insert faults are the model's fresh pages.
 * Every block request first asks tc_mem_inject_failure(), so tc_mem_fail_at reaches it.
 */
#ifndef TC_MSEG_H
#define TC_MSEG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../terms/base.h"

TC_BEGIN_DECLS

/* The segment cache's design: OTP 25's (newest good fit, else split the least excess) or
 * R10B-2's and R13B01's (best good fit whole, shrink tails cached; see above). */
typedef enum { TC_MSEG_FIT_NEWEST_SPLIT, TC_MSEG_FIT_BEST_WHOLE } tc_mseg_fit;

typedef struct tc_mseg_config {
    size_t sbct;          /* bytes: blocks at or above this get a single-block carrier */
    unsigned cache_slots; /* mseg "mcs": freed sbcs kept for reuse; 0 = none */
    unsigned rmcbf;       /* % : largest relative excess of a good cache fit */
    size_t amcbf;         /* bytes: largest absolute excess of a good cache fit */
    unsigned rsbcst;      /* % : an sbc shrink below this share keeps the carrier (eheap 50) */
    size_t asbcst;        /* bytes: ... and below this absolute amount */
    unsigned rsbcmt;      /* % : an sbc block realloc'd below sbct moves to an mbc only when
                             its resized carrier would be at least this share slack (80) */
    size_t mbc_bytes;     /* size of each multiblock carrier when mbcgs is 0 */
    size_t smbcs, lmbcs;  /* with mbcgs > 0: the first and the largest mbc size, ... */
    unsigned mbcgs;       /* ... reached in this many growth stages (get_next_mbc_size) */
    unsigned instances;   /* allocator instances, 1..TC_MSEG_MAX_INSTANCES (0 counts as 1) */
    tc_mseg_fit fit;      /* the segment cache's design (see above) */
    size_t sbc_unit;      /* bytes: a resized sbc's size unit (0: TC_MSEG_SACRR_UNIT) */
    bool thread_safe;     /* every call under one mutex: the era locks each allocator call,
                             or the source is shared by threads (see above) */
    bool seg_lock;        /* every segment call under mseg's one mutex (R13B01, see above) */
    size_t mmbcs;         /* bytes: each instance's main carrier, made with the source, its pages
                             touched, never given back (0: none) */
    bool mbc_release;     /* an empty multiblock carrier but the main one goes back through the
                             segment cache, and a new one comes through it, as a power-of-two
                             segment (erl_alloc_util.c mbc_free, destroy_carrier) */
    size_t temp_mmbcs;    /* bytes: temp_alloc's main carrier; > 0 gives the source a temp_alloc
                             companion (tc_mseg_temp) */
    unsigned mmsbc;       /* an instance's sbcs from mseg at most; the rest from sys_alloc (256) */
} tc_mseg_config;

#define TC_MSEG_MAX_INSTANCES 64u
#define TC_MSEG_DIRTY_INSTANCE 0u           /* where a dirty scheduler allocates (+Mdai 0) */
#define TC_MSEG_ASBCST 4145152u             /* bytes: erl_alloc_util.h 2*1024*2024 */
#define TC_MSEG_SACRR_UNIT ((size_t)16384u) /* a resized sbc's size unit (64-bit) */
#define TC_MSEG_CHECK_NS UINT64_C(1000000000) /* the aux-work timer's period (start_aux_work_timer) */

/* eheap_alloc's erts defaults: sbct 512 KiB, mcs 10, rmcbf 20, amcbf 4 MiB, rsbcst 50 (set by
 * set_default_eheap_alloc_opts), asbcst 4,145,152, rsbcmt 80; instances 0 and 1. */
tc_mseg_config tc_mseg_default_config(void);
/* ets_alloc's (set_default_ets_alloc_opts keeps the alloc_util defaults: rsbcst 20), one
 * instance, unlocked as OTP 25's scheduler instances are: the table sets thread_safe where its
 * era locks or threads share it (stores/ets.h alloc_lock). */
tc_mseg_config tc_mseg_ets_alloc_config(void);
/* temp_alloc's, beside a heap source configured `heaps` (set_default_temp_alloc_opts): one
 * instance, a main carrier of heaps->temp_mmbcs bytes, rsbcst 90, multiblock carriers of
 * smbcs 1 MiB given back when empty; the cache's rules are the heap source's. */
tc_mseg_config tc_mseg_temp_alloc_config(const tc_mseg_config *heaps);

typedef struct tc_mseg_stats {
    uint64_t carriers_mapped;   /* mmap calls (sbc and mbc carriers) */
    uint64_t carriers_unmapped; /* whole carriers given back with munmap */
    uint64_t cache_hits;        /* segment requests served from the segment cache (sbcs, and
                                   mbcs where cfg.mbc_release) */
    uint64_t cache_misses;      /* segment requests that needed a new mapping */
    uint64_t sbc_blocks;        /* blocks placed in single-block carriers */
    uint64_t mbc_blocks;        /* blocks placed in multiblock carriers */
    uint64_t sbc_remaps;        /* sbc reallocs that changed the mapping (mremap, tail unmap) */
    uint64_t sbc_resizes;       /* sbc reallocs that resized the carrier (mseg_realloc calls) */
    uint64_t sbc_frees;         /* sbcs given back (mseg_dealloc calls: cached or unmapped) */
    uint64_t bytes_mapped;      /* total bytes ever mapped */
    uint64_t bytes_unmapped;    /* total bytes ever unmapped */
    uint64_t live_blocks;       /* blocks allocated and not yet freed */
    uint64_t sys_carriers;      /* sbcs from sys_alloc past mmsbc: malloc's, not mseg's, so in
                                   none of the counters above (carriers_mapped, sbc_frees, ...) */
    uint64_t seg_locked;        /* segment calls made under mseg's mutex (cfg.seg_lock) */
    uint64_t locked_calls;      /* block calls (alloc, realloc, free) made under the source's
                                   mutex (cfg.thread_safe), counted on the current instance */
    uint64_t cache_checks;      /* cached segments the timed check unmapped (tc_mseg_clock) */
} tc_mseg_stats;

typedef struct tc_mseg tc_mseg;

tc_mseg *tc_mseg_new(const tc_mseg_config *cfg) TC_MUST_CHECK;
/* Unmaps every carrier and cached segment; all blocks must have been freed. */
void tc_mseg_free(tc_mseg *m);
/* The same with blocks still live, which go with their carriers: an owner that drops
 * everything it allocated at once (an ETS table's teardown) skips a free per block, whose
 * address-ordered placement costs the model O(blocks) each. Teardown is never a measured
 * operation; erts frees a deleted table's objects one by one (erl_db_hash.c free_seg). */
void tc_mseg_free_discard(tc_mseg *m);

/* A block of at least `bytes` bytes, 8-aligned, from the current instance, or NULL when out
 * of memory. An mbc block takes its bytes and a header word rounded up to 8 bytes, as an erts
 * block does (UMEMSZ2BLKSZ), so a carrier holds as many as the VM's. */
void *tc_mseg_alloc_block(tc_mseg *m, size_t bytes) TC_MUST_CHECK;
void tc_mseg_free_block(tc_mseg *m, void *block);
/* Resizes keeping the first min(old, new) bytes; NULL (block untouched) when out of memory. */
void *tc_mseg_realloc_block(tc_mseg *m, void *block, size_t bytes) TC_MUST_CHECK;
/* Usable bytes of a block (at least what was asked). */
size_t tc_mseg_block_bytes(const void *block);
/* True when the block sits in a single-block carrier. */
int tc_mseg_block_is_sbc(const void *block);
/* The instance that owns the block. */
unsigned tc_mseg_block_instance(const tc_mseg *m, const void *block);

/* Makes `ix` the current instance (the one allocations come from) and returns the previous
 * one: the calling thread's erts_get_thr_alloc_ix. */
unsigned tc_mseg_instance_set(tc_mseg *m, unsigned ix);
unsigned tc_mseg_instance_get(const tc_mseg *m);
unsigned tc_mseg_instances(const tc_mseg *m);

/* Makes m's single-block carriers go through the segment caches of `with`, the cache of
 * with's current instance (the calling thread's) at each allocation and free: erl_mseg.c keeps
 * one mseg allocator, and so one segment cache, per thread (ERTS_MSEG_ALLCTR_SS picks it by
 * erts_get_thr_alloc_ix), which every alloc_util allocator that thread calls shares, so an
 * ETS object's freed sbc can hold the scheduler's next heap fragment and a heap's freed sbc
 * the next ETS object (on the VM: eptest's insert pass takes the fragments the proc passes
 * cached, and the lookup pass then maps its first results fresh; strings L = 12000, +S 1:1,
 * i1_mseg_create 2 in its first two lookups, experiments/beam/gctrace.erl --tester). m keeps
 * its own carriers, counters and config (sbct, the resize thresholds); the caches' rules
 * (fit, slots) are with's, the mseg options being the VM's. m has one instance and no cached
 * segment, and does not share `with`'s own caches out (TC_EBADARG otherwise); one thread
 * calls both (m's lock does not cover with's caches), and `with` outlives m's last
 * allocation and free. */
tc_result tc_mseg_share_cache(tc_mseg *m, tc_mseg *with) TC_MUST_CHECK;

/* Counters summed over the instances, and one instance's (NULL past the last). */
const tc_mseg_stats *tc_mseg_stats_get(const tc_mseg *m);
/* The source's temp_alloc companion (NULL without one, or for NULL): the scheduler threads'
 * temporary allocator, where a term walk's stack grows (alloc/estack.h). It has one instance
 * and goes through the segment cache of m's current instance, as a sharer does
 * (tc_mseg_share_cache); m frees it. erts runs one temp_alloc instance per scheduler
 * (thr_spec); a walk gives its stack back before the next one starts, so one main carrier
 * serves them all alike. */
tc_mseg *tc_mseg_temp(const tc_mseg *m);
const tc_mseg_stats *tc_mseg_instance_stats(const tc_mseg *m, unsigned ix);
const tc_mseg_config *tc_mseg_config_get(const tc_mseg *m);
/* The caller's clock reads now_ns, counted from the source's start (a time that does not
 * go back): the cache check's timeouts up to it run, each dropping one cached segment from
 * every instance that holds one (newest_split only; see above). The workload's clock is
 * its counts at the VM's prices (scenarios/workload.h tc_ep_config.clock). */
void tc_mseg_clock(tc_mseg *m, uint64_t now_ns);

/* Segments in the caches now: all instances', and one instance's. */
unsigned tc_mseg_cached(const tc_mseg *m);
unsigned tc_mseg_instance_cached(const tc_mseg *m, unsigned ix);

TC_END_DECLS

#endif
