/*
 * The lock kinds, and what each stands for:
 * - erts_smp_rwmtx_t of R13B was a pthread rwlock on Linux [I], so the table and bucket
 *   locks are pthread_rwlock_t: what the seed calls "the system's read-write locks".
 * - R13B's meta_main_tab slot locks were padded spinlocks [I]; the slot lock is held only
 *   while the table is looked up and its reference count raised, and the table lock is
 *   taken after the slot lock is dropped (R11B's db_get_table bridges that gap with db_ref;
 *   that R13B kept the bridge is [I]). The operation drops the reference at the end.
 * - ERTS_RWMTX_TYPE_FREQUENT_READ spreads readers over reader groups, each on its own cache
 *   line; a writer announces itself and waits until every group is empty. The groups here
 *   are assigned to threads round-robin; erts assigns them per scheduler.
 */
#include "ets_lock.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#define CACHE_LINE 64u
#define READER_GROUPS 8u

typedef struct padded_rwlock {
    _Alignas(CACHE_LINE) pthread_rwlock_t lck;
} padded_rwlock;

typedef struct reader_group {
    _Alignas(CACHE_LINE) atomic_long readers;
} reader_group;

/* The reader-optimised lock (read_concurrency). */
typedef struct freq_read_lock {
    pthread_mutex_t writers; /* one writer at a time; readers queue on it while one runs */
    _Alignas(CACHE_LINE) atomic_int writer;
    reader_group group[READER_GROUPS];
} freq_read_lock;

struct tc_ets_locks {
    _Alignas(CACHE_LINE) tc_ets_lock_mode mode;
    bool meta_on;
    unsigned bucket_mask;
    pthread_spinlock_t meta;
    atomic_long refc; /* the table's reference count, raised under the meta lock */
    padded_rwlock table;
    freq_read_lock *freq;
    padded_rwlock *buckets;
    void *raw[2]; /* unaligned blocks behind this struct and the bucket array */
};

static const char *const mode_names[TC_ETS_LOCK_MODES] = {"none", "r13b", "write_concurrency",
                                                          "read_concurrency"};

const char *tc_ets_lock_mode_name(tc_ets_lock_mode m)
{
    return (unsigned)m < TC_ETS_LOCK_MODES ? mode_names[m] : "?";
}

bool tc_ets_lock_mode_parse(const char *name, tc_ets_lock_mode *out)
{
    for (unsigned m = 0; m < TC_ETS_LOCK_MODES; m++)
        if (strcmp(name, mode_names[m]) == 0) {
            *out = (tc_ets_lock_mode)m;
            return true;
        }
    return false;
}

/* tc_mem_alloc gives 16-byte alignment; padded locks need a cache line. */
static void *alloc_aligned(size_t bytes, void **raw)
{
    *raw = tc_mem_alloc(bytes + CACHE_LINE);
    if (!*raw)
        return NULL;
    uintptr_t p = ((uintptr_t)*raw + CACHE_LINE - 1) & ~(uintptr_t)(CACHE_LINE - 1);
    memset((void *)p, 0, bytes);
    return (void *)p;
}

static _Thread_local int my_group = -1;
static atomic_uint next_group;

static reader_group *group_of_thread(freq_read_lock *f)
{
    if (my_group < 0)
        my_group = (int)(atomic_fetch_add(&next_group, 1) % READER_GROUPS);
    return &f->group[my_group];
}

static void freq_rlock(freq_read_lock *f)
{
    reader_group *g = group_of_thread(f);
    for (;;) {
        atomic_fetch_add(&g->readers, 1);
        if (!atomic_load(&f->writer))
            return;
        /* A writer is in or waiting: step back and queue behind it. */
        atomic_fetch_sub(&g->readers, 1);
        pthread_mutex_lock(&f->writers);
        pthread_mutex_unlock(&f->writers);
    }
}

static void freq_runlock(freq_read_lock *f) { atomic_fetch_sub(&group_of_thread(f)->readers, 1); }

static void freq_wlock(freq_read_lock *f)
{
    pthread_mutex_lock(&f->writers);
    atomic_store(&f->writer, 1);
    for (unsigned i = 0; i < READER_GROUPS; i++)
        while (atomic_load(&f->group[i].readers) != 0)
            sched_yield();
}

static void freq_wunlock(freq_read_lock *f)
{
    atomic_store(&f->writer, 0);
    pthread_mutex_unlock(&f->writers);
}

tc_result tc_ets_locks_new(tc_ets_lock_mode mode, bool meta_lock, unsigned bucket_locks, tc_ets_locks **out)
{
    if ((unsigned)mode >= TC_ETS_LOCK_MODES || (bucket_locks & (bucket_locks - 1)) != 0)
        return TC_EBADARG;
    void *raw;
    tc_ets_locks *l = alloc_aligned(sizeof *l, &raw);
    if (!l)
        return TC_ENOMEM;
    l->raw[0] = raw;
    l->mode = mode;
    l->meta_on = meta_lock && mode != TC_ETS_LOCK_NONE;
    pthread_spin_init(&l->meta, PTHREAD_PROCESS_PRIVATE);
    pthread_rwlock_init(&l->table.lck, NULL);
    if (mode == TC_ETS_LOCK_WRITE_CONCURRENCY) {
        unsigned n = bucket_locks ? bucket_locks : TC_ETS_BUCKET_LOCKS_DEFAULT;
        l->buckets = alloc_aligned(n * sizeof *l->buckets, &l->raw[1]);
        if (!l->buckets) {
            tc_ets_locks_free(l);
            return TC_ENOMEM;
        }
        for (unsigned i = 0; i < n; i++)
            pthread_rwlock_init(&l->buckets[i].lck, NULL);
        l->bucket_mask = n - 1;
    } else if (mode == TC_ETS_LOCK_READ_CONCURRENCY) {
        void *fraw;
        l->freq = alloc_aligned(sizeof *l->freq, &fraw);
        if (!l->freq) {
            tc_ets_locks_free(l);
            return TC_ENOMEM;
        }
        l->raw[1] = fraw;
        pthread_mutex_init(&l->freq->writers, NULL);
    }
    *out = l;
    return TC_OK;
}

void tc_ets_locks_free(tc_ets_locks *l)
{
    if (!l)
        return;
    if (l->buckets)
        for (unsigned i = 0; i <= l->bucket_mask; i++)
            pthread_rwlock_destroy(&l->buckets[i].lck);
    if (l->freq)
        pthread_mutex_destroy(&l->freq->writers);
    pthread_rwlock_destroy(&l->table.lck);
    pthread_spin_destroy(&l->meta);
    tc_mem_free(l->raw[1]);
    tc_mem_free(l->raw[0]);
}

void tc_ets_lock_table(tc_ets_locks *l, tc_ets_access a)
{
    if (l->mode == TC_ETS_LOCK_NONE)
        return;
    if (l->meta_on) {
        pthread_spin_lock(&l->meta);
        atomic_fetch_add(&l->refc, 1);
        pthread_spin_unlock(&l->meta);
    }
    switch (l->mode) {
    case TC_ETS_LOCK_R13B:
        if (a == TC_ETS_READ)
            pthread_rwlock_rdlock(&l->table.lck);
        else
            pthread_rwlock_wrlock(&l->table.lck);
        break;
    case TC_ETS_LOCK_WRITE_CONCURRENCY: /* writers exclude each other on the bucket lock */
        pthread_rwlock_rdlock(&l->table.lck);
        break;
    case TC_ETS_LOCK_READ_CONCURRENCY:
        if (a == TC_ETS_READ)
            freq_rlock(l->freq);
        else
            freq_wlock(l->freq);
        break;
    default:
        break;
    }
}

void tc_ets_unlock_table(tc_ets_locks *l, tc_ets_access a)
{
    switch (l->mode) {
    case TC_ETS_LOCK_R13B:
    case TC_ETS_LOCK_WRITE_CONCURRENCY:
        pthread_rwlock_unlock(&l->table.lck);
        break;
    case TC_ETS_LOCK_READ_CONCURRENCY:
        if (a == TC_ETS_READ)
            freq_runlock(l->freq);
        else
            freq_wunlock(l->freq);
        break;
    default:
        break;
    }
    if (l->meta_on)
        atomic_fetch_sub(&l->refc, 1);
}

void tc_ets_lock_bucket(tc_ets_locks *l, tc_ets_access a, uint64_t hval)
{
    if (!l->buckets)
        return;
    pthread_rwlock_t *b = &l->buckets[hval & l->bucket_mask].lck;
    if (a == TC_ETS_READ)
        pthread_rwlock_rdlock(b);
    else
        pthread_rwlock_wrlock(b);
}

void tc_ets_unlock_bucket(tc_ets_locks *l, tc_ets_access a, uint64_t hval)
{
    (void)a; /* a pthread rwlock is released the same way in both modes */
    if (l->buckets)
        pthread_rwlock_unlock(&l->buckets[hval & l->bucket_mask].lck);
}
