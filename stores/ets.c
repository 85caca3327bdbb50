/*
 * The hash table, as erl_db_hash.c lays it out:
 * - slot i lives in segment (i + 2048 - 256) >> 11 at index i & 2047, so the first segment
 *   has 256 slots and every later one 2048 (SLOT_IX_TO_SEG_IX, FIRST_SEGSZ, EXT_SEGSZ);
 * - hash_to_ix: hval & szm, folded to hval & (szm >> 1) when that slot is not active yet;
 * - a table grows past its era's load (over_load: GROW_LIMIT), by one split: bucket `from` (nactive
 *   with the top bit of szm cleared, or 0 when szm doubles) loses the objects that now
 *   hash to slot nactive. One resizer at a time (begin_resizing), holding the write lock of
 *   the bucket split; since slot and lock both come from the low bits of the hash and the
 *   lock count is at most 256, `from` and `nactive` share that lock;
 * - nactive and szm are read after the bucket lock is taken, szm published before nactive,
 *   so a reader sees any split of its own bucket and no other split changes its slot.
 */
#include "ets.h"

#include <stdatomic.h>
#include <time.h>

#include "../alloc/estack.h"
#include "../codec/verify.h"
#include "../copy/compact.h"
#include "../copy/compressed.h"
#include "../terms/hash.h"
#include "../terms/size.h"
#include "../terms/arena.h"
#include "../terms/bignum.h"
#include "../terms/binary.h"
#include "../terms/wstack.h"

#define FIRST_SEGSZ 256u
#define EXT_SEGSZ_EXP 11
#define EXT_SEGSZ (1u << EXT_SEGSZ_EXP)
#define MAX_SEGS 2048u /* fixed segment table: 256 + 2047 * 2048 slots */
#define SEG_IX(i) (((i) + (EXT_SEGSZ - FIRST_SEGSZ)) >> EXT_SEGSZ_EXP)
/* HashDbTerm's words before its DbTerm (next; hvalue and pseudo_deleted), and DbTerm's
 * before tpl (first_oh, size): erl_db_hash.h, erl_db_util.h. */
#define HASH_NODE_WORDS 2u
#define DBTERM_HEAD_WORDS 2u

/* HashDbTerm's next and hvalue: the stored form follows them in the same ets_alloc block
 * (copy/compact.h, copy/compressed.h at offset sizeof(node)), as erts' DbTerm does. */
typedef struct node {
    struct node *next;
    uint64_t hvalue;
} node;

struct tc_ets {
    tc_ets_opts opts;
    tc_mseg *mem; /* ets_alloc: where the stored objects live */
    tc_mseg *heaps; /* the scheduler's heap source (tc_ets_share_segments): its temp_alloc */
    tc_ets_locks *locks;
    atomic_size_t nactive, szm;
    atomic_bool resizing;
    unsigned nsegs; /* touched only by the one resizer */
    bool timed;     /* clock the lock phase (tc_ets_time_locks) */
    atomic_uint_fast64_t nitems, stored_words, stored_bytes, memory_words, in_place, resized;
    node **seg[MAX_SEGS];
};

/* ---- nodes ------------------------------------------------------------------------------- */

/* The stored form after the node: db_store_term's, or db_store_term_comp's in a compressed
 * table. */
static tc_copy_compact *dbterm(const node *n) { return (tc_copy_compact *)(uintptr_t)(n + 1); }
static tc_copy_compressed *comp(const node *n) { return (tc_copy_compressed *)(uintptr_t)(n + 1); }
static node *node_of(void *stored) { return (node *)((char *)stored - sizeof(node)); }

/* The words of the stored form: the compact block's, or the compressed DbTerm's from tpl. */
static size_t node_words(const tc_ets *t, const node *n)
{
    return t->opts.compressed ? tc_copy_compressed_bytes(comp(n)) / TC_WORD_BYTES - DBTERM_HEAD_WORDS
                              : tc_copy_compact_size(dbterm(n));
}

/* The block's bytes: the node, the stored form and what the era's header adds. */
static size_t node_bytes(const node *n) { return tc_mseg_block_bytes(n); }

/* What ets:info(T, memory) counts for the object: its HashDbTerm block, the node header then
 * the DbTerm (erl_db_hash.c new_dbterm_hash: db_store_term's offset + sizeof(DbTerm) +
 * (size - 1) words, db_store_term_comp's offset + db_size_dbterm_comp). */
static size_t node_memory_words(const tc_ets *t, const node *n)
{
    return HASH_NODE_WORDS + DBTERM_HEAD_WORDS + node_words(t, n);
}

static tc_term node_key(const tc_ets *t, const node *n)
{
    return t->opts.compressed ? tc_copy_compressed_key(comp(n), t->opts.keypos)
                              : tc_tuple_element(tc_copy_compact_term(dbterm(n)), t->opts.keypos);
}

static void count_node(tc_ets *t, const node *n, bool add)
{
    size_t words = node_words(t, n), bytes = node_bytes(n), mem = node_memory_words(t, n);
    if (add) {
        atomic_fetch_add_explicit(&t->stored_words, words, memory_order_relaxed);
        atomic_fetch_add_explicit(&t->stored_bytes, bytes, memory_order_relaxed);
        atomic_fetch_add_explicit(&t->memory_words, mem, memory_order_relaxed);
    } else {
        atomic_fetch_sub_explicit(&t->stored_words, words, memory_order_relaxed);
        atomic_fetch_sub_explicit(&t->stored_bytes, bytes, memory_order_relaxed);
        atomic_fetch_sub_explicit(&t->memory_words, mem, memory_order_relaxed);
    }
}

/* db_store_term or db_store_term_comp, into *np's block (NULL: a new one): the block is
 * reused when the size is the same, else a new one holds the node too (db_realloc_term moves
 * the whole HashDbTerm), and *np is then the node's new place. */
static tc_result store(tc_ets *t, node **np, tc_term obj, tc_copy_stats *stats)
{
    tc_result r;
    void *at;
    if (t->opts.compressed) {
        tc_copy_compressed *c = *np ? comp(*np) : NULL;
        r = tc_copy_compressed_store(t->mem, sizeof(node), t->opts.keypos, obj, &c, stats);
        at = c;
    } else {
        /* db_store_term's size_object_x, its stack on the inserting scheduler's temp_alloc */
        uint64_t words;
        if (t->heaps && (r = tc_estack_size_object(t->heaps, obj, NULL, NULL, &words)) != TC_OK)
            return r;
        tc_copy_compact *c = *np ? dbterm(*np) : NULL;
        size_t head = tc_ets_term_head_bytes(t->opts.term_head) + (t->opts.owner_word ? TC_WORD_BYTES : 0);
        r = tc_copy_compact_store(t->mem, sizeof(node), head, obj, &c, stats);
        at = c;
    }
    if (r == TC_OK)
        *np = node_of(at);
    return r;
}

/* The stored form of `obj`, in a new node. */
static tc_result make_node(tc_ets *t, tc_term obj, uint64_t hval, tc_copy_stats *stats, node **out)
{
    node *n = NULL;
    tc_result r = store(t, &n, obj, stats);
    if (r != TC_OK)
        return r;
    n->hvalue = hval;
    n->next = NULL;
    count_node(t, n, true);
    *out = n;
    return TC_OK;
}

/* replace_dbterm: the object at *link stored again, in its block or, at a new size, in a new
 * one that *link then points to. */
static tc_result restore_node(tc_ets *t, node **link, tc_term obj, tc_copy_stats *stats)
{
    node *n = *link;
    size_t words = node_words(t, n), bytes = node_bytes(n), mem = node_memory_words(t, n);
    tc_result r = store(t, &n, obj, stats);
    if (r != TC_OK)
        return r;
    *link = n;
    atomic_fetch_sub_explicit(&t->stored_words, words, memory_order_relaxed);
    atomic_fetch_sub_explicit(&t->stored_bytes, bytes, memory_order_relaxed);
    atomic_fetch_sub_explicit(&t->memory_words, mem, memory_order_relaxed);
    count_node(t, n, true);
    return TC_OK;
}

static void free_node(tc_ets *t, node *n)
{
    count_node(t, n, false);
    if (t->opts.compressed)
        tc_copy_compressed_free_at(t->mem, comp(n), sizeof(node));
    else
        tc_copy_compact_free_at(t->mem, dbterm(n), sizeof(node));
}

/* ---- the lock phase, optionally clocked ------------------------------------------------- */

/* A clocked interval longer than this is a thread the OS descheduled, not a lock: on a
 * shared machine one such interval would outweigh thousands of lock operations. */
#define DESCHEDULED_NS 100000u

static _Thread_local uint64_t thread_lock_ns, thread_lock_intervals, thread_lock_dropped, thread_lock_dropped_ns;

static uint64_t phase_begin(const tc_ets *t)
{
    struct timespec ts = {0, 0};
    if (t->timed)
        clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void phase_end(const tc_ets *t, uint64_t t0)
{
    if (!t->timed)
        return;
    uint64_t ns = phase_begin(t) - t0;
    if (ns > DESCHEDULED_NS) {
        thread_lock_dropped++;
        thread_lock_dropped_ns += ns;
        return;
    }
    thread_lock_ns += ns;
    thread_lock_intervals++;
}

#if TC_DEBUG_LEVEL >= 2
static void verify_transition(const tc_ets *t, uint64_t hval);
#define VERIFY_TRANSITION(t, hval) verify_transition(t, hval)
#else
#define VERIFY_TRANSITION(t, hval) ((void)0)
#endif

/* The table lock, then the bucket lock, as every operation starts. */
static void enter(tc_ets *t, tc_ets_access a, uint64_t hval)
{
    uint64_t t0 = phase_begin(t);
    tc_ets_lock_table(t->locks, a);
    tc_ets_lock_bucket(t->locks, a, hval);
    phase_end(t, t0);
}

static void leave(tc_ets *t, tc_ets_access a, uint64_t hval)
{
    VERIFY_TRANSITION(t, hval);
    uint64_t t0 = phase_begin(t);
    tc_ets_unlock_bucket(t->locks, a, hval);
    tc_ets_unlock_table(t->locks, a);
    phase_end(t, t0);
}

/* One bucket lock or unlock on its own (an insert that grows the table). */
static void bucket_lock(tc_ets *t, uint64_t hval, bool lock)
{
    uint64_t t0 = phase_begin(t);
    if (lock)
        tc_ets_lock_bucket(t->locks, TC_ETS_WRITE, hval);
    else
        tc_ets_unlock_bucket(t->locks, TC_ETS_WRITE, hval);
    phase_end(t, t0);
}

void tc_ets_time_locks(tc_ets *t, bool on) { t->timed = on; }

tc_ets_lock_time tc_ets_thread_lock_time(void)
{
    tc_ets_lock_time lt = {thread_lock_ns, thread_lock_intervals, thread_lock_dropped, thread_lock_dropped_ns};
    return lt;
}

/* ---- the bucket array ---------------------------------------------------------------- */

static size_t hash_to_ix(const tc_ets *t, uint64_t hval)
{
    size_t nactive = atomic_load_explicit(&t->nactive, memory_order_acquire);
    size_t szm = atomic_load_explicit(&t->szm, memory_order_acquire);
    size_t ix = hval & szm;
    return ix >= nactive ? ix & (szm >> 1) : ix;
}

static node **bucket(const tc_ets *t, size_t ix) { return &t->seg[SEG_IX(ix)][ix & (EXT_SEGSZ - 1)]; }

/* The link that points at the live object with `key`, or at the chain's end. */
static tc_result search(const tc_ets *t, node **link, tc_term key, uint64_t hval, node ***found)
{
    for (; *link; link = &(*link)->next) {
        if ((*link)->hvalue != hval)
            continue;
        bool eq;
        tc_result r = tc_term_key_equal(key, node_key(t, *link), &eq);
        if (r != TC_OK)
            return r;
        if (eq)
            break;
    }
    *found = link;
    return TC_OK;
}

/* Whether nitems objects in nactive buckets call for a split (db_put_hash's test, per era). */
static bool over_load(const tc_ets *t, size_t nitems, size_t nactive)
{
    switch (t->opts.grow) {
    case TC_ETS_GROW_GT_7X:
        return nitems > nactive * 7;
    case TC_ETS_GROW_DIV_GT_6:
        return nitems / nactive > 6;
    case TC_ETS_GROW_GT_1X:
    default:
        return nitems > nactive;
    }
}

/* One split, when the table is past its load (erl_db_hash.c grow). */
static void grow(tc_ets *t)
{
    bool idle = false;
    if (!atomic_compare_exchange_strong(&t->resizing, &idle, true))
        return; /* someone else is splitting: the next insert tries again */
    size_t nactive = atomic_load(&t->nactive), szm = atomic_load(&t->szm);
    if (!over_load(t, atomic_load_explicit(&t->nitems, memory_order_relaxed), nactive))
        goto done;
    size_t from = nactive & (szm >> 1), nszm = szm;
    if (nactive > szm) {
        from = 0;
        nszm = (szm << 1) | 1;
    }
    size_t seg = SEG_IX(nactive);
    if (seg >= t->nsegs) {
        if (seg >= MAX_SEGS)
            goto done;
        node **s = tc_mem_calloc(EXT_SEGSZ, sizeof(node *));
        if (!s)
            goto done; /* no memory to grow: longer chains, not an error */
        t->seg[t->nsegs++] = s;
    }
    bucket_lock(t, from, true);
    atomic_store_explicit(&t->szm, nszm, memory_order_release);
    atomic_store_explicit(&t->nactive, nactive + 1, memory_order_release);
    node **fp = bucket(t, from), **tp = bucket(t, nactive);
    while (*fp) {
        node *n = *fp;
        if (hash_to_ix(t, n->hvalue) == from) {
            fp = &n->next;
        } else {
            *fp = n->next;
            n->next = *tp;
            *tp = n;
        }
    }
    bucket_lock(t, from, false);
done:
    atomic_store(&t->resizing, false);
}

/* ---- the table ----------------------------------------------------------------------- */

size_t tc_ets_term_head_bytes(tc_ets_term_head h)
{
    /* offsetof(HashDbTerm, dbterm), then offsetof(DbTerm, tpl) on 64-bit: first_oh and size;
     * or an ErlOffHeap of three pointers and an int, padded, and size; or the tpl pointer too. */
    static const size_t dbterm_head[] = {2 * 8, 4 * 8 + 8, 8 + 4 * 8 + 8};
    return HASH_NODE_WORDS * TC_WORD_BYTES + dbterm_head[h];
}

tc_ets_opts tc_ets_opts_default(tc_ets_lock_mode mode)
{
    tc_ets_opts o = {mode, mode == TC_ETS_LOCK_R13B, 0, false, 1, TC_COPY_OUT_SHALLOW, TC_ETS_GROW_GT_1X,
                     TC_ETS_TERM_HEAD_FIRST_OH, false, false};
    return o;
}

tc_result tc_ets_new(const tc_ets_opts *opts, tc_ets **out)
{
    /* More bucket locks than first-segment slots would split a bucket pair across two
     * locks during grow. */
    if (opts->keypos == 0 || opts->bucket_locks > FIRST_SEGSZ || opts->grow > TC_ETS_GROW_DIV_GT_6 ||
        opts->term_head > TC_ETS_TERM_HEAD_TPL_OFF_HEAP)
        return TC_EBADARG;
    tc_ets *t = tc_mem_calloc(1, sizeof *t);
    if (!t)
        return TC_ENOMEM;
    t->opts = *opts;
    tc_mseg_config mc = tc_mseg_ets_alloc_config();
    mc.thread_safe = opts->alloc_lock;
    t->mem = tc_mseg_new(&mc);
    t->seg[0] = t->mem ? tc_mem_calloc(FIRST_SEGSZ, sizeof(node *)) : NULL;
    tc_result r = t->seg[0] ? tc_ets_locks_new(opts->lock_mode, opts->meta_lock, opts->bucket_locks, &t->locks)
                            : TC_ENOMEM;
    if (r != TC_OK) {
        tc_mem_free(t->seg[0]);
        tc_mseg_free(t->mem);
        tc_mem_free(t);
        return r;
    }
    t->nsegs = 1;
    atomic_init(&t->nactive, FIRST_SEGSZ);
    atomic_init(&t->szm, FIRST_SEGSZ - 1);
    *out = t;
    return TC_OK;
}

void tc_ets_free(tc_ets *t)
{
    if (!t)
        return;
    /* The objects' blocks go with the table's own ets_alloc source at once; their off-heap
     * references are dropped one by one. */
    size_t nactive = atomic_load(&t->nactive);
    for (size_t ix = 0; ix < nactive; ix++)
        for (node *n = *bucket(t, ix), *next; n; n = next) {
            next = n->next;
            if (t->opts.compressed)
                tc_copy_compressed_discard(comp(n));
            else
                tc_copy_compact_discard(dbterm(n));
        }
    for (unsigned i = 0; i < t->nsegs; i++)
        tc_mem_free(t->seg[i]);
    tc_ets_locks_free(t->locks);
    tc_mseg_free_discard(t->mem);
    tc_mem_free(t);
}

const tc_mseg *tc_ets_mem(const tc_ets *t) { return t->mem; }

tc_result tc_ets_share_segments(tc_ets *t, tc_mseg *heaps)
{
    tc_result r = tc_mseg_share_cache(t->mem, heaps);
    if (r == TC_OK)
        t->heaps = heaps;
    return r;
}

tc_result tc_ets_lock_phase(tc_ets *t, tc_term key, tc_ets_access a)
{
    uint64_t hval;
    tc_result r = tc_term_hash(key, &hval);
    if (r != TC_OK)
        return r;
    enter(t, a, hval);
    leave(t, a, hval);
    return TC_OK;
}

static tc_result key_of(const tc_ets *t, tc_term obj, tc_term *key)
{
    if (!tc_is_tuple(obj) || tc_tuple_arity(obj) < t->opts.keypos)
        return TC_EBADARG;
    *key = tc_tuple_element(obj, t->opts.keypos);
    return TC_OK;
}

tc_result tc_ets_insert(tc_ets *t, tc_term obj, tc_copy_stats *stats)
{
    tc_term key;
    uint64_t hval;
    tc_result r = key_of(t, obj, &key);
    if (r != TC_OK || (r = tc_term_hash(key, &hval)) != TC_OK)
        return r;
    bool added = false;
    enter(t, TC_ETS_WRITE, hval);
    node **link, *n = NULL;
    r = search(t, bucket(t, hash_to_ix(t, hval)), key, hval, &link);
    node *old = r == TC_OK ? *link : NULL;
    if (old) {
        r = restore_node(t, link, obj, stats); /* replace_dbterm */
    } else if (r == TC_OK && (r = make_node(t, obj, hval, stats, &n)) == TC_OK) {
        *link = n; /* the chain's end */
        added = true;
    }
    VERIFY_TRANSITION(t, hval);
    bucket_lock(t, hval, false);
    if (added && over_load(t, atomic_fetch_add_explicit(&t->nitems, 1, memory_order_relaxed) + 1,
                           atomic_load_explicit(&t->nactive, memory_order_relaxed)))
        grow(t);
    uint64_t t0 = phase_begin(t);
    tc_ets_unlock_table(t->locks, TC_ETS_WRITE);
    phase_end(t, t0);
    return r;
}

tc_result tc_ets_lookup(tc_ets *t, tc_term key, tc_alloc *dest, tc_term *out, tc_copy_stats *stats)
{
    uint64_t hval;
    tc_result r = tc_term_hash(key, &hval);
    if (r != TC_OK)
        return r;
    enter(t, TC_ETS_READ, hval);
    node **link;
    r = search(t, bucket(t, hash_to_ix(t, hval)), key, hval, &link);
    if (r == TC_OK) {
        if (!*link)
            *out = TC_NIL;
        else if (t->opts.compressed)
            r = tc_copy_compressed_out_list(dest, comp(*link), out, stats);
        else
            r = tc_copy_out_list(t->opts.copy_out, dest, dbterm(*link), out, stats);
    }
    leave(t, TC_ETS_READ, hval);
    return r;
}

tc_result tc_ets_delete(tc_ets *t, tc_term key, bool *found)
{
    uint64_t hval;
    tc_result r = tc_term_hash(key, &hval);
    if (r != TC_OK)
        return r;
    enter(t, TC_ETS_WRITE, hval);
    node **link, *old = NULL;
    r = search(t, bucket(t, hash_to_ix(t, hval)), key, hval, &link);
    if (r == TC_OK && (old = *link) != NULL) {
        *link = old->next;
        free_node(t, old);
        atomic_fetch_sub_explicit(&t->nitems, 1, memory_order_relaxed);
    }
    leave(t, TC_ETS_WRITE, hval);
    if (found)
        *found = old != NULL;
    return r;
}

/* old + incr as an integer term built in `a` (any size: the sum of magnitudes may carry
 * into a new digit). */
static tc_term add_integer(tc_alloc *a, tc_term old, int64_t incr)
{
    uint64_t tmp;
    size_t n;
    bool neg;
    const uint64_t *d = tc_integer_digits(old, &tmp, &n, &neg);
    uint64_t *sum = tc_mem_alloc((n + 1) * sizeof *sum);
    if (!sum)
        return TC_NON_VALUE;
    bool ineg = incr < 0;
    uint64_t mag = ineg ? (uint64_t)0 - (uint64_t)incr : (uint64_t)incr;
    size_t len = n;
    memcpy(sum, d, n * sizeof *sum);
    if (n == 0 || neg == ineg) { /* magnitudes add */
        sum[n] = 0;
        len = n + 1;
        neg = n == 0 ? ineg : neg;
        for (size_t i = 0; i < len && mag; i++) {
            sum[i] += mag;
            mag = sum[i] < mag; /* carry */
        }
    } else if (n > 1 || d[0] >= mag) { /* |old| >= |incr|: subtract, sign stays */
        for (size_t i = 0; i < n && mag; i++) {
            uint64_t before = sum[i];
            sum[i] -= mag;
            mag = before < mag; /* borrow */
        }
    } else { /* |incr| > |old|, one digit: the sign flips */
        sum[0] = mag - d[0];
        neg = ineg;
    }
    tc_term r = tc_term_integer(a, neg, sum, len);
    tc_mem_free(sum);
    return r;
}

/* The object with element `pos` replaced, in `a` (copy/compact stores it again). */
static tc_term with_element(tc_alloc *a, tc_term obj, unsigned pos, tc_term value)
{
    uint64_t arity = tc_tuple_arity(obj);
    tc_term *p = tc_alloc_words(a, 1 + arity);
    if (!p)
        return TC_NON_VALUE;
    memcpy(p, tc_boxed_val(obj), (1 + arity) * sizeof *p);
    p[pos] = value;
    return tc_make_boxed(p);
}

/* A copy of integer `v` in dest: a bignum has no pointers, so its words are the copy. */
static tc_term integer_to(tc_alloc *dest, tc_term v)
{
    if (tc_is_small(v))
        return v;
    size_t words = 1 + tc_header_arity(tc_boxed_val(v)[0]);
    tc_term *p = tc_alloc_words(dest, words);
    if (!p)
        return TC_NON_VALUE;
    memcpy(p, tc_boxed_val(v), words * sizeof *p);
    return tc_make_boxed(p);
}

/* Under the write lock: the counter update of the object at *link. */
static tc_result update_locked(tc_ets *t, node **link, unsigned pos, int64_t incr, tc_alloc *dest, tc_term *result)
{
    node *n = *link;
    tc_arena *scratch = NULL;
    tc_term obj = TC_NON_VALUE, old;
    bool compressed = t->opts.compressed;
    if (pos > (compressed ? tc_copy_compressed_arity(comp(n)) : tc_tuple_arity(tc_copy_compact_term(dbterm(n)))))
        return TC_EBADARG;
    if (compressed) {
        old = tc_copy_compressed_element(comp(n), pos); /* TC_NON_VALUE: encoded */
    } else {
        obj = tc_copy_compact_term(dbterm(n));
        old = tc_tuple_element(obj, pos);
    }
    tc_result r = TC_OK;
    /* An encoded element is read from a temporary uncompressed copy of the object
     * (db_do_read_element: db_alloc_tmp_uncompressed), as is one about to change size. */
    int64_t sum;
    bool in_place = tc_is_small(old) && !__builtin_add_overflow(tc_small_val(old), incr, &sum) && tc_small_fits(sum);
    if (!in_place && obj == TC_NON_VALUE) {
        if (!(scratch = tc_arena_new(0)))
            return TC_ENOMEM;
        if ((r = tc_copy_compressed_out(tc_arena_alloc(scratch), comp(n), &obj, NULL)) != TC_OK)
            goto out;
        old = tc_tuple_element(obj, pos);
    }
    if (!tc_is_integer(old)) {
        r = TC_EBADARG;
        goto out;
    }
    if (in_place) {
        /* db_do_update_element: an immediate replaces an immediate in the stored words (a
         * compressed object keeps its immediates as they are). */
        if (compressed)
            tc_copy_compressed_set_immediate(comp(n), pos, tc_make_small(sum));
        else
            tc_boxed_val(obj)[pos] = tc_make_small(sum);
        *result = tc_make_small(sum);
        atomic_fetch_add_explicit(&t->in_place, 1, memory_order_relaxed);
        goto out;
    }
    /* The size changes: store a new object, as db_finalize_resize. */
    if (!scratch && !(scratch = tc_arena_new(0))) {
        r = TC_ENOMEM;
        goto out;
    }
    tc_alloc *sa = tc_arena_alloc(scratch);
    tc_term value = add_integer(sa, old, incr);
    if (value == TC_NON_VALUE && tc_is_big(old) && tc_header_arity(tc_boxed_val(old)[0]) == TC_BIG_ARITY_MAX) {
        r = TC_ELIMIT; /* the sum carried past the VM's largest bignum: system_limit */
        goto out;
    }
    tc_term nobj = value == TC_NON_VALUE ? TC_NON_VALUE : with_element(sa, obj, pos, value);
    tc_term res = nobj == TC_NON_VALUE ? TC_NON_VALUE : integer_to(dest, value);
    node *nn;
    if (res == TC_NON_VALUE)
        r = TC_ENOMEM;
    else if ((r = make_node(t, nobj, n->hvalue, NULL, &nn)) == TC_OK) {
        nn->next = n->next;
        *link = nn;
        free_node(t, n);
        *result = res;
        atomic_fetch_add_explicit(&t->resized, 1, memory_order_relaxed);
    }
out:
    tc_arena_free(scratch);
    return r;
}

tc_result tc_ets_update_counter(tc_ets *t, tc_term key, unsigned pos, int64_t incr, tc_alloc *dest, tc_term *result)
{
    if (pos == 0 || pos == t->opts.keypos)
        return TC_EBADARG;
    uint64_t hval;
    tc_result r = tc_term_hash(key, &hval);
    if (r != TC_OK)
        return r;
    enter(t, TC_ETS_WRITE, hval);
    node **link;
    r = search(t, bucket(t, hash_to_ix(t, hval)), key, hval, &link);
    if (r == TC_OK)
        r = *link ? update_locked(t, link, pos, incr, dest, result) : TC_EBADARG;
    leave(t, TC_ETS_WRITE, hval);
    return r;
}

tc_ets_info tc_ets_get_info(const tc_ets *t)
{
    tc_ets_info i = {
        atomic_load_explicit(&t->nitems, memory_order_relaxed),
        atomic_load_explicit(&t->nactive, memory_order_relaxed),
        atomic_load_explicit(&t->stored_words, memory_order_relaxed),
        atomic_load_explicit(&t->stored_bytes, memory_order_relaxed),
        atomic_load_explicit(&t->memory_words, memory_order_relaxed),
        atomic_load_explicit(&t->in_place, memory_order_relaxed),
        atomic_load_explicit(&t->resized, memory_order_relaxed),
    };
    return i;
}

/* ---- the checker ----------------------------------------------------------------------- */

#define FAIL(msg)          \
    do {                   \
        if (why)           \
            *why = (msg);  \
        ok = false;        \
        goto out;          \
    } while (0)

/* A compressed object must decode to a well-formed tuple within its size_object (a small
 * slice of a refc binary comes back smaller) whose key is the stored key. */
static bool check_encoding(const tc_ets *t, const node *n, tc_arena *scratch, const char **why)
{
    tc_term obj;
    bool eq = false;
    uint64_t words = 0;
    if (tc_copy_compressed_out(tc_arena_alloc(scratch), comp(n), &obj, NULL) != TC_OK) {
        *why = "compressed object does not decode";
        return false;
    }
    if (!tc_term_verify(obj, why))
        return false;
    if (tc_term_flat_size(obj, &words) != TC_OK || words > tc_copy_compressed_size(comp(n))) {
        *why = "compressed object decodes to more words than its size_object";
        return false;
    }
    if (tc_tuple_arity(obj) < t->opts.keypos || node_key(t, n) == TC_NON_VALUE ||
        tc_term_key_equal(node_key(t, n), tc_tuple_element(obj, t->opts.keypos), &eq) != TC_OK || !eq) {
        *why = "compressed object does not hold the stored key";
        return false;
    }
    return true;
}

/* What the nodes of the buckets checked so far hold. */
typedef struct tally {
    uint64_t objects, words, bytes, memory;
} tally;

/* Every node of bucket ix: a well-formed stored term (a tuple with a key), its hash that of
 * its key and selecting this bucket, its encoding right in a compressed table, no key
 * twice. Adds the nodes to *n. */
static bool verify_bucket(const tc_ets *t, size_t ix, tc_arena *scratch, tally *n, const char **why)
{
    bool ok = true;
    for (const node *nd = *bucket(t, ix); nd; nd = nd->next) {
        uint64_t h;
        bool eq;
        tc_term stored = t->opts.compressed ? node_key(t, nd) : tc_copy_compact_term(dbterm(nd));
        if (!tc_term_verify(stored, why))
            return false;
        if (!t->opts.compressed && (!tc_is_tuple(stored) || tc_tuple_arity(stored) < t->opts.keypos))
            FAIL("stored object is not a tuple with a key");
        if (tc_term_hash(node_key(t, nd), &h) != TC_OK || h != nd->hvalue)
            FAIL("node hash is not its key's hash");
        if (hash_to_ix(t, nd->hvalue) != ix)
            FAIL("node in the wrong bucket");
        if (t->opts.compressed && !check_encoding(t, nd, scratch, why))
            return false;
        for (const node *m = nd->next; m; m = m->next)
            if (m->hvalue == nd->hvalue && (tc_term_key_equal(node_key(t, nd), node_key(t, m), &eq) != TC_OK || eq))
                FAIL("key stored twice");
        n->objects++;
        n->words += node_words(t, nd);
        n->bytes += node_bytes(nd);
        n->memory += node_memory_words(t, nd);
    }
out:
    return ok;
}

bool tc_ets_verify(const tc_ets *t, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    bool ok = true;
    tc_arena *scratch = tc_arena_new(0);
    size_t nactive = atomic_load(&t->nactive), szm = atomic_load(&t->szm);
    tally n = {0};
    if (!scratch)
        FAIL("out of memory for the checker");
    if ((szm & (szm + 1)) != 0 || nactive <= szm >> 1 || nactive > szm + 1)
        FAIL("nactive and szm disagree");
    if (SEG_IX(nactive - 1) >= t->nsegs)
        FAIL("an active slot has no segment");
    for (size_t ix = 0; ix < nactive && ok; ix++)
        ok = verify_bucket(t, ix, scratch, &n, why);
    if (!ok)
        goto out;
    if (n.objects != atomic_load(&t->nitems))
        FAIL("object count differs from nitems");
    if (n.words != atomic_load(&t->stored_words) || n.bytes != atomic_load(&t->stored_bytes) ||
        n.memory != atomic_load(&t->memory_words))
        FAIL("stored size counters differ from the objects");
out:
    tc_arena_free(scratch);
    return ok;
}

#if TC_DEBUG_LEVEL >= 2
/* Debug level 2: the end of every operation, with its bucket still locked: the bucket it
 * touched must verify (the whole table is verified only when quiescent, tc_ets_verify). */
static void verify_transition(const tc_ets *t, uint64_t hval)
{
    const char *why = NULL;
    tally n = {0};
    tc_mem_unchecked(1);
    tc_arena *scratch = tc_arena_new(0);
    bool ok = scratch && verify_bucket(t, hash_to_ix(t, hval), scratch, &n, &why);
    tc_arena_free(scratch);
    tc_mem_unchecked(0);
    if (!ok)
        tc_assert_fail(__FILE__, __LINE__, why ? why : "out of memory for the checker");
}
#endif
