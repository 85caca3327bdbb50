/*
 * libFuzzer target: any bytes as a sequence of ETS operations on one set table, checked
 * against an oracle (the object each key should hold). Seeds: the golden vectors' ext_hex
 * (any bytes are a program). Byte 0 picks the lock mode and `compressed`; then each op byte
 * holds the operation (low 3 bits) and a key of 16 (next 4 bits): keys include 1 and 1.0
 * (different under =:=), bignums, binaries (heap, refc, bitstring), a tuple, a map, a pid.
 * Objects are {Key, Counter, Payload}, read fresh for each insert so the table never sees
 * the lookup key's words. After every operation the table verifies and holds as many
 * objects as the oracle; lookups, deletes and update_counter results match it.
 */
#include <stdio.h>
#include <string.h>

#include "codec/verify.h"
#include "stores/ets.h"
#include "terms/arena.h"
#include "terms/compare.h"
#include "codec/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NKEYS 16
static const char *const key_text[NKEYS] = {
    "1", "1.0", "-1", "0", "a", "'b c'", "[]", "\"str\"", "<<\"k\">>", "<<1:3>>", "{a,1}",
    "#{a => 1}", "123456789012345678901234567890", "-576460752303423489", "<0.1.2>", "<<0:800>>"};
#define NPAYLOADS 8
static const char *const payload_text[NPAYLOADS] = {
    "x", "[1,2,3]", "{p,1.5}", "<<\"payload\">>", "<<0:1000>>", "#{k => [a|b]}", "\"hello\"", "{}"};

typedef struct oracle_entry {
    bool present;
    __int128 counter;
    unsigned payload;
} oracle_entry;

static tc_term read_text(tc_arena *arena, const char *text)
{
    tc_term t;
    TC_CHECK(tc_term_read(tc_arena_alloc(arena), text, strlen(text), &t, NULL) == TC_OK);
    return t;
}

static void format_int(char *buf, size_t cap, __int128 v)
{
    char digits[48];
    size_t n = 0;
    unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    do {
        digits[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    size_t i = 0;
    if (v < 0)
        buf[i++] = '-';
    while (n && i + 1 < cap)
        buf[i++] = digits[--n];
    buf[i] = '\0';
}

static tc_term object_of(tc_arena *arena, unsigned k, const oracle_entry *e)
{
    char num[48], text[256];
    format_int(num, sizeof num, e->counter);
    TC_CHECK(snprintf(text, sizeof text, "{%s,%s,%s}", key_text[k], num, payload_text[e->payload]) < (int)sizeof text);
    return read_text(arena, text);
}

static tc_term integer_of(tc_arena *arena, __int128 v)
{
    char num[48];
    format_int(num, sizeof num, v);
    return read_text(arena, num);
}

static bool equal(tc_term a, tc_term b)
{
    bool eq;
    TC_CHECK(tc_term_equal(a, b, &eq) == TC_OK);
    return eq;
}

static void check_lookup(tc_ets *t, tc_arena *arena, tc_term key, unsigned k, const oracle_entry *e)
{
    tc_term out;
    TC_CHECK(tc_ets_lookup(t, key, tc_arena_alloc(arena), &out, NULL) == TC_OK);
    if (!e->present) {
        TC_CHECK(out == TC_NIL);
        return;
    }
    TC_CHECK(tc_is_list(out) && tc_cdr(out) == TC_NIL);
    TC_CHECK(tc_term_verify(tc_car(out), NULL));
    TC_CHECK(equal(tc_car(out), object_of(arena, k, e)));
}

/* The next n bytes as a little-endian signed integer (fewer when the input ends). */
static int64_t take(const uint8_t **p, const uint8_t *end, unsigned n)
{
    uint64_t v = 0;
    unsigned i = 0;
    for (; i < n && *p < end; i++)
        v |= (uint64_t)*(*p)++ << (8 * i);
    if (i && i < 8 && (v >> (8 * i - 1)) & 1)
        v |= ~UINT64_C(0) << (8 * i);
    return (int64_t)v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    tc_ets_opts o = tc_ets_opts_default((tc_ets_lock_mode)(data[0] % TC_ETS_LOCK_MODES));
    o.compressed = data[0] & 4;
    tc_ets *t;
    tc_arena *arena = tc_arena_new(0);
    TC_CHECK(arena && tc_ets_new(&o, &t) == TC_OK);
    tc_term keys[NKEYS];
    for (unsigned k = 0; k < NKEYS; k++)
        keys[k] = read_text(arena, key_text[k]);
    oracle_entry oracle[NKEYS] = {{0}};
    uint64_t count = 0;
    const uint8_t *p = data + 1, *end = data + size;
    while (p < end) {
        unsigned op = *p & 7, k = (*p >> 3) & 15;
        bool hi = *p++ >> 7;
        oracle_entry *e = &oracle[k];
        switch (op) {
        case 0:
        case 1: { /* insert (a new key or an overwrite) */
            __int128 c = take(&p, end, 1);
            oracle_entry n = {true, hi ? c * ((__int128)1 << 62) : c, /* c may be negative: no shift */ (unsigned)(take(&p, end, 1) & 0xFF) % NPAYLOADS};
            TC_CHECK(tc_ets_insert(t, object_of(arena, k, &n), NULL) == TC_OK);
            count += !e->present;
            *e = n;
            break;
        }
        case 2:
            check_lookup(t, arena, keys[k], k, e);
            break;
        case 3: {
            bool found;
            TC_CHECK(tc_ets_delete(t, keys[k], &found) == TC_OK && found == e->present);
            count -= e->present;
            e->present = false;
            break;
        }
        case 4: { /* update_counter on the counter */
            int64_t incr = take(&p, end, hi ? 8 : 1);
            tc_term r;
            tc_result res = tc_ets_update_counter(t, keys[k], 2, incr, tc_arena_alloc(arena), &r);
            if (!e->present) {
                TC_CHECK(res == TC_EBADARG);
                break;
            }
            TC_CHECK(res == TC_OK);
            e->counter += incr;
            TC_CHECK(equal(r, integer_of(arena, e->counter)));
            break;
        }
        case 5: { /* update_counter on the key, the payload (never an integer) or past the end */
            unsigned pos = (unsigned)(take(&p, end, 1) & 0xFF) % 5;
            if (pos == 2)
                pos = 4;
            tc_term r;
            TC_CHECK(tc_ets_update_counter(t, keys[k], pos, 1, tc_arena_alloc(arena), &r) == TC_EBADARG);
            break;
        }
        case 6: /* an object with no key element */
            TC_CHECK(tc_ets_insert(t, read_text(arena, hi ? "{}" : "[{a,1}]"), NULL) == TC_EBADARG);
            break;
        default:
            TC_CHECK(tc_ets_lock_phase(t, keys[k], hi ? TC_ETS_WRITE : TC_ETS_READ) == TC_OK);
            break;
        }
        TC_CHECK(tc_ets_verify(t, NULL));
        TC_CHECK(tc_ets_get_info(t).objects == count);
    }
    for (unsigned k = 0; k < NKEYS; k++)
        check_lookup(t, arena, keys[k], k, &oracle[k]);
    tc_ets_free(t);
    tc_arena_free(arena);
    return 0;
}
