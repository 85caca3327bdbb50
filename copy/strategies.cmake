# copy/ strategies that need no process heap: size-then-copy, the ETS compact form,
# the sharing-preserving copy, the literal area, the memcpy floor.
list(APPEND TC_COPY_SOURCES
  copy/copy_struct.c copy/compact.c copy/copy_shared.c copy/literal.c copy/memcpy_floor.c)
