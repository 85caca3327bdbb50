/*
 * printer.h — a term as text, exactly as `io_lib:format("~w", [T])` writes it on OTP 25.
 *
 * Lists print as lists of integers (never as strings), binaries as bytes with a trailing
 * `V:N` segment for leftover bits, atoms are quoted only when they must be (characters above
 * Latin-1 as \x{HEX}, io_lib:write_atom_as_latin1), and floats as float_to_list(F, [short])
 * writes them (io_lib_format:fwrite_g/1; erts ryu/d2s.c): the shortest digits that read back to
 * the same double, in fixed or exponent form by its rule (`0.0001`, `100.0`, `1.0e3`,
 * `9.007199254740992e15`). The walk is iterative.
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
