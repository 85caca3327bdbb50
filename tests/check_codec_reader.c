/* The term reader: what it accepts, what it rejects (with the exact error), and depth. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/verify.h"
#include "fixtures.h"
#include "terms/hashmap.h"
#include "terms/atom.h"
#include "terms/bignum.h"
#include "codec/reader.h"

static void check_reads_as(const char *text, const char *printed)
{
    const char *got = tc_print_ok(tc_read_ok(text));
    ck_assert_msg(strcmp(got, printed) == 0, "\"%s\" read back as %s, expected %s", text, got, printed);
}

START_TEST(test_numbers)
{
    check_reads_as("16#FF", "255");
    check_reads_as("-16#ff", "-255");
    check_reads_as("2#101", "5");
    check_reads_as("36#Zz", "1295");
    check_reads_as("1_000_000", "1000000");
    check_reads_as("$a", "97");
    check_reads_as("$\\n", "10");
    check_reads_as("$Ω", "937");
    check_reads_as("$ ", "32");
    check_reads_as("+7", "7");
    check_reads_as("1.5e10", "1.5e10");
    check_reads_as("1.0E-5", "1.0e-5");
    check_reads_as("2.5e+3", "2.5e3");
    check_reads_as("100.0", "100.0");
    check_reads_as("1000.0", "1.0e3");
    check_reads_as("0.5", "0.5");
    check_reads_as("0.001", "0.001");
    check_reads_as("0.0001", "1.0e-4");
    check_reads_as("123456.789", "123456.789");
    check_reads_as("-0.0", "-0.0");
    check_reads_as("1.0e300", "1.0e300");
    check_reads_as("5.0e-324", "5.0e-324");
    check_reads_as("0.1", "0.1");
    check_reads_as("1.7976931348623157e308", "1.7976931348623157e308");
}
END_TEST

/* Bignum edges: the small range ends at 2^59 - 1 and -2^59. */
START_TEST(test_bignum_edges)
{
    static const struct {
        const char *text;
        uint64_t words;
    } cases[] = {
        {"576460752303423487", 0},    {"576460752303423488", 2},    {"-576460752303423488", 0},
        {"-576460752303423489", 2},   {"9223372036854775807", 2},   {"9223372036854775808", 2},
        {"-9223372036854775808", 2},  {"-9223372036854775809", 2},  {"18446744073709551615", 2},
        {"18446744073709551616", 3},  {"-18446744073709551616", 3}, {"-18446744073709551615", 2},
        {"340282366920938463463374607431768211456", 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tc_term t = tc_read_ok(cases[i].text);
        ck_assert_msg(tc_flat_ok(t) == cases[i].words, "%s: %llu words", cases[i].text,
                      (unsigned long long)tc_flat_ok(t));
        ck_assert_str_eq(tc_print_ok(t), cases[i].text);
    }
    /* 2^59 - 1 and -2^59 are smalls; one step out is a one-digit bignum. */
    ck_assert(tc_is_small(tc_read_ok("576460752303423487")));
    ck_assert(tc_small_val(tc_read_ok("-576460752303423488")) == TC_MIN_SMALL);
    ck_assert(tc_is_big(tc_read_ok("576460752303423488")));
    /* A long decimal survives the round trip digit for digit. */
    char big[400];
    for (int i = 0; i < 399; i++)
        big[i] = (char)('1' + i % 9);
    big[399] = '\0';
    ck_assert_str_eq(tc_print_ok(tc_read_ok(big)), big);
    /* Order by value across the boundary. */
    ck_assert_int_lt(tc_compare_ok(tc_read_ok("576460752303423487"), tc_read_ok("576460752303423488")), 0);
    ck_assert_int_lt(tc_compare_ok(tc_read_ok("-576460752303423489"), tc_read_ok("-576460752303423488")), 0);
    ck_assert_int_lt(tc_compare_ok(tc_read_ok("-18446744073709551616"), tc_read_ok("-1")), 0);
}
END_TEST

/* Decimal text to digits and back through GMP: 10^k against digits computed here one
 * multiplication at a time, both ways; and the VM's limit, TC_BIG_ARITY_MAX digits. */
START_TEST(test_bignum_conversion)
{
    static const unsigned ks[] = {19, 20, 38, 39, 100, 1000, 5000};
    for (size_t c = 0; c < sizeof ks / sizeof *ks; c++) {
        unsigned k = ks[c];
        char *text = malloc(k + 2);
        ck_assert_ptr_nonnull(text);
        text[0] = '1';
        memset(text + 1, '0', k);
        text[k + 1] = '\0';
        uint64_t want[300] = {1};
        size_t n = 1;
        for (unsigned i = 0; i < k; i++) {
            unsigned __int128 carry = 0;
            for (size_t j = 0; j < n; j++) {
                unsigned __int128 x = (unsigned __int128)want[j] * 10 + carry;
                want[j] = (uint64_t)x;
                carry = x >> 64;
            }
            if (carry)
                want[n++] = (uint64_t)carry;
        }
        tc_term t = tc_read_ok(text);
        uint64_t tmp;
        size_t got_n;
        bool neg;
        const uint64_t *got = tc_integer_digits(t, &tmp, &got_n, &neg);
        ck_assert_uint_eq(got_n, n);
        ck_assert(!neg && memcmp(got, want, n * sizeof *got) == 0);
        ck_assert_str_eq(tc_print_ok(t), text);
        text[0] = '9'; /* 9 * 10^k - the same digits count, another value */
        ck_assert_str_eq(tc_print_ok(tc_read_ok(text)), text);
        free(text);
    }
    ck_assert_str_eq(tc_print_ok(tc_read_ok("-000000000000000000000000000000000123")), "-123");
    ck_assert_str_eq(tc_print_ok(tc_read_ok("16#10000000000000000000000000000000")), "21267647932558653966460912964485513216");
    /* One digit past the limit: rejected from the text's length, without building it. */
    size_t len = 10200000;
    char *huge = malloc(len + 1);
    ck_assert_ptr_nonnull(huge);
    huge[0] = '1';
    memset(huge + 1, '0', len - 1);
    huge[len] = '\0';
    tc_term t;
    tc_read_error err = {0};
    ck_assert_int_eq(tc_term_read(tc_arena_alloc(tc_fixture_arena()), huge, len, &t, &err), TC_ELIMIT);
    ck_assert_msg(strstr(err.message, "system_limit") != NULL, "%s", err.message);
    free(huge);
    /* A bignum of exactly TC_BIG_ARITY_MAX digits is built; one more is not. */
    uint64_t *d = malloc((TC_BIG_ARITY_MAX + 1) * sizeof *d);
    ck_assert_ptr_nonnull(d);
    for (size_t i = 0; i <= TC_BIG_ARITY_MAX; i++)
        d[i] = ~(uint64_t)0;
    ck_assert(tc_term_integer(tc_arena_alloc(tc_fixture_arena()), false, d, TC_BIG_ARITY_MAX) != TC_NON_VALUE);
    ck_assert(tc_term_integer(tc_arena_alloc(tc_fixture_arena()), false, d, TC_BIG_ARITY_MAX + 1) == TC_NON_VALUE);
    free(d);
}
END_TEST

START_TEST(test_escapes)
{
    check_reads_as("\"\\n\\r\\t\\v\\b\\f\\e\\d\\s\"", "[10,13,9,11,8,12,27,127,32]");
    check_reads_as("\"\\x{3A9}\\xFF\\x41\"", "[937,255,65]");
    check_reads_as("\"\\101\\7\\0101\"", "[65,7,8,49]");
    check_reads_as("\"\\^A\\^z\\^?\"", "[1,26,127]");
    check_reads_as("\"\\\\\\\"\\'\"", "[92,34,39]");
    check_reads_as("\"ab\" \"cd\"", "[97,98,99,100]");
    check_reads_as("\"Ωß\"", "[937,223]");
    check_reads_as("'\\n'", "'\\n'");
    check_reads_as("'a\\'b'", "'a\\'b'");
    check_reads_as("'\\x{7}'", "'\\007'");
    check_reads_as("'ßar'", "ßar");
    check_reads_as("'Ωmega'", "'Ωmega'");
    check_reads_as("'a b'", "'a b'");
    check_reads_as("''", "''");
    check_reads_as("'hello'", "hello");
}
END_TEST

START_TEST(test_containers)
{
    check_reads_as(" { a , [ 1 , 2 | 3 ] , #{ b => 2 , a => 1 } } . ", "{a,[1,2|3],#{a => 1,b => 2}}");
    check_reads_as("[1|[2|[]]]", "[1,2]");
    check_reads_as("#{a => 1, a => 2}", "#{a => 2}");
    check_reads_as("#{1.0 => x, 1 => y}", "#{1 => y,1.0 => x}");
    check_reads_as("{}", "{}");
    check_reads_as("#{}", "#{}");
    check_reads_as("<<>>", "<<>>");
    check_reads_as("<< \"ab\" , 1:3 >>", "<<97,98,1:3>>");
    check_reads_as("<<300:16>>", "<<1,44>>");
    check_reads_as("<<-1:12>>", "<<255,15:4>>");
    check_reads_as("<<-1>>", "<<255>>");
    check_reads_as("<<1:1,0:1,1:1>>", "<<5:3>>");
    check_reads_as("<<16#FFFFFFFFFFFFFFFFFF:72>>", "<<255,255,255,255,255,255,255,255,255>>");
    check_reads_as("<<-18446744073709551616:72>>", "<<255,0,0,0,0,0,0,0,0>>");
    check_reads_as("<0.42.0>", "<0.42.0>");
    check_reads_as("<0.268435455.7>", "<0.268435455.7>");
    check_reads_as("% comment\n[a, % more\n b]", "[a,b]");
}
END_TEST

/* Malformed input: the result code, the byte offset and the message, exactly. */
START_TEST(test_malformed)
{
    static const struct {
        const char *text;
        tc_result code;
        size_t offset;
        const char *message;
    } cases[] = {
        {"", TC_EPARSE, 0, "expected a term, found end of input"},
        {"   ", TC_EPARSE, 3, "expected a term, found end of input"},
        {"{1,2", TC_EPARSE, 4, "expected ',' or '}', found end of input"},
        {"[1,2", TC_EPARSE, 4, "expected ',', '|' or ']', found end of input"},
        {"[1|2|3]", TC_EPARSE, 4, "expected ']' after the tail of a list, found '|'"},
        {"[1,]", TC_EPARSE, 3, "expected a term, found ']'"},
        {"{a,}", TC_EPARSE, 3, "expected a term, found '}'"},
        {"{a b}", TC_EPARSE, 3, "expected ',' or '}', found 'b'"},
        {"a b", TC_EPARSE, 2, "expected end of input, found 'b'"},
        {"1 2", TC_EPARSE, 2, "expected end of input, found '2'"},
        {"X", TC_EPARSE, 0, "variables are not terms (found a name starting with 'X')"},
        {"_", TC_EPARSE, 0, "variables are not terms (found a name starting with '_')"},
        {"and", TC_EPARSE, 0, "reserved word 'and' must be quoted to be an atom"},
        {"'abc", TC_EPARSE, 0, "unterminated quoted atom starting here"},
        {"\"abc", TC_EPARSE, 0, "unterminated string starting here"},
        {"\"\\", TC_EPARSE, 2, "expected an escape character after '\\', found end of input"},
        {"\"\\x4\"", TC_EPARSE, 4, "expected two hex digits after '\\x', found '\"'"},
        {"\"\\x{}\"", TC_EPARSE, 4, "expected hex digits in '\\x{...}', found '}'"},
        {"\"\\x{41\"", TC_EPARSE, 6, "expected '}' closing '\\x{', found '\"'"},
        {"\"\\x{110000}\"", TC_ELIMIT, 1, "character code in '\\x{...}' past U+10FFFF"},
        {"#{a => 1", TC_EPARSE, 8, "expected ',' or '}', found end of input"},
        {"#{a := 1}", TC_EPARSE, 4, "expected '=>' in a map term (':=' only updates a map)"},
        {"#{a, 1}", TC_EPARSE, 3, "expected '=>' after a map key, found ','"},
        {"#[1]", TC_EPARSE, 1, "expected '{', 'Ref<' or 'Port<' after '#', found '['"},
        {"<<1,2", TC_EPARSE, 5, "expected ',' or '>>' in a binary, found end of input"},
        {"<<1/binary>>", TC_EUNSUPPORTED, 3, "binary type specifiers (/binary, /float, ...) are not supported"},
        {"<<a>>", TC_EPARSE, 2, "expected a digit, found 'a'"},
        {"<<1.5>>", TC_EPARSE, 2, "binary segments must be integers or strings"},
        {"<<1:134217729>>", TC_ELIMIT, 4, "a segment size in bits out of range (at most 134217728)"},
        {"<<-1:134217728, 1:1>>", TC_ELIMIT, 16,
         "binaries of more than 134217728 bits in all (termcopy's bound for binaries written as text)"},
        {"[<<0:100000000>>, <<0:40000000>>]", TC_ELIMIT, 20,
         "binaries of more than 134217728 bits in all (termcopy's bound for binaries written as text)"},
        {"<1.2.3>", TC_EUNSUPPORTED, 0,
         "a remote pid's text names its node by the VM's dist channel number, which text cannot resolve (list_to_pid/1 "
         "refuses it unless connected); give its external bytes with --ext"},
        {"#Ref<1.2.3.4>", TC_EUNSUPPORTED, 0,
         "a remote reference's text names its node by the VM's dist channel number, which text cannot resolve; give "
         "its external bytes with --ext"},
        {"#Port<0.268435456>", TC_ELIMIT, 8, "a port number out of range (at most 268435455)"},
        {"#Ref<0.1.2.262144>", TC_ELIMIT, 11, "a reference number out of range (at most 262143)"},
        {"#Ref<0.1.2>", TC_EPARSE, 10, "expected '.' in a reference, found '>'"},
        {"[#Fun<m.0.1>]", TC_EUNSUPPORTED, 1,
         "a fun's text #Fun<...> does not hold its code or free variables; give the fun's external bytes "
         "(term_to_binary) with --ext"},
        {"fun m:f/256", TC_ELIMIT, 8, "a fun's arity out of range (at most 255)"},
        {"fun m:f", TC_EPARSE, 7, "expected '/' in fun M:F/A, found end of input"},
        {"<0.268435456.0>", TC_ELIMIT, 3, "a pid's process number out of range (at most 268435455)"},
        {"<0.1>", TC_EPARSE, 4, "expected '.' in a pid, found '>'"},
        {"37#1", TC_EPARSE, 0, "integer base must be 2..36"},
        {"2#", TC_EPARSE, 2, "expected a base-N digit after '#', found end of input"},
        {"2#2", TC_EPARSE, 2, "expected a base-N digit after '#', found '2'"},
        {"1.0e400", TC_ELIMIT, 0, "float out of range (not a finite double)"},
        {"1.", TC_OK, 0, ""},
        {"1.e5", TC_EPARSE, 2, "expected end of input, found 'e'"},
        {"-", TC_EPARSE, 1, "expected a digit, found end of input"},
        {"- 1", TC_EPARSE, 1, "expected a digit, found a space"},
        {"\xff", TC_EPARSE, 0, "expected a term, found byte 0xFF"},
        {"'\xc3'", TC_EPARSE, 1, "invalid UTF-8 at byte 0xC3"},
        {"{1}}", TC_EPARSE, 3, "expected end of input, found '}'"},
        {"]", TC_EPARSE, 0, "expected a term, found ']'"},
        {"[a|]", TC_EPARSE, 3, "expected a term, found ']'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tc_term t;
        tc_read_error err = {0};
        tc_result r = tc_term_read(tc_arena_alloc(tc_fixture_arena()), cases[i].text, strlen(cases[i].text), &t, &err);
        ck_assert_msg(r == cases[i].code, "\"%s\": got %s (%s), expected %s", cases[i].text, tc_result_name(r),
                      err.message, tc_result_name(cases[i].code));
        if (r == TC_OK)
            continue;
        ck_assert_msg(err.offset == cases[i].offset, "\"%s\": offset %zu, expected %zu", cases[i].text, err.offset,
                      cases[i].offset);
        ck_assert_msg(strcmp(err.message, cases[i].message) == 0, "\"%s\": message \"%s\"", cases[i].text,
                      err.message);
    }
}
END_TEST

START_TEST(test_atom_length_limit)
{
    char text[300];
    memset(text, 'a', 255);
    text[255] = '\0';
    tc_term t = tc_read_ok(text);
    size_t len;
    tc_atom_name(t, &len);
    ck_assert_uint_eq(len, 255);
    /* 255 characters of two bytes each is still fine: the limit counts characters. */
    char quoted[600] = "'";
    for (int i = 0; i < 255; i++)
        strcat(quoted, "Ω");
    strcat(quoted, "'");
    tc_read_ok(quoted);

    memset(text, 'a', 256);
    text[256] = '\0';
    tc_read_error err = {0};
    ck_assert_int_eq(tc_term_read(tc_arena_alloc(tc_fixture_arena()), text, 256, &t, &err), TC_ELIMIT);
    ck_assert_str_eq(err.message, "atom too long (256 characters; the VM's limit is 255)");
    ck_assert_int_eq(tc_atom_intern(text, 256, &t), TC_ELIMIT);
}
END_TEST

/* Appends to the string in buf[cap]; the test fails if it would not fit. */
TC_PRINTF(3, 4) static void append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + used, cap - used, fmt, ap);
    va_end(ap);
    ck_assert(n >= 0 && (size_t)n < cap - used);
}

START_TEST(test_hashmap_read)
{
    char text[1024] = "#{";
    for (int i = 0; i < 33; i++)
        append(text, sizeof text, "%s%d => x", i ? "," : "", i);
    strcat(text, "}");
    tc_term t = tc_read_ok(text);
    /* 33 keys are a hashmap: erts_debug:flat_size(maps:from_list([{I,x}||I<-lists:seq(0,32)])) */
    ck_assert(tc_is_hashmap(t));
    ck_assert_uint_eq(tc_flat_ok(t), 127);
    ck_assert(tc_term_verify(t, NULL));
    /* A repeated key keeps the last value, and 33 pairs over 32 keys are a flatmap. */
    text[2] = '\0';
    for (int i = 0; i < 33; i++)
        append(text, sizeof text, "%s%d => %d", i ? "," : "", i % 32, i);
    strcat(text, "}");
    t = tc_read_ok(text);
    ck_assert(!tc_is_hashmap(t));
    ck_assert_str_eq(tc_print_ok(tc_read_ok("#{1 => a, 1 => b}")), "#{1 => b}");
    ck_assert_uint_eq(tc_map_size(t), 32);
    /* 32 keys are a flatmap of 3 + 32 + 33 words. */
    text[2] = '\0';
    for (int i = 0; i < 32; i++)
        append(text, sizeof text, "%s%d => x", i ? "," : "", i);
    strcat(text, "}");
    ck_assert_uint_eq(tc_flat_ok(tc_read_ok(text)), 3 + 32 + 33);
}
END_TEST

/* Deep and long terms go through every walk without touching the C stack. */
START_TEST(test_deep_structures)
{
    enum { DEPTH = 100000, LENGTH = 1000000 };
    char *text = malloc((size_t)DEPTH * 8 + 16);
    ck_assert(text != NULL);
    char *p = text;
    for (int i = 0; i < DEPTH; i++)
        p += sprintf(p, "{%d,", i % 10);
    p += sprintf(p, "[]");
    for (int i = 0; i < DEPTH; i++)
        *p++ = '}';
    *p = '\0';
    tc_term nested = tc_read_ok(text);
    ck_assert_uint_eq(tc_flat_ok(nested), (uint64_t)DEPTH * 3);
    ck_assert_uint_eq(tc_shared_ok(nested), (uint64_t)DEPTH * 3);
    ck_assert_str_eq(tc_print_ok(nested), text);
    ck_assert(tc_equal_ok(nested, tc_read_ok(text)));
    free(text);

    tc_alloc *a = tc_arena_alloc(tc_fixture_arena());
    tc_term list = TC_NIL, list2 = TC_NIL;
    for (int i = LENGTH; i > 0; i--) {
        list = tc_term_cons(a, tc_make_small(i), list);
        list2 = tc_term_cons(a, tc_make_small(i), list2);
    }
    ck_assert_uint_eq(tc_flat_ok(list), 2u * LENGTH);
    ck_assert_uint_eq(tc_shared_ok(list), 2u * LENGTH);
    ck_assert(tc_equal_ok(list, list2));
    ck_assert(tc_term_verify(list, NULL));
    const char *printed = tc_print_ok(list);
    ck_assert(tc_equal_ok(tc_read_ok(printed), list));

    /* A long list nested in the car position: deep on the other axis. */
    tc_term deep = TC_NIL;
    for (int i = 0; i < DEPTH; i++)
        deep = tc_term_cons(a, deep, TC_NIL);
    ck_assert_uint_eq(tc_flat_ok(deep), 2u * DEPTH);
    ck_assert(tc_equal_ok(tc_read_ok(tc_print_ok(deep)), deep));
}
END_TEST

/* Found by fuzzing: a huge sign-extended segment was written bit by bit (a near hang). */
START_TEST(test_large_segment)
{
    tc_term t = tc_read_ok("<<-1:100000001>>");
    ck_assert_uint_eq(tc_flat_ok(t), TC_PROC_BIN_SIZE + TC_SUB_BIN_SIZE);
    ck_assert_str_eq(tc_print_ok(tc_read_ok("<<-1:20, -5:70, 5:3, 0:9>>")),
                     "<<255,255,255,255,255,255,255,255,255,255,254,232,0:6>>");
}
END_TEST

/* Every allocation the reader makes may fail: each failure is TC_ENOMEM and leaks nothing. */
START_TEST(test_allocation_failure)
{
    const char *text = "{a, [1,2|3], <<0:600>>, <<1:3>>, #{k => \"str\"}, 123456789012345678901234567890, 1.5}";
    tc_read_ok(text); /* interns the atoms first: they live for the program */
    tc_fixture_teardown();
    int64_t live = tc_mem_live();
    for (uint64_t n = 1;; n++) {
        tc_arena *arena = tc_arena_new(16);
        ck_assert(arena != NULL);
        tc_term t;
        tc_mem_fail_at(n);
        tc_result r = tc_term_read(tc_arena_alloc(arena), text, strlen(text), &t, NULL);
        tc_mem_fail_at(0);
        tc_arena_free(arena);
        ck_assert_int_eq(tc_mem_live(), live);
        if (r == TC_OK) {
            ck_assert_uint_gt(n, 5);
            break;
        }
        ck_assert_msg(r == TC_ENOMEM, "failure at allocation %llu gave %s", (unsigned long long)n, tc_result_name(r));
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("terms_reader");
    TCase *tc = tcase_create("reader");
    tcase_add_checked_fixture(tc, NULL, tc_fixture_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_bignum_edges);
    tcase_add_test(tc, test_bignum_conversion);
    tcase_add_test(tc, test_escapes);
    tcase_add_test(tc, test_containers);
    tcase_add_test(tc, test_malformed);
    tcase_add_test(tc, test_atom_length_limit);
    tcase_add_test(tc, test_hashmap_read);
    tcase_add_test(tc, test_deep_structures);
    tcase_add_test(tc, test_large_segment);
    tcase_add_test(tc, test_allocation_failure);
    suite_add_tcase(s, tc);
    return tc_run_suite(s);
}
