# terms/: the word encoding and everything built on it alone.
set(TC_TERMS_SOURCES
  terms/base.c terms/atom.c terms/arena.c terms/binary.c terms/bignum.c terms/compare.c
  terms/flatmap.c terms/ptrset.c terms/printer.c terms/reader.c terms/size.c terms/term.c)
