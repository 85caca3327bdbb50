# copy/: every way a term moves, term to term, into a destination the caller gives.
set(TC_COPY_SOURCES
  copy/copy_struct.c copy/compact.c copy/compressed.c copy/copy_shared.c copy/literal.c copy/memcpy_floor.c copy/copy_shallow_fast.c)
