/*
 * copy_shallow_fast_impl.h — which of the proposal's passes runs (copy_shallow_fast.h: PROPOSAL,
 * not the VM). Each call picks the widest the CPU has; a test forces each one in turn, so the
 * narrower ones stay correct on a machine that would never pick them.
 */
#ifndef TC_COPY_SHALLOW_FAST_IMPL_H
#define TC_COPY_SHALLOW_FAST_IMPL_H

#include <stdbool.h>

typedef enum tc__fast_path {
    TC__FAST_AUTO,   /* the widest the CPU has */
    TC__FAST_SCALAR, /* one word at a time */
    TC__FAST_AVX2,   /* four words a vector */
    TC__FAST_AVX512  /* eight words a vector (AVX-512 F and VBMI) */
} tc__fast_path;

/* Makes every later copy-out use `path` (TC__FAST_AUTO: the widest again). False, and nothing
 * changed, when this CPU or compiler does not have it. Tests only: set it before copies run
 * on other threads. */
bool tc__copy_shallow_fast_force(tc__fast_path path);

#endif
