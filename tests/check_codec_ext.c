/* The external term format: every golden vector byte for byte, minor versions 1 and 2,
 * depth and length, accepted edge encodings, corrupt input (each with its result and byte
 * offset, and nothing leaked), allocation failure, and a random round trip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/ext.h"
#include "codec/verify.h"
#include "fixtures.h"
#include "gen.h"
#include "terms/atom.h"
#include "terms/bignum.h"
#include "terms/binary.h"
#include "terms/flatmap.h"
#include "terms/size.h"

static tc_alloc *arena_alloc(void) { return tc_arena_alloc(tc_fixture_arena()); }

/* ---- bytes and hex ---------------------------------------------------------------------- */

typedef struct bytes {
    unsigned char *b;
    size_t n, cap;
} bytes;

static void put_byte(bytes *x, unsigned v)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 64;
        x->b = realloc(x->b, x->cap);
        ck_assert(x->b != NULL);
    }
    x->b[x->n++] = (unsigned char)v;
}

/* Appends `hex` (spaces ignored) `times` times. */
static void put_hex(bytes *x, const char *hex, size_t times)
{
    while (times-- > 0) {
        for (const char *p = hex; *p; p++) {
            if (*p == ' ')
                continue;
            int hi = tc_hex_digit(p[0]), lo = hi < 0 ? -1 : tc_hex_digit(p[1]);
            ck_assert(hi >= 0 && lo >= 0);
            put_byte(x, (unsigned)(hi * 16 + lo));
            p++;
        }
    }
}

static void put_fill(bytes *x, unsigned v, size_t times)
{
    while (times-- > 0)
        put_byte(x, v);
}

static bytes from_hex(const char *hex)
{
    bytes x = {0};
    put_hex(&x, hex, 1);
    return x;
}

static char *to_hex(const unsigned char *b, size_t n)
{
    char *s = malloc(2 * n + 1);
    ck_assert(s != NULL);
    for (size_t i = 0; i < n; i++)
        (void)snprintf(s + 2 * i, 3, "%02X", b[i]); /* 2 digits and the NUL: exactly 3 */
    s[2 * n] = '\0';
    return s;
}

/* ---- helpers that fail the test -------------------------------------------------------- */

static unsigned char *encode_ok(tc_term t, unsigned minor, size_t *len)
{
    size_t predicted;
    unsigned char *b;
    ck_assert(tc_ext_size(t, minor, &predicted) == TC_OK);
    tc_result r = tc_ext_encode(t, minor, &b, len);
    ck_assert_msg(r == TC_OK, "encode failed: %s", tc_result_name(r));
    ck_assert_uint_eq(*len, predicted);
    return b;
}

static tc_term decode_ok(const unsigned char *b, size_t n)
{
    tc_term t;
    tc_read_error err = {0};
    tc_result r = tc_ext_decode(arena_alloc(), b, n, &t, &err);
    ck_assert_msg(r == TC_OK, "decode failed: %s: %s", tc_result_name(r), err.message);
    const char *why;
    ck_assert_msg(tc_term_verify(t, &why), "decoded term fails the verifier: %s", why);
    return t;
}

static void check_encodes(const char *text, unsigned minor, const char *hex)
{
    size_t len;
    unsigned char *b = encode_ok(tc_read_ok(text), minor, &len);
    char *got = to_hex(b, len);
    ck_assert_msg(strcmp(got, hex) == 0, "%s (minor %u) encoded as %s, expected %s", text, minor, got, hex);
    free(got);
    tc_mem_free(b);
}

static void check_decodes(const char *hex, const char *text)
{
    bytes x = from_hex(hex);
    tc_term t = decode_ok(x.b, x.n);
    ck_assert_msg(tc_equal_ok(t, tc_read_ok(text)), "%s decoded as %s, expected %s", hex, tc_print_ok(t), text);
    free(x.b);
}

/* ---- golden vectors --------------------------------------------------------------------- */

START_TEST(test_golden_vectors)
{
    size_t n;
    const tc_vector *v = tc_vectors(&n);
    for (size_t i = 0; i < n; i++) {
        tc_term t = tc_vector_term(&v[i], NULL);
        size_t len;
        unsigned char *b = encode_ok(t, 2, &len);
        ck_assert_msg(len == v[i].ext_bytes, "%s: %zu bytes, the VM wrote %llu", v[i].expr, len,
                      (unsigned long long)v[i].ext_bytes);
        bool atom_hashed = tc_vector_atom_hashed(t);
        if (strcmp(v[i].ext_hex, "-") != 0 && !atom_hashed) {
            char *hex = to_hex(b, len);
            ck_assert_msg(strcmp(hex, v[i].ext_hex) == 0, "%s: encoded %s\n  the VM wrote %s", v[i].expr, hex,
                          v[i].ext_hex);
            free(hex);
        }
        tc_term d = decode_ok(b, len);
        ck_assert_msg(tc_equal_ok(t, d), "%s decoded as %s", v[i].expr, tc_print_ok(d));
        ck_assert_msg(atom_hashed || tc_flat_ok(d) == v[i].flat_words, "%s: decoded form takes %llu words, the VM's %llu",
                      v[i].expr, (unsigned long long)tc_flat_ok(d), (unsigned long long)v[i].flat_words);
        size_t len2;
        unsigned char *b2 = encode_ok(d, 2, &len2);
        ck_assert(len2 == len && memcmp(b, b2, len) == 0);
        tc_mem_free(b2);
        tc_mem_free(b);
    }
}
END_TEST

START_TEST(test_minor_versions)
{
    /* Minor 1 (OTP 25's default) writes Latin-1 atoms as ATOM_EXT; minor 2 always UTF-8. */
    check_encodes("foo", 2, "837703666F6F");
    check_encodes("foo", 1, "83640003666F6F");
    check_encodes("''", 2, "837700");
    check_encodes("''", 1, "83640000");
    check_encodes("'é'", 2, "837702C3A9");
    check_encodes("'é'", 1, "83640001E9");
    check_encodes("'Ω'", 2, "837702CEA9");
    check_encodes("'Ω'", 1, "837702CEA9");
    check_encodes("'aΩ'", 1, "83770361CEA9");
    /* Local pids: NEW_PID_EXT, node 'nonode@nohost', creation 0. */
    check_encodes("<0.5.7>", 2, "8358770D6E6F6E6F6465406E6F686F7374000000050000000700000000");
    check_encodes("<0.5.7>", 1, "835864000D6E6F6E6F6465406E6F686F7374000000050000000700000000");
    check_encodes("<0.32767.8191>", 2, "8358770D6E6F6E6F6465406E6F686F737400007FFF00001FFF00000000");
    /* FLOAT_EXT as sys_chars_to_double reads it: ',' for '.', underflow to 0.0, the VM's answers. */
    check_decodes("8363312C3500000000000000000000000000000000000000000000000000000000", "1.5");
    check_decodes("8363312E35652D3430300000000000000000000000000000000000000000000000", "0.0");
    check_decodes("83632B312E35452B33000000000000000000000000000000000000000000000000", "1.5e3");
    check_decodes("8363312E3065333038000000000000000000000000000000000000000000000000", "1.0e308");
    /* Keys in map key order, every integer before every float (the VM's term_to_binary). */
    check_encodes("#{0.5 => b, 1 => a}", 2, "8374000000026101770161463FE0000000000000770162");
    check_decodes("8374000000026101770161463FE0000000000000770162", "#{1 => a, 0.5 => b}");
    /* Everything else is the same in both. */
    static const char mixed[] = "836803463FF80000000000006C00000001620000010062FFFFFFFF4D0000000103" "20";
    check_encodes("{1.5,[256|-1],<<1:3>>}", 1, mixed);
    check_encodes("{1.5,[256|-1],<<1:3>>}", 2, mixed);

    /* 255 Latin-1 characters: 255 bytes as ATOM_EXT, 510 as ATOM_UTF8_EXT. */
    char name[2 * 255 + 1];
    for (int i = 0; i < 255; i++)
        memcpy(name + 2 * i, "\xC3\xA9", 2); /* NOLINT(bugprone-not-null-terminated-result): passed with its length */
    tc_term atom;
    ck_assert(tc_atom_intern(name, 510, &atom) == TC_OK);
    size_t len1, len2;
    unsigned char *b1 = encode_ok(atom, 1, &len1), *b2 = encode_ok(atom, 2, &len2);
    ck_assert_uint_eq(len1, 1 + 3 + 255);
    ck_assert_uint_eq(len2, 1 + 3 + 510);
    ck_assert(b1[1] == 100 && b1[2] == 0 && b1[3] == 255 && b1[4] == 0xE9);
    ck_assert(b2[1] == 118 && b2[2] == 0x01 && b2[3] == 0xFE && b2[4] == 0xC3);
    ck_assert(decode_ok(b1, len1) == atom && decode_ok(b2, len2) == atom);
    tc_mem_free(b1);
    tc_mem_free(b2);

    /* Both decode to the same atoms, as does SMALL_ATOM_EXT, which term_to_binary never writes. */
    check_decodes("83640003666F6F", "foo");
    check_decodes("837303666F6F", "foo");
    check_decodes("837301E9", "'é'");
    check_decodes("835864000D6E6F6E6F6465406E6F686F7374000000050000000700000000", "<0.5.7>");

    size_t s;
    ck_assert(tc_ext_size(TC_NIL, 0, &s) == TC_EBADARG);
    ck_assert(tc_ext_size(TC_NIL, 3, &s) == TC_EBADARG);
}
END_TEST

/* ---- integers ---------------------------------------------------------------------------- */

START_TEST(test_integer_tags)
{
    check_encodes("255", 2, "8361FF");
    check_encodes("256", 2, "836200000100");
    check_encodes("-1", 2, "8362FFFFFFFF");
    check_encodes("2147483647", 2, "83627FFFFFFF");
    check_encodes("-2147483648", 2, "836280000000");
    check_encodes("2147483648", 2, "836E040000000080");
    check_encodes("-2147483649", 2, "836E040101000080");
    /* 2^2048 needs 257 bytes: LARGE_BIG_EXT. */
    size_t len;
    unsigned char *b = encode_ok(tc_read_ok("16#1" "0000000000000000000000000000000000000000000000000000000000000000"
                                            "0000000000000000000000000000000000000000000000000000000000000000"
                                            "0000000000000000000000000000000000000000000000000000000000000000"
                                            "0000000000000000000000000000000000000000000000000000000000000000"
                                            "0000000000000000000000000000000000000000000000000000000000000000"
                                            "0000000000000000000000000000000000000000000000000000000000000000"
                                            "0000000000000000000000000000000000000000000000000000000000000000"
                                            "0000000000000000000000000000000000000000000000000000000000000000"),
                                 2, &len);
    ck_assert_uint_eq(len, 1 + 1 + 4 + 1 + 257);
    ck_assert(b[1] == 111 && b[2] == 0 && b[3] == 0 && b[4] == 1 && b[5] == 1 && b[6] == 0 && b[len - 1] == 1);
    tc_mem_free(b);
}
END_TEST

/* Encodings the VM accepts though it never writes them, decoded to the canonical form. */
START_TEST(test_accepted_edges)
{
    check_decodes("836E040001000000", "1");                  /* zero top bytes: normalised */
    check_decodes("836E0000", "0");                          /* zero-width bignum */
    check_decodes("836F000000010105", "-5");                 /* LARGE_BIG_EXT of a small */
    check_decodes("836E08010000000000000008", "-576460752303423488");
    check_decodes("836E0800FFFFFFFFFFFFFF07", "576460752303423487");
    check_decodes("836B0000", "[]");                         /* empty STRING_EXT */
    check_decodes("836C000000006A", "[]");                   /* LIST_EXT of 0: just the tail */
    check_decodes("836C00000000770161", "a");
    check_decodes("836C00000001610A6C0000000161146A", "[10,20]");  /* tail is a list */
    check_decodes("834D0000000108FF", "<<255>>");            /* 8 bits used: a plain binary */
    check_decodes("834D0000000000", "<<>>");
    check_decodes("834D0000000103FF", "<<7:3>>");            /* unused bits dropped */
    check_decodes("83740000000277016261027701616101", "#{a => 1, b => 2}"); /* keys unsorted */
    check_decodes("8367770D6E6F6E6F6465406E6F686F73740000000500000007" "00", "<0.5.7>"); /* PID_EXT */

    /* FLOAT_EXT (minor version 0): "%.20e" padded with NULs to 31 bytes. */
    char text[32] = {0};
    ck_assert_int_lt(snprintf(text, sizeof text, "%.20e", -1.5), (int)sizeof text);
    bytes f = from_hex("83 63");
    for (int i = 0; i < 31; i++)
        put_byte(&f, (unsigned char)text[i]);
    ck_assert(tc_equal_ok(decode_ok(f.b, f.n), tc_read_ok("-1.5")));
    free(f.b);

    /* The largest bignum the VM builds: BIG_ARITY_MAX = 2^19 - 1 digits. */
    bytes x = {0};
    put_hex(&x, "836F003FFFF800", 1);
    put_fill(&x, 0xAB, (((size_t)1 << 19) - 1) * 8);
    tc_arena *big = tc_arena_new(1 << 20);
    ck_assert(big != NULL);
    tc_term t;
    ck_assert(tc_ext_decode(tc_arena_alloc(big), x.b, x.n, &t, NULL) == TC_OK);
    ck_assert(tc_is_big(t) && tc_header_arity(tc_boxed_val(t)[0]) == ((uint64_t)1 << 19) - 1);
    size_t len;
    unsigned char *b = encode_ok(t, 2, &len);
    ck_assert(len == x.n && memcmp(b, x.b, len) == 0);
    tc_mem_free(b);
    tc_arena_free(big);
    free(x.b);
}
END_TEST

/* ---- lists, strings, depth ------------------------------------------------------------- */

static tc_term seq_list(tc_alloc *a, size_t n, int64_t first)
{
    tc_term *e = malloc(n * sizeof *e);
    ck_assert(e != NULL);
    for (size_t i = 0; i < n; i++)
        e[i] = tc_make_small(first + (int64_t)i % 256);
    tc_term l = tc_term_list(a, e, n, TC_NIL);
    free(e);
    ck_assert(l != TC_NON_VALUE);
    return l;
}

START_TEST(test_string_ext_limit)
{
    /* STRING_EXT up to 0xFFFF elements (is_external_string fails only when ++len passes
     * MAX_STRING_LEN; OTP 25.2.3 writes 131,107,255,255 for 65,535 bytes): 65,535 is a
     * string, 65,536 is LIST_EXT of SMALL_INTEGER_EXTs. */
    size_t len;
    unsigned char *b = encode_ok(seq_list(arena_alloc(), 65535, 0), 2, &len);
    ck_assert(b[1] == 107 && b[2] == 0xFF && b[3] == 0xFF && len == 1 + 3 + 65535);
    ck_assert(tc_equal_ok(decode_ok(b, len), seq_list(arena_alloc(), 65535, 0)));
    tc_mem_free(b);
    b = encode_ok(seq_list(arena_alloc(), 65536, 0), 2, &len);
    ck_assert(b[1] == 108 && len == 1 + 5 + 2 * 65536 + 1);
    ck_assert(tc_equal_ok(decode_ok(b, len), seq_list(arena_alloc(), 65536, 0)));
    tc_mem_free(b);
    check_encodes("[1|2]", 2, "836C0000000161016102"); /* bytes, but improper */
}
END_TEST

/* One bignum limit in every direction: the largest the VM builds (TC_BIG_ARITY_MAX digits)
 * encodes and decodes back; one digit more, built by hand, does not encode, and its bytes
 * do not decode (system_limit on the VM). */
START_TEST(test_bignum_limit)
{
    size_t n = TC_BIG_ARITY_MAX + 1;
    tc_term *p = tc_alloc_words(arena_alloc(), 1 + n);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 1; i <= n; i++)
        p[i] = ~(uint64_t)0;
    p[0] = TC_MAKE_HEADER(n - 1, TC_SUBTAG_POS_BIG);
    size_t len;
    unsigned char *b = encode_ok(tc_make_boxed(p), 2, &len);
    ck_assert_uint_eq(len, 1 + 1 + 4 + 1 + 8 * (n - 1));
    tc_term back = decode_ok(b, len);
    ck_assert(tc_equal_ok(back, tc_make_boxed(p)));
    tc_mem_free(b);
    p[0] = TC_MAKE_HEADER(n, TC_SUBTAG_POS_BIG);
    unsigned char *over;
    ck_assert_int_eq(tc_ext_encode(tc_make_boxed(p), 2, &over, &len), TC_ELIMIT);
}
END_TEST

/* The encoder's walk: a list whose elements include containers (its count patched in at the
 * tail), containers in and out of the last place of a tuple, a map with a tuple key, a list of
 * every leaf kind. The bytes are OTP 25.2.3's, term_to_binary/1 (minor 1) and minor 2. */
START_TEST(test_walk_shapes)
{
    static const struct {
        const char *text, *minor1, *minor2;
    } v[] = {
        {"[[1000],{a},2000|{b}]", "836C000000036C0000000162000003E86A68016400016162000007D0680164000162",
         "836C000000036C0000000162000003E86A680177016162000007D06801770162"},
        {"{[1000,{x}],{1,{2,[]}}}", "8368026C0000000262000003E86801640001786A68026101680261026A",
         "8368026C0000000262000003E868017701786A68026101680261026A"},
        {"#{{k} => [300], 1 => {2}}", "83740000000261016801610268016400016B6C00000001620000012C6A",
         "837400000002610168016102680177016B6C00000001620000012C6A"},
        {"[a,\"bc\",<<\"d\">>,1.5]", "836C00000004640001616B000262636D0000000164463FF80000000000006A",
         "836C000000047701616B000262636D0000000164463FF80000000000006A"},
        /* Lists that start as strings: the write pass writes bytes before it knows, and LIST_EXT
         * writes over them. */
        {"[1,2,3,256]", "836C0000000461016102610362000001006A", "836C0000000461016102610362000001006A"},
        {"[1,2,3|4]", "836C000000036101610261036104", "836C000000036101610261036104"},
        {"[[1,2,300],\"ab\"]", "836C000000026C0000000361016102620000012C6A6B000261626A",
         "836C000000026C0000000361016102620000012C6A6B000261626A"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        check_encodes(v[i].text, 1, v[i].minor1);
        check_encodes(v[i].text, 2, v[i].minor2);
        check_decodes(v[i].minor1, v[i].text);
    }
}
END_TEST

/* The decoder's frames: containers as the last value of their parent (which then closes at
 * once), as a middle value, as an improper list's tail, inside a map's keys and values (where
 * nothing closes early), nested thousands deep in turn; each round trip is the same term of
 * the same flat size, and a LIST_EXT's cells are one block, the head cell highest. */
START_TEST(test_decoder_frames)
{
    tc_alloc *a = arena_alloc();
    tc_term t = TC_NIL, k;
    ck_assert(tc_atom_intern("k", 1, &k) == TC_OK);
    for (int i = 0; i < 3000; i++) {
        tc_term e[3] = {tc_make_small(1000 + i), t, tc_make_small(i)}, m;
        switch (i % 6) {
        case 0: t = tc_term_tuple(a, e, 2); break;                            /* last value */
        case 1: t = tc_term_tuple(a, &e[1], 2); break;                        /* a middle value */
        case 2: t = tc_term_list(a, e, 2, TC_NIL); break;                     /* a list's element */
        case 3: t = tc_term_list(a, e, 1, t); break;                          /* an improper tail */
        case 4: /* a map's value, and a key that is a container */
            e[2] = tc_term_tuple(a, &e[0], 1);
            ck_assert(tc_term_flatmap(a, (const tc_term[]){k, t, e[2], e[0]}, 2, &m) == TC_OK);
            t = m;
            break;
        default: t = tc_term_tuple(a, (const tc_term[]){t}, 1); break;        /* a tuple's only value */
        }
        ck_assert(t != TC_NON_VALUE);
    }
    for (unsigned minor = 1; minor <= 2; minor++) {
        size_t len;
        unsigned char *b = encode_ok(t, minor, &len);
        tc_term d = decode_ok(b, len);
        uint64_t w1, w2;
        ck_assert(tc_equal_ok(d, t));
        ck_assert(tc_term_flat_size(t, &w1) == TC_OK && tc_term_flat_size(d, &w2) == TC_OK);
        ck_assert_uint_eq(w1, w2);
        tc_mem_free(b);
    }
    tc_term l = decode_ok((const unsigned char[]){131, 108, 0, 0, 0, 3, 98, 0, 0, 3, 232, 98, 0, 0, 7, 208, 98, 0, 0, 11,
                                                  184, 106},
                          22);
    ck_assert(tc_list_val(tc_cdr(l)) + TC_CONS_SIZE == tc_list_val(l));
    ck_assert(tc_list_val(tc_cdr(tc_cdr(l))) + TC_CONS_SIZE == tc_list_val(tc_cdr(l)));
    check_decodes("83 74 00000003 6103 6103 6101 6101 6102 6102", "#{1 => 1, 2 => 2, 3 => 3}"); /* keys out of order */
    /* Runs of floats (one allocation a run) between integers, in a list and in a tuple. */
    check_decodes("83 6C 00000005 46 3FF8000000000000 46 4004000000000000 61 07 46 400C000000000000 46 4012000000000000 6A",
                  "[1.5,2.5,7,3.5,4.5]");
    check_decodes("83 68 04 46 3FF8000000000000 46 4004000000000000 46 400C000000000000 61 01", "{1.5,2.5,3.5,1}");
}
END_TEST

/* Chains of tuples each the last value of the one before (read ahead and allocated at once
 * when their other values are integers): arities 1 to 4, small and 32-bit integers, an atom
 * or a float here and there that ends a chain, far longer than one read-ahead; the same term
 * back, of the same flat size, and every truncation refused with whole terms left. */
static tc_term tuple_chain(tc_alloc *a, int depth)
{
    tc_term t = TC_NIL, x;
    ck_assert(tc_atom_intern("x", 1, &x) == TC_OK);
    for (int i = depth; i > 0; i--) {
        tc_term e[4];
        int arity = 1 + i % 4;
        for (int j = 0; j < arity - 1; j++)
            e[j] = i % 37 == 0 && j == 0 ? x : tc_make_small(i % 5 == 0 ? 100000 * i : i % 250);
        if (i % 53 == 0)
            e[0] = tc_term_float(a, 0.5);
        e[arity - 1] = t;
        t = tc_term_tuple(a, e, (uint64_t)arity);
        ck_assert(t != TC_NON_VALUE);
    }
    return t;
}

START_TEST(test_tuple_chains)
{
    tc_alloc *a = arena_alloc();
    for (int depth = 1; depth <= 700; depth += depth < 140 ? 1 : 111) {
        tc_term t = tuple_chain(a, depth);
        size_t len;
        unsigned char *b = encode_ok(t, 2, &len);
        tc_term d = decode_ok(b, len);
        uint64_t w1, w2;
        ck_assert_msg(tc_equal_ok(d, t), "chain of %d", depth);
        ck_assert(tc_term_flat_size(t, &w1) == TC_OK && tc_term_flat_size(d, &w2) == TC_OK);
        ck_assert_uint_eq(w1, w2);
        tc_mem_free(b);
    }
}
END_TEST

/* A destination that hands out words filled with a mark, to see which of them a decode that
 * fails left unwritten. */
#define POISON UINT64_C(0x5A5A5A5A5A5A5A5A)
typedef struct marked {
    tc_alloc iface;
    tc_offheap offheap;
    tc_term words[1 << 14];
    size_t top;
} marked;

static tc_term *marked_alloc(tc_alloc *self, size_t n)
{
    marked *m = (marked *)self;
    if (sizeof m->words / sizeof m->words[0] - m->top < n)
        return NULL;
    tc_term *p = m->words + m->top;
    m->top += n;
    return p;
}

/* Decodes the n bytes at b into a destination of marked words, expecting TC_EPARSE, and
 * checks that every word the decode took was written. */
static void expect_whole_after_failure(marked *m, const unsigned char *b, size_t n)
{
    *m = (marked){.iface = {marked_alloc, &m->offheap, NULL}};
    for (size_t i = 0; i < sizeof m->words / sizeof m->words[0]; i++)
        m->words[i] = POISON;
    tc_term t;
    ck_assert(tc_ext_decode(&m->iface, b, n, &t, NULL) == TC_EPARSE);
    for (size_t i = 0; i < m->top; i++)
        ck_assert_msg(m->words[i] != POISON, "cut at %zu: word %zu of %zu was never written", n, i, m->top);
}

/* A decode that fails part way leaves whole terms behind: every word it took from the
 * destination holds a term word (the slots of the containers still open get []), as a heap
 * that a collector walks later needs; checked at every truncation of a term of tuples, lists,
 * maps and floats and of a chain of tuples, and at a non-finite float in a tuple. */
START_TEST(test_failure_leaves_whole_terms)
{
    marked *m = malloc(sizeof *m);
    ck_assert(m != NULL);
    tc_term terms[2] = {
        tc_read_ok("[{1,{2,[3000,4000,{5,x}]}},#{a => {6,[7]}, b => [8|9]},{1.5,{10}},[0.5,2.5,3.5,4,4.5]|{11}]"),
        tuple_chain(arena_alloc(), 150)};
    for (int k = 0; k < 2; k++) {
        size_t len;
        unsigned char *b = encode_ok(terms[k], 2, &len);
        for (size_t cut = 1; cut < len; cut++)
            expect_whole_after_failure(m, b, cut);
        tc_mem_free(b);
    }
    bytes x = from_hex("83 68 03 61 01 46 7FF0000000000000 61 02"); /* {1, +inf, 2} */
    expect_whole_after_failure(m, x.b, x.n);
    free(x.b);
    free(m);
}
END_TEST

START_TEST(test_million_element_list)
{
    tc_alloc *a = arena_alloc();
    size_t n = 1000000;
    tc_term *e = malloc(n * sizeof *e);
    ck_assert(e != NULL);
    for (size_t i = 0; i < n; i++)
        e[i] = tc_make_small((int64_t)i + 1);
    tc_term l = tc_term_list(a, e, n, TC_NIL);
    free(e);
    size_t len;
    unsigned char *b = encode_ok(l, 2, &len);
    ck_assert_uint_eq(len, 1 + 5 + 255 * 2 + (n - 255) * 5 + 1); /* the 6.2 arithmetic */
    ck_assert(tc_equal_ok(decode_ok(b, len), l));
    tc_mem_free(b);
}
END_TEST

START_TEST(test_deep_nesting)
{
    tc_alloc *a = arena_alloc();
    size_t depth = 100000;
    tc_term t = TC_NIL, l = TC_NIL;
    for (size_t i = 0; i < depth; i++) {
        t = tc_term_tuple(a, &t, 1);
        l = tc_term_cons(a, l, TC_NIL);
    }
    tc_term both[2] = {t, l};
    tc_term pair = tc_term_tuple(a, both, 2);
    size_t len;
    unsigned char *b = encode_ok(pair, 2, &len);
    ck_assert_uint_eq(len, 1 + 2 + (2 * depth + 1) + (6 * depth + 1));
    ck_assert(tc_equal_ok(decode_ok(b, len), pair));
    tc_mem_free(b);
}
END_TEST

/* ---- corrupt input ----------------------------------------------------------------------- */

/* Decodes `x` expecting `code` at byte `offset` (SIZE_MAX: any offset within the input), with
 * the offset in the message and nothing left behind: no live allocation, no ProcBin on
 * the off-heap list. A first decode interns the atoms the input names, which stay. */
static void expect_rejected(const bytes *x, tc_result code, size_t offset, const char *what)
{
    tc_arena *arena = tc_arena_new(1 << 18);
    ck_assert(arena != NULL);
    tc_alloc *a = tc_arena_alloc(arena);
    ck_assert(tc_alloc_words(a, 1) != NULL); /* the arena's one block, allocated up front */
    tc_term t;
    tc_result warm = tc_ext_decode(a, x->b, x->n, &t, NULL);
    (void)warm;
    tc_term *first = a->offheap->first;
    int64_t live = tc_mem_live();
    tc_read_error err = {0};
    tc_result r = tc_ext_decode(a, x->b, x->n, &t, &err);
    ck_assert_msg(r == code, "%s: got %s (%s), expected %s", what, tc_result_name(r), err.message,
                  tc_result_name(code));
    if (offset == SIZE_MAX)
        ck_assert_msg(err.offset <= x->n, "%s: offset %zu past the input", what, err.offset);
    else
        ck_assert_msg(err.offset == offset, "%s: offset %zu, expected %zu (%s)", what, err.offset, offset,
                      err.message);
    /* Inside a COMPRESSED term the offset counts the inflated bytes, and says so. */
    char prefix[40];
    bool inner = strncmp(err.message, "uncompressed ", 13) == 0;
    ck_assert_int_lt(snprintf(prefix, sizeof prefix, "%sbyte %zu: ", inner ? "uncompressed " : "", err.offset),
                     (int)sizeof prefix);
    ck_assert_msg(strncmp(err.message, prefix, strlen(prefix)) == 0 && strlen(err.message) > strlen(prefix) + 8,
                  "%s: message \"%s\" does not start with \"%s\" and explain", what, err.message, prefix);
    ck_assert_msg(tc_mem_live() == live, "%s: %lld allocations leaked", what, (long long)(tc_mem_live() - live));
    ck_assert_msg(a->offheap->first == first, "%s: a refc binary was left on the off-heap list", what);
    tc_arena_free(arena);
}

static const struct {
    const char *hex;
    tc_result code;
    size_t offset;
    const char *what;
} corrupt[] = {
    {"", TC_EPARSE, 0, "empty input"},
    {"82 61 01", TC_EPARSE, 0, "wrong version byte"},
    {"00", TC_EPARSE, 0, "zero version byte"},
    {"83", TC_EPARSE, 1, "version byte only"},
    {"83 FF", TC_EPARSE, 1, "unknown tag 255"},
    {"83 00", TC_EPARSE, 1, "unknown tag 0"},
    {"83 52 00", TC_EPARSE, 1, "ATOM_CACHE_REF outside distribution"},
    {"83 44 00", TC_EPARSE, 1, "DIST_HEADER inside a term"},
    {"83 6B 00 05 61 62 63", TC_EPARSE, 2, "STRING_EXT length past the end"},
    {"83 6B 00", TC_EPARSE, 2, "STRING_EXT length cut"},
    {"83 6C FF FF FF FF 6A", TC_EPARSE, 2, "LIST_EXT of 4294967295 elements in 7 bytes"},
    {"83 69 FF FF FF FF", TC_EPARSE, 2, "LARGE_TUPLE_EXT of 4294967295"},
    {"83 68 FF 6A", TC_EPARSE, 2, "SMALL_TUPLE_EXT of 255 with one byte"},
    {"83 74 FF FF FF FF", TC_EPARSE, 2, "MAP_EXT of 4294967295 pairs"},
    {"83 6D FF FF FF FF 00", TC_EPARSE, 2, "BINARY_EXT of 4 GiB"},
    {"83 6F FF FF FF FF 00", TC_EPARSE, 2, "LARGE_BIG_EXT of 4 GiB"},
    {"83 6E 05 01 FF FF", TC_EPARSE, 2, "SMALL_BIG_EXT digits past the end"},
    {"83 4D 00 00 00 02 00 FF FF", TC_EPARSE, 6, "BIT_BINARY_EXT of 2 bytes with 0 bits"},
    {"83 4D 00 00 00 01 09 FF", TC_EPARSE, 6, "BIT_BINARY_EXT with 9 bits"},
    {"83 4D 00 00 00 00 03", TC_EPARSE, 6, "empty BIT_BINARY_EXT with 3 bits"},
    {"83 4D 00 00 00 02", TC_EPARSE, 2, "BIT_BINARY_EXT header cut"},
    {"83 4D 00 00 00 02 03 FF", TC_EPARSE, 2, "BIT_BINARY_EXT bytes past the end"},
    {"83 46 7F F0 00 00 00 00 00 00", TC_EPARSE, 2, "NEW_FLOAT_EXT infinity"},
    {"83 46 FF F8 00 00 00 00 00 00", TC_EPARSE, 2, "NEW_FLOAT_EXT NaN"},
    {"83 46 3F F0", TC_EPARSE, 2, "NEW_FLOAT_EXT cut"},
    {"83 63 61 62 63 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
     TC_EPARSE, 2, "FLOAT_EXT that is not a number"},
    {"83 63 30 78 31 70 33 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", TC_EPARSE, 2,
     "FLOAT_EXT hex float (strtod takes it, the VM does not)"},
    {"83 63 20 31 2E 35 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", TC_EPARSE, 2,
     "FLOAT_EXT leading space"},
    {"83 63 31 65 33 30 38 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", TC_EPARSE, 2,
     "FLOAT_EXT without a fraction"},
    {"83 63 31 2E 30 65 33 30 39 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", TC_EPARSE, 2,
     "FLOAT_EXT overflow"},
    {"83 63 2E 35 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", TC_EPARSE, 2,
     "FLOAT_EXT without leading digits"},
    {"83 63 31 2E 35 65 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", TC_EPARSE, 2,
     "FLOAT_EXT without exponent digits"},
    {"83 63 69 6E 66 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", TC_EPARSE, 2,
     "FLOAT_EXT inf"},
    {"83 63 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31", TC_EPARSE, 2,
     "FLOAT_EXT of 31 digits, no NUL, input ends"},
    {"83 77 FF", TC_EPARSE, 2, "SMALL_ATOM_UTF8_EXT of 255 bytes with none"},
    {"83 77 01 FF", TC_EPARSE, 3, "atom byte 0xFF"},
    {"83 77 02 C3 28", TC_EPARSE, 3, "atom with a bad continuation byte"},
    {"83 77 03 ED A0 80", TC_EPARSE, 3, "atom with a UTF-16 surrogate"},
    {"83 77 02 C0 80", TC_EPARSE, 3, "atom with an overlong NUL"},
    {"83 77 03 61 62 FF", TC_EPARSE, 5, "atom whose third byte is bad"},
    {"83 74 00 00 00 02 77 01 61 61 01 77 01 61 61 02", TC_EPARSE, 1, "MAP_EXT repeating a key"},
    {"83 58 77 0D 6E 6F 6E 6F 64 65 40 6E 6F 68 6F 73 74 00 00 80 00 00 00 00 00 00 00 00 00", TC_ELIMIT, 17,
     "local pid number 2^15"},
    {"83 58 77 0D 6E 6F 6E 6F 64 65 40 6E 6F 68 6F 73 74 00 00 00 01 00 00 31 02 00 00 00 00", TC_ELIMIT, 17,
     "local pid serial 12546 (past 2^13)"},
    {"83 58 61 01 00 00 00 01 00 00 00 00 00 00 00 00", TC_EPARSE, 2, "pid whose node is not an atom"},
    {"83 58 77 0D 6E 6F 6E 6F 64 65 40 6E 6F 68 6F 73 74 00 00 00", TC_EPARSE, 17, "pid cut in its ID"},
    {"83 67 77 01 61 00 00 00 01 00 00 00 00 04", TC_EPARSE, 13, "PID_EXT creation 4 (not tiny)"},
    {"83 65", TC_EPARSE, 2, "REFERENCE_EXT without its node"},
    {"83 72 00 01", TC_EPARSE, 4, "NEW_REFERENCE_EXT cut before its node"},
    {"83 5A 00 01", TC_EPARSE, 4, "NEWER_REFERENCE_EXT cut before its node"},
    {"83 5A 00", TC_EPARSE, 2, "NEWER_REFERENCE_EXT cut in its length"},
    {"83 5A 00 00 77 0D 6E 6F 6E 6F 64 65 40 6E 6F 68 6F 73 74 00 00 00 00", TC_EPARSE, 2, "reference of 0 numbers"},
    {"83 5A 00 06 77 0D 6E 6F 6E 6F 64 65 40 6E 6F 68 6F 73 74 00 00 00 00", TC_EPARSE, 2, "reference of 6 numbers"},
    {"83 5A 00 03 77 0D 6E 6F 6E 6F 64 65 40 6E 6F 68 6F 73 74 00 00 00 00 00 00 00 01 00 00 00 02", TC_EPARSE, 19, "reference cut in its numbers"},
    {"83 5A 00 04 77 0D 6E 6F 6E 6F 64 65 40 6E 6F 68 6F 73 74 00 00 00 00 00 00 00 01 00 00 00 02 00 00 00 03 00 00 00 04", TC_EPARSE, 2,
     "local reference of 4 numbers"},
    {"83 5A 00 03 77 0D 6E 6F 6E 6F 64 65 40 6E 6F 68 6F 73 74 00 00 00 00 00 04 00 00 00 00 00 02 00 00 00 03", TC_EPARSE, 2,
     "local reference number 0 of 2^18"},
    {"83 65 77 03 78 40 79 00 04 00 00 00", TC_EPARSE, 2, "REFERENCE_EXT of another node, number 2^18"},
    {"83 65 77 03 78 40 79 00 00 00 01 04", TC_EPARSE, 2, "REFERENCE_EXT creation 4 (not tiny)"},
    {"83 65 77 03 78 40 79 E1 D2 38 3E DE 04 53 CE 00 00 00 01", TC_EPARSE, 2,
     "REFERENCE_EXT found by cli_vmoracle (seed 1796589405): number and creation past their bits"},
    {"83 72 00 01 77 03 78 40 79 00 FF FF FF FF", TC_EPARSE, 2, "NEW_REFERENCE_EXT of another node, number 2^32 - 1"},
    {"83 72 00 01 77 03 78 40 79 04 00 00 00 01", TC_EPARSE, 2, "NEW_REFERENCE_EXT creation 4 (not tiny)"},
    {"83 59", TC_EPARSE, 2, "NEW_PORT_EXT without its node"},
    {"83 66 77 0D 6E 6F 6E 6F 64 65 40 6E 6F 68 6F 73 74 00 00 00 05", TC_EPARSE, 17, "PORT_EXT cut in its creation"},
    {"83 78 77 0D 6E 6F 6E 6F 64 65 40 6E 6F 68 6F 73 74 00 00 00 00 10 00 00 00 00 00 00 00", TC_ELIMIT, 17, "local V4 port number 2^28"},
    {"83 70 00", TC_EPARSE, 2, "NEW_FUN_EXT cut in its fixed fields"},
    {"83 70 00 00 00 30 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 FF FF FF FF", TC_EPARSE, 27,
     "NEW_FUN_EXT with free-variable count 255, more than the bytes left"},
    {"83 70 00 00 00 30 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 FF FF FF FF", TC_EPARSE, 27,
     "NEW_FUN_EXT with free-variable count 0xFFFFFFFF"},
    {"83 70 00 00 00 30 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 01 00", TC_EPARSE, 27,
     "NEW_FUN_EXT with 256 free variables"},
    {"83 70 00 00 00 30 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 03 77 01 6D 61 00 61 00 58 77 0D 6E 6F 6E 6F 64 65 40 6E 6F 68 6F 73 74 00 00 00 01 00 00 00 00 00 00 00 00 61 01",
     TC_EPARSE, SIZE_MAX, "NEW_FUN_EXT with 1 of its 3 free variables"},
    {"83 70 00 00 00 30 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 77 01 6D 6A", TC_EPARSE, 34,
     "NEW_FUN_EXT whose old index is not an integer"},
    {"83 70 00 00 00 30 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 77 01 6D 61 00 61 00 6A", TC_EPARSE, 38,
     "NEW_FUN_EXT whose creator is not a pid"},
    {"83 75", TC_EPARSE, 1, "FUN_EXT (refused since OTP 23)"},
    {"83 71", TC_EPARSE, 2, "EXPORT_EXT without its module"},
    {"83 71 77 01 6D 77 01 66 62 FF FF FF FF", TC_EPARSE, 8, "EXPORT_EXT of arity -1"},
    {"83 71 77 01 6D 77 01 66 62 00 00 01 00", TC_ELIMIT, 8, "EXPORT_EXT of arity 256"},
    {"83 71 77 01 6D 77 01 66 6A", TC_EPARSE, 8, "EXPORT_EXT whose arity is not an integer"},
    {"83 50 00 00 00 10 78 9C 00", TC_EPARSE, 6, "compressed term with a cut zlib stream"},
    {"83 50 00 00 00 68 78 9C CB 66 48 61 A0 03 00 00 52 E8 00 D0", TC_EPARSE, 2,
     "compressed term declaring one byte more than it holds"},
    {"83 50 00 00 00 66 78 9C CB 66 48 61 A0 03 00 00 52 E8 00 D0", TC_EPARSE, 6,
     "compressed term declaring one byte less than it holds"},
    {"83 50 FF FF FF FF 78 9C CB 66 48 61 A0 03 00 00 52 E8 00 D0", TC_EPARSE, 2,
     "compressed term declaring 4 GiB in 14 bytes"},
    {"83 50 00 00 00 00 78 9C 03 00 00 00 00 01", TC_EPARSE, 2, "compressed term declaring 0 bytes"},
    {"83 50 00 00", TC_EPARSE, 2, "compressed term with its size cut"},
    {"83 62 00 00 00", TC_EPARSE, 2, "INTEGER_EXT cut"},
    {"83 61", TC_EPARSE, 2, "SMALL_INTEGER_EXT cut"},
    {"83 68 02 61 01", TC_EPARSE, 5, "tuple missing its second element"},
    {"83 6C 00 00 00 01 61 01", TC_EPARSE, 8, "list missing its tail"},
    {"83 68 01 68 01 68 01", TC_EPARSE, 6, "nested tuples cut at the bottom"},
    {"83 74 00 00 00 01 77 01 61", TC_EPARSE, 9, "map missing a value"},
};

/* What binary_to_term/1 accepts and tc_ext_decode_strict refuses: each with the VM's value
 * (binary_to_term(<<131,97,39,0>>) is 39; any nonzero sign byte is negative) and the strict
 * error's offset. */
START_TEST(test_lenient_as_vm)
{
    static const struct {
        const char *hex, *value;
        size_t strict_offset;
        const char *what;
    } cases[] = {
        {"83612700", "39", 3, "a byte after the term"},
        {"836A6A", "[]", 2, "a second term after the first"},
        {"836B00016162", "[97]", 5, "a byte after a string"},
        {"836E0202010100", "-257", 3, "bignum sign byte 2"},
        {"836F0000000907010203040506070809", "-166599134359138271745", 6, "LARGE_BIG sign byte 7"},
        {"836E01FF05", "-5", 3, "SMALL_BIG sign byte 255"},
        {"83500000002B789CCB66D060271200002EF801AC0001", "[7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7]",
         6, "two bytes after a COMPRESSED stream"},
        {"835000000002789CCBCA0200014000D5", "[]", 2, "a COMPRESSED term with a byte after its term"},
        {"835000000002789CCBCA0200014000D500", "[]", 6, "a COMPRESSED term with a byte after its stream"},
        {"837164000161640001626E010003", "fun a:b/3", 10, "EXPORT_EXT arity 3 as a SMALL_BIG_EXT"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bytes x = from_hex(cases[i].hex);
        tc_term t;
        tc_read_error err = {0};
        tc_result r = tc_ext_decode(tc_arena_alloc(tc_fixture_arena()), x.b, x.n, &t, &err);
        ck_assert_msg(r == TC_OK, "%s: %s", cases[i].what, err.message);
        ck_assert_str_eq(tc_print_ok(t), cases[i].value);
        r = tc_ext_decode_strict(tc_arena_alloc(tc_fixture_arena()), x.b, x.n, &t, &err);
        ck_assert_msg(r == TC_EPARSE && err.offset == cases[i].strict_offset, "%s under strict: %s (%s)", cases[i].what,
                      tc_result_name(r), err.message);
        free(x.b);
    }
}
END_TEST

START_TEST(test_corrupt_inputs)
{
    for (size_t i = 0; i < sizeof corrupt / sizeof *corrupt; i++) {
        bytes x = from_hex(corrupt[i].hex);
        expect_rejected(&x, corrupt[i].code, corrupt[i].offset, corrupt[i].what);
        free(x.b);
    }
}
END_TEST

START_TEST(test_corrupt_built_inputs)
{
    bytes x = {0};
    put_hex(&x, "83 64 01 00", 1); /* ATOM_EXT of 256 Latin-1 characters */
    put_hex(&x, "61", 256);
    expect_rejected(&x, TC_ELIMIT, 2, "ATOM_EXT of 256 characters");
    x.n = 0;
    put_hex(&x, "83 76 01 00", 1); /* ATOM_UTF8_EXT of 256 ASCII characters */
    put_hex(&x, "61", 256);
    expect_rejected(&x, TC_ELIMIT, 2, "ATOM_UTF8_EXT of 256 characters");
    x.n = 0;
    put_hex(&x, "83 76 02 00", 1); /* 256 two-byte characters in 512 bytes */
    put_hex(&x, "C3 A9", 256);
    expect_rejected(&x, TC_ELIMIT, 2, "ATOM_UTF8_EXT of 256 two-byte characters");
    x.n = 0;
    put_hex(&x, "83 76 03 FD", 1); /* 1021 bytes: past MAX_ATOM_SZ_LIMIT */
    put_hex(&x, "61", 1021);
    expect_rejected(&x, TC_ELIMIT, 2, "ATOM_UTF8_EXT of 1021 bytes");
    x.n = 0;
    put_hex(&x, "83 6F 00 3F FF F9 00", 1); /* (2^19 - 1) * 8 + 1 bytes: past BIG_ARITY_MAX digits */
    put_fill(&x, 0x01, ((size_t)1 << 22) - 8 + 1);
    expect_rejected(&x, TC_ELIMIT, 2, "LARGE_BIG_EXT one byte past BIG_ARITY_MAX digits");
    x.n = 0;
    put_hex(&x, "83 74 00 00 00 21", 1); /* 33 pairs, key 0 twice: a hashmap with a repeated key */
    for (unsigned k = 0; k < 33; k++) {
        put_byte(&x, 0x61);
        put_byte(&x, k % 32);
        put_byte(&x, 0x6A);
    }
    expect_rejected(&x, TC_EPARSE, 1, "MAP_EXT of 33 pairs with a repeated key");
    x.n = 0;
    put_hex(&x, "83 6C 00 00 00 02 6D 00 00 00 41", 1); /* a refc binary, then a bad tag */
    put_hex(&x, "5A", 65);
    put_hex(&x, "FF", 1);
    expect_rejected(&x, TC_EPARSE, 76, "bad tag after a refc binary");
    x.n = 0;
    put_hex(&x, "83 68 03 6D 00 00 00 41", 1); /* two refc binaries, then a cut */
    put_hex(&x, "5A", 65);
    put_hex(&x, "6D 00 00 00 42", 1);
    put_hex(&x, "5B", 66);
    expect_rejected(&x, TC_EPARSE, 144, "tuple cut after two refc binaries");
    free(x.b);
}
END_TEST

/* Every strict prefix of a valid encoding is malformed (the format is prefix-free). */
START_TEST(test_truncations)
{
    static const char *const texts[] = {
        "123456789012345678901234567890",
        "[a|b]",
        "{1,{2,{3,{4,[]}}}}",
        "<<1:3>>",
        "#{a => 1, b => [2], c => {3}}",
        "[<<\"01234567890123456789012345678901234567890123456789012345678901234\">>, 'Ω', -1.5, <0.3.1>]",
        "{\"abc\", [1|2], 576460752303423488}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        size_t len;
        unsigned char *b = encode_ok(tc_read_ok(texts[i]), 2, &len);
        for (size_t k = 0; k < len; k++) {
            bytes x = {b, k, k};
            char what[128];
            (void)snprintf(what, sizeof what, "%.40s cut to %zu of %zu bytes", texts[i], k, len); /* a label */
            expect_rejected(&x, TC_EPARSE, SIZE_MAX, what);
        }
        tc_mem_free(b);
    }
}
END_TEST

/* ---- allocation failure ----------------------------------------------------------------- */

START_TEST(test_allocation_failure)
{
    static const char *const texts[] = {
        "#{a => [1,2,3], b => <<\"01234567890123456789012345678901234567890123456789012345678901234\">>}",
        "[123456789012345678901234567890, {1.5, 'Ω'}, <<1:3>>, \"str\"]",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        tc_term t = tc_read_ok(texts[i]);
        size_t len;
        unsigned char *b = encode_ok(t, 2, &len);
        /* Decode: with the nth allocation failing, TC_ENOMEM and nothing kept, until it fits. */
        for (uint64_t n = 1;; n++) {
            int64_t live = tc_mem_live();
            tc_arena *arena = tc_arena_new(0);
            ck_assert(arena != NULL);
            tc_term d;
            tc_read_error err = {0};
            tc_mem_fail_at(n);
            tc_result r = tc_ext_decode(tc_arena_alloc(arena), b, len, &d, &err);
            tc_mem_fail_at(0);
            if (r == TC_OK) {
                ck_assert(tc_equal_ok(d, t));
                tc_arena_free(arena);
                break;
            }
            ck_assert_msg(r == TC_ENOMEM, "failing allocation %llu gave %s", (unsigned long long)n, tc_result_name(r));
            ck_assert(tc_arena_alloc(arena)->offheap->first == NULL);
            tc_arena_free(arena);
            ck_assert_int_eq(tc_mem_live(), live);
        }
        /* Encode: the buffer (and the walk's stack, for deep terms) may fail. */
        for (uint64_t n = 1;; n++) {
            int64_t live = tc_mem_live();
            unsigned char *e;
            size_t elen;
            tc_mem_fail_at(n);
            tc_result r = tc_ext_encode(t, 2, &e, &elen);
            tc_mem_fail_at(0);
            if (r == TC_OK) {
                ck_assert(elen == len && memcmp(e, b, len) == 0);
                tc_mem_free(e);
                break;
            }
            ck_assert(r == TC_ENOMEM);
            ck_assert_int_eq(tc_mem_live(), live);
        }
        tc_mem_free(b);
    }
    /* A caller's buffer that is too small is refused, not overrun. */
    unsigned char small[4];
    size_t got;
    ck_assert(tc_ext_encode_into(tc_read_ok("{a,b,c}"), 2, small, sizeof small, &got) == TC_EBADARG);
}
END_TEST

/* ---- random round trip ------------------------------------------------------------------- */

START_TEST(test_random_round_trip)
{
    tc_arena *arena = tc_fixture_arena();
    tc_alloc *a = tc_arena_alloc(arena);
    for (int i = 0; i < 10000; i++) {
        tc_arena_mark m = tc_arena_get_mark(arena);
        tc_term t = tc_gen_term(a, 4, i % 2);
        ck_assert(t != TC_NON_VALUE);
        size_t len;
        unsigned char *b = encode_ok(t, 1 + (unsigned)(i % 3 == 0), &len);
        tc_term d = decode_ok(b, len);
        ck_assert_msg(tc_equal_ok(t, d), "round trip %d (TC_SEED=%llu): %s came back as %s", i,
                      (unsigned long long)tc_test_seed(), tc_print_ok(t), tc_print_ok(d));
        tc_mem_free(b);
        tc_arena_rollback(arena, m);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy_ext");
    TCase *tc = tcase_create("ext");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_add_test(tc, test_golden_vectors);
    tcase_add_test(tc, test_minor_versions);
    tcase_add_test(tc, test_integer_tags);
    tcase_add_test(tc, test_accepted_edges);
    tcase_add_test(tc, test_string_ext_limit);
    tcase_add_test(tc, test_bignum_limit);
    tcase_add_test(tc, test_walk_shapes);
    tcase_add_test(tc, test_decoder_frames);
    tcase_add_test(tc, test_tuple_chains);
    tcase_add_test(tc, test_failure_leaves_whole_terms);
    tcase_add_test(tc, test_million_element_list);
    tcase_add_test(tc, test_deep_nesting);
    tcase_add_test(tc, test_corrupt_inputs);
    tcase_add_test(tc, test_lenient_as_vm);
    tcase_add_test(tc, test_corrupt_built_inputs);
    tcase_add_test(tc, test_truncations);
    tcase_add_test(tc, test_allocation_failure);
    tcase_add_test(tc, test_random_round_trip);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
