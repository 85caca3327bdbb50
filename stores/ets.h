/*
 * ets.h — an ETS `set` table: the VM's linear-hashing hash table with its real locks
 * (erts: erl_db_hash.c db_put_hash, db_get_hash, db_erase_hash, grow, the HashDbTerm node;
 * erl_db_util.c db_store_term / db_store_term_comp and db_do_update_element; erl_db.c
 * ets:update_counter/3 and the table locking around every BIF).
 *
 * Objects are tuples keyed on element `keypos`. Each sits in a node on a bucket chain with
 * its hash value (compared before the key) and its stored form: the compact DbTerm of
 * copy/compact.h, or for a `compressed` table the compressed DbTerm of copy/compressed.h
 * (the top tuple and the key as they are, every other non-immediate element in the ETS
 * form of the external format, codec/ext_ets.h). The bucket array is segmented (a first segment of 256 slots,
 * then 2048 per segment); the table grows one bucket split at a time, under the lock of the
 * bucket split, when an insert of a new key takes it past its era's load (tc_ets_grow,
 * heaps/policy.h): OTP 25 splits past one object per active bucket (GROW_LIMIT), R13B01 past
 * seven (nactive * (CHAIN_LEN + 1)), R10B-2 once nitems / nactive exceeds CHAIN_LEN 6. So a
 * 2009 lookup on a full table walks about four nodes of a seven-node chain, one today.
 *
 * A lookup copies out under the lock: the stored words with copy_shallow into ONE
 * allocation of size + 2 words from the caller's allocator, the object then the cons cell
 * of the one-element list. When the allocator is a process heap that allocation is HAlloc,
 * so it lands on the heap or in a fragment exactly as erts' build_term_list does; whether a
 * GC follows (GC-after-BIF) is the process layer's decision, not the table's. A compressed
 * table decodes instead, into the same one allocation, and gives back what decoding did not
 * use (HRelease, copy/compressed.h).
 *
 * update_counter changes the stored counter in place when old and new value are both small
 * integers (db_do_update_element writes the word into the DbTerm, a compressed one too); a
 * bignum on either side needs a new stored object, as the VM's resize path (which reads a
 * compressed object from a temporary uncompressed copy). Locks: see ets_lock.h.
 *
 * Memory: tc_ets_info's memory_words is what ets:info(T, memory) counts for the objects: per
 * object one HashDbTerm block (erts_db_alloc of offsetof(HashDbTerm, dbterm) plus the
 * DbTerm: 2 + 2 + size words for a plain table, 2 + db_size_dbterm_comp / 8 for a compressed
 * one). The table's own structures (DbTable, the segments of buckets, the locks) are not in
 * it: the VM's figure for a table is that plus a base that changes with the bucket count.
 *
 * Where this differs from erts, and why:
 * - The hash is termcopy's own (terms/hash.h), not make_internal_hash; its values are
 *   reduced below MAX_HASH as the VM's are, so lock and bucket choice follow the same
 *   arithmetic.
 * - Each object is one block from the table's own ets_alloc source (alloc/mseg.h
 *   tc_mseg_ets_alloc_config: multiblock carriers below sbct 512 KiB, single-block ones
 *   above, rsbcst 20), the chain's node (next, hvalue) then the stored form, as erts
 *   allocates HashDbTerm with its DbTerm (ERTS_ALC_T_DB_TERM, erl_alloc.types). The block
 *   is the size of erts' in every era (the era's header, tc_ets_term_head_bytes, then the
 *   words: for {I, hello} 56 bytes in OTP 25, 80 in R13B01 and 88 in R10B-2, each with its
 *   header word in the carrier; 8 more with owner_word, the allocator's address R13B01's SMP
 *   emulator keeps in each block). So an object's pages fault as the VM's do:
 *   an insert writes fresh carrier pages, and an overwrite with an object of the same size
 *   reuses the old block in place (db_put_hash -> replace_dbterm -> db_store_term), writing
 *   no new page; a different size takes a new block, the node moving with it. The VM's table uses
 *   the ets_alloc instance of the scheduler that runs the BIF; the model gives each table
 *   one instance, taking its mutex with alloc_lock as R13B01's SMP emulator takes the
 *   thread-preferred instance's (erl_alloc.types: ets_alloc multi-threaded under smp only;
 *   erl_alloc_util.c erts_alcu_alloc_thr_pref), and none by default as R10B-2, R13B01's
 *   plain emulator and OTP 25's scheduler instances take none (erl_alloc.c
 *   start_au_allocator). Threads writing one table share its instance, so they need
 *   alloc_lock where erts gives each scheduler its own instance, unlocked.
 * - The bucket array keeps OTP 25's segments in every era, where R10B-2 and R13B01 have 256
 *   slots in every segment (SEGSZ) and a segment table that grows by NSEG_INC: where a
 *   bucket's slot lives, not how many nodes its chain holds.
 * - No shrinking, no safe_fixtable (pseudo-deleted objects), no bag types, no decentralised
 *   counters. The segment table has a fixed capacity (about 4M buckets) so it is never
 *   replaced under readers (erts defers that free through thread progress); past it the
 *   chains just get longer.
 * - update_counter takes a 64-bit increment (the VM takes any integer).
 */
#ifndef TC_ETS_H
#define TC_ETS_H

#include <stdbool.h>
#include <stdint.h>

#include "../alloc/mseg.h"
#include "../copy/copy_shallow_fast.h"
#include "../copy/stats.h"
#include "../heaps/policy.h"
#include "ets_lock.h"
#include "../terms/term.h"

TC_BEGIN_DECLS

typedef struct tc_ets_opts {
    tc_ets_lock_mode lock_mode;
    bool meta_lock;        /* take R13B's meta-table lock first (default: r13b only) */
    unsigned bucket_locks; /* write_concurrency: a power of two, 0 = 64 */
    bool compressed;       /* [compressed]: copy/compressed.h's stored form; lookups decode */
    unsigned keypos;       /* 1-based key element */
    tc_copy_out copy_out;  /* the lookup's copy-out: copy_shallow, or the proposal (copy_shallow_fast.h) */
    tc_ets_grow grow;      /* when an insert splits a bucket: the era's rule */
    tc_ets_term_head term_head; /* an object block's header: the era's HashDbTerm */
    bool owner_word;            /* each block has one word more (R13B01's SMP ets_alloc) */
    bool alloc_lock;            /* every call into the objects' ets_alloc source takes its mutex:
                                   the era locks (R13B01's SMP emulator), or two threads write */
} tc_ets_opts;

/* The bytes an object's block has before its words under `h` (32, 56, 64). */
size_t tc_ets_term_head_bytes(tc_ets_term_head h);

/* keypos 1, not compressed, default bucket locks, the meta lock for r13b, copy_shallow,
 * OTP 25's split rule and object header, no allocator lock. */
tc_ets_opts tc_ets_opts_default(tc_ets_lock_mode mode);

typedef struct tc_ets tc_ets;

tc_result tc_ets_new(const tc_ets_opts *opts, tc_ets **out) TC_MUST_CHECK;
/* Frees every object and the table. Nobody may be using it. */
void tc_ets_free(tc_ets *t);
/* The table's ets_alloc source, for its counters (carriers mapped, blocks). */
const tc_mseg *tc_ets_mem(const tc_ets *t);
/* The table's single-block carriers go through the segment caches of `heaps` from now on
 * (alloc/mseg.h tc_mseg_share_cache: one cache per thread, whichever allocator calls it): for
 * a table that one scheduler's processes use, beside their heaps. Its inserts then size
 * their objects on heaps' temp_alloc too (db_store_term's size_object, alloc/estack.h; not for
 * a compressed table, whose db_store_term_comp walks its own way). Call it before the first
 * insert; `heaps` outlives the table's objects. */
tc_result tc_ets_share_segments(tc_ets *t, tc_mseg *heaps) TC_MUST_CHECK;

/* The lock phase alone, for measuring it: hashes the key, then takes and releases exactly
 * the locks an operation of access `a` on that key takes, touching nothing else. */
tc_result tc_ets_lock_phase(tc_ets *t, tc_term key, tc_ets_access a) TC_MUST_CHECK;

/* ets:insert/2 of one object: a new key adds a node, an existing one is overwritten.
 * TC_EBADARG when obj is not a tuple with at least keypos elements. */
tc_result tc_ets_insert(tc_ets *t, tc_term obj, tc_copy_stats *stats) TC_MUST_CHECK;

/* ets:lookup/2: *out is [] or [Object], built in `dest` (size + 2 words, one allocation;
 * a compressed table decodes). TC_ENOMEM when dest runs out; the table is unchanged. */
tc_result tc_ets_lookup(tc_ets *t, tc_term key, tc_alloc *dest, tc_term *out,
                        tc_copy_stats *stats) TC_MUST_CHECK;

/* ets:delete/2: frees the object's storage. *found (may be NULL) says if it was there. */
tc_result tc_ets_delete(tc_ets *t, tc_term key, bool *found) TC_MUST_CHECK;

/* ets:update_counter(T, Key, {Pos, Incr}): adds incr to integer element pos and puts the
 * new value in *result (a bignum is built in dest). TC_EBADARG, with nothing changed, when
 * the key is absent, pos is the key or past the tuple, or the element is not an integer. */
tc_result tc_ets_update_counter(tc_ets *t, tc_term key, unsigned pos, int64_t incr, tc_alloc *dest,
                                tc_term *result) TC_MUST_CHECK;

/* Clocking the lock phase: when on, every operation reads CLOCK_MONOTONIC around its
 * lock and unlock calls and adds the time to per-thread totals. Off by default (each
 * interval costs one clock pair, which the reader subtracts); set it while nobody uses the
 * table. An interval over 100 us is most likely a descheduled thread (or a lock holder that
 * was): it is kept apart, so that the OS scheduler does not swamp the lock figures. */
void tc_ets_time_locks(tc_ets *t, bool on);

typedef struct tc_ets_lock_time {
    uint64_t ns;        /* inside lock and unlock calls */
    uint64_t intervals; /* clocked intervals in ns */
    uint64_t dropped;   /* intervals over 100 us, left out of ns */
    uint64_t dropped_ns; /* their total */
} tc_ets_lock_time;
/* This thread's totals so far, over all clocked tables. */
tc_ets_lock_time tc_ets_thread_lock_time(void);

typedef struct tc_ets_info {
    uint64_t objects;      /* ets:info(T, size) */
    uint64_t buckets;      /* active buckets (nactive) */
    uint64_t stored_words; /* words of the stored forms (compact blocks, or compressed DbTerms from tpl) */
    uint64_t stored_bytes; /* bytes of the objects' blocks: node, stored form, the era's header */
    uint64_t memory_words; /* the objects' part of ets:info(T, memory), in words (see above) */
    uint64_t updates_in_place, updates_resized;
} tc_ets_info;
/* Counters are read without locks: exact when nobody is writing. */
tc_ets_info tc_ets_get_info(const tc_ets *t);

/* The table checker, for a quiescent table: every node in the bucket its hash selects, its
 * hash that of its key, no key twice, every stored term well formed and a tuple with a key
 * element, counts and sizes matching the counters. False with the reason in *why. */
bool tc_ets_verify(const tc_ets *t, const char **why);

TC_END_DECLS

#endif
