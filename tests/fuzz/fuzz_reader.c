/*
 * libFuzzer target: any bytes as term text. Whatever the reader accepts must verify, print,
 * and read back from its printed form to an equal term with the same sizes.
 */
#include <stdlib.h>

#include "codec/verify.h"
#include "terms/arena.h"
#include "terms/compare.h"
#include "codec/printer.h"
#include "codec/reader.h"
#include "terms/size.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return 0;
    tc_term t, back;
    tc_read_error err = {0};
    /* The round trip is skipped for terms holding over 1 MiB of binaries: `<<0:2147483648>>`
     * is legal, and printing it is gigabytes of work, not a finding. */
    tc_result r = tc_term_read(tc_arena_alloc(arena), (const char *)data, size, &t, &err);
    if (r != TC_OK) {
        TC_CHECK(err.offset <= size);
    } else if (tc_arena_alloc(arena)->offheap->overhead < (1u << 20)) {
        TC_CHECK(tc_term_verify(t, NULL));
        char *text;
        size_t len;
        TC_CHECK(tc_term_print(t, &text, &len) == TC_OK);
        TC_CHECK(tc_term_read(tc_arena_alloc(arena), text, len, &back, &err) == TC_OK);
        bool eq;
        TC_CHECK(tc_term_equal(t, back, &eq) == TC_OK && eq);
        uint64_t a, b;
        TC_CHECK(tc_term_flat_size(t, &a) == TC_OK && tc_term_flat_size(back, &b) == TC_OK && a == b);
        tc_mem_free(text);
    }
    tc_arena_free(arena);
    return 0;
}
