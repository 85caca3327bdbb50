/*
 * termcopy.h — the whole public API in one include: `#include <termcopy/termcopy.h>` with
 * `pkg-config --cflags termcopy` (or CMake's termcopy::termcopy), which put
 * <prefix>/include on the path. Each layer's headers, bottom up (terms -> codec -> alloc ->
 * copy -> heaps -> stores -> scenarios); a program may include any one of them instead, as
 * <termcopy/terms/term.h> and so on. Internals (*_impl.h) are not installed.
 */
#ifndef TC_TERMCOPY_H
#define TC_TERMCOPY_H

#include "terms/arena.h"
#include "terms/atom.h"
#include "terms/base.h"
#include "terms/bignum.h"
#include "terms/binary.h"
#include "terms/compare.h"
#include "terms/flatmap.h"
#include "terms/fun.h"
#include "terms/hash.h"
#include "terms/hashmap.h"
#include "terms/ident.h"
#include "terms/layout.h"
#include "terms/node.h"
#include "terms/offheap.h"
#include "terms/ptrset.h"
#include "terms/size.h"
#include "terms/term.h"
#include "terms/wstack.h"

#include "codec/ext.h"
#include "codec/ext_ets.h"
#include "codec/printer.h"
#include "codec/reader.h"
#include "codec/verify.h"

#include "alloc/estack.h"
#include "alloc/faults.h"
#include "alloc/mseg.h"

#include "copy/compact.h"
#include "copy/compressed.h"
#include "copy/copy_shallow_fast.h"
#include "copy/copy_shared.h"
#include "copy/copy_struct.h"
#include "copy/literal.h"
#include "copy/memcpy_floor.h"
#include "copy/stats.h"

#include "heaps/gc.h"
#include "heaps/heapsize.h"
#include "heaps/pdict.h"
#include "heaps/policy.h"
#include "heaps/proc.h"
#include "heaps/sched.h"
#include "heaps/send.h"
#include "heaps/verify.h"

#include "stores/ets.h"
#include "stores/ets_lock.h"

#include "scenarios/account.h"
#include "scenarios/erasep.h"
#include "scenarios/etsloops.h"
#include "scenarios/lookuploop.h"
#include "scenarios/progress.h"
#include "scenarios/timing.h"
#include "scenarios/vmoverhead.h"
#include "scenarios/vmside.h"
#include "scenarios/workload.h"

#endif
