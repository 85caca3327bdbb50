#define _GNU_SOURCE /* mremap, MAP_ANONYMOUS */
#include "mseg.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Every block starts with this header (16 bytes keeps the payload 16-aligned). In an mbc,
 * `bytes` is the whole block including the header; in an sbc it is the whole mapping,
 * whose first 16 bytes are the header (so, as in the VM, creating an sbc writes its first
 * page at once).
 */
typedef struct blk {
    size_t bytes;
    struct mbc *mbc; /* NULL for an sbc */
} blk;

#define HDR sizeof(blk)
#define MIN_BLOCK (2 * HDR) /* a free block needs room for its list link */

typedef struct mbc {
    struct mbc *next;
    size_t bytes;
} mbc; /* 16 bytes: the blocks after it stay 16-aligned */

/* Free mbc blocks, in one address-ordered list across carriers; the link is after the header. */
typedef struct freeblk {
    blk h;
    struct freeblk *next;
} freeblk;

typedef struct seg {
    char *base;
    size_t bytes;
} seg;

struct tc_mseg {
    tc_mseg_config cfg;
    size_t page;
    mbc *carriers;
    freeblk *free_list;
    seg *cache; /* oldest first */
    unsigned ncached;
    tc_mseg_stats st;
};

tc_mseg_config tc_mseg_default_config(void)
{
    tc_mseg_config c = {
        .sbct = 512 * 1024,
        .cache_slots = 10,
        .rmcbf = 20,
        .amcbf = 4 * 1024 * 1024,
        .rsbcst = 50,
        .asbcst = 4 * 1024 * 1024,
        .rsbcmt = 80,
        .mbc_bytes = 1024 * 1024,
    };
    return c;
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

static void *map_fresh(tc_mseg *m, size_t bytes)
{
    /* cppcheck-suppress invalidFunctionArg ; MAP_ANONYMOUS takes fd -1 (cppcheck's posix.cfg wants >= 0) */
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    m->st.carriers_mapped++;
    m->st.bytes_mapped += bytes;
    return p;
}

static void unmap(tc_mseg *m, void *p, size_t bytes, int whole_carrier)
{
    TC_CHECK(munmap(p, bytes) == 0);
    m->st.bytes_unmapped += bytes;
    if (whole_carrier)
        m->st.carriers_unmapped++;
}

tc_mseg *tc_mseg_new(const tc_mseg_config *cfg)
{
    tc_mseg *m = tc_mem_calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cfg = cfg ? *cfg : tc_mseg_default_config();
    m->page = (size_t)sysconf(_SC_PAGESIZE);
    if (m->cfg.mbc_bytes < m->cfg.sbct + HDR + sizeof(mbc))
        m->cfg.mbc_bytes = round_up(m->cfg.sbct + HDR + sizeof(mbc), m->page);
    if (m->cfg.cache_slots) {
        m->cache = tc_mem_calloc(m->cfg.cache_slots, sizeof *m->cache);
        if (!m->cache) {
            tc_mem_free(m);
            return NULL;
        }
    }
    return m;
}

void tc_mseg_free(tc_mseg *m)
{
    if (!m)
        return;
    TC_ASSERT(m->st.live_blocks == 0);
    for (unsigned i = 0; i < m->ncached; i++)
        unmap(m, m->cache[i].base, m->cache[i].bytes, 1);
    while (m->carriers) {
        mbc *c = m->carriers;
        m->carriers = c->next;
        unmap(m, c, c->bytes, 1);
    }
    tc_mem_free(m->cache);
    tc_mem_free(m);
}

/* ---- multiblock carriers ------------------------------------------------------------- */

static char *blk_end(const blk *b) { return (char *)b + b->bytes; }

/* Inserts a free block in address order, merging with neighbours of the same carrier. */
static void free_insert(tc_mseg *m, blk *b)
{
    freeblk **pp = &m->free_list, *prev = NULL;
    while (*pp && (char *)*pp < (char *)b) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    freeblk *f = (freeblk *)b, *next = *pp;
    if (next && next->h.mbc == b->mbc && blk_end(b) == (char *)next) {
        b->bytes += next->h.bytes;
        next = next->next;
    }
    if (prev && prev->h.mbc == b->mbc && blk_end(&prev->h) == (char *)b) {
        prev->h.bytes += b->bytes;
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
    if (f->h.bytes - need >= MIN_BLOCK) {
        freeblk *rest = (freeblk *)((char *)f + need);
        rest->h.bytes = f->h.bytes - need;
        rest->h.mbc = f->h.mbc;
        rest->next = f->next;
        *pp = rest;
        f->h.bytes = need;
    } else {
        *pp = f->next;
    }
    return &f->h;
}

static size_t mbc_need(size_t bytes) { return bytes + HDR < MIN_BLOCK ? MIN_BLOCK : round_up(bytes + HDR, 16); }

static blk *mbc_alloc(tc_mseg *m, size_t bytes)
{
    size_t need = mbc_need(bytes);
    for (int attempt = 0; attempt < 2; attempt++) {
        for (freeblk **pp = &m->free_list; *pp; pp = &(*pp)->next)
            if ((*pp)->h.bytes >= need)
                return free_take(pp, need);
        if (attempt)
            break;
        mbc *c = map_fresh(m, m->cfg.mbc_bytes);
        if (!c)
            return NULL;
        c->bytes = m->cfg.mbc_bytes;
        c->next = m->carriers;
        m->carriers = c;
        blk *all = (blk *)(c + 1);
        all->bytes = c->bytes - sizeof *c;
        all->mbc = c;
        free_insert(m, all);
    }
    return NULL;
}

/* Resizes an mbc block in place if it can; false when it would have to move. */
static int mbc_resize_in_place(tc_mseg *m, blk *b, size_t bytes)
{
    size_t need = mbc_need(bytes);
    if (need > b->bytes) {
        freeblk **pp = &m->free_list;
        while (*pp && (char *)*pp < blk_end(b))
            pp = &(*pp)->next;
        if (!*pp || (char *)*pp != blk_end(b) || (*pp)->h.mbc != b->mbc || b->bytes + (*pp)->h.bytes < need)
            return 0;
        blk *got = free_take(pp, need - b->bytes);
        b->bytes += got->bytes;
        return 1;
    }
    if (b->bytes - need >= MIN_BLOCK) {
        blk *tail = (blk *)((char *)b + need);
        tail->bytes = b->bytes - need;
        tail->mbc = b->mbc;
        b->bytes = need;
        free_insert(m, tail);
    }
    return 1;
}

/* ---- single-block carriers and the segment cache ------------------------------------- */

static blk *sbc_alloc(tc_mseg *m, size_t bytes)
{
    size_t want = round_up(bytes + HDR, m->page);
    unsigned best = m->ncached;
    for (unsigned i = 0; i < m->ncached; i++)
        if (m->cache[i].bytes >= want && (best == m->ncached || m->cache[i].bytes < m->cache[best].bytes))
            best = i;
    char *base;
    size_t got;
    if (best < m->ncached) {
        m->st.cache_hits++;
        seg s = m->cache[best];
        size_t excess = s.bytes - want;
        if (excess <= m->cfg.amcbf && excess * 100 <= (size_t)m->cfg.rmcbf * want) {
            memmove(&m->cache[best], &m->cache[best + 1], (m->ncached - best - 1) * sizeof *m->cache);
            m->ncached--;
            got = s.bytes;
        } else {
            /* A bad fit: split it; the rest stays cached in the same slot. */
            m->cache[best].base = s.base + want;
            m->cache[best].bytes = excess;
            got = want;
        }
        base = s.base;
    } else {
        m->st.cache_misses++;
        base = map_fresh(m, want);
        if (!base)
            return NULL;
        got = want;
    }
    blk *b = (blk *)base;
    b->bytes = got;
    b->mbc = NULL;
    return b;
}

static void sbc_free(tc_mseg *m, blk *b)
{
    if (m->cfg.cache_slots == 0) {
        unmap(m, b, b->bytes, 1);
        return;
    }
    if (m->ncached == m->cfg.cache_slots) {
        unmap(m, m->cache[0].base, m->cache[0].bytes, 1);
        memmove(&m->cache[0], &m->cache[1], (m->ncached - 1) * sizeof *m->cache);
        m->ncached--;
    }
    m->cache[m->ncached].base = (char *)b;
    m->cache[m->ncached].bytes = b->bytes;
    m->ncached++;
}

/* ---- the block interface ------------------------------------------------------------- */

static blk *hdr_of(const void *block) { return (blk *)((char *)(uintptr_t)block - HDR); }

void *tc_mseg_alloc_block(tc_mseg *m, size_t bytes)
{
    if (tc_mem_inject_failure() || bytes > SIZE_MAX / 2)
        return NULL;
    blk *b;
    if (bytes >= m->cfg.sbct) {
        b = sbc_alloc(m, bytes);
        if (b)
            m->st.sbc_blocks++;
    } else {
        b = mbc_alloc(m, bytes);
        if (b)
            m->st.mbc_blocks++;
    }
    if (!b)
        return NULL;
    m->st.live_blocks++;
    return (char *)b + HDR;
}

void tc_mseg_free_block(tc_mseg *m, void *block)
{
    if (!block)
        return;
    blk *b = hdr_of(block);
    TC_ASSERT(m->st.live_blocks > 0);
    m->st.live_blocks--;
    if (b->mbc)
        free_insert(m, b);
    else
        sbc_free(m, b);
}

size_t tc_mseg_block_bytes(const void *block) { return hdr_of(block)->bytes - HDR; }
int tc_mseg_block_is_sbc(const void *block) { return hdr_of(block)->mbc == NULL; }

static void *move_block(tc_mseg *m, void *block, size_t bytes)
{
    /* alloc_block consumes its own injection point; this call already had one. */
    blk *b = bytes >= m->cfg.sbct ? sbc_alloc(m, bytes) : mbc_alloc(m, bytes);
    if (!b)
        return NULL;
    if (b->mbc)
        m->st.mbc_blocks++;
    else
        m->st.sbc_blocks++;
    size_t old = tc_mseg_block_bytes(block);
    memcpy((char *)b + HDR, block, old < bytes ? old : bytes);
    m->st.live_blocks++;
    tc_mseg_free_block(m, block);
    return (char *)b + HDR;
}

void *tc_mseg_realloc_block(tc_mseg *m, void *block, size_t bytes)
{
    if (!block)
        return tc_mseg_alloc_block(m, bytes);
    if (tc_mem_inject_failure() || bytes > SIZE_MAX / 2)
        return NULL;
    blk *b = hdr_of(block);
    int want_sbc = bytes >= m->cfg.sbct;
    if (b->mbc) {
        if (!want_sbc && mbc_resize_in_place(m, b, bytes))
            return block;
        return move_block(m, block, bytes);
    }
    size_t want = round_up(bytes + HDR, m->page);
    if (!want_sbc && (want - (bytes + HDR)) * 100 >= (size_t)m->cfg.rsbcmt * want)
        return move_block(m, block, bytes); /* the resized carrier would be mostly slack */
    if (want <= b->bytes) {
        size_t diff = b->bytes - want;
        if (diff < m->cfg.asbcst && diff * 100 < (size_t)m->cfg.rsbcst * b->bytes)
            return block; /* small shrink: the carrier keeps its size */
        unmap(m, (char *)b + want, diff, 0);
        b->bytes = want;
        m->st.sbc_remaps++;
        return block;
    }
    void *nb = mremap(b, b->bytes, want, MREMAP_MAYMOVE);
    if (nb == MAP_FAILED)
        return NULL;
    m->st.sbc_remaps++;
    m->st.bytes_mapped += want - ((blk *)nb)->bytes;
    ((blk *)nb)->bytes = want;
    return (char *)nb + HDR;
}

const tc_mseg_stats *tc_mseg_stats_get(const tc_mseg *m) { return &m->st; }
const tc_mseg_config *tc_mseg_config_get(const tc_mseg *m) { return &m->cfg; }
unsigned tc_mseg_cached(const tc_mseg *m) { return m->ncached; }
