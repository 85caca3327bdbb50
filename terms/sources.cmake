# terms/: the word, the object layout, constructors, sizes, compare, the term hash.
set(TC_TERMS_SOURCES
  terms/base.c terms/atom.c terms/arena.c terms/binary.c terms/bignum.c terms/compare.c terms/fun.c terms/hash.c
  terms/hashmap.c terms/ident.c terms/node.c terms/offheap.c terms/flatmap.c terms/ptrset.c
  terms/size.c terms/term.c)
