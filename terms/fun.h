/*
 * fun.h — funs as OTP 25 builds them (erts: erl_fun.h ErlFunThing and ErlFunEntry,
 * erl_fun.c erts_put_fun_entry2, erts_new_export_fun_thing, erts_new_local_fun_thing;
 * external.c dec_term NEW_FUN_EXT and EXPORT_EXT; export.c erts_export_get_or_make_stub).
 *
 * Both kinds are one ErlFunThing: [FUN 3, entry*, next, arity | num_free << 8, creator,
 * env..]. A local fun points to its fun entry, which lives off-heap, is shared by every fun
 * object of that fun and counts them (erts_refc_inc on each copy); the fun object is on its
 * heap's off-heap list. An export fun `fun M:F/A` points to the export entry of M:F/A
 * (created as a stub if the module is not loaded, and never freed, as export entries are
 * not), has creator 'external', no environment, and is on no off-heap list.
 *
 * Where termcopy differs: no code is loaded, so an entry's code address and the purge
 * bookkeeping are absent; a fun entry is freed when its last fun object goes (the VM keeps
 * one more reference for the loaded code).
 */
#ifndef TC_FUN_H
#define TC_FUN_H

#include <stdatomic.h>

#include "term.h"

TC_BEGIN_DECLS

typedef struct tc_fun_entry {
    atomic_long refc;
    tc_term module;
    uint32_t index;
    unsigned char uniq[16];
    int32_t old_index, old_uniq;
    unsigned arity;
    struct tc_fun_entry *next;
} tc_fun_entry;

typedef struct tc_export {
    tc_term module, function;
    unsigned arity;
    struct tc_export *next;
} tc_export;

/* The entry of the fun (module, old_uniq, old_index, uniq, index, arity), keyed as
 * erts_put_fun_entry2 keys it (module, old_uniq, old_index), with one new reference. NULL
 * out of memory. */
tc_fun_entry *tc_fun_entry_put(tc_term module, int32_t old_uniq, int32_t old_index, const unsigned char uniq[16],
                               uint32_t index, unsigned arity);
void tc_fun_entry_deref(tc_fun_entry *fe);
/* The export entry of module:function/arity (arity <= 255), created when new; NULL out of memory. */
tc_export *tc_export_get(tc_term module, tc_term function, unsigned arity);

/* `fun M:F/A`. */
tc_term tc_term_export_fun(tc_alloc *a, tc_export *e);
/* A local fun of `fe` (taking over one reference to it) with `num_free` (<= 255) free
 * variables `env` (NULL: all [], to be filled in), made by `creator` (a local or external
 * pid), linked into a->offheap. */
tc_term tc_term_local_fun(tc_alloc *a, tc_fun_entry *fe, tc_term creator, const tc_term *env, size_t num_free);

/* The atom 'external': an export fun's creator. */
tc_term tc_fun_external_atom(void);
static inline bool tc_fun_is_local(const tc_term *p) { return p[TC_FUN_CREATOR] != tc_fun_external_atom(); }
static inline unsigned tc_fun_arity(const tc_term *p) { return (unsigned)(p[TC_FUN_ARITY_FREE] & 0xFF); }
static inline tc_fun_entry *tc_fun_entry_of(const tc_term *p) { return (tc_fun_entry *)(uintptr_t)p[TC_FUN_ENTRY]; }
static inline tc_export *tc_fun_export_of(const tc_term *p) { return (tc_export *)(uintptr_t)p[TC_FUN_ENTRY]; }

/* Checks a fun object's words (entry, sizes, creator); NULL when well formed, else why. */
const char *tc_fun_check(const tc_term *p);

TC_END_DECLS

#endif
