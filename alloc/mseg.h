/*
 * mseg.h — the memory process heaps come from: eheap_alloc's carriers and the mseg segment
 * cache (erts: erl_alloc_util.c carriers and its realloc; erl_mseg.c cache_get_segment,
 * cache_bless_segment, mseg_realloc).
 *
 * A block smaller than sbct (512 KiB) is carved from a multiblock carrier (mbc); a block of
 * sbct bytes or more gets a single-block carrier (sbc): its own page-rounded mmap. A freed
 * sbc goes to a segment cache of `cache_slots` entries (0: no cache, straight munmap); the
 * oldest entry is unmapped when the cache is full. A request takes the smallest cached
 * segment that holds it: whole when the excess is within rmcbf % and amcbf bytes (a "good
 * fit"), otherwise split, the rest staying cached. Nothing is pre-touched: a fresh mapping
 * faults each page on its first write, exactly as the VM's heaps do.
 *
 * Realloc follows alloc_util (do_erts_alcu_realloc, resize_carrier, mseg_realloc): an sbc
 * block stays in its sbc whatever its new size, even below sbct, unless the page-rounded
 * carrier for the new size would be rsbcmt % (80) or more slack, i.e. under a page or so
 * of data: only then is it copied into an mbc. The sbc is then resized: a shrink keeps the
 * mapping while it is below both asbcst bytes and rsbcst % of the carrier (eheap: 50 %),
 * otherwise the tail is unmapped; a growth is mremap'ed (it may move). An mbc block that
 * grows to sbct or more is copied into a new sbc. This is what makes the heaps of the 7.2
 * loop hit or miss the cache by payload length: a GC's new heap above sbct shrunk below
 * half its carrier leaves a small sbc, which the cache keeps after the next GC but cannot
 * hand to the next large new heap (on the VM: L=4250, 200 mseg creates, 199 mseg reallocs,
 * 190 destroys per 1000 lookups; L=4500, whose new heaps stay below sbct, none;
 * experiments/beam/gctrace.erl).
 *
 * Where this differs from erts, and why:
 * - Multiblock carriers have one size (mbc_bytes) and stay mapped until the source is
 *   freed. erts grows carrier sizes and returns empty carriers to mseg; for blocks below
 *   sbct both give the same observable fact: after warm-up their pages are recycled (warm).
 * - Blocks inside mbcs are placed address-ordered first fit with coalescing; placement
 *   inside warm carriers does not change which pages are fresh.
 * - The cache is never drained by time (erts runs a periodic check): the model has no clock.
 * - One source serves one thread (eheap instances are per scheduler); no locking.
 * Every block request first asks tc_mem_inject_failure(), so tc_mem_fail_at reaches it.
 */
#ifndef TC_MSEG_H
#define TC_MSEG_H

#include <stddef.h>
#include <stdint.h>

#include "../terms/base.h"

TC_BEGIN_DECLS

typedef struct tc_mseg_config {
    size_t sbct;          /* bytes: blocks at or above this get a single-block carrier */
    unsigned cache_slots; /* mseg "mcs": freed sbcs kept for reuse; 0 = none */
    unsigned rmcbf;       /* % : largest relative excess of a good cache fit */
    size_t amcbf;         /* bytes: largest absolute excess of a good cache fit */
    unsigned rsbcst;      /* % : an sbc shrink below this share keeps the carrier (eheap 50) */
    size_t asbcst;        /* bytes: ... and below this absolute amount */
    unsigned rsbcmt;      /* % : an sbc block realloc'd below sbct moves to an mbc only when
                             its resized carrier would be at least this share slack (80) */
    size_t mbc_bytes;     /* size of each multiblock carrier */
} tc_mseg_config;

/* erts defaults: sbct 512 KiB, mcs 10, rmcbf 20, amcbf 4 MiB, eheap rsbcst 50, asbcst 4 MiB,
 * rsbcmt 80. */
tc_mseg_config tc_mseg_default_config(void);

typedef struct tc_mseg_stats {
    uint64_t carriers_mapped;   /* mmap calls (sbc and mbc carriers) */
    uint64_t carriers_unmapped; /* whole carriers given back with munmap */
    uint64_t cache_hits;        /* sbc requests served from the segment cache */
    uint64_t cache_misses;      /* sbc requests that needed a new mapping */
    uint64_t sbc_blocks;        /* blocks placed in single-block carriers */
    uint64_t mbc_blocks;        /* blocks placed in multiblock carriers */
    uint64_t sbc_remaps;        /* sbc reallocs that changed the mapping (mremap, tail unmap) */
    uint64_t bytes_mapped;      /* total bytes ever mapped */
    uint64_t bytes_unmapped;    /* total bytes ever unmapped */
    uint64_t live_blocks;       /* blocks allocated and not yet freed */
} tc_mseg_stats;

typedef struct tc_mseg tc_mseg;

tc_mseg *tc_mseg_new(const tc_mseg_config *cfg) TC_MUST_CHECK;
/* Unmaps every carrier and cached segment; all blocks must have been freed. */
void tc_mseg_free(tc_mseg *m);

/* A block of at least `bytes` bytes, 16-aligned, or NULL when out of memory. */
void *tc_mseg_alloc_block(tc_mseg *m, size_t bytes) TC_MUST_CHECK;
void tc_mseg_free_block(tc_mseg *m, void *block);
/* Resizes keeping the first min(old, new) bytes; NULL (block untouched) when out of memory. */
void *tc_mseg_realloc_block(tc_mseg *m, void *block, size_t bytes) TC_MUST_CHECK;
/* Usable bytes of a block (at least what was asked). */
size_t tc_mseg_block_bytes(const void *block);
/* True when the block sits in a single-block carrier. */
int tc_mseg_block_is_sbc(const void *block);

const tc_mseg_stats *tc_mseg_stats_get(const tc_mseg *m);
const tc_mseg_config *tc_mseg_config_get(const tc_mseg *m);
/* Segments in the cache now. */
unsigned tc_mseg_cached(const tc_mseg *m);

TC_END_DECLS

#endif
