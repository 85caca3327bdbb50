/*
 * verify.h — the term checker: is a term graph one the VM could hold? The rules are
 * terms/term.h's (each object's layout, cited there) and those of the modules whose checks it
 * calls (tc_ident_check, tc_fun_check, tc_hashmap_check); this is the model's own checker,
 * not an erts function.
 *
 * It sits on the codec floor beside the reader and the decoder whose output the tests and
 * fuzz targets check with it; the heap and ETS verifiers above call it on every root and
 * stored object.
 */
#ifndef TC_CODEC_VERIFY_H
#define TC_CODEC_VERIFY_H

#include "../terms/term.h"

TC_BEGIN_DECLS

/*
 * Checks one term graph against term.h's rules: tags known, headers well formed, bignums
 * normalised, binary sizes consistent, flatmap keys sorted and unique, atoms in the table,
 * references, external things and funs as tc_ident_check and tc_fun_check see them. Walks iteratively; returns false and says why in `why` (may be NULL).
 */
bool tc_term_verify(tc_term t, const char **why);

TC_END_DECLS

#endif
