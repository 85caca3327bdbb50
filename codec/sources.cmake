# codec/: the text reader and `~w` printer, the external term format (zlib for COMPRESSED
# terms), and the term verifier.
set(TC_CODEC_SOURCES codec/ext.c codec/ext_ets.c codec/printer.c codec/reader.c codec/verify.c codec/zlib.c)
