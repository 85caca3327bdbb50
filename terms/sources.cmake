# terms/: the word, the object layout, constructors, sizes, compare, the term hash, the
# verifier and both codecs (text and the external term format).
set(TC_TERMS_SOURCES
  terms/base.c terms/atom.c terms/arena.c terms/binary.c terms/bignum.c terms/compare.c terms/fun.c terms/hash.c
  terms/hashmap.c terms/ident.c terms/node.c terms/offheap.c terms/ext.c terms/flatmap.c terms/ptrset.c
  terms/printer.c terms/reader.c terms/size.c terms/term.c terms/zlib.c)
