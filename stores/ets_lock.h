/*
 * ets_lock.h — the locks an ETS operation takes before it touches a table, one lock mode
 * per era/option (erts: erl_db.c db_get_table / db_lock / db_unlock and the R13B
 * meta_main_tab locks; erl_db_hash.c RLOCK_HASH / WLOCK_HASH and the bucket lock array;
 * erl_db_util.h DB_LOCK_FREE; erl_db.c db_init_lock for the frequent-read lock type).
 *
 * Every lock is a real lock taken by real threads:
 *   none               -smp disable (and the newest VM with one scheduler): no lock at all.
 *   r13b               the meta-table slot lock (a spinlock, held only while the table is
 *                      found and a reference to it taken, an atomic increment that keeps
 *                      it alive until the operation drops it), then the table rwlock: read
 *                      for lookups, write for anything that changes the table.
 *   write_concurrency  the table rwlock taken for reading by every operation, plus one of
 *                      an array of cache-line padded bucket rwlocks (64 by default) chosen
 *                      by hash & (count - 1): read for lookups, write for changes.
 *   read_concurrency   the table lock is reader-optimised (reader groups: a reader touches
 *                      only its own group's cache line; a writer waits for every group).
 * The meta-table lock is a separate switch, so R13B's fine-locked table (the seed's
 * {write_concurrency, true}) is write_concurrency plus the meta lock.
 *
 * Table and bucket locks are split because a writer that makes the table grow must drop
 * its bucket lock and take another while still holding the table lock (erl_db_hash.c grow).
 */
#ifndef TC_ETS_LOCK_H
#define TC_ETS_LOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "../terms/base.h"

TC_BEGIN_DECLS

typedef enum tc_ets_lock_mode {
    TC_ETS_LOCK_NONE,
    TC_ETS_LOCK_R13B,
    TC_ETS_LOCK_WRITE_CONCURRENCY,
    TC_ETS_LOCK_READ_CONCURRENCY,
    TC_ETS_LOCK_MODES
} tc_ets_lock_mode;

/* What the operation does to the table: lookups read, everything else writes. */
typedef enum tc_ets_access { TC_ETS_READ, TC_ETS_WRITE } tc_ets_access;

#define TC_ETS_BUCKET_LOCKS_DEFAULT 64u /* DB_HASH_LOCK_CNT, OTP 17-22 */

/* "none", "r13b", "write_concurrency", "read_concurrency". */
const char *tc_ets_lock_mode_name(tc_ets_lock_mode m);
bool tc_ets_lock_mode_parse(const char *name, tc_ets_lock_mode *out);

typedef struct tc_ets_locks tc_ets_locks;

/* `bucket_locks` (write_concurrency only): a power of two, 0 for the default. */
tc_result tc_ets_locks_new(tc_ets_lock_mode mode, bool meta_lock, unsigned bucket_locks,
                           tc_ets_locks **out) TC_MUST_CHECK;
void tc_ets_locks_free(tc_ets_locks *l);

/* Meta lock (when on) then the table lock in the mode the operation needs. */
void tc_ets_lock_table(tc_ets_locks *l, tc_ets_access a);
void tc_ets_unlock_table(tc_ets_locks *l, tc_ets_access a);
/* The bucket lock of hash value `hval` (write_concurrency only; else nothing). */
void tc_ets_lock_bucket(tc_ets_locks *l, tc_ets_access a, uint64_t hval);
void tc_ets_unlock_bucket(tc_ets_locks *l, tc_ets_access a, uint64_t hval);

TC_END_DECLS

#endif
