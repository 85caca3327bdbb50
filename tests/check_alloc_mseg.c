/*
 * The memory source: which carrier a block lands in, the segment cache (hits, misses,
 * eviction, bad-fit splitting, newest first good fit, the strict bound; R10B-2's smallest fit
 * whole, cached shrink tails and stale bounds), the sbc realloc
 * keep/remap rule in its 16 KiB unit and asbcst, blocks crossing sbct, the instances and
 * their own caches, first-touch faults of fresh carriers against recycled ones, and
 * injected failures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "alloc/estack.h"
#include "alloc/faults.h"
#include "alloc/mseg.h"

#define KIB 1024u
/* From an sbc's carrier to its block's data: erts's SBC_HEADER_SIZE (32) and the block header. */
#define SBC_OVER 40u

static tc_mseg *source(unsigned slots)
{
    tc_mseg_config c = tc_mseg_default_config();
    c.cache_slots = slots;
    tc_mseg *m = tc_mseg_new(&c);
    ck_assert(m != NULL);
    return m;
}

START_TEST(defaults)
{
    tc_mseg_config c = tc_mseg_default_config();
    ck_assert_uint_eq(c.sbct, 512 * KIB);
    ck_assert_uint_eq(c.cache_slots, 10);
    ck_assert_uint_eq(c.rsbcst, 50);
    ck_assert_uint_eq(c.rsbcmt, 80);
    ck_assert_uint_eq(c.asbcst, 2 * 1024 * 2024); /* erl_alloc_util.h, not 4 MiB */
    ck_assert_uint_eq(c.instances, 2);
    ck_assert_uint_eq(c.mmsbc, 256); /* ERTS_DEFAULT_ALLCTR_INIT */
    tc_mseg_config e = tc_mseg_ets_alloc_config();
    ck_assert_uint_eq(e.sbct, 512 * KIB);
    ck_assert_uint_eq(e.rsbcst, 20);
    ck_assert_uint_eq(e.asbcst, 4145152);
}
END_TEST

START_TEST(multiblock_blocks_recycle)
{
    tc_mseg *m = source(10);
    const tc_mseg_stats *st = tc_mseg_stats_get(m);
    void *a = tc_mseg_alloc_block(m, 100 * KIB), *b = tc_mseg_alloc_block(m, 200 * KIB);
    ck_assert(a && b);
    ck_assert(!tc_mseg_block_is_sbc(a) && !tc_mseg_block_is_sbc(b));
    ck_assert_uint_eq(st->carriers_mapped, 1);
    memset(a, 1, 100 * KIB);
    memset(b, 2, 200 * KIB);
    tc_mseg_free_block(m, a);
    tc_mseg_free_block(m, b);
    /* Both freed blocks merge: a request for their sum fits where `a` was. */
    void *c = tc_mseg_alloc_block(m, 300 * KIB);
    ck_assert_ptr_eq(c, a);
    ck_assert_uint_eq(st->carriers_mapped, 1);
    /* Shrinking in place, then growing back into the freed tail, never moves it. */
    ck_assert_ptr_eq(tc_mseg_realloc_block(m, c, 10 * KIB), c);
    ck_assert_ptr_eq(tc_mseg_realloc_block(m, c, 400 * KIB), c);
    ck_assert_uint_ge(tc_mseg_block_bytes(c), 400 * KIB);
    tc_mseg_free_block(m, c);
    ck_assert_uint_eq(st->live_blocks, 0);
    tc_mseg_free(m);
}
END_TEST

/* Under an sbct far above the mbc size, a block gets a multiblock carrier of its own size
 * (create_carrier: MBC_HEADER_SIZE + blk_sz, a power-of-two segment), not one of sbct bytes:
 * sbct 64 GiB maps 2 MiB for a 1 MiB block, as the VM under +MHsbct does. */
/* A multiblock carrier block takes its bytes and one header word in 8-byte units, as erts'
 * (UMEMSZ2BLKSZ: ABLK_HDR_SZ 8, Unit_t 8 bytes): blocks carved one after another from a fresh
 * carrier sit that far apart, 8-aligned; usable bytes are the rest. */
START_TEST(multiblock_blocks_take_a_header_word_in_8_byte_units)
{
    tc_mseg *m = source(10);
    static const size_t asks[] = {56, 57, 64, 80, 100, 1000};
    char *prev = tc_mseg_alloc_block(m, 8);
    ck_assert(prev != NULL && (uintptr_t)prev % 8 == 0);
    size_t prev_bytes = 8;
    for (size_t k = 0; k < sizeof asks / sizeof *asks; k++) {
        char *b = tc_mseg_alloc_block(m, asks[k]);
        ck_assert(b != NULL && (uintptr_t)b % 8 == 0);
        ck_assert_uint_eq((size_t)(b - prev), (prev_bytes + 8 + 7) / 8 * 8);
        ck_assert_uint_eq(tc_mseg_block_bytes(b), (asks[k] + 8 + 7) / 8 * 8 - 8);
        prev = b;
        prev_bytes = asks[k];
    }
    ck_assert_uint_eq(tc_mseg_stats_get(m)->carriers_mapped, 1);
    tc_mseg_free_discard(m);
}
END_TEST

START_TEST(large_sbct_sizes_carriers_by_block)
{
    tc_mseg_config c = tc_mseg_default_config();
    c.sbct = (size_t)64 << 30;
    tc_mseg *m = tc_mseg_new(&c);
    ck_assert(m != NULL);
    const tc_mseg_stats *st = tc_mseg_stats_get(m);
    void *a = tc_mseg_alloc_block(m, 100 * KIB);
    ck_assert(a && !tc_mseg_block_is_sbc(a));
    ck_assert_uint_eq(st->bytes_mapped, c.mbc_bytes); /* a small block: the usual carrier */
    void *b = tc_mseg_alloc_block(m, 1024 * KIB);
    ck_assert(b && !tc_mseg_block_is_sbc(b));
    ck_assert_uint_eq(st->carriers_mapped, 2);
    ck_assert_uint_eq(st->bytes_mapped, c.mbc_bytes + 2048 * KIB);
    memset(b, 1, 1024 * KIB);
    tc_mseg_free_block(m, a);
    tc_mseg_free_block(m, b);
    tc_mseg_free(m);
}
END_TEST

START_TEST(single_block_cache)
{
    tc_mseg *m = source(2);
    const tc_mseg_stats *st = tc_mseg_stats_get(m);
    void *a = tc_mseg_alloc_block(m, 600 * KIB);
    ck_assert(a != NULL && tc_mseg_block_is_sbc(a));
    ck_assert_uint_eq(st->cache_misses, 1);
    tc_mseg_free_block(m, a);
    ck_assert_uint_eq(tc_mseg_cached(m), 1);
    ck_assert_uint_eq(st->carriers_unmapped, 0);
    /* Same size again: the cached segment comes back. */
    void *b = tc_mseg_alloc_block(m, 600 * KIB);
    ck_assert_ptr_eq(b, a);
    ck_assert_uint_eq(st->cache_hits, 1);
    /* A larger request misses; three frees into two slots unmap the oldest. */
    void *c = tc_mseg_alloc_block(m, 700 * KIB), *d = tc_mseg_alloc_block(m, 800 * KIB);
    ck_assert_uint_eq(st->cache_misses, 3);
    tc_mseg_free_block(m, b);
    tc_mseg_free_block(m, c);
    tc_mseg_free_block(m, d);
    ck_assert_uint_eq(tc_mseg_cached(m), 2);
    ck_assert_uint_eq(st->carriers_unmapped, 1);
    /* A bad fit (the 800 KiB segment for 520 KiB: 54 % excess > rmcbf 20 %) is split. */
    void *e = tc_mseg_alloc_block(m, 520 * KIB);
    ck_assert(e != NULL);
    ck_assert_uint_eq(tc_mseg_cached(m), 2);
    ck_assert_uint_lt(tc_mseg_block_bytes(e), 530 * KIB);
    tc_mseg_free_block(m, e);
    tc_mseg_free(m);
}
END_TEST

START_TEST(no_cache_unmaps)
{
    tc_mseg *m = source(0);
    const tc_mseg_stats *st = tc_mseg_stats_get(m);
    for (int i = 0; i < 3; i++) {
        void *a = tc_mseg_alloc_block(m, 949 * KIB);
        ck_assert(a != NULL);
        tc_mseg_free_block(m, a);
    }
    ck_assert_uint_eq(st->cache_misses, 3);
    ck_assert_uint_eq(st->carriers_mapped, 3);
    ck_assert_uint_eq(st->carriers_unmapped, 3);
    tc_mseg_free(m);
}
END_TEST

/* R13B01's mseg_mutex (seg_lock): every segment call is made under it, a realloc of a block in
 * a single-block carrier included whether or not the carrier changes size (resize_carrier calls
 * mseg_realloc each time), and an mbc's carrier too; a source without seg_lock takes it never. */
START_TEST(segment_calls_take_mseg_lock)
{
    for (int locked = 0; locked <= 1; locked++) {
        tc_mseg_config c = tc_mseg_default_config();
        c.seg_lock = locked;
        c.sbc_unit = 4096; /* R13B01's resize unit, the page */
        tc_mseg *m = tc_mseg_new(&c);
        ck_assert(m != NULL);
        const tc_mseg_stats *st = tc_mseg_stats_get(m);
        char *a = tc_mseg_alloc_block(m, 600 * KIB); /* mseg_alloc */
        ck_assert(a && tc_mseg_block_is_sbc(a));
        for (unsigned k = 1; k <= 10; k++) /* one slot more each time, as the dictionary's array */
            ck_assert((a = tc_mseg_realloc_block(m, a, 600 * KIB + 8 * k)) != NULL);
        ck_assert_uint_eq(st->sbc_resizes, 10);
        ck_assert_uint_eq(st->sbc_remaps, 0); /* the page-rounded carrier held every size */
        void *small = tc_mseg_alloc_block(m, 64); /* a multiblock carrier: mseg_alloc */
        tc_mseg_free_block(m, a);                 /* mseg_dealloc */
        ck_assert_uint_eq(st->seg_locked, locked ? 1 + 10 + 1 + 1 : 0);
        tc_mseg_free_block(m, small);
        tc_mseg_free(m);
    }
    /* temp_alloc's companion goes through the same mseg */
    tc_mseg_config h = tc_mseg_default_config();
    h.seg_lock = true;
    h.temp_mmbcs = 128 * KIB;
    ck_assert(tc_mseg_temp_alloc_config(&h).seg_lock && !tc_mseg_temp_alloc_config(&h).thread_safe);
}
END_TEST

/*
 * sbc realloc: 121536 words (972,288 bytes + 40 header = 238 pages) to 75113 words
 * (a 592 KiB carrier in 16 KiB units) shrinks by 37 % < rsbcst 50 %: the carrier keeps its
 * size. 2 MiB to 600 KiB shrinks by 70 %: the tail is unmapped, leaving the 600 KiB + 40
 * rounded up to the super-aligned unit, 608 KiB (resize_carrier's ERTS_SACRR_UNIT_CEILING,
 * not a page). Growing maps more (mremap). Below sbct the block stays in its sbc (3000 KiB
 * to 100 KiB: 112 KiB of which 12 KiB is slack, < rsbcmt 80 %; the shrink is > 50 %:
 * remapped). Only a block whose carrier would be mostly slack moves to an mbc: 100 bytes +
 * 40 in a 16 KiB unit is 99 % slack. From there 1000 KiB goes back to a single-block
 * carrier.
 */
START_TEST(single_block_realloc)
{
    tc_mseg *m = source(10);
    const tc_mseg_stats *st = tc_mseg_stats_get(m);
    void *a = tc_mseg_alloc_block(m, 121536 * 8);
    size_t full = tc_mseg_block_bytes(a);
    a = tc_mseg_realloc_block(m, a, 75113 * 8);
    ck_assert_uint_eq(tc_mseg_block_bytes(a), full);
    ck_assert_uint_eq(st->sbc_remaps, 0);
    void *b = tc_mseg_alloc_block(m, 2048 * KIB);
    memset(b, 7, 600 * KIB);
    b = tc_mseg_realloc_block(m, b, 600 * KIB);
    ck_assert_uint_eq(st->sbc_remaps, 1);
    ck_assert_uint_eq(tc_mseg_block_bytes(b), 608 * KIB - SBC_OVER);
    b = tc_mseg_realloc_block(m, b, 3000 * KIB);
    ck_assert_uint_eq(st->sbc_remaps, 2);
    ck_assert_uint_eq(((unsigned char *)b)[600 * KIB - 1], 7);
    b = tc_mseg_realloc_block(m, b, 100 * KIB);
    ck_assert(tc_mseg_block_is_sbc(b));
    ck_assert_uint_eq(st->sbc_remaps, 3);
    ck_assert_uint_eq(tc_mseg_block_bytes(b), 112 * KIB - SBC_OVER);
    ck_assert_uint_eq(((unsigned char *)b)[100 * KIB - 1], 7);
    b = tc_mseg_realloc_block(m, b, 100);
    ck_assert(!tc_mseg_block_is_sbc(b));
    ck_assert_uint_eq(((unsigned char *)b)[99], 7);
    b = tc_mseg_realloc_block(m, b, 1000 * KIB);
    ck_assert(tc_mseg_block_is_sbc(b));
    ck_assert_uint_eq(((unsigned char *)b)[0], 7);
    tc_mseg_free_block(m, a);
    tc_mseg_free_block(m, b);
    tc_mseg_free(m);
}
END_TEST

/* cache_get_segment looks newest first and takes the first good fit: of a cached 600 KiB
 * (an exact fit, older) and 652 KiB (9 % excess, newer), a 600 KiB request gets the newer. */
START_TEST(cache_first_good_fit_newest)
{
    tc_mseg *m = source(10);
    void *a = tc_mseg_alloc_block(m, 600 * KIB - SBC_OVER), *b = tc_mseg_alloc_block(m, 652 * KIB - SBC_OVER);
    ck_assert(a && b);
    tc_mseg_free_block(m, a);
    tc_mseg_free_block(m, b);
    void *c = tc_mseg_alloc_block(m, 600 * KIB - SBC_OVER);
    ck_assert_ptr_eq(c, b);
    ck_assert_uint_eq(tc_mseg_block_bytes(c), 652 * KIB - SBC_OVER); /* taken whole */
    ck_assert_uint_eq(tc_mseg_cached(m), 1);
    tc_mseg_free_block(m, c);
    tc_mseg_free(m);
}
END_TEST

/* The good-fit bound is strict: 768 KiB for a 640 KiB request is exactly 20 % excess, a bad
 * fit, so the segment is split (640 KiB taken, 128 KiB left cached) rather than taken whole.
 * Of two bad fits the one with less excess is split. */
START_TEST(cache_good_fit_is_strict)
{
    tc_mseg *m = source(10);
    const tc_mseg_stats *st = tc_mseg_stats_get(m);
    void *big = tc_mseg_alloc_block(m, 2048 * KIB - SBC_OVER), *a = tc_mseg_alloc_block(m, 768 * KIB - SBC_OVER);
    ck_assert(big && a);
    tc_mseg_free_block(m, a);
    tc_mseg_free_block(m, big);
    void *b = tc_mseg_alloc_block(m, 640 * KIB - SBC_OVER);
    ck_assert_ptr_eq(b, a);
    ck_assert_uint_eq(tc_mseg_block_bytes(b), 640 * KIB - SBC_OVER);
    ck_assert_uint_eq(st->cache_hits, 1);
    ck_assert_uint_eq(tc_mseg_cached(m), 2); /* 2 MiB and the 128 KiB rest */
    ck_assert_uint_eq(st->cache_misses, 2);
    tc_mseg_free_block(m, b);
    tc_mseg_free(m);
}
END_TEST

/* asbcst is 4,145,152 bytes: a 10 MiB carrier shrunk by 254 units of 16 KiB (4,161,536
 * bytes, 40 %, under rsbcst 50 % and under 4 MiB) passes asbcst, so its tail is unmapped. */
/* R10B-2's and R13B01's cache (best_whole, page units), 4 KiB pages assumed by the sizes. */
static tc_mseg *old_source(tc_mseg_fit fit)
{
    tc_mseg_config c = tc_mseg_default_config();
    c.cache_slots = 5;
    c.fit = fit;
    c.sbc_unit = fit == TC_MSEG_FIT_BEST_WHOLE ? 4 * KIB : TC_MSEG_SACRR_UNIT;
    tc_mseg *m = tc_mseg_new(&c);
    ck_assert(m != NULL);
    return m;
}

/* Cached: 1000 KiB (older) and 1100 KiB (newer, 10 % excess: a good fit too) for a 1000 KiB
 * request. OTP 25 takes the newest good fit, R10B-2 the smallest; a 4 MiB segment for a
 * 1 MiB request is split by OTP 25 and passed over (a bad fit) by R10B-2. */
START_TEST(best_whole_takes_the_smallest_and_never_splits)
{
    for (int fit = 0; fit < 2; fit++) {
        tc_mseg *m = old_source((tc_mseg_fit)fit);
        const tc_mseg_stats *st = tc_mseg_stats_get(m);
        void *a = tc_mseg_alloc_block(m, 1000 * KIB - SBC_OVER), *b = tc_mseg_alloc_block(m, 1100 * KIB - SBC_OVER);
        ck_assert(a && b);
        tc_mseg_free_block(m, a);
        tc_mseg_free_block(m, b);
        void *x = tc_mseg_alloc_block(m, 1000 * KIB - SBC_OVER);
        ck_assert_ptr_eq(x, fit == TC_MSEG_FIT_BEST_WHOLE ? a : b);
        ck_assert_uint_eq(st->carriers_mapped, 2);
        tc_mseg_free_block(m, x);
        tc_mseg_free_block(m, tc_mseg_alloc_block(m, 4096 * KIB - SBC_OVER));
        uint64_t mapped = st->carriers_mapped;
        void *y = tc_mseg_alloc_block(m, 100 * KIB + 512 * KIB - SBC_OVER);
        ck_assert(y != NULL);
        ck_assert_uint_eq(st->carriers_mapped, mapped + (fit == TC_MSEG_FIT_BEST_WHOLE));
        tc_mseg_free_block(m, y);
        tc_mseg_free(m);
    }
}
END_TEST

/* R10B-2 mseg_realloc: a 1 MiB sbc shrunk to 20 KiB (5 pages; OTP 25: 32 KiB) keeps its
 * 1004 KiB tail cached as the oldest segment, where OTP 25 unmaps it. The cache's remembered
 * largest size never saw the tail, so a request of its size maps anew; once a scan has passed
 * over it (the request after a freed segment of that size is taken), the next one gets it. */
START_TEST(best_whole_caches_a_shrink_tail_behind_a_stale_bound)
{
    for (int fit = 0; fit < 2; fit++) {
        int old = fit == TC_MSEG_FIT_BEST_WHOLE;
        tc_mseg *m = old_source((tc_mseg_fit)fit);
        const tc_mseg_stats *st = tc_mseg_stats_get(m);
        char *a = tc_mseg_alloc_block(m, 1024 * KIB - SBC_OVER);
        ck_assert(a != NULL);
        ck_assert_ptr_eq(tc_mseg_realloc_block(m, a, 20 * KIB - SBC_OVER), a);
        ck_assert_uint_eq(tc_mseg_block_bytes(a), (old ? 20 : 32) * KIB - SBC_OVER);
        ck_assert_uint_eq(tc_mseg_cached(m), (unsigned)old);
        ck_assert_uint_eq(st->bytes_unmapped, old ? 0 : 992 * KIB);
        if (old) {
            void *y = tc_mseg_alloc_block(m, 1004 * KIB - SBC_OVER);
            ck_assert(y != NULL);
            ck_assert_uint_eq(st->carriers_mapped, 2); /* turned away: the tail is cached */
            ck_assert_uint_eq(tc_mseg_cached(m), 1);
            tc_mseg_free_block(m, y);
            ck_assert_ptr_eq(tc_mseg_alloc_block(m, 1004 * KIB - SBC_OVER), y);
            void *t = tc_mseg_alloc_block(m, 1004 * KIB - SBC_OVER);
            ck_assert_ptr_eq(t, a - SBC_OVER + 20 * KIB + SBC_OVER); /* the tail, after a's 20 KiB */
            ck_assert_uint_eq(st->carriers_mapped, 2);
            tc_mseg_free_block(m, t);
            tc_mseg_free_block(m, y);
        }
        tc_mseg_free_block(m, a);
        tc_mseg_free(m);
    }
}
END_TEST

START_TEST(sbc_shrink_absolute_threshold)
{
    tc_mseg *m = source(10);
    const tc_mseg_stats *st = tc_mseg_stats_get(m);
    void *a = tc_mseg_alloc_block(m, 10240 * KIB - SBC_OVER);
    ck_assert(a != NULL);
    size_t to = 10240 * KIB - 254 * 16 * KIB;
    a = tc_mseg_realloc_block(m, a, to - SBC_OVER);
    ck_assert(a != NULL);
    ck_assert_uint_eq(st->sbc_remaps, 1);
    ck_assert_uint_eq(tc_mseg_block_bytes(a), to - SBC_OVER);
    /* A shrink of 252 units (4,128,768 bytes, under asbcst) keeps the carrier. */
    void *b = tc_mseg_alloc_block(m, 10240 * KIB - SBC_OVER);
    b = tc_mseg_realloc_block(m, b, 10240 * KIB - 252 * 16 * KIB - SBC_OVER);
    ck_assert(b != NULL);
    ck_assert_uint_eq(st->sbc_remaps, 1);
    ck_assert_uint_eq(tc_mseg_block_bytes(b), 10240 * KIB - SBC_OVER);
    tc_mseg_free_block(m, a);
    tc_mseg_free_block(m, b);
    tc_mseg_free(m);
}
END_TEST

/* Instances: instance 1 (the scheduler's) is current; a dirty scheduler's instance 0 has its
 * own cache, so a segment freed by one is not a hit for the other; a block goes back to the
 * instance that owns it, whoever frees it; a realloc of another instance's block moves it. */
START_TEST(instances_have_own_caches)
{
    tc_mseg *m = source(10);
    ck_assert_uint_eq(tc_mseg_instances(m), 2);
    ck_assert_uint_eq(tc_mseg_instance_get(m), 1);
    void *a = tc_mseg_alloc_block(m, 600 * KIB);
    ck_assert_uint_eq(tc_mseg_block_instance(m, a), 1);
    tc_mseg_free_block(m, a);
    ck_assert_uint_eq(tc_mseg_instance_cached(m, 1), 1);
    ck_assert_uint_eq(tc_mseg_instance_set(m, TC_MSEG_DIRTY_INSTANCE), 1);
    void *b = tc_mseg_alloc_block(m, 600 * KIB);
    ck_assert_uint_eq(tc_mseg_block_instance(m, b), 0);
    ck_assert_uint_eq(tc_mseg_instance_stats(m, 0)->cache_misses, 1);
    ck_assert_uint_eq(tc_mseg_instance_stats(m, 0)->cache_hits, 0);
    void *small = tc_mseg_alloc_block(m, 1000);
    ck_assert_uint_eq(tc_mseg_block_instance(m, small), 0);
    tc_mseg_instance_set(m, 1);
    /* Freed from instance 1's code, b still goes to instance 0's cache. */
    memset(b, 5, 16);
    void *c = tc_mseg_realloc_block(m, b, 600 * KIB);
    ck_assert_ptr_ne(c, NULL);
    ck_assert_uint_eq(tc_mseg_block_instance(m, c), 1);
    ck_assert_uint_eq(((unsigned char *)c)[15], 5);
    ck_assert_uint_eq(tc_mseg_instance_stats(m, 1)->cache_hits, 1); /* a's segment */
    ck_assert_uint_eq(tc_mseg_instance_cached(m, 0), 1);             /* b's */
    tc_mseg_free_block(m, small);
    tc_mseg_free_block(m, c);
    ck_assert_uint_eq(tc_mseg_instance_cached(m, 1), 1);
    ck_assert_uint_eq(tc_mseg_stats_get(m)->cache_hits, 1);
    ck_assert_uint_eq(tc_mseg_stats_get(m)->live_blocks, 0);
    tc_mseg_free(m);
}
END_TEST

/* One segment cache per thread, whichever allocator calls it: an ETS-like source sharing the
 * heaps' caches takes the segment a heap sbc left in the current (scheduler) instance's cache,
 * leaves its own freed sbc there for the next heap block, and uses the current instance's
 * cache at each call (the dirty instance's while it is current); its counters stay its own,
 * and freeing it leaves the shared caches alone. Unshared, the same calls map fresh. */
START_TEST(sources_share_thread_caches)
{
    tc_mseg *heaps = source(10);
    tc_mseg_config ec = tc_mseg_ets_alloc_config();
    for (int shared = 0; shared <= 1; shared++) {
        tc_mseg *ets = tc_mseg_new(&ec);
        ck_assert(ets != NULL);
        if (shared)
            ck_assert_int_eq(tc_mseg_share_cache(ets, heaps), TC_OK);
        void *h = tc_mseg_alloc_block(heaps, 900 * KIB);
        tc_mseg_free_block(heaps, h);
        ck_assert_uint_eq(tc_mseg_instance_cached(heaps, 1), 1);
        void *o = tc_mseg_alloc_block(ets, 900 * KIB);
        ck_assert_uint_eq(tc_mseg_stats_get(ets)->cache_hits, (uint64_t)shared);
        ck_assert_uint_eq(tc_mseg_stats_get(ets)->carriers_mapped, (uint64_t)!shared);
        ck_assert_uint_eq(tc_mseg_instance_cached(heaps, 1), (unsigned)!shared);
        tc_mseg_free_block(ets, o);
        ck_assert_uint_eq(tc_mseg_instance_cached(heaps, 1), 1);
        ck_assert_uint_eq(tc_mseg_instance_cached(ets, 0), (unsigned)!shared);
        uint64_t heap_hits = tc_mseg_stats_get(heaps)->cache_hits;
        h = tc_mseg_alloc_block(heaps, 900 * KIB);
        ck_assert_uint_eq(tc_mseg_stats_get(heaps)->cache_hits, heap_hits + 1);
        tc_mseg_free_block(heaps, h);
        if (shared) { /* the dirty instance current: its cache, empty, so a fresh map */
            tc_mseg_instance_set(heaps, TC_MSEG_DIRTY_INSTANCE);
            o = tc_mseg_alloc_block(ets, 900 * KIB);
            ck_assert_uint_eq(tc_mseg_stats_get(ets)->carriers_mapped, 1);
            tc_mseg_free_block(ets, o);
            ck_assert_uint_eq(tc_mseg_instance_cached(heaps, TC_MSEG_DIRTY_INSTANCE), 1);
            tc_mseg_instance_set(heaps, 1);
            ck_assert_int_eq(tc_mseg_share_cache(heaps, ets), TC_EBADARG); /* two instances */
        }
        tc_mseg_free(ets);
        ck_assert_uint_eq(tc_mseg_instance_cached(heaps, 1), 1);
    }
    tc_mseg *other = tc_mseg_new(&ec), *third = tc_mseg_new(&ec);
    ck_assert_int_eq(tc_mseg_share_cache(other, other), TC_EBADARG);
    ck_assert_int_eq(tc_mseg_share_cache(other, heaps), TC_OK);
    ck_assert_int_eq(tc_mseg_share_cache(third, other), TC_EBADARG); /* other is a sharer */
    tc_mseg_free(third);
    tc_mseg_free(other);
    tc_mseg_free(heaps);
}
END_TEST

/* A heap source with a temp_alloc companion (128 KiB main carrier) and `slots` cache slots. */
static tc_mseg *source_with_temp(unsigned slots, tc_mseg_fit fit, size_t mmbcs)
{
    tc_mseg_config c = tc_mseg_default_config();
    c.cache_slots = slots;
    c.fit = fit;
    c.temp_mmbcs = mmbcs;
    tc_mseg *m = tc_mseg_new(&c);
    ck_assert(m != NULL && tc_mseg_temp(m) != NULL);
    return m;
}

/* temp_alloc's stack (alloc/estack.h): within the 16 entries on the C stack nothing; up to
 * the main carrier's 8192 entries (64 KiB) the main carrier; beyond, a 1 MiB multiblock
 * carrier from the heap source's current segment cache, back there when the walk ends. */
START_TEST(temp_alloc_stack_outgrows_the_main_carrier)
{
    tc_mseg *heaps = source_with_temp(10, TC_MSEG_FIT_NEWEST_SPLIT, 128 * KIB);
    tc_mseg *temp = tc_mseg_temp(heaps);
    const tc_mseg_stats *ts = tc_mseg_stats_get(temp);
    ck_assert(tc_mseg_temp(temp) == NULL);
    ck_assert_uint_eq(ts->carriers_mapped, 1);
    ck_assert_int_eq(tc_estack_walk(temp, TC_ESTACK_DEFAULT), TC_OK);
    ck_assert_uint_eq(ts->mbc_blocks, 0);
    ck_assert_int_eq(tc_estack_walk(temp, 8192), TC_OK);
    ck_assert_uint_eq(ts->mbc_blocks, 1); /* 32 entries, then grown in place up to 8192 */
    ck_assert_uint_eq(ts->carriers_mapped, 1);
    ck_assert_int_eq(tc_estack_walk(temp, 8193), TC_OK);
    ck_assert_uint_eq(ts->carriers_mapped, 2);
    ck_assert_uint_eq(ts->cache_misses, 1);
    ck_assert_uint_eq(ts->bytes_mapped, 128 * KIB + 1024 * KIB);
    ck_assert_uint_eq(tc_mseg_instance_cached(heaps, 1), 1);
    ck_assert_int_eq(tc_estack_walk(temp, 30000), TC_OK);
    ck_assert_uint_eq(ts->carriers_mapped, 2);
    ck_assert_uint_eq(ts->cache_hits, 1);
    ck_assert_uint_eq(ts->live_blocks, 0);
    /* the thread's cache: the dirty instance current, its own cache, empty */
    tc_mseg_instance_set(heaps, TC_MSEG_DIRTY_INSTANCE);
    ck_assert_int_eq(tc_estack_walk(temp, 8193), TC_OK);
    ck_assert_uint_eq(ts->carriers_mapped, 3);
    ck_assert_uint_eq(tc_mseg_instance_cached(heaps, TC_MSEG_DIRTY_INSTANCE), 1);
    tc_mseg_instance_set(heaps, 1);
    tc_mseg_free(heaps);
    /* R10B-2's 64 KiB main carrier holds 4096 */
    heaps = source_with_temp(5, TC_MSEG_FIT_BEST_WHOLE, 64 * KIB);
    ts = tc_mseg_stats_get(tc_mseg_temp(heaps));
    ck_assert_int_eq(tc_estack_walk(tc_mseg_temp(heaps), 4096), TC_OK);
    ck_assert_uint_eq(ts->carriers_mapped, 1);
    ck_assert_int_eq(tc_estack_walk(tc_mseg_temp(heaps), 4097), TC_OK);
    ck_assert_uint_eq(ts->carriers_mapped, 2);
    tc_mseg_free(heaps);
}
END_TEST

/* OTP 25's cache keeps a multiblock carrier's power-of-two segment apart (erl_mseg.c
 * cache_get_segment, cache_bless_segment): an sbc request never takes one; a freed one takes
 * a free slot or is unmapped; a freed sbc, the cache full, evicts the oldest sbc, and the
 * oldest of the least size class only when no sbc is cached. */
START_TEST(temp_alloc_segments_are_kept_apart)
{
    tc_mseg *heaps = source_with_temp(2, TC_MSEG_FIT_NEWEST_SPLIT, 128 * KIB);
    tc_mseg *temp = tc_mseg_temp(heaps);
    const tc_mseg_stats *hs = tc_mseg_stats_get(heaps), *ts = tc_mseg_stats_get(temp);
    ck_assert_int_eq(tc_estack_walk(temp, 8193), TC_OK); /* a 1 MiB segment cached */
    void *h = tc_mseg_alloc_block(heaps, 900 * KIB);     /* fits it, but may not take it */
    ck_assert_uint_eq(hs->cache_misses, 1);
    tc_mseg_free_block(heaps, h);
    ck_assert_uint_eq(tc_mseg_instance_cached(heaps, 1), 2);
    void *a = tc_mseg_alloc_block(heaps, 900 * KIB), *b = tc_mseg_alloc_block(heaps, 900 * KIB);
    ck_assert_uint_eq(hs->cache_hits, 1);
    tc_mseg_free_block(heaps, a);
    tc_mseg_free_block(heaps, b); /* full: a, the oldest sbc, goes; the 1 MiB segment stays */
    ck_assert_uint_eq(hs->carriers_unmapped, 1);
    ck_assert_int_eq(tc_estack_walk(temp, 8193), TC_OK);
    ck_assert_uint_eq(ts->cache_hits, 1);
    /* taken out by a block, then the cache filled with sbcs: the freed carrier is unmapped */
    void *t1 = tc_mseg_alloc_block(temp, 400 * KIB);
    ck_assert_uint_eq(ts->cache_hits, 2);
    a = tc_mseg_alloc_block(heaps, 900 * KIB);
    b = tc_mseg_alloc_block(heaps, 900 * KIB);
    tc_mseg_free_block(heaps, a);
    tc_mseg_free_block(heaps, b);
    ck_assert_uint_eq(tc_mseg_instance_cached(heaps, 1), 2);
    tc_mseg_free_block(temp, t1);
    ck_assert_uint_eq(ts->carriers_unmapped, 1);
    ck_assert_uint_eq(tc_mseg_instance_cached(heaps, 1), 2);
    /* three 400 KiB blocks: a 1 MiB carrier for two, a 2 MiB one (get_next_mbc_size's second
     * stage, a power of two) for the third; both back, the cache then holds only them */
    a = tc_mseg_alloc_block(heaps, 900 * KIB);
    b = tc_mseg_alloc_block(heaps, 900 * KIB);
    void *t[3];
    for (int k = 0; k < 3; k++)
        t[k] = tc_mseg_alloc_block(temp, 400 * KIB);
    ck_assert_uint_eq(ts->bytes_mapped, 128 * KIB + 2 * 1024 * KIB + 2048 * KIB);
    for (int k = 0; k < 3; k++)
        tc_mseg_free_block(temp, t[k]);
    ck_assert_uint_eq(tc_mseg_instance_cached(heaps, 1), 2);
    uint64_t unmapped = hs->bytes_unmapped;
    tc_mseg_free_block(heaps, a); /* no sbc cached: the 1 MiB segment, the least, goes */
    ck_assert_uint_eq(hs->bytes_unmapped, unmapped + 1024 * KIB);
    ck_assert_uint_eq(tc_mseg_instance_cached(heaps, 1), 2);
    t[0] = tc_mseg_alloc_block(temp, 400 * KIB); /* the 2 MiB one, split: 1 MiB unmapped */
    ck_assert_uint_eq(hs->bytes_unmapped, unmapped + 2 * 1024 * KIB);
    ck_assert_uint_eq(ts->carriers_mapped, 4);
    tc_mseg_free_block(temp, t[0]);
    tc_mseg_free_block(heaps, b);
    tc_mseg_free(heaps);
}
END_TEST

/* R10B-2's and R13B01's mseg caches every segment alike: a heap's sbc request takes the
 * stack's freed carrier when it is a good fit. */
START_TEST(temp_alloc_segments_alike_in_old_eras)
{
    tc_mseg *heaps = source_with_temp(5, TC_MSEG_FIT_BEST_WHOLE, 128 * KIB);
    ck_assert_int_eq(tc_estack_walk(tc_mseg_temp(heaps), 8193), TC_OK);
    void *h = tc_mseg_alloc_block(heaps, 900 * KIB);
    ck_assert_uint_eq(tc_mseg_stats_get(heaps)->cache_hits, 1);
    ck_assert_uint_eq(tc_mseg_stats_get(heaps)->carriers_mapped, 0);
    tc_mseg_free_block(heaps, h);
    tc_mseg_free(heaps);
}
END_TEST

/* ets_alloc's multiblock carriers grow as get_next_mbc_size says, each a power-of-two
 * segment: smbcs 512 KiB, then 512 KiB + n * 460.8 KiB rounded up to a power of two (1, 2,
 * 2, 4 MiB ...), lmbcs 5 MiB (an 8 MiB segment) from the tenth on; 400 KiB blocks. */
START_TEST(multiblock_carriers_grow)
{
    tc_mseg_config c = tc_mseg_ets_alloc_config();
    tc_mseg *m = tc_mseg_new(&c);
    ck_assert(m != NULL);
    const tc_mseg_stats *st = tc_mseg_stats_get(m);
    static const size_t mib[] = {0, 1, 2, 2, 4, 4, 4, 4, 8, 8, 8, 8};
    void *blocks[400];
    size_t n = 0, want = 512 * KIB;
    for (unsigned carriers = 1; carriers <= 12; carriers++) {
        if (carriers > 1)
            want += mib[carriers - 1] * 1024 * KIB;
        while (st->carriers_mapped < carriers) {
            ck_assert(n < 400);
            ck_assert((blocks[n++] = tc_mseg_alloc_block(m, 400 * KIB)) != NULL);
        }
        ck_assert_uint_eq(st->bytes_mapped, want);
    }
    ck_assert_uint_eq(st->sbc_blocks, 0);
    while (n)
        tc_mseg_free_block(m, blocks[--n]);
    tc_mseg_free(m);
}
END_TEST

/* Writing a fresh 1 MiB carrier faults its pages; writing a recycled one does not (1 MiB:
 * too small for a transparent huge page, so the count does not depend on THP). */
START_TEST(fresh_pages_fault)
{
    tc_mseg *m = source(10);
    size_t bytes = 1024 * KIB;
    tc_faults f;
    void *a = tc_mseg_alloc_block(m, bytes);
    tc_faults_begin(&f);
    memset(a, 1, bytes);
    uint64_t fresh = tc_faults_end(&f);
    tc_mseg_free_block(m, a);
    a = tc_mseg_alloc_block(m, bytes);
    tc_faults_begin(&f);
    memset(a, 2, bytes);
    uint64_t warm = tc_faults_end(&f);
    ck_assert_msg(fresh > 4 * warm + 8, "fresh %llu faults, recycled %llu", (unsigned long long)fresh,
                  (unsigned long long)warm);
    tc_mseg_free_block(m, a);
    tc_mseg_free(m);
}
END_TEST

/*
 * mmsbc: an instance holding mmsbc mseg sbcs takes its next from sys_alloc, 1 MiB-rounded
 * (ycs), outside mseg's counters and cache: its free unmaps it and caches nothing. Once an
 * mseg sbc is freed, the next comes from mseg again (the cache). A sys carrier's realloc keeps
 * it a sys carrier, resized in 1 MiB units, its data kept.
 */
START_TEST(sbcs_past_mmsbc_come_from_sys_alloc)
{
    tc_mseg_config c = tc_mseg_default_config();
    c.mmsbc = 2;
    tc_mseg *m = tc_mseg_new(&c);
    ck_assert(m != NULL);
    const tc_mseg_stats *st = tc_mseg_stats_get(m);
    void *a = tc_mseg_alloc_block(m, 600 * KIB), *b = tc_mseg_alloc_block(m, 600 * KIB);
    void *s = tc_mseg_alloc_block(m, 600 * KIB);
    ck_assert_uint_eq(st->carriers_mapped, 2);
    ck_assert_uint_eq(st->sys_carriers, 1);
    ck_assert(tc_mseg_block_is_sbc(s));
    ck_assert_uint_eq(tc_mseg_block_bytes(s), 1024 * KIB - SBC_OVER);
    ck_assert_uint_eq(tc_mseg_block_bytes(a), 604 * KIB - SBC_OVER); /* pages for mseg's */
    memset(s, 9, 600 * KIB);
    s = tc_mseg_realloc_block(m, s, 1500 * KIB);
    ck_assert_uint_eq(tc_mseg_block_bytes(s), 2048 * KIB - SBC_OVER);
    ck_assert_uint_eq(((unsigned char *)s)[600 * KIB - 1], 9);
    ck_assert_uint_eq(st->sys_carriers, 1);
    ck_assert_uint_eq(st->sbc_resizes, 0);
    tc_mseg_free_block(m, s);
    ck_assert_uint_eq(tc_mseg_cached(m), 0);
    ck_assert_uint_eq(st->sbc_frees, 0);
    tc_mseg_free_block(m, a);
    ck_assert_uint_eq(tc_mseg_cached(m), 1);
    void *d = tc_mseg_alloc_block(m, 600 * KIB);
    ck_assert_uint_eq(st->cache_hits, 1);
    ck_assert_uint_eq(st->sys_carriers, 1);
    void *e = tc_mseg_alloc_block(m, 600 * KIB);
    ck_assert_uint_eq(st->sys_carriers, 2);
    ck_assert_uint_eq(st->carriers_mapped, 2);
    tc_mseg_free_block(m, b);
    tc_mseg_free_block(m, d);
    tc_mseg_free_block(m, e);
    ck_assert_uint_eq(st->live_blocks, 0);
    tc_mseg_free(m);
}
END_TEST

/* Virtual memory of the process, in pages (/proc/self/statm's first field). */
static unsigned long vm_pages(void)
{
    char buf[64] = {0}, *end = NULL;
    FILE *f = fopen("/proc/self/statm", "r");
    ck_assert(f != NULL);
    ck_assert(fgets(buf, sizeof buf, f) != NULL);
    ck_assert_int_eq(fclose(f), 0);
    unsigned long pages = strtoul(buf, &end, 10);
    ck_assert(end != buf);
    return pages;
}

/* A source discarded with live sbcs, mseg's and sys_alloc's, unmaps them all. */
START_TEST(discard_unmaps_live_single_block_carriers)
{
    tc_mseg_config c = tc_mseg_default_config();
    c.mmsbc = 8;
    unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE), before = vm_pages();
    tc_mseg *m = tc_mseg_new(&c);
    ck_assert(m != NULL);
    for (int k = 0; k < 16; k++)
        ck_assert(tc_mseg_alloc_block(m, 4096 * KIB) != NULL);
    ck_assert_uint_eq(tc_mseg_stats_get(m)->sys_carriers, 8);
    ck_assert_uint_ge(vm_pages(), before + 16 * 4096 * KIB / page);
    tc_mseg_free_discard(m);
    ck_assert_uint_lt(vm_pages(), before + 4096 * KIB / page);
}
END_TEST

START_TEST(injected_failures)
{
    tc_mseg *m = source(10);
    const tc_mseg_stats *st = tc_mseg_stats_get(m);
    tc_mem_fail_at(1);
    ck_assert_ptr_eq(tc_mseg_alloc_block(m, 100), NULL);
    tc_mem_fail_at(1);
    ck_assert_ptr_eq(tc_mseg_alloc_block(m, 1024 * KIB), NULL);
    ck_assert_uint_eq(st->carriers_mapped, 0);
    void *a = tc_mseg_alloc_block(m, 1024 * KIB);
    memset(a, 3, 1024 * KIB);
    tc_mem_fail_at(1);
    ck_assert_ptr_eq(tc_mseg_realloc_block(m, a, 10 * KIB), NULL);
    ck_assert_uint_eq(((unsigned char *)a)[1024 * KIB - 1], 3);
    tc_mem_fail_at(0);
    tc_mseg_free_block(m, a);
    ck_assert_uint_eq(st->live_blocks, 0);
    tc_mseg_free(m);
}
END_TEST

/* erl_mseg.c mseg_cache_check at the aux-work timer's timeouts, once a second of the caller's
 * clock: each instance with a cached segment loses its oldest one, a power-of-two segment
 * before any sbc; an instance with none loses nothing; R10B-2's and R13B01's design runs no
 * such check. */
START_TEST(timed_check_drops_one_segment_a_second)
{
    tc_mseg *m = source(5);
    const tc_mseg_stats *st = tc_mseg_stats_get(m);
    size_t seg[3];
    void *b[3];
    for (int k = 0; k < 3; k++) {
        uint64_t before = st->bytes_mapped;
        b[k] = tc_mseg_alloc_block(m, (size_t)(600 + 100 * k) * KIB);
        ck_assert(b[k] != NULL);
        seg[k] = (size_t)(st->bytes_mapped - before);
    }
    ck_assert_uint_eq(tc_mseg_instance_set(m, 0), 1);
    void *d = tc_mseg_alloc_block(m, 600 * KIB);
    ck_assert(d != NULL);
    tc_mseg_free_block(m, d);
    ck_assert_uint_eq(tc_mseg_instance_set(m, 1), 0);
    for (int k = 0; k < 3; k++)
        tc_mseg_free_block(m, b[k]);
    ck_assert_uint_eq(tc_mseg_instance_cached(m, 1), 3);
    ck_assert_uint_eq(tc_mseg_instance_cached(m, 0), 1);
    tc_mseg_clock(m, TC_MSEG_CHECK_NS - 1);
    ck_assert_uint_eq(tc_mseg_cached(m), 4);
    ck_assert_uint_eq(st->cache_checks, 0);
    uint64_t unmapped = st->bytes_unmapped;
    tc_mseg_clock(m, TC_MSEG_CHECK_NS);
    ck_assert_uint_eq(tc_mseg_instance_cached(m, 1), 2);
    ck_assert_uint_eq(tc_mseg_instance_cached(m, 0), 0);
    ck_assert_uint_eq(st->bytes_unmapped - unmapped, seg[0] + seg[0]); /* the oldest of each */
    tc_mseg_clock(m, TC_MSEG_CHECK_NS); /* the same time again: nothing */
    ck_assert_uint_eq(st->cache_checks, 2);
    unmapped = st->bytes_unmapped;
    tc_mseg_clock(m, 2 * TC_MSEG_CHECK_NS + TC_MSEG_CHECK_NS / 2);
    ck_assert_uint_eq(tc_mseg_instance_cached(m, 1), 1);
    ck_assert_uint_eq(st->bytes_unmapped - unmapped, seg[1]);
    ck_assert_uint_eq(tc_mseg_instance_stats(m, 1)->cache_checks, 2);
    ck_assert_uint_eq(tc_mseg_instance_stats(m, 0)->cache_checks, 1);
    tc_mseg_clock(m, 10 * TC_MSEG_CHECK_NS); /* seven timeouts, one segment left to drop */
    ck_assert_uint_eq(tc_mseg_cached(m), 0);
    ck_assert_uint_eq(st->cache_checks, 4);
    ck_assert_uint_eq(st->carriers_unmapped, 4);
    tc_mseg_free(m);

    /* a power-of-two segment (temp_alloc's carrier) goes first, though the sbc is older */
    m = source_with_temp(5, TC_MSEG_FIT_NEWEST_SPLIT, 128 * KIB);
    st = tc_mseg_stats_get(m);
    void *h = tc_mseg_alloc_block(m, 900 * KIB);
    ck_assert(h != NULL);
    tc_mseg_free_block(m, h);
    ck_assert_int_eq(tc_estack_walk(tc_mseg_temp(m), 8193), TC_OK); /* a 1 MiB segment cached */
    ck_assert_uint_eq(tc_mseg_instance_cached(m, 1), 2);
    unmapped = st->bytes_unmapped;
    tc_mseg_clock(m, TC_MSEG_CHECK_NS);
    ck_assert_uint_eq(st->bytes_unmapped - unmapped, 1024 * KIB);
    h = tc_mseg_alloc_block(m, 900 * KIB); /* the sbc is still there */
    ck_assert_uint_eq(st->cache_hits, 1);
    tc_mseg_free_block(m, h);
    tc_mseg_free(m);

    m = old_source(TC_MSEG_FIT_BEST_WHOLE);
    h = tc_mseg_alloc_block(m, 900 * KIB);
    ck_assert(h != NULL);
    tc_mseg_free_block(m, h);
    tc_mseg_clock(m, 5 * TC_MSEG_CHECK_NS);
    ck_assert_uint_eq(tc_mseg_cached(m), 1);
    ck_assert_uint_eq(tc_mseg_stats_get(m)->cache_checks, 0);
    tc_mseg_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("heaps_mseg");
    TCase *tc = tcase_create("mseg");
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, multiblock_blocks_recycle);
    tcase_add_test(tc, multiblock_blocks_take_a_header_word_in_8_byte_units);
    tcase_add_test(tc, single_block_cache);
    tcase_add_test(tc, no_cache_unmaps);
    tcase_add_test(tc, single_block_realloc);
    tcase_add_test(tc, cache_first_good_fit_newest);
    tcase_add_test(tc, cache_good_fit_is_strict);
    tcase_add_test(tc, sbc_shrink_absolute_threshold);
    tcase_add_test(tc, best_whole_takes_the_smallest_and_never_splits);
    tcase_add_test(tc, best_whole_caches_a_shrink_tail_behind_a_stale_bound);
    tcase_add_test(tc, instances_have_own_caches);
    tcase_add_test(tc, sources_share_thread_caches);
    tcase_add_test(tc, multiblock_carriers_grow);
    tcase_add_test(tc, fresh_pages_fault);
    tcase_add_test(tc, injected_failures);
    tcase_add_test(tc, large_sbct_sizes_carriers_by_block);
    tcase_add_test(tc, temp_alloc_stack_outgrows_the_main_carrier);
    tcase_add_test(tc, temp_alloc_segments_are_kept_apart);
    tcase_add_test(tc, temp_alloc_segments_alike_in_old_eras);
    tcase_add_test(tc, sbcs_past_mmsbc_come_from_sys_alloc);
    tcase_add_test(tc, discard_unmaps_live_single_block_carriers);
    tcase_add_test(tc, segment_calls_take_mseg_lock);
    tcase_add_test(tc, timed_check_drops_one_segment_a_second);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tc_run_suite(suite()); }
