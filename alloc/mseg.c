#define _GNU_SOURCE /* mremap, MAP_ANONYMOUS */
#include "mseg.h"

#include <assert.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Every block starts with one word, as an erts block with its header (erl_alloc_util.c
 * ABLK_HDR_SZ, sizeof(Uint) in R10B-2 and R13B01, offsetof(Block_t, u) in OTP 25 on 64-bit):
 * the block's bytes with the header, a multiple of 8 (UNIT_CEILING: erts' Unit_t is 8 bytes),
 * the owning instance in the top bits (erts finds a block's allocator through its carrier)
 * and flags for a single-block carrier and for one from sys_alloc. An sbc's block word is
 * preceded by the carrier's header, 32 bytes as erts's (SBC_HEADER_SIZE in OTP 25, SBC_HDR_SZ
 * in R10B-2: UNIT_CEILING of the Carrier_t and a block header, less the block header), so its
 * data is 40 bytes into the carrier as in the VM, and creating an sbc writes its first page
 * at once. Its block's bytes are the whole carrier.
 */
typedef struct blk {
    uint64_t word; /* bytes | instance << INST_SHIFT | SBC_FLAG | SYS_FLAG */
} blk;

/* The carrier header of an sbc: the links of its instance's live sbcs (erts: sbc_list), so
 * a source discarded with live blocks unmaps them; erts's chdr and allctr words are not used. */
typedef struct sbc {
    struct sbc *next, *prev;
    uint64_t unused[2];
} sbc;

#define HDR sizeof(blk)
#define SBC_HDR (sizeof(sbc) + HDR) /* from an sbc's carrier to its data */
#define MIN_BLOCK (2 * HDR)         /* a free block needs room for its list link */
#define SBC_FLAG ((uint64_t)1)
#define SYS_FLAG ((uint64_t)2)  /* the sbc came from sys_alloc (malloc), not mseg */
#define INST_SHIFT 56
#define BYTES_MASK ((((uint64_t)1 << INST_SHIFT) - 1) & ~(uint64_t)7)
/* A sys_alloc carrier's size unit: ycs (ERTS_DEFAULT_ALCU_INIT, 1 MiB in R10B-2, R13B01 and
 * OTP 25; SYS_ALLOC_CARRIER_CEILING). */
#define SYS_UNIT ((size_t)1024 * 1024)
/* glibc maps a malloc of 128 KiB or more on its own (erts pins the threshold: erl_alloc.c
 * sets M_TRIM_THRESHOLD, which turns off glibc's dynamic one): the chunk starts the mapping,
 * its data 16 bytes in, and the mapping takes the request and a size word, page-rounded
 * (malloc.c sysmalloc_mmap: 2 * SIZE_SZ and SIZE_SZ). */
#define MALLOC_DATA_OFF ((size_t)16)
#define MALLOC_MAP_EXTRA ((size_t)24)

static_assert(sizeof(sbc) == 32, "erts's SBC_HEADER_SIZE on 64-bit");

static size_t blk_bytes(const blk *b) { return (size_t)(b->word & BYTES_MASK); }
static unsigned blk_inst(const blk *b) { return (unsigned)(b->word >> INST_SHIFT); }
static bool is_sbc(const blk *b) { return (b->word & SBC_FLAG) != 0; }
static bool is_sys(const blk *b) { return (b->word & SYS_FLAG) != 0; }
static void blk_set(blk *b, size_t bytes, unsigned inst, uint64_t flags)
{
    b->word = (uint64_t)bytes | (uint64_t)inst << INST_SHIFT | flags;
}
static void blk_resize(blk *b, size_t bytes) { b->word = (b->word & ~BYTES_MASK) | (uint64_t)bytes; }
/* An sbc's carrier, from its block header. */
static sbc *sbc_of(const blk *b) { return (sbc *)((char *)(uintptr_t)b - sizeof(sbc)); }

typedef struct mbc {
    _Alignas(16) struct mbc *next;
    size_t bytes;
    unsigned inst; /* the instance that owns the carrier and every block in it */
    bool main;     /* the instance's main carrier (cfg.mmbcs): never given back */
} mbc; /* padded to 32 bytes: the blocks after it are 8-aligned */

/* Free mbc blocks, in one address-ordered list per instance; the link is after the header. */
typedef struct freeblk {
    blk h;
    struct freeblk *next;
} freeblk;

typedef struct seg {
    char *base;
    size_t bytes;
    bool pow; /* a multiblock carrier's power-of-two segment (OTP 25's ERTS_MSEG_FLG_2POW) */
} seg;

/* One allocator instance with its own mseg instance: carriers, free blocks, segment cache. */
typedef struct inst {
    struct tc_mseg *co; /* whose segment caches its sbcs use: its own source's, or the source
                         * it shares them with (tc_mseg_share_cache) */
    mbc *carriers;
    size_t mbcs; /* multiblock carriers held but the main one (get_next_mbc_size's count) */
    freeblk *free_list;
    seg *cache;         /* oldest first, newest last */
    unsigned ncached;
    size_t cmin, cmax;  /* best_whole: the remembered least and largest cached sizes */
    sbc *sbcs;          /* the live sbcs, mseg's and sys_alloc's */
    size_t msbcs;       /* of them from mseg (erts: sbcs.carriers[ERTS_CRR_ALLOC_MSEG].no) */
    tc_mseg_stats st;
} inst;

struct tc_mseg {
    tc_mseg_config cfg;
    size_t page;
    unsigned cur; /* the calling thread's instance (erts_get_thr_alloc_ix) */
    inst *in;
    tc_mseg_stats total;
    size_t min_seg; /* best_whole: the least segment size asked for (min_seg_size) */
    struct tc_mseg *temp; /* the temp_alloc companion (cfg.temp_mmbcs), or NULL */
    uint64_t checks;      /* the cache check's timeouts passed (tc_mseg_clock) */
    pthread_mutex_t lock; /* used when cfg.thread_safe */
};

/* A counter of instance `i` and the source's total move together. */
#define COUNT(m, i, field, n) ((i)->st.field += (n), (m)->total.field += (n))

/* R13B01's mseg_mutex: one for the whole VM, as erl_mseg.c's static one, shared by every
 * source with cfg.seg_lock (mseg.h). seg_enter and seg_leave bracket each segment call. */
static pthread_mutex_t mseg_mutex = PTHREAD_MUTEX_INITIALIZER;

static void seg_enter(tc_mseg *m, inst *i)
{
    if (!m->cfg.seg_lock)
        return;
    TC_CHECK(pthread_mutex_lock(&mseg_mutex) == 0);
    COUNT(m, i, seg_locked, 1);
}

static void seg_leave(const tc_mseg *m)
{
    if (m->cfg.seg_lock)
        TC_CHECK(pthread_mutex_unlock(&mseg_mutex) == 0);
}

tc_mseg_config tc_mseg_default_config(void)
{
    tc_mseg_config c = {
        .sbct = 512 * 1024,
        .cache_slots = 10,
        .rmcbf = 20,
        .amcbf = 4 * 1024 * 1024,
        .rsbcst = 50,
        .asbcst = TC_MSEG_ASBCST,
        .rsbcmt = 80,
        .mbc_bytes = 1024 * 1024,
        .instances = 2,
        .thread_safe = false,
        .fit = TC_MSEG_FIT_NEWEST_SPLIT,
        .sbc_unit = TC_MSEG_SACRR_UNIT,
        .mmsbc = 256,
    };
    return c;
}

tc_mseg_config tc_mseg_ets_alloc_config(void)
{
    tc_mseg_config c = tc_mseg_default_config();
    c.rsbcst = 20; /* SET_DEFAULT_ALLOC_OPTS: the ERTS_DEFAULT_ALLCTR_INIT value, kept by ets_alloc */
    c.instances = 1;
    /* ERTS_DEFAULT_ALLCTR_INIT smbcs 1 MiB, lmbcs 10 MiB, mbcgs 10, halved by adjust_tpref
     * for the two schedulers the VM runs with (+S 2:2: ERTS_MIN(4, 2), ERTS_MIN(2, 2)). */
    c.smbcs = 512 * 1024;
    c.lmbcs = 5 * 1024 * 1024;
    c.mbcgs = 10;
    return c;
}

tc_mseg_config tc_mseg_temp_alloc_config(const tc_mseg_config *heaps)
{
    tc_mseg_config c = tc_mseg_default_config();
    c.rsbcst = 90; /* set_default_temp_alloc_opts (R10B-2, R13B01 and OTP 25) */
    c.instances = 1;
    c.mmbcs = heaps->temp_mmbcs;
    c.mbc_release = true;
    /* ERTS_DEFAULT_ALLCTR_INIT's smbcs 1 MiB, lmbcs 10 MiB (R10B-2: 5), mbcgs 10, which
     * adjust_tpref leaves (temp_alloc is thread-specific, not thread-preferred): a walk holds
     * one stack, so no more than one carrier beyond the main one, of smbcs. */
    c.smbcs = 1024 * 1024;
    c.lmbcs = 10 * 1024 * 1024;
    c.mbcgs = 10;
    c.fit = heaps->fit;
    c.sbc_unit = heaps->sbc_unit;
    c.cache_slots = heaps->cache_slots;
    c.seg_lock = heaps->seg_lock; /* the VM's one mseg */
    return c;
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

static size_t ceil_pow2(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

/* The size of the next multiblock carrier for a block of `need` bytes. With growth stages:
 * get_next_mbc_size (smbcs, growing by (lmbcs - smbcs) / mbcgs per carrier mapped, lmbcs
 * from the mbcgs-th on). Without: mbc_bytes. Either way at least the block and the carrier
 * header (create_carrier: crr_sz = MBC_HEADER_SIZE + blk_sz when the next size is smaller),
 * so a block under a large sbct gets a carrier of its own size, never one of sbct bytes (an
 * sbct of 64 GiB maps what the block needs, as erl +MHsbct does; on 64-bit adjust_sbct
 * leaves any sbct as given). Grown or staged sizes are mapped as a power-of-two segment
 * (create_carrier's ERTS_MSEG_FLG_2POW: mseg_alloc rounds to the 16 KiB alignment, then to a
 * power of two). */
static size_t next_mbc_bytes(const tc_mseg *m, const inst *i, size_t need)
{
    const tc_mseg_config *c = &m->cfg;
    if (c->mbcgs == 0 && c->mbc_bytes >= need + sizeof(mbc))
        return c->mbc_bytes;
    size_t sz = c->mbcgs == 0         ? c->mbc_bytes
                : i->mbcs >= c->mbcgs ? c->lmbcs
                                      : i->mbcs * (c->lmbcs - c->smbcs) / c->mbcgs + c->smbcs;
    if (sz < need + sizeof(mbc))
        sz = need + sizeof(mbc);
    return ceil_pow2(round_up(sz, TC_MSEG_SACRR_UNIT));
}

static void *map_fresh(tc_mseg *m, inst *i, size_t bytes)
{
    /* cppcheck-suppress invalidFunctionArg ; MAP_ANONYMOUS takes fd -1 (cppcheck's posix.cfg wants >= 0) */
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    COUNT(m, i, carriers_mapped, 1);
    COUNT(m, i, bytes_mapped, bytes);
    return p;
}

static void unmap(tc_mseg *m, inst *i, void *p, size_t bytes, int whole_carrier)
{
    TC_CHECK(munmap(p, bytes) == 0);
    COUNT(m, i, bytes_unmapped, bytes);
    if (whole_carrier)
        COUNT(m, i, carriers_unmapped, 1);
}

static bool main_carrier(tc_mseg *m, inst *i);
static void source_free(tc_mseg *m);
static void sys_unmap(const tc_mseg *m, struct sbc *c, size_t crr);

/* A source without its temp_alloc companion (tc_mseg_new adds it). */
static tc_mseg *source_new(const tc_mseg_config *cfg)
{
    tc_mseg *m = tc_mem_calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cfg = cfg ? *cfg : tc_mseg_default_config();
    if (m->cfg.instances == 0)
        m->cfg.instances = 1;
    if (m->cfg.instances > TC_MSEG_MAX_INSTANCES)
        m->cfg.instances = TC_MSEG_MAX_INSTANCES;
    m->cur = m->cfg.instances > 1 ? 1 : 0;
    m->page = (size_t)sysconf(_SC_PAGESIZE);
    if (m->cfg.sbc_unit == 0)
        m->cfg.sbc_unit = TC_MSEG_SACRR_UNIT;
    m->min_seg = SIZE_MAX;
    if (m->cfg.lmbcs < m->cfg.smbcs)
        m->cfg.mbcgs = 0;
    m->in = tc_mem_calloc(m->cfg.instances, sizeof *m->in);
    if (!m->in)
        goto fail;
    for (unsigned k = 0; k < m->cfg.instances; k++) {
        m->in[k].cmin = SIZE_MAX;
        m->in[k].co = m;
    }
    for (unsigned k = 0; k < m->cfg.instances && m->cfg.cache_slots; k++)
        if (!(m->in[k].cache = tc_mem_calloc(m->cfg.cache_slots, sizeof *m->in[k].cache)))
            goto fail;
    for (unsigned k = 0; k < m->cfg.instances && m->cfg.mmbcs; k++)
        if (!main_carrier(m, &m->in[k]))
            goto fail;
    if (m->cfg.thread_safe && pthread_mutex_init(&m->lock, NULL) != 0)
        goto fail;
    return m;
fail:
    for (unsigned k = 0; m->in && k < m->cfg.instances; k++) {
        while (m->in[k].carriers) {
            mbc *c = m->in[k].carriers;
            m->in[k].carriers = c->next;
            TC_CHECK(munmap(c, c->bytes) == 0);
        }
        tc_mem_free(m->in[k].cache);
    }
    tc_mem_free(m->in);
    tc_mem_free(m);
    return NULL;
}

void tc_mseg_free_discard(tc_mseg *m)
{
    if (!m)
        return;
    m->total.live_blocks = 0;
    for (unsigned k = 0; k < m->cfg.instances; k++) {
        inst *i = &m->in[k];
        i->st.live_blocks = 0;
        while (i->sbcs) {
            sbc *c = i->sbcs;
            const blk *b = (const blk *)(c + 1);
            i->sbcs = c->next;
            if (is_sys(b))
                sys_unmap(m, c, blk_bytes(b));
            else
                unmap(m, i, c, blk_bytes(b), 1);
        }
        i->msbcs = 0;
    }
    tc_mseg_free(m);
}

tc_mseg *tc_mseg_new(const tc_mseg_config *cfg)
{
    tc_mseg *m = source_new(cfg);
    if (!m || !m->cfg.temp_mmbcs)
        return m;
    tc_mseg_config tc = tc_mseg_temp_alloc_config(&m->cfg);
    if (!(m->temp = source_new(&tc))) {
        source_free(m);
        return NULL;
    }
    m->temp->in[0].co = m; /* the thread's segment cache (tc_mseg_share_cache) */
    return m;
}

void tc_mseg_free(tc_mseg *m)
{
    if (!m)
        return;
    source_free(m->temp); /* before the caches its carriers went back to */
    source_free(m);
}

static void source_free(tc_mseg *m)
{
    if (!m)
        return;
    TC_ASSERT(m->total.live_blocks == 0);
    for (unsigned k = 0; k < m->cfg.instances; k++) {
        inst *i = &m->in[k];
        TC_ASSERT(!i->sbcs);
        for (unsigned s = 0; s < i->ncached; s++) /* a sharer's own cache is empty */
            unmap(m, i, i->cache[s].base, i->cache[s].bytes, 1);
        while (i->carriers) {
            mbc *c = i->carriers;
            i->carriers = c->next;
            unmap(m, i, c, c->bytes, 1);
        }
        tc_mem_free(i->cache);
    }
    if (m->cfg.thread_safe)
        pthread_mutex_destroy(&m->lock);
    tc_mem_free(m->in);
    tc_mem_free(m);
}

/* ---- multiblock carriers ------------------------------------------------------------- */

static char *blk_end(const blk *b) { return (char *)(uintptr_t)b + blk_bytes(b); }

/* Inserts a free block in address order, merging with its neighbours: adjacent free blocks
 * are of one carrier, as each carrier starts with its own header, never a block. */
static void free_insert(inst *i, blk *b)
{
    freeblk **pp = &i->free_list, *prev = NULL;
    while (*pp && (char *)*pp < (char *)b) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    freeblk *f = (freeblk *)b, *next = *pp;
    if (next && blk_end(b) == (char *)next) {
        TC_ASSERT(blk_inst(&next->h) == blk_inst(b));
        blk_resize(b, blk_bytes(b) + blk_bytes(&next->h));
        next = next->next;
    }
    if (prev && blk_end(&prev->h) == (char *)b) {
        TC_ASSERT(blk_inst(&prev->h) == blk_inst(b));
        blk_resize(&prev->h, blk_bytes(&prev->h) + blk_bytes(b));
        prev->next = next;
        return;
    }
    f->next = next;
    *pp = f;
}

/* Takes `need` bytes from the front of free block *pp (need <= its size). */
static blk *free_take(freeblk **pp, size_t need)
{
    freeblk *f = *pp;
    if (blk_bytes(&f->h) - need >= MIN_BLOCK) {
        freeblk *rest = (freeblk *)((char *)f + need);
        blk_set(&rest->h, blk_bytes(&f->h) - need, blk_inst(&f->h), 0);
        rest->next = f->next;
        *pp = rest;
        blk_resize(&f->h, need);
    } else {
        *pp = f->next;
    }
    return &f->h;
}

/* UMEMSZ2BLKSZ: the header and the data, in 8-byte units (erts' least block is its free-block
 * structure's size, larger than the model's MIN_BLOCK: no block measured here is that small). */
static size_t mbc_need(size_t bytes) { return bytes + HDR < MIN_BLOCK ? MIN_BLOCK : round_up(bytes + HDR, 8); }

static char *seg_get(tc_mseg *m, inst *i, size_t want, bool pow, size_t *got);
static void seg_bless(tc_mseg *m, inst *i, char *base, size_t bytes, bool pow);

/* A new carrier of `bytes` at `c`, its whole room one free block. */
static void mbc_add(tc_mseg *m, inst *i, mbc *c, size_t bytes, bool is_main)
{
    c->bytes = bytes;
    c->inst = (unsigned)(i - m->in);
    c->main = is_main;
    c->next = i->carriers;
    i->carriers = c;
    if (!is_main)
        i->mbcs++;
    blk *all = (blk *)(c + 1);
    blk_set(all, c->bytes - sizeof *c, c->inst, 0);
    free_insert(i, all);
}

/* erts_alcu_start's main carrier (mmbcs), made at start-up and in use ever since: its pages
 * are touched here, as the VM's are long before any measured loop. */
static bool main_carrier(tc_mseg *m, inst *i)
{
    seg_enter(m, i);
    mbc *c = map_fresh(m, i, m->cfg.mmbcs);
    seg_leave(m);
    if (!c)
        return false;
    memset(c, 0, m->cfg.mmbcs);
    mbc_add(m, i, c, m->cfg.mmbcs, true);
    return true;
}

static blk *mbc_alloc(tc_mseg *m, inst *i, size_t bytes)
{
    size_t need = mbc_need(bytes);
    for (int attempt = 0; attempt < 2; attempt++) {
        for (freeblk **pp = &i->free_list; *pp; pp = &(*pp)->next)
            if (blk_bytes(&(*pp)->h) >= need)
                return free_take(pp, need);
        if (attempt)
            break;
        size_t cbytes = next_mbc_bytes(m, i, need), got = cbytes;
        /* a carrier given back when empty came from mseg, through the segment cache */
        seg_enter(m, i);
        mbc *c = m->cfg.mbc_release ? (mbc *)seg_get(m, i, cbytes, true, &got) : map_fresh(m, i, cbytes);
        seg_leave(m);
        if (!c)
            return NULL;
        mbc_add(m, i, c, got, false);
    }
    return NULL;
}

/* mbc_free (erl_alloc_util.c): a carrier whose last block went back, the main one aside, is
 * destroyed (destroy_carrier), its segment back to mseg: mseg_dealloc, the thread's segment
 * cache. `b` is the free block the release left (merged with its neighbours). */
static void mbc_maybe_release(tc_mseg *m, inst *i, const blk *b)
{
    mbc **cp = &i->carriers;
    while (*cp && !((char *)*cp < (const char *)b && (const char *)b < (char *)*cp + (*cp)->bytes))
        cp = &(*cp)->next;
    mbc *c = *cp;
    TC_ASSERT(c != NULL);
    if (!c || c->main)
        return;
    freeblk **pp = &i->free_list;
    while (*pp && (char *)*pp < (char *)(c + 1))
        pp = &(*pp)->next;
    if (!*pp || (char *)*pp != (char *)(c + 1) || blk_bytes(&(*pp)->h) != c->bytes - sizeof *c)
        return;
    *pp = (*pp)->next;
    *cp = c->next;
    i->mbcs--;
    seg_enter(m, i);
    seg_bless(m, i, (char *)c, c->bytes, true);
    seg_leave(m);
}

/* Resizes an mbc block in place if it can; false when it would have to move. */
static int mbc_resize_in_place(inst *i, blk *b, size_t bytes)
{
    size_t need = mbc_need(bytes);
    size_t have = blk_bytes(b);
    if (need > have) {
        freeblk **pp = &i->free_list;
        while (*pp && (char *)*pp < blk_end(b))
            pp = &(*pp)->next;
        if (!*pp || (char *)*pp != blk_end(b) || have + blk_bytes(&(*pp)->h) < need)
            return 0;
        blk *got = free_take(pp, need - have);
        blk_resize(b, have + blk_bytes(got));
        return 1;
    }
    if (have - need >= MIN_BLOCK) {
        blk *tail = (blk *)((char *)b + need);
        blk_set(tail, have - need, blk_inst(b), 0);
        blk_resize(b, need);
        free_insert(i, tail);
    }
    return 1;
}

/* ---- single-block carriers and the segment cache ------------------------------------- */

/* cache_get_segment (erl_mseg.c), unpowered segments: newest first, the first segment whose
 * excess is a good fit (strictly below rmcbf % and amcbf bytes) is taken whole; when none is,
 * the one with the least excess (the newest of equals) is split, its rest staying cached in
 * the same place. Both count as a hit. Returns the slot taken whole, or -1 when split. */
static int cache_take(tc_mseg *m, inst *i, size_t want, char **base, size_t *got)
{
    int best = -1;
    for (int s = (int)i->ncached - 1; s >= 0; s--) {
        size_t have = i->cache[s].bytes;
        if (have < want || i->cache[s].pow)
            continue;
        size_t excess = have - want;
        if (excess * 100 < (size_t)m->cfg.rmcbf * want && excess < m->cfg.amcbf) {
            *base = i->cache[s].base;
            *got = have;
            memmove(&i->cache[s], &i->cache[s + 1], (i->ncached - (unsigned)s - 1) * sizeof *i->cache);
            i->ncached--;
            return s;
        }
        if (best < 0 || excess < i->cache[best].bytes - want)
            best = s;
    }
    if (best < 0)
        return -2;
    *base = i->cache[best].base;
    *got = want;
    i->cache[best].base += want;
    i->cache[best].bytes -= want;
    return -1;
}

/* R10B-2 erl_mseg.c mseg_alloc's fit test: an excess above amcbf bytes or rmcbf % in pages. */
static int bad_fit(const tc_mseg *m, size_t excess, size_t want)
{
    return excess > m->cfg.amcbf || 100 * (excess / m->page) > (size_t)m->cfg.rmcbf * (want / m->page);
}

static void widen(inst *i, size_t bytes)
{
    if (bytes < i->cmin)
        i->cmin = bytes;
    if (bytes > i->cmax)
        i->cmax = bytes;
}

/* check_cache_limits: the remembered sizes made exact. */
static void exact_limits(inst *i)
{
    i->cmin = SIZE_MAX;
    i->cmax = 0;
    for (unsigned s = 0; s < i->ncached; s++)
        widen(i, i->cache[s].bytes);
}

/* R10B-2 and R13B01 erl_mseg.c mseg_alloc: turned away by the remembered sizes, else the
 * smallest segment that holds `want` (newest first, so the newest of equals), taken whole when
 * its excess is a good fit; the scan leaves the sizes it passed over remembered. Returns the
 * slot taken, or -2. */
static int cache_take_best(tc_mseg *m, inst *i, size_t want, char **base, size_t *got)
{
    if (want < m->min_seg)
        m->min_seg = want;
    if (want > i->cmax || (want < i->cmin && bad_fit(m, i->cmin - want, want)))
        return -2;
    i->cmin = SIZE_MAX; /* the scan remembers the sizes it passes over */
    i->cmax = 0;
    int cand = -1;
    for (int s = (int)i->ncached - 1; s >= 0; s--) {
        size_t have = i->cache[s].bytes;
        if (have >= want && (cand < 0 || have < i->cache[cand].bytes)) {
            if (cand >= 0)
                widen(i, i->cache[cand].bytes);
            cand = s;
        } else {
            widen(i, have);
        }
    }
    if (cand < 0)
        return -2;
    if (bad_fit(m, i->cache[cand].bytes - want, want)) {
        widen(i, i->cache[cand].bytes);
        return -2;
    }
    *base = i->cache[cand].base;
    *got = i->cache[cand].bytes;
    memmove(&i->cache[cand], &i->cache[cand + 1], (i->ncached - (unsigned)cand - 1) * sizeof *i->cache);
    i->ncached--;
    return cand;
}

/* The segment cache an sbc of instance `i` goes through: erl_mseg.c keeps one mseg allocator
 * per thread (ERTS_MSEG_ALLCTR_SS, by erts_get_thr_alloc_ix), shared by every alloc_util
 * allocator that thread calls, so a sharer's sbcs use the calling thread's cache of the source
 * it shares with; the source's own instance N is thread N's (a block another thread frees
 * returns through its owner, release_block). */
static inst *cache_of(const tc_mseg *m, inst *i)
{
    return i->co == m ? i : &i->co->in[i->co->cur];
}

/* cache_get_segment, a power-of-two segment (OTP 25): the newest of the least size class that
 * holds `want` (a power of two itself), its excess unmapped. Returns the slot, or -2. */
static int cache_take_pow(tc_mseg *m, inst *i, size_t want, char **base, size_t *got)
{
    int pick = -1;
    for (int s = (int)i->ncached - 1; s >= 0; s--)
        if (i->cache[s].pow && i->cache[s].bytes >= want && (pick < 0 || i->cache[s].bytes < i->cache[pick].bytes))
            pick = s;
    if (pick < 0)
        return -2;
    seg c = i->cache[pick];
    memmove(&i->cache[pick], &i->cache[pick + 1], (i->ncached - (unsigned)pick - 1) * sizeof *i->cache);
    i->ncached--;
    if (c.bytes > want)
        unmap(m, i, c.base + want, c.bytes - want, 0);
    *base = c.base;
    *got = want;
    return pick;
}

/* mseg_alloc: a segment of `want` bytes for a carrier of instance `i` (a multiblock carrier's
 * when `pow`), from the cache of i's thread or freshly mapped. R10B-2's and R13B01's mseg
 * treats every segment alike; OTP 25's keeps the power-of-two ones apart. */
static char *seg_get(tc_mseg *m, inst *i, size_t want, bool pow, size_t *got)
{
    char *base = NULL;
    tc_mseg *co = i->co;
    inst *ci = cache_of(m, i);
    int took = co->cfg.fit == TC_MSEG_FIT_BEST_WHOLE ? cache_take_best(co, ci, want, &base, got)
               : !ci->ncached                       ? -2
               : pow                                ? cache_take_pow(co, ci, want, &base, got)
                                                    : cache_take(co, ci, want, &base, got);
    if (took != -2) {
        COUNT(m, i, cache_hits, 1);
        return base;
    }
    COUNT(m, i, cache_misses, 1);
    *got = want;
    return map_fresh(m, i, want);
}

static void sbc_link(inst *i, sbc *c)
{
    c->prev = NULL;
    c->next = i->sbcs;
    if (c->next)
        c->next->prev = c;
    i->sbcs = c;
}

/* After an unlink, or a move (mremap) that carried the links along. */
static void sbc_relink(inst *i, sbc *c)
{
    if (c->prev)
        c->prev->next = c;
    else
        i->sbcs = c;
    if (c->next)
        c->next->prev = c;
}

static void sbc_unlink(inst *i, sbc *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        i->sbcs = c->next;
    if (c->next)
        c->next->prev = c->prev;
}

/* A sys_alloc carrier's bytes for a block of `bytes`, and glibc's mapping for it. */
static size_t sys_crr_bytes(size_t bytes) { return round_up(bytes + SBC_HDR, SYS_UNIT); }
static size_t sys_map_bytes(const tc_mseg *m, size_t crr) { return round_up(crr + MALLOC_MAP_EXTRA, m->page); }

/* A sys_alloc carrier of `crr` bytes: glibc's mapping of it, and the carrier in it. */
static char *sys_map(const tc_mseg *m, size_t crr)
{
    /* cppcheck-suppress invalidFunctionArg ; MAP_ANONYMOUS takes fd -1 */
    char *p = mmap(NULL, sys_map_bytes(m, crr), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    /* cppcheck-suppress memleak ; the carrier is the mapping 16 bytes in: sys_unmap finds it */
    return p == MAP_FAILED ? NULL : p + MALLOC_DATA_OFF;
}

/* create_carrier for an sbc: from mseg while the instance holds fewer than mmsbc mseg sbcs,
 * then from sys_alloc, a malloc that glibc maps afresh and unmaps at its free, which mseg's
 * counters and cache never see. */
static blk *sbc_alloc(tc_mseg *m, inst *i, size_t bytes)
{
    size_t crr = 0;
    char *base;
    uint64_t flags = SBC_FLAG;
    if (i->msbcs >= m->cfg.mmsbc) {
        crr = sys_crr_bytes(bytes);
        if (!(base = sys_map(m, crr)))
            return NULL;
        flags |= SYS_FLAG;
        COUNT(m, i, sys_carriers, 1);
    } else {
        size_t want = round_up(bytes + SBC_HDR, m->page); /* mseg_alloc: ERTS_PAGEALIGNED_CEILING */
        seg_enter(m, i);
        base = seg_get(m, i, want, false, &crr);
        seg_leave(m);
        if (!base)
            return NULL;
        i->msbcs++;
    }
    sbc_link(i, (sbc *)base);
    blk *b = (blk *)(base + sizeof(sbc));
    blk_set(b, crr, (unsigned)(i - m->in), flags);
    return b;
}

/* A sys_alloc carrier goes back to malloc, which unmaps it. */
static void sys_unmap(const tc_mseg *m, sbc *c, size_t crr)
{
    TC_CHECK(munmap((char *)c - MALLOC_DATA_OFF, sys_map_bytes(m, crr)) == 0);
}

/* The slot a segment evicts from a full cache, or -1 to unmap the segment instead. R10B-2's
 * and R13B01's mseg_dealloc: the oldest. OTP 25's cache_bless_segment: a power-of-two segment
 * evicts none; another the oldest of the others, and only when all are powers of two the
 * oldest of the least size. */
static int evictee(const tc_mseg *co, const inst *ci, bool pow)
{
    if (co->cfg.fit == TC_MSEG_FIT_BEST_WHOLE)
        return 0;
    if (pow)
        return -1;
    int least = -1;
    for (unsigned s = 0; s < ci->ncached; s++) {
        if (!ci->cache[s].pow)
            return (int)s;
        if (least < 0 || ci->cache[s].bytes < ci->cache[least].bytes)
            least = (int)s;
    }
    return least;
}

/* mseg_dealloc of a carrier's segment of instance `i` (a multiblock carrier's when `pow`):
 * into the cache of i's thread (cache_bless_segment), a free slot taking it as the newest,
 * a full cache evicting (evictee) to make room. best_whole widens the remembered sizes by
 * the segment, and makes them exact when the evicted one was at or beyond them. */
static void seg_bless(tc_mseg *m, inst *i, char *base, size_t bytes, bool pow)
{
    const tc_mseg *co = i->co;
    inst *ci = cache_of(m, i);
    int ev = ci->ncached == co->cfg.cache_slots ? evictee(co, ci, pow) : -2;
    if (co->cfg.cache_slots == 0 || ev == -1) {
        unmap(m, i, base, bytes, 1);
        return;
    }
    int best = co->cfg.fit == TC_MSEG_FIT_BEST_WHOLE, exact = 0;
    if (best)
        widen(ci, bytes);
    if (ev >= 0) {
        size_t old = ci->cache[ev].bytes;
        exact = best && !(ci->cmin < old && old < ci->cmax);
        unmap(m, i, ci->cache[ev].base, old, 1);
        memmove(&ci->cache[ev], &ci->cache[ev + 1], (ci->ncached - (unsigned)ev - 1) * sizeof *ci->cache);
        ci->ncached--;
    }
    ci->cache[ci->ncached] = (seg){base, bytes, pow && !best};
    ci->ncached++;
    if (exact)
        exact_limits(ci);
}

static void sbc_free(tc_mseg *m, inst *i, blk *b)
{
    sbc *c = sbc_of(b);
    sbc_unlink(i, c);
    if (is_sys(b)) {
        sys_unmap(m, c, blk_bytes(b));
        return;
    }
    i->msbcs--;
    COUNT(m, i, sbc_frees, 1);
    seg_enter(m, i);
    seg_bless(m, i, (char *)c, blk_bytes(b), false);
    seg_leave(m);
}

/* R10B-2 erl_mseg.c mseg_realloc (CAN_PARTLY_DESTROY): a shrunk sbc's tail, when a descriptor
 * is free and it is larger than the least segment asked for, stays mapped as the oldest
 * cached segment, the remembered sizes unchanged; otherwise it is unmapped. */
static void sbc_drop_tail(tc_mseg *m, inst *i, char *tail, size_t bytes)
{
    const tc_mseg *co = i->co;
    inst *ci = cache_of(m, i);
    if (co->cfg.fit == TC_MSEG_FIT_BEST_WHOLE && bytes > co->min_seg && ci->ncached < co->cfg.cache_slots) {
        memmove(&ci->cache[1], &ci->cache[0], ci->ncached * sizeof *ci->cache);
        ci->cache[0] = (seg){tail, bytes, false};
        ci->ncached++;
        return;
    }
    unmap(m, i, tail, bytes, 0);
}

/* ---- the block interface ------------------------------------------------------------- */

static blk *hdr_of(const void *block) { return (blk *)((char *)(uintptr_t)block - HDR); }

static inst *owner_of(tc_mseg *m, const blk *b) { return &m->in[blk_inst(b)]; }

static void lock(tc_mseg *m)
{
    if (!m->cfg.thread_safe)
        return;
    TC_CHECK(pthread_mutex_lock(&m->lock) == 0);
    COUNT(m, &m->in[m->cur], locked_calls, 1);
}

static void unlock(tc_mseg *m)
{
    if (m->cfg.thread_safe)
        TC_CHECK(pthread_mutex_unlock(&m->lock) == 0);
}

static blk *new_block(tc_mseg *m, inst *i, size_t bytes)
{
    blk *b;
    if (bytes >= m->cfg.sbct) {
        if ((b = sbc_alloc(m, i, bytes)))
            COUNT(m, i, sbc_blocks, 1);
    } else if ((b = mbc_alloc(m, i, bytes))) {
        COUNT(m, i, mbc_blocks, 1);
    }
    if (b)
        COUNT(m, i, live_blocks, 1);
    return b;
}

/* A block goes back to the instance that owns it, whichever instance frees it: erts frees a
 * block of another instance through that instance's delayed-dealloc queue
 * (erts_alcu_free_thr_pref -> enqueue_dealloc_other_instance, which notifies the owner), and
 * the owner empties it in its aux work (the aux thread for instance 0, a scheduler between
 * processes) and up to two entries at the start of each of its own operations
 * (ERTS_ALCU_HANDLE_DD_IN_OP, ERTS_ALCU_DD_OPS_LIM_LOW). The modelled loops queue one or two
 * blocks per GC and switch processes between GCs, so the owner's next operation finds them
 * freed, as here. Not always on the VM: a queued block can be taken only once thread progress
 * has passed its enqueue (ddq_check_incoming), and a scheduler that went straight from the
 * dirty GC to running the tester has not reported progress yet. Where a dirty GC frees many
 * fragments (floats L = 26000: eight 813 KiB lookup results per GC), the VM's instance maps a
 * fresh sbc for about one lookup in a hundred (887 segment requests, 8-9 of them misses, at
 * +S 1:1 as at 2:2, experiments/beam/tracediff.sh --tester floats 26000); the model, none.
 * At floats L = 22000, 61 to 74 of 1000; with +Mut false (one instance, nothing freed across
 * instances) 5 fresh sbcs beyond the dirty GCs' heaps; the model, none. */
static void release_block(tc_mseg *m, blk *b)
{
    inst *i = owner_of(m, b);
    TC_ASSERT(i->st.live_blocks > 0);
    i->st.live_blocks--;
    m->total.live_blocks--;
    if (is_sbc(b)) {
        sbc_free(m, i, b);
        return;
    }
    free_insert(i, b);
    if (m->cfg.mbc_release)
        mbc_maybe_release(m, i, b);
}

void *tc_mseg_alloc_block(tc_mseg *m, size_t bytes)
{
    if (tc_mem_inject_failure() || bytes > SIZE_MAX / 2)
        return NULL;
    lock(m);
    blk *b = new_block(m, &m->in[m->cur], bytes);
    unlock(m);
    return b ? (char *)b + HDR : NULL;
}

void tc_mseg_free_block(tc_mseg *m, void *block)
{
    if (!block)
        return;
    lock(m);
    release_block(m, hdr_of(block));
    unlock(m);
}

size_t tc_mseg_block_bytes(const void *block)
{
    const blk *b = hdr_of(block);
    return blk_bytes(b) - (is_sbc(b) ? SBC_HDR : HDR);
}
int tc_mseg_block_is_sbc(const void *block) { return is_sbc(hdr_of(block)); }

unsigned tc_mseg_block_instance(const tc_mseg *m, const void *block)
{
    return (unsigned)(owner_of((tc_mseg *)(uintptr_t)m, hdr_of(block)) - m->in);
}

/* A new block from the calling instance, the data copied, the old block released to its owner. */
static void *move_block(tc_mseg *m, void *block, size_t bytes)
{
    blk *b = new_block(m, &m->in[m->cur], bytes);
    if (!b)
        return NULL;
    size_t old = tc_mseg_block_bytes(block);
    memcpy((char *)b + HDR, block, old < bytes ? old : bytes);
    release_block(m, hdr_of(block));
    return (char *)b + HDR;
}

/* resize_carrier's sys_alloc path: realloc, which glibc serves for a mapped chunk by
 * mremap, in either direction, when the page-rounded mapping changes (mremap_chunk). */
static void *sys_resize(tc_mseg *m, inst *i, blk *b, size_t bytes)
{
    size_t want = sys_crr_bytes(bytes), have = blk_bytes(b);
    sbc *c = sbc_of(b);
    if (want != have) {
        char *p = (char *)c - MALLOC_DATA_OFF;
        char *np = mremap(p, sys_map_bytes(m, have), sys_map_bytes(m, want), MREMAP_MAYMOVE);
        if (np == MAP_FAILED)
            return NULL;
        c = (sbc *)(np + MALLOC_DATA_OFF);
        sbc_relink(i, c);
        blk_resize((blk *)(c + 1), want);
    }
    return (char *)c + SBC_HDR;
}

/* mseg_realloc of an sbc block's carrier. */
static void *mseg_remap(tc_mseg *m, inst *i, blk *b, size_t bytes)
{
    size_t want = round_up(bytes + SBC_HDR, m->cfg.sbc_unit); /* ERTS_SACRR_UNIT_CEILING */
    size_t have = blk_bytes(b);
    char *base = (char *)sbc_of(b);
    COUNT(m, i, sbc_resizes, 1);
    if (want <= have) {
        size_t diff = have - want;
        if (diff && want < i->co->min_seg)
            i->co->min_seg = want;
        if (diff == 0 || (diff < m->cfg.asbcst && diff * 100 < (size_t)m->cfg.rsbcst * have))
            return base + SBC_HDR; /* small shrink: the carrier keeps its size */
        sbc_drop_tail(m, i, base + want, diff);
        blk_resize(b, want);
        COUNT(m, i, sbc_remaps, 1);
        return base + SBC_HDR;
    }
    char *nb = mremap(base, have, want, MREMAP_MAYMOVE); /* mseg_recreate */
    if (nb == MAP_FAILED)
        return NULL;
    COUNT(m, i, sbc_remaps, 1);
    COUNT(m, i, bytes_mapped, want - have);
    sbc_relink(i, (sbc *)nb);
    blk_resize(hdr_of(nb + SBC_HDR), want);
    return nb + SBC_HDR;
}

/* resize_carrier for an sbc block of the calling instance: mseg_realloc under mseg's lock. */
static void *sbc_resize(tc_mseg *m, inst *i, blk *b, size_t bytes)
{
    if (is_sys(b))
        return sys_resize(m, i, b, bytes);
    seg_enter(m, i);
    void *r = mseg_remap(m, i, b, bytes);
    seg_leave(m);
    return r;
}

static void *realloc_locked(tc_mseg *m, void *block, size_t bytes)
{
    blk *b = hdr_of(block);
    inst *i = owner_of(m, b);
    if (i != &m->in[m->cur])
        return move_block(m, block, bytes); /* realloc_thr_pref: another instance's block moves */
    int want_sbc = bytes >= m->cfg.sbct;
    if (!is_sbc(b)) {
        if (!want_sbc && mbc_resize_in_place(i, b, bytes))
            return block;
        return move_block(m, block, bytes);
    }
    if (!want_sbc) {
        /* do_erts_alcu_realloc: below sbct the block stays in its carrier unless the carrier
         * resized for it (super-aligned unit) would be rsbcmt % or more slack. */
        size_t used = bytes + SBC_HDR, crr = round_up(used, is_sys(b) ? SYS_UNIT : m->cfg.sbc_unit);
        if ((crr - used) * 100 >= (size_t)m->cfg.rsbcmt * crr)
            return move_block(m, block, bytes);
    }
    return sbc_resize(m, i, b, bytes);
}

void *tc_mseg_realloc_block(tc_mseg *m, void *block, size_t bytes)
{
    if (!block)
        return tc_mseg_alloc_block(m, bytes);
    if (tc_mem_inject_failure() || bytes > SIZE_MAX / 2)
        return NULL;
    lock(m);
    void *r = realloc_locked(m, block, bytes);
    unlock(m);
    return r;
}

unsigned tc_mseg_instance_set(tc_mseg *m, unsigned ix)
{
    unsigned was = m->cur;
    TC_ASSERT(ix < m->cfg.instances);
    m->cur = ix < m->cfg.instances ? ix : was;
    return was;
}

tc_result tc_mseg_share_cache(tc_mseg *m, tc_mseg *with)
{
    if (!m || !with || m == with || m->cfg.instances != 1 || m->in[0].ncached || m->in[0].co != m ||
        with->in[0].co != with)
        return TC_EBADARG;
    m->in[0].co = with;
    return TC_OK;
}

/* mseg_check_cache (erl_mseg.c): the oldest segment of the least power-of-two size class
 * when one is cached, else the oldest other one, unmapped. */
static void check_cache(tc_mseg *m, inst *i)
{
    int drop = -1;
    for (unsigned s = 0; s < i->ncached; s++)
        if (i->cache[s].pow && (drop < 0 || i->cache[s].bytes < i->cache[drop].bytes))
            drop = (int)s;
    for (unsigned s = 0; drop < 0 && s < i->ncached; s++)
        drop = (int)s;
    if (drop < 0)
        return;
    seg_enter(m, i);
    unmap(m, i, i->cache[drop].base, i->cache[drop].bytes, 1);
    seg_leave(m);
    memmove(&i->cache[drop], &i->cache[drop + 1], (i->ncached - (unsigned)drop - 1) * sizeof *i->cache);
    i->ncached--;
    COUNT(m, i, cache_checks, 1);
}

void tc_mseg_clock(tc_mseg *m, uint64_t now_ns)
{
    if (m->cfg.fit != TC_MSEG_FIT_NEWEST_SPLIT)
        return;
    lock(m);
    while ((m->checks + 1) * TC_MSEG_CHECK_NS <= now_ns) {
        m->checks++;
        for (unsigned k = 0; k < m->cfg.instances; k++)
            check_cache(m, &m->in[k]);
    }
    unlock(m);
}

unsigned tc_mseg_instance_get(const tc_mseg *m) { return m->cur; }
tc_mseg *tc_mseg_temp(const tc_mseg *m) { return m ? m->temp : NULL; }
unsigned tc_mseg_instances(const tc_mseg *m) { return m->cfg.instances; }

const tc_mseg_stats *tc_mseg_stats_get(const tc_mseg *m) { return &m->total; }

const tc_mseg_stats *tc_mseg_instance_stats(const tc_mseg *m, unsigned ix)
{
    return ix < m->cfg.instances ? &m->in[ix].st : NULL;
}

const tc_mseg_config *tc_mseg_config_get(const tc_mseg *m) { return &m->cfg; }

unsigned tc_mseg_instance_cached(const tc_mseg *m, unsigned ix) { return ix < m->cfg.instances ? m->in[ix].ncached : 0; }

unsigned tc_mseg_cached(const tc_mseg *m)
{
    unsigned n = 0;
    for (unsigned k = 0; k < m->cfg.instances; k++)
        n += m->in[k].ncached;
    return n;
}
