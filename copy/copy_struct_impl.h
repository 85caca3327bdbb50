/*
 * copy_struct_impl.h — the per-object steps every copier in copy/ shares: flattening a sub
 * binary (erts does it inline in copy_struct, copy_shallow and copy_shared_perform). A raw
 * copy of an off-heap member (ProcBin, external thing, local fun) is adopted with
 * tc_offheap_adopt (terms/offheap.h).
 */
#ifndef TC_COPY_STRUCT_IMPL_H
#define TC_COPY_STRUCT_IMPL_H

#include <string.h>

#include "../terms/offheap.h"
#include "../terms/term.h"

/*
 * Writes the flattened copy of the sub binary `sb` into dst[0 .. words): the sub binary
 * (when bits remain) first, then a heap binary or ProcBin of exactly its bytes. `real_header`
 * is the header of the binary `sb` points into (passed in because a marking copier may have
 * mangled that word); `words` must be what tc_sub_binary_copy_size counts. Returns the root.
 */
tc_term tc__copy_flatten_sub_binary(const tc_term *sb, tc_term real_header, tc_term *dst, size_t words,
                                   tc_offheap *oh);

/* The only subtags an off-heap member can have (tc_offheap_is_member decides), as
 * copy_shallow_x's switch (erts copy.c) sends only REFC_BINARY, FUN, the EXTERNAL_* and REF
 * things to its off-heap step and copies every other thing raw: floats, bignums, heap
 * binaries and maps skip the call. */
#define TC__COPY_MAYBE_MEMBER                                                                        \
    ((1u << TC_SUBTAG_FUN) | (1u << TC_SUBTAG_REFC_BINARY) | (1u << TC_SUBTAG_EXTERNAL_PID) |      \
     (1u << TC_SUBTAG_EXTERNAL_PORT) | (1u << TC_SUBTAG_EXTERNAL_REF))

static inline bool tc__copy_maybe_member(tc_term header)
{
    return (TC__COPY_MAYBE_MEMBER >> tc_header_subtag(header)) & 1u;
}

/* Copies one boxed object's raw words. Most are floats and small bignums (2 or 3 words), for
 * which a call into libc's memcpy costs more than the copy: erts copies them inline too. */
static inline void tc_copy_object_words(tc_term *dst, const tc_term *src, size_t n)
{
    if (n > 4) {
        memcpy(dst, src, n * sizeof *dst);
        return;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i];
}

#endif
