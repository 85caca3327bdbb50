/*
 * termcopy — the command-line face of the library: read a term written as Erlang text and
 * say what the VM would make of it, turn it into (and back from) the external term format, or
 * explain whether ets:lookup of it loses to a message round trip, and why, by running the model's
 * (and the VM's) eptest loops on it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy/compact.h"
#include "codec/ext.h"
#include "scenarios/progress.h"
#include "scenarios/timing.h"
#include "terms/arena.h"
#include "codec/printer.h"
#include "codec/reader.h"
#include "terms/size.h"
#include "scenarios/account.h"
#include "scenarios/vmoverhead.h"
#include "scenarios/workload.h"
#include "stores/ets.h"

#define EXIT_USAGE 2

static const char usage_main[] =
    "usage: termcopy COMMAND [OPTIONS] TERM\n"
    "\n"
    "TERM is Erlang term text (as io_lib:format(\"~w\") writes it, or any literal term);\n"
    "'-' reads it from standard input. With --ext (every command takes it) TERM is the hex of an\n"
    "external-format binary (term_to_binary's bytes), and '-' reads hex or the raw bytes.\n"
    "\n"
    "commands:\n"
    "  size [--tsv] [--ext] TERM\n"
    "                      flat and shared size in 64-bit words (erts_debug:flat_size, erts_debug:size)\n"
    "  print [--ext] TERM  the term as ~w prints it\n"
    "  encode [--minor 1|2] [--compressed] [--ext] TERM\n"
    "                      term_to_binary(TERM, [{minor_version, 2}]) (or 1; [compressed, ...]) as hex\n"
    "  decode [--strict] [--ext] HEX\n"
    "                      binary_to_term of the hex bytes (COMPRESSED too), printed as ~w\n"
    "  explain [--ext] [--vm] [--tsv] [--iterations N] [--repeats R] TERM\n"
    "                      is ets:lookup of TERM slower than a round trip carrying it, and why:\n"
    "                      the model's eptest loops on TERM (--vm: and the installed VM's)\n"
    "\n"
    "'termcopy COMMAND --help' describes one command; 'termcopy --version' prints the version.\n"
    "Bad input: a one-line message, exit 2.\n";

static const char usage_size[] =
    "usage: termcopy size [--tsv] [--ext] TERM\n"
    "\n"
    "Prints the flat size (what a copy by send or ETS insert allocates; shared subterms are\n"
    "counted each time they are reached) and the shared size (each subterm once), in words\n"
    "of the 64-bit VM (OTP 25 layout).\n"
    "  --tsv   print exactly FLAT<TAB>SHARED on one line\n"
    "  --ext   TERM is the hex of an external-format binary ('-': hex or raw bytes on stdin)\n";

static const char usage_print[] =
    "usage: termcopy print [--ext] TERM\n"
    "\n"
    "Reads TERM and prints it exactly as io_lib:format(\"~w\", [T]) does on OTP 25: a remote\n"
    "pid, port or ref names its node by the atom index of the node's name (the VM's dist\n"
    "channel), a local fun as #Fun<Module.OldIndex.OldUniq>, an export fun as fun M:F/A.\n"
    "  --ext   TERM is the hex of an external-format binary ('-': hex or raw bytes on stdin)\n";

static const char usage_encode[] =
    "usage: termcopy encode [--minor 1|2] [--compressed] [--ext] TERM\n"
    "\n"
    "Prints the external term format of TERM (what term_to_binary writes, version byte 131\n"
    "first) as uppercase hex on one line.\n"
    "  --minor 2   the default here: atoms always UTF-8 (SMALL_ATOM_UTF8_EXT), as\n"
    "              term_to_binary(T, [{minor_version, 2}]) and the golden vectors; OTP 26's default\n"
    "  --minor 1   OTP 25's term_to_binary/1 default: Latin-1 atoms as ATOM_EXT\n"
    "  --compressed  term_to_binary(T, [compressed, ...]): zlib level 6 (COMPRESSED, tag 80) when\n"
    "              that is no longer than the plain form, else the plain form, as the VM\n"
    "  --ext       TERM is the hex of an external-format binary ('-': hex or raw bytes on stdin),\n"
    "              re-encoded as the VM re-encodes what binary_to_term built\n";

static const char usage_decode[] =
    "usage: termcopy decode [--strict] [--ext] HEX\n"
    "\n"
    "Decodes HEX (the external term format, version byte 131 first; whitespace is ignored;\n"
    "'-' reads hex, or the raw bytes, from standard input; a COMPRESSED term is inflated) as\n"
    "binary_to_term/1 does, accepting what it accepts and refusing what it refuses, and prints\n"
    "the term as ~w. Like binary_to_term/1 it ignores bytes after the term (and after a\n"
    "COMPRESSED term's zlib stream) and takes any nonzero bignum sign byte as negative.\n"
    "\n"
    "  --strict  also refuse those: the input must be exactly one canonical term\n"
    "  --ext     accepted for uniformity: decode always reads the external format\n";

static int fail(const char *fmt, const char *detail)
{
    fprintf(stderr, "termcopy: ");
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

/* Reads all of standard input; NULL on failure with errno-style message printed. */
static char *slurp_stdin(size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, stdin);
        n += got;
        if (got == 0) {
            if (ferror(stdin)) {
                free(buf);
                return NULL;
            }
            *len = n;
            return buf;
        }
        if (n == cap) {
            char *p = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!p)
                free(buf);
            buf = p;
            cap *= 2;
        }
    }
    return NULL;
}

/* The text of an operand: the argument itself, or all of standard input for '-' (then
 * *owned is set, to be freed). NULL, after printing why, when stdin cannot be read. */
static const char *operand_text(const char *arg, size_t *len, char **owned)
{
    *owned = NULL;
    if (strcmp(arg, "-") != 0) {
        *len = strlen(arg);
        return arg;
    }
    *owned = slurp_stdin(len);
    if (!*owned)
        fail("cannot read standard input: %s", strerror(errno ? errno : ENOMEM));
    return *owned;
}

/* Reads TERM (text or '-') into `arena`; prints the error and returns false on bad input. */
static bool read_term_arg(const char *arg, tc_arena *arena, tc_term *out)
{
    size_t len;
    char *stdin_text;
    const char *text = operand_text(arg, &len, &stdin_text);
    if (!text)
        return false;
    tc_read_error err = {0};
    tc_result r = tc_term_read(tc_arena_alloc(arena), text, len, out, &err);
    free(stdin_text);
    if (r == TC_ENOMEM) {
        fail("%s", "out of memory reading the term");
        return false;
    }
    if (r != TC_OK) {
        fprintf(stderr, "termcopy: bad term at byte %zu: %s\n", err.offset, err.message);
        return false;
    }
    return true;
}

/* Hex text to bytes (whitespace between digits ignored); NULL after printing why. */
static unsigned char *parse_hex(const char *text, size_t len, size_t *n)
{
    unsigned char *bytes = malloc(len / 2 + 1);
    if (!bytes) {
        fail("%s", "out of memory");
        return NULL;
    }
    size_t digits = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        int v = tc_hex_digit(c);
        if (v < 0) {
            fprintf(stderr, "termcopy: bad hex: %s 0x%02X at character %zu\n",
                    c >= 0x21 && c <= 0x7E ? "not a hex digit:" : "byte", c, i);
            free(bytes);
            return NULL;
        }
        if (digits % 2 == 0)
            bytes[digits / 2] = (unsigned char)(v << 4);
        else
            bytes[digits / 2] |= (unsigned char)v;
        digits++;
    }
    if (digits % 2) {
        fprintf(stderr, "termcopy: bad hex: odd number of hex digits (%zu)\n", digits);
        free(bytes);
        return NULL;
    }
    *n = digits / 2;
    return bytes;
}

/* The term of the operand: text, or with --ext the hex of (or, from standard input, the raw
 * bytes of) an external-format binary, decoded as 'termcopy decode' does. */
static bool read_ext_arg(const char *arg, bool strict, tc_arena *arena, tc_term *out)
{
    size_t len, n;
    char *stdin_text;
    const char *text = operand_text(arg, &len, &stdin_text);
    if (!text)
        return false;
    unsigned char *bytes;
    if (stdin_text && len > 0 && (unsigned char)text[0] == TC_EXT_VERSION) {
        bytes = malloc(len);
        if (bytes)
            memcpy(bytes, text, len);
        else
            fail("%s", "out of memory");
        n = len;
    } else {
        bytes = parse_hex(text, len, &n);
    }
    free(stdin_text);
    if (!bytes)
        return false;
    tc_read_error err = {0};
    tc_result r = (strict ? tc_ext_decode_strict : tc_ext_decode)(tc_arena_alloc(arena), bytes, n, out, &err);
    free(bytes);
    if (r == TC_ENOMEM)
        fail("%s", "out of memory decoding the term");
    else if (r != TC_OK)
        fprintf(stderr, "termcopy: bad external term (%s): %s\n", tc_result_name(r), err.message);
    return r == TC_OK;
}

/* The operand of every command: TERM text, or with --ext an external-format binary. */
static bool read_operand(const char *arg, bool ext, tc_arena *arena, tc_term *out)
{
    return ext ? read_ext_arg(arg, false, arena, out) : read_term_arg(arg, arena, out);
}

/* --help or -h among the options; after "--" it is an operand (a TERM), not a request. */
static bool wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

/* One option of a command: a flag, or (takes_value) '--name VALUE' / '--name=VALUE'; with
 * `all` set, every value given is kept there in order (at most `maxall`), not only the last. */
typedef struct option {
    const char *name;
    bool takes_value;
    bool set;
    const char *value;
    const char **all;
    int nall, maxall;
} option;

/* Splits argv into the options in `opts` (ended by a NULL name; may be NULL) and exactly one
 * TERM operand (or none, when term_optional). A usage error is one line naming the
 * command's --help, and exit 2. */
static int parse_args(int argc, char **argv, option *opts, const char **term, bool term_optional, const char *cmd)
{
    *term = NULL;
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
        } else if (!options_done && a[0] == '-' && a[1] != '\0' && !(a[1] >= '0' && a[1] <= '9') && a[1] != '$') {
            bool known = false;
            for (option *o = opts; o && o->name && !known; o++) {
                size_t n = strlen(o->name);
                if (strncmp(a, o->name, n) != 0 || (a[n] != '\0' && !(o->takes_value && a[n] == '=')))
                    continue;
                known = o->set = true;
                if (!o->takes_value)
                    continue;
                if (a[n] == '=') {
                    o->value = a + n + 1;
                } else if (i + 1 < argc) {
                    o->value = argv[++i];
                } else {
                    fprintf(stderr, "termcopy %s: option '%s' needs a value (see 'termcopy %s --help')\n", cmd,
                            o->name, cmd);
                    return EXIT_USAGE;
                }
                if (o->all && o->nall == o->maxall) {
                    fprintf(stderr, "termcopy %s: option '%s' given more than %d times\n", cmd, o->name, o->maxall);
                    return EXIT_USAGE;
                }
                if (o->all)
                    o->all[o->nall++] = o->value;
            }
            if (!known) {
                fprintf(stderr, "termcopy %s: unknown option '%s' (see 'termcopy %s --help')\n", cmd, a, cmd);
                return EXIT_USAGE;
            }
        } else if (*term) {
            fprintf(stderr, "termcopy %s: one TERM expected, got a second: '%.40s' (quote the term)\n", cmd, a);
            return EXIT_USAGE;
        } else {
            *term = a;
        }
    }
    if (!*term && !term_optional) {
        fprintf(stderr, "termcopy %s: missing TERM (see 'termcopy %s --help')\n", cmd, cmd);
        return EXIT_USAGE;
    }
    return 0;
}

static int cmd_size(int argc, char **argv)
{
    option opts[] = {{"--tsv", false, false, NULL, NULL, 0, 0}, {"--ext", false, false, NULL, NULL, 0, 0}, {NULL, false, false, NULL, NULL, 0, 0}};
    const char *arg;
    int rc = parse_args(argc, argv, opts, &arg, false, "size");
    if (rc)
        return rc;
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return fail("%s", "out of memory");
    tc_term t;
    uint64_t flat, shared;
    rc = EXIT_USAGE;
    if (read_operand(arg, opts[1].set, arena, &t)) {
        if (tc_term_flat_size(t, &flat) != TC_OK || tc_term_shared_size(t, &shared) != TC_OK) {
            fail("%s", "out of memory sizing the term");
        } else {
            if (opts[0].set)
                printf("%llu\t%llu\n", (unsigned long long)flat, (unsigned long long)shared);
            else
                printf("flat size:   %llu words (%llu bytes)\nshared size: %llu words (%llu bytes)\n",
                       (unsigned long long)flat, (unsigned long long)flat * TC_WORD_BYTES,
                       (unsigned long long)shared, (unsigned long long)shared * TC_WORD_BYTES);
            rc = 0;
        }
    }
    tc_arena_free(arena);
    return rc;
}

static int cmd_print(int argc, char **argv)
{
    option opts[] = {{"--ext", false, false, NULL, NULL, 0, 0}, {NULL, false, false, NULL, NULL, 0, 0}};
    const char *arg;
    int rc = parse_args(argc, argv, opts, &arg, false, "print");
    if (rc)
        return rc;
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return fail("%s", "out of memory");
    tc_term t;
    char *text;
    size_t len;
    rc = EXIT_USAGE;
    if (read_operand(arg, opts[0].set, arena, &t)) {
        if (tc_term_print(t, &text, &len) != TC_OK) {
            fail("%s", "out of memory printing the term");
        } else {
            (void)fwrite(text, 1, len, stdout); /* main checks stdout before exiting */
            fputc('\n', stdout);
            tc_mem_free(text);
            rc = 0;
        }
    }
    tc_arena_free(arena);
    return rc;
}

static int cmd_encode(int argc, char **argv)
{
    option opts[] = {{"--minor", true, false, NULL, NULL, 0, 0},
                     {"--ext", false, false, NULL, NULL, 0, 0},
                     {"--compressed", false, false, NULL, NULL, 0, 0},
                     {NULL, false, false, NULL, NULL, 0, 0}};
    const char *arg;
    int rc = parse_args(argc, argv, opts, &arg, false, "encode");
    if (rc)
        return rc;
    unsigned minor = 2;
    if (opts[0].set) {
        if (strcmp(opts[0].value, "1") != 0 && strcmp(opts[0].value, "2") != 0) {
            fprintf(stderr, "termcopy: --minor must be 1 or 2, not '%.20s'\n", opts[0].value);
            return EXIT_USAGE;
        }
        minor = (unsigned)(opts[0].value[0] - '0');
    }
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return fail("%s", "out of memory");
    tc_term t;
    unsigned char *bytes;
    size_t len;
    rc = EXIT_USAGE;
    if (read_operand(arg, opts[1].set, arena, &t)) {
        tc_result r = opts[2].set ? tc_ext_encode_compressed(t, minor, TC_EXT_COMPRESSED_LEVEL, &bytes, &len)
                                  : tc_ext_encode(t, minor, &bytes, &len);
        if (r != TC_OK) {
            fail("cannot encode the term: %s", tc_result_name(r));
        } else {
            for (size_t i = 0; i < len; i++)
                printf("%02X", bytes[i]);
            putchar('\n');
            tc_mem_free(bytes);
            rc = 0;
        }
    }
    tc_arena_free(arena);
    return rc;
}

static int cmd_decode(int argc, char **argv)
{
    option opts[] = {{"--ext", false, false, NULL, NULL, 0, 0}, /* what decode always reads */
                     {"--strict", false, false, NULL, NULL, 0, 0},
                     {NULL, false, false, NULL, NULL, 0, 0}};
    const char *arg;
    int rc = parse_args(argc, argv, opts, &arg, false, "decode");
    if (rc)
        return rc;
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return fail("%s", "out of memory");
    tc_term t;
    char *out;
    size_t out_len;
    rc = EXIT_USAGE;
    if (!read_ext_arg(arg, opts[1].set, arena, &t)) {
        /* said why */
    } else if (tc_term_print(t, &out, &out_len) != TC_OK) {
        fail("%s", "out of memory printing the term");
    } else {
        (void)fwrite(out, 1, out_len, stdout); /* main checks stdout before exiting */
        fputc('\n', stdout);
        tc_mem_free(out);
        rc = 0;
    }
    tc_arena_free(arena);
    return rc;
}

/* The flat size, the stored size of {1, t} and the external size; false after saying why. */
static bool term_sizes(tc_arena *arena, tc_term t, uint64_t *flat, uint64_t *shared, size_t *stored,
                          size_t *ext)
{
    tc_term elems[2] = {tc_make_small(1), t};
    tc_term object = tc_term_tuple(tc_arena_alloc(arena), elems, 2);
    tc_copy_compact *block = NULL;
    if (tc_term_flat_size(t, flat) != TC_OK || tc_term_shared_size(t, shared) != TC_OK ||
        object == TC_NON_VALUE || tc_copy_compact_in(object, &block, NULL) != TC_OK) {
        fail("%s", "out of memory sizing the term");
        return false;
    }
    *stored = tc_copy_compact_size(block);
    tc_copy_compact_free(block);
    tc_result r = tc_ext_size(t, 2, ext);
    if (r != TC_OK) {
        fail("cannot size the external format: %s", tc_result_name(r));
        return false;
    }
    return true;
}

/* The words {1, TERM} adds to the objects of a plain or a compressed set (stores/ets.h's
 * memory_words: ets:info(T, memory) per object). */
static bool object_memory(tc_arena *arena, tc_term t, bool compressed, uint64_t *words)
{
    tc_term elems[2] = {tc_make_small(1), t};
    tc_term object = tc_term_tuple(tc_arena_alloc(arena), elems, 2);
    tc_ets_opts o = tc_ets_opts_default(TC_ETS_LOCK_NONE);
    o.compressed = compressed;
    tc_ets *table = NULL;
    tc_result r = object == TC_NON_VALUE ? TC_ENOMEM : tc_ets_new(&o, &table);
    if (r == TC_OK && (r = tc_ets_insert(table, object, NULL)) == TC_OK)
        *words = tc_ets_get_info(table).memory_words;
    tc_ets_free(table);
    if (r != TC_OK)
        fail("cannot store the term in a table: %s", tc_result_name(r));
    return r == TC_OK;
}

/* ---- explain: the model's (and the VM's) eptest loops on the user's term ------------------ */

/* The seed's N (and the report's), and 5 runs: a list of 10000 integers takes about 5 s in a
 * release build (three variants of six passes each run). */
#define EXPLAIN_ITERATIONS 1000
#define EXPLAIN_REPEATS 5
#define EXPLAIN_MAX_REPEATS 64 /* tc_ep_measure_gap's limit, and the rounds kept here */
/* The min_heap_size remedy: a young heap that holds Data and this many lookup results, so
 * the lookup loop collects at most once per that many lookups instead of at every one whose
 * result does not fit. */
#define EXPLAIN_MIN_HEAP_RESULTS 8
#define EXPLAIN_STR(x) #x
#define EXPLAIN_XSTR(x) EXPLAIN_STR(x)
/* The +MHsbct remedy, in KiB as the flag takes it: eheap's single-block carrier threshold
 * 512 KiB -> 2 MiB, as experiments/beam/run.sh's section 7.5 runs. */
#define EXPLAIN_SBCT_KIB 2048
#define EXPLAIN_MAX_SETS 32
/* The VM's scheduler flags, as experiments/beam/run.sh runs every eptest. */
#define EXPLAIN_VM_BASE "+S 2:2"

static const char usage_explain[] =
    "usage: termcopy explain [--ext] [--vm] [--tsv] [--iterations N] [--repeats R]\n"
    "                        [--set NAME=VALUE ...] TERM\n"
    "       termcopy explain --list-policy [--csv FILE|-]\n"
    "\n"
    "Is ets:lookup/2 of TERM slower or faster than a client-server round trip carrying it, and\n"
    "why? Runs the modelled eptest loops (scenarios/workload.h) with TERM as Data under OTP 25\n"
    "rules (the native era of the policy table): N lookups of {I, TERM} from a set table (the result dropped: live only across the\n"
    "GC that follows the BIF) against N calls whose reply is {self(), TERM}. Prints the verdict\n"
    "(the median lookup pass over the median round-trip pass of R runs), the spread of the\n"
    "per-run ratios (min-max), and per 1000 operations the counts that explain it: GCs, words\n"
    "the GCs copied, words the copies wrote, fresh carriers mapped, minor faults. Then each\n"
    "remedy rerun with its ratio, each a field of the policy table: min_heap_size computed for\n"
    "TERM (the next heap size above TERM's flat size plus " EXPLAIN_XSTR(EXPLAIN_MIN_HEAP_RESULTS) " results [{I, TERM}]), sbct\n"
    "2097152 (+MHsbct 2048: a 2 MiB single-block carrier threshold) and ets_compressed on (a\n"
    "[set, compressed] table: its words per object and per lookup beside the plain table's);\n"
    "and persistent_term:get of TERM instead of the lookup (N gets of TERM put once: a get\n"
    "copies nothing), its time per get beside the lookup's.\n"
    "  --ext           TERM is the hex of an external-format binary (term_to_binary); with '-'\n"
    "                  standard input holds hex, or the raw bytes when they start with 131\n"
    "  --vm            also run experiments/beam/eptest.erl on the installed VM (erl and erlc on\n"
    "                  PATH; missing: one line, exit 2) with TERM as its external bytes, one run\n"
    "                  at a time alternated with the model's, each remedy too (min_heap_size as\n"
    "                  the tester's spawn option, +MHsbct as an emulator flag, ets_compressed\n"
    "                  as the table's option); adds the VM's\n"
    "                  column. The VM's GCs are of all processes; it does not count words. Also\n"
    "                  measures the vm_overhead phase (the VM's fixed per-operation cost the\n"
    "                  model does not execute: scenarios/vmoverhead.h) and prints the model's\n"
    "                  verdict with it added; without --vm the phase is absent. And the time\n"
    "                  account (scenarios/account.h): the unit prices the VM shows for TERM in\n"
    "                  calibration runs of one session, a point each round, the medians of the\n"
    "                  rounds (experiments/beam/account.erl; needs the\n"
    "                  cpuclock NIF, built where erl_nif.h is), the VM's counts and the model's\n"
    "                  at those prices, in phases; the model's verdict is then its priced counts'\n"
    "  --tsv           one line: model_ratio vm_ratio model_lookup_gcs vm_lookup_gcs\n"
    "                  model_lookup_faults vm_lookup_faults verdict model_exec_ratio,\n"
    "                  tab-separated; counts per 1000 lookups; model_ratio is the model's counts\n"
    "                  at the VM's prices with --vm (lookup / round trip, priced), else its C\n"
    "                  code's own time; model_exec_ratio is always the C code's time; vm_* are\n"
    "                  '-' without --vm; verdict is 'slower' or 'faster', of the VM's ratio with\n"
    "                  --vm, else of the model's; it runs OTP 25 as shipped only (no remedy,\n"
    "                  no vm_overhead phase: the full output's)\n"
    "  --iterations N  operations per loop (default " EXPLAIN_XSTR(EXPLAIN_ITERATIONS) ")\n"
    "  --repeats R     runs (rounds with --vm) to take medians over, 1 to 64 (default " EXPLAIN_XSTR(EXPLAIN_REPEATS) ")\n"
    "  --set NAME=VALUE  one field of the policy table over OTP 25's value, in the model's runs\n"
    "                  (the VM runs as installed); repeatable; the remedies start from it\n"
    "  --list-policy   print the policy table (every field: its values, each era's, the erts\n"
    "                  source it models) and exit; with --csv FILE|- as CSV, one row per field\n"
    "Times are the model's own only in a release build: at debug level 1 or 2 its checks run\n"
    "inside the timed loops (the output says so); the counts are the same at every level.\n";

/* One loop pair's measurements over the rounds: each round's round trip (the median of its
 * three proc passes) and lookup pass, and the first round's counts (proc2's and lookup's). */
typedef struct explain_series {
    bool ok;
    int n;
    double proc_us[EXPLAIN_MAX_REPEATS], lookup_us[EXPLAIN_MAX_REPEATS], pt_us[EXPLAIN_MAX_REPEATS];
    tc_ep_counts proc, lookup;
    bool has_words; /* the VM counts no words */
} explain_series;

typedef struct explain_summary {
    double ratio, lo, hi;
    double lookup_us; /* the median lookup pass */
    double pt_us;     /* the median persistent_term:get pass */
} explain_summary;

/* The ratio as tc_ep_measure_gap defines it (median lookup over median round trip), and the
 * spread of the per-round ratios (each round's halves saw the same moment of the machine). */
static explain_summary explain_summarize(const explain_series *s)
{
    double proc[EXPLAIN_MAX_REPEATS], lookup[EXPLAIN_MAX_REPEATS], pt[EXPLAIN_MAX_REPEATS];
    explain_summary out = {0, 0, 0, 0, 0};
    for (int k = 0; k < s->n; k++) {
        proc[k] = s->proc_us[k];
        lookup[k] = s->lookup_us[k];
        pt[k] = s->pt_us[k];
        double r = proc[k] > 0 ? lookup[k] / proc[k] : 0;
        if (k == 0 || r < out.lo)
            out.lo = r;
        if (k == 0 || r > out.hi)
            out.hi = r;
    }
    double p = tc_timing_summarize(proc, (size_t)s->n).median;
    out.lookup_us = tc_timing_summarize(lookup, (size_t)s->n).median;
    out.pt_us = tc_timing_summarize(pt, (size_t)s->n).median;
    out.ratio = p > 0 ? out.lookup_us / p : 0;
    return out;
}

static void series_add(explain_series *s, double proc_us, double lookup_us, double pt_us, const tc_ep_counts *proc,
                       const tc_ep_counts *lookup)
{
    if (s->n == 0) {
        s->proc = *proc;
        s->lookup = *lookup;
    }
    s->proc_us[s->n] = proc_us;
    s->lookup_us[s->n] = lookup_us;
    s->pt_us[s->n] = pt_us;
    s->n++;
}

/* One model run of the loops: tc_ep_measure_gap of one repeat gives its round trip and its
 * lookup pass with their counts. */
static bool explain_model_round(const tc_ep_config *cfg, explain_series *s)
{
    tc_ep_gap g;
    tc_result r = tc_ep_measure_gap(cfg, 1, &g);
    if (r != TC_OK) {
        fail("the model's run failed: %s", tc_result_name(r));
        return false;
    }
    series_add(s, g.proc_us, g.lookup_us, g.pt_get_us, &g.proc, &g.lookup);
    return true;
}

/* ---- the VM's side: eptest.erl and its companions compiled once for the run's sessions ---- */

typedef struct explain_vm {
    char dir[64];     /* the temporary directory: term.ext, and the .beam files unless cached */
    char src[4096];   /* the directory of eptest.erl and the modules beside it */
    char beams[4096]; /* where the modules are compiled: TC_BEAM_CACHE, else dir */
    bool own_cache;   /* TC_BEAM_CACHE was set here to dir, so the sessions reuse this compile */
} explain_vm;

/* eptest.erl: installed beside the command (<prefix>/share/termcopy), else the source tree's. */
static bool find_eptest(char *out, size_t cap)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            if (snprintf(out, cap, "%s/%s", exe, TC_EPTEST_ERL_INSTALLED) < (int)cap && access(out, R_OK) == 0)
                return true;
        }
    }
    return snprintf(out, cap, "%s", TC_EPTEST_ERL_TREE) < (int)cap && access(out, R_OK) == 0;
}

static void explain_vm_cleanup(explain_vm *vm)
{
    if (vm->own_cache)
        (void)unsetenv(TC_VM_BEAM_CACHE);
    vm->own_cache = false;
    if (!vm->dir[0])
        return;
    char file[128];
    static const char *const files[] = {"eptest.beam", "unitcost.beam", "account.beam", "cpuclock.beam", "term.ext"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        (void)snprintf(file, sizeof file, "%s/%s", vm->dir, files[i]); /* dir is short */
        (void)unlink(file);                                           /* absent is fine */
    }
    (void)rmdir(vm->dir);
    vm->dir[0] = '\0';
}

/* Finds erl, erlc and eptest.erl, compiles the modules once for every session of the run (into
 * TC_BEAM_CACHE when the caller set it, else the temporary directory, which then serves as the
 * sessions' cache) and writes the term's external bytes. */
static bool explain_vm_setup(explain_vm *vm, const unsigned char *ext, size_t ext_len)
{
    if (!tc_vm_on_path("erl") || !tc_vm_on_path("erlc")) {
        fprintf(stderr, "termcopy explain: --vm needs erl and erlc on PATH, and %s not found "
                        "(install Erlang/OTP, e.g. apt-get install erlang-nox, or run without --vm)\n",
                tc_vm_on_path("erl") ? "erlc is" : "erl is");
        return false;
    }
    if (!find_eptest(vm->src, sizeof vm->src) || strchr(vm->src, '\'')) {
        fprintf(stderr, "termcopy explain: --vm cannot find eptest.erl (looked beside the command in "
                        "%s and at %s)\n", TC_EPTEST_ERL_INSTALLED, TC_EPTEST_ERL_TREE);
        return false;
    }
    char *slash = strrchr(vm->src, '/');
    if (slash)
        *slash = '\0';
    else
        (void)snprintf(vm->src, sizeof vm->src, ".");
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 32 || strchr(tmp, '\''))
        tmp = "/tmp"; /* the directory goes into shell commands and fixed buffers */
    (void)snprintf(vm->dir, sizeof vm->dir, "%s/termcopy-explain.XXXXXX", tmp);
    if (!mkdtemp(vm->dir)) {
        vm->dir[0] = '\0';
        fail("--vm cannot make a temporary directory: %s", strerror(errno));
        return false;
    }
    char file[128];
    (void)snprintf(file, sizeof file, "%s/term.ext", vm->dir);
    FILE *f = fopen(file, "wb");
    if (!f || fwrite(ext, 1, ext_len, f) != ext_len || fclose(f) != 0) {
        fail("--vm cannot write the term's external bytes: %s", strerror(errno));
        return false;
    }
    const char *cache = getenv(TC_VM_BEAM_CACHE);
    if (!cache || !*cache) {
        if (setenv(TC_VM_BEAM_CACHE, vm->dir, 1) != 0) {
            fail("--vm cannot set TC_BEAM_CACHE: %s", strerror(errno));
            return false;
        }
        vm->own_cache = true;
        cache = vm->dir;
    }
    if (snprintf(vm->beams, sizeof vm->beams, "%s", cache) >= (int)sizeof vm->beams || strchr(vm->beams, '\'')) {
        fail("--vm cannot use TC_BEAM_CACHE=%s (too long, or a quote in it)", cache);
        return false;
    }
    return tc_vm_compile("termcopy explain", vm->src, vm->beams);
}

/* The numeric field `col` (0-based) of a CSV row; NAN when absent or "n/a". */
static double csv_field(const char *row, int col)
{
    for (int i = 0; i < col && row; i++)
        row = (row = strchr(row, ',')) ? row + 1 : NULL;
    if (!row)
        return NAN;
    char *end;
    double v = strtod(row, &end);
    return end == row ? NAN : v;
}

/* One VM run of eptest on the term (one repeat), with the emulator `flags` and eptest
 * `args`; adds its round trip and lookup pass to `s`. The CSV's columns are the model's
 * (test, ..., median_us 5, faults 7, gcs 8, carriers_mapped 12). */
static bool explain_vm_round(const explain_vm *vm, const char *flags, const char *args, long iterations,
                             explain_series *s)
{
    char cmd[8192], line[4096];
    (void)snprintf(cmd, sizeof cmd,
                   "erl -noshell " EXPLAIN_VM_BASE " %s -pa '%s' -s eptest main -extra --flags '" EXPLAIN_VM_BASE
                   " %s' --ext-file '%s/term.ext' --iterations %ld --repeats 1 %s --csv - 2>&1",
                   flags, vm->beams, flags, vm->dir, iterations, args);
    // NOLINTNEXTLINE(cert-env33-c): --vm runs the installed erl by design; the paths are ours
    FILE *p = popen(cmd, "r");
    if (!p) {
        fail("--vm cannot run erl: %s", strerror(errno));
        return false;
    }
    double proc[3] = {NAN, NAN, NAN}, lookup = NAN, pt = NAN;
    tc_ep_counts pc = {0}, lc = {0};
    char first[256] = "";
    while (fgets(line, sizeof line, p)) {
        if (!first[0] && line[0] != '[' && line[0] != '#')
            (void)snprintf(first, sizeof first, "%.200s", line); /* the first complaint, if any */
        size_t cut = strcspn(line, ",");
        if (cut > 9 && strncmp(line + cut - 9, "_min_heap", 9) == 0)
            cut -= 9; /* eptest.erl names the tests of a --min-heap run proc1_min_heap, ... */
        if (cut > 11 && strncmp(line + cut - 11, "_compressed", 11) == 0)
            cut -= 11; /* and of a --compressed run proc1_compressed, ... */
        int k = -1;
        if (strncmp(line, "proc", 4) == 0 && cut == 5 && line[4] >= '1' && line[4] <= '3')
            k = line[4] - '1';
        bool is_lookup = cut == 10 && strncmp(line, "ets_lookup", 10) == 0;
        if (cut == 6 && strncmp(line, "pt_get", 6) == 0)
            pt = csv_field(line, 5);
        if (k < 0 && !is_lookup)
            continue;
        tc_ep_counts c = {.us = csv_field(line, 5), .faults = (long)csv_field(line, 7),
                          .gcs = (uint64_t)csv_field(line, 8), .carriers_mapped = (uint64_t)csv_field(line, 12)};
        if (is_lookup) {
            lookup = c.us;
            lc = c;
        } else {
            proc[k] = c.us;
            if (k == 1)
                pc = c;
        }
    }
    int status = pclose(p);
    if (status != 0 || isnan(lookup) || isnan(pt) || isnan(proc[0]) || isnan(proc[1]) || isnan(proc[2])) {
        first[strcspn(first, "\n")] = '\0';
        fprintf(stderr, "termcopy explain: --vm: eptest on the VM failed: %s\n", first[0] ? first : "no output");
        return false;
    }
    series_add(s, tc_timing_summarize(proc, 3).median, lookup, pt, &pc, &lc);
    return true;
}

/* ---- the command ---- */

/* A count option: an integer in [lo, hi]; false after saying why (one line). */
static bool parse_count(const option *o, long dflt, long lo, long hi, long *out)
{
    if (!o->set) {
        *out = dflt;
        return true;
    }
    char *end;
    errno = 0;
    long v = strtol(o->value, &end, 10);
    /* digits, or '-' and a nonzero digit: strtol alone also takes leading spaces, '+' and -0 */
    bool plain = (o->value[0] >= '0' && o->value[0] <= '9') || (o->value[0] == '-' && o->value[1] >= '1' && o->value[1] <= '9');
    if (errno || !plain || end == o->value || *end || v < lo || v > hi) {
        fprintf(stderr, "termcopy explain: %s must be an integer from %ld to %ld, not '%.20s'\n", o->name, lo, hi,
                o->value);
        return false;
    }
    *out = v;
    return true;
}

/* The variants: the loops as OTP 25 runs them, then each remedy. */
enum { V_BASE, V_MIN_HEAP, V_SBCT, V_COMPRESSED, NVARIANTS };

/* Each remedy is one field of the policy table (heaps/policy.h) set over the base, and the same
 * on the VM: an emulator flag, or eptest.erl's own option. */
static const struct remedy {
    const char *field;
    const char *vm_flag; /* the emulator flag, or NULL */
    const char *vm_arg;  /* eptest.erl's option, or NULL */
    bool vm_arg_value;   /* the option takes the field's value */
    const char *what;
} remedies[NVARIANTS] = {
    [V_MIN_HEAP] = {"min_heap_size", NULL, "--min-heap", true,
                    "the tester's min_heap_size, on both sides; the server keeps the default"},
    [V_SBCT] = {"sbct", "+MHsbct " EXPLAIN_XSTR(EXPLAIN_SBCT_KIB), NULL, false,
                "eheap single-block carriers from 2 MiB instead of 512 KiB"},
    [V_COMPRESSED] = {"ets_compressed", NULL, "--compressed", false, "a [set, compressed] table"},
};

/* --list-policy [--csv FILE|-]: the policy table. */
static int list_policy(const option *csv)
{
    bool to_file = csv->set && strcmp(csv->value, "-") != 0;
    FILE *f = to_file ? fopen(csv->value, "w") : stdout;
    if (!f)
        return fail("--csv: cannot write '%s'", csv->value);
    tc_policy_write_table(f, csv->set);
    if (to_file) {
        bool ok = fflush(f) == 0 && !ferror(f); /* fclose alone can miss an earlier failed write */
        if (fclose(f) != 0 || !ok)
            return fail("--csv: writing '%s' failed", csv->value);
    }
    return 0;
}

static double per_1000(double count, long iterations) { return count * 1000.0 / (double)iterations; }

static const char *verdict_word(double ratio) { return ratio > 1 ? "slower" : "faster"; }

/* The time account of TERM: the VM's loops and unit prices for it, one point of an account
 * session (the modules and the cpuclock NIF beside eptest.erl, else the build tree's NIF) a
 * round, each loop's prices with this machine's fault probe on the memory the loop faulted
 * in; explain_account_median takes the rounds' medians, field by field. */
typedef struct explain_account {
    tc_account_prices prices[TC_ACCOUNT_LOOPS];
    tc_account_counts vm[TC_ACCOUNT_LOOPS]; /* proc2's, the lookup's */
    double vm_us[TC_ACCOUNT_LOOPS];        /* CPU time */
} explain_account;

static tc_vm *explain_account_start(const explain_vm *vm)
{
    char nif[4200];
    (void)snprintf(nif, sizeof nif, "%s/cpuclock.so", vm->src);
    return tc_vm_start_account("termcopy explain", vm->src, access(nif, R_OK) == 0 ? vm->src : NULL);
}

static bool explain_account_run(tc_vm *s, const explain_vm *vm, long iterations, explain_account *out)
{
    char payload[200];
    (void)snprintf(payload, sizeof payload, "ext:%s/term.ext", vm->dir);
    tc_vm_account a;
    bool ok = tc_vm_account_point(s, payload, 0, iterations, &a);
    for (int k = 0; ok && k < TC_ACCOUNT_LOOPS; k++) {
        const tc_vm_pass *p = &a.pass[k == TC_ACCOUNT_RT ? 1 : 3];
        double fault;
        ok = tc_account_probe(tc_account_probe_region(p->faults), &fault) &&
             tc_account_prices_of_vm(&a, (tc_account_loop)k, fault, &out->prices[k]);
        out->vm[k] = tc_account_of_vm(p, iterations, a.words);
        out->vm_us[k] = p->cpu_us;
    }
    if (!ok)
        fail("%s", "--vm: the time account of TERM failed");
    return ok;
}

static void explain_account_median(const explain_account *rounds, long n, explain_account *out)
{
    for (int k = 0; k < TC_ACCOUNT_LOOPS; k++) {
        tc_account_prices_median(&rounds[0].prices[k], sizeof *rounds, (size_t)n, &out->prices[k]);
        tc_account_counts_median(&rounds[0].vm[k], sizeof *rounds, (size_t)n, &out->vm[k]);
        double us[TC_ACCOUNT_MEDIAN_MAX];
        for (long r = 0; r < n; r++)
            us[r] = rounds[r].vm_us[k];
        out->vm_us[k] = tc_timing_summarize(us, (size_t)n).median;
    }
}

static void print_phases(const char *who, const char *loop, const tc_account_phases *ph, double measured)
{
    printf("  %-6s %-10s %10.1f us = copy %.1f + gc %.1f + fault %.1f + mmap %.1f + fixed %.1f", who, loop,
           ph->total_us, ph->copy_us, ph->gc_us, ph->fault_us, ph->mmap_us, ph->fixed_us);
    if (measured > 0)
        printf("; measured %.1f (other %.1f)", measured, measured - ph->total_us);
    printf("\n");
}

static void print_verdict(const char *who, const explain_summary *s)
{
    printf("verdict (%s): ets:lookup is %.2fx %s than a round trip (lookup / round trip %.3f; "
           "per-run ratios %.3f-%.3f)\n",
           who, s->ratio > 1 ? s->ratio : s->ratio > 0 ? 1 / s->ratio : 0, verdict_word(s->ratio), s->ratio, s->lo,
           s->hi);
}

/* One row of the mechanism table: the model's lookup and round trip, and the VM's. */
static void print_count(const char *what, double ml, double mr, const explain_series *vm, double vl, double vr,
                        long n)
{
    printf("  %-34s %12.1f %12.1f", what, per_1000(ml, n), per_1000(mr, n));
    if (vm && !isnan(vl))
        printf(" %12.1f %12.1f", per_1000(vl, n), per_1000(vr, n));
    else if (vm)
        printf(" %12s %12s", "-", "-");
    putchar('\n');
}

static int cmd_explain(int argc, char **argv)
{
    enum { O_EXT, O_VM, O_TSV, O_ITER, O_REPEATS, O_SET, O_LIST, O_CSV };
    const char *sets[EXPLAIN_MAX_SETS];
    option opts[] = {{"--ext", false, false, NULL, NULL, 0, 0},        {"--vm", false, false, NULL, NULL, 0, 0},
                     {"--tsv", false, false, NULL, NULL, 0, 0},        {"--iterations", true, false, NULL, NULL, 0, 0},
                     {"--repeats", true, false, NULL, NULL, 0, 0},     {"--set", true, false, NULL, sets, 0, EXPLAIN_MAX_SETS},
                     {"--list-policy", false, false, NULL, NULL, 0, 0}, {"--csv", true, false, NULL, NULL, 0, 0},
                     {NULL, false, false, NULL, NULL, 0, 0}};
    const char *arg;
    int rc = parse_args(argc, argv, opts, &arg, true, "explain");
    if (rc)
        return rc;
    if (opts[O_LIST].set) {
        if (arg) {
            fprintf(stderr, "termcopy explain: --list-policy takes no TERM, got '%.40s'\n", arg);
            return EXIT_USAGE;
        }
        return list_policy(&opts[O_CSV]);
    }
    if (opts[O_CSV].set) {
        fprintf(stderr, "termcopy explain: --csv goes with --list-policy (see 'termcopy explain --help')\n");
        return EXIT_USAGE;
    }
    if (!arg) {
        fprintf(stderr, "termcopy explain: missing TERM (see 'termcopy explain --help')\n");
        return EXIT_USAGE;
    }
    tc_policy base = tc_policy_native();
    for (int k = 0; k < opts[O_SET].nall; k++) {
        char err[2048];
        if (tc_policy_set(&base, sets[k], err, sizeof err) != TC_OK) {
            fprintf(stderr, "termcopy explain: --set: %s\n", err);
            return EXIT_USAGE;
        }
    }
    long iterations, repeats;
    if (!parse_count(&opts[O_ITER], EXPLAIN_ITERATIONS, 1, 100000, &iterations) ||
        !parse_count(&opts[O_REPEATS], EXPLAIN_REPEATS, 1, EXPLAIN_MAX_REPEATS, &repeats))
        return EXIT_USAGE;
    bool want_vm = opts[O_VM].set;
    tc_arena *arena = tc_arena_new(0);
    if (!arena)
        return fail("%s", "out of memory");
    tc_term t;
    uint64_t flat, shared;
    size_t stored, ext_len;
    unsigned char *ext = NULL;
    explain_vm vm = {{0}, {0}, {0}, false};
    static explain_series model[NVARIANTS], vms[NVARIANTS]; /* static: 64 rounds each */
    static explain_account acct_rounds[EXPLAIN_MAX_REPEATS];
    memset(model, 0, sizeof model);
    memset(vms, 0, sizeof vms);
    tc_vm *acct_vm = NULL;
    rc = EXIT_USAGE;
    if (!read_operand(arg, opts[O_EXT].set, arena, &t) ||
        !term_sizes(arena, t, &flat, &shared, &stored, &ext_len))
        goto out;
    /* {I, TERM}'s words in a plain and in a compressed table, as ets:info(T, memory) counts them */
    uint64_t plain_words, comp_words;
    if (!object_memory(arena, t, false, &plain_words) || !object_memory(arena, t, true, &comp_words))
        goto out;
    /* The words each copy of TERM adds to a binary virtual heap (its ProcBins' size / 8):
     * what the reader linked into the arena, which holds nothing else with binaries. */
    uint64_t bin_words = tc_arena_alloc(arena)->offheap->vheap;
    if (want_vm) {
        tc_result r = tc_ext_encode(t, 2, &ext, &ext_len);
        if (r != TC_OK) {
            fail("--vm cannot encode the term for the VM: %s", tc_result_name(r));
            goto out;
        }
        if (!explain_vm_setup(&vm, ext, ext_len))
            goto out;
    }
    tc_vmoh oh = {0};
    explain_account acct;
    memset(&acct, 0, sizeof acct);
    /* The configurations: OTP 25 as the VM ships it (with the --set given), then one remedy each. */
    tc_ep_config cfg[NVARIANTS];
    if (tc_ep_config_for_era(base.name, &cfg[V_BASE]) != TC_OK) {
        fail("no %s preset", base.name);
        goto out;
    }
    cfg[V_BASE].policy = base;
    cfg[V_BASE].payload = t;
    cfg[V_BASE].len = (long)flat; /* not read with a payload; what a profiler or log would show */
    cfg[V_BASE].iterations = iterations;
    cfg[V_MIN_HEAP] = cfg[V_SBCT] = cfg[V_COMPRESSED] = cfg[V_BASE];
    uint64_t mem_need, mem_have;
    bool mem_fits;
    if (tc_ep_estimate_memory(&cfg[V_BASE], &mem_need, &mem_have, &mem_fits) != TC_OK) {
        fail("%s", "out of memory estimating the run's memory");
        goto out;
    }
    if (!mem_fits) { /* the loops' ETS table alone holds N objects {I, TERM} at once */
        fprintf(stderr,
                "termcopy explain: this run would hold at least %.2f GiB (%llu bytes: %ld ETS objects of TERM) and "
                "the machine has %.2f GiB (%llu bytes); lower --iterations\n",
                (double)mem_need / (1 << 30), (unsigned long long)mem_need, iterations, (double)mem_have / (1 << 30),
                (unsigned long long)mem_have);
        goto out;
    }
    /* --tsv's line holds the shipped configuration's figures only: the remedies and the
     * vm_overhead phase are the full output's, so a --tsv run does not measure them. */
    const bool tsv = opts[O_TSV].set;
    const int nvariants = tsv ? V_BASE + 1 : NVARIANTS;
    if (want_vm) { /* the phase, on the unitcost.erl beside the eptest.erl found */
        if (!tsv && !tc_vmoh_measure("termcopy explain", vm.src, &cfg[V_BASE].policy, &oh))
            goto out;
        if (!(acct_vm = explain_account_start(&vm)))
            goto out;
    }
    /* min_heap_size: the young heap holds Data (flat words, on the tester's heap as a spawn
     * argument) and EXPLAIN_MIN_HEAP_RESULTS results [{I, TERM}] (flat + 3 for the tuple + 2
     * for the cons) before it must collect; the next size of the heap-size table above it. */
    uint64_t need = flat + EXPLAIN_MIN_HEAP_RESULTS * (flat + 5);
    uint64_t min_heap = tc_heap_next_size(cfg[V_BASE].policy.heap_table, need, 0);
    if (min_heap < cfg[V_BASE].policy.min_heap_size)
        min_heap = cfg[V_BASE].policy.min_heap_size; /* a small term: never below the default */
    char values[NVARIANTS][32] = {"", "", "", "on"};
    (void)snprintf(values[V_MIN_HEAP], sizeof values[V_MIN_HEAP], "%llu", (unsigned long long)min_heap);
    (void)snprintf(values[V_SBCT], sizeof values[V_SBCT], "%d", EXPLAIN_SBCT_KIB * 1024);
    const char *vm_flags[NVARIANTS] = {""}, *vm_args[NVARIANTS] = {""};
    char vm_arg_text[NVARIANTS][64];
    for (int v = V_MIN_HEAP; v < NVARIANTS; v++) {
        const tc_policy_field *f = tc_policy_field_find(remedies[v].field);
        TC_CHECK(f && tc_policy_set_field(&cfg[v].policy, f, values[v], NULL, 0) == TC_OK);
        vm_flags[v] = remedies[v].vm_flag ? remedies[v].vm_flag : "";
        (void)snprintf(vm_arg_text[v], sizeof vm_arg_text[v], "%s%s%s", remedies[v].vm_arg ? remedies[v].vm_arg : "",
                       remedies[v].vm_arg_value ? " " : "", remedies[v].vm_arg_value ? values[v] : "");
        vm_args[v] = vm_arg_text[v];
    }
    /* Rounds: the model, then the VM, each variant, then the account of TERM, so all see the
     * same stretch of a shared machine; the account's prices and counts are the rounds' medians. */
    for (long k = 0; k < repeats; k++) {
        for (int v = 0; v < nvariants; v++) {
            if (!tsv || want_vm)
                tc_progress_line("termcopy explain: round %ld of %ld, %s", k + 1, repeats,
                                  v == V_BASE ? "OTP 25" : remedies[v].field);
            if (!explain_model_round(&cfg[v], &model[v]) ||
                (want_vm && !explain_vm_round(&vm, vm_flags[v], vm_args[v], iterations, &vms[v]))) {
                tc_progress_end();
                goto out;
            }
        }
        if (want_vm && !explain_account_run(acct_vm, &vm, iterations, &acct_rounds[k])) {
            tc_progress_end();
            goto out;
        }
    }
    tc_progress_end();
    if (want_vm) {
        tc_vm_stop(acct_vm);
        acct_vm = NULL;
        explain_account_median(acct_rounds, repeats, &acct);
    }
    explain_summary ms[NVARIANTS] = {{0}}, vs[NVARIANTS] = {{0}}; /* --tsv: the remedies' stay 0 */
    for (int v = 0; v < nvariants; v++) {
        ms[v] = explain_summarize(&model[v]);
        vs[v] = want_vm ? explain_summarize(&vms[v]) : (explain_summary){0, 0, 0, 0, 0};
    }
    const double per = 1000.0 / (double)iterations;
    /* Below the seed's 1000 operations a loop's one-time costs (the first heap growths and
     * GCs, first-touch faults) outweigh its per-operation ones, and a median of fewer than
     * three runs has no spread to set it against: the verdict can flip (1 x 1: 'slower' for a
     * term the default calls 'faster'). Said on stderr, so --tsv's rows stay as they are. */
    bool unstable = iterations < EXPLAIN_ITERATIONS || repeats < 3;
    if (unstable)
        fprintf(stderr,
                "termcopy explain: caution: %ld operation%s a loop and %ld run%s are below what gives a stable "
                "verdict (%d operations, 3 runs); the ratio may say the opposite at the defaults\n",
                iterations, iterations == 1 ? "" : "s", repeats, repeats == 1 ? "" : "s", EXPLAIN_ITERATIONS);
    /* The model's counts (its first round's proc2 and lookup) at the VM's prices for TERM. */
    tc_account_phases priced[TC_ACCOUNT_LOOPS];
    const tc_ep_counts *mcounts[TC_ACCOUNT_LOOPS] = {&model[V_BASE].proc, &model[V_BASE].lookup};
    for (int k = 0; k < TC_ACCOUNT_LOOPS; k++) {
        tc_account_counts c = tc_account_of_model(mcounts[k], iterations, flat);
        priced[k] = tc_account_price(&c, &acct.prices[k]);
    }
    double priced_ratio = priced[TC_ACCOUNT_RT].total_us > 0
                              ? priced[TC_ACCOUNT_LOOKUP].total_us / priced[TC_ACCOUNT_RT].total_us
                              : 0;
    double model_ratio = want_vm ? priced_ratio : ms[V_BASE].ratio;
    if (tsv) {
        char vr[32] = "-", vg[32] = "-", vf[32] = "-";
        if (want_vm) {
            (void)snprintf(vr, sizeof vr, "%.3f", vs[V_BASE].ratio);
            (void)snprintf(vg, sizeof vg, "%.1f", (double)vms[V_BASE].lookup.gcs * per);
            (void)snprintf(vf, sizeof vf, "%.1f", (double)vms[V_BASE].lookup.faults * per);
        }
        printf("%.3f\t%s\t%.1f\t%s\t%.1f\t%s\t%s\t%.3f\n", model_ratio, vr, (double)model[V_BASE].lookup.gcs * per,
               vg, (double)model[V_BASE].lookup.faults * per, vf,
               verdict_word(want_vm ? vs[V_BASE].ratio : ms[V_BASE].ratio), ms[V_BASE].ratio);
        rc = 0;
        goto out;
    }
    printf("term:      flat %llu words, shared %llu words, stored as {I, TERM} %zu words, external %zu bytes\n",
           (unsigned long long)flat, (unsigned long long)shared, stored, ext_len);
    printf("loops:     OTP 25 rules; %ld lookups of {I, TERM} (results dropped) against %ld round trips whose\n"
           "           reply carries TERM; medians of %ld run%s%s\n",
           iterations, iterations, repeats, repeats == 1 ? "" : "s",
           want_vm ? ", the model's and the VM's alternated" : "");
    if (opts[O_SET].nall > 0) {
        char changed[1024];
        tc_policy_format(&base, NULL, 0, changed, sizeof changed);
        printf("set:       %s (the model's runs only)\n", changed);
    }
    if (TC_DEBUG_LEVEL > 0)
        printf("note:      this termcopy is built at debug level %d: its checks run inside the timed loops,\n"
               "           so the model's times and ratios are not a release build's (its counts are)\n",
               TC_DEBUG_LEVEL);
    print_verdict("model, its C code's time", &ms[V_BASE]);
    if (want_vm) {
        printf("verdict (model, its counts at the VM's prices): ets:lookup is %.2fx %s than a round trip "
               "(lookup / round trip %.3f)\n",
               priced_ratio > 1 ? priced_ratio : priced_ratio > 0 ? 1 / priced_ratio : 0, verdict_word(priced_ratio),
               priced_ratio);
        printf("time account (us of CPU time for %ld operations; the VM's prices for TERM, the medians of %ld "
               "round%s; round trip: proc2):\n",
               iterations, repeats, repeats == 1 ? "" : "s");
        for (int k = 0; k < TC_ACCOUNT_LOOPS; k++) {
            const char *loop = k == TC_ACCOUNT_RT ? "round trip" : "lookup";
            tc_account_phases vp = tc_account_price(&acct.vm[k], &acct.prices[k]);
            print_phases("model", loop, &priced[k], 0);
            print_phases("VM", loop, &vp, acct.vm_us[k]);
        }
    }
    tc_vmoh_print(stdout, &oh, "not measured: --vm measures it on the VM");
    if (oh.present) {
        explain_series with = model[V_BASE];
        for (int k = 0; k < with.n; k++) {
            with.proc_us[k] += tc_vmoh_pass_us(&oh, TC_EP_PROC1, iterations);
            with.lookup_us[k] += tc_vmoh_pass_us(&oh, TC_EP_LOOKUP, iterations);
        }
        explain_summary ws = explain_summarize(&with);
        print_verdict("model + vm_overhead", &ws);
    }
    if (want_vm)
        print_verdict("VM", &vs[V_BASE]);
    const explain_series *mb = &model[V_BASE], *vb = want_vm ? &vms[V_BASE] : NULL;
    printf("mechanism, per 1000 operations (first run):\n");
    printf("  %-34s %12s %12s%s\n", "", "lookup", "round trip", want_vm ? "    VM lookup  VM rnd trip" : "");
    print_count("GCs (lookup: with its result live)", (double)mb->lookup.gcs, (double)mb->proc.gcs, vb,
                vb ? (double)vb->lookup.gcs : NAN, vb ? (double)vb->proc.gcs : NAN, iterations);
    print_count("words the GCs copied", (double)mb->lookup.gc_words, (double)mb->proc.gc_words, vb, NAN, NAN,
                iterations);
    print_count("words the copies wrote", (double)mb->lookup.words_copied, (double)mb->proc.words_copied, vb, NAN,
                NAN, iterations);
    print_count("fresh carriers mapped", (double)mb->lookup.carriers_mapped, (double)mb->proc.carriers_mapped, vb,
                vb ? (double)vb->lookup.carriers_mapped : NAN, vb ? (double)vb->proc.carriers_mapped : NAN, iterations);
    print_count("minor faults", (double)mb->lookup.faults, (double)mb->proc.faults, vb,
                vb ? (double)vb->lookup.faults : NAN, vb ? (double)vb->proc.faults : NAN, iterations);
    if (want_vm)
        printf("  (the VM: GCs of all its processes, faults of the whole OS process; it counts no words)\n");
    printf("remedies, each rerun with it applied:\n");
    for (int v = V_MIN_HEAP; v < NVARIANTS; v++) {
        printf("  with %s %s%s%s%s:", remedies[v].field, values[v], remedies[v].vm_flag ? " (" : "",
               remedies[v].vm_flag ? remedies[v].vm_flag : "", remedies[v].vm_flag ? ")" : "");
        /* The lookup's own time beside the ratio: a remedy can speed the round trip as well. */
        printf(" ratio %.3f (GCs %.1f; lookup %.2f us, OTP 25 %.2f)", ms[v].ratio, (double)model[v].lookup.gcs * per,
               ms[v].lookup_us / (double)iterations, ms[V_BASE].lookup_us / (double)iterations);
        if (want_vm)
            printf("; VM: ratio %.3f (GCs %.1f; lookup %.2f us, OTP 25 %.2f)", vs[v].ratio,
                   (double)vms[v].lookup.gcs * per, vs[v].lookup_us / (double)iterations,
                   vs[V_BASE].lookup_us / (double)iterations);
        printf("\n    [GCs per 1000 lookups, us per lookup; %s", remedies[v].what);
        if (v == V_COMPRESSED)
            printf(": {I, TERM} stored in %llu words against %llu, each lookup decoding into its one allocation: "
                   "%.0f words written per lookup against %.0f",
                   (unsigned long long)comp_words, (unsigned long long)plain_words,
                   (double)model[v].lookup.words_copied / (double)iterations,
                   (double)model[V_BASE].lookup.words_copied / (double)iterations);
        printf("]\n");
    }
    printf("  (min_heap_size %llu: the next heap size at or above TERM's %llu words plus %d results [{I, TERM}] of\n"
           "  %llu words each, so the lookup loop collects at most once per %d lookups; never below the default %llu)\n",
           (unsigned long long)min_heap, (unsigned long long)flat, EXPLAIN_MIN_HEAP_RESULTS,
           (unsigned long long)flat + 5, EXPLAIN_MIN_HEAP_RESULTS,
           (unsigned long long)cfg[V_BASE].policy.min_heap_size);
    if (bin_words > 0 && cfg[V_BASE].policy.bin_vheap)
        printf("  (refc binaries: each result adds %llu words to the binary virtual heap, which starts at %llu words\n"
               "  (min_bin_vheap_size): more than bin_vheap_sz of them between two GCs make a GC whatever the heap size)\n",
               (unsigned long long)bin_words,
               (unsigned long long)tc_heap_next_size(cfg[V_BASE].policy.heap_table,
                                                     cfg[V_BASE].policy.min_bin_vheap_size, 0));
    /* persistent_term: the data stored once, each read a reference to it (copy/literal.h) */
    printf("  with persistent_term:get instead of ets:lookup: %.2f us per get against a lookup's %.2f (%.1fx)",
           ms[V_BASE].pt_us / (double)iterations, ms[V_BASE].lookup_us / (double)iterations,
           ms[V_BASE].pt_us > 0 ? ms[V_BASE].lookup_us / ms[V_BASE].pt_us : 0);
    if (want_vm)
        printf("; VM: %.2f us against %.2f (%.1fx)", vs[V_BASE].pt_us / (double)iterations,
               vs[V_BASE].lookup_us / (double)iterations, vs[V_BASE].pt_us > 0 ? vs[V_BASE].lookup_us / vs[V_BASE].pt_us : 0);
    printf("\n    [a get copies nothing and allocates nothing; the price moves to put, and to a global\n"
           "    GC of every process when the term is replaced or erased]\n");
    rc = 0;
out:
    if (acct_vm)
        tc_vm_stop(acct_vm);
    explain_vm_cleanup(&vm);
    tc_mem_free(ext);
    tc_arena_free(arena);
    return rc;
}

/* rc, unless what was written to stdout did not all reach it (a full disk, a closed pipe). */
static int flush_stdout(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        return fail("cannot write output: %s", strerror(errno));
    return rc;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int, char **);
        const char *usage;
    } commands[] = {{"size", cmd_size, usage_size},
                    {"print", cmd_print, usage_print},
                    {"encode", cmd_encode, usage_encode},
                    {"decode", cmd_decode, usage_decode},
                    {"explain", cmd_explain, usage_explain}};
    if (argc < 2) {
        fputs("termcopy: missing COMMAND (see 'termcopy --help')\n", stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(usage_main, stdout);
        return flush_stdout(0);
    }
    if (strcmp(argv[1], "--version") == 0) {
        fputs("termcopy " TC_TOOL_VERSION "\n", stdout);
        return flush_stdout(0);
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        if (wants_help(argc - 2, argv + 2)) {
            fputs(commands[i].usage, stdout);
            return flush_stdout(0);
        }
        return flush_stdout(commands[i].run(argc - 2, argv + 2));
    }
    fprintf(stderr, "termcopy: unknown command '%s' (see 'termcopy --help')\n", argv[1]);
    return EXIT_USAGE;
}
