#include "context_impl.h"

/* Zero is empty everywhere (no atoms, nodes, funs or calls yet; external_atom is
 * TC_NON_VALUE, 0); only the locks need their initializers. */
tc_context tc__context_default = {
    .atoms.lock = PTHREAD_MUTEX_INITIALIZER,
    .nodes.lock = PTHREAD_MUTEX_INITIALIZER,
    .funs.lock = PTHREAD_MUTEX_INITIALIZER,
};
