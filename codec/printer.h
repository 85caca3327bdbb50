/*
 * printer.h — a term as text, exactly as `io_lib:format("~w", [T])` writes it on OTP 25.
 *
 * Lists print as lists of integers (never as strings), binaries as bytes with a trailing
 * `V:N` segment for leftover bits, atoms are quoted only when they must be, and floats take
 * the shortest digits that read back to the same double, placed as io_lib_format does
 * (`1.0`, `0.5`, `1.0e3`, `1.0e-4`). The walk is iterative.
 */
#ifndef TC_PRINTER_H
#define TC_PRINTER_H

#include "../terms/term.h"

TC_BEGIN_DECLS

/* *text is NUL-terminated, from tc_mem_alloc; free it with tc_mem_free. */
tc_result tc_term_print(tc_term t, char **text, size_t *len) TC_MUST_CHECK;

/* The ~w text of a double into `out` (at least 32 bytes); returns its length. */
size_t tc_float_format(double d, char *out);

TC_END_DECLS

#endif
