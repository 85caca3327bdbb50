/*
 * libFuzzer target: the ETS form (codec/ext_ets.h) and the compressed object
 * (copy/compressed.h) on any term binary_to_term accepts. Seeds: the golden vectors' ext_hex.
 * The decoder's input is what the encoder wrote, never outside bytes (dec_term trusts a
 * table's bytes), so the target makes its input a term and checks the round trip: the write
 * pass stays within what the size pass counted (the buffer is exactly that long), and the
 * decoded term verifies, equals the term and takes no more words than it (a small slice of
 * a refc binary comes back a heap binary). Then {T, T, 1} stored compressed keyed on T, and
 * stored again over itself (the block reused): its size_object is the object's flat size,
 * and each lookup ([Object]) verifies, equals it and keeps at most size + 2 words.
 */
#include "codec/ext.h"
#include "codec/ext_ets.h"
#include "codec/verify.h"
#include "copy/compressed.h"
#include "terms/arena.h"
#include "terms/compare.h"
#include "terms/size.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_equal(tc_term orig, tc_term copy)
{
    bool eq;
    TC_CHECK(tc_term_verify(copy, NULL));
    TC_CHECK(tc_term_equal(orig, copy, &eq) == TC_OK && eq);
}

static void check_lookup(tc_arena *arena, const tc_copy_compressed *c, tc_term obj)
{
    size_t before = tc_arena_used_words(arena);
    tc_term list;
    TC_CHECK(tc_copy_compressed_out_list(tc_arena_alloc(arena), c, &list, NULL) == TC_OK);
    TC_CHECK(tc_arena_used_words(arena) - before <= tc_copy_compressed_size(c) + 2);
    TC_CHECK(tc_is_list(list) && tc_cdr(list) == TC_NIL);
    check_equal(obj, tc_car(list));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return 0;
    tc_alloc *a = tc_arena_alloc(arena);
    tc_term t;
    size_t bytes;
    uint64_t flat, back_words;
    if (tc_ext_decode(a, data, size, &t, NULL) != TC_OK) {
        tc_arena_free(arena);
        return 0;
    }
    TC_CHECK(tc_term_flat_size(t, &flat) == TC_OK);
    tc_result r = tc_ext_ets_size(t, NULL, &bytes);
    TC_CHECK(r == TC_OK || r == TC_EUNSUPPORTED || r == TC_ELIMIT);
    if (r == TC_OK) {
        unsigned char *buf = tc_mem_alloc(bytes ? bytes : 1), *oh = NULL;
        TC_CHECK(buf);
        size_t len;
        tc_term back;
        TC_CHECK(tc_ext_ets_encode_into(t, NULL, buf, bytes, &oh, &len) == TC_OK && len <= bytes);
        TC_CHECK(tc_ext_ets_decode(a, buf, len, &back) == TC_OK);
        check_equal(t, back);
        TC_CHECK(tc_term_flat_size(back, &back_words) == TC_OK && back_words <= flat);
        tc_ext_ets_release(oh);
        tc_mem_free(buf);

        tc_term elems[3] = {t, t, tc_make_small(1)};
        tc_term obj = tc_term_tuple(a, elems, 3);
        TC_CHECK(obj != TC_NON_VALUE);
        tc_copy_compressed *c = NULL;
        TC_CHECK(tc_copy_compressed_store(NULL, 0, 1, obj, &c, NULL) == TC_OK);
        TC_CHECK(tc_copy_compressed_size(c) == 4 + 2 * flat);
        check_lookup(arena, c, obj);
        size_t stored = tc_copy_compressed_bytes(c);
        TC_CHECK(tc_copy_compressed_store(NULL, 0, 1, obj, &c, NULL) == TC_OK);
        TC_CHECK(tc_copy_compressed_bytes(c) == stored);
        check_lookup(arena, c, obj);
        tc_copy_compressed_free(c);
    }
    tc_arena_free(arena);
    return 0;
}
