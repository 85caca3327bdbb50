# copy/ext: the external term format (term_to_binary / binary_to_term).
list(APPEND TC_COPY_SOURCES copy/ext.c)
