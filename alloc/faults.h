/*
 * faults.h — minor page faults around a region of code (getrusage ru_minflt).
 *
 * Models no erts mechanism: it measures the OS side of one (a freshly mapped carrier
 * faults each page on first touch, a recycled one does not). Counts the calling thread
 * where the OS can (RUSAGE_THREAD), else the whole process.
 */
#ifndef TC_FAULTS_H
#define TC_FAULTS_H

#include <stdint.h>

#include "../terms/base.h"

TC_BEGIN_DECLS

typedef struct tc_faults {
    uint64_t start;
} tc_faults;

/* Minor faults so far. */
uint64_t tc_faults_minor(void);
static inline void tc_faults_begin(tc_faults *f) { f->start = tc_faults_minor(); }
/* Minor faults since tc_faults_begin. */
static inline uint64_t tc_faults_end(const tc_faults *f) { return tc_faults_minor() - f->start; }

TC_END_DECLS

#endif
