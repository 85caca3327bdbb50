/*
 * ptrset.h — a set of heap addresses, for walks that must visit each object once
 * (sharing-aware size, the verifier). erts marks visited objects by rewriting their tags in
 * place (size_shared); termcopy keeps the marks beside the term instead, so the source
 * may be read-only and concurrent readers are safe. The counts are the same.
 */
#ifndef TC_PTRSET_H
#define TC_PTRSET_H

#include "term.h"

TC_BEGIN_DECLS

typedef struct tc_ptrset {
    const void **slots;
    size_t cap, n;
} tc_ptrset;

void tc_ptrset_init(tc_ptrset *s);
void tc_ptrset_destroy(tc_ptrset *s);
/* Adds p. Returns 1 if it was new, 0 if present, -1 when out of memory. */
int tc_ptrset_add(tc_ptrset *s, const void *p);

TC_END_DECLS

#endif
