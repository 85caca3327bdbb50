#include "gen.h"
tc_term tc_gen_term(tc_alloc *a, unsigned max_depth, bool share) { (void)a; (void)max_depth; (void)share; return TC_NIL; }
