/*
 * ext_impl.h — what ext.c and ext_ets.c share. The ETS compressed form is enc_term,
 * encode_size_struct2 and dec_term run with DFLAG_ETS_COMPRESSED / ets_decode (external.c),
 * so it is ext.c's walk and decoder in a mode; ext_ets.c owns what only that mode does: the
 * ProcBins it embeds whole, and their list.
 */
#ifndef TC_EXT_IMPL_H
#define TC_EXT_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "../terms/term.h"
#include "../terms/wstack.h"

/* As ext.c's `minor`: the ETS form (no version byte; the tags below). */
#define TC__EXT_ETS 0u

/* The ETS form's own tags (external.h). */
enum {
    TC__ATOM_INTERNAL_REF2 = 'I',
    TC__BINARY_INTERNAL_REF = 'J',
    TC__ATOM_INTERNAL_REF3 = 'K',
    TC__BIT_BINARY_INTERNAL_REF = 'L'
};

/* ext.c: the walk in the ETS form on stack s (NULL: its own). buf NULL: the size pass (*len
 * is what erts_encode_ext_size_ets counts); else the write pass, with no bounds check, into
 * buf, which holds at least what the size pass counted for t, linking each embedded ProcBin
 * at the head of *oh (*len: the bytes written). */
tc_result tc__ext_ets_walk(tc_term t, tc_wstack *s, unsigned char *buf, unsigned char **oh, size_t *len) TC_MUST_CHECK;
/* ext.c: dec_term with ets_decode: the term at bytes[0..len) into `a`. */
tc_result tc__ext_ets_decode(tc_alloc *a, const unsigned char *bytes, size_t len, tc_term *out) TC_MUST_CHECK;

/* ext_ets.c: the bytes the ETS form gives bitstring `t` when it keeps it a ProcBin (0 when it
 * does not: t is not over a refc binary, or is small enough for a heap binary); `estimate`
 * counts as erts_encode_ext_size_ets does, else as enc_term writes. */
size_t tc__ext_ets_procbin_size(tc_term t, bool estimate);
/* ext_ets.c: what erts_encode_ext_size_ets counts beyond what enc_term writes for bitstring
 * `t` when it is not kept a ProcBin: a sub binary's partial first and last bytes again. */
size_t tc__ext_ets_slice_slack(tc_term t);
/* ext_ets.c: writes that form of `t` at out (tc__ext_ets_procbin_size(t, false) bytes),
 * takes a reference on its binary and links it at the head of *oh. */
void tc__ext_ets_procbin_put(tc_term t, unsigned char *out, unsigned char **oh);
/* ext_ets.c: reads the form whose tag is `tag` (its other bytes at in[0..left)) into `a`:
 * the ProcBin, with a sub binary over it for the bit form; *used: bytes read. TC_EPARSE
 * when cut short, TC_ENOMEM. */
tc_result tc__ext_ets_procbin_get(tc_alloc *a, unsigned tag, const unsigned char *in, size_t left, tc_term *out,
                                  size_t *used) TC_MUST_CHECK;

#endif
