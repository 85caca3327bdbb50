/*
 * libFuzzer target: any bytes as binary_to_term input. Seeds: the golden vectors' ext_hex.
 * An error names a byte inside the input (or, inside a COMPRESSED term, a byte of what it
 * inflated to, never past the size it declared); whatever the decoder accepts must verify, encode
 * (minor 2), decode from that encoding to an equal term of the same size, and encode again
 * to the same bytes (the encoding of a decoded term is canonical).
 */
#include <string.h>

#include "codec/ext.h"
#include "codec/verify.h"
#include "terms/arena.h"
#include "terms/compare.h"
#include "terms/size.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return 0;
    tc_term t, back;
    tc_read_error err = {0};
    tc_result r = tc_ext_decode(tc_arena_alloc(arena), data, size, &t, &err);
    if (r != TC_OK) {
        TC_CHECK(r != TC_ENOMEM);
        if (strncmp(err.message, "uncompressed byte ", 18) == 0) {
            /* inside a COMPRESSED term's inflated bytes: the version byte and the size it declared */
            TC_CHECK(size >= 6 && data[1] == 80);
            uint64_t declared = (uint64_t)data[2] << 24 | (uint64_t)data[3] << 16 | (uint64_t)data[4] << 8 | data[5];
            TC_CHECK(err.offset <= declared + 1);
        } else {
            TC_CHECK(err.offset <= size && strncmp(err.message, "byte ", 5) == 0);
        }
    } else {
        TC_CHECK(tc_term_verify(t, NULL));
        unsigned char *enc, *enc2;
        size_t len, len2;
        TC_CHECK(tc_ext_encode(t, 2, &enc, &len) == TC_OK);
        TC_CHECK(tc_ext_decode(tc_arena_alloc(arena), enc, len, &back, &err) == TC_OK);
        bool eq;
        TC_CHECK(tc_term_equal(t, back, &eq) == TC_OK && eq);
        uint64_t a, b;
        TC_CHECK(tc_term_flat_size(t, &a) == TC_OK && tc_term_flat_size(back, &b) == TC_OK && a == b);
        TC_CHECK(tc_ext_encode(back, 2, &enc2, &len2) == TC_OK);
        TC_CHECK(len == len2 && memcmp(enc, enc2, len) == 0);
        tc_mem_free(enc);
        tc_mem_free(enc2);
    }
    tc_arena_free(arena);
    return 0;
}
